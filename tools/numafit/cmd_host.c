/*
 * numafit host: discover a host's NUMA topology the way nova's libvirt driver
 * builds it, from a live libvirt connection, a capabilities XML file or a
 * sysfs tree, and print it as nova's NUMATopology JSON (or a summary on a
 * terminal).
 *
 *   numafit host --libvirt URI | --caps FILE | --sysfs [ROOT] | --sysfs=ROOT
 *                [--cpu-dedicated-set S] [--cpu-shared-set S] [--vcpu-pin-set S]
 *                [--reserved-huge-pages node:N,size:S,count:C]...
 *                [--physnet NAME:NODES]... [--tunnel NODES]
 *                [--online SPEC] [--all-online] [--any-arch] [--json]
 *                [--inventory [--disk-gb N] [--set OPTION=VALUE]... [--nova-release R]]
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include <numafit.h>
#include <numafit/discover.h>

#include "cli.h"
#include "cli_conf.h"
#include "cli_io.h"

static void usage(FILE *o) {
    fprintf(o,
            "usage: numafit host --libvirt URI | --caps FILE | --sysfs [ROOT]  [OPTIONS]\n"
            "\n"
            "Build the host NUMA topology nova's libvirt driver reports (NUMATopology),\n"
            "with nova.conf's CPU sets, reserved huge pages and network NUMA affinity.\n"
            "\n"
            "Source (one):\n"
            "  --libvirt URI            read-only libvirt connection (e.g. qemu:///system,\n"
            "                           test:///default); online CPUs from virNodeGetCPUMap\n"
            "  --caps FILE              capabilities XML ('virsh capabilities'; - = stdin)\n"
            "  --sysfs [ROOT]           Linux sysfs under ROOT (default /): the directory\n"
            "                           holding sys/; ROOT right after the flag, or\n"
            "                           --sysfs=ROOT\n"
            "nova.conf options:\n"
            "  --cpu-dedicated-set S    [compute] cpu_dedicated_set\n"
            "  --cpu-shared-set S       [compute] cpu_shared_set\n"
            "  --vcpu-pin-set S         [DEFAULT] vcpu_pin_set (deprecated)\n"
            "  --reserved-huge-pages V  [DEFAULT] reserved_huge_pages, node:N,size:S,count:C\n"
            "                           (repeatable)\n"
            "  --physnet NAME:NODES     [neutron] physnets + [neutron_physnet_NAME] numa_nodes\n"
            "                           (repeatable; NODES like 0,1)\n"
            "  --tunnel NODES           [neutron_tunnel] numa_nodes\n"
            "  --nova-conf FILE         all of these from a nova.conf (- = stdin); replaces\n"
            "                           the options before it, those after it change it\n"
            "Other:\n"
            "  --online SPEC            the online CPUs (nova's virNodeGetCPUMap), which\n"
            "                           capabilities XML lacks: --caps only (default: all\n"
            "                           listed); --sysfs and --libvirt read them\n"
            "  --all-online             ignore libvirt's CPU map / sysfs cpu/online\n"
            "  --any-arch               skip nova's architecture check\n"
            "  --json                   print JSON even on a terminal\n"
            "Placement inventory (instead of the topology):\n"
            "  --inventory              print the inventory nova's libvirt driver reports to\n"
            "                           placement (VCPU, PCPU, MEMORY_MB, DISK_GB), as\n"
            "                           placement's JSON; --nova-conf's [DEFAULT] reserved_host_*\n"
            "                           and *_allocation_ratio options apply\n"
            "  --disk-gb N              DISK_GB total (default 0: no DISK_GB)\n"
            "  --set OPTION=VALUE       one of those options (repeatable; after --nova-conf's):\n"
            "                           reserved_host_cpus, reserved_host_memory_mb,\n"
            "                           reserved_host_disk_mb, {cpu,ram,disk}_allocation_ratio,\n"
            "                           initial_{cpu,ram,disk}_allocation_ratio\n"
            "  --nova-release R         latest (default) or zed: the initial ratios' defaults\n"
            "\n"
            "Exit status: 0 ok, 1 error (with nova's exception name where nova raises\n"
            "one, e.g. Invalid), 2 usage.\n");
}

static json_t *data(json_t *o) {
    return json_object_get(o, "nova_object.data");
}

static void cpus(json_t *arr, char *out, size_t cap) {
    numafit_cpuset_t *s = NULL;
    char *str = NULL;
    size_t i;
    json_t *v;
    snprintf(out, cap, "-");
    if (numafit_cpuset_new(&s) < 0)
        return;
    json_array_foreach(arr, i, v) {
        if (numafit_cpuset_add(s, (unsigned)json_integer_value(v)) < 0)
            break;
    }
    if (numafit_cpuset_count(s) > 0 && numafit_cpuset_format(s, 0, &str) == 0)
        snprintf(out, cap, "%s", str);
    numafit_free(str);
    numafit_cpuset_free(s);
}

/* Returns 0, or -1 with the message printed. */
static int summary(const numafit_host_t *h, const char *json, const char *source) {
    json_error_t jerr;
    json_t *root = json_loads(json, 0, &jerr), *cells, *cell;
    size_t i;
    int n = numafit_host_get_cell_count(h);
    char why[200];
    if (!root) {
        cli_json_error(&jerr, why, sizeof(why));
        fprintf(stderr, "numafit host: %s\n", why);
        return -1;
    }
    cells = json_object_get(data(root), "cells");
    printf("Host %s: %d NUMA cell%s\n", source, n, n == 1 ? "" : "s");
    if (n == 0)
        printf("  no NUMA topology (nova reports numa_topology None)\n");
    json_array_foreach(cells, i, cell) {
        json_t *d = data(cell), *sib, *pg, *nm = data(json_object_get(d, "network_metadata"));
        json_t *sock = json_object_get(d, "socket");
        char shared[512], ded[512], mem[48];
        size_t threads = 0, k;
        cpus(json_object_get(d, "cpuset"), shared, sizeof(shared));
        cpus(json_object_get(d, "pcpuset"), ded, sizeof(ded));
        json_array_foreach(json_object_get(d, "siblings"), k, sib) {
            if (json_array_size(sib) > threads)
                threads = json_array_size(sib);
        }
        printf("  cell %lld", (long long)json_integer_value(json_object_get(d, "id")));
        if (json_is_integer(sock))
            printf(" (socket %lld)", (long long)json_integer_value(sock));
        printf(": %s\n",
               cli_fmt_mib(json_integer_value(json_object_get(d, "memory")), mem, sizeof(mem)));
        printf("    shared CPUs (VCPU)     %s\n", shared);
        printf("    dedicated CPUs (PCPU)  %s\n", ded);
        printf("    sibling groups         %zu (up to %zu thread%s)\n",
               json_array_size(json_object_get(d, "siblings")), threads, threads == 1 ? "" : "s");
        json_array_foreach(json_object_get(d, "mempages"), k, pg) {
            json_t *p = data(pg);
            char sz[32];
            char t[48], rs[48];
            cli_fmt_page_size(json_integer_value(json_object_get(p, "size_kb")), false, sz,
                              sizeof(sz));
            printf(
                "    pages %-9s %s total, %s reserved\n", sz,
                cli_fmt_count(json_integer_value(json_object_get(p, "total")), t, sizeof(t)),
                cli_fmt_count(json_integer_value(json_object_get(p, "reserved")), rs, sizeof(rs)));
        }
        if (nm) {
            json_t *pn;
            size_t j;
            if (json_array_size(json_object_get(nm, "physnets"))) {
                printf("    physnets              ");
                json_array_foreach(json_object_get(nm, "physnets"), j, pn) {
                    printf(" %s", json_string_value(pn));
                }
                printf("\n");
            }
            if (json_is_true(json_object_get(nm, "tunneled")))
                printf("    tunneled networks      yes\n");
        }
    }
    if (n > 1) {
        unsigned dist;
        if (numafit_host_get_distance(h, 0, 0, &dist) == 0) {
            printf("  distances:\n      ");
            for (int j = 0; j < n; j++)
                printf(" %4d", numafit_host_get_cell_id(h, (unsigned)j));
            printf("\n");
            for (int a = 0; a < n; a++) {
                printf("  %4d", numafit_host_get_cell_id(h, (unsigned)a));
                for (int b = 0; b < n; b++) {
                    if (numafit_host_get_distance(h, (unsigned)a, (unsigned)b, &dist) < 0)
                        dist = 0;
                    printf(" %4u", dist);
                }
                printf("\n");
            }
        }
    }
    json_decref(root);
    return 0;
}

