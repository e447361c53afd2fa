/*
 * The numafit program: its subcommands and what they share.
 *
 * main.c runs argv[1] from the table cli_commands[]; every subcommand entry
 * point is declared here, once, and takes its own argv (argv[0] is the
 * subcommand's name). Besides them: the formatter of the library's
 * numafit_error_t and the builder of numafit_options_t that every
 * subcommand uses (cli_common.c). Files are read with cli_io.h.
 */
#ifndef NUMAFIT_CLI_H
#define NUMAFIT_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <numafit.h>

#include "cli_fmt.h"

#define CLI_EXIT_USAGE 2
/* The most instances a plan places on one host unless told otherwise
 * (one-host plan: --max, up to PLAN_CAP; fleet plan: --max-instances). */
#define CLI_PLAN_DEFAULT_MAX 10000L
#define CLI_EXIT_NOFIT       3 /* fit and xml: the flavor does not fit (a verdict, not a failure) */

/* ------------------------------------------------------------------ subcommands */

struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv); /* returns the exit status */
    const char *help;                  /* one line */
};

/* The subcommands, ended by an entry whose name is NULL (main.c). */
extern const struct cli_command cli_commands[];

/* The program without its exit path: options before the subcommand
 * (--help, --version), then the subcommand (main.c). */
int cli_run(int argc, char **argv);

int cmd_fit(int argc, char **argv);        /* cmd_fit.c: one-off and --batch */
int cmd_plan(int argc, char **argv);       /* cmd_plan.c: one host or a fleet */
int cmd_plan_host(int argc, char **argv);  /* cmd_fit.c: plan --host / --batch */
int cmd_plan_fleet(int argc, char **argv); /* cmd_plan_fleet.c */
int cmd_render(int argc, char **argv);     /* cmd_render.c */
int cmd_bench(int argc, char **argv);      /* cmd_bench.c */
int cmd_demo(int argc, char **argv);       /* cmd_demo.c */
int cmd_host(int argc, char **argv);       /* cmd_host.c */
int cmd_xml(int argc, char **argv);        /* cmd_xml.c */
int cmd_pci(int argc, char **argv);        /* cmd_pci.c */
int cmd_doctor(int argc, char **argv);     /* cmd_doctor.c */

/* ------------------------------------------------------------------ library errors */

/* The layout of a numafit_error_t as text (cli_error_format): TEXT is
 * e->text, or numafit_strerror(rc) when the library left it empty. */
enum {
    CLI_ERR_WHERE_FIRST = 1u << 0, /* "WHERE: TEXT" */
    CLI_ERR_WHERE_AT = 1u << 1,    /* "TEXT at WHERE" */
    CLI_ERR_WHERE_BOX = 1u << 2,   /* "TEXT [WHERE]" */
    CLI_ERR_EXCEPTION = 1u << 3,   /* "TEXT (EXCEPTION)", before a WHERE after it */
    CLI_ERR_EXC_FIRST = 1u << 4,   /* "EXCEPTION: TEXT" */
};

/* A library error as one line in out (without a newline): "LABEL: " when
 * label is not NULL, then e as flags lay it out (each part only when the
 * library set it). Returns out. */
char *cli_error_format(char *out, size_t outlen, const char *label, int rc,
                       const numafit_error_t *e, unsigned flags);

/* The same on standard error, as "WHO: ...\n". */
void cli_error(const char *who, const char *label, int rc, const numafit_error_t *e,
               unsigned flags);

/* A cleared error: nothing set, no cell. */
void cli_error_clear(numafit_error_t *e);

/* The ROOT of `--sysfs [ROOT]` (an optional_argument option) after
 * getopt_long returned it: "--sysfs=ROOT" gives optarg; "--sysfs ROOT" the
 * next argument, only when it comes right after the flag and does not start
 * with '-' (it is taken, *optind moves past it); else NULL: the default
 * root, "/". An empty ROOT ("--sysfs=") is refused: -1 after saying so. */
int cli_sysfs_root(const char *who, int argc, char **argv, int *optind_, const char *arg,
                   const char **ret_root);
/* The usage error for operands left after the options (one line naming the
 * first, with a hint when --sysfs was given without ROOT). */
void cli_extra_operand(const char *who, const char *operand, bool sysfs_without_root);

/* ------------------------------------------------------------------ fit options */

