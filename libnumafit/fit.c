/*
 * The fit: nova's numa_fit_instance_to_host / _numa_fit_instance_cell /
 * _pack_instance_onto_cores rules, without nova's defects (nova-reference A):
 *
 *  - a (host cell, guest cell) check is a pure function of the pair: it is
 *    evaluated on the unmodified request, at most once per fit, and memoised
 *    by the pair only (nova keys its cache on an id it mutates);
 *  - the request is never modified (nova overwrites the requested page size);
 *  - instead of walking every permutation of host cells, the first
 *    permutation in nova's order is built guest cell by guest cell, pruned by
 *    a bipartite-matching test (can the remaining guest cells still be matched
 *    to the remaining host cells?), so without whole-placement constraints
 *    the search is polynomial; the network check is applied on complete
 *    assignments, with a coverage prune, under a work budget;
 *  - the PCI check (nova's support_requests on the chosen host cells)
 *    depends only on which cells with devices are chosen (and, for the
 *    socket policy, which sockets): when nova's first placement fails it,
 *    each such choice that passes is searched as a coverage constraint, and
 *    the first placement in nova's order among them is the answer
 *    (pci_search); a choice of cells on which some request could not find
 *    its count even alone (numafit__pci_bound) is refused without a walk
 *    or a cell check, and the refusal words the first walk's failure.
 *
 * Within a physical core (a sibling set) the lowest-numbered free threads are
 * used first; nova picks them by Python set order, which is no specification.
 *
 * Deliberate differences, documented in doc/nova-differences.md:
 *  - a host cell without sibling information (siblings == []) is treated as
 *    one core per dedicated CPU; nova raises ValueError (max() of an empty
 *    list) in _pack_instance_onto_cores.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "pci_internal.h"
#include "private.h"

#define MEMO_UNKNOWN 0
#define MEMO_FITS    255

/* A cell check's outcome. */
struct cellres {
    int reason;         /* 0 fits, else NUMAFIT_E_NOFIT_* */
    int64_t pagesize;   /* chosen page size, 0 for none */
    uint32_t npin;      /* pins written to ctx->pin */
    uint32_t nreserved; /* emulator pCPUs, in ctx->pin after the pins */
};

struct fitctx {
    const numafit_host_t *h;
    const numafit_request_t *r;
    int profile;
    bool has_limits;
    double cpu_ratio, ram_ratio;
    bool zed;
    uint64_t budget; /* 0: unlimited */
    uint64_t steps;
    bool bestfit; /* headroom: prefer policy pins the fullest cores first */
    bool over_budget;

    uint32_t n, k;    /* host cells, guest cells */
    uint32_t *order;  /* host cell index at sorted position p */
    uint8_t *memo;    /* [p * k + g] */
    char (*why)[160]; /* optional per-pair text, [p * k + g] (explain) */

    /* scratch for the pack */
    uint32_t *fcnt;   /* free threads per singleton (cells without sibling information) */
    uint16_t *single; /* singleton siblings for cells without sibling info */
    uint32_t *single_off;
    uint32_t *pin; /* pCPU per dedicated vCPU (ascending vCPU order) */
    uint32_t pin_cap;
    uint64_t *taken;    /* host->nw words: pCPUs used by the pinning being built */
    uint64_t *freebits; /* host->nw words: free dedicated CPUs of the cell being packed */
    uint32_t *gcount;   /* per guest cell: dedicated, shared vCPU counts */
    /* the last cell check, whose pinning is still in pin[] */
    bool last_valid;
    uint32_t last_p, last_g;
    struct cellres last;

    /* search state */
    uint32_t *assign;      /* host position per guest cell */
    const uint32_t *bound; /* search(tight): the best assignment so far */
    uint8_t *used;         /* per host position */
    int32_t *match_h;      /* matching: guest per host position or -1 */
    uint8_t *seen;
    /* network coverage */
    bool net;
    uint64_t net_all;
    uint64_t *net_mask; /* per host position */
    uint32_t net_groups;
    uint8_t *mincover; /* [S]: fewest host cells covering groups S, or NULL */
    /* PCI (options' pools and requests) */
    const numafit_pci_pools_t *pools;
    const numafit_pci_requests_t *reqs;
    bool pci_sort, pci_requested, pci_check;
    uint8_t *pci_cell;           /* per host position: some pool is on the cell */
    int64_t *pci_devs;           /* per host cell (index): the devices of its pools */
    uint8_t *pci_any;            /* per host cell (index): some pool is on it */
    uint64_t *net_base;          /* per host position: the network groups alone */
    void *pci_scratch;           /* numafit__pci_scratch_size() bytes */
    uint8_t *pci_prep;           /* numafit__pci_prepare()'s table, in pci_scratch */
    bool pci_prepped;            /* pci_prep is filled (at the first check: a fit whose
                                    cells do not fit never reads it) */
    int64_t *pci_cap;            /* numafit__pci_caps() once nova's first choice failed, or NULL */
    numafit_pci_check_fn pci_fn; /* the caller's check, NULL: the library's */
    void *pci_ctx;
    int pci_rc;              /* the caller's check failed with this (< 0) */
    numafit_error_t pci_why; /* why nova's first placement fails the requests */

    void *heap; /* the scratch block when it did not fit the caller's stack buffer */
};

/* Scratch for one fit comes from the caller's stack buffer when it is large
 * enough (every fit of an ordinary host), else from one heap block: no
 * allocation happens inside the search. */
#define FIT_STACK_WORDS 1024
#define PCI_CAP_STACK   256 /* words of the PCI bounds kept on the stack */

static bool pinned_policy(int p) {
    return p == NUMAFIT_CPU_POLICY_DEDICATED || p == NUMAFIT_CPU_POLICY_MIXED;
}
static bool shared_policy(int p) {
    return p == NUMAFIT_CPU_POLICY_SHARED || p == NUMAFIT_CPU_POLICY_MIXED ||
           p == NUMAFIT_CPU_POLICY_NONE;
}

/* ------------------------------------------------------------------ memory */

/* Do mem_kib fit in the pages pg (all of them, or the free ones)? nova's
 * NUMACell.can_fit_pagesize for one size: a whole number of pages, no more
 * than there are. */
static bool pages_hold(const struct numafit__pages *pg, uint64_t mem_kib, bool use_free) {
    uint64_t n = pg->total, need;
    if (use_free) {
        uint64_t taken = pg->used + pg->reserved;
        if (taken < pg->used || taken >= n) /* overflow, or nothing free */
            return mem_kib == 0;
        n -= taken;
    }
    if (mem_kib % pg->size_kb)
        return false;
    need = mem_kib / pg->size_kb;
    return need <= n;
}

/* nova's NUMACell.can_fit_pagesize: 1 fits, 0 does not, -1 size unknown. */
static int can_fit_pagesize(const struct numafit__cell *c, uint64_t size_kb, uint64_t mem_kib,
                            bool use_free) {
    for (uint32_t i = 0; i < c->npages; i++)
        if (c->pages[i].size_kb == size_kb)
            return pages_hold(&c->pages[i], mem_kib, use_free);
    return -1;
}

/* nova's _numa_cell_supports_pagesize_request. Returns the size, 0 when
 * nothing fits, -1 when an explicit size is not offered by the cell.
 * Sizes are tried from the largest down (the smallest only for "small",
 * all but the smallest for "large"); page sizes are distinct in a cell
 * (the loaders refuse duplicates), so the order is a strict one. */
static int64_t pick_pagesize(const struct numafit__cell *c, int64_t want, uint64_t mem_kib) {
    uint64_t below = UINT64_MAX, smallest = UINT64_MAX;
    if (want > 0) {
        int f = can_fit_pagesize(c, (uint64_t)want, mem_kib, true);
        return f < 0 ? -1 : f ? want : 0;
    }
    if (!c->npages)
        return 0;
    for (uint32_t i = 0; i < c->npages; i++)
        if (c->pages[i].size_kb < smallest)
            smallest = c->pages[i].size_kb;
    if (want == NUMAFIT_PAGESIZE_SMALL)
        return can_fit_pagesize(c, smallest, mem_kib, true) == 1 ? (int64_t)smallest : 0;
    /* descending walk: the largest size below the previous one, each time */
    for (;;) {
        const struct numafit__pages *best = NULL;
        for (uint32_t i = 0; i < c->npages; i++)
            if (c->pages[i].size_kb < below && (!best || c->pages[i].size_kb > best->size_kb))
                best = &c->pages[i];
        if (!best || (want == NUMAFIT_PAGESIZE_LARGE && best->size_kb == smallest))
            return 0;
        if (pages_hold(best, mem_kib, true))
            return (int64_t)best->size_kb;
        below = best->size_kb;
    }
}

static uint64_t smallest_pagesize(const struct numafit__cell *c) {
    uint64_t s = c->pages[0].size_kb;
    for (uint32_t i = 1; i < c->npages; i++)
        if (c->pages[i].size_kb < s)
            s = c->pages[i].size_kb;
    return s;
}

/* ------------------------------------------------------------------ pack */

/*
 * The sibling sets of the cell being packed, as (count, offsets, cpus), and
 * the free dedicated threads of each set (fcnt). The host keeps the counts
 * for its sibling sets (numafit__host_derive); cells without sibling
 * information get one singleton per dedicated CPU, counted here. The free
 * threads of a set are read on the fly from x->freebits, in set order.
 */
struct sibs {
    uint32_t n;
    const uint32_t *off;
    const uint16_t *cpu;
    const uint32_t *fcnt;
};

static void cell_siblings(struct fitctx *x, const struct numafit__cell *c, struct sibs *sb) {
    if (c->nsib) {
        sb->n = c->nsib;
        sb->off = c->sib_off;
        sb->cpu = c->sib_cpu;
        sb->fcnt = numafit__sib_free(c);
        return;
    }
    uint32_t n = 0;
    for (int b = numafit__bits_next(c->pcpuset, x->h->nw, -1); b >= 0;
         b = numafit__bits_next(c->pcpuset, x->h->nw, b)) {
        x->single_off[n] = n;
        x->fcnt[n] = numafit__bit_test(x->freebits, (unsigned)b);
        x->single[n++] = (uint16_t)b;
    }
    x->single_off[n] = n;
    sb->n = n;
    sb->off = x->single_off;
    sb->cpu = x->single;
    sb->fcnt = x->fcnt;
}

