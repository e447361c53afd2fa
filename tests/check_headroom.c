/*
 * The headroom strategy (NUMAFIT_STRATEGY_HEADROOM, libnumafit/headroom.c;
 * doc/headroom.md): on hosts built so that nova's spread and pack each
 * spend what a later instance needs, it chooses a cell that keeps it; its
 * placements are claimable; it fits exactly when spread fits; the mix
 * option is validated; the work budget bounds it.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "private.h"

static numafit_host_t *host(const char *spec) {
    numafit_host_t *h = NULL;
    numafit_error_t e;
    int rc = numafit_host_new_synthetic(spec, 0, &h, &e);
    ck_assert_msg(rc == 0, "synthetic '%s': %d %s", spec, rc, e.text);
    return h;
}

static numafit_request_t *req(int vcpus, int mem, const char *specs) {
    char buf[1024];
    numafit_request_t *r = NULL;
    numafit_error_t e;
    snprintf(buf, sizeof(buf), "{\"vcpus\":%d,\"memory_mb\":%d,\"extra_specs\":%s}", vcpus, mem,
             specs);
    int rc = numafit_request_new(buf, strlen(buf), NULL, 0, 0, &r, &e);
    ck_assert_msg(rc == 1, "request %s: rc %d %s", buf, rc, e.text);
    return r;
}

#define DED1  "{\"hw:cpu_policy\":\"dedicated\"}"
#define ISO   "{\"hw:cpu_policy\":\"dedicated\",\"hw:cpu_thread_policy\":\"isolate\"}"
#define RT    "{\"hw:cpu_policy\":\"dedicated\",\"hw:mem_page_size\":\"1GB\"}"
#define SH1G  "{\"hw:numa_nodes\":\"1\",\"hw:mem_page_size\":\"1GB\"}"
#define SHNUM "{\"hw:numa_nodes\":\"1\"}"

/* Fit r on cell index ci alone (nova's rules in that cell) and claim it. */
static void claim_on(numafit_host_t *h, unsigned ci, const numafit_request_t *r) {
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    ck_assert_int_eq(numafit_fit_cell(h, ci, r, 0, 0, NULL, 0, &p, &e), 1);
    ck_assert_int_eq(numafit_host_claim(h, p, 0, &e), 0);
    numafit_placement_free(p);
}

static numafit_options_t *opts(int strategy, const numafit_request_t *mix, double w) {
    numafit_options_t *o = NULL;
    numafit_error_t e;
    ck_assert_int_eq(numafit_options_new(&o), 0);
    ck_assert_int_eq(numafit_options_set_strategy(o, strategy), 0);
    if (mix) {
        const numafit_request_t *m[1] = {mix};
        ck_assert_int_eq(numafit_options_set_headroom_mix(o, m, &w, 1, &e), 0);
    }
    return o;
}

/* The host cell the strategy puts r on (a one-cell request); the
 * placement is claimed on a copy, and the count of `later` (NULL: none)
 * that still fit after it is returned in *after. */
static int chosen_cell(const numafit_host_t *h, const numafit_request_t *r, int strategy,
                       const numafit_request_t *mix, const numafit_request_t *later,
                       uint64_t *after) {
    numafit_options_t *o = opts(strategy, mix, 1.0), *co = opts(0, later, 1.0);
    numafit_placement_t *p = NULL;
    numafit_host_t *copy = NULL;
    numafit_error_t e;
    int cell;
    ck_assert_int_eq(numafit_fit(h, r, o, 0, &p, &e), 1);
    cell = numafit_placement_get_host_cell(p, 0);
    ck_assert_int_eq(numafit_host_dup(h, &copy), 0);
    /* claimable, as every placement of the fit */
    ck_assert_msg(numafit_host_claim(copy, p, 0, &e) == 0, "claim: %s", e.text);
    if (later)
        ck_assert_int_eq(numafit_host_headroom(copy, co, 0, after, 1, &e), 0);
    numafit_host_free(copy);
    numafit_placement_free(p);
    numafit_options_free(o);
    numafit_options_free(co);
    return cell;
}

