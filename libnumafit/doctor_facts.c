/* Host doctor, gathering facts: the kernel, its command line, CPUs, NUMA
 * memory and huge pages, hugetlbfs mounts, tuned and kvm_intel settings, read
 * from the files below the root with the bounded reader of rootfs.c. A file
 * that cannot be read is listed in host.unreadable, never fatal. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "doctor_internal.h"

#define NODES_MAX (NUMAFIT_CELL_ID_MAX + 1)
_Static_assert(NUMAFIT_CELL_ID_MAX == 1023, "the unreadable note of read_nodes() says 1023");

/* ------------------------------------------------------------ reading files */

/* Read root/rel into x->fs.buf (NUL-terminated, NULs replaced by spaces).
 * Returns the length, or -errno; every failure is listed in host.unreadable
 * unless it is ENOENT and quiet_enoent. */
int numafit__doctor_read_rel(struct numafit__doctor *x, const char *rel, bool quiet_enoent) {
    char why[NUMAFIT__ROOTFS_WHY_CAP];
    int r = numafit__rootfs_read(&x->fs, rel, why);
    if (r < 0) {
        if (r != -ENOENT || !quiet_enoent)
            numafit__doctor_unreadable(x, rel, why);
        return r;
    }
    for (int i = 0; i < r; i++)
        if (x->fs.buf[i] == '\0')
            x->fs.buf[i] = ' ';
    return r;
}

#define read_rel numafit__doctor_read_rel

int numafit__doctor_exists(struct numafit__doctor *x, const char *rel) {
    char path[NUMAFIT__ROOTFS_PATH_CAP];
    struct stat st;
    if (numafit__rootfs_path(&x->fs, rel, path) < 0)
        return -ENAMETOOLONG;
    if (lstat(path, &st) == 0)
        return 1;
    return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
}

int numafit__doctor_opendir(struct numafit__doctor *x, const char *rel, DIR **dir) {
    int r = numafit__rootfs_opendir(&x->fs, rel, dir);
    if (r == -ENOMEM)
        x->oom = true;
    return r;
}

/* The single unsigned number of a file. */
static int read_u64(struct numafit__doctor *x, const char *rel, bool quiet, uint64_t *out) {
    char *p;
    uint64_t v = 0;
    size_t nd = 0;
    int r = read_rel(x, rel, quiet);
    if (r < 0)
        return r;
    for (p = numafit__trim(x->fs.buf); *p >= '0' && *p <= '9' && nd < 19; p++, nd++)
        v = v * 10 + (uint64_t)(*p - '0');
    if (!nd || *p) {
        numafit__doctor_unreadable(x, rel, "not a number");
        return -EBADMSG;
    }
    *out = v;
    return 0;
}

/* A kernel cpu list file ("0-3,8-11\n", "" or "(null)" for none) into bits. */
int numafit__doctor_read_cpulist(struct numafit__doctor *x, const char *rel, bool quiet,
                                 uint64_t *bits) {
    char *s;
    int r = read_rel(x, rel, quiet);
    if (r < 0)
        return r;
    s = numafit__trim(x->fs.buf);
    if (!*s || !strcmp(s, "(null)")) {
        memset(bits, 0, NUMAFIT__CPU_WORDS * sizeof(uint64_t));
        return 0;
    }
    if (numafit__cpuspec_parse(s, bits, NULL) < 0) {
        numafit__doctor_unreadable(x, rel, "not a cpu list");
        return -EBADMSG;
    }
    return 0;
}

/* Sorted numbers N of the entries prefix<N>suffix of a directory (at most
 * max; N of at most 16 digits). */
static int list_dir(struct numafit__doctor *x, const char *rel, const char *prefix,
                    const char *suffix, uint64_t *out, uint32_t max, uint32_t *ret_n) {
    struct dirent *de;
    uint32_t n = 0;
    DIR *dir;
    int r = numafit__doctor_opendir(x, rel, &dir);
    *ret_n = 0;
    if (r < 0)
        return r;
    while ((de = readdir(dir))) {
        uint64_t v;
        size_t nd = numafit__rootfs_entry_number(de->d_name, prefix, suffix, &v);
        if (!nd || nd > 16)
            continue;
        if (n == max) {
            numafit__doctor_unreadable(x, rel, "too many entries, the rest ignored");
            break;
        }
        out[n++] = v;
    }
    closedir(dir);
    qsort(out, n, sizeof(*out), numafit__doctor_cmp_u64);
    *ret_n = n;
    return 0;
}

