/* Host doctor: read a compute host's /proc, /sys, tuned settings and nova.conf
 * below a caller-given root and report what stands between it and pinned,
 * huge-page backed (optionally real-time) guests, each problem with its fix.
 * The checks and their sources are described in doc/doctor.md. This file has
 * the entry point and the report; doctor_facts.c gathers the facts (every
 * file read with a bound; what cannot be read is listed, never fatal),
 * ini.c reads nova.conf, doctor_checks.c turns both into findings. */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "doctor_internal.h"

#define DOCTOR_FLAGS (NUMAFIT_DOCTOR_REALTIME | NUMAFIT_DOCTOR_INDENT)

static const char *const sev_name[] = {"error", "warning", "info"};

/* ------------------------------------------------------------ report helpers */

bool numafit__doctor_ok_json(struct numafit__doctor *x, int rc) {
    if (rc)
        x->oom = true;
    return rc == 0;
}

/* A JSON string; text that is not UTF-8 (garbage files, nova.conf values)
 * is kept with every byte outside printable ASCII replaced by '?'. */
json_t *numafit__doctor_js(struct numafit__doctor *x, const char *s) {
    json_t *v = json_string(s);
    if (!v) {
        char *c = numafit__strdup(s);
        if (c) {
            for (char *p = c; *p; p++)
                if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
                    *p = '?';
            v = json_string(c);
            numafit__free(c);
        }
    }
    if (!v)
        x->oom = true;
    return v;
}

static void set_str(struct numafit__doctor *x, json_t *o, const char *k, const char *s) {
    numafit__doctor_ok_json(x,
                            json_object_set_new(o, k, s ? numafit__doctor_js(x, s) : json_null()));
}

void numafit__doctor_unreadable(struct numafit__doctor *x, const char *rel, const char *why) {
    char line[DOCTOR_PATH_CAP + 64];
    snprintf(line, sizeof(line), "%s: %s", rel, why);
    numafit__doctor_ok_json(x, json_array_append_new(x->unreadable, numafit__doctor_js(x, line)));
}

void numafit__doctor_not_checked(struct numafit__doctor *x, const char *what, const char *why) {
    char line[DOCTOR_PATH_CAP + 128];
    snprintf(line, sizeof(line), "%s: %s", what, why);
    numafit__doctor_ok_json(x, json_array_append_new(x->not_checked, numafit__doctor_js(x, line)));
}

/* A cpu list as nova writes it ("4-11"), alive until NSCRATCH later calls. */
const char *numafit__doctor_fmt(struct numafit__doctor *x, const uint64_t *bits) {
    char *s = numafit__cpuspec_format(bits, NUMAFIT__CPU_WORDS);
    unsigned i = x->nscratch++ % NSCRATCH;
    numafit__free(x->scratch[i]);
    x->scratch[i] = s;
    if (!s)
        x->oom = true;
    return s ? s : "?";
}

void numafit__doctor_add(struct numafit__doctor *x, const char *id, int sev, const char *title,
                         const char *fix, const char *detail_fmt, ...)
    __attribute__((format(printf, 6, 7)));

void numafit__doctor_add(struct numafit__doctor *x, const char *id, int sev, const char *title,
                         const char *fix, const char *detail_fmt, ...) {
    va_list ap;
    json_t *f;
    char *detail;
    int n;
    va_start(ap, detail_fmt);
    n = vsnprintf(NULL, 0, detail_fmt, ap);
    va_end(ap);
    if (n < 0 || !(detail = numafit__malloc((size_t)n + 1))) {
        x->oom = true;
        return;
    }
    va_start(ap, detail_fmt);
    vsnprintf(detail, (size_t)n + 1, detail_fmt, ap);
    va_end(ap);
    f = json_object();
    if (!f) {
        x->oom = true;
        numafit__free(detail);
        return;
    }
    set_str(x, f, "id", id);
    set_str(x, f, "severity", sev_name[sev]);
    set_str(x, f, "title", title);
    set_str(x, f, "detail", detail);
    set_str(x, f, "fix", fix);
    numafit__free(detail);
    numafit__doctor_ok_json(x, json_array_append_new(x->findings, f));
    if (sev == SEV_ERROR)
        x->nerrors++;
}

