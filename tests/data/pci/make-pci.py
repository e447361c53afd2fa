#!/usr/bin/python3
"""Write the PCI discovery fixtures of tests/check_pci_discovery.c from one
description per host:

  tests/data/pci/<host>/sys/...            a captured sysfs tree: sys/bus/pci/
                                           devices/ADDRESS links into sys/devices,
                                           physfn / virtfnN links, net/IFNAME,
                                           sys/bus/vdpa/devices/vdpaN links
  tests/data/pci/<host>/nodedev/NAME.xml   what `virsh nodedev-dumpxml NAME`
                                           (libvirt 9.0) prints for the same host:
                                           the PCI functions, net and vdpa devices

Both come from the same description, the XML the way libvirt's node device
driver builds it from that sysfs tree (udevProcessPCI; the SR-IOV
capabilities of virNodeDeviceGetPCISRIOVCaps: phys_function from physfn,
virt_functions from virtfnN and sriov_totalvfs; <numa> only for numa_node
>= 0), so that the test can check that the two readers give the same
devices. Regenerate with

    /usr/bin/python3 tests/data/pci/make-pci.py

x710-cx6: a two-socket Intel server. Node 0: the root complex, an NVIDIA
Tesla T4 (10de:1eb8) and an NVMe drive behind Intel VMD (PCI domain 10000).
Node 1: an Intel X710 dual port (8086:1572), port 0 with 4 VFs (8086:154c:
two bound to iavf with a netdev, one to vfio-pci, one unbound) and port 1
with none enabled. Unknown node (numa_node -1): a Mellanox ConnectX-6 Dx
(15b3:101d) in switchdev mode whose PF netdev directory also holds the VF
representors, with 2 VFs (15b3:101e), the first one a vDPA device's parent.
"""
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))


def key(addr):
    d, b, sf = addr.split(":")
    s, f = sf.split(".")
    return (int(d, 16), int(b, 16), int(s, 16), int(f, 16))


def fmt(addr):
    d, b, s, f = key(addr)
    return "%04x:%02x:%02x.%x" % (d, b, s, f)


def name_of(addr):
    return "pci_" + fmt(addr).replace(":", "_").replace(".", "_")


class Dev:
    def __init__(self, addr, parent_path, vendor, device, cls, numa, vname, pname,
                 driver=None, totalvfs=None, vf_device=None, physfn=None, vfs=(),
                 net=(), mac=None, vdpa=None, iommu=None):
        self.addr, self.parent_path = addr, parent_path
        self.vendor, self.device, self.cls, self.numa = vendor, device, cls, numa
        self.vname, self.pname, self.driver = vname, pname, driver
        self.totalvfs, self.vf_device, self.physfn = totalvfs, vf_device, physfn
        self.vfs, self.net, self.mac, self.vdpa, self.iommu = list(vfs), list(net), mac, vdpa, iommu

    @property
    def path(self):
        return "%s/%s" % (self.parent_path, self.addr)


INTEL, NVIDIA, MLX = 0x8086, 0x10DE, 0x15B3


