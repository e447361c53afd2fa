/* A host's PCI devices from libvirt's node device XML (virsh nodedev-dumpxml,
 * virNodeDeviceGetXMLDesc), as nova's libvirt driver reads them
 * (driver.py _get_pci_passthrough_devices, host.py _get_pcidev_info, the
 * parsers LibvirtConfigNodeDevice* of config.py), and the live variant
 * through libvirt's node device API.
 *
 * Documents: the root is <device>; one with a top-level <capability
 * type='pci'> is a PCI function, type='net' a network interface, type='vdpa'
 * a vDPA device; any other (usb, scsi...) is skipped. Per PCI function, as
 * nova does it:
 *  - address from <domain>, <bus>, <slot>, <function> (decimal, nova's
 *    int()), vendor_id and product_id from <vendor id> and <product id>
 *    (hexadecimal, int(x, 16)), dev_id the <name>, label_VENDOR_PRODUCT,
 *    numa_node from <numa node> (absent: null);
 *  - the nested <capability> elements of type virt_functions and
 *    phys_function in document order: the first virt_functions makes it a
 *    PF, the first phys_function with an <address> (hexadecimal
 *    attributes) a VF of that address (parent_addr); else type-PCI;
 *  - a VF that is the <parent> of a net device gets parent_ifname, the
 *    <interface> of a net device whose parent is the PF (the PF's document
 *    by address, else libvirt's name pci_DDDD_BB_SS_F; nova reads
 *    VF/physfn/net in sysfs and takes os.listdir().pop(): with several the
 *    last in sorted order here); none when the PF has none;
 *  - a VF that is the <parent> of a vdpa device is "vdpa";
 *  - the card serial number of its <capability type='vpd'> (<fields
 *    access='readonly'><serial_number>), a type-VF (not a vdpa one)
 *    without one that of the device named pci_ + its parent_addr ('.' and
 *    ':' as '_'), as capabilities {"vpd": {"card_serial_number"}};
 *  - libnumafit's own: ifname the first (sorted) <interface> of the net
 *    devices whose parent it is; sriov_totalvfs the virt_functions
 *    maxCount (else -1); no sriov_vf_device (libvirt does not report it).
 * Not reported: nova's capabilities network (the VF's net features) and
 * sriov (pf_mac_address, vf_num: nova reads them from sysfs), and the PF's
 * mac_address.
 *
 * Stricter than nova, which crashes on these or reports nonsense: a PCI
 * function needs a <name>, all four address elements and both ids; numbers
 * are ASCII, out of PCI's ranges (bus 255, slot 31, function 7, ids 0xffff,
 * domain 0xffffffff, numa node INT32_MAX, maxCount 65535) they are
 * refused; two functions with one name or one address are refused; a net
 * device needs an <interface>; a document with two of the pci, net and vdpa
 * capabilities is refused. Devices come sorted by address (nova keeps
 * libvirt's listing order).
 *
 * XML safety as in discover_caps.c: no network, no entities, no DTD
 * loading, any DOCTYPE refused, NUMAFIT_INPUT_MAX bytes a document,
 * libxml2's errors kept per call (the calling thread's structured handler is
 * replaced during the call and restored), nothing printed. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pci_internal.h"
#include "private.h"

/* documents of one call: PCI functions, net and vdpa devices */
#define DOCS_MAX (4u * NUMAFIT_PCI_DEVICES_MAX)

#ifdef HAVE_LIBVIRT /* configure finds libxml2 together with libvirt */
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "xml_read.h"

enum { K_OTHER, K_PCI, K_NET, K_VDPA };
enum { FUN_NONE, FUN_PF, FUN_VF };

/* What nova reads of one document. */
struct ndoc {
    int kind;
    char *name, *parent; /* numafit__malloc'ed; NULL: none */
    uint64_t key;        /* the PCI address (pci_sysfs.c's sort key) */
    uint32_t vendor, product;
    int numa_state;
    int64_t numa_node;
    int fun;         /* FUN_*: the first decisive function capability */
    uint64_t pf_key; /* FUN_VF */
    int64_t max_vfs; /* virt_functions maxCount, -1 */
    char *serial;    /* vpd serial_number, NULL: none */
    char *ifname;    /* K_NET: <interface> */
};