const char *numafit__doctor_size_name(uint64_t kb, char *out, size_t cap) {
    if (kb >= KIB_1G && kb % KIB_1G == 0)
        snprintf(out, cap, "%lluG", (unsigned long long)(kb / KIB_1G));
    else if (kb >= 1024 && kb % 1024 == 0)
        snprintf(out, cap, "%lluM", (unsigned long long)(kb / 1024));
    else
        snprintf(out, cap, "%lluK", (unsigned long long)kb);
    return out;
}

int numafit__doctor_cmp_u64(const void *a, const void *b) {
    uint64_t p = *(const uint64_t *)a, q = *(const uint64_t *)b;
    return p < q ? -1 : p > q;
}

/* ------------------------------------------------------------ summary */

static void put(struct numafit__doctor *x, json_t *o, const char *k, json_t *v) {
    numafit__doctor_ok_json(x, json_object_set_new(o, k, v));
}

static json_t *set_or_null(struct numafit__doctor *x, int which) {
    return x->has[which] ? numafit__doctor_js(x, numafit__doctor_fmt(x, x->b[which])) : json_null();
}

static json_t *node_json(struct numafit__doctor *x, const struct dnode *d) {
    json_t *n = json_object(), *pages = json_object();
    char nm[32];
    if (!n || !pages) {
        json_decref(n);
        json_decref(pages);
        return NULL;
    }
    put(x, n, "id", json_integer(d->id));
    put(x, n, "cpus",
        d->cpus ? numafit__doctor_js(x, numafit__doctor_fmt(x, d->cpus)) : json_null());
    put(x, n, "memory_mib",
        d->has_mem ? json_integer((json_int_t)(d->memtotal_kib / 1024)) : json_null());
    for (uint32_t k = 0; k < d->npsizes; k++)
        put(x, pages, numafit__doctor_size_name(d->ps[k].size_kb, nm, sizeof(nm)),
            json_integer((json_int_t)d->ps[k].count));
    put(x, n, "hugepages", pages);
    pages = NULL;
    for (uint32_t k = 0; k < d->npsizes; k++) {
        if (!d->ps[k].has_free)
            continue;
        if (!pages && !(pages = json_object())) {
            x->oom = true;
            break;
        }
        put(x, pages, numafit__doctor_size_name(d->ps[k].size_kb, nm, sizeof(nm)),
            json_integer((json_int_t)d->ps[k].free));
    }
    if (pages)
        put(x, n, "hugepages_free", pages);
    return n;
}

/* host.nodes and host.hugetlbfs_mounts */
static void summarize_memory(struct numafit__doctor *x) {
    json_t *h = x->host, *nodes = json_array(), *mounts = json_array();
    char nm[32];
    if (!nodes || !mounts) {
        json_decref(nodes);
        json_decref(mounts);
        x->oom = true;
        return;
    }
    for (uint32_t i = 0; i < x->nnodes; i++) {
        json_t *n = node_json(x, &x->nodes[i]);
        if (!n) {
            x->oom = true;
            break;
        }
        numafit__doctor_ok_json(x, json_array_append_new(nodes, n));
    }
    put(x, h, "nodes", nodes);
    for (uint32_t i = 0; i < x->nmounts; i++)
        numafit__doctor_ok_json(
            x,
            json_array_append_new(
                mounts, numafit__doctor_js(x, x->mount_kb[i] ? numafit__doctor_size_name(
                                                                   x->mount_kb[i], nm, sizeof(nm))
                                                             : "unknown")));
    put(x, h, "hugetlbfs_mounts", mounts);
}

static json_t *str_or_null(struct numafit__doctor *x, const char *s) {
    return s && *s ? numafit__doctor_js(x, s) : json_null();
}

static json_t *tristate(int v) {
    return v < 0 ? json_null() : json_boolean(v);
}

/* An object; NULL (and x->oom) when memory ran out. */
static json_t *new_obj(struct numafit__doctor *x) {
    json_t *o = json_object();
    if (!o)
        x->oom = true;
    return o;
}

