"""numafit.nova: nova.virt.hardware's NUMA functions, computed by libnumafit.

The functions here have the names and signatures of nova.virt.hardware and
take and return nova objects.  They convert nova's objects to JSON, call the
library, and convert the answers back to nova objects; nova's own code is
not copied.  numa_fit_instance_to_host, the scheduler's hot path, reads the
objects' storage directly and caches the converted hosts, requests and
options under the values of their fields (numafit.nova.cache).
Errors raise nova's own exception classes (nova.exception.<Name>, or a bare
ValueError where nova raises one) when nova is importable, numafit.errors
classes otherwise.

    import numafit.nova
    replaced = numafit.nova.patch()     # swap them into nova.virt.hardware
    ...
    numafit.nova.unpatch()

patch() replaces DEFAULT_FUNCTIONS (and the column's METHODS): the
functions of FUNCTIONS that measure faster than nova's own (not
numa_get_constraints, get_cpu_topology_constraints, parse_cpu_spec,
format_cpu_spec, _numa_fit_instance_cell: hardware.NOT_DEFAULT);
patch(names=...) replaces any of FUNCTIONS.

Is it active?  patch() logs once per process at INFO (logger numafit.nova)
what it replaced and which library file it uses; the counters
(numafit.nova.stats, .fallbacks; status(), stats_line()) are logged at INFO
every NUMAFIT_NOVA_STATS_INTERVAL seconds (3600) and at exit.
`python3 -m numafit.nova check` patches nova in its own process, fits one
instance through nova.virt.hardware and prints all that.

Differences from nova, on purpose (doc/python.md, nova-reference A):
* no fit cache keyed on a mutated id, no request mutation: the instance
  topology passed in is never modified; _numa_fit_instance_cell returns a
  new cell;
* pCPUs within a core: the lowest-numbered free thread first (nova: Python
  set order).

numa_fit_instance_to_host with PCI requests and pools (pci_requests,
pci_stats) fits in the library too: the pools order the host cells as
nova's do, and the requests are checked by the library's rules, or by
pci_stats.support_requests when that is not nova's own (doc/pci.md).

Falls back to nova's own function (counted in numafit.nova.stats):
* numa_fit_instance_to_host with pools or requests the library cannot read;
* an InstanceNUMATopology no flavor can produce (cells with different CPU
  or thread policies or page sizes, dedicated vCPUs in a dedicated cell's
  shared cpuset, vCPU ids used twice...).
The release rules follow the nova that is installed: "latest" when its
numa_fit_instance_to_host takes provider_mapping, else "zed" (Debian 12's
26.2.2); patch(profile=...) overrides.

The package's modules, by concept (numafit.nova is the API; they are not):
  hardware  the replacements of nova.virt.hardware's functions
  patching  patch() and unpatch()
  convert   nova objects <-> the library's JSON (flavors, images, limits,
            host topologies, instance topologies, fitted cells)
  cache     Hosts, Requests and Options reused across calls
  watch     change watches on nova's host NUMA objects (for the host cache)
  column    NUMATopology.obj_from_db_obj and _to_json (METHODS): the compute
            node's numa_topology column read and written through the storage
  pinlog    nova's INFO lines for a pinning
  runtime   the installed nova: its modules and own functions, the release
            rules, nova's exceptions for the library's errors, the counters
"""
import sys
import types

from . import runtime as _runtime
from .cache import _hosts, _optionses, _requests
from .column import METHODS
from .convert import flavor_json, image_json, limits_json, request_flavor
from .hardware import (DEFAULT_FUNCTIONS, FUNCTIONS, _get_desirable_cpu_topologies, _numa_fit_instance_cell,
                       format_cpu_spec, get_best_cpu_topology, get_cpu_topology_constraints,
                       host_fits, host_fitter,
                       numa_fit_instance_to_host, numa_get_constraints,
                       numa_usage_from_instance_numa, parse_cpu_spec)
from .patching import patch, patched, status, unpatch
from .runtime import _original, fallbacks, log_stats, profile, set_profile, stats, stats_line

__all__ = ["DEFAULT_FUNCTIONS", "FUNCTIONS", "METHODS", "patch", "unpatch", "patched", "profile", "set_profile", "stats",
           "fallbacks", "status", "stats_line", "log_stats", "flavor_json", "image_json", "limits_json", "request_flavor",
           "numa_get_constraints", "numa_fit_instance_to_host", "_numa_fit_instance_cell",
           "numa_usage_from_instance_numa", "get_best_cpu_topology",
           "_get_desirable_cpu_topologies", "get_cpu_topology_constraints", "parse_cpu_spec",
           "format_cpu_spec", "host_fits", "host_fitter", "_original", "_hosts", "_requests",
           "_optionses"]


class _Package(types.ModuleType):
    """numafit.nova's module type: numafit.nova._VERIFY (tests: check every
    fast conversion against nova's API) reads and sets the switch the
    modules use, in numafit.nova.runtime."""

    @property
    def _VERIFY(self):
        return _runtime._VERIFY

    @_VERIFY.setter
    def _VERIFY(self, value):
        _runtime._VERIFY = value


sys.modules[__name__].__class__ = _Package
