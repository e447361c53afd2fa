/*
 * Claims and releases: nova's numa_usage_from_instance_numa and its inverse.
 * All or nothing: the new usage is computed on a scratch copy of the mutable
 * state of the host cells the placement names and written back only when
 * every cell succeeded. A claim costs the cells it names (their CPU bitmaps
 * and page counts) and a lookup of each among the host cells, never a pass
 * over the whole host.
 *
 * Differences from nova (doc/nova-differences.md):
 *  - a placement cell naming a host cell the host does not have is refused
 *    (nova silently ignores it);
 *  - a host cell without mempages gets no page accounting (nova raises
 *    IndexError in _get_smallest_pagesize);
 *  - "with siblings" pinning (isolate) always includes the CPUs themselves,
 *    also when a CPU is in no sibling set (nova would then pin nothing).
 *    As in nova, it adds the sets that hold one of the placement's CPUs,
 *    not the sets that only touch a sibling so added.
 */
#include "config.h"

#include <string.h>

#include "private.h"

/* The mutable state of the host cells a placement names, in slots: one per
 * distinct host cell (a placement naming one host cell twice accumulates
 * both in its slot), so that a claim costs the cells it touches, not the
 * host. */
struct scratch {
    uint32_t nslot;
    int32_t *slot;        /* per placement cell: its slot, -1: no such host cell */
    uint32_t *ci;         /* per slot: the host cell index */
    uint64_t *pinned;     /* nslot * nw */
    int64_t *mem_usage;   /* nslot, signed arithmetic */
    int64_t *cpu_use;     /* nslot */
    uint64_t *pages_used; /* per slot, per page entry (offsets in page_off) */
    uint32_t *page_off;   /* nslot */
    uint64_t *set;        /* nw words: the CPUs of one placement cell */
    uint64_t *cpus;       /* nw words: its pinned CPUs alone, before siblings */
};

static void scratch_free(struct scratch *s) {
    numafit__free(s->slot);
    numafit__free(s->ci);
    numafit__free(s->pinned);
    numafit__free(s->mem_usage);
    numafit__free(s->cpu_use);
    numafit__free(s->pages_used);
    numafit__free(s->page_off);
    numafit__free(s->set);
    numafit__free(s->cpus);
}

static int scratch_init(struct scratch *s, const numafit_host_t *h, const numafit_placement_t *p) {
    uint32_t np = 0, n = p->ncells;
    memset(s, 0, sizeof(*s));
    s->slot = numafit__calloc(n + 1, sizeof(int32_t));
    s->ci = numafit__calloc(n + 1, sizeof(uint32_t));
    if (!s->slot || !s->ci)
        goto nomem;
    for (uint32_t g = 0; g < n; g++) {
        int ci = numafit__host_cell_index(h, p->cells[g].host_id);
        s->slot[g] = -1;
        if (ci < 0)
            continue;
        for (uint32_t k = 0; k < s->nslot && s->slot[g] < 0; k++)
            if (s->ci[k] == (uint32_t)ci)
                s->slot[g] = (int32_t)k;
        if (s->slot[g] < 0) {
            s->slot[g] = (int32_t)s->nslot;
            s->ci[s->nslot++] = (uint32_t)ci;
            np += h->cells[ci].npages;
        }
    }
    s->pinned = numafit__calloc((size_t)s->nslot * h->nw + 1, sizeof(uint64_t));
    s->mem_usage = numafit__calloc(s->nslot + 1, sizeof(int64_t));
    s->cpu_use = numafit__calloc(s->nslot + 1, sizeof(int64_t));
    s->pages_used = numafit__calloc(np + 1, sizeof(uint64_t));
    s->page_off = numafit__calloc(s->nslot + 1, sizeof(uint32_t));
    s->set = numafit__calloc(h->nw + 1, sizeof(uint64_t));
    s->cpus = numafit__calloc(h->nw + 1, sizeof(uint64_t));
    if (!s->pinned || !s->mem_usage || !s->cpu_use || !s->pages_used || !s->page_off || !s->set ||
        !s->cpus)
        goto nomem;
    np = 0;
    for (uint32_t k = 0; k < s->nslot; k++) {
        const struct numafit__cell *c = &h->cells[s->ci[k]];
        memcpy(s->pinned + (size_t)k * h->nw, c->pinned, h->nw * sizeof(uint64_t));
        s->mem_usage[k] = (int64_t)c->memory_usage;
        s->cpu_use[k] = (int64_t)c->cpu_usage;
        s->page_off[k] = np;
        for (uint32_t j = 0; j < c->npages; j++)
            s->pages_used[np + j] = c->pages[j].used;
        np += c->npages;
    }
    return 0;
nomem:
    scratch_free(s);
    return -ENOMEM;
}

