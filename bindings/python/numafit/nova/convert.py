"""Conversions between nova's objects and the library's JSON: flavors,
images and limits to JSON; host topologies read through the objects'
storage (the fingerprints the cache compares, and the primitive written from
them); an InstanceNUMATopology back to the flavor that gives it; and the
fitted InstanceNUMACells built from a placement."""
import array
import copy
import functools
import json
import logging
import weakref
from itertools import chain

from . import runtime
from .runtime import _nova, _Unsupported
from .watch import WATCHES, attach, collections as watch_collections, unwatched

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
        d = getattr(props, "__dict__", None)
        fields = getattr(type(props), "fields", None)
        if d is not None and fields is not None:
            # the set fields straight from the storage (ImageMetaProps has
            # some 150 fields: asking each whether it is set cost more than
            # nova's whole get_cpu_topology_constraints)
            for key, v in list(d.items()):
                k = key[5:]
                if key.startswith("_obj_") and (k.startswith("hw_") or
                                                k == "traits_required") and k in fields:
                    out[k] = _jsonable(v)
        else:
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


class _Owner(weakref.ref):
    """The owner (`_obj`) the adapter gives oslo's coerced collections it
    builds: a weak reference to the object holding the collection, so that
    the object and its collections make no reference cycle and go as soon
    as nothing uses them (nova replaces a host's NUMATopology on every
    claim and update; with oslo's own strong owner every replaced object
    waits for the cyclic garbage collector, whose passes then cost a
    scheduler as much as the claims themselves).  oslo reads a collection's
    owner only to coerce what is added (integers, strings and objects ignore
    it) and for the module in one error message: the class this one is
    made for says its owner's module.  A deep copy or a pickle of a
    collection takes its owner as a strong reference would."""
    __slots__ = ()

    def __deepcopy__(self, memo):
        o = self()
        return None if o is None else copy.deepcopy(o, memo)

    def __reduce__(self):
        return (_same, (self(),))


def _same(x):
    return x


_owner_classes = {}  # the class of an owner -> its _Owner class


def owner(obj):
    """A new _Owner of obj, for its collections' `_obj`."""
    cls = type(obj)
    oc = _owner_classes.get(cls)
    if oc is None:
        oc = _owner_classes.setdefault(cls, type("_OwnerOf" + cls.__name__, (_Owner,),
                                                 {"__slots__": (), "__module__": cls.__module__}))
    return oc(obj)


def _owner_of(coll):
    """The object a coerced collection belongs to (its `_obj`, through an
    _Owner), or None."""
    o = getattr(coll, "_obj", None)
    return o() if isinstance(o, _Owner) else o


def _is_ovo(obj):
    """obj is an oslo.versionedobjects object."""
    global _ovo_class
    if _ovo_class is None:
        try:
            from oslo_versionedobjects.base import VersionedObject as _ovo_class
        except ImportError:
            return False
    return isinstance(obj, _ovo_class)


_RECORD_SETS = ("_obj_cpuset", "_obj_pcpuset", "_obj_pinned_cpus")


def _host_records(topo):
    """The host's cells as the library's integer records
    (numafit_host_new_from_records, doc/host-records.md), read through the
    objects' storage (attribute _obj_NAME; not __dict__, which Python would
    then make for every object): (array('q'), physnet names
    NUL-terminated).  Raises (AttributeError, TypeError, OverflowError...)
    for what the records do not express: an unset id, memory, page size_kb
    or total, a None where a value belongs; the caller then goes through
    nova's primitive, whose reader names the fault."""
    cells = topo._obj_cells
    rec = [1, len(cells)]
    names = []
    ap, ex = rec.append, rec.extend
    for c in cells:
        sock = getattr(c, "_obj_socket", None)
        ex((c._obj_id, -1 if sock is None else sock, c._obj_memory,
            getattr(c, "_obj_cpu_usage", 0), getattr(c, "_obj_memory_usage", 0)))
        # each collection read in one step (extending a list from a set
        # or list, or tuple(map(tuple, ...)), runs no Python code, so no
        # other thread changes it halfway) and its count taken from what
        # was read: a host changed in place by another thread gives the
        # records of one moment per collection, never a count that
        # disagrees with its items
        for name in _RECORD_SETS:
            i = len(rec)
            ap(0)
            ex(getattr(c, name, ()))
            rec[i] = len(rec) - i - 1
        sib = tuple(map(tuple, getattr(c, "_obj_siblings", ())))
        ap(len(sib))
        ex(map(len, sib))
        ex(chain.from_iterable(sib))
        pages = tuple(getattr(c, "_obj_mempages", ()))
        ap(len(pages))
        for pg in pages:
            ex((pg._obj_size_kb, pg._obj_total, getattr(pg, "_obj_used", 0),
                getattr(pg, "_obj_reserved", 0)))
        nm = getattr(c, "_obj_network_metadata", None)
        if nm is None:
            ex((-1, 0))
        else:
            phys = tuple(getattr(nm, "_obj_physnets", ()))
            ex((1 if getattr(nm, "_obj_tunneled", False) else 0, len(phys)))
            names.extend(phys)
    out = array.array("q")
    out.fromlist(rec)  # TypeError for a value that is not an int
    return out, b"".join(n.encode() + b"\0" for n in names)


