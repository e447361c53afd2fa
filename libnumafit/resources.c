/*
 * What a request asks of placement (numafit_resources_from_flavor): nova's
 * scheduler turns the flavor, its extra specs and the image into request
 * groups of resource classes (ResourceRequest.from_request_spec) and
 * placement sums them per provider. The classes of the NUMA model are
 * VCPU, PCPU, MEMORY_MB and DISK_GB; doc/placement.md has the rules.
 *
 * The request groups are kept as one table of slots: a slot per
 * `resources[SUFFIX]:CLASS` key, written without its final newline (nova's
 * key pattern ends in `(.*)$`, and `$` also matches before a final
 * newline, so "resources:VCPU" and "resources:VCPU\n" set one group's one
 * class: the later valid value wins, as in nova's dict of the group).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "flavor.h"
#include "request_rules.h"

static const char *const class_names[NUMAFIT_RC_COUNT] = {"VCPU", "PCPU", "MEMORY_MB", "DISK_GB"};

NUMAFIT_EXPORT const char *numafit_resource_class_to_string(int rc) {
    return rc >= 0 && rc < NUMAFIT_RC_COUNT ? class_names[rc] : NULL;
}

/* a + b saturated to int64 */
static int64_t add_sat(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return a > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static int nomem(numafit_error_t *err) {
    numafit__error_set(err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
    return -ENOMEM;
}

static bool suffix_char(char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '_' || ch == '-';
}

/*
 * key as nova's ResourceRequest reads it: re.match of
 * ^(resources|trait)([a-zA-Z0-9_-]{1,64})?:(.*)$ for this prefix. Sets
 * *name and *n to the name after ':' (without a final newline, which `$`
 * lets through) and *keylen to the key's length without it; false when it
 * is no such key.
 */
static bool xs_key(const char *key, const char *prefix, const char **name, size_t *n,
                   size_t *keylen) {
    size_t plen = strlen(prefix), len;
    const char *p, *nl;
    if (strncmp(key, prefix, plen))
        return false;
    for (p = key + plen; suffix_char(*p); p++)
        ;
    if (p - (key + plen) > 64 || *p != ':')
        return false;
    *name = p + 1;
    len = strlen(*name);
    nl = strchr(*name, '\n');
    if (nl && nl != *name + len - 1)
        return false; /* '.' does not match a newline, '$' only before the last */
    *n = nl ? len - 1 : len;
    *keylen = (size_t)(*name - key) + *n;
    return true;
}

/* A resources key: the class of the model it names (-1 for another class or none). */
static bool resources_key(const char *key, int *cls, size_t *keylen) {
    const char *name;
    size_t n;
    if (!xs_key(key, "resources", &name, &n, keylen))
        return false;
    *cls = -1;
    for (int i = 0; i < NUMAFIT_RC_COUNT; i++)
        if (strlen(class_names[i]) == n && !memcmp(name, class_names[i], n))
            *cls = i;
    return true;
}

#define SMT_TRAIT "HW_CPU_HYPERTHREADING"

/* A trait key naming HW_CPU_HYPERTHREADING: its requirement bits. */
static unsigned smt_trait_bits(const char *key, const char *value) {
    const char *name;
    size_t n, len;
    if (!xs_key(key, "trait", &name, &n, &len) || n != strlen(SMT_TRAIT) ||
        memcmp(name, SMT_TRAIT, n))
        return 0;
    if (value && !strcmp(value, "required"))
        return NUMAFIT_RESOURCES_SMT_REQUIRED;
    if (value && !strcmp(value, "forbidden"))
        return NUMAFIT_RESOURCES_SMT_FORBIDDEN;
    return 0; /* nova warns and ignores other values */
}

/* RequestGroup.add_resource's amount: int(value) >= 0, else ignored (false). */
static bool amount_of(const char *s, int64_t *out) {
    int64_t v;
    if (!s || !numafit__py_int(s, &v, NULL) || v < 0)
        return false;
    *out = v;
    return true;
}

/*
 * The extra specs' request groups: slots maps each resources key of a
 * class of the model (without its final newline) to its last valid
 * amount; *traits gets the SMT bits of the trait keys.
 */
static int read_groups(const json_t *specs, json_t *slots, unsigned *traits, numafit_error_t *err) {
    const char *key;
    json_t *v;
    if (!specs)
        return 0;
    json_object_foreach((json_t *)specs, key, v) {
        char buf[32], *slot;
        const char *str;
        int64_t amount;
        size_t len;
        int cls, rc;
        if ((rc = numafit__spec_value(v, key, buf, sizeof(buf), &str, err)) < 0)
            return rc;
        *traits |= smt_trait_bits(key, str);
        if (!resources_key(key, &cls, &len) || cls < 0 || !amount_of(str, &amount))
            continue;
        slot = numafit__malloc(len + 1);
        if (!slot)
            return nomem(err);
        memcpy(slot, key, len);
        slot[len] = '\0';
        rc = json_object_set_new(slots, slot, json_integer(amount));
        numafit__free(slot);
        if (rc < 0)
            return nomem(err);
    }
    return 0;
}

/* flavor[name] as an IntegerField in [0, NUMAFIT_RESOURCE_AMOUNT_MAX]; absent: 0. */
static int disk_field(const json_t *flavor, const char *name, int64_t *out, numafit_error_t *err) {
    const json_t *v = json_object_get(flavor, name);
    bool ovf;
    *out = 0;
    if (!v)
        return 0;
    if (!numafit__json_py_int(v, out, &ovf)) {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, name, NULL, "flavor %s must be an integer",
                           name);
        return -EINVAL;
    }
    if (ovf || *out < 0 || *out > NUMAFIT_RESOURCE_AMOUNT_MAX) {
        numafit__error_set(err, NUMAFIT_E_RANGE, -1, name, NULL, "flavor %s must be from 0 to %d",
                           name, NUMAFIT_RESOURCE_AMOUNT_MAX);
        return -ERANGE;
    }
    return 0;
}

/* The dedicated vCPUs of a request (its cells' pcpusets). */
static int64_t pinned_vcpus(const numafit_request_t *req) {
    int64_t n = 0;
    for (uint32_t i = 0; i < req->ncells; i++)
        n += numafit__bits_count(req->cells[i].pcpuset, req->nw);
    return n;
}

/* hw:cpu_thread_policy as nova's scheduler translates it: a trait of group
 * None (nova reads the policy given; the request may have it from the
 * trait itself, whose key then set the same bit already). */
static unsigned thread_traits(const numafit_request_t *req) {
    if (req->thread_policy == NUMAFIT_THREAD_POLICY_ISOLATE)
        return NUMAFIT_RESOURCES_SMT_FORBIDDEN;
    if (req->thread_policy == NUMAFIT_THREAD_POLICY_REQUIRE)
        return NUMAFIT_RESOURCES_SMT_REQUIRED;
    return 0;
}

/* hw:cpu_policy as nova's scheduler translates it into group None. */
static int translate_policy(const numafit_request_t *req, json_t *slots, int *pinning,
                            numafit_error_t *err) {
    int64_t pcpus;
    if (req->cpu_policy == NUMAFIT_CPU_POLICY_DEDICATED) {
        *pinning = NUMAFIT_RESOURCES_FALLBACK;
        pcpus = req->vcpus;
    } else if (req->cpu_policy == NUMAFIT_CPU_POLICY_MIXED) {
        pcpus = pinned_vcpus(req);
        if (json_object_set_new(slots, "resources:VCPU", json_integer(req->vcpus - pcpus)) < 0)
            return nomem(err);
    } else {
        return 0;
    }
    if (req->emulator_policy == NUMAFIT_EMULATOR_THREADS_ISOLATE)
        pcpus++;
    if (json_object_set_new(slots, "resources:PCPU", json_integer(pcpus)) < 0)
        return nomem(err);
    return 0;
}

/* The slots summed per class (present[] even when 0). */
static void merge(const json_t *slots, int64_t sum[NUMAFIT_RC_COUNT],
                  bool present[NUMAFIT_RC_COUNT]) {
    const char *key;
    json_t *v;
    memset(present, 0, NUMAFIT_RC_COUNT * sizeof(bool));
    for (int i = 0; i < NUMAFIT_RC_COUNT; i++)
        sum[i] = 0;
    json_object_foreach((json_t *)slots, key, v) {
        size_t len;
        int cls;
        if (resources_key(key, &cls, &len) && cls >= 0) {
            sum[cls] = add_sat(sum[cls], json_integer_value(v));
            present[cls] = true;
        }
    }
}

/* The flavor's defaults for the classes no group asked for. */
static int defaults(const numafit_request_t *req, const json_t *flavor, unsigned flags,
                    int64_t sum[NUMAFIT_RC_COUNT], const bool present[NUMAFIT_RC_COUNT],
                    numafit_error_t *err) {
    int64_t root, eph, swap;
    int rc;
    if ((rc = disk_field(flavor, "root_gb", &root, err)) < 0 ||
        (rc = disk_field(flavor, "ephemeral_gb", &eph, err)) < 0 ||
        (rc = disk_field(flavor, "swap", &swap, err)) < 0)
        return rc;
    if (!present[NUMAFIT_RC_VCPU] && !present[NUMAFIT_RC_PCPU])
        sum[NUMAFIT_RC_VCPU] = req->vcpus;
    if (!present[NUMAFIT_RC_MEMORY_MB])
        sum[NUMAFIT_RC_MEMORY_MB] = (int64_t)req->memory_mb;
    if (!present[NUMAFIT_RC_DISK_GB])
        sum[NUMAFIT_RC_DISK_GB] =
            eph + (swap + 1023) / 1024 + (flags & NUMAFIT_RESOURCES_BOOT_FROM_VOLUME ? 0 : root);
    return 0;
}

NUMAFIT_EXPORT int numafit_resources_from_flavor(const char *flavor_json, size_t flavor_len,
                                                 const char *image_json, size_t image_len,
                                                 unsigned flags, int64_t *ret_amounts, size_t n,
                                                 numafit_error_t *err) {
    const unsigned known =
        NUMAFIT_RESOURCES_ZED | NUMAFIT_RESOURCES_BOOT_FROM_VOLUME | NUMAFIT_RESOURCES_LEGACY;
    numafit_request_t *req = NULL;
    json_t *flavor = NULL, *slots = NULL;
    const json_t *specs;
    int64_t sum[NUMAFIT_RC_COUNT];
    bool present[NUMAFIT_RC_COUNT];
    unsigned traits = 0;
    int rc, pinning = 0;

    numafit__error_clear(err);
    if (!flavor_json || (!ret_amounts && n)) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL,
                           "flavor JSON and ret_amounts are required");
        return -EINVAL;
    }
    if (flags & ~known) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "flags", NULL, "unknown flag bits 0x%x",
                           flags & ~known);
        return -EINVAL;
    }
    /* nova's API checks the flavor (numa_get_constraints) before it is
     * scheduled: the request, from the one parse of the flavor */
    rc = numafit__request_from_text(flavor_json, flavor_len, image_json, image_len,
                                    flags & NUMAFIT_RESOURCES_ZED, &req, &flavor, err);
    if (rc < 0)
        return rc;
    if (req->image_smt_required)
        traits |= NUMAFIT_RESOURCES_SMT_REQUIRED;
    rc = numafit__flavor_specs(flavor, NUMAFIT__FLAVOR_REQUEST, &specs, err);
    if (rc == 0 && !(slots = json_object()))
        rc = nomem(err);
    if (rc == 0)
        rc = read_groups(specs, slots, &traits, err);
    /* resources:VCPU/PCPU and hw:cpu_policy exclude each other (the
     * request refuses both), so a policy of theirs is not translated */
    if (rc == 0 && !(flags & NUMAFIT_RESOURCES_LEGACY)) {
        traits |= thread_traits(req);
        if (!req->cpu_policy_from_resources)
            rc = translate_policy(req, slots, &pinning, err);
    }
    if (rc == 0) {
        merge(slots, sum, present);
        rc = defaults(req, flavor, flags, sum, present, err);
    }
    for (int i = 0; rc == 0 && i < NUMAFIT_RC_COUNT; i++)
        if (sum[i] > NUMAFIT_RESOURCE_AMOUNT_MAX) {
            numafit__error_set(err, NUMAFIT_E_RANGE, -1, class_names[i], NULL,
                               "%lld %s asked, more than placement takes (%d)", (long long)sum[i],
                               class_names[i], NUMAFIT_RESOURCE_AMOUNT_MAX);
            rc = -ERANGE;
        }
    json_decref(slots);
    json_decref(flavor);
    numafit_request_free(req);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < n; i++)
        ret_amounts[i] = i < NUMAFIT_RC_COUNT ? sum[i] : 0;
    return pinning | (int)traits;
}
