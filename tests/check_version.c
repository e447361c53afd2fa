/* The version macros agree with the library's run-time answers. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "private.h"

START_TEST(version_matches) {
    char buf[32];
    ck_assert_uint_eq(numafit_version_hex(), NUMAFIT_VERSION_HEX);
    ck_assert_str_eq(numafit_version_string(), NUMAFIT_VERSION_STRING);
    snprintf(buf, sizeof(buf), "%d.%d.%d", NUMAFIT_VERSION_MAJOR, NUMAFIT_VERSION_MINOR,
             NUMAFIT_VERSION_MICRO);
    ck_assert_str_eq(numafit_version_string(), buf);
    ck_assert_str_eq(numafit_version_string(), PACKAGE_VERSION);
}
END_TEST

START_TEST(error_strings) {
    for (int c = 0; c < NUMAFIT_E__MAX; c++) {
        ck_assert_ptr_nonnull(numafit_strerror(c));
        ck_assert_str_ne(numafit_error_code_name(c), "UNKNOWN");
    }
    ck_assert_str_eq(numafit_error_code_name(NUMAFIT_E__MAX), "UNKNOWN");
    ck_assert_str_eq(numafit_strerror(-EBUSY), "CPU pinning conflict");
    numafit_free(NULL);
}
END_TEST

static Suite *version_suite(void) {
    Suite *s = suite_create("version");
    TCase *tc = tcase_create("version");
    tcase_add_test(tc, version_matches);
    tcase_add_test(tc, error_strings);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(version_suite());
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
