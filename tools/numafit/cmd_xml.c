/* `numafit xml`: fit a flavor on a host, then print the libvirt domain XML
 * elements nova's libvirt driver would write for it (or a whole domain). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include <numafit.h>
#include <numafit/domain.h>

#include "cli.h"
#include "cli_conf.h"
#include "cli_io.h"

#define XML_EXIT_ERROR 1
#define XML_EXIT_USAGE CLI_EXIT_USAGE
#define XML_EXIT_NOFIT CLI_EXIT_NOFIT

static void xml_usage(FILE *o) {
    fprintf(o,
            "usage: numafit xml (--host H.json | --host-spec SPEC) --flavor F.json\n"
            "                   [--image I.json]\n"
            "                   [--limits L.json] [--cpu-shared-set SPEC] [--domain]\n"
            "                   [OPTIONS]\n"
            "\n"
            "Fit the flavor on the host as nova does, then print the libvirt domain XML\n"
            "elements nova's libvirt driver writes for the placement: <memoryBacking>,\n"
            "<vcpu>, <cputune>, <numatune>, <features> (the PMU), <cpu>, <clock> and\n"
            "<devices> (the memory balloon); with --domain, a whole minimal\n"
            "domain (with a disk and an interface carrying quota:disk_* and quota:vif_*).\n"
            "\n"
            "--host-spec SPEC: a synthetic host, e.g. \"2x8c2t 2cells 1G:16\" (as plan\n"
            "--add-hosts takes it).\n"
            "\n"
            "OPTIONS:\n"
            "  --cpu-shared-set SPEC       [compute] cpu_shared_set of the host\n"
            "  --vcpu-pin-set SPEC         legacy vcpu_pin_set\n"
            "  --online-cpus SPEC          the host's online CPUs (default: all)\n"
            "  --realtime-priority N       [libvirt] realtime_scheduler_priority (1)\n"
            "  --file-backed-memory MIB    [libvirt] file_backed_memory (0)\n"
            "  --no-cpu-control            the host has no cgroup cpu controller\n"
            "  --domain-type TYPE          <domain type=...> with --domain (the virt type)\n"
            "  --name NAME, --uuid UUID    domain name and uuid with --domain\n"
            "  --cpu-mode MODE             host-model, host-passthrough, custom, none, maximum\n"
            "                              (default: nova's, host-model; aarch64\n"
            "                              host-passthrough; lxc, parallels none, where\n"
            "                              another mode is refused as nova refuses it)\n"
            "  --cpu-models LIST           [libvirt] cpu_models (the first is written)\n"
            "  --cpu-model-extra-flags LIST  [libvirt] cpu_model_extra_flags (-flag, +flag)\n"
            "  --virt-type TYPE            [libvirt] virt_type: kvm, qemu, lxc, parallels\n"
            "  --arch ARCH                 the host's architecture (x86_64)\n"
            "  --mem-stats-period N        [libvirt] mem_stats_period_seconds (10; <= 0: no\n"
            "                              memory balloon)\n"
            "  --disk-cachemodes LIST      [libvirt] disk_cachemodes (file=MODE: --domain's disk)\n"
            "  --nova-conf FILE            these from a nova.conf ([compute] cpu_shared_set,\n"
            "                              vcpu_pin_set, [libvirt] realtime_scheduler_priority,\n"
            "                              file_backed_memory, virt_type, cpu_mode, cpu_models,\n"
            "                              cpu_model_extra_flags, mem_stats_period_seconds,\n"
            "                              disk_cachemodes; - = stdin);\n"
            "                              the options above, when given, win\n"
            "  --nova-exact                write what nova writes even if libvirt refuses it\n"
            "                              (quotas out of libvirt's ranges, a NUMA guest with\n"
            "                              lxc or parallels and no CPU mode)\n"
            "  --pci-devices FILE          the host's PCI devices (nova's pci_passthrough_devices\n"
            "                              JSON, `numafit pci --list-devices`): --nova-conf's\n"
            "                              [pci] device_spec picks the assignable ones, the\n"
            "                              flavor's pci_passthrough:alias ([pci] alias) asks;\n"
            "                              the fit needs the devices, the compute node's claim\n"
            "                              takes particular ones and their <hostdev> elements\n"
            "                              are written (inside <devices> with --domain)\n"
            "  --pci-claims FILE           the device claims of earlier runs (a JSON list of\n"
            "                              the claims this option kept; a missing file is an\n"
            "                              empty list): taken again before the fit, and the\n"
            "                              new claim appended (the file replaced whole)\n"
            "  --nova-release latest|zed   nova rules to fit with (default latest)\n"
            "  --strategy spread|pack|headroom  host cell order (default spread)\n"
            "  --headroom-mix FLAVOR[:WEIGHT]  (repeatable) a flavor file the headroom strategy\n"
            "                              keeps room for, at its weight (default 1)\n"
            "The flavor's extra specs are first checked as nova's API checks them:\n");
    cli_extra_specs_help(o, 2, 30);
    cli_budget_help(o, 2, 30);
    fprintf(o, "\n"
               "Exit status: 0 written, 1 error, 2 usage, 3 the flavor does not fit.\n");
}

/* Whole file (a regular one) into a NUL-terminated malloc'ed buffer. */
static char *read_all(const char *path, size_t *ret_len) {
    return cli_read_input("numafit", NULL, path, NUMAFIT_INPUT_MAX, false, ret_len, NULL);
}