# stored values that later changes in place cannot reach
_IMMUTABLE = frozenset((int, float, str, bool, type(None), frozenset))


def _copy_storage(d):
    """A copy of an object's storage (its __dict__) that changes made in
    place to the object cannot reach: sets, dicts and lists copied (a list's
    sets too); nested objects as they are (_host_snapshot copies their own
    storage)."""
    out = unwatched(d)
    if out is d:
        out = dict(d)
    for k, v in out.items():
        t = type(v)
        if t in _IMMUTABLE:
            continue
        if isinstance(v, set):
            out[k] = set(v)
        elif isinstance(v, dict):
            out[k] = dict(v)
        elif isinstance(v, list):
            out[k] = [set(x) if isinstance(x, set) else x for x in v]
    return out


def _host_snapshot(topo):
    """What _host_unchanged() compares: copies of every cell's storage, of
    every page entry's (all cells, in order) and of every cell's network
    metadata's (None without)."""
    cells = topo._obj_cells
    return ([_copy_storage(c.__dict__) for c in cells],
            [_copy_storage(p.__dict__) for c in cells for p in getattr(c, "_obj_mempages", ())],
            [None if nm is None else _copy_storage(nm.__dict__)
             for nm in [getattr(c, "_obj_network_metadata", None) for c in cells]])


def _host_unchanged(topo, snap):
    """Is every cell's storage, and every nested object's, equal to the
    snapshot's copies?  (nova changes these objects in place: pinned_cpus,
    usage, pages, siblings, network metadata; any change, even of the
    changed-fields set, is a difference.)  Compared in C by dict and set
    equality."""
    try:
        cells = topo._obj_cells
        return ([unwatched(c.__dict__) for c in cells] == snap[0] and
                [unwatched(p.__dict__) for c in cells for p in getattr(c, "_obj_mempages", ())]
                == snap[1] and [None if nm is None else unwatched(nm.__dict__)
                     for nm in [getattr(c, "_obj_network_metadata", None) for c in cells]]
                == snap[2])
    except Exception:  # an unusual object: not the snapshot's
        return False


def _attr(obj, name, default=None):
    try:
        return getattr(obj, name) if obj.obj_attr_is_set(name) else default
    except (AttributeError, NotImplementedError):
        return default


def _spec(cpus):
    """A cpu spec the library parses: "0,1,5" (no ranges needed)."""
    return ",".join(str(c) for c in sorted(cpus))


# the fields of an InstanceNUMACell the library's placement reader takes
# from its primitive (libnumafit/placement.c)
_PLACEMENT_FIELDS = ("id", "memory", "cpuset", "pcpuset", "pagesize", "cpu_policy",
                     "cpu_thread_policy", "cpu_pinning_raw", "cpuset_reserved")