/* The free threads of set s, in order: for (FOR_FREE(x, sb, s, i)) uses
 * sb->cpu[i]. */
#define FOR_FREE(x, sb, s, i)                                                                      \
    uint32_t i = (sb)->off[s];                                                                     \
    i < (sb)->off[(s) + 1]; i++)                                        \
        if (numafit__bit_test((x)->freebits, (sb)->cpu[i])

static bool pinned_by_vcpu(const struct fitctx *x, uint32_t npin, uint32_t cpu) {
    for (uint32_t j = 0; j < npin; j++)
        if (x->pin[j] == cpu)
            return true;
    return false;
}

/* Add cpu to the emulator pCPUs at pin[npin..], unless already there (nova
 * makes a set of the first n threads of its chain). */
static void add_reserved(struct fitctx *x, uint32_t npin, uint32_t *got, uint32_t cpu) {
    for (uint32_t k = 0; k < *got; k++)
        if (x->pin[npin + k] == cpu)
            return;
    x->pin[npin + (*got)++] = cpu;
}

/*
 * Emulator-thread pCPUs (nova's _get_reserved, not isolate): the first nres
 * threads of the chain of free threads of the sibling sets, in order,
 * without the threads the vCPUs got. Written to pin[npin..]; returns how
 * many (nova accepts fewer than asked, as long as there is one).
 */
static uint32_t get_reserved(struct fitctx *x, const struct sibs *sb, uint32_t npin,
                             uint32_t nres) {
    uint32_t got = 0, seen = 0;
    for (uint32_t s = 0; s < sb->n && seen < nres; s++)
        for (FOR_FREE(x, sb, s, i)) {
            if (seen == nres)
                break;
            if (!pinned_by_vcpu(x, npin, sb->cpu[i])) {
                add_reserved(x, npin, &got, sb->cpu[i]);
                seen++;
            }
        }
    return got;
}

/* Append cpu to the pinning unless an overlapping sibling set already gave it. */
static void take(struct fitctx *x, uint32_t *j, uint16_t cpu) {
    if (numafit__bit_test(x->taken, cpu))
        return;
    numafit__bit_set(x->taken, cpu);
    x->pin[(*j)++] = cpu;
}

static bool get_pinning(struct fitctx *x, const struct sibs *sb, uint32_t t, uint32_t minfree,
                        uint32_t n) {
    uint32_t sets = 0, j = 0;
    for (uint32_t s = 0; s < sb->n; s++)
        if (sb->fcnt[s] >= minfree && sb->fcnt[s] >= 1)
            sets++;
    if ((uint64_t)t * sets < n)
        return false;
    memset(x->taken, 0, x->h->nw * sizeof(uint64_t));
    for (uint32_t s = 0; s < sb->n && j < n; s++) {
        uint32_t got = 0;
        if (sb->fcnt[s] < minfree || sb->fcnt[s] < 1)
            continue;
        for (FOR_FREE(x, sb, s, i)) {
            if (got == t || j == n)
                break;
            take(x, &j, sb->cpu[i]);
            got++;
        }
    }
    return j == n;
}

/* The headroom strategy's variant of the prefer policy (not nova's order;
 * any free threads are what nova's rules allow for it): the free threads
 * of the sibling sets with the fewest free threads first (orphan threads
 * before whole cores), set after set in sibling order. */
static bool get_pinning_bestfit(struct fitctx *x, const struct sibs *sb, uint32_t maxfree,
                                uint32_t n) {
    uint32_t j = 0;
    memset(x->taken, 0, x->h->nw * sizeof(uint64_t));
    for (uint32_t c = 1; c <= maxfree && j < n; c++)
        for (uint32_t s = 0; s < sb->n && j < n; s++) {
            if (sb->fcnt[s] != c)
                continue;
            for (FOR_FREE(x, sb, s, i)) {
                if (j == n)
                    break;
                take(x, &j, sb->cpu[i]);
            }
        }
    return j == n;
}

/* Flat fallback: every free thread as its own core, in sibling order. */
static bool get_pinning_flat(struct fitctx *x, const struct sibs *sb, uint32_t n) {
    uint32_t j = 0;
    memset(x->taken, 0, x->h->nw * sizeof(uint64_t));
    for (uint32_t s = 0; s < sb->n && j < n; s++)
        for (FOR_FREE(x, sb, s, i)) {
            if (j == n)
                break;
            take(x, &j, sb->cpu[i]);
        }
    return j == n;
}

/*
 * Isolate consumes whole cores: the claim pins every sibling set that holds
 * a pinned CPU (nova's pin_cpus_with_siblings). A CPU is usable for isolate
 * only if all those sets are entirely free, or the fit would return a
 * placement its own claim refuses (nova does: it takes the emulator pCPU
 * from a partly used core, and with overlapping sibling sets a vCPU too).
 */
static bool closure_free(const struct sibs *sb, bool overlap, uint32_t s, uint16_t t) {
    if (!overlap)
        return sb->fcnt[s] == sb->off[s + 1] - sb->off[s];
    for (uint32_t q = 0; q < sb->n; q++)
        for (uint32_t i = sb->off[q]; i < sb->off[q + 1]; i++)
            if (sb->cpu[i] == t && sb->fcnt[q] != sb->off[q + 1] - sb->off[q])
                return false;
    return true;
}

/*
 * With overlapping sibling sets, the claim pins for a CPU t every set that
 * holds t (its "core"). Two vCPUs of an isolate guest must not share a core,
 * and an emulator pCPU must not share one with a vCPU: a candidate is taken
 * only when its core meets none of the cores already taken (x->taken marks
 * them whole). Without overlap a set is its CPUs' only core, visited once.
 */
/* Does t's core meet bits? With mark, add the core to bits instead. */
static bool core_walk(const struct sibs *sb, uint16_t t, uint64_t *bits, bool mark) {
    for (uint32_t q = 0; q < sb->n; q++) {
        bool holds = false;
        for (uint32_t i = sb->off[q]; i < sb->off[q + 1] && !holds; i++)
            holds = sb->cpu[i] == t;
        for (uint32_t i = sb->off[q]; holds && i < sb->off[q + 1]; i++) {
            if (mark)
                numafit__bit_set(bits, sb->cpu[i]);
            else if (numafit__bit_test(bits, sb->cpu[i]))
                return true;
        }
    }
    return false;
}

/* isolate: the first free thread of each fully free core of full size. */
static bool isolate_pinning(struct fitctx *x, const struct sibs *sb, bool overlap, uint32_t tpc,
                            uint32_t n) {
    uint32_t j = 0;
    memset(x->taken, 0, x->h->nw * sizeof(uint64_t));
    for (uint32_t s = 0; s < sb->n && j < n; s++) {
        if (sb->fcnt[s] < tpc)
            continue;
        for (FOR_FREE(x, sb, s, i)) {
            uint16_t t = sb->cpu[i];
            if (numafit__bit_test(x->taken, t) || !closure_free(sb, overlap, s, t))
                continue;
            if (overlap) {
                if (core_walk(sb, t, x->taken, false))
                    continue;
                core_walk(sb, t, x->taken, true);
                x->pin[j++] = t;
            } else {
                take(x, &j, t);
            }
            break;
        }
    }
    return j == n;
}

/* isolate: the emulator pCPUs, the first nres threads of the sibling sets
 * holding no vCPU (nova's _get_reserved), on cores that are entirely free
 * and share no CPU with a vCPU's core. Returns how many. */
static uint32_t isolate_reserved(struct fitctx *x, const struct sibs *sb, bool overlap,
                                 uint32_t npin, uint32_t nres) {
    uint32_t got = 0, seen = 0;
    for (uint32_t s = 0; s < sb->n && seen < nres; s++) {
        bool has_pinned = false;
        for (FOR_FREE(x, sb, s, i)) {
            if (pinned_by_vcpu(x, npin, sb->cpu[i])) {
                has_pinned = true;
                break;
            }
        }
        if (has_pinned)
            continue;
        for (FOR_FREE(x, sb, s, i)) {
            uint16_t t = sb->cpu[i];
            if (seen == nres)
                break;
            if (!numafit__bit_test(x->taken, t) && closure_free(sb, overlap, s, t) &&
                !(overlap && core_walk(sb, t, x->taken, false))) {
                add_reserved(x, npin, &got, t);
                seen++;
            }
        }
    }
    return got;
}

/* nova's _pack_instance_onto_cores. Returns true when the cell packs. */
static bool pack(struct fitctx *x, const struct numafit__cell *c, uint32_t n, uint32_t nres,
                 struct cellres *res) {
    const uint64_t *pc = c->pcpuset, *pin = c->pinned;
    struct sibs sb;
    uint32_t tpc, maxfree;
    int tp = x->r->thread_policy;
    bool have = false; /* nova's "pinning is not None" */
    bool overlap;
    uint32_t nreserved = 0;

    /* free dedicated CPUs; sibling CPU ids are below the host's width (the
     * loaders guarantee it) */
    for (uint32_t w = 0; w < x->h->nw; w++)
        x->freebits[w] = pc[w] & ~pin[w];
    cell_siblings(x, c, &sb);
    if (c->nsib) {
        tpc = c->tpc;
        maxfree = c->maxfree;
        overlap = c->sib_overlap;
    } else {
        tpc = 1;
        maxfree = c->count[2] ? 1 : 0;
        overlap = false;
    }

    if (tp == NUMAFIT_THREAD_POLICY_ISOLATE) {
        if (maxfree < tpc)
            return false; /* no fully free core */
        if (tpc != 1 && !numafit__bits_equal(c->pcpuset, c->cpuset, x->h->nw))
            return false; /* bug #1889633: isolate needs a non-HT host */
        if (!isolate_pinning(x, &sb, overlap, tpc, n))
            return false;
        if (nres)
            nreserved = isolate_reserved(x, &sb, overlap, n, nres);
        /* nova: "if not pinning" here in every release */
        if (n == 0 || (nres && !nreserved))
            return false;
    } else {
        bool require = tp == NUMAFIT_THREAD_POLICY_REQUIRE;
        if (require && tpc <= 1)
            return false;
        if (x->bestfit && !require && n) {
            have = get_pinning_bestfit(x, &sb, maxfree, n);
            nreserved = have && nres ? get_reserved(x, &sb, n, nres) : 0;
            if (have && (!nres || nreserved)) {
                res->npin = n;
                res->nreserved = nres ? nreserved : 0;
                return true;
            }
        }
        for (uint32_t t = maxfree; t >= 1; t--) {
            if (require && t <= 1)
                continue;
            have = get_pinning(x, &sb, t, t, n);
            nreserved = have && n && nres ? get_reserved(x, &sb, n, nres) : 0;
            if (!have || (x->zed && n == 0) || (nres && !nreserved))
                continue;
            break;
        }
        if (!require && (!have || n == 0)) {
            have = get_pinning_flat(x, &sb, n);
            nreserved = have && n && nres ? get_reserved(x, &sb, n, nres) : 0;
        }
        if (!have || (x->zed && n == 0) || (nres && !nreserved))
            return false;
    }
    res->npin = n;
    res->nreserved = nres ? nreserved : 0;
    return true;
}

/* ------------------------------------------------------------------ cell */

/* Dedicated, shared and free dedicated CPU counts of a host cell, kept in
 * the host (numafit__host_derive). */
static inline const uint32_t *host_counts(const struct fitctx *x, const struct numafit__cell *c) {
    (void)x;
    return c->count;
}

/* The refusal text of a cell check, formatted only when asked (explain). */
/* A page size in KiB as people write it: 4 KiB, 2 MiB, 1 GiB. */
static int fmt_size(char *out, size_t cap, uint64_t kib) {
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    unsigned u = 0;
    while (u < 3 && kib >= 1024 && kib % 1024 == 0) {
        kib /= 1024;
        u++;
    }
    return snprintf(out, cap, "%llu %s", (unsigned long long)kib, units[u]);
}

/* Why no page size of cell c holds mem_kib (want: the request's page
 * size): each size tried, what it needs and what is free. */
static void page_why(const struct numafit__cell *c, int64_t want, uint64_t mem_kib, char *text) {
    uint64_t smallest = c->npages ? smallest_pagesize(c) : 0, below = UINT64_MAX;
    size_t k = 0, cap = 160;
    int n = 0;
    k += (size_t)snprintf(text, cap, "needs ");
    /* the sizes from the largest down, as nova tries them */
    for (uint32_t step = 0; step < c->npages && k < cap; step++) {
        const struct numafit__pages *pg = NULL;
        for (uint32_t i = 0; i < c->npages; i++)
            if (c->pages[i].size_kb < below && (!pg || c->pages[i].size_kb > pg->size_kb))
                pg = &c->pages[i];
        if (!pg)
            break;
        below = pg->size_kb;
        uint64_t taken = pg->used + pg->reserved;
        uint64_t avail = taken < pg->used || taken >= pg->total ? 0 : pg->total - taken;
        char sz[24];
        if (want > 0 ? pg->size_kb != (uint64_t)want
            : want == NUMAFIT_PAGESIZE_SMALL
                ? pg->size_kb != smallest
                : want == NUMAFIT_PAGESIZE_LARGE && pg->size_kb == smallest)
            continue;
        fmt_size(sz, sizeof(sz), pg->size_kb);
        if (mem_kib % pg->size_kb)
            k += (size_t)snprintf(text + k, cap - k, "%s%s pages (not a whole number of them)",
                                  n++ ? " or " : "", sz);
        else
            k += (size_t)snprintf(text + k, cap - k, "%s%llu x %s (%llu free of %llu)",
                                  n++ ? " or " : "", (unsigned long long)(mem_kib / pg->size_kb),
                                  sz, (unsigned long long)avail, (unsigned long long)pg->total);
    }
    if (k < cap)
        snprintf(text + k, cap - k, "%s for %llu MiB", n ? "" : "pages",
                 (unsigned long long)(mem_kib / 1024));
}

#define WHY(...)                                                                                   \
    do {                                                                                           \
        if (text)                                                                                  \
            snprintf(text, 160, __VA_ARGS__);                                                      \
    } while (0)

/* Whether claiming mem MiB and ncpus vCPUs on cell c (pages of pagesize
 * KiB, or of the smallest size when pagesize is 0, as the claim charges
 * them) keeps the cell's counters in range. */
static bool usage_room(const struct numafit__cell *c, int64_t pagesize, uint64_t mem,
                       uint32_t ncpus) {
    uint64_t size = pagesize > 0 ? (uint64_t)pagesize : c->npages ? smallest_pagesize(c) : 0;
    uint64_t used = 0;
    for (uint32_t k = 0; size && k < c->npages; k++)
        if (c->pages[k].size_kb == size)
            used = c->pages[k].used;
    if (size)
        used += (mem * 1024 + size - 1) / size;
    return numafit__usage_in_range(c->memory_usage + mem, c->cpu_usage + ncpus, used, size);
}

/* nova's _numa_fit_instance_cell on an unmodified copy of guest cell g. */
static int cell_fit(struct fitctx *x, const struct numafit__cell *c, uint32_t g, uint32_t nres,
                    struct cellres *res, char *text) {
    const struct numafit__rcell *gc = &x->r->cells[g];
    const numafit_request_t *r = x->r;
    uint64_t mem = gc->memory, mem_kib = gc->memory * 1024u;
    int pol = r->cpu_policy;
    uint32_t npc = x->gcount[2 * g], nsc = x->gcount[2 * g + 1];
    const uint32_t *hc = host_counts(x, c);
    uint32_t host_pc = hc[0], host_sc = hc[1];
    int64_t avail_mem = (int64_t)c->memory - (int64_t)c->memory_usage;

    memset(res, 0, sizeof(*res));
    x->steps++;

    /* 1. memory */
    if (r->pagesize != NUMAFIT_PAGESIZE_NONE) {
        int64_t ps = pick_pagesize(c, r->pagesize, mem_kib);
        if (ps <= 0) {
            if (ps < 0)
                WHY("page size %lld KiB not offered by the cell", (long long)r->pagesize);
            else if (text)
                page_why(c, r->pagesize, mem_kib, text);
            return res->reason = NUMAFIT_E_NOFIT_PAGESIZE;
        }
        res->pagesize = ps;
    } else if (c->npages) {
        uint64_t small = smallest_pagesize(c);
        bool use_free = !x->zed && pinned_policy(pol);
        if (can_fit_pagesize(c, small, mem_kib, use_free) != 1) {
            WHY("not enough %s %llu KiB pages for %llu MiB", use_free ? "free" : "total",
                (unsigned long long)small, (unsigned long long)mem);
            return res->reason = NUMAFIT_E_NOFIT_MEM;
        }
    } else if (!x->zed && pinned_policy(pol)) {
        if (avail_mem < (int64_t)mem) {
            WHY("not enough free memory: need %llu MiB, %lld available", (unsigned long long)mem,
                (long long)avail_mem);
            return res->reason = NUMAFIT_E_NOFIT_MEM;
        }
    } else if (mem > c->memory) {
        WHY("cell memory %llu MiB is smaller than %llu MiB", (unsigned long long)c->memory,
            (unsigned long long)mem);
        return res->reason = NUMAFIT_E_NOFIT_MEM;
    }

    /* the claim of this placement must keep the cell's counters in range;
     * only hosts at the model's limits (usage near 1 EiB) ever fail here */
    if (!usage_room(c, res->pagesize, mem, npc + nsc)) {
        WHY("the cell's usage counters would leave the host model's range");
        return res->reason = NUMAFIT_E_NOFIT_MEM;
    }

    /* 2. the guest cell may not be larger than the host cell */
    if (pinned_policy(pol) && npc + nres > host_pc) {
        WHY("cell has %u dedicated CPUs, guest cell needs %u%s", host_pc, npc + nres,
            nres ? " (incl. emulator thread)" : "");
        return res->reason = NUMAFIT_E_NOFIT_CPU;
    }
    if (shared_policy(pol) && nsc > host_sc) {
        WHY("cell has %u shared CPUs, guest cell needs %u", host_sc, nsc);
        return res->reason = NUMAFIT_E_NOFIT_CPU;
    }

    /* 3. pinning */
    if (pinned_policy(pol)) {
        uint32_t free_pc = hc[2];
        if (npc + nres > free_pc) {
            WHY("%u free dedicated CPUs, guest cell needs %u%s", free_pc, npc + nres,
                nres ? " (incl. emulator thread)" : "");
            return res->reason = NUMAFIT_E_NOFIT_CPU;
        }
        if (x->zed && (int64_t)mem > avail_mem) {
            WHY("not enough free memory for a pinned guest: need %llu MiB, %lld available",
                (unsigned long long)mem, (long long)avail_mem);
            return res->reason = NUMAFIT_E_NOFIT_MEM;
        }
        if (!pack(x, c, npc, nres, res)) {
            if (r->thread_policy == NUMAFIT_THREAD_POLICY_ISOLATE)
                WHY("isolate: not enough fully free cores (or a hyper-threaded host with "
                    "cpu_dedicated_set)");
            else if (r->thread_policy == NUMAFIT_THREAD_POLICY_REQUIRE)
                WHY("require: not enough free thread siblings");
            else if (npc == 0)
                WHY("no dedicated vCPUs in this guest cell (Zed refuses an empty pinning)");
            else
                WHY("cannot pin %u vCPUs%s on the free cores", npc,
                    nres ? " plus the emulator thread" : "");
            return res->reason = NUMAFIT_E_NOFIT_THREADS;
        }
    }

    /* 4. overcommit limits for shared CPUs */
    if (shared_policy(pol) && x->has_limits) {
        double cpu_limit = (double)host_sc * x->cpu_ratio;
        double ram_limit = (double)c->memory * x->ram_ratio;
        if ((double)(c->cpu_usage + nsc) > cpu_limit) {
            WHY("cpu usage %llu + %u exceeds the limit %g", (unsigned long long)c->cpu_usage, nsc,
                cpu_limit);
            return res->reason = NUMAFIT_E_NOFIT_LIMITS;
        }
        if ((double)(c->memory_usage + mem) > ram_limit) {
            WHY("memory usage %llu + %llu MiB exceeds the limit %g",
                (unsigned long long)c->memory_usage, (unsigned long long)mem, ram_limit);
            return res->reason = NUMAFIT_E_NOFIT_LIMITS;
        }
    }
    WHY("fits");
    return 0;
}

/* ------------------------------------------------------------------ search */

static bool pair_ok(struct fitctx *x, uint32_t p, uint32_t g) {
    uint8_t *m = &x->memo[(size_t)p * x->k + g];
    if (*m == MEMO_UNKNOWN) {
        struct cellres res;
        uint32_t nres = (g == 0 && x->r->emulator_policy == NUMAFIT_EMULATOR_THREADS_ISOLATE);
        int reason = cell_fit(x, &x->h->cells[x->order[p]], g, nres, &res,
                              x->why ? x->why[(size_t)p * x->k + g] : NULL);
        *m = reason ? (uint8_t)reason : MEMO_FITS;
        x->last_valid = true;
        x->last_p = p;
        x->last_g = g;
        x->last = res;
    }
    return *m == MEMO_FITS;
}

static bool budget_hit(struct fitctx *x) {
    if (x->budget && x->steps > x->budget)
        x->over_budget = true;
    return x->over_budget;
}

/* Kuhn's augmenting path for guest g over the unused host positions, or
 * over those in `only` (all unused) when it is not NULL. */
static bool augment(struct fitctx *x, uint32_t g, const uint64_t *only) {
    for (uint32_t p = 0; p < x->n; p++) {
        if ((only ? !numafit__bit_test(only, p) : x->used[p]) || x->seen[p])
            continue;
        x->steps++;
        if (!pair_ok(x, p, g))
            continue;
        x->seen[p] = 1;
        if (x->match_h[p] < 0 || augment(x, (uint32_t)x->match_h[p], only)) {
            x->match_h[p] = (int32_t)g;
            return true;
        }
    }
    return false;
}

/* Can guest cells from..k-1 be matched to distinct unused host cells? */
static bool matchable(struct fitctx *x, uint32_t from) {
    for (uint32_t p = 0; p < x->n; p++)
        x->match_h[p] = -1;
    for (uint32_t g = from; g < x->k; g++) {
        memset(x->seen, 0, x->n);
        if (!augment(x, g, NULL))
            return false;
        if (budget_hit(x))
            return false;
    }
    return true;
}

/* How many of the guest cells from..k-1 can take distinct cells of `only`
 * at once (a maximum bipartite matching). */
static uint32_t match_size(struct fitctx *x, uint32_t from, const uint64_t *only) {
    uint32_t m = 0;
    for (uint32_t p = 0; p < x->n; p++)
        x->match_h[p] = -1;
    for (uint32_t g = from; g < x->k; g++) {
        memset(x->seen, 0, x->n);
        m += augment(x, g, only);
    }
    return m;
}

/*
 * Could the remaining guest cells (from..k-1) still cover every network
 * group not covered yet? Necessary conditions: every uncovered group has an
 * unused host cell that some remaining guest cell fits on; a cover needs at
 * least mincover[need] cells (build_mincover) and a family of pairwise
 * disjoint uncovered groups (found greedily, smallest first) one cell each;
 * and the cover's cells take distinct remaining guest cells, so neither
 * count may exceed the largest matching of remaining guest cells into
 * unused cells holding an uncovered group.
 */
static bool net_coverable(struct fitctx *x, uint32_t from, uint64_t covered) {
    uint64_t need = x->net_all & ~covered, reach = 0;
    uint64_t usable[NUMAFIT_MAX_CELLS / 64], picked[NUMAFIT_MAX_CELLS / 64];
    uint32_t size[64], nw = (x->n + 63) / 64, family = 0;
    if (!need)
        return true;
    if (from >= x->k)
        return false;
    if (x->mincover && x->mincover[need] > x->k - from)
        return false;
    x->steps += x->n;
    memset(usable, 0, nw * sizeof(uint64_t));
    memset(size, 0, sizeof(size));
    for (uint32_t p = 0; p < x->n; p++) {
        if (x->used[p] || !(x->net_mask[p] & need))
            continue;
        for (uint32_t g = from; g < x->k; g++)
            if (pair_ok(x, p, g)) {
                reach |= x->net_mask[p];
                numafit__bit_set(usable, p);
                for (uint64_t m = x->net_mask[p] & need; m; m &= m - 1)
                    size[__builtin_ctzll(m)]++;
                break;
            }
    }
    if (need & ~reach)
        return false;
    uint32_t room = match_size(x, from, usable);
    if (x->mincover && x->mincover[need] > room)
        return false;
    /* greedy disjoint family, groups with the fewest usable cells first */
    memset(picked, 0, nw * sizeof(uint64_t));
    for (;;) {
        int best = -1;
        for (uint64_t m = need; m; m &= m - 1) {
            int b = __builtin_ctzll(m);
            if (best < 0 || size[b] < size[best])
                best = b;
        }
        if (best < 0)
            break;
        need &= ~(1ull << best);
        bool disjoint = true;
        for (uint32_t p = 0; p < x->n && disjoint; p++)
            if (numafit__bit_test(usable, p) && (x->net_mask[p] >> best & 1) &&
                numafit__bit_test(picked, p))
                disjoint = false;
        if (!disjoint)
            continue;
        for (uint32_t p = 0; p < x->n; p++)
            if (numafit__bit_test(usable, p) && (x->net_mask[p] >> best & 1))
                numafit__bit_set(picked, p);
        if (++family > room)
            return false;
    }
    return true;
}

/* tight: the assignment so far equals x->bound's (the best found by an
 * earlier search): only positions up to the bound's are worth trying. */
static bool search(struct fitctx *x, uint32_t g, uint64_t covered, bool tight) {
    uint32_t last = tight ? x->bound[g] : x->n - 1;
    for (uint32_t p = 0; p <= last; p++) {
        if (x->used[p])
            continue;
        x->steps++;
        if (budget_hit(x))
            return false;
        if (!pair_ok(x, p, g))
            continue;
        uint64_t cov = covered | (x->net ? x->net_mask[p] : 0);
        x->used[p] = 1;
        x->assign[g] = p;
        if (g + 1 == x->k) {
            if (!x->net || (cov & x->net_all) == x->net_all)
                return true;
        } else if ((!x->net || net_coverable(x, g + 1, cov)) &&
                   /* with one guest cell left, the next level is the test */
                   (g + 2 == x->k || matchable(x, g + 1)) &&
                   search(x, g + 1, cov, tight && p == last)) {
            return true;
        }
        x->used[p] = 0;
        if (x->over_budget)
            return false;
    }
    return false;
}

/* ------------------------------------------------------------------ order */

struct sortkey {
    uint32_t idx;
    int64_t k0; /* the cell's PCI devices */
    int64_t k1; /* avail_memory */
    int64_t k2; /* cpu_usage or free pCPUs */
};

static int cmp_keys(const struct sortkey *a, const struct sortkey *b, int d0, int d1, int d2) {
    if (a->k0 != b->k0)
        return (a->k0 < b->k0 ? -1 : 1) * d0;
    if (a->k2 != b->k2)
        return (a->k2 < b->k2 ? -1 : 1) * d2;
    if (a->k1 != b->k1)
        return (a->k1 < b->k1 ? -1 : 1) * d1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* nova's stable sorts (memory, CPUs, then PCI devices when there are
 * pools), as one sort on (devices, key2, key1, original index). */
static void order_cells(struct fitctx *x, int strategy, struct sortkey *keys) {
    const numafit_host_t *h = x->h;
    bool pack_s = strategy == NUMAFIT_STRATEGY_PACK;
    bool shared = !pinned_policy(x->r->cpu_policy);
    if (h->ncells <= x->k) {
        /* nova sorts only when there are more host cells than guest cells */
        for (uint32_t i = 0; i < h->ncells; i++)
            x->order[i] = i;
        return;
    }
    for (uint32_t i = 0; i < h->ncells; i++) {
        const struct numafit__cell *c = &h->cells[i];
        keys[i].idx = i;
        keys[i].k1 = (int64_t)c->memory - (int64_t)c->memory_usage;
        keys[i].k2 = shared ? (int64_t)c->cpu_usage : (int64_t)host_counts(x, c)[2];
        keys[i].k0 = x->pci_sort ? x->pci_devs[i] : 0;
    }
    if (h->ncells > x->k) {
        /* spread: memory descending; shared: cpu_usage ascending, pinned:
         * free pCPUs descending. pack: the reverse of each. */
        int d1 = pack_s ? 1 : -1;
        int d2 = shared ? (pack_s ? -1 : 1) : (pack_s ? 1 : -1);
        /* cells with devices first when devices are requested, last when
         * not, whatever the strategy */
        int d0 = x->pci_requested ? -1 : 1;
        /* insertion sort keeps it allocation-free; cells are few */
        for (uint32_t i = 1; i < h->ncells; i++) {
            struct sortkey t = keys[i];
            uint32_t j = i;
            while (j > 0 && cmp_keys(&t, &keys[j - 1], d0, d1, d2) < 0) {
                keys[j] = keys[j - 1];
                j--;
            }
            keys[j] = t;
        }
    }
    for (uint32_t i = 0; i < h->ncells; i++)
        x->order[i] = keys[i].idx;
}

/* ------------------------------------------------------------------ setup */

static void ctx_free(struct fitctx *x) {
    numafit__free(x->heap);
    numafit__free(x->mincover);
}

/* The PCI check's scratch: the walk's, then (the library's rules) each
 * request's verdict on each pool. */
static size_t pci_walk_size(const struct fitctx *x) {
    return (numafit__pci_scratch_size(x->pools) + 7) & ~(size_t)7;
}

static size_t pci_size(const struct fitctx *x) {
    return pci_walk_size(x) + (x->pci_fn ? 0 : (size_t)x->pools->n * (x->reqs->n + 1)) + 1;
}

static bool has_physnet(const struct numafit__cell *c, const char *name) {
    for (uint32_t i = 0; i < c->nphysnets; i++)
        if (!strcmp(c->physnets[i], name))
            return true;
    return false;
}

/* Network groups (nova's _numa_cells_support_network_metadata): every
 * requested physnet offered by some host cell must be offered by a chosen
 * cell; if tunneled networks are requested and some cell is tunneled, a
 * chosen cell must be tunneled. */
static int net_setup(struct fitctx *x, const numafit_options_t *o) {
    const numafit_host_t *h = x->h;
    uint32_t ngroups = 0;
    bool too_many = false;
    if (!o || !o->has_netmeta)
        return 0;
    for (uint32_t q = 0; q <= o->nphysnets; q++) {
        const char *name = q < o->nphysnets ? o->physnets[q] : NULL;
        bool any = false;
        if (!name && !o->tunneled)
            continue;
        if (name) {
            bool dup = false;
            for (uint32_t e = 0; e < q; e++)
                dup |= !strcmp(o->physnets[e], name);
            if (dup)
                continue;
        }
        for (uint32_t p = 0; p < x->n; p++) {
            const struct numafit__cell *c = &h->cells[x->order[p]];
            if (c->has_netmeta && (name ? has_physnet(c, name) : c->tunneled))
                any = true;
        }
        if (!any)
            continue;
        if (ngroups == 64) {
            too_many = true;
            break;
        }
        for (uint32_t p = 0; p < x->n; p++) {
            const struct numafit__cell *c = &h->cells[x->order[p]];
            if (c->has_netmeta && (name ? has_physnet(c, name) : c->tunneled))
                x->net_mask[p] |= 1ull << ngroups;
        }
        ngroups++;
    }
    if (too_many)
        return -E2BIG;
    x->net = ngroups > 0;
    x->net_groups = ngroups;
    x->net_all = ngroups == 64 ? ~0ull : (1ull << ngroups) - 1;
    return 0;
}

/* Carve n bytes, aligned to 8, from the scratch block (base NULL: size only). */
static void *carve(char *base, size_t *used, size_t n) {
    size_t off = (*used + 7) & ~(size_t)7;
    *used = off + n;
    return base ? base + off : NULL;
}

static size_t ctx_layout(struct fitctx *x, char *base, uint32_t maxpc, bool explain, bool net,
                         struct sortkey **keys) {
    size_t u = 0;
    x->order = carve(base, &u, (x->n + 1) * sizeof(uint32_t));
    /* memo and used are adjacent: one memset clears both */
    x->memo = carve(base, &u, (size_t)x->n * x->k + x->n + 2);
    x->used = x->memo ? x->memo + (size_t)x->n * x->k + 1 : NULL;
    x->fcnt = carve(base, &u, (maxpc + 1) * sizeof(uint32_t));
    x->single = carve(base, &u, (maxpc + 1) * sizeof(uint16_t));
    x->single_off = carve(base, &u, (maxpc + 2) * sizeof(uint32_t));
    x->pin = carve(base, &u, x->pin_cap * sizeof(uint32_t));
    x->taken = carve(base, &u, x->h->nw * sizeof(uint64_t));
    x->freebits = carve(base, &u, x->h->nw * sizeof(uint64_t));
    x->gcount = carve(base, &u, (2 * (size_t)x->k + 1) * sizeof(uint32_t));
    x->assign = carve(base, &u, (x->k + 1) * sizeof(uint32_t));
    x->match_h = carve(base, &u, (x->n + 1) * sizeof(int32_t));
    x->seen = carve(base, &u, x->n + 1);
    *keys = carve(base, &u, (x->n + 1) * sizeof(**keys));
    x->net_mask = net ? carve(base, &u, (x->n + 1) * sizeof(uint64_t)) : NULL;
    x->net_base = x->pci_check ? carve(base, &u, (x->n + 1) * sizeof(uint64_t)) : NULL;
    x->pci_cell = x->pci_check ? carve(base, &u, x->n + 1) : NULL;
    x->pci_scratch = x->pci_check ? carve(base, &u, pci_size(x)) : NULL;
    x->pci_devs = x->pci_sort ? carve(base, &u, (x->n + 1) * sizeof(int64_t)) : NULL;
    x->pci_any = x->pci_sort ? carve(base, &u, x->n + 1) : NULL;
    x->why = explain ? carve(base, &u, ((size_t)x->n * x->k + 1) * sizeof(*x->why)) : NULL;
    return u;
}

/* nres_max: the most emulator pCPUs a cell check may reserve (1 for a whole
 * fit: the first guest cell with emulator threads isolate). */
static int ctx_init_order(struct fitctx *x, const numafit_host_t *h, const numafit_request_t *r,
                          const numafit_options_t *o, bool explain, uint32_t nres_max,
                          uint64_t *stack, int strategy, const uint32_t *order) {
    uint32_t maxpc = 0;
    struct sortkey *keys;
    bool net;
    char *base;
    size_t size;
    int rc;

    /* every other field is set by ctx_layout or before it is read */
    x->steps = 0;
    x->over_budget = false;
    x->bestfit = false;
    x->heap = NULL;
    x->net = false;
    x->net_all = 0;
    x->net_groups = 0;
    x->mincover = NULL;
    x->pci_scratch = NULL;
    x->pci_prep = NULL;
    x->pci_prepped = false;
    x->last_valid = false;
    x->pools = o ? o->pci_pools : NULL;
    x->reqs = o ? o->pci_reqs : NULL;
    x->pci_cap = NULL;
    x->pci_sort = x->pools != NULL;
    x->pci_requested = x->reqs && x->reqs->n > 0;
    x->pci_check = x->pools && x->pci_requested;
    x->pci_fn = o ? o->pci_fn : NULL;
    x->pci_ctx = o ? o->pci_ctx : NULL;
    x->pci_rc = 0;
    /* the PCI search adds coverage groups: the masks are needed */
    net = (o && o->has_netmeta) || x->pci_check;
    x->h = h;
    x->r = r;
    x->profile = o ? o->profile : NUMAFIT_PROFILE_LATEST;
    x->zed = x->profile == NUMAFIT_PROFILE_ZED;
    x->has_limits = o && o->has_limits;
    x->cpu_ratio = o ? o->cpu_ratio : 0;
    x->ram_ratio = o ? o->ram_ratio : 0;
    x->budget = o ? o->budget : NUMAFIT_BUDGET_DEFAULT;
    x->n = h->ncells;
    x->k = r->ncells;
    for (uint32_t i = 0; i < h->ncells; i++) {
        /* singletons are built for cells without sibling information only */
        const struct numafit__cell *c = &h->cells[i];
        if (!c->nsib && c->count[0] > maxpc)
            maxpc = c->count[0];
    }
    x->pin_cap = r->vcpus + (nres_max ? nres_max : 1);
    /* lay the scratch out on the stack buffer; redo it on the heap when it
     * turns out too large (hosts of hundreds of cells, explain) */
    base = (char *)stack;
    size = ctx_layout(x, base, maxpc, explain, net, &keys);
    if (size > FIT_STACK_WORDS * sizeof(uint64_t)) {
        base = x->heap = numafit__malloc(size);
        if (!base)
            return -ENOMEM;
        ctx_layout(x, base, maxpc, explain, net, &keys);
    }
    /* only these must start zeroed; the rest is written before it is read */
    memset(x->memo, 0, (size_t)x->n * x->k + x->n + 2);
    if (x->net_mask)
        memset(x->net_mask, 0, (x->n + 1) * sizeof(uint64_t));
    for (uint32_t g = 0; g < x->k; g++) {
        uint32_t pc = 0, sc = 0;
        for (uint32_t w = 0; w < r->nw; w++) {
            pc += numafit__popcount64(r->cells[g].pcpuset[w]);
            sc += numafit__popcount64(r->cells[g].cpuset[w]);
        }
        x->gcount[2 * g] = pc;
        x->gcount[2 * g + 1] = sc;
    }
    if (x->pci_sort)
        numafit__pci_cell_counts(x->pools, h, x->pci_devs, x->pci_any);
    order_cells(x, strategy, keys);
    if (order) /* the headroom strategy's candidate orders */
        memcpy(x->order, order, h->ncells * sizeof(uint32_t));
    if (x->pci_check) {
        x->pci_prep = x->pci_fn ? NULL : (uint8_t *)x->pci_scratch + pci_walk_size(x);
        for (uint32_t p = 0; p < x->n; p++)
            x->pci_cell[p] = x->pci_any[x->order[p]];
    }
    rc = net_setup(x, o);
    if (rc < 0) {
        ctx_free(x);
        return rc;
    }
    return 0;
}

/* nova's order for the options' strategy (the headroom strategy starts
 * from spread's). */
static int ctx_init(struct fitctx *x, const numafit_host_t *h, const numafit_request_t *r,
                    const numafit_options_t *o, bool explain, uint32_t nres_max, uint64_t *stack) {
    int strategy =
        o && o->strategy == NUMAFIT_STRATEGY_PACK ? NUMAFIT_STRATEGY_PACK : NUMAFIT_STRATEGY_SPREAD;
    return ctx_init_order(x, h, r, o, explain, nres_max, stack, strategy, NULL);
}

/* ------------------------------------------------------------------ result */

static void copy_bits(uint64_t *dst, const uint64_t *src, uint32_t nw) {
    memcpy(dst, src, nw * sizeof(uint64_t));
}

/* Guest cell g of the request on host cell hc, as the cell check res (its
 * pinning and emulator pCPUs in x->pin) placed it, into pc. */
static void fill_pcell(struct fitctx *x, numafit_placement_t *p, struct numafit__pcell *pc,
                       uint32_t g, const struct numafit__cell *hc, const struct cellres *res) {
    const numafit_request_t *r = x->r;
    const struct numafit__rcell *gc = &r->cells[g];
    pc->host_id = hc->id;
    copy_bits(pc->cpuset, gc->cpuset, r->nw);
    copy_bits(pc->pcpuset, gc->pcpuset, r->nw);
    pc->memory = gc->memory;
    pc->pagesize = res->pagesize;
    pc->cpu_policy = r->cpu_policy;
    pc->thread_policy = r->thread_policy;
    if (pinned_policy(r->cpu_policy)) {
        uint32_t j = 0;
        pc->has_pinning = true;
        pc->pin_vcpu = numafit__placement_take(p, res->npin);
        pc->pin_pcpu = numafit__placement_take(p, res->npin);
        for (int v = numafit__bits_next(gc->pcpuset, r->nw, -1); v >= 0 && j < res->npin;
             v = numafit__bits_next(gc->pcpuset, r->nw, v), j++) {
            pc->pin_vcpu[j] = (uint32_t)v;
            pc->pin_pcpu[j] = x->pin[j];
        }
        pc->npin = j;
    }
    if (res->nreserved) {
        pc->reserved = numafit__placement_take(p, res->nreserved);
        memcpy(pc->reserved, x->pin + res->npin, res->nreserved * sizeof(uint32_t));
        pc->nreserved = res->nreserved;
        pc->has_reserved = true;
    }
}

static int build_placement(struct fitctx *x, numafit_placement_t **ret) {
    const numafit_request_t *r = x->r;
    numafit_placement_t *p = NULL;
    int rc = numafit__placement_alloc(r->nw, x->k, 2 * r->vcpus + 1, &p);
    if (rc < 0)
        return rc;
    p->emulator_policy = r->emulator_policy;
    for (uint32_t g = 0; g < x->k; g++) {
        const struct numafit__cell *hc = &x->h->cells[x->order[x->assign[g]]];
        uint32_t nres = (g == 0 && r->emulator_policy == NUMAFIT_EMULATOR_THREADS_ISOLATE);
        struct cellres res;
        if (x->last_valid && x->last_p == x->assign[g] && x->last_g == g) {
            res = x->last; /* its pinning is still in x->pin */
        } else if (cell_fit(x, hc, g, nres, &res, NULL) != 0) {
            numafit_placement_free(p);
            return -EINVAL; /* cannot happen: the check is pure */
        }
        x->last_valid = false;
        fill_pcell(x, p, &p->cells[g], g, hc, &res);
    }
    *ret = p;
    return 0;
}

/* Most frequent refusal of guest cell g over all host cells. */
static int common_reason(struct fitctx *x, uint32_t g, int *cell) {
    int counts[NUMAFIT_E__MAX] = {0}, best = NUMAFIT_E_NOFIT;
    *cell = -1;
    for (uint32_t p = 0; p < x->n; p++) {
        uint8_t m = x->memo[(size_t)p * x->k + g];
        if (m != MEMO_UNKNOWN && m != MEMO_FITS && m < NUMAFIT_E__MAX)
            counts[m]++;
    }
    for (int c = 0; c < NUMAFIT_E__MAX; c++)
        if (counts[c] > counts[best])
            best = c;
    for (uint32_t p = 0; p < x->n; p++)
        if (x->memo[(size_t)p * x->k + g] == best) {
            *cell = x->h->cells[x->order[p]].id;
            break;
        }
    return best;
}

/* "guest cell G fits on no host cell (mostly: REASON)" without printf: a
 * refused fit must stay as cheap as the fit itself. */
static void set_nofit_text(numafit_error_t *err, int code, int cell, uint32_t g) {
    char num[12], *q = num + sizeof(num);
    const char *parts[5];
    size_t len = 0;
    if (!err)
        return;
    *--q = '\0';
    do
        *--q = (char)('0' + g % 10);
    while ((g /= 10) && q > num);
    parts[0] = "guest cell ";
    parts[1] = q;
    parts[2] = " fits on no host cell (mostly: ";
    parts[3] = numafit_strerror(code);
    parts[4] = ")";
    for (int i = 0; i < 5; i++) {
        size_t n = strlen(parts[i]);
        if (len + n >= sizeof(err->text))
            n = sizeof(err->text) - 1 - len;
        memcpy(err->text + len, parts[i], n);
        len += n;
    }
    err->text[len] = '\0';
    err->code = code;
    err->cell = cell;
    err->where[0] = err->exception[0] = '\0';
}

/*
 * The fewest host cells that cover each subset S of the network groups,
 * over the cells some guest cell fits on (nova's network check is a set
 * cover: NP-hard in the number of groups, polynomial in the cells for a
 * fixed number of groups). A cover of S needs a cell holding S's lowest
 * group: mincover[S] = 1 + min over such cells m of mincover[S & ~m]. Used
 * cells only make covers larger, so the table bounds every search node
 * from below in O(1). Built for up to 20 groups while it costs at most
 * 2^24 table updates (some milliseconds, not counted in the work budget);
 * beyond that the greedy bound and the work budget remain.
 * Returns -ENOMEM, else 0 (the table may stay NULL).
 */
#define MINCOVER_MAX_GROUPS 20
#define MINCOVER_MAX_WORK   (1u << 24)
static int build_mincover(struct fitctx *x) {
    uint64_t masks[NUMAFIT_MAX_CELLS];
    uint32_t nm = 0, G = x->net_groups;
    if (!x->net || G > MINCOVER_MAX_GROUPS)
        return 0;
    for (uint32_t p = 0; p < x->n; p++) {
        uint64_t m = x->net_mask[p];
        bool dup = false, fits = false;
        for (uint32_t i = 0; i < nm && !dup; i++)
            dup = masks[i] == m;
        if (!m || dup)
            continue;
        for (uint32_t g = 0; g < x->k && !fits; g++)
            fits = pair_ok(x, p, g);
        if (fits)
            masks[nm++] = m;
    }
    if (((uint64_t)nm << G) > MINCOVER_MAX_WORK)
        return 0;
    x->mincover = numafit__malloc((size_t)1 << G);
    if (!x->mincover)
        return -ENOMEM;
    x->mincover[0] = 0;
    for (uint64_t S = 1; S < (1ull << G); S++) {
        uint64_t low = S & (~S + 1);
        uint32_t best = 255;
        for (uint32_t i = 0; i < nm; i++)
            if ((masks[i] & low) && x->mincover[S & ~masks[i]] + 1u < best)
                best = x->mincover[S & ~masks[i]] + 1u;
        x->mincover[S] = (uint8_t)best;
    }
    return 0;
}

/* ------------------------------------------------------------------ PCI */

/* nova's support_requests on the host cells at positions pos[0..n-1]:
 * 1 / 0 (why in err when not NULL; kept unworded in fail when not NULL,
 * with the library's rules). */
static int pci_ok(struct fitctx *x, const uint32_t *pos, uint32_t n, struct numafit__pci_fail *fail,
                  numafit_error_t *err) {
    int64_t ids[NUMAFIT_MAX_CELLS];
    for (uint32_t i = 0; i < n; i++)
        ids[i] = x->h->cells[x->order[pos[i]]].id;
    x->steps += 1 + x->pools->n;
    if (x->pci_fn) {
        int rc = x->pci_fn(x->pci_ctx, ids, n);
        if (rc < 0) {
            x->pci_rc = rc;
            x->over_budget = true; /* ends every search */
            return 0;
        }
        if (!rc && err)
            numafit__error_set(err, NUMAFIT_E_NOFIT, -1, "pci_requests", NULL,
                               "the PCI requests are not satisfied");
        return rc > 0;
    }
    if (!x->pci_prepped) {
        /* each request's verdict on each pool, once per fit, when first asked */
        numafit__pci_prepare(x->pools, x->reqs, !x->zed, x->pci_prep);
        x->pci_prepped = true;
    }
    return numafit__pci_support(x->pools, x->h, x->reqs, ids, n, x->pci_scratch, x->pci_prep,
                                !x->zed, fail, err);
}

/* Could every request find its count on the host cells at positions
 * pos[0..n-1], each alone (numafit__pci_bound)? true when the bounds are
 * not laid out (the caller's check, or before nova's first choice fails):
 * what no walk could meet is then refused without a walk or a cell check. */
static bool pci_bound_ok(const struct fitctx *x, const uint32_t *pos, uint32_t n) {
    uint32_t idx[NUMAFIT_MAX_CELLS];
    if (!x->pci_cap)
        return true;
    for (uint32_t i = 0; i < n; i++)
        idx[i] = x->order[pos[i]];
    return numafit__pci_bound(x->reqs, x->h, x->pci_cap, idx, n);
}

/* The choices the PCI check can tell apart: which cells with devices are
 * chosen (T), and with the socket policy which sockets holding devices
 * (socks[]) have a chosen cell. */
struct pcisel {
    uint32_t k;     /* guest cells */
    uint32_t *cand; /* positions of cells with devices some guest cell fits */
    uint32_t ncand;
    bool sockets;      /* the socket policy can tell sockets apart */
    int32_t socks[64]; /* sockets holding devices */
    uint32_t nsocks;
    uint32_t t[64], nt; /* the chosen T (positions) */
    uint32_t *best;     /* the best assignment so far, or has_best false */
    bool has_best;
    int rc; /* <0 error */
};

static int sock_index(const struct pcisel *s, int32_t sock) {
    for (uint32_t i = 0; i < s->nsocks; i++)
        if (s->socks[i] == sock)
            return (int)i;
    return -1;
}

static bool fits_some_guest(struct fitctx *x, uint32_t p) {
    for (uint32_t g = 0; g < x->k; g++)
        if (pair_ok(x, p, g))
            return true;
    return false;
}

/* Search the placements whose cells with devices are exactly T and (socket
 * policy) whose sockets holding devices are exactly the mask `extra` plus
 * those of T, as coverage groups beside the network's; keep the first in
 * nova's order if it is before the best so far. */
static void pci_try(struct fitctx *x, struct pcisel *s, uint64_t sockmask, uint64_t extra) {
    uint32_t groups = x->net_groups, rep[64], nrep = 0;
    bool fail = false;
    memset(x->used, 0, x->n);
    for (uint32_t p = 0; p < x->n; p++)
        x->net_mask[p] = x->net_base[p];
    for (uint32_t p = 0; p < x->n; p++) {
        const struct numafit__cell *c = &x->h->cells[x->order[p]];
        int si = s->sockets ? sock_index(s, c->socket) : -1;
        if (x->pci_cell[p]) {
            x->used[p] = 1; /* forbidden unless in T (below) */
            continue;
        }
        if (si >= 0 && !(sockmask >> si & 1))
            x->used[p] = 1; /* would add a socket with devices */
    }
    for (uint32_t i = 0; i < s->nt; i++) {
        if (groups == 64)
            fail = true;
        else
            x->net_mask[s->t[i]] |= 1ull << groups++;
        x->used[s->t[i]] = 0;
        rep[nrep++] = s->t[i];
    }
    /* each extra socket: a group of its allowed cells without devices */
    for (uint64_t m = extra; m && !fail; m &= m - 1) {
        uint32_t si = (uint32_t)__builtin_ctzll(m);
        bool any = false;
        if (groups == 64) {
            fail = true;
            break;
        }
        for (uint32_t p = 0; p < x->n; p++) {
            const struct numafit__cell *c = &x->h->cells[x->order[p]];
            if (!x->used[p] && !x->pci_cell[p] && c->socket == s->socks[si] &&
                fits_some_guest(x, p)) {
                x->net_mask[p] |= 1ull << groups;
                if (!any)
                    rep[nrep++] = p;
                any = true;
            }
        }
        if (!any)
            return; /* no cell can stand for that socket */
        groups++;
    }
    if (fail) {
        x->over_budget = true; /* more groups than the search tracks */
        return;
    }
    /* no cell with devices and no extra socket: any allowed cell stands
     * for the set (the policies still apply, to cells without devices) */
    for (uint32_t p = 0; p < x->n && !nrep; p++)
        if (!x->used[p] && fits_some_guest(x, p))
            rep[nrep++] = p;
    if (!nrep)
        return;
    /* the requests on a set of this kind (each such set answers alike) */
    if (!pci_bound_ok(x, rep, nrep) || pci_ok(x, rep, nrep, NULL, NULL) != 1)
        return;
    x->net = groups > 0;
    x->net_all = groups == 64 ? ~0ull : (1ull << groups) - 1;
    x->bound = s->best;
    if ((!x->net || net_coverable(x, 0, 0)) && !budget_hit(x) && search(x, 0, 0, s->has_best)) {
        bool better = !s->has_best;
        for (uint32_t g = 0; g < x->k && !better; g++) {
            if (x->assign[g] != s->best[g]) {
                better = x->assign[g] < s->best[g];
                break;
            }
        }
        if (better) {
            memcpy(s->best, x->assign, x->k * sizeof(uint32_t));
            s->has_best = true;
        }
    }
}

/* Every T (cells with devices, at most k) from candidate i on; with the
 * socket policy every set of further sockets for each. */
static void pci_enum(struct fitctx *x, struct pcisel *s, uint32_t i) {
    if (x->over_budget)
        return;
    {
        uint64_t tmask = 0, free_socks;
        for (uint32_t j = 0; j < s->nt; j++) {
            int si = s->sockets ? sock_index(s, x->h->cells[x->order[s->t[j]]].socket) : -1;
            if (si >= 0)
                tmask |= 1ull << si;
        }
        free_socks =
            s->sockets ? ((s->nsocks == 64 ? ~0ull : (1ull << s->nsocks) - 1) & ~tmask) : 0;
        /* every subset of the free sockets, at most k - |T| of them */
        for (uint64_t e = 0;; e = (e - free_socks) & free_socks) {
            if ((uint32_t)__builtin_popcountll(e) + s->nt <= s->k)
                pci_try(x, s, tmask | e, e);
            x->steps++;
            if (budget_hit(x) || e == free_socks)
                break;
        }
    }
    if (s->nt == s->k || s->nt == 64)
        return;
    for (uint32_t j = i; j < s->ncand && !x->over_budget; j++) {
        s->t[s->nt++] = s->cand[j];
        pci_enum(x, s, j + 1);
        s->nt--;
    }
}

/* One guest cell: nova's permutations are the host cells in their order,
 * so the answer is the first cell that fits, passes the network check and
 * has the devices; the cells without devices answer alike (per socket
 * holding devices with the socket policy), so they are asked once. */
static int pci_search_one(struct fitctx *x, const struct pcisel *s) {
    int8_t memo[65];
    uint8_t bound[NUMAFIT_MAX_CELLS]; /* per host cell index: the devices could be there */
    /* every cell alone bounded at once: none can hold the devices, no cell
     * check at all */
    if (x->pci_cap && !numafit__pci_cells_ok(x->reqs, x->h, x->pci_cap, bound))
        return 0;
    memset(memo, -1, sizeof(memo));
    for (uint32_t p = 0; p < x->n; p++) {
        int ok, si = 0;
        if (x->pci_cap && !bound[x->order[p]])
            continue; /* no cell check where the devices cannot be */
        if (!pair_ok(x, p, 0) || (x->net && (x->net_mask[p] & x->net_all) != x->net_all))
            continue;
        if (!x->pci_cell[p] && s->sockets)
            si = sock_index(s, x->h->cells[x->order[p]].socket) + 1;
        if (x->pci_cell[p] || memo[si] < 0) {
            ok = pci_ok(x, &p, 1, NULL, NULL);
            if (!x->pci_cell[p])
                memo[si] = (int8_t)ok;
        } else {
            ok = memo[si];
        }
        if (budget_hit(x))
            return 0;
        if (ok == 1) {
            memset(x->used, 0, x->n);
            x->assign[0] = p;
            x->used[p] = 1;
            return 1;
        }
    }
    return 0;
}

/* nova's first placement failed the PCI requests: the first placement in
 * nova's order whose cells pass them. 1 (x->assign), 0, -ENOMEM. */
static int pci_search(struct fitctx *x) {
    struct pcisel s;
    uint32_t cand[NUMAFIT_MAX_CELLS], best[NUMAFIT_MAX_CELLS];
    bool all_sockets = true;
    memset(&s, 0, sizeof(s));
    s.k = x->k;
    s.cand = cand;
    s.best = best;
    for (uint32_t p = 0; p < x->n; p++)
        all_sockets &= x->h->cells[x->order[p]].socket >= 0;
    s.sockets = all_sockets && numafit__pci_socket_policy(x->reqs);
    for (uint32_t p = 0; p < x->n; p++) {
        if (!x->pci_cell[p])
            continue;
        if (s.sockets && sock_index(&s, x->h->cells[x->order[p]].socket) < 0) {
            if (s.nsocks == 64) {
                x->over_budget = true;
                return 0;
            }
            s.socks[s.nsocks++] = x->h->cells[x->order[p]].socket;
        }
        if (fits_some_guest(x, p))
            cand[s.ncand++] = p;
    }
    if (x->k == 1)
        return pci_search_one(x, &s);
    for (uint32_t p = 0; p < x->n; p++)
        x->net_base[p] = x->net_mask[p];
    {
        bool net = x->net;
        uint64_t all = x->net_all;
        uint8_t *mincover = x->mincover;
        x->mincover = NULL; /* built for the network groups alone */
        pci_enum(x, &s, 0);
        x->mincover = mincover;
        x->net = net;
        x->net_all = all;
        for (uint32_t p = 0; p < x->n; p++)
            x->net_mask[p] = x->net_base[p];
    }
    if (!s.has_best)
        return 0;
    memset(x->used, 0, x->n);
    memcpy(x->assign, best, x->k * sizeof(uint32_t));
    for (uint32_t g = 0; g < x->k; g++)
        x->used[best[g]] = 1;
    return 1;
}

/* Run the search; returns 1 fit, 0 no fit, <0 error; fills err on no fit. */
static int run(struct fitctx *x, numafit_error_t *err) {
    if (x->k == 0) {
        numafit__error_set(err, NUMAFIT_E_NOT_NUMA, -1, "", NULL,
                           "the request has no NUMA topology");
        return -EINVAL;
    }
    if (x->n < x->k) {
        numafit__error_set(err, NUMAFIT_E_NOFIT_CELLS, -1, "", NULL,
                           "the host has %u NUMA cells, the guest needs %u", x->n, x->k);
        return 0;
    }
    if (build_mincover(x) < 0) {
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
        return -ENOMEM;
    }
    if ((!x->net || net_coverable(x, 0, 0)) && !budget_hit(x) && search(x, 0, 0, false)) {
        if (!x->pci_check)
            return 1;
        /* nova checks the devices on each placement in which every guest
         * cell fits, after the cells and before the network */
        uint32_t first[NUMAFIT_MAX_CELLS];
        int64_t cap_stack[PCI_CAP_STACK];
        struct numafit__pci_fail fail = {0, 0, NULL, NULL};
        bool found;
        if (pci_ok(x, x->assign, x->k, &fail, NULL) == 1)
            return 1;
        memcpy(first, x->assign, x->k * sizeof(*first));
        /* with as many host cells as guest cells every placement takes them
         * all; and a request that too few devices match at all fails on
         * any: no search, and no bounds */
        found = false;
        if (x->n > x->k && (x->pci_fn || numafit__pci_possible(x->pools, x->reqs, x->pci_prep))) {
            if (!x->pci_fn) {
                /* the search asks many choices of cells: bound them first
                 * (laid out only now: the fits that need no search pay nothing) */
                size_t words = numafit__pci_caps_words(x->reqs, x->h);
                x->pci_cap =
                    words <= PCI_CAP_STACK ? cap_stack : numafit__malloc(words * sizeof(int64_t));
                if (x->pci_cap)
                    numafit__pci_caps(x->pools, x->reqs, x->pci_prep, x->h, x->pci_cap);
            }
            found = pci_search(x) == 1;
            if (x->pci_cap != cap_stack)
                numafit__free(x->pci_cap);
            x->pci_cap = NULL;
        }
        if (found)
            return 1;
        if (!x->over_budget && x->pci_fn) {
            /* why nova's first choice fails, from the caller's check */
            numafit__error_clear(&x->pci_why);
            (void)pci_ok(x, first, x->k, NULL, &x->pci_why);
        }
        if (!x->over_budget) {
            static const char tail[] = " on the host cells nova chooses first, and no other "
                                       "choice of host cells has the devices";
            if (err) {
                /* worded only now, and only when asked for: straight into
                 * err, then the tail */
                size_t n, m = sizeof(tail);
                if (x->pci_fn) {
                    numafit__error_clear(err);
                    memcpy(err->where, x->pci_why.where, sizeof(err->where));
                    memcpy(err->text, x->pci_why.text, sizeof(err->text));
                } else {
                    numafit__pci_fail_word(x->reqs, &fail, err);
                }
                err->code = NUMAFIT_E_NOFIT_PCI;
                err->cell = x->h->cells[x->order[first[0]]].id;
                n = strnlen(err->text, sizeof(err->text) - 1);
                if (n + m > sizeof(err->text))
                    m = sizeof(err->text) - n;
                memcpy(err->text + n, tail, m);
                err->text[sizeof(err->text) - 1] = '\0';
            }
            return 0;
        }
    }
    if (x->pci_rc < 0) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "pci_requests", NULL,
                           "the caller's PCI check failed: %s", numafit_strerror(x->pci_rc));
        return x->pci_rc;
    }
    if (x->over_budget) {
        numafit__error_set(err, NUMAFIT_E_TOO_COMPLEX, -1, "", NULL,
                           "the fit exceeded its work budget of %llu steps",
                           (unsigned long long)x->budget);
        return -E2BIG;
    }
    /* explain: a guest cell that fits nowhere, else a joint failure */
    for (uint32_t g = 0; g < x->k; g++) {
        bool any = false;
        for (uint32_t p = 0; p < x->n && !any; p++)
            any = pair_ok(x, p, g);
        if (!any) {
            int cell, code = common_reason(x, g, &cell);
            set_nofit_text(err, code, cell, g);
            return 0;
        }
    }
    if (x->net) {
        numafit__error_set(err, NUMAFIT_E_NOFIT_NETWORK, -1, "", NULL,
                           "no placement of the guest cells satisfies the network NUMA "
                           "affinity of the requested physnets/tunnels");
        return 0;
    }
    numafit__error_set(err, NUMAFIT_E_NOFIT, -1, "", NULL,
                       "each guest cell fits some host cell, but not all at once");
    return 0;
}

