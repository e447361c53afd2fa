#!/usr/bin/python3
"""Run nova's own nova/tests/unit/virt/test_hardware.py with
numafit.nova.patch() applied.

    NUMAFIT_LIBRARY=.../libnumafit.so.0 PYTHONPATH=bindings/python \\
        /usr/bin/python3 bindings/python/tests/run_nova_hardware_tests.py [-v] [--unpatched]
        [--allowed FILE] [--list-failures] [--module nova.tests.unit...]

Counts ran/passed/failed/skipped, compares the failures with
bindings/python/tests/nova_hardware_allowed_failures.txt (one line per test: the test
id, whitespace, the reason: a nova defect of nova-reference A, or a test that
mocks nova's private helpers so that the adapter is bypassed), and exits 1
when any other test fails (or errors), 77 when nova or its test
dependencies cannot be imported.  Allowed failures that pass are reported
(not an error).  The last line is "N passed, N failed".
"""
import argparse
import importlib
import io
import logging
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
MODULE = "nova.tests.unit.virt.test_hardware"


def load_allowed(path):
    allowed = {}
    if not os.path.exists(path):
        return allowed
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            tid, _, reason = line.partition(" ")
            allowed[tid] = reason.strip()
    return allowed


def test_id(test):
    tid = test.id()
    return tid[len(MODULE) + 1:] if tid.startswith(MODULE + ".") else tid


def main():
    global MODULE
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--allowed", default=os.path.join(HERE, "nova_hardware_allowed_failures.txt"))
    ap.add_argument("--unpatched", action="store_true", help="run against nova itself")
    ap.add_argument("--list-failures", action="store_true",
                    help="print every failure's traceback")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--module", default=MODULE,
                    help="another of nova's test modules (default %(default)s)")
    args = ap.parse_args()
    MODULE = args.module

    try:
        import numafit.nova as nn
        importlib.import_module(MODULE)
    except ImportError as e:
        print("cannot import nova's tests or numafit (%s: %s): skip; Debian 12 needs "
              "python3-nova python3-oslotest python3-ddt python3-testtools "
              "python3-fixtures python3-wsgi-intercept" % (type(e).__name__, e))
        return 77
    suite = unittest.defaultTestLoader.loadTestsFromName(MODULE)
    if not args.unpatched:
        # check every fast conversion (host JSON written from the objects'
        # storage, result cells built without their constructor) against
        # nova's own API on the objects nova's tests make
        nn._VERIFY = True
        replaced = nn.patch()
        print("numafit.nova.patch() replaced: %s (profile %s)"
              % (", ".join(replaced), nn.profile()))
    logging.getLogger("nova").setLevel(logging.CRITICAL)

    stream = io.StringIO()
    result = unittest.TextTestRunner(stream=stream, verbosity=2 if args.verbose else 0,
                                     buffer=True).run(suite)
    if args.verbose:
        sys.stdout.write(stream.getvalue())
    allowed = load_allowed(args.allowed)
    failed = {test_id(t): tb for t, tb in result.failures + result.errors}
    loader_errors = [t for t in failed if t.startswith("unittest.loader")]
    unexpected = sorted(t for t in failed if t not in allowed)
    allowed_failed = sorted(t for t in failed if t in allowed)
    allowed_passed = sorted(t for t in allowed if t not in failed)
    ran = result.testsRun
    skipped = len(result.skipped)
    nfailed = len(failed)
    passed = ran - nfailed - skipped - len(result.expectedFailures)

    for t in allowed_failed:
        print("ALLOWED FAIL %s -- %s" % (t, allowed[t]))
    for t in allowed_passed:
        print("note: allowed failure passes: %s" % t)
    for t in unexpected:
        print("FAIL %s" % t)
        if args.list_failures or len(unexpected) <= 5:
            print(failed[t])
    if not args.unpatched:
        print("adapter calls: %(library)d through libnumafit, %(fallback)d to nova's own"
              % nn.stats)
        for why, n in sorted(nn.fallbacks.items()):
            print("  to nova's own: %d x %s" % (n, why))
    print("ran %d, skipped %d, allowed failures %d, unexpected failures %d"
          % (ran, skipped, len(allowed_failed), len(unexpected)))
    print("%d passed, %d failed" % (passed, nfailed))
    return 1 if unexpected or loader_errors else 0


if __name__ == "__main__":
    sys.exit(main())
