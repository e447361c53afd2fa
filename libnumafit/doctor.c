/* Host doctor: read a compute host's /proc, /sys, tuned settings and nova.conf
 * below a caller-given root and report what stands between it and pinned,
 * huge-page backed (optionally real-time) guests, each problem with its fix.
 * The checks and their sources are described in doc/doctor.md. Every file is
 * read with a bound; what cannot be read is listed, never fatal. */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include <numafit/doctor.h>

#include "discover_internal.h"
#include "private.h"

#define FILE_MAX  (256u << 10) /* bytes read from one file */
#define PATH_CAP  4096
#define NODES_MAX (NUMAFIT_CELL_ID_MAX + 1)
_Static_assert(NUMAFIT_CELL_ID_MAX == 1023, "the unreadable note of read_nodes() says 1023");
#define PSIZES_MAX   8u    /* huge page sizes per node */
#define INI_MAX      4096u /* nova.conf entries */
#define NSCRATCH     8     /* formatted cpu lists alive at once */
#define KIB_1G       1048576ull
#define DOCTOR_FLAGS (NUMAFIT_DOCTOR_REALTIME | NUMAFIT_DOCTOR_INDENT)

enum { SEV_ERROR, SEV_WARNING, SEV_INFO };
static const char *const sev_name[] = {"error", "warning", "info"};

/* The bitmaps the checks use, each NUMAFIT__CPU_WORDS words. */
enum {
    B_ONLINE,
    B_ISOLCPUS,  /* isolcpus= on the command line */
    B_SYSISO,    /* sys/devices/system/cpu/isolated */
    B_NOHZ,      /* nohz_full= */
    B_RCU,       /* rcu_nocbs= */
    B_TUNED,     /* tuned isolated_cores */
    B_ISOLATED,  /* union of the above four isolation sources */
    B_DEDICATED, /* cpu_dedicated_set */
    B_SHARED,    /* cpu_shared_set */
    B_PINSET,    /* vcpu_pin_set */
    B_PINNED,    /* the CPUs nova pins guests to: dedicated, else vcpu_pin_set */
    B_SIBLESS,   /* pinned CPUs whose thread siblings are not pinned CPUs */
    B_TMP,
    B_TMP2,
    B__N
};

struct dpsize {
    uint64_t size_kb;
    uint64_t count;
};

struct dnode {
    uint32_t id;
    uint64_t *cpus; /* NUMAFIT__CPU_WORDS words, NULL = no cpulist */
    bool has_mem;
    uint64_t memtotal_kib;
    uint32_t npsizes;
    struct dpsize ps[PSIZES_MAX];
};

struct ini_ent {
    const char *section;
    const char *key;
    const char *value;
    unsigned line;
};

struct dctx {
    const char *root;
    unsigned flags;
    char *buf; /* FILE_MAX + 1 bytes */
    uint64_t *b[B__N];
    bool has[B__N];
    json_t *host;
    json_t *unreadable;
    json_t *findings;
    int nerrors;
    bool oom;
    char *scratch[NSCRATCH];
    unsigned nscratch;
    /* kernel */
    char osrelease[128];
    int sys_realtime; /* -1 unknown */
    bool preempt_rt;
    bool has_cmdline;
    char *cmdline;
    uint64_t default_hpsz_kb; /* default_hugepagesz= */
    uint32_t ncmdpages;
    struct {
        uint64_t size_kb; /* 0 = the default size */
        int64_t count;    /* hugepages= after it, -1 = none */
    } cmdpages[PSIZES_MAX];
    /* CPUs */
    int smt; /* -1 unknown, 0 off, 1 on */
    uint32_t threads_per_core;
    /* memory */
    uint32_t nnodes;
    struct dnode *nodes;
    uint32_t nglobal;
    struct dpsize global[PSIZES_MAX]; /* sys/kernel/mm/hugepages */
    uint64_t meminfo_hpsz_kb;         /* proc/meminfo Hugepagesize */
    bool has_mounts;
    uint32_t nmounts;
    uint64_t mount_kb[16]; /* hugetlbfs mounts' page sizes (0 = unknown) */
    /* kvm, tuned */
    int preemption_timer; /* -1 unknown */
    bool has_tuned;
    char tuned_profile[256];
    bool tuned_rt;        /* a realtime* profile is active */
    bool tuned_isolating; /* a profile that applies isolated_cores is active */
    /* nova.conf */
    bool has_conf;
    char *conf; /* a copy, cut into entries */
    uint32_t nent;
    struct ini_ent *ent;
    int conf_syntax_line; /* first line oslo cannot parse, 0 = none */
    /* conclusions */
    bool realtime;
    json_t *rt_reasons;
};

/* ------------------------------------------------------------ small helpers */

static bool ok_json(struct dctx *x, int rc) {
    if (rc)
        x->oom = true;
    return rc == 0;
}

/* A JSON string; text that is not UTF-8 (garbage files, nova.conf values)
 * is kept with every byte outside printable ASCII replaced by '?'. */
static json_t *js(struct dctx *x, const char *s) {
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

static void set_str(struct dctx *x, json_t *o, const char *k, const char *s) {
    ok_json(x, json_object_set_new(o, k, s ? js(x, s) : json_null()));
}

static void unreadable(struct dctx *x, const char *rel, const char *why) {
    char line[PATH_CAP + 64];
    snprintf(line, sizeof(line), "%s: %s", rel, why);
    ok_json(x, json_array_append_new(x->unreadable, js(x, line)));
}

/* A cpu list as nova writes it ("4-11"), alive until NSCRATCH later calls. */
static const char *fmt(struct dctx *x, const uint64_t *bits) {
    char *s = numafit__cpuspec_format(bits, NUMAFIT__CPU_WORDS);
    unsigned i = x->nscratch++ % NSCRATCH;
    numafit__free(x->scratch[i]);
    x->scratch[i] = s;
    if (!s)
        x->oom = true;
    return s ? s : "?";
}

static void add(struct dctx *x, const char *id, int sev, const char *title, const char *fix,
                const char *detail_fmt, ...) __attribute__((format(printf, 6, 7)));

static void add(struct dctx *x, const char *id, int sev, const char *title, const char *fix,
                const char *detail_fmt, ...) {
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
    ok_json(x, json_array_append_new(x->findings, f));
    if (sev == SEV_ERROR)
        x->nerrors++;
}

static void bits_and(uint64_t *d, const uint64_t *a, const uint64_t *b) {
    for (unsigned i = 0; i < NUMAFIT__CPU_WORDS; i++)
        d[i] = a[i] & b[i];
}

static void bits_andnot(uint64_t *d, const uint64_t *a, const uint64_t *b) {
    for (unsigned i = 0; i < NUMAFIT__CPU_WORDS; i++)
        d[i] = a[i] & ~b[i];
}

static void bits_or(uint64_t *d, const uint64_t *a) {
    for (unsigned i = 0; i < NUMAFIT__CPU_WORDS; i++)
        d[i] |= a[i];
}

static unsigned bcount(const uint64_t *a) {
    return numafit__bits_count(a, NUMAFIT__CPU_WORDS);
}

static bool bempty(const uint64_t *a) {
    return numafit__bits_empty(a, NUMAFIT__CPU_WORDS);
}

static char *trim(char *s) {
    char *e;
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
        *--e = '\0';
    return s;
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

static const char *size_name(uint64_t kb, char *out, size_t cap) {
    if (kb >= KIB_1G && kb % KIB_1G == 0)
        snprintf(out, cap, "%lluG", (unsigned long long)(kb / KIB_1G));
    else if (kb >= 1024 && kb % 1024 == 0)
        snprintf(out, cap, "%lluM", (unsigned long long)(kb / 1024));
    else
        snprintf(out, cap, "%lluK", (unsigned long long)kb);
    return out;
}

/* ------------------------------------------------------------ reading files */

/* Read root/rel into x->buf (NUL-terminated, NULs replaced by spaces).
 * Returns the length, or -errno; every failure is listed in host.unreadable
 * unless it is ENOENT and quiet_enoent. */
static int read_rel(struct dctx *x, const char *rel, bool quiet_enoent) {
    char path[PATH_CAP];
    struct stat st;
    size_t len = 0;
    int fd, n = snprintf(path, sizeof(path), "%s/%s", x->root, rel);
    if (n < 0 || n >= PATH_CAP) {
        unreadable(x, rel, "path too long");
        return -ENAMETOOLONG;
    }
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        int r = -errno;
        if (r != -ENOENT || !quiet_enoent)
            unreadable(x, rel, r == -ENOENT ? "missing" : "cannot open");
        return r;
    }
    /* a FIFO would read as empty (or as what a writer sends), a device
     * without end: only regular files (proc and sysfs files are) */
    if (fstat(fd, &st) < 0) {
        int r = -errno;
        close(fd);
        unreadable(x, rel, "cannot stat");
        return r;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        unreadable(x, rel, "not a regular file");
        return -EINVAL;
    }
    for (;;) {
        ssize_t got = read(fd, x->buf + len, FILE_MAX + 1 - len);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            close(fd);
            unreadable(x, rel, "read error");
            return -EIO;
        }
        if (got == 0)
            break;
        len += (size_t)got;
        if (len > FILE_MAX) {
            close(fd);
            unreadable(x, rel, "larger than 256 KiB");
            return -EFBIG;
        }
    }
    close(fd);
    for (size_t i = 0; i < len; i++)
        if (x->buf[i] == '\0')
            x->buf[i] = ' ';
    x->buf[len] = '\0';
    return (int)len;
}

