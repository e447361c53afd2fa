/*
 * The fit with PCI devices (numafit_options_set_pci): nova's sort of the
 * host cells by their devices, the PCI check on the chosen cells, the
 * search for other cells when nova's first choice lacks the devices, the
 * refusal's reason, and a bounded search on a 24-cell host.
 *
 * The host: the Huawei RH2288H V3 of seed document 000 (2 sockets, a cell
 * each, 64 GiB) with an Intel X710 (PF 8086:1572 and 4 VFs 8086:154c) on
 * cell 0 and an NVIDIA T4 (10de:1eb8) on cell 1.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numafit.h>

#define POOL(vendor, product, node, count, type)                                                   \
    "{\"vendor_id\":\"" vendor "\",\"product_id\":\"" product "\",\"numa_node\":" node             \
    ",\"count\":" count ",\"dev_type\":\"" type "\"}"

static const char *const seed_pools = "[" POOL("8086", "154c", "0", "4", "type-VF") "," POOL(
    "8086", "1572", "0", "1", "type-PF") "," POOL("10de", "1eb8", "1", "1", "type-PCI") "]";

static numafit_pci_pools_t *pools(const char *json) {
    numafit_pci_pools_t *p = NULL;
    numafit_error_t e;
    ck_assert_msg(numafit_pci_pools_new_from_json(json, strlen(json), 0, &p, &e) == 0, "%s: %s",
                  e.where, e.text);
    return p;
}

/* count devices of vendor:product with policy (a JSON value) */
static numafit_pci_requests_t *want(const char *vendor, const char *product, int count,
                                    const char *policy) {
    char buf[512];
    numafit_pci_requests_t *r = NULL;
    numafit_error_t e;
    snprintf(buf, sizeof(buf),
             "[{\"count\":%d,\"spec\":[{\"vendor_id\":\"%s\",\"product_id\":\"%s\"}],"
             "\"alias_name\":\"gpu\",\"numa_policy\":%s}]",
             count, vendor, product, policy);
    ck_assert_msg(numafit_pci_requests_new_from_json(buf, strlen(buf), 0, &r, &e) == 0, "%s: %s",
                  e.where, e.text);
    return r;
}

/* A VF with policy vf and the T4 with policy gpu */
static numafit_pci_requests_t *vf_and_gpu(const char *vf, const char *gpu) {
    char buf[512];
    numafit_pci_requests_t *r = NULL;
    numafit_error_t e;
    snprintf(buf, sizeof(buf),
             "[{\"count\":1,\"spec\":[{\"vendor_id\":\"8086\",\"product_id\":\"154c\"}],"
             "\"alias_name\":\"vf\",\"numa_policy\":\"%s\"},"
             "{\"count\":1,\"spec\":[{\"vendor_id\":\"10de\",\"product_id\":\"1eb8\"}],"
             "\"alias_name\":\"gpu\",\"numa_policy\":\"%s\"}]",
             vf, gpu);
    ck_assert_msg(numafit_pci_requests_new_from_json(buf, strlen(buf), 0, &r, &e) == 0, "%s: %s",
                  e.where, e.text);
    return r;
}

static numafit_host_t *host(const char *spec) {
    numafit_host_t *h = NULL;
    numafit_error_t e;
    ck_assert_msg(numafit_host_new_synthetic(spec, 0, &h, &e) == 0, "%s", e.text);
    return h;
}

static numafit_request_t *flavor(int vcpus, int mem, const char *specs) {
    char buf[1024];
    numafit_request_t *r = NULL;
    numafit_error_t e;
    snprintf(buf, sizeof(buf), "{\"vcpus\":%d,\"memory_mb\":%d,\"extra_specs\":%s}", vcpus, mem,
             specs);
    ck_assert_msg(numafit_request_new(buf, strlen(buf), NULL, 0, 0, &r, &e) == 1, "%s", e.text);
    return r;
}

/* The fit's host cell of guest cell 0, or -1 (no fit: *e says why). */
static int fit_cell(const numafit_host_t *h, const numafit_request_t *r,
                    const numafit_pci_pools_t *p, const numafit_pci_requests_t *q,
                    numafit_error_t *e) {
    numafit_options_t *o = NULL;
    numafit_placement_t *pl = NULL;
    int rc, cell = -1;
    ck_assert_int_eq(numafit_options_new(&o), 0);
    ck_assert_int_eq(numafit_options_set_pci(o, p, q), 0);
    rc = numafit_fit(h, r, o, 0, &pl, e);
    ck_assert_int_ge(rc, 0);
    if (rc == 1) {
        cell = numafit_placement_get_host_cell(pl, 0);
        numafit_placement_free(pl);
    }
    numafit_options_free(o);
    return cell;
}

