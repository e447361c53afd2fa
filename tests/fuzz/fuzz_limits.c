/*
 * libFuzzer target: fit limits as JSON (numafit_options_set_limits_json:
 * cpu_allocation_ratio, ram_allocation_ratio and the instance's
 * network_metadata, physnets and tunneled; or nova's NUMATopologyLimits
 * primitive; or null).
 *
 * Input: the limits JSON. When accepted, the fixed requests of
 * invariants.c are fitted with those options (and a work budget) on two
 * fixed hosts whose cells carry network metadata: 2 cells (cell k on
 * physnet<k>, cell 0 tunneled) and 4 cells (cell k on physnet<k> and
 * physnet<k+1>, cell 3 tunneled), with every invariant of invariants.h. A refusal
 * leaves the options usable, with a text.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>
#include <numafit.h>

#include "invariants.h"

static numafit_host_t *hosts[2];

/* A synthetic host whose cell k gets physnets k..k+nnets-1 (none when
 * nnets is 0) and is tunneled when k == tunnel. */
static numafit_host_t *net_host(const char *spec, int nnets, int tunnel) {
    numafit_host_t *h = NULL;
    json_t *root, *cells, *cell;
    size_t k;
    char *text;

    FUZZ_ASSERT(numafit_host_new_synthetic(spec, 0, &h, NULL) == 0);
    text = fuzz_host_json(h);
    numafit_host_free(h);
    root = json_loads(text, 0, NULL);
    numafit_free(text);
    FUZZ_ASSERT(root != NULL);
    cells = json_object_get(json_object_get(root, "nova_object.data"), "cells");
    json_array_foreach(cells, k, cell) {
        json_t *nets = json_array();
        for (int i = 0; i < nnets; i++) {
            char name[32];
            snprintf(name, sizeof(name), "physnet%d", (int)k + i);
            json_array_append_new(nets, json_string(name));
        }
        json_object_set_new(json_object_get(cell, "nova_object.data"), "network_metadata",
                            json_pack("{s:s,s:s,s:s,s:{s:o,s:b}}", "nova_object.name",
                                      "NetworkMetadata", "nova_object.namespace", "nova",
                                      "nova_object.version", "1.0", "nova_object.data", "physnets",
                                      nets, "tunneled", (int)k == tunnel));
    }
    text = json_dumps(root, JSON_COMPACT);
    json_decref(root);
    FUZZ_ASSERT(text != NULL);
    FUZZ_ASSERT(numafit_host_new_from_json(text, strlen(text), 0, &h, NULL) == 0);
    free(text);
    return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    numafit_options_t *opt = NULL;
    numafit_error_t err;
    int r;

    if (!hosts[0]) {
        hosts[0] = net_host("cells:2 cores:4 threads:2 mem:16G pages:2M=1024", 1, 0);
        hosts[1] = net_host("cells:4 cores:2 threads:2 mem:8G pages:1G=2", 2, 3);
    }
    FUZZ_ASSERT(numafit_options_new(&opt) == 0);
    FUZZ_ASSERT(numafit_options_set_budget(opt, 200000) == 0);
    fuzz_error_prefill(&err);
    r = numafit_options_set_limits_json(opt, (const char *)data, size, &err);
    fuzz_check_error(&err);
    if (r < 0) {
        FUZZ_ASSERT(r == -EBADMSG || r == -EINVAL || r == -ERANGE || r == -ENOMEM);
        FUZZ_ASSERT(err.text[0] != '\0');
    } else {
        FUZZ_ASSERT(r == 0);
        for (size_t i = 0; i < 2; i++)
            fuzz_check_host(hosts[i], 0, opt);
    }
    numafit_options_free(opt);
    return 0;
}
