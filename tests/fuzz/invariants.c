/*
 * The invariants shared by the fuzz targets (see invariants.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <numafit.h>

#include "invariants.h"

/* ------------------------------------------------------------------ output */

/* The sanitizers' report file (compiler-rt); absent without sanitizers. */
void __sanitizer_set_report_fd(void *fd) __attribute__((weak));

static int real_stderr = -1, devnull = -1, silenced;

static void output_setup(void) {
    if (real_stderr >= 0)
        return;
    real_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    if (real_stderr < 0)
        real_stderr = STDERR_FILENO;
    else if (__sanitizer_set_report_fd)
        __sanitizer_set_report_fd((void *)(intptr_t)real_stderr);
}

void fuzz_note(const char *fmt, ...) {
    va_list ap;
    output_setup();
    fflush(stderr);
    va_start(ap, fmt);
    vdprintf(real_stderr, fmt, ap);
    va_end(ap);
    dprintf(real_stderr, "\n");
}

void fuzz_fail(const char *file, int line, const char *what) {
    fuzz_note("%s:%d: invariant violated: %s", file, line, what);
    abort();
}

void fuzz_stderr_off(void) {
    const char *v = getenv("NUMAFIT_FUZZ_VERBOSE");
    output_setup();
    if (silenced || (v && *v && strcmp(v, "0") != 0))
        return;
    if (devnull < 0 && (devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
        return;
    fflush(stderr);
    if (dup2(devnull, STDERR_FILENO) >= 0)
        silenced = 1;
}

void fuzz_stderr_on(void) {
    if (!silenced)
        return;
    fflush(stderr);
    dup2(real_stderr, STDERR_FILENO);
    silenced = 0;
}

/* ------------------------------------------------------------------ errors */

void fuzz_error_prefill(numafit_error_t *err) {
    memset(err, 'x', sizeof(*err));
}

void fuzz_check_error(const numafit_error_t *err) {
    FUZZ_ASSERT(memchr(err->text, '\0', sizeof(err->text)) != NULL);
    FUZZ_ASSERT(memchr(err->where, '\0', sizeof(err->where)) != NULL);
    FUZZ_ASSERT(memchr(err->exception, '\0', sizeof(err->exception)) != NULL);
}

void fuzz_check_failure(int rc, const numafit_error_t *err, const void *ret_obj) {
    fuzz_check_error(err);
    if (!(rc == -EBADMSG || rc == -EINVAL || rc == -ERANGE || rc == -ENOMEM || rc == -ENOENT ||
          rc == -EACCES || rc == -EIO || rc == -E2BIG))
        fuzz_note("unexpected error %d (%s): %s", rc, strerror(-rc), err->text);
    FUZZ_ASSERT(rc == -EBADMSG || rc == -EINVAL || rc == -ERANGE || rc == -ENOMEM ||
                rc == -ENOENT || rc == -EACCES || rc == -EIO || rc == -E2BIG);
    FUZZ_ASSERT(ret_obj == NULL);
    FUZZ_ASSERT(err->text[0] != '\0' || err->exception[0] != '\0');
}

void fuzz_check_json_text(const char *text) {
    json_error_t jerr;
    json_t *j = json_loads(text, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
    if (!j)
        fuzz_note("invalid JSON from the library: %s\n%s", jerr.text, text);
    FUZZ_ASSERT(j != NULL);
    json_decref(j);
}

/* ------------------------------------------------------------------ fixed requests */

/* Small requests fitted on every host: one of each policy family. */
static const char *const flavors[] = {
    /* dedicated, thread policy prefer */
    "{\"vcpus\":2,\"memory_mb\":512,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\"}}",
    /* whole cores, huge pages */
    "{\"vcpus\":2,\"memory_mb\":1024,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\","
    "\"hw:cpu_thread_policy\":\"isolate\",\"hw:mem_page_size\":\"large\"}}",
    /* two shared guest cells, any page size */
    "{\"vcpus\":4,\"memory_mb\":1024,\"extra_specs\":{\"hw:numa_nodes\":\"2\","
    "\"hw:mem_page_size\":\"any\"}}",
    /* siblings required, an emulator thread pCPU, 2 MiB pages */
    "{\"vcpus\":4,\"memory_mb\":2048,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\","
    "\"hw:cpu_thread_policy\":\"require\",\"hw:emulator_threads_policy\":\"isolate\","
    "\"hw:mem_page_size\":\"2048\"}}",
    /* mixed: one shared vCPU, three dedicated */
    "{\"vcpus\":4,\"memory_mb\":1024,\"extra_specs\":{\"hw:cpu_policy\":\"mixed\","
    "\"hw:cpu_dedicated_mask\":\"^0\"}}",
};
#define NFLAVORS (sizeof(flavors) / sizeof(flavors[0]))

static numafit_request_t *requests[NFLAVORS];
static numafit_options_t *options, *headroom;

static void setup(void) {
    static int done;
    if (done)
        return;
    done = 1;
    for (size_t i = 0; i < NFLAVORS; i++) {
        numafit_error_t err;
        int r = numafit_request_new(flavors[i], strlen(flavors[i]), NULL, 0, 0, &requests[i], &err);
        if (r != 1)
            fuzz_note("fixed request %zu: %d %s", i, r, err.text);
        FUZZ_ASSERT(r == 1);
    }
    FUZZ_ASSERT(numafit_options_new(&options) == 0);
    /* keep a hostile host from making one input take seconds */
    FUZZ_ASSERT(numafit_options_set_budget(options, 200000) == 0);
    /* the headroom strategy (not nova's) with the fixed requests as its mix */
    {
        double w[NFLAVORS];
        for (size_t i = 0; i < NFLAVORS; i++)
            w[i] = (double)(i + 1);
        FUZZ_ASSERT(numafit_options_dup(options, &headroom) == 0);
        FUZZ_ASSERT(numafit_options_set_strategy(headroom, NUMAFIT_STRATEGY_HEADROOM) == 0);
        FUZZ_ASSERT(numafit_options_set_headroom_mix(headroom,
                                                     (const numafit_request_t *const *)requests, w,
                                                     NFLAVORS, NULL) == 0);
    }
}

const numafit_options_t *fuzz_default_options(void) {
    setup();
    return options;
}

/* ------------------------------------------------------------------ hosts */

char *fuzz_host_json(const numafit_host_t *host) {
    numafit_error_t err;
    char *json = NULL;
    int r = numafit_host_to_json(host, 0, &json, &err);
    if (r < 0)
        fuzz_note("numafit_host_to_json: %d %s", r, err.text);
    FUZZ_ASSERT(r == 0 && json != NULL);
    return json;
}

/* The host's JSON is still `expect`, byte for byte. */
static void check_host_is(const numafit_host_t *host, const char *expect, const char *why) {
    char *now = fuzz_host_json(host);
    if (strcmp(now, expect) != 0)
        fuzz_note("%s: the host changed\nbefore: %s\nafter:  %s", why, expect, now);
    FUZZ_ASSERT(strcmp(now, expect) == 0);
    numafit_free(now);
}

/* Release p from h: it must succeed (the claim before it did). */
static void release_ok(numafit_host_t *h, const numafit_placement_t *p, const char *what) {
    numafit_error_t err;
    int r;
    fuzz_error_prefill(&err);
    r = numafit_host_release(h, p, 0, &err);
    fuzz_check_error(&err);
    if (r < 0)
        fuzz_note("%s: %d %s %s", what, r, err.exception, err.text);
    FUZZ_ASSERT(r == 0);
}

/* host -> JSON (json_flags) -> host -> JSON: the same text, an equal host. */
static void check_round_trip(const numafit_host_t *host, unsigned load_flags, unsigned json_flags) {
    numafit_host_t *again = NULL;
    numafit_error_t err;
    char *json = NULL, *json2 = NULL;
    unsigned dist;
    int r;

    fuzz_error_prefill(&err);
    r = numafit_host_to_json(host, json_flags, &json, &err);
    fuzz_check_error(&err);
    if (r < 0)
        fuzz_note("numafit_host_to_json: %d %s", r, err.text);
    FUZZ_ASSERT(r == 0 && json != NULL);
    fuzz_error_prefill(&err);
    r = numafit_host_new_from_json(json, strlen(json), load_flags, &again, &err);
    fuzz_check_error(&err);
    if (r < 0)
        fuzz_note("the host's JSON does not read back: %d %s at %s\n%s", r, err.text, err.where,
                  json);
    FUZZ_ASSERT(r == 0 && again != NULL);
    FUZZ_ASSERT(numafit_host_to_json(again, json_flags, &json2, NULL) == 0);
    if (strcmp(json, json2) != 0)
        fuzz_note("to_json/from_json/to_json differs\nfirst:  %s\nsecond: %s", json, json2);
    FUZZ_ASSERT(strcmp(json, json2) == 0);
    /* equal too, unless discovery gave a distance matrix (not in nova's JSON) */
    if (numafit_host_get_distance(host, 0, 0, &dist) == -ENOENT)
        FUZZ_ASSERT(numafit_host_equal(host, again) == 1);
    numafit_free(json);
    numafit_free(json2);
    numafit_host_free(again);
}

static void check_cells(const numafit_host_t *host) {
    int ncells = numafit_host_get_cell_count(host);
    FUZZ_ASSERT(ncells >= 0 && ncells <= NUMAFIT_MAX_CELLS);
    for (int k = 0; k < ncells; k++) {
        int id = numafit_host_get_cell_id(host, (unsigned)k);
        FUZZ_ASSERT(id >= 0 && id <= NUMAFIT_CELL_ID_MAX);
    }
    FUZZ_ASSERT(numafit_host_get_cell_id(host, (unsigned)ncells) == -ENOENT);
}

/* ------------------------------------------------------------------ placements */

/* What any placement must be, read from its plain JSON: page sizes are
 * powers of two of at least 4 KiB (or null), and no pCPU is used twice
 * (vCPU pins and emulator pCPUs, over all cells). */
static void check_placement_sane(const char *plain) {
    json_t *cells = json_loads(plain, 0, NULL), *cell;
    static unsigned char seen[NUMAFIT_CPU_MAX + 1];
    size_t i;

    FUZZ_ASSERT(json_is_array(cells));
    memset(seen, 0, sizeof(seen));
    json_array_foreach(cells, i, cell) {
        json_t *ps = json_object_get(cell, "pagesize"), *pin, *v;
        const char *key;
        size_t k;
        if (!json_is_null(ps)) {
            json_int_t kb = json_integer_value(ps);
            if (!json_is_integer(ps) || kb < 4 || (kb & (kb - 1)) != 0)
                fuzz_note("placement page size is not a power of two >= 4 KiB: %s", plain);
            FUZZ_ASSERT(json_is_integer(ps) && kb >= 4 && (kb & (kb - 1)) == 0);
        }
        pin = json_object_get(cell, "cpu_pinning");
        json_object_foreach(pin, key, v) {
            json_int_t c = json_integer_value(v);
            FUZZ_ASSERT(json_is_integer(v) && c >= 0 && c <= NUMAFIT_CPU_MAX);
            if (seen[c])
                fuzz_note("placement uses pCPU %lld twice: %s", (long long)c, plain);
            FUZZ_ASSERT(!seen[c]);
            seen[c] = 1;
        }
        json_array_foreach(json_object_get(cell, "cpuset_reserved"), k, v) {
            json_int_t c = json_integer_value(v);
            FUZZ_ASSERT(json_is_integer(v) && c >= 0 && c <= NUMAFIT_CPU_MAX);
            if (seen[c])
                fuzz_note("placement uses pCPU %lld twice: %s", (long long)c, plain);
            FUZZ_ASSERT(!seen[c]);
            seen[c] = 1;
        }
    }
    json_decref(cells);
}

void fuzz_check_placement_json(const numafit_placement_t *p) {
    static const unsigned forms[] = {0, NUMAFIT_PLACEMENT_JSON_NOVA};
    numafit_placement_t *fixed = NULL;

    /* a fixed uuid: the nova form otherwise gets a fresh one each time */
    FUZZ_ASSERT(numafit_placement_dup(p, &fixed) == 0 && fixed != NULL);
    FUZZ_ASSERT(numafit_placement_set_uuid(fixed, "a4c0fd2b-24d5-4d4e-9b0c-2d2f3e1a5b6c") == 0);
    for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
        numafit_placement_t *again = NULL;
        numafit_error_t err;
        char *json = NULL, *json2 = NULL;
        int r;

        fuzz_error_prefill(&err);
        r = numafit_placement_to_json(fixed, forms[f], &json, &err);
        fuzz_check_error(&err);
        if (r < 0)
            fuzz_note("numafit_placement_to_json: %d %s", r, err.text);
        FUZZ_ASSERT(r == 0 && json != NULL);
        fuzz_check_json_text(json);
        if (forms[f] == 0)
            check_placement_sane(json);
        fuzz_error_prefill(&err);
        r = numafit_placement_new_from_json(json, strlen(json), 0, &again, &err);
        fuzz_check_error(&err);
        if (r < 0)
            fuzz_note("the placement's JSON does not read back: %d %s at %s\n%s", r, err.text,
                      err.where, json);
        FUZZ_ASSERT(r == 0 && again != NULL);
        FUZZ_ASSERT(numafit_placement_to_json(again, forms[f], &json2, NULL) == 0);
        if (strcmp(json, json2) != 0)
            fuzz_note("placement to_json/from_json/to_json differs\nfirst:  %s\nsecond: %s", json,
                      json2);
        FUZZ_ASSERT(strcmp(json, json2) == 0);
        numafit_free(json);
        numafit_free(json2);
        numafit_placement_free(again);
    }
    numafit_placement_free(fixed);
}

/* The state a check compares against: the host's JSON text when the check
 * is a full one (byte for byte, the promise made to callers), else a copy
 * compared with numafit_host_equal() (it compares every field the JSON is
 * written from, at a fraction of the cost: most checks of an input use it,
 * see fuzz_check_host()). */
struct snap {
    char *json;
    numafit_host_t *copy;
};

static void snap_take(struct snap *s, const numafit_host_t *host, int full) {
    s->json = full ? fuzz_host_json(host) : NULL;
    s->copy = NULL;
    if (!full)
        FUZZ_ASSERT(numafit_host_dup(host, &s->copy) == 0 && s->copy != NULL);
}

static void snap_free(struct snap *s) {
    numafit_free(s->json);
    numafit_host_free(s->copy);
}

/* The host is still the snapshot's state. */
static void check_host_same(const numafit_host_t *host, const struct snap *s, const char *why) {
    if (s->json) {
        check_host_is(host, s->json, why);
        return;
    }
    if (numafit_host_equal(host, s->copy) != 1) {
        char *a = fuzz_host_json(s->copy), *b = fuzz_host_json(host);
        fuzz_note("%s: the host changed\nbefore: %s\nafter:  %s", why, a, b);
        numafit_free(a);
        numafit_free(b);
    }
    FUZZ_ASSERT(numafit_host_equal(host, s->copy) == 1);
}

/* fuzz_check_claim() on a host in the state `before`; full: the claimed
 * host's JSON round trip and byte-for-byte comparisons (the costly part). */
static int check_claim(const numafit_host_t *host, const struct snap *before, unsigned load_flags,
                       const numafit_placement_t *p, int must_claim, int full) {
    numafit_host_t *work = NULL;
    numafit_error_t err;
    struct snap claimed;
    int r, r2;

    FUZZ_ASSERT(numafit_host_dup(host, &work) == 0 && work != NULL);

    fuzz_error_prefill(&err);
    r = numafit_host_claim(work, p, 0, &err);
    fuzz_check_error(&err);
    if (r < 0) {
        if (must_claim)
            fuzz_note("a placement numafit_fit() gave is not claimable: %d %s %s", r, err.exception,
                      err.text);
        FUZZ_ASSERT(!must_claim);
        FUZZ_ASSERT(err.text[0] != '\0' || err.exception[0] != '\0');
        check_host_same(work, before, "a refused claim");
        goto out;
    }
    FUZZ_ASSERT(r == 0);
    snap_take(&claimed, work, full);
    if (full)
        check_round_trip(work, load_flags, 0);

    /* the same placement again: refused (pinned CPUs, full pages) without a
     * trace, or accepted (shared CPUs) and then released again */
    fuzz_error_prefill(&err);
    r2 = numafit_host_claim(work, p, 0, &err);
    fuzz_check_error(&err);
    if (r2 < 0) {
        check_host_same(work, &claimed, "a refused second claim");
    } else {
        FUZZ_ASSERT(r2 == 0);
        release_ok(work, p, "release after a second claim");
        check_host_same(work, &claimed, "claim then release");
    }

    release_ok(work, p, "release after claim");
    check_host_same(work, before, "claim then release");

    /* releasing again: when refused, nothing changes */
    fuzz_error_prefill(&err);
    r2 = numafit_host_release(work, p, 0, &err);
    fuzz_check_error(&err);
    if (r2 < 0)
        check_host_same(work, before, "a refused release");
    snap_free(&claimed);
out:
    numafit_host_free(work);
    return r;
}

int fuzz_check_claim(const numafit_host_t *host, unsigned load_flags, const numafit_placement_t *p,
                     int must_claim) {
    struct snap before;
    int r;
    snap_take(&before, host, 1);
    r = check_claim(host, &before, load_flags, p, must_claim, 1);
    snap_free(&before);
    return r;
}

/* hw:cpu_thread_policy=isolate: no two vCPUs on one thread-sibling set of
 * the host cell they are placed on (nova gives each vCPU a whole core).  A
 * cell's sibling sets describe that cell's CPUs: a set of another cell that
 * names them (a host may hold such sets; nova and the claim read a cell's
 * own) says nothing about them.  A CPU is in one cell's pcpuset only, so
 * the pin says the cell. */
static void check_isolated(const numafit_host_t *host, const numafit_placement_t *p, int vcpus) {
    int ncells = numafit_host_get_cell_count(host);

    for (int k = 0; k < ncells; k++) {
        numafit_cpuset_t *own = NULL;
        FUZZ_ASSERT(numafit_host_get_cell_cpus(host, (unsigned)k, NUMAFIT_CELL_CPUS_DEDICATED, 0,
                                               &own) == 0);
        for (unsigned sib = 0;; sib++) {
            numafit_cpuset_t *set = NULL;
            int r = numafit_host_get_cell_siblings(host, (unsigned)k, sib, 0, &set), first = -1;
            if (r == -ENOENT)
                break;
            FUZZ_ASSERT(r == 0);
            for (int v = 0; v < vcpus; v++) {
                int pin = numafit_placement_get_pin(p, (unsigned)v);
                if (pin < 0 || numafit_cpuset_contains(own, (unsigned)pin) != 1 ||
                    numafit_cpuset_contains(set, (unsigned)pin) != 1)
                    continue;
                if (first >= 0)
                    fuzz_note("isolate: vCPUs %d and %d are on one sibling set of cell %d "
                              "(pCPUs %d and %d)",
                              first, v, numafit_host_get_cell_id(host, (unsigned)k),
                              numafit_placement_get_pin(p, (unsigned)first), pin);
                FUZZ_ASSERT(first < 0);
                first = v;
            }
            numafit_cpuset_free(set);
        }
        numafit_cpuset_free(own);
    }
}

/* fuzz_check_fit() on a host in the state `before`; full: the placement's
 * JSON forms and the claim's full checks (see check_claim()). */
static int check_fit(const numafit_host_t *host, const struct snap *before, unsigned load_flags,
                     const numafit_request_t *req, const numafit_options_t *opt, int full) {
    numafit_placement_t *p = NULL;
    numafit_error_t err;
    int r;

    if (!opt)
        opt = fuzz_default_options();
    fuzz_error_prefill(&err);
    r = numafit_fit(host, req, opt, 0, &p, &err);
    fuzz_check_error(&err);
    if (r <= 0) {
        FUZZ_ASSERT(p == NULL);
        FUZZ_ASSERT(r == 0 || r == -E2BIG || r == -ENOMEM || r == -EINVAL);
        if (r == 0)
            FUZZ_ASSERT(err.code >= NUMAFIT_E_NOFIT && err.code <= NUMAFIT_E_NOFIT_NETWORK);
        goto out;
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
    if (full)
        fuzz_check_placement_json(p);
    if (numafit_request_get_thread_policy(req) == NUMAFIT_THREAD_POLICY_ISOLATE)
        check_isolated(host, p, numafit_request_get_vcpus(req));
    check_claim(host, before, load_flags, p, 1, full);
    numafit_placement_free(p);
out:
    check_host_same(host, before, "numafit_fit");
    return r;
}

int fuzz_check_fit(const numafit_host_t *host, unsigned load_flags, const numafit_request_t *req,
                   const numafit_options_t *opt) {
    struct snap before;
    int r;
    snap_take(&before, host, 1);
    r = check_fit(host, &before, load_flags, req, opt, 1);
    snap_free(&before);
    return r;
}

/* FNV-1a of text, reduced to 0..n-1. */
static size_t host_pick(const char *text, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (; *text; text++)
        h = (h ^ (unsigned char)*text) * 1099511628211ull;
    return (size_t)(h % n);
}

/* numafit_host_headroom's count of request i (by cells for a one-cell
 * request) is the plain one: fitted with spread and claimed one after the
 * other on a copy, at most the cap. Skipped past the work budget. */
static void check_headroom_count(const numafit_host_t *host, size_t i) {
    uint64_t counts[NFLAVORS], plain = 0;
    numafit_host_t *copy = NULL;
    int rc = numafit_host_headroom(host, headroom, 0, counts, NFLAVORS, NULL);
    if (rc == -E2BIG || rc == -ENOMEM)
        return;
    FUZZ_ASSERT(rc == 0);
    if (numafit_host_dup(host, &copy) < 0)
        return;
    while (plain < NUMAFIT_HEADROOM_CAP) {
        numafit_placement_t *p = NULL;
        rc = numafit_fit(copy, requests[i], options, 0, &p, NULL);
        if (rc == 1 && numafit_host_claim(copy, p, 0, NULL) == 0)
            plain++;
        else if (rc == 1)
            rc = 0; /* a claim the counters refuse: no more room */
        numafit_placement_free(p);
        if (rc != 1)
            break;
    }
    numafit_host_free(copy);
    if (rc == -E2BIG || rc == -ENOMEM)
        return;
    if (counts[i] != plain)
        fuzz_note("request %zu: headroom count %llu, plain %llu", i, (unsigned long long)counts[i],
                  (unsigned long long)plain);
    FUZZ_ASSERT(counts[i] == plain);
}

void fuzz_check_host(const numafit_host_t *host, unsigned load_flags,
                     const numafit_options_t *opt) {
    struct snap full, quick;

    setup();
    FUZZ_ASSERT(host != NULL);
    check_cells(host);
    check_round_trip(host, load_flags, 0);
    check_round_trip(host, load_flags, NUMAFIT_HOST_JSON_STRING);

    snap_take(&quick, host, 0);
    FUZZ_ASSERT(numafit_host_equal(host, quick.copy) == 1);
    FUZZ_ASSERT(numafit_host_equal(quick.copy, host) == 1);

    /* the full checks (JSON byte for byte, the claimed host's round trip,
     * the placement's JSON) for the first request that fits; the others
     * compare with numafit_host_equal() */
    snap_take(&full, host, 1);
    for (size_t i = 0, fitted = 0; i < NFLAVORS; i++)
        fitted +=
            check_fit(host, fitted ? &quick : &full, load_flags, requests[i], opt, !fitted) == 1;
    /* the headroom strategy: its placements pass the same checks (valid,
     * claimable), and it fits exactly when nova's spread does. It scores
     * every candidate placement by fitting the whole mix on host copies
     * (most of an input's time), so one request per host: the one a hash
     * of the host's JSON picks (the same for a replay of the input; over a
     * campaign every request meets every kind of host). The mix scoring
     * still fits all five requests. */
    if (!opt) {
        size_t i = host_pick(full.json, NFLAVORS);
        int s = numafit_fit(host, requests[i], options, 0, NULL, NULL);
        int h = check_fit(host, &quick, load_flags, requests[i], headroom, 0);
        if ((s == 0 || s == 1) && (h == 0 || h == 1)) {
            if (s != h)
                fuzz_note("request %zu: spread %d, headroom %d", i, s, h);
            FUZZ_ASSERT(s == h);
        }
        check_headroom_count(host, i);
    }
    snap_free(&full);
    snap_free(&quick);
}
