/*
 * numafit: command-line front end of libnumafit.
 *
 *   numafit fit  --batch            JSON lines in, one answer line out per line
 *   numafit plan --batch
 *   numafit fit  --host H --flavor F [--image I] [--limits L] [--json]
 *   numafit plan --host H --flavor F [--image I] [--limits L] [--max N] [--json]
 *   numafit bench [--json] FILE.jsonl   time the fit of each batch line
 *   numafit demo
 *
 * The program only talks to the library through its public API and exchanges
 * JSON with it as text; jansson is used here to read and write JSON lines.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <jansson.h>

#include <numafit.h>

#include "cli_io.h"
#include "demo.h"

#define PLAN_CAP   100000L /* most instances a plan places */
#define EXIT_USAGE 2
#define EXIT_NOFIT 3 /* single-mode `fit` when the request does not fit */

/* ------------------------------------------------------------------ settings */

struct cli {
    const char *cmd;    /* "fit", "plan", "bench" or "demo" */
    int profile;        /* enum numafit_profile */
    int strategy;       /* enum numafit_strategy */
    unsigned req_flags; /* NUMAFIT_REQUEST_ZED with --nova-release zed */
    bool batch;
    bool json;
    bool has_max;
    long max;
    const char *host_path;
    const char *flavor_path;
    const char *image_path;
    const char *limits_path;
    const char *bench_path; /* bench: the scenario file, "-" for stdin */
};

/* What one fit or plan produced: the answer line, plus what the human
 * renderer needs besides it. */
struct run {
    json_t *answer;      /* the batch answer object (owned) */
    bool error;          /* answer is an {"error":...} line */
    bool request_error;  /* the error is nova refusing the flavor/image */
    bool nofit;          /* fit: did not fit; plan: the reason it stopped is set */
    numafit_error_t why; /* the last "does not fit" report */
    json_t *host0;       /* the host as loaded, NUMATopology primitive (owned) */
    int vcpus;
    int cpu_policy;
    int thread_policy;
    int emulator_policy;
};

/* Where the parts of a job came from, for error messages. */
struct labels {
    const char *host;
    const char *flavor;
    const char *image;
    const char *limits;
};

static const struct labels batch_labels = {"host", "flavor", "image", "limits"};

/* ------------------------------------------------------------------ JSON helpers */

/* A JSON string from any bytes: invalid UTF-8 (e.g. a truncated message) is
 * replaced byte by byte with '?', so the answer line is always valid JSON. */
