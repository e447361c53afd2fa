#!/usr/bin/python3
"""Differential test of libnumafit's fit and claim against REAL nova.

Run by tests/nova-fit-diff.test:

    /usr/bin/python3 tests/nova_fit_diff.py --library PATH/libnumafit.so.0 \
        --numafit PATH/numafit [--seed N] [--count N] [--dump FILE]

Exit 0 when numafit agrees with the reference everywhere, 1 on failures,
77 when nova cannot be imported.  The last line is "N passed, N failed".

What is compared (nova-reference A, B, E):

* Random scenarios (deterministic seed).  Hosts are built with nova's own
  objects (NUMATopology/NUMACell/NUMAPagesTopology/NetworkMetadata), 1-8
  cells, 1/2/4 threads per core, legacy (cpuset == pcpuset) and
  cpu_dedicated_set/cpu_shared_set (disjoint) modes, existing usage,
  4K/2M/1G pages with reserved pages, network metadata on some cells.
  Requests are built by nova's own hardware.numa_get_constraints() from
  random flavors and images; flavors nova refuses are skipped (the request
  builder has its own differential test).
* The REFERENCE answer is nova's *intended* semantics (nova-reference A):
  nova's own three host-cell sorts, itertools.permutations, nova's own
  per-cell function hardware._numa_fit_instance_cell() called on an
  UNMODIFIED deep copy of the requested cell (no fit cache keyed on a
  mutated id, no request mutation), then nova's network metadata check.
  Plain nova hardware.numa_fit_instance_to_host() is also run and its
  differences from the reference are counted as nova defects (reported,
  never a failure).
* Profile "zed" = the installed Debian nova 26.2.2, compared with numafit's
  profile zed (numafit_options_set_profile(o, 1), NUMAFIT_REQUEST_ZED).
  Profile "latest" = the same nova with the upstream master changes of
  _numa_fit_instance_cell, _pack_instance_onto_cores and
  numa_usage_from_instance_numa applied at run time (see LatestRules),
  compared with numafit's default profile.
* A fit agrees when both say "no fit", or both fit with the same host cell,
  memory, page size, cpuset and pcpuset per guest cell, and the same
  PHYSICAL CORE (sibling set) for every vCPU and for the emulator pCPU;
  within a core numafit must use the lowest-numbered free threads (nova
  picks by Python set order, which is no specification).
* Claims: nova's numa_usage_from_instance_numa() on the reference placement
  vs numafit_host_claim() on numafit's placement: cpu_usage, memory_usage,
  mempages, pinned CPUs counted per sibling set; then numafit_host_release()
  must give back the original host exactly.  Sequences fill a host with the
  same flavor until it no longer fits, comparing at every step (nova's host
  is re-synchronised from numafit's after every compared claim, so that the
  within-core thread choice cannot make the two drift apart).
* Where nova's own rules are self-contradictory the expectation is stated
  explicitly: when the reference placement is impossible (a pCPU used
  twice; seen with overlapping sibling groups, nova-reference G) numafit may
  refuse or place validly but must not copy it; when nova's claim refuses
  nova's own fit (CPUPinningInvalid: isolate + emulator threads isolate
  takes the emulator pCPU from a partly pinned core) numafit's claim must
  refuse too and leave the host unchanged.
* With --numafit, the first --cli-count scenarios also go through
  `numafit fit --batch` (the repro lines must reproduce the library).
* --selftest / --selftest-bug replace the library by a Python stand-in
  made of the reference (correct / with a thread-choice bug), to check that
  this script accepts a correct implementation and catches a wrong one.

--dump FILE writes every scenario as a `numafit fit --batch` input line
{"op":"fit","host":...,"flavor":...,"image":...,"limits":...} (the 30 %
of scenarios run with the pack strategy are dumped too; the batch format
has no strategy key, the printed repro commands add `--strategy pack`).
"""
import argparse
import collections
import copy
import inspect
import itertools
import json
import logging
import os
import random
import re
import sys
import textwrap
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from numafit_loader import import_numafit  # noqa: E402

try:
    import nova.conf
    from nova import exception as nova_exc
    from nova import objects
    from nova.objects import fields as nova_fields
    from nova.virt import hardware
except Exception as e:  # pragma: no cover - depends on the machine
    print("nova not importable (%s: %s): skip" % (type(e).__name__, e))
    sys.exit(77)

objects.register_all()
CONF = nova.conf.CONF
# nova logs warnings (e.g. the bug #1889633 isolate message) and infos on
# every pinning; keep the test output readable.
logging.getLogger("nova").setLevel(logging.CRITICAL)
logging.getLogger("oslo").setLevel(logging.CRITICAL)

PROFILE_LATEST, PROFILE_ZED = 0, 1
DEDICATED = nova_fields.CPUAllocationPolicy.DEDICATED
MIXED = nova_fields.CPUAllocationPolicy.MIXED
SHARED = nova_fields.CPUAllocationPolicy.SHARED


# --------------------------------------------------------------------------
# The "latest" rules: upstream master's changes applied to Zed's functions.
# --------------------------------------------------------------------------
class LatestRules:
    """Zed's functions with the upstream master (2026) rule changes.

    Each function is Zed's own source (inspect.getsource) with the few lines
    master changed replaced by master's logic; every replacement must match
    exactly once, so a different nova fails loudly instead of silently
    testing something else.  Compare with
    `git -C /work/.mirror/openstack+nova/repo show HEAD:nova/virt/hardware.py`.
    """

    # _numa_fit_instance_cell
    FIT_CELL = [
        # master f14c16af82 (2024.2, bug #1811886): a pinned guest without a
        # page size is checked against FREE small pages (use_free=True);
        # Zed always allows overcommit here (use_free=False).
        ("            if not host_cell.can_fit_pagesize(pagesize,\n"
         "                                              instance_cell.memory * units.Ki,\n"
         "                                              use_free=False):\n",
         "            if not host_cell.can_fit_pagesize(pagesize,\n"
         "                                              instance_cell.memory * units.Ki,\n"
         "                                              use_free=instance_cell.cpu_policy in (\n"
         "                    fields.CPUAllocationPolicy.DEDICATED,\n"
         "                    fields.CPUAllocationPolicy.MIXED)):\n"),
        # master f14c16af82: without mempages a pinned guest is checked
        # against avail_memory (no overcommit), others against memory.
        ("            if instance_cell.memory > host_cell.memory:\n",
         "            if instance_cell.memory > (\n"
         "                    host_cell.avail_memory if instance_cell.cpu_policy in (\n"
         "                        fields.CPUAllocationPolicy.DEDICATED,\n"
         "                        fields.CPUAllocationPolicy.MIXED)\n"
         "                    else host_cell.memory):\n"),
        # master f14c16af82 removed the separate `memory > avail_memory`
        # check of pinned guests (it also hit hugepage guests).
        ("        if instance_cell.memory > host_cell.avail_memory:\n",
         "        if False:  # removed upstream by f14c16af82\n"),
    ]
    # _pack_instance_onto_cores
    PACK = [
        # master cffe3971ce (2023.2, bug #1994526): an empty pinning (a mixed
        # guest cell with no dedicated vCPU) is a success: `pinning is None`.
        # (The isolate branch and the prefer fallback keep `not pinning`.)
        ("            if not pinning or (num_cpu_reserved and not cpuset_reserved):\n"
         "                continue\n",
         "            if pinning is None or (num_cpu_reserved and not cpuset_reserved):\n"
         "                continue\n"),
        ("    if not pinning or (num_cpu_reserved and not cpuset_reserved):\n"
         "        return\n",
         "    if pinning is None or (num_cpu_reserved and not cpuset_reserved):\n"
         "        return\n"),
    ]
    # numa_usage_from_instance_numa
    USAGE = [
        # master cffe3971ce: the usage update accepts an empty/None pinning.
        ("            pinned_cpus = set(instance_cell.cpu_pinning.values())\n",
         "            pinned_cpus = set((instance_cell.cpu_pinning or {}).values())\n"),
    ]

    def __init__(self):
        self.ns = dict(hardware.__dict__)
        self.fns = {}
        for name, repl in (("_pack_instance_onto_cores", self.PACK),
                           ("_numa_fit_instance_cell", self.FIT_CELL),
                           ("numa_usage_from_instance_numa", self.USAGE)):
            src = textwrap.dedent(inspect.getsource(getattr(hardware, name)))
            for old, new in repl:
                if src.count(old) != 1:
                    raise RuntimeError("LatestRules: %s: %r found %d times (nova changed?)"
                                       % (name, old[:60], src.count(old)))
                src = src.replace(old, new)
            exec(compile(src, "<latest %s>" % name, "exec"), self.ns)
            self.fns[name] = self.ns[name]

    def patch(self):
        """Context manager: nova's module runs with the latest rules."""
        rules = self

        class _Patch:  # reentrant
            depth = 0

            def __enter__(self):
                if self.depth == 0:
                    self.saved = {n: getattr(hardware, n) for n in rules.fns}
                    for n, f in rules.fns.items():
                        setattr(hardware, n, f)
                self.depth += 1

            def __exit__(self, *a):
                self.depth -= 1
                if self.depth == 0:
                    for n, f in self.saved.items():
                        setattr(hardware, n, f)
        return _Patch()


