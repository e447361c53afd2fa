"""The measuring stick of issue 16: online placements (nova's host choice
with numafit's spread and pack) against the offline optimum of an exact
integer program (doc/stranding.md).

Everything here uses Debian's /usr/bin/python3 with the numafit binding
(NUMAFIT_LIBRARY, PYTHONPATH=bindings/python) and, for the optimum,
python3-pulp driving coinor-cbc (/usr/bin/cbc).

- fleets and flavor mixes: HOST_KINDS, FLEETS, FLAVORS, MIXES;
- arrivals(mix, n, seed): a seeded random arrival sequence;
- online(fleet, seq, strategy): place one by one until the first refusal;
- optimum(fleet, seq): the longest prefix that fits all together (ILP);
- brute_force(fleet, seq): the same by trying every order, host and
  numafit strategy (tiny cases only), to check the ILP against;
- realize(fleet, counts): whether numafit can place an ILP solution.
"""
import copy
import random
import shutil
import time

import numafit

LIMITS = {"cpu_allocation_ratio": 4.0, "ram_allocation_ratio": 1.0}
PROFILE = "latest"
CBC = "/usr/bin/cbc"

# Seed-like hosts as synthetic specs (README, `numafit plan --add-hosts`).
# CPU ids as Linux numbers them on Intel: thread t of core c of cell n is
# t * (cells * cores per cell) + n * cores per cell + c.
HOST_KINDS = {
    # seed 002: 2 x Xeon E5-2620 (6 cores x 2 threads per socket), 64 GiB;
    # assumed: 16 x 1 GiB pages, the first core of each socket shared
    "e5-2620": "2x6c2t 2cells mem:64G 1G:16 shared:0,6,12,18 "
               "dedicated:1-5,7-11,13-17,19-23",
    # seed 000: Huawei RH2288H V3, 2 x E5-2620 v4, hyper-threading off,
    # 251 GiB (256 here), 16 x 1 GiB pages, cpu_dedicated_set=4-11
    "rh2288h-v3": "2x8c 2cells mem:256G 1G:16 shared:0-3,12-15 dedicated:4-11",
    # seed 000: Sugon I620-G30, 2 x Xeon Gold 6148 (20 cores x 2 threads),
    # 1 TiB; assumed: 64 x 1 GiB pages, first two cores per socket shared
    "sugon-i620-g30": "2x20c2t 2cells mem:1T 1G:64 shared:0-1,20-21,40-41,60-61 "
                      "dedicated:2-19,22-39,42-59,62-79",
    # tiny hosts for the brute-force check (not seed-like)
    "tiny": "1x8c 2cells mem:32G 1G:8 shared:0,4 dedicated:1-3,5-7",
    "tiny-ht": "1x4c2t 2cells mem:16G 1G:4 shared:0,2 dedicated:1,3,4-7",
}

# A fleet of N hosts takes its kinds in turn from the list.
FLEETS = {
    "seed": ["e5-2620", "rh2288h-v3"],
    "mixed": ["e5-2620", "rh2288h-v3", "sugon-i620-g30"],
    "e5-2620": ["e5-2620"],
    "rh2288h-v3": ["rh2288h-v3"],
    "sugon": ["sugon-i620-g30"],
    "tiny": ["tiny", "tiny-ht"],
}


def _f(vcpus, mem, **specs):
    return {"vcpus": vcpus, "memory_mb": mem, "root_gb": 0, "ephemeral_gb": 0, "swap": 0,
            "extra_specs": {k.replace("_", ":", 1) if k.startswith("hw_") else k: v
                            for k, v in specs.items()}}


DED = {"hw:cpu_policy": "dedicated"}
FLAVORS = {
    # seed 000's rt_flavor
    "rt": dict(_f(4, 8192), extra_specs=dict(DED, **{
        "hw:cpu_realtime": "yes", "hw:cpu_realtime_mask": "^0-1",
        "hw:mem_page_size": "1GB"})),
    "isolate": dict(_f(2, 4096), extra_specs=dict(DED, **{"hw:cpu_thread_policy": "isolate"})),
    "pinned": dict(_f(2, 4096), extra_specs=dict(DED)),
    "pinned3": dict(_f(3, 6144), extra_specs=dict(DED)),
    "multi": dict(_f(8, 16384), extra_specs=dict(DED, **{"hw:numa_nodes": "2"})),
    "shared.numa": dict(_f(2, 4096), extra_specs={"hw:numa_nodes": "1"}),
    "small": _f(1, 2048),          # shared, no NUMA topology: placement only
    # tiny flavors for the brute-force check
    "t.rt": dict(_f(2, 2048), extra_specs=dict(DED, **{
        "hw:cpu_realtime": "yes", "hw:cpu_realtime_mask": "^0",
        "hw:mem_page_size": "1GB"})),
    "t.isolate": dict(_f(1, 1024), extra_specs=dict(DED, **{"hw:cpu_thread_policy": "isolate"})),
    "t.pinned": dict(_f(1, 1024), extra_specs=dict(DED)),
    "t.multi": dict(_f(2, 2048), extra_specs=dict(DED, **{"hw:numa_nodes": "2"})),
    "t.shared": dict(_f(1, 1024), extra_specs={"hw:numa_nodes": "1"}),
}

