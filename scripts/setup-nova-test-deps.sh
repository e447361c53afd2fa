#!/bin/sh
# What nova's functional tests need beyond scripts/setup-deps.sh, for
# `make check-nova`: Debian's python3-placement (the placement service the
# tests run in-process), and nova-common's api-paste.ini, copied into DIR
# from the package file without installing nova-common (whose maintainer
# scripts set up a nova service, a user and a database).
#
#     scripts/setup-nova-test-deps.sh DIR
set -eu
dir=${1:?usage: setup-nova-test-deps.sh DIR}
mkdir -p "$dir"
if ! /usr/bin/python3 -c 'import placement' 2>/dev/null; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y python3-placement
fi
if [ ! -f "$dir/api-paste.ini" ]; then
    for f in /etc/nova/api-paste.ini /usr/share/nova-common/api-paste.ini; do
        if [ -f "$f" ]; then
            cp "$f" "$dir/api-paste.ini"
            exit 0
        fi
    done
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    (cd "$tmp" && apt-get download nova-common) ||
        { apt-get update && (cd "$tmp" && apt-get download nova-common); }
    dpkg-deb -x "$tmp"/nova-common_*.deb "$tmp/root"
    cp "$tmp/root/usr/share/nova-common/api-paste.ini" "$dir/api-paste.ini"
fi
