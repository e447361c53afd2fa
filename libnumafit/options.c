/* Fit options: profile, strategy, limits, network requirements, budget. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "jsonio.h"

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

NUMAFIT_EXPORT int numafit_options_dup(const numafit_options_t *o, numafit_options_t **ret) {
    numafit_options_t *c;
    if (!o || !ret)
        return -EINVAL;
    c = numafit__calloc(1, sizeof(*c));
    if (!c)
        return -ENOMEM;
    *c = *o;
    c->physnets = NULL;
    c->nphysnets = 0;
    c->mix = NULL;
    c->mix_weight = NULL;
    c->nmix = 0;
    if (o->nmix) {
        c->mix = numafit__calloc(o->nmix, sizeof(*c->mix));
        c->mix_weight = numafit__calloc(o->nmix, sizeof(double));
        if (!c->mix || !c->mix_weight) {
            numafit_options_free(c);
            return -ENOMEM;
        }
        memcpy(c->mix, o->mix, o->nmix * sizeof(*c->mix));
        memcpy(c->mix_weight, o->mix_weight, o->nmix * sizeof(double));
        c->nmix = o->nmix;
    }
    if (o->nphysnets) {
        c->physnets = numafit__calloc(o->nphysnets, sizeof(char *));
        if (!c->physnets) {
            numafit__free(c);
            return -ENOMEM;
        }
        for (uint32_t i = 0; i < o->nphysnets; i++) {
            c->nphysnets = i + 1;
            c->physnets[i] = numafit__strdup(o->physnets[i]);
            if (!c->physnets[i]) {
                numafit_options_free(c);
                return -ENOMEM;
            }
        }
    }
    *ret = c;
    return 0;
}

NUMAFIT_EXPORT void numafit_options_free(numafit_options_t *o) {
    if (!o)
        return;
    clear_physnets(o);
    numafit__free(o->mix);
    numafit__free(o->mix_weight);
    numafit__free(o);
}

NUMAFIT_EXPORT int numafit_options_set_profile(numafit_options_t *o, int profile) {
    if (!o || (profile != NUMAFIT_PROFILE_LATEST && profile != NUMAFIT_PROFILE_ZED))
        return -EINVAL;
    o->profile = profile;
    return 0;
}

NUMAFIT_EXPORT int numafit_options_set_strategy(numafit_options_t *o, int strategy) {
    if (!o || (strategy != NUMAFIT_STRATEGY_SPREAD && strategy != NUMAFIT_STRATEGY_PACK &&
               strategy != NUMAFIT_STRATEGY_HEADROOM))
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

NUMAFIT_EXPORT int numafit_options_set_pci(numafit_options_t *o,
                                           const struct numafit_pci_pools *pools,
                                           const struct numafit_pci_requests *reqs) {
    if (!o)
        return -EINVAL;
    o->pci_pools = pools;
    o->pci_reqs = reqs;
    return 0;
}

NUMAFIT_EXPORT int numafit_options_set_pci_check(numafit_options_t *o, numafit_pci_check_fn fn,
                                                 void *ctx) {
    if (!o)
        return -EINVAL;
    o->pci_fn = fn;
    o->pci_ctx = ctx;
    return 0;
}

NUMAFIT_EXPORT int numafit_options_set_headroom_mix(numafit_options_t *o,
                                                    const struct numafit_request *const *reqs,
                                                    const double *weights, size_t n,
                                                    numafit_error_t *err) {
    const struct numafit_request **mix = NULL;
    double *w = NULL;
    numafit__error_clear(err);
    if (!o) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "", NULL, "options are NULL");
        return -EINVAL;
    }
    if (n > NUMAFIT_HEADROOM_MIX_MAX || (n && (!reqs || !weights))) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "headroom_mix", NULL,
                           n > NUMAFIT_HEADROOM_MIX_MAX
                               ? "the headroom mix has more than %d flavors"
                               : "the headroom mix's requests or weights are NULL",
                           NUMAFIT_HEADROOM_MIX_MAX);
        return -EINVAL;
    }
    for (size_t i = 0; i < n; i++) {
        char where[48];
        snprintf(where, sizeof(where), "headroom_mix/%zu", i);
        if (!reqs[i] || reqs[i]->ncells == 0) {
            numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, where, NULL,
                               reqs[i] ? "the headroom mix's request %zu has no NUMA topology"
                                       : "the headroom mix's request %zu is NULL",
                               i);
            return -EINVAL;
        }
        if (!isfinite(weights[i]) || weights[i] < 0) {
            numafit__error_set(err, NUMAFIT_E_RANGE, -1, where, NULL,
                               "the headroom mix's weight %zu must be finite and >= 0", i);
            return -EINVAL;
        }
    }
    if (n) {
        mix = numafit__calloc(n, sizeof(*mix));
        w = numafit__calloc(n, sizeof(double));
        if (!mix || !w) {
            numafit__free(mix);
            numafit__free(w);
            numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
            return -ENOMEM;
        }
        memcpy(mix, reqs, n * sizeof(*mix));
        memcpy(w, weights, n * sizeof(double));
    }
    numafit__free(o->mix);
    numafit__free(o->mix_weight);
    o->mix = mix;
    o->mix_weight = w;
    o->nmix = (uint32_t)n;
    return 0;
}

NUMAFIT_EXPORT int numafit_options_get_headroom_mix_count(const numafit_options_t *o) {
    return o ? (int)o->nmix : -EINVAL;
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

/* The limits JSON value: 0, or -errno with err filled. */
static int parse_limits(const char *buf, size_t len, json_t **ret, numafit_error_t *err) {
    static const struct numafit__json_src src = {"limits", NUMAFIT__JSON_VALUES_SMALL,
                                                 JSON_DECODE_ANY, ""};
    json_error_t jerr;
    int rc = numafit__json_parse(&src, buf, len, ret, &jerr, err);
    if (rc == -EBADMSG)
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, "", NULL, "limits: %s (line %d, column %d)",
                           jerr.text, jerr.line, jerr.column);
    return rc;
}

