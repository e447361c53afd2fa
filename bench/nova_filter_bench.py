#!/usr/bin/python3
"""nova's NUMATopologyFilter against numafit.scheduler.NumafitNUMATopologyFilter
on nova's own objects, as nova-scheduler calls them.

    NUMAFIT_LIBRARY=libnumafit/.libs/libnumafit.so.0 \\
        /usr/bin/python3 bench/nova_filter_bench.py [--hosts 100,1000]
        [--rounds 3] [--seed N] [--modes warm,fresh,pci,claim,compute,steps]
        [--claim-hosts 50]
        [--claim-order after-filter|adjacent]

Hosts: nova's HostState objects whose numa_topology is built as nova's
host manager builds it (NUMATopology.obj_from_db_obj of the compute node's
DB column), from the real-host fixtures of tests/data/hosts/ (2-socket E5
with hyperthreads, Huawei RH2288H V3, Sugon I620-G30, a 24-cell EPYC),
each with random usage (pinned CPUs, shared CPU and memory usage, used huge
pages). Requests: RequestSpec objects of a flavor mix (shared, dedicated,
isolate, require, 1G pages, realtime with emulator threads isolate, 2 and
4 guest nodes, mixed, a physnet and a tunnelled network), with their
numa_topology from nova's numa_get_constraints.

Modes (the garbage collector on, as in nova-scheduler):
  warm   the same HostState objects for every request (hosts reused),
         each seen three times before the timed checks (untimed: the
         adapter's host cache settles on the third sight; the first sight
         of an object is what the fresh mode measures)
  fresh  before every request every host gets a new NUMATopology object
         with changed usage (as after every periodic update); building it
         (obj_from_db_obj) is not timed: nova's host manager pays it for
         either filter

  pci    as warm, but every host has nova's PciDeviceStats (an X710's VFs
         and PF on cell 0, at times VFs on another cell, VFs of unknown
         node, a T4 on the last cell; random counts) and every request
         nova's InstancePCIRequests (1 or 2 VFs, a random NUMA affinity
         policy; at times the T4 as well); both filters get them as
         nova-scheduler passes them; the 24-cell fixture is left out (nova
         would try every choice of cells for a multi-cell guest its
         devices refuse: minutes per host)
  claim  HostState.consume_from_request (nova's scheduler claim) on the
         hosts the filter passes, each on its own new host object and a
         clone of the request (both untimed; the hosts checked by the
         side's own filter first, as in the scheduler; --claim-order
         after-filter, the default: all --claim-hosts hosts checked, then
         each passed one claimed, as the scheduler claims the host it
         picked after filtering the fleet; adjacent: each claimed right
         after its own check, the objects still in the CPU caches): nova's
         own functions, then numafit's filter with numafit.nova.patch();
         the claimed hosts' usage (pinned CPU counts, CPU and memory usage,
         used pages per cell) is compared; a line per fixture follows
  compute nova's compute claim as the resource tracker makes it, on the
         compute node's DB column: NUMATopology.obj_from_db_obj,
         numa_fit_instance_to_host (the claim's NUMA test), then
         obj_from_db_obj again, numa_usage_from_instance_numa and _to_json
         (the usage update that stores the column); --claim-hosts nodes
         per request, each one the instance fits (picked untimed); nova's
         own functions, then with numafit.nova.patch(); the stored
         columns' usage is compared
  steps  the compute claim's five steps timed apart, per fixture (us per
         call, nova / numafit; the collector on, --claim-hosts nodes per
         flavor)

For each request both filters check every host (filter_all, as nova's filter
handler calls them), nova's first; the times are
per host check (total / checks), per claim in the claim mode. The verdicts are compared: a mismatch is
a host one filter passes and the other refuses (nova's fit cache defect can
cause some; they are counted, not hidden). Prints one line per mode and
fleet size, then the ratios. The last three columns: the garbage
collector's time per check or claim inside each side's timed calls
(gc.callbacks; a collection runs inside whichever call's allocation
triggers it, and nova's objects hold reference cycles, so every replaced
NUMATopology is the collector's work whoever built it), and the ratio of
the times without it. Each side's timed pass over the hosts (and its
timed claims) starts after a full collection (gc.collect(), untimed), so
that the garbage the untimed setup (building the fleet, filtering the
hosts, picking the nodes) and the other side left is not collected inside
either side's calls: each side pays for the collections its own calls
trigger. Not part of make check.
"""
import argparse
import copy
import gc
import json
import logging
import os
import random
import sys
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TOP, "bindings", "python"))

