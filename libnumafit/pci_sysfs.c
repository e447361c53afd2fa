/* A host's PCI devices from a Linux sysfs tree under a caller-given root
 * (captured trees in tests, "/" on a live host): what libvirt's node device
 * driver makes of ROOT/sys/bus/pci/devices (node_device_udev.c
 * udevProcessPCI, node_device_conf.c virNodeDeviceGetPCISRIOVCaps) and what
 * nova's libvirt driver then reports (host.py _get_pcidev_info, reading
 * sysfs itself for a VF's parent_ifname: nova/pci/utils.py).
 *
 * Per entry ADDRESS of sys/bus/pci/devices (a symbolic link to the device's
 * directory in sysfs, a plain directory in a capture):
 *  - vendor, device: hexadecimal ("0x8086"), required;
 *  - numa_node: decimal; negative or missing is unknown (libvirt writes no
 *    <numa> element, nova reports null);
 *  - physfn (a symbolic link; the PF's address is its target's last
 *    component, the target need not exist): a VF, parent_addr. Otherwise a
 *    PF when virtfn0 exists or sriov_totalvfs is above 0 (libvirt's
 *    virt_functions capability, which nova takes for a PF even with no VF
 *    enabled), else type-PCI;
 *  - a VF whose net/ directory has an entry (libvirt makes it the parent of
 *    a net device) gets parent_ifname from ADDRESS/physfn/net as nova reads
 *    it (os.listdir().pop(): with several interfaces the last in sorted
 *    order here, nova's is the directory's order); none when that is
 *    missing or empty (nova's PciDeviceNotFoundById);
 *  - a VF that is the nearest PCI ancestor of an entry of
 *    sys/bus/vdpa/devices (symbolic links into the device tree) is "vdpa";
 *  - ifname: the first entry of net/ in sorted order; sriov_totalvfs (else
 *    -1) and sriov_vf_device (as the kernel prints it, else none);
 *  - the card serial number of the binary vpd file (pci_vpd.c: libvirt's
 *    rules; a VPD libvirt would refuse, a vpd that is missing, not a
 *    regular file or unreadable is no serial number, as libvirt then
 *    reports the device without VPD), and a type-VF (not a vdpa one)
 *    without one that of its PF when the PF is listed (nova's fallback),
 *    as capabilities {"vpd": {"card_serial_number"}}.
 * Not read: the VF's network features, net devices below a child device
 * (virtio's virtioN/net).
 *
 * Every file read is bounded and must be a regular file (rootfs.h); every
 * directory listing is bounded. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pci_internal.h"
#include "private.h"
#include "rootfs.h"

#define FILE_MAX    4096u  /* a sysfs attribute is at most a page */
#define VPD_MAX     32768u /* the VPD address space (libvirt reads no further) */
#define NET_MAX     4096u  /* entries of one net/ directory */
#define VDPA_MAX    65536u /* entries of sys/bus/vdpa/devices */
#define PATH_CAP    NUMAFIT__ROOTFS_PATH_CAP
#define DEVICES_REL "sys/bus/pci/devices"
#define VDPA_REL    "sys/bus/vdpa/devices"

/* ------------------------------------------------------------ shared helpers */

static int hex_digit(char c) {
    return isxdigit((unsigned char)c) ? (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10) : -1;
}

/* "DOMAIN:BUS:SLOT.FUNCTION" as the kernel names PCI functions (4 to 8
 * domain digits, 2, 2 and 1; either case; slot <= 0x1f, function <= 7)
 * into the sort key domain << 16 | bus << 8 | slot << 3 | function.
 * Returns 0 or -EINVAL. */
int numafit__pci_addr_parse(const char *s, size_t len, uint64_t *ret_key) {
    uint32_t v[4];
    if (!numafit__pci_addr_fields(s, len, v) || v[2] > 0x1f || v[3] > 7)
        return -EINVAL;
    *ret_key = (uint64_t)v[0] << 16 | v[1] << 8 | v[2] << 3 | v[3];
    return 0;
}

