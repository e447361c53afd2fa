/*
 * Pictures of a fleet plan: the SVG. The plan read (plan_render_read.c) is
 * laid out (sizes of threads, cores, cells and hosts in pixels, all
 * integers), then written; the same plan always gives the same bytes.
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

#include "cli_fmt.h"
#include "plan_render.h"
#include "plan_render_model.h"

/* ------------------------------------------------------------------ text */

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
void plan_render_esc(FILE *o, const char *s) {
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
    plan_render_esc(o, s);
    fputs("</text>\n", o);
}

static void put_title(FILE *o, const char *s) {
    fputs("<title>", o);
    plan_render_esc(o, s);
    fputs("</title>", o);
}

/* "2M" (cli_fmt_page_size's short form). */
static const char *page_size_name(long long kb, char buf[24]) {
    return cli_fmt_page_size(kb, true, buf, 24);
}

/* Grouped counts for the texts (cli_fmt_count): G(i, v) in buffer g[i]. */
#define G(i, v) cli_fmt_count((v), g[i], sizeof(g[i]))

static long long clampv(long long v) {
    return v < 0 ? 0 : v > VALUE_MAX ? VALUE_MAX : v;
}

static int imax(int a, int b) {
    return a > b ? a : b;
}

/* ------------------------------------------------------------------ cells and hosts */

#define CELL_LINES (5 + MAX_PAGE_SIZES)

