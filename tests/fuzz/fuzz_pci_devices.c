/*
 * libFuzzer target: a host's PCI devices (numafit_pci_devices_new_from_json)
 * and nova.conf's device_spec turning them into pools
 * (numafit_pci_pools_new_from_devices).
 *
 * Input: DEVICES_JSON [ NUL NOVA_CONF ].
 * Invariants:
 *  - a refused input leaves *ret untouched and fills the error text;
 *  - accepted devices write JSON that reads back to the same text, and
 *    their accessors answer for every index and refuse the next;
 *  - with the nova.conf text (both profiles): pools, or a refusal with a
 *    text (-EINVAL: one of nova's device_spec exceptions, err->where a
 *    nova.conf line); pools hold no more devices than the host has, each
 *    pool's vendor and product are a device's, and they write JSON that
 *    reads back to equal pools;
 *  - the same devices without a nova.conf make no pools;
 *  - the tracker of the devices (numafit_pci_tracker_*) reports the same
 *    pools; its claims take devices (their hostdev XML is written) or
 *    change nothing, and a release gives back as many devices in as many
 *    pools.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numafit.h>

#include "invariants.h"

/* The tracker of the same devices and nova.conf reports the same pools;
 * a claim of one device of each pool's kind takes devices or changes
 * nothing, and its release gives the pools back as they were (counts and
 * keys; a pool emptied and refilled may move, as in nova). */
static void check_tracker(const numafit_pci_devices_t *devs, const char *conf, size_t len,
                          unsigned flags, const numafit_pci_pools_t *pools) {
    static const char *const reqs_json[] = {
        "[{\"count\": 1, \"spec\": [{\"dev_type\": \"type-VF\"}]}]",
        "[{\"count\": 1, \"spec\": [{\"dev_type\": \"type-PF\"}]}, "
        "{\"count\": 2, \"spec\": [{}]}]",
        "[{\"count\": 1, \"spec\": [{\"dev_type\": \"vdpa\"}], \"numa_policy\": \"required\"}]"};
    numafit_pci_tracker_t *t = NULL;
    numafit_pci_pools_t *p = NULL;
    numafit_host_t *h = NULL;
    numafit_error_t e;
    int rc = numafit_pci_tracker_new(devs, conf, len, flags, &t, &e);
    int64_t cells[2] = {0, 1};
    FUZZ_ASSERT(rc == 0 || rc == -ENOMEM);
    if (rc < 0)
        return;
    if (numafit_pci_tracker_get_pools(t, &p) == 0) {
        FUZZ_ASSERT(numafit_pci_pools_equal(p, pools) == 1);
        numafit_pci_pools_free(p);
    }
    if (numafit_host_new_synthetic("2x2c 2cells mem:4G", 0, &h, &e) < 0) {
        numafit_pci_tracker_free(t);
        return;
    }
    for (unsigned k = 0; k < sizeof(reqs_json) / sizeof(reqs_json[0]); k++) {
        numafit_pci_requests_t *r = NULL;
        numafit_pci_pools_t *before = NULL, *after = NULL;
        char *claim = NULL;
        if (numafit_pci_requests_new_from_json(reqs_json[k], strlen(reqs_json[k]), 0, &r, &e) < 0)
            continue;
        if (numafit_pci_tracker_get_pools(t, &before) == 0) {
            rc = numafit_pci_tracker_claim(t, h, r, k ? cells : NULL, k, &claim, &e);
            FUZZ_ASSERT(rc == 0 || rc == -ENOSPC || rc == -ENOMEM);
            if (rc < 0) {
                FUZZ_ASSERT(claim == NULL);
                if (numafit_pci_tracker_get_pools(t, &after) == 0)
                    FUZZ_ASSERT(numafit_pci_pools_equal(before, after) == 1);
            } else {
                char *xml = NULL;
                rc = numafit_domain_hostdev_xml(claim, strlen(claim), 0, &xml, &e);
                FUZZ_ASSERT(rc >= 0 || rc == -ENOMEM);
                numafit_free(xml);
                rc = numafit_pci_tracker_release(t, claim, strlen(claim), &e);
                FUZZ_ASSERT(rc == 0 || rc == -ENOMEM);
                if (rc == 0 && numafit_pci_tracker_get_pools(t, &after) == 0) {
                    int n = numafit_pci_pools_get_count(before);
                    int64_t sum_b = 0, sum_a = 0, c;
                    FUZZ_ASSERT(numafit_pci_pools_get_count(after) == n);
                    for (int i = 0; i < n; i++) {
                        FUZZ_ASSERT(numafit_pci_pools_get(before, (unsigned)i, NULL, NULL, NULL,
                                                          NULL, &c) == 0);
                        sum_b += c;
                        FUZZ_ASSERT(numafit_pci_pools_get(after, (unsigned)i, NULL, NULL, NULL,
                                                          NULL, &c) == 0);
                        sum_a += c;
                    }
                    FUZZ_ASSERT(sum_a == sum_b);
                }
            }
        }
        numafit_free(claim);
        numafit_pci_pools_free(before);
        numafit_pci_pools_free(after);
        numafit_pci_requests_free(r);
    }
    numafit_host_free(h);
    numafit_pci_tracker_free(t);
}

static void check_err(const numafit_error_t *e) {
    FUZZ_ASSERT(memchr(e->text, '\0', sizeof(e->text)) != NULL);
    FUZZ_ASSERT(memchr(e->where, '\0', sizeof(e->where)) != NULL);
    FUZZ_ASSERT(e->text[0] != '\0');
}

