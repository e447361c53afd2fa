/*
 * The <hostdev> elements nova's libvirt driver writes for the PCI devices
 * of an instance's flavor aliases (_guest_add_pci_devices,
 * _get_guest_pci_device): one per device, mode subsystem, type pci,
 * managed yes (kvm and qemu), the device's address as its source with each
 * field written in hexadecimal with 0x. A neutron port's device, when the
 * caller adds the port's vnic_type (and mac, vlan) to it, is the element
 * nova's VIF driver writes for the port (LibvirtGenericVIFDriver,
 * designer.py, config.py's LibvirtConfigGuestInterface):
 *  - `direct`: <interface type="hostdev" managed="yes"> (get_config_hw_veb:
 *    the MAC, the VF's address, the VLAN, the flavor's <bandwidth>);
 *  - `macvtap`: <interface type="direct"> on the VF's network interface in
 *    passthrough mode (get_config_hw_veb with get_base_config: the model of
 *    the image or virtio, the vhost driver with the multiqueue queues and
 *    [libvirt] rx_queue_size, the VLAN, the <bandwidth>);
 *  - `direct-physical`: a <hostdev> (get_config_hostdev_physical);
 *  - ports Open vSwitch binds (vif_type ovs), written through os-vif as a
 *    VIFHostDevice, with the MAC only of the base config: `vdpa` as
 *    <interface type="vdpa"> on the VF's vhost-vdpa device (the caller's
 *    dev_path: nova asks libvirt for the vdpa node device of the VF),
 *    `remote-managed` and a hardware-offloaded `direct` port as
 *    <interface type="hostdev" managed="yes"> without VLAN or bandwidth;
 *  - `virtio-forwarder` (vif_type vhostuser, through os-vif as a
 *    VIFVHostUser): <interface type="vhostuser"> on the unix socket of the
 *    port's binding, with the base config's model and queues and [libvirt]
 *    rx/tx_queue_size; the VF is the forwarder's, not the guest's.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <numafit/domain.h>

#include "flavor.h"
#include "json_count.h"
#include "pci_internal.h"
#include "private.h"

/* A growing text; oom set on the first failed allocation. */
struct out {
    char *b;
    size_t len, cap;
    bool oom;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...) {
    va_list ap;
    int n;
    if (o->oom)
        return;
    for (;;) {
        va_start(ap, fmt);
        n = vsnprintf(o->b ? o->b + o->len : NULL, o->b ? o->cap - o->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            o->oom = true;
            return;
        }
        if (o->b && o->len + (size_t)n < o->cap) {
            o->len += (size_t)n;
            return;
        }
        {
            size_t cap = o->cap ? o->cap : 1024;
            char *nb;
            while (cap < o->len + (size_t)n + 1)
                cap *= 2;
            if (!(nb = numafit__realloc(o->b, cap))) {
                o->oom = true;
                return;
            }
            o->b = nb;
            o->cap = cap;
        }
    }
}

/* s with the five XML specials escaped (s is short and checked). */
static void put_esc(struct out *o, const char *s) {
    for (; *s; s++) {
        switch (*s) {
            case '&':
                put(o, "&amp;");
                break;
            case '<':
                put(o, "&lt;");
                break;
            case '>':
                put(o, "&gt;");
                break;
            case '"':
                put(o, "&quot;");
                break;
            case '\'':
                put(o, "&apos;");
                break;
            default:
                put(o, "%c", *s);
        }
    }
}

/* A MAC address as libvirt takes it: six pairs of hexadecimal digits. */
static bool mac_ok(const char *m) {
    if (strlen(m) != 17)
        return false;
    for (int i = 0; i < 17; i++) {
        char c = m[i];
        if (i % 3 == 2 ? c != ':' : !isxdigit((unsigned char)c))
            return false;
    }
    return true;
}

/* A network interface name as Linux takes it (dev_valid_name): 1 to 15
 * bytes, not "." or "..", no '/', ':' or white space; no control bytes. */
static bool ifname_ok(const char *s) {
    size_t n = strlen(s);
    if (!n || n > 15 || !strcmp(s, ".") || !strcmp(s, ".."))
        return false;
    for (; *s; s++)
        if (*s == '/' || *s == ':' || isspace((unsigned char)*s) || iscntrl((unsigned char)*s))
            return false;
    return true;
}

