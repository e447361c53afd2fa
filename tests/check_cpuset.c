/* CPU sets and nova's cpu spec syntax (parse_cpu_spec / format_cpu_spec).
 *
 * The parse table holds nova 26.2.2's CPUSetTestCase inputs
 * (nova/tests/unit/virt/test_hardware.py), the cases measured in
 * nova-reference I.3 and more edge cases. Expected sets and messages were
 * produced by running nova's parse_cpu_spec on each input; the -ERANGE rows
 * are libnumafit's bound (NUMAFIT_CPU_MAX). */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "private.h"

struct parse_case {
    const char *spec;
    int rc;
    const char *expect; /* rc 0: nova's format_cpu_spec of the set; -EBADMSG: the message */
};

static const struct parse_case parse_cases[] = {
    {"1", 0, "1"},
    {"1,2", 0, "1-2"},
    {", ,   1 ,  ,,  2,    ,", 0, "1-2"},
    {"1-1", 0, "1"},
    {" 1 - 1, 1 - 2 , 1 -3", 0, "1-3"},
    {"1,^2", 0, "1"},
    {"1-2, ^1", 0, "2"},
    {"1-3,5,^2", 0, "1,3,5"},
    {" 1 -    3        ,   ^2,        5", 0, "1,3,5"},
    {" 1,1, ^1", 0, ""},
    {"^0-1", 0, ""},
    {"0-3,^1-2", 0, "0,3"},
    {" -1-3,5,^2", -EBADMSG, "Invalid range expression '-1-3'"},
    {"1-3-,5,^2", -EBADMSG, "Invalid range expression '1-3-'"},
    {"-3,5,^2", -EBADMSG, "Invalid range expression '-3'"},
    {"1-,5,^2", -EBADMSG, "Invalid range expression '1-'"},
    {"1-3,5,^2^", -EBADMSG, "Invalid exclusion expression '^2^'"},
    {"1-3,5,^2-", -EBADMSG, "Invalid range expression '^2-'"},
    {"--13,^^5,^2", -EBADMSG, "Invalid range expression '--13'"},
    {"a-3,5,^2", -EBADMSG, "Invalid range expression 'a-3'"},
    {"1-a,5,^2", -EBADMSG, "Invalid range expression '1-a'"},
    {"1-3,b,^2", -EBADMSG, "Invalid inclusion expression 'b'"},
    {"1-3,5,^c", -EBADMSG, "Invalid exclusion expression '^c'"},
    {"3 - 1, 5 , ^ 2 ", -EBADMSG, "Invalid range expression '3 - 1'"},
    {"0-5,6,^2", 0, "0-1,3-6"},
    {"0-1,^0,^1", 0, ""},
    {"1-", -EBADMSG, "Invalid range expression '1-'"},
    {"^", -EBADMSG, "Invalid exclusion expression '^'"},
    {"3-1", -EBADMSG, "Invalid range expression '3-1'"},
    {"-1", -EBADMSG, "Invalid range expression '-1'"},
    {"--1", -EBADMSG, "Invalid range expression '--1'"},
    {"1--3", -EBADMSG, "Invalid range expression '1--3'"},
    {"-1-2", -EBADMSG, "Invalid range expression '-1-2'"},
    {"1-2-3", -EBADMSG, "Invalid range expression '1-2-3'"},
    {"-5--3", -EBADMSG, "Invalid range expression '-5--3'"},
    {"^-1", -EBADMSG, "Invalid range expression '^-1'"},
    {"1.5", -EBADMSG, "Invalid inclusion expression '1.5'"},
    {"1-2.5", -EBADMSG, "Invalid range expression '1-2.5'"},
    {"a", -EBADMSG, "Invalid inclusion expression 'a'"},
    {"0x10", -EBADMSG, "Invalid inclusion expression '0x10'"},
    {"1e3", -EBADMSG, "Invalid inclusion expression '1e3'"},
    {"^a", -EBADMSG, "Invalid exclusion expression '^a'"},
    {"", 0, ""},
    {",", 0, ""},
    {" , ,", 0, ""},
    {"+5", 0, "5"},
    {" 3 - 5 ", 0, "3-5"},
    {"1-\t3", 0, "1-3"},
    {"^ 3", 0, ""},
    {"^3,1-4", 0, "1-2,4"},
    {"4,^4,4", 0, ""},
    {"0-3,^0-3", 0, ""},
    {"0--0", 0, "0"},
    {"^+3", 0, ""},
    {"0-+3", 0, "0-3"},
    {"007", 0, "7"},
    {"\t^ 3\t", 0, ""},
    {"1-\0343", 0, "1-3"},
    {"^\034", -EBADMSG, "Invalid exclusion expression '^'"},
    {"1-'", -EBADMSG, "Invalid range expression \"1-'\""},
    {"1-\"'", -EBADMSG, "Invalid range expression '1-\"\\''"},
    {"\177", -EBADMSG, "Invalid inclusion expression '\\x7f'"},
    {"1-\001", -EBADMSG, "Invalid range expression '1-\\x01'"},
    {"\\", -EBADMSG, "Invalid inclusion expression '\\\\'"},
    {"1,\0132\014,\0153\n", 0, "1-3"},
    {"^^3", -EBADMSG, "Invalid exclusion expression '^^3'"},
    {"^^1-2", -EBADMSG, "Invalid range expression '^^1-2'"},
    {"-", -EBADMSG, "Invalid range expression '-'"},
    {"^-", -EBADMSG, "Invalid range expression '^-'"},
    {"1 2", -EBADMSG, "Invalid inclusion expression '1 2'"},
    {"1-2 3", -EBADMSG, "Invalid range expression '1-2 3'"},
    {"16383", 0, "16383"},
    {"0-16383,^1-16383", 0, "0"},
    {"16383,^16384", 0, "16383"},
    {"^16384", 0, ""},
    {"^99999999999999999999", 0, ""},
    {"^0-99999999", 0, ""},
    {"^5-99999999,1-8", 0, "1-4"},
    {"16384-16383", -EBADMSG, "Invalid range expression '16384-16383'"},
    {"1,2,x,99999", -EBADMSG, "Invalid inclusion expression 'x'"},
    {"99999,x", -EBADMSG, "Invalid inclusion expression 'x'"},
    {"16384", -ERANGE, NULL},
    {"0-16384", -ERANGE, NULL},
    {"0-99999999", -ERANGE, NULL},
    {"99999999999999999999999", -ERANGE, NULL},
    {"1,^1,16384", -ERANGE, NULL},
    {"^16384,16384", -ERANGE,
     NULL}, /* nova: OK, all <= 16383 after exclusion; C refuses the inclusion */
    {"16384,^16384", -ERANGE,
     NULL}, /* nova: OK, all <= 16383 after exclusion; C refuses the inclusion */
    {"1-3, 70000 ,5", -ERANGE, NULL},
    {"0-16383,16383-16384", -ERANGE, NULL},
    {"+016384", -ERANGE, NULL},
    {"0-999999999999999999999999999999999999999999999999999999999999", -ERANGE, NULL},

    /* deliberate differences: Python-only int() syntax is refused */
    {"1_000", -EBADMSG, "Invalid inclusion expression '1_000'"},
    {"1-1_0", -EBADMSG, "Invalid range expression '1-1_0'"},
    {"\331\243", -EBADMSG, "Invalid inclusion expression '\331\243'"},  /* U+0663 */
    {"1,\302\2402", -EBADMSG, "Invalid inclusion expression '\\xa02'"}, /* U+00A0 */
    /* syntax errors win over range errors wherever they are */
    {"0-99999999,x", -EBADMSG, "Invalid inclusion expression 'x'"},
    {"x,0-99999999", -EBADMSG, "Invalid inclusion expression 'x'"},
    {"0-99999999,5-1", -EBADMSG, "Invalid range expression '5-1'"},
    {"99999999999999999999-99999999999999999998", -EBADMSG,
     "Invalid range expression '99999999999999999999-99999999999999999998'"},
};

