/*
 * A compute node's placement inventory (numafit_inventory_*): placement's
 * inventory records and usage for the classes of the model, its capacity
 * rule, its JSON, and the inventory nova's libvirt driver reports for a
 * host (update_provider_tree). doc/placement.md has the rules.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "flavor.h"
#include "ini.h"
#include "json_count.h"
#include "jsonio.h"

#define USED_MAX (INT64_C(1) << 53) /* usage stays exact as a JSON number */
#define NCLS     NUMAFIT_RC_COUNT

#define SMT_NAME "HW_CPU_HYPERTHREADING"

struct numafit_inventory {
    unsigned traits; /* enum numafit_inventory_trait */
    bool has[NCLS];
    numafit_inventory_class_t cls[NCLS];
    int64_t used[NCLS];
};

static int nomem(numafit_error_t *err) {
    numafit__error_set(err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
    return -ENOMEM;
}

static bool valid_rc(int rc) {
    return rc >= 0 && rc < NCLS;
}

NUMAFIT_EXPORT int numafit_inventory_new(numafit_inventory_t **ret) {
    numafit_inventory_t *inv;
    if (!ret)
        return -EINVAL;
    inv = numafit__calloc(1, sizeof(*inv));
    if (!inv)
        return -ENOMEM;
    *ret = inv;
    return 0;
}

NUMAFIT_EXPORT void numafit_inventory_free(numafit_inventory_t *inv) {
    numafit__free(inv);
}

NUMAFIT_EXPORT int numafit_inventory_dup(const numafit_inventory_t *inv,
                                         numafit_inventory_t **ret) {
    numafit_inventory_t *c;
    if (!inv || !ret)
        return -EINVAL;
    c = numafit__malloc(sizeof(*c));
    if (!c)
        return -ENOMEM;
    *c = *inv;
    *ret = c;
    return 0;
}

/* placement's capacity: int((total - reserved) * allocation_ratio). */
static double capacity(const numafit_inventory_class_t *c) {
    return trunc((double)(c->total - c->reserved) * c->allocation_ratio);
}

/* c checked as placement checks an inventory record (its schema, then a
 * capacity of at least 0). */
static int check_class(int rc, const numafit_inventory_class_t *c, numafit_error_t *err) {
    const char *name = numafit_resource_class_to_string(rc);
    const struct {
        const char *field;
        int64_t v, min;
    } f[] = {{"total", c->total, 1},
             {"reserved", c->reserved, 0},
             {"min_unit", c->min_unit, 1},
             {"max_unit", c->max_unit, 1},
             {"step_size", c->step_size, 1}};
    char where[48];
    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
        if (f[i].v < f[i].min || f[i].v > NUMAFIT_RESOURCE_AMOUNT_MAX) {
            snprintf(where, sizeof(where), "%s/%s", name, f[i].field);
            numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, where, NULL,
                               "%s %s must be from %lld to %d, not %lld", name, f[i].field,
                               (long long)f[i].min, NUMAFIT_RESOURCE_AMOUNT_MAX, (long long)f[i].v);
            return -EINVAL;
        }
    if (!(c->allocation_ratio >= 0 && c->allocation_ratio <= FLT_MAX)) {
        snprintf(where, sizeof(where), "%s/allocation_ratio", name);
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, where, NULL,
                           "%s allocation_ratio must be a number from 0 to %g", name, FLT_MAX);
        return -EINVAL;
    }
    if (capacity(c) < 0) {
        snprintf(where, sizeof(where), "%s/reserved", name);
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, where,
                           "InvalidInventoryCapacityReservedCanBeTotal",
                           "%s: %lld reserved of a total of %lld", name, (long long)c->reserved,
                           (long long)c->total);
        return -EINVAL;
    }
    return 0;
}

NUMAFIT_EXPORT int numafit_inventory_set_class(numafit_inventory_t *inv, int rc,
                                               const numafit_inventory_class_t *c,
                                               numafit_error_t *err) {
    int r;
    numafit__error_clear(err);
    if (!inv || !valid_rc(rc)) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL,
                           "an inventory and a resource class are required");
        return -EINVAL;
    }
    if (!c) {
        inv->has[rc] = false;
        memset(&inv->cls[rc], 0, sizeof(inv->cls[rc]));
        return 0;
    }
    if ((r = check_class(rc, c, err)) < 0)
        return r;
    inv->cls[rc] = *c;
    inv->has[rc] = true;
    return 0;
}

