#!/bin/sh
# make installcheck: the installed libnumafit as an operator uses it, with
# nothing from the build tree. Run by `make installcheck` (and so by make
# distcheck, on its temporary --prefix) with the configured directories in
# the environment: prefix bindir libdir includedir pkgconfigdir pythondir,
# PYTHON3 (Debian's /usr/bin/python3), CC, PKG_CONFIG.
#   1. /usr/bin/python3 imports numafit from $pythondir (PYTHONPATH set to
#      it, NUMAFIT_LIBRARY and LD_LIBRARY_PATH unset) and has mapped
#      $libdir/libnumafit.so.0, not another one; a fit works; with nova
#      importable, `python3 -m numafit.nova check` passes.
#   2. $bindir/numafit demo works and uses $libdir's library.
#   3. pkg-config --cflags --libs numafit (PKG_CONFIG_PATH=$pkgconfigdir)
#      builds a small program against the installed header and library,
#      which runs and agrees with the header's version.
set -u
fail() { echo "installcheck: FAIL: $*" >&2; exit 1; }
for v in prefix bindir libdir includedir pkgconfigdir pythondir; do
    eval "val=\${$v:-}"
    [ -n "$val" ] || fail "\$$v is not set (run it through make installcheck)"
done
PYTHON3=${PYTHON3:-/usr/bin/python3}
CC=${CC:-cc}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
unset NUMAFIT_LIBRARY LD_LIBRARY_PATH PYTHONHOME
PYTHONDONTWRITEBYTECODE=1 # nothing written into the installed tree
export PYTHONDONTWRITEBYTECODE

real_libdir=$(cd "$libdir" 2>/dev/null && pwd -P) || fail "no $libdir"
[ -f "$libdir/libnumafit.so.0" ] || fail "no $libdir/libnumafit.so.0"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/numafit-installcheck.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1 # nothing importable from the current directory

# under_libdir FILE: is FILE (resolved) the installed library?
under_libdir() {
    case $(readlink -f "$1") in "$real_libdir"/libnumafit.so*) return 0 ;; esac
    return 1
}

# 1. the Python package
if [ "$pythondir" = no ]; then
    echo "installcheck: the Python package is not installed (--without-python-dir)"
elif ! [ -x "$PYTHON3" ]; then
    echo "installcheck: no $PYTHON3: the Python package is not checked"
else
    [ -f "$pythondir/numafit/_paths.py" ] || fail "no $pythondir/numafit/_paths.py"
    out=$(PYTHONPATH=$pythondir "$PYTHON3" -c '
import numafit, numafit._ffi as f
print(numafit.__file__)
print(f.loaded_library_file())
print(f.LIBRARY_FROM)
h = numafit.Host.synthetic("cells:2 cores:4 threads:2 mem:16G")
r = numafit.Request.from_flavor(4, 2048, {"hw:cpu_policy": "dedicated"})
print("fits" if numafit.fit(h, r) is not None else "no fit")
print(numafit.library_version)
') || fail "/usr/bin/python3 cannot import the installed numafit (PYTHONPATH=$pythondir)"
    echo "$out" | sed 's/^/installcheck: python: /'
    set -- $out
    case $1 in "$pythondir"/numafit/__init__.py) ;; *) fail "numafit imported from $1, not $pythondir" ;; esac
    under_libdir "$2" || fail "the installed numafit loaded $2, not $libdir/libnumafit.so.0"
    echo "$out" | grep -qx "fits" || fail "no fit through the installed package"
    if PYTHONPATH=$pythondir "$PYTHON3" -c 'import nova.virt.hardware' 2>/dev/null; then
        PYTHONPATH=$pythondir "$PYTHON3" -m numafit.nova check >check.out 2>&1 ||
            { cat check.out; fail "python3 -m numafit.nova check"; }
        sed 's/^/installcheck: numafit.nova check: /' check.out
        grep -q "^library: $real_libdir/libnumafit.so" check.out ||
            fail "numafit.nova check does not report $libdir's library"
    else
        echo "installcheck: nova is not importable: numafit.nova check skipped"
    fi
fi

# 2. the program
"$bindir/numafit" demo >demo.out 2>&1 || { cat demo.out; fail "$bindir/numafit demo"; }
grep -q "^Placement of one instance" demo.out || fail "numafit demo printed no placement"
lib=$(ldd "$bindir/numafit" | sed -n 's/.*libnumafit\.so\.0 => \([^ ]*\) .*/\1/p')
under_libdir "$lib" || fail "$bindir/numafit uses '$lib', not $libdir's library"
echo "installcheck: $bindir/numafit demo: ok, with $lib"

# 3. pkg-config and a program built with it
flags=$(PKG_CONFIG_PATH=$pkgconfigdir "$PKG_CONFIG" --cflags --libs numafit) ||
    fail "pkg-config --cflags --libs numafit (PKG_CONFIG_PATH=$pkgconfigdir)"
echo "installcheck: pkg-config --cflags --libs numafit: $flags"
pc_libdir=$(PKG_CONFIG_PATH=$pkgconfigdir "$PKG_CONFIG" --variable=libdir numafit)
[ "$pc_libdir" = "$libdir" ] || fail "numafit.pc's libdir is $pc_libdir, not $libdir"
cat >prog.c <<'EOF'
#include <stdio.h>
#include <string.h>

#include <numafit.h>

int main(void) {
    numafit_host_t *host = NULL;
    numafit_request_t *req = NULL;
    numafit_placement_t *p = NULL;
    numafit_error_t err;
    const char *flavor = "{\"vcpus\":4,\"memory_mb\":2048,\"extra_specs\":"
                         "{\"hw:cpu_policy\":\"dedicated\"}}";
    int rc;

    if (strcmp(numafit_version_string(), NUMAFIT_VERSION_STRING) != 0) {
        fprintf(stderr, "library %s, header %s\n", numafit_version_string(),
                NUMAFIT_VERSION_STRING);
        return 1;
    }
    if (numafit_host_new_synthetic("cells:2 cores:4 threads:2 mem:16G", 0, &host, &err) < 0 ||
        numafit_request_new(flavor, strlen(flavor), NULL, 0, 0, &req, &err) != 1) {
        fprintf(stderr, "%s\n", err.text);
        return 1;
    }
    rc = numafit_fit(host, req, NULL, 0, &p, &err);
    printf("%s %s\n", numafit_version_string(), rc == 1 ? "fits" : "no fit");
    numafit_placement_free(p);
    numafit_request_free(req);
    numafit_host_free(host);
    return rc == 1 ? 0 : 1;
}
EOF
# shellcheck disable=SC2086 # flags are words
$CC -o prog prog.c $flags -Wl,-rpath,"$libdir" ||
    fail "cannot build a program with $flags"
./prog || fail "the program built with pkg-config's flags"
lib=$(ldd ./prog | sed -n 's/.*libnumafit\.so\.0 => \([^ ]*\) .*/\1/p')
under_libdir "$lib" || fail "the program uses '$lib', not $libdir's library"
echo "installcheck: a program built with pkg-config's flags: ok, with $lib"
echo "installcheck: PASS ($prefix)"
