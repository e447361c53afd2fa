/*
 * libFuzzer target: the host doctor (numafit_doctor), which reads a
 * compute host's captured files (proc/cmdline, proc/mounts, proc/meminfo,
 * sys/devices/system/..., sys/kernel/mm/hugepages/..., etc/tuned/...) and
 * nova.conf.
 *
 * Input: records "PATH\0CONTENT\0" (PATH relative to the host's root, as in
 * tests/data/doctor/<host>/), written as a scratch tree on tmpfs
 * (tests/fuzz/fstree.c). The record "etc/nova/nova.conf" is passed as the
 * nova.conf text (the doctor does not read it from the tree); the record
 * "flags" (not a file the doctor reads) chooses NUMAFIT_DOCTOR_REALTIME
 * ('r' in it) and NUMAFIT_DOCTOR_INDENT ('i'). The records "domains/0" to
 * "domains/3" are running guests' domain XML (virsh dumpxml): the doctor is
 * then numafit_doctor_domains() with them (doctor_domain_read.c reads
 * them, doctor_domain.c checks them and fits them on the tree's host).
 * Records under dev/, etc/sysctl.d/, etc/systemd/, sys/block/,
 * sys/module/ and sys/kernel/mm/{transparent_hugepage,ksm}/ reach the
 * tuning checks (doctor_tuning.c) like any other file.
 * Invariants: the result is the number of "error" findings of a valid JSON
 * report {"host":{...,"unreadable":[...],"not_checked":[...]},"findings":
 * [{"id","severity",...}]}, or a known negative errno with no report;
 * -ENOENT only for a tree with neither proc/ nor sys/ (reterr names
 * "root"). With domains: "domains" has one summary per domain, a finding's
 * "domain" is the name of one of them, and a domain the reader refuses
 * (-EBADMSG, -ERANGE) is named in reterr->where ("domains[I] ...").
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <numafit.h>

#include "fstree.h"
#include "invariants.h"

/* The content of the record named name (the last one), or NULL. */
static const uint8_t *record(const uint8_t *data, size_t size, const char *name, size_t *ret_len) {
    const uint8_t *p = data, *e = data + size, *found = NULL;
    size_t nlen = strlen(name);

    while (p < e) {
        const uint8_t *pe = memchr(p, '\0', (size_t)(e - p)), *c, *ce;
        if (!pe)
            break;
        c = pe + 1;
        ce = c < e ? memchr(c, '\0', (size_t)(e - c)) : NULL;
        if (!ce)
            ce = e;
        if ((size_t)(pe - p) == nlen && memcmp(p, name, nlen) == 0) {
            found = c;
            *ret_len = (size_t)(ce - c);
        }
        p = ce < e ? ce + 1 : e;
    }
    return found;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *root = fuzz_tree_build("", data, size);
    size_t clen = 0, flen = 0;
    const uint8_t *conf = record(data, size, "etc/nova/nova.conf", &clen);
    const uint8_t *fl = record(data, size, "flags", &flen);
    const char *doms[4];
    size_t dlens[4], ndoms = 0;
    unsigned flags = 0;
    numafit_error_t err;
    char *json = NULL;
    json_t *report, *findings, *f;
    size_t i;
    int r, errors = 0;

    if (fl && memchr(fl, 'r', flen))
        flags |= NUMAFIT_DOCTOR_REALTIME;
    if (fl && memchr(fl, 'i', flen))
        flags |= NUMAFIT_DOCTOR_INDENT;
    for (int k = 0; k < 4; k++) {
        char name[16];
        const uint8_t *d;
        snprintf(name, sizeof(name), "domains/%d", k);
        if ((d = record(data, size, name, &dlens[ndoms])))
            doms[ndoms++] = (const char *)d;
    }
    fuzz_error_prefill(&err);
    r = numafit_doctor_domains(root, (const char *)conf, clen, doms, dlens, ndoms, flags, &json,
                               &err);
    fuzz_check_error(&err);
    if (r < 0) {
        FUZZ_ASSERT(r == -EBADMSG || r == -ERANGE || r == -ENOMEM || r == -ENOENT ||
                    (r == -ENOTSUP && ndoms));
        if (ndoms && (r == -EBADMSG || r == -ERANGE) && !strncmp(err.where, "domains", 7)) {
            unsigned k = 99;
            FUZZ_ASSERT(sscanf(err.where, "domains[%u]", &k) == 1 && k < ndoms);
        }
        if (r == -ENOENT)
            FUZZ_ASSERT(!strcmp(err.where, "root"));
        FUZZ_ASSERT(json == NULL);
        FUZZ_ASSERT(err.text[0] != '\0');
        return 0;
    }
    FUZZ_ASSERT(json != NULL);
    report = json_loads(json, JSON_REJECT_DUPLICATES, NULL);
    if (!report)
        fuzz_note("the doctor's report is not JSON:\n%s", json);
    FUZZ_ASSERT(report != NULL);
    FUZZ_ASSERT(json_is_object(json_object_get(report, "host")));
    FUZZ_ASSERT(json_is_array(json_object_get(json_object_get(report, "host"), "not_checked")));
    findings = json_object_get(report, "findings");
    FUZZ_ASSERT(json_is_array(findings));
    json_array_foreach(findings, i, f) {
        const char *sev = json_string_value(json_object_get(f, "severity"));
        FUZZ_ASSERT(json_is_string(json_object_get(f, "id")));
        FUZZ_ASSERT(sev &&
                    (!strcmp(sev, "error") || !strcmp(sev, "warning") || !strcmp(sev, "info")));
        errors += !strcmp(sev, "error");
        if (json_object_get(f, "domain")) {
            const char *dn = json_string_value(json_object_get(f, "domain"));
            bool known = false;
            size_t k;
            json_t *d;
            FUZZ_ASSERT(dn != NULL);
            json_array_foreach(json_object_get(report, "domains"), k, d) known |=
                !strcmp(dn, json_string_value(json_object_get(d, "name")));
            FUZZ_ASSERT(known);
        }
    }
    FUZZ_ASSERT(r == errors);
    if (ndoms)
        FUZZ_ASSERT(json_array_size(json_object_get(report, "domains")) == ndoms);
    else
        FUZZ_ASSERT(json_object_get(report, "domains") == NULL);
    json_decref(report);
    numafit_free(json);
    return 0;
}
