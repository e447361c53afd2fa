/* The host model: allocation, copies, comparison, accessors. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "private.h"

static void cell_clear(struct numafit__cell *c) {
    numafit__free(c->sib_off);
    numafit__free(c->sib_cpu);
    numafit__free(c->pages);
    for (uint32_t i = 0; i < c->nphysnets; i++)
        numafit__free(c->physnets[i]);
    numafit__free(c->physnets);
}

NUMAFIT_EXPORT void numafit_host_free(numafit_host_t *h) {
    if (!h)
        return;
    for (uint32_t i = 0; i < h->ncells; i++)
        cell_clear(&h->cells[i]);
    numafit__free(h->bits);
    numafit__free(h->distance);
    numafit__free(h->cells);
    numafit__free(h);
}

int numafit__host_alloc(uint32_t ncells, uint32_t nw, numafit_host_t **ret) {
    numafit_host_t *h;
    uint64_t *bits;
    if (nw == 0)
        nw = 1;
    if (ncells > NUMAFIT_MAX_CELLS || nw > NUMAFIT__CPU_WORDS)
        return -EINVAL;
    h = numafit__calloc(1, sizeof(*h));
    if (!h)
        return -ENOMEM;
    h->nw = nw;
    h->ncells = ncells;
    h->cells = numafit__calloc(ncells, sizeof(*h->cells));
    bits = numafit__calloc((size_t)ncells * 3 * nw, sizeof(uint64_t));
    h->bits = bits;
    if (!h->cells || !bits) {
        numafit__free(bits);
        numafit__free(h->cells);
        numafit__free(h);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < ncells; i++) {
        struct numafit__cell *c = &h->cells[i];
        c->cpuset = bits + (size_t)i * 3 * nw;
        c->pcpuset = c->cpuset + nw;
        c->pinned = c->pcpuset + nw;
        c->socket = -1;
    }
    *ret = h;
    return 0;
}

static void cell_counts(const numafit_host_t *h, const struct numafit__cell *c, uint32_t out[3]) {
    out[0] = out[1] = out[2] = 0;
    for (uint32_t w = 0; w < h->nw; w++) {
        out[0] += numafit__popcount64(c->pcpuset[w]);
        out[1] += numafit__popcount64(c->cpuset[w]);
        out[2] += numafit__popcount64(c->pcpuset[w] & ~c->pinned[w]);
    }
}

/* Free dedicated threads per sibling set, the most in one set, the largest
 * set, and whether sets share CPUs. */
static void sib_counts(const numafit_host_t *h, const struct numafit__cell *c, uint32_t *free,
                       uint32_t *maxfree, uint32_t *tpc, bool *overlap) {
    uint64_t seen[NUMAFIT__CPU_WORDS];
    *maxfree = *tpc = 0;
    *overlap = false;
    memset(seen, 0, h->nw * sizeof(uint64_t));
    for (uint32_t s = 0; s < c->nsib; s++) {
        uint32_t f = 0, len = c->sib_off[s + 1] - c->sib_off[s];
        for (uint32_t i = c->sib_off[s]; i < c->sib_off[s + 1]; i++) {
            unsigned cpu = c->sib_cpu[i];
            f += numafit__bit_test(c->pcpuset, cpu) && !numafit__bit_test(c->pinned, cpu);
            if (numafit__bit_test(seen, cpu))
                *overlap = true;
            numafit__bit_set(seen, cpu);
        }
        free[s] = f;
        if (f > *maxfree)
            *maxfree = f;
        if (len > *tpc)
            *tpc = len;
    }
    if (!*tpc)
        *tpc = 1;
}

void numafit__cell_derive(numafit_host_t *h, uint32_t index) {
    struct numafit__cell *c = &h->cells[index];
    cell_counts(h, c, c->count);
    c->maxfree = 0;
    c->tpc = 1;
    c->sib_overlap = false;
    if (c->nsib)
        sib_counts(h, c, numafit__sib_free(c), &c->maxfree, &c->tpc, &c->sib_overlap);
}

void numafit__host_derive(numafit_host_t *h) {
    for (uint32_t i = 0; h && i < h->ncells; i++)
        numafit__cell_derive(h, i);
}