/* host.transparent_hugepage, ksm, power, kvm, block_schedulers, vhost_net */
static void summarize_tuning(struct numafit__doctor *x) {
    json_t *h = x->host, *o;
    static const struct {
        const char *key;
        size_t off;
    } cmd[] = {
        {"intel_idle.max_cstate", offsetof(struct numafit__doctor, cmd_intel_idle)},
        {"processor.max_cstate", offsetof(struct numafit__doctor, cmd_processor_cstate)},
        {"idle", offsetof(struct numafit__doctor, cmd_idle)},
        {"intel_pstate", offsetof(struct numafit__doctor, cmd_pstate)},
    };
    put(x, h, "sysctl_nr_hugepages",
        x->sysctl_hugepages < 0 ? json_null() : json_integer((json_int_t)x->sysctl_hugepages));
    if ((o = new_obj(x))) {
        put(x, o, "enabled", str_or_null(x, x->thp_enabled));
        put(x, o, "defrag", str_or_null(x, x->thp_defrag));
    }
    put(x, h, "transparent_hugepage", o ? o : json_null());
    if ((o = new_obj(x))) {
        put(x, o, "run", x->ksm_run < 0 ? json_null() : json_integer(x->ksm_run));
        put(x, o, "enabled_by", str_or_null(x, x->ksm_service));
    }
    put(x, h, "ksm", o ? o : json_null());
    if ((o = new_obj(x))) {
        json_t *c = new_obj(x);
        for (size_t i = 0; c && i < sizeof(cmd) / sizeof(cmd[0]); i++) {
            const char *v = (const char *)x + cmd[i].off;
            if (*v)
                put(x, c, cmd[i].key, numafit__doctor_js(x, v));
        }
        put(x, o, "cmdline", c ? c : json_null());
        put(x, o, "intel_pstate", str_or_null(x, x->pstate_status));
        put(x, o, "cpufreq_cpus",
            x->has[B_GOVERNOR] ? numafit__doctor_js(x, numafit__doctor_fmt(x, x->b[B_GOVERNOR]))
                               : json_null());
        put(x, o, "not_performance",
            x->has[B_GOVERNOR] ? numafit__doctor_js(x, numafit__doctor_fmt(x, x->b[B_NOTPERF]))
                               : json_null());
        put(x, o, "other_governors",
            x->has[B_GOVERNOR] ? numafit__doctor_js(x, x->governors) : json_null());
        put(x, o, "cpuidle_cpus",
            x->has[B_CPUIDLE] ? numafit__doctor_js(x, numafit__doctor_fmt(x, x->b[B_CPUIDLE]))
                              : json_null());
        put(x, o, "deep_idle_cpus",
            x->has[B_CPUIDLE] ? numafit__doctor_js(x, numafit__doctor_fmt(x, x->b[B_DEEPIDLE]))
                              : json_null());
        put(x, o, "deep_idle_states",
            x->has[B_CPUIDLE] ? numafit__doctor_js(x, x->deep_states) : json_null());
    }
    put(x, h, "power", o ? o : json_null());
    if ((o = new_obj(x))) {
        put(x, o, "dev_kvm", tristate(x->dev_kvm));
        put(x, o, "module", x->mod_kvm < 0 ? json_null() : str_or_null(x, x->kvm_vendor));
        put(x, o, "nested", tristate(x->kvm_nested));
    }
    put(x, h, "kvm", o ? o : json_null());
    if ((o = new_obj(x)))
        for (uint32_t i = 0; i < x->nblock; i++)
            put(x, o, x->block[i].name, numafit__doctor_js(x, x->block[i].sched));
    put(x, h, "block_schedulers", o ? o : json_null());
    put(x, h, "vhost_net", tristate(x->vhost_net));
}

