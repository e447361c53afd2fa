"""numafit.Inventory: a compute node's placement inventory (doc/placement.md)."""
import json
from ctypes import byref, c_double, c_int64

from . import _ffi
from .request import RESOURCE_CLASSES, profile_number

INVENTORY_ZED = 1
_FIELDS = ("total", "reserved", "min_unit", "max_unit", "step_size", "allocation_ratio")
# placement's API defaults of a record's fields
_DEFAULTS = {"reserved": 0, "min_unit": 1, "max_unit": 2147483647, "step_size": 1,
             "allocation_ratio": 1.0}


def _class_number(name):
    try:
        return RESOURCE_CLASSES.index(name)
    except ValueError:
        raise ValueError("numafit: %r is not a resource class of the model (%s)"
                         % (name, ", ".join(RESOURCE_CLASSES))) from None


def _amounts(amounts):
    """{class: amount} (a numafit.Resources, say) as the C array."""
    arr = (c_int64 * len(RESOURCE_CLASSES))()
    for name, amount in dict(amounts).items():
        arr[_class_number(name)] = _ffi.cint(amount, name, c_int64)
    return arr


class Inventory(_ffi.Owned):
    """The classes VCPU, PCPU, MEMORY_MB and DISK_GB of a compute node's
    inventory in placement, each a record {"total", "reserved", "min_unit",
    "max_unit", "step_size", "allocation_ratio"} and an amount used, with
    placement's capacity rule: check(), claim() and release() take
    {class: amount} as numafit.resources_from_flavor() gives it."""
    _free = "inventory_free"

    def __init__(self, handle):
        self._h = handle

    @classmethod
    def new(cls):
        h = _ffi.InventoryP()
        _ffi.inventory_new(byref(h))
        return cls(h)

    @classmethod
    def from_json(cls, doc):
        """placement's {"inventories": {...}, "usages": {...}} (dict or text)."""
        text = doc if isinstance(doc, (str, bytes)) else json.dumps(doc)
        b, n = _ffi.cbuf(text, "inventory")
        h = _ffi.InventoryP()
        _ffi.inventory_new_from_json(b, n, 0, byref(h), byref(_ffi.Error()))
        return cls(h)

    @classmethod
    def from_host(cls, host, nova_conf=None, disk_gb=0, current=None, profile="latest"):
        """What nova's libvirt driver reports for host (a numafit.Host):
        nova_conf is nova.conf's text, current the Inventory placement
        already has (its ratios and usage are kept as nova keeps them)."""
        b, n = _ffi.cbuf(nova_conf, "nova_conf", none=True)
        flags = INVENTORY_ZED if profile_number(profile) == 1 else 0
        h = _ffi.InventoryP()
        disk = _ffi.cint(disk_gb, "disk_gb", c_int64)
        with _ffi.hold(host, current) as (hh, ch):
            _ffi.inventory_new_from_host(hh, b, n, disk, ch, flags, byref(h),
                                         byref(_ffi.Error()))
        return cls(h)

    def to_json(self, flags=0):
        with _ffi.hold(self) as (h,):
            return _ffi.call_str(_ffi.inventory_to_json, h, _ffi.cint(flags, "flags"))

    def to_dict(self):
        return json.loads(self.to_json())

    def __copy__(self):
        c = _ffi.InventoryP()
        with _ffi.hold(self) as (h,):
            _ffi.inventory_dup(h, byref(c))
        return type(self)(c)

    def __eq__(self, other):
        if not isinstance(other, Inventory):
            return NotImplemented
        with _ffi.hold(self, other) as (a, b):
            return _ffi.inventory_equal(a, b) == 1

    __hash__ = None

    def __getitem__(self, name):
        """The record of class name (a dict), KeyError when absent."""
        c = _ffi.InventoryClass()
        with _ffi.hold(self) as (h,):
            if _ffi.inventory_get_class(h, _class_number(name), byref(c)) == 0:
                raise KeyError(name)
        return {f: getattr(c, f) for f in _FIELDS}

    def __setitem__(self, name, record):
        """Set class name's record (placement's API defaults for missing
        fields: reserved 0, min_unit and step_size 1, max_unit 2147483647,
        ratio 1.0)."""
        r = dict(_DEFAULTS, **record)
        c = _ffi.InventoryClass(*[_ffi.cint(r[f], f, c_int64) for f in _FIELDS[:5]],
                                float(r["allocation_ratio"]))
        with _ffi.hold(self, write=self) as (h,):
            _ffi.inventory_set_class(h, _class_number(name), byref(c), byref(_ffi.Error()))

    def __delitem__(self, name):
        with _ffi.hold(self, write=self) as (h,):
            _ffi.inventory_set_class(h, _class_number(name), None, byref(_ffi.Error()))

    @property
    def traits(self):
        """The provider's traits the model knows: ["HW_CPU_HYPERTHREADING"] or []."""
        with _ffi.hold(self) as (h,):
            t = _ffi.inventory_get_traits(h)
        return ["HW_CPU_HYPERTHREADING"] if t & 1 else []

    @traits.setter
    def traits(self, names):
        names = list(names)
        bad = [n for n in names if n != "HW_CPU_HYPERTHREADING"]
        if bad:
            raise ValueError("numafit: the model knows the trait HW_CPU_HYPERTHREADING only, "
                             "not %r" % bad[0])
        with _ffi.hold(self, write=self) as (h,):
            _ffi.inventory_set_traits(h, 1 if names else 0)

    def used(self, name):
        v = c_int64()
        with _ffi.hold(self) as (h,):
            _ffi.inventory_get_used(h, _class_number(name), byref(v))
        return v.value

    def set_used(self, name, amount):
        with _ffi.hold(self, write=self) as (h,):
            _ffi.inventory_set_used(h, _class_number(name), _ffi.cint(amount, name, c_int64))

    def check(self, amounts):
        """(True, None) when there is room for {class: amount}, else
        (False, (class or trait, why)).  A numafit.Resources also has the
        HW_CPU_HYPERTHREADING trait its query requires or forbids checked,
        first."""
        arr, err = _amounts(amounts), _ffi.Error()
        bits = _ffi.cint(getattr(amounts, "bits", 0), "resources.bits")
        with _ffi.hold(self) as (h,):
            rc = _ffi.inventory_check(h, arr, len(arr), bits, byref(err))
        if rc == 1:
            return True, None
        d = err.as_dict()
        return False, (d["where"], d["text"])

    def claim(self, amounts):
        """Add {class: amount} to the usage, all or nothing; no room raises
        numafit.errors.NoSpace (nothing changed)."""
        arr = _amounts(amounts)
        with _ffi.hold(self, write=self) as (h,):
            _ffi.inventory_claim(h, arr, len(arr), byref(_ffi.Error()))

    def release(self, amounts):
        arr = _amounts(amounts)
        with _ffi.hold(self, write=self) as (h,):
            _ffi.inventory_release(h, arr, len(arr), byref(_ffi.Error()))

    def __repr__(self):
        try:
            return "<numafit.Inventory %s>" % json.dumps(self.to_dict()["inventories"])
        except Exception:
            return "<numafit.Inventory closed>"


