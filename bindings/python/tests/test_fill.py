"""Host.fill() (numafit_host_fill) and numafit.plan() against a
fit_and_claim() loop written out, on the real-host fixtures."""
import copy
import errno
import os
import unittest

import numafit
from numafit import errors

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))  # from bindings/python/tests
HOSTS = os.path.join(TOP, "tests", "data", "hosts")
FIXTURES = ["e5-2620-ht.json", "rh2288h-v3.json", "sugon-i620-g30.json"]
LIMITS = {"cpu_allocation_ratio": 4.0, "ram_allocation_ratio": 1.0}
FLAVORS = [
    (2, 2048, {"hw:numa_nodes": "1"}),
    (4, 4096, {"hw:cpu_policy": "dedicated"}),
    (4, 4096, {"hw:cpu_policy": "dedicated", "hw:cpu_thread_policy": "isolate"}),
    (2, 1024, {"hw:cpu_policy": "dedicated", "hw:mem_page_size": "large"}),
]


def hand_fill(host, reqs, max_count=None):
    """Round-robin fit_and_claim until each request was refused since the
    last claim: counts per request and the last refusal's code name."""
    counts, nxt, misses, last = [0] * len(reqs), 0, 0, "OK"
    while misses < len(reqs):
        if max_count is not None and sum(counts) == max_count:
            return counts, "OK"
        i, nxt = nxt, (nxt + 1) % len(reqs)
        res = host.try_fit_and_claim(reqs[i], limits=LIMITS)
        if res.placement is None:
            misses += 1
            last = res.code_name
            continue
        counts[i] += 1
        misses = 0
    return counts, last


class Fill(unittest.TestCase):
    def setUp(self):
        self.hosts = {f: numafit.Host.from_file(os.path.join(HOSTS, f)) for f in FIXTURES}
        self.reqs = [numafit.Request.from_flavor(*f) for f in FLAVORS]

    def test_alone_matches_loop(self):
        for name, orig in self.hosts.items():
            for k, req in enumerate(self.reqs):
                with self.subTest(host=name, flavor=k):
                    a, b = copy.copy(orig), copy.copy(orig)
                    want, code = hand_fill(a, [req])
                    res = b.fill(req, limits=LIMITS)
                    self.assertEqual(res.counts, want)
                    self.assertEqual(res.stop, "full")
                    self.assertEqual(res.code_name, code)
                    self.assertTrue(res.code_name.startswith("NOFIT"))
                    self.assertEqual(res.placements, [])
                    self.assertEqual(res.order, [0] * want[0])
                    self.assertEqual(a, b)

    def test_round_robin_matches_loop(self):
        for name, orig in self.hosts.items():
            with self.subTest(host=name):
                a, b = copy.copy(orig), copy.copy(orig)
                want, code = hand_fill(a, self.reqs)
                res = b.fill(self.reqs, limits=LIMITS)
                self.assertEqual(res.counts, want)
                self.assertEqual(res.code_name, code)
                self.assertEqual(a, b)
                a, b = copy.copy(orig), copy.copy(orig)
                want, _ = hand_fill(a, self.reqs, max_count=5)
                res = b.fill(self.reqs, limits=LIMITS, max_count=5)
                self.assertEqual(res.counts, want)
                self.assertEqual(res.stop, "max" if sum(want) == 5 else "full")
                self.assertEqual(a, b)

    def test_keep_and_plan(self):
        orig = self.hosts["e5-2620-ht.json"]
        h = copy.copy(orig)
        res = h.fill(self.reqs[1], keep=True)
        self.assertEqual(len(res.placements), res.counts[0])
        self.assertGreater(res.counts[0], 1)
        pins = [c for p in res.placements for c in p.pinning.values()]
        self.assertEqual(len(pins), len(set(pins)))
        # the first placement is the fit on the host as it was
        self.assertEqual(res.placements[0].cells, numafit.fit(orig, self.reqs[1]).cells)
        # plan() is the same fill
        ps = numafit.plan(copy.copy(orig), self.reqs[1])
        self.assertEqual([p.cells for p in ps], [p.cells for p in res.placements])
        ps = numafit.plan(copy.copy(orig), self.reqs[1], max_count=2)
        self.assertEqual([p.cells for p in ps], [p.cells for p in res.placements[:2]])
        # the same request twice is fine
        res2 = copy.copy(orig).fill([self.reqs[1], self.reqs[1]])
        self.assertEqual(sum(res2.counts), res.counts[0])

    def test_refused_first_leaves_host(self):
        h = copy.copy(self.hosts["e5-2620-ht.json"])
        before = h.to_json()
        big = numafit.Request.from_flavor(64, 1024, {"hw:cpu_policy": "dedicated"})
        res = h.fill(big)
        self.assertEqual(res.counts, [0])
        self.assertEqual(res.stop, "full")
        self.assertEqual(res.code_name, "NOFIT_CPU")
        self.assertTrue(res.text)
        self.assertEqual(h.to_json(), before)
        self.assertEqual(numafit.plan(h, big), [])
        res = h.fill(self.reqs[1], max_count=0)
        self.assertEqual((res.counts, res.stop, res.code_name), ([0], "max", "OK"))
        self.assertEqual(h.to_json(), before)

    def test_too_complex(self):
        h = numafit.Host.from_file(os.path.join(HOSTS, "epyc-24node.json"))
        before = h.to_json()
        req = numafit.Request.from_flavor(8, 8192, {"hw:cpu_policy": "dedicated",
                                                    "hw:numa_nodes": "4"})
        res = h.fill(req, budget=1)
        self.assertEqual((res.counts, res.stop, res.code_name), ([0], "full", "TOO_COMPLEX"))
        with self.assertRaises(errors.NumafitError) as cm:
            numafit.plan(h, req, budget=1)
        self.assertEqual(cm.exception.errno, errno.E2BIG)
        self.assertEqual(h.to_json(), before)

    def test_arguments(self):
        h = copy.copy(self.hosts["e5-2620-ht.json"])
        with self.assertRaises(TypeError):
            h.fill("not a request")
        with self.assertRaises(TypeError):
            h.fill([self.reqs[0], None])
        with self.assertRaises(ValueError):
            h.fill([])
        for n in (-1, 2**64):
            with self.subTest(max_count=n), self.assertRaises(ValueError):
                h.fill(self.reqs[0], max_count=n)
        for n in (1.5, True, "1"):
            with self.subTest(max_count=n), self.assertRaises(TypeError):
                h.fill(self.reqs[0], max_count=n)
        with self.assertRaises(TypeError):
            h.fill(self.reqs[0], keep=1)
        with self.assertRaises(ValueError):
            h.fill(self.reqs[0], strategy="random")
        flat = numafit.Request.from_flavor(1, 512, {})
        with self.assertRaises(errors.NumafitError) as cm:
            h.fill(flat)
        self.assertEqual(cm.exception.errno, errno.EINVAL)
        self.assertEqual(h, self.hosts["e5-2620-ht.json"])
        h.close()
        with self.assertRaises(errors.ClosedError):
            h.fill(self.reqs[0])


if __name__ == "__main__":
    unittest.main()
