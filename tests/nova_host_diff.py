#!/usr/bin/python3
"""Differential test of libnumafit's host JSON against nova's own objects.

For every fixture in tests/data/hosts and for a few hundred random hosts built
with nova's objects.NUMATopology / NUMACell / NUMAPagesTopology /
NetworkMetadata (serialized with obj_to_primitive, also at older object
versions): load the primitive in libnumafit (through the Python binding,
numafit.Host.from_json), write it back with numafit_host_to_json
(Host.to_json), read that output in nova with
NUMATopology.obj_from_primitive and compare it with nova's own reading of the
original, field by field (siblings as an ordered list of sets, other sets as
sets; fields an older version lacks take nova's defaults). The same for
nova's legacy dicts through NUMATopology.from_legacy_object, for the
compute_nodes DB-column string form, and for inputs nova accepts but
libnumafit deliberately refuses (nova-reference H).

Exit 0 on success, 1 on failure, 77 to skip. The last line is
"N passed, N failed".
"""
import argparse
import glob
import json
import os
import random
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from numafit_loader import import_numafit  # noqa: E402

E_PARSE, E_SCHEMA, E_VERSION, E_RANGE = 3, 4, 5, 6
EINVAL, ERANGE, EBADMSG = 22, 34, 74

SKIP = 77


# ---------------------------------------------------------------- comparison

CELL_DEFAULTS = {
    "cpuset": set(), "pcpuset": set(), "pinned_cpus": set(), "cpu_usage": 0,
    "memory_usage": 0, "siblings": [], "mempages": [], "socket": None,
}


def field(obj, name, defaults):
    if obj.obj_attr_is_set(name):
        return getattr(obj, name)
    if name in defaults:
        return defaults[name]
    raise AssertionError("%s.%s is not set" % (obj.obj_name(), name))


def compare(orig, back):
    """Raise AssertionError at the first difference between nova's reading of
    the input (orig) and nova's reading of numafit's output (back)."""
    oc, bc = list(orig.cells), list(back.cells)
    assert len(oc) == len(bc), "cell count %d != %d" % (len(oc), len(bc))
    for i, (a, b) in enumerate(zip(oc, bc)):
        where = "cell[%d]" % i
        for name in ("id", "memory", "cpu_usage", "memory_usage", "socket"):
            va, vb = field(a, name, CELL_DEFAULTS), getattr(b, name)
            assert va == vb and type(va) is type(vb), "%s.%s %r != %r" % (where, name, va, vb)
        for name in ("cpuset", "pcpuset", "pinned_cpus"):
            va, vb = set(field(a, name, CELL_DEFAULTS)), set(getattr(b, name))
            assert va == vb, "%s.%s %s != %s" % (where, name, sorted(va), sorted(vb))
        sa = [set(s) for s in field(a, "siblings", CELL_DEFAULTS)]
        sb = [set(s) for s in b.siblings]
        assert sa == sb, "%s.siblings %s != %s" % (where, sa, sb)
        pa, pb = field(a, "mempages", CELL_DEFAULTS), b.mempages
        assert len(pa) == len(pb), "%s.mempages count" % where
        for k, (x, y) in enumerate(zip(pa, pb)):
            for name in ("size_kb", "total", "used", "reserved"):
                vx = field(x, name, {"used": 0, "reserved": 0})
                vy = getattr(y, name)
                assert vx == vy, "%s.mempages[%d].%s %r != %r" % (where, k, name, vx, vy)
        has_a, has_b = a.obj_attr_is_set("network_metadata"), b.obj_attr_is_set(
            "network_metadata")
        assert has_a == has_b, "%s.network_metadata presence %s != %s" % (where, has_a, has_b)
        if has_a:
            na, nb = a.network_metadata, b.network_metadata
            pa_ = set(field(na, "physnets", {"physnets": set()}))
            ta = field(na, "tunneled", {"tunneled": False})
            assert pa_ == set(nb.physnets), "%s.physnets %s != %s" % (where, pa_, nb.physnets)
            assert ta == nb.tunneled, "%s.tunneled %s != %s" % (where, ta, nb.tunneled)


