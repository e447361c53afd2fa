/*
 * numafit plan over a fleet: what comes out. The JSON object of
 * doc/plan-json.md, the terminal report (strategies side by side), the text
 * picture of the drawn hosts (--detail), the progress bar (stderr, on a
 * terminal, for runs longer than half a second), and the command line's
 * printing of what the planner reports (its sink).
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include <numafit.h>

#include "cli.h"
#include "plan_fleet.h"

/* The name of result r's strategy. */
static const char *sname(const struct plan_result *r) {
    const char *n = plan_strategy_name(r->strategy);
    return n ? n : "?";
}

static double mono_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------------ progress bar */

struct plan_progress {
    uint64_t total, done;
    double start, last;
    const char *phase;
    bool drawn;
};

struct plan_progress *plan_progress_new(bool enabled, uint64_t total) {
    struct plan_progress *p;
    if (!enabled || !total)
        return NULL;
    p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->total = total;
    p->start = p->last = mono_s();
    p->phase = "";
    return p;
}

void plan_progress_phase(struct plan_progress *p, const char *phase) {
    if (p)
        p->phase = phase;
}

void plan_progress_step(struct plan_progress *p, uint64_t units, const char *what) {
    double now, frac, eta;
    char bar[41];
    int filled;

    if (!p)
        return;
    p->done += units;
    if (p->done > p->total)
        p->done = p->total;
    now = mono_s();
    /* only for long runs, at most 10 times a second */
    if (now - p->start < 0.5 || now - p->last < 0.1)
        return;
    p->last = now;
    frac = (double)p->done / (double)p->total;
    filled = (int)(frac * 40);
    memset(bar, '#', (size_t)filled);
    memset(bar + filled, '-', (size_t)(40 - filled));
    bar[40] = '\0';
    eta = frac > 0.01 ? (now - p->start) * (1 - frac) / frac : -1;
    fprintf(stderr, "\rnumafit plan [%s] %3d%% %-6s %-8s", bar, (int)(frac * 100), p->phase, what);
    if (eta >= 0)
        fprintf(stderr, " ~%.0fs left ", eta);
    fflush(stderr);
    p->drawn = true;
}

