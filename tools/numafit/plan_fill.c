/*
 * numafit plan over a fleet: the fills. For one strategy (host cell order):
 *
 *  - alone: every flavor on its own, each host filled until the flavor no
 *    longer fits (on a copy of the host; identical hosts of an --add-hosts
 *    group are filled once);
 *  - mixed: the flavors together, round-robin or by weights, each instance
 *    on the first host in fleet order where it fits. Hosts only get fuller,
 *    so a flavor that does not fit host h now never will later in the fill:
 *    each flavor keeps a cursor, and the fill costs O(hosts x flavors +
 *    instances) fits;
 *  - with --target, the mixed fill of N instances in the mix's proportions
 *    on lazily made copies of the hosts it reaches: how many hosts of the
 *    fleet, in fleet order, it needs;
 *  - what the mixed fill leaves (doc/plan-json.md <capacity>), per host and
 *    in total, the hosts stranding most, and why the flavors that fit
 *    nowhere do not fit (numafit_fit_explain on at most
 *    PLAN_EXPLAIN_SAMPLE hosts).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include <numafit.h>

#include "cli_io.h"
#include "plan_fleet.h"

#define PLAN_CPU_IDS (NUMAFIT_CPU_MAX + 1)

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The strategies, by enum numafit_strategy. */
static const char *const strategy_names[PLAN_MAX_STRATEGIES] = {
    "spread",   /* NUMAFIT_STRATEGY_SPREAD: nova's default since Zed */
    "pack",     /* NUMAFIT_STRATEGY_PACK */
    "headroom", /* NUMAFIT_STRATEGY_HEADROOM: numafit's own, not nova's */
};

const char *plan_strategy_name(int strategy) {
    return strategy >= 0 && strategy < PLAN_MAX_STRATEGIES ? strategy_names[strategy] : NULL;
}

int plan_strategy_from_name(const char *name) {
    for (int s = 0; s < PLAN_MAX_STRATEGIES; s++)
        if (strcmp(strategy_names[s], name) == 0)
            return s;
    return -1;
}

void plan_target_shares(struct plan *pl) {
    double wsum = 0, rem[PLAN_MAX_FLAVORS];
    uint64_t given = 0;
    for (unsigned f = 0; f < pl->nflavors; f++)
        if (pl->flavors[f].planned)
            wsum += pl->weights ? pl->flavors[f].weight : 1.0;
    for (unsigned f = 0; f < pl->nflavors; f++) {
        double exact;
        pl->target_share[f] = 0;
        rem[f] = -1;
        if (!pl->flavors[f].planned || wsum <= 0)
            continue;
        exact = (double)pl->target * (pl->weights ? pl->flavors[f].weight : 1.0) / wsum;
        pl->target_share[f] = (uint64_t)floor(exact);
        rem[f] = exact - floor(exact);
        given += pl->target_share[f];
    }
    /* the rest (fewer than the planned flavors), one each to the largest
     * remainders, earlier flavors on ties */
    while (given < pl->target) {
        int best = -1;
        for (unsigned f = 0; f < pl->nflavors; f++)
            if (rem[f] >= 0 && (best < 0 || rem[f] > rem[best]))
                best = (int)f;
        if (best < 0)
            break;
        pl->target_share[best]++;
        rem[best] = -1;
        given++;
    }
}

const char *plan_reason_name(int reason) {
    static const char *const names[R__MAX] = {
        "pages",   "dedicated_cpus", "shared_cpus", "full_cores", "memory",      "limits",
        "network", "cells",          "joint",       "other",      "pci_devices", "inventory"};
    return reason >= 0 && reason < R__MAX ? names[reason] : "other";
}

double plan_host_cpu_ratio(const struct plan *pl, size_t host) {
    double r = pl->limits[pl->hosts[host].limits].cpu_ratio;
    return r > 0 ? r : 1.0;
}

/* The PCI rules of the plan's nova release. */
static unsigned pci_flags(const struct plan *pl) {
    return pl->profile == NUMAFIT_PROFILE_ZED ? NUMAFIT_PCI_ZED : 0;
}

static const numafit_options_t *host_opt(const struct plan *pl, size_t host, int strategy) {
    return pl->limits[pl->hosts[host].limits].opt[strategy];
}

/* Pinned vCPUs plus emulator CPUs of a placement. */
static int placement_pcpus(const numafit_placement_t *p) {
    char *txt = NULL;
    json_t *cells, *c;
    size_t i;
    int n = 0;
    if (numafit_placement_to_json(p, 0, &txt, NULL) < 0)
        return -1;
    cells = json_loads(txt, 0, NULL);
    numafit_free(txt);
    if (!cells)
        return -1;
    json_array_foreach(cells, i, c) {
        n += (int)json_object_size(json_object_get(c, "cpu_pinning"));
        n += (int)json_array_size(json_object_get(c, "cpuset_reserved"));
    }
    json_decref(cells);
    return n;
}

/* ------------------------------------------------------------------ fill state */

struct fill {
    struct plan *pl;
    int strategy;
    numafit_host_t **fleet;     /* the hosts being filled */
    bool own_fleet;             /* fleet[] are copies */
    uint32_t *cnt;              /* [host * nflavors + f] instances placed by the mixed fill */
    uint32_t *tot;              /* [host] instances placed on it (mixed) */
    int pins[PLAN_MAX_FLAVORS]; /* pinned pCPUs per instance, -1 until known */
    struct plan_kept **kept;    /* [host < keep] placements kept for the detail */
    uint32_t *nkept, *kept_cap;
    numafit_inventory_t **inv;     /* [host] the inventories being filled (mixed), or NULL */
    uint64_t *nonnuma;             /* [host] memory of the mix's guests without NUMA topology */
    bool legacy[PLAN_MAX_FLAVORS]; /* mixed: the flavor asks nova's second query */
    numafit_pci_pools_t **pools;   /* [host] the devices left (mixed; copies), or NULL */
    struct plan_result *res;
    /* the --target fill: copies made when the fill reaches a host (fleet[]
     * NULL before), each flavor placed up to its share, no detail kept */
    bool target;
    size_t reach; /* hosts [0, reach) given an instance: the last one + 1 */
};

/* The target fill reaches host hi: its copies (host, inventory, devices). */
static int reach_host(struct fill *F, size_t hi) {
    const struct plan_host *ph = &F->pl->hosts[hi];
    if (F->fleet[hi])
        return 0;
    if (numafit_host_dup(ph->h, &F->fleet[hi]) < 0 ||
        (F->inv && numafit_inventory_dup(ph->inv, &F->inv[hi]) < 0) ||
        (F->pools && ph->pools && numafit_pci_pools_dup(ph->pools, &F->pools[hi]) < 0)) {
        plan_error(F->pl, "out of memory");
        return -1;
    }
    if (F->nonnuma)
        F->nonnuma[hi] = ph->nonnuma_mb;
    return 0;
}

/* Host hi's inventory in the mixed fill (the target fill's before it
 * reaches the host: the fleet's). */
static const numafit_inventory_t *fill_inv(const struct fill *F, size_t hi) {
    return F->inv[hi] ? F->inv[hi] : F->pl->hosts[hi].inv;
}

/* The devices host hi has now: the mixed fill's, else the fleet's. */
static const numafit_pci_pools_t *host_pools(const struct fill *F, size_t hi, bool mixed) {
    return mixed && F->pools ? F->pools[hi] : F->pl->hosts[hi].pools;
}

/* The options of a fit of flavor f on host hi with pools (NULL: none):
 * host_opt's, and with devices a copy in *own that holds them (nova sorts
 * the cells by devices whenever the host has pools; a flavor asking for
 * devices fits no host without any). Returns NULL when out of memory. */
static const numafit_options_t *fit_opt(const struct fill *F, size_t hi, unsigned f,
                                        const numafit_pci_pools_t *pools, numafit_options_t **own) {
    const struct plan *pl = F->pl;
    const numafit_options_t *o = host_opt(pl, hi, F->strategy);
    const numafit_pci_requests_t *reqs = pl->flavors[f].pci;
    *own = NULL;
    if (!pools && !reqs)
        return o;
    if (numafit_options_dup(o, own) < 0)
        return NULL;
    numafit_options_set_pci(*own, pools ? pools : pl->pci_empty, reqs);
    return *own;
}

/* What a fill of host hi with flavor f asks of its callback. */
struct placed {
    struct fill *F;
    unsigned f;
    bool keep; /* keep the placement (in *ret_p) */
    numafit_placement_t **ret_p;
    bool nomem;
};

