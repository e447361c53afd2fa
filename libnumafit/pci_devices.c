/*
 * A host's PCI devices as nova's virt driver reports them (the
 * pci_passthrough_devices JSON), before nova.conf's device_spec picks the
 * assignable ones (pci_spec.c). The discovery readers (pci_sysfs.c,
 * pci_nodedev.c) fill the same container.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "jsonio.h"
#include "private.h"

#include <numafit/pci.h>

#include "pci_internal.h"

void numafit__pci_device_clear(struct pci_device *d) {
    free(d->address);
    free(d->vendor_id);
    free(d->product_id);
    free(d->dev_type);
    free(d->parent_addr);
    free(d->parent_ifname);
    free(d->dev_id);
    free(d->label);
    free(d->card_serial);
    free(d->ifname);
    free(d->sriov_vf_device);
    json_decref(d->capabilities);
    memset(d, 0, sizeof(*d));
}

int numafit__pci_device_set_serial(struct pci_device *d, const char *serial) {
    if (!(d->card_serial = numafit__strdup(serial)) ||
        !(d->capabilities = json_pack("{s{ss}}", "vpd", "card_serial_number", serial)))
        return -ENOMEM;
    return 0;
}

NUMAFIT_EXPORT void numafit_pci_devices_free(numafit_pci_devices_t *devs) {
    if (!devs)
        return;
    for (uint32_t i = 0; i < devs->n; i++)
        numafit__pci_device_clear(&devs->d[i]);
    free(devs->d);
    free(devs);
}

int numafit__pci_devices_add(struct numafit_pci_devices *devs, const struct pci_device *dev) {
    struct pci_device *d;
    bool fail = false;
    if (devs->n >= NUMAFIT_PCI_DEVICES_MAX)
        return -ERANGE;
    if (devs->n == devs->cap) {
        uint32_t cap = devs->cap ? devs->cap * 2 : 16;
        void *p = numafit__realloc(devs->d, (size_t)cap * sizeof(*devs->d));
        if (!p)
            return -ENOMEM;
        devs->d = p;
        devs->cap = cap;
    }
    d = &devs->d[devs->n];
    memset(d, 0, sizeof(*d));
    d->address = numafit__pci_dup_or_null(dev->address, &fail);
    d->vendor_id = numafit__pci_dup_or_null(dev->vendor_id, &fail);
    d->product_id = numafit__pci_dup_or_null(dev->product_id, &fail);
    d->dev_type = numafit__pci_dup_or_null(dev->dev_type, &fail);
    d->parent_addr = numafit__pci_dup_or_null(dev->parent_addr, &fail);
    d->parent_ifname = numafit__pci_dup_or_null(dev->parent_ifname, &fail);
    d->dev_id = numafit__pci_dup_or_null(dev->dev_id, &fail);
    d->label = numafit__pci_dup_or_null(dev->label, &fail);
    d->card_serial = numafit__pci_dup_or_null(dev->card_serial, &fail);
    d->ifname = numafit__pci_dup_or_null(dev->ifname, &fail);
    d->sriov_vf_device = numafit__pci_dup_or_null(dev->sriov_vf_device, &fail);
    d->numa_state = dev->numa_state;
    d->numa_node = dev->numa_node;
    d->sriov_totalvfs = dev->sriov_totalvfs;
    if (dev->capabilities && !(d->capabilities = json_deep_copy(dev->capabilities)))
        fail = true;
    if (fail || !d->address || !d->vendor_id || !d->product_id || !d->dev_type) {
        numafit__pci_device_clear(d);
        return -ENOMEM;
    }
    devs->n++;
    return 0;
}

NUMAFIT_EXPORT int numafit_pci_devices_get_count(const numafit_pci_devices_t *devs) {
    return devs ? (int)devs->n : -EINVAL;
}

NUMAFIT_EXPORT int numafit_pci_devices_get(const numafit_pci_devices_t *devs, unsigned index,
                                           const char **address, const char **vendor_id,
                                           const char **product_id, const char **dev_type,
                                           int *numa_known, int64_t *numa_node,
                                           const char **parent_addr) {
    const struct pci_device *d;
    if (!devs || index >= devs->n)
        return -EINVAL;
    d = &devs->d[index];
    if (address)
        *address = d->address;
    if (vendor_id)
        *vendor_id = d->vendor_id;
    if (product_id)
        *product_id = d->product_id;
    if (dev_type)
        *dev_type = d->dev_type;
    if (numa_known)
        *numa_known = d->numa_state == NUMA_SET;
    if (numa_node)
        *numa_node = d->numa_state == NUMA_SET ? d->numa_node : -1;
    if (parent_addr)
        *parent_addr = d->parent_addr;
    return 0;
}

/* ------------------------------------------------------------ addresses */

