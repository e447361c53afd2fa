/*
 * libFuzzer target: the request builder (numafit_request_new), nova's
 * numa_get_constraints() over a flavor and image properties.
 *
 * Input: FLAVOR [ NUL IMAGE ]. Without a NUL byte there is no image (NULL).
 * Each input is tried four ways:
 *  1. FLAVOR as the whole flavor document;
 *  2. FLAVOR as the extra specs of a fixed flavor
 *     {"vcpus":8,"memory_mb":4096,"extra_specs":FLAVOR}
 *  each with the upstream (latest) rules and with NUMAFIT_REQUEST_ZED.
 * Invariants:
 *  - success returns 1 with cells, 0 with none; to_json then succeeds and
 *    gives valid JSON ("null" without NUMA topology), the same as the JSON
 *    of a dup of the request; the getters agree with the flavor;
 *  - failure leaves *ret_req untouched and fills exception or text;
 *  - numafit_resources_from_flavor (plain, boot from volume, legacy) fails
 *    as the request does when it fails; otherwise it gives amounts from 0
 *    to NUMAFIT_RESOURCE_AMOUNT_MAX and the bits of enum
 *    numafit_resources_result only (FALLBACK only for a dedicated request
 *    without the legacy flag), or fails with -ERANGE / -EINVAL (a disk
 *    size) leaving the amounts untouched.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <numafit.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(cond)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant violated: %s\n", __FILE__, __LINE__, #cond);         \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

#define WRAP_VCPUS 8
#define WRAP_HEAD  "{\"vcpus\":8,\"memory_mb\":4096,\"extra_specs\":"
#define WRAP_TAIL  "}"

static void check_strings(const numafit_error_t *err) {
    FUZZ_ASSERT(memchr(err->text, '\0', sizeof(err->text)) != NULL);
    FUZZ_ASSERT(memchr(err->where, '\0', sizeof(err->where)) != NULL);
    FUZZ_ASSERT(memchr(err->exception, '\0', sizeof(err->exception)) != NULL);
}

static void check_json_text(const char *s) {
    json_error_t jerr;
    json_t *j = json_loads(s, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
    if (!j)
        fprintf(stderr, "invalid JSON from numafit_request_to_json: %s\n%s\n", jerr.text, s);
    FUZZ_ASSERT(j != NULL);
    json_decref(j);
}

/* numafit_resources_from_flavor beside a request built with rc (and policy
 * cp when rc >= 0, error code code when not). */
static void try_resources(const char *flavor, size_t flen, const char *image, size_t ilen,
                          unsigned zed, int rc, int cp, int code) {
    static const unsigned modes[] = {0, NUMAFIT_RESOURCES_BOOT_FROM_VOLUME,
                                     NUMAFIT_RESOURCES_LEGACY};
    for (unsigned m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
        int64_t got[NUMAFIT_RC_COUNT + 1];
        numafit_error_t err;
        unsigned flags = modes[m] | (zed ? NUMAFIT_RESOURCES_ZED : 0);
        memset(got, 0x5a, sizeof(got));
        memset(&err, 'x', sizeof(err));
        int r = numafit_resources_from_flavor(flavor, flen, image, ilen, flags, got,
                                              NUMAFIT_RC_COUNT + 1, &err);
        check_strings(&err);
        if (rc < 0) {
            FUZZ_ASSERT(r == rc && err.code == code);
        } else if (r < 0) {
            FUZZ_ASSERT(r == -ERANGE || r == -EINVAL || r == -ENOMEM);
            FUZZ_ASSERT(err.code == NUMAFIT_E_RANGE || err.code == NUMAFIT_E_SCHEMA ||
                        err.code == NUMAFIT_E_NOMEM);
        } else {
            const int bits = NUMAFIT_RESOURCES_FALLBACK | NUMAFIT_RESOURCES_SMT_REQUIRED |
                             NUMAFIT_RESOURCES_SMT_FORBIDDEN;
            FUZZ_ASSERT((r & ~bits) == 0);
            if (r & NUMAFIT_RESOURCES_FALLBACK)
                FUZZ_ASSERT(cp == NUMAFIT_CPU_POLICY_DEDICATED &&
                            !(flags & NUMAFIT_RESOURCES_LEGACY));
            for (int i = 0; i < NUMAFIT_RC_COUNT; i++)
                FUZZ_ASSERT(got[i] >= 0 && got[i] <= NUMAFIT_RESOURCE_AMOUNT_MAX);
            FUZZ_ASSERT(got[NUMAFIT_RC_COUNT] == 0);
            continue;
        }
        for (int i = 0; i <= NUMAFIT_RC_COUNT; i++)
            FUZZ_ASSERT(got[i] == (int64_t)0x5a5a5a5a5a5a5a5aLL);
    }
}

