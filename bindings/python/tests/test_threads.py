"""8 threads fitting on shared hosts at once; every answer is checked.

ctypes.CDLL releases the GIL during each call, so the fits really run in
parallel in the library (nova-reference K).  The hosts are shared by all
threads (fits only read them); each thread also claims and releases on its
own copy, and one thread claims/releases on a shared host through the
binding's readers-writer lock while others fit on it.

Closing: close() waits for the fits running on the host, and every later
use raises numafit.errors.ClosedError; readers wait for writers and the
other way round.  AtomicClaims: plan() and Host.fit_and_claim() from
several threads never conflict.  Stress: fits, claims, releases,
accessors and close() at once on one host.

When the process is monkey-patched by eventlet (test discovery imports
nova.test, which imports nova.monkey_patch), threading.Thread makes
greenthreads; each test then runs itself again in a fresh interpreter, so
that the threads are real OS threads (checked by their native ids).
"""
import copy
import ctypes
import json
import os
import random
import subprocess
import sys
import threading
import time
import unittest
from unittest import mock

import numafit
from numafit import _ffi

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


def run_threads(targets):
    """Start a thread per callable, join them; the exceptions they raised."""
    failures = []

    def wrap(f):
        def run():
            try:
                f()
            except Exception as e:  # pragma: no cover - reported by the caller
                failures.append(repr(e))
        return run

    ts = [threading.Thread(target=wrap(f)) for f in targets]
    for t in ts:
        t.start()
    for t in ts:
        t.join(60)
        if t.is_alive():
            failures.append("a thread did not finish within 60 s (a deadlock?)")
    return failures


def pinned(host_dict):
    return sorted(c for cell in host_dict["nova_object.data"]["cells"]
                  for c in cell["nova_object.data"]["pinned_cpus"])