static int check_args(const numafit_host_t *h, const numafit_request_t *r, unsigned flags,
                      numafit_error_t *err) {
    if (!h || !r || flags) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "", NULL, "invalid argument or flags");
        return -EINVAL;
    }
    return 0;
}

/* ctx_init failed: -ENOMEM, or -E2BIG (more network groups than the search
 * tracks). */
static int init_failed(numafit_error_t *err, int rc) {
    numafit__error_set(err, rc == -ENOMEM ? NUMAFIT_E_NOMEM : NUMAFIT_E_TOO_COMPLEX, -1, "", NULL,
                       "%s", rc == -ENOMEM ? "out of memory" : numafit_strerror(rc));
    return rc;
}

/* The end of a fit that ran (rc: run()'s): the placement into *ret when it
 * fits and ret is not NULL (NULL: the answer only), the context freed. */
static int finish_fit(struct fitctx *x, int rc, numafit_placement_t **ret, numafit_error_t *err) {
    if (rc == 1 && ret) {
        int b = build_placement(x, ret);
        if (b < 0) {
            numafit__error_set(err, b == -ENOMEM ? NUMAFIT_E_NOMEM : NUMAFIT_E_INVALID_ARG, -1, "",
                               NULL, "%s", numafit_strerror(b));
            rc = b;
        }
    }
    ctx_free(x);
    return rc;
}

