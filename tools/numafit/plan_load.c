/*
 * numafit plan over a fleet: the inputs. Hosts from a folder of nova JSON
 * files, a dump of nova's compute_nodes table (JSON lines, a JSON list, CSV
 * or mysql's tab-separated batch output), single JSON files, sysfs
 * captures, libvirt URIs and synthetic specs; existing instances from
 * instance_extra rows; flavors. Every message names the file, the line and
 * the field; bad input gives PLAN_EXIT_INPUT.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include <numafit.h>

#include "cli_io.h"
#include "plan_fleet.h"

/* A record (CSV/TSV row, JSON line) may hold a topology of NUMAFIT_INPUT_MAX
 * bytes plus a few other columns. */
#define ROW_MAX ((size_t)NUMAFIT_INPUT_MAX + 65536)

/* The exit status of a library failure: bad input unless out of memory. */
static int lib_status(int rc) {
    return rc == -ENOMEM ? PLAN_EXIT_FAIL : PLAN_EXIT_INPUT;
}

const char *plan_source_kind_name(int kind) {
    static const char *const names[] = {"dir", "db", "uri", "sysfs", "synthetic", "json"};
    return kind >= 0 && kind <= SRC_JSON ? names[kind] : "?";
}

/* ------------------------------------------------------------------ fleet bookkeeping */

const char *plan_host_name(const struct plan *pl, size_t i) {
    return pl->names + pl->hosts[i].name;
}

static uint64_t name_hash(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

/* The host index of name, or -1. */
static long find_host(const struct plan *pl, const char *name) {
    size_t mask, i;
    if (!pl->name_index_cap)
        return -1;
    mask = pl->name_index_cap - 1;
    for (i = (size_t)name_hash(name) & mask; pl->name_index[i]; i = (i + 1) & mask)
        if (strcmp(plan_host_name(pl, pl->name_index[i] - 1), name) == 0)
            return (long)pl->name_index[i] - 1;
    return -1;
}

static int index_grow(struct plan *pl) {
    size_t ncap = pl->name_index_cap ? pl->name_index_cap * 2 : 1024, i, mask = ncap - 1;
    uint32_t *t = calloc(ncap, sizeof(*t));
    if (!t)
        return -1;
    for (i = 0; i < pl->nhosts; i++) {
        size_t j = (size_t)name_hash(plan_host_name(pl, i)) & mask;
        while (t[j])
            j = (j + 1) & mask;
        t[j] = (uint32_t)i + 1;
    }
    free(pl->name_index);
    pl->name_index = t;
    pl->name_index_cap = ncap;
    return 0;
}

int plan_page_size_find(const struct plan *pl, uint64_t size_kb) {
    for (unsigned i = 0; i < pl->npage_sizes; i++)
        if (pl->page_sizes[i] == size_kb)
            return (int)i;
    return -1;
}

int plan_page_size_index(struct plan *pl, uint64_t size_kb) {
    unsigned i;
    for (i = 0; i < pl->npage_sizes; i++)
        if (pl->page_sizes[i] == size_kb)
            return (int)i;
    if (pl->npage_sizes == PLAN_MAX_PAGE_SIZES)
        return -1;
    /* keep them ascending */
    for (i = pl->npage_sizes; i > 0 && pl->page_sizes[i - 1] > size_kb; i--)
        pl->page_sizes[i] = pl->page_sizes[i - 1];
    pl->page_sizes[i] = size_kb;
    pl->npage_sizes++;
    return (int)i;
}

int plan_limits_index(struct plan *pl, double cpu, double ram, uint8_t *ret) {
    unsigned i;
    for (i = 0; i < pl->nlimits; i++)
        if (pl->limits[i].cpu_ratio == cpu && pl->limits[i].ram_ratio == ram) {
            *ret = (uint8_t)i;
            return 0;
        }
    if (pl->nlimits > PLAN_MAX_LIMITS)
        return -1;
    pl->limits[pl->nlimits].cpu_ratio = cpu;
    pl->limits[pl->nlimits].ram_ratio = ram;
    *ret = (uint8_t)pl->nlimits++;
    return 0;
}

static int add_source(struct plan *pl, int kind, const char *what) {
    if (pl->nsources == pl->sources_cap) {
        size_t ncap = pl->sources_cap ? pl->sources_cap * 2 : 8;
        struct plan_source *n = realloc(pl->sources, ncap * sizeof(*n));
        if (!n) {
            plan_error(pl, "out of memory");
            return -1;
        }
        pl->sources = n;
        pl->sources_cap = ncap;
    }
    memset(&pl->sources[pl->nsources], 0, sizeof(pl->sources[0]));
    pl->sources[pl->nsources].kind = kind;
    pl->sources[pl->nsources].what = what;
    pl->sources[pl->nsources].group = -1;
    return (int)pl->nsources++;
}

/* Pinned CPUs of a host (as loaded); notes its huge page sizes. Returns
 * -1 when the fleet has too many page sizes. */
static int host_facts(struct plan *pl, const numafit_host_t *h, uint32_t *ret_pinned) {
    int n = numafit_host_get_cell_count(h);
    uint64_t pinned = 0, v, npages, size;
    for (int c = 0; c < n; c++) {
        if (numafit_host_get_cell_stat(h, (unsigned)c, NUMAFIT_CELL_PINNED_CPUS, 0, &v) == 0)
            pinned += v;
        if (numafit_host_get_cell_stat(h, (unsigned)c, NUMAFIT_CELL_PAGE_SIZES, 0, &npages) < 0)
            continue;
        for (unsigned k = 0; k < npages; k++)
            if (numafit_host_get_cell_pages(h, (unsigned)c, k, 0, &size, NULL, NULL, NULL) == 0 &&
                size > 4 && plan_page_size_index(pl, size) < 0)
                return -1;
    }
    *ret_pinned = (uint32_t)pinned;
    return 0;
}

/*
 * Add a loaded host (takes h). group >= 0: the host is identical to the
 * others of the group, facts are taken from `facts_from` (a host index) when
 * >= 0. where: the message prefix for errors. Returns the index, or -1 after
 * printing why (*status set).
 */
static long add_host(struct plan *pl, numafit_host_t *h, const char *name, int source,
                     int32_t group, long facts_from, const char *where, int *status) {
    size_t nlen = strlen(name);
    struct plan_host *ph;

    *status = PLAN_EXIT_INPUT;
    if (pl->nhosts >= PLAN_MAX_HOSTS) {
        plan_error(pl, "%s: more than %d hosts in the fleet", where, PLAN_MAX_HOSTS);
        numafit_host_free(h);
        return -1;
    }
    if (nlen == 0 || nlen > 255) {
        plan_error(pl, "%s: a host name must have 1 to 255 bytes", where);
        numafit_host_free(h);
        return -1;
    }
    if (find_host(pl, name) >= 0) {
        plan_error(pl, "%s: host name \"%s\" given twice", where, name);
        numafit_host_free(h);
        return -1;
    }
    *status = PLAN_EXIT_FAIL;
    if (pl->nhosts == pl->hosts_cap) {
        size_t ncap = pl->hosts_cap ? pl->hosts_cap * 2 : 1024;
        struct plan_host *n = realloc(pl->hosts, ncap * sizeof(*n));
        if (!n)
            goto nomem;
        pl->hosts = n;
        pl->hosts_cap = ncap;
    }
    if (pl->names_len + nlen + 1 > pl->names_cap) {
        size_t ncap = pl->names_cap ? pl->names_cap * 2 : 65536;
        char *n;
        while (ncap < pl->names_len + nlen + 1)
            ncap *= 2;
        n = realloc(pl->names, ncap);
        if (!n)
            goto nomem;
        pl->names = n;
        pl->names_cap = ncap;
    }
    if ((pl->nhosts + 1) * 2 > pl->name_index_cap && index_grow(pl) < 0)
        goto nomem;
    ph = &pl->hosts[pl->nhosts];
    memset(ph, 0, sizeof(*ph));
    ph->h = h;
    ph->name = (uint32_t)pl->names_len;
    memcpy(pl->names + pl->names_len, name, nlen + 1);
    pl->names_len += nlen + 1;
    ph->source = (uint16_t)source;
    ph->group = group;
    if (facts_from >= 0) {
        ph->unknown_pinned = pl->hosts[facts_from].unknown_pinned;
    } else if (host_facts(pl, h, &ph->unknown_pinned) < 0) {
        plan_error(pl, "%s: more than %d huge page sizes in the fleet", where, PLAN_MAX_PAGE_SIZES);
        *status = PLAN_EXIT_INPUT;
        numafit_host_free(h);
        return -1;
    }
    {
        size_t mask = pl->name_index_cap - 1, j = (size_t)name_hash(name) & mask;
        while (pl->name_index[j])
            j = (j + 1) & mask;
        pl->name_index[j] = (uint32_t)pl->nhosts + 1;
    }
    pl->sources[source].hosts++;
    return (long)pl->nhosts++;
nomem:
    plan_error(pl, "out of memory");
    numafit_host_free(h);
    return -1;
}

/* ------------------------------------------------------------------ files */

/* Read a whole regular file of at most max bytes (NUL-terminated). Prints
 * why and returns NULL on failure (*status set). */
static char *read_all(const struct plan *pl, const char *path, size_t max, size_t *ret_len,
                      int *status) {
    char *buf = NULL, why[256];
    int rc = cli_read_file(path, max, false, &buf, ret_len, why, sizeof(why));

    if (rc < 0) {
        *status = rc == -ENOMEM ? PLAN_EXIT_FAIL : PLAN_EXIT_INPUT;
        plan_error(pl, "%s: %s", path, why);
        return NULL;
    }
    *status = 0;
    return buf;
}

/* The file name without directories and without a last ".ext". */
static void file_stem(const char *path, char *out, size_t cap) {
    const char *base = strrchr(path, '/'), *dot;
    size_t n;
    base = base ? base + 1 : path;
    dot = strrchr(base, '.');
    n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    if (n >= cap)
        n = cap - 1;
    memcpy(out, base, n);
    out[n] = '\0';
}

/* The last path component, trailing slashes ignored. */
static void base_name(const char *path, char *out, size_t cap) {
    size_t n = strlen(path), start;
    while (n > 1 && path[n - 1] == '/')
        n--;
    start = n;
    while (start > 0 && path[start - 1] != '/')
        start--;
    n -= start;
    if (n >= cap)
        n = cap - 1;
    memcpy(out, path + start, n);
    out[n] = '\0';
}

/* Two independent 64-bit hashes of a text (multiply-rotate over 8-byte
 * words, different constants, murmur3's finaliser). */
static uint64_t fmix64(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

static void text_hash(const char *t, size_t n, uint64_t *h1, uint64_t *h2) {
    uint64_t a = 0x9e3779b97f4a7c15ull ^ n, b = 0x6a09e667f3bcc909ull + n, w;
    size_t i;
    for (i = 0; i + 8 <= n; i += 8) {
        memcpy(&w, t + i, 8);
        a ^= w * 0x87c37b91114253d5ull;
        a = (a << 31 | a >> 33) * 0x4cf5ad432745937full;
        b += w * 0x9ddfea08eb382d69ull;
        b = (b << 27 | b >> 37) * 0x52dce729ull + 0x38495ab5ull;
    }
    w = 0;
    memcpy(&w, t + i, n - i);
    a ^= w * 0x87c37b91114253d5ull;
    b += w * 0x9ddfea08eb382d69ull;
    *h1 = fmix64(a);
    *h2 = fmix64(b ^ (a >> 7));
}

/* The slot of a text hash (found, or the empty one to fill). */
static struct plan_text *text_slot(struct plan *pl, uint64_t h1, uint64_t h2) {
    size_t mask = pl->texts_cap - 1, i;
    for (i = (size_t)h1 & mask;; i = (i + 1) & mask) {
        struct plan_text *t = &pl->texts[i];
        if (!t->host || (t->h1 == h1 && t->h2 == h2))
            return t;
    }
}

static int texts_grow(struct plan *pl) {
    size_t ncap = pl->texts_cap ? pl->texts_cap * 2 : 1024;
    struct plan_text *old = pl->texts, *n = calloc(ncap, sizeof(*n));
    size_t oldcap = pl->texts_cap;
    if (!n)
        return -1;
    pl->texts = n;
    pl->texts_cap = ncap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].host)
            *text_slot(pl, old[i].h1, old[i].h2) = old[i];
    free(old);
    return 0;
}