from nova import objects  # noqa: E402

objects.register_all()
from nova.scheduler import host_manager  # noqa: E402
from nova.scheduler.filters import numa_topology_filter  # noqa: E402
from nova.virt import hardware  # noqa: E402

import numafit.scheduler  # noqa: E402

logging.getLogger("nova").setLevel(logging.CRITICAL)
logging.getLogger("numafit").setLevel(logging.CRITICAL)

FIXTURES = ["e5-2620-ht.json", "rh2288h-v3.json", "sugon-i620-g30.json", "epyc-24node.json"]

FLAVORS = [
    ("shared", 2, 2048, {"hw:numa_nodes": "1"}),
    ("dedicated", 4, 4096, {"hw:cpu_policy": "dedicated"}),
    ("isolate", 4, 4096, {"hw:cpu_policy": "dedicated", "hw:cpu_thread_policy": "isolate"}),
    ("require", 4, 4096, {"hw:cpu_policy": "dedicated", "hw:cpu_thread_policy": "require"}),
    ("1G", 4, 8192, {"hw:cpu_policy": "dedicated", "hw:mem_page_size": "1GB"}),
    ("rt", 4, 8192, {"hw:cpu_policy": "dedicated", "hw:cpu_realtime": "yes",
                     "hw:cpu_realtime_mask": "^0-1", "hw:mem_page_size": "1GB",
                     "hw:emulator_threads_policy": "isolate"}),
    ("2nodes", 8, 8192, {"hw:cpu_policy": "dedicated", "hw:numa_nodes": "2"}),
    ("4nodes", 8, 8192, {"hw:numa_nodes": "4"}),
    ("mixed", 4, 4096, {"hw:cpu_policy": "mixed", "hw:cpu_dedicated_mask": "^0"}),
    ("physnet", 2, 2048, {"hw:numa_nodes": "1"}),
    ("tunnel", 2, 2048, {"hw:cpu_policy": "dedicated"}),
]


# the garbage collector's time inside each side's timed calls (gc.callbacks):
# nova's objects hold reference cycles, so the collector's passes are part of
# what either side costs; printed beside the times
_GC = {"side": None, "start": 0, "nova": 0, "numafit": 0}


def _gc_callback(phase, info):
    if _GC["side"] is None:
        return
    if phase == "start":
        _GC["start"] = time.perf_counter_ns()
    else:
        _GC[_GC["side"]] += time.perf_counter_ns() - _GC["start"]


def load_fixtures():
    out = []
    for name in FIXTURES:
        with open(os.path.join(TOP, "tests", "data", "hosts", name)) as f:
            out.append(json.load(f))
    return out