static void report(const char *what, int rc, const numafit_error_t *e) {
    cli_error("numafit", what, rc, e, CLI_ERR_EXCEPTION | CLI_ERR_WHERE_BOX);
}

/* *buf (a flavor or image read from path) in numafit's form; a note on
 * standard error names another form read. 0, or -1 (reported). */
static int read_form(bool image, const char *path, char **buf, size_t *len) {
    numafit_error_t e;
    char *n = NULL, *copy;
    int form, rc;

    memset(&e, 0, sizeof(e));
    rc = (image ? numafit_image_normalize : numafit_flavor_normalize)(*buf, *len, 0, &n, &form, &e);
    if (rc < 0) {
        report(path, rc, &e);
        return -1;
    }
    copy = form == NUMAFIT_FORM_NATIVE ? NULL : strdup(n);
    numafit_free(n);
    if (form == NUMAFIT_FORM_NATIVE)
        return 0;
    if (!copy) {
        fprintf(stderr, "numafit: out of memory\n");
        return -1;
    }
    fprintf(stderr, "numafit xml: %s: read as %s\n", path, numafit_input_form_to_string(form));
    free(*buf);
    *buf = copy;
    *len = strlen(copy);
    return 0;
}

struct xml_args {
    const char *host, *flavor, *image, *limits;
    const char *host_spec; /* --host-spec: a synthetic host */
    const char *shared, *pinset, *online, *type, *name, *uuid, *cpu_mode, *nova_conf;
    const char *pci_devices, *pci_claims;
    struct cli_nova_conf nc; /* --nova-conf's text, read once */
    const char *virt_type, *arch, *cpu_models, *cpu_flags, *cachemodes, *mem_stats;
    long priority;
    unsigned long long filebacked;
    struct cli_fit_options fit; /* --nova-release, --strategy */
    bool domain, no_cpu_control, exact, filebacked_set, priority_set;
};

