"""python3 -m numafit.nova check: is numafit.nova usable here, and active
once patched?

Run it with the Python and the environment of the nova service (the same
PYTHONPATH, NUMAFIT_LIBRARY if the service sets it).  It imports nova,
calls adapter.patch() in its own process, asks nova's own API
(nova.virt.hardware.numa_get_constraints, numa_fit_instance_to_host,
numa_usage_from_instance_numa, looked up on the module as nova's services
do) for one dedicated instance on a two-cell host, and prints which
libnumafit file is loaded, what patch() replaced, the placement and the
counters: calls computed by libnumafit and calls sent to nova's own.

Exit status: 0 every call to a replaced function went through libnumafit,
1 not (or nova cannot be imported), 2 usage.

A running service cannot be asked from outside: it logs the same facts at
INFO on the logger numafit.nova (once at patch(), the counters every
NUMAFIT_NOVA_STATS_INTERVAL seconds and at exit), and the scheduler filter
on numafit.scheduler when nova-scheduler loads it.
"""
import logging
import sys

USAGE = "usage: python3 -m numafit.nova check"

HOST = "cells:2 cores:4 threads:2 mem:16G"
FLAVOR = {"vcpus": 4, "memory_mb": 2048,
          "extra_specs": {"hw:cpu_policy": "dedicated", "hw:numa_nodes": "1"}}


def check(out=sys.stdout):
    """The check; returns the exit status."""
    import numafit
    import numafit.nova as adapter
    from . import patching, runtime

    def say(key, value):
        print("%s: %s" % (key, value), file=out)

    st = patching.status()
    say("numafit", "%s (package %s)" % (numafit.__version__, st["package"]))
    say("library", "%s (libnumafit %s, %s)" % (st["library"], st["library_version"],
                                               st["library_from"]))
    try:
        hardware, objects = runtime._nova()[:2]
        import nova
        import nova.version
    except ImportError as e:
        say("nova", "cannot be imported (%s)" % e)
        return 1
    say("nova", "%s (%s)" % (nova.version.version_string(), nova.__path__[0]))
    replaced = adapter.patch()
    say("replaced", ", ".join(map(patching.full_name, replaced)) or "nothing")
    say("nova's own", ", ".join(map(patching.full_name,
                                    (n for n in adapter.FUNCTIONS if n not in replaced))))
    say("profile", runtime.profile())

    before = dict(runtime.stats)
    host = objects.NUMATopology.obj_from_primitive(numafit.Host.synthetic(HOST).to_dict())
    flavor = objects.Flavor(vcpus=FLAVOR["vcpus"], memory_mb=FLAVOR["memory_mb"],
                            extra_specs=dict(FLAVOR["extra_specs"]))
    image = objects.ImageMeta.from_dict({"properties": {}})
    # nova's own API, looked up on the module as nova's callers do
    requested = hardware.numa_get_constraints(flavor, image)
    fitted = hardware.numa_fit_instance_to_host(host, requested)
    ok = fitted is not None
    if ok:
        cells = ["cell %d: vCPUs %s on pCPUs %s" % (
            c.id, ",".join(map(str, sorted(c.cpu_pinning))),
            ",".join(str(c.cpu_pinning[v]) for v in sorted(c.cpu_pinning)))
            for c in fitted.cells]
        say("fit", "%d vCPUs %d MiB dedicated on %s: %s" % (
            FLAVOR["vcpus"], FLAVOR["memory_mb"], HOST, "; ".join(cells)))
        used = hardware.numa_usage_from_instance_numa(host, fitted)
        say("claim", "pinned %s" % ",".join(
            str(c) for cell in used.cells for c in sorted(cell.pinned_cpus)))
    else:
        say("fit", "none: the instance does not fit (it should)")
    lib = runtime.stats["library"] - before.get("library", 0)
    fb = runtime.stats["fallback"] - before.get("fallback", 0)
    say("counters", "%d calls computed by libnumafit, %d sent to nova's own" % (lib, fb))
    for why, n in sorted(runtime.fallbacks.items()):
        say("fallback", "%s: %d" % (why, n))
    ok = ok and "numa_fit_instance_to_host" in replaced and lib > 0 and fb == 0
    say("check", "ok: numafit.nova answers for nova.virt.hardware in this process"
        if ok else "FAILED")
    return 0 if ok else 1


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv in ([], ["check"]):
        # the INFO lines a service logs (patch(), the counters at exit), on stderr
        logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
        return check()
    if argv in (["-h"], ["--help"]):
        print(USAGE)
        print(__doc__)
        return 0
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
