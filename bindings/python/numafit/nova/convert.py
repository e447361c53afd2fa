"""Conversions between nova's objects and the library's JSON: flavors,
images and limits to JSON; host topologies read through the objects'
storage (the fingerprints the cache compares, and the primitive written from
them); an InstanceNUMATopology back to the flavor that gives it; and the
fitted InstanceNUMACells built from a placement."""
import copy
import functools
import logging

from . import runtime
from .runtime import _nova, _Unsupported

LOG = logging.getLogger(__package__)

# nova's MEMPAGES_SMALL/LARGE/ANY and the hw:mem_page_size words
_PAGESIZE_WORDS = {-1: "small", -2: "large", -3: "any"}


# ------------------------------------------------------------ conversions
def _jsonable(v):
    if isinstance(v, (set, frozenset)):
        return sorted(v)
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    if isinstance(v, int) and not isinstance(v, bool) and not -2**63 <= v < 2**63:
        return str(v)  # beyond JSON parsers' 64 bits; the library reads int() text
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return str(v)


def _get(obj, name, default=None):
    """obj[name] of a dict, a nova object's field when it is set (an unset
    field is the default, as nova's obj.get(name, default): reading it would
    call the object's lazy loader, which raises for a Flavor's extra_specs),
    or any other object's attribute."""
    if isinstance(obj, dict):
        return obj.get(name, default)
    if hasattr(obj, "obj_attr_is_set"):
        return _attr(obj, name, default)
    return getattr(obj, name, default)


def flavor_json(flavor):
    """nova Flavor (or dict) -> {"vcpus","memory_mb","extra_specs"}."""
    es = _get(flavor, "extra_specs") or {}
    return {"vcpus": int(_get(flavor, "vcpus", 0) or 0),
            "memory_mb": int(_get(flavor, "memory_mb", 0) or 0),
            "extra_specs": {str(k): (v if isinstance(v, str) else str(v))
                            for k, v in dict(es).items()}}


def image_json(image_meta):
    """nova ImageMeta (or glance dict) -> {"properties": {...}}: the set
    hw_* properties and traits_required, typed values as JSON (lists for
    hw_numa_cpus/mem)."""
    if image_meta is None:
        return None
    if isinstance(image_meta, dict):
        props = image_meta.get("properties", {}) or {}
        return {"properties": _jsonable(dict(props))}
    props = _get(image_meta, "properties")
    out = {}
    if props is not None:
        for k in props.obj_fields:
            if (k.startswith("hw_") or k == "traits_required") and \
                    props.obj_attr_is_set(k):
                out[k] = _jsonable(getattr(props, k))
    return {"properties": out}


def limits_json(limits):
    if limits is None:
        return None
    if isinstance(limits, dict):
        return _jsonable(limits)
    out = {}
    for k in ("cpu_allocation_ratio", "ram_allocation_ratio"):
        if limits.obj_attr_is_set(k):
            out[k] = getattr(limits, k)
    if limits.obj_attr_is_set("network_metadata") and limits.network_metadata is not None:
        nm = limits.network_metadata
        out["network_metadata"] = {
            "physnets": sorted(nm.physnets) if nm.obj_attr_is_set("physnets") else [],
            "tunneled": bool(nm.tunneled) if nm.obj_attr_is_set("tunneled") else False}
    return out


# ------------------------------------------------------------ fast paths
# The adapter reads nova's objects through their storage: oslo.versionedobjects
# keeps a set field NAME in the instance attribute _obj_NAME (unset fields
# have none).  Reading __dict__ skips the getters, which cost more than the
# fit itself.  Only real versioned objects take these paths; anything else
# (mocks, dicts) goes through the attribute getters and obj_to_primitive().
_U = object()  # an unset field, in fingerprints


def _fs(v):
    """A set field's value, immutable (frozenset), for fingerprints."""
    return frozenset(v) if v is not _U and v is not None else v


_ovo_class = None


def _is_ovo(obj):
    """obj is an oslo.versionedobjects object."""
    global _ovo_class
    if _ovo_class is None:
        try:
            from oslo_versionedobjects.base import VersionedObject as _ovo_class
        except ImportError:
            return False
    return isinstance(obj, _ovo_class)