static int parse_xml_args(int argc, char **argv, struct xml_args *a) {
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char **dst = NULL;
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            xml_usage(stdout);
            return 0;
        }
        if (!strcmp(o, "--domain")) {
            a->domain = true;
            continue;
        }
        if (!strcmp(o, "--no-cpu-control")) {
            a->no_cpu_control = true;
            continue;
        }
        if (!strcmp(o, "--nova-exact")) {
            a->exact = true;
            continue;
        }
        if (!strcmp(o, "--no-check-extra-specs")) {
            a->fit.no_xs_check = true;
            continue;
        }
        if (!strcmp(o, "--allow-extra-specs") && i + 1 < argc) {
            a->fit.xs_allow = argv[++i];
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "numafit xml: unknown option or missing value: '%s'\n", o);
            return -1;
        }
        if (!strcmp(o, "--host"))
            dst = &a->host;
        else if (!strcmp(o, "--host-spec"))
            dst = &a->host_spec;
        else if (!strcmp(o, "--flavor"))
            dst = &a->flavor;
        else if (!strcmp(o, "--image"))
            dst = &a->image;
        else if (!strcmp(o, "--limits"))
            dst = &a->limits;
        else if (!strcmp(o, "--cpu-shared-set"))
            dst = &a->shared;
        else if (!strcmp(o, "--vcpu-pin-set"))
            dst = &a->pinset;
        else if (!strcmp(o, "--online-cpus"))
            dst = &a->online;
        else if (!strcmp(o, "--domain-type"))
            dst = &a->type;
        else if (!strcmp(o, "--name"))
            dst = &a->name;
        else if (!strcmp(o, "--uuid"))
            dst = &a->uuid;
        else if (!strcmp(o, "--cpu-mode"))
            dst = &a->cpu_mode;
        else if (!strcmp(o, "--nova-conf"))
            dst = &a->nova_conf;
        else if (!strcmp(o, "--pci-devices"))
            dst = &a->pci_devices;
        else if (!strcmp(o, "--pci-claims"))
            dst = &a->pci_claims;
        else if (!strcmp(o, "--virt-type"))
            dst = &a->virt_type;
        else if (!strcmp(o, "--arch"))
            dst = &a->arch;
        else if (!strcmp(o, "--cpu-models"))
            dst = &a->cpu_models;
        else if (!strcmp(o, "--cpu-model-extra-flags"))
            dst = &a->cpu_flags;
        else if (!strcmp(o, "--disk-cachemodes"))
            dst = &a->cachemodes;
        else if (!strcmp(o, "--mem-stats-period"))
            dst = &a->mem_stats;
        if (dst) {
            *dst = argv[++i];
            continue;
        }
        if (!strcmp(o, "--realtime-priority") || !strcmp(o, "--file-backed-memory")) {
            char *end;
            const char *v = argv[++i];
            errno = 0;
            unsigned long long n = strtoull(v, &end, 10);
            if (errno || end == v || *end || v[0] == '-') {
                fprintf(stderr, "numafit xml: %s: not a number: '%s'\n", o, v);
                return -1;
            }
            if (o[2] == 'r') {
                a->priority = n > 1000 ? 1000 : (long)n;
                a->priority_set = true;
            } else {
                a->filebacked = n;
                a->filebacked_set = true;
            }
            continue;
        }
        if (!strcmp(o, "--nova-release")) {
            if (cli_fit_options_release(&a->fit, argv[++i]) < 0) {
                fprintf(stderr, "numafit xml: --nova-release: latest or zed\n");
                return -1;
            }
            continue;
        }
        if (!strcmp(o, "--budget")) {
            if (cli_fit_options_budget(&a->fit, argv[++i], "numafit xml") < 0)
                return -1;
            continue;
        }
        if (!strcmp(o, "--strategy")) {
            if (cli_fit_options_strategy(&a->fit, argv[++i]) < 0) {
                fprintf(stderr, "numafit xml: --strategy: spread, pack or headroom\n");
                return -1;
            }
            continue;
        }
        if (!strcmp(o, "--headroom-mix")) {
            if (cli_mix_arg(&a->fit, "numafit xml", argv[++i]) < 0)
                return -1;
            continue;
        }
        fprintf(stderr, "numafit xml: unknown option '%s'\n", o);
        return -1;
    }
    if (cli_mix_check_strategy(&a->fit, "numafit xml", false) < 0)
        return -1;
    if ((!a->host && !a->host_spec) || !a->flavor) {
        fprintf(stderr, "numafit xml: --host (or --host-spec) and --flavor are required\n");
        return -1;
    }
    if (a->host && a->host_spec) {
        fprintf(stderr, "numafit xml: give --host or --host-spec, not both\n");
        return -1;
    }
    if (a->pci_claims && !a->pci_devices) {
        fprintf(stderr, "numafit xml: --pci-claims needs --pci-devices\n");
        return -1;
    }
    return 1;
}

/* The settings; -EIO when --nova-conf could not be used (said), another
 * -errno for a bad option. */
