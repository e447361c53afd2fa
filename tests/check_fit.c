/*
 * Fit engine unit tests. Expected answers follow nova's rules
 * (nova/virt/hardware.py: numa_fit_instance_to_host, _numa_fit_instance_cell,
 * _pack_instance_onto_cores), worked out by hand in the comments; the
 * differential test (tests/nova_fit_diff.py) checks the same against nova.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "private.h"
#include "testdata.h"

/* Synthetic host: "cells:2 cores:4 threads:2": cell 0 has cores {0,8} {1,9}
 * {2,10} {3,11}, cell 1 has {4,12} {5,13} {6,14} {7,15}. */
#define HT2 "cells:2 cores:4 threads:2 mem:16G pages:2M=1024"

static numafit_host_t *host(const char *spec) {
    numafit_host_t *h = NULL;
    numafit_error_t e;
    int rc = numafit_host_new_synthetic(spec, 0, &h, &e);
    ck_assert_msg(rc == 0, "synthetic '%s': %d %s", spec, rc, e.text);
    return h;
}

static numafit_request_t *req(int vcpus, int mem, const char *specs, int zed) {
    char buf[2048];
    numafit_request_t *r = NULL;
    numafit_error_t e;
    snprintf(buf, sizeof(buf), "{\"vcpus\":%d,\"memory_mb\":%d,\"extra_specs\":%s}", vcpus, mem,
             specs);
    int rc = numafit_request_new(buf, strlen(buf), NULL, 0, zed ? NUMAFIT_REQUEST_ZED : 0, &r, &e);
    ck_assert_msg(rc == 1, "request %s: rc %d %s %s", buf, rc, e.exception, e.text);
    return r;
}

/* Fit and return the placement as plain JSON (or NULL when it does not fit). */
static char *fit_json(const numafit_host_t *h, const numafit_request_t *r,
                      const numafit_options_t *o, numafit_error_t *e) {
    numafit_placement_t *p = NULL;
    char *s = NULL;
    int rc = numafit_fit(h, r, o, 0, &p, e);
    ck_assert_msg(rc == 0 || rc == 1, "fit rc %d: %s", rc, e->text);
    if (rc == 0) {
        ck_assert_ptr_null(p);
        return NULL;
    }
    ck_assert_int_eq(numafit_placement_to_json(p, 0, &s, NULL), 0);
    numafit_placement_free(p);
    return s;
}

static void expect_fit(const char *hspec, int vcpus, int mem, const char *specs, const char *limits,
                       const char *expected) {
    numafit_host_t *h = host(hspec), *copy = NULL;
    numafit_options_t *o = NULL;
    numafit_error_t e;
    ck_assert_int_eq(numafit_options_new(&o), 0);
    if (limits)
        ck_assert_int_eq(numafit_options_set_limits_json(o, limits, strlen(limits), &e), 0);
    for (int zed = 0; zed < 2; zed++) {
        numafit_request_t *r = req(vcpus, mem, specs, zed);
        ck_assert_int_eq(numafit_options_set_profile(o, zed), 0);
        ck_assert_int_eq(numafit_host_dup(h, &copy), 0);
        char *got = fit_json(h, r, o, &e);
        /* the fit never modifies the host */
        ck_assert_int_eq(numafit_host_equal(h, copy), 1);
        if (expected) {
            ck_assert_msg(got != NULL, "%s on %s: no fit (%s)", specs, hspec, e.text);
            json_t *a = json_loads(got, 0, NULL), *b = json_loads(expected, 0, NULL);
            ck_assert_ptr_nonnull(b);
            ck_assert_msg(json_equal(a, b), "%s on %s (zed=%d):\n got %s\nwant %s", specs, hspec,
                          zed, got, expected);
            json_decref(a);
            json_decref(b);
        } else {
            ck_assert_msg(got == NULL, "%s on %s: unexpected fit %s", specs, hspec, got);
        }
        numafit_free(got);
        numafit_host_free(copy);
        numafit_request_free(r);
    }
    numafit_options_free(o);
    numafit_host_free(h);
}

START_TEST(prefer_packs_siblings) {
    /* t=2 first: two threads of each free core, cores in sibling order */
    expect_fit(HT2, 4, 2048, "{\"hw:cpu_policy\":\"dedicated\"}", NULL,
               "[{\"id\":0,\"cpuset\":[],\"pcpuset\":[0,1,2,3],\"memory\":2048,"
               "\"pagesize\":null,\"cpu_pinning\":{\"0\":0,\"1\":8,\"2\":1,\"3\":9},"
               "\"cpuset_reserved\":null}]");
}
END_TEST

START_TEST(isolate_one_thread_per_core) {
    /* legacy host (cpuset == pcpuset): isolate uses one thread of each fully free core */
    expect_fit(HT2, 4, 2048,
               "{\"hw:cpu_policy\":\"dedicated\",\"hw:cpu_thread_policy\":\"isolate\"}", NULL,
               "[{\"id\":0,\"cpuset\":[],\"pcpuset\":[0,1,2,3],\"memory\":2048,"
               "\"pagesize\":null,\"cpu_pinning\":{\"0\":0,\"1\":1,\"2\":2,\"3\":3},"
               "\"cpuset_reserved\":null}]");
}
END_TEST

