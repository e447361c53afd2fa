"""numafit.Host: a host NUMA topology (nova's NUMATopology) and its usage."""
import json
import os
from ctypes import byref, c_size_t, c_uint

from . import _ffi
from ._rwlock import RWLock

JSON_STRING = 1  # NUMAFIT_HOST_JSON_STRING
JSON_INDENT = 2  # NUMAFIT_JSON_INDENT
ALLOW_OVERLAP = 1  # NUMAFIT_HOST_ALLOW_OVERLAP
DISCOVER_ALL_ONLINE = 1
DISCOVER_ANY_ARCH = 2


class HostConf(_ffi.Owned):
    """nova.conf options that shape a discovered host (discover.h).

    HostConf(cpu_dedicated_set="2-7", cpu_shared_set="0-1", vcpu_pin_set=None,
             reserved_huge_pages=["node:0,size:2048,count:64"],
             physnets={"physnet1": "0"}, tunnel_numa_nodes="1")
    """
    _free = "hostconf_free"

    def __init__(self, cpu_dedicated_set=None, cpu_shared_set=None, vcpu_pin_set=None,
                 reserved_huge_pages=(), physnets=None, tunnel_numa_nodes=None):
        self._h = _ffi.HostconfP()
        _ffi.hostconf_new(byref(self._h))
        err = _ffi.Error()
        enc = lambda s: s.encode() if s is not None else None  # noqa: E731
        if cpu_dedicated_set is not None:
            _ffi.hostconf_set_cpu_dedicated_set(self._h, enc(cpu_dedicated_set), byref(err))
        if cpu_shared_set is not None:
            _ffi.hostconf_set_cpu_shared_set(self._h, enc(cpu_shared_set), byref(err))
        if vcpu_pin_set is not None:
            _ffi.hostconf_set_vcpu_pin_set(self._h, enc(vcpu_pin_set), byref(err))
        if isinstance(reserved_huge_pages, str):
            reserved_huge_pages = [reserved_huge_pages]
        for v in reserved_huge_pages or ():
            _ffi.hostconf_add_reserved_huge_pages(self._h, enc(v), byref(err))
        for name, nodes in (physnets or {}).items():
            if not isinstance(nodes, str):
                nodes = ",".join(str(n) for n in nodes)
            _ffi.hostconf_add_physnet(self._h, enc(name), enc(nodes), byref(err))
        if tunnel_numa_nodes is not None:
            if not isinstance(tunnel_numa_nodes, str):
                tunnel_numa_nodes = ",".join(str(n) for n in tunnel_numa_nodes)
            _ffi.hostconf_set_tunnel_numa_nodes(self._h, enc(tunnel_numa_nodes), byref(err))

    @classmethod
    def coerce(cls, conf):
        if conf is None or isinstance(conf, HostConf):
            return conf
        return cls(**conf)


