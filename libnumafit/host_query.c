/*
 * Read-only queries on a host's cells: counts, pages, CPU sets, sibling sets.
 * They serve capacity reports (numafit plan) and bindings without a JSON
 * round trip.
 */
#include "config.h"

#include <string.h>

#include "private.h"

static const struct numafit__cell *cell_at(const numafit_host_t *h, unsigned index) {
    return index < h->ncells ? &h->cells[index] : NULL;
}

/* Core counts: cores with a dedicated CPU, all free, partly pinned, the free
 * dedicated CPUs of partly pinned cores and the largest sibling set. */
struct corecount {
    uint64_t cores, free, partial, partial_free, tpc;
};

static void count_cores(const numafit_host_t *h, const struct numafit__cell *c,
                        struct corecount *cc) {
    memset(cc, 0, sizeof(*cc));
    if (!c->nsib) {
        uint64_t pc = numafit__bits_count(c->pcpuset, h->nw);
        cc->cores = pc;
        for (uint32_t w = 0; w < h->nw; w++)
            cc->free += numafit__popcount64(c->pcpuset[w] & ~c->pinned[w]);
        cc->tpc = 1;
        return;
    }
    for (uint32_t s = 0; s < c->nsib; s++) {
        uint32_t ded = 0, fr = 0, len = c->sib_off[s + 1] - c->sib_off[s];
        if (len > cc->tpc)
            cc->tpc = len;
        for (uint32_t i = c->sib_off[s]; i < c->sib_off[s + 1]; i++) {
            unsigned cpu = c->sib_cpu[i];
            if (!numafit__bit_test(c->pcpuset, cpu))
                continue;
            ded++;
            fr += !numafit__bit_test(c->pinned, cpu);
        }
        if (!ded)
            continue;
        cc->cores++;
        if (fr == ded)
            cc->free++;
        else if (fr) {
            cc->partial++;
            cc->partial_free += fr;
        }
    }
    if (!cc->tpc)
        cc->tpc = 1;
}

NUMAFIT_EXPORT int numafit_host_get_cell_stat(const numafit_host_t *h, unsigned index, int stat,
                                              unsigned flags, uint64_t *ret) {
    const struct numafit__cell *c;
    struct corecount cc;
    uint64_t v = 0;
    if (!h || !ret || flags || stat < 0 || stat >= NUMAFIT_CELL__STAT_MAX)
        return -EINVAL;
    if (!(c = cell_at(h, index)))
        return -ENOENT;
    switch (stat) {
        case NUMAFIT_CELL_SHARED_CPUS:
            v = numafit__bits_count(c->cpuset, h->nw);
            break;
        case NUMAFIT_CELL_DEDICATED_CPUS:
            v = numafit__bits_count(c->pcpuset, h->nw);
            break;
        case NUMAFIT_CELL_PINNED_CPUS:
            v = numafit__bits_count(c->pinned, h->nw);
            break;
        case NUMAFIT_CELL_FREE_PCPUS:
            for (uint32_t w = 0; w < h->nw; w++)
                v += numafit__popcount64(c->pcpuset[w] & ~c->pinned[w]);
            break;
        case NUMAFIT_CELL_CORES:
        case NUMAFIT_CELL_FREE_CORES:
        case NUMAFIT_CELL_PARTIAL_CORES:
        case NUMAFIT_CELL_PARTIAL_FREE_PCPUS:
        case NUMAFIT_CELL_THREADS_PER_CORE:
            count_cores(h, c, &cc);
            v = stat == NUMAFIT_CELL_CORES                ? cc.cores
                : stat == NUMAFIT_CELL_FREE_CORES         ? cc.free
                : stat == NUMAFIT_CELL_PARTIAL_CORES      ? cc.partial
                : stat == NUMAFIT_CELL_PARTIAL_FREE_PCPUS ? cc.partial_free
                                                          : cc.tpc;
            break;
        case NUMAFIT_CELL_CPU_USAGE:
            v = c->cpu_usage;
            break;
        case NUMAFIT_CELL_MEMORY_MB:
            v = c->memory;
            break;
        case NUMAFIT_CELL_MEMORY_USED_MB:
            v = c->memory_usage;
            break;
        case NUMAFIT_CELL_SOCKET:
            if (c->socket < 0)
                return -ENOENT;
            v = (uint64_t)c->socket;
            break;
        case NUMAFIT_CELL_PAGE_SIZES:
            v = c->npages;
            break;
        case NUMAFIT_CELL_SIBLING_SETS:
            v = c->nsib;
            break;
        default:
            return -EINVAL;
    }
    *ret = v;
    return 0;
}

