/*
 * numafit pci: a host's PCI devices as nova's libvirt driver reports them
 * (from sysfs, libvirt's node device XML, a live libvirt connection or
 * nova's device JSON) and the pools nova's compute node makes of them with
 * nova.conf's [pci] device_spec: what compute_nodes.pci_stats will hold.
 *
 *   numafit pci --sysfs [ROOT] | --nodedev FILE... | --libvirt URI | --devices FILE
 *               [--nova-conf FILE] [--nova-release R] [--list-devices] [--json]
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <numafit.h>
#include <numafit/discover.h>

#include "cli.h"
#include "cli_io.h"

#define NODEDEV_FILES_MAX 64
#define NODEDEV_DOCS_MAX  NUMAFIT_PCI_DEVICES_MAX

static void usage(FILE *o) {
    fprintf(o, "usage: numafit pci --sysfs [ROOT] | --nodedev FILE... | --libvirt URI |\n"
               "                   --devices FILE  [OPTIONS]\n"
               "\n"
               "A host's PCI devices as nova's libvirt driver reports them, and the pools\n"
               "nova's compute node makes of them with nova.conf's [pci] device_spec (the\n"
               "compute_nodes.pci_stats column, a PciDevicePoolList).\n"
               "\n"
               "Source (one):\n"
               "  --sysfs [ROOT]      ROOT/sys/bus/pci/devices (default /); ROOT right after\n"
               "                      the flag, or --sysfs=ROOT\n"
               "  --nodedev FILE      libvirt node device XML, one or more <device> documents\n"
               "                      one after another, as a loop of 'virsh nodedev-dumpxml'\n"
               "                      prints them for the pci, net and vdpa devices\n"
               "                      (repeatable; - = stdin)\n"
               "  --libvirt URI       a read-only libvirt connection's node devices\n"
               "  --devices FILE      nova's pci_passthrough_devices JSON (- = stdin)\n"
               "Options:\n"
               "  --nova-conf FILE    nova.conf: its [pci] device_spec entries (and the\n"
               "                      deprecated passthrough_whitelist names); without it no\n"
               "                      device is assignable\n"
               "  --nova-release R    latest (default) or zed\n"
               "  --list-devices      print the devices (nova's JSON) instead of the pools\n"
               "  --json              print JSON even on a terminal\n"
               "\n"
               "Exit status: 0 ok, 1 error (with nova's exception name where nova raises\n"
               "one), 2 usage.\n");
}

static int fail(const char *what, int rc, const numafit_error_t *e) {
    cli_error("numafit pci", what, rc, e, CLI_ERR_EXCEPTION | CLI_ERR_WHERE_AT);
    return 1;
}

/* Split a text of <device> documents at each line that starts one. */
static int split_docs(char *buf, size_t len, const char **docs, size_t *lens, size_t *n,
                      size_t max) {
    size_t start = (size_t)-1;
    for (size_t i = 0; i <= len; i++) {
        bool at_line = i == 0 || buf[i - 1] == '\n';
        bool begins = i < len && at_line && len - i >= 7 && !strncmp(buf + i, "<device", 7) &&
                      (buf[i + 7] == '>' || buf[i + 7] == ' ' || buf[i + 7] == '\n');
        if (begins || i == len) {
            if (start != (size_t)-1) {
                if (*n >= max)
                    return -ERANGE;
                docs[*n] = buf + start;
                lens[(*n)++] = i - start;
            }
            start = i;
        }
    }
    return 0;
}

