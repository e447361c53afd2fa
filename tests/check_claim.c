/*
 * Claims and releases (nova's numa_usage_from_instance_numa and its
 * inverse): usage arithmetic, whole cores for isolate, conflicts refused
 * with nova's exception names, and a failed claim leaves the host unchanged.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "private.h"
#include "testdata.h"

#define HT2 "cells:2 cores:4 threads:2 mem:16G pages:2M=1024"

static numafit_host_t *host(const char *spec) {
    numafit_host_t *h = NULL;
    ck_assert_int_eq(numafit_host_new_synthetic(spec, 0, &h, NULL), 0);
    return h;
}

static numafit_request_t *req(const char *json);

static numafit_placement_t *fit(const numafit_host_t *h, int vcpus, int mem, const char *specs) {
    char buf[1024];
    numafit_request_t *r = NULL;
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    snprintf(buf, sizeof(buf), "{\"vcpus\":%d,\"memory_mb\":%d,\"extra_specs\":%s}", vcpus, mem,
             specs);
    ck_assert_int_eq(numafit_request_new(buf, strlen(buf), NULL, 0, 0, &r, &e), 1);
    ck_assert_msg(numafit_fit(h, r, NULL, 0, &p, &e) == 1, "no fit: %s", e.text);
    numafit_request_free(r);
    return p;
}

static unsigned pinned_count(const numafit_host_t *h, int cell) {
    return numafit__bits_count(h->cells[cell].pinned, h->nw);
}

START_TEST(claim_release_roundtrip) {
    numafit_host_t *h = host(HT2), *orig = NULL;
    numafit_placement_t *p = fit(h, 4, 2048, "{\"hw:cpu_policy\":\"dedicated\"}");
    numafit_error_t e;
    ck_assert_int_eq(numafit_host_dup(h, &orig), 0);
    ck_assert_int_eq(numafit_host_claim(h, p, 0, &e), 0);
    ck_assert_int_eq(pinned_count(h, 0), 4);
    ck_assert(numafit__bit_test(h->cells[0].pinned, 0) && numafit__bit_test(h->cells[0].pinned, 8));
    /* the cached counts follow the claim: 4 fewer free dedicated CPUs */
    ck_assert(numafit__host_derived_ok(h));
    ck_assert_uint_eq(h->cells[0].count[2], orig->cells[0].count[2] - 4);
    ck_assert_uint_eq(h->cells[0].memory_usage, 2048);
    ck_assert_uint_eq(h->cells[0].cpu_usage, 0); /* dedicated vCPUs are not cpu_usage */
    /* no page size requested: the smallest pages (4K) are counted */
    ck_assert_uint_eq(h->cells[0].pages[0].used, 2048u * 256u);
    ck_assert_int_eq(numafit_host_equal(h, orig), 0);
    ck_assert_int_eq(numafit_host_release(h, p, 0, &e), 0);
    ck_assert_int_eq(numafit_host_equal(h, orig), 1);
    ck_assert(numafit__host_derived_ok(h));
    numafit_placement_free(p);
    numafit_host_free(orig);
    numafit_host_free(h);
}
END_TEST

START_TEST(isolate_pins_whole_cores) {
    numafit_host_t *h = host(HT2);
    numafit_placement_t *p =
        fit(h, 2, 1024, "{\"hw:cpu_policy\":\"dedicated\",\"hw:cpu_thread_policy\":\"isolate\"}");
    numafit_error_t e;
    ck_assert_int_eq(numafit_host_claim(h, p, 0, &e), 0);
    /* vCPUs on 0 and 1; their siblings 8 and 9 are consumed too */
    ck_assert_int_eq(pinned_count(h, 0), 4);
    ck_assert(numafit__bit_test(h->cells[0].pinned, 9));
    ck_assert_int_eq(numafit_host_release(h, p, 0, &e), 0);
    ck_assert_int_eq(pinned_count(h, 0), 0);
    numafit_placement_free(p);
    numafit_host_free(h);
}
END_TEST

START_TEST(double_claim_refused_unchanged) {
    numafit_host_t *h = host(HT2), *snap = NULL;
    numafit_placement_t *p = fit(h, 2, 1024, "{\"hw:cpu_policy\":\"dedicated\"}");
    numafit_error_t e;
    ck_assert_int_eq(numafit_host_claim(h, p, 0, &e), 0);
    ck_assert_int_eq(numafit_host_dup(h, &snap), 0);
    ck_assert_int_eq(numafit_host_claim(h, p, 0, &e), -EBUSY);
    ck_assert_str_eq(e.exception, "CPUPinningInvalid");
    ck_assert_int_eq(e.code, NUMAFIT_E_PINNING);
    ck_assert_int_eq(numafit_host_equal(h, snap), 1);
    ck_assert_int_eq(numafit_host_release(h, p, 0, &e), 0);
    ck_assert_int_eq(numafit_host_release(h, p, 0, &e), -EBUSY);
    ck_assert_str_eq(e.exception, "CPUUnpinningInvalid");
    numafit_placement_free(p);
    numafit_host_free(snap);
    numafit_host_free(h);
}
END_TEST

START_TEST(multi_cell_claim_is_atomic) {
    /* guest cell 1 conflicts (its pCPU is already pinned): the memory and
     * pages of guest cell 0 must not be applied either */
    numafit_host_t *h = host(HT2), *snap = NULL;
    numafit_placement_t *p =
        fit(h, 4, 2048, "{\"hw:cpu_policy\":\"dedicated\",\"hw:numa_nodes\":\"2\"}");
    numafit_error_t e;
    numafit__bit_set(h->cells[1].pinned, (unsigned)numafit_placement_get_pin(p, 3));
    numafit__host_derive(h);
    ck_assert_int_eq(numafit_host_dup(h, &snap), 0);
    ck_assert_int_eq(numafit_host_claim(h, p, 0, &e), -EBUSY);
    ck_assert_int_eq(e.cell, 1);
    ck_assert_int_eq(numafit_host_equal(h, snap), 1);
    numafit_placement_free(p);
    numafit_host_free(snap);
    numafit_host_free(h);
}
END_TEST

START_TEST(hugepage_accounting) {
    numafit_host_t *h = host(HT2);
    numafit_placement_t *p = fit(h, 2, 1024, "{\"hw:mem_page_size\":\"2048\"}");
    numafit_error_t e;
    ck_assert_int_eq(numafit_host_claim(h, p, 0, &e), 0);
    ck_assert_uint_eq(h->cells[0].pages[1].used, 512);
    ck_assert_uint_eq(h->cells[0].pages[0].used, 0);
    ck_assert_uint_eq(h->cells[0].cpu_usage, 2); /* shared vCPUs count */
    ck_assert_int_eq(numafit_host_release(h, p, 0, &e), 0);
    ck_assert_uint_eq(h->cells[0].pages[1].used, 0);
    numafit_placement_free(p);
    numafit_host_free(h);
}
END_TEST

