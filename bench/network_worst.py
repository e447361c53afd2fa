#!/usr/bin/python3
"""The worst network-affinity fits we can build: numafit against nova.

    /usr/bin/python3 bench/network_worst.py --numafit tools/numafit/numafit \
        [--out bench-data] [--full-limit SECONDS]

nova's network check (_numa_cells_support_network_metadata) asks that the
host cells chosen for the guest cells offer every requested physnet (and a
tunnelled cell when tunnelled networks are requested and some cell is): a
set cover, NP-hard in the number of networks.  libnumafit bounds the search
from below with the exact minimum cover (up to 20 networks), a greedy
family of disjoint networks and a matching of guest cells into the cells
that hold a missing network, and stops at its work budget (default
NUMAFIT_BUDGET_DEFAULT steps) with a clear error otherwise.

Each case is a `numafit fit --batch` line written to OUT/network-worst.jsonl;
numafit's time is `numafit bench --json` on it (default budget), nova's is
bench/nova_bench.py (which extrapolates nova's permutation walk beyond
--full-limit seconds; "~" marks such an estimate of nova's whole walk, an
upper bound where a placement exists).  A case refused for its budget has
no `numafit bench` time: its time is the wall time of a `numafit fit
--batch` process on that line.  Prints one line per case: the answer,
numafit's time, nova's time and the ratio.
"""
import argparse
import json
import os
import subprocess
import sys
import time


def cell(i, physnets, tunneled, cpus=4, mem=4096):
    base = i * cpus
    data = {
        "id": i, "cpuset": [], "pcpuset": list(range(base, base + cpus)),
        "memory": mem, "cpu_usage": 0, "memory_usage": 0, "pinned_cpus": [],
        "siblings": [[c] for c in range(base, base + cpus)],
        "mempages": [{"nova_object.name": "NUMAPagesTopology",
                      "nova_object.namespace": "nova",
                      "nova_object.version": "1.1",
                      "nova_object.data": {"size_kb": 4, "total": mem * 256,
                                           "used": 0, "reserved": 0}}],
        "network_metadata": {"nova_object.name": "NetworkMetadata",
                             "nova_object.namespace": "nova",
                             "nova_object.version": "1.0",
                             "nova_object.data": {"physnets": sorted(physnets),
                                                  "tunneled": tunneled}},
    }
    return {"nova_object.name": "NUMACell", "nova_object.namespace": "nova",
            "nova_object.version": "1.5", "nova_object.data": data}


def host(nets, tunnels=()):
    """nets[i]: the physnets of cell i; tunnels: the tunnelled cells."""
    cells = [cell(i, n, i in tunnels) for i, n in enumerate(nets)]
    return {"nova_object.name": "NUMATopology", "nova_object.namespace": "nova",
            "nova_object.version": "1.2", "nova_object.data": {"cells": cells}}


def line(name, nets, nodes, physnets, tunneled=False, tunnels=()):
    flavor = {"vcpus": 2 * nodes, "memory_mb": 512 * nodes,
              "extra_specs": {"hw:numa_nodes": str(nodes), "hw:cpu_policy": "dedicated"}}
    limits = {"cpu_allocation_ratio": 1.0, "ram_allocation_ratio": 1.0,
              "network_metadata": {"physnets": physnets, "tunneled": tunneled}}
    return {"id": name, "host": host(nets, tunnels), "flavor": flavor, "limits": limits}


