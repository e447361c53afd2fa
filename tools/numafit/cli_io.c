/* File input and output shared by the numafit subcommands (cli_io.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_io.h"
#include "json_count.h"

static int say(char *why, size_t whylen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int say(char *why, size_t whylen, int rc, const char *fmt, ...) {
    va_list ap;
    if (why && whylen) {
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

/* Open path for reading: a regular file only. Returns the descriptor or
 * -errno with why set. */
static int open_regular(const char *path, char *why, size_t whylen) {
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK), rc;

    if (fd < 0) {
        rc = -errno;
        return say(why, whylen, rc, "%s", strerror(-rc));
    }
    if (fstat(fd, &st) < 0) {
        rc = -errno;
        close(fd);
        return say(why, whylen, rc, "%s", strerror(-rc));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        if (S_ISDIR(st.st_mode))
            return say(why, whylen, -EISDIR, "is a directory, not a regular file");
        return say(why, whylen, -EINVAL, "not a regular file (%s)",
                   S_ISFIFO(st.st_mode)   ? "a FIFO"
                   : S_ISCHR(st.st_mode)  ? "a character device"
                   : S_ISBLK(st.st_mode)  ? "a block device"
                   : S_ISSOCK(st.st_mode) ? "a socket"
                                          : "not a file");
    }
    /* a regular file never blocks; the flag only mattered for open() */
    (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

int cli_read_file(const char *path, size_t max, bool allow_stdin, char **ret_buf, size_t *ret_len,
                  char *why, size_t whylen) {
    const bool std = allow_stdin && strcmp(path, "-") == 0;
    size_t cap = 65536, n = 0;
    char *buf = NULL;
    int fd = std ? STDIN_FILENO : open_regular(path, why, whylen), rc = 0;

    if (fd < 0)
        return fd;
    for (;;) {
        ssize_t got;
        if (!buf || n == cap) {
            char *nb;
            if (buf)
                cap = cap > max ? max + 1 : cap * 2;
            if (cap > max + 1)
                cap = max + 1;
            nb = realloc(buf, cap + 1);
            if (!nb) {
                rc = say(why, whylen, -ENOMEM, "out of memory");
                break;
            }
            buf = nb;
        }
        got = read(fd, buf + n, cap - n);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            rc = -errno;
            say(why, whylen, rc, "read error: %s", strerror(-rc));
            break;
        }
        if (got == 0)
            break;
        n += (size_t)got;
        if (n > max) {
            rc = say(why, whylen, -EFBIG, "larger than %zu bytes", max);
            break;
        }
    }
    if (!std)
        close(fd);
    if (rc < 0) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *ret_buf = buf;
    *ret_len = n;
    return 0;
}

char *cli_read_input(const char *who, const char *what, const char *path, size_t max,
                     bool allow_stdin, size_t *ret_len, int *ret_rc) {
    char *buf = NULL, why[256];
    int rc = cli_read_file(path, max, allow_stdin, &buf, ret_len, why, sizeof(why));

    if (ret_rc)
        *ret_rc = rc;
    if (rc < 0) {
        fprintf(stderr, "%s: %s%s%s: %s\n", who, what ? what : "", what ? " " : "", path, why);
        return NULL;
    }
    return buf;
}

