#!/usr/bin/python3
"""numafit against nova on the same scenario sets: the table of medians.

    /usr/bin/python3 bench/compare.py --numafit PATH/tools/numafit/numafit \
        --fleet PATH/bench/fleet [--out DIR] [--full-limit S] [--timeout S]
        [--mix-count N] [--fleet-sample N] [--runs N]

(`make bench` runs it with the built programs.)  Steps:

 1. bench/gen_scenarios.py writes the sets to DIR (default ./bench-data):
    mix.jsonl, manycell.jsonl (+ .meta.jsonl labels) and fleet.json;
 2. `numafit bench --json` on mix.jsonl (--runs times, default 3, the
    per-scenario median kept), and on each manycell line alone
    (a line still running after --timeout seconds, default 30, is reported
    as such: "> 30 s");
 3. bench/nova_bench.py on the same files: nova's own
    numa_fit_instance_to_host (semantics "nova"), and on manycell also
    nova's intended semantics (semantics "reference", plain nova gives false
    fits there); a full nova call estimated over --full-limit seconds
    (default 5 here, to keep `make bench` to a few minutes; the issue's
    threshold is 60) is extrapolated from nova's per-permutation cost;
 4. bench/fleet (10,000 hosts; --runs times, the median fill kept) and
    bench/nova_fleet.py (--fleet-sample
    hosts, default 20, extrapolated to 10,000);
 5. prints the table (Markdown) and the issue's targets, and writes every
    raw answer to DIR/results.json.

All timings are sequential (never two benchmarks at once).
"""
import argparse
import collections
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"


def run(cmd, timeout=None, stdin=None):
    t0 = time.time()
    p = subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=timeout)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        raise SystemExit("compare: %s failed (exit %d)" % (" ".join(cmd[:3]), p.returncode))
    log("  %s: %.1f s" % (os.path.basename(cmd[1] if cmd[0] == PY else cmd[0]),
                          time.time() - t0))
    return p.stdout


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def lines_of(text):
    """The per-scenario answers (without the final total line)."""
    rows = [json.loads(x) for x in text.splitlines() if x.strip()]
    if rows and "total_fit_ns" in rows[-1]:
        rows = rows[:-1]
    return rows


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(x) for x in f if x.strip()]


def fmt_ns(ns):
    if ns is None:
        return "-"
    if ns < 1e4:
        return "%d ns" % ns
    if ns < 1e6:
        return "%.1f us" % (ns / 1e3)
    if ns < 1e10:
        return "%.1f ms" % (ns / 1e6)
    s = ns / 1e9
    if s < 3600 * 3:
        return "%.1f s" % s
    if s < 86400 * 3:
        return "%.1f h" % (s / 3600)
    if s < 86400 * 365 * 3:
        return "%.0f days" % (s / 86400)
    return "%.0f years" % (s / 86400 / 365)


def fmt_ratio(r):
    if r is None:
        return "-"
    if r >= 1e6:
        return "%.1e" % r
    if r >= 100:
        return "%.0f" % r
    return "%.1f" % r


