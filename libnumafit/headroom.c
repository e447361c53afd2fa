/*
 * The headroom strategy (issue 16; doc/headroom.md): not nova's, opt-in
 * (NUMAFIT_STRATEGY_HEADROOM). Among the placements nova's per-cell rules
 * allow in some order of the host cells, the one that leaves the host most
 * able to take further instances.
 *
 * Candidates: the fit (fit.c's search and cell checks) in nova's spread
 * order, in its pack order, and in each of them with one host cell moved
 * first; each once with nova's pinning and once with the best-fit pinning
 * of the prefer policy (the free threads of the cores with the fewest
 * free threads first: orphan threads before whole cores; isolate, require
 * and emulator threads keep nova's rules). At most 4 n + 4 searches on a
 * host of n cells, each polynomial, so the whole stays polynomial. Every candidate is a placement
 * the ordinary fit returns for that order, so it is claimable as any other; and one exists exactly
 * when spread's fit finds one.
 *
 * Score of a candidate, on the host with the candidate claimed (one working
 * copy of the host per fit; see struct work):
 *  1. with a flavor mix on the options: the sum over the mix of weight x
 *     (instances of that flavor that still fit, alone, one after the
 *     other, at most NUMAFIT_HEADROOM_CAP) -- numafit_host_headroom(); a
 *     flavor of one guest cell is counted by cells (count_by_cells), with
 *     the same result;
 *  2. then (alone without a mix) a fragmentation measure, larger is
 *     better: over the host cells, the squares of the free fractions of
 *     the dedicated CPUs, the whole free cores, the shared CPUs (against
 *     the overcommit limit), the small-page memory and the largest huge
 *     page size, plus the smaller of the free dedicated CPU fraction and
 *     the free small-page memory fraction, and twice the same with the
 *     largest huge page size (CPUs with memory still beside them; huge
 *     pages serve only the flavors that ask for them, so stranding them
 *     counts double). Squares reward filling cells already in use (best
 *     fit).
 * Ties keep the earlier candidate: spread's placement first.
 *
 * Every fit and claim, the host copy (by its size) and every cell put back
 * are charged to the options' work budget; past it the fit returns -E2BIG.
 */
#include "config.h"

#include <string.h>

#include "private.h"

struct budget {
    uint64_t limit; /* 0: unlimited */
    uint64_t used;
    bool over;
};

/* Steps left for the next fit: 0 means unlimited (no limit) -- over is set
 * when a limited budget is spent. */
static uint64_t budget_left(struct budget *b) {
    if (!b->limit)
        return 0;
    if (b->used >= b->limit) {
        b->over = true;
        return 0;
    }
    return b->limit - b->used;
}

static bool charge(struct budget *b, uint64_t n) {
    b->used += n;
    if (b->limit && b->used > b->limit)
        b->over = true;
    return b->over;
}

/* The options the mix's counting fits use: the caller's profile and
 * limits, spread, nothing of the instance's own (PCI, network) nor a mix. */
static void count_options(const numafit_options_t *o, numafit_options_t *c) {
    if (o) {
        *c = *o;
    } else {
        memset(c, 0, sizeof(*c));
        c->profile = NUMAFIT_PROFILE_LATEST;
        c->budget = NUMAFIT_BUDGET_DEFAULT;
    }
    c->strategy = NUMAFIT_STRATEGY_SPREAD;
    c->has_netmeta = false;
    c->tunneled = false;
    c->nphysnets = 0;
    c->physnets = NULL;
    c->pci_pools = NULL;
    c->pci_reqs = NULL;
    c->pci_fn = NULL;
    c->pci_ctx = NULL;
    c->nmix = 0;
    c->mix = NULL;
    c->mix_weight = NULL;
}

/*
 * The working copy every score and count runs on: the host copied once per
 * call; a claim on it marks the cells it changed, and reset puts back only
 * those from the host. So a candidate costs the cells its claims touch, not
 * a copy of the host (a host of 212 cells used to take seconds).
 */
