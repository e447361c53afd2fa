/* Host discovery from a Linux sysfs tree under a caller-given root (captured
 * trees in tests, "/" on a live host), read the way libvirt builds its
 * capabilities (virCapabilitiesHostNUMANewHost), then nova's rules
 * (discover_rules.c). Only root-relative paths below sys/devices/system are
 * read; every file read is bounded. */
#include "config.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "discover_internal.h"
#include "rootfs.h"

#define FILE_MAX (64u << 10) /* bytes read from one sysfs file */
#define PATH_CAP NUMAFIT__ROOTFS_PATH_CAP
#define LIST_MAX 65536u /* numbered entries of one directory */

struct sctx {
    struct numafit__rootfs fs; /* FILE_MAX bytes a file, no symbolic links */
    numafit_error_t *err;
    uint64_t *bits; /* NUMAFIT__CPU_WORDS words */
    struct numafit__dhost *d;
    uint32_t ncpus; /* CPUs read so far */
};

static int fail(struct sctx *x, int rc, const char *rel, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* err->where is rel (the path below the root, short enough for where[]);
 * err->text is "ROOT/rel: why" (the full path once, as the user gave it). */
static int fail(struct sctx *x, int rc, const char *rel, const char *fmt, ...) {
    char path[PATH_CAP], text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (numafit__rootfs_path(&x->fs, rel, path) < 0)
        snprintf(path, sizeof(path), "%s", rel);
    numafit__error_set(x->err, rc == -ENOMEM ? NUMAFIT_E_NOMEM : NUMAFIT_E_SCHEMA, -1, rel, NULL,
                       "%s: %s", path, text);
    return rc;
}

/* Read a whole file into x->fs.buf (NUL-terminated). Returns its length or
 * -errno; ENOENT is returned silently (callers decide). */
static int read_rel(struct sctx *x, const char *rel) {
    char why[NUMAFIT__ROOTFS_WHY_CAP];
    int r = numafit__rootfs_read(&x->fs, rel, why);
    if (r < 0 && r != -ENOENT)
        return fail(x, r, rel, "%s", why);
    return r;
}

static int need(struct sctx *x, const char *rel) {
    int r = read_rel(x, rel);
    if (r == -ENOENT)
        return fail(x, r, rel, "no such file");
    return r;
}

/* The single unsigned number in x->fs.buf (trailing newline allowed). */
static int buf_u64(struct sctx *x, const char *rel, uint64_t max, uint64_t *out) {
    const char *p = x->fs.buf;
    uint64_t v = 0;
    size_t nd = 0;
    for (; *p >= '0' && *p <= '9'; p++, nd++) {
        if (v > (UINT64_MAX - 9) / 10)
            return fail(x, -ERANGE, rel, "number out of range");
        v = v * 10 + (uint64_t)(*p - '0');
    }
    while (*p == '\n' || *p == ' ')
        p++;
    if (!nd || *p)
        return fail(x, -EBADMSG, rel, "not an unsigned number");
    if (v > max)
        return fail(x, -ERANGE, rel, "number out of range");
    *out = v;
    return 0;
}

/* A kernel cpu list ("0-3,8-11\n") in x->fs.buf into x->bits. */
static int buf_cpulist(struct sctx *x, const char *rel) {
    numafit_error_t e;
    int r;
    x->fs.buf[strcspn(x->fs.buf, "\n")] = '\0';
    r = numafit__cpuspec_parse(x->fs.buf, x->bits, &e);
    if (r < 0)
        return fail(x, r, rel, "not a cpu list");
    return 0;
}

/* A kernel CPU mask ("00000000,0000ffff\n": 32-bit hex groups separated by
 * commas, the most significant first; older kernels have only this, the
 * node's cpumap, which is also what libnuma reads for libvirt) in
 * x->fs.buf into x->bits. At most CPUMAP_GROUPS groups of 1 to 8 digits; a
 * CPU above NUMAFIT_CPU_MAX is refused. */
#define CPUMAP_GROUPS 2048u /* 65536 CPUs; the kernel's NR_CPUS is at most 8192 */
static int buf_cpumap(struct sctx *x, const char *rel) {
    char *s = x->fs.buf;
    size_t len = strcspn(s, "\n"), ngroups = 1, g = 0;
    if (s[len] && s[len + 1 + strspn(s + len + 1, "\n")])
        return fail(x, -EBADMSG, rel, "not a CPU mask (text after the line)");
    s[len] = '\0';
    for (size_t i = 0; i < len; i++)
        ngroups += s[i] == ',';
    if (!len || ngroups > CPUMAP_GROUPS)
        return fail(x, -EBADMSG, rel, "not a CPU mask (1 to %u comma-separated hex groups)",
                    CPUMAP_GROUPS);
    memset(x->bits, 0, NUMAFIT__CPU_WORDS * sizeof(uint64_t));
    for (const char *p = s; g < ngroups; g++) {
        size_t nd = strspn(p, "0123456789abcdefABCDEF");
        uint32_t v = 0;
        size_t base = (ngroups - 1 - g) * 32; /* the group's lowest CPU */
        if (nd < 1 || nd > 8 || (p[nd] != ',' && p[nd] != '\0'))
            return fail(x, -EBADMSG, rel, "not a CPU mask (hex groups of 1 to 8 digits)");
        for (size_t i = 0; i < nd; i++) {
            char c = p[i];
            v = v << 4 | (uint32_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
        }
        for (unsigned b = 0; b < 32; b++) {
            if (!(v & (1u << b)))
                continue;
            if (base + b >= NUMAFIT__CPU_LIMIT)
                return fail(x, -ERANGE, rel, "CPU %zu above %d", base + b, NUMAFIT_CPU_MAX);
            numafit__bit_set(x->bits, (unsigned)(base + b));
        }
        p += nd + (p[nd] == ',');
    }
    return 0;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Numeric suffixes of the entries of dir named prefix<N>[suffix], sorted.
 * An entry numbered above max_n is refused (-ERANGE), as are more than
 * LIST_MAX entries (-E2BIG). */
static int add_entry(uint32_t **v, uint32_t *n, uint32_t *cap, uint32_t num) {
    if (*n == *cap) {
        uint32_t *nv, ncap = *cap ? *cap * 2 : 16;
        if (*cap == LIST_MAX)
            return -E2BIG;
        if (!(nv = numafit__realloc(*v, ncap * sizeof(**v))))
            return -ENOMEM; /* the caller says so */
        *v = nv;
        *cap = ncap;
    }
    (*v)[(*n)++] = num;
    return 0;
}

/* name is the entry of dir at fault (it lives in dir: used before closing) */
static int list_fail(struct sctx *x, DIR *dir, uint32_t *v, int r, const char *rel,
                     const char *name, uint32_t max_n) {
    char where[PATH_CAP];
    snprintf(where, sizeof(where), "%s/%s", rel, name);
    closedir(dir);
    numafit__free(v);
    if (r == -E2BIG)
        return fail(x, -E2BIG, rel, "too many entries (more than %u)", LIST_MAX);
    if (r != -ERANGE)
        return r;
    /* skipping it would drop a node (or page size) without a word */
    return fail(x, -ERANGE, where, "number above the limit %u", max_n);
}

static int open_dir(struct sctx *x, const char *rel, DIR **dir) {
    int r = numafit__rootfs_opendir(&x->fs, rel, dir);
    if (r == -ENAMETOOLONG)
        return fail(x, r, rel, "path too long");
    if (r < 0 && r != -ENOENT)
        fail(x, r, rel, "cannot open directory");
    return r;
}

/* Numeric suffixes of the entries of dir named prefix<N>[suffix], sorted.
 * An entry numbered above max_n is refused (-ERANGE), as are more than
 * LIST_MAX entries (-E2BIG). */
static int list_dir(struct sctx *x, const char *rel, const char *prefix, const char *suffix,
                    uint32_t max_n, uint32_t **ret, uint32_t *ret_n) {
    DIR *dir;
    struct dirent *de;
    uint32_t *v = NULL, n = 0, cap = 0;
    int r;
    *ret = NULL;
    *ret_n = 0;
    if ((r = open_dir(x, rel, &dir)) < 0)
        return r;
    while ((de = readdir(dir))) {
        uint64_t num;
        if (!numafit__rootfs_entry_number(de->d_name, prefix, suffix, &num))
            continue;
        r = num > max_n ? -ERANGE : add_entry(&v, &n, &cap, (uint32_t)num);
        if (r < 0)
            return list_fail(x, dir, v, r, rel, de->d_name, max_n);
    }
    closedir(dir);
    if (n > 1) /* v is NULL when nothing matched: qsort() wants a pointer */
        qsort(v, n, sizeof(*v), cmp_u32);
    *ret = v;
    *ret_n = n;
    return 0;
}

static int read_cpu(struct sctx *x, struct numafit__dcell *c, uint32_t id) {
    char rel[128];
    struct numafit__dcpu *cpu = numafit__dcell_add_cpu(c);
    uint64_t v;
    int r;
    if (!cpu)
        return -ENOMEM;
    cpu->id = id;
    /* libvirt's defaults for a CPU without topology (e.g. offline) */
    cpu->socket = 0;
    cpu->core = 0;
    snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%u/topology/physical_package_id", id);
    r = read_rel(x, rel);
    if (r >= 0 && !strncmp(x->fs.buf, "-1", 2) && !x->fs.buf[2 + strspn(x->fs.buf + 2, " \n")]) {
        /* no physical package (ppc64, some arm hosts): libvirt takes 0 */
    } else if (r >= 0) {
        if ((r = buf_u64(x, rel, INT32_MAX, &v)) < 0)
            return r;
        cpu->socket = (int32_t)v;
    } else if (r != -ENOENT) {
        return r;
    }
    snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%u/topology/core_id", id);
    r = read_rel(x, rel);
    if (r >= 0) {
        if ((r = buf_u64(x, rel, INT32_MAX, &v)) < 0)
            return r;
        cpu->core = (int32_t)v;
    } else if (r != -ENOENT) {
        return r;
    }
    snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%u/topology/thread_siblings_list", id);
    r = read_rel(x, rel);
    if (r >= 0) {
        if ((r = buf_cpulist(x, rel)) < 0)
            return r;
    } else if (r == -ENOENT) {
        memset(x->bits, 0, NUMAFIT__CPU_WORDS * sizeof(uint64_t));
        numafit__bit_set(x->bits, id);
    } else {
        return r;
    }
    r = numafit__dhost_set_siblings(x->d, cpu, x->bits);
    if (r == -E2BIG)
        return fail(x, -ERANGE, rel, "sibling lists longer than %u CPUs in all",
                    NUMAFIT__SIBLINGS_MAX);
    return r;
}

/* Whether CPU id is online by its own file, as libvirt's virHostCPUGetOnline
 * reads it: cpu<N>/online "0" is offline, any other number online, and a
 * CPU without the file (cpu0 of x86 cannot go offline) is online. */
static int cpu_online(struct sctx *x, uint32_t id, bool *online) {
    char rel[96];
    uint64_t v;
    int r;
    snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%u/online", id);
    r = read_rel(x, rel);
    if (r == -ENOENT) {
        *online = true;
        return 0;
    }
    if (r < 0 || (r = buf_u64(x, rel, UINT32_MAX, &v)) < 0)
        return r;
    *online = v != 0;
    return 0;
}

/* The MemTotal line (kB) of a node's meminfo ("Node 0 MemTotal:   32823232
 * kB") or of /proc/meminfo ("MemTotal:       16318436 kB"). */
static int read_memtotal(struct sctx *x, const char *rel, uint64_t *kib) {
    const char *p;
    uint64_t v = 0;
    size_t nd = 0;
    int r;
    if ((r = need(x, rel)) < 0)
        return r;
    p = strstr(x->fs.buf, "MemTotal:");
    if (!p)
        return fail(x, -EBADMSG, rel, "no MemTotal line");
    p += strlen("MemTotal:");
    while (*p == ' ' || *p == '\t')
        p++;
    for (; *p >= '0' && *p <= '9' && nd < 19; p++, nd++)
        v = v * 10 + (uint64_t)(*p - '0');
    if (!nd || strncmp(p, " kB", 3))
        return fail(x, -EBADMSG, rel, "MemTotal is not a number of kB");
    *kib = v;
    return 0;
}

/* The CPUs of x->bits and the topology of each, into cell c (rel: the file
 * that listed them). */
static int read_cpus(struct sctx *x, struct numafit__dcell *c, const char *rel) {
    uint64_t cpus[NUMAFIT__CPU_WORDS];
    int r, b = -1;
    memcpy(cpus, x->bits, sizeof(cpus));
    while ((b = numafit__bits_next(cpus, NUMAFIT__CPU_WORDS, b)) >= 0) {
        if (x->ncpus++ >= NUMAFIT__CPU_LIMIT)
            return fail(x, -ERANGE, rel, "more than %d CPUs in all", NUMAFIT__CPU_LIMIT);
        if ((r = read_cpu(x, c, (uint32_t)b)) < 0)
            return r;
    }
    return 0;
}

/* The node's CPUs: cpulist, or cpumap on kernels without cpulist. */
static int read_node_cpus(struct sctx *x, struct numafit__dcell *c, uint32_t node) {
    char rel[160];
    int r;
    snprintf(rel, sizeof(rel), "sys/devices/system/node/node%u/cpulist", node);
    if ((r = read_rel(x, rel)) >= 0) {
        r = buf_cpulist(x, rel);
    } else if (r == -ENOENT) {
        snprintf(rel, sizeof(rel), "sys/devices/system/node/node%u/cpumap", node);
        if ((r = read_rel(x, rel)) == -ENOENT)
            return fail(x, r, rel, "no such file (nor cpulist)");
        if (r >= 0)
            r = buf_cpumap(x, rel);
    }
    return r < 0 ? r : read_cpus(x, c, rel);
}

/* The node's pages: the base pages, then each huge page size ascending. */
static int read_node_pages(struct sctx *x, struct numafit__dcell *c, uint32_t node,
                           uint64_t base_kb) {
    char rel[160];
    uint32_t *sizes = NULL, nsizes = 0;
    uint64_t *counts = NULL, huge = 0;
    int r;
    snprintf(rel, sizeof(rel), "sys/devices/system/node/node%u/hugepages", node);
    r = list_dir(x, rel, "hugepages-", "kB", 1u << 30, &sizes, &nsizes);
    if (r < 0 && r != -ENOENT)
        return r;
    if (nsizes >= NUMAFIT__PAGES_MAX) {
        r = fail(x, -ERANGE, rel, "too many page sizes");
        goto out;
    }
    if (nsizes) {
        counts = numafit__calloc(nsizes, sizeof(*counts));
        if (!counts) {
            r = -ENOMEM;
            goto out;
        }
    }
    for (uint32_t i = 0; i < nsizes; i++) {
        snprintf(rel, sizeof(rel),
                 "sys/devices/system/node/node%u/hugepages/hugepages-%ukB/"
                 "nr_hugepages",
                 node, sizes[i]);
        if ((r = need(x, rel)) < 0 || (r = buf_u64(x, rel, UINT64_MAX >> 24, &counts[i])) < 0)
            goto out;
        huge += counts[i] * sizes[i];
    }
    r = numafit__dcell_add_pages(c, base_kb,
                                 c->memory_kib > huge ? (c->memory_kib - huge) / base_kb : 0);
    for (uint32_t i = 0; r == 0 && i < nsizes; i++)
        r = numafit__dcell_add_pages(c, sizes[i], counts[i]);
    if (r < 0)
        goto out;
out:
    numafit__free(sizes);
    numafit__free(counts);
    return r;
}

/* distances: one value per node, in node order (none when the list does not
 * match the nodes) */
static int read_node_distances(struct sctx *x, struct numafit__dcell *c, uint32_t node,
                               const uint32_t *nodes, uint32_t nnodes) {
    char rel[160];
    int r;
    snprintf(rel, sizeof(rel), "sys/devices/system/node/node%u/distance", node);
    r = read_rel(x, rel);
    if (r >= 0) {
        const char *p = x->fs.buf;
        uint32_t k = 0;
        r = 0;
        while (*p && r == 0) {
            uint64_t v = 0;
            size_t nd = 0;
            while (*p == ' ' || *p == '\n')
                p++;
            if (!*p)
                break;
            for (; *p >= '0' && *p <= '9' && nd < 10; p++, nd++)
                v = v * 10 + (uint64_t)(*p - '0');
            if (!nd || (*p && *p != ' ' && *p != '\n') || v > UINT32_MAX) {
                r = fail(x, -EBADMSG, rel, "not a list of distances");
                break;
            }
            if (k < nnodes)
                r = numafit__dcell_add_dist(c, nodes[k], (uint32_t)v);
            k++;
        }
        if (r == 0 && k != nnodes) {
            /* a list that does not match the nodes: no distances */
            c->ndist = 0;
            c->has_dist = false;
        }
    } else if (r == -ENOENT) {
        r = 0;
    }
    return r;
}

static int read_node(struct sctx *x, uint32_t node, const uint32_t *nodes, uint32_t nnodes,
                     uint64_t base_kb) {
    struct numafit__dcell *c = numafit__dhost_add_cell(x->d);
    int r;
    if (!c)
        return -ENOMEM;
    char rel[96];
    c->id = (int32_t)node;
    snprintf(rel, sizeof(rel), "sys/devices/system/node/node%u/meminfo", node);
    if ((r = read_node_cpus(x, c, node)) < 0 || (r = read_memtotal(x, rel, &c->memory_kib)) < 0 ||
        (r = read_node_pages(x, c, node, base_kb)) < 0)
        return r;
    return read_node_distances(x, c, node, nodes, nnodes);
}

/* A kernel without NUMA (no node directory, or no node<N> in it): libvirt
 * fakes one cell (virCapabilitiesHostNUMAInitFake), id 0, with every online
 * CPU (cpu<N>/online, as cpu_online() reads it) and the host's memory
 * (virHostMemGetInfo: MemTotal of /proc/meminfo), and no page sizes and no
 * distances. Each CPU's topology is read from its own files (libvirt numbers
 * the fake cell's sockets, cores and threads in CPU order instead: the same
 * for hosts whose thread siblings are consecutive ids). */
static int read_fake_node(struct sctx *x) {
    struct numafit__dcell *c;
    uint32_t *ids = NULL, nids = 0;
    int r = list_dir(x, "sys/devices/system/cpu", "cpu", "", NUMAFIT_CPU_MAX, &ids, &nids);
    if (r < 0)
        return r;
    if (!(c = numafit__dhost_add_cell(x->d))) {
        numafit__free(ids);
        return -ENOMEM;
    }
    c->id = 0;
    memset(x->bits, 0, NUMAFIT__CPU_WORDS * sizeof(uint64_t));
    for (uint32_t i = 0; i < nids; i++) {
        bool on;
        if ((r = cpu_online(x, ids[i], &on)) < 0)
            break;
        if (on)
            numafit__bit_set(x->bits, ids[i]);
    }
    numafit__free(ids);
    if (r < 0)
        return r;
    if ((r = read_cpus(x, c, "sys/devices/system/cpu")) < 0)
        return r;
    return read_memtotal(x, "proc/meminfo", &c->memory_kib);
}

/* Every node directory, in node order. */
static int read_nodes(struct sctx *x) {
    long pagesize = sysconf(_SC_PAGESIZE);
    uint64_t base_kb = pagesize >= 4096 ? (uint64_t)pagesize / 1024 : 4;
    uint32_t *nodes = NULL, nnodes = 0;
    int r =
        list_dir(x, "sys/devices/system/node", "node", "", NUMAFIT_CELL_ID_MAX, &nodes, &nnodes);
    if (r == -ENOENT || (r == 0 && nnodes == 0))
        r = read_fake_node(x);
    for (uint32_t i = 0; r == 0 && i < nnodes; i++)
        r = read_node(x, nodes[i], nodes, nnodes, base_kb);
    numafit__free(nodes);
    return r;
}

/* The online CPUs into *ret: sys/devices/system/cpu/online (what libvirt's
 * virNodeGetCPUMap reads for nova), or on kernels without that file each
 * listed CPU by its own cpu<N>/online file (cpu_online(): libvirt's rule for
 * one CPU; libvirt's own map fails without the file, older libvirt scanned
 * the CPUs this way). */
static int read_online(struct sctx *x, uint64_t **ret) {
    int r = read_rel(x, "sys/devices/system/cpu/online");
    if (r >= 0 && (r = buf_cpulist(x, "sys/devices/system/cpu/online")) < 0)
        return r;
    if (r < 0 && r != -ENOENT)
        return r;
    if (!(*ret = numafit__calloc(NUMAFIT__CPU_WORDS, sizeof(uint64_t))))
        return -ENOMEM;
    if (r >= 0) {
        memcpy(*ret, x->bits, NUMAFIT__CPU_WORDS * sizeof(uint64_t));
        return 0;
    }
    for (uint32_t i = 0; i < x->d->ncells; i++)
        for (uint32_t k = 0; k < x->d->cells[i].ncpus; k++) {
            uint32_t id = x->d->cells[i].cpus[k].id;
            bool on;
            if ((r = cpu_online(x, id, &on)) < 0)
                return r;
            if (on)
                numafit__bit_set(*ret, id);
        }
    return 0;
}

/* The root must hold sys/devices/system/cpu (every Linux kernel has it, NUMA
 * or not): a wrong root would otherwise read as a host without NUMA. */
static int check_root(struct sctx *x) {
    const char *rel = "sys/devices/system/cpu";
    DIR *dir;
    int r = numafit__rootfs_opendir(&x->fs, rel, &dir);
    if (r == 0) {
        closedir(dir);
        return 0;
    }
    if (r == -ENAMETOOLONG)
        return fail(x, r, rel, "path too long");
    if (r != -ENOENT && r != -ENOTDIR)
        return fail(x, r, rel, "cannot open directory");
    if (numafit__rootfs_opendir(&x->fs, "devices/system/cpu", &dir) == 0) {
        /* a capture's sys/ given for the capture: name its parent */
        char parent[PATH_CAP];
        const char *root = x->fs.root;
        size_t n = strlen(root), end, base;
        closedir(dir);
        while (n > 1 && root[n - 1] == '/')
            n--;
        end = n;
        while (n > 0 && root[n - 1] != '/')
            n--;
        base = n; /* root[base..end) is the last component */
        while (n > 1 && root[n - 1] == '/')
            n--;
        if ((end - base == 1 && root[base] == '.') ||
            (end - base == 2 && !strncmp(root + base, "..", 2)))
            snprintf(parent, sizeof(parent), "%.*s/..", (int)end, root);
        else
            snprintf(parent, sizeof(parent), "%.*s", (int)(n ? n : 1), n ? root : ".");
        return fail(x, -ENOENT, rel,
                    "no such directory: the root holds devices/system/cpu, a sys directory "
                    "itself: give its parent (%s)",
                    parent);
    }
    return fail(x, -ENOENT, rel,
                "no such directory: not a sysfs root (give the directory "
                "that holds sys/)");
}

NUMAFIT_EXPORT int numafit_host_new_from_sysfs(const char *root, const numafit_hostconf_t *conf,
                                               unsigned flags, numafit_host_t **ret,
                                               numafit_error_t *err) {
    struct sctx x;
    struct numafit__dhost d;
    uint64_t *online = NULL;
    int r;

    numafit__error_clear(err);
    if (!ret || (flags & ~(unsigned)NUMAFIT__DISCOVER_FLAGS) ||
        (root && strlen(root) > PATH_CAP - 128)) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "", NULL, "invalid argument");
        return -EINVAL;
    }
    memset(&d, 0, sizeof(d));
    if ((r = numafit__discover_check_conf(conf, err)) < 0)
        return r;
    x.err = err;
    x.d = &d;
    x.ncpus = 0;
    numafit__rootfs_init(&x.fs, root, FILE_MAX, NUMAFIT__ROOTFS_NOFOLLOW);
    x.bits = numafit__malloc(NUMAFIT__CPU_WORDS * sizeof(uint64_t));
    if (!x.fs.buf || !x.bits)
        r = -ENOMEM;
    else if ((r = check_root(&x)) == 0 && (r = read_nodes(&x)) == 0 &&
             (flags & NUMAFIT_DISCOVER_ALL_ONLINE || (r = read_online(&x, &online)) == 0))
        r = numafit__discover_build(&d, online, conf, flags, ret, err);
    if (r == -ENOMEM)
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
    numafit__dhost_clear(&d);
    numafit__free(online);
    numafit__rootfs_clear(&x.fs);
    numafit__free(x.bits);
    return r;
}
