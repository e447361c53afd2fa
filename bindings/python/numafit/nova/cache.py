"""The adapter's caches: numafit Hosts built from nova NUMATopology objects
(found by object and fingerprint, or by content), Requests by the fields of
an InstanceNUMATopology, Options by limits, profile and strategy."""
import collections
import json
import threading
import weakref

from ..fit import Options
from ..host import Host
from ..request import Request
from . import runtime
from .convert import (_U, _fs, _host_primitive, _host_snapshot, _host_view, _is_ovo,
                      limits_json, request_flavor)
from .runtime import _nova, _Unsupported


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

    # Enough for a 10,000-host fleet: a smaller bound than the fleet thrashes
    # (the scheduler asks about every host for every request, so an LRU of
    # 2048 entries missed every time on 3000 hosts: the filter fell to
    # nova's speed). An entry costs about 40 KB with the real-host fixtures
    # (nova's own objects for the same host: about 90 KB); entries exist
    # only for hosts the process has seen.
    MAX = 16384

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
            if runtime._VERIFY:
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


def _cached_options(limits_key, make_limits, profile_):
    """The Options of these limits (make_limits() gives their JSON form,
    called only on a miss), profile and nova's packing strategy."""
    strategy = "pack" if _nova()[3].compute.packing_host_numa_cells_allocation_strategy \
        else "spread"
    key = (limits_key, profile_, strategy)
    hit = _optionses.get(key)
    if hit is None:
        hit = _optionses.put(key, Options(make_limits(), profile_, strategy))
    return hit


def _options_for(limits, profile_):
    return _cached_options(_limits_key(limits), lambda: limits_json(limits), profile_)


def _options_for_ratios(cpu_ratio, ram_ratio, network_metadata, profile_):
    """_options_for() of NUMATopologyLimits(cpu_allocation_ratio=cpu_ratio,
    ram_allocation_ratio=ram_ratio[, network_metadata=...]) without
    building that object: the same cache key, the same Options."""
    nm = _U
    if network_metadata is not None:
        nd = network_metadata.__dict__
        nm = (_fs(nd.get("_obj_physnets", _U)), nd.get("_obj_tunneled", _U))

    def make_limits():
        limits = {"cpu_allocation_ratio": cpu_ratio, "ram_allocation_ratio": ram_ratio}
        if nm is not _U:
            limits["network_metadata"] = {
                "physnets": sorted(nm[0]) if nm[0] is not _U else [],
                "tunneled": bool(nm[1]) if nm[1] is not _U else False}
        return limits
    return _cached_options((cpu_ratio, ram_ratio, nm), make_limits, profile_)