/* A character device path as the claim may give it for a vdpa port: an
 * absolute path of at most 255 bytes without control bytes. */
static bool dev_path_ok(const char *s) {
    size_t n = strlen(s);
    if (n < 2 || n > 255 || s[0] != '/')
        return false;
    for (; *s; s++)
        if (iscntrl((unsigned char)*s))
            return false;
    return true;
}

/* The VIF models nova knows (network/model.py VIF_MODEL_ALL) and those its
 * libvirt driver allows for kvm and qemu (vif.py SUPPORTED_VIF_MODELS). */
static const char *const vif_models[] = {"virtio",  "ne2k_pci", "pcnet",    "rtl8139",
                                         "e1000",   "e1000e",   "netfront", "spapr-vlan",
                                         "lan9118", "sriov",    "vmxnet",   "vmxnet3"};
static bool vif_model_allowed(const char *m, bool qemu) {
    static const char *const kvm[] = {"virtio", "ne2k_pci", "pcnet",      "rtl8139",
                                      "e1000",  "e1000e",   "spapr-vlan", "vmxnet3"};
    if (qemu && !strcmp(m, "lan9118"))
        return true;
    for (size_t i = 0; i < sizeof(kvm) / sizeof(kvm[0]); i++)
        if (!strcmp(m, kvm[i]))
            return true;
    return false;
}

/* What the claim says of the instance and the compute node, for the
 * ports' interfaces. */
struct vif {
    const json_t *flavor;         /* the flavor, or NULL */
    const json_t *props;          /* the image's properties, or NULL */
    bool qemu;                    /* virt_type qemu (else kvm) */
    long long rx, tx, max_queues; /* [libvirt] rx/tx_queue_size, max_queues; 0: unset */
    bool have_bw;                 /* bw worked out */
    char *bw;                     /* the flavor's <bandwidth> at depth 1, "" for none */
    bool have_model;              /* the macvtap settings below worked out */
    char model[64];               /* "" for none */
    long long queues;             /* 0: none */
    bool rx_on;                   /* rx_queue_size on the driver */
};

static int fail(numafit_error_t *err, int code, const char *where, const char *exc, int rc,
                const char *text) {
    numafit__error_set(err, code, -1, where, exc, "%s", text);
    return rc;
}

/* An optional integer key of the claim: null/absent 0, else one of ok. */
static int read_int(const json_t *doc, const char *key, long long lo, long long hi, bool pow2,
                    long long *ret, numafit_error_t *err) {
    const json_t *v = json_object_get(doc, key);
    long long x;
    *ret = 0;
    if (!v || json_is_null(v))
        return 0;
    x = json_is_integer(v) ? (long long)json_integer_value(v) : -1;
    if (!json_is_integer(v) || x < lo || x > hi || (pow2 && (x & (x - 1)))) {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, key, NULL,
                           pow2 ? "%s is 256, 512 or 1024, or null"
                                : "%s is an integer from "
                                  "%lld, or null",
                           key, lo);
        return -EINVAL;
    }
    *ret = x;
    return 0;
}

static int vif_model(struct vif *f, numafit_error_t *err);

