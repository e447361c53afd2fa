#!/usr/bin/python3
"""Differential test of libnumafit's domain XML against REAL nova's libvirt driver.

    /usr/bin/python3 tests/nova_domain_diff.py --library PATH/libnumafit.so.0 \
        [--seed N] [--count N] [-v]

Exit 0 when numafit agrees with nova everywhere, 1 on failures, 77 when nova
(or the library's numafit_domain_xml) is not available. The last line is
"N passed, N failed".

For random hosts and flavors (the generators of nova_fit_diff.py), numafit
(through its Python binding, bindings/python/numafit) fits the flavor (profile zed: the installed nova is Debian's 26.2.2) and the
SAME placement, read back by nova as an InstanceNUMATopology
(numafit_placement_to_json(NOVA) -> obj_from_primitive), is rendered twice:

* numafit_domain_xml() (plus numafit_domain_disk_iotune_xml() and
  numafit_domain_interface_bandwidth_xml());
* nova's own LibvirtDriver methods on a driver object with a mocked host
  (x86_64, QEMU, the generated host topology, every CPU online unless the
  scenario says otherwise, a cgroup cpu controller unless it says otherwise)
  and CONF.set_override for [compute] cpu_shared_set, vcpu_pin_set,
  [libvirt] realtime_scheduler_priority and file_backed_memory:
  _get_guest_numa_config, _get_guest_memory_backing_config,
  _update_guest_cputune, hardware.get_best_cpu_topology as
  _get_guest_cpu_config uses it, imagebackend.Image.disk_qos with
  LibvirtConfigGuestDisk, designer.set_vif_bandwidth_config with
  LibvirtConfigGuestInterface; every config object's to_xml().

Both XMLs are parsed and compared semantically: cpusets as sets, numbers as
integers, vcpupin per vCPU, hugepages per node set, memoryBacking flags, the
CPU topology and NUMA cells (memory in KiB: nova writes no unit, numafit
unit='KiB'), <iotune> and <bandwidth>. When nova raises, numafit must fail
with the same exception class name.

Deliberate differences (counted, not failures):
* values nova writes but libvirt refuses (numafit: exception libvirtError,
  -ERANGE): cputune shares 1 or > 262144, period/quota outside libvirt's
  ranges, total with read/write iotune, an empty cpuset;
* quota:* values that nova's API validators refuse (ValidationError): nova's
  driver would crash with ValueError on int() for cpu_* or write them raw
  for disk/vif; the script checks nova's validator refuses them too;
* numafit writes canonical integers (nova copies the disk/vif strings).
"""
import argparse
import copy
import json
import logging
import os
import random
import sys
from unittest import mock
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

try:
    import nova.conf
    from nova import exception as nova_exc  # noqa: F401
    from nova import objects
    from nova.api.validation.extra_specs import validators as es_validators
    from nova.virt import hardware
    from nova.virt.libvirt import config as vconfig
    from nova.virt.libvirt import designer
    from nova.virt.libvirt import driver as libvirt_driver
    from nova.virt.libvirt import imagebackend
    import nova_fit_diff as nfd
except Exception as e:  # pragma: no cover - depends on the machine
    print("nova not importable (%s: %s): skip" % (type(e).__name__, e))
    print("0 passed, 0 failed")
    sys.exit(77)


CONF = nova.conf.CONF
logging.getLogger("nova").setLevel(logging.CRITICAL)
logging.getLogger("oslo").setLevel(logging.CRITICAL)