/* A host whose smallest pages are 2 MiB and a guest cell of 9 MiB without
 * a page size: the claim counts 5 pages (a part of a page is a page), so the
 * release gives back the 4 used before (nova's arithmetic: 8, then 3). */
START_TEST(part_page_claim_release_roundtrip) {
    static const char hj[] =
        "{\"nova_object.name\":\"NUMATopology\",\"nova_object.namespace\":\"nova\","
        "\"nova_object.version\":\"1.2\",\"nova_object.data\":{\"cells\":[{\"nova_object.name\":"
        "\"NUMACell\",\"nova_object.namespace\":\"nova\",\"nova_object.version\":\"1.5\","
        "\"nova_object.data\":{\"id\":0,\"cpuset\":[0,1],\"pcpuset\":[],\"memory\":64,"
        "\"cpu_usage\":0,\"memory_usage\":0,\"pinned_cpus\":[],\"siblings\":[[0],[1]],"
        "\"mempages\":[{\"nova_object.name\":\"NUMAPagesTopology\",\"nova_object.namespace\":"
        "\"nova\",\"nova_object.version\":\"1.1\",\"nova_object.data\":{\"size_kb\":2048,"
        "\"total\":16,\"used\":4,\"reserved\":0}}]}}]}}";
    numafit_host_t *h = NULL, *orig = NULL;
    numafit_error_t e;
    ck_assert_msg(numafit_host_new_from_json(hj, strlen(hj), 0, &h, &e) == 0, "%s", e.text);
    ck_assert_int_eq(numafit_host_dup(h, &orig), 0);
    /* nova's fit (and ours) refuses it: 9 MiB is not a whole number of the
     * smallest pages; a placement read from JSON can still say so */
    numafit_request_t *r = req("{\"vcpus\":1,\"memory_mb\":9,\"extra_specs\":"
                               "{\"hw:numa_nodes\":\"1\"}}");
    numafit_placement_t *p = NULL;
    ck_assert_int_eq(numafit_fit(h, r, NULL, 0, &p, &e), 0);
    ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_MEM);
    numafit_request_free(r);
    static const char pj[] = "[{\"id\":0,\"cpuset\":[0],\"memory\":9,\"pagesize\":null}]";
    ck_assert_int_eq(numafit_placement_new_from_json(pj, strlen(pj), 0, &p, &e), 0);
    ck_assert_int_eq(numafit_host_claim(h, p, 0, &e), 0);
    ck_assert_uint_eq(h->cells[0].pages[0].used, 9);
    ck_assert_int_eq(numafit_host_release(h, p, 0, &e), 0);
    ck_assert_uint_eq(h->cells[0].pages[0].used, 4);
    ck_assert_int_eq(numafit_host_equal(h, orig), 1);
    numafit_placement_free(p);
    numafit_host_free(orig);
    numafit_host_free(h);
}
END_TEST

/* A cell whose memory_usage is at the model's limit (1 TiB of MiB): a guest
 * on 2 MiB pages passes nova's page check, but its claim would take
 * memory_usage past what the host JSON can hold. The fit refuses it and a
 * claim of the same placement is refused without a trace (the host_records
 * fuzz finding: the fit was given, the claim took memory_usage to 2^40 +
 * 1280 and the claimed host no longer read back). */
START_TEST(usage_kept_in_range) {
    char hj[1024];
    snprintf(hj, sizeof(hj),
             "{\"nova_object.name\":\"NUMATopology\",\"nova_object.namespace\":\"nova\","
             "\"nova_object.version\":\"1.2\",\"nova_object.data\":{\"cells\":[{"
             "\"nova_object.name\":\"NUMACell\",\"nova_object.namespace\":\"nova\","
             "\"nova_object.version\":\"1.5\",\"nova_object.data\":{\"id\":0,\"cpuset\":[0,1],"
             "\"pcpuset\":[],\"memory\":4096,\"cpu_usage\":0,\"memory_usage\":%llu,"
             "\"pinned_cpus\":[],\"siblings\":[[0],[1]],\"mempages\":[{\"nova_object.name\":"
             "\"NUMAPagesTopology\",\"nova_object.namespace\":\"nova\",\"nova_object.version\":"
             "\"1.1\",\"nova_object.data\":{\"size_kb\":2048,\"total\":1024,\"used\":0,"
             "\"reserved\":0}}]}}]}}",
             (unsigned long long)NUMAFIT_MEMORY_MB_MAX - 100);
    numafit_host_t *h = NULL, *orig = NULL;
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    ck_assert_msg(numafit_host_new_from_json(hj, strlen(hj), 0, &h, &e) == 0, "%s", e.text);
    ck_assert_int_eq(numafit_host_dup(h, &orig), 0);
    numafit_request_t *r = req("{\"vcpus\":1,\"memory_mb\":1024,\"extra_specs\":"
                               "{\"hw:mem_page_size\":\"2MB\"}}");
    ck_assert_int_eq(numafit_fit(h, r, NULL, 0, &p, &e), 0);
    ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_MEM);
    numafit_request_free(r);
    /* 100 MiB still fits, up to the limit itself, and reads back */
    r = req("{\"vcpus\":1,\"memory_mb\":100,\"extra_specs\":{\"hw:mem_page_size\":\"2MB\"}}");
    ck_assert_int_eq(numafit_fit(h, r, NULL, 0, &p, &e), 1);
    ck_assert_int_eq(numafit_host_claim(h, p, 0, &e), 0);
    ck_assert_uint_eq(h->cells[0].memory_usage, NUMAFIT_MEMORY_MB_MAX);
    char *json = NULL;
    numafit_host_t *back = NULL;
    ck_assert_int_eq(numafit_host_to_json(h, 0, &json, NULL), 0);
    ck_assert_int_eq(numafit_host_new_from_json(json, strlen(json), 0, &back, &e), 0);
    numafit_free(json);
    numafit_host_free(back);
    /* a second claim of it is refused, the host unchanged */
    numafit_host_t *claimed = NULL;
    ck_assert_int_eq(numafit_host_dup(h, &claimed), 0);
    ck_assert_int_eq(numafit_host_claim(h, p, 0, &e), -ERANGE);
    ck_assert_int_eq(e.code, NUMAFIT_E_RANGE);
    ck_assert_int_eq(numafit_host_equal(h, claimed), 1);
    ck_assert_int_eq(numafit_host_release(h, p, 0, &e), 0);
    ck_assert_int_eq(numafit_host_equal(h, orig), 1);
    numafit_request_free(r);
    numafit_placement_free(p);
    numafit_host_free(claimed);
    numafit_host_free(orig);
    numafit_host_free(h);
}
END_TEST