/* Linux memparse() of a size ("1G", "2M", "2048k", "1024M") into KiB; false
 * when malformed or not a whole number of KiB. */
static bool parse_size_kb(const char *s, size_t n, uint64_t *kb) {
    uint64_t v = 0;
    size_t i = 0, nd = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9' && nd < 15; i++, nd++)
        v = v * 10 + (uint64_t)(s[i] - '0');
    if (!nd)
        return false;
    if (i + 1 == n) {
        switch (s[i]) {
            case 'k':
            case 'K':
                *kb = v;
                return true;
            case 'm':
            case 'M':
                *kb = v << 10;
                return true;
            case 'g':
            case 'G':
                *kb = v << 20;
                return true;
            default:
                return false;
        }
    }
    if (i != n || v % 1024)
        return false;
    *kb = v / 1024;
    return true;
}

/* ------------------------------------------------------------ the host */

static void read_kernel(struct numafit__doctor *x) {
    uint64_t v;
    x->sys_realtime = -1;
    if (read_rel(x, "proc/sys/kernel/osrelease", false) >= 0) {
        const char *t = numafit__trim(x->fs.buf);
        bool good = *t && strlen(t) < sizeof(x->osrelease);
        for (const char *p = t; good && *p; p++)
            good = *p > 0x20 && *p < 0x7f;
        if (good)
            snprintf(x->osrelease, sizeof(x->osrelease), "%s", t);
        else
            numafit__doctor_unreadable(x, "proc/sys/kernel/osrelease", "not a kernel release");
    }
    if (read_u64(x, "sys/kernel/realtime", true, &v) == 0)
        x->sys_realtime = v == 1;
    /* PREEMPT_RT kernels: sys/kernel/realtime is 1 (mainline, RHEL), or the
     * release names an "rt" build: "3.10.0-1062.rt56.1022.el7.x86_64",
     * "6.1.0-18-rt-amd64", "5.15.0-1032-realtime". */
    x->preempt_rt = x->sys_realtime == 1;
    for (const char *p = x->osrelease; *p && !x->preempt_rt; p++) {
        if ((*p == '.' || *p == '-' || *p == '+') && p[1] == 'r' && p[2] == 't' &&
            (p[3] == '\0' || p[3] == '.' || p[3] == '-' || p[3] == '_' ||
             (p[3] >= '0' && p[3] <= '9')))
            x->preempt_rt = true;
        if ((*p == '.' || *p == '-') && !strncmp(p + 1, "realtime", 8))
            x->preempt_rt = true;
    }
}

/* A kernel parameter's cpu list; isolcpus may start with flags
 * ("isolcpus=nohz,domain,managed_irq,4-11"). */
static void cmdline_cpus(struct numafit__doctor *x, const char *name, const char *v, size_t n,
                         int which) {
    char tmp[4096];
    char *s = tmp;
    if (n >= sizeof(tmp)) {
        numafit__doctor_unreadable(x, "proc/cmdline", "a cpu list parameter is too long");
        return;
    }
    memcpy(tmp, v, n);
    tmp[n] = '\0';
    for (;;) {
        size_t k = strcspn(s, ",");
        if ((k == 4 && !strncmp(s, "nohz", 4)) || (k == 6 && !strncmp(s, "domain", 6)) ||
            (k == 11 && !strncmp(s, "managed_irq", 11)))
            s += k + (s[k] == ',');
        else
            break;
    }
    if (numafit__cpuspec_parse(s, x->b[which], NULL) < 0) {
        char why[96];
        snprintf(why, sizeof(why), "%s= is not a cpu list numafit can read", name);
        numafit__doctor_unreadable(x, "proc/cmdline", why);
        memset(x->b[which], 0, NUMAFIT__CPU_WORDS * sizeof(uint64_t));
        x->has[which] = false;
        return;
    }
    x->has[which] = true;
}

/* hugepages=: "16" or per node "0:8,1:8" (the sum); false when malformed. */
static bool parse_hugepages_count(const char *v, size_t vl, int64_t *ret_total) {
    int64_t total = 0;
    bool good = vl > 0;
    for (size_t i = 0; i < vl && good;) {
        int64_t num = 0;
        size_t nd = 0;
        for (; i < vl && v[i] >= '0' && v[i] <= '9' && nd < 15; i++, nd++)
            num = num * 10 + (v[i] - '0');
        if (!nd) {
            good = false;
        } else if (i < vl && v[i] == ':') {
            i++; /* a node id: the count follows */
            continue;
        } else {
            total += num;
            if (i < vl && v[i] == ',')
                i++;
            else if (i < vl)
                good = false;
        }
    }
    *ret_total = total;
    return good;
}