/* network_metadata.physnets (not null) into o. */
static int read_physnets(json_t *pn, numafit_options_t *o, numafit_error_t *err) {
    size_t i;
    json_t *e;
    if (!json_is_array(pn) || json_array_size(pn) > 4096) {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "/network_metadata/physnets", NULL,
                           "physnets must be a list of at most 4096 names");
        return -EINVAL;
    }
    o->physnets = numafit__calloc(json_array_size(pn), sizeof(char *));
    if (!o->physnets)
        return -ENOMEM;
    json_array_foreach(pn, i, e) {
        if (!json_is_string(e)) {
            numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "/network_metadata/physnets", NULL,
                               "physnets must hold strings");
            clear_physnets(o);
            return -EINVAL;
        }
        o->physnets[i] = numafit__strdup(json_string_value(e));
        if (!o->physnets[i]) {
            clear_physnets(o);
            return -ENOMEM;
        }
        o->nphysnets = (uint32_t)i + 1;
    }
    return 0;
}

/* network_metadata (not null) into o. */
static int read_netmeta(json_t *nm, numafit_options_t *o, numafit_error_t *err) {
    struct numafit__jpath jp;
    json_t *nd, *pn, *tu;
    int rc;
    numafit__jp_init(&jp, err);
    numafit__jp_push(&jp, "network_metadata");
    if (!(nd = numafit__jp_unwrap(&jp, nm, "NetworkMetadata", -1, NULL, &rc)))
        return rc;
    if (!json_is_object(nd))
        return numafit__jp_fail(&jp, -EINVAL, NUMAFIT_E_SCHEMA,
                                "network_metadata must be an object");
    o->has_netmeta = true;
    pn = json_object_get(nd, "physnets");
    tu = json_object_get(nd, "tunneled");
    if (tu && !json_is_boolean(tu)) {
        numafit__jp_push(&jp, "tunneled");
        return numafit__jp_fail(&jp, -EINVAL, NUMAFIT_E_SCHEMA, "tunneled must be a boolean");
    }
    o->tunneled = tu && json_is_true(tu);
    return pn && !json_is_null(pn) ? read_physnets(pn, o, err) : 0;
}

/* The limits object (not null) into tmp. */
static int read_limits(json_t *root, numafit_options_t *tmp, numafit_error_t *err) {
    struct numafit__jpath jp;
    json_t *d, *nm;
    int rc;
    numafit__jp_init(&jp, err);
    if (!(d = numafit__jp_unwrap(&jp, root, "NUMATopologyLimits", -1, NULL, &rc)))
        return rc;
    if ((rc = get_ratio(d, "cpu_allocation_ratio", &tmp->cpu_ratio, err)) < 0 ||
        (rc = get_ratio(d, "ram_allocation_ratio", &tmp->ram_ratio, err)) < 0)
        return rc;
    nm = json_object_get(d, "network_metadata");
    return nm && !json_is_null(nm) ? read_netmeta(nm, tmp, err) : 0;
}

NUMAFIT_EXPORT int numafit_options_set_limits_json(numafit_options_t *o, const char *buf,
                                                   size_t len, numafit_error_t *err) {
    json_t *root;
    int rc;
    numafit_options_t tmp;

    numafit__error_clear(err);
    if (!o || !buf || len > NUMAFIT_INPUT_MAX)
        return -EINVAL;
    if ((rc = parse_limits(buf, len, &root, err)) < 0)
        return rc;
    if (json_is_null(root)) {
        json_decref(root);
        return numafit_options_clear_limits(o);
    }
    if (!json_is_object(root)) {
        json_decref(root);
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "", NULL, "limits must be an object");
        return -EINVAL;
    }
    memset(&tmp, 0, sizeof(tmp));
    if ((rc = read_limits(root, &tmp, err)) < 0)
        goto out;
    clear_physnets(o);
    o->has_limits = true;
    o->cpu_ratio = tmp.cpu_ratio;
    o->ram_ratio = tmp.ram_ratio;
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
