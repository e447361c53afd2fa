/* JSON reading shared by the host, placement and limits readers: the path
 * of the value being read, for err->where. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

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
    json_t *j = json_loadb(buf, len, JSON_REJECT_DUPLICATES | src->jflags, jerr);
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

/* The version check of numafit__jp_unwrap: "1.x" with x <= max_minor. */
static int check_version(struct numafit__jpath *p, const json_t *ver, const char *name,
                         int max_minor, int *minor) {
    int maj = 0, min = 0;
    char t[128]; /* the message is cut at this size */
    if (!json_is_string(ver) || sscanf(json_string_value(ver), "%d.%d", &maj, &min) != 2 ||
        maj != 1 || min < 0 || min > max_minor) {
        snprintf(t, sizeof(t), "Version %s of %s is not supported",
                 json_is_string(ver) ? json_string_value(ver) : "?", name);
        return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_VERSION, "%s", t);
    }
    *minor = min;
    return 0;
}

/* The name (and, with max_minor >= 0, namespace and version) checks. */
static int check_header(struct numafit__jpath *p, const json_t *v, const json_t *n,
                        const char *name, int max_minor, int *minor) {
    const json_t *ns = json_object_get(v, "nova_object.namespace");
    bool name_ok = json_is_string(n) && !strcmp(json_string_value(n), name);
    if (max_minor < 0)
        return name_ok
                   ? 0
                   : numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "expected a %s object", name);
    if (!name_ok || !json_is_string(ns) || strcmp(json_string_value(ns), "nova"))
        return numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA,
                                "unexpected object name or namespace");
    return check_version(p, json_object_get(v, "nova_object.version"), name, max_minor, minor);
}

json_t *numafit__jp_unwrap(struct numafit__jpath *p, json_t *v, const char *name, int max_minor,
                           int *minor, int *rc) {
    json_t *n = json_object_get(v, "nova_object.name");
    *rc = 0;
    if (minor)
        *minor = max_minor;
    if (!n) /* plain data without envelope */
        return v;
    int dummy;
    if ((*rc = check_header(p, v, n, name, max_minor, minor ? minor : &dummy)) < 0)
        return NULL;
    v = json_object_get(v, "nova_object.data");
    if (!json_is_object(v)) {
        *rc = numafit__jp_fail(p, -EINVAL, NUMAFIT_E_SCHEMA, "missing nova_object.data");
        return NULL;
    }
    return v;
}