struct work {
    const numafit_host_t *h;
    numafit_host_t *w;
    bool *dirty;    /* per cell index */
    uint32_t *list; /* the dirty cells */
    uint32_t nlist;
    /* counting by cells (count_by_cells) */
    uint32_t nmix;
    uint32_t *bcap;  /* nmix x ncells: a flavor's count in a cell of the host, or BCAP_UNKNOWN */
    bool *seq;       /* per flavor: count one fit after the other (a claim refused) */
    uint32_t *order; /* ncells: one cell first, then the others */
    uint32_t *own;   /* the cells of the candidate */
    uint32_t nown;
};

#define BCAP_UNKNOWN UINT32_MAX

static void work_free(struct work *wk) {
    numafit_host_free(wk->w);
    numafit__free(wk->dirty);
    numafit__free(wk->list);
    numafit__free(wk->bcap);
    numafit__free(wk->seq);
    numafit__free(wk->order);
    numafit__free(wk->own);
    memset(wk, 0, sizeof(*wk));
}

/* The copy is charged by its size: a step per cell and per 16 bitmap
 * words. 0, -ENOMEM, -E2BIG. */
static int work_init(struct work *wk, const numafit_host_t *h, uint32_t nmix, struct budget *b) {
    size_t n = h->ncells;
    memset(wk, 0, sizeof(*wk));
    wk->h = h;
    wk->nmix = nmix;
    wk->dirty = numafit__calloc(n + 1, sizeof(bool));
    wk->list = numafit__calloc(n + 1, sizeof(uint32_t));
    wk->bcap = numafit__malloc((nmix * n + 1) * sizeof(uint32_t));
    wk->seq = numafit__calloc(nmix + 1, sizeof(bool));
    wk->order = numafit__calloc(n + 1, sizeof(uint32_t));
    wk->own = numafit__calloc(n + 1, sizeof(uint32_t));
    if (wk->bcap)
        for (size_t i = 0; i < nmix * n; i++)
            wk->bcap[i] = BCAP_UNKNOWN;
    if (!wk->dirty || !wk->list || !wk->bcap || !wk->seq || !wk->order || !wk->own ||
        numafit_host_dup(h, &wk->w) < 0) {
        work_free(wk);
        return -ENOMEM;
    }
    if (charge(b, 1 + (uint64_t)h->ncells + (uint64_t)h->ncells * 3 * h->nw / 16)) {
        work_free(wk);
        return -E2BIG;
    }
    return 0;
}

/* Claim p on the working copy and mark the cells it names. 0 or the
 * claim's refusal (then nothing changed). */
static int work_claim(struct work *wk, const numafit_placement_t *p, struct budget *b) {
    int rc = numafit_host_claim(wk->w, p, 0, NULL);
    if (rc < 0)
        return rc;
    for (uint32_t g = 0; g < p->ncells; g++) {
        int ci = numafit__host_cell_index(wk->h, p->cells[g].host_id);
        if (ci >= 0 && !wk->dirty[ci]) {
            wk->dirty[ci] = true;
            wk->list[wk->nlist++] = (uint32_t)ci;
        }
    }
    charge(b, p->ncells);
    return 0;
}

/* Put the working copy back to the host: of the marked cells, what a claim
 * changes (numafit_host_claim: pinned CPUs, usage, pages) and what
 * numafit__cell_derive derives from it, copied from the host, whose cells
 * are derived. */
static void work_reset(struct work *wk, struct budget *b) {
    const numafit_host_t *h = wk->h;
    for (uint32_t k = 0; k < wk->nlist; k++) {
        uint32_t i = wk->list[k];
        const struct numafit__cell *s = &h->cells[i];
        struct numafit__cell *c = &wk->w->cells[i];
        memcpy(c->pinned, s->pinned, h->nw * sizeof(uint64_t));
        c->memory_usage = s->memory_usage;
        c->cpu_usage = s->cpu_usage;
        if (s->npages)
            memcpy(c->pages, s->pages, s->npages * sizeof(*s->pages));
        if (s->nsib)
            memcpy(numafit__sib_free(c), numafit__sib_free(s), s->nsib * sizeof(uint32_t));
        memcpy(c->count, s->count, sizeof(c->count));
        c->maxfree = s->maxfree;
        c->tpc = s->tpc;
        c->sib_overlap = s->sib_overlap;
        wk->dirty[i] = false;
    }
    charge(b, wk->nlist);
    wk->nlist = 0;
}

/* The working copy back to the host, with p claimed again (p NULL: the
 * host). p claimed on the host before: it claims again. */
