"""The numafit Python binding: API, ownership, errors, golden cases."""
import copy
import ctypes
import errno
import glob
import json
import os
import pickle
import unittest

import numafit
from numafit import _ffi, errors

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))  # from bindings/python/tests
CASES = os.path.join(TOP, "tests", "cases")
SYN = "cells:2 cores:4 threads:2 mem:16G pages:2M=1024"
INPUT_MAX = 16 << 20  # NUMAFIT_INPUT_MAX (include/numafit/host.h)
CPU_MAX = 16383  # NUMAFIT_CPU_MAX (include/numafit/cpuset.h)
DEDICATED = {"hw:cpu_policy": "dedicated"}


class Loading(unittest.TestCase):
    def test_version(self):
        self.assertEqual(numafit.library_version_hex >> 16, _ffi.MAJOR)
        self.assertRegex(numafit.library_version, r"^\d+\.\d+\.\d+")

    def test_every_function_declared(self):
        # every exported numafit_* function this binding knows has argtypes
        for name, obj in vars(_ffi).items():
            if isinstance(obj, ctypes._CFuncPtr):
                self.assertIsNotNone(obj.argtypes, name)

    def test_distinct_handle_types(self):
        h = numafit.Host.synthetic(SYN)
        r = numafit.Request.from_flavor(2, 1024, DEDICATED)
        with self.assertRaises(ctypes.ArgumentError):
            _ffi.host_get_cell_count(r.handle)
        with self.assertRaises(ctypes.ArgumentError):
            _ffi.request_get_vcpus(h.handle)


class HostTests(unittest.TestCase):
    def test_synthetic_json_roundtrip(self):
        with numafit.Host.synthetic(SYN) as h:
            self.assertEqual(len(h), 2)
            self.assertEqual(h.cell_ids, [0, 1])
            d = h.to_dict()
            self.assertEqual(d["nova_object.name"], "NUMATopology")
            h2 = numafit.Host.from_json(d)
            self.assertEqual(h, h2)
            h3 = numafit.Host.from_json(h.to_json(as_string=True))
            self.assertEqual(h, h3)
            self.assertGreater(h.model_size, 0)
        self.assertRaises(ValueError, lambda: h.to_json())  # closed

    def test_copy_pickle_claim_release(self):
        h = numafit.Host.synthetic(SYN)
        r = numafit.Request.from_flavor(4, 2048, dict(DEDICATED, **{"hw:mem_page_size": "2MB"}))
        p = numafit.fit(h, r)
        self.assertIsNotNone(p)
        h2 = copy.copy(h)
        h2.claim(p)
        self.assertNotEqual(h, h2)
        h3 = pickle.loads(pickle.dumps(h2))
        self.assertEqual(h2, h3)
        h3.release(p)
        self.assertEqual(h, h3)
        cell = [c for c in h2.to_dict()["nova_object.data"]["cells"]
                if c["nova_object.data"]["id"] == p.cells[0]["id"]][0]["nova_object.data"]
        self.assertEqual(sorted(cell["pinned_cpus"]), sorted(p.pinning.values()))

    def test_claim_conflict(self):
        h = numafit.Host.synthetic(SYN)
        p = numafit.fit(h, numafit.Request.from_flavor(2, 512, DEDICATED))
        h.claim(p)
        before = h.to_json()
        with self.assertRaises(errors.CPUPinningInvalid) as cm:
            h.claim(p)
        self.assertIsInstance(cm.exception, errors.NumafitError)
        self.assertEqual(h.to_json(), before)  # unchanged

    def test_from_file_and_errors(self):
        with self.assertRaises(FileNotFoundError):
            numafit.Host.from_file("/nonexistent/host.json")
        with self.assertRaises(errors.ParseError) as cm:
            numafit.Host.from_json("{not json")
        self.assertIsInstance(cm.exception, ValueError)
        self.assertEqual(cm.exception.errno, errno.EBADMSG)
        with self.assertRaises(ValueError) as cm:
            numafit.Host.from_json({"cells": "nope"})
        self.assertTrue(cm.exception.text)
        with self.assertRaises(ValueError):
            numafit.Host.synthetic("cells:banana")

    def test_from_sysfs_missing(self):
        # an empty tree: a host with 0 cells, or a FileNotFoundError
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            try:
                h = numafit.Host.from_sysfs(d, any_arch=True)
            except (FileNotFoundError, ValueError):
                return
            self.assertEqual(len(h), 0)

    def test_from_libvirt_test_driver(self):
        try:
            h = numafit.Host.from_libvirt("test:///default", all_online=True)
        except errors.NotSupported:
            self.skipTest("libnumafit built without libvirt")
        self.assertEqual(len(h), 2)  # libvirt's test driver: 2 cells

    def test_from_caps_xml(self):
        xml = """<capabilities><host><cpu><arch>x86_64</arch></cpu><topology><cells num='1'>
<cell id='0'><memory unit='KiB'>4194304</memory>
<pages unit='KiB' size='4'>1048576</pages><pages unit='KiB' size='2048'>0</pages>
<cpus num='2'><cpu id='0' socket_id='0' core_id='0' siblings='0'/>
<cpu id='1' socket_id='0' core_id='1' siblings='1'/></cpus></cell>
</cells></topology></host></capabilities>"""
        h = numafit.Host.from_caps_xml(xml, conf={"cpu_dedicated_set": "1",
                                                  "cpu_shared_set": "0"})
        c = h.to_dict()["nova_object.data"]["cells"][0]["nova_object.data"]
        self.assertEqual(c["pcpuset"], [1])
        self.assertEqual(c["cpuset"], [0])
        with self.assertRaises(errors.InvalidConfiguration):
            numafit.Host.from_caps_xml(xml, conf={"cpu_dedicated_set": "0-1",
                                                  "cpu_shared_set": "1"})


