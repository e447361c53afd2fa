/*
 * libFuzzer target: placement inventories (numafit_inventory_new_from_json)
 * and the nova.conf options of numafit_inventory_new_from_host.
 *
 * Input: INVENTORY_JSON [ NUL NOVA_CONF ].
 * Invariants:
 *  - a refused input leaves *ret untouched and fills the error text;
 *  - an accepted inventory writes JSON that reads back to an equal
 *    inventory and the same text; a dup is equal;
 *  - the trait checks answer 0 or 1 for the bits of
 *    numafit_resources_from_flavor() (an SMT host refuses SMT_FORBIDDEN
 *    only, a host without SMT SMT_REQUIRED only) and -EINVAL for others;
 *  - for amounts taken from the records themselves (each class's min_unit,
 *    max_unit, step_size, and 1): check says 1 exactly when claim
 *    succeeds; a refused claim changes nothing (-ENOSPC); claim then
 *    release restores the inventory;
 *  - the nova.conf text on two fixed hosts (legacy and both CPU sets),
 *    with the accepted inventory as placement's current one: refused with
 *    a text, or an inventory whose records pass the same checks, whose
 *    usage is the current one's and which round-trips through JSON.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numafit.h>

#include "invariants.h"

static void check_err(const numafit_error_t *e) {
    FUZZ_ASSERT(memchr(e->text, '\0', sizeof(e->text)) != NULL);
    FUZZ_ASSERT(memchr(e->where, '\0', sizeof(e->where)) != NULL);
    FUZZ_ASSERT(e->text[0] != '\0');
}

/* JSON written, read back equal, written again the same. */
static void check_round_trip(const numafit_inventory_t *inv) {
    numafit_inventory_t *back = NULL, *copy = NULL;
    char *a = NULL, *b = NULL;
    numafit_error_t e;
    FUZZ_ASSERT(numafit_inventory_to_json(inv, 0, &a, &e) == 0);
    if (numafit_inventory_new_from_json(a, strlen(a), 0, &back, &e) != 0) {
        fprintf(stderr, "inventory JSON refused: %s: %s\n%s\n", e.where, e.text, a);
        FUZZ_ASSERT(0);
    }
    FUZZ_ASSERT(numafit_inventory_equal(inv, back) == 1);
    FUZZ_ASSERT(numafit_inventory_to_json(back, 0, &b, NULL) == 0);
    FUZZ_ASSERT(strcmp(a, b) == 0);
    FUZZ_ASSERT(numafit_inventory_dup(inv, &copy) == 0);
    FUZZ_ASSERT(numafit_inventory_equal(inv, copy) == 1);
    numafit_free(a);
    numafit_free(b);
    numafit_inventory_free(back);
    numafit_inventory_free(copy);
}

static void check_traits(const numafit_inventory_t *inv) {
    int t = numafit_inventory_get_traits(inv);
    numafit_error_t e;
    FUZZ_ASSERT(t == 0 || t == NUMAFIT_TRAIT_HW_CPU_HYPERTHREADING);
    for (unsigned bits = 0; bits < 8; bits++) {
        int r = numafit_inventory_check(inv, NULL, 0, bits, &e);
        bool want = !((bits & NUMAFIT_RESOURCES_SMT_REQUIRED) && !t) &&
                    !((bits & NUMAFIT_RESOURCES_SMT_FORBIDDEN) && t);
        FUZZ_ASSERT(r == (want ? 1 : 0));
        if (!r)
            FUZZ_ASSERT(e.code == NUMAFIT_E_NOFIT_INVENTORY);
    }
    FUZZ_ASSERT(numafit_inventory_check(inv, NULL, 0, 8, &e) == -EINVAL);
}