def placement_json(instance_topology):
    """An InstanceNUMATopology as the placement a claim reads (the plain
    list form, as JSON bytes), from its cells' storage: the fields the
    library's reader takes from nova's primitive, with the values the
    primitive would give them (sets as sorted lists, unset fields left
    out).  Raises _Unsupported for an object of another make (then the
    caller reads its primitive)."""
    if not _is_ovo(instance_topology):
        raise _Unsupported("not one of nova's objects")
    out = []
    for c in instance_topology.__dict__.get("_obj_cells") or ():
        if not _is_ovo(c):
            raise _Unsupported("a cell not of nova's objects")
        d = c.__dict__
        cell = {}
        for name in _PLACEMENT_FIELDS:
            v = d.get("_obj_" + name, _U)
            if v is _U:
                continue
            t = type(v)
            if t is not int and t is not str and v is not None:
                if isinstance(v, (set, frozenset)) and all(type(x) is int for x in v):
                    v = sorted(v)
                elif isinstance(v, dict) and all(type(x) is int for x in v.values()):
                    v = dict(v)
                else:
                    raise _Unsupported("an unusual value of %s" % name)
            cell[name] = v
        out.append(cell)
    try:
        return json.dumps(out).encode()
    except (TypeError, ValueError) as e:
        raise _Unsupported(str(e))


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
    c = _shallow_clone(rc)  # collections and nested objects copied below
    d = c.__dict__
    oc = owner(c)
    for k in _collection_keys(cls):
        v = d.get(k)
        if v is not None:
            d[k] = _copy_owned(v, oc)
    for k in _object_keys(cls):
        v = d.get(k)
        if v is not None and hasattr(v, "obj_clone"):
            d[k] = v.obj_clone()
    for name, default in _defaults(cls):
        if "_obj_" + name not in d:
            setattr(c, name, copy.deepcopy(default))

    def put(name, value):
        v = fields[name].coerce(c, name, value)
        a = getattr(v, "__dict__", None) if isinstance(v, (set, dict, list)) else None
        if a is not None and a.get("_obj") is c:
            a["_obj"] = oc
        d["_obj_" + name] = v

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
    _weaken(c)  # (collections a default's deep copy bound to c)
    return c


def _shallow_clone(src):
    """A new object of src's class whose storage holds src's values by
    reference (one dict copy), without src's watches, instance VERSION or
    context: the callers then copy what must not be shared."""
    c = type(src).__new__(type(src))
    d = c.__dict__
    d.update(src.__dict__)
    d.pop(WATCHES, None)
    d.pop("VERSION", None)
    if "_context" in d:
        d["_context"] = None
    return c


@functools.lru_cache(maxsize=16)
def _object_keys(cls):
    """The storage keys of cls's fields whose values are objects."""
    from oslo_versionedobjects import fields as ovo_fields
    return tuple("_obj_" + n for n, f in cls.fields.items()
                 if isinstance(getattr(f, "_type", None), ovo_fields.Object))


def _copy_owned(v, oc):
    """A copy of collection v (a set, dict or list, or one of oslo's
    coerced ones: the same class, made without its constructor, whose
    coerce would check every element again; the base type's C copy of the
    items, then the collection's attributes: element type, field, owner)
    bound to the _Owner oc where v has an owner, without v's watches; a
    list's collections copied too."""
    t = type(v)
    for base in (set, list, dict):
        if isinstance(v, base):
            break
    else:
        return v
    w = t.__new__(t) if t is not base else base()
    if base is set:
        set.update(w, v)
    elif base is list:
        list.extend(w, [_copy_owned(x, oc) if isinstance(x, (set, dict, list)) else x
                        for x in v])
    else:
        dict.update(w, v)
    attrs = getattr(v, "__dict__", None)
    if attrs:
        w.__dict__.update(unwatched(attrs))
        if "_obj" in attrs:
            w._obj = oc
    return w


def _weaken(obj):
    """obj's collections (and the collections in its lists) that hold obj
    itself as their owner (oslo's coerce made them) get an _Owner of it
    instead: no reference cycle."""
    own = None
    for k, v in obj.__dict__.items():
        if not (k.startswith("_obj_") and isinstance(v, (set, dict, list))):
            continue
        for x in (v, *v) if isinstance(v, list) else (v,):
            a = getattr(x, "__dict__", None) if isinstance(x, (set, dict, list)) else None
            if a is not None and a.get("_obj") is obj:
                if own is None:
                    own = owner(obj)
                a["_obj"] = own


