/*
 * Invariants every fuzz target in tests/fuzz checks on what it gets from the
 * library (tests/fuzz/invariants.c). A violated invariant prints a message
 * naming it and calls abort(), which libFuzzer and the replay programs
 * report as a crash.
 *
 * For a host (fuzz_check_host):
 *  - its cells are within the model's limits;
 *  - to_json, then new_from_json, then to_json gives the same text, byte for
 *    byte (plain and DB string forms), and an equal host; dup too;
 *  - for the fixed requests, with the default options, the headroom
 *    strategy (NUMAFIT_STRATEGY_HEADROOM, the fixed requests as its mix)
 *    passes the same fit checks and fits exactly when spread fits (unless
 *    either exceeds its work budget);
 *  - for a few fixed requests (and any the target adds, fuzz_check_fit):
 *    every placement numafit_fit() returns is claimable on that host (and,
 *    for thread policy isolate, has no two vCPUs on one sibling set); claim
 *    then release restores the host JSON byte for byte; a refused claim or
 *    release changes nothing (host JSON identical); the placement's JSON
 *    reads back to the same JSON, its page sizes are powers of two and no
 *    pCPU is used twice; fitting never modifies the host.
 */
#ifndef NUMAFIT_FUZZ_INVARIANTS_H
#define NUMAFIT_FUZZ_INVARIANTS_H

#include <stddef.h>
#include <stdint.h>

#include <numafit.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort with file, line and the condition when cond is false. */
#define FUZZ_ASSERT(cond)                                                                          \
    do {                                                                                           \
        if (!(cond))                                                                               \
            fuzz_fail(__FILE__, __LINE__, #cond);                                                  \
    } while (0)

void fuzz_fail(const char *file, int line, const char *what) __attribute__((noreturn));
/* A note printed before an abort (to the real stderr, also while silenced). */
void fuzz_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Fill err with garbage before a call: the library must overwrite it. */
void fuzz_error_prefill(numafit_error_t *err);
/* err's strings are NUL-terminated. */
void fuzz_check_error(const numafit_error_t *err);
/* A failed constructor: a known negative errno, *ret untouched (NULL), text. */
void fuzz_check_failure(int rc, const numafit_error_t *err, const void *ret_obj);

/* Fit options used by the checks: default rules, a work budget that keeps a
 * hostile input from taking seconds. Owned by invariants.c. */
const numafit_options_t *fuzz_default_options(void);

/* Every invariant above on a host loaded with load_flags (flags of
 * numafit_host_new_from_json that read its JSON back), fitting the fixed
 * requests with opt (NULL: fuzz_default_options()). */
void fuzz_check_host(const numafit_host_t *host, unsigned load_flags, const numafit_options_t *opt);
/* The fit invariants for one request. Returns numafit_fit()'s result. */
int fuzz_check_fit(const numafit_host_t *host, unsigned load_flags, const numafit_request_t *req,
                   const numafit_options_t *opt);
/* A placement from elsewhere (JSON): claim on a copy of host either is
 * refused and changes nothing, or succeeds and release restores the host
 * JSON byte for byte. must_claim: the placement came from numafit_fit() on
 * this host, so the claim has to succeed. Returns the claim's result. */
int fuzz_check_claim(const numafit_host_t *host, unsigned load_flags, const numafit_placement_t *p,
                     int must_claim);
/* The placement's page sizes are powers of two >= 4 KiB, no pCPU is used
 * twice, and its JSON (plain and nova forms) reads back to the same JSON. */
void fuzz_check_placement_json(const numafit_placement_t *p);
/* text is one JSON value (jansson, duplicates refused). */
void fuzz_check_json_text(const char *text);

/* The host's JSON (numafit_free), never NULL. */
char *fuzz_host_json(const numafit_host_t *host);

/* Silence stderr (fd 2) while CLI code that prints its errors runs; the
 * invariant messages and the sanitizers' reports still go to the real
 * stderr. NUMAFIT_FUZZ_VERBOSE=1 in the environment keeps it open. */
void fuzz_stderr_off(void);
void fuzz_stderr_on(void);

#endif
