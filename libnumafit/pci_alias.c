/*
 * PCI requests from a flavor (numafit_pci_requests_from_flavor, doc/pci.md):
 * nova.conf's [pci] alias entries checked as nova checks them (its JSON
 * schema, same-name aliases), the flavor's pci_passthrough:alias extra spec
 * read as nova splits it, and the NUMA affinity policy from
 * hw:pci_numa_affinity_policy and the image's hw_pci_numa_affinity_policy.
 * Every refusal carries nova's exception class.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "flavor.h"
#include "ini.h"
#include "json_count.h"
#include "jsonio.h"
#include "pci_internal.h"
#include "private.h"

/* One alias: its NUMA policy and specs (alternatives). */
struct alias {
    char *name;
    int policy;
    uint32_t nspecs;
    struct pci_spec *specs;
};

struct aliases {
    uint32_t n;
    struct alias *a;
};

static void aliases_clear(struct aliases *al) {
    for (uint32_t i = 0; i < al->n; i++) {
        for (uint32_t s = 0; s < al->a[i].nspecs; s++)
            numafit__pci_tags_free(al->a[i].specs[s].kv, al->a[i].specs[s].n);
        free(al->a[i].specs);
        free(al->a[i].name);
    }
    free(al->a);
    memset(al, 0, sizeof(*al));
}

