/*
 * PCI device discovery (numafit_pci_devices_new_from_{sysfs,nodedev_xml,
 * libvirt}): the captured host tests/data/pci/x710-cx6 (make-pci.py: an
 * Intel X710 with 4 VFs on port 0, a Tesla T4, an NVMe drive in PCI domain
 * 10000, a ConnectX-6 Dx of unknown NUMA node in switchdev mode with a vDPA
 * VF) read from its sysfs tree and from its `virsh nodedev-dumpxml`
 * documents, field by field and against each other; nova's rules that only
 * the XML shows (the order of the function capabilities, the VPD serial
 * number, net and vdpa parents); the VPD card serial number of the sysfs
 * reader (libvirt's rules); every error path of both readers; this
 * machine's own sysfs and, when libvirt answers, its node devices.
 */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <numafit.h>

#include "pci_internal.h"
#include "testdata.h"

#define HOST "pci/x710-cx6"

/* ------------------------------------------------------------ expectations */

struct want {
    const char *address, *vendor, *product, *type;
    int numa; /* -1: null */
    const char *parent_addr, *parent_ifname, *ifname;
    int totalvfs;
    const char *vf_device; /* sysfs only */
};

static const struct want host[] = {
    {"0000:00:00.0", "8086", "2020", "type-PCI", 0, NULL, NULL, NULL, -1, NULL},
    {"0000:3a:00.0", "8086", "2030", "type-PCI", 0, NULL, NULL, NULL, -1, NULL},
    {"0000:3b:00.0", "10de", "1eb8", "type-PCI", 0, NULL, NULL, NULL, -1, NULL},
    {"0000:80:03.0", "8086", "2032", "type-PCI", 1, NULL, NULL, NULL, -1, NULL},
    {"0000:81:00.0", "8086", "1572", "type-PF", 1, NULL, NULL, "ens1f0", 64, "154c"},
    {"0000:81:00.1", "8086", "1572", "type-PF", 1, NULL, NULL, "ens1f1", 64, "154c"},
    {"0000:81:02.0", "8086", "154c", "type-VF", 1, "0000:81:00.0", "ens1f0", "ens1f0v0", -1, NULL},
    {"0000:81:02.1", "8086", "154c", "type-VF", 1, "0000:81:00.0", "ens1f0", "ens1f0v1", -1, NULL},
    {"0000:81:02.2", "8086", "154c", "type-VF", 1, "0000:81:00.0", NULL, NULL, -1, NULL},
    {"0000:81:02.3", "8086", "154c", "type-VF", 1, "0000:81:00.0", NULL, NULL, -1, NULL},
    {"0000:ae:00.0", "8086", "2030", "type-PCI", -1, NULL, NULL, NULL, -1, NULL},
    {"0000:af:00.0", "15b3", "101d", "type-PF", -1, NULL, NULL, "enp175s0f0np0", 8, "101e"},
    /* several PF interfaces (the VF representors): the last in sorted order */
    {"0000:af:00.2", "15b3", "101e", "vdpa", -1, "0000:af:00.0", "enp175s0f0npf0vf1",
     "enp175s0f0v0", -1, NULL},
    {"0000:af:00.3", "15b3", "101e", "type-VF", -1, "0000:af:00.0", "enp175s0f0npf0vf1",
     "enp175s0f0v1", -1, NULL},
    {"10000:00:02.0", "144d", "a808", "type-PCI", 0, NULL, NULL, NULL, -1, NULL},
};
#define NHOST (sizeof(host) / sizeof(host[0]))

static void str_eq(const char *what, const char *addr, const char *got, const char *want) {
    ck_assert_msg((!got && !want) || (got && want && !strcmp(got, want)), "%s %s: '%s', want '%s'",
                  addr, what, got ? got : "(none)", want ? want : "(none)");
}

static void expect_host(const numafit_pci_devices_t *devs, bool sysfs) {
    ck_assert_int_eq(numafit_pci_devices_get_count(devs), (int)NHOST);
    for (unsigned i = 0; i < NHOST; i++) {
        const struct want *w = &host[i];
        const struct pci_device *d = &devs->d[i];
        const char *addr, *vendor, *product, *type, *parent;
        int known;
        int64_t node;
        char name[40], label[40];
        ck_assert_int_eq(numafit_pci_devices_get(devs, i, &addr, &vendor, &product, &type, &known,
                                                 &node, &parent),
                         0);
        str_eq("address", w->address, addr, w->address);
        str_eq("vendor_id", w->address, vendor, w->vendor);
        str_eq("product_id", w->address, product, w->product);
        str_eq("dev_type", w->address, type, w->type);
        ck_assert_msg(known == (w->numa >= 0) && (!known || node == w->numa), "%s numa %d/%lld",
                      w->address, known, (long long)node);
        ck_assert_int_eq(d->numa_state, w->numa >= 0 ? NUMA_SET : NUMA_NULL);
        str_eq("parent_addr", w->address, parent, w->parent_addr);
        str_eq("parent_ifname", w->address, d->parent_ifname, w->parent_ifname);
        str_eq("ifname", w->address, d->ifname, w->ifname);
        ck_assert_msg(d->sriov_totalvfs == w->totalvfs, "%s totalvfs %lld", w->address,
                      (long long)d->sriov_totalvfs);
        str_eq("sriov_vf_device", w->address, d->sriov_vf_device, sysfs ? w->vf_device : NULL);
        snprintf(name, sizeof(name), "pci_%s", w->address);
        for (char *p = name; *p; p++)
            *p = *p == ':' || *p == '.' ? '_' : *p;
        snprintf(label, sizeof(label), "label_%s_%s", w->vendor, w->product);
        str_eq("dev_id", w->address, d->dev_id, name);
        str_eq("label", w->address, d->label, label);
        ck_assert_ptr_null(d->card_serial);
        ck_assert_ptr_null(d->capabilities);
    }
}

static void fixture_root(char *out, size_t cap) {
    test_data_path(out, cap, HOST);
}

static numafit_pci_devices_t *from_sysfs(const char *root) {
    numafit_pci_devices_t *devs = NULL;
    numafit_error_t e;
    int r = numafit_pci_devices_new_from_sysfs(root, 0, &devs, &e);
    ck_assert_msg(r == 0, "%s: %d %s: %s", root, r, e.where, e.text);
    return devs;
}

/* The documents of tests/data/HOST/nodedev (sorted by file name), skipping
 * those whose name starts with skip (NULL: none). */
struct docs {
    char *xml[64];
    size_t len[64], n;
};

static void load_docs(struct docs *d, const char *skip) {
    char dir[PATH_MAX];
    struct dirent **names;
    int n;
    test_data_path(dir, sizeof(dir), HOST "/nodedev");
    n = scandir(dir, &names, NULL, alphasort);
    ck_assert_int_gt(n, 0);
    d->n = 0;
    for (int i = 0; i < n; i++) {
        char rel[512];
        if (strstr(names[i]->d_name, ".xml") &&
            (!skip || strncmp(names[i]->d_name, skip, strlen(skip)))) {
            ck_assert_uint_lt(d->n, 64);
            snprintf(rel, sizeof(rel), "%s/nodedev/%s", HOST, names[i]->d_name);
            d->xml[d->n] = test_slurp(rel, &d->len[d->n]);
            d->n++;
        }
        free(names[i]);
    }
    free(names);
}

static void free_docs(struct docs *d) {
    for (size_t i = 0; i < d->n; i++)
        free(d->xml[i]);
    d->n = 0;
}

static numafit_pci_devices_t *from_xml(const struct docs *d) {
    numafit_pci_devices_t *devs = NULL;
    numafit_error_t e;
    int r = numafit_pci_devices_new_from_nodedev_xml((const char *const *)d->xml, d->len, d->n, 0,
                                                     &devs, &e);
    ck_assert_msg(r == 0, "%d %s: %s", r, e.where, e.text);
    return devs;
}

