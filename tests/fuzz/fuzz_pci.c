/*
 * libFuzzer target: PCI device pools and requests (numafit_pci_*): their
 * JSON readers and nova's scheduler rules.
 *
 * Input: POOLS_JSON [ NUL REQUESTS_JSON [ NUL CELLS ] ]. CELLS: each byte
 * a guest cell (its value mod 6: the host's 4 cells, and two ids no cell
 * has); no third part: no guest cells.
 * Invariants:
 *  - a refused input leaves *ret untouched and fills the error text;
 *  - accepted pools write JSON that reads back to equal pools and the same
 *    text; a dup is equal; accepted requests write JSON that reads back to
 *    the same text;
 *  - on two fixed hosts (sockets known, and a cell per socket) support
 *    answers 0 or 1; on 0 the error names a request; apply succeeds exactly
 *    when support says 1, a refused apply (-ENOSPC) changes nothing, a
 *    successful one leaves no more devices and pools than before, and pools
 *    that read back. The same without a host (the socket policy then finds
 *    nothing beyond the guest's cells).
 *  - the fit with the pools and requests (numafit_options_set_pci) of a
 *    one-cell and a two-cell guest on both hosts: a fit's host cells
 *    satisfy the requests (numafit_pci_support) and its devices can be
 *    taken; the fit with the library's rules given as the caller's check
 *    gives the same cells; a refusal for devices (NOFIT_PCI) only where
 *    the fit without requests finds cells; a fit only where the fit
 *    without requests finds one;
 *  - the second part read as a flavor ({"extra_specs": ...}) with the first
 *    as nova.conf's text (numafit_pci_requests_from_flavor, both profiles):
 *    requests that write JSON reading back to the same text, or a refusal
 *    with a text (with nova's exception class for -EINVAL).
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numafit.h>

#include "invariants.h"

static void check_err(const numafit_error_t *e) {
    FUZZ_ASSERT(memchr(e->text, '\0', sizeof(e->text)) != NULL);
    FUZZ_ASSERT(memchr(e->where, '\0', sizeof(e->where)) != NULL);
    FUZZ_ASSERT(e->text[0] != '\0');
}

static int64_t total(const numafit_pci_pools_t *p) {
    int64_t t = 0, c;
    int n = numafit_pci_pools_get_count(p);
    for (int i = 0; i < n; i++) {
        FUZZ_ASSERT(numafit_pci_pools_get(p, (unsigned)i, NULL, NULL, NULL, NULL, &c) == 0);
        t += c;
    }
    return t;
}

static void round_trip_pools(const numafit_pci_pools_t *p) {
    numafit_pci_pools_t *back = NULL, *copy = NULL;
    numafit_error_t e;
    char *txt = NULL, *txt2 = NULL;
    FUZZ_ASSERT(numafit_pci_pools_to_json(p, 0, &txt, &e) == 0);
    FUZZ_ASSERT(numafit_pci_pools_new_from_json(txt, strlen(txt), 0, &back, &e) == 0);
    FUZZ_ASSERT(numafit_pci_pools_equal(p, back) == 1);
    FUZZ_ASSERT(numafit_pci_pools_to_json(back, 0, &txt2, &e) == 0);
    FUZZ_ASSERT(strcmp(txt, txt2) == 0);
    FUZZ_ASSERT(numafit_pci_pools_dup(p, &copy) == 0);
    FUZZ_ASSERT(numafit_pci_pools_equal(p, copy) == 1);
    numafit_free(txt);
    numafit_free(txt2);
    numafit_pci_pools_free(back);
    numafit_pci_pools_free(copy);
}

static void check_rules(const numafit_pci_pools_t *pools, const numafit_host_t *h,
                        const numafit_pci_requests_t *reqs, const int64_t *cells, size_t n) {
    numafit_pci_pools_t *copy = NULL, *before = NULL;
    numafit_error_t e;
    int s = numafit_pci_support(pools, h, reqs, cells, n, &e), a;
    FUZZ_ASSERT(s == 0 || s == 1);
    if (s == 0) {
        check_err(&e);
        FUZZ_ASSERT(strncmp(e.where, "pci_requests/", 13) == 0);
    }
    FUZZ_ASSERT(numafit_pci_pools_dup(pools, &copy) == 0);
    FUZZ_ASSERT(numafit_pci_pools_dup(pools, &before) == 0);
    a = numafit_pci_apply(copy, h, reqs, cells, n, &e);
    FUZZ_ASSERT(a == (s ? 0 : -ENOSPC));
    if (a < 0) {
        FUZZ_ASSERT(numafit_pci_pools_equal(copy, before) == 1);
    } else {
        FUZZ_ASSERT(total(copy) <= total(before));
        FUZZ_ASSERT(numafit_pci_pools_get_count(copy) <= numafit_pci_pools_get_count(before));
        round_trip_pools(copy);
    }
    numafit_pci_pools_free(copy);
    numafit_pci_pools_free(before);
}

struct check_ctx {
    const numafit_pci_pools_t *pools;
    const numafit_host_t *host;
    const numafit_pci_requests_t *reqs;
};

static int library_check(void *ctx, const int64_t *ids, size_t n) {
    const struct check_ctx *c = ctx;
    return numafit_pci_support(c->pools, c->host, c->reqs, ids, n, NULL);
}

/* numafit_fit with these options: the host cell ids of its placement
 * (ids, *n), its return value. */