static void summary(const numafit_pci_devices_t *d, const numafit_pci_pools_t *p,
                    const char *label) {
    int n = numafit_pci_pools_get_count(p);
    int64_t total = 0;
    printf("%s: %d PCI devices, %d pools\n", label, numafit_pci_devices_get_count(d), n);
    if (n > 0)
        printf("  %-9s %-5s %-9s %5s  %s\n", "vendor:id", "node", "dev_type", "count", "tags");
    for (int i = 0; i < n; i++) {
        const char *v, *pr, *t = NULL;
        int known;
        int64_t node, count;
        char nodes[24];
        if (numafit_pci_pools_get(p, (unsigned)i, &v, &pr, &known, &node, &count) < 0)
            continue;
        numafit_pci_pools_get_tag(p, (unsigned)i, "dev_type", &t);
        snprintf(nodes, sizeof(nodes), known ? "%lld" : "-", (long long)node);
        printf("  %s:%s %-5s %-9s %5lld ", v, pr, nodes, t ? t : "-", (long long)count);
        {
            static const char *const shown[] = {"physical_network", "trusted", "remote_managed",
                                                "parent_ifname",    "address", NULL};
            for (unsigned k = 0; shown[k]; k++) {
                const char *val;
                if (numafit_pci_pools_get_tag(p, (unsigned)i, shown[k], &val) == 1)
                    printf(" %s=%s", shown[k], val ? val : "null");
            }
        }
        printf("\n");
        total += count;
    }
    printf("assignable: %lld of %d devices\n", (long long)total, numafit_pci_devices_get_count(d));
}

