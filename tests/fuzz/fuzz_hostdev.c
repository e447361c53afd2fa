/*
 * libFuzzer target: the device elements of a claim
 * (numafit_domain_hostdev_xml): a claim as a caller writes it, the
 * tracker's {"devices": [...]} with the ports' vnic_type, vif_type, mac,
 * vlan, ifname and dev_path, and the instance's flavor, image, virt_type, rx_queue_size and
 * max_queues; or a plain list of devices.
 *
 * Input: the claim JSON.
 * Invariants: success gives text (well-formed XML, wrapped, when libxml2 is
 * there) with as many top-level elements as the return value says; a
 * refusal is a known negative errno with a text and no XML; the same input
 * gives the same answer twice.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <numafit.h>

#ifdef HAVE_LIBVIRT
#include <libxml/parser.h>
#endif

#include "invariants.h"

/* The top-level elements of a fragment: its lines that start with '<'
 * but not "</" (each element starts on a line of its own). */
static int elements(const char *x) {
    int n = 0;
    for (const char *l = x; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
        n += l[0] == '<' && l[1] != '/';
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    numafit_error_t err;
    char *xml = NULL, *again = NULL;
    int r, r2;

    fuzz_error_prefill(&err);
    r = numafit_domain_hostdev_xml((const char *)data, size, 0, &xml, &err);
    fuzz_check_error(&err);
    if (r < 0) {
        FUZZ_ASSERT(r == -EINVAL || r == -ERANGE || r == -EBADMSG || r == -ENOMEM);
        FUZZ_ASSERT(xml == NULL);
        FUZZ_ASSERT(err.text[0] != '\0');
        return 0;
    }
    FUZZ_ASSERT(xml != NULL);
    FUZZ_ASSERT(elements(xml) == r);
#ifdef HAVE_LIBVIRT
    if (xml[0]) {
        size_t n = strlen(xml);
        char *doc = malloc(n + 8);
        xmlDocPtr d;
        FUZZ_ASSERT(doc != NULL);
        snprintf(doc, n + 8, "<x>%s</x>", xml);
        d = xmlReadMemory(doc, (int)strlen(doc), "hostdev.xml", NULL,
                          XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
        if (!d)
            fuzz_note("the device XML is not well-formed:\n%s", xml);
        FUZZ_ASSERT(d != NULL);
        xmlFreeDoc(d);
        free(doc);
    }
#endif
    r2 = numafit_domain_hostdev_xml((const char *)data, size, 0, &again, &err);
    FUZZ_ASSERT(r2 == r || r2 == -ENOMEM);
    if (r2 == r)
        FUZZ_ASSERT(strcmp(xml, again) == 0);
    numafit_free(again);
    numafit_free(xml);
    return 0;
}
