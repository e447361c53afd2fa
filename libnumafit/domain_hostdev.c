/*
 * The <hostdev> elements nova's libvirt driver writes for the PCI devices
 * of an instance's flavor aliases (_guest_add_pci_devices,
 * _get_guest_pci_device): one per device, mode subsystem, type pci,
 * managed yes (kvm and qemu), the device's address as its source with each
 * field written in hexadecimal with 0x. A neutron port's device, when the
 * caller adds the port's vnic_type (and mac, vlan) to it: `direct` is the
 * <interface type="hostdev"> nova's VIF driver writes (get_config_hw_veb:
 * the MAC, the VF's address, the VLAN), `direct-physical` a <hostdev>
 * (get_config_hostdev_physical); other ports are left out.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <numafit/domain.h>

#include "pci_internal.h"
#include "private.h"

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

NUMAFIT_EXPORT int numafit_domain_hostdev_xml(const char *claim_json, size_t len, unsigned flags,
                                              char **ret_xml, numafit_error_t *err) {
    json_t *doc, *list, *v;
    json_error_t je;
    char *out = NULL;
    size_t i, used = 0, cap = 0;
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
    doc = json_loadb(claim_json, len, JSON_REJECT_DUPLICATES, &je);
    if (!doc) {
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, NULL, NULL, "the claim: %s", je.text);
        return -EBADMSG;
    }
    list = json_is_object(doc) ? json_object_get(doc, "devices") : doc;
    if (!json_is_array(list)) {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "devices", NULL,
                           "a claim ({\"devices\": [...]}) or a list of devices is required");
        r = -EINVAL;
        goto out;
    }
    cap = 512 * json_array_size(list) + 1;
    if (!(out = numafit__malloc(cap)))
        goto nomem;
    out[0] = '\0';
    json_array_foreach(list, i, v) {
        const char *a = json_string_value(json_object_get(v, "address"));
        json_t *req = json_object_get(v, "requester_id");
        uint32_t f[4];
        if (!a || !numafit__pci_addr_fields(a, strlen(a), f)) {
            numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, NULL, NULL,
                               "a device needs an address DOMAIN:BUS:SLOT.FUNCTION");
            snprintf(err->where, sizeof(err->where), "devices/%zu/address", i);
            r = -EINVAL;
            goto out;
        }
        if (req && !json_is_null(req)) {
            /* a neutron port's: its VIF driver's element, when the caller
             * says which port it is */
            const char *vnic = json_string_value(json_object_get(v, "vnic_type"));
            const char *mac = json_string_value(json_object_get(v, "mac"));
            json_t *vl = json_object_get(v, "vlan");
            long long vlan = 0;
            if (!vnic || (strcmp(vnic, "direct") != 0 && strcmp(vnic, "direct-physical") != 0))
                continue;
            if (!strcmp(vnic, "direct")) {
                if (!mac || !mac_ok(mac)) {
                    numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, NULL, NULL,
                                       "a direct port's device needs its MAC address "
                                       "(xx:xx:xx:xx:xx:xx)");
                    snprintf(err->where, sizeof(err->where), "devices/%zu/mac", i);
                    r = -EINVAL;
                    goto out;
                }
                if (vl && !json_is_null(vl) &&
                    (!json_is_integer(vl) || (vlan = json_integer_value(vl)) < 0 || vlan > 4095)) {
                    numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, NULL, NULL,
                                       "a VLAN is an integer from 0 to 4095, or null");
                    snprintf(err->where, sizeof(err->where), "devices/%zu/vlan", i);
                    r = -EINVAL;
                    goto out;
                }
                used += (size_t)snprintf(
                    out + used, cap - used,
                    "<interface type=\"hostdev\" managed=\"yes\">\n"
                    "  <mac address=\"%s\"/>\n"
                    "  <source>\n"
                    "    <address type=\"pci\" domain=\"0x%04x\" bus=\"0x%02x\" slot=\"0x%02x\" "
                    "function=\"0x%x\"/>\n"
                    "  </source>\n",
                    mac, f[0], f[1], f[2], f[3]);
                if (vlan > 0)
                    used += (size_t)snprintf(out + used, cap - used,
                                             "  <vlan>\n    <tag id=\"%lld\"/>\n  </vlan>\n", vlan);
                used += (size_t)snprintf(out + used, cap - used, "</interface>\n");
                written++;
                continue;
            }
        }
        used += (size_t)snprintf(out + used, cap - used,
                                 "<hostdev mode=\"subsystem\" type=\"pci\" managed=\"yes\">\n"
                                 "  <source>\n"
                                 "    <address domain=\"0x%04x\" bus=\"0x%02x\" slot=\"0x%02x\" "
                                 "function=\"0x%x\"/>\n"
                                 "  </source>\n"
                                 "</hostdev>\n",
                                 f[0], f[1], f[2], f[3]);
        written++;
    }
    *ret_xml = out;
    out = NULL;
    r = written;
    goto out;
nomem:
    numafit__error_set(err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
    r = -ENOMEM;
out:
    free(out);
    json_decref(doc);
    return r;
}