# Arrival proportions (weights) of each mix.
MIXES = {
    "rt-shared": {"rt": 4, "small": 4, "isolate": 2},
    "nfv": {"rt": 3, "multi": 2, "isolate": 2, "small": 3},
    "mixed": {"rt": 2, "isolate": 2, "pinned3": 2, "multi": 1, "shared.numa": 2, "small": 2},
    # mixed without isolate: hyper-threaded fleets with cpu_dedicated_set
    # take no isolate instance at all (their first refusal would be the
    # first isolate arrival)
    "no-isolate": {"rt": 2, "pinned3": 2, "multi": 1, "shared.numa": 2, "small": 2},
    "tiny": {"t.rt": 2, "t.isolate": 2, "t.pinned": 2, "t.multi": 1, "t.shared": 2},
}


class Flavor:
    """A flavor's request, placement amounts and per-cell demand."""

    def __init__(self, name):
        self.name = name
        self.flavor = FLAVORS[name]
        self.req = numafit.Request.from_flavor(self.flavor["vcpus"], self.flavor["memory_mb"],
                                               self.flavor["extra_specs"], profile=PROFILE)
        self.res = numafit.resources_from_flavor(self.flavor, profile=PROFILE)
        specs = self.flavor["extra_specs"]
        self.numa = self.req.has_numa
        self.nodes = int(specs.get("hw:numa_nodes", "1"))
        self.dedicated = specs.get("hw:cpu_policy") == "dedicated"
        self.isolate = specs.get("hw:cpu_thread_policy") == "isolate"
        self.huge = specs.get("hw:mem_page_size") == "1GB"
        # the guest cells are even splits (no hw:numa_cpus.N / numa_mem.N)
        self.cell_vcpus = self.flavor["vcpus"] // self.nodes
        self.cell_mem = self.flavor["memory_mb"] // self.nodes


def arrivals(mix, n, seed):
    """n flavor names drawn with the mix's weights, seeded."""
    rng = random.Random("%s/%d" % (mix, seed))
    names = sorted(MIXES[mix])
    return rng.choices(names, weights=[MIXES[mix][k] for k in names], k=n)


class Node:
    """One compute node: the NUMA host and placement's inventory."""

    def __init__(self, kind, host=None, inv=None):
        self.kind = kind
        self.host = host if host is not None else numafit.Host.synthetic(HOST_KINDS[kind])
        self.inv = inv if inv is not None else numafit.Inventory.from_host(self.host,
                                                                           profile=PROFILE)

    def copy(self):
        return Node(self.kind, copy.copy(self.host), copy.copy(self.inv))

    def try_place(self, fl, strategy):
        """Fit and claim on both (nova's two steps); the placement
        (None without NUMA topology) and whether it fitted.  strategy: a
        name, or a numafit.Options (the headroom strategy with its mix)."""
        if isinstance(strategy, numafit.Options):
            r = numafit.node_fit(self.host, self.inv, fl.req, fl.res, limits=strategy, claim=True)
        else:
            r = numafit.node_fit(self.host, self.inv, fl.req, fl.res, limits=LIMITS,
                                 profile=PROFILE, strategy=strategy, claim=True)
        return r.code == 0, r.placement

    def free_ram(self):
        m = self.inv["MEMORY_MB"]
        return (m["total"] - m["reserved"]) * m["allocation_ratio"] - self.inv.used("MEMORY_MB")

    def key(self):
        return (self.host.to_json(), self.inv.to_json())


def fleet(name, nhosts):
    kinds = FLEETS[name]
    return [kinds[i % len(kinds)] for i in range(nhosts)]


