#!/usr/bin/python3
"""Write the seed corpora of the fuzz targets from the repository's fixtures:

  tests/fuzz/corpus/<target>/seed-*      (the other files there are kept)

  caps_xml    tests/data/caps/*.xml (those under 16 KiB)
  sysfs       tests/data/sysfs/<host>/sys/devices/system as PATH\\0CONTENT\\0 records
  doctor      tests/data/doctor/<host>/ as records, rt-good with "flags" r,
              and the kernel tuning files of a 2-CPU host; each running
              domain of tests/data/doctor-domains as a "domains/0" record
              with the CPU, node and nova.conf files of its host
  synthetic   the specs of the unit tests and the documentation
  placement   examples/fleet/instances.jsonl topologies (with their host's
              JSON when it is small) and the plain placements of tests/cases
  limits      the limits of tests/cases and examples/fleet/limits.json
  hostconf    a few nova.conf option sets
  domain      the flavors and images of tests/cases, with domain settings;
              [libvirt] cpu_mode, cpu_models, extra flags, virt types, the
              balloon period and disk cache modes with hw:pmu and a Windows
              image
  plan_load   examples/fleet and tests/plan/data dumps, instances, flavors
  render      tests/data/plan/*.json
  batch       the input lines of tests/cases
  extra_specs the flavors' extra specs of tests/cases, and single keys and
              values (KEY NUL VALUE)
  forms       tests/data/forms (as flavor, image or both) and properties
              texts of `openstack flavor show` and `openstack image show`
  hostdev     claims with alias devices and direct, macvtap,
              direct-physical, vdpa, remote-managed and virtio-forwarder
              ports (bound by the SR-IOV agent, Open vSwitch or a vhost-user
              forwarder), flavors, images and [libvirt] settings
  host_records  tests/data/hosts/*.json (the versioned ones) as integer
              records, 16-bit values where they fit, else 64-bit

Run from anywhere: /usr/bin/python3 tests/fuzz/make-seeds.py
Only seeds up to 16 KiB are written; see doc/fuzzing.md.
"""
import glob
import json
import os

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(TOP, "tests", "fuzz", "corpus")
MAX = 16 * 1024


def rd(*parts):
    with open(os.path.join(TOP, *parts), "rb") as f:
        return f.read()


def put(target, name, data):
    if isinstance(data, str):
        data = data.encode()
    if len(data) > MAX:
        return
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


def records(root, sub=""):
    """PATH\\0CONTENT\\0 records of every file under root/sub (paths relative to root/sub)."""
    base = os.path.join(root, sub)
    out = b""
    for dirpath, _, names in sorted(os.walk(base)):
        for n in sorted(names):
            p = os.path.join(dirpath, n)
            out += os.path.relpath(p, base).encode() + b"\0" + open(p, "rb").read() + b"\0"
    return out


def loads(text):
    try:
        return json.loads(text)
    except ValueError:
        return None


def cases():
    for path in sorted(glob.glob(os.path.join(TOP, "tests", "cases", "*.case"))):
        name = os.path.basename(path)[:-5]
        lines = {}
        for line in open(path, encoding="utf-8"):
            if ":" in line and not line.startswith("#"):
                k, v = line.split(":", 1)
                lines.setdefault(k.strip(), []).append(v.strip())
        yield name, lines