struct nctx {
    numafit_error_t *err;
    size_t index;            /* the document being read */
    struct numafit__xml xml; /* xml.nomem: libxml2 could not allocate */
};

static int nd_fail(struct nctx *x, const xmlNode *n, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int nd_fail(struct nctx *x, const xmlNode *n, int rc, const char *fmt, ...) {
    char where[96], text[256];
    va_list ap;
    if (n)
        snprintf(where, sizeof(where), "xml[%zu] line %ld <%s>", x->index,
                 xmlGetLineNo((xmlNode *)n), (const char *)n->name);
    else
        snprintf(where, sizeof(where), "xml[%zu]", x->index);
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    numafit__error_set(x->err,
                       rc == -ENOMEM   ? NUMAFIT_E_NOMEM
                       : rc == -ERANGE ? NUMAFIT_E_RANGE
                                       : NUMAFIT_E_SCHEMA,
                       -1, where, NULL, "%s: %s", where, text);
    return rc;
}

static bool is_elem(const xmlNode *n, const char *name) {
    return n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

/* An attribute's value (xmlFree it), NULL when absent (or x->xml.nomem). */
static char *get_attr(struct nctx *x, const xmlNode *n, const char *name) {
    return numafit__xml_attr(&x->xml, n, name);
}

/* The element's text as a new numafit__malloc'ed string, at most
 * NUMAFIT_PCI_STRING_MAX bytes; *ret NULL when empty. */
static int get_text(struct nctx *x, const xmlNode *n, char **ret) {
    char *v = numafit__xml_content(&x->xml, n);
    size_t len;
    int r = 0;
    numafit__free(*ret);
    *ret = NULL;
    if (!v)
        return -ENOMEM;
    len = strlen(v);
    if (len > NUMAFIT_PCI_STRING_MAX)
        r = nd_fail(x, n, -ERANGE, "longer than %d bytes", NUMAFIT_PCI_STRING_MAX);
    else if (len && !(*ret = numafit__strdup(v)))
        r = -ENOMEM;
    xmlFree(v);
    return r;
}

static bool space(char c) {
    return c == ' ' || (c >= '\t' && c <= '\r');
}

/* s as nova's int(s) (base 10) or int(s, 16) reads it, ASCII only:
 * surrounding white space, in base 16 an optional 0x; no sign. */
static int parse_num(const char *s, unsigned base, uint64_t max, uint64_t *out) {
    uint64_t v = 0;
    size_t nd = 0;
    if (!s)
        return -EBADMSG;
    while (space(*s))
        s++;
    if (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    for (;; s++, nd++) {
        unsigned d;
        if (*s >= '0' && *s <= '9')
            d = (unsigned)(*s - '0');
        else if (base == 16 && ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f'))
            d = (unsigned)((*s | 0x20) - 'a' + 10);
        else
            break;
        if (v > max)
            return -ERANGE;
        v = v * base + d;
    }
    while (space(*s))
        s++;
    if (*s || !nd)
        return -EBADMSG;
    if (v > max)
        return -ERANGE;
    *out = v;
    return 0;
}

/* A number in an attribute (attr != NULL) or in the element's text. */
static int get_num(struct nctx *x, const xmlNode *n, const char *attr, unsigned base, uint64_t max,
                   uint64_t *out) {
    char *v = attr ? get_attr(x, n, attr) : numafit__xml_content(&x->xml, n);
    int r;
    if (!v && x->xml.nomem)
        return -ENOMEM;
    r = parse_num(v, base, max, out);
    if (r == -ERANGE)
        nd_fail(x, n, r, "%s%s'%.40s' is above %llu", attr ? attr : "", attr ? ": " : "", v,
                (unsigned long long)max);
    else if (r < 0 && v)
        nd_fail(x, n, r, "%s%s'%.40s' is not a %s number", attr ? attr : "", attr ? ": " : "", v,
                base == 16 ? "hexadecimal" : "decimal");
    else if (r < 0)
        nd_fail(x, n, r, "no %s attribute", attr);
    xmlFree(v);
    return r;
}

/* <address domain bus slot function> (hexadecimal) into a sort key */
static int get_address(struct nctx *x, const xmlNode *n, uint64_t *key) {
    static const char *const names[] = {"domain", "bus", "slot", "function"};
    static const uint64_t max[] = {0xffffffff, 0xff, 0x1f, 7};
    static const unsigned shift[] = {16, 8, 3, 0};
    uint64_t v;
    int r;
    *key = 0;
    for (int i = 0; i < 4; i++) {
        if ((r = get_num(x, n, names[i], 16, max[i], &v)) < 0)
            return r;
        *key |= v << shift[i];
    }
    return 0;
}

/* <capability type='vpd'>: the last readonly serial_number (the last
 * vpd capability replaces those before it, as in nova) */
static int read_vpd(struct nctx *x, const xmlNode *cap, struct ndoc *d) {
    numafit__free(d->serial);
    d->serial = NULL;
    for (const xmlNode *f = cap->children; f; f = f->next) {
        char *access;
        bool ro;
        if (!is_elem(f, "fields"))
            continue;
        access = get_attr(x, f, "access");
        ro = access && !strcmp(access, "readonly");
        xmlFree(access);
        for (const xmlNode *e = ro ? f->children : NULL; e; e = e->next) {
            int r;
            if (is_elem(e, "serial_number") && (r = get_text(x, e, &d->serial)) < 0)
                return r;
        }
    }
    return 0;
}

/* a nested <capability> of the pci capability */
static int read_sub_capability(struct nctx *x, const xmlNode *c, struct ndoc *d) {
    char *type = get_attr(x, c, "type");
    bool vfs = type && !strcmp(type, "virt_functions");
    bool pf = type && !strcmp(type, "phys_function");
    bool vpd = type && !strcmp(type, "vpd");
    uint64_t v, first = 0;
    size_t naddr = 0;
    int r = 0;
    xmlFree(type);
    if (vpd)
        return read_vpd(x, c, d);
    if (!vfs && !pf)
        return 0;
    if (vfs && xmlHasProp((xmlNode *)c, (const xmlChar *)"maxCount")) {
        if ((r = get_num(x, c, "maxCount", 10, 65535, &v)) < 0)
            return r;
        if (d->max_vfs < 0)
            d->max_vfs = (int64_t)v;
    }
    for (const xmlNode *a = c->children; a && r == 0; a = a->next)
        if (is_elem(a, "address") && (r = get_address(x, a, naddr++ ? &v : &first)) < 0)
            return r;
    if (d->fun == FUN_NONE && vfs) {
        d->fun = FUN_PF;
    } else if (d->fun == FUN_NONE && pf && naddr) {
        d->fun = FUN_VF;
        d->pf_key = first;
    }
    return 0;
}

/* <capability type='pci'> */
static int read_pci(struct nctx *x, const xmlNode *cap, struct ndoc *d) {
    static const char *const parts[] = {"domain", "bus", "slot", "function"};
    static const uint64_t max[] = {0xffffffff, 0xff, 0x1f, 7};
    static const unsigned shift[] = {16, 8, 3, 0};
    bool seen[4] = {false, false, false, false}, vendor = false, product = false;
    uint64_t v;
    int r;
    d->key = 0;
    for (const xmlNode *c = cap->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        for (int i = 0; i < 4; i++) {
            if (!is_elem(c, parts[i]))
                continue;
            if ((r = get_num(x, c, NULL, 10, max[i], &v)) < 0)
                return r;
            d->key = (d->key & ~(max[i] << shift[i])) | v << shift[i];
            seen[i] = true;
        }
        if (is_elem(c, "vendor") || is_elem(c, "product")) {
            bool is_vendor = is_elem(c, "vendor");
            if ((r = get_num(x, c, "id", 16, 0xffff, &v)) < 0)
                return r;
            *(is_vendor ? &d->vendor : &d->product) = (uint32_t)v;
            *(is_vendor ? &vendor : &product) = true;
        } else if (is_elem(c, "numa")) {
            if ((r = get_num(x, c, "node", 10, INT32_MAX, &v)) < 0)
                return r;
            d->numa_state = NUMA_SET;
            d->numa_node = (int64_t)v;
        } else if (is_elem(c, "capability") && (r = read_sub_capability(x, c, d)) < 0) {
            return r;
        }
    }
    for (int i = 0; i < 4; i++)
        if (!seen[i])
            return nd_fail(x, cap, -EBADMSG, "no <%s> element", parts[i]);
    if (!vendor || !product)
        return nd_fail(x, cap, -EBADMSG, "no <%s id> element", vendor ? "product" : "vendor");
    return 0;
}

/* <capability type='net'>: the last <interface> */
static int read_netcap(struct nctx *x, const xmlNode *cap, struct ndoc *d) {
    int r;
    for (const xmlNode *c = cap->children; c; c = c->next)
        if (is_elem(c, "interface") && (r = get_text(x, c, &d->ifname)) < 0)
            return r;
    if (!d->ifname)
        return nd_fail(x, cap, -EBADMSG, "a net device without an <interface>");
    return 0;
}

static int read_device(struct nctx *x, const xmlNode *root, struct ndoc *d) {
    static const char *const kinds[] = {"", "pci", "net", "vdpa"};
    int r;
    if (!is_elem(root, "device"))
        return nd_fail(x, root, -EBADMSG, "the root element is not <device>");
    for (const xmlNode *c = root->children; c; c = c->next) {
        if (is_elem(c, "name") || is_elem(c, "parent")) {
            if ((r = get_text(x, c, is_elem(c, "name") ? &d->name : &d->parent)) < 0)
                return r;
        } else if (is_elem(c, "capability")) {
            char *type = get_attr(x, c, "type");
            int kind = K_OTHER;
            for (int k = K_PCI; type && k <= K_VDPA; k++)
                if (!strcmp(type, kinds[k]))
                    kind = k;
            xmlFree(type);
            if (kind == K_OTHER)
                continue;
            if (d->kind != K_OTHER)
                return nd_fail(x, c, -EBADMSG, "a second %s capability", kinds[kind]);
            d->kind = kind;
            if ((kind == K_PCI && (r = read_pci(x, c, d)) < 0) ||
                (kind == K_NET && (r = read_netcap(x, c, d)) < 0))
                return r;
        }
    }
    if (d->kind == K_PCI && !d->name)
        return nd_fail(x, root, -EBADMSG, "a PCI device without a <name>");
    return 0;
}

/* Parse one document into d. */
static int parse_doc(struct nctx *x, const char *xml, size_t len, struct ndoc *d) {
    xmlDocPtr doc = NULL;
    char msg[160];
    int r, line = 0;

    if (len > NUMAFIT_INPUT_MAX)
        return nd_fail(x, NULL, -ERANGE, "%zu bytes, above the limit %u", len, NUMAFIT_INPUT_MAX);
    r = numafit__xml_parse(&x->xml, xml, len, "nodedev.xml", 0, &doc, msg, sizeof(msg), &line);
    if (r == -EBADMSG)
        return nd_fail(x, NULL, -EBADMSG, "malformed XML, line %d: %s", line, msg);
    if (r == -EPERM)
        return nd_fail(x, NULL, -EBADMSG, "a DOCTYPE is refused");
    if (r < 0)
        return r;
    r = read_device(x, xmlDocGetRootElement(doc), d);
    if (x->xml.nomem)
        r = -ENOMEM;
    xmlFreeDoc(doc);
    return r;
}

/* ------------------------------------------------------------ the host */

/* a string key (then a second one) of a document, for sorted lookups */
struct skey {
    const char *s, *t;
    uint32_t index;
};

static int cmp_skey(const void *a, const void *b) {
    const struct skey *x = a, *y = b;
    int c = strcmp(x->s, y->s);
    return c ? c : strcmp(x->t ? x->t : "", y->t ? y->t : "");
}

/* the first entry with .s == s, or NULL */
static const struct skey *find(const struct skey *v, uint32_t n, const char *s) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (strcmp(v[mid].s, s) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && !strcmp(v[lo].s, s) ? &v[lo] : NULL;
}

/* the last entry with .s == s, or NULL */
static const struct skey *find_last(const struct skey *v, uint32_t n, const char *s) {
    const struct skey *k = find(v, n, s);
    while (k && k + 1 < v + n && !strcmp(k[1].s, s))
        k++;
    return k;
}

/* a PCI function's address, for lookups by address */
struct kidx {
    uint64_t key;
    uint32_t index;
};

static int cmp_kidx(const void *a, const void *b) {
    uint64_t x = ((const struct kidx *)a)->key, y = ((const struct kidx *)b)->key;
    return x < y ? -1 : x > y;
}

struct host {
    struct ndoc *docs;
    struct skey *names, *nets, *vdpas; /* PCI functions by name; net and vdpa by parent */
    uint32_t nnames, nnets, nvdpas;
    struct kidx *keys; /* PCI functions by address, nnames of them */
};

/* libvirt's name of the function with this key: pci_DDDD_BB_SS_F */
static void fmt_name(char *out, size_t cap, uint64_t key) {
    char addr[32];
    numafit__pci_addr_format(key, addr);
    snprintf(out, cap, "pci_%s", addr);
    for (char *p = out; *p; p++)
        *p = *p == ':' || *p == '.' ? '_' : *p;
}

/* The PF's name: its document's by address, else libvirt's name. */
static const char *pf_name(const struct host *h, uint64_t key, char *buf, size_t cap) {
    struct kidx want = {key, 0};
    const struct kidx *k = bsearch(&want, h->keys, h->nnames, sizeof(want), cmp_kidx);
    if (k)
        return h->docs[k->index].name;
    fmt_name(buf, cap, key);
    return buf;
}

/* One device dict from document d. */
static int build_device(const struct host *h, const struct ndoc *d, struct pci_device *dev) {
    char buf[64];
    const struct skey *own_net = find(h->nets, h->nnets, d->name), *k;
    bool vdpa = d->fun == FUN_VF && find(h->vdpas, h->nvdpas, d->name);
    const char *serial = d->serial;
    int r;
    if (!(dev->dev_id = numafit__strdup(d->name)) ||
        !(dev->dev_type = numafit__strdup(d->fun == FUN_PF     ? "type-PF"
                                          : d->fun == FUN_NONE ? "type-PCI"
                                          : vdpa               ? "vdpa"
                                                               : "type-VF")))
        return -ENOMEM;
    if ((r = numafit__pci_device_set_ids(dev, d->key, d->vendor, d->product)) < 0)
        return r;
    dev->numa_state = d->numa_state;
    dev->numa_node = d->numa_node;
    dev->sriov_totalvfs = d->max_vfs;
    if (own_net && !(dev->ifname = numafit__strdup(own_net->t)))
        return -ENOMEM;
    if (d->fun == FUN_VF) {
        uint64_t p = d->pf_key;
        numafit__pci_addr_format(p, buf);
        if (!(dev->parent_addr = numafit__strdup(buf)))
            return -ENOMEM;
        /* nova asks sysfs for the PF's interface when the VF has a netdev */
        if (own_net && (k = find_last(h->nets, h->nnets, pf_name(h, p, buf, sizeof(buf)))) &&
            !(dev->parent_ifname = numafit__strdup(k->t)))
            return -ENOMEM;
        if (!serial && !vdpa) { /* nova: a type-VF's PF, by libvirt's name */
            fmt_name(buf, sizeof(buf), p);
            k = find(h->names, h->nnames, buf);
            serial = k ? h->docs[k->index].serial : NULL;
        }
    }
    return serial ? numafit__pci_device_set_serial(dev, serial) : 0;
}

static void ndoc_clear(struct ndoc *d) {
    numafit__free(d->name);
    numafit__free(d->parent);
    numafit__free(d->serial);
    numafit__free(d->ifname);
}

/* The lookup tables, then one device a PCI function. */
static int build_host(struct host *h, uint32_t n, numafit_pci_devices_t **ret,
                      numafit_error_t *err) {
    struct pci_device *devs = NULL;
    uint64_t *keys = NULL;
    int r = 0;
    h->names = numafit__calloc(n, sizeof(*h->names));
    h->nets = numafit__calloc(n, sizeof(*h->nets));
    h->vdpas = numafit__calloc(n, sizeof(*h->vdpas));
    h->keys = numafit__calloc(n, sizeof(*h->keys));
    if (!h->names || !h->nets || !h->vdpas || !h->keys)
        return -ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        const struct ndoc *d = &h->docs[i];
        if (d->kind == K_PCI) {
            h->keys[h->nnames] = (struct kidx){d->key, i};
            h->names[h->nnames++] = (struct skey){d->name, NULL, i};
        } else if (d->kind == K_NET && d->parent) {
            h->nets[h->nnets++] = (struct skey){d->parent, d->ifname, i};
        } else if (d->kind == K_VDPA && d->parent) {
            h->vdpas[h->nvdpas++] = (struct skey){d->parent, NULL, i};
        }
    }
    qsort(h->names, h->nnames, sizeof(*h->names), cmp_skey);
    qsort(h->nets, h->nnets, sizeof(*h->nets), cmp_skey);
    qsort(h->vdpas, h->nvdpas, sizeof(*h->vdpas), cmp_skey);
    qsort(h->keys, h->nnames, sizeof(*h->keys), cmp_kidx);
    for (uint32_t i = 1; i < h->nnames; i++) {
        if (strcmp(h->names[i].s, h->names[i - 1].s))
            continue;
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, h->names[i].s, NULL,
                           "xml[%u] and xml[%u]: two PCI devices named '%.80s'",
                           h->names[i - 1].index, h->names[i].index, h->names[i].s);
        return -EINVAL;
    }
    if (h->nnames > NUMAFIT_PCI_DEVICES_MAX) {
        numafit__error_set(err, NUMAFIT_E_RANGE, -1, "", NULL, "more than %d PCI devices",
                           NUMAFIT_PCI_DEVICES_MAX);
        return -ERANGE;
    }
    if (h->nnames && (!(devs = numafit__calloc(h->nnames, sizeof(*devs))) ||
                      !(keys = numafit__calloc(h->nnames, sizeof(*keys)))))
        r = -ENOMEM;
    for (uint32_t i = 0; i < h->nnames && r == 0; i++) {
        keys[i] = h->docs[h->keys[i].index].key;
        r = build_device(h, &h->docs[h->keys[i].index], &devs[i]);
    }
    if (r == 0)
        r = numafit__pci_devices_finish(devs, keys, h->nnames, ret, err);
    else
        for (uint32_t i = 0; i < h->nnames; i++)
            numafit__pci_device_clear(&devs[i]);
    numafit__free(devs);
    numafit__free(keys);
    return r;
}

NUMAFIT_EXPORT int numafit_pci_devices_new_from_nodedev_xml(const char *const *xml,
                                                            const size_t *len, size_t n,
                                                            unsigned flags,
                                                            numafit_pci_devices_t **ret,
                                                            numafit_error_t *err) {
    struct nctx x = {err, 0, {0}};
    struct host h;
    int r = 0;

    numafit__error_clear(err);
    if (!ret || flags || (n && (!xml || !len))) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "", NULL, "invalid argument");
        return -EINVAL;
    }
    if (n > DOCS_MAX) {
        numafit__error_set(err, NUMAFIT_E_RANGE, -1, "", NULL, "%zu documents, above the limit %u",
                           n, DOCS_MAX);
        return -ERANGE;
    }
    for (size_t i = 0; i < n; i++) {
        if (!xml[i]) {
            x.index = i;
            return nd_fail(&x, NULL, -EINVAL, "a NULL document");
        }
    }
    memset(&h, 0, sizeof(h));
    numafit__xml_begin(&x.xml);
    if (n && !(h.docs = numafit__calloc(n, sizeof(*h.docs))))
        r = -ENOMEM;
    for (size_t i = 0; i < n && r == 0; i++) {
        x.index = i;
        h.docs[i].numa_state = NUMA_NULL;
        h.docs[i].max_vfs = -1;
        r = parse_doc(&x, xml[i], len[i], &h.docs[i]);
    }
    numafit__xml_end(&x.xml);
    if (r == 0)
        r = build_host(&h, (uint32_t)n, ret, err);
    if (r == -ENOMEM)
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
    for (size_t i = 0; h.docs && i < n; i++)
        ndoc_clear(&h.docs[i]);
    numafit__free(h.docs);
    numafit__free(h.names);
    numafit__free(h.nets);
    numafit__free(h.vdpas);
    numafit__free(h.keys);
    return r;
}

