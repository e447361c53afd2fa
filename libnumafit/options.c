/* Fit options: profile, strategy, limits, network requirements, budget. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "private.h"

NUMAFIT_EXPORT int numafit_options_new(numafit_options_t **ret) {
    numafit_options_t *o;
    if (!ret)
        return -EINVAL;
    o = numafit__calloc(1, sizeof(*o));
    if (!o)
        return -ENOMEM;
    o->profile = NUMAFIT_PROFILE_LATEST;
    o->strategy = NUMAFIT_STRATEGY_SPREAD;
    o->budget = NUMAFIT_BUDGET_DEFAULT;
    *ret = o;
    return 0;
}

static void clear_physnets(numafit_options_t *o) {
    for (uint32_t i = 0; i < o->nphysnets; i++)
        numafit__free(o->physnets[i]);
    numafit__free(o->physnets);
    o->physnets = NULL;
    o->nphysnets = 0;
}

NUMAFIT_EXPORT void numafit_options_free(numafit_options_t *o) {
    if (!o)
        return;
    clear_physnets(o);
    numafit__free(o);
}

NUMAFIT_EXPORT int numafit_options_set_profile(numafit_options_t *o, int profile) {
    if (!o || (profile != NUMAFIT_PROFILE_LATEST && profile != NUMAFIT_PROFILE_ZED))
        return -EINVAL;
    o->profile = profile;
    return 0;
}

NUMAFIT_EXPORT int numafit_options_set_strategy(numafit_options_t *o, int strategy) {
    if (!o || (strategy != NUMAFIT_STRATEGY_SPREAD && strategy != NUMAFIT_STRATEGY_PACK))
        return -EINVAL;
    o->strategy = strategy;
    return 0;
}

static bool ratio_ok(double r) {
    return isfinite(r) && r > 0 && r <= 1e6;
}

NUMAFIT_EXPORT int numafit_options_set_limits(numafit_options_t *o, double cpu, double ram) {
    if (!o || !ratio_ok(cpu) || !ratio_ok(ram))
        return -EINVAL;
    o->has_limits = true;
    o->cpu_ratio = cpu;
    o->ram_ratio = ram;
    return 0;
}

NUMAFIT_EXPORT int numafit_options_clear_limits(numafit_options_t *o) {
    if (!o)
        return -EINVAL;
    o->has_limits = false;
    o->cpu_ratio = o->ram_ratio = 0;
    o->has_netmeta = false;
    o->tunneled = false;
    clear_physnets(o);
    return 0;
}

NUMAFIT_EXPORT int numafit_options_set_budget(numafit_options_t *o, uint64_t steps) {
    if (!o)
        return -EINVAL;
    o->budget = steps;
    return 0;
}

/* Unwrap a versioned-object primitive of the given name, else return v. */
static json_t *unwrap(json_t *v, const char *name, numafit_error_t *err, const char *where,
                      int *rc) {
    json_t *n = json_object_get(v, "nova_object.name");
    *rc = 0;
    if (!n)
        return v;
    if (!json_is_string(n) || strcmp(json_string_value(n), name)) {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, where, NULL, "expected a %s object", name);
        *rc = -EINVAL;
        return NULL;
    }
    json_t *d = json_object_get(v, "nova_object.data");
    if (!json_is_object(d)) {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, where, NULL, "missing nova_object.data");
        *rc = -EINVAL;
        return NULL;
    }
    return d;
}

static int get_ratio(json_t *d, const char *key, double *out, numafit_error_t *err) {
    json_t *v = json_object_get(d, key);
    char where[64];
    snprintf(where, sizeof(where), "/%s", key);
    if (!v) {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, where, NULL, "%s is required", key);
        return -EINVAL;
    }
    if (!json_is_number(v) || !ratio_ok(json_number_value(v))) {
        numafit__error_set(err, NUMAFIT_E_RANGE, -1, where, NULL,
                           "%s must be a number > 0 and <= 1e6", key);
        return -EINVAL;
    }
    *out = json_number_value(v);
    return 0;
}

