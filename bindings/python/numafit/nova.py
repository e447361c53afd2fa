"""numafit.nova: nova.virt.hardware's NUMA functions, computed by libnumafit.

The functions here have the names and signatures of nova.virt.hardware and
take and return nova objects.  They convert nova's objects to JSON, call the
library, and convert the answers back to nova objects; nova's own code is
not copied.  numa_fit_instance_to_host, the scheduler's hot path, reads the
objects' storage directly and caches the converted hosts, requests and
options under the values of their fields (see _HostCache, _request_key).
Errors raise nova's own exception classes (nova.exception.<Name>, or a bare
ValueError where nova raises one) when nova is importable, numafit.errors
classes otherwise.

    import numafit.nova
    replaced = numafit.nova.patch()     # swap them into nova.virt.hardware
    ...
    numafit.nova.unpatch()

Differences from nova, on purpose (doc/python.md, nova-reference A):
* no fit cache keyed on a mutated id, no request mutation: the instance
  topology passed in is never modified; _numa_fit_instance_cell returns a
  new cell;
* pCPUs within a core: the lowest-numbered free thread first (nova: Python
  set order).

Falls back to nova's own function (counted in numafit.nova.stats):
* numa_fit_instance_to_host with PCI requests or PCI pools (pci_requests /
  pci_stats with pools): the library has no PCI model;
* an InstanceNUMATopology no flavor can produce (cells with different CPU
  or thread policies or page sizes, dedicated vCPUs in a dedicated cell's
  shared cpuset, vCPU ids used twice...).
The release rules follow the nova that is installed: "latest" when its
numa_fit_instance_to_host takes provider_mapping, else "zed" (Debian 12's
26.2.2); patch(profile=...) overrides.
"""
import collections
import copy
import functools
import inspect
import json
import logging
import threading
import weakref
from ctypes import byref, c_void_p

from . import _ffi, cpu as _cpu, errors
from .fit import Options
from .host import Host
from .placement import Placement
from .request import Request

LOG = logging.getLogger(__name__)

FUNCTIONS = ("numa_get_constraints", "numa_fit_instance_to_host", "_numa_fit_instance_cell",
             "numa_usage_from_instance_numa", "get_best_cpu_topology",
             "_get_desirable_cpu_topologies", "get_cpu_topology_constraints",
             "parse_cpu_spec", "format_cpu_spec")

# nova's MEMPAGES_SMALL/LARGE/ANY and the hw:mem_page_size words
_PAGESIZE_WORDS = {-1: "small", -2: "large", -3: "any"}

stats = {"library": 0, "fallback": 0}
fallbacks = collections.Counter()  # "function: reason" -> calls sent to nova's own
_stats_lock = threading.Lock()
_saved = {}
_profile = None


def _count(key, why=None):
    with _stats_lock:
        stats[key] = stats.get(key, 0) + 1
        if why:
            fallbacks[why] += 1


_nova_mods = None


def _nova():
    """(hardware module, objects, exception module, CONF) or ImportError."""
    global _nova_mods
    if _nova_mods is None:
        from nova import exception, objects
        from nova.virt import hardware
        import nova.conf
        objects.register_all()
        _nova_mods = (hardware, objects, exception, nova.conf.CONF)
    return _nova_mods


def _original(name):
    if name in _saved:
        return _saved[name]
    hardware = _nova()[0]
    f = getattr(hardware, name)
    if getattr(f, "__module__", "") == __name__:
        raise RuntimeError("numafit.nova: nova's %s is not available" % name)
    return f


def profile():
    """The release rules in use: "latest" or "zed"."""
    global _profile
    if _profile is None:
        try:
            sig = inspect.signature(_original("numa_fit_instance_to_host"))
            _profile = "latest" if "provider_mapping" in sig.parameters else "zed"
        except Exception:
            _profile = "latest"
    return _profile


def set_profile(name=None):
    """Use "latest" or "zed" rules; None: from the installed nova."""
    global _profile
    if name not in (None, "latest", "zed"):
        raise ValueError("numafit.nova: unknown profile %r" % (name,))
    _profile = name


