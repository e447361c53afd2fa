/*
 * A compute node in nova's two steps (numafit_node_*): placement's
 * inventory, then the NUMA fit; claims on both, all or nothing.
 */
#include "config.h"

#include "private.h"

static int bad_arg(numafit_error_t *err, const char *what) {
    numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL, "%s", what);
    return -EINVAL;
}

NUMAFIT_EXPORT int numafit_node_fit(const numafit_host_t *host, const numafit_inventory_t *inv,
                                    const numafit_request_t *req, const int64_t *amounts, size_t n,
                                    const numafit_options_t *opt, unsigned flags,
                                    numafit_placement_t **ret, numafit_error_t *err) {
    int r;
    numafit__error_clear(err);
    if (!host || !inv || !req)
        return bad_arg(err, "a host, an inventory and a request are required");
    r = numafit_inventory_check(inv, amounts, n, flags, err);
    if (r <= 0)
        return r;
    if (!req->ncells) {
        if (ret)
            *ret = NULL;
        return 1;
    }
    return numafit_fit(host, req, opt, 0, ret, err);
}

NUMAFIT_EXPORT int numafit_node_claim(numafit_host_t *host, numafit_inventory_t *inv,
                                      const numafit_placement_t *p, const int64_t *amounts,
                                      size_t n, numafit_error_t *err) {
    int r;
    numafit__error_clear(err);
    if (!host || !inv)
        return bad_arg(err, "a host and an inventory are required");
    r = numafit_inventory_check(inv, amounts, n, 0, err);
    if (r < 0)
        return r;
    if (r == 0)
        return -ENOSPC;
    if (p && (r = numafit_host_claim(host, p, 0, err)) < 0)
        return r;
    /* the room was checked on this very inventory: this cannot fail; if it
     * ever did, the host's claim is undone */
    r = numafit_inventory_claim(inv, amounts, n, err);
    if (r < 0 && p) {
        int undo = numafit_host_release(host, p, 0, NULL);
        (void)undo;
    }
    return r;
}

NUMAFIT_EXPORT int numafit_node_release(numafit_host_t *host, numafit_inventory_t *inv,
                                        const numafit_placement_t *p, const int64_t *amounts,
                                        size_t n, numafit_error_t *err) {
    numafit_inventory_t *copy = NULL;
    int r;
    numafit__error_clear(err);
    if (!host || !inv)
        return bad_arg(err, "a host and an inventory are required");
    /* the inventory's release is tried on a copy first: all or nothing */
    if ((r = numafit_inventory_dup(inv, &copy)) < 0) {
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
        return r;
    }
    r = numafit_inventory_release(copy, amounts, n, err);
    if (r == 0 && p)
        r = numafit_host_release(host, p, 0, err);
    if (r == 0)
        r = numafit_inventory_release(inv, amounts, n, err);
    numafit_inventory_free(copy);
    return r;
}
