/*
 * nova's rules for requests from flavors and images, as nova's numa_get_constraints()
 * (nova/virt/hardware.py) builds an InstanceNUMATopology.
 *
 * The checks run in nova's order, so that the first refusal is the one nova
 * raises, with nova's exception class name in err->exception and nova's
 * message in err->text. Image properties are first coerced the way
 * ImageMetaProps.from_dict() coerces them (nova fails there, before
 * numa_get_constraints, with a bare ValueError or exception.Invalid).
 *
 * Profiles: NUMAFIT_REQUEST_ZED selects nova 26.2.2 (Zed). The default is
 * upstream master, which differs only in get_locked_memory_constraint(): when
 * locked memory is not explicitly requested it also runs the memory
 * encryption checks (hw:mem_encryption / hw_mem_encryption,
 * hw:mem_encryption_model / hw_mem_encryption_model, hw_firmware_type,
 * hw_machine_type, hw_firmware_stateless), which can raise
 * FlavorImageConflict, InvalidMachineType, StatelessFirmwareRequired or
 * Invalid, and SEV/SEV-ES imply locked memory. The exception class names of
 * locked memory conflicts are the same in both releases (only their base
 * classes changed, and with them the HTTP status).
 *
 * Deliberate divergences from nova (nova crashes or accepts nonsense):
 *  - hw:numa_mem.N / hw_numa_mem.N that is not an integer: nova raises a bare
 *    ValueError; we refuse with "InvalidRequest".
 *  - a negative hw:numa_mem.N / hw_numa_mem.N: nova accepts a cell with
 *    negative memory; we refuse with "InvalidRequest".
 *  - a CPU id above NUMAFIT_CPU_MAX in hw:numa_cpus.N ('0-99999999'): nova
 *    allocates gigabytes (MemoryError); we refuse with
 *    "ImageNUMATopologyCPUOutOfRange" without building the set (the text
 *    cannot name the exact CPU). In hw:cpu_realtime_mask it gives
 *    RealtimeMaskNotFoundOrInvalid ("not a subset" text), in
 *    hw:cpu_dedicated_mask InvalidMixedInstanceDedicatedMask (nova's default
 *    text, as such a mask nearly always covers every vCPU).
 *  - flavor.vcpus above NUMAFIT_VCPUS_MAX (nova has no bound): -ERANGE, code
 *    NUMAFIT_E_RANGE, where "vcpus"; memory_mb above NUMAFIT_MEMORY_MB_MAX
 *    likewise.
 *  - more guest cells than NUMAFIT_MAX_CELLS (hw:numa_nodes=2000 with 2000
 *    vCPUs: nova builds them all, no host can ever take them): -ERANGE, code
 *    NUMAFIT_E_RANGE, exception "InvalidNUMANodesNumber".
 *  - hw:mem_page_size (or an image refinement) that comes to 0 KiB ('0',
 *    '0KiB'): nova silently drops the NUMA topology (or keeps one with page
 *    size 0 when pinning asks for it); we refuse with "MemoryPageSizeInvalid".
 *    Likewise a negative size ('-2KiB', which nova even takes for "large"),
 *    a size that is not a whole number of KiB ('100B', which nova truncates
 *    to 0) and a size that does not fit 63 bits.
 *  - hw:cpu_thread_policy="" with a NUMA topology: nova fails with a bare
 *    ValueError when it stores "" in the cells; we refuse with
 *    "InvalidCPUThreadAllocationPolicy" at that point. (Without a topology
 *    nova and we accept it; "" still forbids any image thread policy.)
 *  - where a manual cell holds both an out-of-range and a duplicate vCPU,
 *    nova reports whichever its set iteration order meets first; we check
 *    vCPUs in ascending order.
 *  - Image properties are checked as ImageMetaProps coerces them, before the
 *    constraints (nova fails in ImageMeta.from_dict with ValueError or
 *    exception.Invalid): a bad hw_cpu_policy / hw_cpu_thread_policy gives
 *    InvalidCPUAllocationPolicy / InvalidCPUThreadAllocationPolicy (source
 *    'image properties'), a non-integer hw_numa_nodes InvalidNUMANodesNumber,
 *    a bad hw_numa_cpus.N cpu spec "Invalid", a bad hw_firmware_type (both
 *    profiles) or hw_mem_encryption_model (latest) "Invalid".
 *  - Python-only number syntax (Unicode digits, '1_000' in cpu specs) is not
 *    accepted; '1_000' is accepted where nova calls int().
 *  - Input typing: flavor extra spec values must be strings, integers or
 *    booleans (converted as str() would: 2 -> "2", true -> "True"); image
 *    property values null or real numbers (except hw_numa_nodes, truncated as
 *    int() does) are refused with NUMAFIT_E_SCHEMA. hw_numa_cpus / hw_numa_mem
 *    may be given dotted ("hw_numa_cpus.0": "0-1") or as lists
 *    ("hw_numa_cpus": [[0, 1], "2-3"], "hw_numa_mem": [1024, 1024]), not both.
 *    "traits_required": [...] is accepted besides "trait:NAME": "required".
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "flavor.h"
#include "request_rules.h"

#define NUMA_NODES_MAX 128 /* nova's ImageMetaProps.NUMA_NODES_MAX */
#define CW             NUMAFIT__CPU_WORDS

/* ------------------------------------------------------------ errors */

static int verror(numafit_error_t *err, int rc, int code, const char *where, const char *exc,
                  const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));

static int verror(numafit_error_t *err, int rc, int code, const char *where, const char *exc,
                  const char *fmt, va_list ap) {
    char buf[256];
    if (!err)
        return rc;
    vsnprintf(buf, sizeof(buf), fmt, ap);
    numafit__error_set(err, code, -1, where, exc, "%s", buf);
    return rc;
}

