/*
 * PCI and SR-IOV devices (include/numafit/pci.h, doc/pci.md): a host's PCI
 * device pools and an instance's PCI requests as nova's objects hold them,
 * and nova's scheduler rules for whether the pools satisfy the requests on
 * a set of host cells (PciDeviceStats: the spec match, the four NUMA
 * policies, the PF / vdpa / remote-managed exclusions, the greedy walk).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "flavor.h"
#include "jsonio.h"
#include "private.h"

#include <numafit/pci.h>

#include "pci_internal.h"

const char *const numafit__pci_policy_names[] = {NULL, "required", "legacy", "preferred", "socket"};

void numafit__pci_tags_free(struct pci_tag *t, uint32_t n) {
    for (uint32_t i = 0; t && i < n; i++) {
        free(t[i].key);
        free(t[i].value);
    }
    free(t);
}

static void pool_clear(struct pci_pool *p) {
    free(p->devs);
    free(p->vendor_id);
    free(p->product_id);
    numafit__pci_tags_free(p->tags, p->ntags);
    memset(p, 0, sizeof(*p));
}

NUMAFIT_EXPORT void numafit_pci_pools_free(numafit_pci_pools_t *pools) {
    if (!pools)
        return;
    for (uint32_t i = 0; i < pools->n; i++)
        pool_clear(&pools->p[i]);
    free(pools->p);
    free(pools);
}

void numafit__pci_request_clear(struct pci_request *r) {
    for (uint32_t i = 0; r->specs && i < r->nspecs; i++)
        numafit__pci_tags_free(r->specs[i].kv, r->specs[i].n);
    free(r->specs);
    free(r->alias_name);
    free(r->request_id);
    free(r->requester_id);
    memset(r, 0, sizeof(*r));
}

NUMAFIT_EXPORT void numafit_pci_requests_free(numafit_pci_requests_t *reqs) {
    if (!reqs)
        return;
    for (uint32_t i = 0; i < reqs->n; i++)
        numafit__pci_request_clear(&reqs->r[i]);
    free(reqs->r);
    free(reqs->instance_uuid);
    free(reqs);
}

char *numafit__pci_dup_or_null(const char *s, bool *fail) {
    char *d;
    if (!s)
        return NULL;
    d = numafit__strdup(s);
    if (!d)
        *fail = true;
    return d;
}

struct pci_tag *numafit__pci_tags_dup(const struct pci_tag *t, uint32_t n, bool *fail) {
    struct pci_tag *d;
    if (!n)
        return NULL;
    d = numafit__calloc(n, sizeof(*d));
    if (!d) {
        *fail = true;
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        d[i].key = numafit__pci_dup_or_null(t[i].key, fail);
        d[i].value = numafit__pci_dup_or_null(t[i].value, fail);
        d[i].id = t[i].id;
        d[i].vh = t[i].vh;
    }
    return d;
}

NUMAFIT_EXPORT int numafit_pci_pools_dup(const numafit_pci_pools_t *pools,
                                         numafit_pci_pools_t **ret) {
    numafit_pci_pools_t *d;
    bool fail = false;
    if (!pools || !ret)
        return -EINVAL;
    d = numafit__calloc(1, sizeof(*d));
    if (!d)
        return -ENOMEM;
    d->p = pools->n ? numafit__calloc(pools->n, sizeof(*d->p)) : NULL;
    if (pools->n && !d->p) {
        free(d);
        return -ENOMEM;
    }
    d->n = pools->n;
    for (uint32_t i = 0; i < pools->n; i++) {
        const struct pci_pool *s = &pools->p[i];
        struct pci_pool *p = &d->p[i];
        *p = *s;
        p->vendor_id = numafit__pci_dup_or_null(s->vendor_id, &fail);
        p->product_id = numafit__pci_dup_or_null(s->product_id, &fail);
        p->tags = numafit__pci_tags_dup(s->tags, s->ntags, &fail);
        p->devs = NULL;
        if (s->ndevs) {
            p->devs = numafit__malloc(s->ndevs * sizeof(*p->devs));
            if (p->devs)
                memcpy(p->devs, s->devs, s->ndevs * sizeof(*p->devs));
            else
                fail = true;
        }
        p->devcap = p->ndevs = p->devs ? s->ndevs : 0;
    }
    if (fail) {
        numafit_pci_pools_free(d);
        return -ENOMEM;
    }
    *ret = d;
    return 0;
}

NUMAFIT_EXPORT int numafit_pci_pools_get_count(const numafit_pci_pools_t *pools) {
    return pools ? (int)pools->n : -EINVAL;
}

NUMAFIT_EXPORT int numafit_pci_pools_get(const numafit_pci_pools_t *pools, unsigned index,
                                         const char **vendor_id, const char **product_id,
                                         int *numa_known, int64_t *numa_node, int64_t *count) {
    const struct pci_pool *p;
    if (!pools || index >= pools->n)
        return -EINVAL;
    p = &pools->p[index];
    if (vendor_id)
        *vendor_id = p->vendor_id;
    if (product_id)
        *product_id = p->product_id;
    if (numa_known)
        *numa_known = p->numa_state == NUMA_SET;
    if (numa_node)
        *numa_node = p->numa_state == NUMA_SET ? p->numa_node : -1;
    if (count)
        *count = p->count;
    return 0;
}

NUMAFIT_EXPORT int numafit_pci_pools_get_tag(const numafit_pci_pools_t *pools, unsigned index,
                                             const char *key, const char **value) {
    const struct pci_pool *p;
    if (!pools || !key || index >= pools->n)
        return -EINVAL;
    p = &pools->p[index];
    for (uint32_t i = 0; i < p->ntags; i++)
        if (!strcmp(p->tags[i].key, key)) {
            if (value)
                *value = p->tags[i].value;
            return 1;
        }
    return 0;
}

static bool str_eq_null(const char *a, const char *b) {
    return (!a && !b) || (a && b && !strcmp(a, b));
}

NUMAFIT_EXPORT int numafit_pci_pools_equal(const numafit_pci_pools_t *a,
                                           const numafit_pci_pools_t *b) {
    if (!a || !b)
        return -EINVAL;
    if (a->n != b->n)
        return 0;
    for (uint32_t i = 0; i < a->n; i++) {
        const struct pci_pool *x = &a->p[i], *y = &b->p[i];
        if (strcmp(x->vendor_id, y->vendor_id) || strcmp(x->product_id, y->product_id) ||
            x->numa_state != y->numa_state ||
            (x->numa_state == NUMA_SET && x->numa_node != y->numa_node) || x->count != y->count ||
            x->ntags != y->ntags)
            return 0;
        for (uint32_t t = 0; t < x->ntags; t++)
            if (strcmp(x->tags[t].key, y->tags[t].key) ||
                !str_eq_null(x->tags[t].value, y->tags[t].value))
                return 0;
    }
    return 1;
}

NUMAFIT_EXPORT int numafit_pci_requests_get_count(const numafit_pci_requests_t *reqs) {
    return reqs ? (int)reqs->n : -EINVAL;
}

NUMAFIT_EXPORT int numafit_pci_requests_get(const numafit_pci_requests_t *reqs, unsigned index,
                                            int64_t *count, int *numa_policy) {
    if (!reqs || index >= reqs->n)
        return -EINVAL;
    if (count)
        *count = reqs->r[index].count;
    if (numa_policy)
        *numa_policy = reqs->r[index].policy;
    return 0;
}

/* ------------------------------------------------------------ reading */

/* A string field's value as nova's String / nullable-string fields coerce
 * it: a string, an integer (its decimal form), true/false ("True",
 * "False"); null when nullable. *ret NULL for null. */
int numafit__pci_read_str(struct numafit__jpath *p, const json_t *v, bool nullable, char **ret) {
    char buf[32];
    const char *s = NULL;
    *ret = NULL;
    if (json_is_null(v)) {
        if (nullable)
            return 0;
        return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "must be a string, not null");
    }
    if (json_is_string(v)) {
        s = json_string_value(v);
        if (strlen(s) != json_string_length(v))
            return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "a string with a NUL byte");
        if (json_string_length(v) > NUMAFIT_PCI_STRING_MAX)
            return numafit__jp_fail(p, -ERANGE, NUMAFIT_E_RANGE, "a string of more than %d bytes",
                                    NUMAFIT_PCI_STRING_MAX);
    } else if (json_is_integer(v)) {
        snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        s = buf;
    } else if (json_is_boolean(v)) {
        s = json_is_true(v) ? "True" : "False";
    } else {
        return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "must be a string%s, not %s",
                                nullable ? " or null" : "", numafit__json_type_name(v));
    }
    *ret = numafit__strdup(s);
    return *ret ? 0 : numafit__jp_nomem(p);
}

static int read_count(struct numafit__jpath *p, const json_t *v, int64_t *ret) {
    uint64_t u;
    switch (numafit__json_uint(v, NUMAFIT_PCI_COUNT_MAX, &u)) {
        case NUMAFIT__JU_OK:
            *ret = (int64_t)u;
            return 0;
        case NUMAFIT__JU_TYPE:
            return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "must be an integer, not %s",
                                    numafit__json_type_name(v));
        default:
            return numafit__jp_fail(p, -ERANGE, NUMAFIT_E_RANGE, "must be an integer from 0 to %d",
                                    NUMAFIT_PCI_COUNT_MAX);
    }
}

/* A string map (a pool's tags, a request's spec) into *ret / *ret_n;
 * reserved keys (a pool's own fields) are refused. */
