"""patch() and unpatch(): nova.virt.hardware's functions swapped for the
adapter's (numafit.nova.hardware) and back."""
import logging
import threading

from . import hardware, runtime
from .hardware import FUNCTIONS
from .runtime import _nova, _saved

LOG = logging.getLogger(__package__)

_patch_lock = threading.Lock()


def patch(names=FUNCTIONS, profile=None):
    """Swap the functions into nova.virt.hardware.  Returns (and logs at
    INFO) the names replaced.  Idempotent; unpatch() restores nova's."""
    nova_hw = _nova()[0]
    replaced = []
    with _patch_lock:
        for n in names:
            if getattr(nova_hw, n, None) is None:
                continue
            if n not in _saved:
                _saved[n] = getattr(nova_hw, n)
            setattr(nova_hw, n, getattr(hardware, n))
            replaced.append(n)
        runtime._profile = profile  # None: from the installed nova's signature
    LOG.info("numafit.nova: replaced nova.virt.hardware.%s (profile %s)",
             ", ".join(replaced), runtime.profile())
    return replaced


def unpatch():
    """Put nova's own functions back.  Returns the names restored."""
    nova_hw = _nova()[0]
    with _patch_lock:
        restored = []
        for n, f in list(_saved.items()):
            setattr(nova_hw, n, f)
            restored.append(n)
        _saved.clear()
    return restored


def patched():
    return bool(_saved)