/* The claim's instance and compute node settings (an object claim only). */
static int read_vif(const json_t *doc, struct vif *f, numafit_error_t *err) {
    const json_t *v;
    int rc;
    memset(f, 0, sizeof(*f));
    if (!json_is_object(doc))
        return 0;
    if ((v = json_object_get(doc, "virt_type")) && !json_is_null(v)) {
        const char *t = json_string_value(v);
        if (!t || (strcmp(t, "kvm") != 0 && strcmp(t, "qemu") != 0))
            return fail(err, NUMAFIT_E_SCHEMA, "virt_type", NULL, -EINVAL,
                        "virt_type is \"kvm\" or \"qemu\" (nova's hostdevs are managed there)");
        f->qemu = !strcmp(t, "qemu");
    }
    if ((v = json_object_get(doc, "flavor")) && !json_is_null(v)) {
        if (!json_is_object(v))
            return fail(err, NUMAFIT_E_SCHEMA, "flavor", NULL, -EINVAL,
                        "flavor is the instance's flavor (an object), or null");
        f->flavor = v;
    }
    if ((v = json_object_get(doc, "image")) && !json_is_null(v)) {
        if (!json_is_object(v))
            return fail(err, NUMAFIT_E_SCHEMA, "image", NULL, -EINVAL,
                        "image is the instance's image (an object), or null");
        if ((rc = numafit__image_props(v, NUMAFIT__FLAVOR_DOMAIN, &f->props, err)) < 0)
            return rc;
    }
    /* nova cannot build the image's metadata with an unknown VIF model:
     * refused whatever the claim holds */
    if ((rc = vif_model(f, err)) < 0)
        return rc;
    /* nova.conf [libvirt] rx_queue_size (256, 512, 1024), max_queues (>= 1) */
    if ((rc = read_int(doc, "rx_queue_size", 256, 1024, true, &f->rx, err)) < 0 ||
        (rc = read_int(doc, "tx_queue_size", 256, 1024, true, &f->tx, err)) < 0 ||
        (rc = read_int(doc, "max_queues", 1, 1LL << 31, false, &f->max_queues, err)) < 0)
        return rc;
    return 0;
}

/* The flavor's <bandwidth> (set_vif_bandwidth_config), once. */
static int vif_bandwidth(struct vif *f, numafit_error_t *err) {
    int rc;
    if (f->have_bw)
        return 0;
    if (!f->flavor) {
        f->bw = numafit__malloc(1);
        if (!f->bw)
            return fail(err, NUMAFIT_E_NOMEM, NULL, NULL, -ENOMEM, "out of memory");
        f->bw[0] = '\0';
    } else if ((rc = numafit__domain_vif_bandwidth(f->flavor, 0, 1, &f->bw, err)) < 0) {
        return rc;
    }
    f->have_bw = true;
    return 0;
}

/* The image's hw_vif_model as nova's ImageMeta coerces it (VIFModel:
 * lower case, the legacy names, one of nova's models) into f->model ("" when
 * the image has none); ValueError for another value. */
static int vif_model(struct vif *f, numafit_error_t *err) {
    static const char *const legacy[][2] = {
        {"virtuale1000", "e1000"},   {"virtuale1000e", "e1000e"},
        {"virtualpcnet32", "pcnet"}, {"virtualsriovethernetcard", "sriov"},
        {"virtualvmxnet", "vmxnet"}, {"virtualvmxnet3", "vmxnet3"}};
    const char *m = NULL;
    char buf[64], low[64];
    size_t i, n;
    bool known = false;
    int rc;
    f->model[0] = '\0';
    if ((rc = numafit__image_str(f->props, "hw_vif_model", buf, sizeof(buf), &m, err)) < 0)
        return rc;
    if (!m)
        return 0;
    n = strlen(m);
    if (n < sizeof(low)) {
        for (i = 0; i <= n; i++)
            low[i] = (char)tolower((unsigned char)m[i]);
        for (i = 0; i < sizeof(legacy) / sizeof(legacy[0]); i++)
            if (!strcmp(low, legacy[i][0]))
                snprintf(low, sizeof(low), "%s", legacy[i][1]);
        for (i = 0; i < sizeof(vif_models) / sizeof(vif_models[0]) && !known; i++)
            known = !strcmp(low, vif_models[i]);
    }
    if (!known)
        return fail(err, NUMAFIT_E_SCHEMA, "image/properties/hw_vif_model", "ValueError", -EINVAL,
                    "hw_vif_model is not one of nova's VIF models");
    snprintf(f->model, sizeof(f->model), "%s", low);
    return 0;
}

/* get_base_config for a macvtap or vhost-user port: the model (the image's, else virtio),
 * which nova's libvirt driver must allow for the virt type, the
 * multiqueue queues (kvm and virtio), and [libvirt] rx_queue_size; once. */
