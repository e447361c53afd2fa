/* The forms of a flavor or image an operator has at hand (openstack CLI
 * output, nova's and glance's API JSON) read into numafit's own form, and
 * the text form of extra specs and image properties that openstackclient
 * prints ("hw:cpu_policy='dedicated', hw:mem_page_size='1GB'"). */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <jansson.h>

#include "flavor.h"
#include "private.h"

/* ------------------------------------------------------------ the text form */

/* Bytes of the valid UTF-8 sequence at s[0..n), 0 if there is none (an
 * overlong form, a surrogate, above U+10FFFF, or truncated). */
static size_t utf8_len(const unsigned char *s, size_t n) {
    size_t len, k;
    unsigned cp;
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        len = 2, cp = s[0] & 0x1fu;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        len = 3, cp = s[0] & 0x0fu;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        len = 4, cp = s[0] & 0x07u;
    else
        return 0;
    if (n < len)
        return 0;
    for (k = 1; k < len; k++) {
        if ((s[k] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[k] & 0x3fu);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return len;
}

static bool text_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* A key's byte: anything but the separators, quotes and control bytes. */
static bool key_byte(char c) {
    return c != '=' && c != '\'' && c != '"' && c != ',' && c != '\\' && (unsigned char)c >= 0x20 &&
           c != 0x7f;
}

/* The key at p (leading white space skipped): its end (white space
 * trimmed) in *kend, the first byte after '=' and white space returned;
 * NULL if p holds no "key=". */
static const char *scan_key(const char *p, const char *e, const char **kstart, const char **kend) {
    while (p < e && text_space(*p))
        p++;
    *kstart = p;
    while (p < e && key_byte(*p))
        p++;
    *kend = p;
    while (*kend > *kstart && text_space((*kend)[-1]))
        (*kend)--;
    if (*kend == *kstart || p == e || *p != '=')
        return NULL;
    for (p++; p < e && text_space(*p); p++)
        ;
    return p;
}

/* Does the quote at q close its value: white space then the end, or
 * white space, ',' and the next "key='"? */
static bool closes(const char *q, const char *e) {
    const char *p = q + 1, *ks, *ke;
    while (p < e && text_space(*p))
        p++;
    if (p == e)
        return true;
    if (*p != ',')
        return false;
    p = scan_key(p + 1, e, &ks, &ke);
    return p && p < e && *p == '\'';
}

static int text_error(numafit_error_t *err, const char *field, const char *s, const char *at,
                      const char *what) {
    numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, field, NULL,
                       "%s at byte %zu of the text form (key='value', key='value', ...)", what,
                       (size_t)(at - s));
    return -EINVAL;
}

int numafit__spec_text_parse(const char *s, size_t n, const char *field, json_t **ret,
                             numafit_error_t *err) {
    const char *p = s, *e = s + n;
    json_t *obj;
    char *val = NULL;
    int rc = 0;

    for (size_t i = 0, k; i < n; i += k) {
        k = s[i] ? utf8_len((const unsigned char *)s + i, n - i) : 0;
        if (!k)
            return text_error(err, field, s, s + i, s[i] ? "not UTF-8" : "a NUL byte");
    }
    if (!(obj = json_object()) || !(val = numafit__malloc(n + 1))) {
        json_decref(obj);
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, field, NULL, "out of memory");
        return -ENOMEM;
    }
    while (p < e && text_space(*p))
        p++;
    while (p < e) {
        const char *ks, *ke, *v;
        size_t vn = 0;
        char key[256];
        json_t *js;

        if (!(v = scan_key(p, e, &ks, &ke))) {
            rc = text_error(err, field, s, ks, "a key then '=' expected");
            break;
        }
        if ((size_t)(ke - ks) >= sizeof(key)) {
            rc = text_error(err, field, s, ks, "a key longer than 255 bytes");
            break;
        }
        memcpy(key, ks, (size_t)(ke - ks));
        key[ke - ks] = '\0';
        if (v == e || *v != '\'') {
            rc = text_error(err, field, s, v, "a quoted value ('...') expected");
            break;
        }
        for (p = v + 1; p < e; p++) {
            if (*p == '\\' && p + 1 < e && (p[1] == '\'' || p[1] == '\\'))
                val[vn++] = *++p; /* \' and \\ */
            else if (*p == '\'' && closes(p, e))
                break;
            else
                val[vn++] = *p;
        }
        if (p == e) {
            rc = text_error(err, field, s, v, "an unterminated quoted value");
            break;
        }
        if (json_object_get(obj, key)) {
            numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, field, NULL,
                               "the key '%s' appears twice in the text form", key);
            rc = -EINVAL;
            break;
        }
        if (json_object_size(obj) >= NUMAFIT__JSON_VALUES_SMALL) {
            numafit__error_set(err, NUMAFIT_E_RANGE, -1, field, NULL,
                               "more than %u keys in the text form", NUMAFIT__JSON_VALUES_SMALL);
            rc = -ERANGE;
            break;
        }
        if (!(js = json_stringn(val, vn)) || json_object_set_new(obj, key, js) < 0) {
            numafit__error_set(err, NUMAFIT_E_NOMEM, -1, field, NULL, "out of memory");
            rc = -ENOMEM;
            break;
        }
        for (p++; p < e && text_space(*p); p++)
            ;
        if (p < e && *p == ',')
            p++; /* closes() saw the next key */
    }
    numafit__free(val);
    if (rc < 0) {
        json_decref(obj);
        return rc;
    }
    *ret = obj;
    return 0;
}

