/* numafit_host_fill(): fit and claim until full, against hand-written
 * numafit_fit() + numafit_host_claim() loops. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <numafit.h>

#include "testdata.h"

static numafit_host_t *host_file(const char *rel) {
    size_t len;
    char *txt = test_slurp(rel, &len);
    numafit_host_t *h = NULL;
    numafit_error_t e;
    ck_assert_msg(numafit_host_new_from_json(txt, len, 0, &h, &e) == 0, "%s: %s", rel, e.text);
    free(txt);
    return h;
}

static numafit_host_t *host_syn(const char *spec) {
    numafit_host_t *h = NULL;
    ck_assert_int_eq(numafit_host_new_synthetic(spec, 0, &h, NULL), 0);
    return h;
}

static numafit_host_t *dup_host(const numafit_host_t *h) {
    numafit_host_t *d = NULL;
    ck_assert_int_eq(numafit_host_dup(h, &d), 0);
    return d;
}

static numafit_request_t *request(const char *flavor) {
    numafit_request_t *r = NULL;
    numafit_error_t e;
    ck_assert_msg(numafit_request_new(flavor, strlen(flavor), NULL, 0, 0, &r, &e) == 1, "%s: %s",
                  flavor, e.text);
    return r;
}

/* nova's initial allocation ratios (without limits a shared request never
 * runs out of memory: nova checks the cell's total then). */
static numafit_options_t *limits(int strategy) {
    numafit_options_t *opt = NULL;
    ck_assert_int_eq(numafit_options_new(&opt), 0);
    ck_assert_int_eq(numafit_options_set_strategy(opt, strategy), 0);
    ck_assert_int_eq(numafit_options_set_limits(opt, 4.0, 1.0), 0);
    return opt;
}

/* The loop numafit_host_fill() replaces: round-robin over n requests until
 * each was refused since the last claim, or max placed. Returns the last
 * refusal code (0 when stopped at max). */
static int hand_fill(numafit_host_t *h, numafit_request_t *const *reqs, size_t n,
                     const numafit_options_t *opt, uint64_t max, uint64_t *counts) {
    size_t next = 0, misses = 0;
    uint64_t placed = 0;
    numafit_error_t e;
    memset(counts, 0, n * sizeof(*counts));
    memset(&e, 0, sizeof(e));
    while (misses < n) {
        numafit_placement_t *p = NULL;
        size_t i = next;
        int rc;
        if (placed == max)
            return 0;
        next = (next + 1) % n;
        rc = numafit_fit(h, reqs[i], opt, 0, &p, &e);
        if (rc == 0 || rc == -E2BIG) {
            misses++;
            continue;
        }
        if (rc != 1 || numafit_host_claim(h, p, 0, NULL) != 0)
            ck_abort_msg("fit %d, or its claim, failed", rc);
        numafit_placement_free(p);
        counts[i]++;
        placed++;
        misses = 0;
    }
    return e.code;
}

static const char *const fixtures[] = {"hosts/e5-2620-ht.json", "hosts/rh2288h-v3.json",
                                       "hosts/sugon-i620-g30.json", "hosts/epyc-24node.json"};

static const char *const flavors[] = {
    "{\"vcpus\":2,\"memory_mb\":2048,\"extra_specs\":{\"hw:numa_nodes\":\"1\"}}",
    "{\"vcpus\":4,\"memory_mb\":4096,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\"}}",
    "{\"vcpus\":4,\"memory_mb\":4096,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\","
    "\"hw:cpu_thread_policy\":\"isolate\"}}",
    "{\"vcpus\":2,\"memory_mb\":1024,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\","
    "\"hw:mem_page_size\":\"large\"}}",
    "{\"vcpus\":8,\"memory_mb\":8192,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\","
    "\"hw:numa_nodes\":\"2\"}}",
};
#define NFLAVORS (sizeof(flavors) / sizeof(flavors[0]))

/* Each flavor alone on each real host: the same count, the same host after,
 * the same last refusal as the hand-written loop. */
