"""Differential test of numafit.hostdev_xml (numafit_domain_hostdev_xml)
against Debian's nova 26.2.2: the element nova's libvirt VIF driver writes
for a neutron port with a claimed PCI device (LibvirtGenericVIFDriver.
get_config for vif types hw_veb and hostdev_physical: vnic types direct,
macvtap and direct-physical; for vif type ovs through os-vif: vdpa,
remote-managed and hardware-offloaded direct ports; for vif type vhostuser
through os-vif: virtio-forwarder ports on their vhost-user socket) and the
<hostdev> of a flavor alias's device
(LibvirtDriver._get_guest_pci_device), on random claims: virt type kvm or
qemu, flavors with quota:vif_* and hw:vif_multiqueue_enabled, images with
hw_vif_model and hw_vif_multiqueue_enabled, [libvirt] rx_queue_size,
tx_queue_size and max_queues, VLANs as neutron writes them ("0" for a flat network) or as
integers. nova reads the VF's interface name from sysfs when it writes a
macvtap port: a stand-in returns the name the claim gives; and its
multiqueue cap without [libvirt] max_queues is the running kernel's
(none from Linux 5 on), which the stand-in fixes to a kernel 5+ host; and it asks libvirt for a
vdpa port's vhost-vdpa device: a stand-in host returns the claim's
dev_path.

The XML must be the same element for element (attributes as sets,
whitespace aside), or both must refuse with the same exception class.

Exit 0 on success, 1 on failure, 77 when nova is missing. Last line:
"N passed, N failed".
"""
import argparse
import json
import os
import random
import sys
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

try:
    from lxml import etree
    from nova import conf as nova_conf
    from nova import objects
    from nova.network import model as network_model
    from nova.pci import utils as pci_utils
    from nova.virt.libvirt import driver as libvirt_driver
    from nova.virt.libvirt import vif as libvirt_vif
    import os_vif.objects
    objects.register_all()
    os_vif.objects.register_all()
except Exception as e:  # pragma: no cover - environment dependent
    print("nova not importable (%s): skip" % e)
    sys.exit(77)

import numafit_loader  # noqa: E402

CONF = nova_conf.CONF
MODELS = [None, "virtio", "VIRTIO", "e1000", "e1000e", "VirtualE1000", "virtualvmxnet3",
          "rtl8139", "lan9118", "netfront", "sriov", "vmxnet3", "spapr-vlan", "bogus"]
MQ_FLAVOR = [None, "true", "false", "yes", "0", "on", "maybe"]
MQ_IMAGE = [None, True, False, "yes", "off"]
VLANS = [None, "0", "100", "4095", "", "0042", 0, 7, 4094]
QUOTAS = ["quota:vif_inbound_average", "quota:vif_inbound_peak", "quota:vif_inbound_burst",
          "quota:vif_outbound_average", "quota:vif_outbound_peak", "quota:vif_outbound_burst"]


def canon(el):
    """An element as (tag, attributes, children), whitespace aside."""
    return (el.tag, tuple(sorted(el.attrib.items())), tuple(canon(c) for c in el))


def random_case(rng):
    flavor = {"vcpus": rng.choice([1, 2, 3, 4, 8, 16]), "extra_specs": {}}
    for q in QUOTAS:
        if rng.random() < 0.25:
            flavor["extra_specs"][q] = str(rng.choice([1, 100, 2048, 10 ** 6]))
    mq = rng.choice(MQ_FLAVOR)
    if mq is not None:
        flavor["extra_specs"]["hw:vif_multiqueue_enabled"] = mq
    props = {}
    model = rng.choice(MODELS)
    if model is not None:
        props["hw_vif_model"] = model
    mqi = rng.choice(MQ_IMAGE)
    if mqi is not None:
        props["hw_vif_multiqueue_enabled"] = mqi
    devices = []
    for i in range(rng.randint(1, 3)):
        addr = "0000:%02x:%02x.%x" % (rng.randint(0, 255), rng.randint(0, 31), rng.randint(0, 7))
        kind = rng.choice(["alias", "direct", "macvtap", "direct-physical", "vdpa",
                           "remote-managed", "virtio-forwarder"])
        d = {"address": addr}
        if kind != "alias":
            d.update({"requester_id": "a0b1c2d3-0000-4000-8000-%012d" % i, "vnic_type": kind,
                      "mac": "fa:16:3e:%02x:%02x:%02x" % (i, rng.randint(0, 255),
                                                          rng.randint(0, 255)),
                      "vlan": rng.choice(VLANS), "ifname": "enp%ds0f0v%d" % (i + 3, i),
                      "dev_path": "/dev/vhost-vdpa-%d" % rng.randint(0, 63)})
            # the binding: the SR-IOV agent's (hw_veb), or Open vSwitch's
            # (hardware offload) for a direct port
            if kind == "direct":
                vt = rng.choice([None, "hw_veb", "ovs"])
                if vt:
                    d["vif_type"] = vt
            if kind == "virtio-forwarder":
                # the binding's details: the socket (sometimes missing), the
                # mode, who plugs it, the tap name neutron may give
                if rng.random() < 0.5:
                    d["vif_type"] = "vhostuser"
                if rng.random() < 0.93:
                    d["vhostuser_socket"] = "/var/run/vrt/sock%d" % rng.randint(0, 99)
                mode = rng.choice([None, "client", "server"])
                if mode:
                    d["vhostuser_mode"] = mode
                plug = rng.choice([None, True, False])
                if plug is not None:
                    d["vhostuser_ovs_plug"] = plug
                if rng.random() < 0.5:
                    d["devname"] = "tap%d" % rng.randint(0, 999)
        devices.append(d)
    return {"devices": devices, "flavor": flavor, "image": {"properties": props},
            "virt_type": rng.choice(["kvm", "qemu"]),
            "rx_queue_size": rng.choice([None, 256, 512, 1024]),
            "tx_queue_size": rng.choice([None, 256, 512, 1024]),
            "max_queues": rng.choice([None, 1, 2, 4])}


