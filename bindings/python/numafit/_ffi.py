"""ctypes access to libnumafit: loading, prototypes, error checking.

Design (STYLE 2.8): opaque handles with a distinct pointer type each, JSON
text for rich data, and one mirrored struct, numafit_error_t.  Every
prototype is declared here with argtypes/restype; returned strings are
declared c_void_p, read with string_at and freed with numafit_free.

The library is loaded from the path in the environment variable
NUMAFIT_LIBRARY (in-tree tests), else from the libdir make install recorded
in numafit/_paths.py (the library installed with the package, also under a
prefix the loader does not search), else by SONAME ("libnumafit.so.0").  ctypes.CDLL releases
the GIL during every call, so fits run in parallel from several threads.

ctypes cuts C strings at a NUL character and wraps integers to the C type
without a word, so every value passed to the library goes through cstr(),
cbuf() or cint() first.  Handles are used only under their object's lock
(hold()), so close() never frees a handle a call is using.
"""
import ctypes
import errno as _errno
import operator
import os
from ctypes import (POINTER, Structure, byref, c_char, c_char_p, c_double, c_int,
                    c_int64, c_size_t, c_ubyte, c_uint, c_uint64, c_void_p, string_at)

from . import errors
from ._rwlock import RWLock

SONAME = "libnumafit.so.0"
MAJOR = 0  # the library major version this binding is written for

# Limits from the C headers (macros: ctypes cannot read them).
INPUT_MAX = 16 << 20  # NUMAFIT_INPUT_MAX: largest JSON or XML input, bytes
CPU_MAX = 16383  # NUMAFIT_CPU_MAX: highest CPU id
E_INVALID_ARG = 1  # NUMAFIT_E_INVALID_ARG
E_RANGE = 6  # NUMAFIT_E_RANGE


class Error(Structure):
    """Mirror of numafit_error_t (include/numafit/common.h)."""
    _fields_ = [("code", c_int), ("cell", c_int), ("where", c_char * 96),
                ("exception", c_char * 64), ("text", c_char * 256),
                ("reserved", c_ubyte * 64)]

    def as_dict(self):
        return {"code": self.code, "cell": self.cell,
                "where": self.where.decode("utf-8", "replace"),
                "exception": self.exception.decode("utf-8", "replace"),
                "text": self.text.decode("utf-8", "replace")}


# Distinct pointer types per handle: ctypes refuses a request where a host
# is expected.
class _Host(Structure):
    pass


class _Request(Structure):
    pass


class _Options(Structure):
    pass


class _Placement(Structure):
    pass


class _Cpuset(Structure):
    pass


class _Hostconf(Structure):
    pass


class _Domconf(Structure):
    pass


class _Inventory(Structure):
    pass


class _PciPools(Structure):
    pass


class _PciRequests(Structure):
    pass


class _PciDevices(Structure):
    pass


class _PciTracker(Structure):
    pass


class InventoryClass(Structure):
    """numafit_inventory_class_t: one class's placement inventory record."""
    _fields_ = [("total", c_int64), ("reserved", c_int64), ("min_unit", c_int64),
                ("max_unit", c_int64), ("step_size", c_int64), ("allocation_ratio", c_double)]


HostP = POINTER(_Host)
RequestP = POINTER(_Request)
OptionsP = POINTER(_Options)
PlacementP = POINTER(_Placement)
CpusetP = POINTER(_Cpuset)
HostconfP = POINTER(_Hostconf)
DomconfP = POINTER(_Domconf)
InventoryP = POINTER(_Inventory)
PciPoolsP = POINTER(_PciPools)
PciRequestsP = POINTER(_PciRequests)
PciDevicesP = POINTER(_PciDevices)
PciTrackerP = POINTER(_PciTracker)
ErrorP = POINTER(Error)
StrP = POINTER(c_void_p)  # char **ret_json: read with take_string()


def _installed_library():
    """The libnumafit.so.0 installed with this package: numafit/_paths.py,
    written by make install, records the configured libdir (there is no
    _paths.py in the source tree).  None when there is none or the file is
    not there (a package split from its library: the loader path then)."""
    try:
        from ._paths import LIBDIR
    except ImportError:
        return None
    path = os.path.join(LIBDIR, SONAME)
    return path if os.path.isfile(path) else None


