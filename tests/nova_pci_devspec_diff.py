"""Differential test of numafit.PciPools.from_devices (a compute node's PCI
device pools from the devices its virt driver discovers and nova.conf's
[pci] device_spec) against Debian's nova 26.2.2 (profile zed).

Per case: a random host device list (nova's pci_passthrough_devices JSON:
Intel, Mellanox/BlueField, QAT, NVIDIA and NVMe devices on a few buses,
PFs with their VFs at consecutive functions, vdpa devices, NUMA nodes
known or not, a 32-bit PCI domain at times, plus libnumafit's members for
the sysfs facts nova reads: ifname, sriov_totalvfs, sriov_vf_device) and a
random nova.conf with [pci] device_spec, [pci] passthrough_whitelist and
[DEFAULT] pci_passthrough_whitelist lines (valid entries and each kind of
mistake: addresses exact, short, of a PF, glob with wildcards or partial,
regex dicts, devnames, remote_managed, vendor and product ids in hex
forms or wildcards, tags of every JSON type, list entries, bad JSON).

nova: oslo.config parses the file with nova's [pci] options, then what
PciDevTracker does for a new compute node: Whitelist(device_spec), the
devices device_assignable keeps (a device whose matching raises
PciConfigInvalidSpec is skipped), PciDevice.create of each in the list's
order, PciDeviceStats.add_device, to_device_pools_obj. nova.pci.utils'
sysfs readers are replaced by functions answering from the case's device
list as a real sysfs would. numafit: PciDevices.from_json then
PciPools.from_devices(devs, nova_conf=text, profile="zed").

Both must raise the same exception class, or give the same pools
(vendor_id, product_id, numa_node, count and tags) in the same order; nova
must read numafit's PciDevicePoolList primitive back to the same pools.
Counted apart and printed, not failures:
- "crash refused": nova crashes with AttributeError, TypeError or
  ValueError (a vendor_id, product_id or regex field that is not a
  string, a tag nova cannot store) where numafit refuses with
  PciConfigInvalidSpec;
- the divergences doc/pci.md documents: a regex address field outside the
  subset numafit reads (a backslash, '{', '(?', a possessive quantifier)
  and tags that are lists or objects or are named count, devices or
  numa_node, all refused by numafit whatever nova does; and an "address"
  entry naming a PF with remote_managed true, where nova 26.2.2 looks up
  str() of an object that has no __str__ and so raises
  PciDeviceNotFoundById on any host: numafit must give the answer nova
  means (nova run again with PhysicalPciAddress.__str__ lent to the other
  address classes).

Options: --cases N, --seed S, --case K (only case K, printed in full),
--nova-only (no numafit: a summary of nova's outcomes and of what the
generator covered), --library PATH (libnumafit.so.0), --show N (how many
failures are printed in full).

Exit 0 on success, 1 on failure, 77 when nova is missing. Last line:
"N passed, N failed".
"""
import argparse
import json
import logging
import os
import random
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

try:
    from oslo_config import cfg
    import nova.conf.pci as nova_conf_pci
    from nova import exception as nova_exc
    from nova import objects
    from nova.pci import devspec
    from nova.pci import stats as pci_stats
    from nova.pci import utils as pci_utils
    from nova.pci import whitelist
    objects.register_all()
except Exception as e:  # pragma: no cover - environment dependent
    print("nova not importable (%s): skip" % e)
    sys.exit(77)

from numafit_loader import import_numafit  # noqa: E402

SEED = 20261209
CASES = 10000
COMPUTE_NODE_ID = 1

# oslo.config's deprecation warnings and nova's debug messages: not output
logging.getLogger().addHandler(logging.NullHandler())
logging.getLogger().setLevel(logging.CRITICAL)

# ---------------------------------------------------------------- devices

# (vendor, PF or device product, VF product or None, kind)
CARDS = [
    ("8086", "1572", "154c", "nic"),   # X710
    ("8086", "158b", "154c", "nic"),   # XXV710
    ("8086", "1593", "1889", "nic"),   # E810
    ("15b3", "1017", "1018", "nic"),   # ConnectX-5
    ("15b3", "101d", "101e", "nic"),   # ConnectX-6 Dx
    ("15b3", "a2d6", "101e", "dpu"),   # BlueField-2
    ("8086", "37c8", "37c9", "qat"),   # QAT C62x
    ("10de", "1eb8", None, "gpu"),     # T4
    ("10de", "20b5", None, "gpu"),     # A100
    ("8086", "0a54", None, "nvme"),    # P4510
]
BUSES = [(0, 0x18), (0, 0x3b), (0, 0x5e), (0, 0x81), (0, 0xaf), (0, 0xd8), (1, 0x02),
         (0, 0x0a)]
