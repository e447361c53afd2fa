#!/usr/bin/python3
"""Differential check of libnumafit's node device XML reader against nova.

For each set of libvirt node device documents (the fixtures
tests/data/pci/*/nodedev/*.xml, then randomly generated hosts: PFs with and
without VFs or maxCount, VFs with and without net devices, vDPA VFs, VFs of
a PF libvirt does not list, function capabilities in either order, VPD
serial numbers, missing NUMA nodes, several PCI domains including 32-bit
ones, libvirt's and other device names, net devices of other devices) this
runs Debian 12's nova 26.2.2 (/usr/lib/python3/dist-packages) as its
libvirt driver runs on a compute node: driver.LibvirtDriver.
_get_pci_passthrough_devices over fake virNodeDevice objects (name(),
parent(), listCaps(), XMLDesc()), which calls host.Host._get_pcidev_info
for each PCI function. nova reads a VF's PF interface from sysfs
(nova.pci.utils.get_ifname_by_pci_address(pf_interface=True):
VF/physfn/net); the fake sysfs answers with the interface of the net devices
whose parent is the PF (the last in sorted order: nova's os.listdir().pop()),
and raises PciDeviceNotFoundById for the MAC address and VF number (as for
a PF bound to a guest), so no sriov capability is reported.

libnumafit reads the same documents (numafit.PciDevices.from_nodedev_xml,
or numafit_pci_devices_new_from_nodedev_xml through ctypes when the binding
lacks it); the devices must agree in address, vendor_id, product_id,
dev_type, numa_node, parent_addr, parent_ifname, dev_id, label (each
present or absent alike) and capabilities.vpd.

Usage: /usr/bin/python3 tests/nova_pci_nodedev_diff.py [--cases N] [--seed S]
  [--library PATH]   (default $NUMAFIT_LIBRARY, else libnumafit.so.0)
Exits 1 on the first mismatch (printing the documents), 0 when all agree.
"""
import argparse
import ctypes
import glob
import json
import os
import random
import sys
import types
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
FIELDS = ("address", "vendor_id", "product_id", "dev_type", "numa_node", "parent_addr",
          "parent_ifname", "dev_id", "label")


# ------------------------------------------------------------ nova


def fmt_addr(d, b, s, f):
    return "%04x:%02x:%02x.%x" % (d, b, s, f)


def libvirt_name(addr):
    return "pci_" + addr.replace(":", "_").replace(".", "_")


class FakeNodeDevice:
    """What nova uses of libvirt.virNodeDevice."""

    def __init__(self, xml):
        self.xml = xml
        root = ET.fromstring(xml)
        self._name = root.findtext("name")
        self._parent = root.findtext("parent")
        self.caps = [c.get("type") for c in root.findall("capability")]
        self.root = root

    def name(self):
        return self._name

    def parent(self):
        return self._parent

    def listCaps(self):
        return list(self.caps)

    def XMLDesc(self, flags=0):
        return self.xml


class FakeSysfs:
    """/sys/bus/pci/devices as the documents describe it."""

    def __init__(self, devs):
        self.pci = {}
        self.nets = {}
        for d in devs:
            if "pci" in d.caps:
                cap = d.root.find("capability[@type='pci']")
                addr = fmt_addr(*(int(cap.findtext(k)) for k in
                                  ("domain", "bus", "slot", "function")))
                pf = None
                for sub in cap.findall("capability[@type='phys_function']"):
                    a = sub.find("address")
                    if a is not None:
                        pf = fmt_addr(*(int(a.get(k), 16) for k in
                                        ("domain", "bus", "slot", "function")))
                        break
                self.pci[addr] = (d.name(), pf)
            if "net" in d.caps:
                ifname = d.root.find("capability[@type='net']").findtext("interface")
                self.nets.setdefault(d.parent(), []).append(ifname)

    def pf_ifname(self, vf_addr):
        _, pf = self.pci.get(vf_addr, (None, None))
        if pf is None:
            return None
        name = self.pci[pf][0] if pf in self.pci else libvirt_name(pf)
        names = sorted(self.nets.get(name, []))
        return names[-1] if names else None