/* The inventory of host as placement's JSON, into *out; 1 after saying why. */
static int inventory_json(const numafit_host_t *host, const struct cli_nova_conf *nc,
                          const char *sets, int64_t disk_gb, unsigned flags, char **out) {
    numafit_inventory_t *inv = NULL;
    numafit_error_t err;
    size_t len = 0;
    char *text = cli_inventory_conf(nc, sets, &len);
    int rc;
    if (!text) {
        fprintf(stderr, "numafit host: out of memory\n");
        return 1;
    }
    memset(&err, 0, sizeof(err));
    rc = numafit_inventory_new_from_host(host, text, len, disk_gb, NULL, flags, &inv, &err);
    free(text);
    if (rc == 0)
        rc = numafit_inventory_to_json(inv, NUMAFIT_JSON_INDENT, out, &err);
    numafit_inventory_free(inv);
    if (rc < 0) {
        cli_error("numafit host", "inventory", rc, &err, CLI_ERR_EXCEPTION | CLI_ERR_WHERE_AT);
        return 1;
    }
    return 0;
}

static int fail(const char *what, int rc, const numafit_error_t *e) {
    cli_error("numafit host", what, rc, e, CLI_ERR_EXCEPTION | CLI_ERR_WHERE_AT);
    return 1;
}