static int work_restart(struct work *wk, const numafit_placement_t *p, struct budget *b) {
    int rc;
    work_reset(wk, b);
    if (p && (rc = work_claim(wk, p, b)) < 0)
        return rc == -ENOMEM ? rc : -EINVAL;
    return 0;
}

/* How many of req fit on the working copy one after the other, at most
 * limit, each fitted (spread) and claimed on it. cell < 0: anywhere; else
 * only in that cell index: it is put first in the order, and a fit that
 * lands elsewhere ends the count. 0; 1 when a claim is refused (the model's
 * counters: no more room, the count stops there); -ENOMEM; -E2BIG (b->over). */
static int count_fits(struct work *wk, const numafit_request_t *req, const numafit_options_t *copt,
                      struct budget *b, int cell, uint32_t limit, uint32_t *count) {
    uint32_t n = wk->h->ncells, j = 1;
    *count = 0;
    if (cell >= 0) {
        wk->order[0] = (uint32_t)cell;
        for (uint32_t q = 0; q < n; q++)
            if (q != (uint32_t)cell)
                wk->order[j++] = q;
    }
    while (*count < limit) {
        numafit_placement_t *p = NULL;
        uint64_t steps, lim = budget_left(b);
        int rc;
        if (b->over)
            return -E2BIG;
        rc = numafit__fit_ordered(wk->w, req, copt, NUMAFIT_STRATEGY_SPREAD,
                                  cell >= 0 ? wk->order : NULL, false, lim, &steps, &p, NULL);
        if (charge(b, steps) || rc == -E2BIG) {
            b->over = true;
            numafit_placement_free(p);
            return -E2BIG;
        }
        if (rc < 0)
            return rc;
        if (rc == 0 ||
            (cell >= 0 && (p->ncells != 1 || p->cells[0].host_id != wk->h->cells[cell].id))) {
            numafit_placement_free(p); /* no more room (in that cell) */
            break;
        }
        rc = work_claim(wk, p, b);
        numafit_placement_free(p);
        if (rc == -ENOMEM)
            return rc;
        if (rc < 0)
            return 1;
        (*count)++;
    }
    return b->over ? -E2BIG : 0;
}

/*
 * A flavor of one guest cell counts by cells: each instance the count fits
 * goes into one host cell and changes only that cell, and whether it fits
 * in a cell, and how it is pinned there, depends on that cell alone; so the
 * count is min(cap, sum over the cells of the instances each cell takes
 * alone, one after the other). The cells the candidate changed are counted
 * on the working copy; every other cell is as on the host, and its count
 * there is kept (bcap) for the next candidates. The other cells are summed
 * first and the sum stops at the cap, so on a host with room in a few
 * other cells no fit runs at all for a candidate.
 */

/* Flavor i's count by cells on the host with the candidate (wk->own)
 * claimed. 0, 1 (count one after the other instead), <0. */
static int count_by_cells(struct work *wk, uint32_t i, const numafit_request_t *req,
                          const numafit_options_t *copt, struct budget *b, uint64_t *count) {
    uint32_t n = wk->h->ncells, need = NUMAFIT_HEADROOM_CAP, got;
    uint32_t *bcap = wk->bcap + (size_t)i * n;
    int rc;
    for (uint32_t c = 0; c < n && need; c++) { /* as on the host */
        bool own = false;
        for (uint32_t k = 0; k < wk->nown && !own; k++)
            own = wk->own[k] == c;
        if (own)
            continue;
        if (bcap[c] == BCAP_UNKNOWN) {
            if ((rc = count_fits(wk, req, copt, b, (int)c, NUMAFIT_HEADROOM_CAP, &got)) != 0)
                return rc;
            bcap[c] = got;
        }
        need -= bcap[c] < need ? bcap[c] : need;
    }
    for (uint32_t k = 0; k < wk->nown && need; k++) { /* on the working copy */
        if ((rc = count_fits(wk, req, copt, b, (int)wk->own[k], need, &got)) != 0)
            return rc;
        need -= got;
    }
    *count = NUMAFIT_HEADROOM_CAP - need;
    return 0;
}

/* The mix's counts on the host with p claimed (p NULL: the host itself);
 * the working copy is left dirty. p must claim on the host. */
