/*
 * libFuzzer target: the placement reader (numafit_placement_new_from_json,
 * nova's InstanceNUMATopology primitive or the plain list of cells) and
 * claims of what it reads.
 *
 * Input: PLACEMENT [ NUL HOST ]: the placement JSON, then optionally a host
 * JSON (nova's NUMATopology) to claim it on; without one (or when it does
 * not load) a fixed synthetic host with 2 MiB and 1 GiB pages. Invariants:
 * the placement's JSON reads back to the same JSON; a claim either is
 * refused and leaves the host JSON as it was, byte for byte, or succeeds,
 * and release then restores it byte for byte (invariants.h).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <numafit.h>

#include "invariants.h"

#define FIXED_HOST                                                                                 \
    "cells:2 cores:4 threads:2 mem:8G pages:2M=512,1G=2 dedicated:2-7,10-15 shared:0-1,8-9"

static numafit_host_t *fixed;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *in = (const char *)data;
    const char *nul = size ? memchr(in, '\0', size) : NULL;
    size_t plen = nul ? (size_t)(nul - in) : size;
    numafit_host_t *given = NULL;
    numafit_placement_t *p = NULL;
    numafit_error_t err;
    unsigned hflags = 0;
    int r, n;

    if (!fixed) {
        r = numafit_host_new_synthetic(FIXED_HOST, 0, &fixed, &err);
        if (r < 0)
            fuzz_note("fixed host: %s", err.text);
        FUZZ_ASSERT(r == 0);
    }
    fuzz_error_prefill(&err);
    r = numafit_placement_new_from_json(in, plen, 0, &p, &err);
    if (r < 0) {
        fuzz_check_failure(r, &err, p);
        FUZZ_ASSERT(r == -EBADMSG || r == -EINVAL || r == -ERANGE || r == -ENOMEM);
        return 0;
    }
    FUZZ_ASSERT(r == 0 && p != NULL);
    n = numafit_placement_get_cell_count(p);
    FUZZ_ASSERT(n >= 0);
    FUZZ_ASSERT(numafit_placement_get_host_cell(p, (unsigned)n) == -ENOENT);
    for (unsigned v = 0; v < 64; v++) {
        int pin = numafit_placement_get_pin(p, v);
        FUZZ_ASSERT(pin >= 0 || pin == -ENOENT);
    }
    fuzz_check_placement_json(p);

    if (nul) {
        const char *h = nul + 1;
        size_t hlen = size - plen - 1;
        if (numafit_host_new_from_json(h, hlen, 0, &given, NULL) < 0) {
            hflags = NUMAFIT_HOST_ALLOW_OVERLAP;
            if (numafit_host_new_from_json(h, hlen, hflags, &given, NULL) < 0)
                given = NULL;
        }
    }
    fuzz_check_claim(given ? given : fixed, given ? hflags : 0, p, 0);
    numafit_host_free(given);
    numafit_placement_free(p);
    return 0;
}
