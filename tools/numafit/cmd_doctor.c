/*
 * numafit doctor: check a compute host for pinned, huge-page backed and
 * real-time guests (CPU isolation against nova's CPU sets, hyper-threading,
 * huge pages and hugetlbfs, the real-time kernel and tuned profile, NUMA
 * balance) and print each problem with its fix.
 *
 *   numafit doctor [--root DIR] [--nova-conf FILE] [--realtime] [--domain FILE]...
 *                  [--text|--json]
 *
 * --domain (repeatable) also compares running guests (virsh dumpxml) with
 * the host and with what the host's nova would give them.
 *
 * Exit status: 0 no error found, 1 errors found, 2 the host could not be
 * checked (usage, a --root that is not a host's root, an unreadable
 * --nova-conf, a --domain that cannot be read, out of memory); a failed write of the report exits 1
 * as in every command.
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
#include <numafit/doctor.h>

#include "cli.h"
#include "cli_io.h"

static void usage(FILE *o) {
    fprintf(o, "usage: numafit doctor [--root DIR] [--nova-conf FILE] [--realtime]\n"
               "                      [--domain FILE]... [--text | --json]\n"
               "\n"
               "Check a compute host for pinned, huge-page and real-time guests: CPU isolation\n"
               "against nova's cpu_dedicated_set / cpu_shared_set / vcpu_pin_set,\n"
               "hyper-threading, huge pages and hugetlbfs, the real-time kernel and tuned\n"
               "profile, NUMA balance, KVM, transparent huge pages, KSM, CPU frequency and\n"
               "C-states, I/O schedulers, vhost_net. Each finding comes with its fix.\n"
               "\n"
               "  --root DIR        read dev/, proc/, sys/ and etc/ below DIR (default /); DIR\n"
               "                    must hold proc/ or sys/\n"
               "  --nova-conf FILE  nova.conf to check (default DIR/etc/nova/nova.conf if it\n"
               "                    exists; - = stdin)\n"
               "  --realtime        real-time flavors (hw:cpu_realtime) are to be offered\n"
               "  --domain FILE     also check a running guest: its libvirt domain XML\n"
               "                    (virsh dumpxml NAME; - = stdin) against the host's CPUs,\n"
               "                    nodes, huge pages, isolation and nova.conf, and against\n"
               "                    what this host's nova would give it (repeatable, at\n"
               "                    most 64)\n"
               "  --text            print the report as text (the default on a terminal)\n"
               "  --json            print the JSON report (the default otherwise)\n"
               "\n"
               "Exit status: 0 no errors, 1 errors found, 2 could not check (usage, bad\n"
               "--root, --nova-conf or --domain).\n");
}

static void print_wrapped(FILE *o, const char *indent, const char *text) {
    const int width = 78 - (int)strlen(indent);
    const char *p = text;
    while (*p) {
        int n = (int)strlen(p), cut = n;
        if (n > width) {
            for (cut = width; cut > 0 && p[cut] != ' '; cut--)
                ;
            if (cut == 0)
                for (cut = width; p[cut] && p[cut] != ' '; cut++)
                    ;
        }
        fprintf(o, "%s%.*s\n", indent, cut, p);
        p += cut;
        while (*p == ' ')
            p++;
    }
}

static const char *jstr(const json_t *o, const char *k, const char *dflt) {
    const char *s = json_string_value(json_object_get(o, k));
    return s && *s ? s : dflt;
}

static const char *jbool(const json_t *o, const char *k, const char *yes, const char *no) {
    const json_t *v = json_object_get(o, k);
    return json_is_true(v) ? yes : json_is_false(v) ? no : "unknown";
}

/* THP, KSM, power, KVM, block schedulers */
static void print_tuning(FILE *o, const json_t *h) {
    const json_t *t = json_object_get(h, "transparent_hugepage"), *k = json_object_get(h, "ksm");
    const json_t *p = json_object_get(h, "power"), *kvm = json_object_get(h, "kvm"), *v;
    const char *key;
    fprintf(o, "  THP              enabled %s, defrag %s\n", jstr(t, "enabled", "unknown"),
            jstr(t, "defrag", "unknown"));
    v = json_object_get(k, "run");
    fprintf(o, "  KSM              %s%s%s\n",
            !json_is_integer(v)          ? "unknown"
            : json_integer_value(v) == 1 ? "running"
                                         : "off",
            *jstr(k, "enabled_by", "") ? ", enabled by " : "", jstr(k, "enabled_by", ""));
    if (!json_is_string(json_object_get(p, "not_performance")))
        fprintf(o, "  cpufreq          unknown\n");
    else if (*jstr(p, "not_performance", ""))
        fprintf(o, "  cpufreq          %s on CPUs %s\n", jstr(p, "other_governors", "?"),
                jstr(p, "not_performance", ""));
    else
        fprintf(o, "  cpufreq          performance\n");
    if (json_is_string(json_object_get(p, "deep_idle_cpus")))
        fprintf(o, "  deep C-states    %s%s%s\n", jstr(p, "deep_idle_states", "none"),
                *jstr(p, "deep_idle_cpus", "") ? " on CPUs " : "", jstr(p, "deep_idle_cpus", ""));
    fprintf(o, "  KVM              /dev/kvm %s, module %s, nested %s\n",
            jbool(kvm, "dev_kvm", "present", "missing"),
            json_is_null(json_object_get(kvm, "module")) ? "unknown" : jstr(kvm, "module", "none"),
            jbool(kvm, "nested", "on", "off"));
    json_object_foreach(json_object_get(h, "block_schedulers"), key, v)
        fprintf(o, "  I/O scheduler    %s: %s\n", key, json_string_value(v));
}