START_TEST(isolate_refused_with_dedicated_set_on_ht) {
    /* bug #1889633: an HT host with cpu_dedicated_set cannot take isolate */
    expect_fit("cells:1 cores:4 threads:2 dedicated:0-3,4-7", 2, 1024,
               "{\"hw:cpu_policy\":\"dedicated\",\"hw:cpu_thread_policy\":\"isolate\"}", NULL,
               NULL);
}
END_TEST

START_TEST(require_needs_ht) {
    expect_fit("cells:1 cores:8 threads:1", 2, 1024,
               "{\"hw:cpu_policy\":\"dedicated\",\"hw:cpu_thread_policy\":\"require\"}", NULL,
               NULL);
}
END_TEST

START_TEST(emulator_isolate_reserves_next_free_cpu) {
    /* vCPUs on core {0,8}; the emulator pCPU is the first free CPU left: 1 */
    expect_fit(HT2, 2, 1024,
               "{\"hw:cpu_policy\":\"dedicated\",\"hw:emulator_threads_policy\":\"isolate\"}", NULL,
               "[{\"id\":0,\"cpuset\":[],\"pcpuset\":[0,1],\"memory\":1024,"
               "\"pagesize\":null,\"cpu_pinning\":{\"0\":0,\"1\":8},"
               "\"cpuset_reserved\":[1]}]");
}
END_TEST

START_TEST(large_pages) {
    expect_fit(HT2, 2, 1024, "{\"hw:mem_page_size\":\"large\"}", NULL,
               "[{\"id\":0,\"cpuset\":[0,1],\"pcpuset\":[],\"memory\":1024,"
               "\"pagesize\":2048,\"cpu_pinning\":null,\"cpuset_reserved\":null}]");
}
END_TEST

START_TEST(unsupported_page_size) {
    /* 1 GiB pages requested, the host has 4K and 2M only: MemoryPageSizeNotSupported */
    expect_fit(HT2, 2, 1024, "{\"hw:mem_page_size\":\"1GB\"}", NULL, NULL);
}
END_TEST

START_TEST(two_guest_cells) {
    /* as many guest cells as host cells: no sort, guest i on host cell i */
    expect_fit(HT2, 4, 2048, "{\"hw:cpu_policy\":\"dedicated\",\"hw:numa_nodes\":\"2\"}", NULL,
               "[{\"id\":0,\"cpuset\":[],\"pcpuset\":[0,1],\"memory\":1024,\"pagesize\":null,"
               "\"cpu_pinning\":{\"0\":0,\"1\":8},\"cpuset_reserved\":null},"
               "{\"id\":1,\"cpuset\":[],\"pcpuset\":[2,3],\"memory\":1024,\"pagesize\":null,"
               "\"cpu_pinning\":{\"2\":4,\"3\":12},\"cpuset_reserved\":null}]");
}
END_TEST

START_TEST(too_many_guest_cells) {
    numafit_host_t *h = host(HT2);
    numafit_request_t *r = req(3, 3072, "{\"hw:numa_nodes\":\"3\"}", 0);
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    ck_assert_int_eq(numafit_fit(h, r, NULL, 0, &p, &e), 0);
    ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_CELLS);
    numafit_request_free(r);
    numafit_host_free(h);
}
END_TEST

START_TEST(shared_limits) {
    /* 8 shared CPUs per cell, ratio 1.0: 8 vCPUs fit, usage check cpu 8 <= 8 */
    expect_fit(HT2, 8, 1024, "{\"hw:numa_nodes\":\"1\"}",
               "{\"cpu_allocation_ratio\":1.0,\"ram_allocation_ratio\":1.0}",
               "[{\"id\":0,\"cpuset\":[0,1,2,3,4,5,6,7],\"pcpuset\":[],\"memory\":1024,"
               "\"pagesize\":null,\"cpu_pinning\":null,\"cpuset_reserved\":null}]");
    /* more vCPUs than the cell has shared CPUs never fit */
    expect_fit(HT2, 9, 1024, "{\"hw:numa_nodes\":\"1\"}", NULL, NULL);
    /* memory limit: 16384 MiB * 0.5 < 9000 */
    expect_fit(HT2, 2, 9000, "{\"hw:numa_nodes\":\"1\"}",
               "{\"cpu_allocation_ratio\":16.0,\"ram_allocation_ratio\":0.5}", NULL);
}
END_TEST

START_TEST(no_numa_request_is_an_error) {
    numafit_host_t *h = host(HT2);
    numafit_request_t *r = NULL;
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    const char *f = "{\"vcpus\":2,\"memory_mb\":1024,\"extra_specs\":{}}";
    ck_assert_int_eq(numafit_request_new(f, strlen(f), NULL, 0, 0, &r, &e), 0);
    ck_assert_int_eq(numafit_fit(h, r, NULL, 0, &p, &e), -EINVAL);
    ck_assert_int_eq(e.code, NUMAFIT_E_NOT_NUMA);
    ck_assert_int_eq(numafit_fit(h, r, NULL, 1u << 20, &p, &e), -EINVAL);
    ck_assert_int_eq(numafit_fit(NULL, r, NULL, 0, &p, &e), -EINVAL);
    numafit_request_free(r);
    numafit_host_free(h);
}
END_TEST

