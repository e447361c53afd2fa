"""numafit.PciPools and numafit.PciRequests: a host's PCI device pools and
an instance's PCI requests, and nova's scheduler rules for them
(doc/pci.md)."""
import json
import os
from ctypes import byref, c_char_p, c_int, c_int64, c_size_t, c_void_p

from . import _ffi
from .request import profile_number

PCI_ZED = 1
_POLICIES = (None, "required", "legacy", "preferred", "socket")


def _text(doc):
    return doc if isinstance(doc, (str, bytes)) else json.dumps(doc)


def _cells(cells):
    if cells is None:
        return None, 0
    ids = list(cells)
    arr = (c_int64 * max(1, len(ids)))(*[_ffi.cint(i, "cell id", c_int64) for i in ids])
    return arr, len(ids)


class PciPools(_ffi.Owned):
    """nova's PciDevicePoolList, in PciDeviceStats' order (fewest keys first)."""
    _free = "pci_pools_free"

    def __init__(self, handle):
        self._h = handle

    @classmethod
    def from_json(cls, doc):
        """A PciDevicePoolList primitive, a list of nova's flat pool dicts,
        one such dict, or any of them inside a JSON string (dict, list or text)."""
        b, n = _ffi.cbuf(_text(doc), "pci pools")
        h = _ffi.PciPoolsP()
        _ffi.pci_pools_new_from_json(b, n, 0, byref(h), byref(_ffi.Error()))
        return cls(h)

    @classmethod
    def from_devices(cls, devices, nova_conf=None, profile="latest"):
        """The pools nova's compute node reports for devices (PciDevices)
        under nova.conf's [pci] device_spec (nova_conf: its text); a refusal
        raises the numafit.errors class named after nova's exception."""
        cb, cn = _ffi.cbuf(nova_conf, "nova_conf", none=True)
        flags = PCI_ZED if profile_number(profile) == 1 else 0
        h = _ffi.PciPoolsP()
        with _ffi.hold(devices) as (d,):
            _ffi.pci_pools_new_from_devices(d, cb, cn, flags, byref(h), byref(_ffi.Error()))
        return cls(h)

    @classmethod
    def from_spec(cls, spec, host):
        """The devices of a synthetic host spec's pci: tokens
        (pci:VENDOR:PRODUCT[:TYPE[:PHYSNET]]=COUNT[@CELLS]) on host (the
        Host.synthetic(spec) built), as its compute node would report them."""
        b = _ffi.cstr(spec, "spec")
        h = _ffi.PciPoolsP()
        with _ffi.hold(host) as (hh,):
            _ffi.pci_pools_new_from_spec(b, hh, 0, byref(h), byref(_ffi.Error()))
        return cls(h)

    def to_json(self, flags=0):
        with _ffi.hold(self) as (h,):
            return _ffi.call_str(_ffi.pci_pools_to_json, h, _ffi.cint(flags, "flags"))

    def to_dict(self):
        return json.loads(self.to_json())

    def pools(self):
        """The pools as nova's flat dicts (PciDevicePool.to_dict), in order."""
        out = []
        for o in self.to_dict()["nova_object.data"]["objects"]:
            d = dict(o["nova_object.data"])
            d.update(d.pop("tags") or {})
            out.append(d)
        return out

    def __len__(self):
        with _ffi.hold(self) as (h,):
            return _ffi.pci_pools_get_count(h)

    def __getitem__(self, i):
        """Pool i: (vendor_id, product_id, numa_node or None, count)."""
        if not 0 <= i < len(self):
            raise IndexError(i)
        v, p, known, node, count = c_char_p(), c_char_p(), c_int(), c_int64(), c_int64()
        with _ffi.hold(self) as (h,):
            _ffi.pci_pools_get(h, i, byref(v), byref(p), byref(known), byref(node),
                               byref(count))
            return (v.value.decode(), p.value.decode(), node.value if known.value else None,
                    count.value)

    def tag(self, i, key):
        """Pool i's tag key: its value (None for null); KeyError when absent."""
        v = c_char_p()
        with _ffi.hold(self) as (h,):
            if _ffi.pci_pools_get_tag(h, _ffi.cint(i, "index"), key.encode(), byref(v)) == 0:
                raise KeyError(key)
            return None if v.value is None else v.value.decode()

    def __copy__(self):
        c = _ffi.PciPoolsP()
        with _ffi.hold(self) as (h,):
            _ffi.pci_pools_dup(h, byref(c))
        return type(self)(c)

    def __eq__(self, other):
        if not isinstance(other, PciPools):
            return NotImplemented
        with _ffi.hold(self, other) as (a, b):
            return _ffi.pci_pools_equal(a, b) == 1

    __hash__ = None

    def support(self, requests, cells=None, host=None, profile="latest"):
        """(True, None) when the pools satisfy requests (a PciRequests) on
        the host cells with these ids (None: no NUMA policy), else (False,
        (where, why)). host (a numafit.Host) gives the cells' sockets;
        profile the rules (numafit_pci_support_flags: "zed" for Debian 12's
        nova)."""
        arr, n = _cells(cells)
        err = _ffi.Error()
        flags = PCI_ZED if profile_number(profile) == 1 else 0
        with _ffi.hold(self, requests, host) as (p, r, hh):
            rc = _ffi.pci_support_flags(p, hh, r, arr, n, flags, byref(err))
        if rc == 1:
            return True, None
        d = err.as_dict()
        return False, (d["where"], d["text"])

    def apply(self, requests, cells=None, host=None, profile="latest"):
        """Take the devices, all or nothing; numafit.errors.NoSpace when the
        pools do not satisfy the requests (nothing changed)."""
        arr, n = _cells(cells)
        flags = PCI_ZED if profile_number(profile) == 1 else 0
        with _ffi.hold(self, requests, host, write=self) as (p, r, hh):
            _ffi.pci_apply_flags(p, hh, r, arr, n, flags, byref(_ffi.Error()))