/* The options of the fit common to fit, plan, bench, demo and xml. */
struct cli_fit_options {
    int profile;          /* enum numafit_profile: --nova-release */
    int strategy;         /* enum numafit_strategy: --strategy */
    unsigned req_flags;   /* NUMAFIT_REQUEST_ZED with --nova-release zed */
    uint64_t budget;      /* --budget: the fit's work budget, 0 = unlimited */
    bool no_xs_check;     /* --no-check-extra-specs: the flavor's extra specs unchecked */
    const char *xs_allow; /* --allow-extra-specs: namespaces and keys left unchecked */
    /* --headroom-mix FLAVOR[:WEIGHT], as given (cli_mix_arg), and the mix
     * they were loaded into (cli_mix_load; NULL: none), which
     * cli_options_new() sets on the options */
    const char *mix_arg[NUMAFIT_HEADROOM_MIX_MAX];
    size_t nmix_arg;
    const struct cli_mix *mix;
};

/* The flavors the headroom strategy keeps room for (--headroom-mix): the
 * requests (owned; cli_mix_free) and their weights. */
struct cli_mix {
    numafit_request_t *req[NUMAFIT_HEADROOM_MIX_MAX];
    double weight[NUMAFIT_HEADROOM_MIX_MAX];
    size_t n;
};

/* --headroom-mix ARG kept in o; -1 after printing "WHO: ..." when there are
 * more than NUMAFIT_HEADROOM_MIX_MAX. */
int cli_mix_arg(struct cli_fit_options *o, const char *who, const char *arg);

/* The --headroom-mix flavors of o read into m (o->mix = m): each ARG is a
 * flavor file in any form numafit reads (FILE:WEIGHT gives it a weight, a
 * number >= 0, default 1, unless FILE:WEIGHT names a file), its extra specs
 * checked as o says, with a NUMA topology (pinned CPUs or NUMA cells:
 * the headroom strategy keeps room for no other). 0, or -1 after printing
 * "WHO: --headroom-mix ARG: why" (m then holds nothing). */
int cli_mix_load(struct cli_mix *m, struct cli_fit_options *o, const char *who);

/* Free m's requests (m may be empty). */
void cli_mix_free(struct cli_mix *m);

/* --headroom-mix given with a strategy that does not use it (not headroom
 * and, outside --batch, whose lines may ask for headroom): -1 after
 * printing why. */
int cli_mix_check_strategy(const struct cli_fit_options *o, const char *who, bool batch);

/* The flavor's extra specs checked as nova's API checks them in profile
 * (NUMAFIT_PROFILE_*), leaving allow's namespaces and keys alone; nothing
 * when off (--no-check-extra-specs). 0, or the library's negative errno
 * with e filled (e->exception "ValidationError"). */
int cli_check_extra_specs(int profile, bool off, const char *allow, const char *flavor, size_t len,
                          numafit_error_t *e);

/* A synthetic host spec ("2x8c 2cells 1G:16", doc of numafit_host_new_synthetic)
 * as nova's NUMATopology JSON text (owned, numafit_free); NULL after
 * printing "numafit WHO: --host-spec SPEC: why" to stderr. */
char *cli_synthetic_host_text(const char *spec, const char *who);

/* The --help lines of --allow-extra-specs and --no-check-extra-specs, the
 * options at indent spaces and their text at column col. */
void cli_extra_specs_help(FILE *o, int indent, int col);

/* The defaults: nova latest, spread, NUMAFIT_BUDGET_DEFAULT. */
void cli_fit_options_init(struct cli_fit_options *o);

/* --nova-release VALUE (latest, zed) and --strategy VALUE (spread, pack).
 * Return 0, or -1 when the value is not one of those (o unchanged; the
 * caller says so). */
int cli_fit_options_release(struct cli_fit_options *o, const char *value);
int cli_fit_options_strategy(struct cli_fit_options *o, const char *value);

/* --budget VALUE: a non-negative decimal integer (0: unlimited). Returns 0,
 * or -1 with "WHO: --budget wants ..." printed (a usage error). */
int cli_fit_options_budget(struct cli_fit_options *o, const char *value, const char *who);

/* The line of --help about --budget, the option's name at indent spaces
 * and its text at column col. */
void cli_budget_help(FILE *o, int indent, int col);

/* What cli_options_new() found wrong. */
enum { CLI_OPTIONS_OK, CLI_OPTIONS_BAD, CLI_OPTIONS_BAD_LIMITS };

/*
 * The library's fit options from o (profile, strategy, budget) and, when limits is not NULL, the
 * NUMATopologyLimits JSON text limits (limits_len bytes). Returns 0 with
 * *ret set, or -errno with e filled by the library and *ret_bad telling
 * whether the limits were refused (CLI_OPTIONS_BAD_LIMITS) or anything else
 * (CLI_OPTIONS_BAD).
 */
int cli_options_new(const struct cli_fit_options *o, const char *limits, size_t limits_len,
                    numafit_options_t **ret, numafit_error_t *e, int *ret_bad);

#endif