class NoPatch:
    def __enter__(self):
        pass

    def __exit__(self, *a):
        pass


# --------------------------------------------------------------------------
# Reference fit: nova's intended semantics, nova's per-cell function.
# --------------------------------------------------------------------------
def sorted_host_cells(host, req, pci_requests=None, pci_stats=None):
    """nova's numa_fit_instance_to_host host-cell ordering (the three
    sorts, copied, and the fourth by PCI devices per cell when pci_stats is
    given).  Sorting only with more host cells than guest cells."""
    host_cells = host.cells
    if len(host) > len(req):
        pack = CONF.compute.packing_host_numa_cells_allocation_strategy
        host_cells = sorted(host_cells, reverse=not pack,
                            key=lambda cell: cell.avail_memory)
        if req.cells[0].cpu_policy in (None, SHARED):
            host_cells = sorted(host_cells, reverse=pack,
                                key=lambda cell: cell.cpu_usage)
        else:
            host_cells = sorted(host_cells, reverse=not pack,
                                key=lambda cell: len(cell.free_pcpus))
        if pci_stats is not None:
            # devices per cell, over every pool; cells with devices first
            # when devices are requested, last otherwise
            per_cell = collections.Counter()
            for pool in pci_stats.pools:
                per_cell[pool["numa_node"]] += pool["count"]
            host_cells = sorted(host_cells, reverse=bool(pci_requests),
                                key=lambda cell: per_cell.get(cell.id, 0))
    return host_cells


def reference_fit(host, req, limits, pci_requests=None, pci_stats=None):
    """First permutation whose every guest cell i fits its host cell when
    checked by nova's own _numa_fit_instance_cell on an unmodified copy of
    guest cell i, and that passes nova's network check.  Returns an
    InstanceNUMATopology or None.  Uses whatever hardware._numa_fit_instance_cell
    currently is (Zed, or latest inside LatestRules.patch())."""
    if not (host and req) or len(host) < len(req):
        return None
    etp = req.emulator_threads_policy if "emulator_threads_policy" in req else None
    network_metadata = None
    if limits and "network_metadata" in limits:
        network_metadata = limits.network_metadata
    memo = {}  # (host cell id, guest index) -> fitted cell or None: a pure function

    def cell_fit(hc, i):
        key = (hc.id, i)
        if key not in memo:
            reserved = 1 if (i == 0 and req.emulator_threads_isolated) else 0
            try:
                got = hardware._numa_fit_instance_cell(
                    hc, copy.deepcopy(req.cells[i]), limits, reserved)
            except nova_exc.MemoryPageSizeNotSupported:
                got = None
            memo[key] = got
        return memo[key]

    cells = sorted_host_cells(host, req, pci_requests, pci_stats)
    pci_memo = {}  # set of host cell ids -> support_requests (a set function)
    for perm in itertools.permutations(cells, len(req)):
        chosen = []
        for i, hc in enumerate(perm):
            got = cell_fit(hc, i)
            if got is None:
                break
            chosen.append(got)
        if len(chosen) != len(perm):
            continue
        if pci_requests and pci_stats is not None:
            key = frozenset(c.id for c in perm)
            if key not in pci_memo:
                probe = [objects.InstanceNUMACell(id=c.id, cpuset=set(), pcpuset=set(),
                                                  memory=0) for c in perm]
                pci_memo[key] = pci_stats.support_requests(pci_requests, probe)
            if not pci_memo[key]:
                continue
        if network_metadata and not hardware._numa_cells_support_network_metadata(
                host, list(perm), network_metadata):
            continue
        return objects.InstanceNUMATopology(
            cells=[copy.deepcopy(c) for c in chosen], emulator_threads_policy=etp)
    return None


def nova_fit(host, req, limits):
    """Plain nova (with its fit cache and request mutation)."""
    try:
        return hardware.numa_fit_instance_to_host(
            copy.deepcopy(host), copy.deepcopy(req), limits), None
    except Exception as e:
        return None, "%s: %s" % (type(e).__name__, e)


# --------------------------------------------------------------------------
# Canonical forms
# --------------------------------------------------------------------------
def canon_nova_topology(topo):
    if topo is None:
        return None
    out = []
    for c in topo.cells:
        pin = c.cpu_pinning if "cpu_pinning_raw" in c else None
        res = c.cpuset_reserved if "cpuset_reserved" in c else None
        out.append({
            "id": c.id, "cpuset": sorted(c.cpuset), "pcpuset": sorted(c.pcpuset),
            "memory": c.memory,
            "pagesize": (c.pagesize if "pagesize" in c else None) or None,
            "cpu_pinning": {int(k): v for k, v in (pin or {}).items()},
            "cpuset_reserved": sorted(res) if res else None})
    return out


def canon_numafit_placement(plist):
    out = []
    for c in plist:
        res = c.get("cpuset_reserved")
        out.append({
            "id": c.get("id"), "cpuset": sorted(c.get("cpuset") or []),
            "pcpuset": sorted(c.get("pcpuset") or []), "memory": c.get("memory"),
            "pagesize": c.get("pagesize") or None,
            "cpu_pinning": {int(k): v for k, v in (c.get("cpu_pinning") or {}).items()},
            "cpuset_reserved": sorted(res) if res else None})
    return out


def core_of(hcell, cpu):
    for sib in hcell.siblings:
        if cpu in sib:
            return frozenset(sib)
    return frozenset([cpu])


def placement_problems(host, pl):
    """What makes a placement impossible: an unknown or reused host cell, a
    pCPU used twice (vCPU or emulator), outside the cell's pcpuset, or
    already pinned."""
    if pl is None:
        return []
    cells = {c.id: c for c in host.cells}
    probs = []
    ids = [g["id"] for g in pl]
    if len(set(ids)) != len(ids):
        probs.append("host cells used twice: %s" % ids)
    for i, g in enumerate(pl):
        if g["id"] not in cells:
            probs.append("guest cell %d: unknown host cell %r" % (i, g["id"]))
            continue
        hc = cells[g["id"]]
        free = set(hc.pcpuset) - set(hc.pinned_cpus)
        used = list(g["cpu_pinning"].values()) + (g["cpuset_reserved"] or [])
        if len(set(used)) != len(used):
            probs.append("guest cell %d: duplicate pCPUs %s" % (i, sorted(used)))
        if not set(used) <= free:
            probs.append("guest cell %d: pCPUs %s not free in host cell %d"
                         % (i, sorted(set(used) - free), hc.id))
        if set(g["cpu_pinning"]) != set(g["pcpuset"]):
            probs.append("guest cell %d: pinned vCPUs %s, pcpuset %s"
                         % (i, sorted(g["cpu_pinning"]), g["pcpuset"]))
    return probs


