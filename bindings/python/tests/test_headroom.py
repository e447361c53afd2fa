"""The headroom strategy from Python (numafit.Options(strategy="headroom",
mix=...), numafit.headroom()) and numafit.scheduler.NumafitHeadroomWeigher
loaded through nova's weigher loader, ranking constructed hosts."""
import json
import os
import tempfile
import unittest

import numafit

try:
    from nova import objects
    from nova.scheduler import weights
    from nova.scheduler.weights import ram
    from nova.tests.unit.scheduler import fakes
    objects.register_all()
    from numafit import scheduler
    HAVE_NOVA = True
except (ImportError, SystemExit):
    HAVE_NOVA = False

DED = {"hw:cpu_policy": "dedicated"}
ISO = dict(DED, **{"hw:cpu_thread_policy": "isolate"})


class HeadroomOptions(unittest.TestCase):
    def test_counts_and_choice(self):
        """One thread of cell 0 pinned: a second pinned vCPU breaks a whole
        core of cell 1 under spread (nova's rules take whole cores first),
        while headroom takes the orphan thread of cell 0."""
        iso = numafit.Request.from_flavor(1, 512, ISO)
        one = numafit.Request.from_flavor(1, 512, DED)
        counts = {}
        for strategy in ("spread", "headroom"):
            h = numafit.Host.synthetic("cells:2 cores:2 threads:2 mem:16G")
            self.assertEqual(numafit.headroom(h, [(iso, 1.0)]), [4])
            h.claim(numafit.fit(h, one))
            self.assertEqual(numafit.headroom(h, [(iso, 1.0)]), [3])
            with numafit.Options(strategy=strategy, mix=[(iso, 1.0)]) as o:
                p = numafit.fit(h, one, o)
            h.claim(p)
            counts[strategy] = numafit.headroom(h, [(iso, 1.0)])[0]
        self.assertEqual(counts, {"spread": 2, "headroom": 3})

    def test_random_hosts_fit_like_spread(self):
        """On random synthetic hosts filled by random requests, headroom
        (with a random mix or none) fits exactly when spread fits, and
        every placement it returns is claimed (Host.claim raises if not)."""
        import random
        rng = random.Random(5)
        specs = ["cells:2 cores:4 threads:2 mem:16G pages:1G=4",
                 "cells:4 cores:3 threads:2 mem:8G pages:2M=512",
                 "cells:3 cores:4 threads:1 mem:16G pages:1G=4 dedicated:1-3,5-7,9-11 "
                 "shared:0,4,8",
                 "cells:8 cores:2 threads:2 mem:8G"]
        flavors = [(1, 512, DED), (3, 2048, DED), (2, 1024, ISO),
                   (2, 1024, dict(DED, **{"hw:cpu_thread_policy": "require"})),
                   (4, 4096, dict(DED, **{"hw:mem_page_size": "1GB"})),
                   (4, 2048, {"hw:numa_nodes": "2"}),
                   (4, 2048, dict(DED, **{"hw:numa_nodes": "2",
                                          "hw:emulator_threads_policy": "isolate"})),
                   (4, 1024, {"hw:cpu_policy": "mixed", "hw:cpu_dedicated_mask": "^0"})]
        reqs = [numafit.Request.from_flavor(v, m, e) for v, m, e in flavors]
        limits = {"cpu_allocation_ratio": 2.0, "ram_allocation_ratio": 1.0}
        fits = 0
        for trial in range(40):
            h = numafit.Host.synthetic(rng.choice(specs))
            mix = [(r, rng.random()) for r in rng.sample(reqs, 3)] if trial % 3 else None
            with numafit.Options(limits, strategy="headroom", mix=mix) as ho, \
                    numafit.Options(limits) as so:
                for step in range(20):
                    r = rng.choice(reqs)
                    a, b = numafit.fit(h, r, so), numafit.fit(h, r, ho)
                    self.assertEqual(a is None, b is None, (trial, step))
                    if b is not None:
                        h.claim(b)
                        fits += 1
        self.assertGreater(fits, 100)

    def test_strategy_and_mix(self):
        h = numafit.Host.synthetic("cells:2 cores:4 threads:2 mem:16G")
        r = numafit.Request.from_flavor(2, 1024, DED)
        with numafit.Options(strategy="headroom", mix=[(r, 2.0)]) as o:
            self.assertEqual(o.mix_size, 1)
            p = numafit.fit(h, r, o)
            self.assertIsNotNone(p)
            h.claim(p)
        self.assertEqual(numafit.headroom(h, [(r, 1)]), [7])
        self.assertEqual(numafit.headroom(h, {r: 1}), [7])
        with self.assertRaises(ValueError):
            numafit.Options(strategy="best")
        flat = numafit.Request.from_flavor(1, 512, {})
        with self.assertRaises(ValueError):  # no NUMA topology: -EINVAL
            numafit.Options(strategy="headroom", mix=[(flat, 1)])
        with self.assertRaises(TypeError):
            numafit.Options(strategy="headroom", mix=[(r, "1")])
        with self.assertRaises(ValueError):  # a negative weight
            numafit.Options(strategy="headroom", mix=[(r, -1)])