START_TEST(test_parse_table) {
    const struct parse_case *pc = &parse_cases[_i];
    uint64_t bits[NUMAFIT__CPU_WORDS];
    numafit_error_t err;
    numafit__error_clear(&err);
    memset(bits, 0xff, sizeof(bits));

    int rc = numafit__cpuspec_parse(pc->spec, bits, &err);
    ck_assert_msg(rc == pc->rc, "'%s': rc %d want %d (%s)", pc->spec, rc, pc->rc, err.text);
    if (rc == 0) {
        char *s = numafit__cpuspec_format(bits, NUMAFIT__CPU_WORDS);
        ck_assert_ptr_nonnull(s);
        ck_assert_msg(strcmp(s, pc->expect) == 0, "'%s': got '%s' want '%s'", pc->spec, s,
                      pc->expect);
        numafit__free(s);
        ck_assert_int_eq(err.code, NUMAFIT_E_OK);
        return;
    }
    /* no partial result on errors */
    ck_assert(numafit__bits_empty(bits, NUMAFIT__CPU_WORDS));
    ck_assert_str_eq(err.exception, "Invalid");
    ck_assert_str_eq(err.where, "");
    if (rc == -EBADMSG) {
        ck_assert_int_eq(err.code, NUMAFIT_E_PARSE);
        ck_assert_msg(strcmp(err.text, pc->expect) == 0, "'%s': text '%s' want '%s'", pc->spec,
                      err.text, pc->expect);
    } else {
        ck_assert_int_eq(err.code, NUMAFIT_E_RANGE);
        ck_assert(strstr(err.text, "16383") != NULL);
    }
}
END_TEST

