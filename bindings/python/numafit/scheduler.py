"""numafit.scheduler.NUMATopologyFilter: nova's NUMATopologyFilter, fitting
with libnumafit; and numafit.scheduler.NumafitHeadroomWeigher, a host
weigher that ranks hosts by what the instance would strand (not nova's;
see its docstring and doc/headroom.md).

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
import json
import logging
import os
import threading

import nova.conf
from nova import objects
from nova.objects import fields
from nova.scheduler import filters
from nova.scheduler import utils as _sched_utils
from nova.scheduler import weights
from oslo_config import cfg

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
        fits = _adapter.host_fitter(requested, network_metadata, pci_requests,
                                    self._provider_mapping(spec_obj, pci_requests)) \
            if requested else None
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
    def _provider_mapping(spec_obj, pci_requests):
        """The request groups' providers the latest rules give
        numa_fit_instance_to_host with PCI requests, else None."""
        if pci_requests and _adapter.profile() == "latest" and \
                hasattr(spec_obj, "get_request_group_mapping"):
            return spec_obj.get_request_group_mapping()
        return None

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


# ---------------------------------------------------------------- weigher

CONF = nova.conf.CONF

headroom_opts = [
    cfg.FloatOpt("numafit_headroom_weight_multiplier",
                 default=1.0,
                 help="""
Headroom weight multiplier ratio (numafit.scheduler.NumafitHeadroomWeigher).

The weigher prefers the hosts on which the instance strands the least of
the flavor mix's capacity, weighted by how scarce each flavor's capacity
is across the hosts being weighed. A positive value prefers those hosts;
a negative value prefers the opposite (not useful); 0 disables the
weigher. The absolute value controls how strong it is relative to the
other weighers: to let it decide before the RAM weigher, make it several
times ram_weight_multiplier.

This can be overridden per host aggregate with the aggregate metadata key
of the same name.

Related options:

* ``[filter_scheduler] weight_classes``
* ``[filter_scheduler] numafit_headroom_mix``
"""),
    cfg.StrOpt("numafit_headroom_mix",
               default=None,
               help="""