/* nova's form of the address with this key: "%04x:%02x:%02x.%x" */
void numafit__pci_addr_format(uint64_t key, char *out) {
    snprintf(out, 32, "%04x:%02x:%02x.%x", (unsigned)(key >> 16), (unsigned)(key >> 8) & 0xff,
             (unsigned)(key >> 3) & 0x1f, (unsigned)key & 7);
}

static char *strdup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *strdup_printf(const char *fmt, ...) {
    char buf[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    return numafit__strdup(buf);
}

/* address, vendor_id, product_id, label and dev_id (libvirt's name for the
 * function) of the device with this key, as nova formats them. */
int numafit__pci_device_set_ids(struct pci_device *d, uint64_t key, unsigned vendor,
                                unsigned product) {
    char addr[32];
    numafit__pci_addr_format(key, addr);
    d->address = numafit__strdup(addr);
    d->vendor_id = strdup_printf("%04x", vendor);
    d->product_id = strdup_printf("%04x", product);
    d->label = strdup_printf("label_%04x_%04x", vendor, product);
    if (!d->dev_id && (d->dev_id = strdup_printf("pci_%s", addr)))
        for (char *p = d->dev_id; *p; p++)
            *p = *p == ':' || *p == '.' ? '_' : *p;
    return d->address && d->vendor_id && d->product_id && d->label && d->dev_id ? 0 : -ENOMEM;
}

struct keyed {
    uint64_t key;
    uint32_t index;
};

static int cmp_keyed(const void *a, const void *b) {
    const struct keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The devices sorted by address into a new container; two devices with one
 * address are refused (-EINVAL). devs[0..n) are cleared in every case. */
int numafit__pci_devices_finish(struct pci_device *devs, const uint64_t *keys, uint32_t n,
                                numafit_pci_devices_t **ret, numafit_error_t *err) {
    struct numafit_pci_devices *c = numafit__calloc(1, sizeof(*c));
    struct keyed *order = n ? numafit__calloc(n, sizeof(*order)) : NULL;
    int r = 0;
    if (!c || (n && !order)) {
        r = -ENOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < n; i++)
        order[i] = (struct keyed){keys[i], i};
    if (n > 1)
        qsort(order, n, sizeof(*order), cmp_keyed);
    for (uint32_t i = 0; i < n && r == 0; i++) {
        const struct pci_device *d = &devs[order[i].index];
        if (i && order[i].key == order[i - 1].key) {
            numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, d->address, NULL,
                               "%s: two devices with this address", d->address);
            r = -EINVAL;
        } else if ((r = numafit__pci_devices_add(c, d)) == -ERANGE) {
            numafit__error_set(err, NUMAFIT_E_RANGE, -1, "", NULL, "more than %d PCI devices",
                               NUMAFIT_PCI_DEVICES_MAX);
        }
    }
out:
    for (uint32_t i = 0; i < n; i++)
        numafit__pci_device_clear(&devs[i]);
    numafit__free(order);
    if (r < 0)
        numafit_pci_devices_free(c);
    else
        *ret = c;
    return r;
}

/* ------------------------------------------------------------ sysfs */

struct pctx {
    struct numafit__rootfs fs;  /* FILE_MAX bytes a file, no symbolic links */
    struct numafit__rootfs vpd; /* the first VPD_MAX bytes of a vpd file */
    numafit_error_t *err;
    uint64_t *vdpa; /* sorted keys of the vdpa devices' parents */
    uint32_t nvdpa;
};

static int fail(struct pctx *x, int rc, const char *rel, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(struct pctx *x, int rc, const char *rel, const char *fmt, ...) {
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    numafit__error_set(x->err,
                       rc == -ENOMEM                   ? NUMAFIT_E_NOMEM
                       : rc == -ERANGE || rc == -E2BIG ? NUMAFIT_E_RANGE
                                                       : NUMAFIT_E_SCHEMA,
                       -1, rel, NULL, "%s", text);
    return rc;
}

/* rel = DEVICES_REL/name/leaf (leaf may be NULL) */
static int dev_rel(struct pctx *x, char *rel, const char *name, const char *leaf) {
    int n = leaf ? snprintf(rel, PATH_CAP, "%s/%s/%s", DEVICES_REL, name, leaf)
                 : snprintf(rel, PATH_CAP, "%s/%s", DEVICES_REL, name);
    if (n < 0 || n >= PATH_CAP - 256)
        return fail(x, -ENAMETOOLONG, DEVICES_REL, "%s/%s: path too long", DEVICES_REL, name);
    return 0;
}

/* Read rel into x->fs.buf, without its trailing white space. Returns the
 * length, -ENOENT silently, or -errno with the error set. */
static int read_attr(struct pctx *x, const char *rel) {
    char why[NUMAFIT__ROOTFS_WHY_CAP];
    int r = numafit__rootfs_read(&x->fs, rel, why);
    if (r == -ENOENT)
        return r;
    if (r < 0)
        return fail(x, r, rel, "%s: %s", rel, why);
    while (r > 0 && (x->fs.buf[r - 1] == '\n' || x->fs.buf[r - 1] == ' '))
        x->fs.buf[--r] = '\0';
    return r;
}

/* x->fs.buf as a hexadecimal number with an optional 0x ("0x8086"). */
static int buf_hex(struct pctx *x, const char *rel, uint32_t max, uint32_t *out) {
    const char *p = x->fs.buf;
    uint64_t v = 0;
    size_t nd = 0;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2;
    for (int d; (d = hex_digit(*p)) >= 0; p++, nd++)
        if ((v = v << 4 | (uint64_t)d) > max)
            return fail(x, -ERANGE, rel, "%s: '%.20s' is above 0x%x", rel, x->fs.buf, max);
    if (!nd || *p)
        return fail(x, -EBADMSG, rel, "%s: '%.20s' is not a hexadecimal number", rel, x->fs.buf);
    *out = (uint32_t)v;
    return 0;
}

/* x->fs.buf as a decimal integer up to max, negative only when signed_ */
static int buf_dec(struct pctx *x, const char *rel, bool signed_, int64_t max, int64_t *out) {
    const char *p = x->fs.buf;
    bool neg = signed_ && *p == '-';
    int64_t v = 0;
    size_t nd = 0;
    for (p += neg; *p >= '0' && *p <= '9'; p++, nd++)
        if ((v = v * 10 + (*p - '0')) > max)
            return fail(x, -ERANGE, rel, "%s: '%.20s' is out of range", rel, x->fs.buf);
    if (!nd || *p)
        return fail(x, -EBADMSG, rel, "%s: '%.20s' is not a%s integer", rel, x->fs.buf,
                    signed_ ? "n" : "n unsigned");
    *out = neg ? -v : v;
    return 0;
}

/* The target of the symbolic link rel, into buf (PATH_CAP bytes): its
 * length, -ENOENT (no such entry) silently, -EINVAL (not a symbolic link)
 * or -errno with the error set. */
static int read_link(struct pctx *x, const char *rel, char *buf) {
    char path[PATH_CAP];
    struct stat st;
    ssize_t n;
    if (numafit__rootfs_path(&x->fs, rel, path) < 0)
        return fail(x, -ENAMETOOLONG, rel, "%s: path too long", rel);
    if (lstat(path, &st) < 0) {
        int r = -errno;
        return r == -ENOENT ? r : fail(x, r, rel, "%s: cannot stat: %s", rel, strerror(-r));
    }
    if (!S_ISLNK(st.st_mode))
        return fail(x, -EINVAL, rel, "%s: not a symbolic link", rel);
    n = readlink(path, buf, PATH_CAP);
    if (n < 0)
        return fail(x, -errno, rel, "%s: cannot read the link", rel);
    if (n >= PATH_CAP)
        return fail(x, -ENAMETOOLONG, rel, "%s: link target too long", rel);
    buf[n] = '\0';
    return (int)n;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void names_free(char **v, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        numafit__free(v[i]);
    numafit__free(v);
}

/* The entry names of directory rel (without "." and ".."), sorted: 0 with
 * *ret (NULL when empty), -ENOENT silently when there is no such
 * directory, -E2BIG past max entries, -errno with the error set. */
static int list_names(struct pctx *x, const char *rel, uint32_t max, char ***ret, uint32_t *ret_n) {
    DIR *dir;
    struct dirent *de;
    char **v = NULL;
    uint32_t n = 0, cap = 0;
    int r = numafit__rootfs_opendir(&x->fs, rel, &dir);
    *ret = NULL;
    *ret_n = 0;
    if (r == -ENOENT)
        return r;
    if (r < 0)
        return fail(x, r, rel, "%s: cannot open the directory: %s", rel, strerror(-r));
    errno = 0;
    while (r == 0 && (de = readdir(dir))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (n == max) {
            r = fail(x, -E2BIG, rel, "%s: more than %u entries", rel, max);
        } else if (n == cap) {
            uint32_t ncap = cap ? (cap > max / 2 ? max : cap * 2) : 16;
            char **nv = numafit__realloc(v, ncap * sizeof(*v));
            if (!nv)
                r = -ENOMEM;
            else
                v = nv, cap = ncap;
        }
        if (r == 0 && !(v[n++] = numafit__strdup(de->d_name)))
            r = -ENOMEM;
        errno = 0;
    }
    if (r == 0 && errno)
        r = fail(x, -errno, rel, "%s: cannot list the directory", rel);
    closedir(dir);
    if (r < 0) {
        names_free(v, n);
        return r;
    }
    if (n > 1)
        qsort(v, n, sizeof(*v), cmp_str);
    *ret = v;
    *ret_n = n;
    return 0;
}

/* The first (or last) entry of the directory rel, a network interface
 * name: *ret NULL when the directory is missing or empty. */
static int net_name(struct pctx *x, const char *rel, bool last, char **ret) {
    char **v;
    uint32_t n;
    int r = list_names(x, rel, NET_MAX, &v, &n);
    *ret = NULL;
    if (r == -ENOENT)
        return 0;
    if (r < 0)
        return r;
    if (n) {
        const char *s = v[last ? n - 1 : 0];
        if (!numafit__utf8_ok(s, strlen(s)))
            r = fail(x, -EBADMSG, rel, "%s: an interface name that is not UTF-8", rel);
        else
            *ret = numafit__strdup(s), r = *ret ? 0 : -ENOMEM;
    }
    names_free(v, n);
    return r;
}

/* The parents of the vdpa devices: each entry of sys/bus/vdpa/devices is a
 * symbolic link into the device tree; its nearest PCI function above it
 * (the last component before the entry's own that is a PCI address) is the
 * device libvirt makes its parent. */
static int read_vdpa(struct pctx *x) {
    char **v, rel[PATH_CAP], target[PATH_CAP];
    uint32_t n;
    int r = list_names(x, VDPA_REL, VDPA_MAX, &v, &n);
    if (r == -ENOENT)
        return 0;
    if (r < 0)
        return r;
    if (n && !(x->vdpa = numafit__calloc(n, sizeof(*x->vdpa))))
        r = -ENOMEM;
    for (uint32_t i = 0; i < n && r == 0; i++) {
        char *end;
        snprintf(rel, sizeof(rel), "%s/%.255s", VDPA_REL, v[i]);
        if ((r = read_link(x, rel, target)) < 0)
            break;
        end = strrchr(target, '/');
        r = -EINVAL;
        while (end && r < 0) {
            char *start;
            *end = '\0';
            start = strrchr(target, '/');
            start = start ? start + 1 : target;
            r = numafit__pci_addr_parse(start, strlen(start), &x->vdpa[x->nvdpa]);
            end = start > target ? start - 1 : NULL;
        }
        if (r == 0)
            x->nvdpa++;
        r = 0; /* a vdpa device without a PCI parent: not one of nova's */
    }
    names_free(v, n);
    if (x->nvdpa > 1)
        qsort(x->vdpa, x->nvdpa, sizeof(*x->vdpa), cmp_u64);
    return r;
}

/* physfn: the PF's key (*pf_key, 1) or 0 when the device is not a VF */
static int read_physfn(struct pctx *x, const char *name, uint64_t *pf_key) {
    char rel[PATH_CAP], target[PATH_CAP];
    const char *base;
    int r;
    if ((r = dev_rel(x, rel, name, "physfn")) < 0)
        return r;
    if ((r = read_link(x, rel, target)) == -ENOENT)
        return 0;
    if (r < 0)
        return r;
    base = strrchr(target, '/');
    base = base ? base + 1 : target;
    if (numafit__pci_addr_parse(base, strlen(base), pf_key) < 0)
        return fail(x, -EBADMSG, rel, "%s: the link's target '%.80s' is not a PCI function", rel,
                    target);
    return 1;
}

/* A file of the device: its value or -ENOENT (missing) */
static int read_hex(struct pctx *x, const char *name, const char *leaf, uint32_t max,
                    uint32_t *out) {
    char rel[PATH_CAP];
    int r;
    if ((r = dev_rel(x, rel, name, leaf)) < 0)
        return r;
    if ((r = read_attr(x, rel)) < 0)
        return r == -ENOENT ? fail(x, r, rel, "%s: no such file", rel) : r;
    return buf_hex(x, rel, max, out);
}

static int read_dec(struct pctx *x, const char *name, const char *leaf, bool signed_, int64_t max,
                    int64_t *out) {
    char rel[PATH_CAP];
    int r;
    if ((r = dev_rel(x, rel, name, leaf)) < 0 || (r = read_attr(x, rel)) < 0)
        return r;
    return buf_dec(x, rel, signed_, max, out);
}

/* sriov_vf_device: the VF device id as the kernel prints it ("154c") */
static int read_vf_device(struct pctx *x, const char *name, struct pci_device *d) {
    char rel[PATH_CAP];
    uint32_t v;
    int r;
    if ((r = dev_rel(x, rel, name, "sriov_vf_device")) < 0)
        return r;
    if ((r = read_attr(x, rel)) == -ENOENT)
        return 0;
    if (r < 0)
        return r;
    if (r > 4 || buf_hex(x, rel, 0xffff, &v) < 0 || !strncmp(x->fs.buf, "0x", 2) ||
        !strncmp(x->fs.buf, "0X", 2))
        return fail(x, -EBADMSG, rel, "%s: '%.20s' is not 1 to 4 hexadecimal digits", rel,
                    x->fs.buf);
    d->sriov_vf_device = numafit__strdup(x->fs.buf);
    return d->sriov_vf_device ? 0 : -ENOMEM;
}

/* The device's type, from physfn, virtfn0 and sriov_totalvfs */
static int read_type(struct pctx *x, const char *name, struct pci_device *d, bool *vf) {
    char rel[PATH_CAP], target[PATH_CAP];
    uint64_t pf_key;
    int r = read_physfn(x, name, &pf_key);
    *vf = r > 0;
    if (r > 0) {
        char addr[32];
        numafit__pci_addr_format(pf_key, addr);
        d->parent_addr = numafit__strdup(addr);
        d->dev_type = numafit__strdup("type-VF");
        return d->parent_addr && d->dev_type ? 0 : -ENOMEM;
    }
    if (r < 0 || (r = dev_rel(x, rel, name, "virtfn0")) < 0)
        return r;
    r = read_link(x, rel, target);
    if (r < 0 && r != -ENOENT)
        return r;
    d->dev_type = numafit__strdup(r >= 0 || d->sriov_totalvfs > 0 ? "type-PF" : "type-PCI");
    return d->dev_type ? 0 : -ENOMEM;
}

/* ifname, and for a VF that is a net device's parent: parent_ifname and
 * whether it is a vdpa device's parent */
static int read_net(struct pctx *x, const char *name, uint64_t key, struct pci_device *d, bool vf) {
    char rel[PATH_CAP];
    int r;
    if ((r = dev_rel(x, rel, name, "net")) < 0 || (r = net_name(x, rel, false, &d->ifname)) < 0)
        return r;
    if (!vf)
        return 0;
    if (d->ifname && ((r = dev_rel(x, rel, name, "physfn/net")) < 0 ||
                      (r = net_name(x, rel, true, &d->parent_ifname)) < 0))
        return r;
    if (x->nvdpa && bsearch(&key, x->vdpa, x->nvdpa, sizeof(key), cmp_u64)) {
        numafit__free(d->dev_type);
        if (!(d->dev_type = numafit__strdup("vdpa")))
            return -ENOMEM;
    }
    return 0;
}

/* The card serial number of name/vpd into d->card_serial (none: NULL).
 * libvirt reads the file only when it is a regular file (following a
 * symbolic link) and lists the device without VPD when it cannot read or
 * parse it: so does this, and a FIFO is never waited on. -ENOMEM. */
static int read_vpd(struct pctx *x, const char *name, struct pci_device *d) {
    char rel[PATH_CAP], why[NUMAFIT__ROOTFS_WHY_CAP], serial[NUMAFIT__PCI_VPD_SERIAL_CAP];
    int r = dev_rel(x, rel, name, "vpd");
    if (r < 0)
        return r;
    if ((r = numafit__rootfs_read(&x->vpd, rel, why)) < 0 ||
        numafit__pci_vpd_serial((const unsigned char *)x->vpd.buf, (size_t)r, serial) < 0)
        return 0;
    return numafit__pci_device_set_serial(d, serial);
}

static int read_device(struct pctx *x, const char *name, struct pci_device *d, uint64_t *key) {
    char rel[PATH_CAP], path[PATH_CAP];
    uint32_t vendor, product;
    int64_t v;
    struct stat st;
    bool vf;
    int r;
    if ((r = dev_rel(x, rel, name, NULL)) < 0)
        return r;
    if (numafit__pci_addr_parse(name, strlen(name), key) < 0)
        return fail(x, -EINVAL, rel, "%s: '%.40s' is not a PCI address (DOMAIN:BUS:SLOT.FUNCTION)",
                    rel, name);
    if (numafit__rootfs_path(&x->fs, rel, path) < 0)
        return fail(x, -ENAMETOOLONG, rel, "%s: path too long", rel);
    if (stat(path, &st) < 0)
        return fail(x, -errno, rel, "%s: %s", rel, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return fail(x, -EINVAL, rel, "%s: not a directory", rel);
    d->numa_state = NUMA_NULL;
    d->sriov_totalvfs = -1;
    if ((r = read_hex(x, name, "vendor", 0xffff, &vendor)) < 0 ||
        (r = read_hex(x, name, "device", 0xffff, &product)) < 0)
        return r;
    if ((r = read_dec(x, name, "numa_node", true, INT32_MAX, &v)) >= 0 && v >= 0) {
        d->numa_state = NUMA_SET;
        d->numa_node = v;
    } else if (r < 0 && r != -ENOENT) {
        return r;
    }
    if ((r = read_dec(x, name, "sriov_totalvfs", false, 65535, &v)) >= 0) {
        d->sriov_totalvfs = v;
    } else if (r != -ENOENT) {
        return r;
    }
    if ((r = read_vf_device(x, name, d)) < 0 || (r = read_type(x, name, d, &vf)) < 0 ||
        (r = read_net(x, name, *key, d, vf)) < 0 || (r = read_vpd(x, name, d)) < 0)
        return r;
    return numafit__pci_device_set_ids(d, *key, vendor, product);
}

static int cmp_key_index(const void *a, const void *b) {
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* nova's fallback: a type-VF without a serial number of its own takes its
 * PF's when the PF is one of the devices. */
static int finish_serials(struct pci_device *devs, const uint64_t *keys, uint32_t n) {
    uint64_t(*idx)[2] = n ? numafit__calloc(n, sizeof(*idx)) : NULL;
    if (n && !idx)
        return -ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        idx[i][0] = keys[i];
        idx[i][1] = i;
    }
    if (n)
        qsort(idx, n, sizeof(*idx), cmp_key_index);
    for (uint32_t i = 0; i < n; i++) {
        struct pci_device *d = &devs[i];
        uint64_t pf;
        const uint64_t(*k)[2];
        if (d->card_serial || !d->dev_type || strcmp(d->dev_type, "type-VF") || !d->parent_addr ||
            numafit__pci_addr_parse(d->parent_addr, strlen(d->parent_addr), &pf) < 0)
            continue;
        k = bsearch(&pf, idx, n, sizeof(*idx), cmp_key_index);
        if (k && devs[(*k)[1]].card_serial &&
            numafit__pci_device_set_serial(d, devs[(*k)[1]].card_serial) < 0) {
            numafit__free(idx);
            return -ENOMEM;
        }
    }
    numafit__free(idx);
    return 0;
}

static int read_devices(struct pctx *x, numafit_pci_devices_t **ret) {
    char **names;
    uint32_t n, i;
    struct pci_device *devs = NULL;
    uint64_t *keys = NULL;
    int r = list_names(x, DEVICES_REL, NUMAFIT_PCI_DEVICES_MAX, &names, &n);
    if (r == -ENOENT)
        return fail(x, r, DEVICES_REL, "%s/%s: no such directory", x->fs.root, DEVICES_REL);
    if (r == -E2BIG)
        return fail(x, -ERANGE, DEVICES_REL, "%s: more than %d PCI devices", DEVICES_REL,
                    NUMAFIT_PCI_DEVICES_MAX);
    if (r < 0)
        return r;
    if (n && (!(devs = numafit__calloc(n, sizeof(*devs))) ||
              !(keys = numafit__calloc(n, sizeof(*keys)))))
        r = -ENOMEM;
    for (i = 0; i < n && r == 0; i++)
        r = read_device(x, names[i], &devs[i], &keys[i]);
    if (r == 0)
        r = finish_serials(devs, keys, n);
    if (r == 0)
        r = numafit__pci_devices_finish(devs, keys, n, ret, x->err);
    else
        for (uint32_t k = 0; k < n && devs; k++)
            numafit__pci_device_clear(&devs[k]);
    numafit__free(devs);
    numafit__free(keys);
    names_free(names, n);
    return r;
}

NUMAFIT_EXPORT int numafit_pci_devices_new_from_sysfs(const char *root, unsigned flags,
                                                      numafit_pci_devices_t **ret,
                                                      numafit_error_t *err) {
    struct pctx x = {.err = err};
    int r;
    numafit__error_clear(err);
    if (!ret || flags || (root && strlen(root) > PATH_CAP / 2)) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "", NULL, "invalid argument");
        return -EINVAL;
    }
    r = numafit__rootfs_init(&x.fs, root, FILE_MAX, NUMAFIT__ROOTFS_NOFOLLOW);
    if (r == 0)
        r = numafit__rootfs_init(&x.vpd, root, VPD_MAX, NUMAFIT__ROOTFS_HEAD);
    if (r == 0 && (r = read_vdpa(&x)) == 0)
        r = read_devices(&x, ret);
    if (r == -ENOMEM)
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
    numafit__free(x.vdpa);
    numafit__rootfs_clear(&x.fs);
    numafit__rootfs_clear(&x.vpd);
    return r;
}