bool numafit__host_derived_ok(const numafit_host_t *h) {
    for (uint32_t i = 0; i < h->ncells; i++) {
        const struct numafit__cell *c = &h->cells[i];
        uint32_t n[3], maxfree = 0, tpc = 1;
        bool overlap = false;
        cell_counts(h, c, n);
        if (memcmp(n, c->count, sizeof(n)))
            return false;
        if (c->nsib) {
            uint32_t *all = numafit__malloc(c->nsib * sizeof(uint32_t));
            if (!all)
                return false;
            sib_counts(h, c, all, &maxfree, &tpc, &overlap);
            bool same = !memcmp(all, numafit__sib_free(c), c->nsib * sizeof(uint32_t));
            numafit__free(all);
            if (!same)
                return false;
        }
        if (maxfree != c->maxfree || tpc != c->tpc || overlap != c->sib_overlap)
            return false;
    }
    return true;
}

static void *memdup(const void *src, size_t n) {
    void *d = numafit__malloc(n);
    if (d && n)
        memcpy(d, src, n);
    return d;
}

NUMAFIT_EXPORT int numafit_host_dup(const numafit_host_t *h, numafit_host_t **ret) {
    numafit_host_t *d = NULL;
    int r;
    if (!h || !ret)
        return -EINVAL;
    r = numafit__host_alloc(h->ncells, h->nw, &d);
    if (r < 0)
        return r;
    memcpy(d->bits, h->bits, (size_t)h->ncells * 3 * h->nw * sizeof(uint64_t));
    if (h->distance) {
        d->distance = memdup(h->distance, (size_t)h->ncells * h->ncells * sizeof(uint32_t));
        if (!d->distance)
            goto nomem;
    }
    for (uint32_t i = 0; i < h->ncells; i++) {
        const struct numafit__cell *s = &h->cells[i];
        struct numafit__cell *c = &d->cells[i];
        c->id = s->id;
        c->socket = s->socket;
        c->memory = s->memory;
        c->cpu_usage = s->cpu_usage;
        c->memory_usage = s->memory_usage;
        c->has_netmeta = s->has_netmeta;
        c->tunneled = s->tunneled;
        if (s->nsib) {
            c->sib_off = memdup(s->sib_off, NUMAFIT__SIB_OFF_LEN(s->nsib) * sizeof(uint32_t));
            c->sib_cpu = memdup(s->sib_cpu, s->sib_off[s->nsib] * sizeof(uint16_t));
            if (!c->sib_off || !c->sib_cpu)
                goto nomem;
            c->nsib = s->nsib;
        }
        if (s->npages) {
            c->pages = memdup(s->pages, s->npages * sizeof(*s->pages));
            if (!c->pages)
                goto nomem;
            c->npages = s->npages;
        }
        if (s->nphysnets) {
            c->physnets = numafit__calloc(s->nphysnets, sizeof(char *));
            if (!c->physnets)
                goto nomem;
            for (uint32_t k = 0; k < s->nphysnets; k++) {
                c->physnets[k] = numafit__strdup(s->physnets[k]);
                if (!c->physnets[k]) {
                    c->nphysnets = k;
                    goto nomem;
                }
            }
            c->nphysnets = s->nphysnets;
        }
    }
    numafit__host_derive(d);
    *ret = d;
    return 0;
nomem:
    numafit_host_free(d);
    return -ENOMEM;
}

int numafit__host_cell_index(const numafit_host_t *h, int id) {
    for (uint32_t i = 0; i < h->ncells; i++)
        if (h->cells[i].id == id)
            return (int)i;
    return -1;
}

NUMAFIT_EXPORT int numafit_host_get_cell_count(const numafit_host_t *h) {
    if (!h)
        return -EINVAL;
    return (int)h->ncells;
}

NUMAFIT_EXPORT int numafit_host_get_cell_id(const numafit_host_t *h, unsigned index) {
    if (!h)
        return -EINVAL;
    if (index >= h->ncells)
        return -ENOENT;
    return h->cells[index].id;
}

