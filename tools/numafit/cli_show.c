/* The human tables of fit, single-host plan and demo (cli_fit.h). */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include <numafit.h>

#include "cli_fit.h"

/* The data of a nova versioned object primitive, or the object itself. */
static json_t *ovo_data(json_t *o) {
    json_t *d = json_object_get(o, "nova_object.data");
    return d ? d : o;
}
/* "0-3,8,10-11" from a JSON list of CPU ids. */
static void fmt_cpus(const json_t *arr, char *out, size_t cap) {
    size_t i, n = json_array_size(arr), pos = 0;
    long start = -1, prev = -1;

    out[0] = '\0';
    for (i = 0; i <= n; i++) {
        long v = i < n ? (long)json_integer_value(json_array_get(arr, i)) : -2;
        if (start >= 0 && v == prev + 1) {
            prev = v;
            continue;
        }
        if (start >= 0 && pos < cap) {
            int w = start == prev
                        ? snprintf(out + pos, cap - pos, "%s%ld", pos ? "," : "", start)
                        : snprintf(out + pos, cap - pos, "%s%ld-%ld", pos ? "," : "", start, prev);
            pos += w > 0 ? (size_t)w : 0;
        }
        start = prev = v;
    }
    if (pos >= cap && cap > 4)
        strcpy(out + cap - 4, "...");
    if (!out[0] && cap > 1)
        strcpy(out, "-");
}

/* The cell object (its data) with this id in a NUMATopology primitive. */
static json_t *host_cell(json_t *topo, long id) {
    json_t *cells = json_object_get(ovo_data(topo), "cells");
    size_t i;
    json_t *cell;
    json_array_foreach(cells, i, cell) {
        json_t *d = ovo_data(cell);
        if (json_integer_value(json_object_get(d, "id")) == id)
            return d;
    }
    return NULL;
}

/* The sibling set (core) holding cpu in a host cell, and the thread index. */
static json_t *core_of(json_t *cell, long cpu, int *ret_thread) {
    json_t *sibs = json_object_get(cell, "siblings");
    size_t i, j;
    json_t *set, *v;
    json_array_foreach(sibs, i, set){
        json_array_foreach(set, j, v){if (json_integer_value(v) == cpu){ *ret_thread = (int)j;
    return set;
}
}
}
*ret_thread = -1;
return NULL;
}

static bool truthy(const char *s) {
    static const char *const yes[] = {"1", "t", "true", "on", "y", "yes", NULL};
    size_t i;
    for (i = 0; s && yes[i]; i++)
        if (strcasecmp(s, yes[i]) == 0)
            return true;
    return false;
}

/* The realtime vCPUs of a flavor/image, for display only (the library has
 * already validated the request): nova's "0-(n-1),<mask>" rule. */
numafit_cpuset_t *realtime_vcpus(const json_t *flavor, const json_t *image, int vcpus) {
    json_t *specs = json_object_get(flavor, "extra_specs");
    json_t *props = json_object_get(image, "properties");
    const char *rt = json_string_value(json_object_get(specs, "hw:cpu_realtime"));
    const char *mask = json_string_value(json_object_get(specs, "hw:cpu_realtime_mask"));
    numafit_cpuset_t *set = NULL;
    char spec[160];

    if (!rt) {
        json_t *p = json_object_get(props, "hw_cpu_realtime");
        rt = json_is_true(p) ? "yes" : json_string_value(p);
    }
    if (!mask)
        mask = json_string_value(json_object_get(props, "hw_cpu_realtime_mask"));
    if (!truthy(rt) || vcpus <= 0)
        return NULL;
    if (mask && strlen(mask) < 100)
        snprintf(spec, sizeof(spec), "0-%d,%s", vcpus - 1, mask);
    else
        snprintf(spec, sizeof(spec), "0-%d", vcpus - 1);
    if (numafit_cpuset_parse(spec, 0, &set, NULL) < 0)
        return NULL;
    return set;
}

static void print_size_kb(FILE *o, long long kb) {
    char b[48];
    fputs(cli_fmt_page_size(kb, false, b, sizeof(b)), o);
}

