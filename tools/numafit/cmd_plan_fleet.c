/*
 * numafit plan over a fleet: capacity planning what-ifs.
 *
 *   numafit plan SOURCES... (--flavors FILE | --flavor F.json...) [OPTIONS]
 *
 * Hosts from nova JSON files, a compute_nodes dump, sysfs captures, libvirt
 * URIs or synthetic specs, with the existing instances claimed; how many of
 * each flavor fit alone and as a mix, where, what is stranded afterwards
 * and why a flavor fits nowhere, for the spread and pack host cell orders
 * side by side. See numafit(1), doc/plan-json.md and plan_fleet.h.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include <numafit.h>

#include "cli.h"
#include "cli_conf.h"
#include "cli_io.h"
#include "plan_fleet.h"
#include "plan_render.h"

#define DEFAULT_DRAW          8
#define DEFAULT_TOP           10
#define DEFAULT_MAX_INSTANCES CLI_PLAN_DEFAULT_MAX

static void usage(FILE *o) {
    fprintf(o,
            "usage: numafit plan SOURCES... (--flavors FILE | --flavor F.json...) [OPTIONS]\n"
            "\n"
            "Capacity planning over a fleet: how many instances of each flavor fit, alone and\n"
            "as a mix, where they go, what is stranded afterwards and why a flavor fits\n"
            "nowhere; host cell orders spread and pack side by side.\n"
            "\n"
            "Hosts (any number of sources, in this order in the fleet):\n"
            "  --hosts-dir DIR        every DIR/*.json: a nova NUMATopology (name: file stem)\n"
            "  --db FILE              compute_nodes rows: JSON lines, a JSON list, CSV or mysql\n"
            "                         batch (tab) output with hypervisor_hostname, numa_topology\n"
            "                         [, cpu_allocation_ratio, ram_allocation_ratio, deleted,\n"
            "                         memory_mb, local_gb, disk_allocation_ratio, vcpus_used,\n"
            "                         memory_mb_used, local_gb_used, pci_stats]\n"
            "  --host FILE            one nova NUMATopology JSON file (repeatable)\n"
            "  --sysfs DIR            a captured sysfs tree (DIR/sys/devices/system/...)\n"
            "  --uri URI              a libvirt connection, read-only (repeatable)\n"
            "  --add-hosts N SPEC     N new hosts, e.g. \"2x32c2t 4cells 1G:64 2M:4096\"\n"
            "                         [mem:512G] [dedicated:SPEC] [shared:SPEC] [disk:2T]\n"
            "                         [pci:VENDOR:PRODUCT[:TYPE[:PHYSNET]]=COUNT[@CELLS]]\n"
            "                         (repeatable; disk: the DISK_GB of placement's inventory;\n"
            "                         pci: COUNT devices on each cell, e.g.\n"
            "                         pci:8086:154c:vf:physnet1=16@0)\n"
            "  --instances FILE       existing instances: rows with host (or node) and\n"
            "                         numa_topology (instance_extra), claimed on their hosts;\n"
            "                         [vcpus, memory_mb, root_gb, ephemeral_gb] for placement\n"
            "nova.conf for --sysfs and --uri (as for `numafit host`):\n"
            "  --cpu-dedicated-set S  --cpu-shared-set S  --vcpu-pin-set S\n"
            "  --reserved-huge-pages node:N,size:S,count:C  --physnet NAME:NODES\n"
            "  --tunnel NODES  --all-online  --any-arch\n"
            "  --nova-conf FILE       these from a nova.conf, for --sysfs and --uri hosts\n"
            "                         (replaces the options before it; later ones change it;\n"
            "                         its CPU sets re-split the other hosts too), its CPU\n"
            "                         and RAM ratios (default limits) and inventory options;\n"
            "                         also its [pci] alias for the flavors'\n"
            "                         pci_passthrough:alias, and [pci] device_spec for the\n"
            "                         devices of --sysfs and --uri hosts\n"
            "Flavors:\n"
            "  --flavors FILE         a JSON list (or JSON lines) of {\"name\",\"vcpus\",\n"
            "                         \"memory_mb\",\"root_gb\",\"ephemeral_gb\",\"swap\",\n"
            "                         \"extra_specs\",\"image_properties\",\"boot_from_volume\",\n"
            "                         \"weight\",\"ports\"}; ports: [{\"vnic_type\",\n"
            "                         \"physical_network\",\"trusted\",\"numa_affinity_policy\"}]\n"
            "  --flavor FILE          one flavor (named after the file; repeatable)\n"
            "The fill:\n"
            "  --mix round-robin|weights  one of each in turn (default), or always the flavor\n"
            "                         furthest behind its weight\n"
            "  --strategy LIST        host cell orders, comma-separated: spread, pack,\n"
            "                         headroom (numafit's own, for the plan's mix);\n"
            "                         both: spread,pack (the default); all: every one\n"
            "  --target N             how many hosts of the fleet, in fleet order, N\n"
            "                         instances of the mix (in its proportions) need, per\n"
            "                         strategy\n"
            "  --nova-release latest|zed    nova rules (default latest)\n"
            "  --budget N             fit work budget (default %llu; 0: unlimited)\n"
            "  --allow-extra-specs LIST  namespaces and keys of the flavors' extra specs\n"
            "                         left unchecked (comma-separated); the others are\n"
            "                         checked as nova's API checks them (doc/extra-specs.md)\n"
            "  --no-check-extra-specs do not check the flavors' extra specs\n"
            "  --limits FILE|none     NUMATopologyLimits (default: --nova-conf's CPU and RAM\n"
            "                         ratios, else nova's initial ones, as the scheduler\n"
            "                         passes them: cpu_allocation_ratio 4,\n"
            "                         ram_allocation_ratio 1; zed: 16 and 1.5); none: no\n"
            "                         limits\n"
            "  --max-instances N      at most N instances on one host per fill (default %d)\n"
            "Placement's inventory (nova's first step; doc/placement.md):\n"
            "  --no-inventory         the NUMA fit only (flavors without NUMA topology are\n"
            "                         then left out)\n"
            "  --set OPTION=VALUE     reserved_host_cpus, reserved_host_memory_mb,\n"
            "                         reserved_host_disk_mb, disk_allocation_ratio,\n"
            "                         initial_disk_allocation_ratio (repeatable; after\n"
            "                         --nova-conf's); the CPU and RAM ratios, initial ones\n"
            "                         too, are --limits'\n"
            "  --disk-gb N            DISK_GB of hosts without the dump's local_gb or a spec's\n"
            "                         disk: (default: none; planned when every host has one)\n"
            "Output:\n"
            "  --json                 the plan as JSON (doc/plan-json.md)\n"
            "  --svg FILE, --html FILE  pictures of the drawn hosts and a summary chart\n"
            "  --draw N               hosts drawn and detailed (the first N; default %d)\n"
            "  --detail               the drawn hosts in the report / JSON\n"
            "  --placements           every host with its instances in the JSON\n"
            "  --top N                hosts stranding most, listed (default %d)\n"
            "  --no-progress          no progress bar (it shows on a terminal only)\n"
            "  --fleet                fleet mode with a single --host and --flavor (without\n"
            "                         a fleet option, that is the one-host `numafit plan`)\n"
            "\n"
            "Exit status: 0 done, 1 failure, 2 usage or bad input.\n",
            (unsigned long long)NUMAFIT_BUDGET_DEFAULT, (int)DEFAULT_MAX_INSTANCES, DEFAULT_DRAW,
            DEFAULT_TOP);
}

/* A host source, loaded after every option is known. */
struct src_arg {
    int kind;
    const char *a, *b;
};