START_TEST(fill_alone_matches_loop) {
    numafit_host_t *orig = host_file(fixtures[_i]);
    numafit_options_t *opt = limits(NUMAFIT_STRATEGY_SPREAD);
    for (size_t f = 0; f < NFLAVORS; f++) {
        numafit_request_t *r = request(flavors[f]);
        const numafit_request_t *rr = r;
        numafit_host_t *a = dup_host(orig), *b = dup_host(orig);
        uint64_t want, got = 99;
        numafit_error_t e;
        int code = hand_fill(a, &r, 1, opt, NUMAFIT_FILL_NO_MAX, &want);
        int rc = numafit_host_fill(b, &rr, 1, opt, NUMAFIT_FILL_NO_MAX, 0, NULL, NULL, &got, &e);
        ck_assert_int_eq(rc, NUMAFIT_FILL_FULL);
        ck_assert_msg(got == want, "%s, flavor %zu: fill %llu, loop %llu", fixtures[_i], f,
                      (unsigned long long)got, (unsigned long long)want);
        ck_assert_int_eq(e.code, code);
        ck_assert(e.code >= NUMAFIT_E_NOFIT && e.code <= NUMAFIT_E_NOFIT_NETWORK);
        ck_assert_int_eq(numafit_host_equal(a, b), 1);
        /* with max: stops there (or full before) */
        numafit_host_free(b);
        b = dup_host(orig);
        rc = numafit_host_fill(b, &rr, 1, opt, 2, 0, NULL, NULL, &got, &e);
        ck_assert_int_eq(rc, want >= 2 ? NUMAFIT_FILL_MAX : NUMAFIT_FILL_FULL);
        ck_assert_uint_eq(got, want >= 2 ? 2 : want);
        if (rc == NUMAFIT_FILL_MAX)
            ck_assert_int_eq(e.code, NUMAFIT_E_OK);
        numafit_host_free(a);
        numafit_host_free(b);
        numafit_request_free(r);
    }
    numafit_options_free(opt);
    numafit_host_free(orig);
}
END_TEST

/* Several requests round-robin (bench/fleet's fill), both strategies. */
START_TEST(fill_round_robin_matches_loop) {
    numafit_host_t *orig = host_file(fixtures[_i]);
    numafit_request_t *r[NFLAVORS];
    for (size_t f = 0; f < NFLAVORS; f++)
        r[f] = request(flavors[f]);
    for (int strategy = 0; strategy < 2; strategy++) {
        numafit_options_t *opt = limits(strategy);
        numafit_host_t *a = dup_host(orig), *b = dup_host(orig);
        uint64_t want[NFLAVORS], got[NFLAVORS];
        numafit_error_t e;
        int code, rc;
        code = hand_fill(a, r, NFLAVORS, opt, NUMAFIT_FILL_NO_MAX, want);
        rc = numafit_host_fill(b, (const numafit_request_t *const *)r, NFLAVORS, opt,
                               NUMAFIT_FILL_NO_MAX, 0, NULL, NULL, got, &e);
        ck_assert_int_eq(rc, NUMAFIT_FILL_FULL);
        ck_assert_int_eq(e.code, code);
        for (size_t f = 0; f < NFLAVORS; f++)
            ck_assert_msg(got[f] == want[f], "%s, flavor %zu: fill %llu, loop %llu", fixtures[_i],
                          f, (unsigned long long)got[f], (unsigned long long)want[f]);
        ck_assert_int_eq(numafit_host_equal(a, b), 1);
        /* max counts all requests together */
        numafit_host_free(a);
        numafit_host_free(b);
        a = dup_host(orig);
        b = dup_host(orig);
        hand_fill(a, r, NFLAVORS, opt, 7, want);
        rc = numafit_host_fill(b, (const numafit_request_t *const *)r, NFLAVORS, opt, 7, 0, NULL,
                               NULL, got, &e);
        for (size_t f = 0; f < NFLAVORS; f++)
            ck_assert_uint_eq(got[f], want[f]);
        ck_assert_int_eq(numafit_host_equal(a, b), 1);
        numafit_host_free(a);
        numafit_host_free(b);
        numafit_options_free(opt);
    }
    for (size_t f = 0; f < NFLAVORS; f++)
        numafit_request_free(r[f]);
    numafit_host_free(orig);
}
END_TEST

