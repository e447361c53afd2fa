/*
 * libFuzzer target: synthetic host specs (numafit_host_new_synthetic), both
 * the key:value form ("cells:2 cores:8 threads:2 mem:64G pages:2M=512") and
 * the short form ("2x32c2t 4cells 1G:64").
 *
 * Input: the spec (up to its first NUL byte). A host gets every invariant
 * of invariants.h; a refusal leaves *ret_host untouched with a text; a spec
 * of white space only is refused.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <numafit.h>

#include "invariants.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    numafit_host_t *host = NULL;
    numafit_error_t err;
    char *spec = malloc(size + 1);
    int r;

    if (!spec)
        return 0;
    memcpy(spec, data, size);
    spec[size] = '\0';
    fuzz_error_prefill(&err);
    r = numafit_host_new_synthetic(spec, 0, &host, &err);
    if (spec[strspn(spec, " \t\n\v\f\r")] == '\0')
        FUZZ_ASSERT(r < 0); /* nothing described: refused, not a default host */
    if (r < 0) {
        /* -EBADMSG too: a CPU set's syntax (numafit_cpuset_parse), though
         * host.h lists only -EINVAL, -ERANGE, -ENOMEM */
        fuzz_check_failure(r, &err, host);
        FUZZ_ASSERT(r == -EINVAL || r == -ERANGE || r == -ENOMEM || r == -EBADMSG);
        free(spec);
        return 0;
    }
    free(spec);
    FUZZ_ASSERT(r == 0 && host != NULL);
    fuzz_check_host(host, 0, NULL);
    numafit_host_free(host);
    return 0;
}
