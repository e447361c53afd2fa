#!/bin/bash
# Prove the README's two commands on a fresh Debian 12: debootstrap a minimal
# bookworm root (--variant=minbase), put a clean copy of the committed tree
# in it, and run README line 1 (set up, build, run the demo) and then, in a
# second clean copy, README line 2 (set up, build, make check). A package
# that scripts/setup-deps.sh forgets, or a test that leans on something only
# this machine has, fails here although it passes in the developer's tree.
#
#   scripts/fresh-debian-check.sh [WORKDIR]     (root; default build-fresh)
#
# FRESH_CHECK_NOVA=1 also runs `make check-nova` in the second copy (nova's
# own test modules, plain and with numafit; about 10 minutes).
#
# Needs debootstrap (installed when missing) and the Debian archive. The
# root is kept in WORKDIR/root between runs only as a cache of the
# debootstrap step (FRESH_REUSE=1); by default it is made anew.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$top/build-fresh}
root=$work/root
mirror=${FRESH_MIRROR:-http://deb.debian.org/debian}

[ "$(id -u)" = 0 ] || { echo "fresh-debian-check: needs root" >&2; exit 1; }
command -v debootstrap >/dev/null || {
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y debootstrap
}

mounted=()
cleanup() {
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount -l "${mounted[$i]}" 2>/dev/null || true
    done
}
trap cleanup EXIT
bind() { # bind SRC DST (DST under the root)
    mkdir -p "$2"
    mount --bind "$1" "$2"
    mounted+=("$2")
}

if [ "${FRESH_REUSE:-0}" != 1 ] || [ ! -x "$root/bin/sh" ]; then
    rm -rf "$root"
    mkdir -p "$work"
    start=$(date +%s)
    debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
        tail -n 30 "$work/debootstrap.log"
        exit 1
    }
    echo "fresh-debian-check: debootstrap took $(($(date +%s) - start)) s"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
mkdir -p "$root/proc" "$root/dev/shm"
mount -t proc proc "$root/proc"
mounted+=("$root/proc")
bind /dev "$root/dev"
mount -t tmpfs tmpfs "$root/dev/shm"
mounted+=("$root/dev/shm")
bind /dev/pts "$root/dev/pts"

# the committed tree, twice (one copy per README command)
rm -rf "$root/src1" "$root/src2"
for d in src1 src2; do
    mkdir -p "$root/$d"
    git -C "$top" archive --format=tar HEAD | tar -x -C "$root/$d"
done

cmd1=$(sed -n 1p "$top/README")
cmd2=$(sed -n 2p "$top/README")
in_root() { # DIR COMMAND
    chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
        LANG=C.UTF-8 MAKEFLAGS=-j2 /bin/bash -c "cd '$1' && $2"
}

start=$(date +%s)
echo "fresh-debian-check: README command 1: $cmd1"
if ! in_root /src1 "$cmd1" >"$work/command1.log" 2>&1; then
    tail -n 60 "$work/command1.log"
    echo "fresh-debian-check: README command 1 FAILED on a fresh Debian 12" >&2
    exit 1
fi
tail -n 5 "$work/command1.log"
echo "fresh-debian-check: command 1 passed in $(($(date +%s) - start)) s"

start=$(date +%s)
echo "fresh-debian-check: README command 2: $cmd2"
if ! in_root /src2 "$cmd2" >"$work/command2.log" 2>&1; then
    grep -E '^(FAIL|ERROR|# )' "$work/command2.log" || true
    for f in $(grep -lE '^(FAIL|ERROR)' "$root"/src2/tests/*.log "$root"/src2/tests/*/*.log \
        "$root"/src2/bindings/python/tests/*.log 2>/dev/null); do
        echo "---- $f"
        tail -n 40 "$f"
    done
    echo "fresh-debian-check: README command 2 FAILED on a fresh Debian 12" >&2
    exit 1
fi
grep -E '^# (TOTAL|PASS|FAIL|ERROR|SKIP)' "$work/command2.log" || true
if grep -qE '^# SKIP: *[1-9]' "$work/command2.log"; then
    grep -E '^SKIP' "$work/command2.log"
    echo "fresh-debian-check: tests skipped on a fresh Debian 12 (a missing package?)" >&2
    exit 1
fi
echo "fresh-debian-check: command 2 passed in $(($(date +%s) - start)) s"

# nova's own test modules with numafit in place (FRESH_CHECK_NOVA=1, as CI
# runs it): what they need beyond the README's packages must be installed
# by make check-nova itself (scripts/setup-nova-test-deps.sh)
if [ "${FRESH_CHECK_NOVA:-0}" = 1 ]; then
    start=$(date +%s)
    echo "fresh-debian-check: make check-nova"
    if ! in_root /src2 "make check-nova" >"$work/check-nova.log" 2>&1; then
        tail -n 80 "$work/check-nova.log"
        echo "fresh-debian-check: make check-nova FAILED on a fresh Debian 12" >&2
        exit 1
    fi
    sed -n '/^module /,$p' "$work/check-nova.log" | grep -v "^  to nova's own"
    echo "fresh-debian-check: make check-nova passed in $(($(date +%s) - start)) s"
fi
