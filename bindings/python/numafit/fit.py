"""numafit.fit(): fit a request onto a host, nova's numa_fit_instance_to_host.

    placement = numafit.fit(host, request)        # Placement, or None: no fit
    result = numafit.try_fit(host, request)       # FitResult: placement + reason
    why = numafit.explain(host, request)          # per host cell, per guest cell

fit() returns None when the request does not fit; the reason is then on
try_fit()'s FitResult (code, code_name, cell, text) and, per cell, in
explain()'s dict.  Real errors (bad arguments, the work budget exceeded)
raise numafit.errors exceptions.
"""
import collections
import errno
import json
from ctypes import byref, c_double, c_int64, c_uint64

from . import _ffi, errors
from .request import profile_number

STRATEGIES = {"spread": 0, "pack": 1, "headroom": 2}
# NUMAFIT_HEADROOM_CAP: the most instances of one mix flavor headroom() counts
HEADROOM_CAP = 16

FitResult = collections.namedtuple("FitResult", "placement code code_name cell text")
FitResult.__doc__ = """placement: Placement or None (no fit); code: enum
numafit_error_code of the reason (0 when it fits), code_name ("NOFIT_CPU"...),
cell: host cell concerned or -1, text: one line."""


class Options(_ffi.Owned):
    """numafit_options_t: profile, strategy, limits, budget (None: the
    library's default, NUMAFIT_BUDGET_DEFAULT = 10 million steps; 0:
    unlimited; at most 2**64 - 1 steps).

    strategy: "spread" (nova's default), "pack", or "headroom" (not
    nova's, opt-in: the placement that leaves the host most able to take
    further instances; doc/headroom.md).  mix: the flavor mix headroom
    keeps room for, as (Request, weight) pairs or a {Request: weight}
    dict; each Request needs a NUMA topology and must stay open while the
    options are used (the options borrow it; they keep a reference)."""
    _free = "options_free"

    def __init__(self, limits=None, profile="latest", strategy="spread", budget=None, mix=None):
        h = _ffi.OptionsP()
        _ffi.options_new(byref(h))
        self._h = h  # not shared yet: set up without the lock
        self._mix = ()
        try:
            _ffi.options_set_profile(h, profile_number(profile))
            if strategy not in STRATEGIES:
                raise ValueError("numafit: unknown strategy %r (spread, pack, headroom)"
                                 % (strategy,))
            _ffi.options_set_strategy(h, STRATEGIES[strategy])
            if mix is not None:
                self._set_mix(h, mix)
            if limits is not None:
                txt = limits if isinstance(limits, (str, bytes)) else json.dumps(limits)
                b, n = _ffi.cbuf(txt, "limits")
                err = _ffi.Error()
                _ffi.options_set_limits_json(h, b, n, byref(err))
            if budget is not None:
                _ffi.options_set_budget(h, _ffi.cint(budget, "budget", c_uint64))
        except BaseException:
            self.close()
            raise


    def _set_mix(self, h, mix):
        from .request import Request
        items = list(mix.items()) if isinstance(mix, dict) else list(mix)
        reqs, weights = [], []
        for item in items:
            try:
                r, w = item
            except (TypeError, ValueError):
                raise TypeError("numafit: mix items are (Request, weight) pairs") from None
            if not isinstance(r, Request):
                raise TypeError("numafit: a mix request must be a numafit.Request, not %s"
                                % type(r).__name__)
            if isinstance(w, bool) or not isinstance(w, (int, float)):
                raise TypeError("numafit: a mix weight must be a number, not %s"
                                % type(w).__name__)
            reqs.append(r)
            weights.append(float(w))
        n = len(reqs)
        with _ffi.hold(*reqs) as handles:
            arr = (_ffi.RequestP * max(n, 1))(*handles)
            ws = (c_double * max(n, 1))(*weights)
            _ffi.options_set_headroom_mix(h, arr, ws, n, byref(_ffi.Error()))
        self._mix = tuple(reqs)  # borrowed by the library: kept alive here

    def _copy(self):
        """A private copy (numafit_options_dup: the same limits, profile,
        strategy, budget and mix, which it borrows too)."""
        h = _ffi.OptionsP()
        with _ffi.hold(self) as (src,):
            _ffi.options_dup(src, byref(h))
        c = Options.__new__(Options)
        c._h = h
        c._mix = self._mix
        return c

    @property
    def mix_size(self):
        """The number of flavors in the headroom mix (0: none)."""
        with _ffi.hold(self) as (h,):
            return _ffi.options_get_headroom_mix_count(h)