/* Same devices, all fields but sriov_vf_device (libvirt does not report it). */
static void expect_same(const numafit_pci_devices_t *a, const numafit_pci_devices_t *b) {
    ck_assert_uint_eq(a->n, b->n);
    for (uint32_t i = 0; i < a->n; i++) {
        const struct pci_device *x = &a->d[i], *y = &b->d[i];
        const char *addr = x->address;
        str_eq("address", addr, x->address, y->address);
        str_eq("vendor_id", addr, x->vendor_id, y->vendor_id);
        str_eq("product_id", addr, x->product_id, y->product_id);
        str_eq("dev_type", addr, x->dev_type, y->dev_type);
        str_eq("parent_addr", addr, x->parent_addr, y->parent_addr);
        str_eq("parent_ifname", addr, x->parent_ifname, y->parent_ifname);
        str_eq("dev_id", addr, x->dev_id, y->dev_id);
        str_eq("label", addr, x->label, y->label);
        str_eq("ifname", addr, x->ifname, y->ifname);
        str_eq("card_serial", addr, x->card_serial, y->card_serial);
        ck_assert_int_eq(x->numa_state, y->numa_state);
        ck_assert(x->numa_state != NUMA_SET || x->numa_node == y->numa_node);
        ck_assert_int_eq(x->sriov_totalvfs, y->sriov_totalvfs);
    }
}

START_TEST(test_sysfs_fixture) {
    char root[PATH_MAX];
    numafit_pci_devices_t *devs;
    char *json = NULL;
    fixture_root(root, sizeof(root));
    devs = from_sysfs(root);
    expect_host(devs, true);
    /* the JSON nova's resource tracker would get reads back the same */
    ck_assert_int_eq(numafit_pci_devices_to_json(devs, 0, &json, NULL), 0);
    numafit_pci_devices_t *back = NULL;
    numafit_error_t e;
    ck_assert_msg(numafit_pci_devices_new_from_json(json, strlen(json), 0, &back, &e) == 0, "%s",
                  e.text);
    expect_host(back, true);
    numafit_free(json);
    numafit_pci_devices_free(back);
    numafit_pci_devices_free(devs);
}
END_TEST

START_TEST(test_nodedev_fixture) {
    struct docs d;
    numafit_pci_devices_t *devs;
    load_docs(&d, NULL);
    devs = from_xml(&d);
    expect_host(devs, false);
    numafit_pci_devices_free(devs);
    /* the documents in any order */
    for (size_t i = 0; i + 1 < d.n; i += 2) {
        char *t = d.xml[i];
        size_t l = d.len[i];
        d.xml[i] = d.xml[d.n - 1 - i], d.len[i] = d.len[d.n - 1 - i];
        d.xml[d.n - 1 - i] = t, d.len[d.n - 1 - i] = l;
    }
    devs = from_xml(&d);
    expect_host(devs, false);
    numafit_pci_devices_free(devs);
    free_docs(&d);
}
END_TEST

START_TEST(test_sysfs_equals_nodedev) {
    char root[PATH_MAX];
    struct docs d;
    numafit_pci_devices_t *a, *b;
    fixture_root(root, sizeof(root));
    load_docs(&d, NULL);
    a = from_sysfs(root);
    b = from_xml(&d);
    expect_same(a, b);
    numafit_pci_devices_free(a);
    numafit_pci_devices_free(b);
    free_docs(&d);
}
END_TEST

/* ------------------------------------------------------------ scratch trees */

static void mk_dir(const char *root, const char *rel) {
    char cmd[2 * PATH_MAX];
    snprintf(cmd, sizeof(cmd), "mkdir -p '%s/%s'", root, rel);
    ck_assert_int_eq(system(cmd), 0);
}

static void mk_file(const char *root, const char *rel, const char *text) {
    char path[2 * PATH_MAX], dir[2 * PATH_MAX];
    FILE *f;
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    snprintf(dir, sizeof(dir), "%s", rel);
    *strrchr(dir, '/') = '\0';
    mk_dir(root, dir);
    unlink(path);
    ck_assert_ptr_nonnull(f = fopen(path, "w"));
    fputs(text, f);
    fclose(f);
}