NUMAFIT_EXPORT int numafit_inventory_get_class(const numafit_inventory_t *inv, int rc,
                                               numafit_inventory_class_t *ret) {
    if (!inv || !valid_rc(rc) || !ret)
        return -EINVAL;
    if (!inv->has[rc]) {
        memset(ret, 0, sizeof(*ret));
        return 0;
    }
    *ret = inv->cls[rc];
    return 1;
}

NUMAFIT_EXPORT int numafit_inventory_set_traits(numafit_inventory_t *inv, unsigned traits) {
    if (!inv || (traits & ~(unsigned)NUMAFIT_TRAIT_HW_CPU_HYPERTHREADING))
        return -EINVAL;
    inv->traits = traits;
    return 0;
}

NUMAFIT_EXPORT int numafit_inventory_get_traits(const numafit_inventory_t *inv) {
    return inv ? (int)inv->traits : -EINVAL;
}

/* Do the provider's traits match the query's SMT bits? (the bits checked) */
static bool traits_ok(const numafit_inventory_t *inv, unsigned bits, numafit_error_t *err) {
    bool smt = inv->traits & NUMAFIT_TRAIT_HW_CPU_HYPERTHREADING;
    if ((bits & NUMAFIT_RESOURCES_SMT_REQUIRED) && !smt) {
        numafit__error_set(err, NUMAFIT_E_NOFIT_INVENTORY, -1, SMT_NAME, NULL,
                           "the trait " SMT_NAME " is required (thread policy require), the "
                           "host has no SMT");
        return false;
    }
    if ((bits & NUMAFIT_RESOURCES_SMT_FORBIDDEN) && smt) {
        numafit__error_set(err, NUMAFIT_E_NOFIT_INVENTORY, -1, SMT_NAME, NULL,
                           "the trait " SMT_NAME " is forbidden (thread policy isolate), the "
                           "host has SMT");
        return false;
    }
    return true;
}

NUMAFIT_EXPORT int numafit_inventory_set_used(numafit_inventory_t *inv, int rc, int64_t used) {
    if (!inv || !valid_rc(rc) || used < 0 || used > USED_MAX)
        return -EINVAL;
    inv->used[rc] = used;
    return 0;
}

NUMAFIT_EXPORT int numafit_inventory_get_used(const numafit_inventory_t *inv, int rc,
                                              int64_t *ret) {
    if (!inv || !valid_rc(rc) || !ret)
        return -EINVAL;
    *ret = inv->used[rc];
    return 0;
}

NUMAFIT_EXPORT int numafit_inventory_equal(const numafit_inventory_t *a,
                                           const numafit_inventory_t *b) {
    if (!a || !b)
        return -EINVAL;
    if (a->traits != b->traits)
        return 0;
    for (int i = 0; i < NCLS; i++) {
        const numafit_inventory_class_t *x = &a->cls[i], *y = &b->cls[i];
        if (a->has[i] != b->has[i] || a->used[i] != b->used[i])
            return 0;
        if (a->has[i] &&
            (x->total != y->total || x->reserved != y->reserved || x->min_unit != y->min_unit ||
             x->max_unit != y->max_unit || x->step_size != y->step_size ||
             x->allocation_ratio != y->allocation_ratio))
            return 0;
    }
    return 1;
}

/* ------------------------------------------------------------ room, claims */