# --------------------------------------------------------------------------
# numafit side: the Python binding
# --------------------------------------------------------------------------
class DomLib:
    def __init__(self, path):
        self.nf = nfd.import_numafit(path)

    def conf(self, c):
        return self.nf.DomainConf(cpu_shared_set=c.get("cpu_shared_set"),
                                  vcpu_pin_set=c.get("vcpu_pin_set"),
                                  online_cpus=c.get("online"), realtime_priority=c["priority"],
                                  cpu_control=bool(c["cpu_control"]),
                                  file_backed_memory=c["file_backed"],
                                  virt_type=c["virt_type"], arch=c["arch"],
                                  cpu_mode=c["cpu_mode"], cpu_models=c["cpu_models"],
                                  cpu_model_extra_flags=c["cpu_flags"],
                                  mem_stats_period=c["mem_stats"],
                                  disk_cachemodes=c["cachemodes"])

    def domain_xml(self, host, req, p, flavor, image, conf, nova_exact=False):
        """(XML text, None) or (None, error dict)."""
        try:
            return self.nf.domain_xml(host, req, p, flavor, image, conf, full=True,
                                      nova_exact=nova_exact), None
        except self.nf.errors.NumafitError as e:
            return None, nfd.error_dict(e)

    def device_xml(self, flavor, disk, nova_exact=False):
        """(XML text, None) or (None, error dict)."""
        fn = self.nf.disk_iotune_xml if disk else self.nf.interface_bandwidth_xml
        try:
            return fn(flavor, nova_exact), None
        except self.nf.errors.NumafitError as e:
            return None, nfd.error_dict(e)


# --------------------------------------------------------------------------
# nova side
# --------------------------------------------------------------------------
class FakeHost:
    def __init__(self, online, cpu_control, arch="x86_64"):
        self.online = online
        self.cpu_control = cpu_control
        caps = vconfig.LibvirtConfigCaps()
        caps.host = vconfig.LibvirtConfigCapsHost()
        caps.host.cpu = vconfig.LibvirtConfigCPU()
        caps.host.cpu.arch = arch
        self.caps = caps

    def get_online_cpus(self):
        return set(self.online)

    def get_capabilities(self):
        return self.caps

    def has_min_version(self, *a, **kw):
        return True

    def is_cpu_control_policy_capable(self):
        return self.cpu_control


def nova_driver(host_topo, online, cpu_control, arch="x86_64"):
    drv = libvirt_driver.LibvirtDriver.__new__(libvirt_driver.LibvirtDriver)
    drv._host = FakeHost(online, cpu_control, arch)
    drv._get_host_numa_topology = lambda: host_topo
    drv._sev_enabled = lambda flavor, image_meta: False
    # the guest runs on the host's architecture (no emulation); the models
    # are the host's own spelling (libvirt's getCPUModelNames is not asked)
    drv._check_emulation_arch = lambda image_meta: arch
    drv._get_cpu_model_mapping = lambda model: model
    # what LibvirtDriver.__init__ makes of [libvirt] disk_cachemodes
    drv.disk_cachemodes = {}
    for item in CONF.libvirt.disk_cachemodes:
        kind, _, mode = item.partition("=")
        if mode in libvirt_driver.VALID_DISK_CACHEMODES:
            drv.disk_cachemodes[kind] = mode
    drv._disk_cachemode = "none"  # the instances' file system has O_DIRECT
    return drv


def set_conf(c):
    CONF.set_override("cpu_shared_set", c.get("cpu_shared_set"), group="compute")
    CONF.set_override("cpu_dedicated_set", None, group="compute")
    CONF.set_override("vcpu_pin_set", c.get("vcpu_pin_set"))
    CONF.set_override("realtime_scheduler_priority", c["priority"], group="libvirt")
    CONF.set_override("file_backed_memory", c["file_backed"], group="libvirt")
    CONF.set_override("virt_type", c["virt_type"], group="libvirt")
    CONF.set_override("cpu_mode", c["nova_cpu_mode"], group="libvirt")
    CONF.set_override("cpu_models", c["nova_cpu_models"], group="libvirt")
    CONF.set_override("cpu_model_extra_flags", c["nova_cpu_flags"], group="libvirt")
    CONF.set_override("mem_stats_period_seconds", c["nova_mem_stats"], group="libvirt")
    CONF.set_override("disk_cachemodes", c["nova_cachemodes"], group="libvirt")
    CONF.set_override("skip_cpu_compare_at_startup", True, group="workarounds")