def check_versions(prim):
    """numafit writes NUMATopology 1.2 / NUMACell 1.5 / NUMAPagesTopology 1.1 /
    NetworkMetadata 1.0 with sorted changes naming the data fields."""
    want = {"NUMATopology": "1.2", "NUMACell": "1.5", "NUMAPagesTopology": "1.1",
            "NetworkMetadata": "1.0"}

    def walk(p):
        if isinstance(p, dict):
            if "nova_object.name" in p:
                n = p["nova_object.name"]
                assert p["nova_object.version"] == want[n], "%s version %s" % (
                    n, p["nova_object.version"])
                assert p["nova_object.changes"] == sorted(p["nova_object.data"]), \
                    "%s changes %s" % (n, p["nova_object.changes"])
            for v in p.values():
                walk(v)
        elif isinstance(p, list):
            for v in p:
                walk(v)
    walk(prim)


# ---------------------------------------------------------------- runner

class Runner:
    def __init__(self, numafit, objects):
        self.numafit = numafit
        self.objects = objects
        self.passed = 0
        self.failed = 0

    def fail(self, name, msg):
        self.failed += 1
        print("FAIL %s: %s" % (name, msg))

    def ok(self):
        self.passed += 1

    def numafit_roundtrip(self, text, allow_overlap=False, indent=False, as_string=False):
        with self.numafit.Host.from_json(text, allow_overlap) as h:
            return h.to_json(indent=indent, as_string=as_string)

    def check_primitive(self, name, prim, allow_overlap=False):
        """prim: a NUMATopology primitive (dict) that nova accepts."""
        NT = self.objects.NUMATopology
        try:
            orig = NT.obj_from_primitive(json.loads(json.dumps(prim)))
            out = self.numafit_roundtrip(json.dumps(prim), allow_overlap)
            outp = json.loads(out)
            check_versions(outp)
            back = NT.obj_from_primitive(outp)
            compare(orig, back)
            # the DB-column forms: nova's string in, numafit's string out
            col = NT.obj_from_primitive(prim)._to_json()
            out2 = self.numafit_roundtrip(json.dumps(col), allow_overlap, as_string=True)
            s = json.loads(out2)
            assert isinstance(s, str), "string form is not a JSON string"
            compare(orig, NT.obj_from_db_obj(s))
            # indented output is the same document
            out3 = self.numafit_roundtrip(json.dumps(prim), allow_overlap, indent=True)
            assert json.loads(out3) == outp, "indented output differs"
        except Exception as e:  # noqa: BLE001
            self.fail(name, "%s: %s" % (type(e).__name__, e))
            if os.environ.get("NUMAFIT_DEBUG"):
                traceback.print_exc()
                print(json.dumps(prim)[:2000])
            return
        self.ok()

    def check_legacy(self, name, text):
        """text: a pre-Liberty compute_nodes.numa_topology string nova converts."""
        NT = self.objects.NUMATopology
        try:
            orig = NT.obj_from_db_obj(NT.from_legacy_object(text))
            out = self.numafit_roundtrip(text)
            back = NT.obj_from_primitive(json.loads(out))
            compare(orig, back)
            # and inside the DB-column string
            out = self.numafit_roundtrip(json.dumps(text))
            compare(orig, NT.obj_from_primitive(json.loads(out)))
        except Exception as e:  # noqa: BLE001
            self.fail(name, "%s: %s" % (type(e).__name__, e))
            if os.environ.get("NUMAFIT_DEBUG"):
                traceback.print_exc()
                print(text[:2000])
            return
        self.ok()

    def check_refused(self, name, text, rc, code, nova_accepts=True):
        """An input libnumafit refuses on purpose; nova (reading it the way the
        compute node does) accepts it, or also refuses it."""
        NT = self.objects.NUMATopology
        try:
            if nova_accepts:
                NT.obj_from_primitive(json.loads(text))
            try:
                self.numafit.Host.from_json(text).close()
            except self.numafit.errors.NumafitError as e:
                got = {"code": e.code, "cell": e.cell, "where": e.where,
                       "exception": e.exception, "text": e.text}
                assert e.errno == rc and e.code == code, "got rc %d %s" % (-e.errno, got)
                assert e.where or code == E_PARSE, "no path in %s" % got
            else:
                raise AssertionError("accepted")
        except Exception as e:  # noqa: BLE001
            self.fail(name, "%s: %s" % (type(e).__name__, e))
            return
        self.ok()