class PciDevices(_ffi.Owned):
    """A host's PCI devices as nova's virt driver reports them (the
    pci_passthrough_devices JSON), before nova.conf's device_spec."""
    _free = "pci_devices_free"

    def __init__(self, handle):
        self._h = handle

    @classmethod
    def from_json(cls, doc):
        """nova's list of device dicts (a list, or its JSON text)."""
        b, n = _ffi.cbuf(_text(doc), "pci devices")
        h = _ffi.PciDevicesP()
        _ffi.pci_devices_new_from_json(b, n, 0, byref(h), byref(_ffi.Error()))
        return cls(h)

    @classmethod
    def from_sysfs(cls, root="/"):
        """The devices of ROOT/sys/bus/pci/devices (a captured or live sysfs)."""
        h = _ffi.PciDevicesP()
        _ffi.pci_devices_new_from_sysfs(os.fsencode(root), 0, byref(h), byref(_ffi.Error()))
        return cls(h)

    @classmethod
    def from_nodedev_xml(cls, docs):
        """The devices of libvirt's node device XML documents (a list of
        texts: the pci, net and vdpa devices of `virsh nodedev-dumpxml`)."""
        enc = [d.encode() if isinstance(d, str) else bytes(d) for d in docs]
        arr = (c_char_p * max(len(enc), 1))(*enc)
        lens = (c_size_t * max(len(enc), 1))(*[len(d) for d in enc])
        h = _ffi.PciDevicesP()
        _ffi.pci_devices_new_from_nodedev_xml(arr, lens, len(enc), 0, byref(h),
                                              byref(_ffi.Error()))
        return cls(h)

    @classmethod
    def from_libvirt(cls, uri):
        """The node devices of a read-only libvirt connection."""
        h = _ffi.PciDevicesP()
        _ffi.pci_devices_new_from_libvirt(uri.encode(), 0, byref(h), byref(_ffi.Error()))
        return cls(h)

    def to_json(self, flags=0):
        with _ffi.hold(self) as (h,):
            return _ffi.call_str(_ffi.pci_devices_to_json, h, _ffi.cint(flags, "flags"))

    def to_list(self):
        return json.loads(self.to_json())

    def __len__(self):
        with _ffi.hold(self) as (h,):
            return _ffi.pci_devices_get_count(h)

    def __getitem__(self, i):
        """Device i: (address, vendor_id, product_id, dev_type, numa_node or
        None, parent_addr or None)."""
        if not 0 <= i < len(self):
            raise IndexError(i)
        a, v, p, t, pa = c_char_p(), c_char_p(), c_char_p(), c_char_p(), c_char_p()
        known, node = c_int(), c_int64()
        with _ffi.hold(self) as (h,):
            _ffi.pci_devices_get(h, i, byref(a), byref(v), byref(p), byref(t), byref(known),
                                 byref(node), byref(pa))
            return (a.value.decode(), v.value.decode(), p.value.decode(), t.value.decode(),
                    node.value if known.value else None,
                    None if pa.value is None else pa.value.decode())


