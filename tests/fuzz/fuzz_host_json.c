/*
 * libFuzzer target: the host JSON reader (numafit_host_new_from_json).
 *
 * Input: the JSON document (binary; the reader takes pointer and length).
 * It is loaded without flags and, if refused, with NUMAFIT_HOST_ALLOW_OVERLAP.
 * A loaded host gets every host invariant of invariants.h (JSON round trips,
 * fit, claim and release of fixed requests). On failure: *ret_host
 * untouched, a non-empty error text.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <numafit.h>

#include "invariants.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const unsigned tries[] = {0, NUMAFIT_HOST_ALLOW_OVERLAP};
    numafit_host_t *host = NULL;
    numafit_error_t err;
    unsigned flags = 0;
    int r = -1;

    for (size_t t = 0; t < 2 && r < 0; t++) {
        flags = tries[t];
        fuzz_error_prefill(&err);
        r = numafit_host_new_from_json((const char *)data, size, flags, &host, &err);
        if (r < 0) {
            fuzz_check_failure(r, &err, host);
            FUZZ_ASSERT(r == -EBADMSG || r == -EINVAL || r == -ERANGE || r == -ENOMEM);
        }
    }
    if (r < 0)
        return 0;
    FUZZ_ASSERT(r == 0 && host != NULL);
    fuzz_check_host(host, flags, NULL);
    numafit_host_free(host);
    return 0;
}
