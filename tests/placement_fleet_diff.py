"""Differential test of nova's two scheduling steps over fleets: placement
(Debian's python3-placement, in-process on SQLite) and then nova's
NUMATopologyFilter (Debian's nova 26.2.2), against libnumafit's two steps
(numafit.resources_from_flavor, numafit.Inventory, numafit.node_fit and
node_claim, profile zed).

Per fleet: random seed-like hosts (1 to 4 cells, SMT or not, legacy mode,
shared and dedicated CPU sets, random nova.conf reserved amounts and
ratios, disk sizes). Each host's inventory is what
numafit.Inventory.from_host reports (checked against nova's driver by
tests/nova_inventory_diff.py) and is put into placement with its traits.
Then instances arrive in random order from a flavor mix (without NUMA
topology, dedicated, isolate, require, two NUMA nodes, mixed, realtime
with an isolated emulator thread, boot from volume):

- nova: resources_from_request_spec's query to GET /allocation_candidates
  (its legacy query when the first finds nothing), then the NUMA filter's
  host_passes on the candidates, where the fit is nova's intended answer
  (tests/nova_fit_diff.py's reference_fit: nova's per-cell rules without
  its fit-cache defect; plain nova's disagreements are counted apart);
- numafit: the same query's amounts and SMT bits against each inventory
  (the legacy amounts when no inventory has room), then node_fit.

The hosts that pass must be the same. The instance is then claimed on the
first passing host (by name) in both: an allocation in placement and
nova's numa_usage_from_instance_numa of the reference fit, against
node_claim; afterwards placement's usages must equal the inventory's and
nova's cell usage (cpu_usage, memory_usage, pinned CPUs) the host's.

Exit 0 on success, 1 on failure, 77 when nova or placement is missing.
Last line: "N passed, N failed".
"""
import json
import logging
import os
import random
import sys
import uuid
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

try:
    from nova import objects
    from nova.scheduler import host_manager
    from nova.scheduler import utils as sched_utils
    from nova.scheduler.filters import numa_topology_filter
    from nova.virt import hardware
    objects.register_all()
    import placement_inventory_diff as pdiff
    import nova_fit_diff as fitdiff
except SystemExit:
    raise
except Exception as e:  # pragma: no cover - environment dependent
    print("nova or placement not importable (%s): skip" % e)
    sys.exit(77)

import nova_request_diff as reqdiff  # noqa: E402

SEED = 20261205
FLEETS = 12
ARRIVALS = 30

SHAPES = ["cells:2 cores:6 threads:2 mem:%dG", "cells:2 cores:8 threads:2 mem:%dG",
          "cells:1 cores:4 threads:1 mem:%dG", "cells:4 cores:4 threads:2 mem:%dG",
          "cells:2 cores:4 threads:1 mem:%dG"]

FLAVORS = [
    {"vcpus": 2, "memory_mb": 2048, "root_gb": 20},
    {"vcpus": 4, "memory_mb": 4096, "root_gb": 10, "extra_specs": {"hw:numa_nodes": "1"}},
    {"vcpus": 4, "memory_mb": 4096, "root_gb": 10, "extra_specs": {"hw:cpu_policy": "dedicated"}},
    {"vcpus": 2, "memory_mb": 2048, "extra_specs": {"hw:cpu_policy": "dedicated",
                                                    "hw:cpu_thread_policy": "isolate"}},
    {"vcpus": 4, "memory_mb": 2048, "extra_specs": {"hw:cpu_policy": "dedicated",
                                                    "hw:cpu_thread_policy": "require"}},
    {"vcpus": 8, "memory_mb": 8192, "root_gb": 40, "extra_specs": {"hw:numa_nodes": "2"}},
    {"vcpus": 4, "memory_mb": 4096, "extra_specs": {"hw:cpu_policy": "mixed",
                                                    "hw:cpu_dedicated_mask": "^0"}},
    {"vcpus": 4, "memory_mb": 4096, "extra_specs": {
        "hw:cpu_policy": "dedicated", "hw:cpu_realtime": "yes", "hw:cpu_realtime_mask": "^0-1",
        "hw:emulator_threads_policy": "isolate"}},
    {"vcpus": 1, "memory_mb": 512, "root_gb": 80, "bfv": True},
]