/* Apply a claim and return the resulting host. */
static void claim_ok(numafit_host_t *h, const numafit_request_t *r) {
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    ck_assert_int_eq(numafit_fit(h, r, NULL, 0, &p, &e), 1);
    ck_assert_int_eq(numafit_host_claim(h, p, 0, &e), 0);
    numafit_placement_free(p);
}

START_TEST(spread_and_pack) {
    /* After one 4-vCPU dedicated guest on cell 0, spread sorts cell 1 (more
     * free pCPUs) first; pack sorts cell 0 (fewer) first. */
    numafit_host_t *h = host(HT2);
    numafit_request_t *r = req(4, 1024, "{\"hw:cpu_policy\":\"dedicated\"}", 0);
    numafit_options_t *o = NULL;
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    claim_ok(h, r);
    ck_assert_int_eq(numafit_options_new(&o), 0);
    ck_assert_int_eq(numafit_fit(h, r, o, 0, &p, &e), 1);
    ck_assert_int_eq(numafit_placement_get_host_cell(p, 0), 1);
    numafit_placement_free(p);
    ck_assert_int_eq(numafit_options_set_strategy(o, NUMAFIT_STRATEGY_PACK), 0);
    ck_assert_int_eq(numafit_fit(h, r, o, 0, &p, &e), 1);
    ck_assert_int_eq(numafit_placement_get_host_cell(p, 0), 0);
    /* on cell 0, cores {0,8} {1,9} are taken: next are {2,10} {3,11} */
    ck_assert_int_eq(numafit_placement_get_pin(p, 0), 2);
    ck_assert_int_eq(numafit_placement_get_pin(p, 1), 10);
    ck_assert_int_eq(numafit_placement_get_pin(p, 2), 3);
    ck_assert_int_eq(numafit_placement_get_pin(p, 3), 11);
    numafit_placement_free(p);
    numafit_options_free(o);
    numafit_request_free(r);
    numafit_host_free(h);
}
END_TEST

START_TEST(fill_until_full) {
    /* 16 pCPUs, 4 per guest: exactly 4 guests, then no fit with a CPU reason */
    numafit_host_t *h = host(HT2);
    numafit_request_t *r = req(4, 1024, "{\"hw:cpu_policy\":\"dedicated\"}", 0);
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    for (int i = 0; i < 4; i++)
        claim_ok(h, r);
    ck_assert_int_eq(numafit_fit(h, r, NULL, 0, &p, &e), 0);
    ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_CPU);
    numafit_request_free(r);
    numafit_host_free(h);
}
END_TEST

START_TEST(mixed_zero_dedicated_cell) {
    /* mixed guest, 2 cells, all dedicated vCPUs in cell 1: guest cell 0 has
     * an empty pinning. Zed refuses it (bug #1994526); latest fits. */
    numafit_host_t *h = host(HT2);
    const char *specs = "{\"hw:cpu_policy\":\"mixed\",\"hw:cpu_dedicated_mask\":\"2-3\","
                        "\"hw:numa_nodes\":\"2\"}";
    numafit_placement_t *p = NULL;
    numafit_options_t *o = NULL;
    numafit_error_t e;
    ck_assert_int_eq(numafit_options_new(&o), 0);
    numafit_request_t *r = req(4, 2048, specs, 0);
    ck_assert_int_eq(numafit_fit(h, r, o, 0, &p, &e), 1);
    ck_assert_int_eq(numafit_placement_get_pin(p, 2), 4);
    ck_assert_int_eq(numafit_placement_get_pin(p, 0), -ENOENT);
    numafit_placement_free(p);
    numafit_request_free(r);
    r = req(4, 2048, specs, 1);
    ck_assert_int_eq(numafit_options_set_profile(o, NUMAFIT_PROFILE_ZED), 0);
    ck_assert_int_eq(numafit_fit(h, r, o, 0, &p, &e), 0);
    ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_THREADS);
    numafit_request_free(r);
    numafit_options_free(o);
    numafit_host_free(h);
}
END_TEST

START_TEST(pinned_memory_profiles) {
    /* all 4K pages used: latest checks free small pages for pinned guests
     * (f14c16af82) and refuses; zed checks total pages and accepts */
    numafit_host_t *h = host("cells:1 cores:4 mem:4G");
    numafit_options_t *o = NULL;
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    h->cells[0].pages[0].used = h->cells[0].pages[0].total;
    h->cells[0].memory_usage = 0;
    ck_assert_int_eq(numafit_options_new(&o), 0);
    numafit_request_t *r = req(2, 1024, "{\"hw:cpu_policy\":\"dedicated\"}", 0);
    ck_assert_int_eq(numafit_fit(h, r, o, 0, &p, &e), 0);
    ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_MEM);
    ck_assert_int_eq(numafit_options_set_profile(o, NUMAFIT_PROFILE_ZED), 0);
    ck_assert_int_eq(numafit_fit(h, r, o, 0, &p, &e), 1);
    numafit_placement_free(p);
    numafit_request_free(r);
    numafit_options_free(o);
    numafit_host_free(h);
}
END_TEST

static void set_net(numafit_host_t *h, int cell, const char *physnet, bool tunneled) {
    struct numafit__cell *c = &h->cells[cell];
    c->has_netmeta = true;
    c->tunneled = tunneled;
    if (physnet) {
        c->physnets = calloc(1, sizeof(char *));
        c->physnets[0] = strdup(physnet);
        c->nphysnets = 1;
    }
}