Path of a JSON file with the flavor mix NumafitHeadroomWeigher keeps room
for: a list of {"vcpus": N, "memory_mb": M, "extra_specs": {...},
"weight": W} objects (root_gb, ephemeral_gb, swap optional; weight: the
flavor's share of the arrivals, default 1). Unset: the flavor being
scheduled alone (keep room for more of the same). The file is read again
when it changes.
"""),
]
CONF.register_opts(headroom_opts, group="filter_scheduler")


class _FreeAmounts:
    """What placement would still give on a host, as numafit.headroom
    reads an inventory: MEMORY_MB from free_ram_mb and VCPU from
    vcpus_total x cpu_allocation_ratio - vcpus_used; other classes are
    not counted (the NUMA fit covers PCPU)."""
    UNCOUNTED = {"total": 10**15, "reserved": 0, "allocation_ratio": 1.0}

    def __init__(self, free):
        self.free = dict(free)
        self.taken = {}

    def __getitem__(self, cls):
        if cls not in self.free:
            return self.UNCOUNTED
        return {"total": self.free[cls], "reserved": 0, "allocation_ratio": 1.0}

    def used(self, cls):
        return self.taken.get(cls, 0)

    def take(self, resources):
        for cls, amount in resources.items():
            if cls in self.free:
                if self.free[cls] - self.taken.get(cls, 0) < amount:
                    return False
        for cls, amount in resources.items():
            if cls in self.free:
                self.taken[cls] = self.taken.get(cls, 0) + amount
        return True

    def __copy__(self):
        c = _FreeAmounts(self.free)
        c.taken = dict(self.taken)
        return c


def _place(host, amounts, request, resources, options):
    """Fit and claim on the copies: the NUMA fit (when the host and the
    request have a topology), then the free amounts."""
    if host is not None and request.has_numa:
        if host.try_fit_and_claim(request, limits=options).placement is None:
            return False
    return amounts.take(resources)


class NumafitHeadroomWeigher(weights.BaseHostWeigher):
    """Prefer the hosts on which the instance strands the least (issue 16).

    For each host being weighed (those that passed the filters): the
    capacity of the flavor mix ([filter_scheduler] numafit_headroom_mix;
    unset: the flavor being scheduled) on the host before and after the
    instance -- per flavor, how many more instances fit, each alone, at
    most numafit.fit.HEADROOM_CAP: the NUMA fit of libnumafit
    (numafit_host_headroom) with the host's allocation ratios as limits,
    and the host's free RAM and vCPUs -- with the instance placed by
    numafit's headroom strategy.  The weight is minus the cost: the sum
    over the mix of weight share x capacity lost on this host / that
    flavor's capacity over all the hosts weighed (numafit.headroom).
    Capacity lost where a flavor is scarce costs most; an instance that
    takes nothing another flavor could use costs nothing.

    Enable it in nova.conf of the scheduler:

        [filter_scheduler]
        weight_classes = nova.scheduler.weights.all_weighers
        weight_classes = numafit.scheduler.NumafitHeadroomWeigher
        numafit_headroom_weight_multiplier = 1.0

    The multiplier is [filter_scheduler] numafit_headroom_weight_multiplier
    (default 1.0), overridable by the aggregate metadata key of the same
    name, as nova's weighers do."""

    def __init__(self):
        super().__init__()
        self._mix_cache = (None, None, None)  # (path, mtime, flavors)
        self._lock = threading.Lock()

    def weight_multiplier(self, host_state):
        return _sched_utils.get_weight_multiplier(
            host_state, "numafit_headroom_weight_multiplier",
            CONF.filter_scheduler.numafit_headroom_weight_multiplier)

    def _mix_flavors(self):
        """The flavors of the configured mix, as (flavor dict, weight), or
        None when unset."""
        path = CONF.filter_scheduler.numafit_headroom_mix
        if not path:
            return None
        mtime = os.stat(path).st_mtime
        with self._lock:
            cpath, cmtime, flavors = self._mix_cache
            if cpath == path and cmtime == mtime:
                return flavors
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        if not isinstance(data, list) or not data:
            raise ValueError("numafit_headroom_mix %s: a non-empty JSON list of flavors" % path)
        flavors = []
        for i, fl in enumerate(data):
            if not isinstance(fl, dict):
                raise ValueError("numafit_headroom_mix %s: item %d is not an object" % (path, i))
            fl = dict(fl)
            w = fl.pop("weight", 1)
            if isinstance(w, bool) or not isinstance(w, (int, float)) or w < 0:
                raise ValueError("numafit_headroom_mix %s: item %d: weight must be a number "
                                 ">= 0" % (path, i))
            for k in ("root_gb", "ephemeral_gb", "swap"):
                fl.setdefault(k, 0)
            flavors.append((fl, float(w)))
        with self._lock:
            self._mix_cache = (path, mtime, flavors)
        return flavors

    def _weigh_object(self, host_state, weight_properties):
        return self.weigh_objects([weights.WeighedHost(host_state, 0.0)], weight_properties)[0]

    def weigh_objects(self, weighed_obj_list, weight_properties):
        from . import Host, Options, Request, resources_from_flavor
        from .fit import HEADROOM_CAP
        from .headroom import MixFlavor, _inventory_count, change, costs
        from .nova.convert import flavor_json, image_json
        spec = weight_properties
        profile = _adapter.profile()
        flavor = flavor_json(spec.flavor)
        image = image_json(spec.image) if "image" in spec and spec.image else None
        for k in ("root_gb", "ephemeral_gb", "swap"):
            flavor.setdefault(k, int(getattr(spec.flavor, k, 0) or 0))
        request = Request.from_json(flavor, image, profile)
        resources = resources_from_flavor(flavor, image, profile=profile)
        configured = self._mix_flavors()
        if configured is None:
            mix = [MixFlavor(request, 1.0, resources)]
        else:
            mix = [MixFlavor(Request.from_json(fl, None, profile), w,
                             resources_from_flavor(fl, None, profile=profile))
                   for fl, w in configured]
        numa_mix = [(m.request, m.weight) for m in mix if m.request.has_numa]
        changes = []
        for wo in weighed_obj_list:
            hs = wo.obj
            topo = hs.numa_topology
            host = Host.from_json(topo.obj_to_primitive()) if topo else None
            limits = {"cpu_allocation_ratio": hs.cpu_allocation_ratio,
                      "ram_allocation_ratio": hs.ram_allocation_ratio}
            free = {"MEMORY_MB": max(0, hs.free_ram_mb),
                    "VCPU": max(0, hs.vcpus_total * hs.cpu_allocation_ratio - hs.vcpus_used)}
            amounts = _FreeAmounts(free)
            with Options(limits, profile, "headroom", mix=numa_mix if host else None) as opt:
                if host is None:
                    # no NUMA topology: only the free amounts count
                    b = [_inventory_count(amounts, m.resources, HEADROOM_CAP) for m in mix]
                    a2 = amounts.__copy__()
                    a = [_inventory_count(a2, m.resources, HEADROOM_CAP)
                         for m in mix] if a2.take(resources) else None
                    changes.append((b, a))
                else:
                    changes.append(change(host, amounts, request, resources, mix, opt,
                                          place=_place))
                    host.close()
        out = costs(changes, mix)
        # a host where the instance does not fit (it passed the filters, so
        # rarely): the worst weight
        worst = max([c for c in out if c is not None] or [0.0])
        return [-(c if c is not None else worst) for c in out]
