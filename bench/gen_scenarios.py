#!/usr/bin/python3
"""Write the benchmark scenario sets as `numafit fit --batch` JSON lines.

    /usr/bin/python3 bench/gen_scenarios.py --out DIR [--seed N] [--mix-count N]

Hosts are built with nova's own objects (NUMATopology, NUMACell,
NUMAPagesTopology, NetworkMetadata) and written with obj_to_primitive(), so
nova (bench/nova_bench.py) and numafit (`numafit bench`) read the same input.
Flavors are checked with nova's own numa_get_constraints(); flavors nova
refuses are not written.  Every line carries "nova_release": "zed" so that
numafit applies the rules of the installed nova (Debian 12's 26.2.2).

Files written in DIR:

  mix.jsonl            realistic mix: hosts of 2 to 8 cells (HT and not,
                       cpu_dedicated_set/cpu_shared_set and legacy, some
                       usage, 4K/2M/1G pages), flavors of all policies
  mix.meta.jsonl       one line per scenario: {"set":"mix", ...}
  manycell.jsonl       hosts of 8, 12, 16, 24 cells x guests of 4, 6, 8 cells,
                       kinds "lastnofit" (the last guest cell fits no host
                       cell) and "netfail" (every guest cell fits every host
                       cell, the network NUMA affinity check fails for every
                       permutation; not possible when guest cells == host
                       cells, so there is no 8x8 netfail)
  manycell.meta.jsonl  {"set":"manycell","host_cells":n,"guest_cells":k,
                        "kind":...,"permutations":n!/(n-k)!}
  fleet.json           the fleet benchmark's parameters (bench/fleet and
                       bench/nova_fleet.py): synthetic host spec, the five
                       flavors, limits, number of hosts

Standard library and nova only.
"""
import argparse
import json
import logging
import math
import os
import random
import sys

try:
    from nova import objects
    from nova.virt import hardware
except Exception as e:  # pragma: no cover
    print("nova not importable (%s: %s)" % (type(e).__name__, e), file=sys.stderr)
    sys.exit(77)

objects.register_all()
logging.getLogger("nova").setLevel(logging.CRITICAL)
logging.getLogger("oslo").setLevel(logging.CRITICAL)

RELEASE = "zed"
PHYSNETS = ["physnet0", "physnet1", "physnet2"]


def strip_changes(x):
    if isinstance(x, dict):
        return {k: strip_changes(v) for k, v in x.items() if k != "nova_object.changes"}
    if isinstance(x, list):
        return [strip_changes(v) for v in x]
    return x


def host_primitive(host):
    return strip_changes(host.obj_to_primitive())


def nova_accepts(flavor, image):
    """numa_get_constraints: True when nova builds a NUMA request."""
    try:
        fl = objects.Flavor(vcpus=flavor["vcpus"], memory_mb=flavor["memory_mb"],
                            extra_specs=dict(flavor["extra_specs"]))
        im = objects.ImageMeta.from_dict(json.loads(json.dumps(image or {})))
        return hardware.numa_get_constraints(fl, im) is not None
    except Exception:
        return False


def line(host, flavor, image=None, limits=None, strategy="spread"):
    return {"op": "fit", "host": host_primitive(host), "flavor": flavor,
            "image": image, "limits": limits, "strategy": strategy,
            "nova_release": RELEASE}