static int make_conf(struct xml_args *a, numafit_domconf_t **ret) {
    numafit_domconf_t *c = NULL;
    numafit_error_t e;
    int rc;
    memset(&e, 0, sizeof(e));
    if ((rc = numafit_domconf_new(&c)) < 0) {
        fprintf(stderr, "numafit: %s\n", numafit_strerror(rc));
        return rc;
    }
    if (a->nova_conf && (rc = cli_nova_conf_read(&a->nc, "numafit xml", a->nova_conf, &e)) < 0) {
        fprintf(stderr, "numafit xml: --nova-conf %s\n", e.text);
        numafit_domconf_free(c);
        return -EIO;
    }
    if (a->nova_conf &&
        (rc = numafit_domconf_set_from_nova_conf(c, a->nc.text, a->nc.len, 0, &e)) < 0) {
        report(a->nova_conf, rc, &e);
        numafit_domconf_free(c);
        return -EIO; /* an input error, not a usage error */
    }
    if ((a->shared && (rc = numafit_domconf_set_cpu_shared_set(c, a->shared, &e)) < 0) ||
        (a->pinset && (rc = numafit_domconf_set_vcpu_pin_set(c, a->pinset, &e)) < 0) ||
        (rc = numafit_domconf_set_online_cpus(c, a->online, &e)) < 0) {
        report("host settings", rc, &e);
        goto fail;
    }
    if (a->priority_set && (rc = numafit_domconf_set_realtime_priority(c, (int)a->priority)) < 0) {
        fprintf(stderr, "numafit xml: --realtime-priority: 1..99\n");
        goto fail;
    }
    if (a->filebacked_set && (rc = numafit_domconf_set_file_backed_memory(c, a->filebacked)) < 0) {
        fprintf(stderr, "numafit xml: --file-backed-memory: out of range\n");
        goto fail;
    }
    if ((rc = numafit_domconf_set_cpu_control(c, !a->no_cpu_control)) < 0)
        goto fail;
    if (a->type && (rc = numafit_domconf_set_domain_type(c, a->type)) < 0) {
        fprintf(stderr, "numafit xml: --domain-type: letters and digits\n");
        goto fail;
    }
    if (a->name && (rc = numafit_domconf_set_name(c, a->name)) < 0) {
        fprintf(stderr, "numafit xml: --name: 1..255 bytes, no '/'\n");
        goto fail;
    }
    if (a->uuid && (rc = numafit_domconf_set_uuid(c, a->uuid)) < 0) {
        fprintf(stderr, "numafit xml: --uuid: not a uuid\n");
        goto fail;
    }
    if (a->cpu_mode && (rc = numafit_domconf_set_cpu_mode(c, a->cpu_mode)) < 0) {
        fprintf(stderr, "numafit xml: --cpu-mode: host-model, host-passthrough, custom, none or "
                        "maximum\n");
        goto fail;
    }
    if (a->virt_type && (rc = numafit_domconf_set_virt_type(c, a->virt_type)) < 0) {
        fprintf(stderr, "numafit xml: --virt-type: kvm, qemu, lxc or parallels\n");
        goto fail;
    }
    if (a->arch && (rc = numafit_domconf_set_arch(c, a->arch)) < 0) {
        fprintf(stderr, "numafit xml: --arch: an architecture as nova names it (x86_64, "
                        "aarch64, ...)\n");
        goto fail;
    }
    if (a->mem_stats) {
        char *end;
        long n;
        errno = 0;
        n = strtol(a->mem_stats, &end, 10);
        if (errno || end == a->mem_stats || *end || n < INT_MIN || n > INT_MAX) {
            fprintf(stderr, "numafit xml: --mem-stats-period: not an integer: '%s'\n",
                    a->mem_stats);
            rc = -EINVAL;
            goto fail;
        }
        if ((rc = numafit_domconf_set_mem_stats_period(c, (int)n)) < 0)
            goto fail;
    }
    if ((a->cpu_models && (rc = numafit_domconf_set_cpu_models(c, a->cpu_models, &e)) < 0) ||
        (a->cpu_flags &&
         (rc = numafit_domconf_set_cpu_model_extra_flags(c, a->cpu_flags, &e)) < 0) ||
        (a->cachemodes && (rc = numafit_domconf_set_disk_cachemodes(c, a->cachemodes, &e)) < 0)) {
        report("host settings", rc, &e);
        goto fail;
    }
    *ret = c;
    return 0;
fail:
    numafit_domconf_free(c);
    return rc < 0 ? rc : -EINVAL;
}

/* The PCI side of --pci-devices: a tracker of the devices under nova.conf's
 * device_spec, its pools and the flavor's requests. Returns 0, or an exit
 * status after saying why. */
struct xml_pci {
    numafit_pci_tracker_t *t;
    numafit_pci_pools_t *pools;
    numafit_pci_requests_t *reqs;
    json_t *claims; /* --pci-claims: the kept claims (a list), or NULL */
};

/* --pci-claims FILE: the kept claims (a missing file: none), each taken
 * again on the tracker. Returns 0, or -1 after saying why. */