def host_records(prim):
    """A NUMATopology primitive as the host_records target's input: mode,
    names length, names, values (doc/host-records.md for the layout)."""
    import struct
    rec, names = [1, len(prim["nova_object.data"]["cells"])], b""
    for c in prim["nova_object.data"]["cells"]:
        d = c["nova_object.data"]
        sock = d.get("socket")
        rec += [d["id"], -1 if sock is None else sock, d["memory"], d.get("cpu_usage", 0),
                d.get("memory_usage", 0)]
        for k in ("cpuset", "pcpuset", "pinned_cpus"):
            v = d.get(k) or []
            rec += [len(v)] + list(v)
        sib = d.get("siblings") or []
        rec += [len(sib)] + [len(x) for x in sib] + [c for x in sib for c in x]
        pages = d.get("mempages") or []
        rec.append(len(pages))
        for pg in pages:
            pd = pg["nova_object.data"]
            rec += [pd["size_kb"], pd["total"], pd.get("used", 0), pd.get("reserved", 0)]
        nm = d.get("network_metadata")
        if nm is None:
            rec += [-1, 0]
        else:
            nd = nm["nova_object.data"]
            phys = nd.get("physnets") or []
            rec += [1 if nd.get("tunneled") else 0, len(phys)]
            names += b"".join(x.encode() + b"\0" for x in phys)
    small = all(-32768 <= v < 32768 for v in rec)
    body = struct.pack("<%d%s" % (len(rec), "h" if small else "q"), *rec)
    return bytes([0 if small else 1]) + struct.pack("<H", len(names)) + names + body


