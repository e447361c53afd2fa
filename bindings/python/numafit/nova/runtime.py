"""The installed nova as the adapter sees it: its modules, its own
functions (kept by patch()), the release rules ("latest" or "zed"), nova's
exception classes for the library's errors, and the call counters."""
import atexit
import collections
import functools
import inspect
import logging
import os
import threading
import time

from .. import errors

LOG = logging.getLogger(__package__)

stats = {"library": 0, "fallback": 0}
fallbacks = collections.Counter()  # "function: reason" -> calls sent to nova's own
_stats_lock = threading.Lock()
_saved = {}
_profile = None
_VERIFY = False  # tests: check every fast conversion against the slow one


def _stats_interval():
    """Seconds between two INFO lines of the counters in a process that
    uses the adapter: NUMAFIT_NOVA_STATS_INTERVAL, default 3600; 0: none
    but the one at exit."""
    try:
        v = float(os.environ.get("NUMAFIT_NOVA_STATS_INTERVAL", "3600"))
    except ValueError:
        return 3600.0
    return v if v >= 0 else 3600.0


_interval = _stats_interval()
_next_report = [None]  # monotonic time of the next counters line (set by the first count)


def _count(key, why=None, n=1):
    report = False
    with _stats_lock:
        stats[key] = stats.get(key, 0) + n
        if why:
            fallbacks[why] += 1
        if _interval:
            now = time.monotonic()
            if _next_report[0] is None:
                _next_report[0] = now + _interval
            elif now >= _next_report[0]:
                _next_report[0] = now + _interval
                report = True
    if report:
        log_stats()


def stats_line():
    """The counters as one line: calls computed by libnumafit, calls sent
    to nova's own function, and why (the most frequent reasons first)."""
    with _stats_lock:
        lib, fb = stats.get("library", 0), stats.get("fallback", 0)
        why = fallbacks.most_common(5)
        others = len(fallbacks) - len(why)
    text = "numafit.nova: %d calls computed by libnumafit, %d sent to nova's own" % (lib, fb)
    if why:
        text += " (%s%s)" % ("; ".join("%s: %d" % w for w in why),
                             "; %d other reasons" % others if others > 0 else "")
    return text


def log_stats():
    """Log the counters at INFO (numafit.nova)."""
    LOG.info("%s", stats_line())


def _log_stats_at_exit():
    if _saved and (stats.get("library") or stats.get("fallback")):
        try:
            log_stats()
        except Exception:  # logging already shut down
            pass


atexit.register(_log_stats_at_exit)


_nova_mods = None


def _nova():
    """(hardware module, objects, exception module, CONF) or ImportError."""
    global _nova_mods
    if _nova_mods is None:
        from nova import exception, objects
        from nova.virt import hardware
        import nova.conf
        objects.register_all()
        _nova_mods = (hardware, objects, exception, nova.conf.CONF)
    return _nova_mods


def _original(name):
    if name in _saved:
        return _saved[name]
    hardware = _nova()[0]
    f = getattr(hardware, name)
    if (getattr(f, "__module__", None) or "").startswith(__package__ + "."):  # ours
        raise RuntimeError("numafit.nova: nova's %s is not available" % name)
    return f


def profile():
    """The release rules in use: "latest" or "zed"."""
    global _profile
    if _profile is None:
        try:
            sig = inspect.signature(_original("numa_fit_instance_to_host"))
            _profile = "latest" if "provider_mapping" in sig.parameters else "zed"
        except Exception:
            _profile = "latest"
    return _profile


def set_profile(name=None):
    """Use "latest" or "zed" rules; None: from the installed nova."""
    global _profile
    if name not in (None, "latest", "zed"):
        raise ValueError("numafit.nova: unknown profile %r" % (name,))
    _profile = name


def _nova_error(e):
    """A numafit.errors exception as nova's own exception."""
    name = getattr(e, "exception", "") or ""
    if name == "ValueError":
        return ValueError(e.text)
    if name:
        try:
            exc_mod = _nova()[2]
            cls = getattr(exc_mod, name, None)
            if isinstance(cls, type) and issubclass(cls, Exception):
                try:
                    return cls(message=e.text)
                except TypeError:
                    return cls(e.text)
        except ImportError:
            pass
    return e


def _translating(f):
    @functools.wraps(f)
    def wrapper(*a, **kw):
        try:
            return f(*a, **kw)
        except errors.NumafitError as e:
            ne = _nova_error(e)
            if ne is e:
                raise
            raise ne from None
    return wrapper


class _Unsupported(Exception):
    """This input goes to nova's own function."""