/*
 * Three cells of three 2-thread cores, every CPU dedicated and shared
 * (legacy mode, so isolate may use hyper-threads):
 *   cell 0: two cores with one thread pinned, one whole core (4 free);
 *   cell 1: three cores with one thread pinned (3 free, no whole core);
 *   cell 2: two cores pinned, one whole core (2 free).
 * One pinned vCPU: spread takes cell 0 (most free) and pack cell 2 (fewest
 * free), and nova's rules in both take a whole core; headroom takes an
 * orphan thread of cell 1 and keeps both whole cores for isolate.
 */
START_TEST(keeps_whole_core_for_isolate) {
    numafit_host_t *h = host("cells:3 cores:3 threads:2 mem:16G");
    numafit_request_t *one = req(1, 512, DED1), *two = req(2, 512, DED1), *iso = req(1, 512, ISO);
    uint64_t sp, pk, hr, hr0;
    claim_on(h, 0, one);
    claim_on(h, 0, one);
    for (int i = 0; i < 3; i++)
        claim_on(h, 1, one);
    claim_on(h, 2, two);
    claim_on(h, 2, two);
    ck_assert_int_eq(chosen_cell(h, one, NUMAFIT_STRATEGY_SPREAD, NULL, iso, &sp), 0);
    ck_assert_int_eq(chosen_cell(h, one, NUMAFIT_STRATEGY_PACK, NULL, iso, &pk), 2);
    ck_assert_int_eq(chosen_cell(h, one, NUMAFIT_STRATEGY_HEADROOM, iso, iso, &hr), 1);
    ck_assert_int_eq(sp, 1);
    ck_assert_int_eq(pk, 1);
    ck_assert_int_eq(hr, 2);
    /* without a mix the fragmentation measure (whole free cores) agrees */
    ck_assert_int_eq(chosen_cell(h, one, NUMAFIT_STRATEGY_HEADROOM, NULL, iso, &hr0), 1);
    ck_assert_int_eq(hr0, 2);
    numafit_request_free(one);
    numafit_request_free(two);
    numafit_request_free(iso);
    numafit_host_free(h);
}
END_TEST

/*
 * Three cells of four cores, 16 GiB with four 1 GiB pages each:
 *   cell 0: untouched (the most free memory);
 *   cell 1: its 1 GiB pages taken by a shared instance;
 *   cell 2: 8 GiB of small pages taken by a shared instance (the least
 *           free memory).
 * A 2-vCPU pinned instance on small pages: spread takes cell 0 and pack
 * cell 2, each leaving 2 pCPUs beside its 1 GiB pages, too few for a
 * 4-vCPU realtime flavor on 1 GiB pages; headroom takes cell 1, and two
 * such instances still fit instead of one.
 */
START_TEST(keeps_1g_cell_for_rt) {
    numafit_host_t *h = host("cells:3 cores:4 threads:1 mem:16G pages:1G=4");
    numafit_request_t *pinned = req(2, 2048, DED1), *rt = req(4, 4096, RT);
    numafit_request_t *pages = req(1, 4096, SH1G), *small = req(1, 8192, SHNUM);
    uint64_t sp, pk, hr, hr0;
    claim_on(h, 1, pages);
    claim_on(h, 2, small);
    ck_assert_int_eq(chosen_cell(h, pinned, NUMAFIT_STRATEGY_SPREAD, NULL, rt, &sp), 0);
    ck_assert_int_eq(chosen_cell(h, pinned, NUMAFIT_STRATEGY_PACK, NULL, rt, &pk), 2);
    ck_assert_int_eq(chosen_cell(h, pinned, NUMAFIT_STRATEGY_HEADROOM, rt, rt, &hr), 1);
    ck_assert_int_eq(sp, 1);
    ck_assert_int_eq(pk, 1);
    ck_assert_int_eq(hr, 2);
    /* without a mix: huge pages kept beside free CPUs */
    ck_assert_int_eq(chosen_cell(h, pinned, NUMAFIT_STRATEGY_HEADROOM, NULL, rt, &hr0), 1);
    ck_assert_int_eq(hr0, 2);
    numafit_request_free(pinned);
    numafit_request_free(rt);
    numafit_request_free(pages);
    numafit_request_free(small);
    numafit_host_free(h);
}
END_TEST

/* A multi-node guest: the strategy chooses among pairs of cells too, and
 * fits exactly when spread does; every placement is claimable. Filling a
 * host with headroom takes at least as many of the mix as spread here. */