/* Whether class rc has room for amount; why not in err. */
static bool room(const numafit_inventory_t *inv, int rc, int64_t amount, numafit_error_t *err) {
    const char *name = numafit_resource_class_to_string(rc);
    const numafit_inventory_class_t *c = &inv->cls[rc];
    if (!inv->has[rc]) {
        numafit__error_set(err, NUMAFIT_E_NOFIT_INVENTORY, -1, name, NULL,
                           "%lld %s asked, the host has no %s inventory", (long long)amount, name,
                           name);
        return false;
    }
    if (amount < c->min_unit || amount > c->max_unit) {
        numafit__error_set(err, NUMAFIT_E_NOFIT_INVENTORY, -1, name, NULL,
                           "%lld %s asked, the inventory takes %lld to %lld at a time",
                           (long long)amount, name, (long long)c->min_unit, (long long)c->max_unit);
        return false;
    }
    if (amount % c->step_size) {
        numafit__error_set(err, NUMAFIT_E_NOFIT_INVENTORY, -1, name, NULL,
                           "%lld %s asked, not a multiple of the step size %lld", (long long)amount,
                           name, (long long)c->step_size);
        return false;
    }
    if (inv->used[rc] + amount > USED_MAX) {
        numafit__error_set(err, NUMAFIT_E_NOFIT_INVENTORY, -1, name, NULL,
                           "%lld %s asked, %lld used: the usage would pass 2^53", (long long)amount,
                           name, (long long)inv->used[rc]);
        return false;
    }
    if ((double)(inv->used[rc] + amount) > capacity(c)) {
        numafit__error_set(err, NUMAFIT_E_NOFIT_INVENTORY, -1, name, NULL,
                           "%lld %s asked, %lld used of a capacity of %.0f ((%lld - %lld "
                           "reserved) x %g)",
                           (long long)amount, name, (long long)inv->used[rc], capacity(c),
                           (long long)c->total, (long long)c->reserved, c->allocation_ratio);
        return false;
    }
    return true;
}

static int check_amounts(const int64_t *amounts, size_t n, numafit_error_t *err) {
    if (!amounts && n) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL, "amounts are required");
        return -EINVAL;
    }
    for (size_t i = 0; i < n; i++)
        if (amounts[i] < 0 || amounts[i] > (i < NCLS ? NUMAFIT_RESOURCE_AMOUNT_MAX : 0)) {
            numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1,
                               i < NCLS ? numafit_resource_class_to_string((int)i) : NULL, NULL,
                               "amount %zu out of range", i);
            return -EINVAL;
        }
    return 0;
}

/* The arguments of a check, claim or release (err cleared first). */
static int check_args(const numafit_inventory_t *inv, const int64_t *amounts, size_t n,
                      numafit_error_t *err) {
    numafit__error_clear(err);
    if (!inv) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL, "an inventory is required");
        return -EINVAL;
    }
    return check_amounts(amounts, n, err);
}

NUMAFIT_EXPORT int numafit_inventory_check(const numafit_inventory_t *inv, const int64_t *amounts,
                                           size_t n, unsigned bits, numafit_error_t *err) {
    const unsigned known = NUMAFIT_RESOURCES_FALLBACK | NUMAFIT_RESOURCES_SMT_REQUIRED |
                           NUMAFIT_RESOURCES_SMT_FORBIDDEN;
    int r;
    if ((r = check_args(inv, amounts, n, err)) < 0)
        return r;
    if (bits & ~known) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "bits", NULL, "unknown bits 0x%x",
                           bits & ~known);
        return -EINVAL;
    }
    if (!traits_ok(inv, bits, err))
        return 0;
    for (size_t i = 0; i < n && i < NCLS; i++)
        if (amounts[i] && !room(inv, (int)i, amounts[i], err))
            return 0;
    return 1;
}

NUMAFIT_EXPORT int numafit_inventory_claim(numafit_inventory_t *inv, const int64_t *amounts,
                                           size_t n, numafit_error_t *err) {
    int r = numafit_inventory_check(inv, amounts, n, 0, err);
    if (r <= 0)
        return r < 0 ? r : -ENOSPC;
    for (size_t i = 0; i < n && i < NCLS; i++)
        inv->used[i] += amounts[i];
    return 0;
}

