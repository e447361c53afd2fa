#!/usr/bin/python3
"""The fleet benchmark with nova: fill a SAMPLE of hosts, extrapolate.

    /usr/bin/python3 bench/nova_fleet.py --params fleet.json --host HOST.json
        [--sample 20] [--json]

HOST.json is the fleet's host as nova's NUMATopology primitive, as
`bench/fleet --params fleet.json --dump-host` prints it (so that nova and
numafit fill the very same host).  Each of --sample hosts is filled the way
bench/fleet fills its hosts: the params' flavors tried round-robin with
nova's hardware.numa_fit_instance_to_host() and, when one fits,
hardware.numa_usage_from_instance_numa() (the claim), until none of the
flavors fits any more (as many misses in a row as there are flavors).
Requests are built once with nova's numa_get_constraints(); the deep copy of
the request each call needs (nova mutates it) is made outside the timed
region.  The fill time of the sample is EXTRAPOLATED to the params' number
of hosts (10,000) linearly: every host is identical and filled alone.
"""
import argparse
import copy
import json
import logging
import sys
import time

try:
    import nova.conf
    from nova import objects
    from nova.virt import hardware
except Exception as e:  # pragma: no cover
    print("nova not importable (%s: %s)" % (type(e).__name__, e), file=sys.stderr)
    sys.exit(77)

objects.register_all()
CONF = nova.conf.CONF
logging.getLogger("nova").setLevel(logging.CRITICAL)
logging.getLogger("oslo").setLevel(logging.CRITICAL)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--params", required=True)
    ap.add_argument("--host", required=True, help="NUMATopology primitive (fleet --dump-host)")
    ap.add_argument("--sample", type=int, default=20)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    params = json.load(open(args.params))
    if params.get("nova_release", "zed") != "zed":
        print("nova_fleet: only the installed nova's rules (zed) are supported", file=sys.stderr)
        return 2
    CONF.set_override("packing_host_numa_cells_allocation_strategy",
                      params.get("strategy") == "pack", group="compute")
    template = objects.NUMATopology.obj_from_primitive(json.load(open(args.host)))
    flavors = []
    for f in params["flavors"]:
        fl = objects.Flavor(vcpus=f["vcpus"], memory_mb=f["memory_mb"],
                            extra_specs=dict(f["extra_specs"]))
        req = hardware.numa_get_constraints(fl, objects.ImageMeta.from_dict({}))
        flavors.append((f["name"], req))
    lim = params.get("limits")
    limits = None
    if lim:
        limits = objects.NUMATopologyLimits(cpu_allocation_ratio=lim["cpu_allocation_ratio"],
                                            ram_allocation_ratio=lim["ram_allocation_ratio"])
    placed = {name: 0 for name, _ in flavors}
    attempts = fits = 0
    fit_ns = claim_ns = 0
    per_host = []
    for _ in range(args.sample):
        host = copy.deepcopy(template)
        misses, nxt, n = 0, 0, 0
        while misses < len(flavors):
            name, req = flavors[nxt]
            nxt = (nxt + 1) % len(flavors)
            r = copy.deepcopy(req)
            t0 = time.perf_counter_ns()
            topo = hardware.numa_fit_instance_to_host(host, r, limits)
            t1 = time.perf_counter_ns()
            fit_ns += t1 - t0
            attempts += 1
            if topo is None:
                misses += 1
                continue
            t1 = time.perf_counter_ns()
            host = hardware.numa_usage_from_instance_numa(host, topo)
            t2 = time.perf_counter_ns()
            claim_ns += t2 - t1
            fits += 1
            placed[name] += 1
            n += 1
            misses = 0
        per_host.append(n)
    total = params.get("hosts", 10000)
    scale = total / args.sample
    out = {"sample_hosts": args.sample, "hosts": total, "extrapolated": True,
           "placed_sample": sum(per_host), "placed_per_host": sorted(set(per_host)),
           "placed_per_flavor_sample": placed, "fit_attempts_sample": attempts,
           "fits_sample": fits, "fit_ns_sample": fit_ns, "claim_ns_sample": claim_ns,
           "fill_ns": int((fit_ns + claim_ns) * scale),
           "ns_per_fit_attempt": int((fit_ns + claim_ns) / max(1, attempts)),
           "fit_only_ns_per_attempt": int(fit_ns / max(1, attempts))}
    if args.json:
        print(json.dumps(out, separators=(",", ":")))
    else:
        print("nova fleet: %d sample hosts filled, EXTRAPOLATED to %d hosts" % (args.sample, total))
        print("  instances per host   %s" % out["placed_per_host"])
        for name, c in placed.items():
            print("    %-24s %d (sample)" % (name, c))
        print("  fits attempted       %d in the sample (%d fit)" % (attempts, fits))
        print("  fill time            %.3f s for the sample (fits %.3f s, claims %.3f s)"
              % ((fit_ns + claim_ns) / 1e9, fit_ns / 1e9, claim_ns / 1e9))
        print("  extrapolated         %.1f s for %d hosts" % (out["fill_ns"] / 1e9, total))
        print("  time per fit         %.1f us (fill time / fit attempts, claims included;"
              " %.1f us for numa_fit_instance_to_host alone)"
              % (out["ns_per_fit_attempt"] / 1e3, out["fit_only_ns_per_attempt"] / 1e3))
    return 0


if __name__ == "__main__":
    sys.exit(main())