/* The label lines of a cell; returns how many (line 0 is the bold title). */
static int cell_lines(const struct cell *c, struct line *l) {
    char sz[24];
    char g[6][48];
    size_t i;
    int n = 0;

    memset(l, 0, sizeof(*l) * CELL_LINES);
    line_add(&l[n], "cell %lld", c->id);
    if (c->has_socket)
        line_add(&l[n], " \xc2\xb7 socket %lld", c->socket);
    n++;
    line_add(&l[n++], "memory %s / %s", G(0, c->mem_used), cli_fmt_mib(c->mem, g[1], sizeof(g[1])));
    for (i = 0; i < c->npages; i++) {
        const struct pg *pg = &c->pages[i];
        if (!pg->total && !pg->used)
            continue;
        line_add(&l[n], "%s pages %s / %s used", page_size_name(pg->size_kb, sz), G(0, pg->used),
                 G(1, pg->total));
        if (pg->reserved)
            line_add(&l[n], " (%lld reserved)", pg->reserved);
        n++;
    }
    if (c->shared || c->usage)
        line_add(&l[n++], "shared pool %lld vCPUs on %lld CPUs", c->usage, c->shared);
    if (c->pci > 0)
        line_add(&l[n++], "PCI devices %lld / %lld used",
                 c->pci_free >= 0 && c->pci_free <= c->pci ? c->pci - c->pci_free : 0, c->pci);
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
    char g[6][48];
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
                 "left: %s free pCPUs (%s orphan threads), %s lost siblings, %s MiB "
                 "free (%s MiB in cells without free CPUs)",
                 G(0, s->free_pcpus), G(1, s->orphan_threads), G(2, s->lost_siblings),
                 G(3, s->free_memory_mb), G(4, s->memory_without_cpus_mb));
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
            plan_render_esc(o, in->flavor);
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
            plan_render_esc(o, in->flavor);
            fputs(")", o);
            fill = in->color;
            tc = in->dark ? "#ffffff" : C_TEXT;
            break;
        case T_EMULATOR:
            fprintf(o, "emulator threads of instance #%lld (", in->id);
            plan_render_esc(o, in->flavor);
            fputs(")", o);
            fill = in->color;
            tc = in->dark ? "#ffffff" : C_TEXT;
            break;
        case T_ISOLATED:
            fprintf(o, "sibling kept idle for instance #%lld (", in->id);
            plan_render_esc(o, in->flavor);
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
    fprintf(o, "<rect class=\"t-%s", plan_render_state_names[t->state]);
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
    char g[6][48];

    memset(b, 0, sizeof(*b) * (2 + MAX_PAGE_SIZES));
    f = clampv(c->free_pcpus);
    st = clampv(c->orphan_threads) < f ? clampv(c->orphan_threads) : f;
    snprintf(b[n].label, sizeof(b[n].label), "pCPUs");
    b[n].used = clampv(clampv(p->pcpus) - f - clampv(c->lost_siblings));
    b[n].stranded = clampv(c->lost_siblings) + st;
    b[n].free = f - st;
    b[n].total = clampv(p->pcpus);
    snprintf(b[n].text, sizeof(b[n].text),
             "used %s, stranded %s (%s lost siblings, %s orphan threads), free %s of %s",
             G(0, b[n].used), G(1, b[n].stranded), G(2, clampv(c->lost_siblings)), G(3, st),
             G(4, b[n].free), G(5, b[n].total));
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
             "used %s, stranded %s (in cells without free CPUs), free %s, in huge pages %s, "
             "of %s",
             G(0, b[n].used), G(1, b[n].stranded), G(2, b[n].free), G(3, b[n].huge),
             G(4, b[n].total));
    n++;
    for (i = 0; i < p->nfpages; i++) {
        const struct pg *pg = &p->fpages[i];
        if (pg->size_kb <= 4 || !pg->total)
            continue;
        f = clampv(plan_render_free_pages_of(c->free_pages, pg->size_kb));
        st = clampv(plan_render_free_pages_of(c->pages_without_cpus, pg->size_kb));
        st = st < f ? st : f;
        snprintf(b[n].label, sizeof(b[n].label), "%s pages", page_size_name(pg->size_kb, sz));
        b[n].used = clampv(clampv(pg->total) - f);
        b[n].stranded = st;
        b[n].free = f - st;
        b[n].total = clampv(pg->total);
        snprintf(b[n].text, sizeof(b[n].text),
                 "used %s, stranded %s (in cells without free pCPUs), free %s of %s",
                 G(0, b[n].used), G(1, b[n].stranded), G(2, b[n].free), G(3, b[n].total));
        if (pg->reserved)
            snprintf(b[n].text + strlen(b[n].text), sizeof(b[n].text) - strlen(b[n].text),
                     " (%s reserved)", G(0, pg->reserved));
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
    char num[48];
    if (w <= 0)
        return;
    fprintf(o, "<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
            cls, x, y, w, h, fill);
    cli_fmt_count(v, num, sizeof(num));
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
        fmax = plan_render_count_of(s->alone, p->flavors[i]) > fmax
                   ? plan_render_count_of(s->alone, p->flavors[i])
                   : fmax;
        fmax = plan_render_count_of(s->mixed, p->flavors[i]) > fmax
                   ? plan_render_count_of(s->mixed, p->flavors[i])
                   : fmax;
    }
    name_w = imax(name_w, label_w) + 6;
    fmax = clampv(fmax);
    for (i = 0; i < p->nflavors; i++) {
        long long a = clampv(plan_render_count_of(s->alone, p->flavors[i]));
        long long m = clampv(plan_render_count_of(s->mixed, p->flavors[i]));
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
            plan_render_esc(o, p->flavors[i]);
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
                    plan_render_state_names[s], x0 + x, y0, 24, 14, fill,
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

void plan_render_fleet_line(const struct plan *p, struct line *l) {
    char sz[24];
    char g[6][48];
    size_t i;

    memset(l, 0, sizeof(*l));
    line_add(l, "Fleet: %s hosts", G(0, p->hosts));
    if (p->has_cells)
        line_add(l, ", %s cells", G(0, p->cells));
    line_add(l, ", %s dedicated pCPUs", G(0, p->pcpus));
    if (p->has_shared_cpus)
        line_add(l, ", %s shared CPUs", G(0, p->shared_cpus));
    line_add(l, ", %s", cli_fmt_mib(p->memory_mb, g[0], sizeof(g[0])));
    for (i = 0; i < p->nfpages; i++)
        if (p->fpages[i].size_kb > 4 && p->fpages[i].total)
            line_add(l, ", %s x %s pages", G(0, p->fpages[i].total),
                     page_size_name(p->fpages[i].size_kb, sz));
    if (p->has_loaded)
        line_add(l, "; instances loaded: %s", G(0, p->instances_loaded));
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
void plan_render_picture(FILE *o, const struct plan *p, struct res *s, const char *pid,
                         bool standalone) {
    struct line title, fleet;
    int w, h, y, cw;
    size_t k;

    picture_size(p, s, standalone, &w, &h);
    memset(&title, 0, sizeof(title));
    line_add(&title, "numafit plan \xe2\x80\x94 strategy ");
    line_cat(&title, s->name, 32);
    plan_render_fleet_line(p, &fleet);
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

int plan_render_finish(FILE *out, char *err, size_t errlen) {
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
    if (plan_render_read(plan, strategy, &p, err, errlen) < 0) {
        plan_render_free(&p);
        return -1;
    }
    plan_render_picture(out, &p, &p.res[0], "nf0", true);
    plan_render_free(&p);
    return plan_render_finish(out, err, errlen);
}
