#!/bin/bash
# Total the fuzzing campaign log (tests/fuzz/campaign.txt, written by
# FUZZ_LOG=... scripts/fuzz.sh) per target: runs, CPU hours, executions, the
# rate, the best coverage, the findings, and whether the target has had the
# campaign it needs: 10 million executions, or, for a target slower than
# 1,000 executions per CPU second, 2 CPU hours.
#
#   scripts/fuzz-campaign.sh [--since DATE] [LOG]
#
# --since counts only the runs logged at or after DATE (the log's format,
# e.g. 2026-12-01T09:30Z): the runs on code a later change replaced do not
# count for it. Per target, tests/fuzz/campaign-since.txt (lines "TARGET
# DATE why") does the same for the targets whose code changed: a run counts
# when it is at or after both dates.
#
# Prints a Markdown table (doc/fuzzing.md keeps the last one). Exit status 0
# when every target of tests/fuzz is done and none has a finding, 1 if not.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
since=
if [ "${1:-}" = --since ]; then
    since=${2:?--since needs a date}
    shift 2
fi
log=${1:-$top/tests/fuzz/campaign.txt}
since_file=$top/tests/fuzz/campaign-since.txt
[ -r "$since_file" ] || since_file=/dev/null
[ -r "$log" ] || { echo "fuzz-campaign.sh: cannot read $log" >&2; exit 1; }
targets=$(cd "$top/tests/fuzz" && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//')

awk -v targets="$targets" -v since="$since" '
    FNR == NR { if ($0 !~ /^#/ && NF >= 2) tsince[$1] = $2; next }
    /^#/ || NF < 11 || $1 < since || ($3 in tsince && $1 < tsince[$3]) { next }
    {
        t = $3; runs[t]++; cpu[t] += $5; ex[t] += $6
        if ($7 > cov[t]) cov[t] = $7
        if ($8 > ft[t]) ft[t] = $8
        find[t] += $11; last[t] = $10
        if (!(t in first)) first[t] = $1
        end[t] = $1
    }
    END {
        n = split(targets, ts, /[ \n]+/)
        print "| target | runs | CPU h | executions | exec/CPU s | cov | ft | corpus | findings | done |"
        print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
        ok = 1
        for (i = 1; i <= n; i++) {
            t = ts[i]
            if (t == "") continue
            rate = cpu[t] > 0 ? ex[t] / cpu[t] : 0
            done = (ex[t] >= 10000000 || (rate < 1000 && cpu[t] >= 7200)) && find[t] == 0
            if (!done) ok = 0
            printf "| %s | %d | %.2f | %\047d | %\047d | %d | %d | %d | %d | %s |\n", t, runs[t],
                cpu[t] / 3600, ex[t], rate, cov[t], ft[t], last[t], find[t],
                done ? "yes" : (find[t] ? "no: findings" : "no")
        }
        exit ok ? 0 : 1
    }' "$since_file" "$log"