SYSFS_MEMBERS = ("ifname", "sriov_totalvfs", "sriov_vf_device")


def addr(dom, bus, slot, fn):
    return "%04x:%02x:%02x.%x" % (dom, bus, slot, fn)


def gen_devices(r):
    """A host's device list (nova's pci_passthrough_devices plus the sysfs
    members) and the features it has."""
    feat = set()
    want = r.randint(1, 20)
    node_mode = r.random()  # < 0.15: all unknown, < 0.25: random, else by bus
    devs = []
    buses = r.sample(BUSES, r.randint(1, 4))
    used = set()
    ncard = 0
    for _ in range(40):
        if len(devs) >= want:
            break
        vendor, prod, vfprod, kind = r.choice(CARDS)
        dom, bus = r.choice(buses)
        slot = r.choice([0, 0, 0, 1, 2, 3, 4, 6, 8, 0x10, 0x11, 0x1c, 0x1e])
        if (dom, bus, slot) in used:
            continue
        used.add((dom, bus, slot))
        ncard += 1

        def node():
            if node_mode < 0.15:
                return None
            if node_mode < 0.25:
                return r.choice([None, 0, 1, 2, 3])
            return 0 if bus < 0x80 else 1

        def dev(a, v, p, t, **more):
            d = {"address": a, "vendor_id": v, "product_id": p, "dev_type": t,
                 "numa_node": node(), "label": "label_%s_%s" % (v, p),
                 "dev_id": "pci_" + a.replace(":", "_").replace(".", "_")}
            d.update(more)
            devs.append(d)
            return d

        if kind in ("gpu", "nvme"):
            a = addr(dom, bus, slot, 0)
            if kind == "nvme" and r.random() < 0.3:
                a = "10000:%02x:00.0" % r.choice([1, 2])  # behind VMD: a 32-bit domain
                if a in [x["address"] for x in devs]:
                    continue
                feat.add("device in a 32-bit domain")
            dev(a, vendor, prod, "type-PCI")
            continue
        nports = 1 if kind == "qat" else r.choice([1, 2, 2])
        for port in range(nports):
            pa = addr(dom, bus, slot, port)
            if pa in [x["address"] for x in devs]:
                break
            total = r.choice([0, 8, 64, 128]) if r.random() < 0.9 else 0
            nvfs = r.choice([0, 1, 2, 3, 4, 6]) if total else 0
            pf = dev(pa, vendor, prod, "type-PF" if nvfs or (total and r.random() < 0.5)
                     else "type-PCI")
            if kind != "qat":
                pf["ifname"] = "ens%df%d" % (ncard, port)
                pf["capabilities"] = {"network": ["rx", "tx", "sg", "tso", "gso"]}
                if vendor == "15b3" and r.random() < 0.7:
                    pf["capabilities"]["vpd"] = {"card_serial_number": "MT21%04dX%05d" % (
                        ncard, r.randrange(100000))}
            if r.random() < 0.95:
                pf["sriov_totalvfs"] = total
            if total and r.random() < 0.85:
                pf["sriov_vf_device"] = vfprod
            # the VFs: the slots after the PF's, consecutive functions
            vslot = slot + 1 + port * 2 if nports > 1 or r.random() < 0.6 else slot
            first = 0 if vslot != slot else nports
            for i in range(nvfs):
                fn = first + i
                if fn > 7 or vslot > 0x1f:
                    break
                va = addr(dom, bus, vslot, fn)
                if va in [x["address"] for x in devs] or (dom, bus, vslot) in used and vslot != slot:
                    break
                vd = dev(va, vendor, vfprod, "vdpa" if vendor == "15b3" and r.random() < 0.1
                         else "type-VF", parent_addr=pa)
                if kind != "qat":
                    if r.random() < 0.9:
                        vd["parent_ifname"] = pf["ifname"]
                    if r.random() < 0.3:
                        vd["ifname"] = "%sv%d" % (pf["ifname"], i)
                    vd["capabilities"] = {"network": ["rx", "tx"]}
                    if kind == "dpu" or (vendor == "15b3" and r.random() < 0.3):
                        sn = pf.get("capabilities", {}).get("vpd", {}).get(
                            "card_serial_number", "MT2199X00001")
                        vd["capabilities"]["vpd"] = {"card_serial_number": r.choice(
                            [sn, sn, sn, ""])}
                if r.random() < 0.1:
                    vd["sriov_totalvfs"] = 0
            used.add((dom, bus, vslot))
    devs = devs[:want]
    if r.random() < 0.8:
        devs.sort(key=lambda d: d["address"])
    else:
        r.shuffle(devs)
    for d in devs:
        if d["dev_type"] in ("type-VF", "vdpa"):
            feat.add("device " + d["dev_type"])
        if d["numa_node"] is None:
            feat.add("device numa_node null")
    return devs, feat


