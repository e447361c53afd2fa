/*
 * Fill a host: fit and claim requests until none fits any more (or a
 * maximum count, or the caller says stop). The one loop behind the CLI's
 * single-host plan, the fleet planner's fills, bench/fleet and the Python
 * binding's plan().
 *
 * Each step is numafit_fit() then numafit_host_claim() of its placement,
 * so each claim is all or nothing; the claims made stay on the host.
 */
#include "config.h"

#include <string.h>

#include "private.h"

/* What the callback's answer rc means for the fill: 0 go on, else the
 * fill's return value (rc < 0 fails it, rc > 0 stops it). */
static int cb_verdict(int rc, numafit_error_t *reterr) {
    if (rc < 0)
        return rc;
    if (rc > 0) {
        numafit__error_clear(reterr);
        return NUMAFIT_FILL_STOPPED;
    }
    return 0;
}

NUMAFIT_EXPORT int numafit_host_fill(numafit_host_t *host,
                                     const struct numafit_request *const *reqs, size_t nreqs,
                                     const struct numafit_options *opt, uint64_t max,
                                     unsigned flags, numafit_host_fill_cb cb, void *cb_ctx,
                                     uint64_t *ret_counts, numafit_error_t *reterr) {
    uint64_t placed = 0;
    size_t next = 0, misses = 0;
    int rc;

    numafit__error_clear(reterr);
    if (!host || !reqs || nreqs == 0 || (flags & ~(unsigned)NUMAFIT_FILL_NOTIFY_MISSES)) {
        numafit__error_set(reterr, NUMAFIT_E_INVALID_ARG, -1, "", NULL,
                           "numafit_host_fill: bad argument");
        return -EINVAL;
    }
    for (size_t i = 0; i < nreqs; i++)
        if (!reqs[i]) {
            numafit__error_set(reterr, NUMAFIT_E_INVALID_ARG, -1, "", NULL,
                               "numafit_host_fill: request %zu is NULL", i);
            return -EINVAL;
        }
    if (ret_counts)
        memset(ret_counts, 0, nreqs * sizeof(*ret_counts));

    /* round-robin: one attempt per request in turn; full when every
     * request was refused since the last claim */
    while (misses < nreqs) {
        size_t i = next;
        numafit_placement_t *p = NULL;

        if (placed == max) {
            numafit__error_clear(reterr);
            return NUMAFIT_FILL_MAX;
        }
        next = next + 1 == nreqs ? 0 : next + 1;
        rc = numafit_fit(host, reqs[i], opt, 0, &p, reterr);
        if (rc == 0 || rc == -E2BIG) {
            /* refused, or too complex to decide (reterr: TOO_COMPLEX) */
            misses++;
            if (cb && (flags & NUMAFIT_FILL_NOTIFY_MISSES) &&
                (rc = cb_verdict(cb(cb_ctx, i, NULL), reterr)) != 0)
                return rc;
            continue;
        }
        if (rc < 0)
            return rc;
        rc = numafit_host_claim(host, p, 0, reterr);
        if (rc < 0) {
            numafit_placement_free(p);
            return rc;
        }
        misses = 0;
        placed++;
        if (ret_counts)
            ret_counts[i]++;
        rc = cb ? cb_verdict(cb(cb_ctx, i, p), reterr) : 0;
        numafit_placement_free(p);
        if (rc != 0)
            return rc;
    }
    /* reterr holds the last refusal */
    return NUMAFIT_FILL_FULL;
}