/* ------------------------------------------------------------ forms */

static const char *const form_names[] = {
    [NUMAFIT_FORM_NATIVE] = "numafit JSON",
    [NUMAFIT_FORM_OSC_FLAVOR] = "openstack flavor show JSON",
    [NUMAFIT_FORM_OSC_FLAVOR_TEXT] = "openstack flavor show JSON (properties as text)",
    [NUMAFIT_FORM_NOVA_FLAVOR] = "nova API flavor JSON ({\"flavor\": ...})",
    [NUMAFIT_FORM_NOVA_FLAVOR_BARE] = "nova API flavor JSON (the inner object)",
    [NUMAFIT_FORM_OSC_IMAGE] = "openstack image show JSON",
    [NUMAFIT_FORM_OSC_IMAGE_TEXT] = "openstack image show JSON (properties as text)",
    [NUMAFIT_FORM_GLANCE_IMAGE] = "glance image JSON (properties at the top level)",
};

const char *numafit_input_form_to_string(int form) {
    if (form < 0 || (size_t)form >= sizeof(form_names) / sizeof(form_names[0]))
        return NULL;
    return form_names[form];
}

static bool in_list(const char *key, const char *const *list) {
    for (; *list; list++)
        if (!strcmp(key, *list))
            return true;
    return false;
}

/* numafit's own flavor keys (request, resources, domain XML). */
static const char *const native_flavor_keys[] = {
    "vcpus", "memory_mb", "extra_specs", "root_gb", "ephemeral_gb", "swap", "name", NULL};
/* What openstackclient and nova's API print besides the extra specs (nova's
 * flavor, 2.55's description, the server's embedded flavor of 2.47). */
static const char *const openstack_flavor_keys[] = {"id",
                                                    "name",
                                                    "original_name",
                                                    "ram",
                                                    "vcpus",
                                                    "disk",
                                                    "swap",
                                                    "ephemeral",
                                                    "OS-FLV-EXT-DATA:ephemeral",
                                                    "OS-FLV-DISABLED:disabled",
                                                    "os-flavor-access:is_public",
                                                    "rxtx_factor",
                                                    "access_project_ids",
                                                    "description",
                                                    "links",
                                                    "properties",
                                                    "extra_specs",
                                                    NULL};
/* Glance's own image fields (v2 and the image fields openstackclient
 * prints); every other top-level key of a glance image is a property. */