# ---------------------------------------------------------------- specs

# regex address fields inside the subset libnumafit reads, some refused by
# Python's re (nova then raises PciDeviceWrongAddressFormat)
REGEX_TRICKY = ["*", "[", "(", ")", "a**", "[z-a]", "8??", "()", "|", "[^0]", "..", "[0-9a-f]+",
                "0?", "$", "^", "8+?", "(8|a)f", "[]", "[^]", "a||b", "[.]", "8*$", "^$",
                "[0-", "0-1", ".+", "a|", "+", "?", "[]8]", "[-8]", "((0))", "0*?0",
                "[0-3-f]", "[a-f-]", "", "(()|8)", "0+?$", "8|+"]
# outside it (numafit refuses these: the documented divergence)
REGEX_OUTSIDE = ["\\d+", "8{1}", "(?i)AF", "0*+", "[\\w]+", "\\x38.", "a{,2}", "(?:8)1",
                 "8++", "0?+"]


def hexform(r, v, feat, what):
    """An id in one of the forms nova accepts (or not)."""
    x = r.random()
    if x < 0.65:
        return v
    if x < 0.72:
        feat.add(what + " uppercase")
        return v.upper()
    if x < 0.79:
        feat.add(what + " 0x")
        return r.choice(["0x", "0X"]) + v
    if x < 0.86:
        feat.add(what + " spaces")
        return r.choice([" %s ", "%s ", " %s", "\t%s"]) % v
    if x < 0.9:
        feat.add(what + " short")
        return "%x" % int(v, 16)
    if x < 0.945:
        feat.add(what + " wildcard")
        return r.choice(["*", " * ", "*"])
    if x < 0.97:
        feat.add(what + " invalid")
        return r.choice(["", "zzzz", "10000", "*8086", "0x", "-1", "80_86", "+8086", "8086h",
                         "0x1_0de"])
    feat.add(what + " not a string")
    return r.choice([8086, None, 1.5, True, ["8086"], {}])


def glob_form(r, dom, bus, slot, fn, feat):
    """A glob address string matching DOMAIN:BUS:SLOT.FN (wildcards,
    omitted fields, spaces, short hex)."""
    x = r.random()
    if x < 0.3:
        feat.add("glob wildcard")
        parts = [("%04x" % dom) if r.random() < 0.5 else "*",
                 ("%02x" % bus) if r.random() < 0.7 else "*",
                 ("%02x" % slot) if r.random() < 0.7 else "*",
                 ("%x" % fn) if r.random() < 0.5 else "*"]
        return "%s:%s:%s.%s" % tuple(parts)
    if x < 0.55:
        feat.add("glob partial")
        return r.choice([":%02x:%02x." % (bus, slot), "%02x:%02x." % (bus, slot),
                         "%02x:%02x.%x" % (bus, slot, fn), "%02x.%x" % (slot, fn),
                         ".%x" % fn, "%02x." % slot, ":%02x:." % bus, "%02x:" % slot,
                         "%02x::" % bus, "::.%x" % fn, "%02x:*" % bus, "*", "", ".",
                         ":", "*:%02x:*.*" % bus, " %02x : %02x . %x " % (bus, slot, fn)])
    if x < 0.7:
        feat.add("glob short hex")
        return "%x:%x:%x.%x" % (dom, bus, slot, fn)
    if x < 0.88:
        feat.add("glob uppercase")
        return addr(dom, bus, slot, fn).upper()
    feat.add("glob invalid")
    return r.choice(["%04x:%02x:%02x.8" % (dom, bus, slot), "%04x:%02x:20.%x" % (dom, bus, fn),
                     "%04x:1ff:%02x.%x" % (dom, slot, fn), "10000:%02x:%02x.%x" % (bus, slot, fn),
                     "0000:%s" % addr(dom, bus, slot, fn), "zz:%02x.%x" % (slot, fn),
                     "%02x:%02x.x" % (bus, slot), "%02x-%02x.%x" % (bus, slot, fn),
                     "%02x:%02x.%x.1" % (bus, slot, fn), "%02x:%02x.*x" % (bus, slot),
                     "0x81:00.0", "-1:00.0"])