static bool cell_equal(const struct numafit__cell *a, const struct numafit__cell *b, unsigned nw) {
    if (a->id != b->id || a->socket != b->socket || a->memory != b->memory ||
        a->cpu_usage != b->cpu_usage || a->memory_usage != b->memory_usage)
        return false;
    if (!numafit__bits_equal(a->cpuset, b->cpuset, nw) ||
        !numafit__bits_equal(a->pcpuset, b->pcpuset, nw) ||
        !numafit__bits_equal(a->pinned, b->pinned, nw))
        return false;
    if (a->nsib != b->nsib)
        return false;
    if (a->nsib && (memcmp(a->sib_off, b->sib_off, (a->nsib + 1) * sizeof(uint32_t)) ||
                    memcmp(a->sib_cpu, b->sib_cpu, a->sib_off[a->nsib] * sizeof(uint16_t))))
        return false;
    if (a->npages != b->npages ||
        (a->npages && memcmp(a->pages, b->pages, a->npages * sizeof(*a->pages))))
        return false;
    if (a->has_netmeta != b->has_netmeta || a->tunneled != b->tunneled ||
        a->nphysnets != b->nphysnets)
        return false;
    for (uint32_t k = 0; k < a->nphysnets; k++)
        if (strcmp(a->physnets[k], b->physnets[k]))
            return false;
    return true;
}

NUMAFIT_EXPORT int numafit_host_equal(const numafit_host_t *a, const numafit_host_t *b) {
    if (!a || !b)
        return -EINVAL;
    if (a->ncells != b->ncells)
        return 0;
    if (!a->distance != !b->distance ||
        (a->distance &&
         memcmp(a->distance, b->distance, (size_t)a->ncells * a->ncells * sizeof(uint32_t))))
        return 0;
    /* compare bitmaps over the common width, the rest must be empty */
    unsigned nw = a->nw < b->nw ? a->nw : b->nw;
    for (uint32_t i = 0; i < a->ncells; i++) {
        const struct numafit__cell *ca = &a->cells[i], *cb = &b->cells[i];
        if (!cell_equal(ca, cb, nw))
            return 0;
        const numafit_host_t *wide = a->nw > b->nw ? a : b;
        const struct numafit__cell *cw = &wide->cells[i];
        if (!numafit__bits_empty(cw->cpuset + nw, wide->nw - nw) ||
            !numafit__bits_empty(cw->pcpuset + nw, wide->nw - nw) ||
            !numafit__bits_empty(cw->pinned + nw, wide->nw - nw))
            return 0;
    }
    return 1;
}

NUMAFIT_EXPORT int numafit_host_get_memory_size(const numafit_host_t *h, size_t *ret) {
    size_t n;
    if (!h || !ret)
        return -EINVAL;
    n = sizeof(*h) + (size_t)h->ncells * sizeof(*h->cells) +
        (size_t)h->ncells * 3 * h->nw * sizeof(uint64_t);
    if (h->distance)
        n += (size_t)h->ncells * h->ncells * sizeof(uint32_t);
    for (uint32_t i = 0; i < h->ncells; i++) {
        const struct numafit__cell *c = &h->cells[i];
        if (c->nsib)
            n += NUMAFIT__SIB_OFF_LEN(c->nsib) * sizeof(uint32_t) +
                 c->sib_off[c->nsib] * sizeof(uint16_t);
        n += c->npages * sizeof(*c->pages);
        n += c->nphysnets * sizeof(char *);
        for (uint32_t k = 0; k < c->nphysnets; k++)
            n += strlen(c->physnets[k]) + 1;
    }
    *ret = n;
    return 0;
}

/* ------------------------------------------------------------ invariants */

bool numafit__utf8_ok(const char *str, size_t n) {
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < n) {
        unsigned char b = s[i];
        uint32_t cp;
        size_t len;
        if (b == 0)
            return false;
        if (b < 0x80) {
            i++;
            continue;
        }
        if (b >= 0xc2 && b <= 0xdf) {
            len = 2;
            cp = b & 0x1f;
        } else if (b >= 0xe0 && b <= 0xef) {
            len = 3;
            cp = b & 0x0f;
        } else if (b >= 0xf0 && b <= 0xf4) {
            len = 4;
            cp = b & 0x07;
        } else {
            return false;
        }
        if (n - i < len)
            return false;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return false;
            cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += len;
    }
    return true;
}

#define BAD(rc, code, ...)                                                                         \
    do {                                                                                           \
        numafit__error_set(err, code, c->id, "", NULL, __VA_ARGS__);                               \
        return rc;                                                                                 \
    } while (0)