/* Write the slots back and re-derive their cells. */
static void scratch_commit(const struct scratch *s, numafit_host_t *h) {
    for (uint32_t k = 0; k < s->nslot; k++) {
        struct numafit__cell *c = &h->cells[s->ci[k]];
        memcpy(c->pinned, s->pinned + (size_t)k * h->nw, h->nw * sizeof(uint64_t));
        c->memory_usage = s->mem_usage[k] > 0 ? (uint64_t)s->mem_usage[k] : 0;
        c->cpu_usage = s->cpu_use[k] > 0 ? (uint64_t)s->cpu_use[k] : 0;
        for (uint32_t j = 0; j < c->npages; j++)
            c->pages[j].used = s->pages_used[s->page_off[k] + j];
        numafit__cell_derive(h, s->ci[k]);
    }
}

/* nova's _numa_pagesize_usage_from_cell on the scratch copy. */
static void pages_usage(struct scratch *s, const struct numafit__cell *c, uint32_t k0,
                        const struct numafit__pcell *pc, int sign) {
    uint64_t size;
    if (!c->npages)
        return;
    if (pc->pagesize > 0) {
        size = (uint64_t)pc->pagesize;
    } else {
        size = c->pages[0].size_kb;
        for (uint32_t k = 1; k < c->npages; k++)
            if (c->pages[k].size_kb < size)
                size = c->pages[k].size_kb;
    }
    /* whole pages: a part of a page counts as a page, on the claim and on
     * the release alike, so that a release gives back what the claim took.
     * nova adds memory / size and truncates the sum; the two agree whenever
     * the memory is a whole number of pages, which placements with a page
     * size always are (placement.c) and the smallest page (4 KiB, or any
     * base page up to 1 MiB) always is. */
    uint64_t pages = (pc->memory * 1024 + size - 1) / size;
    for (uint32_t k = 0; k < c->npages; k++) {
        uint64_t *used = &s->pages_used[s->page_off[k0] + k];
        if (c->pages[k].size_kb != size)
            continue;
        if (sign > 0)
            *used = *used > UINT64_MAX - pages ? UINT64_MAX : *used + pages;
        else
            *used = *used > pages ? *used - pages : 0; /* floored at 0 as nova */
    }
}

static int pin_conflict(numafit_error_t *err, const struct numafit__cell *c, const char *exc,
                        const char *what, int rc) {
    numafit__error_set(err, NUMAFIT_E_PINNING, c->id, "", exc, "%s on host cell %d", what, c->id);
    return rc;
}

/* The claimed counters of the cells p touches stay in the host's ranges. */
static int check_ranges(const numafit_host_t *h, const struct scratch *s, numafit_error_t *err) {
    for (uint32_t k = 0; k < s->nslot; k++) {
        const struct numafit__cell *c = &h->cells[s->ci[k]];
        bool ok = numafit__usage_in_range((uint64_t)s->mem_usage[k], (uint64_t)s->cpu_use[k], 0, 0);
        for (uint32_t j = 0; ok && j < c->npages; j++)
            ok = numafit__usage_in_range(0, 0, s->pages_used[s->page_off[k] + j],
                                         c->pages[j].size_kb);
        if (!ok) {
            numafit__error_set(err, NUMAFIT_E_RANGE, c->id, "", NULL,
                               "host cell %d: the claim would take the cell's usage counters "
                               "out of range",
                               c->id);
            return -ERANGE;
        }
    }
    return 0;
}