static int vif_base(struct vif *f, numafit_error_t *err) {
    int rc;
    if (f->have_model)
        return 0;
    if ((rc = vif_model(f, err)) < 0)
        return rc;
    if (!f->model[0]) /* [libvirt] use_virtio_for_bridges (true) with kvm and qemu */
        snprintf(f->model, sizeof(f->model), "virtio");
    else if (!vif_model_allowed(f->model, f->qemu))
        return fail(err, NUMAFIT_E_REQUEST, "image/properties/hw_vif_model", "UnsupportedHardware",
                    -EINVAL, "this VIF model is not supported by nova's libvirt driver here");
    if (!strcmp(f->model, "virtio") && !f->qemu) {
        /* hardware.get_vif_multiqueue_constraint */
        long long vcpus = 0;
        const json_t *vc = f->flavor ? json_object_get(f->flavor, "vcpus") : NULL;
        if (vc && json_is_integer(vc))
            vcpus = (long long)json_integer_value(vc);
        if (vcpus >= 2) {
            const json_t *specs = NULL, *fv;
            const char *fs = NULL;
            char sbuf[32];
            int iv = -1, fb = -1;
            if ((rc = numafit__flavor_specs(f->flavor, NUMAFIT__FLAVOR_DOMAIN, &specs, err)) < 0)
                return rc;
            if (specs && (fv = json_object_get(specs, "hw:vif_multiqueue_enabled"))) {
                if ((rc = numafit__spec_value(fv, "hw:vif_multiqueue_enabled", sbuf, sizeof(sbuf),
                                              &fs, err)) < 0)
                    return rc;
                fb = numafit__py_bool(fs);
            }
            if ((rc = numafit__image_bool(f->props, "hw_vif_multiqueue_enabled", &iv, err)) < 0)
                return rc;
            if (fb >= 0 && iv >= 0 && fb != iv)
                return fail(err, NUMAFIT_E_REQUEST, "hw:vif_multiqueue_enabled",
                            "FlavorImageConflict", -EINVAL,
                            "the flavor's hw:vif_multiqueue_enabled and the image's "
                            "hw_vif_multiqueue_enabled differ");
            if (fb == 1 || iv == 1)
                f->queues = f->max_queues && vcpus > f->max_queues ? f->max_queues : vcpus;
        }
    }
    /* nova hands the rx_queue_size to the frontend whatever the model and
     * virt type, and the vhost driver name makes libvirt write it */
    f->rx_on = f->rx != 0;
    f->have_model = true;
    return 0;
}

/* A port's VLAN (vif details "vlan"): an integer (0 to 4095) or the
 * decimal string neutron writes (at most 4 digits, 4095 at most); written
 * as nova writes it (str() of it) when it is true in Python: a non-zero
 * integer, a non-empty string ("0" too). out[0] is '\0' for none. */
static int read_vlan(const json_t *vl, size_t i, char out[8], numafit_error_t *err) {
    out[0] = '\0';
    if (!vl || json_is_null(vl))
        return 0;
    if (json_is_integer(vl)) {
        json_int_t x = json_integer_value(vl);
        if (x >= 0 && x <= 4095) {
            if (x)
                snprintf(out, 8, "%d", (int)x);
            return 0;
        }
    } else if (json_is_string(vl)) {
        const char *s = json_string_value(vl);
        size_t n = strlen(s);
        long x = 0;
        for (size_t k = 0; k < n && k < 5; k++)
            x = isdigit((unsigned char)s[k]) ? x * 10 + (s[k] - '0') : 99999;
        if (n <= 4 && x <= 4095) {
            memcpy(out, s, n + 1);
            return 0;
        }
    }
    numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, NULL, NULL,
                       "a VLAN is an integer from 0 to 4095 (or such a decimal string), or null");
    snprintf(err->where, sizeof(err->where), "devices/%zu/vlan", i);
    return -EINVAL;
}

static int device_error(numafit_error_t *err, size_t i, const char *field, const char *text) {
    numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, NULL, NULL, "%s", text);
    snprintf(err->where, sizeof(err->where), "devices/%zu/%s", i, field);
    return -EINVAL;
}

/* A port's "vif_type", the binding neutron gave it (absent or null: the
 * usual one of its vnic type): "hw_veb" (the SR-IOV agent: direct,
 * macvtap), "hostdev_physical" (direct-physical), "vhostuser"
 * (virtio-forwarder), "ovs" (Open vSwitch: vdpa, remote-managed, and a
 * direct port of hardware offload, which nova writes through os-vif without
 * VLAN or bandwidth). *ovs: the last. */