/* hugepages=N counts pages of the hugepagesz= before it, else of the default size. */
static void cmdline_hugepages(struct numafit__doctor *x, const char *v, size_t vl) {
    int64_t total;
    bool good = parse_hugepages_count(v, vl, &total);
    if (!good) {
        numafit__doctor_unreadable(x, "proc/cmdline", "hugepages= is not a count");
    } else if (x->ncmdpages && x->cmdpages[x->ncmdpages - 1].count < 0) {
        x->cmdpages[x->ncmdpages - 1].count = total;
    } else if (x->ncmdpages < PSIZES_MAX) {
        x->cmdpages[x->ncmdpages].size_kb = 0; /* the default size */
        x->cmdpages[x->ncmdpages++].count = total;
    }
}

static void cmdline_hugepagesz(struct numafit__doctor *x, const char *v, size_t vl) {
    uint64_t kb;
    if (parse_size_kb(v, vl, &kb)) {
        x->cmdpages[x->ncmdpages].size_kb = kb;
        x->cmdpages[x->ncmdpages++].count = -1;
    } else {
        numafit__doctor_unreadable(x, "proc/cmdline", "hugepagesz= is not a size");
    }
}

/* A short parameter value, kept when it is printable ASCII and fits. */
static void cmdline_word(char *out, size_t cap, const char *v, size_t vl) {
    bool good = vl > 0 && vl < cap;
    for (size_t i = 0; good && i < vl; i++)
        good = v[i] > 0x20 && v[i] < 0x7f;
    if (good) {
        memcpy(out, v, vl);
        out[vl] = '\0';
    } else {
        snprintf(out, cap, "?");
    }
}

/* One key=value parameter of the kernel command line. */
static void cmdline_param(struct numafit__doctor *x, const char *k, size_t kl, const char *v,
                          size_t vl) {
#define KEY(lit) (kl == sizeof(lit) - 1 && !strncmp(k, lit, kl))
    if (KEY("isolcpus"))
        cmdline_cpus(x, "isolcpus", v, vl, B_ISOLCPUS);
    else if (KEY("nohz_full"))
        cmdline_cpus(x, "nohz_full", v, vl, B_NOHZ);
    else if (KEY("rcu_nocbs"))
        cmdline_cpus(x, "rcu_nocbs", v, vl, B_RCU);
    else if (KEY("default_hugepagesz")) {
        if (!parse_size_kb(v, vl, &x->default_hpsz_kb))
            numafit__doctor_unreadable(x, "proc/cmdline", "default_hugepagesz= is not a size");
    } else if (KEY("hugepagesz") && x->ncmdpages < PSIZES_MAX) {
        cmdline_hugepagesz(x, v, vl);
    } else if (KEY("hugepages")) {
        cmdline_hugepages(x, v, vl);
    } else if (KEY("intel_idle.max_cstate")) {
        cmdline_word(x->cmd_intel_idle, sizeof(x->cmd_intel_idle), v, vl);
    } else if (KEY("processor.max_cstate")) {
        cmdline_word(x->cmd_processor_cstate, sizeof(x->cmd_processor_cstate), v, vl);
    } else if (KEY("idle")) {
        cmdline_word(x->cmd_idle, sizeof(x->cmd_idle), v, vl);
    } else if (KEY("intel_pstate")) {
        cmdline_word(x->cmd_pstate, sizeof(x->cmd_pstate), v, vl);
    }
#undef KEY
}

static void read_cmdline(struct numafit__doctor *x) {
    const char *p;
    if (read_rel(x, "proc/cmdline", false) < 0)
        return;
    x->has_cmdline = true;
    if (!(x->cmdline = numafit__strdup(numafit__trim(x->fs.buf)))) {
        x->oom = true;
        return;
    }
    for (p = x->cmdline; *p;) {
        const char *k, *v, *e;
        bool q = false;
        size_t kl, vl;
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        for (e = p; *e && (q || (*e != ' ' && *e != '\t')); e++)
            if (*e == '"')
                q = !q;
        k = p;
        v = memchr(p, '=', (size_t)(e - p));
        p = e;
        if (!v)
            continue;
        kl = (size_t)(v - k);
        v++;
        vl = (size_t)(e - v);
        if (vl >= 2 && v[0] == '"' && v[vl - 1] == '"') {
            v++;
            vl -= 2;
        }
        cmdline_param(x, k, kl, v, vl);
    }
}

