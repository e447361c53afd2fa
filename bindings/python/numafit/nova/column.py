"""The compute node's numa_topology column, read and written faster:
NUMATopology.obj_from_db_obj and NUMATopology._to_json.

nova's resource tracker reads the column (obj_from_db_obj) twice per claim
(the claim's NUMA test, then the usage update) and writes it once
(_to_json), and nova's scheduler reads it for every host whose record
changed. oslo.versionedobjects does this field by field, coercing every
element of every set through the field's type: for a two-cell host that
is 80 % of a compute claim. Here the same objects are built and the same
text written by walking the four classes of the column (NUMATopology,
NUMACell, NUMAPagesTopology, NetworkMetadata) with their field kinds:
the same collections (oslo's CoercedSet and CoercedList, bound to their
object and field, filled in the same order), the same instance VERSION,
the same changed fields, the same primitive and JSON text.

Anything unusual - another namespace, object name or version than the
installed classes', a value of another type than the field's (a float in
an integer field, a bool in an integer field), a field kind not listed,
oslo's obj_to_primitive or obj_from_primitive replaced (as oslo's
StableObjectJsonFixture in nova's tests does) - goes to nova's own
method, which gives nova's answer or error. Both are
checked against nova's own once per process (and on every call under
numafit.nova._VERIFY: the objects' storage and the text); if they ever
differ, nova's own are used from then on and a warning is logged.
"""
import json
import logging

from . import runtime
from .cache import _hosts, new_watch
from .convert import _state, owner
from .runtime import _nova
from .watch import WATCHES, attach

LOG = logging.getLogger(__package__)

METHODS = ("NUMATopology.obj_from_db_obj", "NUMATopology._to_json")


class _Slow(Exception):
    """The input needs nova's own method."""


_kinds = None  # class name -> (class, [(field name, kind, field, extra)])
_CoercedList = _CoercedSet = None  # oslo's collection classes, set with _kinds


def _field_kinds():
    """For each class of the column, its fields and how each is built:
    int, bool, set (of ints or strs), sets (a list of sets of ints),
    object, objects (a list of objects)."""
    global _kinds
    if _kinds is not None:
        return _kinds
    global _CoercedList, _CoercedSet
    objects = _nova()[1]
    from oslo_versionedobjects import fields as F
    _CoercedList, _CoercedSet = F.CoercedList, F.CoercedSet
    out = {}
    for cls in (objects.NUMATopology, objects.NUMACell, objects.NUMAPagesTopology,
                objects.NetworkMetadata):
        spec = []
        for name, field in cls.fields.items():
            t = field._type
            if type(t) is F.Integer:
                kind, extra = "int", None
            elif type(t) is F.Boolean:
                kind, extra = "bool", None
            elif type(t) is F.Set and type(t._element_type._type) in (F.Integer, F.String):
                kind, extra = "set", (t._element_type,
                                      int if type(t._element_type._type) is F.Integer else str)
            elif type(t) is F.List and type(t._element_type._type) is F.Set and \
                    type(t._element_type._type._element_type._type) is F.Integer:
                kind, extra = "sets", (t._element_type, t._element_type._type._element_type)
            elif type(t) is F.Object:
                kind, extra = "object", t._obj_name
            elif type(t) is F.List and type(t._element_type._type) is F.Object:
                kind, extra = "objects", (t._element_type, t._element_type._type._obj_name)
            else:
                raise _Slow("field %s.%s" % (cls.__name__, name))
            spec.append((name, kind, field, extra))
        out[cls.__name__] = (cls, spec)
    _kinds = out
    return out


def _coerced_set(element_type, own, attr, values, wl=None):
    """A CoercedSet as oslo's Set.coerce makes it from the set
    Set.from_primitive gives (the same sets in between, so the same
    iteration order), without its constructor (which sets the three
    attributes enable_coercing then sets)."""
    a = set(values)
    b = set()
    for e in a:
        b.add(e)
    s = set.__new__(_CoercedSet)
    s.__dict__ = {"_element_type": element_type, "_obj": own, "_field": attr}
    if wl is not None:
        s.__dict__[WATCHES] = wl
    set.update(s, b)
    return s


def _all(values, t):
    """Every item of list `values` of type t exactly (no bool for int)."""
    return not values or set(map(type, values)) == {t}


# a host cell's collections nova never changes after discovery: an object
# read from a column text shares them with an unchanged object read from the
# same text before (numafit.nova.convert shares the same with a claimed
# topology)
_SHARED = frozenset(("cpuset", "pcpuset", "siblings"))


