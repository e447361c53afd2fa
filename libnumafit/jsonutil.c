/* Small jansson helpers. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "private.h"

char *numafit__json_dump(const void *value, unsigned numafit_flags) {
    size_t jflags = JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17);
    if (numafit_flags & NUMAFIT_JSON_INDENT)
        jflags = JSON_INDENT(2) | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17);
    char *s = json_dumps((const json_t *)value, jflags);
    if (!s)
        return NULL;
    /* re-home the buffer on our allocator so numafit_free() matches */
    char *d = numafit__strdup(s);
    free(s);
    return d;
}

const char *numafit__spec_string(const void *value, char *buf, size_t len) {
    const json_t *v = value;
    if (json_is_string(v))
        return json_string_value(v);
    if (json_is_integer(v)) {
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
        return buf;
    }
    if (json_is_boolean(v))
        return json_is_true(v) ? "True" : "False";
    return NULL;
}
