/* Guest CPU topology (sockets/cores/threads), with the semantics of nova's
 * get_cpu_topology_constraints, _get_possible_cpu_topologies,
 * _get_desirable_cpu_topologies and get_best_cpu_topology (Zed);
 * numafit_cpu_topology_constraints returns get_cpu_topology_constraints'
 * answer itself.
 *
 * nova converts the flavor's string extra specs with Python's int(), which
 * takes integers of any size, signs and digit-group underscores. We keep each
 * value as its exact decimal digits so that every comparison nova makes gives
 * the same answer, however large the numbers. Only ASCII is understood: a
 * string with other Unicode digits or spaces (which int() also accepts) is
 * treated as not an integer.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "flavor.h"

/* Python 3.11's default int() limit on the number of digits in a string. */
#define PY_INT_MAX_STR_DIGITS 4300

/* ------------------------------------------------------------ exact integers */

/*
 * An integer as nova sees it: the digits of a flavor or image string
 * (inside the JSON string), or of a JSON integer (inside buf). Instances
 * point into themselves: never copy one, pass pointers.
 */
struct ival {
    struct numafit__pyint v;
    char buf[24];
};

static const struct ival ival_zero = {{0, "", 0, 0, 0}, ""};
static const struct ival ival_65536 = {{1, "65536", 5, 5, 5}, ""};

static void ival_from_int(struct ival *v, json_int_t i) {
    unsigned long long mag;
    v->v.sign = i > 0 ? 1 : i < 0 ? -1 : 0;
    mag = i < 0 ? 0ull - (unsigned long long)i : (unsigned long long)i;
    if (mag)
        snprintf(v->buf, sizeof(v->buf), "%llu", mag);
    else
        v->buf[0] = '\0';
    v->v.dig = v->buf;
    v->v.len = v->v.ndig = v->v.digits = strlen(v->buf);
}

enum { INT_OK = 0, INT_INVALID, INT_TOO_LONG };

/* Python's int(s) (numafit__pyint_scan). On INT_TOO_LONG *ndigits says
 * how many digits were seen. */
static int ival_from_str(struct ival *v, const char *s, size_t n, size_t *ndigits) {
    if (memchr(s, '\0', n))
        return INT_INVALID;
    int r = numafit__pyint_scan(s, n, &v->v);
    if (r == NUMAFIT__PYINT_INVALID)
        return INT_INVALID;
    if (v->v.digits > PY_INT_MAX_STR_DIGITS) {
        *ndigits = v->v.digits;
        return INT_TOO_LONG;
    }
    return r == NUMAFIT__PYINT_OK ? INT_OK : INT_INVALID;
}

static int ival_cmp(const struct ival *ia, const struct ival *ib) {
    const struct numafit__pyint *a = &ia->v, *b = &ib->v;
    if (a->sign != b->sign)
        return a->sign < b->sign ? -1 : 1;
    if (a->sign == 0)
        return 0;
    int mag = 0;
    if (a->ndig != b->ndig) {
        mag = a->ndig < b->ndig ? -1 : 1;
    } else {
        size_t pa = 0, pb = 0;
        for (size_t i = 0; i < a->ndig && !mag; i++) {
            char ca = numafit__pyint_digit(a, &pa), cb = numafit__pyint_digit(b, &pb);
            if (ca != cb)
                mag = ca < cb ? -1 : 1;
        }
    }
    return a->sign < 0 ? -mag : mag;
}

static bool ival_gt(const struct ival *a, const struct ival *b) {
    return ival_cmp(a, b) > 0;
}

/* The value if it lies in [-limit, limit], else sign * (limit + 1). */
static int64_t ival_clamp(const struct ival *iv, int64_t limit) {
    const struct numafit__pyint *v = &iv->v;
    int64_t m = 0;
    size_t pos = 0;
    if (v->ndig > 15)
        return v->sign * (limit + 1);
    for (size_t i = 0; i < v->ndig; i++)
        m = m * 10 + (numafit__pyint_digit(v, &pos) - '0');
    if (m > limit)
        m = limit + 1;
    return v->sign * m;
}

