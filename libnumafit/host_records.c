/*
 * Hosts as integer records: numafit_host_new_from_records() builds a host
 * from the fields of nova's NUMACell objects laid out in an int64 array (the
 * Python binding writes it straight from the objects' storage, without
 * JSON), and numafit_host_get_cell_usage() writes a cell's usage back the
 * same way. The layout is documented in host.h and doc/host-records.md.
 *
 * The reader checks the layout (every count within what is left, every
 * value within its field's range) and leaves the cross-field rules (cell
 * ids unique, cpuset/pcpuset, pinned CPUs, one cell per CPU, page sizes
 * listed once, physnets valid) to numafit__host_finish, the check every
 * loader ends with: a host read from records writes the same JSON as the
 * host read from that JSON.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numafit/host.h"
#include "private.h"

#define REC_FORMAT 1
/* physnets of one cell (each name takes at least one byte of names) */
#define PHYSNETS_MAX 65536

struct rd {
    const int64_t *rec;
    size_t n, pos;
    const char *names;
    size_t names_len, names_pos;
    int max_cpu;
    numafit_error_t *err;
    char where[64];
};

/* The current cell index and field name into rd->where. */
static const char *at(struct rd *r, long cell, const char *field) {
    if (cell < 0)
        snprintf(r->where, sizeof(r->where), "records[%zu]", r->pos);
    else
        snprintf(r->where, sizeof(r->where), "cells[%ld].%s", cell, field);
    return r->where;
}

static int fail(struct rd *r, int rc, int code, long cell, const char *field, const char *what,
                int64_t v) {
    numafit__error_set(r->err, code, -1, at(r, cell, field), NULL, "%s (%lld at record %zu)", what,
                       (long long)v, r->pos);
    return rc;
}

/* The next value, within [lo, hi]. */
static int take(struct rd *r, long cell, const char *field, int64_t lo, int64_t hi, int64_t *out) {
    if (r->pos >= r->n) {
        numafit__error_set(r->err, NUMAFIT_E_SCHEMA, -1, at(r, cell, field), NULL,
                           "the records end early (%zu values)", r->n);
        return -EINVAL;
    }
    int64_t v = r->rec[r->pos];
    if (v < lo || v > hi)
        return fail(r, -ERANGE, NUMAFIT_E_RANGE, cell, field, "value out of range", v);
    r->pos++;
    *out = v;
    return 0;
}

/* A count of items of `per` values each that must fit in what is left. */
static int take_count(struct rd *r, long cell, const char *field, size_t per, int64_t hi,
                      uint32_t *out) {
    int64_t v;
    int rc = take(r, cell, field, 0, hi, &v);
    if (rc < 0)
        return rc;
    if ((uint64_t)v > (r->n - r->pos) / per) {
        r->pos--;
        return fail(r, -EINVAL, NUMAFIT_E_SCHEMA, cell, field, "a count beyond the records", v);
    }
    *out = (uint32_t)v;
    return 0;
}

static int take_cpu(struct rd *r, long cell, const char *field, unsigned *out) {
    int64_t v;
    int rc = take(r, cell, field, 0, NUMAFIT_CPU_MAX, &v);
    if (rc < 0)
        return rc;
    if ((int)v > r->max_cpu)
        r->max_cpu = (int)v;
    *out = (unsigned)v;
    return 0;
}

static const char *const SET_FIELDS[3] = {"cpuset", "pcpuset", "pinned_cpus"};

/* The three CPU sets of a cell; with cell NULL only checked (the first pass,
 * which finds the highest CPU id). */
static int read_sets(struct rd *r, long ci, struct numafit__cell *cell) {
    for (int s = 0; s < 3; s++) {
        uint32_t n;
        int rc = take_count(r, ci, SET_FIELDS[s], 1, INT64_MAX, &n);
        if (rc < 0)
            return rc;
        uint64_t *bits = !cell    ? NULL
                         : s == 0 ? cell->cpuset
                         : s == 1 ? cell->pcpuset
                                  : cell->pinned;
        for (uint32_t k = 0; k < n; k++) {
            unsigned cpu;
            if ((rc = take_cpu(r, ci, SET_FIELDS[s], &cpu)) < 0)
                return rc;
            if (bits)
                numafit__bit_set(bits, cpu);
        }
    }
    return 0;
}

