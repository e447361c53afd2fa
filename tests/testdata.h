/* Fixtures under $top_srcdir/tests/data, for the Check tests (make check
 * exports top_srcdir; "." otherwise). */
#ifndef NUMAFIT_TESTDATA_H
#define NUMAFIT_TESTDATA_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

static inline void test_data_path(char *out, size_t cap, const char *rel) {
    const char *top = getenv("top_srcdir");
    snprintf(out, cap, "%s/tests/data/%s", top ? top : ".", rel);
}

/* The whole file tests/data/REL, NUL-terminated, its size in *len; the
 * test fails when it cannot be read. free() it. */
static inline char *test_slurp(const char *rel, size_t *len) {
    char path[4096];
    test_data_path(path, sizeof(path), rel);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s (set top_srcdir)", path);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    ck_assert_int_ge(n, 0);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

#endif
