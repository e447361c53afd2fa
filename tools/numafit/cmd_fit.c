/*
 * numafit fit and the single-host numafit plan:
 *
 *   numafit fit  --batch            JSON lines in, one answer line out per line
 *   numafit plan --batch
 *   numafit fit  --host H --flavor F [--image I] [--limits L] [--inventory V]
 *                [--boot-from-volume] [--json]
 *   numafit plan --host H --flavor F [--image I] [--limits L] [--max N] [--json]
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <numafit.h>

#include "cli.h"
#include "cli_conf.h"
#include "cli_fit.h"
#include "cli_io.h"

/* A JSON input file; NULL after saying why. */
static json_t *load_file(const char *path) {
    return cli_load_json_file("numafit", NULL, path, NUMAFIT_INPUT_MAX, NULL);
}

static void usage_fit(FILE *o) {
    fprintf(o, "usage: numafit fit --batch [--nova-release R] [--strategy S] [--budget N]\n"
               "                   [--headroom-mix FLAVOR[:WEIGHT]]...\n"
               "       numafit fit (--host H.json | --host-spec SPEC) --flavor F.json\n"
               "                   [--image I.json]\n"
               "                   [--limits L.json] [--inventory V.json [--boot-from-volume]]\n"
               "                   [--pci-pools P.json] [--pci-requests R.json]\n"
               "                   [--nova-conf nova.conf]\n"
               "                   [--json] [--nova-release R] [--strategy S] [--budget N]\n"
               "                   [--headroom-mix FLAVOR[:WEIGHT]]...\n"
               "                   [--allow-extra-specs LIST | --no-check-extra-specs]\n"
               "\n"
               "Fit one instance of a flavor on a host (nova's numa_fit_instance_to_host).\n"
               "The flavor's extra specs are first checked as nova's API checks them (a\n"
               "misspelt key in one of nova's namespaces, or a value nova refuses, is\n"
               "refused as nova's ValidationError). With --inventory, first nova's\n"
               "placement step: the flavor's VCPU, PCPU, MEMORY_MB and DISK_GB must have\n"
               "room in the host's inventory.\n"
               "  --batch            JSON lines on stdin, one answer line each on stdout\n"
               "  --host FILE        host: nova NUMATopology primitive (or legacy dict)\n"
               "  --host-spec SPEC   a synthetic host instead, e.g. \"2x8c2t 2cells 1G:16\"\n"
               "                     (as plan --add-hosts takes it)\n"
               "  --flavor FILE      {\"vcpus\":N,\"memory_mb\":N,\"extra_specs\":{...}}\n"
               "  --image FILE       {\"properties\":{\"hw_...\":...}}\n"
               "  --limits FILE|none {\"cpu_allocation_ratio\":x,\"ram_allocation_ratio\":y,\n"
               "                      \"network_metadata\":{\"physnets\":[...],\"tunneled\":b}}\n"
               "  --inventory FILE   placement's inventory of the host: {\"inventories\":\n"
               "                     {\"VCPU\":{\"total\":N,...},...},\"usages\":{...}}\n"
               "  --boot-from-volume the root disk takes no DISK_GB (with --inventory)\n"
               "  --pci-pools FILE   the host's PCI device pools (nova's pci_stats:\n"
               "                     PciDevicePoolList, or `numafit pci` output)\n"
               "  --pci-requests FILE the instance's PCI requests (InstancePCIRequests);\n"
               "                     default: the flavor's pci_passthrough:alias\n"
               "  --nova-conf FILE   nova.conf (- = stdin): its [pci] alias entries for the\n"
               "                     flavor's aliases, its CPU sets (the host's pools\n"
               "                     re-split), its CPU and RAM ratios (the limits, unless\n"
               "                     --limits); options in a section nova does not read\n"
               "                     them from are warned about\n"
               "  --json             print the answer line instead of a table\n"
               "  --nova-release R   latest (default) or zed (Debian 12's nova 26.2.2)\n"
               "  --strategy S       spread (default), pack or headroom (not nova's)\n"
               "  --headroom-mix FLAVOR[:WEIGHT]  (repeatable) a flavor file the headroom\n"
               "                     strategy keeps room for, at its weight (default 1);\n"
               "                     without one it leaves the least fragmentation\n");
    cli_extra_specs_help(o, 2, 21);
    cli_budget_help(o, 2, 21);
    fprintf(o, "                     (search steps; past it the fit fails with TOO_COMPLEX)\n"
               "Exit status: 0 fits (or no NUMA topology), 3 does not fit, 1 error, 2 usage.\n");
}

static void usage_plan(FILE *o) {
    fprintf(o,
            "usage: numafit plan --batch [--max N] [--nova-release R] [--strategy S]\n"
            "                    [--budget N]\n"
            "       numafit plan (--host H.json | --host-spec SPEC) --flavor F.json\n"
            "                    [--image I.json]\n"
            "                    [--limits L.json] [--max N] [--json]\n"
            "                    [--nova-release R] [--strategy S] [--budget N]\n"
            "                    [--pci-pools P.json] [--pci-requests R.json]\n"
            "                    [--nova-conf nova.conf] [--headroom-mix FLAVOR[:WEIGHT]]...\n"
            "                    [--allow-extra-specs LIST | --no-check-extra-specs]\n"
            "\n"
            "Fit and claim instances of a flavor until the next one does not fit\n"
            "(at most N, default %ld, at most %ld), and show the host afterwards. With PCI pools\n"
            "every instance takes its devices (the flavor's pci_passthrough:alias with\n"
            "nova.conf's [pci] alias, or --pci-requests) until they run out\n"
            "(numafit fit --help). Limits: --limits FILE, none, or by default\n"
            "--nova-conf's CPU and RAM ratios, else nova's initial ones (4 and 1; zed:\n"
            "16 and 1.5), as the fleet plan takes them.\n",
            CLI_PLAN_DEFAULT_MAX, PLAN_CAP);
    fprintf(o, "  --headroom-mix FLAVOR[:WEIGHT]  (repeatable) with --strategy headroom, a\n"
               "                     flavor file it keeps room for (numafit fit --help)\n");
    cli_extra_specs_help(o, 2, 21);
    cli_budget_help(o, 2, 21);
    fprintf(o, "Exit status: 0 ok, 1 error, 2 usage.\n"
               "\n"
               "Over a fleet (hosts from --hosts-dir, --db, --add-hosts, --sysfs, --uri; flavors\n"
               "from --flavors): how many of each flavor fit, what is stranded, why not;\n"
               "see `numafit plan --fleet --help` and numafit(1).\n");
}

