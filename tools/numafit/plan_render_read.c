/*
 * Pictures of a fleet plan (doc/plan-json.md, doc/plan-pictures.md): the
 * reader. The plan is read and checked whole first (struct plan: every
 * field drawn, with the JSON path of the first bad one in the error), and
 * its instances get their colors; plan_render_svg.c and plan_render_html.c
 * then lay it out and write it. Nothing is written when the plan is
 * refused. Sizes are capped (MAX_* in plan_render_model.h), with a note in
 * the picture saying what was left out.
 */
#include "config.h"

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "plan_render.h"
#include "plan_render_model.h"

/* Instance colors, by the rank of the instance id among the ids of the
 * instances on the hosts drawn in a picture (so distinct within a picture;
 * beyond these twelve, hues at the golden angle). No greens: green is
 * free. */
static const char *const palette[] = {"#1f77b4", "#d62728", "#9467bd", "#ff7f0e",
                                      "#8c564b", "#e377c2", "#17becf", "#393b79",
                                      "#843c39", "#7b4173", "#bd9e39", "#1b7878"};
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))

const char *const plan_render_state_names[T_NSTATES] = {"shared",   "free", "pinned", "emulator",
                                                        "isolated", "used", "offline"};

/* ------------------------------------------------------------------ reading with paths */

struct rd {
    char path[256];
    size_t len;
    char *err;
    size_t errlen;
};