static int check_pages(const struct numafit__cell *c, numafit_error_t *err) {
    if (c->npages > NUMAFIT__PAGES_MAX)
        BAD(-ERANGE, NUMAFIT_E_RANGE, "cell %d: too many page sizes (%u)", c->id, c->npages);
    for (uint32_t k = 0; k < c->npages; k++) {
        const struct numafit__pages *pg = &c->pages[k];
        uint64_t max;
        if (pg->size_kb < 4 || pg->size_kb > NUMAFIT__PAGE_SIZE_MAX ||
            (pg->size_kb & (pg->size_kb - 1)))
            BAD(-ERANGE, NUMAFIT_E_RANGE,
                "cell %d: mempages: page size %llu KiB is not a power of two in 4..%llu", c->id,
                (unsigned long long)pg->size_kb, (unsigned long long)NUMAFIT__PAGE_SIZE_MAX);
        for (uint32_t q = 0; q < k; q++)
            if (c->pages[q].size_kb == pg->size_kb)
                BAD(-EINVAL, NUMAFIT_E_SCHEMA, "cell %d: mempages: page size %llu KiB listed twice",
                    c->id, (unsigned long long)pg->size_kb);
        max = NUMAFIT__PAGE_KB_MAX / pg->size_kb;
        if (pg->total > max || pg->used > max || pg->reserved > max)
            BAD(-ERANGE, NUMAFIT_E_RANGE,
                "cell %d: mempages: %llu KiB pages: counts above %llu (total %llu, used %llu, "
                "reserved %llu)",
                c->id, (unsigned long long)pg->size_kb, (unsigned long long)max,
                (unsigned long long)pg->total, (unsigned long long)pg->used,
                (unsigned long long)pg->reserved);
    }
    return 0;
}

static int check_cpus(const numafit_host_t *h, const struct numafit__cell *c, unsigned flags,
                      uint64_t *seen, numafit_error_t *err) {
    int k;
    if (numafit__bits_intersects(c->cpuset, c->pcpuset, h->nw) &&
        !numafit__bits_equal(c->cpuset, c->pcpuset, h->nw) && !(flags & NUMAFIT_HOST_ALLOW_OVERLAP))
        BAD(-EINVAL, NUMAFIT_E_SCHEMA, "cell %d: cpuset and pcpuset overlap without being equal",
            c->id);
    if (!numafit__bits_subset(c->pinned, c->pcpuset, h->nw))
        BAD(-EINVAL, NUMAFIT_E_SCHEMA, "cell %d: pinned_cpus: a pinned CPU is not in pcpuset",
            c->id);
    for (uint32_t w = 0; w < h->nw; w++) {
        uint64_t mine = c->cpuset[w] | c->pcpuset[w];
        if (mine & seen[w])
            BAD(-EINVAL, NUMAFIT_E_SCHEMA, "cell %d: CPU %u belongs to more than one cell", c->id,
                w * 64 + (unsigned)__builtin_ctzll(mine & seen[w]));
        seen[w] |= mine;
    }
    k = numafit__bits_last(c->cpuset, h->nw);
    if (k > NUMAFIT_CPU_MAX || numafit__bits_last(c->pcpuset, h->nw) > NUMAFIT_CPU_MAX)
        BAD(-ERANGE, NUMAFIT_E_RANGE, "cell %d: a CPU id is above %d", c->id, NUMAFIT_CPU_MAX);
    for (uint32_t s = 0; s < c->nsib; s++)
        for (uint32_t i = c->sib_off[s]; i < c->sib_off[s + 1]; i++) {
            if (c->sib_cpu[i] >= h->nw * 64u || c->sib_cpu[i] > NUMAFIT_CPU_MAX)
                BAD(-ERANGE, NUMAFIT_E_RANGE, "cell %d: siblings: CPU %u is out of range", c->id,
                    c->sib_cpu[i]);
            if (i > c->sib_off[s] && c->sib_cpu[i] <= c->sib_cpu[i - 1])
                BAD(-EINVAL, NUMAFIT_E_SCHEMA,
                    "cell %d: siblings: set %u is not a strictly ascending set", c->id, s);
        }
    return 0;
}

