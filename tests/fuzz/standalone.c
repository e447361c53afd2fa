/*
 * Standalone driver for the libFuzzer targets in tests/fuzz: replays every
 * file named on the command line, and every regular file of every directory
 * named there (not recursive, dot files skipped, in name order), through
 * LLVMFuzzerTestOneInput(). Lets `make check` run the seed corpora (and saved
 * crashers) without clang or libFuzzer.
 *
 * Each input is copied into a buffer of exactly its size, as libFuzzer does,
 * so that an over-read shows up under AddressSanitizer or valgrind.
 *
 * Exit status: 0 when every input was replayed, 1 when a path could not be
 * read or there was no input at all. A violated invariant aborts in the target.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long replayed;

/* Read a whole file into a fresh buffer of exactly its size. */
static int read_file(const char *path, uint8_t **ret_buf, size_t *ret_len) {
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;

    if (!f)
        return -errno;
    for (;;) {
        if (len == cap) {
            size_t ncap = cap ? 2 * cap : 4096;
            uint8_t *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                fclose(f);
                return -ENOMEM;
            }
            buf = nb;
            cap = ncap;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    if (ferror(f)) {
        free(buf);
        fclose(f);
        return -EIO;
    }
    fclose(f);

    /* exact-size copy so that reads past the end are caught (and never a
     * NULL pointer, not even for an empty input, as with libFuzzer) */
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) {
        free(buf);
        return -ENOMEM;
    }
    if (len)
        memcpy(exact, buf, len);
    free(buf);
    *ret_buf = exact;
    *ret_len = len;
    return 0;
}

static int replay_file(const char *path) {
    uint8_t *buf = NULL;
    size_t len = 0;
    int r = read_file(path, &buf, &len);

    if (r < 0) {
        fprintf(stderr, "%s: %s\n", path, strerror(-r));
        return r;
    }
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    replayed++;
    return 0;
}

static int replay_dir(const char *dir) {
    struct dirent **names = NULL;
    int n = scandir(dir, &names, NULL, alphasort);
    int rc = 0;

    if (n < 0) {
        fprintf(stderr, "%s: %s\n", dir, strerror(errno));
        return -errno;
    }
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        struct stat st;
        size_t plen = strlen(dir) + strlen(name) + 2;
        char *path = malloc(plen);

        if (!path) {
            rc = -ENOMEM;
        } else if (name[0] != '.') {
            snprintf(path, plen, "%s/%s", dir, name);
            if (stat(path, &st) < 0) {
                fprintf(stderr, "%s: %s\n", path, strerror(errno));
                rc = -errno;
            } else if (S_ISREG(st.st_mode) && replay_file(path) < 0) {
                rc = -EIO;
            }
        }
        free(path);
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv) {
    int failed = 0;

    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIRECTORY...\n", argv[0]);
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) < 0) {
            fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
            failed = 1;
        } else if (S_ISDIR(st.st_mode)) {
            if (replay_dir(argv[i]) < 0)
                failed = 1;
        } else if (replay_file(argv[i]) < 0) {
            failed = 1;
        }
    }
    printf("%lu inputs replayed\n", replayed);
    if (!replayed && !failed)
        fprintf(stderr, "%s: nothing to replay\n", argv[0]);
    return failed || !replayed ? 1 : 0;
}
