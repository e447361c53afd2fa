/*
 * Concurrency stress of the library's thread contract (no global mutable
 * state; const inputs may be shared): threads fitting on one shared
 * read-only host and comparing with the answers computed alone, threads
 * filling and draining their own copies, and threads claiming and releasing
 * on one shared host under a mutex (what the Python binding's lock does).
 * Run by make check; .ci/run also builds it with ThreadSanitizer.
 *
 *   tests/check_threads [ROUNDS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numafit.h>

#define NREQ      5
#define MAXPLACED 256

static const char *const flavors[NREQ] = {
    "{\"vcpus\":2,\"memory_mb\":1024,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\"}}",
    "{\"vcpus\":4,\"memory_mb\":2048,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\","
    "\"hw:cpu_thread_policy\":\"isolate\",\"hw:emulator_threads_policy\":\"isolate\"}}",
    "{\"vcpus\":4,\"memory_mb\":4096,\"extra_specs\":{\"hw:numa_nodes\":\"2\","
    "\"hw:mem_page_size\":\"1GB\"}}",
    "{\"vcpus\":2,\"memory_mb\":512,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\","
    "\"hw:cpu_thread_policy\":\"require\"}}",
    "{\"vcpus\":8,\"memory_mb\":2048,\"extra_specs\":{\"hw:mem_page_size\":\"2MB\"}}",
};

static numafit_host_t *shared_ro; /* read by every reader thread */
static numafit_host_t *shared_rw; /* claimed under lock */
static pthread_mutex_t rw_lock = PTHREAD_MUTEX_INITIALIZER;
static numafit_request_t *reqs[NREQ];
static char *expected[NREQ]; /* placement JSON on shared_ro, or NULL */
static int rounds = 200;
static int failures;
static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;

static void fail(const char *what) {
    pthread_mutex_lock(&fail_lock);
    failures++;
    fprintf(stderr, "check_threads: %s\n", what);
    pthread_mutex_unlock(&fail_lock);
}

static char *fit_json(const numafit_host_t *h, const numafit_request_t *r) {
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    char *s = NULL;
    if (numafit_fit(h, r, NULL, 0, &p, &e) != 1)
        return NULL;
    if (numafit_placement_to_json(p, 0, &s, &e) < 0)
        s = NULL;
    numafit_placement_free(p);
    return s;
}

static void *reader(void *arg) {
    (void)arg;
    for (int i = 0; i < rounds; i++) {
        int k = i % NREQ;
        char *s = fit_json(shared_ro, reqs[k]);
        if ((s == NULL) != (expected[k] == NULL) || (s && strcmp(s, expected[k])))
            fail("a fit on the shared host differs from the answer computed alone");
        numafit_free(s);
    }
    return NULL;
}

/* Fit and claim on h, the flavors in turn, until none fits; returns how
 * many placements went to placed[]. */
static int fill(numafit_host_t *h, numafit_placement_t **placed) {
    int n = 0, f = 0;
    for (int miss = 0; miss < NREQ && n < MAXPLACED; f = (f + 1) % NREQ) {
        numafit_placement_t *p = NULL;
        numafit_error_t e;
        if (numafit_fit(h, reqs[f], NULL, 0, &p, &e) != 1) {
            miss++;
            continue;
        }
        if (numafit_host_claim(h, p, 0, &e) < 0) {
            fail("a fit on an own copy was not claimable");
            numafit_placement_free(p);
            return n;
        }
        placed[n++] = p;
        miss = 0;
    }
    return n;
}

static void *owner(void *arg) {
    (void)arg;
    numafit_placement_t *placed[MAXPLACED];
    for (int i = 0; i < rounds / 10 + 1; i++) {
        numafit_host_t *mine = NULL;
        if (numafit_host_dup(shared_ro, &mine) < 0) {
            fail("dup failed");
            return NULL;
        }
        int n = fill(mine, placed);
        if (n == 0)
            fail("nothing fitted on a fresh copy");
        for (int k = n - 1; k >= 0; k--) {
            numafit_error_t e;
            if (numafit_host_release(mine, placed[k], 0, &e) < 0)
                fail("release of an own claim failed");
            numafit_placement_free(placed[k]);
        }
        if (numafit_host_equal(mine, shared_ro) != 1)
            fail("a filled and drained copy differs from the original");
        numafit_host_free(mine);
    }
    return NULL;
}

static void *locked(void *arg) {
    (void)arg;
    for (int i = 0; i < rounds; i++) {
        numafit_placement_t *p = NULL;
        numafit_error_t e;
        int fitted;
        pthread_mutex_lock(&rw_lock);
        fitted = numafit_fit(shared_rw, reqs[i % NREQ], NULL, 0, &p, &e) == 1;
        if (fitted && numafit_host_claim(shared_rw, p, 0, &e) < 0)
            fail("a fit claimed under the lock was refused");
        pthread_mutex_unlock(&rw_lock);
        if (!fitted)
            continue;
        pthread_mutex_lock(&rw_lock);
        if (numafit_host_release(shared_rw, p, 0, &e) < 0)
            fail("a release under the lock was refused");
        pthread_mutex_unlock(&rw_lock);
        numafit_placement_free(p);
    }
    return NULL;
}

int main(int argc, char **argv) {
    numafit_error_t e;
    pthread_t t[8];
    if (argc > 1)
        rounds = atoi(argv[1]) > 0 ? atoi(argv[1]) : rounds;
    if (numafit_host_new_synthetic("2x8c2t 2cells 1G:8 2M:2048 mem:64G", 0, &shared_ro, &e) < 0 ||
        numafit_host_dup(shared_ro, &shared_rw) < 0) {
        fprintf(stderr, "check_threads: host: %s\n", e.text);
        return 1;
    }
    for (int k = 0; k < NREQ; k++) {
        if (numafit_request_new(flavors[k], strlen(flavors[k]), NULL, 0, 0, &reqs[k], &e) != 1) {
            fprintf(stderr, "check_threads: request %d: %s\n", k, e.text);
            return 1;
        }
        expected[k] = fit_json(shared_ro, reqs[k]);
    }
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, reader, NULL);
    for (int i = 4; i < 6; i++)
        pthread_create(&t[i], NULL, owner, NULL);
    for (int i = 6; i < 8; i++)
        pthread_create(&t[i], NULL, locked, NULL);
    for (int i = 0; i < 8; i++)
        pthread_join(t[i], NULL);
    if (numafit_host_equal(shared_rw, shared_ro) != 1)
        fail("the shared host did not return to its start after claims and releases");
    for (int k = 0; k < NREQ; k++) {
        numafit_request_free(reqs[k]);
        numafit_free(expected[k]);
    }
    numafit_host_free(shared_ro);
    numafit_host_free(shared_rw);
    printf("check_threads: 8 threads, %d rounds: %d failures\n", rounds, failures);
    printf("%d passed, %d failed\n", failures ? 0 : 1, failures ? 1 : 0);
    return failures ? 1 : 0;
}
