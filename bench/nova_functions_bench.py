#!/usr/bin/python3
"""Every function numafit.nova.patch() replaces, against nova's own, on the
same inputs.

    NUMAFIT_LIBRARY=libnumafit/.libs/libnumafit.so.0 \\
        /usr/bin/python3 bench/nova_functions_bench.py [--calls 300]

Inputs: the flavor mix of bench/nova_filter_bench.py (shared, dedicated,
isolate, require, 1G pages, realtime with emulator threads isolate, 2 and 4
guest nodes, mixed, physnet, tunnelled) with an image without properties
and one with CPU topology properties; the real-host fixtures of
tests/data/hosts/ with random usage for the NUMA functions (each call on
an object nova built from the column, as its resource tracker reads it;
nova's functions and ours each get their own objects, built untimed);
CPU spec strings and sets for parse_cpu_spec and format_cpu_spec.

Each function is timed over the whole input set, nova's first, then with
numafit.nova.patch(names=FUNCTIONS) (ours, whether the default patch()
replaces it or not: the last column says), the garbage collector on; the
times are us per call.
The last column counts the inputs where the answers differ: host cells,
vCPU sets, memory, page size and the set of pinned pCPUs of a fitted
topology (the thread order inside a core differs on purpose); the usage
counts of a claimed one (nova's fit cache defect and its other defects of
doc/nova-differences.md can cause some). Not part of make
check.
"""
import argparse
import gc
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import nova_filter_bench as nfb  # noqa: E402
from nova_filter_bench import hardware, objects  # noqa: E402

import numafit.nova as nn  # noqa: E402

IMAGES = [{}, {"hw_cpu_sockets": "2", "hw_cpu_max_threads": "2"}]
SPECS = ["0-31", "0-63,^4,^6,^33", "2-5,8,10-11", "^0-1,0-15"]


def answer(v):
    """A comparable form of what a function returned."""
    if v is None or isinstance(v, (int, str, set, frozenset)):
        return v
    if isinstance(v, (list, tuple)):
        return [answer(x) for x in v]
    name = v.obj_name() if hasattr(v, "obj_name") else None
    if name == "NUMATopology":  # what a claim changes (nova_filter_bench)
        return nfb.usage_counts(v)
    if name == "InstanceNUMATopology":  # where the cells went (pinned pCPUs as a set:
        # the thread order inside a core may differ on purpose)
        return [(c.id, sorted(c.cpuset), sorted(c.pcpuset), c.memory,
                 c.pagesize if "pagesize" in c else None,
                 sorted(c.cpu_pinning.values()) if "cpu_pinning_raw" in c and
                 c.cpu_pinning_raw else None) for c in v.cells]
    if hasattr(v, "obj_to_primitive"):
        p = v.obj_to_primitive()
        d = p["nova_object.data"]
        d.pop("instance_uuid", None)
        d.pop("id", None)
        return repr(sorted(d.items()))
    return repr(v)


def timed(calls):
    """Run the list of (function name, args) through nova.virt.hardware:
    (total ns, answers)."""
    out = []
    t = 0
    for name, args in calls:
        fn = getattr(hardware, name)
        t0 = time.perf_counter_ns()
        try:
            v = fn(*args)
        except Exception as e:  # nova's exception is an answer too
            v = ("raised", type(e).__name__)
        t += time.perf_counter_ns() - t0
        out.append(answer(v))
    return t, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=300, help="calls per function and side")
    ap.add_argument("--seed", type=int, default=20261202)
    args = ap.parse_args()
    prims = nfb.load_fixtures()
    flavors = []
    for name, vcpus, mem, specs in nfb.FLAVORS:
        flavors.append(objects.Flavor(vcpus=vcpus, memory_mb=mem, extra_specs=dict(specs),
                                      name=name, root_gb=0, ephemeral_gb=0))
    images = [objects.ImageMeta.from_dict({"properties": p}) for p in IMAGES]
    pairs = [(f, i) for f in flavors for i in images]
    n = args.calls

    def flavor_calls(name):
        return lambda side: [(name, pairs[k % len(pairs)]) for k in range(n)]

    def numa_inputs(side, k):
        """(host topology read from the column, the request's topology,
        limits) number k: the same content on both sides, built on the
        side's own column reader."""
        r = random.Random(args.seed + k)
        text = nfb.with_usage(prims[k % len(prims)], r)
        f = flavors[k % len(flavors)]
        req = hardware.numa_get_constraints(f, images[0])
        lim = objects.NUMATopologyLimits(cpu_allocation_ratio=r.choice([1.0, 4.0]),
                                         ram_allocation_ratio=1.0)
        return objects.NUMATopology.obj_from_db_obj(text), req, lim

    def fit_calls(side):
        out = []
        for k in range(n):
            host, req, lim = numa_inputs(side, k)
            if req is not None:
                out.append(("numa_fit_instance_to_host", (host, req, lim)))
        return out

    def usage_calls(side):
        out = []
        for k in range(n):
            host, req, lim = numa_inputs(side, k)
            fitted = req and hardware.numa_fit_instance_to_host(host, req, lim)
            if fitted is not None:
                host, _, _ = numa_inputs(side, k)  # a fresh object, as the tracker reads it
                out.append(("numa_usage_from_instance_numa", (host, fitted)))
        return out

    def cell_calls(side):
        out = []
        for k in range(n):
            host, req, lim = numa_inputs(side, k)
            if req is not None:
                cell = host.cells[k % len(host.cells)]
                out.append(("_numa_fit_instance_cell", (cell, req.cells[0], lim)))
        return out

    def spec_calls(side):
        return [("parse_cpu_spec", (SPECS[k % len(SPECS)],)) for k in range(n)]

    def format_calls(side):
        sets = [set(range(0, 32)), {0, 2, 4, 5, 6, 9}, set(range(64)) - {4, 6, 33}, {7}]
        return [("format_cpu_spec", (sets[k % len(sets)],)) for k in range(n)]

    table = [
        ("numa_get_constraints", flavor_calls("numa_get_constraints")),
        ("get_cpu_topology_constraints", flavor_calls("get_cpu_topology_constraints")),
        ("get_best_cpu_topology", flavor_calls("get_best_cpu_topology")),
        ("_get_desirable_cpu_topologies", flavor_calls("_get_desirable_cpu_topologies")),
        ("numa_fit_instance_to_host", fit_calls),
        ("_numa_fit_instance_cell", cell_calls),
        ("numa_usage_from_instance_numa", usage_calls),
        ("parse_cpu_spec", spec_calls),
        ("format_cpu_spec", format_calls),
    ]
    print("%-31s %7s %10s %12s %7s %9s %9s" % ("function", "calls", "nova us", "numafit us",
                                                "ratio", "differ", "patch()"))
    for name, make in table:
        res = {}
        for side in ("nova", "numafit"):
            if side == "numafit":
                nn.patch(names=nn.FUNCTIONS + nn.METHODS)  # ours, default or not
            else:
                nn.unpatch()
            calls = make(side)
            gc.collect()
            timed(calls[:10])  # first calls: imports, the once-per-process checks
            res[side] = timed(calls)
        nn.unpatch()
        (tn, an), (to, ao) = res["nova"], res["numafit"]
        k = len(an)
        differ = sum(1 for a, b in zip(an, ao) if a != b)
        print("%-31s %7d %10.1f %12.1f %6.1fx %9d %9s" % (
            name, k, tn / k / 1000, to / k / 1000, tn / to, differ,
            "yes" if name in nn.DEFAULT_FUNCTIONS else "no"))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