START_TEST(fits_when_spread_fits) {
    numafit_host_t *h = host("cells:4 cores:4 threads:2 mem:16G pages:1G=4");
    numafit_request_t *multi =
        req(4, 4096, "{\"hw:cpu_policy\":\"dedicated\",\"hw:numa_nodes\":\"2\"}");
    numafit_request_t *rt = req(4, 4096, RT), *p3 = req(3, 2048, DED1);
    const numafit_request_t *mix[3] = {multi, rt, p3};
    double w[3] = {1, 2, 1};
    numafit_options_t *sp = opts(NUMAFIT_STRATEGY_SPREAD, NULL, 0);
    numafit_options_t *hr = opts(NUMAFIT_STRATEGY_HEADROOM, NULL, 0);
    numafit_error_t e;
    ck_assert_int_eq(numafit_options_set_headroom_mix(hr, mix, w, 3, &e), 0);
    ck_assert_int_eq(numafit_options_get_headroom_mix_count(hr), 3);
    for (int round = 0; round < 40; round++) {
        const numafit_request_t *r = mix[round % 3];
        numafit_placement_t *a = NULL, *b = NULL;
        int ra = numafit_fit(h, r, sp, 0, &a, &e), rb = numafit_fit(h, r, hr, 0, &b, &e);
        ck_assert_int_eq(ra, rb);
        ck_assert_int_eq(numafit_fit(h, r, hr, 0, NULL, &e), ra); /* the answer alone */
        if (rb == 1)
            ck_assert_msg(numafit_host_claim(h, b, 0, &e) == 0, "claim: %s", e.text);
        numafit_placement_free(a);
        numafit_placement_free(b);
    }
    numafit_options_free(sp);
    numafit_options_free(hr);
    numafit_request_free(multi);
    numafit_request_free(rt);
    numafit_request_free(p3);
    numafit_host_free(h);
}
END_TEST

/* How many of r fit on h one after the other (at most the cap), each
 * fitted with spread and claimed: the plain count, on a copy. */
static uint64_t plain_count(const numafit_host_t *h, const numafit_request_t *r,
                            const numafit_options_t *o) {
    numafit_host_t *c = NULL;
    uint64_t n = 0;
    ck_assert_int_eq(numafit_host_dup(h, &c), 0);
    while (n < NUMAFIT_HEADROOM_CAP) {
        numafit_placement_t *q = NULL;
        numafit_error_t e;
        if (numafit_fit(c, r, o, 0, &q, &e) != 1)
            break;
        ck_assert_msg(numafit_host_claim(c, q, 0, &e) == 0, "claim: %s", e.text);
        numafit_placement_free(q);
        n++;
    }
    numafit_host_free(c);
    return n;
}

/* The mix value of p on h, counted the plain way: each flavor of the mix
 * alone, on its own copy of h with p claimed. */
static double mix_value(const numafit_host_t *h, const numafit_placement_t *p,
                        const numafit_request_t *const *mix, const double *w, unsigned n) {
    numafit_host_t *c = NULL;
    numafit_error_t e;
    double v = 0;
    ck_assert_int_eq(numafit_host_dup(h, &c), 0);
    ck_assert_msg(numafit_host_claim(c, p, 0, &e) == 0, "claim: %s", e.text);
    for (unsigned i = 0; i < n; i++)
        v += w[i] * (double)plain_count(c, mix[i], NULL);
    numafit_host_free(c);
    return v;
}

/* Whether p's JSON is among the n in seen (else it is added; 128 at most). */
static bool seen_before(const numafit_placement_t *p, char **seen, unsigned *n) {
    char *s = NULL;
    ck_assert_int_eq(numafit_placement_to_json(p, 0, &s, NULL), 0);
    for (unsigned k = 0; k < *n; k++)
        if (strcmp(seen[k], s) == 0) {
            numafit_free(s);
            return true;
        }
    ck_assert_uint_lt(*n, 128);
    seen[(*n)++] = s;
    return false;
}

/*
 * Fit r with the headroom strategy (options hr, whose mix is m, weights w,
 * nm flavors) and check that its placement has the best mix value of every
 * candidate headroom.c considers, each counted the plain way: spread's and
 * pack's orders, each with one cell moved first, each with nova's and the
 * best-fit pinning. False when r does not fit.
 */
