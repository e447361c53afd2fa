"""nova.virt.hardware's NUMA functions (same names and signatures), on
nova objects, computed by libnumafit."""
import errno
import json
import types
from ctypes import byref, c_void_p

from .. import _ffi, cpu as _cpu, errors
from ..host import Host
from ..pci import PciPools, PciRequests
from ..request import Request
from . import pinlog, runtime
from .cache import (_SmallCache, _cells_host, _hosts, _options_for, _options_for_ratios,
                    _request_for, new_watch)
from .convert import (_attr, _build_cells, _is_ovo, _new_object, _usage_topology, flavor_json,
                      image_json, placement_json, request_flavor)
from .runtime import _count, _nova, _original, _translating, _Unsupported, profile
from .watch import WATCHES

FUNCTIONS = ("numa_get_constraints", "numa_fit_instance_to_host", "_numa_fit_instance_cell",
             "numa_usage_from_instance_numa", "get_best_cpu_topology",
             "_get_desirable_cpu_topologies", "get_cpu_topology_constraints",
             "parse_cpu_spec", "format_cpu_spec")
# what patch() replaces unless told otherwise: the functions faster than
# nova's own (bench/nova_functions_bench.py).  Through ctypes,
# parse_cpu_spec and format_cpu_spec cost several times nova's few
# microseconds; nova calls _numa_fit_instance_cell only from its own
# numa_fit_instance_to_host, which patch() replaces, and ours builds a
# library host and request per call; numa_get_constraints and
# get_cpu_topology_constraints measure about 0.9x nova's (the request
# parsed and validated by the library, then built from its primitive).
# They stay here, for patch(names=...) and direct use.
NOT_DEFAULT = ("numa_get_constraints", "get_cpu_topology_constraints",
               "_numa_fit_instance_cell", "parse_cpu_spec", "format_cpu_spec")
DEFAULT_FUNCTIONS = tuple(n for n in FUNCTIONS if n not in NOT_DEFAULT)


def _cells_of(p, err):
    """The cells of placement handle p (plain JSON form, pinning keys as
    text)."""
    out = c_void_p()
    _ffi.placement_to_json(p, 0, byref(out), byref(err))
    return json.loads(_ffi.take_string(out))


def _placed_cells(rc, p, err):
    """_cells_of(p) when rc says it fits, else None; p is freed."""
    try:
        return _cells_of(p, err) if rc == 1 else None
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


def _fits(chost, req, opt):
    """numafit_fit's answer alone: True or False, no placement built.  The
    three are the adapter's own cached objects (chost a _CHost), which
    nothing closes or changes (the caches drop them; references keep them
    alive while in use): their handles are used without locks."""
    return _ffi.fit_addr(chost.addr, req._h, opt._h, 0, None, byref(_ffi.Error())) == 1


def _fit_cached(chost, req, opt):
    """numafit_fit on the adapter's cached objects (_fits()): the
    placement's cells as _fit_cells gives them, or None."""
    p, err = _ffi.PlacementP(), _ffi.Error()
    rc = _ffi.fit_addr(chost.addr, req._h, opt._h, 0, byref(p), byref(err))
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


def _enough_cells(host_topology, instance_topology):
    """Both topologies given, with cells, and the host with at least as many
    cells as the instance (nova's first checks).  The counts come from the
    storage: len() of nova's objects goes through two getters."""
    try:
        nh, ni = len(host_topology._obj_cells), len(instance_topology._obj_cells)
    except (AttributeError, TypeError):
        nh = len(host_topology) if host_topology else 0
        ni = len(instance_topology) if instance_topology else 0
    return bool(nh and ni and nh >= ni)


def _native_support(pci_stats):
    """Is pci_stats.support_requests nova's own (not a subclass's, not a
    mock)?  Then the library's rules answer it; else it is called back."""
    f = getattr(getattr(pci_stats, "support_requests", None), "__func__", None)
    return isinstance(f, types.FunctionType) and f.__module__ == "nova.pci.stats" and \
        f.__qualname__ == "PciDeviceStats.support_requests"


def _pools_text(pools):
    """The JSON text of nova's pools (pci_stats.pools: dicts, on a compute
    node with their devices) without their devices, or _Unsupported."""
    out = []
    for pool in pools:
        d = {}
        for k, v in pool.items():
            if k == "devices":
                continue
            if v is not None and type(v) not in (str, int, bool):
                raise _Unsupported("PCI pool %s of type %s" % (k, type(v).__name__))
            d[k] = v
        out.append(d)
    return json.dumps(out)