void print_host_summary(FILE *o, json_t *topo) {
    json_t *cells = json_object_get(ovo_data(topo), "cells");
    size_t i, j;
    json_t *cell, *pg;
    char shared[256], ded[256], pinned[256], b1[48], b2[48], b3[48], b4[48];

    json_array_foreach(cells, i, cell) {
        json_t *d = ovo_data(cell);
        json_t *sock = json_object_get(d, "socket");
        long long mem = json_integer_value(json_object_get(d, "memory"));
        long long used = json_integer_value(json_object_get(d, "memory_usage"));
        json_t *sibs = json_object_get(d, "siblings");
        size_t threads = 1, k;
        json_t *s;

        json_array_foreach(sibs, k, s) {
            if (json_array_size(s) > threads)
                threads = json_array_size(s);
        }
        fmt_cpus(json_object_get(d, "cpuset"), shared, sizeof(shared));
        fmt_cpus(json_object_get(d, "pcpuset"), ded, sizeof(ded));
        fmt_cpus(json_object_get(d, "pinned_cpus"), pinned, sizeof(pinned));
        fprintf(o, "  cell %lld", (long long)json_integer_value(json_object_get(d, "id")));
        if (json_is_integer(sock))
            fprintf(o, " (socket %lld)", (long long)json_integer_value(sock));
        fprintf(o, ": shared CPUs %s, dedicated CPUs %s, pinned %s, %zu thread%s per core\n",
                shared, ded, pinned, threads, threads == 1 ? "" : "s");
        fprintf(o, "         memory %s, used %s, cpu_usage %lld\n",
                cli_fmt_mib(mem, b1, sizeof(b1)), cli_fmt_mib(used, b2, sizeof(b2)),
                (long long)json_integer_value(json_object_get(d, "cpu_usage")));
        json_array_foreach(json_object_get(d, "mempages"), j, pg) {
            json_t *pd = ovo_data(pg);
            long long total = json_integer_value(json_object_get(pd, "total"));
            long long pused = json_integer_value(json_object_get(pd, "used"));
            long long resv = json_integer_value(json_object_get(pd, "reserved"));
            fprintf(o, "         pages ");
            print_size_kb(o, json_integer_value(json_object_get(pd, "size_kb")));
            fprintf(o, ": %s total, %s used, %s reserved, %s free\n",
                    cli_fmt_count(total, b1, sizeof(b1)), cli_fmt_count(pused, b2, sizeof(b2)),
                    cli_fmt_count(resv, b3, sizeof(b3)),
                    cli_fmt_count(total - pused - resv, b4, sizeof(b4)));
        }
    }
}

static const char *policy_name(const char *s) {
    return s ? s : "-";
}

static void print_request(FILE *o, const struct run *r, const json_t *flavor) {
    if (r->flavor_form != NUMAFIT_FORM_NATIVE)
        fprintf(o, "flavor: read as %s\n", numafit_input_form_to_string(r->flavor_form));
    if (r->image_form != NUMAFIT_FORM_NATIVE)
        fprintf(o, "image: read as %s\n", numafit_input_form_to_string(r->image_form));
    if (r->flavor)
        flavor = r->flavor;
    fprintf(o,
            "request: %d vCPUs, %lld MiB, cpu policy %s, thread policy %s, "
            "emulator threads %s\n",
            r->vcpus, (long long)json_integer_value(json_object_get(flavor, "memory_mb")),
            policy_name(numafit_cpu_policy_to_string(r->cpu_policy)),
            policy_name(numafit_thread_policy_to_string(r->thread_policy)),
            policy_name(numafit_emulator_threads_policy_to_string(r->emulator_policy)));
}

