/* numafit_host_new_from_records / numafit_host_get_cell_usage: every host
 * fixture written as records reads back to the host its JSON gives (the
 * same JSON out), CPU ids in any order with duplicates, physnets in any
 * order; every cut of valid records and a table of bad ones are refused
 * with the cell and field named; the usage records after a claim. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "private.h"
#include "testdata.h"

#define REC_MAX (1u << 16)

struct recs {
    int64_t v[REC_MAX];
    size_t n;
    char names[4096];
    size_t nlen;
};

static void put(struct recs *r, int64_t x) {
    ck_assert_uint_lt(r->n, REC_MAX);
    r->v[r->n++] = x;
}

/* CPU ids of a bitmap, highest first (the reader takes any order), the
 * first one twice when `dup`. */
static void put_set(struct recs *r, const uint64_t *w, unsigned nw, bool dup) {
    unsigned n = numafit__bits_count(w, nw);
    put(r, n + (dup && n ? 1 : 0));
    int first = -1;
    for (int k = numafit__bits_last(w, nw); k >= 0; k--)
        if (numafit__bit_test(w, (unsigned)k)) {
            put(r, k);
            if (first < 0)
                first = k;
        }
    if (dup && n)
        put(r, first);
}

/* The host as records (the test's own writer, from the model). */
static void to_records(const numafit_host_t *h, struct recs *r, bool shuffle) {
    memset(r, 0, sizeof(*r));
    put(r, 1);
    put(r, h->ncells);
    for (uint32_t i = 0; i < h->ncells; i++) {
        const struct numafit__cell *c = &h->cells[i];
        put(r, c->id);
        put(r, c->socket);
        put(r, (int64_t)c->memory);
        put(r, (int64_t)c->cpu_usage);
        put(r, (int64_t)c->memory_usage);
        put_set(r, c->cpuset, h->nw, shuffle);
        put_set(r, c->pcpuset, h->nw, shuffle);
        put_set(r, c->pinned, h->nw, shuffle);
        put(r, c->nsib);
        for (uint32_t s = 0; s < c->nsib; s++)
            put(r, c->sib_off[s + 1] - c->sib_off[s]);
        for (uint32_t s = 0; s < c->nsib; s++)
            for (uint32_t k = c->sib_off[s]; k < c->sib_off[s + 1]; k++) /* shuffle: descending */
                put(r, c->sib_cpu[shuffle ? c->sib_off[s] + c->sib_off[s + 1] - 1 - k : k]);
        put(r, c->npages);
        for (uint32_t p = 0; p < c->npages; p++) {
            put(r, (int64_t)c->pages[p].size_kb);
            put(r, (int64_t)c->pages[p].total);
            put(r, (int64_t)c->pages[p].used);
            put(r, (int64_t)c->pages[p].reserved);
        }
        put(r, c->has_netmeta ? (c->tunneled ? 1 : 0) : -1);
        put(r, c->nphysnets);
        for (uint32_t p = 0; p < c->nphysnets; p++) {
            const char *name = c->physnets[shuffle ? c->nphysnets - 1 - p : p];
            size_t l = strlen(name) + 1;
            ck_assert_uint_lt(r->nlen + l, sizeof(r->names));
            memcpy(r->names + r->nlen, name, l);
            r->nlen += l;
        }
    }
}

static char *json_of(const numafit_host_t *h) {
    char *out = NULL;
    ck_assert_int_eq(numafit_host_to_json(h, 0, &out, NULL), 0);
    return out;
}

static void same_as_json(const numafit_host_t *h, bool shuffle, const char *what) {
    static struct recs r;
    numafit_host_t *h2 = NULL;
    numafit_error_t err;
    to_records(h, &r, shuffle);
    int rc = numafit_host_new_from_records(r.v, r.n, r.names, r.nlen, 0, &h2, &err);
    ck_assert_msg(rc == 0, "%s: %d %s at %s", what, rc, err.text, err.where);
    ck_assert_msg(numafit_host_equal(h, h2) == 1, "%s: records give another host", what);
    ck_assert_uint_eq(h2->nw, h->nw);
    char *a = json_of(h), *b = json_of(h2);
    ck_assert_str_eq(a, b);
    numafit_free(a);
    numafit_free(b);
    numafit_host_free(h2);
}

static const char *const FIXTURES[] = {"rh2288h-v3.json", "sugon-i620-g30.json", "e5-2620-ht.json",
                                       "epyc-24node.json", "legacy-dict.json"};