def _flavors(seq):
    return {n: Flavor(n) for n in sorted(set(seq))}


# ------------------------------------------------------------------ online

def online(kinds, seq, strategy, record=None):
    """Place seq one by one until the first refusal, choosing the host as
    nova's scheduler does in its simplest faithful form: every host whose
    inventory and NUMA fit pass (the filters) is weighed by free RAM
    (RAMWeigher; multiplier +1 spreads: most free first, -1 packs: least
    free first; ties in fleet order), and the instance goes to the best
    one, where numafit places it with the same strategy (nova's
    packing_host_numa_cells_allocation_strategy).  Returns the count;
    record, a list, receives (instance index, host index, placement)."""
    nodes = [Node(k) for k in kinds]
    fls = _flavors(seq)
    sign = 1 if strategy == "spread" else -1
    for i, name in enumerate(seq):
        fl = fls[name]
        passing = [j for j, nd in enumerate(nodes)
                   if numafit.node_fit(nd.host, nd.inv, fl.req, fl.res, limits=LIMITS,
                                       profile=PROFILE, strategy=strategy).code == 0]
        if not passing:
            return i
        best = max(passing, key=lambda j: (sign * nodes[j].free_ram(), -j))
        ok, p = nodes[best].try_place(fl, strategy)
        assert ok, "the filtered host refused the claim"
        if record is not None:
            record.append((i, best, p))
    return len(seq)


def headroom_setup(mix):
    """The new strategy's pieces for a mix: the Options (LIMITS, the
    headroom strategy, the mix's NUMA flavors with the mix's weights) and
    the numafit.headroom.MixFlavor list (every flavor of the mix)."""
    from numafit.headroom import MixFlavor
    fls = [Flavor(n) for n in sorted(MIXES[mix])]
    opts = numafit.Options(LIMITS, PROFILE, "headroom",
                           mix=[(f.req, MIXES[mix][f.name]) for f in fls if f.numa])
    opts._flavors = fls  # keep the Requests the options borrow
    return opts, [MixFlavor(f.req, MIXES[mix][f.name], f.res) for f in fls]


def online_headroom(kinds, seq, mix, record=None):
    """The new strategy (issue 16): the host choice of
    numafit.scheduler.NumafitHeadroomWeigher (numafit.headroom's
    stranding_costs over the hosts that pass the filters, the arrivals'
    mix as the mix), ties broken by nova's RAM weigher with a negative
    multiplier (stacking, best fit: the least free RAM first, then fleet
    order) -- a headroom multiplier that dominates the RAM weigher's;
    then numafit's headroom strategy for the host cells, with the same
    mix.  As online() otherwise.  (Ties broken by spreading instead, on
    6 hosts and 5 seeds, placed as many on the mixed and nfv mixes, and
    on no-isolate fewer on 3 seeds of 5 of the mixed fleet (none more)
    and on the seed fleet fewer on 3, more on 2: means 31.2 against 31.8.)"""
    from numafit.headroom import capacity, stranding_costs
    nodes = [Node(k) for k in kinds]
    fls = _flavors(seq)
    opts, mixfl = headroom_setup(mix)
    before = [None] * len(nodes)
    for i, name in enumerate(seq):
        fl = fls[name]
        passing = [j for j, nd in enumerate(nodes)
                   if numafit.node_fit(nd.host, nd.inv, fl.req, fl.res, limits=opts).code == 0]
        if not passing:
            return i
        for j in passing:
            if before[j] is None:
                before[j] = capacity(nodes[j].host, nodes[j].inv, mixfl, opts)
        costs = stranding_costs([(nodes[j].host, nodes[j].inv) for j in passing], fl.req,
                                fl.res, mixfl, opts, before=[before[j] for j in passing])
        t = min(range(len(passing)),
                key=lambda t: (round(costs[t], 12), nodes[passing[t]].free_ram(), passing[t]))
        best = passing[t]
        ok, p = nodes[best].try_place(fl, opts)
        assert ok, "the filtered host refused the claim"
        before[best] = None
        if record is not None:
            record.append((i, best, p))
    return len(seq)


# ------------------------------------------------------------------ model