/* n hexadecimal digits at s (exactly, either case), into *v. */
static bool hex_field(const char *s, size_t n, uint32_t *v) {
    uint32_t x = 0;
    for (size_t i = 0; i < n; i++) {
        int d = s[i] >= '0' && s[i] <= '9'   ? s[i] - '0'
                : s[i] >= 'a' && s[i] <= 'f' ? s[i] - 'a' + 10
                : s[i] >= 'A' && s[i] <= 'F' ? s[i] - 'A' + 10
                                             : -1;
        if (d < 0)
            return false;
        x = x << 4 | (uint32_t)d;
    }
    *v = x;
    return true;
}

bool numafit__pci_addr_fields(const char *s, size_t len, uint32_t v[4]) {
    size_t nd = len >= 11 ? len - 8 : 0; /* the domain's digits */
    return nd >= 4 && nd <= 8 && s[nd] == ':' && s[nd + 3] == ':' && s[nd + 6] == '.' &&
           hex_field(s, nd, &v[0]) && hex_field(s + nd + 1, 2, &v[1]) &&
           hex_field(s + nd + 4, 2, &v[2]) && hex_field(s + nd + 7, 1, &v[3]);
}

/* ------------------------------------------------------------ reading */

static const char *const dev_types[] = {"type-PCI", "type-PF", "type-VF", "vdpa", NULL};

static const char *const dev_fields[] = {
    "address",     "vendor_id",      "product_id",      "dev_type",        "numa_node",
    "parent_addr", "parent_ifname",  "dev_id",          "label",           "capabilities",
    "ifname",      "sriov_totalvfs", "sriov_vf_device", "compute_node_id", NULL};

/* A string member: required or optional (null or absent: *ret NULL). */
static int dev_str(struct numafit__jpath *p, const json_t *o, const char *key, bool required,
                   char **ret) {
    json_t *v = json_object_get(o, key);
    size_t old = numafit__jp_push(p, key);
    int r;
    *ret = NULL;
    if (!v && required)
        return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "\"%s\" is required", key);
    if (!v || json_is_null(v)) {
        if (required)
            return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "must be a string, not null");
        numafit__jp_pop(p, old);
        return 0;
    }
    if (!json_is_string(v))
        return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "must be a string, not %s",
                                numafit__json_type_name(v));
    if ((r = numafit__pci_read_str(p, v, false, ret)) < 0)
        return r;
    numafit__jp_pop(p, old);
    return 0;
}

