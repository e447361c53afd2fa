/*
 * Host JSON in nova's formats: the NUMATopology versioned-object primitive
 * (as a JSON value or wrapped in a JSON string, the compute_nodes column),
 * and the pre-versioned (pre-Liberty) legacy dict.
 *
 * The reader is deliberately stricter than nova (nova-reference H): integers must
 * be JSON integers within documented bounds, newer object versions are
 * refused, and every error names the JSON path of the offending value.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jsonio.h"

/* Newest minor versions we read (all major 1). */
#define TOPOLOGY_MINOR 2
#define CELL_MINOR     5
#define PAGES_MINOR    1
#define NETMETA_MINOR  0

/* Bounds not covered by the public limits. */
#define SOCKET_MAX    NUMAFIT__SOCKET_MAX
#define CPU_USAGE_MAX NUMAFIT__CPU_USAGE_MAX
#define PAGE_SIZE_MAX NUMAFIT__PAGE_SIZE_MAX
#define PAGE_KB_MAX   NUMAFIT__PAGE_KB_MAX
#define PHYSNET_MAX   NUMAFIT__PHYSNET_MAX

#define KEY_NAME    "nova_object.name"
#define KEY_NS      "nova_object.namespace"
#define KEY_VERSION "nova_object.version"
#define KEY_DATA    "nova_object.data"
#define KEY_CHANGES "nova_object.changes"

/* host objects list their changes sorted */
#define SORTED NUMAFIT__ENVELOPE_SORTED

struct ctx {
    struct numafit__jpath jp; /* the error report and the path being read */
    unsigned flags;
    int max_cpu; /* highest CPU id seen */
};

/* ------------------------------------------------------------ field readers */

/* Read obj[key] as an integer in [0, max]. Missing: -ENOENT if required
 * (reported), else 0 with *out untouched. The path is left pointing at the
 * value only while reporting. */
static int read_uint(struct ctx *c, const json_t *obj, const char *key, bool required, uint64_t max,
                     uint64_t *out) {
    json_t *v = json_object_get(obj, key);
    size_t old = numafit__jp_push(&c->jp, key);
    int r = 0;
    switch (v ? numafit__json_uint(v, max, out) : NUMAFIT__JU_OK) {
        case NUMAFIT__JU_TYPE:
            r = numafit__jp_fail(&c->jp, -EINVAL, NUMAFIT_E_SCHEMA,
                                 "'%s' must be an integer, not %s", key,
                                 numafit__json_type_name(v));
            break;
        case NUMAFIT__JU_NEGATIVE:
            r = numafit__jp_fail(&c->jp, -ERANGE, NUMAFIT_E_RANGE,
                                 "'%s' must not be negative (%lld)", key,
                                 (long long)json_integer_value(v));
            break;
        case NUMAFIT__JU_ABOVE:
            r = numafit__jp_fail(&c->jp, -ERANGE, NUMAFIT_E_RANGE,
                                 "'%s' = %lld exceeds the limit %llu", key,
                                 (long long)json_integer_value(v), (unsigned long long)max);
            break;
        default:
            if (!v && required)
                r = numafit__jp_fail(&c->jp, -EINVAL, NUMAFIT_E_SCHEMA,
                                     "required field '%s' is missing", key);
    }
    numafit__jp_pop(&c->jp, old);
    return r;
}

/* A CPU id at the current path. */
static int read_cpu_value(struct ctx *c, const json_t *v, unsigned *out) {
    if (!json_is_integer(v))
        return numafit__jp_fail(&c->jp, -EINVAL, NUMAFIT_E_SCHEMA,
                                "a CPU id must be an integer, not %s", numafit__json_type_name(v));
    json_int_t x = json_integer_value(v);
    if (x < 0 || x > NUMAFIT_CPU_MAX)
        return numafit__jp_fail(&c->jp, -ERANGE, NUMAFIT_E_RANGE, "CPU id %lld is outside 0..%d",
                                (long long)x, NUMAFIT_CPU_MAX);
    if ((int)x > c->max_cpu)
        c->max_cpu = (int)x;
    *out = (unsigned)x;
    return 0;
}

