/*
 * Extra specs checked as nova's API checks them (numafit/extra_specs.h):
 * the keys of the seed documents' flavors pass, the mistakes operators make
 * (seed 004's wrong quota name, a misspelt page size key, values of the
 * wrong kind) are refused with nova's message, the request schema (key
 * characters, value types and lengths), numbers written as Python writes
 * them, the allow list, the two profiles.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <numafit.h>

static int check(const char *json, unsigned flags, const char *allow, numafit_error_t *e) {
    return numafit_extra_specs_validate(json, strlen(json), flags, allow, e);
}

START_TEST(test_seed_flavors) {
    numafit_error_t e;
    /* seed 000's real-time flavor, seed 002's dedicated one, seed 004's quotas */
    static const char rt[] = "{\"hw:cpu_policy\": \"dedicated\", \"hw:cpu_realtime\": \"yes\", "
                             "\"hw:cpu_realtime_mask\": \"^0-1\", \"hw:mem_page_size\": \"1GB\"}";
    static const char quotas[] =
        "{\"extra_specs\": {\"quota:cpu_shares\": \"2048\", \"quota:disk_read_bytes_sec\": "
        "\"10240000\", \"quota:vif_inbound_average\": 10240, \"hw:numa_nodes\": \"2\", "
        "\"hw:numa_cpus.0\": \"0-3\", \"hw:numa_mem.0\": \"4096\", \"hw:numa_cpus.1\": \"4-7\", "
        "\"hw:numa_mem.1\": \"4096\", \"aggregate_instance_extra_specs:ssd\": \"true\", "
        "\"acme:anything\": \"goes\", \"plain\": \"too\"}}";
    ck_assert_int_eq(check(rt, 0, NULL, &e), 0);
    ck_assert_int_eq(check(rt, NUMAFIT_XS_ZED, NULL, &e), 0);
    ck_assert_int_eq(check(quotas, 0, NULL, &e), 0);
}
END_TEST

START_TEST(test_mistakes) {
    numafit_error_t e;
    /* the wiki's name seed 004 warns about */
    ck_assert_int_eq(check("{\"quota:read_bytes_sec\": \"1000\"}", 0, NULL, &e), -EINVAL);
    ck_assert_str_eq(e.exception, "ValidationError");
    ck_assert_int_eq(e.code, NUMAFIT_E_REQUEST);
    ck_assert_str_eq(e.where, "extra_specs/quota:read_bytes_sec");
    ck_assert_str_eq(e.text, "Validation failed; extra spec 'quota:read_bytes_sec' does not "
                             "appear to be a valid extra spec.");
    ck_assert_int_eq(check("{\"hw:mem_page_sze\": \"1GB\"}", 0, NULL, &e), -EINVAL);
    ck_assert_int_eq(check("{\"hw:cpu_policy\": \"Dedicated\"}", 0, NULL, &e), -EINVAL);
    ck_assert_str_eq(e.text,
                     "Validation failed; 'Dedicated' is not one of: dedicated, shared, mixed.");
    ck_assert_int_eq(check("{\"hw:numa_nodes\": \"0\"}", 0, NULL, &e), -EINVAL);
    ck_assert_str_eq(e.text, "Validation failed; '0' is less than the min value of '1'.");
    ck_assert_int_eq(check("{\"hw:cpu_realtime\": \"si\"}", 0, NULL, &e), -EINVAL);
    ck_assert_str_eq(e.text, "Validation failed; 'si' is not a valid boolean-like value.");
    ck_assert_int_eq(check("{\"hw:cpu_realtime_mask\": \"0-1^\"}", 0, NULL, &e), -EINVAL);
    ck_assert_int_eq(check("{\"hw:mem_page_size\": \"1 GB\"}", 0, NULL, &e), -EINVAL);
    ck_assert_int_eq(check("{\"pci_passthrough:alias\": \"gpu\"}", 0, NULL, &e), -EINVAL);
    /* a key upstream nova dropped with its Hyper-V driver */
    ck_assert_int_eq(check("{\"os:monitors\": \"012\"}", NUMAFIT_XS_ZED, NULL, &e), -EINVAL);
    ck_assert_str_eq(e.text, "Validation failed; '12' is greater than the max value of '8'.");
    /* a number written as Python writes it */
    ck_assert_int_eq(check("{\"hw:numa_nodes\": 2.0}", 0, NULL, &e), -EINVAL);
    ck_assert_str_eq(e.text, "Validation failed; '2.0' is not a valid integer value.");
    ck_assert_int_eq(check("{\"hw_rng:rate_bytes\": 1e20}", 0, NULL, &e), -EINVAL);
    ck_assert_str_eq(e.text, "Validation failed; '1e+20' is not a valid integer value.");
    ck_assert_int_eq(check("{\"hw_rng:rate_bytes\": 0.0001}", 0, NULL, &e), -EINVAL);
    ck_assert_str_eq(e.text, "Validation failed; '0.0001' is not a valid integer value.");
}
END_TEST

