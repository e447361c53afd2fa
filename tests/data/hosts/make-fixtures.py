#!/usr/bin/python3
"""Regenerate the host fixtures in this directory with nova's own objects.

Run with the system python that has nova (python3-nova, Zed 26.x):
    /usr/bin/python3 tests/data/hosts/make-fixtures.py
Every versioned fixture is NUMATopology(...).obj_to_primitive(), i.e. exactly
what nova's resource tracker stores in compute_nodes.numa_topology (parsed
once). Only "nova_object.changes" is sorted, so that the output is stable
(nova's order depends on hash randomisation). See README for what each
fixture models and which numbers are assumptions.
"""
import json
import os

from nova import objects
from nova.virt import hardware

objects.register_all()

HERE = os.path.dirname(os.path.abspath(__file__))
GiB_KiB = 1024 * 1024


def sort_changes(p):
    if isinstance(p, dict):
        if "nova_object.changes" in p:
            p["nova_object.changes"] = sorted(p["nova_object.changes"])
        for v in p.values():
            sort_changes(v)
    elif isinstance(p, (list, tuple)):
        for v in p:
            sort_changes(v)
    return p


def pages(node_kib, huge):
    """NUMAPagesTopology list as libvirt reports it for one node:
    4K pages = (node memory - hugepages) / 4K, then each huge page size.
    huge: [(size_kb, total, used, reserved)]"""
    hp_kib = sum(s * t for s, t, _, _ in huge)
    out = [objects.NUMAPagesTopology(size_kb=4, total=(node_kib - hp_kib) // 4,
                                     used=0, reserved=0)]
    for s, t, u, r in huge:
        out.append(objects.NUMAPagesTopology(size_kb=s, total=t, used=u, reserved=r))
    return out


def cell(cid, cpus, shared, dedicated, node_kib, huge, siblings, socket,
         cpu_usage=0, memory_usage=0, pinned=(), netmeta=None):
    """One NUMACell built the way nova's libvirt driver does
    (_get_host_numa_topology): cpuset = cpus & shared, pcpuset = cpus &
    dedicated, siblings restricted to usable CPUs, memory truncated to MiB."""
    cpus = set(cpus)
    usable = cpus & (set(shared) | set(dedicated))
    sib = [set(s) & usable for s in siblings]
    sib = [s for s in sib if s]
    c = objects.NUMACell(
        id=cid, cpuset=cpus & set(shared), pcpuset=cpus & set(dedicated),
        memory=node_kib // 1024, cpu_usage=cpu_usage, memory_usage=memory_usage,
        pinned_cpus=set(pinned), siblings=sib, mempages=pages(node_kib, huge),
        socket=socket)
    if netmeta is not None:
        c.network_metadata = objects.NetworkMetadata(physnets=set(netmeta[0]),
                                                     tunneled=netmeta[1])
    return c


def write(name, topo):
    prim = sort_changes(topo.obj_to_primitive())
    # round-trip through nova once more, as the DB column would be read back
    again = objects.NUMATopology.obj_from_primitive(json.loads(json.dumps(prim)))
    assert again.obj_to_primitive()["nova_object.data"]["cells"][0]["nova_object.data"]["id"] \
        == topo.cells[0].id
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(prim, f, indent=2)
        f.write("\n")


def rh2288h_v3():
    # 2 x E5-2620 v4 (8 cores), hyper-threading disabled in the BIOS:
    # node0 CPUs 0-7, node1 8-15 (lscpu in the seed). isolcpus=4-11 ->
    # cpu_dedicated_set=4-11, cpu_shared_set=0-3,12-15. 16 x 1G pages.
    shared = set(range(0, 4)) | set(range(12, 16))
    dedicated = set(range(4, 12))
    node_kib = [131478404, 132087636]       # assumption: 251 GiB MemTotal split
    cells = []
    for n in range(2):
        cpus = range(8 * n, 8 * n + 8)
        # usage (nova's numa_usage_from_instance_numa): node0 runs the seed's
        # rt_flavor (4 vCPU dedicated, 8192 MB, hw:mem_page_size=1GB) pinned
        # to 4-7 using 8 x 1G pages; node1 runs a 2 vCPU/4096 MB shared guest.
        if n == 0:
            usage = dict(cpu_usage=0, memory_usage=8192, pinned=range(4, 8))
            huge = [(2048, 0, 0, 0), (1048576, 8, 8, 0)]
        else:
            usage = dict(cpu_usage=2, memory_usage=4096, pinned=())
            huge = [(2048, 0, 0, 0), (1048576, 8, 0, 0)]
        cells.append(cell(n, cpus, shared, dedicated, node_kib[n], huge,
                          [[c] for c in cpus], n, **usage))
    write("rh2288h-v3.json", objects.NUMATopology(cells=cells))