/* Decimal text of v into out (truncated to cap). */
static const char *ival_str(const struct ival *iv, char *out, size_t cap) {
    const struct numafit__pyint *v = &iv->v;
    size_t o = 0, pos = 0;
    if (cap < 2)
        return "";
    if (v->sign == 0) {
        out[0] = '0';
        out[1] = '\0';
        return out;
    }
    if (v->sign < 0)
        out[o++] = '-';
    for (size_t i = 0; i < v->ndig && o + 1 < cap; i++)
        out[o++] = numafit__pyint_digit(v, &pos);
    out[o] = '\0';
    return out;
}

/* ------------------------------------------------------------ error texts */

/* ------------------------------------------------------------ inputs */

enum { K_SOCKETS, K_CORES, K_THREADS, K_MAX_SOCKETS, K_MAX_CORES, K_MAX_THREADS, K__N };

static const char *const flavor_keys[K__N] = {
    "hw:cpu_sockets",     "hw:cpu_cores",     "hw:cpu_threads",
    "hw:cpu_max_sockets", "hw:cpu_max_cores", "hw:cpu_max_threads",
};
static const char *const image_keys[K__N] = {
    "hw_cpu_sockets",     "hw_cpu_cores",     "hw_cpu_threads",
    "hw_cpu_max_sockets", "hw_cpu_max_cores", "hw_cpu_max_threads",
};

struct topo_ctx {
    json_t *flavor, *image;
    unsigned vcpus;
    const json_t *fval[K__N]; /* raw flavor values (NULL: absent, i.e. 0) */
    struct ival img[K__N];
    struct ival flv[K__N];
};

static void ctx_free(struct topo_ctx *c) {
    json_decref(c->flavor);
    json_decref(c->image);
    numafit__free(c);
}

/* Image properties are coerced to int when nova builds the ImageMeta
 * (IntegerField), before any topology logic. */
static int read_image(struct topo_ctx *c, numafit_error_t *err) {
    const json_t *props;
    int r = numafit__image_props(c->image, NUMAFIT__FLAVOR_TOPOLOGY, &props, err);
    if (r < 0)
        return r;
    for (int k = 0; k < K__N; k++) {
        const json_t *v = props ? json_object_get(props, image_keys[k]) : NULL;
        struct ival *iv = &c->img[k];
        size_t nd = 0;
        ival_from_int(iv, 0);
        if (!v)
            continue;
        if (json_is_integer(v)) {
            ival_from_int(iv, json_integer_value(v));
            continue;
        }
        if (!json_is_string(v) ||
            ival_from_str(iv, json_string_value(v), json_string_length(v), &nd) != INT_OK) {
            numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, image_keys[k], "ValueError",
                               "%s must be an integer", image_keys[k]);
            return -EINVAL;
        }
    }
    return 0;
}

static int read_vcpus(struct topo_ctx *c, numafit_error_t *err) {
    const json_t *v = json_object_get(c->flavor, "vcpus");
    if (!v || !json_is_integer(v)) {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "vcpus", NULL,
                           "flavor vcpus must be an integer");
        return -EINVAL;
    }
    if (json_integer_value(v) < 1 || json_integer_value(v) > NUMAFIT_VCPUS_MAX) {
        numafit__error_set(err, NUMAFIT_E_RANGE, -1, "vcpus", NULL,
                           "flavor vcpus %" JSON_INTEGER_FORMAT " outside 1..%d",
                           json_integer_value(v), NUMAFIT_VCPUS_MAX);
        return -EINVAL;
    }
    c->vcpus = (unsigned)json_integer_value(v);
    return 0;
}

/* need_vcpus: false for get_cpu_topology_constraints, which never reads
 * flavor.vcpus. */
