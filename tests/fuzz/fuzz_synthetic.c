/*
 * libFuzzer target: synthetic host specs (numafit_host_new_synthetic), both
 * the key:value form ("cells:2 cores:8 threads:2 mem:64G pages:2M=512") and
 * the short form ("2x32c2t 4cells 1G:64"), with their pci: tokens
 * (numafit_pci_pools_new_from_spec).
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
    FUZZ_ASSERT(r == 0 && host != NULL);
    fuzz_check_host(host, 0, NULL);
    {
        /* the pci: tokens the host accepted make pools (but for a cell the
         * host lacks or too many pools), which read back as written */
        numafit_pci_pools_t *pools = NULL, *back = NULL;
        char *txt = NULL;
        fuzz_error_prefill(&err);
        r = numafit_pci_pools_new_from_spec(spec, host, 0, &pools, &err);
        if (r < 0) {
            FUZZ_ASSERT(r == -EINVAL || r == -ERANGE || r == -ENOMEM);
            FUZZ_ASSERT(pools == NULL && err.text[0]);
        } else {
            FUZZ_ASSERT(pools != NULL);
            if (!strstr(spec, "pci:"))
                FUZZ_ASSERT(numafit_pci_pools_get_count(pools) == 0);
            r = numafit_pci_pools_to_json(pools, 0, &txt, &err);
            FUZZ_ASSERT(r == 0 || r == -ENOMEM);
            if (r == 0) {
                r = numafit_pci_pools_new_from_json(txt, strlen(txt), 0, &back, &err);
                FUZZ_ASSERT(r == 0 || r == -ENOMEM);
                if (r == 0)
                    FUZZ_ASSERT(numafit_pci_pools_equal(pools, back) == 1);
            }
        }
        numafit_free(txt);
        numafit_pci_pools_free(back);
        numafit_pci_pools_free(pools);
    }
    free(spec);
    numafit_host_free(host);
    return 0;
}