static bool known_exception(const char *x) {
    static const char *const known[] = {"PciConfigInvalidSpec",
                                        "PciDeviceWrongAddressFormat",
                                        "PciDeviceInvalidDeviceName",
                                        "PciDeviceRemoteManagedNotPresent",
                                        "PciDeviceInvalidPFRemoteManaged",
                                        "PciDeviceNotFoundById",
                                        "NoSuchOptError",
                                        NULL};
    for (unsigned k = 0; known[k]; k++)
        if (!strcmp(x, known[k]))
            return true;
    return false;
}

static void check_pools(const numafit_pci_devices_t *d, const numafit_pci_pools_t *p) {
    numafit_pci_pools_t *back = NULL;
    numafit_error_t e;
    char *txt = NULL;
    int64_t total = 0;
    int n = numafit_pci_pools_get_count(p), nd = numafit_pci_devices_get_count(d);
    for (int i = 0; i < n; i++) {
        const char *v, *pr;
        int64_t c;
        bool found = false;
        FUZZ_ASSERT(numafit_pci_pools_get(p, (unsigned)i, &v, &pr, NULL, NULL, &c) == 0);
        FUZZ_ASSERT(c > 0);
        total += c;
        for (int j = 0; j < nd && !found; j++) {
            const char *dv, *dp;
            FUZZ_ASSERT(numafit_pci_devices_get(d, (unsigned)j, NULL, &dv, &dp, NULL, NULL, NULL,
                                                NULL) == 0);
            found = !strcmp(dv, v) && !strcmp(dp, pr);
        }
        FUZZ_ASSERT(found);
    }
    FUZZ_ASSERT(total <= nd);
    FUZZ_ASSERT(numafit_pci_pools_to_json(p, 0, &txt, &e) == 0);
    FUZZ_ASSERT(numafit_pci_pools_new_from_json(txt, strlen(txt), 0, &back, &e) == 0);
    FUZZ_ASSERT(numafit_pci_pools_equal(p, back) == 1);
    numafit_free(txt);
    numafit_pci_pools_free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *buf = (const char *)data;
    const char *nul = memchr(buf, '\0', size);
    size_t dlen = nul ? (size_t)(nul - buf) : size;
    numafit_pci_devices_t *devs = (numafit_pci_devices_t *)&devs;
    numafit_pci_devices_t *const sentinel = devs, *back = NULL;
    numafit_pci_pools_t *pools = NULL;
    numafit_error_t e;
    char *t1 = NULL, *t2 = NULL;
    int rc, n;

    rc = numafit_pci_devices_new_from_json(buf, dlen, 0, &devs, &e);
    FUZZ_ASSERT(rc == 0 || rc == -EINVAL || rc == -EBADMSG || rc == -ERANGE || rc == -ENOMEM);
    if (rc < 0) {
        FUZZ_ASSERT(devs == sentinel);
        check_err(&e);
        return 0;
    }
    n = numafit_pci_devices_get_count(devs);
    FUZZ_ASSERT(n >= 0);
    for (int i = 0; i < n; i++) {
        const char *a, *v, *p, *t;
        FUZZ_ASSERT(numafit_pci_devices_get(devs, (unsigned)i, &a, &v, &p, &t, NULL, NULL, NULL) ==
                    0);
        FUZZ_ASSERT(a && v && p && t);
    }
    FUZZ_ASSERT(numafit_pci_devices_get(devs, (unsigned)n, NULL, NULL, NULL, NULL, NULL, NULL,
                                        NULL) == -EINVAL);
    FUZZ_ASSERT(numafit_pci_devices_to_json(devs, 0, &t1, &e) == 0);
    FUZZ_ASSERT(numafit_pci_devices_new_from_json(t1, strlen(t1), 0, &back, &e) == 0);
    FUZZ_ASSERT(numafit_pci_devices_to_json(back, 0, &t2, &e) == 0);
    FUZZ_ASSERT(strcmp(t1, t2) == 0);
    numafit_free(t1);
    numafit_free(t2);
    numafit_pci_devices_free(back);

    FUZZ_ASSERT(numafit_pci_pools_new_from_devices(devs, NULL, 0, 0, &pools, &e) == 0);
    FUZZ_ASSERT(numafit_pci_pools_get_count(pools) == 0);
    numafit_pci_pools_free(pools);
    if (nul) {
        for (unsigned zed = 0; zed < 2; zed++) {
            pools = (numafit_pci_pools_t *)&pools;
            numafit_pci_pools_t *const psent = pools;
            rc = numafit_pci_pools_new_from_devices(devs, nul + 1, size - dlen - 1,
                                                    zed ? NUMAFIT_PCI_ZED : 0, &pools, &e);
            FUZZ_ASSERT(rc == 0 || rc == -EINVAL || rc == -EBADMSG || rc == -ERANGE ||
                        rc == -ENOMEM);
            if (rc < 0) {
                FUZZ_ASSERT(pools == psent);
                check_err(&e);
                if (rc == -EINVAL && e.exception[0]) {
                    FUZZ_ASSERT(known_exception(e.exception));
                    FUZZ_ASSERT(strncmp(e.where, "nova.conf:", 10) == 0);
                }
                continue;
            }
            check_pools(devs, pools);
            check_tracker(devs, nul + 1, size - dlen - 1, zed ? NUMAFIT_PCI_ZED : 0, pools);
            numafit_pci_pools_free(pools);
        }
    }
    numafit_pci_devices_free(devs);
    return 0;
}
