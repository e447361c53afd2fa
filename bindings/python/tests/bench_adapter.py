#!/usr/bin/python3
"""Time numafit.nova.numa_fit_instance_to_host (the adapter: nova objects in
and out; also with its host and request caches emptied before each call)
and numafit.fit (the binding on prepared handles) against nova's own
numa_fit_instance_to_host, on the same machine in the same run.

    NUMAFIT_LIBRARY=... PYTHONPATH=bindings/python \\
        /usr/bin/python3 bindings/python/tests/bench_adapter.py FILE.jsonl [--reps N]

FILE.jsonl: `numafit fit --batch` lines with NUMATopology primitives (e.g.
bench-data/mix.jsonl written by bench/gen_scenarios.py, "nova_release":
"zed").  --max-permutations N keeps only the lines whose label in the
.meta.jsonl file beside FILE has at most N host-cell permutations (for
manycell.jsonl: 50000 keeps the 9 scenarios plain nova finishes within a
second).  Lines with "pci_pools" or "pci_requests" (pcimix.jsonl) pass nova's
PciDeviceStats and InstancePCIRequest objects to both functions; for them
the adapter is also timed without the devices (per-scenario ratios
printed).  Not part of make check.  Prints per-scenario medians summarised
(median and total) and the ratios.
"""
import argparse
import copy
import json
import logging
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))  # from bindings/python/tests
sys.path.insert(0, os.path.join(TOP, "bench"))

import nova_bench  # noqa: E402  (bench/: builds nova objects from the lines)
import numafit  # noqa: E402
import numafit.nova as nn  # noqa: E402

logging.getLogger("nova").setLevel(logging.CRITICAL)


def timed(f, reps):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        f()
        ts.append(time.perf_counter_ns() - t0)
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--max-permutations", type=int, default=None)
    args = ap.parse_args()
    hw = nova_bench.hardware
    rows, pci_rows, differ = [], [], 0
    with open(args.file) as f:
        lines = [json.loads(x) for x in f if x.strip()]
    if args.max_permutations is not None:
        with open(args.file[:-len(".jsonl")] + ".meta.jsonl") as f:
            meta = [json.loads(x) for x in f if x.strip()]
        lines = [d for d, m in zip(lines, meta)
                 if m.get("permutations", 0) <= args.max_permutations]
    for d in lines:
        b = nova_bench.build(d, "zed", "spread")
        if isinstance(b, dict):
            continue
        host, req, limits, pack, rules = b
        if pack:
            continue
        kw = dict(nova_bench.PCI)  # the line's pci_stats and pci_requests, if any
        nn.set_profile(d.get("nova_release", "zed"))
        prof = nn.profile()
        # nova's function mutates the request (nova-reference A.2): a fresh copy
        # per call, outside the timed region for both sides
        copies = [copy.deepcopy(req) for _ in range(args.reps + 1)]
        it = iter(copies)
        t_nova = timed(lambda: hw.numa_fit_instance_to_host(host, next(it), limits, **kw),
                       args.reps)
        t_adapter = timed(lambda: nn.numa_fit_instance_to_host(host, req, limits, **kw),
                          args.reps)

        def cold():
            for mod in (nn, nn.hardware):
                for cache in ("_hosts", "_requests", "_pci_pools", "_pci_requests",
                              "_pci_optionses"):  # those this version has
                    if hasattr(mod, cache):
                        getattr(mod, cache).clear()
            nn.numa_fit_instance_to_host(host, req, limits, **kw)
        t_cold = timed(cold, args.reps)
        h = numafit.Host.from_json(d["host"])
        r = numafit.Request.from_json(d["flavor"], d.get("image"), prof)
        opt = numafit.Options(nn.limits_json(limits), prof)
        pk = {}
        if kw:
            pk["pci_pools"] = numafit.PciPools.from_json(json.dumps(d.get("pci_pools") or []))
            pk["pci_requests"] = numafit.PciRequests.from_json(
                json.dumps(d.get("pci_requests") or []))
        t_lib = timed(lambda: numafit.fit(h, r, opt, **pk), args.reps)
        a = hw.numa_fit_instance_to_host(host, copy.deepcopy(req), limits, **kw) is not None
        b2 = nn.numa_fit_instance_to_host(host, req, limits, **kw) is not None
        differ += a != b2
        rows.append((t_nova, t_adapter, t_lib, t_cold))
        if kw:
            # the same call without devices, interleaved with the one with them
            t_plain = timed(lambda: nn.numa_fit_instance_to_host(host, req, limits), args.reps)
            t_adapter2 = timed(lambda: nn.numa_fit_instance_to_host(host, req, limits, **kw),
                               args.reps)
            it = iter([copy.deepcopy(req) for _ in range(args.reps + 1)])
            t_nova_plain = timed(lambda: hw.numa_fit_instance_to_host(host, next(it), limits),
                                 args.reps)
            pci_rows.append((min(t_adapter, t_adapter2) / t_plain, t_nova / t_nova_plain))
    if not rows:
        print("no scenarios")
        return 1
    med = [statistics.median(r[i] for r in rows) for i in range(4)]
    tot = [sum(r[i] for r in rows) for i in range(4)]
    print("scenarios: %d (fits differ from plain nova: %d, nova's defects)" % (len(rows), differ))
    print("median per fit: nova %.1f us, adapter %.1f us (host and request not cached: "
          "%.1f us), binding %.1f us" % (med[0] / 1e3, med[1] / 1e3, med[3] / 1e3, med[2] / 1e3))
    print("ratio nova/adapter: median %.2f, total %.2f (not cached: median %.2f, total %.2f); "
          "nova/binding: median %.1f, total %.1f"
          % (med[0] / med[1], tot[0] / tot[1], med[0] / med[3], tot[0] / tot[3],
             med[0] / med[2], tot[0] / tot[2]))
    if pci_rows:
        ra = sorted(r[0] for r in pci_rows)
        q = [ra[min(len(ra) - 1, int(len(ra) * f))] for f in (0.5, 0.75, 0.9)]
        print("with devices against the same call without (pci_requests and pci_stats "
              "left out), per scenario: adapter median %.2fx, 75th %.2fx, 90th %.2fx, "
              "worst %.2fx, %d of %d within 2x; nova median %.2fx"
              % (q[0], q[1], q[2], ra[-1], sum(x <= 2 for x in ra), len(ra),
                 statistics.median(r[1] for r in pci_rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
