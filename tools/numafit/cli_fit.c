/*
 * The fit machinery of `numafit fit`, single-host `plan`, `bench` and `demo`
 * (cli_fit.h): their options, one fit or plan as a batch answer line, the
 * checks of a batch line, and reading and writing lines.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <numafit.h>

#include "cli_conf.h"
#include "cli_fit.h"
#include "cli_io.h"

const struct labels batch_labels = {"host", "flavor", "image", "limits", "inventory"};
static const struct labels nova_conf_labels = {"host", "flavor", "image", "--nova-conf",
                                               "inventory"};

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

json_t *error_answer(const char *kind, const char *fmt, ...) {
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
json_t *lib_error(const char *label, int rc, const numafit_error_t *e) {
    char msg[1024];

    if (e->exception[0] && e->code == NUMAFIT_E_REQUEST)
        cli_error_format(msg, sizeof(msg), NULL, rc, e, 0);
    else
        cli_error_format(msg, sizeof(msg), label, rc, e, CLI_ERR_WHERE_FIRST);
    return error_answer(error_kind(rc, e), "%s", msg);
}

/* The answer of a line that is not JSON. */
json_t *parse_error_answer(const json_error_t *jerr) {
    if (cli_json_error(jerr, NULL, 0) == -ENOMEM)
        return error_answer("NOMEM", "out of memory");
    return error_answer("PARSE", "malformed JSON line (column %d): %s", jerr->column, jerr->text);
}

