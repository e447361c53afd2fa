"""numafit.nova: nova.virt.hardware's NUMA functions, computed by libnumafit.

The functions here have the names and signatures of nova.virt.hardware and
take and return nova objects.  They convert nova's objects to JSON with
obj_to_primitive(), call the library, and convert the answers back with
obj_from_primitive(); nova's own code is not copied.  Errors raise nova's own
exception classes (nova.exception.<Name>, or a bare ValueError where nova
raises one) when nova is importable, numafit.errors classes otherwise.

    import numafit.nova
    replaced = numafit.nova.patch()     # swap them into nova.virt.hardware
    ...
    numafit.nova.unpatch()

Differences from nova, on purpose (doc/python.md, NOVA-NOTES A):
* no fit cache keyed on a mutated id, no request mutation: the instance
  topology passed in is never modified; _numa_fit_instance_cell returns a
  new cell;
* pCPUs within a core: the lowest-numbered free thread first (nova: Python
  set order).

Falls back to nova's own function (counted in numafit.nova.stats):
* numa_fit_instance_to_host with PCI requests or PCI pools (pci_requests /
  pci_stats, provider_mapping): the library has no PCI model;
* an InstanceNUMATopology no flavor can produce (cells with different CPU
  or thread policies or page sizes, dedicated vCPUs in a dedicated cell's
  shared cpuset, vCPU ids used twice...);
* get_cpu_topology_constraints (the library exposes only the resulting
  topologies).
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

from . import cpu as _cpu, errors
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


class _HostCache:
    """numafit Hosts built from nova NUMATopology objects, reused while the
    object is alive and its content unchanged.  The scheduler asks about
    the same host_state.numa_topology for many requests; obj_to_primitive()
    and parsing it again every time cost far more than the fit.  The
    fingerprint covers every field the fit and the claim read."""

    MAX = 512

    def __init__(self):
        self._lock = threading.Lock()
        self._items = collections.OrderedDict()  # id -> (weakref, fingerprint, Host)

    @staticmethod
    def fingerprint(topo):
        """The fields' values, read from the objects' storage (oslo keeps a
        set field NAME as the attribute _obj_NAME) to skip the getters."""
        out = []
        for c in topo.cells:
            d = c.__dict__
            nm = d.get("_obj_network_metadata")
            if nm is not None:
                nd = nm.__dict__
                nm = (tuple(sorted(nd.get("_obj_physnets", ()))), nd.get("_obj_tunneled"))
            pages = tuple((pd.get("_obj_size_kb"), pd.get("_obj_total"), pd.get("_obj_used"),
                           pd.get("_obj_reserved", 0))
                          for pd in (p.__dict__ for p in d.get("_obj_mempages") or ()))
            out.append((d["_obj_id"], tuple(sorted(d["_obj_cpuset"])),
                        tuple(sorted(d.get("_obj_pcpuset", ()))), d["_obj_memory"],
                        d.get("_obj_cpu_usage"), d.get("_obj_memory_usage"),
                        tuple(sorted(d.get("_obj_pinned_cpus", ()))),
                        tuple(tuple(sorted(x)) for x in d.get("_obj_siblings", ())),
                        pages, d.get("_obj_socket"), nm))
        return tuple(out)

    def get(self, topo):
        try:
            fp = self.fingerprint(topo)
            ref = weakref.ref(topo)
        except Exception:  # an unusual object: no caching
            return Host.from_json(topo.obj_to_primitive())
        key = id(topo)
        with self._lock:
            hit = self._items.get(key)
            if hit is not None and hit[0]() is topo and hit[1] == fp:
                self._items.move_to_end(key)
                return hit[2]
        host = Host.from_json(topo.obj_to_primitive())
        with self._lock:
            self._items[key] = (ref, fp, host)
            self._items.move_to_end(key)
            while len(self._items) > self.MAX:
                self._items.popitem(last=False)
        return host

    def clear(self):
        with self._lock:
            self._items.clear()


_hosts = _HostCache()


def _cells_host(host_topology):
    """A numafit Host for a nova NUMATopology (cached; fits only read it)."""
    return _hosts.get(host_topology)


@functools.lru_cache(maxsize=256)
def _request(flavor_text, profile_):
    return Request.from_json(flavor_text, None, profile_)


@functools.lru_cache(maxsize=64)
def _options(limits_text, profile_, strategy):
    return Options(json.loads(limits_text), profile_, strategy)


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


def _copy_cell(cell):
    """A copy of an InstanceNUMACell (its set fields; cheaper than deepcopy)."""
    kw = {}
    for name in cell.obj_fields:
        if cell.obj_attr_is_set(name):
            v = getattr(cell, name)
            if isinstance(v, (set, dict, list)):
                v = copy.copy(v)
            elif hasattr(v, "obj_clone"):
                v = v.obj_clone()
            kw[name] = v
    return type(cell)(**kw)


def _build_cells(objects, req_cells, placement, vmap):
    """The fitted InstanceNUMACells: copies of the requested cells with the
    host cell id, page size, pinning and reserved CPUs of the placement."""
    out = []
    for rc, pc in zip(req_cells, placement.cells):
        c = _copy_cell(rc)
        c.id = pc["id"]
        if pc.get("pagesize") is not None or _attr(rc, "pagesize"):
            c.pagesize = pc.get("pagesize")
        if pc.get("cpu_pinning") is not None and _attr(rc, "cpu_policy") in (
                "dedicated", "mixed"):
            c.pin_vcpus(*[(vmap[v], p) for v, p in pc["cpu_pinning"].items()])
        if pc.get("cpuset_reserved") is not None:
            c.cpuset_reserved = set(pc["cpuset_reserved"])
        out.append(c)
    return out


def _fit(host, flavor, limits, profile_=None):
    CONF = _nova()[3]
    prof = profile_ or profile()
    strategy = "pack" if CONF.compute.packing_host_numa_cells_allocation_strategy else "spread"
    req = _request(json.dumps(flavor, sort_keys=True), prof)
    if not req.has_numa:
        raise _Unsupported("the flavor gives no NUMA topology")
    opt = _options(json.dumps(limits_json(limits), sort_keys=True), prof, strategy)
    from .fit import fit as _lib_fit
    return _lib_fit(host, req, opt)


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
    provider_mapping = kwargs.get("provider_mapping", args[0] if args else None)
    if not (host_topology and instance_topology):
        return None
    if len(host_topology) < len(instance_topology):
        return None
    pci_pools = bool(pci_stats is not None and getattr(pci_stats, "pools", None))
    try:
        if pci_requests or pci_pools or provider_mapping:
            raise _Unsupported("PCI")
        flavor, vmap = request_flavor(instance_topology)
    except _Unsupported as e:
        _count("fallback", "numa_fit_instance_to_host: %s" % e)
        return _original("numa_fit_instance_to_host")(
            host_topology, instance_topology, limits, pci_requests, pci_stats, *args, **kwargs)
    objects = _nova()[1]
    _count("library")
    p = _fit(_cells_host(host_topology), flavor, limits)
    if p is None:
        return None
    with p:
        cells = _build_cells(objects, instance_topology.cells, p, vmap)
    etp = _attr(instance_topology, "emulator_threads_policy")
    return objects.InstanceNUMATopology(cells=cells, emulator_threads_policy=etp)


@_translating
def _numa_fit_instance_cell(host_cell, instance_cell, limits=None, cpuset_reserved=0):
    """nova.virt.hardware._numa_fit_instance_cell: a NEW InstanceNUMACell on
    host_cell (instance_cell is not modified), or None.  Raises
    MemoryPageSizeNotSupported for an explicit page size the host cell
    does not have, as nova does."""
    hardware, objects, exc, CONF = _nova()
    try:
        flavor, vmap = request_flavor(None, [instance_cell],
                                      "isolate" if cpuset_reserved else None)
        if cpuset_reserved not in (0, 1):
            raise _Unsupported("cpuset_reserved > 1")
    except _Unsupported as e:
        _count("fallback", "_numa_fit_instance_cell: %s" % e)
        return _original("_numa_fit_instance_cell")(host_cell, instance_cell, limits,
                                                    cpuset_reserved)
    ps = _attr(instance_cell, "pagesize")
    if ps and ps > 0 and ps not in [m.size_kb for m in (host_cell.mempages or [])]:
        raise exc.MemoryPageSizeNotSupported(pagesize=ps)
    _count("library")
    topo = objects.NUMATopology(cells=[host_cell])
    with Host.from_json(topo.obj_to_primitive()) as host:
        p = _fit(host, flavor, limits)
    if p is None:
        return None
    with p:
        return _build_cells(objects, [instance_cell], p, vmap)[0]


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


def get_cpu_topology_constraints(flavor, image_meta):
    """nova's own function (the library exposes only the resulting
    topologies, see get_best_cpu_topology)."""
    _count("fallback", "get_cpu_topology_constraints: not in the library")
    return _original("get_cpu_topology_constraints")(flavor, image_meta)


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
