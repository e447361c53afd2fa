"""The adapter's caches: numafit Hosts built from nova NUMATopology objects
(found by object and fingerprint, or by content), Requests by the fields of
an InstanceNUMATopology, Options by limits, profile and strategy."""
import collections
import json
import threading
import weakref
from ctypes import byref, c_void_p

from .. import _ffi
from ..fit import Options
from ..host import Host, cell_usage_of
from ..request import Request
from . import runtime
from .convert import (_U, _fs, _host_records, _host_snapshot, _host_unchanged, _is_ovo,
                      limits_json, request_flavor)
from .runtime import _nova, _Unsupported
from .watch import Watch, install as _install_watches, watch as _watch


def _watches_on():
    """Watches installed (numafit.nova.watch.install, once per process)?"""
    try:
        return _install_watches(_nova()[1])
    except Exception:
        return False


def new_watch():
    """A Watch not yet on anything, or None without watches."""
    return Watch() if _watches_on() else None


def watch(topo):
    """A Watch on a host NUMATopology (numafit.nova.watch), or None."""
    return _watch(topo) if _watches_on() else None


def _free_host(addr):
    try:
        _ffi.host_free_addr(addr)
    except Exception:  # interpreter shutdown
        pass


class _AddrRef(weakref.ref):
    """A weak reference to a _CHost that frees its address when the _CHost
    goes: Python clears every weak reference to an object before it calls
    their callbacks, so another thread can no longer take the _CHost out
    of a weak cache (_HostCache._content) while the callback frees it (a
    __del__ would run before they are cleared: a fit could run on a freed
    host).  One object per _CHost, where weakref.finalize makes five: a
    cache of thousands stays light for the garbage collector."""
    __slots__ = ("addr",)


_live_refs = set()  # the _AddrRefs of live _CHosts (a callback needs its ref alive)


def _addr_gone(ref):
    try:
        _live_refs.discard(ref)
    except Exception:  # interpreter shutdown
        pass
    _free_host(ref.addr)


class _CHost:
    """A library host only the adapter holds, by its address (an int): no
    lock and no Python objects besides this one and its _AddrRef, so a
    cache of thousands does not feed the cyclic garbage collector (a
    numafit.Host carries a lock, a condition and their dicts).  Freed when
    the last reference goes.  The host cache's _CHosts are only read (fits);
    a claim works on its own dup()."""
    __slots__ = ("addr", "__weakref__")

    def __init__(self, addr):
        self.addr = addr
        if addr:
            r = _AddrRef(self, _addr_gone)
            r.addr = addr
            _live_refs.add(r)

    @classmethod
    def from_records(cls, rec, names):
        a, err = c_void_p(), _ffi.Error()
        buf, n = rec.buffer_info()
        _ffi.host_new_from_records_addr(buf, n, names, len(names), 0, byref(a), byref(err))
        return cls(a.value)

    @classmethod
    def adopt(cls, host):
        """The handle of a numafit.Host, taken over (the Host is closed)."""
        with _ffi.hold(host, write=host) as (h,):
            addr = _ffi.address(h)
            host._h = None
        return cls(addr)

    def copy(self):
        """A numafit.Host with the same content, the caller's own."""
        h = _ffi.HostP()
        _ffi.host_dup_addr(self.addr, byref(h))
        return Host(h)

    def to_dict(self):
        """numafit.Host.to_dict() of this content."""
        with self.copy() as h:
            return h.to_dict()

    def dup(self):
        """A _CHost with the same content, the caller's own (to claim on)."""
        a = c_void_p()
        _ffi.host_dup_raw(self.addr, byref(a))
        return _CHost(a.value)

    def claim(self, placement_json, free=False):
        """Claim (or with free, release) the placement given as JSON text
        (bytes) on this host: all or nothing; raises numafit.errors (nova's
        exception names) on a conflict."""
        p, err = c_void_p(), _ffi.Error()
        _ffi.placement_new_from_json_addr(placement_json, len(placement_json), 0, byref(p),
                                          byref(err))
        try:
            (_ffi.host_release_addr if free else _ffi.host_claim_addr)(self.addr, p, 0,
                                                                        byref(err))
        finally:
            _ffi.placement_free_addr(p)

    def cell_usage(self, index):
        """numafit.Host.cell_usage() of the cell at index."""
        return cell_usage_of(_ffi.host_get_cell_usage_addr, self.addr, index)