NUMAFIT_EXPORT int numafit_inventory_release(numafit_inventory_t *inv, const int64_t *amounts,
                                             size_t n, numafit_error_t *err) {
    int r;
    if ((r = check_args(inv, amounts, n, err)) < 0)
        return r;
    for (size_t i = 0; i < n && i < NCLS; i++)
        if (amounts[i] > inv->used[i]) {
            const char *name = numafit_resource_class_to_string((int)i);
            numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, name, NULL,
                               "%lld %s released, %lld used", (long long)amounts[i], name,
                               (long long)inv->used[i]);
            return -EINVAL;
        }
    for (size_t i = 0; i < n && i < NCLS; i++)
        inv->used[i] -= amounts[i];
    return 0;
}

/* ------------------------------------------------------------ JSON */

/* The class named name (-1: outside the model; -2: not a resource class name). */
static int class_of(const char *name) {
    size_t n = strlen(name);
    for (int i = 0; i < NCLS; i++)
        if (!strcmp(name, numafit_resource_class_to_string(i)))
            return i;
    if (!n || n > 255)
        return -2;
    for (size_t i = 0; i < n; i++)
        if (!((name[i] >= 'A' && name[i] <= 'Z') || (name[i] >= '0' && name[i] <= '9') ||
              name[i] == '_'))
            return -2;
    return -1;
}

/* An integer field of a record: [min, NUMAFIT_RESOURCE_AMOUNT_MAX]. */
static int int_field(struct numafit__jpath *p, const json_t *rec, const char *key, int64_t dflt,
                     int64_t min, int64_t *out) {
    const json_t *v = json_object_get(rec, key);
    uint64_t u;
    size_t mark;
    int r;
    *out = dflt;
    if (!v)
        return 0;
    mark = numafit__jp_push(p, key);
    r = numafit__json_uint(v, NUMAFIT_RESOURCE_AMOUNT_MAX, &u);
    if (r == NUMAFIT__JU_TYPE)
        return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "must be an integer, not %s",
                                numafit__json_type_name(v));
    if (r != NUMAFIT__JU_OK || (int64_t)u < min)
        return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "must be from %lld to %d",
                                (long long)min, NUMAFIT_RESOURCE_AMOUNT_MAX);
    numafit__jp_pop(p, mark);
    *out = (int64_t)u;
    return 0;
}

static int read_record(struct numafit__jpath *p, const json_t *rec, int rc,
                       numafit_inventory_t *inv) {
    static const char *const known[] = {"total",
                                        "reserved",
                                        "min_unit",
                                        "max_unit",
                                        "step_size",
                                        "allocation_ratio",
                                        "resource_provider_generation"};
    numafit_inventory_class_t c;
    const char *key;
    json_t *v;
    int r;
    if (!json_is_object(rec))
        return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "must be an object, not %s",
                                numafit__json_type_name(rec));
    json_object_foreach((json_t *)rec, key, v) {
        bool ok = false;
        for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
            ok = ok || !strcmp(key, known[i]);
        if (!ok) {
            numafit__jp_push(p, key);
            return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA,
                                    "not a field of an inventory record");
        }
    }
    if (!json_object_get(rec, "total"))
        return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "\"total\" is required");
    if ((r = int_field(p, rec, "total", 0, 1, &c.total)) < 0 ||
        (r = int_field(p, rec, "reserved", 0, 0, &c.reserved)) < 0 ||
        (r = int_field(p, rec, "min_unit", 1, 1, &c.min_unit)) < 0 ||
        (r = int_field(p, rec, "max_unit", NUMAFIT_RESOURCE_AMOUNT_MAX, 1, &c.max_unit)) < 0 ||
        (r = int_field(p, rec, "step_size", 1, 1, &c.step_size)) < 0)
        return r;
    c.allocation_ratio = 1.0;
    v = json_object_get(rec, "allocation_ratio");
    if (v) {
        size_t mark = numafit__jp_push(p, "allocation_ratio");
        if (!json_is_number(v) || json_number_value(v) < 0 || json_number_value(v) > FLT_MAX)
            return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "must be a number from 0 to %g",
                                    FLT_MAX);
        numafit__jp_pop(p, mark);
        c.allocation_ratio = json_number_value(v);
    }
    if (rc < 0)
        return 0;
    if (capacity(&c) < 0) {
        numafit__jp_push(p, "reserved");
        r = numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "%lld reserved of a total of %lld",
                             (long long)c.reserved, (long long)c.total);
        if (p->err)
            snprintf(p->err->exception, sizeof(p->err->exception), "%s",
                     "InvalidInventoryCapacityReservedCanBeTotal");
        return r;
    }
    inv->cls[rc] = c;
    inv->has[rc] = true;
    return 0;
}