class RequestTests(unittest.TestCase):
    def test_request(self):
        r = numafit.Request.from_flavor(4, 4096, {"hw:numa_nodes": "2",
                                                  "hw:cpu_policy": "dedicated",
                                                  "hw:cpu_thread_policy": "isolate"})
        self.assertTrue(r.has_numa)
        self.assertEqual((len(r), r.vcpus, r.cpu_policy, r.thread_policy),
                         (2, 4, "dedicated", "isolate"))
        self.assertEqual(r.to_dict()["nova_object.name"], "InstanceNUMATopology")
        r2 = pickle.loads(pickle.dumps(r))
        self.assertEqual(r2.to_dict()["nova_object.data"]["cells"],
                         r.to_dict()["nova_object.data"]["cells"])
        self.assertFalse(numafit.Request.from_flavor(2, 512).has_numa)

    def test_nova_exceptions(self):
        with self.assertRaises(errors.ImageNUMATopologyAsymmetric) as cm:
            numafit.Request.from_flavor(3, 1024, {"hw:numa_nodes": "2"})
        e = cm.exception
        self.assertIsInstance(e, errors.NumafitError)
        self.assertIsInstance(e, ValueError)
        self.assertEqual(e.exception, "ImageNUMATopologyAsymmetric")
        self.assertEqual(e.errno, errno.EINVAL)
        self.assertTrue(e.code_name)
        e2 = pickle.loads(pickle.dumps(e))
        self.assertIs(type(e2), type(e))
        with self.assertRaises(errors.InvalidCPUAllocationPolicy):
            numafit.Request.from_flavor(2, 512, {"hw:cpu_policy": "bogus"})
        with self.assertRaises(errors.ImageNUMATopologyForbidden):
            numafit.Request.from_flavor(2, 512, {"hw:numa_nodes": "1"},
                                        {"hw_numa_nodes": 2})
        with self.assertRaises(ValueError):
            numafit.Request.from_flavor(2, 512, profile="havana")

    def test_resources_from_flavor(self):
        rt = {"vcpus": 4, "memory_mb": 4096, "root_gb": 20, "swap": 1025,
              "extra_specs": {"hw:cpu_policy": "dedicated", "hw:cpu_realtime": "yes",
                              "hw:cpu_realtime_mask": "^0-1", "hw:mem_page_size": "1GB",
                              "hw:emulator_threads_policy": "isolate"}}
        r = numafit.resources_from_flavor(rt)
        self.assertIsInstance(r, numafit.Resources)
        self.assertEqual(r, {"PCPU": 5, "MEMORY_MB": 4096, "DISK_GB": 22})
        self.assertTrue(r.legacy_fallback)
        r = numafit.resources_from_flavor(json.dumps(rt), None, "zed", boot_from_volume=True,
                                          legacy=True)
        self.assertEqual(r, {"VCPU": 4, "MEMORY_MB": 4096, "DISK_GB": 2})
        self.assertFalse(r.legacy_fallback)
        shared = numafit.resources_from_flavor({"vcpus": 2, "memory_mb": 512},
                                               {"properties": {}})
        self.assertEqual(shared, {"VCPU": 2, "MEMORY_MB": 512})
        self.assertFalse(shared.legacy_fallback)
        with self.assertRaises(errors.InvalidRequest):
            numafit.resources_from_flavor({"vcpus": 2, "memory_mb": 512, "extra_specs": {
                "hw:cpu_policy": "dedicated", "resources:PCPU": "2"}})
        with self.assertRaises(errors.RangeError) as cm:
            numafit.resources_from_flavor({"vcpus": 2, "memory_mb": 512, "extra_specs": {
                "resources:DISK_GB": str(2 ** 31)}})
        self.assertEqual(cm.exception.where, "DISK_GB")
        with self.assertRaises(ValueError):
            numafit.resources_from_flavor({"vcpus": 2, "memory_mb": 512}, profile="havana")

    def test_unknown_exception_name_class(self):
        cls = errors.exception_class("SomeFutureNovaError", errno.EINVAL)
        self.assertTrue(issubclass(cls, errors.NumafitError))
        self.assertTrue(issubclass(cls, ValueError))
        e = errors.from_rc(-errno.ENOMEM, None)
        self.assertIsInstance(e, MemoryError)
        e = errors.from_rc(-errno.ENOENT, {"exception": "", "text": "x"})
        self.assertIsInstance(e, FileNotFoundError)
        e = errors.from_rc(-errno.EINVAL, {"exception": "ValueError", "text": "x"})
        self.assertIs(type(e), errors.InvalidArgument)