/* One fit in the given cell order (NULL: nova's for strategy), within
 * budget steps (0: unlimited), with the prefer policy's best-fit pinning
 * when bestfit; *steps gets the steps it took. As
 * numafit_fit() otherwise (the headroom strategy's building block). */
int numafit__fit_ordered(const numafit_host_t *h, const numafit_request_t *r,
                         const numafit_options_t *o, int strategy, const uint32_t *order,
                         bool bestfit, uint64_t budget, uint64_t *steps, numafit_placement_t **ret,
                         numafit_error_t *err) {
    struct fitctx x;
    uint64_t stack[FIT_STACK_WORDS];
    int rc;
    *steps = 0;
    rc = ctx_init_order(&x, h, r, o, false, 1, stack, strategy, order);
    if (rc < 0)
        return init_failed(err, rc);
    x.budget = budget;
    x.bestfit = bestfit;
    rc = run(&x, err);
    *steps = x.steps;
    return finish_fit(&x, rc, ret, err);
}

/* nova's host cell order for strategy (spread or pack) into order. */
int numafit__fit_order_for(const numafit_host_t *h, const numafit_request_t *r,
                           const numafit_options_t *o, int strategy, uint32_t *order) {
    struct fitctx x;
    uint64_t stack[FIT_STACK_WORDS];
    int rc = ctx_init_order(&x, h, r, o, false, 1, stack, strategy, NULL);
    if (rc < 0)
        return rc;
    memcpy(order, x.order, h->ncells * sizeof(uint32_t));
    ctx_free(&x);
    return 0;
}