static int read_section(struct numafit__jpath *p, const json_t *doc, const char *name,
                        numafit_inventory_t *inv) {
    const json_t *sec = json_object_get(doc, name);
    const char *key;
    json_t *v;
    size_t mark;
    int r;
    if (!sec)
        return 0;
    mark = numafit__jp_push(p, name);
    if (!json_is_object(sec))
        return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "must be an object, not %s",
                                numafit__json_type_name(sec));
    json_object_foreach((json_t *)sec, key, v) {
        size_t m2 = numafit__jp_push(p, key);
        int rc = class_of(key);
        if (rc == -2)
            return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "not a resource class name");
        if (name[0] == 'i') {
            if ((r = read_record(p, v, rc, inv)) < 0)
                return r;
        } else {
            uint64_t u;
            if (numafit__json_uint(v, USED_MAX, &u) != NUMAFIT__JU_OK)
                return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA,
                                        "must be an integer from 0 to 2^53");
            if (rc >= 0)
                inv->used[rc] = (int64_t)u;
        }
        numafit__jp_pop(p, m2);
    }
    numafit__jp_pop(p, mark);
    return 0;
}

/* "traits": a list of trait names (placement's pattern); those the model knows are kept. */
static int read_traits(struct numafit__jpath *p, const json_t *doc, numafit_inventory_t *inv) {
    const json_t *list = json_object_get(doc, "traits"), *t;
    size_t mark, i;
    if (!list)
        return 0;
    mark = numafit__jp_push(p, "traits");
    if (!json_is_array(list))
        return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "must be a list of trait names");
    json_array_foreach(list, i, t) {
        size_t m2 = numafit__jp_index(p, i);
        if (!json_is_string(t) || class_of(json_string_value(t)) == -2)
            return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "not a trait name");
        if (!strcmp(json_string_value(t), SMT_NAME))
            inv->traits |= NUMAFIT_TRAIT_HW_CPU_HYPERTHREADING;
        numafit__jp_pop(p, m2);
    }
    numafit__jp_pop(p, mark);
    return 0;
}

NUMAFIT_EXPORT int numafit_inventory_new_from_json(const char *buf, size_t len, unsigned flags,
                                                   numafit_inventory_t **ret,
                                                   numafit_error_t *err) {
    static const struct numafit__json_src src = {"inventory", NUMAFIT__JSON_VALUES_SMALL, 0, ""};
    struct numafit__jpath p;
    numafit_inventory_t *inv = NULL;
    json_error_t jerr;
    json_t *doc = NULL;
    const char *key;
    json_t *v;
    int r;

    numafit__error_clear(err);
    if (!buf || !ret || flags) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL,
                           flags ? "unknown flag bits" : "a JSON text and ret_inv are required");
        return -EINVAL;
    }
    r = numafit__json_parse(&src, buf, len, &doc, &jerr, err);
    if (r == -EBADMSG)
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, "", NULL, "inventory: %s (line %d, column %d)",
                           jerr.text, jerr.line, jerr.column);
    if (r < 0)
        return r;
    numafit__jp_init(&p, err);
    if (!json_is_object(doc)) {
        r = numafit__jp_fail(&p, -EINVAL, NUMAFIT_E_SCHEMA, "an inventory must be an object");
        goto out;
    }
    json_object_foreach(doc, key, v) {
        if (strcmp(key, "inventories") && strcmp(key, "usages") && strcmp(key, "traits") &&
            strcmp(key, "resource_provider_generation")) {
            numafit__jp_push(&p, key);
            r = numafit__jp_fail(&p, -EINVAL, NUMAFIT_E_SCHEMA, "not a key of an inventory");
            goto out;
        }
    }
    if (!json_object_get(doc, "inventories")) {
        r = numafit__jp_fail(&p, -EINVAL, NUMAFIT_E_SCHEMA, "\"inventories\" is required");
        goto out;
    }
    if ((r = numafit_inventory_new(&inv)) < 0) {
        r = nomem(err);
        goto out;
    }
    if ((r = read_section(&p, doc, "inventories", inv)) < 0 ||
        (r = read_section(&p, doc, "usages", inv)) < 0 || (r = read_traits(&p, doc, inv)) < 0)
        goto out;
    *ret = inv;
    inv = NULL;