class InventoryTests(unittest.TestCase):
    def test_two_steps(self):
        host = numafit.Host.synthetic(
            "cells:2 cores:8 threads:2 mem:64G dedicated:4-15,20-31 shared:0-3,16-19")
        inv = numafit.Inventory.from_host(host, "[DEFAULT]\nreserved_host_cpus = 1\n",
                                          disk_gb=100, profile="zed")
        self.assertEqual(inv["VCPU"], {"total": 8, "reserved": 1, "min_unit": 1, "max_unit": 8,
                                       "step_size": 1, "allocation_ratio": 16.0})
        self.assertEqual(inv["PCPU"]["total"], 24)
        rt = numafit.resources_from_flavor({"vcpus": 10, "memory_mb": 4096, "root_gb": 10,
                                            "extra_specs": {"hw:cpu_policy": "dedicated"}})
        self.assertEqual(inv.check(rt), (True, None))
        inv.claim(rt)
        inv.claim(rt)
        self.assertEqual((inv.used("PCPU"), inv.used("DISK_GB")), (20, 20))
        ok, why = inv.check(rt)
        self.assertFalse(ok)
        self.assertEqual(why[0], "PCPU")
        before = copy.copy(inv)
        with self.assertRaises(errors.NoSpace):
            inv.claim(rt)
        self.assertEqual(inv, before)  # all or nothing
        inv.release(rt)
        self.assertEqual(inv.used("PCPU"), 10)
        again = numafit.Inventory.from_json(inv.to_dict())
        self.assertEqual(again, inv)
        del again["DISK_GB"]
        self.assertNotEqual(again, inv)
        with self.assertRaises(KeyError):
            again["DISK_GB"]
        again["DISK_GB"] = {"total": 50, "max_unit": 50}
        self.assertEqual(again["DISK_GB"]["step_size"], 1)
        with self.assertRaises(errors.InvalidArgument):
            again["VCPU"] = {"total": 4, "reserved": 5}
        with self.assertRaises(ValueError):
            inv.check({"VGPU": 1})
        with self.assertRaises(errors.InvalidArgument) as cm:
            numafit.Inventory.from_host(host, "[DEFAULT]\nreserved_host_cpus = 9\n")
        self.assertEqual(cm.exception.where, "reserved_host_cpus")
        for o in (inv, again, before, host):
            o.close()

    def test_node_fit_and_claim(self):
        host = numafit.Host.synthetic(
            "cells:2 cores:4 threads:2 mem:8G dedicated:2-7,10-15 shared:0-1,8-9")
        inv = numafit.Inventory.from_host(host, "[DEFAULT]\nreserved_host_memory_mb = 4096\n")
        flavor = {"vcpus": 2, "memory_mb": 4096, "extra_specs": {"hw:cpu_policy": "dedicated"}}
        req = numafit.Request.from_json(flavor)
        res = numafit.resources_from_flavor(flavor)
        small = {"vcpus": 1, "memory_mb": 1024}
        r = numafit.node_fit(host, inv, numafit.Request.from_json(small),
                             numafit.resources_from_flavor(small), claim=True)
        self.assertEqual((r.code, r.placement), (0, None))
        placed = 0
        while True:
            r = numafit.node_fit(host, inv, req, res, claim=True)
            if r.code:
                break
            self.assertIsNotNone(r.placement)
            placed += 1
        self.assertEqual(placed, 2)
        self.assertEqual(r.code_name, "NOFIT_INVENTORY")
        self.assertIn("MEMORY_MB", r.text)
        self.assertEqual(inv.used("PCPU"), 4)
        r = numafit.node_fit(host, inv, req, {})
        self.assertEqual(r.code, 0)
        numafit.node_claim(host, inv, r.placement, {})
        with self.assertRaises(errors.PinningConflict):
            numafit.node_claim(host, inv, r.placement, {})
        numafit.node_release(host, inv, r.placement, {})
        with self.assertRaises(errors.NoSpace):
            numafit.node_claim(host, inv, None, res)
        self.assertEqual(inv.used("MEMORY_MB"), 9216)
        # isolate forbids SMT, which this host has: refused by the trait
        self.assertEqual(inv.traits, ["HW_CPU_HYPERTHREADING"])
        iso = dict(flavor, extra_specs={"hw:cpu_policy": "dedicated",
                                        "hw:cpu_thread_policy": "isolate"})
        res_iso = numafit.resources_from_flavor(iso)
        self.assertTrue(res_iso.smt_forbidden)
        r = numafit.node_fit(host, inv, numafit.Request.from_json(iso), res_iso)
        self.assertEqual((r.code_name, inv.check(res_iso)[1][0]),
                         ("NOFIT_INVENTORY", "HW_CPU_HYPERTHREADING"))
        inv.traits = []
        self.assertEqual(inv.check(res_iso)[1][0], "MEMORY_MB")
        with self.assertRaises(ValueError):
            inv.traits = ["CUSTOM_X"]


