/*
 * numafit bench: time numafit_fit() on each line of a `numafit fit --batch`
 * input.
 *
 *   numafit bench [--json] [--nova-release R] [--strategy S] [--budget N]
 *                 [--headroom-mix FLAVOR[:WEIGHT]]... FILE.jsonl
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include <numafit.h>

#include "cli.h"
#include "cli_fit.h"
#include "cli_io.h"

#define BENCH_MIN_NS   2000000ULL /* time a fit until this much has elapsed... */
#define BENCH_MAX_REPS 100000UL   /* ...or this many repetitions */

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* What benchmarking one line gave. */
struct bench_result {
    json_t *answer; /* the --json line (owned) */
    bool timed;     /* answer holds fit_ns */
    bool fits;
    uint64_t fit_ns; /* one fit, ns */
    unsigned long reps;
};

/*
 * Time numafit_fit() on one prepared host/request/options: one untimed
 * warm-up call (which also gives the answer), then batches of calls, each
 * including numafit_placement_free() of the placement, doubling the batch
 * until BENCH_MIN_NS have elapsed or BENCH_MAX_REPS calls were made. Only
 * the fits and frees are inside the timed region; the clock is read once
 * per batch.
 */
static void bench_time(const numafit_host_t *host, const numafit_request_t *req,
                       const numafit_options_t *opt, struct bench_result *out) {
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    unsigned long reps = 0, batch = 1, i;
    uint64_t elapsed = 0, t0;
    int rc;

    cli_error_clear(&e);
    rc = numafit_fit(host, req, opt, 0, &p, &e);
    numafit_placement_free(p);
    p = NULL;
    if (rc < 0) {
        out->answer = lib_error("fit", rc, &e);
        return;
    }
    out->fits = rc == 1;
    while (elapsed < BENCH_MIN_NS && reps < BENCH_MAX_REPS) {
        if (batch > BENCH_MAX_REPS - reps)
            batch = BENCH_MAX_REPS - reps;
        t0 = now_ns();
        for (i = 0; i < batch; i++) {
            if (numafit_fit(host, req, opt, 0, &p, &e) > 0) {
                numafit_placement_free(p);
                p = NULL;
            }
        }
        elapsed += now_ns() - t0;
        reps += batch;
        batch *= 2;
    }
    out->reps = reps;
    out->fit_ns = (elapsed + reps / 2) / reps;
    out->timed = true;
    out->answer = json_object();
    if (out->answer) {
        json_object_set_new(out->answer, "fit_ns", json_integer((json_int_t)out->fit_ns));
        json_object_set_new(out->answer, "fits", json_boolean(out->fits));
    }
}

/* Benchmark one input line: everything but the fit is built outside the
 * timed region. */