def _clone_storage(src, clone_nested=False):
    """A new object of src's class with a copy of src's storage, as a
    constructor given src's values would make it: sets, dicts and lists
    copied (a list's sets too) and bound to the new object, as oslo's
    Coerced* collections are to their owner; no context, no instance
    VERSION (obj_from_primitive gives objects their own).  Nested objects
    are shared (nova's numa_usage_from_instance_numa shares the page and
    network metadata objects of the cells it copies), or cloned with
    clone_nested."""
    cls = type(src)
    c = cls.__new__(cls)
    d = c.__dict__
    oc = owner(c)

    for k, v in src.__dict__.items():
        if k.startswith("_obj_"):
            if isinstance(v, (set, dict, list)):
                v = _copy_owned(v, oc)
            elif clone_nested and hasattr(v, "obj_clone"):
                v = v.obj_clone()
        elif k == "_context":
            v = None
        elif k == "VERSION" or k == WATCHES:
            continue
        d[k] = v
    return c


# the fields nova's numa_usage_from_instance_numa gives NUMACell() (and
# network_metadata when the host cell has it): the new cells' changed fields
_USAGE_FIELDS = ("id", "cpuset", "pcpuset", "memory", "socket", "cpu_usage", "memory_usage",
                 "mempages", "pinned_cpus", "siblings")
# what a claimed cell gets anew (not copied from the host cell)
_CLAIM_KEYS = frozenset(("_obj_pinned_cpus", "_obj_mempages"))


def _copy_coerced(v, own, wl, colls):
    """A copy of oslo's coerced set or list v bound to the _Owner own (as
    oslo's collections keep their owner), watched by the watches of list wl (or
    None; one list for the whole topology: a change pops it from the
    changed thing and marks its watches); None for any other collection
    (the caller copies it the generic way)."""
    t = type(v)
    if t is colls[0]:
        n = set.__new__(t)
        set.update(n, v)
    elif t is colls[1]:
        n = list.__new__(t)
        list.extend(n, v)
    else:
        return None
    a = v.__dict__
    d = {"_element_type": a.get("_element_type"), "_obj": own, "_field": a.get("_field")}
    if wl is not None:
        d[WATCHES] = wl
    n.__dict__ = d
    return n


def _coerced_like(template, own, values, wl=None):
    """A new coerced set or list of values (already of its element type)
    like oslo's template (same class, element type and field), owned
    through the _Owner own and watched by the watches of list wl (or None): what the
    field's coerce would make of them, without coercing each again."""
    t = type(template)
    if isinstance(template, set):
        n = set.__new__(t)
        set.update(n, values)
    else:
        n = list.__new__(t)
        list.extend(n, values)
    a = template.__dict__
    d = {"_element_type": a.get("_element_type"), "_obj": own, "_field": a.get("_field")}
    if wl is not None:
        d[WATCHES] = wl
    n.__dict__ = d
    return n


def _new_object(cls, wl=None, lists=(), **values):
    """cls(**values) as oslo's constructor makes it (no context, each value
    stored and marked changed), for values already of their field's type
    (the caller's promise: ints, strings, None, objects); lists: (field,
    template, items) for list fields, each made like its template
    (_coerced_like: a coerced list of the same field of another object of
    cls).  The object and its lists are watched by the watches of list wl
    (or None).  Checked against the constructor once per class and process
    (and on every call under _VERIFY); if they ever differ, the
    constructor is used from then on."""
    ok = _fast_objects.get(cls)
    if ok is not False and all(type(t) is _coerced_list() for _, t, _ in lists):
        o = cls.__new__(cls)
        d = o.__dict__
        d["_changed_fields"] = set(values).union(f for f, _, _ in lists)
        d["_context"] = None
        for k, v in values.items():
            d["_obj_" + k] = v
        oo = owner(o) if lists else None
        for f, template, items in lists:
            d["_obj_" + f] = _coerced_like(template, oo, items, wl)
        if wl is not None:
            d[WATCHES] = wl
        if ok is None or runtime._VERIFY:
            slow = cls(**values, **{f: list(items) for f, _, items in lists})
            same = _state(o) == _state(slow)
            if runtime._VERIFY:
                assert same, "fast %s differs: %s != %s" % (cls.__name__, _state(o), _state(slow))
            _fast_objects[cls] = same
            if same:
                return o
            LOG.warning("numafit.nova: building %s through its storage differs from its "
                        "constructor with this oslo.versionedobjects; using the constructor",
                        cls.__name__)
        else:
            return o
    o = cls(**values, **{f: items for f, _, items in lists})
    if wl is not None:
        attach([o] + [getattr(o, f) for f, _, _ in lists], wl[0])
    return o