START_TEST(network_affinity) {
    /* physnet foo lives on cell 1 only: a one-cell guest must go there,
     * although spread would otherwise choose cell 0 */
    numafit_host_t *h = host(HT2);
    numafit_request_t *r = req(2, 1024, "{\"hw:numa_nodes\":\"1\"}", 0);
    numafit_options_t *o = NULL;
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    const char *lim = "{\"cpu_allocation_ratio\":16,\"ram_allocation_ratio\":1.5,"
                      "\"network_metadata\":{\"physnets\":[\"foo\"],\"tunneled\":false}}";
    set_net(h, 0, NULL, true);
    set_net(h, 1, "foo", false);
    ck_assert_int_eq(numafit_options_new(&o), 0);
    ck_assert_int_eq(numafit_options_set_limits_json(o, lim, strlen(lim), &e), 0);
    ck_assert_int_eq(numafit_fit(h, r, o, 0, &p, &e), 1);
    ck_assert_int_eq(numafit_placement_get_host_cell(p, 0), 1);
    numafit_placement_free(p);
    /* foo on cell 1 and a tunnel on cell 0: one guest cell cannot cover both */
    lim = "{\"cpu_allocation_ratio\":16,\"ram_allocation_ratio\":1.5,"
          "\"network_metadata\":{\"physnets\":[\"foo\"],\"tunneled\":true}}";
    ck_assert_int_eq(numafit_options_set_limits_json(o, lim, strlen(lim), &e), 0);
    ck_assert_int_eq(numafit_fit(h, r, o, 0, &p, &e), 0);
    ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_NETWORK);
    numafit_options_free(o);
    numafit_request_free(r);
    numafit_host_free(h);
}
END_TEST

START_TEST(network_pruned_at_root) {
    /* 16 cells, 8 guest cells, the only tunneled cell cannot take a guest
     * cell: the coverage test refuses at once, without search */
    numafit_host_t *h = host("cells:16 cores:4 mem:8G");
    numafit_request_t *r = req(8, 8192, "{\"hw:numa_nodes\":\"8\"}", 0);
    numafit_options_t *o = NULL;
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    const char *lim = "{\"cpu_allocation_ratio\":16,\"ram_allocation_ratio\":1.5,"
                      "\"network_metadata\":{\"physnets\":[],\"tunneled\":true}}";
    for (int i = 0; i < 16; i++)
        set_net(h, i, NULL, i == 15);
    h->cells[15].memory = 100;
    h->cells[15].pages[0].total = 10;
    ck_assert_int_eq(numafit_options_new(&o), 0);
    ck_assert_int_eq(numafit_options_set_limits_json(o, lim, strlen(lim), &e), 0);
    ck_assert_int_eq(numafit_options_set_budget(o, 1000), 0);
    ck_assert_int_eq(numafit_fit(h, r, o, 0, &p, &e), 0);
    ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_NETWORK);
    numafit_options_free(o);
    numafit_request_free(r);
    numafit_host_free(h);
}
END_TEST

/* Physnet i lives on cells i and i-1 (mod m) of h: covering the m
 * physnets of this odd cycle needs (m + 1) / 2 cells. Writes the limits. */
static void odd_cycle(numafit_host_t *h, int m, char *lim, size_t cap) {
    size_t n = (size_t)snprintf(lim, cap,
                                "{\"cpu_allocation_ratio\":16,"
                                "\"ram_allocation_ratio\":1.5,\"network_metadata\":"
                                "{\"tunneled\":false,\"physnets\":[");
    for (int i = 0; i < m; i++) {
        struct numafit__cell *c = &h->cells[i];
        c->has_netmeta = true;
        c->physnets = calloc(2, sizeof(char *));
        c->physnets[0] = calloc(1, 16);
        c->physnets[1] = calloc(1, 16);
        snprintf(c->physnets[0], 16, "net%02d", i);
        snprintf(c->physnets[1], 16, "net%02d", (i + m - 1) % m);
        if (strcmp(c->physnets[0], c->physnets[1]) > 0) { /* a sorted set */
            char *t = c->physnets[0];
            c->physnets[0] = c->physnets[1];
            c->physnets[1] = t;
        }
        c->nphysnets = 2;
        n += (size_t)snprintf(lim + n, cap - n, "%s\"net%02d\"", i ? "," : "", i);
    }
    snprintf(lim + n, cap - n, "]}}");
}

