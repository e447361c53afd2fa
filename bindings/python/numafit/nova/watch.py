"""Change watches on nova's host NUMA objects: is this NUMATopology, and
everything in it a fit reads, exactly as it was when the watch began?

The host cache (numafit.nova.cache) must never answer from a library host
built from an object that has changed since; nova and its tests change
these objects in place.  Comparing an object's storage with a copy costs
little in a loop over one host, but the scheduler asks about every host of
the fleet for every request, and then every compare touches objects that
are no longer in the CPU caches (on the 2-vCPU build machine: 12 to 20 us
for a 2-cell host, 70 to 110 us for 24 cells, whatever the compare does).

A watch makes the check one attribute read.  Every way of changing what a
fit reads goes through Python code that can tell the watch:
  * a field set or deleted on a NUMATopology, NUMACell, NUMAPagesTopology
    or NetworkMetadata goes through the property oslo.versionedobjects
    makes for each field; install() wraps those setters and deleters;
  * a set or list field holds one of oslo's coerced collections
    (CoercedSet, CoercedList: a set or list subclass that coerces what is
    added); install() wraps their mutating methods (oslo's own and the
    set's and list's others: discard, pop, clear, sort, del ...).
The objects and collections of a watched topology keep their watches in
their instance dict, under WATCHES; a wrapped method or setter marks them
changed (dirty) and drops them once it has changed the thing (also when it
raised half-way).  Everything else pays one dict lookup per change.

This is the approach of ORMs that instrument their collections; it
changes no type, no value and no behaviour of nova's objects (their
copies, clones and primitives carry no watch; a pickle carries dirty
ones, which nothing waits on).  Objects a watch cannot
cover (a plain set stored directly, a class not wrapped) get none: the
cache then compares their storage as before.  NUMAFIT_NOVA_WATCH=0 in the
environment turns watches off.
"""
import os
import threading

WATCHES = "_numafit_watches"


class Watch:
    """One host cache entry's watch: dirty once anything watched changed.
    A copy of it (a pickle or a deep copy of a watched collection, which
    copy its instance dict) is a dirty one: nothing waits on it."""
    __slots__ = ("dirty",)

    def __init__(self):
        self.dirty = False

    def __reduce__(self):
        return (_dead, ())


def _dead():
    w = Watch()
    w.dirty = True
    return w


def _mark(d):
    """A watched thing in d (an instance dict) has changed: its watches are
    dirty, and it holds them no longer.  Called after the change (also when
    it raised half-way), under the lock that attach takes: a watch being
    attached meanwhile is either marked here or attached after the change,
    and then whoever attached it reads the changed content."""
    with _lock:
        ws = d.pop(WATCHES, None)
        if ws:
            for w in ws:
                w.dirty = True


# methods that change a set or a list; wrapped where the class has them
_SET_METHODS = ("add", "update", "symmetric_difference_update", "discard", "remove", "pop",
                "clear", "difference_update", "intersection_update", "__ior__", "__ixor__",
                "__iand__", "__isub__")
_LIST_METHODS = ("__setitem__", "__delitem__", "append", "extend", "insert", "__iadd__",
                 "__imul__", "pop", "remove", "clear", "sort", "reverse")

_lock = threading.Lock()
_state = {"installed": None, "collections": (), "classes": ()}


def _wrap_method(cls, name):
    orig = getattr(cls, name)

    def method(self, *args, **kwargs):
        try:
            return orig(self, *args, **kwargs)
        finally:
            d = getattr(self, "__dict__", None)
            if d is not None and WATCHES in d:
                _mark(d)
    method.__name__ = name
    method.__qualname__ = "%s.%s" % (cls.__name__, name)
    method.__doc__ = getattr(orig, "__doc__", None)
    method._numafit_orig = orig
    setattr(cls, name, method)


class _WatchedField(property):
    """A field's property whose setter and deleter tell the watches."""


def _wrap_property(cls, name, prop):
    fset, fdel = prop.fset, prop.fdel

    def setter(self, value):
        try:
            fset(self, value)
        finally:
            d = self.__dict__
            if WATCHES in d:
                _mark(d)

    def deleter(self):
        try:
            fdel(self)
        finally:
            d = self.__dict__
            if WATCHES in d:
                _mark(d)
    setattr(cls, name, _WatchedField(prop.fget, setter if fset else None,
                                     deleter if fdel else None, prop.__doc__))