static void summarize(struct numafit__doctor *x) {
    json_t *h = x->host;
    set_str(x, h, "root", x->fs.root[0] ? x->fs.root : "/");
    set_str(x, h, "kernel", x->osrelease[0] ? x->osrelease : NULL);
    put(x, h, "preempt_rt", json_boolean(x->preempt_rt));
    put(x, h, "online", set_or_null(x, B_ONLINE));
    put(x, h, "smt", x->smt < 0 ? json_null() : json_boolean(x->smt));
    put(x, h, "threads_per_core",
        x->threads_per_core ? json_integer(x->threads_per_core) : json_null());
    put(x, h, "isolcpus", set_or_null(x, B_ISOLCPUS));
    put(x, h, "nohz_full", set_or_null(x, B_NOHZ));
    put(x, h, "rcu_nocbs", set_or_null(x, B_RCU));
    set_str(x, h, "tuned_profile", x->has_tuned ? x->tuned_profile : NULL);
    put(x, h, "tuned_isolated_cores", set_or_null(x, B_TUNED));
    put(x, h, "isolated", set_or_null(x, B_ISOLATED));
    summarize_memory(x);
    put(x, h, "kvm_intel_preemption_timer",
        x->preemption_timer < 0 ? json_null() : json_boolean(x->preemption_timer));
    put(x, h, "nova_conf", json_boolean(x->has_conf));
    put(x, h, "cpu_dedicated_set", set_or_null(x, B_DEDICATED));
    put(x, h, "cpu_shared_set", set_or_null(x, B_SHARED));
    put(x, h, "vcpu_pin_set", set_or_null(x, B_PINSET));
    put(x, h, "realtime", json_boolean(x->realtime));
    put(x, h, "realtime_because", json_incref(x->rt_reasons));
    summarize_tuning(x);
}

/* ------------------------------------------------------------ entry point */

static void doctor_free(struct numafit__doctor *x) {
    for (uint32_t i = 0; i < x->ndoms; i++)
        numafit__ddom_clear(&x->doms[i]);
    numafit__free(x->doms);
    numafit_host_free(x->fit_host);
    json_decref(x->domains);
    for (unsigned i = 0; i < NSCRATCH; i++)
        numafit__free(x->scratch[i]);
    for (uint32_t i = 0; i < x->nnodes; i++)
        numafit__free(x->nodes[i].cpus);
    numafit__free(x->nodes);
    numafit__free(x->cmdline);
    numafit__ini_clear(&x->ini);
    numafit__rootfs_clear(&x->fs);
    numafit__free(x->b[0]);
    json_decref(x->host);
    json_decref(x->unreadable);
    json_decref(x->findings);
    json_decref(x->rt_reasons);
    json_decref(x->not_checked);
}

static int check_args(const char *root, const char *nova_conf, size_t nova_conf_len,
                      const char *const *domains, const size_t *lens, size_t ndomains,
                      unsigned flags, char **ret_json, numafit_error_t *err) {
    bool bad_domains = ndomains && (!domains || !lens);
    for (size_t i = 0; !bad_domains && i < ndomains; i++)
        bad_domains = !domains[i];
    if (!ret_json || (flags & ~(unsigned)DOCTOR_FLAGS) || (!nova_conf && nova_conf_len) ||
        bad_domains || (root && strlen(root) > DOCTOR_PATH_CAP - 512)) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "", NULL, "invalid argument");
        return -EINVAL;
    }
    if (ndomains > NUMAFIT_DOCTOR_DOMAINS_MAX) {
        numafit__error_set(err, NUMAFIT_E_RANGE, -1, "domains", NULL,
                           "%zu domains: at most %u are checked at once", ndomains,
                           NUMAFIT_DOCTOR_DOMAINS_MAX);
        return -ERANGE;
    }
    return numafit__ini_check_text(nova_conf, nova_conf_len, NUMAFIT_DOCTOR_CONF_MAX, "nova_conf",
                                   err);
}

/* The root must be a directory holding proc/ or sys/ (a captured host or
 * "/"): a wrong --root is an error, not a host without findings. */
static int check_root(const char *root, numafit_error_t *err) {
    char path[DOCTOR_PATH_CAP];
    const char *r = root && *root ? root : "/";
    struct stat st;
    bool any = false;
    int e = 0;
    if (stat(r, &st) < 0)
        e = -errno;
    else if (!S_ISDIR(st.st_mode))
        e = -ENOTDIR;
    if (e < 0) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "root", NULL, "%s: %s", r,
                           e == -ENOTDIR ? "not a directory" : strerror(-e));
        return e;
    }
    for (int i = 0; i < 2 && !any; i++) {
        snprintf(path, sizeof(path), "%s/%s", r, i ? "sys" : "proc");
        any = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
    }
    if (!any) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "root", NULL,
                           "%s holds neither proc/ nor sys/: not a host's root", r);
        return -ENOENT;
    }
    return 0;
}

