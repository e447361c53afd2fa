/* Placements: allocation, accessors, JSON in nova's InstanceNUMATopology and plain forms. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <uuid/uuid.h>

#include "private.h"

/* A placement is one heap block: the struct, its cells, their CPU bitmaps and
 * a pool of uint32_t for the pinnings and reserved CPUs. */
NUMAFIT_EXPORT void numafit_placement_free(numafit_placement_t *p) {
    numafit__free(p);
}

static size_t align8(size_t n) {
    return (n + 7) & ~(size_t)7;
}

int numafit__placement_alloc(uint32_t nw, uint32_t ncells, uint32_t pool,
                             numafit_placement_t **ret) {
    numafit_placement_t *p;
    size_t off_cells, off_bits, off_pool, size;
    if (nw == 0)
        nw = 1;
    if (ncells == 0 || ncells > NUMAFIT_MAX_CELLS || nw > NUMAFIT__CPU_WORDS ||
        pool > 4u * NUMAFIT__CPU_LIMIT * NUMAFIT_MAX_CELLS)
        return -EINVAL;
    off_cells = align8(sizeof(*p));
    off_bits = off_cells + align8((size_t)ncells * sizeof(*p->cells));
    off_pool = off_bits + (size_t)ncells * 2 * nw * sizeof(uint64_t);
    size = off_pool + (size_t)pool * sizeof(uint32_t);
    p = numafit__malloc(size);
    if (!p)
        return -ENOMEM;
    memset(p, 0, off_pool);
    p->cells = (struct numafit__pcell *)((char *)p + off_cells);
    p->pool = (uint32_t *)((char *)p + off_pool);
    p->pool_cap = pool;
    p->nw = nw;
    p->ncells = ncells;
    p->emulator_policy = NUMAFIT_EMULATOR_THREADS_NONE;
    for (uint32_t i = 0; i < ncells; i++) {
        p->cells[i].cpuset = (uint64_t *)((char *)p + off_bits) + (size_t)i * 2 * nw;
        p->cells[i].pcpuset = p->cells[i].cpuset + nw;
        p->cells[i].cpu_policy = NUMAFIT_CPU_POLICY_NONE;
        p->cells[i].thread_policy = NUMAFIT_THREAD_POLICY_NONE;
    }
    *ret = p;
    return 0;
}

uint32_t *numafit__placement_take(numafit_placement_t *p, uint32_t n) {
    uint32_t *r;
    if (n > p->pool_cap - p->pool_used)
        return NULL;
    r = p->pool + p->pool_used;
    p->pool_used += n;
    return r;
}

NUMAFIT_EXPORT int numafit_placement_dup(const numafit_placement_t *s, numafit_placement_t **ret) {
    numafit_placement_t *d = NULL;
    int rc;
    if (!s || !ret)
        return -EINVAL;
    rc = numafit__placement_alloc(s->nw, s->ncells, s->pool_used, &d);
    if (rc < 0)
        return rc;
    memcpy(d->cells[0].cpuset, s->cells[0].cpuset, (size_t)s->ncells * 2 * s->nw * 8);
    d->emulator_policy = s->emulator_policy;
    memcpy(d->uuid, s->uuid, sizeof(d->uuid));
    for (uint32_t i = 0; i < s->ncells; i++) {
        const struct numafit__pcell *a = &s->cells[i];
        struct numafit__pcell *b = &d->cells[i];
        uint64_t *cs = b->cpuset, *ps = b->pcpuset;
        *b = *a;
        b->cpuset = cs;
        b->pcpuset = ps;
        b->pin_vcpu = numafit__placement_take(d, a->npin);
        b->pin_pcpu = numafit__placement_take(d, a->npin);
        b->reserved = numafit__placement_take(d, a->nreserved);
        /* no memcpy from NULL: a cell without pinning or reserved CPUs has none */
        if (a->npin) {
            memcpy(b->pin_vcpu, a->pin_vcpu, a->npin * sizeof(uint32_t));
            memcpy(b->pin_pcpu, a->pin_pcpu, a->npin * sizeof(uint32_t));
        }
        if (a->nreserved)
            memcpy(b->reserved, a->reserved, a->nreserved * sizeof(uint32_t));
    }
    *ret = d;
    return 0;
}

