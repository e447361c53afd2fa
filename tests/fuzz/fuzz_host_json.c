/*
 * libFuzzer target: the host JSON reader (numafit_host_new_from_json).
 *
 * Input: the JSON document (binary; the reader takes pointer and length).
 * It is loaded without flags and, if refused, with NUMAFIT_HOST_ALLOW_OVERLAP.
 * Invariants for a loaded host:
 *  - to_json -> reload gives an equal host (also through the DB-column
 *    string form and the indented form), and writing the reloaded host gives
 *    the same text; dup gives an equal host;
 *  - fitting a few small fixed requests does not crash; when one fits, claim
 *    then release restores an equal host, the claimed host survives the JSON
 *    round trip too, and a refused claim or release leaves the host as it was.
 * On failure: *ret_host untouched, a non-empty error text.
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

/* Small fixed requests fitted on every host that loads. */
static const char *const flavors[] = {
    /* the dedicated 2-vCPU guest (thread policy prefer) */
    "{\"vcpus\":2,\"memory_mb\":512,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\"}}",
    /* whole cores, huge pages */
    "{\"vcpus\":2,\"memory_mb\":1024,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\","
    "\"hw:cpu_thread_policy\":\"isolate\",\"hw:mem_page_size\":\"large\"}}",
    /* two shared guest cells, any page size */
    "{\"vcpus\":4,\"memory_mb\":1024,\"extra_specs\":{\"hw:numa_nodes\":\"2\","
    "\"hw:mem_page_size\":\"any\"}}",
};
#define NFLAVORS (sizeof(flavors) / sizeof(flavors[0]))

static numafit_request_t *requests[NFLAVORS];
static numafit_options_t *options;

static void setup(void) {
    static int done;
    if (done)
        return;
    done = 1;
    for (size_t i = 0; i < NFLAVORS; i++) {
        numafit_error_t err;
        int r = numafit_request_new(flavors[i], strlen(flavors[i]), NULL, 0, 0, &requests[i], &err);
        if (r != 1)
            fprintf(stderr, "fixed request %zu: %d %s\n", i, r, err.text);
        FUZZ_ASSERT(r == 1);
    }
    FUZZ_ASSERT(numafit_options_new(&options) == 0);
    /* keep a hostile host from making one input take seconds */
    FUZZ_ASSERT(numafit_options_set_budget(options, 200000) == 0);
}

static void check_strings(const numafit_error_t *err) {
    FUZZ_ASSERT(memchr(err->text, '\0', sizeof(err->text)) != NULL);
    FUZZ_ASSERT(memchr(err->where, '\0', sizeof(err->where)) != NULL);
    FUZZ_ASSERT(memchr(err->exception, '\0', sizeof(err->exception)) != NULL);
}

/* host -> JSON (with to_json flags) -> host: equal, and the text is stable. */
static void check_round_trip(const numafit_host_t *host, unsigned load_flags, unsigned json_flags) {
    numafit_host_t *again = NULL;
    numafit_error_t err;
    char *json = NULL, *json2 = NULL;
    int r;

    r = numafit_host_to_json(host, json_flags, &json, &err);
    if (r < 0)
        fprintf(stderr, "numafit_host_to_json: %d %s\n", r, err.text);
    FUZZ_ASSERT(r == 0 && json != NULL);
    r = numafit_host_new_from_json(json, strlen(json), load_flags, &again, &err);
    if (r < 0)
        fprintf(stderr, "reload: %d %s at %s\n%s\n", r, err.text, err.where, json);
    FUZZ_ASSERT(r == 0 && again != NULL);
    FUZZ_ASSERT(numafit_host_equal(host, again) == 1);
    FUZZ_ASSERT(numafit_host_to_json(again, json_flags, &json2, NULL) == 0);
    FUZZ_ASSERT(strcmp(json, json2) == 0);
    numafit_free(json);
    numafit_free(json2);
    numafit_host_free(again);
}