class PciTracker(_ffi.Owned):
    """A compute node's PCI devices one by one (nova's PciDevTracker): the
    pools of the free devices, claims of particular devices and releases."""
    _free = "pci_tracker_free"

    def __init__(self, handle):
        self._h = handle

    @classmethod
    def from_devices(cls, devices, nova_conf=None, profile="latest"):
        """Track the devices (PciDevices) nova.conf's [pci] device_spec
        makes assignable, all free."""
        cb, cn = _ffi.cbuf(nova_conf, "nova_conf", none=True)
        flags = PCI_ZED if profile_number(profile) == 1 else 0
        h = _ffi.PciTrackerP()
        with _ffi.hold(devices) as (d,):
            _ffi.pci_tracker_new(d, cb, cn, flags, byref(h), byref(_ffi.Error()))
        return cls(h)

    def pools(self):
        """The free devices' pools (PciPools), what the node reports."""
        h = _ffi.PciPoolsP()
        with _ffi.hold(self) as (t,):
            _ffi.pci_tracker_get_pools(t, byref(h))
        return PciPools(h)

    def claim(self, host, requests, cells=None):
        """Take the devices of requests (PciRequests) on the host cells
        (ids; None: a guest without NUMA topology), as nova's compute node
        does: the claim as a dict {"devices": [...], "unavailable": [...]}.
        numafit.errors.NumafitError (code NOFIT) when not satisfied."""
        arr, n = _cells(cells)
        with _ffi.hold(requests, host, self, write=self) as (r, h, t):
            return json.loads(_ffi.call_str(_ffi.pci_tracker_claim, t, h, r, arr, n))

    def fit_and_claim(self, host, request, pci_requests, limits=None, profile="latest",
                      strategy="spread", budget=None):
        """Fit request on host with this node's free devices (its pools, as
        the scheduler sees them) and claim both in one locked step: the
        CPUs and memory on host and particular devices here
        (numafit_pci_tracker_fit_and_claim).  All or nothing: when the
        devices cannot be claimed (nova's compute side refuses what its
        scheduler accepted, e.g. a VF and its own PF), the host claim is
        given back.  Returns (numafit.FitResult, claim dict or None): the
        result's placement is claimed when the claim is not None; its
        code_name says why not (NOFIT_PCI for the devices)."""
        from .fit import FitResult, _check_args, _options, _result
        from .placement import Placement
        _check_args(host, request)
        if not isinstance(pci_requests, PciRequests):
            raise TypeError("numafit: pci_requests must be a numafit.PciRequests, not %s"
                            % type(pci_requests).__name__)
        opt, own = _options(limits, profile, strategy, budget, (self, pci_requests))
        try:
            p, out, err = _ffi.PlacementP(), c_void_p(), _ffi.Error()
            with _ffi.hold(host, request, opt, self, pci_requests,
                           write=(host, self)) as (h, r, o, t, q):
                rc = _ffi.pci_tracker_fit_and_claim(t, h, r, q, o, byref(p), byref(out),
                                                    byref(err))
            if rc != 1:
                return _result(rc, None, err), None
            return FitResult(Placement(p), 0, "OK", -1, ""), json.loads(_ffi.take_string(out))
        finally:
            if own:
                opt.close()

    def release(self, claim):
        """Give back the devices of a claim (what claim() returned)."""
        b, n = _ffi.cbuf(_text(claim), "claim")
        with _ffi.hold(self, write=self) as (t,):
            _ffi.pci_tracker_release(t, b, n, byref(_ffi.Error()))

    def restore(self, claim):
        """Take again the devices of an earlier claim (a dict claim() or
        fit_and_claim() returned, kept by the caller), as a compute node
        that starts finds them allocated: for a tracker made again from the
        same devices.  All or nothing; NumafitError (NOFIT_PCI) when a
        device is not free."""
        b, n = _ffi.cbuf(_text(claim), "claim")
        with _ffi.hold(self, write=self) as (t,):
            _ffi.pci_tracker_restore(t, b, n, byref(_ffi.Error()))