int cmd_host(int argc, char **argv) {
    enum {
        O_LIBVIRT = 256,
        O_CAPS,
        O_SYSFS,
        O_CONF, /* the nova.conf options of cli_conf.h */
        O_CONF_LAST = O_CONF + CLI_CONF_COUNT - 1,
        O_ONLINE,
        O_ALL_ONLINE,
        O_ANY_ARCH,
        O_JSON,
        O_INVENTORY,
        O_DISK_GB,
        O_SET,
        O_RELEASE
    };
    static const struct option longopts[] = {
        {"libvirt", required_argument, NULL, O_LIBVIRT},
        {"caps", required_argument, NULL, O_CAPS},
        {"sysfs", optional_argument, NULL, O_SYSFS},
        CLI_CONF_LONGOPTS(O_CONF),
        {"online", required_argument, NULL, O_ONLINE},
        {"all-online", no_argument, NULL, O_ALL_ONLINE},
        {"any-arch", no_argument, NULL, O_ANY_ARCH},
        {"json", no_argument, NULL, O_JSON},
        {"inventory", no_argument, NULL, O_INVENTORY},
        {"disk-gb", required_argument, NULL, O_DISK_GB},
        {"set", required_argument, NULL, O_SET},
        {"nova-release", required_argument, NULL, O_RELEASE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    numafit_hostconf_t *conf = NULL;
    numafit_host_t *host = NULL;
    numafit_error_t err;
    const char *libvirt_uri = NULL, *caps = NULL, *sysfs = NULL, *online = NULL;
    bool have_sysfs = false, json = false, inventory = false, inv_opts = false;
    struct cli_nova_conf nc = {NULL, 0, NULL};
    unsigned flags = 0, inv_flags = 0;
    int64_t disk_gb = 0;
    char *out = NULL, *sets = NULL, label[300];
    size_t sets_len = 0;
    int opt, rc, nsrc = 0, ret = 1;

    memset(&err, 0, sizeof(err));
    if (numafit_hostconf_new(&conf) < 0) {
        fprintf(stderr, "numafit host: out of memory\n");
        return 1;
    }
    optind = 1;
    opterr = 1;
    while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        rc = 0;
        switch (opt) {
            case O_LIBVIRT:
                libvirt_uri = optarg;
                nsrc++;
                break;
            case O_CAPS:
                caps = optarg;
                nsrc++;
                break;
            case O_SYSFS:
                have_sysfs = true;
                nsrc++;
                if (cli_sysfs_root("numafit host", argc, argv, &optind, optarg, &sysfs) < 0) {
                    ret = CLI_EXIT_USAGE;
                    goto out;
                }
                break;
            case O_CONF ... O_CONF_LAST:
                rc = cli_conf_apply(conf, &nc, "numafit host", opt - O_CONF, optarg, &err);
                break;
            case O_INVENTORY:
                inventory = true;
                break;
            case O_DISK_GB: {
                char *end;
                errno = 0;
                long long v = strtoll(optarg, &end, 10);
                if (errno || end == optarg || *end || v < 0 || v > NUMAFIT_RESOURCE_AMOUNT_MAX) {
                    fprintf(stderr, "numafit host: --disk-gb wants an integer from 0 to %d\n",
                            NUMAFIT_RESOURCE_AMOUNT_MAX);
                    ret = CLI_EXIT_USAGE;
                    goto out;
                }
                disk_gb = v;
                inv_opts = true;
                break;
            }
            case O_SET:
                if (cli_inventory_setting("numafit host", &sets, &sets_len, optarg) < 0) {
                    ret = CLI_EXIT_USAGE;
                    goto out;
                }
                inv_opts = true;
                break;
            case O_RELEASE: {
                struct cli_fit_options fo;
                cli_fit_options_init(&fo);
                if (cli_fit_options_release(&fo, optarg) < 0) {
                    fprintf(stderr, "numafit host: --nova-release must be latest or zed\n");
                    ret = CLI_EXIT_USAGE;
                    goto out;
                }
                inv_flags = fo.req_flags & NUMAFIT_REQUEST_ZED ? NUMAFIT_INVENTORY_ZED : 0;
                inv_opts = true;
                break;
            }
            case O_ONLINE:
                online = optarg;
                break;
            case O_ALL_ONLINE:
                flags |= NUMAFIT_DISCOVER_ALL_ONLINE;
                break;
            case O_ANY_ARCH:
                flags |= NUMAFIT_DISCOVER_ANY_ARCH;
                break;
            case O_JSON:
                json = true;
                break;
            case 'h':
                usage(stdout);
                ret = 0;
                goto out;
            default:
                fprintf(stderr, "Try 'numafit host --help'.\n");
                ret = CLI_EXIT_USAGE;
                goto out;
        }
        if (rc < 0) {
            char what[64];
            snprintf(what, sizeof(what), "--%s", longopts[opt - O_LIBVIRT].name);
            ret = fail(what, rc, &err);
            goto out;
        }
    }
    if (optind < argc) {
        cli_extra_operand("numafit host", argv[optind], have_sysfs && !sysfs);
        fprintf(stderr, "Try 'numafit host --help'.\n");
        ret = CLI_EXIT_USAGE;
        goto out;
    }
    if (nsrc != 1) {
        fprintf(stderr, "numafit host: give exactly one of --libvirt URI, --caps FILE, "
                        "--sysfs [ROOT]\nTry 'numafit host --help'.\n");
        ret = CLI_EXIT_USAGE;
        goto out;
    }
    if (online && !caps) {
        fprintf(stderr, "numafit host: --online goes with --caps only: --sysfs reads the online "
                        "CPUs from ROOT/sys/devices/system/cpu/online, --libvirt from "
                        "virNodeGetCPUMap (--all-online counts every CPU online)\n");
        ret = CLI_EXIT_USAGE;
        goto out;
    }
    if (inv_opts && !inventory) {
        fprintf(stderr, "numafit host: --disk-gb, --set and --nova-release go with --inventory\n");
        ret = CLI_EXIT_USAGE;
        goto out;
    }

    if (libvirt_uri) {
        snprintf(label, sizeof(label), "libvirt %s", libvirt_uri);
        rc = numafit_host_new_from_libvirt(libvirt_uri, conf, flags, &host, &err);
    } else if (caps) {
        size_t len = 0;
        char *xml;
        snprintf(label, sizeof(label), "capabilities %s", caps);
        xml = cli_read_input("numafit host", NULL, caps, NUMAFIT_INPUT_MAX, true, &len, NULL);
        if (!xml)
            goto out;
        rc = numafit_host_new_from_caps_xml(xml, len, conf, online, flags, &host, &err);
        free(xml);
    } else {
        snprintf(label, sizeof(label), "sysfs %s", sysfs ? sysfs : "/");
        rc = numafit_host_new_from_sysfs(sysfs, conf, flags, &host, &err);
    }
    if (rc < 0) {
        ret = fail(label, rc, &err);
        goto out;
    }
    if (inventory) {
        ret = inventory_json(host, &nc, sets, disk_gb, inv_flags, &out);
        if (ret == 0)
            printf("%s\n", out);
        goto out;
    }
    rc = numafit_host_to_json(host, NUMAFIT_JSON_INDENT, &out, &err);
    if (rc < 0) {
        ret = fail("JSON", rc, &err);
        goto out;
    }
    if (json || !isatty(STDOUT_FILENO))
        printf("%s\n", out);
    else if (summary(host, out, label) < 0)
        goto out;
    ret = 0; /* main() checks that standard output was written */
out:
    free(sets);
    cli_nova_conf_free(&nc);
    numafit_free(out);
    numafit_host_free(host);
    numafit_hostconf_free(conf);
    return ret;
}