static int parse_uint(const char *opt, const char *s, unsigned long long max,
                      unsigned long long *ret) {
    char *end;
    unsigned long long v;
    errno = 0;
    if (!s || !*s || *s == '-')
        goto bad;
    v = strtoull(s, &end, 10);
    if (errno || *end || v > max)
        goto bad;
    *ret = v;
    return 0;
bad:
    plan_err("%s wants an integer from 0 to %llu", opt, max);
    return -1;
}

/* --strategy LIST: names (spread, pack, headroom), both (spread,pack) or
 * all (every one), comma-separated. 0, or -1 reported. */
static int parse_strategies(struct plan *pl, const char *list) {
    bool want[PLAN_MAX_STRATEGIES] = {false};
    const char *p = list;
    int any = 0;
    for (;;) {
        size_t n = strcspn(p, ",");
        char name[32];
        int s;
        if (n == 0 || n >= sizeof(name))
            goto bad;
        memcpy(name, p, n);
        name[n] = '\0';
        if (strcmp(name, "both") == 0) {
            want[NUMAFIT_STRATEGY_SPREAD] = want[NUMAFIT_STRATEGY_PACK] = true;
        } else if (strcmp(name, "all") == 0) {
            for (s = 0; s < PLAN_MAX_STRATEGIES; s++)
                want[s] = true;
        } else if ((s = plan_strategy_from_name(name)) < 0) {
            goto bad;
        } else {
            want[s] = true;
        }
        if (!p[n])
            break;
        p += n + 1;
    }
    for (int s = 0; s < PLAN_MAX_STRATEGIES; s++) {
        pl->strategies[s] = want[s];
        any += want[s];
    }
    return any ? 0 : -1;
bad : {
    char names[128];
    size_t len = 0;
    names[0] = '\0';
    for (int s = 0; s < PLAN_MAX_STRATEGIES; s++)
        len += (size_t)snprintf(names + len, sizeof(names) - len, "%s, ", plan_strategy_name(s));
    plan_err("--strategy takes a comma-separated list of %sboth or all", names);
}
    return -1;
}

/* Read a --limits file: checked with the library; ratios kept for the
 * report and the shared room. */
