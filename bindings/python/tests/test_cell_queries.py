"""The per-cell queries of numafit.Host, Request.page_size and
Host.set_cpu_pools(): what they give on known hosts, and their argument
checks."""
import unittest

import numafit
from numafit import errors

SYN = "cells:2 cores:4 threads:2 mem:16G pages:2M=1024"
DEDICATED = {"hw:cpu_policy": "dedicated"}


def cell_data(host, index):
    return host.to_dict()["nova_object.data"]["cells"][index]["nova_object.data"]


class CellQueries(unittest.TestCase):
    def setUp(self):
        self.host = numafit.Host.synthetic(SYN)

    def test_stats_of_a_fresh_host(self):
        # 4 cores of 2 threads a cell, every CPU in both pools (legacy mode)
        st = self.host.cell_stats(1)
        self.assertEqual(st, {"shared_cpus": 8, "dedicated_cpus": 8, "pinned_cpus": 0,
                              "free_pcpus": 8, "cores": 4, "free_cores": 4,
                              "partial_cores": 0, "partial_free_pcpus": 0,
                              "threads_per_core": 2, "cpu_usage": 0, "memory_mb": 16384,
                              "memory_used_mb": 0, "socket": 1, "page_sizes": 2,
                              "sibling_sets": 4})
        self.assertEqual(list(st), list(numafit.host.CELL_STATS))
        for name, value in st.items():
            self.assertEqual(self.host.cell_stat(1, name), value, name)

    def test_stats_follow_claims(self):
        p = numafit.fit(self.host, numafit.Request.from_flavor(3, 2048, DEDICATED))
        self.assertIsNotNone(p)
        self.host.claim(p)
        i = self.host.cell_ids.index(p.cells[0]["id"])
        st = self.host.cell_stats(i)
        self.assertEqual(st["pinned_cpus"], 3)
        self.assertEqual(st["free_pcpus"], 5)
        self.assertEqual(st["memory_used_mb"], 2048)
        # 3 threads on 2-thread cores: one core full, one half used
        self.assertEqual((st["free_cores"], st["partial_cores"], st["partial_free_pcpus"]),
                         (2, 1, 1))
        self.assertEqual(self.host.cell_cpus(i, "pinned"), set(p.pinning.values()))
        self.assertEqual(self.host.cell_cpus(i, "free"),
                         self.host.cell_cpus(i, "dedicated") - set(p.pinning.values()))
        self.host.release(p)
        self.assertEqual(self.host.cell_stat(i, "pinned_cpus"), 0)
        self.assertEqual(self.host.cell_cpus(i, "pinned"), set())

    def test_sets_match_the_json(self):
        for i in range(len(self.host)):
            c = cell_data(self.host, i)
            self.assertEqual(self.host.cell_cpus(i), set(c["cpuset"]))
            self.assertEqual(self.host.cell_cpus(i, "shared"), set(c["cpuset"]))
            self.assertEqual(self.host.cell_cpus(i, "dedicated"), set(c["pcpuset"]))
            self.assertEqual(self.host.cell_siblings(i), [set(s) for s in c["siblings"]])
            pages = [(m["nova_object.data"]["size_kb"], m["nova_object.data"]["total"],
                      m["nova_object.data"]["used"], m["nova_object.data"]["reserved"])
                     for m in c["mempages"]]
            got = self.host.cell_pages(i)
            self.assertEqual([tuple(pg) for pg in got], pages)
            self.assertEqual([pg.size_kb for pg in got], [4, 2048])
            self.assertEqual(got[1].total, 1024)

    def test_unknown_socket_and_no_siblings(self):
        d = self.host.to_dict()
        for c in d["nova_object.data"]["cells"]:
            c["nova_object.data"]["socket"] = None
            c["nova_object.data"]["siblings"] = []
        h = numafit.Host.from_json(d)
        self.assertIsNone(h.cell_stat(0, "socket"))
        self.assertIsNone(h.cell_stats(0)["socket"])
        self.assertEqual(h.cell_siblings(0), [])
        self.assertEqual(h.cell_stat(0, "threads_per_core"), 1)
        self.assertEqual(h.cell_stat(0, "cores"), 8)  # one core per dedicated CPU

    def test_arguments(self):
        h = self.host
        for call in (lambda i: h.cell_stat(i, "cores"), h.cell_stats, h.cell_pages,
                     h.cell_cpus, h.cell_siblings):
            with self.assertRaises(IndexError):
                call(2)
            with self.assertRaises(errors.RangeError):
                call(-1)
            with self.assertRaises(errors.RangeError):
                call(1 << 32)
            for bad in (True, 0.0, "0", None):
                with self.assertRaises(TypeError):
                    call(bad)
        with self.assertRaises(ValueError):
            h.cell_stat(0, "nope")
        with self.assertRaises(ValueError):
            h.cell_stat(0, "cores\0")
        with self.assertRaises(TypeError):
            h.cell_stat(0, 4)  # names, not the C enum
        with self.assertRaises(ValueError):
            h.cell_cpus(0, "isolated")
        with self.assertRaises(TypeError):
            h.cell_cpus(0, b"shared")

    def test_closed(self):
        h = self.host
        h.close()
        for call in (lambda: h.cell_stat(0, "cores"), lambda: h.cell_stats(0),
                     lambda: h.cell_pages(0), lambda: h.cell_cpus(0),
                     lambda: h.cell_siblings(0), lambda: h.set_cpu_pools({})):
            with self.assertRaises(errors.ClosedError):
                call()


