#!/bin/bash
# Build the libFuzzer targets of tests/fuzz (ASan + UBSan) and fuzz each one
# for SECONDS, one target at a time; then minimize what crashed, merge the
# new inputs that add coverage into tests/fuzz/corpus/<target>/, and print
# per target the executions, libFuzzer's coverage (cov: edges, ft:
# features) and the findings. Inputs are merged by edge coverage only, and
# only those of at most FUZZ_KEEP_MAX bytes that replay cleanly. See doc/fuzzing.md.
#
#   scripts/fuzz.sh [SECONDS [TARGET...]]     (make fuzz FUZZ_ARGS="SECONDS TARGET...")
#
# SECONDS defaults to 60; TARGET to every tests/fuzz/fuzz_*.c. Environment:
#   FUZZ_BUILD_DIR  build directory (default build-fuzz in the source tree;
#                   configured with --enable-fuzzers --enable-sanitizers
#                   CC=clang when it has no Makefile yet)
#   FUZZ_OUT_DIR    run directory (default $FUZZ_BUILD_DIR/fuzz-out): per
#                   target the working corpus, the logs, artifacts/ (what
#                   libFuzzer saved) and findings/ (minimized, one per kind)
#   FUZZ_MERGE=0    leave tests/fuzz/corpus alone
#   FUZZ_KEEP_MAX   largest new input merged, bytes (4096)
#   FUZZ_CORPUS_MAX stop merging into a corpus that has this many files (300)
#   FUZZ_TIMEOUT    libFuzzer -timeout per input, seconds (10)
#   FUZZ_JOBS       make -j (2)
#   FUZZ_FLAGS      more libFuzzer flags
#   FUZZ_LOG        append one line per target to this file (the campaign
#                   log, e.g. tests/fuzz/campaign.txt): date, commit, target,
#                   seconds, CPU seconds, executions, cov, ft, corpus
#                   before/after, findings (see scripts/fuzz-campaign.sh)
# After a crash the target is started again on its grown corpus until its
# time is used (at most 50 starts). Exit status: 0, or 1 when the build or a
# run could not be done (findings alone do not fail).
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-60}
[ $# -gt 0 ] && shift
case $secs in
    '' | *[!0-9]*)
        echo "usage: $0 [SECONDS [TARGET...]]" >&2
        exit 1
        ;;
esac
build=${FUZZ_BUILD_DIR:-$top/build-fuzz}
out=${FUZZ_OUT_DIR:-$build/fuzz-out}
keep_max=${FUZZ_KEEP_MAX:-4096}
corpus_max=${FUZZ_CORPUS_MAX:-300}
timeout=${FUZZ_TIMEOUT:-10}
jobs=${FUZZ_JOBS:-2}
flags=${FUZZ_FLAGS:-}