static void try_request(const char *flavor, size_t flen, const char *image, size_t ilen,
                        unsigned flags, int wrapped) {
    numafit_request_t *req = NULL, *copy = NULL;
    numafit_error_t err;
    char *json = NULL, *json2 = NULL, *json3 = NULL;
    int r, cells;

    memset(&err, 'x', sizeof(err)); /* the library must overwrite it */
    r = numafit_request_new(flavor, flen, image, ilen, flags, &req, &err);
    check_strings(&err);
    try_resources(flavor, flen, image, ilen, flags & NUMAFIT_REQUEST_ZED, r,
                  r >= 0 ? numafit_request_get_cpu_policy(req) : 0, err.code);
    if (r < 0) {
        FUZZ_ASSERT(r == -EINVAL || r == -EBADMSG || r == -ERANGE || r == -ENOMEM);
        FUZZ_ASSERT(req == NULL);
        FUZZ_ASSERT(err.exception[0] != '\0' || err.text[0] != '\0');
        FUZZ_ASSERT(err.code > NUMAFIT_E_OK && err.code < NUMAFIT_E__MAX);
        return;
    }
    FUZZ_ASSERT(r == 0 || r == 1);
    FUZZ_ASSERT(req != NULL);

    cells = numafit_request_get_cell_count(req);
    FUZZ_ASSERT(r == 1 ? cells > 0 : cells == 0);
    int vcpus = numafit_request_get_vcpus(req);
    FUZZ_ASSERT(vcpus >= 1 && vcpus <= NUMAFIT_VCPUS_MAX);
    if (wrapped)
        FUZZ_ASSERT(vcpus == WRAP_VCPUS);
    FUZZ_ASSERT(cells <= vcpus);
    int cp = numafit_request_get_cpu_policy(req);
    FUZZ_ASSERT(cp >= NUMAFIT_CPU_POLICY_NONE && cp <= NUMAFIT_CPU_POLICY_MIXED);
    int tp = numafit_request_get_thread_policy(req);
    FUZZ_ASSERT(tp >= NUMAFIT_THREAD_POLICY_NONE && tp <= NUMAFIT_THREAD_POLICY_REQUIRE);
    int ep = numafit_request_get_emulator_threads_policy(req);
    FUZZ_ASSERT(ep >= NUMAFIT_EMULATOR_THREADS_NONE && ep <= NUMAFIT_EMULATOR_THREADS_ISOLATE);

    memset(&err, 'x', sizeof(err));
    r = numafit_request_to_json(req, 0, &json, &err);
    if (r < 0)
        fprintf(stderr, "numafit_request_to_json: %d %s\n", r, err.text);
    FUZZ_ASSERT(r == 0 && json != NULL);
    check_json_text(json);
    if (cells == 0)
        FUZZ_ASSERT(strcmp(json, "null") == 0);

    FUZZ_ASSERT(numafit_request_to_json(req, NUMAFIT_JSON_INDENT, &json3, NULL) == 0);
    check_json_text(json3);

    FUZZ_ASSERT(numafit_request_dup(req, &copy) == 0 && copy != NULL);
    FUZZ_ASSERT(numafit_request_to_json(copy, 0, &json2, NULL) == 0);
    FUZZ_ASSERT(strcmp(json, json2) == 0);

    numafit_free(json);
    numafit_free(json2);
    numafit_free(json3);
    numafit_request_free(copy);
    numafit_request_free(req);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *in = (const char *)data;
    const char *nul = size ? memchr(in, '\0', size) : NULL;
    size_t flen = nul ? (size_t)(nul - in) : size;
    const char *image = nul ? nul + 1 : NULL;
    size_t ilen = nul ? size - flen - 1 : 0;
    char *flavor, *wrapped;

    /* exact-size copies: the builder takes (pointer, length), not C strings */
    flavor = malloc(flen ? flen : 1);
    if (!flavor)
        return 0;
    if (flen)
        memcpy(flavor, in, flen);

    for (unsigned zed = 0; zed < 2; zed++)
        try_request(flavor, flen, image, ilen, zed ? NUMAFIT_REQUEST_ZED : 0, 0);

    size_t wlen = strlen(WRAP_HEAD) + flen + strlen(WRAP_TAIL);
    wrapped = malloc(wlen);
    if (wrapped) {
        memcpy(wrapped, WRAP_HEAD, strlen(WRAP_HEAD));
        if (flen)
            memcpy(wrapped + strlen(WRAP_HEAD), flavor, flen);
        memcpy(wrapped + strlen(WRAP_HEAD) + flen, WRAP_TAIL, strlen(WRAP_TAIL));
        for (unsigned zed = 0; zed < 2; zed++)
            try_request(wrapped, wlen, image, ilen, zed ? NUMAFIT_REQUEST_ZED : 0, 1);
        free(wrapped);
    }
    free(flavor);
    return 0;
}
