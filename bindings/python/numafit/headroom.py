"""numafit.headroom: rank hosts by what placing an instance would strand
(issue 16; doc/headroom.md).  Not nova's; the core of
numafit.scheduler.NumafitHeadroomWeigher, usable without nova (the
stranding bench uses it as its host choice).

    mix = [MixFlavor(request, weight, resources), ...]
    costs = stranding_costs([(host, inventory), ...], request, resources, mix,
                            options=numafit.Options(limits, strategy="headroom", mix=...))

For each candidate host: the mix's capacity on the host (per flavor, how
many instances still fit, each alone, at most numafit.fit.HEADROOM_CAP:
numafit_host_headroom() for the NUMA fit, and the placement inventory's
free amounts when an inventory is given or the flavor has no NUMA
topology), before and after placing the instance (fitted with the
options' strategy and claimed on copies).  The cost of the host is the
sum over the mix of weight x (capacity lost on this host) / (the flavor's
capacity over all the candidates, at least 1): capacity lost where that
flavor is scarce costs the most.  Lower is better; None where the
instance does not fit.
"""
import collections
import copy

from .fit import HEADROOM_CAP, headroom as _headroom

MixFlavor = collections.namedtuple("MixFlavor", "request weight resources")
MixFlavor.__doc__ = """request: numafit.Request; weight: its share of the
arrivals (>= 0); resources: numafit.resources_from_flavor() of its flavor,
or None (then the inventory is not counted for it)."""


def _inventory_count(inv, resources, cap):
    """How many times the resources fit in the inventory's free amounts
    ((total - reserved) x allocation_ratio - used per class), at most cap."""
    n = cap
    for cls, amount in resources.items():
        if not amount:
            continue
        try:
            r = inv[cls]
        except (KeyError, LookupError):
            return 0
        free = (r["total"] - r["reserved"]) * r["allocation_ratio"] - inv.used(cls)
        n = min(n, max(0, int(free // amount)))
    return n


def capacity(host, inventory, mix, options):
    """The counts of each mix flavor that still fit on host (and in the
    inventory, when not None), at most HEADROOM_CAP each."""
    cap = HEADROOM_CAP
    numa = [m for m in mix if m.request.has_numa]
    counts = {}
    if numa:
        got = _headroom(host, options)
        for m, c in zip(numa, got):
            counts[id(m)] = c
    out = []
    for m in mix:
        c = counts.get(id(m), cap)
        if inventory is not None and m.resources is not None:
            c = min(c, _inventory_count(inventory, m.resources, cap))
        out.append(c)
    return out


def change(host, inventory, request, resources, mix, options, place=None, before=None):
    """(before, after): the mix's capacity() on the candidate before and
    after placing request (fitted with the options' strategy and claimed
    on copies of host and inventory); after is None where it does not
    fit.  place(host, inventory, request, resources, options) -> bool
    replaces the default fit and claim (numafit.node_fit with claim, or
    Host.try_fit_and_claim without an inventory)."""
    from .inventory import node_fit
    if before is None:
        before = capacity(host, inventory, mix, options)
    h2 = copy.copy(host)
    i2 = copy.copy(inventory) if inventory is not None else None
    if place is not None:
        ok = place(h2, i2, request, resources, options)
    elif i2 is not None:
        ok = node_fit(h2, i2, request, resources, limits=options, claim=True).code == 0
    else:
        ok = h2.try_fit_and_claim(request, limits=options).placement is not None
    return before, capacity(h2, i2, mix, options) if ok else None


def costs(changes, mix):
    """The costs of the candidates' change() results (None where the
    instance does not fit): sum over the mix of weight (as a share of all
    the weights) x capacity lost on the candidate / the flavor's capacity
    over all the candidates before (at least 1)."""
    total = sum(max(0.0, float(m.weight)) for m in mix) or 1.0
    scarcity = [max(1, sum(b[i] for b, _ in changes)) for i in range(len(mix))]
    out = []
    for b, a in changes:
        if a is None:
            out.append(None)
            continue
        out.append(sum(max(0.0, float(m.weight)) / total * max(0, b[i] - a[i]) / scarcity[i]
                       for i, m in enumerate(mix)))
    return out


def check_options(options, mix):
    """options' mix must be the NUMA flavors of mix, in order (the counts
    use it)."""
    if tuple(options._mix) != tuple(m.request for m in mix if m.request.has_numa):
        raise ValueError("numafit: the options' mix must be the NUMA flavors of mix, in order")


def stranding_costs(candidates, request, resources, mix, options, place=None, before=None):
    """The cost of placing request on each candidate (host, inventory or
    None): see the module's docstring.  options: a numafit.Options whose
    mix holds the NUMA flavors of `mix` (check_options()) and whose
    strategy places the instance (headroom, normally); place: as for
    change(); before: the candidates' capacity() when the caller keeps it
    (else computed)."""
    check_options(options, mix)
    before = before or [None] * len(candidates)
    return costs([change(h, i, request, resources, mix, options, place, b)
                  for (h, i), b in zip(candidates, before)], mix)
