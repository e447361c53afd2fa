#!/usr/bin/python3
"""Run nova's own test modules plain and with numafit in place, and
compare them test by test.

    NUMAFIT_LIBRARY=.../libnumafit.so.0 PYTHONPATH=bindings/python \\
    OS_WSGI__API_PASTE_CONFIG=.../api-paste.ini \\
        /usr/bin/python3 bindings/python/tests/check_nova_suites.py [-j N]
        [--logs DIR] [--only SUBSTRING]

Every module runs in its own processes (run_nova_hardware_tests.py):
- plain: nova as Debian ships it;
- patched: numafit.nova.patch() applied (nova.virt.hardware's NUMA
  functions replaced);
- filter (functional tests only): patched, and nova's scheduler uses
  numafit.scheduler.NumafitNUMATopologyFilter where it would use
  NUMATopologyFilter.

A test that passes plain and fails in another mode is a regression unless
nova_suites_allowed.txt lists it for that mode, with a text its failure
must contain (the evidence) and the reason.  test_hardware's patched run
also takes nova_hardware_allowed_failures.txt.  The filter mode must have
asked numafit's filter about at least one request.  Prints one line per
module and mode, then "N regressions"; exits 1 on any regression, on an
allowed failure failing for another reason, or on a run that gave no
results.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "run_nova_hardware_tests.py")
UNIT = ("plain", "patched")
FUNCTIONAL = ("plain", "patched", "filter")
SUITES = [
    ("nova.tests.unit.virt.test_hardware", UNIT),
    ("nova.tests.unit.scheduler.filters.test_numa_topology_filters", UNIT),
    ("nova.tests.unit.compute.test_claims", UNIT),
    ("nova.tests.unit.objects.test_numa", UNIT),
    ("nova.tests.unit.compute.test_resource_tracker", UNIT),
    ("nova.tests.unit.virt.libvirt.test_driver", UNIT),
    ("nova.tests.functional.libvirt.test_numa_servers", FUNCTIONAL),
    ("nova.tests.functional.libvirt.test_rt_servers", FUNCTIONAL),
    ("nova.tests.functional.libvirt.test_numa_live_migration", FUNCTIONAL),
    ("nova.tests.functional.libvirt.test_pci_sriov_servers", FUNCTIONAL),
]
FLAGS = {"plain": ["--unpatched"], "patched": [], "filter": ["--scheduler-filter"]}


def load_allowed(path):
    """(mode, test id) -> (evidence, reason) from nova_suites_allowed.txt
    lines "MODE TEST-ID EVIDENCE REASON..." (evidence has no spaces)."""
    allowed = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            mode, tid, evidence, reason = line.split(None, 3)
            allowed[(mode, tid)] = (evidence, reason)
    return allowed


def load_hardware_allowed(path, module):
    """nova_hardware_allowed_failures.txt (read by the runner's reader) as
    (mode, test id) -> (no evidence, reason) for test_hardware's patched
    run."""
    from run_nova_hardware_tests import load_allowed as load_runner_allowed
    return {("patched", module + "." + tid): (None, reason)
            for tid, reason in load_runner_allowed(path).items()}


def run(module, mode, logs):
    base = os.path.join(logs, "%s.%s" % (module.rsplit(".", 1)[-1], mode))
    cmd = [sys.executable, RUNNER, "--module", module, "--allowed", os.devnull,
           "--results", base + ".json"] + FLAGS[mode]
    start = time.time()
    with open(base + ".log", "w") as log:
        rc = subprocess.call(cmd, stdout=log, stderr=subprocess.STDOUT)
    try:
        with open(base + ".json") as f:
            res = json.load(f)
    except (OSError, ValueError):
        res = None
    return module, mode, rc, res, time.time() - start, base + ".log"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--logs", help="directory for each run's log and results")
    ap.add_argument("--only", help="only the modules whose name contains this")
    args = ap.parse_args()
    suites = [(m, modes) for m, modes in SUITES if not args.only or args.only in m]
    try:
        import nova.tests.functional  # noqa: F401
        import numafit.nova  # noqa: F401
    except ImportError as e:
        print("cannot import nova's tests or numafit (%s): skip" % e)
        return 77
    paste = os.environ.get("OS_WSGI__API_PASTE_CONFIG")
    if any(".functional." in m for m, _ in suites) and not (paste and os.path.exists(paste)):
        print("nova's functional tests need nova-common's api-paste.ini: set "
              "OS_WSGI__API_PASTE_CONFIG (scripts/setup-nova-test-deps.sh DIR extracts it "
              "into DIR)")
        return 1
    logs = args.logs or tempfile.mkdtemp(prefix="numafit-nova-suites-")
    os.makedirs(logs, exist_ok=True)
    allowed = load_allowed(os.path.join(HERE, "nova_suites_allowed.txt"))
    allowed.update(load_hardware_allowed(
        os.path.join(HERE, "nova_hardware_allowed_failures.txt"), SUITES[0][0]))

    # the longest runs first, so that the two jobs end together
    jobs = [(m, mode) for m, modes in suites for mode in modes]
    jobs.sort(key=lambda j: (".functional." not in j[0], "test_driver" not in j[0]))
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        done = list(pool.map(lambda j: run(j[0], j[1], logs), jobs))
    results = {(m, mode): (rc, res, secs, log) for m, mode, rc, res, secs, log in done}

    bad = 0
    regressions = 0
    print("%-62s %-8s %5s %5s %5s %5s %7s %8s %s" % (
        "module", "mode", "tests", "pass", "fail", "skip", "regress", "allowed",
        "adapter calls (library/nova's own), filter requests, seconds"))
    for module, modes in suites:
        plain = results[(module, "plain")][1]
        for mode in modes:
            rc, res, secs, log = results[(module, mode)]
            if res is None:
                print("%-62s %-8s no results (exit status %d; see %s)" % (module, mode, rc, log))
                bad += 1
                continue
            out = res["outcome"]
            counts = {k: sum(1 for v in out.values() if v == k) for k in ("pass", "fail", "skip")}
            reg, allow = [], []
            if mode != "plain" and plain is not None:
                for tid, v in sorted(out.items()):
                    full = tid if tid.startswith(module) else module + "." + tid
                    if v != "fail" or plain["outcome"].get(tid) != "pass":
                        continue
                    entry = allowed.get((mode, full))
                    text = res.get("failures", {}).get(tid, "")
                    if entry and (entry[0] is None or entry[0] in text):
                        allow.append(full)
                    else:
                        reg.append((full, entry))
            extra = ""
            if mode != "plain":
                extra = "%s/%s" % (res["library"], res["fallback"])
                if mode == "filter":
                    extra += ", %s" % res["filter_requests"]
                    if not res["filter_requests"]:
                        print("  numafit's filter was never asked: the swap did not take (%s)" % log)
                        bad += 1
            print("%-62s %-8s %5d %5d %5d %5d %7d %8d %s, %.0f s" % (
                module, mode, len(out), counts["pass"], counts["fail"], counts["skip"],
                len(reg), len(allow), extra or "-", secs))
            for full, entry in reg:
                why = (" (listed, but its failure lacks %r)" % entry[0]) if entry else ""
                print("  REGRESSION %s%s (see %s)" % (full, why, log))
            regressions += len(reg)
            if mode != "plain" and res.get("fallbacks"):
                for why, n in sorted(res["fallbacks"].items()):
                    print("  to nova's own: %d x %s" % (n, why))
    print("logs: %s" % logs)
    print("%d regressions" % regressions)
    return 1 if regressions or bad else 0


if __name__ == "__main__":
    sys.exit(main())