/* A claim works on the cells the placement names only: two guest cells on
 * one host cell add up there (the second checked against the first's
 * pins), the other cells are untouched, and a conflict in the second
 * leaves the host as it was. */
START_TEST(claim_touches_named_cells_only) {
    numafit_host_t *h = host("cells:24 cores:4 threads:2 mem:96G pages:2M=1024"), *snap = NULL,
                   *one = NULL;
    const char *two = "[{\"id\":0,\"cpuset\":[0],\"pcpuset\":[],\"memory\":512,"
                      "\"pagesize\":null,\"cpu_pinning\":null,\"cpuset_reserved\":null},"
                      "{\"id\":19,\"cpuset\":[],\"pcpuset\":[1],\"memory\":1024,\"pagesize\":2048,"
                      "\"cpu_policy\":\"dedicated\",\"cpu_pinning\":{\"1\":76},"
                      "\"cpuset_reserved\":null},"
                      "{\"id\":19,\"cpuset\":[],\"pcpuset\":[2],\"memory\":1024,\"pagesize\":2048,"
                      "\"cpu_policy\":\"dedicated\",\"cpu_pinning\":{\"2\":77},"
                      "\"cpuset_reserved\":null}]";
    const char *clash = "[{\"id\":19,\"cpuset\":[],\"pcpuset\":[0],\"memory\":64,\"pagesize\":null,"
                        "\"cpu_policy\":\"dedicated\",\"cpu_pinning\":{\"0\":78},"
                        "\"cpuset_reserved\":null},"
                        "{\"id\":19,\"cpuset\":[],\"pcpuset\":[1],\"memory\":64,\"pagesize\":null,"
                        "\"cpu_policy\":\"dedicated\",\"cpu_pinning\":{\"1\":78},"
                        "\"cpuset_reserved\":null}]";
    numafit_placement_t *p = NULL, *q = NULL;
    numafit_error_t e;
    ck_assert_int_eq(numafit_placement_new_from_json(two, strlen(two), 0, &p, &e), 0);
    ck_assert_int_eq(numafit_host_dup(h, &snap), 0);
    ck_assert_int_eq(numafit_host_claim(h, p, 0, &e), 0);
    ck_assert(numafit__host_derived_ok(h));
    ck_assert_uint_eq(h->cells[19].memory_usage, 2048);
    ck_assert_uint_eq(h->cells[19].pages[1].used, 1024); /* 512 2M pages, twice */
    ck_assert_int_eq(pinned_count(h, 19), 2);
    ck_assert(numafit__bit_test(h->cells[19].pinned, 76) &&
              numafit__bit_test(h->cells[19].pinned, 77));
    ck_assert_uint_eq(h->cells[0].cpu_usage, 1);
    ck_assert_uint_eq(h->cells[0].memory_usage, 512);
    for (int i = 1; i < 24; i++)
        if (i != 19) {
            ck_assert_uint_eq(h->cells[i].memory_usage, 0);
            ck_assert_int_eq(pinned_count(h, i), 0);
        }
    /* the same pins claimed twice in one placement: refused, unchanged */
    ck_assert_int_eq(numafit_placement_new_from_json(clash, strlen(clash), 0, &q, &e), 0);
    ck_assert_int_eq(numafit_host_dup(h, &one), 0);
    ck_assert_int_eq(numafit_host_claim(h, q, 0, &e), -EBUSY);
    ck_assert_str_eq(e.exception, "CPUPinningInvalid");
    ck_assert_int_eq(numafit_host_equal(h, one), 1);
    ck_assert_int_eq(numafit_host_release(h, p, 0, &e), 0);
    ck_assert_int_eq(numafit_host_equal(h, snap), 1);
    ck_assert(numafit__host_derived_ok(h));
    numafit_placement_free(p);
    numafit_placement_free(q);
    numafit_host_free(one);
    numafit_host_free(snap);
    numafit_host_free(h);
}
END_TEST

START_TEST(nova_json_roundtrip_and_unknown_cell) {
    numafit_host_t *h = host(HT2), *one = NULL;
    numafit_placement_t *p = fit(h, 2, 1024,
                                 "{\"hw:cpu_policy\":\"dedicated\",\"hw:emulator_threads_policy\":"
                                 "\"isolate\"}"),
                        *q = NULL;
    numafit_error_t e;
    char *s = NULL;
    ck_assert_int_eq(numafit_placement_set_uuid(p, "4f2a9d4e-1b9c-4c43-9b4e-2d1f0c9a7e11"), 0);
    ck_assert_int_eq(numafit_placement_to_json(p, NUMAFIT_PLACEMENT_JSON_NOVA, &s, &e), 0);
    ck_assert_ptr_nonnull(strstr(s, "\"instance_uuid\":\"4f2a9d4e-1b9c-4c43-9b4e-2d1f0c9a7e11\""));
    ck_assert_int_eq(numafit_placement_new_from_json(s, strlen(s), 0, &q, &e), 0);
    ck_assert_int_eq(numafit_host_dup(h, &one), 0);
    ck_assert_int_eq(numafit_host_claim(h, p, 0, &e), 0);
    ck_assert_int_eq(numafit_host_claim(one, q, 0, &e), 0);
    ck_assert_int_eq(numafit_host_equal(h, one), 1);
    ck_assert_int_eq(pinned_count(h, 0), 3); /* 2 vCPUs + the emulator pCPU */
    numafit_free(s);
    numafit_placement_free(q);
    /* a placement on a host cell the host lacks */
    const char *bad = "[{\"id\":7,\"cpuset\":[0],\"pcpuset\":[],\"memory\":64,"
                      "\"pagesize\":null,\"cpu_pinning\":null,\"cpuset_reserved\":null}]";
    ck_assert_int_eq(numafit_placement_new_from_json(bad, strlen(bad), 0, &q, &e), 0);
    ck_assert_int_eq(numafit_host_claim(h, q, 0, &e), -ENOENT);
    ck_assert_int_eq(e.cell, 7);
    /* bad JSON never crashes and names the field */
    const char *bad2 = "[{\"id\":0,\"memory\":-5}]";
    numafit_placement_t *r = NULL;
    ck_assert_int_eq(numafit_placement_new_from_json(bad2, strlen(bad2), 0, &r, &e), -ERANGE);
    ck_assert_str_eq(e.where, "/cells/0/memory");
    numafit_placement_free(q);
    numafit_placement_free(p);
    numafit_host_free(one);
    numafit_host_free(h);
}
END_TEST