/* nova refuses the request: -EINVAL, NUMAFIT_E_REQUEST. */
static int refuse(numafit_error_t *err, const char *where, const char *exc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int refuse(numafit_error_t *err, const char *where, const char *exc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int rc = verror(err, -EINVAL, NUMAFIT_E_REQUEST, where, exc, fmt, ap);
    va_end(ap);
    return rc;
}

static int fail(numafit_error_t *err, int rc, int code, const char *where, const char *exc,
                const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static int fail(numafit_error_t *err, int rc, int code, const char *where, const char *exc,
                const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    rc = verror(err, rc, code, where, exc, fmt, ap);
    va_end(ap);
    return rc;
}

static int nomem(numafit_error_t *err) {
    return fail(err, -ENOMEM, NUMAFIT_E_NOMEM, NULL, NULL, "out of memory");
}

/* ------------------------------------------------------------ Python-like text helpers */

static int64_t sat_add(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return a > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

/* Append to a NUL-terminated buffer, truncating. */
static void buf_add(char *buf, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void buf_add(char *buf, size_t cap, const char *fmt, ...) {
    size_t n = strlen(buf);
    if (n + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, cap - n, fmt, ap);
    va_end(ap);
}

/* Python's repr of a set of ints, "{0, 1}" ("set()" when empty). */
static void set_repr(const uint64_t *bits, unsigned nw, char *buf, size_t cap) {
    buf[0] = '\0';
    int i = numafit__bits_next(bits, nw, -1);
    if (i < 0) {
        buf_add(buf, cap, "set()");
        return;
    }
    buf_add(buf, cap, "{");
    for (bool first = true; i >= 0; i = numafit__bits_next(bits, nw, i), first = false)
        buf_add(buf, cap, "%s%d", first ? "" : ", ", i);
    buf_add(buf, cap, "}");
}

/* ------------------------------------------------------------ parsed inputs */

struct cpulist { /* hw:numa_cpus.N / hw_numa_cpus */
    uint32_t n;
    uint64_t *bits; /* n * CW words */
    bool *erange;   /* entry names a CPU above NUMAFIT_CPU_MAX */
};

struct memlist { /* hw:numa_mem.N / hw_numa_mem */
    uint32_t n;
    int64_t *mb;
};

struct image {
    const char *cpu_policy, *thread_policy, *rt_mask, *page_size;
    const char *enc_model, *fw_type, *mach_type, *name, *id;
    char buf[6][24]; /* str() of non-string values */
    bool has_nodes;
    int64_t nodes;
    int locked, mem_enc, fw_stateless; /* -1 unset, 0, 1 */
    bool ht_required;
    bool has_cpus, has_mem;
    struct cpulist cpus;
    struct memlist mem;
};

struct ctx {
    numafit_error_t *err;
    bool zed;
    uint32_t vcpus;
    uint64_t memory_mb;
    const char *flavor_name;
    json_t *specs; /* owned: extra specs with string values */
    struct image img;
    uint64_t *all; /* CW words: {0 .. vcpus-1} */
    uint64_t *tmp; /* CW words scratch */
};

static void cpulist_clear(struct cpulist *l) {
    numafit__free(l->bits);
    numafit__free(l->erange);
    memset(l, 0, sizeof(*l));
}

static int cpulist_init(struct cpulist *l, uint32_t n) {
    l->bits = numafit__calloc((size_t)n * CW, sizeof(uint64_t));
    l->erange = numafit__calloc(n, sizeof(bool));
    l->n = n;
    if (!l->bits || !l->erange)
        return -ENOMEM;
    return 0;
}

static const char *spec(const struct ctx *c, const char *key) {
    json_t *v = c->specs ? json_object_get(c->specs, key) : NULL;
    return v ? json_string_value(v) : NULL;
}

/* Non-empty (Python-truthy) string. */
static bool truthy(const char *s) {
    return s && *s;
}

/*
 * numafit__cpuspec_parse() into bits (CW words), nova's way of reading masks:
 * with excl, a spec starting with '^' (after white space) is read as
 * "0-(vcpus-1),<spec>". Returns 0 (with *erange when an id was above
 * NUMAFIT_CPU_MAX) or a negative errno with err filled.
 */
static int parse_spec(struct ctx *c, const char *where, const char *s, bool excl, uint64_t *bits,
                      bool *erange) {
    numafit_error_t perr;
    char *owned = NULL;
    const char *p = s;
    int rc;

    *erange = false;
    while (numafit__py_space(*p))
        p++;
    if (excl && *p == '^') {
        size_t n = strlen(s) + 32;
        owned = numafit__malloc(n);
        if (!owned)
            return nomem(c->err);
        snprintf(owned, n, "0-%u,%s", c->vcpus - 1, s);
        s = owned;
    }
    numafit__error_clear(&perr);
    rc = numafit__cpuspec_parse(s, bits, &perr);
    numafit__free(owned);
    if (rc == -ERANGE) {
        *erange = true;
        memset(bits, 0, CW * sizeof(uint64_t));
        return 0;
    }
    if (rc == -EBADMSG)
        return refuse(c->err, where, perr.exception[0] ? perr.exception : "Invalid", "%s",
                      perr.text);
    if (rc == -ENOMEM)
        return nomem(c->err);
    if (rc < 0)
        return fail(c->err, rc, NUMAFIT_E_PARSE, where, perr.exception, "%s", perr.text);
    return 0;
}

/* ------------------------------------------------------------ input loading */

/* Flavor extra spec values as nova's DictOfStringsField holds them. */
static int load_specs(struct ctx *c, const json_t *flavor) {
    const json_t *es;
    const char *key;
    json_t *v;
    int rc;
    c->specs = json_object();
    if (!c->specs)
        return nomem(c->err);
    if ((rc = numafit__flavor_specs(flavor, NUMAFIT__FLAVOR_REQUEST, &es, c->err)) < 0 || !es)
        return rc;
    json_object_foreach((json_t *)es, key, v) {
        char buf[32];
        const char *str;
        if ((rc = numafit__spec_value(v, key, buf, sizeof(buf), &str, c->err)) < 0)
            return rc;
        if (json_object_set_new(c->specs, key, json_string(str)) < 0)
            return nomem(c->err);
    }
    return 0;
}

/* An image property as str() would make it (StringField), kept in slot. */
static int img_str(struct ctx *c, const json_t *props, const char *key, int slot,
                   const char **out) {
    return numafit__image_str(props, key, c->img.buf[slot], sizeof(c->img.buf[slot]), out, c->err);
}

/* An enum field (CPUAllocationPolicyField...): str(), then one of names.
 * Returns 1 when set and valid, 0 when unset, -EINVAL (not reported) when invalid. */
static int img_enum(struct ctx *c, const json_t *props, const char *key, int slot,
                    const char *const *names, const char **out) {
    int rc = img_str(c, props, key, slot, out);
    if (rc < 0 || !*out)
        return rc;
    for (; *names; names++)
        if (!strcmp(*names, *out))
            return 1;
    return -EINVAL;
}

static int img_numa_mem_value(struct ctx *c, const char *where, const json_t *v, int64_t *out) {
    bool ovf;
    if (json_is_real(v) || !numafit__json_py_int(v, out, &ovf))
        return refuse(c->err, where, "InvalidRequest",
                      "Invalid %s: memory of a guest NUMA node must be an integer (MiB)", where);
    if (*out < 0)
        return refuse(c->err, where, "InvalidRequest",
                      "Invalid %s=%lld: memory of a guest NUMA node cannot be negative", where,
                      (long long)*out);
    return 0;
}

static int img_numa_cpus_value(struct ctx *c, const char *where, const json_t *v, uint32_t k) {
    uint64_t *bits = c->img.cpus.bits + (size_t)k * CW;
    if (json_is_string(v) || json_is_integer(v)) {
        char buf[32];
        const char *s = json_string_value(v);
        if (!s)
            snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v)), s = buf;
        return parse_spec(c, where, s, false, bits, &c->img.cpus.erange[k]);
    }
    if (!json_is_array(v))
        return fail(c->err, -EINVAL, NUMAFIT_E_SCHEMA, where, NULL,
                    "%s must be a cpu spec or a list of vCPU numbers", where);
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e) {
        if (!json_is_integer(e) || json_integer_value(e) < 0)
            return fail(c->err, -EINVAL, NUMAFIT_E_SCHEMA, where, NULL,
                        "%s must list non-negative vCPU numbers", where);
        if (json_integer_value(e) > NUMAFIT_CPU_MAX)
            c->img.cpus.erange[k] = true;
        else
            numafit__bit_set(bits, (unsigned)json_integer_value(e));
    }
    return 0;
}

/* How many entries hw_numa_<name> (name: "hw_numa_mem", "hw_numa_cpus")
 * has, dotted ("hw_numa_cpus.0") or as a list (*list). Returns 1 when it
 * is given, 0 when not, or a negative errno. */
static int img_numa_count(struct ctx *c, const json_t *props, const char *name, const json_t **list,
                          uint32_t *ret) {
    char key[48];
    uint32_t n;
    for (n = 0; n < NUMA_NODES_MAX; n++) {
        snprintf(key, sizeof(key), "%s.%u", name, n);
        if (!json_object_get(props, key))
            break;
    }
    *list = json_object_get(props, name);
    if (n && *list)
        return fail(c->err, -EINVAL, NUMAFIT_E_SCHEMA, name, NULL,
                    "%s given both as a list and as %s.N", name, name);
    if (*list && !json_is_array(*list))
        return fail(c->err, -EINVAL, NUMAFIT_E_SCHEMA, name, NULL, "%s must be a list", name);
    if (*list)
        n = (uint32_t)(json_array_size(*list) < 1024 ? json_array_size(*list) : 1024);
    *ret = n;
    return n || *list;
}

/* Entry k of hw_numa_<name>, with its name in key ("hw_numa_mem/0" in a
 * list, else "hw_numa_mem.0"). */
static const json_t *img_numa_entry(const json_t *props, const json_t *list, const char *name,
                                    uint32_t k, char *key, size_t cap) {
    snprintf(key, cap, list ? "%s/%u" : "%s.%u", name, k);
    return list ? json_array_get(list, k) : json_object_get(props, key);
}

/* hw_numa_mem (nova's from_dict reads it before hw_numa_cpus). */
static int load_img_numa_mem(struct ctx *c, const json_t *props) {
    const json_t *list;
    char key[48];
    uint32_t n;
    int rc = img_numa_count(c, props, "hw_numa_mem", &list, &n);
    if (rc <= 0)
        return rc;
    c->img.has_mem = true;
    c->img.mem.n = n;
    c->img.mem.mb = numafit__calloc(n, sizeof(int64_t));
    if (!c->img.mem.mb)
        return nomem(c->err);
    for (uint32_t k = 0; k < n; k++) {
        const json_t *v = img_numa_entry(props, list, "hw_numa_mem", k, key, sizeof(key));
        if ((rc = img_numa_mem_value(c, key, v, &c->img.mem.mb[k])) < 0)
            return rc;
    }
    return 0;
}

static int load_img_numa_cpus(struct ctx *c, const json_t *props) {
    const json_t *list;
    char key[48];
    uint32_t n;
    int rc = img_numa_count(c, props, "hw_numa_cpus", &list, &n);
    if (rc <= 0)
        return rc;
    c->img.has_cpus = true;
    if (cpulist_init(&c->img.cpus, n) < 0)
        return nomem(c->err);
    for (uint32_t k = 0; k < n; k++) {
        const json_t *v = img_numa_entry(props, list, "hw_numa_cpus", k, key, sizeof(key));
        if ((rc = img_numa_cpus_value(c, key, v, k)) < 0)
            return rc;
    }
    return 0;
}

static const char *const cpu_policies[] = {"dedicated", "shared", "mixed", NULL};
static const char *const thread_policies[] = {"prefer", "isolate", "require", NULL};
static const char *const fw_types[] = {"uefi", "bios", NULL};
static const char *const enc_models[] = {"amd-sev", "amd-sev-es", "amd-sev-snp", NULL};

#define CPU_POLICY_AVAIL    "('dedicated', 'shared', 'mixed')"
#define THREAD_POLICY_AVAIL "('prefer', 'isolate', 'require')"
#define EMU_POLICY_AVAIL    "('share', 'isolate')"

/* An enum property that nova's field refuses with exception.Invalid. */
static int img_field(struct ctx *c, const json_t *props, const char *key, int slot,
                     const char *const *names, const char **out) {
    int rc = img_enum(c, props, key, slot, names, out);
    if (rc == -EINVAL && *out)
        return refuse(c->err, key, "Invalid", "Field value %s is invalid", *out);
    return rc < 0 ? rc : 0;
}

/* hw_cpu_policy, hw_cpu_thread_policy, hw_cpu_realtime_mask. */
static int img_cpu(struct ctx *c, const json_t *props) {
    struct image *im = &c->img;
    int rc = img_enum(c, props, "hw_cpu_policy", 0, cpu_policies, &im->cpu_policy);
    if (rc == -EINVAL && im->cpu_policy)
        return refuse(c->err, "hw_cpu_policy", "InvalidCPUAllocationPolicy",
                      "CPU policy requested from 'image properties' is invalid, given: '%s', "
                      "available: '" CPU_POLICY_AVAIL "'.",
                      im->cpu_policy);
    if (rc < 0)
        return rc;
    rc = img_enum(c, props, "hw_cpu_thread_policy", 1, thread_policies, &im->thread_policy);
    if (rc == -EINVAL && im->thread_policy)
        return refuse(c->err, "hw_cpu_thread_policy", "InvalidCPUThreadAllocationPolicy",
                      "CPU thread policy requested from 'image properties' is invalid, given: "
                      "'%s', available: '" THREAD_POLICY_AVAIL "'.",
                      im->thread_policy);
    if (rc < 0)
        return rc;
    return img_str(c, props, "hw_cpu_realtime_mask", 2, &im->rt_mask);
}

/* Firmware, locked memory, machine type, memory encryption, page size. */
static int img_memory(struct ctx *c, const json_t *props) {
    struct image *im = &c->img;
    const json_t *v;
    int rc;
    if ((rc = img_field(c, props, "hw_firmware_type", 3, fw_types, &im->fw_type)) < 0)
        return rc;
    if (!c->zed &&
        (rc = numafit__image_bool(props, "hw_firmware_stateless", &im->fw_stateless, c->err)) < 0)
        return rc;
    if ((rc = numafit__image_bool(props, "hw_locked_memory", &im->locked, c->err)) < 0)
        return rc;
    if ((v = json_object_get(props, "hw_machine_type"))) {
        if (!json_is_string(v))
            return fail(c->err, -EINVAL, NUMAFIT_E_SCHEMA, "hw_machine_type", NULL,
                        "image property 'hw_machine_type' must be a string");
        im->mach_type = json_string_value(v);
    }
    if ((rc = numafit__image_bool(props, "hw_mem_encryption", &im->mem_enc, c->err)) < 0)
        return rc;
    if (!c->zed &&
        (rc = img_field(c, props, "hw_mem_encryption_model", 4, enc_models, &im->enc_model)) < 0)
        return rc;
    return img_str(c, props, "hw_mem_page_size", 5, &im->page_size);
}

/* hw_numa_nodes, as IntegerField coerces it. */
static int img_numa_nodes(struct ctx *c, const json_t *props) {
    const json_t *v = json_object_get(props, "hw_numa_nodes");
    bool ovf;
    if (!v)
        return 0;
    if (!json_is_string(v) && !json_is_number(v) && !json_is_boolean(v))
        return fail(c->err, -EINVAL, NUMAFIT_E_SCHEMA, "hw_numa_nodes", NULL,
                    "image property 'hw_numa_nodes' must be an integer");
    if (!numafit__json_py_int(v, &c->img.nodes, &ovf))
        return refuse(c->err, "hw_numa_nodes", "InvalidNUMANodesNumber",
                      "The property 'numa_nodes' cannot be '%s'. It must be a number "
                      "greater than 0",
                      json_is_string(v) ? json_string_value(v) : "?");
    c->img.has_nodes = true;
    return 0;
}

/* traits_required, from "trait:NAME": "required" (and the list form). */
static int img_traits(struct ctx *c, const json_t *props) {
    const json_t *v = json_object_get(props, "trait:HW_CPU_HYPERTHREADING"), *e;
    size_t i;
    if (json_is_string(v) && !strcmp(json_string_value(v), "required"))
        c->img.ht_required = true;
    if (!(v = json_object_get(props, "traits_required")))
        return 0;
    if (!json_is_array(v))
        return fail(c->err, -EINVAL, NUMAFIT_E_SCHEMA, "traits_required", NULL,
                    "traits_required must be a list of strings");
    json_array_foreach(v, i, e) {
        if (!json_is_string(e))
            return fail(c->err, -EINVAL, NUMAFIT_E_SCHEMA, "traits_required", NULL,
                        "traits_required must be a list of strings");
        if (!strcmp(json_string_value(e), "HW_CPU_HYPERTHREADING"))
            c->img.ht_required = true;
    }
    return 0;
}

/* What ImageMetaProps.from_dict() makes of the properties we read, in its
 * field order. */
static int load_image(struct ctx *c, const json_t *root) {
    struct image *im = &c->img;
    const json_t *props, *v;
    int rc;

    im->locked = im->mem_enc = im->fw_stateless = -1;
    if ((rc = numafit__image_props(root, NUMAFIT__FLAVOR_REQUEST, &props, c->err)) < 0)
        return rc;
    if ((v = json_object_get(root, "name")) && json_is_string(v))
        im->name = json_string_value(v);
    if ((v = json_object_get(root, "id")) && json_is_string(v))
        im->id = json_string_value(v);
    if (!props)
        return 0;
    if ((rc = img_cpu(c, props)) < 0 || (rc = img_memory(c, props)) < 0 ||
        (rc = img_numa_nodes(c, props)) < 0 || (rc = load_img_numa_mem(c, props)) < 0 ||
        (rc = load_img_numa_cpus(c, props)) < 0)
        return rc;
    return img_traits(c, props);
}

/* ------------------------------------------------------------ constraints */

static int get_cpu_policy(struct ctx *c, int *ret) {
    const char *fp = spec(c, "hw:cpu_policy"), *ip = c->img.cpu_policy;
    int f = -1, i = -1;
    if (truthy(fp)) {
        f = numafit_cpu_policy_from_string(fp);
        if (f < 0)
            return refuse(c->err, "hw:cpu_policy", "InvalidCPUAllocationPolicy",
                          "CPU policy requested from 'flavor extra specs' is invalid, given: "
                          "'%s', available: '" CPU_POLICY_AVAIL "'.",
                          fp);
    }
    if (truthy(ip))
        i = numafit_cpu_policy_from_string(ip);
    if (f == NUMAFIT_CPU_POLICY_DEDICATED) {
        *ret = f;
    } else if (f == NUMAFIT_CPU_POLICY_MIXED) {
        if (i == NUMAFIT_CPU_POLICY_DEDICATED)
            goto forbidden;
        *ret = f;
    } else if (f == NUMAFIT_CPU_POLICY_SHARED) {
        if (i == NUMAFIT_CPU_POLICY_MIXED || i == NUMAFIT_CPU_POLICY_DEDICATED)
            goto forbidden;
        *ret = f;
    } else {
        *ret = i >= 0 ? i : NUMAFIT_CPU_POLICY_NONE;
    }
    return 0;
forbidden:
    return refuse(c->err, "hw_cpu_policy", "ImageCPUPinningForbidden",
                  "Image property 'hw_cpu_policy' is not permitted to override CPU pinning "
                  "policy set against the flavor");
}

/* hw:cpu_thread_policy="" (internal; falsy like NUMAFIT_THREAD_POLICY_NONE) */
#define THREAD_POLICY_EMPTY (-2)

static int get_thread_policy(struct ctx *c, int *ret) {
    const char *fp = spec(c, "hw:cpu_thread_policy"), *ip = c->img.thread_policy;
    int f = -1, i = -1;
    if (truthy(fp)) {
        f = numafit_thread_policy_from_string(fp);
        if (f < 0)
            return refuse(c->err, "hw:cpu_thread_policy", "InvalidCPUThreadAllocationPolicy",
                          "CPU thread policy requested from 'flavor extra specs' is invalid, "
                          "given: '%s', available: '" THREAD_POLICY_AVAIL "'.",
                          fp);
    }
    if (truthy(ip))
        i = numafit_thread_policy_from_string(ip);
    if (fp && !*fp) {
        /* nova: "" is neither None nor "prefer": the image may not override it,
         * and it is kept as the (falsy) policy */
        if (i >= 0)
            goto forbidden;
        *ret = THREAD_POLICY_EMPTY;
        return 0;
    }
    if (f < 0 || f == NUMAFIT_THREAD_POLICY_PREFER)
        *ret = f >= 0 ? f : (i >= 0 ? i : NUMAFIT_THREAD_POLICY_NONE);
    else if (i >= 0 && i != f)
        goto forbidden;
    else
        *ret = f;
    return 0;
forbidden:
    return refuse(c->err, "hw_cpu_thread_policy", "ImageCPUThreadPolicyForbidden",
                  "Image property 'hw_cpu_thread_policy' is not permitted to override CPU "
                  "thread pinning policy set against the flavor");
}

static int get_emulator_policy(struct ctx *c, int *ret) {
    const char *e = spec(c, "hw:emulator_threads_policy");
    *ret = NUMAFIT_EMULATOR_THREADS_NONE;
    if (!truthy(e))
        return 0;
    *ret = numafit_emulator_threads_policy_from_string(e);
    if (*ret < 0)
        return refuse(c->err, "hw:emulator_threads_policy", "InvalidEmulatorThreadsPolicy",
                      "CPU emulator threads option requested is invalid, given: '%s', "
                      "available: '" EMU_POLICY_AVAIL "'.",
                      e);
    return 0;
}

#define RT_MSG                                                                                     \
    "Use of realtime CPUs requires either one or more non-realtime CPU(s) or offloaded "           \
    "emulator threads."

/* get_realtime_cpu_constraint: *have = false when realtime is off. */
static int get_realtime(struct ctx *c, uint64_t *rt, bool *have) {
    const char *fm = spec(c, "hw:cpu_realtime_mask"), *im = c->img.rt_mask;
    const char *mask = truthy(im) ? im : fm;
    const char *where = truthy(im) ? "hw_cpu_realtime_mask" : "hw:cpu_realtime_mask";
    bool erange = false;
    int emu, rc;

    *have = false;
    if (!numafit__py_bool(spec(c, "hw:cpu_realtime")))
        return 0;
    if (truthy(mask)) {
        rc = parse_spec(c, where, mask, true, rt, &erange);
        if (rc < 0)
            return rc;
    } else {
        memcpy(rt, c->all, CW * sizeof(uint64_t));
        where = "hw:cpu_realtime";
    }
    if (!erange && numafit__bits_empty(rt, CW))
        return refuse(c->err, where, "RealtimeMaskNotFoundOrInvalid", RT_MSG);
    if ((rc = get_emulator_policy(c, &emu)) < 0)
        return rc;
    if (!erange && numafit__bits_equal(rt, c->all, CW) && emu < 0)
        return refuse(c->err, where, "RealtimeMaskNotFoundOrInvalid", RT_MSG);
    if (erange || !numafit__bits_subset(rt, c->all, CW))
        return refuse(c->err, where, "RealtimeMaskNotFoundOrInvalid",
                      "Realtime policy vCPU(s) mask is configured with RT vCPUs that are not a "
                      "subset of the vCPUs in the flavor. See hw:cpu_realtime_mask or "
                      "hw_cpu_realtime_mask");
    *have = true;
    return 0;
}

/* get_dedicated_cpu_constraint. */
static int get_dedicated(struct ctx *c, uint64_t *ded, bool *have) {
    const char *mask = spec(c, "hw:cpu_dedicated_mask");
    const char *where = "hw:cpu_dedicated_mask";
    bool erange;
    int rc;

    *have = false;
    if (!truthy(mask))
        return 0;
    if ((rc = parse_spec(c, where, mask, true, ded, &erange)) < 0)
        return rc;
    if (erange) {
        /* nova's set would hold an id >= vcpus, and most likely all vCPUs
         * ('0-99999999'): nova's first check fails, with its default text */
        return refuse(c->err, where, "InvalidMixedInstanceDedicatedMask",
                      "Mixed instance must have at least 1 pinned vCPU and 1 unpinned vCPU. See "
                      "'hw:cpu_dedicated_mask'.");
    }
    /* shared = all - ded */
    bool shared_empty = true;
    for (unsigned i = 0; i < CW; i++)
        if (c->all[i] & ~ded[i])
            shared_empty = false;
    if (numafit__bits_empty(ded, CW) || shared_empty)
        return refuse(c->err, where, "InvalidMixedInstanceDedicatedMask",
                      "Mixed instance must have at least 1 pinned vCPU and 1 unpinned vCPU. See "
                      "'hw:cpu_dedicated_mask'.");
    if (!numafit__bits_subset(ded, c->all, CW))
        return refuse(c->err, where, "InvalidMixedInstanceDedicatedMask",
                      "Mixed instance dedicated vCPU(s) mask is not a subset of vCPUs in the "
                      "flavor. See \"hw:cpu_dedicated_mask\"");
    *have = true;
    return 0;
}

/* key matches nova's re.match('<prefix>([1-9][0-9]*)?:<name>', key) (a prefix match). */
static bool key_matches(const char *key, const char *prefix, const char *name) {
    size_t n = strlen(prefix);
    if (strncmp(key, prefix, n))
        return false;
    key += n;
    if (*key >= '1' && *key <= '9')
        while (*key >= '0' && *key <= '9')
            key++;
    if (*key++ != ':')
        return false;
    return !strncmp(key, name, strlen(name));
}

static void get_vcpu_pcpu_resources(struct ctx *c, int64_t *vcpu, int64_t *pcpu) {
    const char *key;
    json_t *v;
    *vcpu = *pcpu = 0;
    json_object_foreach(c->specs, key, v) {
        int64_t n;
        if (key_matches(key, "resources", "VCPU") &&
            numafit__py_int(json_string_value(v), &n, NULL))
            *vcpu = sat_add(*vcpu, n);
        if (key_matches(key, "resources", "PCPU") &&
            numafit__py_int(json_string_value(v), &n, NULL))
            *pcpu = sat_add(*pcpu, n);
    }
}

static const char *get_hyperthreading_trait(struct ctx *c) {
    const char *key;
    json_t *v;
    json_object_foreach(c->specs, key, v) {
        if (key_matches(key, "trait", "HW_CPU_HYPERTHREADING"))
            return json_string_value(v);
    }
    return c->img.ht_required ? "required" : NULL;
}

/* _get_numa_node_count_constraint: *nodes 0 when unset. */
static int get_node_count(struct ctx *c, uint64_t *nodes) {
    const char *fn = spec(c, "hw:numa_nodes");
    *nodes = 0;
    if (truthy(fn) && c->img.has_nodes && c->img.nodes)
        return refuse(c->err, "hw_numa_nodes", "ImageNUMATopologyForbidden",
                      "Image property 'hw_numa_nodes' is not permitted to override NUMA "
                      "configuration set against the flavor");
    if (truthy(fn)) {
        /* strutils.is_int_like(): str(int(v)) == v, then int(v) >= 1 */
        const char *p = fn;
        uint64_t v = 0;
        bool ok = *p >= '1' && *p <= '9';
        for (; ok && *p; p++) {
            if (*p < '0' || *p > '9')
                ok = false;
            else if (v < UINT32_MAX)
                v = v * 10 + (uint64_t)(*p - '0');
        }
        if (!ok)
            return refuse(c->err, "hw:numa_nodes", "InvalidNUMANodesNumber",
                          "The property 'numa_nodes' cannot be '%s'. It must be a number greater "
                          "than 0",
                          fn);
        *nodes = v < UINT32_MAX ? v : UINT32_MAX;
    } else if (c->img.has_nodes) {
        if (c->img.nodes < 1)
            return refuse(c->err, "hw_numa_nodes", "InvalidNUMANodesNumber",
                          "The property 'numa_nodes' cannot be '%lld'. It must be a number "
                          "greater than 0",
                          (long long)c->img.nodes);
        *nodes = c->img.nodes < UINT32_MAX ? (uint64_t)c->img.nodes : UINT32_MAX;
    }
    return 0;
}

/* [-+]?\d*\.?\d+ at *pp (at most 19 digits) as num / den; *pp moves past it. */
static bool size_number(const char **pp, bool *neg, unsigned __int128 *num,
                        unsigned __int128 *den) {
    const char *p = *pp;
    unsigned ndig = 0, nint = 0, nfrac = 0;
    *neg = false;
    *num = 0;
    *den = 1;
    if (*p == '+' || *p == '-')
        *neg = *p++ == '-';
    for (; *p >= '0' && *p <= '9'; p++, nint++) {
        if (++ndig > 19)
            return false;
        *num = *num * 10 + (unsigned)(*p - '0');
    }
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9'; p++, nfrac++) {
            if (++ndig > 19)
                return false;
            *num = *num * 10 + (unsigned)(*p - '0');
            *den *= 10;
        }
        if (!nfrac)
            return false;
    } else if (!nint) {
        return false;
    }
    *pp = p;
    return true;
}

