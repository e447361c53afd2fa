"""Differential test: libnumafit's numafit_resources_from_flavor() (through
the Python binding, numafit.resources_from_flavor) against what Debian's
nova 26.2.2 asks of placement: nova.scheduler.utils.resources_from_request_spec
(with and without enable_pinning_translate, the legacy query), summed over
its request groups (ResourceRequest.merged_resources), for VCPU, PCPU,
MEMORY_MB and DISK_GB.

Random flavors and images (fixed seed): tests/nova_request_diff.py's mix of
NUMA inputs, plus random root/ephemeral/swap sizes, boot from volume, and
`resources[SUFFIX]:CLASS` extra specs with suffixes, classes and amounts
nova reads in different ways (digits, letters, 64 and 65 characters, a
final newline, amounts that are negative, not integers or above what
placement takes). nova's API checks a flavor with numa_get_constraints
first: where it refuses, ours must refuse too (the same class, or one of
nova_request_diff's documented divergences). Where it accepts, the amounts
must be equal, or, when one is above 2147483647 (placement refuses such a
query), ours must raise RangeError. The latest profile must give the
same answers (no memory-encryption input is generated).

Exit 0 on success, 1 on failure, 77 when nova is not importable.
Last line: "N passed, N failed".
"""
import json
import logging
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

try:
    from nova import objects
    from nova.scheduler import utils as sched_utils
    from nova.virt import hardware as hw
    objects.register_all()
except Exception as e:  # pragma: no cover - environment dependent
    print("nova not importable (%s): skip" % e)
    sys.exit(77)

import nova_request_diff as reqdiff  # noqa: E402

SEED = 20261202
CASES = 27000  # about 10,000 that nova accepts, whose amounts are compared
CLASSES = ("VCPU", "PCPU", "MEMORY_MB", "DISK_GB")
MAX = 2147483647

PREFIXES = ["resources", "resources", "resources1", "resources2", "resources_a", "resources-x",
            "resources01", "resources" + "a" * 64, "resources" + "b" * 65, "resourcesX.y"]
NAMES = ["VCPU", "PCPU", "MEMORY_MB", "DISK_GB", "VCPU", "PCPU", "MEMORY_MB", "DISK_GB",
         "VCPUS", "vcpu", "CUSTOM_FOO", "VCPU\n", "MEMORY_MB\n", "DISK_GB\n\n", "PCPU\nX",
         "", "SRIOV_NET_VF"]
AMOUNTS = ["0", "1", "2", "4", "16", "1024", "-1", "abc", " 7 ", "1_000", "2.5", "",
           "3000000000", "99999999999999999999", "\u00a05"]


def gen_resources(r, vcpus):
    es = {}
    for _ in range(r.choice([0, 1, 1, 2, 3, 5])):
        name = r.choice(NAMES)
        if name == "PCPU" and r.random() < 0.5:
            amount = str(vcpus + r.choice([0, 0, 1]))  # what the request accepts
        elif name == "VCPU" and r.random() < 0.3:
            amount = str(vcpus)
        else:
            amount = r.choice(AMOUNTS)
        es[r.choice(PREFIXES) + ":" + name] = amount
    if r.random() < 0.05:
        es["group_policy"] = r.choice(["none", "isolate", "bogus"])
    if r.random() < 0.05:
        es["trait:CUSTOM_X"] = "required"
    if r.random() < 0.15:
        es[r.choice(["trait", "trait1", "trait_a", "trait" + "x" * 65]) + ":" +
           r.choice(["HW_CPU_HYPERTHREADING", "HW_CPU_HYPERTHREADING\n", "HW_CPU_HYPER"])] = \
            r.choice(["required", "forbidden", "bogus", "Required"])
    return es


def gen(r):
    vcpus, mem, es, props = reqdiff.gen_case(r)
    es.pop("hw:mem_encryption", None)
    props.pop("hw_mem_encryption", None)
    if r.random() < 0.1:
        # the form ImageMetaProps.from_dict reads (a raw "traits_required"
        # is dropped by it; the library reads both)
        props["trait:" + r.choice(["HW_CPU_HYPERTHREADING", "CUSTOM_Y"])] = \
            r.choice(["required", "required", "forbidden"])
    if r.random() < 0.5:
        es.update(gen_resources(r, vcpus))
    disk = {"root_gb": r.choice([0, 0, 1, 10, 20, 40, MAX]),
            "ephemeral_gb": r.choice([0, 0, 0, 5, MAX]),
            "swap": r.choice([0, 0, 0, 1, 512, 1024, 1025, 4096, MAX])}
    return vcpus, mem, es, props, disk, r.random() < 0.2, r.random() < 0.3


