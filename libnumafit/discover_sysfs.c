/* Host discovery from a Linux sysfs tree under a caller-given root (captured
 * trees in tests, "/" on a live host), read the way libvirt builds its
 * capabilities (virCapabilitiesHostNUMANewHost), then nova's rules
 * (discover_rules.c). Only root-relative paths below sys/devices/system are
 * read; every file read is bounded. */
#include "config.h"

#include <dirent.h>
#include <stdarg.h>
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

static int fail(struct sctx *x, int rc, const char *rel, const char *fmt, ...) {
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    numafit__error_set(x->err, rc == -ENOMEM ? NUMAFIT_E_NOMEM : NUMAFIT_E_SCHEMA, -1, rel, NULL,
                       "%s", text);
    return rc;
}

/* Read a whole file into x->fs.buf (NUL-terminated). Returns its length or
 * -errno; ENOENT is returned silently (callers decide). */
static int read_rel(struct sctx *x, const char *rel) {
    char why[NUMAFIT__ROOTFS_WHY_CAP];
    int r = numafit__rootfs_read(&x->fs, rel, why);
    if (r < 0 && r != -ENOENT)
        return fail(x, r, rel, "%s: %s", rel, why);
    return r;
}

static int need(struct sctx *x, const char *rel) {
    int r = read_rel(x, rel);
    if (r == -ENOENT)
        return fail(x, r, rel, "%s: no such file", rel);
    return r;
}

/* The single unsigned number in x->fs.buf (trailing newline allowed). */
static int buf_u64(struct sctx *x, const char *rel, uint64_t max, uint64_t *out) {
    const char *p = x->fs.buf;
    uint64_t v = 0;
    size_t nd = 0;
    for (; *p >= '0' && *p <= '9'; p++, nd++) {
        if (v > (UINT64_MAX - 9) / 10)
            return fail(x, -ERANGE, rel, "%s: number out of range", rel);
        v = v * 10 + (uint64_t)(*p - '0');
    }
    while (*p == '\n' || *p == ' ')
        p++;
    if (!nd || *p)
        return fail(x, -EBADMSG, rel, "%s: not an unsigned number", rel);
    if (v > max)
        return fail(x, -ERANGE, rel, "%s: number out of range", rel);
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
        return fail(x, r, rel, "%s: not a cpu list", rel);
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
        return fail(x, -E2BIG, rel, "%s: too many entries (more than %u)", rel, LIST_MAX);
    if (r != -ERANGE)
        return r;
    /* skipping it would drop a node (or page size) without a word */
    return fail(x, -ERANGE, where, "%s: number above the limit %u", where, max_n);
}

static int open_dir(struct sctx *x, const char *rel, DIR **dir) {
    int r = numafit__rootfs_opendir(&x->fs, rel, dir);
    if (r == -ENAMETOOLONG)
        return fail(x, r, rel, "%s: path too long", rel);
    if (r < 0 && r != -ENOENT)
        fail(x, r, rel, "%s: cannot open directory", rel);
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
        return fail(x, -ERANGE, rel, "%s: sibling lists longer than %u CPUs in all", rel,
                    NUMAFIT__SIBLINGS_MAX);
    return r;
}

/* MemTotal (kB) of a node's meminfo ("Node 0 MemTotal:   32823232 kB"). */
static int read_memtotal(struct sctx *x, uint32_t node, uint64_t *kib) {
    char rel[96];
    const char *p;
    uint64_t v = 0;
    size_t nd = 0;
    int r;
    snprintf(rel, sizeof(rel), "sys/devices/system/node/node%u/meminfo", node);
    if ((r = need(x, rel)) < 0)
        return r;
    p = strstr(x->fs.buf, "MemTotal:");
    if (!p)
        return fail(x, -EBADMSG, rel, "%s: no MemTotal line", rel);
    p += strlen("MemTotal:");
    while (*p == ' ' || *p == '\t')
        p++;
    for (; *p >= '0' && *p <= '9' && nd < 19; p++, nd++)
        v = v * 10 + (uint64_t)(*p - '0');
    if (!nd || strncmp(p, " kB", 3))
        return fail(x, -EBADMSG, rel, "%s: MemTotal is not a number of kB", rel);
    *kib = v;
    return 0;
}

/* The node's CPUs (cpulist) and the topology of each. */
static int read_node_cpus(struct sctx *x, struct numafit__dcell *c, uint32_t node) {
    uint64_t cpus[NUMAFIT__CPU_WORDS];
    char rel[160];
    int r, b = -1;
    snprintf(rel, sizeof(rel), "sys/devices/system/node/node%u/cpulist", node);
    if ((r = need(x, rel)) < 0 || (r = buf_cpulist(x, rel)) < 0)
        return r;
    memcpy(cpus, x->bits, sizeof(cpus));
    while ((b = numafit__bits_next(cpus, NUMAFIT__CPU_WORDS, b)) >= 0) {
        if (x->ncpus++ >= NUMAFIT__CPU_LIMIT)
            return fail(x, -ERANGE, rel, "%s: more than %d CPUs in all", rel, NUMAFIT__CPU_LIMIT);
        if ((r = read_cpu(x, c, (uint32_t)b)) < 0)
            return r;
    }
    return 0;
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
        r = fail(x, -ERANGE, rel, "%s: too many page sizes", rel);
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
                r = fail(x, -EBADMSG, rel, "%s: not a list of distances", rel);
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
    c->id = (int32_t)node;
    if ((r = read_node_cpus(x, c, node)) < 0 || (r = read_memtotal(x, node, &c->memory_kib)) < 0 ||
        (r = read_node_pages(x, c, node, base_kb)) < 0)
        return r;
    return read_node_distances(x, c, node, nodes, nnodes);
}

/* Every node directory, in node order. */
static int read_nodes(struct sctx *x) {
    long pagesize = sysconf(_SC_PAGESIZE);
    uint64_t base_kb = pagesize >= 4096 ? (uint64_t)pagesize / 1024 : 4;
    uint32_t *nodes = NULL, nnodes = 0;
    int r =
        list_dir(x, "sys/devices/system/node", "node", "", NUMAFIT_CELL_ID_MAX, &nodes, &nnodes);
    if (r == -ENOENT)
        r = 0;
    for (uint32_t i = 0; r == 0 && i < nnodes; i++)
        r = read_node(x, nodes[i], nodes, nnodes, base_kb);
    numafit__free(nodes);
    return r;
}

/* sys/devices/system/cpu/online into *ret (NULL when the file is missing). */
static int read_online(struct sctx *x, uint64_t **ret) {
    int r = read_rel(x, "sys/devices/system/cpu/online");
    if (r == -ENOENT)
        return 0;
    if (r < 0 || (r = buf_cpulist(x, "sys/devices/system/cpu/online")) < 0)
        return r;
    if (!(*ret = numafit__malloc(NUMAFIT__CPU_WORDS * sizeof(uint64_t))))
        return -ENOMEM;
    memcpy(*ret, x->bits, NUMAFIT__CPU_WORDS * sizeof(uint64_t));
    return 0;
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
    else if ((r = read_nodes(&x)) == 0 &&
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