def headroom(host, mix, limits=None, profile="latest", budget=None):
    """numafit_host_headroom(): for each (Request, weight) of mix (or an
    Options object with a mix, given as mix), how many instances of it
    still fit on the host, each alone, fitted and claimed one after the
    other on a copy, at most HEADROOM_CAP.  The host is not changed.
    Returns the list of counts, in the mix's order."""
    from .host import Host
    if not isinstance(host, Host):
        raise TypeError("numafit: expected a numafit.Host, not %s" % type(host).__name__)
    own = not isinstance(mix, Options)
    opt = Options(limits, profile, "spread", budget, mix=mix) if own else mix
    try:
        n = len(opt._mix)
        counts = (c_uint64 * max(n, 1))()
        with _ffi.hold(host, opt) as (h, o):
            _ffi.host_headroom(h, o, 0, counts, n, byref(_ffi.Error()))
    finally:
        if own:
            opt.close()
    return list(counts)[:n]


def _options(limits, profile, strategy, budget, pci=(None, None)):
    if isinstance(limits, Options):
        if pci != (None, None):
            # the fit sets the devices on its options: on a private copy,
            # never on the caller's Options object, which other threads may
            # be using
            return limits._copy(), True
        return limits, False
    return Options(limits, profile, strategy, budget), True


def _check_pci(pools, requests):
    from .pci import PciPools, PciRequests
    if pools is not None and not isinstance(pools, PciPools):
        raise TypeError("numafit: pci_pools must be a numafit.PciPools, not %s"
                        % type(pools).__name__)
    if requests is not None and not isinstance(requests, PciRequests):
        raise TypeError("numafit: pci_requests must be a numafit.PciRequests, not %s"
                        % type(requests).__name__)
    return pools, requests


def _claim_pci(h, p, pools, requests, zed=False):
    """Take the devices of the claimed placement p from the pools (pools,
    requests: handles, held; zed: Zed's rules), or release p again and
    raise."""
    cells = [_ffi.placement_get_host_cell(p, i)
             for i in range(_ffi.placement_get_cell_count(p))]
    arr = (c_int64 * len(cells))(*cells)
    try:
        _ffi.pci_apply_flags(pools, h, requests, arr, len(cells), 1 if zed else 0,
                             byref(_ffi.Error()))
    except BaseException:
        _ffi.host_release(h, p, 0, byref(_ffi.Error()))
        raise


def _check_args(host, request):
    from .host import Host
    from .request import Request
    if not isinstance(host, Host):
        raise TypeError("numafit: expected a numafit.Host, not %s" % type(host).__name__)
    if not isinstance(request, Request):
        raise TypeError("numafit: expected a numafit.Request, not %s" % type(request).__name__)


def _try_fit(host, request, limits, profile, strategy, budget, claim=False, pci_pools=None,
             pci_requests=None):
    """numafit_fit under the host's lock: shared, or with claim=True
    exclusive across the fit and numafit_host_claim of its placement, so
    that no other claim comes in between (Host.fit_and_claim).  With
    pci_pools and claim=True the pools' lock is exclusive too and the
    devices are taken with the claim (numafit_pci_apply), all or nothing."""
    from .placement import Placement
    _check_args(host, request)
    pools, reqs = _check_pci(pci_pools, pci_requests)
    opt, own = _options(limits, profile, strategy, budget, (pools, reqs))
    writers = (host, pools) if claim and pools is not None else host if claim else None
    try:
        p, err = _ffi.PlacementP(), _ffi.Error()
        with _ffi.hold(host, request, opt, pools, reqs, write=writers) as (h, r, o, ph, qh):
            if pools is not None or reqs is not None:
                _ffi.options_set_pci(o, ph, qh)
            rc = _ffi.fit(h, r, o, 0, byref(p), byref(err))
            if rc == 1:
                placement = Placement(p)
                if claim:
                    _ffi.host_claim(h, p, 0, byref(_ffi.Error()))
                    if ph and qh and _ffi.pci_requests_get_count(qh) > 0:
                        _claim_pci(h, p, ph, qh, profile_number(profile) == 1)
    finally:
        if own:
            opt.close()
    return _result(rc, placement if rc == 1 else None, err)