START_TEST(fill_round_robin_synthetic) {
    /* two requests alternate until both are refused */
    numafit_host_t *h = host_syn("cells:2 cores:4 threads:2 mem:4G dedicated:0-7 shared:8-15"),
                   *a = dup_host(h);
    numafit_options_t *opt = limits(NUMAFIT_STRATEGY_SPREAD);
    numafit_request_t *r[2] = {
        request("{\"vcpus\":2,\"memory_mb\":512,\"extra_specs\":{\"hw:cpu_policy\":"
                "\"dedicated\"}}"),
        request("{\"vcpus\":1,\"memory_mb\":1024,\"extra_specs\":{\"hw:numa_nodes\":\"1\"}}")};
    uint64_t n[2], want[2];
    numafit_error_t e;
    int code = hand_fill(a, r, 2, opt, NUMAFIT_FILL_NO_MAX, want);
    int rc = numafit_host_fill(h, (const numafit_request_t *const *)r, 2, opt, NUMAFIT_FILL_NO_MAX,
                               0, NULL, NULL, n, &e);
    ck_assert_int_eq(rc, NUMAFIT_FILL_FULL);
    /* 4 dedicated pCPUs a cell: 2 + 2 pinned; then the memory limit (4 GiB
     * a cell: 2 x 512 MiB pinned, 3 x 1 GiB shared) */
    ck_assert_uint_eq(n[0], want[0]);
    ck_assert_uint_eq(n[1], want[1]);
    ck_assert_uint_eq(n[0], 4);
    ck_assert_uint_eq(n[1], 6);
    ck_assert_int_eq(e.code, code);
    ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_LIMITS);
    ck_assert_int_eq(numafit_host_equal(a, h), 1);
    numafit_request_free(r[0]);
    numafit_request_free(r[1]);
    numafit_options_free(opt);
    numafit_host_free(a);
    numafit_host_free(h);
}
END_TEST

/* A first refusal changes nothing; its reason is reported. */
START_TEST(fill_refused_first_unchanged) {
    numafit_host_t *h = host_file("hosts/e5-2620-ht.json"), *orig = dup_host(h);
    numafit_request_t *r = request(
        "{\"vcpus\":64,\"memory_mb\":1024,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\"}}");
    const numafit_request_t *rr = r;
    uint64_t n = 7;
    numafit_error_t e;
    ck_assert_int_eq(numafit_host_fill(h, &rr, 1, NULL, NUMAFIT_FILL_NO_MAX, 0, NULL, NULL, &n, &e),
                     NUMAFIT_FILL_FULL);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_CPU);
    ck_assert_int_eq(numafit_host_equal(h, orig), 1);
    /* max 0: no fit tried */
    ck_assert_int_eq(numafit_host_fill(h, &rr, 1, NULL, 0, 0, NULL, NULL, &n, &e),
                     NUMAFIT_FILL_MAX);
    ck_assert_int_eq(e.code, NUMAFIT_E_OK);
    ck_assert_int_eq(numafit_host_equal(h, orig), 1);
    numafit_request_free(r);
    numafit_host_free(orig);
    numafit_host_free(h);
}
END_TEST