def load_nova():
    sys.path.insert(0, "/usr/lib/python3/dist-packages")
    from nova import exception
    from nova.pci import utils as pci_utils
    from nova.virt.libvirt import driver as nova_driver
    from nova.virt.libvirt import host as nova_host

    state = {}

    def get_ifname_by_pci_address(pci_addr, pf_interface=False):
        name = state["sysfs"].pf_ifname(pci_addr) if pf_interface else None
        if name is None:
            raise exception.PciDeviceNotFoundById(id=pci_addr)
        return name

    def not_found(pci_addr, *args, **kwargs):
        raise exception.PciDeviceNotFoundById(id=pci_addr)

    pci_utils.get_ifname_by_pci_address = get_ifname_by_pci_address
    pci_utils.get_mac_by_pci_address = not_found
    pci_utils.get_vf_num_by_pci_address = not_found
    if nova_driver.libvirt is None:  # no python3-libvirt: the constants nova reads
        nova_driver.libvirt = types.SimpleNamespace(
            VIR_CONNECT_LIST_NODE_DEVICES_CAP_NET=1 << 4,
            VIR_CONNECT_LIST_NODE_DEVICES_CAP_PCI_DEV=1 << 1,
            VIR_CONNECT_LIST_NODE_DEVICES_CAP_VDPA=1 << 17,
            libvirtError=type("libvirtError", (Exception,), {}))

    class FakeHost(nova_host.Host):
        def __init__(self, devs):  # no connection
            self.devs = devs

        def list_all_devices(self, flags=0):
            return list(self.devs)

        def has_min_version(self, lv_ver=None, hv_ver=None, hv_type=None):
            return True

    def run(docs):
        devs = [FakeNodeDevice(x) for x in docs]
        state["sysfs"] = FakeSysfs(devs)
        drv = types.SimpleNamespace(_host=FakeHost(devs))
        return json.loads(nova_driver.LibvirtDriver._get_pci_passthrough_devices(drv))

    return run


# ------------------------------------------------------------ libnumafit


def load_numafit(library):
    sys.path.insert(0, HERE)
    from numafit_loader import import_numafit
    try:
        numafit = import_numafit(library)
        if hasattr(numafit.PciDevices, "from_nodedev_xml"):
            numafit.PciDevices.from_nodedev_xml([]).close()
            return lambda docs: numafit.PciDevices.from_nodedev_xml(docs).to_list()
    except (ImportError, AttributeError):
        pass
    # the binding without the reader: the C functions themselves
    lib = ctypes.CDLL(library or os.environ.get("NUMAFIT_LIBRARY") or "libnumafit.so.0")
    err = ctypes.create_string_buffer(1024)  # numafit_error_t is smaller
    new = lib.numafit_pci_devices_new_from_nodedev_xml
    new.argtypes = [ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_size_t),
                    ctypes.c_size_t, ctypes.c_uint, ctypes.POINTER(ctypes.c_void_p),
                    ctypes.c_void_p]
    to_json = lib.numafit_pci_devices_to_json
    to_json.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.POINTER(ctypes.c_void_p),
                        ctypes.c_void_p]
    lib.numafit_pci_devices_free.argtypes = [ctypes.c_void_p]
    lib.numafit_free.argtypes = [ctypes.c_void_p]

    def run(docs):
        enc = [d.encode() for d in docs]
        arr = (ctypes.c_char_p * max(len(enc), 1))(*enc)
        lens = (ctypes.c_size_t * max(len(enc), 1))(*[len(e) for e in enc])
        h, out = ctypes.c_void_p(), ctypes.c_void_p()
        r = new(arr, lens, len(enc), 0, ctypes.byref(h), err)
        if r < 0:
            raise RuntimeError("numafit_pci_devices_new_from_nodedev_xml: %d %r" % (r, err.raw))
        try:
            if to_json(h, 0, ctypes.byref(out), err) < 0:
                raise RuntimeError("numafit_pci_devices_to_json failed")
            text = ctypes.string_at(out.value).decode()
            lib.numafit_free(out)
        finally:
            lib.numafit_pci_devices_free(h)
        return json.loads(text)

    return run


# ------------------------------------------------------------ random hosts


def hexid(rng, v, width=4):
    return rng.choice(["0x%0*x" % (width, v), "%x" % v, "0X%0*X" % (width, v), " 0x%x " % v])


def address_xml(rng, a):
    d, b, s, f = a
    if rng.random() < 0.8:  # libvirt's own format
        return "<address domain='0x%04x' bus='0x%02x' slot='0x%02x' function='0x%d'/>" % a
    return "<address domain='%s' bus='%s' slot='%s' function='%s'/>" % (
        hexid(rng, d), hexid(rng, b, 2), hexid(rng, s, 2), hexid(rng, f, 1))


def vpd_xml(rng, serial, access="readonly"):
    inner = ("<serial_number>%s</serial_number>" % serial) if serial is not None else ""
    return ("<capability type='vpd'><name>Card</name><fields access='%s'>"
            "<part_number>P1</part_number>%s</fields></capability>" % (access, inner))


