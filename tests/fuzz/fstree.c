/*
 * Scratch files and trees for the fuzz targets (see fstree.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

/* What the current tree holds, in creation order (removed in reverse). */
static char **made;
static size_t nmade, capmade;

static char *files[8]; /* scratch files written, removed at exit */
static size_t nfiles;

static void tree_clear(void) {
    while (nmade > 0) {
        char *p = made[--nmade];
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            rmdir(p);
        else
            unlink(p);
        free(p);
    }
}

static void cleanup(void) {
    tree_clear();
    free(made);
    made = NULL;
    capmade = 0;
    rmdir(tree);
    for (size_t i = 0; i < nfiles; i++) {
        unlink(files[i]);
        free(files[i]);
    }
    nfiles = 0;
    rmdir(scratch);
}

const char *fuzz_scratch_dir(void) {
    const char *base;
    if (scratch[0])
        return scratch;
    base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
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

static void remember(const char *path) {
    char *copy;
    if (nmade == capmade) {
        size_t ncap = capmade ? 2 * capmade : 256;
        char **n = realloc(made, ncap * sizeof(*n));
        FUZZ_ASSERT(n != NULL);
        made = n;
        capmade = ncap;
    }
    copy = strdup(path);
    FUZZ_ASSERT(copy != NULL);
    made[nmade++] = copy;
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

/* Create tree/prefix/rel with content; 0, or -1 when the record is skipped. */
static int add_record(const char *prefix, const char *rel, size_t rlen, const uint8_t *content,
                      size_t clen) {
    char path[sizeof(tree) + 2 * MAX_REL + 4];
    size_t plen, ncomp = 0;
    const char *s = rel, *e = rel + rlen;
    int fd;

    plen = (size_t)snprintf(path, sizeof(path), "%s%s%s", tree, *prefix ? "/" : "", prefix);
    /* the prefix directories, made once and kept */
    for (char *q = path + strlen(tree) + 1; *prefix && q <= path + plen; q++) {
        if (*q == '/' || *q == '\0') {
            char c = *q;
            *q = '\0';
            if (mkdir(path, 0700) == 0)
                remember(path);
            *q = c;
        }
    }
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
            return -1;
        path[plen++] = '/';
        memcpy(path + plen, s, n);
        plen += n;
        path[plen] = '\0';
        s = next;
        if (s < e) {
            /* a directory on the way */
            if (mkdir(path, 0700) == 0)
                remember(path);
            else if (errno != EEXIST)
                return -1;
        }
    }
    if (ncomp == 0)
        return -1;
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd >= 0) {
        remember(path);
    } else if (errno == EEXIST) {
        fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
            return -1; /* a directory */
    } else {
        return -1;
    }
    if (write_all(fd, content, clen) < 0) {
        close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

const char *fuzz_tree_build(const char *prefix, const uint8_t *data, size_t size) {
    const uint8_t *p = data, *e = data + size;
    unsigned n = 0;

    fuzz_scratch_dir();
    tree_clear();
    while (p < e && n < MAX_RECORDS) {
        const uint8_t *pe = memchr(p, '\0', (size_t)(e - p));
        const uint8_t *c, *ce;
        if (!pe)
            break; /* a path without content */
        c = pe + 1;
        ce = c < e ? memchr(c, '\0', (size_t)(e - c)) : NULL;
        if (!ce)
            ce = e;
        if (pe - p <= MAX_REL)
            add_record(prefix, (const char *)p, (size_t)(pe - p), c, (size_t)(ce - c));
        n++;
        p = ce < e ? ce + 1 : e;
    }
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