/* The same table through the public API. */
START_TEST(test_public_parse_table) {
    const struct parse_case *pc = &parse_cases[_i];
    numafit_cpuset_t *set = NULL;
    numafit_error_t err;
    int rc = numafit_cpuset_parse(pc->spec, 0, &set, &err);
    ck_assert_int_eq(rc, pc->rc);
    if (rc < 0) {
        ck_assert_ptr_null(set);
        if (rc == -EBADMSG)
            ck_assert_str_eq(err.text, pc->expect);
        return;
    }
    char *s = NULL;
    ck_assert_int_eq(numafit_cpuset_format(set, 0, &s), 0);
    ck_assert_str_eq(s, pc->expect);
    numafit_free(s);
    numafit_cpuset_free(set);
}
END_TEST

struct format_case {
    int cpus[12]; /* ascending ids, -1 terminated; {-2, a, b}: the range a..b */
    const char *expect;
};

/* nova's test_format_cpu_spec plus edge cases (expected = nova's output). */
static const struct format_case format_cases[] = {
    {{-1}, ""},
    {{1, 3, -1}, "1,3"},
    {{1, 2, 4, 6, -1}, "1-2,4,6"},
    {{10, 11, 13, 14, 15, 16, 19, 20, 40, 42, 48, -1}, "10-11,13-16,19-20,40,42,48"},
    {{0, 1, 2, 5, 7, 8, -1}, "0-2,5,7-8"},
    {{0, -1}, "0"},
    {{16383, -1}, "16383"},
    {{0, 16383, -1}, "0,16383"},
    {{63, 64, -1}, "63-64"},
    {{-2, 0, 16383}, "0-16383"},
    {{-2, 60, 130}, "60-130"},
};

START_TEST(test_format_table) {
    const struct format_case *fc = &format_cases[_i];
    numafit_cpuset_t *set = NULL;
    char *s = NULL;
    ck_assert_int_eq(numafit_cpuset_new(&set), 0);
    if (fc->cpus[0] == -2) {
        for (int c = fc->cpus[1]; c <= fc->cpus[2]; c++)
            ck_assert_int_eq(numafit_cpuset_add(set, (unsigned)c), 0);
    } else {
        for (int i = 0; fc->cpus[i] >= 0; i++)
            ck_assert_int_eq(numafit_cpuset_add(set, (unsigned)fc->cpus[i]), 0);
    }
    ck_assert_int_eq(numafit_cpuset_format(set, 0, &s), 0);
    ck_assert_str_eq(s, fc->expect);

    /* and back */
    numafit_cpuset_t *back = NULL;
    ck_assert_int_eq(numafit_cpuset_parse(s, 0, &back, NULL), 0);
    ck_assert_int_eq(numafit_cpuset_equal(set, back), 1);
    numafit_cpuset_free(back);
    numafit_free(s);
    numafit_cpuset_free(set);
}
END_TEST

START_TEST(test_format_every_other) {
    uint64_t bits[NUMAFIT__CPU_WORDS];
    for (unsigned i = 0; i < NUMAFIT__CPU_WORDS; i++)
        bits[i] = 0x5555555555555555ull;
    char *s = numafit__cpuspec_format(bits, NUMAFIT__CPU_WORDS);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(strncmp(s, "0,2,4,6,8,10,", 13), 0);
    ck_assert_str_eq(s + strlen(s) - 11, "16380,16382");
    numafit__free(s);
}
END_TEST