# --------------------------------------------------------------------------
# mix
# --------------------------------------------------------------------------
def mix_host(rng):
    """A server: 2 to 8 NUMA cells (1, 2 or 4 cells per socket), Linux CPU
    numbering (thread t of core c of cell n: t * cells * cores + n * cores + c),
    legacy (no cpu_dedicated_set: cpuset == pcpuset) or split
    cpu_shared_set/cpu_dedicated_set, hugepages, some usage."""
    ncells = rng.choice([2, 2, 2, 4, 4, 4, 8, 8, 3, 6])
    per_socket = 1 if ncells in (2, 3) else rng.choice([1, 2, 4]) if ncells in (4, 8) else 3
    threads = rng.choice([1, 2, 2, 2])
    cores = rng.choice([4, 6, 8, 10, 12, 16, 20, 24])
    if ncells >= 6:
        cores = rng.choice([4, 6, 8])
    mode = rng.choice(["legacy", "split", "split", "dedicated"])
    shared_cores = rng.choice([1, 2, 2, 4]) if mode == "split" else 0
    mem_per_cell = rng.choice([32768, 65536, 131072, 196608, 262144]) // (ncells // 2 or 1)
    pages_kind = rng.choice(["none", "2M", "1G", "both", "both"])
    net = rng.random() < 0.3
    cells = []
    for n in range(ncells):
        sibs, cpus_all = [], set()
        for c in range(cores):
            core = {t * ncells * cores + n * cores + c for t in range(threads)}
            sibs.append(core)
            cpus_all |= core
        if mode == "legacy":
            cpuset = pcpuset = set(cpus_all)
        elif mode == "dedicated":
            cpuset, pcpuset = set(), set(cpus_all)
        else:
            cpuset = set().union(*sibs[:shared_cores])
            pcpuset = cpus_all - cpuset
        mem = mem_per_cell
        n1g = n2m = 0
        if pages_kind in ("1G", "both"):
            n1g = rng.choice([4, 8, 16, 32]) * mem // 131072 or 2
        if pages_kind in ("2M", "both"):
            n2m = rng.choice([1024, 2048, 4096, 8192]) * mem // 131072 or 512
        small = (mem - n1g * 1024 - n2m * 2) * 256
        mempages = [objects.NUMAPagesTopology(size_kb=4, total=small, used=0, reserved=0),
                    objects.NUMAPagesTopology(size_kb=2048, total=n2m, used=0, reserved=0),
                    objects.NUMAPagesTopology(size_kb=1048576, total=n1g, used=0, reserved=0)]
        # some usage
        pinned, cpu_usage, mem_usage = set(), 0, 0
        if rng.random() < 0.6:
            frac = rng.random() * 0.7
            for sib in sibs:
                if sib <= pcpuset and rng.random() < frac:
                    pinned |= sib
            if cpuset:
                cpu_usage = rng.randint(0, 2 * len(cpuset))
            mem_usage = int(mem * rng.random() * 0.6) // 1024 * 1024
            for p in mempages[1:]:
                if p.total:
                    p.used = rng.randint(0, p.total // 2)
        cell = objects.NUMACell(
            id=n, cpuset=cpuset, pcpuset=pcpuset, memory=mem, cpu_usage=cpu_usage,
            memory_usage=mem_usage, pinned_cpus=pinned, siblings=sibs, mempages=mempages,
            socket=n // per_socket)
        if net:
            cell.network_metadata = objects.NetworkMetadata(
                physnets={PHYSNETS[n % len(PHYSNETS)]} if n < 2 else set(),
                tunneled=(n == 0))
        cells.append(cell)
    return objects.NUMATopology(cells=cells)


def mix_flavor(rng):
    """Flavors of all policies; returns (flavor, image, kind)."""
    kind = rng.choice(["shared", "shared", "dedicated", "dedicated-prefer",
                       "dedicated-isolate", "dedicated-require", "mixed", "realtime",
                       "hugepages", "multinode"])
    vcpus = rng.choice([1, 2, 2, 4, 4, 8, 16])
    mem = vcpus * rng.choice([1024, 2048, 4096])
    es, props = {}, {}
    nodes = None
    if kind == "shared":
        es["hw:cpu_policy"] = "shared"
        nodes = rng.choice([1, 1, 2])
    elif kind.startswith("dedicated"):
        es["hw:cpu_policy"] = "dedicated"
        if "-" in kind:
            es["hw:cpu_thread_policy"] = kind.split("-")[1]
    elif kind == "mixed":
        vcpus = max(vcpus, 4)
        mem = vcpus * 2048
        es["hw:cpu_policy"] = "mixed"
        es["hw:cpu_dedicated_mask"] = "^0-1"
    elif kind == "realtime":
        vcpus = max(vcpus, 2)
        es["hw:cpu_policy"] = "dedicated"
        es["hw:cpu_realtime"] = "yes"
        es["hw:cpu_realtime_mask"] = "^0"
        es["hw:emulator_threads_policy"] = "isolate"
        es["hw:mem_page_size"] = "1GB"
        mem = max(1024, mem // 1024 * 1024)
    elif kind == "hugepages":
        es["hw:cpu_policy"] = rng.choice(["dedicated", "shared"])
        es["hw:mem_page_size"] = rng.choice(["large", "2MB", "any", "1GB"])
        mem = max(1024, mem // 1024 * 1024)
    elif kind == "multinode":
        es["hw:cpu_policy"] = rng.choice(["dedicated", "dedicated", "shared"])
        nodes = rng.choice([2, 2, 3, 4])
        vcpus = nodes * rng.choice([1, 2, 4])
        mem = nodes * rng.choice([1024, 2048, 4096])
        if rng.random() < 0.5:
            es["hw:mem_page_size"] = rng.choice(["large", "2MB"])
    if kind not in ("hugepages", "realtime", "multinode") and rng.random() < 0.3:
        es["hw:mem_page_size"] = rng.choice(["small", "large", "2MB", "1GB", "any"])
        if es["hw:mem_page_size"] in ("large", "1GB"):
            mem = max(1024, mem // 1024 * 1024)
    if nodes:
        es["hw:numa_nodes"] = str(nodes)
    if kind.startswith("dedicated") and rng.random() < 0.15:
        es["hw:emulator_threads_policy"] = rng.choice(["share", "isolate"])
    return {"vcpus": vcpus, "memory_mb": mem, "extra_specs": es}, {"properties": props}, kind


def mix_limits(rng, host):
    if rng.random() < 0.4:
        return None
    lim = {"cpu_allocation_ratio": rng.choice([1.0, 2.0, 4.0, 16.0]),
           "ram_allocation_ratio": rng.choice([1.0, 1.0, 1.5])}
    if "network_metadata" in host.cells[0] and rng.random() < 0.5:
        lim["network_metadata"] = {"physnets": rng.sample(PHYSNETS, rng.randint(0, 2)),
                                   "tunneled": rng.random() < 0.5}
    return lim


def gen_mix(rng, count):
    lines, metas = [], []
    while len(lines) < count:
        host = mix_host(rng)
        flavor, image, kind = mix_flavor(rng)
        if not nova_accepts(flavor, image):
            continue
        strategy = "pack" if rng.random() < 0.2 else "spread"
        lines.append(line(host, flavor, image, mix_limits(rng, host), strategy))
        metas.append({"set": "mix", "flavor_kind": kind, "host_cells": len(host.cells)})
    return lines, metas


# --------------------------------------------------------------------------
# pcimix: mix lines with SR-IOV NICs and GPUs (the same hosts and flavors)
# --------------------------------------------------------------------------
def pci_pools(rng, cell_ids):
    """A host's pools (nova's flat form): an X710's VFs on one or two cells
    (and at times some of unknown node), its PF, a T4 at times."""
    pools = []
    for c in rng.sample(cell_ids, min(len(cell_ids), rng.choice([1, 1, 2]))):
        pools.append({"vendor_id": "8086", "product_id": "154c", "numa_node": c,
                      "count": rng.choice([4, 8, 16]), "dev_type": "type-VF",
                      "physical_network": "physnet1", "trusted": "false"})
        pools.append({"vendor_id": "8086", "product_id": "1572", "numa_node": c, "count": 1,
                      "dev_type": "type-PF", "physical_network": "physnet1"})
    if rng.random() < 0.3:
        pools.append({"vendor_id": "8086", "product_id": "154c", "numa_node": None,
                      "count": 2, "dev_type": "type-VF", "physical_network": "physnet1",
                      "trusted": "false"})
    if rng.random() < 0.5:
        pools.append({"vendor_id": "10de", "product_id": "1eb8",
                      "numa_node": rng.choice(cell_ids), "count": rng.choice([1, 2]),
                      "dev_type": "type-PCI"})
    return pools


def pci_requests(rng):
    """An instance's requests (instance_extra's list): 1 or 2 VFs of a
    neutron port or an alias with a random NUMA policy, a T4 at times."""
    reqs = [{"count": rng.choice([1, 1, 2]), "alias_name": "vf",
             "spec": [{"vendor_id": "8086", "product_id": "154c", "dev_type": "type-VF"}],
             "numa_policy": rng.choice(["legacy", "required", "preferred", "socket"])}]
    if rng.random() < 0.3:
        reqs.append({"count": 1, "alias_name": "t4",
                     "spec": [{"vendor_id": "10de", "product_id": "1eb8"}],
                     "numa_policy": rng.choice(["legacy", "required", "preferred"])})
    return reqs


def gen_pcimix(rng, mix_lines, count):
    """The first count mix lines with pools and requests."""
    lines = []
    for ln in mix_lines[:count]:
        cells = [c["nova_object.data"]["id"] for c in ln["host"]["nova_object.data"]["cells"]]
        d = dict(ln)
        d["pci_pools"] = pci_pools(rng, cells)
        d["pci_requests"] = pci_requests(rng)
        lines.append(d)
    return lines


# --------------------------------------------------------------------------
# manycell
# --------------------------------------------------------------------------
MANY_HOST_CELLS = (8, 12, 16, 24)
MANY_GUEST_CELLS = (4, 6, 8)
CELL_CORES, CELL_THREADS, CELL_MEM = 8, 2, 16384


def many_host(n, physnets=False):
    """n identical cells of 8 cores x 2 threads, all dedicated
    (cpu_dedicated_set), 16 GiB each (4K pages), no usage."""
    cells = []
    for i in range(n):
        sibs = [{t * n * CELL_CORES + i * CELL_CORES + c for t in range(CELL_THREADS)}
                for c in range(CELL_CORES)]
        cpus = set().union(*sibs)
        cell = objects.NUMACell(
            id=i, cpuset=set(), pcpuset=cpus, memory=CELL_MEM, cpu_usage=0, memory_usage=0,
            pinned_cpus=set(), siblings=sibs,
            mempages=[objects.NUMAPagesTopology(size_kb=4, total=CELL_MEM * 256, used=0,
                                                reserved=0)],
            socket=i * 2 // n)
        cell.network_metadata = objects.NetworkMetadata(
            physnets={"physnet%d" % i} if physnets else set(), tunneled=False)
        cells.append(cell)
    return objects.NUMATopology(cells=cells)


def many_flavor(k, last_mem=None):
    """k guest cells of 2 dedicated vCPUs and 1 GiB; with last_mem the last
    guest cell asks for last_mem MiB (hw:numa_cpus.N / hw:numa_mem.N)."""
    es = {"hw:cpu_policy": "dedicated", "hw:numa_nodes": str(k)}
    mems = [1024] * k
    if last_mem:
        mems[-1] = last_mem
        for i in range(k):
            es["hw:numa_cpus.%d" % i] = "%d-%d" % (2 * i, 2 * i + 1)
            es["hw:numa_mem.%d" % i] = str(mems[i])
    return {"vcpus": 2 * k, "memory_mb": sum(mems), "extra_specs": es}


def gen_manycell():
    lines, metas = [], []
    for n in MANY_HOST_CELLS:
        for k in MANY_GUEST_CELLS:
            perms = math.perm(n, k)
            # lastnofit: the last guest cell wants twice a cell's memory
            fl = many_flavor(k, last_mem=2 * CELL_MEM)
            assert nova_accepts(fl, None)
            lines.append(line(many_host(n), fl, None, None))
            metas.append({"set": "manycell", "host_cells": n, "guest_cells": k,
                          "kind": "lastnofit", "permutations": perms})
            if k < n:
                # netfail: each host cell has its own physnet and the instance
                # needs all n of them: k < n cells never cover them all
                fl = many_flavor(k)
                assert nova_accepts(fl, None)
                limits = {"cpu_allocation_ratio": 1.0, "ram_allocation_ratio": 1.0,
                          "network_metadata": {"physnets": ["physnet%d" % i for i in range(n)],
                                               "tunneled": False}}
                lines.append(line(many_host(n, physnets=True), fl, None, limits))
                metas.append({"set": "manycell", "host_cells": n, "guest_cells": k,
                              "kind": "netfail", "permutations": perms})
    return lines, metas


# --------------------------------------------------------------------------
# fleet
# --------------------------------------------------------------------------
FLEET = {
    "hosts": 10000,
    # 2 sockets x 32 cores x 2 threads in 4 NUMA cells (16 cores each), legacy
    # mode (no cpu_dedicated_set: shared and dedicated guests share the
    # CPUs), 128 GiB per cell of which 16 x 1 GiB and 4096 x 2 MiB pages
    "host_spec": "cells:4 sockets:2 cores:16 threads:2 mem:128G pages:1G=16,2M=4096",
    "nova_release": RELEASE,
    "strategy": "spread",
    "limits": {"cpu_allocation_ratio": 4.0, "ram_allocation_ratio": 1.0},
    "flavors": [
        {"name": "shared.large", "vcpus": 4, "memory_mb": 8192,
         "extra_specs": {"hw:numa_nodes": "1"}},
        {"name": "pinned.medium", "vcpus": 4, "memory_mb": 8192,
         "extra_specs": {"hw:cpu_policy": "dedicated", "hw:mem_page_size": "2MB"}},
        {"name": "pinned.2node.isolate", "vcpus": 8, "memory_mb": 16384,
         "extra_specs": {"hw:cpu_policy": "dedicated", "hw:cpu_thread_policy": "isolate",
                         "hw:numa_nodes": "2", "hw:mem_page_size": "1GB"}},
        {"name": "rt.small", "vcpus": 4, "memory_mb": 4096,
         "extra_specs": {"hw:cpu_policy": "dedicated", "hw:cpu_realtime": "yes",
                         "hw:cpu_realtime_mask": "^0", "hw:emulator_threads_policy": "isolate",
                         "hw:mem_page_size": "1GB"}},
        {"name": "mixed.xlarge", "vcpus": 16, "memory_mb": 16384,
         "extra_specs": {"hw:cpu_policy": "mixed", "hw:cpu_dedicated_mask": "^0-3",
                         "hw:numa_nodes": "2", "hw:mem_page_size": "large"}},
    ],
}


def write_lines(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="directory to write the sets to")
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--mix-count", type=int, default=1000)
    ap.add_argument("--pci-count", type=int, default=300,
                    help="mix lines also written with PCI pools and requests")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(args.seed)

    for fl in FLEET["flavors"]:
        assert nova_accepts({k: fl[k] for k in ("vcpus", "memory_mb", "extra_specs")}, None), fl
    lines, metas = gen_mix(rng, args.mix_count)
    write_lines(os.path.join(args.out, "mix.jsonl"), lines)
    write_lines(os.path.join(args.out, "mix.meta.jsonl"), metas)
    # the PCI mix: its own random numbers, so that the other sets stay
    pci = gen_pcimix(random.Random(args.seed + 1), lines, args.pci_count)
    write_lines(os.path.join(args.out, "pcimix.jsonl"), pci)
    write_lines(os.path.join(args.out, "pcimix-nopci.jsonl"), lines[:args.pci_count])
    lines, metas = gen_manycell()
    write_lines(os.path.join(args.out, "manycell.jsonl"), lines)
    write_lines(os.path.join(args.out, "manycell.meta.jsonl"), metas)
    with open(os.path.join(args.out, "fleet.json"), "w") as f:
        json.dump(FLEET, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote %s/{mix,manycell}.jsonl (+ .meta.jsonl), pcimix{,-nopci}.jsonl and fleet.json"
          % args.out)


if __name__ == "__main__":
    main()