class Cell:
    def __init__(self, host, i, inv):
        st = host.cell_stats(i)
        self.ded = st["dedicated_cpus"]
        self.shared = st["shared_cpus"]
        self.threads = st["threads_per_core"]
        # whole cores of the dedicated set (isolate takes whole cores)
        ded = host.cell_cpus(i, "dedicated")
        self.whole_cores = sum(1 for s in host.cell_siblings(i) if s and s <= ded)
        self.partial = len(ded) - self.whole_cores * self.threads
        self.memory = st["memory_mb"]
        pages = {p.size_kb: p for p in host.cell_pages(i)}
        small = min(pages) if pages else None
        self.small_mb = pages[small].total * small // 1024 if small else self.memory
        self.huge = pages[1048576].total if 1048576 in pages else 0


def host_model(kind):
    """What the ILP needs of an empty node of this kind."""
    nd = Node(kind)
    cells = [Cell(nd.host, i, nd.inv) for i in range(len(nd.host))]
    cap = {}
    for cls in ("VCPU", "PCPU", "MEMORY_MB"):
        try:
            r = nd.inv[cls]
        except (KeyError, numafit.errors.NumafitError):
            continue
        cap[cls] = int((r["total"] - r["reserved"]) * r["allocation_ratio"])
    return nd, cells, cap


def choices(fl, kind, cells, nd):
    """The ways one instance of fl may sit on an empty node of this kind:
    tuples of host cells (one per guest cell, distinct, unordered since the
    guest cells are equal), () for an instance without NUMA topology; []
    when placement or the NUMA fit refuse it on the empty node (traits,
    max_unit, a thread policy the host cannot give)."""
    probe = nd.copy()
    if not probe.try_place(fl, "spread")[0]:
        return []
    if not fl.numa:
        return [()]
    import itertools
    out = []
    for combo in itertools.combinations(range(len(cells)), fl.nodes):
        ok = True
        for c in combo:
            cl = cells[c]
            if fl.dedicated:
                need = fl.cell_vcpus * (cl.threads if fl.isolate else 1)
                room = cl.whole_cores * cl.threads if fl.isolate else cl.ded
                ok &= need <= room
            else:
                ok &= fl.cell_vcpus <= cl.shared
            if fl.huge:
                ok &= fl.cell_mem <= cl.huge * 1024
            else:
                ok &= fl.cell_mem <= cl.small_mb
        if ok:
            out.append(combo)
    return out