/* The unit at p, ([KMGT]i?)?(b|bit|B) and an optional newline, applied to
 * num / den (bytes). */
static bool size_unit(const char *p, unsigned __int128 *num, unsigned __int128 *den) {
    static const char prefixes[] = "KMGT";
    const char *k = *p ? strchr(prefixes, *p) : NULL;
    unsigned exp = k ? (unsigned)(k - prefixes) + 1 : 0;
    if (exp && *++p == 'i')
        p++;
    if (!strcmp(p, "bit") || !strcmp(p, "bit\n") || !strcmp(p, "b") || !strcmp(p, "b\n"))
        *den *= 8;
    else if (strcmp(p, "B") && strcmp(p, "B\n"))
        return false;
    while (exp--)
        *num *= 1024;
    return true;
}

/* A size with a unit (oslo's string_to_bytes, IEC) in whole KiB. */
static bool size_kib(const char *s, int64_t *ret) {
    unsigned __int128 num, den, bytes;
    bool neg;
    if (!size_number(&s, &neg, &num, &den) || !size_unit(s, &num, &den))
        return false;
    /* bytes = ceil(+-num / den); KiB = bytes / 1024 */
    bytes = num / den + (!neg && num % den ? 1 : 0);
    if (neg || bytes == 0 || bytes % 1024 || bytes / 1024 > (unsigned __int128)INT64_MAX)
        return false; /* divergence: nova accepts these (see the top of this file) */
    *ret = (int64_t)(bytes / 1024);
    return true;
}