if [ $# -gt 0 ]; then
    targets="$*"
else
    targets=$(cd "$top/tests/fuzz" && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//')
fi

# ------------------------------------------------------------------ build
mkdir -p "$build" || exit 1
if [ ! -f "$build/Makefile" ]; then
    echo "fuzz.sh: configuring $build"
    (cd "$build" && "$top/configure" -q --enable-fuzzers --enable-sanitizers CC="${CC:-clang}") || exit 1
fi
if ! grep -q '^FUZZ_LDFLAGS = .*fuzzer' "$build/Makefile"; then
    echo "fuzz.sh: $build is not configured with --enable-fuzzers" >&2
    exit 1
fi
progs=
for t in $targets; do
    [ -f "$top/tests/fuzz/fuzz_$t.c" ] || { echo "fuzz.sh: no target $t" >&2; exit 1; }
    progs="$progs tests/fuzz/fuzz_$t tests/fuzz/replay_$t"
done
echo "fuzz.sh: building$progs"
make -C "$build" -s -j"$jobs" $progs >"$build/fuzz-build.log" 2>&1 ||
    { tail -30 "$build/fuzz-build.log"; exit 1; }

# ------------------------------------------------------------------ helpers
# What a crashing input hits, one line: the violated invariant or the
# sanitizer's report, with the first frame in the sources.
signature() { # BIN INPUT
    "$1" -runs=1 "$2" 2>&1 | awk '
        /invariant violated:/ { sub(/^.*\/tests\/fuzz\//, ""); print; exit }
        /ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)/ && !what {
            what = $0; sub(/^==[0-9]+==ERROR: /, "", what); sub(/ on .*$/, "", what)
            sub(/^==[0-9]+== ERROR: /, "", what) }
        /runtime error:/ { sub(/^.*\/(libnumafit|tools\/numafit|examples|tests)\//, ""); print; exit }
        what && / in [a-z_]+ .*\/(libnumafit|tools\/numafit|examples|tests\/fuzz)\// && !/fuzz_fail/ {
            sub(/^.* in /, ""); sub(/ \/.*\//, " "); print what " in " $0; exit }
        END { }' | head -1
}

TIMEFORMAT='%U %S'
status=0
summary=$out/summary.txt
mkdir -p "$out" || exit 1
# absolute: the merge below copies from inside the work corpus
out=$(cd "$out" && pwd) || exit 1
printf '%-10s %10s %7s %7s %9s %s\n' target execs cov ft corpus findings >"$summary"

for t in $targets; do
    bin=$build/tests/fuzz/fuzz_$t
    w=$out/$t
    seeds=$top/tests/fuzz/corpus/$t
    rm -rf "$w"
    mkdir -p "$w/corpus" "$w/artifacts" "$w/findings" "$seeds"
    cp "$seeds"/* "$w/corpus/" 2>/dev/null
    echo "fuzz.sh: $t: $secs s"

    # -------------------------------------------------------------- fuzz
    end=$((SECONDS + secs))
    execs=0 cov=0 ft=0 starts=0 cpu=0 start=$SECONDS
    while [ $((end - SECONDS)) -gt 0 ] && [ $starts -lt 50 ]; do
        log=$w/run$starts.log
        # the CPU time it used (user + system, 1/100 s), not the wall time:
        # the machine may be shared
        # shellcheck disable=SC2086
        { time "$bin" -max_total_time=$((end - SECONDS)) -timeout="$timeout" -rss_limit_mb=2048 \
            -print_final_stats=1 -artifact_prefix="$w/artifacts/" $flags "$w/corpus" \
            >"$log" 2>&1; } 2>"$w/time$starts"
        rc=$?
        cpu=$(awk -v c="$cpu" '{ printf "%d", c + ($1 + $2) * 100 }' "$w/time$starts")
        starts=$((starts + 1))
        n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
        execs=$((execs + ${n:-0}))
        last=$(grep -E '^#[0-9]+.* cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
        c=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
        f=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
        [ "${c:-0}" -gt "$cov" ] && cov=$c
        [ "${f:-0}" -gt "$ft" ] && ft=$f
        if [ $rc -ne 0 ] && ! ls "$w/artifacts" | grep -q .; then
            echo "fuzz.sh: $t: exit status $rc without an artifact (see $log)" >&2
            status=1
            break
        fi
    done

    # -------------------------------------------------------------- findings
    # one minimized input per distinct signature (the signature of the raw
    # artifact decides; only the first of each kind is minimized, 30 s)
    : >"$w/findings.txt"
    for a in "$w"/artifacts/*; do
        [ -f "$a" ] || continue
        name=$(basename "$a")
        min=$w/findings/$name
        case $name in
            timeout-*)
                # a fuzzer at nice 19 can be starved past its wall-clock
                # timeout by other work: a timeout counts only if the input
                # is slow again when run alone
                if timeout $((timeout * 3)) "$bin" -timeout="$timeout" -rss_limit_mb=2048 \
                    "$a" >/dev/null 2>&1; then
                    mkdir -p "$w/not-reproduced"
                    mv "$a" "$w/not-reproduced/"
                    continue
                fi
                sig="timeout (over ${timeout}s)"
                ;;
            oom-*) sig="out of memory (over 2048 MB)" ;;
            slow-unit-*) continue ;;
            *) sig=$(signature "$bin" "$a") ;;
        esac
        [ -n "$sig" ] || sig="crash (no report; see $w/run*.log)"
        grep -qxF -- "$sig" "$w/findings.txt" && continue
        echo "$sig" >>"$w/findings.txt"
        case $name in
            crash-* | leak-*)
                "$bin" -minimize_crash=1 -max_total_time=30 -timeout="$timeout" \
                    -rss_limit_mb=2048 -exact_artifact_path="$min" "$a" \
                    >"$w/minimize-$name.log" 2>&1
                ;;
        esac
        [ -f "$min" ] || cp "$a" "$min"
        echo "$sig" >"$min.txt"
    done
    nfind=$(wc -l <"$w/findings.txt")

    # -------------------------------------------------------------- merge
    before=$(ls "$seeds" | wc -l)
    if [ "${FUZZ_MERGE:-1}" != 0 ] && [ "$before" -lt "$corpus_max" ]; then
        mkdir -p "$w/new"
        # the working corpus holds thousands of files: no process per file
        find "$w/corpus" -maxdepth 1 -type f -size -$((keep_max + 1))c -printf '%f\n' |
            sort >"$w/candidates.txt"
        ls "$seeds" | sort >"$w/seeds.txt"
        comm -23 "$w/candidates.txt" "$w/seeds.txt" | (cd "$w/corpus" && xargs -r cp -t "$w/new/")
        # edges only (no hit counters): a handful of inputs, not hundreds
        # (its own timeouts are not findings: they go to the work directory,
        # not to the current one)
        "$bin" -merge=1 -use_counters=0 -timeout=2 -rss_limit_mb=2048 \
            -artifact_prefix="$w/merge-" "$seeds" "$w/new" \
            >"$w/merge.log" 2>&1
        # what was merged must replay cleanly (make check replays it)
        added=
        for f in $(cd "$seeds" && ls); do
            [ -e "$w/new/$f" ] && added="$added $seeds/$f"
        done
        replay=$build/tests/fuzz/replay_$t
        # shellcheck disable=SC2086
        if [ -n "$added" ] && ! timeout 300 "$replay" $added >"$w/replay.log" 2>&1; then
            for f in $added; do
                timeout 20 "$replay" "$f" >/dev/null 2>&1 ||
                    mv "$f" "$w/findings/unmerged-$(basename "$f")"
            done
        fi
    fi
    after=$(ls "$seeds" | wc -l)
    [ "$after" -ge "$corpus_max" ] &&
        echo "fuzz.sh: $t: the corpus has $after files (FUZZ_CORPUS_MAX $corpus_max)" >&2

    printf '%-10s %10s %7s %7s %4s->%-4s %s\n' "$t" "$execs" "$cov" "$ft" "$before" "$after" \
        "$nfind" >>"$summary"
    if [ -n "${FUZZ_LOG:-}" ]; then
        commit=$(git -C "$top" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
        printf '%s %s %s %d %d.%02d %d %d %d %d %d %d\n' "$(date -u +%Y-%m-%dT%H:%MZ)" "$commit" \
            "$t" $((SECONDS - start)) $((cpu / 100)) $((cpu % 100)) "$execs" "$cov" "$ft" \
            "$before" "$after" "$nfind" >>"$FUZZ_LOG"
    fi
    echo "fuzz.sh: $t: $execs executions, cov $cov, ft $ft, corpus $before -> $after," \
        "$nfind finding(s)"
    sed 's/^/    /' "$w/findings.txt"
done

echo
cat "$summary"
for t in $targets; do
    [ -s "$out/$t/findings.txt" ] || continue
    echo
    echo "$t: minimized inputs in $out/$t/findings/ (signature in NAME.txt):"
    sed 's/^/  /' "$out/$t/findings.txt"
done
exit $status
