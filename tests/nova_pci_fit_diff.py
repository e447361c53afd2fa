#!/usr/bin/python3
"""Differential test of libnumafit's fit WITH PCI devices against Debian's
nova 26.2.2 (numa_fit_instance_to_host with pci_requests and pci_stats).

    /usr/bin/python3 tests/nova_pci_fit_diff.py [--library PATH] [--seed N]
        [--count N] [--case K] [-v]

Scenarios: the hosts, flavors and limits of tests/nova_fit_diff.py (1 to 8
cells, sockets known or not, pinned and shared guests of 1 to 4 cells,
network metadata), with random PCI device pools on the host (those of
tests/nova_pci_diff.py: vendors, products, dev_type, physical_network,
trusted, remote_managed tags; on a cell, on no cell the host has, of
unknown node) and random PCI requests (1 to 3, every NUMA policy) or none
(pools but no request: nova then moves the cells with devices last).

The reference is nova's intended answer: nova's host-cell sorts including
the one by devices per cell, itertools.permutations, nova's own
_numa_fit_instance_cell on an unmodified copy of each guest cell, then
nova's own PciDeviceStats.support_requests on the chosen cells, then the
network check (tests/nova_fit_diff.reference_fit).  Plain nova is run too;
where it differs (its fit cache) that is counted as a nova defect, never a
failure.  numafit answers through numafit.try_fit(..., pci_pools,
pci_requests); it must agree as nova_fit_diff.compare_fit defines it (same
host cells, pages, cpusets, physical cores).  When both fit,
Host.try_fit_and_claim with the pools must leave the pools nova's
apply_requests leaves on the chosen cells.

The nova adapter (numafit.nova.numa_fit_instance_to_host, on nova's own
objects, with numafit.nova._VERIFY on: every cached PCI pool list and
request list is checked against one built afresh) must agree with the
reference too (with plain nova where the adapter hands the call to nova's
own function: an instance topology no flavor gives, such as a mixed cell
without shared vCPUs); when the reference fits with requests, the same
PciDeviceStats object is asked again after nova's apply_requests took the
devices from it in place (the adapter keys its PCI objects by content).

Both profiles (zed, latest).  Exit 0 when everything agrees, 1 otherwise,
77 without nova.  Last line: "N passed, N failed".
"""
import argparse
import collections
import copy
import json
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import nova_fit_diff as fd  # noqa: E402  (exits 77 without nova)
import nova_pci_diff as pd  # noqa: E402
from nova import objects  # noqa: E402
from nova.pci import stats as pci_stats  # noqa: E402


def gen_pci(rng, host):
    """(PciDevicePoolList, [InstancePCIRequest]) for host: pools on its
    cells (sometimes on a node it does not have, or of unknown node)."""
    ncells = len(host.cells)
    pools = pd.gen_pools(rng, ncells)
    for p in pools.objects:
        # nova's sort reads pool["numa_node"]: a pool always has one here
        if "numa_node" not in p:
            p.numa_node = None
    for p in pools.objects:
        # more devices than nova_pci_diff's pools: a fit then often depends
        # on which cells have them
        if rng.random() < 0.5:
            p.count = rng.randint(1, 4)
    x = rng.random()
    if x < 0.2:
        reqs = []
    elif x < 0.5:
        reqs = pd.gen_requests(rng, pools)
    else:
        # satisfiable more often: specs made from the pools, few devices
        reqs = []
        for _ in range(rng.choice([1, 1, 2])):
            specs = [pd.from_pool(rng, rng.choice(pools.objects))] if pools.objects else [{}]
            kw = dict(count=rng.choice([1, 1, 2]), spec=specs, alias_name="a1",
                      request_id=None)
            pol = rng.choice(pd.POLICIES)
            if pol != "unset":
                kw["numa_policy"] = pol
            reqs.append(objects.InstancePCIRequest(**kw))
    return pools, reqs


def nova_plain(host, req, limits, reqs, stats):
    try:
        return hardware_fit(copy.deepcopy(host), copy.deepcopy(req), limits, reqs,
                            copy.deepcopy(stats)), None
    except Exception as e:
        return None, "%s: %s" % (type(e).__name__, e)


def hardware_fit(host, req, limits, reqs, stats):
    return fd.hardware.numa_fit_instance_to_host(host, req, limits, pci_requests=reqs or None,
                                                 pci_stats=stats)