/*
 * Load one host from nova JSON text (a primitive, its DB string form or the
 * legacy dict). A text seen before gives a copy of the host it gave (no
 * second parse), in the same group: their alone counts are computed once.
 */
static int json_host(struct plan *pl, const char *text, size_t len, const char *name, int source,
                     const char *where) {
    numafit_host_t *h = NULL;
    numafit_error_t e;
    struct plan_text *slot;
    uint64_t h1, h2;
    long idx;
    int rc, status;

    if ((pl->ntexts + 1) * 2 > pl->texts_cap && texts_grow(pl) < 0) {
        plan_error(pl, "out of memory");
        return PLAN_EXIT_FAIL;
    }
    text_hash(text, len, &h1, &h2);
    slot = text_slot(pl, h1, h2);
    if (slot->host) {
        const struct plan_host *first = &pl->hosts[slot->host - 1];
        if (numafit_host_dup(first->h, &h) < 0) {
            plan_error(pl, "out of memory");
            return PLAN_EXIT_FAIL;
        }
        if (add_host(pl, h, name, source, slot->group, (long)slot->host - 1, where, &status) < 0)
            return status;
        return 0;
    }
    memset(&e, 0, sizeof(e));
    rc = numafit_host_new_from_json(text, len, 0, &h, &e);
    if (rc < 0) {
        char prefix[1024];
        snprintf(prefix, sizeof(prefix), "%s: host %s", where, name);
        plan_lib_error(pl, prefix, rc, &e);
        return lib_status(rc);
    }
    idx = add_host(pl, h, name, source, pl->ngroups, -1, where, &status);
    if (idx < 0)
        return status;
    slot->h1 = h1;
    slot->h2 = h2;
    slot->host = (uint32_t)idx + 1;
    slot->group = pl->ngroups++;
    pl->ntexts++;
    return 0;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int plan_load_dir(struct plan *pl, const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *de;
    char **files = NULL;
    size_t n = 0, cap = 0, i;
    int src, ret = 0;

    if (!d) {
        plan_error(pl, "--hosts-dir %s: %s", dir, strerror(errno));
        return PLAN_EXIT_INPUT;
    }
    if ((src = add_source(pl, SRC_DIR, dir)) < 0) {
        closedir(d);
        return PLAN_EXIT_FAIL;
    }
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len <= 5 || strcmp(de->d_name + len - 5, ".json") != 0 || de->d_name[0] == '.')
            continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 256;
            char **nf = realloc(files, ncap * sizeof(*nf));
            if (!nf) {
                ret = PLAN_EXIT_FAIL;
                break;
            }
            files = nf;
            cap = ncap;
        }
        if (!(files[n] = strdup(de->d_name))) {
            ret = PLAN_EXIT_FAIL;
            break;
        }
        n++;
    }
    closedir(d);
    if (ret) {
        plan_error(pl, "out of memory");
        goto out;
    }
    if (n == 0) {
        plan_error(pl, "--hosts-dir %s: no *.json files", dir);
        ret = PLAN_EXIT_INPUT;
        goto out;
    }
    qsort(files, n, sizeof(*files), cmp_str);
    for (i = 0; i < n && !ret; i++) {
        char path[PATH_MAX], name[256];
        size_t len;
        char *text;
        if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, files[i]) >= sizeof(path)) {
            plan_error(pl, "%s/%s: path too long", dir, files[i]);
            ret = PLAN_EXIT_INPUT;
            break;
        }
        text = read_all(pl, path, NUMAFIT_INPUT_MAX, &len, &ret);
        if (!text)
            break;
        ret = 0;
        file_stem(files[i], name, sizeof(name));
        ret = json_host(pl, text, len, name, src, path);
        free(text);
    }
out:
    for (i = 0; i < n; i++)
        free(files[i]);
    free(files);
    return ret;
}

int plan_load_json_host(struct plan *pl, const char *path) {
    char name[256];
    size_t len;
    int src, ret;
    char *text = read_all(pl, path, NUMAFIT_INPUT_MAX, &len, &ret);
    if (!text)
        return ret;
    if ((src = add_source(pl, SRC_JSON, path)) < 0) {
        free(text);
        return PLAN_EXIT_FAIL;
    }
    file_stem(path, name, sizeof(name));
    ret = json_host(pl, text, len, name, src, path);
    free(text);
    return ret;
}

int plan_load_sysfs(struct plan *pl, const char *root, const numafit_hostconf_t *conf,
                    unsigned flags) {
    numafit_host_t *h = NULL;
    numafit_error_t e;
    char name[256], prefix[PATH_MAX + 16];
    int src, rc, status;

    memset(&e, 0, sizeof(e));
    snprintf(prefix, sizeof(prefix), "--sysfs %s", root);
    {
        /* a capture holds sys/devices/system (the library takes a tree
         * without NUMA nodes for a host without NUMA topology) */
        char probe[PATH_MAX];
        struct stat st;
        snprintf(probe, sizeof(probe), "%s/sys/devices/system", root);
        if (stat(root, &st) < 0) {
            plan_error(pl, "%s: %s", prefix, strerror(errno));
            return PLAN_EXIT_INPUT;
        }
        if (stat(probe, &st) < 0 || !S_ISDIR(st.st_mode)) {
            plan_error(pl, "%s: not a sysfs tree (no %s)", prefix, probe);
            return PLAN_EXIT_INPUT;
        }
    }
    rc = numafit_host_new_from_sysfs(root, conf, flags, &h, &e);
    if (rc < 0) {
        plan_lib_error(pl, prefix, rc, &e);
        return lib_status(rc);
    }
    if ((src = add_source(pl, SRC_SYSFS, root)) < 0) {
        numafit_host_free(h);
        return PLAN_EXIT_FAIL;
    }
    base_name(root, name, sizeof(name));
    if (add_host(pl, h, name, src, -1, -1, prefix, &status) < 0)
        return status;
    return 0;
}

int plan_load_uri(struct plan *pl, const char *uri, const numafit_hostconf_t *conf,
                  unsigned flags) {
    numafit_host_t *h = NULL;
    numafit_error_t e;
    char prefix[1024];
    int src, rc, status;

    memset(&e, 0, sizeof(e));
    snprintf(prefix, sizeof(prefix), "--uri %s", uri);
    rc = numafit_host_new_from_libvirt(uri, conf, flags, &h, &e);
    if (rc < 0) {
        plan_lib_error(pl, prefix, rc, &e);
        return rc == -ENOMEM ? PLAN_EXIT_FAIL : PLAN_EXIT_INPUT;
    }
    if ((src = add_source(pl, SRC_URI, uri)) < 0) {
        numafit_host_free(h);
        return PLAN_EXIT_FAIL;
    }
    if (add_host(pl, h, uri, src, -1, -1, prefix, &status) < 0)
        return status;
    return 0;
}