out:
    numafit_inventory_free(inv);
    json_decref(doc);
    return r;
}

NUMAFIT_EXPORT int numafit_inventory_to_json(const numafit_inventory_t *inv, unsigned flags,
                                             char **ret, numafit_error_t *err) {
    json_t *doc = json_object(), *invs = json_object(), *use = json_object();
    bool fail = !doc || !invs || !use;
    numafit__error_clear(err);
    if (!inv || !ret || (flags & ~(unsigned)NUMAFIT_JSON_INDENT)) {
        json_decref(doc);
        json_decref(invs);
        json_decref(use);
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL, "invalid argument");
        return -EINVAL;
    }
    for (int i = 0; !fail && i < NCLS; i++) {
        const numafit_inventory_class_t *c = &inv->cls[i];
        const char *name = numafit_resource_class_to_string(i);
        if (inv->has[i]) {
            json_t *rec =
                json_pack("{sI sI sI sI sI sf}", "total", (json_int_t)c->total, "reserved",
                          (json_int_t)c->reserved, "min_unit", (json_int_t)c->min_unit, "max_unit",
                          (json_int_t)c->max_unit, "step_size", (json_int_t)c->step_size,
                          "allocation_ratio", c->allocation_ratio);
            fail = !rec || json_object_set_new(invs, name, rec) < 0;
        }
        if (!fail && (inv->has[i] || inv->used[i]))
            fail = json_object_set_new(use, name, json_integer(inv->used[i])) < 0;
    }
    if (!fail)
        fail = json_object_set_new(doc, "inventories", invs) < 0;
    else
        json_decref(invs);
    if (!fail)
        fail = json_object_set_new(doc, "usages", use) < 0;
    else
        json_decref(use);
    if (!fail)
        fail = json_object_set_new(doc, "traits",
                                   inv->traits & NUMAFIT_TRAIT_HW_CPU_HYPERTHREADING
                                       ? json_pack("[s]", SMT_NAME)
                                       : json_array()) < 0;
    if (fail) {
        json_decref(doc);
        return nomem(err);
    }
    return numafit__json_emit(doc, flags, ret, err);
}

/* ------------------------------------------------------------ from a host */

/* nova.conf's options for the inventory (doc/placement.md). */
struct inv_conf {
    int64_t reserved_cpus, reserved_mem_mb, reserved_disk_mb;
    double ratio[NCLS];   /* *_allocation_ratio; 0 when unset (nova: "if ratio:") */
    double initial[NCLS]; /* initial_*_allocation_ratio */
};

/* An oslo IntOpt with min=0: Python's int() of the value. */
static int conf_int(const struct numafit__ini *ini, const char *key, int64_t *out,
                    numafit_error_t *err) {
    const char *v = numafit__ini_get(ini, "DEFAULT", key);
    bool ovf = false;
    if (!v || !*v)
        return 0;
    if (!numafit__py_int(v, out, &ovf) || ovf || *out < 0 || *out > INT32_MAX) {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, key, "ConfigFileValueError",
                           "[DEFAULT] %s: not an integer from 0 to %d: '%.64s'", key, INT32_MAX, v);
        return -EINVAL;
    }
    return 0;
}

/* An oslo FloatOpt with min=0.0: Python's float() of the value. */
static int conf_float(const struct numafit__ini *ini, const char *key, double *out,
                      numafit_error_t *err) {
    const char *v = numafit__ini_get(ini, "DEFAULT", key);
    char *end;
    double d;
    if (!v || !*v)
        return 0;
    while (numafit__py_space(*v))
        v++;
    d = strtod(v, &end);
    while (end != v && numafit__py_space(*end))
        end++;
    if (end == v || *end || !(d >= 0) || d > FLT_MAX) {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, key, "ConfigFileValueError",
                           "[DEFAULT] %s: not a number from 0 to %g: '%.64s'", key, FLT_MAX, v);
        return -EINVAL;
    }
    *out = d;
    return 0;
}

