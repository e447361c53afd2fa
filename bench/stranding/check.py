#!/usr/bin/python3
"""make check's test of the stranding bench (tests/stranding.test): small
cases of bench/stranding/ with invariants, no timings.

- every instance the online baselines and the new strategy (headroom:
  numafit.headroom's host choice and numafit's headroom cells) place is
  claimable on a fresh copy of its host (the claims replayed one by one);
- the new strategy places at least as many as pack and at least as many
  as spread on these cases, and never more than the optimum;
- the optimum (ILP) is at least each baseline's count, on 4 seed-like
  hosts, 3 seeds, every mix, and numafit places the ILP's solution;
- on tiny fleets the ILP optimum equals the brute force over numafit's own
  fit and claim (every order, host and strategy), and numafit realizes the
  ILP's solution.

Exit 0 on success, 1 on failure, 77 without python3-pulp or coinor-cbc.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import stranding as S  # noqa: E402

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what)


def main():
    if not S.solver_available():
        print("python3-pulp or coinor-cbc missing: skip")
        return 77
    import numafit

    # 1. baselines: counts below the optimum, every claim replays
    kinds = S.fleet("mixed", 4)
    for mix in ("rt-shared", "nfv", "mixed"):
        for seed in range(3):
            seq = S.arrivals(mix, 400, seed)
            counts = {}
            for strategy in ("spread", "pack", "headroom"):
                rec = []
                if strategy == "headroom":
                    counts[strategy] = S.online_headroom(kinds, seq, mix, rec)
                else:
                    counts[strategy] = S.online(kinds, seq, strategy, rec)
                check(0 < counts[strategy] < len(seq), "%s/%d %s: count %d" % (
                    mix, seed, strategy, counts[strategy]))
                check(len(rec) == counts[strategy], "%s/%d %s: record" % (mix, seed, strategy))
                nodes = [S.Node(k) for k in kinds]
                fls = S._flavors(seq)
                for i, h, p in rec:
                    fl = fls[seq[i]]
                    try:
                        numafit.node_claim(nodes[h].host, nodes[h].inv,
                                           p, fl.res)
                    except numafit.errors.NumafitError as e:
                        check(False, "%s/%d %s: instance %d (%s) not claimable on host %d: %s"
                              % (mix, seed, strategy, i, seq[i], h, e))
                        break
            opt, sol, secs, proven, oseq = S.optimum_prefix(
                kinds, lambda n, mix=mix, seed=seed: S.arrivals(mix, n, seed),
                2 * max(counts.values()) + 8)
            check(proven, "%s/%d: ILP not proven optimal" % (mix, seed))
            check(opt >= max(counts.values()),
                  "%s/%d: optimum %d < spread %d, pack %d or headroom %d" % (
                      mix, seed, opt, counts["spread"], counts["pack"], counts["headroom"]))
            check(counts["headroom"] >= max(counts["spread"], counts["pack"]),
                  "%s/%d: headroom %d below spread %d or pack %d" % (
                      mix, seed, counts["headroom"], counts["spread"], counts["pack"]))
            check(sum(sol.values()) == opt, "%s/%d: solution of %d instances, optimum %d" % (
                mix, seed, sum(sol.values()), opt))
            # the relaxed rules (doc/stranding.md) must not show here: numafit
            # places the program's solution, so the optimum is achievable
            check(S.realize(kinds, oseq, opt, sol), "%s/%d: optimum %d not realized by numafit"
                  % (mix, seed, opt))
            print("%-9s seed %d: spread %3d pack %3d headroom %3d optimum %3d" % (
                mix, seed, counts["spread"], counts["pack"], counts["headroom"], opt))

    # 2. tiny fleets: ILP == brute force over numafit's own fit and claim
    agree = 0
    cases = [(["tiny"], 0, 9), (["tiny-ht"], 1, 9), (["tiny", "tiny-ht"], 3, 14)]
    for kinds, seed, n in cases:
        seq = S.arrivals("tiny", n, seed)
        brute = S.brute_force(kinds, seq)
        opt, sol, secs, proven = S.optimum(kinds, seq)
        check(opt < len(seq), "%s seed %d: the whole sequence fits" % (kinds, seed))
        check(opt >= brute, "%s seed %d: ILP %d below brute force %d" % (kinds, seed, opt, brute))
        check(opt == brute, "%s seed %d: ILP %d, brute force %d" % (kinds, seed, opt, brute))
        check(S.realize(kinds, seq, opt, sol), "%s seed %d: ILP solution not realized" % (
            kinds, seed))
        agree += opt == brute
        print("tiny %-18s seed %d: brute force %2d, ILP %2d (%s)" % (
            "+".join(kinds), seed, brute, opt, " ".join(seq)))
    print("%d of %d tiny cases agree; %d failures" % (agree, len(cases), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