class Pci:
    def __init__(self, addr, name):
        self.addr, self.name = addr, name
        self.vendor, self.product = 0x8086, 0x1572
        self.numa = []  # <numa> elements in order
        self.funcs = []  # XML of the function capabilities, in order
        self.vpd = []
        self.parent = "computer"

    def xml(self, rng):
        d, b, s, f = self.addr
        num = (lambda v: rng.choice(["%d" % v, " %d " % v, "\n%d\n" % v])
               if rng.random() < 0.2 else "%d" % v)
        parts = ["<device>", "<name>%s</name>" % self.name, "<parent>%s</parent>" % self.parent,
                 "<driver><name>vfio-pci</name></driver>", "<capability type='pci'>",
                 "<class>0x020000</class>", "<domain>%s</domain>" % num(d),
                 "<bus>%s</bus>" % num(b), "<slot>%s</slot>" % num(s),
                 "<function>%s</function>" % num(f),
                 "<product id='%s'>P</product>" % hexid(rng, self.product),
                 "<vendor id='%s'>V</vendor>" % hexid(rng, self.vendor)]
        parts += self.funcs + self.vpd
        parts.append("<iommuGroup number='%d'>%s</iommuGroup>"
                     % (rng.randrange(100), address_xml(rng, self.addr)))
        parts += ["<numa node='%d'/>" % n for n in self.numa]
        parts += ["</capability>", "</device>"]
        return ("\n  " if rng.random() < 0.5 else "").join(parts)


def gen_host(rng):
    used, names = set(), set()
    domains = rng.choice([[0], [0, rng.randrange(1, 0x10000)],
                          [0, rng.randrange(0x10000, 1 << 32)],
                          [rng.randrange(0x10000, 1 << 32), rng.randrange(1, 1 << 32)]])

    def new_addr(domain=None, bus=None):
        while True:
            a = (rng.choice(domains) if domain is None else domain,
                 rng.randrange(256) if bus is None else bus, rng.randrange(32), rng.randrange(8))
            if a not in used:
                used.add(a)
                return a

    def new_name(a, custom=0.1):
        n = libvirt_name(fmt_addr(*a))
        if rng.random() < custom or n in names:
            n = "pci_dev_%d" % len(names)
        names.add(n)
        return n

    pcis, docs, vfs = [], [], []

    def numa(p):
        k = rng.choice([0, 1, 1, 1, 2])
        p.numa = [rng.randrange(8) for _ in range(k)]

    for _ in range(rng.randrange(0, 4)):  # plain functions
        a = new_addr()
        p = Pci(a, new_name(a))
        p.vendor, p.product = rng.randrange(1 << 16), rng.randrange(1 << 16)
        numa(p)
        if rng.random() < 0.15:
            p.funcs.append("<capability type='phys_function'></capability>")
        if rng.random() < 0.2:
            p.vpd.append(vpd_xml(rng, "SN%d" % rng.randrange(1000)))
        pcis.append(p)
    for _ in range(rng.randrange(0, 4)):  # PFs and their VFs
        a = new_addr()
        pf = Pci(a, new_name(a))
        pf.product = rng.choice([0x1572, 0x10FB, 0x101D])
        numa(pf)
        kvf = rng.randrange(0, 5)
        vf_addrs = [new_addr(a[0], a[1]) for _ in range(kvf)]
        total = rng.choice([None, kvf, kvf + rng.randrange(1, 60)])
        head = "<capability type='virt_functions'%s" % (
            "" if total is None else " maxCount='%d'" % total)
        if vf_addrs:
            pf.funcs.append(head + ">" + "".join(address_xml(rng, v) for v in vf_addrs)
                            + "</capability>")
        else:
            pf.funcs.append(head + "/>")
        if rng.random() < 0.3:
            pf.vpd.append(vpd_xml(rng, rng.choice(["MT2113X00001", "", None])))
        if rng.random() < 0.1:
            pf.vpd.append(vpd_xml(rng, "RW-SERIAL", "readwrite"))
        listed = rng.random() < 0.9
        if listed:
            pcis.append(pf)
        for va in vf_addrs:
            vf = Pci(va, new_name(va))
            vf.product = pf.product + 1
            vf.numa = list(pf.numa) if rng.random() < 0.9 else []
            vf.parent = pf.parent
            phys = "<capability type='phys_function'>%s</capability>" % address_xml(rng, a)
            r = rng.random()
            if r < 0.05:
                vf.funcs = ["<capability type='virt_functions'/>", phys]
            elif r < 0.1:
                vf.funcs = [phys, "<capability type='virt_functions'/>"]
            else:
                vf.funcs = [phys]
            if rng.random() < 0.1:
                vf.vpd.append(vpd_xml(rng, "VF%d" % rng.randrange(100)))
            pcis.append(vf)
            vfs.append(vf)
        # the PF's net devices (a PF libvirt does not list may still have some)
        for i in range(rng.choice([0, 1, 1, 2, 3])):
            docs.append(("net", pf.name, "enp%ds%df%dnp%d" % (a[1], a[2], a[3], i)))
    for vf in vfs:
        if rng.random() < 0.6:
            docs.append(("net", vf.name, "vf%d" % len(docs)))
        if rng.random() < 0.2:
            docs.append(("vdpa", vf.name, None))
    for p in pcis:
        if p not in vfs and rng.random() < 0.1:
            docs.append(("net" if rng.random() < 0.5 else "vdpa", p.name, "eth%d" % len(docs)))
    if rng.random() < 0.2:
        docs.append(("net", "computer", "lo%d" % len(docs)))
    out = [p.xml(rng) for p in pcis]
    for i, (kind, parent, ifname) in enumerate(docs):
        name = "%s_%d_%s" % (kind, i, ifname or "x")
        if kind == "net":
            out.append("<device><name>%s</name><path>/sys/x</path><parent>%s</parent>"
                       "<capability type='net'><interface>%s</interface>"
                       "<address>52:54:00:00:00:%02x</address><link state='up'/>"
                       "<feature name='rx'/><capability type='80203'/></capability></device>"
                       % (name, parent, ifname, i % 256))
        else:
            out.append("<device><name>%s</name><parent>%s</parent><capability type='vdpa'>"
                       "<chardev>/dev/vhost-vdpa-%d</chardev></capability></device>"
                       % (name, parent, i))
    if rng.random() < 0.2:
        out.append("<device><name>usb_1_%d</name><parent>computer</parent>"
                   "<capability type='usb_device'><bus>1</bus><device>2</device>"
                   "<product id='0x0001'/><vendor id='0x1d6b'/></capability></device>"
                   % rng.randrange(1000))
    rng.shuffle(out)
    return out