_REQUEST_FIELDS = ("count", "spec", "alias_name", "is_new", "numa_policy", "request_id",
                   "requester_id")
_OBJ_REQUEST_FIELDS = tuple("_obj_" + f for f in _REQUEST_FIELDS)


def _requests_text(pci_requests):
    """The database's list form of nova's InstancePCIRequest list (or
    InstancePCIRequests), read from the objects' storage (building nova's
    primitive costs ten times more)."""
    reqs = getattr(pci_requests, "requests", pci_requests)
    out = []
    for r in reqs:
        d = r.__dict__
        item = {}
        for f, o in zip(_REQUEST_FIELDS, _OBJ_REQUEST_FIELDS):
            v = d.get(o, _MISSING)
            if v is not _MISSING:
                item[f] = v
        out.append(item)
    return json.dumps(out)


def _requests_of(pci_requests):
    """nova's InstancePCIRequest list (or InstancePCIRequests) as
    numafit.PciRequests, or _Unsupported."""
    try:
        return PciRequests.from_json(_requests_text(pci_requests))
    except (errors.NumafitError, TypeError, ValueError, AttributeError) as e:
        raise _Unsupported("PCI requests: %s" % (e,))


_MISSING = object()

# The adapter's PCI objects, found by content: nova changes its pools and
# requests in place (a claim takes from a pool's count), so never by the
# objects themselves.  A scheduler asks about the same few pools and
# requests for many hosts and instances, and building them costs several
# times the fit.  Values are never closed or changed (the caches drop them;
# references keep them alive while in use).  Hosts of one kind whose
# devices are free have equal pools and share an entry; the sizes cover a
# scheduler's sweep over a few thousand hosts of distinct pools (a full
# cache is emptied).
# pools key -> (PciPools, whether a pool names a resource provider)
_pci_pools = _SmallCache(4096)
# requests key -> PciRequests
_pci_requests = _SmallCache(1024)
# (id(base Options), id(PciPools), id(PciRequests)) -> _PciOptions
_pci_optionses = _SmallCache(4096)


def _pools_key(pools):
    """nova's pools as an immutable value: each pool's items in their order,
    and the type of every key and value (True and 1 are equal in Python,
    not in the pools' JSON); None when a pool holds its devices (compute
    nodes' pools: keyed by their text instead) or is not a dict."""
    try:
        items = tuple([tuple(p.items()) for p in pools])
        key = (items, tuple([type(x) for p in items for kv in p for x in kv]))
        hash(key)
        return key
    except (TypeError, AttributeError):
        return None


def _requests_key(pci_requests):
    """nova's PCI requests as an immutable value: every field _requests_text
    reads (a spec's dicts as their items), and the type of every value and
    spec key (True and 1 are equal in Python, not in the JSON), or None."""
    try:
        key = []
        for r in getattr(pci_requests, "requests", pci_requests):
            g = r.__dict__.get
            vals = [g(o, _MISSING) for o in _OBJ_REQUEST_FIELDS]
            spec = vals[1]
            if isinstance(spec, list):  # nova's CoercedList of CoercedDicts
                vals[1] = items = tuple([tuple(d.items()) for d in spec])
                key.append(tuple([type(x) for d in items for kv in d for x in kv]))
            else:
                key.append(None)
            key.append(tuple(vals))
            key.append(tuple([type(v) for v in vals]))
        key = tuple(key)
        hash(key)
        return key
    except (TypeError, AttributeError):
        return None


def _cached_pools(pci_stats):
    """(numafit.PciPools of pci_stats.pools, whether a pool names a resource
    provider), cached by content; raises _Unsupported."""
    pools = pci_stats.pools
    key = _pools_key(pools)
    if key is None:
        text = _pools_text(pools)
        key = ("text", text)
    else:
        text = None
    hit = _pci_pools.get(key)
    if hit is None or runtime._VERIFY:
        try:
            made = PciPools.from_json(text if text is not None else _pools_text(pools))
        except errors.NumafitError as e:
            raise _Unsupported("PCI pools: %s" % (e,))
        if hit is not None:
            assert hit[0] == made, "cached PCI pools differ"
        else:
            hit = _pci_pools.put(key, (made, any("rp_uuid" in p for p in pools)))
    return hit


def _cached_requests(pci_requests):
    """numafit.PciRequests of nova's requests, cached by content; raises
    _Unsupported."""
    key = _requests_key(pci_requests)
    hit = _pci_requests.get(key) if key is not None else None
    if hit is None or runtime._VERIFY:
        made = _requests_of(pci_requests)
        if hit is not None:
            assert hit.to_json() == made.to_json(), "cached PCI requests differ"
        elif key is not None:
            hit = _pci_requests.put(key, made)
        else:
            hit = made
    return hit


