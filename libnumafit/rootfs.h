/* Reading files below a caller-given root directory (a captured sysfs tree,
 * /proc, /etc, or "/" on a live host), for the sysfs loader and the doctor.
 * Every read is bounded, opens without blocking (a FIFO must not wait for a
 * writer), refuses anything that is not a regular file (a FIFO, a device, a
 * directory would block, never end or fail later) and retries on EINTR. */
#ifndef NUMAFIT_ROOTFS_H
#define NUMAFIT_ROOTFS_H

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>

#define NUMAFIT__ROOTFS_PATH_CAP 4096 /* bytes of root/rel, with the NUL */
#define NUMAFIT__ROOTFS_WHY_CAP  64   /* bytes of a failure's reason */

/* Flags of numafit__rootfs_init(). */
enum {
    /* refuse a symbolic link as the last component (sysfs attribute files
     * never are; /proc/mounts on a live host is one) */
    NUMAFIT__ROOTFS_NOFOLLOW = 1u << 0,
    /* read the first max bytes of a larger file instead of refusing it (a
     * reader that never looks further, as libvirt's of a PCI device's vpd) */
    NUMAFIT__ROOTFS_HEAD = 1u << 1,
};

struct numafit__rootfs {
    const char *root; /* "" for "/" (paths are root + "/" + rel) */
    unsigned flags;
    size_t max; /* the largest file read, in bytes */
    char *buf;  /* max + 1 bytes: the last file read, NUL-terminated */
};

/* root NULL, "" or "/" is the live host. Allocates the buffer: 0 or -ENOMEM
 * (fs->buf NULL). numafit__rootfs_clear() is safe either way. */
int numafit__rootfs_init(struct numafit__rootfs *fs, const char *root, size_t max, unsigned flags);
void numafit__rootfs_clear(struct numafit__rootfs *fs);

/* root/rel into out (NUMAFIT__ROOTFS_PATH_CAP bytes): 0 or -ENAMETOOLONG. */
int numafit__rootfs_path(const struct numafit__rootfs *fs, const char *rel, char *out);

/* Read root/rel into fs->buf, NUL-terminated (NUL bytes of the file are
 * kept). Returns its length, or -errno with why (NUMAFIT__ROOTFS_WHY_CAP
 * bytes) saying which step failed: "path too long" (-ENAMETOOLONG),
 * "missing" (-ENOENT), "a symbolic link, not a regular file" (-EINVAL, with
 * NUMAFIT__ROOTFS_NOFOLLOW), "cannot open", "cannot stat", "not a regular
 * file" (-EINVAL), "read error", "larger than N KiB" (-EFBIG; with
 * NUMAFIT__ROOTFS_HEAD its first max bytes instead). */
int numafit__rootfs_read(struct numafit__rootfs *fs, const char *rel, char *why);

/* opendir(root/rel): 0 and *ret_dir, or -ENAMETOOLONG or opendir's -errno. */
int numafit__rootfs_opendir(const struct numafit__rootfs *fs, const char *rel, DIR **ret_dir);

/* A directory entry named prefix<N>suffix with N all decimal digits: returns
 * the number of digits (0 when the name is not such an entry) and N in
 * *ret_num, UINT64_MAX when it does not fit. */
size_t numafit__rootfs_entry_number(const char *name, const char *prefix, const char *suffix,
                                    uint64_t *ret_num);

#endif