class _KeyRef(weakref.ref):
    """A host cache entry's weak reference to its topology, with the
    entry's key (the topology's id) for purge()."""
    __slots__ = ("key",)


_TWICE = object()  # a host cache entry's object seen twice: no snapshot yet


def _retire(entry):
    """An entry leaves the cache: its watch (if any) is marked dirty, so
    that the objects it is on drop it (nested objects a claimed topology
    shares with its predecessor would otherwise gather the watches of
    every generation)."""
    if entry is not None and type(entry[1]) is Watch:
        entry[1].dirty = True


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


class _Born:
    """The key slot of a put_born entry before its first sight: the column
    text the object was read from (never equal to a records key)."""
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


class _HostCache:
    """numafit Hosts built from nova NUMATopology objects.  The scheduler
    asks about the same host_state.numa_topology for many requests, and
    rebuilds it from the database with the same content; building a Host
    every time would cost far more than the fit.

    An entry is found by the object's id and used only if it is the same
    object (weak reference) whose content is still the entry's: on the
    second and third calls its records are written again and compared (and
    on the third a copy of the cells' storage and of their nested objects'
    is kept); from the fourth call on that storage is compared with the
    copies (in C: dict and set
    equality; nova changes these objects in place, and any change, even of
    the changed-fields set, counts).  Otherwise the cells are written as
    the library's integer records; a Host of the same records is reused
    (another object of the same content, or this one changed back), or one
    is built from them (numafit_host_new_from_records, no JSON).  Objects
    the adapter builds itself come watched from their making (put_born,
    put_claimed).  Fits only read these Hosts; nothing claims on them."""

    # Enough for a 10,000-host fleet: a smaller bound than the fleet thrashes
    # (the scheduler asks about every host for every request, so an LRU of
    # 2048 entries missed every time on 3000 hosts: the filter fell to
    # nova's speed).  Entries exist only for live objects: an entry goes when
    # its object goes (a weak reference's callback), so objects replaced on
    # every update hold no memory here.
    MAX = 16384
    # column texts kept (put_born): a compute claim reads one text twice in
    # a row; the scheduler's sights of an object go through its entry above
    TEXTS = 64

    def __init__(self):
        self._lock = threading.Lock()
        # id -> (weakref, snapshot (or None, _TWICE: seen once, twice), _CHost,
        # records)
        self._items = collections.OrderedDict()
        # the _KeyRefs of topologies that are gone (their callback appends:
        # it may run inside any allocation, even one in the middle of an
        # OrderedDict operation); purge() drops their entries
        self._dead = []
        # (records, names) -> _CHost, while an entry above holds it
        self._content = weakref.WeakValueDictionary()
        # column text -> (the _CHost of its content or None, a weak
        # reference to the last object read from it, that object's watch),
        # for a few recent texts
        self._texts = _SmallCache(self.TEXTS)

    def get(self, topo, settle=True):
        """The _CHost of topo's content.  settle=False: this sight does not
        move the object on to the next stage (a claim's usage, which comes
        right after the claim's fit and before nova replaces the object,
        would pay for a watch nothing uses)."""
        if not _is_ovo(topo):
            return _CHost.adopt(Host.from_json(topo.obj_to_primitive()))
        k = id(topo)
        hit = self._items.get(k)
        if hit is not None and hit[0]() is topo:
            ref, snap, host, ck = hit
            if type(snap) is Watch:
                if not snap.dirty:
                    if host is not None:
                        return host
                    # born watched (put_born), first sight: its records
                    # now (the watch began before them), the watch goes on
                    try:
                        rec, names = _host_records(topo)
                    except Exception:
                        rec = None
                    if rec is not None:
                        born, ck = ck, (rec.tobytes(), names)
                        host = self._host_of(ck, rec, names, topo)
                        with self._lock:
                            if self._items.get(k) is hit:
                                self._items[k] = (ref, snap, host, ck)
                                self._content[ck] = host
                        if type(born) is _Born and not snap.dirty:
                            # (the records were read under the watch: a
                            # change since their reading would show here)
                            t = self._texts.get(born.text)
                            self._texts.put(born.text, (host,) + (t[1:] if t else (None, None)))
                        return host
                snap = _TWICE  # changed since: its records again, a new watch
            if snap is None or snap is _TWICE:
                # seen once or twice (or changed under a watch): its records
                # then, compared with its records now (an object used once
                # or twice, as a claim's fit and usage, never pays for a
                # watch or a snapshot); from the third sight on, watched
                # (numafit.nova.watch), or, where a watch cannot cover it,
                # its storage copied. The watch begins before the records
                # are read: a change after it is marked, one before it is
                # in the records.
                w = watch(topo) if snap is _TWICE and settle else None
                try:
                    rec, names = _host_records(topo)
                except Exception:
                    rec = None
                if rec is not None and (rec.tobytes(), names) == ck:
                    if not settle:
                        return host
                    if snap is None:
                        snap = _TWICE
                    elif w is not None:
                        snap = w
                    else:
                        try:
                            snap = _host_snapshot(topo)
                        except Exception:
                            return host
                    with self._lock:
                        if self._items.get(k) is hit:
                            self._items[k] = (ref, snap, host, ck)
                    return host
                if w is not None:
                    w.dirty = True  # not used: let the objects drop it
            elif _host_unchanged(topo, snap):
                return host
        try:
            rec, names = _host_records(topo)
            ref = _KeyRef(topo, self._dead.append)
            ref.key = k
        except Exception:  # an unusual object: nova's primitive, not cached
            return _CHost.adopt(Host.from_json(topo.obj_to_primitive()))
        ck = (rec.tobytes(), names)
        if self._dead:
            self.purge()
        host = self._host_of(ck, rec, names, topo)
        with self._lock:
            _retire(self._items.get(k))
            self._items[k] = (ref, None, host, ck)
            self._items.move_to_end(k)
            self._content[ck] = host
            while len(self._items) > self.MAX:
                _retire(self._items.popitem(last=False)[1])
        return host

    def _host_of(self, ck, rec, names, topo):
        """The _CHost of records rec and names (ck: their key): one of the
        same content, or a new one."""
        with self._lock:
            host = self._content.get(ck)
        if host is None:
            host = _CHost.from_records(rec, names)
            if runtime._VERIFY:
                with Host.from_json(topo.obj_to_primitive()) as slow, host.copy() as fast:
                    assert fast.to_dict() == slow.to_dict(), "host records differ"
        return host

    def put_born(self, topo, w, text=None):
        """Enter a NUMATopology the adapter has just built from its column
        text (numafit.nova.column), watched by w from its making: its first
        sight writes its records and finds or builds its library host, and
        the sights after it cost a watch check (without it the second and
        third sights write the records again, as for any object not
        watched yet: a scheduler's first requests after every update, and
        the fit and the usage of every claim).  With the column text, the
        library host of an object read from the same text a little earlier
        is used from the start (nova's resource tracker reads the column
        twice per claim, for the claim's test and for the usage update),
        the host built at the first sight is kept for the text, and topo is
        the text's last object (like(); a few recent texts: _texts)."""
        k = id(topo)
        ref = _KeyRef(topo, self._dead.append)
        ref.key = k
        host = None
        if text is not None:
            t = self._texts.get(text)
            host = t[0] if t else None
            self._texts.put(text, (host, weakref.ref(topo), w))
        ck = None if host is not None or text is None else _Born(text)
        if self._dead:
            self.purge()
        with self._lock:
            _retire(self._items.get(k))
            self._items[k] = (ref, w, host, ck)
            self._items.move_to_end(k)
            while len(self._items) > self.MAX:
                _retire(self._items.popitem(last=False)[1])

    def put_claimed(self, topo, host, w):
        """Enter a NUMATopology the adapter built from a claimed numafit
        Host (numa_usage_from_instance_numa), watched by w since it was
        built: nova's scheduler puts it in place of the host's old object,
        and the filter then checks it for every request.  Its sights cost
        a watch check from the first on, with no records and no library
        host to build.  host (a _CHost: the claim's own dup()) is kept and
        never claimed on again.  The entry has no records: once the object
        changes, it is built afresh."""
        k = id(topo)
        try:
            ref = _KeyRef(topo, self._dead.append)
            ref.key = k
        except TypeError:
            return
        if runtime._VERIFY:
            rec, names = _host_records(topo)
            with _CHost.from_records(rec, names).copy() as slow, host.copy() as fast:
                assert slow.to_dict() == fast.to_dict(), "claimed host differs"
        chost = host
        if self._dead:
            self.purge()
        with self._lock:
            _retire(self._items.get(k))
            self._items[k] = (ref, w, chost, None)
            self._items.move_to_end(k)
            while len(self._items) > self.MAX:
                _retire(self._items.popitem(last=False)[1])

    def like(self, text):
        """(the last object put_born() entered for column text, its watch)
        while that object lives and is unchanged (its watch clean), else
        (None, None)."""
        t = self._texts.get(text)
        if t is None or t[1] is None or t[2].dirty:
            return None, None
        obj = t[1]()
        return (obj, t[2]) if obj is not None else (None, None)

    def purge(self):
        """Drop the entries of topologies that are gone."""
        with self._lock:
            while self._dead:
                ref = self._dead.pop()
                hit = self._items.get(ref.key)
                if hit is not None and hit[0] is ref:
                    _retire(hit)
                    del self._items[ref.key]

    def clear(self):
        with self._lock:
            for hit in self._items.values():
                _retire(hit)
            self._items.clear()
            self._content.clear()
            self._texts.clear()
            del self._dead[:]


