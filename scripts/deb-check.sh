#!/bin/bash
# Build the Debian packages (debian/) and check them, each step in a clean
# Debian 12 root made by `debootstrap --variant=minbase bookworm`:
#
#  1. build: a copy of the root with only what debian/control's
#     Build-Depends pull in (apt-get build-dep), the committed tree in it,
#     `dpkg-buildpackage -us -uc -b` (a missing Build-Depends fails here);
#  2. lintian on the .changes (on this machine): no errors allowed;
#  3. install: another copy of the root, `apt-get install ./*.deb` of
#     libnumafit0, numafit and python3-numafit with python3-nova (the
#     dependencies resolved from the archive, nothing of the build there),
#     then `numafit demo`, the man page, and scripts/deb-check-installed.py
#     with /usr/bin/python3: the binding loads the packaged libnumafit.so.0
#     and nova's filter handler finds numafit.scheduler's filter by the
#     nova.conf lines of doc/python.md; then libnumafit-dev with gcc: an
#     example program built with pkg-config gives numafit's answer.
#
#   scripts/deb-check.sh [WORKDIR]     (root; default build-deb)
#
# The packages and logs stay in WORKDIR (debs/, *.log). Needs debootstrap
# and lintian (installed when missing) and the Debian archive. The
# debootstrapped root is kept in WORKDIR/base between runs only as a cache
# (DEB_CHECK_REUSE=1); by default it is made anew. DEB_CHECK_SKIP_BUILD=1
# checks the packages of an earlier run (WORKDIR/debs) without building.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$top/build-deb}
mirror=${DEB_CHECK_MIRROR:-http://deb.debian.org/debian}
. "$top/scripts/chroot-lib.sh"

[ "$(id -u)" = 0 ] || { echo "deb-check: needs root" >&2; exit 1; }
missing=""
command -v debootstrap >/dev/null || missing="$missing debootstrap"
command -v lintian >/dev/null || missing="$missing lintian"
if [ -n "$missing" ]; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y $missing
fi
trap chroot_cleanup EXIT
mkdir -p "$work"
work=$(cd "$work" && pwd)
t0=$(date +%s)
step() { echo "deb-check: $1 ($(($(date +%s) - t0)) s)"; }
# run COMMAND in ROOT (DIR), its output in LOG; on failure show the end
in_root_logged() { # ROOT DIR LOG COMMAND
    if ! chroot_run "$1" "$2" "$4" >"$3" 2>&1; then
        tail -n 60 "$3"
        echo "deb-check: FAILED: $4 (log: $3)" >&2
        exit 1
    fi
}

base=$work/base
if [ "${DEB_CHECK_REUSE:-0}" != 1 ] || [ ! -x "$base/bin/sh" ]; then
    chroot_safe_rm "$base"
    debootstrap --variant=minbase bookworm "$base" "$mirror" >"$work/debootstrap.log" 2>&1 || {
        tail -n 30 "$work/debootstrap.log"
        exit 1
    }
    step "debootstrap done"
fi
# the roots are thrown away after the check: dpkg need not sync every file
# it unpacks (as sbuild and pbuilder set it; this halves the install time)
echo force-unsafe-io >"$base/etc/dpkg/dpkg.cfg.d/deb-check-unsafe-io"
new_root() { # DIR: a fresh copy of the base root
    chroot_safe_rm "$1"
    cp -a "$base" "$1"
    chroot_mount "$1"
}

# 1. build, with the Build-Depends only
build=$work/build
if [ "${DEB_CHECK_SKIP_BUILD:-0}" = 1 ] && ls "$work"/debs/*.changes >/dev/null 2>&1; then
    step "checking the packages already in $work/debs"
else
    new_root "$build"
    mkdir -p "$build/src/libnumafit"
    git -C "$top" archive --format=tar HEAD | tar -x -C "$build/src/libnumafit"
    in_root_logged "$build" /src "$work/build-deps.log" \
        "apt-get update && apt-get install -y --no-install-recommends dpkg-dev &&
         apt-get build-dep -y --no-install-recommends ./libnumafit"
    step "build dependencies installed"
    in_root_logged "$build" /src/libnumafit "$work/build.log" \
        "DEB_BUILD_OPTIONS=parallel=$(nproc) dpkg-buildpackage -us -uc -b"
    grep -E '^(PASS|FAIL|ERROR|SKIP|# TOTAL)' "$work/build.log" || true
    rm -rf "$work/debs"
    mkdir -p "$work/debs"
    cp "$build"/src/*.deb "$build"/src/*.changes "$build"/src/*.buildinfo "$work/debs/"
    chroot_cleanup
    chroot_safe_rm "$build"
    step "built: $(cd "$work/debs" && ls *.deb | tr '\n' ' ')"
fi

# 2. lintian: errors fail, warnings and notes are shown
if ! lintian -I --fail-on error "$work"/debs/*.changes >"$work/lintian.log" 2>&1; then
    cat "$work/lintian.log"
    echo "deb-check: lintian FAILED" >&2
    exit 1
fi
grep -v '^running with root privileges' "$work/lintian.log" || true
step "lintian: no errors"

# 3. install in a clean root and check
test=$work/test
new_root "$test"
mkdir -p "$test/debs" "$test/check"
cp "$work"/debs/*.deb "$test/debs/"
cp "$top/scripts/deb-check-installed.py" "$top/tests/data/hosts/rh2288h-v3.json" \
    "$top/examples/fit.c" "$test/check/"
in_root_logged "$test" /debs "$work/install.log" \
    "apt-get update && apt-get install -y --no-install-recommends \
     ./libnumafit0_*.deb ./numafit_*.deb ./python3-numafit_*.deb python3-nova"
step "installed libnumafit0, numafit, python3-numafit and python3-nova"
in_root_logged "$test" /check "$work/test.log" '
    set -e
    numafit --version | grep -qx "numafit 0.1.0"
    numafit demo >demo.out
    grep -q "^2 instances fit; the next one does not" demo.out
    test -s /usr/share/man/man1/numafit.1.gz
    test -s /usr/share/doc/numafit/copyright
    echo "numafit demo: $(grep "instances fit" demo.out)"
    /usr/bin/python3 deb-check-installed.py rh2288h-v3.json /check'
cat "$work/test.log"
in_root_logged "$test" /debs "$work/install-dev.log" \
    "apt-get install -y --no-install-recommends ./libnumafit-dev_*.deb gcc libc6-dev pkgconf"
in_root_logged "$test" /check "$work/test-dev.log" '
    set -e
    test -f /usr/lib/$(gcc -print-multiarch)/libnumafit.a
    gcc -Wall -Werror -o fit fit.c $(pkg-config --cflags --libs numafit)
    printf "%s" "{\"vcpus\":2,\"memory_mb\":2048,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\"}}" >flavor.json
    ./fit rh2288h-v3.json flavor.json >fit.out
    numafit fit --host rh2288h-v3.json --flavor flavor.json --json >cli.out
    /usr/bin/python3 -c "import json, sys
a = json.load(open(\"fit.out\")); b = json.load(open(\"cli.out\"))[\"fit\"]
sys.exit(0 if a == b else \"examples/fit: %s, numafit fit: %s\" % (a, b))"
    echo "libnumafit-dev: examples/fit.c built with pkg-config numafit: $(cat fit.out)"'
cat "$work/test-dev.log"
chroot_cleanup
chroot_safe_rm "$test"
step "all checks passed"