START_TEST(test_fixtures) {
    char rel[256];
    size_t len;
    snprintf(rel, sizeof(rel), "hosts/%s", FIXTURES[_i]);
    char *buf = test_slurp(rel, &len);
    numafit_host_t *h = NULL;
    ck_assert_int_eq(numafit_host_new_from_json(buf, len, 0, &h, NULL), 0);
    same_as_json(h, false, FIXTURES[_i]);
    same_as_json(h, true, FIXTURES[_i]);
    numafit_host_free(h);
    free(buf);
}
END_TEST

/* Usage, physnets, tunnels, pinned CPUs, several page sizes. */
static const char *const HOST_BUSY =
    "{\"nova_object.name\":\"NUMATopology\",\"nova_object.namespace\":\"nova\","
    "\"nova_object.version\":\"1.2\",\"nova_object.data\":{\"cells\":["
    "{\"nova_object.name\":\"NUMACell\",\"nova_object.namespace\":\"nova\","
    "\"nova_object.version\":\"1.5\",\"nova_object.data\":{\"id\":3,\"cpuset\":[0,1],"
    "\"pcpuset\":[2,3,4,5],\"memory\":4096,\"cpu_usage\":2,\"memory_usage\":1024,"
    "\"pinned_cpus\":[2,3],\"siblings\":[[2,3],[4,5],[0,1]],\"mempages\":["
    "{\"nova_object.name\":\"NUMAPagesTopology\",\"nova_object.namespace\":\"nova\","
    "\"nova_object.version\":\"1.1\",\"nova_object.data\":{\"size_kb\":4,\"total\":524288,"
    "\"used\":1000,\"reserved\":10}},"
    "{\"nova_object.name\":\"NUMAPagesTopology\",\"nova_object.namespace\":\"nova\","
    "\"nova_object.version\":\"1.1\",\"nova_object.data\":{\"size_kb\":1048576,\"total\":2,"
    "\"used\":1,\"reserved\":0}}],"
    "\"network_metadata\":{\"nova_object.name\":\"NetworkMetadata\",\"nova_object.namespace\":"
    "\"nova\",\"nova_object.version\":\"1.0\",\"nova_object.data\":{\"physnets\":[\"b\",\"a\"],"
    "\"tunneled\":true}},\"socket\":1}},"
    "{\"nova_object.name\":\"NUMACell\",\"nova_object.namespace\":\"nova\","
    "\"nova_object.version\":\"1.5\",\"nova_object.data\":{\"id\":0,\"cpuset\":[6],"
    "\"pcpuset\":[],\"memory\":100,\"cpu_usage\":0,\"memory_usage\":0,\"pinned_cpus\":[],"
    "\"siblings\":[],\"mempages\":[],\"socket\":null}}]}}";