START_TEST(budget_too_complex) {
    numafit_options_t *o = NULL;
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    char lim[2048];
    /* 15 physnets on an odd cycle need 8 cells, the guest has 7: 7 disjoint
     * physnets exist, so the greedy bound passes, but the exact minimum
     * cover (8) refuses at once, well inside a small budget */
    numafit_host_t *h = host("cells:16 cores:4 mem:8G");
    numafit_request_t *r = req(7, 7168, "{\"hw:numa_nodes\":\"7\"}", 0);
    odd_cycle(h, 15, lim, sizeof(lim));
    ck_assert_int_eq(numafit_options_new(&o), 0);
    ck_assert_int_eq(numafit_options_set_limits_json(o, lim, strlen(lim), &e), 0);
    ck_assert_int_eq(numafit_options_set_budget(o, 20000), 0);
    ck_assert_int_eq(numafit_fit(h, r, o, 0, &p, &e), 0);
    ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_NETWORK);
    /* one more guest cell makes it satisfiable (8 cells cover the cycle) */
    numafit_request_free(r);
    r = req(8, 8192, "{\"hw:numa_nodes\":\"8\"}", 0);
    ck_assert_int_eq(numafit_fit(h, r, o, 0, &p, &e), 1);
    numafit_placement_free(p);
    numafit_request_free(r);
    numafit_host_free(h);
    /* 21 physnets (more than the exact bound's 20 groups) need 11 cells, the
     * guest has 10: the search would walk a huge tree; the budget stops it
     * with -E2BIG and a clear error, never a wrong answer */
    h = host("cells:22 cores:4 mem:8G");
    r = req(10, 10240, "{\"hw:numa_nodes\":\"10\"}", 0);
    odd_cycle(h, 21, lim, sizeof(lim));
    ck_assert_int_eq(numafit_options_set_limits_json(o, lim, strlen(lim), &e), 0);
    p = NULL;
    ck_assert_int_eq(numafit_fit(h, r, o, 0, &p, &e), -E2BIG);
    ck_assert_int_eq(e.code, NUMAFIT_E_TOO_COMPLEX);
    ck_assert_ptr_nonnull(strstr(e.text, "work budget"));
    ck_assert_ptr_null(p);
    numafit_options_free(o);
    /* new options carry the default budget: the same answer, a bounded time */
    ck_assert_int_eq(numafit_options_new(&o), 0);
    ck_assert_int_eq(numafit_options_set_limits_json(o, lim, strlen(lim), &e), 0);
    ck_assert_int_eq(numafit_fit(h, r, o, 0, &p, &e), -E2BIG);
    ck_assert_ptr_nonnull(strstr(e.text, "10000000"));
    numafit_options_free(o);
    numafit_request_free(r);
    numafit_host_free(h);
}
END_TEST

START_TEST(explain_json) {
    numafit_host_t *h = host("cells:2 cores:2 mem:4G");
    numafit_request_t *r = req(4, 1024, "{\"hw:cpu_policy\":\"dedicated\"}", 0);
    char *s = NULL;
    numafit_error_t e;
    ck_assert_int_eq(numafit_fit_explain(h, r, NULL, 0, &s, &e), 0);
    json_t *j = json_loads(s, 0, NULL);
    ck_assert_ptr_nonnull(j);
    ck_assert(json_is_false(json_object_get(j, "fits")));
    ck_assert_str_eq(json_string_value(json_object_get(j, "reason")), "NOFIT_CPU");
    ck_assert_int_eq(json_array_size(json_object_get(j, "cells")), 2);
    json_decref(j);
    numafit_free(s);
    numafit_request_free(r);
    numafit_host_free(h);
}
END_TEST

/* A page shortage names the sizes, what they need and what is free. */
START_TEST(explain_pages) {
    numafit_host_t *h = host("cells:2 cores:4 mem:16G pages:2M=256,1G=2");
    numafit_request_t *gb = req(2, 8192, "{\"hw:mem_page_size\":\"1GB\"}", 0);
    numafit_request_t *large = req(2, 8192, "{\"hw:mem_page_size\":\"large\"}", 0);
    numafit_request_t *odd = req(2, 1536, "{\"hw:mem_page_size\":\"1GB\"}", 0);
    const char *want[] = {
        "needs 8 x 1 GiB (2 free of 2) for 8192 MiB",
        "needs 8 x 1 GiB (2 free of 2) or 4096 x 2 MiB (256 free of 256) for 8192 MiB",
        "needs 1 GiB pages (not a whole number of them) for 1536 MiB"};
    numafit_request_t *rs[] = {gb, large, odd};
    for (int i = 0; i < 3; i++) {
        char *s = NULL;
        numafit_error_t e;
        json_t *j, *cell;
        ck_assert_int_eq(numafit_fit_explain(h, rs[i], NULL, 0, &s, &e), 0);
        j = json_loads(s, 0, NULL);
        ck_assert_ptr_nonnull(j);
        ck_assert_str_eq(json_string_value(json_object_get(j, "reason")), "NOFIT_PAGESIZE");
        cell = json_array_get(
            json_object_get(json_array_get(json_object_get(j, "cells"), 1), "guest_cells"), 0);
        ck_assert_str_eq(json_string_value(json_object_get(cell, "text")), want[i]);
        json_decref(j);
        numafit_free(s);
        numafit_request_free(rs[i]);
    }
    numafit_host_free(h);
}
END_TEST

/* ------------------------------------------------------------ properties */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static unsigned rnd(unsigned n) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state % n);
}

static const char *const prop_specs[] = {
    "{\"hw:cpu_policy\":\"dedicated\"}",
    "{\"hw:cpu_policy\":\"dedicated\",\"hw:cpu_thread_policy\":\"isolate\"}",
    "{\"hw:cpu_policy\":\"dedicated\",\"hw:cpu_thread_policy\":\"require\"}",
    "{\"hw:cpu_policy\":\"dedicated\",\"hw:emulator_threads_policy\":\"isolate\"}",
    "{\"hw:cpu_policy\":\"dedicated\",\"hw:numa_nodes\":\"2\",\"hw:mem_page_size\":\"large\"}",
    "{\"hw:cpu_policy\":\"mixed\",\"hw:cpu_dedicated_mask\":\"^0\"}",
    "{\"hw:cpu_policy\":\"dedicated\",\"hw:cpu_realtime\":\"yes\",\"hw:cpu_realtime_mask\":\"^0\","
    "\"hw:emulator_threads_policy\":\"isolate\",\"hw:mem_page_size\":\"1GB\"}",
    "{\"hw:numa_nodes\":\"2\"}",
    "{\"hw:mem_page_size\":\"any\"}",
};

