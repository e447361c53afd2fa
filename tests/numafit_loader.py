"""The numafit package of bindings/python for the differential tests
(tests/nova_*_diff.py), loaded from this source tree."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def import_numafit(library=None):
    """The numafit package of bindings/python, loading `library` (default:
    $NUMAFIT_LIBRARY, else the installed libnumafit.so.0)."""
    if library:
        os.environ["NUMAFIT_LIBRARY"] = library
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "bindings", "python"))
    import numafit
    return numafit