def _build(prim, want, wl=None, like=None, shared=None):
    """The object of class name `want` that oslo's obj_from_primitive makes
    of primitive `prim`, it and everything in it watched by the watches of
    list wl (or None); raises _Slow for anything unusual.  like: an
    unchanged object built from the same primitive (or None): its cells'
    collections of _SHARED are used instead of new ones, and appended (with
    the sets in them) to the list shared."""
    if type(prim) is not dict or prim.get("nova_object.namespace") != "nova" or \
            prim.get("nova_object.name") != want:
        raise _Slow("object")
    cls, spec = _kinds[want]
    version = prim.get("nova_object.version")
    data = prim.get("nova_object.data")
    changes = prim.get("nova_object.changes", [])
    if version != cls.VERSION or type(data) is not dict or type(changes) is not list:
        raise _Slow("version")
    obj = cls.__new__(cls)
    own = owner(obj)  # the collections' owner: no reference cycle (convert._Owner)
    d = obj.__dict__
    d["_changed_fields"] = set()
    d["_context"] = None
    d["VERSION"] = version
    if wl is not None:
        d[WATCHES] = wl
    ld = like.__dict__ if like is not None else None
    for name, kind, field, extra in spec:
        if name not in data:
            continue
        v = data[name]
        if ld is not None and name in _SHARED and want == "NUMACell":
            lv = ld.get("_obj_" + name)
            t = type(lv)
            if v is not None and (t is _CoercedSet or t is _CoercedList) and len(lv) == len(v):
                shared.append(lv)
                if t is _CoercedList:
                    shared.extend(lv)
                d["_obj_" + name] = lv
                continue
        if v is None:
            if not field.nullable:
                raise _Slow("null")
        elif kind == "int":
            if type(v) is not int:
                raise _Slow("int")
        elif kind == "bool":
            if type(v) is not bool:
                raise _Slow("bool")
        elif kind == "set":
            et, t = extra
            if type(v) is not list or not _all(v, t):
                raise _Slow("set")
            v = _coerced_set(et, own, name, v, wl)
        elif kind == "sets":
            et, it = extra
            if type(v) is not list:
                raise _Slow("sets")
            out = list.__new__(_CoercedList)
            out.__dict__ = {"_element_type": et, "_obj": own, "_field": name}
            if wl is not None:
                out.__dict__[WATCHES] = wl
            for i, x in enumerate(v):
                if type(x) is not list or not _all(x, int):
                    raise _Slow("sets")
                list.append(out, _coerced_set(it, own, "%s[%i]" % (name, i), x, wl))
            v = out
        elif kind == "object":
            v = _build(v, extra, wl)
        else:  # objects
            et, oname = extra
            if type(v) is not list:
                raise _Slow("objects")
            out = list.__new__(_CoercedList)
            out.__dict__ = {"_element_type": et, "_obj": own, "_field": name}
            if wl is not None:
                out.__dict__[WATCHES] = wl
            likes = ld.get("_obj_" + name) if ld is not None and name == "cells" else None
            if likes is not None and len(likes) == len(v):
                list.extend(out, [_build(x, oname, wl, lk, shared) for x, lk in zip(v, likes)])
            else:
                list.extend(out, [_build(x, oname, wl) for x in v])
            v = out
        d["_obj_" + name] = v
    fields = cls.fields
    d["_changed_fields"] = set([x for x in changes if x in fields])
    return obj


def _primitive(obj):
    """oslo's obj_to_primitive() of a column object (no target version),
    read from its storage; raises _Slow for anything unusual."""
    cls = type(obj)
    entry = _kinds.get(cls.__name__)
    if entry is None or entry[0] is not cls:
        raise _Slow("class")
    d = obj.__dict__
    data = {}
    nested_changed = []
    for name, kind, field, extra in entry[1]:
        key = "_obj_" + name
        if key not in d:
            continue
        v = d[key]
        if v is None:
            pass
        elif kind in ("int", "bool"):
            if type(v) is not (int if kind == "int" else bool):
                raise _Slow("int")
        elif kind == "set":
            v = tuple(v)
        elif kind == "sets":
            v = [tuple(x) for x in v]
        elif kind == "object":
            if v.obj_what_changed():
                nested_changed.append(name)
            v = _primitive(v)
        else:
            v = [_primitive(x) for x in v]
        data[name] = v
    version = d.get("VERSION", cls.VERSION)
    out = {"nova_object.name": cls.obj_name(), "nova_object.namespace": "nova",
           "nova_object.version": version, "nova_object.data": data}
    fields = cls.fields
    changed = set([f for f in d.get("_changed_fields", ()) if f in fields])
    changed.update(nested_changed)
    if changed:
        changes = [f for f in changed if f in data]
        if changes:
            out["nova_object.changes"] = changes
    return out


_checked = None  # None: not compared with nova's yet; then whether they agree


def _agree(fast, slow, what):
    """Compare a fast result with nova's once per process (always under
    _VERIFY); on a difference use nova's from then on."""
    global _checked
    if fast != slow:
        if runtime._VERIFY:
            raise AssertionError("%s differs from nova's: %r != %r" % (what, fast, slow))
        LOG.warning("numafit.nova: %s differs from nova's own with this nova and "
                    "oslo.versionedobjects; using nova's", what)
        _checked = False
        return False
    _checked = True
    return True


