"""Minimal ctypes access to the built libnumafit for the differential tests.

(The real Python binding lives in bindings/python; this file only serves the
test scripts so they do not depend on it.)"""
import ctypes
import json
import os


class Error(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("cell", ctypes.c_int),
                ("where", ctypes.c_char * 96), ("exception", ctypes.c_char * 64),
                ("text", ctypes.c_char * 256), ("reserved", ctypes.c_ubyte * 64)]

    def as_dict(self):
        return {"code": self.code, "cell": self.cell,
                "where": self.where.decode(), "exception": self.exception.decode(),
                "text": self.text.decode()}


class NumafitError(Exception):
    def __init__(self, rc, err):
        self.rc = rc
        self.err = err.as_dict()
        super().__init__("rc=%d %s" % (rc, self.err))


class _Tolerant:
    """Declare prototypes, ignoring functions the build does not have (yet)."""

    def __init__(self, lib):
        object.__setattr__(self, "_lib", lib)

    def __getattr__(self, name):
        try:
            return getattr(self._lib, name)
        except AttributeError:
            return _Ignore()


class _Ignore:
    def __setattr__(self, name, value):
        pass


class Lib:
    def __init__(self, path=None):
        path = path or os.environ.get("NUMAFIT_LIBRARY") or "libnumafit.so.0"
        self.lib = ctypes.CDLL(path)
        L = _Tolerant(self.lib)
        vp, sz, ui, ci = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint, ctypes.c_int
        pvp, perr = ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(Error)
        L.numafit_free.argtypes = [vp]
        L.numafit_host_new_from_json.argtypes = [ctypes.c_char_p, sz, ui, pvp, perr]
        L.numafit_host_to_json.argtypes = [vp, ui, pvp, perr]
        L.numafit_host_free.argtypes = [vp]
        L.numafit_host_equal.argtypes = [vp, vp]
        L.numafit_host_dup.argtypes = [vp, pvp]
        L.numafit_request_new.argtypes = [ctypes.c_char_p, sz, ctypes.c_char_p, sz, ui, pvp, perr]
        L.numafit_request_to_json.argtypes = [vp, ui, pvp, perr]
        L.numafit_request_free.argtypes = [vp]
        L.numafit_options_new.argtypes = [pvp]
        L.numafit_options_free.argtypes = [vp]
        L.numafit_options_set_profile.argtypes = [vp, ci]
        L.numafit_options_set_strategy.argtypes = [vp, ci]
        L.numafit_options_set_limits_json.argtypes = [vp, ctypes.c_char_p, sz, perr]
        L.numafit_fit.argtypes = [vp, vp, vp, ui, pvp, perr]
        L.numafit_placement_to_json.argtypes = [vp, ui, pvp, perr]
        L.numafit_placement_free.argtypes = [vp]
        L.numafit_host_claim.argtypes = [vp, vp, ui, perr]
        L.numafit_host_release.argtypes = [vp, vp, ui, perr]
        L.numafit_cpu_topology_best.argtypes = [ctypes.c_char_p, sz, ctypes.c_char_p, sz, ui,
                                                ctypes.POINTER(ui), ctypes.POINTER(ui),
                                                ctypes.POINTER(ui), perr]
        L.numafit_cpu_topology_list.argtypes = [ctypes.c_char_p, sz, ctypes.c_char_p, sz, ui,
                                                pvp, perr]

    def _take_str(self, p):
        s = ctypes.string_at(p.value).decode()
        self.lib.numafit_free(p)
        return s

    def host_from_json(self, text, flags=0):
        b = text.encode() if isinstance(text, str) else text
        h, err = ctypes.c_void_p(), Error()
        rc = self.lib.numafit_host_new_from_json(b, len(b), flags, ctypes.byref(h), ctypes.byref(err))
        if rc < 0:
            raise NumafitError(rc, err)
        return h

    def host_to_json(self, h, flags=0):
        out, err = ctypes.c_void_p(), Error()
        rc = self.lib.numafit_host_to_json(h, flags, ctypes.byref(out), ctypes.byref(err))
        if rc < 0:
            raise NumafitError(rc, err)
        return self._take_str(out)

    def request(self, flavor, image=None, flags=0):
        """Returns (rc, handle or None, error dict or None)."""
        fb = json.dumps(flavor).encode()
        ib = json.dumps(image).encode() if image is not None else None
        r, err = ctypes.c_void_p(), Error()
        rc = self.lib.numafit_request_new(fb, len(fb), ib, len(ib) if ib else 0, flags,
                                          ctypes.byref(r), ctypes.byref(err))
        if rc < 0:
            return rc, None, err.as_dict()
        return rc, r, None

    def request_to_json(self, r, flags=0):
        out, err = ctypes.c_void_p(), Error()
        rc = self.lib.numafit_request_to_json(r, flags, ctypes.byref(out), ctypes.byref(err))
        if rc < 0:
            raise NumafitError(rc, err)
        return self._take_str(out)

    def options(self, profile=0, strategy=0, limits=None):
        o = ctypes.c_void_p()
        rc = self.lib.numafit_options_new(ctypes.byref(o))
        assert rc == 0
        self.lib.numafit_options_set_profile(o, profile)
        self.lib.numafit_options_set_strategy(o, strategy)
        if limits is not None:
            b = json.dumps(limits).encode()
            err = Error()
            rc = self.lib.numafit_options_set_limits_json(o, b, len(b), ctypes.byref(err))
            if rc < 0:
                raise NumafitError(rc, err)
        return o

    def fit(self, h, r, o, flags=0):
        """Returns (rc, placement handle or None, error dict)."""
        p, err = ctypes.c_void_p(), Error()
        rc = self.lib.numafit_fit(h, r, o, flags, ctypes.byref(p), ctypes.byref(err))
        return rc, (p if rc == 1 else None), err.as_dict()

    def placement_to_json(self, p, flags=0):
        out, err = ctypes.c_void_p(), Error()
        rc = self.lib.numafit_placement_to_json(p, flags, ctypes.byref(out), ctypes.byref(err))
        if rc < 0:
            raise NumafitError(rc, err)
        return self._take_str(out)

    def claim(self, h, p, flags=0):
        err = Error()
        rc = self.lib.numafit_host_claim(h, p, flags, ctypes.byref(err))
        return rc, err.as_dict()

    def release(self, h, p, flags=0):
        err = Error()
        rc = self.lib.numafit_host_release(h, p, flags, ctypes.byref(err))
        return rc, err.as_dict()