/* obj[key] as a set of CPU ids into a full-width bitmap. Missing: empty. */
static int read_cpuset(struct ctx *c, const json_t *obj, const char *key, uint64_t *bits) {
    json_t *v = json_object_get(obj, key);
    size_t old = numafit__jp_push(&c->jp, key);
    size_t i;
    json_t *e;
    int r = 0;
    if (!v)
        goto out;
    if (!json_is_array(v)) {
        r = numafit__jp_fail(&c->jp, -EINVAL, NUMAFIT_E_SCHEMA,
                             "'%s' must be an array of CPU ids, not %s", key,
                             numafit__json_type_name(v));
        goto out;
    }
    json_array_foreach(v, i, e) {
        unsigned cpu;
        size_t o2 = numafit__jp_index(&c->jp, i);
        r = read_cpu_value(c, e, &cpu);
        numafit__jp_pop(&c->jp, o2);
        if (r < 0)
            goto out;
        numafit__bit_set(bits, cpu);
    }
out:
    numafit__jp_pop(&c->jp, old);
    return r;
}

/* siblings: a list of sets of CPU ids; list order kept, each set sorted and
 * deduplicated. */
static int read_siblings(struct ctx *c, const json_t *obj, struct numafit__cell *cell) {
    json_t *v = json_object_get(obj, "siblings");
    size_t old = numafit__jp_push(&c->jp, "siblings");
    size_t i, j, total = 0, n;
    json_t *grp, *e;
    int r = 0;
    if (!v)
        goto out;
    if (!json_is_array(v)) {
        r = numafit__jp_fail(&c->jp, -EINVAL, NUMAFIT_E_SCHEMA,
                             "'siblings' must be an array of arrays, not %s",
                             numafit__json_type_name(v));
        goto out;
    }
    n = json_array_size(v);
    json_array_foreach(v, i, grp) {
        if (!json_is_array(grp)) {
            size_t o2 = numafit__jp_index(&c->jp, i);
            r = numafit__jp_fail(&c->jp, -EINVAL, NUMAFIT_E_SCHEMA,
                                 "a sibling set must be an array of CPU ids, not %s",
                                 numafit__json_type_name(grp));
            numafit__jp_pop(&c->jp, o2);
            goto out;
        }
        total += json_array_size(grp);
    }
    if (n == 0)
        goto out;
    if (n >= UINT32_MAX || total >= UINT32_MAX) {
        r = numafit__jp_fail(&c->jp, -ERANGE, NUMAFIT_E_RANGE, "too many sibling entries");
        goto out;
    }
    cell->sib_off = numafit__calloc(NUMAFIT__SIB_OFF_LEN(n), sizeof(uint32_t));
    cell->sib_cpu = numafit__calloc(total ? total : 1, sizeof(uint16_t));
    if (!cell->sib_off || !cell->sib_cpu) {
        r = numafit__jp_nomem(&c->jp);
        goto out;
    }
    cell->nsib = (uint32_t)n;
    uint32_t pos = 0;
    json_array_foreach(v, i, grp) {
        size_t o2 = numafit__jp_index(&c->jp, i);
        uint32_t start = pos;
        cell->sib_off[i] = start;
        json_array_foreach(grp, j, e) {
            unsigned cpu;
            size_t o3 = numafit__jp_index(&c->jp, j);
            r = read_cpu_value(c, e, &cpu);
            numafit__jp_pop(&c->jp, o3);
            if (r < 0) {
                numafit__jp_pop(&c->jp, o2);
                goto out;
            }
            cell->sib_cpu[pos++] = (uint16_t)cpu;
        }
        numafit__jp_pop(&c->jp, o2);
        pos = numafit__sib_set_normalize(cell->sib_cpu, start, pos);
    }
    cell->sib_off[n] = pos;
out:
    numafit__jp_pop(&c->jp, old);
    return r;
}

/* ------------------------------------------------------------ envelopes */

/* Check a versioned-object envelope at the current path and return its data
 * (numafit__jp_envelope). Accepts major 1 with a minor <= max_minor. */
static int read_envelope(struct ctx *c, const json_t *v, const char *name, int max_minor,
                         json_t **ret_data) {
    int minor;
    return numafit__jp_envelope(&c->jp, v, name, max_minor, &minor, ret_data);
}

/* ------------------------------------------------------------ nested objects */

