/* Small jansson helpers. */
#include "config.h"

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