def x710_cx6():
    p0 = "devices/pci0000:00"
    p3a = "devices/pci0000:3a/0000:3a:00.0"
    p80 = "devices/pci0000:80/0000:80:03.0"
    pae = "devices/pci0000:ae/0000:ae:00.0"
    pvmd = "devices/pci0000:5d/0000:5d:05.5/pci10000:00"
    x710 = "Ethernet Controller X710 for 10GbE SFP+"
    x710vf = "Ethernet Virtual Function 700 Series"
    cx6 = "MT2892 Family [ConnectX-6 Dx]"
    cx6vf = "ConnectX Family mlx5Gen Virtual Function"
    devs = [
        Dev("0000:00:00.0", p0, INTEL, 0x2020, 0x060000, 0, "Intel Corporation",
            "Sky Lake-E DMI3 Registers", iommu=0),
        Dev("0000:3a:00.0", "devices/pci0000:3a", INTEL, 0x2030, 0x060400, 0,
            "Intel Corporation", "Sky Lake-E PCI Express Root Port A", driver="pcieport",
            iommu=30),
        Dev("0000:3b:00.0", p3a, NVIDIA, 0x1EB8, 0x030200, 0, "NVIDIA Corporation",
            "TU104GL [Tesla T4]", driver="nvidia", iommu=31),
        Dev("10000:00:02.0", pvmd, 0x144D, 0xA808, 0x010802, 0, "Samsung Electronics Co Ltd",
            "NVMe SSD Controller SM981/PM981/PM983", driver="nvme", iommu=40),
        Dev("0000:80:03.0", "devices/pci0000:80", INTEL, 0x2032, 0x060400, 1,
            "Intel Corporation", "Sky Lake-E PCI Express Root Port C", driver="pcieport",
            iommu=50),
        Dev("0000:81:00.0", p80, INTEL, 0x1572, 0x020000, 1, "Intel Corporation", x710,
            driver="i40e", totalvfs=64, vf_device="154c",
            vfs=["0000:81:02.0", "0000:81:02.1", "0000:81:02.2", "0000:81:02.3"],
            net=["ens1f0"], mac="3c:fd:fe:a1:b2:c0", iommu=51),
        Dev("0000:81:00.1", p80, INTEL, 0x1572, 0x020000, 1, "Intel Corporation", x710,
            driver="i40e", totalvfs=64, vf_device="154c", net=["ens1f1"],
            mac="3c:fd:fe:a1:b2:c1", iommu=52),
        Dev("0000:81:02.0", p80, INTEL, 0x154C, 0x020000, 1, "Intel Corporation", x710vf,
            driver="iavf", physfn="0000:81:00.0", net=["ens1f0v0"],
            mac="52:54:00:10:00:00", iommu=60),
        Dev("0000:81:02.1", p80, INTEL, 0x154C, 0x020000, 1, "Intel Corporation", x710vf,
            driver="iavf", physfn="0000:81:00.0", net=["ens1f0v1"],
            mac="52:54:00:10:00:01", iommu=61),
        Dev("0000:81:02.2", p80, INTEL, 0x154C, 0x020000, 1, "Intel Corporation", x710vf,
            driver="vfio-pci", physfn="0000:81:00.0", iommu=62),
        Dev("0000:81:02.3", p80, INTEL, 0x154C, 0x020000, 1, "Intel Corporation", x710vf,
            physfn="0000:81:00.0", iommu=63),
        Dev("0000:ae:00.0", "devices/pci0000:ae", INTEL, 0x2030, 0x060400, -1,
            "Intel Corporation", "Sky Lake-E PCI Express Root Port A", driver="pcieport",
            iommu=70),
        Dev("0000:af:00.0", pae, MLX, 0x101D, 0x020000, -1, "Mellanox Technologies", cx6,
            driver="mlx5_core", totalvfs=8, vf_device="101e",
            vfs=["0000:af:00.2", "0000:af:00.3"],
            net=["enp175s0f0np0", "enp175s0f0npf0vf0", "enp175s0f0npf0vf1"],
            mac="0c:42:a1:d5:e6:f0", iommu=71),
        Dev("0000:af:00.2", pae, MLX, 0x101E, 0x020000, -1, "Mellanox Technologies", cx6vf,
            driver="mlx5_core", physfn="0000:af:00.0", net=["enp175s0f0v0"],
            mac="0c:42:a1:d5:e6:f2", vdpa="vdpa0", iommu=72),
        Dev("0000:af:00.3", pae, MLX, 0x101E, 0x020000, -1, "Mellanox Technologies", cx6vf,
            driver="mlx5_core", physfn="0000:af:00.0", net=["enp175s0f0v1"],
            mac="0c:42:a1:d5:e6:f3", iommu=73),
    ]
    return "x710-cx6", devs


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def link(path, target):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.symlink(target, path)


def write_sysfs(top, devs):
    sys = os.path.join(top, "sys")
    by = {d.addr: d for d in devs}
    for d in devs:
        dp = os.path.join(sys, d.path)
        write(os.path.join(dp, "vendor"), "0x%04x\n" % d.vendor)
        write(os.path.join(dp, "device"), "0x%04x\n" % d.device)
        write(os.path.join(dp, "class"), "0x%06x\n" % d.cls)
        write(os.path.join(dp, "numa_node"), "%d\n" % d.numa)
        write(os.path.join(dp, "subsystem_vendor"), "0x%04x\n" % d.vendor)
        write(os.path.join(dp, "revision"), "0x02\n")
        if d.totalvfs is not None:
            write(os.path.join(dp, "sriov_totalvfs"), "%d\n" % d.totalvfs)
            write(os.path.join(dp, "sriov_numvfs"), "%d\n" % len(d.vfs))
            write(os.path.join(dp, "sriov_vf_device"), "%s\n" % d.vf_device)
        for i, vf in enumerate(d.vfs):
            link(os.path.join(dp, "virtfn%d" % i), "../" + vf)
        if d.physfn:
            link(os.path.join(dp, "physfn"), "../" + d.physfn)
        for n in d.net:
            write(os.path.join(dp, "net", n, "address"), (d.mac or "00:00:00:00:00:00") + "\n")
        if d.driver:
            drv = os.path.join(sys, "bus/pci/drivers", d.driver)
            os.makedirs(drv, exist_ok=True)
            link(os.path.join(dp, "driver"),
                 "../" * (d.path.count("/") + 1) + "bus/pci/drivers/" + d.driver)
        link(os.path.join(sys, "bus/pci/devices", d.addr), "../../../" + d.path)
        if d.vdpa:
            aux = os.path.join(dp, "mlx5_core.vnet.0", d.vdpa)
            write(os.path.join(aux, "uevent"), "DRIVER=vhost_vdpa\n")
            link(os.path.join(sys, "bus/vdpa/devices", d.vdpa),
                 "../../../%s/mlx5_core.vnet.0/%s" % (d.path, d.vdpa))
        assert all(v in by for v in d.vfs)


