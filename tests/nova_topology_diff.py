"""Differential test: libnumafit's guest CPU topology functions against
nova's (Debian's nova 26.2.2):

  numafit.cpu_topology_constraints  get_cpu_topology_constraints
  numafit.best_cpu_topology         get_best_cpu_topology
  numafit.cpu_topologies            _get_desirable_cpu_topologies
  (also with allow_threads=False on both sides)

through the Python binding (bindings/python/numafit).

Random flavors and images (fixed seed) set hw:cpu_[max_]sockets|cores|threads
and the hw_cpu_* image properties to valid, zero, negative, huge, oddly
written (' 2 ', '+3', '1_0', '007') and invalid values. For each, both must
raise the same nova exception class with the same text, or both answer the
same: the preferred and maximum topologies (every integer exactly, however
large), the best topology and the whole list in order. Images nova's
ImageMeta.from_dict refuses are skipped (nova never reaches the topology
code). Error texts may differ only where a value has more digits than the
library's one-line error text holds (counted, not failures).

Exit 0 on success, 1 on failure, 77 when nova is not importable.
Last line: "N passed, N failed".
"""
import argparse
import json
import logging
import os
import random
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SEED = 20261201
CASES = 2000

try:
    from nova import objects
    from nova.virt import hardware as hw
    objects.register_all()
    logging.getLogger("nova").setLevel(logging.CRITICAL)
except Exception as e:  # pragma: no cover - environment dependent
    print("nova not importable (%s): skip" % e)
    sys.exit(77)

NAMES = ("sockets", "cores", "threads")
HUGE = "9" * 30


def gen_value(r, flavor):
    """A flavor extra spec value (a string; sometimes an int, which nova's
    Flavor turns into its text) or an image property value (an int,
    sometimes a string nova's int() reads)."""
    kind = r.random()
    if kind < 0.55:
        v = r.choice([1, 1, 2, 2, 2, 3, 4, 4, 8, 16])
    elif kind < 0.65:
        v = 0
    elif kind < 0.7:
        v = r.choice([-1, -2, -65536])
    elif kind < 0.75:
        v = r.choice([65536, 65537, int(HUGE), -int(HUGE)])
    elif kind < 0.85:
        v = r.choice([" 2 ", "+3", "1_0", "007", "-0", "\t4\n"])
        return v if flavor or r.random() < 0.5 else int(v)
    elif flavor:
        return r.choice(["x", "", "2.0", "1__0", "0x10", "2'", "_1", "1 2", "\x1c2", "2\x1d",
                         "\u00a02", "2\u3000", "\u20282\u205f"])
    else:
        v = r.choice([1, 2, 4])
    if flavor and r.random() < 0.9:
        return str(v)
    return v


def gen_case(r):
    vcpus = r.choice([1, 2, 3, 4, 4, 6, 8, 8, 12, 16, 16, 24, 30, 32, 48])
    es, props = {}, {}
    for prefix, key_fmt, out, flavor in (("f", "hw:cpu_%s%s", es, True),
                                         ("i", "hw_cpu_%s%s", props, False)):
        p_any = r.random() < (0.7 if flavor else 0.5)
        for mx in ("max_", ""):
            for n in NAMES:
                if p_any and r.random() < 0.45:
                    out[key_fmt % (mx, n)] = gen_value(r, flavor)
    if r.random() < 0.05:
        es["hw:cpu_policy"] = "dedicated"  # not read here
    return vcpus, es, props


def nova_topo(t):
    return tuple(getattr(t, n) for n in NAMES)