static size_t rd_push(struct rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Append a path segment; returns the length to restore with rd_pop. */
static size_t rd_push(struct rd *r, const char *fmt, ...) {
    size_t old = r->len;
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(r->path + r->len, sizeof(r->path) - r->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        r->len += (size_t)n < sizeof(r->path) - r->len ? (size_t)n : sizeof(r->path) - 1 - r->len;
    return old;
}

static void rd_pop(struct rd *r, size_t old) {
    r->len = old;
    r->path[old] = '\0';
}

static size_t rd_key(struct rd *r, const char *key) {
    return rd_push(r, "%s%s", r->len ? "." : "", key);
}

static int rd_fail(struct rd *r, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "path.key: message" in r->err; returns -1. */
static int rd_fail(struct rd *r, const char *key, const char *fmt, ...) {
    char msg[160];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (r->err && r->errlen)
        snprintf(r->err, r->errlen, "%s%s%s: %s", r->len ? r->path : "", key && r->len ? "." : "",
                 key ? key : "", msg);
    return -1;
}

/* What a JSON value is, in words, by json_type (jansson numbers them
 * JSON_OBJECT .. JSON_NULL, 0 .. 7). */
_Static_assert(JSON_OBJECT == 0 && JSON_REAL == 4 && JSON_NULL == 7, "jansson json_type order");
static const char *const type_names[] = {"an object", "an array",  "a string",  "an integer",
                                         "a number",  "a boolean", "a boolean", "null"};

static const char *type_name(const json_t *v) {
    return type_names[json_typeof(v)];
}

/* Member key of o with type t (JSON_NULL: any); NULL with the error set when
 * missing or of another type, or, if optional, NULL without error when
 * missing or null. */
static const json_t *rd_get(struct rd *r, const json_t *o, const char *key, json_type t,
                            bool optional, int *rc) {
    const json_t *v = json_object_get(o, key);

    if (!v || (optional && json_is_null(v))) {
        if (!optional)
            *rc = rd_fail(r, key, "missing");
        return NULL;
    }
    if (t != JSON_NULL && json_typeof(v) != t) {
        *rc = rd_fail(r, key, "%s, not %s", type_name(v), type_names[t]);
        return NULL;
    }
    return v;
}

/* Integer member >= min; absent (when optional): *out = dflt. */
static int rd_int(struct rd *r, const json_t *o, const char *key, bool optional, long long min,
                  long long dflt, long long *out) {
    int rc = 0;
    const json_t *v = rd_get(r, o, key, JSON_INTEGER, optional, &rc);

    *out = dflt;
    if (rc)
        return rc;
    if (!v)
        return 0;
    *out = (long long)json_integer_value(v);
    if (*out < min)
        return rd_fail(r, key, "%lld is below %lld", *out, min);
    return 0;
}

static int rd_str(struct rd *r, const json_t *o, const char *key, bool optional, const char **out) {
    int rc = 0;
    const json_t *v = rd_get(r, o, key, JSON_STRING, optional, &rc);

    *out = v ? json_string_value(v) : NULL;
    return rc;
}

/* An object of non-negative integer counts (flavor name -> n). */
static int rd_counts(struct rd *r, const json_t *o, const char *key, bool optional,
                     const json_t **out) {
    int rc = 0;
    const json_t *v = rd_get(r, o, key, JSON_OBJECT, optional, &rc), *n;
    const char *k;
    size_t old;

    *out = v;
    if (!v)
        return rc;
    old = rd_key(r, key);
    json_object_foreach((json_t *)v, k, n) {
        if (!json_is_integer(n) || json_integer_value(n) < 0) {
            rc = rd_fail(r, k, "%s, not a count", json_is_integer(n) ? "negative" : type_name(n));
            break;
        }
    }
    rd_pop(r, old);
    return rc;
}

/* An optional number >= 0 (fractional allowed: a ratio or a weight). */
static int rd_ratio(struct rd *r, const json_t *o, const char *key) {
    const json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_number(v))
        return rd_fail(r, key, "%s, not a number", type_name(v));
    if (json_number_value(v) < 0)
        return rd_fail(r, key, "negative");
    return 0;
}

static bool rd_is_id(const json_t *v) {
    return json_is_integer(v) && json_integer_value(v) >= 0;
}

/* Why v (at key) is not an id: negative, or not an integer. */
static int rd_not_id(struct rd *r, const char *key, const json_t *v) {
    return json_is_integer(v) ? rd_fail(r, key, "%lld is below 0", (long long)json_integer_value(v))
                              : rd_fail(r, key, "%s, not an integer", type_name(v));
}

/* An array of integers >= 0 (CPU or vCPU ids); null too when nullable. */
static int rd_ids(struct rd *r, const json_t *o, const char *key, bool nullable) {
    int rc = 0;
    const json_t *a = rd_get(r, o, key, JSON_ARRAY, nullable, &rc), *v;
    size_t i, old;

    if (!a)
        return rc;
    old = rd_key(r, key);
    json_array_foreach(a, i, v) {
        if (!rd_is_id(v)) {
            rd_push(r, "[%zu]", i);
            rc = rd_not_id(r, NULL, v);
            break;
        }
    }
    rd_pop(r, old);
    return rc;
}

/* An object of integers >= 0 (a cell's pinning: vCPU -> pCPU). */
static int rd_id_map(struct rd *r, const json_t *o, const char *key) {
    int rc = 0;
    const json_t *m = rd_get(r, o, key, JSON_OBJECT, true, &rc), *v;
    const char *k;
    size_t old;

    if (!m)
        return rc;
    old = rd_key(r, key);
    json_object_foreach((json_t *)m, k, v) {
        if (!rd_is_id(v)) {
            rc = rd_not_id(r, k, v);
            break;
        }
    }
    rd_pop(r, old);
    return rc;
}

/* ------------------------------------------------------------------ objects by table */

/* What a member of an object must be. */
enum rd_kind {
    RD_INT,     /* an integer >= min (absent: dflt) */
    RD_STR,     /* a string */
    RD_RATIO,   /* a number >= 0 (always optional) */
    RD_BOOL,    /* absent or a boolean; null too when optional */
    RD_COUNTS,  /* an object of counts */
    RD_IDS,     /* an array of integers >= 0 */
    RD_ID_MAP,  /* an object of integers >= 0 (always optional) */
    RD_OBJECTS, /* an array of objects, each by the table sub */
};

#define NO_OFF SIZE_MAX

struct rd_field {
    const char *key;
    enum rd_kind kind;
    bool optional; /* absent or null is fine */
    long long min, dflt;
    size_t off; /* RD_INT: offset of its long long in the caller's struct, or NO_OFF */
    const struct rd_field *sub;
    size_t nsub;
};

#define F_INT(k, opt, mn, df, o)                                                                   \
    { (k), RD_INT, (opt), (mn), (df), (o), NULL, 0 }
#define F(k, kind, opt)                                                                            \
    { (k), (kind), (opt), 0, 0, NO_OFF, NULL, 0 }
#define F_OBJECTS(k, opt, tab)                                                                     \
    { (k), RD_OBJECTS, (opt), 0, 0, NO_OFF, (tab), NFIELDS(tab) }
#define NFIELDS(tab) (sizeof(tab) / sizeof((tab)[0]))

static int rd_objects(struct rd *r, const json_t *o, const char *key, bool optional,
                      const struct rd_field *f, size_t n, void *dst, size_t stride, size_t max,
                      const json_t **out);

static int rd_field(struct rd *r, const json_t *v, const struct rd_field *f, void *dst) {
    long long ll;
    const char *s;
    const json_t *j;
    int rc;

    switch (f->kind) {
        case RD_INT:
            rc = rd_int(r, v, f->key, f->optional, f->min, f->dflt, &ll);
            if (dst && f->off != NO_OFF)
                memcpy((char *)dst + f->off, &ll, sizeof(ll));
            return rc;
        case RD_STR:
            return rd_str(r, v, f->key, f->optional, &s);
        case RD_RATIO:
            return rd_ratio(r, v, f->key);
        case RD_BOOL:
            j = json_object_get(v, f->key);
            if (j && !json_is_boolean(j) && !(f->optional && json_is_null(j)))
                return rd_fail(r, f->key, "%s, not a boolean", type_name(j));
            return 0;
        case RD_COUNTS:
            return rd_counts(r, v, f->key, f->optional, &j);
        case RD_IDS:
            return rd_ids(r, v, f->key, f->optional);
        case RD_ID_MAP:
            return rd_id_map(r, v, f->key);
        case RD_OBJECTS:
            return rd_objects(r, v, f->key, f->optional, f->sub, f->nsub, NULL, 0, 0, NULL);
    }
    return rd_fail(r, f->key, "unknown field kind");
}

/* The object v (at r's path) by the table, member by member in its order;
 * RD_INT values go into dst (when not NULL) at their offsets. */
static int rd_fields(struct rd *r, const json_t *v, const struct rd_field *f, size_t n, void *dst) {
    int rc = 0;

    if (!json_is_object(v))
        return rd_fail(r, NULL, "%s, not an object", type_name(v));
    for (size_t i = 0; i < n && !rc; i++)
        rc = rd_field(r, v, &f[i], dst);
    return rc;
}

/* The array o[key] of objects, each by the table; the first max elements'
 * RD_INT values go into dst, an array of structs of stride bytes. *out (when
 * not NULL): the array, NULL when it is optional and absent. */
static int rd_objects(struct rd *r, const json_t *o, const char *key, bool optional,
                      const struct rd_field *f, size_t n, void *dst, size_t stride, size_t max,
                      const json_t **out) {
    int rc = 0;
    const json_t *a = rd_get(r, o, key, JSON_ARRAY, optional, &rc), *v;
    size_t i, old, old2;

    if (out)
        *out = a;
    if (!a)
        return rc;
    old = rd_key(r, key);
    json_array_foreach(a, i, v) {
        old2 = rd_push(r, "[%zu]", i);
        rc = rd_fields(r, v, f, n, dst && i < max ? (char *)dst + i * stride : NULL);
        rd_pop(r, old2);
        if (rc)
            break;
    }
    rd_pop(r, old);
    return rc;
}

/* The cells of an instance: where its guest cells went (doc/plan-json.md). */
static const struct rd_field inst_cell_fields[] = {
    F_INT("host_cell", false, 0, 0, NO_OFF),
    F("vcpus", RD_IDS, false),
    F_INT("memory_mb", false, 0, 0, NO_OFF),
    F_INT("pagesize_kb", true, 1, 0, NO_OFF),
    F("emulator", RD_IDS, true),
    F("pinning", RD_ID_MAP, true),
};

static const struct rd_field instance_fields[] = {
    F_INT("id", false, LLONG_MIN, 0, NO_OFF),
    F("flavor", RD_STR, true),
    F("existing", RD_BOOL, true),
    F_OBJECTS("cells", true, inst_cell_fields),
};

long long plan_render_count_of(const json_t *counts, const char *name) {
    const json_t *n = json_object_get(counts, name);
    return json_is_integer(n) ? (long long)json_integer_value(n) : 0;
}

/* An array of page sizes [{"size_kb", "total", "used", "reserved"}]; sizes
 * past MAX_PAGE_SIZES are checked but not kept. */
static const struct rd_field page_fields[] = {
    F_INT("size_kb", false, 1, 0, offsetof(struct pg, size_kb)),
    F_INT("total", false, 0, 0, offsetof(struct pg, total)),
    F_INT("used", false, 0, 0, offsetof(struct pg, used)),
    F_INT("reserved", true, 0, 0, offsetof(struct pg, reserved)),
};

static int rd_pages(struct rd *r, const json_t *o, const char *key, struct pg *pages,
                    size_t *npages) {
    const json_t *a;
    int rc = rd_objects(r, o, key, false, page_fields, NFIELDS(page_fields), pages, sizeof(*pages),
                        MAX_PAGE_SIZES, &a);
    size_t n = a ? json_array_size(a) : 0;

    *npages = rc ? 0 : n < MAX_PAGE_SIZES ? n : MAX_PAGE_SIZES;
    return rc;
}

/* An array [{"size_kb": n, "free": n}] (free_pages, pages_without_cpus). */
static const struct rd_field free_page_fields[] = {
    F_INT("size_kb", false, 1, 0, NO_OFF),
    F_INT("free", false, 0, 0, NO_OFF),
};

static int rd_free_pages(struct rd *r, const json_t *o, const char *key, const json_t **out) {
    return rd_objects(r, o, key, false, free_page_fields, NFIELDS(free_page_fields), NULL, 0, 0,
                      out);
}

long long plan_render_free_pages_of(const json_t *a, long long size_kb) {
    const json_t *p;
    size_t i;
    json_array_foreach(a, i, p) {
        if (json_integer_value(json_object_get(p, "size_kb")) == size_kb)
            return (long long)json_integer_value(json_object_get(p, "free"));
    }
    return 0;
}

/* A <capacity>. */
static const struct rd_field cap_fields[] = {
    F_INT("free_pcpus", false, 0, 0, offsetof(struct cap, free_pcpus)),
    F_INT("lost_siblings", false, 0, 0, offsetof(struct cap, lost_siblings)),
    F_INT("orphan_threads", false, 0, 0, offsetof(struct cap, orphan_threads)),
    F_INT("free_memory_mb", false, 0, 0, offsetof(struct cap, free_memory_mb)),
    F_INT("memory_without_cpus_mb", false, 0, 0, offsetof(struct cap, memory_without_cpus_mb)),
    F_INT("free_shared_vcpus", true, 0, -1, offsetof(struct cap, free_shared_vcpus)),
    F_INT("cpus_without_memory", true, 0, -1, offsetof(struct cap, cpus_without_memory)),
};

static int rd_cap(struct rd *r, const json_t *o, const char *key, bool optional, struct cap *c,
                  bool *present) {
    int rc = 0;
    const json_t *v = rd_get(r, o, key, JSON_OBJECT, optional, &rc);
    size_t old;

    memset(c, 0, sizeof(*c));
    if (present)
        *present = v != NULL;
    if (!v)
        return rc;
    old = rd_key(r, key);
    rc = rd_fields(r, v, cap_fields, NFIELDS(cap_fields), c);
    if (!rc)
        rc = rd_free_pages(r, v, "free_pages", &c->free_pages);
    if (!rc)
        rc = rd_free_pages(r, v, "pages_without_cpus", &c->pages_without_cpus);
    c->has_shared = c->free_shared_vcpus >= 0;
    c->has_cwm = c->cpus_without_memory >= 0;
    rd_pop(r, old);
    return rc;
}

/* ------------------------------------------------------------------ hosts */

static void color_hex(char out[8], int red, int green, int blue) {
    snprintf(out, 8, "#%02x%02x%02x", red & 255, green & 255, blue & 255);
}

/* The color of rank i, 0xRRGGBB. */
static unsigned rank_rgb(size_t i) {
    static const int light[3] = {420, 530, 340}; /* per mille */
    int hue, l, c, x, m, r1 = 0, g1 = 0, b1 = 0;

    if (i < NPALETTE)
        return (unsigned)strtoul(palette[i] + 1, NULL, 16);
    /* hue at the golden angle, squeezed out of the greens (70-170),
     * saturation 0.6, three lightnesses in turn */
    hue = (int)((170u + (i * 137u + i / 2u) % 360u * 260u / 360u) % 360u);
    l = light[i % 3];
    c = (1000 - abs(2 * l - 1000)) * 600 / 1000; /* chroma */
    x = c * (1000 - abs((hue * 1000 / 60) % 2000 - 1000)) / 1000;
    m = l - c / 2;
    switch (hue / 60) {
        case 0:
            r1 = c, g1 = x;
            break;
        case 1:
            r1 = x, g1 = c;
            break;
        case 2:
            g1 = c, b1 = x;
            break;
        case 3:
            g1 = x, b1 = c;
            break;
        case 4:
            r1 = x, b1 = c;
            break;
        default:
            r1 = c, b1 = x;
            break;
    }
    return (unsigned)((r1 + m) * 255 / 1000) << 16 | (unsigned)((g1 + m) * 255 / 1000) << 8 |
           (unsigned)((b1 + m) * 255 / 1000);
}

/* Set the colors of an instance from 0xRRGGBB; pale: 65% towards white. */
static void inst_set_color(struct inst *in, unsigned v) {
    int rgb[3] = {(int)(v >> 16) & 255, (int)(v >> 8) & 255, (int)v & 255}, k;

    color_hex(in->color, rgb[0], rgb[1], rgb[2]);
    in->dark = (299 * rgb[0] + 587 * rgb[1] + 114 * rgb[2]) / 1000 < 150;
    for (k = 0; k < 3; k++)
        rgb[k] += (255 - rgb[k]) * 13 / 20;
    color_hex(in->pale, rgb[0], rgb[1], rgb[2]);
}

static int cmp_inst(const void *a, const void *b) {
    const struct inst_key *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Index in h->insts of instance id, or (size_t)-1. */
static size_t find_inst(const struct host *h, long long id) {
    size_t lo = 0, hi = h->ninsts;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        long long v = h->by_id[mid].id;
        if (v == id)
            return h->by_id[mid].i;
        if (v < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (size_t)-1;
}

/* The guest vCPU pinned to cpu by instance in (its cells[].pinning), or -1. */
static int vcpu_of(const struct inst *in, long long cpu) {
    const json_t *c, *pcpu;
    const char *k;
    size_t i;
    json_array_foreach(in->cells, i, c) {
        json_object_foreach(json_object_get(c, "pinning"), k, pcpu) {
            if (json_is_integer(pcpu) && json_integer_value(pcpu) == cpu) {
                char *end;
                long v = strtol(k, &end, 10);
                if (*k && !*end && v >= 0 && v < 1000000)
                    return (int)v;
            }
        }
    }
    return -1;
}

static void host_free(struct host *h) {
    size_t i;
    if (!h)
        return;
    for (i = 0; i < h->ncells; i++) {
        free(h->cells[i].cores);
        free(h->cells[i].thr);
    }
    free(h->cells);
    free(h->insts);
    free(h->by_id);
    memset(h, 0, sizeof(*h));
}

static int rd_instances(struct rd *r, const json_t *hj, struct host *h) {
    const json_t *a, *v;
    int rc = rd_objects(r, hj, "instances", false, instance_fields, NFIELDS(instance_fields), NULL,
                        0, 0, &a);
    size_t i, old;

    if (rc)
        return rc;
    h->ninsts = json_array_size(a);
    h->insts = calloc(h->ninsts ? h->ninsts : 1, sizeof(*h->insts));
    h->by_id = calloc(h->ninsts ? h->ninsts : 1, sizeof(*h->by_id));
    if (!h->insts || !h->by_id)
        return rd_fail(r, "instances", "out of memory");
    json_array_foreach(a, i, v) {
        struct inst *in = &h->insts[i];
        in->id = (long long)json_integer_value(json_object_get(v, "id"));
        in->flavor = json_string_value(json_object_get(v, "flavor"));
        if (!in->flavor)
            in->flavor = "(flavor unknown)";
        in->existing = json_is_true(json_object_get(v, "existing"));
        in->cells = json_object_get(v, "cells");
        if (!json_is_array(in->cells))
            in->cells = NULL;
        h->by_id[i].id = in->id;
        h->by_id[i].i = i;
    }
    qsort(h->by_id, h->ninsts, sizeof(*h->by_id), cmp_inst);
    for (i = 1; i < h->ninsts; i++)
        if (h->by_id[i].id == h->by_id[i - 1].id) {
            old = rd_key(r, "instances");
            rd_push(r, "[%zu]",
                    h->by_id[i].i > h->by_id[i - 1].i ? h->by_id[i].i : h->by_id[i - 1].i);
            rc = rd_fail(r, "id", "instance id %lld appears twice", h->by_id[i].id);
            rd_pop(r, old);
            break;
        }
    return rc;
}

/* One thread object of a core. */
static int rd_thread(struct rd *r, struct host *h, const json_t *t, struct thr *out) {
    const char *st;
    long long id;
    int rc, s;

    if (!json_is_object(t))
        return rd_fail(r, NULL, "%s, not an object", type_name(t));
    rc = rd_int(r, t, "cpu", false, 0, 0, &out->cpu);
    if (!rc)
        rc = rd_str(r, t, "state", false, &st);
    if (rc)
        return rc;
    for (s = 0; s < T_NSTATES; s++)
        if (!strcmp(st, plan_render_state_names[s]))
            break;
    if (s == T_NSTATES)
        return rd_fail(r, "state", "unknown state \"%.40s\"", st);
    out->state = s;
    out->vcpu = -1;
    out->inst = (size_t)-1;
    if (s != T_PINNED && s != T_EMULATOR && s != T_ISOLATED)
        return 0;
    rc = rd_int(r, t, "instance", false, LLONG_MIN, 0, &id);
    if (rc)
        return rc;
    out->inst = find_inst(h, id);
    if (out->inst == (size_t)-1)
        return rd_fail(r, "instance", "%lld is not in the host's instances", id);
    h->insts[out->inst].pinned = true;
    if (s == T_PINNED)
        out->vcpu = vcpu_of(&h->insts[out->inst], out->cpu);
    return 0;
}

static int rd_cell(struct rd *r, struct host *h, const json_t *cj, struct cell *c) {
    int rc = 0;
    const json_t *cores = NULL, *core, *t, *sock;
    size_t i, j, total = 0, old, old2, old3;

    if (!json_is_object(cj))
        return rd_fail(r, NULL, "%s, not an object", type_name(cj));
    rc = rd_int(r, cj, "id", false, 0, 0, &c->id);
    sock = json_object_get(cj, "socket");
    if (!rc && sock && !json_is_null(sock))
        rc = rd_int(r, cj, "socket", false, 0, 0, &c->socket);
    c->has_socket = sock && !json_is_null(sock);
    if (!rc)
        rc = rd_int(r, cj, "memory_mb", false, 0, 0, &c->mem);
    if (!rc)
        rc = rd_int(r, cj, "memory_used_mb", false, 0, 0, &c->mem_used);
    if (!rc)
        rc = rd_int(r, cj, "shared_cpus", false, 0, 0, &c->shared);
    if (!rc)
        rc = rd_int(r, cj, "cpu_usage", false, 0, 0, &c->usage);
    if (!rc)
        rc = rd_int(r, cj, "pci_devices", true, 0, -1, &c->pci);
    if (!rc)
        rc = rd_int(r, cj, "pci_devices_free", true, 0, -1, &c->pci_free);
    if (!rc)
        rc = rd_pages(r, cj, "pages", c->pages, &c->npages);
    if (!rc)
        cores = rd_get(r, cj, "cores", JSON_ARRAY, false, &rc);
    if (rc)
        return rc;
    old = rd_key(r, "cores");
    json_array_foreach(cores, i, core) {
        if (!json_is_array(core)) {
            rd_push(r, "[%zu]", i);
            rc = rd_fail(r, NULL, "%s, not an array of threads", type_name(core));
            rd_pop(r, old);
            return rc;
        }
        total += json_array_size(core);
    }
    c->cores = calloc(json_array_size(cores) ? json_array_size(cores) : 1, sizeof(*c->cores));
    c->thr = calloc(total < MAX_CELL_THREADS ? total + 1 : MAX_CELL_THREADS, sizeof(*c->thr));
    if (!c->cores || !c->thr) {
        rd_pop(r, old);
        return rd_fail(r, NULL, "out of memory");
    }
    json_array_foreach(cores, i, core) {
        size_t n = json_array_size(core);
        bool keep = n && c->nthr + n <= MAX_CELL_THREADS;
        old2 = rd_push(r, "[%zu]", i);
        if (keep) {
            c->cores[c->ncores].first = c->nthr;
            c->cores[c->ncores].n = n;
            c->ncores++;
        } else {
            c->hidden += n;
        }
        json_array_foreach(core, j, t) {
            struct thr tmp;
            old3 = rd_push(r, "[%zu]", j);
            rc = rd_thread(r, h, t, keep ? &c->thr[c->nthr++] : &tmp);
            rd_pop(r, old3);
            if (rc)
                break;
        }
        rd_pop(r, old2);
        if (rc)
            break;
    }
    rd_pop(r, old);
    return rc;
}

static int rd_host(struct rd *r, const json_t *hj, struct host *h) {
    int rc = 0;
    const json_t *cells = NULL, *cj;
    size_t i, n, old, old2;

    memset(h, 0, sizeof(*h));
    if (!json_is_object(hj))
        return rd_fail(r, NULL, "%s, not an object", type_name(hj));
    rc = rd_str(r, hj, "name", false, &h->name);
    if (!rc)
        rc = rd_str(r, hj, "source", true, &h->source);
    if (!rc)
        rc = rd_counts(r, hj, "mixed", true, &h->mixed);
    if (!rc)
        rc = rd_cap(r, hj, "stranded", true, &h->stranded, &h->has_stranded);
    if (!rc)
        rc = rd_instances(r, hj, h);
    if (!rc)
        cells = rd_get(r, hj, "cells", JSON_ARRAY, false, &rc);
    if (rc)
        return rc;
    n = json_array_size(cells);
    h->hidden_cells = n > MAX_CELLS ? n - MAX_CELLS : 0;
    n -= h->hidden_cells;
    h->cells = calloc(n ? n : 1, sizeof(*h->cells));
    if (!h->cells)
        return rd_fail(r, "cells", "out of memory");
    old = rd_key(r, "cells");
    json_array_foreach(cells, i, cj) {
        if (i >= n)
            break;
        old2 = rd_push(r, "[%zu]", i);
        h->ncells++;
        rc = rd_cell(r, h, cj, &h->cells[i]);
        rd_pop(r, old2);
        if (rc)
            break;
        h->nthreads += h->cells[i].nthr;
    }
    rd_pop(r, old);
    return rc;
}

/* ------------------------------------------------------------------ results and the plan */

static const struct rd_field reason_fields[] = {
    F("reason", RD_STR, false),
    F_INT("count", false, 0, 0, NO_OFF),
};

static const struct rd_field why_not_fields[] = {
    F_INT("host_cells", true, 0, 0, NO_OFF),
    F_OBJECTS("reasons", false, reason_fields),
};

static int rd_why_not(struct rd *r, const json_t *rj, const json_t **out) {
    int rc = 0;
    const json_t *w = rd_get(r, rj, "why_not", JSON_OBJECT, true, &rc), *f;
    const char *k;
    size_t old, old2;

    *out = w;
    if (!w)
        return rc;
    old = rd_key(r, "why_not");
    json_object_foreach((json_t *)w, k, f) {
        old2 = rd_key(r, k);
        rc = rd_fields(r, f, why_not_fields, NFIELDS(why_not_fields), NULL);
        rd_pop(r, old2);
        if (rc)
            break;
    }
    rd_pop(r, old);
    return rc;
}

static const struct rd_field summary_fields[] = {
    F("name", RD_STR, false),
    F("mixed", RD_COUNTS, true),
    F_INT("stranded_pcpus", true, 0, 0, NO_OFF),
    F_INT("stranded_memory_mb", true, 0, 0, NO_OFF),
};

static int rd_summary(struct rd *r, const json_t *rj, const json_t **out) {
    return rd_objects(r, rj, "hosts_summary", true, summary_fields, NFIELDS(summary_fields), NULL,
                      0, 0, out);
}

static void res_free(struct res *s) {
    size_t i;
    for (i = 0; i < s->nhosts; i++)
        host_free(&s->hosts[i]);
    free(s->hosts);
    s->hosts = NULL;
    s->nhosts = 0;
}

static int cmp_ll(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

struct rank_color {
    unsigned rgb;
    size_t rank;
};

static int cmp_rank_color(const void *a, const void *b) {
    const struct rank_color *x = a, *y = b;
    if (x->rgb != y->rgb)
        return x->rgb < y->rgb ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Colors of the instances that own threads on the drawn hosts: by the rank
 * of their id among the distinct ids of such instances; where two ranks come
 * out as the same hex color, the later one is nudged a shade, so that every
 * id has its own. */
static int color_instances(struct res *s) {
    size_t n = 0, k, i, u;
    long long *ids;
    struct rank_color *rc;
    unsigned *by_rank;
    int round;
    bool dup = true;

    for (k = 0; k < s->nhosts; k++)
        n += s->hosts[k].ninsts;
    ids = malloc((n ? n : 1) * sizeof(*ids));
    rc = malloc((n ? n : 1) * sizeof(*rc));
    by_rank = malloc((n ? n : 1) * sizeof(*by_rank));
    if (!ids || !rc || !by_rank) {
        free(ids);
        free(rc);
        free(by_rank);
        return -1;
    }
    n = 0;
    for (k = 0; k < s->nhosts; k++)
        for (i = 0; i < s->hosts[k].ninsts; i++)
            if (s->hosts[k].insts[i].pinned)
                ids[n++] = s->hosts[k].insts[i].id;
    qsort(ids, n, sizeof(*ids), cmp_ll);
    for (u = 0, i = 0; i < n; i++)
        if (!u || ids[i] != ids[u - 1])
            ids[u++] = ids[i];
    for (i = 0; i < u; i++) {
        rc[i].rgb = rank_rgb(i);
        rc[i].rank = i;
    }
    for (round = 0; dup && round < 64; round++) {
        dup = false;
        qsort(rc, u, sizeof(*rc), cmp_rank_color);
        for (i = 1; i < u; i++)
            if (rc[i].rgb == rc[i - 1].rgb) {
                rc[i].rgb ^= 0x010305u << (round % 3);
                dup = true;
            }
    }
    for (i = 0; i < u; i++)
        by_rank[rc[i].rank] = rc[i].rgb;
    for (k = 0; k < s->nhosts; k++)
        for (i = 0; i < s->hosts[k].ninsts; i++) {
            struct inst *in = &s->hosts[k].insts[i];
            const long long *at = bsearch(&in->id, ids, u, sizeof(*ids), cmp_ll);
            inst_set_color(in, at ? by_rank[at - ids] : 0xffffffu);
        }
    free(ids);
    free(rc);
    free(by_rank);
    return 0;
}

/* A strategy's "target" (numafit plan --target): reachable, hosts_needed
 * (null when not reachable), placed. */
static int rd_res_target(struct rd *r, const json_t *rj, struct res *s) {
    int rc = 0;
    const json_t *t = rd_get(r, rj, "target", JSON_OBJECT, true, &rc), *v;
    size_t old;

    if (!t)
        return rc;
    old = rd_key(r, "target");
    v = rd_get(r, t, "reachable", JSON_NULL, false, &rc);
    if (!rc && !json_is_boolean(v))
        rc = rd_fail(r, "reachable", "%s, not a boolean", type_name(v));
    s->target_reachable = json_is_true(v);
    if (!rc)
        rc = rd_int(r, t, "hosts_needed", true, 0, -1, &s->target_needed);
    if (!rc && s->target_reachable != (s->target_needed >= 0))
        rc = rd_fail(r, "hosts_needed", "%s while reachable is %s",
                     s->target_needed >= 0 ? "a count" : "missing",
                     s->target_reachable ? "true" : "false");
    if (!rc)
        rc = rd_int(r, t, "placed", false, 0, 0, &s->target_placed);
    rd_pop(r, old);
    s->has_target = !rc;
    return rc;
}

static int rd_res(struct rd *r, const json_t *rj, struct res *s) {
    int rc = 0;
    const json_t *hosts = NULL, *hj;
    size_t i, threads = 0, old, old2;

    if (!json_is_object(rj))
        return rd_fail(r, NULL, "%s, not an object", type_name(rj));
    rc = rd_counts(r, rj, "alone", false, &s->alone);
    if (!rc)
        rc = rd_counts(r, rj, "mixed", false, &s->mixed);
    if (!rc)
        rc = rd_int(r, rj, "mixed_total", true, 0, -1, &s->mixed_total);
    if (!rc)
        rc = rd_int(r, rj, "hosts_used", true, 0, -1, &s->hosts_used);
    if (!rc)
        rc = rd_int(r, rj, "capped_hosts", true, 0, 0, &s->capped_hosts);
    s->has_mixed_total = s->mixed_total >= 0;
    s->has_hosts_used = s->hosts_used >= 0;
    if (!rc)
        rc = rd_cap(r, rj, "stranded", false, &s->stranded, NULL);
    if (!rc)
        rc = rd_why_not(r, rj, &s->why_not);
    if (!rc)
        rc = rd_summary(r, rj, &s->summary);
    if (!rc)
        rc = rd_res_target(r, rj, s);
    if (!rc)
        hosts = rd_get(r, rj, "hosts", JSON_ARRAY, false, &rc);
    if (rc)
        return rc;
    s->listed = json_array_size(hosts);
    s->hosts = calloc(s->listed < MAX_HOSTS ? s->listed + 1 : MAX_HOSTS, sizeof(*s->hosts));
    if (!s->hosts)
        return rd_fail(r, "hosts", "out of memory");
    old = rd_key(r, "hosts");
    json_array_foreach(hosts, i, hj) {
        struct host *h = &s->hosts[s->nhosts];
        if (s->nhosts >= MAX_HOSTS)
            break;
        old2 = rd_push(r, "[%zu]", i);
        rc = rd_host(r, hj, h);
        rd_pop(r, old2);
        if (rc) {
            host_free(h);
            break;
        }
        if (s->nhosts && threads + h->nthreads > MAX_THREADS) {
            host_free(h); /* the picture is full: this host and the rest are counted */
            break;
        }
        threads += h->nthreads;
        s->nhosts++;
    }
    rd_pop(r, old);
    if (!rc && color_instances(s) < 0)
        rc = rd_fail(r, "hosts", "out of memory");
    return rc;
}

void plan_render_free(struct plan *p) {
    size_t i;
    for (i = 0; i < p->nres; i++)
        res_free(&p->res[i]);
}

static void add_flavor(struct plan *p, const char *name, const json_t *fj) {
    size_t i;
    for (i = 0; i < p->nflavors; i++)
        if (!strcmp(p->flavors[i], name))
            return;
    if (p->nflavors >= MAX_FLAVORS) {
        p->hidden_flavors++;
        return;
    }
    p->flavor_json[p->nflavors] = fj;
    p->planned[p->nflavors] = !json_is_false(json_object_get(fj, "planned"));
    p->flavors[p->nflavors++] = name;
}

/* Read plan; only the strategy named only (if not NULL) is read. */
static const struct rd_field source_fields[] = {
    F_INT("hosts", true, 0, 0, NO_OFF),
    F_INT("skipped", true, 0, 0, NO_OFF),
};

static const struct rd_field flavor_fields[] = {
    F("name", RD_STR, false),
    F_INT("vcpus", true, 0, 0, NO_OFF),
    F_INT("memory_mb", true, 0, 0, NO_OFF),
    F_INT("numa_cells", true, 0, 0, NO_OFF),
    F("weight", RD_RATIO, true),
    F("planned", RD_BOOL, false),
};

int plan_render_read(const json_t *pj, const char *only, struct plan *p, char *err, size_t errlen) {
    struct rd r = {.err = err, .errlen = errlen};
    const json_t *fleet = NULL, *flavors, *strategies, *lim, *v;
    const char *k;
    long long version, cnt;
    size_t i, old;
    int rc = 0;

    memset(p, 0, sizeof(*p));
    if (!json_is_object(pj))
        return rd_fail(&r, NULL, "the plan is %s, not an object", type_name(pj));
    rc = rd_int(&r, pj, "numafit_plan", false, 1, 0, &version);
    if (!rc && version != 1)
        return rd_fail(&r, "numafit_plan", "format version %lld, this program reads 1", version);
    if (!rc)
        rc = rd_str(&r, pj, "nova_release", true, &p->release);
    if (!rc)
        rc = rd_str(&r, pj, "mix", true, &p->mix);
    if (!rc && (v = rd_get(&r, pj, "target", JSON_OBJECT, true, &rc))) {
        old = rd_key(&r, "target");
        rc = rd_int(&r, v, "instances", false, 0, 0, &p->target_instances);
        rd_pop(&r, old);
        p->has_target = !rc;
    }
    if (!rc)
        fleet = rd_get(&r, pj, "fleet", JSON_OBJECT, false, &rc);
    if (rc)
        return rc;
    old = rd_key(&r, "fleet");
    rc = rd_int(&r, fleet, "hosts", false, 0, 0, &p->hosts);
    if (!rc)
        rc = rd_int(&r, fleet, "pcpus", false, 0, 0, &p->pcpus);
    if (!rc)
        rc = rd_int(&r, fleet, "memory_mb", false, 0, 0, &p->memory_mb);
    if (!rc)
        rc = rd_int(&r, fleet, "cells", true, 0, -1, &p->cells);
    if (!rc)
        rc = rd_int(&r, fleet, "shared_cpus", true, 0, -1, &p->shared_cpus);
    if (!rc)
        rc = rd_int(&r, fleet, "instances_loaded", true, 0, -1, &p->instances_loaded);
    if (!rc)
        rc = rd_int(&r, fleet, "instances_skipped", true, 0, 0, &cnt);
    if (!rc)
        rc = rd_pages(&r, fleet, "pages", p->fpages, &p->nfpages);
    if (!rc)
        rc = rd_objects(&r, fleet, "sources", true, source_fields, NFIELDS(source_fields), NULL, 0,
                        0, NULL);
    rd_pop(&r, old);
    if (rc)
        return rc;
    p->has_cells = p->cells >= 0;
    p->has_shared_cpus = p->shared_cpus >= 0;
    p->has_loaded = p->instances_loaded >= 0;

    lim = rd_get(&r, pj, "limits", JSON_OBJECT, true, &rc);
    if (!rc && lim) {
        old = rd_key(&r, "limits");
        rc = rd_ratio(&r, lim, "cpu_allocation_ratio");
        if (!rc)
            rc = rd_ratio(&r, lim, "ram_allocation_ratio");
        if (!rc)
            rc = rd_int(&r, lim, "hosts_with_own_ratios", true, 0, 0, &cnt);
        rd_pop(&r, old);
    }
    if (!rc)
        rc = rd_int(&r, pj, "max_instances", true, 0, 0, &cnt);
    if (rc)
        return rc;
    if (lim && json_is_number(json_object_get(lim, "cpu_allocation_ratio")) &&
        json_is_number(json_object_get(lim, "ram_allocation_ratio"))) {
        p->has_ratios = true;
        p->cpu_ratio = json_number_value(json_object_get(lim, "cpu_allocation_ratio"));
        p->ram_ratio = json_number_value(json_object_get(lim, "ram_allocation_ratio"));
    }
    rc = rd_objects(&r, pj, "flavors", false, flavor_fields, NFIELDS(flavor_fields), NULL, 0, 0,
                    &flavors);
    if (rc)
        return rc;
    json_array_foreach(flavors, i, v)
        add_flavor(p, json_string_value(json_object_get(v, "name")), v);

    strategies = rd_get(&r, pj, "strategies", JSON_OBJECT, false, &rc);
    if (rc)
        return rc;
    if (!json_object_size(strategies))
        return rd_fail(&r, "strategies", "no strategy in the plan");
    if (only && !json_object_get(strategies, only)) {
        char have[96] = "";
        size_t n = 0;
        json_object_foreach((json_t *)strategies, k, v) {
            n += (size_t)snprintf(have + n, n < sizeof(have) ? sizeof(have) - n : 0, "%s%s",
                                  n ? ", " : "", k);
            if (n >= sizeof(have))
                break;
        }
        return rd_fail(&r, "strategies", "no strategy \"%.32s\" in the plan (it has: %s)", only,
                       have);
    }
    old = rd_key(&r, "strategies");
    json_object_foreach((json_t *)strategies, k, v) {
        struct res *s;
        size_t old2;
        if (only && strcmp(k, only))
            continue;
        if (p->nres >= MAX_STRATEGIES) {
            p->hidden_res++;
            continue;
        }
        s = &p->res[p->nres++];
        s->name = k;
        old2 = rd_key(&r, k);
        rc = rd_res(&r, v, s);
        rd_pop(&r, old2);
        if (rc)
            break;
    }
    rd_pop(&r, old);
    if (rc)
        return rc;
    for (i = 0; i < p->nres; i++) {
        json_object_foreach((json_t *)p->res[i].alone, k, v) add_flavor(p, k, NULL);
        json_object_foreach((json_t *)p->res[i].mixed, k, v) add_flavor(p, k, NULL);
    }
    return 0;
}
