/*
 * The library's JSON reading and writing helpers (json_read.c,
 * json_write.c): one path-tracking reader that records where in a document
 * an error is (err->where), and one writer for CPU sets and nova's
 * versioned-object envelopes. Internal: includes <jansson.h>, unlike
 * private.h; not installed.
 */
#ifndef NUMAFIT_JSONIO_H
#define NUMAFIT_JSONIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "private.h"

/* ------------------------------------------------------------ reading */

/*
 * The JSON path of the value being read ("/cells/0/id"), kept as a stack:
 * push a key or an index before reading a value, pop back to the length
 * push returned. Reports go to err with the current path as err->where and
 * cell as err->cell. Paths longer than the buffer are cut.
 */
struct numafit__jpath {
    numafit_error_t *err;
    int cell; /* err->cell of reports, -1 if none */
    size_t len;
    char path[256];
};

void numafit__jp_init(struct numafit__jpath *p, numafit_error_t *err);
/* Append "/key" (or "/index"); returns the length to pop back to. */
size_t numafit__jp_push(struct numafit__jpath *p, const char *key);
size_t numafit__jp_index(struct numafit__jpath *p, size_t i);
void numafit__jp_pop(struct numafit__jpath *p, size_t old);
/* Report at the current path and return rc. */
int numafit__jp_fail(struct numafit__jpath *p, int rc, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* -ENOMEM, reported as NUMAFIT_E_NOMEM "out of memory" at the current path. */
int numafit__jp_nomem(struct numafit__jpath *p);

/* "an object", "an array", "a string", ... for messages. */
const char *numafit__json_type_name(const json_t *v);

/* A JSON text the library reads: what the value-count check calls it, the
 * most values it may hold, jansson flags beyond JSON_REJECT_DUPLICATES, and
 * err->where for running out of memory. */
struct numafit__json_src {
    const char *what;
    size_t max_values;
    size_t jflags;
    const char *nomem_where;
};

/*
 * Count the values of buf[0..len), then parse it. Returns 0 with *ret, or
 * -ERANGE (too many values) or -ENOMEM with err filled, or -EBADMSG with
 * err untouched and *jerr describing the syntax error (each reader words
 * that message itself).
 */
int numafit__json_parse(const struct numafit__json_src *src, const char *buf, size_t len,
                        json_t **ret, json_error_t *jerr, numafit_error_t *err);

/* Classify v as an integer in [0, max]: NUMAFIT__JU_OK with *out, else why not. */
enum { NUMAFIT__JU_OK, NUMAFIT__JU_TYPE, NUMAFIT__JU_NEGATIVE, NUMAFIT__JU_ABOVE };
int numafit__json_uint(const json_t *v, uint64_t max, uint64_t *out);

/*
 * nova's versioned-object envelope v at p's path, as nova's
 * obj_from_primitive checks it: "nova_object.name" name, "nova_object.
 * namespace" "nova", "nova_object.version" "1.x" with x <= max_minor (*minor
 * set to x), optional "nova_object.changes" (field names), and
 * "nova_object.data" an object (*ret_data). max_minor < 0: only the name
 * and the data are checked. Returns 0, or -EINVAL reported at the path of
 * the field at fault (NUMAFIT_E_VERSION for a version it cannot read).
 */
int numafit__jp_envelope(struct numafit__jpath *p, const json_t *v, const char *name, int max_minor,
                         int *minor, json_t **ret_data);
/*
 * The data of v: numafit__jp_envelope() when v has a "nova_object.name",
 * else v itself (plain data; *minor = max_minor). minor may be NULL. On a
 * refusal returns NULL with *rc < 0.
 */
json_t *numafit__jp_unwrap(struct numafit__jpath *p, json_t *v, const char *name, int max_minor,
                           int *minor, int *rc);

/* ------------------------------------------------------------ writing */

/*
 * The constructors below return NULL when an allocation fails, never a
 * partial value, and take (steal) the json_t values they are given, also
 * when they fail.
 */

/* A CPU bitmap as a JSON array of its set bits, ascending. */
json_t *numafit__json_bits(const uint64_t *w, unsigned nw);
/* A string, or null for NULL. */
json_t *numafit__json_str_or_null(const char *s);
/* json_object_set_new() that also fails (-1) on a NULL value. */
int numafit__json_put(json_t *o, const char *key, json_t *v);

/* One field of numafit__json_object(). */
struct numafit__json_field {
    const char *key;
    json_t *value; /* taken; NULL (a failed constructor) fails the object */
};
/* An object of n fields, in this order. */
json_t *numafit__json_object(struct numafit__json_field *f, size_t n);

/* Writing "nova_object.changes": the data's keys as they are, or sorted. */
#define NUMAFIT__ENVELOPE_SORTED 1u
/* nova's versioned-object envelope around data (taken): name, namespace
 * "nova", version, data, changes (data's keys; at most 32 are listed). */
json_t *numafit__json_envelope(const char *name, const char *version, json_t *data, unsigned flags);

/* An InstanceNUMACell 1.6 primitive, as requests and placements write it. */
struct numafit__json_icell {
    int64_t id;
    const uint64_t *cpuset, *pcpuset;
    unsigned nw;
    json_t *reserved; /* taken: cpuset_reserved */
    uint64_t memory;
    int64_t pagesize;   /* 0: null */
    bool cpu_topology;  /* write "cpu_topology": null */
    json_t *pinning;    /* taken: cpu_pinning_raw */
    int cpu_policy;     /* NONE (or any invalid value): null */
    int thread_policy;  /* likewise */
    unsigned env_flags; /* NUMAFIT__ENVELOPE_* */
};
json_t *numafit__json_instance_cell(const struct numafit__json_icell *c);

/* v (taken) dumped compactly into a JSON string value: nova's database
 * columns hold their primitives that way. */
json_t *numafit__json_as_string(json_t *v);
/*
 * v (taken; NULL when building it ran out of memory) as the text a
 * numafit_*_to_json() returns: inside a JSON string with
 * NUMAFIT_HOST_JSON_STRING, indented with NUMAFIT_JSON_INDENT. Returns 0,
 * or -ENOMEM with err filled.
 */
int numafit__json_emit(json_t *v, unsigned flags, char **ret, numafit_error_t *err);

#endif
