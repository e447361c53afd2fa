"""Differential test of nova.conf's sections against oslo.config with nova's
own option definitions (Debian's nova.conf.CONF): random files with options
in their own group and in others. For each file, the options libnumafit
reports as misplaced (numafit_nova_conf_misplaced) are exactly those oslo
does not read (its value is not the file's), and the allocation ratios
libnumafit reads (numafit_inventory_ratios_from_nova_conf) are those nova's
compute node takes (the option when set and not 0, else the initial one).
"""
import argparse
import ctypes
import json
import os
import random
import sys
import tempfile

OPTIONS = {  # option: (its group, a value generator)
    "cpu_dedicated_set": ("compute", lambda r: "%d-%d" % (r.randint(0, 3), r.randint(4, 9))),
    "cpu_shared_set": ("compute", lambda r: "%d-%d" % (r.randint(0, 3), r.randint(4, 9))),
    "vcpu_pin_set": ("DEFAULT", lambda r: "%d-%d" % (r.randint(0, 3), r.randint(4, 9))),
    "reserved_host_memory_mb": ("DEFAULT", lambda r: str(r.randint(0, 4096))),
    "reserved_host_cpus": ("DEFAULT", lambda r: str(r.randint(0, 8))),
    "cpu_allocation_ratio": ("DEFAULT", lambda r: r.choice(["0.0", "1.5", "2", "8.0"])),
    "ram_allocation_ratio": ("DEFAULT", lambda r: r.choice(["0.0", "1.0", "1.25"])),
    "initial_cpu_allocation_ratio": ("DEFAULT", lambda r: r.choice(["3.0", "16"])),
    "initial_ram_allocation_ratio": ("DEFAULT", lambda r: r.choice(["1.5", "2.0"])),
    "cpu_mode": ("libvirt", lambda r: r.choice(["host-model", "host-passthrough", "none"])),
    "realtime_scheduler_priority": ("libvirt", lambda r: str(r.randint(1, 99))),
    "physnets": ("neutron", lambda r: r.choice(["a", "a,b"])),
}
ZED = 1  # NUMAFIT_INVENTORY_ZED: the defaults of Debian's nova 26 (Zed)
SECTIONS = ["DEFAULT", "compute", "libvirt", "neutron", "pci"]


def oslo_value(conf, group, name):
    return getattr(conf, name) if group == "DEFAULT" else getattr(getattr(conf, group), name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--library", default=os.environ.get("NUMAFIT_LIBRARY", "libnumafit.so.0"))
    ap.add_argument("--files", type=int, default=150)
    ap.add_argument("--seed", type=int, default=15)
    args = ap.parse_args()
    lib = ctypes.CDLL(args.library)
    err = ctypes.create_string_buffer(1024)  # numafit_error_t and headroom
    lib.numafit_nova_conf_misplaced.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint,
                                                ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
    lib.numafit_inventory_ratios_from_nova_conf.argtypes = [
        ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint] + [ctypes.POINTER(ctypes.c_double)] * 3 + [
        ctypes.c_void_p]
    lib.numafit_free.argtypes = [ctypes.c_void_p]

    import nova.conf
    conf = nova.conf.CONF
    r = random.Random(args.seed)
    failures = checked = misplaced_seen = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "nova.conf")
        for n in range(args.files):
            entries = []  # (line, section, option, value)
            lines = []
            for section in r.sample(SECTIONS, r.randint(1, len(SECTIONS))):
                lines.append("[%s]" % section)
                for opt in r.sample(sorted(OPTIONS), r.randint(0, 4)):
                    value = OPTIONS[opt][1](r)
                    lines.append("%s = %s" % (opt, value))
                    entries.append((len(lines), section, opt, value))
            text = "\n".join(lines) + "\n"
            with open(path, "w") as f:
                f.write(text)
            conf.reset()
            conf.clear()
            conf(["--config-file", path], project="nova", default_config_files=[])
            data = text.encode()
            out = ctypes.c_void_p()
            rc = lib.numafit_nova_conf_misplaced(data, len(data), 0, ctypes.byref(out), err)
            if rc < 0:
                print("FAIL file %d: numafit_nova_conf_misplaced returned %d" % (n, rc))
                failures += 1
                continue
            ours = {(m["line"], m["option"]) for m in json.loads(ctypes.string_at(out.value))}
            lib.numafit_free(out)
            # oslo: the last value in the option's own group is read, nothing else
            read = {}
            for line, section, opt, value in entries:
                if section == OPTIONS[opt][0]:
                    read[opt] = value
            expected = {(line, opt) for line, section, opt, value in entries
                        if section != OPTIONS[opt][0]}
            misplaced_seen += len(expected)
            for opt, (group, _) in OPTIONS.items():
                got = oslo_value(conf, group, opt)
                if opt in read:
                    want = read[opt]
                    ok = str(got) == want or (isinstance(got, (int, float)) and
                                              float(got) == float(want)) or \
                        (isinstance(got, list) and ",".join(got) == want)
                else:
                    ok = got == conf._get_opt_info(opt, None if group == "DEFAULT" else group)[
                        "opt"].default
                if not ok:
                    print("FAIL file %d: oslo reads %s = %r, the file's own group gives %r\n%s"
                          % (n, opt, got, read.get(opt), text))
                    failures += 1
            if ours != expected:
                print("FAIL file %d: misplaced %s, oslo ignores %s\n%s"
                      % (n, sorted(ours), sorted(expected), text))
                failures += 1
            # the ratios nova's compute node takes
            cpu, ram, disk = ctypes.c_double(), ctypes.c_double(), ctypes.c_double()
            rc = lib.numafit_inventory_ratios_from_nova_conf(
                data, len(data), ZED, ctypes.byref(cpu), ctypes.byref(ram), ctypes.byref(disk), err)
            want = (conf.cpu_allocation_ratio or conf.initial_cpu_allocation_ratio,
                    conf.ram_allocation_ratio or conf.initial_ram_allocation_ratio)
            if rc != 0 or (cpu.value, ram.value) != want:
                print("FAIL file %d: ratios %r (rc %d), nova %r\n%s"
                      % (n, (cpu.value, ram.value), rc, want, text))
                failures += 1
            checked += 1
    print("%d files, %d misplaced options, %d failures" % (checked, misplaced_seen, failures))
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