json_t *cli_load_json_file(const char *who, const char *what, const char *path, size_t max,
                           int *ret_rc) {
    char *buf, why[256];
    size_t n;
    json_error_t jerr;
    json_t *v;
    int rc;

    buf = cli_read_input(who, what, path, max, false, &n, &rc);
    if (!buf)
        goto fail;
    v = cli_json_load(buf, n, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    free(buf);
    if (v)
        return v;
    rc = cli_json_error(&jerr, why, sizeof(why));
    if (rc == -ENOMEM || jerr.line < 0)
        fprintf(stderr, "%s: %s%s%s: %s\n", who, what ? what : "", what ? " " : "", path, why);
    else
        fprintf(stderr, "%s: %s:%d:%d: malformed JSON: %s\n", who, path, jerr.line, jerr.column,
                jerr.text);
fail:
    if (ret_rc)
        *ret_rc = rc;
    return NULL;
}

FILE *cli_fopen_read(const char *path, bool allow_stdin, char *why, size_t whylen) {
    FILE *f;
    int fd;

    if (allow_stdin && strcmp(path, "-") == 0)
        return stdin;
    fd = open_regular(path, why, whylen);
    if (fd < 0)
        return NULL;
    f = fdopen(fd, "rb");
    if (!f) {
        say(why, whylen, -errno, "%s", strerror(errno));
        close(fd);
    }
    return f;
}

int cli_json_error(const json_error_t *jerr, char *out, size_t outlen) {
    if (json_error_code(jerr) == json_error_out_of_memory || jerr->text[0] == '\0')
        return say(out, outlen, -ENOMEM, "out of memory");
    if (jerr->line < 1)
        return say(out, outlen, -EBADMSG, "%s", jerr->text);
    return say(out, outlen, -EBADMSG, "line %d column %d: %s", jerr->line, jerr->column,
               jerr->text);
}

/* Write all of data to fd. Returns 0 or -errno. */
static int write_all(int fd, const char *data, size_t n) {
    while (n) {
        ssize_t k = write(fd, data, n);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        data += k;
        n -= (size_t)k;
    }
    return 0;
}

int cli_write_file(const char *path, const void *data, size_t n, char *why, size_t whylen) {
    char target[PATH_MAX], tmp[PATH_MAX + 16];
    struct stat st;
    mode_t mask;
    int fd, rc;

    if (strcmp(path, "-") == 0) {
        errno = 0;
        if (fwrite(data, 1, n, stdout) != n || fflush(stdout) != 0 || ferror(stdout))
            return say(why, whylen, errno ? -errno : -EIO, "write error: %s",
                       strerror(errno ? errno : EIO));
        return 0;
    }
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* a device or FIFO (/dev/stdout, /dev/null): written in place */
        fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
            return say(why, whylen, -errno, "%s", strerror(errno));
        rc = write_all(fd, data, n);
        if (close(fd) != 0 && rc == 0 && errno != EINTR)
            rc = -errno;
        return rc ? say(why, whylen, rc, "write error: %s", strerror(-rc)) : 0;
    }
    /* the file a symbolic link points to is replaced, not the link */
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        if (!realpath(path, target))
            return say(why, whylen, -errno, "%s", strerror(errno));
    } else if (snprintf(target, sizeof(target), "%s", path) >= (int)sizeof(target)) {
        return say(why, whylen, -ENAMETOOLONG, "%s", strerror(ENAMETOOLONG));
    }
    snprintf(tmp, sizeof(tmp), "%s.XXXXXX", target);
    fd = mkstemp(tmp);
    if (fd < 0)
        return say(why, whylen, -errno, "cannot create a temporary file beside it: %s",
                   strerror(errno));
    /* the mode a plain fopen(path, "w") would give */
    mask = umask(0);
    umask(mask);
    rc = fchmod(fd, 0666 & ~mask) < 0 ? -errno : 0;
    if (!rc)
        rc = write_all(fd, data, n);
    if (!rc && fsync(fd) < 0 && errno != EINVAL && errno != EROFS)
        rc = -errno;
    if (close(fd) != 0 && !rc && errno != EINTR)
        rc = -errno;
    if (!rc && rename(tmp, target) < 0)
        rc = -errno;
    if (rc) {
        unlink(tmp);
        return say(why, whylen, rc, "write error: %s", strerror(-rc));
    }
    return 0;
}

void cli_stdio_init(void) {
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        int nfd = open("/dev/null", (fd == 0 ? O_WRONLY : O_RDONLY) | O_NOCTTY);
        if (nfd >= 0 && nfd != fd)
            close(nfd); /* a lower one was free after all: leave it */
    }
}

int cli_close_stdout(const char *prog, int rc, int nofit_rc) {
    bool bad;
    int err = 0;

    errno = 0;
    bad = ferror(stdout) != 0;
    if (fclose(stdout) != 0) {
        err = errno;
        bad = true;
    }
    if (!bad)
        return rc;
    if (rc != 0 && rc != nofit_rc)
        return rc; /* the command failed and said why (often this) */
    fprintf(stderr, "%s: cannot write standard output%s%s\n", prog, err ? ": " : "",
            err ? strerror(err) : "");
    return rc == 0 || rc == nofit_rc ? 1 : rc;
}

json_t *cli_json_load(const char *buf, size_t len, size_t flags, json_error_t *jerr) {
    if (numafit__json_values_over(buf, len, CLI_JSON_VALUES_MAX)) {
        memset(jerr, 0, sizeof(*jerr));
        jerr->line = jerr->column = -1;
        snprintf(jerr->text, sizeof(jerr->text), "more than %u JSON values", CLI_JSON_VALUES_MAX);
        return NULL;
    }
    return numafit__json_loadb(buf, len, flags, jerr);
}
