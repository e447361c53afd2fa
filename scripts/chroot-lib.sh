# Helpers for scripts that work in a debootstrapped Debian root (sourced by
# scripts/deb-check.sh; bash). Mounts are recorded in chroot_mounted and
# undone by chroot_cleanup (call it from an EXIT trap).

chroot_mounted=()

chroot_cleanup() {
    local i
    for ((i = ${#chroot_mounted[@]} - 1; i >= 0; i--)); do
        umount -l "${chroot_mounted[$i]}" 2>/dev/null || true
    done
    chroot_mounted=()
}

# Unmount whatever an interrupted run left mounted under DIR (deepest
# first), and fail if anything stays: `rm -rf` of a root with the host's
# /dev or /proc still mounted in it deletes the host's device nodes.
chroot_unmount_under() { # DIR
    local m
    for m in $(awk -v d="$1/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r); do
        umount -l "$m" || true
    done
    if awk -v d="$1/" 'index($2, d) == 1 { found = 1 } END { exit !found }' /proc/mounts; then
        echo "chroot-lib: still mounted under $1; not removing it" >&2
        exit 1
    fi
}

# remove DIR, never across a mount
chroot_safe_rm() { # DIR
    chroot_unmount_under "$1"
    rm -rf --one-file-system "$1"
}

# /proc, and a /dev of the root's own (not the host's, whose nodes a
# removal of the root would delete) with the nodes a build and apt need
chroot_mount() { # ROOT
    local root=$1 n
    chroot_unmount_under "$root"
    cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
    mkdir -p "$root/proc" "$root/dev"
    mount -t proc proc "$root/proc"
    chroot_mounted+=("$root/proc")
    mount -t tmpfs -o mode=755 tmpfs "$root/dev"
    chroot_mounted+=("$root/dev")
    for n in "null 1 3" "zero 1 5" "full 1 7" "random 1 8" "urandom 1 9" "tty 5 0"; do
        set -- $n
        mknod -m 666 "$root/dev/$1" c "$2" "$3"
    done
    ln -s /proc/self/fd "$root/dev/fd"
    ln -s /proc/self/fd/0 "$root/dev/stdin"
    ln -s /proc/self/fd/1 "$root/dev/stdout"
    ln -s /proc/self/fd/2 "$root/dev/stderr"
    mkdir -p "$root/dev/shm" "$root/dev/pts"
    mount -t tmpfs tmpfs "$root/dev/shm"
    chroot_mounted+=("$root/dev/shm")
    mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$root/dev/pts"
    chroot_mounted+=("$root/dev/pts")
    ln -s pts/ptmx "$root/dev/ptmx"
}

# run COMMAND with bash in ROOT, in DIR, with a clean environment
chroot_run() { # ROOT DIR COMMAND
    chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
        LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive /bin/bash -c "cd '$2' && $3"
}
