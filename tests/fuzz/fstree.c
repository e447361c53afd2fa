/*
 * Scratch files and trees for the fuzz targets (see fstree.h).
 */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* nftw() */
#endif
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fstree.h"
#include "invariants.h"

#define MAX_RECORDS    512
#define MAX_COMPONENTS 16
#define MAX_REL        255

static char scratch[PATH_MAX / 4];
static char tree[sizeof(scratch) + 8];

/*
 * The tree on disk and the tree an input wants, as entries sorted by path
 * (a directory sorts before what it holds). Building a tree only changes
 * what differs from the previous input's: a mutation usually rewrites one
 * file instead of a few hundred.
 */
struct entry {
    char *path; /* relative to tree/ */
    const uint8_t *data;
    size_t len;
    bool dir;
};

static struct entry *cur; /* on disk */
static size_t ncur;
static uint8_t *cur_input; /* the input cur's contents point into */

/* scratch files written, removed at exit; one slot per distinct name a
 * process uses (fuzz_plan_load alone names eleven) */
static char *files[32];
static size_t nfiles;

static void entries_free(struct entry *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        free(v[i].path);
    free(v);
}

static void full_path(char *out, size_t cap, const char *rel) {
    snprintf(out, cap, "%s/%s", tree, rel);
}

static void remove_entry(const struct entry *e) {
    char p[sizeof(tree) + 2 * MAX_REL + 8];
    full_path(p, sizeof(p), e->path);
    if (e->dir)
        rmdir(p);
    else
        unlink(p);
}

static void tree_clear(void) {
    for (size_t i = ncur; i > 0; i--)
        remove_entry(&cur[i - 1]);
    entries_free(cur, ncur);
    cur = NULL;
    ncur = 0;
    free(cur_input);
    cur_input = NULL;
}

