"""patch() and unpatch(): nova.virt.hardware's functions swapped for the
adapter's (numafit.nova.hardware) and back."""
import logging
import os
import threading

from .. import _ffi
from . import column, hardware, runtime
from .hardware import DEFAULT_FUNCTIONS
from .runtime import _nova, _saved

LOG = logging.getLogger(__package__)

_patch_lock = threading.Lock()
_logged = []  # the last set of names patch() logged (once per process, or when it changes)


def full_name(name):
    """nova.virt.hardware.<function>, or nova.objects.NUMATopology.<method>."""
    return ("nova.objects." if "." in name else "nova.virt.hardware.") + name


def library_line():
    """Which libnumafit this process uses: version, file, how it was found."""
    return "libnumafit %s from %s (%s)" % (_ffi.library_version(), _ffi.loaded_library_file(),
                                          _ffi.LIBRARY_FROM)


def _replacement(name):
    """What patch() puts in place of `name`: a nova.virt.hardware function,
    or "NUMATopology.<method>" (column.METHODS) of nova's class."""
    if "." in name:
        f = getattr(column, name.split(".", 1)[1])
        return classmethod(f) if name.endswith("obj_from_db_obj") else f
    return getattr(hardware, name)


def _owner(name):
    """(the object holding `name`, the attribute)."""
    if "." in name:
        cls, attr = name.split(".", 1)
        return getattr(_nova()[1], cls), attr
    return _nova()[0], name


def patch(names=DEFAULT_FUNCTIONS + column.METHODS, profile=None):
    """Swap the functions into nova.virt.hardware, and the column's methods
    (column.METHODS) into nova's NUMATopology.  Returns (and logs at INFO)
    the names replaced.  Idempotent; unpatch() restores nova's."""
    replaced = []
    with _patch_lock:
        for n in names:
            owner, attr = _owner(n)
            current = owner.__dict__.get(attr) if "." in n else getattr(owner, attr, None)
            if current is None:
                continue
            if n not in _saved:
                _saved[n] = current
            setattr(owner, attr, _replacement(n))
            replaced.append(n)
        runtime._profile = profile  # None: from the installed nova's signature
        current = sorted(_saved)
        log = current != (_logged[0] if _logged else None)
        _logged[:] = [current]
    if log:
        LOG.info("numafit.nova: replaced %s (profile %s; %s; pid %d)",
                 ", ".join(map(full_name, replaced)), runtime.profile(), library_line(),
                 os.getpid())
    return replaced


def unpatch():
    """Put nova's own functions back.  Returns the names restored."""
    with _patch_lock:
        restored = []
        for n, f in list(_saved.items()):
            owner, attr = _owner(n)
            setattr(owner, attr, f)
            restored.append(n)
        _saved.clear()
    return restored


def patched():
    return bool(_saved)


def status():
    """What the adapter does in this process, as a dict: the library
    (version, file, how found), the package's directory, the names patch()
    replaced (empty before patch()), the release rules and the counters."""
    import numafit
    d = {"library_version": _ffi.library_version(), "library": _ffi.loaded_library_file(),
         "library_from": _ffi.LIBRARY_FROM, "package": os.path.dirname(numafit.__file__),
         "replaced": sorted(_saved), "stats": dict(runtime.stats),
         "fallbacks": dict(runtime.fallbacks)}
    try:
        d["profile"] = runtime.profile()
    except ImportError:
        d["profile"] = None
    return d