/* The placement reader accepted two vCPUs on one pCPU and page size 7. */
START_TEST(placement_reader_refuses_impossible) {
    static const struct {
        const char *json, *text, *where;
    } bad[] = {
        {"[{\"id\":0,\"pcpuset\":[0,1],\"memory\":64,\"cpu_policy\":\"dedicated\","
         "\"cpu_pinning\":{\"0\":3,\"1\":3}}]",
         "two vCPUs are pinned to one host CPU", "/cells/0/cpu_pinning"},
        {"[{\"id\":0,\"pcpuset\":[1],\"memory\":64,\"cpu_policy\":\"dedicated\","
         "\"cpu_pinning\":{\"1\":3,\"01\":4}}]",
         "a vCPU is pinned twice", "/cells/0/cpu_pinning"},
        {"[{\"id\":0,\"cpuset\":[0],\"memory\":64,\"pagesize\":7}]", "power of two",
         "/cells/0/pagesize"},
        {"[{\"id\":0,\"cpuset\":[0],\"memory\":64,\"pagesize\":2}]", "power of two",
         "/cells/0/pagesize"},
        /* tests/fuzz/known-bugs/placement-half-page-release: 4.5 pages of
         * 2 MiB; claimed on 4 used pages gave 8, released then 3 */
        {"[{\"id\":1,\"memory\":9,\"pagesize\":2048}]", "whole number of the cell's pages",
         "/cells/0/memory"},
        {"[{\"id\":0,\"pcpuset\":[0],\"memory\":64,\"cpu_policy\":\"dedicated\","
         "\"cpu_pinning\":{\"0\":3},\"cpuset_reserved\":[3]}]",
         "also a vCPU's pinned CPU", "/cells/0/cpuset_reserved"},
        {"[{\"id\":0,\"pcpuset\":[0],\"memory\":64,\"cpu_policy\":\"dedicated\","
         "\"cpu_pinning\":{\"0\":3},\"cpuset_reserved\":[5,5]}]",
         "listed twice", "/cells/0/cpuset_reserved"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        numafit_placement_t *p = NULL;
        numafit_error_t e;
        int rc = numafit_placement_new_from_json(bad[i].json, strlen(bad[i].json), 0, &p, &e);
        ck_assert_msg(rc == -EINVAL, "%zu: rc %d (%s)", i, rc, e.text);
        ck_assert_ptr_null(p);
        ck_assert_msg(strstr(e.text, bad[i].text) != NULL, "%zu: %s", i, e.text);
        ck_assert_str_eq(e.where, bad[i].where);
    }
    const char *ok = "[{\"id\":0,\"pcpuset\":[0,1],\"memory\":1024,\"pagesize\":1048576,"
                     "\"cpu_policy\":\"dedicated\",\"cpu_pinning\":{\"0\":3,\"1\":4},"
                     "\"cpuset_reserved\":[5,6]}]";
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    ck_assert_int_eq(numafit_placement_new_from_json(ok, strlen(ok), 0, &p, &e), 0);
    numafit_placement_free(p);

    /* pagesize 0 is no page size, as nova reads it (nova's resource
     * tracker test test_claim_numa claims instance cells of pagesize 0):
     * read, written back as null */
    const char *zero = "[{\"id\":0,\"cpuset\":[1],\"memory\":3,\"pagesize\":0}]";
    ck_assert_int_eq(numafit_placement_new_from_json(zero, strlen(zero), 0, &p, &e), 0);
    char *out = NULL;
    ck_assert_int_eq(numafit_placement_to_json(p, 0, &out, &e), 0);
    ck_assert_msg(strstr(out, "\"pagesize\":null") != NULL, "%s", out);
    free(out);
    numafit_placement_free(p);
}
END_TEST

/* nova's versioned-object envelope, read by one reader for hosts,
 * placements and limits: the field at fault is named, and a version nova
 * could not read ("1.3abc") is refused as nova refuses it. */
#define ENV(name, ns, ver, data)                                                                   \
    "{\"nova_object.name\":\"" name "\",\"nova_object.namespace\":\"" ns                           \
    "\",\"nova_object.version\":\"" ver "\"" data "}"
#define PDATA ",\"nova_object.data\":{\"cells\":[{\"id\":0,\"cpuset\":[0],\"memory\":64}]}"
START_TEST(envelopes_one_reader) {
    static const struct {
        const char *json, *text, *where;
        int code;
    } bad[] = {
        {ENV("InstanceNUMACell", "nova", "1.3", PDATA),
         "an object of type InstanceNUMATopology is required", "/nova_object.name",
         NUMAFIT_E_SCHEMA},
        {ENV("InstanceNUMATopology", "neutron", "1.3", PDATA), "unsupported object namespace",
         "/nova_object.namespace", NUMAFIT_E_SCHEMA},
        {ENV("InstanceNUMATopology", "nova", "1.3abc", PDATA), "Invalid version: '1.3abc'",
         "/nova_object.version", NUMAFIT_E_SCHEMA},
        {ENV("InstanceNUMATopology", "nova", "1.9", PDATA),
         "Version 1.9 of InstanceNUMATopology is not supported, supported version is 1.3",
         "/nova_object.version", NUMAFIT_E_VERSION},
        {ENV("InstanceNUMATopology", "nova", "1.3", ",\"nova_object.changes\":[1]" PDATA),
         "must hold field names", "/nova_object.changes", NUMAFIT_E_SCHEMA},
        {ENV("InstanceNUMATopology", "nova", "1.3", ""), "'nova_object.data' is missing",
         "/nova_object.data", NUMAFIT_E_SCHEMA},
        {"[" ENV("InstanceNUMACell", "nova", "2.0", ",\"nova_object.data\":{}") "]",
         "Version 2.0 of InstanceNUMACell is not supported", "/cells/0/nova_object.version",
         NUMAFIT_E_VERSION},
    };
    numafit_placement_t *p = NULL;
    numafit_options_t *o = NULL;
    numafit_error_t e;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int rc = numafit_placement_new_from_json(bad[i].json, strlen(bad[i].json), 0, &p, &e);
        ck_assert_msg(rc == -EINVAL, "%zu: rc %d (%s)", i, rc, e.text);
        ck_assert_ptr_null(p);
        ck_assert_msg(strstr(e.text, bad[i].text) != NULL, "%zu: %s", i, e.text);
        ck_assert_str_eq(e.where, bad[i].where);
        ck_assert_int_eq(e.code, bad[i].code);
    }
    const char *good = ENV("InstanceNUMATopology", "nova", "1.3", PDATA);
    ck_assert_int_eq(numafit_placement_new_from_json(good, strlen(good), 0, &p, &e), 0);
    numafit_placement_free(p);
    /* limits: the name and the data are checked */
    const char *lim = "{\"nova_object.name\":\"NUMATopologyLimits\",\"nova_object.data\":\"x\"}";
    ck_assert_int_eq(numafit_options_new(&o), 0);
    ck_assert_int_eq(numafit_options_set_limits_json(o, lim, strlen(lim), &e), -EINVAL);
    ck_assert_ptr_nonnull(strstr(e.text, "'nova_object.data' must be an object, not a string"));
    ck_assert_str_eq(e.where, "/nova_object.data");
    const char *lim2 = "{\"nova_object.name\":\"NUMATopology\",\"nova_object.data\":{}}";
    ck_assert_int_eq(numafit_options_set_limits_json(o, lim2, strlen(lim2), &e), -EINVAL);
    ck_assert_ptr_nonnull(strstr(e.text, "an object of type NUMATopologyLimits is required"));
    numafit_options_free(o);
}
END_TEST

