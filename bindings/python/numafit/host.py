"""numafit.Host: a host NUMA topology (nova's NUMATopology) and its usage."""
import array
import collections
import errno
import json
import os
import stat
from ctypes import byref, c_int64, c_size_t, c_uint, c_uint64

from . import _ffi, errors
from .cpu import take_cpuset

JSON_STRING = 1  # NUMAFIT_HOST_JSON_STRING
JSON_INDENT = 2  # NUMAFIT_JSON_INDENT
ALLOW_OVERLAP = 1  # NUMAFIT_HOST_ALLOW_OVERLAP
DISCOVER_ALL_ONLINE = 1
DISCOVER_ANY_ARCH = 2
FILL_STOPS = {0: "full", 1: "max"}  # enum numafit_host_fill_stop (2, stopped: not used here)

FillResult = collections.namedtuple("FillResult",
                                    "counts placements order stop code code_name cell text")
FillResult.__doc__ = """Host.fill()'s answer.  counts: instances placed per
request; placements: the claimed Placements in order (empty unless
keep=True); order: the request index of each placement; stop: "full" (none
of the requests fits any more) or "max" (max_count placed); code,
code_name, cell, text: the last refusal when full (code_name "NOFIT_CPU"...,
or "TOO_COMPLEX" when that fit exceeded its work budget), else 0, "OK", -1,
""."""

# enum numafit_cell_stat, in order: the names Host.cell_stat() takes
CELL_STATS = ("shared_cpus", "dedicated_cpus", "pinned_cpus", "free_pcpus", "cores",
              "free_cores", "partial_cores", "partial_free_pcpus", "threads_per_core",
              "cpu_usage", "memory_mb", "memory_used_mb", "socket", "page_sizes",
              "sibling_sets")
# enum numafit_cell_cpus, in order: the sets Host.cell_cpus() gives
CELL_CPUS = ("shared", "dedicated", "pinned", "free")

CellPages = collections.namedtuple("CellPages", "size_kb total used reserved")
CellPages.__doc__ = """One mempages entry of a host cell (nova's NUMAPagesTopology):
page size in KiB, pages in total, used and reserved."""


class HostConf(_ffi.Owned):
    """nova.conf options that shape a discovered host (discover.h).

    HostConf(cpu_dedicated_set="2-7", cpu_shared_set="0-1", vcpu_pin_set=None,
             reserved_huge_pages=["node:0,size:2048,count:64"],
             physnets={"physnet1": "0"}, tunnel_numa_nodes="1")
    """
    _free = "hostconf_free"

    def __init__(self, cpu_dedicated_set=None, cpu_shared_set=None, vcpu_pin_set=None,
                 reserved_huge_pages=(), physnets=None, tunnel_numa_nodes=None):
        h = _ffi.HostconfP()
        _ffi.hostconf_new(byref(h))
        self._h = h  # not shared yet: set up without the lock
        err = _ffi.Error()
        for name, value in (("cpu_dedicated_set", cpu_dedicated_set),
                            ("cpu_shared_set", cpu_shared_set),
                            ("vcpu_pin_set", vcpu_pin_set)):
            if value is not None:
                getattr(_ffi, "hostconf_set_" + name)(h, _ffi.cstr(value, name), byref(err))
        if isinstance(reserved_huge_pages, str):
            reserved_huge_pages = [reserved_huge_pages]
        for v in reserved_huge_pages or ():
            _ffi.hostconf_add_reserved_huge_pages(h, _ffi.cstr(v, "reserved_huge_pages"),
                                                  byref(err))
        for name, nodes in (physnets or {}).items():
            if not isinstance(nodes, str):
                nodes = ",".join(str(n) for n in nodes)
            _ffi.hostconf_add_physnet(h, _ffi.cstr(name, "physnets"),
                                      _ffi.cstr(nodes, "physnets[%r]" % (name,)), byref(err))
        if tunnel_numa_nodes is not None:
            if not isinstance(tunnel_numa_nodes, str):
                tunnel_numa_nodes = ",".join(str(n) for n in tunnel_numa_nodes)
            _ffi.hostconf_set_tunnel_numa_nodes(h, _ffi.cstr(tunnel_numa_nodes,
                                                             "tunnel_numa_nodes"), byref(err))

    @classmethod
    def from_nova_conf(cls, text):
        """The options of a nova.conf's text (str or bytes), read as
        oslo.config reads them: [compute] cpu_dedicated_set, cpu_shared_set,
        [DEFAULT] vcpu_pin_set, reserved_huge_pages, [neutron] physnets with
        [neutron_physnet_NAME] numa_nodes, [neutron_tunnel] numa_nodes
        (numafit_hostconf_set_from_nova_conf).  Errors name the line or the
        option (numafit.errors.ParseError, Invalid, ...)."""
        buf, n = _ffi.cbuf(text, "nova.conf")
        conf = cls()
        err = _ffi.Error()
        with _ffi.hold(conf, write=conf) as (h,):
            _ffi.hostconf_set_from_nova_conf(h, buf, n, 0, byref(err))
        return conf

    def has_cpu_sets(self):
        """Whether cpu_dedicated_set, cpu_shared_set or vcpu_pin_set is set
        (numafit_hostconf_has_cpu_sets): a nova.conf that sets none leaves a
        host's CPU pools as nova reported them."""
        with _ffi.hold(self) as (h,):
            return bool(_ffi.hostconf_has_cpu_sets(h))

    @classmethod
    def coerce(cls, conf):
        if conf is None or isinstance(conf, HostConf):
            return conf
        return cls(**conf)


