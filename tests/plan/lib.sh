# Shared by tests/plan/*.test (sourced): the numafit binary, the data, a
# scratch directory and small assertions. make check exports NUMAFIT,
# top_srcdir and top_builddir.
N=${NUMAFIT:-${top_builddir:-.}/tools/numafit/numafit}
S=${top_srcdir:-.}
D=$S/tests/plan/data
E=$S/examples/fleet
command -v jq >/dev/null 2>&1 || { echo "jq not found: skip"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/numafit-plan.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
failures=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# eq WHAT GOT EXPECTED
eq() {
    if [ "$2" = "$3" ]; then
        echo "ok: $1 = $3"
    else
        fail "$1: expected '$3', got '$2'"
    fi
}

# jqeq FILE FILTER EXPECTED: the compact jq output of FILTER on FILE
jqeq() {
    eq "$2" "$(jq -c "$2" "$1")" "$3"
}

# run_ok OUT CMD...: run, stdout to OUT, stderr to OUT.err; exit status 0
run_ok() {
    out=$1
    shift
    "$@" >"$out" 2>"$out.err"
    rc=$?
    if [ $rc -ne 0 ]; then
        fail "exit $rc from: $* ($(head -c 600 "$out.err"))"
    fi
}

# run_fails CODE PATTERN CMD...: exits with CODE (no crash) and stderr
# matches the extended regular expression PATTERN
run_fails() {
    code=$1
    pattern=$2
    shift 2
    "$@" >"$T/fail.out" 2>"$T/fail.err"
    rc=$?
    if [ $rc -ne "$code" ]; then
        fail "expected exit $code, got $rc from: $* ($(head -c 600 "$T/fail.err"))"
    elif ! grep -Eq -- "$pattern" "$T/fail.err"; then
        fail "stderr of '$*' does not match /$pattern/: $(head -c 600 "$T/fail.err")"
    else
        echo "ok: exit $code, $(grep -v "warning:" "$T/fail.err" | head -n 1)"
    fi
}

finish() {
    if [ "$failures" -ne 0 ]; then
        echo "$failures failure(s)"
        exit 1
    fi
    exit 0
}
