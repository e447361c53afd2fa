#!/usr/bin/python3
"""Differential test of device-level PCI claims and releases against
Debian's nova (26.2.2), as its compute node makes them.

For random hosts (the device lists of tests/nova_pci_devspec_diff.py:
X710, E810, ConnectX PFs with their VFs and vDPA devices, GPUs, NVMe,
devices of unknown node) and a nova.conf whose [pci] device_spec makes
some of them assignable, nova's side is what PciDevTracker does: each
assignable device made a PciDevice (create, status available) and added to
a PciDeviceStats in the list's order, the device tree built
(PciDevTracker._build_device_tree: a VF's or vdpa device's PF, children in
address order); then a sequence of operations: claims (consume_requests of
random requests from [pci] alias entries and neutron-like specs, with
every NUMA policy, on random host cells, then PciDevice.claim of each
device) and releases of earlier claims (PciDevice.free of each device and
add_device of what it frees, as PciDevTracker._free_device does).
libnumafit's side is numafit.PciTracker (numafit_pci_tracker_*).

After each operation both must agree: the same outcome (a refused claim
changes nothing on either side; nova's consume_requests gives devices back
itself only when an earlier request of the claim succeeded, which the
comparison undoes the way libnumafit's all-or-nothing claim never needs),
the same devices (addresses, in order) and the same pools (keys, count,
order: to_device_pools_obj).

Options: --cases N, --seed S, --case K, --library PATH. Exit 0 / 1 / 77.
Last line: "N passed, N failed".
"""
import argparse
import json
import logging
import os
import random
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

try:
    import nova_pci_devspec_diff as ds  # its FakeSysfs patches nova.pci.utils
    from nova import exception as nova_exc
    from nova import objects
    from nova.objects import fields
    from nova.pci import stats as pci_stats
    from nova.pci import whitelist
except SystemExit:
    raise
except Exception as e:  # pragma: no cover - environment dependent
    print("nova not importable (%s): skip" % e)
    sys.exit(77)

from numafit_loader import import_numafit  # noqa: E402

SEED = 20261203
CASES = 1500
logging.getLogger().setLevel(logging.CRITICAL)
warnings.simplefilter("ignore")

ENTRIES = [
    '{"vendor_id": "8086", "physical_network": "physnet1"}',
    '{"vendor_id": "15b3", "physical_network": "physnet2"}',
    '{"vendor_id": "10de"}',
    '{"vendor_id": "8086", "product_id": "154c", "physical_network": "physnet1"}',
    '{"vendor_id": "8086", "product_id": "1572"}',
    '{"vendor_id": "15b3", "product_id": "101e", "physical_network": "physnet2"}',
]
# request specs (alias-like and port-like), with the dev_type they ask
SPECS = [
    [{"vendor_id": "8086", "product_id": "154c", "dev_type": "type-VF"}],
    [{"vendor_id": "8086", "product_id": "1572", "dev_type": "type-PF"}],
    [{"vendor_id": "8086", "product_id": "1572"}],
    [{"vendor_id": "15b3", "product_id": "101e"}],
    [{"vendor_id": "15b3", "dev_type": "vdpa"}],
    [{"physical_network": "physnet1", "remote_managed": "False"}],
    [{"physical_network": "physnet2", "remote_managed": "False", "dev_type": "type-PF"}],
    [{"vendor_id": "10de"}],
    [{"vendor_id": "10de"}, {"vendor_id": "8086", "dev_type": "type-VF"}],
]
POLICIES = [None, "required", "legacy", "preferred", "socket"]


def gen_case(seed, case):
    r = random.Random(seed * 100003 + case)
    devs, _ = ds.gen_devices(r)
    entries = r.sample(ENTRIES, r.randint(1, 4))
    text = "[pci]\n" + "".join("device_spec = %s\n" % e for e in entries)
    ops = []
    for _ in range(r.randint(2, 8)):
        if ops and r.random() < 0.3:
            ops.append(("release", r.randrange(len(ops))))
            continue
        reqs = []
        for k in range(r.randint(1, 2)):
            reqs.append({"count": r.choice([1, 1, 1, 2, 3]), "spec": r.choice(SPECS),
                         "numa_policy": r.choice(POLICIES),
                         "alias_name": "a%d" % k if r.random() < 0.7 else None,
                         "request_id": "00000000-0000-4000-8000-%012d" % (len(ops) * 10 + k)})
        cells = r.choice([None, [0], [1], [0, 1], [2], [3]])
        ops.append(("claim", reqs, cells))
    return devs, text, ops


# ---------------------------------------------------------------- nova


def nova_requests(reqs):
    return [
        objects.InstancePCIRequest(count=q["count"], spec=q["spec"], alias_name=q["alias_name"],
                                   request_id=q["request_id"], numa_policy=q["numa_policy"])
        for q in reqs]


def nova_cells(cells):
    if cells is None:
        return None
    return [objects.InstanceNUMACell(id=i, cpuset=set([i]), pcpuset=set(), memory=512)
            for i in cells]


def pools_of(st):
    return [p.to_dict() for p in st.to_device_pools_obj()]


