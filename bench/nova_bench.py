#!/usr/bin/python3
"""Time nova's own numa_fit_instance_to_host() on a scenario file.

    /usr/bin/python3 bench/nova_bench.py FILE.jsonl [--full-limit SECONDS]
        [--target-ms MS] [--max-reps N] [--nova-release zed|latest]
        [--strategy spread|pack] [--force-extrapolate]

FILE holds `numafit fit --batch` lines (host, flavor, image, limits,
strategy, nova_release).  Prints the same JSON lines as
`numafit bench --json`: {"fit_ns": N, "fits": true|false} per scenario
({"error": class, "message": ...} where nova refuses the request or raises,
{"request": null} without NUMA topology), then
{"total_fit_ns": N, "scenarios": M}.

Only the call hardware.numa_fit_instance_to_host(host, request, limits) is
inside the timed region (time.perf_counter_ns around it): the host, the
request (nova's numa_get_constraints), the limits and a fresh deep copy of
the request for every call (nova mutates the request it fits) are built
beforehand.  A fast call is repeated (until --target-ms of nova time or
--max-reps calls, at least 3) and the MEDIAN of the calls is reported.

--semantics reference times, instead of plain nova, nova's INTENDED
semantics (the reference of tests/nova_fit_diff.py): the same permutation
walk calling nova's own _numa_fit_instance_cell (memoised per host cell and
guest cell index) and _numa_cells_support_network_metadata, without plain
nova's fit cache keyed on a mutated cell id.  Plain nova answers some
many-cell scenarios wrongly and early (a false fit), so its time there is
not the cost of the right answer.

Extrapolation.  nova walks itertools.permutations(host cells, guest cells):
n!/(n-k)! permutations when nothing fits.  When a full call would take more
than --full-limit seconds (default 60, the issue's "over a minute"), nova's
function is run with itertools.permutations patched (in nova.virt.hardware
only) to stop after N permutations (N1 grows from 1000 until such a run
takes >= 0.2 s; N2 = 2 N1).  The cost per permutation is measured on three
blocks of nova's order taken at random places of the walk (all the
permutations that start with a random prefix of host cells, long enough to
hold N2 of them: the patched permutations() walks only that block), as
(t(N2) - t(N1)) / (N2 - N1), averaged; the fixed cost is t(N1) from the
start of the walk minus N1 times that slope; and
    t(P) = fixed + slope * P,   P = n!/(n-k)!
The first permutations alone are not representative (nova's caches fill
there, and the cost of a permutation depends on how deep it gets), which
is why blocks from the middle of the walk are used.  Such lines read
{"fit_ns": N, "fits": false, "extrapolated": true, "permutations": P,
 "sampled_permutations": N2, "per_permutation_ns": slope, "fixed_ns": F}
("fits": false: no permutation in the sample fits; the many-cell scenarios
are built so that none does).  --force-extrapolate extrapolates every line
with more than 4 * N1 permutations, to check the method against full runs.
"""
import argparse
import copy
import itertools
import json
import logging
import math
import os
import random
import statistics
import sys
import time

try:
    import nova.conf
    from nova import exception as nova_exc
    from nova import objects
    from nova.virt import hardware
    from nova.pci import stats as pci_stats_mod
except Exception as e:  # pragma: no cover
    print("nova not importable (%s: %s)" % (type(e).__name__, e), file=sys.stderr)
    sys.exit(77)

objects.register_all()
CONF = nova.conf.CONF
logging.getLogger("nova").setLevel(logging.CRITICAL)
logging.getLogger("oslo").setLevel(logging.CRITICAL)

HERE = os.path.dirname(os.path.abspath(__file__))
_latest = None


def latest_rules():
    """tests/nova_fit_diff.py's LatestRules: Zed's functions with upstream
    master's rule changes (numafit's default profile)."""
    global _latest
    if _latest is None:
        sys.path.insert(0, os.path.join(HERE, "..", "tests"))
        import nova_fit_diff
        _latest = nova_fit_diff.LatestRules()
    return _latest.patch()


class NoPatch:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


