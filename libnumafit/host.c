/* The host model: allocation, copies, comparison, accessors. */
#include "config.h"

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