def median(xs):
    return statistics.median(xs) if xs else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--numafit", required=True, help="the built tools/numafit/numafit")
    ap.add_argument("--fleet", required=True, help="the built bench/fleet")
    ap.add_argument("--out", default="bench-data")
    ap.add_argument("--full-limit", type=float, default=5.0)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--mix-count", type=int, default=1000)
    ap.add_argument("--fleet-sample", type=int, default=20)
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--runs", type=int, default=3,
                    help="numafit runs of the mix and the fleet (median kept; default 3)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    out = args.out
    t_start = time.time()
    res = {"started": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "machine": {}}

    cpu = "?"
    try:
        for ln in open("/proc/cpuinfo"):
            if ln.startswith("model name"):
                cpu = ln.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        import nova.version
        nova_version = nova.version.version_string()
    except Exception:
        nova_version = "?"
    def loadavg():
        try:
            return open("/proc/loadavg").read().split()[0]
        except OSError:
            return "?"
    load_start = loadavg()
    res["machine"] = {"cpu": cpu, "cpus": os.cpu_count(), "kernel": platform.release(),
                      "python": platform.python_version(), "nova": nova_version}

    log("compare: generating scenarios in %s" % out)
    run([PY, os.path.join(HERE, "gen_scenarios.py"), "--out", out, "--seed", str(args.seed),
         "--mix-count", str(args.mix_count)])
    mix = os.path.join(out, "mix.jsonl")
    many = os.path.join(out, "manycell.jsonl")
    fleet_params = os.path.join(out, "fleet.json")
    mix_meta = read_jsonl(os.path.join(out, "mix.meta.jsonl"))
    many_meta = read_jsonl(os.path.join(out, "manycell.meta.jsonl"))

    # ---------------------------------------------------------------- numafit
    log("compare: numafit bench (mix), %d runs" % args.runs)
    runs = [lines_of(run([args.numafit, "bench", "--json", mix])) for _ in range(args.runs)]
    nf_mix = []
    for answers in zip(*runs):  # per scenario: the median of the runs
        if all("fit_ns" in a for a in answers):
            a = dict(answers[0])
            a["fit_ns"] = int(statistics.median(x["fit_ns"] for x in answers))
            a["runs_ns"] = [x["fit_ns"] for x in answers]
            nf_mix.append(a)
        else:
            nf_mix.append(answers[0])
    log("compare: numafit bench (manycell, one line at a time, timeout %g s)" % args.timeout)
    nf_many = []
    with open(many) as f:
        for i, text in enumerate(f):
            m = many_meta[i]
            try:
                t0 = time.time()
                p = subprocess.run([args.numafit, "bench", "--json", "-"], input=text,
                                   stdout=subprocess.PIPE, text=True, timeout=args.timeout)
                ans = lines_of(p.stdout)[0]
                log("  %dx%d %s: %s (%.1f s)" % (m["host_cells"], m["guest_cells"], m["kind"],
                                                 json.dumps(ans), time.time() - t0))
            except subprocess.TimeoutExpired:
                ans = {"timeout_s": args.timeout}
                log("  %dx%d %s: timed out after %g s" % (m["host_cells"], m["guest_cells"],
                                                          m["kind"], args.timeout))
            nf_many.append(ans)
    log("compare: bench/fleet, %d runs" % args.runs)
    fleets = [json.loads(run([args.fleet, "--params", fleet_params, "--json"]))
              for _ in range(args.runs)]
    fleets.sort(key=lambda x: x["fill_ns"])
    nf_fleet = dict(fleets[len(fleets) // 2])  # the median fill
    nf_fleet["runs_fill_ns"] = [x["fill_ns"] for x in fleets]
    host_json = os.path.join(out, "fleet-host.json")
    with open(host_json, "w") as f:
        f.write(run([args.fleet, "--params", fleet_params, "--dump-host"]))

    def median_runs(path):
        runs = [lines_of(run([args.numafit, "bench", "--json", path])) for _ in range(args.runs)]
        return [dict(r[0], fit_ns=int(statistics.median(x["fit_ns"] for x in r)))
                if all("fit_ns" in x for x in r) else r[0] for r in zip(*runs)]
    log("compare: numafit bench (PCI mix, and the same lines without devices)")
    pcimix = os.path.join(out, "pcimix.jsonl")
    nf_pci = median_runs(pcimix)
    nf_nopci = median_runs(os.path.join(out, "pcimix-nopci.jsonl"))

    # ---------------------------------------------------------------- nova
    nb = os.path.join(HERE, "nova_bench.py")
    log("compare: nova (PCI mix)")
    nv_pci = lines_of(run([PY, nb, pcimix, "--full-limit", str(args.full_limit)]))
    log("compare: nova (mix)")
    nv_mix = lines_of(run([PY, nb, mix, "--full-limit", str(args.full_limit)]))
    log("compare: nova (manycell, plain nova)")
    nv_many = lines_of(run([PY, nb, many, "--full-limit", str(args.full_limit)]))
    log("compare: nova (manycell, nova's intended semantics)")
    nv_many_ref = lines_of(run([PY, nb, many, "--full-limit", str(args.full_limit),
                                "--semantics", "reference"]))
    log("compare: nova fleet (%d sample hosts)" % args.fleet_sample)
    nv_fleet = json.loads(run([PY, os.path.join(HERE, "nova_fleet.py"), "--params",
                               fleet_params, "--host", host_json, "--sample",
                               str(args.fleet_sample), "--json"]))

    res.update({"numafit": {"mix": nf_mix, "manycell": nf_many, "fleet": nf_fleet,
                            "pcimix": nf_pci, "pcimix_without_devices": nf_nopci},
                "nova": {"mix": nv_mix, "manycell": nv_many, "manycell_reference": nv_many_ref,
                         "fleet": nv_fleet, "pcimix": nv_pci},
                "meta": {"mix": mix_meta, "manycell": many_meta},
                "full_limit_s": args.full_limit, "numafit_timeout_s": args.timeout})

    # ---------------------------------------------------------------- table
    groups = collections.OrderedDict()
    groups["mix (all)"] = list(range(len(mix_meta)))
    for kind in sorted(set(m["flavor_kind"] for m in mix_meta)):
        groups["mix: " + kind] = [i for i, m in enumerate(mix_meta) if m["flavor_kind"] == kind]
    for cells in sorted(set(m["host_cells"] for m in mix_meta)):
        groups["mix: %d-cell hosts" % cells] = [i for i, m in enumerate(mix_meta)
                                               if m["host_cells"] == cells]
    mix_summary = {}
    print("## Realistic mix (%d scenarios, nova rules zed)\n" % len(mix_meta))
    print("numafit: per scenario the median of %d `numafit bench` runs; nova: per scenario"
          " the median of its calls.\n" % args.runs)
    print("| set | scenarios | numafit median | nova median | nova/numafit | answers differ |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, idx in groups.items():
        pairs = [(nf_mix[i], nv_mix[i]) for i in idx
                 if "fit_ns" in nf_mix[i] and "fit_ns" in nv_mix[i]]
        a = median([p[0]["fit_ns"] for p in pairs])
        b = median([p[1]["fit_ns"] for p in pairs])
        differ = sum(1 for p in pairs if p[0]["fits"] != p[1]["fits"])
        r = b / a if a and b else None
        print("| %s | %d | %s | %s | %s | %d |" % (name, len(pairs), fmt_ns(a), fmt_ns(b),
                                                   fmt_ratio(r), differ))
        if name == "mix (all)":
            ratios = [p[1]["fit_ns"] / p[0]["fit_ns"] for p in pairs if p[0]["fit_ns"] > 0]
            mix_summary = {
                "scenarios": len(pairs), "numafit_median_ns": a, "nova_median_ns": b,
                "ratio_of_medians": r,
                "median_of_ratios": median(ratios),
                "geomean_ratio": math.exp(sum(math.log(x) for x in ratios) / len(ratios))
                if ratios else None,
                "numafit_total_ns": sum(p[0]["fit_ns"] for p in pairs),
                "nova_total_ns": sum(p[1]["fit_ns"] for p in pairs),
                "answers_differ": differ,
                "skipped": len(idx) - len(pairs)}
    ms = mix_summary
    print("\nmix: ratio of medians %s, median of per-scenario ratios %s, geometric mean %s,"
          " ratio of totals %s; %d scenarios where plain nova's answer (fits or not) differs"
          " from numafit's (nova defects, see doc/nova-differences.md); %d lines skipped"
          " (error on either side)\n"
          % (fmt_ratio(ms["ratio_of_medians"]), fmt_ratio(ms["median_of_ratios"]),
             fmt_ratio(ms["geomean_ratio"]),
             fmt_ratio(ms["nova_total_ns"] / ms["numafit_total_ns"]
                       if ms["numafit_total_ns"] else None),
             ms["answers_differ"], ms["skipped"]))

    # the PCI mix: the fit with devices against the same fit without, and nova
    trip = [(a, b, c) for a, b, c in zip(nf_pci, nf_nopci, nv_pci)
            if "fit_ns" in a and "fit_ns" in b and "fit_ns" in c]
    if trip:
        own = sorted(a["fit_ns"] / b["fit_ns"] for a, b, _ in trip)
        print("## PCI mix (%d mix scenarios with SR-IOV VFs, PFs and GPUs, nova's"
              " pci_stats and pci_requests)\n" % len(trip))
        print("| | median | ratio |")
        print("|---|---:|---:|")
        print("| numafit, with devices | %s | %s of the same fit without devices (median of"
              " per-scenario ratios; 90th percentile %s) |"
              % (fmt_ns(median([a["fit_ns"] for a, _, _ in trip])), fmt_ratio(median(own)),
                 fmt_ratio(own[int(0.9 * (len(own) - 1))])))
        print("| numafit, without devices | %s | |" % fmt_ns(median([b["fit_ns"]
                                                                   for _, b, _ in trip])))
        print("| nova, with devices | %s | nova/numafit %s (median of ratios) |"
              % (fmt_ns(median([c["fit_ns"] for _, _, c in trip])),
                 fmt_ratio(median([c["fit_ns"] / a["fit_ns"] for a, _, c in trip]))))
        print("\nanswers differ (fits or not): %d\n"
              % sum(1 for a, _, c in trip if a["fits"] != c["fits"]))
        res["pcimix_summary"] = {"scenarios": len(trip), "own_ratio_median": median(own),
                                 "own_ratio_p90": own[int(0.9 * (len(own) - 1))]}

    print("## Many-cell hosts (one scenario each; nova rules zed)\n")
    print("| host x guest cells | kind | permutations | numafit | plain nova | plain nova's answer"
          " | nova, intended semantics | ratio (intended / numafit) |")
    print("|---|---|---:|---:|---:|---|---:|---:|")
    many_summary = []
    for i, m in enumerate(many_meta):
        a, b, c = nf_many[i], nv_many[i], nv_many_ref[i]
        a_ns = a.get("fit_ns")
        a_txt = fmt_ns(a_ns) if a_ns is not None else (
            "> %g s (timed out)" % a["timeout_s"] if "timeout_s" in a else a.get("error", "?"))
        b_txt = fmt_ns(b.get("fit_ns")) + (" (extrapolated)" if b.get("extrapolated") else "")
        c_txt = fmt_ns(c.get("fit_ns")) + (" (extrapolated)" if c.get("extrapolated") else "")
        if "fit_ns" in b:
            ans = "fits (WRONG: a false fit)" if b["fits"] and not a.get("fits", False) \
                else ("fits" if b["fits"] else "no fit")
        else:
            ans = b.get("error", "?")
        r = c["fit_ns"] / a_ns if a_ns and "fit_ns" in c else None
        print("| %dx%d | %s | %d | %s | %s | %s | %s | %s |"
              % (m["host_cells"], m["guest_cells"], m["kind"], m["permutations"], a_txt, b_txt,
                 ans, c_txt, fmt_ratio(r)))
        many_summary.append({"meta": m, "numafit": a, "nova": b, "nova_reference": c})

    print("\n## Fleet: %d hosts \"%s\", 5 flavors round-robin until full\n"
          % (nf_fleet["hosts"], json.load(open(fleet_params))["host_spec"]))
    print("| | hosts filled | instances per host | fit attempts | fill time |"
          " per fit attempt (fill time / attempts) |")
    print("|---|---:|---:|---:|---:|---:|")
    print("| numafit | %d | %.2f | %d | %s | %s |"
          % (nf_fleet["hosts"], nf_fleet["placed"] / nf_fleet["hosts"],
             nf_fleet["fit_attempts"], fmt_ns(nf_fleet["fill_ns"]),
             fmt_ns(nf_fleet["ns_per_fit_attempt"])))
    print("| nova | %d sampled, extrapolated to %d | %s | %d (sample) | %s (extrapolated) | %s |"
          % (nv_fleet["sample_hosts"], nv_fleet["hosts"],
             ",".join(map(str, nv_fleet["placed_per_host"])), nv_fleet["fit_attempts_sample"],
             fmt_ns(nv_fleet["fill_ns"]), fmt_ns(nv_fleet["ns_per_fit_attempt"])))
    print("\nfleet: numafit fill times of the %d runs: %s (the median is shown); "
          "nova/numafit %s for the fill, %s per fit"
          % (len(fleets), ", ".join(fmt_ns(x) for x in nf_fleet["runs_fill_ns"]),
             fmt_ratio(nv_fleet["fill_ns"] / nf_fleet["fill_ns"]),
             fmt_ratio(nv_fleet["ns_per_fit_attempt"] / max(1, nf_fleet["ns_per_fit_attempt"]))))

    # ---------------------------------------------------------------- targets
    print("\n## Targets (issue 3)\n")
    r = ms["ratio_of_medians"]
    print("- realistic mix >= 500x faster than nova per fit (ratio of medians): %s -> %s"
          % (fmt_ratio(r), "MET" if r and r >= 500 else "NOT MET"))
    for s in many_summary:
        m = s["meta"]
        if (m["host_cells"], m["guest_cells"]) in ((16, 8), (24, 8)):
            ns = s["numafit"].get("fit_ns")
            ok = ns is not None and ns < 5e6 and not s["numafit"].get("fits")
            print("- %dx%d %s unsatisfiable < 5 ms: %s -> %s"
                  % (m["host_cells"], m["guest_cells"], m["kind"],
                     fmt_ns(ns) if ns is not None else "> %g s (timed out)"
                     % s["numafit"].get("timeout_s", 0), "MET" if ok else "NOT MET"))
    f_ns = nf_fleet["fill_ns"]
    print("- 10,000-host fleet filled < 2 s: %s -> %s"
          % (fmt_ns(f_ns), "MET" if f_ns < 2e9 else "NOT MET"))
    print("\nmachine: %s (%s CPUs), nova %s, Python %s, %s; run took %.0f s;"
          " load average (1 min) %s at the start, %s at the end"
          % (cpu, os.cpu_count(), nova_version, platform.python_version(), res["started"],
             time.time() - t_start, load_start, loadavg()))
    res["summary"] = {"mix": ms}
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    log("compare: raw results in %s" % os.path.join(out, "results.json"))


if __name__ == "__main__":
    main()