static bool check_best(const numafit_host_t *h, const numafit_request_t *r,
                       const numafit_options_t *hr, const numafit_request_t *const *m,
                       const double *mw, unsigned nm, const char *what) {
    numafit_options_t *sp = opts(NUMAFIT_STRATEGY_SPREAD, NULL, 0);
    unsigned n = (unsigned)numafit_host_get_cell_count(h);
    uint32_t *spread = malloc(n * sizeof(uint32_t)), *pack = malloc(n * sizeof(uint32_t)),
             *order = malloc(n * sizeof(uint32_t));
    numafit_placement_t *got = NULL;
    numafit_error_t e;
    double best = -1, v;
    uint64_t steps;
    char *seen[128];
    unsigned nseen = 0;
    bool fits = numafit_fit(h, r, hr, 0, &got, &e) == 1;
    if (fits) {
        ck_assert_int_eq(numafit__fit_order_for(h, r, sp, NUMAFIT_STRATEGY_SPREAD, spread), 0);
        ck_assert_int_eq(numafit__fit_order_for(h, r, sp, NUMAFIT_STRATEGY_PACK, pack), 0);
        for (unsigned c = 0; c < 2 * (2 * n + 2); c++) {
            unsigned i = c / 2;
            const uint32_t *base = i == 1 || (i >= 2 && i - 2 >= n) ? pack : spread;
            numafit_placement_t *cand = NULL;
            memcpy(order, base, n * sizeof(uint32_t));
            if (i >= 2) {
                unsigned first = (i - 2) % n, j = 1;
                order[0] = base[first];
                for (unsigned q = 0; q < n; q++)
                    if (q != first)
                        order[j++] = base[q];
            }
            if (numafit__fit_ordered(h, r, sp, NUMAFIT_STRATEGY_SPREAD, order, c % 2, 0, &steps,
                                     &cand, NULL) == 1 &&
                !seen_before(cand, seen, &nseen)) {
                v = mix_value(h, cand, m, mw, nm);
                best = v > best ? v : best;
            }
            numafit_placement_free(cand);
        }
        for (unsigned k = 0; k < nseen; k++)
            numafit_free(seen[k]);
        v = mix_value(h, got, m, mw, nm);
        ck_assert_msg(v > best - 1e-9 && v < best + 1e-9,
                      "%s: headroom's placement scores %g, the best candidate %g", what, v, best);
    }
    numafit_placement_free(got);
    free(spread);
    free(pack);
    free(order);
    numafit_options_free(sp);
    return fits;
}

/*
 * The strategy scores its candidates on one working copy of the host,
 * putting back only the cells each claim changed: the placement it returns
 * must have the best mix value of all its candidates counted the plain way
 * (fresh copies), on partly used hosts of up to 24 cells where the claims
 * of the candidates and of the counts touch many cells.
 */
START_TEST(best_mix_of_all_candidates) {
    static const char *const specs[] = {"cells:6 cores:4 threads:2 mem:24G pages:1G=8",
                                        "cells:24 cores:2 threads:2 mem:48G pages:1G=24",
                                        "cells:3 cores:4 threads:2 mem:12G pages:1G=4"};
    numafit_request_t *multi =
        req(4, 2048, "{\"hw:cpu_policy\":\"dedicated\",\"hw:numa_nodes\":\"2\"}");
    numafit_request_t *iso = req(2, 1024, ISO), *rt = req(2, 2048, RT), *p1 = req(1, 512, DED1);
    numafit_request_t *sh = req(2, 1024, SH1G);
    const numafit_request_t *mix[3] = {iso, multi, rt}, *fill[4] = {p1, multi, sh, iso};
    const numafit_request_t *mixb[2] = {rt, multi};
    double w[3] = {2, 1, 1.5}, wb[2] = {0, 1};
    unsigned checked = 0;
    for (unsigned si = 0; si < 3; si++) {
        numafit_host_t *h = host(specs[si]);
        numafit_options_t *hr = opts(NUMAFIT_STRATEGY_HEADROOM, NULL, 0);
        numafit_options_t *hr2 = opts(NUMAFIT_STRATEGY_HEADROOM, NULL, 0);
        numafit_error_t e;
        unsigned n = (unsigned)numafit_host_get_cell_count(h), seed = 7 + si;
        ck_assert_int_eq(numafit_options_set_headroom_mix(hr, mix, w, 3, &e), 0);
        ck_assert_int_eq(numafit_options_set_headroom_mix(hr2, mixb, wb, 2, &e), 0);
        for (int round = 0; round < 12; round++) {
            /* use the host a little more, in scattered cells */
            for (int k = 0; k < 3; k++) {
                seed = seed * 1103515245u + 12345u;
                unsigned ci = (seed >> 8) % n;
                numafit_placement_t *q = NULL;
                if (numafit_fit_cell(h, ci, fill[(seed >> 4) % 4], 0, 0, NULL, 0, &q, &e) == 1)
                    ck_assert_int_eq(numafit_host_claim(h, q, 0, &e), 0);
                numafit_placement_free(q);
            }
            for (int f = 0; f < 6; f++) {
                /* mix A; mix B: only the two-cell flavor counts, after a
                 * one-cell one (its count follows another's) */
                const numafit_request_t *r = fill[f % 3];
                const numafit_request_t *const *m = f < 3 ? mix : mixb;
                const double *mw = f < 3 ? w : wb;
                char what[160];
                snprintf(what, sizeof(what), "%s round %d flavor %d", specs[si], round, f);
                if (!check_best(h, r, f < 3 ? hr : hr2, m, mw, f < 3 ? 3 : 2, what))
                    continue;
                checked++;
            }
        }
        numafit_options_free(hr);
        numafit_options_free(hr2);
        numafit_host_free(h);
    }
    ck_assert_uint_gt(checked, 120);
    numafit_request_free(multi);
    numafit_request_free(iso);
    numafit_request_free(rt);
    numafit_request_free(p1);
    numafit_request_free(sh);
}
END_TEST