class LimitedPermutations:
    """Stand-in for the itertools module inside nova.virt.hardware whose
    permutations() stops after `limit` permutations.  With a prefix (a
    tuple of positions in the pool), it walks only the block of
    permutations that start with those pool elements - a contiguous stretch
    of nova's (lexicographic) order from the middle of the walk."""

    def __init__(self, limit, prefix=()):
        self.limit = limit
        self.prefix = prefix
        self.hit = False

    def permutations(self, iterable, r=None):
        pool = list(iterable)
        r = len(pool) if r is None else r
        n = 0
        if self.prefix:
            head = tuple(pool[i] for i in self.prefix)
            rest = [x for i, x in enumerate(pool) if i not in self.prefix]
            it = (head + t for t in itertools.permutations(rest, r - len(head)))
        else:
            it = itertools.permutations(pool, r)
        for p in it:
            if n >= self.limit:
                self.hit = True
                return
            n += 1
            yield p

    def __getattr__(self, name):
        return getattr(itertools, name)


def build(d, release, strategy):
    """(host, request, limits, pack, rules) or an answer dict."""
    host = d["host"]
    if isinstance(host, str):
        host = json.loads(host)
    if not isinstance(host, dict) or "nova_object.name" not in host:
        return {"error": "SCHEMA", "message": "host: only NUMATopology primitives are supported"}
    host = objects.NUMATopology.obj_from_primitive(host)
    fl = d["flavor"]
    try:
        flavor = objects.Flavor(vcpus=fl["vcpus"], memory_mb=fl["memory_mb"],
                                extra_specs=dict(fl.get("extra_specs") or {}))
        image = objects.ImageMeta.from_dict(copy.deepcopy(d.get("image") or {}))
    except Exception as e:
        return {"error": type(e).__name__, "message": str(e)}
    release = d.get("nova_release", release)
    rules = latest_rules() if release == "latest" else NoPatch()
    with rules:
        try:
            req = hardware.numa_get_constraints(flavor, image)
        except Exception as e:
            return {"error": type(e).__name__, "message": str(e)}
    if req is None:
        return {"request": None}
    lim = d.get("limits")
    limits = None
    if lim:
        if "nova_object.name" in lim:
            limits = objects.NUMATopologyLimits.obj_from_primitive(lim)
        else:
            kw = {k: lim[k] for k in ("cpu_allocation_ratio", "ram_allocation_ratio")
                  if k in lim}
            nm = lim.get("network_metadata")
            if nm is not None:
                kw["network_metadata"] = objects.NetworkMetadata(
                    physnets=set(nm.get("physnets") or []), tunneled=bool(nm.get("tunneled")))
            limits = objects.NUMATopologyLimits(**kw)
    pack = d.get("strategy", strategy) == "pack"
    PCI.clear()
    if d.get("pci_pools") is not None or d.get("pci_requests"):
        # nova's scheduler: the host's PciDeviceStats, the spec's requests
        pools = [objects.PciDevicePool.from_dict(dict(p)) for p in d.get("pci_pools") or []]
        PCI["pci_stats"] = pci_stats_mod.PciDeviceStats(
            host, stats=objects.PciDevicePoolList(objects=pools))
        PCI["pci_requests"] = [objects.InstancePCIRequest(**r)
                               for r in d.get("pci_requests") or []]
    return host, req, limits, pack, rules


# --------------------------------------------------------------------------
# --semantics reference: nova's INTENDED semantics with nova's own functions
# --------------------------------------------------------------------------
_permutations = itertools.permutations  # swapped by limited_call()
_MISSING = object()