static const char *const one_cell = "{\"hw:numa_nodes\":\"1\",\"hw:cpu_policy\":\"dedicated\"}";

START_TEST(test_sort_by_devices) {
    numafit_host_t *h = host("2x4c2t 2cells mem:64G");
    numafit_request_t *r = flavor(2, 2048, one_cell);
    numafit_pci_pools_t *p = pools(seed_pools);
    numafit_pci_requests_t *vf = want("8086", "154c", 1, "\"legacy\"");
    numafit_pci_requests_t *none = NULL;
    numafit_error_t e;
    ck_assert_int_eq(numafit_pci_requests_new(&none), 0);
    /* equal cells: nova's order is the cells' own */
    ck_assert_int_eq(fit_cell(h, r, NULL, NULL, &e), 0);
    /* pools but no request: the cells with the fewest devices first (cell
     * 1 has one, cell 0 five) */
    ck_assert_int_eq(fit_cell(h, r, p, NULL, &e), 1);
    ck_assert_int_eq(fit_cell(h, r, p, none, &e), 1);
    /* devices requested: the most first */
    ck_assert_int_eq(fit_cell(h, r, p, vf, &e), 0);
    numafit_pci_requests_free(vf);
    numafit_pci_requests_free(none);
    numafit_pci_pools_free(p);
    numafit_request_free(r);
    numafit_host_free(h);
}
END_TEST

