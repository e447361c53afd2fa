/* What the numafit subcommands share: library errors as text, the fit
 * options (cli.h). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <numafit.h>

#include "cli.h"
#include "cli_io.h"

char *cli_error_format(char *out, size_t outlen, const char *label, int rc,
                       const numafit_error_t *e, unsigned flags) {
    const char *text = e->text[0] ? e->text : numafit_strerror(rc);
    /* a text that already names where (a sysfs file's full path) says it once */
    const char *where =
        e->where[0] && !(flags & CLI_ERR_WHERE_AT && strstr(text, e->where)) ? e->where : NULL;
    const char *exc = e->exception[0] ? e->exception : NULL;

    snprintf(
        out, outlen, "%s%s%s%s%s%s%s%s%s%s%s%s%s", label ? label : "", label ? ": " : "",
        flags & CLI_ERR_EXC_FIRST && exc ? exc : "", flags & CLI_ERR_EXC_FIRST && exc ? ": " : "",
        flags & CLI_ERR_WHERE_FIRST && where ? where : "",
        flags & CLI_ERR_WHERE_FIRST && where ? ": " : "", text,
        flags & CLI_ERR_EXCEPTION && exc ? " (" : "", flags & CLI_ERR_EXCEPTION && exc ? exc : "",
        flags & CLI_ERR_EXCEPTION && exc ? ")" : "",
        flags & (CLI_ERR_WHERE_AT | CLI_ERR_WHERE_BOX) && where
            ? (flags & CLI_ERR_WHERE_AT ? " at " : " [")
            : "",
        flags & (CLI_ERR_WHERE_AT | CLI_ERR_WHERE_BOX) && where ? where : "",
        flags & CLI_ERR_WHERE_BOX && where ? "]" : "");
    return out;
}

void cli_error(const char *who, const char *label, int rc, const numafit_error_t *e,
               unsigned flags) {
    char msg[1024]; /* the library's parts are short; label, any length, is printed as it is */
    fprintf(stderr, "%s: %s%s%s\n", who, label ? label : "", label ? ": " : "",
            cli_error_format(msg, sizeof(msg), NULL, rc, e, flags));
}

int cli_sysfs_root(const char *who, int argc, char **argv, int *optind_, const char *arg,
                   const char **ret_root) {
    if (!arg && *optind_ < argc && argv[*optind_][0] != '-')
        arg = argv[(*optind_)++];
    if (arg && !*arg) {
        fprintf(stderr, "%s: --sysfs= wants a ROOT (or give --sysfs alone for /)\n", who);
        return -1;
    }
    *ret_root = arg;
    return 0;
}

void cli_extra_operand(const char *who, const char *operand, bool sysfs_without_root) {
    fprintf(stderr, "%s: unexpected argument '%s'%s\n", who, operand,
            sysfs_without_root ? " (ROOT goes right after --sysfs: --sysfs ROOT or --sysfs=ROOT)"
                               : "");
}

void cli_error_clear(numafit_error_t *e) {
    memset(e, 0, sizeof(*e));
    e->cell = -1;
}

void cli_fit_options_init(struct cli_fit_options *o) {
    memset(o, 0, sizeof(*o));
    o->profile = NUMAFIT_PROFILE_LATEST;
    o->strategy = NUMAFIT_STRATEGY_SPREAD;
    o->budget = NUMAFIT_BUDGET_DEFAULT;
}

int cli_check_extra_specs(int profile, bool off, const char *allow, const char *flavor, size_t len,
                          numafit_error_t *e) {
    if (off)
        return 0;
    return numafit_extra_specs_validate(
        flavor, len, profile == NUMAFIT_PROFILE_ZED ? NUMAFIT_XS_ZED : 0, allow, e);
}

char *cli_synthetic_host_text(const char *spec, const char *who) {
    numafit_host_t *h = NULL;
    numafit_error_t e;
    char *text = NULL;
    int rc = numafit_host_new_synthetic(spec, 0, &h, &e);
    if (rc == 0)
        rc = numafit_host_to_json(h, 0, &text, &e);
    numafit_host_free(h);
    if (rc < 0) {
        fprintf(stderr, "numafit %s: --host-spec %s: %s\n", who, spec, e.text);
        return NULL;
    }
    return text;
}