static void read_cpus(struct numafit__doctor *x) {
    char rel[128], *s;
    int b = -1;
    bool any_topo = false;
    x->smt = -1;
    if (numafit__doctor_read_cpulist(x, "sys/devices/system/cpu/online", false, x->b[B_ONLINE]) ==
        0)
        x->has[B_ONLINE] = true;
    if (numafit__doctor_read_cpulist(x, "sys/devices/system/cpu/isolated", true, x->b[B_SYSISO]) ==
        0)
        x->has[B_SYSISO] = true;
    if (!x->has[B_NOHZ] && numafit__doctor_read_cpulist(x, "sys/devices/system/cpu/nohz_full", true,
                                                        x->b[B_NOHZ]) == 0)
        x->has[B_NOHZ] = !bempty(x->b[B_NOHZ]);
    /* hyper-threading: the sibling lists of the online CPUs */
    while (x->has[B_ONLINE] &&
           (b = numafit__bits_next(x->b[B_ONLINE], NUMAFIT__CPU_WORDS, b)) >= 0) {
        unsigned n;
        snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", b);
        if (numafit__doctor_read_cpulist(x, rel, true, x->b[B_TMP]) < 0)
            continue;
        any_topo = true;
        n = bcount(x->b[B_TMP]);
        if (n > x->threads_per_core)
            x->threads_per_core = n;
        bits_and(x->b[B_TMP], x->b[B_TMP], x->b[B_ONLINE]); /* online siblings only */
        if (bcount(x->b[B_TMP]) > 1)
            x->smt = 1;
    }
    if (any_topo) {
        if (x->smt < 0)
            x->smt = 0;
        return;
    }
    if (read_rel(x, "sys/devices/system/cpu/smt/active", true) >= 0) {
        s = numafit__trim(x->fs.buf);
        if (!strcmp(s, "1") || !strcmp(s, "0"))
            x->smt = s[0] == '1';
    }
    if (x->smt < 0 && read_rel(x, "sys/devices/system/cpu/smt/control", true) >= 0) {
        s = numafit__trim(x->fs.buf);
        if (!strcmp(s, "on"))
            x->smt = 1;
        else if (!strcmp(s, "off") || !strcmp(s, "forceoff") || !strcmp(s, "notsupported"))
            x->smt = 0;
    }
}

static void read_pages_dir(struct numafit__doctor *x, const char *dir, struct dpsize *ps,
                           uint32_t *nps) {
    uint64_t sizes[PSIZES_MAX];
    uint32_t n = 0;
    char rel[256];
    *nps = 0;
    if (list_dir(x, dir, "hugepages-", "kB", sizes, PSIZES_MAX, &n) < 0)
        return;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t c;
        snprintf(rel, sizeof(rel), "%s/hugepages-%llukB/nr_hugepages", dir,
                 (unsigned long long)sizes[i]);
        if (read_u64(x, rel, false, &c) < 0)
            continue;
        ps[*nps].size_kb = sizes[i];
        ps[*nps].count = c;
        snprintf(rel, sizeof(rel), "%s/hugepages-%llukB/free_hugepages", dir,
                 (unsigned long long)sizes[i]);
        ps[*nps].has_free = read_u64(x, rel, true, &ps[*nps].free) == 0;
        (*nps)++;
    }
}