def regex_field(r, v, width, feat):
    x = r.random()
    h = "%0*x" % (width, v)
    if x < 0.4:
        return h
    if x < 0.5:
        return ".*"
    if x < 0.62:
        return h[:-1] + "."
    if x < 0.7:
        return "(%s|%s)" % (h, "%0*x" % (width, (v + 1) % 8 if width == 1 else v + 1))
    if x < 0.77:
        return "[%x-%x]" % (max(0, v % 16 - 1), v % 16) if width == 1 else \
            h[:-1] + "[0-%x]" % (v % 16)
    if x < 0.82:
        return h[:1]  # re.match: a prefix matches
    if x < 0.86:
        return "^%s$" % h
    if x < 0.9:
        return h.upper()
    if x < 0.96:
        feat.add("regex tricky")
        return r.choice(REGEX_TRICKY)
    return "%0*x" % (width, (v + 2) % (8 if width == 1 else 256))


def gen_address(r, devs, target, spec, feat):
    """Put an address or a devname (or both, or neither) into spec."""
    x = r.random()
    a = target["address"] if target else "0000:81:00.0"
    try:
        dom, bus, slot, fn = [int(p, 16) for p in a.replace(".", ":").split(":")]
    except ValueError:
        dom, bus, slot, fn = 0, 0x81, 0, 0
    if x < 0.25:
        return
    if x < 0.37:
        feat.add("address exact")
        spec["address"] = a
        return
    if x < 0.47:
        pa = target.get("parent_addr") if target else None
        if pa:
            feat.add("address of a PF")
            spec["address"] = pa if r.random() < 0.8 else glob_form(
                r, *[int(p, 16) for p in pa.replace(".", ":").split(":")], feat)
        else:
            spec["address"] = a
        return
    if x < 0.65:
        spec["address"] = glob_form(r, dom, bus, slot, fn, feat)
        return
    if x < 0.8:
        feat.add("regex")
        rx = {}
        for k, v, w in (("domain", dom, 4), ("bus", bus, 2), ("slot", slot, 2),
                        ("function", fn, 1)):
            if r.random() < 0.8:
                rx[k] = regex_field(r, v, w, feat)
        if r.random() < 0.03:
            feat.add("regex outside the subset")
            rx[r.choice(["domain", "bus", "slot", "function"])] = r.choice(REGEX_OUTSIDE)
        if r.random() < 0.02:
            feat.add("regex not a string")
            rx[r.choice(["domain", "bus", "slot", "function"])] = r.choice([0x81, None, ["81"], 1.0])
        if r.random() < 0.03:
            rx["func"] = "0"  # not a key nova reads
        spec["address"] = rx
        return
    if x < 0.81:
        feat.add("address not a string")
        spec["address"] = r.choice([5, True, 0, False, [], {}, None, [a]])
        return
    # devname: a PF's, a VF's, a netdev nobody has
    names = [d["ifname"] for d in devs if "ifname" in d]
    if target and "ifname" in target and r.random() < 0.7:
        name = target["ifname"]
    elif names and r.random() < 0.8:
        name = r.choice(names)
    else:
        name = r.choice(["eth9", "ens9f0", "", "lo"])
        feat.add("devname unknown" if name else "devname empty")
    feat.add("devname")
    spec["devname"] = name
    if r.random() < 0.08:
        feat.add("devname and address")
        spec["address"] = r.choice([a, "", "*:*:*.*"])