/* ------------------------------------------------------------------ rows (db dumps) */

enum { ROWS_JSONL, ROWS_CSV, ROWS_TSV, ROWS_JSONARRAY };

struct rows {
    const struct plan *pl; /* where messages go */
    FILE *f;
    const char *path;
    const char *what; /* option name for messages */
    int fmt;
    unsigned long line;     /* lines read so far */
    unsigned long rec_line; /* first line of the current row (entry number for a list) */
    char *buf;              /* CSV/TSV: the fields, NUL-terminated one after another */
    size_t cap, used;
    size_t *off;
    unsigned char *isnull;
    size_t nf, fcap;
    char **hdr;
    size_t nhdr;
    json_t *arr;
    size_t arri;
    json_t *row;
    char *scratch[4];
    unsigned nscratch;
    char *rb; /* JSON lines: read buffer */
    size_t rb_pos, rb_len;
    /* a JSON line read by the scanner below instead of jansson */
    bool fast;
    struct fast_member {
        const char *key, *val; /* key without quotes; the value's JSON text */
        size_t klen, vlen;
        char type; /* s(tring) o(bject) a(rray) n(umber) t f z(null) */
        bool esc;  /* a string with escapes */
    } fm[32];
    unsigned nfm;
};

static int buf_put(struct rows *r, char ch) {
    if (r->used + 1 >= r->cap) {
        size_t ncap = r->cap ? r->cap * 2 : 65536;
        char *nb;
        if (r->cap >= ROW_MAX)
            return -2;
        nb = realloc(r->buf, ncap);
        if (!nb)
            return -1;
        r->buf = nb;
        r->cap = ncap;
    }
    r->buf[r->used++] = ch;
    return 0;
}

static int field_start(struct rows *r) {
    if (r->nf == r->fcap) {
        size_t ncap = r->fcap ? r->fcap * 2 : 16;
        size_t *no = realloc(r->off, ncap * sizeof(*no));
        unsigned char *nn;
        if (!no)
            return -1;
        r->off = no;
        nn = realloc(r->isnull, ncap);
        if (!nn)
            return -1;
        r->isnull = nn;
        r->fcap = ncap;
    }
    if (r->nf >= 4096)
        return -3;
    r->off[r->nf] = r->used;
    r->isnull[r->nf] = 0;
    r->nf++;
    return 0;
}

