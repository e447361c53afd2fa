#!/bin/sh
# Every public header compiles on its own (libqb's auto_check_header idea):
# as C99 (what the headers promise: <stdint.h>, no C11) with -pedantic and
# the project's warnings as errors, included twice (include guard), and as
# C++11 (the extern "C" guards: every function a header declares must keep
# its C name, checked with nm when it is installed).
#
# Environment: top_srcdir, top_builddir (set by make check), CC (default cc),
# CXX (default c++; the C++ part is skipped when there is no C++ compiler).
# Fails naming each header that does not compile alone.

srcdir=${top_srcdir:-.}
builddir=${top_builddir:-.}
CC=${CC:-cc}
CXX=${CXX:-c++}

CFLAGS_HDR="-std=c99 -pedantic -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wundef -Werror"
CXXFLAGS_HDR="-std=c++11 -pedantic -Wall -Wextra -Wundef -Werror"
INC="-I$srcdir/include -I$builddir/include"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/numafit-hdr.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

headers="$srcdir/include/numafit.h"
for h in "$srcdir"/include/numafit/*.h; do headers="$headers $h"; done
[ -f "$builddir/include/numafit/version.h" ] && headers="$headers $builddir/include/numafit/version.h"

have_cxx=no
if printf 'int main(void) { return 0; }\n' >"$tmp/probe.cc" &&
    $CXX -std=c++11 -c -o "$tmp/probe.o" "$tmp/probe.cc" 2>/dev/null; then
    have_cxx=yes
else
    echo "note: no C++ compiler ($CXX): C++ checks skipped"
fi
have_nm=no
command -v nm >/dev/null 2>&1 && have_nm=yes

failed=""
n=0
for path in $headers; do
    case $path in
        */include/numafit.h) h=numafit.h ;;
        *) h=numafit/${path##*/} ;;
    esac
    n=$((n + 1))
    ok=yes

    # C99, included twice (the second include must be a no-op).
    printf '#include <%s>\n#include <%s>\ntypedef int numafit_hdrcheck_t;\n' "$h" "$h" >"$tmp/t.c"
    if ! $CC $CFLAGS_HDR $INC -c -o "$tmp/t.o" "$tmp/t.c" >"$tmp/log" 2>&1; then
        echo "FAIL: $h does not compile on its own as C99 ($CC $CFLAGS_HDR):"
        sed -n 's/^/    /;1,25p' "$tmp/log"
        ok=no
    fi

    if [ $have_cxx = yes ]; then
        # Functions declared by the header (after preprocessing, so comments
        # are gone), referenced from C++: an undefined mangled numafit_ name
        # means a missing extern "C".
        printf '#include <%s>\n' "$h" >"$tmp/t.cc"
        if ! $CXX $CXXFLAGS_HDR $INC -E "$tmp/t.cc" >"$tmp/t.i" 2>"$tmp/log"; then
            echo "FAIL: $h does not preprocess as C++11:"
            sed -n 's/^/    /;1,25p' "$tmp/log"
            ok=no
        else
            funcs=$(grep -v '^#' "$tmp/t.i" | tr -s ' \t\n' ' ' |
                grep -o 'numafit_[a-z0-9_]* *(' | sed 's/ *($//' | sort -u)
            {
                printf '#include <%s>\n#include <%s>\ntypedef int numafit_hdrcheck_t;\n' "$h" "$h"
                if [ -n "$funcs" ]; then
                    echo 'typedef void (*numafit_hdrcheck_fn)(void);'
                    echo 'extern const numafit_hdrcheck_fn numafit_hdrcheck_refs[];'
                    echo 'const numafit_hdrcheck_fn numafit_hdrcheck_refs[] = {'
                    for f in $funcs; do
                        printf '    reinterpret_cast<numafit_hdrcheck_fn>(&%s),\n' "$f"
                    done
                    echo '};'
                fi
            } >"$tmp/t.cc"
            if ! $CXX $CXXFLAGS_HDR $INC -c -o "$tmp/t.o" "$tmp/t.cc" >"$tmp/log" 2>&1; then
                echo "FAIL: $h does not compile on its own as C++11 ($CXX $CXXFLAGS_HDR):"
                sed -n 's/^/    /;1,25p' "$tmp/log"
                ok=no
            elif [ $have_nm = yes ]; then
                mangled=$(nm -u "$tmp/t.o" | awk '{print $NF}' | grep '^_Z.*numafit_')
                if [ -n "$mangled" ]; then
                    echo "FAIL: $h declares functions with C++ linkage (missing extern \"C\"):"
                    printf '    %s\n' $mangled
                    ok=no
                fi
            fi
        fi
    fi
    [ $ok = yes ] || failed="$failed $h"
done

if [ -n "$failed" ]; then
    echo "headers that do not compile on their own:$failed"
    exit 1
fi
echo "$n public headers compile on their own (C99$([ $have_cxx = yes ] && echo ', C++11'))"
exit 0
