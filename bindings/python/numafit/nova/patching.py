"""patch() and unpatch(): nova.virt.hardware's functions swapped for the
adapter's (numafit.nova.hardware) and back."""
import logging
import threading

from . import column, hardware, runtime
from .hardware import FUNCTIONS
from .runtime import _nova, _saved

LOG = logging.getLogger(__package__)

_patch_lock = threading.Lock()


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


def patch(names=FUNCTIONS + column.METHODS, profile=None):
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
    LOG.info("numafit.nova: replaced nova.virt.hardware.%s (profile %s)",
             ", ".join(replaced), runtime.profile())
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