class FitTests(unittest.TestCase):
    def setUp(self):
        self.host = numafit.Host.synthetic(SYN)

    def test_fit_and_reason(self):
        r = numafit.Request.from_flavor(64, 1024, DEDICATED)
        self.assertIsNone(numafit.fit(self.host, r))
        res = numafit.try_fit(self.host, r)
        self.assertIsNone(res.placement)
        self.assertEqual(res.code_name, "NOFIT_CPU")
        self.assertTrue(res.text)
        why = numafit.explain(self.host, r)
        self.assertFalse(why["fits"])
        self.assertEqual(len(why["cells"]), 2)

    def test_placement(self):
        r = numafit.Request.from_flavor(4, 2048, dict(DEDICATED, **{"hw:numa_nodes": "2"}))
        p = numafit.fit(self.host, r, limits={"cpu_allocation_ratio": 1.0,
                                              "ram_allocation_ratio": 1.0})
        self.assertEqual(sorted(p.host_cells), [0, 1])
        self.assertEqual(sorted(p.pinning), [0, 1, 2, 3])
        self.assertEqual(p.page_sizes, [None, None])
        nd = p.to_nova_dict()
        self.assertEqual(nd["nova_object.name"], "InstanceNUMATopology")
        p2 = numafit.Placement.from_json(nd)
        self.assertEqual(p2.cells, p.cells)
        self.assertEqual(pickle.loads(pickle.dumps(p)).cells, p.cells)
        xml = p.to_libvirt_xml(self.host, r)
        self.assertIn("<vcpupin", xml)
        self.assertIn("<numatune>", xml)
        full = p.to_libvirt_xml(self.host, r, full=True, conf={"name": "vm1"})
        self.assertIn("<name>vm1</name>", full)

    def test_nova_conf_misplaced_ratios_cpu_sets(self):
        # seed 000's mistake: vcpu_pin_set under [libvirt] is not read by nova
        text = ("[DEFAULT]\ncpu_allocation_ratio = 2.0\n"
                "[libvirt]\nvcpu_pin_set = 4-11\n[compute]\ncpu_shared_set = 0-3\n")
        self.assertEqual(numafit.nova_conf_misplaced(text),
                         [{"line": 4, "section": "libvirt", "option": "vcpu_pin_set",
                           "group": "DEFAULT"}])
        self.assertEqual(numafit.nova_conf_misplaced("[DEFAULT]\nvcpu_pin_set = 1\n"), [])
        self.assertEqual(numafit.allocation_ratios(text), (2.0, 1.0, 1.0))
        self.assertEqual(numafit.allocation_ratios(None, profile="zed"), (16.0, 1.5, 1.0))
        self.assertTrue(numafit.HostConf.from_nova_conf(text).has_cpu_sets())
        self.assertFalse(numafit.HostConf.from_nova_conf("[pci]\n").has_cpu_sets())

    def test_domain_conf_from_nova_conf(self):
        specs = dict(DEDICATED, **{"hw:cpu_realtime": "yes", "hw:cpu_realtime_mask": "^0",
                                   "hw:emulator_threads_policy": "share"})
        r = numafit.Request.from_flavor(4, 2048, specs)
        p = numafit.fit(self.host, r)
        text = ("[compute]\ncpu_shared_set = 0,8\n[libvirt]\nvirt_type = qemu\n"
                "realtime_scheduler_priority = 40\ncpu_mode = host-passthrough\n")
        conf = numafit.DomainConf.from_nova_conf(text, name="vm2")
        xml = p.to_libvirt_xml(self.host, r, conf=conf, full=True)
        self.assertIn("<domain type='qemu'>\n  <name>vm2</name>", xml)
        self.assertIn("<emulatorpin cpuset='0,8'/>", xml)
        self.assertIn("priority='40'/>", xml)
        self.assertIn("<cpu mode='host-passthrough'>", xml)
        # keywords win over the file
        conf = numafit.DomainConf.from_nova_conf(text.encode(), realtime_priority=9)
        self.assertIn("priority='9'/>", p.to_libvirt_xml(self.host, r, conf=conf))
        with self.assertRaises(errors.ConfigFileValueError) as cm:
            numafit.DomainConf.from_nova_conf("[libvirt]\nvirt_type = xen\n")
        self.assertIsInstance(cm.exception, ValueError)
        self.assertEqual(cm.exception.where, "virt_type")
        with self.assertRaisesRegex(errors.ParseError, "line 2"):
            numafit.DomainConf.from_nova_conf("[libvirt]\nnot an option\n")
        with self.assertRaises(errors.RangeError):
            numafit.DomainConf.from_nova_conf("[libvirt]\nrealtime_scheduler_priority = 0\n")

    def test_device_xml(self):
        es = {"quota:disk_read_bytes_sec": "1000", "quota:vif_inbound_average": "100",
              "quota:vif_inbound_peak": "200"}
        fl = {"vcpus": 2, "memory_mb": 1024, "extra_specs": es}
        self.assertEqual(numafit.disk_iotune_xml(fl),
                         "<iotune>\n  <read_bytes_sec>1000</read_bytes_sec>\n</iotune>\n")
        self.assertEqual(numafit.interface_bandwidth_xml(json.dumps(fl)),
                         "<bandwidth>\n  <inbound average='100' peak='200'/>\n</bandwidth>\n")
        fl["extra_specs"] = {}
        self.assertEqual(numafit.disk_iotune_xml(fl), "")
        self.assertEqual(numafit.interface_bandwidth_xml(fl), "")
        fl["extra_specs"] = {"quota:disk_read_bytes_sec": "x"}
        with self.assertRaises(errors.ValidationError):
            numafit.disk_iotune_xml(fl)
        # total with read: nova writes it, libvirt refuses it
        fl["extra_specs"] = {"quota:disk_total_bytes_sec": "5", "quota:disk_read_bytes_sec": "3"}
        with self.assertRaises(errors.libvirtError):
            numafit.disk_iotune_xml(fl)
        self.assertIn("<total_bytes_sec>5</total_bytes_sec>",
                      numafit.disk_iotune_xml(fl, nova_exact=True))
        with self.assertRaises(ValueError):
            numafit.disk_iotune_xml('{"vcpus": 2}\0')
        with self.assertRaises(TypeError):
            numafit.interface_bandwidth_xml(object())

    def test_pack_and_profile(self):
        r = numafit.Request.from_flavor(2, 1024, DEDICATED, profile="zed")
        p1 = numafit.fit(self.host, r, profile="zed", strategy="pack")
        p2 = numafit.fit(self.host, r, profile="zed", strategy="spread")
        self.assertIsNotNone(p1)
        self.assertIsNotNone(p2)
        self.assertRaises(ValueError, numafit.fit, self.host, r, strategy="random")

    def test_plan(self):
        h = copy.copy(self.host)
        ps = numafit.plan(h, numafit.Request.from_flavor(4, 1024, DEDICATED))
        self.assertEqual(len(ps), 4)  # 16 threads / 4
        pinned = [c for p in ps for c in p.pinning.values()]
        self.assertEqual(len(pinned), len(set(pinned)))

    def test_cpu_helpers(self):
        self.assertEqual(numafit.parse_cpu_spec("0-3,^2, 8"), {0, 1, 3, 8})
        self.assertEqual(numafit.format_cpu_spec([5, 0, 1, 2]), "0-2,5")
        with self.assertRaises(errors.Invalid):
            numafit.parse_cpu_spec("1-")
        with self.assertRaises(ValueError):
            numafit.parse_cpu_spec("0-99999999")
        fl = {"vcpus": 8, "memory_mb": 1024, "extra_specs": {"hw:cpu_max_sockets": "2"}}
        self.assertEqual(numafit.best_cpu_topology(fl)[0], 2)
        tops = numafit.cpu_topologies(fl)
        self.assertTrue(all(s * c * t == 8 and s <= 2 for s, c, t in tops))
        self.assertEqual(numafit.cpu_topology_constraints(fl),
                         ((0, 0, 0), (2, 65536, 65536)))
        big = "1" + "0" * 30  # nova's int(): no 64-bit limit
        fl = {"extra_specs": {"hw:cpu_max_cores": big, "hw:cpu_cores": "-" + big}}
        self.assertEqual(numafit.cpu_topology_constraints(fl, {"properties": {"hw_cpu_threads": 2}}),
                         ((0, 0, 2), (65536, 10**30, 65536)))
        with self.assertRaises(numafit.errors.ImageVCPULimitsRangeExceeded):
            numafit.cpu_topology_constraints({"extra_specs": {"hw:cpu_max_cores": "2"}},
                                             {"properties": {"hw_cpu_max_cores": 4}})
        with self.assertRaises(numafit.errors.InvalidRequest):
            numafit.cpu_topology_constraints({"extra_specs": {"hw:cpu_sockets": "2.0"}})