class CpuPools(unittest.TestCase):
    def test_split(self):
        h = numafit.Host.synthetic(SYN)
        before = h.cell_siblings(0)
        h.set_cpu_pools({"cpu_dedicated_set": "0-3,8-11", "cpu_shared_set": "4-7,12-15"})
        self.assertEqual(h.cell_cpus(0, "dedicated"), {0, 1, 2, 3, 8, 9, 10, 11})
        self.assertEqual(h.cell_cpus(0, "shared"), set())
        self.assertEqual(h.cell_cpus(1, "dedicated"), set())
        self.assertEqual(h.cell_cpus(1, "shared"), {4, 5, 6, 7, 12, 13, 14, 15})
        self.assertEqual(h.cell_siblings(0), before)
        # a HostConf object does the same; none of the options: legacy mode again
        h.set_cpu_pools(numafit.HostConf())
        self.assertEqual(h, numafit.Host.synthetic(SYN))

    def test_nova_conf(self):
        # the same split from a nova.conf text, in oslo.config's spellings
        text = ("[DEFAULT]\n# pools\n[compute]\ncpu_dedicated_set = 0-3,8-11\n"
                "cpu_shared_set: '4-7,12-15'\n")
        h = numafit.Host.synthetic(SYN)
        h.set_cpu_pools(numafit.HostConf.from_nova_conf(text))
        self.assertEqual(h.cell_cpus(0, "dedicated"), {0, 1, 2, 3, 8, 9, 10, 11})
        self.assertEqual(h.cell_cpus(1, "shared"), {4, 5, 6, 7, 12, 13, 14, 15})
        with self.assertRaises(errors.ParseError) as cm:
            numafit.HostConf.from_nova_conf("[compute]\ncpu_dedicated_set = 0-3\nnot an option\n")
        self.assertIn("line 3", str(cm.exception))
        with self.assertRaises(errors.InvalidArgument):
            numafit.HostConf.from_nova_conf("[compute]\ncpu_dedicated_set = 0-3\0")

    def test_refusals_leave_the_host_unchanged(self):
        h = numafit.Host.synthetic(SYN)
        p = numafit.fit(h, numafit.Request.from_flavor(2, 512, DEDICATED))
        h.claim(p)
        before = h.to_json()
        with self.assertRaises(errors.Invalid):  # CPUs the host does not have
            h.set_cpu_pools({"cpu_dedicated_set": "0-99"})
        self.assertEqual(h.to_json(), before)
        pinned = set(p.pinning.values())
        rest = sorted(set(range(16)) - pinned)
        with self.assertRaises(errors.CPUPinningInvalid):
            h.set_cpu_pools({"cpu_dedicated_set": numafit.format_cpu_spec(rest[:2]),
                             "cpu_shared_set": numafit.format_cpu_spec(sorted(pinned))})
        self.assertEqual(h.to_json(), before)

    def test_arguments(self):
        h = numafit.Host.synthetic(SYN)
        with self.assertRaises(TypeError):
            h.set_cpu_pools(None)
        with self.assertRaises(TypeError):
            h.set_cpu_pools("0-3")
        with self.assertRaises(ValueError):
            h.set_cpu_pools({"cpu_dedicated_set": "0-3\0"})
        conf = numafit.HostConf(cpu_dedicated_set="0-3")
        conf.close()
        with self.assertRaises(errors.ClosedError):
            h.set_cpu_pools(conf)


class PageSize(unittest.TestCase):
    def page_size(self, extra_specs=None, image_properties=None):
        return numafit.Request.from_flavor(2, 1024, extra_specs, image_properties).page_size

    def test_values(self):
        self.assertIsNone(self.page_size())
        self.assertEqual(self.page_size({"hw:mem_page_size": "small"}), "small")
        self.assertEqual(self.page_size({"hw:mem_page_size": "large"}), "large")
        self.assertEqual(self.page_size({"hw:mem_page_size": "any"}), "any")
        self.assertEqual(self.page_size({"hw:mem_page_size": "2MB"}), 2048)
        self.assertEqual(self.page_size({"hw:mem_page_size": "1GB"}), 1048576)
        # the image refines "large" or "any" of the flavor
        self.assertEqual(self.page_size({"hw:mem_page_size": "large"},
                                        {"hw_mem_page_size": "2048"}), 2048)

    def test_closed(self):
        r = numafit.Request.from_flavor(2, 1024)
        r.close()
        with self.assertRaises(errors.ClosedError):
            r.page_size


if __name__ == "__main__":
    unittest.main()