_fast_objects = {}  # class -> whether _new_object builds it as its constructor does


@functools.lru_cache(maxsize=1)
def _coerced_list():
    """oslo's CoercedList (the class of a list field's value)."""
    from oslo_versionedobjects import fields as ovo_fields
    return ovo_fields.CoercedList


# a host cell's collections that nova never changes after discovery: a
# claimed topology's cells share them with the host topology's cells
_SHARED_KEYS = frozenset(("_obj_cpuset", "_obj_pcpuset", "_obj_siblings"))


@functools.lru_cache(maxsize=16)
def _collection_keys(cls):
    """The storage keys of cls's fields whose values are sets, lists or
    dicts (oslo's Set, List and Dict field types)."""
    from oslo_versionedobjects import fields as ovo_fields
    kinds = (ovo_fields.Set, ovo_fields.List, ovo_fields.Dict)
    return tuple("_obj_" + n for n, f in cls.fields.items()
                 if isinstance(getattr(f, "_type", None), kinds))


def _clone_cell(src, wl, colls, skip=(), shared=None):
    """_clone_storage(src) for a host NUMACell, quicker (its sets and
    lists are oslo's coerced ones, the sibling sets inside their list too),
    the new cell and its new collections watched by the watches of list wl
    (or None); None when a collection is of another kind.  The keys in skip
    are left out (the caller sets them).  With a list shared, the
    collections of _SHARED_KEYS (and the sibling sets in their list) are
    not copied but shared, and appended to shared (the caller adds its
    watch to theirs: watch.attach)."""
    cls = type(src)
    c = _shallow_clone(src)  # collections copied (or shared) below
    d = c.__dict__
    cset, clist = colls
    oc = None
    for k in _collection_keys(cls):
        v = d.get(k)
        if v is None:
            continue
        if k in skip:
            del d[k]
            continue
        t = type(v)
        if shared is not None and k in _SHARED_KEYS and (t is cset or t is clist):
            if t is cset:
                shared.append(v)
            elif set(map(type, v)) <= {cset}:
                shared.append(v)
                shared.extend(v)
            else:
                return None
            continue
        if oc is None:
            oc = owner(c)
        v = _copy_coerced(v, oc, wl, colls)
        if v is None:  # not one of oslo's coerced sets and lists
            return None
        if type(v) is clist:
            for i, x in enumerate(v):
                if isinstance(x, (set, dict, list)):
                    x = _copy_coerced(x, oc, wl, colls)
                    if x is None:
                        return None
                    list.__setitem__(v, i, x)
        d[k] = v
    if wl is not None:
        d[WATCHES] = wl
    return c


def _usage_topology_fast(host_topology, host, claimed_ids, w=None):
    """numa_usage_from_instance_numa's NUMATopology built through the
    storage: each host cell copied (_clone_storage), and in the cells whose
    id is in claimed_ids the usage of the claimed numafit Host (cpu_usage,
    memory_usage, pinned_cpus, and new NUMAPagesTopology objects for the
    entries whose used count changed).  Raises for a cell without one of
    the fields nova reads (then the caller builds it through the primitive).
    With a Watch w, the new topology and everything in it is watched by w
    (the host cache's entry for it, numafit.nova.watch), the nested objects
    it shares with host_topology too."""
    objects = _nova()[1]
    colls = watch_collections()
    wl = [w] if w is not None else None
    out = []
    shared = []  # nested objects the new cells share with the old ones
    for i, hc in enumerate(host_topology._obj_cells):
        hd = hc.__dict__
        for name in _USAGE_FIELDS:
            if "_obj_" + name not in hd:
                raise _Unsupported("host cell without %s" % name)
        claimed = hd["_obj_id"] in claimed_ids
        c = _clone_cell(hc, wl, colls, _CLAIM_KEYS if claimed else (),
                        shared if wl is not None else None) if colls else None
        if c is None:
            if w is not None:
                raise _Unsupported("a collection of another kind")
            c = _clone_storage(hc)
        d = c.__dict__
        fields = type(c).fields
        if claimed:
            cpu_usage, memory_usage, pinned, pages = host.cell_usage(i)
            old = hd["_obj_mempages"]
            if len(old) != len(pages):
                raise _Unsupported("page entries differ")
            new = []
            for pg, (size_kb, total, used, reserved) in zip(old, pages):
                if pg.__dict__.get("_obj_used") != used or pg.__dict__.get("_obj_size_kb") != size_kb:
                    pg = _new_object(objects.NUMAPagesTopology, size_kb=size_kb, total=total,
                                     used=used, reserved=reserved)
                new.append(pg)
            quick = colls and type(hd["_obj_pinned_cpus"]) is colls[0] and \
                type(old) is colls[1]
            oc = owner(c)
            for name, value in (("cpu_usage", cpu_usage), ("memory_usage", memory_usage),
                                ("pinned_cpus", set(pinned)), ("mempages", new)):
                if quick:
                    # the values the fields' coerce would give: ints, and
                    # collections like the host cell's own
                    v = value if type(value) is int else \
                        _coerced_like(hd["_obj_" + name], oc, value, wl)
                else:
                    v = fields[name].coerce(c, name, value)
                    if isinstance(v, (set, list)):
                        if wl is not None:
                            v.__dict__[WATCHES] = wl
                        v.__dict__["_obj"] = oc
                d["_obj_" + name] = v
        changed = set(_USAGE_FIELDS)
        nm = hd.get("_obj_network_metadata")
        if nm is not None:
            changed.add("network_metadata")
            shared.append(nm)
            ph = nm.__dict__.get("_obj_physnets")
            if ph is not None:
                shared.append(ph)
        shared.extend(d["_obj_mempages"])
        d["_changed_fields"] = changed
        out.append(c)
    topo = _new_object(objects.NUMATopology, wl, (("cells", host_topology._obj_cells, out),))
    if w is not None:
        attach(shared, w)
    return topo