static int invalid_alias(numafit_error_t *err, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int invalid_alias(numafit_error_t *err, unsigned line, const char *fmt, ...) {
    char where[64], why[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    snprintf(where, sizeof(where), "nova.conf:%u", line);
    numafit__error_set(err, NUMAFIT_E_REQUEST, -1, where, "PciInvalidAlias",
                       "Invalid PCI alias definition: %s", why);
    return -EINVAL;
}

/* jsonschema's maxLength counts characters: UTF-8 code points. */
static size_t code_points(const char *s) {
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* utils.PCI_VENDOR_PATTERN "^([\da-fA-F]{4})$" under re.search: four hex
 * digits (ASCII here), "$" also before one final newline. */
static bool vendor_pattern(const char *s) {
    for (int i = 0; i < 4; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
              (s[i] >= 'A' && s[i] <= 'F')))
            return false;
    return !s[4] || (s[4] == '\n' && !s[5]);
}

static int policy_of(const char *s) {
    for (int k = 1; k <= NUMAFIT_PCI_POLICY_SOCKET; k++)
        if (!strcmp(s, numafit__pci_policy_names[k]))
            return k;
    return NUMAFIT_PCI_POLICY_UNSET;
}

/* oslo's bool_from_string(strict=True): 1 true, 0 false, -1 neither. */
static int strict_bool(const char *s) {
    static const char *const no[] = {"0", "f", "false", "off", "n", "no"};
    char buf[16];
    size_t n;
    if (numafit__py_bool(s))
        return 1;
    while (numafit__py_space(*s))
        s++;
    n = strlen(s);
    while (n && numafit__py_space(s[n - 1]))
        n--;
    if (n >= sizeof(buf))
        return -1;
    for (size_t i = 0; i < n; i++)
        buf[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
    buf[n] = '\0';
    for (unsigned k = 0; k < 6; k++)
        if (!strcmp(buf, no[k]))
            return 0;
    return -1;
}

static const char *spec_value(const struct pci_spec *s, const char *key) {
    for (uint32_t i = 0; i < s->n; i++)
        if (!strcmp(s->kv[i].key, key))
            return s->kv[i].value;
    return NULL;
}

/* Add key=value to spec s (room for it was made). */
static int spec_put(struct pci_spec *s, const char *key, const char *value) {
    s->kv[s->n].key = numafit__strdup(key);
    s->kv[s->n].id = numafit__pci_key_id(key);
    s->kv[s->n].vh = numafit__pci_value_hash(value);
    s->kv[s->n].value = value ? numafit__strdup(value) : NULL;
    if (!s->kv[s->n].key || (value && !s->kv[s->n].value)) {
        free(s->kv[s->n].key);
        free(s->kv[s->n].value);
        return -ENOMEM;
    }
    s->n++;
    return 0;
}

/* Python's str.strip() (ASCII white space and \x1c-\x1f) into a copy. */
static char *py_strip(const char *s) {
    size_t n;
    char *d;
    while (numafit__py_space(*s))
        s++;
    n = strlen(s);
    while (n && numafit__py_space(s[n - 1]))
        n--;
    d = numafit__malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* One [pci] alias value, as nova's _get_alias_from_config takes it. */
static int add_alias(struct aliases *al, const char *text, unsigned line, bool latest,
                     numafit_error_t *err) {
    static const char *const zed_keys[] = {
        "name", "capability_type", "product_id", "vendor_id", "device_type", "numa_policy", NULL};
    static const char *const latest_keys[] = {"resource_class", "traits", "live_migratable", NULL};
    json_error_t jerr;
    json_t *o = json_loads(text, JSON_DECODE_ANY, &jerr), *v;
    struct pci_spec spec = {0, NULL};
    const char *key, *name_v, *policy_v, *dt;
    char *name = NULL;
    int policy, r = -EINVAL;

    if (!o)
        return invalid_alias(err, line, "not JSON (%s)", jerr.text);
    if (!json_is_object(o)) {
        json_decref(o);
        return invalid_alias(err, line, "%s", "an alias is a JSON object");
    }
    json_object_foreach(o, key, v) {
        bool known = false;
        for (unsigned k = 0; zed_keys[k]; k++)
            known = known || !strcmp(key, zed_keys[k]);
        for (unsigned k = 0; latest && latest_keys[k]; k++)
            known = known || !strcmp(key, latest_keys[k]);
        if (!known) {
            r = invalid_alias(err, line, "Additional properties are not allowed ('%.100s')", key);
            goto out;
        }
        if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v)) {
            r = invalid_alias(err, line, "'%.100s' must be a string", key);
            goto out;
        }
    }
    name_v = json_string_value(json_object_get(o, "name"));
    if (!name_v) {
        r = invalid_alias(err, line, "%s", "'name' is a required property");
        goto out;
    }
    if (code_points(name_v) < 1 || code_points(name_v) > 256) {
        r = invalid_alias(err, line, "%s", "the name must have 1 to 256 characters");
        goto out;
    }
    if ((v = json_object_get(o, "capability_type")) && strcmp(json_string_value(v), "pci")) {
        r = invalid_alias(err, line, "'%.100s' is not one of ['pci']", json_string_value(v));
        goto out;
    }
    for (unsigned k = 0; k < 2; k++) {
        const char *f = k ? "vendor_id" : "product_id";
        if ((v = json_object_get(o, f)) && !vendor_pattern(json_string_value(v))) {
            r = invalid_alias(err, line, "'%.100s' does not match '^([\\da-fA-F]{4})$'",
                              json_string_value(v));
            goto out;
        }
    }
    dt = json_string_value(json_object_get(o, "device_type"));
    if (dt && strcmp(dt, "type-PCI") && strcmp(dt, "type-PF") && strcmp(dt, "type-VF")) {
        r = invalid_alias(err, line, "'%.100s' is not one of ['type-PCI', 'type-PF', 'type-VF']",
                          dt);
        goto out;
    }
    policy_v = json_string_value(json_object_get(o, "numa_policy"));
    if (policy_v && !policy_of(policy_v)) {
        r = invalid_alias(err, line,
                          "'%.100s' is not one of ['required', 'legacy', 'preferred', 'socket']",
                          policy_v);
        goto out;
    }
    policy = policy_v ? policy_of(policy_v) : NUMAFIT_PCI_POLICY_LEGACY;
    /* the spec: every other key, device_type as dev_type */
    spec.kv = numafit__calloc(json_object_size(o) + 1, sizeof(*spec.kv));
    name = py_strip(name_v);
    if (!spec.kv || !name)
        goto nomem;
    json_object_foreach(o, key, v) {
        const char *val = json_string_value(v);
        if (!strcmp(key, "name") || !strcmp(key, "numa_policy"))
            continue;
        if (!strcmp(key, "device_type")) {
            if (*val && spec_put(&spec, "dev_type", val) < 0)
                goto nomem;
            continue;
        }
        if (!strcmp(key, "live_migratable")) {
            int b = strict_bool(val);
            if (b < 0) {
                r = invalid_alias(err, line, "Unrecognized value '%.100s' for live_migratable",
                                  val);
                goto out;
            }
            val = b ? "true" : "false";
        }
        if (spec_put(&spec, key, val) < 0)
            goto nomem;
    }
    for (uint32_t i = 0; i < al->n; i++) {
        struct alias *a = &al->a[i];
        const char *d0, *d1;
        struct pci_spec *n;
        if (strcmp(a->name, name))
            continue;
        if (a->policy != policy) {
            r = invalid_alias(err, line, "NUMA policy mismatch for alias '%.100s'", name);
            goto out;
        }
        d0 = spec_value(&a->specs[0], "dev_type");
        d1 = spec_value(&spec, "dev_type");
        if (!d0 || !d1) {
            /* nova reads a missing key: KeyError */
            r = invalid_alias(err, line, "%s", "'dev_type'");
            goto out;
        }
        if (strcmp(d0, d1)) {
            r = invalid_alias(err, line, "Device type mismatch for alias '%.100s'", name);
            goto out;
        }
        if (a->nspecs == NUMAFIT_PCI_SPECS_MAX) {
            r = invalid_alias(err, line, "more than %d specs for one alias", NUMAFIT_PCI_SPECS_MAX);
            goto out;
        }
        n = numafit__realloc(a->specs, (a->nspecs + 1) * sizeof(*n));
        if (!n)
            goto nomem;
        a->specs = n;
        a->specs[a->nspecs++] = spec;
        spec.kv = NULL;
        spec.n = 0;
        r = 0;
        goto out;
    }
    {
        struct alias *n = numafit__realloc(al->a, (al->n + 1) * sizeof(*n));
        if (!n)
            goto nomem;
        al->a = n;
        al->a[al->n].specs = numafit__malloc(sizeof(struct pci_spec));
        if (!al->a[al->n].specs)
            goto nomem;
        al->a[al->n].specs[0] = spec;
        al->a[al->n].nspecs = 1;
        al->a[al->n].name = name;
        al->a[al->n].policy = policy;
        al->n++;
        spec.kv = NULL;
        spec.n = 0;
        name = NULL;
    }
    r = 0;
    goto out;
nomem:
    numafit__error_set(err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
    r = -ENOMEM;
out:
    numafit__pci_tags_free(spec.kv, spec.n);
    free(name);
    json_decref(o);
    return r;
}

/* An alias value after oslo.config's substitution ("$$" is "$"; a
 * reference to another option is refused); al NULL: the substitution only,
 * which oslo.config does to every value first. */
static int add_alias_value(struct aliases *al, const char *raw, unsigned line, bool latest,
                           numafit_error_t *err) {
    char *text = NULL, name[64], where[32];
    int r = numafit__ini_template(raw, &text, name, sizeof(name));
    if (r < 0) {
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
        return r;
    }
    if (r == 1) {
        snprintf(where, sizeof(where), "nova.conf:%u", line);
        numafit__error_set(err, NUMAFIT_E_REQUEST, -1, where, "NoSuchOptError",
                           "the alias refers to the option $%s: libnumafit does not substitute "
                           "oslo.config references (nova does, or raises NoSuchOptError when "
                           "there is no such option)",
                           name);
        return -EINVAL;
    }
    r = al ? add_alias(al, text, line, latest, err) : 0;
    free(text);
    return r;
}

/* nova.conf's alias values in oslo.config's order for an option with a
 * deprecated name: those of [DEFAULT] pci_alias, then those of [pci]
 * alias, each in the file's order. */
static int read_aliases(const char *conf, size_t len, bool latest, struct aliases *al,
                        numafit_error_t *err) {
    static const char *const names[2][2] = {{"DEFAULT", "pci_alias"}, {"pci", "alias"}};
    struct numafit__ini ini;
    int r = 0;
    if (!conf)
        return 0;
    if ((r = numafit__ini_check_text(conf, len, NUMAFIT_NOVA_CONF_MAX, "nova_conf", err)) < 0)
        return r;
    if (numafit__ini_parse(&ini, conf, len) < 0) {
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
        return -ENOMEM;
    }
    for (unsigned pass = 0; pass < 2; pass++)
        for (unsigned k = 0; k < 2 && r == 0; k++)
            for (uint32_t i = 0; i < ini.nent && r == 0; i++)
                if (numafit__ini_is(&ini.ent[i], names[k][0], names[k][1]))
                    r = add_alias_value(pass ? al : NULL, ini.ent[i].value, ini.ent[i].line, latest,
                                        err);
    numafit__ini_clear(&ini);
    if (r < 0)
        return r;
    if (latest) {
        /* nova since 2025.1: every spec names its vendor and product */
        for (uint32_t i = 0; i < al->n; i++)
            for (uint32_t s = 0; s < al->a[i].nspecs; s++)
                if (!spec_value(&al->a[i].specs[s], "vendor_id") ||
                    !spec_value(&al->a[i].specs[s], "product_id")) {
                    numafit__error_set(
                        err, NUMAFIT_E_REQUEST, -1, "nova_conf", "PciInvalidAlias",
                        "The PCI alias(es) %.100s does not have vendor_id and product_id "
                        "fields set.",
                        al->a[i].name);
                    return -EINVAL;
                }
    }
    return 0;
}

static int refuse(numafit_error_t *err, const char *where, const char *exc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int refuse(numafit_error_t *err, const char *where, const char *exc, const char *fmt, ...) {
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    numafit__error_set(err, NUMAFIT_E_REQUEST, -1, where, exc, "%s", why);
    return -EINVAL;
}

/* A string member of an object (NULL when absent or null; *bad when another type). */
static const char *str_member(const json_t *o, const char *key, bool *bad) {
    json_t *v = o ? json_object_get(o, key) : NULL;
    if (!v || json_is_null(v))
        return NULL;
    if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v)) {
        *bad = true;
        return NULL;
    }
    return json_string_value(v);
}

/* The requests of one pci_passthrough:alias value. */
static int translate(const char *value, const struct aliases *al, int affinity,
                     numafit_pci_requests_t *reqs, numafit_error_t *err) {
    const char *p = value;
    for (;;) {
        const char *comma = strchr(p, ','), *colon;
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char *item = numafit__malloc(n + 1), *name, *count_s;
        const struct alias *a = NULL;
        struct pci_request *q;
        int64_t count;
        bool ovf = false;
        if (!item)
            goto nomem;
        memcpy(item, p, n);
        item[n] = '\0';
        colon = strchr(item, ':');
        if (!colon || strchr(colon + 1, ':')) {
            refuse(err, "extra_specs/pci_passthrough:alias", "ValueError",
                   "'%.200s' is not NAME:COUNT", item);
            free(item);
            return -EINVAL;
        }
        item[colon - item] = '\0';
        count_s = item + (colon - item) + 1;
        name = py_strip(item);
        if (!name) {
            free(item);
            goto nomem;
        }
        for (uint32_t i = 0; i < al->n && !a; i++)
            if (!strcmp(al->a[i].name, name))
                a = &al->a[i];
        if (!a) {
            refuse(err, "extra_specs/pci_passthrough:alias", "PciRequestAliasNotDefined",
                   "PCI alias %.200s is not defined", name);
            free(name);
            free(item);
            return -EINVAL;
        }
        if (!numafit__py_int(count_s, &count, &ovf) || ovf || count < 0 ||
            count > NUMAFIT_PCI_COUNT_MAX) {
            refuse(err, "extra_specs/pci_passthrough:alias", "ValueError",
                   "the count of '%.200s' is not an integer from 0 to 2147483647", name);
            free(name);
            free(item);
            return -EINVAL;
        }
        free(item);
        if (reqs->n == NUMAFIT_PCI_REQUESTS_MAX) {
            free(name);
            numafit__error_set(err, NUMAFIT_E_RANGE, -1, "extra_specs/pci_passthrough:alias", NULL,
                               "more than %d PCI requests", NUMAFIT_PCI_REQUESTS_MAX);
            return -ERANGE;
        }
        q = numafit__realloc(reqs->r, (reqs->n + 1) * sizeof(*q));
        if (!q) {
            free(name);
            goto nomem;
        }
        reqs->r = q;
        q = &reqs->r[reqs->n++];
        memset(q, 0, sizeof(*q));
        q->count = count;
        q->alias_name = name;
        q->policy = affinity ? affinity : a->policy;
        q->specs = numafit__calloc(a->nspecs, sizeof(*q->specs));
        if (!q->specs)
            goto nomem;
        q->nspecs = a->nspecs;
        for (uint32_t s = 0; s < a->nspecs; s++) {
            bool fail = false;
            q->specs[s].kv = numafit__pci_tags_dup(a->specs[s].kv, a->specs[s].n, &fail);
            q->specs[s].n = a->specs[s].n;
            if (fail)
                goto nomem;
        }
        if (!comma)
            return 0;
        p = comma + 1;
    }
nomem:
    numafit__error_set(err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
    return -ENOMEM;
}

NUMAFIT_EXPORT int numafit_pci_requests_from_flavor(const char *flavor_json, size_t flavor_len,
                                                    const char *image_json, size_t image_len,
                                                    const char *nova_conf, size_t conf_len,
                                                    unsigned flags, numafit_pci_requests_t **ret,
                                                    numafit_error_t *err) {
    static const struct numafit__json_src fsrc = {"flavor", NUMAFIT__JSON_VALUES_SMALL, 0, ""};
    static const struct numafit__json_src isrc = {"image", NUMAFIT__JSON_VALUES_SMALL, 0, ""};
    json_t *flavor = NULL, *image = NULL, *specs, *props = NULL;
    struct aliases al = {0, NULL};
    numafit_pci_requests_t *reqs = NULL;
    json_error_t jerr;
    const char *fp, *ip, *alias;
    bool bad = false;
    int affinity = NUMAFIT_PCI_POLICY_UNSET, r;

    numafit__error_clear(err);
    if (!flavor_json || !ret || (flags & ~(unsigned)NUMAFIT_PCI_ZED)) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL,
                           flags & ~(unsigned)NUMAFIT_PCI_ZED ? "unknown flag bits"
                                                              : "a flavor and ret are required");
        return -EINVAL;
    }
    r = numafit__json_parse(&fsrc, flavor_json, flavor_len, &flavor, &jerr, err);
    if (r == -EBADMSG)
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, "flavor", NULL, "flavor: %s", jerr.text);
    if (r < 0)
        return r;
    if (image_json) {
        r = numafit__json_parse(&isrc, image_json, image_len, &image, &jerr, err);
        if (r == -EBADMSG)
            numafit__error_set(err, NUMAFIT_E_PARSE, -1, "image", NULL, "image: %s", jerr.text);
        if (r < 0)
            goto out;
        props = json_object_get(image, "properties");
    }
    specs = json_is_object(flavor) ? json_object_get(flavor, "extra_specs") : NULL;
    if (!json_is_object(flavor) || (specs && !json_is_object(specs) && !json_is_null(specs)) ||
        (image && (!json_is_object(image) || (props && !json_is_object(props))))) {
        numafit__error_set(
            err, NUMAFIT_E_SCHEMA, -1, image && !json_is_object(image) ? "image" : "flavor", NULL,
            "a flavor is {\"extra_specs\": {...}}, an image {\"properties\": {...}}");
        r = -EINVAL;
        goto out;
    }
    /* the policy: flavor and image must agree (nova's
     * get_pci_numa_policy_constraint); the image's is an enum field */
    fp = str_member(specs, "hw:pci_numa_affinity_policy", &bad);
    ip = str_member(props, "hw_pci_numa_affinity_policy", &bad);
    alias = str_member(specs, "pci_passthrough:alias", &bad);
    if (bad) {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "flavor", NULL,
                           "extra specs and image properties are strings");
        r = -EINVAL;
        goto out;
    }
    if (ip && !policy_of(ip)) {
        r = refuse(err, "image/properties/hw_pci_numa_affinity_policy", "InvalidPCINUMAAffinity",
                   "Invalid PCI NUMA affinity configured: %.200s", ip);
        goto out;
    }
    if (fp && *fp && ip && *ip && strcmp(fp, ip)) {
        r = refuse(err, "extra_specs/hw:pci_numa_affinity_policy", "ImagePCINUMAPolicyForbidden",
                   "%s",
                   "Image property 'hw_pci_numa_affinity_policy' is not permitted to "
                   "override the 'hw:pci_numa_affinity_policy' flavor extra spec.");
        goto out;
    }
    if (fp && *fp) {
        affinity = policy_of(fp);
        if (!affinity) {
            r = refuse(err, "extra_specs/hw:pci_numa_affinity_policy", "InvalidPCINUMAAffinity",
                       "Invalid PCI NUMA affinity configured: %.200s", fp);
            goto out;
        }
    } else if (ip && *ip) {
        affinity = policy_of(ip);
    }
    reqs = numafit__calloc(1, sizeof(*reqs));
    if (!reqs) {
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
        r = -ENOMEM;
        goto out;
    }
    if (alias) {
        if ((r = read_aliases(nova_conf, conf_len, !(flags & NUMAFIT_PCI_ZED), &al, err)) < 0 ||
            (r = translate(alias, &al, affinity, reqs, err)) < 0)
            goto out;
    }
    *ret = reqs;
    reqs = NULL;
    r = 0;