def gen_host(r, i):
    shape = r.choice(SHAPES) % r.choice([8, 16, 32])
    cells, cores, threads = [int(x.split(":")[1]) for x in shape.split()[:3]]
    n = cells * cores * threads
    mode = r.choice(["legacy", "pools", "pools", "dedicated"])
    if mode == "pools":
        k = max(1, min(r.choice([2, 4, n // 4]), n - 1))
        shape += " shared:0-%d dedicated:%d-%d" % (k - 1, k, n - 1)
    elif mode == "dedicated":
        shape += " dedicated:0-%d" % (n - 1)
    conf = "[DEFAULT]\n"
    for key, values in (("reserved_host_cpus", [0, 0, 1]),
                        ("reserved_host_memory_mb", [512, 1024, 4096]),
                        ("cpu_allocation_ratio", [1.0, 2.0, 4.0, 16.0]),
                        ("ram_allocation_ratio", [1.0, 1.5])):
        if r.random() < 0.5:
            conf += "%s = %s\n" % (key, r.choice(values))
    return "host%d" % i, shape, conf, r.choice([0, 50, 200, 1000])


class Fleet:
    def __init__(self, numafit, client, r):
        self.hosts = []
        for i in range(r.randint(3, 6)):
            name, shape, conf, disk = gen_host(r, i)
            h = numafit.Host.synthetic(shape)
            inv = numafit.Inventory.from_host(h, conf, disk, profile="zed")
            rp = str(uuid.uuid4())
            resp = client.post("/resource_providers", json={"name": rp, "uuid": rp})
            gen_ = resp.json()["generation"]
            d = inv.to_dict()
            if d["traits"]:
                resp = client.put("/resource_providers/%s/traits" % rp, json={
                    "resource_provider_generation": gen_, "traits": d["traits"]})
                gen_ = resp.json()["resource_provider_generation"]
            resp = client.put("/resource_providers/%s/inventories" % rp, json={
                "resource_provider_generation": gen_, "inventories": d["inventories"]})
            assert resp.status_code == 200, resp.text
            hs = host_manager.HostState(name, name, "cell1")
            hs.numa_topology = objects.NUMATopology.obj_from_primitive(h.to_dict())
            invs = d["inventories"]
            hs.cpu_allocation_ratio = invs.get("VCPU", {}).get("allocation_ratio", 1.0)
            hs.ram_allocation_ratio = invs.get("MEMORY_MB", {}).get("allocation_ratio", 1.0)
            hs.limits = {}
            self.hosts.append({"name": name, "shape": shape, "rp": rp, "h": h, "inv": inv,
                               "hs": hs})
        self.by_rp = {x["rp"]: x for x in self.hosts}

    def close(self):
        for x in self.hosts:
            x["inv"].close()
            x["h"].close()


def nova_objects(fl):
    flavor = objects.Flavor(vcpus=fl["vcpus"], memory_mb=fl["memory_mb"],
                            root_gb=fl.get("root_gb", 0), ephemeral_gb=0, swap=0,
                            extra_specs=dict(fl.get("extra_specs", {})), name="f")
    image = objects.ImageMeta.from_dict({"properties": {}})
    spec = objects.RequestSpec(flavor=flavor, image=image, is_bfv=fl.get("bfv", False),
                               numa_topology=hardware.numa_get_constraints(flavor, image),
                               pci_requests=None, instance_uuid=str(uuid.uuid4()))
    return spec


def limits_of(x):
    hs = x["hs"]
    return objects.NUMATopologyLimits(cpu_allocation_ratio=hs.cpu_allocation_ratio,
                                      ram_allocation_ratio=hs.ram_allocation_ratio)


def nova_step(client, fleet, spec, st):
    """The candidates of nova's query, the hosts its filter passes (with
    the reference fit), the amounts of the query used, and the plain nova
    filter's answers (defects counted)."""
    rr = sched_utils.resources_from_request_spec(None, spec, None)
    cands = candidates(client, rr) & set(fleet.by_rp)  # this fleet's providers
    if not cands and rr.cpu_pinning_requested:
        rr = sched_utils.resources_from_request_spec(None, spec, None,
                                                     enable_pinning_translate=False)
        cands = candidates(client, rr) & set(fleet.by_rp)
    amounts = rr.merged_resources()
    passed = {}
    flt = numa_topology_filter.NUMATopologyFilter()
    for rp in cands:
        x = fleet.by_rp[rp]
        hs = x["hs"]
        ok = flt._satisfies_cpu_policy(hs, spec.flavor.extra_specs, spec.image.properties)
        fit = None
        if ok and spec.numa_topology:
            fit = fitdiff.reference_fit(hs.numa_topology, spec.numa_topology, limits_of(x))
            ok = fit is not None
        plain = flt.host_passes(hs, spec)
        if plain != ok:
            st["plain nova filter disagrees with nova's intended fit (nova defect)"] = \
                st.get("plain nova filter disagrees with nova's intended fit (nova defect)",
                       0) + 1
        if ok:
            passed[x["name"]] = (x, fit)
    return passed, amounts


def candidates(client, rr):
    resp = client.get("/allocation_candidates?%s" % rr.to_querystring(), microversion="1.36")
    assert resp.status_code == 200, resp.text
    return set(resp.json()["provider_summaries"])


def ours_step(numafit, fleet, fl):
    flavor = {k: v for k, v in fl.items() if k != "bfv"}
    bfv = fl.get("bfv", False)
    res = numafit.resources_from_flavor(flavor, None, "zed", boot_from_volume=bfv)
    if res.legacy_fallback and not any(x["inv"].check(res)[0] for x in fleet.hosts):
        res = numafit.resources_from_flavor(flavor, None, "zed", boot_from_volume=bfv,
                                            legacy=True)
    req = numafit.Request.from_json(flavor, None, "zed")
    passed = {}
    for x in fleet.hosts:
        lim = {"cpu_allocation_ratio": x["hs"].cpu_allocation_ratio,
               "ram_allocation_ratio": x["hs"].ram_allocation_ratio}
        r = numafit.node_fit(x["h"], x["inv"], req, res, limits=lim, profile="zed")
        if r.code == 0:
            passed[x["name"]] = (x, r.placement)
    return passed, res, req


def cell_usage_nova(topo):
    return [(c.cpu_usage, c.memory_usage, len(c.pinned_cpus)) for c in topo.cells]


def cell_usage_ours(h):
    return [(u[0], u[1], len(u[2])) for u in (h.cell_usage(i) for i in range(len(h.cell_ids)))]


def main():
    # --cases: the fleets
    args, numafit = reqdiff.setup(FLEETS, SEED, arrivals=(int, ARRIVALS))
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    conf = pdiff.start_placement()
    r = random.Random(args.seed)
    passed = failed = 0
    st = {}
    with pdiff.direct.PlacementDirect(conf, latest_microversion=True) as client:
        for _ in range(args.cases):
            fleet = Fleet(numafit, client, r)
            for _ in range(args.arrivals):
                fl = r.choice(FLAVORS)
                spec = nova_objects(fl)
                npass, amounts = nova_step(client, fleet, spec, st)
                opass, res, req = ours_step(numafit, fleet, fl)
                names = sorted(npass)
                st["placed" if names else "refused everywhere"] = \
                    st.get("placed" if names else "refused everywhere", 0) + 1
                problems = []
                if names != sorted(opass):
                    problems.append("hosts passing: nova %s, numafit %s" % (names, sorted(opass)))
                ours_amounts = {k: v for k, v in res.items()}
                nova_amounts = {k: v for k, v in amounts.items()
                                if k in ("VCPU", "PCPU", "MEMORY_MB", "DISK_GB") and v}
                if ours_amounts != nova_amounts:
                    problems.append("amounts: nova %s, numafit %s" % (nova_amounts,
                                                                      ours_amounts))
                if names and not problems:
                    x, fit = npass[names[0]]
                    resp = client.put("/allocations/%s" % uuid.uuid4(), json={
                        "allocations": {x["rp"]: {"resources": {
                            k: v for k, v in amounts.items() if v}}},
                        "project_id": "p", "user_id": "u", "consumer_generation": None},
                        microversion="1.28")
                    assert resp.status_code == 204, resp.text
                    if fit is not None:
                        x["hs"].numa_topology = hardware.numa_usage_from_instance_numa(
                            x["hs"].numa_topology, fit)
                    numafit.node_claim(x["h"], x["inv"], opass[names[0]][1], res)
                    usages = client.get("/resource_providers/%s/usages" % x["rp"]).json()
                    placed = {k: v for k, v in usages["usages"].items() if v}
                    mine = {k: v for k, v in x["inv"].to_dict()["usages"].items() if v}
                    if placed != mine:
                        problems.append("usages: placement %s, numafit %s" % (placed, mine))
                    nu, ou = cell_usage_nova(x["hs"].numa_topology), cell_usage_ours(x["h"])
                    if nu != ou:
                        problems.append("cell usage: nova %s, numafit %s" % (nu, ou))
                for p in opass.values():
                    if p[1] is not None:
                        p[1].close()
                req.close()
                if problems:
                    failed += 1
                    print("FAIL flavor %s on %s:\n  %s" % (
                        json.dumps(fl), [x["shape"] for x in fleet.hosts],
                        "\n  ".join(problems)))
                else:
                    passed += 1
            fleet.close()
    print(", ".join("%s: %d" % kv for kv in sorted(st.items())))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