def install(objects):
    """Wrap the setters of the four NUMA classes of nova's objects module
    and oslo's coerced sets and lists, once per process.  True when watches
    can be used."""
    if _state["installed"] is not None:
        return _state["installed"]
    with _lock:
        if _state["installed"] is not None:
            return _state["installed"]
        if os.environ.get("NUMAFIT_NOVA_WATCH", "1") == "0":
            _state["installed"] = False
            return False
        try:
            from oslo_versionedobjects import fields as ofields
            colls = (ofields.CoercedSet, ofields.CoercedList)
            classes = tuple(getattr(objects, n) for n in
                            ("NUMATopology", "NUMACell", "NUMAPagesTopology", "NetworkMetadata"))
            props = []
            for cls in classes:
                for name in cls.fields:
                    prop = None
                    for k in cls.__mro__:
                        if name in k.__dict__:
                            prop = k.__dict__[name]
                            break
                    if not isinstance(prop, property) or prop.fset is None:
                        raise TypeError("%s.%s is not a field property" % (cls.__name__, name))
                    props.append((cls, name, prop))
        except Exception:
            _state["installed"] = False
            return False
        for cls, name, prop in props:
            if not isinstance(prop, _WatchedField):
                _wrap_property(cls, name, prop)
        for cls, methods in ((colls[0], _SET_METHODS), (colls[1], _LIST_METHODS)):
            for name in methods:
                if hasattr(cls, name) and not hasattr(getattr(cls, name), "_numafit_orig"):
                    _wrap_method(cls, name)
        _state["collections"], _state["classes"] = colls, classes
        _state["installed"] = True
        return True


def collections():
    """oslo's (CoercedSet, CoercedList) once watches are installed, else
    None."""
    return _state["collections"] if _state["installed"] else None


def attach(things, w):
    """Watch each of things (objects of the watched classes, oslo's coerced
    collections) with w."""
    with _lock:
        _attach_locked(things, w)


def _attach_locked(things, w):
    for t in things:
        d = t.__dict__
        ws = d.get(WATCHES)
        if ws is None:
            d[WATCHES] = [w]
        elif ws[-1] is not w:  # (things of one claimed topology share a list)
            ws[:] = [x for x in ws if not x.dirty]
            ws.append(w)


def _things(topo):
    """The topology, its cells list, each cell, its sets and lists (the
    sibling sets too), its page entries, its network metadata and its
    physnets; None when one of them cannot be watched."""
    colls, classes = _state["collections"], _state["classes"]
    topo_cls, cell_cls, page_cls, nm_cls = classes
    things = []
    if type(topo) is not topo_cls:
        return None
    things.append(topo)
    cells = topo.__dict__.get("_obj_cells")
    if cells is None:
        return things
    if not isinstance(cells, colls[1]):
        return None
    things.append(cells)
    for c in cells:
        if type(c) is not cell_cls:
            return None
        things.append(c)
        d = c.__dict__
        for k in ("_obj_cpuset", "_obj_pcpuset", "_obj_pinned_cpus"):
            v = d.get(k)
            if v is not None:
                if not isinstance(v, colls[0]):
                    return None
                things.append(v)
        # the lists and what they hold: sibling sets, page entries
        for k, member_ok in (("_obj_siblings", lambda x: isinstance(x, colls[0])),
                             ("_obj_mempages", lambda x: type(x) is page_cls)):
            v = d.get(k)
            if v is not None:
                if not isinstance(v, colls[1]) or not all(map(member_ok, v)):
                    return None
                things.append(v)
                things.extend(v)
        nm = d.get("_obj_network_metadata")
        if nm is not None:
            if type(nm) is not nm_cls:
                return None
            things.append(nm)
            ph = nm.__dict__.get("_obj_physnets")
            if ph is not None:
                if not isinstance(ph, colls[0]):
                    return None
                things.append(ph)
    return things


def watch(topo):
    """A new Watch on a host NUMATopology and everything in it a fit reads
    (_things).  None when something in it cannot be watched (install()
    failed, a plain collection, an object of another class): the caller
    compares storage instead.  Read what the watch covers only after this
    call: a change after it marks the watch.  (If the topology's make-up
    changed while the watch was being attached, by another thread, the
    watch comes back dirty.)"""
    if not _state["installed"]:
        return None
    try:
        things = _things(topo)
        if things is None:
            return None
        w = Watch()
        attach(things, w)
        again = _things(topo)
        if again is None or len(again) != len(things) or \
                any(a is not b for a, b in zip(again, things)):
            w.dirty = True
    except Exception:
        return None
    return w


def unwatched(d):
    """A copy of an instance dict without its watches (clones of watched
    objects and collections must not share them)."""
    if WATCHES in d:
        d = dict(d)
        del d[WATCHES]
    return d