START_TEST(unknown_pcpu_refused) {
    numafit_host_t *h = host("cells:1 cores:4 dedicated:2-3 shared:0-1"), *snap = NULL;
    const char *j = "[{\"id\":0,\"cpuset\":[],\"pcpuset\":[0],\"memory\":64,\"pagesize\":null,"
                    "\"cpu_pinning\":{\"0\":1},\"cpuset_reserved\":null}]";
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    ck_assert_int_eq(numafit_placement_new_from_json(j, strlen(j), 0, &p, &e), 0);
    ck_assert_int_eq(numafit_host_dup(h, &snap), 0);
    ck_assert_int_eq(numafit_host_claim(h, p, 0, &e), -ENOENT);
    ck_assert_str_eq(e.exception, "CPUPinningUnknown");
    ck_assert_int_eq(numafit_host_equal(h, snap), 1);
    numafit_placement_free(p);
    numafit_host_free(snap);
    numafit_host_free(h);
}
END_TEST

/* The cell queries a capacity report reads after claims: counts of free
 * and partly used cores, pages, CPU sets and sibling sets. */
START_TEST(cell_queries_follow_claims) {
    numafit_host_t *h = host(HT2);
    /* 3 dedicated vCPUs, prefer: both threads of core (0,8), then 1 of (1,9) */
    numafit_placement_t *p = fit(h, 3, 2048, "{\"hw:cpu_policy\":\"dedicated\"}");
    numafit_cpuset_t *set = NULL;
    numafit_error_t e;
    uint64_t v, size, total, used, reserved;
    char *txt = NULL;
    ck_assert_int_eq(numafit_host_claim(h, p, 0, &e), 0);
    static const struct {
        int stat;
        uint64_t want;
    } want[] = {
        {NUMAFIT_CELL_SHARED_CPUS, 8},
        {NUMAFIT_CELL_DEDICATED_CPUS, 8},
        {NUMAFIT_CELL_PINNED_CPUS, 3},
        {NUMAFIT_CELL_FREE_PCPUS, 5},
        {NUMAFIT_CELL_CORES, 4},
        {NUMAFIT_CELL_FREE_CORES, 2},
        {NUMAFIT_CELL_PARTIAL_CORES, 1},
        {NUMAFIT_CELL_PARTIAL_FREE_PCPUS, 1},
        {NUMAFIT_CELL_THREADS_PER_CORE, 2},
        {NUMAFIT_CELL_CPU_USAGE, 0},
        {NUMAFIT_CELL_MEMORY_MB, 16384},
        {NUMAFIT_CELL_MEMORY_USED_MB, 2048},
        {NUMAFIT_CELL_SOCKET, 0},
        {NUMAFIT_CELL_PAGE_SIZES, 2},
        {NUMAFIT_CELL_SIBLING_SETS, 4},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        ck_assert_int_eq(numafit_host_get_cell_stat(h, 0, want[i].stat, 0, &v), 0);
        ck_assert_msg(v == want[i].want, "stat %d: %llu, want %llu", want[i].stat,
                      (unsigned long long)v, (unsigned long long)want[i].want);
    }
    /* the other cell is untouched */
    ck_assert_int_eq(numafit_host_get_cell_stat(h, 1, NUMAFIT_CELL_FREE_CORES, 0, &v), 0);
    ck_assert_uint_eq(v, 4);
    /* 2M pages come second (4K first); 2048 MiB went to the 4K pages */
    ck_assert_int_eq(numafit_host_get_cell_pages(h, 0, 1, 0, &size, &total, &used, &reserved), 0);
    ck_assert_uint_eq(size, 2048);
    ck_assert_uint_eq(total, 1024);
    ck_assert_uint_eq(used, 0);
    ck_assert_uint_eq(reserved, 0);
    ck_assert_int_eq(numafit_host_get_cell_pages(h, 0, 0, 0, &size, NULL, &used, NULL), 0);
    ck_assert_uint_eq(size, 4);
    ck_assert_uint_eq(used, 2048u * 256u);
    ck_assert_int_eq(numafit_host_get_cell_cpus(h, 0, NUMAFIT_CELL_CPUS_PINNED, 0, &set), 0);
    ck_assert_int_eq(numafit_cpuset_format(set, 0, &txt), 0);
    ck_assert_str_eq(txt, "0-1,8");
    numafit_free(txt);
    numafit_cpuset_free(set);
    ck_assert_int_eq(numafit_host_get_cell_cpus(h, 0, NUMAFIT_CELL_CPUS_FREE, 0, &set), 0);
    ck_assert_int_eq(numafit_cpuset_format(set, 0, &txt), 0);
    ck_assert_str_eq(txt, "2-3,9-11");
    numafit_free(txt);
    numafit_cpuset_free(set);
    ck_assert_int_eq(numafit_host_get_cell_siblings(h, 0, 1, 0, &set), 0);
    ck_assert_int_eq(numafit_cpuset_format(set, 0, &txt), 0);
    ck_assert_str_eq(txt, "1,9");
    numafit_free(txt);
    numafit_cpuset_free(set);
    /* bad arguments */
    ck_assert_int_eq(numafit_host_get_cell_stat(h, 2, NUMAFIT_CELL_CORES, 0, &v), -ENOENT);
    ck_assert_int_eq(numafit_host_get_cell_stat(h, 0, NUMAFIT_CELL__STAT_MAX, 0, &v), -EINVAL);
    ck_assert_int_eq(numafit_host_get_cell_stat(h, 0, NUMAFIT_CELL_CORES, 1, &v), -EINVAL);
    ck_assert_int_eq(numafit_host_get_cell_pages(h, 0, 2, 0, NULL, NULL, NULL, NULL), -ENOENT);
    ck_assert_int_eq(numafit_host_get_cell_siblings(h, 0, 4, 0, &set), -ENOENT);
    ck_assert_int_eq(numafit_host_get_cell_cpus(h, 0, 9, 0, &set), -EINVAL);
    /* release: everything free again */
    ck_assert_int_eq(numafit_host_release(h, p, 0, &e), 0);
    ck_assert_int_eq(numafit_host_get_cell_stat(h, 0, NUMAFIT_CELL_FREE_CORES, 0, &v), 0);
    ck_assert_uint_eq(v, 4);
    ck_assert_int_eq(numafit_host_get_cell_stat(h, 0, NUMAFIT_CELL_PARTIAL_CORES, 0, &v), 0);
    ck_assert_uint_eq(v, 0);
    numafit_placement_free(p);
    numafit_host_free(h);
}
END_TEST

