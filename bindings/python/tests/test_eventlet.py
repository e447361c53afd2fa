"""Fits from many eventlet greenthreads, as nova's services make them
(nova-reference K).

Every nova service runs under eventlet.monkey_patch() (nova/monkey_patch.py,
imported by nova/cmd/__init__.py), and nova's scheduler calls
numa_fit_instance_to_host from its RPC greenthreads.  The test runs a child
process that monkey-patches the same way (import nova.monkey_patch, or
eventlet.monkey_patch() when nova is missing) and then, at once:
* 100 greenthreads fit requests on shared hosts through the binding
  (numafit.fit) and, when nova is importable, through the adapter
  (numafit.nova.numa_fit_instance_to_host with nova objects), yielding
  between calls; every answer is compared with the one computed before;
* 4 greenthreads claim and release on one shared Host (the binding's
  readers-writer lock, made of green locks after patching) while the others
  fit on it; the host must end as it started;
* 4 greenthreads read a sysfs host through eventlet.tpool.execute, as
  nova-reference K advises for discovery (not bounded by the work budget);
* a ticker greenthread checks that the hub keeps running (no C call blocks
  it for long).
A deadlock shows as the child's timeout.  Skipped when eventlet is missing.
"""
import importlib.util
import os
import random
import subprocess
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))  # from bindings/python/tests
SYSFS = os.path.join(TOP, "tests", "data", "sysfs", "e5-2620-ht")
TIMEOUT = 300  # seconds for the child: a deadlock fails the test here
GREENTHREADS = 100
ROUNDS = 30
MAX_STALL = 2.0  # seconds the ticker may wait (a loaded machine is slow)