START_TEST(test_other_cells) {
    numafit_host_t *h = host("2x4c2t 2cells mem:64G");
    numafit_request_t *r = flavor(2, 2048, one_cell);
    numafit_pci_pools_t *p = pools(seed_pools);
    numafit_pci_requests_t *gpu = want("10de", "1eb8", 1, "\"required\"");
    numafit_pci_requests_t *two = want("10de", "1eb8", 2, "\"required\"");
    numafit_pci_requests_t *legacy = want("10de", "1eb8", 1, "\"legacy\"");
    numafit_error_t e;
    /* nova tries cell 0 first (five devices): no T4 there; cell 1 has it */
    ck_assert_int_eq(fit_cell(h, r, p, gpu, &e), 1);
    ck_assert_int_eq(fit_cell(h, r, p, legacy, &e), 1);
    /* two T4s: none of the cells has them */
    ck_assert_int_eq(fit_cell(h, r, p, two, &e), -1);
    ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_PCI);
    ck_assert_str_eq(e.where, "pci_requests/0");
    ck_assert_int_eq(e.cell, 0);
    ck_assert_msg(strstr(e.text, "alias gpu") && strstr(e.text, "asks for 2 devices"), "%s",
                  e.text);
    ck_assert_str_eq(numafit_error_code_name(e.code), "NOFIT_PCI");
    {
        /* the refusal words what the walk on nova's first choice says
         * (kept from that walk, not walked again) */
        numafit_error_t w;
        int64_t c0 = 0;
        ck_assert_int_eq(numafit_pci_support(p, h, two, &c0, 1, &w), 0);
        ck_assert_msg(strncmp(e.text, w.text, strlen(w.text)) == 0, "%s / %s", e.text, w.text);
        ck_assert_str_eq(e.text + strlen(w.text),
                         " on the host cells nova chooses first, and no other choice of host "
                         "cells has the devices");
        ck_assert_str_eq(w.text, "PCI request 0 (alias gpu) asks for 2 devices: only 1 devices "
                                 "match its specs");
    }
    {
        /* a VF and the T4, both on the guest's cell: each cell has one of
         * them, so every choice is searched (and bounded) before the
         * refusal, which still words the walk on nova's first choice */
        numafit_pci_requests_t *q = vf_and_gpu("required", "required");
        numafit_error_t w;
        int64_t c0 = 0;
        ck_assert_int_eq(fit_cell(h, r, p, q, &e), -1);
        ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_PCI);
        ck_assert_int_eq(e.cell, 0);
        ck_assert_str_eq(e.where, "pci_requests/1");
        ck_assert_str_eq(e.text, "PCI request 1 (alias gpu) asks for 1 device: only 0 matching "
                                 "devices are on NUMA nodes its policy allows on the host cells "
                                 "nova chooses first, and no other choice of host cells has the "
                                 "devices");
        ck_assert_int_eq(numafit_pci_support(p, h, q, &c0, 1, &w), 0);
        ck_assert_msg(strncmp(e.text, w.text, strlen(w.text)) == 0, "%s / %s", e.text, w.text);
        numafit_pci_requests_free(q);
        /* socket: each cell is a socket of its own, so no better; legacy
         * takes no device of another cell either; preferred takes the
         * T4 of cell 1 for a guest on cell 0 (the VFs' cell, first) */
        q = vf_and_gpu("socket", "socket");
        ck_assert_int_eq(fit_cell(h, r, p, q, &e), -1);
        numafit_pci_requests_free(q);
        q = vf_and_gpu("legacy", "legacy");
        ck_assert_int_eq(fit_cell(h, r, p, q, &e), -1);
        numafit_pci_requests_free(q);
        q = vf_and_gpu("preferred", "preferred");
        ck_assert_int_eq(fit_cell(h, r, p, q, &e), 0);
        numafit_pci_requests_free(q);
        /* the T4's cell, found by the search, with a VF of the other cell */
        q = vf_and_gpu("preferred", "required");
        ck_assert_int_eq(fit_cell(h, r, p, q, &e), 1);
        numafit_pci_requests_free(q);
        q = vf_and_gpu("required", "preferred");
        ck_assert_int_eq(fit_cell(h, r, p, q, &e), 0);
        numafit_pci_requests_free(q);
    }
    {
        /* a refusal of a long alias: the text cut at the end of e.text,
         * still ended; and no error structure at all (nothing worded) */
        char buf[512], name[101];
        numafit_pci_requests_t *q = NULL;
        numafit_options_t *o = NULL;
        memset(name, 'a', 100);
        name[100] = '\0';
        snprintf(buf, sizeof(buf),
                 "[{\"count\":2,\"spec\":[{\"vendor_id\":\"10de\",\"product_id\":\"1eb8\"}],"
                 "\"alias_name\":\"%s\",\"numa_policy\":\"required\"}]",
                 name);
        ck_assert_int_eq(numafit_pci_requests_new_from_json(buf, strlen(buf), 0, &q, &e), 0);
        ck_assert_int_eq(fit_cell(h, r, p, q, &e), -1);
        ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_PCI);
        ck_assert_str_eq(e.where, "pci_requests/0");
        ck_assert_uint_eq(strlen(e.text), sizeof(e.text) - 1);
        snprintf(buf, sizeof(buf),
                 "PCI request 0 (alias %s) asks for 2 devices: only 1 devices match its specs on "
                 "the host cells nova chooses first, and no other choice of host cells has the "
                 "devices",
                 name);
        buf[sizeof(e.text) - 1] = '\0';
        ck_assert_str_eq(e.text, buf);
        ck_assert_int_eq(numafit_options_new(&o), 0);
        ck_assert_int_eq(numafit_options_set_pci(o, p, q), 0);
        ck_assert_int_eq(numafit_fit(h, r, o, 0, NULL, NULL), 0);
        numafit_options_free(o);
        numafit_pci_requests_free(q);
    }
    numafit_pci_requests_free(gpu);
    numafit_pci_requests_free(two);
    numafit_pci_requests_free(legacy);
    numafit_pci_pools_free(p);
    numafit_request_free(r);
    numafit_host_free(h);
}
END_TEST

/* A two-cell guest takes both cells: the devices of either do. */
START_TEST(test_whole_host) {
    numafit_host_t *h = host("2x4c2t 2cells mem:64G");
    numafit_request_t *r =
        flavor(4, 4096, "{\"hw:numa_nodes\":\"2\",\"hw:cpu_policy\":\"dedicated\"}");
    numafit_pci_pools_t *p = pools(seed_pools);
    numafit_pci_requests_t *gpu = want("10de", "1eb8", 1, "\"required\"");
    numafit_pci_requests_t *three = want("8086", "154c", 5, "\"required\"");
    numafit_error_t e;
    ck_assert_int_eq(fit_cell(h, r, p, gpu, &e), 0);
    ck_assert_int_eq(fit_cell(h, r, p, three, &e), -1);
    ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_PCI);
    numafit_pci_requests_free(gpu);
    numafit_pci_requests_free(three);
    numafit_pci_pools_free(p);
    numafit_request_free(r);
    numafit_host_free(h);
}
END_TEST

/* The placement nova would take second is the answer when the first lacks
 * the devices; the devices stay where they are (the fit changes nothing). */