static int read_flavor(struct topo_ctx *c, bool need_vcpus, numafit_error_t *err) {
    const json_t *specs;
    int r;
    if (need_vcpus && (r = read_vcpus(c, err)) < 0)
        return r;
    if ((r = numafit__flavor_specs(c->flavor, NUMAFIT__FLAVOR_TOPOLOGY, &specs, err)) < 0)
        return r;
    for (int k = 0; k < K__N; k++) {
        c->fval[k] = specs ? json_object_get(specs, flavor_keys[k]) : NULL;
        if (c->fval[k] && !json_is_string(c->fval[k]) && !json_is_integer(c->fval[k])) {
            numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, flavor_keys[k], NULL,
                               "%s must be a string or an integer", flavor_keys[k]);
            return -EINVAL;
        }
    }
    return 0;
}

/* nova's int(flavor_value), raising InvalidRequest like nova. */
static int flavor_int(struct topo_ctx *c, int k, numafit_error_t *err) {
    const json_t *v = c->fval[k];
    struct ival *iv = &c->flv[k];
    char buf[sizeof(err->text)];
    struct numafit__sbuf sb = {buf, sizeof(buf), 0};
    size_t nd = 0;

    ival_from_int(iv, 0);
    if (!v)
        return 0;
    if (json_is_integer(v)) {
        ival_from_int(iv, json_integer_value(v));
        return 0;
    }
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    int r = ival_from_str(iv, s, n, &nd);
    if (r == INT_OK)
        return 0;
    buf[0] = '\0';
    numafit__sb_puts(&sb, "Invalid flavor extra spec. Error: ");
    if (r == INT_TOO_LONG) {
        char tmp[200];
        snprintf(tmp, sizeof(tmp),
                 "Exceeds the limit (%d digits) for integer string conversion: value has "
                 "%zu digits; use sys.set_int_max_str_digits() to increase the limit",
                 PY_INT_MAX_STR_DIGITS, nd);
        numafit__sb_puts(&sb, tmp);
    } else {
        numafit__sb_puts(&sb, "invalid literal for int() with base 10: ");
        numafit__sb_pyrepr(&sb, s, n, 200);
    }
    numafit__error_set(err, NUMAFIT_E_REQUEST, -1, flavor_keys[k], "InvalidRequest", "%s", buf);
    return -EINVAL;
}

/* ------------------------------------------------------------ nova's algorithm */

struct topo {
    unsigned s, c, t;
};

struct constraints {
    const struct ival *want[3]; /* preferred sockets, cores, threads */
    const struct ival *max[3];  /* limits */
};

static int get_constraints(struct topo_ctx *c, struct constraints *out, numafit_error_t *err) {
    int r;
    char a[6][96];

    for (int k = K_MAX_SOCKETS; k <= K_MAX_THREADS; k++)
        if ((r = flavor_int(c, k, err)) < 0)
            return r;

    int exceeded = -1; /* the first image limit above the flavor's */
    for (int i = 2; i >= 0; i--) {
        const struct ival *fm = &c->flv[K_MAX_SOCKETS + i], *im = &c->img[K_MAX_SOCKETS + i];
        if (fm->v.sign != 0 && ival_gt(im, fm))
            exceeded = K_MAX_SOCKETS + i;
    }
    if (exceeded >= 0) {
        numafit__error_set(
            err, NUMAFIT_E_REQUEST, -1, image_keys[exceeded], "ImageVCPULimitsRangeExceeded",
            "Image vCPU topology limits (sockets=%s, cores=%s, threads=%s) exceeds the limits "
            "of the flavor (sockets=%s, cores=%s, threads=%s)",
            ival_str(&c->img[K_MAX_SOCKETS], a[0], sizeof(a[0])),
            ival_str(&c->img[K_MAX_CORES], a[1], sizeof(a[1])),
            ival_str(&c->img[K_MAX_THREADS], a[2], sizeof(a[2])),
            ival_str(&c->flv[K_MAX_SOCKETS], a[3], sizeof(a[3])),
            ival_str(&c->flv[K_MAX_CORES], a[4], sizeof(a[4])),
            ival_str(&c->flv[K_MAX_THREADS], a[5], sizeof(a[5])));
        return -EINVAL;
    }
    for (int i = 0; i < 3; i++) {
        const struct ival *fm = &c->flv[K_MAX_SOCKETS + i], *im = &c->img[K_MAX_SOCKETS + i];
        out->max[i] = im->v.sign ? im : fm->v.sign ? fm : &ival_65536;
    }

    for (int k = K_SOCKETS; k <= K_THREADS; k++)
        if ((r = flavor_int(c, k, err)) < 0)
            return r;

    bool flavor_over = false, image_over = false, image_any = false;
    for (int i = 0; i < 3; i++) {
        if (ival_gt(&c->flv[i], out->max[i]))
            flavor_over = true;
        if (ival_gt(&c->img[i], out->max[i]))
            image_over = true;
        if (c->img[i].v.sign)
            image_any = true;
    }
    if (image_over) {
        /* where: the first image value over its limit */
        int i = 0;
        while (!ival_gt(&c->img[i], out->max[i]))
            i++;
        numafit__error_set(
            err, NUMAFIT_E_REQUEST, -1, image_keys[i], "ImageVCPUTopologyRangeExceeded",
            "Image vCPU topology (sockets=%s, cores=%s, threads=%s) exceeds the limits of the "
            "flavor or image (sockets=%s, cores=%s, threads=%s)",
            ival_str(&c->img[K_SOCKETS], a[0], sizeof(a[0])),
            ival_str(&c->img[K_CORES], a[1], sizeof(a[1])),
            ival_str(&c->img[K_THREADS], a[2], sizeof(a[2])),
            ival_str(out->max[0], a[3], sizeof(a[3])), ival_str(out->max[1], a[4], sizeof(a[4])),
            ival_str(out->max[2], a[5], sizeof(a[5])));
        return -EINVAL;
    }
    for (int i = 0; i < 3; i++) {
        if (image_any)
            out->want[i] = &c->img[i];
        else
            out->want[i] = flavor_over ? &ival_zero : &c->flv[i];
    }
    return 0;
}

