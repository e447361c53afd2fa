"""numafit.PciPools, numafit.PciRequests and numafit.PciDevices (doc/pci.md):
reading nova's forms, the pools' order, support and apply all or nothing,
requests from a flavor and from ports, a host's devices from sysfs, node
device XML and nova's JSON, and the pools device_spec makes of them."""
import copy
import os
import unittest

import numafit

# the seed RH2288H V3 (2 sockets, a cell each) with an X710 (PF and 4 VFs
# on cell 0), a T4 on cell 1 and 2 VFs of unknown NUMA node
POOLS = [
    {"vendor_id": "8086", "product_id": "154c", "numa_node": 0, "count": 4,
     "dev_type": "type-VF", "physical_network": "physnet1", "remote_managed": "false",
     "parent_ifname": "ens1f0"},
    {"vendor_id": "8086", "product_id": "1572", "numa_node": 0, "count": 1,
     "dev_type": "type-PF", "physical_network": "physnet1", "remote_managed": "false"},
    {"vendor_id": "10de", "product_id": "1eb8", "numa_node": 1, "count": 1,
     "dev_type": "type-PCI"},
    {"vendor_id": "8086", "product_id": "154c", "numa_node": None, "count": 2,
     "dev_type": "type-VF", "physical_network": "physnet1", "remote_managed": "false"},
]
CONF = ("[pci]\n"
        'alias = {"name": "vf", "vendor_id": "8086", "product_id": "154c", '
        '"device_type": "type-VF"}\n'
        'alias = {"name": "t4", "vendor_id": "10de", "product_id": "1eb8"}\n')


class PciTest(unittest.TestCase):
    def setUp(self):
        self.host = numafit.Host.synthetic("2x4c 2cells mem:64G")
        self.pools = numafit.PciPools.from_json(POOLS)

    def tearDown(self):
        self.pools.close()
        self.host.close()

    def test_order(self):
        # fewest keys first, stable: the T4, then the PF and the unknown-node VFs
        self.assertEqual([p[1] for p in (self.pools[i] for i in range(len(self.pools)))],
                         ["1eb8", "1572", "154c", "154c"])
        self.assertEqual(self.pools[2], ("8086", "154c", None, 2))
        self.assertEqual(self.pools.tag(3, "parent_ifname"), "ens1f0")
        self.assertRaises(KeyError, self.pools.tag, 0, "trusted")
        again = numafit.PciPools.from_json(self.pools.to_dict())
        self.assertEqual(again, self.pools)

    def test_policies(self):
        with numafit.PciRequests.from_flavor(
                {"extra_specs": {"pci_passthrough:alias": "vf:5",
                                 "hw:pci_numa_affinity_policy": "legacy"}},
                None, CONF, "zed") as reqs:
            self.assertEqual(reqs[0], (5, "legacy"))
            # 4 on cell 0 and 2 of unknown node
            self.assertEqual(self.pools.support(reqs, [0], self.host), (True, None))
            ok, (where, _why) = self.pools.support(reqs, [1], self.host)
            self.assertFalse(ok)
            self.assertEqual(where, "pci_requests/0")

    def test_apply_all_or_nothing(self):
        before = copy.copy(self.pools)
        with numafit.PciRequests.from_flavor(
                {"extra_specs": {"pci_passthrough:alias": "t4:1, vf:9"}}, None, CONF,
                "zed") as reqs:
            with self.assertRaises(numafit.errors.NoSpace):
                self.pools.apply(reqs)
            self.assertEqual(self.pools, before)
        with numafit.PciRequests.from_flavor(
                {"extra_specs": {"pci_passthrough:alias": "t4:1"}}, None, CONF, "zed") as reqs:
            self.pools.apply(reqs, [1], self.host)
        self.assertEqual(len(self.pools), 3)  # the emptied pool is removed
        before.close()

    def test_refusals_and_ports(self):
        with self.assertRaises(numafit.errors.NumafitError) as cm:
            numafit.PciRequests.from_flavor({"extra_specs": {"pci_passthrough:alias": "gpu:1"}},
                                            None, CONF, "zed")
        self.assertEqual(cm.exception.exception, "PciRequestAliasNotDefined")
        with numafit.PciRequests.new() as reqs:
            self.assertTrue(reqs.add_port("direct", "physnet1", port_id="p1",
                                          port_policy="required"))
            self.assertFalse(reqs.add_port("normal"))
            self.assertEqual(reqs[0], (1, "required"))
            # 4 VFs on cell 0 (the PF is never taken by a direct port)
            self.assertTrue(self.pools.support(reqs, [0], self.host)[0])


FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tests",
                       "data", "pci", "x710-cx6")
DEVSPEC = ("[pci]\n"
           'device_spec = {"devname": "ens1f0", "physical_network": "physnet1"}\n'
           'device_spec = {"vendor_id": "10de"}\n')


class PciDevicesTest(unittest.TestCase):
    def test_sysfs_nodedev_json(self):
        # the fixture host read from sysfs and from libvirt's node device XML
        with numafit.PciDevices.from_sysfs(FIXTURE) as s:
            self.assertEqual(len(s), 15)
            pf = [d for d in (s[i] for i in range(len(s))) if d[0] == "0000:81:00.0"][0]
            self.assertEqual(pf, ("0000:81:00.0", "8086", "1572", "type-PF", 1, None))
            listed = s.to_list()
            docs = []
            nd = os.path.join(FIXTURE, "nodedev")
            for name in sorted(os.listdir(nd)):
                with open(os.path.join(nd, name)) as f:
                    docs.append(f.read())
            with numafit.PciDevices.from_nodedev_xml(docs) as x:
                self.assertEqual([x[i] for i in range(len(x))], [s[i] for i in range(len(s))])
            with numafit.PciDevices.from_json(listed) as j:
                self.assertEqual(j.to_list(), listed)

    def test_pools_from_devices(self):
        with numafit.PciDevices.from_sysfs(FIXTURE) as devs:
            with numafit.PciPools.from_devices(devs, DEVSPEC, profile="zed") as p:
                got = [(d["product_id"], d["dev_type"], d["count"], d.get("parent_ifname"))
                       for d in p.pools()]
                # the T4; the PF; its VFs without and with a network interface
                self.assertEqual(got, [("1eb8", "type-PCI", 1, None),
                                       ("1572", "type-PF", 1, None),
                                       ("154c", "type-VF", 2, None),
                                       ("154c", "type-VF", 2, "ens1f0")])
                self.assertEqual(p.tag(1, "physical_network"), "physnet1")
            with numafit.PciPools.from_devices(devs) as p:
                self.assertEqual(len(p), 0)
            with self.assertRaises(numafit.errors.NumafitError) as cm:
                numafit.PciPools.from_devices(devs, '[pci]\ndevice_spec = {"address": 5}\n')
            self.assertEqual(cm.exception.exception, "PciDeviceWrongAddressFormat")
        with self.assertRaises(numafit.errors.NumafitError):
            numafit.PciDevices.from_json([{"address": "0000:81:00.0"}])
        with self.assertRaises(numafit.errors.NumafitError):
            numafit.PciDevices.from_sysfs(os.path.join(FIXTURE, "nowhere"))


if __name__ == "__main__":
    unittest.main()
