"""numafit.Request: an instance's NUMA request (nova's numa_get_constraints)."""
import json
from ctypes import byref

from . import _ffi

PROFILES = {"latest": 0, "zed": 1}
REQUEST_ZED = 1


def profile_number(profile):
    try:
        return PROFILES[profile]
    except KeyError:
        raise ValueError("numafit: unknown profile %r (latest, zed)" % (profile,)) from None


class Request(_ffi.Owned):
    """Built from a flavor and image properties as nova's
    numa_get_constraints() builds an InstanceNUMATopology; nova's refusals
    raise numafit.errors.<nova's exception name> (ValueErrors).

    A request may have no NUMA topology (nova's None): `has_numa` is False
    and fitting it is not meaningful.
    """
    _free = "request_free"

    def __init__(self, handle, has_numa, flavor, image, profile):
        self._h = handle
        self.has_numa = has_numa
        self.flavor = flavor
        self.image = image
        self.profile = profile

    @classmethod
    def from_flavor(cls, vcpus, memory_mb, extra_specs=None, image_properties=None,
                    profile="latest"):
        flavor = {"vcpus": vcpus, "memory_mb": memory_mb,
                  "extra_specs": dict(extra_specs or {})}
        image = {"properties": dict(image_properties or {})}
        return cls.from_json(flavor, image, profile)

    @classmethod
    def from_json(cls, flavor, image=None, profile="latest"):
        """flavor: {"vcpus","memory_mb","extra_specs"} (dict or text); image:
        {"properties": {...}} (dict or text) or None."""
        ftxt = flavor if isinstance(flavor, (str, bytes)) else json.dumps(flavor)
        itxt = None if image is None else (
            image if isinstance(image, (str, bytes)) else json.dumps(image))
        fb, fn = _ffi.cbuf(ftxt, "flavor")
        ib, inn = _ffi.cbuf(itxt, "image", none=True)
        r, err = _ffi.RequestP(), _ffi.Error()
        rc = _ffi.request_new(fb, fn, ib, inn,
                              REQUEST_ZED if profile_number(profile) == 1 else 0,
                              byref(r), byref(err))
        return cls(r, rc == 1, json.loads(ftxt),
                   None if itxt is None else json.loads(itxt), profile)

    def __copy__(self):
        r = _ffi.RequestP()
        _ffi.request_dup(self.handle, byref(r))
        return type(self)(r, self.has_numa, self.flavor, self.image, self.profile)

    def __getstate__(self):
        return {"flavor": self.flavor, "image": self.image, "profile": self.profile}

    def __setstate__(self, st):
        other = Request.from_json(st["flavor"], st["image"], st["profile"])
        self.__dict__.update(other.__dict__)
        other._h = None

    def to_json(self, flags=0):
        """nova's InstanceNUMATopology primitive of the request (text)."""
        return _ffi.call_str(_ffi.request_to_json, self.handle, _ffi.cint(flags, "flags"))

    def to_dict(self):
        return json.loads(self.to_json())

    def __len__(self):
        return _ffi.request_get_cell_count(self.handle)

    @property
    def vcpus(self):
        return _ffi.request_get_vcpus(self.handle)

    @property
    def cpu_policy(self):
        s = _ffi.cpu_policy_to_string(_ffi.request_get_cpu_policy(self.handle))
        return s.decode() if s else None

    @property
    def thread_policy(self):
        s = _ffi.thread_policy_to_string(_ffi.request_get_thread_policy(self.handle))
        return s.decode() if s else None

    @property
    def emulator_threads_policy(self):
        s = _ffi.emulator_threads_policy_to_string(
            _ffi.request_get_emulator_threads_policy(self.handle))
        return s.decode() if s else None

    def __repr__(self):
        if not self._h:
            return "<numafit.Request closed>"
        return "<numafit.Request cells=%d vcpus=%d policy=%s>" % (
            len(self), self.vcpus, self.cpu_policy)
