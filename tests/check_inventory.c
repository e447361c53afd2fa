/*
 * Placement inventories (numafit_inventory_*): placement's record checks
 * and capacity rule, claims all or nothing, its JSON, and the inventory
 * nova's libvirt driver reports for a host with nova.conf's options and
 * its precedence of allocation ratios in both profiles.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numafit.h>

static numafit_inventory_t *inv_new(void) {
    numafit_inventory_t *inv = NULL;
    ck_assert_int_eq(numafit_inventory_new(&inv), 0);
    return inv;
}

static void set(numafit_inventory_t *inv, int rc, int64_t total, int64_t reserved, int64_t max,
                int64_t step, double ratio) {
    numafit_inventory_class_t c = {total, reserved, 1, max, step, ratio};
    numafit_error_t e;
    ck_assert_msg(numafit_inventory_set_class(inv, rc, &c, &e) == 0, "%s", e.text);
}

static numafit_inventory_t *from_json(const char *json) {
    numafit_inventory_t *inv = NULL;
    numafit_error_t e;
    ck_assert_msg(numafit_inventory_new_from_json(json, strlen(json), 0, &inv, &e) == 0, "%s: %s",
                  e.where, e.text);
    return inv;
}

static void json_fails(const char *json, const char *where) {
    numafit_inventory_t *inv = (numafit_inventory_t *)&inv;
    numafit_inventory_t *const sentinel = inv;
    numafit_error_t e;
    int rc = numafit_inventory_new_from_json(json, strlen(json), 0, &inv, &e);
    ck_assert_msg(rc < 0, "%s accepted", json);
    ck_assert_ptr_eq(inv, sentinel);
    ck_assert_msg(strcmp(e.where, where) == 0, "%s: where '%s', expected '%s' (%s)", json, e.where,
                  where, e.text);
}

/* amounts VCPU, PCPU, MEMORY_MB, DISK_GB */
static int check4(const numafit_inventory_t *inv, int64_t v, int64_t p, int64_t m, int64_t d,
                  numafit_error_t *e) {
    const int64_t a[4] = {v, p, m, d};
    return numafit_inventory_check(inv, a, 4, 0, e);
}

