#!/usr/bin/python3
"""Write the host-discovery fixtures from one description per host:

  tests/data/sysfs/<host>/sys/devices/system/{node,cpu}/...   a captured sysfs tree
  tests/data/caps/<host>.xml                                  libvirt 9.0 capabilities

Both are written from the same description, the capabilities the way
libvirt's virCapabilitiesHostNUMANewHost() builds them from that sysfs tree
(cell memory = node MemTotal; pages: 4 KiB = (MemTotal - huge pages) / 4, then
each huge page size in the node's hugepages/ directory, ascending; a CPU
without a topology/ directory is socket 0, core 0, its own sibling), so that
tests/check_discover.c can check that the two readers give the same model.
The hosts are those of tests/data/hosts/README (same CPUs, memory, pages);
"edge-offline" is a small synthetic host with an offline CPU and a
memory-only node. Regenerate with

    /usr/bin/python3 tests/data/make-sysfs.py
"""
import os
import shutil
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
GiB_KiB = 1024 * 1024


def fmt_list(cpus):
    """Kernel / libvirt cpu list: '0-3,8,10-11'."""
    cpus = sorted(cpus)
    out, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else "%d-%d" % (cpus[i], cpus[j]))
        i = j + 1
    return ",".join(out)


class Host:
    """nodes: list of dict(id, cpus, kib, huge={size_kb: count}, dist=[...]);
    cpus: {id: (socket, core, siblings) or None (offline, no topology)};
    online: set of online CPUs."""

    def __init__(self, name, arch, nodes, cpus, online):
        self.name, self.arch, self.nodes, self.cpus, self.online = name, arch, nodes, cpus, online


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def write_sysfs(h):
    top = os.path.join(HERE, "sysfs", h.name)
    shutil.rmtree(top, ignore_errors=True)
    base = os.path.join(top, "sys", "devices", "system")
    allcpus = sorted(h.cpus)
    write(os.path.join(base, "cpu", "online"), fmt_list(h.online) + "\n")
    for c in allcpus:
        d = os.path.join(base, "cpu", "cpu%d" % c)
        topo = h.cpus[c]
        if topo is None:
            os.makedirs(d, exist_ok=True)
            continue
        sock, core, sib = topo
        write(os.path.join(d, "topology", "physical_package_id"), "%d\n" % sock)
        write(os.path.join(d, "topology", "core_id"), "%d\n" % core)
        write(os.path.join(d, "topology", "thread_siblings_list"), fmt_list(sib) + "\n")
    write(os.path.join(base, "node", "online"), fmt_list([n["id"] for n in h.nodes]) + "\n")
    for n in h.nodes:
        d = os.path.join(base, "node", "node%d" % n["id"])
        write(os.path.join(d, "cpulist"), fmt_list(n["cpus"]) + "\n")
        huge = sum(s * c for s, c in n["huge"].items())
        free = n["kib"] - huge - 1024
        write(os.path.join(d, "meminfo"),
              "Node %d MemTotal:       %8d kB\n"
              "Node %d MemFree:        %8d kB\n"
              "Node %d MemUsed:        %8d kB\n"
              "Node %d HugePages_Total: %5d\n" % (n["id"], n["kib"], n["id"], free, n["id"],
                                                  n["kib"] - free, n["id"],
                                                  n["huge"].get(2048, 0)))
        write(os.path.join(d, "distance"), " ".join(str(v) for v in n["dist"]) + "\n")
        for size, count in sorted(n["huge"].items()):
            hp = os.path.join(d, "hugepages", "hugepages-%dkB" % size)
            write(os.path.join(hp, "nr_hugepages"), "%d\n" % count)


