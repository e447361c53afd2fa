/*
 * Pictures of a fleet plan (doc/plan-json.md, doc/plan-pictures.md).
 *
 * The plan is read and checked whole first (struct plan: every field drawn,
 * with the JSON path of the first bad one in the error), then laid out
 * (sizes of threads, cores, cells and hosts in pixels, all integers), then
 * written. Nothing is written when the plan is refused, and the same plan
 * always gives the same bytes. Sizes are capped (MAX_* below), with a note
 * in the picture saying what was left out.
 */
#include "config.h"

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "plan_render.h"

/* ------------------------------------------------------------------ limits */

#define MAX_STRATEGIES   8     /* strategies read from a plan */
#define MAX_HOSTS        64    /* hosts drawn per strategy */
#define MAX_CELLS        64    /* cells drawn per host */
#define MAX_CELL_THREADS 1024  /* threads drawn per cell */
#define MAX_THREADS      65536 /* threads drawn per picture */
#define MAX_LEGEND       128   /* instances listed under a host */
#define MAX_FLAVORS      64    /* flavors in the charts and the table */
#define MAX_PAGE_SIZES   6     /* page sizes shown per cell or chart */
#define MAX_WHY          8     /* flavors of why_not written */
#define MAX_REASONS      4     /* reasons written per flavor */
#define MAX_SUMMARY      64    /* hosts_summary rows in the HTML table */
#define NAME_HOST        60    /* code points of a host name shown */
#define NAME_FLAVOR      32    /* code points of a flavor name shown */

/* Counts above this are drawn as this (no overflow in the scaling). */
#define VALUE_MAX 1000000000000000LL

/* ------------------------------------------------------------------ geometry (px) */

#define FONT       "DejaVu Sans Mono,Menlo,Consolas,monospace"
#define TW         36 /* thread box */
#define TH         18
#define TG         2 /* gap between threads */
#define TPR        8 /* threads per row inside a core */
#define CP         3 /* core padding */
#define CG         4 /* gap between cores */
#define CELL_PAD   6
#define CELL_WRAP  560 /* cores wrap into rows this wide */
#define CELL_GAP   8
#define HOST_PAD   8
#define HOST_WRAP  1200 /* cells wrap into rows this wide */
#define HOST_GAP   14
#define MARGIN     12
#define LINE_H     15 /* an 11 px text line */
#define SWATCH     12
#define BAR_LABEL  14 /* characters of a chart row label */
#define BAR_W      420
#define BAR_H      16
#define BAR_ROW    22
#define FBAR_H     10 /* a flavor bar (alone or mixed) */
#define FBAR_W     300
#define LEGEND_MIN 600

/* ------------------------------------------------------------------ colors */

#define C_FREE      "#dcefcf" /* free dedicated CPU; free capacity in the chart */
#define C_SHARED    "#cfe0f5" /* shared pool */
#define C_USED      "#a6a6a6" /* pinned before the plan, owner unknown */
#define C_OFFLINE   "#ffffff"
#define C_CORE      "#f4f4f0"
#define C_CELL      "#fbfbf6"
#define C_HOST      "#ffffff"
#define C_BAR_USED  "#5d6d7e" /* chart: used by instances */
#define C_BAR_STRND "#f1c40f" /* chart: stranded */
#define C_BAR_HUGE  "#cdc6e4" /* chart: memory in huge pages */
#define C_ALONE     "#aab7c4" /* flavor chart: alone */
#define C_MIXED     "#34495e" /* flavor chart: mixed */
#define C_SAMPLE    "#7f7f9f" /* state legend: an instance */
#define C_TEXT      "#222222"
#define C_NOTE      "#8a4b00"

/* Instance colors, by the rank of the instance id among the ids of the
 * instances on the hosts drawn in a picture (so distinct within a picture;
 * beyond these twelve, hues at the golden angle). No greens: green is
 * free. */
static const char *const palette[] = {"#1f77b4", "#d62728", "#9467bd", "#ff7f0e",
                                      "#8c564b", "#e377c2", "#17becf", "#393b79",
                                      "#843c39", "#7b4173", "#bd9e39", "#1b7878"};
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))

/* ------------------------------------------------------------------ the plan in memory */

enum tstate { T_SHARED, T_FREE, T_PINNED, T_EMULATOR, T_ISOLATED, T_USED, T_OFFLINE, T_NSTATES };
static const char *const state_names[T_NSTATES] = {"shared",   "free", "pinned", "emulator",
                                                   "isolated", "used", "offline"};

struct thr {
    long long cpu;
    int state;   /* enum tstate */
    int vcpu;    /* pinned: the guest vCPU, -1 if unknown */
    size_t inst; /* pinned, emulator, isolated: index in host->insts */
};

struct core {
    size_t first, n; /* threads first .. first + n - 1 of the cell */
    int x, y, w, h;  /* relative to the cell */
};

struct pg {
    long long size_kb, total, used, reserved;
};

struct cell {
    long long id, socket, mem, mem_used, shared, usage;
    bool has_socket;
    struct pg pages[MAX_PAGE_SIZES];
    size_t npages;
    struct core *cores;
    size_t ncores;
    struct thr *thr;
    size_t nthr;
    size_t hidden;  /* threads not drawn */
    int x, y, w, h; /* relative to the host */
};

struct inst {
    long long id;
    const char *flavor;
    const json_t *cells; /* for the vCPU of a pinned CPU; may be NULL */
    bool existing;
    bool pinned; /* owns threads: pinned, emulator or isolated */
    char color[8], pale[8];
    bool dark; /* white text on color */
};

struct inst_key {
    long long id;
    size_t i; /* in host->insts */
};

struct cap {
    long long free_pcpus, free_shared_vcpus, lost_siblings, orphan_threads;
    long long free_memory_mb, memory_without_cpus_mb, cpus_without_memory;
    bool has_shared, has_cwm;
    const json_t *free_pages, *pages_without_cpus; /* arrays of {size_kb, free} */
};

struct host {
    const char *name, *source;
    const json_t *mixed; /* object of counts or NULL */
    struct cap stranded;
    bool has_stranded;
    struct cell *cells;
    size_t ncells, hidden_cells;
    struct inst *insts;
    size_t ninsts;
    struct inst_key *by_id; /* insts sorted by id */
    size_t nthreads;
    int w, h, cells_w, cells_h;
};

struct res {
    const char *name;
    const json_t *alone, *mixed; /* objects of counts */
    long long mixed_total, hosts_used, capped_hosts;
    bool has_mixed_total, has_hosts_used;
    struct cap stranded;
    const json_t *why_not; /* validated or NULL */
    const json_t *summary; /* hosts_summary, validated or NULL */
    struct host *hosts;
    size_t nhosts; /* drawn */
    size_t listed; /* in the JSON "hosts" array */
};

struct plan {
    const char *release, *mix;
    long long hosts, cells, pcpus, shared_cpus, memory_mb, instances_loaded;
    bool has_cells, has_shared_cpus, has_loaded;
    struct pg fpages[MAX_PAGE_SIZES];
    size_t nfpages;
    const char *flavors[MAX_FLAVORS];       /* chart order: "flavors", then others counted */
    const json_t *flavor_json[MAX_FLAVORS]; /* the "flavors" entry, or NULL */
    bool planned[MAX_FLAVORS];              /* false: no NUMA topology, not planned */
    double cpu_ratio, ram_ratio;            /* "limits", when has_ratios */
    bool has_ratios;
    size_t nflavors, hidden_flavors;
    struct res res[MAX_STRATEGIES];
    size_t nres, hidden_res;
};

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

static const char *type_name(const json_t *v) {
    switch (json_typeof(v)) {
        case JSON_OBJECT:
            return "an object";
        case JSON_ARRAY:
            return "an array";
        case JSON_STRING:
            return "a string";
        case JSON_INTEGER:
            return "an integer";
        case JSON_REAL:
            return "a number";
        case JSON_TRUE:
        case JSON_FALSE:
            return "a boolean";
        default:
            return "null";
    }
}

/* Member key of o with type t (JSON_NULL: any); NULL with the error set when
 * missing or of another type, or, if optional, NULL without error when
 * missing or null. */