def nova_render(host_topo, inst_topo, flavor_d, image_d, c):
    """Returns (xml text of a <root> with nova's elements, None) or (None, exc name)."""
    set_conf(c)
    online = set(range(nova_online_max(host_topo))) if c.get("online") is None else \
        hardware.parse_cpu_spec(c["online"])
    drv = nova_driver(host_topo, online, c["cpu_control"], c["arch"])
    # the disk sizes for get_flags_by_flavor_specs (cpu_mode custom)
    flavor = objects.Flavor(vcpus=flavor_d["vcpus"], memory_mb=flavor_d["memory_mb"],
                            root_gb=1, ephemeral_gb=0, swap=0, name="f", flavorid="f",
                            extra_specs=dict(flavor_d["extra_specs"]))
    # the instance's os_type: the image's text (compute API
    # _inherit_properties_from_image)
    os_type = image_d.get("properties", {}).get("os_type")
    root = ET.Element("root")
    try:
        drv._check_cpu_compatibility()  # at the service's start
        # a name and an id for the messages of get_pmu_constraint and _set_kvm_timers
        image_meta = objects.ImageMeta.from_dict(dict(copy.deepcopy(image_d), name="image",
                                                      id="2a7a5b80-0000-4000-8000-000000000001"))
        numa = drv._get_guest_numa_config(inst_topo, flavor, image_meta)
        memb = drv._get_guest_memory_backing_config(inst_topo, numa.numatune, flavor,
                                                    image_meta)
        guest = vconfig.LibvirtConfigGuest()
        guest.cputune = numa.cputune
        drv._update_guest_cputune(guest, flavor)
        cpu = drv._get_guest_cpu_config(flavor, image_meta, numa.numaconfig, inst_topo)
        drv._set_features(guest, os_type, image_meta, flavor)
        drv._set_clock(guest, os_type, image_meta)
        drv._guest_add_memory_balloon(guest)
        disk = vconfig.LibvirtConfigGuestDisk()
        disk.source_type = "file"
        disk.driver_cache = drv.disk_cachemode
        drv._set_cache_mode(disk)
    except Exception as e:
        if os.environ.get("NOVA_DIFF_TRACE"):
            import traceback
            traceback.print_exc()
        return None, type(e).__name__
    parts = []
    if memb is not None:
        parts.append(memb.to_xml())
    vcpu = ET.Element("vcpu")
    vcpu.text = str(flavor.vcpus)
    if numa.cpuset is not None:
        vcpu.set("cpuset", hardware.format_cpu_spec(numa.cpuset))
    parts.append(ET.tostring(vcpu).decode())
    if guest.cputune is not None:
        parts.append(guest.cputune.to_xml())
    if numa.numatune is not None:
        parts.append(numa.numatune.to_xml())
    if cpu is not None:
        parts.append(cpu.to_xml())
    feats = ET.Element("features")
    for f in guest.features:
        if isinstance(f, vconfig.LibvirtConfigGuestFeaturePMU):
            feats.append(ET.fromstring(f.to_xml()))
    if len(feats):
        parts.append(ET.tostring(feats).decode())
    parts.append(guest.clock.to_xml())
    devs = ET.Element("devices")
    for d in guest.devices:
        devs.append(ET.fromstring(d.to_xml()))
    parts.append(ET.tostring(devs).decode())
    for text in parts:
        root.append(ET.fromstring(text))
    return root, disk.driver_cache


def nova_online_max(host_topo):
    top = 0
    for cell in host_topo.cells:
        for cpu in cell.cpuset | cell.pcpuset:
            top = max(top, cpu + 1)
    return max(top, 1) + 64  # some offline-looking extra ids do not matter