class Host(_ffi.Owned):
    """A host: nova's NUMATopology with usage.

    Fits (numafit.fit) only read the host, and may run from many threads at
    once; claim() and release() change it and wait for running fits on the
    same Host object (a readers-writer lock).  Use copy.copy(host) for a
    what-if copy (numafit_host_dup).
    """
    _free = "host_free"

    def __init__(self, handle):
        if not handle:
            raise ValueError("numafit.Host needs a handle; use Host.from_json() etc.")
        self._h = handle
        self._lock = RWLock()

    # ---------------------------------------------------------- constructors
    @classmethod
    def from_json(cls, data, allow_overlap=False):
        """nova's NUMATopology primitive (dict or JSON text), the DB column
        text, or the legacy dict."""
        if not isinstance(data, (str, bytes)):
            data = json.dumps(data)
        b, n = _ffi.encode(data)
        h, err = _ffi.HostP(), _ffi.Error()
        _ffi.host_new_from_json(b, n, ALLOW_OVERLAP if allow_overlap else 0, byref(h),
                                byref(err))
        return cls(h)

    @classmethod
    def from_file(cls, path, allow_overlap=False):
        with open(path, "rb") as f:
            return cls.from_json(f.read(), allow_overlap)

    @classmethod
    def synthetic(cls, spec):
        """e.g. Host.synthetic("cells:2 cores:8 threads:2 mem:64G pages:2M=1024")"""
        h, err = _ffi.HostP(), _ffi.Error()
        _ffi.host_new_synthetic(spec.encode(), 0, byref(h), byref(err))
        return cls(h)

    @classmethod
    def from_caps_xml(cls, xml, conf=None, online=None, all_online=False, any_arch=False):
        """libvirt capabilities XML; conf: HostConf or its keyword dict;
        online: nova's online CPUs as a cpu spec (None: every listed CPU)."""
        conf = HostConf.coerce(conf)
        b, n = _ffi.encode(xml)
        h, err = _ffi.HostP(), _ffi.Error()
        _ffi.host_new_from_caps_xml(b, n, conf._h if conf else None,
                                    online.encode() if online is not None else None,
                                    _dflags(all_online, any_arch), byref(h), byref(err))
        return cls(h)

    @classmethod
    def from_libvirt(cls, uri=None, conf=None, all_online=False, any_arch=False):
        """A live libvirt connection (read-only).  Blocking: under eventlet
        call it through eventlet.tpool.execute."""
        conf = HostConf.coerce(conf)
        h, err = _ffi.HostP(), _ffi.Error()
        _ffi.host_new_from_libvirt(uri.encode() if uri else None, conf._h if conf else None,
                                   _dflags(all_online, any_arch), byref(h), byref(err))
        return cls(h)

    @classmethod
    def from_sysfs(cls, root="/", conf=None, all_online=False, any_arch=False):
        """A Linux sysfs tree under root (root/sys/devices/system/...)."""
        conf = HostConf.coerce(conf)
        h, err = _ffi.HostP(), _ffi.Error()
        _ffi.host_new_from_sysfs(os.fsencode(root) if root else None,
                                 conf._h if conf else None, _dflags(all_online, any_arch),
                                 byref(h), byref(err))
        return cls(h)

    # ---------------------------------------------------------- copies
    def __copy__(self):
        h = _ffi.HostP()
        with self._lock.read():
            _ffi.host_dup(self.handle, byref(h))
        return type(self)(h)

    def __deepcopy__(self, memo):
        return self.__copy__()

    copy = __copy__

    def __getstate__(self):
        return {"json": self.to_json()}

    def __setstate__(self, state):
        other = Host.from_json(state["json"])
        self._h, other._h = other._h, None
        self._lock = RWLock()

    # ---------------------------------------------------------- accessors
    def to_json(self, indent=False, as_string=False):
        """nova's NUMATopology 1.2 primitive as JSON text (as_string: the DB
        column form, a JSON string holding it)."""
        flags = (JSON_INDENT if indent else 0) | (JSON_STRING if as_string else 0)
        with self._lock.read():
            return _ffi.call_str(_ffi.host_to_json, self.handle, flags)

    def to_dict(self):
        return json.loads(self.to_json())

    def __len__(self):
        return _ffi.host_get_cell_count(self.handle)

    @property
    def cell_ids(self):
        return [_ffi.host_get_cell_id(self.handle, i) for i in range(len(self))]

    @property
    def model_size(self):
        """bytes of memory the host model occupies in the library"""
        n = c_size_t()
        _ffi.host_get_memory_size(self.handle, byref(n))
        return n.value

    def distance(self, i, j):
        """NUMA distance between the cells at indexes i and j, or None."""
        d = c_uint()
        rc = _ffi.host_get_distance(self.handle, i, j, byref(d))
        return d.value if rc == 0 else None

    def __eq__(self, other):
        if not isinstance(other, Host):
            return NotImplemented
        return _ffi.host_equal(self.handle, other.handle) == 1

    __hash__ = None

    def __repr__(self):
        if not self._h:
            return "<numafit.Host closed>"
        return "<numafit.Host cells=%s>" % self.cell_ids

    # ---------------------------------------------------------- usage
    def claim(self, placement):
        """Add a placement's usage (nova's numa_usage_from_instance_numa).
        Raises numafit.errors.CPUPinningInvalid etc. and leaves the host
        unchanged on conflict."""
        err = _ffi.Error()
        with self._lock.write():
            _ffi.host_claim(self.handle, placement.handle, 0, byref(err))

    def release(self, placement):
        """Remove a placement's usage (free=True)."""
        err = _ffi.Error()
        with self._lock.write():
            _ffi.host_release(self.handle, placement.handle, 0, byref(err))


def _dflags(all_online, any_arch):
    return (DISCOVER_ALL_ONLINE if all_online else 0) | (DISCOVER_ANY_ARCH if any_arch else 0)
