#!/usr/bin/python3
"""The fit strategies on hosts of growing cell counts (doc/performance.md,
"The headroom strategy on many-cell hosts").

    LD_LIBRARY_PATH=libnumafit/.libs bench/headroom_scale.py \\
        --numafit tools/numafit/.libs/numafit [--fleet bench/fleet] [--out DIR]

For each synthetic host (2 to 212 cells), half filled with a round-robin of
flavors (spread fits claimed through the Python binding, not timed; nova's
default CPU ratio 4 and RAM ratio 1 as limits), one batch line per probe
flavor; `numafit bench --json` times one fit of each
line with spread, with headroom, and with headroom and a three-flavor mix.
Prints the median per host and the ratios to spread. With --fleet, also
bench/fleet --split on 20 such hosts filled to the end: the time of one
claim (and free) against one fit, which shows whether a claim still costs
the whole host.

headroom is not nova's, so there is no nova time to compare with: the
ratio that matters is to spread, nova's own order, on the same lines.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings",
                                "python"))
import numafit  # noqa: E402

HOSTS = [
    ("2 cells", "cells:2 sockets:2 cores:12 threads:2 mem:256G pages:1G=64"),
    ("8 cells", "cells:8 sockets:2 cores:32 threads:2 mem:512G pages:1G=128"),
    ("16 cells", "cells:16 sockets:4 cores:32 threads:2 mem:1024G pages:1G=256"),
    ("24 cells", "cells:24 sockets:2 cores:24 threads:2 mem:768G pages:1G=256"),
    ("64 cells", "cells:64 sockets:8 cores:64 threads:2 mem:2048G"),
    ("212 cells", "212x72c"),
]

FILL = [  # the round-robin that half fills each host
    (4, 8192, {"hw:cpu_policy": "dedicated"}),
    (4, 8192, {"hw:numa_nodes": "1"}),
    (8, 16384, {"hw:cpu_policy": "dedicated", "hw:numa_nodes": "2"}),
]

PROBES = [  # the fits timed
    {"vcpus": 4, "memory_mb": 4096, "extra_specs": {"hw:cpu_policy": "dedicated"}},
    {"vcpus": 8, "memory_mb": 8192,
     "extra_specs": {"hw:cpu_policy": "dedicated", "hw:numa_nodes": "2"}},
    {"vcpus": 2, "memory_mb": 2048,
     "extra_specs": {"hw:cpu_policy": "dedicated", "hw:cpu_thread_policy": "isolate"}},
]

LIMITS = {"cpu_allocation_ratio": 4.0, "ram_allocation_ratio": 1.0}

MIX = [  # the headroom mix, FLAVOR:WEIGHT
    ({"vcpus": 2, "memory_mb": 2048, "extra_specs": {"hw:cpu_policy": "dedicated"}}, 3),
    ({"vcpus": 4, "memory_mb": 4096, "extra_specs": {"hw:numa_nodes": "1"}}, 1),
    ({"vcpus": 8, "memory_mb": 8192,
      "extra_specs": {"hw:cpu_policy": "dedicated", "hw:numa_nodes": "2"}}, 2),
]


def half_filled(spec):
    """The synthetic host, its dedicated CPUs about half taken."""
    host = numafit.Host.synthetic(spec)
    total = sum(len(c["nova_object.data"]["pcpuset"])
                for c in host.to_dict()["nova_object.data"]["cells"])
    taken, i, misses = 0, 0, 0
    reqs = [numafit.Request.from_flavor(v, m, x) for v, m, x in FILL]
    while taken * 2 < total and misses < len(reqs):
        v = FILL[i % len(FILL)][0]
        p = host.fit_and_claim(reqs[i % len(reqs)], limits=LIMITS)
        if p is None:
            misses += 1
        else:
            misses = 0
            if "hw:cpu_policy" in FILL[i % len(FILL)][2]:
                taken += v
        i += 1
    return host


def bench(numafit_bin, lines_path, strategy, mix_args):
    out = subprocess.run([numafit_bin, "bench", "--json", "--budget", "0", "--strategy", strategy]
                         + mix_args + [lines_path], check=True, capture_output=True, text=True)
    rows = [json.loads(s) for s in out.stdout.splitlines()]
    return [r["fit_ns"] for r in rows if "fit_ns" in r]


def fmt(ns):
    if ns >= 1e6:
        return "%.2f ms" % (ns / 1e6)
    if ns >= 1e3:
        return "%.1f us" % (ns / 1e3)
    return "%d ns" % ns


def fleet_split(fleet_bin, spec, tmp):
    params = {"hosts": 20, "host_spec": spec, "nova_release": "latest", "strategy": "spread",
              "limits": LIMITS,
              "flavors": [{"name": "f%d" % k, "vcpus": v, "memory_mb": m, "extra_specs": x}
                          for k, (v, m, x) in enumerate(FILL)]}
    path = os.path.join(tmp, "fleet.json")
    with open(path, "w") as f:
        json.dump(params, f)
    out = subprocess.run([fleet_bin, "--params", path, "--split", "--json"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--numafit", required=True, help="the numafit program")
    ap.add_argument("--fleet", help="bench/fleet: also time claims against fits")
    ap.add_argument("--out", help="keep the lines and results here")
    a = ap.parse_args()
    tmp = a.out or tempfile.mkdtemp(prefix="headroom-scale-")
    os.makedirs(tmp, exist_ok=True)
    mix_args = []
    for k, (flavor, w) in enumerate(MIX):
        path = os.path.join(tmp, "mix%d.json" % k)
        with open(path, "w") as f:
            json.dump(flavor, f)
        mix_args += ["--headroom-mix", "%s:%g" % (path, w)]
    print("%-10s %10s %10s %10s %9s %9s" % ("host", "spread", "headroom", "+mix", "h/spread",
                                           "mix/spread"))
    results = []
    for name, spec in HOSTS:
        host = half_filled(spec)
        hj = host.to_dict()
        lines = os.path.join(tmp, "lines-%s.jsonl" % name.split()[0])
        with open(lines, "w") as f:
            for flavor in PROBES:
                f.write(json.dumps({"host": hj, "flavor": flavor, "limits": LIMITS}) + "\n")
        t = {s: statistics.median(bench(a.numafit, lines, s.split("+")[0],
                                        mix_args if "+" in s else []))
             for s in ("spread", "headroom", "headroom+mix")}
        row = {"host": name, "spec": spec, "median_ns": t}
        print("%-10s %10s %10s %10s %8.1fx %8.1fx" % (
            name, fmt(t["spread"]), fmt(t["headroom"]), fmt(t["headroom+mix"]),
            t["headroom"] / t["spread"], t["headroom+mix"] / t["spread"]))
        if a.fleet:
            fl = fleet_split(a.fleet, spec, tmp)
            row["fleet"] = fl
        results.append(row)
    if a.fleet:
        print("\nbench/fleet --split, 20 hosts filled to the end (spread):")
        print("%-10s %12s %12s %8s" % ("host", "fit", "claim+free", "claim/fit"))
        for row in results:
            fl = row["fleet"]
            fit = fl["fit_ns_total"] / max(fl["fit_attempts"], 1)
            claim = fl["claim_ns_total"] / max(fl["placed"], 1)
            print("%-10s %12s %12s %7.1fx" % (row["host"], fmt(fit), fmt(claim), claim / fit))
    with open(os.path.join(tmp, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    print("\nlines and results in %s" % tmp)


if __name__ == "__main__":
    main()