def nova_iotune(flavor_d):
    from lxml import etree
    es = dict(flavor_d["extra_specs"])
    disk = vconfig.LibvirtConfigGuestDisk()
    imagebackend.Image.disk_qos(None, disk, es)
    dev = etree.Element("disk")
    disk._format_iotune(dev)
    it = dev.find("iotune")
    return None if it is None else ET.fromstring(etree.tostring(it))


def nova_bandwidth(flavor_d):
    flavor = objects.Flavor(vcpus=flavor_d["vcpus"], memory_mb=flavor_d["memory_mb"],
                            extra_specs=dict(flavor_d["extra_specs"]))
    conf = vconfig.LibvirtConfigGuestInterface()
    conf.net_type = "bridge"
    conf.source_dev = "br-int"
    conf.mac_addr = "fa:16:3e:00:00:01"
    conf.model = "virtio"
    designer.set_vif_bandwidth_config(conf, flavor)
    el = ET.fromstring(conf.to_xml())
    return el.find("bandwidth")


# --------------------------------------------------------------------------
# canonical forms
# --------------------------------------------------------------------------
def cpus(s):
    return sorted(hardware.parse_cpu_spec(s)) if s is not None else None


def canon(root):
    out = {}
    v = root.find("vcpu")
    out["vcpu"] = (int(v.text), cpus(v.get("cpuset"))) if v is not None else None
    ct = root.find("cputune")
    if ct is not None:
        d = {}
        for n in ("shares", "period", "quota"):
            e = ct.find(n)
            d[n] = int(e.text) if e is not None else None
        d["vcpupin"] = sorted((int(e.get("vcpu")), tuple(cpus(e.get("cpuset"))))
                              for e in ct.findall("vcpupin"))
        e = ct.find("emulatorpin")
        d["emulatorpin"] = cpus(e.get("cpuset")) if e is not None else None
        d["vcpusched"] = sorted((tuple(cpus(e.get("vcpus"))), e.get("scheduler"),
                                 int(e.get("priority"))) for e in ct.findall("vcpusched"))
        out["cputune"] = d
    else:
        out["cputune"] = None
    nt = root.find("numatune")
    if nt is not None:
        m = nt.find("memory")
        out["numatune"] = {
            "memory": (m.get("mode"), cpus(m.get("nodeset"))) if m is not None else None,
            "memnodes": sorted((int(e.get("cellid")), e.get("mode"), tuple(cpus(e.get("nodeset"))))
                               for e in nt.findall("memnode"))}
    else:
        out["numatune"] = None
    mb = root.find("memoryBacking")
    if mb is not None:
        d = {"pages": sorted((int(p.get("size")), p.get("unit"), tuple(cpus(p.get("nodeset"))))
                             for p in mb.findall("hugepages/page"))}
        for n in ("nosharepages", "locked", "discard"):
            d[n] = mb.find(n) is not None
        for n, a in (("source", "type"), ("access", "mode"), ("allocation", "mode")):
            e = mb.find(n)
            d[n] = e.get(a) if e is not None else None
        out["memoryBacking"] = d
    else:
        out["memoryBacking"] = None
    cpu = root.find("cpu")
    if cpu is not None:
        mode = cpu.get("mode")
        m = cpu.find("model")
        out["cpu-model"] = {
            "mode": mode, "model": m.text if m is not None else None,
            # libvirt's match matters with a model only (nova writes exact)
            "match": cpu.get("match") if mode == "custom" else None,
            "features": sorted((f.get("name"), f.get("policy")) for f in cpu.findall("feature"))}
    else:
        out["cpu-model"] = None
    f = root.find("features/pmu")
    out["pmu"] = f.get("state") if f is not None else None
    clk = root.find("clock")
    out["clock"] = (clk.get("offset"), [(t.get("name"), t.get("tickpolicy"), t.get("present"))
                                        for t in clk.findall("timer")]) if clk is not None else None
    b = root.findall("devices/memballoon")
    out["memballoon"] = [(e.get("model"), [s.get("period") for s in e.findall("stats")])
                         for e in b]
    if cpu is not None:
        t = cpu.find("topology")
        cells = []
        for c in cpu.findall("numa/cell"):
            unit = c.get("unit", "KiB")
            assert unit == "KiB", unit
            cells.append((int(c.get("id")), tuple(cpus(c.get("cpus"))), int(c.get("memory")),
                          c.get("memAccess")))
        out["cpu"] = {"topology": (int(t.get("sockets")), int(t.get("cores")),
                                   int(t.get("threads"))) if t is not None else None,
                      "numa": cells if cpu.find("numa") is not None else None}
    else:
        out["cpu"] = None
    return out