START_TEST(test_api) {
    numafit_cpuset_t *a = NULL, *b = NULL;
    ck_assert_int_eq(numafit_cpuset_new(&a), 0);
    ck_assert_int_eq(numafit_cpuset_count(a), 0);
    ck_assert_int_eq(numafit_cpuset_next(a, -1), -ENOENT);
    ck_assert_int_eq(numafit_cpuset_add(a, 5), 0);
    ck_assert_int_eq(numafit_cpuset_add(a, 5), 0);
    ck_assert_int_eq(numafit_cpuset_add(a, 0), 0);
    ck_assert_int_eq(numafit_cpuset_add(a, NUMAFIT_CPU_MAX), 0);
    ck_assert_int_eq(numafit_cpuset_add(a, NUMAFIT_CPU_MAX + 1), -ERANGE);
    ck_assert_int_eq(numafit_cpuset_count(a), 3);
    ck_assert_int_eq(numafit_cpuset_contains(a, 5), 1);
    ck_assert_int_eq(numafit_cpuset_contains(a, 6), 0);
    ck_assert_int_eq(numafit_cpuset_contains(a, NUMAFIT_CPU_MAX + 1), 0);
    ck_assert_int_eq(numafit_cpuset_next(a, -1), 0);
    ck_assert_int_eq(numafit_cpuset_next(a, 0), 5);
    ck_assert_int_eq(numafit_cpuset_next(a, 5), NUMAFIT_CPU_MAX);
    ck_assert_int_eq(numafit_cpuset_next(a, NUMAFIT_CPU_MAX), -ENOENT);
    ck_assert_int_eq(numafit_cpuset_next(a, 1 << 20), -ENOENT);
    ck_assert_int_eq(numafit_cpuset_next(a, -2), -EINVAL);

    ck_assert_int_eq(numafit_cpuset_dup(a, &b), 0);
    ck_assert_ptr_ne(a, b);
    ck_assert_int_eq(numafit_cpuset_equal(a, b), 1);
    ck_assert_int_eq(numafit_cpuset_remove(b, 5), 0);
    ck_assert_int_eq(numafit_cpuset_remove(b, 5), 0);
    ck_assert_int_eq(numafit_cpuset_remove(b, NUMAFIT_CPU_MAX + 1), -ERANGE);
    ck_assert_int_eq(numafit_cpuset_equal(a, b), 0);
    ck_assert_int_eq(numafit_cpuset_contains(b, 5), 0);
    ck_assert_int_eq(numafit_cpuset_count(b), 2);
    ck_assert_int_eq(numafit_cpuset_contains(a, 5), 1);
    numafit_cpuset_free(a);
    numafit_cpuset_free(b);
    numafit_cpuset_free(NULL);
}
END_TEST

START_TEST(test_api_bad_args) {
    numafit_cpuset_t *a = NULL, *r = NULL;
    numafit_error_t err;
    char *s = NULL;
    ck_assert_int_eq(numafit_cpuset_new(NULL), -EINVAL);
    ck_assert_int_eq(numafit_cpuset_new(&a), 0);
    ck_assert_int_eq(numafit_cpuset_dup(NULL, &r), -EINVAL);
    ck_assert_int_eq(numafit_cpuset_dup(a, NULL), -EINVAL);
    ck_assert_int_eq(numafit_cpuset_parse(NULL, 0, &r, &err), -EINVAL);
    ck_assert_int_eq(err.code, NUMAFIT_E_INVALID_ARG);
    ck_assert_int_eq(numafit_cpuset_parse("1", 0, NULL, NULL), -EINVAL);
    ck_assert_int_eq(numafit_cpuset_parse("1", 1u << 3, &r, &err), -EINVAL);
    ck_assert_int_eq(err.code, NUMAFIT_E_INVALID_ARG);
    ck_assert_ptr_null(r);
    ck_assert_int_eq(numafit_cpuset_format(NULL, 0, &s), -EINVAL);
    ck_assert_int_eq(numafit_cpuset_format(a, 0, NULL), -EINVAL);
    ck_assert_int_eq(numafit_cpuset_format(a, 1, &s), -EINVAL);
    ck_assert_ptr_null(s);
    ck_assert_int_eq(numafit_cpuset_add(NULL, 1), -EINVAL);
    ck_assert_int_eq(numafit_cpuset_remove(NULL, 1), -EINVAL);
    ck_assert_int_eq(numafit_cpuset_contains(NULL, 1), -EINVAL);
    ck_assert_int_eq(numafit_cpuset_count(NULL), -EINVAL);
    ck_assert_int_eq(numafit_cpuset_next(NULL, -1), -EINVAL);
    ck_assert_int_eq(numafit_cpuset_equal(NULL, a), -EINVAL);
    ck_assert_int_eq(numafit_cpuset_equal(a, NULL), -EINVAL);
    ck_assert_int_eq(numafit__cpuspec_parse(NULL, (uint64_t[NUMAFIT__CPU_WORDS]){0}, NULL),
                     -EINVAL);
    numafit_cpuset_free(a);
}
END_TEST