static const char *const glance_keys[] = {"id",
                                          "name",
                                          "status",
                                          "checksum",
                                          "size",
                                          "disk_format",
                                          "container_format",
                                          "visibility",
                                          "min_ram",
                                          "min_disk",
                                          "owner",
                                          "tags",
                                          "created_at",
                                          "updated_at",
                                          "file",
                                          "schema",
                                          "os_hash_algo",
                                          "os_hash_value",
                                          "os_hidden",
                                          "protected",
                                          "virtual_size",
                                          "direct_url",
                                          "locations",
                                          "self",
                                          "stores",
                                          "is_public",
                                          "is_protected",
                                          "deleted",
                                          "deleted_at",
                                          "members",
                                          "properties",
                                          NULL};
/* Fields only a glance image has: one of them makes a document a glance
 * image (a name or tags alone do not). */
static const char *const glance_marks[] = {"id",     "status",           "disk_format",
                                           "schema", "container_format", "checksum",
                                           "file",   "visibility",       NULL};

/* A key as the field an error names: the empty key as "" (JSON's
 * spelling), so that a refusal always names its field. */
static const char *field_name(const char *key) {
    return key && key[0] ? key : "\"\"";
}

/* Fill err with a schema error naming where; -EINVAL. */
#define SCHEMA(err, where, ...)                                                                    \
    (numafit__error_set((err), NUMAFIT_E_SCHEMA, -1, field_name(where), NULL, __VA_ARGS__), -EINVAL)

static int nomem(numafit_error_t *err, const char *what) {
    numafit__error_set(err, NUMAFIT_E_NOMEM, -1, what, NULL, "out of memory");
    return -ENOMEM;
}

/* Extra specs or image properties given as an object (copied) or as text
 * (parsed): *ret, *text whether it was text. */
static int spec_object(const json_t *v, const char *field, const char *what, json_t **ret,
                       bool *text, numafit_error_t *err) {
    *text = json_is_string(v);
    if (*text)
        return numafit__spec_text_parse(json_string_value(v), json_string_length(v), field, ret,
                                        err);
    if (json_is_null(v)) {
        *ret = json_object();
    } else if (json_is_object(v)) {
        *ret = json_deep_copy(v);
    } else {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, field, NULL,
                           "%s's %s must be an object or openstackclient's text form", what, field);
        return -EINVAL;
    }
    return *ret ? 0 : nomem(err, what);
}

/* src[key], when present, as dst[as] ("" as 0: swap as nova printed it
 * before 2.75). */
static int copy_key(json_t *dst, const json_t *src, const char *key, const char *as) {
    json_t *v = json_object_get(src, key);
    if (!v)
        return 0;
    if (json_is_string(v) && json_string_length(v) == 0 && !strcmp(key, "swap"))
        return json_object_set_new(dst, as, json_integer(0));
    return json_object_set(dst, as, v);
}

