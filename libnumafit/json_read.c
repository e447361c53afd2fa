/* JSON reading shared by the host, placement and limits readers: the path
 * of the value being read, for err->where. */
#include "config.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "json_count.h"
#include "jsonio.h"

void numafit__jp_init(struct numafit__jpath *p, numafit_error_t *err) {
    p->err = err;
    p->cell = -1;
    p->len = 0;
    p->path[0] = '\0';
}

/* Append "/" and n bytes of s (cut at the buffer's size). Paths are built
 * for every element read, so no printf here. */
static size_t append(struct numafit__jpath *p, const char *s, size_t n) {
    size_t old = p->len, room = sizeof(p->path) - 1 - old;
    if (room > 0) {
        p->path[old] = '/';
        room--;
        if (n > room)
            n = room;
        memcpy(p->path + old + 1, s, n);
        p->len = old + 1 + n;
        p->path[p->len] = '\0';
    }
    return old;
}

size_t numafit__jp_push(struct numafit__jpath *p, const char *key) {
    return append(p, key, strlen(key));
}

size_t numafit__jp_index(struct numafit__jpath *p, size_t i) {
    char buf[24], *q = buf + sizeof(buf);
    do
        *--q = (char)('0' + i % 10);
    while ((i /= 10) && q > buf);
    return append(p, q, (size_t)(buf + sizeof(buf) - q));
}

void numafit__jp_pop(struct numafit__jpath *p, size_t old) {
    p->len = old;
    p->path[old] = '\0';
}

int numafit__jp_fail(struct numafit__jpath *p, int rc, int code, const char *fmt, ...) {
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    numafit__error_set(p->err, code, p->cell, p->path, NULL, "%s", text);
    return rc;
}

int numafit__jp_nomem(struct numafit__jpath *p) {
    return numafit__jp_fail(p, -ENOMEM, NUMAFIT_E_NOMEM, "out of memory");
}

const char *numafit__json_type_name(const json_t *v) {
    switch (json_typeof(v)) {
        case JSON_OBJECT:
            return "an object";
        case JSON_ARRAY:
            return "an array";
        case JSON_STRING:
            return "a string";
        case JSON_INTEGER:
            return "an integer";
        case JSON_REAL:
            return "a real";
        case JSON_TRUE:
        case JSON_FALSE:
            return "a boolean";
        case JSON_NULL:
            return "null";
    }
    return "?";
}

int numafit__json_parse(const struct numafit__json_src *src, const char *buf, size_t len,
                        json_t **ret, json_error_t *jerr, numafit_error_t *err) {
    int rc = numafit__json_check_values(buf, len, src->max_values, src->what, err);
    if (rc < 0)
        return rc;
    json_t *j = numafit__json_loadb(buf, len, JSON_REJECT_DUPLICATES | src->jflags, jerr);
    if (!j && numafit__json_load_errno(jerr) == -ENOMEM) {
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, src->nomem_where, NULL, "out of memory");
        return -ENOMEM;
    }
    if (!j)
        return -EBADMSG;
    *ret = j;
    return 0;
}

int numafit__json_uint(const json_t *v, uint64_t max, uint64_t *out) {
    if (!json_is_integer(v))
        return NUMAFIT__JU_TYPE;
    json_int_t x = json_integer_value(v);
    if (x < 0)
        return NUMAFIT__JU_NEGATIVE;
    if ((uint64_t)x > max)
        return NUMAFIT__JU_ABOVE;
    *out = (uint64_t)x;
    return NUMAFIT__JU_OK;
}

/* ------------------------------------------------------------ envelopes */

#define KEY_NAME    "nova_object.name"
#define KEY_NS      "nova_object.namespace"
#define KEY_VERSION "nova_object.version"
#define KEY_DATA    "nova_object.data"
#define KEY_CHANGES "nova_object.changes"

/* Report at the current path: an invalid field. */
#define SCHEMA(...) numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, __VA_ARGS__)

/* "nova_object.name": the expected name. */
static int env_name(struct numafit__jpath *p, const json_t *v, const char *name) {
    const json_t *f = json_object_get(v, KEY_NAME);
    size_t old = numafit__jp_push(p, KEY_NAME);
    int r = 0;
    if (!f)
        r = SCHEMA("'" KEY_NAME "' is missing");
    else if (!json_is_string(f))
        r = SCHEMA("'" KEY_NAME "' must be a string");
    else if (strcmp(json_string_value(f), name))
        r = SCHEMA("an object of type %s is required, not '%.64s'", name, json_string_value(f));
    numafit__jp_pop(p, old);
    return r;
}