static int read_vif_type(const json_t *dev, size_t i, const char *vnic, bool *ovs,
                         numafit_error_t *err) {
    const json_t *t = json_object_get(dev, "vif_type");
    const char *s = json_string_value(t);
    bool veb = !strcmp(vnic, "direct") || !strcmp(vnic, "macvtap"),
         phys = !strcmp(vnic, "direct-physical"), vhu = !strcmp(vnic, "virtio-forwarder");
    *ovs = !veb && !phys && !vhu;
    if (!t || json_is_null(t))
        return 0;
    if (s && !strcmp(s, "ovs") && (*ovs || !strcmp(vnic, "direct"))) {
        *ovs = true;
        return 0;
    }
    if (s && ((veb && !strcmp(s, "hw_veb")) || (phys && !strcmp(s, "hostdev_physical")) ||
              (vhu && !strcmp(s, "vhostuser"))))
        return 0;
    return device_error(err, i, "vif_type",
                        "a port's vif_type must match its vnic_type: hw_veb (direct, macvtap), "
                        "ovs (direct, vdpa, remote-managed), hostdev_physical "
                        "(direct-physical) or vhostuser (virtio-forwarder)");
}

/* A virtio-forwarder port's vhost-user settings, as os-vif's VIFVHostUser
 * takes them from the binding's details: the socket ("vhostuser_socket",
 * required: VifDetailsMissingVhostuserSockPath), the mode
 * ("vhostuser_mode": "client" or "server", the default) and the tap name:
 * "vhu" and the port's id when Open vSwitch plugs it ("vhostuser_ovs_plug",
 * true by default, as the forwarders bind it), else the port's "devname" or
 * "nic" and its id, at most 14 bytes. */
struct vhu {
    const char *path, *mode;
    char tap[16];
};
static int read_vhostuser(const json_t *dev, size_t i, const char *port, struct vhu *u,
                          numafit_error_t *err) {
    const json_t *p = json_object_get(dev, "vhostuser_socket"),
                 *m = json_object_get(dev, "vhostuser_mode"),
                 *o = json_object_get(dev, "vhostuser_ovs_plug"),
                 *d = json_object_get(dev, "devname");
    const char *dn = json_string_value(d);
    if (!p || json_is_null(p) || (json_is_string(p) && !json_string_length(p))) {
        numafit__error_set(err, NUMAFIT_E_REQUEST, -1, NULL, "VifDetailsMissingVhostuserSockPath",
                           "a virtio-forwarder port's binding has no vhost-user socket path");
        snprintf(err->where, sizeof(err->where), "devices/%zu/vhostuser_socket", i);
        return -EINVAL;
    }
    u->path = json_string_value(p);
    if (!u->path || !dev_path_ok(u->path))
        return device_error(err, i, "vhostuser_socket",
                            "a vhost-user socket is an absolute path of at most 255 bytes");
    u->mode = "server";
    if (m && !json_is_null(m)) {
        u->mode = json_string_value(m);
        if (!u->mode || (strcmp(u->mode, "client") != 0 && strcmp(u->mode, "server") != 0))
            return device_error(err, i, "vhostuser_mode",
                                "a vhost-user mode is \"client\" or \"server\"");
    }
    if (o && !json_is_null(o) && !json_is_boolean(o))
        return device_error(err, i, "vhostuser_ovs_plug", "vhostuser_ovs_plug is true or false");
    if (d && !json_is_null(d) && (!dn || !ifname_ok(dn)))
        return device_error(err, i, "devname",
                            "a port's devname is a network interface name (1 to 15 bytes, no "
                            "'/', ':' or space)");
    if (!port || !*port)
        return device_error(err, i, "requester_id",
                            "a virtio-forwarder port's requester_id is its port id (its tap's "
                            "name is made of it)");
    if (!o || json_is_null(o) || json_is_true(o))
        snprintf(u->tap, sizeof(u->tap), "vhu%.11s", port);
    else if (dn)
        snprintf(u->tap, sizeof(u->tap), "%.15s", dn);
    else
        snprintf(u->tap, sizeof(u->tap), "nic%.11s", port);
    for (const char *c = u->tap; *c; c++)
        if ((unsigned char)*c >= 0x80)
            return device_error(err, i, "requester_id",
                                "the tap of a virtio-forwarder port, made of its port id, is "
                                "not an ASCII network interface name");
    if (!ifname_ok(u->tap))
        return device_error(err, i, "requester_id",
                            "the tap of a virtio-forwarder port, made of its port id, is not a "
                            "network interface name (no '/', ':' or space)");
    return 0;
}