static int doctor_init(struct numafit__doctor *x, const char *root, unsigned flags) {
    memset(x, 0, sizeof(*x));
    x->flags = flags;
    x->preemption_timer = -1;
    numafit__rootfs_init(&x->fs, root, DOCTOR_FILE_MAX, 0);
    x->b[0] = numafit__calloc((size_t)B__N * NUMAFIT__CPU_WORDS, sizeof(uint64_t));
    x->host = json_object();
    x->unreadable = json_array();
    x->findings = json_array();
    x->rt_reasons = json_array();
    x->not_checked = json_array();
    if (!x->fs.buf || !x->b[0] || !x->host || !x->unreadable || !x->findings || !x->rt_reasons ||
        !x->not_checked)
        return -ENOMEM;
    for (int i = 1; i < B__N; i++)
        x->b[i] = x->b[0] + (size_t)i * NUMAFIT__CPU_WORDS;
    return 0;
}

/* The report as JSON text, or NULL (out of memory). */
static char *report_json(struct numafit__doctor *x) {
    json_t *report;
    char *out = NULL;
    numafit__doctor_ok_json(x, json_object_set(x->host, "unreadable", x->unreadable));
    numafit__doctor_ok_json(x, json_object_set(x->host, "not_checked", x->not_checked));
    if (x->oom)
        return NULL;
    report = json_pack("{sOsO}", "host", x->host, "findings", x->findings);
    if (report && x->ndoms &&
        json_object_set(report, "domains", x->domains ? x->domains : json_null()) < 0)
        x->oom = true;
    if (x->oom) {
        json_decref(report);
        return NULL;
    }
    if (report)
        out =
            numafit__json_dump(report, x->flags & NUMAFIT_DOCTOR_INDENT ? NUMAFIT_JSON_INDENT : 0);
    json_decref(report);
    return out;
}

/* Parse the domains into x->doms (before anything of the host is read: a
 * domain that cannot be read is an error of the call). */
static int read_domains(struct numafit__doctor *x, const char *const *domains, const size_t *lens,
                        size_t n, numafit_error_t *err) {
    if (!n)
        return 0;
    if (!(x->doms = numafit__calloc(n, sizeof(*x->doms))) || !(x->domains = json_array())) {
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
        return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        int r = numafit__ddom_parse(&x->doms[i], (unsigned)i, domains[i], lens[i], err);
        if (r < 0)
            return r;
        x->ndoms++;
    }
    return 0;
}

static int doctor_run(const char *root, const char *nova_conf, size_t nova_conf_len,
                      const char *const *domains, const size_t *lens, size_t ndomains,
                      unsigned flags, char **ret_json, numafit_error_t *err) {
    struct numafit__doctor x;
    char *out = NULL;
    int r;

    numafit__error_clear(err);
    if ((r = check_args(root, nova_conf, nova_conf_len, domains, lens, ndomains, flags, ret_json,
                        err)) < 0 ||
        (r = check_root(root, err)) < 0)
        return r;
    if ((r = doctor_init(&x, root, flags)) == 0 &&
        (r = read_domains(&x, domains, lens, ndomains, err)) == 0) {
        numafit__doctor_read_host(&x);
        x.has_conf = nova_conf != NULL;
        x.conf_text = nova_conf;
        x.conf_len = nova_conf_len;
        if (nova_conf && numafit__ini_parse(&x.ini, nova_conf, nova_conf_len) < 0)
            x.oom = true;
        numafit__doctor_check(&x);
        numafit__doctor_check_domains(&x);
        summarize(&x);
        if ((out = report_json(&x))) {
            *ret_json = out;
            r = x.nerrors;
        } else {
            r = -ENOMEM;
        }
    }
    if (r == -ENOMEM)
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
    doctor_free(&x);
    return r;
}

NUMAFIT_EXPORT int numafit_doctor(const char *root, const char *nova_conf, size_t nova_conf_len,
                                  unsigned flags, char **ret_json, numafit_error_t *err) {
    return doctor_run(root, nova_conf, nova_conf_len, NULL, NULL, 0, flags, ret_json, err);
}

NUMAFIT_EXPORT int numafit_doctor_domains(const char *root, const char *nova_conf,
                                          size_t nova_conf_len, const char *const *domains,
                                          const size_t *domain_lens, size_t ndomains,
                                          unsigned flags, char **ret_json, numafit_error_t *err) {
    return doctor_run(root, nova_conf, nova_conf_len, domains, domain_lens, ndomains, flags,
                      ret_json, err);
}
