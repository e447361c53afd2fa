/*
 * libFuzzer target: the host records reader (numafit_host_new_from_records)
 * and the usage records writer (numafit_host_get_cell_usage).
 *
 * Input: one byte of mode, two bytes (little endian) of the physnet names'
 * length, the names, then the record values: 16-bit signed values (mode bit
 * 0 clear: the small ids and counts the layout mostly holds) or 64-bit ones
 * (bit 0 set), little endian. Bit 1 loads with NUMAFIT_HOST_ALLOW_OVERLAP.
 * A loaded host gets every host invariant of invariants.h (JSON round trips,
 * fit, claim and release of fixed requests), and each cell's usage records
 * say the length they need and fit in it. On failure: *ret_host untouched,
 * a non-empty error text.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <numafit.h>

#include "invariants.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 3)
        return 0;
    unsigned mode = data[0];
    size_t nlen = (size_t)data[1] | (size_t)data[2] << 8;
    data += 3;
    size -= 3;
    if (nlen > size)
        nlen = size;
    const char *names = (const char *)data;
    data += nlen;
    size -= nlen;

    size_t width = (mode & 1) ? 8 : 2, n = size / width;
    int64_t *rec = malloc(n ? n * sizeof(int64_t) : 1);
    FUZZ_ASSERT(rec != NULL);
    for (size_t i = 0; i < n; i++) {
        uint64_t v = 0;
        for (size_t b = 0; b < width; b++)
            v |= (uint64_t)data[i * width + b] << (8 * b);
        rec[i] = width == 2 ? (int64_t)(int16_t)v : (int64_t)v;
    }
    /* names as a buffer of exactly nlen bytes (ASan sees a read past it) */
    char *nb = malloc(nlen ? nlen : 1);
    FUZZ_ASSERT(nb != NULL);
    memcpy(nb, names, nlen);

    unsigned flags = (mode & 2) ? NUMAFIT_HOST_ALLOW_OVERLAP : 0;
    numafit_host_t *host = NULL;
    numafit_error_t err;
    fuzz_error_prefill(&err);
    int r = numafit_host_new_from_records(rec, n, nb, nlen, flags, &host, &err);
    if (r < 0) {
        fuzz_check_failure(r, &err, host);
        FUZZ_ASSERT(r == -EINVAL || r == -ERANGE || r == -ENOMEM);
    } else {
        FUZZ_ASSERT(r == 0 && host != NULL);
        int ncells = numafit_host_get_cell_count(host);
        for (int i = 0; i < ncells; i++) {
            size_t need = 0, got = 0;
            FUZZ_ASSERT(numafit_host_get_cell_usage(host, (unsigned)i, 0, NULL, 0, &need) ==
                        -ENOSPC);
            int64_t *u = malloc(need * sizeof(int64_t));
            FUZZ_ASSERT(u != NULL);
            FUZZ_ASSERT(numafit_host_get_cell_usage(host, (unsigned)i, 0, u, need, &got) == 0);
            FUZZ_ASSERT(got == need && u[2] >= 0 && (size_t)u[2] + 4 <= need);
            FUZZ_ASSERT(need == 4 + (size_t)u[2] + 4 * (size_t)u[3 + u[2]]);
            free(u);
        }
        fuzz_check_host(host, flags, NULL);
        numafit_host_free(host);
    }
    free(nb);
    free(rec);
    return 0;
}