def cases():
    out = []
    # 5 triangles of physnets (each pair on one cell: 2 cells per triangle)
    # and one more physnet, among 84 cells without networks: 11 cells needed,
    # the guest has 8 (the 43-second reproducer of the reliability issue)
    nets = []
    for t in range(5):
        a, b, c = (f"p{3 * t}", f"p{3 * t + 1}", f"p{3 * t + 2}")
        nets += [[a, b], [b, c], [a, c]]
    nets += [["p15"]] + [[] for _ in range(84)]
    out.append(line("triangles-100cells-16physnets", nets, 8, [f"p{i}" for i in range(16)]))
    # the same with 11 guest cells: it fits, and the cover is found
    out.append(line("triangles-100cells-16physnets-fits", nets, 11,
                    [f"p{i}" for i in range(16)]))

    def cycle(m, ncells):
        return [sorted({f"n{i:02d}", f"n{(i - 1) % m:02d}"}) for i in range(m)] + \
               [[] for _ in range(ncells - m)]
    # odd cycles: m physnets, each on two neighbouring cells, need (m+1)/2
    out.append(line("cycle-15physnets-16cells-7nodes", cycle(15, 16), 7,
                    [f"n{i:02d}" for i in range(15)]))
    out.append(line("cycle-15physnets-16cells-8nodes", cycle(15, 16), 8,
                    [f"n{i:02d}" for i in range(15)]))
    # more networks than the exact bound takes (20): the budget decides
    out.append(line("cycle-21physnets-22cells-10nodes", cycle(21, 22), 10,
                    [f"n{i:02d}" for i in range(21)]))
    # tunnelled + physnets: 16 physnets on 2 cells each, tunnels on 4 cells,
    # 64 cells, 8 guest cells (satisfiable: pairs are chosen to share cells)
    nets = [[] for _ in range(64)]
    for i in range(16):
        nets[(i // 2) * 4].append(f"t{i}")
        nets[(i // 2) * 4 + 1 + (i % 2)].append(f"t{i}")
    out.append(line("tunnel-16physnets-64cells-8nodes", nets, 8,
                    [f"t{i}" for i in range(16)], tunneled=True, tunnels=(0, 4, 8, 12)))
    # 40 physnets, one per cell of 64, 8 guest cells: refused by coverage
    nets = [[f"q{i}"] if i < 40 else [] for i in range(64)]
    out.append(line("disjoint-40physnets-64cells-8nodes", nets, 8,
                    [f"q{i}" for i in range(40)]))
    return out


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    return [json.loads(x) for x in p.stdout.splitlines() if x.strip()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--numafit", required=True)
    ap.add_argument("--out", default="bench-data")
    ap.add_argument("--full-limit", type=float, default=20.0)
    ap.add_argument("--timeout", type=float, default=600.0)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "network-worst.jsonl")
    cs = cases()
    with open(path, "w") as f:
        for c in cs:
            f.write(json.dumps({k: v for k, v in c.items() if k != "id"}) + "\n")
    with open(path) as f:
        p = subprocess.run([a.numafit, "fit", "--batch"], stdin=f, capture_output=True,
                           text=True, timeout=120)
    answers = [json.loads(x) for x in p.stdout.splitlines() if x.strip()]
    ours = run([a.numafit, "bench", "--json", path], a.timeout) or []
    here = os.path.dirname(os.path.abspath(__file__))
    nova = run([sys.executable, os.path.join(here, "nova_bench.py"), path,
                "--full-limit", str(a.full_limit)], a.timeout) or []
    print(f"{'case':40} {'answer':>12} {'numafit':>12} {'nova':>14} {'ratio':>8}")
    for i, c in enumerate(cs):
        ans = answers[i] if i < len(answers) else {}
        if ans.get("fit"):
            what = "fits"
        elif ans.get("error"):
            what = ans["error"].get("code", "error") if isinstance(ans["error"], dict) \
                else str(ans["error"])
        else:
            what = "no fit"
        ours_ns = ours[i].get("fit_ns") if i < len(ours) else None
        if ours_ns is None:  # refused (the budget): the wall time of its batch line
            one = json.dumps({k: v for k, v in c.items() if k != "id"}) + "\n"
            t0 = time.perf_counter_ns()
            subprocess.run([a.numafit, "fit", "--batch"], input=one, capture_output=True,
                           text=True, timeout=120)
            ours_ns = time.perf_counter_ns() - t0
        nv = nova[i] if i < len(nova) else {}
        nova_ns = nv.get("fit_ns")
        ext = "~" if nv.get("extrapolated") else ""
        ratio = f"{nova_ns / ours_ns:.3g}x" if ours_ns and nova_ns else "-"
        fo = f"{ours_ns / 1e6:.3f} ms" if ours_ns is not None else "-"
        fn = f"{ext}{nova_ns / 1e9:.2f} s" if nova_ns is not None else "-"
        print(f"{c['id']:40} {what:>12} {fo:>12} {fn:>14} {ratio:>8}")


if __name__ == "__main__":
    main()