def _result(rc, placement, err):
    """The FitResult of a fit's return value rc (1: it fits, with
    placement) and its numafit_error_t."""
    if rc == 1:
        return FitResult(placement, 0, "OK", -1, "")
    name = _ffi.error_code_name(err.code)
    return FitResult(None, err.code, name.decode() if name else "", err.cell,
                     err.text.decode("utf-8", "replace"))


def try_fit(host, request, limits=None, profile="latest", strategy="spread", budget=None,
            pci_pools=None, pci_requests=None):
    """Fit and say why not.  limits: nova's NUMATopologyLimits as a dict
    ({"cpu_allocation_ratio", "ram_allocation_ratio", "network_metadata"}),
    its primitive, JSON text, an Options object, or None (no limits).
    pci_pools (numafit.PciPools, nova's pci_stats) and pci_requests
    (numafit.PciRequests): the devices, as nova's numa_fit_instance_to_host
    takes them (numafit_options_set_pci); code_name "NOFIT_PCI" when the
    devices are what is missing."""
    return _try_fit(host, request, limits, profile, strategy, budget, pci_pools=pci_pools,
                    pci_requests=pci_requests)


def fit(host, request, limits=None, profile="latest", strategy="spread", budget=None,
        pci_pools=None, pci_requests=None):
    """The Placement, or None when the request does not fit (see try_fit
    and explain for the reason).  To claim it, prefer
    host.fit_and_claim(): another thread may claim in between."""
    return _try_fit(host, request, limits, profile, strategy, budget, pci_pools=pci_pools,
                    pci_requests=pci_requests).placement


def explain(host, request, limits=None, profile="latest", strategy="spread", budget=None,
            pci_pools=None, pci_requests=None):
    """numafit_fit_explain(): {"fits", "reason", "text", "cells": [{"id",
    "guest_cells": [{"guest", "fits", "reason", "text"}]}]}."""
    _check_args(host, request)
    pools, reqs = _check_pci(pci_pools, pci_requests)
    opt, own = _options(limits, profile, strategy, budget, (pools, reqs))
    try:
        with _ffi.hold(host, request, opt, pools, reqs) as (h, r, o, ph, qh):
            if pools is not None or reqs is not None:
                _ffi.options_set_pci(o, ph, qh)
            txt = _ffi.call_str(_ffi.fit_explain, h, r, o, 0)
    finally:
        if own:
            opt.close()
    return json.loads(txt)


def plan(host, request, limits=None, profile="latest", strategy="spread", max_count=None,
         budget=None, pci_pools=None, pci_requests=None):
    """Fit and claim the same request on `host` (changed in place) until it
    no longer fits, or max_count placed; returns the list of placements.
    One Host.fill() (numafit_host_fill), under the host's writer lock for
    the whole fill, so several threads may plan on one host at once.  A fit
    that exceeds its work budget raises, as fit() does; the claims made
    before it stay.  With pci_pools and pci_requests every instance takes
    its devices (from a copy: pci_pools is not changed) until they run
    out."""
    _check_args(host, request)
    res = host.fill(request, limits, profile, strategy, max_count, budget, keep=True,
                    pci_pools=pci_pools, pci_requests=pci_requests)
    if res.code_name == "TOO_COMPLEX":
        raise errors.from_rc(-errno.E2BIG, {"code": res.code, "cell": res.cell,
                                             "text": res.text}, "numafit_fit")
    return res.placements
