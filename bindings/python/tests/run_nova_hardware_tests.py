#!/usr/bin/python3
"""Run nova's own nova/tests/unit/virt/test_hardware.py with
numafit.nova.patch() applied.

    NUMAFIT_LIBRARY=.../libnumafit.so.0 PYTHONPATH=bindings/python \\
        /usr/bin/python3 bindings/python/tests/run_nova_hardware_tests.py [-v] [--unpatched]
        [--allowed FILE] [--list-failures] [--module nova.tests...]
        [--scheduler-filter] [--results FILE]

Counts ran/passed/failed/skipped, compares the failures with
bindings/python/tests/nova_hardware_allowed_failures.txt (one line per test: the test
id, whitespace, the reason: a nova defect of nova-reference A, or a test that
mocks nova's private helpers so that the adapter is bypassed), and exits 1
when any other test fails (or errors), 77 when nova or its test
dependencies cannot be imported.  Allowed failures that pass are reported
(not an error).  The last line is "N passed, N failed".

--scheduler-filter (with patch()) makes nova's scheduler use
numafit.scheduler.NumafitNUMATopologyFilter wherever its configuration
names NUMATopologyFilter (the default of enabled_filters, which nova's
functional tests start from); --results FILE writes every test's outcome
(pass, fail, skip), the failures' tracebacks and the adapter's counts
as JSON, for
check_nova_suites.py.
"""
import argparse
import importlib
import io
import json
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


def walk(suite):
    """The tests of a suite, nested suites flattened."""
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from walk(t)
        else:
            yield t


def swap_scheduler_filter():
    """Make nova's scheduler use numafit's filter where its enabled_filters
    names NUMATopologyFilter, as an operator's nova.conf would
    (the filters available gain numafit.scheduler.NumafitNUMATopologyFilter,
    enabled_filters names it instead of NUMATopologyFilter).  nova's
    functional tests add NUMATopologyFilter to the option when they start
    the scheduler, so the names are swapped where the scheduler reads them.
    Returns a one-element list counting the requests the filter was asked
    about."""
    from nova.scheduler import filters, host_manager
    from nova.scheduler.filters import numa_topology_filter
    import numafit.scheduler as ns
    # available_filters' default names nova.scheduler.filters.all_filters,
    # and nova's configuration fixture resets the option for each test
    all_filters = filters.all_filters

    def with_numafit():
        return all_filters() + [ns.NumafitNUMATopologyFilter]
    filters.all_filters = with_numafit
    # nova's functional tests probe the filter: they wrap the host_passes
    # of the class the scheduler maps to "NUMATopologyFilter" in a mock,
    # patched at nova.scheduler.filters.numa_topology_filter.
    # NUMATopologyFilter, and count its calls.  Both names lead to
    # numafit's filter here (which asks a host_passes overridden this way
    # about each host)
    numa_topology_filter.NUMATopologyFilter = ns.NumafitNUMATopologyFilter
    init = host_manager.HostManager.__init__

    def host_manager_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.filter_cls_map["NUMATopologyFilter"] = ns.NumafitNUMATopologyFilter
    host_manager.HostManager.__init__ = host_manager_init
    load = host_manager.HostManager._load_filters

    def load_filters(self):
        return ["NumafitNUMATopologyFilter" if f == "NUMATopologyFilter" else f
                for f in load(self)]
    host_manager.HostManager._load_filters = load_filters
    calls = [0]
    checker = ns.NumafitNUMATopologyFilter._checker

    def counted(self, spec_obj):
        calls[0] += 1
        return checker(self, spec_obj)
    ns.NumafitNUMATopologyFilter._checker = counted
    return calls


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
    ap.add_argument("--scheduler-filter", action="store_true",
                    help="the scheduler uses numafit's NUMATopologyFilter")
    ap.add_argument("--results", help="write each test's outcome to this JSON file")
    ap.add_argument("--max-fallbacks", type=int, default=None,
                    help="fail when more calls than this go to nova's own functions "
                    "(default: 0 for test_hardware, no limit for other modules)")
    args = ap.parse_args()
    MODULE = args.module

    try:
        import numafit.nova as nn
        # (a module, or a test class or test in one: its longest prefix
        # that imports)
        parts, first = MODULE.split("."), None
        for n in range(len(parts), 1, -1):
            try:
                importlib.import_module(".".join(parts[:n]))
                break
            except ImportError as e:
                first = first or e
        else:
            raise first
    except ImportError as e:
        print("cannot import nova's tests or numafit (%s: %s): skip; Debian 12 needs "
              "python3-nova python3-oslotest python3-ddt python3-testtools "
              "python3-fixtures python3-wsgi-intercept" % (type(e).__name__, e))
        return 77
    suite = unittest.defaultTestLoader.loadTestsFromName(MODULE)
    # (the runner drops each test from the suite once it has run)
    ids = [test_id(t) for t in walk(suite)]
    if not args.unpatched:
        # check every fast conversion (host JSON written from the objects'
        # storage, result cells built without their constructor) against
        # nova's own API on the objects nova's tests make
        nn._VERIFY = True
        replaced = nn.patch()
        print("numafit.nova.patch() replaced: %s (profile %s)"
              % (", ".join(replaced), nn.profile()))
    filter_calls = swap_scheduler_filter() if args.scheduler_filter else None

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
    if filter_calls is not None:
        print("numafit's scheduler filter: %d requests" % filter_calls[0])
    if args.results:
        outcome = {test_id(t): "skip" for t, _ in result.skipped if t is not None}
        for tid in ids:
            outcome.setdefault(tid, "fail" if tid in failed else "pass")
        for tid in failed:
            outcome[tid] = "fail"
        with open(args.results, "w") as f:
            json.dump({"module": MODULE, "patched": not args.unpatched,
                       "outcome": outcome, "failures": failed,
                       "library": nn.stats["library"] if not args.unpatched else None,
                       "fallback": nn.stats["fallback"] if not args.unpatched else None,
                       "fallbacks": dict(nn.fallbacks) if not args.unpatched else None,
                       "filter_requests": filter_calls[0] if filter_calls else None},
                      f, indent=1, sort_keys=True)
    print("ran %d, skipped %d, allowed failures %d, unexpected failures %d"
          % (ran, skipped, len(allowed_failed), len(unexpected)))
    limit = args.max_fallbacks
    if limit is None and MODULE == "nova.tests.unit.virt.test_hardware":
        limit = 0
    too_many = not args.unpatched and limit is not None and nn.stats["fallback"] > limit
    if too_many:
        print("FAIL: %d calls went to nova's own functions (at most %d allowed)"
              % (nn.stats["fallback"], limit))
    print("%d passed, %d failed" % (passed, nfailed + too_many))
    return 1 if unexpected or loader_errors or too_many else 0


if __name__ == "__main__":
    sys.exit(main())