def nova_conf_misplaced(text):
    """The options of a nova.conf's text that sit in a section nova does not
    read them from (e.g. vcpu_pin_set under [libvirt]), in file order: a
    list of {"line", "section", "option", "group"} (group: where nova reads
    it); nova ignores them (numafit_nova_conf_misplaced)."""
    buf, n = _ffi.cbuf(text, "nova.conf")
    return json.loads(_ffi.call_str(_ffi.nova_conf_misplaced, buf, n, 0))


DOCTOR_REALTIME = 1  # NUMAFIT_DOCTOR_REALTIME


def doctor(root=None, nova_conf=None, domains=(), realtime=False):
    """The host doctor's report as a dict (numafit_doctor_domains; doc/doctor.md):
    check the compute host whose /proc, /sys and /etc are below root (None:
    "/") against nova.conf's text (None: not checked) and, for each text of
    domains (libvirt domain XML of a running guest, as `virsh dumpxml`
    prints it), compare the guest with the host and with what the host's
    nova would give it. report["errors"] is added: the number of findings
    with severity "error". A domain the library cannot read raises
    NumafitError (a ValueError) whose where names it ("domains[I] line L
    <element>")."""
    r = _ffi.cpath(root, "root", none=True)
    conf, clen = _ffi.cbuf(nova_conf, "nova_conf", none=True)
    if isinstance(domains, (str, bytes)):
        raise TypeError("numafit: domains must be a list of XML texts, not one text")
    texts = [_ffi.cbuf(d, "domains[%d]" % i) for i, d in enumerate(domains)]
    arr = (_ffi.c_char_p * max(len(texts), 1))(*[t[0] for t in texts])
    lens = (c_size_t * max(len(texts), 1))(*[t[1] for t in texts])
    out, err = _ffi.c_void_p(), _ffi.Error()
    flags = DOCTOR_REALTIME if realtime else 0
    if hasattr(_ffi, "doctor_domains"):
        n = _ffi.doctor_domains(r, conf, clen, arr, lens, len(texts), flags, byref(out),
                                byref(err))
    elif texts:
        raise NotImplementedError("numafit: this libnumafit has no numafit_doctor_domains")
    else:
        n = _ffi.doctor(r, conf, clen, flags, byref(out), byref(err))
    report = json.loads(_ffi.take_string(out))
    report["errors"] = n
    return report


_USAGE_BUF = c_int64 * 128  # one array type for cell_usage (each `c_int64 * n` is a new type)


def cell_usage_of(get, h, index):
    """Host.cell_usage() through get (numafit_host_get_cell_usage on a
    handle, or its address form) on host h."""
    n = c_size_t()
    buf = _USAGE_BUF()
    rc = get(h, index, 0, buf, 128, byref(n))
    if rc == -errno.ENOSPC:
        buf = (c_int64 * n.value)()
        rc = get(h, index, 0, buf, n.value, byref(n))
    if rc < 0:
        raise errors.from_rc(rc, None, "cell_usage")
    v = buf[:n.value]
    npin = v[2]
    pages = v[4 + npin:]
    return (v[0], v[1], v[3:3 + npin],
            [tuple(pages[i:i + 4]) for i in range(0, len(pages), 4)])