NUMAFIT_EXPORT int numafit_host_get_cell_pages(const numafit_host_t *h, unsigned index,
                                               unsigned page_index, unsigned flags,
                                               uint64_t *size_kb, uint64_t *total, uint64_t *used,
                                               uint64_t *reserved) {
    const struct numafit__cell *c;
    if (!h || flags)
        return -EINVAL;
    if (!(c = cell_at(h, index)) || page_index >= c->npages)
        return -ENOENT;
    const struct numafit__pages *pg = &c->pages[page_index];
    if (size_kb)
        *size_kb = pg->size_kb;
    if (total)
        *total = pg->total;
    if (used)
        *used = pg->used;
    if (reserved)
        *reserved = pg->reserved;
    return 0;
}

/* A new cpuset holding the first nw words of bits (the host's width never
 * exceeds a cpuset's). */
static int set_from_bits(const uint64_t *bits, uint32_t nw, numafit_cpuset_t **ret) {
    numafit_cpuset_t *s;
    int rc = numafit_cpuset_new(&s);
    if (rc < 0)
        return rc;
    memcpy(s->w, bits, nw * sizeof(uint64_t));
    *ret = s;
    return 0;
}

NUMAFIT_EXPORT int numafit_host_get_cell_cpus(const numafit_host_t *h, unsigned index, int which,
                                              unsigned flags, numafit_cpuset_t **ret) {
    const struct numafit__cell *c;
    uint64_t tmp[NUMAFIT__CPU_WORDS];
    if (!h || !ret || flags || h->nw > NUMAFIT__CPU_WORDS)
        return -EINVAL;
    if (!(c = cell_at(h, index)))
        return -ENOENT;
    switch (which) {
        case NUMAFIT_CELL_CPUS_SHARED:
            return set_from_bits(c->cpuset, h->nw, ret);
        case NUMAFIT_CELL_CPUS_DEDICATED:
            return set_from_bits(c->pcpuset, h->nw, ret);
        case NUMAFIT_CELL_CPUS_PINNED:
            return set_from_bits(c->pinned, h->nw, ret);
        case NUMAFIT_CELL_CPUS_FREE:
            for (uint32_t w = 0; w < h->nw; w++)
                tmp[w] = c->pcpuset[w] & ~c->pinned[w];
            return set_from_bits(tmp, h->nw, ret);
        default:
            return -EINVAL;
    }
}

NUMAFIT_EXPORT int numafit_host_get_cell_siblings(const numafit_host_t *h, unsigned index,
                                                  unsigned sib, unsigned flags,
                                                  numafit_cpuset_t **ret) {
    const struct numafit__cell *c;
    numafit_cpuset_t *s;
    int rc;
    if (!h || !ret || flags)
        return -EINVAL;
    if (!(c = cell_at(h, index)) || sib >= c->nsib)
        return -ENOENT;
    if ((rc = numafit_cpuset_new(&s)) < 0)
        return rc;
    for (uint32_t i = c->sib_off[sib]; i < c->sib_off[sib + 1]; i++)
        numafit__bit_set(s->w, c->sib_cpu[i]);
    *ret = s;
    return 0;
}