def _usage_values(topo):
    """A NUMATopology's cells as comparable values: every set field (page
    entries as tuples)."""
    out = []
    for c in topo.cells:
        v = {}
        for name in c.obj_fields:
            if c.obj_attr_is_set(name):
                x = getattr(c, name)
                if name == "mempages":
                    # an unset reserved count is 0 (nova reads it so)
                    x = [(p.size_kb, p.total, p.used, _attr(p, "reserved", 0)) for p in x]
                elif name == "network_metadata":
                    x = (set(x.physnets), x.tunneled)
                elif name == "siblings":
                    x = [set(s) for s in x]
                v[name] = x
        out.append(v)
    return out


_fast_usage = None  # None: not checked yet; then whether _usage_topology_fast is right


def _usage_topology(host_topology, instance_topology, host, w=None):
    """numa_usage_from_instance_numa's result from the claimed numafit Host:
    built through the storage (_usage_topology_fast), checked once per
    process (and on every call under _VERIFY) against the one nova's API
    builds from the host's primitive; if they ever differ, nova's API is
    used from then on."""
    global _fast_usage
    objects = _nova()[1]
    if _fast_usage is not False:
        try:
            ids = {c.id for c in instance_topology.cells}
            fast = _usage_topology_fast(host_topology, host, ids, w)
        except _Unsupported:
            fast = None
        if fast is not None:
            if _fast_usage is None or runtime._VERIFY:
                slow = objects.NUMATopology.obj_from_primitive(host.to_dict())
                same = _usage_values(fast) == _usage_values(slow)
                if runtime._VERIFY:
                    assert same, "fast usage build differs: %s != %s" % (
                        _usage_values(fast), _usage_values(slow))
                if not same:
                    LOG.warning("numafit.nova: building NUMATopology through its storage "
                                "differs from its primitive with this oslo.versionedobjects; "
                                "using the primitive")
                    _fast_usage = False
                    return slow
                _fast_usage = True
            return fast
    return objects.NUMATopology.obj_from_primitive(host.to_dict())


def _state(obj, owned=True):
    """An object's storage as comparable values: collection types, their
    owner (whether it is obj; with owned=False only whether they have one)
    and field, nested objects, changed fields."""
    out = {}
    for k, v in obj.__dict__.items():
        if k == WATCHES:
            continue
        if hasattr(v, "obj_fields"):
            v = ("object", type(v), _state(v, owned))
        elif isinstance(v, (set, dict, list)):
            v = (type(v), v if not isinstance(v, list) else
                 [_state(x, owned) if hasattr(x, "obj_fields") else x for x in v],
                 getattr(v, "_field", None),
                 (_owner_of(v) is obj if owned else True) if hasattr(v, "_obj") else True)
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
