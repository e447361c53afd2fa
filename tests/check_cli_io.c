/* The CLI's file helpers (tools/numafit/cli_io.c): inputs that are not regular
 * files are refused without blocking, reads are capped, jansson's
 * out-of-memory error reads "out of memory", and a file written atomically
 * is either whole or untouched. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "../tools/numafit/cli.h"
#include "../tools/numafit/cli_io.h"

static char dir[64];

static void setup(void) {
    strcpy(dir, "/tmp/check_cli_io.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void) {
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static void put(const char *name, const char *text) {
    char path[PATH_MAX];
    FILE *f;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    ck_assert_ptr_nonnull(f = fopen(path, "w"));
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_read_refuses) {
    char path[PATH_MAX], why[256], *buf = NULL;
    size_t len = 0;
    /* a FIFO nobody writes to: a blocking open would never return */
    snprintf(path, sizeof(path), "%s/fifo", dir);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    ck_assert_int_eq(cli_read_file(path, 100, false, &buf, &len, why, sizeof(why)), -EINVAL);
    ck_assert_str_eq(why, "not a regular file (a FIFO)");
    ck_assert_ptr_null(cli_fopen_read(path, false, why, sizeof(why)));
    ck_assert_int_eq(cli_read_file("/dev/zero", 100, false, &buf, &len, why, sizeof(why)), -EINVAL);
    ck_assert_str_eq(why, "not a regular file (a character device)");
    ck_assert_int_eq(cli_read_file(dir, 100, false, &buf, &len, why, sizeof(why)), -EISDIR);
    ck_assert_str_eq(why, "is a directory, not a regular file");
    snprintf(path, sizeof(path), "%s/nope", dir);
    ck_assert_int_eq(cli_read_file(path, 100, false, &buf, &len, why, sizeof(why)), -ENOENT);
    /* "-" is a file name unless standard input is allowed */
    ck_assert_int_eq(cli_read_file("-", 100, false, &buf, &len, why, sizeof(why)), -ENOENT);
    ck_assert_ptr_null(buf);
}
END_TEST

START_TEST(test_read_caps) {
    char path[PATH_MAX], why[256], *buf = NULL;
    size_t len = 0;
    put("ten", "0123456789");
    snprintf(path, sizeof(path), "%s/ten", dir);
    ck_assert_int_eq(cli_read_file(path, 10, false, &buf, &len, why, sizeof(why)), 0);
    ck_assert_uint_eq(len, 10);
    ck_assert_str_eq(buf, "0123456789");
    free(buf);
    buf = NULL;
    ck_assert_int_eq(cli_read_file(path, 9, false, &buf, &len, why, sizeof(why)), -EFBIG);
    ck_assert_str_eq(why, "larger than 9 bytes");
    ck_assert_ptr_null(buf);
    /* standard input: a device without end is capped too */
    ck_assert_ptr_nonnull(freopen("/dev/zero", "rb", stdin));
    ck_assert_int_eq(cli_read_file("-", 200000, true, &buf, &len, why, sizeof(why)), -EFBIG);
    ck_assert_ptr_null(buf);
}
END_TEST

/* jansson's allocator failing: its error has no line (-1) and, depending on
 * where it failed, no text at all. */
static int fail_after;
static void *failing_malloc(size_t n) {
    return fail_after-- > 0 ? malloc(n) : NULL;
}

START_TEST(test_json_oom) {
    static const char doc[] = "{\"a\": [1, 2, {\"b\": \"cccccccccccccccccccc\"}], \"d\": 3}";
    char why[256];
    json_error_t jerr;
    json_t *v;
    int nomem = 0;
    for (int n = 0; n < 64; n++) {
        json_set_alloc_funcs(failing_malloc, free);
        fail_after = n;
        v = json_loadb(doc, sizeof(doc) - 1, JSON_REJECT_DUPLICATES, &jerr);
        json_set_alloc_funcs(malloc, free);
        if (v) {
            json_decref(v);
            break;
        }
        if (json_error_code(&jerr) == json_error_out_of_memory || !jerr.text[0]) {
            ck_assert_int_eq(cli_json_error(&jerr, why, sizeof(why)), -ENOMEM);
            ck_assert_str_eq(why, "out of memory");
            nomem++;
        }
    }
    ck_assert_int_gt(nomem, 0);
    /* a real syntax error keeps its position and reason */
    ck_assert_ptr_null(json_loads("{\"a\": }", 0, &jerr));
    ck_assert_int_eq(cli_json_error(&jerr, why, sizeof(why)), -EBADMSG);
    ck_assert_msg(!strncmp(why, "line 1 column ", 14) && strlen(why) > 20, "%s", why);
    ck_assert_int_eq(cli_json_error(&jerr, NULL, 0), -EBADMSG);
}
END_TEST

/* A NUL byte is a syntax error where it stands, whatever the error
 * structure held before (a stale out-of-memory code must not show). */
START_TEST(test_json_nul) {
    json_error_t jerr;
    memset(&jerr, 0x5a, sizeof(jerr));
    jerr.text[JSON_ERROR_TEXT_LENGTH - 1] = (char)json_error_out_of_memory;
    ck_assert_ptr_null(cli_json_load("{\"a\":1\0}", 8, 0, &jerr));
    ck_assert_int_eq(json_error_code(&jerr), json_error_invalid_syntax);
    ck_assert_str_eq(jerr.text, "a NUL byte in the JSON text");
    ck_assert_int_eq(jerr.line, 1);
    ck_assert_int_eq(jerr.column, 7);
    ck_assert_int_eq(jerr.position, 6);
    /* the same text without it reads */
    json_t *j = cli_json_load("{\"a\":1}", 7, 0, &jerr);
    ck_assert_ptr_nonnull(j);
    json_decref(j);
}
END_TEST

