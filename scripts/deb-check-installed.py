#!/usr/bin/python3
"""Checks of the installed python3-numafit package (scripts/deb-check.sh runs
this with /usr/bin/python3 in a clean Debian root where the .debs and
python3-nova are installed; no NUMAFIT_LIBRARY, no PYTHONPATH):

1. numafit imports from /usr/lib/python3/dist-packages and its ctypes
   loader finds the packaged libnumafit.so.0 by SONAME (the mapped file is
   the one of libnumafit0), and a fit through it gives the pinning;
2. nova's scheduler finds the filter as nova-scheduler does: nova.conf's
   [filter_scheduler] lines of doc/python.md read by oslo.config, the
   available_filters classes loaded by nova's HostFilterHandler, the
   enabled_filters names resolved by nova's HostManager._choose_host_filters;
   the filter then passes and refuses hosts as nova's NUMATopologyFilter
   does, with the answers from the library.

   deb-check-installed.py HOST.json NOVA_CONF_DIR
HOST.json is nova's NUMATopology primitive of a host with dedicated CPUs
(tests/data/hosts/rh2288h-v3.json); NOVA_CONF_DIR a scratch directory.
"""
import json
import os
import sys
import sysconfig


def fail(msg):
    print("deb-check-installed: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def mapped_numafit_libraries():
    with open("/proc/self/maps") as f:
        return sorted({line.split()[-1] for line in f
                       if "libnumafit" in line and line.split()[-1].startswith("/")})


def check_binding(host_json):
    for var in ("NUMAFIT_LIBRARY", "PYTHONPATH"):
        check(var not in os.environ, "%s is set: the check must use the installed files" % var)
    import numafit
    check(numafit.__file__ == "/usr/lib/python3/dist-packages/numafit/__init__.py",
          "numafit imported from %s" % numafit.__file__)
    multiarch = sysconfig.get_config_var("MULTIARCH")
    want = "/usr/lib/%s/libnumafit.so.0.0.0" % multiarch
    libs = [os.path.realpath(p) for p in mapped_numafit_libraries()]
    check(libs == [want], "libnumafit mapped from %s, expected %s" % (libs, want))
    check(numafit.library_version == numafit.__version__,
          "library %s, binding %s" % (numafit.library_version, numafit.__version__))
    host = numafit.Host.from_json(host_json)
    req = numafit.Request.from_flavor(2, 2048, {"hw:cpu_policy": "dedicated"})
    p = numafit.fit(host, req)
    check(p is not None, "2 dedicated vCPUs do not fit on the host")
    pinned = sorted(json.loads(p.to_json())[0]["cpu_pinning"].values())
    # the host's cpu_dedicated_set is 4-11
    check(len(pinned) == 2 and all(4 <= c <= 11 for c in pinned), "pinned to %s" % pinned)
    print("binding: numafit %s, library %s, fit pins vCPUs 0-1 to pCPUs %s"
          % (numafit.__version__, libs[0], pinned))


NOVA_CONF = """[filter_scheduler]
available_filters = nova.scheduler.filters.all_filters
available_filters = numafit.scheduler.NumafitNUMATopologyFilter
enabled_filters = ComputeFilter,ImagePropertiesFilter,NumafitNUMATopologyFilter
"""


def check_nova_filter(host_json, conf_dir):
    import nova.conf
    from nova import objects
    from nova.scheduler import filters, host_manager
    from nova.scheduler.filters import numa_topology_filter
    from nova.virt import hardware
    import numafit.nova as adapter
    import numafit.scheduler

    objects.register_all()
    conf_file = os.path.join(conf_dir, "nova.conf")
    with open(conf_file, "w") as f:
        f.write(NOVA_CONF)
    CONF = nova.conf.CONF
    CONF([], project="nova", default_config_files=[conf_file])

    # what HostManager.__init__ does, without its database
    classes = filters.HostFilterHandler().get_matching_classes(
        CONF.filter_scheduler.available_filters)
    hm = host_manager.HostManager.__new__(host_manager.HostManager)
    hm.filter_cls_map = {cls.__name__: cls for cls in classes}
    hm.filter_obj_map = {}
    enabled = hm._choose_host_filters(CONF.filter_scheduler.enabled_filters)
    ours = [f for f in enabled if type(f).__name__ == "NumafitNUMATopologyFilter"]
    check(len(ours) == 1 and isinstance(ours[0], numafit.scheduler.NumafitNUMATopologyFilter),
          "enabled filters: %s" % [type(f).__name__ for f in enabled])
    ours = ours[0]
    novas = numa_topology_filter.NUMATopologyFilter()

    def host_state(name, topology):
        hs = host_manager.HostState(name, name, None)
        hs.numa_topology = topology
        hs.cpu_allocation_ratio = 4.0
        hs.ram_allocation_ratio = 1.0
        return hs

    def spec(vcpus):
        flavor = objects.Flavor(vcpus=vcpus, memory_mb=1024 * vcpus,
                                extra_specs={"hw:cpu_policy": "dedicated"})
        image = objects.ImageMeta.from_dict({})
        return objects.RequestSpec(numa_topology=hardware.numa_get_constraints(flavor, image),
                                   flavor=flavor, image=image, pci_requests=None,
                                   instance_uuid="8e7a8b0c-3f7e-4d0b-9a55-0d6f2c1b7e41")

    topology = objects.NUMATopology.obj_from_primitive(json.loads(host_json))
    before = adapter.stats["library"]
    results = {}
    for vcpus in (2, 4, 5):
        ans = {}
        for filt in (ours, novas):
            hosts = [host_state("numa-host", topology.obj_clone()), host_state("no-numa", None)]
            ans[filt] = [h.host for h in filt.filter_all(hosts, spec(vcpus))]
        check(ans[ours] == ans[novas], "%d vCPUs: numafit passes %s, nova %s"
              % (vcpus, ans[ours], ans[novas]))
        results[vcpus] = ans[ours]
    # 4 dedicated pCPUs per host cell: 2 and 4 vCPUs fit in one cell,
    # 5 do not (nova does not split an instance without hw:numa_nodes)
    check(results == {2: ["numa-host"], 4: ["numa-host"], 5: []}, "passed hosts %s" % results)
    check(adapter.stats["library"] > before, "the filter did not ask the library")
    print("nova filter: %s loaded by nova's filter handler, enabled as %s; hosts passed %s"
          % (type(ours).__module__, type(ours).__name__, results))


def main():
    if len(sys.argv) != 3:
        fail("usage: deb-check-installed.py HOST.json NOVA_CONF_DIR")
    with open(sys.argv[1]) as f:
        host_json = f.read()
    check_binding(host_json)
    check_nova_filter(host_json, sys.argv[2])
    print("deb-check-installed: all checks passed")


if __name__ == "__main__":
    main()