out:
    aliases_clear(&al);
    numafit_pci_requests_free(reqs);
    json_decref(flavor);
    json_decref(image);
    return r;
}

/* ------------------------------------------------------------ ports */

NUMAFIT_EXPORT int numafit_pci_requests_new(numafit_pci_requests_t **ret) {
    if (!ret)
        return -EINVAL;
    *ret = numafit__calloc(1, sizeof(**ret));
    return *ret ? 0 : -ENOMEM;
}

NUMAFIT_EXPORT int numafit_pci_requests_add_port(numafit_pci_requests_t *reqs,
                                                 const char *vnic_type, const char *physnet,
                                                 int trusted, const char *port_id,
                                                 const char *port_policy, int policy,
                                                 numafit_error_t *err) {
    static const char *const sriov[] = {
        "direct", "macvtap", "direct-physical", "virtio-forwarder", "vdpa", "remote-managed", NULL};
    static const char *const other[] = {
        "normal", "baremetal", "smart-nic", "accelerator-direct", "accelerator-direct-physical",
        NULL};
    struct pci_request *q;
    struct pci_spec *spec;
    bool is_sriov = false, known = false;
    int pol = policy;

    numafit__error_clear(err);
    if (!reqs || !vnic_type || trusted < -1 || trusted > 1 || policy < NUMAFIT_PCI_POLICY_UNSET ||
        policy > NUMAFIT_PCI_POLICY_SOCKET) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL, "invalid argument");
        return -EINVAL;
    }
    for (unsigned k = 0; sriov[k]; k++)
        is_sriov = is_sriov || !strcmp(vnic_type, sriov[k]);
    for (unsigned k = 0; other[k]; k++)
        known = known || !strcmp(vnic_type, other[k]);
    if (!is_sriov && !known) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "vnic_type", NULL,
                           "unknown vnic type '%.100s'", vnic_type);
        return -EINVAL;
    }
    if (port_policy && *port_policy) {
        pol = policy_of(port_policy);
        if (!pol) {
            numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "numa_affinity_policy", NULL,
                               "'%.100s' is not required, legacy, preferred or socket",
                               port_policy);
            return -EINVAL;
        }
    }
    if (!is_sriov)
        return 0;
    if (reqs->n == NUMAFIT_PCI_REQUESTS_MAX) {
        numafit__error_set(err, NUMAFIT_E_RANGE, -1, NULL, NULL, "more than %d PCI requests",
                           NUMAFIT_PCI_REQUESTS_MAX);
        return -ERANGE;
    }
    q = numafit__realloc(reqs->r, (reqs->n + 1) * sizeof(*q));
    if (!q)
        goto nomem;
    reqs->r = q;
    q = &reqs->r[reqs->n];
    memset(q, 0, sizeof(*q));
    q->count = 1;
    q->policy = pol;
    spec = q->specs = numafit__calloc(1, sizeof(*q->specs));
    if (!spec || !(spec->kv = numafit__calloc(4, sizeof(*spec->kv))))
        goto fail;
    q->nspecs = 1;
    if (spec_put(spec, "physical_network", physnet) < 0 ||
        spec_put(spec, "remote_managed", !strcmp(vnic_type, "remote-managed") ? "True" : "False") <
            0 ||
        (!strcmp(vnic_type, "direct-physical") && spec_put(spec, "dev_type", "type-PF") < 0) ||
        (!strcmp(vnic_type, "vdpa") && spec_put(spec, "dev_type", "vdpa") < 0) ||
        (trusted >= 0 && spec_put(spec, "trusted", trusted ? "True" : "False") < 0) ||
        (port_id && !(q->requester_id = numafit__strdup(port_id))))
        goto fail;
    reqs->n++;
    return 1;
