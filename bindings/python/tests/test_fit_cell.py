"""numafit.nova._numa_fit_instance_cell (numafit_fit_cell in the library)
against nova's own _numa_fit_instance_cell with cpuset_reserved 0 to 3, on
random host cells (with and without hyper-threading, legacy and split
pools, partly pinned) and dedicated guest cells of every thread policy.

Either both give the same cell (same pinning, same emulator pCPUs), or
nova's answer is one its own claim (numa_usage_from_instance_numa) refuses
- nova takes emulator pCPUs from cores an isolate claim cannot pin - and
then the adapter gives no cell or one nova's claim accepts
(doc/nova-differences.md). The adapter must never fall back to nova.
Skipped when nova cannot be imported.
"""
import copy
import logging
import random
import unittest

try:
    from nova import exception, objects
    from nova.objects import fields
    from nova.virt import hardware

    objects.register_all()
    HAVE_NOVA = True
except ImportError:
    HAVE_NOVA = False

import numafit.nova as nn

CASES = 1500


def random_case(rnd):
    ncores, tpc = rnd.choice([2, 4, 6, 8]), rnd.choice([1, 2])
    cpus = list(range(ncores * tpc))
    sib = [set(range(c * tpc, c * tpc + tpc)) for c in range(ncores)]
    pinned = {c for c in cpus if rnd.random() < 0.25}
    if rnd.random() < 0.5:  # legacy: every CPU in both pools
        cpuset = pcpuset = set(cpus)
    else:
        cpuset = set(cpus[:tpc])
        pcpuset = set(cpus) - cpuset
        pinned &= pcpuset
    if tpc > 1 and rnd.random() < 0.5:  # whole cores pinned, as isolate claims
        pinned = {c for s in sib if s & pinned for c in s} & pcpuset
    host = objects.NUMACell(
        id=0, cpuset=cpuset, pcpuset=pcpuset, memory=8192, cpu_usage=0, memory_usage=0,
        pinned_cpus=pinned, siblings=sib, socket=0,
        mempages=[objects.NUMAPagesTopology(size_kb=4, total=8192 * 256, used=0, reserved=0)])
    cell = objects.InstanceNUMACell(
        id=0, cpuset=set(), pcpuset=set(range(rnd.randint(1, 4))), memory=1024,
        cpu_policy=fields.CPUAllocationPolicy.DEDICATED, pagesize=None,
        cpu_thread_policy=rnd.choice([None, "prefer", "isolate", "require"]))
    return host, cell, rnd.choice([0, 1, 2, 3])


def answer(c):
    if c is None:
        return None
    return dict(c.cpu_pinning or {}), sorted(c.cpuset_reserved or [])


def claimable(host, cell):
    """Does nova's own claim accept this cell on this host cell?"""
    topo = objects.NUMATopology(cells=[copy.deepcopy(host)])
    inst = objects.InstanceNUMATopology(cells=[cell])
    try:
        hardware.numa_usage_from_instance_numa(topo, inst)
        return True
    except exception.CPUPinningInvalid:
        return False


@unittest.skipUnless(HAVE_NOVA, "nova is not importable")
class FitCellAgainstNova(unittest.TestCase):
    def test_emulator_pcpus(self):
        nn.unpatch()
        logging.getLogger("nova.virt.hardware").setLevel(logging.ERROR)
        nn.fallbacks.clear()
        rnd = random.Random(20261130)
        same = fixed = fits = several = 0
        for n in range(CASES):
            host, cell, reserved = random_case(rnd)
            want = hardware._numa_fit_instance_cell(copy.deepcopy(host), copy.deepcopy(cell),
                                                     None, reserved)
            got = nn._numa_fit_instance_cell(copy.deepcopy(host), copy.deepcopy(cell), None,
                                             reserved)
            if answer(want) == answer(got):
                same += 1
                fits += got is not None
                several += got is not None and len(got.cpuset_reserved or ()) > 1
                continue
            # a nova defect: its answer is refused by its own claim
            self.assertIsNotNone(want, "case %d: numafit fits where nova does not" % n)
            self.assertFalse(claimable(host, want),
                             "case %d: numafit %s, nova %s (claimable)"
                             % (n, answer(got), answer(want)))
            if got is not None:
                self.assertTrue(claimable(host, got), "case %d: %s" % (n, answer(got)))
            fixed += 1
        self.assertEqual(dict(nn.fallbacks), {})
        self.assertGreater(fits, CASES // 4)
        self.assertGreater(several, 50)  # cells with 2 or 3 emulator pCPUs
        self.assertLess(fixed, CASES // 20)
        print("fit_cell: %d same (%d fit, %d with several emulator pCPUs), %d nova answers "
              "its own claim refuses" % (same, fits, several, fixed))


if __name__ == "__main__":
    unittest.main()