NUMAFIT_EXPORT int numafit_placement_get_cell_count(const numafit_placement_t *p) {
    return p ? (int)p->ncells : -EINVAL;
}

NUMAFIT_EXPORT int numafit_placement_get_host_cell(const numafit_placement_t *p, unsigned i) {
    if (!p)
        return -EINVAL;
    return i < p->ncells ? p->cells[i].host_id : -ENOENT;
}

NUMAFIT_EXPORT int numafit_placement_get_pin(const numafit_placement_t *p, unsigned vcpu) {
    if (!p)
        return -EINVAL;
    for (uint32_t i = 0; i < p->ncells; i++)
        for (uint32_t j = 0; j < p->cells[i].npin; j++)
            if (p->cells[i].pin_vcpu[j] == vcpu)
                return (int)p->cells[i].pin_pcpu[j];
    return -ENOENT;
}

NUMAFIT_EXPORT int numafit_placement_set_uuid(numafit_placement_t *p, const char *uuid) {
    uuid_t u;
    if (!p || !uuid || strlen(uuid) != 36 || uuid_parse(uuid, u) < 0)
        return -EINVAL;
    uuid_unparse_lower(u, p->uuid);
    return 0;
}

/* ------------------------------------------------------------------ output */

static json_t *bits_array(const uint64_t *w, uint32_t nw) {
    json_t *a = json_array();
    if (!a)
        return NULL;
    for (int b = numafit__bits_next(w, nw, -1); b >= 0; b = numafit__bits_next(w, nw, b))
        if (json_array_append_new(a, json_integer(b)) < 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static json_t *u32_array(const uint32_t *v, uint32_t n) {
    json_t *a = json_array();
    if (!a)
        return NULL;
    for (uint32_t i = 0; i < n; i++)
        if (json_array_append_new(a, json_integer(v[i])) < 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

/*
 * The builders below return NULL when an allocation fails, never a partial
 * document. json_object_set_new() and json_array_append_new() fail for a
 * NULL value (a constructor that ran out of memory) and take their value
 * even when they fail; a constructor in a || chain after a failure is not
 * called at all.
 */

/* cpu_pinning as {"vcpu": pcpu}, or null when the cell has none. */
static json_t *pinning_json(const struct numafit__pcell *c) {
    json_t *pin;
    if (!c->has_pinning)
        return json_null();
    if (!(pin = json_object()))
        return NULL;
    for (uint32_t j = 0; j < c->npin; j++) {
        char k[16];
        snprintf(k, sizeof(k), "%u", c->pin_vcpu[j]);
        if (json_object_set_new(pin, k, json_integer(c->pin_pcpu[j])) < 0) {
            json_decref(pin);
            return NULL;
        }
    }
    return pin;
}

static json_t *policy_json(const char *s) {
    return s ? json_string(s) : json_null();
}

static json_t *plain_cell(const numafit_placement_t *p, const struct numafit__pcell *c) {
    json_t *o = json_object();
    if (!o || json_object_set_new(o, "id", json_integer(c->host_id)) < 0 ||
        json_object_set_new(o, "cpuset", bits_array(c->cpuset, p->nw)) < 0 ||
        json_object_set_new(o, "pcpuset", bits_array(c->pcpuset, p->nw)) < 0 ||
        json_object_set_new(o, "memory", json_integer((json_int_t)c->memory)) < 0 ||
        json_object_set_new(o, "pagesize", c->pagesize ? json_integer(c->pagesize) : json_null()) <
            0 ||
        json_object_set_new(o, "cpu_pinning", pinning_json(c)) < 0 ||
        json_object_set_new(o, "cpuset_reserved",
                            c->has_reserved ? u32_array(c->reserved, c->nreserved) : json_null()) <
            0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* A versioned-object envelope around data (taken, also on failure). */
static json_t *nova_obj(const char *name, const char *version, json_t *data) {
    json_t *o = json_object(), *ch = json_array();
    const char *key;
    json_t *v;
    if (!o || !ch || !data)
        goto fail;
    /* changes: every field we set, in a stable (sorted) order */
    json_object_foreach(data, key, v) {
        if (json_array_append_new(ch, json_string(key)) < 0)
            goto fail;
    }
    {
        size_t n = json_array_size(ch);
        for (size_t i = 1; i < n; i++)
            for (size_t j = i; j > 0; j--) {
                const char *a = json_string_value(json_array_get(ch, j - 1));
                const char *b = json_string_value(json_array_get(ch, j));
                if (strcmp(a, b) <= 0)
                    break;
                json_t *ta = json_incref(json_array_get(ch, j - 1));
                json_array_set(ch, j - 1, json_array_get(ch, j));
                json_array_set_new(ch, j, ta);
            }
    }
    if (json_object_set_new(o, "nova_object.name", json_string(name)) < 0 ||
        json_object_set_new(o, "nova_object.namespace", json_string("nova")) < 0 ||
        json_object_set_new(o, "nova_object.version", json_string(version)) < 0)
        goto fail;
    v = data;
    data = NULL;
    if (json_object_set_new(o, "nova_object.data", v) < 0)
        goto fail;
    v = ch;
    ch = NULL;
    if (json_object_set_new(o, "nova_object.changes", v) < 0)
        goto fail;
    return o;
fail:
    json_decref(o);
    json_decref(ch);
    json_decref(data);
    return NULL;
}

static json_t *nova_cell(const numafit_placement_t *p, const struct numafit__pcell *c) {
    json_t *d = json_object();
    if (!d || json_object_set_new(d, "id", json_integer(c->host_id)) < 0 ||
        json_object_set_new(d, "cpuset", bits_array(c->cpuset, p->nw)) < 0 ||
        json_object_set_new(d, "pcpuset", bits_array(c->pcpuset, p->nw)) < 0 ||
        json_object_set_new(d, "cpuset_reserved",
                            c->has_reserved ? u32_array(c->reserved, c->nreserved) : json_null()) <
            0 ||
        json_object_set_new(d, "memory", json_integer((json_int_t)c->memory)) < 0 ||
        json_object_set_new(d, "pagesize", c->pagesize ? json_integer(c->pagesize) : json_null()) <
            0 ||
        json_object_set_new(d, "cpu_topology", json_null()) < 0 ||
        json_object_set_new(d, "cpu_pinning_raw", pinning_json(c)) < 0 ||
        json_object_set_new(d, "cpu_policy",
                            policy_json(c->cpu_policy == NUMAFIT_CPU_POLICY_NONE
                                            ? NULL
                                            : numafit_cpu_policy_to_string(c->cpu_policy))) < 0 ||
        json_object_set_new(d, "cpu_thread_policy",
                            policy_json(c->thread_policy == NUMAFIT_THREAD_POLICY_NONE
                                            ? NULL
                                            : numafit_thread_policy_to_string(c->thread_policy))) <
            0) {
        json_decref(d);
        return NULL;
    }
    return nova_obj("InstanceNUMACell", "1.6", d);
}

static int nomem(numafit_error_t *err) {
    numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
    return -ENOMEM;
}

NUMAFIT_EXPORT int numafit_placement_to_json(const numafit_placement_t *p, unsigned flags,
                                             char **ret, numafit_error_t *err) {
    json_t *root;
    char *s;
    numafit__error_clear(err);
    if (!p || !ret || (flags & ~(unsigned)(NUMAFIT_PLACEMENT_JSON_NOVA | NUMAFIT_JSON_INDENT)))
        return -EINVAL;
    if (flags & NUMAFIT_PLACEMENT_JSON_NOVA) {
        json_t *data = json_object(), *cells = json_array();
        char uuid[37];
        if (p->uuid[0]) {
            memcpy(uuid, p->uuid, sizeof(uuid));
        } else {
            uuid_t u;
            uuid_generate(u);
            uuid_unparse_lower(u, uuid);
        }
        if (!data || !cells) {
            json_decref(data);
            json_decref(cells);
            return nomem(err);
        }
        for (uint32_t i = 0; i < p->ncells; i++)
            if (json_array_append_new(cells, nova_cell(p, &p->cells[i])) < 0) {
                json_decref(data);
                json_decref(cells);
                return nomem(err);
            }
        if (json_object_set_new(data, "cells", cells) < 0 ||
            json_object_set_new(data, "instance_uuid", json_string(uuid)) < 0 ||
            json_object_set_new(data, "emulator_threads_policy",
                                p->emulator_policy == NUMAFIT_EMULATOR_THREADS_NONE
                                    ? json_null()
                                    : json_string(numafit_emulator_threads_policy_to_string(
                                          p->emulator_policy))) < 0) {
            json_decref(data);
            return nomem(err);
        }
        root = nova_obj("InstanceNUMATopology", "1.3", data);
    } else {
        root = json_array();
        for (uint32_t i = 0; root && i < p->ncells; i++)
            if (json_array_append_new(root, plain_cell(p, &p->cells[i])) < 0) {
                json_decref(root);
                root = NULL;
            }
    }
    if (!root)
        return nomem(err);
    s = numafit__json_dump(root, flags & NUMAFIT_JSON_INDENT);
    json_decref(root);
    if (!s)
        return nomem(err);
    *ret = s;
    return 0;
}

/* ------------------------------------------------------------------ input */

struct rd {
    numafit_error_t *err;
    char where[96];
};

static int fail(struct rd *r, int rc, int code, const char *text) {
    numafit__error_set(r->err, code, -1, r->where, NULL, "%s", text);
    return rc;
}

/* Unwrap a nova object of this name with version <= max_minor (major 1). */
static json_t *unwrap(struct rd *r, json_t *v, const char *name, int max_minor, int *minor,
                      int *rc) {
    json_t *n = json_object_get(v, "nova_object.name");
    json_t *ver = json_object_get(v, "nova_object.version");
    json_t *ns = json_object_get(v, "nova_object.namespace");
    int maj = 0, min = 0;
    *rc = 0;
    *minor = max_minor;
    if (!n) /* plain data without envelope */
        return v;
    if (!json_is_string(n) || strcmp(json_string_value(n), name) || !json_is_string(ns) ||
        strcmp(json_string_value(ns), "nova")) {
        *rc = fail(r, -EINVAL, NUMAFIT_E_SCHEMA, "unexpected object name or namespace");
        return NULL;
    }
    if (!json_is_string(ver) || sscanf(json_string_value(ver), "%d.%d", &maj, &min) != 2 ||
        maj != 1 || min < 0 || min > max_minor) {
        char t[128];
        snprintf(t, sizeof(t), "Version %s of %s is not supported",
                 json_is_string(ver) ? json_string_value(ver) : "?", name);
        *rc = fail(r, -EINVAL, NUMAFIT_E_VERSION, t);
        return NULL;
    }
    *minor = min;
    v = json_object_get(v, "nova_object.data");
    if (!json_is_object(v)) {
        *rc = fail(r, -EINVAL, NUMAFIT_E_SCHEMA, "missing nova_object.data");
        return NULL;
    }
    return v;
}

static int read_uint(struct rd *r, json_t *v, uint64_t max, uint64_t *out) {
    if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) > max)
        return fail(r, -ERANGE, NUMAFIT_E_RANGE, "expected a non-negative integer in range");
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

static int read_set(struct rd *r, json_t *v, uint64_t *bits, uint32_t nbits) {
    size_t i;
    json_t *e;
    if (!json_is_array(v))
        return fail(r, -EINVAL, NUMAFIT_E_SCHEMA, "expected a list of integers");
    json_array_foreach(v, i, e) {
        uint64_t x;
        int rc = read_uint(r, e, nbits - 1, &x);
        if (rc < 0)
            return rc;
        numafit__bit_set(bits, (unsigned)x);
    }
    return 0;
}

static int policy_from(json_t *v, int (*fn)(const char *), int none, int *out) {
    if (!v || json_is_null(v)) {
        *out = none;
        return 0;
    }
    if (!json_is_string(v))
        return -EINVAL;
    *out = fn(json_string_value(v));
    return *out < 0 && *out != none ? -EINVAL : 0;
}

static int read_cell(struct rd *r, json_t *v, numafit_placement_t *p, uint32_t i) {
    struct numafit__pcell *c = &p->cells[i];
    uint64_t x;
    uint64_t used[NUMAFIT__CPU_WORDS]; /* pinned and emulator CPUs seen */
    int minor, rc;
    char base[48];
    json_t *d, *f;
    snprintf(base, sizeof(base), "/cells/%u", i);
    snprintf(r->where, sizeof(r->where), "%s", base);
    d = unwrap(r, v, "InstanceNUMACell", 6, &minor, &rc);
    if (!d)
        return rc;
    if (!json_is_object(d))
        return fail(r, -EINVAL, NUMAFIT_E_SCHEMA, "a cell must be an object");
    snprintf(r->where, sizeof(r->where), "%s/id", base);
    if ((rc = read_uint(r, json_object_get(d, "id"), NUMAFIT_CELL_ID_MAX, &x)) < 0)
        return rc;
    c->host_id = (int32_t)x;
    snprintf(r->where, sizeof(r->where), "%s/memory", base);
    if ((rc = read_uint(r, json_object_get(d, "memory"), NUMAFIT_MEMORY_MB_MAX, &c->memory)) < 0)
        return rc;
    snprintf(r->where, sizeof(r->where), "%s/cpuset", base);
    f = json_object_get(d, "cpuset");
    if (f && (rc = read_set(r, f, c->cpuset, p->nw * 64)) < 0)
        return rc;
    snprintf(r->where, sizeof(r->where), "%s/pcpuset", base);
    f = json_object_get(d, "pcpuset");
    if (f && (rc = read_set(r, f, c->pcpuset, p->nw * 64)) < 0)
        return rc;
    snprintf(r->where, sizeof(r->where), "%s/pagesize", base);
    f = json_object_get(d, "pagesize");
    if (f && !json_is_null(f)) {
        if ((rc = read_uint(r, f, NUMAFIT__PAGE_SIZE_MAX, &x)) < 0)
            return rc;
        if (x < 4 || (x & (x - 1)))
            return fail(r, -EINVAL, NUMAFIT_E_SCHEMA,
                        "pagesize must be null or a power of two >= 4 (KiB)");
        c->pagesize = (int64_t)x;
    }
    snprintf(r->where, sizeof(r->where), "%s/cpu_policy", base);
    if (policy_from(json_object_get(d, "cpu_policy"), numafit_cpu_policy_from_string,
                    NUMAFIT_CPU_POLICY_NONE, &c->cpu_policy) < 0)
        return fail(r, -EINVAL, NUMAFIT_E_SCHEMA, "unknown cpu_policy");
    snprintf(r->where, sizeof(r->where), "%s/cpu_thread_policy", base);
    if (policy_from(json_object_get(d, "cpu_thread_policy"), numafit_thread_policy_from_string,
                    NUMAFIT_THREAD_POLICY_NONE, &c->thread_policy) < 0)
        return fail(r, -EINVAL, NUMAFIT_E_SCHEMA, "unknown cpu_thread_policy");
    if (!json_object_get(d, "cpu_policy")) {
        /* the plain form has no policy: infer it from the pinning */
        json_t *pin = json_object_get(d, "cpu_pinning");
        if (pin && !json_is_null(pin))
            c->cpu_policy = numafit__bits_empty(c->cpuset, p->nw) ? NUMAFIT_CPU_POLICY_DEDICATED
                                                                  : NUMAFIT_CPU_POLICY_MIXED;
    }
    /* pre-1.5 cells keep a dedicated instance's vCPUs in cpuset */
    if (!json_object_get(d, "pcpuset") && c->cpu_policy == NUMAFIT_CPU_POLICY_DEDICATED) {
        memcpy(c->pcpuset, c->cpuset, p->nw * sizeof(uint64_t));
        memset(c->cpuset, 0, p->nw * sizeof(uint64_t));
    }
    snprintf(r->where, sizeof(r->where), "%s/cpu_pinning", base);
    f = json_object_get(d, "cpu_pinning_raw");
    if (!f)
        f = json_object_get(d, "cpu_pinning");
    memset(used, 0, sizeof(used));
    if (f && !json_is_null(f)) {
        const char *k;
        json_t *e;
        uint32_t n = 0;
        if (!json_is_object(f))
            return fail(r, -EINVAL, NUMAFIT_E_SCHEMA, "cpu_pinning must be an object");
        c->has_pinning = true;
        c->pin_vcpu = numafit__placement_take(p, (uint32_t)json_object_size(f));
        c->pin_pcpu = numafit__placement_take(p, (uint32_t)json_object_size(f));
        if (!c->pin_vcpu || !c->pin_pcpu)
            return -ENOMEM;
        json_object_foreach(f, k, e) {
            char *end;
            unsigned long vc = strtoul(k, &end, 10);
            if (!*k || *end || k[0] == '-' || k[0] == '+' || vc >= NUMAFIT_VCPUS_MAX)
                return fail(r, -EINVAL, NUMAFIT_E_SCHEMA, "cpu_pinning keys must be vCPU ids");
            if ((rc = read_uint(r, e, NUMAFIT_CPU_MAX, &x)) < 0)
                return rc;
            c->pin_vcpu[n] = (uint32_t)vc;
            c->pin_pcpu[n++] = (uint32_t)x;
        }
        c->npin = n;
        /* keep vCPU order ascending */
        for (uint32_t a = 1; a < n; a++)
            for (uint32_t b = a; b > 0 && c->pin_vcpu[b - 1] > c->pin_vcpu[b]; b--) {
                uint32_t t = c->pin_vcpu[b];
                c->pin_vcpu[b] = c->pin_vcpu[b - 1];
                c->pin_vcpu[b - 1] = t;
                t = c->pin_pcpu[b];
                c->pin_pcpu[b] = c->pin_pcpu[b - 1];
                c->pin_pcpu[b - 1] = t;
            }
        for (uint32_t a = 1; a < n; a++)
            if (c->pin_vcpu[a] == c->pin_vcpu[a - 1])
                return fail(r, -EINVAL, NUMAFIT_E_SCHEMA, "a vCPU is pinned twice");
        for (uint32_t a = 0; a < n; a++) {
            if (numafit__bit_test(used, c->pin_pcpu[a]))
                return fail(r, -EINVAL, NUMAFIT_E_SCHEMA, "two vCPUs are pinned to one host CPU");
            numafit__bit_set(used, c->pin_pcpu[a]);
        }
    }
    snprintf(r->where, sizeof(r->where), "%s/cpuset_reserved", base);
    f = json_object_get(d, "cpuset_reserved");
    if (f && !json_is_null(f)) {
        size_t k;
        json_t *e;
        if (!json_is_array(f) || json_array_size(f) > NUMAFIT__CPU_LIMIT)
            return fail(r, -EINVAL, NUMAFIT_E_SCHEMA, "cpuset_reserved must be a list");
        c->reserved = numafit__placement_take(p, (uint32_t)json_array_size(f));
        if (!c->reserved)
            return -ENOMEM;
        json_array_foreach(f, k, e) {
            if ((rc = read_uint(r, e, NUMAFIT_CPU_MAX, &x)) < 0)
                return rc;
            if (numafit__bit_test(used, (unsigned)x))
                return fail(r, -EINVAL, NUMAFIT_E_SCHEMA,
                            "a CPU is listed twice, or is also a vCPU's pinned CPU");
            numafit__bit_set(used, (unsigned)x);
            c->reserved[k] = (uint32_t)x;
        }
        c->nreserved = (uint32_t)json_array_size(f);
        c->has_reserved = c->nreserved > 0;
    }
    return 0;
}

NUMAFIT_EXPORT int numafit_placement_new_from_json(const char *buf, size_t len, unsigned flags,
                                                   numafit_placement_t **ret,
                                                   numafit_error_t *err) {
    json_error_t jerr;
    json_t *root, *d, *cells, *e;
    struct rd r = {.err = err, .where = ""};
    numafit_placement_t *p = NULL;
    int rc = -EINVAL, minor;
    size_t i;

    numafit__error_clear(err);
    if (!buf || !ret || flags || len > NUMAFIT_INPUT_MAX)
        return -EINVAL;
    if ((rc = numafit__json_check_values(buf, len, NUMAFIT__JSON_VALUES_PLACEMENT, "placement",
                                         err)) < 0)
        return rc;
    root = json_loadb(buf, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    if (!root && numafit__json_load_errno(&jerr) == -ENOMEM) {
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
        return -ENOMEM;
    }
    if (!root) {
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, "", NULL, "%s (line %d, column %d)", jerr.text,
                           jerr.line, jerr.column);
        return -EBADMSG;
    }
    if (json_is_string(root)) { /* the instance_extra column form */
        if ((rc = numafit__json_check_values(json_string_value(root), json_string_length(root),
                                             NUMAFIT__JSON_VALUES_PLACEMENT, "placement", err)) <
            0) {
            json_decref(root);
            return rc;
        }
        json_t *inner = json_loads(json_string_value(root), JSON_REJECT_DUPLICATES, &jerr);
        json_decref(root);
        if (!inner && numafit__json_load_errno(&jerr) == -ENOMEM) {
            numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
            return -ENOMEM;
        }
        if (!inner) {
            numafit__error_set(err, NUMAFIT_E_PARSE, -1, "", NULL, "%s", jerr.text);
            return -EBADMSG;
        }
        root = inner;
    }
    if (json_is_array(root)) {
        cells = root;
        d = NULL;
    } else {
        d = json_is_object(root) ? unwrap(&r, root, "InstanceNUMATopology", 3, &minor, &rc) : NULL;
        if (!d) {
            if (!json_is_object(root))
                fail(&r, -EINVAL, NUMAFIT_E_SCHEMA, "expected an InstanceNUMATopology");
            json_decref(root);
            return rc ? rc : -EINVAL;
        }
        cells = json_object_get(d, "cells");
    }
    snprintf(r.where, sizeof(r.where), "/cells");
    if (!json_is_array(cells) || json_array_size(cells) == 0 ||
        json_array_size(cells) > NUMAFIT_MAX_CELLS) {
        rc = fail(&r, -EINVAL, NUMAFIT_E_SCHEMA, "cells must be a non-empty list");
        goto out;
    }
    {
        /* size the pool: two entries per pin, one per reserved CPU */
        size_t pool = 0;
        json_array_foreach(cells, i, e) {
            json_t *cd = json_object_get(e, "nova_object.data"), *f;
            if (!cd)
                cd = e;
            f = json_object_get(cd, "cpu_pinning_raw");
            if (!f)
                f = json_object_get(cd, "cpu_pinning");
            pool += 2 * json_object_size(f);
            pool += json_array_size(json_object_get(cd, "cpuset_reserved"));
        }
        if (pool > NUMAFIT__CPU_LIMIT * 4u) {
            rc = fail(&r, -ERANGE, NUMAFIT_E_RANGE, "too many pinned CPUs");
            goto out;
        }
        if ((rc = numafit__placement_alloc(NUMAFIT__CPU_WORDS, (uint32_t)json_array_size(cells),
                                           (uint32_t)pool, &p)) < 0)
            goto out;
    }
    json_array_foreach(cells, i, e) {
        if ((rc = read_cell(&r, e, p, (uint32_t)i)) < 0)
            goto out;
    }
    if (d) {
        json_t *ep = json_object_get(d, "emulator_threads_policy");
        json_t *u = json_object_get(d, "instance_uuid");
        if (policy_from(ep, numafit_emulator_threads_policy_from_string,
                        NUMAFIT_EMULATOR_THREADS_NONE, &p->emulator_policy) < 0) {
            snprintf(r.where, sizeof(r.where), "/emulator_threads_policy");
            rc = fail(&r, -EINVAL, NUMAFIT_E_SCHEMA, "unknown emulator_threads_policy");
            goto out;
        }
        if (json_is_string(u) && numafit_placement_set_uuid(p, json_string_value(u)) < 0) {
            snprintf(r.where, sizeof(r.where), "/instance_uuid");
            rc = fail(&r, -EINVAL, NUMAFIT_E_SCHEMA, "invalid instance_uuid");
            goto out;
        }
    }
    *ret = p;
    p = NULL;
    rc = 0;
out:
    if (rc == -ENOMEM)
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
    numafit_placement_free(p);
    json_decref(root);
    return rc;
}