fail:
    numafit__pci_request_clear(q);
nomem:
    numafit__error_set(err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
    return -ENOMEM;
}

/* The providers of request r in nova's provider mapping (its groups are
 * REQUEST_ID-N, each fulfilled from one provider: the first of its list),
 * comma-separated into a new string ("" for none); NULL when out of memory. */
static char *mapping_rps(const json_t *map, const char *request_id) {
    const char *group;
    json_t *list;
    size_t n = 1, used = 0, idlen = strlen(request_id);
    char *out;
    json_object_foreach((json_t *)map, group, list) {
        if (!strncmp(group, request_id, idlen))
            n += strlen(json_string_value(json_array_get(list, 0))) + 1;
    }
    out = numafit__malloc(n);
    if (!out)
        return NULL;
    out[0] = '\0';
    json_object_foreach((json_t *)map, group, list) {
        const char *rp = json_string_value(json_array_get(list, 0));
        if (strncmp(group, request_id, idlen) != 0)
            continue;
        used += (size_t)snprintf(out + used, n - used, "%s%s", used ? "," : "", rp);
    }
    return out;
}

NUMAFIT_EXPORT int numafit_pci_requests_set_provider_mapping(numafit_pci_requests_t *reqs,
                                                             const char *mapping_json, size_t len,
                                                             numafit_error_t *err) {
    json_t *map;
    json_error_t je;
    const char *group;
    json_t *list;
    char **rps = NULL;
    int r = 0;

    numafit__error_clear(err);
    if (!reqs || !mapping_json) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL,
                           "requests and a mapping are required");
        return -EINVAL;
    }
    if (len > NUMAFIT_INPUT_MAX) {
        numafit__error_set(err, NUMAFIT_E_RANGE, -1, NULL, NULL,
                           "the mapping is larger than %u bytes", NUMAFIT_INPUT_MAX);
        return -ERANGE;
    }
    map = numafit__json_loadb(mapping_json, len, JSON_REJECT_DUPLICATES, &je);
    if (!map) {
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, NULL, NULL, "provider mapping: %s", je.text);
        return -EBADMSG;
    }
    if (!json_is_object(map)) {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "", NULL,
                           "a provider mapping is an object {GROUP: [RP_UUID, ...]}");
        r = -EINVAL;
        goto out;
    }
    json_object_foreach(map, group, list) {
        const char *rp = json_string_value(json_array_get(list, 0));
        if (!json_is_array(list) || !rp || !*rp || strchr(rp, ',') ||
            strlen(rp) > NUMAFIT_PCI_STRING_MAX) {
            numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, NULL, NULL,
                               "a group's providers are a list whose first element is a "
                               "resource provider's uuid");
            snprintf(err->where, sizeof(err->where), "/%.60s", group);
            r = -EINVAL;
            goto out;
        }
    }
    /* nova: an empty mapping leaves each request's own rp_uuids */
    if (json_object_size(map) == 0)
        goto out;
    /* all or nothing: the new values first */
    rps = numafit__calloc(reqs->n ? reqs->n : 1, sizeof(*rps));
    if (!rps)
        goto nomem;
    for (uint32_t i = 0; i < reqs->n; i++) {
        const struct pci_request *q = &reqs->r[i];
        if (!q->alias_name || !q->nspecs)
            continue; /* a port's request: placement has none for it */
        if (!q->request_id) {
            numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, NULL, NULL,
                               "a request without request_id cannot be found in a provider "
                               "mapping (nova fails with a TypeError)");
            snprintf(err->where, sizeof(err->where), "pci_requests/%u", i);
            r = -EINVAL;
            goto out;
        }
        if (!(rps[i] = mapping_rps(map, q->request_id)))
            goto nomem;
        if (strlen(rps[i]) > NUMAFIT_PCI_STRING_MAX) {
            numafit__error_set(err, NUMAFIT_E_RANGE, -1, NULL, NULL,
                               "the providers of request %u exceed %d bytes", i,
                               NUMAFIT_PCI_STRING_MAX);
            r = -ERANGE;
            goto out;
        }
    }
    for (uint32_t i = 0; i < reqs->n; i++) {
        struct pci_spec *s;
        uint32_t k;
        if (!rps[i])
            continue;
        s = &reqs->r[i].specs[0];
        for (k = 0; k < s->n && s->kv[k].id != PCI_KEY_RP_UUIDS; k++)
            ;
        if (k < s->n) {
            /* replace (or drop, for no providers) */
            free(s->kv[k].key);
            free(s->kv[k].value);
            memmove(&s->kv[k], &s->kv[k + 1], (s->n - k - 1) * sizeof(*s->kv));
            s->n--;
        }
        if (rps[i][0]) {
            struct pci_tag *kv = numafit__realloc(s->kv, (s->n + 1) * sizeof(*kv));
            if (!kv)
                goto nomem; /* the requests before it keep their new rp_uuids */
            s->kv = kv;
            if (spec_put(s, "rp_uuids", rps[i]) < 0)
                goto nomem;
        }
    }
    goto out;
nomem:
    numafit__error_set(err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
    r = -ENOMEM;
out:
    for (uint32_t i = 0; rps && i < reqs->n; i++)
        free(rps[i]);
    free(rps);
    json_decref(map);
    return r;
}