static int counts_on(struct work *wk, const numafit_placement_t *p, const numafit_options_t *o,
                     struct budget *b, uint64_t *counts) {
    numafit_options_t copt;
    count_options(o, &copt);
    wk->nown = 0;
    for (uint32_t g = 0; p && g < p->ncells; g++) {
        int ci = numafit__host_cell_index(wk->h, p->cells[g].host_id);
        bool seen = ci < 0;
        for (uint32_t k = 0; k < wk->nown && !seen; k++)
            seen = wk->own[k] == (uint32_t)ci;
        if (!seen)
            wk->own[wk->nown++] = (uint32_t)ci;
    }
    for (uint32_t i = 0; i < o->nmix; i++) {
        bool by_cells = o->mix[i]->ncells == 1 && !wk->seq[i];
        int rc;
        if ((i > 0 || !p) && (rc = work_restart(wk, p, b)) < 0)
            return rc;
        if (by_cells) {
            if ((rc = count_by_cells(wk, i, o->mix[i], &copt, b, &counts[i])) < 0)
                return rc;
            if (rc == 1) { /* a claim refused: the count stops there */
                wk->seq[i] = true;
                by_cells = false;
                if ((rc = work_restart(wk, p, b)) < 0)
                    return rc;
            }
        }
        if (!by_cells) {
            uint32_t got;
            if ((rc = count_fits(wk, o->mix[i], &copt, b, -1, NUMAFIT_HEADROOM_CAP, &got)) < 0)
                return rc;
            counts[i] = got;
        }
    }
    return 0;
}

static double dmin(double a, double b) {
    return a < b ? a : b;
}

static double frac(double free, double total) {
    if (total <= 0)
        return 0;
    if (free <= 0)
        return 0;
    return free >= total ? 1.0 : free / total;
}

/* One cell's part of the fragmentation measure of the header comment
 * (larger: less fragmented). */
static double cell_frag(const struct numafit__cell *c, double cpu_ratio) {
    double fd = -1, fm = -1, fh = -1, s = 0;
    if (c->count[0]) {
        double fw;
        fd = frac(c->count[2], c->count[0]);
        if (c->nsib) {
            const uint32_t *fc = numafit__sib_free(c);
            uint32_t cores = 0, whole = 0;
            for (uint32_t k = 0; k < c->nsib; k++) {
                uint32_t size = c->sib_off[k + 1] - c->sib_off[k];
                bool ded = size > 0;
                for (uint32_t j = c->sib_off[k]; j < c->sib_off[k + 1] && ded; j++)
                    ded = numafit__bit_test(c->pcpuset, c->sib_cpu[j]);
                cores += ded;
                whole += ded && fc[k] == size;
            }
            fw = frac(whole, cores);
        } else {
            fw = fd;
        }
        s += fd * fd + fw * fw;
    }
    if (c->count[1]) {
        double fs = frac((double)c->count[1] * cpu_ratio - (double)c->cpu_usage,
                         (double)c->count[1] * cpu_ratio);
        s += fs * fs;
    }
    if (c->npages) {
        const struct numafit__pages *small = &c->pages[0], *big = NULL;
        for (uint32_t k = 1; k < c->npages; k++)
            if (c->pages[k].size_kb < small->size_kb)
                small = &c->pages[k];
        for (uint32_t k = 0; k < c->npages; k++)
            if (c->pages[k].size_kb > small->size_kb && c->pages[k].total &&
                (!big || c->pages[k].size_kb > big->size_kb))
                big = &c->pages[k];
        fm = frac((double)small->total - (double)small->used - (double)small->reserved,
                  (double)small->total);
        if (big)
            fh = frac((double)big->total - (double)big->used - (double)big->reserved,
                      (double)big->total);
    } else {
        fm = frac((double)c->memory - (double)c->memory_usage, (double)c->memory);
    }
    s += fm * fm + (fh >= 0 ? fh * fh : 0);
    if (fd >= 0)
        s += dmin(fd, fm) + (fh >= 0 ? 2 * dmin(fd, fh) : 0);
    return s;
}

static double cpu_ratio_of(const numafit_options_t *o) {
    return o && o->has_limits ? o->cpu_ratio : 1.0;
}

/* The measure of the working copy: the cells' parts in cell order, the
 * host's (base) for the cells no claim changed. */
