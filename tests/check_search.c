/*
 * The search against the plain permutation walk.
 *
 * numafit_fit() builds the first feasible permutation position by position
 * with matching and coverage pruning. This test keeps nova's plain walk as
 * the reference (itertools.permutations over the host cells in nova's
 * order, guest cell i on the i-th host cell, every cell checked, then
 * nova's network check, _numa_cells_support_network_metadata) and compares
 * the two on random hosts and requests and on many-cell cases. Both use the
 * same per-cell check (numafit__fit_pair), which the nova differential test
 * holds against nova's own _numa_fit_instance_cell.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "private.h"

static uint64_t rs;
static unsigned rnd(unsigned n) {
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (unsigned)(rs % n);
}

struct walk {
    const numafit_host_t *h;
    const numafit_request_t *r;
    const numafit_options_t *o;
    uint32_t n, k;
    uint32_t order[64];
    int8_t memo[64][16]; /* -1 unknown, 0 no, 1 fits */
    uint32_t perm[16];
    bool used[64];
    uint64_t visited; /* permutations looked at */
};

static bool pair(struct walk *w, uint32_t pos, uint32_t g) {
    if (w->memo[pos][g] < 0)
        w->memo[pos][g] = numafit__fit_pair(w->h, w->r, w->o, w->order[pos], g) == 0;
    return w->memo[pos][g] == 1;
}

static bool has_physnet(const struct numafit__cell *c, const char *n) {
    for (uint32_t i = 0; i < c->nphysnets; i++)
        if (!strcmp(c->physnets[i], n))
            return true;
    return false;
}

/* nova's _numa_cells_support_network_metadata, literally. */
static bool network_ok(struct walk *w) {
    const numafit_options_t *o = w->o;
    if (!o || !o->has_netmeta)
        return true;
    for (uint32_t q = 0; q < o->nphysnets; q++) {
        const char *name = o->physnets[q];
        bool covered = false, elsewhere = false;
        for (uint32_t g = 0; g < w->k; g++) {
            const struct numafit__cell *c = &w->h->cells[w->order[w->perm[g]]];
            covered |= c->has_netmeta && has_physnet(c, name);
        }
        if (covered)
            continue;
        for (uint32_t i = 0; i < w->h->ncells; i++)
            elsewhere |= w->h->cells[i].has_netmeta && has_physnet(&w->h->cells[i], name);
        if (elsewhere)
            return false;
    }
    if (o->tunneled) {
        for (uint32_t g = 0; g < w->k; g++) {
            const struct numafit__cell *c = &w->h->cells[w->order[w->perm[g]]];
            if (c->has_netmeta && c->tunneled)
                return true;
        }
        for (uint32_t i = 0; i < w->h->ncells; i++)
            if (w->h->cells[i].has_netmeta && w->h->cells[i].tunneled)
                return false;
    }
    return true;
}

/* itertools.permutations order: position g takes the unused host positions
 * in ascending order. A permutation is rejected at its first guest cell
 * that does not fit, as nova does. */
static bool walk_from(struct walk *w, uint32_t g) {
    if (g == w->k) {
        w->visited++;
        return network_ok(w);
    }
    for (uint32_t p = 0; p < w->n; p++) {
        if (w->used[p] || !pair(w, p, g))
            continue;
        w->used[p] = true;
        w->perm[g] = p;
        if (walk_from(w, g + 1))
            return true;
        w->used[p] = false;
    }
    return false;
}

/* Reference answer: host cell id per guest cell, or false for no fit. */
static bool reference(const numafit_host_t *h, const numafit_request_t *r,
                      const numafit_options_t *o, int32_t *ids) {
    struct walk w = {.h = h, .r = r, .o = o, .n = h->ncells, .k = r->ncells};
    ck_assert_uint_le(w.n, 64);
    ck_assert_uint_le(w.k, 16);
    memset(w.memo, -1, sizeof(w.memo));
    ck_assert_int_eq(numafit__fit_order(h, r, o, w.order), 0);
    if (w.n < w.k || !walk_from(&w, 0))
        return false;
    for (uint32_t g = 0; g < w.k; g++)
        ids[g] = h->cells[w.order[w.perm[g]]].id;
    return true;
}

