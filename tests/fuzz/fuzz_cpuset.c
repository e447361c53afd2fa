/*
 * libFuzzer target: nova's cpu spec syntax (numafit_cpuset_parse) and its
 * formatter (numafit_cpuset_format).
 *
 * Input: the spec text (cut at the first NUL byte, as a C caller would).
 * Invariants:
 *  - parse returns 0, -EBADMSG, -ERANGE (or -ENOMEM);
 *  - on error: *ret_set untouched, exception "Invalid", a non-empty
 *    NUL-terminated text, code NUMAFIT_E_PARSE / NUMAFIT_E_RANGE;
 *  - on success: format -> parse gives the same set, formatting that set
 *    again gives the same text, the text is canonical (digits, '-', ','),
 *    count/next/contains/dup agree with each other.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numafit.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(cond)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant violated: %s\n", __FILE__, __LINE__, #cond);         \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* The error report is complete: NUL-terminated strings, a non-empty text. */
static void check_error(const numafit_error_t *err) {
    FUZZ_ASSERT(memchr(err->text, '\0', sizeof(err->text)) != NULL);
    FUZZ_ASSERT(memchr(err->where, '\0', sizeof(err->where)) != NULL);
    FUZZ_ASSERT(memchr(err->exception, '\0', sizeof(err->exception)) != NULL);
    FUZZ_ASSERT(err->text[0] != '\0');
}

/* Formatted text is nova's canonical form: "a" or "a-b" runs, ascending. */
static void check_canonical(const char *s) {
    long prev = -2;
    const char *p = s;

    while (*p) {
        char *end;
        long lo = strtol(p, &end, 10), hi;
        FUZZ_ASSERT(end != p && p[0] >= '0' && p[0] <= '9');
        hi = lo;
        if (*end == '-') {
            p = end + 1;
            FUZZ_ASSERT(*p >= '0' && *p <= '9');
            hi = strtol(p, &end, 10);
            FUZZ_ASSERT(hi > lo);
        }
        FUZZ_ASSERT(lo > prev + 1); /* runs are maximal and ordered */
        FUZZ_ASSERT(hi <= NUMAFIT_CPU_MAX);
        prev = hi;
        p = end;
        if (*p == ',') {
            p++;
            FUZZ_ASSERT(*p != '\0');
        } else {
            FUZZ_ASSERT(*p == '\0');
        }
    }
}

static void check_set(const numafit_cpuset_t *set) {
    int count = numafit_cpuset_count(set), seen = 0, cpu = -1, r;

    FUZZ_ASSERT(count >= 0 && count <= NUMAFIT_CPU_MAX + 1);
    while ((r = numafit_cpuset_next(set, cpu)) >= 0) {
        FUZZ_ASSERT(r > cpu && r <= NUMAFIT_CPU_MAX);
        FUZZ_ASSERT(numafit_cpuset_contains(set, (unsigned)r) == 1);
        cpu = r;
        seen++;
    }
    FUZZ_ASSERT(r == -ENOENT);
    FUZZ_ASSERT(seen == count);
    FUZZ_ASSERT(numafit_cpuset_contains(set, NUMAFIT_CPU_MAX + 1) == 0);

    numafit_cpuset_t *copy = NULL;
    FUZZ_ASSERT(numafit_cpuset_dup(set, &copy) == 0);
    FUZZ_ASSERT(numafit_cpuset_equal(set, copy) == 1);
    numafit_cpuset_free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    numafit_cpuset_t *set = NULL, *again = NULL, *set2 = NULL;
    numafit_error_t err;
    char *spec, *text = NULL, *text2 = NULL;
    int r;

    spec = malloc(size + 1);
    if (!spec)
        return 0;
    if (size)
        memcpy(spec, data, size);
    spec[size] = '\0';

    memset(&err, 'x', sizeof(err)); /* the library must overwrite it */
    r = numafit_cpuset_parse(spec, 0, &set, &err);
    if (r < 0) {
        FUZZ_ASSERT(r == -EBADMSG || r == -ERANGE || r == -ENOMEM);
        FUZZ_ASSERT(set == NULL);
        check_error(&err);
        if (r != -ENOMEM) {
            FUZZ_ASSERT(strcmp(err.exception, "Invalid") == 0);
            FUZZ_ASSERT(err.code == (r == -EBADMSG ? NUMAFIT_E_PARSE : NUMAFIT_E_RANGE));
        }
        free(spec);
        return 0;
    }
    FUZZ_ASSERT(r == 0 && set != NULL);
    check_set(set);

    /* parse -> format -> parse */
    FUZZ_ASSERT(numafit_cpuset_format(set, 0, &text) == 0 && text != NULL);
    check_canonical(text);
    memset(&err, 'x', sizeof(err));
    r = numafit_cpuset_parse(text, 0, &again, &err);
    FUZZ_ASSERT(r == 0 && again != NULL);
    FUZZ_ASSERT(numafit_cpuset_equal(set, again) == 1);
    FUZZ_ASSERT(numafit_cpuset_count(set) == numafit_cpuset_count(again));
    FUZZ_ASSERT(numafit_cpuset_format(again, 0, &text2) == 0 && text2 != NULL);
    FUZZ_ASSERT(strcmp(text, text2) == 0);

    /* every spec can be prefixed by an exclusion of a CPU not in it... */
    if (numafit_cpuset_count(set) > 0) {
        int first = numafit_cpuset_next(set, -1);
        size_t n = strlen(text) + 32;
        char *ex = malloc(n);
        if (ex) {
            snprintf(ex, n, "^%d,%s", first, text);
            r = numafit_cpuset_parse(ex, 0, &set2, NULL);
            FUZZ_ASSERT(r == 0);
            /* ...and removes exactly that CPU */
            FUZZ_ASSERT(numafit_cpuset_contains(set2, (unsigned)first) == 0);
            FUZZ_ASSERT(numafit_cpuset_count(set2) == numafit_cpuset_count(set) - 1);
            FUZZ_ASSERT(numafit_cpuset_add(set2, (unsigned)first) == 0);
            FUZZ_ASSERT(numafit_cpuset_equal(set, set2) == 1);
            numafit_cpuset_free(set2);
            free(ex);
        }
    }

    numafit_free(text);
    numafit_free(text2);
    numafit_cpuset_free(again);
    numafit_cpuset_free(set);
    free(spec);
    return 0;
}