static int read_map(struct numafit__jpath *p, const json_t *o, const char *const *reserved,
                    struct pci_tag **ret, uint32_t *ret_n) {
    const char *key;
    json_t *v;
    struct pci_tag *t;
    uint32_t n = 0;
    int r;
    *ret = NULL;
    *ret_n = 0;
    if (!json_is_object(o))
        return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "must be an object, not %s",
                                numafit__json_type_name(o));
    if (json_object_size(o) > NUMAFIT_PCI_TAGS_MAX)
        return numafit__jp_fail(p, -ERANGE, NUMAFIT_E_RANGE, "more than %d keys",
                                NUMAFIT_PCI_TAGS_MAX);
    if (!json_object_size(o))
        return 0;
    t = numafit__calloc(json_object_size(o), sizeof(*t));
    if (!t)
        return numafit__jp_nomem(p);
    json_object_foreach((json_t *)o, key, v) {
        size_t old = numafit__jp_push(p, key);
        for (unsigned k = 0; reserved && reserved[k]; k++)
            if (!strcmp(key, reserved[k])) {
                r = numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA,
                                     "a pool's own field cannot be a tag");
                goto fail;
            }
        if (strlen(key) > NUMAFIT_PCI_STRING_MAX) {
            r = numafit__jp_fail(p, -ERANGE, NUMAFIT_E_RANGE, "a key of more than %d bytes",
                                 NUMAFIT_PCI_STRING_MAX);
            goto fail;
        }
        t[n].key = numafit__strdup(key);
        t[n].id = numafit__pci_key_id(key);
        if (!t[n].key) {
            r = numafit__jp_nomem(p);
            goto fail;
        }
        n++;
        if ((r = numafit__pci_read_str(p, v, true, &t[n - 1].value)) < 0)
            goto fail;
        t[n - 1].vh = numafit__pci_value_hash(t[n - 1].value);
        numafit__jp_pop(p, old);
    }
    *ret = t;
    *ret_n = n;
    return 0;
fail:
    numafit__pci_tags_free(t, n);
    return r;
}

static const char *const pool_fields[] = {"vendor_id", "product_id", "numa_node", "count", NULL};

/* One pool: a PciDevicePool primitive (tags in "tags") or nova's older
 * flat dict (tags beside the fields; numa_node null when absent). */
static int read_pool(struct numafit__jpath *p, json_t *v, struct pci_pool *pool) {
    int rc = 0, minor;
    bool flat = !json_object_get(v, "nova_object.name");
    json_t *d = numafit__jp_unwrap(p, v, "PciDevicePool", 1, &minor, &rc), *x;
    const char *key;
    size_t old;
    int r;
    if (!d)
        return rc;
    if (!json_is_object(d))
        return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "a pool must be an object, not %s",
                                numafit__json_type_name(d));
    for (unsigned k = 0; k < 2; k++) {
        const char *f = pool_fields[k];
        old = numafit__jp_push(p, f);
        x = json_object_get(d, f);
        if (!x)
            return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "\"%s\" is required", f);
        if ((r = numafit__pci_read_str(p, x, false, k ? &pool->product_id : &pool->vendor_id)) < 0)
            return r;
        numafit__jp_pop(p, old);
    }
    old = numafit__jp_push(p, "count");
    x = json_object_get(d, "count");
    if (!x)
        return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "\"count\" is required");
    if ((r = read_count(p, x, &pool->count)) < 0)
        return r;
    numafit__jp_pop(p, old);
    old = numafit__jp_push(p, "numa_node");
    x = json_object_get(d, "numa_node");
    pool->numa_state = flat ? NUMA_NULL : NUMA_ABSENT;
    if (x && json_is_null(x)) {
        pool->numa_state = NUMA_NULL;
    } else if (x) {
        if (!json_is_integer(x))
            return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA,
                                    "must be an integer or null, not %s",
                                    numafit__json_type_name(x));
        if (json_integer_value(x) < INT32_MIN || json_integer_value(x) > INT32_MAX)
            return numafit__jp_fail(p, -ERANGE, NUMAFIT_E_RANGE, "outside the 32-bit integers");
        pool->numa_state = NUMA_SET;
        pool->numa_node = json_integer_value(x);
    }
    numafit__jp_pop(p, old);
    if (flat) {
        /* every other key is a tag */
        json_t *tags = json_object();
        json_object_foreach(d, key, x) {
            unsigned k;
            for (k = 0; pool_fields[k] && strcmp(pool_fields[k], key); k++)
                ;
            if (!pool_fields[k] && (!tags || json_object_set(tags, key, x) < 0)) {
                json_decref(tags);
                return numafit__jp_nomem(p);
            }
        }
        if (!tags)
            return numafit__jp_nomem(p);
        r = read_map(p, tags, pool_fields, &pool->tags, &pool->ntags);
        json_decref(tags);
        return r;
    }
    json_object_foreach(d, key, x) {
        unsigned k;
        for (k = 0; pool_fields[k] && strcmp(pool_fields[k], key); k++)
            ;
        if (!pool_fields[k] && strcmp(key, "tags")) {
            numafit__jp_push(p, key);
            return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "not a field of a PciDevicePool");
        }
    }
    x = json_object_get(d, "tags");
    if (!x || json_is_null(x))
        return 0;
    old = numafit__jp_push(p, "tags");
    r = read_map(p, x, pool_fields, &pool->tags, &pool->ntags);
    numafit__jp_pop(p, old);
    return r;
}

int numafit__pci_read_array(struct numafit__jpath *p, const json_t *list, size_t max,
                            const char *what, size_t size, read_elem_fn fn, void **ret,
                            uint32_t *ret_n) {
    size_t i, n = json_array_size(list);
    json_t *v;
    char *a;
    int r;
    if (n > max)
        return numafit__jp_fail(p, -ERANGE, NUMAFIT_E_RANGE, "more than %zu %s", max, what);
    if (!n)
        return 0;
    if (!(a = numafit__calloc(n, size)))
        return numafit__jp_nomem(p);
    *ret = a;
    json_array_foreach((json_t *)list, i, v) {
        size_t old = numafit__jp_index(p, i);
        (*ret_n)++;
        if ((r = fn(p, v, a + i * size)) < 0)
            return r;
        numafit__jp_pop(p, old);
    }
    return 0;
}

static int read_pool_elem(struct numafit__jpath *p, json_t *v, void *e) {
    return read_pool(p, v, e);
}

_Static_assert(NUMAFIT_PCI_TAGS_MAX + 8 < 255, "a pool's tag_at[] holds 1 + a tag index in a byte");

static unsigned pool_keys(const struct pci_pool *p) {
    return 3u + (p->numa_state != NUMA_ABSENT) + p->ntags;
}

static uint8_t pool_kind(const struct pci_pool *P);

/* nova's order: stable by the number of keys (PciDeviceStats sorts by len);
 * each pool's kind worked out. */
int numafit__pci_sort_pools(numafit_pci_pools_t *pools) {
    unsigned most = 0;
    struct pci_pool *s;
    uint32_t k = 0;
    for (uint32_t i = 0; i < pools->n; i++) {
        struct pci_pool *P = &pools->p[i];
        P->vendor_h = numafit__pci_value_hash(P->vendor_id);
        P->product_h = numafit__pci_value_hash(P->product_id);
        memset(P->tag_at, 0, sizeof(P->tag_at));
        for (uint32_t t = 0; t < P->ntags; t++) {
            P->tags[t].vh = numafit__pci_value_hash(P->tags[t].value);
            if (P->tags[t].id && P->tags[t].id < PCI_KEY_N && !P->tag_at[P->tags[t].id])
                P->tag_at[P->tags[t].id] = (uint8_t)(t + 1);
        }
        P->kind = pool_kind(P);
    }
    if (pools->n < 2)
        return 0;
    for (uint32_t i = 0; i < pools->n; i++)
        if (pool_keys(&pools->p[i]) > most)
            most = pool_keys(&pools->p[i]);
    s = numafit__malloc(pools->n * sizeof(*s));
    if (!s)
        return -ENOMEM;
    for (unsigned len = 0; len <= most; len++)
        for (uint32_t i = 0; i < pools->n; i++)
            if (pool_keys(&pools->p[i]) == len)
                s[k++] = pools->p[i];
    free(pools->p);
    pools->p = s;
    return 0;
}

/* A document that is a JSON string holding the document (nova's columns). */
int numafit__pci_parse_doc(const char *what, const char *buf, size_t len, json_t **ret,
                           numafit_error_t *err) {
    const struct numafit__json_src src = {what, NUMAFIT__JSON_VALUES_HOST, JSON_DECODE_ANY, ""};
    json_error_t jerr;
    json_t *doc = NULL;
    int r = numafit__json_parse(&src, buf, len, &doc, &jerr, err);
    if (r == -EBADMSG)
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, "", NULL, "%s: %s (line %d, column %d)", what,
                           jerr.text, jerr.line, jerr.column);
    if (r < 0)
        return r;
    if (json_is_string(doc)) {
        json_t *inner = NULL;
        r = numafit__json_parse(&src, json_string_value(doc), json_string_length(doc), &inner,
                                &jerr, err);
        json_decref(doc);
        if (r == -EBADMSG)
            numafit__error_set(err, NUMAFIT_E_PARSE, -1, "", NULL,
                               "%s (in a JSON string): %s (line %d, column %d)", what, jerr.text,
                               jerr.line, jerr.column);
        if (r < 0)
            return r;
        doc = inner;
    }
    *ret = doc;
    return 0;
}