/* A size of digits only, in KiB. */
static bool digits_kib(const char *s, int64_t *ret) {
    int64_t v;
    bool ovf;
    if (!numafit__py_int(s, &v, &ovf) || ovf || v == 0)
        return false; /* divergence: nova takes 0 as "no page size" */
    *ret = v;
    return true;
}

static bool all_digits(const char *s) {
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/*
 * check_and_return_pages_size() of _get_numa_pagesize_constraint. Sizes
 * with units follow oslo's string_to_bytes (IEC): ^[-+]?\d*\.?\d+([KMGT]i?)?(b|bit|B)$,
 * rounded up to whole bytes, then divided by 1024.
 */
static int page_size_value(struct ctx *c, const char *where, const char *s, int64_t *ret) {
    if (!strcmp(s, "any"))
        return *ret = NUMAFIT_PAGESIZE_ANY, 0;
    if (!strcmp(s, "large"))
        return *ret = NUMAFIT_PAGESIZE_LARGE, 0;
    if (!strcmp(s, "small"))
        return *ret = NUMAFIT_PAGESIZE_SMALL, 0;
    if (all_digits(s) ? digits_kib(s, ret) : size_kib(s, ret))
        return 0;
    return refuse(c->err, where, "MemoryPageSizeInvalid", "Invalid memory page size '%s'", s);
}

/* _get_numa_pagesize_constraint: *ret NUMAFIT_PAGESIZE_NONE when unset. */
static int get_pagesize(struct ctx *c, int64_t *ret) {
    const char *fr = spec(c, "hw:mem_page_size"), *ir = c->img.page_size;
    int rc;
    *ret = NUMAFIT_PAGESIZE_NONE;
    if (!truthy(fr) && truthy(ir))
        return refuse(c->err, "hw_mem_page_size", "MemoryPageSizeForbidden",
                      "Page size %s forbidden against '<empty>'", ir);
    if (!truthy(fr))
        return 0;
    if ((rc = page_size_value(c, "hw:mem_page_size", fr, ret)) < 0)
        return rc;
    if (truthy(ir) && (*ret == NUMAFIT_PAGESIZE_ANY || *ret == NUMAFIT_PAGESIZE_LARGE))
        return page_size_value(c, "hw_mem_page_size", ir, ret);
    if (truthy(ir))
        return refuse(c->err, "hw_mem_page_size", "MemoryPageSizeForbidden",
                      "Page size %s forbidden against '%s'", ir, fr);
    return 0;
}

static int get_pmem(struct ctx *c, numafit_request_t *req) {
    const char *s = spec(c, "hw:pmem");
    if (!truthy(s))
        return 0;
    uint32_t n = 1;
    for (const char *p = s; *p; p++)
        n += *p == ',';
    req->pmem = numafit__calloc(n, sizeof(char *));
    if (!req->pmem)
        return nomem(c->err);
    for (const char *p = s;;) {
        const char *e = strchr(p, ',');
        const char *end = e ? e : p + strlen(p);
        const char *b = p;
        while (b < end && numafit__py_space(*b))
            b++;
        while (end > b && numafit__py_space(end[-1]))
            end--;
        if (end > b) {
            char *l = numafit__malloc((size_t)(end - b) + 1);
            if (!l)
                return nomem(c->err);
            memcpy(l, b, (size_t)(end - b));
            l[end - b] = '\0';
            req->pmem[req->npmem++] = l;
        }
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

/* The memory encryption checks of master's get_mem_encryption_constraint.
 * *locks: SEV/SEV-ES need locked memory. */
static int get_mem_encryption(struct ctx *c, bool *locks) {
    const char *fs = spec(c, "hw:mem_encryption");
    int fe = fs ? numafit__py_bool(fs) : -1, ie = c->img.mem_enc;
    const char *fname = c->flavor_name ? c->flavor_name : "None";
    const char *iname = c->img.name ? c->img.name : "None";
    const char *iid = c->img.id ? c->img.id : "<no-id>";
    char req[200] = "";

    *locks = false;
    if (fe != 1 && ie != 1)
        return 0;
    if (fe >= 0 && ie >= 0 && fe != ie)
        return refuse(c->err, "hw_mem_encryption", "FlavorImageConflict",
                      "Flavor %s has hw:mem_encryption extra spec explicitly set to %s, "
                      "conflicting with image %s which has hw_mem_encryption property "
                      "explicitly set to %s",
                      fname, fs, iname, ie ? "True" : "False");
    if (fe == 1)
        buf_add(req, sizeof(req), "hw:mem_encryption extra spec in %s flavor", fname);
    if (ie == 1)
        buf_add(req, sizeof(req), "%shw_mem_encryption property of image %s",
                fe == 1 ? " and " : "", iid);

    const char *fm = spec(c, "hw:mem_encryption_model"), *im = c->img.enc_model;
    if (fm && im && strcmp(fm, im))
        return refuse(c->err, "hw_mem_encryption_model", "FlavorImageConflict",
                      "Flavor %s has hw:mem_encryption_model extra spec explicitly set to %s, "
                      "conflicting with image %s which has hw_mem_encryption_model property "
                      "explicitly set to %s",
                      fname, fm, iname, im);
    const char *model = truthy(im) ? im : truthy(fm) ? fm : "amd-sev";
    bool known = false;
    for (const char *const *m = enc_models; *m; m++)
        known |= !strcmp(*m, model);
    if (!known)
        return refuse(c->err, "hw:mem_encryption_model", "Invalid",
                      "Invalid memory encryption model '%s'. Allowed values: amd-sev, "
                      "amd-sev-es, amd-sev-snp.",
                      model);
    if (!c->img.fw_type || strcmp(c->img.fw_type, "uefi"))
        return refuse(c->err, "hw_firmware_type", "FlavorImageConflict",
                      "Memory encryption is requested by %s but the image metadata doesn't "
                      "have the 'hw_firmware_type' property set to 'uefi'",
                      req);
    if (c->img.mach_type && !strstr(c->img.mach_type, "q35"))
        return refuse(c->err, "hw_machine_type", "InvalidMachineType",
                      "Machine type '%s' is not compatible with image %s (%s): q35 type is "
                      "required for SEV to work",
                      c->img.mach_type, iname, iid);
    if (!strcmp(model, "amd-sev-snp")) {
        if (c->img.fw_stateless != 1)
            return refuse(c->err, "hw_firmware_stateless", "StatelessFirmwareRequired",
                          "The %s memory encryption model requires stateless firmware but the "
                          "image metadata doesn't have the 'hw_firmware_stateless' property set "
                          "to True",
                          model);
        return 0;
    }
    *locks = true;
    return 0;
}

/* get_locked_memory_constraint: *ret -1 (None), 0, 1. */
static int get_locked_memory(struct ctx *c, int *ret) {
    const char *fl = spec(c, "hw:locked_memory");
    int il = c->img.locked, locked;
    if (fl) {
        int f = numafit__py_bool(fl);
        if (il >= 0 && il != f)
            return refuse(c->err, "hw_locked_memory", "FlavorImageLockedMemoryConflict",
                          "locked_memory value in image (%s) and flavor (%s) conflict. A "
                          "consistent value is expected if both specified.",
                          il ? "True" : "False", f ? "True" : "False");
        locked = f;
    } else {
        locked = il;
    }
    if (locked == 1 && !truthy(spec(c, "hw:mem_page_size")) && !truthy(c->img.page_size))
        return refuse(c->err, fl ? "hw:locked_memory" : "hw_locked_memory", "LockMemoryForbidden",
                      "locked_memory value in image or flavor is forbidden when mem_page_size "
                      "is not set.");
    *ret = locked;
    if (c->zed || locked == 1)
        return 0;
    bool locks;
    int rc = get_mem_encryption(c, &locks);
    if (rc < 0)
        return rc;
    if (locks)
        *ret = 1;
    return 0;
}

/* hw:numa_cpus.N from the flavor (parsed), then the image's; *have false if neither. */
static int get_numa_cpus(struct ctx *c, struct cpulist *fl, const struct cpulist **ret) {
    char key[32];
    uint32_t n;
    int rc;
    *ret = NULL;
    for (n = 0; n < NUMA_NODES_MAX; n++) {
        snprintf(key, sizeof(key), "hw:numa_cpus.%u", n);
        if (!spec(c, key))
            break;
    }
    if (!n) {
        *ret = c->img.has_cpus ? &c->img.cpus : NULL;
        return 0;
    }
    if (cpulist_init(fl, n) < 0)
        return nomem(c->err);
    for (uint32_t k = 0; k < n; k++) {
        snprintf(key, sizeof(key), "hw:numa_cpus.%u", k);
        rc = parse_spec(c, key, spec(c, key), false, fl->bits + (size_t)k * CW, &fl->erange[k]);
        if (rc < 0)
            return rc;
    }
    if (c->img.has_cpus)
        return refuse(c->err, "hw_numa_cpus", "ImageNUMATopologyForbidden",
                      "Image property 'hw_numa_cpus' is not permitted to override NUMA "
                      "configuration set against the flavor");
    *ret = fl;
    return 0;
}

static int get_numa_mem(struct ctx *c, struct memlist *fl, const struct memlist **ret) {
    char key[32];
    uint32_t n;
    *ret = NULL;
    for (n = 0; n < NUMA_NODES_MAX; n++) {
        snprintf(key, sizeof(key), "hw:numa_mem.%u", n);
        if (!spec(c, key))
            break;
    }
    if (!n) {
        *ret = c->img.has_mem ? &c->img.mem : NULL;
        return 0;
    }
    fl->mb = numafit__calloc(n, sizeof(int64_t));
    if (!fl->mb)
        return nomem(c->err);
    fl->n = n;
    for (uint32_t k = 0; k < n; k++) {
        const char *s;
        snprintf(key, sizeof(key), "hw:numa_mem.%u", k);
        s = spec(c, key);
        if (!numafit__py_int(s, &fl->mb[k], NULL))
            return refuse(c->err, key, "InvalidRequest",
                          "Invalid %s '%s': memory of a guest NUMA node must be an integer (MiB)",
                          key, s);
        if (fl->mb[k] < 0)
            return refuse(c->err, key, "InvalidRequest",
                          "Invalid %s '%s': memory of a guest NUMA node cannot be negative", key,
                          s);
    }
    if (c->img.has_mem)
        return refuse(c->err, "hw_numa_mem", "ImageNUMATopologyForbidden",
                      "Image property 'hw_numa_mem' is not permitted to override NUMA "
                      "configuration set against the flavor");
    *ret = fl;
    return 0;
}

/* Cell k of the result gets guest vCPUs cpus (CW words), split by ded. */
static void fill_cell(numafit_request_t *req, uint32_t k, const uint64_t *cpus, const uint64_t *ded,
                      uint64_t mem) {
    struct numafit__rcell *cell = &req->cells[k];
    for (unsigned i = 0; i < req->nw; i++) {
        cell->cpuset[i] = cpus[i] & ~ded[i];
        cell->pcpuset[i] = cpus[i] & ded[i];
    }
    cell->memory = mem;
}

/* _get_numa_topology_auto: nodes cells sharing vCPUs and memory evenly. */
static int topology_auto(struct ctx *c, uint64_t nodes, const uint64_t *ded,
                         numafit_request_t **ret) {
    numafit_request_t *req;
    if (c->vcpus % nodes || c->memory_mb % nodes)
        return refuse(c->err, "hw:numa_nodes", "ImageNUMATopologyAsymmetric",
                      "Instance CPUs and/or memory cannot be evenly distributed across "
                      "instance NUMA nodes. Explicit assignment of CPUs and memory to nodes is "
                      "required");
    if (nodes > NUMAFIT_MAX_CELLS)
        return fail(c->err, -ERANGE, NUMAFIT_E_RANGE, "hw:numa_nodes", "InvalidNUMANodesNumber",
                    "The property 'numa_nodes' cannot be '%llu'. At most %u guest NUMA nodes "
                    "are supported",
                    (unsigned long long)nodes, NUMAFIT_MAX_CELLS);
    if (numafit__request_alloc(c->vcpus, (uint32_t)nodes, &req) < 0)
        return nomem(c->err);
    uint32_t per = c->vcpus / (uint32_t)nodes;
    for (uint32_t k = 0; k < nodes; k++) {
        memset(c->tmp, 0, CW * sizeof(uint64_t));
        for (uint32_t v = k * per; v < (k + 1) * per; v++)
            numafit__bit_set(c->tmp, v);
        fill_cell(req, k, c->tmp, ded, c->memory_mb / nodes);
    }
    *ret = req;
    return 0;
}

/* hw:numa_cpus.N and hw:numa_mem.N, or the image's, and their names. */
struct manual {
    const struct cpulist *cpus;
    const struct memlist *mem;
    const char *cpus_key, *mem_key;
};

/* The vCPUs of manual cell k: within the flavor, and not in an earlier
 * cell (avail holds the vCPUs not yet assigned). */
static int manual_cell_cpus(struct ctx *c, const struct manual *m, uint32_t k, uint64_t *avail) {
    const uint64_t *b = m->cpus->bits + (size_t)k * CW;
    char where[32];
    snprintf(where, sizeof(where), "%s.%u", m->cpus_key, k);
    if (m->cpus->erange[k])
        return refuse(c->err, where, "ImageNUMATopologyCPUOutOfRange",
                      "CPU number %u or more is larger than max %d", NUMAFIT_CPU_MAX + 1,
                      (int)c->vcpus - 1);
    for (int v = numafit__bits_next(b, CW, -1); v >= 0; v = numafit__bits_next(b, CW, v)) {
        if ((uint32_t)v > c->vcpus - 1)
            return refuse(c->err, where, "ImageNUMATopologyCPUOutOfRange",
                          "CPU number %d is larger than max %d", v, (int)c->vcpus - 1);
        if (!numafit__bit_test(avail, (unsigned)v))
            return refuse(c->err, where, "ImageNUMATopologyCPUDuplicates",
                          "CPU number %d is assigned to two nodes", v);
        numafit__bit_clear(avail, (unsigned)v);
    }
    return 0;
}

/* After the cells: every vCPU assigned, and all of the memory. */
static int manual_totals(struct ctx *c, const struct manual *m, const uint64_t *avail,
                         int64_t total) {
    if (!numafit__bits_empty(avail, CW)) {
        char set[200];
        set_repr(avail, CW, set, sizeof(set));
        return refuse(c->err, m->cpus_key, "ImageNUMATopologyCPUsUnassigned",
                      "CPU number %s is not assigned to any node", set);
    }
    if (total != (int64_t)c->memory_mb)
        return refuse(c->err, m->mem_key, "ImageNUMATopologyMemoryOutOfRange",
                      "%lld MB of memory assigned, but expected %llu MB", (long long)total,
                      (unsigned long long)c->memory_mb);
    return 0;
}

/* _get_numa_topology_manual. */
static int topology_manual(struct ctx *c, uint64_t nodes, const struct manual *m,
                           const uint64_t *ded, numafit_request_t **ret) {
    numafit_request_t *req;
    uint64_t *avail = c->tmp;
    int64_t total = 0;
    int rc = 0;
    if (m->cpus->n != nodes || m->mem->n != nodes)
        return refuse(c->err, m->cpus->n != nodes ? "hw:numa_cpus" : "hw:numa_mem",
                      "ImageNUMATopologyIncomplete",
                      "CPU and memory allocation must be provided for all NUMA nodes");
    if (numafit__request_alloc(c->vcpus, (uint32_t)nodes, &req) < 0)
        return nomem(c->err);
    memcpy(avail, c->all, CW * sizeof(uint64_t));
    for (uint32_t k = 0; k < nodes && rc == 0; k++) {
        if ((rc = manual_cell_cpus(c, m, k, avail)) == 0) {
            fill_cell(req, k, m->cpus->bits + (size_t)k * CW, ded, (uint64_t)m->mem->mb[k]);
            total = sat_add(total, m->mem->mb[k]);
        }
    }
    if (rc == 0)
        rc = manual_totals(c, m, avail, total);
    if (rc < 0) {
        numafit_request_free(req);
        return rc;
    }
    *ret = req;
    return 0;
}

/* _get_numa_topology_auto / _manual into a new request. */
static int build_topology(struct ctx *c, uint64_t nodes, const uint64_t *ded,
                          numafit_request_t **ret) {
    struct cpulist fcpus = {0};
    struct memlist fmem = {0};
    struct manual m;
    int rc;

    if ((rc = get_numa_cpus(c, &fcpus, &m.cpus)) < 0 || (rc = get_numa_mem(c, &fmem, &m.mem)) < 0)
        goto out;
    m.cpus_key = m.cpus == &fcpus ? "hw:numa_cpus" : "hw_numa_cpus";
    m.mem_key = m.mem == &fmem ? "hw:numa_mem" : "hw_numa_mem";
    if (!m.cpus && !m.mem)
        rc = topology_auto(c, nodes, ded, ret);
    else if (m.cpus && m.mem)
        rc = topology_manual(c, nodes, &m, ded, ret);
    else
        rc = refuse(c->err, m.cpus ? "hw:numa_mem" : "hw:numa_cpus", "ImageNUMATopologyIncomplete",
                    "CPU and memory allocation must be provided for all NUMA nodes");
out:
    cpulist_clear(&fcpus);
    numafit__free(fmem.mb);
    return rc;
}

/* What numa_get_constraints works out before it builds the topology. */
struct policies {
    int cpu, thread, emu, locked;
    bool cpu_from_resources; /* resources:VCPU / resources:PCPU set cpu */
    bool have_rt, have_ded;
    uint64_t *rt, *ded; /* CW words each */
    uint64_t nodes;
    int64_t pagesize;
};

/* The resources:VCPU / resources:PCPU extra specs, which set the policy. */
static int resources_policy(struct ctx *c, struct policies *p) {
    int64_t req_vcpu, req_pcpu;
    get_vcpu_pcpu_resources(c, &req_vcpu, &req_pcpu);
    if (p->cpu >= 0 && (req_vcpu || req_pcpu))
        return refuse(c->err, "hw:cpu_policy", "InvalidRequest",
                      "It is not possible to use the 'resources:VCPU' or 'resources:PCPU' extra "
                      "specs in combination with the 'hw:cpu_policy' extra spec or "
                      "'hw_cpu_policy' image metadata property; use one or the other");
    if (req_vcpu && req_pcpu)
        return refuse(c->err, "resources:PCPU", "InvalidRequest",
                      "It is not possible to specify both 'resources:VCPU' and 'resources:PCPU' "
                      "extra specs; use one or the other");
    if (req_pcpu) {
        if (p->emu == NUMAFIT_EMULATOR_THREADS_ISOLATE && (int64_t)c->vcpus + 1 != req_pcpu)
            return refuse(c->err, "resources:PCPU", "InvalidRequest",
                          "You have requested 'hw:emulator_threads_policy=isolate' but have not "
                          "requested sufficient PCPUs to handle this policy; you must allocate "
                          "exactly flavor.vcpus + 1 PCPUs.");
        if (p->emu != NUMAFIT_EMULATOR_THREADS_ISOLATE && (int64_t)c->vcpus != req_pcpu)
            return refuse(c->err, "resources:PCPU", "InvalidRequest",
                          "There is a mismatch between the number of PCPUs requested via "
                          "'resourcesNN:PCPU' and the flavor); you must allocate exactly "
                          "flavor.vcpus PCPUs");
        p->cpu = NUMAFIT_CPU_POLICY_DEDICATED;
    }
    if (req_vcpu)
        p->cpu = NUMAFIT_CPU_POLICY_SHARED;
    p->cpu_from_resources = req_vcpu || req_pcpu;
    return 0;
}

/* trait:HW_CPU_HYPERTHREADING, which sets the thread policy. */
static int trait_policy(struct ctx *c, struct policies *p) {
    const char *ht = get_hyperthreading_trait(c);
    if (p->thread >= 0 && truthy(ht))
        return refuse(c->err, "trait:HW_CPU_HYPERTHREADING", "InvalidRequest",
                      "It is not possible to use the 'trait:HW_CPU_HYPERTHREADING' extra spec in "
                      "combination with the 'hw:cpu_thread_policy' extra spec or "
                      "'hw_cpu_thread_policy' image metadata property; use one or the other");
    if (ht && !strcmp(ht, "forbidden"))
        p->thread = NUMAFIT_THREAD_POLICY_ISOLATE;
    else if (ht && !strcmp(ht, "required"))
        p->thread = NUMAFIT_THREAD_POLICY_REQUIRE;
    return 0;
}

#define MIXED_MASK_ONLY "Cannot specify 'hw:cpu_dedicated_mask' without the 'mixed' policy."

/* What a shared (or no) CPU policy forbids. */
static int check_shared(struct ctx *c, const struct policies *p) {
    if (p->thread >= 0)
        return refuse(c->err, "hw:cpu_thread_policy", "CPUThreadPolicyConfigurationInvalid",
                      "Cannot set cpu thread pinning policy in a non dedicated cpu pinning "
                      "policy");
    if (p->emu == NUMAFIT_EMULATOR_THREADS_ISOLATE)
        return refuse(c->err, "hw:emulator_threads_policy", "BadRequirementEmulatorThreadsPolicy",
                      "An isolated CPU emulator threads option requires a dedicated CPU "
                      "policy option.");
    if (p->have_ded)
        return refuse(c->err, "hw:cpu_dedicated_mask", "RequiredMixedInstancePolicy",
                      MIXED_MASK_ONLY);
    if (p->have_rt)
        return refuse(c->err, "hw:cpu_realtime", "RealtimeConfigurationInvalid",
                      "Cannot set realtime policy in a non dedicated cpu pinning policy");
    return 0;
}

/* The CPU policy against the masks; mixed takes its dedicated vCPUs from
 * the realtime mask when that is the one given. */
static int check_cpu_policy(struct ctx *c, struct policies *p) {
    if (p->cpu == NUMAFIT_CPU_POLICY_SHARED || p->cpu == NUMAFIT_CPU_POLICY_NONE)
        return check_shared(c, p);
    if (p->cpu == NUMAFIT_CPU_POLICY_DEDICATED)
        return p->have_ded ? refuse(c->err, "hw:cpu_dedicated_mask", "RequiredMixedInstancePolicy",
                                    MIXED_MASK_ONLY)
                           : 0;
    if (p->have_rt == p->have_ded)
        return refuse(c->err, p->have_rt ? "hw:cpu_dedicated_mask" : "hw:cpu_policy",
                      "RequiredMixedOrRealtimeCPUMask",
                      "Dedicated CPU set can be specified from either 'hw:cpu_dedicated_mask' "
                      "or 'hw:cpu_realtime_mask' when using 'mixed' CPU policy. "
                      "'hw:cpu_dedicated_mask' and 'hw:cpu_realtime_mask' can not be specified "
                      "at the same time, or be specified with none of them.");
    if (p->have_rt)
        memcpy(p->ded, p->rt, CW * sizeof(uint64_t));
    return 0;
}

/* numa_get_constraints up to the page size, in nova's order. */
static int get_policies(struct ctx *c, struct policies *p) {
    int rc;
    if ((rc = get_cpu_policy(c, &p->cpu)) < 0 || (rc = get_thread_policy(c, &p->thread)) < 0 ||
        (rc = get_realtime(c, p->rt, &p->have_rt)) < 0 ||
        (rc = get_dedicated(c, p->ded, &p->have_ded)) < 0 ||
        (rc = get_emulator_policy(c, &p->emu)) < 0 || (rc = resources_policy(c, p)) < 0 ||
        (rc = trait_policy(c, p)) < 0 || (rc = check_cpu_policy(c, p)) < 0 ||
        (rc = get_node_count(c, &p->nodes)) < 0)
        return rc;
    return get_pagesize(c, &p->pagesize);
}

/* The request's topology: cells when anything asks for NUMA, else none. */
static int request_cells(struct ctx *c, const struct policies *p, uint32_t npmem,
                         numafit_request_t **ret) {
    int rc;
    if (p->cpu == NUMAFIT_CPU_POLICY_DEDICATED)
        memcpy(p->ded, c->all, CW * sizeof(uint64_t));
    else if (p->cpu != NUMAFIT_CPU_POLICY_MIXED)
        memset(p->ded, 0, CW * sizeof(uint64_t));
    if (!p->nodes && !p->pagesize && !npmem && p->cpu != NUMAFIT_CPU_POLICY_DEDICATED &&
        p->cpu != NUMAFIT_CPU_POLICY_MIXED)
        return numafit__request_alloc(c->vcpus, 0, ret) < 0 ? nomem(c->err) : 0;
    if ((rc = build_topology(c, p->nodes ? p->nodes : 1, p->ded, ret)) < 0)
        return rc;
    if (p->thread != THREAD_POLICY_EMPTY)
        return 0;
    /* nova: ValueError when the cells get the policy "" (divergence) */
    numafit_request_free(*ret);
    return refuse(c->err, "hw:cpu_thread_policy", "InvalidCPUThreadAllocationPolicy",
                  "CPU thread policy requested from 'flavor extra specs' is invalid, "
                  "given: '', available: '" THREAD_POLICY_AVAIL "'.");
}

/* The new request, with the policies and the pmem labels (taken). */
static int make_request(struct ctx *c, const struct policies *p, numafit_request_t *pmem,
                        numafit_request_t **ret) {
    numafit_request_t *req;
    int rc = request_cells(c, p, pmem->npmem, &req);
    if (rc < 0)
        return rc;
    req->memory_mb = c->memory_mb;
    req->cpu_policy = p->cpu;
    req->thread_policy = p->thread >= 0 ? p->thread : NUMAFIT_THREAD_POLICY_NONE;
    req->emulator_policy = p->emu;
    req->pagesize = p->pagesize;
    req->locked_memory = p->locked;
    req->cpu_policy_from_resources = p->cpu_from_resources;
    req->image_smt_required = c->img.ht_required;
    req->npmem = pmem->npmem;
    req->pmem = pmem->pmem;
    pmem->pmem = NULL;
    pmem->npmem = 0;
    if (p->have_rt) {
        req->realtime = true;
        req->rt_mask = numafit__calloc(req->nw, sizeof(uint64_t));
        if (!req->rt_mask) {
            numafit_request_free(req);
            return nomem(c->err);
        }
        memcpy(req->rt_mask, p->rt, req->nw * sizeof(uint64_t));
    }
    *ret = req;
    return 0;
}

/* numa_get_constraints. */
static int constraints(struct ctx *c, numafit_request_t **ret) {
    struct policies p = {.cpu = -1, .thread = -1, .emu = -1, .locked = -1};
    numafit_request_t pmem = {0}; /* only its pmem labels */
    int rc;

    p.rt = numafit__calloc(2 * CW, sizeof(uint64_t));
    if (!p.rt)
        return nomem(c->err);
    p.ded = p.rt + CW;
    /* vPMEM labels are kept on the request; parse them before locked memory as nova does */
    if ((rc = get_policies(c, &p)) == 0 && (rc = get_pmem(c, &pmem)) == 0 &&
        (rc = get_locked_memory(c, &p.locked)) == 0)
        rc = make_request(c, &p, &pmem, ret);
    for (uint32_t i = 0; i < pmem.npmem; i++)
        numafit__free(pmem.pmem[i]);
    numafit__free(pmem.pmem);
    numafit__free(p.rt);
    return rc;
}

/* ------------------------------------------------------------ entry */

/* The flavor's vcpus, memory_mb, name and extra specs into c. */
static int read_flavor(struct ctx *c, const json_t *flavor) {
    const json_t *v;
    if (!json_is_object(flavor))
        return fail(c->err, -EINVAL, NUMAFIT_E_SCHEMA, "flavor", NULL, "flavor must be an object");
    v = json_object_get(flavor, "vcpus");
    if (!json_is_integer(v) || json_integer_value(v) < 1)
        return fail(c->err, -EINVAL, NUMAFIT_E_SCHEMA, "vcpus", NULL,
                    "vcpus must be an integer of at least 1");
    if (json_integer_value(v) > NUMAFIT_VCPUS_MAX)
        return fail(c->err, -ERANGE, NUMAFIT_E_RANGE, "vcpus", NULL,
                    "vcpus %lld above the limit %d", (long long)json_integer_value(v),
                    NUMAFIT_VCPUS_MAX);
    c->vcpus = (uint32_t)json_integer_value(v);
    v = json_object_get(flavor, "memory_mb");
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return fail(c->err, -EINVAL, NUMAFIT_E_SCHEMA, "memory_mb", NULL,
                    "memory_mb must be a non-negative integer");
    if ((uint64_t)json_integer_value(v) > NUMAFIT_MEMORY_MB_MAX)
        return fail(c->err, -ERANGE, NUMAFIT_E_RANGE, "memory_mb", NULL,
                    "memory_mb %lld above the limit %llu", (long long)json_integer_value(v),
                    (unsigned long long)NUMAFIT_MEMORY_MB_MAX);
    c->memory_mb = (uint64_t)json_integer_value(v);
    if ((v = json_object_get(flavor, "name")) && json_is_string(v))
        c->flavor_name = json_string_value(v);
    return load_specs(c, flavor);
}

/* c->all = {0 .. vcpus-1}, and c->tmp. */
static int alloc_sets(struct ctx *c) {
    c->all = numafit__calloc(2 * CW, sizeof(uint64_t));
    if (!c->all)
        return nomem(c->err);
    c->tmp = c->all + CW;
    for (uint32_t i = 0; i < c->vcpus; i++)
        numafit__bit_set(c->all, i);
    return 0;
}

int numafit__request_rules(const json_t *flavor, const json_t *image, bool zed,
                           numafit_request_t **ret, numafit_error_t *err) {
    struct ctx c;
    int rc;

    memset(&c, 0, sizeof(c));
    c.err = err;
    c.zed = zed;
    if ((rc = read_flavor(&c, flavor)) == 0 && (rc = alloc_sets(&c)) == 0 &&
        (rc = load_image(&c, image)) == 0)
        rc = constraints(&c, ret);
    numafit__free(c.all);
    cpulist_clear(&c.img.cpus);
    numafit__free(c.img.mem.mb);
    json_decref(c.specs);
    return rc;
}