NUMAFIT_EXPORT int numafit_fit(const numafit_host_t *h, const numafit_request_t *r,
                               const numafit_options_t *o, unsigned flags,
                               numafit_placement_t **ret, numafit_error_t *err) {
    struct fitctx x;
    uint64_t stack[FIT_STACK_WORDS];
    int rc;
    numafit__error_clear(err);
    if ((rc = check_args(h, r, flags, err)) < 0)
        return rc;
    if (o && o->strategy == NUMAFIT_STRATEGY_HEADROOM)
        return numafit__fit_headroom(h, r, o, ret, err);
    rc = ctx_init(&x, h, r, o, false, 1, stack);
    if (rc < 0)
        return init_failed(err, rc);
    rc = run(&x, err);
    return finish_fit(&x, rc, ret, err);
}

/* Set key of obj to v (stolen); false when v is NULL or the set fails. */
static bool put(json_t *obj, const char *key, json_t *v) {
    return v && json_object_set_new(obj, key, v) == 0;
}

/* The explanation of a run as JSON (see numafit_fit_explain); NULL when an
 * allocation fails. rc is run()'s answer, e the refusal. */
static json_t *explain_json(struct fitctx *x, int rc, const numafit_error_t *e) {
    const numafit_host_t *h = x->h;
    json_t *root = json_object(), *cells = json_array();
    if (!root || !cells || !put(root, "fits", json_boolean(rc == 1)))
        goto nomem;
    if (rc == 0 && (!put(root, "reason", json_string(numafit_error_code_name(e->code))) ||
                    !put(root, "text", json_string(e->text))))
        goto nomem;
    for (uint32_t p = 0; p < x->n; p++) {
        json_t *hc = json_object(), *gl = json_array();
        if (!hc || !gl) {
            json_decref(gl);
            json_decref(hc);
            goto nomem;
        }
        if (json_array_append_new(cells, hc) < 0) { /* hc is freed by jansson */
            json_decref(gl);
            goto nomem;
        }
        if (!put(hc, "id", json_integer(h->cells[x->order[p]].id))) {
            json_decref(gl);
            goto nomem;
        }
        if (!put(hc, "guest_cells", gl)) /* gl is freed by jansson on failure */
            goto nomem;
        for (uint32_t g = 0; g < x->k; g++) {
            bool fits = pair_ok(x, p, g);
            uint8_t m = x->memo[(size_t)p * x->k + g];
            json_t *o = json_object();
            if (!o || json_array_append_new(gl, o) < 0 || !put(o, "guest", json_integer(g)) ||
                !put(o, "fits", json_boolean(fits)))
                goto nomem;
            if (!fits && (!put(o, "reason", json_string(numafit_error_code_name(m))) ||
                          !put(o, "text", json_string(x->why[(size_t)p * x->k + g]))))
                goto nomem;
        }
    }
    if (!put(root, "cells", cells)) {
        cells = NULL; /* stolen (and freed) by the failed set */
        goto nomem;
    }
    cells = NULL;
    if (rc == 1) {
        json_t *a = json_array();
        if (!put(root, "assignment", a))
            goto nomem;
        for (uint32_t g = 0; g < x->k; g++)
            if (json_array_append_new(a, json_integer(h->cells[x->order[x->assign[g]]].id)) < 0)
                goto nomem;
    }
    return root;
nomem:
    json_decref(cells);
    json_decref(root);
    return NULL;
}

