"""Differential test of libnumafit's PCI rules against Debian's nova 26.2.2
(nova.pci.stats.PciDeviceStats): random hosts (2 to 4 NUMA cells, sockets
known or one unknown) with random PCI device pools (vendor and product,
numa_node absent, null or a cell, dev_type type-PCI / type-PF / type-VF /
vdpa, physical_network, trusted and remote_managed tags in mixed case,
counts from 0), random requests (1 to 3, counts from 0, one or two specs of
random keys and values, NUMA policy unset, null, required, legacy,
preferred or socket) and random guest cells (none, an empty list, or some
host cells).

Per case: nova's support_requests against numafit.PciPools.support (the
same answer), and when it is yes nova's apply_requests on a copy against
numafit's apply (the same pools left, in the same order: nova removes the
pools it empties). The pools are read from nova's PciDevicePoolList
primitive, and numafit writes back the primitive nova reads to the same
pools.

Exit 0 on success, 1 on failure, 77 when nova is missing. Last line:
"N passed, N failed".
"""
import copy
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

try:
    from nova import objects
    from nova.pci import stats as pci_stats
    objects.register_all()
except Exception as e:  # pragma: no cover - environment dependent
    print("nova not importable (%s): skip" % e)
    sys.exit(77)

import nova_request_diff as reqdiff  # noqa: E402

SEED = 20261207
CASES = 10000

VENDORS = ["8086", "15b3", "10DE"]
PRODUCTS = ["154d", "1572", "1eb8"]
DEV_TYPES = ["type-PCI", "type-PF", "type-VF", "vdpa"]
TAGS = {"physical_network": ["physnet1", "PhysNet1", "physnet2", None],
        "trusted": ["true", "True", "false"],
        "remote_managed": ["false", "true", "True", "yes", " 1 "],
        "parent_ifname": ["ens1f0", "ens1f1"]}
SPEC_KEYS = {"vendor_id": VENDORS + ["8086", "0x8086"],
             "product_id": PRODUCTS + ["154D"],
             "dev_type": DEV_TYPES + ["TYPE-VF", "type-pf"],
             "physical_network": ["physnet1", "PHYSNET1", "physnet2", None],
             "trusted": ["true", "True", "False", None],
             "remote_managed": ["True", "False", "true", None],
             "numa_node": ["0", "1", None],
             "parent_ifname": ["ens1f0", None]}
POLICIES = ["unset", None, "required", "legacy", "preferred", "socket"]


def gen_host(r):
    ncells = r.randint(2, 4)
    sockets = [r.choice([0, 1]) for _ in range(ncells)]
    if r.random() < 0.15:
        sockets[r.randrange(ncells)] = None
    cells = []
    for i in range(ncells):
        cells.append(objects.NUMACell(
            id=i, socket=sockets[i], cpuset={2 * i, 2 * i + 1}, pcpuset=set(), memory=1024,
            cpu_usage=0, memory_usage=0, pinned_cpus=set(), siblings=[set()],
            mempages=[objects.NUMAPagesTopology(size_kb=4, total=262144, used=0, reserved=0)],
            network_metadata=objects.NetworkMetadata(physnets=set(), tunneled=False)))
    return objects.NUMATopology(cells=cells)


def gen_pools(r, ncells):
    pools = []
    for _ in range(r.randint(0, 6)):
        tags = {"dev_type": r.choice(DEV_TYPES)}
        for k, vals in TAGS.items():
            if r.random() < 0.4:
                tags[k] = r.choice(vals)
        kw = dict(vendor_id=r.choice(VENDORS), product_id=r.choice(PRODUCTS),
                  tags=tags, count=r.choice([0, 1, 2, 2, 3]))
        node = r.random()
        if node < 0.7:
            kw["numa_node"] = r.randrange(ncells + 1)  # sometimes a node no cell has
        elif node < 0.9:
            kw["numa_node"] = None
        pools.append(objects.PciDevicePool(**kw))
    return objects.PciDevicePoolList(objects=pools)