def _build(kinds, seq, relax_prefix=False):
    import pulp
    fls = _flavors(seq)
    models = {k: host_model(k) for k in set(kinds)}
    prob = pulp.LpProblem("prefix", pulp.LpMaximize)
    y = [pulp.LpVariable("y%d" % k, cat="Binary") for k in range(len(seq))]
    prob += pulp.lpSum(y)
    for k in range(1, len(seq)):
        prob += y[k] <= y[k - 1]
    n = {}
    for h, kind in enumerate(kinds):
        nd, cells, cap = models[kind]
        for t, fl in fls.items():
            for combo in choices(fl, kind, cells, nd):
                n[t, h, combo] = pulp.LpVariable(
                    "n_%s_%d_%s" % (t.replace(".", "_"), h, "_".join(map(str, combo)) or "x"),
                    lowBound=0, cat="Integer")
        # placement's inventory of the node
        for cls, c in cap.items():
            terms = [v * fls[t].res.get(cls, 0) for (t, hh, _), v in n.items()
                     if hh == h and fls[t].res.get(cls, 0)]
            if terms:
                prob += pulp.lpSum(terms) <= c
        # the NUMA cells
        for ci, cl in enumerate(cells):
            on = [(fls[t], v) for (t, hh, combo), v in n.items() if hh == h and ci in combo]
            ded = [v * fl.cell_vcpus * (cl.threads if fl.isolate else 1)
                   for fl, v in on if fl.dedicated]
            if ded:
                prob += pulp.lpSum(ded) <= cl.ded
            iso = [v * fl.cell_vcpus for fl, v in on if fl.isolate]
            if iso:
                prob += pulp.lpSum(iso) <= cl.whole_cores
            sh = [v * fl.cell_vcpus for fl, v in on if not fl.dedicated]
            if sh:
                prob += pulp.lpSum(sh) <= int(cl.shared * LIMITS["cpu_allocation_ratio"])
            hp = [v * (fl.cell_mem // 1024) for fl, v in on if fl.huge]
            if hp:
                prob += pulp.lpSum(hp) <= cl.huge
            sm = [v * fl.cell_mem for fl, v in on if not fl.huge]
            if sm:
                prob += pulp.lpSum(sm) <= cl.small_mb
            shm = [v * fl.cell_mem for fl, v in on if not fl.dedicated and not fl.huge]
            if shm:
                prob += pulp.lpSum(shm) <= int(cl.memory * LIMITS["ram_allocation_ratio"])
    for t in fls:
        prob += (pulp.lpSum(v for (tt, _, _), v in n.items() if tt == t)
                 == pulp.lpSum(y[k] for k in range(len(seq)) if seq[k] == t))
    return prob, y, n


def solver_available():
    import importlib.util
    if importlib.util.find_spec("pulp") is None:
        return False
    return shutil.which(CBC) is not None or shutil.which("cbc") is not None


def optimum(kinds, seq, time_limit=60):
    """The longest prefix of seq that the fleet takes all together, by the
    ILP of doc/stranding.md.  Returns (length, {(flavor, host, cells):
    count}, seconds, proven): proven False when cbc stopped at the time
    limit (the length is then feasible but perhaps not the longest)."""
    import pulp
    prob, y, n = _build(kinds, seq)
    t0 = time.monotonic()
    path = CBC if shutil.which(CBC) else shutil.which("cbc")
    status = prob.solve(pulp.COIN_CMD(path=path, msg=0, timeLimit=time_limit, threads=1))
    secs = time.monotonic() - t0
    length = int(round(sum(v.value() or 0 for v in y)))
    sol = {key: int(round(v.value() or 0)) for key, v in n.items() if (v.value() or 0) > 0.5}
    proven = pulp.LpStatus[status] == "Optimal" and prob.sol_status == pulp.LpSolutionOptimal
    return length, sol, secs, proven


def optimum_prefix(kinds, seq_fn, start, time_limit=60):
    """optimum() over a sequence long enough: seq_fn(n) gives the first n
    arrivals; n doubles while the whole sequence fits."""
    n = max(8, start)
    total = 0.0
    while True:
        seq = seq_fn(n)
        length, sol, secs, proven = optimum(kinds, seq, time_limit)
        total += secs
        if length < n:
            return length, sol, total, proven, seq
        n *= 2


# ------------------------------------------------------------------ checks

def realize(kinds, seq, length, sol, tries=200, seed=0):
    """Whether numafit's own fit and claim place the ILP's solution: per
    host, its instances in some order (the ILP's harder ones first, then
    random orders) with spread or pack; True when every host takes its
    share (the optimum is then achieved, not only bounded)."""
    fls = _flavors(seq[:length])
    rng = random.Random(seed)
    rank = {t: (not fl.isolate, fl.nodes == 1, not fl.huge, not fl.dedicated, -fl.flavor["vcpus"])
            for t, fl in fls.items()}
    for h, kind in enumerate(kinds):
        items = sorted([t for (t, hh, _), c in sol.items() if hh == h for _ in range(c)],
                       key=lambda t: rank[t])
        done = False
        for attempt in range(tries):
            order = list(items)
            if attempt >= 2:
                rng.shuffle(order)
            strategy = "pack" if attempt % 2 else "spread"
            nd = Node(kind)
            if all(nd.try_place(fls[t], strategy)[0] for t in order):
                done = True
                break
        if not done:
            return False
    return True


def brute_force(kinds, seq, limit=200000):
    """The longest prefix of seq that numafit itself can place: every order
    of the prefix's instances, every host, numafit's spread and pack (with
    memo on the fleet's state).  Tiny cases only; raises RuntimeError past
    `limit` search nodes."""
    fls = _flavors(seq)
    names = sorted(fls)
    seen = set()
    count = [0]

    def feasible(nodes, remaining):
        if not any(remaining):
            return True
        key = (tuple(nd.key() for nd in nodes), tuple(remaining))
        if key in seen:
            return False
        count[0] += 1
        if count[0] > limit:
            raise RuntimeError("brute force: more than %d states" % limit)
        for ti, r in enumerate(remaining):
            if not r:
                continue
            fl = fls[names[ti]]
            for h in range(len(nodes)):
                for strategy in ("spread", "pack"):
                    trial = [nd.copy() if j == h else nd for j, nd in enumerate(nodes)]
                    if trial[h].try_place(fl, strategy)[0]:
                        rem = list(remaining)
                        rem[ti] -= 1
                        if feasible(trial, rem):
                            return True
        seen.add(key)
        return False

    best = 0
    for length in range(1, len(seq) + 1):
        seen.clear()
        rem = [seq[:length].count(t) for t in names]
        if not feasible([Node(k) for k in kinds], rem):
            break
        best = length
    return best