def overlapping_siblings(host):
    for c in host.cells:
        seen = set()
        for sib in c.siblings:
            if seen & sib:
                return True
            seen |= sib
    return False


def compare_fit(host, ref, got, thread_order=True, notes=None):
    """ref, got: canonical lists (or None).  Returns a list of problems.
    thread_order: also require the lowest-numbered free threads within a
    core (numafit's rule; nova itself follows Python set order)."""
    if ref is None and got is None:
        return []
    if ref is None:
        return ["numafit fits, reference does not"]
    if got is None:
        return ["reference fits, numafit does not"]
    if len(ref) != len(got):
        return ["cell count %d != %d" % (len(got), len(ref))]
    cells = {c.id: c for c in host.cells}
    probs = placement_problems(host, got)
    for i, (r, g) in enumerate(zip(ref, got)):
        for k in ("id", "memory", "pagesize", "cpuset", "pcpuset"):
            if r[k] != g[k]:
                probs.append("guest cell %d: %s %r != nova %r" % (i, k, g[k], r[k]))
        if r["id"] != g["id"] or g["id"] not in cells:
            continue
        hc = cells[g["id"]]
        free = set(hc.pcpuset) - set(hc.pinned_cpus)
        if set(r["cpu_pinning"]) != set(g["cpu_pinning"]):
            probs.append("guest cell %d: pinned vCPUs %s != nova %s"
                         % (i, sorted(g["cpu_pinning"]), sorted(r["cpu_pinning"])))
            continue
        for v in sorted(r["cpu_pinning"]):
            rc, gc = core_of(hc, r["cpu_pinning"][v]), core_of(hc, g["cpu_pinning"][v])
            if rc != gc:
                probs.append("guest cell %d: vCPU %d on core %s (pCPU %d), nova core %s"
                             % (i, v, sorted(gc), g["cpu_pinning"][v], sorted(rc)))
        rr, gr = r["cpuset_reserved"] or [], g["cpuset_reserved"] or []
        if len(rr) != len(gr):
            probs.append("guest cell %d: cpuset_reserved %s, nova %s" % (i, gr, rr))
        elif sorted(map(sorted, map(lambda c: core_of(hc, c), gr))) != \
                sorted(map(sorted, map(lambda c: core_of(hc, c), rr))):
            probs.append("guest cell %d: emulator pCPU %s on core %s, nova %s on %s"
                         % (i, gr, [sorted(core_of(hc, c)) for c in gr], rr,
                            [sorted(core_of(hc, c)) for c in rr]))
        if not thread_order:
            continue
        # within a core: the lowest-numbered free threads, vCPUs (ascending)
        # first, then the emulator pCPU
        bycore = collections.defaultdict(list)
        for v in sorted(g["cpu_pinning"]):
            bycore[core_of(hc, g["cpu_pinning"][v])].append(g["cpu_pinning"][v])
        for c in gr:
            bycore[core_of(hc, c)].append(c)
        for core, threads in bycore.items():
            # (with overlapping sibling groups a thread may count for two
            # cores: leave out those the placement took for another core)
            elsewhere = set(t for c2, ts in bycore.items() if c2 != core for t in ts)
            want = sorted((core & free) - elsewhere)[:len(threads)]
            if sorted(threads) != want:
                probs.append("guest cell %d: core %s threads %s used, expected the lowest "
                             "free ones %s" % (i, sorted(core), sorted(threads), want))
            elif threads != want and notes is not None:
                # same threads, another vCPU order within the core: not a
                # requirement, reported as a note
                notes.append("guest cell %d: core %s threads %s in vCPU order (then "
                             "emulator), lowest-first would be %s"
                             % (i, sorted(core), threads, want))
    return probs


def compare_hosts(ref_host, got_host, what):
    """ref_host: nova's NUMATopology after its claim; got_host: numafit's,
    loaded as NUMATopology.  Pinned CPUs compared per sibling set."""
    probs = []
    rc = {c.id: c for c in ref_host.cells}
    gc = {c.id: c for c in got_host.cells}
    if sorted(rc) != sorted(gc):
        return ["%s: cell ids %s != nova %s" % (what, sorted(gc), sorted(rc))]
    for cid in sorted(rc):
        r, g = rc[cid], gc[cid]
        for k in ("cpu_usage", "memory_usage", "memory"):
            if getattr(r, k) != getattr(g, k):
                probs.append("%s: cell %d %s %r != nova %r"
                             % (what, cid, k, getattr(g, k), getattr(r, k)))
        for k in ("cpuset", "pcpuset"):
            if set(getattr(r, k)) != set(getattr(g, k)):
                probs.append("%s: cell %d %s changed" % (what, cid, k))
        rp = sorted((p.size_kb, p.total, p.used, p.reserved if "reserved" in p else 0)
                    for p in r.mempages)
        gp = sorted((p.size_kb, p.total, p.used, p.reserved if "reserved" in p else 0)
                    for p in g.mempages)
        if rp != gp:
            probs.append("%s: cell %d mempages (size,total,used,reserved) %s != nova %s"
                         % (what, cid, gp, rp))
        rpin, gpin = set(r.pinned_cpus), set(g.pinned_cpus)
        covered = set()
        for sib in r.siblings:
            covered |= sib
            if len(sib & rpin) != len(sib & gpin):
                probs.append("%s: cell %d core %s pinned %s != nova %s"
                             % (what, cid, sorted(sib), sorted(sib & gpin), sorted(sib & rpin)))
        if rpin - covered != gpin - covered:
            probs.append("%s: cell %d pinned (no core) %s != nova %s"
                         % (what, cid, sorted(gpin - covered), sorted(rpin - covered)))
    return probs


def nova_claim(host, topo, free=False):
    """nova's numa_usage_from_instance_numa.  Zed crashes (IndexError in
    _get_smallest_pagesize) on a host cell without mempages; give such cells
    a 4K page entry with total 0 for the call and strip it afterwards, so the
    rest of the claim is still nova's."""
    h = copy.deepcopy(host)
    empty = set()
    for c in h.cells:
        if not c.mempages:
            empty.add(c.id)
            c.mempages = [objects.NUMAPagesTopology(size_kb=4, total=0, used=0, reserved=0)]
    new = hardware.numa_usage_from_instance_numa(h, topo, free=free)
    for c in new.cells:
        if c.id in empty:
            c.mempages = []
    return new


def canon_host(text):
    """A host JSON (numafit's output) in a comparable form: loaded by nova,
    sets sorted, the siblings list order kept (it steers nova's pinning)."""
    out = []
    for c in host_from_json(text).cells:
        d = {"id": c.id, "socket": c.socket if "socket" in c else None,
             "memory": c.memory, "cpu_usage": c.cpu_usage, "memory_usage": c.memory_usage,
             "cpuset": sorted(c.cpuset), "pcpuset": sorted(c.pcpuset),
             "pinned_cpus": sorted(c.pinned_cpus),
             "siblings": [sorted(x) for x in c.siblings],
             "mempages": [(p.size_kb, p.total, p.used, p.reserved if "reserved" in p else 0)
                          for p in c.mempages]}
        if "network_metadata" in c:
            d["network_metadata"] = (sorted(c.network_metadata.physnets),
                                     c.network_metadata.tunneled)
        out.append(d)
    return out