/* The running domains: their shape and what nova would give them. */
static void print_domains(FILE *o, const json_t *domains) {
    const json_t *d, *cell, *nova;
    size_t i, k;
    json_array_foreach(domains, i, d) {
        const char *rt = jstr(d, "realtime_vcpus", "");
        fprintf(o, "  domain           %s: %lld vCPUs (%s), %lld MiB\n", jstr(d, "name", "?"),
                (long long)json_integer_value(json_object_get(d, "vcpus")),
                jstr(d, "cpu_policy", "?"),
                (long long)json_integer_value(json_object_get(d, "memory_mib")));
        json_array_foreach(json_object_get(d, "cells"), k, cell) {
            const char *pg = jstr(cell, "page_size", NULL);
            fprintf(o, "    cell %lld         vCPUs %s on CPUs %s, memory on node %s%s%s\n",
                    (long long)json_integer_value(json_object_get(cell, "id")),
                    jstr(cell, "vcpus", "?"), jstr(cell, "cpus", "none"),
                    jstr(cell, "memory_nodes", "any"), pg ? ", pages " : "", pg ? pg : "");
        }
        fprintf(o, "    emulator       %s (%s)%s%s\n", jstr(d, "emulatorpin", "not pinned"),
                jstr(d, "emulator_threads", "?"), *rt ? ", real-time vCPUs " : "", rt);
        nova = json_object_get(d, "nova");
        if (!nova)
            continue;
        if (json_is_false(json_object_get(nova, "accepted")))
            fprintf(o, "    nova           refuses this shape\n");
        else if (json_is_false(json_object_get(nova, "numa")))
            fprintf(o, "    nova           no NUMA topology (nothing to place)\n");
        else if (json_is_false(json_object_get(nova, "fits")))
            fprintf(o, "    nova           does not fit the empty host\n");
        else if (json_is_true(json_object_get(nova, "fits")))
            fprintf(o, "    nova           fits the empty host%s\n",
                    json_is_true(json_object_get(nova, "same_nodes")) &&
                            json_is_true(json_object_get(nova, "same_pins"))
                        ? ", placed as the domain is"
                    : json_is_true(json_object_get(nova, "same_nodes")) ? ", same nodes, other pins"
                                                                        : ", on other nodes");
    }
}

