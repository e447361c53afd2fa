"""numafit.nova against nova's own functions (Debian 12's nova 26.2.2, the
"zed" profile) on random scenarios.

Scenarios come from tests/nova_fit_diff.py's generators (hosts, flavors,
images, limits).  For each:
* numa_get_constraints: same InstanceNUMATopology, or the same exception
  class;
* numa_fit_instance_to_host: the same answer as nova's intended semantics
  (tests/nova_fit_diff.py reference_fit: nova's per-cell rules on unmodified
  copies, no fit cache), compared as nova_fit_diff compares (same host
  cells, memory, page sizes, physical cores); where nova's own claim
  refuses nova's fit, the adapter must give no fit or a placement nova's
  claim accepts; the instance topology passed in must not be modified;
* the INFO lines nova logs for a pinning ("Computed NUMA topology CPU
  pinning: ..."): where the adapter's pinning is nova's, the adapter logs
  one of nova's lines;
* numa_usage_from_instance_numa: the same host usage as nova's on the
  adapter's placement (pinned CPUs, cpu/memory usage, pages), and free=True
  restores the host.
Skipped when nova cannot be imported.  NUMAFIT_ADAPTER_CASES sets the number
of scenarios (default 500), NUMAFIT_ADAPTER_SEED the seed.
"""
import copy
import json
import logging
import os
import random
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))  # from bindings/python/tests
sys.path.insert(0, os.path.join(TOP, "tests"))  # nova_fit_diff

try:
    import nova.virt.hardware  # noqa: F401
    import nova_fit_diff as nfd
    HAVE_NOVA = True
except (ImportError, SystemExit):
    HAVE_NOVA = False

import numafit
import numafit.nova as nn

CASES = int(os.environ.get("NUMAFIT_ADAPTER_CASES", "500"))
SEED = int(os.environ.get("NUMAFIT_ADAPTER_SEED", "20261130"))


def prim(o):
    return None if o is None else nfd.strip_changes(o.obj_to_primitive())


def unordered_changes(text):
    """A column text parsed, each "nova_object.changes" list sorted."""
    def walk(x):
        if isinstance(x, dict):
            return {k: sorted(v) if k == "nova_object.changes" else walk(v)
                    for k, v in x.items()}
        if isinstance(x, list):
            return [walk(v) for v in x]
        return x
    return walk(json.loads(text))


def pins(host, inst):
    """The adapter's fit of inst on host: per guest cell its host cell id
    and the sorted pCPUs, or None."""
    got = nn.numa_fit_instance_to_host(host, inst)
    return None if got is None else [(c.id, sorted(c.cpu_pinning.values())) for c in got.cells]


class PinningLines(logging.Handler):
    """The messages nova.virt.hardware's logger takes at INFO while in the
    with block (a list)."""

    def __enter__(self):
        logging.Handler.__init__(self, logging.INFO)
        self.lines = []
        self.logger = logging.getLogger("nova.virt.hardware")
        self.saved_level = self.logger.level
        self.logger.setLevel(logging.INFO)
        self.logger.addHandler(self)
        return self.lines

    def emit(self, record):
        if record.levelno == logging.INFO:
            self.lines.append(record.getMessage())

    def __exit__(self, *exc):
        self.logger.removeHandler(self)
        self.logger.setLevel(self.saved_level)