static int read_device(struct numafit__jpath *p, json_t *o, void *elem) {
    struct pci_device *d = elem;
    const char *key;
    json_t *v;
    uint32_t f[4];
    size_t old;
    int r;
    if (!json_is_object(o))
        return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "a device must be an object, not %s",
                                numafit__json_type_name(o));
    json_object_foreach(o, key, v) {
        unsigned k;
        for (k = 0; dev_fields[k] && strcmp(dev_fields[k], key); k++)
            ;
        if (!dev_fields[k]) {
            numafit__jp_push(p, key);
            return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "not a member of a PCI device");
        }
    }
    d->sriov_totalvfs = -1;
    if ((r = dev_str(p, o, "address", true, &d->address)) < 0 ||
        (r = dev_str(p, o, "vendor_id", true, &d->vendor_id)) < 0 ||
        (r = dev_str(p, o, "product_id", true, &d->product_id)) < 0 ||
        (r = dev_str(p, o, "dev_type", true, &d->dev_type)) < 0 ||
        (r = dev_str(p, o, "parent_addr", false, &d->parent_addr)) < 0 ||
        (r = dev_str(p, o, "parent_ifname", false, &d->parent_ifname)) < 0 ||
        (r = dev_str(p, o, "dev_id", false, &d->dev_id)) < 0 ||
        (r = dev_str(p, o, "label", false, &d->label)) < 0 ||
        (r = dev_str(p, o, "ifname", false, &d->ifname)) < 0 ||
        (r = dev_str(p, o, "sriov_vf_device", false, &d->sriov_vf_device)) < 0)
        return r;
    if (!numafit__pci_addr_fields(d->address, strlen(d->address), f)) {
        numafit__jp_push(p, "address");
        return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA,
                                "\"%.40s\" is not a PCI address (DOMAIN:BUS:SLOT.FUNCTION)",
                                d->address);
    }
    if (d->parent_addr && !numafit__pci_addr_fields(d->parent_addr, strlen(d->parent_addr), f)) {
        numafit__jp_push(p, "parent_addr");
        return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA,
                                "\"%.40s\" is not a PCI address (DOMAIN:BUS:SLOT.FUNCTION)",
                                d->parent_addr);
    }
    for (unsigned k = 1; k < 3; k++) {
        const char *id = k == 1 ? d->vendor_id : d->product_id;
        if (strlen(id) != 4 || !hex_field(id, 4, &f[0])) {
            numafit__jp_push(p, dev_fields[k]);
            return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA,
                                    "\"%.40s\" is not four hexadecimal digits", id);
        }
    }
    {
        unsigned k;
        for (k = 0; dev_types[k] && strcmp(dev_types[k], d->dev_type); k++)
            ;
        if (!dev_types[k]) {
            numafit__jp_push(p, "dev_type");
            return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA,
                                    "\"%.40s\" is not type-PCI, type-PF, type-VF or vdpa",
                                    d->dev_type);
        }
    }
    old = numafit__jp_push(p, "numa_node");
    v = json_object_get(o, "numa_node");
    d->numa_state = NUMA_NULL;
    if (v && !json_is_null(v)) {
        if (!json_is_integer(v))
            return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA,
                                    "must be an integer or null, not %s",
                                    numafit__json_type_name(v));
        if (json_integer_value(v) < INT32_MIN || json_integer_value(v) > INT32_MAX)
            return numafit__jp_fail(p, -ERANGE, NUMAFIT_E_RANGE, "outside the 32-bit integers");
        d->numa_state = NUMA_SET;
        d->numa_node = json_integer_value(v);
    }
    numafit__jp_pop(p, old);
    old = numafit__jp_push(p, "sriov_totalvfs");
    v = json_object_get(o, "sriov_totalvfs");
    if (v && !json_is_null(v)) {
        uint64_t u;
        if (numafit__json_uint(v, INT32_MAX, &u) != NUMAFIT__JU_OK)
            return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "must be an integer from 0 to %d",
                                    INT32_MAX);
        d->sriov_totalvfs = (int64_t)u;
    }
    numafit__jp_pop(p, old);
    old = numafit__jp_push(p, "capabilities");
    v = json_object_get(o, "capabilities");
    if (v && !json_is_null(v)) {
        json_t *sn;
        if (!json_is_object(v))
            return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "must be an object, not %s",
                                    numafit__json_type_name(v));
        d->capabilities = json_incref(v);
        sn = json_object_get(json_object_get(v, "vpd"), "card_serial_number");
        if (json_is_string(sn)) {
            numafit__jp_push(p, "vpd");
            numafit__jp_push(p, "card_serial_number");
            if ((r = numafit__pci_read_str(p, sn, false, &d->card_serial)) < 0)
                return r;
        }
    }
    numafit__jp_pop(p, old);
    return 0;
}

static int cmp_address(const void *a, const void *b) {
    const struct pci_device *const *x = a, *const *y = b;
    return strcasecmp((*x)->address, (*y)->address);
}

/* Each address once (sorted copies of the pointers: n log n). */
static int check_unique(struct numafit__jpath *p, const numafit_pci_devices_t *devs) {
    const struct pci_device **s;
    int r = 0;
    if (devs->n < 2)
        return 0;
    if (!(s = numafit__malloc(devs->n * sizeof(*s))))
        return numafit__jp_nomem(p);
    for (uint32_t i = 0; i < devs->n; i++)
        s[i] = &devs->d[i];
    qsort(s, devs->n, sizeof(*s), cmp_address);
    for (uint32_t i = 1; i < devs->n && !r; i++)
        if (!strcasecmp(s[i]->address, s[i - 1]->address)) {
            numafit__jp_index(p, (size_t)(s[i] - devs->d));
            numafit__jp_push(p, "address");
            r = numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "%s is also device %zu's address",
                                 s[i]->address, (size_t)(s[i - 1] - devs->d));
        }
    free(s);
    return r;
}

