/*
 * libFuzzer target: extra specs checked as nova's API checks them
 * (numafit_extra_specs_validate, numafit_extra_spec_validate).
 *
 * Input: a flavor's extra specs JSON (or a flavor with "extra_specs");
 * and, split at the first NUL byte, a key and a value for the one-key
 * check (its UTF-8 matching, Python's int() and the value patterns).
 * Invariants: an answer is 0 or a known negative errno; a refusal has a
 * text, a valid one names ValidationError and where "extra_specs/..."; both
 * profiles answer, the same input gives the same answer twice; a key that
 * passes alone passes in a one-key object (when the schema allows it).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <numafit.h>

#include "invariants.h"

static void check_refusal(int r, const numafit_error_t *err) {
    FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -EBADMSG || r == -ERANGE || r == -ENOMEM);
    if (r == -EINVAL && !strncmp(err->where, "extra_specs/", 12))
        FUZZ_ASSERT(!strcmp(err->exception, "ValidationError"));
    if (r < 0)
        FUZZ_ASSERT(err->text[0] != '\0');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    numafit_error_t err;
    const char *nul = memchr(data, '\0', size);

    for (unsigned flags = 0; flags <= NUMAFIT_XS_ZED; flags += NUMAFIT_XS_ZED) {
        int r, r2;
        fuzz_error_prefill(&err);
        r = numafit_extra_specs_validate((const char *)data, size, flags, "acme,hw:x", &err);
        fuzz_check_error(&err);
        check_refusal(r, &err);
        r2 = numafit_extra_specs_validate((const char *)data, size, flags, "acme,hw:x", &err);
        FUZZ_ASSERT(r2 == r || r2 == -ENOMEM || r == -ENOMEM);
    }
    if (nul && size - (size_t)(nul - (const char *)data) > 1) {
        /* key NUL value (the value up to the next NUL) */
        size_t kn = (size_t)(nul - (const char *)data);
        char *key = malloc(kn + 1), *val = malloc(size - kn);
        int r;
        FUZZ_ASSERT(key && val);
        memcpy(key, data, kn);
        key[kn] = '\0';
        memcpy(val, nul + 1, size - kn - 1);
        val[size - kn - 1] = '\0';
        for (unsigned flags = 0; flags <= NUMAFIT_XS_ZED; flags += NUMAFIT_XS_ZED) {
            fuzz_error_prefill(&err);
            r = numafit_extra_spec_validate(key, val, flags, &err);
            fuzz_check_error(&err);
            check_refusal(r, &err);
            if (r < 0)
                FUZZ_ASSERT(!strcmp(err.exception, "ValidationError"));
        }
        free(key);
        free(val);
    }
    return 0;
}
