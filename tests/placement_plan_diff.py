"""Differential test of `numafit plan` over fleets against nova's two
scheduling steps: placement (Debian's python3-placement, in-process on
SQLite) and then nova's NUMATopologyFilter (Debian's nova 26.2.2, with
nova's intended fit: tests/nova_fit_diff.py's reference_fit), profile zed.

Per fleet: random seed-like hosts (tests/placement_fleet_diff.py's shapes:
legacy mode, shared and dedicated CPU sets, SMT or not), written as a
compute_nodes dump (JSON lines: the host's topology, its own
cpu_allocation_ratio and ram_allocation_ratio, local_gb); fleet-wide
reserved_host_cpus, reserved_host_memory_mb and reserved_host_disk_mb
(numafit plan --set); three flavors of placement_fleet_diff's mix
(without NUMA topology, dedicated, isolate, require, two NUMA nodes,
mixed, realtime with an isolated emulator thread, boot from volume).

nova's side fills the fleet as the plan does, one instance at a time:
resources_from_request_spec's query to GET /allocation_candidates (its
legacy query when the first finds no candidate), the NUMA filter on the
candidates, the instance on the first passing host in the dump's order
(an allocation in placement, nova's numa_usage_from_instance_numa); a
flavor that passes nowhere stops. Alone: each flavor on a fresh fleet
until it stops. Mixed: the flavors round-robin, each until it stops.

The plan (numafit plan --db DUMP --flavors F --strategy spread --json
--nova-release zed --top 100) must give the same alone and mixed counts,
and the same mixed count on each host.

Exit 0 on success, 1 on failure, 77 when nova or placement is missing.
Last line: "N passed, N failed".
"""
import json
import logging
import os
import random
import subprocess
import sys
import tempfile
import uuid
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

try:
    from nova import objects
    from nova.scheduler import host_manager
    from nova.virt import hardware
    objects.register_all()
    import placement_fleet_diff as fdiff
    import placement_inventory_diff as pdiff
except SystemExit:
    raise
except Exception as e:  # pragma: no cover - environment dependent
    print("nova or placement not importable (%s): skip" % e)
    sys.exit(77)

import nova_request_diff as reqdiff  # noqa: E402

SEED = 20261206
FLEETS = 8
MAX_STEPS = 400  # instances per fill at most (the fleets are small)
EXTRA = os.environ.get("PLAN_DIFF_EXTRA", "").split()  # e.g. --no-inventory: must fail


def gen_fleet(r):
    hosts = []
    for i in range(r.randint(2, 4)):
        name, shape, _conf, disk = fdiff.gen_host(r, i)
        hosts.append({"name": name, "shape": shape, "disk": r.choice([50, 200, 1000]),
                      # None: a null column, nova's initial ratio (zed: 16.0, 1.5)
                      "cpu_ratio": r.choice([None, 1.0, 2.0, 4.0, 16.0]),
                      "ram_ratio": r.choice([None, 1.0, 1.5])})
    reserved = {"reserved_host_cpus": r.choice([0, 0, 1]),
                "reserved_host_memory_mb": r.choice([512, 1024, 4096]),
                "reserved_host_disk_mb": r.choice([0, 0, 2048])}
    flavors = []
    for k, fl in enumerate(r.sample(fdiff.FLAVORS, 3)):
        f = {key: v for key, v in fl.items() if key != "bfv"}
        if fl.get("bfv"):
            f["boot_from_volume"] = True
        f["name"] = "f%d" % k
        flavors.append(f)
    return hosts, reserved, flavors


def conf_text(x, reserved):
    lines = ["[DEFAULT]"] + ["%s = %s" % kv for kv in sorted(reserved.items())]
    if x["cpu_ratio"] is not None:
        lines.append("cpu_allocation_ratio = %s" % x["cpu_ratio"])
    if x["ram_ratio"] is not None:
        lines.append("ram_allocation_ratio = %s" % x["ram_ratio"])
    return "\n".join(lines) + "\n"


class NovaFleet:
    """The fleet in placement (fresh providers) and nova's host states."""

    def __init__(self, numafit, client, hosts, reserved):
        self.hosts = []
        for x in hosts:
            h = numafit.Host.synthetic(x["shape"])
            inv = numafit.Inventory.from_host(h, conf_text(x, reserved), x["disk"],
                                              profile="zed")
            d = inv.to_dict()
            inv.close()
            rp = str(uuid.uuid4())
            resp = client.post("/resource_providers", json={"name": rp, "uuid": rp})
            gen_ = resp.json()["generation"]
            if d["traits"]:
                resp = client.put("/resource_providers/%s/traits" % rp, json={
                    "resource_provider_generation": gen_, "traits": d["traits"]})
                gen_ = resp.json()["resource_provider_generation"]
            resp = client.put("/resource_providers/%s/inventories" % rp, json={
                "resource_provider_generation": gen_, "inventories": d["inventories"]})
            assert resp.status_code == 200, resp.text
            hs = host_manager.HostState(x["name"], x["name"], "cell1")
            hs.numa_topology = objects.NUMATopology.obj_from_primitive(h.to_dict())
            h.close()
            # the compute node's ratios: the option, else the initial one
            hs.cpu_allocation_ratio = x["cpu_ratio"] or 16.0
            hs.ram_allocation_ratio = x["ram_ratio"] or 1.5
            hs.limits = {}
            self.hosts.append({"name": x["name"], "rp": rp, "hs": hs})
        self.by_rp = {x["rp"]: x for x in self.hosts}
        self.order = [x["name"] for x in self.hosts]

    def place(self, client, fl, st):
        """One instance of flavor fl on the first passing host: its name, or None."""
        spec = fdiff.nova_objects(dict(fl, bfv=fl.get("boot_from_volume", False)))
        passed, amounts = fdiff.nova_step(client, self, spec, st)
        names = [n for n in self.order if n in passed]
        if not names:
            return None
        x, fit = passed[names[0]]
        resp = client.put("/allocations/%s" % uuid.uuid4(), json={
            "allocations": {x["rp"]: {"resources": {k: v for k, v in amounts.items() if v}}},
            "project_id": "p", "user_id": "u", "consumer_generation": None},
            microversion="1.28")
        assert resp.status_code == 204, resp.text
        if fit is not None:
            x["hs"].numa_topology = hardware.numa_usage_from_instance_numa(
                x["hs"].numa_topology, fit)
        return names[0]