def gen_spec(r, devs, feat):
    """One device_spec dict, mostly made to match one of the devices."""
    target = r.choice(devs) if devs and r.random() < 0.85 else None
    spec = {}
    if r.random() < 0.6:
        v = target["vendor_id"] if target else r.choice(["8086", "15b3", "10de", "1137"])
        spec["vendor_id"] = hexform(r, v, feat, "vendor_id")
    if r.random() < 0.5:
        if target and target.get("sriov_vf_device") and r.random() < 0.3:
            p = target["sriov_vf_device"]  # a PF's VF product
        elif target:
            p = target["product_id"]
        else:
            p = r.choice(["154c", "1572", "101e", "1eb8", "0071"])
        spec["product_id"] = hexform(r, p, feat, "product_id")
    gen_address(r, devs, target, spec, feat)
    # tags
    if r.random() < 0.35:
        spec["physical_network"] = r.choice(["physnet1", "physnet2", "PhysNet1", None,
                                             "physnet1"])
        feat.add("tag physical_network")
        if r.random() < 0.03:
            # oslo.config's interpolation of nova.conf values: $$ is $,
            # $NAME and ${NAME} an option's value (none of these names is
            # one: NoSuchOptError), a $ before anything else stays
            spec["physical_network"] = r.choice(["phys$$net", "$$physnet1", "phys$net9",
                                                 "${physnet9}", "net$", "net$1", "a $ b"])
            feat.add("tag with $")
    if r.random() < 0.2:
        v = r.choice(["true", "True", "false", True, False, "yes", "no", "1"])
        spec["trusted"] = v
        feat.add("tag trusted %s" % type(v).__name__)
    if r.random() < 0.15:
        spec["remote_managed"] = r.choice(["true", "True", True, "yes", "1", 1, "on",
                                           "false", False, "no", None, "bogus"])
        feat.add("tag remote_managed")
    if r.random() < 0.15:
        k = r.choice(["capability_type", "foo", "role", "x", "Weird Key", "\u00e9t\u00e9"])
        spec[k] = r.choice(["pci", "bar", "gpu", 5, 1.5, 2.0, True, None, "", "\u00fc"])
        feat.add("tag arbitrary")
    if r.random() < 0.02:
        k = r.choice(["numa_node", "dev_type", "count", "devices", "parent_ifname"])
        spec[k] = r.choice(["1", "x", None, 2, "type-PF", "foo"])
        feat.add("tag named like a pool key (%s)" % k)
    if r.random() < 0.01:
        spec["foo"] = r.choice([["a"], {"a": "b"}, []])
        feat.add("tag list or dict")
    if r.random() < 0.5:
        keys = list(spec)
        r.shuffle(keys)
        spec = {k: spec[k] for k in keys}
    return spec


def entry_text(r, devs, feat):
    """One device_spec value: a JSON dict, a JSON list of them, or a
    mistake."""
    x = r.random()
    if x < 0.03:
        feat.add("entry invalid JSON")
        return r.choice(["{", "{vendor_id: 8086}", "not json", "", "{'vendor_id': '8086'}",
                         '{"vendor_id": "8086",}', "[{}", "}"])
    if x < 0.05:
        feat.add("entry not a dict")
        return r.choice(["5", '"8086"', "[1]", "null", "true", '[{"vendor_id": "8086"}, 2]',
                         "[[]]", "NaN"])
    if x < 0.12:
        feat.add("entry list")
        n = r.choice([0, 1, 2, 2, 3])
        if n == 0:
            feat.add("entry empty list")
        return json.dumps([gen_spec(r, devs, feat) for _ in range(n)])
    spec = gen_spec(r, devs, feat)
    text = json.dumps(spec, ensure_ascii=r.random() < 0.5)
    if spec and r.random() < 0.02:
        feat.add("entry duplicate key")
        k = next(iter(spec))
        text = text[:-1] + ", %s: %s}" % (json.dumps(k), json.dumps(spec[k]))
        text = "{%s: %s, %s" % (json.dumps(k), json.dumps("ignored"), text[1:])
    if r.random() < 0.1:
        text = text.replace(": ", ":").replace(", ", ",")
    return text


KEYS = [("pci", "device_spec", 0.75), ("pci", "passthrough_whitelist", 0.15),
        ("DEFAULT", "pci_passthrough_whitelist", 0.1)]


def gen_conf(r, devs, feat):
    """A nova.conf text."""
    entries = []  # (section, key, value)
    n = r.choice([0, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 4, 4])
    if n == 0:
        feat.add("conf no device_spec")
    for _ in range(n):
        x = r.random()
        for sec, key, p in KEYS:
            if x < p:
                break
            x -= p
        if key != "device_spec":
            feat.add("conf deprecated name " + key)
        entries.append((sec, key, entry_text(r, devs, feat)))
    out = []
    if r.random() < 0.3:
        out += ["# nova.conf", "[DEFAULT]", "debug = false", ""]
    if r.random() < 0.2:
        out += ["[libvirt]", "virt_type = kvm"]
        if entries and r.random() < 0.5:
            feat.add("conf device_spec in another section")
            out.append("device_spec = %s" % entries[0][2])
        out.append("")
    # the entries grouped by section, sometimes a section twice
    order = sorted(range(len(entries)), key=lambda i: (entries[i][0] != "DEFAULT", i)) \
        if r.random() < 0.7 else list(range(len(entries)))
    section = None
    for i in order:
        sec, key, val = entries[i]
        if sec != section or r.random() < 0.1:
            out.append("[%s]" % sec)
            section = sec
        if r.random() < 0.1:
            out.append(r.choice(["# a comment", "; another", "#device_spec = {}"]))
        sep = r.choice([" = ", "=", " =", "= "]) if r.random() < 0.2 else " = "
        if r.random() < 0.05 and val.startswith("{") and ", " in val:
            feat.add("conf multi-line value")
            head, tail = val.split(", ", 1)
            out.append("%s%s%s," % (key, sep, head))
            out.append("    " + tail)
            continue
        if r.random() < 0.02:
            feat.add("conf quoted value")
            val = "'%s'" % val
        if r.random() < 0.02:
            feat.add("conf colon separator")
            sep = ": "
        out.append("%s%s%s" % (key, sep, val))
        if r.random() < 0.05:
            out.append("alias = {\"name\": \"a1\", \"vendor_id\": \"8086\"}")
    if r.random() < 0.1:
        out += ["[pci]", "report_in_placement = %s" % r.choice(["true", "false"])]
    return "\n".join(out) + "\n"