/* Every pinned pCPU (and emulator pCPU) is a free dedicated CPU of the
 * guest cell's host cell, and none is used twice. */
static void check_pinning(const numafit_host_t *h, const numafit_placement_t *p) {
    uint64_t seen[NUMAFIT__CPU_WORDS] = {0};
    for (uint32_t g = 0; g < p->ncells; g++) {
        const struct numafit__pcell *pc = &p->cells[g];
        int ci = numafit__host_cell_index(h, pc->host_id);
        ck_assert_int_ge(ci, 0);
        const struct numafit__cell *c = &h->cells[ci];
        ck_assert_uint_eq(pc->npin, numafit__bits_count(pc->pcpuset, p->nw));
        for (uint32_t j = 0; j < pc->npin + pc->nreserved; j++) {
            uint32_t cpu = j < pc->npin ? pc->pin_pcpu[j] : pc->reserved[j - pc->npin];
            ck_assert_uint_lt(cpu, h->nw * 64u);
            ck_assert_msg(numafit__bit_test(c->pcpuset, cpu), "pCPU %u not dedicated", cpu);
            ck_assert_msg(!numafit__bit_test(c->pinned, cpu), "pCPU %u already pinned", cpu);
            ck_assert_msg(!numafit__bit_test(seen, cpu), "pCPU %u used twice", cpu);
            numafit__bit_set(seen, cpu);
        }
    }
}

START_TEST(property_fill_and_release) {
    /* random hosts filled with random flavors until nothing fits; then
     * releasing everything (in any order) gives back the original host */
    char spec[256], flavor[512];
    unsigned total = 0;
    rng_state = 0x9e3779b97f4a7c15ull + (uint64_t)_i * 7919;
    for (int round = 0; round < 40; round++) {
        unsigned cells = 1 + rnd(4), cores = 1 + rnd(8), threads = 1u << rnd(3);
        if (rnd(3) == 0) {
            unsigned n = cells * cores * threads;
            snprintf(spec, sizeof(spec),
                     "cells:%u cores:%u threads:%u mem:8G pages:2M=1024,1G=2 dedicated:%u-%u "
                     "shared:0-%u",
                     cells, cores, threads, n / 4, n - 1, n / 4 - 1);
            if (n < 4)
                snprintf(spec, sizeof(spec), "cells:%u cores:%u threads:%u mem:8G", cells, cores,
                         threads);
        } else {
            snprintf(spec, sizeof(spec), "cells:%u cores:%u threads:%u mem:8G pages:2M=1024,1G=2",
                     cells, cores, threads);
        }
        numafit_host_t *h = host(spec), *orig = NULL;
        numafit_placement_t *claimed[256];
        unsigned nclaimed = 0;
        numafit_options_t *o = NULL;
        ck_assert_int_eq(numafit_host_dup(h, &orig), 0);
        ck_assert_int_eq(numafit_options_new(&o), 0);
        ck_assert_int_eq(numafit_options_set_profile(o, (int)rnd(2)), 0);
        ck_assert_int_eq(numafit_options_set_strategy(o, (int)rnd(2)), 0);
        for (int step = 0; step < 256; step++) {
            numafit_request_t *r = NULL;
            numafit_placement_t *p = NULL;
            numafit_error_t e;
            unsigned vcpus = 2 + 2 * rnd(3);
            snprintf(flavor, sizeof(flavor), "{\"vcpus\":%u,\"memory_mb\":%u,\"extra_specs\":%s}",
                     vcpus, 1024u * (1 + rnd(2)), prop_specs[rnd(9)]);
            if (numafit_request_new(flavor, strlen(flavor), NULL, 0, 0, &r, &e) != 1) {
                numafit_request_free(r);
                continue;
            }
            int rc = numafit_fit(h, r, o, 0, &p, &e);
            /* the answer alone (no placement) is the same answer */
            numafit_error_t e2;
            ck_assert_int_eq(numafit_fit(h, r, o, 0, NULL, &e2), rc);
            ck_assert_int_eq(e2.code, e.code);
            numafit_request_free(r);
            ck_assert_msg(rc == 0 || rc == 1, "%s on %s: %d %s", flavor, spec, rc, e.text);
            if (rc == 0)
                continue;
            check_pinning(h, p);
            ck_assert_int_eq(numafit_host_claim(h, p, 0, &e), 0);
            claimed[nclaimed++] = p;
        }
        /* release in a shuffled order */
        for (unsigned i = nclaimed; i > 1; i--) {
            unsigned j = rnd(i);
            numafit_placement_t *t = claimed[i - 1];
            claimed[i - 1] = claimed[j];
            claimed[j] = t;
        }
        for (unsigned i = 0; i < nclaimed; i++) {
            numafit_error_t e;
            ck_assert_int_eq(numafit_host_release(h, claimed[i], 0, &e), 0);
            numafit_placement_free(claimed[i]);
        }
        ck_assert_msg(numafit_host_equal(h, orig) == 1, "host %s not restored", spec);
        total += nclaimed;
        numafit_options_free(o);
        numafit_host_free(orig);
        numafit_host_free(h);
    }
    /* the property must have been exercised */
    ck_assert_uint_gt(total, 200);
}
END_TEST