static double frag_score(const struct work *wk, const double *base, const numafit_options_t *o) {
    double s = 0, ratio = cpu_ratio_of(o);
    for (uint32_t i = 0; i < wk->h->ncells; i++)
        s += wk->dirty[i] ? cell_frag(&wk->w->cells[i], ratio) : base[i];
    return s;
}

/* A candidate's score on the host with p claimed: 0 (scored), 1 (the claim
 * is refused: not a candidate), <0. */
static int score(struct work *wk, const numafit_placement_t *p, const numafit_options_t *o,
                 const double *base, struct budget *b, uint64_t *counts, double *mix,
                 double *frag) {
    int rc;
    *mix = -1; /* below every claimable candidate's */
    *frag = -1;
    work_reset(wk, b);
    if (b->over)
        return -E2BIG;
    rc = work_claim(wk, p, b);
    if (rc < 0)
        return rc == -ENOMEM ? rc : 1;
    *frag = frag_score(wk, base, o);
    rc = o->nmix ? counts_on(wk, p, o, b, counts) : 0;
    if (rc < 0) {
        *frag = -1;
        return rc;
    }
    *mix = 0;
    for (uint32_t i = 0; i < o->nmix; i++)
        *mix += o->mix_weight[i] * (double)counts[i];
    return 0;
}

static uint64_t mix64(uint64_t x, uint64_t v) {
    x ^= v + 1;
    return x * 1099511628211ull;
}

/* A hash of the host cells and pCPUs a placement takes, guest cell by
 * guest cell (equal placements are scored once). */
static uint64_t assignment_hash(const numafit_placement_t *p) {
    uint64_t x = 1469598103934665603ull;
    for (uint32_t g = 0; g < p->ncells; g++) {
        const struct numafit__pcell *pc = &p->cells[g];
        x = mix64(x, (uint64_t)(uint32_t)pc->host_id);
        for (uint32_t k = 0; k < pc->npin; k++)
            x = mix64(x, pc->pin_pcpu[k]);
        for (uint32_t k = 0; k < pc->nreserved; k++)
            x = mix64(x, (uint64_t)pc->reserved[k] << 20);
    }
    return x;
}

static int too_complex(numafit_error_t *err, const struct budget *b) {
    numafit__error_set(err, NUMAFIT_E_TOO_COMPLEX, -1, "", NULL,
                       "the headroom strategy exceeded the work budget of %llu steps",
                       (unsigned long long)b->limit);
    return -E2BIG;
}