def library_path_choice():
    """(the file or SONAME the binding loads, why): $NUMAFIT_LIBRARY, the
    library installed with the package, or the SONAME on the loader path."""
    env = os.environ.get("NUMAFIT_LIBRARY")
    if env:
        return env, "NUMAFIT_LIBRARY"
    installed = _installed_library()
    if installed:
        return installed, "installed with the package (numafit/_paths.py)"
    return SONAME, "the loader path"


def _load():
    path, _why = library_path_choice()
    try:
        return ctypes.CDLL(path, use_errno=True)
    except OSError as e:
        raise ImportError("numafit: cannot load %s (%s); set NUMAFIT_LIBRARY to the "
                          "path of libnumafit.so.0" % (path, e)) from e


lib = _load()
LIBRARY, LIBRARY_FROM = library_path_choice()


def loaded_library_file():
    """The file of libnumafit.so.0 this process has mapped (from
    /proc/self/maps; the loader resolves a SONAME to it), or the name
    loaded where /proc is not there."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                fields = line.split(None, 5)
                if len(fields) == 6 and os.path.basename(fields[5].strip()).startswith("libnumafit.so"):
                    return os.path.realpath(fields[5].strip())
    except OSError:
        pass
    return lib._name


def library_version():
    return lib.numafit_version_string().decode()


def _check_rc(rc, func, args):
    """errcheck for int-returning functions whose last argument is a
    numafit_error_t *: raise on rc < 0."""
    if rc < 0:
        err = args[-1] if args and isinstance(args[-1], Error) else None
        if err is None and args:
            a = args[-1]
            try:
                err = a._obj if isinstance(a._obj, Error) else None
            except AttributeError:
                err = None
        raise errors.from_rc(rc, err.as_dict() if err is not None else None,
                             func.__name__)
    return rc


def _check_rc_noerr(rc, func, args):
    if rc < 0:
        raise errors.from_rc(rc, None, func.__name__)
    return rc


def _fn(name, argtypes, restype=c_int, errcheck=None):
    """Declare numafit_<name> (the libarchive-c style helper)."""
    f = getattr(lib, "numafit_" + name)
    f.argtypes = argtypes
    f.restype = restype
    if errcheck is not None:
        f.errcheck = errcheck
    globals()[name] = f
    return f


_E = _check_rc
_N = _check_rc_noerr
u, sz, cp = c_uint, c_size_t, c_char_p

# common.h
_fn("strerror", [c_int], c_char_p)
_fn("error_code_name", [c_int], c_char_p)
free = _fn("free", [c_void_p], None)
_fn("version_string", [], c_char_p)
_fn("version_hex", [], c_uint)

# host.h
_fn("host_new_from_json", [cp, sz, u, POINTER(HostP), ErrorP], c_int, _E)
_fn("host_new_from_records", [c_void_p, sz, cp, sz, u, POINTER(HostP), ErrorP], c_int, _E)
_fn("host_get_cell_usage", [HostP, u, u, c_void_p, sz, POINTER(c_size_t)], c_int)
_fn("host_new_synthetic", [cp, u, POINTER(HostP), ErrorP], c_int, _E)
_fn("host_to_json", [HostP, u, StrP, ErrorP], c_int, _E)
_fn("host_dup", [HostP, POINTER(HostP)], c_int, _N)
_fn("host_free", [HostP], None)
_fn("host_get_cell_count", [HostP], c_int, _N)
_fn("host_get_cell_id", [HostP, u], c_int, _N)
_fn("host_get_memory_size", [HostP, POINTER(c_size_t)], c_int, _N)
_fn("host_equal", [HostP, HostP], c_int, _N)
# -ENOENT: no such cell (callers check the index first), no such page entry,
# or (cell_stat) a socket that is unknown
_fn("host_get_cell_stat", [HostP, u, c_int, u, POINTER(c_uint64)], c_int)
_fn("host_get_cell_pages", [HostP, u, u, u, POINTER(c_uint64), POINTER(c_uint64),
                            POINTER(c_uint64), POINTER(c_uint64)], c_int)
_fn("host_get_cell_cpus", [HostP, u, c_int, u, POINTER(CpusetP)], c_int, _N)
_fn("host_get_cell_siblings", [HostP, u, u, u, POINTER(CpusetP)], c_int, _N)

# The same functions on raw addresses (ints), for handles only the nova
# adapter holds (numafit.nova's host cache): no Python object per handle
# besides the adapter's own, none of them locked (nothing else can reach
# them).  CDLL's item access gives each prototype its own function object.
def _fn_addr(name, argtypes, errcheck=None):
    f = lib["numafit_" + name]
    f.argtypes = argtypes
    f.restype = c_int
    if errcheck is not None:
        f.errcheck = errcheck
    globals()[name + "_addr"] = f
    return f


_fn_addr("host_new_from_records", [c_void_p, sz, cp, sz, u, POINTER(c_void_p), ErrorP], _E)
_fn_addr("host_dup", [c_void_p, POINTER(HostP)], _N)
_fn_addr("fit", [c_void_p, c_void_p, c_void_p, u, POINTER(PlacementP), ErrorP], _E)
_fn_addr("host_get_cell_usage", [c_void_p, u, u, c_void_p, sz, POINTER(c_size_t)])
_fn_addr("host_claim", [c_void_p, c_void_p, u, ErrorP], _E)
_fn_addr("host_release", [c_void_p, c_void_p, u, ErrorP], _E)
_fn_addr("placement_new_from_json", [cp, sz, u, POINTER(c_void_p), ErrorP], _E)
host_dup_raw = lib["numafit_host_dup"]  # the copy's address into a c_void_p
host_dup_raw.argtypes = [c_void_p, POINTER(c_void_p)]
host_dup_raw.restype = c_int
host_dup_raw.errcheck = _N
host_free_addr = lib["numafit_host_free"]
host_free_addr.argtypes = [c_void_p]
host_free_addr.restype = None
placement_free_addr = lib["numafit_placement_free"]
placement_free_addr.argtypes = [c_void_p]
placement_free_addr.restype = None


def address(handle):
    """The address a library handle (a ctypes pointer) points at, as an int."""
    return ctypes.cast(handle, c_void_p).value


# request.h
_fn("request_new", [cp, sz, cp, sz, u, POINTER(RequestP), ErrorP], c_int, _E)
_fn("request_free", [RequestP], None)
_fn("request_dup", [RequestP, POINTER(RequestP)], c_int, _N)
_fn("request_get_cell_count", [RequestP], c_int, _N)
_fn("request_get_vcpus", [RequestP], c_int, _N)
_fn("request_get_page_size", [RequestP, u, POINTER(c_int64)], c_int, _N)
_fn("request_get_cpu_policy", [RequestP], c_int)
_fn("request_get_thread_policy", [RequestP], c_int)
_fn("request_get_emulator_threads_policy", [RequestP], c_int)
_fn("request_to_json", [RequestP, u, StrP, ErrorP], c_int, _E)
_fn("cpu_policy_to_string", [c_int], c_char_p)
_fn("cpu_policy_from_string", [cp], c_int)
_fn("thread_policy_to_string", [c_int], c_char_p)
_fn("thread_policy_from_string", [cp], c_int)
_fn("emulator_threads_policy_to_string", [c_int], c_char_p)
_fn("emulator_threads_policy_from_string", [cp], c_int)
_fn("resources_from_flavor", [cp, sz, cp, sz, u, POINTER(c_int64), sz, ErrorP], c_int, _E)
_fn("resource_class_to_string", [c_int], c_char_p)
_fn("flavor_normalize", [cp, sz, u, StrP, POINTER(c_int), ErrorP], c_int, _E)
_fn("image_normalize", [cp, sz, u, StrP, POINTER(c_int), ErrorP], c_int, _E)
_fn("input_form_to_string", [c_int], c_char_p)

# inventory.h
_I64P = POINTER(c_int64)
_fn("inventory_new", [POINTER(InventoryP)], c_int, _N)
_fn("inventory_free", [InventoryP], None)
_fn("inventory_dup", [InventoryP, POINTER(InventoryP)], c_int, _N)
_fn("inventory_set_class", [InventoryP, c_int, POINTER(InventoryClass), ErrorP], c_int, _E)
_fn("inventory_get_class", [InventoryP, c_int, POINTER(InventoryClass)], c_int, _N)
_fn("inventory_set_used", [InventoryP, c_int, c_int64], c_int, _N)
_fn("inventory_get_used", [InventoryP, c_int, _I64P], c_int, _N)
_fn("inventory_new_from_json", [cp, sz, u, POINTER(InventoryP), ErrorP], c_int, _E)
_fn("inventory_to_json", [InventoryP, u, StrP, ErrorP], c_int, _E)
_fn("inventory_equal", [InventoryP, InventoryP], c_int, _N)
_fn("inventory_new_from_host", [HostP, cp, sz, c_int64, InventoryP, u, POINTER(InventoryP),
                                ErrorP], c_int, _E)
_fn("inventory_check", [InventoryP, _I64P, sz, u, ErrorP], c_int, _E)
_fn("inventory_claim", [InventoryP, _I64P, sz, ErrorP], c_int, _E)
_fn("inventory_release", [InventoryP, _I64P, sz, ErrorP], c_int, _E)
_fn("inventory_set_traits", [InventoryP, u], c_int, _N)
_fn("inventory_get_traits", [InventoryP], c_int, _N)
_fn("node_fit", [HostP, InventoryP, RequestP, _I64P, sz, OptionsP, u, POINTER(PlacementP),
                 ErrorP], c_int, _E)
_fn("node_claim", [HostP, InventoryP, PlacementP, _I64P, sz, ErrorP], c_int, _E)
_fn("node_release", [HostP, InventoryP, PlacementP, _I64P, sz, ErrorP], c_int, _E)

# pci.h
_fn("pci_pools_new_from_json", [cp, sz, u, POINTER(PciPoolsP), ErrorP], c_int, _E)
_fn("pci_pools_to_json", [PciPoolsP, u, StrP, ErrorP], c_int, _E)
_fn("pci_pools_dup", [PciPoolsP, POINTER(PciPoolsP)], c_int, _N)
_fn("pci_pools_free", [PciPoolsP], None)
_fn("pci_pools_get_count", [PciPoolsP], c_int, _N)
_fn("pci_pools_get", [PciPoolsP, u, POINTER(c_char_p), POINTER(c_char_p), POINTER(c_int),
                      POINTER(c_int64), POINTER(c_int64)], c_int, _N)
_fn("pci_pools_get_tag", [PciPoolsP, u, cp, POINTER(c_char_p)], c_int, _N)
_fn("pci_pools_equal", [PciPoolsP, PciPoolsP], c_int, _N)
_fn("pci_requests_new_from_json", [cp, sz, u, POINTER(PciRequestsP), ErrorP], c_int, _E)
_fn("pci_requests_to_json", [PciRequestsP, u, StrP, ErrorP], c_int, _E)
_fn("pci_requests_new", [POINTER(PciRequestsP)], c_int, _N)
_fn("pci_requests_add_port", [PciRequestsP, cp, cp, c_int, cp, cp, c_int, ErrorP], c_int, _E)
_fn("pci_requests_from_flavor", [cp, sz, cp, sz, cp, sz, u, POINTER(PciRequestsP), ErrorP],
    c_int, _E)
_fn("pci_requests_free", [PciRequestsP], None)
_fn("pci_requests_get_count", [PciRequestsP], c_int, _N)
_fn("pci_requests_get", [PciRequestsP, u, POINTER(c_int64), POINTER(c_int)], c_int, _N)
_fn("pci_devices_new_from_json", [cp, sz, u, POINTER(PciDevicesP), ErrorP], c_int, _E)
_fn("pci_devices_to_json", [PciDevicesP, u, StrP, ErrorP], c_int, _E)
_fn("pci_devices_new_from_sysfs", [cp, u, POINTER(PciDevicesP), ErrorP], c_int, _E)
_fn("pci_devices_new_from_nodedev_xml", [POINTER(c_char_p), POINTER(sz), sz, u,
                                         POINTER(PciDevicesP), ErrorP], c_int, _E)
_fn("pci_devices_new_from_libvirt", [cp, u, POINTER(PciDevicesP), ErrorP], c_int, _E)
_fn("pci_devices_free", [PciDevicesP], None)
_fn("pci_devices_get_count", [PciDevicesP], c_int, _N)
_fn("pci_devices_get", [PciDevicesP, u, POINTER(c_char_p), POINTER(c_char_p), POINTER(c_char_p),
                        POINTER(c_char_p), POINTER(c_int), POINTER(c_int64), POINTER(c_char_p)],
    c_int, _N)
_fn("pci_pools_new_from_devices", [PciDevicesP, cp, sz, u, POINTER(PciPoolsP), ErrorP], c_int, _E)
_fn("pci_pools_new_from_spec", [cp, HostP, u, POINTER(PciPoolsP), ErrorP], c_int, _E)
_fn("pci_tracker_new", [PciDevicesP, cp, sz, u, POINTER(PciTrackerP), ErrorP], c_int, _E)
_fn("pci_tracker_free", [PciTrackerP], None)
_fn("pci_tracker_get_pools", [PciTrackerP, POINTER(PciPoolsP)], c_int, _N)
_fn("pci_tracker_claim", [PciTrackerP, HostP, PciRequestsP, _I64P, sz, StrP, ErrorP], c_int, _E)
_fn("pci_tracker_release", [PciTrackerP, cp, sz, ErrorP], c_int, _E)
_fn("pci_tracker_restore", [PciTrackerP, cp, sz, ErrorP], c_int, _E)
_fn("pci_tracker_fit_and_claim", [PciTrackerP, HostP, RequestP, PciRequestsP, OptionsP,
                                  POINTER(PlacementP), StrP, ErrorP], c_int, _E)
_fn("pci_support", [PciPoolsP, HostP, PciRequestsP, _I64P, sz, ErrorP], c_int, _E)
_fn("pci_apply", [PciPoolsP, HostP, PciRequestsP, _I64P, sz, ErrorP], c_int, _E)
_fn("pci_requests_set_provider_mapping", [PciRequestsP, cp, sz, ErrorP], c_int, _E)
_fn("pci_support_flags", [PciPoolsP, HostP, PciRequestsP, _I64P, sz, u, ErrorP], c_int, _E)
_fn("pci_apply_flags", [PciPoolsP, HostP, PciRequestsP, _I64P, sz, u, ErrorP], c_int, _E)

# fit.h
_fn("options_new", [POINTER(OptionsP)], c_int, _N)
_fn("options_free", [OptionsP], None)
_fn("options_set_profile", [OptionsP, c_int], c_int, _N)
_fn("options_set_strategy", [OptionsP, c_int], c_int, _N)
_fn("options_set_limits", [OptionsP, c_double, c_double], c_int, _N)
_fn("options_set_limits_json", [OptionsP, cp, sz, ErrorP], c_int, _E)
_fn("options_clear_limits", [OptionsP], c_int, _N)
_fn("options_set_budget", [OptionsP, c_uint64], c_int, _N)
_fn("options_set_pci", [OptionsP, PciPoolsP, PciRequestsP], c_int, _N)
_fn("options_dup", [OptionsP, POINTER(OptionsP)], c_int, _N)
_fn("options_set_headroom_mix", [OptionsP, POINTER(RequestP), POINTER(c_double), sz, ErrorP],
    c_int, _E)
_fn("options_get_headroom_mix_count", [OptionsP], c_int, _N)
PciCheckFn = ctypes.CFUNCTYPE(c_int, c_void_p, POINTER(ctypes.c_int64), sz)
_fn("options_set_pci_check", [OptionsP, PciCheckFn, c_void_p], c_int, _N)
_fn("fit", [HostP, RequestP, OptionsP, u, POINTER(PlacementP), ErrorP], c_int, _E)
_fn("fit_explain", [HostP, RequestP, OptionsP, u, StrP, ErrorP], c_int, _E)
_fn("fit_cell", [HostP, u, RequestP, u, u, OptionsP, u, POINTER(PlacementP), ErrorP], c_int, _E)
_fn("host_headroom", [HostP, OptionsP, u, POINTER(c_uint64), sz, ErrorP], c_int, _E)
_fn("placement_to_json", [PlacementP, u, StrP, ErrorP], c_int, _E)
_fn("placement_new_from_json", [cp, sz, u, POINTER(PlacementP), ErrorP], c_int, _E)
_fn("placement_set_uuid", [PlacementP, cp], c_int, _N)
_fn("placement_dup", [PlacementP, POINTER(PlacementP)], c_int, _N)
_fn("placement_free", [PlacementP], None)
_fn("placement_get_cell_count", [PlacementP], c_int, _N)
_fn("placement_get_host_cell", [PlacementP, u], c_int, _N)
_fn("placement_get_pin", [PlacementP, u], c_int)
_fn("host_claim", [HostP, PlacementP, u, ErrorP], c_int, _E)
_fn("host_release", [HostP, PlacementP, u, ErrorP], c_int, _E)
# numafit_host_fill_cb: int (*)(void *ctx, size_t request_index, const numafit_placement_t *p)
FillCallback = ctypes.CFUNCTYPE(c_int, c_void_p, sz, PlacementP)
# no errcheck: Host.fill() raises the callback's own exception first
_fn("host_fill", [HostP, POINTER(RequestP), sz, OptionsP, c_uint64, u, FillCallback, c_void_p,
                  POINTER(c_uint64), ErrorP], c_int)

# topology.h
_fn("cpu_topology_best", [cp, sz, cp, sz, u, POINTER(c_uint), POINTER(c_uint),
                          POINTER(c_uint), ErrorP], c_int, _E)
_fn("cpu_topology_list", [cp, sz, cp, sz, u, StrP, ErrorP], c_int, _E)
_fn("cpu_topology_constraints", [cp, sz, cp, sz, u, StrP, ErrorP], c_int, _E)

# cpuset.h
_fn("cpuset_new", [POINTER(CpusetP)], c_int, _N)
_fn("cpuset_free", [CpusetP], None)
_fn("cpuset_dup", [CpusetP, POINTER(CpusetP)], c_int, _N)
_fn("cpuset_parse", [cp, u, POINTER(CpusetP), ErrorP], c_int, _E)
_fn("cpuset_format", [CpusetP, u, StrP], c_int, _N)
_fn("cpuset_add", [CpusetP, u], c_int, _N)
_fn("cpuset_remove", [CpusetP, u], c_int, _N)
_fn("cpuset_contains", [CpusetP, u], c_int, _N)
_fn("cpuset_count", [CpusetP], c_int, _N)
_fn("cpuset_next", [CpusetP, c_int], c_int)  # -ENOENT ends the walk
_fn("cpuset_equal", [CpusetP, CpusetP], c_int, _N)

# discover.h
_fn("hostconf_new", [POINTER(HostconfP)], c_int, _N)
_fn("hostconf_has_cpu_sets", [HostconfP], c_int, _N)
_fn("nova_conf_misplaced", [cp, sz, u, StrP, ErrorP], c_int, _E)
_fn("inventory_ratios_from_nova_conf", [cp, sz, u, POINTER(c_double), POINTER(c_double),
                                        POINTER(c_double), ErrorP], c_int, _E)
_fn("hostconf_free", [HostconfP], None)
_fn("hostconf_set_cpu_dedicated_set", [HostconfP, cp, ErrorP], c_int, _E)
_fn("hostconf_set_cpu_shared_set", [HostconfP, cp, ErrorP], c_int, _E)
_fn("hostconf_set_vcpu_pin_set", [HostconfP, cp, ErrorP], c_int, _E)
_fn("hostconf_add_reserved_huge_pages", [HostconfP, cp, ErrorP], c_int, _E)
_fn("hostconf_add_physnet", [HostconfP, cp, cp, ErrorP], c_int, _E)
_fn("hostconf_set_tunnel_numa_nodes", [HostconfP, cp, ErrorP], c_int, _E)
_fn("hostconf_set_from_nova_conf", [HostconfP, cp, sz, u, ErrorP], c_int, _E)
_fn("host_new_from_caps_xml", [cp, sz, HostconfP, cp, u, POINTER(HostP), ErrorP], c_int, _E)
_fn("host_new_from_libvirt", [cp, HostconfP, u, POINTER(HostP), ErrorP], c_int, _E)
_fn("host_new_from_sysfs", [cp, HostconfP, u, POINTER(HostP), ErrorP], c_int, _E)
_fn("host_get_distance", [HostP, u, u, POINTER(c_uint)], c_int)
_fn("host_set_cpu_pools", [HostP, HostconfP, u, ErrorP], c_int, _E)

# domain.h
_fn("domconf_new", [POINTER(DomconfP)], c_int, _N)
_fn("domconf_free", [DomconfP], None)
_fn("domconf_set_cpu_shared_set", [DomconfP, cp, ErrorP], c_int, _E)
_fn("domconf_set_vcpu_pin_set", [DomconfP, cp, ErrorP], c_int, _E)
_fn("domconf_set_online_cpus", [DomconfP, cp, ErrorP], c_int, _E)
_fn("domconf_set_realtime_priority", [DomconfP, c_int], c_int, _N)
_fn("domconf_set_cpu_control", [DomconfP, c_int], c_int, _N)
_fn("domconf_set_file_backed_memory", [DomconfP, c_uint64], c_int, _N)
_fn("domconf_set_domain_type", [DomconfP, cp], c_int, _N)
_fn("domconf_set_name", [DomconfP, cp], c_int, _N)
_fn("domconf_set_uuid", [DomconfP, cp], c_int, _N)
_fn("domconf_set_cpu_mode", [DomconfP, cp], c_int, _N)
_fn("domconf_set_virt_type", [DomconfP, cp], c_int, _N)
_fn("domconf_set_arch", [DomconfP, cp], c_int, _N)
_fn("domconf_set_cpu_models", [DomconfP, cp, ErrorP], c_int, _E)
_fn("domconf_set_cpu_model_extra_flags", [DomconfP, cp, ErrorP], c_int, _E)
_fn("domconf_set_mem_stats_period", [DomconfP, c_int], c_int, _N)
_fn("domconf_set_disk_cachemodes", [DomconfP, cp, ErrorP], c_int, _E)
_fn("domconf_set_from_nova_conf", [DomconfP, cp, sz, u, ErrorP], c_int, _E)
_fn("domain_xml", [HostP, RequestP, PlacementP, cp, sz, cp, sz, DomconfP, u, StrP, ErrorP],
    c_int, _E)
_fn("domain_disk_iotune_xml", [cp, sz, u, StrP, ErrorP], c_int, _E)
_fn("domain_hostdev_xml", [cp, sz, u, StrP, ErrorP], c_int, _E)
_fn("domain_interface_bandwidth_xml", [cp, sz, u, StrP, ErrorP], c_int, _E)

# extra_specs.h
_fn("extra_spec_validate", [cp, cp, u, ErrorP], c_int, _E)
_fn("extra_specs_validate", [cp, sz, u, cp, ErrorP], c_int, _E)

# doctor.h (newer builds only)
if hasattr(lib, "numafit_doctor"):
    _fn("doctor", [cp, cp, sz, u, StrP, ErrorP], c_int, _E)
if hasattr(lib, "numafit_doctor_domains"):
    _fn("doctor_domains", [cp, cp, sz, POINTER(cp), POINTER(sz), sz, u, StrP, ErrorP], c_int, _E)

del u, sz, cp

# Exported functions deliberately left without a prototype here, each with
# the reason (bindings/python/tests/test_api_coverage.py fails for any other
# exported function that has none).
NOT_BOUND = {}

_hex = lib.numafit_version_hex()
if (_hex >> 16) != MAJOR:
    raise ImportError("numafit: library %s is major version %d, this binding needs %d"
                      % (library_version(), _hex >> 16, MAJOR))


def take_string(ptr):
    """Read a char * the library allocated (c_void_p) and free it."""
    if not ptr.value:
        return None
    try:
        return string_at(ptr.value).decode("utf-8")
    finally:
        free(ptr)


# ------------------------------------------------------------ argument checks
def _invalid(what, text):
    return errors.InvalidArgument(_errno.EINVAL, text, code=E_INVALID_ARG, where=what)


def out_of_range(what, text):
    """The exception for a value outside the library's bounds (a ValueError)."""
    return errors.RangeError(_errno.ERANGE, text, code=E_RANGE, where=what)