/* The answer to one input line. */
static json_t *batch_answer(const struct fit_cli *cli, const char *line, size_t len) {
    struct fit_cli lc = *cli, *c = &lc;
    json_error_t jerr;
    json_t *in, *ans;
    const char *op = c->cmd;
    long max = -1;
    struct run r;

    in = cli_json_load(line, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!in)
        return parse_error_answer(&jerr);
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

/* --batch: JSON lines on stdin, one answer line each on stdout. */
static int batch_main(const struct fit_cli *c) {
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

/* One-off: files in, table or JSON out. */
static int single_main(const struct fit_cli *cli) {
    json_t *host = NULL, *flavor = NULL, *image = NULL, *limits = NULL, *inventory = NULL;
    json_t *pci_pools = NULL, *pci_requests = NULL;
    struct fit_cli lc = *cli, *c = &lc;
    struct labels lb = {c->host_path ? c->host_path : c->host_spec, c->flavor_path,
                        c->image_path ? c->image_path : "image",
                        c->limits_path ? c->limits_path : "limits",
                        c->inventory_path ? c->inventory_path : "inventory"};
    bool plan = strcmp(c->cmd, "plan") == 0;
    struct run r;
    int ret = 1;

    if (c->host_spec) {
        char *text = cli_synthetic_host_text(c->host_spec, c->cmd);
        host = text ? json_loads(text, 0, NULL) : NULL;
        numafit_free(text);
    } else {
        host = load_file(c->host_path);
    }
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
    if (c->limits_path && !strcmp(c->limits_path, "none")) {
        limits = json_null();
    } else if (c->limits_path) {
        limits = load_file(c->limits_path);
        if (!limits)
            goto out;
    }
    if (c->inventory_path) {
        inventory = load_file(c->inventory_path);
        if (!inventory)
            goto out;
        c->inventory = inventory;
    }
    if (c->pci_pools_path) {
        pci_pools = load_file(c->pci_pools_path);
        if (!pci_pools)
            goto out;
        c->pci_pools = pci_pools;
    }
    if (c->pci_requests_path) {
        pci_requests = load_file(c->pci_requests_path);
        if (!pci_requests)
            goto out;
        c->pci_requests = pci_requests;
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
        ret = !plan && r.nofit ? CLI_EXIT_NOFIT : 0;
    } else if (plan) {
        show_plan(&r, flavor, c->has_max ? c->max : -1);
        if (r.nofit) {
            printf("why the next one does not fit:\n");
            print_stop_why(c, &r, r.flavor ? r.flavor : flavor, r.image ? r.image : image, limits);
        }
        ret = 0;
    } else {
        ret = show_fit(&r, r.flavor ? r.flavor : flavor, r.image ? r.image : image);
    }
    run_free(&r);
out:
    json_decref(host);
    json_decref(flavor);
    json_decref(image);
    json_decref(limits);
    json_decref(inventory);
    json_decref(pci_pools);
    json_decref(pci_requests);
    return ret;
}

/* fit and the single-host plan: argv[0] says which */
static int fit_main(int argc, char **argv, void (*usage)(FILE *)) {
    struct fit_cli c;
    struct cli_nova_conf nc = {NULL, 0, NULL};
    struct cli_mix mix;
    numafit_error_t e;
    int rc = fit_cli_parse(argc, argv, &c, usage);

    if (rc <= 0)
        return rc < 0 ? CLI_EXIT_USAGE : 0;
    if (c.nova_conf_path) {
        char who[32];
        snprintf(who, sizeof(who), "numafit %s", c.cmd);
        if ((rc = cli_nova_conf_read(&nc, who, c.nova_conf_path, &e)) < 0) {
            cli_error(who, "--nova-conf", rc, &e, 0);
            return 1;
        }
        c.nova_conf = nc.text;
        c.nova_conf_len = nc.len;
        c.nc = &nc;
    }
    /* plan: nova's limits unless told otherwise, as the fleet plan; fit:
     * those of a nova.conf, else none (numa_fit_instance_to_host's default) */
    c.default_limits = strcmp(c.cmd, "plan") == 0 || nc.text;
    {
        char who[32];
        snprintf(who, sizeof(who), "numafit %s", c.cmd);
        if (cli_mix_load(&mix, &c.fit, who) < 0) {
            cli_nova_conf_free(&nc);
            return 1;
        }
    }
    rc = c.batch ? batch_main(&c) : single_main(&c);
    cli_mix_free(&mix);
    cli_nova_conf_free(&nc);
    return rc;
}

int cmd_fit(int argc, char **argv) {
    return fit_main(argc, argv, usage_fit);
}

int cmd_plan_host(int argc, char **argv) {
    return fit_main(argc, argv, usage_plan);
}