/* The single unsigned number of a file. */
static int read_u64(struct dctx *x, const char *rel, bool quiet, uint64_t *out) {
    char *p;
    uint64_t v = 0;
    size_t nd = 0;
    int r = read_rel(x, rel, quiet);
    if (r < 0)
        return r;
    for (p = trim(x->buf); *p >= '0' && *p <= '9' && nd < 19; p++, nd++)
        v = v * 10 + (uint64_t)(*p - '0');
    if (!nd || *p) {
        unreadable(x, rel, "not a number");
        return -EBADMSG;
    }
    *out = v;
    return 0;
}

/* A kernel cpu list file ("0-3,8-11\n", "" or "(null)" for none) into bits. */
static int read_cpulist(struct dctx *x, const char *rel, bool quiet, uint64_t *bits) {
    char *s;
    int r = read_rel(x, rel, quiet);
    if (r < 0)
        return r;
    s = trim(x->buf);
    if (!*s || !strcmp(s, "(null)")) {
        memset(bits, 0, NUMAFIT__CPU_WORDS * sizeof(uint64_t));
        return 0;
    }
    if (numafit__cpuspec_parse(s, bits, NULL) < 0) {
        unreadable(x, rel, "not a cpu list");
        return -EBADMSG;
    }
    return 0;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t p = *(const uint64_t *)a, q = *(const uint64_t *)b;
    return p < q ? -1 : p > q;
}

/* Sorted numbers N of the entries prefix<N>suffix of a directory (at most max). */
static int list_dir(struct dctx *x, const char *rel, const char *prefix, const char *suffix,
                    uint64_t *out, uint32_t max, uint32_t *ret_n) {
    char path[PATH_CAP];
    size_t pl = strlen(prefix), sl = strlen(suffix);
    struct dirent *de;
    uint32_t n = 0;
    DIR *dir;
    int len = snprintf(path, sizeof(path), "%s/%s", x->root, rel);
    *ret_n = 0;
    if (len < 0 || len >= PATH_CAP)
        return -ENAMETOOLONG;
    if (!(dir = opendir(path))) {
        if (errno == ENOMEM)
            x->oom = true; /* not a missing directory: the report would be wrong */
        return -errno;
    }
    while ((de = readdir(dir))) {
        const char *s = de->d_name;
        size_t l = strlen(s), nd = 0;
        uint64_t v = 0;
        if (l <= pl + sl || strncmp(s, prefix, pl) || strcmp(s + l - sl, suffix))
            continue;
        for (size_t i = pl; i < l - sl; i++, nd++) {
            if (s[i] < '0' || s[i] > '9' || nd > 15) {
                nd = 0;
                break;
            }
            v = v * 10 + (uint64_t)(s[i] - '0');
        }
        if (!nd)
            continue;
        if (n == max) {
            unreadable(x, rel, "too many entries, the rest ignored");
            break;
        }
        out[n++] = v;
    }
    closedir(dir);
    qsort(out, n, sizeof(*out), cmp_u64);
    *ret_n = n;
    return 0;
}

/* ------------------------------------------------------------ the host */