NUMAFIT_EXPORT int numafit_options_set_limits_json(numafit_options_t *o, const char *buf,
                                                   size_t len, numafit_error_t *err) {
    json_error_t jerr;
    json_t *root, *d, *nm;
    double cpu = 0, ram = 0;
    int rc;
    numafit_options_t tmp;

    numafit__error_clear(err);
    if (!o || !buf || len > NUMAFIT_INPUT_MAX)
        return -EINVAL;
    if ((rc = numafit__json_check_values(buf, len, NUMAFIT__JSON_VALUES_SMALL, "limits", err)) < 0)
        return rc;
    root = json_loadb(buf, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    if (!root && numafit__json_load_errno(&jerr) == -ENOMEM) {
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
        return -ENOMEM;
    }
    if (!root) {
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, "", NULL, "limits: %s (line %d, column %d)",
                           jerr.text, jerr.line, jerr.column);
        return -EBADMSG;
    }
    if (json_is_null(root)) {
        json_decref(root);
        return numafit_options_clear_limits(o);
    }
    if (!json_is_object(root)) {
        json_decref(root);
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "", NULL, "limits must be an object");
        return -EINVAL;
    }
    d = unwrap(root, "NUMATopologyLimits", err, "", &rc);
    if (!d)
        goto out;
    memset(&tmp, 0, sizeof(tmp));
    if ((rc = get_ratio(d, "cpu_allocation_ratio", &cpu, err)) < 0 ||
        (rc = get_ratio(d, "ram_allocation_ratio", &ram, err)) < 0)
        goto out;
    nm = json_object_get(d, "network_metadata");
    if (nm && !json_is_null(nm)) {
        json_t *nd = unwrap(nm, "NetworkMetadata", err, "/network_metadata", &rc);
        json_t *pn, *tu;
        if (!nd)
            goto out;
        if (!json_is_object(nd)) {
            numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "/network_metadata", NULL,
                               "network_metadata must be an object");
            rc = -EINVAL;
            goto out;
        }
        tmp.has_netmeta = true;
        pn = json_object_get(nd, "physnets");
        tu = json_object_get(nd, "tunneled");
        if (tu && !json_is_boolean(tu)) {
            numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "/network_metadata/tunneled", NULL,
                               "tunneled must be a boolean");
            rc = -EINVAL;
            goto out;
        }
        tmp.tunneled = tu && json_is_true(tu);
        if (pn && !json_is_null(pn)) {
            size_t i;
            json_t *e;
            if (!json_is_array(pn) || json_array_size(pn) > 4096) {
                numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "/network_metadata/physnets", NULL,
                                   "physnets must be a list of at most 4096 names");
                rc = -EINVAL;
                goto out;
            }
            tmp.physnets = numafit__calloc(json_array_size(pn), sizeof(char *));
            if (!tmp.physnets) {
                rc = -ENOMEM;
                goto out;
            }
            json_array_foreach(pn, i, e) {
                if (!json_is_string(e)) {
                    numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "/network_metadata/physnets",
                                       NULL, "physnets must hold strings");
                    rc = -EINVAL;
                    clear_physnets(&tmp);
                    goto out;
                }
                tmp.physnets[i] = numafit__strdup(json_string_value(e));
                if (!tmp.physnets[i]) {
                    rc = -ENOMEM;
                    clear_physnets(&tmp);
                    goto out;
                }
                tmp.nphysnets = (uint32_t)i + 1;
            }
        }
    }
    clear_physnets(o);
    o->has_limits = true;
    o->cpu_ratio = cpu;
    o->ram_ratio = ram;
    o->has_netmeta = tmp.has_netmeta;
    o->tunneled = tmp.tunneled;
    o->physnets = tmp.physnets;
    o->nphysnets = tmp.nphysnets;
    rc = 0;
out:
    if (rc == -ENOMEM)
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
    json_decref(root);
    return rc;
}
