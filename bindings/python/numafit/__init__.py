"""numafit: Python binding of libnumafit (ctypes, standard library only).

    import numafit
    host = numafit.Host.from_json(nova_numa_topology_primitive)
    req = numafit.Request.from_flavor(4, 8192, {"hw:cpu_policy": "dedicated"})
    p = numafit.fit(host, req)            # numafit.Placement or None
    if p is not None:
        host.claim(p)

The library is loaded from $NUMAFIT_LIBRARY, else from the libdir make install
recorded (numafit/_paths.py), else by SONAME (libnumafit.so.0).
numafit.nova is the adapter for nova (nova.virt.hardware's functions, patch()),
numafit.scheduler the NUMATopologyFilter replacement.  See doc/python.md.
"""
from . import _ffi, errors
from .cpu import (best_cpu_topology, cpu_topologies, cpu_topology_constraints, format_cpu_spec,
                  parse_cpu_spec)
from .errors import NumafitError
from .fit import FitResult, Options, explain, fit, headroom, plan, try_fit
from .host import Host, HostConf, doctor, nova_conf_misplaced
from .inventory import Inventory, allocation_ratios, node_claim, node_fit, node_release
from .pci import PciDevices, PciPools, PciRequests, PciTracker, hostdev_xml
from .placement import (DomainConf, Placement, disk_iotune_xml, domain_xml,
                        interface_bandwidth_xml)
from .request import (Request, Resources, read_flavor, read_image, resources_from_flavor,
                      validate_extra_specs)

__version__ = "0.1.0"
library_version = _ffi.library_version()
library_version_hex = _ffi.version_hex()

__all__ = ["Host", "HostConf", "doctor", "nova_conf_misplaced", "allocation_ratios", "Inventory", "PciDevices", "PciPools", "PciRequests", "PciTracker",
           "hostdev_xml", "node_fit", "node_claim", "node_release", "Request", "Resources", "read_flavor", "read_image", "resources_from_flavor", "validate_extra_specs", "Placement", "DomainConf", "Options", "FitResult",
           "fit", "try_fit", "explain", "plan", "headroom", "domain_xml", "disk_iotune_xml",
           "interface_bandwidth_xml", "parse_cpu_spec",
           "format_cpu_spec", "best_cpu_topology", "cpu_topologies", "cpu_topology_constraints",
           "errors",
           "NumafitError", "library_version"]
