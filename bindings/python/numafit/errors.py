"""Exceptions raised by the numafit binding.

Every exception derives from NumafitError.  Errors the library reports with
a nova exception class name (numafit_error_t.exception) raise the class of
that name here, e.g. numafit.errors.ImageNUMATopologyAsymmetric; the others
raise a class chosen by the negative errno (so does a bare "ValueError", nova's
crash on e.g. hw:numa_mem.N=abc):

  -EINVAL, -EBADMSG, -ERANGE  InvalidArgument / ParseError / RangeError
                              (all ValueError)
  -ENOMEM                     OutOfMemory (MemoryError)
  -ENOENT                     NotFound (FileNotFoundError)
  -EACCES                     AccessDenied (PermissionError)
  -ECONNREFUSED               ConnectionFailed (ConnectionRefusedError)
  -ENOTSUP                    NotSupported (NotImplementedError)
  -EBUSY                      PinningConflict
  -E2BIG, -ETIME              TooComplex (the fit's work budget)
  -ENOSPC                     NoSpace (an inventory claim without room)

The named classes also derive from the errno class of the error they come
with (nova's request refusals are -EINVAL, so they are ValueErrors too).

The binding itself raises ClosedError (a ValueError, errno EBADF) for a
handle used after close(), InvalidArgument for text with a NUL character,
RangeError for an integer outside its C type or the library's limits, and
plain TypeError for a value of the wrong type.

Attributes: errno (positive), code (enum numafit_error_code), code_name
("PARSE", "NOFIT_CPU", ...), cell, where, exception (nova's class name or
""), text.
"""
import builtins
import errno as _errno
import threading


class NumafitError(Exception):
    """Base of every error raised by numafit."""

    def __init__(self, errno=0, text="", code=0, where="", cell=-1, exception="",
                 func=""):
        self.errno = errno
        self.text = text
        self.code = code
        self.where = where
        self.cell = cell
        self.exception = exception
        self.func = func
        msg = text or _errno.errorcode.get(errno, "error %d" % errno)
        if where:
            msg = "%s: %s" % (where, msg)
        super().__init__(msg)

    @property
    def code_name(self):
        from . import _ffi
        try:
            code = _ffi.cint(self.code, "code", _ffi.c_int)
        except (TypeError, ValueError):
            return ""
        n = _ffi.error_code_name(code)
        return n.decode() if n else ""

    def __reduce__(self):
        return (_rebuild, (type(self).__name__, self.errno, self.text, self.code,
                           self.where, self.cell, self.exception, self.func))


def _rebuild(name, *args):
    cls = globals().get(name) or exception_class(name, args[0])
    return cls(*args)


class InvalidArgument(NumafitError, ValueError):
    """-EINVAL"""


class ParseError(NumafitError, ValueError):
    """-EBADMSG: malformed JSON, XML or cpu spec"""


class RangeError(NumafitError, ValueError):
    """-ERANGE: a value outside the documented bounds"""


class OutOfMemory(NumafitError, MemoryError):
    """-ENOMEM"""


class NotFound(NumafitError, FileNotFoundError):
    """-ENOENT"""


class AccessDenied(NumafitError, PermissionError):
    """-EACCES"""


class ConnectionFailed(NumafitError, ConnectionRefusedError):
    """-ECONNREFUSED (libvirt)"""


class NotSupported(NumafitError, NotImplementedError):
    """-ENOTSUP: e.g. built without libvirt"""


class PinningConflict(NumafitError):
    """-EBUSY: a claim or release conflicts with the host's pinned CPUs"""


class TooComplex(NumafitError):
    """the fit exceeded its work budget"""


class NoSpace(NumafitError):
    """-ENOSPC: an inventory has no room for a claim (nothing changed)"""


class ClosedError(NumafitError, ValueError):
    """EBADF: a Host, Request, Placement... used after close() (raised by
    the binding; the handle is never passed to the library)"""