def reference_fit(host, req, limits):
    """The walk of tests/nova_fit_diff.py's reference: nova's host cell sorts
    (restated), the first permutation whose every guest cell i fits when
    checked by nova's own hardware._numa_fit_instance_cell() on an unmodified
    copy of guest cell i (memoised per (host cell, guest index): a pure
    function), then nova's own network check.  No fit cache keyed on a
    mutated cell id, so no false fits (plain nova's defect)."""
    if not (host and req) or len(host) < len(req):
        return None
    etp = req.emulator_threads_policy if "emulator_threads_policy" in req else None
    network_metadata = None
    if limits and "network_metadata" in limits:
        network_metadata = limits.network_metadata
    host_cells = host.cells
    if len(host) > len(req):
        pack = CONF.compute.packing_host_numa_cells_allocation_strategy
        host_cells = sorted(host_cells, reverse=not pack, key=lambda c: c.avail_memory)
        if req.cells[0].cpu_policy in (None, "shared"):
            host_cells = sorted(host_cells, reverse=pack, key=lambda c: c.cpu_usage)
        else:
            host_cells = sorted(host_cells, reverse=not pack, key=lambda c: len(c.free_pcpus))
    memo = {}
    isolated = req.emulator_threads_isolated
    for perm in _permutations(host_cells, len(req)):
        chosen = []
        for i, hc in enumerate(perm):
            key = (hc.id, i)
            got = memo.get(key, _MISSING)
            if got is _MISSING:
                try:
                    got = hardware._numa_fit_instance_cell(
                        hc, copy.deepcopy(req.cells[i]), limits,
                        1 if (i == 0 and isolated) else 0)
                except nova_exc.MemoryPageSizeNotSupported:
                    got = None
                memo[key] = got
            if got is None:
                break
            chosen.append(got)
        if len(chosen) != len(perm):
            continue
        if network_metadata and not hardware._numa_cells_support_network_metadata(
                host, list(perm), network_metadata):
            continue
        return objects.InstanceNUMATopology(
            cells=[copy.deepcopy(c) for c in chosen], emulator_threads_policy=etp)
    return None


FIT = hardware.numa_fit_instance_to_host  # or reference_fit (--semantics)
PCI = {}  # the line's pci_stats and pci_requests (build())


def one_call(host, req, limits):
    """One timed call on a fresh copy of the request: (ns, result)."""
    r = copy.deepcopy(req)
    fit = FIT
    if PCI:
        if fit is not hardware.numa_fit_instance_to_host:
            raise ValueError("--semantics reference does not take PCI devices")
        kw = PCI
        t0 = time.perf_counter_ns()
        got = fit(host, r, limits, **kw)
        t1 = time.perf_counter_ns()
        return t1 - t0, got
    t0 = time.perf_counter_ns()
    got = fit(host, r, limits)
    t1 = time.perf_counter_ns()
    return t1 - t0, got


def limited_call(host, req, limits, n, prefix=()):
    """The call with itertools.permutations stopped after n permutations
    (patched in nova.virt.hardware, or in the reference walk), from the
    start or from the block of `prefix`:
    (ns, result, whether the limit was reached)."""
    global _permutations
    shim = LimitedPermutations(n, prefix)
    saved = hardware.itertools
    hardware.itertools = shim
    _permutations = shim.permutations
    try:
        ns, got = one_call(host, req, limits)
    finally:
        hardware.itertools = saved
        _permutations = itertools.permutations
    return ns, got, shim.hit


def extrapolate(host, req, limits, n, k, n1, n2, perms, windows=3):
    """nova's full time from bounded walks: the slope (cost per permutation)
    is the mean of (t(n2) - t(n1)) / (n2 - n1) over `windows` blocks of
    nova's order taken at random (seeded) places of the walk - the first
    permutations alone are not representative (nova's caches fill there, and
    their cost depends on which positions change); the fixed cost (sorting,
    the first real cell checks) is t(n1) from the start minus n1 slopes.
    Returns (estimate, slope, fixed)."""
    rng = random.Random(n * 1000 + k)
    # the shortest prefix whose block holds n2 permutations
    plen = 0
    while plen < k - 1 and math.perm(n - plen - 1, k - plen - 1) >= n2:
        plen += 1
    slopes = []
    for _ in range(windows):
        prefix = tuple(rng.sample(range(n), plen))
        t1 = limited_call(host, req, limits, n1, prefix)[0]
        t2 = limited_call(host, req, limits, n2, prefix)[0]
        slopes.append(max(0.0, (t2 - t1) / (n2 - n1)))
    slope = statistics.mean(slopes)
    t0 = min(limited_call(host, req, limits, n1)[0] for _ in range(2))
    fixed = max(0.0, t0 - slope * n1)
    return fixed + slope * perms, slope, fixed