void cli_extra_specs_help(FILE *o, int indent, int col) {
    fprintf(o,
            "%*s--allow-extra-specs LIST\n"
            "%*snamespaces and keys of the flavor's extra specs left unchecked,\n"
            "%*scomma-separated (e.g. hw:my_key,acme); the others are checked\n"
            "%*sas nova's API checks them (doc/extra-specs.md)\n"
            "%*s--no-check-extra-specs\n"
            "%*sdo not check the flavor's extra specs\n",
            indent, "", col, "", col, "", col, "", indent, "", col, "");
}

int cli_fit_options_release(struct cli_fit_options *o, const char *value) {
    if (value && strcmp(value, "latest") == 0) {
        o->profile = NUMAFIT_PROFILE_LATEST;
        o->req_flags = 0;
    } else if (value && strcmp(value, "zed") == 0) {
        o->profile = NUMAFIT_PROFILE_ZED;
        o->req_flags = NUMAFIT_REQUEST_ZED;
    } else {
        return -1;
    }
    return 0;
}

int cli_fit_options_strategy(struct cli_fit_options *o, const char *value) {
    if (value && strcmp(value, "spread") == 0)
        o->strategy = NUMAFIT_STRATEGY_SPREAD;
    else if (value && strcmp(value, "pack") == 0)
        o->strategy = NUMAFIT_STRATEGY_PACK;
    else if (value && strcmp(value, "headroom") == 0)
        o->strategy = NUMAFIT_STRATEGY_HEADROOM; /* not nova's (doc/headroom.md) */
    else
        return -1;
    return 0;
}

int cli_fit_options_budget(struct cli_fit_options *o, const char *value, const char *who) {
    unsigned long long v;
    char *end;

    errno = 0;
    v = value && value[0] >= '0' && value[0] <= '9' ? strtoull(value, &end, 10) : 0;
    if (!value || value[0] < '0' || value[0] > '9' || errno || *end) {
        fprintf(stderr, "%s: --budget wants an integer >= 0 (0: unlimited), not '%s'\n", who,
                value ? value : "");
        return -1;
    }
    o->budget = (uint64_t)v;
    return 0;
}

void cli_budget_help(FILE *o, int indent, int col) {
    fprintf(o, "%*s--budget N%*sfit work budget (default %llu; 0: unlimited)\n", indent, "",
            col - indent - 10 > 1 ? col - indent - 10 : 1, "",
            (unsigned long long)NUMAFIT_BUDGET_DEFAULT);
}

int cli_options_new(const struct cli_fit_options *o, const char *limits, size_t limits_len,
                    numafit_options_t **ret, numafit_error_t *e, int *ret_bad) {
    numafit_options_t *opt = NULL;
    int rc;

    cli_error_clear(e);
    *ret_bad = CLI_OPTIONS_BAD;
    rc = numafit_options_new(&opt);
    if (rc >= 0)
        rc = numafit_options_set_profile(opt, o->profile);
    if (rc >= 0)
        rc = numafit_options_set_strategy(opt, o->strategy);
    if (rc >= 0)
        rc = numafit_options_set_budget(opt, o->budget);
    if (rc >= 0 && o->mix && o->mix->n)
        rc = numafit_options_set_headroom_mix(
            opt, (const struct numafit_request *const *)o->mix->req, o->mix->weight, o->mix->n, e);
    if (rc >= 0 && limits) {
        rc = numafit_options_set_limits_json(opt, limits, limits_len, e);
        if (rc < 0)
            *ret_bad = CLI_OPTIONS_BAD_LIMITS;
    }
    if (rc < 0) {
        numafit_options_free(opt);
        return rc;
    }
    *ret_bad = CLI_OPTIONS_OK;
    *ret = opt;
    return 0;
}