def nova_run(vcpus, es, props):
    """{"constraints"|"best"|"list"|"best1"|"list1": answer or ("exc", class,
    text)}, or None when nova refuses the image itself."""
    try:
        image = objects.ImageMeta.from_dict({"properties": dict(props)})
    except Exception:
        return None
    flavor = objects.Flavor(vcpus=vcpus, memory_mb=1024, extra_specs=dict(es))
    out = {}
    calls = {"constraints": lambda: tuple(nova_topo(t) for t in
                                          hw.get_cpu_topology_constraints(flavor, image)),
             "best": lambda: nova_topo(hw.get_best_cpu_topology(flavor, image)),
             "best1": lambda: nova_topo(hw.get_best_cpu_topology(flavor, image, False)),
             "list": lambda: [nova_topo(t) for t in
                              hw._get_desirable_cpu_topologies(flavor, image)],
             "list1": lambda: [nova_topo(t) for t in
                               hw._get_desirable_cpu_topologies(flavor, image, False)]}
    for k, f in calls.items():
        try:
            out[k] = f()
        except Exception as e:
            out[k] = ("exc", type(e).__name__, str(e))
    return out, image


def image_props_json(image):
    """The image properties as nova holds them (coerced to int); integers
    beyond 64 bits as their decimal text, which the library reads as int()
    does (JSON parsers stop at 64 bits), as numafit.nova passes them."""
    p = image.properties
    out = {}
    for k in p.obj_fields:
        if k.startswith("hw_cpu_") and p.obj_attr_is_set(k):
            v = getattr(p, k)
            out[k] = v if -2**63 <= v < 2**63 else str(v)
    return out


def import_numafit(library=None):
    """The numafit package of bindings/python, loading `library` (default:
    $NUMAFIT_LIBRARY, else the installed libnumafit.so.0)."""
    if library:
        os.environ["NUMAFIT_LIBRARY"] = library
    sys.path.insert(0, os.path.join(TOP, "bindings", "python"))
    import numafit
    return numafit


class Ours:
    def __init__(self, numafit):
        self.nf = numafit

    def run(self, vcpus, es, props):
        flavor = {"vcpus": vcpus, "memory_mb": 1024, "extra_specs": es}
        image = {"properties": props}
        nf = self.nf
        out = {}
        for k, call in (("constraints", lambda: nf.cpu_topology_constraints(flavor, image)),
                        ("best", lambda: nf.best_cpu_topology(flavor, image)),
                        ("best1", lambda: nf.best_cpu_topology(flavor, image, False)),
                        ("list", lambda: nf.cpu_topologies(flavor, image)),
                        ("list1", lambda: nf.cpu_topologies(flavor, image, False))):
            try:
                out[k] = call()
            except nf.errors.NumafitError as e:
                out[k] = ("exc", e.exception or "rc=%d" % -e.errno, e.text)
        return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--library")
    ap.add_argument("--cases", type=int, default=CASES)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    ours = Ours(import_numafit(args.library))
    r = random.Random(args.seed)
    passed = failed = skipped = long_text = 0
    outcomes = {}
    for i in range(args.cases):
        vcpus, es, props = gen_case(r)
        got = nova_run(vcpus, es, props)
        if got is None:
            skipped += 1
            continue
        nova, image = got
        # flavor extra specs are strings in nova (DictOfStringsField)
        mine = ours.run(vcpus, {k: str(v) for k, v in es.items()}, image_props_json(image))
        bad = []
        for k, want in nova.items():
            have = mine[k]
            key = "%s:%s" % (k, want[1] if isinstance(want, tuple) and want[:1] == ("exc",)
                             else "ok")
            outcomes[key] = outcomes.get(key, 0) + 1
            if want == have:
                continue
            if (isinstance(want, tuple) and want[:1] == ("exc",) and have[:2] == want[:2]
                    and len(want[2]) > len(have[2]) and any(
                        len(str(v)) > 60 for v in list(es.values()) + list(props.values()))):
                long_text += 1  # a value longer than numafit_error_t.text holds
                continue
            bad.append("%s: nova %r, numafit %r" % (k, want, have))
        if bad:
            failed += 1
            print("FAIL case %d: vcpus=%d extra_specs=%s image properties=%s\n  %s"
                  % (i, vcpus, json.dumps(es), json.dumps(props), "\n  ".join(bad)))
        else:
            passed += 1
    print("outcomes: %s" % ", ".join("%s=%d" % kv for kv in sorted(outcomes.items())))
    print("skipped (nova's ImageMeta refuses the image): %d; texts cut short: %d"
          % (skipped, long_text))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