def sugon_i620_g30():
    # 2 x Gold 6148 (20 cores, HT on): node0 0-19,40-59, node1 20-39,60-79,
    # siblings (n, n+40). Assumed config: the first two cores of each socket
    # (with their siblings) for the host, the rest dedicated.
    host = {0, 1, 20, 21, 40, 41, 60, 61}
    allc = set(range(80))
    node_kib = [527706112, 528395264]       # assumption: 1 TiB installed
    huge = [(2048, 0, 0, 0), (1048576, 32, 0, 0)]  # assumption: 32 x 1G per node
    netmeta = [(["physnet1"], False), ([], True)]  # assumption
    cells = []
    for n in range(2):
        cores = range(20 * n, 20 * n + 20)
        cpus = set(cores) | {c + 40 for c in cores}
        cells.append(cell(n, cpus, host, allc - host, node_kib[n], huge,
                          [[c, c + 40] for c in cores], n, netmeta=netmeta[n]))
    write("sugon-i620-g30.json", objects.NUMATopology(cells=cells))


def e5_2620_ht():
    # 2 x E5-2620 (6 cores, 2 threads): virsh capabilities in the seed:
    # <cpus num='12'>, siblings 0,12 1,13 ... 11,23. No CPU options set, so
    # nova's legacy mode: cpuset == pcpuset == all online CPUs.
    allc = set(range(24))
    node_kib = [32823232, 33030400]         # assumption: 64 GiB
    huge = [(2048, 2048, 0, 0), (1048576, 0, 0, 0)]  # assumption: 4 GiB of 2M per node
    cells = []
    for n in range(2):
        cores = range(6 * n, 6 * n + 6)
        cpus = set(cores) | {c + 12 for c in cores}
        cells.append(cell(n, cpus, allc, allc, node_kib[n], huge,
                          [[c, c + 12] for c in cores], n))
    write("e5-2620-ht.json", objects.NUMATopology(cells=cells))


def epyc_24node():
    # 2 x 96-core EPYC (12 CCDs of 8 cores each) with "L3 as NUMA": 24 nodes
    # of 8 cores x 2 threads; Linux numbers cores 0-191 then threads 192-383.
    shared, dedicated = set(), set()
    cells = []
    for n in range(24):
        cores = range(8 * n, 8 * n + 8)
        shared |= {cores[0], cores[0] + 192}           # assumption
        dedicated |= {c for c in cores[1:]} | {c + 192 for c in cores[1:]}
    for n in range(24):
        cores = range(8 * n, 8 * n + 8)
        cpus = set(cores) | {c + 192 for c in cores}
        huge = [(2048, 2048, 0, 0), (1048576, 8, 0, 0)]   # assumption
        cells.append(cell(n, cpus, shared, dedicated, 65536 * 1024 - 262144 - 4096 * n,
                          huge, [[c, c + 192] for c in cores], n // 12))
    write("epyc-24node.json", objects.NUMATopology(cells=cells))


def legacy_dict():
    # The pre-Liberty (Juno/Kilo) compute_nodes.numa_topology dict of the
    # e5-2620-ht host with some usage; read by NUMATopology.from_legacy_object.
    legacy = {"cells": [
        {"id": 0, "cpus": "0-5,12-17", "mem": {"total": 32053, "used": 4096},
         "cpu_usage": 4},
        {"id": 1, "cpus": "6-11,18-23", "mem": {"total": 32256, "used": 0},
         "cpu_usage": 0},
    ]}
    # check that nova accepts it
    objects.NUMATopology.obj_from_db_obj(
        objects.NUMATopology.from_legacy_object(json.dumps(legacy)))
    hardware.parse_cpu_spec(legacy["cells"][0]["cpus"])
    with open(os.path.join(HERE, "legacy-dict.json"), "w") as f:
        json.dump(legacy, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    rh2288h_v3()
    sugon_i620_g30()
    e5_2620_ht()
    epyc_24node()
    legacy_dict()