START_TEST(test_pools_unchanged) {
    numafit_host_t *h = host("2x4c2t 2cells mem:64G");
    numafit_request_t *r = flavor(2, 2048, one_cell);
    numafit_pci_pools_t *p = pools(seed_pools), *copy = NULL;
    numafit_pci_requests_t *gpu = want("10de", "1eb8", 1, "\"required\"");
    numafit_error_t e;
    ck_assert_int_eq(numafit_pci_pools_dup(p, &copy), 0);
    ck_assert_int_eq(fit_cell(h, r, p, gpu, &e), 1);
    ck_assert_int_eq(numafit_pci_pools_equal(p, copy), 1);
    /* the devices of the placement: taken on its cell, all or nothing */
    {
        int64_t cell = 1;
        ck_assert_int_eq(numafit_pci_apply(p, h, gpu, &cell, 1, &e), 0);
        ck_assert_int_eq(numafit_pci_pools_get_count(p), 2); /* the T4 pool is gone */
        ck_assert_int_eq(fit_cell(h, r, p, gpu, &e), -1);
        ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_PCI);
    }
    numafit_pci_pools_free(copy);
    numafit_pci_requests_free(gpu);
    numafit_pci_pools_free(p);
    numafit_request_free(r);
    numafit_host_free(h);
}
END_TEST

/* 24 cells with devices on every cell, a 12-cell guest, a request no
 * choice of cells satisfies: the answer is a refusal or the budget's
 * error, never a wrong fit, and the search stays within the budget. */
START_TEST(test_bounded) {
    numafit_host_t *h = host("4x24c 24cells mem:384G");
    numafit_request_t *r = flavor(24, 24576, "{\"hw:numa_nodes\":\"12\"}");
    char buf[8192];
    size_t n = 0;
    numafit_pci_pools_t *p;
    numafit_pci_requests_t *q = want("8086", "154c", 13, "\"required\"");
    numafit_options_t *o = NULL;
    numafit_placement_t *pl = NULL;
    numafit_error_t e;
    int rc;
    n += (size_t)snprintf(buf + n, sizeof(buf) - n, "[");
    for (int c = 0; c < 24; c++)
        n += (size_t)snprintf(buf + n, sizeof(buf) - n,
                              "%s" POOL("8086", "154c", "%d", "1", "type-VF"), c ? "," : "", c);
    snprintf(buf + n, sizeof(buf) - n, "]");
    p = pools(buf);
    ck_assert_int_eq(numafit_options_new(&o), 0);
    ck_assert_int_eq(numafit_options_set_pci(o, p, q), 0);
    ck_assert_int_eq(numafit_options_set_budget(o, 200000), 0);
    rc = numafit_fit(h, r, o, 0, &pl, &e);
    ck_assert_msg(rc == -E2BIG || rc == 0, "rc %d", rc);
    if (rc == -E2BIG)
        ck_assert_int_eq(e.code, NUMAFIT_E_TOO_COMPLEX);
    else
        ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_PCI);
    /* twelve devices on any twelve cells: nova's first choice has them */
    numafit_pci_requests_free(q);
    q = want("8086", "154c", 12, "\"required\"");
    ck_assert_int_eq(numafit_options_set_pci(o, p, q), 0);
    ck_assert_int_eq(numafit_fit(h, r, o, 0, &pl, &e), 1);
    numafit_placement_free(pl);
    numafit_options_free(o);
    numafit_pci_requests_free(q);
    numafit_pci_pools_free(p);
    numafit_request_free(r);
    numafit_host_free(h);
}
END_TEST

START_TEST(test_explain) {
    numafit_host_t *h = host("2x4c2t 2cells mem:64G");
    numafit_request_t *r = flavor(2, 2048, one_cell);
    numafit_pci_pools_t *p = pools(seed_pools);
    numafit_pci_requests_t *two = want("10de", "1eb8", 2, "\"required\"");
    numafit_options_t *o = NULL;
    numafit_error_t e;
    char *js = NULL;
    ck_assert_int_eq(numafit_options_new(&o), 0);
    ck_assert_int_eq(numafit_options_set_pci(o, p, two), 0);
    ck_assert_int_eq(numafit_fit_explain(h, r, o, 0, &js, &e), 0);
    ck_assert_msg(strstr(js, "\"reason\": \"NOFIT_PCI\"") || strstr(js, "\"reason\":\"NOFIT_PCI\""),
                  "%s", js);
    numafit_free(js);
    ck_assert_int_eq(numafit_options_set_pci(NULL, p, two), -EINVAL);
    numafit_options_free(o);
    numafit_pci_requests_free(two);
    numafit_pci_pools_free(p);
    numafit_request_free(r);
    numafit_host_free(h);
}
END_TEST

/* The caller's check: counts its calls, says yes only on cell 1. */
struct probe {
    int calls;
    int answer_error;
};