static void compare(const numafit_host_t *h, const numafit_request_t *r, const numafit_options_t *o,
                    const char *what, unsigned *fits) {
    int32_t ids[16];
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    bool ref = reference(h, r, o, ids);
    int rc = numafit_fit(h, r, o, 0, &p, &e);
    ck_assert_msg(rc == (ref ? 1 : 0), "%s: reference %s, numafit rc %d (%s)", what,
                  ref ? "fits" : "no fit", rc, e.text);
    if (ref) {
        (*fits)++;
        for (uint32_t g = 0; g < r->ncells; g++)
            ck_assert_msg(numafit_placement_get_host_cell(p, g) == ids[g],
                          "%s: guest cell %u on %d, reference %d", what, g,
                          numafit_placement_get_host_cell(p, g), ids[g]);
    }
    numafit_placement_free(p);
}

static numafit_request_t *request(unsigned vcpus, unsigned mem, const char *specs) {
    char buf[1024];
    numafit_request_t *r = NULL;
    numafit_error_t e;
    snprintf(buf, sizeof(buf), "{\"vcpus\":%u,\"memory_mb\":%u,\"extra_specs\":%s}", vcpus, mem,
             specs);
    if (numafit_request_new(buf, strlen(buf), NULL, 0, 0, &r, &e) != 1) {
        numafit_request_free(r);
        return NULL;
    }
    return r;
}

static void set_physnets(struct numafit__cell *c, unsigned mask, bool tunneled) {
    c->has_netmeta = true;
    c->tunneled = tunneled;
    c->physnets = calloc(4, sizeof(char *));
    for (unsigned b = 0; b < 4; b++)
        if (mask >> b & 1) {
            c->physnets[c->nphysnets] = calloc(1, 8);
            snprintf(c->physnets[c->nphysnets++], 8, "net%u", b);
        }
}

START_TEST(random_against_walk) {
    /* the rest of the extra specs after hw:numa_nodes */
    static const char *const specs[] = {
        "\"hw:cpu_policy\":\"dedicated\"}",
        "\"hw:cpu_policy\":\"shared\"}",
        "\"hw:cpu_policy\":\"dedicated\",\"hw:mem_page_size\":\"large\"}",
        "\"hw:cpu_policy\":\"dedicated\",\"hw:emulator_threads_policy\":\"isolate\"}",
        "\"hw:cpu_policy\":\"dedicated\",\"hw:cpu_thread_policy\":\"require\"}",
    };
    unsigned fits = 0, cases = 0;
    rs = 0x2545f4914f6cdd1dull + (uint64_t)_i;
    for (int round = 0; round < 150; round++) {
        char spec[128], sp[256], what[512];
        unsigned cells = 2 + rnd(6), cores = 2 + rnd(5), threads = 1 + rnd(2);
        numafit_host_t *h = NULL;
        snprintf(spec, sizeof(spec), "cells:%u cores:%u threads:%u mem:%uG pages:2M=%u", cells,
                 cores, threads, 2 + rnd(4), 256 * rnd(4));
        ck_assert_int_eq(numafit_host_new_synthetic(spec, 0, &h, NULL), 0);
        /* random usage: pinned CPUs, memory, pages */
        for (uint32_t i = 0; i < h->ncells; i++) {
            struct numafit__cell *c = &h->cells[i];
            for (int b = numafit__bits_next(c->pcpuset, h->nw, -1); b >= 0;
                 b = numafit__bits_next(c->pcpuset, h->nw, b))
                if (rnd(3) == 0)
                    numafit__bit_set(c->pinned, (unsigned)b);
            c->memory_usage = rnd((unsigned)c->memory);
            c->cpu_usage = rnd(8);
            if (c->npages > 1)
                c->pages[1].used = rnd((unsigned)c->pages[1].total + 1);
            if (rnd(2))
                set_physnets(c, rnd(16), rnd(4) == 0);
        }
        numafit__host_derive(h); /* the usage was written behind the library's back */
        numafit_options_t *o = NULL;
        ck_assert_int_eq(numafit_options_new(&o), 0);
        ck_assert_int_eq(numafit_options_set_strategy(o, (int)rnd(2)), 0);
        ck_assert_int_eq(numafit_options_set_profile(o, (int)rnd(2)), 0);
        if (rnd(2)) {
            char lim[256];
            unsigned m = rnd(16);
            snprintf(lim, sizeof(lim),
                     "{\"cpu_allocation_ratio\":%u,\"ram_allocation_ratio\":1.0,"
                     "\"network_metadata\":{\"physnets\":[%s%s%s%s],\"tunneled\":%s}}",
                     1 + rnd(4), m & 1 ? "\"net0\"," : "", m & 2 ? "\"net1\"," : "",
                     m & 4 ? "\"net2\"," : "", "\"net3\"", rnd(3) ? "false" : "true");
            ck_assert_int_eq(numafit_options_set_limits_json(o, lim, strlen(lim), NULL), 0);
        }
        for (int q = 0; q < 6; q++) {
            unsigned nodes = 1 + rnd(cells < 4 ? cells : 4);
            unsigned vcpus = nodes * (1 + rnd(4));
            snprintf(sp, sizeof(sp), "{\"hw:numa_nodes\":\"%u\",%s", nodes, specs[rnd(5)]);
            numafit_request_t *r = request(vcpus, nodes * 512 * (1 + rnd(4)), sp);
            if (!r)
                continue;
            snprintf(what, sizeof(what), "%s, %u vCPUs %s", spec, vcpus, sp);
            compare(h, r, o, what, &fits);
            cases++;
            numafit_request_free(r);
        }
        numafit_options_free(o);
        numafit_host_free(h);
    }
    /* the comparison must have met both answers often */
    ck_assert_uint_gt(fits, cases / 10);
    ck_assert_uint_lt(fits, cases - cases / 10);
}
END_TEST