void plan_progress_end(struct plan_progress *p) {
    if (!p)
        return;
    if (p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    free(p);
}

/* ------------------------------------------------------------------ messages */

void plan_err(const char *fmt, ...) {
    va_list ap;
    fputs("numafit plan: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* "PREFIX: WHERE: TEXT (Exception)" for a failed library call. */
void plan_lib_err(const char *prefix, int rc, const numafit_error_t *e) {
    const char *text = e && e->text[0] ? e->text : numafit_strerror(rc);
    fprintf(stderr, "numafit plan: %s: ", prefix);
    if (e && e->where[0])
        fprintf(stderr, "%s: ", e->where);
    fputs(text, stderr);
    if (e && e->exception[0])
        fprintf(stderr, " (%s)", e->exception);
    fputc('\n', stderr);
}

static void note_stderr(void *ctx, int kind, const char *text) {
    (void)ctx;
    fprintf(stderr, "numafit plan: %s%s\n", kind == PLAN_NOTE_WARNING ? "warning: " : "", text);
}

/* One bar at a time, in pl->progress: the command line's for the fills,
 * the planner's own (BEGIN ... END) while it loads a big dump. */
static void tick_stderr(void *ctx, int kind, uint64_t n, const char *text) {
    struct plan *pl = ctx;
    switch (kind) {
        case PLAN_TICK_BEGIN:
            pl->progress = plan_progress_new(true, n);
            plan_progress_phase(pl->progress, text);
            break;
        case PLAN_TICK_STEP:
            plan_progress_step(pl->progress, n, text);
            break;
        default:
            plan_progress_end(pl->progress);
            pl->progress = NULL;
            break;
    }
}

void plan_sink_stderr(struct plan *pl) {
    pl->sink.note = note_stderr;
    pl->sink.tick = tick_stderr;
    pl->sink.ctx = pl;
}

/* ------------------------------------------------------------------ JSON */

static json_t *flavor_counts(const struct plan *pl, const uint64_t *v) {
    json_t *o = json_object();
    for (unsigned f = 0; o && f < pl->nflavors; f++)
        if (pl->flavors[f].planned)
            json_object_set_new(o, pl->flavors[f].name, json_integer((json_int_t)v[f]));
    return o;
}

static json_t *whynot_json(const struct plan *pl, const struct plan_whynot *w) {
    json_t *o = json_object(), *reasons = json_array();
    bool done[R__MAX] = {false};
    if (!o || !reasons) {
        json_decref(o);
        json_decref(reasons);
        return NULL;
    }
    json_object_set_new(o, "when", json_string(w->before_fill ? "before_fill" : "after_fill"));
    json_object_set_new(o, "hosts_checked", json_integer(w->hosts_checked));
    json_object_set_new(o, "hosts", json_integer((json_int_t)pl->nhosts));
    json_object_set_new(o, "sampled", json_boolean(w->hosts_checked < pl->nhosts));
    json_object_set_new(o, "host_cells", json_integer((json_int_t)w->host_cells));
    /* most frequent first */
    for (;;) {
        int best = -1;
        for (int r = 0; r < R__MAX; r++)
            if (!done[r] && w->count[r] && (best < 0 || w->count[r] > w->count[best]))
                best = r;
        if (best < 0)
            break;
        done[best] = true;
        json_array_append_new(reasons, json_pack("{sssI}", "reason", plan_reason_name(best),
                                                 "count", (json_int_t)w->count[best]));
    }
    json_object_set_new(o, "reasons", reasons);
    return o;
}

static json_t *amounts_json(const int64_t *a) {
    json_t *o = json_object();
    for (int rc = 0; o && rc < NUMAFIT_RC_COUNT; rc++)
        if (a[rc])
            json_object_set_new(o, numafit_resource_class_to_string(rc), json_integer(a[rc]));
    return o;
}

/* {STOP: count} of the non-zero counts. */
static json_t *stops_json(const uint32_t *hosts, const uint64_t *amounts) {
    json_t *o = json_object();
    for (int s = 0; o && s < STOP__MAX; s++) {
        uint64_t v = hosts ? hosts[s] : amounts[s];
        if (v)
            json_object_set_new(o, plan_stop_name(s), json_integer((json_int_t)v));
    }
    return o;
}

static json_t *overcommit_json(const struct plan *pl, const struct plan_overcommit *c) {
    return json_pack("{sIsIsIss?sI}", "shared_hosts", (json_int_t)c->shared_hosts, "hosts",
                     (json_int_t)c->hosts, "memory_mb", (json_int_t)c->memory_mb, "worst_host",
                     c->hosts ? plan_host_name(pl, c->worst_host) : NULL, "worst_mb",
                     (json_int_t)c->worst_mb);
}

static json_t *inventory_result_json(const struct plan *pl, const struct plan_result *r) {
    json_t *o = json_object(), *cls = json_object(), *stopped = json_object();
    if (!o || !cls || !stopped) {
        json_decref(o);
        json_decref(cls);
        json_decref(stopped);
        return NULL;
    }
    for (int rc = 0; rc < NUMAFIT_RC_COUNT; rc++) {
        const struct plan_classes *c = &r->classes;
        uint64_t left = 0;
        for (int s = 0; s < STOP__MAX; s++)
            left += c->left_by[rc][s];
        if (rc == NUMAFIT_RC_DISK_GB && !pl->disk_planned)
            continue;
        json_object_set_new(cls, numafit_resource_class_to_string(rc),
                            json_pack("{sIsIsIsIso}", "capacity", (json_int_t)c->capacity[rc],
                                      "used_before", (json_int_t)c->used_before[rc], "used",
                                      (json_int_t)c->used[rc], "left", (json_int_t)left,
                                      "left_by_full_class", stops_json(NULL, c->left_by[rc])));
    }
    for (unsigned f = 0; f < pl->nflavors; f++)
        if (pl->flavors[f].planned)
            json_object_set_new(stopped, pl->flavors[f].name,
                                json_pack("{sosb}", "hosts", stops_json(r->stopped[f], NULL),
                                          "second_query", r->legacy[f]));
    json_object_set_new(o, "classes", cls);
    json_object_set_new(o, "hosts_by_full_class", stops_json(r->classes.hosts_by, NULL));
    json_object_set_new(o, "alone_stopped_by", stopped);
    json_object_set_new(o, "numa_overcommit", overcommit_json(pl, &r->overcommit));
    return o;
}

static json_t *result_json(const struct plan *pl, const struct plan_result *r) {
    json_t *o = json_object(), *why = json_object(), *sum = json_array();
    if (!o || !why || !sum) {
        json_decref(o);
        json_decref(why);
        json_decref(sum);
        return NULL;
    }
    json_object_set_new(o, "alone", flavor_counts(pl, r->alone));
    json_object_set_new(o, "mixed", flavor_counts(pl, r->mixed));
    json_object_set_new(o, "mixed_total", json_integer((json_int_t)r->mixed_total));
    json_object_set_new(o, "hosts_used", json_integer(r->hosts_used));
    json_object_set_new(o, "capped_hosts", json_integer(r->capped_hosts));
    json_object_set_new(o, "stranded", plan_cap_json(pl, &r->stranded));
    json_object_set_new(o, "inventory", pl->inventory ? inventory_result_json(pl, r) : json_null());
    for (unsigned f = 0; f < pl->nflavors; f++)
        if (r->whynot[f].asked)
            json_object_set_new(why, pl->flavors[f].name, whynot_json(pl, &r->whynot[f]));
    json_object_set_new(o, "why_not", why);
    json_object_set_new(o, "hosts", json_incref(r->hosts ? r->hosts : json_array()));
    for (uint32_t t = 0; t < r->ntop; t++) {
        const struct plan_top *tp = &r->top[t];
        json_t *m = json_object();
        for (unsigned f = 0; m && f < pl->nflavors; f++)
            if (pl->flavors[f].planned)
                json_object_set_new(m, pl->flavors[f].name, json_integer(tp->mixed[f]));
        json_array_append_new(sum, json_pack("{sssosIsI}", "name", plan_host_name(pl, tp->host),
                                             "mixed", m ? m : json_object(), "stranded_pcpus",
                                             (json_int_t)tp->stranded_pcpus, "stranded_memory_mb",
                                             (json_int_t)tp->stranded_memory_mb));
    }
    json_object_set_new(o, "hosts_summary", sum);
    if (pl->has_target) {
        const struct plan_target *t = &r->target;
        json_object_set_new(o, "target",
                            json_pack("{sbsosIsIso}", "reachable", t->reachable, "hosts_needed",
                                      t->reachable ? json_integer(t->hosts_needed) : json_null(),
                                      "hosts_used", (json_int_t)t->hosts_used, "placed",
                                      (json_int_t)t->placed_total, "placed_by_flavor",
                                      flavor_counts(pl, t->placed)));
    }
    return o;
}

json_t *plan_to_json(const struct plan *pl) {
    json_t *o = json_object(), *fleet = json_object(), *src = json_array(), *pages = json_array();
    json_t *flavors = json_array(), *strat = json_object(), *lim;

    if (!o || !fleet || !src || !pages || !flavors || !strat) {
        json_decref(o);
        json_decref(fleet);
        json_decref(src);
        json_decref(pages);
        json_decref(flavors);
        json_decref(strat);
        return NULL;
    }
    json_object_set_new(o, "numafit_plan", json_integer(1));
    json_object_set_new(o, "nova_release",
                        json_string(pl->profile == NUMAFIT_PROFILE_ZED ? "zed" : "latest"));
    json_object_set_new(fleet, "hosts", json_integer((json_int_t)pl->nhosts));
    for (size_t i = 0; i < pl->nsources; i++)
        json_array_append_new(
            src, json_pack("{sssssIsI}", "kind", plan_source_kind_name(pl->sources[i].kind), "what",
                           pl->sources[i].what, "hosts", (json_int_t)pl->sources[i].hosts,
                           "skipped", (json_int_t)pl->sources[i].skipped));
    json_object_set_new(fleet, "sources", src);
    json_object_set_new(fleet, "instances_loaded", json_integer((json_int_t)pl->instances_loaded));
    json_object_set_new(fleet, "instances_skipped",
                        json_integer((json_int_t)pl->instances_skipped));
    json_object_set_new(fleet, "instances_inventory_only",
                        json_integer((json_int_t)pl->instances_nonnuma));
    json_object_set_new(fleet, "cells", json_integer((json_int_t)pl->st_cells));
    json_object_set_new(fleet, "pcpus", json_integer((json_int_t)pl->st_pcpus));
    json_object_set_new(fleet, "shared_cpus", json_integer((json_int_t)pl->st_shared_cpus));
    json_object_set_new(fleet, "memory_mb", json_integer((json_int_t)pl->st_memory_mb));
    for (unsigned k = 0; k < pl->npage_sizes; k++)
        json_array_append_new(pages,
                              json_pack("{sIsIsIsI}", "size_kb", (json_int_t)pl->page_sizes[k],
                                        "total", (json_int_t)pl->st_pages_total[k], "used",
                                        (json_int_t)pl->st_pages_used[k], "reserved",
                                        (json_int_t)pl->st_pages_reserved[k]));
    json_object_set_new(fleet, "pages", pages);
    json_object_set_new(o, "fleet", fleet);

    if (pl->no_limits)
        lim = json_null();
    else
        lim = json_pack("{sfsfss}", "cpu_allocation_ratio", pl->limits[0].cpu_ratio,
                        "ram_allocation_ratio", pl->limits[0].ram_ratio, "from",
                        pl->limits_path   ? pl->limits_path
                        : pl->limits_from ? pl->limits_from
                                          : "default");
    if (lim && json_is_object(lim)) {
        json_int_t per_host = 0;
        for (size_t i = 0; i < pl->nhosts; i++)
            per_host += pl->hosts[i].limits != 0;
        json_object_set_new(lim, "hosts_with_own_ratios", json_integer(per_host));
    }
    json_object_set_new(o, "limits", lim ? lim : json_null());
    if (pl->inventory)
        json_object_set_new(o, "inventory",
                            json_pack("{sbso}", "disk_planned", pl->disk_planned,
                                      "numa_overcommit_before",
                                      overcommit_json(pl, &pl->overcommit_before)));
    else
        json_object_set_new(o, "inventory", json_null());

    for (unsigned f = 0; f < pl->nflavors; f++) {
        const struct plan_flavor *fl = &pl->flavors[f];
        json_t *e = json_object();
        json_t *ip = json_object_get(fl->given, "image_properties");
        if (!e)
            continue;
        json_object_set_new(e, "name", json_string(fl->name));
        json_object_set(e, "vcpus", json_object_get(fl->given, "vcpus"));
        json_object_set(e, "memory_mb", json_object_get(fl->given, "memory_mb"));
        json_object_set_new(e, "extra_specs",
                            json_object_get(fl->given, "extra_specs")
                                ? json_incref(json_object_get(fl->given, "extra_specs"))
                                : json_object());
        json_object_set_new(e, "image_properties", ip ? json_incref(ip) : json_object());
        json_object_set_new(e, "weight", json_real(fl->weight));
        json_object_set_new(e, "numa_cells", json_integer(fl->req ? fl->cells : 0));
        json_object_set_new(e, "planned", json_boolean(fl->planned));
        json_object_set_new(e, "resources", amounts_json(fl->amounts));
        json_object_set_new(e, "second_query",
                            (fl->rbits & NUMAFIT_RESOURCES_FALLBACK) ? amounts_json(fl->legacy)
                                                                     : json_null());
        if (pl->pci)
            json_object_set_new(e, "pci_devices", json_integer((json_int_t)fl->pci_devices));
        if (fl->form != NUMAFIT_FORM_NATIVE)
            json_object_set_new(e, "read_as", json_string(numafit_input_form_to_string(fl->form)));
        json_array_append_new(flavors, e);
    }
    json_object_set_new(o, "flavors", flavors);
    json_object_set_new(o, "mix", json_string(pl->weights ? "weights" : "round-robin"));
    json_object_set_new(o, "max_instances", json_integer((json_int_t)pl->max_instances));
    if (pl->has_target)
        json_object_set_new(o, "target",
                            json_pack("{sIsoss}", "instances", (json_int_t)pl->target, "shares",
                                      flavor_counts(pl, pl->target_share), "hosts", "fleet order"));
    for (unsigned i = 0; i < pl->nresults; i++)
        json_object_set_new(strat, sname(&pl->results[i]), result_json(pl, &pl->results[i]));
    json_object_set_new(o, "strategies", strat);
    return o;
}

/* ------------------------------------------------------------------ terminal report */

static void size_name(uint64_t kb, char *out, size_t cap) {
    cli_fmt_page_size((long long)kb, true, out, cap);
}

/* "dedicated isolate 1G x2" */
static void flavor_policy(const struct plan_flavor *fl, char *out, size_t cap) {
    const char *pol = numafit_cpu_policy_to_string(fl->cpu_policy);
    const char *thr = numafit_thread_policy_to_string(fl->thread_policy);
    size_t n;
    n = (size_t)snprintf(out, cap, "%s", pol ? pol : "shared");
    if (thr && n < cap)
        n += (size_t)snprintf(out + n, cap - n, " %s", thr);
    if (fl->emulator_policy == NUMAFIT_EMULATOR_THREADS_ISOLATE && n < cap)
        n += (size_t)snprintf(out + n, cap - n, " emu-isolate");
    if (fl->pagesize_kb > 4 && n < cap) {
        char sz[16];
        size_name((uint64_t)fl->pagesize_kb, sz, sizeof(sz));
        n += (size_t)snprintf(out + n, cap - n, " %s", sz);
    } else {
        const char *ps = json_string_value(
            json_object_get(json_object_get(fl->given, "extra_specs"), "hw:mem_page_size"));
        if (ps && n < cap)
            n += (size_t)snprintf(out + n, cap - n, " %s", ps);
    }
    if (fl->cells > 1 && n < cap)
        n += (size_t)snprintf(out + n, cap - n, " x%d", fl->cells);
    if (fl->pci_devices > 0 && n < cap)
        snprintf(out + n, cap - n, " +%lld PCI", (long long)fl->pci_devices);
}

/* A count, grouped from 10,000 on (cli_fmt_count); b has 32 bytes. */
static const char *cnt(uint64_t v, char *b) {
    return cli_fmt_count(v > (uint64_t)LLONG_MAX ? LLONG_MAX : (long long)v, b, 32);
}

static void fmt_u(uint64_t v, char *out, size_t cap) {
    char b[32];
    snprintf(out, cap, "%s", cnt(v, b));
}

/* One row of a table: label, then one value per strategy. */
static void row(FILE *o, const struct plan *pl, int indent, const char *label,
                const uint64_t *vals) {
    char buf[32];
    fprintf(o, "%*s%-*s", indent, "", 50 - indent, label);
    for (unsigned i = 0; i < pl->nresults; i++) {
        fmt_u(vals[i], buf, sizeof(buf));
        fprintf(o, " %12s", buf);
    }
    fputc('\n', o);
}

/* A row of MiB, and below it the same in GiB when one is 10 GiB or more. */
static void row_mib(FILE *o, const struct plan *pl, int indent, const char *label,
                    const uint64_t *vals) {
    bool big = false;
    row(o, pl, indent, label, vals);
    for (unsigned i = 0; i < pl->nresults; i++)
        big = big || vals[i] >= 10240;
    if (!big)
        return;
    fprintf(o, "%*s%-*s", indent + 2, "", 48 - indent, "(GiB)");
    for (unsigned i = 0; i < pl->nresults; i++) {
        char buf[48];
        fprintf(o, " %12s",
                cli_fmt_gib(vals[i] > (uint64_t)LLONG_MAX ? LLONG_MAX : (long long)vals[i], false,
                            buf, sizeof(buf)));
    }
    fputc('\n', o);
}

#define CAPROW_(rowf, o, pl, indent, label, field)                                                 \
    do {                                                                                           \
        uint64_t v_[PLAN_MAX_STRATEGIES] = {0};                                                    \
        for (unsigned i_ = 0; i_ < (pl)->nresults; i_++)                                           \
            v_[i_] = (pl)->results[i_].stranded.field;                                             \
        rowf(o, pl, indent, label, v_);                                                            \
    } while (0)
#define CAPROW(o, pl, indent, label, field)     CAPROW_(row, o, pl, indent, label, field)
#define CAPROW_MIB(o, pl, indent, label, field) CAPROW_(row_mib, o, pl, indent, label, field)

static const char *reason_label(int r) {
    static const char *const l[R__MAX] = {
        "huge pages",    "dedicated CPUs", "shared CPUs",      "full cores",
        "memory",        "limits",         "network affinity", "too few cells",
        "cells jointly", "other",          "PCI devices",      "placement inventory"};
    return r >= 0 && r < R__MAX ? l[r] : "other";
}

static void print_whynot(FILE *o, const struct plan *pl, const struct plan_result *r) {
    bool any = false;
    for (unsigned f = 0; f < pl->nflavors; f++) {
        const struct plan_whynot *w = &r->whynot[f];
        char b1[32], b2[32];
        bool done[R__MAX] = {false};
        unsigned shown = 0;
        if (!w->asked)
            continue;
        if (!any)
            fprintf(o, "\nWhy not (%s):\n", sname(r));
        any = true;
        fprintf(o, "  %s: fits nowhere %s; %s refusal%s on %s host%s%s:", pl->flavors[f].name,
                w->before_fill ? "even now" : "after the fill", cnt(w->host_cells, b1),
                w->host_cells == 1 ? "" : "s", cnt(w->hosts_checked, b2),
                w->hosts_checked == 1 ? "" : "s",
                w->hosts_checked < pl->nhosts ? " (a sample)" : "");
        for (;;) {
            int best = -1;
            for (int k = 0; k < R__MAX; k++)
                if (!done[k] && w->count[k] && (best < 0 || w->count[k] > w->count[best]))
                    best = k;
            if (best < 0 || shown == 4)
                break;
            done[best] = true;
            fprintf(o, "%s %s %.0f%%", shown ? "," : "", reason_label(best),
                    w->host_cells ? 100.0 * (double)w->count[best] / (double)w->host_cells : 0.0);
            shown++;
        }
        if (!shown)
            fprintf(o, " (it fits: the hosts were skipped at --max-instances)");
        fputc('\n', o);
    }
}

static void print_top(FILE *o, const struct plan *pl, const struct plan_result *r) {
    if (!r->ntop)
        return;
    fprintf(o, "\nHosts stranding most (%s):\n", sname(r));
    fprintf(o, "  %-28s %14s %14s  %s\n", "host", "stranded pCPUs", "stranded MiB", "placed");
    for (uint32_t t = 0; t < r->ntop; t++) {
        const struct plan_top *tp = &r->top[t];
        char placed[512], b1[32], b2[32];
        size_t n = 0;
        placed[0] = '\0';
        for (unsigned f = 0; f < pl->nflavors && n < sizeof(placed); f++)
            if (tp->mixed[f])
                n += (size_t)snprintf(placed + n, sizeof(placed) - n, "%s%s %u", n ? ", " : "",
                                      pl->flavors[f].name, tp->mixed[f]);
        fprintf(o, "  %-28s %14s %14s  %s\n", plan_host_name(pl, tp->host),
                cnt(tp->stranded_pcpus, b1), cnt(tp->stranded_memory_mb, b2), n ? placed : "-");
    }
}

/* A text picture of one <host> object: a letter per instance on its pinned
 * threads. */
static void print_host_picture(FILE *o, const json_t *host) {
    static const char letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    json_t *cells = json_object_get(host, "cells"), *inst = json_object_get(host, "instances");
    json_t *st = json_object_get(host, "stranded"), *c, *v;
    const char *k;
    size_t i, j;
    bool first = true;

    fprintf(o, "\n  %s (%s):", json_string_value(json_object_get(host, "name")),
            json_string_value(json_object_get(host, "source")));
    json_object_foreach(json_object_get(host, "mixed"), k, v) {
        if (json_integer_value(v)) {
            fprintf(o, "%s %s %lld", first ? "" : ",", k, (long long)json_integer_value(v));
            first = false;
        }
    }
    if (first)
        fprintf(o, " nothing placed");
    fprintf(o, "; left: %lld free pCPUs, %lld lost siblings, %lld orphan threads\n",
            (long long)json_integer_value(json_object_get(st, "free_pcpus")),
            (long long)json_integer_value(json_object_get(st, "lost_siblings")),
            (long long)json_integer_value(json_object_get(st, "orphan_threads")));
    json_array_foreach(cells, i, c) {
        json_t *sock = json_object_get(c, "socket"), *core, *t, *pg;
        char b1[48], b2[48];
        size_t ncores = 0;
        fprintf(o, "    cell %lld", (long long)json_integer_value(json_object_get(c, "id")));
        if (json_is_integer(sock))
            fprintf(o, " (socket %lld)", (long long)json_integer_value(sock));
        fprintf(
            o, ": memory %s of %s used",
            cli_fmt_count(json_integer_value(json_object_get(c, "memory_used_mb")), b1, sizeof(b1)),
            cli_fmt_mib(json_integer_value(json_object_get(c, "memory_mb")), b2, sizeof(b2)));
        json_array_foreach(json_object_get(c, "pages"), j, pg) {
            long long size = json_integer_value(json_object_get(pg, "size_kb"));
            char sz[16];
            if (size <= 4 || !json_integer_value(json_object_get(pg, "total")))
                continue;
            size_name((uint64_t)size, sz, sizeof(sz));
            fprintf(
                o, ", %s pages %s of %s used", sz,
                cli_fmt_count(json_integer_value(json_object_get(pg, "used")), b1, sizeof(b1)),
                cli_fmt_count(json_integer_value(json_object_get(pg, "total")), b2, sizeof(b2)));
        }
        fprintf(o, ", shared cpu_usage %lld\n     ",
                (long long)json_integer_value(json_object_get(c, "cpu_usage")));
        json_array_foreach(json_object_get(c, "cores"), j, core) {
            size_t ti;
            if (ncores && ncores % 16 == 0)
                fprintf(o, "\n     ");
            fputs(" [", o);
            json_array_foreach(core, ti, t) {
                const char *s = json_string_value(json_object_get(t, "state"));
                json_int_t id = json_integer_value(json_object_get(t, "instance"));
                char ch = '?';
                if (!s)
                    s = "";
                if (strcmp(s, "pinned") == 0)
                    ch = id > 0 ? letters[(id - 1) % 52] : '?';
                else if (strcmp(s, "emulator") == 0)
                    ch = '+';
                else if (strcmp(s, "isolated") == 0)
                    ch = '-';
                else if (strcmp(s, "used") == 0)
                    ch = 'u';
                else if (strcmp(s, "free") == 0)
                    ch = '.';
                else if (strcmp(s, "shared") == 0)
                    ch = 's';
                else if (strcmp(s, "offline") == 0)
                    ch = ' ';
                fputc(ch, o);
            }
            fputc(']', o);
            ncores++;
        }
        fputc('\n', o);
    }
    if (json_array_size(inst)) {
        json_t *in;
        fprintf(o, "    instances:");
        json_array_foreach(inst, i, in) {
            json_int_t id = json_integer_value(json_object_get(in, "id"));
            const char *fl = json_string_value(json_object_get(in, "flavor"));
            if (i && i % 6 == 0)
                fprintf(o, ",\n               ");
            else if (i)
                fputc(',', o);
            fprintf(o, " %c=#%lld %s%s", id > 0 ? letters[(id - 1) % 52] : '?', (long long)id,
                    fl ? fl : "?",
                    json_is_true(json_object_get(in, "existing")) ? " (existing)" : "");
        }
        fputc('\n', o);
    }
}

/* The biggest non-zero count of a stop tally (-1: none). */
static int top_stop(const uint64_t *v) {
    int best = -1;
    for (int s = 0; s < STOP__MAX; s++)
        if (v[s] && (best < 0 || v[s] > v[best]))
            best = s;
    return best;
}

static void print_overcommit(FILE *o, const struct plan *pl, const char *when,
                             const struct plan_overcommit *c) {
    char m1[48], m2[48];
    if (c->shared_hosts)
        fprintf(o,
                "  (%s: %u host%s run guests with and without NUMA topology; nova counts the "
                "latter in placement only, not in the cells)\n",
                when, c->shared_hosts, c->shared_hosts == 1 ? "" : "s");
    if (!c->hosts)
        return;
    fprintf(o,
            "  warning (%s): on %u host%s, guests without NUMA topology have %s more "
            "memory than the cells' small pages hold beside huge pages and NUMA guests (at "
            "most %s, host %s): nova counts them in placement only, so the cells are "
            "overcommitted\n",
            when, c->hosts, c->hosts == 1 ? "" : "s", cli_fmt_mib((long long)c->memory_mb, m1, 48),
            cli_fmt_mib((long long)c->worst_mb, m2, 48), plan_host_name(pl, c->worst_host));
}

/* "small 500, large 370" of counts v (planned flavors), into out. */
static void by_flavor(const struct plan *pl, const uint64_t *v, char *out, size_t cap) {
    size_t n = 0;
    out[0] = '\0';
    for (unsigned f = 0; f < pl->nflavors && n < cap; f++) {
        char b[32];
        if (pl->flavors[f].planned)
            n += (size_t)snprintf(out + n, cap - n, "%s%s %s", n ? ", " : "", pl->flavors[f].name,
                                  cnt(v[f], b));
    }
}

/* --target: the hosts each strategy needs. */
static void print_target(FILE *o, const struct plan *pl) {
    char shares[1024], b1[32], b2[32], b3[32], b4[32];
    by_flavor(pl, pl->target_share, shares, sizeof(shares));
    fprintf(o, "\nTarget: %s instances of the mix (%s), on the fleet's hosts in order\n",
            cnt(pl->target, b1), shares);
    for (unsigned i = 0; i < pl->nresults; i++) {
        const struct plan_target *t = &pl->results[i].target;
        if (t->reachable) {
            fprintf(o, "  %-9s %s host%s (the first %s of %s; %s given instances)\n",
                    sname(&pl->results[i]), cnt(t->hosts_needed, b1),
                    t->hosts_needed == 1 ? "" : "s", cnt(t->hosts_needed, b2), cnt(pl->nhosts, b3),
                    cnt(t->hosts_used, b4));
        } else {
            char placed[1024];
            by_flavor(pl, t->placed, placed, sizeof(placed));
            fprintf(o, "  %-9s not reachable with this fleet: %s of %s placed (%s)\n",
                    sname(&pl->results[i]), cnt(t->placed_total, b1), cnt(pl->target, b2), placed);
        }
    }
}

/* Placement's classes after the mixed fill; what stopped each flavor alone. */
static void print_inventory(FILE *o, const struct plan *pl) {
    fprintf(o, "\n%-50s", "Placement inventory (after the mixed fill)");
    for (unsigned i = 0; i < pl->nresults; i++)
        fprintf(o, " %12s", sname(&pl->results[i]));
    fputc('\n', o);
    for (int rc = 0; rc < NUMAFIT_RC_COUNT; rc++) {
        const char *name = numafit_resource_class_to_string(rc);
        char label[128];
        uint64_t cap[PLAN_MAX_STRATEGIES] = {0}, before[PLAN_MAX_STRATEGIES] = {0};
        uint64_t used[PLAN_MAX_STRATEGIES] = {0}, left[PLAN_MAX_STRATEGIES] = {0};
        uint64_t by[PLAN_MAX_STRATEGIES][STOP__MAX];
        memset(by, 0, sizeof(by));
        if (rc == NUMAFIT_RC_DISK_GB && !pl->disk_planned)
            continue;
        for (unsigned i = 0; i < pl->nresults; i++) {
            const struct plan_classes *c = &pl->results[i].classes;
            cap[i] = c->capacity[rc];
            before[i] = c->used_before[rc];
            used[i] = c->used[rc];
            for (int s = 0; s < STOP__MAX; s++) {
                left[i] += c->left_by[rc][s];
                by[i][s] = c->left_by[rc][s];
            }
        }
        if (!cap[0] && !used[0])
            continue;
        snprintf(label, sizeof(label), "%s capacity", name);
        {
            void (*r)(FILE *, const struct plan *, int, const char *, const uint64_t *) =
                rc == NUMAFIT_RC_MEMORY_MB ? row_mib : row;
            r(o, pl, 2, label, cap);
            r(o, pl, 4, "used before the plan", before);
            r(o, pl, 4, "used after the mixed fill", used);
            r(o, pl, 4, "left", left);
        }
        for (unsigned i = 0; i < pl->nresults; i++) {
            int s = top_stop(by[i]);
            if (s < 0)
                continue;
            char nb[32];
            cnt(by[i][s], nb);
            if (s == rc)
                fprintf(o, "      (%s: %s of it in pieces smaller than any flavor asks)\n",
                        sname(&pl->results[i]), nb);
            else if (s == STOP_NUMA)
                fprintf(o, "      (%s: %s of it on hosts where the NUMA fit stops the mix)\n",
                        sname(&pl->results[i]), nb);
            else
                fprintf(o, "      (%s: %s of it on hosts whose %s is full)\n",
                        sname(&pl->results[i]), nb, plan_stop_name(s));
        }
    }
    fprintf(o, "  what stopped each flavor alone (hosts):\n");
    for (unsigned f = 0; f < pl->nflavors; f++) {
        if (!pl->flavors[f].planned)
            continue;
        for (unsigned i = 0; i < pl->nresults; i++) {
            const struct plan_result *r = &pl->results[i];
            char nb[32];
            bool any = false;
            fprintf(o, "    %-16.16s %-7s", pl->flavors[f].name, sname(r));
            for (int s = 0; s < STOP__MAX; s++)
                if (r->stopped[f][s]) {
                    fprintf(o, "%s%s %s", any ? ", " : " ", plan_stop_name(s),
                            cnt(r->stopped[f][s], nb));
                    any = true;
                }
            if (r->legacy[f])
                fprintf(o, " (nova's second query: VCPU)");
            fputc('\n', o);
        }
    }
    print_overcommit(o, pl, "before the plan", &pl->overcommit_before);
    for (unsigned i = 0; i < pl->nresults; i++)
        print_overcommit(o, pl, sname(&pl->results[i]), &pl->results[i].overcommit);
}

void plan_report(FILE *o, const struct plan *pl) {
    char buf[256];
    uint64_t v[PLAN_MAX_STRATEGIES];

    fprintf(o, "numafit plan: %s host%s, %u flavor%s, nova rules %s, mix %s\n",
            cnt(pl->nhosts, buf), pl->nhosts == 1 ? "" : "s", pl->nflavors,
            pl->nflavors == 1 ? "" : "s", pl->profile == NUMAFIT_PROFILE_ZED ? "zed" : "latest",
            pl->weights ? "by weights" : "round-robin");
    for (size_t i = 0; i < pl->nsources; i++) {
        const struct plan_source *s = &pl->sources[i];
        fprintf(o, "  %-9s %s: %s host%s", plan_source_kind_name(s->kind), s->what,
                cnt(s->hosts, buf), s->hosts == 1 ? "" : "s");
        if (s->skipped)
            fprintf(o, " (%s row%s skipped)", cnt(s->skipped, buf), s->skipped == 1 ? "" : "s");
        fputc('\n', o);
    }
    {
        char b1[32], b2[32], b3[32], m[48];
        fprintf(o, "  fleet: %s cells, %s dedicated pCPUs, %s shared CPUs, %s of memory\n",
                cnt(pl->st_cells, b1), cnt(pl->st_pcpus, b2), cnt(pl->st_shared_cpus, b3),
                cli_fmt_mib((long long)pl->st_memory_mb, m, sizeof(m)));
        for (unsigned k = 0; k < pl->npage_sizes; k++) {
            size_name(pl->page_sizes[k], buf, sizeof(buf));
            fprintf(o, "         %s pages: %s, %s used, %s reserved\n", buf,
                    cnt(pl->st_pages_total[k], b1), cnt(pl->st_pages_used[k], b2),
                    cnt(pl->st_pages_reserved[k], b3));
        }
    }
    if (pl->instances_loaded || pl->instances_skipped || pl->instances_nonnuma) {
        char b2[32];
        fprintf(o, "  existing instances claimed: %s (%s without NUMA topology)\n",
                cnt(pl->instances_loaded, buf), cnt(pl->instances_skipped, b2));
    }
    if (pl->instances_nonnuma)
        fprintf(o, "  existing instances without NUMA topology in placement's inventory: %s\n",
                cnt(pl->instances_nonnuma, buf));
    for (unsigned f = 0; f < pl->nflavors; f++)
        if (pl->flavors[f].form != NUMAFIT_FORM_NATIVE)
            fprintf(o, "  flavor %s (%s): read as %s\n", pl->flavors[f].name, pl->flavors[f].origin,
                    numafit_input_form_to_string(pl->flavors[f].form));
    if (pl->no_limits)
        fprintf(o, "  limits: none (shared room counted with cpu_allocation_ratio 1)\n");
    else
        fprintf(o, "  limits: cpu_allocation_ratio %g, ram_allocation_ratio %g (%s)\n",
                pl->limits[0].cpu_ratio, pl->limits[0].ram_ratio,
                pl->limits_path   ? pl->limits_path
                : pl->limits_from ? pl->limits_from
                                  : "nova's initial allocation ratios");

    /* counts */
    fprintf(o, "\n%-16s %5s %8s  %-24s", "How many fit", "vCPUs", "MiB", "policy");
    fprintf(o, " %*s", (int)(pl->nresults * 10), "alone");
    fprintf(o, " %*s\n", (int)(pl->nresults * 10), "mixed");
    fprintf(o, "%-16s %5s %8s  %-24s", "", "", "", "");
    for (int pass = 0; pass < 2; pass++) {
        fputc(' ', o);
        for (unsigned i = 0; i < pl->nresults; i++)
            fprintf(o, " %9s", sname(&pl->results[i]));
    }
    fputc('\n', o);
    for (unsigned f = 0; f < pl->nflavors; f++) {
        const struct plan_flavor *fl = &pl->flavors[f];
        char pol[128];
        flavor_policy(fl, pol, sizeof(pol));
        fprintf(o, "%-16.16s %5d %8s  %-24.24s", fl->name, fl->vcpus, cnt(fl->memory_mb, buf),
                fl->req ? pol : "no NUMA topology");
        if (!fl->planned) {
            fprintf(o, "  (left out: nova's NUMA fit does not limit it)\n");
            continue;
        }
        for (int pass = 0; pass < 2; pass++) {
            fputc(' ', o);
            for (unsigned i = 0; i < pl->nresults; i++) {
                fmt_u(pass ? pl->results[i].mixed[f] : pl->results[i].alone[f], buf, sizeof(buf));
                fprintf(o, " %9s", buf);
            }
        }
        fputc('\n', o);
    }
    fprintf(o, "%-16s %5s %8s  %-24s ", "total", "", "", "");
    fprintf(o, "%*s", (int)(pl->nresults * 10), "");
    fputc(' ', o);
    for (unsigned i = 0; i < pl->nresults; i++) {
        fmt_u(pl->results[i].mixed_total, buf, sizeof(buf));
        fprintf(o, " %9s", buf);
    }
    fputc('\n', o);

    /* stranded */
    fprintf(o, "\n%-50s", "Left after the mixed fill (stranded for this mix)");
    for (unsigned i = 0; i < pl->nresults; i++)
        fprintf(o, " %12s", sname(&pl->results[i]));
    fputc('\n', o);
    for (unsigned i = 0; i < pl->nresults; i++)
        v[i] = pl->results[i].hosts_used;
    row(o, pl, 2, "hosts used by the mix", v);
    CAPROW(o, pl, 2, "free dedicated pCPUs", free_pcpus);
    CAPROW(o, pl, 4, "on partly used cores (orphan threads)", orphan_threads);
    CAPROW(o, pl, 2, "pinned siblings lost to isolate", lost_siblings);
    snprintf(buf, sizeof(buf), "free shared vCPUs (x%g)",
             pl->no_limits ? 1.0 : pl->limits[0].cpu_ratio);
    CAPROW(o, pl, 2, buf, free_shared_vcpus);
    CAPROW_MIB(o, pl, 2, "free memory outside huge pages (MiB)", free_memory_mb);
    CAPROW_MIB(o, pl, 4, "in cells without a free CPU (MiB)", memory_without_cpus_mb);
    CAPROW(o, pl, 2, "free CPUs in cells short of memory", cpus_without_memory);
    for (unsigned k = 0; k < pl->npage_sizes; k++) {
        char sz[16], label[96];
        size_name(pl->page_sizes[k], sz, sizeof(sz));
        snprintf(label, sizeof(label), "free %s pages", sz);
        CAPROW(o, pl, 2, label, pages_free[k]);
        CAPROW(o, pl, 4, "in cells without a free pCPU", pages_without_cpus[k]);
    }
    if (pl->pci) {
        CAPROW(o, pl, 2, "free PCI devices", pci_free);
        CAPROW(o, pl, 4, "in cells without a free CPU", pci_without_cpus);
    }
    for (unsigned i = 0; i < pl->nresults; i++)
        if (pl->results[i].capped_hosts || pl->results[i].alone_capped)
            fprintf(o,
                    "  (%s: %u hosts stopped at --max-instances %llu in the mixed fill, %llu "
                    "alone fills)\n",
                    sname(&pl->results[i]), pl->results[i].capped_hosts,
                    (unsigned long long)pl->max_instances,
                    (unsigned long long)pl->results[i].alone_capped);

    if (pl->has_target)
        print_target(o, pl);
    if (pl->inventory)
        print_inventory(o, pl);
    for (unsigned i = 0; i < pl->nresults; i++)
        print_whynot(o, pl, &pl->results[i]);
    for (unsigned i = 0; i < pl->nresults; i++)
        print_top(o, pl, &pl->results[i]);
    if (pl->detail) {
        for (unsigned i = 0; i < pl->nresults; i++) {
            const json_t *hosts = pl->results[i].hosts;
            size_t h;
            json_t *ho;
            fprintf(o, "\nThe first %zu host%s after the mixed fill (%s):\n",
                    json_array_size(hosts), json_array_size(hosts) == 1 ? "" : "s",
                    sname(&pl->results[i]));
            json_array_foreach(hosts, h, ho) {
                print_host_picture(o, ho);
            }
        }
        fprintf(o, "\n  [..] a core and its threads: letter = vCPU of that instance, "
                   "+ emulator thread, - sibling\n  kept free by isolate, u pinned before the "
                   "plan (owner unknown), . free dedicated,\n  s shared pool\n");
    }
    fprintf(o, "\n");
    for (unsigned i = 0; i < pl->nresults; i++)
        fprintf(o, "%s%s %.2f s", i ? ", " : "planned in: ", sname(&pl->results[i]),
                pl->results[i].seconds);
    fprintf(o, " (loading %.2f s)\n", pl->load_seconds);
}
