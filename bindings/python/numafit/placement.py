"""numafit.Placement: where an instance's NUMA cells go on a host."""
import json
from ctypes import byref, c_int, c_uint64

from . import _ffi, errors

JSON_NOVA = 1  # NUMAFIT_PLACEMENT_JSON_NOVA

DOMAIN_FULL = 1
DOMAIN_NOVA_EXACT = 2


class Placement(_ffi.Owned):
    """A fit's result.  `cells` is the plain form (doc/json-formats.md): a
    list of {"id" (host cell), "cpuset", "pcpuset", "memory" (MiB),
    "pagesize" (KiB or None), "cpu_pinning" ({vCPU: pCPU} or None),
    "cpuset_reserved" (list or None)}, one per guest cell.  Pinning keys are
    ints here."""
    _free = "placement_free"

    def __init__(self, handle):
        self._h = handle
        self._cells = None

    @classmethod
    def from_json(cls, data):
        """nova's InstanceNUMATopology primitive (dict or text), or the plain
        list form."""
        if not isinstance(data, (str, bytes, bytearray, memoryview)):
            data = json.dumps(data)
        b, n = _ffi.cbuf(data, "placement JSON")
        p, err = _ffi.PlacementP(), _ffi.Error()
        _ffi.placement_new_from_json(b, n, 0, byref(p), byref(err))
        return cls(p)

    from_nova_dict = from_json

    def __copy__(self):
        p = _ffi.PlacementP()
        with _ffi.hold(self) as (h,):
            _ffi.placement_dup(h, byref(p))
        return type(self)(p)

    def __getstate__(self):
        return {"nova": self.to_nova_dict()}

    def __setstate__(self, st):
        self._adopt(Placement.from_json(st["nova"]))
        self._cells = None

    def set_uuid(self, uuid):
        b = _ffi.cstr(uuid, "uuid")
        with _ffi.hold(self, write=self) as (h,):
            _ffi.placement_set_uuid(h, b)

    def to_json(self, nova=False, indent=False):
        with _ffi.hold(self) as (h,):
            return _ffi.call_str(_ffi.placement_to_json, h,
                                 (JSON_NOVA if nova else 0) | (2 if indent else 0))

    def to_nova_dict(self):
        """nova's InstanceNUMATopology 1.3 primitive (for
        objects.InstanceNUMATopology.obj_from_primitive)."""
        return json.loads(self.to_json(nova=True))

    @property
    def cells(self):
        self.handle  # ClosedError once closed, even with the cells cached
        if self._cells is None:
            cells = json.loads(self.to_json())
            for c in cells:
                if c.get("cpu_pinning") is not None:
                    c["cpu_pinning"] = {int(k): v for k, v in c["cpu_pinning"].items()}
            self._cells = cells
        return self._cells

    @property
    def host_cells(self):
        return [c["id"] for c in self.cells]

    @property
    def pinning(self):
        """{vCPU: pCPU} over all guest cells."""
        out = {}
        for c in self.cells:
            out.update(c.get("cpu_pinning") or {})
        return out

    @property
    def page_sizes(self):
        return [c.get("pagesize") for c in self.cells]

    def __len__(self):
        with _ffi.hold(self) as (h,):
            return _ffi.placement_get_cell_count(h)

    def __repr__(self):
        try:
            return "<numafit.Placement host_cells=%s>" % self.host_cells
        except errors.ClosedError:
            return "<numafit.Placement closed>"

    def to_libvirt_xml(self, host, request, flavor=None, image=None, conf=None, full=False,
                       nova_exact=False):
        """nova's libvirt domain XML fragments for this placement
        (numafit_domain_xml).  flavor/image default to the request's;
        conf: DomainConf or its keyword dict."""
        return domain_xml(host, request, self, flavor, image, conf, full, nova_exact)