/* Huge inputs: refused (or clamped) with no giant allocation (nova needs
 * seconds and gigabytes for '0-99999999'). Their speed is the benchmark's
 * business: no timed assertion here (valgrind runs this test too). */
START_TEST(test_parse_huge_fast) {
    size_t n = 4u << 20;
    char *spec = malloc(n + 1);
    numafit_error_t err;
    uint64_t bits[NUMAFIT__CPU_WORDS];
    ck_assert_ptr_nonnull(spec);

    /* one number with four million digits */
    memcpy(spec, "0-", 2);
    memset(spec + 2, '9', n - 2);
    spec[n] = '\0';
    ck_assert_int_eq(numafit__cpuspec_parse(spec, bits, &err), -ERANGE);
    spec[0] = '^';
    spec[1] = '0';
    spec[2] = '-';
    ck_assert_int_eq(numafit__cpuspec_parse(spec, bits, &err), 0);
    ck_assert(numafit__bits_empty(bits, NUMAFIT__CPU_WORDS));

    /* a million repeated full ranges, then a syntax error at the very end */
    const char *rep = "0-16383,";
    size_t k = strlen(rep), o = 0;
    while (o + k + 2 < n) {
        memcpy(spec + o, rep, k);
        o += k;
    }
    strcpy(spec + o, "x");
    ck_assert_int_eq(numafit__cpuspec_parse(spec, bits, &err), -EBADMSG);
    ck_assert_str_eq(err.text, "Invalid inclusion expression 'x'");
    spec[o] = '\0';
    ck_assert_int_eq(numafit__cpuspec_parse(spec, bits, &err), 0);
    ck_assert_int_eq(numafit__bits_count(bits, NUMAFIT__CPU_WORDS), NUMAFIT_CPU_MAX + 1);
    free(spec);
}
END_TEST

/* The message quotes the whole part with Python's repr(); long parts are
 * truncated to fit numafit_error_t.text. */
START_TEST(test_long_message) {
    char spec[600];
    numafit_error_t err;
    uint64_t bits[NUMAFIT__CPU_WORDS];
    memset(spec, 'z', sizeof(spec) - 1);
    spec[sizeof(spec) - 1] = '\0';
    ck_assert_int_eq(numafit__cpuspec_parse(spec, bits, &err), -EBADMSG);
    ck_assert_uint_eq(strlen(err.text), sizeof(err.text) - 1);
    ck_assert_int_eq(strncmp(err.text, "Invalid inclusion expression 'zzz", 33), 0);
}
END_TEST

#define N_(a) ((int)(sizeof(a) / sizeof((a)[0])))

static Suite *cpuset_suite(void) {
    Suite *s = suite_create("cpuset");
    TCase *tc = tcase_create("cpuset");
    tcase_add_loop_test(tc, test_parse_table, 0, N_(parse_cases));
    tcase_add_loop_test(tc, test_public_parse_table, 0, N_(parse_cases));
    tcase_add_loop_test(tc, test_format_table, 0, N_(format_cases));
    tcase_add_test(tc, test_format_every_other);
    tcase_add_test(tc, test_api);
    tcase_add_test(tc, test_api_bad_args);
    tcase_add_test(tc, test_parse_huge_fast);
    tcase_add_test(tc, test_long_message);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(cpuset_suite());
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
