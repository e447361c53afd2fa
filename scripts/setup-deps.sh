#!/bin/sh
# Install the Debian 12 packages libnumafit needs to build and test
# (only what is missing; needs root or sudo). chromium-headless-shell
# screenshots the plan pictures in tests/plan-render.test; clang-format
# checks the formatting (tests/check-format.sh); python3-placement is the
# reference of tests/placement-inventory-diff.test; python3-pulp and
# coinor-cbc solve the optimum of tests/stranding.test (bench/stranding/).
set -e
pkgs="build-essential autoconf automake libtool pkg-config libjansson-dev uuid-dev check
libvirt-dev libxml2-dev libvirt-clients libxml2-utils jq python3-nova
python3-oslotest python3-ddt python3-testtools python3-fixtures python3-wsgi-intercept python3-placement
chromium-headless-shell fonts-dejavu-core clang-format python3-pulp coinor-cbc"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y $missing
