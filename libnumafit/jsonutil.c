/* Small jansson helpers. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>

#include "json_count.h"
#include "private.h"

/* json_dump_callback() output collected in a numafit__malloc'ed buffer. */
struct dumpbuf {
    char *b;
    size_t len, cap;
    bool failed;
};

/* jansson 2.14 ignores the result of dumping an object key (akheron/jansson
 * #655): when that allocation fails, json_dumps() still succeeds, with the
 * key missing. Collecting the output here and remembering any failure turns
 * that into an error. */
static int dump_append(const char *buf, size_t size, void *data) {
    struct dumpbuf *d = data;
    if (d->failed)
        return -1;
    if (size >= d->cap - d->len) {
        size_t cap = d->cap ? d->cap : 256;
        char *nb;
        while (size >= cap - d->len) {
            if (cap > SIZE_MAX / 2) {
                d->failed = true;
                return -1;
            }
            cap *= 2;
        }
        if (!(nb = numafit__realloc(d->b, cap))) {
            d->failed = true;
            return -1;
        }
        d->b = nb;
        d->cap = cap;
    }
    memcpy(d->b + d->len, buf, size);
    d->len += size;
    d->b[d->len] = '\0';
    return 0;
}

char *numafit__json_dump(const void *value, unsigned numafit_flags) {
    struct dumpbuf d = {NULL, 0, 0, false};
    size_t jflags = JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17);
    if (numafit_flags & NUMAFIT_JSON_INDENT)
        jflags = JSON_INDENT(2) | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17);
    if (json_dump_callback((const json_t *)value, dump_append, &d, jflags) < 0 || d.failed) {
        numafit__free(d.b);
        return NULL;
    }
    return d.b ? d.b : numafit__strdup("");
}

int numafit__json_load_errno(const void *json_error) {
    const json_error_t *e = json_error;
    if (json_error_code(e) == json_error_out_of_memory || e->text[0] == '\0')
        return -ENOMEM;
    return -EBADMSG;
}

int numafit__json_check_values(const char *buf, size_t len, size_t max, const char *what,
                               numafit_error_t *err) {
    if (!numafit__json_values_over(buf, len, max))
        return 0;
    numafit__error_set(err, NUMAFIT_E_RANGE, -1, "", NULL, "%s: more than %zu JSON values", what,
                       max);
    return -ERANGE;
}