def gen_case(seed, case):
    r = random.Random("%d/%d" % (seed, case))
    devs, feat = gen_devices(r)
    conf = gen_conf(r, devs, feat)
    return devs, conf, feat


# ---------------------------------------------------------------- nova


class FakeSysfs:
    """nova.pci.utils' sysfs readers, answering from a case's device list
    as a Linux sysfs with those devices would (the device list's ifname,
    sriov_totalvfs and sriov_vf_device members)."""

    def __init__(self):
        self.by_addr = {}
        self.by_ifname = {}
        self.odd_pf_addr = False

    def load(self, devs):
        self.by_addr = {d["address"]: d for d in devs}
        self.by_ifname = {d["ifname"]: d for d in devs if "ifname" in d}
        self.odd_pf_addr = False

    @staticmethod
    def _pf(d):
        t = d.get("sriov_totalvfs")  # no file (or not a number): not a PF
        return isinstance(t, int) and t > 0

    def get_function_by_ifname(self, ifname):
        # /sys/class/net/IFNAME/device, a link to the PCI device's directory
        d = self.by_ifname.get("%s" % (ifname,))
        if d is None:
            return None, False
        return d["address"], self._pf(d)

    def is_physical_function(self, domain, bus, slot, function):
        # /sys/bus/pci/devices/D:B:S.F/sriov_totalvfs (the path as given:
        # sysfs names are lowercase with 4/2/2/1 digits)
        d = self.by_addr.get("%s:%s:%s.%s" % (domain, bus, slot, function))
        return d is not None and self._pf(d)

    def get_vf_product_id_by_pf_addr(self, pci_addr):
        if not ADDRESS_RE.match(pci_addr):
            # str() of a PciAddressGlobSpec or PciAddressRegexSpec (nova
            # 26.2.2's remote_managed check of an "address" naming a PF):
            # the text of an object, "<nova.pci.devspec... at 0x...>"
            self.odd_pf_addr = True
        d = self.by_addr.get(pci_addr)
        if d is None or "sriov_vf_device" not in d:
            raise nova_exc.PciDeviceNotFoundById(id=pci_addr)
        v = d["sriov_vf_device"].strip()
        if not v:
            raise ValueError("sriov_vf_device file does not contain a VF product ID")
        return v

    def get_pci_ids_by_pci_addr(self, pci_addr):
        # NOTE: nova 26.2.2 reads the files "vendor" and "product"; Linux
        # sysfs has "vendor" and "device" (no "product"), so on a real host
        # this always raises PciDeviceNotFoundById. Modelled here is the
        # intended behaviour: the device's vendor and product ids (sysfs's
        # "0x8086" with "0x" removed).
        d = self.by_addr.get(pci_addr)
        if d is None:
            raise nova_exc.PciDeviceNotFoundById(id=pci_addr)
        return (d["vendor_id"], d["product_id"])


ADDRESS_RE = re.compile(r"^[0-9a-fA-F]+:[0-9a-fA-F]+:[0-9a-fA-F]+\.[0-9a-fA-F]+$")
SYSFS = FakeSysfs()
for _name in ("get_function_by_ifname", "is_physical_function", "get_vf_product_id_by_pf_addr",
              "get_pci_ids_by_pci_addr"):
    setattr(pci_utils, _name, getattr(SYSFS, _name))

# counting the VFs nova matches through their PF's address (parent_addr)
PARENT_MATCHES = [0]
_orig_match = devspec.WhitelistPciAddress.match


def _counting_match(self, pci_addr, pci_phys_addr):
    res = _orig_match(self, pci_addr, pci_phys_addr)
    if res and pci_phys_addr and self.is_physical_function and \
            not _orig_match(self, pci_addr, None):
        PARENT_MATCHES[0] += 1
    return res


devspec.WhitelistPciAddress.match = _counting_match


