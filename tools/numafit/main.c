/*
 * numafit: command-line front end of libnumafit.
 *
 * main() runs the subcommand argv[1] names from the table below; each
 * subcommand is in its own file (cli.h lists them) and takes its own argv.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <numafit.h>

#ifdef HAVE_LIBVIRT
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

/* libvirt's default error handler prints every error to stderr; the
 * subcommands print the library's message (libvirt's text in it) once */
static void libvirt_quiet(void *data, virErrorPtr e) {
    (void)data;
    (void)e;
}
#endif

#include "cli.h"
#include "cli_io.h"

const struct cli_command cli_commands[] = {
    {"fit", cmd_fit, "fit one instance of a flavor on a host (one-off or JSON lines)"},
    {"plan", cmd_plan, "how many instances fit on one host, or over a fleet"},
    {"render", cmd_render, "draw a saved fleet plan as SVG or HTML"},
    {"bench", cmd_bench, "time the fit of each line of a batch input"},
    {"demo", cmd_demo, "a real-time flavor on a built-in host"},
    {"host", cmd_host, "a host's NUMA topology as nova's libvirt driver reports it"},
    {"pci", cmd_pci, "a host's PCI devices and the pools nova.conf's device_spec makes"},
    {"xml", cmd_xml, "the libvirt domain XML nova writes for a placement"},
    {"doctor", cmd_doctor, "check a compute host for pinned and real-time guests"},
    {NULL, NULL, NULL},
};

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
        "  --strategy spread|pack|headroom  host cell order (default spread)\n");
    cli_budget_help(o, 2, 29);
    fprintf(o, "\nSubcommands:\n");
    for (const struct cli_command *cmd = cli_commands; cmd->name; cmd++)
        fprintf(o, "  %-8s %s\n", cmd->name, cmd->help);
    fprintf(o, "\nRun `numafit SUBCOMMAND --help` for each subcommand.\n");
}

int cli_run(int argc, char **argv) {
    const struct cli_command *cmd;

    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("numafit %s\n", numafit_version_string());
        return 0;
    }
    for (cmd = cli_commands; cmd->name; cmd++)
        if (strcmp(argv[1], cmd->name) == 0)
            return cmd->run(argc - 1, argv + 1);
    fprintf(stderr, "numafit: unknown command or option '%s'\n", argv[1]);
    usage(stderr);
    return CLI_EXIT_USAGE;
}

int main(int argc, char **argv) {
    cli_stdio_init();
#ifdef HAVE_LIBVIRT
    virSetErrorFunc(NULL, libvirt_quiet); /* the process's, set by the program, not the library */
#endif
    /* every subcommand: output that could not be written is a failure (3 is
     * fit's and xml's "does not fit", a verdict like 0) */
    return cli_close_stdout("numafit", cli_run(argc, argv), CLI_EXIT_NOFIT);
}