def nova_run(vcpus, mem, es, props, disk, bfv, legacy):
    """('ok', {class: amount}) / ('exc', class name, text) / ('image', ...)."""
    try:
        image = objects.ImageMeta.from_dict({"properties": dict(props)})
    except Exception as e:
        return ("image", type(e).__name__, str(e))
    flavor = objects.Flavor(vcpus=vcpus, memory_mb=mem, extra_specs=dict(es), **disk)
    try:
        hw.numa_get_constraints(flavor, image)  # nova's API checks the flavor first
    except Exception as e:
        return ("exc", type(e).__name__, str(e))
    spec = objects.RequestSpec(flavor=flavor, image=image, is_bfv=bfv)
    rr = sched_utils.resources_from_request_spec(None, spec, None,
                                                 enable_pinning_translate=not legacy)
    merged = rr.merged_resources()
    forbidden = set()
    for g in rr._rg_by_id.values():
        forbidden |= g.forbidden_traits
    smt = "HW_CPU_HYPERTHREADING"
    return ("ok", {k: v for k, v in merged.items() if k in CLASSES and v},
            bool(rr.cpu_pinning_requested), smt in rr.all_required_traits, smt in forbidden)


def ours_run(numafit, vcpus, mem, es, props, disk, bfv, legacy, profile):
    flavor = {"vcpus": vcpus, "memory_mb": mem, "extra_specs": es}
    # an absent size is 0
    flavor.update({k: v for k, v in disk.items() if v or k == "root_gb"})
    try:
        res = numafit.resources_from_flavor(flavor, {"properties": props} if props else None,
                                            profile, boot_from_volume=bfv, legacy=legacy)
    except numafit.errors.NumafitError as e:
        return ("exc", e.exception or type(e).__name__, e.text, e.where)
    return ("ok", dict(res), res.legacy_fallback, res.smt_required, res.smt_forbidden)


def main():
    args, numafit = reqdiff.setup(CASES, SEED)
    logging.disable(logging.CRITICAL)  # nova warns about every ignored resources key

    r = random.Random(args.seed)
    passed = failed = compared = 0
    diverged = {}
    outcomes = {}
    for _ in range(args.cases):
        case = gen(r)
        vcpus, mem, es, props, disk, bfv, legacy = case
        nova = nova_run(*case)
        ours = ours_run(numafit, *case, "zed")
        latest = ours_run(numafit, *case, "latest")
        if latest[:3] != ours[:3]:
            print("FAIL profile latest != zed: %r\n  zed %r\n  latest %r" % (case, ours, latest))
            failed += 1
            continue
        if nova[0] == "ok":
            compared += 1
            big = [k for k, v in nova[1].items() if v > MAX]
            key = "ok-range" if big else "ok-" + "+".join(sorted(nova[1]))
            if big:
                ok = ours[0] == "exc" and ours[1] == "RangeError" and ours[3] in big
            else:
                ok = ours[0] == "ok" and ours[1:] == nova[1:]
        else:
            key = nova[1]
            ok = ours[0] == "exc" and ours[1] == nova[1]
        outcomes[key] = outcomes.get(key, 0) + 1
        if ok:
            passed += 1
            continue
        why = None
        if ours[0] == "exc":
            why = reqdiff.known_divergence(nova, ours, es, props)
        if why:
            diverged[why] = diverged.get(why, 0) + 1
            continue
        failed += 1
        print("FAIL vcpus=%d mem=%d disk=%r bfv=%r legacy=%r extra_specs=%s props=%s\n"
              "  nova: %r\n  ours: %r" % (vcpus, mem, disk, bfv, legacy, json.dumps(es),
                                          json.dumps(props), nova, ours))
    print("nova outcomes: %s" % ", ".join("%s=%d" % kv for kv in sorted(outcomes.items())))
    for why, n in sorted(diverged.items()):
        print("known divergence (%s): %d" % (why, n))
    print("flavors nova accepts (amounts compared): %d" % compared)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