def _host_view(topo):
    """Every NUMACell field the fit reads (all of them), as they are now:
    the live values, not copies (cheap; never stored).  Raises (KeyError,
    AttributeError...) for unusual objects."""
    view = []
    for c in topo.__dict__["_obj_cells"]:
        g = c.__dict__.get
        pages = g("_obj_mempages", _U)
        if pages is not _U and pages is not None:
            pages = tuple([(pd.get("_obj_size_kb", _U), pd.get("_obj_total", _U),
                            pd.get("_obj_used", _U), pd.get("_obj_reserved", _U))
                           for pd in [p.__dict__ for p in pages]])
        nm = g("_obj_network_metadata", _U)
        if nm is not _U and nm is not None:
            nd = nm.__dict__
            nm = (nd.get("_obj_physnets", _U), nd.get("_obj_tunneled", _U))
        view.append((type(c), g("_obj_id", _U), g("_obj_cpuset", _U), g("_obj_pcpuset", _U),
                     g("_obj_memory", _U), g("_obj_cpu_usage", _U), g("_obj_memory_usage", _U),
                     g("_obj_pinned_cpus", _U), g("_obj_siblings", _U), pages, nm,
                     g("_obj_socket", _U)))
    return (type(topo), tuple(view))


def _host_snapshot(view):
    """An immutable copy of _host_view(): the cache's fingerprint, compared
    with == against the next call's view (sets against frozensets, lists
    of sets against lists of frozensets, all in C)."""
    topo_cls, cells = view
    out = []
    for (cls, id_, cpuset, pcpuset, memory, cpu_usage, memory_usage, pinned, sib, pages, nm,
         socket) in cells:
        if sib is not _U and sib is not None:
            sib = [frozenset(x) for x in sib]
        if nm is not _U and nm is not None:
            nm = (_fs(nm[0]), nm[1])
        out.append((cls, id_, _fs(cpuset), _fs(pcpuset), memory, cpu_usage, memory_usage,
                    _fs(pinned), sib, pages, nm, socket))
    return (topo_cls, tuple(out))


def _envelope(cls, data):
    return {"nova_object.name": cls.obj_name(), "nova_object.namespace": "nova",
            "nova_object.version": cls.VERSION, "nova_object.data": data}


def _host_primitive(snapshot):
    """The NUMATopology primitive (as obj_to_primitive() gives it, without
    "nova_object.changes") written from _host_snapshot()'s copy."""
    objects = _nova()[1]
    topo_cls, cells = snapshot
    out = []
    for (cls, id_, cpuset, pcpuset, memory, cpu_usage, memory_usage, pinned, sib, pages, nm,
         socket) in cells:
        d = {}
        for name, v in (("id", id_), ("cpuset", cpuset), ("pcpuset", pcpuset),
                        ("memory", memory), ("cpu_usage", cpu_usage),
                        ("memory_usage", memory_usage), ("pinned_cpus", pinned),
                        ("siblings", sib), ("mempages", pages), ("network_metadata", nm),
                        ("socket", socket)):
            if v is _U:
                continue
            if isinstance(v, frozenset):
                v = sorted(v)
            elif name == "siblings" and v is not None:
                v = [sorted(s) for s in v]
            elif name == "mempages" and v is not None:
                v = [_envelope(objects.NUMAPagesTopology,
                               {k: x for k, x in zip(("size_kb", "total", "used", "reserved"), p)
                                if x is not _U})
                     for p in v]
            elif name == "network_metadata" and v is not None:
                phys, tun = v
                ncls = objects.NetworkMetadata
                nd = {}
                if phys is not _U:
                    nd["physnets"] = sorted(phys) if phys is not None else None
                if tun is not _U:
                    nd["tunneled"] = tun
                v = _envelope(ncls, nd)
            d[name] = v
        out.append(_envelope(cls, d))
    return _envelope(topo_cls, {"cells": out})


def _attr(obj, name, default=None):
    try:
        return getattr(obj, name) if obj.obj_attr_is_set(name) else default
    except (AttributeError, NotImplementedError):
        return default


def _spec(cpus):
    """A cpu spec the library parses: "0,1,5" (no ranges needed)."""
    return ",".join(str(c) for c in sorted(cpus))