/* numafit_host_fill's callback: the pinned pCPUs of the flavor's instances
 * (from its first placement), and the placement when it is kept. */
static int on_placed(void *ctx, size_t request_index, const numafit_placement_t *p) {
    struct placed *c = ctx;
    int *pins = &c->F->pins[c->f];
    (void)request_index;
    if ((*pins < 0 && (*pins = placement_pcpus(p)) < 0) ||
        (c->keep && numafit_placement_dup(p, c->ret_p) < 0)) {
        c->nomem = true;
        return -ENOMEM;
    }
    return 0;
}

/* Fill host h (fleet index hi) with flavor f: at most max instances, fewer
 * when it is full (a fit too complex to decide counts as "does not fit").
 * *ret_n gets the instances placed; with keep (max 1), *ret_p gets the
 * placement. Returns 0, or -1 on error (printed). */
static int fill_host(struct fill *F, numafit_host_t *h, size_t hi, unsigned f,
                     const numafit_pci_pools_t *pools, uint64_t max, bool keep,
                     numafit_placement_t **ret_p, uint64_t *ret_n) {
    struct plan *pl = F->pl;
    const numafit_request_t *req = pl->flavors[f].req;
    struct placed c = {F, f, keep, ret_p, false};
    numafit_options_t *own;
    const numafit_options_t *o = fit_opt(F, hi, f, pools, &own);
    numafit_error_t e;
    int rc;

    memset(&e, 0, sizeof(e));
    *ret_n = 0;
    if (!o) {
        plan_error(pl, "out of memory");
        return -1;
    }
    rc = numafit_host_fill(h, &req, 1, o, max, 0, on_placed, &c, ret_n, &e);
    numafit_options_free(own);
    if (rc >= 0)
        return 0;
    if (c.nomem) {
        plan_error(pl, "out of memory");
    } else {
        /* a claim refused after its fit, or the fit failed */
        char prefix[512];
        snprintf(prefix, sizeof(prefix), "%s of %s on host %s",
                 e.code == NUMAFIT_E_PINNING || e.code == NUMAFIT_E_SCHEMA ? "claim" : "fit",
                 pl->flavors[f].name, plan_host_name(pl, hi));
        plan_lib_error(pl, prefix, rc, &e);
    }
    return -1;
}

/* The amounts and trait bits flavor f asks of placement (second: nova's second query). */
static const int64_t *flavor_amounts(const struct plan_flavor *fl, bool second, unsigned *bits) {
    *bits = (second ? fl->lbits : fl->rbits) & ~(unsigned)NUMAFIT_RESOURCES_FALLBACK;
    return second ? fl->legacy : fl->amounts;
}

/* Fit flavor f on host hi of the mixed fill (inventory, then NUMA); on a
 * fit, claim both. Returns 1 placed, 0 no fit, -1 error (printed). *ret_p
 * gets the placement when keep is set (NULL without NUMA topology). */
static int place(struct fill *F, size_t hi, unsigned f, bool keep, numafit_placement_t **ret_p) {
    struct plan *pl = F->pl;
    const struct plan_flavor *fl = &pl->flavors[f];
    const int64_t *amounts = NULL;
    unsigned bits = 0;
    uint64_t n = 1;
    int stop;

    if (F->inv) {
        amounts = flavor_amounts(fl, F->legacy[f], &bits);
        if (plan_inventory_room(F->inv[hi], amounts, bits, 1, &stop) == 0)
            return 0;
    }
    if (!fl->req && fl->pci) {
        /* no NUMA topology: nova's PCI filter and claim, without cells */
        if (!F->pools || !F->pools[hi] ||
            numafit_pci_apply_flags(F->pools[hi], F->fleet[hi], fl->pci, NULL, 0, pci_flags(pl),
                                    NULL) < 0)
            return 0;
    }
    if (fl->req) {
        const numafit_pci_pools_t *pools = host_pools(F, hi, true);
        numafit_placement_t *p = NULL;
        bool devices = fl->pci && F->pools;
        if (fill_host(F, F->fleet[hi], hi, f, pools, 1, devices || (keep && ret_p), &p, &n) < 0)
            return -1;
        if (n == 1 && devices) {
            /* the devices the claim took, from the host's pools */
            int64_t ids[NUMAFIT_MAX_CELLS];
            int nc = numafit_placement_get_cell_count(p);
            numafit_error_t e;
            for (int i = 0; i < nc; i++)
                ids[i] = numafit_placement_get_host_cell(p, (unsigned)i);
            memset(&e, 0, sizeof(e));
            if (numafit_pci_apply_flags(F->pools[hi], F->fleet[hi], fl->pci, ids, (size_t)nc,
                                        pci_flags(pl), &e) < 0) {
                char prefix[512];
                snprintf(prefix, sizeof(prefix), "devices of %s on host %s", fl->name,
                         plan_host_name(pl, hi));
                plan_lib_error(pl, prefix, -EIO, &e);
                numafit_placement_free(p);
                return -1;
            }
        }
        if (keep && ret_p)
            *ret_p = p;
        else
            numafit_placement_free(p);
    }
    if (n != 1)
        return 0;
    if (F->inv) {
        plan_inventory_take(F->inv[hi], amounts, 1);
        if (!fl->req)
            F->nonnuma[hi] += fl->memory_mb;
    }
    return 1;
}

/* Does some host of the fill still have room in its inventory for flavor
 * f's first query? (nova asks its second query only when none has.) */
static bool first_query_has_room(const struct fill *F, unsigned f) {
    unsigned bits;
    const int64_t *amounts = flavor_amounts(&F->pl->flavors[f], false, &bits);
    int stop;
    for (size_t hi = 0; hi < F->pl->nhosts; hi++)
        if (plan_inventory_room(fill_inv(F, hi), amounts, bits, 1, &stop))
            return true;
    return false;
}

/* ------------------------------------------------------------------ why not */

static int map_reason(const char *code, const struct plan_flavor *fl) {
    if (!code)
        return R_OTHER;
    if (strcmp(code, "NOFIT_PAGESIZE") == 0)
        return R_PAGES;
    if (strcmp(code, "NOFIT_CPU") == 0)
        return fl->cpu_policy == NUMAFIT_CPU_POLICY_DEDICATED ||
                       fl->cpu_policy == NUMAFIT_CPU_POLICY_MIXED
                   ? R_DEDICATED_CPUS
                   : R_SHARED_CPUS;
    if (strcmp(code, "NOFIT_THREADS") == 0)
        return R_FULL_CORES;
    if (strcmp(code, "NOFIT_MEM") == 0)
        return R_MEMORY;
    if (strcmp(code, "NOFIT_LIMITS") == 0)
        return R_LIMITS;
    if (strcmp(code, "NOFIT_NETWORK") == 0)
        return R_NETWORK;
    if (strcmp(code, "NOFIT_CELLS") == 0)
        return R_CELLS;
    if (strcmp(code, "NOFIT") == 0)
        return R_JOINT;
    if (strcmp(code, "NOFIT_PCI") == 0)
        return R_PCI;
    return R_OTHER;
}

/* Tally why flavor f does not fit host hi (as it is now). */
static int explain_host(struct fill *F, const numafit_host_t *h, size_t hi, unsigned f, bool mixed,
                        struct plan_whynot *w) {
    struct plan *pl = F->pl;
    const struct plan_flavor *fl = &pl->flavors[f];
    numafit_error_t e;
    char *txt = NULL;
    json_t *root, *cells, *c, *g;
    json_error_t jerr;
    size_t i, j;
    uint64_t refused = 0;
    const char *top;
    int rc;

    numafit_options_t *own;
    const numafit_options_t *o = fit_opt(F, hi, f, host_pools(F, hi, mixed), &own);

    memset(&e, 0, sizeof(e));
    w->hosts_checked++;
    if (!o) {
        plan_error(pl, "out of memory");
        return -1;
    }
    rc = numafit_fit_explain(h, fl->req, o, 0, &txt, &e);
    numafit_options_free(own);
    if (rc == -E2BIG) {
        w->count[R_OTHER]++;
        w->host_cells++;
        return 0;
    }
    if (rc < 0) {
        char prefix[512];
        snprintf(prefix, sizeof(prefix), "explaining %s on host %s", fl->name,
                 plan_host_name(pl, hi));
        plan_lib_error(pl, prefix, rc, &e);
        return -1;
    }
    root = json_loads(txt, 0, &jerr);
    numafit_free(txt);
    if (!root) {
        plan_error(pl, "explaining %s on host %s: %s", fl->name, plan_host_name(pl, hi),
                   cli_json_error(&jerr, NULL, 0) == -ENOMEM ? "out of memory"
                                                             : "the library wrote invalid JSON");
        return -1;
    }
    if (json_is_true(json_object_get(root, "fits"))) {
        json_decref(root); /* fits (a host the fill skipped at --max-instances) */
        return 0;
    }
    top = json_string_value(json_object_get(root, "reason"));
    cells = json_object_get(root, "cells");
    if (top && strcmp(top, "NOFIT_CELLS") == 0) {
        /* each host cell counts once: fewer host cells than guest cells */
        size_t n = json_array_size(cells);
        if (n == 0)
            n = 1;
        w->count[R_CELLS] += n;
        w->host_cells += n;
        json_decref(root);
        return 0;
    }
    json_array_foreach(cells, i, c) {
        json_array_foreach(json_object_get(c, "guest_cells"), j, g) {
            if (json_is_true(json_object_get(g, "fits")))
                continue;
            w->count[map_reason(json_string_value(json_object_get(g, "reason")), fl)]++;
            refused++;
        }
    }
    if (!refused) {
        /* every guest cell fits some host cell, not all at once */
        w->count[map_reason(top, fl)]++;
        refused = 1;
    }
    w->host_cells += refused;
    json_decref(root);
    return 0;
}

