"""numafit.scheduler.NUMATopologyFilter: nova's NUMATopologyFilter, fitting
with libnumafit.

In nova.conf of the scheduler (nova-scheduler), make the class available
and enable it in place of NUMATopologyFilter:

    [filter_scheduler]
    available_filters = nova.scheduler.filters.all_filters
    available_filters = numafit.scheduler.NumafitNUMATopologyFilter
    enabled_filters = ComputeFilter,...,NumafitNUMATopologyFilter

(nova's host manager looks the enabled_filters names up by class name
among the classes available_filters loads; nova's own NUMATopologyFilter
stays loaded but unused.)

The filter passes or refuses a host exactly as nova's NUMATopologyFilter
does (the same checks, read from nova's filter: the "require" thread policy
needs a host with hyperthreads; no fit without a host NUMA topology; the
host's cpu/ram allocation ratios and the request's network metadata as
NUMATopologyLimits, stored in host_state.limits['numa_topology'] when the
host passes), but the fit is numafit.nova.numa_fit_instance_to_host: no
fit cache keyed on a mutated id, the request is never modified, bounded
work.  Requests with PCI devices are fitted with the host's pools
(numafit.nova.numa_fit_instance_to_host with nova's pci_requests and
pci_stats; doc/pci.md); without, the pools only order the host cells and
the answer alone is asked (numafit.nova.host_fitter).
"""
import logging
import os
import threading

from nova import objects
from nova.objects import fields
from nova.scheduler import filters

from . import nova as _adapter
from .nova import patching as _patching

LOG = logging.getLogger(__name__)

_announce_lock = threading.Lock()
_announced = []


def _announce(cls):
    """Log at INFO, once per process, that nova made a filter of this
    class (nova's host manager does when enabled_filters names it)."""
    with _announce_lock:
        if _announced:
            return
        _announced.append(cls)
    try:
        profile = _adapter.profile()
    except Exception:  # the profile comes from nova's own function
        profile = "unknown"
    LOG.info("numafit.scheduler: %s.%s in use (profile %s; %s; pid %d)", cls.__module__,
             cls.__name__, profile, _patching.library_line(), os.getpid())


