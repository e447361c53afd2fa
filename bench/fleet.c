/*
 * bench/fleet: fleet planning benchmark.
 *
 *   bench/fleet --params bench-data/fleet.json [--hosts N] [--json]
 *   bench/fleet --params bench-data/fleet.json --dump-host
 *
 * Builds N identical hosts (default: the params' "hosts", 10,000) from the
 * params' synthetic host spec (numafit_host_new_synthetic, then
 * numafit_host_dup; not timed), then fills them: per host, one
 * numafit_host_fill() tries the five flavors round-robin with numafit_fit()
 * and, when one fits, numafit_host_claim(); a host is full when none of the
 * flavors fits any more (five misses in a row). The fill is timed as a whole
 * (CLOCK_MONOTONIC); with --split the same loop is spelled out here so that
 * the fits and the claims inside it are also timed each on their own (the
 * clock reads then add to the fill time).
 * --dump-host prints the host as nova's NUMATopology primitive (for
 * bench/nova_fleet.py, which runs the same fill with nova).
 *
 * The params file is written by bench/gen_scenarios.py:
 * {"hosts":N,"host_spec":"...","nova_release":"zed"|"latest",
 *  "strategy":"spread"|"pack","limits":{...}|null,
 *  "flavors":[{"name":"...","vcpus":N,"memory_mb":N,"extra_specs":{...}}]}
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include <numafit.h>

#define MAX_FLAVORS 16

struct flavor {
    char name[64];
    numafit_request_t *req;
    unsigned long placed;
};

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void die(const char *what, const numafit_error_t *e) {
    fprintf(stderr, "fleet: %s: %s%s%s\n", what, e && e->where[0] ? e->where : "",
            e && e->where[0] ? ": " : "", e ? e->text : "");
    exit(1);
}

/* Fit attempts of numafit_host_fill (NUMAFIT_FILL_NOTIFY_MISSES). */
struct tally {
    unsigned long attempts, fits;
    const numafit_error_t *e; /* the fill's reterr: a miss's reason */
};

static int count_attempt(void *ctx, size_t flavor, const numafit_placement_t *p) {
    struct tally *t = ctx;
    (void)flavor;
    t->attempts++;
    if (p)
        t->fits++;
    else if (t->e->code == NUMAFIT_E_TOO_COMPLEX)
        die("fit", t->e); /* the fit exceeded its budget: no answer to time */
    return 0;
}

/* --split: numafit_host_fill's round-robin spelled out, to read the clock
 * between each fit and its claim. */
struct split {
    unsigned long attempts, fits;
    uint64_t fit_ns, claim_ns;
};

static void split_fill(numafit_host_t *host, struct flavor *flavors, size_t nflavors,
                       const numafit_options_t *opt, struct split *sp) {
    numafit_error_t e;
    size_t misses = 0, next = 0;
    int rc;
    memset(&e, 0, sizeof(e));
    while (misses < nflavors) {
        struct flavor *f = &flavors[next];
        numafit_placement_t *p = NULL;
        uint64_t a, b, c;
        next = (next + 1) % nflavors;
        a = now_ns();
        rc = numafit_fit(host, f->req, opt, 0, &p, &e);
        b = now_ns();
        sp->fit_ns += b - a;
        sp->attempts++;
        if (rc < 0)
            die("fit", &e);
        if (rc == 0) {
            misses++;
            continue;
        }
        sp->fits++;
        rc = numafit_host_claim(host, p, 0, &e);
        numafit_placement_free(p);
        c = now_ns();
        sp->claim_ns += c - b;
        if (rc < 0)
            die("claim", &e);
        f->placed++;
        misses = 0;
    }
}

static void usage(FILE *o) {
    fprintf(o, "usage: fleet --params FILE [--hosts N] [--split] [--json]\n"
               "       fleet --params FILE --dump-host\n");
}