NUMAFIT_EXPORT int numafit_domain_hostdev_xml(const char *claim_json, size_t len, unsigned flags,
                                              char **ret_xml, numafit_error_t *err) {
    json_t *doc, *list, *v;
    json_error_t je;
    struct out o = {NULL, 0, 0, false};
    struct vif f;
    size_t i;
    int written = 0, r;

    numafit__error_clear(err);
    if (!claim_json || !ret_xml || flags) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL,
                           flags ? "unknown flag bits" : "a claim and ret_xml are required");
        return -EINVAL;
    }
    *ret_xml = NULL;
    if (len > NUMAFIT_INPUT_MAX) {
        numafit__error_set(err, NUMAFIT_E_RANGE, -1, NULL, NULL,
                           "the claim is larger than %u bytes", NUMAFIT_INPUT_MAX);
        return -ERANGE;
    }
    doc = numafit__json_loadb(claim_json, len, JSON_REJECT_DUPLICATES, &je);
    if (!doc) {
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, NULL, NULL, "the claim: %s", je.text);
        return -EBADMSG;
    }
    memset(&f, 0, sizeof(f));
    list = json_is_object(doc) ? json_object_get(doc, "devices") : doc;
    if (!json_is_array(list)) {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "devices", NULL,
                           "a claim ({\"devices\": [...]}) or a list of devices is required");
        r = -EINVAL;
        goto out;
    }
    if ((r = read_vif(doc, &f, err)) < 0)
        goto out;
    put(&o, "%s", "");
    json_array_foreach(list, i, v) {
        const char *a = json_string_value(json_object_get(v, "address"));
        json_t *req = json_object_get(v, "requester_id");
        uint32_t fl[4];
        if (!a || !numafit__pci_addr_fields(a, strlen(a), fl)) {
            r = device_error(err, i, "address",
                             "a device needs an address DOMAIN:BUS:SLOT.FUNCTION");
            goto out;
        }
        if (req && !json_is_null(req)) {
            /* a neutron port's: its VIF driver's element, when the caller
             * says which port it is */
            const char *vnic = json_string_value(json_object_get(v, "vnic_type"));
            const char *mac = json_string_value(json_object_get(v, "mac"));
            bool direct = vnic && !strcmp(vnic, "direct"),
                 macvtap = vnic && !strcmp(vnic, "macvtap"), vdpa = vnic && !strcmp(vnic, "vdpa"),
                 remote = vnic && !strcmp(vnic, "remote-managed"),
                 vhu = vnic && !strcmp(vnic, "virtio-forwarder");
            char vlan[8];
            bool ovs;
            if (!vnic || (!direct && !macvtap && !vdpa && !remote && !vhu &&
                          strcmp(vnic, "direct-physical") != 0))
                continue;
            if ((r = read_vif_type(v, i, vnic, &ovs, err)) < 0)
                goto out;
            if (direct || macvtap || vdpa || remote || vhu) {
                /* the SR-IOV agent's ports get the VLAN and the bandwidth;
                 * those Open vSwitch binds are os-vif's VIFHostDevice (nova's
                 * _get_config_os_vif): the MAC only of the base config */
                bool veb = macvtap || (direct && !ovs);
                const char *ifname = NULL, *path = NULL;
                struct vhu u;
                char why[96];
                if (!mac || !mac_ok(mac)) {
                    snprintf(why, sizeof(why),
                             "a %s port's device needs its MAC address (xx:xx:xx:xx:xx:xx)", vnic);
                    r = device_error(err, i, "mac", why);
                    goto out;
                }
                if (veb && (r = read_vlan(json_object_get(v, "vlan"), i, vlan, err)) < 0)
                    goto out;
                if (macvtap) {
                    ifname = json_string_value(json_object_get(v, "ifname"));
                    if (!ifname || !ifname_ok(ifname)) {
                        r = device_error(err, i, "ifname",
                                         "a macvtap port's device needs the VF's network "
                                         "interface name (1 to 15 bytes, no '/', ':' or space)");
                        goto out;
                    }
                    if ((r = vif_base(&f, err)) < 0)
                        goto out;
                }
                if (vhu) {
                    /* os-vif's conversion (the socket) comes before the
                     * base config (the model) */
                    if ((r = read_vhostuser(v, i, json_string_value(req), &u, err)) < 0 ||
                        (r = vif_base(&f, err)) < 0)
                        goto out;
                }
                if (vdpa) {
                    path = json_string_value(json_object_get(v, "dev_path"));
                    if (!path || !dev_path_ok(path)) {
                        r = device_error(err, i, "dev_path",
                                         "a vdpa port's device needs the vhost-vdpa character "
                                         "device of the VF (an absolute path of at most 255 "
                                         "bytes, such as /dev/vhost-vdpa-0)");
                        goto out;
                    }
                }
                if (veb && (r = vif_bandwidth(&f, err)) < 0)
                    goto out;
                if (direct || remote) {
                    put(&o,
                        "<interface type=\"hostdev\" managed=\"yes\">\n"
                        "  <mac address=\"%s\"/>\n"
                        "  <source>\n"
                        "    <address type=\"pci\" domain=\"0x%04x\" bus=\"0x%02x\" "
                        "slot=\"0x%02x\" function=\"0x%x\"/>\n"
                        "  </source>\n",
                        mac, fl[0], fl[1], fl[2], fl[3]);
                } else if (vhu) {
                    /* nova leaves the driver's name out for vhost-user */
                    put(&o, "<interface type=\"vhostuser\">\n  <mac address=\"%s\"/>\n", mac);
                    if (f.model[0])
                        put(&o, "  <model type=\"%s\"/>\n", f.model);
                    if (f.queues || f.rx_on || f.tx) {
                        put(&o, "  <driver");
                        if (f.queues)
                            put(&o, " queues=\"%lld\"", f.queues);
                        if (f.rx_on)
                            put(&o, " rx_queue_size=\"%lld\"", f.rx);
                        if (f.tx)
                            put(&o, " tx_queue_size=\"%lld\"", f.tx);
                        put(&o, "/>\n");
                    }
                    put(&o, "  <source type=\"unix\" mode=\"%s\" path=\"", u.mode);
                    put_esc(&o, u.path);
                    put(&o, "\"/>\n  <target dev=\"");
                    put_esc(&o, u.tap);
                    put(&o, "\"/>\n");
                } else if (vdpa) {
                    put(&o, "<interface type=\"vdpa\">\n  <mac address=\"%s\"/>\n  <source dev=\"",
                        mac);
                    put_esc(&o, path);
                    put(&o, "\"/>\n");
                } else {
                    put(&o, "<interface type=\"direct\">\n  <mac address=\"%s\"/>\n", mac);
                    if (f.model[0])
                        put(&o, "  <model type=\"%s\"/>\n", f.model);
                    put(&o, "  <driver name=\"vhost\"");
                    if (f.queues)
                        put(&o, " queues=\"%lld\"", f.queues);
                    if (f.rx_on)
                        put(&o, " rx_queue_size=\"%lld\"", f.rx);
                    put(&o, "/>\n  <source dev=\"");
                    put_esc(&o, ifname);
                    put(&o, "\" mode=\"passthrough\"/>\n");
                }
                if (veb && vlan[0])
                    put(&o, "  <vlan>\n    <tag id=\"%s\"/>\n  </vlan>\n", vlan);
                put(&o, "%s</interface>\n", veb ? f.bw : "");
                written++;
                continue;
            }
        }
        put(&o,
            "<hostdev mode=\"subsystem\" type=\"pci\" managed=\"yes\">\n"
            "  <source>\n"
            "    <address domain=\"0x%04x\" bus=\"0x%02x\" slot=\"0x%02x\" function=\"0x%x\"/>\n"
            "  </source>\n"
            "</hostdev>\n",
            fl[0], fl[1], fl[2], fl[3]);
        written++;
    }
    if (o.oom) {
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
        r = -ENOMEM;
        goto out;
    }
    *ret_xml = o.b;
    o.b = NULL;
    r = written;
out:
    free(o.b);
    numafit__free(f.bw);
    json_decref(doc);
    return r;
}