static int topo_cmp_desc(const void *pa, const void *pb) {
    const struct topo *a = pa, *b = pb;
    unsigned ka = a->s * a->c, kb = b->s * b->c;
    if (ka != kb)
        return ka < kb ? 1 : -1;
    if (a->s != b->s)
        return a->s < b->s ? 1 : -1;
    if (a->t != b->t)
        return a->t < b->t ? 1 : -1;
    return 0;
}

/* Enumerate (divisor by divisor) every s*c*t == vcpus within the limits, or
 * count them when out is NULL. */
static size_t enumerate(unsigned vcpus, const int64_t lim[3], struct topo *out) {
    size_t n = 0;
    for (unsigned s = 1; s <= vcpus && (int64_t)s <= lim[0]; s++) {
        if (vcpus % s)
            continue;
        unsigned rem = vcpus / s;
        for (unsigned cc = 1; cc <= rem && (int64_t)cc <= lim[1]; cc++) {
            if (rem % cc)
                continue;
            unsigned t = rem / cc;
            if ((int64_t)t > lim[2])
                continue;
            if (out)
                out[n] = (struct topo){s, cc, t};
            n++;
        }
    }
    return n;
}

/* The desirable topologies, best first. */
static int desirable(struct topo_ctx *c, unsigned flags, struct topo **ret, size_t *ret_n,
                     numafit_error_t *err) {
    struct constraints k;
    int64_t lim[3], want[3];
    int r = get_constraints(c, &k, err);
    if (r < 0)
        return r;

    /* maxX = min(vcpus, limit), maxthreads = 1 without threads */
    for (int i = 0; i < 3; i++) {
        int64_t v = ival_clamp(k.max[i], NUMAFIT_VCPUS_MAX);
        lim[i] = v < (int64_t)c->vcpus ? v : (int64_t)c->vcpus;
    }
    if (flags & NUMAFIT_TOPOLOGY_NO_THREADS)
        lim[2] = 1;

    size_t n = enumerate(c->vcpus, lim, NULL);
    if (n == 0) {
        char a[3][96];
        for (int i = 0; i < 3; i++) {
            if (k.max[i]->v.sign < 0 && !(i == 2 && (flags & NUMAFIT_TOPOLOGY_NO_THREADS)))
                ival_str(k.max[i], a[i], sizeof(a[i]));
            else
                snprintf(a[i], sizeof(a[i]), "%lld", (long long)lim[i]);
        }
        numafit__error_set(err, NUMAFIT_E_REQUEST, -1, "vcpus", "ImageVCPULimitsRangeImpossible",
                           "Requested vCPU limits %s:%s:%s are impossible to satisfy for vcpus "
                           "count %u",
                           a[0], a[1], a[2], c->vcpus);
        return -EINVAL;
    }
    struct topo *all = numafit__calloc(n, sizeof(*all));
    struct topo *sorted = numafit__calloc(n, sizeof(*sorted));
    if (!all || !sorted) {
        numafit__free(all);
        numafit__free(sorted);
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
        return -ENOMEM;
    }
    enumerate(c->vcpus, lim, all);
    qsort(all, n, sizeof(*all), topo_cmp_desc);

    /* A preferred value matches only a topology with the same (positive)
     * count; unset (0), negative and huge values never match. */
    for (int i = 0; i < 3; i++) {
        int64_t v = ival_clamp(k.want[i], NUMAFIT_VCPUS_MAX);
        want[i] = v > 0 && v <= NUMAFIT_VCPUS_MAX ? v : -1;
    }
    size_t o = 0;
    for (int score = 3; score >= 0; score--) {
        for (size_t i = 0; i < n; i++) {
            int sc = (want[0] == all[i].s) + (want[1] == all[i].c) + (want[2] == all[i].t);
            if (sc == score)
                sorted[o++] = all[i];
        }
    }
    numafit__free(all);
    *ret = sorted;
    *ret_n = n;
    return 0;
}

