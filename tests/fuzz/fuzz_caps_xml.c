/*
 * libFuzzer target: the libvirt capabilities XML reader
 * (numafit_host_new_from_caps_xml).
 *
 * Input: XML [ NUL ONLINE ]: the capabilities document, then optionally the
 * online CPUs as a cpu spec (virNodeGetCPUMap; without it every CPU listed
 * is online). Read with NUMAFIT_DISCOVER_ANY_ARCH (the architecture check
 * is one string compare) and no nova.conf options (fuzz_hostconf covers
 * those). A host gets every invariant of invariants.h, and its distance
 * matrix is read whole; a refusal leaves *ret_host untouched with a text.
 * Without libvirt/libxml2 the reader only says -ENOTSUP.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <numafit.h>

#include "invariants.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *in = (const char *)data;
    const char *nul = size ? memchr(in, '\0', size) : NULL;
    size_t xlen = nul ? (size_t)(nul - in) : size;
    char *online = NULL;
    numafit_host_t *host = NULL;
    numafit_error_t err;
    int r, n;

    if (nul) {
        size_t olen = size - xlen - 1;
        online = malloc(olen + 1);
        if (!online)
            return 0;
        memcpy(online, nul + 1, olen);
        online[olen] = '\0';
    }
    fuzz_error_prefill(&err);
    r = numafit_host_new_from_caps_xml(in, xlen, NULL, online, NUMAFIT_DISCOVER_ANY_ARCH, &host,
                                       &err);
    free(online);
    if (r == -ENOTSUP) {
        FUZZ_ASSERT(host == NULL);
        return 0;
    }
    if (r < 0) {
        fuzz_check_failure(r, &err, host);
        FUZZ_ASSERT(r == -EBADMSG || r == -EINVAL || r == -ERANGE || r == -ENOMEM);
        return 0;
    }
    FUZZ_ASSERT(r == 0 && host != NULL);
    fuzz_check_error(&err);
    n = numafit_host_get_cell_count(host);
    for (int i = 0; i <= n && i < 64; i++)
        for (int j = 0; j <= n && j < 64; j++) {
            unsigned d = 0;
            int k = numafit_host_get_distance(host, (unsigned)i, (unsigned)j, &d);
            FUZZ_ASSERT(k == 0 || k == -ENOENT);
            FUZZ_ASSERT(k < 0 || (i < n && j < n));
        }
    fuzz_check_host(host, 0, NULL);
    numafit_host_free(host);
    return 0;
}