static void mk_link(const char *root, const char *rel, const char *target) {
    char path[2 * PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    unlink(path);
    ck_assert_int_eq(symlink(target, path), 0);
}

static void rm_tree(const char *root) {
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    ck_assert_int_eq(system(cmd), 0);
}

#define DEV "sys/bus/pci/devices/"

/* A capture of plain directories (no links into sys/devices): a PF with one
 * VF, a bridge. */
static void flat_tree(char *root) {
    ck_assert_ptr_nonnull(mkdtemp(strcpy(root, "/tmp/check_pci_discovery.XXXXXX")));
    mk_file(root, DEV "0000:00:1c.0/vendor", "0x8086\n");
    mk_file(root, DEV "0000:00:1c.0/device", "0xa190\n");
    mk_file(root, DEV "0000:05:00.0/vendor", "0x8086\n");
    mk_file(root, DEV "0000:05:00.0/device", "0x10fb\n");
    mk_file(root, DEV "0000:05:00.0/numa_node", "0\n");
    mk_file(root, DEV "0000:05:00.0/sriov_totalvfs", "63\n");
    mk_file(root, DEV "0000:05:00.0/sriov_vf_device", "10ed\n");
    mk_dir(root, DEV "0000:05:00.0/net/eth2");
    mk_link(root, DEV "0000:05:00.0/virtfn0", "../0000:05:10.0");
    mk_file(root, DEV "0000:05:10.0/vendor", "0x8086\n");
    mk_file(root, DEV "0000:05:10.0/device", "0x10ed\n");
    mk_file(root, DEV "0000:05:10.0/numa_node", "0\n");
    mk_link(root, DEV "0000:05:10.0/physfn", "../0000:05:00.0");
    mk_dir(root, DEV "0000:05:10.0/net/eth5");
}

static int sysfs_rc(const char *root, numafit_error_t *e) {
    numafit_pci_devices_t *devs = NULL;
    int r = numafit_pci_devices_new_from_sysfs(root, 0, &devs, e);
    if (r < 0)
        ck_assert_ptr_null(devs);
    numafit_pci_devices_free(devs);
    return r;
}

START_TEST(test_sysfs_flat_capture) {
    char root[PATH_MAX];
    numafit_pci_devices_t *devs;
    flat_tree(root);
    devs = from_sysfs(root);
    ck_assert_int_eq(numafit_pci_devices_get_count(devs), 3);
    str_eq("dev_type", "05:00.0", devs->d[1].dev_type, "type-PF");
    str_eq("sriov_vf_device", "05:00.0", devs->d[1].sriov_vf_device, "10ed");
    str_eq("dev_type", "05:10.0", devs->d[2].dev_type, "type-VF");
    str_eq("parent_addr", "05:10.0", devs->d[2].parent_addr, "0000:05:00.0");
    str_eq("parent_ifname", "05:10.0", devs->d[2].parent_ifname, "eth2");
    str_eq("ifname", "05:10.0", devs->d[2].ifname, "eth5");
    ck_assert_int_eq(devs->d[0].numa_state, NUMA_NULL); /* no numa_node file */
    numafit_pci_devices_free(devs);
    /* sriov_totalvfs 0 but a virtfn0 link: still a PF (libvirt's
     * virt_functions capability); neither: a plain device */
    mk_file(root, DEV "0000:05:00.0/sriov_totalvfs", "0\n");
    devs = from_sysfs(root);
    str_eq("dev_type", "05:00.0", devs->d[1].dev_type, "type-PF");
    ck_assert_int_eq(devs->d[1].sriov_totalvfs, 0);
    numafit_pci_devices_free(devs);
    {
        char path[2 * PATH_MAX];
        snprintf(path, sizeof(path), "%s/" DEV "0000:05:00.0/virtfn0", root);
        ck_assert_int_eq(unlink(path), 0);
    }
    devs = from_sysfs(root);
    str_eq("dev_type", "05:00.0", devs->d[1].dev_type, "type-PCI");
    str_eq("parent_ifname", "05:10.0", devs->d[2].parent_ifname, "eth2"); /* physfn/net */
    numafit_pci_devices_free(devs);
    /* upper-case names are normalised; a VF without net/ gets no
     * parent_ifname; an empty PF net/ none either */
    rm_tree(root);
    flat_tree(root);
    {
        char from[2 * PATH_MAX], to[2 * PATH_MAX];
        snprintf(from, sizeof(from), "%s/" DEV "0000:00:1c.0", root);
        snprintf(to, sizeof(to), "%s/" DEV "0000:00:1C.0", root);
        ck_assert_int_eq(rename(from, to), 0);
        snprintf(from, sizeof(from), "rm -r '%s/" DEV "0000:05:00.0/net/eth2'", root);
        ck_assert_int_eq(system(from), 0);
    }
    devs = from_sysfs(root);
    str_eq("address", "00:1c.0", devs->d[0].address, "0000:00:1c.0");
    str_eq("dev_id", "00:1c.0", devs->d[0].dev_id, "pci_0000_00_1c_0");
    ck_assert_ptr_null(devs->d[2].parent_ifname);
    ck_assert_ptr_null(devs->d[1].ifname);
    numafit_pci_devices_free(devs);
    rm_tree(root);
}
END_TEST

/* ------------------------------------------------------------ VPD */

/* A VPD image put together byte by byte. */
struct vpdb {
    uint8_t b[40000];
    size_t n;
};

static void vb_bytes(struct vpdb *v, const void *p, size_t n) {
    ck_assert_uint_le(v->n + n, sizeof(v->b));
    memcpy(v->b + v->n, p, n);
    v->n += n;
}

/* a large resource's header (tag, length to be set by vb_close) */
static size_t vb_open(struct vpdb *v, uint8_t tag) {
    uint8_t h[3] = {tag, 0, 0};
    vb_bytes(v, h, 3);
    return v->n;
}

static void vb_close(struct vpdb *v, size_t at) {
    size_t len = v->n - at;
    v->b[at - 2] = (uint8_t)len;
    v->b[at - 1] = (uint8_t)(len >> 8);
}

static void vb_field(struct vpdb *v, const char *kw, const void *val, size_t n) {
    uint8_t h[3] = {(uint8_t)kw[0], (uint8_t)kw[1], (uint8_t)n};
    vb_bytes(v, h, 3);
    vb_bytes(v, val, n);
}

static void vb_text(struct vpdb *v, const char *kw, const char *val) {
    vb_field(v, kw, val, strlen(val));
}

/* an RV field in the VPD-R resource opened at at, followed by after more
 * bytes in it: its first byte makes every byte before it and it sum to
 * bias (0: valid), then extra reserved bytes; the resource's length is set
 * first, as it is summed */
static void vb_rv(struct vpdb *v, size_t at, uint8_t bias, size_t extra, size_t after) {
    uint8_t h[3] = {'R', 'V', (uint8_t)(1 + extra)}, sum = 0, zero[8] = {0};
    size_t len = v->n - at + 3 + 1 + extra + after;
    v->b[at - 2] = (uint8_t)len;
    v->b[at - 1] = (uint8_t)(len >> 8);
    vb_bytes(v, h, 3);
    for (size_t i = 0; i < v->n; i++)
        sum = (uint8_t)(sum + v->b[i]);
    v->b[v->n++] = (uint8_t)(-sum + bias);
    vb_bytes(v, zero, extra);
}

/* a fresh image: VPD-R with one SN and a valid RV (no end tag yet);
 * returns where VPD-R's data starts */
static size_t vb_ro(struct vpdb *v, const char *sn) {
    size_t at;
    v->n = 0;
    at = vb_open(v, 0x90);
    vb_text(v, "SN", sn);
    vb_rv(v, at, 0, 0, 0);
    vb_close(v, at);
    return at;
}

static void vb_end(struct vpdb *v) {
    v->b[v->n++] = 0x78;
}

/* name, VPD-R (PN, SN, a vendor field, RV), VPD-W (a vendor field, RW), end */
static void vb_card(struct vpdb *v, const char *name, const char *sn, uint8_t bias) {
    size_t at;
    v->n = 0;
    at = vb_open(v, 0x82);
    vb_bytes(v, name, strlen(name));
    vb_close(v, at);
    at = vb_open(v, 0x90);
    vb_text(v, "PN", "MCX623106AN-CDAT");
    if (sn)
        vb_text(v, "SN", sn);
    vb_text(v, "V2", "MCX623106AN-CDAT");
    vb_rv(v, at, bias, 2, 0);
    vb_close(v, at);
    at = vb_open(v, 0x91);
    vb_text(v, "V1", "scratch");
    vb_field(v, "RW", "\0\0\0\0\0\0\0\0", 8);
    vb_close(v, at);
    vb_end(v);
}

static const char *vpd_serial(const struct vpdb *v, char *out) {
    int r = numafit__pci_vpd_serial(v->b, v->n, out);
    ck_assert(r == -1 || (r > 0 && (size_t)r == strlen(out)));
    return r > 0 ? out : NULL;
}

#define VPD_IS(v, want)                                                                            \
    do {                                                                                           \
        char out_[NUMAFIT__PCI_VPD_SERIAL_CAP];                                                    \
        str_eq("serial", __func__, vpd_serial(v, out_), want);                                     \
    } while (0)

/* libvirt 9.0's VPD rules (pci_vpd.c), each against a card that has the
 * serial number and the same card with the rule broken. */
START_TEST(test_vpd_rules) {
    static struct vpdb v;
    size_t at, n;
    vb_card(&v, "ConnectX-6 Dx EN adapter card", " MT2116X09299 \t", 0);
    VPD_IS(&v, "MT2116X09299"); /* blanks stripped */
    vb_card(&v, "ConnectX-6 Dx", "MT2116X09299", 1);
    VPD_IS(&v, NULL); /* the checksum */
    vb_card(&v, "ConnectX-6 Dx", NULL, 0);
    VPD_IS(&v, NULL); /* no SN */
    vb_card(&v, "ConnectX-6 Dx", "   ", 0);
    VPD_IS(&v, NULL); /* an empty SN is none */
    vb_card(&v, "ConnectX-6 Dx", "MT2116\x01X09299", 0);
    VPD_IS(&v, NULL); /* a field that is not printable is ignored... */
    vb_card(&v, "ConnectX-6 Dx", "\vMT2116X09299", 0);
    VPD_IS(&v, NULL); /* a vertical tab is neither blank nor printable */
    vb_card(&v, "ConnectX-6 Dx", "MT2116\0garbage", 0);
    VPD_IS(&v, "MT2116"); /* ... a NUL byte cuts it */
    vb_card(&v, "Connect\x7f-6 Dx", "MT2116X09299", 0);
    VPD_IS(&v, NULL); /* a name that is not printable refuses the VPD */
    vb_card(&v, "ConnectX-6 Dx", "MT2116X09299", 0);
    v.n--;
    VPD_IS(&v, NULL); /* no end tag */
    v.n -= 10;
    VPD_IS(&v, NULL); /* cut inside VPD-W */
    /* the first 32 KiB only: a card image followed by more bytes */
    vb_card(&v, "ConnectX-6 Dx", "MT2116X09299", 0);
    memset(v.b + v.n, 0xff, 36000 - v.n);
    v.n = 36000;
    VPD_IS(&v, "MT2116X09299");

    /* two SN: the last; a bad one after a good one leaves the good one */
    v.n = 0;
    at = vb_open(&v, 0x90);
    vb_text(&v, "SN", "FIRST");
    vb_text(&v, "SN", "SECOND");
    vb_text(&v, "SN", "TH\x80RD");
    vb_rv(&v, at, 0, 0, 0);
    vb_close(&v, at);
    vb_end(&v);
    VPD_IS(&v, "SECOND"); /* no name resource is fine */

    /* an SN in VPD-W is not the card's */
    v.n = 0;
    at = vb_open(&v, 0x90);
    vb_rv(&v, at, 0, 0, 0);
    vb_close(&v, at);
    at = vb_open(&v, 0x91);
    vb_text(&v, "SN", "WRITABLE");
    vb_close(&v, at);
    vb_end(&v);
    VPD_IS(&v, NULL);

    /* no VPD-R at all */
    v.n = 0;
    at = vb_open(&v, 0x82);
    vb_bytes(&v, "X", 1);
    vb_close(&v, at);
    vb_end(&v);
    VPD_IS(&v, NULL);

    /* RV must end VPD-R; RW is not allowed there; RV not in VPD-W */
    v.n = 0;
    at = vb_open(&v, 0x90);
    vb_text(&v, "SN", "S1");
    vb_rv(&v, at, 0, 0, 8);
    vb_text(&v, "PN", "after");
    vb_close(&v, at);
    vb_end(&v);
    VPD_IS(&v, NULL);
    v.n = 0;
    at = vb_open(&v, 0x90);
    vb_text(&v, "SN", "S1");
    vb_field(&v, "RW", "\0", 1);
    vb_rv(&v, at, 0, 0, 0);
    vb_close(&v, at);
    vb_end(&v);
    VPD_IS(&v, NULL);
    at = vb_ro(&v, "S1");
    at = vb_open(&v, 0x91);
    vb_field(&v, "RV", "\0", 1);
    vb_close(&v, at);
    vb_end(&v);
    VPD_IS(&v, NULL);
    /* VPD-W: RW must end it, and the fields must fill it */
    at = vb_ro(&v, "S1");
    at = vb_open(&v, 0x91);
    vb_text(&v, "V1", "x");
    vb_close(&v, at);
    n = v.n;
    vb_end(&v);
    VPD_IS(&v, "S1"); /* no RW is allowed */
    v.n = n;
    v.b[at - 2] += 2; /* two bytes no field fills */
    vb_bytes(&v, "\0\0", 2);
    vb_end(&v);
    VPD_IS(&v, NULL);

    /* a field longer than its resource */
    at = vb_ro(&v, "S1");
    vb_end(&v);
    VPD_IS(&v, "S1");
    v.b[at + 2] = 40; /* SN's length, past the resource; the sum kept */
    v.b[v.n - 2] = (uint8_t)(v.b[v.n - 2] - 38);
    VPD_IS(&v, NULL);

    /* a skipped resource is not read, so not summed: a checksum over the
     * bytes libvirt reads holds, one that counts the skipped bytes does not */
    v.n = 0;
    at = vb_open(&v, 0xa0);
    vb_bytes(&v, "\xff\xff\xff\xff", 4);
    vb_close(&v, at);
    {
        uint8_t small[3] = {0x12, 0xee, 0xee}; /* small resource 2, 2 bytes */
        vb_bytes(&v, small, 3);
    }
    at = vb_open(&v, 0x90);
    vb_text(&v, "SN", "SKIPPED-OK");
    vb_rv(&v, at, 0, 0, 0); /* sums all bytes: includes the skipped ones */
    vb_close(&v, at);
    vb_end(&v);
    VPD_IS(&v, NULL);
    {
        uint8_t skipped = 0;
        size_t rv = v.n - 2; /* the RV byte: before it, end tag after */
        for (size_t i = 3; i < 7; i++)
            skipped = (uint8_t)(skipped + v.b[i]);
        skipped = (uint8_t)(skipped + 0xee + 0xee);
        v.b[rv] = (uint8_t)(v.b[rv] + skipped);
    }
    VPD_IS(&v, "SKIPPED-OK");

    /* keywords of other bytes are skipped, but summed; a zero-length RV
     * still reads (and sums) the byte after it: here the end tag */
    v.n = 0;
    at = vb_open(&v, 0x90);
    vb_text(&v, "sn", "lower");
    vb_text(&v, "SN", "S2");
    {
        uint8_t h[3] = {'R', 'V', 0}, sum = 0x78;
        vb_bytes(&v, h, 3);
        vb_close(&v, at);
        for (size_t i = 0; i < v.n; i++)
            sum = (uint8_t)(sum + v.b[i]);
        /* make the sum through the end tag 0: adjust the "lower" value */
        v.b[at + 3] = (uint8_t)(v.b[at + 3] - sum);
    }
    vb_end(&v);
    VPD_IS(&v, "S2");
    v.n--; /* nothing after the zero-length RV: it cannot be read */
    VPD_IS(&v, NULL);

    /* nothing, a lone end tag; the end tag at the last of the 32 KiB
     * libvirt reads, and one byte further (zero bytes between: empty small
     * resources) */
    v.n = 0;
    VPD_IS(&v, NULL);
    vb_end(&v);
    VPD_IS(&v, NULL);
    at = vb_ro(&v, "FAR");
    memset(v.b + v.n, 0, 0x7fff - v.n);
    v.n = 0x7fff;
    vb_end(&v);
    VPD_IS(&v, "FAR");
    v.b[0x7fff] = 0;
    vb_end(&v);
    VPD_IS(&v, NULL);
}
END_TEST

static void mk_bin(const char *root, const char *rel, const void *p, size_t n) {
    char path[2 * PATH_MAX];
    FILE *f;
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    unlink(path);
    ck_assert_ptr_nonnull(f = fopen(path, "wb"));
    ck_assert_uint_eq(fwrite(p, 1, n, f), n);
    fclose(f);
}

/* The sysfs reader: a PF's serial number, its VF's taken from it (nova's
 * fallback) unless the VF has its own, as capabilities written to JSON
 * and read back; a vpd libvirt would not read is no serial number and no
 * error (a FIFO is not waited on, a directory is not read). */
START_TEST(test_sysfs_vpd) {
    static struct vpdb v;
    char root[PATH_MAX], *json = NULL;
    numafit_pci_devices_t *devs, *back = NULL;
    numafit_error_t e;
    flat_tree(root);
    mk_file(root, DEV "0000:05:11.0/vendor", "0x8086\n");
    mk_file(root, DEV "0000:05:11.0/device", "0x10ed\n");
    mk_link(root, DEV "0000:05:11.0/physfn", "../0000:05:00.0");
    vb_card(&v, "82599ES", "SERIAL-PF", 0);
    mk_bin(root, DEV "0000:05:00.0/vpd", v.b, v.n);
    vb_card(&v, "82599 VF", "SERIAL-VF1", 0);
    mk_bin(root, DEV "0000:05:11.0/vpd", v.b, v.n);
    devs = from_sysfs(root);
    ck_assert_int_eq(numafit_pci_devices_get_count(devs), 4);
    ck_assert_ptr_null(devs->d[0].card_serial);
    str_eq("card_serial", "05:00.0", devs->d[1].card_serial, "SERIAL-PF");
    str_eq("card_serial", "05:10.0", devs->d[2].card_serial, "SERIAL-PF");
    str_eq("card_serial", "05:11.0", devs->d[3].card_serial, "SERIAL-VF1");
    ck_assert_int_eq(numafit_pci_devices_to_json(devs, 0, &json, NULL), 0);
    ck_assert_ptr_nonnull(
        strstr(json, "\"capabilities\":{\"vpd\":{\"card_serial_number\":\"SERIAL-PF\"}}"));
    ck_assert_msg(numafit_pci_devices_new_from_json(json, strlen(json), 0, &back, &e) == 0, "%s",
                  e.text);
    str_eq("card_serial", "05:10.0", back->d[2].card_serial, "SERIAL-PF");
    numafit_free(json);
    numafit_pci_devices_free(back);
    numafit_pci_devices_free(devs);
    /* the PF's VPD refused (checksum): no serial for it nor its VF */
    vb_card(&v, "82599ES", "SERIAL-PF", 7);
    mk_bin(root, DEV "0000:05:00.0/vpd", v.b, v.n);
    devs = from_sysfs(root);
    ck_assert_ptr_null(devs->d[1].card_serial);
    ck_assert_ptr_null(devs->d[1].capabilities);
    ck_assert_ptr_null(devs->d[2].card_serial);
    str_eq("card_serial", "05:11.0", devs->d[3].card_serial, "SERIAL-VF1");
    numafit_pci_devices_free(devs);
    /* a FIFO and a directory as vpd: no serial, no error, no wait */
    {
        char path[2 * PATH_MAX];
        snprintf(path, sizeof(path), "%s/" DEV "0000:05:00.0/vpd", root);
        ck_assert_int_eq(unlink(path), 0);
        ck_assert_int_eq(mkfifo(path, 0600), 0);
        snprintf(path, sizeof(path), "%s/" DEV "0000:05:11.0/vpd", root);
        ck_assert_int_eq(unlink(path), 0);
        ck_assert_int_eq(mkdir(path, 0700), 0);
    }
    devs = from_sysfs(root);
    ck_assert_ptr_null(devs->d[1].card_serial);
    ck_assert_ptr_null(devs->d[3].card_serial);
    numafit_pci_devices_free(devs);
    rm_tree(root);
}
END_TEST

/* Files and entries a capture must not have: each refused with its path. */
static const struct sysfs_bad {
    const char *rel, *text; /* text NULL: see kind */
    int kind;               /* 0 file, 1 FIFO, 2 directory, 3 link to "target" */
    const char *target;
    int rc;
    const char *where, *says;
} sysfs_bads[] = {
    {DEV "0000:05:00.0/vendor", "0x80866\n", 0, NULL, -ERANGE, DEV "0000:05:00.0/vendor",
     "above 0xffff"},
    {DEV "0000:05:00.0/vendor", "Intel\n", 0, NULL, -EBADMSG, DEV "0000:05:00.0/vendor",
     "not a hexadecimal number"},
    {DEV "0000:05:00.0/vendor", "", 0, NULL, -EBADMSG, DEV "0000:05:00.0/vendor",
     "not a hexadecimal number"},
    {DEV "0000:05:00.0/device", NULL, 1, NULL, -EINVAL, DEV "0000:05:00.0/device",
     "not a regular file"},
    {DEV "0000:05:00.0/device", NULL, 2, NULL, -EINVAL, DEV "0000:05:00.0/device",
     "not a regular file"},
    {DEV "0000:05:00.0/device", NULL, 3, "vendor", -EINVAL, DEV "0000:05:00.0/device",
     "symbolic link"},
    {DEV "0000:05:00.0/numa_node", "one\n", 0, NULL, -EBADMSG, DEV "0000:05:00.0/numa_node",
     "not an integer"},
    {DEV "0000:05:00.0/numa_node", "-1\n", 0, NULL, 0, "", ""},
    {DEV "0000:05:00.0/numa_node", "99999999999\n", 0, NULL, -ERANGE, DEV "0000:05:00.0/numa_node",
     "out of range"},
    {DEV "0000:05:00.0/numa_node", NULL, 1, NULL, -EINVAL, DEV "0000:05:00.0/numa_node",
     "not a regular file"},
    {DEV "0000:05:00.0/sriov_totalvfs", "-1\n", 0, NULL, -EBADMSG,
     DEV "0000:05:00.0/sriov_totalvfs", "not an unsigned integer"},
    {DEV "0000:05:00.0/sriov_totalvfs", "65536\n", 0, NULL, -ERANGE,
     DEV "0000:05:00.0/sriov_totalvfs", "out of range"},
    {DEV "0000:05:00.0/sriov_vf_device", "0x10ed\n", 0, NULL, -EBADMSG,
     DEV "0000:05:00.0/sriov_vf_device", "1 to 4 hexadecimal digits"},
    {DEV "0000:05:10.0/physfn", NULL, 2, NULL, -EINVAL, DEV "0000:05:10.0/physfn",
     "not a symbolic link"},
    {DEV "0000:05:10.0/physfn", NULL, 3, "../pf", -EBADMSG, DEV "0000:05:10.0/physfn",
     "not a PCI function"},
    {DEV "0000:05:10.0/net", "", 0, NULL, -ENOTDIR, DEV "0000:05:10.0/net",
     "cannot open the directory"},
    {DEV "0000:05:10.0/net", NULL, 1, NULL, -ENOTDIR, DEV "0000:05:10.0/net",
     "cannot open the directory"},
    {DEV "0000:05:10.0/net", NULL, 3, "net", -ELOOP, DEV "0000:05:10.0/net",
     "cannot open the directory"},
    {DEV "0000:05:00.0/net", NULL, 1, NULL, -ENOTDIR, DEV "0000:05:00.0/net",
     "cannot open the directory"},
    /* entries of devices/ */
    {DEV "0000:05:00", NULL, 2, NULL, -EINVAL, DEV "0000:05:00", "not a PCI address"},
    {DEV "0000:05:00.8", NULL, 2, NULL, -EINVAL, DEV "0000:05:00.8", "not a PCI address"},
    {DEV "0000:05:20.0", NULL, 2, NULL, -EINVAL, DEV "0000:05:20.0", "not a PCI address"},
    {DEV "000:05:00.0", NULL, 2, NULL, -EINVAL, DEV "000:05:00.0", "not a PCI address"},
    {DEV "000000000:05:00.0", NULL, 2, NULL, -EINVAL, DEV "000000000:05:00.0", "not a PCI address"},
    {DEV "0000:05:00.0x", NULL, 2, NULL, -EINVAL, DEV "0000:05:00.0x", "not a PCI address"},
    {DEV ".hidden", NULL, 2, NULL, -EINVAL, DEV ".hidden", "not a PCI address"},
    {DEV "0000:06:00.0", "", 0, NULL, -EINVAL, DEV "0000:06:00.0", "not a directory"},
    {DEV "0000:06:00.0", NULL, 1, NULL, -EINVAL, DEV "0000:06:00.0", "not a directory"},
    {DEV "0000:06:00.0", NULL, 3, "0000:06:00.0", -ELOOP, DEV "0000:06:00.0", ""},
    {DEV "0000:06:00.0", NULL, 3, "nowhere", -ENOENT, DEV "0000:06:00.0", ""},
    {DEV "0000:06:00.0", NULL, 2, NULL, -ENOENT, DEV "0000:06:00.0/vendor", "no such file"},
    /* one address twice */
    {DEV "0000:00:1C.0", NULL, 3, "0000:00:1c.0", -EINVAL, "0000:00:1c.0", "two devices"},
};

START_TEST(test_sysfs_bad) {
    const struct sysfs_bad *b = &sysfs_bads[_i];
    char root[PATH_MAX], path[2 * PATH_MAX];
    numafit_error_t e;
    flat_tree(root);
    snprintf(path, sizeof(path), "%s/%s", root, b->rel);
    {
        char cmd[2 * PATH_MAX + 16];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
        ck_assert_int_eq(system(cmd), 0);
    }
    if (b->kind == 0)
        mk_file(root, b->rel, b->text);
    else if (b->kind == 1)
        ck_assert_int_eq(mkfifo(path, 0600), 0);
    else if (b->kind == 2)
        ck_assert_int_eq(mkdir(path, 0700), 0);
    else
        ck_assert_int_eq(symlink(b->target, path), 0);
    int r = sysfs_rc(root, &e);
    ck_assert_msg(r == b->rc, "%s: %d, want %d (%s)", b->rel, r, b->rc, e.text);
    ck_assert_msg(!strcmp(e.where, b->where), "%s: where '%s'", b->rel, e.where);
    ck_assert_msg(strstr(e.text, b->says), "%s: '%s'", b->rel, e.text);
    rm_tree(root);
}
END_TEST

START_TEST(test_sysfs_args_and_limits) {
    char root[PATH_MAX], path[2 * PATH_MAX];
    numafit_pci_devices_t *devs = NULL;
    numafit_error_t e;
    FILE *f;
    /* no devices directory */
    ck_assert_int_eq(numafit_pci_devices_new_from_sysfs("/nonexistent-root", 0, &devs, &e),
                     -ENOENT);
    ck_assert_ptr_null(devs);
    ck_assert_str_eq(e.where, "sys/bus/pci/devices");
    ck_assert_msg(strstr(e.text, "/nonexistent-root/sys/bus/pci/devices: no such directory"), "%s",
                  e.text);
    ck_assert_int_eq(numafit_pci_devices_new_from_sysfs("/", 1, &devs, &e), -EINVAL);
    ck_assert_int_eq(numafit_pci_devices_new_from_sysfs("/", 0, NULL, &e), -EINVAL);
    /* an empty devices directory: no devices */
    ck_assert_ptr_nonnull(mkdtemp(strcpy(root, "/tmp/check_pci_discovery.XXXXXX")));
    mk_dir(root, "sys/bus/pci/devices");
    devs = from_sysfs(root);
    ck_assert_int_eq(numafit_pci_devices_get_count(devs), 0);
    numafit_pci_devices_free(devs);
    rm_tree(root);
    /* a huge file is not read past 4 KiB */
    flat_tree(root);
    snprintf(path, sizeof(path), "%s/" DEV "0000:05:00.0/vendor", root);
    ck_assert_ptr_nonnull(f = fopen(path, "w"));
    for (int i = 0; i < 1 << 20; i++)
        fputc('0', f);
    fclose(f);
    ck_assert_int_eq(sysfs_rc(root, &e), -EFBIG);
    ck_assert_str_eq(e.where, DEV "0000:05:00.0/vendor");
    /* more than 4096 interfaces in one net/ */
    mk_file(root, DEV "0000:05:00.0/vendor", "0x8086\n");
    for (int i = 0; i <= 4096; i++) {
        snprintf(path, sizeof(path), "%s/" DEV "0000:05:10.0/net/e%d", root, i);
        ck_assert_int_eq(mkdir(path, 0700), 0);
    }
    ck_assert_int_eq(sysfs_rc(root, &e), -E2BIG);
    ck_assert_str_eq(e.where, DEV "0000:05:10.0/net");
    ck_assert_int_eq(e.code, NUMAFIT_E_RANGE);
    rm_tree(root);
}
END_TEST

/* More than NUMAFIT_PCI_DEVICES_MAX entries: refused before any is read. */
START_TEST(test_sysfs_too_many_devices) {
    char root[PATH_MAX], path[2 * PATH_MAX];
    numafit_error_t e;
    size_t n;
    ck_assert_ptr_nonnull(mkdtemp(strcpy(root, "/tmp/check_pci_discovery.XXXXXX")));
    mk_dir(root, "sys/bus/pci/devices");
    n = (size_t)snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/", root);
    for (unsigned i = 0; i <= NUMAFIT_PCI_DEVICES_MAX; i++) {
        snprintf(path + n, sizeof(path) - n, "0001:%02x:%02x.%x", i >> 8, (i >> 3) & 0x1f, i & 7);
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fclose(f);
    }
    ck_assert_int_eq(sysfs_rc(root, &e), -ERANGE);
    ck_assert_str_eq(e.where, "sys/bus/pci/devices");
    ck_assert_msg(strstr(e.text, "more than 65536 PCI devices"), "%s", e.text);
    rm_tree(root);
}
END_TEST

/* ------------------------------------------------------------ XML: nova's rules */

static numafit_pci_devices_t *xml_ok(const char *const *docs, size_t n) {
    size_t len[16];
    numafit_pci_devices_t *devs = NULL;
    numafit_error_t e;
    for (size_t i = 0; i < n; i++)
        len[i] = strlen(docs[i]);
    int r = numafit_pci_devices_new_from_nodedev_xml(docs, len, n, 0, &devs, &e);
    ck_assert_msg(r == 0, "%d %s: %s", r, e.where, e.text);
    return devs;
}

/* A PCI function's document: name, domain, bus, slot, function (the
 * elements' text), vendor and product ids, more of the pci capability. */
struct pdoc {
    const char *name, *dom, *bus, *slot, *fn, *vendor, *product, *extra;
};

static char *new_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *new_printf(const char *fmt, ...) {
    va_list ap;
    char *x;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    ck_assert_int_ge(n, 0);
    ck_assert_ptr_nonnull(x = malloc((size_t)n + 1));
    va_start(ap, fmt);
    vsnprintf(x, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return x;
}

static char *pci_doc(const struct pdoc *p) {
    return new_printf("<device><name>%s</name><parent>computer</parent><capability type='pci'>"
                      "<domain>%s</domain><bus>%s</bus><slot>%s</slot><function>%s</function>"
                      "<product id='%s'/><vendor id='%s'>V</vendor>%s</capability></device>",
                      p->name, p->dom, p->bus, p->slot, p->fn, p->product, p->vendor, p->extra);
}

static char *net_doc(const char *name, const char *parent, const char *ifname) {
    return new_printf("<device><name>%s</name><parent>%s</parent><capability type='net'>"
                      "<interface>%s</interface></capability></device>",
                      name, parent, ifname);
}

/* docs[i] (malloc'ed) into devices, all read */
static numafit_pci_devices_t *xml_ok_free(char **docs, size_t n) {
    numafit_pci_devices_t *devs = xml_ok((const char *const *)docs, n);
    for (size_t i = 0; i < n; i++)
        free(docs[i]);
    return devs;
}

START_TEST(test_xml_nova_rules) {
    static const struct pdoc pcis[] = {
        /* virt_functions after phys_function: the first decides (VF) */
        {"pci_0000_05_00_1", "0", "5", "0", "1", "0x8086", "0x1520",
         "<capability type='phys_function'><address domain='0x0000' bus='0x05' slot='0x00'"
         " function='0x0'/></capability><capability type='virt_functions'/>"
         "<capability type='vpd'><name>X</name><fields access='readwrite'><serial_number>"
         "RW</serial_number></fields></capability>"},
        /* virt_functions first: a PF; its VPD serial */
        {"pci_0000_05_00_0", " 0 ", "5", "0", "0", "8086", "1521",
         "<capability type='virt_functions' maxCount='7'/><capability type='phys_function'>"
         "<address domain='0' bus='5' slot='0' function='3'/></capability>"
         "<capability type='vpd'><fields access='readonly'><serial_number>SN-1"
         "</serial_number></fields></capability><numa node='1'/><numa node='0'/>"},
        /* phys_function without an address: a plain device */
        {"pci_0000_05_00_2", "0", "5", "0", "2", "0X8086", "0x1520",
         "<capability type='phys_function'></capability>"},
        /* a VF that is no net device's parent: no parent_ifname */
        {"pci_0000_05_10_0", "0", "5", "16", "0", "0x8086", "0x1520",
         "<capability type='phys_function'><address domain='0x0000' bus='0x05' "
         "slot='0x00' function='0x0'/></capability>"},
        /* a VF of a PF without a net device: none either */
        {"pci_0000_05_10_1", "0", "5", "16", "1", "0x8086", "0x1520",
         "<capability type='phys_function'><address domain='0x0000' bus='0x05' "
         "slot='0x00' function='0x4'/></capability>"},
        /* a 32-bit domain; the name is dev_id as libvirt wrote it */
        {"pci_12345678_ff_1f_7", "305419896", "255", "31", "7", "0x1af4", "0x1041", ""},
    };
    char *docs[16];
    size_t n = 0;
    for (size_t i = 0; i < sizeof(pcis) / sizeof(pcis[0]); i++)
        docs[n++] = pci_doc(&pcis[i]);
    docs[n++] = net_doc("net_eth0_x", "pci_0000_05_00_0", "eth0");
    docs[n++] = net_doc("net_eth1_x", "pci_0000_05_00_0", "eth1");
    docs[n++] = net_doc("net_vf_x", "pci_0000_05_00_1", "ethv");
    docs[n++] = net_doc("net_vf_y", "pci_0000_05_10_1", "ethw");
    docs[n++] = strdup("<device><name>usb_1</name><capability type='usb_device'><bus>1</bus>"
                       "</capability></device>");
    numafit_pci_devices_t *devs = xml_ok_free(docs, n);
    const struct pci_device *d = devs->d;
    ck_assert_int_eq(numafit_pci_devices_get_count(devs), 6);
    str_eq("address", "PF", d[0].address, "0000:05:00.0");
    str_eq("dev_type", "PF", d[0].dev_type, "type-PF");
    ck_assert_int_eq(d[0].sriov_totalvfs, 7);
    ck_assert_int_eq(d[0].numa_state, NUMA_SET);
    ck_assert_int_eq(d[0].numa_node, 0); /* the last <numa>, as nova reads it */
    str_eq("ifname", "PF", d[0].ifname, "eth0");
    str_eq("card_serial", "PF", d[0].card_serial, "SN-1");
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(d[0].capabilities, "vpd"),
                                                       "card_serial_number")),
                     "SN-1");
    str_eq("dev_type", "05:00.1", d[1].dev_type, "type-VF");
    str_eq("parent_addr", "05:00.1", d[1].parent_addr, "0000:05:00.0");
    str_eq("parent_ifname", "05:00.1", d[1].parent_ifname, "eth1");
    str_eq("card_serial", "05:00.1", d[1].card_serial, "SN-1"); /* the PF's */
    ck_assert_int_eq(d[1].sriov_totalvfs, -1);
    ck_assert_int_eq(d[1].numa_state, NUMA_NULL);
    str_eq("dev_type", "05:00.2", d[2].dev_type, "type-PCI");
    ck_assert_ptr_null(d[2].parent_addr);
    str_eq("dev_type", "05:10.0", d[3].dev_type, "type-VF");
    ck_assert_ptr_null(d[3].parent_ifname);
    str_eq("parent_addr", "05:10.1", d[4].parent_addr, "0000:05:00.4");
    ck_assert_ptr_null(d[4].parent_ifname);
    ck_assert_ptr_null(d[4].card_serial);
    str_eq("address", "dom", d[5].address, "12345678:ff:1f.7");
    str_eq("dev_id", "dom", d[5].dev_id, "pci_12345678_ff_1f_7");
    str_eq("label", "dom", d[5].label, "label_1af4_1041");
    numafit_pci_devices_free(devs);
}
END_TEST