def with_usage(prim, rng):
    """A copy of a NUMATopology primitive with random usage, as DB text."""
    p = copy.deepcopy(prim)
    for cell in p["nova_object.data"]["cells"]:
        d = cell["nova_object.data"]
        pcpus = sorted(d.get("pcpuset") or [])
        d["pinned_cpus"] = sorted(rng.sample(pcpus, rng.randint(0, len(pcpus) // 2)))
        d["cpu_usage"] = rng.randint(0, len(d.get("cpuset") or []) * 2)
        d["memory_usage"] = rng.randint(0, d["memory"] // 2)
        for pg in d.get("mempages") or []:
            pd = pg["nova_object.data"]
            pd["used"] = rng.randint(0, pd["total"] // 2)
        # network affinity: physnet "foo" on cell 0, tunnels on the last cell
        if d["id"] == 0 or d is p["nova_object.data"]["cells"][-1]["nova_object.data"]:
            d["network_metadata"] = {
                "nova_object.name": "NetworkMetadata", "nova_object.namespace": "nova",
                "nova_object.version": "1.0",
                "nova_object.data": {"physnets": ["foo"] if d["id"] == 0 else [],
                                     "tunneled": d["id"] != 0}}
        cell.pop("nova_object.changes", None)
    p.pop("nova_object.changes", None)
    return json.dumps(p)


def host_state(i, db_text, cpu_ratio, ram_ratio):
    hs = host_manager.HostState("host%d" % i, "node%d" % i, "cell1")
    hs.numa_topology = objects.NUMATopology.obj_from_db_obj(db_text)
    hs.cpu_allocation_ratio = cpu_ratio
    hs.ram_allocation_ratio = ram_ratio
    hs.limits = {}
    return hs


def make_hosts(n, prims, rng):
    return [host_state(i, with_usage(prims[i % len(prims)], rng), rng.choice([1.0, 4.0, 16.0]),
                       rng.choice([1.0, 1.5])) for i in range(n)]


VF = {"vendor_id": "8086", "product_id": "154c", "dev_type": "type-VF"}
POLICIES = ("required", "legacy", "preferred", "socket")


def with_pci(hs, rng):
    """Give HostState hs nova's PciDeviceStats of random pools (the
    scheduler's: built from the compute node's pci_device_pools)."""
    from nova.pci import stats as pci_stats
    cells = [c.id for c in hs.numa_topology.cells]
    pools = [dict(VF, numa_node=cells[0], count=rng.randint(0, 16), physical_network="physnet1",
                  trusted="false"),
             {"vendor_id": "8086", "product_id": "1572", "dev_type": "type-PF",
              "numa_node": cells[0], "count": rng.randint(0, 1), "physical_network": "physnet1"}]
    if len(cells) > 1 and rng.random() < 0.5:
        pools.append(dict(VF, numa_node=rng.choice(cells[1:]), count=rng.randint(0, 16),
                          physical_network="physnet1", trusted="false"))
    if rng.random() < 0.3:
        pools.append(dict(VF, numa_node=None, count=rng.randint(1, 4),
                          physical_network="physnet1", trusted="false"))
    if rng.random() < 0.5:
        pools.append({"vendor_id": "10de", "product_id": "1eb8", "dev_type": "type-PCI",
                      "numa_node": cells[-1], "count": rng.randint(0, 2)})
    pools = [p for p in pools if p["count"]]
    hs.pci_stats = pci_stats.PciDeviceStats(hs.numa_topology, stats=objects.PciDevicePoolList(
        objects=[objects.PciDevicePool.from_dict(p) for p in pools]))
    return hs


def pci_spec(spec, rng):
    """A copy of RequestSpec spec with nova's InstancePCIRequests."""
    sp = spec.obj_clone()
    reqs = [objects.InstancePCIRequest(count=rng.randint(1, 2), spec=[dict(VF)], alias_name="vf",
                                       numa_policy=rng.choice(POLICIES))]
    if rng.random() < 0.3:
        reqs.append(objects.InstancePCIRequest(
            count=1, spec=[{"vendor_id": "10de", "product_id": "1eb8"}], alias_name="t4",
            numa_policy=rng.choice(POLICIES)))
    sp.pci_requests = objects.InstancePCIRequests(requests=reqs)
    return sp


def request_spec(name, vcpus, mem, specs):
    flavor = objects.Flavor(vcpus=vcpus, memory_mb=mem, extra_specs=dict(specs), name=name,
                            root_gb=0, ephemeral_gb=0)
    image = objects.ImageMeta.from_dict({"properties": {}})
    spec = objects.RequestSpec(flavor=flavor, image=image,
                               numa_topology=hardware.numa_get_constraints(flavor, image),
                               pci_requests=None, instance_uuid=str(uuid.uuid4()))
    if name == "physnet":
        spec.network_metadata = objects.NetworkMetadata(physnets={"foo"}, tunneled=False)
    elif name == "tunnel":
        spec.network_metadata = objects.NetworkMetadata(physnets=set(), tunneled=True)
    return spec


def check_all(flt, hosts, spec, side=None):
    """All hosts through the filter as nova's filter handler calls it
    (filter_all with the request's hosts; nova's filters check one host at
    a time through BaseHostFilter._filter_one and host_passes)."""
    _GC["side"] = side
    t0 = time.perf_counter_ns()
    passed = list(flt.filter_all(hosts, spec))
    dt = time.perf_counter_ns() - t0
    _GC["side"] = None
    ids = set(map(id, passed))
    return dt, [id(h) in ids for h in hosts]


def run(mode, n, rounds, prims, specs, rng):
    # the garbage of the previous fleet (nova's objects hold cycles) is
    # collected now, untimed, not in the middle of whichever filter runs
    # next; the collector stays on
    gc.collect()
    nova_f = numa_topology_filter.NUMATopologyFilter()
    ours_f = numafit.scheduler.NumafitNUMATopologyFilter()
    t_nova = t_ours = checks = mismatches = passed = 0
    if mode == "pci":
        # not the 24-cell EPYC: a multi-cell guest whose devices its cells
        # lack makes nova try every choice of cells (24P4 = 255,024 for
        # 4 cells, each asking the pools), minutes per host
        prims = [p for p in prims if len(p["nova_object.data"]["cells"]) < 16]
    hosts = make_hosts(n, prims, rng)
    if mode == "pci":
        hosts = [with_pci(hs, rng) for hs in hosts]
        specs = [pci_spec(sp, rng) for sp in specs]
    if mode in ("warm", "pci"):
        # the steady state: every host seen before (untimed, both filters;
        # numafit's host cache takes three sights to settle, see
        # doc/python.md); a first sight is what the fresh mode measures
        check_all(nova_f, hosts, specs[0])
        for _ in range(3):
            check_all(ours_f, hosts, specs[0])
    for _ in range(rounds):
        for spec in specs:
            if mode == "fresh":
                hosts = make_hosts(n, prims, rng)
            # each side's pass starts after a full collection (untimed): the
            # garbage of the fleet building and of the other side's pass is
            # not collected inside either side's checks
            gc.collect()
            a, va = check_all(nova_f, hosts, spec, "nova")
            gc.collect()
            b, vb = check_all(ours_f, hosts, spec, "numafit")
            t_nova += a
            t_ours += b
            checks += n
            passed += sum(vb)
            mismatches += sum(1 for x, y in zip(va, vb) if bool(x) != bool(y))
    return t_nova / checks / 1000, t_ours / checks / 1000, checks, passed, mismatches


def usage_counts(topo):
    """Per cell: pinned CPUs, CPU and memory usage, used pages: what a claim
    changes (the pinned threads inside a core may differ on purpose)."""
    return [(len(c.pinned_cpus), c.cpu_usage, c.memory_usage,
             tuple((m.size_kb, m.used) for m in c.mempages or ())) for c in topo.cells]


def run_claims(n, rounds, prims, specs, rng, order="after-filter"):
    """HostState.consume_from_request, nova's scheduler claim, on hosts the
    filter passes: nova's own functions, then with numafit.nova.patch().
    Each claim on its own new host object (built untimed, with the limits
    the filter stored) and a clone of the request (consume replaces its
    numa_topology).  order "after-filter": the side's filter checks all n
    hosts first, then each host it passed is claimed, as nova's scheduler
    claims the host it picked after filtering the fleet (the host's
    objects are no longer in the CPU caches); "adjacent": each host is
    claimed right after its own check.  Returns the times per claim, the
    count, the mismatches and {fixture: [nova ns, numafit ns, claims]}."""
    import numafit.nova as nn
    gc.collect()
    filters = {"nova": numa_topology_filter.NUMATopologyFilter(),
               "numafit": numafit.scheduler.NumafitNUMATopologyFilter()}
    t = {"nova": 0, "numafit": 0}
    per = {}
    claims = mismatches = 0
    for _ in range(rounds):
        for spec in specs:
            texts = [(with_usage(prims[i % len(prims)], rng), rng.choice([1.0, 4.0, 16.0]),
                      rng.choice([1.0, 1.5])) for i in range(n)]
            results = {}
            for side in ("nova", "numafit"):
                (nn.patch if side == "numafit" else nn.unpatch)()
                out = []
                todo = []

                def claim_all():
                    while todo:
                        k, hs = todo.pop(0)
                        sp = spec.obj_clone()
                        _GC["side"] = side
                        t0 = time.perf_counter_ns()
                        hs.consume_from_request(sp)
                        dt = time.perf_counter_ns() - t0
                        t[side] += dt
                        _GC["side"] = None
                        f = per.setdefault(FIXTURES[k % len(FIXTURES)], [0, 0, 0])
                        f[0 if side == "nova" else 1] += dt
                        f[2] += side == "nova"
                        out.append(usage_counts(hs.numa_topology))
                for i, (text, cr, rr) in enumerate(texts):
                    hs = host_state(i, text, cr, rr)
                    hs.free_ram_mb = hs.free_disk_mb = 10 ** 7
                    hs.vcpus_used = hs.num_instances = hs.num_io_ops = 0
                    # the scheduler claims on a host its filter passed
                    # (each side's own filter: a deployment of numafit
                    # runs its filter and patch() together)
                    if filters[side].host_passes(hs, spec):
                        todo.append((i, hs))
                    if order == "adjacent":
                        claim_all()
                hs = None
                if order == "after-filter":
                    gc.collect()  # the filter pass's garbage, untimed
                    claim_all()
                results[side] = out
            nn.unpatch()
            claims += len(results["nova"])
            mismatches += sum(1 for a, b in zip(results["nova"], results["numafit"]) if a != b)
    return t["nova"] / claims / 1000, t["numafit"] / claims / 1000, claims, mismatches, per


def compute_claim(text, spec, cr, rr):
    """nova's compute claim on the compute node's DB column `text`, as the
    resource tracker makes it (nova.compute.claims.Claim's NUMA test, then
    the usage update that stores the column again): the new column, or
    None when the instance does not fit.  Through nova.virt.hardware's
    module attributes, so patch() applies."""
    host = objects.NUMATopology.obj_from_db_obj(text)
    limits = objects.NUMATopologyLimits(cpu_allocation_ratio=cr, ram_allocation_ratio=rr)
    if "network_metadata" in spec and spec.network_metadata:
        limits.network_metadata = spec.network_metadata
    fitted = hardware.numa_fit_instance_to_host(host, spec.numa_topology, limits=limits,
                                                pci_requests=[], pci_stats=None)
    if fitted is None:
        return None
    host = objects.NUMATopology.obj_from_db_obj(text)
    return hardware.numa_usage_from_instance_numa(host, fitted, False)._to_json()


def run_compute_claims(n, rounds, prims, specs, rng):
    """The compute claim (compute_claim) on n compute nodes per request
    whose NUMA topology fits (checked untimed with nova's own functions):
    nova's own functions, then with numafit.nova.patch(); the stored
    columns' usage is compared."""
    import numafit.nova as nn
    gc.collect()
    t = {"nova": 0, "numafit": 0}
    claims = mismatches = 0
    for _ in range(rounds):
        for spec in specs:
            nn.unpatch()
            nodes = []
            for i in range(20 * n):  # (some flavors fit few fixtures)
                if len(nodes) == n:
                    break
                text = with_usage(prims[i % len(prims)], rng)
                cr, rr = rng.choice([1.0, 4.0, 16.0]), rng.choice([1.0, 1.5])
                if compute_claim(text, spec, cr, rr) is not None:
                    nodes.append((text, cr, rr))
            results = {}
            for side in ("nova", "numafit"):
                (nn.patch if side == "numafit" else nn.unpatch)()
                out = []
                gc.collect()  # the garbage of the picking and the other side, untimed
                for text, cr, rr in nodes:
                    _GC["side"] = side
                    t0 = time.perf_counter_ns()
                    column = compute_claim(text, spec, cr, rr)
                    t[side] += time.perf_counter_ns() - t0
                    _GC["side"] = None
                    out.append(column and usage_counts(objects.NUMATopology.obj_from_db_obj(column)))
                results[side] = out
            nn.unpatch()
            claims += len(nodes)
            mismatches += sum(1 for a, b in zip(results["nova"], results["numafit"]) if a != b)
    return t["nova"] / claims / 1000, t["numafit"] / claims / 1000, claims, mismatches


def run_steps(n, prims, specs, rng):
    """The compute claim's steps, each timed apart, per fixture: n nodes
    per flavor the instance fits (picked untimed with nova's functions),
    every step on each node in turn (nova's own, then with patch()).
    Prints us per call: nova / numafit."""
    import numafit.nova as nn
    steps = ("from_db", "fit", "from_db again", "usage", "_to_json")
    print("%-16s %s" % ("fixture", " ".join("%17s" % x for x in steps)))
    for name, prim in zip(FIXTURES, prims):
        nodes = []
        nn.unpatch()
        for spec in specs:
            got = 0
            for _ in range(20 * n):
                if got == n:
                    break
                text = with_usage(prim, rng)
                cr, rr = rng.choice([1.0, 4.0, 16.0]), rng.choice([1.0, 1.5])
                if compute_claim(text, spec, cr, rr) is not None:
                    nodes.append((text, spec, cr, rr))
                    got += 1
        per = {}
        for side in ("nova", "numafit"):
            (nn.patch if side == "numafit" else nn.unpatch)()
            t = [0] * len(steps)
            gc.collect()
            for text, spec, cr, rr in nodes:
                limits = objects.NUMATopologyLimits(cpu_allocation_ratio=cr,
                                                    ram_allocation_ratio=rr)
                if "network_metadata" in spec and spec.network_metadata:
                    limits.network_metadata = spec.network_metadata
                t0 = time.perf_counter_ns()
                host = objects.NUMATopology.obj_from_db_obj(text)
                t1 = time.perf_counter_ns()
                fitted = hardware.numa_fit_instance_to_host(
                    host, spec.numa_topology, limits=limits, pci_requests=[], pci_stats=None)
                t2 = time.perf_counter_ns()
                host = objects.NUMATopology.obj_from_db_obj(text)
                t3 = time.perf_counter_ns()
                used = hardware.numa_usage_from_instance_numa(host, fitted, False)
                t4 = time.perf_counter_ns()
                used._to_json()
                t5 = time.perf_counter_ns()
                for i, (a, b) in enumerate(((t0, t1), (t1, t2), (t2, t3), (t3, t4), (t4, t5))):
                    t[i] += b - a
            per[side] = [x / len(nodes) / 1000 for x in t]
        nn.unpatch()
        print("%-16s %s" % (name.split(".")[0], " ".join(
            "%17s" % ("%.0f / %.0f" % (a, b)) for a, b in zip(per["nova"], per["numafit"]))))
        sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hosts", default="100,1000")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--modes", default="warm,fresh,claim,compute")
    ap.add_argument("--claim-hosts", type=int, default=50,
                    help="hosts per request in the claim mode")
    ap.add_argument("--claim-order", choices=("after-filter", "adjacent"),
                    default="after-filter",
                    help="claim mode: claim after filtering all hosts (as nova's "
                    "scheduler does), or each host right after its own check")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    prims = load_fixtures()
    specs = [request_spec(*f) for f in FLAVORS]
    gc.callbacks.append(_gc_callback)
    print("%-6s %6s %12s %14s %8s %8s %8s %10s %8s %8s %10s" % (
        "mode", "hosts", "nova us", "numafit us", "ratio", "checks", "passed", "mismatch",
        "nova gc", "ours gc", "ratio-gc"))

    def report(mode, n, tn, to, count, passed, mism):
        """One line; the gc columns: the collector's time per check or claim
        inside each side's timed calls, and the ratio without it."""
        gn, go = _GC["nova"] / count / 1000, _GC["numafit"] / count / 1000
        _GC["nova"] = _GC["numafit"] = 0
        print("%-7s %5d %12.1f %14.1f %7.1fx %8d %8s %10d %8.1f %8.1f %9.1fx" % (
            mode, n, tn, to, tn / to, count, passed, mism, gn, go,
            (tn - gn) / max(to - go, 1e-9)))
        sys.stdout.flush()
    for mode in args.modes.split(","):
        if mode in ("claim", "compute", "steps"):
            continue
        for n in (int(x) for x in args.hosts.split(",")):
            _GC["nova"] = _GC["numafit"] = 0
            tn, to, checks, passed, mism = run(mode, n, args.rounds, prims, specs, rng)
            report(mode, n, tn, to, checks, passed, mism)
    if "claim" in args.modes.split(","):
        _GC["nova"] = _GC["numafit"] = 0
        tn, to, claims, mism, per = run_claims(args.claim_hosts, args.rounds, prims, specs,
                                               rng, args.claim_order)
        report("claim", args.claim_hosts, tn, to, claims, "-", mism)
        for name, (a, b, k) in per.items():
            print("  claim on %-16s %5d claims  nova %8.1f us  numafit %8.1f us  %5.1fx" % (
                name.split(".")[0], k, a / k / 1000, b / k / 1000, a / max(b, 1)))
    if "steps" in args.modes.split(","):
        run_steps(args.claim_hosts, prims, specs, rng)
    if "compute" in args.modes.split(","):
        _GC["nova"] = _GC["numafit"] = 0
        tn, to, claims, mism = run_compute_claims(args.claim_hosts, args.rounds, prims, specs, rng)
        report("compute", args.claim_hosts, tn, to, claims, "-", mism)


if __name__ == "__main__":
    main()