_BY_ERRNO = {
    _errno.EINVAL: InvalidArgument,
    _errno.EBADMSG: ParseError,
    _errno.ERANGE: RangeError,
    _errno.ENOMEM: OutOfMemory,
    _errno.ENOENT: NotFound,
    _errno.EACCES: AccessDenied,
    _errno.ECONNREFUSED: ConnectionFailed,
    _errno.ENOTSUP: NotSupported,
    _errno.EBUSY: PinningConflict,
    _errno.ENOSPC: NoSpace,
    _errno.E2BIG: TooComplex,
    _errno.ETIME: TooComplex,
}

# nova's exception classes the library names (numafit_error_t.exception).
NOVA_EXCEPTIONS = """
BadRequirementEmulatorThreadsPolicy CPUPinningInvalid CPUPinningUnknown
CPUUnpinningInvalid CPUUnpinningUnknown FlavorImageConflict
FlavorImageLockedMemoryConflict ImageCPUPinningForbidden
ImageCPUThreadPolicyForbidden ImageNUMATopologyAsymmetric
ImageNUMATopologyCPUDuplicates ImageNUMATopologyCPUOutOfRange
ImageNUMATopologyCPUsUnassigned ImageNUMATopologyForbidden
ImageNUMATopologyIncomplete ImageNUMATopologyMemoryOutOfRange
ImageNUMATopologyNodesExceedCPUs ImageNUMATopologyNodesExceedMemory
ImageNUMATopologyNodesIncomplete ImageVCPULimitsRangeExceeded
ImageVCPULimitsRangeImpossible ImageVCPUTopologyRangeExceeded Invalid ConfigFileValueError
InvalidCPUAllocationPolicy InvalidCPUThreadAllocationPolicy InvalidConfiguration
InvalidEmulatorThreadsPolicy InvalidMachineType InvalidMixedInstanceDedicatedMask
InvalidNUMANodesNumber InvalidNetworkNUMAAffinity InvalidRequest
InvalidReservedMemoryPagesOption LockMemoryForbidden MemoryPageSizeForbidden
MemoryPageSizeInvalid MemoryPageSizeNotSupported MemoryPagesUnsupported
RealtimeConfigurationInvalid RealtimeMaskNotFoundOrInvalid RequiredMixedInstancePolicy
RequiredMixedOrRealtimeCPUMask StatelessFirmwareRequired
UnsupportedHostCPUControlPolicy ValidationError libvirtError
""".split()

_lock = threading.Lock()


def exception_class(name, errno=_errno.EINVAL):
    """The numafit.errors class named after nova's exception `name`
    (created on first use for names not listed above)."""
    with _lock:
        cls = globals().get(name)
        if isinstance(cls, type) and issubclass(cls, NumafitError):
            return cls
        base = _BY_ERRNO.get(errno, InvalidArgument)
        cls = type(name, (base,), {"__doc__": "nova.exception.%s" % name,
                                   "__module__": __name__})
        globals()[name] = cls
        return cls


for _n in NOVA_EXCEPTIONS:
    exception_class(_n, _errno.EBUSY if "Pinning" in _n else _errno.EINVAL)


def from_rc(rc, err=None, func=""):
    """The exception for a negative return code and an error dict."""
    e = -rc
    err = err or {}
    name = err.get("exception") or ""
    if name and name.isidentifier() and not hasattr(builtins, name):
        cls = exception_class(name, e)
    else:
        cls = _BY_ERRNO.get(e, NumafitError)
    text = err.get("text") or ""
    if not text:
        from . import _ffi
        try:
            s = _ffi.strerror(_ffi.cint(rc, "rc", _ffi.c_int))
        except (TypeError, ValueError):
            s = None
        text = s.decode() if s else ""
    return cls(e, text, code=err.get("code", 0), where=err.get("where", ""),
               cell=err.get("cell", -1), exception=name, func=func)