# ---------------------------------------------------------------- generators

SIZES = [4, 64, 2048, 16384, 524288, 1048576, 16777216]
PHYSNETS = ["physnet1", "physnet2", "sriov-a", "prov\u00e9", "x" * 40]


def rand_count(rnd, cap):
    return rnd.choice([0, 1, rnd.randint(0, 1000), rnd.randint(0, cap)])


def random_topology(rnd, objects):
    """A random NUMATopology within libnumafit's rules (which are stricter
    than nova's): unique cell ids, disjoint CPUs between cells, cpuset and
    pcpuset disjoint or equal, pinned CPUs inside pcpuset."""
    ncells = rnd.choice([1, 1, 2, 2, 2, 4, rnd.randint(1, 8), rnd.randint(1, 32)])
    if rnd.random() < 0.8:
        ids = list(range(ncells))
    else:
        ids = rnd.sample(range(1024), ncells)
    wide = rnd.random() < 0.2
    used = set()
    cells = []
    for cid in ids:
        n = rnd.choice([0, 1, 2, 4, 8, rnd.randint(0, 48)])
        pool = []
        while len(pool) < n:
            cpu = rnd.randrange(16384) if wide else rnd.randrange(512)
            if cpu not in used:
                used.add(cpu)
                pool.append(cpu)
        cpus = set(pool)
        mode = rnd.choice(["legacy", "split", "shared", "dedicated", "split"])
        if mode == "legacy":
            shared, dedicated = set(cpus), set(cpus)
        elif mode == "shared":
            shared, dedicated = set(cpus), set()
        elif mode == "dedicated":
            shared, dedicated = set(), set(cpus)
        else:
            shared, dedicated = set(), set()
            for c in cpus:
                r = rnd.random()
                if r < 0.4:
                    shared.add(c)
                elif r < 0.9:
                    dedicated.add(c)
        pinned = {c for c in dedicated if rnd.random() < 0.3}
        usable = sorted(shared | dedicated)
        rnd.shuffle(usable)
        sib = []
        while usable:
            k = rnd.choice([1, 2, 2, 2, 4])
            sib.append(set(usable[:k]))
            usable = usable[k:]
        if sib and rnd.random() < 0.1:
            sib.append(set(rnd.choice(sib)))            # nova allows repeated groups
        if rnd.random() < 0.05:
            sib.append(set())
        if rnd.random() < 0.05:
            sib.append({rnd.randrange(16384)})           # naming a CPU of no cell
        memory = rnd.choice([0, 1, 1024, rnd.randint(0, 1 << 20), rnd.randint(0, 1 << 40)])
        pages = []
        for size in rnd.sample(SIZES, rnd.randint(0, 4)):
            cap = (1 << 50) // size
            total = rand_count(rnd, cap)
            pages.append(objects.NUMAPagesTopology(
                size_kb=size, total=total, used=rand_count(rnd, cap),
                reserved=rand_count(rnd, cap)))
        cell = objects.NUMACell(
            id=cid, cpuset=shared, pcpuset=dedicated, memory=memory,
            cpu_usage=rnd.choice([0, rnd.randint(0, 64), rnd.randint(0, (1 << 31) - 1)]),
            memory_usage=rnd.choice([0, rnd.randint(0, 1 << 40)]),
            pinned_cpus=pinned, siblings=sib, mempages=pages,
            socket=rnd.choice([None, 0, 1, rnd.randint(0, 65535)]))
        if rnd.random() < 0.4:
            cell.network_metadata = objects.NetworkMetadata(
                physnets=set(rnd.sample(PHYSNETS, rnd.randint(0, 3))),
                tunneled=rnd.random() < 0.5)
        cells.append(cell)
    return objects.NUMATopology(cells=cells)