static void cleanup(void) {
    tree_clear();
    rmdir(tree);
    for (size_t i = 0; i < nfiles; i++) {
        unlink(files[i]);
        free(files[i]);
    }
    nfiles = 0;
    rmdir(scratch);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* Remove the scratch directories of fuzz processes that are gone (a crash
 * or libFuzzer's _Exit skips atexit). */
static void remove_stale(const char *base) {
    DIR *d = opendir(base);
    struct dirent *de;
    char path[sizeof(scratch)];

    if (!d)
        return;
    while ((de = readdir(d))) {
        char *end;
        long pid;
        if (strncmp(de->d_name, "numafit-fuzz-", 13) != 0)
            continue;
        pid = strtol(de->d_name + 13, &end, 10);
        if (*end || pid <= 0 || pid == (long)getpid() ||
            !(kill((pid_t)pid, 0) < 0 && errno == ESRCH))
            continue;
        snprintf(path, sizeof(path), "%s/%s", base, de->d_name);
        nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    }
    closedir(d);
}

const char *fuzz_scratch_dir(void) {
    const char *base;
    if (scratch[0])
        return scratch;
    base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    remove_stale(base);
    snprintf(scratch, sizeof(scratch), "%s/numafit-fuzz-%ld", base, (long)getpid());
    if (mkdir(scratch, 0700) < 0 && errno != EEXIST)
        fuzz_note("%s: %s", scratch, strerror(errno));
    FUZZ_ASSERT(access(scratch, W_OK) == 0);
    snprintf(tree, sizeof(tree), "%s/tree", scratch);
    if (mkdir(tree, 0700) < 0 && errno != EEXIST)
        fuzz_note("%s: %s", tree, strerror(errno));
    FUZZ_ASSERT(access(tree, W_OK) == 0);
    atexit(cleanup);
    return scratch;
}

static int write_all(int fd, const uint8_t *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void create_entry(const struct entry *e) {
    char p[sizeof(tree) + 2 * MAX_REL + 8];
    int fd;
    full_path(p, sizeof(p), e->path);
    if (e->dir) {
        if (mkdir(p, 0700) < 0 && errno != EEXIST)
            fuzz_note("%s: %s", p, strerror(errno));
        return;
    }
    fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        fuzz_note("%s: %s", p, strerror(errno));
    FUZZ_ASSERT(fd >= 0);
    FUZZ_ASSERT(write_all(fd, e->data, e->len) == 0);
    close(fd);
}

/* ---- the wanted tree: an array plus an open-addressing index by path */

struct want {
    struct entry *v;
    size_t n, cap;
    uint32_t *slot; /* index + 1 */
    size_t nslot;
};

static uint64_t path_hash(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The entry of path, or NULL and *ret_j its free slot. */
static struct entry *want_find(const struct want *w, const char *path, size_t *ret_j) {
    size_t mask = w->nslot - 1, j = (size_t)path_hash(path) & mask;
    while (w->slot[j]) {
        struct entry *e = &w->v[w->slot[j] - 1];
        if (!strcmp(e->path, path))
            return e;
        j = (j + 1) & mask;
    }
    *ret_j = j;
    return NULL;
}

static struct entry *want_add(struct want *w, const char *path, bool dir) {
    size_t j = 0;
    struct entry *e = want_find(w, path, &j);
    if (e)
        return e;
    FUZZ_ASSERT(w->n < w->cap);
    e = &w->v[w->n];
    e->path = strdup(path);
    FUZZ_ASSERT(e->path != NULL);
    e->data = NULL;
    e->len = 0;
    e->dir = dir;
    w->slot[j] = (uint32_t)++w->n;
    return e;
}

/* Add path's directories and, unless they collide, the file. */
static void want_record(struct want *w, const char *prefix, const char *rel, size_t rlen,
                        const uint8_t *content, size_t clen) {
    char path[2 * MAX_REL + 4];
    size_t plen = (size_t)snprintf(path, sizeof(path), "%s", prefix), ncomp = 0;
    const char *s = rel, *e = rel + rlen;
    struct entry *f;

    while (s < e) {
        const char *slash = memchr(s, '/', (size_t)(e - s));
        size_t n = slash ? (size_t)(slash - s) : (size_t)(e - s);
        const char *next = slash ? slash + 1 : e;
        if (n == 0 || (n == 1 && s[0] == '.')) {
            s = next;
            continue;
        }
        if ((n == 2 && s[0] == '.' && s[1] == '.') || ++ncomp > MAX_COMPONENTS ||
            plen + 1 + n >= sizeof(path))
            return;
        if (plen > 0) {
            /* what we have so far is a directory on the way */
            struct entry *d = want_add(w, path, true);
            if (!d->dir)
                return; /* a file there already */
            path[plen++] = '/';
        }
        memcpy(path + plen, s, n);
        plen += n;
        path[plen] = '\0';
        s = next;
    }
    if (ncomp == 0)
        return;
    f = want_add(w, path, false);
    if (f->dir)
        return; /* a directory there already */
    f->data = content;
    f->len = clen;
}

/* Path order with '/' below every other byte: a directory comes right
 * before what it holds. */
static int rank(unsigned char c) {
    return c == '\0' ? 0 : c == '/' ? 1 : c + 1;
}

static int cmp_entry(const void *a, const void *b) {
    const struct entry *x = a, *y = b;
    const unsigned char *p = (const unsigned char *)x->path, *q = (const unsigned char *)y->path;
    for (; *p && *p == *q; p++, q++)
        ;
    return rank(*p) - rank(*q);
}

const char *fuzz_tree_build(const char *prefix, const uint8_t *data, size_t size) {
    struct want w;
    uint8_t *copy;
    const uint8_t *p, *e;
    size_t i, j, nrec = 0;

    fuzz_scratch_dir();
    FUZZ_ASSERT(strlen(prefix) < MAX_REL);
    copy = malloc(size ? size : 1);
    FUZZ_ASSERT(copy != NULL);
    memcpy(copy, data, size);

    /* at most MAX_RECORDS files (each path ends at a NUL: no more records
     * than NULs), each with MAX_COMPONENTS directories; sized to the input,
     * not to the largest one (a fresh 340 KiB table per input cost more
     * than the tree's files) */
    for (p = copy, e = copy + size; p < e && nrec < MAX_RECORDS; nrec++) {
        const uint8_t *z = memchr(p, '\0', (size_t)(e - p));
        if (!z)
            break;
        p = z + 1;
    }
    memset(&w, 0, sizeof(w));
    w.cap = nrec * (MAX_COMPONENTS + 1) + MAX_COMPONENTS + 1;
    nrec = 0;
    w.v = calloc(w.cap, sizeof(*w.v));
    for (w.nslot = 1; w.nslot < 2 * w.cap; w.nslot *= 2)
        ;
    w.slot = calloc(w.nslot, sizeof(*w.slot));
    FUZZ_ASSERT(w.v && w.slot);
    if (*prefix) {
        char pre[MAX_REL + 1];
        snprintf(pre, sizeof(pre), "%s", prefix);
        for (char *q = pre;; q++)
            if (*q == '/' || *q == '\0') {
                char c = *q;
                *q = '\0';
                want_add(&w, pre, true);
                if (!c)
                    break;
                *q = c;
            }
    }
    for (p = copy, e = copy + size; p < e && nrec < MAX_RECORDS; nrec++) {
        const uint8_t *pe = memchr(p, '\0', (size_t)(e - p));
        const uint8_t *c, *ce;
        if (!pe)
            break; /* a path without content */
        c = pe + 1;
        ce = c < e ? memchr(c, '\0', (size_t)(e - c)) : NULL;
        if (!ce)
            ce = e;
        if (pe - p <= MAX_REL)
            want_record(&w, prefix, (const char *)p, (size_t)(pe - p), c, (size_t)(ce - c));
        p = ce < e ? ce + 1 : e;
    }
    qsort(w.v, w.n, sizeof(*w.v), cmp_entry);

    /* what goes: deepest first */
    for (i = ncur, j = w.n; i > 0;) {
        int c = j > 0 ? cmp_entry(&cur[i - 1], &w.v[j - 1]) : 1;
        if (c > 0 || (c == 0 && cur[i - 1].dir != w.v[j - 1].dir)) {
            remove_entry(&cur[i - 1]);
            i--;
            if (c == 0)
                j--;
        } else if (c < 0) {
            j--;
        } else {
            i--;
            j--;
        }
    }
    /* what comes or changes: parents first */
    for (i = 0, j = 0; j < w.n; j++) {
        int c = 1;
        while (i < ncur && (c = cmp_entry(&cur[i], &w.v[j])) < 0)
            i++;
        if (i >= ncur)
            c = 1;
        if (c != 0 || cur[i].dir != w.v[j].dir ||
            (!w.v[j].dir &&
             (cur[i].len != w.v[j].len || memcmp(cur[i].data, w.v[j].data, w.v[j].len) != 0)))
            create_entry(&w.v[j]);
    }
    entries_free(cur, ncur);
    free(cur_input);
    cur = w.v;
    ncur = w.n;
    cur_input = copy;
    free(w.slot);
    return tree;
}

const char *fuzz_scratch_file(const char *name, const void *data, size_t size) {
    char path[sizeof(scratch) + 64];
    size_t i;
    int fd;

    fuzz_scratch_dir();
    FUZZ_ASSERT(strlen(name) < 60 && !strchr(name, '/'));
    snprintf(path, sizeof(path), "%s/%s", scratch, name);
    for (i = 0; i < nfiles && strcmp(files[i], path) != 0; i++)
        ;
    if (i == nfiles) {
        FUZZ_ASSERT(nfiles < sizeof(files) / sizeof(files[0]));
        files[nfiles] = strdup(path);
        FUZZ_ASSERT(files[nfiles] != NULL);
        nfiles++;
    }
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        fuzz_note("%s: %s", path, strerror(errno));
    FUZZ_ASSERT(fd >= 0);
    FUZZ_ASSERT(write_all(fd, data, size) == 0);
    close(fd);
    return files[i];
}