def caps_xml(h):
    sizes = sorted({s for n in h.nodes for s in n["huge"]})
    out = ["<capabilities>", "", "  <host>",
           "    <uuid>4c4c4544-0042-3510-8056-%012x</uuid>" % zlib.crc32(h.name.encode()),
           "    <cpu>", "      <arch>%s</arch>" % h.arch,
           "      <model>Broadwell-IBRS</model>", "      <vendor>Intel</vendor>",
           "      <pages unit='KiB' size='4'/>"]
    out += ["      <pages unit='KiB' size='%d'/>" % s for s in sizes]
    out += ["    </cpu>", "    <power_management>", "      <suspend_mem/>",
            "    </power_management>", "    <iommu support='yes'/>",
            "    <migration_features>", "      <live/>", "    </migration_features>",
            "    <topology>", "      <cells num='%d'>" % len(h.nodes)]
    for n in h.nodes:
        huge = sum(s * c for s, c in n["huge"].items())
        out.append("        <cell id='%d'>" % n["id"])
        out.append("          <memory unit='KiB'>%d</memory>" % n["kib"])
        out.append("          <pages unit='KiB' size='4'>%d</pages>" % ((n["kib"] - huge) // 4))
        for s, c in sorted(n["huge"].items()):
            out.append("          <pages unit='KiB' size='%d'>%d</pages>" % (s, c))
        out.append("          <distances>")
        for m, v in zip(h.nodes, n["dist"]):
            out.append("            <sibling id='%d' value='%d'/>" % (m["id"], v))
        out.append("          </distances>")
        if n["cpus"]:
            out.append("          <cpus num='%d'>" % len(n["cpus"]))
            for c in sorted(n["cpus"]):
                sock, core, sib = h.cpus[c] or (0, 0, [c])
                out.append("            <cpu id='%d' socket_id='%d' die_id='0' core_id='%d' "
                           "siblings='%s'/>" % (c, sock, core, fmt_list(sib)))
            out.append("          </cpus>")
        else:
            out.append("          <cpus num='0'/>")
        out.append("        </cell>")
    out += ["      </cells>", "    </topology>", "    <cache>",
            "      <bank id='0' level='3' type='both' size='20' unit='MiB' cpus='%s'/>"
            % fmt_list([c for c in h.cpus if h.cpus[c] and h.cpus[c][0] == 0]),
            "    </cache>", "    <secmodel>", "      <model>apparmor</model>",
            "      <doi>0</doi>", "    </secmodel>", "  </host>", "",
            "  <guest>", "    <os_type>hvm</os_type>", "    <arch name='x86_64'>",
            "      <wordsize>64</wordsize>",
            "      <emulator>/usr/bin/qemu-system-x86_64</emulator>",
            "      <domain type='qemu'/>", "      <domain type='kvm'/>", "    </arch>",
            "  </guest>", "", "</capabilities>", ""]
    return "\n".join(out)


def smt_host(name, nodes_cpus, node_kib, huge, sibling_of, socket_of, dist):
    cpus, nodes = {}, []
    for i, ccpus in enumerate(nodes_cpus):
        nodes.append(dict(id=i, cpus=sorted(ccpus), kib=node_kib[i], huge=dict(huge),
                          dist=dist[i]))
        for c in ccpus:
            sib = sibling_of(c)
            cpus[c] = (socket_of(i), min(sib) % 1000, sib)
    return Host(name, "x86_64", nodes, cpus, set(cpus))


def two_node_dist(n):
    return [[10 if i == j else 21 for j in range(n)] for i in range(n)]


def hosts():
    out = []
    # Huawei RH2288H V3, 2 x E5-2620 v4, HT off: node0 0-7, node1 8-15
    out.append(smt_host("rh2288h-v3", [range(0, 8), range(8, 16)], [131478404, 132087636],
                        {2048: 0, 1048576: 8}, lambda c: [c], lambda n: n, two_node_dist(2)))
    # Sugon I620-G30, 2 x Gold 6148, HT on: node0 0-19,40-59, node1 20-39,60-79
    out.append(smt_host("sugon-i620-g30",
                        [list(range(0, 20)) + list(range(40, 60)),
                         list(range(20, 40)) + list(range(60, 80))],
                        [527706112, 528395264], {2048: 0, 1048576: 32},
                        lambda c: [c % 40, c % 40 + 40], lambda n: n, two_node_dist(2)))
    # 2-socket E5-2620 (seed 002): siblings 0,12 1,13 ...
    out.append(smt_host("e5-2620-ht",
                        [list(range(0, 6)) + list(range(12, 18)),
                         list(range(6, 12)) + list(range(18, 24))],
                        [32823232, 33030400], {2048: 2048, 1048576: 0},
                        lambda c: [c % 12, c % 12 + 12], lambda n: n, two_node_dist(2)))
    # 2 x 96-core EPYC, 24 nodes of 8 cores x 2 threads
    dist = [[10 if i == j else (11 if i // 12 == j // 12 else 32) for j in range(24)]
            for i in range(24)]
    out.append(smt_host("epyc-24node",
                        [list(range(8 * n, 8 * n + 8)) + list(range(192 + 8 * n, 200 + 8 * n))
                         for n in range(24)],
                        [65536 * 1024 - 262144 - 4096 * n for n in range(24)],
                        {2048: 2048, 1048576: 8},
                        lambda c: [c % 192, c % 192 + 192], lambda n: n // 12, dist))
    # edge: CPU 3 offline (no topology/, thread_siblings_list of 7 is "7"),
    # node 2 memory-only with only 2M pages
    cpus = {0: (0, 0, [0, 4]), 4: (0, 0, [0, 4]), 1: (0, 1, [1, 5]), 5: (0, 1, [1, 5]),
            2: (1, 0, [2, 6]), 6: (1, 0, [2, 6]), 3: None, 7: (1, 1, [7])}
    nodes = [dict(id=0, cpus=[0, 1, 4, 5], kib=8388608, huge={2048: 512, 1048576: 1},
                  dist=[10, 21, 17]),
             dict(id=1, cpus=[2, 3, 6, 7], kib=8388608, huge={2048: 0, 1048576: 2},
                  dist=[21, 10, 28]),
             dict(id=2, cpus=[], kib=4194304, huge={2048: 16}, dist=[17, 28, 10])]
    out.append(Host("edge-offline", "x86_64", nodes, cpus, {0, 1, 2, 4, 5, 6, 7}))
    return out


if __name__ == "__main__":
    for h in hosts():
        write_sysfs(h)
        write(os.path.join(HERE, "caps", h.name + ".xml"), caps_xml(h))