/* siblings: nsib lengths, then their CPUs; each set sorted, duplicates
 * dropped (as the JSON reader does). */
static int read_siblings(struct rd *r, long ci, struct numafit__cell *cell) {
    uint32_t nsib;
    int rc = take_count(r, ci, "siblings", 1, UINT32_MAX - 1, &nsib);
    if (rc < 0)
        return rc;
    size_t lens = r->pos, total = 0;
    for (uint32_t i = 0; i < nsib; i++) {
        uint32_t len;
        if ((rc = take_count(r, ci, "siblings", 1, UINT32_MAX - 1, &len)) < 0)
            return rc;
        total += len;
        if (total > r->n - r->pos) {
            r->pos--;
            return fail(r, -EINVAL, NUMAFIT_E_SCHEMA, ci, "siblings",
                        "sibling sets beyond the records", len);
        }
    }
    if (cell && nsib) {
        cell->sib_off = numafit__calloc(NUMAFIT__SIB_OFF_LEN(nsib), sizeof(uint32_t));
        cell->sib_cpu = numafit__calloc(total ? total : 1, sizeof(uint16_t));
        if (!cell->sib_off || !cell->sib_cpu) {
            numafit__error_set(r->err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
            return -ENOMEM;
        }
        cell->nsib = nsib;
    }
    uint32_t pos = 0;
    for (uint32_t i = 0; i < nsib; i++) {
        uint32_t len = (uint32_t)r->rec[lens + i], start = pos;
        for (uint32_t k = 0; k < len; k++) {
            unsigned cpu;
            if ((rc = take_cpu(r, ci, "siblings", &cpu)) < 0)
                return rc;
            if (cell)
                cell->sib_cpu[pos++] = (uint16_t)cpu;
        }
        if (!cell)
            continue;
        cell->sib_off[i] = start;
        pos = numafit__sib_set_normalize(cell->sib_cpu, start, pos);
    }
    if (cell && nsib)
        cell->sib_off[nsib] = pos;
    return 0;
}

static int read_pages(struct rd *r, long ci, struct numafit__cell *cell) {
    uint32_t n;
    int rc = take_count(r, ci, "mempages", 4, NUMAFIT__PAGES_MAX, &n);
    if (rc < 0)
        return rc;
    if (cell && n) {
        cell->pages = numafit__calloc(n, sizeof(*cell->pages));
        if (!cell->pages) {
            numafit__error_set(r->err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
            return -ENOMEM;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        int64_t v[4];
        if ((rc = take(r, ci, "mempages.size_kb", 4, (int64_t)NUMAFIT__PAGE_SIZE_MAX, &v[0])) < 0)
            return rc;
        if (v[0] & (v[0] - 1)) {
            r->pos--;
            return fail(r, -ERANGE, NUMAFIT_E_RANGE, ci, "mempages.size_kb",
                        "a page size that is not a power of two", v[0]);
        }
        int64_t maxn = (int64_t)(NUMAFIT__PAGE_KB_MAX / (uint64_t)v[0]);
        if ((rc = take(r, ci, "mempages.total", 0, maxn, &v[1])) < 0 ||
            (rc = take(r, ci, "mempages.used", 0, maxn, &v[2])) < 0 ||
            (rc = take(r, ci, "mempages.reserved", 0, maxn, &v[3])) < 0)
            return rc;
        if (cell) {
            cell->pages[i] = (struct numafit__pages){(uint64_t)v[0], (uint64_t)v[1], (uint64_t)v[2],
                                                     (uint64_t)v[3]};
            cell->npages = i + 1;
        }
    }
    return 0;
}

/* network_metadata: -1 (none), 0 or 1 (tunneled), then the number of
 * physnets, whose names come next from the names buffer. */
static int read_netmeta(struct rd *r, long ci, struct numafit__cell *cell) {
    int64_t nm, count;
    int rc = take(r, ci, "network_metadata", -1, 1, &nm);
    if (rc < 0)
        return rc;
    /* no physnets without network metadata; the names bound the count */
    if ((rc = take(r, ci, "network_metadata.physnets", 0, nm < 0 ? 0 : PHYSNETS_MAX, &count)) < 0)
        return rc;
    uint32_t n = (uint32_t)count;
    if (cell) {
        cell->has_netmeta = nm >= 0;
        cell->tunneled = nm == 1;
        if (n && !(cell->physnets = numafit__calloc(n, sizeof(char *)))) {
            numafit__error_set(r->err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
            return -ENOMEM;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        const char *s = r->names + r->names_pos;
        size_t left = r->names_len - r->names_pos;
        const char *end = left ? memchr(s, '\0', left) : NULL;
        if (!end || (size_t)(end - s) > NUMAFIT__PHYSNET_MAX ||
            !numafit__utf8_ok(s, (size_t)(end - s))) {
            numafit__error_set(r->err, NUMAFIT_E_SCHEMA, -1, at(r, ci, "network_metadata.physnets"),
                               NULL,
                               "physnet %u: the names must be NUL-terminated UTF-8 of at most "
                               "%d bytes",
                               i, NUMAFIT__PHYSNET_MAX);
            return -EINVAL;
        }
        r->names_pos += (size_t)(end - s) + 1;
        if (cell) {
            if (!(cell->physnets[i] = numafit__strdup(s))) {
                numafit__error_set(r->err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
                return -ENOMEM;
            }
            cell->nphysnets = i + 1;
        }
    }
    if (cell)
        cell->nphysnets = numafit__names_normalize(cell->physnets, n);
    return 0;
}

static int read_cell(struct rd *r, long ci, struct numafit__cell *cell) {
    int64_t v[5];
    int rc;
    if ((rc = take(r, ci, "id", 0, NUMAFIT_CELL_ID_MAX, &v[0])) < 0 ||
        (rc = take(r, ci, "socket", -1, NUMAFIT__SOCKET_MAX, &v[1])) < 0 ||
        (rc = take(r, ci, "memory", 0, (int64_t)NUMAFIT_MEMORY_MB_MAX, &v[2])) < 0 ||
        (rc = take(r, ci, "cpu_usage", 0, NUMAFIT__CPU_USAGE_MAX, &v[3])) < 0 ||
        (rc = take(r, ci, "memory_usage", 0, (int64_t)NUMAFIT_MEMORY_MB_MAX, &v[4])) < 0)
        return rc;
    if (cell) {
        cell->id = (int32_t)v[0];
        cell->socket = (int32_t)v[1];
        cell->memory = (uint64_t)v[2];
        cell->cpu_usage = (uint64_t)v[3];
        cell->memory_usage = (uint64_t)v[4];
    }
    if ((rc = read_sets(r, ci, cell)) < 0 || (rc = read_siblings(r, ci, cell)) < 0 ||
        (rc = read_pages(r, ci, cell)) < 0 || (rc = read_netmeta(r, ci, cell)) < 0)
        return rc;
    return 0;
}

/* One pass over the records: checked only (h NULL), or filling h. */
static int read_all(struct rd *r, numafit_host_t *h, uint32_t *ret_ncells) {
    int64_t fmt, nc;
    int rc;
    r->pos = 0;
    r->names_pos = 0;
    if ((rc = take(r, -1, NULL, REC_FORMAT, REC_FORMAT, &fmt)) < 0 ||
        (rc = take(r, -1, NULL, 0, NUMAFIT_MAX_CELLS, &nc)) < 0)
        return rc;
    for (long i = 0; i < nc; i++)
        if ((rc = read_cell(r, i, h ? &h->cells[i] : NULL)) < 0)
            return rc;
    if (r->pos != r->n) {
        numafit__error_set(r->err, NUMAFIT_E_SCHEMA, -1, at(r, -1, NULL), NULL,
                           "%zu values after the last cell", r->n - r->pos);
        return -EINVAL;
    }
    if (r->names_pos != r->names_len) {
        numafit__error_set(r->err, NUMAFIT_E_SCHEMA, -1, "names", NULL,
                           "%zu bytes of names after the last physnet",
                           r->names_len - r->names_pos);
        return -EINVAL;
    }
    *ret_ncells = (uint32_t)nc;
    return 0;
}

NUMAFIT_EXPORT int numafit_host_new_from_records(const int64_t *rec, size_t n, const char *names,
                                                 size_t names_len, unsigned flags,
                                                 numafit_host_t **ret, numafit_error_t *err) {
    struct rd r = {
        .rec = rec, .n = n, .names = names, .names_len = names_len, .max_cpu = -1, .err = err};
    numafit_host_t *h = NULL;
    uint32_t ncells;
    int rc;

    numafit__error_clear(err);
    if (!ret || (!rec && n) || (!names && names_len)) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL, "NULL argument");
        return -EINVAL;
    }
    *ret = NULL;
    if (flags & ~(unsigned)NUMAFIT_HOST_ALLOW_OVERLAP) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL, "unknown flags 0x%x",
                           flags & ~(unsigned)NUMAFIT_HOST_ALLOW_OVERLAP);
        return -EINVAL;
    }
    if (n > NUMAFIT_INPUT_MAX / sizeof(int64_t) || names_len > NUMAFIT_INPUT_MAX) {
        numafit__error_set(err, NUMAFIT_E_RANGE, -1, NULL, NULL,
                           "records of %zu values and %zu bytes of names exceed the limit", n,
                           names_len);
        return -ERANGE;
    }
    /* first pass: the layout, and the highest CPU id (the bitmap width) */
    if ((rc = read_all(&r, NULL, &ncells)) < 0)
        return rc;
    rc = numafit__host_alloc(ncells, NUMAFIT__WORDS((unsigned)(r.max_cpu + 1)), &h);
    if (rc < 0) {
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
        return rc;
    }
    if ((rc = read_all(&r, h, &ncells)) < 0 || (rc = numafit__host_finish(h, flags, err)) < 0) {
        numafit_host_free(h);
        return rc;
    }
    *ret = h;
    return 0;
}

NUMAFIT_EXPORT int numafit_host_get_cell_usage(const numafit_host_t *host, unsigned index,
                                               unsigned flags, int64_t *buf, size_t cap,
                                               size_t *ret_len) {
    if (!host || !ret_len || (!buf && cap) || flags)
        return -EINVAL;
    if (index >= host->ncells)
        return -ENOENT;
    const struct numafit__cell *c = &host->cells[index];
    unsigned npinned = numafit__bits_count(c->pinned, host->nw);
    size_t len = 3 + npinned + 1 + 4 * (size_t)c->npages;
    *ret_len = len;
    if (cap < len)
        return -ENOSPC;
    size_t p = 0;
    buf[p++] = (int64_t)c->cpu_usage;
    buf[p++] = (int64_t)c->memory_usage;
    buf[p++] = (int64_t)npinned;
    for (int k = numafit__bits_next(c->pinned, host->nw, -1); k >= 0;
         k = numafit__bits_next(c->pinned, host->nw, k))
        buf[p++] = k;
    buf[p++] = (int64_t)c->npages;
    for (uint32_t i = 0; i < c->npages; i++) {
        buf[p++] = (int64_t)c->pages[i].size_kb;
        buf[p++] = (int64_t)c->pages[i].total;
        buf[p++] = (int64_t)c->pages[i].used;
        buf[p++] = (int64_t)c->pages[i].reserved;
    }
    return 0;
}
