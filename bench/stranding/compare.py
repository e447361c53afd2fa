#!/usr/bin/python3
"""Issue 16's measuring stick: instances placed before the first refusal by
spread, pack and the new strategy (headroom), against the offline optimum
(doc/stranding.md).

    NUMAFIT_LIBRARY=libnumafit/.libs/libnumafit.so.0 PYTHONPATH=bindings/python \\
        /usr/bin/python3 bench/stranding/compare.py [--hosts N] [--seeds K]
                                                    [--mix NAME] [--fleet NAME]

For each mix and seed: a random arrival sequence, placed online with
spread and with pack (nova's RAM weigher and numafit's cell order) and
with the new strategy (numafit.headroom's host choice, the weigher
numafit.scheduler.NumafitHeadroomWeigher, and numafit's headroom cells,
both with the arrivals' mix) until the first refusal, and the longest
prefix an exact ILP (python3-pulp, coinor-cbc) places all together.  Prints, per mix, the means and the mean
of the per-seed fractions of the optimum, whether numafit itself could
place each optimum (realized), and the solver's time.
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import stranding as S  # noqa: E402


def ratio(a, b):
    """a / b, 1 when both are 0 (a fleet that takes none of the first
    arrival: every count is 0)."""
    if b == 0:
        return 1.0 if a == 0 else float("inf")
    return a / b


def run_mix(mix, kinds, seeds, time_limit, verbose):
    rows = []
    for seed in range(seeds):
        def seq_fn(n, mix=mix, seed=seed):
            return S.arrivals(mix, n, seed)
        long_seq = seq_fn(4096)
        t0 = time.monotonic()
        spread = S.online(kinds, long_seq, "spread")
        pack = S.online(kinds, long_seq, "pack")
        t_online = time.monotonic() - t0
        t0 = time.monotonic()
        new = S.online_headroom(kinds, long_seq, mix)
        t_new = time.monotonic() - t0
        if max(spread, pack, new) >= len(long_seq):
            raise SystemExit("%s: more than %d instances fit; use fewer hosts" % (mix, len(long_seq)))
        opt, sol, secs, proven, seq = S.optimum_prefix(kinds, seq_fn,
                                                       2 * max(spread, pack, new) + 8, time_limit)
        if opt < max(spread, pack, new):
            raise SystemExit("%s seed %d: optimum %d below an online count (spread %d, pack %d, "
                             "new %d)" % (mix, seed, opt, spread, pack, new))
        real = S.realize(kinds, seq, opt, sol)
        rows.append((spread, pack, opt, secs, proven, real, new, t_online / 2, t_new))
        if verbose:
            print("  %-10s seed %2d: spread %4d  pack %4d  new %4d  optimum %4d%s%s  (spread/pack "
                  "%.1f s, new %.1f s, ILP %.1f s)" % (
                      mix, seed, spread, pack, new, opt, "" if proven else " (time limit)",
                      "" if real else " (not realized)", t_online, t_new, secs))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hosts", type=int, default=6, help="hosts in the fleet (default 6)")
    ap.add_argument("--seeds", type=int, default=5, help="arrival sequences per mix (default 5)")
    ap.add_argument("--mix", action="append", choices=sorted(S.MIXES),
                    help="a flavor mix (repeatable; default every mix but tiny)")
    ap.add_argument("--fleet", default="mixed", choices=sorted(S.FLEETS),
                    help="host kinds, taken in turn (default mixed)")
    ap.add_argument("--time-limit", type=float, default=120,
                    help="seconds for one ILP (default 120)")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per seed")
    a = ap.parse_args()
    if a.hosts < 1 or a.hosts > 50 or a.seeds < 1:
        ap.error("--hosts 1..50 and --seeds >= 1")
    if not S.solver_available():
        print("python3-pulp and coinor-cbc are needed (apt-get install python3-pulp coinor-cbc)",
              file=sys.stderr)
        return 77
    mixes = a.mix or [m for m in sorted(S.MIXES) if m != "tiny"]
    kinds = S.fleet(a.fleet, a.hosts)
    print("fleet %s: %s" % (a.fleet, ", ".join("%d x %s" % (kinds.count(k), k)
                                                for k in sorted(set(kinds)))))
    print("%-10s %5s %7s %7s %7s %7s %8s %8s %8s %8s %8s %9s %7s" % (
        "mix", "seeds", "spread", "pack", "new", "optimum", "spread/", "pack/", "new/",
        "new/", "new/", "realized", "ILP s"))
    print("%-10s %5s %7s %7s %7s %7s %8s %8s %8s %8s %8s %9s %7s" % (
        "", "", "(mean)", "(mean)", "(mean)", "(mean)", "optimum", "optimum", "optimum",
        "spread", "pack", "", "(mean)"))
    for mix in mixes:
        rows = run_mix(mix, kinds, a.seeds, a.time_limit, a.verbose)
        sp = [r[0] for r in rows]
        pk = [r[1] for r in rows]
        op = [r[2] for r in rows]
        nw = [r[6] for r in rows]
        print("%-10s %5d %7.1f %7.1f %7.1f %7.1f %8.3f %8.3f %8.3f %8.3f %8.3f %6d/%-2d %7.2f%s" % (
            mix, len(rows), statistics.mean(sp), statistics.mean(pk), statistics.mean(nw),
            statistics.mean(op), statistics.mean(ratio(s, o) for s, o in zip(sp, op)),
            statistics.mean(ratio(p, o) for p, o in zip(pk, op)),
            statistics.mean(ratio(n, o) for n, o in zip(nw, op)),
            statistics.mean(ratio(n, s) for n, s in zip(nw, sp)),
            statistics.mean(ratio(n, p) for n, p in zip(nw, pk)),
            sum(r[5] for r in rows), len(rows), statistics.mean(r[3] for r in rows),
            "" if all(r[4] for r in rows) else " (time limit hit)"))
        worse = sum(1 for r in rows if r[6] < r[0])
        print("%-10s new below spread on %d of %d seeds, below pack on %d; online s per seed: "
              "spread/pack %.2f, new %.2f" % (
                  "", worse, len(rows), sum(1 for r in rows if r[6] < r[1]),
                  statistics.mean(r[7] for r in rows), statistics.mean(r[8] for r in rows)))
    print("new: numafit's headroom strategy (cells) with the headroom host weigher, the "
          "arrivals' mix as its mix (doc/headroom.md)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