static int pci_restore(const char *path, numafit_pci_tracker_t *t, json_t **ret) {
    json_t *list, *c;
    size_t i;
    int rc = 0;
    numafit_error_t e;
    struct stat st;
    memset(&e, 0, sizeof(e));
    if (stat(path, &st) < 0 && errno == ENOENT)
        return (*ret = json_array()) ? 0 : -1;
    if (!(list = cli_load_json_file("numafit xml", "--pci-claims", path, NUMAFIT_INPUT_MAX, NULL)))
        return -1;
    if (!json_is_array(list)) {
        fprintf(stderr, "numafit xml: %s: --pci-claims holds a JSON list of claims\n", path);
        json_decref(list);
        return -1;
    }
    json_array_foreach(list, i, c) {
        char *txt = json_dumps(c, JSON_COMPACT);
        char what[64];
        rc = txt ? numafit_pci_tracker_restore(t, txt, strlen(txt), &e) : -ENOMEM;
        free(txt);
        if (rc < 0) {
            snprintf(what, sizeof(what), "claim %zu", i);
            cli_error("numafit xml", path, rc, &e, CLI_ERR_EXCEPTION);
            fprintf(stderr, "numafit xml: %s: %s of --pci-claims cannot be taken again\n", path,
                    what);
            json_decref(list);
            return -1;
        }
    }
    *ret = list;
    return 0;
}

/* The kept claims with the new one, written whole (a temporary file renamed
 * into place). Returns 0, or -1 after saying why. */
static int pci_save(const char *path, json_t *claims, const char *claim) {
    json_error_t je;
    json_t *c = json_loads(claim, 0, &je);
    char *txt = NULL, *out = NULL, why[256];
    int rc = -1;
    if (c && !json_array_append_new(claims, c) &&
        (txt = json_dumps(claims, JSON_INDENT(1) | JSON_COMPACT)) != NULL &&
        (out = malloc(strlen(txt) + 2)) != NULL) {
        size_t n = strlen(txt);
        memcpy(out, txt, n);
        out[n++] = '\n';
        if (cli_write_file(path, out, n, why, sizeof(why)) == 0)
            rc = 0;
        else
            fprintf(stderr, "numafit xml: %s: %s\n", path, why);
    } else {
        fprintf(stderr, "numafit xml: out of memory\n");
    }
    free(out);
    free(txt);
    return rc;
}

static int pci_setup(const struct xml_args *a, const char *flavor, size_t flavor_n,
                     const char *image, size_t image_n, struct xml_pci *x) {
    char *devs_s = NULL;
    const char *conf_s = a->nc.text;
    size_t devs_n = 0, conf_n = a->nc.len;
    numafit_pci_devices_t *devs = NULL;
    numafit_error_t e;
    unsigned flags = a->fit.profile == NUMAFIT_PROFILE_ZED ? NUMAFIT_PCI_ZED : 0;
    int rc, status = XML_EXIT_ERROR;

    memset(&e, 0, sizeof(e));
    if (!(devs_s = read_all(a->pci_devices, &devs_n)))
        return XML_EXIT_ERROR;
    if ((rc = numafit_pci_devices_new_from_json(devs_s, devs_n, 0, &devs, &e)) < 0) {
        report(a->pci_devices, rc, &e);
        goto out;
    }
    if ((rc = numafit_pci_tracker_new(devs, conf_s, conf_n, flags, &x->t, &e)) < 0) {
        report(a->nova_conf ? a->nova_conf : "device_spec", rc, &e);
        goto out;
    }
    if (a->pci_claims && pci_restore(a->pci_claims, x->t, &x->claims) < 0)
        goto out;
    if ((rc = numafit_pci_tracker_get_pools(x->t, &x->pools)) < 0 ||
        (rc = numafit_pci_requests_from_flavor(flavor, flavor_n, image, image_n, conf_s, conf_n,
                                               flags, &x->reqs, &e)) < 0) {
        report(a->flavor, rc, &e);
        goto out;
    }
    status = 0;
out:
    numafit_pci_devices_free(devs);
    free(devs_s);
    return status;
}

/* Insert text (lines) before the line of the last "</devices>" of xml (a
 * whole domain), each line indented as the domain's devices are; returns
 * the new string (malloc) or NULL. */
