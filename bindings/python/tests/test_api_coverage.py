"""Every function libnumafit exports has a prototype in numafit._ffi, or
is listed in numafit._ffi.NOT_BOUND with the reason.

The exported functions are read twice: from the public headers
(NUMAFIT_EXPORT declarations in include/numafit/*.h, when the source tree
is at hand) and from the dynamic symbol table of the loaded library (nm -D,
when binutils is installed).  A new C function therefore fails this test
until the binding declares it."""
import ctypes
import glob
import os
import re
import shutil
import subprocess
import unittest

from numafit import _ffi

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))  # from bindings/python/tests
HEADERS = os.path.join(TOP, "include", "numafit")

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_EXPORT = re.compile(r"\bNUMAFIT_EXPORT\b[^;(]*?\b(numafit_\w+)\s*\(")


def header_functions():
    """The NUMAFIT_EXPORT functions declared in the public headers, or None
    without the source tree."""
    paths = sorted(glob.glob(os.path.join(HEADERS, "*.h")))
    if not paths:
        return None
    names = set()
    for path in paths:
        with open(path, encoding="utf-8") as f:
            names.update(_EXPORT.findall(_COMMENT.sub(" ", f.read())))
    return names


def library_functions():
    """The numafit_ functions in the dynamic symbol table of the library
    the binding loaded, or None without nm or a path to the library."""
    path = _ffi.lib._name
    nm = shutil.which("nm")
    if not nm or not os.path.isfile(path):
        return None
    out = subprocess.run([nm, "-D", "--defined-only", path], check=True,
                         stdout=subprocess.PIPE, universal_newlines=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in ("T", "W", "i") and parts[2].startswith("numafit_"):
            names.add(parts[2].split("@")[0])
    return names


def bound_functions():
    """The library functions numafit._ffi declared (prototypes with argtypes)."""
    return {f.__name__ for f in vars(_ffi).values()
            if isinstance(f, ctypes._CFuncPtr) and f.argtypes is not None}


class ApiCoverage(unittest.TestCase):
    def check(self, exported, source):
        bound = bound_functions()
        missing = sorted(exported - bound - set(_ffi.NOT_BOUND))
        self.assertEqual(missing, [], "exported by %s without a Python wrapper in "
                         "numafit._ffi (declare it with _fn() and wrap it, or list it in "
                         "_ffi.NOT_BOUND with the reason)" % source)
        self.assertGreater(len(exported), 50, source)

    def test_headers(self):
        names = header_functions()
        if names is None:
            self.skipTest("no source tree at %s" % HEADERS)
        self.check(names, "include/numafit/*.h")

    def test_library(self):
        names = library_functions()
        if names is None:
            self.skipTest("no nm, or the library has no file name (%s)" % _ffi.lib._name)
        self.check(names, _ffi.lib._name)

    def test_exclusions(self):
        # each exclusion says why, is exported, and is really not declared
        exported = header_functions() or library_functions() or set()
        bound = bound_functions()
        for name, reason in _ffi.NOT_BOUND.items():
            self.assertTrue(name.startswith("numafit_"), name)
            self.assertIsInstance(reason, str, name)
            self.assertGreater(len(reason.strip()), 10, name)
            self.assertNotIn(name, bound, "%s is in NOT_BOUND and declared" % name)
            if exported:
                self.assertIn(name, exported, "%s is in NOT_BOUND, not exported" % name)

    def test_bound_are_exported(self):
        # no prototype for a function the library does not have (doctor is
        # declared only when the library has it)
        names = header_functions() or library_functions()
        if names is None:
            self.skipTest("neither headers nor nm")
        self.assertEqual(sorted(bound_functions() - names), [])


if __name__ == "__main__":
    unittest.main()
