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


class ProviderMappingTest(unittest.TestCase):
    def test_mapping_follows_placement(self):
        pools = [{"vendor_id": "8086", "product_id": "154c", "numa_node": 0, "count": 2,
                  "rp_uuid": "A"},
                 {"vendor_id": "8086", "product_id": "154c", "numa_node": 1, "count": 1,
                  "rp_uuid": "B"}]
        req = [{"count": 2, "alias_name": "a", "request_id": "r1",
                "spec": [{"vendor_id": "8086"}]}]
        with numafit.PciPools.from_json(pools) as p, numafit.PciRequests.from_json(req) as r:
            self.assertTrue(p.support(r)[0])  # no allocation: any pool
            r.set_provider_mapping({"r1-0": ["B"], "r1-1": ["B"]})
            self.assertFalse(p.support(r)[0])  # B has one device
            # Zed knows no placement: rp_uuids is a key like any other, no pool has it
            self.assertFalse(p.support(r, profile="zed")[0])
            r.set_provider_mapping({"r1-0": ["A"], "r1-1": ["B"]})
            p.apply(r)
            self.assertEqual([x["count"] for x in p.pools()], [1])
            with self.assertRaises(numafit.errors.NumafitError):
                r.set_provider_mapping({"r1-0": []})


class PciFitTest(unittest.TestCase):
    """numafit.try_fit / fit_and_claim with pci_pools and pci_requests."""

    def setUp(self):
        self.host = numafit.Host.synthetic("2x4c2t 2cells mem:64G")
        self.pools = numafit.PciPools.from_json(POOLS)
        self.req = numafit.Request.from_flavor(
            2, 2048, {"hw:numa_nodes": "1", "hw:cpu_policy": "dedicated"})

    def tearDown(self):
        for o in (self.req, self.pools, self.host):
            o.close()

    def reqs(self, aliases, policy=None):
        es = {"pci_passthrough:alias": aliases}
        if policy:
            es["hw:pci_numa_affinity_policy"] = policy
        return numafit.PciRequests.from_flavor({"extra_specs": es}, None, CONF, "zed")

    def test_pools_from_spec(self):
        spec = "2x4c2t 2cells mem:64G pci:8086:154c:vf:physnet1=4@0 pci:10de:1eb8=1@1"
        with numafit.Host.synthetic(spec) as h, numafit.PciPools.from_spec(spec, h) as p:
            self.assertEqual([(x["vendor_id"], x["numa_node"], x["count"]) for x in p.pools()],
                             [("10de", 1, 1), ("8086", 0, 4)])
            self.assertEqual(p.tag(1, "physical_network"), "physnet1")
            with self.reqs("vf:4", "required") as vf:
                self.assertEqual(numafit.fit(h, self.req, pci_pools=p,
                                             pci_requests=vf).host_cells, [0])
            with self.assertRaises(numafit.errors.NumafitError):
                numafit.PciPools.from_spec("pci:8086:154c=1@7", h)

    def test_cells_by_devices(self):
        # no pools: cell 0; pools without requests: the cell with the fewest
        # devices (1); the T4: cell 1 (nova's first choice, cell 0 with six
        # devices, lacks it); 4 VFs: cell 0
        self.assertEqual(numafit.fit(self.host, self.req).host_cells, [0])
        self.assertEqual(numafit.fit(self.host, self.req, pci_pools=self.pools).host_cells, [1])
        with self.reqs("t4:1", "required") as t4, self.reqs("vf:4", "required") as vf:
            self.assertEqual(numafit.fit(self.host, self.req, pci_pools=self.pools,
                                         pci_requests=t4).host_cells, [1])
            self.assertEqual(numafit.fit(self.host, self.req, pci_pools=self.pools,
                                         pci_requests=vf).host_cells, [0])

    def test_refused_for_devices(self):
        with self.reqs("t4:2") as two:
            r = numafit.try_fit(self.host, self.req, pci_pools=self.pools, pci_requests=two)
        self.assertIsNone(r.placement)
        self.assertEqual(r.code_name, "NOFIT_PCI")
        self.assertIn("alias t4", r.text)

    def test_claim_takes_devices(self):
        before = copy.copy(self.pools)
        with self.reqs("vf:5") as five, self.reqs("vf:2", "required") as two:
            # legacy: the VFs of cell 0 and of unknown node, in the pools'
            # order (the unknown node's pool has fewer keys: it goes first)
            p = self.host.fit_and_claim(self.req, pci_pools=self.pools, pci_requests=five)
            self.assertEqual(p.host_cells, [0])
            counts = [(q["product_id"], q["numa_node"], q["count"]) for q in self.pools.pools()]
            self.assertEqual(counts, [("1eb8", 1, 1), ("1572", 0, 1), ("154c", 0, 1)])
            # required, 2 VFs: none left on cells 0 or 1; the CPUs stay free
            free = self.host.to_json()
            self.assertIsNone(self.host.fit_and_claim(self.req, pci_pools=self.pools,
                                                      pci_requests=two))
            self.assertEqual(self.host.to_json(), free)
        self.assertNotEqual(self.pools, before)
        before.close()

    def test_plan_until_devices_run_out(self):
        # 2 VFs an instance, required: cell 0's 4 (cell 1 has none): two
        # instances, though the CPUs take 8; the pools are not changed
        before = copy.copy(self.pools)
        with self.reqs("vf:2", "required") as two:
            placed = numafit.plan(self.host, self.req, pci_pools=self.pools, pci_requests=two)
            self.assertEqual([p.host_cells for p in placed], [[0], [0]])
            # the pools given again hold all their devices: two more
            res = self.host.fill(self.req, pci_pools=self.pools, pci_requests=two)
            self.assertEqual((res.counts, res.code_name), ([2], "NOFIT_PCI"))
        self.assertEqual(self.pools, before)
        before.close()

    def test_options_object_with_devices(self):
        # an Options object (its strategy, even a headroom mix) with
        # devices: the fit sets them on a private copy, never on the object
        from numafit.fit import Options
        cells = lambda p: p.host_cells if p is not None else None  # noqa: E731
        with Options(strategy="pack") as o, self.reqs("t4:1", "required") as t4:
            for pools, reqs in ((self.pools, None), (self.pools, t4), (None, t4)):
                self.assertEqual(
                    cells(numafit.fit(self.host, self.req, limits=o, pci_pools=pools,
                                      pci_requests=reqs)),
                    cells(numafit.fit(self.host, self.req, strategy="pack", pci_pools=pools,
                                      pci_requests=reqs)))
            self.assertEqual(numafit.fit(self.host, self.req, limits=o).host_cells,
                             numafit.fit(self.host, self.req, strategy="pack").host_cells)
            with Options(strategy="headroom", mix=[(self.req, 1)]) as hr:
                self.assertEqual(numafit.fit(self.host, self.req, limits=hr, pci_pools=self.pools,
                                             pci_requests=t4).host_cells, [1])
                self.assertEqual(hr.mix_size, 1)
                p = self.host.fit_and_claim(self.req, limits=hr, pci_pools=self.pools,
                                            pci_requests=t4)
                self.assertEqual(p.host_cells, [1])
                self.assertIsNone(numafit.fit(self.host, self.req, limits=hr,
                                              pci_pools=self.pools, pci_requests=t4))

    def test_arguments(self):
        with self.assertRaises(TypeError):
            numafit.fit(self.host, self.req, pci_pools=POOLS)
        with self.reqs("t4:1") as t4:
            with self.assertRaises(TypeError):
                numafit.fit(self.host, self.req, pci_requests=self.pools)
            # requests without pools: nothing to check them on (nova's rule)
            self.assertIsNotNone(numafit.fit(self.host, self.req, pci_requests=t4))
            # explain says why
            why = numafit.explain(self.host, self.req, pci_pools=self.pools,
                                  pci_requests=t4)
            self.assertTrue(why["fits"])


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

    def test_tracker_claim_release_hostdev(self):
        conf = DEVSPEC + ('alias = {"name": "vf", "vendor_id": "8086", "product_id": "154c", '
                          '"device_type": "type-VF"}\n'
                          'alias = {"name": "pf", "vendor_id": "8086", "product_id": "1572", '
                          '"device_type": "type-PF"}\n')
        host = numafit.Host.synthetic("2x4c2t 2cells mem:64G")
        with numafit.PciDevices.from_sysfs(FIXTURE) as devs, \
                numafit.PciTracker.from_devices(devs, conf, "zed") as t, \
                numafit.PciRequests.from_flavor(
                    {"extra_specs": {"pci_passthrough:alias": "vf:1"}}, None, conf, "zed") as vf, \
                numafit.PciRequests.from_flavor(
                    {"extra_specs": {"pci_passthrough:alias": "pf:1"}}, None, conf, "zed") as pf:
            counts = (lambda: [(d["dev_type"], d["count"]) for d in t.pools().pools()])
            start = counts()
            c = t.claim(host, vf, [1])
            self.assertEqual([d["address"] for d in c["devices"]], ["0000:81:02.3"])
            self.assertEqual(c["unavailable"], ["0000:81:00.0"])
            self.assertIn('function="0x3"', numafit.hostdev_xml(c))
            with self.assertRaises(numafit.errors.NumafitError):
                t.claim(host, pf, [1])  # the PF is out while its VF is in use
            # a later run: a tracker made again takes the kept claim again
            with numafit.PciTracker.from_devices(devs, conf, "zed") as t2:
                t2.restore(c)
                self.assertEqual(sorted(counts()),
                                 sorted((d["dev_type"], d["count"]) for d in t2.pools().pools()))
                with self.assertRaises(numafit.errors.NumafitError) as cm:
                    t2.restore(c)  # taken already
                self.assertEqual(cm.exception.code_name, "NOFIT_PCI")
            t.release(c)
            self.assertEqual(sorted(counts()), sorted(start))
            with self.assertRaises(numafit.errors.NumafitError):
                t.release(c)  # not claimed any more
            # fit and claim in one step: the CPUs on the host, the VFs here
            req = numafit.Request.from_flavor(2, 2048, {"hw:cpu_policy": "dedicated"})
            with numafit.PciRequests.from_flavor(
                    {"extra_specs": {"pci_passthrough:alias": "vf:4"}}, None, conf, "zed") as vf4:
                r, c = t.fit_and_claim(host, req, vf4)
                self.assertEqual(r.placement.host_cells, [1])
                self.assertEqual(len(c["devices"]), 4)
                r2, c2 = t.fit_and_claim(host, req, vf4)  # no VFs left
                self.assertIsNone(c2)
                self.assertEqual(r2.code_name, "NOFIT_PCI")
                self.assertIsNone(r2.placement)
                host.release(r.placement)
                t.release(c)
            # the scheduler's view says yes (a VF and the PF: 2 pools), the
            # node's claim no (the VF takes its PF out): nothing is kept
            with numafit.PciRequests.from_flavor(
                    {"extra_specs": {"pci_passthrough:alias": "vf:1,pf:1"}}, None, conf,
                    "zed") as both:
                before = host.to_json()
                r3, c3 = t.fit_and_claim(host, req, both)
                self.assertIsNone(c3)
                self.assertEqual(r3.code_name, "NOFIT_PCI")
                self.assertEqual(host.to_json(), before)
                self.assertEqual(sorted(counts()), sorted(start))
            req.close()
        host.close()


if __name__ == "__main__":
    unittest.main()