def flat(stats):
    return [dict(p) for p in stats]


def adapter_probs(nf, host, req, limits, reqs, stats, ref, cref, cnov, pname, ctx, st):
    """The nova adapter's answer on nova's objects against the reference
    (against plain nova's where the adapter hands the call to nova's own
    function: an instance topology no flavor gives); then, when the
    reference fits with requests, the same pools object after
    apply_requests (in place) against the reference on it.  Inside ctx, as
    nova's own function then has the profile's rules."""
    nn = nf.nova
    nn.set_profile(pname)
    fell = nn.stats["fallback"]
    with ctx:
        got = nn.numa_fit_instance_to_host(host, copy.deepcopy(req), limits, reqs or None, stats)
    if nn.stats["fallback"] != fell:
        # nova's own answer: the same as plain nova's, thread for thread
        # (numafit's lowest-free-thread rule is not nova's: nova takes a
        # core's threads in Python set order)
        st.c["%s adapter answers by nova's own function" % pname] += 1
        gotc = fd.canon_nova_topology(got)
        if gotc == cnov:
            return []
        return ["adapter (nova's own function): %s" % p
                for p in (fd.compare_fit(host, cnov, gotc, thread_order=False)
                          or ["%s != plain nova %s" % (gotc, cnov)])]
    probs = ["adapter: %s" % p for p in fd.compare_fit(host, cref, fd.canon_nova_topology(got))]
    st.c["%s adapter answers" % pname] += 1
    if probs or ref is None or not reqs:
        return probs
    after = copy.deepcopy(stats)
    with ctx:
        nn.numa_fit_instance_to_host(host, copy.deepcopy(req), limits, reqs, after)
        after.apply_requests(reqs, ref.cells)
        want = fd.canon_nova_topology(fd.reference_fit(host, req, limits, reqs, after))
        got = nn.numa_fit_instance_to_host(host, copy.deepcopy(req), limits, reqs, after)
    st.c["%s adapter answers on pools changed in place" % pname] += 1
    return ["adapter, pools changed in place: %s" % p
            for p in fd.compare_fit(host, want, fd.canon_nova_topology(got))]