def cbuf(value, what, none=False):
    """Text for a (const char *, size_t) or a const char * argument: str
    (encoded as UTF-8) or bytes-like -> (bytes, length); None -> (None, 0)
    when `none`.  TypeError for anything else; InvalidArgument (a
    ValueError) for a NUL character, which C would take for the end."""
    if value is None and none:
        return None, 0
    if isinstance(value, str):
        try:
            b = value.encode("utf-8")
        except UnicodeEncodeError as e:
            raise _invalid(what, "not encodable as UTF-8: %s" % e) from None
    elif isinstance(value, (bytes, bytearray, memoryview)):
        b = bytes(value)
    else:
        raise TypeError("numafit: %s must be str or bytes, not %s"
                        % (what, type(value).__name__))
    if b"\0" in b:
        raise _invalid(what, "contains a NUL character at offset %d" % b.index(b"\0"))
    return b, len(b)


def cstr(value, what, none=False):
    """cbuf() for a const char * argument: the bytes (or None)."""
    return cbuf(value, what, none)[0]


def cpath(value, what, none=False):
    """A file name (str, bytes or os.PathLike) for a const char *."""
    if value is None and none:
        return None
    return cstr(os.fsencode(value), what)


def _c_range(ctype):
    bits = 8 * ctypes.sizeof(ctype)
    if ctype(-1).value < 0:
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