static int read_conf(const char *text, size_t len, bool zed, struct inv_conf *c,
                     numafit_error_t *err) {
    static const char *const ratio_keys[NCLS] = {"cpu_allocation_ratio", NULL,
                                                 "ram_allocation_ratio", "disk_allocation_ratio"};
    static const char *const initial_keys[NCLS] = {"initial_cpu_allocation_ratio", NULL,
                                                   "initial_ram_allocation_ratio",
                                                   "initial_disk_allocation_ratio"};
    struct numafit__ini ini;
    int r;
    memset(c, 0, sizeof(*c));
    c->reserved_mem_mb = 512;
    c->initial[NUMAFIT_RC_VCPU] = zed ? 16.0 : 4.0;
    c->initial[NUMAFIT_RC_MEMORY_MB] = zed ? 1.5 : 1.0;
    c->initial[NUMAFIT_RC_DISK_GB] = 1.0;
    if (!text)
        return 0;
    if ((r = numafit__ini_check_text(text, len, NUMAFIT_NOVA_CONF_MAX, "nova.conf", err)) < 0)
        return r;
    if ((r = numafit__ini_parse(&ini, text, len)) < 0)
        return nomem(err);
    if (ini.syntax_line) {
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, "nova.conf", NULL,
                           "line %d of nova.conf is not a section, an option or a comment",
                           ini.syntax_line);
        r = -EBADMSG;
    }
    if (r == 0)
        r = conf_int(&ini, "reserved_host_cpus", &c->reserved_cpus, err);
    if (r == 0)
        r = conf_int(&ini, "reserved_host_memory_mb", &c->reserved_mem_mb, err);
    if (r == 0)
        r = conf_int(&ini, "reserved_host_disk_mb", &c->reserved_disk_mb, err);
    for (int i = 0; r == 0 && i < NCLS; i++)
        if (ratio_keys[i] && ((r = conf_float(&ini, ratio_keys[i], &c->ratio[i], err)) < 0 ||
                              (r = conf_float(&ini, initial_keys[i], &c->initial[i], err)) < 0))
            break;
    numafit__ini_clear(&ini);
    return r;
}

/* The shared (VCPU) and dedicated (PCPU) CPUs of the host: a host whose
 * cells list the same CPUs in both sets has no dedicated set (vcpu_pin_set,
 * or no CPU option: nova reports every CPU as VCPU). */
static void host_cpus(const numafit_host_t *h, int64_t *vcpus, int64_t *pcpus) {
    bool same = true;
    *vcpus = *pcpus = 0;
    for (uint32_t i = 0; i < h->ncells; i++) {
        const struct numafit__cell *c = &h->cells[i];
        *vcpus += numafit__bits_count(c->cpuset, h->nw);
        *pcpus += numafit__bits_count(c->pcpuset, h->nw);
        same = same && !memcmp(c->cpuset, c->pcpuset, h->nw * sizeof(uint64_t));
    }
    if (same)
        *pcpus = 0;
}

static int add_class(numafit_inventory_t *inv, int rc, int64_t total, int64_t reserved,
                     double ratio, const char *option, numafit_error_t *err) {
    numafit_inventory_class_t c = {total, reserved, 1, total, 1, ratio};
    int r;
    if (total <= 0)
        return 0;
    if (total > NUMAFIT_RESOURCE_AMOUNT_MAX) {
        numafit__error_set(err, NUMAFIT_E_RANGE, -1, numafit_resource_class_to_string(rc), NULL,
                           "%lld %s, more than placement takes", (long long)total,
                           numafit_resource_class_to_string(rc));
        return -ERANGE;
    }
    r = numafit_inventory_set_class(inv, rc, &c, err);
    if (r < 0 && err && option)
        snprintf(err->where, sizeof(err->where), "%s", option);
    return r;
}