@unittest.skipUnless(HAVE_NOVA, "nova is not importable")
class AdapterAgainstNova(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        nn.unpatch()  # compare with nova's own functions
        cls.hw = nfd.hardware
        cls.objects = nfd.objects
        # check every fast conversion (host JSON from the objects' storage,
        # result cells built without their constructor) against the slow one
        nn._VERIFY = True

    @classmethod
    def tearDownClass(cls):
        nn._VERIFY = False

    def test_numa_get_constraints(self):
        rng = random.Random(SEED)
        agree = 0
        for i in range(CASES):
            kind = rng.choice(["random", "cache", "small", "big"])
            flavor, image = nfd.gen_flavor(rng, kind)
            fl = self.objects.Flavor(vcpus=flavor["vcpus"], memory_mb=flavor["memory_mb"],
                                     extra_specs=dict(flavor["extra_specs"]))
            im = self.objects.ImageMeta.from_dict(copy.deepcopy(image))

            def run(f):
                try:
                    return prim(f(copy.deepcopy(fl), copy.deepcopy(im)))
                except Exception as e:
                    return type(e).__name__
            want, got = run(self.hw.numa_get_constraints), run(nn.numa_get_constraints)
            if isinstance(want, dict):
                want = canon_request(want)
                got = canon_request(got) if isinstance(got, dict) else got
            self.assertEqual(want, got, "case %d: flavor %s image %s" % (i, flavor, image))
            agree += 1
        self.assertEqual(agree, CASES)

    def test_pci_devices(self):
        """numa_fit_instance_to_host with nova's pci_stats and pci_requests,
        against nova's own; host_fits with pools (no requests) answers."""
        from nova.pci import stats
        o = self.objects

        def cell(i, cpus):
            return o.NUMACell(
                id=i, cpuset=set(), pcpuset=set(cpus), memory=4096, cpu_usage=0,
                memory_usage=0, pinned_cpus=set(), socket=i,
                siblings=[{c} for c in cpus],
                mempages=[o.NUMAPagesTopology(size_kb=4, total=1048576, used=0)],
                network_metadata=o.NetworkMetadata(physnets=set(), tunneled=False))
        host = o.NUMATopology(cells=[cell(0, [0, 1, 2, 3]), cell(1, [4, 5, 6, 7]),
                                     cell(2, [8, 9, 10, 11])])
        inst = o.InstanceNUMATopology(cells=[o.InstanceNUMACell(
            id=0, cpuset=set(), pcpuset={0, 1}, memory=512, cpu_policy="dedicated")])
        pools = o.PciDevicePoolList(objects=[
            o.PciDevicePool(vendor_id="8086", product_id="154c", numa_node=0, count=2,
                            tags={"dev_type": "type-VF"}),
            o.PciDevicePool(vendor_id="10de", product_id="1eb8", numa_node=2, count=1,
                            tags={"dev_type": "type-PCI"})])
        ps = stats.PciDeviceStats(host, stats=pools)
        t4 = [o.InstancePCIRequest(count=1, spec=[{"vendor_id": "10de"}],
                                   numa_policy="required")]
        two = [o.InstancePCIRequest(count=2, spec=[{"vendor_id": "10de"}])]
        for reqs, want in ((None, 1), (t4, 2), (two, None)):
            mine = nn.numa_fit_instance_to_host(host, inst, None, reqs, ps)
            theirs = self.hw.numa_fit_instance_to_host(copy.deepcopy(host),
                                                       copy.deepcopy(inst), None, reqs, ps)
            self.assertEqual(None if mine is None else mine.cells[0].id, want)
            self.assertEqual(prim(mine), prim(theirs))
        # the requests read from the objects' storage, as from nova's primitive
        from numafit.nova import hardware as nh
        many = t4 + two + [o.InstancePCIRequest(count=1, spec=[{"physical_network": "p1"}],
                                                alias_name=None, request_id="r",
                                                requester_id="port1", is_new=True)]
        with nh._requests_of(many) as fast, numafit.PciRequests.from_json(
                o.InstancePCIRequests(requests=many).obj_to_primitive()) as slow:
            self.assertEqual(fast.to_json(), slow.to_json())
        # pools and requests are cached by content, never by object: nova
        # changes both in place
        self.assertEqual(nn.numa_fit_instance_to_host(host, inst, None, t4, ps).cells[0].id, 2)
        t4_pool = [p for p in ps.pools if p["vendor_id"] == "10de"][0]
        t4_pool["count"] = 0
        self.assertIsNone(nn.numa_fit_instance_to_host(host, inst, None, t4, ps))
        t4_pool["count"] = 1
        self.assertEqual(nn.numa_fit_instance_to_host(host, inst, None, t4, ps).cells[0].id, 2)
        t4[0].spec[0]["vendor_id"] = "8086"  # now the VFs on cell 0
        self.assertEqual(nn.numa_fit_instance_to_host(host, inst, None, t4, ps).cells[0].id, 0)
        t4[0].spec[0]["vendor_id"] = "10de"
        # keys tell True from 1 (equal in Python, not in the JSON)
        self.assertNotEqual(nh._pools_key([{"count": 1}]), nh._pools_key([{"count": True}]))
        self.assertNotEqual(nh._pools_key([{1: "a"}]), nh._pools_key([{True: "a"}]))
        r1 = o.InstancePCIRequest(count=1, spec=[{"vendor_id": "10de"}])
        r2 = o.InstancePCIRequest(count=1, spec=[{"vendor_id": "10de"}])
        self.assertEqual(nh._requests_key([r1]), nh._requests_key([r2]))
        r2.is_new = True
        self.assertNotEqual(nh._requests_key([r1]), nh._requests_key([r2]))
        r1.spec[0]["x"] = "1"
        self.assertNotEqual(nh._requests_key([r1]), nh._requests_key([r2]))
        # a pool holding its devices (a compute node's) is keyed by its text
        self.assertIsNone(nh._pools_key([{"count": 1, "devices": []}]))
        # the answer alone: the pools only order the cells
        self.assertIs(nn.host_fits(host, inst, 1.0, 1.0, None, ps), True)
        for c in host.cells:
            c.pinned_cpus = set(c.pcpuset)
        self.assertIs(nn.host_fits(host, inst, 1.0, 1.0, None, ps), False)
        self.assertIsNone(nn.numa_fit_instance_to_host(host, inst, None, None, ps))

    def test_pinning_log_lines(self):
        """nova's INFO lines for a pinning, where the random scenarios
        rarely go: the linear fallback (no core has enough free threads),
        isolate, and emulator threads on a reserved pCPU."""
        o = self.objects

        def host(siblings, pinned, legacy=False):
            # (isolate on a host with threads: nova wants vcpu_pin_set's
            # cells, whose cpuset and pcpuset are the same)
            cpus = set().union(*siblings)
            return o.NUMATopology(cells=[o.NUMACell(
                id=0, cpuset=set(cpus) if legacy else set(), pcpuset=cpus, memory=4096, cpu_usage=0,
                memory_usage=0, pinned_cpus=set(pinned), siblings=siblings,
                mempages=[o.NUMAPagesTopology(size_kb=4, total=1048576, used=0)])])

        def request(n, policy=None, emulator=None):
            return o.InstanceNUMATopology(emulator_threads_policy=emulator, cells=[
                o.InstanceNUMACell(id=0, cpuset=set(), pcpuset=set(range(n)), memory=1024,
                                   cpu_policy="dedicated", cpu_thread_policy=policy)])
        cases = [
            # free {1}, {4, 5}: no N gives 3 threads, so the linear fallback
            (host([{0, 1}, {2, 3}, {4, 5}], {0, 2, 3}), request(3),
             ["Computed NUMA topology CPU pinning: usable pCPUs: [[1], [4], [5]], "
              "vCPUs mapping: [(0, 1), (1, 4), (2, 5)]"]),
            (host([{0, 1}, {2, 3}, {4, 5}], {0}, legacy=True), request(2, "isolate"),
             ["Computed NUMA topology CPU pinning: usable pCPUs: [[2], [4]], "
              "vCPUs mapping: [(0, 2), (1, 4)]"]),
            (host([{0, 1}, {2, 3}, {4, 5}], {0}), request(2, None, "isolate"),
             ["Computed NUMA topology CPU pinning: usable pCPUs: [[2, 3], [4, 5]], "
              "vCPUs mapping: [(0, 2), (1, 3)]",
              "Computed NUMA topology reserved pCPUs: usable pCPUs: [[1], [], [4, 5]], "
              "reserved pCPUs: {1}"]),
        ]
        for h, r, want in cases:
            with PinningLines() as nova_lines:
                self.hw.numa_fit_instance_to_host(h, copy.deepcopy(r))
            with PinningLines() as ours:
                got = nn.numa_fit_instance_to_host(h, r)
            self.assertIsNotNone(got, (nova_lines, r))
            self.assertEqual(want, ours)
            for line in ours:
                self.assertIn(line, nova_lines)

    def test_fit_and_usage(self):
        self.run_profile(None, nfd.NoPatch(), SEED + 1)

    def test_fit_and_usage_latest(self):
        """profile "latest": nova's functions with upstream master's rule
        changes (nova_fit_diff.LatestRules) as the reference."""
        nn.set_profile("latest")
        try:
            self.run_profile("latest", nfd.LatestRules().patch(), SEED + 2)
        finally:
            nn.set_profile(None)

    def run_profile(self, name, rules, seed):
        rng = random.Random(seed)
        st = nfd.Stats()
        counts = {"fit": 0, "nofit": 0, "unclaimable reference": 0,
                  "impossible reference": 0}
        for s in nfd.gen_scenarios(rng, CASES, st):
            host, req, limits = s["host"], s["req"], s["limits"]
            nfd.CONF.set_override("packing_host_numa_cells_allocation_strategy", s["pack"],
                                  group="compute")
            try:
                with self.subTest(case=s["index"], repro=nfd.scenario_line(s)):
                    with rules:
                        self.check_one(host, req, limits, counts, rules)
            finally:
                nfd.CONF.clear_override("packing_host_numa_cells_allocation_strategy",
                                        group="compute")
        sys.stderr.write("\nadapter vs nova (%s): %s\n" % (name or nn.profile(), counts))
        self.assertGreater(counts["fit"], CASES // 10)

    def check_one(self, host, req, limits, counts, rules):
        before = prim(req)
        with PinningLines() as nova_lines:
            ref = nfd.reference_fit(host, req, limits)
        with PinningLines() as our_lines:
            got = nn.numa_fit_instance_to_host(host, req, limits)
        self.assertEqual(before, prim(req), "the request was modified")
        cref, cgot = nfd.canon_nova_topology(ref), nfd.canon_nova_topology(got)
        if cref is not None and nfd.placement_problems(host, cref):
            counts["impossible reference"] += 1
            if cgot is not None:
                self.assertEqual([], nfd.placement_problems(host, cgot))
            return
        if ref is not None and nfd.nova_claim_refuses(host, ref, rules):
            counts["unclaimable reference"] += 1
            if got is not None:
                nfd.nova_claim(host, got)  # must not raise
            return
        self.assertEqual([], nfd.compare_fit(host, cref, cgot))
        if got is None:
            counts["nofit"] += 1
            return
        counts["fit"] += 1
        # nova's INFO lines for the pinning (numafit.nova.pinlog): where
        # the pinning is nova's, the adapter logs one of nova's lines
        pinned = [c for c in got.cells if c.cpu_pinning]
        self.assertEqual(len(pinned), sum(1 for m in our_lines if "CPU pinning" in m))
        ref_cells = {c.id: c for c in ref.cells}
        for c, line in zip(pinned, [m for m in our_lines if "CPU pinning" in m]):
            rc = ref_cells.get(c.id)
            if rc is not None and rc.cpu_pinning == c.cpu_pinning:
                self.assertIn(line, nova_lines)
                counts["pinning logged as nova"] = counts.get("pinning logged as nova", 0) + 1
            if rc is not None and rc.cpuset_reserved == c.cpuset_reserved and c.cpuset_reserved \
                    and rc.cpu_pinning == c.cpu_pinning:
                mine = [m for m in our_lines if "reserved pCPUs" in m]
                self.assertTrue(mine and all(m in nova_lines for m in mine), (mine, nova_lines))
                counts["reserved logged as nova"] = counts.get("reserved logged as nova", 0) + 1
        if any(not c.mempages for c in host.cells):
            return  # Zed's claim crashes without mempages (IndexError)
        want = nfd.nova_claim(host, got)
        mine = nn.numa_usage_from_instance_numa(host, got)
        self.assertEqual(usage(want), usage(mine))
        # the claim starts from the host model the fit cached: the whole
        # result equals a claim on the host read afresh from its primitive
        with numafit.Host.from_json(host.obj_to_primitive()) as h, \
                numafit.Placement.from_json(got.obj_to_primitive()) as p:
            h.claim(p)
            afresh = self.objects.NUMATopology.obj_from_primitive(h.to_dict())
        # equal values (sets as sets: the result keeps the host's set
        # iteration order, a primitive lists sets in that order)
        self.assertEqual(nn.convert._usage_values(afresh), nn.convert._usage_values(mine))
        # the changed fields nova's own result has (the resource tracker
        # stores them in the JSON)
        self.assertEqual([c.obj_what_changed() for c in want.cells],
                         [c.obj_what_changed() for c in mine.cells])
        back = nn.numa_usage_from_instance_numa(mine, got, free=True)
        self.assertEqual(usage(host), usage(back))


@unittest.skipUnless(HAVE_NOVA, "nova is not importable")
class Patching(unittest.TestCase):
    def tearDown(self):
        nn.unpatch()

    def test_patch_unpatch(self):
        hw = nfd.hardware
        orig = {n: getattr(hw, n) for n in nn.FUNCTIONS}
        self.assertEqual(set(nn.FUNCTIONS) - set(nn.DEFAULT_FUNCTIONS),
                         {"parse_cpu_spec", "format_cpu_spec", "_numa_fit_instance_cell",
                          "numa_get_constraints", "get_cpu_topology_constraints"})
        topo = nfd.objects.NUMATopology
        orig_methods = {n: topo.__dict__[n.split(".")[1]] for n in nn.METHODS}
        replaced = nn.patch()
        self.assertEqual(sorted(replaced), sorted(nn.DEFAULT_FUNCTIONS + nn.METHODS))
        for n in nn.FUNCTIONS:
            if n in nn.DEFAULT_FUNCTIONS:
                self.assertIs(getattr(hw, n), getattr(nn, n))
            else:
                self.assertIs(getattr(hw, n), orig[n])
        for n in nn.METHODS:
            self.assertIsNot(topo.__dict__[n.split(".")[1]], orig_methods[n])
        self.assertEqual(nn.patch(), replaced)  # idempotent
        self.assertTrue(nn.patched())
        self.assertEqual(sorted(nn.unpatch()), sorted(nn.DEFAULT_FUNCTIONS + nn.METHODS))
        # any of FUNCTIONS on request
        self.assertEqual(nn.patch(names=nn.FUNCTIONS), list(nn.FUNCTIONS))
        self.assertIs(hw.parse_cpu_spec, nn.parse_cpu_spec)
        self.assertEqual(sorted(nn.unpatch()), sorted(nn.FUNCTIONS))
        for n in nn.FUNCTIONS:
            self.assertIs(getattr(hw, n), orig[n])
        for n in nn.METHODS:
            self.assertIs(topo.__dict__[n.split(".")[1]], orig_methods[n])
        self.assertFalse(nn.patched())

    def test_nova_exceptions(self):
        from nova import exception
        fl = nfd.objects.Flavor(vcpus=3, memory_mb=1024, extra_specs={"hw:numa_nodes": "2"})
        im = nfd.objects.ImageMeta.from_dict({"properties": {}})
        with self.assertRaises(exception.ImageNUMATopologyAsymmetric):
            nn.numa_get_constraints(fl, im)
        with self.assertRaises(exception.Invalid):
            nn.parse_cpu_spec("1-")
        with self.assertRaises(exception.Invalid):
            nn.parse_cpu_spec("0-99999999")  # no gigabytes allocated
        fl = nfd.objects.Flavor(vcpus=2, memory_mb=1024,
                                extra_specs={"hw:numa_nodes": "1", "hw:numa_mem.0": "abc",
                                             "hw:numa_cpus.0": "0-1"})
        # nova crashes with a bare ValueError (nova-reference A.4); the library
        # refuses the flavor as an invalid request
        with self.assertRaises(exception.InvalidRequest):
            nn.numa_get_constraints(fl, im)

    def test_provider_mapping_without_pci(self):
        """nova's scheduler passes provider_mapping on every call; without
        PCI requests it changes nothing and the library answers."""
        o = nfd.objects
        cell = o.NUMACell(id=0, cpuset=set(), pcpuset={0, 1, 2, 3}, memory=4096, cpu_usage=0,
                          memory_usage=0, pinned_cpus=set(), siblings=[{0}, {1}, {2}, {3}],
                          mempages=[o.NUMAPagesTopology(size_kb=4, total=1048576, used=0,
                                                        reserved=0)],
                          socket=0)
        host = o.NUMATopology(cells=[cell])
        fl = o.Flavor(vcpus=2, memory_mb=1024, extra_specs={"hw:cpu_policy": "dedicated"})
        im = o.ImageMeta.from_dict({"properties": {}})
        inst = nn.numa_get_constraints(fl, im)
        before = dict(nn.stats)
        got = nn.numa_fit_instance_to_host(host, inst, provider_mapping={"port-1": ["rp-1"]})
        self.assertIsNotNone(got)
        self.assertEqual(dict(got.cells[0].cpu_pinning), {0: 0, 1: 1})
        self.assertEqual(nn.stats["library"], before["library"] + 1)
        self.assertEqual(nn.stats["fallback"], before["fallback"])

    def test_cpu_topology(self):
        fl = nfd.objects.Flavor(vcpus=8, memory_mb=1024, extra_specs={"hw:cpu_max_sockets": "2"})
        im = nfd.objects.ImageMeta.from_dict({"properties": {"hw_cpu_threads": 2}})
        want = self.hw_call("get_best_cpu_topology", fl, im)
        self.assertEqual(prim(want), prim(nn.get_best_cpu_topology(fl, im)))
        want = self.hw_call("_get_desirable_cpu_topologies", fl, im)
        self.assertEqual([prim(t) for t in want],
                         [prim(t) for t in nn._get_desirable_cpu_topologies(fl, im)])
        # get_cpu_topology_constraints: the same integers (huge ones too) or
        # the same nova exception class
        big = "9" * 40
        for es, props in [({}, {}), ({"hw:cpu_max_sockets": "2", "hw:cpu_cores": "4"},
                                     {"hw_cpu_threads": 2}),
                          ({"hw:cpu_max_cores": big, "hw:cpu_sockets": "-" + big}, {}),
                          ({}, {"hw_cpu_max_threads": int(big), "hw_cpu_threads": int(big)}),
                          ({"hw:cpu_sockets": "1_0", "hw:cpu_max_sockets": " 8 "}, {}),
                          ({"hw:cpu_max_cores": "2"}, {"hw_cpu_max_cores": 4}),
                          ({}, {"hw_cpu_max_cores": 2, "hw_cpu_cores": 3}),
                          ({"hw:cpu_threads": "x"}, {})]:
            fl = nfd.objects.Flavor(vcpus=8, memory_mb=1024, extra_specs=es)
            im = nfd.objects.ImageMeta.from_dict({"properties": props})

            def run(f):
                try:
                    return [prim(t) for t in f(fl, im)]
                except Exception as e:
                    return type(e)
            want = run(nn._original("get_cpu_topology_constraints"))
            self.assertEqual(want, run(nn.get_cpu_topology_constraints), (es, props))
        self.assertEqual(nn.format_cpu_spec({1, 2, 3, 7}), "1-3,7")
        self.assertEqual(nn.format_cpu_spec({1, 2, 3}, allow_ranges=False), "1,2,3")

    def test_column_read_and_written_as_nova(self):
        """NUMATopology.obj_from_db_obj and _to_json (numafit.nova.column)
        give nova's objects (storage, collections, VERSION, changed fields)
        and nova's text, byte for byte, on random hosts, on hosts after a
        claim (changed fields set) and on the real-host fixtures; unusual
        input gives nova's answer or nova's exception."""
        from numafit.nova import column
        topo = nfd.objects.NUMATopology
        own_read = topo.__dict__["obj_from_db_obj"].__get__(None, topo)

        def both(text):
            want = want_exc = got = got_exc = None
            try:
                want = own_read(text)
            except Exception as e:
                want_exc = type(e)
            try:
                got = column.obj_from_db_obj(topo, text)
            except Exception as e:
                got_exc = type(e)
            self.assertEqual(want_exc, got_exc, text[:200])
            if want is not None:
                self.assertEqual(nn.convert._state(want), nn.convert._state(got))
                self.assertEqual(want._to_json(), column._to_json(got))
                self.assertEqual(want._to_json(), column._to_json(want))
            return want
        rng = random.Random(SEED + 7)
        st = nfd.Stats()
        texts = []
        for s in nfd.gen_scenarios(rng, 150, st):
            texts.append(s["host"]._to_json())
            s["host"].obj_reset_changes(recursive=True)
            texts.append(s["host"]._to_json())
            fitted = nfd.reference_fit(s["host"], s["req"], s["limits"])
            if fitted is not None and all(c.mempages for c in s["host"].cells):
                try:
                    used = self.hw.numa_usage_from_instance_numa(s["host"], fitted)
                except Exception:
                    continue
                texts.append(used._to_json())
        for name in ("e5-2620-ht.json", "rh2288h-v3.json", "sugon-i620-g30.json",
                     "epyc-24node.json"):
            with open(os.path.join(TOP, "tests", "data", "hosts", name)) as f:
                texts.append(f.read())
        built = 0
        column._field_kinds()
        for text in texts:
            built += both(text) is not None
            column._build(json.loads(text), "NUMATopology")  # the fast path takes it
        self.assertEqual(built, len(texts))
        self.assertIsNot(column._checked, False)
        # unusual input: nova's answer or nova's error
        base = json.loads(texts[0])
        cell = base["nova_object.data"]["cells"][0]["nova_object.data"]

        def variant(f):
            p = copy.deepcopy(base)
            f(p, p["nova_object.data"]["cells"][0])
            return json.dumps(p)
        odd = [
            variant(lambda p, c: c.update({"nova_object.version": "1.4"})),
            variant(lambda p, c: c["nova_object.data"].update({"memory": float(cell["memory"])})),
            variant(lambda p, c: c["nova_object.data"].update({"memory": True})),
            variant(lambda p, c: c["nova_object.data"].update({"memory": None})),
            variant(lambda p, c: c["nova_object.data"].update({"socket": None})),
            variant(lambda p, c: c["nova_object.data"].update({"cpuset": ["1", 2]})),
            variant(lambda p, c: c["nova_object.data"].update({"siblings": [[0], "x"]})),
            variant(lambda p, c: c["nova_object.data"].pop("pinned_cpus")),
            variant(lambda p, c: c.update({"nova_object.changes": ["memory", "nonsense"]})),
            variant(lambda p, c: c.update({"nova_object.namespace": "other"})),
            variant(lambda p, c: c.update({"nova_object.name": "NUMAPagesTopology"})),
            variant(lambda p, c: p.update({"nova_object.version": "9.0"})),
            "[]", "{}", "not json",
        ]
        for text in odd:
            both(text)

    def test_flavor_without_extra_specs(self):
        """A Flavor whose extra_specs was never set: nova reads it with
        flavor.get('extra_specs', {}); reading the field would call the lazy
        loader, which raises ObjectActionError (LiveMigrationClaimTestCase of
        nova's test_claims does this)."""
        im = nfd.objects.ImageMeta.from_dict({})
        for name in ("numa_get_constraints", "get_cpu_topology_constraints",
                     "get_best_cpu_topology", "_get_desirable_cpu_topologies"):
            def run(f):
                fl = nfd.objects.Flavor(vcpus=2, memory_mb=1024)
                self.assertFalse(fl.obj_attr_is_set("extra_specs"))
                try:
                    r = f(fl, im)
                except Exception as e:
                    return type(e)
                return [prim(t) for t in r] if isinstance(r, (list, tuple)) else prim(r)
            with self.subTest(function=name):
                self.assertEqual(run(nn._original(name)), run(getattr(nn, name)))

    def test_caches_follow_changes(self):
        """The adapter caches hosts and requests; objects changed in place
        (as nova changes them) must give new answers, the same as nova's."""
        o = nfd.objects
        host = o.NUMATopology(cells=[o.NUMACell(
            id=0, cpuset=set(), pcpuset={0, 1, 2, 3}, memory=4096, cpu_usage=0,
            memory_usage=0, pinned_cpus=set(), siblings=[{0}, {1}, {2}, {3}], socket=0,
            mempages=[o.NUMAPagesTopology(size_kb=4, total=1048576, used=0)])])
        inst = o.InstanceNUMATopology(cells=[o.InstanceNUMACell(
            id=0, cpuset=set(), pcpuset={0, 1}, memory=1024, cpu_policy="dedicated")])
        nova_fit = nn._original("numa_fit_instance_to_host")

        def check(want_pinning):
            got = nn.numa_fit_instance_to_host(host, inst)
            want = nova_fit(copy.deepcopy(host), copy.deepcopy(inst))
            pins = None if got is None else got.cells[0].cpu_pinning
            self.assertEqual(pins, None if want is None else want.cells[0].cpu_pinning)
            self.assertEqual(pins, want_pinning)

        check({0: 0, 1: 1})
        host.cells[0].pinned_cpus.update({0, 1})  # in place
        check({0: 2, 1: 3})
        host.cells[0].pinned_cpus.add(2)
        check(None)
        host.cells[0].pinned_cpus.clear()
        check({0: 0, 1: 1})
        inst.cells[0].pcpuset.add(2)  # the request changed in place
        check({0: 0, 1: 1, 2: 2})
        inst.cells[0].memory = 8192
        check(None)
        inst.cells[0].memory = 1024
        host.cells[0].siblings[0].add(1)  # nested in place: a core {0, 1}
        host.cells[0].siblings.pop(1)
        check({0: 0, 1: 2, 2: 3})  # nova's prefer: 3 vCPUs fit no core, one thread each
        self.assertEqual(nn.numa_fit_instance_to_host(host, inst).cells[0].cpu_pinning,
                         {0: 0, 1: 2, 2: 3})

    def test_host_cache_never_stale(self):
        """The host cache's stages (first sight: records; second and third:
        the records compared again, and on the third the storage copied;
        later: the storage compared) each see every change nova or a test
        makes in place: after each change, called 1, 2 or 3 times, the
        adapter answers as on a deep copy (a new object, built afresh).
        The same for objects read from the column text (watched from their
        making)."""
        from numafit.nova import column
        o = nfd.objects

        def cell(i, cpus, physnets):
            return o.NUMACell(
                id=i, cpuset=set(), pcpuset=set(cpus), memory=4096, cpu_usage=0,
                memory_usage=0, pinned_cpus=set(), socket=0,
                siblings=[{c, c + 1} for c in cpus[::2]],
                mempages=[o.NUMAPagesTopology(size_kb=4, total=1048576, used=0),
                          o.NUMAPagesTopology(size_kb=2048, total=512, used=0)],
                network_metadata=o.NetworkMetadata(physnets=set(physnets), tunneled=False))
        host = o.NUMATopology(cells=[cell(0, [0, 1, 2, 3], []), cell(1, [4, 5, 6, 7], ["foo"])])
        inst = o.InstanceNUMATopology(cells=[o.InstanceNUMACell(
            id=0, cpuset=set(), pcpuset={0, 1}, memory=512, pagesize=2048,
            cpu_policy="dedicated")])
        limits = o.NUMATopologyLimits(
            cpu_allocation_ratio=1.0, ram_allocation_ratio=1.0,
            network_metadata=o.NetworkMetadata(physnets={"foo"}, tunneled=False))

        def answer(h):
            got = nn.numa_fit_instance_to_host(h, inst, limits)
            return None if got is None else [(c.id, dict(c.cpu_pinning)) for c in got.cells]

        seen = []

        def check(h, times):
            for _ in range(times):
                want = answer(copy.deepcopy(h))
                self.assertEqual(answer(h), want)
                self.assertEqual(nn.host_fits(h, inst, 1.0, 1.0, limits.network_metadata),
                                 want is not None)
            seen.append(want)

        changes = [
            lambda h: h.cells[1].pinned_cpus.add(4),
            lambda h: h.cells[1].pinned_cpus.update({5, 6}),
            lambda h: h.cells[1].pinned_cpus.clear(),
            lambda h: setattr(h.cells[1].mempages[1], "used", 512),  # nested, in place
            lambda h: setattr(h.cells[1].mempages[1], "used", 0),
            lambda h: h.cells[1].network_metadata.physnets.discard("foo"),  # nested set
            lambda h: h.cells[1].network_metadata.physnets.add("foo"),
            lambda h: h.cells[1].siblings[0].discard(5),  # a set inside a list
            lambda h: h.cells[1].siblings.append({5}),
            lambda h: h.obj_reset_changes(recursive=True),
            lambda h: setattr(h.cells[1], "memory_usage", 4000),
            lambda h: setattr(h.cells[1], "memory_usage", 0),
            lambda h: h.cells[1].mempages.__setitem__(
                1, o.NUMAPagesTopology(size_kb=2048, total=1, used=0)),
            lambda h: setattr(h, "cells", [h.cells[0], cell(1, [4, 5, 6, 7], ["foo"])]),
            lambda h: h.cells.append(cell(2, [8, 9, 10, 11], ["foo"])),
            lambda h: h.cells[0].pcpuset.discard(3),
            # every other way to change a set or a list in place (each goes
            # through a different method of oslo's coerced collections)
            lambda h: h.cells[1].pinned_cpus.__ior__({4, 5}),
            lambda h: h.cells[1].pinned_cpus.__isub__({5}),
            lambda h: h.cells[1].pinned_cpus.__iand__({6, 7}),
            lambda h: h.cells[1].pinned_cpus.__ixor__({6, 7}),
            lambda h: h.cells[1].pinned_cpus.symmetric_difference_update({4}),
            lambda h: h.cells[1].pinned_cpus.difference_update({7}),
            lambda h: h.cells[1].pinned_cpus.intersection_update(set()),
            lambda h: h.cells[0].pcpuset.add(3),
            lambda h: h.cells[0].pcpuset.remove(0),
            lambda h: h.cells[0].pcpuset.pop(),
            lambda h: h.cells[0].pcpuset.update({0, 1, 3}),
            lambda h: h.cells[1].siblings.__delitem__(-1),
            lambda h: h.cells[1].siblings.insert(0, {4}),
            lambda h: h.cells[1].siblings.pop(0),
            lambda h: h.cells[1].siblings.extend([{5}]),
            lambda h: h.cells[1].siblings.remove({5}),
            lambda h: h.cells[1].siblings.sort(key=min),
            lambda h: h.cells[1].siblings.reverse(),
            lambda h: h.cells[1].siblings.__iadd__([{4, 5}]),
            lambda h: h.cells[1].siblings.__setitem__(slice(0, 1), [{4}, {5}]),
            lambda h: h.cells[1].siblings.clear(),
            lambda h: h.cells[1].siblings.__imul__(1),
            lambda h: h.cells[1].mempages.pop(),
            lambda h: h.cells[1].mempages.append(o.NUMAPagesTopology(size_kb=2048, total=512,
                                                                     used=0)),
            lambda h: h.cells[1].network_metadata.physnets.clear(),
            lambda h: setattr(h.cells[1].network_metadata, "physnets", {"foo"}),
            lambda h: delattr(h.cells[1], "network_metadata"),
            lambda h: setattr(h.cells[1], "siblings", [{4, 5}, {6, 7}]),
            lambda h: h.cells.reverse(),
            lambda h: h.cells.sort(key=lambda c: c.id),
            lambda h: h.cells.__delitem__(2),
            lambda h: setattr(h.cells[1].mempages[0], "reserved", 1048000),
            lambda h: delattr(h.cells[1].mempages[0], "reserved"),
        ]
        base = copy.deepcopy(host)
        check(host, 1)
        for i, change in enumerate(changes):
            # one object through the stages: changed after 1, 2 or 3 calls
            change(host)
            with self.subTest(change=i):
                check(host, 1 + i % 3)
            # a new object changed after its first or second sight (the
            # records stages)
            for sights in (1, 2):
                fresh = copy.deepcopy(base)
                for earlier in changes[:i]:
                    earlier(fresh)
                for _ in range(sights):
                    answer(fresh)
                change(fresh)
                with self.subTest(change=i, sights=sights):
                    check(fresh, 1)
            # an object read from the column text (watched from its
            # making, numafit.nova.column), changed before or after its
            # first sight
            for sights in (0, 1):
                fresh = copy.deepcopy(base)
                for earlier in changes[:i]:
                    earlier(fresh)
                read = column.obj_from_db_obj(o.NUMATopology, fresh._to_json())
                for _ in range(sights):
                    answer(read)
                change(read)
                with self.subTest(change=i, read=True, sights=sights):
                    check(read, 2)
        distinct = {repr(a) for a in seen}
        self.assertGreaterEqual(len(distinct), 4, "the changes must change the answers: %s" % seen)

    def test_host_cache_never_stale_without_watches(self):
        """The same changes where a watch cannot cover the objects (the
        cache then compares their storage with a copy)."""
        import numafit.nova.cache as nc
        saved = nc.watch
        nc.watch = lambda topo: None
        try:
            nn._hosts.clear()
            self.test_host_cache_never_stale()
        finally:
            nc.watch = saved
            nn._hosts.clear()

    def test_watches_under_threads(self):
        """Threads change a watched host in place while others fit on it:
        once they stop, the cache answers as a deep copy does (no change
        lost between a watch being attached and marked)."""
        import threading
        o = nfd.objects

        def cell(i):
            cpus = list(range(8 * i, 8 * i + 8))
            return o.NUMACell(
                id=i, cpuset=set(), pcpuset=set(cpus), memory=8192, cpu_usage=0,
                memory_usage=0, pinned_cpus=set(), socket=0,
                siblings=[{c, c + 1} for c in cpus[::2]],
                mempages=[o.NUMAPagesTopology(size_kb=4, total=2097152, used=0)])
        inst = o.InstanceNUMATopology(cells=[o.InstanceNUMACell(
            id=0, cpuset=set(), pcpuset=set(range(6)), memory=512, cpu_policy="dedicated")])

        def answer(h):
            return pins(h, inst)
        for rnd in range(6):
            host = o.NUMATopology(cells=[cell(0), cell(1)])
            stop = threading.Event()
            errors = []

            # a bounded number of steps, and time.sleep(0) in each: under
            # eventlet (another test monkey-patches threading) the threads
            # are green and switch only there
            def mutate(seed):
                rng = random.Random(seed)
                try:
                    for _ in range(3000):
                        if stop.is_set():
                            break
                        time.sleep(0)
                        c = host.cells[rng.randint(0, 1)]
                        cpu = rng.choice(sorted(c.pcpuset))
                        if rng.random() < 0.5:
                            c.pinned_cpus.add(cpu)
                        else:
                            c.pinned_cpus.discard(cpu)
                        if rng.random() < 0.1:
                            c.siblings = [set(x) for x in c.siblings]
                except Exception as e:  # pragma: no cover
                    errors.append(e)

            def fit():
                try:
                    for _ in range(600):
                        if stop.is_set():
                            break
                        time.sleep(0)
                        answer(host)
                except Exception as e:  # pragma: no cover
                    errors.append(e)
            ts = [threading.Thread(target=mutate, args=(rnd * 10 + k,)) for k in range(2)]
            ts += [threading.Thread(target=fit) for _ in range(2)]
            for t in ts:
                t.start()
            stop.wait(0.4)
            stop.set()
            for t in ts:
                t.join()
            self.assertEqual(errors, [])
            for _ in range(4):  # every stage of the cache
                self.assertEqual(answer(host), answer(copy.deepcopy(host)))

    def test_watches_stay_with_the_watched(self):
        """A watched host's copies, clones, primitives and claimed
        topologies carry no watch, compare equal to unwatched ones, and its
        objects keep their types."""
        import pickle
        from numafit.nova import watch as nw
        from oslo_versionedobjects import fields as ofields
        o = nfd.objects
        host = o.NUMATopology(cells=[o.NUMACell(
            id=0, cpuset={0, 1}, pcpuset={2, 3}, memory=4096, cpu_usage=0, memory_usage=0,
            pinned_cpus=set(), siblings=[{0, 1}, {2, 3}], socket=0,
            mempages=[o.NUMAPagesTopology(size_kb=4, total=1048576, used=0)],
            network_metadata=o.NetworkMetadata(physnets={"foo"}, tunneled=False))])
        plain = copy.deepcopy(host)
        inst = o.InstanceNUMATopology(cells=[o.InstanceNUMACell(
            id=0, cpuset=set(), pcpuset={0}, memory=512, cpu_policy="dedicated")])
        for _ in range(4):
            self.assertIsNotNone(nn.numa_fit_instance_to_host(host, inst))
        cell = host.cells[0]
        self.assertIn(nw.WATCHES, cell.__dict__, "the fourth sight watches the host")
        self.assertIs(type(cell._obj_pinned_cpus), ofields.CoercedSet)
        self.assertIs(type(cell._obj_siblings), ofields.CoercedList)

        def watched(obj):
            """obj or something in it holds a live (clean) watch"""
            if isinstance(obj, (set, list)) or hasattr(obj, "obj_fields"):
                d = getattr(obj, "__dict__", {})
                if any(not w.dirty for w in d.get(nw.WATCHES, ())):
                    return True
                if hasattr(obj, "obj_fields"):
                    return any(watched(v) for k, v in d.items() if k.startswith("_obj_"))
                if isinstance(obj, list):
                    return any(watched(x) for x in obj)
            return False
        self.assertTrue(watched(host))

        def norm(p):
            """a primitive with its changed-field lists sorted"""
            if isinstance(p, dict):
                return {k: sorted(v) if k == "nova_object.changes" else norm(v)
                        for k, v in p.items()}
            if isinstance(p, list):
                return [norm(x) for x in p]
            return p
        for how, other in (("deepcopy", copy.deepcopy(host)), ("obj_clone", host.obj_clone()),
                           ("pickle", pickle.loads(pickle.dumps(host))),
                           ("primitive",
                            o.NUMATopology.obj_from_primitive(host.obj_to_primitive()))):
            self.assertFalse(watched(other), how)
            self.assertEqual(norm(other.obj_to_primitive()), norm(plain.obj_to_primitive()))
        self.assertEqual(norm(host.obj_to_primitive()), norm(plain.obj_to_primitive()))
        fitted = nn.numa_fit_instance_to_host(host, inst)
        used = nn.numa_usage_from_instance_numa(host, fitted)
        self.assertEqual(used.cells[0].pinned_cpus, {2})
        # the claimed topology has its own watch, none of the host's, and
        # is in the host cache with the claimed library host: a fit on it
        # reads no records, and sees a change made to it
        host_ws = set(map(id, cell.__dict__[nw.WATCHES]))
        used_ws = used.cells[0].__dict__[nw.WATCHES]
        self.assertEqual(len(used_ws), 1)
        self.assertNotIn(id(used_ws[0]), host_ws)
        self.assertIs(used.cells[0]._obj_pinned_cpus.__dict__[nw.WATCHES][0], used_ws[0])
        entry = nn._hosts._items[id(used)]
        self.assertIs(entry[1], used_ws[0])
        self.assertIsNone(entry[3])
        inst3 = o.InstanceNUMATopology(cells=[o.InstanceNUMACell(
            id=0, cpuset=set(), pcpuset={0, 1}, memory=512, cpu_policy="dedicated")])
        self.assertIsNone(nn.numa_fit_instance_to_host(used, inst3))  # 2 and 3 of 2,3
        used.cells[0].pinned_cpus.clear()
        self.assertTrue(used_ws[0].dirty)
        self.assertIsNotNone(nn.numa_fit_instance_to_host(used, inst3))
        # the watched host changed in place: the watch is dirty, the next
        # fit sees the change (and watches anew)
        old = cell._obj_pinned_cpus.__dict__[nw.WATCHES][0]
        cell.pinned_cpus.add(2)
        self.assertTrue(old.dirty)
        self.assertNotIn(nw.WATCHES, cell._obj_pinned_cpus.__dict__)
        cell.pinned_cpus.add(3)
        self.assertIsNone(nn.numa_fit_instance_to_host(host, inst))
        cell.pinned_cpus.discard(3)
        self.assertIsNotNone(nn.numa_fit_instance_to_host(host, inst))

    def assert_as_fresh(self, inst, *hosts):
        """Each host's fit of inst equals a deep copy's (a new object, built
        afresh), five times in a row: through every stage of the host
        cache."""
        for h in hosts:
            for _ in range(5):
                self.assertEqual(pins(h, inst), pins(copy.deepcopy(h), inst))

    def test_claimed_topology_shares_what_never_changes(self):
        """numa_usage_from_instance_numa's cells share the host cells' CPU
        sets and sibling sets (as nova's share the page objects); pinned
        CPUs and the page list are their own.  A change in place through
        either topology is seen by fits on both: every answer equals a
        fresh computation (a deep copy)."""
        o = nfd.objects

        def cell(i, cpus):
            return o.NUMACell(
                id=i, cpuset=set(), pcpuset=set(cpus), memory=4096, cpu_usage=0,
                memory_usage=0, pinned_cpus=set(), socket=0,
                siblings=[{c, c + 1} for c in cpus[::2]],
                mempages=[o.NUMAPagesTopology(size_kb=4, total=1048576, used=0)])
        inst = o.InstanceNUMATopology(cells=[o.InstanceNUMACell(
            id=0, cpuset=set(), pcpuset={0, 1}, memory=512, cpu_policy="dedicated",
            cpu_thread_policy="require")])
        one = o.InstanceNUMATopology(cells=[o.InstanceNUMACell(
            id=0, cpuset=set(), pcpuset={0}, memory=512, cpu_policy="dedicated")])

        def answer(h):
            return pins(h, inst)

        def check(*hosts):
            self.assert_as_fresh(inst, *hosts)
        host = o.NUMATopology(cells=[cell(0, [0, 1, 2, 3, 4, 5]), cell(1, [6, 7, 8, 9])])
        check(host)
        used = nn.numa_usage_from_instance_numa(host, nn.numa_fit_instance_to_host(host, one))
        self.assertEqual(used.cells[0].pinned_cpus, {0})
        self.assertEqual(host.cells[0].pinned_cpus, set())
        for a, b in zip(host.cells, used.cells):
            self.assertIsNot(a, b)
            self.assertIs(a._obj_cpuset, b._obj_cpuset)
            self.assertIs(a._obj_pcpuset, b._obj_pcpuset)
            self.assertIs(a._obj_siblings, b._obj_siblings)
            self.assertIsNot(a._obj_pinned_cpus, b._obj_pinned_cpus)
            self.assertIsNot(a._obj_mempages, b._obj_mempages)
        self.assertEqual(answer(used), [(0, [2, 3])])
        self.assertEqual(answer(host), [(0, [0, 1])])
        check(host, used)
        # changes in place through the claimed topology, then the host's
        changes = [
            lambda: used.cells[0].siblings[1].discard(3),   # no longer a free core pair
            lambda: used.cells[0].pcpuset.discard(4),
            lambda: host.cells[0].siblings.append({3}),
            lambda: host.cells[0].pcpuset.difference_update({5}),
            lambda: used.cells[0].siblings.clear(),
            lambda: host.cells[1].pcpuset.clear(),
        ]
        seen = set()
        for i, change in enumerate(changes):
            change()
            with self.subTest(change=i):
                check(host, used)
            seen.add(repr((answer(host), answer(used))))
        self.assertGreaterEqual(len(seen), 4, seen)
        # a claim on the claimed topology, and the chain of claims after
        # it, keeps sharing; the first host's answers stay right
        chain = used
        for _ in range(3):
            fitted = nn.numa_fit_instance_to_host(chain, one)
            if fitted is None:
                break
            chain = nn.numa_usage_from_instance_numa(chain, fitted)
            self.assertIs(chain.cells[1]._obj_siblings, host.cells[1]._obj_siblings)
        chain.cells[1].siblings.append({6, 7})
        check(host, used, chain)

    def test_column_text_reuses_library_host(self):
        """Two objects read from one column text (nova's resource tracker
        reads it for the claim's test and again for the usage update): the
        second uses the first's library host only if the first was
        unchanged when that host was built; every answer equals a fresh
        computation."""
        from numafit.nova import column
        o = nfd.objects
        inst = o.InstanceNUMATopology(cells=[o.InstanceNUMACell(
            id=0, cpuset=set(), pcpuset={0, 1}, memory=512, cpu_policy="dedicated")])

        def answer(h):
            return pins(h, inst)
        text = o.NUMATopology(cells=[o.NUMACell(
            id=0, cpuset=set(), pcpuset={0, 1, 2, 3}, memory=4096, cpu_usage=0,
            memory_usage=0, pinned_cpus={0}, socket=0, siblings=[{0, 1}, {2, 3}],
            mempages=[o.NUMAPagesTopology(size_kb=4, total=1048576, used=0)])])._to_json()
        want = answer(column.obj_from_db_obj(o.NUMATopology, text))
        self.assertEqual(want, [(0, [2, 3])])
        # the first object changed before its first fit: its host is not
        # kept for the text
        self.assertIsNotNone(nn._hosts._texts.get(text)[0])
        nn._hosts._texts.clear()
        first = column.obj_from_db_obj(o.NUMATopology, text)
        first.cells[0].pinned_cpus.update({1, 2, 3})
        self.assertIsNone(answer(first))
        second = column.obj_from_db_obj(o.NUMATopology, text)
        self.assertEqual(answer(second), want)
        # fitted unchanged, then changed: the second still reads the text's
        self.assertIs(nn._hosts._texts.get(text)[0], nn._hosts.get(second))
        second.cells[0].pinned_cpus.add(1)
        third = column.obj_from_db_obj(o.NUMATopology, text)
        self.assertIs(nn._hosts.get(third), nn._hosts._texts.get(text)[0])
        self.assertEqual(answer(third), want)
        self.assertEqual(answer(second), answer(copy.deepcopy(second)))
        # the third changed after being read: its own content counts
        third.cells[0].siblings[1].discard(3)
        self.assertEqual(answer(third), answer(copy.deepcopy(third)))
        self.assertEqual(answer(column.obj_from_db_obj(o.NUMATopology, text)), want)

    def test_column_reads_share_what_never_changes(self):
        """An object read from a column text shares the cells' cpuset,
        pcpuset and sibling sets with the last object read from the same
        text while that one is unchanged; a change in place through either
        is seen by fits on both, and the next read shares no changed set."""
        from numafit.nova import column
        o = nfd.objects
        inst = o.InstanceNUMATopology(cells=[o.InstanceNUMACell(
            id=0, cpuset=set(), pcpuset={0, 1}, memory=512, cpu_policy="dedicated",
            cpu_thread_policy="require")])

        def answer(h):
            return pins(h, inst)

        def check(*hosts):
            self.assert_as_fresh(inst, *hosts)
        text = o.NUMATopology(cells=[o.NUMACell(
            id=0, cpuset=set(), pcpuset={0, 1, 2, 3, 4, 5}, memory=4096, cpu_usage=0,
            memory_usage=0, pinned_cpus={0}, socket=0, siblings=[{0, 1}, {2, 3}, {4, 5}],
            mempages=[o.NUMAPagesTopology(size_kb=4, total=1048576, used=0)])])._to_json()
        a = column.obj_from_db_obj(o.NUMATopology, text)
        want = answer(a)
        self.assertEqual(want, [(0, [2, 3])])
        b = column.obj_from_db_obj(o.NUMATopology, text)
        for name in ("_obj_cpuset", "_obj_pcpuset", "_obj_siblings"):
            self.assertIs(b.cells[0].__dict__[name], a.cells[0].__dict__[name])
        self.assertIsNot(b.cells[0]._obj_pinned_cpus, a.cells[0]._obj_pinned_cpus)
        self.assertEqual(b._to_json(), a._to_json())
        self.assertEqual(answer(b), want)
        a.cells[0].siblings[1].discard(3)  # no free core pair but 4, 5
        check(a, b)
        self.assertEqual(answer(b), [(0, [4, 5])])
        # the next read shares nothing changed: it reads as the text
        c = column.obj_from_db_obj(o.NUMATopology, text)
        self.assertIsNot(c.cells[0]._obj_siblings, a.cells[0]._obj_siblings)
        self.assertEqual(answer(c), want)
        # it writes the text back; the order of "nova_object.changes" is
        # the iteration order of a set (nova's too), which the hash seed
        # and the set's history decide, so the lists compare as sets
        self.assertEqual(unordered_changes(c._to_json()), unordered_changes(text))
        self.assertEqual(c._to_json(), column._text(c))
        d = column.obj_from_db_obj(o.NUMATopology, text)
        self.assertIs(d.cells[0]._obj_siblings, c.cells[0]._obj_siblings)
        d.cells[0].pcpuset.discard(5)
        check(c, d)
        self.assertEqual(answer(c), [(0, [2, 3])])
        c.cells[0].pcpuset.difference_update({2, 3})
        check(c, d)
        self.assertEqual(answer(d), None)

    def test_host_cache_holds_live_objects_only(self):
        """nova replaces a host's NUMATopology object on every update: the
        cache entries (and the library hosts) of objects that are gone go
        with them."""
        import gc
        o = nfd.objects
        inst = o.InstanceNUMATopology(cells=[o.InstanceNUMACell(
            id=0, cpuset={0}, pcpuset=set(), memory=512)])
        gc.collect()
        nn._hosts.purge()
        before_items, before_content = len(nn._hosts._items), len(nn._hosts._content)
        hosts = []
        for i in range(50):
            hosts.append(o.NUMATopology(cells=[o.NUMACell(
                id=0, cpuset={0, 1}, pcpuset=set(), memory=4096 + i, cpu_usage=0,
                memory_usage=0, pinned_cpus=set(), siblings=[{0}, {1}], socket=0,
                mempages=[o.NUMAPagesTopology(size_kb=4, total=1048576, used=0)])]))
            self.assertTrue(nn.host_fits(hosts[-1], inst, 1.0, 1.0))
        self.assertEqual(len(nn._hosts._items), before_items + 50)
        self.assertEqual(len(nn._hosts._content), before_content + 50)
        del hosts
        gc.collect()
        self.assertEqual(len(nn._hosts._dead), 50)
        nn._hosts.purge()  # also done by the next miss
        self.assertEqual(len(nn._hosts._items), before_items)
        self.assertEqual(len(nn._hosts._content), before_content)

    def test_fast_builds_on_objects_from_primitives(self):
        """Objects nova reads from the database (obj_from_primitive) carry
        their own VERSION attribute; the fast builds of the result cells
        and of the claimed topology must still match nova's constructors,
        or the once-per-process check would switch them off for good."""
        o = nfd.objects
        host = o.NUMATopology.obj_from_primitive(o.NUMATopology(cells=[o.NUMACell(
            id=0, cpuset=set(), pcpuset={0, 1, 2, 3}, memory=4096, cpu_usage=0,
            memory_usage=0, pinned_cpus=set(), siblings=[{0, 1}, {2, 3}], socket=0,
            mempages=[o.NUMAPagesTopology(size_kb=4, total=1048576, used=0)])]).obj_to_primitive())
        inst = o.InstanceNUMATopology.obj_from_primitive(o.InstanceNUMATopology(cells=[
            o.InstanceNUMACell(id=0, cpuset=set(), pcpuset={0, 1}, memory=1024,
                               cpu_policy="dedicated")]).obj_to_primitive())
        saved = (nn.convert._fast_cells, nn.convert._fast_usage, nn._VERIFY)
        try:
            nn.convert._fast_cells = nn.convert._fast_usage = None
            nn._VERIFY = False
            got = nn.numa_fit_instance_to_host(host, inst)
            self.assertIs(nn.convert._fast_cells, True)
            nn.numa_usage_from_instance_numa(host, got)
            self.assertIs(nn.convert._fast_usage, True)
        finally:
            nn.convert._fast_cells, nn.convert._fast_usage, nn._VERIFY = saved

    def test_built_objects_hold_no_cycles(self):
        """The objects the adapter builds (obj_from_db_obj's topology, the
        fitted instance topology, the claimed host topology) hold no
        reference cycle: they go as soon as nova drops them, without the
        cyclic garbage collector, where nova's own hold a cycle through
        every collection.  Their collections still behave as oslo's: copies,
        clones, pickles, the coercion of what is added and its error."""
        import gc
        import pickle
        from numafit.nova import column
        o = nfd.objects
        with open(os.path.join(TOP, "tests", "data", "hosts", "e5-2620-ht.json")) as f:
            text = f.read()
        own_read = o.NUMATopology.__dict__["obj_from_db_obj"].__get__(None, o.NUMATopology)
        inst = nn.numa_get_constraints(
            o.Flavor(vcpus=4, memory_mb=2048, extra_specs={"hw:cpu_policy": "dedicated"}),
            o.ImageMeta.from_dict({"properties": {}}))

        def garbage(make):
            gc.collect()
            was = gc.isenabled()
            gc.disable()
            try:
                made = make()
                self.assertIsNotNone(made)
                del made
                return gc.collect()
            finally:
                if was:
                    gc.enable()
        column.obj_from_db_obj(o.NUMATopology, text)  # the once-per-process checks
        nova_built = garbage(lambda: own_read(text))
        self.assertGreater(nova_built, 50)  # nova's objects: cycles
        self.assertEqual(garbage(lambda: column.obj_from_db_obj(o.NUMATopology, text)), 0)

        def claim():
            host = column.obj_from_db_obj(o.NUMATopology, text)
            fitted = nn.numa_fit_instance_to_host(host, inst)
            return (fitted, nn.numa_usage_from_instance_numa(host, fitted))
        claim()
        self.assertEqual(garbage(claim), 0)
        # the collections as oslo's
        host = column.obj_from_db_obj(o.NUMATopology, text)
        want = own_read(text)
        cell = host.cells[0]
        self.assertIs(nn.convert._owner_of(cell.cpuset), cell)
        self.assertEqual(host.obj_clone().obj_to_primitive(), want.obj_to_primitive())
        copied = copy.deepcopy(cell.siblings)
        self.assertEqual(copied, want.cells[0].siblings)
        self.assertIsInstance(copied._obj, o.NUMACell)  # a copy of its owner, as oslo's
        again = pickle.loads(pickle.dumps(host))
        self.assertEqual(nn.convert._state(again.cells[0]), nn.convert._state(want.cells[0]))
        errors = []
        for t in (host, want):
            try:
                t.cells[0].mempages.append(5)
            except ValueError as e:
                errors.append(str(e))
        self.assertEqual(len(errors), 2)
        self.assertEqual(errors[0], errors[1])
        cell.pinned_cpus.add(3)
        self.assertIn(3, cell.pinned_cpus)
        self.assertRaises(ValueError, cell.pinned_cpus.add, "x")

    def test_column_objects_born_watched(self):
        """A topology obj_from_db_obj builds is watched from its making and
        in the host cache: its first sight writes its records, later sights
        do not; a change in place before or after the first sight is seen."""
        from numafit.nova import cache as nc, column
        o = nfd.objects
        with open(os.path.join(TOP, "tests", "data", "hosts", "e5-2620-ht.json")) as f:
            text = f.read()
        inst = nn.numa_get_constraints(
            o.Flavor(vcpus=2, memory_mb=1024, extra_specs={"hw:cpu_policy": "dedicated"}),
            o.ImageMeta.from_dict({"properties": {}}))
        calls = []
        real = nc._host_records

        def counting(topo):
            calls.append(1)
            return real(topo)
        nc._host_records = counting
        try:
            column.obj_from_db_obj(o.NUMATopology, text)  # the once-per-process checks
            nn._hosts._texts.clear()
            topo = column.obj_from_db_obj(o.NUMATopology, text)
            del calls[:]
            for _ in range(4):
                self.assertTrue(nn.host_fits(topo, inst, 1.0, 1.0))
            self.assertEqual(len(calls), 1)
            # another object of the same text: the text's library host, no
            # records written at all
            again = column.obj_from_db_obj(o.NUMATopology, text)
            self.assertTrue(nn.host_fits(again, inst, 1.0, 1.0))
            self.assertEqual(len(calls), 1)
            del again
            for c in topo.cells:  # every dedicated CPU taken, in place
                c.pinned_cpus.update(c.pcpuset)
            self.assertFalse(nn.host_fits(topo, inst, 1.0, 1.0))
            self.assertIsNone(nn.numa_fit_instance_to_host(topo, inst))
            # changed before its first sight
            topo2 = column.obj_from_db_obj(o.NUMATopology, text)
            for c in topo2.cells:
                c.pinned_cpus = set(c.pcpuset)
            self.assertFalse(nn.host_fits(topo2, inst, 1.0, 1.0))
            topo3 = column.obj_from_db_obj(o.NUMATopology, text)
            self.assertTrue(nn.host_fits(topo3, inst, 1.0, 1.0))
        finally:
            nc._host_records = real

    def hw_call(self, name, *a):
        return getattr(nfd.hardware, name)(*a)


def canon_request(p):
    """InstanceNUMATopology primitive without the uuid/id noise."""
    d = dict(p["nova_object.data"])
    d.pop("instance_uuid", None)
    d.pop("id", None)
    cells = []
    for c in d.get("cells", []):
        cd = dict(c["nova_object.data"])
        cd.pop("cpu_topology", None) if cd.get("cpu_topology") is None else None
        for k in ("cpuset", "pcpuset", "cpuset_reserved"):
            if isinstance(cd.get(k), list):
                cd[k] = sorted(cd[k])
        cells.append({k: v for k, v in cd.items() if v is not None})
    d["cells"] = cells
    return {k: v for k, v in d.items() if v is not None}


def usage(topo):
    out = []
    for c in topo.cells:
        out.append({"id": c.id, "cpu_usage": c.cpu_usage, "memory_usage": c.memory_usage,
                    "pinned": sorted(c.pinned_cpus),
                    "pages": [(p.size_kb, p.total, int(p.used)) for p in c.mempages]})
    return out


if __name__ == "__main__":
    unittest.main()