/* Explain flavor f on every host, or on PLAN_EXPLAIN_SAMPLE evenly spread. */
static int explain_fleet(struct fill *F, numafit_host_t *const *fleet, unsigned f,
                         bool before_fill) {
    struct plan *pl = F->pl;
    struct plan_whynot *w = &F->res->whynot[f];
    size_t n = pl->nhosts, k = n > PLAN_EXPLAIN_SAMPLE ? PLAN_EXPLAIN_SAMPLE : n;

    memset(w, 0, sizeof(*w));
    w->asked = true;
    w->before_fill = before_fill;
    for (size_t s = 0; s < k; s++) {
        size_t hi = k == n ? s : s * n / k;
        const numafit_inventory_t *inv = fleet ? (F->inv ? F->inv[hi] : NULL) : pl->hosts[hi].inv;
        if (inv) {
            /* placement's step first: a host without room counts once */
            unsigned bits;
            const int64_t *a =
                flavor_amounts(&pl->flavors[f], fleet ? F->legacy[f] : F->res->legacy[f], &bits);
            int stop;
            if (plan_inventory_room(inv, a, bits, 1, &stop) == 0) {
                w->hosts_checked++;
                w->host_cells++;
                w->count[R_INVENTORY]++;
                continue;
            }
        }
        if (explain_host(F, fleet ? fleet[hi] : pl->hosts[hi].h, hi, f, fleet != NULL, w) < 0)
            return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ alone */

/* The alone fill of a flavor f asking for devices on host h (hi): one
 * instance at a time, its devices taken from a copy of the host's pools
 * (as the mixed fill does), at most max; *ret_stop what ended it (the
 * devices when the next fit is refused for them, else the NUMA fit). */
static int alone_devices(struct fill *F, numafit_host_t *h, size_t hi, unsigned f, uint64_t max,
                         uint64_t *ret_n, int *ret_stop) {
    const struct plan_flavor *fl = &F->pl->flavors[f];
    numafit_pci_pools_t *copy = NULL;
    uint64_t n = 0;
    int rc = 0;

    *ret_stop = STOP_CAPPED;
    if (F->pl->hosts[hi].pools && numafit_pci_pools_dup(F->pl->hosts[hi].pools, &copy) < 0) {
        plan_error(F->pl, "out of memory");
        return -1;
    }
    while (n < max) {
        numafit_placement_t *p = NULL;
        uint64_t one = 0;
        int64_t ids[NUMAFIT_MAX_CELLS];
        int nc;
        if (fill_host(F, h, hi, f, copy, 1, true, &p, &one) < 0) {
            rc = -1;
            break;
        }
        if (one == 0) {
            /* why the next one does not fit: with the devices left */
            numafit_options_t *own;
            const numafit_options_t *o = fit_opt(F, hi, f, copy, &own);
            numafit_error_t e;
            memset(&e, 0, sizeof(e));
            *ret_stop =
                o && numafit_fit(h, fl->req, o, 0, NULL, &e) == 0 && e.code == NUMAFIT_E_NOFIT_PCI
                    ? STOP_PCI
                    : STOP_NUMA;
            numafit_options_free(own);
            break;
        }
        nc = numafit_placement_get_cell_count(p);
        for (int i = 0; i < nc; i++)
            ids[i] = numafit_placement_get_host_cell(p, (unsigned)i);
        numafit_placement_free(p);
        /* the fill took them from its own copy: take them from ours */
        if (copy && numafit_pci_apply_flags(copy, h, fl->pci, ids, (size_t)nc, pci_flags(F->pl),
                                            NULL) < 0) {
            plan_error(F->pl, "devices of %s on host %s: the claim's devices are gone", fl->name,
                       plan_host_name(F->pl, hi));
            rc = -1;
            break;
        }
        n++;
    }
    numafit_pci_pools_free(copy);
    *ret_n = n;
    return rc;
}

/* A guest without NUMA topology asking for devices: how many of it (at
 * most max) the devices of host hi take (nova's PciPassthroughFilter and
 * claim, without cells), on a copy of its pools. */
static int pci_fill(struct fill *F, size_t hi, unsigned f, uint64_t max, uint64_t *ret_n) {
    const numafit_pci_pools_t *pools = F->pl->hosts[hi].pools;
    numafit_pci_pools_t *copy = NULL;
    uint64_t n = 0;
    *ret_n = 0;
    if (!pools)
        return 0;
    if (numafit_pci_pools_dup(pools, &copy) < 0) {
        plan_error(F->pl, "out of memory");
        return -1;
    }
    while (n < max &&
           numafit_pci_apply_flags(copy, F->fleet ? F->fleet[hi] : F->pl->hosts[hi].h,
                                   F->pl->flavors[f].pci, NULL, 0, pci_flags(F->pl), NULL) == 0)
        n++;
    numafit_pci_pools_free(copy);
    *ret_n = n;
    return 0;
}

/* One alone fill of flavor f on host hi (copies of its host and inventory). */
struct alone_one {
    uint64_t n[2];   /* instances by nova's first query, then by its second */
    uint8_t stop[2]; /* what stopped each (enum plan_stop or a class) */
    bool stuck;      /* the first query still had room: nova asks no second one */
};

/* Fill a copy of host h (inventory inv, both taken over and changed) with
 * one query of flavor f; *stop what ended it. Returns 0 or -1. */
static int alone_query(struct fill *F, numafit_host_t *h, numafit_inventory_t *inv, size_t hi,
                       unsigned f, bool second, uint64_t max, uint64_t *ret_n, uint8_t *ret_stop) {
    const struct plan_flavor *fl = &F->pl->flavors[f];
    unsigned bits = 0;
    const int64_t *amounts = inv ? flavor_amounts(fl, second, &bits) : NULL;
    uint64_t k = max, n = k;
    int stop = STOP_CAPPED;

    if (inv)
        k = plan_inventory_room(inv, amounts, bits, max, &stop);
    n = k;
    if (fl->req && fl->pci && k > 0) {
        int dstop;
        if (alone_devices(F, h, hi, f, k, &n, &dstop) < 0)
            return -1;
        if (n < k)
            stop = dstop;
    } else if (fl->req && k > 0) {
        if (fill_host(F, h, hi, f, F->pl->hosts[hi].pools, k, false, NULL, &n) < 0)
            return -1;
        if (n < k)
            stop = STOP_NUMA;
    } else if (fl->pci && k > 0) {
        /* no NUMA topology: nova's PCI filter and claim, without cells */
        if (pci_fill(F, hi, f, k, &n) < 0)
            return -1;
        if (n < k)
            stop = STOP_PCI;
    }
    if (inv)
        plan_inventory_take(inv, amounts, n);
    *ret_n = n;
    *ret_stop = (uint8_t)stop;
    return 0;
}

static int alone_host(struct fill *F, size_t hi, unsigned f, struct alone_one *a) {
    struct plan *pl = F->pl;
    const struct plan_host *ph = &pl->hosts[hi];
    const struct plan_flavor *fl = &pl->flavors[f];
    numafit_host_t *h = NULL;
    numafit_inventory_t *inv = NULL;
    int rc = -1;

    memset(a, 0, sizeof(*a));
    if ((fl->req && numafit_host_dup(ph->h, &h) < 0) ||
        (ph->inv && numafit_inventory_dup(ph->inv, &inv) < 0)) {
        plan_error(pl, "out of memory");
        goto out;
    }
    if (alone_query(F, h, inv, hi, f, false, pl->max_instances, &a->n[0], &a->stop[0]) < 0)
        goto out;
    a->stuck = true;
    if (inv && (fl->rbits & NUMAFIT_RESOURCES_FALLBACK) && a->stop[0] != STOP_CAPPED) {
        unsigned bits;
        const int64_t *first = flavor_amounts(fl, false, &bits);
        int stop;
        a->stuck = plan_inventory_room(inv, first, bits, 1, &stop) > 0;
        if (!a->stuck && alone_query(F, h, inv, hi, f, true, pl->max_instances - a->n[0], &a->n[1],
                                     &a->stop[1]) < 0)
            goto out;
    }
    rc = 0;
out:
    numafit_host_free(h);
    numafit_inventory_free(inv);
    return rc;
}

static int fill_alone(struct fill *F) {
    struct plan *pl = F->pl;
    struct plan_result *res = F->res;
    unsigned nf = pl->nflavors;
    struct alone_one *memo = NULL;
    size_t ngroups = (size_t)pl->ngroups;
    uint64_t second[PLAN_MAX_FLAVORS];
    uint32_t stopped2[PLAN_MAX_FLAVORS][STOP__MAX];
    bool stuck[PLAN_MAX_FLAVORS];

    memset(second, 0, sizeof(second));
    memset(stopped2, 0, sizeof(stopped2));
    memset(stuck, 0, sizeof(stuck));
    if (ngroups) {
        memo = malloc(ngroups * nf * sizeof(*memo));
        if (!memo) {
            plan_error(pl, "out of memory");
            return -1;
        }
        for (size_t i = 0; i < ngroups * nf; i++)
            memo[i].stop[0] = UINT8_MAX;
    }
    for (size_t hi = 0; hi < pl->nhosts; hi++) {
        const struct plan_host *ph = &pl->hosts[hi];
        for (unsigned f = 0; f < nf; f++) {
            struct alone_one a;
            if (!pl->flavors[f].planned)
                continue;
            if (ph->group >= 0 && memo[(size_t)ph->group * nf + f].stop[0] != UINT8_MAX) {
                a = memo[(size_t)ph->group * nf + f];
            } else {
                if (alone_host(F, hi, f, &a) < 0) {
                    free(memo);
                    return -1;
                }
                if (ph->group >= 0)
                    memo[(size_t)ph->group * nf + f] = a;
            }
            if (a.stop[0] == STOP_CAPPED || (!a.stuck && a.stop[1] == STOP_CAPPED))
                res->alone_capped++;
            res->alone[f] += a.n[0];
            res->stopped[f][a.stop[0]]++;
            second[f] += a.n[1];
            stopped2[f][a.stuck ? a.stop[0] : a.stop[1]]++;
            stuck[f] = stuck[f] || a.stuck;
        }
        plan_tick(pl, PLAN_TICK_STEP, nf, "alone");
    }
    free(memo);
    /* nova's second query of a dedicated guest: only once no host has room
     * for the first (the alone fills of the hosts are independent, so the
     * fleet's fill ends as each host's does) */
    for (unsigned f = 0; f < nf; f++)
        if (pl->flavors[f].planned && (pl->flavors[f].rbits & NUMAFIT_RESOURCES_FALLBACK) &&
            pl->inventory && !stuck[f]) {
            res->alone[f] += second[f];
            res->legacy[f] = true;
            memcpy(res->stopped[f], stopped2[f], sizeof(stopped2[f]));
        }
    /* a flavor that fits nowhere on the fleet as it is: explain it now */
    for (unsigned f = 0; f < nf; f++)
        if (pl->flavors[f].req && res->alone[f] == 0 && explain_fleet(F, NULL, f, true) < 0)
            return -1;
    return 0;
}

/* ------------------------------------------------------------------ mixed */

static int keep_placement(struct fill *F, size_t hi, unsigned f, numafit_placement_t *p) {
    if (F->nkept[hi] == F->kept_cap[hi]) {
        uint32_t ncap = F->kept_cap[hi] ? F->kept_cap[hi] * 2 : 16;
        struct plan_kept *n = realloc(F->kept[hi], ncap * sizeof(*n));
        if (!n) {
            numafit_placement_free(p);
            plan_error(F->pl, "out of memory");
            return -1;
        }
        F->kept[hi] = n;
        F->kept_cap[hi] = ncap;
    }
    F->kept[hi][F->nkept[hi]].flavor = f;
    F->kept[hi][F->nkept[hi]].p = p;
    F->nkept[hi]++;
    return 0;
}

/* Place one instance of flavor f on the first host from its cursor. Returns
 * 1 placed, 0 fits nowhere any more, -1 error. */
static int place_next(struct fill *F, unsigned f, size_t *cursor) {
    struct plan *pl = F->pl;
    unsigned nf = pl->nflavors;
    while (*cursor < pl->nhosts) {
        size_t hi = *cursor;
        numafit_placement_t *p = NULL;
        bool keep = hi < pl->keep && !F->target;
        int rc;
        if (F->tot[hi] >= pl->max_instances) {
            (*cursor)++;
            continue;
        }
        if (F->target && reach_host(F, hi) < 0)
            return -1;
        rc = place(F, hi, f, keep, &p);
        if (rc < 0)
            return -1;
        if (rc == 0) {
            (*cursor)++;
            continue;
        }
        if (F->cnt)
            F->cnt[hi * nf + f]++;
        F->tot[hi]++;
        if (F->target) {
            if (F->tot[hi] == 1)
                F->res->target.hosts_used++;
            if (hi + 1 > F->reach)
                F->reach = hi + 1;
        } else if (F->tot[hi] == pl->max_instances) {
            F->res->capped_hosts++;
        }
        if (keep && p && keep_placement(F, hi, f, p) < 0)
            return -1;
        return 1;
    }
    /* nova's second query, once no host has room for the first */
    if (F->inv && (pl->flavors[f].rbits & NUMAFIT_RESOURCES_FALLBACK) && !F->legacy[f] &&
        !first_query_has_room(F, f)) {
        F->legacy[f] = true;
        *cursor = 0;
        return place_next(F, f, cursor);
    }
    return 0;
}

static int fill_mixed(struct fill *F) {
    struct plan *pl = F->pl;
    unsigned nf = pl->nflavors, nactive = 0;
    size_t cursor[PLAN_MAX_FLAVORS];
    bool active[PLAN_MAX_FLAVORS];
    uint64_t placed[PLAN_MAX_FLAVORS];
    size_t reported = 0;
    unsigned next = 0;

    for (unsigned f = 0; f < nf; f++) {
        cursor[f] = 0;
        placed[f] = 0;
        active[f] = pl->flavors[f].planned && (!F->target || pl->target_share[f] > 0);
        nactive += active[f];
    }
    while (nactive) {
        unsigned f = nf;
        int rc;
        if (pl->weights) {
            /* the flavor furthest behind its weight */
            double best = INFINITY;
            for (unsigned k = 0; k < nf; k++) {
                double ratio = (double)placed[k] / pl->flavors[k].weight;
                if (active[k] && ratio < best) {
                    best = ratio;
                    f = k;
                }
            }
        } else {
            while (!active[next])
                next = (next + 1) % nf;
            f = next;
            next = (next + 1) % nf;
        }
        rc = place_next(F, f, &cursor[f]);
        if (rc < 0)
            return -1;
        if (rc == 0) {
            active[f] = false;
            nactive--;
        } else if (++placed[f] == pl->target_share[f] && F->target) {
            active[f] = false; /* its share of the target */
            nactive--;
        }
        if (pl->sink.tick && !F->target) {
            /* hosts before every active cursor are done */
            size_t low = pl->nhosts;
            for (unsigned k = 0; k < nf; k++)
                if (active[k] && cursor[k] < low)
                    low = cursor[k];
            if (low > reported) {
                plan_tick(pl, PLAN_TICK_STEP, low - reported, "mixed");
                reported = low;
            }
        }
    }
    if (F->target) {
        struct plan_target *t = &F->res->target;
        t->reachable = true;
        for (unsigned f = 0; f < nf; f++) {
            t->placed[f] = placed[f];
            t->placed_total += placed[f];
            if (pl->flavors[f].planned && placed[f] < pl->target_share[f])
                t->reachable = false;
        }
        t->hosts_needed = t->reachable ? (uint32_t)F->reach : 0;
        return 0;
    }
    if (pl->nhosts > reported)
        plan_tick(pl, PLAN_TICK_STEP, pl->nhosts - reported, "mixed");
    for (unsigned f = 0; f < nf; f++) {
        F->res->mixed[f] = placed[f];
        F->res->mixed_total += placed[f];
    }
    return 0;
}

/* ------------------------------------------------------------------ capacity */

/* The smallest guest cell memory of the mix (MiB). */
static uint64_t smallest_cell_memory(const struct plan *pl) {
    uint64_t m = UINT64_MAX;
    for (unsigned f = 0; f < pl->nflavors; f++) {
        const struct plan_flavor *fl = &pl->flavors[f];
        if (fl->req && fl->cells > 0 && fl->memory_mb / (uint64_t)fl->cells < m)
            m = fl->memory_mb / (uint64_t)fl->cells;
    }
    return m == UINT64_MAX ? 0 : m;
}

/* What host hi (filled: h) has left. */
static void host_cap(const struct fill *F, size_t hi, const numafit_host_t *h, uint64_t min_mem,
                     struct plan_cap *c, uint64_t *ret_free_page_mb) {
    const struct plan *pl = F->pl;
    const struct plan_host *ph = &pl->hosts[hi];
    double ratio = plan_host_cpu_ratio(pl, hi);
    uint64_t pinned = 0, known = (uint64_t)ph->unknown_pinned + ph->known_pins, free_page_mb = 0;
    int n = numafit_host_get_cell_count(h);
    const numafit_pci_pools_t *pools = host_pools(F, hi, true);
    bool nocpu[NUMAFIT_MAX_CELLS];

    memset(c, 0, sizeof(*c));
    for (unsigned f = 0; f < pl->nflavors; f++)
        if (F->pins[f] > 0 && F->cnt)
            known += (uint64_t)F->cnt[hi * pl->nflavors + f] * (uint64_t)F->pins[f];
    for (int ci = 0; ci < n; ci++) {
        uint64_t v, free_p = 0, shared = 0, usage = 0, mem = 0, used = 0, npg = 0;
        uint64_t huge_total = 0, huge_used = 0, cell_free_huge = 0, room, small_used, free_small;
        uint64_t cell_pages[PLAN_MAX_PAGE_SIZES];
        unsigned ui = (unsigned)ci;

        memset(cell_pages, 0, sizeof(cell_pages));
        numafit_host_get_cell_stat(h, ui, NUMAFIT_CELL_FREE_PCPUS, 0, &free_p);
        numafit_host_get_cell_stat(h, ui, NUMAFIT_CELL_SHARED_CPUS, 0, &shared);
        numafit_host_get_cell_stat(h, ui, NUMAFIT_CELL_CPU_USAGE, 0, &usage);
        numafit_host_get_cell_stat(h, ui, NUMAFIT_CELL_MEMORY_MB, 0, &mem);
        numafit_host_get_cell_stat(h, ui, NUMAFIT_CELL_MEMORY_USED_MB, 0, &used);
        numafit_host_get_cell_stat(h, ui, NUMAFIT_CELL_PAGE_SIZES, 0, &npg);
        if (numafit_host_get_cell_stat(h, ui, NUMAFIT_CELL_PINNED_CPUS, 0, &v) == 0)
            pinned += v;
        if (free_p &&
            numafit_host_get_cell_stat(h, ui, NUMAFIT_CELL_PARTIAL_FREE_PCPUS, 0, &v) == 0)
            c->orphan_threads += v;
        room = (uint64_t)floor((double)shared * ratio);
        room = room > usage ? room - usage : 0;
        for (unsigned k = 0; k < npg; k++) {
            uint64_t size, total, pused, resv, fr;
            int idx;
            if (numafit_host_get_cell_pages(h, ui, k, 0, &size, &total, &pused, &resv) < 0 ||
                size <= 4)
                continue;
            huge_total += total * size / 1024;
            huge_used += pused * size / 1024;
            fr = total > pused + resv ? total - pused - resv : 0;
            cell_free_huge += fr * size / 1024;
            idx = plan_page_size_find(pl, size);
            if (idx >= 0)
                cell_pages[idx] += fr;
        }
        small_used = used > huge_used ? used - huge_used : 0;
        free_small = mem > huge_total + small_used ? mem - huge_total - small_used : 0;
        c->free_pcpus += free_p;
        c->free_shared_vcpus += room;
        c->free_memory_mb += free_small;
        free_page_mb += cell_free_huge;
        nocpu[ci] = !free_p && !room;
        if (!free_p && !room)
            c->memory_without_cpus_mb += free_small;
        if (free_small + cell_free_huge < min_mem)
            c->cpus_without_memory += free_p + room;
        for (unsigned k = 0; k < pl->npage_sizes; k++) {
            c->pages_free[k] += cell_pages[k];
            if (!free_p)
                c->pages_without_cpus[k] += cell_pages[k];
        }
    }
    c->lost_siblings = pinned > known ? pinned - known : 0;
    /* the devices left, and those on cells without a free CPU */
    for (int k = 0, np = pools ? numafit_pci_pools_get_count(pools) : 0; k < np; k++) {
        int known_node = 0;
        int64_t node = -1, count = 0;
        if (numafit_pci_pools_get(pools, (unsigned)k, NULL, NULL, &known_node, &node, &count) < 0)
            continue;
        c->pci_free += (uint64_t)count;
        for (int ci = 0; known_node && ci < n; ci++)
            if (numafit_host_get_cell_id(h, (unsigned)ci) == node && nocpu[ci])
                c->pci_without_cpus += (uint64_t)count;
    }
    *ret_free_page_mb = free_page_mb;
}

static void cap_add(struct plan_cap *sum, const struct plan_cap *c) {
    sum->free_pcpus += c->free_pcpus;
    sum->free_shared_vcpus += c->free_shared_vcpus;
    sum->lost_siblings += c->lost_siblings;
    sum->orphan_threads += c->orphan_threads;
    sum->free_memory_mb += c->free_memory_mb;
    sum->memory_without_cpus_mb += c->memory_without_cpus_mb;
    sum->cpus_without_memory += c->cpus_without_memory;
    sum->pci_free += c->pci_free;
    sum->pci_without_cpus += c->pci_without_cpus;
    for (unsigned k = 0; k < PLAN_MAX_PAGE_SIZES; k++) {
        sum->pages_free[k] += c->pages_free[k];
        sum->pages_without_cpus[k] += c->pages_without_cpus[k];
    }
}

json_t *plan_cap_json(const struct plan *pl, const struct plan_cap *c) {
    json_t *o = json_object(), *pw = json_array(), *pf = json_array();
    if (!o || !pw || !pf) {
        json_decref(o);
        json_decref(pw);
        json_decref(pf);
        return NULL;
    }
    json_object_set_new(o, "free_pcpus", json_integer((json_int_t)c->free_pcpus));
    json_object_set_new(o, "free_shared_vcpus", json_integer((json_int_t)c->free_shared_vcpus));
    json_object_set_new(o, "lost_siblings", json_integer((json_int_t)c->lost_siblings));
    json_object_set_new(o, "orphan_threads", json_integer((json_int_t)c->orphan_threads));
    json_object_set_new(o, "free_memory_mb", json_integer((json_int_t)c->free_memory_mb));
    json_object_set_new(o, "memory_without_cpus_mb",
                        json_integer((json_int_t)c->memory_without_cpus_mb));
    json_object_set_new(o, "cpus_without_memory", json_integer((json_int_t)c->cpus_without_memory));
    for (unsigned k = 0; k < pl->npage_sizes; k++) {
        json_array_append_new(pw, json_pack("{sIsI}", "size_kb", (json_int_t)pl->page_sizes[k],
                                            "free", (json_int_t)c->pages_without_cpus[k]));
        json_array_append_new(pf, json_pack("{sIsI}", "size_kb", (json_int_t)pl->page_sizes[k],
                                            "free", (json_int_t)c->pages_free[k]));
    }
    json_object_set_new(o, "pages_without_cpus", pw);
    json_object_set_new(o, "free_pages", pf);
    if (pl->pci) {
        json_object_set_new(o, "pci_devices_free", json_integer((json_int_t)c->pci_free));
        json_object_set_new(o, "pci_devices_without_cpus",
                            json_integer((json_int_t)c->pci_without_cpus));
    }
    return o;
}

/* Keep the --top hosts, most stranded pCPUs first, then memory. */
static void top_insert(struct plan_result *res, uint32_t cap, uint32_t hi, uint64_t pcpus,
                       uint64_t mem) {
    uint32_t i;
    if (!cap)
        return;
    if (res->ntop == cap) {
        const struct plan_top *last = &res->top[cap - 1];
        if (pcpus < last->stranded_pcpus ||
            (pcpus == last->stranded_pcpus && mem <= last->stranded_memory_mb))
            return;
        res->ntop--;
    }
    for (i = res->ntop; i > 0; i--) {
        const struct plan_top *t = &res->top[i - 1];
        if (t->stranded_pcpus > pcpus ||
            (t->stranded_pcpus == pcpus && t->stranded_memory_mb >= mem))
            break;
        res->top[i] = res->top[i - 1];
    }
    res->top[i].host = hi;
    res->top[i].stranded_pcpus = pcpus;
    res->top[i].stranded_memory_mb = mem;
    res->ntop++;
}

/* ------------------------------------------------------------------ host detail */

enum { T_NONE, T_PINNED, T_EMULATOR, T_ISOLATED };

struct cpumap {
    int32_t owner[PLAN_CPU_IDS];
    uint8_t kind[PLAN_CPU_IDS];
};

static int cmp_int(const void *a, const void *b) {
    json_int_t x = *(const json_int_t *)a, y = *(const json_int_t *)b;
    return x < y ? -1 : x > y;
}

/* One instance as doc/plan-json.md shows it; marks its pCPUs in m. */
static json_t *instance_json(int id, const char *flavor, bool existing, const json_t *cells,
                             struct cpumap *m) {
    json_t *o = json_object(), *out = json_array(), *c;
    size_t i;
    if (!o || !out) {
        json_decref(o);
        json_decref(out);
        return NULL;
    }
    json_object_set_new(o, "id", json_integer(id));
    json_object_set_new(o, "flavor", flavor ? json_string(flavor) : json_null());
    json_object_set_new(o, "existing", json_boolean(existing));
    json_array_foreach(cells, i, c) {
        json_t *gc = json_object(), *vcpus = json_array(), *pin = json_object_get(c, "cpu_pinning");
        json_t *resv = json_object_get(c, "cpuset_reserved"), *v,
               *psz = json_object_get(c, "pagesize");
        size_t k;
        const char *key;
        if (!gc || !vcpus) {
            json_decref(gc);
            json_decref(vcpus);
            break;
        }
        /* the guest cell's vCPUs (shared and dedicated), ascending */
        {
            size_t ns = json_array_size(json_object_get(c, "cpuset"));
            size_t nd = json_array_size(json_object_get(c, "pcpuset")), nv = 0;
            json_int_t *ids = malloc((ns + nd + 1) * sizeof(*ids));
            if (!ids) {
                json_decref(gc);
                json_decref(vcpus);
                break;
            }
            json_array_foreach(json_object_get(c, "cpuset"), k, v) {
                ids[nv++] = json_integer_value(v);
            }
            json_array_foreach(json_object_get(c, "pcpuset"), k, v) {
                ids[nv++] = json_integer_value(v);
            }
            qsort(ids, nv, sizeof(*ids), cmp_int);
            for (k = 0; k < nv; k++)
                json_array_append_new(vcpus, json_integer(ids[k]));
            free(ids);
        }
        json_object_set_new(gc, "host_cell",
                            json_integer(json_integer_value(json_object_get(c, "id"))));
        json_object_set_new(gc, "vcpus", vcpus);
        json_object_set_new(gc, "memory_mb",
                            json_integer(json_integer_value(json_object_get(c, "memory"))));
        json_object_set_new(gc, "pagesize_kb",
                            json_is_integer(psz) ? json_integer(json_integer_value(psz))
                                                 : json_null());
        json_object_set(gc, "pinning", json_object_size(pin) ? pin : json_null());
        json_object_set(gc, "emulator", json_array_size(resv) ? resv : json_null());
        json_object_foreach(pin, key, v) {
            json_int_t cpu = json_integer_value(v);
            if (cpu >= 0 && cpu < PLAN_CPU_IDS) {
                m->owner[cpu] = id;
                m->kind[cpu] = T_PINNED;
            }
        }
        json_array_foreach(resv, k, v) {
            json_int_t cpu = json_integer_value(v);
            if (cpu >= 0 && cpu < PLAN_CPU_IDS) {
                m->owner[cpu] = id;
                m->kind[cpu] = T_EMULATOR;
            }
        }
        json_array_append_new(out, gc);
    }
    json_object_set_new(o, "cells", out);
    return o;
}

static const char *thread_state(const struct cpumap *m, int cpu, bool shared, bool ded,
                                bool pinned) {
    if (pinned) {
        switch (m->kind[cpu]) {
            case T_PINNED:
                return "pinned";
            case T_EMULATOR:
                return "emulator";
            case T_ISOLATED:
                return "isolated";
            default:
                return "used";
        }
    }
    if (ded)
        return "free";
    return shared ? "shared" : "offline";
}

static json_t *thread_json(const struct cpumap *m, int cpu, const numafit_cpuset_t *sh,
                           const numafit_cpuset_t *de, const numafit_cpuset_t *pi) {
    bool pinned = numafit_cpuset_contains(pi, (unsigned)cpu) == 1;
    json_t *t = json_pack("{siss}", "cpu", cpu, "state",
                          thread_state(m, cpu, numafit_cpuset_contains(sh, (unsigned)cpu) == 1,
                                       numafit_cpuset_contains(de, (unsigned)cpu) == 1, pinned));
    if (t && pinned && m->kind[cpu] != T_NONE)
        json_object_set_new(t, "instance", json_integer(m->owner[cpu]));
    return t;
}

/* The cells of host h with the threads' states from m. */
/* The devices of pools on host cell id (NULL pools: none). */
static int64_t cell_devices(const numafit_pci_pools_t *pools, int64_t id) {
    int64_t sum = 0;
    for (int k = 0, np = pools ? numafit_pci_pools_get_count(pools) : 0; k < np; k++) {
        int known = 0;
        int64_t node = -1, count = 0;
        if (numafit_pci_pools_get(pools, (unsigned)k, NULL, NULL, &known, &node, &count) == 0 &&
            known && node == id)
            sum += count;
    }
    return sum;
}

static json_t *cells_json(const numafit_host_t *h, struct cpumap *m,
                          const numafit_pci_pools_t *before, const numafit_pci_pools_t *after) {
    json_t *cells = json_array();
    int n = numafit_host_get_cell_count(h);
    if (!cells)
        return NULL;
    for (int ci = 0; ci < n; ci++) {
        unsigned ui = (unsigned)ci;
        numafit_cpuset_t *sh = NULL, *de = NULL, *pi = NULL, *seen = NULL;
        uint64_t v, nsib = 0, npg = 0;
        json_t *cell = json_object(), *cores = json_array(), *pages = json_array();
        if (!cell || !cores || !pages ||
            numafit_host_get_cell_cpus(h, ui, NUMAFIT_CELL_CPUS_SHARED, 0, &sh) < 0 ||
            numafit_host_get_cell_cpus(h, ui, NUMAFIT_CELL_CPUS_DEDICATED, 0, &de) < 0 ||
            numafit_host_get_cell_cpus(h, ui, NUMAFIT_CELL_CPUS_PINNED, 0, &pi) < 0 ||
            numafit_cpuset_new(&seen) < 0) {
            json_decref(cell);
            json_decref(cores);
            json_decref(pages);
            numafit_cpuset_free(sh);
            numafit_cpuset_free(de);
            numafit_cpuset_free(pi);
            json_decref(cells);
            return NULL;
        }
        json_object_set_new(cell, "id", json_integer(numafit_host_get_cell_id(h, ui)));
        if (numafit_host_get_cell_stat(h, ui, NUMAFIT_CELL_SOCKET, 0, &v) == 0)
            json_object_set_new(cell, "socket", json_integer((json_int_t)v));
        else
            json_object_set_new(cell, "socket", json_null());
        v = 0;
        numafit_host_get_cell_stat(h, ui, NUMAFIT_CELL_MEMORY_MB, 0, &v);
        json_object_set_new(cell, "memory_mb", json_integer((json_int_t)v));
        v = 0;
        numafit_host_get_cell_stat(h, ui, NUMAFIT_CELL_MEMORY_USED_MB, 0, &v);
        json_object_set_new(cell, "memory_used_mb", json_integer((json_int_t)v));
        json_object_set_new(cell, "shared_cpus", json_integer(numafit_cpuset_count(sh)));
        v = 0;
        numafit_host_get_cell_stat(h, ui, NUMAFIT_CELL_CPU_USAGE, 0, &v);
        json_object_set_new(cell, "cpu_usage", json_integer((json_int_t)v));
        numafit_host_get_cell_stat(h, ui, NUMAFIT_CELL_PAGE_SIZES, 0, &npg);
        for (unsigned k = 0; k < npg; k++) {
            uint64_t size, total, used, resv;
            if (numafit_host_get_cell_pages(h, ui, k, 0, &size, &total, &used, &resv) == 0)
                json_array_append_new(pages,
                                      json_pack("{sIsIsIsI}", "size_kb", (json_int_t)size, "total",
                                                (json_int_t)total, "used", (json_int_t)used,
                                                "reserved", (json_int_t)resv));
        }
        json_object_set_new(cell, "pages", pages);
        if (before) {
            /* PCI devices on the cell: before the plan, and left after it */
            int64_t id = numafit_host_get_cell_id(h, ui);
            json_object_set_new(cell, "pci_devices", json_integer(cell_devices(before, id)));
            json_object_set_new(cell, "pci_devices_free", json_integer(cell_devices(after, id)));
        }
        /* isolate: pinned siblings without an owner, on a core with a vCPU of an
         * instance, belong to that instance */
        numafit_host_get_cell_stat(h, ui, NUMAFIT_CELL_SIBLING_SETS, 0, &nsib);
        for (unsigned s = 0; s < nsib; s++) {
            numafit_cpuset_t *set = NULL;
            int cpu, owner = -1;
            if (numafit_host_get_cell_siblings(h, ui, s, 0, &set) < 0)
                continue;
            for (cpu = numafit_cpuset_next(set, -1); cpu >= 0; cpu = numafit_cpuset_next(set, cpu))
                if (m->kind[cpu] == T_PINNED)
                    owner = m->owner[cpu];
            if (owner >= 0)
                for (cpu = numafit_cpuset_next(set, -1); cpu >= 0;
                     cpu = numafit_cpuset_next(set, cpu))
                    if (m->kind[cpu] == T_NONE && numafit_cpuset_contains(pi, (unsigned)cpu) == 1) {
                        m->kind[cpu] = T_ISOLATED;
                        m->owner[cpu] = owner;
                    }
            json_t *core = json_array();
            for (cpu = numafit_cpuset_next(set, -1); core && cpu >= 0;
                 cpu = numafit_cpuset_next(set, cpu)) {
                json_array_append_new(core, thread_json(m, cpu, sh, de, pi));
                numafit_cpuset_add(seen, (unsigned)cpu);
            }
            if (core)
                json_array_append_new(cores, core);
            numafit_cpuset_free(set);
        }
        /* CPUs without sibling information: a core each */
        for (int pass = 0; pass < 2; pass++) {
            const numafit_cpuset_t *src = pass ? sh : de;
            for (int cpu = numafit_cpuset_next(src, -1); cpu >= 0;
                 cpu = numafit_cpuset_next(src, cpu)) {
                json_t *core;
                if (numafit_cpuset_contains(seen, (unsigned)cpu) == 1)
                    continue;
                numafit_cpuset_add(seen, (unsigned)cpu);
                core = json_array();
                if (core) {
                    json_array_append_new(core, thread_json(m, cpu, sh, de, pi));
                    json_array_append_new(cores, core);
                }
            }
        }
        json_object_set_new(cell, "cores", cores);
        json_array_append_new(cells, cell);
        numafit_cpuset_free(sh);
        numafit_cpuset_free(de);
        numafit_cpuset_free(pi);
        numafit_cpuset_free(seen);
    }
    return cells;
}

static json_t *host_detail(const struct fill *F, size_t hi, const numafit_host_t *h,
                           const struct plan_cap *cap, struct cpumap *m) {
    const struct plan *pl = F->pl;
    json_t *o = json_object(), *mixed = json_object(), *inst = json_array(), *cells, *c;
    int id = 0;

    if (!o || !mixed || !inst)
        goto nomem;
    memset(m->kind, 0, sizeof(m->kind));
    json_object_set_new(o, "name", json_string(plan_host_name(pl, hi)));
    json_object_set_new(o, "source",
                        json_string(plan_source_kind_name(pl->sources[pl->hosts[hi].source].kind)));
    for (unsigned f = 0; f < pl->nflavors; f++)
        if (pl->flavors[f].planned)
            json_object_set_new(mixed, pl->flavors[f].name,
                                json_integer(F->cnt[hi * pl->nflavors + f]));
    json_object_set_new(o, "mixed", mixed);
    mixed = NULL;
    json_object_set_new(o, "stranded", plan_cap_json(pl, cap));
    for (size_t k = 0; k < pl->nexisting; k++) {
        if (pl->existing[k].host != hi)
            continue;
        c = instance_json(++id, pl->existing[k].flavor, true, pl->existing[k].cells, m);
        if (!c)
            goto nomem;
        json_array_append_new(inst, c);
    }
    for (uint32_t k = 0; F->kept && k < F->nkept[hi]; k++) {
        char *txt = NULL;
        json_t *pc;
        if (numafit_placement_to_json(F->kept[hi][k].p, 0, &txt, NULL) < 0)
            goto nomem;
        pc = json_loads(txt, 0, NULL);
        numafit_free(txt);
        if (!pc)
            goto nomem;
        c = instance_json(++id, pl->flavors[F->kept[hi][k].flavor].name, false, pc, m);
        json_decref(pc);
        if (!c)
            goto nomem;
        json_array_append_new(inst, c);
    }
    cells = cells_json(h, m,
                       pl->pci ? (pl->hosts[hi].pools ? pl->hosts[hi].pools : pl->pci_empty) : NULL,
                       host_pools(F, hi, true));
    if (!cells)
        goto nomem;
    json_object_set_new(o, "cells", cells);
    json_object_set_new(o, "instances", inst);
    return o;
nomem:
    json_decref(o);
    json_decref(mixed);
    json_decref(inst);
    return NULL;
}

/* ------------------------------------------------------------------ one strategy */

/* The classes of host hi's inventory that are full after the mixed fill:
 * less room than any flavor of the mix asks of them (least[class]; bits
 * by class). */
static unsigned full_classes(const struct fill *F, size_t hi, const int64_t *least) {
    unsigned full = 0;
    for (int rc = 0; rc < NUMAFIT_RC_COUNT; rc++) {
        numafit_inventory_class_t k;
        int64_t used = 0;
        if (!least[rc] || numafit_inventory_get_class(F->inv[hi], rc, &k) != 1)
            continue;
        numafit_inventory_get_used(F->inv[hi], rc, &used);
        if (plan_inventory_capacity(&k) - used < least[rc])
            full |= 1u << rc;
    }
    return full;
}

/* The least amount of each class a flavor of the mix asks (0: none asks). */
static void least_amounts(const struct fill *F, int64_t *least) {
    const struct plan *pl = F->pl;
    for (int rc = 0; rc < NUMAFIT_RC_COUNT; rc++) {
        least[rc] = 0;
        for (unsigned f = 0; f < pl->nflavors; f++) {
            unsigned bits;
            const int64_t *a;
            if (!pl->flavors[f].planned)
                continue;
            a = flavor_amounts(&pl->flavors[f], F->legacy[f], &bits);
            if (a[rc] && (!least[rc] || a[rc] < least[rc]))
                least[rc] = a[rc];
        }
    }
}

/* Placement's classes after the mixed fill, and the memory of guests
 * without NUMA topology the cells cannot hold. */
static void summarize_inventory(struct fill *F) {
    const struct plan *pl = F->pl;
    struct plan_classes *c = &F->res->classes;
    struct plan_overcommit *o = &F->res->overcommit;
    int64_t least[NUMAFIT_RC_COUNT];
    least_amounts(F, least);
    for (size_t hi = 0; hi < pl->nhosts; hi++) {
        unsigned full = full_classes(F, hi, least);
        int first = full ? __builtin_ctz(full) : STOP_NUMA;
        c->hosts_by[first]++;
        for (int rc = 0; rc < NUMAFIT_RC_COUNT; rc++) {
            numafit_inventory_class_t k;
            int64_t before = 0, after = 0, cap;
            if (numafit_inventory_get_class(F->inv[hi], rc, &k) != 1)
                continue;
            numafit_inventory_get_used(pl->hosts[hi].inv, rc, &before);
            numafit_inventory_get_used(F->inv[hi], rc, &after);
            cap = plan_inventory_capacity(&k);
            c->capacity[rc] += (uint64_t)cap;
            c->used_before[rc] += (uint64_t)before;
            c->used[rc] += (uint64_t)after;
            if (cap > after)
                c->left_by[rc][(full & (1u << rc)) ? rc : first] += (uint64_t)(cap - after);
        }
        plan_overcommit_add(pl, o, F->fleet[hi], hi, F->nonnuma[hi]);
    }
}

/* After the mixed fill: capacity, top hosts, details, why not. */
static int summarize(struct fill *F) {
    struct plan *pl = F->pl;
    struct plan_result *res = F->res;
    uint64_t min_mem = smallest_cell_memory(pl);
    struct cpumap *m = NULL;

    res->top = pl->top ? calloc(pl->top, sizeof(*res->top)) : NULL;
    res->hosts = json_array();
    if ((pl->top && !res->top) || !res->hosts)
        goto nomem;
    if (pl->keep) {
        m = malloc(sizeof(*m));
        if (!m)
            goto nomem;
    }
    for (size_t hi = 0; hi < pl->nhosts; hi++) {
        struct plan_cap c;
        uint64_t free_page_mb;
        host_cap(F, hi, F->fleet[hi], min_mem, &c, &free_page_mb);
        cap_add(&res->stranded, &c);
        if (F->tot[hi])
            res->hosts_used++;
        top_insert(res, pl->top, (uint32_t)hi, c.free_pcpus + c.lost_siblings,
                   c.free_memory_mb + free_page_mb);
        if (hi < pl->keep) {
            json_t *d = host_detail(F, hi, F->fleet[hi], &c, m);
            if (!d)
                goto nomem;
            json_array_append_new(res->hosts, d);
        }
        plan_tick(pl, PLAN_TICK_STEP, 1, "stranded");
    }
    free(m);
    m = NULL;
    if (F->inv)
        summarize_inventory(F);
    for (uint32_t t = 0; t < res->ntop; t++)
        for (unsigned f = 0; f < pl->nflavors; f++)
            res->top[t].mixed[f] = F->cnt[(size_t)res->top[t].host * pl->nflavors + f];
    for (unsigned f = 0; f < pl->nflavors; f++)
        if (pl->flavors[f].req && res->alone[f] > 0 && explain_fleet(F, F->fleet, f, false) < 0)
            return -1;
    return 0;
nomem:
    free(m);
    plan_error(pl, "out of memory");
    return -1;
}

/* --target: the mixed fill of the target's shares, on copies of the hosts
 * it reaches (the fleet's hosts stay as they are). */
static int fill_target(struct plan *pl, int strategy, struct plan_result *res) {
    struct fill T;
    size_t n = pl->nhosts ? pl->nhosts : 1;
    int ret = -1;

    memset(&T, 0, sizeof(T));
    memset(&res->target, 0, sizeof(res->target));
    T.pl = pl;
    T.strategy = strategy;
    T.res = res;
    T.target = true;
    for (unsigned f = 0; f < PLAN_MAX_FLAVORS; f++)
        T.pins[f] = -1;
    T.tot = calloc(n, sizeof(*T.tot));
    T.fleet = calloc(n, sizeof(*T.fleet));
    if (pl->inventory) {
        T.inv = calloc(n, sizeof(*T.inv));
        T.nonnuma = calloc(n, sizeof(*T.nonnuma));
    }
    if (pl->pci)
        T.pools = calloc(n, sizeof(*T.pools));
    if (!T.tot || !T.fleet || (pl->inventory && (!T.inv || !T.nonnuma)) || (pl->pci && !T.pools)) {
        plan_error(pl, "out of memory");
        goto out;
    }
    ret = fill_mixed(&T);
out:
    for (size_t hi = 0; hi < pl->nhosts; hi++) {
        if (T.fleet)
            numafit_host_free(T.fleet[hi]);
        if (T.inv)
            numafit_inventory_free(T.inv[hi]);
        if (T.pools)
            numafit_pci_pools_free(T.pools[hi]);
    }
    free(T.tot);
    free(T.fleet);
    free(T.inv);
    free(T.nonnuma);
    free(T.pools);
    return ret;
}

/*
 * Run strategy `strategy` (NUMAFIT_STRATEGY_*): alone, mixed, what is left.
 * in_place: fill the fleet's own hosts (the last strategy; saves a copy).
 */
int plan_run_strategy(struct plan *pl, int strategy, struct plan_result *res) {
    struct fill F;
    double t0 = now_s();
    bool in_place = res->in_place;
    int ret = -1;

    memset(&F, 0, sizeof(F));
    F.pl = pl;
    F.strategy = strategy;
    F.res = res;
    for (unsigned f = 0; f < PLAN_MAX_FLAVORS; f++)
        F.pins[f] = -1;
    res->strategy = strategy;

    if (fill_alone(&F) < 0 || (pl->has_target && fill_target(pl, strategy, res) < 0))
        goto out;

    F.cnt = calloc(pl->nhosts * (pl->nflavors ? pl->nflavors : 1), sizeof(*F.cnt));
    F.tot = calloc(pl->nhosts ? pl->nhosts : 1, sizeof(*F.tot));
    F.fleet = malloc((pl->nhosts ? pl->nhosts : 1) * sizeof(*F.fleet));
    if (pl->keep) {
        F.kept = calloc(pl->keep, sizeof(*F.kept));
        F.nkept = calloc(pl->keep, sizeof(*F.nkept));
        F.kept_cap = calloc(pl->keep, sizeof(*F.kept_cap));
    }
    if (!F.cnt || !F.tot || !F.fleet || (pl->keep && (!F.kept || !F.nkept || !F.kept_cap))) {
        plan_error(pl, "out of memory");
        goto out;
    }
    if (pl->inventory) {
        /* the mixed fill's inventories: copies (the loaded ones are the
         * usage before the plan) */
        F.inv = calloc(pl->nhosts ? pl->nhosts : 1, sizeof(*F.inv));
        F.nonnuma = calloc(pl->nhosts ? pl->nhosts : 1, sizeof(*F.nonnuma));
        if (!F.inv || !F.nonnuma) {
            plan_error(pl, "out of memory");
            goto out;
        }
        for (size_t hi = 0; hi < pl->nhosts; hi++) {
            F.nonnuma[hi] = pl->hosts[hi].nonnuma_mb;
            if (numafit_inventory_dup(pl->hosts[hi].inv, &F.inv[hi]) < 0) {
                plan_error(pl, "out of memory");
                goto out;
            }
        }
    }
    if (pl->pci) {
        /* the mixed fill's devices: copies of the hosts' pools */
        F.pools = calloc(pl->nhosts ? pl->nhosts : 1, sizeof(*F.pools));
        if (!F.pools) {
            plan_error(pl, "out of memory");
            goto out;
        }
        for (size_t hi = 0; hi < pl->nhosts; hi++)
            if (pl->hosts[hi].pools &&
                numafit_pci_pools_dup(pl->hosts[hi].pools, &F.pools[hi]) < 0) {
                plan_error(pl, "out of memory");
                goto out;
            }
    }
    F.own_fleet = !in_place;
    for (size_t hi = 0; hi < pl->nhosts; hi++) {
        if (in_place) {
            F.fleet[hi] = pl->hosts[hi].h;
        } else if (numafit_host_dup(pl->hosts[hi].h, &F.fleet[hi]) < 0) {
            for (size_t k = 0; k < hi; k++)
                numafit_host_free(F.fleet[k]);
            F.own_fleet = false;
            plan_error(pl, "out of memory");
            goto out;
        }
    }
    if (fill_mixed(&F) < 0 || summarize(&F) < 0)
        goto out;
    ret = 0;
out:
    if (F.fleet && F.own_fleet)
        for (size_t hi = 0; hi < pl->nhosts; hi++)
            numafit_host_free(F.fleet[hi]);
    free(F.fleet);
    free(F.cnt);
    free(F.tot);
    if (F.inv)
        for (size_t hi = 0; hi < pl->nhosts; hi++)
            numafit_inventory_free(F.inv[hi]);
    free(F.inv);
    free(F.nonnuma);
    if (F.pools)
        for (size_t hi = 0; hi < pl->nhosts; hi++)
            numafit_pci_pools_free(F.pools[hi]);
    free(F.pools);
    if (F.kept) {
        for (uint32_t hi = 0; hi < pl->keep; hi++) {
            for (uint32_t k = 0; k < F.nkept[hi]; k++)
                numafit_placement_free(F.kept[hi][k].p);
            free(F.kept[hi]);
        }
    }
    free(F.kept);
    free(F.nkept);
    free(F.kept_cap);
    res->seconds = now_s() - t0;
    return ret;
}