NUMAFIT_EXPORT int numafit_pci_pools_new_from_json(const char *buf, size_t len, unsigned flags,
                                                   numafit_pci_pools_t **ret,
                                                   numafit_error_t *err) {
    struct numafit__jpath p;
    numafit_pci_pools_t *pools = NULL;
    json_t *doc = NULL, *list = NULL;
    int r;

    numafit__error_clear(err);
    if (!buf || !ret || flags) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL,
                           flags ? "unknown flag bits" : "a JSON text and ret are required");
        return -EINVAL;
    }
    if ((r = numafit__pci_parse_doc("PCI pools", buf, len, &doc, err)) < 0)
        return r;
    numafit__jp_init(&p, err);
    if (json_is_object(doc) && json_object_get(doc, "nova_object.name")) {
        int minor;
        json_t *d = numafit__jp_unwrap(&p, doc, "PciDevicePoolList", 1, &minor, &r);
        if (!d)
            goto out;
        numafit__jp_push(&p, "objects");
        list = json_object_get(d, "objects");
        if (!json_is_array(list)) {
            r = numafit__jp_fail(&p, -EINVAL, NUMAFIT_E_SCHEMA, "must be an array");
            goto out;
        }
        json_incref(list);
    } else if (json_is_array(doc)) {
        list = json_incref(doc);
    } else if (json_is_object(doc)) {
        list = json_pack("[O]", doc);
        if (!list) {
            r = numafit__jp_nomem(&p);
            goto out;
        }
    } else {
        r = numafit__jp_fail(&p, -EINVAL, NUMAFIT_E_SCHEMA,
                             "PCI pools must be a PciDevicePoolList, a list of pools or a pool");
        goto out;
    }
    pools = numafit__calloc(1, sizeof(*pools));
    if (!pools) {
        r = numafit__jp_nomem(&p);
        goto out;
    }
    if ((r = numafit__pci_read_array(&p, list, NUMAFIT_PCI_POOLS_MAX, "pools", sizeof(*pools->p),
                                     read_pool_elem, (void **)&pools->p, &pools->n)) < 0)
        goto out;
    if (numafit__pci_sort_pools(pools) < 0) {
        r = numafit__jp_nomem(&p);
        goto out;
    }
    *ret = pools;
    pools = NULL;
    r = 0;
out:
    numafit_pci_pools_free(pools);
    json_decref(list);
    json_decref(doc);
    return r;
}

static int read_policy(struct numafit__jpath *p, const json_t *v, int *ret) {
    *ret = NUMAFIT_PCI_POLICY_UNSET;
    if (!v || json_is_null(v))
        return 0;
    for (int k = 1; k <= NUMAFIT_PCI_POLICY_SOCKET; k++)
        if (json_is_string(v) && !strcmp(json_string_value(v), numafit__pci_policy_names[k])) {
            *ret = k;
            return 0;
        }
    return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA,
                            "must be required, legacy, preferred, socket or null");
}

static const char *const request_fields[] = {"count",       "spec",       "alias_name",   "is_new",
                                             "numa_policy", "request_id", "requester_id", NULL};

static int read_spec_elem(struct numafit__jpath *p, json_t *v, void *e) {
    struct pci_spec *s = e;
    return read_map(p, v, NULL, &s->kv, &s->n);
}

static int read_request(struct numafit__jpath *p, json_t *v, struct pci_request *req) {
    int rc = 0, minor, r;
    json_t *d = numafit__jp_unwrap(p, v, "InstancePCIRequest", 4, &minor, &rc), *x;
    const char *key;
    size_t old;
    if (!d)
        return rc;
    if (!json_is_object(d))
        return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "a request must be an object, not %s",
                                numafit__json_type_name(d));
    json_object_foreach(d, key, x) {
        unsigned k;
        for (k = 0; request_fields[k] && strcmp(request_fields[k], key); k++)
            ;
        if (!request_fields[k]) {
            numafit__jp_push(p, key);
            return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA,
                                    "not a field of an InstancePCIRequest");
        }
    }
    old = numafit__jp_push(p, "count");
    if (!(x = json_object_get(d, "count")))
        return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "\"count\" is required");
    if ((r = read_count(p, x, &req->count)) < 0)
        return r;
    numafit__jp_pop(p, old);
    old = numafit__jp_push(p, "spec");
    x = json_object_get(d, "spec");
    if (!json_is_array(x))
        return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "must be an array of objects");
    if ((r = numafit__pci_read_array(p, x, NUMAFIT_PCI_SPECS_MAX, "specs", sizeof(*req->specs),
                                     read_spec_elem, (void **)&req->specs, &req->nspecs)) < 0)
        return r;
    numafit__jp_pop(p, old);
    for (unsigned k = 0; k < 3; k++) {
        static const char *const names[] = {"alias_name", "request_id", "requester_id"};
        char **dst[] = {&req->alias_name, &req->request_id, &req->requester_id};
        old = numafit__jp_push(p, names[k]);
        if ((x = json_object_get(d, names[k])) &&
            (r = numafit__pci_read_str(p, x, true, dst[k])) < 0)
            return r;
        numafit__jp_pop(p, old);
    }
    old = numafit__jp_push(p, "is_new");
    x = json_object_get(d, "is_new");
    if (x && !json_is_boolean(x))
        return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "must be true or false");
    req->is_new = json_is_true(x);
    numafit__jp_pop(p, old);
    old = numafit__jp_push(p, "numa_policy");
    if ((r = read_policy(p, json_object_get(d, "numa_policy"), &req->policy)) < 0)
        return r;
    numafit__jp_pop(p, old);
    return 0;
}

static int read_request_elem(struct numafit__jpath *p, json_t *v, void *e) {
    return read_request(p, v, e);
}

NUMAFIT_EXPORT int numafit_pci_requests_new_from_json(const char *buf, size_t len, unsigned flags,
                                                      numafit_pci_requests_t **ret,
                                                      numafit_error_t *err) {
    struct numafit__jpath p;
    numafit_pci_requests_t *reqs = NULL;
    json_t *doc = NULL, *list = NULL;
    char *uuid = NULL;
    int r;

    numafit__error_clear(err);
    if (!buf || !ret || flags) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL,
                           flags ? "unknown flag bits" : "a JSON text and ret are required");
        return -EINVAL;
    }
    if ((r = numafit__pci_parse_doc("PCI requests", buf, len, &doc, err)) < 0)
        return r;
    numafit__jp_init(&p, err);
    if (json_is_array(doc)) {
        list = json_incref(doc);
    } else if (json_is_object(doc)) {
        int minor;
        json_t *d = numafit__jp_unwrap(&p, doc, "InstancePCIRequests", 1, &minor, &r), *x;
        const char *key;
        if (!d)
            goto out;
        json_object_foreach(d, key, x) {
            if (strcmp(key, "requests") && strcmp(key, "instance_uuid")) {
                numafit__jp_push(&p, key);
                r = numafit__jp_fail(&p, -EINVAL, NUMAFIT_E_SCHEMA,
                                     "not a field of InstancePCIRequests");
                goto out;
            }
        }
        if ((x = json_object_get(d, "instance_uuid"))) {
            size_t old = numafit__jp_push(&p, "instance_uuid");
            if ((r = numafit__pci_read_str(&p, x, true, &uuid)) < 0)
                goto out;
            numafit__jp_pop(&p, old);
        }
        numafit__jp_push(&p, "requests");
        list = json_object_get(d, "requests");
        if (!json_is_array(list)) {
            r = numafit__jp_fail(&p, -EINVAL, NUMAFIT_E_SCHEMA, "must be an array");
            goto out;
        }
        json_incref(list);
    } else {
        r = numafit__jp_fail(&p, -EINVAL, NUMAFIT_E_SCHEMA,
                             "PCI requests must be InstancePCIRequests or a list of requests");
        goto out;
    }
    reqs = numafit__calloc(1, sizeof(*reqs));
    if (!reqs) {
        r = numafit__jp_nomem(&p);
        goto out;
    }
    reqs->instance_uuid = uuid;
    uuid = NULL;
    if ((r = numafit__pci_read_array(&p, list, NUMAFIT_PCI_REQUESTS_MAX, "requests",
                                     sizeof(*reqs->r), read_request_elem, (void **)&reqs->r,
                                     &reqs->n)) < 0)
        goto out;
    *ret = reqs;
    reqs = NULL;
    r = 0;
out:
    free(uuid);
    numafit_pci_requests_free(reqs);
    json_decref(list);
    json_decref(doc);
    return r;
}

/* ------------------------------------------------------------ writing */

static json_t *map_json(const struct pci_tag *t, uint32_t n) {
    json_t *o = json_object();
    for (uint32_t i = 0; o && i < n; i++)
        if (numafit__json_put(o, t[i].key, numafit__json_str_or_null(t[i].value)) < 0) {
            json_decref(o);
            return NULL;
        }
    return o;
}