static int read_pages(struct ctx *c, const json_t *data, struct numafit__cell *cell) {
    json_t *v = json_object_get(data, "mempages");
    size_t old = numafit__jp_push(&c->jp, "mempages");
    size_t i, n;
    json_t *e;
    int r = 0;
    if (!v)
        goto out;
    if (!json_is_array(v)) {
        r = numafit__jp_fail(&c->jp, -EINVAL, NUMAFIT_E_SCHEMA,
                             "'mempages' must be an array, not %s", numafit__json_type_name(v));
        goto out;
    }
    n = json_array_size(v);
    if (n == 0)
        goto out;
    if (n > NUMAFIT__PAGES_MAX) {
        r = numafit__jp_fail(&c->jp, -ERANGE, NUMAFIT_E_RANGE, "too many page sizes (%zu)", n);
        goto out;
    }
    cell->pages = numafit__calloc(n, sizeof(*cell->pages));
    if (!cell->pages) {
        r = numafit__jp_nomem(&c->jp);
        goto out;
    }
    json_array_foreach(v, i, e) {
        struct numafit__pages *pg = &cell->pages[i];
        json_t *pd;
        size_t o2 = numafit__jp_index(&c->jp, i);
        r = read_envelope(c, e, "NUMAPagesTopology", PAGES_MINOR, &pd);
        if (r == 0) {
            size_t o3 = numafit__jp_push(&c->jp, KEY_DATA);
            r = read_uint(c, pd, "size_kb", true, PAGE_SIZE_MAX, &pg->size_kb);
            if (r == 0 && (pg->size_kb < 4 || (pg->size_kb & (pg->size_kb - 1)))) {
                size_t o4 = numafit__jp_push(&c->jp, "size_kb");
                r = numafit__jp_fail(&c->jp, -ERANGE, NUMAFIT_E_RANGE,
                                     "page size %llu KiB is not a power of two >= 4",
                                     (unsigned long long)pg->size_kb);
                numafit__jp_pop(&c->jp, o4);
            }
            for (uint32_t k = 0; r == 0 && k < i; k++)
                if (cell->pages[k].size_kb == pg->size_kb) {
                    size_t o4 = numafit__jp_push(&c->jp, "size_kb");
                    r = numafit__jp_fail(&c->jp, -EINVAL, NUMAFIT_E_SCHEMA,
                                         "page size %llu KiB listed twice",
                                         (unsigned long long)pg->size_kb);
                    numafit__jp_pop(&c->jp, o4);
                }
            uint64_t maxn = r == 0 ? PAGE_KB_MAX / pg->size_kb : 0;
            if (r == 0)
                r = read_uint(c, pd, "total", true, maxn, &pg->total);
            if (r == 0)
                r = read_uint(c, pd, "used", false, maxn, &pg->used);
            if (r == 0)
                r = read_uint(c, pd, "reserved", false, maxn, &pg->reserved);
            numafit__jp_pop(&c->jp, o3);
        }
        numafit__jp_pop(&c->jp, o2);
        if (r < 0)
            goto out;
        cell->npages = (uint32_t)i + 1;
    }
out:
    numafit__jp_pop(&c->jp, old);
    return r;
}