/* Check the arguments, parse the flavor and image into a new context. */
static int load(const char *flavor_json, size_t flavor_len, const char *image_json,
                size_t image_len, unsigned flags, unsigned allowed_flags, bool need_vcpus,
                struct topo_ctx **ret, numafit_error_t *err) {
    struct topo_ctx *c;
    int r;

    if (!flavor_json) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "", NULL, "no flavor");
        return -EINVAL;
    }
    if (flags & ~allowed_flags) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "", NULL, "unknown flags 0x%x", flags);
        return -EINVAL;
    }
    c = numafit__calloc(1, sizeof(*c));
    if (!c) {
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
        return -ENOMEM;
    }
    r = numafit__flavor_load(flavor_json, flavor_len, "flavor", NUMAFIT__FLAVOR_TOPOLOGY,
                             &c->flavor, err);
    if (r == 0 && image_json)
        r = numafit__flavor_load(image_json, image_len, "image", NUMAFIT__FLAVOR_TOPOLOGY,
                                 &c->image, err);
    if (r == 0)
        r = read_flavor(c, need_vcpus, err);
    if (r == 0)
        r = read_image(c, err);
    if (r < 0) {
        ctx_free(c);
        return r;
    }
    *ret = c;
    return 0;
}

static int run(const char *flavor_json, size_t flavor_len, const char *image_json, size_t image_len,
               unsigned flags, struct topo **ret, size_t *ret_n, numafit_error_t *err) {
    struct topo_ctx *c = NULL;
    int r = load(flavor_json, flavor_len, image_json, image_len, flags, NUMAFIT_TOPOLOGY_NO_THREADS,
                 true, &c, err);
    if (r < 0)
        return r;
    r = desirable(c, flags, ret, ret_n, err);
    ctx_free(c);
    return r;
}

NUMAFIT_EXPORT int numafit_cpu_topology_best(const char *flavor_json, size_t flavor_len,
                                             const char *image_json, size_t image_len,
                                             unsigned flags, unsigned *ret_sockets,
                                             unsigned *ret_cores, unsigned *ret_threads,
                                             numafit_error_t *reterr) {
    struct topo *list = NULL;
    size_t n = 0;
    numafit__error_clear(reterr);
    if (!ret_sockets || !ret_cores || !ret_threads) {
        numafit__error_set(reterr, NUMAFIT_E_INVALID_ARG, -1, "", NULL, "NULL argument");
        return -EINVAL;
    }
    int r = run(flavor_json, flavor_len, image_json, image_len, flags, &list, &n, reterr);
    if (r < 0)
        return r;
    *ret_sockets = list[0].s;
    *ret_cores = list[0].c;
    *ret_threads = list[0].t;
    numafit__free(list);
    return 0;
}

