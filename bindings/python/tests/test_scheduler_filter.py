"""numafit.scheduler.NUMATopologyFilter under nova's own filter tests
(nova/tests/unit/scheduler/filters/test_numa_topology_filters.py, with the
filter class swapped), and against nova's filter on random hosts."""
import copy
import os
import random
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))  # from bindings/python/tests
sys.path.insert(0, os.path.join(TOP, "tests"))  # nova_fit_diff

try:
    from nova.tests.unit.scheduler.filters import test_numa_topology_filters as nova_tests
    from nova.scheduler.filters import numa_topology_filter
    from nova.tests.unit.scheduler import fakes
    import nova_fit_diff as nfd
    from numafit import scheduler
    import numafit.nova as _adapter
    HAVE_NOVA = True
except (ImportError, SystemExit):
    HAVE_NOVA = False

if HAVE_NOVA:
    class NovaFilterTestsOnNumafit(nova_tests.TestNUMATopologyFilter):
        """nova's tests of NUMATopologyFilter, run on numafit's filter."""

        def setUp(self):
            super().setUp()
            self.filt_cls = scheduler.NUMATopologyFilter()


@unittest.skipUnless(HAVE_NOVA, "nova is not importable")
class FilterAgainstNova(unittest.TestCase):
    def test_nova_loads_it_by_name(self):
        """The nova.conf lines of doc/python.md work with nova's loader."""
        from nova.scheduler import filters
        classes = filters.HostFilterHandler().get_matching_classes(
            ["nova.scheduler.filters.all_filters",
             "numafit.scheduler.NumafitNUMATopologyFilter"])
        by_name = {c.__name__: c for c in classes}
        self.assertIs(by_name["NumafitNUMATopologyFilter"], scheduler.NUMATopologyFilter)
        self.assertIs(by_name["NUMATopologyFilter"], numa_topology_filter.NUMATopologyFilter)

    def test_random_hosts(self):
        rng = random.Random(7)
        st = nfd.Stats()
        ours, novas = scheduler.NUMATopologyFilter(), numa_topology_filter.NUMATopologyFilter()
        agree = passed = networks = 0
        before = dict(_adapter.stats)
        for s in nfd.gen_scenarios(rng, 200, st):
            spec = nfd.objects.RequestSpec(
                numa_topology=s["req"], pci_requests=None, instance_uuid="6b4ba31a-3f03-4d3f-a1c0-27f4d9e6a7c2",
                flavor=nfd.objects.Flavor(extra_specs=dict(s["flavor"]["extra_specs"])),
                image=nfd.objects.ImageMeta.from_dict(copy.deepcopy(s["image"])))
            if rng.random() < 0.3:  # a request with network affinity
                spec.network_metadata = nfd.objects.NetworkMetadata(
                    physnets=set(rng.sample(nfd.PHYSNETS, rng.randint(0, 2))),
                    tunneled=rng.random() < 0.5)
                networks += 1
            ratios = {"cpu_allocation_ratio": rng.choice([1.0, 4.0, 16.0]),
                      "ram_allocation_ratio": rng.choice([1.0, 1.5])}
            hs = [fakes.FakeHostState("h", "n", dict(numa_topology=s["host"], pci_stats=None,
                                                     limits={}, **ratios)) for _ in range(2)]
            a = ours.host_passes(hs[0], spec)
            # nova's own answer, with its fit cache: compare with the
            # intended semantics where the two differ
            b = novas.host_passes(hs[1], spec)
            if a != b:
                limits = nfd.objects.NUMATopologyLimits(**ratios)
                if "network_metadata" in spec:
                    limits.network_metadata = spec.network_metadata
                b = nfd.reference_fit(s["host"], s["req"], limits) is not None
            self.assertEqual(a, b, nfd.scenario_line(s))
            if a:
                # the limits nova's filter stores for a passing host
                want = nfd.objects.NUMATopologyLimits(**ratios)
                if "network_metadata" in spec and spec.network_metadata:
                    want.network_metadata = spec.network_metadata
                self.assertEqual(hs[0].limits["numa_topology"].obj_to_primitive(),
                                 want.obj_to_primitive())
                passed += 1
            agree += 1
        self.assertGreater(passed, 10)
        self.assertGreater(networks, 20)
        # the answers came from the library (the filter's pass/fail call),
        # not from nova's function
        self.assertGreater(_adapter.stats["library"], before["library"] + 150)
        self.assertEqual(_adapter.stats["fallback"], before["fallback"])

    def test_random_hosts_with_pci_devices(self):
        """Hosts with nova's PciDeviceStats and requests with nova's PCI
        requests (tests/nova_pci_fit_diff.py's pools and requests): the
        filter answers as nova's, or as the reference where nova's fit
        cache gets in the way, from the library (the answer alone: no
        instance topology built, numa_fit_instance_to_host not called but
        for the instance topologies the adapter hands to nova)."""
        import nova_pci_fit_diff as pfd
        from nova.pci import stats as pci_stats
        rng = random.Random(13)
        st = nfd.Stats()
        ours, novas = scheduler.NUMATopologyFilter(), numa_topology_filter.NUMATopologyFilter()
        passed = by_devices = full = 0
        before = dict(_adapter.stats)
        real = scheduler.NumafitNUMATopologyFilter.__dict__["_fit_with_nova_rules"]

        def counted(*args):
            nonlocal full
            full += 1
            return real.__func__(*args)
        scheduler.NumafitNUMATopologyFilter._fit_with_nova_rules = staticmethod(counted)
        try:
            for s in nfd.gen_scenarios(rng, 300, st):
                pools, reqs = pfd.gen_pci(rng, s["host"])
                spec = nfd.objects.RequestSpec(
                    numa_topology=s["req"], instance_uuid="6b4ba31a-3f03-4d3f-a1c0-27f4d9e6a7c2",
                    pci_requests=nfd.objects.InstancePCIRequests(requests=reqs) if reqs else None,
                    flavor=nfd.objects.Flavor(extra_specs=dict(s["flavor"]["extra_specs"])),
                    image=nfd.objects.ImageMeta.from_dict(copy.deepcopy(s["image"])))
                ratios = {"cpu_allocation_ratio": rng.choice([1.0, 4.0, 16.0]),
                          "ram_allocation_ratio": rng.choice([1.0, 1.5])}
                hs = [fakes.FakeHostState("h", "n", dict(
                    numa_topology=s["host"], limits={},
                    pci_stats=pci_stats.PciDeviceStats(s["host"], stats=pools), **ratios))
                    for _ in range(2)]
                a = ours.host_passes(hs[0], spec)
                b = novas.host_passes(hs[1], spec)
                limits = nfd.objects.NUMATopologyLimits(**ratios)
                if a != b:
                    b = nfd.reference_fit(s["host"], s["req"], limits, reqs or None,
                                          hs[1].pci_stats) is not None
                if a != b:
                    self.fail("%s pools %s requests %s: numafit %s, reference %s" % (
                        nfd.scenario_line(s), pools.obj_to_primitive(),
                        [r.obj_to_primitive() for r in reqs], a, b))
                passed += a
                if not a and reqs and s["req"] and \
                        nfd.reference_fit(s["host"], s["req"], limits) is not None:
                    by_devices += 1
        finally:
            scheduler.NumafitNUMATopologyFilter._fit_with_nova_rules = real
        self.assertGreater(passed, 20)
        self.assertGreater(by_devices, 20)  # the devices decide
        # the whole fit only for instance topologies no flavor gives (the
        # adapter hands those to nova's own function)
        self.assertEqual(full, _adapter.stats["fallback"] - before["fallback"])
        self.assertLess(full, 5)
        self.assertGreater(_adapter.stats["library"], before["library"] + 150)

    def test_filter_all_as_nova_handler_calls_it(self):
        """filter_all (the request read once, every host checked) passes
        the hosts host_passes passes, in order, stores the same limits, and
        lets every host through for a rebuild as nova's _filter_one does;
        nova's own filter agrees where its fit cache does not get in the
        way (reference_fit)."""
        rng = random.Random(11)
        st = nfd.Stats()
        ours, novas = scheduler.NUMATopologyFilter(), numa_topology_filter.NUMATopologyFilter()
        scen = list(nfd.gen_scenarios(rng, 120, st))
        total = 0
        for flavor_of in scen[:12]:
            spec = nfd.objects.RequestSpec(
                numa_topology=flavor_of["req"], pci_requests=None,
                instance_uuid="6b4ba31a-3f03-4d3f-a1c0-27f4d9e6a7c2",
                flavor=nfd.objects.Flavor(extra_specs=dict(flavor_of["flavor"]["extra_specs"])),
                image=nfd.objects.ImageMeta.from_dict(copy.deepcopy(flavor_of["image"])))
            ratios = {"cpu_allocation_ratio": 4.0, "ram_allocation_ratio": 1.0}

            def hosts():
                return [fakes.FakeHostState("h%d" % i, "n", dict(
                    numa_topology=s["host"], pci_stats=None, limits={}, **ratios))
                    for i, s in enumerate(scen)]
            batch, single = hosts(), hosts()
            got = list(ours.filter_all(batch, spec))
            want = [h for h in single if ours.host_passes(h, spec)]
            self.assertEqual([h.host for h in got], [h.host for h in want])
            for a, b in zip(got, want):
                self.assertEqual(a.limits["numa_topology"].obj_to_primitive(),
                                 b.limits["numa_topology"].obj_to_primitive())
            self.assertTrue(all("numa_topology" not in h.limits
                                for h in batch if h not in got))
            limits = nfd.objects.NUMATopologyLimits(**ratios)
            ref = [h.host for h, s in zip(hosts(), scen)
                   if nfd.reference_fit(s["host"], spec.numa_topology, limits) is not None
                   and not (ours._requires_threads(spec.flavor.extra_specs,
                                                   spec.image.properties)
                            and not s["host"].has_threads)]
            self.assertEqual([h.host for h in got], ref)
            total += len(got)
            # a rebuild: every host passes, nothing is checked
            spec.scheduler_hints = {"_nova_check_type": ["rebuild"]}
            self.assertEqual(len(list(ours.filter_all(hosts(), spec))), len(scen))
            self.assertEqual(len(list(novas.filter_all(hosts(), spec))), len(scen))
        self.assertGreater(total, 50)

    def test_filter_all_asks_an_overridden_host_passes(self):
        """A subclass (or a test's mock) that overrides host_passes is asked
        about each host by filter_all, as nova's own filter_all asks it;
        numafit's own host_passes is not bypassed by its batch path."""
        asked = []

        class Probe(scheduler.NumafitNUMATopologyFilter):
            def host_passes(self, host_state, spec_obj):
                asked.append(host_state.host)
                return host_state.host != "h1"
        hosts = [fakes.FakeHostState("h%d" % i, "n", dict(
            numa_topology=None, pci_stats=None, limits={}, cpu_allocation_ratio=1.0,
            ram_allocation_ratio=1.0)) for i in range(3)]
        spec = nfd.objects.RequestSpec(
            numa_topology=None, pci_requests=None,
            instance_uuid="6b4ba31a-3f03-4d3f-a1c0-27f4d9e6a7c2",
            flavor=nfd.objects.Flavor(extra_specs={}),
            image=nfd.objects.ImageMeta.from_dict({}))
        got = [h.host for h in Probe().filter_all(hosts, spec)]
        self.assertEqual(["h0", "h2"], got)
        self.assertEqual(["h0", "h1", "h2"], asked)


if __name__ == "__main__":
    unittest.main()