static int apply(numafit_host_t *h, const numafit_placement_t *p, int sign, numafit_error_t *err) {
    struct scratch s;
    int rc = scratch_init(&s, h, p);
    if (rc < 0) {
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
        return rc;
    }
    for (uint32_t g = 0; g < p->ncells; g++) {
        const struct numafit__pcell *pc = &p->cells[g];
        int sl = s.slot[g];
        const struct numafit__cell *c;
        uint64_t *pinned;
        if (sl < 0) {
            numafit__error_set(err, NUMAFIT_E_SCHEMA, pc->host_id, "", NULL,
                               "the placement names host cell %d, which the host does not have",
                               pc->host_id);
            rc = -ENOENT;
            goto out;
        }
        c = &h->cells[s.ci[sl]];
        pinned = s.pinned + (size_t)sl * h->nw;
        pages_usage(&s, c, (uint32_t)sl, pc, sign);
        s.mem_usage[sl] += sign * (int64_t)pc->memory;
        s.cpu_use[sl] += sign * (int64_t)numafit__bits_count(pc->cpuset, p->nw);
        if (pc->cpu_policy != NUMAFIT_CPU_POLICY_DEDICATED &&
            pc->cpu_policy != NUMAFIT_CPU_POLICY_MIXED)
            continue;
        memset(s.set, 0, h->nw * sizeof(uint64_t));
        for (uint32_t j = 0; j < pc->npin + pc->nreserved; j++) {
            uint32_t cpu = j < pc->npin ? pc->pin_pcpu[j] : pc->reserved[j - pc->npin];
            if (cpu >= h->nw * 64u || !numafit__bit_test(c->pcpuset, cpu)) {
                rc = pin_conflict(err, c, sign > 0 ? "CPUPinningUnknown" : "CPUUnpinningUnknown",
                                  "a pinned CPU is not a dedicated CPU", -ENOENT);
                goto out;
            }
            numafit__bit_set(s.set, cpu);
        }
        if (pc->thread_policy == NUMAFIT_THREAD_POLICY_ISOLATE) {
            /* whole cores: add every sibling set that holds one of the
             * placement's own CPUs (nova's pin_cpus_with_siblings; a set
             * touching only a sibling added here is not added: no closure) */
            memcpy(s.cpus, s.set, h->nw * sizeof(uint64_t));
            for (uint32_t k = 0; k < c->nsib; k++) {
                bool touch = false;
                for (uint32_t t = c->sib_off[k]; t < c->sib_off[k + 1] && !touch; t++)
                    touch = c->sib_cpu[t] < h->nw * 64u && numafit__bit_test(s.cpus, c->sib_cpu[t]);
                if (!touch)
                    continue;
                for (uint32_t t = c->sib_off[k]; t < c->sib_off[k + 1]; t++) {
                    if (c->sib_cpu[t] >= h->nw * 64u ||
                        !numafit__bit_test(c->pcpuset, c->sib_cpu[t])) {
                        rc = pin_conflict(err, c,
                                          sign > 0 ? "CPUPinningUnknown" : "CPUUnpinningUnknown",
                                          "a thread sibling is not a dedicated CPU", -ENOENT);
                        goto out;
                    }
                    numafit__bit_set(s.set, c->sib_cpu[t]);
                }
            }
        }
        if (sign > 0) {
            if (numafit__bits_intersects(pinned, s.set, h->nw)) {
                rc = pin_conflict(err, c, "CPUPinningInvalid", "a CPU is already pinned", -EBUSY);
                goto out;
            }
            for (uint32_t w = 0; w < h->nw; w++)
                pinned[w] |= s.set[w];
        } else {
            if (!numafit__bits_subset(s.set, pinned, h->nw)) {
                rc = pin_conflict(err, c, "CPUUnpinningInvalid", "a CPU to unpin is not pinned",
                                  -EBUSY);
                goto out;
            }
            for (uint32_t w = 0; w < h->nw; w++)
                pinned[w] &= ~s.set[w];
        }
    }
    if (sign > 0 && (rc = check_ranges(h, &s, err)) < 0)
        goto out;
    scratch_commit(&s, h);
    rc = 0;
out:
    scratch_free(&s);
    return rc;
}

NUMAFIT_EXPORT int numafit_host_claim(numafit_host_t *h, const numafit_placement_t *p,
                                      unsigned flags, numafit_error_t *err) {
    numafit__error_clear(err);
    if (!h || !p || flags)
        return -EINVAL;
    return apply(h, p, 1, err);
}

NUMAFIT_EXPORT int numafit_host_release(numafit_host_t *h, const numafit_placement_t *p,
                                        unsigned flags, numafit_error_t *err) {
    numafit__error_clear(err);
    if (!h || !p || flags)
        return -EINVAL;
    return apply(h, p, -1, err);
}