/* ------------------------------------------------------------ live libvirt */

/* The connection's error handler: libvirt would print its errors to stderr
 * without one; they are read back with virGetLastError(). */
static void libvirt_quiet(void *data, virErrorPtr e) {
    (void)data;
    (void)e;
}

static int libvirt_error(numafit_error_t *err, const char *call) {
    virErrorPtr e = virGetLastError();
    numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, call, NULL, "libvirt %s failed: %s", call,
                       e && e->message ? e->message : "unknown error");
    virResetLastError();
    return -ECONNREFUSED;
}

NUMAFIT_EXPORT int numafit_pci_devices_new_from_libvirt(const char *uri, unsigned flags,
                                                        numafit_pci_devices_t **ret,
                                                        numafit_error_t *err) {
    unsigned list =
        VIR_CONNECT_LIST_NODE_DEVICES_CAP_PCI_DEV | VIR_CONNECT_LIST_NODE_DEVICES_CAP_NET;
    virNodeDevicePtr *devs = NULL;
    unsigned long version = 0;
    virConnectPtr conn;
    char **xml = NULL;
    size_t *len = NULL, nxml = 0;
    int n, r = 0;

    numafit__error_clear(err);
    if (!ret || flags) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "", NULL, "invalid argument");
        return -EINVAL;
    }
    if (!(conn = virConnectOpenReadOnly(uri)))
        return libvirt_error(err, "virConnectOpenReadOnly");
    virConnSetErrorFunc(conn, NULL, libvirt_quiet);