/* A flavor of nova's API or openstackclient into numafit's form. */
static int openstack_flavor(const json_t *f, bool envelope, json_t **ret, int *form,
                            numafit_error_t *err) {
    const char *key;
    const json_t *v, *props = json_object_get(f, "properties"),
                     *specs = json_object_get(f, "extra_specs");
    json_t *out, *es = NULL;
    bool text = false;
    int rc;

    json_object_foreach((json_t *)f, key, v) {
        if (in_list(key, openstack_flavor_keys))
            continue;
        if (strchr(key, ':') || !strncmp(key, "hw_", 3))
            return SCHEMA(err, key,
                          "'%s' at the top level of %s: extra specs go under "
                          "\"properties\" (openstack flavor show) or \"extra_specs\" (nova's API)",
                          key, envelope ? "nova's {\"flavor\": ...}" : "an openstack flavor");
        /* other fields of a newer openstackclient or nova: not the flavor's shape */
    }
    if (envelope && !json_object_get(f, "ram"))
        return SCHEMA(err, "ram",
                      "nova's {\"flavor\": ...} has no \"ram\" (MiB): give the whole output of "
                      "nova's GET /flavors/{id}");
    if (props && specs)
        return SCHEMA(err, "properties",
                      "both \"properties\" (openstack flavor show) and \"extra_specs\" (nova's "
                      "API): give one");
    if (props && envelope)
        return SCHEMA(err, "properties",
                      "\"properties\" inside nova's {\"flavor\": ...}: nova's API names the "
                      "extra specs \"extra_specs\"");
    if (props)
        rc = spec_object(props, "properties", "the flavor", &es, &text, err);
    else if (specs)
        rc = spec_object(specs, "extra_specs", "the flavor", &es, &text, err);
    else
        rc = (es = json_object()) ? 0 : nomem(err, "flavor");
    if (rc < 0)
        return rc;
    if (text && !props) {
        json_decref(es);
        return SCHEMA(err, "extra_specs", "extra_specs must be an object in nova's API");
    }
    out = json_object();
    if (!out || copy_key(out, f, "vcpus", "vcpus") < 0 ||
        copy_key(out, f, "ram", "memory_mb") < 0 || copy_key(out, f, "disk", "root_gb") < 0 ||
        copy_key(out, f, "OS-FLV-EXT-DATA:ephemeral", "ephemeral_gb") < 0 ||
        copy_key(out, f, "ephemeral", "ephemeral_gb") < 0 || copy_key(out, f, "swap", "swap") < 0 ||
        copy_key(out, f, json_is_string(json_object_get(f, "name")) ? "name" : "original_name",
                 "name") < 0) {
        json_decref(out);
        json_decref(es);
        return nomem(err, "flavor");
    }
    if (json_object_set_new(out, "extra_specs", es) < 0) { /* es taken, even so */
        json_decref(out);
        return nomem(err, "flavor");
    }
    *form = props ? (text ? NUMAFIT_FORM_OSC_FLAVOR_TEXT : NUMAFIT_FORM_OSC_FLAVOR)
                  : (envelope ? NUMAFIT_FORM_NOVA_FLAVOR : NUMAFIT_FORM_NOVA_FLAVOR_BARE);
    *ret = out;
    return 0;
}

/* numafit's own flavor: every key known, the misplaced ones named. */
static int native_flavor(const json_t *f, numafit_error_t *err) {
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)f, key, v) {
        if (in_list(key, native_flavor_keys))
            continue;
        if (!strcmp(key, "properties"))
            return SCHEMA(err, key,
                          "\"properties\" is not a key of numafit's flavor: extra specs go "
                          "under \"extra_specs\" (the output of `openstack flavor show -f json` "
                          "is read whole, with its \"ram\")");
        if (strchr(key, ':'))
            return SCHEMA(err, key, "'%s' at the top level: extra specs go under \"extra_specs\"",
                          key);
        return SCHEMA(err, key,
                      "unknown key '%s' (numafit's flavor has vcpus, memory_mb, extra_specs, "
                      "root_gb, ephemeral_gb, swap and name)",
                      key);
    }
    return 0;
}

static int load(const char *buf, size_t len, const char *what, json_t **ret, numafit_error_t *err) {
    json_t *j = NULL;
    int rc = numafit__flavor_load(buf, len, what, NUMAFIT__FLAVOR_REQUEST, &j, err);
    if (rc < 0)
        return rc;
    if (!json_is_object(j) && !(json_is_null(j) && !strcmp(what, "image"))) {
        json_decref(j);
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, what, NULL, "%s must be a JSON object", what);
        return -EINVAL;
    }
    *ret = j;
    return 0;
}

/* The text of out, or of the input itself for numafit's form. */
static int finish(json_t *out, const char *buf, size_t len, char **ret_json, numafit_error_t *err) {
    char *s;
    if (out) {
        s = numafit__json_dump(out, 0);
    } else if ((s = numafit__malloc(len + 1))) {
        memcpy(s, buf, len);
        s[len] = '\0';
    }
    if (!s)
        return nomem(err, "flavor");
    *ret_json = s;
    return 0;
}

