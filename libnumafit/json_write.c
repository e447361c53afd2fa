/* JSON writing shared by the host, request and placement writers. */
#include "config.h"

#include <string.h>

#include <jansson.h>

#include "jsonio.h"

json_t *numafit__json_bits(const uint64_t *w, unsigned nw) {
    json_t *a = json_array();
    if (!a)
        return NULL;
    for (int k = numafit__bits_next(w, nw, -1); k >= 0; k = numafit__bits_next(w, nw, k))
        if (json_array_append_new(a, json_integer(k)) < 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

json_t *numafit__json_str_or_null(const char *s) {
    return s ? json_string(s) : json_null();
}

int numafit__json_put(json_t *o, const char *key, json_t *v) {
    if (!v)
        return -1;
    return json_object_set_new(o, key, v);
}

json_t *numafit__json_object(struct numafit__json_field *f, size_t n) {
    json_t *o = json_object();
    size_t i = 0;
    while (o && i < n && numafit__json_put(o, f[i].key, f[i].value) == 0)
        i++;
    if (o && i == n)
        return o;
    /* json_object_set_new() took f[i] even though it failed */
    for (size_t k = o ? i + 1 : 0; k < n; k++)
        json_decref(f[k].value);
    json_decref(o);
    return NULL;
}

/* Insertion sort of n strings (a handful of field names). */
static void sort_names(const char **s, size_t n) {
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(s[j - 1], s[j]) > 0; j--) {
            const char *t = s[j];
            s[j] = s[j - 1];
            s[j - 1] = t;
        }
}

/* "nova_object.changes": data's keys, as they are or sorted. */
static json_t *changes(const json_t *data, unsigned flags) {
    const char *keys[32];
    size_t nk = 0;
    const char *k;
    json_t *v, *a;
    json_object_foreach((json_t *)data, k, v) {
        if (nk < sizeof(keys) / sizeof(keys[0]))
            keys[nk++] = k;
    }
    if (flags & NUMAFIT__ENVELOPE_SORTED)
        sort_names(keys, nk);
    if (!(a = json_array()))
        return NULL;
    for (size_t i = 0; i < nk; i++)
        if (json_array_append_new(a, json_string(keys[i])) < 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

json_t *numafit__json_envelope(const char *name, const char *version, json_t *data,
                               unsigned flags) {
    struct numafit__json_field f[] = {
        {"nova_object.name", json_string(name)},
        {"nova_object.namespace", json_string("nova")},
        {"nova_object.version", json_string(version)},
        {"nova_object.data", data},
        {"nova_object.changes", data ? changes(data, flags) : NULL},
    };
    return numafit__json_object(f, sizeof(f) / sizeof(f[0]));
}

json_t *numafit__json_instance_cell(const struct numafit__json_icell *c) {
    struct numafit__json_field f[10] = {
        {"id", json_integer((json_int_t)c->id)},
        {"cpuset", numafit__json_bits(c->cpuset, c->nw)},
        {"pcpuset", numafit__json_bits(c->pcpuset, c->nw)},
        {"cpuset_reserved", c->reserved},
        {"memory", json_integer((json_int_t)c->memory)},
        {"pagesize", c->pagesize ? json_integer(c->pagesize) : json_null()},
    };
    size_t n = 6;
    if (c->cpu_topology)
        f[n++] = (struct numafit__json_field){"cpu_topology", json_null()};
    f[n++] = (struct numafit__json_field){"cpu_pinning_raw", c->pinning};
    f[n++] = (struct numafit__json_field){
        "cpu_policy", numafit__json_str_or_null(numafit_cpu_policy_to_string(c->cpu_policy))};
    f[n++] = (struct numafit__json_field){
        "cpu_thread_policy",
        numafit__json_str_or_null(numafit_thread_policy_to_string(c->thread_policy))};
    return numafit__json_envelope("InstanceNUMACell", "1.6", numafit__json_object(f, n),
                                  c->env_flags);
}

json_t *numafit__json_as_string(json_t *v) {
    char *s = v ? numafit__json_dump(v, 0) : NULL;
    json_t *r = s ? json_string(s) : NULL;
    json_decref(v);
    numafit__free(s);
    return r;
}

int numafit__json_emit(json_t *v, unsigned flags, char **ret, numafit_error_t *err) {
    char *s;
    if (v && (flags & NUMAFIT_HOST_JSON_STRING))
        v = numafit__json_as_string(v);
    s = v ? numafit__json_dump(v, flags & NUMAFIT_JSON_INDENT) : NULL;
    json_decref(v);
    if (!s) {
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
        return -ENOMEM;
    }
    *ret = s;
    return 0;
}