class _PciOptions(_ffi.Owned):
    """A copy of the adapter's Options with PCI pools and requests set; it
    keeps the three alive while the library may read them."""
    _free = "options_free"

    def __init__(self, base, pools, reqs):
        self._refs = (base, pools, reqs)
        h = _ffi.OptionsP()
        _ffi.options_dup(base._h, byref(h))
        self._h = h
        _ffi.options_set_pci(h, pools._h if pools is not None else None,
                             reqs._h if reqs is not None else None)


def _pci_options(base, pools, reqs):
    key = (id(base), id(pools), id(reqs))
    hit = _pci_optionses.get(key)
    if hit is None:
        hit = _pci_optionses.put(key, _PciOptions(base, pools, reqs))
    return hit


def _fit_pci(chost, req, base_opt, host_topology, pci_requests, pci_stats, provider_mapping,
             has_mapping):
    """numafit_fit with nova's pci_requests and pci_stats: the cells of the
    placement, or None.  The pools order the host cells as nova's do; the
    requests are checked by the library's rules when pci_stats is nova's
    own PciDeviceStats, else (a subclass, a mock, pools of placement's
    providers with a provider_mapping) by calling its support_requests."""
    pools, pools_rp = _cached_pools(pci_stats) if pci_stats is not None else (None, False)
    reqs = _cached_requests(pci_requests) if pci_requests else None
    p, err = _ffi.PlacementP(), _ffi.Error()
    if reqs is None or pools is None or \
            (_native_support(pci_stats) and not (provider_mapping and pools_rp)):
        opt = _pci_options(base_opt, pools, reqs)
        rc = _ffi.fit_addr(chost.addr, req._h, opt._h, 0, byref(p), byref(err))
        return _placed_cells(rc, p, err)
    failure = []
    objects = _nova()[1]

    def check(ctx, ids, n):
        try:
            cells = [objects.InstanceNUMACell(id=ids[i], cpuset=set(), pcpuset=set(),
                                              memory=0) for i in range(n)]
            if has_mapping:
                ok = pci_stats.support_requests(pci_requests, provider_mapping, cells)
            else:
                ok = pci_stats.support_requests(pci_requests, cells)
            return 1 if ok else 0
        except BaseException as e:  # raised again after the fit
            failure.append(e)
            return -errno.ECANCELED
    cb = _ffi.PciCheckFn(check)
    opt = _ffi.OptionsP()
    try:
        _ffi.options_dup(base_opt._h, byref(opt))
        _ffi.options_set_pci(opt, pools._h, reqs._h)
        _ffi.options_set_pci_check(opt, cb, None)
        rc = _ffi.fit_addr(chost.addr, req._h, opt, 0, byref(p), byref(err))
    finally:
        if opt:
            _ffi.options_free(opt)
    if failure:
        if p:
            _ffi.placement_free(p)
        raise failure[0]
    return _placed_cells(rc, p, err)


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
    the newer one with provider_mapping as a keyword).  The instance
    topology is not modified.  PCI requests and pools as nova takes them:
    the pools order the host cells, the requests are checked on the chosen
    cells (the library's rules, or pci_stats.support_requests when it is
    not nova's own)."""
    if not _enough_cells(host_topology, instance_topology):
        return None
    has_mapping = "provider_mapping" in kwargs
    provider_mapping = kwargs.get("provider_mapping")
    prof = profile()
    try:
        req, vmap = _request_for(instance_topology, prof)
    except _Unsupported as e:
        _count("fallback", "numa_fit_instance_to_host: %s" % e)
        return _original("numa_fit_instance_to_host")(
            host_topology, instance_topology, limits, pci_requests, pci_stats, *args, **kwargs)
    objects = _nova()[1]
    if pci_stats is not None or pci_requests:
        chost, opt = _cells_host(host_topology), _options_for(limits, prof)
        # devices only narrow the placements (and reorder the cells), so a
        # guest with no placement without them has none with them: answered
        # before the pools and requests are read (nova, too, asks the pools
        # only about cells the guest fits)
        if not _fits(chost, req, opt):
            _count("library")
            return None
        try:
            pcells = _fit_pci(chost, req, opt, host_topology, pci_requests, pci_stats,
                              provider_mapping, has_mapping)
        except _Unsupported as e:
            _count("fallback", "numa_fit_instance_to_host: %s" % e)
            return _original("numa_fit_instance_to_host")(
                host_topology, instance_topology, limits, pci_requests, pci_stats, *args,
                **kwargs)
        _count("library")
    else:
        _count("library")
        pcells = _fit_cached(_cells_host(host_topology), req, _options_for(limits, prof))
    if pcells is None:
        return None
    cells = _build_cells(instance_topology.cells, pcells, vmap)
    pinlog.log_pinning(_nova()[0].LOG, lambda: host_topology.cells, cells)
    etp = _attr(instance_topology, "emulator_threads_policy")
    template = instance_topology.__dict__.get("_obj_cells") if _is_ovo(instance_topology) \
        else None
    if template is None or not (etp is None or type(etp) is str):
        return objects.InstanceNUMATopology(cells=cells, emulator_threads_policy=etp)
    return _new_object(objects.InstanceNUMATopology, None, (("cells", template, cells),),
                       emulator_threads_policy=etp)


@_translating
def host_fits(host_topology, instance_topology, cpu_allocation_ratio, ram_allocation_ratio,
              network_metadata=None, pci_stats=None):
    """The scheduler filter's question, without the objects nova's answer
    carries: does instance_topology (an instance without PCI requests) fit
    on host_topology with these allocation ratios (and the request's
    NetworkMetadata)?  True or False, the same answer as
    bool(numa_fit_instance_to_host(host_topology, instance_topology,
    NUMATopologyLimits(...), pci_stats=pci_stats)): without requests the
    pools only order the host cells, and whether some placement exists does
    not depend on the order.  None when the library cannot answer it (a
    ratio of None, an instance topology no flavor gives): ask
    numa_fit_instance_to_host then."""
    fits = host_fitter(instance_topology, network_metadata)
    try:
        return fits(host_topology, cpu_allocation_ratio, ram_allocation_ratio, pci_stats)
    finally:
        fits.flush()


def host_fitter(instance_topology, network_metadata=None, pci_requests=None,
                provider_mapping=None):
    """host_fits() for one request and many hosts, as the scheduler asks:
    a function fits(host_topology, cpu_allocation_ratio,
    ram_allocation_ratio, pci_stats=None) with host_fits()'s answers (True,
    False, or None: ask numa_fit_instance_to_host), the work that depends
    on the request alone (the library request, the profile, nova's packing
    option, the options per pair of ratios, the PCI requests) done once.
    With pci_requests (nova's InstancePCIRequest list) the answer is
    bool(numa_fit_instance_to_host(..., pci_requests, pci_stats[,
    provider_mapping])); None where that asks pci_stats' own
    support_requests (not nova's PciDeviceStats, or pools of providers
    with a provider_mapping) or the library cannot read the devices.  Use
    it for one request: nova's options and the request objects are read
    when it is made."""
    prof = profile()
    try:
        ni = len(instance_topology._obj_cells)
    except (AttributeError, TypeError):
        ni = len(instance_topology) if instance_topology else 0
    req = None
    if ni:
        try:
            req, _vmap = _request_for(instance_topology, prof)
        except _Unsupported:
            pass
    reqs = None
    if pci_requests and req is not None:
        try:
            reqs = _cached_requests(pci_requests)
        except _Unsupported:
            req = None  # every host: ask numa_fit_instance_to_host
    strategy = "pack" if _nova()[3].compute.packing_host_numa_cells_allocation_strategy \
        else "spread"
    optionses = {}
    fit, get, rh = _ffi.fit_addr, _hosts.get, req._h if req is not None else None
    err = byref(_ffi.Error())

    def fits(host_topology, cpu_allocation_ratio, ram_allocation_ratio, pci_stats=None):
        try:
            nh = len(host_topology._obj_cells)
        except (AttributeError, TypeError):
            nh = len(host_topology) if host_topology else 0
        if not (nh and ni and nh >= ni):
            return False
        # pci_stats: without PCI requests its pools order the cells, which
        # does not change whether a placement exists
        if req is None or cpu_allocation_ratio is None or ram_allocation_ratio is None:
            return None
        k = (cpu_allocation_ratio, ram_allocation_ratio)
        opt = optionses.get(k)
        if opt is None:
            opt = optionses[k] = _options_for_ratios(cpu_allocation_ratio,
                                                     ram_allocation_ratio, network_metadata,
                                                     prof, strategy)
        # the host cache's _CHost stays alive while `chost` holds it
        chost = get(host_topology)
        calls[0] += 1
        ok = fit(chost.addr, rh, opt._h, 0, None, err) == 1
        if not ok or reqs is None or pci_stats is None:
            return ok
        # with the devices: only where the library answers for pci_stats
        # (as numa_fit_instance_to_host decides), else None
        try:
            pools, pools_rp = _cached_pools(pci_stats)
        except _Unsupported:
            calls[0] -= 1
            return None
        if not _native_support(pci_stats) or (provider_mapping and pools_rp):
            calls[0] -= 1
            return None
        return fit(chost.addr, rh, _pci_options(opt, pools, reqs)._h, 0, None, err) == 1

    def flush():
        """Add the fits so far to numafit.nova.stats."""
        n, calls[0] = calls[0], 0
        if n:
            _count("library", n=n)
    calls = [0]
    fits.flush = flush
    return fits


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
    cell = _build_cells([instance_cell], pcells, vmap)[0]
    pinlog.log_pinning(hardware.LOG, lambda: [host_cell], [cell])
    return cell


@_translating
def numa_usage_from_instance_numa(host_topology, instance_topology, free=False):
    """nova.virt.hardware.numa_usage_from_instance_numa: a new NUMATopology
    with the instance's usage added (or removed with free=True)."""
    if not host_topology or not instance_topology:
        return host_topology
    _count("library")
    # the placement read from the instance topology's storage (its
    # primitive for an unusual object), claimed on a copy of the host model
    # the filter cached for this object (its content checked afresh; the
    # cached model is never claimed on)
    try:
        pj = placement_json(instance_topology)
    except _Unsupported:
        pj = None
    if pj is None or runtime._VERIFY:
        slow = json.dumps(instance_topology.obj_to_primitive()).encode()
        if pj is not None:
            a, b = _cells_host(host_topology, settle=False).dup(), \
                _cells_host(host_topology, settle=False).dup()
            a.claim(slow, free)
            b.claim(pj, free)
            with a.copy() as x, b.copy() as y:
                assert x.to_dict() == y.to_dict(), "the storage's placement claims otherwise"
        pj = slow
    host = _cells_host(host_topology, settle=False).dup()
    host.claim(pj, free)
    # the new topology is watched from its making, and entered in the host
    # cache with the claimed host: nova's scheduler replaces the host's
    # object by it, and its filter asks about it next
    w = new_watch()
    topo = _usage_topology(host_topology, instance_topology, host, w)
    if w is not None and WATCHES in topo.__dict__:
        _hosts.put_claimed(topo, host, w)
    return topo


# (function, flavor JSON, image JSON, allow_threads) -> the library's
# answer as integers: nova asks about the same few flavors and images again
# and again, and the answer depends on nothing else
_topologies = _SmallCache(1024)


def _topology_answer(kind, flavor, image_meta, allow_threads, compute):
    fj, ij = flavor_json(flavor), image_json(image_meta)
    key = (kind, json.dumps(fj, sort_keys=True),
           None if ij is None else json.dumps(ij, sort_keys=True), allow_threads)
    hit = _topologies.get(key)
    if hit is None:
        hit = _topologies.put(key, compute(fj, ij))
    return hit


def _vcpu_topology(s, c, t):
    """VirtCPUTopology(sockets=s, cores=c, threads=t), built through its
    storage (checked against the constructor once per process)."""
    return _new_object(_nova()[1].VirtCPUTopology, sockets=s, cores=c, threads=t)


@_translating
def get_best_cpu_topology(flavor, image_meta, allow_threads=True):
    _count("library")
    s, c, t = _topology_answer(
        "best", flavor, image_meta, allow_threads,
        lambda fj, ij: _cpu.best_cpu_topology(fj, ij, allow_threads=allow_threads))
    return _vcpu_topology(s, c, t)


@_translating
def _get_desirable_cpu_topologies(flavor, image_meta, allow_threads=True):
    _count("library")
    return [_vcpu_topology(s, c, t) for s, c, t in _topology_answer(
        "list", flavor, image_meta, allow_threads,
        lambda fj, ij: tuple(_cpu.cpu_topologies(fj, ij, allow_threads=allow_threads)))]


@_translating
def get_cpu_topology_constraints(flavor, image_meta):
    """nova.virt.hardware.get_cpu_topology_constraints: (preferred, maximum)
    VirtCPUTopology objects, nova's integers exactly."""
    _count("library")
    return tuple(_vcpu_topology(s, c, t) for s, c, t in _topology_answer(
        "constraints", flavor, image_meta, None, _cpu.cpu_topology_constraints))


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