class Closing(OSThreads):
    def test_close_waits_for_running_fit(self):
        """close() takes the host's writer lock: it frees the handle only
        after the fit running on it returns.  The C calls are wrapped to
        see the order (and never to touch a freed host)."""
        host = numafit.Host.synthetic(HOSTS[0])
        req = numafit.Request.from_flavor(*FLAVORS[1])
        real_explain, real_free = _ffi.fit_explain, _ffi.host_free
        inside, freed, answers, problems = threading.Event(), threading.Event(), [], []

        def host_free(h):
            freed.set()
            real_free(h)

        def fit_explain(*args):
            inside.set()
            time.sleep(0.3)  # a long fit; close() is called meanwhile
            if freed.is_set():
                problems.append("the host was freed under a running fit")
                raise RuntimeError("not calling numafit_fit_explain on a freed host")
            return real_explain(*args)

        with mock.patch.object(_ffi, "fit_explain", fit_explain), \
                mock.patch.object(_ffi, "host_free", host_free):
            t = threading.Thread(target=lambda: answers.append(numafit.explain(host, req)))
            t.start()
            self.assertTrue(inside.wait(10))
            host.close()
            self.assertTrue(freed.is_set())
            t.join()
        self.assertEqual(problems, [])
        self.assertEqual(len(answers), 1)
        self.assertTrue(answers[0]["fits"])
        with self.assertRaises(numafit.errors.ClosedError):
            numafit.explain(host, req)

    def test_use_after_close_raises(self):
        """Every use of a closed host raises ClosedError (a ValueError),
        from any entry point; close() may be called again."""
        host = numafit.Host.synthetic(HOSTS[0])
        other = numafit.Host.synthetic(HOSTS[0])
        req = numafit.Request.from_flavor(*FLAVORS[0])
        p = numafit.fit(host, req)
        host.close()
        host.close()
        uses = {
            "to_json": host.to_json, "to_dict": host.to_dict, "len": lambda: len(host),
            "cell_ids": lambda: host.cell_ids, "model_size": lambda: host.model_size,
            "distance": lambda: host.distance(0, 1), "eq": lambda: host == other,
            "eq2": lambda: other == host, "copy": lambda: copy.copy(host),
            "pickle": lambda: host.__getstate__(), "claim": lambda: host.claim(p),
            "release": lambda: host.release(p), "fit": lambda: numafit.fit(host, req),
            "try_fit": lambda: numafit.try_fit(host, req),
            "explain": lambda: numafit.explain(host, req),
            "fit_and_claim": lambda: host.fit_and_claim(req),
            "plan": lambda: numafit.plan(host, req),
            "domain_xml": lambda: numafit.domain_xml(host, req, p),
        }
        for name, use in uses.items():
            with self.subTest(use=name):
                with self.assertRaises(numafit.errors.ClosedError) as cm:
                    use()
                self.assertIsInstance(cm.exception, ValueError)
                self.assertIn("closed", str(cm.exception))
        self.assertEqual(repr(host), "<numafit.Host closed>")
        # the other objects are still usable
        self.assertEqual(len(other), 2)
        self.assertEqual(len(p), 1)

    def test_closed_request_and_placement(self):
        host = numafit.Host.synthetic(HOSTS[0])
        req = numafit.Request.from_flavor(*FLAVORS[0])
        p = numafit.fit(host, req)
        self.assertEqual(len(p.host_cells), 1)  # cached in Python: still refused after close
        p.close()
        self.assertEqual(repr(p), "<numafit.Placement closed>")
        for use in (lambda: host.claim(p), lambda: p.to_json(), lambda: len(p),
                    lambda: p.cells, lambda: p.pinning, lambda: copy.copy(p),
                    lambda: p.set_uuid("5b9c6c36-8ef1-4bd8-9a5c-1a2f07e0a6a0")):
            with self.assertRaises(numafit.errors.ClosedError):
                use()
        req.close()
        for use in (lambda: numafit.fit(host, req), lambda: len(req), lambda: req.vcpus,
                    lambda: req.to_json(), lambda: copy.copy(req)):
            with self.assertRaises(numafit.errors.ClosedError):
                use()
        opt = numafit.Options()
        opt.close()
        with self.assertRaises(numafit.errors.ClosedError):
            numafit.fit(host, numafit.Request.from_flavor(*FLAVORS[0]), opt)
        self.assertEqual(len(host), 2)

    def test_accessors_take_the_lock(self):
        """Readers wait while a writer (a claim, close()) holds the host;
        claims wait for readers."""
        host = numafit.Host.synthetic(HOSTS[0])
        other = numafit.Host.synthetic(HOSTS[0])
        req = numafit.Request.from_flavor(*FLAVORS[0])
        p = numafit.fit(host, req)
        readers = {
            "len": lambda: len(host), "cell_ids": lambda: host.cell_ids,
            "model_size": lambda: host.model_size, "distance": lambda: host.distance(0, 1),
            "eq": lambda: host == other, "to_json": host.to_json,
            "copy": lambda: copy.copy(host), "repr": lambda: repr(host),
            "fit": lambda: numafit.fit(host, req),
            "explain": lambda: numafit.explain(host, req),
            "domain_xml": lambda: numafit.domain_xml(host, req, p),
        }
        writers = {"claim": lambda: (host.claim(p), host.release(p)),
                   "fit_and_claim": lambda: host.release(host.fit_and_claim(req))}
        for kind, calls, held in (("reader", readers, host._lock.write),
                                  ("writer", writers, host._lock.read)):
            for name, call in calls.items():
                with self.subTest(kind=kind, call=name):
                    done = threading.Event()

                    def run(call=call, done=done):
                        call()
                        done.set()

                    with held():
                        t = threading.Thread(target=run)
                        t.start()
                        self.assertFalse(done.wait(0.1), "%s did not wait for the lock" % name)
                    t.join(10)
                    self.assertTrue(done.is_set(), "%s failed or hung" % name)
        self.assertEqual(pinned(host.to_dict()), [])