# ------------------------------------------------------------ comparing


def compare(nova_list, ours_list):
    """None when they agree, else what differs."""
    a = {d["address"]: d for d in nova_list}
    b = {d["address"]: d for d in ours_list}
    if len(a) != len(nova_list) or sorted(a) != sorted(b) or len(b) != len(ours_list):
        return "addresses: nova %s, libnumafit %s" % (sorted(a), sorted(b))
    for addr in sorted(a):
        x, y = a[addr], b[addr]
        for k in FIELDS:
            if (k in x, x.get(k)) != (k in y, y.get(k)):
                return "%s %s: nova %r, libnumafit %r" % (
                    addr, k, x.get(k, "(absent)"), y.get(k, "(absent)"))
        vx = x.get("capabilities", {}).get("vpd")
        vy = y.get("capabilities", {}).get("vpd")
        if vx != vy:
            return "%s capabilities.vpd: nova %r, libnumafit %r" % (addr, vx, vy)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=20240611)
    ap.add_argument("--library", default=None)
    args = ap.parse_args()

    nova_run = load_nova()
    ours_run = load_numafit(args.library)
    sets = []
    for host in sorted(glob.glob(os.path.join(HERE, "data", "pci", "*", "nodedev"))):
        docs = []
        for path in sorted(glob.glob(os.path.join(host, "*.xml"))):
            with open(path) as f:
                docs.append(f.read())
        sets.append((os.path.relpath(host, HERE), docs))
    rng = random.Random(args.seed)
    for i in range(args.cases):
        sets.append(("random case %d (seed %d)" % (i, args.seed), gen_host(rng)))
    ndev = 0
    for what, docs in sets:
        want = nova_run(docs)
        got = ours_run(docs)
        ndev += len(want)
        diff = compare(want, got)
        if diff:
            print("MISMATCH in %s: %s" % (what, diff))
            print("--- documents:")
            for d in docs:
                print(d)
            print("--- nova:", json.dumps(want, indent=1, sort_keys=True))
            print("--- libnumafit:", json.dumps(got, indent=1, sort_keys=True))
            return 1
    print("nova_pci_nodedev_diff: %d document sets (%d fixtures, %d random), %d devices: "
          "libnumafit agrees with nova" % (len(sets), len(sets) - args.cases, args.cases, ndev))
    return 0


if __name__ == "__main__":
    sys.exit(main())
