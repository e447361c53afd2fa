/*
 * libFuzzer target: the PCI discovery readers: libvirt's node device XML
 * (numafit_pci_devices_new_from_nodedev_xml) and a sysfs tree
 * (numafit_pci_devices_new_from_sysfs).
 *
 * Input: MODE REST. MODE even: REST is node device XML documents separated
 * by NUL bytes. MODE odd: REST is records "PATH\0CONTENT\0" written as the
 * files of a scratch tree under sys/bus/pci (tests/fuzz/fstree.c: no
 * symbolic links, so no VF), read by the sysfs reader.
 * Invariants:
 *  - a refused input leaves *ret untouched and fills the error text;
 *  - accepted devices write JSON that reads back to the same text, and
 *    the pools of a device_spec matching every device ({}) are made in
 *    both profiles, with no more devices than the host has.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numafit.h>

#include "fstree.h"
#include "invariants.h"

#define DOCS_MAX 64

static void check_devices(const numafit_pci_devices_t *d) {
    static const char conf[] = "[pci]\ndevice_spec = {}\n";
    numafit_pci_devices_t *back = NULL;
    numafit_error_t e;
    char *t1 = NULL, *t2 = NULL;
    int n = numafit_pci_devices_get_count(d);
    FUZZ_ASSERT(n >= 0);
    FUZZ_ASSERT(numafit_pci_devices_to_json(d, 0, &t1, &e) == 0);
    FUZZ_ASSERT(numafit_pci_devices_new_from_json(t1, strlen(t1), 0, &back, &e) == 0);
    FUZZ_ASSERT(numafit_pci_devices_to_json(back, 0, &t2, &e) == 0);
    FUZZ_ASSERT(strcmp(t1, t2) == 0);
    numafit_free(t1);
    numafit_free(t2);
    numafit_pci_devices_free(back);
    for (unsigned zed = 0; zed < 2; zed++) {
        numafit_pci_pools_t *p = NULL;
        int64_t total = 0, c;
        FUZZ_ASSERT(numafit_pci_pools_new_from_devices(d, conf, sizeof(conf) - 1,
                                                       zed ? NUMAFIT_PCI_ZED : 0, &p, &e) == 0);
        for (int i = 0; i < numafit_pci_pools_get_count(p); i++) {
            FUZZ_ASSERT(numafit_pci_pools_get(p, (unsigned)i, NULL, NULL, NULL, NULL, &c) == 0);
            total += c;
        }
        FUZZ_ASSERT(total <= n);
        numafit_pci_pools_free(p);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    numafit_pci_devices_t *devs = (numafit_pci_devices_t *)&devs;
    numafit_pci_devices_t *const sentinel = devs;
    numafit_error_t e;
    int rc;
    if (size < 1)
        return 0;
    if (data[0] % 2 == 0) {
        const char *docs[DOCS_MAX];
        size_t lens[DOCS_MAX], n = 0, start = 1;
        for (size_t i = 1; i <= size && n < DOCS_MAX; i++)
            if (i == size || data[i] == '\0') {
                docs[n] = (const char *)data + start;
                lens[n++] = i - start;
                start = i + 1;
            }
        rc = numafit_pci_devices_new_from_nodedev_xml(docs, lens, n, 0, &devs, &e);
    } else {
        const char *root = fuzz_tree_build("sys/bus/pci", data + 1, size - 1);
        rc = numafit_pci_devices_new_from_sysfs(root, 0, &devs, &e);
    }
    FUZZ_ASSERT(rc <= 0);
    if (rc < 0) {
        FUZZ_ASSERT(devs == sentinel);
        FUZZ_ASSERT(memchr(e.text, '\0', sizeof(e.text)) != NULL);
        FUZZ_ASSERT(e.text[0] != '\0');
        return 0;
    }
    check_devices(devs);
    numafit_pci_devices_free(devs);
    return 0;
}