class NovaConf:
    """nova's [pci] options in an oslo.config ConfigOpts of their own,
    read from a file rewritten for each case (in /dev/shm when there is
    one: a file system in memory)."""

    def __init__(self):
        d = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
        fd, self.path = tempfile.mkstemp(prefix="numafit-devspec-", suffix=".conf", dir=d)
        os.close(fd)
        self.conf = cfg.ConfigOpts()
        nova_conf_pci.register_opts(self.conf)
        self.conf(["--config-file", self.path], project="nova", default_config_files=[],
                  default_config_dirs=[], use_env=False)

    def device_spec(self, text):
        with open(self.path, "w", encoding="utf-8") as f:
            f.write(text)
        self.conf.reload_config_files()
        return self.conf.pci.device_spec

    def close(self):
        os.unlink(self.path)


def nova_run(conf, devs, text):
    """('ok', flat pools) or ('exc', class name, nova's or not)."""
    SYSFS.load(devs)
    try:
        specs = conf.device_spec(text)
        wl = whitelist.Whitelist(specs)
        # the virt driver's JSON, without libnumafit's sysfs members
        hv = json.loads(json.dumps([{k: v for k, v in d.items() if k not in SYSFS_MEMBERS}
                                    for d in devs]))
        st = pci_stats.PciDeviceStats(None, dev_filter=wl)
        for dev in hv:
            try:
                if not wl.device_assignable(dev):
                    continue
            except nova_exc.PciConfigInvalidSpec:
                continue  # nova skips the device (a 32-bit domain)
            dev["compute_node_id"] = COMPUTE_NODE_ID
            st.add_device(objects.PciDevice.create(None, dev))
        pools = [p.to_dict() for p in st.to_device_pools_obj()]
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return ("exc", type(e).__name__, isinstance(e, nova_exc.NovaException))
    return ("ok", pools)


def nova_side(conf, devs, text):
    """nova's answer, and the one it means (None when the same): an
    "address" entry naming a PF with remote_managed true makes nova 26.2.2
    look up the VF product of str() of its address object, which only
    PhysicalPciAddress defines (a devname's PF), so on a real host it
    raises PciDeviceNotFoundById. The meant answer is nova's with
    PhysicalPciAddress.__str__ lent to the glob and regex address classes
    for the run (doc/pci.md: libnumafit checks what nova means to check)."""
    nova = nova_run(conf, devs, text)
    if nova[0] != "exc" or nova[1] != "PciDeviceNotFoundById" or not SYSFS.odd_pf_addr:
        return nova, None
    classes = (devspec.PciAddressGlobSpec, devspec.PciAddressRegexSpec)
    for c in classes:
        c.__str__ = devspec.PhysicalPciAddress.__str__
    try:
        meant = nova_run(conf, devs, text)
    finally:
        for c in classes:
            del c.__str__
    return nova, meant


# ---------------------------------------------------------------- numafit


def ours_side(numafit, devs, text):
    """('ok', flat pools, nova's reading of the primitive) or ('exc', class
    name, text)."""
    try:
        with numafit.PciDevices.from_json(json.dumps(devs)) as nd:
            with numafit.PciPools.from_devices(nd, nova_conf=text, profile="zed") as p:
                pools = p.pools()
                prim = p.to_dict()
    except numafit.errors.NumafitError as e:
        return ("exc", e.exception or "rc=%d" % e.errno, str(e))
    try:
        back = [q.to_dict() for q in objects.PciDevicePoolList.obj_from_primitive(prim)]
    except Exception as e:  # noqa: BLE001
        back = "nova cannot read it: %s: %s" % (type(e).__name__, e)
    return ("ok", pools, back)


# documented divergences (doc/pci.md, "Where libnumafit differs"): numafit
# refuses with PciConfigInvalidSpec (any refusal for the regex subset)
REFUSED = ["regex outside the subset", "tag list or dict", "tag named like a pool key (count)",
           "tag named like a pool key (devices)", "tag named like a pool key (numa_node)"]


# nova's crashes on a value of the wrong JSON type (vendor_id.strip(),
# int(product_id, 16), re.compile(field), a pool's tags)
CRASHES = ("AttributeError", "TypeError", "ValueError")


