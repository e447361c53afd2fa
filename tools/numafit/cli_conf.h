/* The nova.conf options `numafit host` and `numafit plan` share. */
#ifndef NUMAFIT_CLI_CONF_H
#define NUMAFIT_CLI_CONF_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include <numafit.h>

/* In this order in each command's option enum, so that opt - first maps. */
enum cli_conf_option {
    CLI_CONF_DEDICATED, /* --cpu-dedicated-set SPEC */
    CLI_CONF_SHARED,    /* --cpu-shared-set SPEC */
    CLI_CONF_PIN,       /* --vcpu-pin-set SPEC */
    CLI_CONF_RESERVED,  /* --reserved-huge-pages node:N,size:S,count:C */
    CLI_CONF_PHYSNET,   /* --physnet NAME:NODES */
    CLI_CONF_TUNNEL,    /* --tunnel NODES */
    CLI_CONF_NOVA_CONF, /* --nova-conf FILE: replaces the options before it */
};
#define CLI_CONF_COUNT (CLI_CONF_NOVA_CONF + 1)

/* The getopt_long rows of these options, for a command whose option values
 * first .. first + CLI_CONF_COUNT - 1 are theirs (in the order above). */
/* clang-format off */
#define CLI_CONF_LONGOPTS(first)                                                        \
    {"cpu-dedicated-set", required_argument, NULL, (first) + CLI_CONF_DEDICATED},       \
    {"cpu-shared-set", required_argument, NULL, (first) + CLI_CONF_SHARED},             \
    {"vcpu-pin-set", required_argument, NULL, (first) + CLI_CONF_PIN},                  \
    {"reserved-huge-pages", required_argument, NULL, (first) + CLI_CONF_RESERVED},      \
    {"physnet", required_argument, NULL, (first) + CLI_CONF_PHYSNET},                   \
    {"tunnel", required_argument, NULL, (first) + CLI_CONF_TUNNEL},                     \
    {"nova-conf", required_argument, NULL, (first) + CLI_CONF_NOVA_CONF}
/* clang-format on */

/* A --nova-conf file, read once: every part of a command that applies
 * nova.conf options uses this text. */
struct cli_nova_conf {
    char *text; /* NULL: no --nova-conf */
    size_t len;
    const char *path;
};

/* Read path (- = standard input) into nc, replacing what it held, and
 * print on stderr, prefixed by cmd, a warning for each option nova would
 * not read because it stands in another section (numafit_nova_conf_misplaced).
 * Returns 0, or the -errno with err->text saying why. */
int cli_nova_conf_read(struct cli_nova_conf *nc, const char *cmd, const char *path,
                       numafit_error_t *err);
void cli_nova_conf_free(struct cli_nova_conf *nc);

/* The CPU and RAM ratios a compute node with nc's nova.conf (none: nova's
 * defaults) reports, the NUMA limits nova's scheduler passes for it
 * (numafit_inventory_ratios_from_nova_conf). Returns 0 or its error. */
int cli_nova_conf_ratios(const struct cli_nova_conf *nc, bool zed, double *cpu, double *ram,
                         numafit_error_t *err);

/* What nc's nova.conf (nothing without one) sets for a host given as
 * nova's JSON (fit, plan, xml): its CPU options, when it sets one, split
 * the host's CPUs into nova's pools (numafit_host_set_cpu_pools); the
 * host's reserved pages and networks stay as nova reported them. Returns
 * 0 or the library's error. */
int cli_nova_conf_host(const struct cli_nova_conf *nc, numafit_host_t *host, numafit_error_t *err);

/* The default NUMA limits of opt: cli_nova_conf_ratios() of nc (nova's
 * initial ratios without a nova.conf). Returns 0 or the library's error. */
int cli_nova_conf_limits(const struct cli_nova_conf *nc, bool zed, numafit_options_t *opt,
                         numafit_error_t *err);

/* The nova.conf text of a placement inventory: nc's text, then the --set
 * options (sets: "OPTION = VALUE\n" lines, or NULL) under [DEFAULT].
 * malloc'ed, *len bytes; NULL when memory ran out. */
char *cli_inventory_conf(const struct cli_nova_conf *nc, const char *sets, size_t *len);

/* Apply one option to conf (a --nova-conf file is read into nc, warnings
 * prefixed by cmd). Returns the library's result; a --physnet without
 * NAME:NODES is -EINVAL with err->text saying so; a --nova-conf file that
 * cannot be read is its -errno with err->text saying why. */
int cli_conf_apply(numafit_hostconf_t *conf, struct cli_nova_conf *nc, const char *cmd, int option,
                   const char *arg, numafit_error_t *err);

/* Append "OPTION = VALUE\n" of a --set OPTION=VALUE argument to *text
 * (*len bytes so far), OPTION one of the placement inventory's [DEFAULT]
 * options of nova.conf (reserved_host_*, *_allocation_ratio,
 * initial_*_allocation_ratio); -1 after printing why, prefixed by cmd. */
int cli_inventory_setting(const char *cmd, char **text, size_t *len, const char *arg);

#endif