def hostdev_xml(claim):
    """The elements nova's libvirt driver writes for the devices of a claim
    (PciTracker.claim's dict, or a list of device dicts with "address"):
    a <hostdev> per flavor alias device; a port's device as its VIF driver
    writes it when the device dict has the port's "vnic_type" (direct,
    macvtap, direct-physical, vdpa, remote-managed, virtio-forwarder) with
    "mac", "vlan" and, for macvtap, "ifname", for vdpa "dev_path", for
    virtio-forwarder "vhostuser_socket". The claim dict may add "flavor",
    "image", "virt_type", "rx_queue_size", "tx_queue_size" and "max_queues"
    (doc/pci.md). "" for none."""
    b, n = _ffi.cbuf(_text(claim), "claim")
    return _ffi.call_str(_ffi.domain_hostdev_xml, b, n, 0)


class PciRequests(_ffi.Owned):
    """nova's InstancePCIRequests."""
    _free = "pci_requests_free"

    def __init__(self, handle):
        self._h = handle

    @classmethod
    def from_json(cls, doc):
        """An InstancePCIRequests primitive or the database's list of
        requests (dict, list or text)."""
        b, n = _ffi.cbuf(_text(doc), "pci requests")
        h = _ffi.PciRequestsP()
        _ffi.pci_requests_new_from_json(b, n, 0, byref(h), byref(_ffi.Error()))
        return cls(h)

    @classmethod
    def new(cls):
        """No requests (add ports with add_port)."""
        h = _ffi.PciRequestsP()
        _ffi.pci_requests_new(byref(h))
        return cls(h)

    def add_port(self, vnic_type, physnet=None, trusted=None, port_id=None, port_policy=None,
                 policy=None):
        """The request nova adds for a neutron port (True) or none for a vnic
        type that is not SR-IOV (False); policy is the flavor's or image's
        PCI NUMA affinity policy (a port_policy wins)."""
        pol = 0 if policy is None else _POLICIES.index(policy)
        t = -1 if trusted is None else (1 if trusted else 0)
        enc = (lambda x: None if x is None else x.encode())
        with _ffi.hold(self, write=self) as (h,):
            return _ffi.pci_requests_add_port(h, enc(vnic_type), enc(physnet), t, enc(port_id),
                                              enc(port_policy), pol, byref(_ffi.Error())) == 1

    def set_provider_mapping(self, mapping):
        """Record the scheduler's provider mapping ({group: [rp_uuid,
        ...]}, nova's provider_mapping) as each alias request's rp_uuids,
        as upstream nova reads it (numafit_pci_requests_set_provider_mapping)."""
        b, n = _ffi.cbuf(_text(mapping), "provider mapping")
        with _ffi.hold(self, write=self) as (h,):
            _ffi.pci_requests_set_provider_mapping(h, b, n, byref(_ffi.Error()))

    @classmethod
    def from_flavor(cls, flavor, image=None, nova_conf=None, profile="latest"):
        """The requests nova makes of a flavor's pci_passthrough:alias with
        nova.conf's [pci] alias entries (nova_conf: its text) and the
        flavor's or image's PCI NUMA affinity policy; a refusal raises the
        numafit.errors class named after nova's exception (e.exception)."""
        fb, fn = _ffi.cbuf(_text(flavor), "flavor")
        ib, inn = _ffi.cbuf(None if image is None else _text(image), "image", none=True)
        cb, cn = _ffi.cbuf(nova_conf, "nova_conf", none=True)
        flags = PCI_ZED if profile_number(profile) == 1 else 0
        h = _ffi.PciRequestsP()
        _ffi.pci_requests_from_flavor(fb, fn, ib, inn, cb, cn, flags, byref(h),
                                      byref(_ffi.Error()))
        return cls(h)

    def to_json(self, flags=0):
        with _ffi.hold(self) as (h,):
            return _ffi.call_str(_ffi.pci_requests_to_json, h, _ffi.cint(flags, "flags"))

    def to_dict(self):
        return json.loads(self.to_json())

    def __len__(self):
        with _ffi.hold(self) as (h,):
            return _ffi.pci_requests_get_count(h)

    def __getitem__(self, i):
        """Request i: (count, NUMA policy name or None)."""
        if not 0 <= i < len(self):
            raise IndexError(i)
        count, pol = c_int64(), c_int()
        with _ffi.hold(self) as (h,):
            _ffi.pci_requests_get(h, i, byref(count), byref(pol))
        return count.value, _POLICIES[pol.value]