def canon_iotune(el):
    if el is None:
        return None
    return {c.tag: int(c.text) for c in el}


def canon_bandwidth(el):
    if el is None or len(el) == 0:
        return None
    return {c.tag: {k: int(v) for k, v in c.attrib.items()} for c in el}


# --------------------------------------------------------------------------
# scenarios
# --------------------------------------------------------------------------
QUOTA_GOOD = {
    # white space as int() reads it: Unicode spaces yes, '\x1c'..'\x1f' no
    "quota:cpu_shares": ["0", "2", "1024", "2048", "262144", " 512 ", "1_024", "\x1c512",
                         "\u00a0512\u3000", "\u2028512"],
    "quota:cpu_period": ["0", "1000", "100000", "1000000", "+5000"],
    "quota:cpu_quota": ["-1", "-5", "0", "1000", "50000", "17592186044415"],
    "quota:disk_read_bytes_sec": ["0", "1024000", "10485760"],
    "quota:disk_write_bytes_sec": ["1024000", "2048000"],
    "quota:disk_total_bytes_sec": ["5000000"],
    "quota:disk_read_iops_sec": ["100", "500"],
    "quota:disk_write_iops_sec": ["100", "250"],
    "quota:disk_total_iops_sec": ["1000"],
    "quota:vif_inbound_average": ["10240", "1", "0"],
    "quota:vif_inbound_peak": ["20480"],
    "quota:vif_inbound_burst": ["1024"],
    "quota:vif_outbound_average": ["10240", "5000000000"],
    "quota:vif_outbound_peak": ["20480", "0"],
    "quota:vif_outbound_burst": ["2048"],
}
QUOTA_BAD = ["abc", "-3", "1.5", "", "1__0", "0x10", "True"]
LIBVIRT_BAD = {"quota:cpu_shares": ["1", "262145", "5000000000"],
               "quota:cpu_period": ["999", "1000001"],
               "quota:cpu_quota": ["1", "999", "17592186044416"]}


def gen_quotas(rng):
    es = {}
    if rng.random() < 0.5:
        return es
    for key, vals in QUOTA_GOOD.items():
        if rng.random() < 0.3:
            es[key] = rng.choice(vals)
    r = rng.random()
    if r < 0.06:
        es[rng.choice(sorted(QUOTA_GOOD))] = rng.choice(QUOTA_BAD)
    elif r < 0.12:
        key = rng.choice(sorted(LIBVIRT_BAD))
        es[key] = rng.choice(LIBVIRT_BAD[key])
    return es


CPU_FLAGS = ["pcid", "+ssbd", "-hle", "-RTM", "+PDPE1GB", "vmx", "--mtrr", "+invtsc"]
CACHE_ENTRIES = ["file=directsync", "file=writeback", "file=none", "file=unsafe",
                 "file=writethrough", "file=default", "block=none", "network=writeback"]
CACHE_BAD = ["file=bogus", "file", "=none"]