def from_pool(r, pool):
    """A spec that matches pool (some of its keys; a string's case changed
    at times)."""
    d = pool.to_dict()
    d.pop("count")
    d.pop("numa_node", None)
    keys = r.sample(sorted(d), r.randint(1, min(3, len(d))))
    spec = {}
    for k in keys:
        v = d[k]
        if isinstance(v, str) and r.random() < 0.2:
            v = v.upper()
        spec[k] = v
    return spec


def gen_requests(r, pools):
    reqs = []
    for _ in range(r.randint(1, 3)):
        specs = []
        for _ in range(r.choice([1, 1, 2])):
            if pools.objects and r.random() < 0.85:
                specs.append(from_pool(r, r.choice(pools.objects)))
                continue
            keys = r.sample(sorted(SPEC_KEYS), r.randint(0, 3))
            specs.append({k: r.choice(SPEC_KEYS[k]) for k in keys})
        kw = dict(count=r.choice([0, 1, 1, 1, 2]), spec=specs,
                  alias_name=r.choice(["a1", None]), request_id=None)
        pol = r.choice(POLICIES)
        if pol != "unset":
            kw["numa_policy"] = pol
        reqs.append(objects.InstancePCIRequest(**kw))
    return reqs


def gen_cells(r, ncells):
    x = r.random()
    if x < 0.1:
        return None
    if x < 0.15:
        return []
    return r.sample(range(ncells), r.randint(1, ncells))


def instance_cells(ids):
    return None if ids is None else [objects.InstanceNUMACell(id=i, cpuset=set(), pcpuset=set(),
                                                              memory=0) for i in ids]


def host_json(topo):
    return topo.obj_to_primitive()


def flat(stats):
    return [dict(p) for p in stats]


def main():
    args, numafit = reqdiff.setup(CASES, SEED)
    r = random.Random(args.seed)
    passed = failed = 0
    st = {}
    for case in range(args.cases):
        topo = gen_host(r)
        ncells = len(topo.cells)
        pl = gen_pools(r, ncells)
        reqs = gen_requests(r, pl)
        ids = gen_cells(r, ncells)
        nova = pci_stats.PciDeviceStats(topo, stats=pl)
        before = flat(nova)
        try:
            n_ok = nova.support_requests(reqs, instance_cells(ids))
        except AttributeError:
            n_ok = None  # cannot happen with a host topology
        n_after = None
        if n_ok:
            c = copy.deepcopy(nova)
            c.apply_requests(reqs, instance_cells(ids))
            n_after = flat(c)
        problems = []
        with numafit.Host.from_json(host_json(topo)) as h, \
                numafit.PciPools.from_json(pl.obj_to_primitive()) as P, \
                numafit.PciRequests.from_json(
                    objects.InstancePCIRequests(requests=reqs).obj_to_primitive()) as R:
            mine = P.pools()
            if mine != before:
                problems.append("pools read: nova %s, numafit %s" % (before, mine))
            back = pci_stats.PciDeviceStats(
                topo, stats=objects.PciDevicePoolList.obj_from_primitive(P.to_dict()))
            if flat(back) != before:
                problems.append("pools written: nova reads %s" % flat(back))
            o_ok, why = P.support(R, ids, h, profile="zed")
            if o_ok != n_ok:
                problems.append("support: nova %s, numafit %s (%s)" % (n_ok, o_ok, why))
            elif o_ok:
                P.apply(R, ids, h, profile="zed")
                if P.pools() != n_after:
                    problems.append("after apply: nova %s, numafit %s" % (n_after, P.pools()))
        key = "supported" if n_ok else "refused"
        st[key] = st.get(key, 0) + 1
        pols = {getattr(q, "numa_policy", "unset") if "numa_policy" in q else "unset"
                for q in reqs}
        for p in pols:
            k = "requests with policy %s" % p
            st[k] = st.get(k, 0) + 1
        if problems:
            failed += 1
            if failed <= 10:
                print("FAIL case %d: sockets %s, cells %s\n  pools %s\n  requests %s\n  %s" % (
                    case, [c.socket for c in topo.cells], ids, json.dumps(before),
                    json.dumps([q.obj_to_primitive()["nova_object.data"] for q in reqs]),
                    "\n  ".join(problems)))
        else:
            passed += 1
    print(", ".join("%s: %d" % kv for kv in sorted(st.items())))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