static json_t *jstr(const char *s) {
    json_t *v = json_string(s ? s : "");
    char *copy;
    size_t i, n;

    if (v)
        return v;
    n = strlen(s);
    copy = malloc(n + 1);
    if (!copy)
        return NULL;
    for (i = 0; i < n; i++)
        copy[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
    copy[n] = '\0';
    v = json_string(copy);
    free(copy);
    return v;
}

static json_t *error_answer(const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static json_t *error_answer(const char *kind, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    json_t *o = json_object();

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (!o)
        return NULL;
    json_object_set_new(o, "error", jstr(kind));
    json_object_set_new(o, "message", jstr(msg));
    return o;
}

/* The error kind of a failed library call: nova's exception class when the
 * library names one, else our own error code name. */
static const char *error_kind(int rc, const numafit_error_t *e) {
    if (e->exception[0])
        return e->exception;
    if (e->code > NUMAFIT_E_OK && e->code < NUMAFIT_E__MAX)
        return numafit_error_code_name(e->code);
    switch (-rc) {
        case EBADMSG:
            return "PARSE";
        case ERANGE:
            return "RANGE";
        case ENOMEM:
            return "NOMEM";
        case E2BIG:
            return "TOO_COMPLEX";
        case EBUSY:
            return "PINNING";
        case ENOSYS:
            return "NOT_IMPLEMENTED";
        default:
            return "INVALID_ARG";
    }
}

/* The error line of a failed library call on one part of the job. nova's
 * refusals (an exception name) keep nova's message as it is. */
static json_t *lib_error(const char *label, int rc, const numafit_error_t *e) {
    const char *text = e->text[0] ? e->text : numafit_strerror(rc);

    if (e->exception[0] && e->code == NUMAFIT_E_REQUEST)
        return error_answer(error_kind(rc, e), "%s", text);
    if (e->where[0])
        return error_answer(error_kind(rc, e), "%s: %s: %s", label, e->where, text);
    return error_answer(error_kind(rc, e), "%s: %s", label, text);
}

static void clear_error(numafit_error_t *e) {
    memset(e, 0, sizeof(*e));
    e->cell = -1;
}

/* Serialize a sub-object of the input line for the library. */
static char *dump(const json_t *v) {
    return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

/* Parse a JSON text the library returned; NULL if it is not JSON. */
static json_t *load_lib_json(const char *text) {
    if (!text)
        return NULL;
    return json_loads(text, JSON_DECODE_ANY, NULL);
}

/* The data of a nova versioned object primitive, or the object itself. */
static json_t *ovo_data(json_t *o) {
    json_t *d = json_object_get(o, "nova_object.data");
    return d ? d : o;
}

/* ------------------------------------------------------------------ the job */

static numafit_options_t *make_options(const struct cli *c, const json_t *limits,
                                       const struct labels *lb, json_t **ret_err) {
    numafit_options_t *opt = NULL;
    numafit_error_t e;
    int rc;

    clear_error(&e);
    rc = numafit_options_new(&opt);
    if (rc < 0) {
        *ret_err = lib_error("options", rc, &e);
        return NULL;
    }
    rc = numafit_options_set_profile(opt, c->profile);
    if (rc >= 0)
        rc = numafit_options_set_strategy(opt, c->strategy);
    if (rc < 0) {
        *ret_err = lib_error("options", rc, &e);
        numafit_options_free(opt);
        return NULL;
    }
    if (limits && !json_is_null(limits)) {
        char *txt = dump(limits);
        if (!txt) {
            *ret_err = error_answer("NOMEM", "%s: out of memory", lb->limits);
            numafit_options_free(opt);
            return NULL;
        }
        rc = numafit_options_set_limits_json(opt, txt, strlen(txt), &e);
        free(txt);
        if (rc < 0) {
            *ret_err = lib_error(lb->limits, rc, &e);
            numafit_options_free(opt);
            return NULL;
        }
    }
    return opt;
}

/* Parse the JSON text a library *_to_json call wrote (rc, txt, e); on
 * failure *ret_err names `what`. Frees txt. */
static json_t *lib_json(const char *what, int rc, char *txt, const numafit_error_t *e,
                        json_t **ret_err) {
    json_t *v;
    if (rc < 0) {
        *ret_err = lib_error(what, rc, e);
        return NULL;
    }
    v = load_lib_json(txt);
    numafit_free(txt);
    if (!v)
        *ret_err = error_answer("INTERNAL", "%s: the library wrote invalid JSON", what);
    return v;
}

/* The plain placement JSON (a list of cells), parsed; on failure *ret_err. */
static json_t *placement_cells(const numafit_placement_t *p, json_t **ret_err) {
    char *txt = NULL;
    numafit_error_t e;
    clear_error(&e);
    int rc = numafit_placement_to_json(p, 0, &txt, &e);
    return lib_json("placement", rc, txt, &e, ret_err);
}

static json_t *host_json(const numafit_host_t *h, json_t **ret_err) {
    char *txt = NULL;
    numafit_error_t e;
    clear_error(&e);
    int rc = numafit_host_to_json(h, 0, &txt, &e);
    return lib_json("host", rc, txt, &e, ret_err);
}

/* The "does not fit" answer of a fit: reason and the per-cell explanation. */
static json_t *nofit_answer(const numafit_host_t *h, const numafit_request_t *req,
                            const numafit_options_t *opt, const numafit_error_t *why) {
    json_t *o = json_object();
    char *txt = NULL;
    numafit_error_t e;
    json_t *explain = NULL;

    if (!o)
        return NULL;
    json_object_set_new(o, "fit", json_null());
    json_object_set_new(o, "reason", jstr(why->text[0] ? why->text : numafit_strerror(why->code)));
    clear_error(&e);
    if (numafit_fit_explain(h, req, opt, 0, &txt, &e) >= 0) {
        explain = load_lib_json(txt);
        if (!explain)
            explain = jstr(txt);
    }
    numafit_free(txt);
    json_object_set_new(o, "why", explain ? explain : json_null());
    return o;
}

/*
 * Run one fit or plan. host/flavor are required; image, limits may be NULL
 * or JSON null; max < 0 means "until it no longer fits" (plan only).
 * want_host: keep the loaded host's primitive in out->host0.
 */
static void run_job(const struct cli *c, bool plan, const json_t *host_v, const json_t *flavor_v,
                    const json_t *image_v, const json_t *limits_v, long max,
                    const struct labels *lb, bool want_host, struct run *out) {
    numafit_host_t *host = NULL;
    numafit_request_t *req = NULL;
    numafit_options_t *opt = NULL;
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    json_t *err = NULL;
    char *htxt = NULL, *ftxt = NULL, *itxt = NULL;
    int rc;

    memset(out, 0, sizeof(*out));
    clear_error(&out->why);
    out->cpu_policy = out->thread_policy = out->emulator_policy = -1;

    htxt = dump(host_v);
    ftxt = dump(flavor_v);
    itxt = image_v && !json_is_null(image_v) ? dump(image_v) : NULL;
    if (!htxt || !ftxt || (image_v && !json_is_null(image_v) && !itxt)) {
        err = error_answer("NOMEM", "out of memory");
        goto done;
    }

    clear_error(&e);
    rc = numafit_host_new_from_json(htxt, strlen(htxt), 0, &host, &e);
    if (rc < 0) {
        err = lib_error(lb->host, rc, &e);
        goto done;
    }
    if (want_host) {
        out->host0 = host_json(host, &err);
        if (!out->host0)
            goto done;
    }

    clear_error(&e);
    rc = numafit_request_new(ftxt, strlen(ftxt), itxt, itxt ? strlen(itxt) : 0, c->req_flags, &req,
                             &e);
    if (rc < 0) {
        /* a refusal names nova's exception; other failures name the file */
        out->request_error = e.exception[0] != '\0';
        err =
            lib_error(e.exception[0] ? "request"
                                     : (itxt && strstr(e.where, "image") ? lb->image : lb->flavor),
                      rc, &e);
        goto done;
    }
    out->vcpus = numafit_request_get_vcpus(req);
    out->cpu_policy = numafit_request_get_cpu_policy(req);
    out->thread_policy = numafit_request_get_thread_policy(req);
    out->emulator_policy = numafit_request_get_emulator_threads_policy(req);
    if (rc == 0) {
        out->answer = json_object();
        if (out->answer)
            json_object_set_new(out->answer, "request", json_null());
        goto done;
    }

    opt = make_options(c, limits_v, lb, &err);
    if (!opt)
        goto done;

    if (!plan) {
        clear_error(&out->why);
        rc = numafit_fit(host, req, opt, 0, &p, &out->why);
        if (rc < 0) {
            err = lib_error("fit", rc, &out->why);
            goto done;
        }
        if (rc == 0) {
            out->nofit = true;
            out->answer = nofit_answer(host, req, opt, &out->why);
            goto done;
        }
        json_t *cells = placement_cells(p, &err);
        if (!cells)
            goto done;
        out->answer = json_object();
        if (out->answer)
            json_object_set_new(out->answer, "fit", cells);
        else
            json_decref(cells);
        goto done;
    }

    /* plan: fit and claim until it no longer fits, or max */
    {
        json_t *fits = json_array();
        json_t *after;
        long n = 0, limit = max < 0 || max > PLAN_CAP ? PLAN_CAP : max;

        if (!fits) {
            err = error_answer("NOMEM", "out of memory");
            goto done;
        }
        while (n < limit) {
            json_t *cells;
            clear_error(&out->why);
            rc = numafit_fit(host, req, opt, 0, &p, &out->why);
            if (rc < 0) {
                err = lib_error("fit", rc, &out->why);
                json_decref(fits);
                goto done;
            }
            if (rc == 0) {
                out->nofit = true;
                break;
            }
            cells = placement_cells(p, &err);
            if (!cells) {
                json_decref(fits);
                goto done;
            }
            json_array_append_new(fits, cells);
            clear_error(&e);
            rc = numafit_host_claim(host, p, 0, &e);
            numafit_placement_free(p);
            p = NULL;
            if (rc < 0) {
                err = lib_error("claim", rc, &e);
                json_decref(fits);
                goto done;
            }
            n++;
        }
        after = host_json(host, &err);
        if (!after) {
            json_decref(fits);
            goto done;
        }
        out->answer = json_object();
        if (!out->answer) {
            json_decref(fits);
            json_decref(after);
            goto done;
        }
        json_object_set_new(out->answer, "count", json_integer(n));
        json_object_set_new(out->answer, "fits", fits);
        json_object_set_new(out->answer, "host_after", after);
    }

done:
    if (err) {
        json_decref(out->answer);
        out->answer = err;
        out->error = true;
    }
    if (!out->answer) {
        out->answer = error_answer("NOMEM", "out of memory");
        out->error = true;
    }
    numafit_placement_free(p);
    numafit_options_free(opt);
    numafit_request_free(req);
    numafit_host_free(host);
    free(htxt);
    free(ftxt);
    free(itxt);
}

static void run_free(struct run *r) {
    json_decref(r->answer);
    json_decref(r->host0);
    memset(r, 0, sizeof(*r));
}

/* ------------------------------------------------------------------ batch mode */

static const char *const line_keys[] = {"op",  "host",     "flavor",       "image", "limits",
                                        "max", "strategy", "nova_release", NULL};

/*
 * Check one parsed input line: its keys and their types, and the per-line
 * overrides of --strategy/--nova-release (applied to *c). Returns NULL when
 * the line is usable (*ret_op, *ret_max set), else the error answer.
 */
static json_t *check_line(struct cli *c, const json_t *in, const char **ret_op, long *ret_max) {
    const json_t *v;
    const char *key, *op = c->cmd;
    long max = -1;

    if (!json_is_object(in))
        return error_answer("SCHEMA", "a line must be a JSON object");
    json_object_foreach((json_t *)in, key, v) {
        size_t k;
        for (k = 0; line_keys[k] && strcmp(line_keys[k], key) != 0; k++)
            ;
        if (!line_keys[k])
            return error_answer("SCHEMA", "unknown key \"%s\" in the line", key);
    }
    v = json_object_get(in, "op");
    if (v) {
        if (!json_is_string(v) ||
            (strcmp(json_string_value(v), "fit") != 0 && strcmp(json_string_value(v), "plan") != 0))
            return error_answer("SCHEMA", "\"op\" must be \"fit\" or \"plan\"");
        op = json_string_value(v);
    }
    if (!json_object_get(in, "host") || json_is_null(json_object_get(in, "host")))
        return error_answer("SCHEMA", "the line has no \"host\"");
    v = json_object_get(in, "flavor");
    if (!json_is_object(v))
        return error_answer("SCHEMA", "\"flavor\" must be an object");
    v = json_object_get(in, "image");
    if (v && !json_is_object(v) && !json_is_null(v))
        return error_answer("SCHEMA", "\"image\" must be an object or null");
    v = json_object_get(in, "limits");
    if (v && !json_is_object(v) && !json_is_null(v))
        return error_answer("SCHEMA", "\"limits\" must be an object or null");
    /* per-line overrides of --strategy and --nova-release */
    v = json_object_get(in, "strategy");
    if (v) {
        const char *sv = json_string_value(v);
        if (sv && strcmp(sv, "spread") == 0)
            c->strategy = NUMAFIT_STRATEGY_SPREAD;
        else if (sv && strcmp(sv, "pack") == 0)
            c->strategy = NUMAFIT_STRATEGY_PACK;
        else
            return error_answer("SCHEMA", "\"strategy\" must be \"spread\" or \"pack\"");
    }
    v = json_object_get(in, "nova_release");
    if (v) {
        const char *sv = json_string_value(v);
        if (sv && strcmp(sv, "latest") == 0) {
            c->profile = NUMAFIT_PROFILE_LATEST;
            c->req_flags = 0;
        } else if (sv && strcmp(sv, "zed") == 0) {
            c->profile = NUMAFIT_PROFILE_ZED;
            c->req_flags = NUMAFIT_REQUEST_ZED;
        } else {
            return error_answer("SCHEMA", "\"nova_release\" must be \"latest\" or \"zed\"");
        }
    }
    v = json_object_get(in, "max");
    if (v && !json_is_null(v)) {
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return error_answer("SCHEMA", "\"max\" must be an integer >= 0");
        max = json_integer_value(v) > PLAN_CAP ? PLAN_CAP : (long)json_integer_value(v);
    } else if (c->has_max) {
        max = c->max;
    }
    *ret_op = op;
    *ret_max = max;
    return NULL;
}

/* The answer to one input line. */
static json_t *batch_answer(const struct cli *cli, const char *line, size_t len) {
    struct cli lc = *cli, *c = &lc;
    json_error_t jerr;
    json_t *in, *ans;
    const char *op = c->cmd;
    long max = -1;
    struct run r;

    in = cli_json_load(line, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!in)
        return cli_json_error(&jerr, NULL, 0) == -ENOMEM
                   ? error_answer("NOMEM", "out of memory")
                   : error_answer("PARSE", "malformed JSON line (column %d): %s", jerr.column,
                                  jerr.text);
    ans = check_line(c, in, &op, &max);
    if (ans) {
        json_decref(in);
        return ans;
    }

    run_job(c, strcmp(op, "plan") == 0, json_object_get(in, "host"), json_object_get(in, "flavor"),
            json_object_get(in, "image"), json_object_get(in, "limits"), max, &batch_labels, false,
            &r);
    ans = r.answer;
    r.answer = NULL;
    run_free(&r);
    json_decref(in);
    return ans;
}

/*
 * Read one line (without its '\n', and a trailing '\r') into *buf. Lines
 * longer than limit are read to their end but not kept (*toolong set), up
 * to 16 times limit: a longer one (a stream without newlines, /dev/zero)
 * is not skipped but ends the input.
 * Returns 1 for a line, 0 at the end of input, -1 on a read or memory error,
 * -2 for a line too long to skip.
 */
static int read_line(FILE *f, char **buf, size_t *cap, size_t *len, size_t limit, bool *toolong) {
    int ch;
    bool any = false;
    size_t skipped = 0;

    *len = 0;
    *toolong = false;
    while ((ch = getc_unlocked(f)) != EOF) {
        any = true;
        if (ch == '\n')
            break;
        if (*toolong) {
            if (++skipped > 15 * (uint64_t)limit)
                return -2;
            continue;
        }
        if (*len >= limit) {
            *toolong = true;
            continue;
        }
        if (*len + 1 >= *cap) {
            size_t ncap = *cap ? *cap * 2 : 65536;
            char *nb = realloc(*buf, ncap);
            if (!nb)
                return -1;
            *buf = nb;
            *cap = ncap;
        }
        (*buf)[(*len)++] = (char)ch;
    }
    if (ferror(f))
        return -1;
    if (!any)
        return 0;
    if (*len && (*buf)[*len - 1] == '\r')
        (*len)--;
    if (*buf)
        (*buf)[*len] = '\0';
    return 1;
}

static bool blank(const char *s, size_t n) {
    size_t i;
    for (i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return false;
    return true;
}

static int emit(json_t *ans) {
    char *s = ans ? json_dumps(ans, JSON_COMPACT) : NULL;
    int rc = 0;

    if (!s) {
        /* out of memory: still one line for this input */
        fputs("{\"error\":\"NOMEM\",\"message\":\"out of memory\"}\n", stdout);
    } else {
        fputs(s, stdout);
        fputc('\n', stdout);
        free(s);
    }
    if (fflush(stdout) != 0 || ferror(stdout))
        rc = -1;
    return rc;
}

static int batch_main(const struct cli *c) {
    char *buf = NULL;
    size_t cap = 0, len = 0;
    bool toolong;
    int rc;

    while ((rc = read_line(stdin, &buf, &cap, &len, NUMAFIT_INPUT_MAX, &toolong)) > 0) {
        json_t *ans;
        if (toolong)
            ans = error_answer("RANGE", "line longer than %u bytes", NUMAFIT_INPUT_MAX);
        else if (blank(buf ? buf : "", len))
            ans = error_answer("PARSE", "empty line");
        else
            ans = batch_answer(c, buf, len);
        if (emit(ans) < 0) {
            json_decref(ans);
            free(buf);
            fprintf(stderr, "numafit: cannot write the answers: %s\n", strerror(errno));
            return 1;
        }
        json_decref(ans);
    }
    free(buf);
    if (rc == -2) {
        fprintf(stderr, "numafit: standard input: a line longer than %llu bytes: giving up\n",
                16ULL * NUMAFIT_INPUT_MAX);
        return 1;
    }
    if (rc < 0) {
        fprintf(stderr, "numafit: error reading standard input: %s\n", strerror(errno));
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------ bench */

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

    clear_error(&e);
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
static void bench_line(const struct cli *cli, const char *line, size_t len,
                       struct bench_result *out) {
    struct cli lc = *cli, *c = &lc;
    numafit_host_t *host = NULL;
    numafit_request_t *req = NULL;
    numafit_options_t *opt = NULL;
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
        out->answer = cli_json_error(&jerr, NULL, 0) == -ENOMEM
                          ? error_answer("NOMEM", "out of memory")
                          : error_answer("PARSE", "malformed JSON line (column %d): %s",
                                         jerr.column, jerr.text);
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
    clear_error(&e);
    rc = numafit_host_new_from_json(htxt, strlen(htxt), 0, &host, &e);
    if (rc < 0) {
        err = lib_error("host", rc, &e);
        goto done;
    }
    clear_error(&e);
    rc = numafit_request_new(ftxt, strlen(ftxt), itxt, itxt ? strlen(itxt) : 0, c->req_flags, &req,
                             &e);
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

static int bench_main(const struct cli *c) {
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

/* ------------------------------------------------------------------ files */

/* Read and parse a JSON file (a regular file of at most NUMAFIT_INPUT_MAX
 * bytes). Prints the error naming the file and returns NULL on failure. */
static json_t *load_file(const char *path) {
    char *buf = NULL, why[256];
    size_t n;
    json_error_t jerr;
    json_t *v;

    if (cli_read_file(path, NUMAFIT_INPUT_MAX, false, &buf, &n, why, sizeof(why)) < 0) {
        fprintf(stderr, "numafit: %s: %s\n", path, why);
        return NULL;
    }
    v = cli_json_load(buf, n, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    free(buf);
    if (!v) {
        if (cli_json_error(&jerr, why, sizeof(why)) == -ENOMEM || jerr.line < 0)
            fprintf(stderr, "numafit: %s: %s\n", path, why);
        else
            fprintf(stderr, "numafit: %s:%d:%d: malformed JSON: %s\n", path, jerr.line, jerr.column,
                    jerr.text);
    }
    return v;
}

/* ------------------------------------------------------------------ human output */

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
static numafit_cpuset_t *realtime_vcpus(const json_t *flavor, const json_t *image, int vcpus) {
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
    if (kb >= 1048576 && kb % 1048576 == 0)
        fprintf(o, "%lld GiB", kb / 1048576);
    else if (kb >= 1024 && kb % 1024 == 0)
        fprintf(o, "%lld MiB", kb / 1024);
    else
        fprintf(o, "%lld KiB", kb);
}

static void print_host_summary(FILE *o, json_t *topo) {
    json_t *cells = json_object_get(ovo_data(topo), "cells");
    size_t i, j;
    json_t *cell, *pg;
    char shared[256], ded[256], pinned[256];

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
        fprintf(o, "         memory %lld MiB, used %lld MiB, cpu_usage %lld\n", mem, used,
                (long long)json_integer_value(json_object_get(d, "cpu_usage")));
        json_array_foreach(json_object_get(d, "mempages"), j, pg) {
            json_t *pd = ovo_data(pg);
            long long total = json_integer_value(json_object_get(pd, "total"));
            long long pused = json_integer_value(json_object_get(pd, "used"));
            long long resv = json_integer_value(json_object_get(pd, "reserved"));
            fprintf(o, "         pages ");
            print_size_kb(o, json_integer_value(json_object_get(pd, "size_kb")));
            fprintf(o, ": %lld total, %lld used, %lld reserved, %lld free\n", total, pused, resv,
                    total - pused - resv);
        }
    }
}

static const char *policy_name(const char *s) {
    return s ? s : "-";
}

static void print_request(FILE *o, const struct run *r, const json_t *flavor) {
    fprintf(o,
            "request: %d vCPUs, %lld MiB, cpu policy %s, thread policy %s, "
            "emulator threads %s\n",
            r->vcpus, (long long)json_integer_value(json_object_get(flavor, "memory_mb")),
            policy_name(numafit_cpu_policy_to_string(r->cpu_policy)),
            policy_name(numafit_thread_policy_to_string(r->thread_policy)),
            policy_name(numafit_emulator_threads_policy_to_string(r->emulator_policy)));
}

/* One placement (a list of guest cells) as a table. */
static void print_placement(FILE *o, json_t *cells, json_t *topo, const numafit_cpuset_t *rt) {
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
        fprintf(o, "  memory %lld MiB", mem);
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
static void print_why(FILE *o, const json_t *ans) {
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

static void print_json_line(json_t *ans) {
    char *s = json_dumps(ans, JSON_COMPACT);
    if (s) {
        puts(s);
        free(s);
    }
}

/* Human form of a fit answer. Returns the exit code. */
static int show_fit(const struct run *r, const json_t *flavor, const json_t *image) {
    json_t *ans = r->answer;
    numafit_cpuset_t *rt;

    print_request(stdout, r, flavor);
    if (json_object_get(ans, "request")) {
        printf("the flavor asks for no NUMA topology: nothing to fit (nova places it anywhere)\n");
        return 0;
    }
    if (r->nofit) {
        print_why(stdout, ans);
        return EXIT_NOFIT;
    }
    rt = realtime_vcpus(flavor, image, r->vcpus);
    print_placement(stdout, json_object_get(ans, "fit"), r->host0, rt);
    numafit_cpuset_free(rt);
    return 0;
}

/* Human form of a plan answer. */
static void show_plan(const struct run *r, const json_t *flavor, long max) {
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
    printf("%lld instance%s fit", (long long)json_integer_value(json_object_get(ans, "count")),
           json_integer_value(json_object_get(ans, "count")) == 1 ? "" : "s");
    if (r->nofit)
        printf("; the next one does not: %s\n",
               r->why.text[0] ? r->why.text : numafit_strerror(r->why.code));
    else if (max >= 0)
        printf(" (stopped at --max %ld)\n", max);
    else
        printf(" (stopped at the cap of %ld)\n", PLAN_CAP);
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

/* subcommands in their own files */
int numafit_cli_host(int argc, char **argv);       /* cmd_host.c */
int numafit_cli_xml(int argc, char **argv);        /* cmd_xml.c */
int numafit_cli_doctor(int argc, char **argv);     /* cmd_doctor.c */
int numafit_cli_render(int argc, char **argv);     /* cmd_render.c */
int numafit_cli_plan_fleet(int argc, char **argv); /* cmd_plan_fleet.c */
bool numafit_cli_plan_is_fleet(int argc, char **argv);

/* ------------------------------------------------------------------ usage */

static void usage(FILE *o) {
    fprintf(
        o,
        "usage: numafit fit  --batch [OPTIONS] < lines.jsonl\n"
        "       numafit plan --batch [OPTIONS] < lines.jsonl\n"
        "       numafit fit  --host H.json --flavor F.json [--image I.json]\n"
        "                    [--limits L.json] [--json] [OPTIONS]\n"
        "       numafit plan --host H.json --flavor F.json [--image I.json]\n"
        "                    [--limits L.json] [--max N] [--json] [OPTIONS]\n"
        "       numafit plan --hosts-dir DIR | --db FILE | --add-hosts N SPEC | --sysfs DIR\n"
        "                    | --uri URI ... --flavors F.json [--json] [--svg FILE]\n"
        "                    [--html FILE] [OPTIONS]       (a fleet: numafit plan --fleet --help)\n"
        "       numafit render PLAN.json [--svg FILE] [--html FILE] [--strategy S]\n"
        "       numafit bench [--json] [OPTIONS] FILE.jsonl\n"
        "       numafit demo [OPTIONS]\n"
        "       numafit host --libvirt URI | --caps FILE | --sysfs [ROOT] [OPTIONS]\n"
        "       numafit xml  --host H.json --flavor F.json [--image I.json] [--limits L.json]\n"
        "                    [--cpu-shared-set SPEC] [--domain] [OPTIONS]\n"
        "       numafit doctor [--root DIR] [--nova-conf FILE] [--realtime] [--json]\n"
        "       numafit --help | --version\n"
        "\n"
        "Fit OpenStack nova instances on a host's NUMA topology, as nova does.\n"
        "\n"
        "OPTIONS:\n"
        "  --nova-release latest|zed  nova rules to apply (default latest)\n"
        "  --strategy spread|pack     host cell order (default spread)\n"
        "\n"
        "Run `numafit SUBCOMMAND --help` for each subcommand.\n");
}

static void usage_fit(FILE *o) {
    fprintf(o, "usage: numafit fit --batch [--nova-release R] [--strategy S]\n"
               "       numafit fit --host H.json --flavor F.json [--image I.json]\n"
               "                   [--limits L.json] [--json] [--nova-release R] [--strategy S]\n"
               "\n"
               "Fit one instance of a flavor on a host (nova's numa_fit_instance_to_host).\n"
               "  --batch            JSON lines on stdin, one answer line each on stdout\n"
               "  --host FILE        host: nova NUMATopology primitive (or legacy dict)\n"
               "  --flavor FILE      {\"vcpus\":N,\"memory_mb\":N,\"extra_specs\":{...}}\n"
               "  --image FILE       {\"properties\":{\"hw_...\":...}}\n"
               "  --limits FILE      {\"cpu_allocation_ratio\":x,\"ram_allocation_ratio\":y,\n"
               "                      \"network_metadata\":{\"physnets\":[...],\"tunneled\":b}}\n"
               "  --json             print the answer line instead of a table\n"
               "  --nova-release R   latest (default) or zed (Debian 12's nova 26.2.2)\n"
               "  --strategy S       spread (default) or pack\n"
               "Exit status: 0 fits (or no NUMA topology), 3 does not fit, 1 error, 2 usage.\n");
}

static void usage_plan(FILE *o) {
    fprintf(o,
            "usage: numafit plan --batch [--max N] [--nova-release R] [--strategy S]\n"
            "       numafit plan --host H.json --flavor F.json [--image I.json]\n"
            "                    [--limits L.json] [--max N] [--json]\n"
            "                    [--nova-release R] [--strategy S]\n"
            "\n"
            "Fit and claim instances of a flavor until the next one does not fit\n"
            "(at most N, at most %ld), and show the host afterwards.\n"
            "Exit status: 0 ok, 1 error, 2 usage.\n"
            "\n"
            "Over a fleet (hosts from --hosts-dir, --db, --add-hosts, --sysfs, --uri; flavors\n"
            "from --flavors): how many of each flavor fit, what is stranded, why not;\n"
            "see `numafit plan --fleet --help` and numafit(1).\n",
            PLAN_CAP);
}

static void usage_bench(FILE *o) {
    fprintf(o,
            "usage: numafit bench [--json] [--nova-release R] [--strategy S] FILE.jsonl\n"
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
            "  --strategy S       spread (default) or pack; a line's \"strategy\" overrides it\n"
            "Exit status: 0 done (whatever the answers), 1 I/O error, 2 usage.\n",
            BENCH_MIN_NS / 1000000ULL, BENCH_MAX_REPS);
}

static void usage_demo(FILE *o) {
    fprintf(o, "usage: numafit demo [--nova-release R] [--strategy S]\n"
               "\n"
               "Fit the real-time flavor of seed document 000 (4 dedicated vCPUs, 2 of them\n"
               "realtime, 8 GiB on 1 GiB pages) on a Huawei RH2288H V3 and count how many\n"
               "such instances the host takes.\n");
}

/* ------------------------------------------------------------------ main */

static int parse_args(int argc, char **argv, struct cli *c) {
    enum { O_HOST = 256, O_FLAVOR, O_IMAGE, O_LIMITS, O_MAX, O_RELEASE, O_STRATEGY };
    static const struct option longopts[] = {
        {"batch", no_argument, NULL, 'b'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {"host", required_argument, NULL, O_HOST},
        {"flavor", required_argument, NULL, O_FLAVOR},
        {"image", required_argument, NULL, O_IMAGE},
        {"limits", required_argument, NULL, O_LIMITS},
        {"max", required_argument, NULL, O_MAX},
        {"nova-release", required_argument, NULL, O_RELEASE},
        {"strategy", required_argument, NULL, O_STRATEGY},
        {NULL, 0, NULL, 0},
    };
    bool is_demo = strcmp(c->cmd, "demo") == 0;
    bool is_plan = strcmp(c->cmd, "plan") == 0;
    bool is_bench = strcmp(c->cmd, "bench") == 0;
    int ch;

    opterr = 0;
    optind = 1;
    while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (ch) {
            case 'h':
                if (is_demo)
                    usage_demo(stdout);
                else if (is_bench)
                    usage_bench(stdout);
                else if (is_plan)
                    usage_plan(stdout);
                else
                    usage_fit(stdout);
                return 0;
            case 'b':
                c->batch = true;
                break;
            case 'j':
                c->json = true;
                break;
            case O_HOST:
                c->host_path = optarg;
                break;
            case O_FLAVOR:
                c->flavor_path = optarg;
                break;
            case O_IMAGE:
                c->image_path = optarg;
                break;
            case O_LIMITS:
                c->limits_path = optarg;
                break;
            case O_MAX: {
                char *end;
                errno = 0;
                c->max = strtol(optarg, &end, 10);
                if (errno || end == optarg || *end || c->max < 0 || !is_plan) {
                    fprintf(stderr, "numafit %s: --max wants an integer >= 0 (plan only)\n",
                            c->cmd);
                    return -1;
                }
                if (c->max > PLAN_CAP)
                    c->max = PLAN_CAP;
                c->has_max = true;
                break;
            }
            case O_RELEASE:
                if (strcmp(optarg, "latest") == 0) {
                    c->profile = NUMAFIT_PROFILE_LATEST;
                    c->req_flags = 0;
                } else if (strcmp(optarg, "zed") == 0) {
                    c->profile = NUMAFIT_PROFILE_ZED;
                    c->req_flags = NUMAFIT_REQUEST_ZED;
                } else {
                    fprintf(stderr, "numafit %s: --nova-release must be latest or zed\n", c->cmd);
                    return -1;
                }
                break;
            case O_STRATEGY:
                if (strcmp(optarg, "spread") == 0) {
                    c->strategy = NUMAFIT_STRATEGY_SPREAD;
                } else if (strcmp(optarg, "pack") == 0) {
                    c->strategy = NUMAFIT_STRATEGY_PACK;
                } else {
                    fprintf(stderr, "numafit %s: --strategy must be spread or pack\n", c->cmd);
                    return -1;
                }
                break;
            case ':':
                fprintf(stderr, "numafit %s: option %s needs a value\n", c->cmd, argv[optind - 1]);
                return -1;
            default:
                fprintf(stderr, "numafit %s: unknown option %s\n", c->cmd, argv[optind - 1]);
                return -1;
        }
    }
    if (is_bench) {
        if (c->batch || c->host_path || c->flavor_path || c->image_path || c->limits_path ||
            c->has_max) {
            fprintf(stderr, "numafit bench: only --json, --nova-release and --strategy are "
                            "accepted\n");
            return -1;
        }
        if (optind != argc - 1) {
            fprintf(stderr, "numafit bench: give one scenario file (- for standard input)\n");
            return -1;
        }
        c->bench_path = argv[optind];
        return 1;
    }
    if (optind < argc) {
        fprintf(stderr, "numafit %s: unexpected argument %s\n", c->cmd, argv[optind]);
        return -1;
    }
    if (is_demo) {
        if (c->batch || c->json || c->host_path || c->flavor_path || c->image_path ||
            c->limits_path || c->has_max) {
            fprintf(stderr, "numafit demo: only --nova-release and --strategy are accepted\n");
            return -1;
        }
        return 1;
    }
    if (c->batch) {
        if (c->host_path || c->flavor_path || c->image_path || c->limits_path || c->json) {
            fprintf(stderr,
                    "numafit %s: --batch reads everything from stdin; "
                    "--host/--flavor/--image/--limits/--json do not apply\n",
                    c->cmd);
            return -1;
        }
        return 1;
    }
    if (!c->host_path || !c->flavor_path) {
        fprintf(stderr, "numafit %s: --host and --flavor are required (or --batch)\n", c->cmd);
        return -1;
    }
    return 1;
}

static void print_stop_why(const struct cli *c, const struct run *plan, const json_t *flavor,
                           const json_t *image, const json_t *limits);

/* Single mode: files in, table or JSON out. */
static int single_main(const struct cli *c) {
    json_t *host = NULL, *flavor = NULL, *image = NULL, *limits = NULL;
    struct labels lb = {c->host_path, c->flavor_path, c->image_path ? c->image_path : "image",
                        c->limits_path ? c->limits_path : "limits"};
    bool plan = strcmp(c->cmd, "plan") == 0;
    struct run r;
    int ret = 1;

    host = load_file(c->host_path);
    flavor = host ? load_file(c->flavor_path) : NULL;
    if (!flavor)
        goto out;
    if (!json_is_object(flavor)) {
        fprintf(stderr,
                "numafit: %s: a flavor is a JSON object "
                "{\"vcpus\":N,\"memory_mb\":N,\"extra_specs\":{...}}\n",
                c->flavor_path);
        goto out;
    }
    if (c->image_path) {
        image = load_file(c->image_path);
        if (!image)
            goto out;
        if (!json_is_object(image)) {
            fprintf(stderr, "numafit: %s: an image is a JSON object {\"properties\":{...}}\n",
                    c->image_path);
            goto out;
        }
    }
    if (c->limits_path) {
        limits = load_file(c->limits_path);
        if (!limits)
            goto out;
    }
    run_job(c, plan, host, flavor, image, limits, c->has_max ? c->max : -1, &lb, !c->json, &r);
    if (r.error) {
        if (r.request_error)
            fprintf(stderr, "numafit: %s%s%s: ", c->flavor_path, c->image_path ? " + " : "",
                    c->image_path ? c->image_path : "");
        else
            fprintf(stderr, "numafit: ");
        fprintf(stderr, "%s: %s\n", json_string_value(json_object_get(r.answer, "error")),
                json_string_value(json_object_get(r.answer, "message")));
        if (c->json)
            print_json_line(r.answer);
        ret = 1;
    } else if (c->json) {
        print_json_line(r.answer);
        ret = !plan && r.nofit ? EXIT_NOFIT : 0;
    } else if (plan) {
        show_plan(&r, flavor, c->has_max ? c->max : -1);
        if (r.nofit) {
            printf("why the next one does not fit:\n");
            print_stop_why(c, &r, flavor, image, limits);
        }
        ret = 0;
    } else {
        ret = show_fit(&r, flavor, image);
    }
    run_free(&r);
out:
    json_decref(host);
    json_decref(flavor);
    json_decref(image);
    json_decref(limits);
    return ret;
}

/* After a plan stopped: why the next instance does not fit, per host cell
 * (a fit on the host as the plan left it). */
static void print_stop_why(const struct cli *c, const struct run *plan, const json_t *flavor,
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

static int demo_main(const struct cli *c) {
    json_t *host, *flavor;
    struct run fit, plan;
    numafit_cpuset_t *rt;
    int ret = 1;

    host = json_loads(demo_host_json, 0, NULL);
    flavor = json_loads(demo_flavor_json, 0, NULL);
    if (!host || !flavor) {
        fprintf(stderr, "numafit demo: built-in data is broken\n");
        json_decref(host);
        json_decref(flavor);
        return 1;
    }
    printf("numafit %s demo (nova rules: %s, host cell order: %s)\n\n", numafit_version_string(),
           c->profile == NUMAFIT_PROFILE_ZED ? "zed" : "latest",
           c->strategy == NUMAFIT_STRATEGY_PACK ? "pack" : "spread");
    printf("Host: Huawei RH2288H V3, 2 x Xeon E5-2620 v4, hyper-threading off,\n"
           "      cores 4-11 isolated for guests (cpu_dedicated_set=4-11,\n"
           "      cpu_shared_set=0-3,12-15), 16 x 1 GiB hugepages, 251 GiB RAM\n");

    run_job(c, false, host, flavor, NULL, NULL, -1, &batch_labels, true, &fit);
    if (fit.error) {
        fprintf(stderr, "numafit demo: %s: %s\n",
                json_string_value(json_object_get(fit.answer, "error")),
                json_string_value(json_object_get(fit.answer, "message")));
        run_free(&fit);
        goto out;
    }
    print_host_summary(stdout, fit.host0);
    printf("\nFlavor %s: 4 vCPUs, 8192 MiB, hw:cpu_policy=dedicated hw:cpu_realtime=yes\n"
           "      hw:cpu_realtime_mask=^0-1 (vCPUs 2-3 are realtime) hw:mem_page_size=1GB\n\n",
           demo_flavor_name);
    printf("Placement of one instance (spread: the cell with the most free memory, then\n"
           "the most free dedicated pCPUs, comes first):\n");
    if (fit.nofit) {
        print_why(stdout, fit.answer);
    } else {
        rt = realtime_vcpus(flavor, NULL, fit.vcpus);
        print_placement(stdout, json_object_get(fit.answer, "fit"), fit.host0, rt);
        numafit_cpuset_free(rt);
    }
    run_free(&fit);

    run_job(c, true, host, flavor, NULL, NULL, -1, &batch_labels, false, &plan);
    if (plan.error) {
        fprintf(stderr, "numafit demo: %s: %s\n",
                json_string_value(json_object_get(plan.answer, "error")),
                json_string_value(json_object_get(plan.answer, "message")));
        run_free(&plan);
        goto out;
    }
    printf("\nHow many %s instances the host takes (fit, claim, repeat):\n", demo_flavor_name);
    show_plan(&plan, flavor, -1);
    if (plan.nofit) {
        printf("\nWhy it stops: each instance pins 4 dedicated pCPUs and uses 8 x 1 GiB pages,\n"
               "all that one NUMA cell has of either; with both cells taken, the next\n");
        print_stop_why(c, &plan, flavor, NULL, NULL);
    }
    run_free(&plan);
    ret = 0;
out:
    json_decref(host);
    json_decref(flavor);
    return ret;
}

static int run_command(int argc, char **argv) {
    struct cli c;
    int rc;

    memset(&c, 0, sizeof(c));
    c.profile = NUMAFIT_PROFILE_LATEST;
    c.strategy = NUMAFIT_STRATEGY_SPREAD;
    c.max = -1;

    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("numafit %s\n", numafit_version_string());
        return 0;
    }
    if (strcmp(argv[1], "host") == 0)
        return numafit_cli_host(argc - 1, argv + 1);
    if (strcmp(argv[1], "xml") == 0)
        return numafit_cli_xml(argc - 1, argv + 1);
    if (strcmp(argv[1], "doctor") == 0)
        return numafit_cli_doctor(argc - 1, argv + 1);
    if (strcmp(argv[1], "render") == 0)
        return numafit_cli_render(argc - 1, argv + 1);
    if (strcmp(argv[1], "plan") == 0 && numafit_cli_plan_is_fleet(argc - 1, argv + 1))
        return numafit_cli_plan_fleet(argc - 1, argv + 1);
    if (strcmp(argv[1], "fit") != 0 && strcmp(argv[1], "plan") != 0 &&
        strcmp(argv[1], "bench") != 0 && strcmp(argv[1], "demo") != 0) {
        fprintf(stderr, "numafit: unknown command or option '%s'\n", argv[1]);
        usage(stderr);
        return EXIT_USAGE;
    }
    c.cmd = argv[1];
    rc = parse_args(argc - 1, argv + 1, &c);
    if (rc < 0) {
        fprintf(stderr, "Try 'numafit %s --help'.\n", c.cmd);
        return EXIT_USAGE;
    }
    if (rc == 0)
        return 0;
    if (strcmp(c.cmd, "demo") == 0)
        return demo_main(&c);
    if (strcmp(c.cmd, "bench") == 0)
        return bench_main(&c);
    if (c.batch)
        return batch_main(&c);
    return single_main(&c);
}

int main(int argc, char **argv) {
    cli_stdio_init();
    /* every subcommand: output that could not be written is a failure (3 is
     * fit's and xml's "does not fit", a verdict like 0) */
    return cli_close_stdout("numafit", run_command(argc, argv), EXIT_NOFIT);
}