static void print_report(FILE *o, const json_t *report) {
    static const char *const sevs[] = {"error", "warning", "info"};
    static const char *const heads[] = {"Errors", "Warnings", "Notes"};
    const json_t *h = json_object_get(report, "host");
    const json_t *findings = json_object_get(report, "findings");
    const json_t *v;
    size_t i;
    const char *s;
    fprintf(o, "Host %s\n", json_string_value(json_object_get(h, "root")));
    s = json_string_value(json_object_get(h, "kernel"));
    fprintf(o, "  kernel           %s%s\n", s ? s : "unknown",
            json_is_true(json_object_get(h, "preempt_rt")) ? " (PREEMPT_RT)" : "");
    s = json_string_value(json_object_get(h, "online"));
    fprintf(o, "  online CPUs      %s, hyper-threading %s\n", s ? s : "unknown",
            json_is_true(json_object_get(h, "smt"))    ? "on"
            : json_is_false(json_object_get(h, "smt")) ? "off"
                                                       : "unknown");
    s = json_string_value(json_object_get(h, "isolated"));
    fprintf(o, "  isolated CPUs    %s\n", s ? s : "none");
    s = json_string_value(json_object_get(h, "tuned_profile"));
    fprintf(o, "  tuned profile    %s\n", s ? s : "none");
    json_array_foreach(json_object_get(h, "nodes"), i, v) {
        const char *key;
        json_t *cnt;
        s = json_string_value(json_object_get(v, "cpus"));
        fprintf(o, "  node %-3lld        CPUs %s",
                (long long)json_integer_value(json_object_get(v, "id")), s && *s ? s : "none");
        json_object_foreach(json_object_get(v, "hugepages"), key, cnt)
            fprintf(o, ", %lld x %s", (long long)json_integer_value(cnt), key);
        fprintf(o, "\n");
    }
    if (json_is_true(json_object_get(h, "nova_conf"))) {
        const char *d = json_string_value(json_object_get(h, "cpu_dedicated_set"));
        const char *sh = json_string_value(json_object_get(h, "cpu_shared_set"));
        const char *pin = json_string_value(json_object_get(h, "vcpu_pin_set"));
        fprintf(o, "  nova             cpu_dedicated_set %s, cpu_shared_set %s%s%s\n",
                d ? d : "unset", sh ? sh : "unset", pin ? ", vcpu_pin_set " : "", pin ? pin : "");
    }
    fprintf(o, "  real-time checks %s\n",
            json_is_true(json_object_get(h, "realtime")) ? "on" : "off (use --realtime)");
    print_tuning(o, h);
    json_array_foreach(json_object_get(h, "unreadable"), i, v)
        fprintf(o, "  not read         %s\n", json_string_value(v));
    print_domains(o, json_object_get(report, "domains"));
    json_array_foreach(json_object_get(h, "not_checked"), i, v)
        fprintf(o, "  not checked      %s\n", json_string_value(v));
    if (!json_array_size(findings)) {
        fprintf(o, "\nNo findings.\n");
        return;
    }
    for (size_t k = 0; k < 3; k++) {
        size_t n = 0;
        json_array_foreach(findings, i, v) n +=
            !strcmp(json_string_value(json_object_get(v, "severity")), sevs[k]);
        if (!n)
            continue;
        fprintf(o, "\n%s (%zu)\n", heads[k], n);
        json_array_foreach(findings, i, v) {
            if (strcmp(json_string_value(json_object_get(v, "severity")), sevs[k]))
                continue;
            fprintf(o, "\n  [%s] %s\n", json_string_value(json_object_get(v, "id")),
                    json_string_value(json_object_get(v, "title")));
            print_wrapped(o, "    ", json_string_value(json_object_get(v, "detail")));
            fprintf(o, "    Fix:\n");
            print_wrapped(o, "      ", json_string_value(json_object_get(v, "fix")));
        }
    }
}