class GoldenCases(unittest.TestCase):
    """tests/cases/*.case (the CLI's golden tests) through the binding."""

    def test_cases(self):
        n = 0
        for path in sorted(glob.glob(os.path.join(CASES, "*.case"))):
            fields = {}
            with open(path) as f:
                for line in f:
                    k, sep, v = line.partition(": ")
                    if sep and k in ("input", "expected", "options"):
                        fields[k] = v.strip()
            try:
                inp = json.loads(fields["input"])
            except ValueError:
                continue
            if inp.get("op", "fit") != "fit" or set(inp) - {"op", "host", "flavor", "image",
                                                              "limits", "strategy",
                                                              "nova_release"}:
                continue
            opts = fields.get("options", "").split()
            profile = inp.get("nova_release") or (
                opts[opts.index("--nova-release") + 1] if "--nova-release" in opts else "latest")
            strategy = inp.get("strategy") or (
                opts[opts.index("--strategy") + 1] if "--strategy" in opts else "spread")
            with self.subTest(case=os.path.basename(path)):
                self.assertEqual(answer(inp, profile, strategy),
                                 project(json.loads(fields["expected"])))
                n += 1
        self.assertGreater(n, 10)


def _odd_cycle_host(m, ncells):
    """physnet i on cells i and i-1 (mod m): a cover needs (m + 1) // 2 cells."""
    cells = []
    for i in range(ncells):
        nets = sorted({"n%02d" % i, "n%02d" % ((i - 1) % m)}) if i < m else []
        cpus = list(range(4 * i, 4 * i + 4))
        cells.append({"nova_object.name": "NUMACell", "nova_object.namespace": "nova",
                      "nova_object.version": "1.5", "nova_object.data": {
                          "id": i, "cpuset": cpus, "pcpuset": [], "memory": 8192,
                          "cpu_usage": 0, "memory_usage": 0, "pinned_cpus": [],
                          "siblings": [[c] for c in cpus], "mempages": [],
                          "network_metadata": {
                              "nova_object.name": "NetworkMetadata",
                              "nova_object.namespace": "nova", "nova_object.version": "1.0",
                              "nova_object.data": {"physnets": nets, "tunneled": False}}}})
    host = {"nova_object.name": "NUMATopology", "nova_object.namespace": "nova",
            "nova_object.version": "1.2", "nova_object.data": {"cells": cells}}
    limits = {"cpu_allocation_ratio": 16.0, "ram_allocation_ratio": 1.5,
              "network_metadata": {"physnets": ["n%02d" % i for i in range(m)],
                                   "tunneled": False}}
    return numafit.Host.from_json(json.dumps(host)), limits