static void bench_line(const struct fit_cli *cli, const char *line, size_t len,
                       struct bench_result *out) {
    struct fit_cli lc = *cli, *c = &lc;
    numafit_host_t *host = NULL;
    numafit_request_t *req = NULL;
    numafit_options_t *opt = NULL;
    numafit_pci_pools_t *pools = NULL;
    numafit_pci_requests_t *reqs = NULL;
    numafit_error_t e;
    json_error_t jerr;
    json_t *in, *err = NULL;
    const json_t *image;
    const char *op = NULL;
    char *htxt = NULL, *ftxt = NULL, *itxt = NULL;
    long max;
    int rc;

    memset(out, 0, sizeof(*out));
    in = cli_json_load(line, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!in) {
        out->answer = parse_error_answer(&jerr);
        return;
    }
    err = check_line(c, in, &op, &max);
    if (err)
        goto done;
    if (strcmp(op, "plan") == 0) {
        err = error_answer("SCHEMA", "numafit bench times fits: \"op\" must be \"fit\"");
        goto done;
    }
    image = json_object_get(in, "image");
    if (image && json_is_null(image))
        image = NULL;
    htxt = dump(json_object_get(in, "host"));
    ftxt = dump(json_object_get(in, "flavor"));
    itxt = image ? dump(image) : NULL;
    if (!htxt || !ftxt || (image && !itxt)) {
        err = error_answer("NOMEM", "out of memory");
        goto done;
    }
    cli_error_clear(&e);
    rc = numafit_host_new_from_json(htxt, strlen(htxt), 0, &host, &e);
    if (rc < 0) {
        err = lib_error("host", rc, &e);
        goto done;
    }
    cli_error_clear(&e);
    rc = numafit_request_new(ftxt, strlen(ftxt), itxt, itxt ? strlen(itxt) : 0, c->fit.req_flags,
                             &req, &e);
    if (rc < 0) {
        err = lib_error(e.exception[0] ? "request"
                                       : (itxt && strstr(e.where, "image") ? "image" : "flavor"),
                        rc, &e);
        goto done;
    }
    if (rc == 0) {
        out->answer = json_object();
        if (out->answer)
            json_object_set_new(out->answer, "request", json_null());
        goto done;
    }
    opt = make_options(c, json_object_get(in, "limits"), &batch_labels, &err);
    if (!opt)
        goto done;
    /* the devices (a line's pci_pools and pci_requests), outside the timing */
    err = pci_step(c, ftxt, itxt, opt, &pools, &reqs);
    if (err)
        goto done;
    bench_time(host, req, opt, out);

done:
    if (err) {
        json_decref(out->answer);
        out->answer = err;
        out->timed = false;
    }
    if (!out->answer)
        out->answer = error_answer("NOMEM", "out of memory");
    numafit_options_free(opt);
    numafit_pci_pools_free(pools);
    numafit_pci_requests_free(reqs);
    numafit_request_free(req);
    numafit_host_free(host);
    free(htxt);
    free(ftxt);
    free(itxt);
    json_decref(in);
}

/* "1.234 us" and the like, for the human table. */
static void fmt_ns(uint64_t ns, char *out, size_t cap) {
    if (ns < 10000)
        snprintf(out, cap, "%llu ns", (unsigned long long)ns);
    else if (ns < 10000000)
        snprintf(out, cap, "%.2f us", (double)ns / 1e3);
    else if (ns < 10000000000ULL)
        snprintf(out, cap, "%.2f ms", (double)ns / 1e6);
    else
        snprintf(out, cap, "%.2f s", (double)ns / 1e9);
}