START_TEST(test_records) {
    numafit_inventory_t *inv = inv_new(), *copy = NULL;
    numafit_inventory_class_t c = {16, 17, 1, 16, 1, 1.0}, got;
    numafit_error_t e;
    int64_t used;

    /* placement's checks: ranges, then a capacity of at least 0 */
    ck_assert_int_eq(numafit_inventory_set_class(inv, NUMAFIT_RC_VCPU, &c, &e), -EINVAL);
    ck_assert_str_eq(e.where, "VCPU/reserved");
    ck_assert_str_eq(e.exception, "InvalidInventoryCapacityReservedCanBeTotal");
    c.allocation_ratio = 0.0; /* int(-1 x 0.0) = 0: allowed, as in placement */
    ck_assert_int_eq(numafit_inventory_set_class(inv, NUMAFIT_RC_VCPU, &c, &e), 0);
    c = (numafit_inventory_class_t){1, 2, 1, 1, 1, 0.5}; /* int(-0.5) = 0 */
    ck_assert_int_eq(numafit_inventory_set_class(inv, NUMAFIT_RC_VCPU, &c, &e), 0);
    c = (numafit_inventory_class_t){16, 16, 1, 16, 1, 1.0}; /* capacity 0: allowed */
    ck_assert_int_eq(numafit_inventory_set_class(inv, NUMAFIT_RC_VCPU, &c, &e), 0);
    c.total = 0;
    ck_assert_int_eq(numafit_inventory_set_class(inv, NUMAFIT_RC_VCPU, &c, &e), -EINVAL);
    ck_assert_str_eq(e.where, "VCPU/total");
    c = (numafit_inventory_class_t){16, 0, 1, 16, 0, 1.0};
    ck_assert_int_eq(numafit_inventory_set_class(inv, NUMAFIT_RC_VCPU, &c, &e), -EINVAL);
    ck_assert_str_eq(e.where, "VCPU/step_size");
    c = (numafit_inventory_class_t){16, 0, 1, 16, 1, -1.0};
    ck_assert_int_eq(numafit_inventory_set_class(inv, NUMAFIT_RC_VCPU, &c, &e), -EINVAL);
    c.allocation_ratio = NAN;
    ck_assert_int_eq(numafit_inventory_set_class(inv, NUMAFIT_RC_VCPU, &c, &e), -EINVAL);
    ck_assert_int_eq(numafit_inventory_set_class(inv, NUMAFIT_RC_COUNT, &c, &e), -EINVAL);
    /* the refused records left the last good one */
    ck_assert_int_eq(numafit_inventory_get_class(inv, NUMAFIT_RC_VCPU, &got), 1);
    ck_assert_int_eq(got.reserved, 16);
    ck_assert_int_eq(numafit_inventory_get_class(inv, NUMAFIT_RC_PCPU, &got), 0);
    ck_assert_int_eq(got.total, 0);

    ck_assert_int_eq(numafit_inventory_set_used(inv, NUMAFIT_RC_PCPU, 3), 0);
    ck_assert_int_eq(numafit_inventory_set_used(inv, NUMAFIT_RC_PCPU, -1), -EINVAL);
    ck_assert_int_eq(numafit_inventory_get_used(inv, NUMAFIT_RC_PCPU, &used), 0);
    ck_assert_int_eq(used, 3);
    ck_assert_int_eq(numafit_inventory_dup(inv, &copy), 0);
    ck_assert_int_eq(numafit_inventory_equal(inv, copy), 1);
    ck_assert_int_eq(numafit_inventory_set_class(copy, NUMAFIT_RC_VCPU, NULL, &e), 0);
    ck_assert_int_eq(numafit_inventory_equal(inv, copy), 0);
    numafit_inventory_free(copy);
    numafit_inventory_free(inv);
    numafit_inventory_free(NULL);
}
END_TEST

START_TEST(test_room_and_claims) {
    numafit_inventory_t *inv = inv_new(), *before = NULL;
    numafit_error_t e;

    set(inv, NUMAFIT_RC_VCPU, 16, 2, 16, 1, 4.0);       /* capacity 56 */
    set(inv, NUMAFIT_RC_MEMORY_MB, 3, 0, 8, 1, 1.5);    /* capacity int(4.5) = 4 */
    set(inv, NUMAFIT_RC_DISK_GB, 100, 0, 100, 10, 1.0); /* steps of 10 */
    ck_assert_int_eq(numafit_inventory_set_used(inv, NUMAFIT_RC_VCPU, 50), 0);

    ck_assert_int_eq(check4(inv, 6, 0, 4, 10, &e), 1);
    ck_assert_int_eq(check4(inv, 7, 0, 4, 10, &e), 0);
    ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_INVENTORY);
    ck_assert_str_eq(e.where, "VCPU");
    ck_assert_int_eq(check4(inv, 1, 0, 5, 0, &e), 0);
    ck_assert_str_eq(e.where, "MEMORY_MB");
    ck_assert_int_eq(check4(inv, 17, 0, 0, 0, &e), 0); /* above max_unit */
    ck_assert_str_eq(e.where, "VCPU");
    ck_assert_int_eq(check4(inv, 0, 0, 0, 15, &e), 0); /* not a step */
    ck_assert_str_eq(e.where, "DISK_GB");
    ck_assert_int_eq(check4(inv, 0, 1, 0, 0, &e), 0); /* no PCPU inventory */
    ck_assert_str_eq(e.where, "PCPU");
    ck_assert_int_eq(check4(inv, 0, 0, 0, 0, &e), 1); /* nothing asked */

    /* all or nothing */
    ck_assert_int_eq(numafit_inventory_dup(inv, &before), 0);
    const int64_t too_much[4] = {6, 0, 5, 0};
    ck_assert_int_eq(numafit_inventory_claim(inv, too_much, 4, &e), -ENOSPC);
    ck_assert_str_eq(e.where, "MEMORY_MB");
    ck_assert_int_eq(numafit_inventory_equal(inv, before), 1);
    const int64_t ok[4] = {6, 0, 4, 10};
    ck_assert_int_eq(numafit_inventory_claim(inv, ok, 4, &e), 0);
    ck_assert_int_eq(check4(inv, 1, 0, 0, 0, &e), 0);
    const int64_t back[4] = {6, 0, 4, 20};
    ck_assert_int_eq(numafit_inventory_release(inv, back, 4, &e), -EINVAL);
    ck_assert_str_eq(e.where, "DISK_GB");
    ck_assert_int_eq(numafit_inventory_release(inv, ok, 4, &e), 0);
    ck_assert_int_eq(numafit_inventory_equal(inv, before), 1);
    const int64_t negative[1] = {-1};
    ck_assert_int_eq(numafit_inventory_check(inv, negative, 1, 0, &e), -EINVAL);
    ck_assert_int_eq(numafit_inventory_check(inv, NULL, 1, 0, &e), -EINVAL);
    numafit_inventory_free(before);
    numafit_inventory_free(inv);
}
END_TEST