NUMAFIT_EXPORT int numafit_pci_pools_to_json(const numafit_pci_pools_t *pools, unsigned flags,
                                             char **ret, numafit_error_t *err) {
    json_t *list = json_array(), *doc;
    bool fail = !list;
    numafit__error_clear(err);
    if (!pools || !ret || (flags & ~(unsigned)(NUMAFIT_JSON_INDENT | NUMAFIT_HOST_JSON_STRING))) {
        json_decref(list);
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL, "invalid argument");
        return -EINVAL;
    }
    for (uint32_t i = 0; !fail && i < pools->n; i++) {
        const struct pci_pool *p = &pools->p[i];
        json_t *d = json_object();
        fail = !d || numafit__json_put(d, "product_id", json_string(p->product_id)) < 0 ||
               numafit__json_put(d, "vendor_id", json_string(p->vendor_id)) < 0 ||
               (p->numa_state != NUMA_ABSENT &&
                numafit__json_put(d, "numa_node",
                                  p->numa_state == NUMA_SET ? json_integer(p->numa_node)
                                                            : json_null()) < 0) ||
               numafit__json_put(d, "tags", map_json(p->tags, p->ntags)) < 0 ||
               numafit__json_put(d, "count", json_integer(p->count)) < 0;
        if (fail) {
            json_decref(d);
            break;
        }
        fail =
            json_array_append_new(list, numafit__json_envelope("PciDevicePool", "1.1", d, 0)) < 0;
    }
    doc = fail ? NULL : json_pack("{so}", "objects", list);
    if (fail)
        json_decref(list);
    return numafit__json_emit(
        doc ? numafit__json_envelope("PciDevicePoolList", "1.1", doc, 0) : NULL, flags, ret, err);
}

NUMAFIT_EXPORT int numafit_pci_requests_to_json(const numafit_pci_requests_t *reqs, unsigned flags,
                                                char **ret, numafit_error_t *err) {
    json_t *list = json_array(), *doc;
    bool fail = !list;
    numafit__error_clear(err);
    if (!reqs || !ret || (flags & ~(unsigned)(NUMAFIT_JSON_INDENT | NUMAFIT_HOST_JSON_STRING))) {
        json_decref(list);
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL, "invalid argument");
        return -EINVAL;
    }
    for (uint32_t i = 0; !fail && i < reqs->n; i++) {
        const struct pci_request *q = &reqs->r[i];
        json_t *d = json_object(), *specs = json_array();
        fail = !d || !specs;
        for (uint32_t s = 0; !fail && s < q->nspecs; s++)
            fail = json_array_append_new(specs, map_json(q->specs[s].kv, q->specs[s].n)) < 0;
        if (fail) {
            json_decref(specs);
            json_decref(d);
            break;
        }
        fail =
            numafit__json_put(d, "count", json_integer(q->count)) < 0 ||
            numafit__json_put(d, "spec", specs) < 0 ||
            numafit__json_put(d, "alias_name", numafit__json_str_or_null(q->alias_name)) < 0 ||
            numafit__json_put(d, "is_new", json_boolean(q->is_new)) < 0 ||
            numafit__json_put(d, "request_id", numafit__json_str_or_null(q->request_id)) < 0 ||
            numafit__json_put(d, "requester_id", numafit__json_str_or_null(q->requester_id)) < 0 ||
            (q->policy && numafit__json_put(d, "numa_policy",
                                            json_string(numafit__pci_policy_names[q->policy])) < 0);
        if (fail) {
            json_decref(d);
            break;
        }
        fail = json_array_append_new(list,
                                     numafit__json_envelope("InstancePCIRequest", "1.4", d, 0)) < 0;
    }
    doc = fail ? NULL : json_object();
    if (doc && ((reqs->instance_uuid &&
                 numafit__json_put(doc, "instance_uuid", json_string(reqs->instance_uuid)) < 0) ||
                numafit__json_put(doc, "requests", list) < 0)) {
        json_decref(doc);
        doc = NULL;
    } else if (!doc) {
        json_decref(list);
    }
    return numafit__json_emit(
        doc ? numafit__json_envelope("InstancePCIRequests", "1.1", doc, 0) : NULL, flags, ret, err);
}

/* ------------------------------------------------------------ matching */

/* What pool p has under key: PV_NONE (absent or null), PV_STR (*s), PV_INT
 * (numa_node, count: never equal to a spec's string). */
enum { PV_NONE, PV_STR, PV_INT };

uint64_t numafit__pci_value_hash(const char *value) {
    uint64_t h = 1469598103934665603ull, w = 0; /* FNV-1a, and the short form */
    unsigned n = 0;
    if (!value)
        return 0;
    for (const unsigned char *c = (const unsigned char *)value; *c; c++, n++) {
        unsigned char x = *c >= 'A' && *c <= 'Z' ? (unsigned char)(*c - 'A' + 'a') : *c;
        h = (h ^ x) * 1099511628211ull;
        if (n < 7)
            w |= (uint64_t)x << (8 * n);
    }
    if (n <= 7)
        return PCI_VALUE_EXACT | (uint64_t)n << 56 | w;
    return h & ~PCI_VALUE_EXACT;
}

uint8_t numafit__pci_key_id(const char *key) {
    static const char *const names[] = {
        NULL,      "vendor_id",     "product_id",     "numa_node",
        "count",   "dev_type",      "remote_managed", "physical_network",
        "trusted", "parent_ifname", "address",        "resource_class",
        "traits",  "rp_uuids",      "rp_uuid",        "live_migratable"};
    for (uint8_t i = 1; i < sizeof(names) / sizeof(names[0]); i++)
        if (key[0] == names[i][0] && !strcmp(key, names[i]))
            return i;
    return PCI_KEY_OTHER;
}

/* Are the keys a (its id ia) and b the same? Keys with an id compare by it
 * (every tag and spec key has its numafit__pci_key_id()). */
static inline bool same_key_id(const char *a, uint8_t ia, const char *b, uint8_t ib) {
    if (ia || ib)
        return ia == ib;
    return a[0] == b[0] && !strcmp(a, b);
}

/* A spec key: one of the pool's fields, or a tag. */
enum { F_TAG, F_VENDOR, F_PRODUCT, F_NUMA, F_COUNT };

static int field_of(uint8_t id) {
    switch (id) {
        case PCI_KEY_VENDOR_ID:
            return F_VENDOR;
        case PCI_KEY_PRODUCT_ID:
            return F_PRODUCT;
        case PCI_KEY_NUMA_NODE:
            return F_NUMA;
        case PCI_KEY_COUNT:
            return F_COUNT;
        default:
            return F_TAG;
    }
}

/* What pool p has under key, whose field_of() is field: PV_NONE (absent
 * or null), PV_STR (*s), PV_INT (numa_node, count: never equal to a
 * spec's string). */
static int pool_field(const struct pci_pool *p, int field, const char *key, uint8_t id,
                      const char **s, uint64_t *h) {
    switch (field) {
        case F_VENDOR:
            *s = p->vendor_id;
            *h = p->vendor_h;
            return PV_STR;
        case F_PRODUCT:
            *s = p->product_id;
            *h = p->product_h;
            return PV_STR;
        case F_NUMA:
            return p->numa_state == NUMA_SET ? PV_INT : PV_NONE;
        case F_COUNT:
            return PV_INT;
        default:
            break;
    }
    if (id) {
        const struct pci_tag *t = p->tag_at[id] ? &p->tags[p->tag_at[id] - 1] : NULL;
        if (!t)
            return PV_NONE;
        *s = t->value;
        *h = t->vh;
        return *s ? PV_STR : PV_NONE;
    }
    for (uint32_t i = 0; i < p->ntags; i++)
        if (same_key_id(p->tags[i].key, p->tags[i].id, key, id)) {
            *s = p->tags[i].value;
            *h = p->tags[i].vh;
            return *s ? PV_STR : PV_NONE;
        }
    return PV_NONE;
}