/* One placement (a list of guest cells) as a table. */
void print_placement(FILE *o, json_t *cells, json_t *topo, const numafit_cpuset_t *rt) {
    size_t gi;
    json_t *gc;

    json_array_foreach(cells, gi, gc) {
        long hid = (long)json_integer_value(json_object_get(gc, "id"));
        json_t *hc = host_cell(topo, hid);
        json_t *pins = json_object_get(gc, "cpu_pinning");
        json_t *resv = json_object_get(gc, "cpuset_reserved");
        json_t *psz = json_object_get(gc, "pagesize");
        json_t *sock = hc ? json_object_get(hc, "socket") : NULL;
        long long mem = json_integer_value(json_object_get(gc, "memory"));
        char shared[256], ded[256];
        size_t k;
        json_t *v;

        fmt_cpus(json_object_get(gc, "cpuset"), shared, sizeof(shared));
        fmt_cpus(json_object_get(gc, "pcpuset"), ded, sizeof(ded));
        fprintf(o, "guest cell %zu -> host cell %ld", gi, hid);
        if (json_is_integer(sock))
            fprintf(o, " (socket %lld)", (long long)json_integer_value(sock));
        fprintf(o, ": shared vCPUs %s, dedicated vCPUs %s\n", shared, ded);
        fprintf(o, "  memory %s", cli_fmt_mib(mem, shared, sizeof(shared)));
        if (json_is_integer(psz) && json_integer_value(psz) > 0) {
            long long kb = json_integer_value(psz);
            fprintf(o, " on ");
            print_size_kb(o, kb);
            fprintf(o, " pages (%lld page%s)\n", mem * 1024 / kb, mem * 1024 / kb == 1 ? "" : "s");
        } else {
            fprintf(o, ", no page size requested (small pages)\n");
        }
        if (json_array_size(json_object_get(gc, "cpuset")) && hc) {
            char hs[256];
            fmt_cpus(json_object_get(hc, "cpuset"), hs, sizeof(hs));
            fprintf(o, "  shared vCPUs %s float over the cell's shared pCPUs %s\n", shared, hs);
        }
        if (json_object_size(pins)) {
            long vcpu;
            fprintf(o, "  %5s  %5s  %-16s  %-7s  %s\n", "vCPU", "pCPU", "core (siblings)", "thread",
                    "note");
            /* keys are vCPU numbers; print them in numeric order */
            for (vcpu = 0; vcpu <= NUMAFIT_VCPUS_MAX; vcpu++) {
                char kbuf[16], core[64];
                int thread = -1;
                json_t *set;
                snprintf(kbuf, sizeof(kbuf), "%ld", vcpu);
                v = json_object_get(pins, kbuf);
                if (!v)
                    continue;
                set = hc ? core_of(hc, (long)json_integer_value(v), &thread) : NULL;
                if (set)
                    fmt_cpus(set, core, sizeof(core));
                else
                    strcpy(core, "?");
                fprintf(o, "  %5ld  %5lld  %-16s  ", vcpu, (long long)json_integer_value(v), core);
                if (rt && numafit_cpuset_contains(rt, (unsigned)vcpu) == 1) {
                    if (set)
                        fprintf(o, "%d of %-2zu  realtime\n", thread, json_array_size(set));
                    else
                        fprintf(o, "%-7s  realtime\n", "?");
                } else if (set) {
                    fprintf(o, "%d of %zu\n", thread, json_array_size(set));
                } else {
                    fprintf(o, "?\n");
                }
            }
        }
        if (json_array_size(resv)) {
            json_array_foreach(resv, k, v) {
                char core[64];
                int thread = -1;
                json_t *set = hc ? core_of(hc, (long)json_integer_value(v), &thread) : NULL;
                if (set)
                    fmt_cpus(set, core, sizeof(core));
                else
                    strcpy(core, "?");
                fprintf(o, "  emulator threads on pCPU %lld (core %s, thread %d)\n",
                        (long long)json_integer_value(v), core, thread);
            }
        }
    }
}

/* The per-cell explanation of a "does not fit". */
void print_why(FILE *o, const json_t *ans) {
    json_t *why = json_object_get(ans, "why");
    json_t *cells = json_object_get(why, "cells");
    size_t i, j;
    json_t *c, *g;

    fprintf(o, "does not fit: %s\n", json_string_value(json_object_get(ans, "reason")));
    json_array_foreach(cells, i, c) {
        json_array_foreach(json_object_get(c, "guest_cells"), j, g) {
            const char *text = json_string_value(json_object_get(g, "text"));
            const char *reason = json_string_value(json_object_get(g, "reason"));
            fprintf(o, "  host cell %lld, guest cell %lld: %s",
                    (long long)json_integer_value(json_object_get(c, "id")),
                    (long long)json_integer_value(json_object_get(g, "guest")),
                    json_is_true(json_object_get(g, "fits")) ? "fits" : "refused");
            if (!json_is_true(json_object_get(g, "fits")) && (reason || text))
                fprintf(o, " (%s%s%s)", reason ? reason : "", reason && text ? ": " : "",
                        text ? text : "");
            fputc('\n', o);
        }
    }
}

void print_json_line(json_t *ans) {
    char *s = json_dumps(ans, JSON_COMPACT);
    if (s) {
        puts(s);
        free(s);
    }
}

/* Human form of a fit answer. Returns the exit code. */
/* nova's first step, when the job had an inventory: what placement is asked. */
static void print_resources(FILE *o, const json_t *ans) {
    json_t *res = json_object_get(ans, "resources");
    const char *key;
    json_t *v;
    bool first = true;
    if (!res)
        return;
    fprintf(o, "placement:");
    json_object_foreach(res, key, v) {
        fprintf(o, "%s %s %lld", first ? "" : ",", key, (long long)json_integer_value(v));
        first = false;
    }
    fprintf(o, "%s; %s\n", first ? " nothing" : "",
            json_object_get(json_object_get(ans, "why"), "inventory") ? "no room in the inventory"
                                                                      : "the inventory has room");
}

/* The devices the claim takes ("pci_devices" of a fit's answer). */
static void print_pci(FILE *o, const json_t *list) {
    size_t i;
    const json_t *d;
    if (!json_is_array(list))
        return;
    fprintf(o, "PCI devices taken:%s\n", json_array_size(list) ? "" : " none (count 0)");
    json_array_foreach(list, i, d) {
        const json_t *node = json_object_get(d, "numa_node");
        fprintf(o, "  %" JSON_INTEGER_FORMAT " x %s:%s",
                json_integer_value(json_object_get(d, "count")),
                json_string_value(json_object_get(d, "vendor_id")),
                json_string_value(json_object_get(d, "product_id")));
        if (json_is_integer(node))
            fprintf(o, " on host cell %" JSON_INTEGER_FORMAT "\n", json_integer_value(node));
        else
            fprintf(o, " of unknown NUMA node\n");
    }
}

