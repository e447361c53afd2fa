"""The INFO lines nova.virt.hardware logs when it computes a pinning,
logged for the adapter's fits through nova's own logger.

nova logs, for every guest cell it pins, "Computed NUMA topology CPU
pinning: usable pCPUs: [[...], ...], vCPUs mapping: [(vCPU, pCPU), ...]",
and with emulator threads on reserved pCPUs "Computed NUMA topology
reserved pCPUs: usable pCPUs: [...], reserved pCPUs: {...}".  Operators
grep them, and nova's functional tests assert them.  "usable pCPUs" is the
list of free thread groups nova packed from: the first N free threads of
every core that has at least N free, for the N that gave the pinning, or
every free thread on its own when nova fell back to linear assignment.
The groups are rebuilt here from the host cell as it was before the fit
and the pinning the library chose; nova also logs attempts it then
discards (a pinning that left no pCPU for the emulator threads), which
the adapter does not make.  Nothing is computed unless the logger is
enabled for INFO."""
import collections
import itertools
import logging

PINNING = ("Computed NUMA topology CPU pinning: usable pCPUs: "
           "%(usable_cores)s, vCPUs mapping: %(vcpus_pinning)s")
RESERVED = ("Computed NUMA topology reserved pCPUs: usable pCPUs: "
            "%(usable_cores)s, reserved pCPUs: %(cpuset_reserved)s")


def _groups(host_cell, cell, vcpus, pinning):
    """(the usable groups nova lists for this pinning, the thread groups
    nova takes the emulator's reserved pCPUs from) for guest cell `cell`
    pinned on `host_cell`."""
    free = host_cell.free_siblings
    per_core = max(map(len, host_cell.siblings), default=0) or 1
    by_threads = collections.defaultdict(list)
    for sib in free:
        for n in range(1, len(sib) + 1):
            by_threads[n].append(sib)
    policy = cell.cpu_thread_policy
    if policy == "isolate":
        tries = [(1, by_threads[per_core], by_threads[1])]
    else:
        tries = [(n, by_threads[n], by_threads[1]) for n in sorted(by_threads, reverse=True)
                 if policy != "require" or n > 1]
        if policy != "require":
            # the linear fallback: every free thread on its own
            single = [{x} for x in itertools.chain(*by_threads[1])]
            tries.append((1, single, single))
    want = [(v, pinning[v]) for v in vcpus]
    for n, sets, reserve_from in tries:
        usable = [list(s)[:n] for s in sets]
        if list(zip(vcpus, itertools.chain(*usable))) == want:
            return usable, reserve_from
    # a pinning nova's packing would not list this way: the groups it used
    used = set(pinning.values())
    return [sorted(s & used) for s in free if s & used], by_threads[1]


def log_pinning(log, host_cells, cells):
    """Log nova's pinning lines for the fitted guest cells `cells` (nova
    InstanceNUMACells with their host cell ids) placed on the host cells
    host_cells() returns (nova NUMACells as they were before the fit),
    through `log` (nova's nova.virt.hardware.LOG)."""
    if not log.isEnabledFor(logging.INFO):
        return
    host_cells = {c.id: c for c in host_cells()}
    for cell in cells:
        pinning = cell.cpu_pinning if "cpu_pinning_raw" in cell else None
        host_cell = host_cells.get(cell.id)
        if not pinning or host_cell is None:
            continue
        vcpus = sorted(v for v in cell.pcpuset if v in pinning)
        usable, reserve_from = _groups(host_cell, cell, vcpus, pinning)
        log.info(PINNING, {"usable_cores": usable,
                           "vcpus_pinning": [(v, pinning[v]) for v in vcpus]})
        reserved = cell.cpuset_reserved if "cpuset_reserved" in cell else None
        if reserved:
            # nova's list: the thread groups without the pinned pCPUs (for
            # isolate, without the whole groups that hold one)
            pinned = set(pinning.values())
            if cell.cpu_thread_policy == "isolate":
                left = [list(s) for s in reserve_from if not s & pinned]
            else:
                left = [[x for x in s if x not in pinned] for s in reserve_from]
            log.info(RESERVED, {"usable_cores": left, "cpuset_reserved": set(reserved)})
