/*
 * Requests: construction from a flavor and an image, accessors, JSON
 * output and the policy names. nova's numa_get_constraints() rules that
 * turn a flavor and an image into a request, with nova's exceptions, are in
 * request_rules.c.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "flavor.h"
#include "request_rules.h"

/* ------------------------------------------------------------ public API */

int numafit__request_alloc(uint32_t vcpus, uint32_t ncells, numafit_request_t **ret) {
    numafit_request_t *r;
    if (!ret)
        return -EINVAL;
    r = numafit__calloc(1, sizeof(*r));
    if (!r)
        return -ENOMEM;
    r->vcpus = vcpus;
    r->nw = vcpus ? NUMAFIT__WORDS(vcpus) : 1;
    r->cpu_policy = NUMAFIT_CPU_POLICY_NONE;
    r->thread_policy = NUMAFIT_THREAD_POLICY_NONE;
    r->emulator_policy = NUMAFIT_EMULATOR_THREADS_NONE;
    r->pagesize = NUMAFIT_PAGESIZE_NONE;
    r->locked_memory = -1;
    if (ncells) {
        r->cells = numafit__calloc(ncells, sizeof(*r->cells));
        if (!r->cells)
            goto fail;
        r->ncells = ncells;
        for (uint32_t i = 0; i < ncells; i++) {
            r->cells[i].cpuset = numafit__calloc(r->nw, sizeof(uint64_t));
            r->cells[i].pcpuset = numafit__calloc(r->nw, sizeof(uint64_t));
            if (!r->cells[i].cpuset || !r->cells[i].pcpuset)
                goto fail;
        }
    }
    *ret = r;
    return 0;
fail:
    numafit_request_free(r);
    return -ENOMEM;
}

NUMAFIT_EXPORT void numafit_request_free(numafit_request_t *req) {
    if (!req)
        return;
    for (uint32_t i = 0; req->cells && i < req->ncells; i++) {
        numafit__free(req->cells[i].cpuset);
        numafit__free(req->cells[i].pcpuset);
    }
    numafit__free(req->cells);
    numafit__free(req->rt_mask);
    for (uint32_t i = 0; req->pmem && i < req->npmem; i++)
        numafit__free(req->pmem[i]);
    numafit__free(req->pmem);
    numafit__free(req);
}

NUMAFIT_EXPORT int numafit_request_dup(const numafit_request_t *req, numafit_request_t **ret_req) {
    numafit_request_t *r;
    if (!req || !ret_req)
        return -EINVAL;
    if (numafit__request_alloc(req->vcpus, req->ncells, &r) < 0)
        return -ENOMEM;
    r->memory_mb = req->memory_mb;
    r->cpu_policy = req->cpu_policy;
    r->thread_policy = req->thread_policy;
    r->emulator_policy = req->emulator_policy;
    r->pagesize = req->pagesize;
    r->realtime = req->realtime;
    r->locked_memory = req->locked_memory;
    r->cpu_policy_from_resources = req->cpu_policy_from_resources;
    r->image_smt_required = req->image_smt_required;
    for (uint32_t i = 0; i < req->ncells; i++) {
        memcpy(r->cells[i].cpuset, req->cells[i].cpuset, r->nw * sizeof(uint64_t));
        memcpy(r->cells[i].pcpuset, req->cells[i].pcpuset, r->nw * sizeof(uint64_t));
        r->cells[i].memory = req->cells[i].memory;
    }
    if (req->rt_mask) {
        r->rt_mask = numafit__malloc(r->nw * sizeof(uint64_t));
        if (!r->rt_mask)
            goto fail;
        memcpy(r->rt_mask, req->rt_mask, r->nw * sizeof(uint64_t));
    }
    if (req->npmem) {
        r->pmem = numafit__calloc(req->npmem, sizeof(char *));
        if (!r->pmem)
            goto fail;
        for (uint32_t i = 0; i < req->npmem; i++) {
            r->pmem[i] = numafit__strdup(req->pmem[i]);
            if (!r->pmem[i])
                goto fail;
            r->npmem = i + 1;
        }
    }
    *ret_req = r;
    return 0;
fail:
    numafit_request_free(r);
    return -ENOMEM;
}

static int nomem(numafit_error_t *err) {
    numafit__error_set(err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
    return -ENOMEM;
}

int numafit__request_from_text(const char *flavor_json, size_t flavor_len, const char *image_json,
                               size_t image_len, bool zed, numafit_request_t **ret,
                               json_t **ret_flavor, numafit_error_t *err) {
    json_t *flavor = NULL, *image = NULL;
    int rc;

    rc = numafit__flavor_load(flavor_json, flavor_len, "flavor", NUMAFIT__FLAVOR_REQUEST, &flavor,
                              err);
    if (rc == 0 && image_json)
        rc = numafit__flavor_load(image_json, image_len, "image", NUMAFIT__FLAVOR_REQUEST, &image,
                                  err);
    if (rc == 0)
        rc = numafit__request_rules(flavor, image, zed, ret, err);
    json_decref(image);
    if (rc == 0 && ret_flavor)
        *ret_flavor = flavor;
    else
        json_decref(flavor);
    return rc;
}

NUMAFIT_EXPORT int numafit_request_new(const char *flavor_json, size_t flavor_len,
                                       const char *image_json, size_t image_len, unsigned flags,
                                       numafit_request_t **ret, numafit_error_t *err) {
    const unsigned unknown = flags & ~(unsigned)NUMAFIT_REQUEST_ZED;
    numafit_request_t *req = NULL;
    int rc;

    numafit__error_clear(err);
    if (!flavor_json || !ret) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL,
                           "flavor JSON and ret_req are required");
        return -EINVAL;
    }
    if (unknown) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "flags", NULL, "unknown flag bits 0x%x",
                           unknown);
        return -EINVAL;
    }
    rc = numafit__request_from_text(flavor_json, flavor_len, image_json, image_len,
                                    flags & NUMAFIT_REQUEST_ZED, &req, NULL, err);
    if (rc < 0)
        return rc;
    *ret = req;
    return req->ncells ? 1 : 0;
}