START_TEST(test_json) {
    /* placement's GET .../inventories and .../usages bodies in one object */
    numafit_inventory_t *inv = from_json(
        "{\"resource_provider_generation\":7,\"inventories\":{"
        "\"VCPU\":{\"total\":32,\"reserved\":2,\"min_unit\":1,\"max_unit\":32,\"step_size\":1,"
        "\"allocation_ratio\":4.0},"
        "\"MEMORY_MB\":{\"total\":65536,\"reserved\":512,\"max_unit\":65536,"
        "\"allocation_ratio\":1.5},"
        "\"CUSTOM_GOLD\":{\"total\":1},\"DISK_GB\":{\"total\":100}},"
        "\"usages\":{\"VCPU\":8,\"CUSTOM_GOLD\":1}}");
    numafit_inventory_class_t c;
    numafit_inventory_t *again;
    char *json = NULL, *json2 = NULL;
    int64_t used;

    ck_assert_int_eq(numafit_inventory_get_class(inv, NUMAFIT_RC_VCPU, &c), 1);
    ck_assert(c.total == 32 && c.reserved == 2 && c.allocation_ratio == 4.0);
    ck_assert_int_eq(numafit_inventory_get_class(inv, NUMAFIT_RC_DISK_GB, &c), 1);
    /* placement's API defaults: max_unit 2147483647, ratio 1.0 */
    ck_assert(c.max_unit == NUMAFIT_RESOURCE_AMOUNT_MAX && c.min_unit == 1 && c.step_size == 1 &&
              c.allocation_ratio == 1.0);
    ck_assert_int_eq(numafit_inventory_get_class(inv, NUMAFIT_RC_PCPU, &c), 0);
    ck_assert_int_eq(numafit_inventory_get_used(inv, NUMAFIT_RC_VCPU, &used), 0);
    ck_assert_int_eq(used, 8);

    ck_assert_int_eq(numafit_inventory_get_traits(inv), 0);
    ck_assert_int_eq(numafit_inventory_set_traits(inv, NUMAFIT_TRAIT_HW_CPU_HYPERTHREADING), 0);
    ck_assert_int_eq(numafit_inventory_set_traits(inv, 2), -EINVAL);
    ck_assert_int_eq(numafit_inventory_to_json(inv, 0, &json, NULL), 0);
    ck_assert_ptr_nonnull(strstr(json, "\"traits\":[\"HW_CPU_HYPERTHREADING\"]"));
    again = from_json(json);
    ck_assert_int_eq(numafit_inventory_equal(inv, again), 1);
    ck_assert_int_eq(numafit_inventory_to_json(again, 0, &json2, NULL), 0);
    ck_assert_str_eq(json, json2);
    numafit_free(json);
    numafit_free(json2);
    numafit_inventory_free(again);
    numafit_inventory_free(inv);

    json_fails("[]", "");
    json_fails("{\"usages\":{}}", "");
    json_fails("{\"inventories\":{\"VCPU\":{\"total\":0}}}", "/inventories/VCPU/total");
    json_fails("{\"inventories\":{\"VCPU\":{\"reserved\":1}}}", "/inventories/VCPU");
    json_fails("{\"inventories\":{\"VCPU\":{\"total\":4,\"reserved\":5}}}",
               "/inventories/VCPU/reserved");
    json_fails("{\"inventories\":{\"VCPU\":{\"total\":4,\"totl\":5}}}", "/inventories/VCPU/totl");
    json_fails("{\"inventories\":{\"vcpu\":{\"total\":4}}}", "/inventories/vcpu");
    json_fails("{\"inventories\":{\"VCPU\":{\"total\":4,\"allocation_ratio\":\"2\"}}}",
               "/inventories/VCPU/allocation_ratio");
    json_fails("{\"inventories\":{\"VCPU\":{\"total\":2147483648}}}", "/inventories/VCPU/total");
    json_fails("{\"inventories\":{},\"usages\":{\"VCPU\":-1}}", "/usages/VCPU");
    json_fails("{\"inventories\":{},\"generation\":1}", "/generation");
    json_fails("{\"inventories\":{", "");
    json_fails("{\"inventories\":{},\"traits\":[\"hw smt\"]}", "/traits/0");
    json_fails("{\"inventories\":{},\"traits\":\"HW_CPU_HYPERTHREADING\"}", "/traits");
    inv = from_json("{\"inventories\":{},\"traits\":[\"CUSTOM_X\",\"HW_CPU_HYPERTHREADING\"]}");
    ck_assert_int_eq(numafit_inventory_get_traits(inv), NUMAFIT_TRAIT_HW_CPU_HYPERTHREADING);
    numafit_error_t e;
    ck_assert_int_eq(numafit_inventory_check(inv, NULL, 0, NUMAFIT_RESOURCES_SMT_REQUIRED, &e), 1);
    ck_assert_int_eq(numafit_inventory_check(inv, NULL, 0, NUMAFIT_RESOURCES_SMT_FORBIDDEN, &e), 0);
    ck_assert_str_eq(e.where, "HW_CPU_HYPERTHREADING");
    ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_INVENTORY);
    ck_assert_int_eq(numafit_inventory_check(inv, NULL, 0, NUMAFIT_RESOURCES_FALLBACK, &e), 1);
    ck_assert_int_eq(numafit_inventory_check(inv, NULL, 0, 8, &e), -EINVAL);
    numafit_inventory_free(inv);
}
END_TEST