int main(int argc, char **argv) {
    const char *params_path = NULL;
    long nhosts = -1;
    bool json = false, dump_host = false, split = false;
    json_t *params, *v, *fl;
    json_error_t jerr;
    numafit_error_t e;
    numafit_host_t *tmpl = NULL, **hosts;
    numafit_options_t *opt = NULL;
    struct flavor flavors[MAX_FLAVORS];
    size_t nflavors = 0, i;
    unsigned req_flags = 0;
    int profile = NUMAFIT_PROFILE_LATEST, strategy = NUMAFIT_STRATEGY_SPREAD, rc;
    const numafit_request_t *reqs[MAX_FLAVORS];
    struct tally tally = {0, 0, &e};
    struct split sp = {0, 0, 0, 0};
    unsigned long placed = 0, attempts = 0, fits = 0;
    uint64_t t_setup0, t_setup, t0, t1, fit_ns = 0, claim_ns = 0, fill_ns;
    long h;

    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--params") == 0 && a + 1 < argc) {
            params_path = argv[++a];
        } else if (strcmp(argv[a], "--hosts") == 0 && a + 1 < argc) {
            char *end;
            errno = 0;
            nhosts = strtol(argv[++a], &end, 10);
            if (errno || *end || nhosts < 1 || nhosts > 10000000) {
                fprintf(stderr, "fleet: --hosts wants 1 to 10000000\n");
                return 2;
            }
        } else if (strcmp(argv[a], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[a], "--split") == 0) {
            split = true;
        } else if (strcmp(argv[a], "--dump-host") == 0) {
            dump_host = true;
        } else if (strcmp(argv[a], "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (!params_path) {
        usage(stderr);
        return 2;
    }
    params = json_load_file(params_path, JSON_REJECT_DUPLICATES, &jerr);
    if (!params) {
        fprintf(stderr, "fleet: %s:%d: %s\n", params_path, jerr.line, jerr.text);
        return 1;
    }
    if (nhosts < 0)
        nhosts = json_integer_value(json_object_get(params, "hosts"));
    if (nhosts < 1)
        nhosts = 10000;
    v = json_object_get(params, "nova_release");
    if (v && strcmp(json_string_value(v) ? json_string_value(v) : "", "zed") == 0) {
        profile = NUMAFIT_PROFILE_ZED;
        req_flags = NUMAFIT_REQUEST_ZED;
    }
    v = json_object_get(params, "strategy");
    if (v && strcmp(json_string_value(v) ? json_string_value(v) : "", "pack") == 0)
        strategy = NUMAFIT_STRATEGY_PACK;

    /* the template host */
    memset(&e, 0, sizeof(e));
    v = json_object_get(params, "host_spec");
    if (!json_is_string(v)) {
        fprintf(stderr, "fleet: %s: no \"host_spec\"\n", params_path);
        return 1;
    }
    if (numafit_host_new_synthetic(json_string_value(v), 0, &tmpl, &e) < 0)
        die("host_spec", &e);
    if (dump_host) {
        char *txt = NULL;
        if (numafit_host_to_json(tmpl, 0, &txt, &e) < 0)
            die("host", &e);
        printf("%s\n", txt);
        numafit_free(txt);
        numafit_host_free(tmpl);
        json_decref(params);
        return 0;
    }

    /* requests and options */
    json_array_foreach(json_object_get(params, "flavors"), i, fl) {
        json_t *copy;
        char *txt;
        if (nflavors == MAX_FLAVORS) {
            fprintf(stderr, "fleet: at most %d flavors\n", MAX_FLAVORS);
            return 1;
        }
        copy = json_deep_copy(fl);
        snprintf(flavors[nflavors].name, sizeof(flavors[nflavors].name), "%s",
                 json_string_value(json_object_get(fl, "name"))
                     ? json_string_value(json_object_get(fl, "name"))
                     : "?");
        json_object_del(copy, "name");
        txt = json_dumps(copy, JSON_COMPACT);
        json_decref(copy);
        if (!txt)
            die("out of memory", NULL);
        rc = numafit_request_new(txt, strlen(txt), NULL, 0, req_flags, &flavors[nflavors].req, &e);
        free(txt);
        if (rc <= 0)
            die(flavors[nflavors].name, &e);
        flavors[nflavors].placed = 0;
        reqs[nflavors] = flavors[nflavors].req;
        nflavors++;
    }
    if (nflavors == 0) {
        fprintf(stderr, "fleet: %s: no flavors\n", params_path);
        return 1;
    }
    if (numafit_options_new(&opt) < 0 || numafit_options_set_profile(opt, profile) < 0 ||
        numafit_options_set_strategy(opt, strategy) < 0)
        die("options", NULL);
    v = json_object_get(params, "limits");
    if (v && !json_is_null(v)) {
        char *txt = json_dumps(v, JSON_COMPACT);
        if (!txt || numafit_options_set_limits_json(opt, txt, strlen(txt), &e) < 0)
            die("limits", &e);
        free(txt);
    }

    /* the fleet (not timed) */
    t_setup0 = now_ns();
    hosts = calloc((size_t)nhosts, sizeof(*hosts));
    if (!hosts)
        die("out of memory", NULL);
    for (h = 0; h < nhosts; h++)
        if (numafit_host_dup(tmpl, &hosts[h]) < 0)
            die("out of memory", NULL);
    t_setup = now_ns() - t_setup0;

    /* the fill (timed) */
    t0 = now_ns();
    for (h = 0; h < nhosts; h++) {
        uint64_t counts[MAX_FLAVORS];
        if (split) {
            split_fill(hosts[h], flavors, nflavors, opt, &sp);
            continue;
        }
        memset(&e, 0, sizeof(e));
        rc = numafit_host_fill(hosts[h], reqs, nflavors, opt, NUMAFIT_FILL_NO_MAX,
                               NUMAFIT_FILL_NOTIFY_MISSES, count_attempt, &tally, counts, &e);
        if (rc < 0)
            die(e.code == NUMAFIT_E_PINNING || e.code == NUMAFIT_E_SCHEMA ? "claim" : "fit", &e);
        for (i = 0; i < nflavors; i++) {
            flavors[i].placed += counts[i];
            placed += counts[i];
        }
    }
    t1 = now_ns();
    fill_ns = t1 - t0;
    if (split) {
        for (i = 0; i < nflavors; i++)
            placed += flavors[i].placed;
        attempts = sp.attempts;
        fits = sp.fits;
        fit_ns = sp.fit_ns;
        claim_ns = sp.claim_ns;
    } else {
        attempts = tally.attempts;
        fits = tally.fits;
    }

    if (json) {
        json_t *o = json_object(), *per = json_object();
        for (i = 0; i < nflavors; i++)
            json_object_set_new(per, flavors[i].name, json_integer((json_int_t)flavors[i].placed));
        json_object_set_new(o, "hosts", json_integer(nhosts));
        json_object_set_new(o, "placed", json_integer((json_int_t)placed));
        json_object_set_new(o, "placed_per_flavor", per);
        json_object_set_new(o, "fit_attempts", json_integer((json_int_t)attempts));
        json_object_set_new(o, "fits", json_integer((json_int_t)fits));
        json_object_set_new(o, "fill_ns", json_integer((json_int_t)fill_ns));
        json_object_set_new(o, "ns_per_fit_attempt",
                            json_integer((json_int_t)(fill_ns / (attempts ? attempts : 1))));
        if (split) {
            json_object_set_new(o, "fit_ns_total", json_integer((json_int_t)fit_ns));
            json_object_set_new(o, "claim_ns_total", json_integer((json_int_t)claim_ns));
        }
        json_object_set_new(o, "setup_ns", json_integer((json_int_t)t_setup));
        char *txt = json_dumps(o, JSON_COMPACT);
        printf("%s\n", txt ? txt : "{}");
        free(txt);
        json_decref(o);
    } else {
        printf("fleet: %ld hosts (%s), %zu flavors round-robin, nova rules %s\n", nhosts,
               json_string_value(json_object_get(params, "host_spec")), nflavors,
               profile == NUMAFIT_PROFILE_ZED ? "zed" : "latest");
        printf("  instances placed   %lu (%.2f per host)\n", placed,
               (double)placed / (double)nhosts);
        for (i = 0; i < nflavors; i++)
            printf("    %-24s %lu\n", flavors[i].name, flavors[i].placed);
        printf("  fits attempted     %lu (%lu fit, %lu did not)\n", attempts, fits,
               attempts - fits);
        printf("  fill wall time     %.3f s\n", (double)fill_ns / 1e9);
        printf("  time per fit       %.0f ns (fill time / fit attempts, claims included)\n",
               (double)fill_ns / (double)(attempts ? attempts : 1));
        if (split)
            printf("  split              fits %.3f s, claims and frees %.3f s (clock reads "
                   "around each call add to the fill time)\n",
                   (double)fit_ns / 1e9, (double)claim_ns / 1e9);
        printf("  setup (not timed)  %.3f s to build the %ld hosts\n", (double)t_setup / 1e9,
               nhosts);
    }

    for (h = 0; h < nhosts; h++)
        numafit_host_free(hosts[h]);
    free(hosts);
    for (i = 0; i < nflavors; i++)
        numafit_request_free(flavors[i].req);
    numafit_options_free(opt);
    numafit_host_free(tmpl);
    json_decref(params);
    return 0;
}