def main():
    for p in sorted(glob.glob(os.path.join(TOP, "tests", "data", "hosts", "*.json"))):
        prim = loads(open(p, "rb").read())
        if isinstance(prim, dict) and "nova_object.data" in prim:
            put("host_records", os.path.basename(p)[:-5], host_records(prim))
    for p in sorted(glob.glob(os.path.join(TOP, "tests", "data", "caps", "*"))):
        put("caps_xml", os.path.basename(p).rsplit(".", 1)[0], open(p, "rb").read())
    put("caps_xml", "online", rd("tests", "data", "caps", "edge-offline.xml") + b"\0" + b"0-2,4-7")

    for d in sorted(glob.glob(os.path.join(TOP, "tests", "data", "sysfs", "*"))):
        put("sysfs", os.path.basename(d), records(d, "sys/devices/system"))
    for d in sorted(glob.glob(os.path.join(TOP, "tests", "data", "doctor", "*"))):
        put("sysfs", "doctor-" + os.path.basename(d), records(d, "sys/devices/system"))
        put("doctor", os.path.basename(d), records(d))
    put("doctor", "rt-good-flags",
        records(os.path.join(TOP, "tests", "data", "doctor", "rt-good")) + b"flags\0ri\0")
    put("doctor", "conf-only", b"etc/nova/nova.conf\0[compute]\ncpu_dedicated_set = 2-7\n\0")
    # running domains with the files their checks and nova's fit read
    keep = ("proc/cmdline", "etc/nova/nova.conf", "sys/devices/system/cpu/online",
            "sys/devices/system/node/")

    def host_core(host):
        out = b""
        base = os.path.join(TOP, "tests", "data", "doctor", host)
        for dirpath, _, names in sorted(os.walk(base)):
            for n in sorted(names):
                rel = os.path.relpath(os.path.join(dirpath, n), base)
                if rel.startswith(keep) or rel.endswith("/thread_siblings_list"):
                    out += rel.encode() + b"\0" + open(os.path.join(base, rel), "rb").read() + b"\0"
        return out

    dd = os.path.join(TOP, "tests", "data", "doctor-domains")
    xmls = {}
    for p in sorted(glob.glob(os.path.join(dd, "*.xml"))):
        name = os.path.basename(p)[:-4]
        xmls[name] = open(p, "rb").read()
        host = "e5-2620-legacy" if name.startswith("legacy") else "rt-good"
        put("doctor", "domain-" + name, host_core(host) + b"domains/0\0" + xmls[name] + b"\0")
    put("doctor", "domains-two", host_core("rt-good") + b"domains/0\0" + xmls["rt-good-rt"] +
        b"\0domains/1\0" + xmls["cell-split"] + b"\0")
    # the kernel tuning files on a 2-CPU host (the fixtures' trees are larger)
    tuning = [("proc/cmdline", "default_hugepagesz=1G idle=halt intel_idle.max_cstate=3\n"),
              ("sys/devices/system/cpu/online", "0-1\n"),
              ("sys/devices/system/cpu/intel_pstate/status", "active\n"),
              ("sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never\n"),
              ("sys/kernel/mm/transparent_hugepage/defrag", "always defer [madvise] never\n"),
              ("sys/kernel/mm/ksm/run", "1\n"),
              ("sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", "2\n"),
              ("sys/devices/system/node/node0/cpulist", "0-1\n"),
              ("sys/devices/system/node/node0/hugepages/hugepages-1048576kB/nr_hugepages", "2\n"),
              ("sys/devices/system/node/node0/hugepages/hugepages-1048576kB/free_hugepages",
               "0\n"),
              ("etc/default/qemu-kvm", "KSM_ENABLED=1\n"),
              ("etc/systemd/system/multi-user.target.wants/ksmtuned.service", "[Unit]\n"),
              ("etc/sysctl.d/80-huge.conf", "vm.nr_hugepages = 4\n"),
              ("etc/sysctl.conf", "-vm/nr_hugepages=3\n"),
              ("sys/block/sda/queue/scheduler", "mq-deadline kyber [bfq] none\n"),
              ("sys/module/kvm_intel/parameters/nested", "Y\n"),
              ("sys/module/kvm_intel/parameters/preemption_timer", "N\n"),
              ("proc/modules", "vhost_net 32768 0 - Live 0x0\n"),
              ("dev/kvm", ""), ("flags", "r")]
    for c in range(2):
        tuning.append(("sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor" % c, "schedutil\n"))
        for st, (name, lat) in enumerate((("POLL", 0), ("C1", 2), ("C6", 133))):
            d = "sys/devices/system/cpu/cpu%d/cpuidle/state%d/" % (c, st)
            tuning += [(d + "name", name + "\n"), (d + "latency", "%d\n" % lat),
                       (d + "disable", "%d\n" % (st == 2 and c == 1))]
    put("doctor", "tuning", b"".join(p.encode() + b"\0" + t.encode() + b"\0" for p, t in tuning))

    specs = [
        "cells:2 cores:8 threads:2 mem:64G pages:1G=4,2M=512 dedicated:2-7,18-23 shared:0-1,16-17",
        "cells:4 sockets:2 cores:6 threads:2 mem:32G pages:2M=1024",
        "cells:1 cores:4 dedicated:2-3 shared:0-1", "cells:8 cores:2 threads:2 mem:8G pages:2M=512",
        "cells:2 cores:4 threads:2 mem:16G pages:1G=4,2M=1024 shared:0,4,8,12",
        "2x32c2t 4cells 1G:64 2M:4096", "2x4c2t 2cells 1G:4 2M:1024 mem:64G", "1x2c mem:4G 1G:8",
        "1x8c dedicated:2-7 shared:0-1", "1x64c2t 3cells", "2x8c 1G:3", "cells:1",
        "cells:32 sockets:2 cores:16 threads:2 mem:64G",
    ]
    for i, s in enumerate(specs):
        put("synthetic", "spec%02d" % i, s)

    hosts = {}
    for line in rd("examples", "fleet", "compute_nodes.jsonl").decode().splitlines():
        if line.strip():
            row = json.loads(line)
            hosts[row["hypervisor_hostname"]] = row["numa_topology"]
    for i, line in enumerate(rd("examples", "fleet", "instances.jsonl").decode().splitlines()):
        if not line.strip():
            continue
        row = json.loads(line)
        topo = row["numa_topology"]
        topo = topo if isinstance(topo, str) else json.dumps(topo)
        host = hosts.get(row.get("host") or row.get("node") or "")
        host = host if isinstance(host, str) or host is None else json.dumps(host)
        put("placement", "fleet%02d" % i, topo)
        if host:
            put("placement", "fleet%02d-host" % i, topo + "\0" + host)
    for name, c in cases():
        for exp in c.get("expected", []):
            fit = loads(exp)
            fit = fit.get("fit") if isinstance(fit, dict) else None
            if isinstance(fit, list):
                put("placement", "case-" + name, json.dumps(fit))
                inp = loads(c["input"][0])
                put("placement", "case-%s-host" % name,
                    json.dumps(fit) + "\0" + json.dumps(inp["host"]))

    put("limits", "fleet", rd("examples", "fleet", "limits.json"))
    put("limits", "null", "null")
    put("limits", "primitive", json.dumps({
        "nova_object.name": "NUMATopologyLimits", "nova_object.namespace": "nova",
        "nova_object.version": "1.1", "nova_object.data": {
            "cpu_allocation_ratio": 16.0, "ram_allocation_ratio": 1.5,
            "network_metadata": {"nova_object.name": "NetworkMetadata",
                                 "nova_object.namespace": "nova", "nova_object.version": "1.0",
                                 "nova_object.data": {"physnets": ["physnet1"],
                                                      "tunneled": True}}}}))
    put("limits", "physnets", json.dumps({"cpu_allocation_ratio": 4.0, "ram_allocation_ratio": 1.0,
                                          "network_metadata": {"physnets": ["physnet0", "physnet3"],
                                                               "tunneled": False}}))
    for name, c in cases():
        inp = loads(c["input"][0]) if c.get("input") else None
        if isinstance(inp, dict) and inp.get("limits") is not None:
            put("limits", "case-" + name, json.dumps(inp["limits"]))

    confs = {
        "dedicated-shared": "d 2-7,10-15\ns 0-1,8-9\n",
        "legacy-pin-set": "v 1-7,^4\n",
        "reserved": "r node:0,size:2048,count:64\nr node:1,size:1GB,count:1\n",
        "physnets": "p physnet1\t0\np physnet2\t0,1\nt 1\n",
        "offline": "o 0-6,8-15\nd 2-5\n",
        "all": "d 4-7,12-15\ns 0-3\nr node:0, size:2MB, count:512\np foo\t1\nt 0,1\n",
    }
    for name, text in confs.items():
        put("hostconf", name, text)

    quota = {"vcpus": 2, "memory_mb": 1024, "extra_specs": {
        "quota:cpu_shares": "2048", "quota:cpu_period": "20000", "quota:cpu_quota": "10000",
        "quota:disk_read_bytes_sec": "10240000", "quota:disk_write_iops_sec": "100",
        "quota:vif_inbound_average": "1024", "quota:vif_inbound_peak": "2048",
        "quota:vif_outbound_average": "512"}}
    put("domain", "quota", json.dumps(quota) + "\0\0F 1\n")
    put("domain", "quota-exact", json.dumps(quota) + "\0\0F 3\nn guest\nu 11111111-2222-3333-4444-555555555555\n")
    # the flavor and image forms (tests/data/forms) and properties texts
    for f in sorted(glob.glob(os.path.join(TOP, "tests", "data", "forms", "*.json"))):
        name = os.path.basename(f)[:-5]
        data = rd("tests", "data", "forms", os.path.basename(f))
        put("forms", name, (b"i" if name.startswith("image") else b"f") + data)
        put("forms", "both-" + name, data)
    texts = {
        "rt": "hw:cpu_policy='dedicated', hw:cpu_realtime='yes', hw:cpu_realtime_mask='^0', "
              "hw:mem_page_size='1GB'",
        "escaped": "a='it\\'s', b='c\\\\d', c=''",
        "comma-in-value": "aggregate_instance_extra_specs:x='a, b', hw:numa_nodes='2'",
        "quote-in-value": "k='don't', l='x'",
        "spaces": "  hw:cpu_policy = 'dedicated' ,hw:numa_nodes='1'  ",
        "empty": "",
        "bad": "hw:cpu_policy=dedicated",
    }
    for name, text in texts.items():
        put("forms", "text-" + name, "t" + text)
        put("forms", "image-text-" + name, "T" + text.replace("hw:", "hw_"))

    # the [libvirt] settings of <cpu>, <features>, <clock> and the devices
    ded = {"vcpus": 2, "memory_mb": 1024, "extra_specs": {
        "hw:cpu_policy": "dedicated", "hw:pmu": "true", "quota:disk_read_iops_sec": "500"}}
    win = json.dumps({"properties": {"os_type": "windows", "hw_time_hpet": True,
                                     "hw_pmu": True}})
    settings = {
        "custom": "m custom\nM Haswell-noTSX, Skylake-Client\nx +PCID, -hle, ssbd\n"
                  "b 30\nd block=none, file=writethrough\nF 1\n",
        "qemu-none": "V qemu\nm none\nx pcid\nb 0\nd file=unsafe\nF 1\n",
        "lxc": "V lxc\nm none\nb 5\nF 1\n",
        "parallels-mode": "V parallels\nm host-model\nF 1\n",
        "aarch64": "a aarch64\nx -sve\nd file=default,network=writeback\nF 1\n",
        "bad-lists": "x +pcid,-pcid\nM ,\nd file=fast\nm custom\nM Haswell\nF 1\n",
        "fragments": "V qemu\nm host-passthrough\nx vmx\nb 7\n",
    }
    for name, text in settings.items():
        put("domain", "settings-" + name, json.dumps(ded) + "\0" + win + "\0" + text)
        put("domain", "settings-noimage-" + name, json.dumps(ded) + "\0\0" + text)
    for name, c in cases():
        inp = loads(c["input"][0]) if c.get("input") else None
        if not isinstance(inp, dict) or not isinstance(inp.get("flavor"), dict):
            continue
        img = json.dumps(inp["image"]) if isinstance(inp.get("image"), dict) else ""
        put("domain", "case-" + name,
            json.dumps(inp["flavor"]) + "\0" + img + "\0" + "s 0-1,8-9\nm host-passthrough\n")

    def head(data, n):
        return b"\n".join(data.split(b"\n")[:n]) + b"\n"

    fleet_jsonl = rd("examples", "fleet", "compute_nodes.jsonl")
    put("plan_load", "db-jsonl", b"dj" + head(fleet_jsonl, 3))
    put("plan_load", "db-sniff-jsonl", b"d-" + head(fleet_jsonl, 2))
    put("plan_load", "db-csv", b"dc" + head(rd("examples", "fleet", "compute_nodes.csv"), 3))
    put("plan_load", "db-tsv", b"dt" + head(rd("tests", "plan", "data", "nodes-batch.tsv"), 3))
    put("plan_load", "db-list", b"da" + rd("tests", "plan", "data", "nodes-list.json"))
    put("plan_load", "db-quoted-csv", b"d-" + rd("tests", "plan", "data", "nodes-quoted.csv"))
    inst = rd("examples", "fleet", "instances.jsonl")
    put("plan_load", "instances", b"i\0" + head(fleet_jsonl, 6) + b"\0" + head(inst, 4))
    put("plan_load", "flavors-list", b"fl" + rd("examples", "fleet", "flavors.json"))
    put("plan_load", "flavors-mix", b"fl" + rd("examples", "fleet", "mix5.json"))
    put("plan_load", "flavor-single", b"fs" + rd("examples", "fleet", "rt_flavor.json"))
    for n in ("four", "iso", "odd", "one"):
        put("plan_load", "flavor-" + n, b"fs" + rd("tests", "plan", "data", n + ".json"))

    for p in sorted(glob.glob(os.path.join(TOP, "tests", "data", "plan", "*.json"))):
        put("render", os.path.basename(p)[:-5], open(p, "rb").read())

    for name, c in cases():
        put("batch", name, "\n".join(c.get("input", [])) + "\n")

    seen = set()
    for name, c in cases():
        for line in c.get("input", []):
            doc = loads(line)
            fl = doc.get("flavor") if isinstance(doc, dict) else None
            specs = fl.get("extra_specs") if isinstance(fl, dict) else None
            key = json.dumps(specs, sort_keys=True)
            if specs and key not in seen:
                seen.add(key)
                put("extra_specs", name, json.dumps({"extra_specs": specs}))
    for i, (k, v) in enumerate([("hw:numa_cpus.0", "^0-1,3"), ("hw:mem_page_size", "1GiB"),
                                ("pci_passthrough:alias", "a:1, b c:2"),
                                ("hw:numa_nodes", " \u0661_0 "), ("trait1:CUSTOM_X", "required"),
                                ("capabilities:cpu_info:features", "x"),
                                ("hw:pmem", "ns_0,ns_1,"), ("quota:read_bytes_sec", "1")]):
        put("extra_specs", "key-%d" % i, k.encode() + b"\0" + v.encode())

    port = {"address": "0000:81:02.0", "requester_id": "p1", "vnic_type": "direct",
            "mac": "fa:16:3e:00:00:01", "vlan": 100}
    macvtap = {"address": "0000:81:02.2", "requester_id": "p3", "vnic_type": "macvtap",
               "mac": "fa:16:3e:00:00:03", "vlan": "0", "ifname": "enp129s2f2"}
    phys = {"address": "0000:81:00.0", "requester_id": "p2", "vnic_type": "direct-physical"}
    alias = {"address": "0000:3b:00.0", "vendor_id": "10de", "product_id": "1eb8",
             "request": 0, "alias_name": "t4", "requester_id": None}
    flavor = {"vcpus": 4, "extra_specs": {"quota:vif_inbound_average": "1000",
                                          "quota:vif_outbound_peak": "20",
                                          "hw:vif_multiqueue_enabled": "true"}}
    put("hostdev", "list", json.dumps([alias, port, phys]))
    put("hostdev", "claim", json.dumps({"devices": [alias, port, macvtap, phys],
                                        "unavailable": ["0000:81:00.1"]}))
    put("hostdev", "claim-instance", json.dumps({
        "devices": [macvtap, port], "flavor": flavor,
        "image": {"properties": {"hw_vif_model": "VirtualE1000",
                                 "hw_vif_multiqueue_enabled": True}},
        "virt_type": "kvm", "rx_queue_size": 512, "max_queues": 2}))
    vdpa = {"address": "0000:81:02.4", "requester_id": "p4", "vnic_type": "vdpa",
            "mac": "fa:16:3e:00:00:04", "dev_path": "/dev/vhost-vdpa-0", "vif_type": "ovs"}
    remote = {"address": "0000:81:02.5", "requester_id": "p5", "vnic_type": "remote-managed",
              "mac": "fa:16:3e:00:00:05"}
    offload = dict(port, vif_type="ovs", requester_id="p6")
    put("hostdev", "claim-ovs", json.dumps({"devices": [vdpa, remote, offload, port]}))
    fwd = {"address": "0000:81:02.6", "requester_id": "5d0a4f31-9c2e-4b7a-8e1f-0a9b8c7d6e5f",
           "vnic_type": "virtio-forwarder", "vif_type": "vhostuser",
           "mac": "fa:16:3e:00:00:07", "vhostuser_socket": "/var/run/vrt/sock1",
           "vhostuser_mode": "client"}
    put("hostdev", "claim-vhostuser", json.dumps({
        "devices": [fwd, dict(fwd, vhostuser_ovs_plug=False, devname="tap7", address="0000:81:02.7")],
        "flavor": flavor, "virt_type": "kvm", "rx_queue_size": 512, "tx_queue_size": 1024}))
    put("hostdev", "claim-qemu", json.dumps({
        "devices": [macvtap], "flavor": flavor, "image": {"properties": {}},
        "virt_type": "qemu", "rx_queue_size": 1024}))


if __name__ == "__main__":
    main()