static int rows_fail(struct rows *r, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "FILE:LINE" of the current row ("FILE: entry N" in a JSON list). */
static void rows_where(const struct rows *r, char *out, size_t cap) {
    if (r->fmt == ROWS_JSONARRAY)
        snprintf(out, cap, "%s: entry %lu", r->path, r->rec_line);
    else
        snprintf(out, cap, "%s:%lu", r->path, r->rec_line);
}

static int rows_fail(struct rows *r, int code, const char *fmt, ...) {
    va_list ap;
    char where[PATH_MAX + 32], msg[1024];
    rows_where(r, where, sizeof(where));
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    plan_error(r->pl, "%s: %s", where, msg);
    return code;
}

static int put_fail(struct rows *r, int rc) {
    if (rc == -1) {
        plan_error(r->pl, "out of memory");
        return -PLAN_EXIT_FAIL;
    }
    if (rc == -3)
        return rows_fail(r, -PLAN_EXIT_INPUT, "more than 4096 fields");
    return rows_fail(r, -PLAN_EXIT_INPUT, "row longer than %zu bytes", ROW_MAX);
}

/* An unquoted field that means SQL NULL. */
static bool null_word(const char *s) {
    return !*s || strcmp(s, "NULL") == 0 || strcmp(s, "\\N") == 0;
}

/*
 * Read one CSV (RFC 4180: "..." quoting with "" for a quote, newlines
 * allowed inside quotes) or mysql batch (tab-separated, backslash escapes,
 * NULL) record. Returns 1 with the fields, 0 at the end, -status on error.
 */
static int read_record(struct rows *r) {
    int ch, rc;
    bool tsv = r->fmt == ROWS_TSV;
    char sep = tsv ? '\t' : ',';

    for (;;) {
        bool any = false;
        r->used = 0;
        r->nf = 0;
        r->rec_line = r->line + 1;
        ch = getc_unlocked(r->f);
        if (ch == EOF)
            return ferror(r->f) ? rows_fail(r, -PLAN_EXIT_FAIL, "read error") : 0;
        ungetc(ch, r->f);
        for (;;) {
            bool quoted = false, literal = false;
            if ((rc = field_start(r)) < 0)
                return put_fail(r, rc);
            ch = getc_unlocked(r->f);
            if (!tsv && ch == '"') {
                quoted = true;
                any = true;
                for (;;) {
                    ch = getc_unlocked(r->f);
                    if (ch == EOF)
                        return rows_fail(r, -PLAN_EXIT_INPUT,
                                         "unterminated quoted field (field %zu)", r->nf);
                    if (ch == '"') {
                        ch = getc_unlocked(r->f);
                        if (ch != '"')
                            break;
                    }
                    if (ch == '\n')
                        r->line++;
                    if ((rc = buf_put(r, (char)ch)) < 0)
                        return put_fail(r, rc);
                }
                if (ch == '\r') {
                    ch = getc_unlocked(r->f);
                    if (ch != '\n')
                        ch = '\r';
                }
                if (ch != sep && ch != '\n' && ch != EOF)
                    return rows_fail(r, -PLAN_EXIT_INPUT,
                                     "unexpected character '%c' after the closing quote of "
                                     "field %zu",
                                     isprint(ch) ? ch : '?', r->nf);
            } else {
                while (ch != sep && ch != '\n' && ch != EOF) {
                    if (ch == '\r') {
                        int n2 = getc_unlocked(r->f);
                        if (n2 == '\n' || n2 == EOF) {
                            ch = n2;
                            break;
                        }
                        ungetc(n2, r->f);
                    }
                    any = true;
                    if (!tsv && ch == '"')
                        return rows_fail(r, -PLAN_EXIT_INPUT,
                                         "a quote inside unquoted field %zu (quote the whole "
                                         "field and double the quotes inside)",
                                         r->nf);
                    if (tsv && ch == '\\') {
                        /* mysql --batch escapes; \N alone is NULL */
                        int n2 = getc_unlocked(r->f);
                        switch (n2) {
                            case 'n':
                                ch = '\n';
                                break;
                            case 't':
                                ch = '\t';
                                break;
                            case 'r':
                                ch = '\r';
                                break;
                            case '0':
                                ch = '\0';
                                break;
                            case 'N':
                                ch = -2;
                                break;
                            case EOF:
                                return rows_fail(r, -PLAN_EXIT_INPUT,
                                                 "a backslash at the end of the file");
                            default:
                                ch = n2;
                                break;
                        }
                        if (ch == -2) {
                            if ((rc = buf_put(r, '\\')) < 0 || (rc = buf_put(r, 'N')) < 0)
                                return put_fail(r, rc);
                            ch = getc_unlocked(r->f);
                            continue;
                        }
                        literal = true;
                    }
                    if ((rc = buf_put(r, (char)ch)) < 0)
                        return put_fail(r, rc);
                    ch = getc_unlocked(r->f);
                }
            }
            if ((rc = buf_put(r, '\0')) < 0)
                return put_fail(r, rc);
            if (!quoted && !literal && null_word(r->buf + r->off[r->nf - 1]))
                r->isnull[r->nf - 1] = 1;
            if (ch == '\n' || ch == EOF) {
                if (ch == '\n')
                    r->line++;
                break;
            }
        }
        if (!any && r->nf == 1) /* a blank line */
            continue;
        return 1;
    }
}

static void rows_close(struct rows *r) {
    if (r->f)
        fclose(r->f);
    free(r->buf);
    free(r->off);
    free(r->isnull);
    for (size_t i = 0; i < r->nhdr; i++)
        free(r->hdr[i]);
    free(r->hdr);
    json_decref(r->arr);
    json_decref(r->row);
    for (unsigned i = 0; i < r->nscratch; i++)
        free(r->scratch[i]);
    free(r->rb);
    memset(r, 0, sizeof(*r));
}

#define RB_SIZE (1u << 20)

/* One JSON line into r->buf (without '\n'; r->used bytes): 1, 0 at the end
 * of the file, -status on error. */
static int read_jsonl(struct rows *r) {
    bool any = false;
    r->used = 0;
    if (!r->rb && !(r->rb = malloc(RB_SIZE))) {
        plan_error(r->pl, "out of memory");
        return -PLAN_EXIT_FAIL;
    }
    for (;;) {
        const char *nl;
        size_t n;
        if (r->rb_pos == r->rb_len) {
            r->rb_len = fread(r->rb, 1, RB_SIZE, r->f);
            r->rb_pos = 0;
            if (r->rb_len == 0) {
                if (ferror(r->f))
                    return rows_fail(r, -PLAN_EXIT_FAIL, "read error");
                if (any && r->buf)
                    r->buf[r->used] = '\0';
                return any && r->buf ? 1 : 0;
            }
        }
        any = true;
        nl = memchr(r->rb + r->rb_pos, '\n', r->rb_len - r->rb_pos);
        n = nl ? (size_t)(nl - (r->rb + r->rb_pos)) : r->rb_len - r->rb_pos;
        if (r->used + n > ROW_MAX)
            return rows_fail(r, -PLAN_EXIT_INPUT, "row longer than %zu bytes", ROW_MAX);
        if (r->used + n + 1 > r->cap) {
            size_t ncap = r->cap ? r->cap : 65536;
            char *nb;
            while (ncap < r->used + n + 1)
                ncap *= 2;
            nb = realloc(r->buf, ncap);
            if (!nb) {
                plan_error(r->pl, "out of memory");
                return -PLAN_EXIT_FAIL;
            }
            r->buf = nb;
            r->cap = ncap;
        }
        memcpy(r->buf + r->used, r->rb + r->rb_pos, n);
        r->used += n;
        r->rb_pos += n;
        r->buf[r->used] = '\0';
        if (nl) {
            r->rb_pos++;
            return 1;
        }
    }
}

/* Open a row file: the format from the extension or the first bytes. */
static int rows_open(struct rows *r, const struct plan *pl, const char *path, const char *what) {
    const char *ext = strrchr(path, '.');
    char why[256];
    int ch;

    memset(r, 0, sizeof(*r));
    r->pl = pl;
    r->path = path;
    r->what = what;
    /* a regular file: a FIFO or a device (/dev/zero) is refused, never read */
    r->f = cli_fopen_read(path, false, why, sizeof(why));
    if (!r->f) {
        plan_error(r->pl, "%s %s: %s", what, path, why);
        return PLAN_EXIT_INPUT;
    }
    /* a UTF-8 byte order mark */
    ch = getc_unlocked(r->f);
    if (ch == 0xef) {
        if (getc_unlocked(r->f) != 0xbb || getc_unlocked(r->f) != 0xbf) {
            plan_error(r->pl, "%s: not UTF-8 text", path);
            return PLAN_EXIT_INPUT;
        }
    } else if (ch != EOF) {
        ungetc(ch, r->f);
    }
    if (ext && (strcmp(ext, ".jsonl") == 0 || strcmp(ext, ".ndjson") == 0)) {
        r->fmt = ROWS_JSONL;
    } else if (ext && strcmp(ext, ".tsv") == 0) {
        r->fmt = ROWS_TSV;
    } else {
        /* sniff: '[' a JSON list, '{' JSON lines, else a header line; at
         * most ROW_MAX bytes are looked at */
        int first;
        size_t seen = 0;
        long pos = ftell(r->f);
        do
            first = getc_unlocked(r->f);
        while ((first == ' ' || first == '\t' || first == '\r' || first == '\n') &&
               ++seen <= ROW_MAX);
        if (first == EOF) {
            if (ferror(r->f)) {
                plan_error(r->pl, "%s %s: read error: %s", what, path, strerror(errno));
                return PLAN_EXIT_FAIL;
            }
            plan_error(r->pl, "%s %s: empty file", what, path);
            return PLAN_EXIT_INPUT;
        }
        if (seen > ROW_MAX) {
            plan_error(r->pl, "%s %s: more than %zu bytes of blank space at the start", what, path,
                       (size_t)ROW_MAX);
            return PLAN_EXIT_INPUT;
        }
        if (first == '[')
            r->fmt = ROWS_JSONARRAY;
        else if (first == '{')
            r->fmt = ROWS_JSONL;
        else if (ext && strcmp(ext, ".csv") == 0)
            r->fmt = ROWS_CSV;
        else {
            /* the header line decides: tabs and no comma = mysql batch output */
            bool tab = false, comma = false;
            for (ch = first; ch != EOF && ch != '\n'; ch = getc_unlocked(r->f)) {
                tab |= ch == '\t';
                comma |= ch == ',';
                if (++seen > ROW_MAX) {
                    plan_error(r->pl, "%s %s: no header line in the first %zu bytes", what, path,
                               (size_t)ROW_MAX);
                    return PLAN_EXIT_INPUT;
                }
            }
            r->fmt = tab && !comma ? ROWS_TSV : ROWS_CSV;
        }
        if (fseek(r->f, pos, SEEK_SET) != 0) {
            plan_error(r->pl, "%s %s: cannot seek (give a regular file)", what, path);
            return PLAN_EXIT_INPUT;
        }
    }
    if (r->fmt == ROWS_JSONARRAY) {
        json_error_t jerr;
        r->arr = json_loadf(r->f, JSON_REJECT_DUPLICATES, &jerr);
        if (!r->arr) {
            if (cli_json_error(&jerr, why, sizeof(why)) == -ENOMEM) {
                plan_error(r->pl, "%s %s: %s", what, path, why);
                return PLAN_EXIT_FAIL;
            }
            plan_error(r->pl, "%s:%d:%d: malformed JSON: %s", path, jerr.line, jerr.column,
                       jerr.text);
            return PLAN_EXIT_INPUT;
        }
        if (!json_is_array(r->arr)) {
            plan_error(r->pl, "%s: expected a JSON list of rows", path);
            return PLAN_EXIT_INPUT;
        }
    } else if (r->fmt == ROWS_CSV || r->fmt == ROWS_TSV) {
        int rc = read_record(r);
        if (rc < 0)
            return -rc;
        if (rc == 0) {
            plan_error(r->pl, "%s %s: empty file", what, path);
            return PLAN_EXIT_INPUT;
        }
        r->hdr = calloc(r->nf, sizeof(char *));
        if (!r->hdr) {
            plan_error(r->pl, "out of memory");
            return PLAN_EXIT_FAIL;
        }
        r->nhdr = r->nf;
        for (size_t i = 0; i < r->nf; i++) {
            const char *s = r->buf + r->off[i];
            size_t n;
            while (*s == ' ')
                s++;
            n = strlen(s);
            while (n && s[n - 1] == ' ')
                n--;
            r->hdr[i] = strndup(s, n);
            if (!r->hdr[i]) {
                plan_error(r->pl, "out of memory");
                return PLAN_EXIT_FAIL;
            }
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ JSON line scanner */

/*
 * compute_nodes dumps are large and jansson decodes the topology string of
 * every line, byte by byte, before the library parses it again. For the
 * common case - an object of a few members, ASCII only - this scanner
 * validates the line (RFC 8259 grammar, no duplicate member names) and
 * records each member's value as its JSON text, so that the topology goes
 * to the library as it is (a string literal or an object) and identical
 * rows can be recognised without decoding. Anything it does not handle
 * (non-ASCII bytes, \u0000 or surrogate escapes, deep nesting, more than 32
 * members, nested objects of more than 64 members or with escaped member
 * names) makes it give up, and so does whatever jansson refuses beyond the
 * grammar: an integer outside int64, a number that overflows a double
 * (1e999), a member name twice in any object. jansson then reads the line,
 * with its error messages. It never accepts a line jansson would refuse
 * (json_loadb with JSON_REJECT_DUPLICATES); tests/plan/errors.test checks.
 * Measured on 100,000 compute_nodes rows (doc/performance.md): without it
 * `numafit plan --db` takes 2 to 3.5 times as long.
 */
static const char *js_ws(const char *p, const char *e) {
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

static int hexval(char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* p at '"'; the position after the closing quote, or NULL. */
static const char *js_string(const char *p, const char *e, bool *esc) {
    for (p++; p < e; p++) {
        unsigned char c = (unsigned char)*p;
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\')
            continue;
        if (c == '"')
            return p + 1;
        if (c < 0x20 || c >= 0x80)
            return NULL;
        if (c != '\\')
            continue;
        *esc = true;
        if (++p >= e)
            return NULL;
        switch (*p) {
            case '"':
            case '\\':
            case '/':
            case 'b':
            case 'f':
            case 'n':
            case 'r':
            case 't':
                break;
            case 'u': {
                int v = 0;
                if (e - p < 5)
                    return NULL;
                for (int k = 1; k <= 4; k++) {
                    int h = hexval(p[k]);
                    if (h < 0)
                        return NULL;
                    v = v * 16 + h;
                }
                if (v == 0 || (v >= 0xd800 && v <= 0xdfff))
                    return NULL;
                p += 4;
                break;
            }
            default:
                return NULL;
        }
    }
    return NULL;
}

static const char *js_digits(const char *p, const char *e) {
    const char *s = p;
    while (p < e && *p >= '0' && *p <= '9')
        p++;
    return p > s ? p : NULL;
}

static const char *js_value(const char *p, const char *e, int depth, char *type, bool *esc);

/* A number, p at its first byte; NULL when malformed or when jansson
 * refuses its value: an integer outside int64 ("too big integer"), a real
 * that overflows a double ("real number overflow"; an underflow is 0). */
static const char *js_number(const char *p, const char *e) {
    const char *s = p, *d;
    bool neg = false, real = false;
    if (*p == '-') {
        neg = true;
        p++;
    }
    d = p;
    if (p < e && *p == '0')
        p++;
    else if (!(p = js_digits(p, e)))
        return NULL;
    if (p < e && *p == '.') {
        real = true;
        if (!(p = js_digits(p + 1, e)))
            return NULL;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        real = true;
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            p++;
        if (!(p = js_digits(p, e)))
            return NULL;
    }
    if (!real) {
        uint64_t v = 0;
        for (; d < p; d++) {
            if (v > (UINT64_MAX - 9) / 10)
                return NULL;
            v = v * 10 + (uint64_t)(*d - '0');
        }
        if (v > (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
            return NULL;
    } else {
        char buf[128];
        if ((size_t)(p - s) >= sizeof(buf))
            return NULL; /* long reals: jansson decides */
        memcpy(buf, s, (size_t)(p - s));
        buf[p - s] = '\0';
        if (isinf(strtod(buf, NULL)))
            return NULL;
    }
    return p;
}

#define JS_KEYS_MAX 64 /* members of a nested object checked for duplicates */

static const char *js_container(const char *p, const char *e, int depth, bool object) {
    char close = object ? '}' : ']', t;
    bool esc = false;
    const char *keys[JS_KEYS_MAX];
    size_t klens[JS_KEYS_MAX], nkeys = 0;
    p = js_ws(p + 1, e);
    if (p < e && *p == close)
        return p + 1;
    for (;;) {
        if (object) {
            const char *k = p;
            bool kesc = false;
            if (p >= e || *p != '"' || !(p = js_string(p, e, &kesc)))
                return NULL;
            /* duplicates, as jansson's JSON_REJECT_DUPLICATES: names with
             * escapes would have to be decoded first, give up */
            if (kesc || nkeys == JS_KEYS_MAX)
                return NULL;
            for (size_t i = 0; i < nkeys; i++)
                if (klens[i] == (size_t)(p - k) && !memcmp(keys[i], k, klens[i]))
                    return NULL;
            keys[nkeys] = k;
            klens[nkeys++] = (size_t)(p - k);
            p = js_ws(p, e);
            if (p >= e || *p != ':')
                return NULL;
            p = js_ws(p + 1, e);
        }
        if (!(p = js_value(p, e, depth + 1, &t, &esc)))
            return NULL;
        p = js_ws(p, e);
        if (p < e && *p == ',') {
            p = js_ws(p + 1, e);
            continue;
        }
        return p < e && *p == close ? p + 1 : NULL;
    }
}

static const char *js_value(const char *p, const char *e, int depth, char *type, bool *esc) {
    if (p >= e || depth > 64)
        return NULL;
    switch (*p) {
        case '"':
            *type = 's';
            return js_string(p, e, esc);
        case '{':
            *type = 'o';
            return js_container(p, e, depth, true);
        case '[':
            *type = 'a';
            return js_container(p, e, depth, false);
        case 't':
            *type = 't';
            return e - p >= 4 && !memcmp(p, "true", 4) ? p + 4 : NULL;
        case 'f':
            *type = 'f';
            return e - p >= 5 && !memcmp(p, "false", 5) ? p + 5 : NULL;
        case 'n':
            *type = 'z';
            return e - p >= 4 && !memcmp(p, "null", 4) ? p + 4 : NULL;
        default:
            break;
    }
    *type = 'n';
    return js_number(p, e);
}

/* Scan a JSON line holding one object; true when it is recorded in r->fm. */
static bool fast_scan(struct rows *r, const char *p, size_t n) {
    const char *e = p + n;
    r->nfm = 0;
    p = js_ws(p, e);
    if (p >= e || *p != '{')
        return false;
    p = js_ws(p + 1, e);
    if (p < e && *p == '}')
        return js_ws(p + 1, e) == e;
    for (;;) {
        struct fast_member *m;
        const char *k, *v;
        bool kesc = false;
        if (r->nfm == sizeof(r->fm) / sizeof(r->fm[0]) || p >= e || *p != '"')
            return false;
        k = p;
        if (!(p = js_string(p, e, &kesc)) || kesc)
            return false;
        m = &r->fm[r->nfm];
        m->key = k + 1;
        m->klen = (size_t)(p - k - 2);
        for (unsigned i = 0; i < r->nfm; i++)
            if (r->fm[i].klen == m->klen && !memcmp(r->fm[i].key, m->key, m->klen))
                return false; /* a duplicate: jansson says so */
        p = js_ws(p, e);
        if (p >= e || *p != ':')
            return false;
        v = p = js_ws(p + 1, e);
        m->esc = false;
        if (!(p = js_value(p, e, 0, &m->type, &m->esc)))
            return false;
        m->val = v;
        m->vlen = (size_t)(p - v);
        r->nfm++;
        p = js_ws(p, e);
        if (p < e && *p == ',') {
            p = js_ws(p + 1, e);
            continue;
        }
        if (p >= e || *p != '}')
            return false;
        return js_ws(p + 1, e) == e;
    }
}

static const struct fast_member *fast_get(const struct rows *r, const char *col) {
    size_t n = strlen(col);
    for (unsigned i = 0; i < r->nfm; i++)
        if (r->fm[i].klen == n && !memcmp(r->fm[i].key, col, n))
            return &r->fm[i];
    return NULL;
}

/* The next row: 1, 0 at the end, -status on error. */
static int rows_next(struct rows *r) {
    for (unsigned i = 0; i < r->nscratch; i++)
        free(r->scratch[i]);
    r->nscratch = 0;
    json_decref(r->row);
    r->row = NULL;
    r->fast = false;
    if (r->fmt == ROWS_JSONARRAY) {
        if (r->arri >= json_array_size(r->arr))
            return 0;
        r->rec_line = r->arri + 1;
        r->row = json_incref(json_array_get(r->arr, r->arri++));
        if (!json_is_object(r->row))
            return rows_fail(r, -PLAN_EXIT_INPUT, "a row must be a JSON object");
        return 1;
    }
    if (r->fmt == ROWS_CSV || r->fmt == ROWS_TSV) {
        int rc = read_record(r);
        if (rc <= 0)
            return rc;
        if (r->nf != r->nhdr)
            return rows_fail(r, -PLAN_EXIT_INPUT, "%zu fields, the header has %zu", r->nf, r->nhdr);
        return 1;
    }
    /* JSON lines */
    for (;;) {
        int rc;
        json_error_t jerr;
        r->rec_line = r->line + 1;
        rc = read_jsonl(r);
        if (rc <= 0)
            return rc;
        r->line++;
        if (strspn(r->buf, " \t\r") >= r->used)
            continue; /* a blank line */
        if (fast_scan(r, r->buf, r->used)) {
            r->fast = true;
            return 1;
        }
        r->row = cli_json_load(r->buf, r->used, JSON_REJECT_DUPLICATES, &jerr);
        if (!r->row && cli_json_error(&jerr, NULL, 0) == -ENOMEM)
            return rows_fail(r, -PLAN_EXIT_FAIL, "out of memory");
        if (!r->row)
            return rows_fail(r, -PLAN_EXIT_INPUT, "malformed JSON (column %d): %s", jerr.column,
                             jerr.text);
        if (!json_is_object(r->row))
            return rows_fail(r, -PLAN_EXIT_INPUT, "a row must be a JSON object");
        return 1;
    }
}

/* Does the file have this column (CSV/TSV), or this row this key (JSON)? */
static bool rows_has(const struct rows *r, const char *col) {
    if (r->fast)
        return fast_get(r, col) != NULL;
    if (r->row)
        return json_object_get(r->row, col) != NULL;
    for (size_t i = 0; i < r->nhdr; i++)
        if (strcmp(r->hdr[i], col) == 0)
            return true;
    return false;
}

enum { COL_MISSING = 0, COL_NULL = 1, COL_VALUE = 2 };

/* A JSON row's value that is not a string (CSV fields always are). */
static bool rows_not_string(const struct rows *r, const char *col) {
    json_t *v;
    if (r->fast) {
        const struct fast_member *m = fast_get(r, col);
        return m && m->type != 's' && m->type != 'z';
    }
    v = r->row ? json_object_get(r->row, col) : NULL;
    return v && !json_is_string(v) && !json_is_null(v);
}

/* A fast row's string value, decoded (jansson on the literal, rare). */
static int fast_string(struct rows *r, const struct fast_member *m, const char **ret,
                       size_t *ret_len) {
    json_t *v;
    char *s;
    if (!m->esc) {
        *ret = m->val + 1;
        *ret_len = m->vlen - 2;
        return COL_VALUE;
    }
    if (r->nscratch == 4)
        return -1;
    v = json_loadb(m->val, m->vlen, JSON_DECODE_ANY, NULL);
    if (!v || !json_is_string(v)) {
        json_decref(v);
        return -1;
    }
    s = malloc(json_string_length(v) + 1);
    if (!s) {
        json_decref(v);
        return -1;
    }
    memcpy(s, json_string_value(v), json_string_length(v) + 1);
    *ret_len = json_string_length(v);
    json_decref(v);
    r->scratch[r->nscratch++] = s;
    *ret = s;
    return COL_VALUE;
}

/* The value of a column of the current row, as text (a JSON object or list
 * is written out as JSON). Returns COL_*; -1 when out of memory. */
static int rows_get(struct rows *r, const char *col, const char **ret, size_t *ret_len) {
    if (r->fast) {
        const struct fast_member *m = fast_get(r, col);
        if (!m)
            return COL_MISSING;
        if (m->type == 'z')
            return COL_NULL;
        if (m->type == 's')
            return fast_string(r, m, ret, ret_len);
        *ret = m->val; /* numbers, booleans, objects, lists: their JSON text */
        *ret_len = m->vlen;
        return COL_VALUE;
    }
    if (r->row) {
        json_t *v = json_object_get(r->row, col);
        char *s = NULL;
        if (!v)
            return COL_MISSING;
        if (json_is_null(v))
            return COL_NULL;
        if (json_is_string(v)) {
            *ret = json_string_value(v);
            *ret_len = json_string_length(v);
            return COL_VALUE;
        }
        if (r->nscratch == 4)
            return -1;
        if (json_is_number(v) || json_is_boolean(v) || json_is_object(v) || json_is_array(v))
            s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        if (!s)
            return -1;
        r->scratch[r->nscratch++] = s;
        *ret = s;
        *ret_len = strlen(s);
        return COL_VALUE;
    }
    for (size_t i = 0; i < r->nhdr; i++) {
        if (strcmp(r->hdr[i], col) != 0)
            continue;
        if (r->isnull[i])
            return COL_NULL;
        *ret = r->buf + r->off[i];
        /* fields may hold NUL bytes (\0 in mysql output): the length is up to
         * the next field */
        *ret_len = (i + 1 < r->nf ? r->off[i + 1] : r->used) - r->off[i] - 1;
        return COL_VALUE;
    }
    return COL_MISSING;
}

/* A topology column as JSON text for the library: a fast row's string value
 * stays a JSON string literal (the library reads nova's string form), every
 * other value as rows_get() gives it. An empty string counts as NULL. */
static int rows_get_json(struct rows *r, const char *col, const char **ret, size_t *ret_len) {
    if (r->fast) {
        const struct fast_member *m = fast_get(r, col);
        if (!m)
            return COL_MISSING;
        if (m->type == 'z' || (m->type == 's' && m->vlen == 2))
            return COL_NULL;
        *ret = m->val;
        *ret_len = m->vlen;
        return COL_VALUE;
    }
    return rows_get(r, col, ret, ret_len);
}

/* A ratio column: 0 = not given (NULL, missing, 0.0). */
static int rows_ratio(struct rows *r, const char *col, double *ret) {
    const char *s;
    size_t n;
    char buf[64], *end;
    int k = rows_get(r, col, &s, &n);
    *ret = 0;
    if (k < 0)
        return -1;
    if (k != COL_VALUE)
        return 0;
    if (n == 0)
        return 0;
    if (n >= sizeof(buf))
        return -2;
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    *ret = strtod(buf, &end);
    /* as jansson: an underflow reads as its (tiny or zero) value, only an
     * overflow is refused */
    if ((errno && !(errno == ERANGE && isfinite(*ret))) || *end || end == buf || !isfinite(*ret) ||
        *ret < 0 || *ret > 1e6)
        return -2;
    return 0;
}

/* A "deleted" column: a number other than 0 (as jansson reads it: -0, 0.0
 * are 0), or any text but "false". */
static bool row_deleted(const char *s, size_t n) {
    char buf[64], *end;
    double v;
    if (n == 0)
        return false;
    if (n < sizeof(buf)) {
        memcpy(buf, s, n);
        buf[n] = '\0';
        errno = 0;
        v = strtod(buf, &end);
        if (end != buf && !*end)
            return v != 0;
    }
    return !(n == 5 && !strncmp(s, "false", 5));
}

int plan_load_db(struct plan *pl, const char *path) {
    bool progress = false;
    uint64_t done = 0;
    struct rows r;
    int src, rc, ret;
    unsigned long nulls = 0, deleted = 0, first_null = 0;
    bool has_ratio;

    ret = rows_open(&r, pl, path, "--db");
    if (ret)
        goto out;
    if ((src = add_source(pl, SRC_DB, path)) < 0) {
        ret = PLAN_EXIT_FAIL;
        goto out;
    }
    if (r.nhdr && (!rows_has(&r, "hypervisor_hostname") || !rows_has(&r, "numa_topology"))) {
        plan_error(pl,
                   "%s:1: the header must name the columns hypervisor_hostname and "
                   "numa_topology (SELECT hypervisor_hostname, numa_topology FROM compute_nodes)",
                   path);
        ret = PLAN_EXIT_INPUT;
        goto out;
    }
    has_ratio =
        r.nhdr && (rows_has(&r, "cpu_allocation_ratio") || rows_has(&r, "ram_allocation_ratio"));
    if (pl->tty && r.fmt != ROWS_JSONARRAY) {
        /* a big dump takes a while: progress by bytes read */
        struct stat st;
        if (fstat(fileno(r.f), &st) == 0 && S_ISREG(st.st_mode)) {
            plan_tick(pl, PLAN_TICK_BEGIN, (uint64_t)st.st_size, "loading");
            progress = true;
        }
    }
    while ((rc = rows_next(&r)) > 0) {
        const char *name, *topo, *del;
        size_t nlen, tlen, dlen;
        char where[PATH_MAX + 32], hname[256];
        int k;

        if (progress) {
            long pos = ftell(r.f);
            if (pos > 0 && (uint64_t)pos > done) {
                plan_tick(pl, PLAN_TICK_STEP, (uint64_t)pos - done, "");
                done = (uint64_t)pos;
            }
        }
        rows_where(&r, where, sizeof(where));
        k = rows_get(&r, "hypervisor_hostname", &name, &nlen);
        if (k < 0)
            goto nomem;
        if (k != COL_VALUE || nlen == 0 || nlen >= sizeof(hname) || memchr(name, '\0', nlen) ||
            rows_not_string(&r, "hypervisor_hostname")) {
            plan_error(pl, "%s: hypervisor_hostname: %s", where,
                       k == COL_MISSING ? "missing"
                       : k == COL_NULL  ? "null"
                                        : "must be a string of 1 to 255 bytes");
            ret = PLAN_EXIT_INPUT;
            goto out;
        }
        memcpy(hname, name, nlen);
        hname[nlen] = '\0';
        /* soft-deleted compute nodes (a "deleted" column as in nova's table) */
        k = rows_get(&r, "deleted", &del, &dlen);
        if (k < 0)
            goto nomem;
        if (k == COL_VALUE && row_deleted(del, dlen)) {
            deleted++;
            continue;
        }
        k = rows_get_json(&r, "numa_topology", &topo, &tlen);
        if (k < 0)
            goto nomem;
        if (k == COL_MISSING) {
            plan_error(pl, "%s: host %s: no numa_topology", where, hname);
            ret = PLAN_EXIT_INPUT;
            goto out;
        }
        if (k == COL_NULL || tlen == 0) {
            if (!nulls++)
                first_null = r.rec_line;
            continue;
        }
        if (tlen > NUMAFIT_INPUT_MAX) {
            plan_error(pl, "%s: host %s: numa_topology larger than %u bytes", where, hname,
                       NUMAFIT_INPUT_MAX);
            ret = PLAN_EXIT_INPUT;
            goto out;
        }
        ret = json_host(pl, topo, tlen, hname, src, where);
        if (ret)
            goto out;
        if (has_ratio || r.row || r.fast) {
            double cpu, ram;
            uint8_t li;
            if ((k = rows_ratio(&r, "cpu_allocation_ratio", &cpu)) < 0 ||
                (k = rows_ratio(&r, "ram_allocation_ratio", &ram)) < 0) {
                if (k == -1)
                    goto nomem;
                plan_error(pl,
                           "%s: host %s: an allocation ratio must be a number from 0 to 1e6 "
                           "(0 or null: the fleet's)",
                           where, hname);
                ret = PLAN_EXIT_INPUT;
                goto out;
            }
            if ((cpu > 0 || ram > 0) && !pl->no_limits) {
                double dcpu = pl->limits[0].cpu_ratio, dram = pl->limits[0].ram_ratio;
                if (plan_limits_index(pl, cpu > 0 ? cpu : dcpu, ram > 0 ? ram : dram, &li) < 0) {
                    plan_error(pl, "%s: more than %d distinct allocation ratio pairs", where,
                               PLAN_MAX_LIMITS);
                    ret = PLAN_EXIT_INPUT;
                    goto out;
                }
                pl->hosts[pl->nhosts - 1].limits = li;
            }
        }
    }
    if (rc < 0) {
        ret = -rc;
        goto out;
    }
    pl->sources[src].skipped = (uint32_t)(nulls + deleted);
    if (nulls)
        plan_warning(pl,
                     "%s: %lu row%s without numa_topology skipped (first on line %lu): nova "
                     "reports no NUMA topology for %s",
                     path, nulls, nulls == 1 ? "" : "s", first_null, nulls == 1 ? "it" : "them");
    if (deleted)
        plan_warning(pl, "%s: %lu deleted row%s skipped", path, deleted, deleted == 1 ? "" : "s");
    if (pl->sources[src].hosts == 0) {
        plan_error(pl, "--db %s: no host with a NUMA topology", path);
        ret = PLAN_EXIT_INPUT;
    }
    goto out;
nomem:
    plan_error(pl, "out of memory");
    ret = PLAN_EXIT_FAIL;
out:
    if (progress)
        plan_tick(pl, PLAN_TICK_END, 0, NULL);
    rows_close(&r);
    return ret;
}

/* ------------------------------------------------------------------ synthetic hosts */

static int parse_count(const char *s, size_t n, uint64_t max, uint64_t *ret) {
    uint64_t v = 0;
    if (n == 0 || n > 12)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > max)
        return -1;
    *ret = v;
    return 0;
}

int plan_add_hosts(struct plan *pl, const char *count, const char *spec) {
    char name[64], prefix[600];
    numafit_host_t *tmpl = NULL;
    numafit_error_t e;
    uint64_t n;
    long first = -1;
    int src, rc, status;
    int32_t group;

    if (parse_count(count, strlen(count), PLAN_MAX_HOSTS, &n) < 0 || n == 0) {
        plan_error(pl, "--add-hosts %s: the count must be an integer from 1 to %d", count,
                   PLAN_MAX_HOSTS);
        return PLAN_EXIT_INPUT;
    }
    if (pl->nhosts + n > PLAN_MAX_HOSTS) {
        plan_error(pl, "--add-hosts %s: more than %d hosts in the fleet", count, PLAN_MAX_HOSTS);
        return PLAN_EXIT_INPUT;
    }
    /* the library reads both the short form and its own key:value form */
    memset(&e, 0, sizeof(e));
    rc = numafit_host_new_synthetic(spec, 0, &tmpl, &e);
    if (rc < 0) {
        snprintf(prefix, sizeof(prefix), "--add-hosts %s \"%.400s\"", count, spec);
        plan_lib_error(pl, prefix, rc, &e);
        return lib_status(rc);
    }
    if ((src = add_source(pl, SRC_SYNTHETIC, spec)) < 0) {
        numafit_host_free(tmpl);
        return PLAN_EXIT_FAIL;
    }
    group = pl->ngroups++;
    pl->sources[src].group = group;
    pl->nadd++;
    snprintf(prefix, sizeof(prefix), "--add-hosts %s", count);
    for (uint64_t i = 0; i < n; i++) {
        numafit_host_t *h = NULL;
        long idx;
        if (i + 1 < n) {
            if (numafit_host_dup(tmpl, &h) < 0) {
                numafit_host_free(tmpl);
                plan_error(pl, "out of memory");
                return PLAN_EXIT_FAIL;
            }
        } else {
            h = tmpl; /* the last one is the template itself */
            tmpl = NULL;
        }
        snprintf(name, sizeof(name), "new%u-%06llu", pl->nadd, (unsigned long long)i + 1);
        idx = add_host(pl, h, name, src, group, first, prefix, &status);
        if (idx < 0) {
            numafit_host_free(tmpl);
            return status;
        }
        if (first < 0)
            first = idx;
    }
    return 0;
}

/* ------------------------------------------------------------------ existing instances */

/* Pinned vCPUs and emulator CPUs of a placement (plain JSON form). */
static uint32_t placement_pins(const json_t *cells) {
    size_t i;
    json_t *c;
    uint32_t n = 0;
    json_array_foreach(cells, i, c) {
        n += (uint32_t)json_object_size(json_object_get(c, "cpu_pinning"));
        n += (uint32_t)json_array_size(json_object_get(c, "cpuset_reserved"));
    }
    return n;
}

int plan_load_instances(struct plan *pl, const char *path) {
    static const char *const host_cols[] = {"host", "node", "hypervisor_hostname", NULL};
    struct rows r;
    int rc, ret;
    unsigned long nulls = 0;

    ret = rows_open(&r, pl, path, "--instances");
    if (ret)
        goto out;
    if (r.nhdr) {
        bool any = false;
        for (unsigned i = 0; host_cols[i]; i++)
            any |= rows_has(&r, host_cols[i]);
        if (!any || !rows_has(&r, "numa_topology")) {
            plan_error(pl,
                       "%s:1: the header must name the columns host (or node) and numa_topology",
                       path);
            ret = PLAN_EXIT_INPUT;
            goto out;
        }
    }
    while ((rc = rows_next(&r)) > 0) {
        const char *name = NULL, *topo, *fl;
        size_t nlen = 0, tlen, flen;
        char where[PATH_MAX + 32], hname[256], prefix[PATH_MAX + 400];
        numafit_placement_t *p = NULL;
        numafit_error_t e;
        json_t *cells;
        char *txt = NULL;
        long hi;
        int k = COL_MISSING;

        rows_where(&r, where, sizeof(where));
        for (unsigned i = 0; host_cols[i] && k == COL_MISSING; i++)
            k = rows_get(&r, host_cols[i], &name, &nlen);
        if (k < 0)
            goto nomem;
        if (k != COL_VALUE || nlen == 0 || nlen >= sizeof(hname) || memchr(name, '\0', nlen) ||
            (rows_not_string(&r, "host") || rows_not_string(&r, "node") ||
             rows_not_string(&r, "hypervisor_hostname"))) {
            plan_error(pl, "%s: host: %s", where,
                       k == COL_MISSING ? "missing (\"host\": the hypervisor_hostname)"
                       : k == COL_NULL  ? "null"
                                        : "must be a string of 1 to 255 bytes");
            ret = PLAN_EXIT_INPUT;
            goto out;
        }
        memcpy(hname, name, nlen);
        hname[nlen] = '\0';
        k = rows_get_json(&r, "numa_topology", &topo, &tlen);
        if (k < 0)
            goto nomem;
        if (k == COL_MISSING) {
            plan_error(pl, "%s: no numa_topology", where);
            ret = PLAN_EXIT_INPUT;
            goto out;
        }
        if (k == COL_NULL || tlen == 0 || (tlen == 4 && memcmp(topo, "null", 4) == 0)) {
            nulls++; /* an instance without NUMA topology: no NUMA usage */
            continue;
        }
        hi = find_host(pl, hname);
        if (hi < 0) {
            plan_error(pl, "%s: unknown host \"%s\" (not in the fleet)", where, hname);
            ret = PLAN_EXIT_INPUT;
            goto out;
        }
        snprintf(prefix, sizeof(prefix), "%s: instance on host %s: numa_topology", where, hname);
        memset(&e, 0, sizeof(e));
        rc = numafit_placement_new_from_json(topo, tlen, 0, &p, &e);
        if (rc < 0) {
            plan_lib_error(pl, prefix, rc, &e);
            ret = lib_status(rc);
            goto out;
        }
        memset(&e, 0, sizeof(e));
        rc = numafit_placement_to_json(p, 0, &txt, &e);
        cells = rc >= 0 ? json_loads(txt, 0, NULL) : NULL;
        numafit_free(txt);
        if (!cells) {
            numafit_placement_free(p);
            plan_lib_error(pl, prefix, rc < 0 ? rc : -ENOMEM, &e);
            ret = PLAN_EXIT_FAIL;
            goto out;
        }
        memset(&e, 0, sizeof(e));
        snprintf(prefix, sizeof(prefix), "%s: instance on host %s", where, hname);
        rc = numafit_host_claim(pl->hosts[hi].h, p, 0, &e);
        numafit_placement_free(p);
        if (rc < 0) {
            plan_lib_error(pl, prefix, rc, &e);
            if (rc == -EBUSY)
                plan_error(pl, "(does the host's numa_topology already count this instance? "
                               "--instances adds usage to the hosts)");
            json_decref(cells);
            ret = lib_status(rc);
            goto out;
        }
        pl->hosts[hi].known_pins += placement_pins(cells);
        pl->hosts[hi].existing++;
        pl->hosts[hi].group = -1; /* no longer identical to its group */
        pl->instances_loaded++;
        if ((uint32_t)hi < pl->keep) {
            if (pl->nexisting == pl->existing_cap) {
                size_t ncap = pl->existing_cap ? pl->existing_cap * 2 : 64;
                struct plan_existing *ne = realloc(pl->existing, ncap * sizeof(*ne));
                if (!ne) {
                    json_decref(cells);
                    goto nomem;
                }
                pl->existing = ne;
                pl->existing_cap = ncap;
            }
            k = rows_get(&r, "flavor", &fl, &flen);
            if (k < 0) {
                json_decref(cells);
                goto nomem;
            }
            pl->existing[pl->nexisting].host = (uint32_t)hi;
            pl->existing[pl->nexisting].flavor =
                k == COL_VALUE && flen && !memchr(fl, '\0', flen) ? strndup(fl, flen) : NULL;
            pl->existing[pl->nexisting].cells = cells;
            pl->nexisting++;
        } else {
            json_decref(cells);
        }
    }
    if (rc < 0) {
        ret = -rc;
        goto out;
    }
    pl->instances_skipped += nulls;
    goto out;
nomem:
    plan_error(pl, "out of memory");
    ret = PLAN_EXIT_FAIL;
out:
    rows_close(&r);
    return ret;
}

/* ------------------------------------------------------------------ flavors */

static const char *const flavor_keys[] = {
    "name", "vcpus", "memory_mb", "extra_specs", "image_properties", "weight", NULL};

/* Check and add one flavor object. where: "FILE: flavor N (line L)". */
static int add_flavor(struct plan *pl, json_t *fl, const char *origin, unsigned long line,
                      const char *where, const char *default_name) {
    struct plan_flavor *f;
    const char *key, *name;
    json_t *v, *lib = NULL, *image = NULL;
    numafit_error_t e;
    char *ftxt = NULL, *itxt = NULL;
    int rc;

    if (!json_is_object(fl)) {
        plan_error(pl,
                   "%s: a flavor is a JSON object {\"name\",\"vcpus\",\"memory_mb\","
                   "\"extra_specs\"}",
                   where);
        return PLAN_EXIT_INPUT;
    }
    json_object_foreach(fl, key, v) {
        unsigned k;
        for (k = 0; flavor_keys[k] && strcmp(flavor_keys[k], key) != 0; k++)
            ;
        if (!flavor_keys[k]) {
            plan_error(pl,
                       "%s: unknown key \"%s\" (a flavor has name, vcpus, memory_mb, "
                       "extra_specs, image_properties, weight)",
                       where, key);
            return PLAN_EXIT_INPUT;
        }
    }
    v = json_object_get(fl, "name");
    if (v && (!json_is_string(v) || json_string_length(v) == 0 || json_string_length(v) > 64 ||
              strlen(json_string_value(v)) != json_string_length(v))) {
        plan_error(pl, "%s: \"name\" must be a string of 1 to 64 bytes", where);
        return PLAN_EXIT_INPUT;
    }
    name = v ? json_string_value(v) : default_name;
    if (!name) {
        plan_error(pl, "%s: the flavor has no \"name\"", where);
        return PLAN_EXIT_INPUT;
    }
    for (unsigned i = 0; i < pl->nflavors; i++)
        if (strcmp(pl->flavors[i].name, name) == 0) {
            plan_error(pl, "%s: flavor name \"%s\" given twice (also %s:%lu)", where, name,
                       pl->flavors[i].origin, pl->flavors[i].line);
            return PLAN_EXIT_INPUT;
        }
    if (pl->nflavors == PLAN_MAX_FLAVORS) {
        plan_error(pl, "%s: more than %d flavors", where, PLAN_MAX_FLAVORS);
        return PLAN_EXIT_INPUT;
    }
    v = json_object_get(fl, "weight");
    if (v && (!json_is_number(v) || !(json_number_value(v) > 0) || json_number_value(v) > 1e9)) {
        plan_error(pl, "%s: \"weight\" must be a number above 0", where);
        return PLAN_EXIT_INPUT;
    }
    v = json_object_get(fl, "image_properties");
    if (v && !json_is_object(v) && !json_is_null(v)) {
        plan_error(pl, "%s: \"image_properties\" must be an object {\"hw_...\": ...}", where);
        return PLAN_EXIT_INPUT;
    }
    lib = json_object();
    if (!lib)
        goto nomem;
    if (json_object_get(fl, "vcpus"))
        json_object_set(lib, "vcpus", json_object_get(fl, "vcpus"));
    if (json_object_get(fl, "memory_mb"))
        json_object_set(lib, "memory_mb", json_object_get(fl, "memory_mb"));
    if (json_object_get(fl, "extra_specs"))
        json_object_set(lib, "extra_specs", json_object_get(fl, "extra_specs"));
    if (v && json_is_object(v)) {
        image = json_pack("{sO}", "properties", v);
        if (!image)
            goto nomem;
    }
    ftxt = json_dumps(lib, JSON_COMPACT);
    itxt = image ? json_dumps(image, JSON_COMPACT) : NULL;
    if (!ftxt || (image && !itxt))
        goto nomem;
    f = &pl->flavors[pl->nflavors];
    memset(f, 0, sizeof(*f));
    memset(&e, 0, sizeof(e));
    rc = numafit_request_new(ftxt, strlen(ftxt), itxt, itxt ? strlen(itxt) : 0, pl->req_flags,
                             &f->req, &e);
    if (rc < 0) {
        char prefix[PATH_MAX + 200];
        snprintf(prefix, sizeof(prefix), "%s: flavor %s%s", where, name,
                 e.exception[0] ? " refused by nova" : "");
        plan_lib_error(pl, prefix, rc, &e);
        free(ftxt);
        free(itxt);
        json_decref(lib);
        json_decref(image);
        return lib_status(rc);
    }
    free(ftxt);
    free(itxt);
    ftxt = itxt = NULL;
    f->name = strdup(name);
    if (!f->name) {
        numafit_request_free(f->req);
        f->req = NULL;
        goto nomem;
    }
    f->given = json_incref(fl);
    f->lib_flavor = lib;
    f->image = image;
    f->weight = json_is_number(json_object_get(fl, "weight"))
                    ? json_number_value(json_object_get(fl, "weight"))
                    : 1.0;
    f->origin = origin;
    f->line = line;
    f->vcpus = numafit_request_get_vcpus(f->req);
    f->memory_mb = (uint64_t)json_integer_value(json_object_get(fl, "memory_mb"));
    f->cells = numafit_request_get_cell_count(f->req);
    f->cpu_policy = numafit_request_get_cpu_policy(f->req);
    f->thread_policy = numafit_request_get_thread_policy(f->req);
    f->emulator_policy = numafit_request_get_emulator_threads_policy(f->req);
    {
        /* the page size asked, for the report */
        int64_t kib;
        if (numafit_request_get_page_size(f->req, 0, &kib) == 0 && kib > 0)
            f->pagesize_kb = (int)(kib > INT_MAX ? INT_MAX : kib);
    }
    if (rc == 0) {
        plan_warning(pl,
                     "%s: flavor %s asks for no NUMA topology: nova's NUMA fitting does not "
                     "limit it (placement does); left out of the plan",
                     where, name);
        numafit_request_free(f->req);
        f->req = NULL;
    }
    pl->nflavors++;
    return 0;
nomem:
    free(ftxt);
    free(itxt);
    json_decref(lib);
    json_decref(image);
    plan_error(pl, "out of memory");
    return PLAN_EXIT_FAIL;
}

/*
 * --flavors FILE (single = false): a JSON list of flavors, one flavor
 * object, or JSON lines; every flavor needs a name. --flavor FILE (single):
 * one flavor object, named after the file unless it has a name.
 */
int plan_load_flavors(struct plan *pl, const char *path, bool single) {
    size_t len;
    int ret;
    char *text = read_all(pl, path, NUMAFIT_INPUT_MAX, &len, &ret);
    json_error_t jerr;
    json_t *root;
    char where[PATH_MAX + 64], stem[256];

    if (!text)
        return ret;
    ret = 0;
    root = cli_json_load(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root && cli_json_error(&jerr, NULL, 0) == -ENOMEM) {
        plan_error(pl, "%s: out of memory", path);
        free(text);
        return PLAN_EXIT_FAIL;
    }
    if (single) {
        if (!root) {
            plan_error(pl, "%s:%d:%d: malformed JSON: %s", path, jerr.line, jerr.column, jerr.text);
            free(text);
            return PLAN_EXIT_INPUT;
        }
        file_stem(path, stem, sizeof(stem));
        snprintf(where, sizeof(where), "%s", path);
        ret = add_flavor(pl, root, path, 1, where, stem);
    } else if (root && json_is_array(root)) {
        size_t i;
        json_t *fl;
        if (json_array_size(root) == 0) {
            plan_error(pl, "%s: no flavors", path);
            ret = PLAN_EXIT_INPUT;
        }
        json_array_foreach(root, i, fl) {
            snprintf(where, sizeof(where), "%s: flavor %zu", path, i + 1);
            if ((ret = add_flavor(pl, fl, path, i + 1, where, NULL)) != 0)
                break;
        }
    } else if (root) {
        ret = add_flavor(pl, root, path, 1, path, NULL);
    } else {
        /* JSON lines */
        char *line = text, *nl;
        unsigned long lineno = 0, count = 0;
        if (!strstr(jerr.text, "end of file expected")) {
            plan_error(pl, "%s:%d:%d: malformed JSON: %s", path, jerr.line, jerr.column, jerr.text);
            free(text);
            return PLAN_EXIT_INPUT;
        }
        for (; line && *line && !ret; line = nl ? nl + 1 : NULL) {
            size_t n;
            json_t *fl;
            nl = strchr(line, '\n');
            n = nl ? (size_t)(nl - line) : strlen(line);
            lineno++;
            if (strspn(line, " \t\r") >= n)
                continue;
            fl = cli_json_load(line, n, JSON_REJECT_DUPLICATES, &jerr);
            if (!fl && cli_json_error(&jerr, NULL, 0) == -ENOMEM) {
                plan_error(pl, "%s:%lu: out of memory", path, lineno);
                ret = PLAN_EXIT_FAIL;
                break;
            }
            if (!fl) {
                plan_error(pl, "%s:%lu:%d: malformed JSON: %s", path, lineno, jerr.column,
                           jerr.text);
                ret = PLAN_EXIT_INPUT;
                break;
            }
            snprintf(where, sizeof(where), "%s:%lu", path, lineno);
            ret = add_flavor(pl, fl, path, lineno, where, NULL);
            json_decref(fl);
            count++;
        }
        if (!ret && count == 0) {
            plan_error(pl, "%s: no flavors", path);
            ret = PLAN_EXIT_INPUT;
        }
    }
    json_decref(root);
    free(text);
    return ret;
}

/* ------------------------------------------------------------------ cleanup */

void plan_free(struct plan *pl) {
    size_t i;
    for (i = 0; i < pl->nhosts; i++)
        numafit_host_free(pl->hosts[i].h);
    free(pl->hosts);
    free(pl->names);
    free(pl->name_index);
    free(pl->texts);
    free(pl->sources);
    for (i = 0; i < pl->nexisting; i++) {
        free(pl->existing[i].flavor);
        json_decref(pl->existing[i].cells);
    }
    free(pl->existing);
    for (i = 0; i < pl->nflavors; i++) {
        free(pl->flavors[i].name);
        json_decref(pl->flavors[i].given);
        json_decref(pl->flavors[i].lib_flavor);
        json_decref(pl->flavors[i].image);
        numafit_request_free(pl->flavors[i].req);
    }
    for (i = 0; i < pl->nlimits; i++) {
        numafit_options_free(pl->limits[i].opt[0]);
        numafit_options_free(pl->limits[i].opt[1]);
    }
    for (i = 0; i < pl->nresults; i++) {
        free(pl->results[i].top);
        json_decref(pl->results[i].hosts);
    }
    json_decref(pl->limits_json);
    memset(pl, 0, sizeof(*pl));
}