class AtomicClaims(OSThreads):
    def test_plan_from_threads(self):
        """numafit.plan() from 8 threads on one host: no CPUPinningInvalid
        (fit and claim are one step under the host's writer lock), every
        pCPU pinned once, the host full at the end."""
        req = numafit.Request.from_flavor(2, 512, {"hw:cpu_policy": "dedicated"})
        for _ in range(3):
            host = numafit.Host.synthetic(HOSTS[0])  # 32 pCPUs: 16 instances
            plans = []
            start = threading.Barrier(THREADS)

            def planner():
                start.wait()
                plans.append(numafit.plan(host, req))

            self.assertEqual(run_threads([planner] * THREADS)[:5], [])
            placements = [p for ps in plans for p in ps]
            self.assertEqual(len(placements), 16)
            pins = [c for p in placements for c in p.pinning.values()]
            self.assertEqual(sorted(pins), list(range(32)))
            self.assertEqual(pinned(host.to_dict()), list(range(32)))
            self.assertIsNone(host.fit_and_claim(req))

    def test_fit_and_claim_from_threads(self):
        host = numafit.Host.synthetic(HOSTS[1])
        before = host.to_json()
        req = numafit.Request.from_flavor(*FLAVORS[1])
        start = threading.Barrier(THREADS)

        def worker():
            start.wait()
            for _ in range(50):
                p = host.fit_and_claim(req, strategy="pack")
                if p is not None:
                    host.release(p)
            res = host.try_fit_and_claim(numafit.Request.from_flavor(*FLAVORS[7]))
            assert res.placement is None and res.code_name == "NOFIT_CPU", res

        self.assertEqual(run_threads([worker] * THREADS)[:5], [])
        self.assertEqual(host.to_json(), before)


class Stress(OSThreads):
    """Several OS threads fit, claim, release, read and close one host at
    once.  The only exception allowed is ClosedError once the host is
    closed, and the host's final usage is exactly the claims minus the
    releases (read at close(), under its writer lock, by a wrapped
    numafit_host_free)."""
    WORKERS = 6
    OPS = 1500  # about 0.7 s on an idle machine

    def stress(self, close_after):
        host = numafit.Host.synthetic(HOSTS[1])
        other = copy.copy(host)
        initial = host.to_json()
        reqs = [numafit.Request.from_flavor(*f) for f in FLAVORS]
        opts = numafit.Options(strategy="pack")
        kept, failures, final = [], [], []
        real_free = _ffi.host_free
        start = threading.Barrier(self.WORKERS + 1)

        address = ctypes.cast(host.handle, ctypes.c_void_p).value

        def host_free(h):
            if ctypes.cast(h, ctypes.c_void_p).value == address and not final:
                final.append(_ffi.call_str(_ffi.host_to_json, h, 0))
            real_free(h)

        def worker(k):
            rng = random.Random(k)
            mine = []
            start.wait()
            try:
                for i in range(self.OPS):
                    op = rng.randrange(10)
                    r = reqs[rng.randrange(len(reqs))]
                    if op == 0:
                        numafit.fit(host, r, opts)
                    elif op == 1:
                        numafit.try_fit(host, r, strategy=rng.choice(("pack", "spread")))
                    elif op == 2:
                        numafit.explain(host, r)
                    elif op in (3, 4):
                        p = host.fit_and_claim(r, opts)
                        if p is not None:
                            mine.append((p, r))
                    elif op == 5 and mine:
                        n = rng.randrange(len(mine))
                        host.release(mine[n][0])
                        del mine[n]  # not before: release() may raise ClosedError
                    elif op == 6:
                        (len(host), host.cell_ids, host.model_size, host.distance(0, 1),
                         host == other, repr(host))
                    elif op == 7:
                        numafit.Host.from_json(host.to_json()).close()
                    elif op == 8:
                        copy.copy(host).close()
                    elif op == 9 and mine:
                        numafit.domain_xml(host, mine[-1][1], mine[-1][0])
            except numafit.errors.ClosedError:
                pass
            except Exception as e:
                failures.append("thread %d: %r" % (k, e))
            kept.extend(p for p, _ in mine)

        def closer():
            start.wait()
            time.sleep(close_after)
            host.close()

        with mock.patch.object(_ffi, "host_free", host_free):
            targets = [lambda k=k: worker(k) for k in range(self.WORKERS)]
            if close_after is not None:
                targets.append(closer)
            else:
                targets.append(start.wait)
            failures += run_threads(targets)
            if close_after is None:
                host.close()
        self.assertEqual(failures[:5], [])
        self.assertEqual(len(final), 1)
        expected = numafit.Host.from_json(initial)
        for p in kept:
            expected.claim(p)
        self.assertEqual(json.loads(final[0]), expected.to_dict())
        pins = [c for p in kept for c in p.pinning.values()]
        self.assertEqual(len(pins), len(set(pins)))

    def test_stress_with_close(self):
        for close_after in (0.0, 0.05, 0.3):
            with self.subTest(close_after=close_after):
                self.stress(close_after)

    def test_stress_without_close(self):
        self.stress(None)


if __name__ == "__main__":
    unittest.main()
