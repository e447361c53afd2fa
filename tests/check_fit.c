#include "config.h"

#include <check.h>
#include <stdlib.h>

#include "private.h"

START_TEST(test_placeholder) { ck_assert_int_eq(numafit_version_hex(), NUMAFIT_VERSION_HEX); }
END_TEST

static Suite *fit_suite(void) {
    Suite *s = suite_create("fit");
    TCase *tc = tcase_create("fit");
    tcase_add_test(tc, test_placeholder);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(fit_suite());
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
