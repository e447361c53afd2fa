"""Differential test of numafit_extra_spec_validate (Python:
numafit.validate_extra_specs) against nova's own extra spec validators
(nova.api.validation.extra_specs.validators.validate, which nova's API runs
on every extra spec a flavor is given from microversion 2.86 on).

    /usr/bin/python3 tests/nova_extra_specs_diff.py [--library PATH]
        [--cases N] [--seed N] [--upstream DIR]

The zed profile is compared with Debian's nova 26.2.2. With --upstream DIR
(a directory holding upstream nova's nova/api/validation/extra_specs and
nova/objects/fields.py, os_traits and os_resource_classes, as
scripts/gen-extra-specs.py reads it) the latest profile is compared with
those validators too.

Keys: every key nova knows with its parameters filled in (groups of 0, 1
and 64 characters and one too long, numbers in ASCII and other scripts'
digits, capabilities filters), the templates themselves, misspellings
(a character dropped, doubled, changed), keys of unknown namespaces and
without one, the unescaped '.' of hw:numa_cpus.N. Values: each key's own
values and random ones: integers with signs, spaces, underscores, other
scripts' digits and out of bounds, boolean-like words in any case with
white space, CPU masks, page sizes, pmem names, PCI aliases, and noise.
Both must accept, or both refuse with the same message (numafit's is cut
at 255 bytes: then it must be the start of nova's).

Exit 0 when all agree, 1 otherwise, 77 without nova. Last line:
"N passed, N failed".
"""
import argparse
import importlib.util
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

try:
    from nova.api.validation.extra_specs import validators as nova_validators
    from nova import exception as nova_exception
except Exception as e:  # pragma: no cover - environment dependent
    print("nova not importable (%s): skip" % e)
    sys.exit(77)

import numafit_loader  # noqa: E402

MODULES = ["accel", "aggregate_instance_extra_specs", "capabilities", "hw", "hw_rng",
           "hw_video", "null", "os", "pci_passthrough", "quota", "resources", "traits",
           "vmware"]


class Reference:
    """A set of nova's validators and nova's own validate() over them."""

    def __init__(self, validators, namespaces):
        self.validators = validators
        self.namespaces = namespaces

    def check(self, name, value):
        saved = dict(nova_validators.VALIDATORS), set(nova_validators.NAMESPACES)
        nova_validators.VALIDATORS.clear()
        nova_validators.VALIDATORS.update(self.validators)
        nova_validators.NAMESPACES.clear()
        nova_validators.NAMESPACES.update(self.namespaces)
        try:
            nova_validators.validate(name, value)
            return None
        except nova_exception.ValidationError as e:
            return str(e)
        finally:
            nova_validators.VALIDATORS.clear()
            nova_validators.VALIDATORS.update(saved[0])
            nova_validators.NAMESPACES.clear()
            nova_validators.NAMESPACES.update(saved[1])


def debian_reference():
    return Reference(dict(nova_validators.VALIDATORS), set(nova_validators.NAMESPACES))