static int only_cell_1(void *ctx, const int64_t *ids, size_t n) {
    struct probe *pr = ctx;
    pr->calls++;
    if (pr->answer_error)
        return -ECANCELED;
    return n == 1 && ids[0] == 1;
}

START_TEST(test_caller_check) {
    numafit_host_t *h = host("2x4c2t 2cells mem:64G");
    numafit_request_t *r = flavor(2, 2048, one_cell);
    numafit_pci_pools_t *p = pools(seed_pools);
    numafit_pci_requests_t *vf = want("8086", "154c", 1, "\"required\"");
    numafit_options_t *o = NULL, *copy = NULL;
    numafit_placement_t *pl = NULL;
    numafit_error_t e;
    struct probe pr = {0, 0};
    ck_assert_int_eq(numafit_options_new(&o), 0);
    ck_assert_int_eq(numafit_options_set_pci(o, p, vf), 0);
    ck_assert_int_eq(numafit_options_set_pci_check(o, only_cell_1, &pr), 0);
    /* the library's rules would take cell 0 (the VFs); the caller's check
     * wants cell 1 */
    ck_assert_int_eq(numafit_options_dup(o, &copy), 0);
    ck_assert_int_eq(numafit_fit(h, r, copy, 0, &pl, &e), 1);
    ck_assert_int_eq(numafit_placement_get_host_cell(pl, 0), 1);
    ck_assert_int_ge(pr.calls, 2);
    numafit_placement_free(pl);
    /* a failing check abandons the fit with its errno */
    pr.answer_error = 1;
    ck_assert_int_eq(numafit_fit(h, r, copy, 0, &pl, &e), -ECANCELED);
    ck_assert_str_eq(e.where, "pci_requests");
    /* back to the library's rules */
    ck_assert_int_eq(numafit_options_set_pci_check(copy, NULL, NULL), 0);
    ck_assert_int_eq(fit_cell(h, r, p, vf, &e), 0);
    ck_assert_int_eq(numafit_options_dup(NULL, &copy), -EINVAL);
    numafit_options_free(copy);
    numafit_options_free(o);
    numafit_pci_requests_free(vf);
    numafit_pci_pools_free(p);
    numafit_request_free(r);
    numafit_host_free(h);
}
END_TEST

/* A fill with devices stops when they run out, and leaves the options'
 * pools as they were. */
START_TEST(test_fill) {
    numafit_host_t *h = host("2x8c2t 2cells mem:64G");
    numafit_request_t *r = flavor(2, 2048, one_cell);
    numafit_pci_pools_t *p = pools(seed_pools), *before = NULL;
    numafit_pci_requests_t *vf = want("8086", "154c", 2, "\"required\"");
    numafit_options_t *o = NULL;
    numafit_error_t e;
    uint64_t count = 0;
    const numafit_request_t *reqs[1] = {r};
    ck_assert_int_eq(numafit_pci_pools_dup(p, &before), 0);
    ck_assert_int_eq(numafit_options_new(&o), 0);
    ck_assert_int_eq(numafit_options_set_pci(o, p, vf), 0);
    /* 4 VFs on cell 0, 2 a guest: two guests, though the CPUs take 16 */
    ck_assert_int_eq(
        numafit_host_fill(h, reqs, 1, o, NUMAFIT_FILL_NO_MAX, 0, NULL, NULL, &count, &e),
        NUMAFIT_FILL_FULL);
    ck_assert_uint_eq(count, 2);
    ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_PCI);
    ck_assert_int_eq(numafit_pci_pools_equal(p, before), 1);
    /* without requests the fill knows no devices: the CPUs decide */
    ck_assert_int_eq(numafit_options_set_pci(o, p, NULL), 0);
    ck_assert_int_eq(
        numafit_host_fill(h, reqs, 1, o, NUMAFIT_FILL_NO_MAX, 0, NULL, NULL, &count, &e),
        NUMAFIT_FILL_FULL);
    ck_assert_uint_eq(count, 14);
    numafit_options_free(o);
    numafit_pci_requests_free(vf);
    numafit_pci_pools_free(p);
    numafit_pci_pools_free(before);
    numafit_request_free(r);
    numafit_host_free(h);
}
END_TEST

int main(void) {
    Suite *s = suite_create("pci_fit");
    TCase *tc = tcase_create("fit");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_sort_by_devices);
    tcase_add_test(tc, test_other_cells);
    tcase_add_test(tc, test_whole_host);
    tcase_add_test(tc, test_pools_unchanged);
    tcase_add_test(tc, test_bounded);
    tcase_add_test(tc, test_explain);
    tcase_add_test(tc, test_caller_check);
    tcase_add_test(tc, test_fill);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