static void read_nodes(struct numafit__doctor *x) {
    uint64_t *ids = numafit__malloc(NODES_MAX * sizeof(uint64_t));
    uint32_t n = 0;
    char rel[160];
    if (!ids) {
        x->oom = true;
        return;
    }
    if (list_dir(x, "sys/devices/system/node", "node", "", ids, NODES_MAX, &n) < 0 || !n)
        goto out;
    if (!(x->nodes = numafit__calloc(n, sizeof(*x->nodes)))) {
        x->oom = true;
        goto out;
    }
    for (uint32_t i = 0; i < n && !x->oom; i++) {
        struct dnode *d = &x->nodes[x->nnodes];
        char *p;
        if (ids[i] > NUMAFIT_CELL_ID_MAX) {
            /* not a silent gap in the report */
            snprintf(rel, sizeof(rel), "sys/devices/system/node/node%llu",
                     (unsigned long long)ids[i]);
            numafit__doctor_unreadable(x, rel, "node number above the limit 1023");
            continue;
        }
        x->nnodes++;
        d->id = (uint32_t)ids[i];
        if (!(d->cpus = numafit__malloc(NUMAFIT__CPU_WORDS * sizeof(uint64_t)))) {
            x->oom = true;
            break;
        }
        snprintf(rel, sizeof(rel), "sys/devices/system/node/node%u/cpulist", d->id);
        if (numafit__doctor_read_cpulist(x, rel, false, d->cpus) < 0) {
            numafit__free(d->cpus);
            d->cpus = NULL;
        }
        snprintf(rel, sizeof(rel), "sys/devices/system/node/node%u/meminfo", d->id);
        if (read_rel(x, rel, false) >= 0 && (p = strstr(x->fs.buf, "MemTotal:"))) {
            size_t nd = 0;
            for (p += 9; *p == ' ' || *p == '\t'; p++)
                ;
            for (; *p >= '0' && *p <= '9' && nd < 19; p++, nd++)
                d->memtotal_kib = d->memtotal_kib * 10 + (uint64_t)(*p - '0');
            d->has_mem = nd > 0;
        }
        snprintf(rel, sizeof(rel), "sys/devices/system/node/node%u/hugepages", d->id);
        read_pages_dir(x, rel, d->ps, &d->npsizes);
    }
out:
    numafit__free(ids);
}

static void read_memory(struct numafit__doctor *x) {
    char *line;
    read_nodes(x);
    read_pages_dir(x, "sys/kernel/mm/hugepages", x->global, &x->nglobal);
    if (read_rel(x, "proc/meminfo", false) >= 0 && (line = strstr(x->fs.buf, "Hugepagesize:"))) {
        char *p = line + 13;
        uint64_t v = 0;
        size_t nd = 0;
        while (*p == ' ' || *p == '\t')
            p++;
        for (; *p >= '0' && *p <= '9' && nd < 19; p++, nd++)
            v = v * 10 + (uint64_t)(*p - '0');
        if (nd && !strncmp(p, " kB", 3))
            x->meminfo_hpsz_kb = v;
    }
    if (read_rel(x, "proc/mounts", false) < 0)
        return;
    x->has_mounts = true;
    for (char *l = x->fs.buf, *next; *l; l = next) {
        char *f[4] = {NULL, NULL, NULL, NULL}, *save = NULL, *tok;
        int nf = 0;
        next = l + strcspn(l, "\n");
        if (*next)
            *next++ = '\0';
        for (tok = strtok_r(l, " \t", &save); tok && nf < 4; tok = strtok_r(NULL, " \t", &save))
            f[nf++] = tok;
        if (nf < 3 || strcmp(f[2], "hugetlbfs") || x->nmounts >= 16)
            continue;
        x->mount_kb[x->nmounts] = x->meminfo_hpsz_kb;
        for (char *o = f[3], *osave = NULL, *opt = o ? strtok_r(o, ",", &osave) : NULL; opt;
             opt = strtok_r(NULL, ",", &osave)) {
            uint64_t kb;
            if (!strncmp(opt, "pagesize=", 9) && parse_size_kb(opt + 9, strlen(opt + 9), &kb))
                x->mount_kb[x->nmounts] = kb;
        }
        x->nmounts++;
    }
}