_RANGES = {t: _c_range(t) for t in (c_int, c_uint, c_uint64, c_size_t, c_int64)}


def cint(value, what, ctype=c_uint, lo=None, hi=None):
    """An integer argument of C type `ctype`, also within [lo, hi] when
    given.  TypeError for bool, float, str and other non-integers (objects
    with __index__, such as numpy integers, are integers); RangeError (a
    ValueError) outside the range, instead of ctypes' silent wrap."""
    if isinstance(value, bool):
        raise TypeError("numafit: %s must be an integer, not bool" % what)
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError("numafit: %s must be an integer, not %s"
                        % (what, type(value).__name__)) from None
    tlo, thi = _RANGES[ctype]
    lo = tlo if lo is None else max(lo, tlo)
    hi = thi if hi is None else min(hi, thi)
    if not lo <= v <= hi:
        raise out_of_range(what, "%d is outside %d..%d" % (v, lo, hi))
    return v


def call_str(func, *args):
    """Call a function ending in (char **ret, numafit_error_t *err) and
    return the string."""
    out, err = c_void_p(), Error()
    func(*args, byref(out), byref(err))
    return take_string(out)


__all__ = ["lib", "Error", "HostP", "RequestP", "OptionsP", "PlacementP", "CpusetP",
           "HostconfP", "DomconfP", "InventoryP", "InventoryClass", "take_string", "cbuf", "cstr", "cpath", "cint",
           "call_str", "byref", "hold", "Owned"]