def nova_plan(numafit, client, hosts, reserved, flavors, st):
    alone = {}
    for fl in flavors:
        fleet = NovaFleet(numafit, client, hosts, reserved)
        n = 0
        while n < MAX_STEPS and fleet.place(client, fl, st):
            n += 1
        alone[fl["name"]] = n
    fleet = NovaFleet(numafit, client, hosts, reserved)
    mixed = {fl["name"]: 0 for fl in flavors}
    per_host = {x["name"]: 0 for x in hosts}
    active = [True] * len(flavors)
    i = steps = 0
    while any(active) and steps < MAX_STEPS * 3:
        if active[i]:
            name = fleet.place(client, flavors[i], st)
            if name is None:
                active[i] = False
            else:
                mixed[flavors[i]["name"]] += 1
                per_host[name] += 1
                steps += 1
        i = (i + 1) % len(flavors)
    return alone, mixed, per_host


def numafit_plan(cli, numafit, hosts, reserved, flavors, tmp):
    dump = os.path.join(tmp, "nodes.jsonl")
    with open(dump, "w") as f:
        for x in hosts:
            h = numafit.Host.synthetic(x["shape"])
            f.write(json.dumps({"hypervisor_hostname": x["name"],
                                "numa_topology": json.dumps(h.to_dict()),
                                "cpu_allocation_ratio": x["cpu_ratio"],
                                "ram_allocation_ratio": x["ram_ratio"],
                                "local_gb": x["disk"]}) + "\n")
            h.close()
    fpath = os.path.join(tmp, "flavors.json")
    with open(fpath, "w") as f:
        json.dump(flavors, f)
    cmd = [cli, "plan"] + EXTRA + ["--db", dump, "--flavors", fpath, "--strategy", "spread", "--json",
           "--nova-release", "zed", "--top", "100", "--no-progress",
           "--max-instances", str(MAX_STEPS)]
    for k, v in sorted(reserved.items()):
        cmd += ["--set", "%s=%s" % (k, v)]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         universal_newlines=True)
    if out.returncode != 0:
        return None, "exit %d: %s" % (out.returncode, out.stderr[:600])
    doc = json.loads(out.stdout)["strategies"]["spread"]
    per_host = {x["name"]: 0 for x in hosts}
    for s in doc["hosts_summary"]:
        per_host[s["name"]] = sum(s["mixed"].values())
    return (doc["alone"], doc["mixed"], per_host), doc["inventory"]


def main():
    args, numafit = reqdiff.setup(FLEETS, SEED, numafit_cli=(str, None))
    cli = args.numafit_cli or os.environ.get("NUMAFIT") or "tools/numafit/numafit"
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    conf = pdiff.start_placement()
    r = random.Random(args.seed)
    passed = failed = 0
    st = {}
    with pdiff.direct.PlacementDirect(conf, latest_microversion=True) as client, \
            tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.cases):
            hosts, reserved, flavors = gen_fleet(r)
            nova = nova_plan(numafit, client, hosts, reserved, flavors, st)
            ours, err = numafit_plan(cli, numafit, hosts, reserved, flavors, tmp)
            problems = []
            if ours is None:
                problems.append(err)
            else:
                for f in (err or {}).get("alone_stopped_by", {}).values():
                    for stop, n in f["hosts"].items():
                        key = "plan: alone fills stopped by %s" % stop
                        st[key] = st.get(key, 0) + n
                    if f["second_query"]:
                        key = "plan: alone with nova's second query"
                        st[key] = st.get(key, 0) + 1
                for what, a, b in zip(("alone", "mixed", "mixed per host"), nova, ours):
                    if a != b:
                        problems.append("%s: nova %s, numafit %s" % (what, a, b))
            st["instances placed by nova"] = st.get("instances placed by nova", 0) + \
                sum(nova[0].values()) + sum(nova[1].values())
            if problems:
                failed += 1
                print("FAIL fleet %s, %s, flavors %s:\n  %s" % (
                    [x["shape"] for x in hosts], reserved, json.dumps(flavors),
                    "\n  ".join(problems)))
            else:
                passed += 1
    print(", ".join("%s: %d" % kv for kv in sorted(st.items())))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