static void read_kernel(struct dctx *x) {
    uint64_t v;
    x->sys_realtime = -1;
    if (read_rel(x, "proc/sys/kernel/osrelease", false) >= 0) {
        const char *t = trim(x->buf);
        bool good = *t && strlen(t) < sizeof(x->osrelease);
        for (const char *p = t; good && *p; p++)
            good = *p > 0x20 && *p < 0x7f;
        if (good)
            snprintf(x->osrelease, sizeof(x->osrelease), "%s", t);
        else
            unreadable(x, "proc/sys/kernel/osrelease", "not a kernel release");
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
static void cmdline_cpus(struct dctx *x, const char *name, const char *v, size_t n, int which) {
    char tmp[4096];
    char *s = tmp;
    if (n >= sizeof(tmp)) {
        unreadable(x, "proc/cmdline", "a cpu list parameter is too long");
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
        unreadable(x, "proc/cmdline", why);
        memset(x->b[which], 0, NUMAFIT__CPU_WORDS * sizeof(uint64_t));
        x->has[which] = false;
        return;
    }
    x->has[which] = true;
}

static void read_cmdline(struct dctx *x) {
    const char *p;
    if (read_rel(x, "proc/cmdline", false) < 0)
        return;
    x->has_cmdline = true;
    if (!(x->cmdline = numafit__strdup(trim(x->buf)))) {
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
#define KEY(lit) (kl == sizeof(lit) - 1 && !strncmp(k, lit, kl))
        if (KEY("isolcpus"))
            cmdline_cpus(x, "isolcpus", v, vl, B_ISOLCPUS);
        else if (KEY("nohz_full"))
            cmdline_cpus(x, "nohz_full", v, vl, B_NOHZ);
        else if (KEY("rcu_nocbs"))
            cmdline_cpus(x, "rcu_nocbs", v, vl, B_RCU);
        else if (KEY("default_hugepagesz")) {
            if (!parse_size_kb(v, vl, &x->default_hpsz_kb))
                unreadable(x, "proc/cmdline", "default_hugepagesz= is not a size");
        } else if (KEY("hugepagesz") && x->ncmdpages < PSIZES_MAX) {
            uint64_t kb;
            if (parse_size_kb(v, vl, &kb)) {
                x->cmdpages[x->ncmdpages].size_kb = kb;
                x->cmdpages[x->ncmdpages++].count = -1;
            } else {
                unreadable(x, "proc/cmdline", "hugepagesz= is not a size");
            }
        } else if (KEY("hugepages")) {
            /* "16" or per node "0:8,1:8" */
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
            if (!good) {
                unreadable(x, "proc/cmdline", "hugepages= is not a count");
            } else if (x->ncmdpages && x->cmdpages[x->ncmdpages - 1].count < 0) {
                x->cmdpages[x->ncmdpages - 1].count = total;
            } else if (x->ncmdpages < PSIZES_MAX) {
                x->cmdpages[x->ncmdpages].size_kb = 0; /* the default size */
                x->cmdpages[x->ncmdpages++].count = total;
            }
        }
#undef KEY
    }
}

static void read_cpus(struct dctx *x) {
    char rel[128], *s;
    int b = -1;
    bool any_topo = false;
    x->smt = -1;
    if (read_cpulist(x, "sys/devices/system/cpu/online", false, x->b[B_ONLINE]) == 0)
        x->has[B_ONLINE] = true;
    if (read_cpulist(x, "sys/devices/system/cpu/isolated", true, x->b[B_SYSISO]) == 0)
        x->has[B_SYSISO] = true;
    if (!x->has[B_NOHZ] &&
        read_cpulist(x, "sys/devices/system/cpu/nohz_full", true, x->b[B_NOHZ]) == 0)
        x->has[B_NOHZ] = !bempty(x->b[B_NOHZ]);
    /* hyper-threading: the sibling lists of the online CPUs */
    while (x->has[B_ONLINE] &&
           (b = numafit__bits_next(x->b[B_ONLINE], NUMAFIT__CPU_WORDS, b)) >= 0) {
        unsigned n;
        snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", b);
        if (read_cpulist(x, rel, true, x->b[B_TMP]) < 0)
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
        s = trim(x->buf);
        if (!strcmp(s, "1") || !strcmp(s, "0"))
            x->smt = s[0] == '1';
    }
    if (x->smt < 0 && read_rel(x, "sys/devices/system/cpu/smt/control", true) >= 0) {
        s = trim(x->buf);
        if (!strcmp(s, "on"))
            x->smt = 1;
        else if (!strcmp(s, "off") || !strcmp(s, "forceoff") || !strcmp(s, "notsupported"))
            x->smt = 0;
    }
}

static void read_pages_dir(struct dctx *x, const char *dir, struct dpsize *ps, uint32_t *nps) {
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
        ps[(*nps)++].count = c;
    }
}

static void read_nodes(struct dctx *x) {
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
            unreadable(x, rel, "node number above the limit 1023");
            continue;
        }
        x->nnodes++;
        d->id = (uint32_t)ids[i];
        if (!(d->cpus = numafit__malloc(NUMAFIT__CPU_WORDS * sizeof(uint64_t)))) {
            x->oom = true;
            break;
        }
        snprintf(rel, sizeof(rel), "sys/devices/system/node/node%u/cpulist", d->id);
        if (read_cpulist(x, rel, false, d->cpus) < 0) {
            numafit__free(d->cpus);
            d->cpus = NULL;
        }
        snprintf(rel, sizeof(rel), "sys/devices/system/node/node%u/meminfo", d->id);
        if (read_rel(x, rel, false) >= 0 && (p = strstr(x->buf, "MemTotal:"))) {
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

static void read_memory(struct dctx *x) {
    char *line;
    read_nodes(x);
    read_pages_dir(x, "sys/kernel/mm/hugepages", x->global, &x->nglobal);
    if (read_rel(x, "proc/meminfo", false) >= 0 && (line = strstr(x->buf, "Hugepagesize:"))) {
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
    for (char *l = x->buf, *next; *l; l = next) {
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

static bool is_isolating_profile(const char *p) {
    return !strcmp(p, "realtime") || !strcmp(p, "realtime-virtual-host") ||
           !strcmp(p, "realtime-virtual-guest") || !strcmp(p, "cpu-partitioning");
}

static void read_tuned(struct dctx *x) {
    char prof[256], rel[320];
    if (read_rel(x, "etc/tuned/active_profile", true) >= 0) {
        x->has_tuned = true;
        snprintf(x->tuned_profile, sizeof(x->tuned_profile), "%s", trim(x->buf));
    }
    if (read_rel(x, "sys/module/kvm_intel/parameters/preemption_timer", true) >= 0) {
        char *s = trim(x->buf);
        if (!strcmp(s, "Y") || !strcmp(s, "1"))
            x->preemption_timer = 1;
        else if (!strcmp(s, "N") || !strcmp(s, "0"))
            x->preemption_timer = 0;
        else
            unreadable(x, "sys/module/kvm_intel/parameters/preemption_timer", "not Y or N");
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
        for (char *l = x->buf, *next; *l; l = next) {
            char *val;
            next = l + strcspn(l, "\n");
            if (*next)
                *next++ = '\0';
            l = trim(l);
            if (strncmp(l, "isolated_cores", 14))
                continue;
            for (val = l + 14; *val == ' ' || *val == '\t'; val++)
                ;
            if (*val != '=')
                continue;
            val = trim(val + 1);
            if (strchr(val, '$') || numafit__cpuspec_parse(val, x->b[B_TMP], NULL) < 0) {
                unreadable(x, rel, "isolated_cores is not a plain cpu list");
                continue;
            }
            memcpy(x->b[B_TUNED], x->b[B_TMP], NUMAFIT__CPU_WORDS * sizeof(uint64_t));
            x->has[B_TUNED] = true;
        }
    }
}

/* ------------------------------------------------------------ nova.conf */

static const char *conf_get(const struct dctx *x, const char *section, const char *key) {
    const char *v = NULL;
    for (uint32_t i = 0; i < x->nent; i++)
        if (!strcmp(x->ent[i].section, section) && !strcmp(x->ent[i].key, key))
            v = x->ent[i].value; /* the last one wins, as in oslo.config */
    return v;
}

/* A small INI reader with oslo.config's rules: [section] lines, key = value
 * or key: value, '#' and ';' comment lines, indented continuation lines,
 * one pair of matching quotes around a value removed. */
static void parse_conf(struct dctx *x, const char *text, size_t len) {
    const char *section = "";
    char *p, *next;
    unsigned line = 0;
    x->has_conf = true;
    if (!(x->conf = numafit__malloc(len + 1)) ||
        !(x->ent = numafit__calloc(INI_MAX, sizeof(*x->ent)))) {
        x->oom = true;
        return;
    }
    memcpy(x->conf, text, len);
    x->conf[len] = '\0';
    for (p = x->conf; *p; p = next) {
        char *eq, *k, *v;
        size_t vl;
        line++;
        next = p + strcspn(p, "\n");
        if (*next)
            *next++ = '\0';
        if (*p == ' ' || *p == '\t') {
            /* continuation of the previous value (oslo joins with '\n') */
            char *t = trim(p);
            if (!*t)
                continue;
            if (x->nent && x->ent[x->nent - 1].line == line - 1 && !x->conf_syntax_line) {
                /* values are slices of x->conf: join in place by moving the
                 * separator; the previous value ends right before this line */
                struct ini_ent *e = &x->ent[x->nent - 1];
                char *end = (char *)e->value + strlen(e->value);
                *end = '\n';
                memmove(end + 1, t, strlen(t) + 1);
                e->line = line;
                continue;
            }
            if (!x->conf_syntax_line)
                x->conf_syntax_line = (int)line;
            continue;
        }
        p = trim(p);
        if (!*p || *p == '#' || *p == ';')
            continue;
        if (*p == '[') {
            char *e = strchr(p, ']');
            if (!e || e[1] || e == p + 1) {
                if (!x->conf_syntax_line)
                    x->conf_syntax_line = (int)line;
                continue;
            }
            *e = '\0';
            section = p + 1;
            continue;
        }
        eq = p + strcspn(p, "=:");
        if (!*eq || eq == p || !*section) {
            if (!x->conf_syntax_line)
                x->conf_syntax_line = (int)line;
            continue;
        }
        *eq = '\0';
        k = trim(p);
        v = trim(eq + 1);
        vl = strlen(v);
        if (vl >= 2 && (v[0] == '"' || v[0] == '\'') && v[vl - 1] == v[0]) {
            v[vl - 1] = '\0';
            v++;
        }
        if (x->nent == INI_MAX) {
            if (!x->conf_syntax_line)
                x->conf_syntax_line = (int)line;
            continue;
        }
        x->ent[x->nent].section = section;
        x->ent[x->nent].key = k;
        x->ent[x->nent].value = v;
        x->ent[x->nent++].line = line;
    }
}

/* ------------------------------------------------------------ summary */

static json_t *set_or_null(struct dctx *x, int which) {
    return x->has[which] ? js(x, fmt(x, x->b[which])) : json_null();
}

static void summarize(struct dctx *x) {
    json_t *h = x->host, *nodes = json_array(), *mounts = json_array();
    char nm[32];
    if (!nodes || !mounts) {
        json_decref(nodes);
        json_decref(mounts);
        x->oom = true;
        return;
    }
    set_str(x, h, "root", x->root[0] ? x->root : "/");
    set_str(x, h, "kernel", x->osrelease[0] ? x->osrelease : NULL);
    ok_json(x, json_object_set_new(h, "preempt_rt", json_boolean(x->preempt_rt)));
    ok_json(x, json_object_set_new(h, "online", set_or_null(x, B_ONLINE)));
    ok_json(x, json_object_set_new(h, "smt", x->smt < 0 ? json_null() : json_boolean(x->smt)));
    ok_json(x, json_object_set_new(h, "threads_per_core",
                                   x->threads_per_core ? json_integer(x->threads_per_core)
                                                       : json_null()));
    ok_json(x, json_object_set_new(h, "isolcpus", set_or_null(x, B_ISOLCPUS)));
    ok_json(x, json_object_set_new(h, "nohz_full", set_or_null(x, B_NOHZ)));
    ok_json(x, json_object_set_new(h, "rcu_nocbs", set_or_null(x, B_RCU)));
    set_str(x, h, "tuned_profile", x->has_tuned ? x->tuned_profile : NULL);
    ok_json(x, json_object_set_new(h, "tuned_isolated_cores", set_or_null(x, B_TUNED)));
    ok_json(x, json_object_set_new(h, "isolated", set_or_null(x, B_ISOLATED)));
    for (uint32_t i = 0; i < x->nnodes; i++) {
        const struct dnode *d = &x->nodes[i];
        json_t *n = json_object(), *pages = json_object();
        if (!n || !pages) {
            json_decref(n);
            json_decref(pages);
            x->oom = true;
            break;
        }
        ok_json(x, json_object_set_new(n, "id", json_integer(d->id)));
        ok_json(x, json_object_set_new(n, "cpus", d->cpus ? js(x, fmt(x, d->cpus)) : json_null()));
        ok_json(x,
                json_object_set_new(n, "memory_mib",
                                    d->has_mem ? json_integer((json_int_t)(d->memtotal_kib / 1024))
                                               : json_null()));
        for (uint32_t k = 0; k < d->npsizes; k++)
            ok_json(x, json_object_set_new(pages, size_name(d->ps[k].size_kb, nm, sizeof(nm)),
                                           json_integer((json_int_t)d->ps[k].count)));
        ok_json(x, json_object_set_new(n, "hugepages", pages));
        ok_json(x, json_array_append_new(nodes, n));
    }
    ok_json(x, json_object_set_new(h, "nodes", nodes));
    for (uint32_t i = 0; i < x->nmounts; i++)
        ok_json(x, json_array_append_new(
                       mounts, js(x, x->mount_kb[i] ? size_name(x->mount_kb[i], nm, sizeof(nm))
                                                    : "unknown")));
    ok_json(x, json_object_set_new(h, "hugetlbfs_mounts", mounts));
    ok_json(x, json_object_set_new(h, "kvm_intel_preemption_timer",
                                   x->preemption_timer < 0 ? json_null()
                                                           : json_boolean(x->preemption_timer)));
    ok_json(x, json_object_set_new(h, "nova_conf", json_boolean(x->has_conf)));
    ok_json(x, json_object_set_new(h, "cpu_dedicated_set", set_or_null(x, B_DEDICATED)));
    ok_json(x, json_object_set_new(h, "cpu_shared_set", set_or_null(x, B_SHARED)));
    ok_json(x, json_object_set_new(h, "vcpu_pin_set", set_or_null(x, B_PINSET)));
    ok_json(x, json_object_set_new(h, "realtime", json_boolean(x->realtime)));
    ok_json(x, json_object_set_new(h, "realtime_because", json_incref(x->rt_reasons)));
}

/* ------------------------------------------------------------ checks */

static const char *cpu_option(const struct dctx *x) {
    return x->has[B_DEDICATED] ? "[compute] cpu_dedicated_set" : "[DEFAULT] vcpu_pin_set";
}

/* nova.conf: syntax, misplaced options, the CPU sets. */
static void check_conf(struct dctx *x) {
    static const struct {
        const char *key, *section;
    } homes[] = {
        {"vcpu_pin_set", "DEFAULT"},       {"reserved_huge_pages", "DEFAULT"},
        {"cpu_dedicated_set", "compute"},  {"cpu_shared_set", "compute"},
        {"cpu_mode", "libvirt"},           {"realtime_scheduler_priority", "libvirt"},
        {"file_backed_memory", "libvirt"},
    };
    static const struct {
        const char *section, *key;
        int which;
    } sets[] = {
        {"compute", "cpu_dedicated_set", B_DEDICATED},
        {"compute", "cpu_shared_set", B_SHARED},
        {"DEFAULT", "vcpu_pin_set", B_PINSET},
    };
    if (!x->has_conf) {
        add(x, "nova-conf-not-given", SEV_INFO, "nova.conf was not checked",
            "Pass the compute node's nova.conf (numafit doctor --nova-conf "
            "/etc/nova/nova.conf).",
            "Without nova.conf the checks of cpu_dedicated_set, cpu_shared_set, vcpu_pin_set "
            "and reserved_huge_pages against the host are skipped.");
        return;
    }
    if (x->conf_syntax_line)
        add(x, "nova-conf-syntax", SEV_ERROR, "nova.conf cannot be parsed",
            "Fix the line: every line must be a [section] header, key = value, a comment "
            "(# or ;) or an indented continuation of the previous value.",
            "Line %d of nova.conf is not a section, an option or a comment; oslo.config "
            "refuses the file and nova-compute does not start.",
            x->conf_syntax_line);
    for (uint32_t i = 0; i < x->nent; i++)
        for (size_t k = 0; k < sizeof(homes) / sizeof(homes[0]); k++)
            if (!strcmp(x->ent[i].key, homes[k].key) &&
                strcmp(x->ent[i].section, homes[k].section)) {
                char fix[256];
                snprintf(fix, sizeof(fix), "Move %s to the [%s] section.", homes[k].key,
                         homes[k].section);
                add(x, "nova-option-wrong-section", SEV_WARNING,
                    "A nova option is in the wrong section and is ignored", fix,
                    "nova.conf line %u sets %s in [%s], but nova reads it only from [%s]; "
                    "the value \"%s\" has no effect.",
                    x->ent[i].line, homes[k].key, x->ent[i].section, homes[k].section,
                    x->ent[i].value);
            }
    for (size_t k = 0; k < sizeof(sets) / sizeof(sets[0]); k++) {
        const char *v = conf_get(x, sets[k].section, sets[k].key);
        if (!v || !*v)
            continue; /* an empty value is unset, as in nova */
        if (numafit__cpuspec_parse(v, x->b[sets[k].which], NULL) < 0 ||
            bempty(x->b[sets[k].which])) {
            add(x, "nova-cpu-set-invalid", SEV_ERROR, "A CPU set option is not valid",
                "Write the CPU set in nova's syntax, e.g. \"4-11\" or \"2-7,^4\", with at "
                "least one CPU.",
                "[%s] %s = %s does not give any CPU; nova raises Invalid and nova-compute does "
                "not start.",
                sets[k].section, sets[k].key, v);
            memset(x->b[sets[k].which], 0, NUMAFIT__CPU_WORDS * sizeof(uint64_t));
            continue;
        }
        x->has[sets[k].which] = true;
        if (x->has[B_ONLINE]) {
            bits_andnot(x->b[B_TMP], x->b[sets[k].which], x->b[B_ONLINE]);
            if (!bempty(x->b[B_TMP]))
                add(x, "nova-cpu-set-offline", SEV_ERROR,
                    "A CPU set names CPUs that are not online",
                    "Remove the CPUs that do not exist or are offline from the option, or bring "
                    "them online.",
                    "[%s] %s = %s includes CPUs %s, which are not online (online: %s); nova "
                    "raises Invalid at start-up.",
                    sets[k].section, sets[k].key, v, fmt(x, x->b[B_TMP]), fmt(x, x->b[B_ONLINE]));
        }
    }
    if (x->has[B_DEDICATED] && x->has[B_SHARED]) {
        bits_and(x->b[B_TMP], x->b[B_DEDICATED], x->b[B_SHARED]);
        if (!bempty(x->b[B_TMP]))
            add(x, "cpu-sets-overlap", SEV_ERROR, "cpu_dedicated_set and cpu_shared_set overlap",
                "Make the two sets disjoint: keep the isolated CPUs in cpu_dedicated_set and "
                "the rest in cpu_shared_set.",
                "CPUs %s are in both [compute] cpu_dedicated_set (%s) and cpu_shared_set (%s); "
                "nova raises InvalidConfiguration and nova-compute does not start.",
                fmt(x, x->b[B_TMP]), fmt(x, x->b[B_DEDICATED]), fmt(x, x->b[B_SHARED]));
    }
    if (x->has[B_DEDICATED] && x->has[B_PINSET])
        add(x, "vcpu-pin-set-with-dedicated", SEV_ERROR,
            "vcpu_pin_set is combined with cpu_dedicated_set",
            "Remove [DEFAULT] vcpu_pin_set and put the CPUs for unpinned guests in [compute] "
            "cpu_shared_set.",
            "[DEFAULT] vcpu_pin_set and [compute] cpu_dedicated_set are both set; nova raises "
            "InvalidConfiguration and nova-compute does not start.");
    else if (x->has[B_PINSET])
        add(x, "vcpu-pin-set-legacy", SEV_WARNING, "vcpu_pin_set is deprecated (legacy mode)",
            "Replace [DEFAULT] vcpu_pin_set with [compute] cpu_dedicated_set (CPUs for pinned "
            "guests) and cpu_shared_set (CPUs for unpinned guests and emulator threads).",
            "[DEFAULT] vcpu_pin_set = %s has been deprecated since nova 20.0.0 (Train): pinned "
            "and unpinned guests then share the same CPUs, nova reports no PCPU inventory to "
            "placement, and the CPUs are used for both.",
            fmt(x, x->b[B_PINSET]));
    else if (!x->has[B_DEDICATED] && !x->has[B_SHARED])
        add(x, "cpu-sets-unset", SEV_WARNING, "No CPU set is configured",
            "Set [compute] cpu_dedicated_set to the isolated CPUs and cpu_shared_set to the "
            "CPUs left for the host and unpinned guests.",
            "Neither [compute] cpu_dedicated_set, cpu_shared_set nor [DEFAULT] vcpu_pin_set "
            "is set: nova offers every online CPU%s%s%s to both pinned and unpinned guests, "
            "including the CPUs the host itself runs on.",
            x->has[B_ONLINE] ? " (" : "", x->has[B_ONLINE] ? fmt(x, x->b[B_ONLINE]) : "",
            x->has[B_ONLINE] ? ")" : "");
    if (x->has[B_DEDICATED]) {
        memcpy(x->b[B_PINNED], x->b[B_DEDICATED], NUMAFIT__CPU_WORDS * sizeof(uint64_t));
        x->has[B_PINNED] = true;
    } else if (x->has[B_PINSET]) {
        memcpy(x->b[B_PINNED], x->b[B_PINSET], NUMAFIT__CPU_WORDS * sizeof(uint64_t));
        x->has[B_PINNED] = true;
    }
}

static void check_realtime_wanted(struct dctx *x) {
    const char *prio = x->has_conf ? conf_get(x, "libvirt", "realtime_scheduler_priority") : NULL;
    if (x->flags & NUMAFIT_DOCTOR_REALTIME)
        ok_json(x, json_array_append_new(x->rt_reasons, js(x, "requested")));
    if (prio)
        ok_json(x, json_array_append_new(x->rt_reasons,
                                         js(x, "nova.conf [libvirt] realtime_scheduler_priority")));
    if (x->tuned_rt)
        ok_json(x, json_array_append_new(x->rt_reasons, js(x, "tuned realtime profile")));
    x->realtime = json_array_size(x->rt_reasons) > 0;
}

static void check_isolation(struct dctx *x) {
    const char *src;
    bool iso = x->has[B_ISOLCPUS] || x->has[B_SYSISO] || x->has[B_NOHZ] ||
               (x->has[B_TUNED] && x->tuned_isolating);
    if (x->has[B_ISOLCPUS])
        bits_or(x->b[B_ISOLATED], x->b[B_ISOLCPUS]);
    if (x->has[B_SYSISO])
        bits_or(x->b[B_ISOLATED], x->b[B_SYSISO]);
    if (x->has[B_NOHZ])
        bits_or(x->b[B_ISOLATED], x->b[B_NOHZ]);
    if (x->has[B_TUNED] && x->tuned_isolating)
        bits_or(x->b[B_ISOLATED], x->b[B_TUNED]);
    x->has[B_ISOLATED] = iso && !bempty(x->b[B_ISOLATED]);
    /* tuned's isolated_cores reach the kernel only after the boot loader
     * entry is regenerated and the host rebooted */
    if (x->has[B_TUNED] && x->tuned_isolating && x->has_cmdline &&
        (!x->has[B_ISOLCPUS] ||
         !numafit__bits_equal(x->b[B_TUNED], x->b[B_ISOLCPUS], NUMAFIT__CPU_WORDS)))
        add(x, "tuned-isolated-cores-not-booted", SEV_WARNING,
            "tuned's isolated_cores are not on the kernel command line",
            "Check the tuned_params line of the boot loader configuration (grep tuned_params= "
            "/boot/grub2/grub.cfg), regenerate it if needed (grub2-mkconfig -o "
            "/boot/grub2/grub.cfg) and reboot.",
            "tuned isolated_cores = %s, but the running kernel has isolcpus=%s; the profile "
            "was changed after the last boot, or its boot loader settings were not applied.",
            fmt(x, x->b[B_TUNED]), x->has[B_ISOLCPUS] ? fmt(x, x->b[B_ISOLCPUS]) : "(none)");
    if (!x->has[B_PINNED])
        return;
    src = x->has[B_DEDICATED] ? "cpu_dedicated_set" : "vcpu_pin_set";
    bits_andnot(x->b[B_TMP], x->b[B_PINNED], x->b[B_ISOLATED]);
    if (!bempty(x->b[B_TMP]))
        add(x, "dedicated-not-isolated", x->realtime ? SEV_ERROR : SEV_WARNING,
            "CPUs for pinned guests are not isolated from the host",
            "Isolate them: set isolated_cores to the same list in "
            "/etc/tuned/realtime-virtual-host-variables.conf, run tuned-adm profile "
            "realtime-virtual-host (which adds isolcpus=, nohz_full= and rcu_nocbs= to the "
            "kernel command line) and reboot; or add isolcpus= to GRUB_CMDLINE_LINUX.",
            "%s = %s, but CPUs %s are not isolated (isolcpus, tuned isolated_cores or "
            "nohz_full: %s); host processes and interrupts still run on them next to the "
            "pinned vCPUs.",
            src, fmt(x, x->b[B_PINNED]), fmt(x, x->b[B_TMP]),
            x->has[B_ISOLATED] ? fmt(x, x->b[B_ISOLATED]) : "none");
    bits_andnot(x->b[B_TMP], x->b[B_ISOLATED], x->b[B_PINNED]);
    if (x->has[B_ISOLATED] && x->has[B_SHARED])
        bits_andnot(x->b[B_TMP], x->b[B_TMP], x->b[B_SHARED]);
    if (x->has[B_ISOLATED] && !bempty(x->b[B_TMP]))
        add(x, "isolated-not-used", SEV_WARNING, "Isolated CPUs are not given to nova",
            "Add them to the CPU set for pinned guests, or remove them from isolcpus / "
            "isolated_cores so that the host can use them.",
            "CPUs %s are isolated from the host scheduler but are not in %s (%s): neither the "
            "host nor any guest uses them.",
            fmt(x, x->b[B_TMP]), src, fmt(x, x->b[B_PINNED]));
    if (x->has[B_SHARED] && x->has[B_ISOLATED]) {
        bits_and(x->b[B_TMP], x->b[B_SHARED], x->b[B_ISOLATED]);
        if (!bempty(x->b[B_TMP]))
            add(x, "shared-set-isolated", SEV_WARNING, "cpu_shared_set contains isolated CPUs",
                "Remove the isolated CPUs from [compute] cpu_shared_set (or from the isolation).",
                "CPUs %s are in [compute] cpu_shared_set and isolated; the kernel does not "
                "balance load onto isolated CPUs, so the floating vCPUs and emulator threads "
                "of unpinned guests pile up on one of them.",
                fmt(x, x->b[B_TMP]));
    }
}

static void check_smt(struct dctx *x) {
    int b = -1;
    char rel[128];
    if (x->smt == 1 && x->realtime)
        add(x, "ht-enabled-realtime", SEV_WARNING, "Hyper-threading is on on a real-time host",
            "Disable hyper-threading (or the logical processor option) in the BIOS, as the "
            "real-time set-up does, or at run time with echo off > "
            "/sys/devices/system/cpu/smt/control.",
            "The host runs %u threads per core; a real-time vCPU then shares its core's "
            "execution units and caches with its sibling thread, which adds latency.",
            x->threads_per_core ? x->threads_per_core : 2);
    if (x->smt == 1 && x->has[B_DEDICATED])
        add(x, "isolate-policy-impossible", SEV_INFO,
            "Guests with hw:cpu_thread_policy=isolate cannot land on this host",
            "Offer isolate flavors only on hosts with hyper-threading off, or use "
            "hw:cpu_thread_policy=require / prefer here.",
            "With [compute] cpu_dedicated_set set and hyper-threading on, nova translates "
            "hw:cpu_thread_policy=isolate into trait:HW_CPU_HYPERTHREADING=forbidden; this "
            "host reports HW_CPU_HYPERTHREADING, so such guests are never scheduled here.");
    if (x->smt != 1 || !x->has[B_PINNED])
        return;
    /* pinned CPUs whose core-mates are not pinned CPUs */
    while ((b = numafit__bits_next(x->b[B_PINNED], NUMAFIT__CPU_WORDS, b)) >= 0) {
        snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", b);
        if (read_cpulist(x, rel, true, x->b[B_TMP]) < 0)
            continue;
        if (x->has[B_ONLINE])
            bits_and(x->b[B_TMP], x->b[B_TMP], x->b[B_ONLINE]);
        bits_andnot(x->b[B_TMP], x->b[B_TMP], x->b[B_PINNED]);
        bits_or(x->b[B_SIBLESS], x->b[B_TMP]);
    }
    if (!bempty(x->b[B_SIBLESS]))
        add(x, "dedicated-siblings-not-dedicated", SEV_WARNING,
            "Pinned CPUs share cores with CPUs nova does not pin",
            "Put whole cores into the CPU set for pinned guests: add the sibling threads, or "
            "remove the CPUs whose siblings must stay with the host.",
            "The thread siblings %s of the CPUs in %s (%s) are not in it; host processes or "
            "unpinned guests running there share the core's execution units with the pinned "
            "vCPUs.",
            fmt(x, x->b[B_SIBLESS]), cpu_option(x), fmt(x, x->b[B_PINNED]));
}

static uint64_t node_pages(const struct dnode *d, uint64_t size_kb) {
    for (uint32_t k = 0; k < d->npsizes; k++)
        if (d->ps[k].size_kb == size_kb)
            return d->ps[k].count;
    return 0;
}

static bool node_has_size(const struct dnode *d, uint64_t size_kb) {
    for (uint32_t k = 0; k < d->npsizes; k++)
        if (d->ps[k].size_kb == size_kb)
            return true;
    return false;
}

static void check_hugepages(struct dctx *x) {
    uint64_t sizes[PSIZES_MAX * 2], total_all = 0;
    uint32_t nsizes = 0;
    char nm[32];
    bool sizes_known = x->nglobal > 0; /* some page size directory was read */
    for (uint32_t i = 0; i < x->nnodes; i++)
        sizes_known |= x->nodes[i].npsizes > 0;
    /* the page sizes in use, over nodes, or the global counts without nodes */
    for (uint32_t i = 0; i < x->nnodes; i++)
        for (uint32_t k = 0; k < x->nodes[i].npsizes; k++) {
            const struct dpsize *p = &x->nodes[i].ps[k];
            bool seen = false;
            total_all += p->count;
            for (uint32_t s = 0; s < nsizes; s++)
                seen |= sizes[s] == p->size_kb;
            if (p->count && !seen && nsizes < PSIZES_MAX * 2)
                sizes[nsizes++] = p->size_kb;
        }
    if (!x->nnodes)
        for (uint32_t k = 0; k < x->nglobal; k++) {
            total_all += x->global[k].count;
            if (x->global[k].count && nsizes < PSIZES_MAX * 2)
                sizes[nsizes++] = x->global[k].size_kb;
        }
    if (sizes_known && !total_all) {
        add(x, "hugepages-none", x->realtime ? SEV_ERROR : SEV_WARNING,
            "No huge pages are reserved",
            "Reserve huge pages at boot: add default_hugepagesz=1G hugepagesz=1G hugepages=N "
            "to GRUB_CMDLINE_LINUX, regenerate the boot loader configuration and reboot (or "
            "set vm.nr_hugepages in /etc/sysctl.conf).",
            "No NUMA node has huge pages, so guests with hw:mem_page_size (such as the "
            "real-time flavor's hw:mem_page_size=1GB) fail with \"Requested instance NUMA "
            "topology cannot fit the given host NUMA topology\".");
        return;
    }
    qsort(sizes, nsizes, sizeof(sizes[0]), cmp_u64);
    for (uint32_t s = 0; s < nsizes; s++) {
        uint64_t kb = sizes[s], lo = UINT64_MAX, hi = 0;
        uint32_t ncpu_nodes = 0;
        bool mounted = false, on_cmdline = false;
        size_name(kb, nm, sizeof(nm));
        /* balance over the nodes that have CPUs */
        for (uint32_t i = 0; i < x->nnodes; i++) {
            uint64_t c = node_pages(&x->nodes[i], kb);
            if (!x->nodes[i].cpus || bempty(x->nodes[i].cpus))
                continue;
            ncpu_nodes++;
            lo = c < lo ? c : lo;
            hi = c > hi ? c : hi;
        }
        if (ncpu_nodes > 1 && lo != hi) {
            char counts[512];
            size_t off = 0;
            counts[0] = '\0';
            for (uint32_t i = 0; i < x->nnodes && off < sizeof(counts) - 32; i++)
                if (x->nodes[i].cpus && !bempty(x->nodes[i].cpus))
                    off += (size_t)snprintf(counts + off, sizeof(counts) - off, "%snode %u: %llu",
                                            off ? ", " : "", x->nodes[i].id,
                                            (unsigned long long)node_pages(&x->nodes[i], kb));
            add(x, "hugepages-unbalanced", SEV_WARNING,
                "Huge pages are not spread evenly over the NUMA nodes",
                "Reserve the same number per node, e.g. echo N > "
                "/sys/devices/system/node/nodeX/hugepages/hugepages-<size>kB/nr_hugepages at "
                "boot, or hugepages=0:N,1:N on the kernel command line.",
                "%s pages per node: %s; guests whose NUMA cell is placed on the node with fewer "
                "pages fit less often, and the difference cannot be used by guests on the "
                "other node.",
                nm, counts);
        }
        /* mounted? libvirt needs a hugetlbfs mount for each size it backs guests with */
        for (uint32_t m = 0; m < x->nmounts; m++)
            mounted |= x->mount_kb[m] == kb;
        if (x->has_mounts && !mounted) {
            char fix[256];
            snprintf(fix, sizeof(fix),
                     "Mount it: mount -t hugetlbfs -o pagesize=%s hugetlbfs /dev/hugepages%s "
                     "(and add it to /etc/fstab), then restart libvirtd.",
                     nm, x->nmounts ? nm : "");
            add(x, "hugetlbfs-not-mounted", SEV_ERROR,
                "Huge pages are reserved but no hugetlbfs is mounted for them", fix,
                "%s huge pages are reserved but /proc/mounts has no hugetlbfs mount with "
                "pagesize=%s; libvirt cannot back guest memory with them and guests with "
                "hw:mem_page_size fail to start.",
                nm, nm);
        }
        /* 1 GiB pages should come from the boot command line */
        if (kb == KIB_1G && x->has_cmdline) {
            on_cmdline = x->default_hpsz_kb == KIB_1G;
            for (uint32_t c = 0; c < x->ncmdpages; c++)
                on_cmdline |= x->cmdpages[c].size_kb == KIB_1G;
            if (!on_cmdline)
                add(x, "hugepages-1g-not-on-cmdline", SEV_WARNING,
                    "1G huge pages are not configured on the kernel command line",
                    "Add default_hugepagesz=1G hugepagesz=1G hugepages=N to "
                    "GRUB_CMDLINE_LINUX in /etc/default/grub, run grub2-mkconfig -o "
                    "/boot/grub2/grub.cfg and reboot.",
                    "1G pages are reserved but the kernel command line has neither "
                    "default_hugepagesz=1G nor hugepagesz=1G: they were allocated after boot, "
                    "which needs 1 GiB of contiguous free memory per page and gives fewer "
                    "pages once memory is fragmented.");
        }
    }
    /* hugepages=N on the command line that the kernel could not fully give */
    for (uint32_t c = 0; c < x->ncmdpages; c++) {
        uint64_t kb = x->cmdpages[c].size_kb ? x->cmdpages[c].size_kb
                      : x->default_hpsz_kb   ? x->default_hpsz_kb
                                             : x->meminfo_hpsz_kb;
        for (uint32_t k = 0; k < x->nglobal && kb && x->cmdpages[c].count > 0; k++)
            if (x->global[k].size_kb == kb && x->global[k].count < (uint64_t)x->cmdpages[c].count)
                add(x, "hugepages-short", SEV_WARNING,
                    "Fewer huge pages than the kernel command line asks for",
                    "Lower hugepages= to what the host can give, or free memory at boot "
                    "(fewer early services, less reserved memory).",
                    "The kernel command line asks for %lld %s pages but only %llu are reserved.",
                    (long long)x->cmdpages[c].count, size_name(kb, nm, sizeof(nm)),
                    (unsigned long long)x->global[k].count);
    }
}

static void check_reserved(struct dctx *x) {
    numafit_hostconf_t *hc = NULL;
    numafit_error_t e;
    char nm[32];
    if (!x->has_conf)
        return;
    for (uint32_t i = 0; i < x->nent; i++) {
        const struct ini_ent *en = &x->ent[i];
        if (strcmp(en->section, "DEFAULT") || strcmp(en->key, "reserved_huge_pages"))
            continue;
        if (!hc && numafit_hostconf_new(&hc) < 0) {
            x->oom = true;
            return;
        }
        if (numafit_hostconf_add_reserved_huge_pages(hc, en->value, &e) == -ENOMEM) {
            x->oom = true;
            break;
        } else if (e.code != NUMAFIT_E_OK) {
            add(x, "reserved-huge-pages-invalid", SEV_ERROR,
                "A reserved_huge_pages value is not valid",
                "Write each value as node:N,size:S,count:C, e.g. node:0,size:1GB,count:1 or "
                "node:0,size:2048,count:64.",
                "nova.conf line %u: reserved_huge_pages = %s: %s; nova raises "
                "InvalidReservedMemoryPagesOption.",
                en->line, en->value, e.text);
            continue;
        }
    }
    for (uint32_t r = 0; hc && r < hc->nresv; r++) {
        const struct numafit__resv *rv = &hc->resv[r];
        const struct dnode *d = NULL;
        for (uint32_t i = 0; i < x->nnodes; i++)
            if ((int64_t)x->nodes[i].id == rv->node)
                d = &x->nodes[i];
        if (!x->nnodes)
            break;
        if (!d || rv->size_kb <= 0 || !node_has_size(d, (uint64_t)rv->size_kb)) {
            add(x, "reserved-huge-pages-unknown", SEV_WARNING,
                "reserved_huge_pages names a node or page size the host does not have",
                "Correct the node id or size, or remove the value.",
                "reserved_huge_pages (node %lld, size %s, count %llu) does not match the host: "
                "%s; nova ignores the value and reserves nothing.",
                (long long)rv->node,
                rv->size_kb > 0 ? size_name((uint64_t)rv->size_kb, nm, sizeof(nm)) : "?",
                (unsigned long long)rv->count,
                !d ? "the host has no such NUMA node" : "that node has no pages of this size");
            continue;
        }
        if (rv->count > node_pages(d, (uint64_t)rv->size_kb))
            add(x, "reserved-huge-pages-exceed", SEV_WARNING,
                "reserved_huge_pages reserves more pages than the node has",
                "Lower the count, or reserve more huge pages on the node.",
                "reserved_huge_pages reserves %llu pages of %s on node %lld, which has %llu; "
                "nova reports a negative number of free pages and no guest gets pages there.",
                (unsigned long long)rv->count, size_name((uint64_t)rv->size_kb, nm, sizeof(nm)),
                (long long)rv->node, (unsigned long long)node_pages(d, (uint64_t)rv->size_kb));
    }
    numafit_hostconf_free(hc);
    {
        const char *fbm = conf_get(x, "libvirt", "file_backed_memory");
        bool any_pages = false;
        for (uint32_t i = 0; i < x->nnodes; i++)
            for (uint32_t k = 0; k < x->nodes[i].npsizes; k++)
                any_pages |= x->nodes[i].ps[k].count > 0;
        if (fbm && strcmp(trim((char *)fbm), "0") && any_pages)
            add(x, "file-backed-memory-hugepages", SEV_WARNING,
                "file_backed_memory is on while huge pages are reserved",
                "Set [libvirt] file_backed_memory = 0 on hosts meant for huge-page guests, or "
                "release the huge pages.",
                "[libvirt] file_backed_memory = %s: nova refuses guests with hw:mem_page_size "
                "on this host (MemoryPagesUnsupported), so the reserved huge pages are unused.",
                fbm);
    }
}

static void check_realtime(struct dctx *x) {
    bool rvh = false;
    char prof[256];
    if (!x->realtime)
        return;
    if (!x->preempt_rt && x->osrelease[0])
        add(x, "kernel-not-rt", SEV_WARNING, "The kernel is not a real-time (PREEMPT_RT) kernel",
            "Install and boot the real-time kernel (yum install kernel-rt kernel-rt-kvm "
            "tuned-profiles-realtime; make it the default boot entry).",
            "Kernel %s is not PREEMPT_RT (no \"rt\" in the release, sys/kernel/realtime is not "
            "1). On the reference host the worst host latency was 5004 us without and 42 us "
            "with kernel-rt; guests running a real-time kernel measured about the same either "
            "way (51 and 55 us), guests without one did much better on kernel-rt (17737 "
            "instead of 69721 us).",
            x->osrelease);
    snprintf(prof, sizeof(prof), "%s", x->tuned_profile);
    for (char *save = NULL, *t = strtok_r(prof, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
        rvh |= !strcmp(t, "realtime-virtual-host");
    if (!rvh)
        add(x, "tuned-not-realtime-virtual-host", SEV_WARNING,
            "The tuned profile is not realtime-virtual-host",
            "Set isolated_cores in /etc/tuned/realtime-virtual-host-variables.conf, run "
            "systemctl enable --now tuned and tuned-adm profile realtime-virtual-host, then "
            "reboot.",
            "The active tuned profile is %s%s%s; realtime-virtual-host is the profile for KVM "
            "hosts of real-time guests (isolated CPUs, kernel threads and interrupts moved off "
            "them, KVM timer tuning).",
            x->has_tuned ? "\"" : "", x->has_tuned ? x->tuned_profile : "not set (no tuned)",
            x->has_tuned ? "\"" : "");
    if (x->has[B_ISOLATED] && x->has_cmdline) {
        bits_andnot(x->b[B_TMP], x->b[B_ISOLATED], x->b[B_NOHZ]);
        if (!bempty(x->b[B_TMP]))
            add(x, "nohz-full-missing", SEV_WARNING, "Isolated CPUs still get the timer tick",
                "Add nohz_full=<the isolated CPUs> to the kernel command line (the "
                "realtime-virtual-host profile does this) and reboot.",
                "CPUs %s are isolated but not in nohz_full (%s); the scheduler tick keeps "
                "interrupting the real-time vCPUs.",
                fmt(x, x->b[B_TMP]), x->has[B_NOHZ] ? fmt(x, x->b[B_NOHZ]) : "none");
        bits_andnot(x->b[B_TMP], x->b[B_ISOLATED], x->b[B_RCU]);
        if (!bempty(x->b[B_TMP]))
            add(x, "rcu-nocbs-missing", SEV_WARNING, "Isolated CPUs still run RCU callbacks",
                "Add rcu_nocbs=<the isolated CPUs> to the kernel command line (the "
                "realtime-virtual-host profile does this) and reboot.",
                "CPUs %s are isolated but not in rcu_nocbs (%s); RCU callbacks still run on "
                "them.",
                fmt(x, x->b[B_TMP]), x->has[B_RCU] ? fmt(x, x->b[B_RCU]) : "none");
    }
    if (x->preemption_timer == 0)
        add(x, "kvm-preemption-timer-off", SEV_INFO, "KVM does not use the VMX preemption timer",
            "Enable it: options kvm_intel preemption_timer=Y in /etc/modprobe.d/kvm.conf, then "
            "reload kvm_intel with no guest running; compare with cyclictest in a guest.",
            "kvm_intel preemption_timer is N: the guest's TSC deadline timer is emulated with "
            "a host hrtimer. With vCPUs pinned to isolated CPUs the VMX preemption timer "
            "measured a lower guest latency (average 7 us instead of 10 us with cyclictest).");
    if (x->has_conf) {
        const char *mode = conf_get(x, "libvirt", "cpu_mode");
        if (!mode || strcmp(mode, "host-passthrough"))
            add(x, "cpu-mode-not-host-passthrough", SEV_INFO,
                "The guest CPU model is not host-passthrough",
                "Set [libvirt] cpu_mode = host-passthrough and restart nova-compute.",
                "[libvirt] cpu_mode is %s%s%s; the real-time set-up gives guests the host CPU "
                "as it is (host-passthrough), and with other modes libvirt can warn \"host "
                "doesn't support requested feature\" when guests start.",
                mode ? "\"" : "", mode ? mode : "not set (host-model for kvm)", mode ? "\"" : "");
    }
}

static void check_numa(struct dctx *x) {
    uint32_t lo = UINT32_MAX, hi = 0, nspan = 0;
    char counts[512];
    size_t off = 0;
    for (uint32_t i = 0; i < x->nnodes; i++) {
        const struct dnode *d = &x->nodes[i];
        if (d->has_mem && d->memtotal_kib && (!d->cpus || bempty(d->cpus)))
            add(x, "memory-only-node", SEV_INFO, "A NUMA node has memory but no CPUs",
                "Nothing to fix on the host; do not count this node's memory for pinned "
                "guests.",
                "Node %u has %llu MiB and no CPUs: nova reports it as a cell without CPUs, so "
                "no guest NUMA cell is placed there and its memory is not used for guests "
                "with a NUMA topology.",
                d->id, (unsigned long long)(d->memtotal_kib / 1024));
    }
    if (!x->has[B_PINNED])
        return;
    counts[0] = '\0';
    for (uint32_t i = 0; i < x->nnodes; i++) {
        const struct dnode *d = &x->nodes[i];
        uint32_t n;
        if (!d->cpus)
            continue;
        bits_and(x->b[B_TMP], x->b[B_PINNED], d->cpus);
        n = bcount(x->b[B_TMP]);
        if (!n)
            continue;
        nspan++;
        lo = n < lo ? n : lo;
        hi = n > hi ? n : hi;
        if (off < sizeof(counts) - 48)
            off += (size_t)snprintf(counts + off, sizeof(counts) - off, "%snode %u: %u (%s)",
                                    off ? ", " : "", d->id, n, fmt(x, x->b[B_TMP]));
        /* pinned CPUs on a node without huge pages while other nodes have them */
        {
            uint64_t here = 0, anywhere = 0;
            for (uint32_t k = 0; k < d->npsizes; k++)
                here += d->ps[k].count;
            for (uint32_t j = 0; j < x->nnodes; j++)
                for (uint32_t k = 0; k < x->nodes[j].npsizes; k++)
                    anywhere += x->nodes[j].ps[k].count;
            if (!here && anywhere)
                add(x, "node-without-hugepages", SEV_WARNING,
                    "Pinned CPUs on a NUMA node without huge pages",
                    "Reserve huge pages on this node too (echo N > "
                    "/sys/devices/system/node/nodeX/hugepages/hugepages-<size>kB/nr_hugepages, "
                    "or hugepages=0:N,1:N on the kernel command line).",
                    "Node %u has CPUs %s for pinned guests but no huge pages; guests with "
                    "hw:mem_page_size never fit there, so these CPUs stay idle.",
                    d->id, fmt(x, x->b[B_TMP]));
        }
    }
    if (nspan > 1 && lo != hi)
        add(x, "dedicated-uneven-nodes", SEV_WARNING,
            "CPUs for pinned guests are spread unevenly over the NUMA nodes",
            "Give each node the same number of CPUs in the set (e.g. the same cores on each "
            "socket), so that a guest sized for one node fits on either.",
            "%s = %s gives %s; a guest with more vCPUs than the smaller share fits only on the "
            "larger node, or must be split over two nodes (hw:numa_nodes=2), which costs "
            "latency and memory bandwidth.",
            x->has[B_DEDICATED] ? "cpu_dedicated_set" : "vcpu_pin_set", fmt(x, x->b[B_PINNED]),
            counts);
}

/* ------------------------------------------------------------ entry point */

static void dctx_free(struct dctx *x) {
    for (unsigned i = 0; i < NSCRATCH; i++)
        numafit__free(x->scratch[i]);
    for (uint32_t i = 0; i < x->nnodes; i++)
        numafit__free(x->nodes[i].cpus);
    numafit__free(x->nodes);
    numafit__free(x->cmdline);
    numafit__free(x->conf);
    numafit__free(x->ent);
    numafit__free(x->buf);
    numafit__free(x->b[0]);
    json_decref(x->host);
    json_decref(x->unreadable);
    json_decref(x->findings);
    json_decref(x->rt_reasons);
}

NUMAFIT_EXPORT int numafit_doctor(const char *root, const char *nova_conf, size_t nova_conf_len,
                                  unsigned flags, char **ret_json, numafit_error_t *err) {
    struct dctx x;
    json_t *report = NULL;
    char *out = NULL;
    int r;

    numafit__error_clear(err);
    if (!ret_json || (flags & ~(unsigned)DOCTOR_FLAGS) || (!nova_conf && nova_conf_len) ||
        (root && strlen(root) > PATH_CAP - 512)) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "", NULL, "invalid argument");
        return -EINVAL;
    }
    if (nova_conf && nova_conf_len > NUMAFIT_DOCTOR_CONF_MAX) {
        numafit__error_set(err, NUMAFIT_E_RANGE, -1, "nova_conf", NULL,
                           "nova.conf is larger than %u bytes", NUMAFIT_DOCTOR_CONF_MAX);
        return -ERANGE;
    }
    if (nova_conf && memchr(nova_conf, '\0', nova_conf_len)) {
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, "nova_conf", NULL,
                           "nova.conf contains a NUL byte");
        return -EBADMSG;
    }
    memset(&x, 0, sizeof(x));
    x.root = root && *root && strcmp(root, "/") ? root : "";
    x.flags = flags;
    x.preemption_timer = -1;
    x.buf = numafit__malloc(FILE_MAX + 1);
    x.b[0] = numafit__calloc((size_t)B__N * NUMAFIT__CPU_WORDS, sizeof(uint64_t));
    x.host = json_object();
    x.unreadable = json_array();
    x.findings = json_array();
    x.rt_reasons = json_array();
    if (!x.buf || !x.b[0] || !x.host || !x.unreadable || !x.findings || !x.rt_reasons) {
        r = -ENOMEM;
        goto out;
    }
    for (int i = 1; i < B__N; i++)
        x.b[i] = x.b[0] + (size_t)i * NUMAFIT__CPU_WORDS;

    read_kernel(&x);
    read_cmdline(&x);
    read_cpus(&x);
    read_memory(&x);
    read_tuned(&x);
    if (nova_conf)
        parse_conf(&x, nova_conf, nova_conf_len);

    check_conf(&x);
    check_realtime_wanted(&x);
    check_isolation(&x);
    check_smt(&x);
    check_hugepages(&x);
    check_reserved(&x);
    check_realtime(&x);
    check_numa(&x);
    summarize(&x);
    ok_json(&x, json_object_set(x.host, "unreadable", x.unreadable));
    if (x.oom) {
        r = -ENOMEM;
        goto out;
    }
    report = json_pack("{sOsO}", "host", x.host, "findings", x.findings);
    if (!report || !(out = numafit__json_dump(
                         report, flags & NUMAFIT_DOCTOR_INDENT ? NUMAFIT_JSON_INDENT : 0))) {
        r = -ENOMEM;
        goto out;
    }
    *ret_json = out;
    r = x.nerrors;
out:
    if (r == -ENOMEM)
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
    json_decref(report);
    dctx_free(&x);
    return r;
}