/* Fill a host with mixed flavors until nothing fits, then release all in
 * another order: the cached counts follow every claim and release, and the
 * host ends where it started. */
START_TEST(fill_and_drain_keeps_derived_counts) {
    static const char *const flavors[] = {
        "{\"vcpus\":3,\"memory_mb\":1024,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\"}}",
        "{\"vcpus\":2,\"memory_mb\":1024,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\","
        "\"hw:cpu_thread_policy\":\"isolate\",\"hw:emulator_threads_policy\":\"isolate\"}}",
        "{\"vcpus\":4,\"memory_mb\":2048,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\","
        "\"hw:cpu_thread_policy\":\"require\",\"hw:numa_nodes\":\"2\"}}",
        "{\"vcpus\":1,\"memory_mb\":512,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\","
        "\"hw:mem_page_size\":\"2MB\"}}",
    };
    numafit_host_t *h = NULL, *orig = NULL;
    numafit_placement_t *placed[64];
    unsigned n = 0, misses = 0;
    numafit_error_t e;
    ck_assert_int_eq(
        numafit_host_new_synthetic("cells:2 cores:6 threads:2 mem:16G "
                                   "pages:2M=512 dedicated:2-11,14-23 shared:0-1,12-13",
                                   0, &h, &e),
        0);
    ck_assert(numafit__host_derived_ok(h));
    ck_assert_int_eq(numafit_host_dup(h, &orig), 0);
    for (unsigned i = 0; misses < 4 && n < 64; i++) {
        const char *f = flavors[i % 4];
        numafit_request_t *r = NULL;
        numafit_placement_t *p = NULL;
        ck_assert_int_eq(numafit_request_new(f, strlen(f), NULL, 0, 0, &r, &e), 1);
        int rc = numafit_fit(h, r, NULL, 0, &p, &e);
        numafit_request_free(r);
        ck_assert_int_ge(rc, 0);
        if (rc == 0) {
            misses++;
            continue;
        }
        misses = 0;
        ck_assert_msg(numafit_host_claim(h, p, 0, &e) == 0, "claim %u: %s", n, e.text);
        ck_assert_msg(numafit__host_derived_ok(h), "stale counts after claim %u", n);
        placed[n++] = p;
    }
    ck_assert_uint_ge(n, 4);
    /* release odd indexes first, then even ones */
    for (unsigned pass = 0; pass < 2; pass++)
        for (unsigned i = 1 - pass; i < n; i += 2) {
            ck_assert_msg(numafit_host_release(h, placed[i], 0, &e) == 0, "release %u: %s", i,
                          e.text);
            ck_assert_msg(numafit__host_derived_ok(h), "stale counts after release %u", i);
            numafit_placement_free(placed[i]);
        }
    ck_assert_int_eq(numafit_host_equal(h, orig), 1);
    numafit_host_free(orig);
    numafit_host_free(h);
}
END_TEST

static char *cell_cpus(const numafit_host_t *h, unsigned cell, int which) {
    numafit_cpuset_t *set = NULL;
    char *txt = NULL;
    ck_assert_int_eq(numafit_host_get_cell_cpus(h, cell, which, 0, &set), 0);
    ck_assert_int_eq(numafit_cpuset_format(set, 0, &txt), 0);
    numafit_cpuset_free(set);
    return txt;
}

static numafit_hostconf_t *pools(const char *dedicated, const char *shared) {
    numafit_hostconf_t *conf = NULL;
    ck_assert_int_eq(numafit_hostconf_new(&conf), 0);
    if (dedicated)
        ck_assert_int_eq(numafit_hostconf_set_cpu_dedicated_set(conf, dedicated, NULL), 0);
    if (shared)
        ck_assert_int_eq(numafit_hostconf_set_cpu_shared_set(conf, shared, NULL), 0);
    return conf;
}

#define EXPECT_CPUS(h, cell, which, want)                                                          \
    do {                                                                                           \
        char *t_ = cell_cpus(h, cell, which);                                                      \
        ck_assert_str_eq(t_, want);                                                                \
        numafit_free(t_);                                                                          \
    } while (0)

/* What-if on the pools (another cpu_dedicated_set): CPUs move between the
 * pools, siblings are cut, pinned CPUs and unknown CPUs are refused, and a
 * refused change leaves the host as it was. */
/* ------------------------------------------------ isolate, overlapping siblings */

static numafit_host_t *host_file(const char *rel) {
    size_t len;
    char *buf = test_slurp(rel, &len);
    numafit_host_t *h = NULL;
    numafit_error_t e;
    ck_assert_msg(numafit_host_new_from_json(buf, len, 0, &h, &e) == 0, "%s: %s", rel, e.text);
    free(buf);
    return h;
}

static numafit_request_t *req(const char *json) {
    numafit_request_t *r = NULL;
    numafit_error_t e;
    ck_assert_msg(numafit_request_new(json, strlen(json), NULL, 0, 0, &r, &e) == 1, "%s", e.text);
    return r;
}

/* No sibling set of host cell c holds two different pCPUs of the placement
 * cell (vCPUs and emulator pCPUs), and no set holds an emulator pCPU and a
 * vCPU: what isolate promises. */
static void assert_isolated(const struct numafit__cell *c, const struct numafit__pcell *pc) {
    for (uint32_t s = 0; s < c->nsib; s++) {
        int vcpus = 0, emu = 0;
        for (uint32_t i = c->sib_off[s]; i < c->sib_off[s + 1]; i++) {
            for (uint32_t k = 0; k < pc->npin; k++)
                vcpus += pc->pin_pcpu[k] == c->sib_cpu[i];
            for (uint32_t k = 0; k < pc->nreserved; k++)
                emu += pc->reserved[k] == c->sib_cpu[i];
        }
        ck_assert_msg(vcpus <= 1, "sibling set %u holds %d vCPUs", s, vcpus);
        ck_assert_msg(!(vcpus && emu), "sibling set %u holds a vCPU and an emulator pCPU", s);
    }
}