_hosts = _HostCache()


def _cells_host(host_topology, settle=True):
    """The library host (_CHost) of a nova NUMATopology (cached; fits only
    read it)."""
    return _hosts.get(host_topology, settle)


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
    InstanceNUMATopology; raises _Unsupported.  Found by the content
    (_request_key: a few microseconds for the fields of a cell or two),
    never by the object: nova changes these objects in place, and copies
    of an object's storage to tell would outlive it and feed the garbage
    collector."""
    key = _request_key(instance_topology, profile_)
    value = _requests.get(key) if key is not None else None
    if value is None:
        flavor, vmap = request_flavor(instance_topology)
        req = Request.from_json(json.dumps(flavor), None, profile_)
        if not req.has_numa:
            req.close()
            raise _Unsupported("the flavor gives no NUMA topology")
        value = (req, vmap)
        if key is not None:
            _requests.put(key, value)
    return value


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


def _cached_options(limits_key, make_limits, profile_, strategy=None):
    """The Options of these limits (make_limits() gives their JSON form,
    called only on a miss), profile and nova's packing strategy (read from
    nova's options when not given)."""
    if strategy is None:
        strategy = "pack" if _nova()[3].compute.packing_host_numa_cells_allocation_strategy \
            else "spread"
    key = (limits_key, profile_, strategy)
    hit = _optionses.get(key)
    if hit is None:
        hit = _optionses.put(key, Options(make_limits(), profile_, strategy))
    return hit


def _options_for(limits, profile_):
    return _cached_options(_limits_key(limits), lambda: limits_json(limits), profile_)


def _options_for_ratios(cpu_ratio, ram_ratio, network_metadata, profile_, strategy=None):
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
    return _cached_options((cpu_ratio, ram_ratio, nm), make_limits, profile_, strategy)