/* Python's a.lower() == b.lower() for ASCII (other bytes compared as they are). */
static bool eq_nocase(const char *a, const char *b) {
    for (;; a++, b++) {
        unsigned char x = (unsigned char)*a, y = (unsigned char)*b;
        if (x == y) { /* the usual case: the same bytes */
            if (!x)
                return true;
            continue;
        }
        if (!x || !y)
            return false;
        if (x >= 'A' && x <= 'Z')
            x = (unsigned char)(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z')
            y = (unsigned char)(y - 'A' + 'a');
        if (x != y)
            return false;
    }
}

/* nova's pci_device_prop_match for one spec; the latest rules leave out
 * the keys placement matches (resource_class, traits, rp_uuids). */
static bool spec_matches(const struct pci_pool *p, const struct pci_spec *s, bool latest) {
    for (uint32_t i = 0; i < s->n; i++) {
        const char *pv = NULL;
        uint64_t h = 0;
        int kind;
        if (latest && (s->kv[i].id == PCI_KEY_RESOURCE_CLASS || s->kv[i].id == PCI_KEY_TRAITS ||
                       s->kv[i].id == PCI_KEY_RP_UUIDS))
            continue;
        kind = pool_field(p, field_of(s->kv[i].id), s->kv[i].key, s->kv[i].id, &pv, &h);
        if (!s->kv[i].value ? kind != PV_NONE
                            : kind != PV_STR || h != s->kv[i].vh ||
                                  (!(h & PCI_VALUE_EXACT) && !eq_nocase(pv, s->kv[i].value)))
            return false;
    }
    return true;
}

/* The value of the key of id (not PCI_KEY_OTHER) in spec s (NULL: absent or null). */
static const char *spec_get(const struct pci_spec *s, uint8_t id) {
    for (uint32_t i = 0; i < s->n; i++)
        if (s->kv[i].id == id)
            return s->kv[i].value;
    return NULL;
}

static const char *pool_tag(const struct pci_pool *p, uint8_t id) {
    return p->tag_at[id] ? p->tags[p->tag_at[id] - 1].value : NULL;
}

/* ------------------------------------------------------------ the walk */

/* The state of a check: each pool's count left and whether nova still
 * has it (a pool is removed when a request empties it). */
struct walk {
    const numafit_pci_pools_t *pools;
    const numafit_host_t *host;
    const int64_t *cells;
    size_t ncells;
    int64_t *left;
    bool *alive;
    uint32_t *list, *tmp;           /* pool indices */
    const uint8_t *prep;            /* [r * pools + i]: PREP_* bits, or NULL */
    uint8_t *row;                   /* without prep: one request's PREP_* bits */
    bool latest;                    /* upstream nova's rules (else Zed's) */
    struct numafit__pci_fail *fail; /* why it failed, or NULL */
};

/* What a request makes of a pool, worked out once for many walks
 * (numafit__pci_prepare): it matches; the PF step drops it; the vdpa or
 * remote-managed step drops it. */
enum { PREP_MATCH = 1, PREP_PF = 2, PREP_OTHER = 4, PREP_LM = 8 };

static bool node_in(const int64_t *ids, size_t n, const struct pci_pool *p, bool with_null) {
    if (p->numa_state != NUMA_SET)
        return with_null;
    for (size_t i = 0; i < n; i++)
        if (ids[i] == p->numa_node)
            return true;
    return false;
}

static bool on_cells(const struct walk *w, const struct pci_pool *p, bool with_null) {
    return node_in(w->cells, w->ncells, p, with_null);
}

/* The ids of the host cells in the sockets of the guest's cells (at most
 * NUMAFIT_CELL_ID_MAX + 1); false when there is no host or a host cell has
 * no socket: nova then finds nothing. */
static bool socket_cells(const struct walk *w, int64_t *ids, size_t *ret_n) {
    const struct numafit__cell *cells = w->host ? w->host->cells : NULL;
    uint32_t n = w->host ? w->host->ncells : 0;
    int32_t list[NUMAFIT_CELL_ID_MAX + 1];
    size_t k = 0, nl = 0;
    if (!w->host || n > NUMAFIT_CELL_ID_MAX + 1)
        return false;
    for (uint32_t c = 0; c < n; c++)
        if (cells[c].socket < 0)
            return false;
    /* the distinct sockets (few) of the host cells of the guest's cells,
     * then every cell in those */
    for (uint32_t c = 0; c < n; c++) {
        bool in = false, known = false;
        for (size_t i = 0; i < w->ncells && !in; i++)
            in = w->cells[i] == cells[c].id;
        for (size_t i = 0; i < nl && !known && in; i++)
            known = list[i] == cells[c].socket;
        if (in && !known)
            list[nl++] = cells[c].socket;
    }
    for (uint32_t c = 0; c < n; c++)
        for (size_t i = 0; i < nl; i++)
            if (list[i] == cells[c].socket) {
                ids[k++] = cells[c].id;
                break;
            }
    *ret_n = k;
    return true;
}

/* Keep the indices of l (n of them) for which keep() holds, in order. */
#define FILTER(l, n, cond)                                                                         \
    do {                                                                                           \
        uint32_t k_ = 0;                                                                           \
        for (uint32_t i_ = 0; i_ < (n); i_++) {                                                    \
            const struct pci_pool *P = &w->pools->p[(l)[i_]];                                      \
            (void)P;                                                                               \
            if (cond)                                                                              \
                (l)[k_++] = (l)[i_];                                                               \
        }                                                                                          \
        (n) = k_;                                                                                  \
    } while (0)

/* Keep the indices of l (n of them) for which cond holds, in order, and
 * set s to the devices left in those. */
#define FILTER_SUM(l, n, s, cond)                                                                  \
    do {                                                                                           \
        uint32_t k_ = 0;                                                                           \
        (s) = 0;                                                                                   \
        for (uint32_t i_ = 0; i_ < (n); i_++) {                                                    \
            const struct pci_pool *P = &w->pools->p[(l)[i_]];                                      \
            (void)P;                                                                               \
            if (cond) {                                                                            \
                (s) += w->left[(l)[i_]];                                                           \
                (l)[k_++] = (l)[i_];                                                               \
            }                                                                                      \
        }                                                                                          \
        (n) = k_;                                                                                  \
    } while (0)

/* Make w->tmp the list and w->list the spare (the pools kept were written
 * into w->tmp). */
static inline void swap_lists(struct walk *w) {
    uint32_t *t = w->list;
    w->list = w->tmp;
    w->tmp = t;
}

/* nova's _filter_pools_for_numa_cells on w->list (*n, holding total
 * devices left): the pools kept, in order, in w->list (which may now be
 * the other buffer), and the devices left in them. One pass over the pools
 * counts those on the cells and those of no known node before any list is
 * written. */
static int64_t numa_filter(struct walk *w, const struct pci_request *r, uint32_t *n,
                           int64_t total) {
    int policy = r->policy ? r->policy : NUMAFIT_PCI_POLICY_LEGACY;
    uint32_t *l = w->list, *t = w->tmp, m = 0, k = *n;
    int64_t on = 0, unknown = 0;
    if (!w->ncells)
        return total;
    for (uint32_t i = 0; i < k; i++) {
        const struct pci_pool *P = &w->pools->p[l[i]];
        if (P->numa_state != NUMA_SET)
            unknown += w->left[l[i]];
        else if (on_cells(w, P, false)) {
            on += w->left[l[i]];
            t[m++] = l[i];
        }
    }
    if (policy == NUMAFIT_PCI_POLICY_REQUIRED || on >= r->count) {
        swap_lists(w);
        *n = m;
        return on;
    }
    if (policy == NUMAFIT_PCI_POLICY_SOCKET) {
        int64_t ids[NUMAFIT_CELL_ID_MAX + 1], s = 0;
        size_t nids = 0;
        m = socket_cells(w, ids, &nids) ? k : 0;
        memcpy(t, l, m * sizeof(*l));
        FILTER_SUM(t, m, s, node_in(ids, nids, P, false));
        swap_lists(w);
        *n = m;
        return s;
    }
    if (policy == NUMAFIT_PCI_POLICY_LEGACY || on + unknown >= r->count) {
        int64_t s;
        FILTER_SUM(l, k, s, on_cells(w, P, true));
        *n = k;
        return s;
    }
    /* preferred: every pool, those on the cells or of unknown node first */
    m = 0;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < k; i++)
            if (on_cells(w, &w->pools->p[l[i]], true) == !pass)
                t[m++] = l[i];
    swap_lists(w);
    return total;
}

/* What a pool is (IS_*) or what a request's specs ask for, for the
 * exclusions: a PF, a vdpa device, a remote-managed device. */
enum { IS_PF = 1, IS_VDPA = 2, IS_RM = 4 };

static uint8_t kind_of(const char *dev_type, const char *remote_managed) {
    return (uint8_t)((dev_type && !strcmp(dev_type, "type-PF") ? IS_PF : 0) |
                     (dev_type && !strcmp(dev_type, "vdpa") ? IS_VDPA : 0) |
                     (remote_managed && numafit__py_bool(remote_managed) ? IS_RM : 0));
}

static uint8_t pool_kind(const struct pci_pool *P) {
    return kind_of(pool_tag(P, PCI_KEY_DEV_TYPE), pool_tag(P, PCI_KEY_REMOTE_MANAGED));
}

/* The exact key (numafit__pci_value_hash) of a lower-case value of n <= 7
 * bytes, from its bytes. */
#define KEY7(n, a, b, c, d, e, f, g)                                                               \
    (PCI_VALUE_EXACT | (uint64_t)(n) << 56 | (uint64_t)(a) | (uint64_t)(b) << 8 |                  \
     (uint64_t)(c) << 16 | (uint64_t)(d) << 24 | (uint64_t)(e) << 32 | (uint64_t)(f) << 40 |       \
     (uint64_t)(g) << 48)

/* The PREP_* bits of request r for each pool into out[pools->n]: the
 * specs are read once (what they ask to keep, their vendor and product
 * keys, live_migratable), then each pool once against them. */