class Budget(unittest.TestCase):
    def test_default_budget_bounds_the_network_search(self):
        # 21 physnets on an odd cycle need 11 cells, the guest has 10: beyond
        # the exact bounds, only the budget ends the search
        h, limits = _odd_cycle_host(21, 22)
        r = numafit.Request.from_flavor(10, 10240, {"hw:numa_nodes": "10"})
        with self.assertRaises(errors.TooComplex) as cm:
            numafit.fit(h, r, limits=limits)  # budget=None: the library default
        self.assertIn("10000000", str(cm.exception))
        with self.assertRaises(errors.TooComplex):
            numafit.fit(h, r, limits=limits, budget=1000)
        # 15 physnets, 7 guest cells: the exact minimum cover answers at once
        h, limits = _odd_cycle_host(15, 16)
        r = numafit.Request.from_flavor(7, 7168, {"hw:numa_nodes": "7"})
        self.assertIsNone(numafit.fit(h, r, limits=limits, budget=100000))


class InputChecks(unittest.TestCase):
    """What the binding refuses before calling the library: files above
    the library's input limit, NUL characters in text, and integers that
    are not integers or do not fit in the C type (ctypes would cut or wrap
    them silently)."""

    def test_from_file_limit(self):
        import subprocess
        import sys
        import tempfile
        # an endless special file, in a child limited to 1 GiB of address
        # space (without the limit the read would take all memory; not
        # under AddressSanitizer, which needs a vast address space)
        limit = "asan" not in os.environ.get("LD_PRELOAD", "")
        code = ("import resource, numafit\n"
                "if %r:\n"
                "    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
                "try:\n"
                "    numafit.Host.from_file('/dev/zero')\n"
                "except numafit.errors.RangeError as e:\n"
                "    print('refused:', e)\n" % limit)
        r = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=120)
        self.assertIn("refused: /dev/zero: ", r.stdout)
        self.assertEqual(r.returncode, 0, r.stdout)
        with tempfile.TemporaryDirectory() as d:
            ok = os.path.join(d, "host.json")
            with numafit.Host.synthetic(SYN) as h, open(ok, "w") as f:
                f.write(h.to_json())
            with numafit.Host.from_file(ok) as h2:
                self.assertEqual(len(h2), 2)
            big = os.path.join(d, "big.json")
            with open(big, "wb") as f:
                f.truncate(INPUT_MAX + 1)  # sparse: refused by its size, unread
            with self.assertRaises(errors.RangeError) as cm:
                numafit.Host.from_file(big)
            self.assertIn("16777216", str(cm.exception))
        self.assertEqual(_ffi.INPUT_MAX, INPUT_MAX)
        fd = os.open(os.devnull, os.O_RDONLY)
        try:
            with self.assertRaises(TypeError):  # a file descriptor: not a path
                numafit.Host.from_file(fd)
        finally:
            os.close(fd)

    def test_format_cpu_spec_ids(self):
        self.assertEqual(numafit.format_cpu_spec({0, CPU_MAX}), "0,16383")
        self.assertEqual(numafit.format_cpu_spec([]), "")

        class Index:  # e.g. a numpy integer
            def __index__(self):
                return 3
        self.assertEqual(numafit.format_cpu_spec([Index()]), "3")
        for bad in (2**32 + 5, 2**63, -1, CPU_MAX + 1, 2**64):
            with self.subTest(cpu=bad), self.assertRaises(ValueError):
                numafit.format_cpu_spec({bad})
        for bad in (1.5, 2.0, True, "5", None):
            with self.subTest(cpu=bad), self.assertRaises(TypeError):
                numafit.format_cpu_spec([bad])
        with self.assertRaises(TypeError):
            numafit.format_cpu_spec("012")
        self.assertEqual(_ffi.CPU_MAX, CPU_MAX)

    def test_nul_in_text(self):
        h = numafit.Host.synthetic(SYN)
        r = numafit.Request.from_flavor(2, 512, DEDICATED)
        p = numafit.fit(h, r)
        calls = {
            "parse_cpu_spec": lambda: numafit.parse_cpu_spec("0-3\0,5"),
            "parse_cpu_spec bytes": lambda: numafit.parse_cpu_spec(b"0-3\0,5"),
            "synthetic": lambda: numafit.Host.synthetic("cells:1\0 cores:2"),
            "from_sysfs": lambda: numafit.Host.from_sysfs("/nonexistent\0/x"),
            "from_libvirt": lambda: numafit.Host.from_libvirt("test:///default\0x"),
            "from_json": lambda: numafit.Host.from_json(h.to_json() + "\0"),
            "from_caps_xml": lambda: numafit.Host.from_caps_xml("<capabilities/>\0"),
            "from_caps_xml online": lambda: numafit.Host.from_caps_xml("<capabilities/>",
                                                                       online="0\0-1"),
            "HostConf": lambda: numafit.HostConf(cpu_dedicated_set="2-7\0,0"),
            "HostConf physnet": lambda: numafit.HostConf(physnets={"phys\0net": "0"}),
            "HostConf pages": lambda: numafit.HostConf(
                reserved_huge_pages=["node:0,size:2048,count:64\0"]),
            "Request flavor": lambda: numafit.Request.from_json(
                '{"vcpus": 2, "memory_mb": 512}\0'),
            "Request image": lambda: numafit.Request.from_json(
                {"vcpus": 2, "memory_mb": 512}, b'{"properties": {}}\0'),
            "Placement.from_json": lambda: numafit.Placement.from_json(p.to_json() + "\0"),
            "set_uuid": lambda: p.set_uuid("5b9c6c36-8ef1-4bd8-9a5c-1a2f07e0a6a0\0"),
            "DomainConf": lambda: numafit.DomainConf(name="vm\0x"),
            "DomainConf set": lambda: numafit.DomainConf(cpu_shared_set="0\0-1"),
            "domain_xml": lambda: numafit.domain_xml(h, r, p, flavor='{"vcpus": 2}\0'),
            "Options": lambda: numafit.Options(limits='{"cpu_allocation_ratio": 1}\0'),
            "best_cpu_topology": lambda: numafit.best_cpu_topology('{"vcpus": 2}\0'),
        }
        for name, call in calls.items():
            with self.subTest(call=name):
                with self.assertRaisesRegex(ValueError, "NUL") as cm:
                    call()
                self.assertIsInstance(cm.exception, errors.InvalidArgument)

    def test_text_types(self):
        for call in (lambda: numafit.parse_cpu_spec(5), lambda: numafit.Host.synthetic(5),
                     lambda: numafit.Host.from_caps_xml(5),
                     lambda: numafit.HostConf(cpu_shared_set=1),
                     lambda: numafit.DomainConf(name=3)):
            with self.assertRaises(TypeError):
                call()
        with self.assertRaises(ValueError):  # not UTF-8 encodable
            numafit.Host.synthetic("cells:\ud800")

    def test_integers(self):
        h = numafit.Host.synthetic(SYN)
        r = numafit.Request.from_flavor(2, 512, DEDICATED)
        self.assertIsNotNone(numafit.fit(h, r, budget=2**64 - 1))
        self.assertIsNotNone(numafit.fit(h, r, budget=None))
        bad_values = [(ValueError, -1), (ValueError, 2**64), (TypeError, 1.5),
                      (TypeError, True), (TypeError, "10")]
        for exc, v in bad_values:
            with self.subTest(budget=v):
                with self.assertRaises(exc):
                    numafit.fit(h, r, budget=v)
                with self.assertRaises(exc):
                    numafit.Options(budget=v)
                with self.assertRaises(exc):
                    numafit.plan(copy.copy(h), r, max_count=1, budget=v)
        self.assertIsNone(h.distance(0, 1))  # a synthetic host has no distances
        for exc, i in ((ValueError, -1), (ValueError, 2**32), (TypeError, 0.5),
                       (TypeError, False)):
            with self.subTest(distance=i):
                with self.assertRaises(exc):
                    h.distance(i, 0)
                with self.assertRaises(exc):
                    h.distance(0, i)
        for kw, exc in ((dict(realtime_priority=2**31), ValueError),
                        (dict(realtime_priority=1.5), TypeError),
                        (dict(file_backed_memory=-1), ValueError),
                        (dict(file_backed_memory=2**64), ValueError),
                        (dict(file_backed_memory=1.5), TypeError)):
            with self.subTest(domconf=kw), self.assertRaises(exc):
                numafit.DomainConf(**kw)
        for flags in (-1, 2**32):
            with self.subTest(flags=flags), self.assertRaises(ValueError):
                r.to_json(flags)
        with self.assertRaises(TypeError):
            r.to_json(0.0)
        for n in (-1, 1.5, True):
            with self.subTest(max_count=n), self.assertRaises((TypeError, ValueError)):
                numafit.plan(copy.copy(h), r, max_count=n)

    def test_error_code_names(self):
        e = errors.NumafitError(errno.EINVAL, "x", code=2**40)
        self.assertEqual(e.code_name, "")
        self.assertIsInstance(errors.from_rc(-2**40), errors.NumafitError)


def project(expected):
    if "error" in expected:
        return {"error": expected["error"]}
    if "request" in expected:
        return {"request": None}
    if expected.get("fit") is None:
        return {"fit": None, "reason": expected.get("reason")}
    return {"fit": expected["fit"]}


def answer(inp, profile, strategy):
    try:
        host = numafit.Host.from_json(inp["host"])
        if inp.get("check_extra_specs", True):
            # as numafit fit does before the fit (nova's API check)
            numafit.validate_extra_specs(inp["flavor"], profile)
        req = numafit.Request.from_json(inp["flavor"], inp.get("image"), profile)
        if not req.has_numa:
            return {"request": None}
        res = numafit.try_fit(host, req, inp.get("limits"), profile, strategy)
    except errors.NumafitError as e:
        return {"error": e.exception or e.code_name}
    if res.placement is None:
        return {"fit": None, "reason": res.text}
    return {"fit": json.loads(res.placement.to_json())}


if __name__ == "__main__":
    unittest.main()