/* "nova_object.namespace": "nova". */
static int env_namespace(struct numafit__jpath *p, const json_t *v) {
    const json_t *f = json_object_get(v, KEY_NS);
    size_t old = numafit__jp_push(p, KEY_NS);
    int r = 0;
    if (!f)
        r = SCHEMA("'" KEY_NS "' is missing");
    else if (!json_is_string(f) || strcmp(json_string_value(f), "nova"))
        r = SCHEMA("unsupported object namespace (must be \"nova\")");
    numafit__jp_pop(p, old);
    return r;
}

/* "MAJOR.MINOR" followed by nothing or by '.' (*pp points there); the
 * numbers stop growing at a million. */
static bool parse_version(const char **pp, unsigned long *major, unsigned long *minor) {
    const char *s = *pp;
    bool ok = *s >= '0' && *s <= '9';
    *major = *minor = 0;
    while (ok && *s >= '0' && *s <= '9' && *major < 1000000)
        *major = *major * 10 + (unsigned long)(*s++ - '0');
    ok = ok && *s == '.';
    if (ok)
        s++;
    ok = ok && *s >= '0' && *s <= '9';
    while (ok && *s >= '0' && *s <= '9' && *minor < 1000000)
        *minor = *minor * 10 + (unsigned long)(*s++ - '0');
    *pp = s;
    return ok && (!*s || *s == '.');
}

/* "nova_object.version": 1.x with x <= max_minor, x into *minor. */
static int env_version(struct numafit__jpath *p, const json_t *v, const char *name, int max_minor,
                       int *minor) {
    const json_t *f = json_object_get(v, KEY_VERSION);
    size_t old = numafit__jp_push(p, KEY_VERSION);
    unsigned long major, mi;
    const char *s, *e;
    int r = 0;
    if (!f) {
        r = SCHEMA("'" KEY_VERSION "' is missing");
    } else if (!json_is_string(f)) {
        r = SCHEMA("'" KEY_VERSION "' must be a string");
    } else {
        s = e = json_string_value(f);
        if (!parse_version(&e, &major, &mi))
            r = SCHEMA("Invalid version: '%.32s'", s);
        else if (*e || major != 1 || mi > (unsigned long)max_minor)
            r = numafit__jp_fail(p, -EINVAL, NUMAFIT_E_VERSION,
                                 "Version %.32s of %s is not supported, supported version is 1.%d",
                                 s, name, max_minor);
        else
            *minor = (int)mi;
    }
    numafit__jp_pop(p, old);
    return r;
}

/* "nova_object.changes" (optional): field names. */
static int env_changes(struct numafit__jpath *p, const json_t *v) {
    const json_t *f = json_object_get(v, KEY_CHANGES), *e;
    size_t old, i;
    int r = 0;
    if (!f)
        return 0;
    old = numafit__jp_push(p, KEY_CHANGES);
    if (!json_is_array(f))
        r = SCHEMA("'" KEY_CHANGES "' must be an array");
    json_array_foreach(f, i, e) {
        if (r == 0 && !json_is_string(e))
            r = SCHEMA("'" KEY_CHANGES "' must hold field names");
    }
    numafit__jp_pop(p, old);
    return r;
}

/* "nova_object.data": an object. */
static int env_data(struct numafit__jpath *p, const json_t *v, json_t **ret_data) {
    json_t *f = json_object_get(v, KEY_DATA);
    size_t old = numafit__jp_push(p, KEY_DATA);
    int r = 0;
    if (!f)
        r = SCHEMA("'" KEY_DATA "' is missing");
    else if (!json_is_object(f))
        r = SCHEMA("'" KEY_DATA "' must be an object, not %s", numafit__json_type_name(f));
    numafit__jp_pop(p, old);
    if (r == 0)
        *ret_data = f;
    return r;
}

int numafit__jp_envelope(struct numafit__jpath *p, const json_t *v, const char *name, int max_minor,
                         int *minor, json_t **ret_data) {
    int r;
    if (!json_is_object(v))
        return SCHEMA("%s must be an object, not %s", name, numafit__json_type_name(v));
    if (max_minor < 0)
        r = env_name(p, v, name);
    else if ((r = env_name(p, v, name)) == 0 && (r = env_namespace(p, v)) == 0 &&
             (r = env_version(p, v, name, max_minor, minor)) == 0)
        r = env_changes(p, v);
    return r < 0 ? r : env_data(p, v, ret_data);
}

#undef SCHEMA

json_t *numafit__jp_unwrap(struct numafit__jpath *p, json_t *v, const char *name, int max_minor,
                           int *minor, int *rc) {
    json_t *data = NULL;
    int dummy;
    if (!minor)
        minor = &dummy;
    *minor = max_minor;
    if (!json_object_get(v, KEY_NAME)) /* plain data without envelope */
        return *rc = 0, v;
    *rc = numafit__jp_envelope(p, v, name, max_minor, minor, &data);
    return *rc < 0 ? NULL : data;
}