static void check_fit(const numafit_host_t *host, unsigned load_flags,
                      const numafit_request_t *req) {
    numafit_placement_t *p = NULL;
    numafit_host_t *work = NULL;
    numafit_error_t err;
    int r;

    memset(&err, 'x', sizeof(err));
    r = numafit_fit(host, req, options, 0, &p, &err);
    check_strings(&err);
    if (r == 0 || r < 0) {
        FUZZ_ASSERT(p == NULL);
        FUZZ_ASSERT(r == 0 || r == -E2BIG || r == -ENOMEM || r == -EINVAL);
        if (r == 0)
            FUZZ_ASSERT(err.code >= NUMAFIT_E_NOFIT && err.code <= NUMAFIT_E_NOFIT_NETWORK);
        return;
    }
    FUZZ_ASSERT(r == 1 && p != NULL);
    FUZZ_ASSERT(numafit_placement_get_cell_count(p) == numafit_request_get_cell_count(req));
    for (int i = 0; i < numafit_placement_get_cell_count(p); i++) {
        int id = numafit_placement_get_host_cell(p, (unsigned)i);
        int found = 0;
        for (int k = 0; k < numafit_host_get_cell_count(host); k++)
            found |= numafit_host_get_cell_id(host, (unsigned)k) == id;
        FUZZ_ASSERT(found);
    }

    FUZZ_ASSERT(numafit_host_dup(host, &work) == 0);
    memset(&err, 'x', sizeof(err));
    r = numafit_host_claim(work, p, 0, &err);
    check_strings(&err);
    if (r < 0) {
        /* a placement the fit just produced must be claimable */
        fprintf(stderr, "claim after fit: %d %s %s\n", r, err.exception, err.text);
        FUZZ_ASSERT(numafit_host_equal(host, work) == 1); /* all or nothing */
        FUZZ_ASSERT(r == 0);
    }
    check_round_trip(work, load_flags, 0);
    memset(&err, 'x', sizeof(err));
    r = numafit_host_release(work, p, 0, &err);
    check_strings(&err);
    if (r < 0)
        fprintf(stderr, "release after claim: %d %s %s\n", r, err.exception, err.text);
    FUZZ_ASSERT(r == 0);
    FUZZ_ASSERT(numafit_host_equal(host, work) == 1);

    /* releasing again must refuse for pinned guests, or at least keep the
     * host consistent; when refused, nothing changes */
    numafit_host_t *before = NULL;
    FUZZ_ASSERT(numafit_host_dup(work, &before) == 0);
    r = numafit_host_release(work, p, 0, NULL);
    if (r < 0)
        FUZZ_ASSERT(numafit_host_equal(before, work) == 1);
    numafit_host_free(before);

    numafit_host_free(work);
    numafit_placement_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const unsigned tries[] = {0, NUMAFIT_HOST_ALLOW_OVERLAP};
    numafit_host_t *host = NULL, *copy = NULL;
    numafit_error_t err;
    unsigned flags = 0;
    int r = -1;

    setup();
    for (size_t t = 0; t < 2 && r < 0; t++) {
        flags = tries[t];
        memset(&err, 'x', sizeof(err)); /* the library must overwrite it */
        r = numafit_host_new_from_json((const char *)data, size, flags, &host, &err);
        check_strings(&err);
        if (r < 0) {
            FUZZ_ASSERT(r == -EBADMSG || r == -EINVAL || r == -ERANGE || r == -ENOMEM);
            FUZZ_ASSERT(host == NULL);
            FUZZ_ASSERT(err.text[0] != '\0');
        }
    }
    if (r < 0)
        return 0;
    FUZZ_ASSERT(r == 0 && host != NULL);

    int ncells = numafit_host_get_cell_count(host);
    FUZZ_ASSERT(ncells >= 0 && ncells <= NUMAFIT_MAX_CELLS);
    for (int k = 0; k < ncells; k++) {
        int id = numafit_host_get_cell_id(host, (unsigned)k);
        FUZZ_ASSERT(id >= 0 && id <= NUMAFIT_CELL_ID_MAX);
    }
    FUZZ_ASSERT(numafit_host_get_cell_id(host, (unsigned)ncells) == -ENOENT);

    check_round_trip(host, flags, 0);
    check_round_trip(host, flags, NUMAFIT_HOST_JSON_STRING);
    check_round_trip(host, flags, NUMAFIT_JSON_INDENT);

    FUZZ_ASSERT(numafit_host_dup(host, &copy) == 0 && copy != NULL);
    FUZZ_ASSERT(numafit_host_equal(host, copy) == 1);
    FUZZ_ASSERT(numafit_host_equal(copy, host) == 1);

    for (size_t i = 0; i < NFLAVORS; i++)
        check_fit(host, flags, requests[i]);
    /* fitting never modifies the host */
    FUZZ_ASSERT(numafit_host_equal(host, copy) == 1);

    numafit_host_free(copy);
    numafit_host_free(host);
    return 0;
}