/* The vdpa rule, and the PF found by its libvirt name when its own
 * document is not given. */
START_TEST(test_xml_vdpa_and_missing_pf) {
    static const struct pdoc vf = {"pci_0000_af_00_2",
                                   "0",
                                   "175",
                                   "0",
                                   "2",
                                   "0x15b3",
                                   "0x101e",
                                   "<capability type='phys_function'><address domain='0x0000' "
                                   "bus='0xaf' slot='0x00' function='0x0'/></capability>"
                                   "<numa node='1'/>"};
    char *docs[4] = {
        pci_doc(&vf), net_doc("net_vf", "pci_0000_af_00_2", "enp175s0f0v0"),
        net_doc("net_pf", "pci_0000_af_00_0", "enp175s0f0np0"),
        strdup("<device><name>vdpa_vdpa0</name><parent>pci_0000_af_00_2</parent>"
               "<capability type='vdpa'><chardev>/dev/vhost-vdpa-0</chardev></capability>"
               "</device>")};
    numafit_pci_devices_t *devs = xml_ok_free(docs, 4);
    ck_assert_int_eq(numafit_pci_devices_get_count(devs), 1);
    str_eq("dev_type", "vdpa", devs->d[0].dev_type, "vdpa");
    str_eq("parent_ifname", "vdpa", devs->d[0].parent_ifname, "enp175s0f0np0");
    numafit_pci_devices_free(devs);
    /* no documents: no devices */
    ck_assert_int_eq(numafit_pci_devices_new_from_nodedev_xml(NULL, NULL, 0, 0, &devs, NULL), 0);
    ck_assert_int_eq(numafit_pci_devices_get_count(devs), 0);
    numafit_pci_devices_free(devs);
}
END_TEST