int cmd_doctor(int argc, char **argv) {
    static const struct option opts[] = {
        {"root", required_argument, NULL, 'r'}, {"nova-conf", required_argument, NULL, 'n'},
        {"realtime", no_argument, NULL, 't'},   {"domain", required_argument, NULL, 'd'},
        {"json", no_argument, NULL, 'j'},       {"text", no_argument, NULL, 'x'},
        {"help", no_argument, NULL, 'h'},       {NULL, 0, NULL, 0},
    };
    const char *root = NULL, *conf_path = NULL, *dom_path[NUMAFIT_DOCTOR_DOMAINS_MAX];
    char *conf = NULL, *out = NULL, defconf[4096], why[256];
    char *dom[NUMAFIT_DOCTOR_DOMAINS_MAX] = {NULL};
    size_t conf_len = 0, dom_len[NUMAFIT_DOCTOR_DOMAINS_MAX], ndom = 0;
    bool json = false, text = false;
    unsigned flags = 0;
    numafit_error_t e;
    int c, rc;

    cli_error_clear(&e);
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
            case 'r':
                root = optarg;
                break;
            case 'n':
                conf_path = optarg;
                break;
            case 't':
                flags |= NUMAFIT_DOCTOR_REALTIME;
                break;
            case 'd':
                if (ndom == NUMAFIT_DOCTOR_DOMAINS_MAX) {
                    fprintf(stderr, "numafit doctor: more than %u --domain\n",
                            NUMAFIT_DOCTOR_DOMAINS_MAX);
                    return CLI_EXIT_USAGE;
                }
                dom_path[ndom++] = optarg;
                break;
            case 'j':
                json = true;
                text = false;
                break;
            case 'x':
                text = true;
                json = false;
                break;
            case 'h':
                usage(stdout);
                return 0;
            default:
                usage(stderr);
                return CLI_EXIT_USAGE;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "numafit doctor: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (!conf_path) {
        snprintf(defconf, sizeof(defconf), "%s/etc/nova/nova.conf",
                 root && strcmp(root, "/") ? root : "");
        if (access(defconf, R_OK) == 0)
            conf_path = defconf;
    }
    /* a regular file (a directory or FIFO is refused, never read) or "-" */
    if (conf_path && !(conf = cli_read_input("numafit doctor", "--nova-conf", conf_path,
                                             NUMAFIT_DOCTOR_CONF_MAX, true, &conf_len, NULL)))
        return CLI_EXIT_USAGE;
    for (size_t i = 0; i < ndom; i++) {
        for (size_t k = 0; k < i; k++)
            if (!strcmp(dom_path[i], "-") && !strcmp(dom_path[k], "-")) {
                fprintf(stderr, "numafit doctor: --domain - (stdin) given twice\n");
                rc = CLI_EXIT_USAGE;
                goto domains_out;
            }
        if (!(dom[i] = cli_read_input("numafit doctor", "--domain", dom_path[i], NUMAFIT_INPUT_MAX,
                                      true, &dom_len[i], NULL))) {
            rc = CLI_EXIT_USAGE;
            goto domains_out;
        }
    }
    if (!json && !text && !isatty(STDOUT_FILENO))
        json = true;
    rc = numafit_doctor_domains(root, conf, conf_len, (const char *const *)dom, dom_len, ndom,
                                flags | (json ? NUMAFIT_DOCTOR_INDENT : 0), &out, &e);
    if (rc < 0) {
        unsigned bad = 0;
        /* a domain's error names it as domains[I]: say which file */
        if (sscanf(e.where, "domains[%u]", &bad) == 1 && bad < ndom)
            cli_error("numafit doctor", dom_path[bad], rc, &e, 0);
        else
            cli_error("numafit doctor", NULL, rc, &e, 0);
        rc = CLI_EXIT_USAGE;
        goto domains_out;
    }
    rc = rc > 0 ? 1 : 0;
domains_out:
    free(conf);
    for (size_t i = 0; i < ndom; i++)
        free(dom[i]);
    if (!out)
        return rc;
    if (json) {
        fputs(out, stdout);
        fputc('\n', stdout);
    } else {
        json_error_t je;
        json_t *report = json_loads(out, 0, &je);
        if (!report) {
            cli_json_error(&je, why, sizeof(why));
            fprintf(stderr, "numafit doctor: %s\n", why);
            numafit_free(out);
            return CLI_EXIT_USAGE;
        }
        print_report(stdout, report);
        json_decref(report);
    }
    numafit_free(out);
    return rc;
}