static void prep_request(const numafit_pci_pools_t *pools, const struct pci_request *r, bool latest,
                         uint8_t *out) {
    static const uint64_t type_pf = KEY7(7, 't', 'y', 'p', 'e', '-', 'p', 'f');
    static const uint64_t vdpa = KEY7(4, 'v', 'd', 'p', 'a', 0, 0, 0);
    /* per spec: its vendor and product keys (0: not asked), or skip (a
     * null vendor_id or product_id: no pool has one) */
    uint64_t vend[NUMAFIT_PCI_SPECS_MAX], prod[NUMAFIT_PCI_SPECS_MAX];
    bool skip[NUMAFIT_PCI_SPECS_MAX];
    uint8_t want = 0, drop_pf, drop_other;
    int lm = 0; /* latest: every spec asks live_migratable "true" (1) or "false" (2) */
    bool all_t = true, all_f = true;
    uint32_t ns = r->nspecs;
    for (uint32_t s = 0; s < ns; s++) {
        const struct pci_spec *sp = &r->specs[s];
        const char *lmv = NULL; /* the first live_migratable's value (spec_get) */
        bool lm_seen = false;
        vend[s] = prod[s] = 0;
        skip[s] = false;
        for (uint32_t k = 0; k < sp->n; k++) {
            const struct pci_tag *t = &sp->kv[k];
            switch (t->id) {
                case PCI_KEY_VENDOR_ID:
                    skip[s] |= !t->value;
                    if (!vend[s])
                        vend[s] = t->vh;
                    break;
                case PCI_KEY_PRODUCT_ID:
                    skip[s] |= !t->value;
                    if (!prod[s])
                        prod[s] = t->vh;
                    break;
                case PCI_KEY_DEV_TYPE: /* spec_kind() */
                    if (!t->value)
                        break;
                    if (t->vh == type_pf && !strcmp(t->value, "type-PF"))
                        want |= IS_PF;
                    else if (t->vh == vdpa && !strcmp(t->value, "vdpa"))
                        want |= IS_VDPA;
                    break;
                case PCI_KEY_REMOTE_MANAGED:
                    if (t->value && numafit__py_bool(t->value))
                        want |= IS_RM;
                    break;
                case PCI_KEY_LIVE_MIGRATABLE:
                    if (!lm_seen)
                        lmv = t->value;
                    lm_seen = true;
                    break;
                default:
                    break;
            }
        }
        if (latest) {
            all_t = all_t && lmv && !strcmp(lmv, "true");
            all_f = all_f && lmv && !strcmp(lmv, "false");
        }
    }
    /* nova's _filter_pools_for_live_migratable_devices (exact strings) */
    if (latest && ns)
        lm = all_t ? 1 : all_f ? 2 : 0;
    /* the exclusions by a pool's kind (IS_*): what the specs do not ask for */
    drop_pf = (uint8_t)(IS_PF & ~want);
    drop_other = (uint8_t)((IS_VDPA | IS_RM) & ~want);
    for (uint32_t i = 0; i < pools->n; i++) {
        const struct pci_pool *P = &pools->p[i];
        uint8_t b =
            (uint8_t)((P->kind & drop_pf ? PREP_PF : 0) | (P->kind & drop_other ? PREP_OTHER : 0));
        for (uint32_t s = 0; s < ns; s++) {
            /* a pool of another vendor or product fails the spec on that
             * key alone (keys equal for equal values): not matched */
            if (skip[s] || (vend[s] && P->vendor_h != vend[s]) ||
                (prod[s] && P->product_h != prod[s]))
                continue;
            if (spec_matches(P, &r->specs[s], latest)) {
                b |= PREP_MATCH;
                break;
            }
        }
        if (lm) {
            const char *v = pool_tag(P, PCI_KEY_LIVE_MIGRATABLE);
            if (!v || strcmp(v, lm == 1 ? "true" : "false") != 0)
                b |= PREP_LM;
        }
        out[i] = b;
    }
}

/* The refusal of two pools that split a provider, in err. */
static void split_text(numafit_error_t *err, const struct numafit__pci_fail *f) {
    numafit__error_set(err, NUMAFIT_E_NOFIT, -1, NULL, NULL,
                       "PCI request %zu: the pools split a resource provider "
                       "(%.64s) nova cannot take from",
                       f->ri, f->split);
    snprintf(err->where, sizeof(err->where), "pci_requests/%zu", f->ri);
}

/* ------------------------------------------------------------ placement (latest) */

#define RP_MAX (NUMAFIT_PCI_STRING_MAX / 2 + 1) /* providers one spec value can name */

size_t numafit__pci_rp_list(const struct pci_request *r, const char **rp, size_t *rplen,
                            size_t cap) {
    const char *v, *p;
    size_t n = 0;
    /* _get_rp_uuids_for_request: a port's request (no alias) has none */
    if (!r->alias_name || !r->nspecs || !(v = spec_get(&r->specs[0], PCI_KEY_RP_UUIDS)) || !*v)
        return 0;
    for (p = v; n < cap;) {
        const char *e = strchr(p, ',');
        rp[n] = p;
        rplen[n++] = e ? (size_t)(e - p) : strlen(p);
        if (!e)
            break;
        p = e + 1;
    }
    return n;
}

/* How many times the allocation names provider (s, n). */
static int64_t rp_count(const char *const *rp, const size_t *rplen, size_t nrp, const char *s,
                        size_t n) {
    int64_t k = 0;
    for (size_t i = 0; i < nrp; i++)
        k += rplen[i] == n && !memcmp(rp[i], s, n);
    return k;
}

/* _filter_pools_based_on_placement_allocation: pool P (left devices)
 * has a provider the allocation names, with room for what it took there. */
static bool placement_ok(const struct walk *w, const struct pci_pool *P, int64_t left,
                         const char *const *rp, const size_t *rplen, size_t nrp) {
    const char *u = pool_tag(P, PCI_KEY_RP_UUID);
    int64_t k;
    (void)w;
    if (!u)
        return false;
    k = rp_count(rp, rplen, nrp, u, strlen(u));
    return k > 0 && left >= k;
}

/* _apply_request with a placement allocation: every pool with a provider
 * (rp_uuid, even null) must be the only one of it; each pool kept gives
 * what placement took from its provider (the first pool of a provider
 * only), and leaves when emptied. */
static bool take_allocation(struct walk *w, const uint32_t *l, uint32_t n, const char *const *rp,
                            const size_t *rplen, size_t nrp, size_t ri, numafit_error_t *err) {
    for (uint32_t i = 0; i < w->pools->n; i++) {
        const struct pci_pool *A = &w->pools->p[i];
        const char *ua = pool_tag(A, PCI_KEY_RP_UUID);
        bool has_a = false;
        if (!w->alive[i])
            continue;
        for (uint32_t t = 0; t < A->ntags; t++)
            has_a = has_a || A->tags[t].id == PCI_KEY_RP_UUID;
        if (!has_a)
            continue;
        for (uint32_t j = i + 1; j < w->pools->n; j++) {
            const struct pci_pool *B = &w->pools->p[j];
            const char *ub = pool_tag(B, PCI_KEY_RP_UUID);
            bool has_b = false;
            if (!w->alive[j])
                continue;
            for (uint32_t t = 0; t < B->ntags; t++)
                has_b = has_b || B->tags[t].id == PCI_KEY_RP_UUID;
            if (has_b && (ua && ub ? !strcmp(ua, ub) : !ua && !ub)) {
                struct numafit__pci_fail f = {ri, 0, NULL, ua ? ua : "null"};
                if (w->fail)
                    *w->fail = f;
                if (err)
                    split_text(err, &f);
                return false;
            }
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t p = l[i];
        const char *u = pool_tag(&w->pools->p[p], PCI_KEY_RP_UUID);
        int64_t k = u ? rp_count(rp, rplen, nrp, u, strlen(u)) : 0;
        /* the provider's count once (nova pops it from its counter) */
        for (uint32_t j = 0; j < i && k; j++) {
            const char *v = pool_tag(&w->pools->p[l[j]], PCI_KEY_RP_UUID);
            if (v && !strcmp(v, u))
                k = 0;
        }
        w->left[p] -= k;
        if (w->left[p] <= 0) {
            w->left[p] = 0;
            w->alive[p] = false;
        }
    }
    return true;
}

/* ------------------------------------------------------------ refusal text */

/* A text written into a buffer of cap bytes: at most cap - 1 of them, the
 * end (tb_end) marked by the caller. Written by hand, each piece copied
 * with its length known: a refusal's text is worded on every fit that
 * fails for devices. */
struct tbuf {
    char *p, *end; /* the next byte, the last byte (room for the '\0') */
};

static inline void tb_mem(struct tbuf *b, const char *s, size_t n) {
    size_t room = (size_t)(b->end - b->p);
    if (n > room) { /* truncated */
        memcpy(b->p, s, room);
        b->p += room;
        return;
    }
    memcpy(b->p, s, n); /* a literal's length: a few moves */
    b->p += n;
}

#define TB_LIT(b, lit) tb_mem(b, lit, sizeof(lit) - 1)

static inline void tb_int(struct tbuf *b, int64_t v) {
    char tmp[24];
    size_t n = sizeof(tmp);
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    if (v >= 0 && v < 10) { /* the usual case: one digit */
        if (b->p < b->end)
            *b->p++ = (char)('0' + v);
        return;
    }
    do {
        tmp[--n] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        tmp[--n] = '-';
    tb_mem(b, tmp + n, sizeof(tmp) - n);
}

/* "PCI request RI (alias A) asks for C devices: only N WHY" in err, where
 * "pci_requests/RI". */
static void why_text(numafit_error_t *err, const struct pci_request *r, size_t ri, int64_t found,
                     const char *why) {
    struct tbuf t = {err->text, err->text + sizeof(err->text) - 1};
    struct tbuf w = {err->where, err->where + sizeof(err->where) - 1};
    err->code = NUMAFIT_E_NOFIT;
    err->cell = -1;
    err->exception[0] = '\0';
    TB_LIT(&t, "PCI request ");
    tb_int(&t, (int64_t)ri);
    if (r->alias_name) {
        TB_LIT(&t, " (alias ");
        tb_mem(&t, r->alias_name, strnlen(r->alias_name, 100));
        TB_LIT(&t, ")");
    } else if (r->requester_id) {
        TB_LIT(&t, " (port ");
        tb_mem(&t, r->requester_id, strnlen(r->requester_id, 100));
        TB_LIT(&t, ")");
    }
    TB_LIT(&t, " asks for ");
    tb_int(&t, r->count);
    if (r->count == 1)
        TB_LIT(&t, " device: only ");
    else
        TB_LIT(&t, " devices: only ");
    tb_int(&t, found);
    TB_LIT(&t, " ");
    tb_mem(&t, why, strlen(why));
    *t.p = '\0';
    TB_LIT(&w, "pci_requests/");
    tb_int(&w, (int64_t)ri);
    *w.p = '\0';
}

/* nova's _filter_pools: the pools request r (index ri) takes from, in
 * order, into w->list (*ret_n); false with why in err when too few. The
 * devices left in the list are counted as it is filtered. */
static bool filter_req(struct walk *w, const struct pci_request *r, size_t ri, uint32_t *ret_n,
                       numafit_error_t *err) {
    uint32_t *l = w->list, n = 0;
    int64_t c = r->count, s = 0;
    const char *why = NULL;
    const uint8_t *b = w->prep ? w->prep + ri * w->pools->n : w->row;

    if (!w->prep)
        prep_request(w->pools, r, w->latest, w->row);
    for (uint32_t i = 0; i < w->pools->n; i++)
        if (w->alive[i] && (b[i] & PREP_MATCH)) {
            l[n++] = i;
            s += w->left[i];
        }
    if (s < c) {
        why = "devices match its specs";
        goto fail;
    }
    s = numa_filter(w, r, &n, s);
    l = w->list;
    if (s < c) {
        why = "matching devices are on NUMA nodes its policy allows";
        goto fail;
    }
    {
        /* nova's PF step (no spec asks for type-PF) counts again; it can
         * only fail when it dropped a pool */
        uint32_t m = n;
        FILTER_SUM(l, n, s, !(b[l[i_]] & PREP_PF));
        if (m != n && s < c) {
            why = "of them are not PFs (no spec asks for type-PF)";
            goto fail;
        }
    }
    FILTER_SUM(l, n, s, !(b[l[i_]] & PREP_OTHER));
    if (w->latest) {
        /* upstream nova: the pools of the request's placement allocation
         * (each with room for what placement took from it), then the
         * live-migratable step; one count at the end */
        const char *rp[RP_MAX];
        size_t rplen[RP_MAX], nrp = numafit__pci_rp_list(r, rp, rplen, RP_MAX);
        if (nrp)
            FILTER(l, n, placement_ok(w, P, w->left[l[i_]], rp, rplen, nrp));
        FILTER_SUM(l, n, s, !(b[l[i_]] & PREP_LM));
        if (s < c) {
            why = nrp ? "of them are in the placement allocation, or live-migratable as asked"
                      : "of them are neither vdpa nor remote-managed devices (no spec asks for "
                        "those), or live-migratable as asked";
            goto fail;
        }
    } else if (s < c) {
        /* nova counts again here whether or not this step dropped a pool: the
         * vdpa step before it has no count of its own */
        why = "of them are neither vdpa nor remote-managed devices (no spec asks for those)";
        goto fail;
    }
    if (!n) {
        why = "pool matches (none at all, even for a count of 0)";
        goto fail;
    }
    *ret_n = n;
    return true;
fail:
    if (!n)
        s = 0;
    if (w->fail) {
        w->fail->ri = ri;
        w->fail->found = s;
        w->fail->why = why;
        w->fail->split = NULL;
    }
    if (err)
        why_text(err, r, ri, s, why);
    return false;
}

void numafit__pci_fail_word(const numafit_pci_requests_t *reqs, const struct numafit__pci_fail *f,
                            numafit_error_t *err) {
    if (f->split)
        split_text(err, f);
    else
        why_text(err, &reqs->r[f->ri], f->ri, f->found, f->why);
}

static bool take(struct walk *w, const struct pci_request *r, size_t ri, numafit_error_t *err) {
    uint32_t *l, n = 0;
    int64_t c = r->count;
    if (!filter_req(w, r, ri, &n, err))
        return false;
    l = w->list; /* filter_req may have swapped the lists */
    if (w->latest) {
        const char *rp[RP_MAX];
        size_t rplen[RP_MAX], nrp = numafit__pci_rp_list(r, rp, rplen, RP_MAX);
        if (nrp)
            return take_allocation(w, l, n, rp, rplen, nrp, ri, err);
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t p = l[i];
        if (w->left[p] > c) {
            w->left[p] -= c;
            c = 0;
        } else {
            c -= w->left[p];
            w->left[p] = 0;
            w->alive[p] = false; /* nova removes the pool */
        }
        if (!c)
            break;
    }
    return true;
}

static int check_flags(unsigned flags, numafit_error_t *err) {
    if (flags & ~(unsigned)NUMAFIT_PCI_ZED) {
        numafit__error_clear(err);
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL, "unknown flag bits");
        return -EINVAL;
    }
    return 0;
}

static int check_args(const numafit_pci_pools_t *pools, const numafit_pci_requests_t *reqs,
                      const int64_t *cells, size_t ncells, numafit_error_t *err) {
    numafit__error_clear(err);
    if (!pools || !reqs || (ncells && !cells) || ncells > 1024) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL,
                           "pools, requests and the cell ids (at most 1024) are required");
        return -EINVAL;
    }
    return 0;
}