/* ------------------------------------------------------------ XML: errors */

static const struct xml_bad {
    const char *doc; /* NULL: pci */
    struct pdoc pci;
    int rc;
    const char *where, *says;
} xml_bads[] = {
    {"<device><name>x</name>",
     {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
     -EBADMSG,
     "xml[1]",
     "malformed XML"},
    {"", {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL}, -EBADMSG, "xml[1]", "malformed XML"},
    {"<capabilities/>",
     {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
     -EBADMSG,
     "xml[1] line 1 <capabilities>",
     "not <device>"},
    {"<!DOCTYPE device [<!ENTITY x 'pci'>]><device><name>&x;</name></device>",
     {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
     -EBADMSG,
     "xml[1]",
     "DOCTYPE"},
    {"<!DOCTYPE device SYSTEM 'http://example.com/x.dtd'><device/>",
     {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
     -EBADMSG,
     "xml[1]",
     "DOCTYPE"},
    {NULL,
     {"pci_x", "", "5", "0", "0", "0x8086", "0x1520", ""},
     -EBADMSG,
     "xml[1] line 1 <domain>",
     "not a decimal number"},
    {NULL,
     {"pci_x", "0x0", "5", "0", "0", "0x8086", "0x1520", ""},
     -EBADMSG,
     "xml[1] line 1 <domain>",
     "not a decimal number"},
    {NULL,
     {"pci_x", "-1", "5", "0", "0", "0x8086", "0x1520", ""},
     -EBADMSG,
     "xml[1] line 1 <domain>",
     "not a decimal number"},
    {NULL,
     {"pci_x", "4294967296", "5", "0", "0", "0x8086", "0x1520", ""},
     -ERANGE,
     "xml[1] line 1 <domain>",
     "above 4294967295"},
    {NULL,
     {"pci_x", "0", "256", "0", "0", "0x8086", "0x1520", ""},
     -ERANGE,
     "xml[1] line 1 <bus>",
     "above 255"},
    {NULL,
     {"pci_x", "0", "5", "32", "0", "0x8086", "0x1520", ""},
     -ERANGE,
     "xml[1] line 1 <slot>",
     "above 31"},
    {NULL,
     {"pci_x", "0", "5", "0", "8", "0x8086", "0x1520", ""},
     -ERANGE,
     "xml[1] line 1 <function>",
     "above 7"},
    {NULL,
     {"pci_x", "0", "5", "0", "0", "0x18086", "0x1520", ""},
     -ERANGE,
     "xml[1] line 1 <vendor>",
     "id: '0x18086' is above 65535"},
    {NULL,
     {"pci_x", "0", "5", "0", "0", "intel", "0x1520", ""},
     -EBADMSG,
     "xml[1] line 1 <vendor>",
     "not a hexadecimal number"},
    {NULL,
     {"pci_x", "0", "5", "0", "0", "0x8086", "0x1520", "<numa node='-1'/>"},
     -EBADMSG,
     "xml[1] line 1 <numa>",
     "node: '-1' is not a decimal number"},
    {NULL,
     {"pci_x", "0", "5", "0", "0", "0x8086", "0x1520", "<numa/>"},
     -EBADMSG,
     "xml[1] line 1 <numa>",
     "no node attribute"},
    {NULL,
     {"pci_x", "0", "5", "0", "0", "0x8086", "0x1520",
      "<capability type='phys_function'><address domain='0' bus='0x100' slot='0' "
      "function='0'/></capability>"},
     -ERANGE,
     "xml[1] line 1 <address>",
     "bus: '0x100' is above 255"},
    {NULL,
     {"pci_x", "0", "5", "0", "0", "0x8086", "0x1520",
      "<capability type='virt_functions'><address domain='0' bus='0' slot='0'/>"
      "</capability>"},
     -EBADMSG,
     "xml[1] line 1 <address>",
     "no function attribute"},
    {NULL,
     {"pci_x", "0", "5", "0", "0", "0x8086", "0x1520",
      "<capability type='virt_functions' maxCount='lots'/>"},
     -EBADMSG,
     "xml[1] line 1 <capability>",
     "maxCount: 'lots'"},
    {"<device><name>pci_x</name><capability type='pci'><domain>0</domain><bus>0</bus><slot>0"
     "</slot><vendor id='1'/><product id='1'/></capability></device>",
     {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
     -EBADMSG,
     "xml[1] line 1 <capability>",
     "no <function> element"},
    {"<device><name>pci_x</name><capability type='pci'><domain>0</domain><bus>0</bus><slot>0"
     "</slot><function>0</function><vendor id='1'/></capability></device>",
     {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
     -EBADMSG,
     "xml[1] line 1 <capability>",
     "no <product id> element"},
    {"<device><capability type='pci'><domain>0</domain><bus>0</bus><slot>0</slot><function>0"
     "</function><vendor id='1'/><product id='1'/></capability></device>",
     {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
     -EBADMSG,
     "xml[1] line 1 <device>",
     "without a <name>"},
    {"<device><name>n</name><parent>pci_0000_05_00_0</parent><capability type='net'>"
     "</capability></device>",
     {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
     -EBADMSG,
     "xml[1] line 1 <capability>",
     "without an <interface>"},
    {"<device><name>n</name><capability type='net'><interface>e</interface></capability>"
     "<capability type='pci'/></device>",
     {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
     -EBADMSG,
     "xml[1] line 1 <capability>",
     "a second pci capability"},
    /* another device of the same name or address as xml[0] */
    {NULL,
     {"pci_0000_05_00_0", "0", "5", "0", "1", "0x8086", "0x1520", ""},
     -EINVAL,
     "pci_0000_05_00_0",
     "xml[0] and xml[1]: two PCI devices named"},
    {NULL,
     {"pci_other", "0", "5", "0", "0", "0x8086", "0x1520", ""},
     -EINVAL,
     "0000:05:00.0",
     "two devices with this address"},
};

static const struct pdoc pf0 = {"pci_0000_05_00_0", "0", "5", "0", "0", "0x8086", "0x1572", ""};

START_TEST(test_xml_bad) {
    const struct xml_bad *b = &xml_bads[_i];
    char *other = b->doc ? strdup(b->doc) : pci_doc(&b->pci);
    const char *docs[2] = {pci_doc(&pf0), other};
    size_t len[2] = {strlen(docs[0]), strlen(docs[1])};
    numafit_pci_devices_t *devs = NULL;
    numafit_error_t e;
    int r = numafit_pci_devices_new_from_nodedev_xml(docs, len, 2, 0, &devs, &e);
    free((char *)docs[0]);
    free(other);
    ck_assert_msg(r == b->rc, "case %d: %d, want %d (%s: %s)", _i, r, b->rc, e.where, e.text);
    ck_assert_ptr_null(devs);
    ck_assert_msg(!strcmp(e.where, b->where), "case %d: where '%s'", _i, e.where);
    ck_assert_msg(strstr(e.text, b->says), "case %d: '%s'", _i, e.text);
}
END_TEST

START_TEST(test_xml_args) {
    char *doc = pci_doc(&pf0);
    const char *docs[2] = {doc, NULL};
    size_t len[2] = {strlen(doc), 0};
    numafit_pci_devices_t *devs = NULL;
    numafit_error_t e;
    ck_assert_int_eq(numafit_pci_devices_new_from_nodedev_xml(docs, len, 1, 1, &devs, &e), -EINVAL);
    ck_assert_int_eq(numafit_pci_devices_new_from_nodedev_xml(docs, len, 1, 0, NULL, &e), -EINVAL);
    ck_assert_int_eq(numafit_pci_devices_new_from_nodedev_xml(NULL, len, 1, 0, &devs, &e), -EINVAL);
    ck_assert_int_eq(numafit_pci_devices_new_from_nodedev_xml(docs, len, 2, 0, &devs, &e), -EINVAL);
    ck_assert_str_eq(e.where, "xml[1]");
    ck_assert_int_eq(
        numafit_pci_devices_new_from_nodedev_xml(docs, len, 4u * 65536 + 1, 0, &devs, &e), -ERANGE);
    /* a document above NUMAFIT_INPUT_MAX bytes is refused before it is read */
    len[0] = (size_t)NUMAFIT_INPUT_MAX + 1;
    ck_assert_int_eq(numafit_pci_devices_new_from_nodedev_xml(docs, len, 1, 0, &devs, &e), -ERANGE);
    ck_assert_str_eq(e.where, "xml[0]");
    ck_assert_ptr_null(devs);
    /* an entity bomb is refused (DOCTYPE), never expanded */
    {
        static const char bomb[] =
            "<?xml version='1.0'?><!DOCTYPE d [<!ENTITY a 'aaaaaaaaaa'>"
            "<!ENTITY b '&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;'><!ENTITY c '&b;&b;&b;&b;&b;&b;&b;&b;&b;'>"
            "<!ENTITY d '&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;'>]><device><name>&d;</name></device>";
        const char *one[1] = {bomb};
        size_t l = sizeof(bomb) - 1;
        ck_assert_int_eq(numafit_pci_devices_new_from_nodedev_xml(one, &l, 1, 0, &devs, &e),
                         -EBADMSG);
    }
    free(doc);
}
END_TEST

/* ------------------------------------------------------------ libvirt */

#ifdef HAVE_LIBVIRT
/* libvirt's test driver serving the fixture's documents (without the vdpa
 * device, which its parser does not know, nor <path>): the live loader
 * gives what the XML reader gives for them. */
START_TEST(test_libvirt_test_driver) {
    char path[] = "/tmp/check_pci_discovery.XXXXXX", uri[PATH_MAX];
    struct docs d;
    numafit_pci_devices_t *a, *b = NULL;
    numafit_error_t e;
    int fd = mkstemp(path);
    FILE *f;
    ck_assert_int_ge(fd, 0);
    ck_assert_ptr_nonnull(f = fdopen(fd, "w"));
    load_docs(&d, "vdpa");
    fputs("<node>\n", f);
    for (size_t i = 0; i < d.n; i++) {
        char *p = strstr(d.xml[i], "  <path>"), *q = p ? strstr(p, "</path>\n") : NULL;
        if (q)
            memmove(p, q + 8, strlen(q + 8) + 1);
        d.len[i] = strlen(d.xml[i]);
        fputs(d.xml[i], f);
    }
    fputs("</node>\n", f);
    fclose(f);
    a = from_xml(&d);
    snprintf(uri, sizeof(uri), "test://%s", path);
    int r = numafit_pci_devices_new_from_libvirt(uri, 0, &b, &e);
    ck_assert_msg(r == 0, "%d %s: %s", r, e.where, e.text);
    expect_same(a, b);
    str_eq("dev_type", "af:00.2", b->d[12].dev_type, "type-VF"); /* no vdpa device */
    numafit_pci_devices_free(a);
    numafit_pci_devices_free(b);
    free_docs(&d);
    unlink(path);
    ck_assert_int_eq(numafit_pci_devices_new_from_libvirt("test:///nonexistent.xml", 0, &b, &e),
                     -ECONNREFUSED);
    ck_assert_int_eq(numafit_pci_devices_new_from_libvirt(NULL, 1, &b, &e), -EINVAL);
}
END_TEST
#endif

/* This machine's own sysfs reads without error, one device an entry; with
 * a libvirt daemon that answers, its node devices give the same addresses. */
START_TEST(test_this_machine) {
    numafit_pci_devices_t *devs = NULL, *lv = NULL;
    numafit_error_t e;
    DIR *dir = opendir("/sys/bus/pci/devices");
    int n = 0, r;
    if (!dir) {
        fprintf(stderr, "check_pci_discovery: SKIP this machine: no /sys/bus/pci/devices\n");
        return;
    }
    for (struct dirent *de; (de = readdir(dir));)
        n += de->d_name[0] != '.';
    closedir(dir);
    r = numafit_pci_devices_new_from_sysfs("/", 0, &devs, &e);
    ck_assert_msg(r == 0, "%d %s: %s", r, e.where, e.text);
    ck_assert_int_eq(numafit_pci_devices_get_count(devs), n);
    r = numafit_pci_devices_new_from_libvirt(NULL, 0, &lv, &e);
    if (r < 0) {
        fprintf(stderr, "check_pci_discovery: SKIP comparing /sys with libvirt: %s\n", e.text);
    } else {
        ck_assert_int_eq(numafit_pci_devices_get_count(lv), n);
        for (int i = 0; i < n; i++) {
            str_eq("address", devs->d[i].address, lv->d[i].address, devs->d[i].address);
            str_eq("dev_type", devs->d[i].address, lv->d[i].dev_type, devs->d[i].dev_type);
            str_eq("product_id", devs->d[i].address, lv->d[i].product_id, devs->d[i].product_id);
        }
    }
    numafit_pci_devices_free(lv);
    numafit_pci_devices_free(devs);
}
END_TEST

static Suite *pci_discovery_suite(void) {
    Suite *s = suite_create("pci_discovery");
    TCase *tc;

    tc = tcase_create("fixture");
    tcase_add_test(tc, test_sysfs_fixture);
    tcase_add_test(tc, test_nodedev_fixture);
    tcase_add_test(tc, test_sysfs_equals_nodedev);
    tcase_add_test(tc, test_sysfs_flat_capture);
    suite_add_tcase(s, tc);

    tc = tcase_create("vpd");
    tcase_set_timeout(tc, 60); /* a FIFO as vpd must not block */
    tcase_add_test(tc, test_vpd_rules);
    tcase_add_test(tc, test_sysfs_vpd);
    suite_add_tcase(s, tc);

    /* the timeout catches a reader that blocks on a FIFO */
    tc = tcase_create("sysfs_errors");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_sysfs_bad, 0, (int)(sizeof(sysfs_bads) / sizeof(sysfs_bads[0])));
    tcase_add_test(tc, test_sysfs_args_and_limits);
    suite_add_tcase(s, tc);

    tc = tcase_create("big_dirs");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_sysfs_too_many_devices);
    suite_add_tcase(s, tc);

    tc = tcase_create("xml");
    tcase_add_test(tc, test_xml_nova_rules);
    tcase_add_test(tc, test_xml_vdpa_and_missing_pf);
    tcase_add_loop_test(tc, test_xml_bad, 0, (int)(sizeof(xml_bads) / sizeof(xml_bads[0])));
    tcase_add_test(tc, test_xml_args);
    suite_add_tcase(s, tc);

    tc = tcase_create("live");
    tcase_set_timeout(tc, 60);
#ifdef HAVE_LIBVIRT
    tcase_add_test(tc, test_libvirt_test_driver);
#endif
    tcase_add_test(tc, test_this_machine);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(pci_discovery_suite());
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