int cmd_pci(int argc, char **argv) {
    enum { O_SYSFS = 256, O_NODEDEV, O_LIBVIRT, O_DEVICES, O_CONF, O_RELEASE, O_LIST, O_JSON };
    static const struct option longopts[] = {
        {"sysfs", optional_argument, NULL, O_SYSFS},
        {"nodedev", required_argument, NULL, O_NODEDEV},
        {"libvirt", required_argument, NULL, O_LIBVIRT},
        {"devices", required_argument, NULL, O_DEVICES},
        {"nova-conf", required_argument, NULL, O_CONF},
        {"nova-release", required_argument, NULL, O_RELEASE},
        {"list-devices", no_argument, NULL, O_LIST},
        {"json", no_argument, NULL, O_JSON},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *sysfs = NULL, *uri = NULL, *devices = NULL, *conf_path = NULL;
    const char *nodedev[NODEDEV_FILES_MAX];
    size_t nnodedev = 0, conf_len = 0;
    bool have_sysfs = false, list = false, json = false;
    unsigned flags = 0;
    char *conf = NULL, *out = NULL, *bufs[NODEDEV_FILES_MAX] = {0}, label[300];
    const char **docs = NULL;
    size_t *lens = NULL;
    numafit_pci_devices_t *devs = NULL;
    numafit_pci_pools_t *pools = NULL;
    numafit_error_t err;
    int opt, rc = 0, ret = 1, nsrc = 0;

    memset(&err, 0, sizeof(err));
    optind = 1;
    opterr = 1;
    while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (opt) {
            case O_SYSFS:
                have_sysfs = true;
                nsrc++;
                if (cli_sysfs_root("numafit pci", argc, argv, &optind, optarg, &sysfs) < 0) {
                    ret = CLI_EXIT_USAGE;
                    goto out;
                }
                break;
            case O_NODEDEV:
                if (nnodedev == NODEDEV_FILES_MAX) {
                    fprintf(stderr, "numafit pci: at most %d --nodedev files\n", NODEDEV_FILES_MAX);
                    ret = CLI_EXIT_USAGE;
                    goto out;
                }
                if (!nnodedev)
                    nsrc++;
                nodedev[nnodedev++] = optarg;
                break;
            case O_LIBVIRT:
                uri = optarg;
                nsrc++;
                break;
            case O_DEVICES:
                devices = optarg;
                nsrc++;
                break;
            case O_CONF:
                conf_path = optarg;
                break;
            case O_RELEASE:
                if (!strcmp(optarg, "zed")) {
                    flags = NUMAFIT_PCI_ZED;
                } else if (!strcmp(optarg, "latest")) {
                    flags = 0;
                } else {
                    fprintf(stderr, "numafit pci: --nova-release must be latest or zed\n");
                    ret = CLI_EXIT_USAGE;
                    goto out;
                }
                break;
            case O_LIST:
                list = true;
                break;
            case O_JSON:
                json = true;
                break;
            case 'h':
                usage(stdout);
                ret = 0;
                goto out;
            default:
                fprintf(stderr, "Try 'numafit pci --help'.\n");
                ret = CLI_EXIT_USAGE;
                goto out;
        }
    }
    if (optind < argc) {
        cli_extra_operand("numafit pci", argv[optind], have_sysfs && !sysfs);
        fprintf(stderr, "Try 'numafit pci --help'.\n");
        ret = CLI_EXIT_USAGE;
        goto out;
    }
    if (nsrc != 1) {
        fprintf(stderr, "numafit pci: give exactly one of --sysfs [ROOT], --nodedev FILE..., "
                        "--libvirt URI, --devices FILE\nTry 'numafit pci --help'.\n");
        ret = CLI_EXIT_USAGE;
        goto out;
    }

    if (have_sysfs) {
        snprintf(label, sizeof(label), "sysfs %s", sysfs ? sysfs : "/");
        rc = numafit_pci_devices_new_from_sysfs(sysfs ? sysfs : "/", 0, &devs, &err);
    } else if (uri) {
        snprintf(label, sizeof(label), "libvirt %s", uri);
        rc = numafit_pci_devices_new_from_libvirt(uri, 0, &devs, &err);
    } else if (devices) {
        size_t len = 0;
        char *buf = cli_read_input("numafit pci", "--devices", devices, NUMAFIT_INPUT_MAX, true,
                                   &len, NULL);
        if (!buf)
            goto out;
        snprintf(label, sizeof(label), "devices %s", devices);
        rc = numafit_pci_devices_new_from_json(buf, len, 0, &devs, &err);
        free(buf);
    } else {
        size_t ndocs = 0;
        if (!(docs = calloc(NODEDEV_DOCS_MAX, sizeof(*docs))) ||
            !(lens = calloc(NODEDEV_DOCS_MAX, sizeof(*lens)))) {
            fprintf(stderr, "numafit pci: out of memory\n");
            goto out;
        }
        for (size_t i = 0; i < nnodedev; i++) {
            size_t len = 0;
            bufs[i] = cli_read_input("numafit pci", "--nodedev", nodedev[i], NUMAFIT_INPUT_MAX,
                                     true, &len, NULL);
            if (!bufs[i])
                goto out;
            if (split_docs(bufs[i], len, docs, lens, &ndocs, NODEDEV_DOCS_MAX) < 0) {
                fprintf(stderr, "numafit pci: more than %d node device documents\n",
                        NODEDEV_DOCS_MAX);
                goto out;
            }
        }
        snprintf(label, sizeof(label), "node devices %s%s", nodedev[0], nnodedev > 1 ? " ..." : "");
        rc = numafit_pci_devices_new_from_nodedev_xml(docs, lens, ndocs, 0, &devs, &err);
    }
    if (rc < 0) {
        ret = fail(label, rc, &err);
        goto out;
    }
    if (list) {
        if ((rc = numafit_pci_devices_to_json(devs, NUMAFIT_JSON_INDENT, &out, &err)) < 0) {
            ret = fail("JSON", rc, &err);
            goto out;
        }
        printf("%s\n", out);
        ret = 0;
        goto out;
    }
    if (conf_path) {
        conf = cli_read_input("numafit pci", "--nova-conf", conf_path, NUMAFIT_NOVA_CONF_MAX, true,
                              &conf_len, NULL);
        if (!conf)
            goto out;
    }
    rc = numafit_pci_pools_new_from_devices(devs, conf, conf_len, flags, &pools, &err);
    if (rc < 0) {
        ret = fail(conf_path ? conf_path : "nova.conf", rc, &err);
        goto out;
    }
    if (json || !isatty(STDOUT_FILENO)) {
        if ((rc = numafit_pci_pools_to_json(pools, NUMAFIT_JSON_INDENT, &out, &err)) < 0) {
            ret = fail("JSON", rc, &err);
            goto out;
        }
        printf("%s\n", out);
    } else {
        summary(devs, pools, label);
    }
    ret = 0; /* main() checks that standard output was written */
out:
    for (size_t i = 0; i < nnodedev; i++)
        free(bufs[i]);
    free(docs);
    free(lens);
    free(conf);
    numafit_free(out);
    numafit_pci_pools_free(pools);
    numafit_pci_devices_free(devs);
    return ret;
}