/*
 * The same on small hosts, partly used at random, with random two-flavor
 * mixes of one-cell flavors: their counts stay below the cap, so a count
 * by cells that ran on into other cells (and was cached as that cell's)
 * would score some candidates too high.
 */
START_TEST(best_mix_on_small_hosts) {
    static const char *const specs[] = {"cells:2 cores:2 threads:2 mem:4G pages:1G=2",
                                        "cells:2 cores:3 mem:6G", "cells:4 cores:2 mem:4G",
                                        "cells:3 cores:2 threads:2 mem:6G pages:1G=3"};
    numafit_request_t *f[] = {req(1, 512, DED1), req(2, 1024, DED1),  req(2, 1024, ISO),
                              req(1, 1024, RT),  req(2, 1024, SHNUM), req(3, 1024, DED1)};
    enum { NF = sizeof(f) / sizeof(f[0]), NS = sizeof(specs) / sizeof(specs[0]) };
    unsigned seed = 1, checked = 0;
    for (int sc = 0; sc < 240; sc++) {
        numafit_error_t e;
        numafit_host_t *h;
        numafit_options_t *o = opts(NUMAFIT_STRATEGY_HEADROOM, NULL, 0);
        const numafit_request_t *mix[2];
        double w[2];
        unsigned n, g;
        char what[160];
        seed = seed * 1103515245u + 12345u;
        h = host(specs[(seed >> 8) % NS]);
        n = (unsigned)numafit_host_get_cell_count(h);
        for (int k = 0; k < 6; k++) {
            numafit_placement_t *q = NULL;
            seed = seed * 1103515245u + 12345u;
            if (numafit_fit_cell(h, (seed >> 8) % n, f[(seed >> 4) % NF], 0, 0, NULL, 0, &q, &e) ==
                1)
                ck_assert_int_eq(numafit_host_claim(h, q, 0, &e), 0);
            numafit_placement_free(q);
        }
        seed = seed * 1103515245u + 12345u;
        mix[0] = f[(seed >> 8) % NF];
        mix[1] = f[(seed >> 12) % NF];
        w[0] = 1 + (seed >> 16) % 3;
        w[1] = (seed >> 20) % 3;
        g = (seed >> 24) % NF;
        ck_assert_int_eq(numafit_options_set_headroom_mix(o, mix, w, 2, &e), 0);
        snprintf(what, sizeof(what), "scenario %d (%s, flavor %u)", sc, specs[(seed >> 8) % NS], g);
        checked += check_best(h, f[g], o, mix, w, 2, what);
        numafit_options_free(o);
        numafit_host_free(h);
    }
    ck_assert_uint_gt(checked, 120);
    for (unsigned k = 0; k < NF; k++)
        numafit_request_free(f[k]);
}
END_TEST

