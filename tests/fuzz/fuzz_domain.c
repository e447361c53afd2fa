/*
 * libFuzzer target: the libvirt domain XML writer's inputs
 * (numafit_domain_xml, numafit_domain_disk_iotune_xml,
 * numafit_domain_interface_bandwidth_xml): the flavor's quota:* extra specs,
 * the image properties and the host settings of numafit_domconf_t.
 *
 * Input: FLAVOR NUL IMAGE NUL SETTINGS (IMAGE empty: none). SETTINGS are
 * lines "K VALUE": s cpu_shared_set, v vcpu_pin_set, o online CPUs (cpu
 * specs), p realtime priority, c cpu controller (0/1), f file-backed memory
 * MiB, t domain type, n name, u uuid, m CPU mode, F flags (1 FULL,
 * 2 NOVA_EXACT). The flavor and image make a request (numafit_request_new),
 * fitted on a fixed 2-cell host with huge pages, with the fit invariants of
 * invariants.h (claimable, claim/release, JSON round trips); then the XML
 * of the placement (or of a guest without NUMA topology) is written.
 * Invariants: success gives text (well-formed XML when libxml2 is there),
 * a refusal a known negative errno with a text and no XML.
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

#define HOST_SPEC "cells:2 cores:4 threads:2 mem:16G pages:2M=1024,1G=2 dedicated:2-7,10-15"

static numafit_host_t *host;

static void check_xml(int r, char *xml, const numafit_error_t *err, int fragments) {
    fuzz_check_error(err);
    if (r < 0) {
        FUZZ_ASSERT(r == -EINVAL || r == -ERANGE || r == -ENOENT || r == -EBADMSG || r == -ENOMEM);
        FUZZ_ASSERT(xml == NULL);
        FUZZ_ASSERT(err->text[0] != '\0' || err->exception[0] != '\0');
        return;
    }
    FUZZ_ASSERT(xml != NULL);
#ifdef HAVE_LIBVIRT
    if (xml[0]) {
        /* fragments: several top-level elements, wrapped for the check */
        size_t n = strlen(xml);
        char *doc = malloc(n + 16);
        xmlDocPtr d;
        FUZZ_ASSERT(doc != NULL);
        snprintf(doc, n + 16, "%s%s%s", fragments ? "<x>" : "", xml, fragments ? "</x>" : "");
        d = xmlReadMemory(doc, (int)strlen(doc), "domain.xml", NULL,
                          XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
        if (!d)
            fuzz_note("the domain XML is not well-formed:\n%s", xml);
        FUZZ_ASSERT(d != NULL);
        xmlFreeDoc(d);
        free(doc);
    }
#else
    (void)fragments;
#endif
    numafit_free(xml);
}

static void apply(numafit_domconf_t *conf, char *line, unsigned *flags) {
    const char *v = line + 2;
    numafit_error_t err;
    int r = 0;

    if (!line[0] || line[1] != ' ')
        return;
    fuzz_error_prefill(&err);
    switch (line[0]) {
        case 's':
            r = numafit_domconf_set_cpu_shared_set(conf, v, &err);
            fuzz_check_error(&err);
            break;
        case 'v':
            r = numafit_domconf_set_vcpu_pin_set(conf, v, &err);
            fuzz_check_error(&err);
            break;
        case 'o':
            r = numafit_domconf_set_online_cpus(conf, v, &err);
            fuzz_check_error(&err);
            break;
        case 'p':
            r = numafit_domconf_set_realtime_priority(conf, atoi(v));
            break;
        case 'c':
            r = numafit_domconf_set_cpu_control(conf, atoi(v));
            break;
        case 'f':
            r = numafit_domconf_set_file_backed_memory(conf, strtoull(v, NULL, 10));
            break;
        case 't':
            r = numafit_domconf_set_domain_type(conf, v);
            break;
        case 'n':
            r = numafit_domconf_set_name(conf, v);
            break;
        case 'u':
            r = numafit_domconf_set_uuid(conf, v);
            break;
        case 'm':
            r = numafit_domconf_set_cpu_mode(conf, *v ? v : NULL);
            break;
        case 'F':
            *flags = (unsigned)atoi(v) & (NUMAFIT_DOMAIN_FULL | NUMAFIT_DOMAIN_NOVA_EXACT);
            break;
        default:
            break;
    }
    FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -ERANGE || r == -EBADMSG || r == -ENOMEM);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *in = (const char *)data, *e = in + size;
    const char *img, *set;
    size_t flen, ilen;
    char *settings, *line, *next, *xml;
    numafit_domconf_t *conf = NULL;
    numafit_request_t *req = NULL;
    numafit_placement_t *p = NULL;
    numafit_error_t err;
    unsigned flags = 0;
    int r;

    if (!host) {
        r = numafit_host_new_synthetic(HOST_SPEC, 0, &host, &err);
        if (r < 0)
            fuzz_note("fixed host: %s", err.text);
        FUZZ_ASSERT(r == 0);
    }
    img = size ? memchr(in, '\0', size) : NULL;
    flen = img ? (size_t)(img - in) : size;
    img = img ? img + 1 : e;
    set = img < e ? memchr(img, '\0', (size_t)(e - img)) : NULL;
    ilen = set ? (size_t)(set - img) : (size_t)(e - img);
    set = set ? set + 1 : e;

    FUZZ_ASSERT(numafit_domconf_new(&conf) == 0);
    settings = malloc((size_t)(e - set) + 1);
    FUZZ_ASSERT(settings != NULL);
    memcpy(settings, set, (size_t)(e - set));
    settings[e - set] = '\0';
    for (line = settings; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        apply(conf, line, &flags);
    }

    xml = NULL;
    fuzz_error_prefill(&err);
    r = numafit_domain_disk_iotune_xml(in, flen, 0, &xml, &err);
    check_xml(r, xml, &err, 0);
    xml = NULL;
    fuzz_error_prefill(&err);
    r = numafit_domain_interface_bandwidth_xml(in, flen, 0, &xml, &err);
    check_xml(r, xml, &err, 0);

    fuzz_error_prefill(&err);
    r = numafit_request_new(in, flen, ilen ? img : NULL, ilen, 0, &req, &err);
    if (r < 0) {
        fuzz_check_failure(r, &err, req);
        goto out;
    }
    if (r == 1) {
        if (fuzz_check_fit(host, 0, req, NULL) != 1)
            goto out;
        FUZZ_ASSERT(numafit_fit(host, req, fuzz_default_options(), 0, &p, NULL) == 1);
    }
    xml = NULL;
    fuzz_error_prefill(&err);
    r = numafit_domain_xml(host, req, p, in, flen, ilen ? img : NULL, ilen, conf, flags, &xml,
                           &err);
    check_xml(r, xml, &err, !(flags & NUMAFIT_DOMAIN_FULL));
out:
    numafit_placement_free(p);
    numafit_request_free(req);
    numafit_domconf_free(conf);
    free(settings);
    return 0;
}
