/* Placements: allocation, accessors, JSON in nova's InstanceNUMATopology and plain forms. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <uuid/uuid.h>

#include "jsonio.h"

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
 * document (jsonio.h).
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

static json_t *reserved_json(const struct numafit__pcell *c) {
    return c->has_reserved ? u32_array(c->reserved, c->nreserved) : json_null();
}

static json_t *plain_cell(const numafit_placement_t *p, const struct numafit__pcell *c) {
    struct numafit__json_field f[] = {
        {"id", json_integer(c->host_id)},
        {"cpuset", numafit__json_bits(c->cpuset, p->nw)},
        {"pcpuset", numafit__json_bits(c->pcpuset, p->nw)},
        {"memory", json_integer((json_int_t)c->memory)},
        {"pagesize", c->pagesize ? json_integer(c->pagesize) : json_null()},
        {"cpu_pinning", pinning_json(c)},
        {"cpuset_reserved", reserved_json(c)},
    };
    return numafit__json_object(f, sizeof(f) / sizeof(f[0]));
}

static json_t *nova_cell(const numafit_placement_t *p, const struct numafit__pcell *c) {
    const struct numafit__json_icell ic = {
        .id = c->host_id,
        .cpuset = c->cpuset,
        .pcpuset = c->pcpuset,
        .nw = p->nw,
        .reserved = reserved_json(c),
        .memory = c->memory,
        .pagesize = c->pagesize,
        .cpu_topology = true,
        .pinning = pinning_json(c),
        .cpu_policy = c->cpu_policy,
        .thread_policy = c->thread_policy,
        .env_flags = NUMAFIT__ENVELOPE_SORTED,
    };
    return numafit__json_instance_cell(&ic);
}

static json_t *cells_json(const numafit_placement_t *p, bool nova) {
    json_t *a = json_array();
    for (uint32_t i = 0; a && i < p->ncells; i++) {
        const struct numafit__pcell *c = &p->cells[i];
        if (json_array_append_new(a, nova ? nova_cell(p, c) : plain_cell(p, c)) < 0) {
            json_decref(a);
            a = NULL;
        }
    }
    return a;
}

/* The InstanceNUMATopology primitive. */
static json_t *nova_json(const numafit_placement_t *p) {
    char uuid[37];
    if (p->uuid[0]) {
        memcpy(uuid, p->uuid, sizeof(uuid));
    } else {
        uuid_t u;
        uuid_generate(u);
        uuid_unparse_lower(u, uuid);
    }
    struct numafit__json_field f[] = {
        {"cells", cells_json(p, true)},
        {"instance_uuid", json_string(uuid)},
        {"emulator_threads_policy",
         numafit__json_str_or_null(numafit_emulator_threads_policy_to_string(p->emulator_policy))},
    };
    return numafit__json_envelope("InstanceNUMATopology", "1.3",
                                  numafit__json_object(f, sizeof(f) / sizeof(f[0])),
                                  NUMAFIT__ENVELOPE_SORTED);
}

NUMAFIT_EXPORT int numafit_placement_to_json(const numafit_placement_t *p, unsigned flags,
                                             char **ret, numafit_error_t *err) {
    json_t *root;
    numafit__error_clear(err);
    if (!p || !ret || (flags & ~(unsigned)(NUMAFIT_PLACEMENT_JSON_NOVA | NUMAFIT_JSON_INDENT)))
        return -EINVAL;
    root = flags & NUMAFIT_PLACEMENT_JSON_NOVA ? nova_json(p) : cells_json(p, false);
    return numafit__json_emit(root, flags & NUMAFIT_JSON_INDENT, ret, err);
}

/* ------------------------------------------------------------------ input */

typedef struct numafit__jpath rd_t;

static int fail(rd_t *r, int rc, int code, const char *text) {
    return numafit__jp_fail(r, rc, code, "%s", text);
}

/* Point the path at field key of the object whose path is base long. */
static void at(rd_t *r, size_t base, const char *key) {
    numafit__jp_pop(r, base);
    numafit__jp_push(r, key);
}

static int read_uint(rd_t *r, json_t *v, uint64_t max, uint64_t *out) {
    if (numafit__json_uint(v, max, out) != NUMAFIT__JU_OK)
        return fail(r, -ERANGE, NUMAFIT_E_RANGE, "expected a non-negative integer in range");
    return 0;
}

