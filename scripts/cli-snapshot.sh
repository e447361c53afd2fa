#!/bin/bash
# Record what the numafit program prints for a fixed set of commands, to
# show that a change of structure changes no behaviour: run it before and
# after and compare the two directories (diff -r). Per command: NAME.out
# (standard output), NAME.err (standard error), NAME.rc (exit status), and
# the files it wrote (NAME.svg, NAME.html).
#
#   scripts/cli-snapshot.sh NUMAFIT OUTDIR
#
# Run from anywhere; the commands run in the source tree. The set: every
# golden case (tests/cases), demo, one-off fit and plan, the fleet plans of
# examples/fleet (text, --json, --svg, --html) and render, host over every
# capabilities and sysfs fixture, xml, doctor over every doctor fixture,
# each subcommand's --help, and usage and input errors.
set -u
[ $# -eq 2 ] || { echo "usage: $0 NUMAFIT OUTDIR" >&2; exit 2; }
N=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
mkdir -p "$2" || exit 1
O=$(cd "$2" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

# run NAME [STDIN-FILE] -- ARGS...
run() {
    local name=$1 in=/dev/null
    shift
    if [ "$1" != -- ]; then in=$1; shift; fi
    shift
    (cd "$top" && "$N" "$@" <"$in" >"$O/$name.out" 2>"$O/$name.err")
    echo $? >"$O/$name.rc"
}

# golden cases
for c in tests/cases/*.case; do
    n=$(basename "$c" .case)
    opts=$(sed -n 's/^options: *//p' "$c")
    sed -n 's/^input: *//p' "$c" >"$O/.in"
    # shellcheck disable=SC2086
    run "case-$n" "$O/.in" -- fit --batch $opts
done
rm -f "$O/.in"

# demo, one-off fit and plan, xml
run demo -- demo
run demo-pack -- demo --strategy pack
run demo-zed -- demo --nova-release zed
H=examples/fleet/hosts/rh2288h-v3-a.json
F=examples/fleet/rt_flavor.json
run fit-one -- fit --host "$H" --flavor "$F"
run fit-one-json -- fit --host "$H" --flavor "$F" --json
run plan-one -- plan --host "$H" --flavor "$F"
run plan-one-json -- plan --host "$H" --flavor "$F" --json --max 3
run xml -- xml --host "$H" --flavor "$F"
run xml-domain -- xml --host "$H" --flavor "$F" --domain --name rt --uuid 4f1e0f0c-1b0a-4b8e-9a55-0d0c1b2a3f4e
run xml-zed -- xml --host "$H" --flavor "$F" --nova-release zed --strategy pack

# fleet plans (examples/fleet/README) and render
cd examples/fleet || exit 1
run plan-dir -- plan --hosts-dir hosts --flavors flavors.json
run plan-db -- plan --db compute_nodes.csv --instances instances.jsonl --flavors flavors.json
run plan-mix -- plan --db compute_nodes.jsonl --instances instances.jsonl \
    --flavors flavors.json --mix weights --strategy pack --detail --draw 2
run plan-add -- plan --db compute_nodes.jsonl \
    --add-hosts 10 "2x8c 2cells 1G:16 mem:256G dedicated:4-11 shared:0-3,12-15" \
    --flavors flavors.json --json
run plan-sysfs -- plan --sysfs ../../tests/data/sysfs/rh2288h-v3 \
    --cpu-dedicated-set 4-11 --cpu-shared-set 0-3,12-15 --flavors flavors.json --json
run plan-limits -- plan --hosts-dir hosts --flavors flavors.json --limits limits.json --json
run plan-json -- plan --hosts-dir hosts --flavors flavors.json --detail --json
run plan-pictures -- plan --hosts-dir hosts --flavors flavors.json --svg "$O/plan-pictures.svg" \
    --html "$O/plan-pictures.html"
cd "$top" || exit 1
run render -- render "$O/plan-json.out" --svg "$O/render.svg" --html "$O/render.html"
run render-pack -- render "$O/plan-json.out" --svg - --strategy pack

# host discovery
for x in tests/data/caps/*.xml; do
    n=$(basename "$x" .xml)
    run "host-caps-$n" -- host --caps "$x" --json
done
run host-caps-text -- host --caps tests/data/caps/rh2288h-v3.xml
run host-caps-conf -- host --caps tests/data/caps/rh2288h-v3.xml --cpu-dedicated-set 4-11 \
    --cpu-shared-set 0-3,12-15 --reserved-huge-pages node:0,size:1GB,count:1 \
    --physnet physnet0:0 --tunnel 1 --json
for d in tests/data/sysfs/*/; do
    n=$(basename "$d")
    run "host-sysfs-$n" -- host --sysfs "$d" --json
done

# doctor
for d in tests/data/doctor/*/; do
    n=$(basename "$d")
    run "doctor-$n" -- doctor --root "$d"
    run "doctor-$n-json" -- doctor --root "$d" --json --realtime
done

# help, version, usage and input errors
run help -- --help
run version -- --version
for s in fit plan render bench demo host xml doctor; do
    run "help-$s" -- "$s" --help
done
run help-plan-fleet -- plan --fleet --help
run err-nosub --
run err-unknown -- frobnicate
run err-fit-noargs -- fit
run err-fit-nofile -- fit --host /nonexistent.json --flavor "$F"
run err-fit-badjson -- fit --host "$F" --flavor "$F"
run err-plan-noflavors -- plan --hosts-dir examples/fleet/hosts
run err-host-nosource -- host
run err-xml-noflavor -- xml --host "$H"
run err-render-nofile -- render /nonexistent.json --svg -
run err-strategy -- demo --strategy sideways
run err-release -- demo --nova-release folsom

# the output directory's name is not part of the output
for f in "$O"/*.out "$O"/*.err; do
    grep -qF "$O" "$f" && sed -i "s|$O|OUTDIR|g" "$f"
done
exit 0