NUMAFIT_EXPORT int numafit_cpu_topology_list(const char *flavor_json, size_t flavor_len,
                                             const char *image_json, size_t image_len,
                                             unsigned flags, char **ret_json,
                                             numafit_error_t *reterr) {
    struct topo *list = NULL;
    size_t n = 0;
    numafit__error_clear(reterr);
    if (!ret_json) {
        numafit__error_set(reterr, NUMAFIT_E_INVALID_ARG, -1, "", NULL, "NULL argument");
        return -EINVAL;
    }
    int r = run(flavor_json, flavor_len, image_json, image_len, flags, &list, &n, reterr);
    if (r < 0)
        return r;

    /* each entry: {"sockets":S,"cores":C,"threads":T}, with S, C, T <= 5 digits */
    const size_t entry_max = sizeof("{\"sockets\":,\"cores\":,\"threads\":},") + 15;
    size_t cap = 2 + n * entry_max + 1;
    char *s = numafit__malloc(cap);
    if (!s) {
        numafit__free(list);
        numafit__error_set(reterr, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
        return -ENOMEM;
    }
    size_t o = 0;
    s[o++] = '[';
    for (size_t i = 0; i < n; i++)
        o += (size_t)snprintf(s + o, cap - o, "%s{\"sockets\":%u,\"cores\":%u,\"threads\":%u}",
                              i ? "," : "", list[i].s, list[i].c, list[i].t);
    s[o++] = ']';
    s[o] = '\0';
    numafit__free(list);
    *ret_json = s;
    return 0;
}

/* Room for the decimal text of v with its sign and terminating NUL. */
static size_t ival_room(const struct ival *v) {
    return v->v.ndig + 3;
}

NUMAFIT_EXPORT int numafit_cpu_topology_constraints(const char *flavor_json, size_t flavor_len,
                                                    const char *image_json, size_t image_len,
                                                    unsigned flags, char **ret_json,
                                                    numafit_error_t *reterr) {
    static const char *const names[3] = {"sockets", "cores", "threads"};
    struct topo_ctx *c = NULL;
    struct constraints k;
    numafit__error_clear(reterr);
    if (!ret_json) {
        numafit__error_set(reterr, NUMAFIT_E_INVALID_ARG, -1, "", NULL, "NULL argument");
        return -EINVAL;
    }
    int r = load(flavor_json, flavor_len, image_json, image_len, flags, 0, false, &c, reterr);
    if (r < 0)
        return r;
    r = get_constraints(c, &k, reterr);
    if (r < 0) {
        ctx_free(c);
        return r;
    }

    /* {"preferred":{"sockets":S,"cores":C,"threads":T},"maximum":{...}}
     * with nova's exact integers (a flavor's may have thousands of digits) */
    size_t cap = sizeof("{\"preferred\":{},\"maximum\":{}}");
    for (int i = 0; i < 3; i++)
        cap +=
            2 * (strlen(names[i]) + sizeof("\"\":,")) + ival_room(k.want[i]) + ival_room(k.max[i]);
    char *s = numafit__malloc(cap);
    if (!s) {
        ctx_free(c);
        numafit__error_set(reterr, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
        return -ENOMEM;
    }
    size_t o = 0;
    for (int part = 0; part < 2; part++) {
        const struct ival *const *v = part ? k.max : k.want;
        o += (size_t)snprintf(s + o, cap - o, "%s", part ? "},\"maximum\":{" : "{\"preferred\":{");
        for (int i = 0; i < 3; i++) {
            o += (size_t)snprintf(s + o, cap - o, "%s\"%s\":", i ? "," : "", names[i]);
            o += strlen(ival_str(v[i], s + o, cap - o));
        }
    }
    snprintf(s + o, cap - o, "}}");
    ctx_free(c);
    *ret_json = s;
    return 0;
}