/* vm.nr_hugepages in one sysctl file (the last setting wins). */
static void sysctl_file(struct numafit__doctor *x, const char *rel) {
    if (read_rel(x, rel, true) < 0)
        return;
    for (char *l = x->fs.buf, *next; *l; l = next) {
        char *k, *v, *end;
        unsigned long long n;
        next = l + strcspn(l, "\n");
        if (*next)
            *next++ = '\0';
        k = numafit__trim(l);
        if (*k == '-')
            k++; /* "-key = value": errors ignored */
        if (!(v = strchr(k, '=')) || *k == '#' || *k == ';')
            continue;
        *v++ = '\0';
        k = numafit__trim(k);
        if (strcmp(k, "vm.nr_hugepages") && strcmp(k, "vm/nr_hugepages"))
            continue;
        v = numafit__trim(v);
        errno = 0;
        n = strtoull(v, &end, 10);
        if (*v < '0' || *v > '9' || *end || errno || n > INT64_MAX) {
            numafit__doctor_unreadable(x, rel, "vm.nr_hugepages is not a count");
            continue;
        }
        x->sysctl_hugepages = (int64_t)n;
        snprintf(x->sysctl_file, sizeof(x->sysctl_file), "%s", rel);
    }
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* etc/sysctl.d/\*.conf in name order, then etc/sysctl.conf (as sysctl
 * --system applies them: the last one wins). */
static void read_sysctl(struct numafit__doctor *x) {
    char *names[64], rel[NAME_MAX + 32];
    size_t n = 0;
    struct dirent *de;
    DIR *dir;
    x->sysctl_hugepages = -1;
    if (numafit__doctor_opendir(x, "etc/sysctl.d", &dir) == 0) {
        while ((de = readdir(dir))) {
            size_t l = strlen(de->d_name);
            if (l < 6 || de->d_name[0] == '.' || strcmp(de->d_name + l - 5, ".conf"))
                continue;
            if (n == sizeof(names) / sizeof(names[0])) {
                numafit__doctor_unreadable(x, "etc/sysctl.d", "too many entries, the rest ignored");
                break;
            }
            if (!(names[n] = numafit__strdup(de->d_name))) {
                x->oom = true;
                break;
            }
            n++;
        }
        closedir(dir);
        qsort(names, n, sizeof(names[0]), cmp_str);
        for (size_t i = 0; i < n; i++) {
            snprintf(rel, sizeof(rel), "etc/sysctl.d/%s", names[i]);
            sysctl_file(x, rel);
            numafit__free(names[i]);
        }
    }
    sysctl_file(x, "etc/sysctl.conf");
}

static bool is_isolating_profile(const char *p) {
    return !strcmp(p, "realtime") || !strcmp(p, "realtime-virtual-host") ||
           !strcmp(p, "realtime-virtual-guest") || !strcmp(p, "cpu-partitioning");
}

static void read_tuned(struct numafit__doctor *x) {
    char prof[256], rel[320];
    if (read_rel(x, "etc/tuned/active_profile", true) >= 0) {
        x->has_tuned = true;
        snprintf(x->tuned_profile, sizeof(x->tuned_profile), "%s", numafit__trim(x->fs.buf));
    }
    if (read_rel(x, "sys/module/kvm_intel/parameters/preemption_timer", true) >= 0) {
        char *s = numafit__trim(x->fs.buf);
        if (!strcmp(s, "Y") || !strcmp(s, "1"))
            x->preemption_timer = 1;
        else if (!strcmp(s, "N") || !strcmp(s, "0"))
            x->preemption_timer = 0;
        else
            numafit__doctor_unreadable(x, "sys/module/kvm_intel/parameters/preemption_timer",
                                       "not Y or N");
    }
    /* active_profile may name several profiles, separated by spaces */
    snprintf(prof, sizeof(prof), "%s", x->tuned_profile);
    for (char *save = NULL, *t = strtok_r(prof, " \t", &save); t;
         t = strtok_r(NULL, " \t", &save)) {
        if (!strncmp(t, "realtime", 8))
            x->tuned_rt = true;
        if (!is_isolating_profile(t))
            continue;
        x->tuned_isolating = true;
        snprintf(rel, sizeof(rel), "etc/tuned/%s-variables.conf", t);
        if (read_rel(x, rel, true) < 0)
            continue;
        for (char *l = x->fs.buf, *next; *l; l = next) {
            char *val;
            next = l + strcspn(l, "\n");
            if (*next)
                *next++ = '\0';
            l = numafit__trim(l);
            if (strncmp(l, "isolated_cores", 14))
                continue;
            for (val = l + 14; *val == ' ' || *val == '\t'; val++)
                ;
            if (*val != '=')
                continue;
            val = numafit__trim(val + 1);
            if (strchr(val, '$') || numafit__cpuspec_parse(val, x->b[B_TMP], NULL) < 0) {
                numafit__doctor_unreadable(x, rel, "isolated_cores is not a plain cpu list");
                continue;
            }
            memcpy(x->b[B_TUNED], x->b[B_TMP], NUMAFIT__CPU_WORDS * sizeof(uint64_t));
            x->has[B_TUNED] = true;
        }
    }
}

void numafit__doctor_read_host(struct numafit__doctor *x) {
    read_kernel(x);
    read_cmdline(x);
    read_cpus(x);
    read_memory(x);
    read_sysctl(x);
    read_tuned(x);
    numafit__doctor_read_tuning(x);
}