START_TEST(pinned_hugepages_avail_memory) {
    /* Zed also checks avail_memory for pinned guests with hugepages;
     * latest (f14c16af82) checks only the pages. */
    numafit_host_t *h = host("cells:1 cores:4 mem:4G pages:1G=2");
    numafit_options_t *o = NULL;
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    h->cells[0].memory_usage = 3500; /* 596 MiB left of 4096 */
    ck_assert_int_eq(numafit_options_new(&o), 0);
    numafit_request_t *r =
        req(2, 1024, "{\"hw:cpu_policy\":\"dedicated\",\"hw:mem_page_size\":\"1GB\"}", 0);
    ck_assert_int_eq(numafit_fit(h, r, o, 0, &p, &e), 1);
    numafit_placement_free(p);
    ck_assert_int_eq(numafit_options_set_profile(o, NUMAFIT_PROFILE_ZED), 0);
    ck_assert_int_eq(numafit_fit(h, r, o, 0, &p, &e), 0);
    ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_MEM);
    numafit_request_free(r);
    numafit_options_free(o);
    numafit_host_free(h);
}
END_TEST

/* numafit_fit_cell: one guest cell on one host cell with several emulator
 * pCPUs (nova's cpuset_reserved), as nova's _numa_fit_instance_cell. */
START_TEST(fit_cell_reserved) {
    numafit_host_t *h = host(HT2);
    numafit_request_t *r = req(2, 1024, "{\"hw:cpu_policy\":\"dedicated\"}", 0);
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    char *s = NULL;
    /* prefer: both threads of core {0,8}, then the chain of free threads
     * without them: 1, 9 */
    ck_assert_int_eq(numafit_fit_cell(h, 0, r, 0, 2, NULL, 0, &p, &e), 1);
    ck_assert_int_eq(numafit_placement_to_json(p, 0, &s, NULL), 0);
    ck_assert_str_eq(s, "[{\"id\":0,\"cpuset\":[],\"pcpuset\":[0,1],\"memory\":1024,"
                        "\"pagesize\":null,\"cpu_pinning\":{\"0\":0,\"1\":8},"
                        "\"cpuset_reserved\":[1,9]}]");
    numafit_free(s);
    /* the placement claims like any other: 4 pCPUs pinned on cell 0 */
    ck_assert_int_eq(numafit_host_claim(h, p, 0, &e), 0);
    uint64_t v;
    ck_assert_int_eq(numafit_host_get_cell_stat(h, 0, NUMAFIT_CELL_PINNED_CPUS, 0, &v), 0);
    ck_assert_uint_eq(v, 4);
    numafit_placement_free(p);
    p = NULL;
    /* 4 free pCPUs left on cell 0: 2 vCPUs + 3 emulator pCPUs do not fit */
    ck_assert_int_eq(numafit_fit_cell(h, 0, r, 0, 3, NULL, 0, &p, &e), 0);
    ck_assert_ptr_null(p);
    ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_CPU);
    ck_assert_int_eq(e.cell, 0);
    /* nreserved 0: no emulator pCPU; the other cell by index */
    ck_assert_int_eq(numafit_fit_cell(h, 1, r, 0, 0, NULL, 0, &p, &e), 1);
    ck_assert_int_eq(numafit_placement_get_host_cell(p, 0), 1);
    ck_assert_int_eq(numafit_placement_get_pin(p, 0), 4);
    numafit_placement_free(p);
    p = NULL;
    /* bad arguments */
    ck_assert_int_eq(numafit_fit_cell(h, 2, r, 0, 0, NULL, 0, &p, &e), -EINVAL);
    ck_assert_int_eq(numafit_fit_cell(h, 0, r, 1, 0, NULL, 0, &p, &e), -EINVAL);
    ck_assert_int_eq(numafit_fit_cell(h, 0, r, 0, 0, NULL, 1, &p, &e), -EINVAL);
    ck_assert_ptr_null(p);
    numafit_request_free(r);
    numafit_host_free(h);
}
END_TEST

/* The short synthetic form (per host, as numafit plan --add-hosts takes it)
 * builds the same host as the key:value form (per cell); its errors name the
 * token. */