def random_manifest(rnd, topo):
    """Older object versions, as a down-level compute writes them. A NUMACell
    older than 1.4 has no pcpuset, so it may not carry pinned CPUs."""
    cell_v = rnd.choice(["1.0", "1.1", "1.2", "1.3", "1.4", "1.5"])
    if cell_v < "1.4":
        for c in topo.cells:
            c.pinned_cpus = set()
    return {"NUMATopology": rnd.choice(["1.0", "1.1", "1.2"]), "NUMACell": cell_v,
            "NUMAPagesTopology": rnd.choice(["1.0", "1.1"]), "NetworkMetadata": "1.0"}


def random_legacy(rnd):
    from nova.virt import hardware
    cells = []
    used = set()
    ncells = rnd.randint(0, 6)
    for cid in rnd.sample(range(64), ncells):
        cell = {"id": cid}
        cpus = set()
        for _ in range(rnd.randint(0, 8)):
            c = rnd.randrange(256)
            if c not in used:
                used.add(c)
                cpus.add(c)
        if rnd.random() < 0.9:
            spec = hardware.format_cpu_spec(cpus, allow_ranges=rnd.random() < 0.8)
            if cpus and rnd.random() < 0.3:
                spec += ",^%d" % rnd.choice(sorted(cpus))
            cell["cpus"] = spec
        if rnd.random() < 0.9:
            mem = {}
            if rnd.random() < 0.9:
                mem["total"] = rnd.randint(0, 1 << 22)
            if rnd.random() < 0.8:
                mem["used"] = rnd.randint(0, 1 << 20)
            cell["mem"] = mem
        if rnd.random() < 0.8:
            cell["cpu_usage"] = rnd.randint(0, 64)
        cells.append(cell)
    return json.dumps({"cells": cells})