/* ------------------------------------------------------------------ --headroom-mix */

int cli_mix_arg(struct cli_fit_options *o, const char *who, const char *arg) {
    if (o->nmix_arg == NUMAFIT_HEADROOM_MIX_MAX) {
        fprintf(stderr, "%s: --headroom-mix: at most %d flavors\n", who, NUMAFIT_HEADROOM_MIX_MAX);
        return -1;
    }
    o->mix_arg[o->nmix_arg++] = arg;
    return 0;
}

/* ARG's file and weight: FILE:WEIGHT when FILE:WEIGHT is not itself a file
 * and WEIGHT is a number >= 0; else ARG with weight 1. path gets a copy
 * (malloc) or NULL when memory ran out. */
static char *mix_split(const char *arg, double *weight) {
    const char *colon = strrchr(arg, ':');
    struct stat st;
    char *end;
    double w;

    *weight = 1.0;
    if (!colon || colon == arg || !colon[1] || stat(arg, &st) == 0)
        return strdup(arg);
    errno = 0;
    w = strtod(colon + 1, &end);
    if (errno || *end || !(w >= 0) || !(colon[1] == '.' || isdigit((unsigned char)colon[1])))
        return strdup(arg);
    *weight = w;
    return strndup(arg, (size_t)(colon - arg));
}

static int mix_load_one(struct cli_mix *m, const struct cli_fit_options *o, const char *who,
                        const char *arg) {
    numafit_error_t e;
    char *path, *text = NULL, *norm = NULL;
    size_t len = 0;
    double w;
    int form, rc = -1, lrc;

    path = mix_split(arg, &w);
    if (!path) {
        fprintf(stderr, "%s: --headroom-mix %s: out of memory\n", who, arg);
        return -1;
    }
    text = cli_read_input(who, "--headroom-mix", path, NUMAFIT_INPUT_MAX, false, &len, NULL);
    if (!text)
        goto out;
    cli_error_clear(&e);
    lrc = numafit_flavor_normalize(text, len, 0, &norm, &form, &e);
    if (lrc >= 0)
        lrc =
            cli_check_extra_specs(o->profile, o->no_xs_check, o->xs_allow, norm, strlen(norm), &e);
    if (lrc >= 0)
        lrc = numafit_request_new(norm, strlen(norm), NULL, 0, o->req_flags, &m->req[m->n], &e);
    if (lrc < 0) {
        char label[300];
        snprintf(label, sizeof(label), "--headroom-mix %s", path);
        cli_error(who, label, lrc, &e, CLI_ERR_EXC_FIRST);
        goto out;
    }
    if (lrc == 0) {
        numafit_request_free(m->req[m->n]);
        m->req[m->n] = NULL;
        fprintf(stderr,
                "%s: --headroom-mix %s: the flavor has no NUMA topology (no pinned CPUs, NUMA "
                "cells or huge pages): the headroom strategy keeps room only for flavors that "
                "have one\n",
                who, path);
        goto out;
    }
    m->weight[m->n++] = w;
    rc = 0;
out:
    numafit_free(norm);
    free(text);
    free(path);
    return rc;
}

int cli_mix_load(struct cli_mix *m, struct cli_fit_options *o, const char *who) {
    memset(m, 0, sizeof(*m));
    for (size_t i = 0; i < o->nmix_arg; i++)
        if (mix_load_one(m, o, who, o->mix_arg[i]) < 0) {
            cli_mix_free(m);
            return -1;
        }
    o->mix = m->n ? m : NULL;
    return 0;
}

void cli_mix_free(struct cli_mix *m) {
    for (size_t i = 0; i < m->n; i++)
        numafit_request_free(m->req[i]);
    m->n = 0;
}

int cli_mix_check_strategy(const struct cli_fit_options *o, const char *who, bool batch) {
    if (!o->nmix_arg || batch || o->strategy == NUMAFIT_STRATEGY_HEADROOM)
        return 0;
    fprintf(stderr, "%s: --headroom-mix is the mix of --strategy headroom\n", who);
    return -1;
}
