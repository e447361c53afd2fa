/* Live host discovery through the libvirt C API: a read-only connection, the
 * capabilities XML and the online CPU map, as nova's libvirt driver reads
 * them (host.py get_capabilities, get_online_cpus). Built only with libvirt.
 *
 * Thread safety (nova-reference K): one connection per call, opened read-only;
 * no virSetErrorFunc (process-wide), no event loop registration; libvirt's
 * last error is thread-local and is reset after reading it. The connection
 * gets a silent error handler (virConnSetErrorFunc), so its errors are only
 * in reterr; a failure to open has no connection yet and goes to the
 * process's handler: libvirt's default prints it to stderr unless the
 * application set one (the numafit CLI does; libvirt-python does). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "discover_internal.h"

#ifdef HAVE_LIBVIRT
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

static void libvirt_quiet(void *data, virErrorPtr e) {
    (void)data;
    (void)e;
}

static int libvirt_fail(numafit_error_t *err, const char *what) {
    virErrorPtr e = virGetLastError();
    numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, what, NULL, "libvirt %s failed: %s", what,
                       e && e->message ? e->message : "unknown error");
    virResetLastError();
    return -ECONNREFUSED;
}

NUMAFIT_EXPORT int numafit_host_new_from_libvirt(const char *uri, const numafit_hostconf_t *conf,
                                                 unsigned flags, numafit_host_t **ret,
                                                 numafit_error_t *err) {
    virConnectPtr conn;
    char *caps = NULL;
    unsigned char *map = NULL;
    unsigned int nonline = 0;
    uint64_t *online = NULL;
    struct numafit__dhost d;
    int r, ncpus;

    numafit__error_clear(err);
    if (!ret || (flags & ~(unsigned)NUMAFIT__DISCOVER_FLAGS)) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "", NULL, "invalid argument");
        return -EINVAL;
    }
    memset(&d, 0, sizeof(d));
    if ((r = numafit__discover_check_conf(conf, err)) < 0)
        return r;
    conn = virConnectOpenReadOnly(uri);
    if (!conn)
        return libvirt_fail(err, "virConnectOpenReadOnly");
    virConnSetErrorFunc(conn, NULL, libvirt_quiet);
    caps = virConnectGetCapabilities(conn);
    if (!caps) {
        r = libvirt_fail(err, "virConnectGetCapabilities");
        goto out;
    }
    if (!(flags & NUMAFIT_DISCOVER_ALL_ONLINE)) {
        ncpus = virNodeGetCPUMap(conn, &map, &nonline, 0);
        if (ncpus < 0) {
            r = libvirt_fail(err, "virNodeGetCPUMap");
            goto out;
        }
        online = numafit__calloc(NUMAFIT__CPU_WORDS, sizeof(uint64_t));
        if (!online) {
            r = -ENOMEM;
            goto out;
        }
        for (int i = 0; i < ncpus && i < NUMAFIT__CPU_LIMIT; i++)
            if (map[i / 8] & (1u << (i % 8)))
                numafit__bit_set(online, (unsigned)i);
    }
    r = numafit__caps_parse(caps, strlen(caps), &d, err);
    if (r == 0)
        r = numafit__discover_build(&d, online, conf, flags, ret, err);
out:
    if (r == -ENOMEM)
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
    numafit__dhost_clear(&d);
    numafit__free(online);
    free(map);
    free(caps);
    virConnectClose(conn);
    return r;
}

#else /* !HAVE_LIBVIRT */

NUMAFIT_EXPORT int numafit_host_new_from_libvirt(const char *uri, const numafit_hostconf_t *conf,
                                                 unsigned flags, numafit_host_t **ret,
                                                 numafit_error_t *err) {
    (void)uri;
    (void)conf;
    (void)flags;
    (void)ret;
    numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "", NULL,
                       "libnumafit was built without libvirt");
    return -ENOTSUP;
}

#endif
