#!/bin/sh
# Every exported symbol of the shared library starts with numafit_ and
# nothing internal (numafit__*) leaks.
lib="${top_builddir:-.}/libnumafit/.libs/libnumafit.so"
[ -f "$lib" ] || { echo "no $lib (static-only build?)"; exit 77; }
syms=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sed 's/@.*//' | sort -u)
bad=$(printf '%s\n' "$syms" | grep -v '^numafit_' | grep -v '^LIBNUMAFIT_' | grep -v '^$')
internal=$(printf '%s\n' "$syms" | grep '^numafit__')
n=$(printf '%s\n' "$syms" | grep -c '^numafit_')
if [ -n "$bad" ] || [ -n "$internal" ]; then
    echo "unexpected exported symbols:"; printf '%s\n' $bad $internal
    exit 1
fi
[ "$n" -ge 10 ] || { echo "only $n numafit_ symbols exported"; exit 1; }
echo "$n numafit_ symbols exported, nothing else"