/*
 * numafit_host_headroom counts a one-cell flavor by cells (the instances
 * each cell takes alone, summed up to the cap; the cells as on the host
 * kept between calls of one fit): the counts must be those of fitting and
 * claiming one after the other, on hosts filled at random until only some
 * cells have room, for every kind of one-cell flavor (pinned, isolate,
 * emulator threads, realtime, huge pages, shared with a CPU ratio) and a
 * two-cell one (counted one after the other).
 */
START_TEST(counts_by_cells_are_plain_counts) {
    static const char *const specs[] = {"cells:4 cores:4 threads:2 mem:16G pages:1G=8",
                                        "cells:16 cores:2 threads:2 mem:32G pages:1G=16",
                                        "cells:3 cores:6 mem:24G pages:2M=4096"};
    static const char *const flavors[][2] = {
        {"2", DED1},
        {"1", ISO},
        {"2", "{\"hw:cpu_policy\":\"dedicated\",\"hw:emulator_threads_policy\":\"isolate\"}"},
        {"3", "{\"hw:cpu_policy\":\"dedicated\",\"hw:cpu_realtime\":\"yes\","
              "\"hw:cpu_realtime_mask\":\"^0\",\"hw:mem_page_size\":\"1GB\"}"},
        {"2", SH1G},
        {"4", SHNUM},
        {"4", "{\"hw:cpu_policy\":\"dedicated\",\"hw:numa_nodes\":\"2\"}"},
    };
    enum { NF = sizeof(flavors) / sizeof(flavors[0]) };
    numafit_request_t *r[NF];
    unsigned compared = 0, partial = 0;
    for (unsigned f = 0; f < NF; f++)
        r[f] = req(atoi(flavors[f][0]), 1024 * atoi(flavors[f][0]), flavors[f][1]);
    for (unsigned si = 0; si < 3; si++) {
        numafit_host_t *h = host(specs[si]);
        unsigned n = (unsigned)numafit_host_get_cell_count(h), seed = 3 + si;
        numafit_options_t *o = opts(NUMAFIT_STRATEGY_SPREAD, NULL, 0);
        numafit_options_t *po = opts(NUMAFIT_STRATEGY_SPREAD, NULL, 0);
        numafit_error_t e;
        const numafit_request_t *mix[NF];
        double w[NF];
        uint64_t got[NF];
        const char *lim = "{\"cpu_allocation_ratio\":2.0,\"ram_allocation_ratio\":1.0}";
        for (unsigned f = 0; f < NF; f++) {
            mix[f] = r[f];
            w[f] = 1;
        }
        ck_assert_int_eq(numafit_options_set_headroom_mix(o, mix, w, NF, &e), 0);
        for (int round = 0; round < 30; round++) {
            for (unsigned f = 0; f < NF; f++) {
                uint64_t want = plain_count(h, r[f], po);
                ck_assert_int_eq(numafit_host_headroom(h, o, 0, got, NF, &e), 0);
                ck_assert_msg(got[f] == want, "%s round %d flavor %u: %llu by cells, %llu plain",
                              specs[si], round, f, (unsigned long long)got[f],
                              (unsigned long long)want);
                compared++;
                partial += want > 0 && want < NUMAFIT_HEADROOM_CAP;
            }
            if (round == 10) { /* shared CPUs then count against a ratio */
                ck_assert_int_eq(numafit_options_set_limits_json(o, lim, strlen(lim), &e), 0);
                ck_assert_int_eq(numafit_options_set_limits_json(po, lim, strlen(lim), &e), 0);
            }
            /* fill a random cell with a random flavor */
            seed = seed * 1103515245u + 12345u;
            for (int k = 0; k < 3; k++) {
                numafit_placement_t *q = NULL;
                unsigned ci = (seed >> (8 + k)) % n;
                if (numafit_fit_cell(h, ci, r[(seed >> (4 + k)) % (NF - 1)], 0, 0, NULL, 0, &q,
                                     &e) == 1)
                    ck_assert_int_eq(numafit_host_claim(h, q, 0, &e), 0);
                numafit_placement_free(q);
            }
        }
        numafit_options_free(o);
        numafit_options_free(po);
        numafit_host_free(h);
    }
    ck_assert_uint_eq(compared, 3 * 30 * NF);
    ck_assert_uint_gt(partial, 100); /* counts below the cap: the sums matter */
    for (unsigned f = 0; f < NF; f++)
        numafit_request_free(r[f]);
}
END_TEST