int numafit__fit_headroom(const numafit_host_t *h, const numafit_request_t *r,
                          const numafit_options_t *o, numafit_placement_t **ret,
                          numafit_error_t *err) {
    uint32_t n = h->ncells, ncand = 2 * n + 2, nseen = 0; /* orders; x 2 pinnings */
    struct budget b = {o->budget, 0, false};
    uint32_t *spread = NULL, *pack = NULL, *order = NULL;
    uint64_t *seen = NULL, *counts = NULL, steps = 0;
    numafit_placement_t *best = NULL;
    double best_mix = 0, best_frag = 0, *cellfrag = NULL;
    struct work wk = {0};
    int rc;

    /* the ordinary refusal; and the answer alone is spread's */
    if (n == 0 || r->ncells == 0 || n < r->ncells || !ret)
        return numafit__fit_ordered(h, r, o, NUMAFIT_STRATEGY_SPREAD, NULL, false, o->budget,
                                    &steps, ret, err);
    spread = numafit__malloc(3 * (size_t)n * sizeof(uint32_t));
    seen = numafit__malloc(2 * (size_t)ncand * sizeof(uint64_t));
    counts = numafit__malloc((o->nmix + 1) * sizeof(uint64_t));
    if (!spread || !seen || !counts) {
        rc = -ENOMEM;
        goto nomem;
    }
    pack = spread + n;
    order = pack + n;
    if ((rc = numafit__fit_order_for(h, r, o, NUMAFIT_STRATEGY_SPREAD, spread)) < 0 ||
        (rc = numafit__fit_order_for(h, r, o, NUMAFIT_STRATEGY_PACK, pack)) < 0)
        goto nomem;

    for (uint32_t c = 0; c < 2 * ncand; c++) {
        uint32_t i = c / 2;
        bool bestfit = c % 2;
        const uint32_t *base = i == 1 || (i >= 2 && i - 2 >= n) ? pack : spread;
        numafit_placement_t *p = NULL;
        uint64_t h64, lim;
        double mix, frag;
        bool dup = false;
        if (i >= 2) {
            uint32_t first = (i - 2) % n, j = 1;
            if (first == 0)
                continue; /* the base order itself */
            order[0] = base[first];
            for (uint32_t q = 0; q < n; q++)
                if (q != first)
                    order[j++] = base[q];
        } else {
            memcpy(order, base, n * sizeof(uint32_t));
        }
        lim = budget_left(&b);
        if (b.over)
            goto over;
        rc = numafit__fit_ordered(h, r, o, NUMAFIT_STRATEGY_SPREAD, order, bestfit, lim, &steps, &p,
                                  c == 0 ? err : NULL);
        if (charge(&b, steps) || rc == -E2BIG) {
            numafit_placement_free(p);
            goto over;
        }
        if (rc < 0) {
            numafit_placement_free(p);
            goto fail;
        }
        if (rc == 0) {
            if (c == 0)
                goto fail; /* spread refuses: every order does; err says why */
            continue;
        }
        h64 = assignment_hash(p);
        for (uint32_t s = 0; s < nseen && !dup; s++)
            dup = seen[s] == h64;
        if (dup) {
            numafit_placement_free(p);
            continue;
        }
        seen[nseen++] = h64;
        if (!wk.w) { /* the first candidate to score: the working copy */
            cellfrag = numafit__malloc(((size_t)n + 1) * sizeof(double));
            rc = cellfrag ? work_init(&wk, h, o->nmix, &b) : -ENOMEM;
            if (rc < 0) {
                numafit_placement_free(p);
                if (rc == -E2BIG)
                    goto over;
                goto fail;
            }
            for (uint32_t k = 0; k < n; k++)
                cellfrag[k] = cell_frag(&h->cells[k], cpu_ratio_of(o));
        }
        rc = score(&wk, p, o, cellfrag, &b, counts, &mix, &frag);
        if (rc == -E2BIG || b.over) {
            numafit_placement_free(p);
            goto over;
        }
        if (rc < 0) {
            numafit_placement_free(p);
            goto fail;
        }
        if (rc == 1 && best) { /* not claimable on the host: not a candidate */
            numafit_placement_free(p);
            continue;
        }
        if (!best || mix > best_mix + 1e-9 ||
            (mix - best_mix <= 1e-9 && best_mix - mix <= 1e-9 && frag > best_frag + 1e-9)) {
            numafit_placement_free(best);
            best = p;
            best_mix = mix;
            best_frag = frag;
        } else {
            numafit_placement_free(p);
        }
    }
    numafit__free(spread);
    numafit__free(seen);
    numafit__free(counts);
    numafit__free(cellfrag);
    work_free(&wk);
    numafit__error_clear(err);
    if (ret)
        *ret = best;
    else
        numafit_placement_free(best);
    return 1;

over:
    rc = too_complex(err, &b);
    goto fail;
nomem:
fail:
    if (rc == -ENOMEM)
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
    numafit_placement_free(best);
    numafit__free(spread);
    numafit__free(seen);
    numafit__free(counts);
    numafit__free(cellfrag);
    work_free(&wk);
    return rc;
}

NUMAFIT_EXPORT int numafit_host_headroom(const numafit_host_t *h, const numafit_options_t *o,
                                         unsigned flags, uint64_t *counts, size_t n,
                                         numafit_error_t *err) {
    struct budget b;
    struct work wk;
    int rc;
    numafit__error_clear(err);
    if (!h || !o || flags || !counts || !o->nmix || n != o->nmix) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "", NULL,
                           !h || !o || flags || !counts ? "invalid argument or flags"
                           : !o->nmix                   ? "the options have no headroom mix"
                                                        : "n is not the size of the headroom mix");
        return -EINVAL;
    }
    b.limit = o->budget;
    b.used = 0;
    b.over = false;
    rc = work_init(&wk, h, o->nmix, &b);
    if (rc == 0) {
        rc = counts_on(&wk, NULL, o, &b, counts);
        work_free(&wk);
    }
    if (rc == -E2BIG)
        return too_complex(err, &b);
    if (rc == -ENOMEM)
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
    return rc;
}