@unittest.skipUnless(importlib.util.find_spec("eventlet"), "eventlet is not installed")
class Eventlet(unittest.TestCase):
    def test_greenthreads(self):
        env = dict(os.environ)
        env.pop("OS_NOVA_DISABLE_EVENTLET_PATCHING", None)
        env["PYTHONPATH"] = os.pathsep.join(
            [HERE] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
        try:
            r = subprocess.run([sys.executable, os.path.abspath(__file__), "--child"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=TIMEOUT)
        except subprocess.TimeoutExpired as e:
            self.fail("the greenthreads did not finish within %d s (a deadlock?):\n%s"
                      % (TIMEOUT, e.output))
        sys.stderr.write("\n" + "\n".join(line for line in r.stdout.splitlines()
                                          if line.startswith("eventlet:")) + "\n")
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("eventlet: all answers checked", r.stdout)


# ------------------------------------------------------------ the child
def child():
    try:
        import nova.monkey_patch  # noqa: F401  (what nova's services do)
        how = "nova.monkey_patch"
    except ImportError:
        import eventlet
        eventlet.monkey_patch()
        how = "eventlet.monkey_patch()"
    import logging

    import eventlet
    from eventlet import patcher, tpool

    import numafit
    from test_threads import FLAVORS, HOSTS

    assert patcher.is_monkey_patched("thread"), "threading is not monkey-patched"
    logging.getLogger("nova").setLevel(logging.CRITICAL)
    print("eventlet: %s %s, threading patched" % (how, eventlet.__version__))

    hosts = [numafit.Host.synthetic(s) for s in HOSTS]
    for h in hosts[:2]:
        h.claim(numafit.fit(h, numafit.Request.from_flavor(*FLAVORS[0])))
    reqs = [numafit.Request.from_flavor(*f) for f in FLAVORS]
    cases = [(hi, ri, st) for hi in range(len(hosts)) for ri in range(len(reqs))
             for st in ("spread", "pack")]

    def answer(c):
        p = numafit.fit(hosts[c[0]], reqs[c[1]], strategy=c[2])
        return None if p is None else p.to_json()

    expected = {c: answer(c) for c in cases}

    # the adapter, on nova objects shared by every greenthread
    adapter = []
    try:
        import numafit.nova as nn
        from nova import objects
        objects.register_all()
    except ImportError:
        nn = None
    if nn is not None:
        nn.unpatch()
        topos = [objects.NUMATopology.obj_from_primitive(h.to_dict()) for h in hosts]
        for vcpus, mem, es in FLAVORS:
            fl = objects.Flavor(vcpus=vcpus, memory_mb=mem, extra_specs=dict(es))
            inst = nn.numa_get_constraints(fl, objects.ImageMeta.from_dict({"properties": {}}))
            for t in topos:
                adapter.append((t, inst))

    def adapter_answer(k):
        t, inst = adapter[k]
        got = nn.numa_fit_instance_to_host(t, inst)
        return None if got is None else got.obj_to_primitive()

    adapter_expected = [adapter_answer(k) for k in range(len(adapter))]
    shared = numafit.Host.synthetic(HOSTS[0])
    shared_before = shared.to_json()
    small = numafit.Request.from_flavor(2, 512, {"hw:cpu_policy": "dedicated"})
    sysfs_expected = numafit.Host.from_sysfs(SYSFS).to_json()

    failures, counts = [], {"fit": 0, "adapter": 0, "claim": 0, "tpool": 0, "ticks": 0}
    stall = [0.0]
    done = [False]

    def fitter(k):
        rng = random.Random(k)
        for _ in range(ROUNDS):
            c = rng.choice(cases)
            got = answer(c)
            if got != expected[c]:
                failures.append(("fit", k, c))
            counts["fit"] += 1
            if adapter:
                a = rng.randrange(len(adapter))
                if adapter_answer(a) != adapter_expected[a]:
                    failures.append(("adapter", k, a))
                counts["adapter"] += 1
            p = numafit.fit(shared, small)
            if p is not None and len(set(p.pinning.values())) != len(p.pinning):
                failures.append(("duplicate pCPUs", k))
            eventlet.sleep(0)

    def claimer(k):
        for _ in range(ROUNDS):
            p = numafit.fit(shared, small)
            if p is not None:
                try:
                    shared.claim(p)
                except numafit.errors.CPUPinningInvalid:
                    continue  # another greenthread took those CPUs first
                eventlet.sleep(0)  # hold the claim while others run
                shared.release(p)
                counts["claim"] += 1
            eventlet.sleep(0)

    def discover(k):
        for _ in range(3):
            h = tpool.execute(numafit.Host.from_sysfs, SYSFS)
            if h.to_json() != sysfs_expected:
                failures.append(("tpool", k))
            counts["tpool"] += 1

    def ticker():
        last = time.monotonic()
        while not done[0]:
            eventlet.sleep(0.01)
            now = time.monotonic()
            stall[0] = max(stall[0], now - last)
            last = now
            counts["ticks"] += 1

    tick = eventlet.spawn(ticker)
    pool = eventlet.GreenPool(GREENTHREADS + 8)
    for k in range(GREENTHREADS):
        pool.spawn(fitter, k)
    for k in range(4):
        pool.spawn(claimer, k)
        pool.spawn(discover, k)
    try:
        with eventlet.Timeout(TIMEOUT - 30):
            pool.waitall()
    except eventlet.Timeout:
        print("eventlet: FAIL the greenthreads did not finish (a deadlock?)")
        return 1
    done[0] = True
    tick.wait()
    tpool.killall()
    if shared.to_json() != shared_before:
        failures.append(("shared host not restored",))
    print("eventlet: %(fit)d binding fits, %(adapter)d adapter fits, %(claim)d claims and "
          "releases, %(tpool)d sysfs reads through tpool, %(ticks)d ticks" % counts)
    print("eventlet: longest ticker stall %.3f s" % stall[0])
    if stall[0] > MAX_STALL:
        failures.append(("the hub stalled %.3f s" % stall[0],))
    if counts["fit"] != GREENTHREADS * ROUNDS or counts["tpool"] != 12:
        failures.append(("missing calls", counts))
    for f in failures[:10]:
        print("eventlet: FAIL %r" % (f,))
    if failures:
        return 1
    print("eventlet: all answers checked")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--child"]:
        sys.exit(child())
    unittest.main()