START_TEST(test_write_atomic) {
    char path[PATH_MAX], why[256], *buf = NULL, cmd[PATH_MAX + 64];
    size_t len;
    FILE *p;
    put("out.svg", "old");
    snprintf(path, sizeof(path), "%s/out.svg", dir);
    ck_assert_int_eq(cli_write_file(path, "new!", 4, why, sizeof(why)), 0);
    ck_assert_int_eq(cli_read_file(path, 100, false, &buf, &len, why, sizeof(why)), 0);
    ck_assert_str_eq(buf, "new!");
    free(buf);
    /* a device is written in place, and its failure reported */
    ck_assert_int_eq(cli_write_file("/dev/null", "x", 1, why, sizeof(why)), 0);
    ck_assert_int_eq(cli_write_file("/dev/full", "x", 1, why, sizeof(why)), -ENOSPC);
    /* no directory: nothing created */
    snprintf(path, sizeof(path), "%s/no/out.svg", dir);
    ck_assert_int_eq(cli_write_file(path, "x", 1, why, sizeof(why)), -ENOENT);
    /* only out.svg in the directory: no temporary file left */
    snprintf(cmd, sizeof(cmd), "ls -A %s", dir);
    ck_assert_ptr_nonnull(p = popen(cmd, "r"));
    ck_assert_ptr_nonnull(fgets(why, sizeof(why), p));
    ck_assert_str_eq(why, "out.svg\n");
    ck_assert_ptr_null(fgets(why, sizeof(why), p));
    pclose(p);
}
END_TEST

/* The numbers of the reports (cli_fmt.c): grouped from 10,000 on, GiB
 * beside MiB from 10 GiB on, page sizes in their unit. */
START_TEST(test_report_numbers) {
    char b[64];

    ck_assert_str_eq(cli_fmt_count(0, b, sizeof(b)), "0");
    ck_assert_str_eq(cli_fmt_count(9999, b, sizeof(b)), "9999");
    ck_assert_str_eq(cli_fmt_count(10000, b, sizeof(b)), "10,000");
    ck_assert_str_eq(cli_fmt_count(30772449, b, sizeof(b)), "30,772,449");
    ck_assert_str_eq(cli_fmt_count(-123456, b, sizeof(b)), "-123,456");
    ck_assert_str_eq(cli_fmt_count(LLONG_MIN, b, sizeof(b)), "-9,223,372,036,854,775,808");
    ck_assert_str_eq(cli_fmt_count(LLONG_MAX, b, sizeof(b)), "9,223,372,036,854,775,807");
    ck_assert_str_eq(cli_fmt_mib(8192, b, sizeof(b)), "8192 MiB");
    ck_assert_str_eq(cli_fmt_mib(10239, b, sizeof(b)), "10,239 MiB");
    ck_assert_str_eq(cli_fmt_mib(131072, b, sizeof(b)), "131,072 MiB (128 GiB)");
    ck_assert_str_eq(cli_fmt_mib(128396, b, sizeof(b)), "128,396 MiB (125.4 GiB)");
    ck_assert_str_eq(cli_fmt_mib(52428800, b, sizeof(b)), "52,428,800 MiB (51,200 GiB)");
    ck_assert_str_eq(cli_fmt_gib(39321600, false, b, sizeof(b)), "38,400.0");
    ck_assert_str_eq(cli_fmt_gib(128396, false, b, sizeof(b)), "125.4");
    ck_assert_str_eq(cli_fmt_gib(-1536, true, b, sizeof(b)), "-1.5");
    ck_assert_str_eq(cli_fmt_gib(1023, true, b, sizeof(b)), "1.0");
    ck_assert_str_eq(cli_fmt_gib(LLONG_MAX, false, b, sizeof(b)), "9,007,199,254,740,991.0");
    ck_assert_str_eq(cli_fmt_gib(LLONG_MIN, true, b, sizeof(b)), "-9,007,199,254,740,992");
    ck_assert_str_eq(cli_fmt_page_size(4, false, b, sizeof(b)), "4 KiB");
    ck_assert_str_eq(cli_fmt_page_size(2048, false, b, sizeof(b)), "2 MiB");
    ck_assert_str_eq(cli_fmt_page_size(1048576, true, b, sizeof(b)), "1G");
    ck_assert_str_eq(cli_fmt_page_size(3000, true, b, sizeof(b)), "3000K");
    /* a short buffer is cut, never overrun */
    ck_assert_str_eq(cli_fmt_count(30772449, b, 5), "30,7");
}
END_TEST

static Suite *cli_io_suite(void) {
    Suite *s = suite_create("cli_io");
    TCase *tc = tcase_create("cli_io");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 20);
    tcase_add_test(tc, test_read_refuses);
    tcase_add_test(tc, test_read_caps);
    tcase_add_test(tc, test_json_oom);
    tcase_add_test(tc, test_json_nul);
    tcase_add_test(tc, test_write_atomic);
    tcase_add_test(tc, test_report_numbers);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(cli_io_suite());
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