static char *insert_devices(const char *xml, const char *text) {
    const char *at = NULL, *q = xml, *t;
    size_t n = strlen(xml), m = strlen(text), lines = 0, k;
    char *out;
    while ((q = strstr(q, "</devices>")) != NULL)
        at = q++;
    if (!at)
        at = xml + n;
    while (at > xml && at[-1] == ' ')
        at--; /* the start of that line */
    for (t = text; *t; t++)
        lines += *t == '\n';
    out = malloc(n + m + 4 * (lines + 1) + 1);
    if (!out)
        return NULL;
    k = (size_t)(at - xml);
    memcpy(out, xml, k);
    for (t = text; *t;) {
        const char *e = strchr(t, '\n');
        size_t l = e ? (size_t)(e - t) + 1 : strlen(t);
        memcpy(out + k, "    ", 4);
        memcpy(out + k + 4, t, l);
        k += 4 + l;
        t += l;
    }
    memcpy(out + k, at, n - (size_t)(at - xml) + 1);
    return out;
}

int cmd_xml(int argc, char **argv) {
    struct xml_args a;
    char *host_s = NULL, *flavor_s = NULL, *image_s = NULL, *limits_s = NULL, *xml = NULL;
    size_t host_n = 0, flavor_n = 0, image_n = 0, limits_n = 0;
    numafit_host_t *host = NULL;
    numafit_request_t *req = NULL;
    numafit_options_t *opt = NULL;
    numafit_placement_t *p = NULL;
    numafit_domconf_t *conf = NULL;
    numafit_error_t e;
    struct xml_pci pci = {NULL, NULL, NULL, NULL};
    struct cli_mix mix = {.n = 0};
    char *claim = NULL, *hostdev = NULL, *whole = NULL;
    int rc, status = XML_EXIT_ERROR;

    memset(&a, 0, sizeof(a));
    cli_fit_options_init(&a.fit);
    memset(&e, 0, sizeof(e));
    rc = parse_xml_args(argc, argv, &a);
    if (rc <= 0) {
        if (rc < 0)
            fprintf(stderr, "Try 'numafit xml --help'.\n");
        return rc < 0 ? XML_EXIT_USAGE : 0;
    }
    if ((rc = make_conf(&a, &conf)) < 0) {
        cli_nova_conf_free(&a.nc);
        return rc == -EIO ? XML_EXIT_ERROR : XML_EXIT_USAGE;
    }
    if (cli_mix_load(&mix, &a.fit, "numafit xml") < 0)
        goto out;
    if (a.host_spec) {
        char *text = cli_synthetic_host_text(a.host_spec, "xml");
        host_s = text ? strdup(text) : NULL;
        numafit_free(text);
        if (!host_s)
            goto out;
        host_n = strlen(host_s);
    }
    if ((!host_s && !(host_s = read_all(a.host, &host_n))) ||
        !(flavor_s = read_all(a.flavor, &flavor_n)) ||
        (a.image && !(image_s = read_all(a.image, &image_n))) ||
        (a.limits && !(limits_s = read_all(a.limits, &limits_n))))
        goto out;
    if (read_form(false, a.flavor, &flavor_s, &flavor_n) < 0 ||
        (image_s && read_form(true, a.image, &image_s, &image_n) < 0))
        goto out;
    if ((rc = numafit_host_new_from_json(host_s, host_n, 0, &host, &e)) < 0) {
        report(a.host ? a.host : a.host_spec, rc, &e);
        goto out;
    }
    if ((rc = cli_nova_conf_host(&a.nc, host, &e)) < 0) {
        report(a.nova_conf, rc, &e);
        goto out;
    }
    rc = cli_check_extra_specs(a.fit.profile, a.fit.no_xs_check, a.fit.xs_allow, flavor_s, flavor_n,
                               &e);
    if (rc >= 0)
        rc = numafit_request_new(flavor_s, flavor_n, image_s, image_n, a.fit.req_flags, &req, &e);
    if (rc < 0) {
        report(a.flavor, rc, &e);
        goto out;
    }
    if (a.pci_devices) {
        int prc = rc;
        if ((status = pci_setup(&a, flavor_s, flavor_n, image_s, image_n, &pci)) != 0)
            goto out;
        status = XML_EXIT_ERROR;
        rc = prc;
    }
    if (rc == 1) {
        int bad;
        rc = cli_options_new(&a.fit, limits_s, limits_n, &opt, &e, &bad);
        /* no --limits: those of a nova.conf, as fit takes them */
        if (rc == 0 && !a.limits && a.nc.text &&
            (rc = cli_nova_conf_limits(&a.nc, a.fit.profile == NUMAFIT_PROFILE_ZED, opt, &e)) < 0)
            a.limits = a.nova_conf;
        if (rc < 0) {
            if (bad == CLI_OPTIONS_BAD_LIMITS)
                report(a.limits, rc, &e);
            else
                fprintf(stderr, "numafit: %s\n", numafit_strerror(rc));
            goto out;
        }
        if (pci.pools)
            numafit_options_set_pci(opt, pci.pools, pci.reqs);
        rc = numafit_fit(host, req, opt, 0, &p, &e);
        if (rc < 0) {
            report("fit", rc, &e);
            goto out;
        }
        if (rc == 0) {
            report("does not fit", 0, &e);
            status = XML_EXIT_NOFIT;
            goto out;
        }
    }
    rc = numafit_domain_xml(
        host, req, p, flavor_s, flavor_n, image_s, image_n, conf,
        (a.domain ? NUMAFIT_DOMAIN_FULL : 0) | (a.exact ? NUMAFIT_DOMAIN_NOVA_EXACT : 0), &xml, &e);
    if (rc < 0) {
        report("domain XML", rc, &e);
        goto out;
    }
    if (pci.t) {
        /* the compute node's claim of particular devices, on the placement's cells */
        int64_t ids[NUMAFIT_MAX_CELLS];
        int nc = p ? numafit_placement_get_cell_count(p) : 0;
        for (int i = 0; i < nc; i++)
            ids[i] = numafit_placement_get_host_cell(p, (unsigned)i);
        rc = numafit_pci_tracker_claim(pci.t, host, pci.reqs, ids, (size_t)(nc > 0 ? nc : 0),
                                       &claim, &e);
        if (rc == -ENOSPC) {
            report("does not fit (PCI devices)", 0, &e);
            status = XML_EXIT_NOFIT;
            goto out;
        }
        if (rc < 0 ||
            (rc = numafit_domain_hostdev_xml(claim, strlen(claim), 0, &hostdev, &e)) < 0) {
            report("PCI devices", rc, &e);
            goto out;
        }
        if (a.domain && rc > 0 && !(whole = insert_devices(xml, hostdev))) {
            fprintf(stderr, "numafit: out of memory\n");
            goto out;
        }
        if (a.pci_claims && pci_save(a.pci_claims, pci.claims, claim) < 0)
            goto out;
    }
    fputs(whole ? whole : xml, stdout);
    if (!a.domain && hostdev && hostdev[0])
        printf("<!-- PCI devices -->\n%s", hostdev);
    if (!a.domain) {
        /* the device-level elements, as separate fragments */
        char *dev = NULL;
        rc = numafit_domain_disk_iotune_xml(flavor_s, flavor_n,
                                            a.exact ? NUMAFIT_DOMAIN_NOVA_EXACT : 0, &dev, &e);
        if (rc < 0) {
            report("disk iotune", rc, &e);
            goto out;
        }
        if (rc > 0)
            printf("<!-- disk -->\n%s", dev);
        numafit_free(dev);
        dev = NULL;
        rc = numafit_domain_interface_bandwidth_xml(
            flavor_s, flavor_n, a.exact ? NUMAFIT_DOMAIN_NOVA_EXACT : 0, &dev, &e);
        if (rc < 0) {
            report("interface bandwidth", rc, &e);
            goto out;
        }
        if (rc > 0)
            printf("<!-- interface -->\n%s", dev);
        numafit_free(dev);
    }
    status = 0; /* main() checks that standard output was written */
out:
    free(whole);
    numafit_free(xml);
    numafit_free(claim);
    numafit_free(hostdev);
    numafit_pci_tracker_free(pci.t);
    numafit_pci_pools_free(pci.pools);
    numafit_pci_requests_free(pci.reqs);
    json_decref(pci.claims);
    numafit_placement_free(p);
    numafit_options_free(opt);
    numafit_request_free(req);
    numafit_host_free(host);
    numafit_domconf_free(conf);
    cli_nova_conf_free(&a.nc);
    cli_mix_free(&mix);
    free(host_s);
    free(flavor_s);
    free(image_s);
    free(limits_s);
    return status;
}