/* The scratch of a check: each pool's count left, two lists of pool
 * indices and whether nova still has the pool, in one block. */
size_t numafit__pci_scratch_size(const numafit_pci_pools_t *pools) {
    size_t n = pools->n ? pools->n : 1;
    return n * (sizeof(int64_t) + 2 * sizeof(uint32_t) + sizeof(bool) + 1);
}

/* The PREP_* bits of every request for every pool, for many walks on the
 * same pools and requests (pools->n * reqs->n bytes). */
void numafit__pci_prepare(const numafit_pci_pools_t *pools, const numafit_pci_requests_t *reqs,
                          bool latest, uint8_t *prep) {
    for (uint32_t r = 0; r < reqs->n; r++)
        prep_request(pools, &reqs->r[r], latest, prep + (size_t)r * pools->n);
}

/* Run the requests on a fresh state in scratch; 1 / 0. */
static int walk_run(struct walk *w, const numafit_pci_requests_t *reqs, void *scratch,
                    numafit_error_t *err) {
    size_t n = w->pools->n ? w->pools->n : 1;
    char *b = scratch;
    w->left = (int64_t *)(void *)b;
    w->list = (uint32_t *)(void *)(b + n * sizeof(int64_t));
    w->tmp = w->list + n;
    w->alive = (bool *)(void *)(w->tmp + n);
    w->row = (uint8_t *)(void *)(w->alive + n);
    for (uint32_t i = 0; i < w->pools->n; i++) {
        w->left[i] = w->pools->p[i].count;
        w->alive[i] = true;
    }
    for (uint32_t r = 0; r < reqs->n; r++)
        if (!take(w, &reqs->r[r], r, err))
            return 0;
    return 1;
}

int numafit__pci_filter_one(const numafit_pci_pools_t *pools, const numafit_host_t *host,
                            const struct pci_request *r, size_t ri, const int64_t *cell_ids,
                            size_t ncells, bool latest, uint32_t *list, uint32_t *n,
                            numafit_error_t *err) {
    struct walk w = {pools, host, cell_ids, ncells, NULL,   NULL,
                     NULL,  NULL, NULL,     NULL,   latest, NULL};
    size_t np = pools->n ? pools->n : 1;
    char *b = numafit__malloc(numafit__pci_scratch_size(pools));
    int rc;
    if (!b)
        return -ENOMEM;
    w.left = (int64_t *)(void *)b;
    w.list = (uint32_t *)(void *)(b + np * sizeof(int64_t));
    w.tmp = w.list + np;
    w.alive = (bool *)(void *)(w.tmp + np);
    w.row = (uint8_t *)(void *)(w.alive + np);
    for (uint32_t i = 0; i < pools->n; i++) {
        w.left[i] = pools->p[i].count;
        w.alive[i] = true;
    }
    rc = filter_req(&w, r, ri, n, err) ? 1 : 0;
    if (rc)
        memcpy(list, w.list, *n * sizeof(*list));
    free(b);
    return rc;
}

int numafit__pci_support(const numafit_pci_pools_t *pools, const numafit_host_t *host,
                         const numafit_pci_requests_t *reqs, const int64_t *cell_ids, size_t ncells,
                         void *scratch, const uint8_t *prep, bool latest,
                         struct numafit__pci_fail *fail, numafit_error_t *err) {
    struct walk w = {pools, host, cell_ids, ncells, NULL,   NULL,
                     NULL,  NULL, prep,     NULL,   latest, fail};
    return walk_run(&w, reqs, scratch, err);
}

/* The index of the host cell of id node, h->ncells when none: the cells'
 * ids are most often their indices, else they are searched. */
static inline uint32_t cell_index(const numafit_host_t *h, int64_t node) {
    uint32_t c;
    if (node >= 0 && node < (int64_t)h->ncells && h->cells[node].id == node)
        return (uint32_t)node;
    for (c = 0; c < h->ncells && h->cells[c].id != node; c++)
        ;
    return c;
}

void numafit__pci_cell_counts(const numafit_pci_pools_t *pools, const numafit_host_t *h,
                              int64_t *counts, uint8_t *any) {
    memset(counts, 0, h->ncells * sizeof(*counts));
    memset(any, 0, h->ncells);
    for (uint32_t i = 0; i < pools->n; i++) {
        const struct pci_pool *P = &pools->p[i];
        uint32_t c;
        if (P->numa_state != NUMA_SET || (c = cell_index(h, P->numa_node)) == h->ncells)
            continue;
        counts[c] += P->count;
        any[c] = 1;
    }
}

/* Can each request be met on some host cells at all? A request never gets
 * more than the devices of the pools that match it and that its own
 * exclusions keep (PF, vdpa, remote-managed), on whatever cells; false
 * when those are too few for one request (or none, as nova's walk fails
 * an empty list even for a count of 0). */
bool numafit__pci_possible(const numafit_pci_pools_t *pools, const numafit_pci_requests_t *reqs,
                           const uint8_t *prep) {
    for (uint32_t r = 0; r < reqs->n; r++) {
        const uint8_t *b = prep + (size_t)r * pools->n;
        bool any = false;
        int64_t n = 0;
        for (uint32_t i = 0; i < pools->n; i++)
            if ((b[i] & (PREP_MATCH | PREP_PF | PREP_OTHER | PREP_LM)) == PREP_MATCH) {
                any = true;
                n += pools->p[i].count;
            }
        if (!any || n < reqs->r[r].count)
            return false;
    }
    return true;
}