/* Fit, check isolation, claim (must succeed), release (must restore). */
static void fit_claim_release(numafit_host_t *h, const numafit_request_t *r, int expect_fit) {
    numafit_placement_t *p = NULL;
    numafit_host_t *orig = NULL;
    numafit_error_t e;
    int rc = numafit_fit(h, r, NULL, 0, &p, &e);
    ck_assert_int_ge(rc, 0);
    if (expect_fit >= 0)
        ck_assert_int_eq(rc, expect_fit);
    if (rc == 0)
        return;
    for (uint32_t g = 0; g < p->ncells; g++)
        if (p->cells[g].thread_policy == NUMAFIT_THREAD_POLICY_ISOLATE)
            assert_isolated(&h->cells[numafit__host_cell_index(h, p->cells[g].host_id)],
                            &p->cells[g]);
    ck_assert_int_eq(numafit_host_dup(h, &orig), 0);
    ck_assert_msg(numafit_host_claim(h, p, 0, &e) == 0, "fit not claimable: %s: %s", e.exception,
                  e.text);
    ck_assert(numafit__host_derived_ok(h));
    ck_assert_int_eq(numafit_host_release(h, p, 0, &e), 0);
    ck_assert_int_eq(numafit_host_equal(h, orig), 1);
    numafit_host_free(orig);
    numafit_placement_free(p);
}

#define ISOLATE_FLAVOR                                                                             \
    "{\"vcpus\":2,\"memory_mb\":512,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\","             \
    "\"hw:cpu_thread_policy\":\"isolate\"}}"

/* A sibling set reaching a CPU outside the cell ([0,6] with 6 not in the
 * cell): the fit pinned vCPU 0 to CPU 4 ([0,4]) and the claim, which took
 * every set touching a CPU it had added (CPU 0, then [0,6]), refused it. */
START_TEST(isolate_sibling_outside_cell_claimable) {
    numafit_host_t *h = host_file("repro/isolate-sibling-outside-cell-host.json");
    numafit_request_t *r = req(ISOLATE_FLAVOR);
    fit_claim_release(h, r, 1);
    numafit_request_free(r);
    numafit_host_free(h);
}
END_TEST

/* Sibling sets [0,6] and [0,4]: the fit gave vCPU 0 CPU 0 and vCPU 1 CPU 4,
 * two CPUs of one set. */
START_TEST(isolate_overlapping_siblings_isolated) {
    numafit_host_t *h = host_file("repro/isolate-on-two-siblings-host.json");
    numafit_request_t *r = req(ISOLATE_FLAVOR);
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    ck_assert_int_eq(numafit_fit(h, r, NULL, 0, &p, &e), 1);
    ck_assert_uint_eq(p->cells[0].npin, 2);
    ck_assert_uint_eq(p->cells[0].pin_pcpu[0], 0);
    ck_assert_uint_eq(p->cells[0].pin_pcpu[1], 1); /* [1,5], not 4 */
    numafit_placement_free(p);
    fit_claim_release(h, r, 1);
    numafit_request_free(r);
    numafit_host_free(h);
}
END_TEST

/* Random cells of 8 dedicated CPUs with random (often overlapping, some
 * reaching outside the cell) sibling sets and random pinned CPUs: every
 * isolate/require/prefer fit, with and without an isolated emulator
 * thread, is isolated where asked and claimable. */
START_TEST(random_overlapping_siblings_fits_claimable) {
    static const char *flavors[] = {
        ISOLATE_FLAVOR,
        "{\"vcpus\":1,\"memory_mb\":512,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\","
        "\"hw:cpu_thread_policy\":\"isolate\",\"hw:emulator_threads_policy\":\"isolate\"}}",
        "{\"vcpus\":3,\"memory_mb\":512,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\","
        "\"hw:cpu_thread_policy\":\"isolate\"}}",
        "{\"vcpus\":2,\"memory_mb\":512,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\","
        "\"hw:cpu_thread_policy\":\"require\",\"hw:emulator_threads_policy\":\"isolate\"}}",
        "{\"vcpus\":3,\"memory_mb\":512,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\","
        "\"hw:emulator_threads_policy\":\"isolate\"}}",
    };
    numafit_request_t *r[5];
    unsigned seed = 12345, fits = 0;
    for (int i = 0; i < 5; i++)
        r[i] = req(flavors[i]);
    for (int iter = 0; iter < 3000; iter++) {
        char json[2048], sib[512] = "", pin[128] = "";
        size_t o = 0, q = 0;
        int nsets = 1 + (int)(rand_r(&seed) % 5);
        for (int s = 0; s < nsets; s++) {
            int a = (int)(rand_r(&seed) % 10), b = (int)(rand_r(&seed) % 10);
            if (a == b)
                b = (a + 1) % 10;
            o += (size_t)snprintf(sib + o, sizeof(sib) - o, "%s[%d,%d]", s ? "," : "",
                                  a < b ? a : b, a < b ? b : a);
        }
        for (int c = 0; c < 8; c++)
            if (rand_r(&seed) % 5 == 0)
                q += (size_t)snprintf(pin + q, sizeof(pin) - q, "%s%d", q ? "," : "", c);
        snprintf(json, sizeof(json),
                 "{\"nova_object.name\":\"NUMATopology\",\"nova_object.namespace\":\"nova\","
                 "\"nova_object.version\":\"1.2\",\"nova_object.data\":{\"cells\":[{"
                 "\"nova_object.name\":\"NUMACell\",\"nova_object.namespace\":\"nova\","
                 "\"nova_object.version\":\"1.5\",\"nova_object.data\":{\"id\":0,"
                 "\"cpuset\":[0,1,2,3,4,5,6,7],\"pcpuset\":[0,1,2,3,4,5,6,7],\"memory\":4096,"
                 "\"cpu_usage\":0,\"memory_usage\":0,\"pinned_cpus\":[%s],\"siblings\":[%s],"
                 "\"mempages\":[{\"nova_object.name\":\"NUMAPagesTopology\","
                 "\"nova_object.namespace\":\"nova\",\"nova_object.version\":\"1.1\","
                 "\"nova_object.data\":{\"size_kb\":4,\"total\":1048576,\"used\":0,"
                 "\"reserved\":0}}]}}]}}",
                 pin, sib);
        numafit_host_t *h = NULL;
        numafit_error_t e;
        if (numafit_host_new_from_json(json, strlen(json), 0, &h, &e) != 0)
            continue; /* e.g. a pinned CPU the loader refuses */
        for (int i = 0; i < 5; i++) {
            numafit_placement_t *p = NULL;
            fits += numafit_fit(h, r[i], NULL, 0, &p, &e) == 1;
            numafit_placement_free(p);
            fit_claim_release(h, r[i], -1);
        }
        numafit_host_free(h);
    }
    ck_assert_uint_gt(fits, 1000); /* the loop really exercised fits */
    for (int i = 0; i < 5; i++)
        numafit_request_free(r[i]);
}
END_TEST