static const json_t *rd_get(struct rd *r, const json_t *o, const char *key, json_type t,
                            bool optional, int *rc) {
    static const char *const want[] = {"an object", "an array", "a string", "an integer",
                                       "a number",  "true",     "false",    "null"};
    const json_t *v = json_object_get(o, key);

    if (!v || (optional && json_is_null(v))) {
        if (!optional)
            *rc = rd_fail(r, key, "missing");
        return NULL;
    }
    if (t != JSON_NULL && json_typeof(v) != t) {
        *rc = rd_fail(r, key, "%s, not %s", type_name(v), want[t]);
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

/* An array of integers >= 0 (CPU or vCPU ids); null too when nullable. */
static int rd_ids(struct rd *r, const json_t *o, const char *key, bool nullable) {
    int rc = 0;
    const json_t *a = rd_get(r, o, key, JSON_ARRAY, nullable, &rc), *v;
    size_t i, old;

    if (!a)
        return rc;
    old = rd_key(r, key);
    json_array_foreach(a, i, v) {
        if (!json_is_integer(v) || json_integer_value(v) < 0) {
            rd_push(r, "[%zu]", i);
            rc = json_is_integer(v)
                     ? rd_fail(r, NULL, "%lld is below 0", (long long)json_integer_value(v))
                     : rd_fail(r, NULL, "%s, not an integer", type_name(v));
            break;
        }
    }
    rd_pop(r, old);
    return rc;
}

/* The cells of an instance: where its guest cells went (doc/plan-json.md). */
static int rd_inst_cells(struct rd *r, const json_t *in) {
    int rc = 0;
    const json_t *a = rd_get(r, in, "cells", JSON_ARRAY, true, &rc), *c, *pin, *v;
    size_t i, old, old2, old3;
    long long n;
    const char *k;

    if (!a)
        return rc;
    old = rd_key(r, "cells");
    json_array_foreach(a, i, c) {
        old2 = rd_push(r, "[%zu]", i);
        if (!json_is_object(c))
            rc = rd_fail(r, NULL, "%s, not an object", type_name(c));
        if (!rc)
            rc = rd_int(r, c, "host_cell", false, 0, 0, &n);
        if (!rc)
            rc = rd_ids(r, c, "vcpus", false);
        if (!rc)
            rc = rd_int(r, c, "memory_mb", false, 0, 0, &n);
        if (!rc)
            rc = rd_int(r, c, "pagesize_kb", true, 1, 0, &n);
        if (!rc)
            rc = rd_ids(r, c, "emulator", true);
        if (!rc)
            pin = rd_get(r, c, "pinning", JSON_OBJECT, true, &rc);
        if (!rc && pin) {
            old3 = rd_key(r, "pinning");
            json_object_foreach((json_t *)pin, k, v) {
                if (!json_is_integer(v) || json_integer_value(v) < 0) {
                    rc = json_is_integer(v)
                             ? rd_fail(r, k, "%lld is below 0", (long long)json_integer_value(v))
                             : rd_fail(r, k, "%s, not an integer", type_name(v));
                    break;
                }
            }
            rd_pop(r, old3);
        }
        rd_pop(r, old2);
        if (rc)
            break;
    }
    rd_pop(r, old);
    return rc;
}

static long long count_of(const json_t *counts, const char *name) {
    const json_t *n = json_object_get(counts, name);
    return json_is_integer(n) ? (long long)json_integer_value(n) : 0;
}

/* An array of page sizes [{"size_kb", "total", "used", "reserved"}]; sizes
 * past MAX_PAGE_SIZES are checked but not kept. */
static int rd_pages(struct rd *r, const json_t *o, const char *key, struct pg *pages,
                    size_t *npages) {
    int rc = 0;
    const json_t *a = rd_get(r, o, key, JSON_ARRAY, false, &rc), *p;
    size_t i, old, old2;

    *npages = 0;
    if (!a)
        return rc;
    old = rd_key(r, key);
    json_array_foreach(a, i, p) {
        struct pg g;
        old2 = rd_push(r, "[%zu]", i);
        if (!json_is_object(p))
            rc = rd_fail(r, NULL, "%s, not an object", type_name(p));
        if (!rc)
            rc = rd_int(r, p, "size_kb", false, 1, 0, &g.size_kb);
        if (!rc)
            rc = rd_int(r, p, "total", false, 0, 0, &g.total);
        if (!rc)
            rc = rd_int(r, p, "used", false, 0, 0, &g.used);
        if (!rc)
            rc = rd_int(r, p, "reserved", true, 0, 0, &g.reserved);
        rd_pop(r, old2);
        if (rc)
            break;
        if (*npages < MAX_PAGE_SIZES)
            pages[(*npages)++] = g;
    }
    rd_pop(r, old);
    return rc;
}

/* An array [{"size_kb": n, "free": n}] (free_pages, pages_without_cpus). */
static int rd_free_pages(struct rd *r, const json_t *o, const char *key, const json_t **out) {
    int rc = 0;
    const json_t *a = rd_get(r, o, key, JSON_ARRAY, false, &rc), *p;
    long long v;
    size_t i, old, old2;

    *out = a;
    if (!a)
        return rc;
    old = rd_key(r, key);
    json_array_foreach(a, i, p) {
        old2 = rd_push(r, "[%zu]", i);
        if (!json_is_object(p))
            rc = rd_fail(r, NULL, "%s, not an object", type_name(p));
        if (!rc)
            rc = rd_int(r, p, "size_kb", false, 1, 0, &v);
        if (!rc)
            rc = rd_int(r, p, "free", false, 0, 0, &v);
        rd_pop(r, old2);
        if (rc)
            break;
    }
    rd_pop(r, old);
    return rc;
}

static long long free_pages_of(const json_t *a, long long size_kb) {
    const json_t *p;
    size_t i;
    json_array_foreach(a, i, p) {
        if (json_integer_value(json_object_get(p, "size_kb")) == size_kb)
            return (long long)json_integer_value(json_object_get(p, "free"));
    }
    return 0;
}

/* A <capacity>. */
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
    rc = rd_int(r, v, "free_pcpus", false, 0, 0, &c->free_pcpus);
    if (!rc)
        rc = rd_int(r, v, "lost_siblings", false, 0, 0, &c->lost_siblings);
    if (!rc)
        rc = rd_int(r, v, "orphan_threads", false, 0, 0, &c->orphan_threads);
    if (!rc)
        rc = rd_int(r, v, "free_memory_mb", false, 0, 0, &c->free_memory_mb);
    if (!rc)
        rc = rd_int(r, v, "memory_without_cpus_mb", false, 0, 0, &c->memory_without_cpus_mb);
    if (!rc)
        rc = rd_int(r, v, "free_shared_vcpus", true, 0, -1, &c->free_shared_vcpus);
    if (!rc)
        rc = rd_int(r, v, "cpus_without_memory", true, 0, -1, &c->cpus_without_memory);
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
    int rc = 0;
    const json_t *a = rd_get(r, hj, "instances", JSON_ARRAY, false, &rc), *v;
    size_t i, old, old2;

    if (!a)
        return rc;
    h->ninsts = json_array_size(a);
    h->insts = calloc(h->ninsts ? h->ninsts : 1, sizeof(*h->insts));
    h->by_id = calloc(h->ninsts ? h->ninsts : 1, sizeof(*h->by_id));
    if (!h->insts || !h->by_id)
        return rd_fail(r, "instances", "out of memory");
    old = rd_key(r, "instances");
    json_array_foreach(a, i, v) {
        struct inst *in = &h->insts[i];
        const json_t *ex;
        old2 = rd_push(r, "[%zu]", i);
        if (!json_is_object(v))
            rc = rd_fail(r, NULL, "%s, not an object", type_name(v));
        if (!rc)
            rc = rd_int(r, v, "id", false, LLONG_MIN, 0, &in->id);
        if (!rc)
            rc = rd_str(r, v, "flavor", true, &in->flavor);
        if (!rc && (ex = json_object_get(v, "existing")) && !json_is_boolean(ex) &&
            !json_is_null(ex))
            rc = rd_fail(r, "existing", "%s, not a boolean", type_name(ex));
        if (!rc)
            rc = rd_inst_cells(r, v);
        rd_pop(r, old2);
        if (rc)
            break;
        if (!in->flavor)
            in->flavor = "(flavor unknown)";
        in->existing = json_is_true(json_object_get(v, "existing"));
        in->cells = json_object_get(v, "cells");
        if (!json_is_array(in->cells))
            in->cells = NULL;
        h->by_id[i].id = in->id;
        h->by_id[i].i = i;
    }
    if (!rc) {
        qsort(h->by_id, h->ninsts, sizeof(*h->by_id), cmp_inst);
        for (i = 1; i < h->ninsts; i++)
            if (h->by_id[i].id == h->by_id[i - 1].id) {
                rd_push(r, "[%zu]",
                        h->by_id[i].i > h->by_id[i - 1].i ? h->by_id[i].i : h->by_id[i - 1].i);
                rc = rd_fail(r, "id", "instance id %lld appears twice", h->by_id[i].id);
                break;
            }
    }
    rd_pop(r, old);
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
        if (!strcmp(st, state_names[s]))
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

static int rd_why_not(struct rd *r, const json_t *rj, const json_t **out) {
    int rc = 0;
    const json_t *w = rd_get(r, rj, "why_not", JSON_OBJECT, true, &rc), *f, *reasons, *x;
    const char *k, *s;
    long long v;
    size_t i, old, old2, old3;

    *out = w;
    if (!w)
        return rc;
    old = rd_key(r, "why_not");
    json_object_foreach((json_t *)w, k, f) {
        old2 = rd_key(r, k);
        if (!json_is_object(f))
            rc = rd_fail(r, NULL, "%s, not an object", type_name(f));
        if (!rc)
            rc = rd_int(r, f, "host_cells", true, 0, 0, &v);
        if (!rc && (reasons = rd_get(r, f, "reasons", JSON_ARRAY, false, &rc))) {
            json_array_foreach(reasons, i, x) {
                old3 = rd_push(r, ".reasons[%zu]", i);
                if (!json_is_object(x))
                    rc = rd_fail(r, NULL, "%s, not an object", type_name(x));
                if (!rc)
                    rc = rd_str(r, x, "reason", false, &s);
                if (!rc)
                    rc = rd_int(r, x, "count", false, 0, 0, &v);
                rd_pop(r, old3);
                if (rc)
                    break;
            }
        }
        rd_pop(r, old2);
        if (rc)
            break;
    }
    rd_pop(r, old);
    return rc;
}

static int rd_summary(struct rd *r, const json_t *rj, const json_t **out) {
    int rc = 0;
    const json_t *a = rd_get(r, rj, "hosts_summary", JSON_ARRAY, true, &rc), *x, *m;
    const char *s;
    long long v;
    size_t i, old, old2;

    *out = a;
    if (!a)
        return rc;
    old = rd_key(r, "hosts_summary");
    json_array_foreach(a, i, x) {
        old2 = rd_push(r, "[%zu]", i);
        if (!json_is_object(x))
            rc = rd_fail(r, NULL, "%s, not an object", type_name(x));
        if (!rc)
            rc = rd_str(r, x, "name", false, &s);
        if (!rc)
            rc = rd_counts(r, x, "mixed", true, &m);
        if (!rc)
            rc = rd_int(r, x, "stranded_pcpus", true, 0, 0, &v);
        if (!rc)
            rc = rd_int(r, x, "stranded_memory_mb", true, 0, 0, &v);
        rd_pop(r, old2);
        if (rc)
            break;
    }
    rd_pop(r, old);
    return rc;
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

static void plan_free(struct plan *p) {
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
static int rd_plan(const json_t *pj, const char *only, struct plan *p, char *err, size_t errlen) {
    struct rd r = {.err = err, .errlen = errlen};
    const json_t *fleet = NULL, *flavors, *strategies, *lim, *v, *sources;
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
    if (!rc && (sources = rd_get(&r, fleet, "sources", JSON_ARRAY, true, &rc))) {
        size_t old2 = rd_key(&r, "sources"), old3;
        json_array_foreach(sources, i, v) {
            old3 = rd_push(&r, "[%zu]", i);
            if (!json_is_object(v))
                rc = rd_fail(&r, NULL, "%s, not an object", type_name(v));
            if (!rc)
                rc = rd_int(&r, v, "hosts", true, 0, 0, &cnt);
            if (!rc)
                rc = rd_int(&r, v, "skipped", true, 0, 0, &cnt);
            rd_pop(&r, old3);
            if (rc)
                break;
        }
        rd_pop(&r, old2);
    }
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
    flavors = rd_get(&r, pj, "flavors", JSON_ARRAY, false, &rc);
    if (rc)
        return rc;
    old = rd_key(&r, "flavors");
    json_array_foreach(flavors, i, v) {
        const char *name;
        size_t old2 = rd_push(&r, "[%zu]", i);
        if (!json_is_object(v))
            rc = rd_fail(&r, NULL, "%s, not an object", type_name(v));
        if (!rc)
            rc = rd_str(&r, v, "name", false, &name);
        if (!rc)
            rc = rd_int(&r, v, "vcpus", true, 0, 0, &cnt);
        if (!rc)
            rc = rd_int(&r, v, "memory_mb", true, 0, 0, &cnt);
        if (!rc)
            rc = rd_int(&r, v, "numa_cells", true, 0, 0, &cnt);
        if (!rc)
            rc = rd_ratio(&r, v, "weight");
        if (!rc && json_object_get(v, "planned") && !json_is_boolean(json_object_get(v, "planned")))
            rc = rd_fail(&r, "planned", "%s, not a boolean",
                         type_name(json_object_get(v, "planned")));
        rd_pop(&r, old2);
        if (rc)
            break;
        add_flavor(p, name, v);
    }
    rd_pop(&r, old);
    if (rc)
        return rc;

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

/* ------------------------------------------------------------------ text */

/* A line of text: UTF-8, shortened with "…" when it would not fit. */
struct line {
    char s[400];
    size_t len;
    bool full;
};

static size_t u8len(unsigned char c) {
    return c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
}

/* Append s, at most maxcp code points of it (then "…"). */
static void line_cat(struct line *l, const char *s, size_t maxcp) {
    static const char ell[] = "\xe2\x80\xa6";
    size_t cp = 0;

    if (l->full)
        return;
    while (*s) {
        size_t n = u8len((unsigned char)*s);
        if (cp == maxcp || l->len + n + sizeof(ell) > sizeof(l->s)) {
            memcpy(l->s + l->len, ell, sizeof(ell)); /* with the NUL */
            l->len += sizeof(ell) - 1;
            l->full = cp != maxcp;
            return;
        }
        memcpy(l->s + l->len, s, n);
        l->len += n;
        s += n;
        cp++;
    }
    l->s[l->len] = '\0';
}

static void line_add(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void line_add(struct line *l, const char *fmt, ...) {
    char tmp[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    line_cat(l, tmp, SIZE_MAX);
}

static size_t cps(const char *s) {
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* Width of text in the monospace font (0.6 em a character, rounded up). */
static int text_w(const char *s, int size) {
    return (int)((cps(s) * (size_t)size * 61 + 99) / 100) + 2;
}

/* s XML-escaped (text and attribute values); characters XML 1.0 forbids
 * become U+FFFD. */
static void put_esc(FILE *o, const char *s) {
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
            case '&':
                fputs("&amp;", o);
                break;
            case '<':
                fputs("&lt;", o);
                break;
            case '>':
                fputs("&gt;", o);
                break;
            case '"':
                fputs("&quot;", o);
                break;
            case '\'':
                fputs("&#39;", o);
                break;
            default:
                if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f ||
                    (c == 0xef && (unsigned char)s[1] == 0xbf &&
                     ((unsigned char)s[2] == 0xbe || (unsigned char)s[2] == 0xbf))) {
                    fputs("\xef\xbf\xbd", o);
                    if (c == 0xef)
                        s += 2;
                } else if (c == '\t' || c == '\n') {
                    fputc(' ', o);
                } else {
                    fputc(c, o);
                }
        }
    }
}

static void put_text(FILE *o, int x, int y, int size, bool bold, const char *fill,
                     const char *anchor, const char *s) {
    fprintf(o, "<text x=\"%d\" y=\"%d\" font-size=\"%d\"%s fill=\"%s\"%s%s%s>", x, y, size,
            bold ? " font-weight=\"bold\"" : "", fill, anchor ? " text-anchor=\"" : "",
            anchor ? anchor : "", anchor ? "\"" : "");
    put_esc(o, s);
    fputs("</text>\n", o);
}

static void put_title(FILE *o, const char *s) {
    fputs("<title>", o);
    put_esc(o, s);
    fputs("</title>", o);
}

static const char *page_size_name(long long kb, char buf[24]) {
    if (kb >= 1048576 && kb % 1048576 == 0)
        snprintf(buf, 24, "%lldG", kb / 1048576);
    else if (kb >= 1024 && kb % 1024 == 0)
        snprintf(buf, 24, "%lldM", kb / 1024);
    else
        snprintf(buf, 24, "%lldK", kb);
    return buf;
}

static long long clampv(long long v) {
    return v < 0 ? 0 : v > VALUE_MAX ? VALUE_MAX : v;
}

static int imax(int a, int b) {
    return a > b ? a : b;
}

/* ------------------------------------------------------------------ cells and hosts */

#define CELL_LINES (4 + MAX_PAGE_SIZES)

/* The label lines of a cell; returns how many (line 0 is the bold title). */
static int cell_lines(const struct cell *c, struct line *l) {
    char sz[24];
    size_t i;
    int n = 0;

    memset(l, 0, sizeof(*l) * CELL_LINES);
    line_add(&l[n], "cell %lld", c->id);
    if (c->has_socket)
        line_add(&l[n], " \xc2\xb7 socket %lld", c->socket);
    n++;
    line_add(&l[n++], "memory %lld / %lld MiB", c->mem_used, c->mem);
    for (i = 0; i < c->npages; i++) {
        const struct pg *g = &c->pages[i];
        if (!g->total && !g->used)
            continue;
        line_add(&l[n], "%s pages %lld / %lld used", page_size_name(g->size_kb, sz), g->used,
                 g->total);
        if (g->reserved)
            line_add(&l[n], " (%lld reserved)", g->reserved);
        n++;
    }
    if (c->shared || c->usage)
        line_add(&l[n++], "shared pool %lld vCPUs on %lld CPUs", c->usage, c->shared);
    if (c->hidden)
        line_add(&l[n++], "%zu more threads not drawn", c->hidden);
    return n;
}

static void core_dims(size_t n, int *w, int *h) {
    int per = n < TPR ? (int)n : TPR, rows = (int)((n + TPR - 1) / TPR);
    *w = 2 * CP + per * TW + (per - 1) * TG;
    *h = 2 * CP + rows * TH + (rows - 1) * TG;
}

static void cell_layout(struct cell *c) {
    struct line l[CELL_LINES];
    int n = cell_lines(c, l), i, wrap = CELL_WRAP, x = 0, y, row_h = 0, content_w = 0, label_w = 0;
    size_t k;

    for (i = 0; i < n; i++)
        label_w = imax(label_w, text_w(l[i].s, i ? 11 : 12));
    for (k = 0; k < c->ncores; k++) {
        core_dims(c->cores[k].n, &c->cores[k].w, &c->cores[k].h);
        wrap = imax(wrap, c->cores[k].w);
    }
    y = CELL_PAD + n * LINE_H + 4;
    for (k = 0; k < c->ncores; k++) {
        struct core *co = &c->cores[k];
        if (x && x + CG + co->w > wrap) {
            y += row_h + CG;
            x = row_h = 0;
        }
        if (x)
            x += CG;
        co->x = CELL_PAD + x;
        co->y = y;
        x += co->w;
        row_h = imax(row_h, co->h);
        content_w = imax(content_w, x);
    }
    c->w = imax(content_w, label_w) + 2 * CELL_PAD;
    c->h = y + row_h + CELL_PAD;
}

#define HOST_LINES 3

/* The header lines of a host: name (bold), what it got, what it strands. */
static int host_lines(const struct host *h, struct line *l) {
    const json_t *v;
    const char *k;
    int n = 0;
    bool first = true;

    memset(l, 0, sizeof(*l) * HOST_LINES);
    line_cat(&l[n], h->name, NAME_HOST);
    if (h->source) {
        line_add(&l[n], " (");
        line_cat(&l[n], h->source, 24);
        line_add(&l[n], ")");
    }
    n++;
    if (h->mixed) {
        line_add(&l[n], "new instances:");
        json_object_foreach((json_t *)h->mixed, k, v) {
            line_add(&l[n], "%s ", first ? "" : ",");
            line_cat(&l[n], k, NAME_FLAVOR);
            line_add(&l[n], " %lld", (long long)json_integer_value(v));
            first = false;
        }
        if (first)
            line_add(&l[n], " none");
        n++;
    }
    if (h->has_stranded) {
        const struct cap *s = &h->stranded;
        line_add(&l[n],
                 "left: %lld free pCPUs (%lld orphan threads), %lld lost siblings, %lld MiB "
                 "free (%lld MiB in cells without free CPUs)",
                 s->free_pcpus, s->orphan_threads, s->lost_siblings, s->free_memory_mb,
                 s->memory_without_cpus_mb);
        n++;
    }
    return n;
}

/* The line of instances that own no thread (shared-pool guests), counted
 * per flavor. Returns false when there are none. */
static bool unpinned_line(const struct host *h, struct line *l) {
    const char *fl[8];
    size_t cnt[8], nfl = 0, other = 0, total = 0, i, j;

    for (i = 0; i < h->ninsts; i++) {
        const struct inst *in = &h->insts[i];
        if (in->pinned)
            continue;
        total++;
        for (j = 0; j < nfl && strcmp(fl[j], in->flavor); j++)
            ;
        if (j < nfl)
            cnt[j]++;
        else if (nfl < 8)
            fl[nfl] = in->flavor, cnt[nfl++] = 1;
        else
            other++;
    }
    if (!total)
        return false;
    memset(l, 0, sizeof(*l));
    line_add(l, "%zu instance%s without pinned CPUs (shared pool):", total, total > 1 ? "s" : "");
    for (j = 0; j < nfl; j++) {
        line_add(l, "%s ", j ? "," : "");
        line_cat(l, fl[j], NAME_FLAVOR);
        line_add(l, " %zu", cnt[j]);
    }
    if (other)
        line_add(l, ", other flavors %zu", other);
    return true;
}

/* The instance legend under a host's cells: a swatch per instance owning
 * threads, flowed into rows `wrap` wide from (x0, y0), then a line counting
 * the others; draws when o is not NULL. Returns its height. */
static int host_legend(FILE *o, const struct host *h, int x0, int y0, int wrap, int *ret_w) {
    struct line un;
    int x = 0, y = 0, w = 0;
    size_t i, n = 0, pinned = 0;

    for (i = 0; i < h->ninsts; i++) {
        const struct inst *in = &h->insts[i];
        struct line l;
        int ew;
        if (!in->pinned)
            continue;
        if (++pinned > MAX_LEGEND)
            continue;
        n++;
        memset(&l, 0, sizeof(l));
        line_add(&l, "#%lld ", in->id);
        line_cat(&l, in->flavor, NAME_FLAVOR);
        if (in->existing)
            line_add(&l, " (existing)");
        ew = SWATCH + 4 + text_w(l.s, 11);
        if (x && x + 12 + ew > wrap) {
            x = 0;
            y += LINE_H + 2;
        }
        if (x)
            x += 12;
        if (o) {
            fprintf(o, "<g class=\"legend inst-%lld\">", in->id);
            fputs("<title>", o);
            fprintf(o, "instance #%lld: ", in->id);
            put_esc(o, in->flavor);
            fputs(in->existing ? " (existing)" : "", o);
            fputs("</title>", o);
            fprintf(o,
                    "<rect class=\"swatch inst-%lld\" x=\"%d\" y=\"%d\" width=\"%d\" "
                    "height=\"%d\" fill=\"%s\"/>",
                    in->id, x0 + x, y0 + y + 1, SWATCH, SWATCH, in->color);
            put_text(o, x0 + x + SWATCH + 4, y0 + y + 11, 11, false, C_TEXT, NULL, l.s);
            fputs("</g>\n", o);
        }
        x += ew;
        w = imax(w, x);
    }
    if (pinned > n) {
        char note[64];
        snprintf(note, sizeof(note), "%zu more instances not listed", pinned - n);
        y += LINE_H + 2;
        if (o)
            put_text(o, x0, y0 + y + 11, 11, false, C_NOTE, NULL, note);
        w = imax(w, text_w(note, 11));
    }
    if (unpinned_line(h, &un)) {
        if (n)
            y += LINE_H + 2;
        if (o)
            put_text(o, x0, y0 + y + 11, 11, false, C_TEXT, NULL, un.s);
        w = imax(w, text_w(un.s, 11));
        n++;
    }
    *ret_w = w;
    return n ? y + LINE_H : 0;
}

static void host_layout(struct host *h) {
    struct line l[HOST_LINES];
    int n = host_lines(h, l), i, x = 0, y = 0, row_h = 0, w = 0, lw;
    size_t k, row_start = 0;

    for (i = 0; i < n; i++)
        w = imax(w, text_w(l[i].s, i ? 11 : 13));
    for (k = 0; k < h->ncells; k++) {
        struct cell *c = &h->cells[k];
        cell_layout(c);
        if (x && x + CELL_GAP + c->w > HOST_WRAP) {
            for (; row_start < k; row_start++)
                h->cells[row_start].h = row_h;
            y += row_h + CELL_GAP;
            x = row_h = 0;
        }
        if (x)
            x += CELL_GAP;
        c->x = x;
        c->y = y;
        x += c->w;
        row_h = imax(row_h, c->h);
        h->cells_w = imax(h->cells_w, x);
    }
    for (; row_start < h->ncells; row_start++)
        h->cells[row_start].h = row_h;
    h->cells_h = y + row_h;
    if (h->hidden_cells)
        h->cells_h += LINE_H + 4;
    w = imax(w, h->cells_w);
    h->h = HOST_PAD + 18 + (n - 1) * LINE_H + 6 + h->cells_h + 6;
    h->h += host_legend(NULL, h, 0, 0, imax(w, LEGEND_MIN), &lw);
    w = imax(w, lw);
    h->w = w + 2 * HOST_PAD;
    h->h += HOST_PAD;
}

static void draw_thread(FILE *o, const struct host *h, const struct cell *c, const struct thr *t,
                        int x, int y, const char *pid) {
    const struct inst *in = t->inst != (size_t)-1 ? &h->insts[t->inst] : NULL;
    const char *fill = C_FREE, *tc = C_TEXT;
    char label[32];

    snprintf(label, sizeof(label), t->state == T_EMULATOR ? "E%lld" : "%lld", t->cpu);
    fputs("<g>", o);
    fprintf(o, "<title>CPU %lld: ", t->cpu);
    switch (t->state) {
        case T_SHARED:
            fprintf(o, "shared pool (cell %lld: %lld vCPUs on %lld CPUs)", c->id, c->usage,
                    c->shared);
            fill = C_SHARED;
            break;
        case T_FREE:
            fputs("free (dedicated)", o);
            break;
        case T_PINNED:
            if (t->vcpu >= 0)
                fprintf(o, "vCPU %d of ", t->vcpu);
            else
                fputs("a vCPU of ", o);
            fprintf(o, "instance #%lld (", in->id);
            put_esc(o, in->flavor);
            fputs(")", o);
            fill = in->color;
            tc = in->dark ? "#ffffff" : C_TEXT;
            break;
        case T_EMULATOR:
            fprintf(o, "emulator threads of instance #%lld (", in->id);
            put_esc(o, in->flavor);
            fputs(")", o);
            fill = in->color;
            tc = in->dark ? "#ffffff" : C_TEXT;
            break;
        case T_ISOLATED:
            fprintf(o, "sibling kept idle for instance #%lld (", in->id);
            put_esc(o, in->flavor);
            fputs("), thread policy isolate", o);
            fill = in->pale;
            break;
        case T_USED:
            fputs("pinned before the plan (owner unknown)", o);
            fill = C_USED;
            break;
        default:
            fputs("offline (in no CPU set)", o);
            fill = C_OFFLINE;
            tc = "#8c8c8c";
            break;
    }
    fputs("</title>", o);
    fprintf(o, "<rect class=\"t-%s", state_names[t->state]);
    if (in)
        fprintf(o, " inst-%lld", in->id);
    fprintf(o, "\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"", x, y, TW, TH, fill);
    if (t->state == T_OFFLINE)
        fputs(" stroke=\"#8c8c8c\" stroke-dasharray=\"3,2\"/>", o);
    else
        fputs(" stroke=\"#666666\" stroke-width=\"0.5\"/>", o);
    if (t->state == T_EMULATOR)
        fprintf(o, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"url(#%s-hatch)\"/>",
                x, y, TW, TH, pid);
    if (t->state == T_ISOLATED)
        fprintf(o,
                "<path d=\"M%d %dL%d %dM%d %dL%d %d\" stroke=\"%s\" stroke-width=\"1\" "
                "fill=\"none\"/>",
                x, y, x + TW, y + TH, x + TW, y, x, y + TH, in->color);
    fputs("\n", o);
    put_text(o, x + TW / 2, y + TH / 2 + 4, 10, t->state == T_EMULATOR, tc, "middle", label);
    fputs("</g>\n", o);
}

static void draw_cell(FILE *o, const struct host *h, const struct cell *c, int x0, int y0,
                      const char *pid) {
    struct line l[CELL_LINES];
    int n = cell_lines(c, l), i;
    size_t k, j;

    fprintf(o, "<g class=\"cell\">\n");
    fprintf(o,
            "<rect class=\"cell-box\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"3\" "
            "fill=\"%s\" stroke=\"#777777\"/>\n",
            x0, y0, c->w, c->h, C_CELL);
    for (i = 0; i < n; i++)
        put_text(o, x0 + CELL_PAD, y0 + CELL_PAD + i * LINE_H + 11, i ? 11 : 12, i == 0,
                 c->hidden && i == n - 1 ? C_NOTE : C_TEXT, NULL, l[i].s);
    for (k = 0; k < c->ncores; k++) {
        const struct core *co = &c->cores[k];
        int cx = x0 + co->x, cy = y0 + co->y;
        fprintf(o,
                "<rect class=\"core\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"2\" "
                "fill=\"%s\" stroke=\"#999999\"/>\n",
                cx, cy, co->w, co->h, C_CORE);
        for (j = 0; j < co->n; j++)
            draw_thread(o, h, c, &c->thr[co->first + j], cx + CP + (int)(j % TPR) * (TW + TG),
                        cy + CP + (int)(j / TPR) * (TH + TG), pid);
    }
    fputs("</g>\n", o);
}

static void draw_host(FILE *o, const struct host *h, int x0, int y0, const char *pid) {
    struct line l[HOST_LINES];
    int n = host_lines(h, l), i, y, lw;
    size_t k;

    fputs("<g class=\"host\">", o);
    put_title(o, h->name);
    fprintf(o,
            "\n<rect class=\"host-box\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\" "
            "fill=\"%s\" stroke=\"#333333\" stroke-width=\"1.5\"/>\n",
            x0, y0, h->w, h->h, C_HOST);
    y = y0 + HOST_PAD + 13;
    for (i = 0; i < n; i++) {
        put_text(o, x0 + HOST_PAD, y, i ? 11 : 13, i == 0, C_TEXT, NULL, l[i].s);
        y += i ? LINE_H : 18;
    }
    y = y0 + HOST_PAD + 18 + (n - 1) * LINE_H + 6;
    for (k = 0; k < h->ncells; k++)
        draw_cell(o, h, &h->cells[k], x0 + HOST_PAD + h->cells[k].x, y + h->cells[k].y, pid);
    if (h->hidden_cells) {
        char note[64];
        snprintf(note, sizeof(note), "%zu more cells not drawn", h->hidden_cells);
        put_text(o, x0 + HOST_PAD, y + h->cells_h - 4, 11, false, C_NOTE, NULL, note);
    }
    host_legend(o, h, x0 + HOST_PAD, y + h->cells_h + 6, imax(h->w - 2 * HOST_PAD, LEGEND_MIN),
                &lw);
    fputs("</g>\n", o);
}

/* ------------------------------------------------------------------ summary chart */

struct bar {
    char label[24];
    long long used, stranded, free, huge, total; /* huge: memory in huge pages */
    char text[240];
};

/* The capacity bars of a result: pCPUs, memory, each huge page size. */
static size_t result_bars(const struct plan *p, const struct res *s, struct bar *b) {
    const struct cap *c = &s->stranded;
    long long f, st;
    size_t n = 0, i;
    char sz[24];

    memset(b, 0, sizeof(*b) * (2 + MAX_PAGE_SIZES));
    f = clampv(c->free_pcpus);
    st = clampv(c->orphan_threads) < f ? clampv(c->orphan_threads) : f;
    snprintf(b[n].label, sizeof(b[n].label), "pCPUs");
    b[n].used = clampv(clampv(p->pcpus) - f - clampv(c->lost_siblings));
    b[n].stranded = clampv(c->lost_siblings) + st;
    b[n].free = f - st;
    b[n].total = clampv(p->pcpus);
    snprintf(b[n].text, sizeof(b[n].text),
             "used %lld, stranded %lld (%lld lost siblings, %lld orphan threads), free %lld "
             "of %lld",
             b[n].used, b[n].stranded, clampv(c->lost_siblings), st, b[n].free, b[n].total);
    n++;
    /* free_memory_mb is memory outside huge pages: those have their bars */
    for (i = 0; i < p->nfpages; i++)
        if (p->fpages[i].size_kb > 4)
            b[n].huge = clampv(b[n].huge +
                               clampv(p->fpages[i].total) * (clampv(p->fpages[i].size_kb) / 1024));
    f = clampv(c->free_memory_mb);
    st = clampv(c->memory_without_cpus_mb) < f ? clampv(c->memory_without_cpus_mb) : f;
    snprintf(b[n].label, sizeof(b[n].label), "memory MiB");
    b[n].used = clampv(clampv(p->memory_mb) - b[n].huge - f);
    b[n].stranded = st;
    b[n].free = f - st;
    b[n].total = clampv(p->memory_mb);
    snprintf(b[n].text, sizeof(b[n].text),
             "used %lld, stranded %lld (in cells without free CPUs), free %lld, in huge pages "
             "%lld, of %lld",
             b[n].used, b[n].stranded, b[n].free, b[n].huge, b[n].total);
    n++;
    for (i = 0; i < p->nfpages; i++) {
        const struct pg *g = &p->fpages[i];
        if (g->size_kb <= 4 || !g->total)
            continue;
        f = clampv(free_pages_of(c->free_pages, g->size_kb));
        st = clampv(free_pages_of(c->pages_without_cpus, g->size_kb));
        st = st < f ? st : f;
        snprintf(b[n].label, sizeof(b[n].label), "%s pages", page_size_name(g->size_kb, sz));
        b[n].used = clampv(clampv(g->total) - f);
        b[n].stranded = st;
        b[n].free = f - st;
        b[n].total = clampv(g->total);
        snprintf(b[n].text, sizeof(b[n].text),
                 "used %lld, stranded %lld (in cells without free pCPUs), free %lld of %lld",
                 b[n].used, b[n].stranded, b[n].free, b[n].total);
        if (g->reserved)
            snprintf(b[n].text + strlen(b[n].text), sizeof(b[n].text) - strlen(b[n].text),
                     " (%lld reserved)", g->reserved);
        n++;
    }
    return n;
}

/* Part v of a bar `scale` long, in pixels of a bar BAR_W wide. */
static int bar_px(long long v, long long scale) {
    return scale > 0 ? (int)((v * BAR_W + scale / 2) / scale) : 0;
}

static void draw_seg(FILE *o, const char *cls, int x, int y, int w, int h, const char *fill,
                     const char *tc, long long v) {
    char num[32];
    if (w <= 0)
        return;
    fprintf(o, "<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
            cls, x, y, w, h, fill);
    snprintf(num, sizeof(num), "%lld", v);
    if (text_w(num, 10) + 4 <= w)
        put_text(o, x + w / 2, y + h / 2 + 4, 10, false, tc, "middle", num);
}

/* Lines of text under the flavor chart: why flavors fit nowhere, the
 * shared pool. Returns how many were filled. */
static int why_lines(const struct plan *p, const struct res *s, struct line *l) {
    const json_t *f, *x;
    const char *k, *when;
    size_t i;
    int n = 0, nw = 0;

    memset(l, 0, sizeof(*l) * (MAX_WHY + 2));
    json_object_foreach((json_t *)s->why_not, k, f) {
        if (nw == MAX_WHY) {
            line_add(&l[n++], "%zu more flavors fit nowhere",
                     json_object_size(s->why_not) - MAX_WHY);
            break;
        }
        line_cat(&l[n], k, NAME_FLAVOR);
        when = json_string_value(json_object_get(f, "when"));
        if (when && !strcmp(when, "before_fill"))
            line_add(&l[n], " fits nowhere, even before the fill:");
        else
            line_add(&l[n], " fits nowhere after the fill:");
        json_array_foreach(json_object_get(f, "reasons"), i, x) {
            if (i == MAX_REASONS) {
                line_add(&l[n], ", ...");
                break;
            }
            line_add(&l[n], "%s ", i ? "," : "");
            line_cat(&l[n], json_string_value(json_object_get(x, "reason")), 24);
            line_add(&l[n], " %lld", (long long)json_integer_value(json_object_get(x, "count")));
        }
        if (json_is_integer(json_object_get(f, "host_cells")))
            line_add(&l[n], " (%lld host cell checks)",
                     (long long)json_integer_value(json_object_get(f, "host_cells")));
        if (json_is_true(json_object_get(f, "sampled")) &&
            json_is_integer(json_object_get(f, "hosts_checked")) &&
            json_is_integer(json_object_get(f, "hosts")))
            line_add(&l[n], ", %lld of %lld hosts checked",
                     (long long)json_integer_value(json_object_get(f, "hosts_checked")),
                     (long long)json_integer_value(json_object_get(f, "hosts")));
        n++;
        nw++;
    }
    if (p->has_shared_cpus || s->stranded.has_shared) {
        line_add(&l[n], "shared pool:");
        if (p->has_shared_cpus)
            line_add(&l[n], " %lld CPUs in the fleet", p->shared_cpus);
        if (s->stranded.has_shared)
            line_add(&l[n], "%s room for %lld more vCPUs", p->has_shared_cpus ? "," : "",
                     s->stranded.free_shared_vcpus);
        n++;
    }
    return n;
}

/* The summary chart of result s at (x0, y0); measures only when o is NULL.
 * Returns its height, its width in *ret_w. */
static int draw_chart(FILE *o, const struct plan *p, const struct res *s, int x0, int y0,
                      int *ret_w) {
    struct bar b[2 + MAX_PAGE_SIZES];
    struct line title, why[MAX_WHY + 2];
    size_t nb = result_bars(p, s, b), i;
    int y = y0, w = 0, label_w = BAR_LABEL * 7, nwhy, k, name_w = 0;
    long long fmax = 1;

    memset(&title, 0, sizeof(title));
    line_add(&title, "Summary (%s):", s->name);
    if (s->has_mixed_total)
        line_add(&title, " %lld instances placed by the mix", s->mixed_total);
    if (s->has_hosts_used)
        line_add(&title, "%s %lld hosts used", s->has_mixed_total ? "," : "", s->hosts_used);
    if (s->capped_hosts)
        line_add(&title, ", %lld hosts reached --max-instances", s->capped_hosts);
    if (o)
        put_text(o, x0, y + 13, 13, true, C_TEXT, NULL, title.s);
    w = imax(w, text_w(title.s, 13));
    y += 22;

    /* capacity bars */
    for (i = 0; i < nb; i++) {
        long long scale = b[i].used + b[i].stranded + b[i].free + b[i].huge;
        int bx = x0 + label_w, u, st, fr;
        scale = scale > b[i].total ? scale : b[i].total;
        u = bar_px(b[i].used, scale);
        st = bar_px(b[i].used + b[i].stranded, scale) - u;
        fr = bar_px(b[i].used + b[i].stranded + b[i].free, scale) - u - st;
        if (o) {
            fprintf(o, "<g class=\"bar\">");
            put_title(o, b[i].text);
            fputs("\n", o);
            put_text(o, x0, y + 12, 11, false, C_TEXT, NULL, b[i].label);
            fprintf(o,
                    "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                    "stroke=\"#999999\"/>\n",
                    bx, y, BAR_W, BAR_H);
            draw_seg(o, "bar-used", bx, y, u, BAR_H, C_BAR_USED, "#ffffff", b[i].used);
            draw_seg(o, "bar-stranded", bx + u, y, st, BAR_H, C_BAR_STRND, C_TEXT, b[i].stranded);
            draw_seg(o, "bar-free", bx + u + st, y, fr, BAR_H, C_FREE, C_TEXT, b[i].free);
            draw_seg(o, "bar-huge", bx + u + st + fr, y,
                     b[i].huge ? bar_px(scale, scale) - u - st - fr : 0, BAR_H, C_BAR_HUGE, C_TEXT,
                     b[i].huge);
            put_text(o, bx + BAR_W + 8, y + 12, 11, false, C_TEXT, NULL, b[i].text);
            fputs("</g>\n", o);
        }
        w = imax(w, label_w + BAR_W + 8 + text_w(b[i].text, 11));
        y += BAR_ROW;
    }
    /* its key */
    {
        static const char *const keys[] = {"used", "stranded (unusable by this mix)",
                                           "free (left for other flavors)", "in huge pages"};
        static const char *const fills[] = {C_BAR_USED, C_BAR_STRND, C_FREE, C_BAR_HUGE};
        int x = x0 + label_w;
        for (k = 0; k < 4; k++) {
            if (o) {
                fprintf(o,
                        "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
                        "stroke=\"#999999\" stroke-width=\"0.5\"/>\n",
                        x, y + 1, SWATCH, SWATCH, fills[k]);
                put_text(o, x + SWATCH + 4, y + 11, 11, false, C_TEXT, NULL, keys[k]);
            }
            x += SWATCH + 4 + text_w(keys[k], 11) + 14;
        }
        w = imax(w, x - x0);
        y += BAR_ROW + 6;
    }

    /* instances per flavor */
    if (o)
        put_text(o, x0, y + 12, 12, true, C_TEXT, NULL,
                 "Instances per flavor: alone (only this flavor placed) and mixed (the mix)");
    w = imax(w, text_w("Instances per flavor: alone (only this flavor placed) and mixed (the "
                       "mix)",
                       12));
    y += 20;
    for (i = 0; i < p->nflavors; i++) {
        struct line l;
        if (!p->planned[i])
            continue;
        memset(&l, 0, sizeof(l));
        line_cat(&l, p->flavors[i], NAME_FLAVOR);
        name_w = imax(name_w, text_w(l.s, 11));
        fmax = count_of(s->alone, p->flavors[i]) > fmax ? count_of(s->alone, p->flavors[i]) : fmax;
        fmax = count_of(s->mixed, p->flavors[i]) > fmax ? count_of(s->mixed, p->flavors[i]) : fmax;
    }
    name_w = imax(name_w, label_w) + 6;
    fmax = clampv(fmax);
    for (i = 0; i < p->nflavors; i++) {
        long long a = clampv(count_of(s->alone, p->flavors[i]));
        long long m = clampv(count_of(s->mixed, p->flavors[i]));
        int aw = (int)(a * FBAR_W / fmax), mw = (int)(m * FBAR_W / fmax);
        char ta[48], tm[48];
        struct line l;
        if (!p->planned[i])
            continue;
        memset(&l, 0, sizeof(l));
        line_cat(&l, p->flavors[i], NAME_FLAVOR);
        snprintf(ta, sizeof(ta), "alone %lld", a);
        snprintf(tm, sizeof(tm), "mixed %lld", m);
        if (o) {
            fputs("<g class=\"flavor\">", o);
            fputs("<title>", o);
            put_esc(o, p->flavors[i]);
            fprintf(o, ": %lld alone, %lld in the mix</title>\n", a, m);
            put_text(o, x0, y + 15, 11, false, C_TEXT, NULL, l.s);
            fprintf(o,
                    "<rect class=\"flavor-alone\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                    "fill=\"%s\"/>\n",
                    x0 + name_w, y + 1, aw, FBAR_H, C_ALONE);
            fprintf(o,
                    "<rect class=\"flavor-mixed\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                    "fill=\"%s\"/>\n",
                    x0 + name_w, y + 1 + FBAR_H, mw, FBAR_H, C_MIXED);
            put_text(o, x0 + name_w + aw + 6, y + FBAR_H, 10, false, C_TEXT, NULL, ta);
            put_text(o, x0 + name_w + mw + 6, y + 2 * FBAR_H, 10, false, C_TEXT, NULL, tm);
            fputs("</g>\n", o);
        }
        w = imax(w, name_w + FBAR_W + 6 + imax(text_w(ta, 10), text_w(tm, 10)));
        y += 2 * FBAR_H + 6;
    }
    if (p->hidden_flavors) {
        char note[64];
        snprintf(note, sizeof(note), "%zu more flavors not drawn", p->hidden_flavors);
        if (o)
            put_text(o, x0, y + 11, 11, false, C_NOTE, NULL, note);
        y += LINE_H;
    }
    nwhy = why_lines(p, s, why);
    if (nwhy)
        y += 4;
    for (k = 0; k < nwhy; k++) {
        if (o)
            put_text(o, x0, y + 11, 11, false, C_TEXT, NULL, why[k].s);
        w = imax(w, text_w(why[k].s, 11));
        y += LINE_H;
    }
    *ret_w = w;
    return y - y0;
}

/* ------------------------------------------------------------------ the picture */

static const char *const state_keys[T_NSTATES] = {"shared pool",
                                                  "free dedicated CPU",
                                                  "pinned vCPU (instance color)",
                                                  "emulator thread (E)",
                                                  "sibling lost to isolate",
                                                  "used before the plan",
                                                  "offline"};

/* The key of thread states at (x0, y0); returns its height. */
static int draw_states(FILE *o, int x0, int y0, const char *pid, int *ret_w) {
    static const int order[T_NSTATES] = {T_FREE,     T_SHARED, T_PINNED, T_EMULATOR,
                                         T_ISOLATED, T_USED,   T_OFFLINE};
    struct inst sample;
    int x = 0, k;

    memset(&sample, 0, sizeof(sample));
    sample.flavor = "flavor";
    snprintf(sample.color, sizeof(sample.color), "%s", C_SAMPLE);
    snprintf(sample.pale, sizeof(sample.pale), "#d6d6e2");
    sample.dark = true;
    for (k = 0; k < T_NSTATES; k++) {
        int s = order[k];
        const char *fill = s == T_FREE       ? C_FREE
                           : s == T_SHARED   ? C_SHARED
                           : s == T_USED     ? C_USED
                           : s == T_OFFLINE  ? C_OFFLINE
                           : s == T_ISOLATED ? sample.pale
                                             : sample.color;
        if (o) {
            fprintf(o,
                    "<rect class=\"key-%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                    "fill=\"%s\" stroke=\"%s\"%s/>",
                    state_names[s], x0 + x, y0, 24, 14, fill,
                    s == T_OFFLINE ? "#8c8c8c" : "#666666",
                    s == T_OFFLINE ? " stroke-dasharray=\"3,2\"" : " stroke-width=\"0.5\"");
            if (s == T_EMULATOR)
                fprintf(o,
                        "<rect x=\"%d\" y=\"%d\" width=\"24\" height=\"14\" "
                        "fill=\"url(#%s-hatch)\"/>",
                        x0 + x, y0, pid);
            if (s == T_ISOLATED)
                fprintf(o,
                        "<path d=\"M%d %dL%d %dM%d %dL%d %d\" stroke=\"%s\" stroke-width=\"1\" "
                        "fill=\"none\"/>",
                        x0 + x, y0, x0 + x + 24, y0 + 14, x0 + x + 24, y0, x0 + x, y0 + 14,
                        sample.color);
            fputs("\n", o);
            put_text(o, x0 + x + 28, y0 + 11, 11, false, C_TEXT, NULL, state_keys[s]);
        }
        x += 28 + text_w(state_keys[s], 11) + 14;
    }
    *ret_w = x;
    return 22;
}

/* Sizes of the picture of result s; lays its hosts out. */
static void picture_size(const struct plan *p, struct res *s, bool standalone, int *ret_w,
                         int *ret_h) {
    int w = 0, h = MARGIN + (standalone ? 22 + LINE_H + 10 : 0), cw;
    size_t k;

    h += draw_chart(NULL, p, s, 0, 0, &cw) + 10;
    w = imax(w, cw);
    h += draw_states(NULL, 0, 0, "", &cw);
    w = imax(w, cw);
    h += LINE_H + 6;
    for (k = 0; k < s->nhosts; k++) {
        host_layout(&s->hosts[k]);
        w = imax(w, s->hosts[k].w);
        h += s->hosts[k].h + HOST_GAP;
    }
    if (s->listed > s->nhosts)
        h += LINE_H;
    *ret_w = w + 2 * MARGIN;
    *ret_h = h + MARGIN;
}

static void fleet_line(const struct plan *p, struct line *l) {
    char sz[24];
    size_t i;

    memset(l, 0, sizeof(*l));
    line_add(l, "Fleet: %lld hosts", p->hosts);
    if (p->has_cells)
        line_add(l, ", %lld cells", p->cells);
    line_add(l, ", %lld dedicated pCPUs", p->pcpus);
    if (p->has_shared_cpus)
        line_add(l, ", %lld shared CPUs", p->shared_cpus);
    line_add(l, ", %lld MiB", p->memory_mb);
    for (i = 0; i < p->nfpages; i++)
        if (p->fpages[i].size_kb > 4 && p->fpages[i].total)
            line_add(l, ", %lld x %s pages", p->fpages[i].total,
                     page_size_name(p->fpages[i].size_kb, sz));
    if (p->has_loaded)
        line_add(l, "; instances loaded: %lld", p->instances_loaded);
    if (p->has_ratios)
        line_add(l, "; allocation ratios cpu %.6g, ram %.6g", p->cpu_ratio, p->ram_ratio);
    if (p->release) {
        line_add(l, "; nova rules ");
        line_cat(l, p->release, 16);
    }
    if (p->mix) {
        line_add(l, "; mix ");
        line_cat(l, p->mix, 16);
    }
}

/* The SVG of result s (standalone: an SVG file; otherwise inline in HTML).
 * pid prefixes the ids of the picture. */
static void picture(FILE *o, const struct plan *p, struct res *s, const char *pid,
                    bool standalone) {
    struct line title, fleet;
    int w, h, y, cw;
    size_t k;

    picture_size(p, s, standalone, &w, &h);
    memset(&title, 0, sizeof(title));
    line_add(&title, "numafit plan \xe2\x80\x94 strategy ");
    line_cat(&title, s->name, 32);
    fleet_line(p, &fleet);
    if (standalone)
        w = imax(w, imax(text_w(title.s, 16), text_w(fleet.s, 11)) + 2 * MARGIN);

    if (standalone)
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", o);
    fprintf(o,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
            "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"" FONT "\" font-size=\"11\">\n",
            w, h, w, h);
    put_title(o, title.s);
    fprintf(o,
            "\n<defs><pattern id=\"%s-hatch\" patternUnits=\"userSpaceOnUse\" width=\"6\" "
            "height=\"6\"><path d=\"M-1 1L1 -1M0 6L6 0M5 7L7 5\" stroke=\"#000000\" "
            "stroke-width=\"1.5\" stroke-opacity=\"0.35\"/></pattern></defs>\n",
            pid);
    fprintf(o, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", w, h);
    y = MARGIN;
    if (standalone) { /* the HTML page has these as a heading */
        put_text(o, MARGIN, y + 16, 16, true, C_TEXT, NULL, title.s);
        y += 22;
        put_text(o, MARGIN, y + 11, 11, false, C_TEXT, NULL, fleet.s);
        y += LINE_H + 10;
    }
    y += draw_chart(o, p, s, MARGIN, y, &cw) + 10;
    y += draw_states(o, MARGIN, y, pid, &cw);
    {
        char note[128];
        if (!s->listed && p->hosts)
            snprintf(note, sizeof(note),
                     "No host drawn: the plan lists none (numafit plan --detail or --svg/--html)");
        else if (s->listed > s->nhosts || (long long)s->nhosts < p->hosts)
            snprintf(note, sizeof(note),
                     "Hosts drawn: %zu of %lld (numafit plan --draw N draws more)", s->nhosts,
                     p->hosts);
        else
            snprintf(note, sizeof(note), "Hosts drawn: %zu", s->nhosts);
        put_text(o, MARGIN, y + 11, 11, false, C_TEXT, NULL, note);
        y += LINE_H + 6;
    }
    for (k = 0; k < s->nhosts; k++) {
        draw_host(o, &s->hosts[k], MARGIN, y, pid);
        y += s->hosts[k].h + HOST_GAP;
    }
    if (s->listed > s->nhosts) {
        char note[96];
        snprintf(note, sizeof(note), "%zu more hosts not drawn", s->listed - s->nhosts);
        put_text(o, MARGIN, y + 11, 11, false, C_NOTE, NULL, note);
    }
    fputs("</svg>\n", o);
}

/* ------------------------------------------------------------------ entry points */

static int finish(FILE *out, char *err, size_t errlen) {
    if (fflush(out) || ferror(out)) {
        snprintf(err, errlen, "write error");
        return -1;
    }
    return 0;
}

int plan_render_svg(const json_t *plan, const char *strategy, FILE *out, char *err, size_t errlen) {
    struct plan p;
    char dummy[8];

    if (!err || !errlen)
        err = dummy, errlen = sizeof(dummy);
    if (!plan || !out) {
        snprintf(err, errlen, "no plan or no output");
        return -1;
    }
    if (!strategy) {
        const json_t *all = json_object_get(plan, "strategies");
        void *it = json_is_object(all) ? json_object_iter((json_t *)all) : NULL;
        strategy = it ? json_object_iter_key(it) : NULL;
    }
    if (rd_plan(plan, strategy, &p, err, errlen) < 0) {
        plan_free(&p);
        return -1;
    }
    picture(out, &p, &p.res[0], "nf0", true);
    plan_free(&p);
    return finish(out, err, errlen);
}

static void html_table_flavors(FILE *o, const struct plan *p) {
    size_t i, k;

    fputs("<table class=\"flavors\">\n<thead><tr><th>flavor</th><th>vCPUs</th>"
          "<th>memory MiB</th>",
          o);
    for (k = 0; k < p->nres; k++) {
        fputs("<th>", o);
        put_esc(o, p->res[k].name);
        fputs(" alone</th><th>", o);
        put_esc(o, p->res[k].name);
        fputs(" mixed</th>", o);
    }
    fputs("</tr></thead>\n<tbody>\n", o);
    for (i = 0; i < p->nflavors; i++) {
        const json_t *f = p->flavor_json[i];
        fputs("<tr><td>", o);
        put_esc(o, p->flavors[i]);
        fputs("</td>", o);
        if (f && json_is_integer(json_object_get(f, "vcpus")))
            fprintf(o, "<td>%lld</td>", (long long)json_integer_value(json_object_get(f, "vcpus")));
        else
            fputs("<td></td>", o);
        if (f && json_is_integer(json_object_get(f, "memory_mb")))
            fprintf(o, "<td>%lld</td>",
                    (long long)json_integer_value(json_object_get(f, "memory_mb")));
        else
            fputs("<td></td>", o);
        for (k = 0; k < p->nres; k++)
            if (p->planned[i])
                fprintf(o, "<td>%lld</td><td>%lld</td>", count_of(p->res[k].alone, p->flavors[i]),
                        count_of(p->res[k].mixed, p->flavors[i]));
            else
                fputs("<td class=\"l\" colspan=\"2\">not planned (no NUMA topology)</td>", o);
        fputs("</tr>\n", o);
    }
    fputs("<tr class=\"total\"><td>total</td><td></td><td></td>", o);
    for (k = 0; k < p->nres; k++) {
        if (p->res[k].has_mixed_total)
            fprintf(o, "<td></td><td>%lld</td>", p->res[k].mixed_total);
        else
            fputs("<td></td><td></td>", o);
    }
    fputs("</tr>\n</tbody>\n</table>\n", o);
    if (p->hidden_flavors)
        fprintf(o, "<p class=\"note\">%zu more flavors not listed.</p>\n", p->hidden_flavors);
}

/* A table cell holding integer v, empty if v is not one. */
static void html_count(FILE *o, const json_t *v) {
    if (json_is_integer(v))
        fprintf(o, "<td>%lld</td>", (long long)json_integer_value(v));
    else
        fputs("<td></td>", o);
}

static void html_table_summary(FILE *o, const struct res *s) {
    const json_t *x, *v;
    const char *k;
    size_t i;

    if (!json_array_size(s->summary))
        return;
    fputs("<table class=\"hosts\">\n<thead><tr><th>host stranding most</th><th>new instances</th>"
          "<th>stranded pCPUs</th><th>stranded memory MiB</th></tr></thead>\n<tbody>\n",
          o);
    json_array_foreach(s->summary, i, x) {
        bool first = true;
        if (i == MAX_SUMMARY)
            break;
        fputs("<tr><td>", o);
        put_esc(o, json_string_value(json_object_get(x, "name")));
        fputs("</td><td class=\"l\">", o);
        json_object_foreach(json_object_get(x, "mixed"), k, v) {
            fputs(first ? "" : ", ", o);
            put_esc(o, k);
            fprintf(o, " %lld", (long long)json_integer_value(v));
            first = false;
        }
        fputs("</td>", o);
        v = json_object_get(x, "stranded_pcpus");
        html_count(o, v);
        v = json_object_get(x, "stranded_memory_mb");
        html_count(o, v);
        fputs("</tr>\n", o);
    }
    fputs("</tbody>\n</table>\n", o);
    if (json_array_size(s->summary) > MAX_SUMMARY)
        fprintf(o, "<p class=\"note\">%zu more hosts not listed.</p>\n",
                json_array_size(s->summary) - MAX_SUMMARY);
}

int plan_render_html(const json_t *plan, FILE *out, char *err, size_t errlen) {
    struct plan p;
    struct line fleet;
    char dummy[8], pid[24];
    size_t k;

    if (!err || !errlen)
        err = dummy, errlen = sizeof(dummy);
    if (!plan || !out) {
        snprintf(err, errlen, "no plan or no output");
        return -1;
    }
    if (rd_plan(plan, NULL, &p, err, errlen) < 0) {
        plan_free(&p);
        return -1;
    }
    fleet_line(&p, &fleet);
    fputs("<!DOCTYPE html>\n"
          "<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n"
          "<head>\n"
          "<meta charset=\"utf-8\"/>\n"
          "<title>numafit plan</title>\n"
          "<style>\n"
          "body { font-family: \"DejaVu Sans\", Arial, sans-serif; font-size: 14px;\n"
          "       color: #222222; background: #ffffff; margin: 16px; }\n"
          "h1 { font-size: 20px; margin: 0 0 6px 0; }\n"
          "h2 { font-size: 17px; margin: 22px 0 8px 0; }\n"
          "table { border-collapse: collapse; margin: 8px 0; }\n"
          "th, td { border: 1px solid #bbbbbb; padding: 2px 8px; text-align: right; }\n"
          "th:first-child, td:first-child { text-align: left; }\n"
          "thead th { background: #eeeeee; }\n"
          "tr.total td { font-weight: bold; }\n"
          ".note { color: #8a4b00; }\n"
          "td.l { text-align: left; }\n"
          ".picture { overflow-x: auto; }\n"
          ".picture svg { display: block; }\n"
          "</style>\n"
          "</head>\n"
          "<body>\n"
          "<h1>numafit plan</h1>\n<p>",
          out);
    put_esc(out, fleet.s);
    fputs("</p>\n", out);
    html_table_flavors(out, &p);
    if (p.hidden_res)
        fprintf(out, "<p class=\"note\">%zu more strategies not shown.</p>\n", p.hidden_res);
    for (k = 0; k < p.nres; k++) {
        fputs("<h2>Strategy ", out);
        put_esc(out, p.res[k].name);
        fputs("</h2>\n", out);
        html_table_summary(out, &p.res[k]);
        fputs("<div class=\"picture\">\n", out);
        snprintf(pid, sizeof(pid), "nf%zu", k);
        picture(out, &p, &p.res[k], pid, false);
        fputs("</div>\n", out);
    }
    fputs("</body>\n</html>\n", out);
    plan_free(&p);
    return finish(out, err, errlen);
}