def gen_cpu_conf(rng, c):
    """[libvirt] virt_type, cpu_mode, cpu_models, cpu_model_extra_flags,
    mem_stats_period_seconds, disk_cachemodes and the host's arch: c's
    numafit values (oslo list texts) and nova's (lists)."""
    c["virt_type"] = rng.choice(["kvm"] * 8 + ["qemu", "qemu", "lxc", "parallels"])
    c["arch"] = "aarch64" if rng.random() < 0.1 else "x86_64"
    mode = rng.choice([None] * 6 + ["host-model", "host-passthrough", "custom", "custom",
                                    "none"])
    models = []
    if mode == "custom" or rng.random() < 0.03:
        models = rng.sample(["Haswell-noTSX-IBRS", "Skylake-Client", "Cascadelake-Server",
                             "EPYC"], rng.choice([1, 1, 2]))
        if rng.random() < 0.05:
            models = []  # custom without a model: Invalid
    flags = rng.sample(CPU_FLAGS, rng.choice([0, 0, 0, 1, 2, 3]))
    mem = rng.choice([None, None, None, 10, 0, -1, 5, 3600])
    cache = rng.sample(CACHE_ENTRIES, rng.choice([0, 0, 1, 2, 3]))
    c["cache_bad"] = False
    if rng.random() < 0.04:
        cache.append(rng.choice(CACHE_BAD))
        c["cache_bad"] = True
    c["cpu_mode"] = c["nova_cpu_mode"] = mode
    c["cpu_models"], c["nova_cpu_models"] = ", ".join(models) or None, models
    c["cpu_flags"], c["nova_cpu_flags"] = ", ".join(flags) or None, flags
    c["mem_stats"], c["nova_mem_stats"] = mem, 10 if mem is None else mem
    c["cachemodes"], c["nova_cachemodes"] = ",".join(cache) or None, cache


def gen_guest_props(rng, flavor, image):
    """hw:pmu, hw_pmu, os_type and hw_time_hpet."""
    props = image.setdefault("properties", {})
    if rng.random() < 0.2:
        flavor["extra_specs"]["hw:pmu"] = rng.choice(["true", "false", "yes", "0", "True"])
    if rng.random() < 0.2:
        props["hw_pmu"] = rng.choice([True, False, "true", "false"])
    if rng.random() < 0.3:
        props["os_type"] = rng.choice(["linux", "windows", "windows", "Windows", "bsd"])
    if rng.random() < 0.2:
        props["hw_time_hpet"] = rng.choice([True, False, "yes"])


def gen_conf(rng, host_topo):
    shared = set()
    allc = set()
    for cell in host_topo.cells:
        shared |= cell.cpuset - cell.pcpuset
        allc |= cell.cpuset | cell.pcpuset
    c = {"cpu_shared_set": None, "vcpu_pin_set": None, "online": None,
         "priority": rng.choice([1, 1, 1, 50, 99]), "cpu_control": rng.random() > 0.05,
         "file_backed": 1024 if rng.random() < 0.04 else 0}
    r = rng.random()
    if shared and r < 0.6:
        c["cpu_shared_set"] = nfd.cpu_spec(shared)
    elif allc and r < 0.75:
        c["cpu_shared_set"] = nfd.cpu_spec(rng.sample(sorted(allc),
                                                      rng.randint(1, len(allc))))
    elif allc and r < 0.8:
        c["vcpu_pin_set"] = nfd.cpu_spec(allc)
    if allc and rng.random() < 0.05:
        c["online"] = nfd.cpu_spec(rng.sample(sorted(allc), rng.randint(1, len(allc))))
    gen_cpu_conf(rng, c)
    return c