START_TEST(test_busy_host) {
    numafit_host_t *h = NULL;
    ck_assert_int_eq(numafit_host_new_from_json(HOST_BUSY, strlen(HOST_BUSY), 0, &h, NULL), 0);
    same_as_json(h, false, "busy");
    same_as_json(h, true, "busy shuffled");

    int64_t buf[64];
    size_t n = 0;
    ck_assert_int_eq(numafit_host_get_cell_usage(h, 0, 0, buf, 64, &n), 0);
    const int64_t want[] = {2, 1024, 2, 2, 3, 2, 4, 524288, 1000, 10, 1048576, 2, 1, 0};
    ck_assert_uint_eq(n, sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(buf[i], want[i]);
    ck_assert_int_eq(numafit_host_get_cell_usage(h, 0, 0, buf, 5, &n), -ENOSPC);
    ck_assert_uint_eq(n, 14);
    ck_assert_int_eq(numafit_host_get_cell_usage(h, 1, 0, buf, 64, &n), 0);
    ck_assert_uint_eq(n, 4);
    ck_assert_int_eq(buf[2], 0);
    ck_assert_int_eq(buf[3], 0);
    ck_assert_int_eq(numafit_host_get_cell_usage(h, 2, 0, buf, 64, &n), -ENOENT);
    ck_assert_int_eq(numafit_host_get_cell_usage(h, 0, 1, buf, 64, &n), -EINVAL);
    ck_assert_int_eq(numafit_host_get_cell_usage(NULL, 0, 0, buf, 64, &n), -EINVAL);
    numafit_host_free(h);
}
END_TEST

/* Every cut of valid records is refused (never read past the end). */
START_TEST(test_cuts) {
    static struct recs r;
    numafit_host_t *h = NULL;
    ck_assert_int_eq(numafit_host_new_from_json(HOST_BUSY, strlen(HOST_BUSY), 0, &h, NULL), 0);
    to_records(h, &r, false);
    numafit_host_free(h);
    for (size_t n = 0; n < r.n; n++) {
        numafit_host_t *h2 = NULL;
        numafit_error_t err;
        int64_t *copy = malloc(n * sizeof(int64_t) + 1); /* exact size for ASan */
        memcpy(copy, r.v, n * sizeof(int64_t));
        int rc = numafit_host_new_from_records(copy, n, r.names, r.nlen, 0, &h2, &err);
        ck_assert_msg(rc == -EINVAL || rc == -ERANGE, "cut at %zu: %d", n, rc);
        ck_assert_ptr_null(h2);
        ck_assert_str_ne(err.text, "");
        free(copy);
    }
    for (size_t l = 0; l < r.nlen; l++) {
        numafit_host_t *h2 = NULL;
        char *names = malloc(l + 1);
        memcpy(names, r.names, l);
        ck_assert_int_eq(numafit_host_new_from_records(r.v, r.n, names, l, 0, &h2, NULL), -EINVAL);
        free(names);
    }
}
END_TEST

#define END INT64_MIN /* ends a bad record list (not a value) */

struct bad {
    const char *what;
    int64_t v[40];
    const char *text; /* in err.text */
    const char *names;
    size_t nlen;
    int rc;
    const char *where; /* prefix of err.where */
};

/* one cell: id 0, socket -1, memory 100, no usage; cpuset {0}; then the
 * rest as given */
#define CELL0 0, -1, 100, 0, 0, 1, 0

static const struct bad bads[] = {
    {"format 2", {2, 0, END}, NULL, NULL, 0, -ERANGE, "records[0]"},
    {"negative cell count", {1, -1, END}, NULL, NULL, 0, -ERANGE, "records[1]"},
    {"too many cells", {1, 1025, END}, NULL, NULL, 0, -ERANGE, "records[1]"},
    {"trailing value", {1, 0, 7, END}, NULL, NULL, 0, -EINVAL, "records[2]"},
    {"cell id above the limit",
     {1, 1, 1024, -1, 100, 0, 0, 0, 0, 0, 0, 0, -1, 0, END},
     NULL,
     NULL,
     0,
     -ERANGE,
     "cells[0].id"},
    {"socket -2",
     {1, 1, 0, -2, 100, 0, 0, 0, 0, 0, 0, 0, -1, 0, END},
     NULL,
     NULL,
     0,
     -ERANGE,
     "cells[0].socket"},
    {"negative memory",
     {1, 1, 0, -1, -5, 0, 0, 0, 0, 0, 0, 0, -1, 0, END},
     NULL,
     NULL,
     0,
     -ERANGE,
     "cells[0].memory"},
    {"negative cpu_usage",
     {1, 1, 0, -1, 1, -1, 0, 0, 0, 0, 0, 0, -1, 0, END},
     NULL,
     NULL,
     0,
     -ERANGE,
     "cells[0].cpu_usage"},
    {"CPU id above the limit",
     {1, 1, 0, -1, 100, 0, 0, 1, 16384, 0, 0, 0, 0, -1, 0, END},
     NULL,
     NULL,
     0,
     -ERANGE,
     "cells[0].cpuset"},
    {"cpuset count beyond the records",
     {1, 1, 0, -1, 100, 0, 0, 1000000, END},
     NULL,
     NULL,
     0,
     -EINVAL,
     "cells[0].cpuset"},
    {"pinned CPU not dedicated",
     {1, 1, CELL0, 0, 1, 0, 0, 0, -1, 0, END},
     "a pinned CPU is not in pcpuset",
     NULL,
     0,
     -EINVAL,
     NULL},
    {"duplicate cell id",
     {1, 2, CELL0, 0, 0, 0, 0, -1, 0, 0, -1, 100, 0, 0, 0, 0, 0, 0, 0, -1, 0, END},
     "duplicate cell id 0",
     NULL,
     0,
     -EINVAL,
     NULL},
    {"CPU in two cells",
     {1, 2, CELL0, 0, 0, 0, 0, -1, 0, 1, -1, 100, 0, 0, 1, 0, 0, 0, 0, 0, -1, 0, END},
     "CPU 0 belongs to more than one cell",
     NULL,
     0,
     -EINVAL,
     NULL},
    {"sibling lengths beyond the records",
     {1, 1, CELL0, 0, 0, 2, 5, 5, 0, 0, -1, 0, END},
     NULL,
     NULL,
     0,
     -EINVAL,
     "cells[0].siblings"},
    {"page size 6",
     {1, 1, CELL0, 0, 0, 0, 1, 6, 1, 0, 0, -1, 0, END},
     NULL,
     NULL,
     0,
     -ERANGE,
     "cells[0].mempages.size_kb"},
    {"page size twice",
     {1, 1, CELL0, 0, 0, 0, 2, 4, 1, 0, 0, 4, 1, 0, 0, -1, 0, END},
     "listed twice",
     NULL,
     0,
     -EINVAL,
     NULL},
    {"negative pages used",
     {1, 1, CELL0, 0, 0, 0, 1, 4, 1, -1, 0, -1, 0, END},
     NULL,
     NULL,
     0,
     -ERANGE,
     "cells[0].mempages.used"},
    {"network metadata 2",
     {1, 1, CELL0, 0, 0, 0, 0, 2, 0, END},
     NULL,
     NULL,
     0,
     -ERANGE,
     "cells[0].network_metadata"},
    {"physnets without network metadata",
     {1, 1, CELL0, 0, 0, 0, 0, -1, 1, END},
     NULL,
     "a",
     2,
     -ERANGE,
     "cells[0].network_metadata.physnets"},
    {"physnet name missing",
     {1, 1, CELL0, 0, 0, 0, 0, 0, 2, END},
     NULL,
     "a",
     2,
     -EINVAL,
     "cells[0].network_metadata.physnets"},
    {"physnet not UTF-8",
     {1, 1, CELL0, 0, 0, 0, 0, 0, 1, END},
     NULL,
     "\xff",
     2,
     -EINVAL,
     "cells[0].network_metadata.physnets"},
    {"names left over", {1, 1, CELL0, 0, 0, 0, 0, 0, 1, END}, NULL, "a\0b", 4, -EINVAL, "names"},
};

START_TEST(test_bad) {
    const struct bad *b = &bads[_i];
    numafit_host_t *h = NULL;
    numafit_error_t err;
    size_t n = 0;
    while (b->v[n] != END)
        n++;
    int rc = numafit_host_new_from_records(b->v, n, b->names, b->nlen, 0, &h, &err);
    ck_assert_msg(rc == b->rc, "%s: %d (%s at %s), want %d", b->what, rc, err.text, err.where,
                  b->rc);
    ck_assert_ptr_null(h);
    ck_assert_str_ne(err.text, "");
    if (b->where)
        ck_assert_msg(!strncmp(err.where, b->where, strlen(b->where)), "%s: where %s, want %s",
                      b->what, err.where, b->where);
    if (b->text)
        ck_assert_msg(strstr(err.text, b->text), "%s: \"%s\", want \"%s\"", b->what, err.text,
                      b->text);
}
END_TEST

START_TEST(test_args) {
    const int64_t ok[] = {1, 0};
    numafit_host_t *h = NULL;
    numafit_error_t err;
    ck_assert_int_eq(numafit_host_new_from_records(ok, 2, NULL, 0, 0, NULL, &err), -EINVAL);
    ck_assert_int_eq(numafit_host_new_from_records(NULL, 2, NULL, 0, 0, &h, &err), -EINVAL);
    ck_assert_int_eq(numafit_host_new_from_records(ok, 2, NULL, 3, 0, &h, &err), -EINVAL);
    ck_assert_int_eq(numafit_host_new_from_records(ok, 2, NULL, 0, 0x80, &h, &err), -EINVAL);
    ck_assert_int_eq(numafit_host_new_from_records(ok, (size_t)1 << 40, NULL, 0, 0, &h, &err),
                     -ERANGE);
    /* a host without cells, as the JSON {"cells": []} */
    ck_assert_int_eq(numafit_host_new_from_records(ok, 2, NULL, 0, 0, &h, &err), 0);
    ck_assert_int_eq(numafit_host_get_cell_count(h), 0);
    numafit_host_free(h);
}
END_TEST

int main(void) {
    Suite *s = suite_create("host_records");
    TCase *tc = tcase_create("records");
    tcase_add_loop_test(tc, test_fixtures, 0, (int)(sizeof(FIXTURES) / sizeof(FIXTURES[0])));
    tcase_add_test(tc, test_busy_host);
    tcase_add_test(tc, test_cuts);
    tcase_add_loop_test(tc, test_bad, 0, (int)(sizeof(bads) / sizeof(bads[0])));
    tcase_add_test(tc, test_args);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