def _topology(spec):
    h = numafit.Host.synthetic(spec)
    return objects.NUMATopology.obj_from_primitive(json.loads(h.to_json()))


@unittest.skipUnless(HAVE_NOVA, "nova is not importable")
class HeadroomWeigherInNova(unittest.TestCase):
    def setUp(self):
        classes = weights.HostWeightHandler().get_matching_classes(
            ["numafit.scheduler.NumafitHeadroomWeigher"])
        self.assertEqual([c.__name__ for c in classes], ["NumafitHeadroomWeigher"])
        self.weigher = classes[0]()
        self.handler = weights.HostWeightHandler()
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.addCleanup(scheduler.CONF.clear_override, "numafit_headroom_mix",
                        group="filter_scheduler")

    def _hosts(self):
        # "iso": hyper-threading off, the only kind that takes isolate with
        # cpu_dedicated_set; "big": hyper-threaded, more room but no
        # isolate; "iso" has the most free RAM, so nova's RAM weigher
        # prefers it
        kinds = {
            "iso": ("2x6c 2cells mem:64G shared:0,6 dedicated:1-5,7-11", 65536),
            "big": ("2x8c2t 2cells mem:32G shared:0,8,16,24 "
                    "dedicated:1-7,9-15,17-23,25-31", 32768),
        }
        out = []
        for name, (spec, ram_mb) in kinds.items():
            out.append(fakes.FakeHostState(name, name, {
                "numa_topology": _topology(spec), "free_ram_mb": ram_mb,
                "vcpus_total": 8, "vcpus_used": 0, "cpu_allocation_ratio": 4.0,
                "ram_allocation_ratio": 1.0, "aggregates": []}))
        return out

    def _spec(self, vcpus, mem, specs):
        return objects.RequestSpec(
            flavor=objects.Flavor(vcpus=vcpus, memory_mb=mem, root_gb=0, ephemeral_gb=0, swap=0,
                                  extra_specs=dict(specs)),
            image=objects.ImageMeta.from_dict({"properties": {}}))

    def _mix(self, flavors):
        path = os.path.join(self.tmp.name, "mix.json")
        with open(path, "w") as f:
            json.dump(flavors, f)
        scheduler.CONF.set_override("numafit_headroom_mix", path, group="filter_scheduler")

    def test_option_registered(self):
        self.assertEqual(scheduler.CONF.filter_scheduler.numafit_headroom_weight_multiplier, 1.0)
        hs = self._hosts()[0]
        self.assertEqual(self.weigher.weight_multiplier(hs), 1.0)

    def test_keeps_the_isolate_host(self):
        """A pinned instance goes to the hyper-threaded host: on the other
        it would take cores the scarce isolate flavor needs.  nova's RAM
        weigher chooses the other."""
        self._mix([{"vcpus": 2, "memory_mb": 2048, "extra_specs": ISO, "weight": 1},
                   {"vcpus": 4, "memory_mb": 4096, "extra_specs": DED, "weight": 1}])
        spec = self._spec(4, 4096, DED)
        hosts = self._hosts()
        ranked = self.handler.get_weighed_objects([self.weigher], hosts, spec)
        self.assertEqual([w.obj.host for w in ranked], ["big", "iso"])
        self.assertGreater(ranked[0].weight, ranked[1].weight)
        by_ram = self.handler.get_weighed_objects([ram.RAMWeigher()], hosts, spec)
        self.assertEqual(by_ram[0].obj.host, "iso")
        # the raw weights: minus the cost, 0 where nothing scarce is lost
        raw = self.weigher.weigh_objects([weights.WeighedHost(h, 0.0) for h in hosts], spec)
        self.assertLess(raw[0], raw[1])

    def test_multiplier_from_aggregate(self):
        """The multiplier comes from the option, or from the aggregate
        metadata key of the same name, as nova's weighers' do."""
        hs = self._hosts()[0]
        scheduler.CONF.set_override("numafit_headroom_weight_multiplier", 3.0,
                                    group="filter_scheduler")
        self.addCleanup(scheduler.CONF.clear_override, "numafit_headroom_weight_multiplier",
                        group="filter_scheduler")
        self.assertEqual(self.weigher.weight_multiplier(hs), 3.0)
        hs.aggregates = [objects.Aggregate(
            id=1, name="a", metadata={"numafit_headroom_weight_multiplier": "0.5"})]
        self.assertEqual(self.weigher.weight_multiplier(hs), 0.5)

    def test_default_mix_is_the_flavor(self):
        """Without a mix file the mix is the flavor being scheduled: an
        isolate instance loses isolate capacity on the non-HT host; the
        HT host cannot take it (with cpu_dedicated_set) and gets the
        worst weight."""
        spec = self._spec(2, 2048, ISO)
        hosts = self._hosts()
        raw = self.weigher.weigh_objects([weights.WeighedHost(h, 0.0) for h in hosts], spec)
        # "iso" takes 2 isolate instances per cell (5 dedicated cores each):
        # one of the fleet's 4 is lost, cost 1/4
        self.assertAlmostEqual(raw[0], -0.25)
        self.assertAlmostEqual(raw[1], raw[0])


if __name__ == "__main__":
    unittest.main()