/* First whether every host cell has a socket (1) or not (0); then per
 * request a row of 2 * ncells + 2: the devices of the pools on each host
 * cell (by index), those of the pools of no known node, all the request
 * could ever take, and per host cell those on every cell of its socket
 * (when every cell has one). Only the pools the request matches and that
 * its exclusions keep (PF, vdpa, remote-managed, live-migratable) count:
 * whatever the walk gives a request is a part of those. */
size_t numafit__pci_caps_words(const numafit_pci_requests_t *reqs, const numafit_host_t *h) {
    return 1 + (size_t)reqs->n * (2 * (size_t)h->ncells + 2);
}

void numafit__pci_caps(const numafit_pci_pools_t *pools, const numafit_pci_requests_t *reqs,
                       const uint8_t *prep, const numafit_host_t *h, int64_t *cap) {
    uint32_t nc = h->ncells;
    size_t len = 2 * (size_t)nc + 2;
    bool sockets = true;
    memset(cap, 0, numafit__pci_caps_words(reqs, h) * sizeof(*cap));
    for (uint32_t c = 0; c < nc; c++)
        sockets &= h->cells[c].socket >= 0;
    cap[0] = sockets;
    cap++;
    for (uint32_t i = 0; i < pools->n; i++) {
        const struct pci_pool *P = &pools->p[i];
        uint32_t at = nc; /* no known node, or a node that is no host cell */
        if (P->numa_state == NUMA_SET && (at = cell_index(h, P->numa_node)) == nc)
            at = nc + 2; /* only in the total */
        for (uint32_t r = 0; r < reqs->n; r++) {
            int64_t *row = cap + r * len;
            if ((prep[(size_t)r * pools->n + i] & (PREP_MATCH | PREP_PF | PREP_OTHER | PREP_LM)) !=
                PREP_MATCH)
                continue;
            if (at <= nc)
                row[at] += P->count;
            row[nc + 1] += P->count;
        }
    }
    for (uint32_t r = 0; r < reqs->n && sockets; r++) {
        int64_t *row = cap + r * len;
        if (reqs->r[r].policy != NUMAFIT_PCI_POLICY_SOCKET)
            continue;
        for (uint32_t c = 0; c < nc; c++)
            for (uint32_t d = 0; d < nc; d++)
                if (h->cells[d].socket == h->cells[c].socket)
                    row[nc + 2 + c] += row[d];
    }
}

/* numa_filter's choices bounded: required takes pools on the cells; legacy
 * those, or those and the pools of no known node; socket those on the
 * cells, or on every cell of their sockets (when every host cell has a
 * socket); preferred any pool. */
bool numafit__pci_bound(const numafit_pci_requests_t *reqs, const numafit_host_t *h,
                        const int64_t *cap, const uint32_t *cells, uint32_t n) {
    uint32_t nc = h->ncells;
    size_t len = 2 * (size_t)nc + 2;
    bool sockets = cap[0] != 0;
    if (!n)
        return true; /* the walk filters nothing without cells */
    cap++;
    for (uint32_t r = 0; r < reqs->n; r++) {
        const struct pci_request *R = &reqs->r[r];
        const int64_t *row = cap + r * len;
        int policy = R->policy ? R->policy : NUMAFIT_PCI_POLICY_LEGACY;
        int64_t s = 0;
        for (uint32_t i = 0; i < n; i++)
            s += row[cells[i]];
        if (s >= R->count)
            continue;
        if (policy == NUMAFIT_PCI_POLICY_LEGACY)
            s += row[nc];
        else if (policy == NUMAFIT_PCI_POLICY_PREFERRED)
            s = row[nc + 1];
        else if (policy == NUMAFIT_PCI_POLICY_SOCKET && sockets) {
            /* each socket of the chosen cells once */
            s = 0;
            for (uint32_t i = 0; i < n; i++) {
                bool seen = false;
                for (uint32_t j = 0; j < i && !seen; j++)
                    seen = h->cells[cells[j]].socket == h->cells[cells[i]].socket;
                if (!seen)
                    s += row[nc + 2 + cells[i]];
            }
        }
        if (s < R->count)
            return false;
    }
    return true;
}

/* numafit__pci_bound() of each host cell alone, for a one-cell guest: ok[c]
 * (c a host cell index) 1 when every request could find its count there,
 * else 0; returns how many cells could. One pass per request over the
 * cells, instead of one bound per cell. */
uint32_t numafit__pci_cells_ok(const numafit_pci_requests_t *reqs, const numafit_host_t *h,
                               const int64_t *cap, uint8_t *ok) {
    uint32_t nc = h->ncells, left = nc;
    size_t len = 2 * (size_t)nc + 2;
    bool sockets = cap[0] != 0;
    memset(ok, 1, nc);
    cap++;
    for (uint32_t r = 0; r < reqs->n && left; r++) {
        const struct pci_request *R = &reqs->r[r];
        const int64_t *row = cap + r * len;
        int policy = R->policy ? R->policy : NUMAFIT_PCI_POLICY_LEGACY;
        int64_t need = R->count, extra = 0;
        if (policy == NUMAFIT_PCI_POLICY_PREFERRED) {
            if (row[nc + 1] >= need)
                continue; /* any pool serves it, wherever the guest is */
        } else if (policy == NUMAFIT_PCI_POLICY_LEGACY) {
            extra = row[nc];
        } else if (policy == NUMAFIT_PCI_POLICY_SOCKET && sockets) {
            row += nc + 2; /* the devices of each cell's socket */
        }
        for (uint32_t c = 0; c < nc; c++)
            if (ok[c] && row[c] + extra < need) {
                ok[c] = 0;
                left--;
            }
    }
    return left;
}

bool numafit__pci_socket_policy(const numafit_pci_requests_t *reqs) {
    for (uint32_t r = 0; r < reqs->n; r++)
        if (reqs->r[r].policy == NUMAFIT_PCI_POLICY_SOCKET)
            return true;
    return false;
}

/* Run the requests on a fresh state; 1 / 0 / -ENOMEM. */
static int walk_all(struct walk *w, const numafit_pci_requests_t *reqs, numafit_error_t *err) {
    void *scratch = numafit__malloc(numafit__pci_scratch_size(w->pools));
    if (!scratch) {
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
        return -ENOMEM;
    }
    w->left = scratch; /* freed by walk_free */
    return walk_run(w, reqs, scratch, err);
}

static void walk_free(struct walk *w) {
    free(w->left);
}

NUMAFIT_EXPORT int numafit_pci_support(const numafit_pci_pools_t *pools, const numafit_host_t *host,
                                       const numafit_pci_requests_t *reqs, const int64_t *cell_ids,
                                       size_t ncells, numafit_error_t *err) {
    return numafit_pci_support_flags(pools, host, reqs, cell_ids, ncells, 0, err);
}

NUMAFIT_EXPORT int numafit_pci_support_flags(const numafit_pci_pools_t *pools,
                                             const numafit_host_t *host,
                                             const numafit_pci_requests_t *reqs,
                                             const int64_t *cell_ids, size_t ncells, unsigned flags,
                                             numafit_error_t *err) {
    struct walk w = {pools,
                     host,
                     cell_ids,
                     ncells,
                     NULL,
                     NULL,
                     NULL,
                     NULL,
                     NULL,
                     NULL,
                     !(flags & NUMAFIT_PCI_ZED),
                     NULL};
    int r = check_flags(flags, err);
    if (r < 0)
        return r;
    r = check_args(pools, reqs, cell_ids, ncells, err);
    if (r < 0)
        return r;
    r = walk_all(&w, reqs, err);
    walk_free(&w);
    return r;
}

NUMAFIT_EXPORT int numafit_pci_apply(numafit_pci_pools_t *pools, const numafit_host_t *host,
                                     const numafit_pci_requests_t *reqs, const int64_t *cell_ids,
                                     size_t ncells, numafit_error_t *err) {
    return numafit_pci_apply_flags(pools, host, reqs, cell_ids, ncells, 0, err);
}

NUMAFIT_EXPORT int numafit_pci_apply_flags(numafit_pci_pools_t *pools, const numafit_host_t *host,
                                           const numafit_pci_requests_t *reqs,
                                           const int64_t *cell_ids, size_t ncells, unsigned flags,
                                           numafit_error_t *err) {
    struct walk w = {pools,
                     host,
                     cell_ids,
                     ncells,
                     NULL,
                     NULL,
                     NULL,
                     NULL,
                     NULL,
                     NULL,
                     !(flags & NUMAFIT_PCI_ZED),
                     NULL};
    uint32_t k = 0;
    int r = check_flags(flags, err);
    if (r < 0)
        return r;
    r = check_args(pools, reqs, cell_ids, ncells, err);
    if (r < 0)
        return r;
    r = walk_all(&w, reqs, err);
    if (r == 1) {
        /* commit: the counts, and the pools nova removed */
        for (uint32_t i = 0; i < pools->n; i++) {
            if (!w.alive[i]) {
                pool_clear(&pools->p[i]);
                continue;
            }
            pools->p[i].count = w.left[i];
            pools->p[k++] = pools->p[i];
        }
        pools->n = k;
    }
    walk_free(&w);
    return r < 0 ? r : r ? 0 : -ENOSPC;
}
