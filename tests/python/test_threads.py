"""8 threads fitting on shared hosts at once; every answer is checked.

ctypes.CDLL releases the GIL during each call, so the fits really run in
parallel in the library (NOVA-NOTES K).  The hosts are shared by all
threads (fits only read them); each thread also claims and releases on its
own copy, and one thread claims/releases on a shared host through the
binding's readers-writer lock while others fit on it.

When the process is monkey-patched by eventlet (test discovery imports
nova.test, which imports nova.monkey_patch), threading.Thread makes
greenthreads; each test then runs itself again in a fresh interpreter, so
that the threads are real OS threads (checked by their native ids).
"""
import copy
import json
import os
import random
import subprocess
import sys
import threading
import unittest

import numafit

THREADS = 8
ROUNDS = 500

HOSTS = ["cells:2 cores:8 threads:2 mem:64G pages:2M=4096",
         "cells:4 cores:4 threads:2 mem:32G pages:2M=2048,1G=4",
         "cells:1 cores:16 threads:1 mem:16G",
         "cells:8 cores:2 threads:2 mem:8G pages:2M=512"]
FLAVORS = [
    (2, 1024, {"hw:cpu_policy": "dedicated"}),
    (4, 2048, {"hw:cpu_policy": "dedicated", "hw:cpu_thread_policy": "isolate"}),
    (4, 4096, {"hw:numa_nodes": "2", "hw:mem_page_size": "large"}),
    (8, 8192, {"hw:cpu_policy": "dedicated", "hw:numa_nodes": "4",
               "hw:emulator_threads_policy": "isolate"}),
    (3, 1024, {"hw:cpu_policy": "mixed", "hw:cpu_dedicated_mask": "1-2"}),
    (16, 1024, {"hw:cpu_policy": "dedicated", "hw:cpu_thread_policy": "require"}),
    (1, 512, {"hw:mem_page_size": "1GB"}),
    (64, 1024, {"hw:cpu_policy": "dedicated"}),
]


def monkey_patched():
    patcher = sys.modules.get("eventlet.patcher")
    return bool(patcher and patcher.is_monkey_patched("thread"))


class OSThreads(unittest.TestCase):
    """Runs each test in a fresh interpreter when this one is monkey-patched."""

    def run(self, result=None):
        if monkey_patched():
            setattr(self, self._testMethodName, self._in_fresh_interpreter)
        return super().run(result)

    def _in_fresh_interpreter(self):
        here = os.path.dirname(os.path.abspath(__file__))
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [here] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
        r = subprocess.run([sys.executable, "-m", "unittest", self.id()], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=600)
        self.assertEqual(r.returncode, 0, "in a fresh interpreter:\n" + r.stdout)


def answer(host, req, strategy):
    p = numafit.fit(host, req, strategy=strategy)
    return None if p is None else p.to_json()


class Threads(OSThreads):
    def test_parallel_fits(self):
        hosts = [numafit.Host.synthetic(s) for s in HOSTS]
        # some usage, so that the answers differ between hosts
        for h in hosts[:2]:
            p = numafit.fit(h, numafit.Request.from_flavor(*FLAVORS[0]))
            h.claim(p)
        reqs = [numafit.Request.from_flavor(*f) for f in FLAVORS]
        cases = [(hi, ri, st) for hi in range(len(hosts)) for ri in range(len(reqs))
                 for st in ("spread", "pack")]
        expected = {c: answer(hosts[c[0]], reqs[c[1]], c[2]) for c in cases}
        self.assertTrue(any(v is None for v in expected.values()))
        self.assertTrue(any(v is not None for v in expected.values()))
        failures, counts, native = [], [0] * THREADS, set()
        start = threading.Barrier(THREADS)

        def worker(k):
            native.add(threading.get_native_id())
            rng = random.Random(k)
            own = copy.copy(hosts[k % len(hosts)])
            own_before = own.to_json()
            start.wait()
            try:
                for _ in range(ROUNDS):
                    c = rng.choice(cases)
                    got = answer(hosts[c[0]], reqs[c[1]], c[2])
                    if got != expected[c]:
                        failures.append((k, c, got, expected[c]))
                    counts[k] += 1
                    # claim and release on this thread's own copy
                    r = reqs[rng.randrange(len(reqs))]
                    p = numafit.fit(own, r)
                    if p is not None:
                        own.claim(p)
                        own.release(p)
                if own.to_json() != own_before:
                    failures.append((k, "own host not restored"))
            except Exception as e:  # pragma: no cover - reported below
                failures.append((k, repr(e)))

        threads = [threading.Thread(target=worker, args=(k,)) for k in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual([], failures[:5])
        self.assertEqual(sum(counts), THREADS * ROUNDS)
        self.assertEqual(len(native), THREADS, "not OS threads")

    def test_shared_claims_and_fits(self):
        """One Host claimed and released by 4 threads while 4 others fit on
        it: the readers-writer lock keeps claims whole; at the end the host
        is back to where it started."""
        host = numafit.Host.synthetic(HOSTS[0])
        before = host.to_json()
        req = numafit.Request.from_flavor(2, 512, {"hw:cpu_policy": "dedicated"})
        errors = []

        def claimer():
            try:
                for _ in range(100):
                    p = numafit.fit(host, req)
                    if p is None:
                        continue
                    try:
                        host.claim(p)
                    except numafit.errors.CPUPinningInvalid:
                        continue  # another thread claimed those CPUs first
                    host.release(p)
            except Exception as e:
                errors.append(repr(e))

        def fitter():
            try:
                for _ in range(200):
                    p = numafit.fit(host, req)
                    if p is not None:
                        pins = list(p.pinning.values())
                        if len(set(pins)) != len(pins):
                            errors.append("duplicate pCPUs %s" % pins)
            except Exception as e:
                errors.append(repr(e))

        ts = [threading.Thread(target=claimer) for _ in range(4)] + \
            [threading.Thread(target=fitter) for _ in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        self.assertEqual([], errors[:5])
        self.assertEqual(json.loads(host.to_json()), json.loads(before))


if __name__ == "__main__":
    unittest.main()