def validator_refuses(es):
    for k, v in es.items():
        if not k.startswith("quota:"):
            continue
        try:
            es_validators.validate(k, v)
        except Exception as e:
            if type(e).__name__ == "ValidationError":
                return True
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--library", default=None)
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--count", type=int, default=1500)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    D = DomLib(args.library)
    nf = D.nf
    rng = random.Random(args.seed)
    passed = failed = 0
    stats = {"fit": 0, "no-numa": 0, "nofit": 0, "nova-exc-agree": 0, "libvirtError": 0,
             "ValidationError": 0, "skipped-request": 0, "cachemode-refused": 0}
    features = {}
    kinds = ["normal", "normal", "small", "big", "cache"]

    def fail(i, what, **kw):
        nonlocal failed
        failed += 1
        if failed <= 20 or args.verbose:
            print("FAIL #%d %s" % (i, what))
            for k, v in kw.items():
                print("   %s: %s" % (k, json.dumps(v, default=str, sort_keys=True)[:3000]))

    for i in range(args.count):
        kind = rng.choice(kinds)
        flavor, image = nfd.gen_flavor(rng, kind)
        guest_cells = int(flavor["extra_specs"].get("hw:numa_nodes", 1))
        host_topo = nfd.gen_host(rng, kind, guest_cells)
        flavor["extra_specs"].update(gen_quotas(rng))
        if rng.random() < 0.15:
            flavor["extra_specs"]["hw:cpu_sockets"] = str(rng.choice([1, 2]))
        c = gen_conf(rng, host_topo)
        gen_guest_props(rng, flavor, image)
        hjson = nfd.host_json(host_topo)
        h = nf.Host.from_json(hjson)
        req = p = conf = None
        try:
            try:
                req = nf.Request.from_json(flavor, image, "zed")
            except nf.errors.NumafitError:
                stats["skipped-request"] += 1
                continue
            inst_topo = None
            if req.has_numa:
                try:
                    p = nf.fit(h, req, profile="zed")
                except nf.errors.NumafitError:
                    p = None  # an error counts as no fit, as before
                if p is None:
                    stats["nofit"] += 1
                    continue
                stats["fit"] += 1
                prim = p.to_nova_dict()
                inst_topo = objects.InstanceNUMATopology.obj_from_primitive(prim)
            else:
                stats["no-numa"] += 1
            try:
                conf = D.conf(c)
            except nf.errors.NumafitError as e:
                # an entry nova ignores with a warning: numafit refuses it
                if c["cache_bad"] and e.exception == "ConfigFileValueError":
                    stats["cachemode-refused"] += 1
                    passed += 1
                else:
                    fail(i, "DomainConf refused", err=nfd.error_dict(e), conf=c)
                continue
            nroot, nexc = nova_render(host_topo, inst_topo, flavor, image, c)
            ncache = None
            if nroot is not None:
                ncache, nexc = nexc, None
            mxml, merr = D.domain_xml(h, req, p, flavor, image, conf)
            es = flavor["extra_specs"]
            if merr and merr["exception"] == "ValidationError":
                if validator_refuses(es):
                    stats["ValidationError"] += 1
                    passed += 1
                else:
                    fail(i, "numafit ValidationError but nova's validators accept",
                         err=merr, specs=es)
                continue
            if merr and merr["exception"] == "libvirtError" and nexc is None:
                # nova writes it: with NOVA_EXACT numafit must write the same
                stats["libvirtError"] += 1
                mxml, merr = D.domain_xml(h, req, p, flavor, image, conf, nova_exact=True)
                if merr and merr["exception"] == "ValidationError" and validator_refuses(es):
                    stats["ValidationError"] += 1  # a quota:vif_* of the --domain interface
                    passed += 1
                    continue
            if nexc is not None:
                if merr and merr["exception"] == nexc:
                    stats["nova-exc-agree"] += 1
                    passed += 1
                elif nexc == "ValueError" and validator_refuses(es):
                    stats["ValidationError"] += 1
                    passed += 1
                else:
                    fail(i, "nova raised %s" % nexc, numafit=merr or mxml, specs=es, conf=c,
                         image=image)
                continue
            if merr:
                fail(i, "numafit failed, nova did not", err=merr, specs=es, conf=c,
                     nova=ET.tostring(nroot).decode())
                continue
            mroot = ET.fromstring(mxml)
            a, b = canon(nroot), canon(mroot)
            ok = a == b
            mdisk = mroot.find("devices/disk/driver")
            if mdisk is not None and mdisk.get("cache") != ncache:
                ok = False
                a["disk-cache"], b["disk-cache"] = ncache, mdisk.get("cache")
            # devices
            dxml, derr = D.device_xml(flavor, True)
            if derr and derr["exception"] == "libvirtError":
                stats["libvirtError"] += 1
                dxml, derr = D.device_xml(flavor, True, nova_exact=True)
            bxml, berr = D.device_xml(flavor, False)
            if derr or berr:
                e2 = derr or berr
                if e2["exception"] == "ValidationError" and validator_refuses(es):
                    stats["ValidationError"] += 1
                    passed += 1
                else:
                    fail(i, "device xml failed", disk=derr, bw=berr, specs=es)
                continue
            m_io = canon_iotune(ET.fromstring(dxml)) if dxml else None
            m_bw = canon_bandwidth(ET.fromstring(bxml)) if bxml else None
            n_io, n_bw = canon_iotune(nova_iotune(flavor)), canon_bandwidth(nova_bandwidth(flavor))
            if not ok or n_io != m_io or n_bw != m_bw:
                diff = {k: (a[k], b[k]) for k in a if a[k] != b.get(k)}
                fail(i, "XML differs", diff=diff, iotune=(n_io, m_io), bandwidth=(n_bw, m_bw),
                     specs=es, conf=c, placement=p.to_json() if p else None,
                     numafit=mxml)
                continue
            for feat, present in (
                    ("vcpu-cpuset", b["vcpu"] and b["vcpu"][1] is not None),
                    ("vcpupin", b["cputune"] and b["cputune"]["vcpupin"]),
                    ("vcpusched", b["cputune"] and b["cputune"]["vcpusched"]),
                    ("cpu-quotas", b["cputune"] and any(b["cputune"][k] is not None
                                                        for k in ("shares", "period", "quota"))),
                    ("hugepages", b["memoryBacking"] and b["memoryBacking"]["pages"]),
                    ("locked", b["memoryBacking"] and b["memoryBacking"]["locked"]),
                    ("file-backed", b["memoryBacking"] and b["memoryBacking"]["source"]),
                    ("memAccess", b["cpu"] and b["cpu"]["numa"] and any(x[3] for x in b["cpu"]["numa"])),
                    ("multi-cell", b["cpu"] and b["cpu"]["numa"] and len(b["cpu"]["numa"]) > 1),
                    ("emulator-isolate", es.get("hw:emulator_threads_policy") == "isolate"),
                    ("emulator-share", es.get("hw:emulator_threads_policy") == "share"),
                    ("mixed", es.get("hw:cpu_policy") == "mixed"),
                    ("iotune", m_io), ("bandwidth", m_bw),
                    ("cpu-mode-default", c["cpu_mode"] is None and b["cpu-model"]),
                    ("cpu-mode-aarch64", c["arch"] == "aarch64" and b["cpu-model"]),
                    ("cpu-custom", b["cpu-model"] and b["cpu-model"]["model"]),
                    ("cpu-features", b["cpu-model"] and b["cpu-model"]["features"]),
                    ("no-cpu", b["cpu-model"] is None),
                    ("pmu", b["pmu"]), ("clock-timers", b["clock"] and b["clock"][1]),
                    ("clock-localtime", b["clock"] and b["clock"][0] == "localtime"),
                    ("hpet-yes", b["clock"] and ("hpet", None, "yes") in b["clock"][1]),
                    ("memballoon", b["memballoon"]), ("no-memballoon", not b["memballoon"]),
                    ("disk-cache", mdisk is not None and mdisk.get("cache") != "none")):
                if present:
                    features[feat] = features.get(feat, 0) + 1
            passed += 1
        finally:
            for obj in (conf, p, req, h):
                if obj is not None:
                    obj.close()
    print("scenarios: %s" % json.dumps(stats, sort_keys=True))
    print("compared XML with: %s" % json.dumps(features, sort_keys=True))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