START_TEST(fill_too_complex) {
    numafit_host_t *h = host_file("hosts/epyc-24node.json"), *orig = dup_host(h);
    numafit_request_t *r =
        request("{\"vcpus\":8,\"memory_mb\":8192,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\","
                "\"hw:numa_nodes\":\"4\"}}");
    const numafit_request_t *rr = r;
    numafit_options_t *opt = NULL;
    numafit_placement_t *p = NULL;
    uint64_t n = 7;
    numafit_error_t e;
    ck_assert_int_eq(numafit_options_new(&opt), 0);
    ck_assert_int_eq(numafit_options_set_budget(opt, 1), 0);
    ck_assert_int_eq(numafit_fit(h, r, opt, 0, &p, &e), -E2BIG);
    ck_assert_int_eq(numafit_host_fill(h, &rr, 1, opt, NUMAFIT_FILL_NO_MAX, 0, NULL, NULL, &n, &e),
                     NUMAFIT_FILL_FULL);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(e.code, NUMAFIT_E_TOO_COMPLEX);
    ck_assert_int_eq(numafit_host_equal(h, orig), 1);
    numafit_options_free(opt);
    numafit_request_free(r);
    numafit_host_free(orig);
    numafit_host_free(h);
}
END_TEST

struct seen {
    int calls, misses, stop_after, fail_after;
    size_t last_index;
    numafit_placement_t *kept;
};

static int on_place(void *ctx, size_t index, const numafit_placement_t *p) {
    struct seen *s = ctx;
    if (!p) {
        s->misses++;
        return 0;
    }
    s->calls++;
    s->last_index = index;
    ck_assert_int_ge(numafit_placement_get_cell_count(p), 1);
    if (!s->kept)
        ck_assert_int_eq(numafit_placement_dup(p, &s->kept), 0);
    if (s->fail_after && s->calls == s->fail_after)
        return -ECANCELED;
    return s->stop_after && s->calls == s->stop_after;
}

START_TEST(fill_callback) {
    numafit_host_t *orig = host_file("hosts/e5-2620-ht.json"), *h = dup_host(orig), *a;
    numafit_request_t *r = request(
        "{\"vcpus\":4,\"memory_mb\":4096,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\"}}");
    const numafit_request_t *rr = r;
    struct seen s;
    uint64_t n, all;
    numafit_error_t e;

    /* every placement, in order; the first one is the fit on the empty host */
    memset(&s, 0, sizeof(s));
    ck_assert_int_eq(
        numafit_host_fill(h, &rr, 1, NULL, NUMAFIT_FILL_NO_MAX, 0, on_place, &s, &all, &e),
        NUMAFIT_FILL_FULL);
    ck_assert_uint_eq((uint64_t)s.calls, all);
    ck_assert_int_eq(s.misses, 0);
    ck_assert_uint_gt(all, 3);
    {
        numafit_placement_t *p = NULL;
        ck_assert_int_eq(numafit_fit(orig, r, NULL, 0, &p, NULL), 1);
        ck_assert_int_eq(numafit_placement_get_pin(p, 0), numafit_placement_get_pin(s.kept, 0));
        numafit_placement_free(p);
    }
    numafit_placement_free(s.kept);
    numafit_host_free(h);

    /* stop after 3: the three claims stay */
    h = dup_host(orig);
    memset(&s, 0, sizeof(s));
    s.stop_after = 3;
    ck_assert_int_eq(
        numafit_host_fill(h, &rr, 1, NULL, NUMAFIT_FILL_NO_MAX, 0, on_place, &s, &n, &e),
        NUMAFIT_FILL_STOPPED);
    ck_assert_uint_eq(n, 3);
    ck_assert_int_eq(e.code, NUMAFIT_E_OK);
    a = dup_host(orig);
    {
        uint64_t m;
        ck_assert_int_eq(numafit_host_fill(a, &rr, 1, NULL, 3, 0, NULL, NULL, &m, NULL),
                         NUMAFIT_FILL_MAX);
    }
    ck_assert_int_eq(numafit_host_equal(h, a), 1);
    numafit_placement_free(s.kept);
    numafit_host_free(h);

    /* a failing callback fails the fill; its claim stays and is counted */
    h = dup_host(orig);
    memset(&s, 0, sizeof(s));
    s.fail_after = 2;
    ck_assert_int_eq(
        numafit_host_fill(h, &rr, 1, NULL, NUMAFIT_FILL_NO_MAX, 0, on_place, &s, &n, &e),
        -ECANCELED);
    ck_assert_uint_eq(n, 2);
    numafit_placement_free(s.kept);
    numafit_host_free(h);

    /* misses: one for a single request at the end */
    h = dup_host(orig);
    memset(&s, 0, sizeof(s));
    ck_assert_int_eq(numafit_host_fill(h, &rr, 1, NULL, NUMAFIT_FILL_NO_MAX,
                                       NUMAFIT_FILL_NOTIFY_MISSES, on_place, &s, &n, &e),
                     NUMAFIT_FILL_FULL);
    ck_assert_int_eq(s.misses, 1);
    ck_assert_uint_eq(n, all);
    numafit_placement_free(s.kept);
    numafit_host_free(h);
    numafit_host_free(a);
    numafit_request_free(r);
    numafit_host_free(orig);
}
END_TEST