def refused_cases(objects):
    """Inputs nova accepts but libnumafit refuses on purpose (nova-reference H)."""
    def topo(**kw):
        base = dict(id=0, cpuset={0, 1}, pcpuset={2, 3}, memory=1024, cpu_usage=0,
                    memory_usage=0, pinned_cpus=set(), siblings=[], mempages=[], socket=0)
        base.update(kw)
        return objects.NUMATopology(cells=[objects.NUMACell(**base)]).obj_to_primitive()

    def with_data(prim, key, value):
        prim["nova_object.data"]["cells"][0]["nova_object.data"][key] = value
        return json.dumps(prim)

    yield "memory as string", with_data(topo(), "memory", "1024"), EINVAL, E_SCHEMA
    yield "negative memory", with_data(topo(), "memory", -5), ERANGE, E_RANGE
    yield "memory true", with_data(topo(), "memory", True), EINVAL, E_SCHEMA
    yield "memory 1.9", with_data(topo(), "memory", 1.9), EINVAL, E_SCHEMA
    yield "memory 1e30", with_data(topo(), "memory", 1e30), EINVAL, E_SCHEMA
    yield "memory 2**41", with_data(topo(), "memory", 2 ** 41), ERANGE, E_RANGE
    yield "cpu as string", with_data(topo(), "cpuset", [0, "8"]), EINVAL, E_SCHEMA
    yield "cpu -1", with_data(topo(), "cpuset", [-1]), ERANGE, E_RANGE
    yield "overlap", json.dumps(topo(cpuset={0, 1}, pcpuset={1, 2})), EINVAL, E_SCHEMA
    yield "pinned outside pcpuset", json.dumps(topo(pinned_cpus={0})), EINVAL, E_SCHEMA
    yield "page size 0", json.dumps(topo(mempages=[
        objects.NUMAPagesTopology(size_kb=0, total=1, used=0, reserved=0)])), ERANGE, E_RANGE
    yield "page size 3", json.dumps(topo(mempages=[
        objects.NUMAPagesTopology(size_kb=3, total=1, used=0, reserved=0)])), ERANGE, E_RANGE
    yield "negative reserved", json.dumps(topo(mempages=[
        objects.NUMAPagesTopology(size_kb=4, total=1, used=0, reserved=-2)])), ERANGE, E_RANGE
    c0 = objects.NUMACell(id=0, cpuset={0}, pcpuset=set(), memory=1)
    c1 = objects.NUMACell(id=0, cpuset={1}, pcpuset=set(), memory=1)
    yield "duplicate cell ids", json.dumps(
        objects.NUMATopology(cells=[c0, c1]).obj_to_primitive()), EINVAL, E_SCHEMA
    yield "cell id 5000", json.dumps(topo(id=5000)), ERANGE, E_RANGE
    yield "NaN in an unknown field", with_data(topo(), "x", float("nan")), EBADMSG, E_PARSE
    p = topo()
    p["nova_object.version"] = "1.99"
    yield "topology 1.99", json.dumps(p), EINVAL, E_VERSION, False
    p = topo()
    p["nova_object.data"]["cells"][0]["nova_object.version"] = "1.6"
    yield "cell 1.6", json.dumps(p), EINVAL, E_VERSION, False
    p = topo()
    p["nova_object.namespace"] = "os_vif"
    yield "wrong namespace", json.dumps(p), EINVAL, E_SCHEMA, False


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--library", default=os.environ.get("NUMAFIT_LIBRARY"))
    ap.add_argument("--numafit", default=None, help="the CLI (unused here)")
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--seed", type=int, default=20260)
    args = ap.parse_args()

    try:
        from nova import objects
        objects.register_all()
    except Exception as e:  # noqa: BLE001
        print("nova not importable (%s): skip" % e)
        return SKIP
    if not args.library or not os.path.exists(args.library):
        print("library %r not built: skip" % args.library)
        return SKIP
    try:
        numafit = import_numafit(args.library)
    except ImportError as e:
        print("cannot load %s (%s): skip" % (args.library, e))
        return SKIP

    run = Runner(numafit, objects)
    rnd = random.Random(args.seed)

    fixtures = sorted(glob.glob(os.path.join(HERE, "data", "hosts", "*.json")))
    if not fixtures:
        run.fail("fixtures", "no fixtures in %s" % os.path.join(HERE, "data", "hosts"))
    for path in fixtures:
        name = os.path.basename(path)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if "nova_object.name" in text:      # nova's own test (ComputeNode._from_db_object)
            run.check_primitive(name, json.loads(text))
        else:
            run.check_legacy(name, text)

    for i in range(args.count):
        topo = random_topology(rnd, objects)
        run.check_primitive("random[%d]" % i, topo.obj_to_primitive())
    for i in range(args.count // 3):
        topo = random_topology(rnd, objects)
        man = random_manifest(rnd, topo)
        prim = topo.obj_to_primitive(target_version=man["NUMATopology"], version_manifest=man)
        run.check_primitive("old-version[%d] %s" % (i, man), prim)
    for i in range(args.count // 3):
        run.check_legacy("legacy[%d]" % i, random_legacy(rnd))
    for case in refused_cases(objects):
        name, text, rc, code = case[:4]
        nova_accepts = case[4] if len(case) > 4 else True
        run.check_refused("refused %s" % name, text, rc, code, nova_accepts)

    print("%d passed, %d failed" % (run.passed, run.failed))
    return 1 if run.failed else 0


if __name__ == "__main__":
    sys.exit(main())