NUMAFIT_EXPORT int numafit_pci_devices_new_from_json(const char *buf, size_t len, unsigned flags,
                                                     numafit_pci_devices_t **ret,
                                                     numafit_error_t *err) {
    struct numafit__jpath p;
    numafit_pci_devices_t *devs = NULL;
    json_t *doc = NULL;
    int r;

    numafit__error_clear(err);
    if (!buf || !ret || flags) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL,
                           flags ? "unknown flag bits" : "a JSON text and ret are required");
        return -EINVAL;
    }
    if ((r = numafit__pci_parse_doc("PCI devices", buf, len, &doc, err)) < 0)
        return r;
    numafit__jp_init(&p, err);
    if (!json_is_array(doc)) {
        r = numafit__jp_fail(&p, -EINVAL, NUMAFIT_E_SCHEMA,
                             "PCI devices must be a list of device objects, not %s",
                             numafit__json_type_name(doc));
        goto out;
    }
    devs = numafit__calloc(1, sizeof(*devs));
    if (!devs) {
        r = numafit__jp_nomem(&p);
        goto out;
    }
    r = numafit__pci_read_array(&p, doc, NUMAFIT_PCI_DEVICES_MAX, "devices", sizeof(*devs->d),
                                read_device, (void **)&devs->d, &devs->n);
    devs->cap = devs->n;
    if (r < 0)
        goto out;
    if ((r = check_unique(&p, devs)) < 0)
        goto out;
    *ret = devs;
    devs = NULL;
out:
    numafit_pci_devices_free(devs);
    json_decref(doc);
    return r;
}

/* ------------------------------------------------------------ writing */

NUMAFIT_EXPORT int numafit_pci_devices_to_json(const numafit_pci_devices_t *devs, unsigned flags,
                                               char **ret, numafit_error_t *err) {
    json_t *list = json_array();
    bool fail = !list;
    numafit__error_clear(err);
    if (!devs || !ret || (flags & ~(unsigned)NUMAFIT_JSON_INDENT)) {
        json_decref(list);
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL, "invalid argument");
        return -EINVAL;
    }
    for (uint32_t i = 0; !fail && i < devs->n; i++) {
        const struct pci_device *d = &devs->d[i];
        json_t *o = json_object();
        bool bad = !o || numafit__json_put(o, "address", json_string(d->address)) < 0 ||
                   numafit__json_put(o, "vendor_id", json_string(d->vendor_id)) < 0 ||
                   numafit__json_put(o, "product_id", json_string(d->product_id)) < 0 ||
                   numafit__json_put(o, "dev_type", json_string(d->dev_type)) < 0 ||
                   numafit__json_put(o, "numa_node",
                                     d->numa_state == NUMA_SET ? json_integer(d->numa_node)
                                                               : json_null()) < 0 ||
                   (d->dev_id && numafit__json_put(o, "dev_id", json_string(d->dev_id)) < 0) ||
                   (d->label && numafit__json_put(o, "label", json_string(d->label)) < 0) ||
                   (d->parent_addr &&
                    numafit__json_put(o, "parent_addr", json_string(d->parent_addr)) < 0) ||
                   (d->parent_ifname &&
                    numafit__json_put(o, "parent_ifname", json_string(d->parent_ifname)) < 0) ||
                   (d->capabilities &&
                    numafit__json_put(o, "capabilities", json_deep_copy(d->capabilities)) < 0) ||
                   (d->ifname && numafit__json_put(o, "ifname", json_string(d->ifname)) < 0) ||
                   (d->sriov_totalvfs >= 0 &&
                    numafit__json_put(o, "sriov_totalvfs", json_integer(d->sriov_totalvfs)) < 0) ||
                   (d->sriov_vf_device &&
                    numafit__json_put(o, "sriov_vf_device", json_string(d->sriov_vf_device)) < 0);
        if (bad)
            json_decref(o);
        fail = bad || json_array_append_new(list, o) < 0;
    }
    if (fail) {
        json_decref(list);
        list = NULL;
    }
    return numafit__json_emit(list, flags, ret, err);
}