# ------------------------------------------------------------ handles
class Owned:
    """The lifetime of a library object owned by Python: close() frees it
    with the library's own free function (named by `_free`), as does the end
    of a `with` block and, as a fallback only, garbage collection.

    Every object has a readers-writer lock.  Calls into the library take
    it through hold(): shared for reading, exclusive for changing the
    object; close() takes it exclusively, so it waits for the calls using
    the handle, and every later use raises errors.ClosedError."""

    _free = None  # name of the _ffi function that frees the handle
    _h = None

    def __new__(cls, *args, **kwargs):
        self = super().__new__(cls)
        self._lock = RWLock()
        return self

    @property
    def handle(self):
        """The raw handle; valid only while the object's lock is held
        (hold()), since close() may free it at any other time."""
        h = self._h
        if not h:
            raise errors.ClosedError(_errno.EBADF, "numafit.%s is closed" % type(self).__name__,
                                     where=type(self).__name__)
        return h

    def close(self):
        """Free the handle, once the calls using it have returned.  Later
        uses raise numafit.errors.ClosedError; closing again does nothing."""
        if not self._h:
            return
        with self._lock.write():
            h, self._h = self._h, None
            if h:
                globals()[self._free](h)

    def _adopt(self, other):
        """Take over the handle of a freshly built `other` (unpickling)."""
        if "_lock" not in vars(self):  # pickle protocols 0 and 1 skip __new__
            self._lock = RWLock()
        self._h, other._h = other._h, None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass


class hold:
    """`with hold(a, b, c, write=a) as (ha, hb, hc):` the handles of Owned
    objects (None passes as None) under their locks: shared, or exclusive
    for the object given as `write` (or each object of a tuple).  The locks are taken in one global
    order (by id) and each object's once, so holders never deadlock each
    other.  Raises errors.ClosedError (having released everything) when an
    object is closed, and TypeError for something that is not a numafit
    object."""
    __slots__ = ("_objs", "_write", "_held")

    def __init__(self, *objs, write=None):
        self._objs = objs
        self._write = write

    def __enter__(self):
        objs = self._objs
        order = [o for o in objs if o is not None]
        if len(order) > 1:
            order.sort(key=id)
        held = []
        try:
            prev = None
            for o in order:
                if o is prev:
                    continue  # the same object twice: its lock once
                prev = o
                if not isinstance(o, Owned):
                    raise TypeError("numafit: expected a numafit object, not %s"
                                    % type(o).__name__)
                lock = o._lock
                w = self._write
                if o is w or (type(w) is tuple and any(o is x for x in w)):
                    lock.acquire_write()
                    held.append(lock.release_write)
                else:
                    lock.acquire_read()
                    held.append(lock.release_read)
            handles = [None if o is None else (o._h or o.handle) for o in objs]
        except BaseException:
            for release in reversed(held):
                release()
            raise
        self._held = held
        return handles

    def __exit__(self, *exc):
        for release in reversed(self._held):
            release()