static int read_netmeta(struct ctx *c, const json_t *data, struct numafit__cell *cell) {
    json_t *v = json_object_get(data, "network_metadata");
    size_t old = numafit__jp_push(&c->jp, "network_metadata");
    json_t *nd, *f, *e;
    size_t i, n;
    int r = 0;
    if (!v)
        goto out;
    r = read_envelope(c, v, "NetworkMetadata", NETMETA_MINOR, &nd);
    if (r < 0)
        goto out;
    numafit__jp_push(&c->jp, KEY_DATA);
    cell->has_netmeta = true;

    f = json_object_get(nd, "tunneled");
    if (f) {
        size_t o2 = numafit__jp_push(&c->jp, "tunneled");
        if (!json_is_boolean(f))
            r = numafit__jp_fail(&c->jp, -EINVAL, NUMAFIT_E_SCHEMA,
                                 "'tunneled' must be a boolean, not %s",
                                 numafit__json_type_name(f));
        numafit__jp_pop(&c->jp, o2);
        if (r < 0)
            goto out;
        cell->tunneled = json_is_true(f);
    }

    f = json_object_get(nd, "physnets");
    if (!f)
        goto out;
    numafit__jp_push(&c->jp, "physnets");
    if (!json_is_array(f)) {
        r = numafit__jp_fail(&c->jp, -EINVAL, NUMAFIT_E_SCHEMA,
                             "'physnets' must be an array of strings, not %s",
                             numafit__json_type_name(f));
        goto out;
    }
    n = json_array_size(f);
    if (n == 0)
        goto out;
    cell->physnets = numafit__calloc(n, sizeof(char *));
    if (!cell->physnets) {
        r = numafit__jp_nomem(&c->jp);
        goto out;
    }
    json_array_foreach(f, i, e) {
        if (!json_is_string(e) || json_string_length(e) > PHYSNET_MAX ||
            strlen(json_string_value(e)) != json_string_length(e)) {
            numafit__jp_index(&c->jp, i);
            r = numafit__jp_fail(&c->jp, -EINVAL, NUMAFIT_E_SCHEMA,
                                 "a physnet must be a string of at most %d bytes without NUL",
                                 PHYSNET_MAX);
            goto out;
        }
        cell->physnets[i] = numafit__strdup(json_string_value(e));
        if (!cell->physnets[i]) {
            r = numafit__jp_nomem(&c->jp);
            goto out;
        }
        cell->nphysnets = (uint32_t)i + 1;
    }
    cell->nphysnets = numafit__names_normalize(cell->physnets, (uint32_t)n);
out:
    numafit__jp_pop(&c->jp, old);
    return r;
}

/* Cross-field checks common to both formats. seen: CPUs of earlier cells. */
static int check_cell(struct ctx *c, struct numafit__cell *cell, uint64_t *seen,
                      const char *cpuset_key, const char *pcpuset_key, const char *pinned_key) {
    const unsigned nw = NUMAFIT__CPU_WORDS;
    size_t old;
    int r = 0;
    if (numafit__bits_intersects(cell->cpuset, cell->pcpuset, nw) &&
        !numafit__bits_equal(cell->cpuset, cell->pcpuset, nw) &&
        !(c->flags & NUMAFIT_HOST_ALLOW_OVERLAP)) {
        int k = -1;
        do
            k = numafit__bits_next(cell->pcpuset, nw, k);
        while (k >= 0 && !numafit__bit_test(cell->cpuset, (unsigned)k));
        old = numafit__jp_push(&c->jp, pcpuset_key);
        r = numafit__jp_fail(&c->jp, -EINVAL, NUMAFIT_E_SCHEMA,
                             "cell %d: cpuset and pcpuset overlap (CPU %d) without being equal",
                             cell->id, k);
        numafit__jp_pop(&c->jp, old);
        return r;
    }
    if (!numafit__bits_subset(cell->pinned, cell->pcpuset, nw)) {
        int k = -1;
        do
            k = numafit__bits_next(cell->pinned, nw, k);
        while (k >= 0 && numafit__bit_test(cell->pcpuset, (unsigned)k));
        old = numafit__jp_push(&c->jp, pinned_key);
        r = numafit__jp_fail(&c->jp, -EINVAL, NUMAFIT_E_SCHEMA,
                             "cell %d: pinned CPU %d is not in pcpuset", cell->id, k);
        numafit__jp_pop(&c->jp, old);
        return r;
    }
    for (unsigned i = 0; i < nw; i++) {
        uint64_t mine = cell->cpuset[i] | cell->pcpuset[i];
        if (mine & seen[i]) {
            int k = (int)(i * 64 + (unsigned)__builtin_ctzll(mine & seen[i]));
            old = numafit__jp_push(
                &c->jp, numafit__bit_test(cell->cpuset, (unsigned)k) ? cpuset_key : pcpuset_key);
            r = numafit__jp_fail(&c->jp, -EINVAL, NUMAFIT_E_SCHEMA,
                                 "CPU %d belongs to more than one cell", k);
            numafit__jp_pop(&c->jp, old);
            return r;
        }
        seen[i] |= mine;
    }
    return 0;
}

static int check_unique_id(struct ctx *c, const numafit_host_t *h, uint32_t upto) {
    for (uint32_t k = 0; k < upto; k++)
        if (h->cells[k].id == h->cells[upto].id) {
            size_t old = numafit__jp_push(&c->jp, "id");
            int r = numafit__jp_fail(&c->jp, -EINVAL, NUMAFIT_E_SCHEMA, "duplicate cell id %d",
                                     h->cells[upto].id);
            numafit__jp_pop(&c->jp, old);
            return r;
        }
    return 0;
}

