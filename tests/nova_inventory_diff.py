"""Differential test: libnumafit's numafit_inventory_new_from_host() (through
the Python binding, numafit.Inventory.from_host) against the inventory
Debian's nova 26.2.2 libvirt driver reports to placement
(LibvirtDriver.update_provider_tree) for VCPU, PCPU, MEMORY_MB and DISK_GB.

Random hosts (synthetic specs: 1 to 4 cells, cores, threads, memory) with
random CPU options (none, vcpu_pin_set, cpu_shared_set, cpu_dedicated_set,
both sets, vcpu_pin_set with cpu_shared_set), random nova.conf values of
reserved_host_cpus, reserved_host_memory_mb, reserved_host_disk_mb, the
three *_allocation_ratio options (unset, 0.0 or a value) and their
initial_* options (unset or a value), a random disk size, and a random
inventory placement already has (its allocation ratios). nova's driver
runs on the host's CPUs as its online CPUs and the sum of the cells'
memory as the host's memory (what libvirt reports is outside this test).
Where nova reports a class whose capacity int((total - reserved) x
allocation_ratio) is below 0 (placement refuses such an inventory), the
library must refuse it (InvalidInventoryCapacityReservedCanBeTotal). The Zed profile is compared with Debian's nova; the latest
profile must differ only in the initial ratios' defaults (4.0 and 1.0).

Exit 0 on success, 1 on failure, 77 when nova is not importable.
Last line: "N passed, N failed".
"""
import os
import random
import sys
import uuid
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

try:
    import nova.conf
    from nova.compute import provider_tree
    from nova.virt.libvirt import driver as libvirt_driver
except Exception as e:  # pragma: no cover - environment dependent
    print("nova not importable (%s): skip" % e)
    sys.exit(77)

import nova_request_diff as reqdiff  # noqa: E402

CONF = nova.conf.CONF
SEED = 20261203
CASES = 3000
CLASSES = ("VCPU", "PCPU", "MEMORY_MB", "DISK_GB")
FIELDS = ("total", "reserved", "min_unit", "max_unit", "step_size", "allocation_ratio")
INITIAL_LATEST = {"initial_cpu_allocation_ratio": 4.0, "initial_ram_allocation_ratio": 1.0,
                  "initial_disk_allocation_ratio": 1.0}


class Driver(libvirt_driver.LibvirtDriver):
    """The libvirt driver's update_provider_tree on a host given by its CPUs
    and memory; everything else it reports (devices, traits) left out."""

    def __init__(self, cpus, memory_mb, disk_gb):  # noqa: super().__init__ not wanted
        class _Host:
            def get_online_cpus(self):
                return set(cpus)

            def get_memory_mb_total(self):
                return memory_mb
        self._host = _Host()
        self._disk_gb = disk_gb
        self._vpmems_by_rc = {}

    def _get_local_gb_info(self):
        return {"total": self._disk_gb, "used": 0, "free": self._disk_gb}

    def _get_memory_encrypted_slots(self):
        return 0

    def _update_provider_tree_for_vgpu(self, *a, **k):
        pass

    def _update_provider_tree_for_pcpu(self, *a, **k):
        pass

    @property
    def static_traits(self):
        return {}


def cpu_spec(cpus):
    return ",".join(str(c) for c in sorted(cpus))