NUMAFIT_EXPORT int numafit_request_get_cell_count(const numafit_request_t *req) {
    return req ? (int)req->ncells : -EINVAL;
}

NUMAFIT_EXPORT int numafit_request_get_vcpus(const numafit_request_t *req) {
    return req ? (int)req->vcpus : -EINVAL;
}

NUMAFIT_EXPORT int numafit_request_get_page_size(const numafit_request_t *req, unsigned flags,
                                                 int64_t *ret) {
    if (!req || !ret || flags)
        return -EINVAL;
    *ret = req->pagesize;
    return 0;
}

NUMAFIT_EXPORT int numafit_request_get_cpu_policy(const numafit_request_t *req) {
    return req ? req->cpu_policy : -EINVAL;
}

NUMAFIT_EXPORT int numafit_request_get_thread_policy(const numafit_request_t *req) {
    return req ? req->thread_policy : -EINVAL;
}

NUMAFIT_EXPORT int numafit_request_get_emulator_threads_policy(const numafit_request_t *req) {
    return req ? req->emulator_policy : -EINVAL;
}

/* ------------------------------------------------------------ JSON output */

/* The fields nova's numa_get_constraints sets, in the order nova emits them. */
static json_t *cell_json(const numafit_request_t *req, uint32_t k) {
    const struct numafit__json_icell ic = {
        .id = k,
        .cpuset = req->cells[k].cpuset,
        .pcpuset = req->cells[k].pcpuset,
        .nw = req->nw,
        .reserved = json_null(),
        .memory = req->cells[k].memory,
        .pagesize = req->pagesize,
        .pinning = json_null(),
        .cpu_policy = req->cpu_policy,
        .thread_policy = req->thread_policy,
    };
    return numafit__json_instance_cell(&ic);
}

static json_t *topology_json(const numafit_request_t *req) {
    json_t *cells = json_array();
    for (uint32_t k = 0; cells && k < req->ncells; k++)
        if (json_array_append_new(cells, cell_json(req, k)) < 0) {
            json_decref(cells);
            cells = NULL;
        }
    struct numafit__json_field f[] = {
        {"cells", cells},
        {"emulator_threads_policy",
         numafit__json_str_or_null(
             numafit_emulator_threads_policy_to_string(req->emulator_policy))},
    };
    return numafit__json_envelope("InstanceNUMATopology", "1.3",
                                  numafit__json_object(f, sizeof(f) / sizeof(f[0])), 0);
}

NUMAFIT_EXPORT int numafit_request_to_json(const numafit_request_t *req, unsigned flags,
                                           char **ret_json, numafit_error_t *err) {
    const unsigned known = NUMAFIT_JSON_INDENT | NUMAFIT_HOST_JSON_STRING;
    char *s;

    numafit__error_clear(err);
    if (!req || !ret_json) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL,
                           "request and ret_json are required");
        return -EINVAL;
    }
    if (flags & ~known) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "flags", NULL, "unknown flag bits 0x%x",
                           flags & ~known);
        return -EINVAL;
    }
    if (!req->ncells) {
        s = numafit__strdup("null");
        if (!s)
            return nomem(err);
        *ret_json = s;
        return 0;
    }
    return numafit__json_emit(topology_json(req), flags, ret_json, err);
}

/* ------------------------------------------------------------ enum strings */

static const char *const cpu_policy_names[] = {"shared", "dedicated", "mixed"};
static const char *const thread_policy_names[] = {"prefer", "isolate", "require"};
static const char *const emu_policy_names[] = {"share", "isolate"};

static int from_string(const char *const *names, int n, const char *s) {
    if (!s)
        return -EINVAL;
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], s))
            return i;
    return -EINVAL;
}

NUMAFIT_EXPORT const char *numafit_cpu_policy_to_string(int policy) {
    return policy >= 0 && policy < 3 ? cpu_policy_names[policy] : NULL;
}

NUMAFIT_EXPORT int numafit_cpu_policy_from_string(const char *s) {
    return from_string(cpu_policy_names, 3, s);
}

NUMAFIT_EXPORT const char *numafit_thread_policy_to_string(int policy) {
    return policy >= 0 && policy < 3 ? thread_policy_names[policy] : NULL;
}

NUMAFIT_EXPORT int numafit_thread_policy_from_string(const char *s) {
    return from_string(thread_policy_names, 3, s);
}

NUMAFIT_EXPORT const char *numafit_emulator_threads_policy_to_string(int policy) {
    return policy >= 0 && policy < 2 ? emu_policy_names[policy] : NULL;
}

NUMAFIT_EXPORT int numafit_emulator_threads_policy_from_string(const char *s) {
    return from_string(emu_policy_names, 2, s);
}