static int load_limits(struct plan *pl, const char *path) {
    struct cli_fit_options fo;
    json_t *root, *d;
    numafit_options_t *o = NULL;
    numafit_error_t e;
    char *txt = NULL;
    int rc, bad;

    root = cli_load_json_file("numafit plan", "--limits", path, NUMAFIT_INPUT_MAX, &rc);
    if (!root)
        return rc == -ENOMEM ? PLAN_EXIT_FAIL : PLAN_EXIT_INPUT;
    /* checked with the library */
    txt = json_dumps(root, JSON_COMPACT | JSON_ENCODE_ANY);
    cli_fit_options_init(&fo);
    cli_error_clear(&e);
    rc = txt ? cli_options_new(&fo, txt, strlen(txt), &o, &e, &bad) : -ENOMEM;
    numafit_options_free(o);
    free(txt);
    if (rc < 0) {
        char prefix[4200];
        snprintf(prefix, sizeof(prefix), "--limits %s", path);
        cli_error("numafit plan", prefix, rc, &e, CLI_ERR_WHERE_FIRST | CLI_ERR_EXCEPTION);
        json_decref(root);
        return rc == -ENOMEM ? PLAN_EXIT_FAIL : PLAN_EXIT_INPUT;
    }
    if (json_is_null(root)) {
        json_decref(root);
        pl->no_limits = true;
        return 0;
    }
    d = json_object_get(root, "nova_object.data");
    if (!d)
        d = root;
    pl->limits[0].cpu_ratio = json_number_value(json_object_get(d, "cpu_allocation_ratio"));
    pl->limits[0].ram_ratio = json_number_value(json_object_get(d, "ram_allocation_ratio"));
    pl->limits_json = root;
    return 0;
}

/* Options o of strategy s keep room for the plan's mix: its planned flavors
 * with a NUMA topology, at their weights (equal round-robin). */
static int set_mix(const struct plan *pl, numafit_options_t *o, int s, numafit_error_t *e) {
    const numafit_request_t *reqs[PLAN_MAX_FLAVORS];
    double w[PLAN_MAX_FLAVORS];
    size_t n = 0;
    if (s != NUMAFIT_STRATEGY_HEADROOM)
        return 0;
    for (unsigned f = 0; f < pl->nflavors; f++)
        if (pl->flavors[f].planned && pl->flavors[f].req) {
            reqs[n] = pl->flavors[f].req;
            w[n++] = pl->weights ? pl->flavors[f].weight : 1.0;
        }
    return numafit_options_set_headroom_mix(o, reqs, w, n, e);
}

/* The fit options of each (per-host limits, strategy). */
static int make_options(struct plan *pl, const struct cli_fit_options *fit) {
    struct cli_fit_options fo = *fit;
    numafit_error_t e;
    char *txt = NULL;
    if (pl->limits_json) {
        txt = json_dumps(pl->limits_json, JSON_COMPACT);
        if (!txt) {
            plan_err("out of memory");
            return PLAN_EXIT_FAIL;
        }
    }
    for (unsigned i = 0; i < pl->nlimits; i++) {
        for (int s = 0; s < PLAN_MAX_STRATEGIES; s++) {
            numafit_options_t *o = NULL;
            int bad, rc;
            if (!pl->strategies[s])
                continue;
            fo.strategy = s;
            rc = cli_options_new(&fo, txt, txt ? strlen(txt) : 0, &o, &e, &bad);
            if (rc == 0 && !pl->no_limits && pl->limits[i].cpu_ratio > 0)
                rc =
                    numafit_options_set_limits(o, pl->limits[i].cpu_ratio, pl->limits[i].ram_ratio);
            if (rc == 0)
                rc = set_mix(pl, o, s, &e);
            if (rc < 0) {
                numafit_options_free(o);
                free(txt);
                plan_err("fit options: %s", numafit_strerror(rc));
                return rc == -ENOMEM ? PLAN_EXIT_FAIL : PLAN_EXIT_INPUT;
            }
            pl->limits[i].opt[s] = o;
        }
    }
    free(txt);
    return 0;
}

/* The fleet before the plan. */
static void fleet_stats(struct plan *pl) {
    for (size_t hi = 0; hi < pl->nhosts; hi++) {
        const numafit_host_t *h = pl->hosts[hi].h;
        int n = numafit_host_get_cell_count(h);
        for (int c = 0; c < n; c++) {
            unsigned ui = (unsigned)c;
            uint64_t v, npg = 0;
            pl->st_cells++;
            if (numafit_host_get_cell_stat(h, ui, NUMAFIT_CELL_DEDICATED_CPUS, 0, &v) == 0)
                pl->st_pcpus += v;
            if (numafit_host_get_cell_stat(h, ui, NUMAFIT_CELL_SHARED_CPUS, 0, &v) == 0)
                pl->st_shared_cpus += v;
            if (numafit_host_get_cell_stat(h, ui, NUMAFIT_CELL_MEMORY_MB, 0, &v) == 0)
                pl->st_memory_mb += v;
            numafit_host_get_cell_stat(h, ui, NUMAFIT_CELL_PAGE_SIZES, 0, &npg);
            for (unsigned k = 0; k < npg; k++) {
                uint64_t size, total, used, resv;
                int idx;
                if (numafit_host_get_cell_pages(h, ui, k, 0, &size, &total, &used, &resv) < 0 ||
                    size <= 4 || (idx = plan_page_size_index(pl, size)) < 0)
                    continue;
                pl->st_pages_total[idx] += total;
                pl->st_pages_used[idx] += used;
                pl->st_pages_reserved[idx] += resv;
            }
        }
    }
}