int show_fit(const struct run *r, const json_t *flavor, const json_t *image) {
    json_t *ans = r->answer;
    numafit_cpuset_t *rt;

    print_request(stdout, r, flavor);
    print_resources(stdout, ans);
    if (json_object_get(ans, "request")) {
        if (json_object_get(ans, "resources"))
            printf("the flavor asks for no NUMA topology: it fits on the inventory alone "
                   "(its vCPUs float over the shared CPUs)\n");
        else
            printf("the flavor asks for no NUMA topology: nothing to fit (nova places it "
                   "anywhere)\n");
        return 0;
    }
    if (r->nofit) {
        print_why(stdout, ans);
        return CLI_EXIT_NOFIT;
    }
    rt = realtime_vcpus(flavor, image, r->vcpus);
    print_placement(stdout, json_object_get(ans, "fit"), r->host0, rt);
    numafit_cpuset_free(rt);
    print_pci(stdout, json_object_get(ans, "pci_devices"));
    return 0;
}

/* Human form of a plan answer. */
void show_plan(const struct run *r, const json_t *flavor, long max) {
    json_t *ans = r->answer;
    json_t *fits = json_object_get(ans, "fits");
    json_t *after = json_object_get(ans, "host_after");
    size_t i, j;
    json_t *f, *gc;

    print_request(stdout, r, flavor);
    if (json_object_get(ans, "request")) {
        printf("the flavor asks for no NUMA topology: NUMA fitting does not limit it\n");
        return;
    }
    {
        char cnt[48];
        printf("%s instance%s fit",
               cli_fmt_count(json_integer_value(json_object_get(ans, "count")), cnt, sizeof(cnt)),
               json_integer_value(json_object_get(ans, "count")) == 1 ? "" : "s");
    }
    if (r->nofit)
        printf("; the next one does not: %s\n",
               r->why.text[0] ? r->why.text : numafit_strerror(r->why.code));
    else if (max >= 0)
        printf(" (stopped at --max %ld)\n", max);
    else
        printf(" (stopped at the default cap of %ld: --max raises it)\n", CLI_PLAN_DEFAULT_MAX);
    json_array_foreach(fits, i, f) {
        printf("  #%zu:", i + 1);
        json_array_foreach(f, j, gc) {
            json_t *pins = json_object_get(gc, "cpu_pinning");
            json_t *vals = json_array();
            const char *k;
            json_t *v;
            char buf[256];
            json_object_foreach(pins, k, v) {
                json_array_append(vals, v);
            }
            printf(" guest cell %zu on host cell %lld", j,
                   (long long)json_integer_value(json_object_get(gc, "id")));
            if (json_array_size(vals)) {
                /* sort the pCPUs for a compact list */
                size_t a, b, n = json_array_size(vals);
                for (a = 1; a < n; a++)
                    for (b = a; b > 0 && json_integer_value(json_array_get(vals, b - 1)) >
                                             json_integer_value(json_array_get(vals, b));
                         b--) {
                        json_t *t = json_incref(json_array_get(vals, b));
                        json_array_set(vals, b, json_array_get(vals, b - 1));
                        json_array_set_new(vals, b - 1, t);
                    }
                fmt_cpus(vals, buf, sizeof(buf));
                printf(" (pCPUs %s)", buf);
            }
            json_decref(vals);
            if (json_array_size(json_object_get(gc, "cpuset_reserved"))) {
                fmt_cpus(json_object_get(gc, "cpuset_reserved"), buf, sizeof(buf));
                printf(" + emulator pCPU %s", buf);
            }
            printf("%s", j + 1 < json_array_size(f) ? "," : "");
        }
        putchar('\n');
    }
    printf("host afterwards:\n");
    print_host_summary(stdout, after);
    fflush(stdout);
}
/* After a plan stopped: why the next instance does not fit, per host cell
 * (a fit on the host as the plan left it). */
void print_stop_why(const struct fit_cli *c, const struct run *plan, const json_t *flavor,
                    const json_t *image, const json_t *limits) {
    struct run last;

    if (!plan->nofit)
        return;
    run_job(c, false, json_object_get(plan->answer, "host_after"), flavor, image, limits, -1,
            &batch_labels, false, &last);
    if (!last.error && last.nofit)
        print_why(stdout, last.answer);
    else
        printf("does not fit: %s\n", plan->why.text);
    run_free(&last);
}