def node_fit(host, inventory, request, resources, limits=None, profile="latest",
             strategy="spread", budget=None, claim=False):
    """nova's two steps on one compute node (numafit_node_fit): the
    inventory has room for `resources` (numafit.resources_from_flavor() of
    the request's flavor), then a request with a NUMA topology fits the
    host (numafit.fit()'s arguments).  A numafit.FitResult: code 0 when it
    fits, with the placement (None for a request without NUMA topology);
    else code_name "NOFIT_INVENTORY" (text: which class, why) or the NUMA
    reason.  With a numafit.Resources, the HW_CPU_HYPERTHREADING trait its
    query requires or forbids is checked first (Inventory.traits).
    claim=True claims what fits on both, under both locks, so no other
    claim comes in between."""
    from .fit import _check_args, _options, _result
    from .placement import Placement
    _check_args(host, request)
    arr = _amounts(resources)
    # a numafit.Resources carries the trait bits of its query
    bits = _ffi.cint(getattr(resources, "bits", 0), "resources.bits")
    opt, own = _options(limits, profile, strategy, budget)
    try:
        p, err = _ffi.PlacementP(), _ffi.Error()
        with _ffi.hold(host, inventory, request, opt,
                       write=(host, inventory) if claim else None) as (h, i, r, o):
            rc = _ffi.node_fit(h, i, r, arr, len(arr), o, bits, byref(p), byref(err))
            placement = Placement(p) if rc == 1 and p else None
            if rc == 1 and claim:
                _ffi.node_claim(h, i, p if p else None, arr, len(arr), byref(_ffi.Error()))
    finally:
        if own:
            opt.close()
    return _result(rc, placement, err)


def node_claim(host, inventory, placement, resources):
    """Claim a placement (None: a request without NUMA topology) and the
    resources on host and inventory, all or nothing (numafit_node_claim)."""
    arr = _amounts(resources)
    with _ffi.hold(host, inventory, placement, write=(host, inventory)) as (h, i, p):
        _ffi.node_claim(h, i, p, arr, len(arr), byref(_ffi.Error()))


def node_release(host, inventory, placement, resources):
    """The inverse of node_claim(), all or nothing."""
    arr = _amounts(resources)
    with _ffi.hold(host, inventory, placement, write=(host, inventory)) as (h, i, p):
        _ffi.node_release(h, i, p, arr, len(arr), byref(_ffi.Error()))


def allocation_ratios(nova_conf=None, profile="latest"):
    """The CPU, RAM and disk allocation ratios a compute node takes from
    nova.conf's text (None: nova's defaults): the option when set and not
    0, else initial_*_allocation_ratio (numafit_inventory_ratios_from_nova_conf).
    The CPU and RAM ratios are also the NUMA limits nova's scheduler passes."""
    b, n = _ffi.cbuf(nova_conf, "nova_conf", none=True)
    flags = INVENTORY_ZED if profile_number(profile) == 1 else 0
    cpu, ram, disk = c_double(), c_double(), c_double()
    _ffi.inventory_ratios_from_nova_conf(b, n, flags, byref(cpu), byref(ram), byref(disk),
                                         byref(_ffi.Error()))
    return cpu.value, ram.value, disk.value