static int fit_cells(const numafit_host_t *h, const numafit_request_t *r,
                     const numafit_options_t *o, int64_t *ids, size_t *n, numafit_error_t *e) {
    numafit_placement_t *p = NULL;
    int rc = numafit_fit(h, r, o, 0, &p, e);
    *n = 0;
    FUZZ_ASSERT(rc == 1 || rc == 0 || rc == -E2BIG);
    if (rc == 1) {
        int k = numafit_placement_get_cell_count(p);
        for (int i = 0; i < k && i < 64; i++)
            ids[(*n)++] = numafit_placement_get_host_cell(p, (unsigned)i);
        numafit_placement_free(p);
    }
    return rc;
}

static void check_fit(const numafit_pci_pools_t *pools, const numafit_host_t *h,
                      const numafit_pci_requests_t *reqs, const numafit_request_t *r) {
    numafit_options_t *o = NULL;
    numafit_pci_pools_t *copy = NULL;
    numafit_error_t e;
    int64_t ids[64], ids2[64], ids0[64];
    size_t n, n2, n0;
    struct check_ctx ctx = {pools, h, reqs};
    int rc, rc2, rc0;
    FUZZ_ASSERT(numafit_options_new(&o) == 0);
    FUZZ_ASSERT(numafit_options_set_pci(o, pools, reqs) == 0);
    rc = fit_cells(h, r, o, ids, &n, &e);
    FUZZ_ASSERT(numafit_options_set_pci_check(o, library_check, &ctx) == 0);
    rc2 = fit_cells(h, r, o, ids2, &n2, &e);
    FUZZ_ASSERT(rc == rc2 || rc == -E2BIG || rc2 == -E2BIG);
    if (rc == 1 && rc2 == 1)
        FUZZ_ASSERT(n == n2 && memcmp(ids, ids2, n * sizeof(*ids)) == 0);
    FUZZ_ASSERT(numafit_options_set_pci(o, pools, NULL) == 0);
    FUZZ_ASSERT(numafit_options_set_pci_check(o, NULL, NULL) == 0);
    rc0 = fit_cells(h, r, o, ids0, &n0, &e);
    if (rc == 1) {
        FUZZ_ASSERT(rc0 == 1);
        FUZZ_ASSERT(numafit_pci_support(pools, h, reqs, ids, n, &e) == 1);
        FUZZ_ASSERT(numafit_pci_pools_dup(pools, &copy) == 0);
        FUZZ_ASSERT(numafit_pci_apply(copy, h, reqs, ids, n, &e) == 0);
        numafit_pci_pools_free(copy);
    }
    if (rc == 0) {
        rc = numafit_fit(h, r, o, 0, NULL, &e); /* pools alone: the first cells */
        if (rc == 1) {
            numafit_options_set_pci(o, pools, reqs);
            FUZZ_ASSERT(numafit_fit(h, r, o, 0, NULL, &e) == 0);
            FUZZ_ASSERT(e.code == NUMAFIT_E_NOFIT_PCI);
            FUZZ_ASSERT(strncmp(e.where, "pci_requests/", 13) == 0);
        }
    }
    numafit_options_free(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static numafit_host_t *hosts[2];
    static numafit_request_t *guests[2];
    const char *buf = (const char *)data;
    const char *nul = memchr(buf, '\0', size), *nul2 = NULL;
    size_t plen = nul ? (size_t)(nul - buf) : size, rlen = 0, ncells = 0;
    numafit_pci_pools_t *pools = (numafit_pci_pools_t *)&pools;
    numafit_pci_pools_t *const sentinel = pools;
    numafit_pci_requests_t *reqs = NULL;
    numafit_error_t e;
    int64_t cells[64];
    int rc;

    if (!hosts[0]) {
        FUZZ_ASSERT(numafit_host_new_synthetic("cells:4 sockets:2 cores:4 mem:16G", 0, &hosts[0],
                                               NULL) == 0);
        FUZZ_ASSERT(numafit_host_new_synthetic("cells:4 sockets:4 cores:2 mem:16G", 0, &hosts[1],
                                               NULL) == 0);
        {
            static const char *const fl[2] = {
                "{\"vcpus\":2,\"memory_mb\":1024,\"extra_specs\":{\"hw:numa_nodes\":\"1\","
                "\"hw:cpu_policy\":\"dedicated\"}}",
                "{\"vcpus\":4,\"memory_mb\":2048,\"extra_specs\":{\"hw:numa_nodes\":\"2\"}}"};
            for (int g = 0; g < 2; g++)
                FUZZ_ASSERT(
                    numafit_request_new(fl[g], strlen(fl[g]), NULL, 0, 0, &guests[g], NULL) == 1);
        }
    }
    if (nul) {
        const char *n2 = memchr(nul + 1, '\0', size - plen - 1);
        size_t flen = n2 ? (size_t)(n2 - nul - 1) : size - plen - 1;
        for (unsigned zed = 0; zed < 2; zed++) {
            numafit_pci_requests_t *fr = NULL;
            int frc = numafit_pci_requests_from_flavor(nul + 1, flen, NULL, 0, buf, plen,
                                                       zed ? NUMAFIT_PCI_ZED : 0, &fr, &e);
            FUZZ_ASSERT(frc == 0 || frc == -EINVAL || frc == -EBADMSG || frc == -ERANGE ||
                        frc == -ENOMEM);
            if (frc < 0) {
                FUZZ_ASSERT(fr == NULL);
                check_err(&e);
                if (frc == -EINVAL && e.code == NUMAFIT_E_REQUEST) {
                    static const char *const known[] = {"PciInvalidAlias",
                                                        "PciRequestAliasNotDefined",
                                                        "ValueError",
                                                        "ImagePCINUMAPolicyForbidden",
                                                        "InvalidPCINUMAAffinity",
                                                        "NoSuchOptError",
                                                        NULL};
                    bool ok = false;
                    for (unsigned k = 0; known[k]; k++)
                        ok = ok || !strcmp(e.exception, known[k]);
                    FUZZ_ASSERT(ok);
                }
            } else {
                char *t1 = NULL, *t2 = NULL;
                numafit_pci_requests_t *back = NULL;
                FUZZ_ASSERT(numafit_pci_requests_to_json(fr, 0, &t1, &e) == 0);
                FUZZ_ASSERT(numafit_pci_requests_new_from_json(t1, strlen(t1), 0, &back, &e) == 0);
                FUZZ_ASSERT(numafit_pci_requests_to_json(back, 0, &t2, &e) == 0);
                FUZZ_ASSERT(strcmp(t1, t2) == 0);
                numafit_free(t1);
                numafit_free(t2);
                numafit_pci_requests_free(back);
                numafit_pci_requests_free(fr);
            }
        }
    }
    rc = numafit_pci_pools_new_from_json(buf, plen, 0, &pools, &e);
    if (rc < 0) {
        FUZZ_ASSERT(pools == sentinel);
        FUZZ_ASSERT(rc == -EINVAL || rc == -EBADMSG || rc == -ERANGE || rc == -ENOMEM);
        check_err(&e);
        return 0;
    }
    round_trip_pools(pools);
    if (nul) {
        const char *r = nul + 1;
        size_t left = size - plen - 1;
        nul2 = memchr(r, '\0', left);
        rlen = nul2 ? (size_t)(nul2 - r) : left;
        rc = numafit_pci_requests_new_from_json(r, rlen, 0, &reqs, &e);
        if (rc < 0) {
            FUZZ_ASSERT(reqs == NULL);
            check_err(&e);
        } else {
            char *txt = NULL, *txt2 = NULL;
            numafit_pci_requests_t *back = NULL;
            FUZZ_ASSERT(numafit_pci_requests_to_json(reqs, 0, &txt, &e) == 0);
            FUZZ_ASSERT(numafit_pci_requests_new_from_json(txt, strlen(txt), 0, &back, &e) == 0);
            FUZZ_ASSERT(numafit_pci_requests_to_json(back, 0, &txt2, &e) == 0);
            FUZZ_ASSERT(strcmp(txt, txt2) == 0);
            FUZZ_ASSERT(numafit_pci_requests_get_count(back) ==
                        numafit_pci_requests_get_count(reqs));
            numafit_free(txt);
            numafit_free(txt2);
            numafit_pci_requests_free(back);
        }
    }
    if (reqs) {
        if (nul2) {
            const uint8_t *c = (const uint8_t *)nul2 + 1;
            size_t left = size - (size_t)((const char *)c - buf);
            for (size_t i = 0; i < left && ncells < 64; i++)
                cells[ncells++] = c[i] % 6;
        }
        for (int k = 0; k < 2; k++) {
            check_rules(pools, hosts[k], reqs, nul2 ? cells : NULL, nul2 ? ncells : 0);
            check_rules(pools, NULL, reqs, nul2 ? cells : NULL, nul2 ? ncells : 0);
            for (int g = 0; g < 2; g++)
                check_fit(pools, hosts[k], reqs, guests[g]);
        }
    }
    numafit_pci_requests_free(reqs);
    numafit_pci_pools_free(pools);
    return 0;
}