/* The nova.conf text of the inventory: --nova-conf's text (its [DEFAULT]
 * reserved_host_* and ratio options), then the --set options. */
static int inventory_conf(struct plan *pl, const struct cli_nova_conf *nc, const char *sets) {
    if (!pl->inventory) {
        if (sets || pl->disk_gb >= 0) {
            plan_err("--set and --disk-gb are the inventory's: not with --no-inventory");
            return PLAN_EXIT_INPUT;
        }
        return 0;
    }
    /* the CPU and RAM ratios (and the initial ones nova falls back to) are
     * the NUMA limits' too: one pair for both steps */
    for (unsigned k = 0; sets && k < 4; k++) {
        static const char *const ratio_opts[] = {
            "cpu_allocation_ratio=", "ram_allocation_ratio=", "initial_cpu_allocation_ratio=",
            "initial_ram_allocation_ratio="};
        const char *at = strstr(sets, ratio_opts[k]);
        while (at && at != sets && at[-1] != '\n')
            at = strstr(at + 1, ratio_opts[k]);
        if (at) {
            plan_err("--set %.*s: the plan takes the CPU and RAM ratios from --limits, "
                     "--nova-conf or the dump's columns (nova uses them for both steps)",
                     (int)strlen(ratio_opts[k]) - 1, ratio_opts[k]);
            return PLAN_EXIT_INPUT;
        }
    }
    if (!nc->text && !sets)
        return 0;
    if (!(pl->inv_conf = cli_inventory_conf(nc, sets, &pl->inv_conf_len))) {
        plan_err("out of memory");
        return PLAN_EXIT_FAIL;
    }
    return 0;
}

/* The default limits: the CPU and RAM ratios of --nova-conf, else nova's
 * initial ones (as the single-host plan takes them: cli_nova_conf_ratios). */
static int default_limits(struct plan *pl, const struct cli_nova_conf *nc) {
    numafit_error_t e;
    int rc = cli_nova_conf_ratios(nc, pl->profile == NUMAFIT_PROFILE_ZED, &pl->limits[0].cpu_ratio,
                                  &pl->limits[0].ram_ratio, &e);
    if (rc < 0) {
        cli_error("numafit plan", "--nova-conf", rc, &e, CLI_ERR_WHERE_FIRST | CLI_ERR_EXCEPTION);
        return rc == -ENOMEM ? PLAN_EXIT_FAIL : PLAN_EXIT_INPUT;
    }
    /* named when they differ from nova's defaults */
    if (nc->text) {
        struct cli_nova_conf none = {NULL, 0, NULL};
        double cpu, ram;
        if (cli_nova_conf_ratios(&none, pl->profile == NUMAFIT_PROFILE_ZED, &cpu, &ram, &e) == 0 &&
            (cpu != pl->limits[0].cpu_ratio || ram != pl->limits[0].ram_ratio))
            pl->limits_from = nc->path;
    }
    return 0;
}

static double mono_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Write a picture; returns 0 or PLAN_EXIT_FAIL. */
/* Draw the plan into memory, then write path whole or not at all (a
 * temporary file renamed into place: an existing file stays as it was when
 * drawing or writing fails). */
static int picture(const json_t *plan, const char *opt, const char *path, bool html,
                   const char *strategy) {
    char err[512] = "", *data = NULL;
    size_t n = 0;
    FILE *mem = open_memstream(&data, &n);
    int rc;

    if (!mem) {
        plan_err("%s %s: out of memory", opt, path);
        return PLAN_EXIT_FAIL;
    }
    rc = html ? plan_render_html(plan, mem, err, sizeof(err))
              : plan_render_svg(plan, strategy, mem, err, sizeof(err));
    if (fclose(mem) != 0 && rc == 0) {
        snprintf(err, sizeof(err), "out of memory");
        rc = -1;
    }
    /* "-" is a file of that name here, as it always was */
    if (rc == 0 && cli_write_file(strcmp(path, "-") ? path : "./-", data, n, err, sizeof(err)) < 0)
        rc = -1;
    free(data);
    if (rc < 0) {
        plan_err("%s %s: %s", opt, path, err[0] ? err : "cannot draw the plan");
        return PLAN_EXIT_FAIL;
    }
    return 0;
}