def bench(host, req, limits, args):
    n, k = len(host.cells), len(req.cells)
    perms = math.perm(n, k) if n >= k else 0
    probe = 1000
    # 1. probe with a bounded walk: does nova finish early, how fast does it go?
    if perms > 4 * probe:
        samples = []
        while True:
            ns, got, hit = limited_call(host, req, limits, probe)
            if not hit:  # finished (fit found) before the limit: time it fully
                break
            samples.append((probe, ns))
            if ns >= 200_000_000 or probe * 8 > perms:
                break
            probe *= 2
        if samples and samples[-1][0] == probe and hit:
            n1 = probe
            n2 = 2 * n1
            if n2 < perms:
                est, slope, fixed = extrapolate(host, req, limits, n, k, n1, n2, perms)
                if args.force_extrapolate or est > args.full_limit * 1e9:
                    return {"fit_ns": int(round(est)), "fits": False, "extrapolated": True,
                            "permutations": perms, "sampled_permutations": n2,
                            "per_permutation_ns": round(slope, 1),
                            "fixed_ns": int(fixed)}
    # 2. full calls, median
    ns, got = one_call(host, req, limits)
    times = [ns]
    budget = args.target_ms * 1e6
    while len(times) < args.max_reps and (len(times) < 3 or sum(times) < budget):
        times.append(one_call(host, req, limits)[0])
    return {"fit_ns": int(statistics.median(times)), "fits": got is not None}


def answer(text, args):
    """The answer line (a dict) for one input line."""
    try:
        if not text.strip():
            raise ValueError("empty line")
        d = json.loads(text)
        if not isinstance(d, dict):
            raise ValueError("a line must be a JSON object")
    except ValueError as e:
        return {"error": "PARSE", "message": str(e)}
    if d.get("op", "fit") != "fit":
        return {"error": "SCHEMA", "message": 'numafit bench times fits: "op" must be "fit"'}
    got = build(d, args.nova_release, args.strategy)
    if isinstance(got, dict):
        return got
    host, req, limits, pack, rules = got
    CONF.set_override("packing_host_numa_cells_allocation_strategy", pack, group="compute")
    try:
        with rules:
            return bench(host, req, limits, args)
    except Exception as e:
        return {"error": type(e).__name__, "message": str(e)}
    finally:
        CONF.clear_override("packing_host_numa_cells_allocation_strategy", group="compute")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("--full-limit", type=float, default=60.0,
                    help="extrapolate where a full call would take longer (s; default 60)")
    ap.add_argument("--target-ms", type=float, default=20.0,
                    help="repeat a fast call until this much nova time (default 20 ms)")
    ap.add_argument("--max-reps", type=int, default=25)
    ap.add_argument("--nova-release", choices=("zed", "latest"), default="latest")
    ap.add_argument("--strategy", choices=("spread", "pack"), default="spread")
    ap.add_argument("--force-extrapolate", action="store_true")
    ap.add_argument("--semantics", choices=("nova", "reference"), default="nova",
                    help="nova: time hardware.numa_fit_instance_to_host as it is; "
                         "reference: nova's intended semantics (no fit-cache defect), "
                         "with nova's own per-cell and network functions")
    ap.add_argument("--progress", action="store_true", help="line numbers on stderr")
    args = ap.parse_args()
    global FIT
    if args.semantics == "reference":
        FIT = reference_fit

    total, timed = 0, 0
    f = sys.stdin if args.file == "-" else open(args.file)
    for lineno, text in enumerate(f, 1):
        if args.progress:
            print("nova_bench: %s line %d" % (args.file, lineno), file=sys.stderr, flush=True)
        ans = answer(text, args)
        if "fit_ns" in ans:
            total += ans["fit_ns"]
            timed += 1
        print(json.dumps(ans, separators=(",", ":")), flush=True)
    print(json.dumps({"total_fit_ns": total, "scenarios": timed}, separators=(",", ":")))


if __name__ == "__main__":
    main()