START_TEST(fill_bad_arguments) {
    numafit_host_t *h = host_syn("cells:2 cores:4 mem:4G"), *orig = dup_host(h);
    numafit_request_t *r = request(
        "{\"vcpus\":1,\"memory_mb\":512,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\"}}");
    numafit_request_t *flat = NULL;
    const numafit_request_t *rr[2] = {r, NULL};
    const char *f = "{\"vcpus\":1,\"memory_mb\":512,\"extra_specs\":{}}";
    uint64_t n[2];
    numafit_error_t e;

    ck_assert_int_eq(numafit_host_fill(NULL, rr, 1, NULL, 1, 0, NULL, NULL, n, &e), -EINVAL);
    ck_assert_int_eq(numafit_host_fill(h, NULL, 1, NULL, 1, 0, NULL, NULL, n, &e), -EINVAL);
    ck_assert_int_eq(numafit_host_fill(h, rr, 0, NULL, 1, 0, NULL, NULL, n, &e), -EINVAL);
    ck_assert_int_eq(numafit_host_fill(h, rr, 2, NULL, 1, 0, NULL, NULL, n, &e), -EINVAL);
    ck_assert_int_eq(numafit_host_fill(h, rr, 1, NULL, 1, 1u << 7, NULL, NULL, n, &e), -EINVAL);
    ck_assert_int_eq(e.code, NUMAFIT_E_INVALID_ARG);
    /* a request without NUMA topology: an error, nothing claimed */
    ck_assert_int_eq(numafit_request_new(f, strlen(f), NULL, 0, 0, &flat, &e), 0);
    rr[1] = flat;
    ck_assert_int_eq(numafit_host_fill(h, &rr[1], 1, NULL, 5, 0, NULL, NULL, n, &e), -EINVAL);
    ck_assert_int_eq(e.code, NUMAFIT_E_NOT_NUMA);
    ck_assert_int_eq(numafit_host_equal(h, orig), 1);
    /* NULL counts and error are fine */
    ck_assert_int_eq(numafit_host_fill(h, rr, 1, NULL, 5, 0, NULL, NULL, NULL, NULL),
                     NUMAFIT_FILL_MAX);
    numafit_request_free(flat);
    numafit_request_free(r);
    numafit_host_free(orig);
    numafit_host_free(h);
}
END_TEST

static Suite *fill_suite(void) {
    Suite *s = suite_create("fill");
    TCase *tc = tcase_create("fill");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, fill_alone_matches_loop, 0,
                        (int)(sizeof(fixtures) / sizeof(*fixtures)));
    tcase_add_loop_test(tc, fill_round_robin_matches_loop, 0,
                        (int)(sizeof(fixtures) / sizeof(*fixtures)));
    tcase_add_test(tc, fill_round_robin_synthetic);
    tcase_add_test(tc, fill_refused_first_unchanged);
    tcase_add_test(tc, fill_too_complex);
    tcase_add_test(tc, fill_callback);
    tcase_add_test(tc, fill_bad_arguments);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(fill_suite());
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