NUMAFIT_EXPORT int numafit_fit_explain(const numafit_host_t *h, const numafit_request_t *r,
                                       const numafit_options_t *o, unsigned flags, char **ret_json,
                                       numafit_error_t *err) {
    struct fitctx x;
    uint64_t stack[FIT_STACK_WORDS];
    numafit_error_t e2;
    json_t *root;
    char *out;
    int rc;
    numafit__error_clear(err);
    if ((rc = check_args(h, r, flags, err)) < 0)
        return rc;
    if (!ret_json)
        return -EINVAL;
    rc = ctx_init(&x, h, r, o, true, 1, stack);
    if (rc < 0)
        return init_failed(err, rc);
    numafit__error_clear(&e2);
    rc = run(&x, &e2);
    if (rc < 0) {
        if (err)
            *err = e2;
        ctx_free(&x);
        return rc;
    }
    root = explain_json(&x, rc, &e2);
    ctx_free(&x);
    out = root ? numafit__json_dump(root, 0) : NULL;
    json_decref(root);
    if (!out) {
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
        return -ENOMEM;
    }
    *ret_json = out;
    return 0;
}

NUMAFIT_EXPORT int numafit_fit_cell(const numafit_host_t *h, unsigned host_index,
                                    const numafit_request_t *r, unsigned guest, unsigned nreserved,
                                    const numafit_options_t *o, unsigned flags,
                                    numafit_placement_t **ret, numafit_error_t *err) {
    struct fitctx x;
    uint64_t stack[FIT_STACK_WORDS];
    struct cellres res;
    numafit_placement_t *p = NULL;
    char why[160];
    int rc;
    numafit__error_clear(err);
    if ((rc = check_args(h, r, flags, err)) < 0)
        return rc;
    if (!ret || host_index >= h->ncells || guest >= r->ncells || nreserved > NUMAFIT__CPU_LIMIT) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "", NULL,
                           r->ncells ? "invalid argument: host cell index, guest cell or nreserved"
                                     : "the request has no NUMA topology");
        return -EINVAL;
    }
    rc = ctx_init(&x, h, r, o, false, nreserved, stack);
    if (rc < 0)
        return init_failed(err, rc);
    rc = cell_fit(&x, &h->cells[host_index], guest, nreserved, &res, err ? why : NULL);
    if (rc) {
        if (err)
            numafit__error_set(err, rc, h->cells[host_index].id, "", NULL, "%s", why);
        ctx_free(&x);
        return 0;
    }
    rc = numafit__placement_alloc(r->nw, 1, 2 * r->vcpus + nreserved + 1, &p);
    if (rc < 0) {
        ctx_free(&x);
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
        return rc;
    }
    p->emulator_policy = nreserved ? NUMAFIT_EMULATOR_THREADS_ISOLATE : r->emulator_policy;
    fill_pcell(&x, p, &p->cells[0], guest, &h->cells[host_index], &res);
    ctx_free(&x);
    *ret = p;
    return 1;
}

/* ------------------------------------------------------------------ test hooks */

int numafit__fit_order(const numafit_host_t *h, const numafit_request_t *r,
                       const numafit_options_t *o, uint32_t *order) {
    struct fitctx x;
    uint64_t stack[FIT_STACK_WORDS];
    int rc = ctx_init(&x, h, r, o, false, 1, stack);
    if (rc < 0)
        return rc;
    memcpy(order, x.order, h->ncells * sizeof(uint32_t));
    ctx_free(&x);
    return 0;
}

int numafit__fit_pair(const numafit_host_t *h, const numafit_request_t *r,
                      const numafit_options_t *o, uint32_t host_index, uint32_t guest) {
    struct fitctx x;
    struct cellres res;
    uint64_t stack[FIT_STACK_WORDS];
    uint32_t nres = guest == 0 && r->emulator_policy == NUMAFIT_EMULATOR_THREADS_ISOLATE;
    int rc = ctx_init(&x, h, r, o, false, 1, stack);
    if (rc < 0)
        return rc;
    rc = cell_fit(&x, &h->cells[host_index], guest, nres, &res, NULL);
    ctx_free(&x);
    return rc;
}