def _nova_error(e):
    """A numafit.errors exception as nova's own exception."""
    name = getattr(e, "exception", "") or ""
    if name == "ValueError":
        return ValueError(e.text)
    if name:
        try:
            exc_mod = _nova()[2]
            cls = getattr(exc_mod, name, None)
            if isinstance(cls, type) and issubclass(cls, Exception):
                try:
                    return cls(message=e.text)
                except TypeError:
                    return cls(e.text)
        except ImportError:
            pass
    return e


def _translating(f):
    @functools.wraps(f)
    def wrapper(*a, **kw):
        try:
            return f(*a, **kw)
        except errors.NumafitError as e:
            ne = _nova_error(e)
            if ne is e:
                raise
            raise ne from None
    return wrapper


class _Unsupported(Exception):
    """This input goes to nova's own function."""


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


def flavor_json(flavor):
    """nova Flavor (or dict) -> {"vcpus","memory_mb","extra_specs"}."""
    get = flavor.get if isinstance(flavor, dict) else (lambda k, d=None: getattr(flavor, k, d))
    es = get("extra_specs", None) or {}
    return {"vcpus": int(get("vcpus", 0) or 0), "memory_mb": int(get("memory_mb", 0) or 0),
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
    props = getattr(image_meta, "properties", None)
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


def _content_key(snapshot):
    """_host_snapshot() made hashable (sibling lists as tuples)."""
    topo_cls, cells = snapshot
    return (topo_cls, tuple(c[:8] + (tuple(c[8]) if isinstance(c[8], list) else c[8],) + c[9:]
                            for c in cells))


class _HostCache:
    """numafit Hosts built from nova NUMATopology objects.  The scheduler
    asks about the same host_state.numa_topology for many requests, and
    rebuilds it from the database with the same content; obj_to_primitive()
    and parsing it again every time cost far more than the fit.

    An entry is found by the object's id and used only if it is the same
    object (weak reference) with the same fingerprint: every field of every
    cell, read afresh on each call (nova changes these objects in place).
    Otherwise a Host of the same content is reused (another object, or this
    one changed back), or one is built.  Fits only read these Hosts; nothing
    claims on them."""

    MAX = 2048

    def __init__(self):
        self._lock = threading.Lock()
        self._items = collections.OrderedDict()  # id -> (weakref, snapshot, Host)
        self._content = collections.OrderedDict()  # _content_key -> Host

    def get(self, topo):
        try:
            view = _host_view(topo) if _is_ovo(topo) else None
        except Exception:  # an unusual object: no caching
            view = None
        if view is None:
            return Host.from_json(topo.obj_to_primitive())
        k = id(topo)
        with self._lock:
            hit = self._items.get(k)
            if hit is not None and hit[0]() is topo and view == hit[1]:
                self._items.move_to_end(k)
                return hit[2]
        snap = _host_snapshot(view)
        del view
        ck = _content_key(snap)
        ref = weakref.ref(topo)
        with self._lock:
            host = self._content.get(ck)
        if host is None:
            host = Host.from_json(json.dumps(_host_primitive(snap), separators=(",", ":")))
            if _VERIFY:
                with Host.from_json(topo.obj_to_primitive()) as slow:
                    assert host.to_dict() == slow.to_dict(), "host JSON differs"
        with self._lock:
            self._items[k] = (ref, snap, host)
            self._items.move_to_end(k)
            self._content[ck] = host
            self._content.move_to_end(ck)
            for d in (self._items, self._content):
                while len(d) > self.MAX:
                    d.popitem(last=False)
        return host

    def clear(self):
        with self._lock:
            self._items.clear()
            self._content.clear()


_hosts = _HostCache()
_VERIFY = False  # tests: check every fast conversion against the slow one


def _cells_host(host_topology):
    """A numafit Host for a nova NUMATopology (cached; fits only read it)."""
    return _hosts.get(host_topology)


class _SmallCache:
    """A dict with a size limit (emptied when full); values are immutable
    once stored, so readers need no lock."""

    def __init__(self, size):
        self.size = size
        self.d = {}

    def get(self, key):
        return self.d.get(key)

    def put(self, key, value):
        if len(self.d) >= self.size:
            self.d.clear()
        self.d[key] = value
        return value

    def clear(self):
        self.d.clear()


# (profile, emulator threads policy, per cell: cpuset, pcpuset, memory,
# pagesize, cpu_policy, cpu_thread_policy) -> (Request, vCPU map)
_requests = _SmallCache(1024)
# (limits fingerprint or JSON, profile, strategy) -> Options
_optionses = _SmallCache(256)


def _request_key(instance_topology, profile_):
    """Every field request_flavor() reads, as an immutable value (never an
    object id: nova mutates the cells it fits, nova-reference A), or None."""
    if not _is_ovo(instance_topology):
        return None
    d = instance_topology.__dict__
    key = [profile_, d.get("_obj_emulator_threads_policy", _U)]
    for c in d.get("_obj_cells") or ():
        if not _is_ovo(c):
            return None
        g = c.__dict__.get
        key.append((_fs(g("_obj_cpuset", _U)), _fs(g("_obj_pcpuset", _U)), g("_obj_memory", _U),
                    g("_obj_pagesize", _U), g("_obj_cpu_policy", _U),
                    g("_obj_cpu_thread_policy", _U)))
    return tuple(key)


def _request_for(instance_topology, profile_):
    """(numafit Request, {flavor vCPU: instance vCPU}) for an
    InstanceNUMATopology; raises _Unsupported."""
    key = _request_key(instance_topology, profile_)
    hit = _requests.get(key) if key is not None else None
    if hit is not None:
        return hit
    flavor, vmap = request_flavor(instance_topology)
    req = Request.from_json(json.dumps(flavor), None, profile_)
    if not req.has_numa:
        req.close()
        raise _Unsupported("the flavor gives no NUMA topology")
    return _requests.put(key, (req, vmap)) if key is not None else (req, vmap)


def _limits_key(limits):
    if limits is None:
        return None
    if not _is_ovo(limits):
        return json.dumps(limits_json(limits), sort_keys=True)
    g = limits.__dict__.get
    nm = g("_obj_network_metadata", _U)
    if nm is not _U and nm is not None:
        nd = nm.__dict__
        nm = (_fs(nd.get("_obj_physnets", _U)), nd.get("_obj_tunneled", _U))
    return (g("_obj_cpu_allocation_ratio", _U), g("_obj_ram_allocation_ratio", _U), nm)


def _options_for(limits, profile_):
    strategy = "pack" if _nova()[3].compute.packing_host_numa_cells_allocation_strategy \
        else "spread"
    key = (_limits_key(limits), profile_, strategy)
    hit = _optionses.get(key)
    if hit is None:
        hit = _optionses.put(key, Options(limits_json(limits), profile_, strategy))
    return hit


def _placed_cells(rc, p, err):
    """The cells of placement p (plain JSON form, pinning keys as text) when
    rc says it fits, else None; p is freed."""
    try:
        if rc != 1:
            return None
        out = c_void_p()
        _ffi.placement_to_json(p, 0, byref(out), byref(err))
        return json.loads(_ffi.take_string(out))
    finally:
        if p:
            _ffi.placement_free(p)


def _fit_cells(host, req, opt):
    """numafit_fit on prepared objects: the placement's cells, or None.  The
    adapter's hosts are never claimed, but the objects' locks are taken as
    everywhere (uncontended, they cost little)."""
    p, err = _ffi.PlacementP(), _ffi.Error()
    with _ffi.hold(host, req, opt) as (h, r, o):
        rc = _ffi.fit(h, r, o, 0, byref(p), byref(err))
    return _placed_cells(rc, p, err)


def _fit_cell(host, req, opt, nreserved):
    """numafit_fit_cell of the request's only guest cell on the host's only
    cell with nreserved emulator pCPUs: its cells as _fit_cells gives them,
    or None."""
    nreserved = _ffi.cint(nreserved, "cpuset_reserved")
    p, err = _ffi.PlacementP(), _ffi.Error()
    with _ffi.hold(host, req, opt) as (h, r, o):
        rc = _ffi.fit_cell(h, 0, r, 0, nreserved, o, 0, byref(p), byref(err))
    return _placed_cells(rc, p, err)


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
        if _fast_cells is None or _VERIFY:
            slow = _build_cell_slow(rc, pc, vmap)
            same = _state(c) == _state(slow)
            if _VERIFY:
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


# ------------------------------------------------------------ nova's API
@_translating
def numa_get_constraints(flavor, image_meta):
    """nova.virt.hardware.numa_get_constraints: InstanceNUMATopology or None."""
    objects = _nova()[1]
    _count("library")
    with Request.from_json(flavor_json(flavor), image_json(image_meta), profile()) as req:
        if not req.has_numa:
            return None
        return objects.InstanceNUMATopology.obj_from_primitive(req.to_dict())


@_translating
def numa_fit_instance_to_host(host_topology, instance_topology, limits=None,
                              pci_requests=None, pci_stats=None, *args, **kwargs):
    """nova.virt.hardware.numa_fit_instance_to_host (Zed's signature, and
    the newer one with provider_mapping).  The instance topology is not
    modified.  With PCI requests or pools: nova's own function."""
    # provider_mapping only matters to nova's PCI check (pci_stats.
    # support_requests, with PCI requests), which falls back to nova below;
    # nova's scheduler passes it on every call
    if not (host_topology and instance_topology):
        return None
    if len(host_topology) < len(instance_topology):
        return None
    pci_pools = bool(pci_stats is not None and getattr(pci_stats, "pools", None))
    prof = profile()
    try:
        if pci_requests or pci_pools:
            raise _Unsupported("PCI")
        req, vmap = _request_for(instance_topology, prof)
    except _Unsupported as e:
        _count("fallback", "numa_fit_instance_to_host: %s" % e)
        return _original("numa_fit_instance_to_host")(
            host_topology, instance_topology, limits, pci_requests, pci_stats, *args, **kwargs)
    objects = _nova()[1]
    _count("library")
    pcells = _fit_cells(_cells_host(host_topology), req, _options_for(limits, prof))
    if pcells is None:
        return None
    cells = _build_cells(instance_topology.cells, pcells, vmap)
    etp = _attr(instance_topology, "emulator_threads_policy")
    return objects.InstanceNUMATopology(cells=cells, emulator_threads_policy=etp)


@_translating
def _numa_fit_instance_cell(host_cell, instance_cell, limits=None, cpuset_reserved=0):
    """nova.virt.hardware._numa_fit_instance_cell: a NEW InstanceNUMACell on
    host_cell (instance_cell is not modified), or None.  Raises
    MemoryPageSizeNotSupported for an explicit page size the host cell
    does not have, as nova does."""
    hardware, objects, exc, CONF = _nova()
    many = bool(cpuset_reserved and cpuset_reserved > 1)
    try:
        # one emulator pCPU: the flavor's emulator threads isolate, as
        # numa_fit_instance_to_host asks it; more: numafit_fit_cell
        flavor, vmap = request_flavor(None, [instance_cell],
                                      "isolate" if cpuset_reserved and not many else None)
    except _Unsupported as e:
        _count("fallback", "_numa_fit_instance_cell: %s" % e)
        return _original("_numa_fit_instance_cell")(host_cell, instance_cell, limits,
                                                    cpuset_reserved)
    ps = _attr(instance_cell, "pagesize")
    if ps and ps > 0 and ps not in [m.size_kb for m in (host_cell.mempages or [])]:
        raise exc.MemoryPageSizeNotSupported(pagesize=ps)
    _count("library")
    prof = profile()
    topo = objects.NUMATopology(cells=[host_cell])
    with Host.from_json(topo.obj_to_primitive()) as host, \
            Request.from_json(json.dumps(flavor), None, prof) as req:
        opt = _options_for(limits, prof)
        pcells = (_fit_cell(host, req, opt, cpuset_reserved) if many
                  else _fit_cells(host, req, opt))
    if pcells is None:
        return None
    return _build_cells([instance_cell], pcells, vmap)[0]


@_translating
def numa_usage_from_instance_numa(host_topology, instance_topology, free=False):
    """nova.virt.hardware.numa_usage_from_instance_numa: a new NUMATopology
    with the instance's usage added (or removed with free=True)."""
    if not host_topology or not instance_topology:
        return host_topology
    objects = _nova()[1]
    _count("library")
    with Host.from_json(host_topology.obj_to_primitive()) as host, \
            Placement.from_json(instance_topology.obj_to_primitive()) as p:
        (host.release if free else host.claim)(p)
        return objects.NUMATopology.obj_from_primitive(host.to_dict())


def _topo_args(flavor, image_meta):
    return flavor_json(flavor), image_json(image_meta)


@_translating
def get_best_cpu_topology(flavor, image_meta, allow_threads=True):
    objects = _nova()[1]
    _count("library")
    s, c, t = _cpu.best_cpu_topology(*_topo_args(flavor, image_meta),
                                     allow_threads=allow_threads)
    return objects.VirtCPUTopology(sockets=s, cores=c, threads=t)


@_translating
def _get_desirable_cpu_topologies(flavor, image_meta, allow_threads=True):
    objects = _nova()[1]
    _count("library")
    return [objects.VirtCPUTopology(sockets=s, cores=c, threads=t)
            for s, c, t in _cpu.cpu_topologies(*_topo_args(flavor, image_meta),
                                               allow_threads=allow_threads)]


@_translating
def get_cpu_topology_constraints(flavor, image_meta):
    """nova.virt.hardware.get_cpu_topology_constraints: (preferred, maximum)
    VirtCPUTopology objects, nova's integers exactly."""
    objects = _nova()[1]
    _count("library")
    return tuple(objects.VirtCPUTopology(sockets=s, cores=c, threads=t)
                 for s, c, t in _cpu.cpu_topology_constraints(*_topo_args(flavor, image_meta)))


@_translating
def parse_cpu_spec(spec):
    """nova.virt.hardware.parse_cpu_spec: raises nova's Invalid (and, for
    CPU ids above 16383, Invalid too instead of allocating gigabytes)."""
    _count("library")
    try:
        return _cpu.parse_cpu_spec(spec)
    except errors.RangeError as e:
        e.exception = e.exception or "Invalid"
        raise


def format_cpu_spec(cpuset, allow_ranges=True):
    """nova.virt.hardware.format_cpu_spec (allow_ranges=False: "0,1,2")."""
    if not allow_ranges:
        return ",".join(str(c) for c in sorted(cpuset))
    _count("library")
    return _cpu.format_cpu_spec(cpuset)


# ------------------------------------------------------------ patching
_patch_lock = threading.Lock()


def patch(names=FUNCTIONS, profile=None):
    """Swap the functions into nova.virt.hardware.  Returns (and logs at
    INFO) the names replaced.  Idempotent; unpatch() restores nova's."""
    global _profile
    hardware = _nova()[0]
    replaced = []
    with _patch_lock:
        for n in names:
            if getattr(hardware, n, None) is None:
                continue
            if n not in _saved:
                _saved[n] = getattr(hardware, n)
            setattr(hardware, n, globals()[n])
            replaced.append(n)
        _profile = profile  # None: from the installed nova's signature
    LOG.info("numafit.nova: replaced nova.virt.hardware.%s (profile %s)",
             ", ".join(replaced), globals()["profile"]())
    return replaced


def unpatch():
    """Put nova's own functions back.  Returns the names restored."""
    hardware = _nova()[0]
    with _patch_lock:
        restored = []
        for n, f in list(_saved.items()):
            setattr(hardware, n, f)
            restored.append(n)
        _saved.clear()
    return restored


def patched():
    return bool(_saved)