class Host(_ffi.Owned):
    """A host: nova's NUMATopology with usage.

    Fits (numafit.fit) and the accessors only read the host, and may run
    from many threads at once; claim(), release(), fit_and_claim() and
    close() change it and wait for running readers on the same Host object
    (a readers-writer lock; waiting writers go first).  A closed Host raises
    numafit.errors.ClosedError.  Use copy.copy(host) for a what-if copy
    (numafit_host_dup).
    """
    _free = "host_free"

    def __init__(self, handle):
        if not handle:
            raise ValueError("numafit.Host needs a handle; use Host.from_json() etc.")
        self._h = handle

    # ---------------------------------------------------------- constructors
    @classmethod
    def from_json(cls, data, allow_overlap=False):
        """nova's NUMATopology primitive (dict or JSON text), the DB column
        text, or the legacy dict."""
        if not isinstance(data, (str, bytes, bytearray, memoryview)):
            data = json.dumps(data)
        b, n = _ffi.cbuf(data, "host JSON")
        h, err = _ffi.HostP(), _ffi.Error()
        _ffi.host_new_from_json(b, n, ALLOW_OVERLAP if allow_overlap else 0, byref(h),
                                byref(err))
        return cls(h)

    @classmethod
    def from_records(cls, records, names=b"", allow_overlap=False):
        """The host of integer records (numafit_host_new_from_records(), the
        layout in doc/host-records.md): records an array.array('q') or a
        sequence of ints, names the physnets NUL-terminated one after
        another (bytes) or a sequence of str."""
        if not (isinstance(records, array.array) and records.typecode == "q"):
            a = array.array("q")
            try:
                a.fromlist(list(records))
            except OverflowError as e:
                raise _ffi.out_of_range("records", str(e)) from None
            records = a
        if not isinstance(names, (bytes, bytearray)):
            names = b"".join(_ffi.cstr(s, "physnet") + b"\0" for s in names)
        addr, n = records.buffer_info()
        h, err = _ffi.HostP(), _ffi.Error()
        _ffi.host_new_from_records(addr, n, bytes(names), len(names),
                                   ALLOW_OVERLAP if allow_overlap else 0, byref(h), byref(err))
        return cls(h)

    def cell_usage(self, index):
        """(cpu_usage, memory_usage, pinned CPU ids ascending, [(size_kb,
        total, used, reserved), ...]) of the cell at index
        (numafit_host_get_cell_usage())."""
        index = _ffi.cint(index, "index")
        with _ffi.hold(self) as (h,):
            return cell_usage_of(_ffi.host_get_cell_usage, h, index)

    @classmethod
    def from_file(cls, path, allow_overlap=False):
        """from_json() of a file's content: at most _ffi.INPUT_MAX bytes
        (16 MiB, the library's NUMAFIT_INPUT_MAX).  A larger file, or a
        device or pipe that gives more, raises numafit.errors.RangeError
        after reading no more than the limit."""
        path = os.fspath(path)  # TypeError for a file descriptor
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            if stat.S_ISREG(st.st_mode) and st.st_size > _ffi.INPUT_MAX:
                raise _too_big(path)
            data = f.read(_ffi.INPUT_MAX + 1)
        if len(data) > _ffi.INPUT_MAX:
            raise _too_big(path)
        return cls.from_json(data, allow_overlap)

    @classmethod
    def synthetic(cls, spec):
        """e.g. Host.synthetic("cells:2 cores:8 threads:2 mem:64G pages:2M=1024")"""
        b = _ffi.cstr(spec, "spec")
        h, err = _ffi.HostP(), _ffi.Error()
        _ffi.host_new_synthetic(b, 0, byref(h), byref(err))
        return cls(h)

    @classmethod
    def from_caps_xml(cls, xml, conf=None, online=None, all_online=False, any_arch=False):
        """libvirt capabilities XML; conf: HostConf or its keyword dict;
        online: nova's online CPUs as a cpu spec (None: every listed CPU)."""
        conf = HostConf.coerce(conf)
        b, n = _ffi.cbuf(xml, "capabilities XML")
        ob = _ffi.cstr(online, "online", none=True)
        h, err = _ffi.HostP(), _ffi.Error()
        with _ffi.hold(conf) as (ch,):
            _ffi.host_new_from_caps_xml(b, n, ch, ob, _dflags(all_online, any_arch), byref(h),
                                        byref(err))
        return cls(h)

    @classmethod
    def from_libvirt(cls, uri=None, conf=None, all_online=False, any_arch=False):
        """A live libvirt connection (read-only).  Blocking: under eventlet
        call it through eventlet.tpool.execute."""
        conf = HostConf.coerce(conf)
        ub = _ffi.cstr(uri or None, "uri", none=True)
        h, err = _ffi.HostP(), _ffi.Error()
        with _ffi.hold(conf) as (ch,):
            _ffi.host_new_from_libvirt(ub, ch, _dflags(all_online, any_arch), byref(h),
                                       byref(err))
        return cls(h)

    @classmethod
    def from_sysfs(cls, root="/", conf=None, all_online=False, any_arch=False):
        """A Linux sysfs tree under root (root/sys/devices/system/...)."""
        conf = HostConf.coerce(conf)
        rb = _ffi.cpath(root or None, "root", none=True)
        h, err = _ffi.HostP(), _ffi.Error()
        with _ffi.hold(conf) as (ch,):
            _ffi.host_new_from_sysfs(rb, ch, _dflags(all_online, any_arch), byref(h),
                                     byref(err))
        return cls(h)

    # ---------------------------------------------------------- copies
    def __copy__(self):
        h = _ffi.HostP()
        with _ffi.hold(self) as (sh,):
            _ffi.host_dup(sh, byref(h))
        return type(self)(h)

    def __deepcopy__(self, memo):
        return self.__copy__()

    copy = __copy__

    def __getstate__(self):
        return {"json": self.to_json()}

    def __setstate__(self, state):
        self._adopt(Host.from_json(state["json"]))

    # ---------------------------------------------------------- accessors
    def to_json(self, indent=False, as_string=False):
        """nova's NUMATopology 1.2 primitive as JSON text (as_string: the DB
        column form, a JSON string holding it)."""
        flags = (JSON_INDENT if indent else 0) | (JSON_STRING if as_string else 0)
        with _ffi.hold(self) as (h,):
            return _ffi.call_str(_ffi.host_to_json, h, flags)

    def to_dict(self):
        return json.loads(self.to_json())

    def __len__(self):
        with _ffi.hold(self) as (h,):
            return _ffi.host_get_cell_count(h)

    @property
    def cell_ids(self):
        with _ffi.hold(self) as (h,):
            return [_ffi.host_get_cell_id(h, i) for i in range(_ffi.host_get_cell_count(h))]

    @property
    def model_size(self):
        """bytes of memory the host model occupies in the library"""
        n = c_size_t()
        with _ffi.hold(self) as (h,):
            _ffi.host_get_memory_size(h, byref(n))
        return n.value

    def distance(self, i, j):
        """NUMA distance between the cells at indexes i and j, or None (no
        distances known, or an index past the last cell)."""
        i, j = _ffi.cint(i, "i"), _ffi.cint(j, "j")
        d = c_uint()
        with _ffi.hold(self) as (h,):
            rc = _ffi.host_get_distance(h, i, j, byref(d))
        return d.value if rc == 0 else None

    # ---------------------------------------------------------- cells
    # Each cell query takes the cell's index (0 .. len(host) - 1, as in
    # cell_ids); an index past the last cell raises IndexError.
    def cell_stat(self, index, stat):
        """One quantity of the cell at index, by name (CELL_STATS): e.g.
        "free_pcpus" (dedicated CPUs not pinned), "free_cores",
        "memory_used_mb".  "socket" is None when the host does not say."""
        which = _choice(stat, CELL_STATS, "stat")
        index = _ffi.cint(index, "index")
        v = c_uint64()
        with _ffi.hold(self) as (h,):
            _check_cell(h, index)
            rc = _ffi.host_get_cell_stat(h, index, which, 0, byref(v))
        if rc == -errno.ENOENT:  # the cell exists: an unknown socket
            return None
        if rc < 0:
            raise errors.from_rc(rc, None, "host_get_cell_stat")
        return v.value

    def cell_stats(self, index):
        """Every cell_stat() of the cell at index, as a dict (one snapshot:
        read under one lock)."""
        index = _ffi.cint(index, "index")
        v = c_uint64()
        out = {}
        with _ffi.hold(self) as (h,):
            _check_cell(h, index)
            for which, name in enumerate(CELL_STATS):
                rc = _ffi.host_get_cell_stat(h, index, which, 0, byref(v))
                if rc < 0 and rc != -errno.ENOENT:
                    raise errors.from_rc(rc, None, "host_get_cell_stat")
                out[name] = v.value if rc == 0 else None
        return out

    def cell_pages(self, index):
        """The mempages entries of the cell at index, in input order: a list
        of CellPages(size_kb, total, used, reserved)."""
        index = _ffi.cint(index, "index")
        size, total, used, reserved = c_uint64(), c_uint64(), c_uint64(), c_uint64()
        out = []
        with _ffi.hold(self) as (h,):
            _check_cell(h, index)
            while True:
                rc = _ffi.host_get_cell_pages(h, index, len(out), 0, byref(size), byref(total),
                                              byref(used), byref(reserved))
                if rc == -errno.ENOENT:
                    return out
                if rc < 0:
                    raise errors.from_rc(rc, None, "host_get_cell_pages")
                out.append(CellPages(size.value, total.value, used.value, reserved.value))

    def cell_cpus(self, index, which="shared"):
        """A CPU set of the cell at index, as a set of CPU ids: "shared"
        (nova's cpuset, the VCPU pool), "dedicated" (pcpuset, the PCPU
        pool), "pinned" (pinned_cpus) or "free" (dedicated minus pinned)."""
        kind = _choice(which, CELL_CPUS, "which")
        index = _ffi.cint(index, "index")
        s = _ffi.CpusetP()
        with _ffi.hold(self) as (h,):
            _check_cell(h, index)
            _ffi.host_get_cell_cpus(h, index, kind, 0, byref(s))
        return take_cpuset(s)

    def cell_siblings(self, index):
        """The thread-sibling sets of the cell at index, as given: a list of
        sets of CPU ids (empty without sibling information)."""
        index = _ffi.cint(index, "index")
        n, out = c_uint64(), []
        with _ffi.hold(self) as (h,):
            _check_cell(h, index)
            _ffi.host_get_cell_stat(h, index, CELL_STATS.index("sibling_sets"), 0, byref(n))
            for sib in range(n.value):
                s = _ffi.CpusetP()
                _ffi.host_get_cell_siblings(h, index, sib, 0, byref(s))
                out.append(take_cpuset(s))
        return out

    def set_cpu_pools(self, conf):
        """What-if: split the host's CPUs into nova's pools as another
        configuration would (conf: a HostConf or its keyword dict; only
        cpu_dedicated_set, cpu_shared_set and vcpu_pin_set count, none of
        them is nova's legacy mode).  Sibling sets are cut to the new pools;
        usage stays.  Raises numafit.errors.Invalid for a CPU the host does
        not have and numafit.errors.CPUPinningInvalid for a pinned CPU that
        would leave the dedicated pool; on error the host is unchanged."""
        conf = HostConf.coerce(conf)
        if conf is None:
            raise TypeError("numafit: set_cpu_pools needs a HostConf or its keyword dict")
        err = _ffi.Error()
        with _ffi.hold(self, conf, write=self) as (h, ch):
            _ffi.host_set_cpu_pools(h, ch, 0, byref(err))

    def __eq__(self, other):
        if not isinstance(other, Host):
            return NotImplemented
        with _ffi.hold(self, other) as (h, oh):
            return _ffi.host_equal(h, oh) == 1

    __hash__ = None

    def __repr__(self):
        try:
            return "<numafit.Host cells=%s>" % self.cell_ids
        except errors.ClosedError:
            return "<numafit.Host closed>"

    # ---------------------------------------------------------- usage
    def claim(self, placement):
        """Add a placement's usage (nova's numa_usage_from_instance_numa).
        Raises numafit.errors.CPUPinningInvalid etc. and leaves the host
        unchanged on conflict.  A placement from fit() may conflict with a
        claim made since by another thread: fit_and_claim() cannot."""
        err = _ffi.Error()
        _placement_arg(placement)
        with _ffi.hold(self, placement, write=self) as (h, p):
            _ffi.host_claim(h, p, 0, byref(err))

    def release(self, placement):
        """Remove a placement's usage (free=True)."""
        err = _ffi.Error()
        _placement_arg(placement)
        with _ffi.hold(self, placement, write=self) as (h, p):
            _ffi.host_release(h, p, 0, byref(err))

    def fit_and_claim(self, request, limits=None, profile="latest", strategy="spread",
                      budget=None, pci_pools=None, pci_requests=None):
        """Fit the request and claim the placement in one step, under the
        host's writer lock: the Placement (now claimed), or None when the
        request does not fit.  Safe from several threads on one Host, where
        numafit.fit() followed by claim() may raise CPUPinningInvalid
        (another thread claimed those CPUs in between).  Arguments as for
        numafit.fit(); with pci_pools and pci_requests the devices are
        taken from the pools in the same step (numafit_pci_apply on the
        placement's host cells), all or nothing."""
        from .fit import _try_fit
        return _try_fit(self, request, limits, profile, strategy, budget, claim=True,
                        pci_pools=pci_pools, pci_requests=pci_requests).placement

    def try_fit_and_claim(self, request, limits=None, profile="latest", strategy="spread",
                          budget=None, pci_pools=None, pci_requests=None):
        """fit_and_claim() with the reason: a numafit.FitResult, as
        numafit.try_fit() gives it (its placement is claimed)."""
        from .fit import _try_fit
        return _try_fit(self, request, limits, profile, strategy, budget, claim=True,
                        pci_pools=pci_pools, pci_requests=pci_requests)

    def fill(self, requests, limits=None, profile="latest", strategy="spread", max_count=None,
             budget=None, keep=False, pci_pools=None, pci_requests=None):
        """numafit_host_fill(): fit and claim until none of the requests fits
        any more, or max_count instances (None: no maximum) are placed.
        requests: a Request, or a sequence of Requests tried round-robin (one
        fit each in turn until each was refused since the last claim).  The
        host keeps the claims.  The whole fill holds the host's writer
        lock, as fit_and_claim() does for one.  keep=True also returns the
        claimed Placements.  Other arguments as for numafit.fit().  Returns
        a FillResult."""
        from .fit import _check_args, _check_pci, _options
        from .placement import Placement
        single = not isinstance(requests, (list, tuple))
        reqs = [requests] if single else list(requests)
        if not reqs:
            raise ValueError("numafit: fill needs at least one request")
        for r in reqs:
            _check_args(self, r)
        limit = 2**64 - 1 if max_count is None else _ffi.cint(max_count, "max_count", c_uint64)
        if not isinstance(keep, bool):
            raise TypeError("numafit: keep must be a bool, not %s" % type(keep).__name__)
        pools, preqs = _check_pci(pci_pools, pci_requests)
        opt, own = _options(limits, profile, strategy, budget, (pools, preqs))
        placements, order, failure = [], [], []

        def on_place(ctx, index, p):
            try:
                order.append(index)
                if keep:
                    q = _ffi.PlacementP()
                    _ffi.placement_dup(p, byref(q))
                    placements.append(Placement(q))
                return 0
            except BaseException as e:  # raised again below, after the fill
                failure.append(e)
                return -errno.ECANCELED

        cb = _ffi.FillCallback(on_place)
        counts = (c_uint64 * len(reqs))()
        err = _ffi.Error()
        try:
            with _ffi.hold(self, opt, pools, preqs, *reqs, write=self) as handles:
                h, o = handles[0], handles[1]
                if pools is not None or preqs is not None:
                    _ffi.options_set_pci(o, handles[2], handles[3])
                arr = (_ffi.RequestP * len(reqs))(*handles[4:])
                rc = _ffi.host_fill(h, arr, len(reqs), o, limit, 0, cb, None, counts, byref(err))
        finally:
            if own:
                opt.close()
        if failure:
            raise failure[0]
        if rc < 0:
            raise errors.from_rc(rc, err.as_dict(), "numafit_host_fill")
        name = _ffi.error_code_name(err.code)
        return FillResult(list(counts), placements, order, FILL_STOPS.get(rc, str(rc)), err.code,
                          name.decode() if name else "", err.cell,
                          err.text.decode("utf-8", "replace"))


def _placement_arg(placement):
    from .placement import Placement
    if not isinstance(placement, Placement):
        raise TypeError("numafit: expected a numafit.Placement, not %s"
                        % type(placement).__name__)


def _check_cell(h, index):
    """IndexError unless the host (handle, under its lock) has a cell at
    index."""
    n = _ffi.host_get_cell_count(h)
    if index >= n:
        raise IndexError("numafit: cell index %d out of range (the host has %d cells)"
                         % (index, n))


def _choice(value, names, what):
    """The position of `value` in `names` (an enum of the library)."""
    if not isinstance(value, str):
        raise TypeError("numafit: %s must be a str, not %s" % (what, type(value).__name__))
    try:
        return names.index(value)
    except ValueError:
        raise ValueError("numafit: unknown %s %r (%s)" % (what, value, ", ".join(names))) \
            from None


def _too_big(path):
    return _ffi.out_of_range(os.fsdecode(path), "larger than %d bytes, the library's input "
                             "limit (NUMAFIT_INPUT_MAX)" % _ffi.INPUT_MAX)


def _dflags(all_online, any_arch):
    return (DISCOVER_ALL_ONLINE if all_online else 0) | (DISCOVER_ANY_ARCH if any_arch else 0)