class DomainConf(_ffi.Owned):
    """Compute-host settings for the domain XML (domain.h):
    DomainConf(cpu_shared_set=None, vcpu_pin_set=None, online_cpus=None,
    realtime_priority=None, cpu_control=None, file_backed_memory=None,
    domain_type=None, name=None, uuid=None, cpu_mode=None, virt_type=None,
    arch=None, cpu_models=None, cpu_model_extra_flags=None,
    mem_stats_period=None, disk_cachemodes=None); the lists are oslo.config
    list texts ("a, b")"""
    _free = "domconf_free"

    def __init__(self, **kw):
        h = _ffi.DomconfP()
        _ffi.domconf_new(byref(h))
        self._h = h  # not shared yet: set up without the lock
        self._apply(kw)

    def _apply(self, kw):
        for k, v in kw.items():
            if v is None:
                continue
            try:
                self._set(k, v)
            except errors.NumafitError as e:
                if e.where:
                    raise
                # a setter without an error struct: name the keyword
                raise type(e)(e.errno, "%r is refused (%s)" % (v, e.text), e.code, k, e.cell,
                              e.exception, e.func) from None

    def _set(self, k, v):
        h = self._h
        err = _ffi.Error()
        if k in ("cpu_shared_set", "vcpu_pin_set", "online_cpus", "cpu_models",
                 "cpu_model_extra_flags", "disk_cachemodes"):
            getattr(_ffi, "domconf_set_" + k)(h, _ffi.cstr(v, k), byref(err))
        elif k in ("domain_type", "name", "uuid", "cpu_mode", "virt_type", "arch"):
            getattr(_ffi, "domconf_set_" + k)(h, _ffi.cstr(v, k))
        elif k == "realtime_priority":
            _ffi.domconf_set_realtime_priority(h, _ffi.cint(v, k, c_int))
        elif k == "mem_stats_period":
            _ffi.domconf_set_mem_stats_period(h, _ffi.cint(v, k, c_int))
        elif k == "cpu_control":
            _ffi.domconf_set_cpu_control(h, 1 if v else 0)
        elif k == "file_backed_memory":
            _ffi.domconf_set_file_backed_memory(h, _ffi.cint(v, k, c_uint64))
        else:
            raise TypeError("DomainConf: unknown setting %r" % k)

    @classmethod
    def from_nova_conf(cls, text, **kw):
        """The settings of a nova.conf's text (str or bytes), read as
        oslo.config reads them: [compute] cpu_shared_set, [DEFAULT]
        vcpu_pin_set, [libvirt] realtime_scheduler_priority,
        file_backed_memory, virt_type, cpu_mode, cpu_models,
        cpu_model_extra_flags, mem_stats_period_seconds and disk_cachemodes
        (numafit_domconf_set_from_nova_conf); the keyword settings of
        DomainConf() are applied after it and win.  Errors name the line or
        the option (numafit.errors.ParseError; ConfigFileValueError, as
        oslo.config names a value it refuses; RangeError, ...)."""
        buf, n = _ffi.cbuf(text, "nova.conf")
        conf = cls()
        err = _ffi.Error()
        with _ffi.hold(conf, write=conf) as (h,):
            _ffi.domconf_set_from_nova_conf(h, buf, n, 0, byref(err))
        if kw:
            conf._apply(kw)
        return conf

def domain_xml(host, request, placement=None, flavor=None, image=None, conf=None, full=False,
               nova_exact=False):
    from .fit import _check_args
    _check_args(host, request)
    if conf is not None and not isinstance(conf, DomainConf):
        conf = DomainConf(**conf)
    flavor = request.flavor if flavor is None else flavor
    image = request.image if image is None else image
    ft = None if flavor is None else (flavor if isinstance(flavor, (str, bytes))
                                      else json.dumps(flavor))
    it = None if image is None else (image if isinstance(image, (str, bytes))
                                     else json.dumps(image))
    fb, fn = _ffi.cbuf(ft, "flavor", none=True)
    ib, inn = _ffi.cbuf(it, "image", none=True)
    flags = (DOMAIN_FULL if full else 0) | (DOMAIN_NOVA_EXACT if nova_exact else 0)
    with _ffi.hold(host, request, placement, conf) as (h, r, p, c):
        return _ffi.call_str(_ffi.domain_xml, h, r, p, fb, fn, ib, inn, c, flags)


def disk_iotune_xml(flavor, nova_exact=False):
    """A disk's <iotune> element from the flavor's
    quota:disk_{read,write,total}_{bytes,iops}_sec (nova's Image.disk_qos),
    or "" when it sets none (numafit_domain_disk_iotune_xml).  flavor: dict
    or JSON text.  Raises numafit.errors.ValidationError for a value nova's
    validators refuse, and libvirtError where libvirt would refuse the
    result unless nova_exact (then the XML nova writes)."""
    return _device_xml(_ffi.domain_disk_iotune_xml, flavor, nova_exact)


def interface_bandwidth_xml(flavor, nova_exact=False):
    """An interface's <bandwidth> element from the flavor's
    quota:vif_{inbound,outbound}_{average,peak,burst} (nova's
    designer.set_vif_bandwidth_config), or "" when it sets none
    (numafit_domain_interface_bandwidth_xml).  Arguments and errors as for
    disk_iotune_xml()."""
    return _device_xml(_ffi.domain_interface_bandwidth_xml, flavor, nova_exact)


def _device_xml(func, flavor, nova_exact):
    ft = flavor if isinstance(flavor, (str, bytes)) else json.dumps(flavor)
    fb, fn = _ffi.cbuf(ft, "flavor")
    return _ffi.call_str(func, fb, fn, DOMAIN_NOVA_EXACT if nova_exact else 0)
