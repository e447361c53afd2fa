#!/bin/sh
# Every Python file of the binding and its tests, every bench/ script and
# every doc/ page is named in Makefile.am: what is not named there is
# neither installed nor in the release tarball, and the package would
# fail to import from either.
#
# Environment: top_srcdir (set by make check).  Fails naming each file.
srcdir=${top_srcdir:-.}
cd "$srcdir" || exit 99
[ -f Makefile.am ] || exit 99
status=0
for f in bindings/python/numafit/*.py bindings/python/numafit/*/*.py \
    bindings/python/tests/*.py bindings/python/tests/*.txt bindings/python/tests/*.test \
    bench/*.py doc/*.md; do
    [ -f "$f" ] || continue
    if ! grep -qF -- "$f" Makefile.am; then
        echo "check-dist-files: $f is not named in Makefile.am"
        status=1
    fi
done
exit $status
