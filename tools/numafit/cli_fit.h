/*
 * The fit machinery of `numafit fit`, single-host `plan`, `bench` and
 * `demo`: their options, one fit or plan as a batch answer (cli_fit.c), the
 * batch lines, and the human tables (cli_show.c). It talks to the library
 * only through its public API and exchanges JSON with it as text.
 */
#ifndef NUMAFIT_CLI_FIT_H
#define NUMAFIT_CLI_FIT_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include <numafit.h>

#include "cli.h"

struct cli_nova_conf;

#define PLAN_CAP 100000L /* most instances a one-host plan places (--max) */

/* The settings of fit, plan, bench and demo. */
struct fit_cli {
    const char *cmd; /* "fit", "plan", "bench" or "demo" */
    struct cli_fit_options fit;
    bool batch;
    bool json;
    bool has_max;
    long max;
    const char *host_path;
    const char *host_spec; /* --host-spec: a synthetic host instead of --host */
    const char *flavor_path;
    const char *image_path;
    const char *limits_path;
    const char *inventory_path;
    const char *bench_path; /* bench: the scenario file, "-" for stdin */
    bool boot_from_volume;  /* fit: the root disk takes no DISK_GB */
    /* fit: the job's placement inventory (placement's JSON; NULL or JSON
     * null: none, the NUMA step alone, as nova's filter) */
    const json_t *inventory;
    /* fit: the host's PCI device pools and the instance's PCI requests
     * (NULL or JSON null: none; the requests then come from the flavor's
     * pci_passthrough:alias and nova_conf's [pci] alias) */
    const char *pci_pools_path, *pci_requests_path, *nova_conf_path;
    const json_t *pci_pools, *pci_requests;
    const char *nova_conf; /* nova.conf's text, NULL: none */
    size_t nova_conf_len;
    const struct cli_nova_conf *nc; /* --nova-conf (NULL: none): the CPU pools of the host */
    /* a job without limits gets nova's: nc's ratios, else the initial ones */
    bool default_limits;
};

/*
 * The options of fit, plan, bench and demo (argv[0] is the subcommand, which
 * decides what is accepted); usage prints the subcommand's --help. Returns 1
 * to run, 0 after --help, or -1 after a usage error was printed (with its
 * "Try 'numafit CMD --help'.").
 */
int fit_cli_parse(int argc, char **argv, struct fit_cli *c, void (*usage)(FILE *));

/* A fit job's PCI devices (c->pci_pools, c->pci_requests, else the
 * flavor's aliases with c->nova_conf), set on opt; *pools and *reqs are
 * the caller's to free (NULL: none). Returns NULL, or an error answer. */
json_t *pci_step(const struct fit_cli *c, const char *ftxt, const char *itxt,
                 numafit_options_t *opt, numafit_pci_pools_t **pools,
                 numafit_pci_requests_t **reqs);

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
    int flavor_form; /* enum numafit_input_form of the flavor read */
    int image_form;  /* ... of the image (NUMAFIT_FORM_NATIVE without one) */
    json_t *flavor;  /* the flavor in numafit's form when read from another (owned) */
    json_t *image;   /* the same for the image */
};

/* Where the parts of a job came from, for error messages. */
struct labels {
    const char *host;
    const char *flavor;
    const char *image;
    const char *limits;
    const char *inventory; /* NULL: "inventory" */
};

extern const struct labels batch_labels; /* "host", "flavor", "image", "limits" */

/*
 * Run one fit or plan. host/flavor are required; image, limits may be NULL
 * or JSON null; max < 0 means "until it no longer fits" (plan only).
 * want_host: keep the loaded host's primitive in out->host0.
 */
void run_job(const struct fit_cli *c, bool plan, const json_t *host_v, const json_t *flavor_v,
             const json_t *image_v, const json_t *limits_v, long max, const struct labels *lb,
             bool want_host, struct run *out);
void run_free(struct run *r);

/* Answers. */
json_t *error_answer(const char *kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The error line of a failed library call on one part of the job. */
json_t *lib_error(const char *label, int rc, const numafit_error_t *e);
/* The fit options of c and a limits value (NULL or JSON null: none); NULL
 * with *ret_err on failure. */
numafit_options_t *make_options(const struct fit_cli *c, const json_t *limits,
                                const struct labels *lb, json_t **ret_err);
/* A JSON value as compact text for the library (malloc'ed). */
char *dump(const json_t *v);

/* Batch lines. */
/* Check one parsed input line: its keys and their types, and the per-line
 * overrides of --strategy/--nova-release (applied to c->fit). Returns NULL
 * when the line is usable (*ret_op, *ret_max set), else the error answer. */
json_t *check_line(struct fit_cli *c, const json_t *in, const char **ret_op, long *ret_max);
/* The answer of a line that is not JSON (jerr from cli_json_load). */
json_t *parse_error_answer(const json_error_t *jerr);
/* Read one line (without its '\n', and a trailing '\r') into *buf, at most
 * limit bytes kept (*toolong set for a longer one). Returns 1 for a line,
 * 0 at the end of input, -1 on a read or memory error, -2 for a line too
 * long to skip. */
int read_line(FILE *f, char **buf, size_t *cap, size_t *len, size_t limit, bool *toolong);
bool blank(const char *s, size_t n);
/* Print an answer line and flush; -1 when standard output failed. */
int emit(json_t *ans);

/* Human output (cli_show.c). */
void print_host_summary(FILE *o, json_t *topo);
void print_placement(FILE *o, json_t *cells, json_t *topo, const numafit_cpuset_t *rt);
void print_why(FILE *o, const json_t *ans);
void print_json_line(json_t *ans);
/* The realtime vCPUs of a flavor/image, for display only. */
numafit_cpuset_t *realtime_vcpus(const json_t *flavor, const json_t *image, int vcpus);
/* Human form of a fit answer. Returns the exit code. */
int show_fit(const struct run *r, const json_t *flavor, const json_t *image);
/* Human form of a plan answer. */
void show_plan(const struct run *r, const json_t *flavor, long max);
/* After a plan stopped: why the next instance does not fit, per host cell. */
void print_stop_why(const struct fit_cli *c, const struct run *plan, const json_t *flavor,
                    const json_t *image, const json_t *limits);

#endif