START_TEST(synthetic_short_form) {
    static const struct {
        const char *shortf, *longf;
    } same[] = {
        {"2x4c2t 2cells 1G:4 2M:1024 mem:64G", "cells:2 sockets:2 cores:4 threads:2 mem:32G "
                                               "pages:1G=2,2M=512"},
        {"2x32c2t 4cells 1G:64 2M:4096", "cells:4 sockets:2 cores:16 threads:2 mem:128G "
                                         "pages:1G=16,2M=1024"},
        {"1x8c dedicated:2-7 shared:0-1", "cells:1 cores:8 mem:32G dedicated:2-7 shared:0-1"},
    };
    static const struct {
        const char *spec, *text;
    } bad[] = {
        {"1x64c2t 3cells", "'3cells': 64 cores do not split evenly over 3 cells"},
        {"2x8c 1G:3", "'1G:3': 3 pages do not split evenly over 2 cells"},
        {"2x8c banana", "'banana': unknown token"},
        {"2x8q", "'2x8q': the CPU shape is SOCKETSxCORESc[THREADSt]"},
        {"1x2c mem:4G 1G:8", "the huge pages (8192 MiB) exceed the host memory (4096 MiB)"},
        {"2x8c 2x8c", "'2x8c': the CPU shape is given twice"},
        /* nothing given twice, nothing empty (a default host was built) */
        {"", "the description is empty"},
        {" \t ", "the description is empty"},
        {"2x8c 2cells 1cells", "'1cells': the cells are given twice"},
        {"2x8c mem:4G mem:8G", "'mem:8G': the memory is given twice"},
        {"1x8c dedicated:0-3 dedicated:4-7", "dedicated: is given twice"},
        {"1x8c shared:0-3 shared:4-7", "shared: is given twice"},
        {"cells:2 cells:3", "a key is given twice"},
        {"cells:1 pages:1G=1 pages:1G=1", "a key is given twice"},
        {"cells:1 pages:1G=1,1G=2", "a page size is given twice"},
        {"cores:4 dedicated:0-1 dedicated:2-3", "a key is given twice"},
    };
    for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
        numafit_host_t *a = host(same[i].shortf), *b = host(same[i].longf);
        ck_assert_msg(numafit_host_equal(a, b) == 1, "%s != %s", same[i].shortf, same[i].longf);
        numafit_host_free(a);
        numafit_host_free(b);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        numafit_host_t *h = NULL;
        numafit_error_t e;
        ck_assert_int_eq(numafit_host_new_synthetic(bad[i].spec, 0, &h, &e), -EINVAL);
        ck_assert_ptr_null(h);
        ck_assert_msg(strstr(e.text, bad[i].text) != NULL, "%s: %s", bad[i].spec, e.text);
    }
}
END_TEST

/* The reproducer that burnt 43 s of CPU: 5 triangles of physnets and one
 * more over 100 cells, 8 guest cells (a cover needs 11). Within a budget of
 * 100,000 steps it must now answer "no fit" for the network. */
START_TEST(network_triangles_reproducer) {
    size_t hl, fl, ll;
    char *hj = test_slurp("repro/network-search/host-100cells-16physnets.json", &hl);
    char *fj = test_slurp("repro/network-search/flavor-8-nodes.json", &fl);
    char *lj = test_slurp("repro/network-search/limits-16-physnets.json", &ll);
    numafit_host_t *h = NULL;
    numafit_request_t *r = NULL;
    numafit_options_t *o = NULL;
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    ck_assert_int_eq(numafit_host_new_from_json(hj, hl, 0, &h, &e), 0);
    ck_assert_int_eq(numafit_request_new(fj, fl, NULL, 0, 0, &r, &e), 1);
    ck_assert_int_eq(numafit_options_new(&o), 0);
    ck_assert_int_eq(numafit_options_set_limits_json(o, lj, ll, &e), 0);
    ck_assert_int_eq(numafit_options_set_budget(o, 100000), 0);
    ck_assert_int_eq(numafit_fit(h, r, o, 0, &p, &e), 0);
    ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_NETWORK);
    numafit_options_free(o);
    numafit_request_free(r);
    numafit_host_free(h);
    free(hj);
    free(fj);
    free(lj);
}
END_TEST

static Suite *fit_suite(void) {
    Suite *s = suite_create("fit");
    TCase *tc = tcase_create("fit");
    tcase_add_test(tc, prefer_packs_siblings);
    tcase_add_test(tc, isolate_one_thread_per_core);
    tcase_add_test(tc, isolate_refused_with_dedicated_set_on_ht);
    tcase_add_test(tc, require_needs_ht);
    tcase_add_test(tc, emulator_isolate_reserves_next_free_cpu);
    tcase_add_test(tc, large_pages);
    tcase_add_test(tc, unsupported_page_size);
    tcase_add_test(tc, two_guest_cells);
    tcase_add_test(tc, too_many_guest_cells);
    tcase_add_test(tc, shared_limits);
    tcase_add_test(tc, no_numa_request_is_an_error);
    tcase_add_test(tc, spread_and_pack);
    tcase_add_test(tc, fill_until_full);
    tcase_add_test(tc, mixed_zero_dedicated_cell);
    tcase_add_test(tc, pinned_memory_profiles);
    tcase_add_test(tc, network_affinity);
    tcase_add_test(tc, network_pruned_at_root);
    tcase_add_test(tc, budget_too_complex);
    tcase_add_test(tc, explain_json);
    tcase_add_test(tc, explain_pages);
    tcase_add_test(tc, pinned_hugepages_avail_memory);
    tcase_add_test(tc, fit_cell_reserved);
    tcase_add_test(tc, synthetic_short_form);
    tcase_add_test(tc, network_triangles_reproducer);
    suite_add_tcase(s, tc);
    TCase *prop = tcase_create("properties");
    tcase_set_timeout(prop, 60);
    tcase_add_loop_test(prop, property_fill_and_release, 0, 8);
    suite_add_tcase(s, prop);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(fit_suite());
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