START_TEST(many_cells_against_walk) {
    /* 8 to 12 host cells, 2 to 4 guest cells, crowded so that many
     * permutations are rejected late */
    unsigned fits = 0;
    rs = 0x9e3779b97f4a7c15ull;
    for (int round = 0; round < 30; round++) {
        char spec[128], what[256];
        unsigned cells = 8 + rnd(5);
        numafit_host_t *h = NULL;
        snprintf(spec, sizeof(spec), "cells:%u cores:4 threads:2 mem:4G", cells);
        ck_assert_int_eq(numafit_host_new_synthetic(spec, 0, &h, NULL), 0);
        for (uint32_t i = 0; i < h->ncells; i++) {
            struct numafit__cell *c = &h->cells[i];
            for (int b = numafit__bits_next(c->pcpuset, h->nw, -1); b >= 0;
                 b = numafit__bits_next(c->pcpuset, h->nw, b))
                if (rnd(2))
                    numafit__bit_set(c->pinned, (unsigned)b);
            set_physnets(c, 1u << rnd(4), false);
        }
        numafit_options_t *o = NULL;
        ck_assert_int_eq(numafit_options_new(&o), 0);
        const char *lim = "{\"cpu_allocation_ratio\":4,\"ram_allocation_ratio\":1,"
                          "\"network_metadata\":{\"physnets\":[\"net0\",\"net3\"],"
                          "\"tunneled\":false}}";
        ck_assert_int_eq(numafit_options_set_limits_json(o, lim, strlen(lim), NULL), 0);
        for (unsigned nodes = 2; nodes <= 4; nodes++) {
            char sp[128];
            snprintf(sp, sizeof(sp), "{\"hw:cpu_policy\":\"dedicated\",\"hw:numa_nodes\":\"%u\"}",
                     nodes);
            numafit_request_t *r = request(nodes * (2 + rnd(3)), nodes * 1024, sp);
            snprintf(what, sizeof(what), "%s, %u guest cells", spec, nodes);
            compare(h, r, o, what, &fits);
            numafit_request_free(r);
        }
        numafit_options_free(o);
        numafit_host_free(h);
    }
    ck_assert_uint_gt(fits, 5);
}
END_TEST

START_TEST(model_memory) {
    /* a host of 1,024 CPUs in 32 cells stays under 64 KiB of model memory */
    numafit_host_t *h = NULL;
    size_t bytes = 0;
    ck_assert_int_eq(numafit_host_new_synthetic("cells:32 sockets:2 cores:16 threads:2 mem:64G "
                                                "pages:1G=16,2M=1024",
                                                0, &h, NULL),
                     0);
    ck_assert_int_eq(numafit_host_get_memory_size(h, &bytes), 0);
    ck_assert_msg(bytes < 64 * 1024, "model of 1024 CPUs / 32 cells: %zu bytes", bytes);
    ck_assert_uint_gt(bytes, 32 * 3 * 16 * 8); /* at least the cell bitmaps */
    ck_assert_int_eq(numafit_host_get_memory_size(NULL, &bytes), -EINVAL);
    numafit_host_free(h);
}
END_TEST

static Suite *search_suite(void) {
    Suite *s = suite_create("search");
    TCase *tc = tcase_create("search");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, random_against_walk, 0, 6);
    tcase_add_test(tc, many_cells_against_walk);
    tcase_add_test(tc, model_memory);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(search_suite());
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