NUMAFIT_EXPORT int
numafit_inventory_new_from_host(const numafit_host_t *host, const char *nova_conf, size_t conf_len,
                                int64_t disk_gb, const numafit_inventory_t *current, unsigned flags,
                                numafit_inventory_t **ret, numafit_error_t *err) {
    struct inv_conf conf;
    numafit_inventory_t *inv = NULL;
    double ratio[NCLS];
    int64_t vcpus, pcpus, mem = 0;
    int r;

    numafit__error_clear(err);
    if (!host || !ret || disk_gb < 0 || (flags & ~(unsigned)NUMAFIT_INVENTORY_ZED)) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL,
                           flags & ~(unsigned)NUMAFIT_INVENTORY_ZED ? "unknown flag bits"
                                                                    : "invalid argument");
        return -EINVAL;
    }
    if ((r = read_conf(nova_conf, conf_len, flags & NUMAFIT_INVENTORY_ZED, &conf, err)) < 0)
        return r;
    /* nova's precedence: the option, else placement's value, else the initial ratio */
    for (int i = 0; i < NCLS; i++)
        ratio[i] = conf.ratio[i] > 0            ? conf.ratio[i]
                   : current && current->has[i] ? current->cls[i].allocation_ratio
                                                : conf.initial[i];
    ratio[NUMAFIT_RC_PCPU] = 1.0;
    host_cpus(host, &vcpus, &pcpus);
    for (uint32_t i = 0; i < host->ncells; i++)
        mem += (int64_t)host->cells[i].memory;
    if ((r = numafit_inventory_new(&inv)) < 0)
        return nomem(err);
    if ((r = add_class(inv, NUMAFIT_RC_VCPU, vcpus, conf.reserved_cpus, ratio[NUMAFIT_RC_VCPU],
                       "reserved_host_cpus", err)) < 0 ||
        (r = add_class(inv, NUMAFIT_RC_PCPU, pcpus, 0, 1.0, NULL, err)) < 0 ||
        (r = add_class(inv, NUMAFIT_RC_MEMORY_MB, mem, conf.reserved_mem_mb,
                       ratio[NUMAFIT_RC_MEMORY_MB], "reserved_host_memory_mb", err)) < 0 ||
        (r = add_class(inv, NUMAFIT_RC_DISK_GB, disk_gb, (conf.reserved_disk_mb + 1023) / 1024,
                       ratio[NUMAFIT_RC_DISK_GB], "reserved_host_disk_mb", err)) < 0) {
        numafit_inventory_free(inv);
        return r;
    }
    if (current)
        memcpy(inv->used, current->used, sizeof(inv->used));
    for (uint32_t i = 0; i < host->ncells; i++)
        if (host->cells[i].tpc > 1)
            inv->traits |= NUMAFIT_TRAIT_HW_CPU_HYPERTHREADING;
    *ret = inv;
    return 0;
}

NUMAFIT_EXPORT int numafit_inventory_ratios_from_nova_conf(const char *nova_conf, size_t conf_len,
                                                           unsigned flags, double *ret_cpu,
                                                           double *ret_ram, double *ret_disk,
                                                           numafit_error_t *err) {
    struct inv_conf conf;
    double *out[NCLS] = {ret_cpu, NULL, ret_ram, ret_disk};
    int r;
    numafit__error_clear(err);
    if (!ret_cpu || !ret_ram || !ret_disk || (!nova_conf && conf_len) ||
        (flags & ~(unsigned)NUMAFIT_INVENTORY_ZED)) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL,
                           flags & ~(unsigned)NUMAFIT_INVENTORY_ZED ? "unknown flag bits"
                                                                    : "invalid argument");
        return -EINVAL;
    }
    if ((r = read_conf(nova_conf, conf_len, flags & NUMAFIT_INVENTORY_ZED, &conf, err)) < 0)
        return r;
    for (int i = 0; i < NCLS; i++)
        if (out[i])
            *out[i] = conf.ratio[i] > 0 ? conf.ratio[i] : conf.initial[i];
    return 0;
}