START_TEST(mix_validation_and_budget) {
    numafit_host_t *h = host("cells:2 cores:4 threads:2 mem:16G");
    numafit_request_t *ok = req(2, 1024, DED1), *flat = NULL;
    numafit_options_t *o = opts(NUMAFIT_STRATEGY_HEADROOM, NULL, 0), *d = NULL;
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    uint64_t c[2];
    const char *f = "{\"vcpus\":1,\"memory_mb\":512,\"extra_specs\":{}}";
    const numafit_request_t *m[2] = {ok, NULL};
    double w[2] = {1, 1}, bad[1] = {-1};
    ck_assert_int_eq(numafit_request_new(f, strlen(f), NULL, 0, 0, &flat, &e), 0);
    ck_assert_ptr_nonnull(flat);
    ck_assert_int_eq(numafit_options_set_strategy(o, 3), -EINVAL);
    ck_assert_int_eq(numafit_options_set_headroom_mix(NULL, m, w, 1, &e), -EINVAL);
    ck_assert_int_eq(numafit_options_set_headroom_mix(o, m, w, 2, &e), -EINVAL);
    ck_assert_str_eq(e.where, "headroom_mix/1");
    m[1] = flat; /* no NUMA topology */
    ck_assert_int_eq(numafit_options_set_headroom_mix(o, m, w, 2, &e), -EINVAL);
    ck_assert_ptr_nonnull(strstr(e.text, "no NUMA topology"));
    ck_assert_int_eq(numafit_options_set_headroom_mix(o, m, bad, 1, &e), -EINVAL);
    ck_assert_int_eq(numafit_options_get_headroom_mix_count(o), 0);
    ck_assert_int_eq(numafit_host_headroom(h, o, 0, c, 1, &e), -EINVAL); /* no mix */
    ck_assert_int_eq(numafit_options_set_headroom_mix(o, m, w, 1, &e), 0);
    ck_assert_int_eq(numafit_host_headroom(h, o, 0, c, 2, &e), -EINVAL);
    ck_assert_int_eq(numafit_host_headroom(h, o, 1, c, 1, &e), -EINVAL);
    ck_assert_int_eq(numafit_host_headroom(h, o, 0, c, 1, &e), 0);
    ck_assert_int_eq(c[0], 8); /* 16 pCPUs, 2 each */
    ck_assert_int_eq(numafit_options_dup(o, &d), 0);
    ck_assert_int_eq(numafit_options_get_headroom_mix_count(d), 1);
    /* the budget bounds the strategy: -E2BIG, never a wrong answer */
    ck_assert_int_eq(numafit_options_set_budget(o, 30), 0);
    ck_assert_int_eq(numafit_fit(h, ok, o, 0, &p, &e), -E2BIG);
    ck_assert_int_eq(e.code, NUMAFIT_E_TOO_COMPLEX);
    ck_assert_ptr_null(p);
    ck_assert_int_eq(numafit_host_headroom(h, o, 0, c, 1, &e), -E2BIG);
    ck_assert_int_eq(numafit_fit(h, ok, d, 0, &p, &e), 1);
    numafit_placement_free(p);
    /* n == 0 removes the mix */
    ck_assert_int_eq(numafit_options_set_headroom_mix(d, NULL, NULL, 0, &e), 0);
    ck_assert_int_eq(numafit_options_get_headroom_mix_count(d), 0);
    numafit_options_free(o);
    numafit_options_free(d);
    numafit_request_free(ok);
    numafit_request_free(flat);
    numafit_host_free(h);
}
END_TEST

static Suite *headroom_suite(void) {
    Suite *s = suite_create("headroom");
    TCase *tc = tcase_create("headroom");
    tcase_add_test(tc, keeps_whole_core_for_isolate);
    tcase_add_test(tc, keeps_1g_cell_for_rt);
    tcase_add_test(tc, fits_when_spread_fits);
    tcase_add_test(tc, mix_validation_and_budget);
    tcase_add_test(tc, best_mix_of_all_candidates);
    tcase_add_test(tc, best_mix_on_small_hosts);
    tcase_add_test(tc, counts_by_cells_are_plain_counts);
    tcase_set_timeout(tc, 120); /* the plain counts, under ASan on a busy machine */
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(headroom_suite());
    int failed;
    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