static int read_cell(struct ctx *c, const json_t *v, numafit_host_t *h, uint32_t idx,
                     uint64_t *seen) {
    struct numafit__cell *cell = &h->cells[idx];
    json_t *data, *f;
    uint64_t x = 0;
    size_t old;
    int r;

    r = read_envelope(c, v, "NUMACell", CELL_MINOR, &data);
    if (r < 0)
        return r;
    old = numafit__jp_push(&c->jp, KEY_DATA);
    r = read_uint(c, data, "id", true, NUMAFIT_CELL_ID_MAX, &x);
    if (r < 0)
        goto out;
    cell->id = (int32_t)x;
    c->jp.cell = cell->id;
    if ((r = check_unique_id(c, h, idx)) < 0)
        goto out;
    if ((r = read_uint(c, data, "memory", true, NUMAFIT_MEMORY_MB_MAX, &cell->memory)) < 0 ||
        (r = read_cpuset(c, data, "cpuset", cell->cpuset)) < 0 ||
        (r = read_cpuset(c, data, "pcpuset", cell->pcpuset)) < 0 ||
        (r = read_uint(c, data, "cpu_usage", false, CPU_USAGE_MAX, &cell->cpu_usage)) < 0 ||
        (r = read_uint(c, data, "memory_usage", false, NUMAFIT_MEMORY_MB_MAX,
                       &cell->memory_usage)) < 0 ||
        (r = read_cpuset(c, data, "pinned_cpus", cell->pinned)) < 0 ||
        (r = read_siblings(c, data, cell)) < 0 || (r = read_pages(c, data, cell)) < 0 ||
        (r = read_netmeta(c, data, cell)) < 0)
        goto out;
    f = json_object_get(data, "socket");
    if (f && !json_is_null(f)) {
        x = 0;
        if ((r = read_uint(c, data, "socket", false, SOCKET_MAX, &x)) < 0)
            goto out;
        cell->socket = (int32_t)x;
    }
    r = check_cell(c, cell, seen, "cpuset", "pcpuset", "pinned_cpus");
out:
    numafit__jp_pop(&c->jp, old);
    return r;
}

/* Legacy (pre-Liberty) cell: {"id","cpus","mem":{"total","used"},"cpu_usage"}. */
static int read_legacy_cell(struct ctx *c, const json_t *v, numafit_host_t *h, uint32_t idx,
                            uint64_t *seen) {
    struct numafit__cell *cell = &h->cells[idx];
    json_t *f;
    uint64_t x = 0;
    size_t old;
    int r;

    if (!json_is_object(v))
        return numafit__jp_fail(&c->jp, -EINVAL, NUMAFIT_E_SCHEMA,
                                "a legacy cell must be an object, not %s",
                                numafit__json_type_name(v));
    if ((r = read_uint(c, v, "id", true, NUMAFIT_CELL_ID_MAX, &x)) < 0)
        return r;
    cell->id = (int32_t)x;
    c->jp.cell = cell->id;
    if ((r = check_unique_id(c, h, idx)) < 0)
        return r;

    f = json_object_get(v, "cpus");
    if (f) {
        numafit_error_t perr;
        numafit__error_clear(&perr);
        old = numafit__jp_push(&c->jp, "cpus");
        if (!json_is_string(f)) {
            r = numafit__jp_fail(&c->jp, -EINVAL, NUMAFIT_E_SCHEMA,
                                 "'cpus' must be a cpu spec string, not %s",
                                 numafit__json_type_name(f));
        } else {
            r = numafit__cpuspec_parse(json_string_value(f), cell->cpuset, &perr);
            if (r < 0)
                r = numafit__jp_fail(&c->jp, r, r == -ERANGE ? NUMAFIT_E_RANGE : NUMAFIT_E_PARSE,
                                     "'cpus': %s", perr.text[0] ? perr.text : numafit_strerror(r));
            else {
                int last = numafit__bits_last(cell->cpuset, NUMAFIT__CPU_WORDS);
                if (last > c->max_cpu)
                    c->max_cpu = last;
            }
        }
        numafit__jp_pop(&c->jp, old);
        if (r < 0)
            return r;
    }
    f = json_object_get(v, "mem");
    if (f) {
        old = numafit__jp_push(&c->jp, "mem");
        if (!json_is_object(f))
            r = numafit__jp_fail(&c->jp, -EINVAL, NUMAFIT_E_SCHEMA,
                                 "'mem' must be an object, not %s", numafit__json_type_name(f));
        if (r == 0)
            r = read_uint(c, f, "total", false, NUMAFIT_MEMORY_MB_MAX, &cell->memory);
        if (r == 0)
            r = read_uint(c, f, "used", false, NUMAFIT_MEMORY_MB_MAX, &cell->memory_usage);
        numafit__jp_pop(&c->jp, old);
        if (r < 0)
            return r;
    }
    if ((r = read_uint(c, v, "cpu_usage", false, CPU_USAGE_MAX, &cell->cpu_usage)) < 0)
        return r;
    return check_cell(c, cell, seen, "cpus", "cpus", "cpus");
}