def request_flavor(instance_topology, cells=None, emulator_isolate=None):
    """An InstanceNUMATopology (as numa_get_constraints built it) -> the
    flavor that gives it: (flavor dict, vCPU map {flavor vCPU: instance
    vCPU}).  Raises _Unsupported when no flavor gives it."""
    cells = list(instance_topology.cells if cells is None else cells)
    if not cells:
        raise _Unsupported("no cells")
    c0 = cells[0]
    policy = _attr(c0, "cpu_policy")
    tpolicy = _attr(c0, "cpu_thread_policy")
    pagesize = _attr(c0, "pagesize")
    vcpus, shared_all, dedicated_all = [], set(), set()
    for c in cells:
        if (_attr(c, "cpu_policy") != policy or _attr(c, "cpu_thread_policy") != tpolicy
                or _attr(c, "pagesize") != pagesize):
            raise _Unsupported("cells differ in policy or page size")
        cs = set(_attr(c, "cpuset", set()) or set())
        ps = set(_attr(c, "pcpuset", set()) or set())
        if cs & ps:
            raise _Unsupported("cpuset and pcpuset overlap")
        if policy == "dedicated" and cs:
            raise _Unsupported("dedicated cell with shared vCPUs")
        if policy in (None, "shared") and ps:
            raise _Unsupported("shared cell with dedicated vCPUs")
        vcpus.extend(cs | ps)
        shared_all |= cs
        dedicated_all |= ps
    if len(set(vcpus)) != len(vcpus) or not vcpus:
        raise _Unsupported("vCPU ids repeated or missing")
    order = sorted(vcpus)
    to_flavor = {v: i for i, v in enumerate(order)}
    es = {"hw:numa_nodes": str(len(cells))}
    memory = 0
    for i, c in enumerate(cells):
        mine = (set(_attr(c, "cpuset", set()) or set()) |
                set(_attr(c, "pcpuset", set()) or set()))
        if not mine:
            raise _Unsupported("a cell without vCPUs")
        es["hw:numa_cpus.%d" % i] = _spec(to_flavor[v] for v in mine)
        es["hw:numa_mem.%d" % i] = str(int(c.memory))
        memory += int(c.memory)
    if policy:
        es["hw:cpu_policy"] = policy
    if policy == "mixed":
        if not dedicated_all or not shared_all:
            raise _Unsupported("mixed without dedicated or shared vCPUs")
        es["hw:cpu_dedicated_mask"] = _spec(to_flavor[v] for v in dedicated_all)
    if tpolicy and policy in ("dedicated", "mixed"):
        es["hw:cpu_thread_policy"] = tpolicy
    etp = emulator_isolate
    if etp is None:
        etp = _attr(instance_topology, "emulator_threads_policy") if instance_topology else None
    if etp:
        if policy not in ("dedicated", "mixed"):
            raise _Unsupported("emulator threads policy without pinning")
        es["hw:emulator_threads_policy"] = etp
    if pagesize:
        es["hw:mem_page_size"] = _PAGESIZE_WORDS.get(pagesize, str(pagesize))
    flavor = {"vcpus": len(order), "memory_mb": memory, "extra_specs": es}
    return flavor, {i: v for v, i in to_flavor.items()}


def _build_cell_slow(rc, pc, vmap):
    """The fitted InstanceNUMACell through nova's own API: a copy of the
    requested cell made by its constructor, then the placement's host cell
    id, page size, pinning (pin_vcpus) and reserved CPUs."""
    kw = {}
    for name in rc.obj_fields:
        if rc.obj_attr_is_set(name):
            v = getattr(rc, name)
            if isinstance(v, (set, dict, list)):
                v = copy.copy(v)
            elif hasattr(v, "obj_clone"):
                v = v.obj_clone()
            kw[name] = v
    c = type(rc)(**kw)
    c.id = pc["id"]
    if pc.get("pagesize") is not None or _attr(rc, "pagesize"):
        c.pagesize = pc.get("pagesize")
    if pc.get("cpu_pinning") is not None and _attr(rc, "cpu_policy") in ("dedicated", "mixed"):
        c.pin_vcpus(*[(vmap[int(v)], p) for v, p in pc["cpu_pinning"].items()])
    if pc.get("cpuset_reserved") is not None:
        c.cpuset_reserved = set(pc["cpuset_reserved"])
    return c


@functools.lru_cache(maxsize=16)
def _defaults(cls):
    """The fields an ephemeral object's constructor sets to their default."""
    from nova.objects import base as nova_base
    from oslo_versionedobjects import fields as ovo_fields
    if not issubclass(cls, nova_base.EphemeralObject):
        return ()
    return tuple((n, f.default) for n, f in cls.fields.items()
                 if f.default != ovo_fields.UnspecifiedDefault)