def nova_side(case):
    """nova's elements for the claim, or the exception class name."""
    CONF.set_override("virt_type", case["virt_type"], "libvirt")
    CONF.set_override("rx_queue_size", case["rx_queue_size"], "libvirt")
    CONF.set_override("tx_queue_size", case["tx_queue_size"], "libvirt")
    CONF.set_override("max_queues", case["max_queues"], "libvirt")
    paths = {d["address"]: d.get("dev_path") for d in case["devices"]}
    host = mock.Mock()
    host.get_vdpa_device_path.side_effect = lambda a: paths[a]
    vd = libvirt_vif.LibvirtGenericVIFDriver(host)
    drv = libvirt_driver.LibvirtDriver.__new__(libvirt_driver.LibvirtDriver)
    inst = objects.Instance(uuid="11111111-2222-3333-4444-555555555555", display_name="vm")
    out = []
    ifnames = {d["address"]: d.get("ifname") for d in case["devices"]}
    try:
        flavor = objects.Flavor(name="f", vcpus=case["flavor"]["vcpus"],
                                extra_specs=case["flavor"]["extra_specs"])
        image = objects.ImageMeta.from_dict(dict(case["image"], name="img"))
        with mock.patch.object(pci_utils, "get_ifname_by_pci_address",
                               side_effect=lambda a: ifnames[a]), \
                mock.patch.object(libvirt_vif.LibvirtGenericVIFDriver, "_get_max_tap_queues",
                                  lambda self: CONF.libvirt.max_queues or None):
            for d in case["devices"]:
                if "vnic_type" not in d:
                    dev = objects.PciDevice(address=d["address"])
                    conf = drv._get_guest_pci_device(dev)
                elif d["vnic_type"] == "virtio-forwarder":
                    # a vhost-user binding: nova goes through os-vif
                    net = network_model.Network(id="net1", bridge="br-int", subnets=[])
                    details = {"vhostuser_ovs_plug": d.get("vhostuser_ovs_plug", True)}
                    for k in ("vhostuser_socket", "vhostuser_mode"):
                        if k in d:
                            details[k] = d[k]
                    vif = network_model.VIF(
                        id=d["requester_id"], address=d["mac"], network=net, type="vhostuser",
                        vnic_type=d["vnic_type"], devname=d.get("devname"),
                        profile={"pci_slot": d["address"]}, details=details)
                elif d["vnic_type"] in ("vdpa", "remote-managed") or d.get("vif_type") == "ovs":
                    # Open vSwitch's binding: nova goes through os-vif
                    net = network_model.Network(id="net1", bridge="br-int", subnets=[])
                    vif = network_model.VIF(
                        id=d["requester_id"], address=d["mac"], network=net, type="ovs",
                        vnic_type=d["vnic_type"],
                        profile={"pci_slot": d["address"], "pci_vendor_info": "15b3:101e"},
                        details={"port_filter": True, "ovs_hybrid_plug": False})
                else:
                    vif = network_model.VIF(
                        id=d["requester_id"], address=d["mac"],
                        type="hostdev_physical" if d["vnic_type"] == "direct-physical"
                        else "hw_veb", vnic_type=d["vnic_type"],
                        profile={"pci_slot": d["address"]}, details={"vlan": d["vlan"]})
                if "vnic_type" in d:
                    conf = vd.get_config(inst, vif, image, flavor, case["virt_type"])
                out.append(canon(etree.fromstring(conf.to_xml())))
    except Exception as e:
        return type(e).__name__
    finally:
        for k in ("virt_type", "rx_queue_size", "tx_queue_size", "max_queues"):
            CONF.clear_override(k, "libvirt")
    return out


def ours_side(numafit, case):
    try:
        text = numafit.hostdev_xml(case)
    except numafit.errors.NumafitError as e:
        return getattr(e, "exception", None) or type(e).__name__
    return [canon(c) for c in etree.fromstring("<r>%s</r>" % text)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--library")
    ap.add_argument("--cases", type=int, default=int(os.environ.get("NUMAFIT_VIF_CASES", "1500")))
    ap.add_argument("--seed", type=int, default=20261203)
    args = ap.parse_args()
    numafit = numafit_loader.import_numafit(args.library)
    rng = random.Random(args.seed)
    passed = failed = 0
    kinds = {}
    for _ in range(args.cases):
        case = random_case(rng)
        nova = nova_side(case)
        ours = ours_side(numafit, case)
        key = nova if isinstance(nova, str) else "xml"
        kinds[key] = kinds.get(key, 0) + 1
        if nova == ours:
            passed += 1
        else:
            failed += 1
            if failed <= 5:
                print("FAIL %s\n  nova    %s\n  numafit %s" % (json.dumps(case), nova, ours))
    print("outcomes: %s" % ", ".join("%s %d" % kv for kv in sorted(kinds.items())))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