/* Shrink the full-width bitmaps to NUMAFIT__WORDS(max_cpu + 1) words. */
static int shrink(struct ctx *c, numafit_host_t *h) {
    unsigned nw = NUMAFIT__WORDS((unsigned)(c->max_cpu + 1));
    if (nw == 0)
        nw = 1;
    if (nw == h->nw)
        return 0;
    uint64_t *bits = numafit__calloc((size_t)h->ncells * 3 * nw, sizeof(uint64_t));
    if (!bits)
        return numafit__jp_nomem(&c->jp);
    for (uint32_t i = 0; i < h->ncells; i++) {
        struct numafit__cell *cell = &h->cells[i];
        uint64_t *d = bits + (size_t)i * 3 * nw;
        memcpy(d, cell->cpuset, nw * sizeof(uint64_t));
        memcpy(d + nw, cell->pcpuset, nw * sizeof(uint64_t));
        memcpy(d + 2 * nw, cell->pinned, nw * sizeof(uint64_t));
    }
    numafit__free(h->bits);
    h->bits = bits;
    for (uint32_t i = 0; i < h->ncells; i++) {
        struct numafit__cell *cell = &h->cells[i];
        cell->cpuset = bits + (size_t)i * 3 * nw;
        cell->pcpuset = cell->cpuset + nw;
        cell->pinned = cell->pcpuset + nw;
    }
    h->nw = nw;
    return 0;
}

/* cells: the array at the current path. */
static int read_cells(struct ctx *c, const json_t *cells, bool legacy, numafit_host_t **ret) {
    numafit_host_t *h = NULL;
    uint64_t *seen = NULL;
    size_t n, i;
    json_t *e;
    int r;

    if (!json_is_array(cells))
        return numafit__jp_fail(&c->jp, -EINVAL, NUMAFIT_E_SCHEMA,
                                "'cells' must be an array, not %s", numafit__json_type_name(cells));
    n = json_array_size(cells);
    if (n > NUMAFIT_MAX_CELLS)
        return numafit__jp_fail(&c->jp, -ERANGE, NUMAFIT_E_RANGE, "%zu cells exceed the limit %d",
                                n, NUMAFIT_MAX_CELLS);
    r = numafit__host_alloc((uint32_t)n, NUMAFIT__CPU_WORDS, &h);
    if (r < 0)
        return r == -ENOMEM ? numafit__jp_nomem(&c->jp)
                            : numafit__jp_fail(&c->jp, r, NUMAFIT_E_SCHEMA, "bad host size");
    seen = numafit__calloc(NUMAFIT__CPU_WORDS, sizeof(uint64_t));
    if (!seen) {
        r = numafit__jp_nomem(&c->jp);
        goto fail;
    }
    json_array_foreach(cells, i, e) {
        size_t old = numafit__jp_index(&c->jp, i);
        c->jp.cell = -1;
        r = legacy ? read_legacy_cell(c, e, h, (uint32_t)i, seen)
                   : read_cell(c, e, h, (uint32_t)i, seen);
        numafit__jp_pop(&c->jp, old);
        if (r < 0)
            goto fail;
    }
    c->jp.cell = -1;
    if ((r = shrink(c, h)) < 0)
        goto fail;
    numafit__free(seen);
    if ((r = numafit__host_finish(h, c->flags, c->jp.err)) < 0)
        goto fail;
    *ret = h;
    return 0;
fail:
    numafit__free(seen);
    numafit_host_free(h);
    return r;
}