int numafit_flavor_normalize(const char *json, size_t len, unsigned flags, char **ret_json,
                             int *ret_form, numafit_error_t *reterr) {
    json_t *root = NULL, *out = NULL;
    const json_t *f, *inner;
    int rc, form = NUMAFIT_FORM_NATIVE;

    numafit__error_clear(reterr);
    if (!json || !ret_json || flags) {
        numafit__error_set(reterr, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL,
                           "the flavor, ret_json and flags 0 are required");
        return -EINVAL;
    }
    if ((rc = load(json, len, "flavor", &root, reterr)) < 0)
        return rc;
    f = root;
    inner = json_object_get(root, "flavor");
    if (inner && json_object_size(root) == 1 && json_is_object(inner))
        rc = openstack_flavor(inner, true, &out, &form, reterr);
    else if (inner)
        rc = SCHEMA(reterr, "flavor",
                    "\"flavor\" is nova's envelope {\"flavor\": {...}}: it must be an object "
                    "and the only key");
    else if (json_object_get(f, "ram") && json_object_get(f, "memory_mb"))
        rc = SCHEMA(reterr, "ram",
                    "both \"ram\" (openstack, nova's API) and \"memory_mb\" (numafit): give "
                    "one");
    else if (json_object_get(f, "ram"))
        rc = openstack_flavor(f, false, &out, &form, reterr);
    else
        rc = native_flavor(f, reterr);
    if (rc == 0)
        rc = finish(out, json, len, ret_json, reterr);
    if (rc == 0 && ret_form)
        *ret_form = form;
    json_decref(out);
    json_decref(root);
    return rc;
}

/* A glance image (v2 API: properties at the top level; openstackclient:
 * folded into "properties", as an object or as text). */
static int glance_image(const json_t *img, json_t **ret, int *form, numafit_error_t *err) {
    const json_t *props = json_object_get(img, "properties"), *v;
    json_t *all = NULL, *out;
    const char *key;
    bool text = false;
    int rc = props ? spec_object(props, "properties", "the image", &all, &text, err)
                   : ((all = json_object()) ? 0 : nomem(err, "image"));
    if (rc < 0)
        return rc;
    json_object_foreach((json_t *)img, key, v) {
        const json_t *had;
        if (in_list(key, glance_keys))
            continue;
        had = json_object_get(all, key);
        if (had && !json_equal(had, v)) {
            json_decref(all);
            return SCHEMA(err, key,
                          "'%s' both at the top level and in \"properties\", with different "
                          "values",
                          key);
        }
        if (json_object_set(all, key, (json_t *)v) < 0) {
            json_decref(all);
            return nomem(err, "image");
        }
    }
    if (!(out = json_object())) {
        json_decref(all);
        return nomem(err, "image");
    }
    if (json_object_set_new(out, "properties", all) < 0) { /* all taken, even so */
        json_decref(out);
        return nomem(err, "image");
    }
    *form = props ? (text ? NUMAFIT_FORM_OSC_IMAGE_TEXT : NUMAFIT_FORM_OSC_IMAGE)
                  : NUMAFIT_FORM_GLANCE_IMAGE;
    *ret = out;
    return 0;
}

int numafit_image_normalize(const char *json, size_t len, unsigned flags, char **ret_json,
                            int *ret_form, numafit_error_t *reterr) {
    json_t *root = NULL, *out = NULL;
    const json_t *v;
    const char *key;
    bool glance = false;
    int rc = 0, form = NUMAFIT_FORM_NATIVE;

    numafit__error_clear(reterr);
    if (!json || !ret_json || flags) {
        numafit__error_set(reterr, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL,
                           "the image, ret_json and flags 0 are required");
        return -EINVAL;
    }
    if ((rc = load(json, len, "image", &root, reterr)) < 0)
        return rc;
    json_object_foreach(root, key, v) glance = glance || in_list(key, glance_marks);
    if (glance) {
        rc = glance_image(root, &out, &form, reterr);
    } else {
        json_object_foreach(root, key, v) {
            if (strcmp(key, "properties") != 0) {
                rc = SCHEMA(reterr, key,
                            "'%s' is not a key of numafit's image {\"properties\": {...}}: "
                            "image properties go under \"properties\" (the output of "
                            "`openstack image show -f json` is read whole, with its \"id\")",
                            key);
                break;
            }
        }
    }
    if (rc == 0)
        rc = finish(out, json, len, ret_json, reterr);
    if (rc == 0 && ret_form)
        *ret_form = form;
    json_decref(out);
    json_decref(root);
    return rc;
}