/* Before the plan runs: can a file be created where an output goes? */
static int writable_dir(const char *opt, const char *path) {
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    struct stat st;

    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        plan_err("%s %s: is a directory", opt, path);
        return -1;
    }
    if (!slash)
        snprintf(dir, sizeof(dir), ".");
    else
        snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
    if (access(dir, W_OK | X_OK) < 0) {
        plan_err("%s %s: %s", opt, path, strerror(errno));
        return -1;
    }
    return 0;
}

int cmd_plan_fleet(int argc, char **argv) {
    enum {
        O_HOSTS_DIR = 256,
        O_DB,
        O_HOST,
        O_SYSFS,
        O_URI,
        O_ADD_HOSTS,
        O_INSTANCES,
        O_CONF, /* the nova.conf options of cli_conf.h */
        O_CONF_LAST = O_CONF + CLI_CONF_COUNT - 1,
        O_ALL_ONLINE,
        O_ANY_ARCH,
        O_FLAVORS,
        O_FLAVOR,
        O_MIX,
        O_STRATEGY,
        O_RELEASE,
        O_BUDGET,
        O_LIMITS,
        O_MAX_INSTANCES,
        O_JSON,
        O_SVG,
        O_HTML,
        O_DRAW,
        O_DETAIL,
        O_TOP,
        O_PLACEMENTS,
        O_NO_PROGRESS,
        O_FLEET,
        O_NO_INVENTORY,
        O_SET,
        O_DISK_GB,
        O_XS_ALLOW,
        O_XS_OFF,
        O_TARGET,
    };
    static const struct option longopts[] = {
        {"hosts-dir", required_argument, NULL, O_HOSTS_DIR},
        {"db", required_argument, NULL, O_DB},
        {"host", required_argument, NULL, O_HOST},
        {"sysfs", required_argument, NULL, O_SYSFS},
        {"uri", required_argument, NULL, O_URI},
        {"add-hosts", required_argument, NULL, O_ADD_HOSTS},
        {"instances", required_argument, NULL, O_INSTANCES},
        CLI_CONF_LONGOPTS(O_CONF),
        {"all-online", no_argument, NULL, O_ALL_ONLINE},
        {"any-arch", no_argument, NULL, O_ANY_ARCH},
        {"flavors", required_argument, NULL, O_FLAVORS},
        {"flavor", required_argument, NULL, O_FLAVOR},
        {"mix", required_argument, NULL, O_MIX},
        {"strategy", required_argument, NULL, O_STRATEGY},
        {"nova-release", required_argument, NULL, O_RELEASE},
        {"budget", required_argument, NULL, O_BUDGET},
        {"allow-extra-specs", required_argument, NULL, O_XS_ALLOW},
        {"no-check-extra-specs", no_argument, NULL, O_XS_OFF},
        {"target", required_argument, NULL, O_TARGET},
        {"limits", required_argument, NULL, O_LIMITS},
        {"max-instances", required_argument, NULL, O_MAX_INSTANCES},
        {"json", no_argument, NULL, O_JSON},
        {"svg", required_argument, NULL, O_SVG},
        {"html", required_argument, NULL, O_HTML},
        {"draw", required_argument, NULL, O_DRAW},
        {"detail", no_argument, NULL, O_DETAIL},
        {"top", required_argument, NULL, O_TOP},
        {"placements", no_argument, NULL, O_PLACEMENTS},
        {"no-progress", no_argument, NULL, O_NO_PROGRESS},
        {"fleet", no_argument, NULL, O_FLEET},
        {"no-inventory", no_argument, NULL, O_NO_INVENTORY},
        {"set", required_argument, NULL, O_SET},
        {"disk-gb", required_argument, NULL, O_DISK_GB},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct plan *pl = NULL;
    struct src_arg *srcs = NULL;
    const char **inst = NULL, **flav = NULL;
    bool *flav_single = NULL;
    size_t nsrcs = 0, ninst = 0, nflav = 0;
    numafit_hostconf_t *conf = NULL;
    struct cli_nova_conf nc = {NULL, 0, NULL};
    char *sets = NULL;
    size_t sets_len = 0;
    numafit_error_t e;
    unsigned disc_flags = 0;
    bool cpu_opts = false; /* a CPU pool option: applied to every host */
    json_t *plan_json = NULL;
    struct cli_fit_options fit;
    double t0 = mono_now();
    bool in_options = true;
    int opt, rc, ret = PLAN_EXIT_INPUT;

    pl = calloc(1, sizeof(*pl));
    srcs = calloc((size_t)argc + 1, sizeof(*srcs));
    inst = calloc((size_t)argc + 1, sizeof(*inst));
    flav = calloc((size_t)argc + 1, sizeof(*flav));
    flav_single = calloc((size_t)argc + 1, sizeof(*flav_single));
    if (!pl || !srcs || !inst || !flav || !flav_single || numafit_hostconf_new(&conf) < 0) {
        plan_err("out of memory");
        ret = PLAN_EXIT_FAIL;
        goto out;
    }
    plan_sink_stderr(pl); /* the planner's errors, warnings and progress on stderr */
    pl->inventory = true;
    pl->disk_gb = -1;
    cli_fit_options_init(&fit);
    pl->profile = fit.profile;
    pl->strategies[NUMAFIT_STRATEGY_SPREAD] = pl->strategies[NUMAFIT_STRATEGY_PACK] = true;
    pl->draw = DEFAULT_DRAW;
    pl->top = DEFAULT_TOP;
    pl->max_instances = DEFAULT_MAX_INSTANCES;
    pl->nlimits = 1;

    memset(&e, 0, sizeof(e));
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        unsigned long long v;
        rc = 0;
        switch (opt) {
            case O_HOSTS_DIR:
                srcs[nsrcs++] = (struct src_arg){SRC_DIR, optarg, NULL};
                break;
            case O_DB:
                srcs[nsrcs++] = (struct src_arg){SRC_DB, optarg, NULL};
                break;
            case O_HOST:
                srcs[nsrcs++] = (struct src_arg){SRC_JSON, optarg, NULL};
                break;
            case O_SYSFS:
                srcs[nsrcs++] = (struct src_arg){SRC_SYSFS, optarg, NULL};
                break;
            case O_URI:
#ifndef HAVE_LIBVIRT
                plan_err("--uri %s: numafit was built without libvirt", optarg);
                goto out;
#endif
                srcs[nsrcs++] = (struct src_arg){SRC_URI, optarg, NULL};
                break;
            case O_ADD_HOSTS:
                if (optind >= argc) {
                    plan_err("--add-hosts wants N and SPEC, e.g. --add-hosts 100 \"2x32c2t "
                             "4cells 1G:64\"");
                    goto out;
                }
                srcs[nsrcs++] = (struct src_arg){SRC_SYNTHETIC, optarg, argv[optind++]};
                break;
            case O_INSTANCES:
                inst[ninst++] = optarg;
                break;
            case O_CONF ... O_CONF_LAST:
                /* a file replaces the options before it */
                cpu_opts = opt - O_CONF <= CLI_CONF_PIN ||
                           (cpu_opts && opt - O_CONF != CLI_CONF_NOVA_CONF);
                rc = cli_conf_apply(conf, &nc, "numafit plan", opt - O_CONF, optarg, &e);
                break;
            case O_NO_INVENTORY:
                pl->inventory = false;
                break;
            case O_SET:
                if (cli_inventory_setting("numafit plan", &sets, &sets_len, optarg) < 0)
                    goto out;
                break;
            case O_DISK_GB:
                if (parse_uint("--disk-gb", optarg, 2147483647ull, &v) < 0)
                    goto out;
                pl->disk_gb = (int64_t)v;
                break;
            case O_ALL_ONLINE:
                disc_flags |= NUMAFIT_DISCOVER_ALL_ONLINE;
                break;
            case O_ANY_ARCH:
                disc_flags |= NUMAFIT_DISCOVER_ANY_ARCH;
                break;
            case O_FLAVORS:
                flav[nflav++] = optarg;
                break;
            case O_FLAVOR:
                flav_single[nflav] = true;
                flav[nflav++] = optarg;
                break;
            case O_MIX:
                if (strcmp(optarg, "round-robin") == 0) {
                    pl->weights = false;
                } else if (strcmp(optarg, "weights") == 0) {
                    pl->weights = true;
                } else {
                    plan_err("--mix must be round-robin or weights");
                    goto out;
                }
                break;
            case O_STRATEGY:
                if (parse_strategies(pl, optarg) < 0)
                    goto out;
                break;
            case O_TARGET:
                if (parse_uint("--target", optarg, 1000000000ull, &v) < 0)
                    goto out;
                pl->has_target = true;
                pl->target = v;
                break;
            case O_RELEASE:
                if (cli_fit_options_release(&fit, optarg) < 0) {
                    plan_err("--nova-release must be latest or zed");
                    goto out;
                }
                pl->profile = fit.profile;
                pl->req_flags = fit.req_flags;
                break;
            case O_BUDGET:
                if (cli_fit_options_budget(&fit, optarg, "numafit plan") < 0)
                    goto out;
                break;
            case O_XS_ALLOW:
                pl->xs_allow = optarg;
                break;
            case O_XS_OFF:
                pl->xs_off = true;
                break;
            case O_LIMITS:
                if (pl->limits_json || pl->no_limits || pl->limits_path) {
                    plan_err("--limits given twice");
                    goto out;
                }
                if (strcmp(optarg, "none") == 0) {
                    pl->no_limits = true;
                    pl->limits[0].cpu_ratio = pl->limits[0].ram_ratio = 0;
                } else {
                    pl->limits_path = optarg;
                    if ((ret = load_limits(pl, optarg)) != 0)
                        goto out;
                    ret = PLAN_EXIT_INPUT;
                }
                break;
            case O_MAX_INSTANCES:
                if (parse_uint("--max-instances", optarg, 1000000000ull, &v) < 0 || v == 0) {
                    if (v == 0)
                        plan_err("--max-instances must be at least 1");
                    goto out;
                }
                pl->max_instances = v;
                break;
            case O_JSON:
                pl->json = true;
                break;
            case O_SVG:
                pl->svg_path = optarg;
                break;
            case O_HTML:
                pl->html_path = optarg;
                break;
            case O_DRAW:
                if (parse_uint("--draw", optarg, 10000, &v) < 0)
                    goto out;
                pl->draw = (uint32_t)v;
                break;
            case O_DETAIL:
                pl->detail = true;
                break;
            case O_TOP:
                if (parse_uint("--top", optarg, 10000, &v) < 0)
                    goto out;
                pl->top = (uint32_t)v;
                break;
            case O_PLACEMENTS:
                pl->placements = true;
                break;
            case O_NO_PROGRESS:
                pl->no_progress = true;
                break;
            case O_FLEET:
                break; /* fleet mode, even with one --host and one --flavor */
            case 'h':
                usage(stdout);
                ret = 0;
                goto out;
            case ':':
                plan_err("option %s needs a value", argv[optind - 1]);
                goto out;
            default:
                plan_err("unknown option %s", argv[optind - 1]);
                goto out;
        }
        if (rc < 0) {
            char what[64];
            for (unsigned k = 0; longopts[k].name; k++)
                if (longopts[k].val == opt)
                    snprintf(what, sizeof(what), "--%s", longopts[k].name);
            cli_error("numafit plan", what, rc, &e, CLI_ERR_WHERE_FIRST | CLI_ERR_EXCEPTION);
            goto out;
        }
    }
    if (optind < argc) {
        plan_err("unexpected argument %s", argv[optind]);
        goto out;
    }
    if (!nsrcs) {
        plan_err("no hosts: give --hosts-dir, --db, --host, --sysfs, --uri or --add-hosts");
        goto out;
    }
    if (!nflav) {
        plan_err("no flavors: give --flavors FILE or --flavor FILE");
        goto out;
    }
    /* the CPU pools of the last --nova-conf re-split the hosts too */
    cpu_opts = cpu_opts || numafit_hostconf_has_cpu_sets(conf) > 0;
    if (!pl->limits_path && !pl->no_limits && (ret = default_limits(pl, &nc)) != 0)
        goto out;
    if ((ret = inventory_conf(pl, &nc, sets)) != 0)
        goto out;
    /* the [pci] aliases of the flavors and device_spec of discovered hosts */
    pl->nova_conf = nc.text;
    pl->nova_conf_len = nc.len;
    nc.text = NULL;
    ret = PLAN_EXIT_INPUT;
    in_options = false;
    pl->tty = isatty(STDERR_FILENO) && !pl->no_progress;
    if (pl->limits_path && pl->no_limits) {
        /* a file holding null */
        pl->limits[0].cpu_ratio = pl->limits[0].ram_ratio = 0;
    }
    if ((pl->svg_path && writable_dir("--svg", pl->svg_path) < 0) ||
        (pl->html_path && writable_dir("--html", pl->html_path) < 0))
        goto out;

    /* flavors first: a bad one is found before the hosts are loaded */
    for (size_t i = 0; i < nflav; i++)
        if ((ret = plan_load_flavors(pl, flav[i], flav_single[i])) != 0)
            goto out;
    {
        unsigned planned = 0;
        for (unsigned f = 0; f < pl->nflavors; f++)
            planned += pl->flavors[f].planned;
        if (!planned) {
            plan_err("no flavor with a NUMA topology to plan (--no-inventory plans only those)");
            ret = PLAN_EXIT_INPUT;
            goto out;
        }
    }
    for (size_t i = 0; i < nsrcs; i++) {
        switch (srcs[i].kind) {
            case SRC_DIR:
                ret = plan_load_dir(pl, srcs[i].a);
                break;
            case SRC_DB:
                ret = plan_load_db(pl, srcs[i].a);
                break;
            case SRC_JSON:
                ret = plan_load_json_host(pl, srcs[i].a);
                break;
            case SRC_SYSFS:
                ret = plan_load_sysfs(pl, srcs[i].a, conf, disc_flags);
                break;
            case SRC_URI:
                ret = plan_load_uri(pl, srcs[i].a, conf, disc_flags);
                break;
            default:
                ret = plan_add_hosts(pl, srcs[i].a, srcs[i].b);
                break;
        }
        if (ret)
            goto out;
    }
    /* the CPU pool options went into the discovery of sysfs and libvirt
     * hosts; every other host is re-split as that configuration would */
    for (size_t i = 0; cpu_opts && i < pl->nhosts; i++) {
        int kind = pl->sources[pl->hosts[i].source].kind;
        if (kind == SRC_SYSFS || kind == SRC_URI)
            continue;
        memset(&e, 0, sizeof(e));
        if ((rc = numafit_host_set_cpu_pools(pl->hosts[i].h, conf, 0, &e)) < 0) {
            char label[4200];
            snprintf(label, sizeof(label),
                     "host %s: --cpu-dedicated-set/--cpu-shared-set/--vcpu-pin-set",
                     pl->names + pl->hosts[i].name);
            cli_error("numafit plan", label, rc, &e, CLI_ERR_EXC_FIRST);
            ret = PLAN_EXIT_INPUT;
            goto out;
        }
    }
    if (!pl->nhosts) {
        plan_err("the fleet has no hosts");
        ret = PLAN_EXIT_INPUT;
        goto out;
    }
    if (pl->pci) {
        /* hosts without pools have no devices for the flavors asking */
        plan_pci_groups(pl);
        memset(&e, 0, sizeof(e));
        if (numafit_pci_pools_new_from_json("[]", 2, 0, &pl->pci_empty, &e) < 0) {
            plan_err("out of memory");
            ret = PLAN_EXIT_FAIL;
            goto out;
        }
    }
    if (pl->placements)
        pl->keep = (uint32_t)pl->nhosts;
    else if (pl->detail || pl->svg_path || pl->html_path)
        pl->keep = pl->draw < pl->nhosts ? pl->draw : (uint32_t)pl->nhosts;
    for (size_t i = 0; i < ninst; i++)
        if ((ret = plan_load_instances(pl, inst[i])) != 0)
            goto out;
    if ((ret = make_options(pl, &fit)) != 0 || (ret = plan_build_inventories(pl)) != 0)
        goto out;
    fleet_stats(pl);
    pl->load_seconds = mono_now() - t0;

    /* the fills */
    {
        unsigned nstrat = 0, done = 0;
        for (int s = 0; s < PLAN_MAX_STRATEGIES; s++)
            nstrat += pl->strategies[s];
        if (pl->has_target)
            plan_target_shares(pl);
        pl->progress =
            plan_progress_new(pl->tty, (uint64_t)nstrat * pl->nhosts * (pl->nflavors + 2u));
        for (int s = 0; s < PLAN_MAX_STRATEGIES; s++) {
            struct plan_result *r;
            if (!pl->strategies[s])
                continue;
            r = &pl->results[pl->nresults++];
            r->in_place = ++done == nstrat;
            plan_progress_phase(pl->progress, plan_strategy_name(s));
            if (plan_run_strategy(pl, s, r) < 0) {
                plan_progress_end(pl->progress);
                pl->progress = NULL;
                ret = PLAN_EXIT_FAIL;
                goto out;
            }
        }
        plan_progress_end(pl->progress);
        pl->progress = NULL;
    }

    /* output */
    ret = PLAN_EXIT_FAIL;
    if (pl->json || pl->svg_path || pl->html_path) {
        plan_json = plan_to_json(pl);
        if (!plan_json) {
            plan_err("out of memory");
            goto out;
        }
    }
    if (pl->json) {
        if (json_dumpf(plan_json, stdout, JSON_COMPACT) < 0 || fputc('\n', stdout) == EOF) {
            plan_err("cannot write the plan: %s", strerror(errno));
            goto out;
        }
    } else {
        plan_report(stdout, pl);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        plan_err("cannot write the plan: %s", strerror(errno ? errno : EIO));
        goto out;
    }
    ret = 0;
    /* a picture per strategy: the first in FILE, the others in FILE-NAME.svg
     * (FILE without its .svg) */
    for (unsigned i = 0; pl->svg_path && i < pl->nresults; i++) {
        const char *name = plan_strategy_name(pl->results[i].strategy);
        char path[PATH_MAX];
        size_t n = strlen(pl->svg_path);
        if (i == 0)
            snprintf(path, sizeof(path), "%s", pl->svg_path);
        else if (n > 4 && strcmp(pl->svg_path + n - 4, ".svg") == 0)
            snprintf(path, sizeof(path), "%.*s-%s.svg", (int)(n - 4), pl->svg_path, name);
        else
            snprintf(path, sizeof(path), "%s-%s", pl->svg_path, name);
        rc = picture(plan_json, "--svg", path, false, name);
        if (rc)
            ret = rc;
    }
    if (pl->html_path) {
        rc = picture(plan_json, "--html", pl->html_path, true, NULL);
        if (rc)
            ret = rc;
    }
out:
    if (ret == PLAN_EXIT_INPUT && in_options)
        fprintf(stderr, "Try 'numafit plan --help'.\n");
    json_decref(plan_json);
    if (pl)
        plan_free(pl);
    free(pl);
    free(srcs);
    free(inst);
    free(flav);
    free(flav_single);
    free(sets);
    cli_nova_conf_free(&nc);
    numafit_hostconf_free(conf);
    return ret;
}