START_TEST(test_schema) {
    numafit_error_t e;
    char big[400];
    /* nova's request schema: key characters and length, value types and length */
    ck_assert_int_eq(check("{\"hw:cpu/policy\": \"dedicated\"}", 0, NULL, &e), -EINVAL);
    ck_assert_str_eq(e.exception, "ValidationError");
    ck_assert_int_eq(check("{\"\": \"x\"}", 0, NULL, &e), -EINVAL);
    ck_assert_int_eq(check("{\"hw:cpu_realtime\": true}", 0, NULL, &e), -EINVAL);
    ck_assert_int_eq(check("{\"hw:cpu_realtime\": null}", 0, NULL, &e), -EINVAL);
    ck_assert_int_eq(check("[\"hw:cpu_realtime\"]", 0, NULL, &e), -EINVAL);
    ck_assert_str_eq(e.where, "extra_specs");
    snprintf(big, sizeof(big), "{\"x\": \"%0256d\"}", 0);
    ck_assert_int_eq(check(big, 0, NULL, &e), -EINVAL);
    snprintf(big, sizeof(big), "{\"x\": \"%0255d\"}", 0);
    ck_assert_int_eq(check(big, 0, NULL, &e), 0);
    ck_assert_int_eq(check("{\"x\": ", 0, NULL, &e), -EBADMSG);
    ck_assert_int_eq(check("{}", 2, NULL, &e), -EINVAL);
    ck_assert_int_eq(numafit_extra_spec_validate(NULL, "x", 0, &e), -EINVAL);
}
END_TEST

START_TEST(test_profiles_and_allow) {
    numafit_error_t e;
    /* upstream nova's newer keys: not Debian's nova's */
    ck_assert_int_eq(check("{\"hw:sound_model\": \"virtio\"}", 0, NULL, &e), 0);
    ck_assert_int_eq(check("{\"hw:sound_model\": \"virtio\"}", NUMAFIT_XS_ZED, NULL, &e), -EINVAL);
    ck_assert_int_eq(
        check("{\"hw:sound_model\": \"virtio\"}", NUMAFIT_XS_ZED, "hw:sound_model", &e), 0);
    ck_assert_int_eq(check("{\"hw:mem_page_sze\": \"1GB\", \"hw:x\": \"1\"}", 0, "hw", &e), 0);
    ck_assert_int_eq(check("{\"hw:mem_page_sze\": \"1GB\"}", 0, "hw:mem_page_size,os", &e),
                     -EINVAL);
    /* an allowed key still has nova's schema */
    ck_assert_int_eq(check("{\"hw:x\": true}", 0, "hw", &e), -EINVAL);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("extra_specs");
    TCase *tc = tcase_create("validate");
    tcase_add_test(tc, test_seed_flavors);
    tcase_add_test(tc, test_mistakes);
    tcase_add_test(tc, test_schema);
    tcase_add_test(tc, test_profiles_and_allow);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(suite());
    int failed;
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