def strip_changes(x):
    if isinstance(x, dict):
        return {k: strip_changes(v) for k, v in x.items() if k != "nova_object.changes"}
    if isinstance(x, list):
        return [strip_changes(v) for v in x]
    return x


# --------------------------------------------------------------------------
# Scenario generation
# --------------------------------------------------------------------------
PHYSNETS = ["foo", "bar", "baz"]


def gen_host(rng, kind, guest_cells):
    if kind == "cache":
        # more host cells than guest cells, so that nova sorts and walks many
        # permutations: where its fit cache (keyed on a mutated id) and its
        # request mutation (page size) give wrong answers (nova-reference A.1/A.2)
        ncells = min(8, guest_cells + rng.randint(1, 4))
    elif kind == "small":
        ncells = rng.choice([1, 1, 2])
    elif kind == "big":
        ncells = max(guest_cells, rng.choice([2, 2, 4]))
    else:
        ncells = rng.choice([1, 2, 2, 2, 3, 4, 4, 6, 8])
        if ncells < guest_cells and rng.random() < 0.85:
            ncells = rng.randint(guest_cells, 8)
    threads = rng.choice([1, 1, 2, 2, 2, 4])
    cores = rng.randint(1, 8 if threads < 4 else 4)
    if kind == "cache":
        cores = rng.randint(2, 6)
    elif kind == "big":  # a real two-socket server
        threads, cores = rng.choice([1, 2, 2, 2]), rng.randint(8, 24)
    total_cores = ncells * cores
    interleaved = rng.random() < 0.6

    def cpu_id(c, k, t):
        if interleaved:
            return t * total_cores + c * cores + k
        return (c * cores + k) * threads + t

    mode = rng.choice(["legacy", "legacy", "split", "split", "dedicated", "shared",
                       "legacy_partial"])
    if kind == "cache":
        mode = rng.choice(["legacy", "split", "dedicated"])
    shuffle_siblings = rng.random() < 0.25
    no_mempages = rng.random() < 0.06
    memory_only = rng.randrange(ncells) if ncells > 1 and rng.random() < 0.04 else -1
    offline = rng.random() < 0.05  # an offline CPU: overlapping sibling groups
    cells = []
    for c in range(ncells):
        allcpus, shared, dedicated, sibs = set(), set(), set(), []
        for k in range(cores):
            core = [cpu_id(c, k, t) for t in range(threads)]
            if c == memory_only:  # a memory-only (CPU-less) cell
                continue
            allcpus |= set(core)
            if mode in ("legacy", "dedicated"):
                dedicated |= set(core)
            elif mode == "shared":
                shared |= set(core)
            elif mode == "legacy_partial":  # vcpu_pin_set excluding some CPUs
                for cpu in core:
                    if rng.random() < 0.85:
                        dedicated.add(cpu)
            else:  # split: mostly whole cores, sometimes per thread, some unused
                r = rng.random()
                if r < 0.05:
                    continue
                if rng.random() < 0.1:
                    for cpu in core:
                        (dedicated if rng.random() < 0.6 else shared).add(cpu)
                elif r < 0.4:
                    shared |= set(core)
                else:
                    dedicated |= set(core)
            usable = set(core) & (shared | dedicated)
            if usable:
                sibs.append(usable)
        if offline and sibs and threads > 1 and c == 0:
            # nova's edge case (nova-reference G): offline cpu X still listed with
            # siblings {X}, next to its core's group: overlapping groups
            sibs.append({min(sibs[0])})
        if mode in ("legacy", "legacy_partial"):
            cpuset = pcpuset = set(dedicated)
        else:
            cpuset, pcpuset = set(shared), set(dedicated)
        if shuffle_siblings:
            rng.shuffle(sibs)
        memory = rng.choice([1024, 2048, 4096, 4096, 8192, 16384, 32768])
        mempages = []
        if not no_mempages:
            n2m = rng.choice([0, 0, rng.randint(1, memory // 4), memory // 4])
            if kind == "cache" or rng.random() < 0.2:
                n2m = rng.randint(memory // 16, memory // 4)
            n1g = rng.choice([0, 0, rng.randint(0, memory // 2048)]) if memory >= 2048 else 0
            if rng.random() < 0.3:
                n1g = 0
            huge_mb = n2m * 2 + n1g * 1024
            if huge_mb > memory:
                n2m, n1g, huge_mb = 0, 0, 0
            small = (memory - huge_mb) * 256
            pages = [(4, small), (2048, n2m)]
            if n1g or rng.random() < 0.5:
                pages.append((1048576, n1g))
            for size, total in pages:
                reserved = 0
                if size > 4 and total and rng.random() < 0.3:
                    reserved = rng.randint(0, max(0, total // 4))
                elif size == 4 and rng.random() < 0.05:
                    reserved = rng.randint(0, total // 8)
                used = 0
                if total - reserved > 0 and rng.random() < 0.4:
                    used = rng.randint(0, total - reserved)
                if total and rng.random() < 0.02:  # more used than free (nova allows)
                    used = total
                mempages.append(objects.NUMAPagesTopology(
                    size_kb=size, total=total, used=used, reserved=reserved))
        # existing usage
        pinned = set()
        if pcpuset and rng.random() < 0.45:
            frac = rng.random() * rng.random()
            if rng.random() < 0.5:  # whole cores
                for sib in sibs:
                    if sib <= pcpuset and rng.random() < frac:
                        pinned |= sib
            else:
                pinned = {x for x in pcpuset if rng.random() < frac * 0.8}
        cpu_usage = rng.randint(0, 3 * len(cpuset)) if cpuset and rng.random() < 0.5 else 0
        memory_usage = 0
        if rng.random() < 0.4:
            memory_usage = rng.randint(0, memory * 13 // 10) // 256 * 256
        cell = objects.NUMACell(
            id=c, cpuset=cpuset, pcpuset=pcpuset, memory=memory,
            cpu_usage=cpu_usage, memory_usage=memory_usage, pinned_cpus=pinned,
            siblings=sibs, mempages=mempages,
            socket=(c // 2 if rng.random() < 0.8 else None))
        r = rng.random()
        if r < 0.35:
            cell.network_metadata = objects.NetworkMetadata(
                physnets=set(rng.sample(PHYSNETS, rng.randint(0, 2))),
                tunneled=rng.random() < 0.5)
        elif r < 0.85:
            cell.network_metadata = objects.NetworkMetadata(physnets=set(), tunneled=False)
        cells.append(cell)
    return objects.NUMATopology(cells=cells)


def cpu_spec(cpus):
    return ",".join(str(c) for c in sorted(cpus))


def gen_flavor(rng, kind):
    """Returns (flavor dict, image dict)."""
    es = {}
    nodes = rng.choice([None, None, 1, 1, 2, 2, 3, 4])
    if kind == "cache":
        nodes = rng.choice([2, 2, 3, 3, 4])
    if kind == "small":
        nodes = rng.choice([None, 1, 2])
    per = rng.choice([1, 1, 2, 2, 3, 4]) if kind != "cache" else rng.choice([1, 1, 2])
    if kind == "big":
        nodes = rng.choice([None, 1, 2, 2])
        per = rng.choice([2, 4, 6, 8, 16])
    vcpus = (nodes or 1) * per
    if rng.random() < 0.15:
        vcpus = rng.randint(1, 12)
    mem = (nodes or 1) * rng.choice([256, 512, 1024, 1024, 2048, 4096] if kind != "cache"
                                    else [256, 512, 512, 1024])
    if rng.random() < 0.05:
        mem += 2  # not a multiple of the huge page sizes
    policy = rng.choice([None, "shared", "dedicated", "dedicated", "dedicated", "mixed"])
    if kind == "cache":
        policy = rng.choice(["dedicated", "dedicated", "mixed", None])
    if policy:
        es["hw:cpu_policy"] = policy
    if nodes:
        es["hw:numa_nodes"] = str(nodes)
        if nodes > 1 and rng.random() < 0.25 and vcpus >= nodes:
            # manual split
            cpus = list(range(vcpus))
            rng.shuffle(cpus)
            cuts = sorted(rng.sample(range(1, vcpus), nodes - 1)) if vcpus > nodes else \
                list(range(1, nodes))
            parts = [cpus[a:b] for a, b in zip([0] + cuts, cuts + [vcpus])]
            units_ = mem // 256
            if units_ >= nodes:
                mcuts = sorted(rng.sample(range(1, units_), nodes - 1))
                mparts = [(b - a) * 256 for a, b in zip([0] + mcuts, mcuts + [units_])]
                mparts[-1] += mem - units_ * 256
                for i in range(nodes):
                    es["hw:numa_cpus.%d" % i] = cpu_spec(parts[i])
                    es["hw:numa_mem.%d" % i] = str(mparts[i])
    if policy in ("dedicated", "mixed"):
        tp = rng.choice([None, None, "prefer", "isolate", "require"])
        if tp:
            es["hw:cpu_thread_policy"] = tp
        ep = rng.choice([None, None, "share", "isolate"])
        if ep:
            es["hw:emulator_threads_policy"] = ep
        if policy == "mixed":
            if rng.random() < 0.7:
                k = rng.randint(1, max(1, vcpus - 1))
                mask = sorted(rng.sample(range(vcpus), k))
                es["hw:cpu_dedicated_mask"] = rng.choice(
                    [cpu_spec(mask), "^" + ",^".join(str(x) for x in
                                                     sorted(set(range(vcpus)) - set(mask)))
                     if len(mask) < vcpus else cpu_spec(mask)])
            else:
                es["hw:cpu_realtime"] = "yes"
                es["hw:cpu_realtime_mask"] = rng.choice(["^0", "0", "1-%d" % (vcpus - 1)])
        elif rng.random() < 0.15:
            es["hw:cpu_realtime"] = "yes"
            es["hw:cpu_realtime_mask"] = rng.choice(["^0", "^0-1", "0"])
    ps = rng.choice([None] * 5 + ["small", "large", "any", "any", "2048", "1GB", "2MB",
                                  "4", "1048576"])
    if kind == "cache" and rng.random() < 0.5:
        ps = rng.choice(["any", "large"])
    if ps:
        es["hw:mem_page_size"] = ps
    props = {}
    if policy in ("dedicated", "mixed") and "hw:cpu_thread_policy" not in es and \
            rng.random() < 0.1:
        props["hw_cpu_thread_policy"] = rng.choice(["prefer", "isolate", "require"])
    if ps in ("any", "large") and rng.random() < 0.25:
        props["hw_mem_page_size"] = rng.choice(["2048", "1GB", "small", "large"])
    if rng.random() < 0.05 and policy is None:
        props["hw_cpu_policy"] = "dedicated"
    if rng.random() < 0.05 and not nodes:
        props["hw_numa_nodes"] = rng.choice([1, 2])
    return ({"vcpus": vcpus, "memory_mb": mem, "extra_specs": es},
            {"properties": props})


def gen_limits(rng):
    if rng.random() < 0.45:
        return None, None
    cpu = rng.choice([1.0, 1.5, 2.0, 4.0, 16.0, 1.1, 0.9, 2.3])
    ram = rng.choice([1.0, 1.0, 1.5, 0.8, 1.1, 0.7])
    kw = {"cpu_allocation_ratio": cpu, "ram_allocation_ratio": ram}
    js = dict(kw)
    if rng.random() < 0.4:
        physnets = set(rng.sample(PHYSNETS, rng.randint(0, 2)))
        tunneled = rng.random() < 0.4
        kw["network_metadata"] = objects.NetworkMetadata(physnets=physnets, tunneled=tunneled)
        js["network_metadata"] = {"physnets": sorted(physnets), "tunneled": tunneled}
    return objects.NUMATopologyLimits(**kw), js


def build_request(flavor, image):
    """nova's numa_get_constraints; None if nova refuses or gives no NUMA."""
    try:
        fl = objects.Flavor(vcpus=flavor["vcpus"], memory_mb=flavor["memory_mb"],
                            extra_specs=dict(flavor["extra_specs"]))
        im = objects.ImageMeta.from_dict(copy.deepcopy(image))
        return hardware.numa_get_constraints(fl, im), None
    except Exception as e:
        return None, type(e).__name__


def host_json(host):
    return json.dumps(host.obj_to_primitive())


def host_from_json(text):
    return objects.NUMATopology.obj_from_primitive(json.loads(text))


# --------------------------------------------------------------------------
# numafit side
# --------------------------------------------------------------------------


def error_dict(e):
    """A numafit.errors exception as the fields of numafit_error_t."""
    return {"code": e.code, "cell": e.cell, "where": e.where, "exception": e.exception,
            "text": e.text}


class Numafit:
    """libnumafit through its Python binding (bindings/python/numafit)."""

    def __init__(self, path):
        self.nf = import_numafit(path)

    def fit(self, hjson, flavor, image, limits_js, profile, pack):
        """Returns (status, canonical placement | None, numafit.Placement,
        error dict).  status: "fit", "nofit", or "error"."""
        nf = self.nf
        pname = "zed" if profile == PROFILE_ZED else "latest"
        with nf.Host.from_json(hjson) as h:
            try:
                r = nf.Request.from_json(flavor, image, pname)
            except nf.errors.NumafitError as e:
                return "error", None, None, dict(error_dict(e), stage="request", rc=-e.errno)
            with r:
                if not r.has_numa:
                    return "error", None, None, {"stage": "request", "rc": 0,
                                                 "text": "numafit: no NUMA topology"}
                try:
                    res = nf.try_fit(h, r, limits=limits_js, profile=pname,
                                     strategy="pack" if pack else "spread")
                except nf.errors.NumafitError as e:
                    return "error", None, None, dict(error_dict(e), stage="fit", rc=-e.errno)
        err = {"code": res.code, "code_name": res.code_name, "cell": res.cell,
               "text": res.text}
        p = res.placement
        if p is not None:
            return "fit", canon_numafit_placement(json.loads(p.to_json())), p, err
        return "nofit", None, None, err

    def free_placement(self, p):
        if p:
            p.close()

    def host_new(self, text):
        return self.nf.Host.from_json(text)

    def host_json(self, h):
        return h.to_json()

    def host_free(self, h):
        h.close()

    def _usage(self, change, h, p):
        """(0, {}) or (negative errno, error dict), as the C call returns."""
        try:
            change(p)
        except self.nf.errors.NumafitError as e:
            return -e.errno, error_dict(e)
        return 0, {}

    def claim(self, h, p):
        return self._usage(h.claim, h, p)

    def release(self, h, p):
        return self._usage(h.release, h, p)


class FakeNumafit:
    """--selftest: a Python stand-in for libnumafit made of the reference
    itself (pinning renumbered to the lowest free threads of each core) and
    nova's usage function, to check that this script accepts a correct
    implementation and catches a wrong one (--selftest-bug)."""

    def __init__(self, ctxs, bug=False):
        self.ctxs, self.bug = ctxs, bug

    def fit(self, hjson, flavor, image, limits_js, profile, pack):
        host = host_from_json(hjson)
        req, exc = build_request(flavor, image)
        if req is None:
            return "error", None, None, {"stage": "request", "exception": exc}
        limits = None
        if limits_js:
            kw = dict(limits_js)
            if "network_metadata" in kw:
                kw["network_metadata"] = objects.NetworkMetadata(
                    physnets=set(kw["network_metadata"]["physnets"]),
                    tunneled=kw["network_metadata"]["tunneled"])
            limits = objects.NUMATopologyLimits(**kw)
        with self.ctxs[profile]:
            ref = reference_fit(host, req, limits)
        if ref is None:
            return "nofit", None, None, {}
        cells = {c.id: c for c in host.cells}
        for ic in ref.cells:
            hc = cells[ic.id]
            free = set(hc.pcpuset) - set(hc.pinned_cpus)
            pin = dict(ic.cpu_pinning or {}) if "cpu_pinning_raw" in ic else {}
            res = sorted(ic.cpuset_reserved or []) if "cpuset_reserved" in ic else []
            items = [("v", v, pin[v]) for v in sorted(pin)] + [("e", None, c) for c in res]
            bycore = collections.defaultdict(list)
            for it in items:
                bycore[core_of(hc, it[2])].append(it)
            newpin, newres = {}, set()
            for core, its in bycore.items():
                threads = sorted(core & free)
                if self.bug and len(threads) > len(its):
                    threads = threads[1:]
                for (t, v, _), cpu in zip(its, threads):
                    if t == "v":
                        newpin[v] = cpu
                    else:
                        newres.add(cpu)
            if pin:
                ic.cpu_pinning = newpin
            if res:
                ic.cpuset_reserved = newres
        return "fit", canon_nova_topology(ref), (ref, profile), {}

    def free_placement(self, p):
        pass

    def host_new(self, text):
        return [host_from_json(text)]

    def host_json(self, h):
        return host_json(h[0])

    def host_free(self, h):
        pass

    def claim(self, h, p):
        with self.ctxs[p[1]]:
            h[0] = nova_claim(h[0], p[0])
        return 0, {}

    def release(self, h, p):
        with self.ctxs[p[1]]:
            h[0] = nova_claim(h[0], p[0], free=True)
        return 0, {}


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------
class Stats:
    def __init__(self):
        self.c = collections.Counter()
        self.failures = []
        self.notes = []
        self.defects = []
        self.passed = 0
        self.failed = 0


def problem_category(p):
    p = re.sub(r"^(guest cell \d+|claim( step \d+)?): ", "", p)
    p = re.sub(r"[\[{(].*", "", p)
    return re.sub(r"\d+", "#", p).strip()


def scenario_line(s):
    d = {"op": "fit", "host": strip_changes(json.loads(s["host_json"])), "flavor": s["flavor"],
         "image": s["image"], "limits": s["limits_js"]}
    return d


def repro(s, profile):
    line = scenario_line(s)
    rel = "zed" if profile == PROFILE_ZED else "latest"
    return ("echo '%s' | numafit fit --batch --nova-release %s%s"
            % (json.dumps(line, sort_keys=True, separators=(",", ":")), rel,
               " --strategy pack" if s["pack"] else ""))


def run_profile(s, profile, rules_ctx, nf, st, args):
    """One scenario under one profile.  Returns nothing; updates st."""
    pname = "zed" if profile == PROFILE_ZED else "latest"
    host, req, limits = s["host"], s["req"], s["limits"]
    with rules_ctx:
        try:
            ref = reference_fit(host, req, limits)
        except Exception as e:  # e.g. ValueError on a cell with no siblings
            st.c["%s nova crash (reference)" % pname] += 1
            st.c["%s nova crash %s" % (pname, type(e).__name__)] += 1
            return
        nov, nerr = nova_fit(host, req, limits)
    cref = canon_nova_topology(ref)
    st.c["%s scenarios" % pname] += 1
    st.c["%s reference fits" % pname] += ref is not None
    cnov = canon_nova_topology(nov)
    # same physical cores = same answer (a deep-copied host iterates its
    # sets in another order, so the thread within a core may differ)
    defect = None
    if nerr or compare_fit(host, cref, cnov, thread_order=False):
        st.c["%s nova defects (plain nova != reference)" % pname] += 1
        if nerr:
            defect = "exception " + nerr
        elif cnov is None:
            defect = "false no-fit"
        elif placement_problems(host, cnov):
            defect = "impossible placement: " + "; ".join(placement_problems(host, cnov))
        elif cref is None:
            defect = "false fit"
        else:
            defect = "different placement"
        st.c["%s nova defects: %s" % (pname, defect.split(":")[0])] += 1
        if args.verbose > 1:
            print("NOVA DEFECT [%s] #%d\n  nova: %s\n  ref:  %s"
                  % (pname, s["index"], cnov if not nerr else nerr, cref))
    if nf is None:
        if args.verbose > 1:
            print("[%s] #%d reference: %s" % (pname, s["index"], cref))
        return

    status, got, p, err = nf.fit(s["host_json"], s["flavor"], s["image"], s["limits_js"],
                                 profile, s["pack"])
    s.setdefault("numafit", {})[profile] = (status, got)
    try:
        bad_ref = placement_problems(host, cref)
        if bad_ref:
            # nova's own rules give an impossible placement (so far only with
            # overlapping sibling groups, nova-reference G: an offline CPU listed
            # twice): numafit may refuse or find a valid placement, but must
            # not copy the impossible one
            st.c["%s nova rules give an impossible placement%s" % (
                pname, " (overlapping siblings)" if overlapping_siblings(host) else "")] += 1
            probs = (["numafit error: %s" % (err,)] if status == "error" else
                     ["nova's rules give an impossible placement (%s) and numafit %s"
                      % ("; ".join(bad_ref), "copies it" if got == cref else
                         "too: " + "; ".join(placement_problems(host, got)))]
                     if placement_problems(host, got) else [])
            record(st, s, profile, "%s impossible reference" % pname, probs, cref, got, err)
            return
        if status != "error" and ref is not None and nova_claim_refuses(host, ref, rules_ctx):
            # nova's fit accepted what its own claim refuses (isolate with
            # emulator threads isolated takes the emulator pCPU from a partly
            # pinned core, and pin_cpus_with_siblings() then wants the whole
            # core).  numafit only returns claimable placements: it must give
            # no fit, or a valid placement that its claim accepts and its
            # release undoes.
            st.c["%s nova claim refuses nova's own fit" % pname] += 1
            probs = claimable_alternative(s, host, got, p, nf)
            record(st, s, profile, "%s unclaimable reference" % pname, probs, cref, got, err)
            return
        if status == "error":
            probs = ["numafit error: %s" % (err,)]
        else:
            notes = []
            probs = compare_fit(host, cref, got, notes=notes)
            if defect and not probs:
                st.c["%s nova defects where numafit gives the reference" % pname] += 1
                if len(st.defects) < 2:
                    st.defects.append((s, profile, defect, cnov, cref))
            if notes:
                st.c["%s notes: vCPU order within a core" % pname] += 1
                if len(st.notes) < 3:
                    st.notes.append("#%d %s: %s" % (s["index"], pname, notes[0]))
        tag = "fit" if cref is not None else "nofit"
        if not probs and ref is not None:
            probs = check_claim(s, host, ref, p, nf, rules_ctx, st, pname)
            tag = "fit+claim"
        record(st, s, profile, "%s %s" % (pname, tag), probs, cref, got, err)
        if not probs and ref is not None and s["sequence"]:
            run_sequence(s, profile, rules_ctx, nf, st, args)
    finally:
        nf.free_placement(p)


def record(st, s, profile, what, probs, cref=None, got=None, err=None):
    pname = "zed" if profile == PROFILE_ZED else "latest"
    if probs:
        st.failed += 1
        st.c["%s disagreements" % pname] += 1
        st.failures.append({"index": s["index"], "profile": pname, "what": what,
                            "kind": s["kind"], "problems": probs, "reference": cref,
                            "numafit": got, "numafit_error": err,
                            "repro": repro(s, profile)})
    else:
        st.passed += 1
        st.c["%s agreements" % pname] += 1


NOVA_CLAIM_DEFECTS = (nova_exc.CPUPinningInvalid, nova_exc.CPUPinningUnknown)


def nova_claim_refuses(host, ref, rules_ctx):
    """True when nova's own claim raises on nova's reference placement."""
    try:
        with rules_ctx:
            nova_claim(copy.deepcopy(host), ref)
    except NOVA_CLAIM_DEFECTS:
        return True
    except Exception:
        return False
    return False


def claimable_alternative(s, host, got, p, nf):
    """numafit's answer where nova's reference cannot be claimed: no fit, or
    a valid placement that numafit claims and releases cleanly."""
    if got is None:
        return []
    probs = placement_problems(host, got)
    if probs:
        return ["numafit placement invalid: " + "; ".join(probs)]
    h = nf.host_new(s["host_json"])
    try:
        before = canon_host(nf.host_json(h))
        rc, err = nf.claim(h, p)
        if rc != 0:
            return ["numafit cannot claim its own placement: rc=%d %s" % (rc, err)]
        rc, err = nf.release(h, p)
        if rc != 0 or canon_host(nf.host_json(h)) != before:
            return ["numafit release did not restore the host (rc=%d)" % rc]
        return []
    finally:
        nf.host_free(h)


def claim_both(host, ref, h, p, nf, rules_ctx, st, pname):
    """nova's claim of the reference on `host` vs numafit's claim of its
    placement `p` on handle `h` (the same host).  Returns (problems, state):
    state "claimed" (numafit's host holds the claim), "refused" (both
    refused, numafit's host must be unchanged), or "failed"."""
    before = nf.host_json(h)
    try:
        with rules_ctx:
            nova_after = nova_claim(host, ref)
    except NOVA_CLAIM_DEFECTS as e:
        # nova's fit accepted what its own claim refuses: e.g. isolate with
        # emulator threads isolated takes the emulator pCPU from a partly
        # pinned core (sibling_sets[1]) and pin_cpus_with_siblings() then
        # wants the whole core.  numafit must refuse the claim the same way
        # (-EBUSY, NUMAFIT_E_PINNING) and leave the host unchanged.
        st.c["%s nova claim refuses nova's own fit (%s)" % (pname, type(e).__name__)] += 1
        rc, err = nf.claim(h, p)
        if rc == 0:
            return (["nova's claim raises %s on its own fit, numafit's claim succeeded: %s"
                     % (type(e).__name__, e)], "failed")
        if canon_host(nf.host_json(h)) != canon_host(before):
            return (["numafit claim rc=%d changed the host" % rc], "failed")
        return [], "refused"
    except Exception as e:
        return ["nova claim raised %s: %s" % (type(e).__name__, e)], "failed"
    rc, err = nf.claim(h, p)
    if rc != 0:
        return ["numafit claim rc=%d %s" % (rc, err)], "failed"
    try:
        got_after = host_from_json(nf.host_json(h))
    except Exception as e:
        return ["numafit host JSON after claim not loadable by nova: %s" % e], "failed"
    probs = compare_hosts(nova_after, got_after, "claim")
    return probs, ("failed" if probs else "claimed")


def check_claim(s, host, ref, p, nf, rules_ctx, st, pname):
    """Claim (see claim_both), then numafit's release must restore the
    host exactly.  Returns problems."""
    h = nf.host_new(s["host_json"])
    try:
        before = nf.host_json(h)
        probs, state = claim_both(host, ref, h, p, nf, rules_ctx, st, pname)
        if state != "claimed":
            return probs
        rc, err = nf.release(h, p)
        if rc != 0:
            probs.append("numafit release rc=%d %s" % (rc, err))
        elif canon_host(nf.host_json(h)) != canon_host(before):
            probs.append("numafit release did not restore the host")
        return probs
    finally:
        nf.host_free(h)


def run_sequence(s, profile, rules_ctx, nf, st, args):
    """Fill the host with the same request until it no longer fits.  After
    every compared claim nova's host is re-read from numafit's host JSON, so
    both sides continue from the same state."""
    pname = "zed" if profile == PROFILE_ZED else "latest"
    host = s["host"]
    h = nf.host_new(s["host_json"])
    placements = []
    original = canon_host(nf.host_json(h))
    try:
        for step in range(args.max_steps):
            with rules_ctx:
                ref = reference_fit(host, s["req"], s["limits"])
            cref = canon_nova_topology(ref)
            if placement_problems(host, cref):
                st.c["%s sequences stopped at an impossible reference" % pname] += 1
                break
            cur = nf.host_json(h)
            sc = dict(s, host_json=cur)
            status, got, p, err = nf.fit(cur, s["flavor"], s["image"], s["limits_js"],
                                         profile, s["pack"])
            if (status != "error" and ref is not None
                    and nova_claim_refuses(host, ref, rules_ctx)):
                # as in the single fits: nova's placement cannot be claimed;
                # numafit must give no fit or a claimable placement.  The
                # sequence ends here (the two sides part ways).
                st.c["%s nova claim refuses nova's own fit" % pname] += 1
                sc2 = dict(sc)
                probs = claimable_alternative(sc2, host, got, p, nf)
                nf.free_placement(p)
                record(st, sc, profile, "%s sequence unclaimable reference %d" % (pname, step),
                       probs, cref, got, err)
                break
            probs = ["numafit error: %s" % (err,)] if status == "error" else \
                compare_fit(host, cref, got)
            if probs:
                nf.free_placement(p)
                record(st, sc, profile, "%s sequence step %d" % (pname, step),
                       probs, cref, got, err)
                return
            if ref is None:
                break
            probs, state = claim_both(host, ref, h, p, nf, rules_ctx, st, pname)
            if state == "claimed":
                placements.append(p)
            else:
                nf.free_placement(p)
            if state != "refused":
                record(st, sc, profile, "%s sequence claim %d" % (pname, step),
                       probs, cref, got)
            if state != "claimed":
                if state == "failed":
                    return
                break
            host = host_from_json(nf.host_json(h))
        st.c["%s sequences" % pname] += 1
        st.c["%s sequence steps" % pname] += len(placements)
        # release everything, in reverse order: back to the original host
        for p in reversed(placements):
            rc, err = nf.release(h, p)
            if rc != 0:
                record(st, s, profile, "%s sequence release" % pname,
                       ["numafit release rc=%d %s" % (rc, err)])
                return
        record(st, s, profile, "%s sequence release" % pname,
               [] if canon_host(nf.host_json(h)) == original else
               ["releasing every claim did not restore the host"])
    finally:
        for p in placements:
            nf.free_placement(p)
        nf.host_free(h)


def check_cli(path, jobs, st):
    """The repro lines must reproduce: feed the first scenarios to
    `numafit fit --batch` and expect the library's own answers."""
    import subprocess
    for (profile, pack), items in sorted(jobs.items(), key=lambda kv: kv[0]):
        pname = "zed" if profile == PROFILE_ZED else "latest"
        cmd = [path, "fit", "--batch", "--nova-release", pname]
        if pack:
            cmd += ["--strategy", "pack"]
        text = "".join(json.dumps(scenario_line(s), separators=(",", ":")) + "\n"
                       for s, _ in items)
        try:
            out = subprocess.run(cmd, input=text, capture_output=True, text=True,
                                 timeout=60)
            answers = out.stdout.splitlines()
        except Exception as e:
            answers, out = [], None
            err = "%s: %s" % (type(e).__name__, e)
        else:
            err = "rc=%d stderr=%s" % (out.returncode, out.stderr.strip()[:200])
        if len(answers) != len(items):
            record(st, items[0][0], profile, "cli",
                   ["`%s` gave %d answer lines for %d lines (%s)"
                    % (" ".join(cmd), len(answers), len(items), err)])
            continue
        for (s, got), line in zip(items, answers):
            try:
                ans = json.loads(line)
                cli = canon_numafit_placement(ans["fit"]) if ans.get("fit") is not None \
                    else None
            except Exception as e:
                cli, ans = "unparsable (%s)" % e, line
            st.c["%s CLI lines checked" % pname] += 1
            record(st, s, profile, "%s cli" % pname,
                   [] if cli == got else
                   ["`numafit fit --batch` answered %s, the library %s"
                    % (json.dumps(ans)[:300], json.dumps(got)[:300])])


def gen_scenarios(rng, count, st):
    """Yields scenarios; requests nova refuses are skipped (and counted)."""
    i = 0
    attempts = 0
    while i < count and attempts < count * 20:
        attempts += 1
        kind = rng.choices(["random", "cache", "small", "big"], [0.5, 0.25, 0.15, 0.1])[0]
        flavor, image = gen_flavor(rng, kind)
        req, exc = build_request(flavor, image)
        if req is None:
            st.c["flavors refused by nova" if exc else "flavors without NUMA topology"] += 1
            if exc:
                st.c["  refused: %s" % exc] += 1
            continue
        host = gen_host(rng, kind, len(req.cells))
        limits, limits_js = gen_limits(rng)
        pack = rng.random() < 0.3
        yield {"index": i, "kind": kind, "host": host, "host_json": host_json(host),
               "flavor": flavor, "image": image, "req": req, "limits": limits,
               "limits_js": limits_js, "pack": pack, "sequence": rng.random() < 0.12}
        i += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--library", help="path of libnumafit.so.0")
    ap.add_argument("--numafit", help="path of the numafit CLI (for the repro lines)")
    ap.add_argument("--seed", type=int, default=20260801)
    ap.add_argument("--count", type=int, default=2500)
    ap.add_argument("--dump", help="write the scenarios as `numafit fit --batch` lines")
    ap.add_argument("--profile", choices=["zed", "latest", "both"], default="both")
    ap.add_argument("--nova-only", action="store_true",
                    help="only compute the reference and nova's defects")
    ap.add_argument("--selftest", action="store_true",
                    help="compare against a Python stand-in for libnumafit built "
                    "from the reference (checks this script, not the library)")
    ap.add_argument("--selftest-bug", action="store_true",
                    help="the same with a deliberate within-core thread bug")
    ap.add_argument("--cli-count", type=int, default=300,
                    help="scenarios also run through `NUMAFIT fit --batch`")
    ap.add_argument("--max-steps", type=int, default=48)
    ap.add_argument("--show", type=int, default=5, help="disagreements printed in full")
    ap.add_argument("-v", "--verbose", action="count", default=0)
    args = ap.parse_args()
    t0 = time.time()

    nf = None
    lib_error = None
    latest = LatestRules()
    latest_ctx = latest.patch()
    if args.selftest or args.selftest_bug:
        nf = FakeNumafit({PROFILE_ZED: NoPatch(), PROFILE_LATEST: latest_ctx},
                         bug=args.selftest_bug)
    elif not args.nova_only:
        try:
            nf = Numafit(args.library)
        except Exception as e:
            lib_error = "%s: %s" % (type(e).__name__, e)
            if "Sanitizer" in lib_error or "ASan" in lib_error:
                # a sanitizer build cannot be dlopen()ed by an uninstrumented python
                print("libnumafit is a sanitizer build (%s): skip" % lib_error)
                return 77
            print("libnumafit not usable (%s): computing the nova side only" % lib_error)
    profiles = []
    if args.profile in ("zed", "both"):
        profiles.append((PROFILE_ZED, NoPatch()))
    if args.profile in ("latest", "both"):
        profiles.append((PROFILE_LATEST, latest_ctx))

    st = Stats()
    rng = random.Random(args.seed)
    cli_jobs = None
    if args.numafit and isinstance(nf, Numafit) and args.cli_count > 0:
        if os.access(args.numafit, os.X_OK):
            cli_jobs = collections.defaultdict(list)
        else:
            print("note: %s is not executable: no CLI check" % args.numafit)
    dump = open(args.dump, "w") if args.dump else None
    n = 0
    try:
        for s in gen_scenarios(rng, args.count, st):
            n += 1
            CONF.set_override("packing_host_numa_cells_allocation_strategy", s["pack"],
                              group="compute")
            if dump:
                dump.write(json.dumps(scenario_line(s), sort_keys=True,
                                      separators=(",", ":")) + "\n")
            for profile, ctx in profiles:
                try:
                    run_profile(s, profile, ctx, nf, st, args)
                except Exception as e:
                    if nf is None:
                        raise
                    # a numafit failure we did not anticipate (e.g. host JSON refused)
                    record(st, s, profile, "exception",
                           ["%s: %s" % (type(e).__name__, e)])
            if cli_jobs is not None and n <= args.cli_count:
                for profile, _ in profiles:
                    if s.get("numafit", {}).get(profile, ("error",))[0] in ("fit", "nofit"):
                        cli_jobs[(profile, s["pack"])].append(
                            (s, s["numafit"][profile][1]))
    finally:
        CONF.clear_override("packing_host_numa_cells_allocation_strategy", group="compute")
        if dump:
            dump.close()

    if cli_jobs:
        check_cli(args.numafit, cli_jobs, st)
    el = time.time() - t0
    print("nova_fit_diff: seed %d, %d scenarios in %.1f s" % (args.seed, n, el))
    for k in sorted(st.c):
        print("  %-52s %d" % (k, st.c[k]))
    for note in st.notes:
        print("  note " + note)
    for s, profile, defect, cnov, cref in st.defects:
        print("nova defect fixed by numafit, scenario #%d (%s, %s): %s"
              % (s["index"], s["kind"], "zed" if profile == PROFILE_ZED else "latest",
                 defect))
        print("   plain nova:            %s" % json.dumps(cnov))
        print("   reference and numafit: %s" % json.dumps(cref))
        if args.verbose:
            print("   repro: " + repro(s, profile))
    by_what = collections.Counter((f["profile"], re.sub(r" \d+$", "", f["what"]),
                                   problem_category(f["problems"][0])) for f in st.failures)
    if st.failures:
        print("disagreements by kind:")
        for k, v in by_what.most_common():
            print("  %5d  %s" % (v, " / ".join(k)))
    for f in st.failures[:args.show]:
        print("-" * 78)
        print("DISAGREEMENT scenario #%d (%s, %s): %s"
              % (f["index"], f["kind"], f["profile"], f["what"]))
        for p in f["problems"][:12]:
            print("   - " + p)
        print("   reference (nova rules): %s" % json.dumps(f["reference"]))
        print("   numafit:                %s" % json.dumps(f["numafit"]))
        if f["numafit_error"]:
            print("   numafit error:          %s" % json.dumps(f["numafit_error"]))
        print("   repro: " + f["repro"])
    if lib_error:
        st.failed += 1
        print("FAIL: libnumafit not usable: %s" % lib_error)
    print("%d passed, %d failed" % (st.passed, st.failed))
    return 1 if st.failed else 0


if __name__ == "__main__":
    sys.exit(main())