static int read_set(rd_t *r, json_t *v, uint64_t *bits, uint32_t nbits) {
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

/* id, memory, cpuset, pcpuset and pagesize of cell data d. */
static int read_numbers(rd_t *r, size_t base, json_t *d, numafit_placement_t *p,
                        struct numafit__pcell *c) {
    uint64_t x;
    json_t *f;
    int rc;
    at(r, base, "id");
    if ((rc = read_uint(r, json_object_get(d, "id"), NUMAFIT_CELL_ID_MAX, &x)) < 0)
        return rc;
    c->host_id = (int32_t)x;
    at(r, base, "memory");
    if ((rc = read_uint(r, json_object_get(d, "memory"), NUMAFIT_MEMORY_MB_MAX, &c->memory)) < 0)
        return rc;
    at(r, base, "cpuset");
    f = json_object_get(d, "cpuset");
    if (f && (rc = read_set(r, f, c->cpuset, p->nw * 64)) < 0)
        return rc;
    at(r, base, "pcpuset");
    f = json_object_get(d, "pcpuset");
    if (f && (rc = read_set(r, f, c->pcpuset, p->nw * 64)) < 0)
        return rc;
    at(r, base, "pagesize");
    f = json_object_get(d, "pagesize");
    if (!f || json_is_null(f))
        return 0;
    if ((rc = read_uint(r, f, NUMAFIT__PAGE_SIZE_MAX, &x)) < 0)
        return rc;
    /* 0 is no page size: every reader of an instance cell's pagesize in
     * nova tests its truth (nova's own tests store 0) */
    if (x == 0)
        return 0;
    if (x < 4 || (x & (x - 1)))
        return fail(r, -EINVAL, NUMAFIT_E_SCHEMA,
                    "pagesize must be null, 0 or a power of two >= 4 (KiB)");
    c->pagesize = (int64_t)x;
    if ((c->memory * 1024) % x) {
        /* nova's fit never gives such a cell (its page check wants whole
         * pages); its claim would count a part of a page, and claim then
         * release would not give the host back */
        at(r, base, "memory");
        return fail(r, -EINVAL, NUMAFIT_E_SCHEMA,
                    "memory is not a whole number of the cell's pages (pagesize)");
    }
    return 0;
}

/* cpu_policy and cpu_thread_policy, given or inferred. */
static int read_policies(rd_t *r, size_t base, json_t *d, numafit_placement_t *p,
                         struct numafit__pcell *c) {
    at(r, base, "cpu_policy");
    if (policy_from(json_object_get(d, "cpu_policy"), numafit_cpu_policy_from_string,
                    NUMAFIT_CPU_POLICY_NONE, &c->cpu_policy) < 0)
        return fail(r, -EINVAL, NUMAFIT_E_SCHEMA, "unknown cpu_policy");
    at(r, base, "cpu_thread_policy");
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
    return 0;
}

/* Sort the pins by vCPU, then refuse a vCPU pinned twice or a host CPU
 * taken twice (marked in used). */
static int check_pins(rd_t *r, struct numafit__pcell *c, uint64_t *used) {
    uint32_t n = c->npin;
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
    return 0;
}

/* cpu_pinning_raw (or cpu_pinning): {"vcpu": pcpu}. */
static int read_pinning(rd_t *r, json_t *d, numafit_placement_t *p, struct numafit__pcell *c,
                        uint64_t *used) {
    json_t *f = json_object_get(d, "cpu_pinning_raw"), *e;
    const char *k;
    uint64_t x;
    int rc;
    if (!f)
        f = json_object_get(d, "cpu_pinning");
    if (!f || json_is_null(f))
        return 0;
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
        c->pin_vcpu[c->npin] = (uint32_t)vc;
        c->pin_pcpu[c->npin++] = (uint32_t)x;
    }
    return check_pins(r, c, used);
}

/* cpuset_reserved: host CPUs for the emulator threads, none in used. */
static int read_reserved(rd_t *r, json_t *d, numafit_placement_t *p, struct numafit__pcell *c,
                         uint64_t *used) {
    json_t *f = json_object_get(d, "cpuset_reserved"), *e;
    uint64_t x;
    size_t k;
    int rc;
    if (!f || json_is_null(f))
        return 0;
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
    return 0;
}

/* Cell i at the path "/cells/i" (the path is left there). */
static int read_cell(rd_t *r, json_t *v, numafit_placement_t *p, uint32_t i) {
    struct numafit__pcell *c = &p->cells[i];
    uint64_t used[NUMAFIT__CPU_WORDS]; /* pinned and emulator CPUs seen */
    int minor, rc;
    json_t *d;
    numafit__jp_index(r, i);
    size_t base = r->len;
    d = numafit__jp_unwrap(r, v, "InstanceNUMACell", 6, &minor, &rc);
    if (!d)
        return rc;
    if (!json_is_object(d))
        return fail(r, -EINVAL, NUMAFIT_E_SCHEMA, "a cell must be an object");
    if ((rc = read_numbers(r, base, d, p, c)) < 0 || (rc = read_policies(r, base, d, p, c)) < 0)
        return rc;
    memset(used, 0, sizeof(used));
    at(r, base, "cpu_pinning");
    if ((rc = read_pinning(r, d, p, c, used)) < 0)
        return rc;
    at(r, base, "cpuset_reserved");
    return read_reserved(r, d, p, c, used);
}

static const struct numafit__json_src placement_src = {"placement", NUMAFIT__JSON_VALUES_PLACEMENT,
                                                       JSON_DECODE_ANY, ""};

/* The JSON value of buf, with the instance_extra column form (a JSON string
 * holding the document) unpacked. */