#if LIBVIR_CHECK_VERSION(6, 9, 0)
    /* nova asks for vDPA devices from libvirt 6.9.0 (MIN_LIBVIRT_VDPA) */
    if (virConnectGetLibVersion(conn, &version) == 0 && version >= 6009000)
        list |= VIR_CONNECT_LIST_NODE_DEVICES_CAP_VDPA;
#endif
    (void)version;
    if ((n = virConnectListAllNodeDevices(conn, &devs, list)) < 0) {
        r = libvirt_error(err, "virConnectListAllNodeDevices");
        goto out;
    }
    xml = numafit__calloc((size_t)n + 1, sizeof(*xml));
    len = numafit__calloc((size_t)n + 1, sizeof(*len));
    if (!xml || !len) {
        r = -ENOMEM;
        goto out;
    }
    for (int i = 0; i < n; i++) {
        char *s = virNodeDeviceGetXMLDesc(devs[i], 0);
        if (!s && virGetLastErrorCode() == VIR_ERR_NO_NODE_DEVICE) {
            virResetLastError(); /* gone since the listing, as nova skips it */
            continue;
        }
        if (!s) {
            r = libvirt_error(err, "virNodeDeviceGetXMLDesc");
            goto out;
        }
        len[nxml] = strlen(s);
        xml[nxml++] = s;
    }
    r = numafit_pci_devices_new_from_nodedev_xml((const char *const *)xml, len, nxml, 0, ret, err);
out:
    if (r == -ENOMEM)
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
    for (size_t i = 0; xml && i < nxml; i++)
        free(xml[i]);
    for (int i = 0; devs && i < n; i++)
        virNodeDeviceFree(devs[i]);
    free(devs);
    numafit__free(xml);
    numafit__free(len);
    virConnectClose(conn);
    return r;
}

#else /* !HAVE_LIBVIRT */

static int not_built(numafit_error_t *err, const char *what) {
    numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "", NULL, "libnumafit was built without %s",
                       what);
    return -ENOTSUP;
}

NUMAFIT_EXPORT int numafit_pci_devices_new_from_nodedev_xml(const char *const *xml,
                                                            const size_t *len, size_t n,
                                                            unsigned flags,
                                                            numafit_pci_devices_t **ret,
                                                            numafit_error_t *err) {
    (void)xml, (void)len, (void)n, (void)flags, (void)ret;
    return not_built(err, "libxml2");
}

NUMAFIT_EXPORT int numafit_pci_devices_new_from_libvirt(const char *uri, unsigned flags,
                                                        numafit_pci_devices_t **ret,
                                                        numafit_error_t *err) {
    (void)uri, (void)flags, (void)ret;
    return not_built(err, "libvirt");
}

#endif