static int parse_json(struct ctx *c, const char *buf, size_t len, json_t **ret) {
    const struct numafit__json_src src = {"host", NUMAFIT__JSON_VALUES_HOST, JSON_DECODE_ANY,
                                          c->jp.path};
    json_error_t jerr;
    int r = numafit__json_parse(&src, buf, len, ret, &jerr, c->jp.err);
    if (r == -EBADMSG)
        return numafit__jp_fail(&c->jp, r, NUMAFIT_E_PARSE, "line %d column %d: %s", jerr.line,
                                jerr.column, jerr.text);
    return r;
}

static int read_document(struct ctx *c, const json_t *root, int depth, numafit_host_t **ret) {
    json_t *data, *cells;
    size_t old;
    int r;

    if (json_is_string(root) && depth == 0) {
        /* the compute_nodes.numa_topology column: a JSON string of the primitive */
        json_t *inner = NULL;
        r = parse_json(c, json_string_value(root), json_string_length(root), &inner);
        if (r < 0)
            return r;
        r = read_document(c, inner, 1, ret);
        json_decref(inner);
        return r;
    }
    if (!json_is_object(root))
        return numafit__jp_fail(
            &c->jp, -EINVAL, NUMAFIT_E_SCHEMA,
            "expected a NUMATopology primitive, its JSON string or a legacy dict, not %s",
            numafit__json_type_name(root));
    if (!json_object_get(root, KEY_NAME)) {
        cells = json_object_get(root, "cells");
        if (!cells)
            return numafit__jp_fail(
                &c->jp, -EINVAL, NUMAFIT_E_SCHEMA,
                "neither a NUMATopology primitive nor a legacy dict with 'cells'");
        old = numafit__jp_push(&c->jp, "cells");
        r = read_cells(c, cells, true, ret);
        numafit__jp_pop(&c->jp, old);
        return r;
    }
    r = read_envelope(c, root, "NUMATopology", TOPOLOGY_MINOR, &data);
    if (r < 0)
        return r;
    old = numafit__jp_push(&c->jp, KEY_DATA);
    cells = json_object_get(data, "cells");
    if (!cells) {
        size_t o2 = numafit__jp_push(&c->jp, "cells");
        r = numafit__jp_fail(&c->jp, -EINVAL, NUMAFIT_E_SCHEMA,
                             "required field 'cells' is missing");
        numafit__jp_pop(&c->jp, o2);
    } else {
        size_t o2 = numafit__jp_push(&c->jp, "cells");
        r = read_cells(c, cells, false, ret);
        numafit__jp_pop(&c->jp, o2);
    }
    numafit__jp_pop(&c->jp, old);
    return r;
}

NUMAFIT_EXPORT int numafit_host_new_from_json(const char *buf, size_t len, unsigned flags,
                                              numafit_host_t **ret, numafit_error_t *err) {
    struct ctx c = {.flags = flags, .max_cpu = -1};
    numafit_host_t *h = NULL;
    json_t *root = NULL;
    int r;

    numafit__jp_init(&c.jp, err);
    numafit__error_clear(err);
    if (!buf || !ret) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL, "NULL argument");
        return -EINVAL;
    }
    if (flags & ~(unsigned)NUMAFIT_HOST_ALLOW_OVERLAP) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL, "unknown flags 0x%x",
                           flags & ~(unsigned)NUMAFIT_HOST_ALLOW_OVERLAP);
        return -EINVAL;
    }
    if (len > NUMAFIT_INPUT_MAX)
        return numafit__jp_fail(&c.jp, -ERANGE, NUMAFIT_E_RANGE,
                                "input of %zu bytes exceeds the limit %u", len, NUMAFIT_INPUT_MAX);
    r = parse_json(&c, buf, len, &root);
    if (r < 0)
        return r;
    r = read_document(&c, root, 0, &h);
    json_decref(root);
    if (r < 0)
        return r;
    *ret = h;
    return 0;
}

/* ------------------------------------------------------------ writer */