static int check_cell(const numafit_host_t *h, uint32_t i, unsigned flags, uint64_t *seen,
                      numafit_error_t *err) {
    const struct numafit__cell *c = &h->cells[i];
    int rc;
    if (c->id < 0 || c->id > NUMAFIT_CELL_ID_MAX)
        BAD(-ERANGE, NUMAFIT_E_RANGE, "cell id %d is outside 0..%d", c->id, NUMAFIT_CELL_ID_MAX);
    for (uint32_t k = 0; k < i; k++)
        if (h->cells[k].id == c->id)
            BAD(-EINVAL, NUMAFIT_E_SCHEMA, "duplicate cell id %d", c->id);
    if (c->socket < -1 || c->socket > NUMAFIT__SOCKET_MAX)
        BAD(-ERANGE, NUMAFIT_E_RANGE, "cell %d: socket %d is outside 0..%d", c->id, c->socket,
            NUMAFIT__SOCKET_MAX);
    if (c->memory > NUMAFIT_MEMORY_MB_MAX || c->memory_usage > NUMAFIT_MEMORY_MB_MAX)
        BAD(-ERANGE, NUMAFIT_E_RANGE, "cell %d: memory or memory_usage above %llu MiB", c->id,
            (unsigned long long)NUMAFIT_MEMORY_MB_MAX);
    if (c->cpu_usage > NUMAFIT__CPU_USAGE_MAX)
        BAD(-ERANGE, NUMAFIT_E_RANGE, "cell %d: cpu_usage above %d", c->id, NUMAFIT__CPU_USAGE_MAX);
    if ((rc = check_cpus(h, c, flags, seen, err)) < 0 || (rc = check_pages(c, err)) < 0)
        return rc;
    for (uint32_t k = 0; k < c->nphysnets; k++) {
        const char *pn = c->physnets[k];
        size_t n = strlen(pn);
        if (n > NUMAFIT__PHYSNET_MAX || !numafit__utf8_ok(pn, n))
            BAD(-EINVAL, NUMAFIT_E_SCHEMA,
                "cell %d: physnet %u is not valid UTF-8 of at most %d bytes", c->id, k,
                NUMAFIT__PHYSNET_MAX);
        if (k && strcmp(c->physnets[k - 1], pn) >= 0)
            BAD(-EINVAL, NUMAFIT_E_SCHEMA, "cell %d: physnets are not a sorted set", c->id);
    }
    return 0;
}

#undef BAD

int numafit__host_check(const numafit_host_t *h, unsigned flags, numafit_error_t *err) {
    uint64_t seen[NUMAFIT__CPU_WORDS];
    if (h->ncells > NUMAFIT_MAX_CELLS || h->nw == 0 || h->nw > NUMAFIT__CPU_WORDS) {
        numafit__error_set(err, NUMAFIT_E_RANGE, -1, "", NULL, "%u cells exceed the limit %d",
                           h->ncells, NUMAFIT_MAX_CELLS);
        return -ERANGE;
    }
    memset(seen, 0, h->nw * sizeof(uint64_t));
    for (uint32_t i = 0; i < h->ncells; i++) {
        int rc = check_cell(h, i, flags, seen, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int numafit__host_finish(numafit_host_t *h, unsigned flags, numafit_error_t *err) {
    int rc = numafit__host_check(h, flags, err);
    if (rc == 0)
        numafit__host_derive(h);
    return rc;
}

/* ------------------------------------------------------------ set rules */

static int cmp_u16(const void *a, const void *b) {
    uint16_t x = *(const uint16_t *)a, y = *(const uint16_t *)b;
    return (x > y) - (x < y);
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

uint32_t numafit__sib_set_normalize(uint16_t *cpus, uint32_t start, uint32_t end) {
    uint32_t w = start;
    if (end - start > 1)
        qsort(cpus + start, end - start, sizeof(uint16_t), cmp_u16);
    for (uint32_t k = start; k < end; k++)
        if (k == start || cpus[k] != cpus[w - 1])
            cpus[w++] = cpus[k];
    return w;
}

uint32_t numafit__names_normalize(char **names, uint32_t n) {
    uint32_t w = 0;
    if (n > 1)
        qsort(names, n, sizeof(char *), cmp_str);
    for (uint32_t k = 0; k < n; k++) {
        if (w && !strcmp(names[k], names[w - 1]))
            numafit__free(names[k]);
        else
            names[w++] = names[k];
    }
    return w;
}