def _functions(owner, names):
    """The functions behind owner's attributes `names` (classmethods and
    bound methods unwrapped)."""
    out = []
    for name in names:
        f = getattr(owner, name)
        out.append(getattr(f, "__func__", f))
    return out


try:  # oslo's own methods, as they are when numafit.nova is imported
    from oslo_versionedobjects.base import VersionedObject as _VO
    _OSLO = {n: f for n, f in zip(
        ("obj_from_primitive", "_obj_from_primitive", "obj_to_primitive", "obj_what_changed"),
        _functions(_VO, ("obj_from_primitive", "_obj_from_primitive", "obj_to_primitive",
                         "obj_what_changed")))}
except ImportError:
    _OSLO = {}


def _oslo_own(names):
    """Whether the four classes still use oslo.versionedobjects' own
    methods `names` (a test fixture such as oslo's
    StableObjectJsonFixture, which sorts the changed fields, or a class of
    its own may replace them: then nova's path is the answer)."""
    for cls, _ in _kinds.values():
        for name, f in zip(names, _functions(cls, names)):
            if f is not _OSLO.get(name):
                return False
    return True


def _original(name, owner):
    """nova's own method `name` ("NUMATopology.<method>") bound to owner
    (a class for a classmethod, an instance otherwise)."""
    saved = runtime._saved.get(name)
    if saved is None:  # not patched: the class's own
        saved = _nova()[1].NUMATopology.__dict__[name.split(".", 1)[1]]
    return saved.__get__(owner if not isinstance(owner, type) else None,
                         owner if isinstance(owner, type) else type(owner))


def obj_from_db_obj(cls, db_obj):
    """NUMATopology.obj_from_db_obj (a classmethod of nova's): the
    NUMATopology of the column text db_obj."""
    original = _original("NUMATopology.obj_from_db_obj", cls)
    if _checked is False or cls.__name__ != "NUMATopology":
        return original(db_obj)
    try:
        _field_kinds()
        if not _oslo_own(("obj_from_primitive", "_obj_from_primitive")):
            return original(db_obj)
        # watched from its making, and entered in the host cache: a fit
        # finds its library host from the first sight on
        obj, w, shares = _build_shared(_loads(db_obj), db_obj, new_watch())
    except (_Slow, TypeError, ValueError, AttributeError):
        return original(db_obj)
    if _checked is None or runtime._VERIFY:
        slow = original(db_obj)
        # (a shared collection's owner is the cell of the object it was
        # first read for)
        if not _agree(_state(obj, owned=not shares), _state(slow, owned=not shares),
                      "obj_from_db_obj") or \
                not _agree(_text(obj), _text(slow), "obj_from_db_obj (its text)"):
            return slow
    if w is not None:
        _hosts.put_born(obj, w, db_obj if type(db_obj) is str else None)
    return obj


def _build_shared(prim, text, w):
    """(_build(prim, "NUMATopology") watched by w, its watch, whether it
    shares): the collections nova never changes are shared with the last
    topology read from the same text if that one is unchanged since (its
    watch clean; _hosts.like()): nova's resource tracker reads a compute
    node's column twice per claim.  Without watches, or for a text other
    than a str, nothing is shared."""
    if w is None or type(text) is not str:
        return _build(prim, "NUMATopology", [w] if w is not None else None), w, False
    like, lw = _hosts.like(text)
    if like is not None:
        shared = []
        obj = _build(prim, "NUMATopology", [w], like, shared)
        # the new watch goes on the shared collections before the old one
        # is read again: a change before this is in the old watch, one
        # after it in the new one
        attach(shared, w)
        if not lw.dirty:
            return obj, w, bool(shared)
        w.dirty = True  # changed meanwhile: built anew, with a new watch
        w = new_watch()
    return _build(prim, "NUMATopology", [w] if w is not None else None), w, False


def _to_json(self):
    """NUMATopology._to_json: the column text of this topology."""
    original = _original("NUMATopology._to_json", self)
    if _checked is False:
        return original()
    try:
        _field_kinds()
        if not _oslo_own(("obj_to_primitive", "obj_what_changed")):
            return original()
        text = _dumps(_primitive(self))
    except (_Slow, TypeError, ValueError, AttributeError):
        return original()
    if _checked is None or runtime._VERIFY:
        slow = original()
        if not _agree(text, slow, "_to_json"):
            return slow
    return text


def _loads(text):
    return json.loads(text)


def _dumps(value):
    # what oslo's jsonutils.dumps writes for a value of plain JSON types
    # (its default= hook is never called for them)
    return json.dumps(value)


def _text(obj):
    """nova's own text of a topology (its obj_to_primitive)."""
    return _dumps(obj.obj_to_primitive())