def compare(nova, meant, ours, feat):
    """(verdict, problem): verdict "agree", "crash refused", "divergence:
    WHY" or "FAIL"."""
    for f in REFUSED:
        if f in feat and ours[0] == "exc" and (
                f == REFUSED[0] or ours[1] == "PciConfigInvalidSpec"):
            if nova[0] == "exc" and ours[1] == nova[1]:
                return "agree", None
            return "divergence: " + f, None
    if "regex outside the subset" in feat:
        return "FAIL", "numafit did not refuse a regex outside its subset: %s" % fmt(ours)
    target, label = nova, "agree"
    if meant is not None:
        target, label = meant, "divergence: remote_managed PF address"
    if same(target, ours):
        if target[0] == "ok" and ours[2] != target[1]:
            return "FAIL", "numafit's primitive, as nova reads it: %s" % (ours[2],)
        return label, None
    if target[0] == "exc" and target[1] in CRASHES and ours[0] == "exc" and \
            ours[1] == "PciConfigInvalidSpec":
        return "crash refused", None
    return "FAIL", "the answers differ"


def same(nova, ours):
    if nova[0] != ours[0]:
        return False
    return nova[1] == ours[1]


def fmt(ans):
    if ans[0] == "exc":
        if isinstance(ans[2], str):
            return "raised %s (%s)" % (ans[1], ans[2])
        return "raised %s" % ans[1]
    return "pools %s" % json.dumps(ans[1])


def outcome(nova):
    if nova[0] == "exc":
        return "nova raised %s" % nova[1]
    return "pools" if nova[1] else "no pools"


def show_case(case, devs, text, nova, meant, ours=None, problem=None):
    print("case %d\n  devices %s\n  nova.conf:\n    %s\n  nova: %s" % (
        case, json.dumps(devs), "\n    ".join(text.rstrip("\n").split("\n")), fmt(nova)))
    if meant is not None:
        print("  nova meant: %s" % fmt(meant))
    if ours is not None:
        print("  numafit: %s" % fmt(ours))
    if problem:
        print("  " + problem)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--library")
    ap.add_argument("--numafit")  # accepted as the other differential tests do
    ap.add_argument("--cases", type=int, default=CASES)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--case", type=int, help="run only case K and print it")
    ap.add_argument("--nova-only", action="store_true",
                    help="nova only: the outcomes and what the generator covered")
    ap.add_argument("--show", type=int, default=5, help="failures printed in full")
    args = ap.parse_args()
    numafit = None
    if not args.nova_only:
        numafit = import_numafit(args.library)
        if not hasattr(numafit, "PciDevices") or not hasattr(numafit.PciPools, "from_devices"):
            print("numafit has no PciDevices / PciPools.from_devices (binding too old)")
            return 1
    conf = NovaConf()
    cases = [args.case] if args.case is not None else range(args.cases)
    passed = failed = 0
    outcomes, verdicts, feats, feat_pools = {}, {}, {}, {}
    fails = []
    t0 = time.time()
    tn = to = 0.0
    try:
        for case in cases:
            devs, text, feat = gen_case(args.seed, case)
            t1 = time.time()
            nova, meant = nova_side(conf, devs, text)
            t2 = time.time()
            tn += t2 - t1
            o = outcome(nova)
            outcomes[o] = outcomes.get(o, 0) + 1
            for f in feat:
                feats[f] = feats.get(f, 0) + 1
                if o == "pools":
                    feat_pools[f] = feat_pools.get(f, 0) + 1
            if numafit is None:
                if args.case is not None:
                    show_case(case, devs, text, nova, meant)
                continue
            ours = ours_side(numafit, devs, text)
            to += time.time() - t2
            verdict, problem = compare(nova, meant, ours, feat)
            verdicts[verdict] = verdicts.get(verdict, 0) + 1
            if args.case is not None:
                show_case(case, devs, text, nova, meant, ours, problem)
            if problem:
                failed += 1
                fails.append(case)
                if failed <= args.show and args.case is None:
                    print("FAIL", end=" ")
                    show_case(case, devs, text, nova, meant, ours, problem)
            else:
                passed += 1
    finally:
        conf.close()
    print("nova's outcomes: " + ", ".join("%s: %d" % kv for kv in sorted(outcomes.items())))
    if args.nova_only or args.case is not None:
        print("VFs matched through their PF's address: %d" % PARENT_MATCHES[0])
        print("generator's features (cases, cases with pools):")
        for f in sorted(feats):
            print("  %s: %d, %d" % (f, feats[f], feat_pools.get(f, 0)))
    print("nova %.1fs, numafit %.1fs, all %.1fs" % (tn, to, time.time() - t0))
    if numafit is None:
        return 0
    print("verdicts: " + ", ".join("%s: %d" % kv for kv in sorted(verdicts.items())))
    print("(crash refused: nova raised a Python exception, numafit PciConfigInvalidSpec; "
          "divergences: doc/pci.md)")
    if fails:
        print("failed cases (--case K to see one): %s%s" % (
            " ".join(map(str, fails[:50])), " ..." if len(fails) > 50 else ""))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