def _build_cell_fast(rc, pc, vmap):
    """_build_cell_slow's cell without coercing every value again: the
    requested cell's storage copied (collections copied and bound to the new
    object, as oslo's Coerced* keep their owner; nested objects cloned),
    defaults set as an ephemeral object's constructor sets them, the
    placement's values coerced by their fields, every set field marked
    changed."""
    cls = type(rc)
    fields = cls.fields
    c = cls.__new__(cls)
    d = c.__dict__
    for k, v in rc.__dict__.items():
        if k.startswith("_obj_"):
            if isinstance(v, (set, dict, list)):
                w = type(v)(v)
                attrs = getattr(v, "__dict__", None)
                if attrs:
                    w.__dict__.update(attrs)
                    if "_obj" in attrs:
                        w._obj = c
                v = w
            elif hasattr(v, "obj_clone"):
                v = v.obj_clone()
        d[k] = v
    d["_changed_fields"] = set()
    for name, default in _defaults(cls):
        if "_obj_" + name not in d:
            setattr(c, name, copy.deepcopy(default))

    def put(name, value):
        d["_obj_" + name] = fields[name].coerce(c, name, value)

    put("id", pc["id"])
    ps = pc.get("pagesize")
    if ps is not None or d.get("_obj_pagesize"):
        put("pagesize", ps)
    pin = pc.get("cpu_pinning")
    if pin is not None and d.get("_obj_cpu_policy") in ("dedicated", "mixed"):
        # what pin_vcpus() does: only vCPUs of pcpuset, added to the pinning
        pcpuset = d["_obj_pcpuset"]
        pairs = [(str(v), p) for v, p in ((vmap[int(v)], p) for v, p in pin.items())
                 if v in pcpuset]
        if pairs:
            cur = dict(d.get("_obj_cpu_pinning_raw") or {})
            cur.update(pairs)
            put("cpu_pinning_raw", cur)
    if pc.get("cpuset_reserved") is not None:
        put("cpuset_reserved", set(pc["cpuset_reserved"]))
    d["_changed_fields"] = {k[5:] for k in d if k.startswith("_obj_") and k[5:] in fields}
    return c


def _state(obj):
    """An object's storage as comparable values: collection types, their
    owner and field, nested objects, changed fields."""
    out = {}
    for k, v in obj.__dict__.items():
        if hasattr(v, "obj_fields"):
            v = ("object", type(v), _state(v))
        elif isinstance(v, (set, dict, list)):
            v = (type(v), v if not isinstance(v, list) else
                 [_state(x) if hasattr(x, "obj_fields") else x for x in v],
                 getattr(v, "_field", None), getattr(v, "_obj", obj) is obj)
        out[k] = v
    return out


_fast_cells = None  # None: not checked yet; then whether _build_cell_fast is right


def _build_cells(req_cells, pcells, vmap):
    """The fitted InstanceNUMACells: copies of the requested cells with the
    host cell id, page size, pinning and reserved CPUs of the placement's
    cells (the plain JSON form).  The fast build is checked against nova's
    API once per process (and on every call under _VERIFY); if they ever
    differ, nova's API is used from then on."""
    global _fast_cells
    if _fast_cells is False:
        return [_build_cell_slow(rc, pc, vmap) for rc, pc in zip(req_cells, pcells)]
    out = []
    for rc, pc in zip(req_cells, pcells):
        try:
            c = _build_cell_fast(rc, pc, vmap)
        except Exception:  # an unusual cell: nova's API, with nova's errors
            out.append(_build_cell_slow(rc, pc, vmap))
            continue
        if _fast_cells is None or runtime._VERIFY:
            slow = _build_cell_slow(rc, pc, vmap)
            same = _state(c) == _state(slow)
            if runtime._VERIFY:
                assert same, "fast cell build differs: %s != %s" % (_state(c), _state(slow))
            if not same:
                LOG.warning("numafit.nova: building InstanceNUMACell through its storage "
                            "differs from its constructor with this oslo.versionedobjects; "
                            "using the constructor")
                _fast_cells = False
                c = slow
            elif _fast_cells is None:
                _fast_cells = True
        out.append(c)
    return out