def gen(r):
    cells = r.choice([1, 1, 2, 2, 4])
    cores = r.choice([1, 2, 4, 6, 8])
    threads = r.choice([1, 2])
    mem_mb = r.choice([256, 1024, 4096, 65536])
    spec = "cells:%d cores:%d threads:%d mem:%dM" % (cells, cores, threads, mem_mb)
    n = cells * cores * threads
    cpus = list(range(n))
    mode = r.choice(["none", "pin", "shared", "dedicated", "both", "both", "pin+shared"])
    opts = {}
    r.shuffle(cpus)
    cut = r.randrange(1, n) if n > 1 else 1
    if mode == "pin":
        opts["vcpu_pin_set"] = cpu_spec(cpus[:cut])
    elif mode == "shared":
        opts["cpu_shared_set"] = cpu_spec(cpus[:cut])
    elif mode == "dedicated":
        opts["cpu_dedicated_set"] = cpu_spec(cpus[:cut])
    elif mode == "both" and n > 1:
        opts["cpu_shared_set"] = cpu_spec(cpus[:cut])
        opts["cpu_dedicated_set"] = cpu_spec(cpus[cut:])
    elif mode == "pin+shared":
        opts["vcpu_pin_set"] = cpu_spec(cpus[:cut])
        opts["cpu_shared_set"] = cpu_spec(cpus[cut // 2:])
    conf = {}
    for key, values in (("reserved_host_cpus", [0, 0, 1, 2, 4, 64]),
                        ("reserved_host_memory_mb", [0, 512, 2048, 300000]),
                        ("reserved_host_disk_mb", [0, 1, 1024, 1025, 10240])):
        if r.random() < 0.5:
            conf[key] = r.choice(values)
    for res in ("cpu", "ram", "disk"):
        if r.random() < 0.4:
            conf["%s_allocation_ratio" % res] = r.choice([0.0, 1.0, 1.5, 2.0, 16.0, 0.5])
        if r.random() < 0.3:
            conf["initial_%s_allocation_ratio" % res] = r.choice([0.0, 1.0, 3.0, 8.0])
    current = None
    if r.random() < 0.4:
        current = {}
        for rc in CLASSES:
            if r.random() < 0.6:
                current[rc] = {"total": 10, "reserved": 0, "min_unit": 1, "max_unit": 10,
                               "step_size": 1,
                               "allocation_ratio": r.choice([1.0, 2.5, 7.0, 0.25])}
    disk = r.choice([0, 0, 1, 100, 2000])
    return spec, opts, conf, current, disk


def nova_run(spec, opts, conf, current, disk, numafit):
    """update_provider_tree's inventory of the classes, or ('exc', name)."""
    with numafit.Host.synthetic(spec) as host:
        topo = host.to_dict()["nova_object.data"]["cells"]
    cpus, mem = set(), 0
    for c in topo:
        d = c["nova_object.data"]
        cpus |= set(d["cpuset"]) | set(d["pcpuset"])
        mem += d["memory"]
    for key in ("vcpu_pin_set",):
        CONF.set_override(key, opts.get(key))
    for key in ("cpu_shared_set", "cpu_dedicated_set"):
        CONF.set_override(key, opts.get(key), group="compute")
    for key, value in conf.items():
        CONF.set_override(key, value)
    try:
        tree = provider_tree.ProviderTree()
        tree.new_root("node", str(uuid.uuid4()))
        if current:
            tree.update_inventory("node", current)
        drv = Driver(cpus, mem, disk)
        # the driver keeps a deep copy of the tree at the end, which this
        # tree's lock cannot give outside a running nova-compute
        with mock.patch.object(libvirt_driver.copy, "deepcopy", lambda x: x):
            try:
                drv.update_provider_tree(tree, "node")
            except Exception as e:
                return ("exc", type(e).__name__)
        inv = tree.data("node").inventory
        return ("ok", {rc: {f: inv[rc][f] for f in FIELDS} for rc in CLASSES if rc in inv})
    finally:
        CONF.clear_override("vcpu_pin_set")
        CONF.clear_override("cpu_shared_set", group="compute")
        CONF.clear_override("cpu_dedicated_set", group="compute")
        for key in conf:
            CONF.clear_override(key)


def ours_run(numafit, spec, opts, conf, current, disk, profile):
    text = "[DEFAULT]\n" + "".join("%s = %s\n" % kv for kv in conf.items())
    cur = None
    try:
        with numafit.Host.synthetic(spec) as host:
            if opts:
                host.set_cpu_pools(opts)
            if current is not None:
                cur = numafit.Inventory.from_json({"inventories": current})
            with numafit.Inventory.from_host(host, text, disk, cur, profile) as inv:
                return ("ok", inv.to_dict()["inventories"])
    except numafit.errors.NumafitError as e:
        return ("exc", e.exception or type(e).__name__, e.where, e.text)
    finally:
        if cur is not None:
            cur.close()


def main():
    args, numafit = reqdiff.setup(CASES, SEED)
    CONF([], project="nova")

    r = random.Random(args.seed)
    passed = failed = 0
    outcomes = {}
    for _ in range(args.cases):
        case = gen(r)
        spec, opts, conf, current, disk = case
        nova = nova_run(*case, numafit)
        ours = ours_run(numafit, *case, "zed")
        ok = False
        if nova[0] == "ok":
            # placement refuses a capacity below 0 (a ratio of 0 makes it 0)
            over = [rc for rc, v in nova[1].items()
                    if int((v["total"] - v["reserved"]) * v["allocation_ratio"]) < 0]
            key = "over" if over else "ok"
            if over:
                ok = ours[0] == "exc" and ours[1] == "InvalidInventoryCapacityReservedCanBeTotal"
            else:
                ok = ours == nova
        else:
            key = nova[1]
            ok = ours[0] == "exc"
        outcomes[key] = outcomes.get(key, 0) + 1
        # the latest profile: the same but for the initial ratios' defaults
        latest_conf = dict(INITIAL_LATEST)
        latest_conf.update({k: v for k, v in conf.items() if k.startswith("initial_")})
        with_defaults = dict(conf)
        with_defaults.update(latest_conf)
        zed_same = ours_run(numafit, spec, opts, with_defaults, current, disk, "zed")
        latest = ours_run(numafit, spec, opts, conf, current, disk, "latest")
        if latest[:2] != zed_same[:2]:
            ok = False
            print("FAIL latest profile: %r\n  latest %r\n  zed with its defaults %r"
                  % (case, latest, zed_same))
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL %r\n  nova: %r\n  ours: %r" % (case, nova, ours))
    print("nova outcomes: %s" % ", ".join("%s=%d" % kv for kv in sorted(outcomes.items())))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