def run_case(nf, s, profile, ctx, st, args):
    pname = "zed" if profile == fd.PROFILE_ZED else "latest"
    host, req, limits = s["host"], s["req"], s["limits"]
    pools, reqs = s["pools"], s["reqs"]
    stats = pci_stats.PciDeviceStats(host, stats=pools)
    with ctx:
        try:
            ref = fd.reference_fit(host, req, limits, reqs or None, stats)
        except Exception as e:
            st.c["%s nova crash %s (skipped)" % (pname, type(e).__name__)] += 1
            return []
        nov, nerr = nova_plain(host, req, limits, reqs, stats)
    cref = fd.canon_nova_topology(ref)
    cnov = fd.canon_nova_topology(nov)
    st.c["%s scenarios" % pname] += 1
    st.c["%s reference fits" % pname] += ref is not None
    if nerr or fd.compare_fit(host, cref, cnov, thread_order=False):
        st.c["%s nova defects (plain nova != reference)" % pname] += 1
    if ref is not None and fd.placement_problems(host, cref):
        st.c["%s impossible reference (overlapping siblings, skipped)" % pname] += 1
        return []
    if ref is not None and fd.nova_claim_refuses(host, ref, ctx):
        st.c["%s nova claim refuses its own fit (skipped)" % pname] += 1
        return []
    # does PCI decide anything here? (the reference without the devices)
    with ctx:
        plain = fd.reference_fit(host, req, limits)
    if reqs and plain is not None and ref is None:
        st.c["%s refused for the devices" % pname] += 1
    elif reqs and plain is not None and fd.canon_nova_topology(plain) != cref:
        st.c["%s other cells for the devices" % pname] += 1
    elif not reqs and ref is not None and fd.canon_nova_topology(plain) != cref:
        st.c["%s other cells: devices last" % pname] += 1
    probs = []
    with nf.Host.from_json(s["host_json"]) as h, \
            nf.PciPools.from_json(pools.obj_to_primitive()) as P, \
            nf.PciRequests.from_json(
                objects.InstancePCIRequests(requests=reqs).obj_to_primitive()) as R, \
            nf.Request.from_json(s["flavor"], s["image"], pname) as r:
        strategy = "pack" if s["pack"] else "spread"
        res = nf.try_fit(h, r, limits=s["limits_js"], profile=pname, strategy=strategy,
                         pci_pools=P, pci_requests=R)
        got = None
        if res.placement is not None:
            got = fd.canon_numafit_placement(json.loads(res.placement.to_json()))
            res.placement.close()
        probs = fd.compare_fit(host, cref, got)
        if cref is None and got is None and reqs and plain is not None:
            if res.code_name != "NOFIT_PCI":
                probs.append("refused for the devices, but the reason is %s (%s)"
                             % (res.code_name, res.text))
        probs += adapter_probs(nf, host, req, limits, reqs, stats, ref, cref, cnov, pname, ctx,
                               st)
        if not probs and ref is not None and reqs:
            # the claim takes nova's devices
            after = copy.deepcopy(stats)
            after.apply_requests(reqs, ref.cells)
            c = nf.Host.from_json(s["host_json"])
            P2 = copy.copy(P)
            try:
                res2 = c.try_fit_and_claim(r, limits=s["limits_js"], profile=pname,
                                           strategy=strategy, pci_pools=P2, pci_requests=R)
                if res2.placement is None:
                    probs.append("fit_and_claim refuses: %s" % (res2.text,))
                elif P2.pools() != flat(after):
                    probs.append("pools after the claim: nova %s, numafit %s"
                                 % (flat(after), P2.pools()))
                else:
                    st.c["%s claims with devices" % pname] += 1
            finally:
                P2.close()
                c.close()
    if probs:
        probs = ["[%s] %s" % (pname, p) for p in probs]
        if args.verbose:
            probs.append("reference %s numafit %s" % (cref, got))
    return probs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--library", help="path of libnumafit.so.0")
    ap.add_argument("--seed", type=int, default=20261202)
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--case", type=int, help="run only this scenario")
    ap.add_argument("--show", type=int, default=8)
    ap.add_argument("-v", "--verbose", action="count", default=0)
    args = ap.parse_args()
    t0 = time.time()
    try:
        nf = fd.import_numafit(args.library)
    except Exception as e:
        if "Sanitizer" in str(e) or "ASan" in str(e):
            print("libnumafit is a sanitizer build: skip")
            return 77
        raise
    fd.logging.getLogger("nova").setLevel(fd.logging.CRITICAL)
    import numafit.nova
    numafit.nova._VERIFY = True
    latest = fd.LatestRules().patch()
    profiles = [(fd.PROFILE_ZED, fd.NoPatch()), (fd.PROFILE_LATEST, latest)]
    st = fd.Stats()
    rng = random.Random(args.seed)
    passed = failed = 0
    try:
        for s in fd.gen_scenarios(rng, args.count, st):
            s["pools"], s["reqs"] = gen_pci(rng, s["host"])
            if args.case is not None and s["index"] != args.case:
                continue
            fd.CONF.set_override("packing_host_numa_cells_allocation_strategy", s["pack"],
                                 group="compute")
            probs = []
            for profile, ctx in profiles:
                try:
                    probs += run_case(nf, s, profile, ctx, st, args)
                except Exception as e:
                    probs.append("exception %s: %s" % (type(e).__name__, e))
            if probs:
                failed += 1
                if failed <= args.show:
                    print("FAIL scenario #%d (--case %d): %s\n  flavor %s\n  pools %s\n"
                          "  requests %s\n  %s" % (
                              s["index"], s["index"], s["kind"], json.dumps(s["flavor"]),
                              json.dumps(flat(pci_stats.PciDeviceStats(s["host"],
                                                                       stats=s["pools"]))),
                              json.dumps([q.obj_to_primitive()["nova_object.data"]
                                          for q in s["reqs"]]),
                              "\n  ".join(probs)))
            else:
                passed += 1
    finally:
        fd.CONF.clear_override("packing_host_numa_cells_allocation_strategy", group="compute")
    print("nova_pci_fit_diff: seed %d, %d scenarios in %.1f s"
          % (args.seed, passed + failed, time.time() - t0))
    for k in sorted(st.c):
        print("  %-56s %d" % (k, st.c[k]))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
