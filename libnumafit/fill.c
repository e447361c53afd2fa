/*
 * Fill a host: fit and claim requests until none fits any more (or a
 * maximum count, or the caller says stop). The one loop behind the CLI's
 * single-host plan, the fleet planner's fills, bench/fleet and the Python
 * binding's plan().
 *
 * Each step is numafit_fit() then numafit_host_claim() of its placement,
 * so each claim is all or nothing; the claims made stay on the host. With
 * PCI pools and requests in the options, each claim also takes its devices
 * from a copy of the pools (the options and their pools are the caller's).
 */
#include "config.h"

#include <string.h>

#include <numafit/pci.h>

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

/* The devices of the claimed placement p, from the fill's pools; on
 * failure the claim is undone. */
static int take_devices(numafit_host_t *host, numafit_pci_pools_t *pools,
                        const numafit_options_t *o, const numafit_placement_t *p,
                        numafit_error_t *reterr) {
    int64_t ids[NUMAFIT_MAX_CELLS];
    uint32_t n = p->ncells;
    int rc;
    for (uint32_t i = 0; i < n; i++)
        ids[i] = p->cells[i].host_id;
    rc = numafit_pci_apply_flags(pools, host, o->pci_reqs, ids, n,
                                 o->profile == NUMAFIT_PROFILE_ZED ? NUMAFIT_PCI_ZED : 0, reterr);
    if (rc < 0) {
        /* the claim was just made: giving it back cannot fail */
        numafit_error_t e;
        int undo = numafit_host_release(host, p, 0, &e);
        if (undo < 0)
            rc = undo;
    }
    return rc;
}

static int fill(numafit_host_t *host, const struct numafit_request *const *reqs, size_t nreqs,
                const struct numafit_options *opt, numafit_pci_pools_t *pools, uint64_t max,
                unsigned flags, numafit_host_fill_cb cb, void *cb_ctx, uint64_t *ret_counts,
                numafit_error_t *reterr);

NUMAFIT_EXPORT int numafit_host_fill(numafit_host_t *host,
                                     const struct numafit_request *const *reqs, size_t nreqs,
                                     const struct numafit_options *opt, uint64_t max,
                                     unsigned flags, numafit_host_fill_cb cb, void *cb_ctx,
                                     uint64_t *ret_counts, numafit_error_t *reterr) {
    numafit_options_t *own = NULL;
    numafit_pci_pools_t *pools = NULL;
    int rc;
    if (opt && opt->pci_pools && opt->pci_reqs &&
        numafit_pci_requests_get_count(opt->pci_reqs) > 0) {
        /* the devices run out as the claims take them: a copy of the pools */
        if ((rc = numafit_pci_pools_dup(opt->pci_pools, &pools)) < 0 ||
            (rc = numafit_options_dup(opt, &own)) < 0) {
            numafit_pci_pools_free(pools);
            numafit__error_set(reterr, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
            return rc;
        }
        own->pci_pools = pools;
        opt = own;
    }
    rc = fill(host, reqs, nreqs, opt, pools, max, flags, cb, cb_ctx, ret_counts, reterr);
    numafit_options_free(own);
    numafit_pci_pools_free(pools);
    return rc;
}

static int fill(numafit_host_t *host, const struct numafit_request *const *reqs, size_t nreqs,
                const struct numafit_options *opt, numafit_pci_pools_t *pools, uint64_t max,
                unsigned flags, numafit_host_fill_cb cb, void *cb_ctx, uint64_t *ret_counts,
                numafit_error_t *reterr) {
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
        if (rc == 0 && pools)
            rc = take_devices(host, pools, opt, p, reterr);
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