/* check == claim; a refused claim changes nothing; claim + release restores. */
static void check_claims(const numafit_inventory_t *inv) {
    for (int k = 0; k < 4; k++) {
        int64_t amounts[NUMAFIT_RC_COUNT];
        numafit_inventory_t *work = NULL;
        numafit_error_t e;
        for (int i = 0; i < NUMAFIT_RC_COUNT; i++) {
            numafit_inventory_class_t c;
            int has = numafit_inventory_get_class(inv, i, &c);
            FUZZ_ASSERT(has == 0 || has == 1);
            amounts[i] = !has     ? (k == 3 && i == 0)
                         : k == 0 ? c.min_unit
                         : k == 1 ? c.max_unit
                         : k == 2 ? c.step_size
                                  : 1;
        }
        FUZZ_ASSERT(numafit_inventory_dup(inv, &work) == 0);
        int fits = numafit_inventory_check(work, amounts, NUMAFIT_RC_COUNT, 0, &e);
        FUZZ_ASSERT(fits == 0 || fits == 1);
        if (!fits) {
            check_err(&e);
            FUZZ_ASSERT(e.code == NUMAFIT_E_NOFIT_INVENTORY);
        }
        int r = numafit_inventory_claim(work, amounts, NUMAFIT_RC_COUNT, &e);
        FUZZ_ASSERT(fits ? r == 0 : r == -ENOSPC);
        if (!fits) {
            FUZZ_ASSERT(numafit_inventory_equal(work, inv) == 1);
        } else {
            FUZZ_ASSERT(numafit_inventory_release(work, amounts, NUMAFIT_RC_COUNT, &e) == 0);
            FUZZ_ASSERT(numafit_inventory_equal(work, inv) == 1);
        }
        numafit_inventory_free(work);
    }
}

static void check_from_host(const char *spec, const char *conf, size_t len,
                            const numafit_inventory_t *current) {
    numafit_host_t *h = NULL;
    for (unsigned flags = 0; flags < 2; flags++) {
        numafit_inventory_t *inv = (numafit_inventory_t *)&h, *const sentinel = inv;
        numafit_error_t e;
        if (!h)
            FUZZ_ASSERT(numafit_host_new_synthetic(spec, 0, &h, NULL) == 0);
        memset(&e, 'x', sizeof(e));
        int r = numafit_inventory_new_from_host(h, conf, len, 100, current, flags, &inv, &e);
        if (r < 0) {
            FUZZ_ASSERT(r == -EINVAL || r == -EBADMSG || r == -ERANGE || r == -ENOMEM);
            FUZZ_ASSERT(inv == sentinel);
            check_err(&e);
            continue;
        }
        FUZZ_ASSERT(r == 0);
        for (int i = 0; i < NUMAFIT_RC_COUNT; i++) {
            numafit_inventory_class_t c;
            int64_t u = -1, cu = 0;
            if (numafit_inventory_get_class(inv, i, &c) == 1) {
                numafit_inventory_t *probe = NULL;
                FUZZ_ASSERT(numafit_inventory_new(&probe) == 0);
                FUZZ_ASSERT(numafit_inventory_set_class(probe, i, &c, NULL) == 0);
                numafit_inventory_free(probe);
            }
            FUZZ_ASSERT(numafit_inventory_get_used(inv, i, &u) == 0);
            if (current)
                FUZZ_ASSERT(numafit_inventory_get_used(current, i, &cu) == 0);
            FUZZ_ASSERT(u == cu);
        }
        /* both fixed hosts have 2 threads per core */
        FUZZ_ASSERT(numafit_inventory_get_traits(inv) == NUMAFIT_TRAIT_HW_CPU_HYPERTHREADING);
        check_round_trip(inv);
        numafit_inventory_free(inv);
    }
    numafit_host_free(h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *in = (const char *)data;
    const char *nul = size ? memchr(in, '\0', size) : NULL;
    size_t jlen = nul ? (size_t)(nul - in) : size;
    numafit_inventory_t *inv = (numafit_inventory_t *)&inv;
    numafit_inventory_t *const sentinel = inv;
    numafit_error_t e;
    char *json = malloc(jlen ? jlen : 1);
    if (!json)
        return 0;
    if (jlen)
        memcpy(json, in, jlen);
    memset(&e, 'x', sizeof(e));
    int r = numafit_inventory_new_from_json(json, jlen, 0, &inv, &e);
    free(json);
    if (r < 0) {
        FUZZ_ASSERT(r == -EINVAL || r == -EBADMSG || r == -ERANGE || r == -ENOMEM);
        FUZZ_ASSERT(inv == sentinel);
        check_err(&e);
        inv = NULL;
    } else {
        FUZZ_ASSERT(r == 0);
        check_round_trip(inv);
        check_claims(inv);
        check_traits(inv);
    }
    if (nul) {
        size_t clen = size - jlen - 1;
        char *conf = malloc(clen ? clen : 1);
        if (conf) {
            if (clen)
                memcpy(conf, nul + 1, clen);
            check_from_host("cells:2 cores:4 threads:2 mem:8G", conf, clen, inv);
            check_from_host("cells:2 cores:4 threads:2 mem:8G dedicated:2-7,10-15 shared:0-1,8-9",
                            conf, clen, inv);
            free(conf);
        }
    }
    numafit_inventory_free(inv);
    return 0;
}