static int bench_main(const struct fit_cli *c) {
    FILE *f;
    char *buf = NULL;
    size_t cap = 0, len = 0;
    bool toolong;
    unsigned long lineno = 0, timed = 0, nfit = 0, nerr = 0, nnone = 0;
    uint64_t total = 0;
    char tbuf[32], why[256];
    int rc, ret = 0;

    /* a regular file, or "-": standard input (lines are capped) */
    f = cli_fopen_read(c->bench_path, true, why, sizeof(why));
    if (!f) {
        fprintf(stderr, "numafit bench: %s: %s\n", c->bench_path, why);
        return 1;
    }
    if (!c->json)
        printf("%6s  %-5s  %12s  %s\n", "line", "fits", "time/fit", "repetitions");
    while ((rc = read_line(f, &buf, &cap, &len, NUMAFIT_INPUT_MAX, &toolong)) > 0) {
        struct bench_result r;
        lineno++;
        memset(&r, 0, sizeof(r));
        if (toolong)
            r.answer = error_answer("RANGE", "line longer than %u bytes", NUMAFIT_INPUT_MAX);
        else if (blank(buf ? buf : "", len))
            r.answer = error_answer("PARSE", "empty line");
        else
            bench_line(c, buf, len, &r);
        if (r.timed) {
            timed++;
            nfit += r.fits;
            total += r.fit_ns;
        } else if (json_object_get(r.answer, "request")) {
            nnone++;
        } else {
            nerr++;
        }
        if (c->json) {
            if (emit(r.answer) < 0)
                ret = -1;
        } else if (r.timed) {
            fmt_ns(r.fit_ns, tbuf, sizeof(tbuf));
            printf("%6lu  %-5s  %12s  %lu\n", lineno, r.fits ? "yes" : "no", tbuf, r.reps);
        } else if (json_object_get(r.answer, "request")) {
            printf("%6lu  %-5s  %12s  (no NUMA topology requested: nothing to fit)\n", lineno, "-",
                   "-");
        } else {
            printf("%6lu  %-5s  %12s  error %s: %s\n", lineno, "-", "-",
                   json_string_value(json_object_get(r.answer, "error")),
                   json_string_value(json_object_get(r.answer, "message")));
        }
        json_decref(r.answer);
        if (!c->json && (fflush(stdout) != 0 || ferror(stdout)))
            ret = -1;
        if (ret < 0)
            break;
    }
    free(buf);
    if (f != stdin)
        fclose(f);
    if (ret < 0) {
        fprintf(stderr, "numafit bench: cannot write the results: %s\n", strerror(errno));
        return 1;
    }
    if (rc < 0) {
        fprintf(stderr, "numafit bench: error reading %s: %s\n",
                strcmp(c->bench_path, "-") == 0 ? "standard input" : c->bench_path,
                rc == -2 ? "a line too long to skip" : strerror(errno));
        return 1;
    }
    if (c->json) {
        json_t *last = json_object();
        if (last) {
            json_object_set_new(last, "total_fit_ns", json_integer((json_int_t)total));
            json_object_set_new(last, "scenarios", json_integer((json_int_t)timed));
        }
        if (emit(last) < 0) {
            json_decref(last);
            fprintf(stderr, "numafit bench: cannot write the results: %s\n", strerror(errno));
            return 1;
        }
        json_decref(last);
    } else {
        fmt_ns(total, tbuf, sizeof(tbuf));
        printf("total: %lu lines, %lu timed (%lu fit, %lu do not fit), %lu without NUMA "
               "topology, %lu errors\n"
               "       one fit of each timed scenario: %s",
               lineno, timed, nfit, timed - nfit, nnone, nerr, tbuf);
        if (timed) {
            fmt_ns((total + timed / 2) / timed, tbuf, sizeof(tbuf));
            printf(" (mean %s per fit)", tbuf);
        }
        printf("\n");
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "numafit bench: cannot write the results: %s\n",
                    strerror(errno ? errno : EIO));
            return 1;
        }
    }
    return 0;
}
static void usage_bench(FILE *o) {
    fprintf(o,
            "usage: numafit bench [--json] [--nova-release R] [--strategy S] [--budget N]\n"
            "                     [--headroom-mix FLAVOR[:WEIGHT]]... FILE.jsonl\n"
            "\n"
            "Time numafit_fit() on each line of FILE (the `numafit fit --batch` input\n"
            "format; - reads standard input). The host, request and options are built\n"
            "outside the timed region; after one untimed warm-up fit, the fit is repeated\n"
            "until at least %llu ms have elapsed or %lu repetitions were made\n"
            "(CLOCK_MONOTONIC), and the time of one fit is reported. Freeing the placement\n"
            "of each successful fit (numafit_placement_free) is part of the timed cost.\n"
            "Prints per line: fits yes/no and the time of one fit; then the total.\n"
            "  --json             one line {\"fit_ns\":N,\"fits\":true|false} per scenario,\n"
            "                     {\"error\":...,\"message\":...} for a refused request or\n"
            "                     a malformed line, {\"request\":null} without NUMA topology;\n"
            "                     last line {\"total_fit_ns\":N,\"scenarios\":M} (M: lines timed)\n"
            "  --nova-release R   latest (default) or zed; a line's \"nova_release\" overrides it\n"
            "  --strategy S       spread (default), pack or headroom (not nova's); a line's\n"
            "                     \"strategy\" overrides it\n"
            "  --headroom-mix FLAVOR[:WEIGHT]  (repeatable) the flavor mix the headroom\n"
            "                     strategy keeps room for, as fit takes it (lines with\n"
            "                     that strategy)\n",
            BENCH_MIN_NS / 1000000ULL, BENCH_MAX_REPS);
    cli_budget_help(o, 2, 21);
    fprintf(o, "Exit status: 0 done (whatever the answers), 1 I/O error, 2 usage.\n");
}

int cmd_bench(int argc, char **argv) {
    struct fit_cli c;
    int rc = fit_cli_parse(argc, argv, &c, usage_bench);

    struct cli_mix mix;

    if (rc <= 0)
        return rc < 0 ? CLI_EXIT_USAGE : 0;
    if (cli_mix_load(&mix, &c.fit, "numafit bench") < 0)
        return 1;
    rc = bench_main(&c);
    cli_mix_free(&mix);
    return rc;
}