def dumpxml_pci(d, parent):
    """libvirt 9.0's virNodeDeviceDefFormat for a PCI function."""
    dom, bus, slot, fn = key(d.addr)
    x = ["<device>", "  <name>%s</name>" % name_of(d.addr), "  <path>/sys/%s</path>" % d.path]
    if parent:
        x.append("  <parent>%s</parent>" % parent)
    if d.driver:
        x += ["  <driver>", "    <name>%s</name>" % d.driver, "  </driver>"]
    x += ["  <capability type='pci'>", "    <class>0x%06x</class>" % d.cls,
          "    <domain>%d</domain>" % dom, "    <bus>%d</bus>" % bus,
          "    <slot>%d</slot>" % slot, "    <function>%d</function>" % fn,
          "    <product id='0x%04x'>%s</product>" % (d.device, d.pname),
          "    <vendor id='0x%04x'>%s</vendor>" % (d.vendor, d.vname)]

    def address(a):
        k = key(a)
        return ("<address domain='0x%04x' bus='0x%02x' slot='0x%02x' function='0x%d'/>"
                % k)
    if d.physfn:
        x += ["    <capability type='phys_function'>", "      " + address(d.physfn),
              "    </capability>"]
    if d.vfs or (d.totalvfs or 0) > 0:
        head = "    <capability type='virt_functions'"
        if d.totalvfs:
            head += " maxCount='%d'" % d.totalvfs
        if not d.vfs:
            x.append(head + "/>")
        else:
            x.append(head + ">")
            x += ["      " + address(v) for v in d.vfs]
            x.append("    </capability>")
    if d.iommu is not None:
        x += ["    <iommuGroup number='%d'>" % d.iommu, "      " + address(d.addr),
              "    </iommuGroup>"]
    if d.numa >= 0:
        x.append("    <numa node='%d'/>" % d.numa)
    x += ["  </capability>", "</device>"]
    return "\n".join(x) + "\n"


def dumpxml_net(d, ifname, mac):
    name = "net_%s_%s" % (ifname, mac.replace(":", "_"))
    x = ["<device>", "  <name>%s</name>" % name,
         "  <path>/sys/%s/net/%s</path>" % (d.path, ifname),
         "  <parent>%s</parent>" % name_of(d.addr), "  <capability type='net'>",
         "    <interface>%s</interface>" % ifname, "    <address>%s</address>" % mac,
         "    <link state='up'/>", "    <feature name='rx'/>", "    <feature name='tx'/>",
         "    <capability type='80203'/>", "  </capability>", "</device>"]
    return name, "\n".join(x) + "\n"


def dumpxml_vdpa(d):
    x = ["<device>", "  <name>vdpa_%s</name>" % d.vdpa,
         "  <path>/sys/%s/mlx5_core.vnet.0/%s</path>" % (d.path, d.vdpa),
         "  <parent>%s</parent>" % name_of(d.addr), "  <driver>",
         "    <name>vhost_vdpa</name>", "  </driver>", "  <capability type='vdpa'>",
         "    <chardev>/dev/vhost-vdpa-0</chardev>", "  </capability>", "</device>"]
    return "vdpa_" + d.vdpa, "\n".join(x) + "\n"


def parent_of(d, devs):
    """The nearest PCI function above d in the device tree, libvirt's parent."""
    comps = d.parent_path.split("/")
    for c in reversed(comps):
        for o in devs:
            if o.addr == c:
                return name_of(o.addr)
    return "computer"


def write_nodedev(top, devs):
    out = os.path.join(top, "nodedev")
    for d in devs:
        write(os.path.join(out, name_of(d.addr) + ".xml"), dumpxml_pci(d, parent_of(d, devs)))
        for i, n in enumerate(d.net):
            mac = "%s%02x" % (d.mac[:-2], (int(d.mac[-2:], 16) + 8 * i) % 256)
            name, text = dumpxml_net(d, n, mac)
            write(os.path.join(out, name + ".xml"), text)
        if d.vdpa:
            name, text = dumpxml_vdpa(d)
            write(os.path.join(out, name + ".xml"), text)


def main():
    for host, devs in [x710_cx6()]:
        top = os.path.join(HERE, host)
        shutil.rmtree(top, ignore_errors=True)
        write_sysfs(top, devs)
        write_nodedev(top, devs)


if __name__ == "__main__":
    main()