class NovaNode:
    def __init__(self, conf, devs, text):
        ds.SYSFS.load(devs)
        wl = whitelist.Whitelist(conf.device_spec(text))
        hv = json.loads(json.dumps([{k: v for k, v in d.items() if k not in ds.SYSFS_MEMBERS}
                                    for d in devs]))
        # the host: 4 cells, 2 per socket (numafit's "2x4c 4cells")
        topo = objects.NUMATopology(cells=[objects.NUMACell(id=i, socket=i // 2)
                                           for i in range(4)])
        self.st = pci_stats.PciDeviceStats(topo, dev_filter=wl)
        self.devs = []
        for dev in hv:
            try:
                if not wl.device_assignable(dev):
                    continue
            except nova_exc.PciConfigInvalidSpec:
                continue
            dev["compute_node_id"] = ds.COMPUTE_NODE_ID
            o = objects.PciDevice.create(None, dev)
            o.status = fields.PciDeviceStatus.AVAILABLE
            o.id = len(self.devs) + 1
            self.devs.append(o)
            self.st.add_device(o)
        # PciDevTracker._build_device_tree (it sorts the list by address)
        tree = sorted(self.devs, key=lambda x: x.address)
        parents = {}
        for d in tree:
            if d.dev_type == fields.PciDeviceType.SRIOV_PF:
                d.child_devices = []
                parents[d.address] = d
            elif d.dev_type in (fields.PciDeviceType.SRIOV_VF, fields.PciDeviceType.VDPA):
                d.parent_device = parents.get(d.parent_addr)
                if d.parent_device:
                    parents[d.parent_addr].child_devices.append(d)

    def claim(self, reqs, cells):
        try:
            got = self.st.consume_requests(nova_requests(reqs), nova_cells(cells))
        except nova_exc.PciDeviceRequestFailed:
            return None
        if got is None:
            return None
        for d in got:
            d.claim("instance")
        return got

    def release(self, got):
        for dev in got:
            for f in dev.free():
                self.st.add_device(f)


# ---------------------------------------------------------------- compare


STATS = {"claims taken": 0, "devices taken": 0, "dependents taken out": 0}


def run_case(numafit, conf, devs, text, ops):
    """None, or what differs."""
    nova = NovaNode(conf, devs, text)
    host = numafit.Host.synthetic("2x4c 4cells mem:16G")
    problems = None
    with numafit.PciDevices.from_json(json.dumps(devs)) as nd, \
            numafit.PciTracker.from_devices(nd, text, "zed") as t:
        theirs, ours = {}, {}
        with t.pools() as p:
            if p.pools() != pools_of(nova.st):
                return "pools differ at the start: nova %s, numafit %s" % (
                    pools_of(nova.st), p.pools())
        for i, op in enumerate(ops):
            if op[0] == "claim":
                _, reqs, cells = op
                before = pools_of(nova.st)
                got = nova.claim(reqs, cells)
                nova_defect = got is None and pools_of(nova.st) != before
                with numafit.PciRequests.from_json(json.dumps(reqs)) as nr:
                    try:
                        c = t.claim(host, nr, cells)
                    except numafit.errors.NumafitError:
                        c = None
                theirs[i] = got
                ours[i] = c
                if c is not None:
                    STATS["claims taken"] += 1
                    STATS["devices taken"] += len(c["devices"])
                    STATS["dependents taken out"] += len(c["unavailable"])
                if nova_defect and c is None:
                    # nova's consume_requests, failing a later request, gives
                    # back the devices taken but not the PF or VFs their
                    # dependents took out: its pools are wrong from here on
                    with t.pools() as p:
                        if p.pools() != before:
                            return "op %d: numafit changed its pools on a refused claim" % i
                    return "nova defect"
                if (got is None) != (c is None):
                    return "op %d claim: nova %s, numafit %s" % (
                        i, None if got is None else [d.address for d in got],
                        None if c is None else [d["address"] for d in c["devices"]])
                if got is not None and [d.address for d in got] != \
                        [d["address"] for d in c["devices"]]:
                    return "op %d claim: nova took %s, numafit %s" % (
                        i, [d.address for d in got], [d["address"] for d in c["devices"]])
            else:
                k = op[1]
                if theirs.get(k) is None or ours.get(k) is None:
                    continue
                nova.release(theirs[k])
                t.release(ours[k])
                theirs[k] = ours[k] = None
            with t.pools() as p:
                if p.pools() != pools_of(nova.st):
                    return "op %d (%s): pools differ: nova %s, numafit %s" % (
                        i, op[0], pools_of(nova.st), p.pools())
    host.close()
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--library")
    ap.add_argument("--numafit")
    ap.add_argument("--cases", type=int, default=CASES)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--case", type=int)
    args = ap.parse_args()
    numafit = import_numafit(args.library)
    if not hasattr(numafit, "PciTracker"):
        print("numafit has no PciTracker (binding too old)")
        return 1
    conf = ds.NovaConf()
    passed = failed = claims = releases = defects = 0
    cases = [args.case] if args.case is not None else range(args.cases)
    try:
        for case in cases:
            devs, text, ops = gen_case(args.seed, case)
            claims += sum(1 for o in ops if o[0] == "claim")
            releases += sum(1 for o in ops if o[0] == "release")
            try:
                problem = run_case(numafit, conf, devs, text, ops)
            except Exception as e:  # noqa: BLE001
                problem = "%s: %s" % (type(e).__name__, e)
            if problem == "nova defect":
                defects += 1
                problem = None
            if problem:
                failed += 1
                if failed <= 5 or args.case is not None:
                    print("FAIL case %d: %s" % (case, problem))
                    if args.case is not None:
                        print(json.dumps({"devices": devs, "nova.conf": text, "ops": ops},
                                         indent=1))
            else:
                passed += 1
    finally:
        conf.close()
    print("%d claims and %d releases in %d cases" % (claims, releases, passed + failed))
    print(", ".join("%s: %d" % kv for kv in STATS.items()))
    print("%d cases ended at nova's defect (a refused claim leaves the dependents of the "
          "devices it gave back out of the pools; numafit's pools unchanged)" % defects)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
