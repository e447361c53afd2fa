"""CPU sets in nova's spec syntax and guest CPU topologies."""
import json
from ctypes import byref, c_uint, c_void_p

from . import _ffi

NO_THREADS = 1  # NUMAFIT_TOPOLOGY_NO_THREADS


def parse_cpu_spec(spec):
    """nova's parse_cpu_spec: "0-3,^2,8" -> {0, 1, 3, 8}.  Raises
    numafit.errors.Invalid (a ValueError) on syntax errors and
    numafit.errors.RangeError for ids above 16383."""
    b = _ffi.cstr(spec, "cpu spec")
    s, err = _ffi.CpusetP(), _ffi.Error()
    _ffi.cpuset_parse(b, 0, byref(s), byref(err))
    return take_cpuset(s)


def take_cpuset(s):
    """The CPU ids of a numafit_cpuset_t the library allocated (a set of
    ints); frees it."""
    try:
        out, cpu = set(), -1
        while True:
            cpu = _ffi.cpuset_next(s, cpu)
            if cpu < 0:
                return out
            out.add(cpu)
    finally:
        _ffi.cpuset_free(s)


def format_cpu_spec(cpus):
    """nova's format_cpu_spec (allow_ranges=True): {0,1,2,5} -> "0-2,5".
    CPU ids are integers 0..16383 (NUMAFIT_CPU_MAX): TypeError for floats,
    bools, strings; numafit.errors.RangeError (a ValueError) outside."""
    if isinstance(cpus, (str, bytes)):
        raise TypeError("numafit: format_cpu_spec needs CPU ids, not %s" % type(cpus).__name__)
    ids = [_ffi.cint(c, "cpu id", lo=0, hi=_ffi.CPU_MAX) for c in cpus]
    s = _ffi.CpusetP()
    _ffi.cpuset_new(byref(s))
    try:
        for c in ids:
            _ffi.cpuset_add(s, c)
        out = c_void_p()
        _ffi.cpuset_format(s, 0, byref(out))
        return _ffi.take_string(out)
    finally:
        _ffi.cpuset_free(s)


def _fi(flavor, image):
    ft = flavor if isinstance(flavor, (str, bytes)) else json.dumps(flavor)
    it = None if image is None else (image if isinstance(image, (str, bytes))
                                     else json.dumps(image))
    return _ffi.cbuf(ft, "flavor") + _ffi.cbuf(it, "image", none=True)


def best_cpu_topology(flavor, image=None, allow_threads=True):
    """nova's get_best_cpu_topology: (sockets, cores, threads)."""
    fb, fn, ib, inn = _fi(flavor, image)
    s, c, t, err = c_uint(), c_uint(), c_uint(), _ffi.Error()
    _ffi.cpu_topology_best(fb, fn, ib, inn, 0 if allow_threads else NO_THREADS,
                           byref(s), byref(c), byref(t), byref(err))
    return s.value, c.value, t.value


def cpu_topologies(flavor, image=None, allow_threads=True):
    """nova's _get_desirable_cpu_topologies: [(sockets, cores, threads)...]
    in preference order."""
    fb, fn, ib, inn = _fi(flavor, image)
    txt = _ffi.call_str(_ffi.cpu_topology_list, fb, fn, ib, inn,
                        0 if allow_threads else NO_THREADS)
    return [(d["sockets"], d["cores"], d["threads"]) for d in json.loads(txt)]


def cpu_topology_constraints(flavor, image=None):
    """nova's get_cpu_topology_constraints: ((sockets, cores, threads)
    preferred, (sockets, cores, threads) maximum), nova's integers exactly
    (0: no preference; 65536: no limit)."""
    fb, fn, ib, inn = _fi(flavor, image)
    d = json.loads(_ffi.call_str(_ffi.cpu_topology_constraints, fb, fn, ib, inn, 0))
    return tuple(tuple(d[part][k] for k in ("sockets", "cores", "threads"))
                 for part in ("preferred", "maximum"))
