/* One reader of files below a root directory, shared by the sysfs loader
 * (discover_sysfs.c) and the doctor (doctor_facts.c); see rootfs.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "private.h"
#include "rootfs.h"

int numafit__rootfs_init(struct numafit__rootfs *fs, const char *root, size_t max, unsigned flags) {
    fs->root = root && *root && strcmp(root, "/") ? root : "";
    fs->flags = flags;
    fs->max = max;
    fs->buf = numafit__malloc(max + 1);
    return fs->buf ? 0 : -ENOMEM;
}

void numafit__rootfs_clear(struct numafit__rootfs *fs) {
    numafit__free(fs->buf);
    fs->buf = NULL;
}

int numafit__rootfs_path(const struct numafit__rootfs *fs, const char *rel, char *out) {
    int n = snprintf(out, NUMAFIT__ROOTFS_PATH_CAP, "%s/%s", fs->root, rel);
    if (n < 0 || n >= NUMAFIT__ROOTFS_PATH_CAP)
        return -ENAMETOOLONG;
    return 0;
}

static int why_fail(char *why, int rc, const char *text) {
    snprintf(why, NUMAFIT__ROOTFS_WHY_CAP, "%s", text);
    return rc;
}

static int open_regular(const struct numafit__rootfs *fs, const char *rel, char *why) {
    char path[NUMAFIT__ROOTFS_PATH_CAP];
    int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
    struct stat st;
    int fd, r;
    if (numafit__rootfs_path(fs, rel, path) < 0)
        return why_fail(why, -ENAMETOOLONG, "path too long");
    if (fs->flags & NUMAFIT__ROOTFS_NOFOLLOW)
        flags |= O_NOFOLLOW;
    if ((fd = open(path, flags)) < 0) {
        r = -errno;
        if (r == -ELOOP && (fs->flags & NUMAFIT__ROOTFS_NOFOLLOW))
            return why_fail(why, -EINVAL, "a symbolic link, not a regular file");
        return why_fail(why, r, r == -ENOENT ? "missing" : "cannot open");
    }
    if (fstat(fd, &st) < 0) {
        r = -errno;
        close(fd);
        return why_fail(why, r, "cannot stat");
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return why_fail(why, -EINVAL, "not a regular file");
    }
    return fd;
}

int numafit__rootfs_read(struct numafit__rootfs *fs, const char *rel, char *why) {
    size_t len = 0;
    int fd = open_regular(fs, rel, why), r;
    if (fd < 0)
        return fd;
    for (;;) {
        ssize_t n = read(fd, fs->buf + len, fs->max + 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            r = n < 0 ? -errno : 0;
            break;
        }
        len += (size_t)n;
        if (len > fs->max && (fs->flags & NUMAFIT__ROOTFS_HEAD)) {
            len = fs->max;
            r = 0;
            break;
        }
        if (len > fs->max) {
            char text[NUMAFIT__ROOTFS_WHY_CAP];
            snprintf(text, sizeof(text), "larger than %zu KiB", fs->max >> 10);
            r = why_fail(why, -EFBIG, text);
            break;
        }
    }
    close(fd);
    if (r < 0)
        return r == -EFBIG ? r : why_fail(why, r, "read error");
    fs->buf[len] = '\0';
    return (int)len;
}

int numafit__rootfs_opendir(const struct numafit__rootfs *fs, const char *rel, DIR **ret_dir) {
    char path[NUMAFIT__ROOTFS_PATH_CAP];
    int r = numafit__rootfs_path(fs, rel, path);
    if (r < 0)
        return r;
    if (!(*ret_dir = opendir(path)))
        return -errno;
    return 0;
}

size_t numafit__rootfs_entry_number(const char *name, const char *prefix, const char *suffix,
                                    uint64_t *ret_num) {
    size_t len = strlen(name), pl = strlen(prefix), sl = strlen(suffix), nd = 0;
    uint64_t v = 0;
    if (len <= pl + sl || strncmp(name, prefix, pl) || strcmp(name + len - sl, suffix))
        return 0;
    for (size_t i = pl; i < len - sl; i++, nd++) {
        if (name[i] < '0' || name[i] > '9')
            return 0;
        v = v > (UINT64_MAX - 9) / 10 ? UINT64_MAX : v * 10 + (uint64_t)(name[i] - '0');
    }
    *ret_num = v;
    return nd;
}