class NumafitNUMATopologyFilter(filters.BaseHostFilter):
    """Filter on the requested NUMA topology, fitted by libnumafit.

    nova's enabled_filters names filters by class name, so this class has
    its own name; NUMATopologyFilter below is an alias of it."""

    # the NUMA constraints cannot change on rebuild (checked by the API)
    RUN_ON_REBUILD = False

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _announce(NumafitNUMATopologyFilter)

    @staticmethod
    def _requires_threads(extra_specs, image_props):
        """hw:cpu_policy=dedicated with hw:cpu_thread_policy=require (flavor
        or image) needs a host with hyperthreads."""
        if isinstance(image_props, objects.ImageMetaProps):
            # image_props.get(name) of a field: its value, or None when unset
            # (read from the storage: ImageMetaProps.get lists all ~150
            # field names on every call)
            image_policy = getattr(image_props, "_obj_hw_cpu_policy", None)
            image_threads = getattr(image_props, "_obj_hw_cpu_thread_policy", None)
        else:
            image_policy = image_props.get("hw_cpu_policy")
            image_threads = image_props.get("hw_cpu_thread_policy")
        policies = {extra_specs.get("hw:cpu_policy"), image_policy}
        threads = {extra_specs.get("hw:cpu_thread_policy"), image_threads}
        return (fields.CPUAllocationPolicy.DEDICATED in policies and
                fields.CPUThreadAllocationPolicy.REQUIRE in threads)

    @staticmethod
    def _limits(host_state, network_metadata):
        """The NUMATopologyLimits nova's filter stores for a passing host."""
        limits = objects.NUMATopologyLimits(
            cpu_allocation_ratio=host_state.cpu_allocation_ratio,
            ram_allocation_ratio=host_state.ram_allocation_ratio)
        if network_metadata:
            limits.network_metadata = network_metadata
        return limits

    def host_passes(self, host_state, spec_obj):
        check = self._checker(spec_obj)
        try:
            return check(host_state)
        finally:
            check.done()

    def filter_all(self, filter_obj_list, spec_obj):
        """The hosts that pass, as nova's BaseFilter.filter_all yields them
        (nova's filter handler calls this once per request with every
        host): the request's part of the check done once, then each host's
        (its cached library host and the fit)."""
        if type(self).host_passes is not _HOST_PASSES:
            # host_passes overridden (a subclass, a test's probe): nova's
            # loop, which asks it about each host
            yield from super().filter_all(filter_obj_list, spec_obj)
            return
        if not self.RUN_ON_REBUILD and _is_rebuild(spec_obj):
            # nova's BaseHostFilter._filter_one: a rebuild passes every host
            yield from filter_obj_list
            return
        check = self._checker(spec_obj)
        try:
            for host_state in filter_obj_list:
                if check(host_state):
                    yield host_state
        finally:
            check.done()

    def _checker(self, spec_obj):
        """check(host_state) -> bool for one request: nova's filter's
        checks, in its order, with the request read once."""
        requested = spec_obj.numa_topology
        requires_threads = self._requires_threads(spec_obj.flavor.extra_specs,
                                                  spec_obj.image.properties)
        network_metadata = spec_obj.network_metadata \
            if "network_metadata" in spec_obj and spec_obj.network_metadata else None
        pci_requests = spec_obj.pci_requests.requests if spec_obj.pci_requests else None
        debug = LOG.isEnabledFor(logging.DEBUG)
        fits = _adapter.host_fitter(requested, network_metadata) \
            if requested and not pci_requests else None
        limits_of = self._limits

        def check(host_state):
            host_topology = host_state.numa_topology
            if host_topology and requires_threads and not host_topology.has_threads:
                if debug:
                    LOG.debug("%s fails CPU policy requirements: no hyperthreads on the "
                              "host, but the 'require' thread policy was requested",
                              host_state)
                return False
            if not requested:
                return True
            if not host_topology:
                if debug:
                    LOG.debug("%s, %s fails NUMA topology requirements: no host NUMA "
                              "topology while the instance specified one",
                              host_state.host, host_state.nodename)
                return False
            ok = None
            if fits is not None:
                # the answer alone: no instance topology is built, and the
                # limits only for a host that passes
                ok = fits(host_topology, host_state.cpu_allocation_ratio,
                          host_state.ram_allocation_ratio, host_state.pci_stats)
            if ok is None:
                ok = self._fit_with_nova_rules(host_state, host_topology, requested,
                                               network_metadata, pci_requests, spec_obj)
            if not ok:
                if debug:
                    LOG.debug("%s, %s fails NUMA topology requirements: the instance "
                              "does not fit on this host", host_state.host,
                              host_state.nodename)
                return False
            host_state.limits["numa_topology"] = limits_of(host_state, network_metadata)
            return True

        def done():
            if fits is not None:
                fits.flush()
        check.done = done
        return check

    @staticmethod
    def _fit_with_nova_rules(host_state, host_topology, requested, network_metadata,
                             pci_requests, spec_obj):
        """numafit.nova.numa_fit_instance_to_host (with nova's PCI requests
        and pools): does the instance fit?"""
        limits = NumafitNUMATopologyFilter._limits(host_state, network_metadata)
        kwargs = {}
        if pci_requests and _adapter.profile() == "latest" and \
                hasattr(spec_obj, "get_request_group_mapping"):
            kwargs["provider_mapping"] = spec_obj.get_request_group_mapping()
        # the adapter never modifies `requested` (nova's filter has to clone
        # the request spec for that)
        return bool(_adapter.numa_fit_instance_to_host(
            host_topology, requested, limits=limits, pci_requests=pci_requests,
            pci_stats=host_state.pci_stats, **kwargs))


_HOST_PASSES = NumafitNUMATopologyFilter.host_passes


def _is_rebuild(spec_obj):
    from nova.scheduler import utils
    return utils.request_is_rebuild(spec_obj)


# the drop-in name: numafit.scheduler.NUMATopologyFilter
NUMATopologyFilter = NumafitNUMATopologyFilter
