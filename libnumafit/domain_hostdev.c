/*
 * The <hostdev> elements nova's libvirt driver writes for the PCI devices
 * of an instance's flavor aliases (_guest_add_pci_devices,
 * _get_guest_pci_device): one per device, mode subsystem, type pci,
 * managed yes (kvm and qemu), the device's address as its source with each
 * field written in hexadecimal with 0x.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <numafit/domain.h>

#include "pci_internal.h"
#include "private.h"

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
    cap = 256 * json_array_size(list) + 1;
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
        if (req && !json_is_null(req))
            continue; /* a neutron port's: the VIF driver writes its <interface> */
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