/* siblings: a list of CPU id lists. */
static json_t *siblings_json(const struct numafit__cell *cell) {
    json_t *sib = json_array();
    for (uint32_t s = 0; sib && s < cell->nsib; s++) {
        json_t *g = json_array();
        if (!g || json_array_append_new(sib, g) < 0)
            g = NULL;
        for (uint32_t k = cell->sib_off[s]; g && k < cell->sib_off[s + 1]; k++)
            if (json_array_append_new(g, json_integer(cell->sib_cpu[k])) < 0)
                g = NULL;
        if (!g) {
            json_decref(sib);
            sib = NULL;
        }
    }
    return sib;
}

static json_t *page_json(const struct numafit__pages *pg) {
    struct numafit__json_field f[] = {
        {"size_kb", json_integer((json_int_t)pg->size_kb)},
        {"total", json_integer((json_int_t)pg->total)},
        {"used", json_integer((json_int_t)pg->used)},
        {"reserved", json_integer((json_int_t)pg->reserved)},
    };
    return numafit__json_envelope("NUMAPagesTopology", "1.1",
                                  numafit__json_object(f, sizeof(f) / sizeof(f[0])), SORTED);
}

static json_t *pages_json(const struct numafit__cell *cell) {
    json_t *pages = json_array();
    for (uint32_t p = 0; pages && p < cell->npages; p++)
        if (json_array_append_new(pages, page_json(&cell->pages[p])) < 0) {
            json_decref(pages);
            pages = NULL;
        }
    return pages;
}

static json_t *netmeta_json(const struct numafit__cell *cell) {
    json_t *pn = json_array();
    for (uint32_t k = 0; pn && k < cell->nphysnets; k++)
        if (json_array_append_new(pn, json_string(cell->physnets[k])) < 0) {
            json_decref(pn);
            pn = NULL;
        }
    struct numafit__json_field f[] = {
        {"physnets", pn},
        {"tunneled", json_boolean(cell->tunneled)},
    };
    return numafit__json_envelope("NetworkMetadata", "1.0",
                                  numafit__json_object(f, sizeof(f) / sizeof(f[0])), SORTED);
}

static json_t *cell_json(const struct numafit__cell *cell, unsigned nw) {
    struct numafit__json_field f[11] = {
        {"id", json_integer(cell->id)},
        {"cpuset", numafit__json_bits(cell->cpuset, nw)},
        {"pcpuset", numafit__json_bits(cell->pcpuset, nw)},
        {"memory", json_integer((json_int_t)cell->memory)},
        {"cpu_usage", json_integer((json_int_t)cell->cpu_usage)},
        {"memory_usage", json_integer((json_int_t)cell->memory_usage)},
        {"pinned_cpus", numafit__json_bits(cell->pinned, nw)},
        {"siblings", siblings_json(cell)},
        {"mempages", pages_json(cell)},
    };
    size_t n = 9;
    if (cell->has_netmeta)
        f[n++] = (struct numafit__json_field){"network_metadata", netmeta_json(cell)};
    f[n++] = (struct numafit__json_field){"socket", cell->socket < 0 ? json_null()
                                                                     : json_integer(cell->socket)};
    return numafit__json_envelope("NUMACell", "1.5", numafit__json_object(f, n), SORTED);
}

static json_t *host_json(const numafit_host_t *h) {
    json_t *cells = json_array(), *d = json_object();
    if (!cells || !d)
        goto fail;
    for (uint32_t i = 0; i < h->ncells; i++)
        if (json_array_append_new(cells, cell_json(&h->cells[i], h->nw)) < 0)
            goto fail;
    if (json_object_set_new(d, "cells", cells) < 0) {
        cells = NULL;
        goto fail;
    }
    return numafit__json_envelope("NUMATopology", "1.2", d, SORTED);
fail:
    json_decref(cells);
    json_decref(d);
    return NULL;
}

NUMAFIT_EXPORT int numafit_host_to_json(const numafit_host_t *h, unsigned flags, char **ret,
                                        numafit_error_t *err) {
    const unsigned known = NUMAFIT_HOST_JSON_STRING | NUMAFIT_JSON_INDENT;

    numafit__error_clear(err);
    if (!h || !ret) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL, "NULL argument");
        return -EINVAL;
    }
    if (flags & ~known) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL, "unknown flags 0x%x",
                           flags & ~known);
        return -EINVAL;
    }
    return numafit__json_emit(host_json(h), flags, ret, err);
}