static numafit_inventory_t *of_host(const char *spec, const char *conf, int64_t disk,
                                    const numafit_inventory_t *current, unsigned flags) {
    numafit_host_t *h = NULL;
    numafit_inventory_t *inv = NULL;
    numafit_error_t e;
    ck_assert_int_eq(numafit_host_new_synthetic(spec, 0, &h, NULL), 0);
    ck_assert_msg(numafit_inventory_new_from_host(h, conf, conf ? strlen(conf) : 0, disk, current,
                                                  flags, &inv, &e) == 0,
                  "%s: %s", e.where, e.text);
    numafit_host_free(h);
    return inv;
}

static void expect_class(const numafit_inventory_t *inv, int rc, int64_t total, int64_t reserved,
                         double ratio) {
    numafit_inventory_class_t c;
    if (!total) {
        ck_assert_int_eq(numafit_inventory_get_class(inv, rc, &c), 0);
        return;
    }
    ck_assert_int_eq(numafit_inventory_get_class(inv, rc, &c), 1);
    ck_assert_msg(c.total == total && c.reserved == reserved && c.allocation_ratio == ratio &&
                      c.max_unit == total && c.min_unit == 1 && c.step_size == 1,
                  "%s: %lld/%lld/%g, expected %lld/%lld/%g", numafit_resource_class_to_string(rc),
                  (long long)c.total, (long long)c.reserved, c.allocation_ratio, (long long)total,
                  (long long)reserved, ratio);
}