def upstream_reference(src):
    """nova's validators as upstream's modules declare them (with upstream's
    os-traits, os-resource-classes and object fields)."""
    sys.path.insert(0, src)
    for m in ("os_traits", "os_resource_classes"):
        sys.modules.pop(m, None)
    import nova.objects
    spec = importlib.util.spec_from_file_location(
        "numafit_up_fields", os.path.join(src, "nova", "objects", "fields.py"))
    fields = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fields)
    saved_fields = sys.modules.get("nova.objects.fields")
    sys.modules["nova.objects.fields"] = fields
    nova.objects.fields = fields
    validators, namespaces = {}, set()
    try:
        for m in MODULES:
            path = os.path.join(src, "nova", "api", "validation", "extra_specs", m + ".py")
            spec = importlib.util.spec_from_file_location("numafit_up_xs_" + m, path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            # as nova's load_validators() registers them
            for v in mod.register():
                validators[v.name] = v
                if ":" in v.name_regex:
                    namespaces.add(v.name_regex.split(":", 1)[0])
    finally:
        sys.modules["nova.objects.fields"] = saved_fields
        nova.objects.fields = saved_fields
        sys.path.remove(src)
    return Reference(validators, namespaces)


DIGITS = ["0", "7", "12", "\u0661\u0662", "\uff13", "\U0001d7ce"]
SPACES = ["", " ", "\t", "\u00a0", "\u3000", "\n"]


def fill(rng, v):
    """A name for validator v, its parameters filled in."""
    name = v.name
    for p in v.parameters:
        pat = p["pattern"]
        if pat == r"([a-zA-Z0-9_-]{1,64})?":
            val = rng.choice(["", "1", "_a-b", "x" * 64, "y" * 65, "a.b"])
        elif pat == r"\d+":
            val = rng.choice(DIGITS + ["", "x", "1x"])
        elif pat == r".+":
            val = rng.choice(["k", "a b", "", "x\ny", "é"])
        elif pat == r"(:\w+)*":
            val = rng.choice(["", ":a", ":a:b_1", ":", ":a b", "::a"])
        elif pat == r"[A-Z0-9_]+":
            val = rng.choice(["X", "FOO_1", "foo", ""])
        else:
            val = "x"
        name = name.replace("{%s}" % p["name"], val)
    return name


def mutate(rng, name):
    i = rng.randrange(len(name) + 1)
    kind = rng.randrange(3)
    if kind == 0 and i < len(name):
        return name[:i] + name[i + 1:]
    if kind == 1 and i < len(name):
        return name[:i] + name[i] + name[i:]
    return name[:i] + rng.choice("abz_:.1X") + name[i + 1:]


def int_value(rng):
    return "".join([rng.choice(SPACES), rng.choice(["", "+", "-", "--"]),
                    rng.choice(DIGITS + ["1_000", "1__0", "_1", "1_", "99999999999999999999",
                                         "0", "00", "-0", "", "1.5", "x"]),
                    rng.choice(SPACES)])


def bool_value(rng):
    w = rng.choice(["1", "t", "true", "on", "y", "yes", "0", "f", "false", "off", "n", "no",
                    "maybe", "", "tru", "2", "\u0131"])
    if rng.random() < 0.5:
        w = w.upper() if rng.random() < 0.5 else w.title()
    return rng.choice(SPACES) + w + rng.choice(SPACES)


def mask_value(rng):
    parts = []
    for _ in range(rng.randint(1, 4)):
        parts.append(rng.choice(["", "^"]) + rng.choice(DIGITS) +
                     (rng.choice(["", "-" + rng.choice(DIGITS)]) if rng.random() < 0.5 else ""))
    s = ",".join(parts)
    r = rng.random()
    if r < 0.1:
        s += ","
    elif r < 0.2:
        s = s.replace(",", ", ")
    elif r < 0.3:
        s = "-" + s
    elif r < 0.4:
        s += "-3-4"
    return s


def page_value(rng):
    return rng.choice(["large", "small", "any", "Large", "2048", "2MB", "1GB", "1GiB", "4KiB",
                       "1Gib", "1Gbit", "1GB ", "\u0661G", "1Ti", "1x", "", "kb", "2M", "1gb",
                       "1GBB", "1Gb"])


def pmem_value(rng):
    return rng.choice(["ns_0", "ns_0,ns_1", "ns_0,", "ns,,b", ",a", "a b", "a-b", "é", "a,b,c,"])


def alias_value(rng):
    return rng.choice(["a:1", "a:1,b:2", "a:1, b:2", "a:1 ,b:2", "a b:1", "a,b:1", ":1",
                       "a:", "a:1,", "a:1,b", "a:1x", "a:\u0661", "a:1,\u00a0b:2", "a:1\t,\tb:2",
                       "a:1,,b:2", "a::1", "a:1,b:2:3", "gpu:2,vf:1 "])


def value_for(rng, v):
    t = v.value["type"]
    r = rng.random()
    if r < 0.1:
        return rng.choice(["", "x", "1", "true", "dedicated", "\u00e9\u00e8", "a" * 300])
    if t == int:
        return int_value(rng) if r < 0.8 else str(rng.choice([v.value.get("min", 0) - 1,
                                                              v.value.get("max", 5) + 1, 0, 1]))
    if t == bool:
        return bool_value(rng)
    if "enum" in v.value:
        e = [str(x) for x in v.value["enum"]]
        return rng.choice(e + [e[0].upper(), e[0] + " ", "x"])
    pat = v.value.get("pattern")
    if pat and "(large" in pat:
        return page_value(rng)
    if pat and pat.startswith("(["):
        return pmem_value(rng)
    if pat and pat.startswith("[^:]"):
        return alias_value(rng)
    if pat:
        return mask_value(rng)
    return rng.choice(["anything", "", "a b"])


def cases(rng, ref, n):
    vals = list(ref.validators.values())
    other = ["foo", "foo:bar", "hw", "hw:", ":hw", "hw:numa_cpus.0", "hw:numa_cpusX0",
             "hw:numa_cpus.", "hw:numa_mem_1", "quota:read_bytes_sec", "hw:mem_page_sze",
             "resources:", "resources_x:VCPU", "trait:CUSTOM_", "traits:HW_CPU_X86_AVX",
             "aggregate_instance_extra_specs:", "capabilities:cpu_info:", "hw_rng:rate",
             "os:", "x:y:z", "HW:cpu_policy"]
    for _ in range(n):
        r = rng.random()
        v = rng.choice(vals)
        if r < 0.55:
            name = fill(rng, v)
        elif r < 0.6:
            name = v.name
        elif r < 0.85:
            name = mutate(rng, fill(rng, v))
        else:
            name = rng.choice(other)
        yield name, value_for(rng, v)


def compare(numafit, ref, profile, rng, n):
    passed = failed = 0
    refused = 0
    for name, value in cases(rng, ref, n):
        want = ref.check(name, value)
        got = ours_one(numafit, name, value, profile)
        same = (want == got) or (want is not None and got is not None and
                                 len(got.encode()) >= 250 and want.startswith(got))
        if same:
            passed += 1
            refused += want is not None
        else:
            failed += 1
            if failed <= 10:
                print("FAIL %s %r = %r\n  nova    %r\n  numafit %r" % (profile, name, value,
                                                                       want, got))
    print("%s: %d cases, %d refused by both" % (profile, passed + failed, refused))
    return passed, failed


def ours_one(numafit, name, value, profile):
    """numafit_extra_spec_validate: None or the refusal's text."""
    from numafit import _ffi
    err = _ffi.Error()
    try:
        _ffi.extra_spec_validate(name.encode(), value.encode(), 1 if profile == "zed" else 0,
                                 _ffi.byref(err))
    except numafit.errors.ValidationError as e:
        return e.text
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--library")
    ap.add_argument("--cases", type=int, default=int(os.environ.get("NUMAFIT_XS_CASES", "20000")))
    ap.add_argument("--seed", type=int, default=20261204)
    ap.add_argument("--upstream")
    args = ap.parse_args()
    numafit = numafit_loader.import_numafit(args.library)
    runs = [("zed", debian_reference())]
    if args.upstream:
        runs.append(("latest", upstream_reference(os.path.abspath(args.upstream))))
    passed = failed = 0
    for profile, ref in runs:
        p, f = compare(numafit, ref, profile, random.Random(args.seed), args.cases)
        passed += p
        failed += f
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