START_TEST(cpu_pools_what_if) {
    numafit_host_t *h = NULL, *snap = NULL;
    numafit_hostconf_t *conf;
    numafit_placement_t *p;
    numafit_cpuset_t *set = NULL;
    numafit_error_t e;
    uint64_t v;
    /* cell 0: cores (0,8) (1,9) (2,10) (3,11); cell 1: (4,12) ... (7,15) */
    ck_assert_int_eq(numafit_host_new_synthetic("cells:2 cores:4 threads:2 mem:16G "
                                                "dedicated:2-7,10-15 shared:0-1,8-9",
                                                0, &h, &e),
                     0);
    EXPECT_CPUS(h, 0, NUMAFIT_CELL_CPUS_DEDICATED, "2-3,10-11");
    /* give cores 1 and 9 to the dedicated pool */
    conf = pools("1-7,9-15", "0,8");
    ck_assert_int_eq(numafit_host_set_cpu_pools(h, conf, 0, &e), 0);
    numafit_hostconf_free(conf);
    EXPECT_CPUS(h, 0, NUMAFIT_CELL_CPUS_DEDICATED, "1-3,9-11");
    EXPECT_CPUS(h, 0, NUMAFIT_CELL_CPUS_SHARED, "0,8");
    EXPECT_CPUS(h, 1, NUMAFIT_CELL_CPUS_DEDICATED, "4-7,12-15");
    ck_assert(numafit__host_derived_ok(h));
    ck_assert_int_eq(numafit_host_get_cell_stat(h, 0, NUMAFIT_CELL_FREE_PCPUS, 0, &v), 0);
    ck_assert_uint_eq(v, 6);
    /* a pinned CPU may not leave the dedicated pool: spread puts the guest
     * on cell 1 (more free pCPUs), on core (4,12) */
    p = fit(h, 2, 1024, "{\"hw:cpu_policy\":\"dedicated\"}");
    ck_assert_int_eq(numafit_placement_get_pin(p, 0), 4);
    ck_assert_int_eq(numafit_placement_get_pin(p, 1), 12);
    ck_assert_int_eq(numafit_host_claim(h, p, 0, &e), 0);
    ck_assert_int_eq(numafit_host_dup(h, &snap), 0);
    conf = pools("1-3,5-7,9-11,13-15", "0,4,8,12");
    ck_assert_int_eq(numafit_host_set_cpu_pools(h, conf, 0, &e), -EBUSY);
    ck_assert_str_eq(e.exception, "CPUPinningInvalid");
    ck_assert_int_eq(e.cell, 1);
    numafit_hostconf_free(conf);
    ck_assert_int_eq(numafit_host_equal(h, snap), 1);
    /* a CPU the host does not have is refused as nova refuses one that is
     * not online */
    conf = pools("1-7,9-17", "0,8");
    ck_assert_int_eq(numafit_host_set_cpu_pools(h, conf, 0, &e), -EINVAL);
    ck_assert_str_eq(e.exception, "Invalid");
    ck_assert_msg(strstr(e.text, "not online") != NULL, "%s", e.text);
    numafit_hostconf_free(conf);
    ck_assert_int_eq(numafit_host_equal(h, snap), 1);
    ck_assert_int_eq(numafit_host_release(h, p, 0, &e), 0);
    numafit_placement_free(p);
    /* the second threads leave both pools: the sibling sets are cut to one
     * CPU each, and those CPUs are no longer known to the host */
    conf = pools("2-7", "0-1");
    ck_assert_int_eq(numafit_host_set_cpu_pools(h, conf, 0, &e), 0);
    numafit_hostconf_free(conf);
    EXPECT_CPUS(h, 0, NUMAFIT_CELL_CPUS_DEDICATED, "2-3");
    ck_assert_int_eq(numafit_host_get_cell_stat(h, 0, NUMAFIT_CELL_THREADS_PER_CORE, 0, &v), 0);
    ck_assert_uint_eq(v, 1);
    ck_assert_int_eq(numafit_host_get_cell_siblings(h, 0, 1, 0, &set), 0);
    ck_assert_int_eq(numafit_cpuset_count(set), 1);
    ck_assert_int_eq(numafit_cpuset_contains(set, 1), 1);
    numafit_cpuset_free(set);
    conf = pools("2-7,10-15", "0-1");
    ck_assert_int_eq(numafit_host_set_cpu_pools(h, conf, 0, &e), -EINVAL);
    numafit_hostconf_free(conf);
    /* no option at all: nova's legacy mode, every known CPU in both pools */
    conf = pools(NULL, NULL);
    ck_assert_int_eq(numafit_host_set_cpu_pools(h, conf, 0, &e), 0);
    ck_assert_int_eq(numafit_host_set_cpu_pools(h, conf, 1, &e), -EINVAL);
    numafit_hostconf_free(conf);
    EXPECT_CPUS(h, 1, NUMAFIT_CELL_CPUS_SHARED, "4-7");
    EXPECT_CPUS(h, 1, NUMAFIT_CELL_CPUS_DEDICATED, "4-7");
    ck_assert(numafit__host_derived_ok(h));
    numafit_host_free(snap);
    numafit_host_free(h);
}
END_TEST

static Suite *claim_suite(void) {
    Suite *s = suite_create("claim");
    TCase *tc = tcase_create("claim");
    tcase_add_test(tc, claim_release_roundtrip);
    tcase_add_test(tc, isolate_pins_whole_cores);
    tcase_add_test(tc, double_claim_refused_unchanged);
    tcase_add_test(tc, multi_cell_claim_is_atomic);
    tcase_add_test(tc, claim_touches_named_cells_only);
    tcase_add_test(tc, hugepage_accounting);
    tcase_add_test(tc, part_page_claim_release_roundtrip);
    tcase_add_test(tc, usage_kept_in_range);
    tcase_add_test(tc, nova_json_roundtrip_and_unknown_cell);
    tcase_add_test(tc, unknown_pcpu_refused);
    tcase_add_test(tc, placement_reader_refuses_impossible);
    tcase_add_test(tc, envelopes_one_reader);
    tcase_add_test(tc, cell_queries_follow_claims);
    tcase_add_test(tc, fill_and_drain_keeps_derived_counts);
    tcase_add_test(tc, cpu_pools_what_if);
    tcase_add_test(tc, isolate_sibling_outside_cell_claimable);
    tcase_add_test(tc, isolate_overlapping_siblings_isolated);
    tcase_add_test(tc, random_overlapping_siblings_fits_claimable);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(claim_suite());
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