static int parse_root(const char *buf, size_t len, json_t **ret, numafit_error_t *err) {
    static const struct numafit__json_src inner_src = {"placement", NUMAFIT__JSON_VALUES_PLACEMENT,
                                                       0, ""};
    json_error_t jerr;
    json_t *root = NULL, *inner = NULL;
    int rc = numafit__json_parse(&placement_src, buf, len, &root, &jerr, err);
    if (rc == -EBADMSG)
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, "", NULL, "%s (line %d, column %d)", jerr.text,
                           jerr.line, jerr.column);
    if (rc < 0 || !json_is_string(root)) {
        *ret = root;
        return rc;
    }
    /* json_loads() stops at a NUL, the count covers the whole string */
    rc = numafit__json_check_values(json_string_value(root), json_string_length(root),
                                    NUMAFIT__JSON_VALUES_PLACEMENT, "placement", err);
    if (rc == 0)
        rc = numafit__json_parse(&inner_src, json_string_value(root),
                                 strlen(json_string_value(root)), &inner, &jerr, err);
    if (rc == -EBADMSG)
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, "", NULL, "%s", jerr.text);
    json_decref(root);
    *ret = inner;
    return rc;
}

/* The pool a placement needs: two entries per pin, one per reserved CPU. */
static size_t pool_size(json_t *cells) {
    size_t pool = 0, i;
    json_t *e;
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
    return pool;
}

/* The cells (at "/cells") into a new placement. */
static int read_cells(rd_t *r, json_t *cells, numafit_placement_t **ret) {
    numafit_placement_t *p = NULL;
    size_t pool, i;
    json_t *e;
    int rc;
    numafit__jp_push(r, "cells");
    if (!json_is_array(cells) || json_array_size(cells) == 0 ||
        json_array_size(cells) > NUMAFIT_MAX_CELLS)
        return fail(r, -EINVAL, NUMAFIT_E_SCHEMA, "cells must be a non-empty list");
    if ((pool = pool_size(cells)) > NUMAFIT__CPU_LIMIT * 4u)
        return fail(r, -ERANGE, NUMAFIT_E_RANGE, "too many pinned CPUs");
    if ((rc = numafit__placement_alloc(NUMAFIT__CPU_WORDS, (uint32_t)json_array_size(cells),
                                       (uint32_t)pool, &p)) < 0)
        return rc;
    json_array_foreach(cells, i, e) {
        size_t old = r->len;
        rc = read_cell(r, e, p, (uint32_t)i);
        numafit__jp_pop(r, old);
        if (rc < 0) {
            numafit_placement_free(p);
            return rc;
        }
    }
    *ret = p;
    return 0;
}

/* emulator_threads_policy and instance_uuid of the topology data d. */
static int read_topology_fields(rd_t *r, json_t *d, numafit_placement_t *p) {
    json_t *ep = json_object_get(d, "emulator_threads_policy");
    json_t *u = json_object_get(d, "instance_uuid");
    numafit__jp_pop(r, 0);
    if (policy_from(ep, numafit_emulator_threads_policy_from_string, NUMAFIT_EMULATOR_THREADS_NONE,
                    &p->emulator_policy) < 0) {
        numafit__jp_push(r, "emulator_threads_policy");
        return fail(r, -EINVAL, NUMAFIT_E_SCHEMA, "unknown emulator_threads_policy");
    }
    if (json_is_string(u) && numafit_placement_set_uuid(p, json_string_value(u)) < 0) {
        numafit__jp_push(r, "instance_uuid");
        return fail(r, -EINVAL, NUMAFIT_E_SCHEMA, "invalid instance_uuid");
    }
    return 0;
}

/* The cells of root: a plain list, or an InstanceNUMATopology's (*d: its data). */
static int find_cells(rd_t *r, json_t *root, json_t **d, json_t **cells) {
    int rc = 0, minor;
    *d = NULL;
    *cells = NULL;
    if (json_is_array(root)) {
        *cells = root;
        return 0;
    }
    *d = json_is_object(root) ? numafit__jp_unwrap(r, root, "InstanceNUMATopology", 3, &minor, &rc)
                              : NULL;
    if (!*d) {
        if (!json_is_object(root))
            fail(r, -EINVAL, NUMAFIT_E_SCHEMA, "expected an InstanceNUMATopology");
        return rc ? rc : -EINVAL;
    }
    *cells = json_object_get(*d, "cells");
    return 0;
}

NUMAFIT_EXPORT int numafit_placement_new_from_json(const char *buf, size_t len, unsigned flags,
                                                   numafit_placement_t **ret,
                                                   numafit_error_t *err) {
    json_t *root = NULL, *d, *cells;
    rd_t r;
    numafit_placement_t *p = NULL;
    int rc;

    numafit__error_clear(err);
    if (!buf || !ret || flags || len > NUMAFIT_INPUT_MAX)
        return -EINVAL;
    numafit__jp_init(&r, err);
    if ((rc = parse_root(buf, len, &root, err)) < 0)
        return rc;
    if ((rc = find_cells(&r, root, &d, &cells)) < 0 || (rc = read_cells(&r, cells, &p)) < 0)
        goto out;
    if (d && (rc = read_topology_fields(&r, d, p)) < 0)
        goto out;
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