START_TEST(test_from_host) {
    /* the seed's E5-2620 host without CPU options: every CPU is VCPU (mem: per cell) */
    numafit_inventory_t *inv = of_host("cells:2 cores:6 threads:2 mem:32G", NULL, 0, NULL, 0);
    expect_class(inv, NUMAFIT_RC_VCPU, 24, 0, 4.0);
    expect_class(inv, NUMAFIT_RC_PCPU, 0, 0, 0);
    expect_class(inv, NUMAFIT_RC_MEMORY_MB, 65536, 512, 1.0);
    expect_class(inv, NUMAFIT_RC_DISK_GB, 0, 0, 0);
    ck_assert_int_eq(numafit_inventory_get_traits(inv), NUMAFIT_TRAIT_HW_CPU_HYPERTHREADING);
    numafit_inventory_free(inv);
    /* Zed's initial ratios */
    inv = of_host("cells:2 cores:6 threads:2 mem:32G", NULL, 500, NULL, NUMAFIT_INVENTORY_ZED);
    expect_class(inv, NUMAFIT_RC_VCPU, 24, 0, 16.0);
    expect_class(inv, NUMAFIT_RC_MEMORY_MB, 65536, 512, 1.5);
    expect_class(inv, NUMAFIT_RC_DISK_GB, 500, 0, 1.0);
    numafit_inventory_free(inv);

    /* dedicated and shared sets; nova.conf's reserved amounts and ratios */
    const char *conf = "[DEFAULT]\nreserved_host_cpus = 1\nreserved_host_memory_mb=4096\n"
                       "reserved_host_disk_mb = 1025\ncpu_allocation_ratio = 2.0\n"
                       "ram_allocation_ratio = 0.0\ninitial_ram_allocation_ratio = 1.25\n";
    inv = of_host("cells:2 cores:8 threads:2 mem:64G dedicated:4-15,20-31 shared:0-3,16-19", conf,
                  200, NULL, 0);
    expect_class(inv, NUMAFIT_RC_VCPU, 8, 1, 2.0);
    expect_class(inv, NUMAFIT_RC_PCPU, 24, 0, 1.0);
    /* ram_allocation_ratio = 0.0 counts as unset, as in nova */
    expect_class(inv, NUMAFIT_RC_MEMORY_MB, 131072, 4096, 1.25);
    expect_class(inv, NUMAFIT_RC_DISK_GB, 200, 2, 1.0);

    /* placement's ratio wins over the initial one, the option over both */
    numafit_inventory_t *current = inv_new();
    set(current, NUMAFIT_RC_MEMORY_MB, 100, 0, 100, 1, 3.0);
    set(current, NUMAFIT_RC_VCPU, 100, 0, 100, 1, 9.0);
    ck_assert_int_eq(numafit_inventory_set_used(current, NUMAFIT_RC_PCPU, 5), 0);
    numafit_inventory_free(inv);
    inv = of_host("cells:2 cores:8 threads:2 mem:64G dedicated:4-15,20-31 shared:0-3,16-19", conf,
                  0, current, 0);
    expect_class(inv, NUMAFIT_RC_MEMORY_MB, 131072, 4096, 3.0);
    expect_class(inv, NUMAFIT_RC_VCPU, 8, 1, 2.0);
    int64_t used;
    ck_assert_int_eq(numafit_inventory_get_used(inv, NUMAFIT_RC_PCPU, &used), 0);
    ck_assert_int_eq(used, 5);
    numafit_inventory_free(current);
    numafit_inventory_free(inv);

    /* only dedicated CPUs: no VCPU inventory; one thread per core: no SMT */
    inv = of_host("cells:1 cores:4 threads:1 mem:8G dedicated:0-3", NULL, 0, NULL, 0);
    ck_assert_int_eq(numafit_inventory_get_traits(inv), 0);
    expect_class(inv, NUMAFIT_RC_VCPU, 0, 0, 0);
    expect_class(inv, NUMAFIT_RC_PCPU, 4, 0, 1.0);
    numafit_inventory_free(inv);

    /* refused: a reserved amount above the total, bad option values */
    numafit_host_t *h = NULL;
    numafit_inventory_t *none = NULL;
    numafit_error_t e;
    ck_assert_int_eq(numafit_host_new_synthetic("cells:1 cores:2 threads:1 mem:1G", 0, &h, NULL),
                     0);
    const char *bad[][2] = {
        {"[DEFAULT]\nreserved_host_cpus = 3\n", "reserved_host_cpus"},
        {"[DEFAULT]\nreserved_host_memory_mb = 2048\n", "reserved_host_memory_mb"},
        {"[DEFAULT]\nreserved_host_cpus = -1\n", "reserved_host_cpus"},
        {"[DEFAULT]\ncpu_allocation_ratio = lots\n", "cpu_allocation_ratio"},
        {"[DEFAULT]\ninitial_disk_allocation_ratio = -1\n", "initial_disk_allocation_ratio"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ck_assert_int_eq(
            numafit_inventory_new_from_host(h, bad[i][0], strlen(bad[i][0]), 0, NULL, 0, &none, &e),
            -EINVAL);
        ck_assert_str_eq(e.where, bad[i][1]);
        ck_assert_ptr_null(none);
    }
    ck_assert_int_eq(numafit_inventory_new_from_host(h, NULL, 0, -1, NULL, 0, &none, &e), -EINVAL);
    ck_assert_int_eq(numafit_inventory_new_from_host(h, NULL, 0, 0, NULL, 8, &none, &e), -EINVAL);
    numafit_host_free(h);
}
END_TEST

static char *host_json(const numafit_host_t *h) {
    char *s = NULL;
    ck_assert_int_eq(numafit_host_to_json(h, 0, &s, NULL), 0);
    return s;
}

/* resources and request of one flavor */
static numafit_request_t *flavor(const char *json, int64_t amounts[NUMAFIT_RC_COUNT]) {
    numafit_request_t *r = NULL;
    ck_assert_int_ge(numafit_resources_from_flavor(json, strlen(json), NULL, 0, 0, amounts,
                                                   NUMAFIT_RC_COUNT, NULL),
                     0);
    ck_assert_int_ge(numafit_request_new(json, strlen(json), NULL, 0, 0, &r, NULL), 0);
    return r;
}

START_TEST(test_node) {
    numafit_host_t *h = NULL;
    numafit_inventory_t *inv = NULL, *inv0 = NULL;
    numafit_placement_t *p = NULL, *p2 = NULL;
    numafit_error_t e;
    int64_t ded[NUMAFIT_RC_COUNT], shr[NUMAFIT_RC_COUNT], used;
    char *before, *after;
    int placed = 0;

    ck_assert_int_eq(
        numafit_host_new_synthetic(
            "cells:2 cores:4 threads:2 mem:8G dedicated:2-7,10-15 shared:0-1,8-9", 0, &h, NULL),
        0);
    /* 8 GiB cells, 4 GiB reserved: MEMORY_MB runs out before the CPUs do */
    const char *conf = "[DEFAULT]\nreserved_host_memory_mb = 4096\n";
    ck_assert_int_eq(numafit_inventory_new_from_host(h, conf, strlen(conf), 0, NULL, 0, &inv, &e),
                     0);
    numafit_request_t *rd = flavor("{\"vcpus\":2,\"memory_mb\":4096,\"extra_specs\":{"
                                   "\"hw:cpu_policy\":\"dedicated\"}}",
                                   ded);
    numafit_request_t *rs = flavor("{\"vcpus\":1,\"memory_mb\":1024}", shr);
    ck_assert_int_eq(numafit_request_get_cell_count(rs), 0);

    /* isolate forbids SMT: on an SMT host (legacy: every CPU VCPU) the first
     * query is refused by its trait before any class; nova's legacy query
     * (VCPU, no trait) fits */
    int64_t iso[NUMAFIT_RC_COUNT], isol[NUMAFIT_RC_COUNT];
    const char *isoj = "{\"vcpus\":1,\"memory_mb\":16,\"extra_specs\":{\"hw:cpu_policy\":"
                       "\"dedicated\",\"hw:cpu_thread_policy\":\"isolate\"}}";
    int bits =
        numafit_resources_from_flavor(isoj, strlen(isoj), NULL, 0, 0, iso, NUMAFIT_RC_COUNT, NULL);
    ck_assert_int_eq(bits, NUMAFIT_RESOURCES_FALLBACK | NUMAFIT_RESOURCES_SMT_FORBIDDEN);
    int lbits = numafit_resources_from_flavor(isoj, strlen(isoj), NULL, 0, NUMAFIT_RESOURCES_LEGACY,
                                              isol, NUMAFIT_RC_COUNT, NULL);
    ck_assert_int_eq(lbits, 0);
    numafit_request_t *ri = flavor(isoj, iso);
    numafit_host_t *h2 = NULL;
    numafit_inventory_t *inv2 = NULL;
    ck_assert_int_eq(numafit_host_new_synthetic("cells:1 cores:4 threads:2 mem:8G", 0, &h2, NULL),
                     0);
    ck_assert_int_eq(numafit_inventory_new_from_host(h2, NULL, 0, 0, NULL, 0, &inv2, &e), 0);
    ck_assert_int_eq(
        numafit_node_fit(h2, inv2, ri, iso, NUMAFIT_RC_COUNT, NULL, (unsigned)bits, &p, &e), 0);
    ck_assert_str_eq(e.where, "HW_CPU_HYPERTHREADING");
    ck_assert_int_eq(numafit_node_fit(h2, inv2, ri, iso, NUMAFIT_RC_COUNT, NULL, 0, &p, &e), 0);
    ck_assert_str_eq(e.where, "PCPU");
    ck_assert_msg(
        numafit_node_fit(h2, inv2, ri, isol, NUMAFIT_RC_COUNT, NULL, (unsigned)lbits, &p, &e) == 1,
        "%s: %s", e.where, e.text);
    numafit_placement_free(p);
    p = NULL;
    numafit_request_free(ri);
    numafit_inventory_free(inv2);
    numafit_host_free(h2);
    /* a guest without NUMA topology: inventory only, the host unchanged */
    before = host_json(h);
    ck_assert_int_eq(numafit_node_fit(h, inv, rs, shr, NUMAFIT_RC_COUNT, NULL, 0, &p, &e), 1);
    ck_assert_ptr_null(p);
    ck_assert_int_eq(numafit_node_claim(h, inv, NULL, shr, NUMAFIT_RC_COUNT, &e), 0);
    after = host_json(h);
    ck_assert_str_eq(before, after);
    numafit_free(after);
    ck_assert_int_eq(numafit_inventory_get_used(inv, NUMAFIT_RC_VCPU, &used), 0);
    ck_assert_int_eq(used, 1);

    /* dedicated guests until MEMORY_MB (12288 left, 4096 each) is used up */
    while (numafit_node_fit(h, inv, rd, ded, NUMAFIT_RC_COUNT, NULL, 0, &p, &e) == 1) {
        ck_assert_int_eq(numafit_node_claim(h, inv, p, ded, NUMAFIT_RC_COUNT, &e), 0);
        numafit_placement_free(p);
        p = NULL;
        placed++;
    }
    ck_assert_int_eq(placed, 2); /* 1024 + 2 x 4096 of 12288 */
    ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_INVENTORY);
    ck_assert_str_eq(e.where, "MEMORY_MB");
    ck_assert_int_eq(numafit_inventory_get_used(inv, NUMAFIT_RC_PCPU, &used), 0);
    ck_assert_int_eq(used, 4);

    /* all or nothing: no room (-ENOSPC), a host claim refused (-EBUSY) */
    numafit_free(before);
    before = host_json(h);
    ck_assert_int_eq(numafit_inventory_dup(inv, &inv0), 0);
    ck_assert_int_eq(numafit_node_claim(h, inv, NULL, ded, NUMAFIT_RC_COUNT, &e), -ENOSPC);
    ck_assert_int_eq(numafit_inventory_equal(inv, inv0), 1);
    const int64_t none[NUMAFIT_RC_COUNT] = {0, 0, 0, 0};
    ck_assert_int_eq(numafit_node_fit(h, inv, rd, none, NUMAFIT_RC_COUNT, NULL, 0, &p2, &e), 1);
    ck_assert_int_eq(numafit_node_claim(h, inv, p2, none, NUMAFIT_RC_COUNT, &e), 0);
    ck_assert_int_eq(numafit_node_claim(h, inv, p2, none, NUMAFIT_RC_COUNT, &e), -EBUSY);
    ck_assert_int_eq(numafit_node_release(h, inv, p2, none, NUMAFIT_RC_COUNT, &e), 0);
    after = host_json(h);
    ck_assert_str_eq(before, after);
    numafit_free(after);
    /* a release the inventory refuses changes neither */
    ck_assert_int_eq(numafit_node_claim(h, inv, p2, none, NUMAFIT_RC_COUNT, &e), 0);
    ck_assert_int_eq(numafit_node_release(h, inv, p2, ded, NUMAFIT_RC_COUNT, &e), 0);
    ck_assert_int_eq(numafit_node_release(h, inv, NULL, ded, NUMAFIT_RC_COUNT, &e), 0);
    ck_assert_int_eq(numafit_node_release(h, inv, NULL, ded, NUMAFIT_RC_COUNT, &e), -EINVAL);
    ck_assert_int_eq(numafit_inventory_get_used(inv, NUMAFIT_RC_PCPU, &used), 0);
    ck_assert_int_eq(used, 0);
    /* the host refuses to release p2 (not claimed): the inventory keeps its VCPU */
    ck_assert_int_lt(numafit_node_release(h, inv, p2, shr, NUMAFIT_RC_COUNT, &e), 0);
    ck_assert_int_eq(numafit_inventory_get_used(inv, NUMAFIT_RC_VCPU, &used), 0);
    ck_assert_int_eq(used, 1);

    ck_assert_int_eq(numafit_node_fit(h, inv, rd, ded, NUMAFIT_RC_COUNT, NULL, 16, &p, &e),
                     -EINVAL);

    ck_assert_int_eq(numafit_node_fit(NULL, inv, rd, ded, NUMAFIT_RC_COUNT, NULL, 0, &p, &e),
                     -EINVAL);
    numafit_free(before);
    numafit_placement_free(p2);
    numafit_request_free(rd);
    numafit_request_free(rs);
    numafit_inventory_free(inv0);
    numafit_inventory_free(inv);
    numafit_host_free(h);
}
END_TEST

int main(void) {
    Suite *s = suite_create("inventory");
    TCase *tc = tcase_create("api");
    tcase_add_test(tc, test_records);
    tcase_add_test(tc, test_room_and_claims);
    tcase_add_test(tc, test_json);
    tcase_add_test(tc, test_from_host);
    tcase_add_test(tc, test_node);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