/* Serialize a sub-object of the input line for the library. */
char *dump(const json_t *v) {
    return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

/* Parse a JSON text the library returned; NULL if it is not JSON. */
static json_t *load_lib_json(const char *text) {
    if (!text)
        return NULL;
    return json_loads(text, JSON_DECODE_ANY, NULL);
}

/* ------------------------------------------------------------------ the job */

numafit_options_t *make_options(const struct fit_cli *c, const json_t *limits,
                                const struct labels *lb, json_t **ret_err) {
    numafit_options_t *opt = NULL;
    numafit_error_t e;
    char *txt = NULL;
    int rc, bad;

    if (limits && !json_is_null(limits)) {
        txt = dump(limits);
        if (!txt) {
            *ret_err = error_answer("NOMEM", "%s: out of memory", lb->limits);
            return NULL;
        }
    }
    rc = cli_options_new(&c->fit, txt, txt ? strlen(txt) : 0, &opt, &e, &bad);
    free(txt);
    if (rc == 0 && !limits && c->default_limits) {
        /* nova's scheduler always passes the host's ratios */
        rc = cli_nova_conf_limits(c->nc, c->fit.profile == NUMAFIT_PROFILE_ZED, opt, &e);
        bad = CLI_OPTIONS_BAD_LIMITS;
        lb = &nova_conf_labels;
    }
    if (rc < 0) {
        numafit_options_free(opt);
        *ret_err = lib_error(bad == CLI_OPTIONS_BAD_LIMITS ? lb->limits : "options", rc, &e);
        return NULL;
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
    cli_error_clear(&e);
    int rc = numafit_placement_to_json(p, 0, &txt, &e);
    return lib_json("placement", rc, txt, &e, ret_err);
}

static json_t *host_json(const numafit_host_t *h, json_t **ret_err) {
    char *txt = NULL;
    numafit_error_t e;
    cli_error_clear(&e);
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
    cli_error_clear(&e);
    if (numafit_fit_explain(h, req, opt, 0, &txt, &e) >= 0) {
        explain = load_lib_json(txt);
        if (!explain)
            explain = jstr(txt);
    }
    numafit_free(txt);
    json_object_set_new(o, "why", explain ? explain : json_null());
    return o;
}

/* The single-host plan's numafit_host_fill() callback: each placement's
 * cells, in order, in pf->fits. */
struct plan_fits {
    json_t *fits;
    json_t *err; /* the error answer when a placement cannot be written */
};

static int plan_fit_cb(void *ctx, size_t request_index, const numafit_placement_t *p) {
    struct plan_fits *pf = ctx;
    json_t *cells = placement_cells(p, &pf->err);
    (void)request_index;
    if (!cells)
        return -ENOMEM;
    json_array_append_new(pf->fits, cells);
    return 0;
}

/* plan: fit and claim req on host until it no longer fits, or max (< 0:
 * CLI_PLAN_DEFAULT_MAX); the answer in out->answer. Returns NULL, or an error answer. */
static json_t *run_plan(numafit_host_t *host, const numafit_request_t *req,
                        const numafit_options_t *opt, long max, struct run *out) {
    const numafit_request_t *reqs[1] = {req};
    struct plan_fits pf = {json_array(), NULL};
    long limit = max < 0 ? CLI_PLAN_DEFAULT_MAX : max > PLAN_CAP ? PLAN_CAP : max;
    json_t *after, *err = NULL;
    uint64_t n = 0;
    int rc;

    if (!pf.fits)
        return error_answer("NOMEM", "out of memory");
    cli_error_clear(&out->why);
    rc = numafit_host_fill(host, reqs, 1, opt, (uint64_t)limit, 0, plan_fit_cb, &pf, &n, &out->why);
    if (rc < 0 || (rc == NUMAFIT_FILL_FULL && out->why.code == NUMAFIT_E_TOO_COMPLEX)) {
        /* a fit or claim failed, or a fit exceeded its budget (-E2BIG); a
         * claim of a fitted placement fails only on pinning or schema */
        bool claim = out->why.code == NUMAFIT_E_PINNING || out->why.code == NUMAFIT_E_SCHEMA;
        err = pf.err ? pf.err : lib_error(claim ? "claim" : "fit", rc < 0 ? rc : -E2BIG, &out->why);
        json_decref(pf.fits);
        return err;
    }
    out->nofit = rc == NUMAFIT_FILL_FULL;
    after = host_json(host, &err);
    out->answer = after ? json_object() : NULL;
    if (!out->answer) {
        json_decref(pf.fits);
        json_decref(after);
        return err ? err : error_answer("NOMEM", "out of memory");
    }
    json_object_set_new(out->answer, "count", json_integer((json_int_t)n));
    json_object_set_new(out->answer, "fits", pf.fits);
    json_object_set_new(out->answer, "host_after", after);
    return NULL;
}

/*
 * Run one fit or plan. host/flavor are required; image, limits may be NULL
 * or JSON null; max < 0 means "until it no longer fits" (plan only).
 * want_host: keep the loaded host's primitive in out->host0.
 */
/*
 * nova's first step, for a job with an inventory: what the flavor asks of
 * placement (*ret_resources, {class: amount}) and whether the inventory
 * has room for it. No room: out->nofit, out->why and out->answer set.
 * Returns NULL, or an error answer.
 */
static json_t *inventory_step(const struct fit_cli *c, const char *ftxt, const char *itxt,
                              const struct labels *lb, struct run *out, json_t **ret_resources) {
    int64_t amounts[NUMAFIT_RC_COUNT];
    numafit_inventory_t *inv = NULL;
    unsigned bits;
    unsigned flags = (c->fit.req_flags & NUMAFIT_REQUEST_ZED ? NUMAFIT_RESOURCES_ZED : 0) |
                     (c->boot_from_volume ? NUMAFIT_RESOURCES_BOOT_FROM_VOLUME : 0);
    numafit_error_t e;
    json_t *res;
    char *txt;
    int rc;

    cli_error_clear(&e);
    rc = numafit_resources_from_flavor(ftxt, strlen(ftxt), itxt, itxt ? strlen(itxt) : 0, flags,
                                       amounts, NUMAFIT_RC_COUNT, &e);
    if (rc < 0)
        return lib_error(e.exception[0] ? "request" : lb->flavor, rc, &e);
    bits = (unsigned)rc;
    res = json_object();
    if (!res)
        return error_answer("NOMEM", "out of memory");
    for (int i = 0; i < NUMAFIT_RC_COUNT; i++)
        if (amounts[i])
            json_object_set_new(res, numafit_resource_class_to_string(i), json_integer(amounts[i]));
    *ret_resources = res;
    txt = dump(c->inventory);
    if (!txt)
        return error_answer("NOMEM", "out of memory");
    cli_error_clear(&e);
    rc = numafit_inventory_new_from_json(txt, strlen(txt), 0, &inv, &e);
    free(txt);
    if (rc < 0)
        return lib_error(lb->inventory ? lb->inventory : "inventory", rc, &e);
    cli_error_clear(&out->why);
    rc = numafit_inventory_check(inv, amounts, NUMAFIT_RC_COUNT, bits, &out->why);
    numafit_inventory_free(inv);
    if (rc < 0)
        return lib_error("inventory", rc, &out->why);
    if (rc == 0) {
        out->nofit = true;
        out->answer = json_object();
        if (!out->answer)
            return error_answer("NOMEM", "out of memory");
        json_object_set_new(out->answer, "fit", json_null());
        json_object_set_new(out->answer, "reason", jstr(out->why.text));
        json_object_set_new(out->answer, "why", json_pack("{ss}", "inventory", out->why.where));
    }
    return NULL;
}

/* The taken devices: the pools before a claim less those after it, as
 * [{"vendor_id","product_id","numa_node","count"}] (nova keeps the order
 * and drops the pools it empties). NULL when memory ran out. */
static json_t *pci_taken(const numafit_pci_pools_t *before, const numafit_pci_pools_t *after) {
    json_t *list = json_array();
    int nb = numafit_pci_pools_get_count(before), na = numafit_pci_pools_get_count(after), j = 0;
    for (int i = 0; list && i < nb; i++) {
        const char *v, *pr, *v2, *pr2;
        int known, known2;
        int64_t node, node2, count, count2 = 0;
        (void)numafit_pci_pools_get(before, (unsigned)i, &v, &pr, &known, &node, &count);
        if (j < na) {
            (void)numafit_pci_pools_get(after, (unsigned)j, &v2, &pr2, &known2, &node2, &count2);
            /* the same pool when it is still there: its place is kept */
            if (!strcmp(v, v2) && !strcmp(pr, pr2) && known == known2 && node == node2 &&
                count2 <= count) {
                j++;
            } else {
                count2 = 0;
            }
        }
        if (count > count2 &&
            json_array_append_new(list,
                                  json_pack("{ss ss so sI}", "vendor_id", v, "product_id", pr,
                                            "numa_node", known ? json_integer(node) : json_null(),
                                            "count", (json_int_t)(count - count2))) < 0) {
            json_decref(list);
            list = NULL;
        }
    }
    return list;
}

/*
 * The job's PCI devices (fit only): the pools (none: a host without
 * devices when devices are requested), the requests (given, else the
 * flavor's aliases with nova.conf's [pci] alias), set on opt. Returns
 * NULL, or an error answer.
 */
json_t *pci_step(const struct fit_cli *c, const char *ftxt, const char *itxt,
                 numafit_options_t *opt, numafit_pci_pools_t **pools,
                 numafit_pci_requests_t **reqs) {
    numafit_error_t e;
    char *txt;
    int rc;

    cli_error_clear(&e);
    if (c->pci_requests && !json_is_null(c->pci_requests)) {
        txt = dump(c->pci_requests);
        if (!txt)
            return error_answer("NOMEM", "out of memory");
        rc = numafit_pci_requests_new_from_json(txt, strlen(txt), 0, reqs, &e);
        free(txt);
        if (rc < 0)
            return lib_error(c->pci_requests_path ? c->pci_requests_path : "pci_requests", rc, &e);
    } else {
        unsigned flags = c->fit.req_flags & NUMAFIT_REQUEST_ZED ? NUMAFIT_PCI_ZED : 0;
        rc = numafit_pci_requests_from_flavor(ftxt, strlen(ftxt), itxt, itxt ? strlen(itxt) : 0,
                                              c->nova_conf, c->nova_conf_len, flags, reqs, &e);
        if (rc < 0)
            return lib_error(e.exception[0] ? "request" : "flavor", rc, &e);
    }
    cli_error_clear(&e);
    if (c->pci_pools && !json_is_null(c->pci_pools)) {
        txt = dump(c->pci_pools);
        if (!txt)
            return error_answer("NOMEM", "out of memory");
        rc = numafit_pci_pools_new_from_json(txt, strlen(txt), 0, pools, &e);
        free(txt);
        if (rc < 0)
            return lib_error(c->pci_pools_path ? c->pci_pools_path : "pci_pools", rc, &e);
    } else if (numafit_pci_requests_get_count(*reqs) > 0) {
        rc = numafit_pci_pools_new_from_json("[]", 2, 0, pools, &e);
        if (rc < 0)
            return lib_error("pci_pools", rc, &e);
    }
    if (*pools)
        (void)numafit_options_set_pci(opt, *pools, *reqs);
    return NULL;
}

/* *txt (a flavor or image) in numafit's form (numafit_flavor_normalize,
 * numafit_image_normalize), *form the form read; *as the object when it
 * was another form. NULL, or an error answer. */
static json_t *read_form(bool image, char **txt, const char *label, int *form, json_t **as) {
    numafit_error_t e;
    char *n = NULL, *copy;
    int rc;

    cli_error_clear(&e);
    rc = (image ? numafit_image_normalize : numafit_flavor_normalize)(*txt, strlen(*txt), 0, &n,
                                                                      form, &e);
    if (rc < 0)
        return lib_error(label, rc, &e);
    if (*form == NUMAFIT_FORM_NATIVE) {
        numafit_free(n);
        return NULL;
    }
    copy = strdup(n);
    numafit_free(n);
    *as = copy ? json_loads(copy, 0, NULL) : NULL;
    if (!*as) {
        free(copy);
        return error_answer("NOMEM", "out of memory");
    }
    free(*txt);
    *txt = copy;
    return NULL;
}

/* "read_as": {"flavor": "...", "image": "..."}, the forms other than
 * numafit's, added to a successful answer. */
static void add_read_as(const struct run *r) {
    json_t *as;
    if (r->flavor_form == NUMAFIT_FORM_NATIVE && r->image_form == NUMAFIT_FORM_NATIVE)
        return;
    if (!(as = json_object()))
        return;
    if (r->flavor_form != NUMAFIT_FORM_NATIVE)
        json_object_set_new(as, "flavor",
                            json_string(numafit_input_form_to_string(r->flavor_form)));
    if (r->image_form != NUMAFIT_FORM_NATIVE)
        json_object_set_new(as, "image", json_string(numafit_input_form_to_string(r->image_form)));
    json_object_set_new(r->answer, "read_as", as);
}

void run_job(const struct fit_cli *c, bool plan, const json_t *host_v, const json_t *flavor_v,
             const json_t *image_v, const json_t *limits_v, long max, const struct labels *lb,
             bool want_host, struct run *out) {
    numafit_host_t *host = NULL;
    numafit_request_t *req = NULL;
    numafit_options_t *opt = NULL;
    numafit_placement_t *p = NULL;
    numafit_pci_pools_t *pools = NULL, *left = NULL;
    numafit_pci_requests_t *reqs = NULL;
    numafit_error_t e;
    json_t *err = NULL, *resources = NULL;
    char *htxt = NULL, *ftxt = NULL, *itxt = NULL;
    bool has_numa;
    int rc;

    memset(out, 0, sizeof(*out));
    cli_error_clear(&out->why);
    out->cpu_policy = out->thread_policy = out->emulator_policy = -1;

    htxt = dump(host_v);
    ftxt = dump(flavor_v);
    itxt = image_v && !json_is_null(image_v) ? dump(image_v) : NULL;
    if (!htxt || !ftxt || (image_v && !json_is_null(image_v) && !itxt)) {
        err = error_answer("NOMEM", "out of memory");
        goto done;
    }

    cli_error_clear(&e);
    rc = numafit_host_new_from_json(htxt, strlen(htxt), 0, &host, &e);
    if (rc < 0) {
        err = lib_error(lb->host, rc, &e);
        goto done;
    }
    if (c->nc && (rc = cli_nova_conf_host(c->nc, host, &e)) < 0) {
        err = lib_error("--nova-conf", rc, &e);
        goto done;
    }
    if (want_host) {
        out->host0 = host_json(host, &err);
        if (!out->host0)
            goto done;
    }

    /* the flavor and image as the operator has them (openstack CLI, nova's
     * and glance's API), in numafit's form, before anything reads them */
    err = read_form(false, &ftxt, lb->flavor, &out->flavor_form, &out->flavor);
    if (!err && itxt)
        err = read_form(true, &itxt, lb->image, &out->image_form, &out->image);
    if (err)
        goto done;

    cli_error_clear(&e);
    rc = cli_check_extra_specs(c->fit.profile, c->fit.no_xs_check, c->fit.xs_allow, ftxt,
                               strlen(ftxt), &e);
    if (rc >= 0)
        rc = numafit_request_new(ftxt, strlen(ftxt), itxt, itxt ? strlen(itxt) : 0,
                                 c->fit.req_flags, &req, &e);
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
    has_numa = rc == 1;
    if (c->inventory && !json_is_null(c->inventory)) {
        err = inventory_step(c, ftxt, itxt, lb, out, &resources);
        if (err || out->nofit)
            goto done;
    }
    if (!has_numa) {
        out->answer = json_object();
        if (out->answer)
            json_object_set_new(out->answer, "request", json_null());
        goto done;
    }

    opt = make_options(c, limits_v, lb, &err);
    if (!opt)
        goto done;

    /* the devices: the fit's, or every instance's of the plan (the fill
     * takes them from a copy of the pools) */
    err = pci_step(c, ftxt, itxt, opt, &pools, &reqs);
    if (err)
        goto done;
    if (!plan) {
        cli_error_clear(&out->why);
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
        if (out->answer && pools && numafit_pci_requests_get_count(reqs) > 0) {
            /* the devices the claim would take, from the placement's cells */
            int64_t ids[NUMAFIT_MAX_CELLS];
            int n = numafit_placement_get_cell_count(p);
            for (int i = 0; i < n; i++)
                ids[i] = numafit_placement_get_host_cell(p, (unsigned)i);
            cli_error_clear(&e);
            rc = numafit_pci_pools_dup(pools, &left);
            if (rc == 0)
                rc = numafit_pci_apply_flags(
                    left, host, reqs, ids, (size_t)n,
                    c->fit.profile == NUMAFIT_PROFILE_ZED ? NUMAFIT_PCI_ZED : 0, &e);
            if (rc < 0) {
                err = lib_error("pci", rc, &e);
                goto done;
            }
            json_t *taken = pci_taken(pools, left);
            if (!taken) {
                err = error_answer("NOMEM", "out of memory");
                goto done;
            }
            json_object_set_new(out->answer, "pci_devices", taken);
        }
        goto done;
    }

    /* plan: fit and claim until it no longer fits, or max */
    err = run_plan(host, req, opt, max, out);

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
    if (resources && !out->error)
        json_object_set(out->answer, "resources", resources);
    if (!out->error)
        add_read_as(out);
    json_decref(resources);
    numafit_placement_free(p);
    numafit_options_free(opt);
    numafit_pci_pools_free(pools);
    numafit_pci_pools_free(left);
    numafit_pci_requests_free(reqs);
    numafit_request_free(req);
    numafit_host_free(host);
    free(htxt);
    free(ftxt);
    free(itxt);
}

void run_free(struct run *r) {
    json_decref(r->answer);
    json_decref(r->host0);
    json_decref(r->flavor);
    json_decref(r->image);
    memset(r, 0, sizeof(*r));
}

/* ------------------------------------------------------------------ batch mode */

static const char *const line_keys[] = {"op",
                                        "host",
                                        "flavor",
                                        "image",
                                        "limits",
                                        "max",
                                        "strategy",
                                        "nova_release",
                                        "inventory",
                                        "boot_from_volume",
                                        "pci_pools",
                                        "pci_requests",
                                        "check_extra_specs",
                                        NULL};

/*
 * Check one parsed input line: its keys and their types, and the per-line
 * overrides of --strategy/--nova-release (applied to *c). Returns NULL when
 * the line is usable (*ret_op, *ret_max set), else the error answer.
 */
json_t *check_line(struct fit_cli *c, const json_t *in, const char **ret_op, long *ret_max) {
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
    v = json_object_get(in, "inventory");
    if (v && !json_is_object(v) && !json_is_null(v))
        return error_answer("SCHEMA", "\"inventory\" must be an object or null");
    if (v && !json_is_null(v) && strcmp(op, "fit") != 0)
        return error_answer("SCHEMA", "\"inventory\" is for \"fit\" only");
    c->inventory = v;
    for (int k = 0; k < 2; k++) {
        const char *name = k ? "pci_requests" : "pci_pools";
        v = json_object_get(in, name);
        if (v && !json_is_object(v) && !json_is_array(v) && !json_is_null(v))
            return error_answer("SCHEMA", "\"%s\" must be an object, a list or null", name);
        if (k)
            c->pci_requests = v;
        else
            c->pci_pools = v;
    }
    v = json_object_get(in, "boot_from_volume");
    if (v && !json_is_boolean(v))
        return error_answer("SCHEMA", "\"boot_from_volume\" must be true or false");
    if (v)
        c->boot_from_volume = json_is_true(v);
    v = json_object_get(in, "check_extra_specs");
    if (v && !json_is_boolean(v))
        return error_answer("SCHEMA", "\"check_extra_specs\" must be true or false");
    if (v)
        c->fit.no_xs_check = !json_is_true(v);
    /* per-line overrides of --strategy and --nova-release */
    v = json_object_get(in, "strategy");
    if (v) {
        if (cli_fit_options_strategy(&c->fit, json_string_value(v)) < 0)
            return error_answer("SCHEMA",
                                "\"strategy\" must be \"spread\", \"pack\" or \"headroom\"");
    }
    v = json_object_get(in, "nova_release");
    if (v) {
        if (cli_fit_options_release(&c->fit, json_string_value(v)) < 0)
            return error_answer("SCHEMA", "\"nova_release\" must be \"latest\" or \"zed\"");
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

/*
 * Read one line (without its '\n', and a trailing '\r') into *buf. Lines
 * longer than limit are read to their end but not kept (*toolong set), up
 * to 16 times limit: a longer one (a stream without newlines, /dev/zero)
 * is not skipped but ends the input.
 * Returns 1 for a line, 0 at the end of input, -1 on a read or memory error,
 * -2 for a line too long to skip.
 */
int read_line(FILE *f, char **buf, size_t *cap, size_t *len, size_t limit, bool *toolong) {
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

bool blank(const char *s, size_t n) {
    size_t i;
    for (i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return false;
    return true;
}

int emit(json_t *ans) {
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

/* ------------------------------------------------------------------ options */

static int parse_args(int argc, char **argv, struct fit_cli *c, void (*usage)(FILE *)) {
    enum {
        O_HOST = 256,
        O_FLAVOR,
        O_IMAGE,
        O_LIMITS,
        O_MAX,
        O_RELEASE,
        O_STRATEGY,
        O_BUDGET,
        O_INVENTORY,
        O_BFV,
        O_PCI_POOLS,
        O_PCI_REQUESTS,
        O_NOVA_CONF,
        O_XS_ALLOW,
        O_XS_OFF,
        O_HOST_SPEC,
        O_HEADROOM_MIX
    };
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
        {"budget", required_argument, NULL, O_BUDGET},
        {"inventory", required_argument, NULL, O_INVENTORY},
        {"boot-from-volume", no_argument, NULL, O_BFV},
        {"pci-pools", required_argument, NULL, O_PCI_POOLS},
        {"pci-requests", required_argument, NULL, O_PCI_REQUESTS},
        {"nova-conf", required_argument, NULL, O_NOVA_CONF},
        {"allow-extra-specs", required_argument, NULL, O_XS_ALLOW},
        {"no-check-extra-specs", no_argument, NULL, O_XS_OFF},
        {"host-spec", required_argument, NULL, O_HOST_SPEC},
        {"headroom-mix", required_argument, NULL, O_HEADROOM_MIX},
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
                usage(stdout);
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
            case O_HOST_SPEC:
                c->host_spec = optarg;
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
            case O_PCI_POOLS:
            case O_PCI_REQUESTS:
            case O_NOVA_CONF:
                /* fit and the single-host plan */
                if (strcmp(c->cmd, "fit") != 0 && !is_plan) {
                    fprintf(stderr, "numafit %s: %s is for numafit fit and plan only\n", c->cmd,
                            argv[optind - 1 - (optarg == argv[optind - 1])]);
                    return -1;
                }
                if (ch == O_PCI_POOLS)
                    c->pci_pools_path = optarg;
                else if (ch == O_PCI_REQUESTS)
                    c->pci_requests_path = optarg;
                else
                    c->nova_conf_path = optarg;
                break;
            case O_INVENTORY:
            case O_BFV:
                if (strcmp(c->cmd, "fit") != 0) {
                    fprintf(stderr, "numafit %s: %s is for numafit fit only\n", c->cmd,
                            argv[optind - 1 - (ch != O_BFV && optarg == argv[optind - 1])]);
                    return -1;
                }
                if (ch == O_BFV)
                    c->boot_from_volume = true;
                else
                    c->inventory_path = optarg;
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
            case O_XS_ALLOW:
            case O_XS_OFF:
                if (is_bench || is_demo) {
                    fprintf(stderr, "numafit %s: the extra specs are checked by fit and plan\n",
                            c->cmd);
                    return -1;
                }
                if (ch == O_XS_OFF)
                    c->fit.no_xs_check = true;
                else
                    c->fit.xs_allow = optarg;
                break;
            case O_RELEASE:
                if (cli_fit_options_release(&c->fit, optarg) < 0) {
                    fprintf(stderr, "numafit %s: --nova-release must be latest or zed\n", c->cmd);
                    return -1;
                }
                break;
            case O_HEADROOM_MIX: {
                char who[64];
                if (is_demo) {
                    fprintf(stderr, "numafit %s: --headroom-mix is for fit, plan and bench\n",
                            c->cmd);
                    return -1;
                }
                snprintf(who, sizeof(who), "numafit %s", c->cmd);
                if (cli_mix_arg(&c->fit, who, optarg) < 0)
                    return -1;
                break;
            }
            case O_STRATEGY:
                if (cli_fit_options_strategy(&c->fit, optarg) < 0) {
                    fprintf(stderr, "numafit %s: --strategy must be spread, pack or headroom\n",
                            c->cmd);
                    return -1;
                }
                break;
            case O_BUDGET: {
                char who[64];
                snprintf(who, sizeof(who), "numafit %s", c->cmd);
                if (cli_fit_options_budget(&c->fit, optarg, who) < 0)
                    return -1;
                break;
            }
            case ':':
                fprintf(stderr, "numafit %s: option %s needs a value\n", c->cmd, argv[optind - 1]);
                return -1;
            default:
                fprintf(stderr, "numafit %s: unknown option %s\n", c->cmd, argv[optind - 1]);
                return -1;
        }
    }
    if (is_bench) {
        if (c->batch || c->host_path || c->host_spec || c->flavor_path || c->image_path ||
            c->limits_path || c->has_max) {
            fprintf(stderr, "numafit bench: only --json, --nova-release, --strategy and --budget "
                            "are accepted\n");
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
        if (c->batch || c->json || c->host_path || c->host_spec || c->flavor_path ||
            c->image_path || c->limits_path || c->has_max) {
            fprintf(stderr,
                    "numafit demo: only --nova-release, --strategy and --budget are accepted\n");
            return -1;
        }
        return 1;
    }
    {
        char who[64];
        snprintf(who, sizeof(who), "numafit %s", c->cmd);
        if (cli_mix_check_strategy(&c->fit, who, c->batch || is_bench) < 0)
            return -1;
    }
    if (c->batch) {
        if (c->host_path || c->host_spec || c->flavor_path || c->image_path || c->limits_path ||
            c->json || c->pci_pools_path || c->pci_requests_path) {
            fprintf(stderr,
                    "numafit %s: --batch reads everything from stdin; "
                    "--host/--flavor/--image/--limits/--pci-pools/--pci-requests/--json do not "
                    "apply\n",
                    c->cmd);
            return -1;
        }
        return 1;
    }
    if ((!c->host_path && !c->host_spec) || !c->flavor_path) {
        fprintf(stderr,
                "numafit %s: --host (or --host-spec) and --flavor are required (or --batch)\n",
                c->cmd);
        return -1;
    }
    if (c->host_path && c->host_spec) {
        fprintf(stderr, "numafit %s: give --host or --host-spec, not both\n", c->cmd);
        return -1;
    }
    return 1;
}

int fit_cli_parse(int argc, char **argv, struct fit_cli *c, void (*usage)(FILE *)) {
    int rc;

    memset(c, 0, sizeof(*c));
    cli_fit_options_init(&c->fit);
    c->max = -1;
    c->cmd = argv[0];
    rc = parse_args(argc, argv, c, usage);
    if (rc < 0)
        fprintf(stderr, "Try 'numafit %s --help'.\n", c->cmd);
    return rc;
}
