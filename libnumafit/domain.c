/* libvirt domain XML for a placement, as nova's libvirt driver writes it
 * (nova/virt/libvirt/driver.py _get_guest_numa_config,
 * _get_guest_memory_backing_config, _update_guest_cputune, _get_guest_cpu_config;
 * designer.py; imagebackend.py Image.disk_qos; vif.py bandwidth).
 *
 * The XML is written by hand with escaping (no libxml2 needed at run time),
 * in libvirt's own element order and indentation, so that the output is
 * deterministic and reads like `virsh dumpxml`. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <numafit/domain.h>

#include "pci_internal.h"

#include "flavor.h"
#include "private.h"

#define CW NUMAFIT__CPU_WORDS
/* a CPU model's or feature's name, with its NUL; the number of extra flags */
#define NUMAFIT__CPU_NAME_MAX  64
#define NUMAFIT__CPU_FLAGS_MAX 64

struct numafit_domconf {
    bool has_shared, has_pinset, has_online;
    uint64_t shared[CW];
    uint64_t pinset[CW];
    uint64_t online[CW];
    int rt_priority;
    bool cpu_control;
    uint64_t file_backed_mb;
    char type[16]; /* <domain type>; "" = the virt type */
    char virt[16]; /* [libvirt] virt_type: the rules */
    char arch[16]; /* the host's architecture */
    char name[256];
    char uuid[37];
    char cpu_mode[20]; /* "" = nova's default for virt and arch */
    char cpu_model[NUMAFIT__CPU_NAME_MAX];
    unsigned ncpu_models; /* [libvirt] cpu_models: the first is written */
    unsigned nflags;      /* [libvirt] cpu_model_extra_flags, sorted by name */
    char flag_name[NUMAFIT__CPU_FLAGS_MAX][NUMAFIT__CPU_NAME_MAX];
    bool flag_off[NUMAFIT__CPU_FLAGS_MAX];
    int mem_stats_period; /* [libvirt] mem_stats_period_seconds */
    char file_cache[16];  /* [libvirt] disk_cachemodes' file=MODE, "" = none */
};

#define ALL_FLAGS (NUMAFIT_DOMAIN_FULL | NUMAFIT_DOMAIN_NOVA_EXACT)

static int nomem(numafit_error_t *err);

/* ------------------------------------------------------------ configuration */

static void conf_defaults(struct numafit_domconf *c) {
    memset(c, 0, sizeof(*c));
    c->rt_priority = 1;
    c->cpu_control = true;
    strcpy(c->virt, "kvm");
    strcpy(c->arch, "x86_64");
    strcpy(c->name, "instance-00000001");
    c->mem_stats_period = 10;
}

NUMAFIT_EXPORT int numafit_domconf_new(numafit_domconf_t **ret_conf) {
    numafit_domconf_t *c;
    if (!ret_conf)
        return -EINVAL;
    c = numafit__malloc(sizeof(*c));
    if (!c)
        return -ENOMEM;
    conf_defaults(c);
    *ret_conf = c;
    return 0;
}

NUMAFIT_EXPORT void numafit_domconf_free(numafit_domconf_t *conf) {
    numafit__free(conf);
}

void numafit__domconf_take_nova(numafit_domconf_t *dst, const numafit_domconf_t *src) {
    dst->has_shared = src->has_shared;
    memcpy(dst->shared, src->shared, sizeof(dst->shared));
    dst->has_pinset = src->has_pinset;
    memcpy(dst->pinset, src->pinset, sizeof(dst->pinset));
    dst->rt_priority = src->rt_priority;
    dst->file_backed_mb = src->file_backed_mb;
    memcpy(dst->virt, src->virt, sizeof(dst->virt));
    memcpy(dst->cpu_mode, src->cpu_mode, sizeof(dst->cpu_mode));
    memcpy(dst->cpu_model, src->cpu_model, sizeof(dst->cpu_model));
    dst->ncpu_models = src->ncpu_models;
    dst->nflags = src->nflags;
    memcpy(dst->flag_name, src->flag_name, sizeof(dst->flag_name));
    memcpy(dst->flag_off, src->flag_off, sizeof(dst->flag_off));
    dst->mem_stats_period = src->mem_stats_period;
    memcpy(dst->file_cache, src->file_cache, sizeof(dst->file_cache));
}

/* Parse a cpu spec option; empty_ok: whether a spec leaving no CPU is fine. */
static int conf_cpuset(const char *opt, const char *spec, bool empty_ok, uint64_t *bits, bool *has,
                       numafit_error_t *err) {
    uint64_t tmp[CW];
    int rc;
    numafit__error_clear(err);
    if (!spec || !*spec) {
        *has = false;
        memset(bits, 0, sizeof(tmp));
        return 0;
    }
    rc = numafit__cpuspec_parse(spec, tmp, err);
    if (rc < 0) {
        if (err && !err->where[0])
            snprintf(err->where, sizeof(err->where), "%s", opt);
        return rc;
    }
    if (!empty_ok && numafit__bits_empty(tmp, CW)) {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, opt, "Invalid",
                           "No CPUs available after parsing '%s' config, '%s'", opt, spec);
        return -EINVAL;
    }
    memcpy(bits, tmp, sizeof(tmp));
    *has = true;
    return 0;
}

NUMAFIT_EXPORT int numafit_domconf_set_cpu_shared_set(numafit_domconf_t *conf, const char *spec,
                                                      numafit_error_t *reterr) {
    if (!conf)
        return -EINVAL;
    return conf_cpuset("[compute] cpu_shared_set", spec, false, conf->shared, &conf->has_shared,
                       reterr);
}

NUMAFIT_EXPORT int numafit_domconf_set_vcpu_pin_set(numafit_domconf_t *conf, const char *spec,
                                                    numafit_error_t *reterr) {
    if (!conf)
        return -EINVAL;
    return conf_cpuset("vcpu_pin_set", spec, false, conf->pinset, &conf->has_pinset, reterr);
}

NUMAFIT_EXPORT int numafit_domconf_set_online_cpus(numafit_domconf_t *conf, const char *spec,
                                                   numafit_error_t *reterr) {
    if (!conf)
        return -EINVAL;
    return conf_cpuset("online CPUs", spec, true, conf->online, &conf->has_online, reterr);
}

NUMAFIT_EXPORT int numafit_domconf_set_realtime_priority(numafit_domconf_t *conf, int priority) {
    if (!conf)
        return -EINVAL;
    if (priority < 1 || priority > 99)
        return -ERANGE;
    conf->rt_priority = priority;
    return 0;
}

NUMAFIT_EXPORT int numafit_domconf_set_cpu_control(numafit_domconf_t *conf, int capable) {
    if (!conf)
        return -EINVAL;
    conf->cpu_control = capable != 0;
    return 0;
}

NUMAFIT_EXPORT int numafit_domconf_set_file_backed_memory(numafit_domconf_t *conf, uint64_t mib) {
    if (!conf || mib > NUMAFIT_MEMORY_MB_MAX)
        return -EINVAL;
    conf->file_backed_mb = mib;
    return 0;
}

NUMAFIT_EXPORT int numafit_domconf_set_domain_type(numafit_domconf_t *conf, const char *type) {
    size_t n;
    if (!conf || !type)
        return -EINVAL;
    n = strlen(type);
    if (n == 0 || n >= sizeof(conf->type))
        return -EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)type[i]))
            return -EINVAL;
    memcpy(conf->type, type, n + 1);
    return 0;
}

/* s is UTF-8 of characters XML 1.0 allows (no control characters but tab,
 * newline, return; no surrogates, U+FFFE, U+FFFF, overlong forms). */
static bool xml_text_ok(const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        uint32_t c = *p, min;
        int more;
        if (c < 0x80) {
            if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
                return false;
            p++;
            continue;
        }
        if (c >= 0xc2 && c <= 0xdf)
            more = 1, c &= 0x1f, min = 0x80;
        else if (c >= 0xe0 && c <= 0xef)
            more = 2, c &= 0x0f, min = 0x800;
        else if (c >= 0xf0 && c <= 0xf4)
            more = 3, c &= 0x07, min = 0x10000;
        else
            return false;
        for (p++; more > 0; more--, p++) {
            if ((*p & 0xc0) != 0x80)
                return false;
            c = (c << 6) | (*p & 0x3f);
        }
        if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff) || c == 0xfffe || c == 0xffff)
            return false;
    }
    return true;
}

NUMAFIT_EXPORT int numafit_domconf_set_name(numafit_domconf_t *conf, const char *name) {
    size_t n;
    if (!conf || !name)
        return -EINVAL;
    n = strlen(name);
    if (n == 0 || n >= sizeof(conf->name) || strchr(name, '/'))
        return -EINVAL;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)name[i] < 0x20)
            return -EINVAL;
    /* written into <name>: the XML must stay well-formed */
    if (!xml_text_ok(name))
        return -EINVAL;
    memcpy(conf->name, name, n + 1);
    return 0;
}

NUMAFIT_EXPORT int numafit_domconf_set_uuid(numafit_domconf_t *conf, const char *uuid) {
    if (!conf)
        return -EINVAL;
    if (!uuid) {
        conf->uuid[0] = '\0';
        return 0;
    }
    if (strlen(uuid) != 36)
        return -EINVAL;
    for (int i = 0; i < 36; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? uuid[i] != '-' : !isxdigit((unsigned char)uuid[i]))
            return -EINVAL;
    }
    memcpy(conf->uuid, uuid, 37);
    return 0;
}

NUMAFIT_EXPORT int numafit_domconf_set_cpu_mode(numafit_domconf_t *conf, const char *mode) {
    static const char *const modes[] = {"host-model", "host-passthrough", "custom", "none",
                                        "maximum"};
    if (!conf)
        return -EINVAL;
    if (!mode) {
        conf->cpu_mode[0] = '\0';
        return 0;
    }
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
        if (!strcmp(mode, modes[i])) {
            strcpy(conf->cpu_mode, modes[i]);
            return 0;
        }
    return -EINVAL;
}

/* One of a NULL-terminated list of words, copied into dst[cap]. */
static int set_word(char *dst, size_t cap, const char *v, const char *const *words) {
    for (size_t i = 0; words[i]; i++)
        if (v && !strcmp(v, words[i]) && strlen(v) < cap) {
            strcpy(dst, v);
            return 0;
        }
    return -EINVAL;
}

NUMAFIT_EXPORT int numafit_domconf_set_virt_type(numafit_domconf_t *conf, const char *type) {
    static const char *const types[] = {"kvm", "qemu", "lxc", "parallels", NULL};
    if (!conf)
        return -EINVAL;
    return set_word(conf->virt, sizeof(conf->virt), type, types);
}

NUMAFIT_EXPORT int numafit_domconf_set_arch(numafit_domconf_t *conf, const char *arch) {
    /* nova's fields.Architecture (libvirt's names) */
    static const char *const archs[] = {
        "alpha",  "armv6",    "armv7l",    "armv7b",     "aarch64",      "cris",     "i686",
        "ia64",   "lm32",     "m68k",      "microblaze", "microblazeel", "mips",     "mipsel",
        "mips64", "mips64el", "openrisc",  "parisc",     "parisc64",     "ppc",      "ppcle",
        "ppc64",  "ppc64le",  "ppcemb",    "s390",       "s390x",        "sh4",      "sh4eb",
        "sparc",  "sparc64",  "unicore32", "x86_64",     "xtensa",       "xtensaeb", NULL};
    if (!conf)
        return -EINVAL;
    return set_word(conf->arch, sizeof(conf->arch), arch, archs);
}

/* The items of an oslo.config ListOpt value (white space around items
 * stripped, a trailing ',' ignored) through fn(item, ctx); an empty item
 * is refused. */
static int list_walk(const char *opt, const char *list, int (*fn)(const char *, void *), void *ctx,
                     numafit_error_t *err) {
    char item[NUMAFIT__CPU_NAME_MAX + 16];
    const char *s = list, *end;
    size_t n = strlen(list);
    while (n && numafit__py_space(list[n - 1]))
        n--;
    while (n && list[n - 1] == ',')
        n--;
    while (s < list + n && numafit__py_space(*s))
        s++;
    if (s == list + n)
        return 0;
    for (;;) {
        const char *a = s, *b;
        int rc;
        end = memchr(s, ',', (size_t)(list + n - s));
        b = end ? end : list + n;
        while (a < b && numafit__py_space(*a))
            a++;
        while (b > a && numafit__py_space(b[-1]))
            b--;
        if (b == a || (size_t)(b - a) >= sizeof(item)) {
            numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, opt, "ConfigFileValueError",
                               "%s: an empty or too long item in '%.64s'", opt, list);
            return -EINVAL;
        }
        memcpy(item, a, (size_t)(b - a));
        item[b - a] = '\0';
        if ((rc = fn(item, ctx)) < 0) {
            numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, opt, "ConfigFileValueError",
                               "%s: '%s' is not a valid item", opt, item);
            return rc;
        }
        if (!end)
            return 0;
        s = end + 1;
    }
}

/* A CPU model or feature name as libvirt's cpu_map names them. */
static bool cpu_name_ok(const char *s) {
    if (!*s || strlen(s) >= NUMAFIT__CPU_NAME_MAX)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("-_.", *s))
            return false;
    return true;
}

struct models_ctx {
    unsigned n;
    char first[NUMAFIT__CPU_NAME_MAX];
};

static int model_item(const char *item, void *ctx) {
    struct models_ctx *m = ctx;
    if (!cpu_name_ok(item) || m->n >= NUMAFIT__CPU_FLAGS_MAX)
        return -EINVAL;
    if (m->n++ == 0)
        strcpy(m->first, item);
    return 0;
}

NUMAFIT_EXPORT int numafit_domconf_set_cpu_models(numafit_domconf_t *conf, const char *list,
                                                  numafit_error_t *reterr) {
    struct models_ctx m;
    int rc;
    numafit__error_clear(reterr);
    if (!conf)
        return -EINVAL;
    memset(&m, 0, sizeof(m));
    if (list && (rc = list_walk("[libvirt] cpu_models", list, model_item, &m, reterr)) < 0)
        return rc;
    conf->ncpu_models = m.n;
    memcpy(conf->cpu_model, m.first, sizeof(m.first));
    return 0;
}

struct flags_ctx {
    unsigned n;
    char name[NUMAFIT__CPU_FLAGS_MAX][NUMAFIT__CPU_NAME_MAX];
    bool off[NUMAFIT__CPU_FLAGS_MAX];
};

/* nova's _prepare_cpu_flag: lower case; leading '-'s disable, leading
 * '+'s (or none) require. The same flag twice is refused (libvirt refuses
 * a feature named twice). */
static int flag_item(const char *item, void *ctx) {
    struct flags_ctx *f = ctx;
    char low[NUMAFIT__CPU_NAME_MAX + 16];
    const char *name;
    bool off;
    size_t i;
    for (i = 0; item[i] && i < sizeof(low) - 1; i++)
        low[i] = (char)tolower((unsigned char)item[i]);
    low[i] = '\0';
    off = low[0] == '-';
    for (name = low; *name == (off ? '-' : '+'); name++)
        ;
    if (!cpu_name_ok(name) || f->n >= NUMAFIT__CPU_FLAGS_MAX)
        return -EINVAL;
    for (i = 0; i < f->n; i++) {
        int c = strcmp(f->name[i], name);
        if (c == 0 && f->off[i] == off)
            return 0; /* nova's set: the same item once */
        if (c == 0)
            return -EINVAL;
        if (c > 0)
            break;
    }
    memmove(f->name[i + 1], f->name[i], (f->n - i) * sizeof(f->name[0]));
    memmove(f->off + i + 1, f->off + i, (f->n - i) * sizeof(f->off[0]));
    strcpy(f->name[i], name);
    f->off[i] = off;
    f->n++;
    return 0;
}

NUMAFIT_EXPORT int numafit_domconf_set_cpu_model_extra_flags(numafit_domconf_t *conf,
                                                             const char *list,
                                                             numafit_error_t *reterr) {
    struct flags_ctx *f;
    int rc = 0;
    numafit__error_clear(reterr);
    if (!conf)
        return -EINVAL;
    if (!(f = numafit__calloc(1, sizeof(*f))))
        return nomem(reterr);
    if (list)
        rc = list_walk("[libvirt] cpu_model_extra_flags", list, flag_item, f, reterr);
    if (rc == 0) {
        conf->nflags = f->n;
        memcpy(conf->flag_name, f->name, sizeof(f->name));
        memcpy(conf->flag_off, f->off, sizeof(f->off));
    }
    numafit__free(f);
    return rc;
}

NUMAFIT_EXPORT int numafit_domconf_set_mem_stats_period(numafit_domconf_t *conf, int seconds) {
    if (!conf)
        return -EINVAL;
    conf->mem_stats_period = seconds;
    return 0;
}

/* nova's VALID_DISK_CACHEMODES */
static const char *const cache_modes[] = {
    "default", "none", "writethrough", "writeback", "directsync", "unsafe", NULL};

static int cache_item(const char *item, void *ctx) {
    char *file = ctx;
    const char *eq = strchr(item, '=');
    char mode[16];
    if (!eq || eq == item)
        return -EINVAL;
    for (const char *t = item; t < eq; t++)
        if (!isalnum((unsigned char)*t) && *t != '_' && *t != '-')
            return -EINVAL;
    if (set_word(mode, sizeof(mode), eq + 1, cache_modes) < 0)
        return -EINVAL;
    if ((size_t)(eq - item) == 4 && !strncmp(item, "file", 4))
        strcpy(file, mode); /* a later entry wins, as in nova's dict */
    return 0;
}

NUMAFIT_EXPORT int numafit_domconf_set_disk_cachemodes(numafit_domconf_t *conf, const char *list,
                                                       numafit_error_t *reterr) {
    char file[16] = "";
    int rc;
    numafit__error_clear(reterr);
    if (!conf)
        return -EINVAL;
    if (list && (rc = list_walk("[libvirt] disk_cachemodes", list, cache_item, file, reterr)) < 0)
        return rc;
    memcpy(conf->file_cache, file, sizeof(file));
    return 0;
}

static bool virt_qemu(const numafit_domconf_t *c) {
    return !strcmp(c->virt, "kvm") || !strcmp(c->virt, "qemu");
}

/* nova's _check_cpu_compatibility at the compute service's start
 * (exception Invalid): a CPU mode only with kvm and qemu, cpu_models with
 * custom and only with it. */
int numafit__domconf_check(const numafit_domconf_t *c, numafit_error_t *err) {
    const char *m = c->cpu_mode;
    if (!virt_qemu(c) && m[0] && strcmp(m, "none")) {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "[libvirt] cpu_mode", "Invalid",
                           "Config requested an explicit CPU model, but the current libvirt "
                           "hypervisor '%s' does not support selecting CPU models",
                           c->virt);
        return -EINVAL;
    }
    if (strcmp(m, "custom") && c->ncpu_models) {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "[libvirt] cpu_models", "Invalid",
                           "The cpu_models option is not required when cpu_mode!=custom");
        return -EINVAL;
    }
    if (!strcmp(m, "custom") && !c->ncpu_models) {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "[libvirt] cpu_models", "Invalid",
                           "The cpu_models option is required when cpu_mode=custom");
        return -EINVAL;
    }
    return 0;
}

/* ------------------------------------------------------------ XML writer */

struct xw {
    char *b;
    size_t len, cap;
    bool oom;
    int base; /* indentation depth of top-level fragments */
};

static void xw_grow(struct xw *w, size_t more) {
    size_t cap;
    char *nb;
    if (w->oom || w->len + more + 1 <= w->cap)
        return;
    cap = w->cap ? w->cap : 1024;
    while (cap < w->len + more + 1)
        cap *= 2;
    nb = numafit__realloc(w->b, cap);
    if (!nb) {
        w->oom = true;
        return;
    }
    w->b = nb;
    w->cap = cap;
}

static void xw_put(struct xw *w, const char *s) {
    size_t n = strlen(s);
    xw_grow(w, n);
    if (w->oom)
        return;
    memcpy(w->b + w->len, s, n + 1);
    w->len += n;
}

static void xw_fmt(struct xw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void xw_fmt(struct xw *w, const char *fmt, ...) {
    char tmp[256];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof(tmp)) {
        w->oom = true; /* only short, fixed texts go through here */
        return;
    }
    xw_put(w, tmp);
}

/* Escaped text for an attribute value (quoted with ') or element content. */
static void xw_esc(struct xw *w, const char *s) {
    char one[2] = {0, 0};
    for (; *s; s++) {
        switch (*s) {
            case '&':
                xw_put(w, "&amp;");
                break;
            case '<':
                xw_put(w, "&lt;");
                break;
            case '>':
                xw_put(w, "&gt;");
                break;
            case '\'':
                xw_put(w, "&apos;");
                break;
            case '"':
                xw_put(w, "&quot;");
                break;
            default:
                one[0] = *s;
                xw_put(w, one);
        }
    }
}

static void xw_ind(struct xw *w, int depth) {
    for (int i = 0; i < w->base + depth; i++)
        xw_put(w, "  ");
}

/* attr='cpuset' for a bitmap (nova's format_cpu_spec). */
static void xw_cpus(struct xw *w, const char *attr, const uint64_t *bits, unsigned nw) {
    char *s = numafit__cpuspec_format(bits, nw);
    if (!s) {
        w->oom = true;
        return;
    }
    xw_fmt(w, " %s='", attr);
    xw_put(w, s);
    xw_put(w, "'");
    numafit__free(s);
}

/* ------------------------------------------------------------ errors */

static int nomem(numafit_error_t *err) {
    numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
    return -ENOMEM;
}

/* Python's sorted(set) repr ("[0, 1, 2]"), cut to fit: after each number
 * there is room left for ", ...]" and the NUL (7 bytes). */
static void pylist(const uint64_t *bits, unsigned nw, char *out, size_t cap) {
    size_t n = 0;
    int i = -1;
    bool first = true;
    out[0] = '\0';
    if (cap < 8)
        return;
    out[n++] = '[';
    while ((i = numafit__bits_next(bits, nw, i)) >= 0) {
        char tmp[16];
        int k = snprintf(tmp, sizeof(tmp), "%s%d", first ? "" : ", ", i);
        if (n + (size_t)k + 7 > cap) {
            memcpy(out + n, ", ...", 5);
            n += 5;
            break;
        }
        memcpy(out + n, tmp, (size_t)k);
        n += (size_t)k;
        first = false;
    }
    out[n++] = ']';
    out[n] = '\0';
}

/* ------------------------------------------------------------ flavor quotas */

/* A quota:* value read as Python's int() reads it. */
struct qval {
    bool set;
    bool neg;
    bool big;      /* |value| does not fit in 64 bits */
    uint64_t mag;  /* |value| */
    char text[48]; /* canonical decimal (sign, no leading zeros, no '_') */
    char raw[64];  /* the value as given, for messages (cut) */
};

/* int(s) into q: false when Python raises ValueError. q->text keeps the
 * sign and at most 45 digits; q->mag is meaningful only when !q->big. */
static bool py_int(const char *s, struct qval *q) {
    struct numafit__pyint v;
    size_t pos = 0, o = 0;
    if (numafit__pyint_scan(s, strlen(s), &v) != NUMAFIT__PYINT_OK)
        return false;
    q->neg = v.sign < 0;
    q->big = !numafit__pyint_u64(&v, &q->mag) || v.ndig + 2 >= sizeof(q->text);
    if (q->neg)
        q->text[o++] = '-';
    for (size_t i = 0; i < v.ndig && i < sizeof(q->text) - 3; i++)
        q->text[o++] = numafit__pyint_digit(&v, &pos);
    if (!v.ndig)
        q->text[o++] = '0';
    q->text[o] = '\0';
    return true;
}

/* Read extra_specs[key] (string, integer or boolean as nova's
 * DictOfStringsField holds it) and validate it as nova's quota validators:
 * an integer, >= 0 when has_min. */
static int quota_get(const json_t *specs, const char *key, bool has_min, struct qval *q,
                     numafit_error_t *err) {
    const json_t *v = specs ? json_object_get(specs, key) : NULL;
    char buf[32];
    const char *s;
    memset(q, 0, sizeof(*q));
    if (!v)
        return 0;
    if (numafit__spec_value(v, key, buf, sizeof(buf), &s, err) < 0)
        return -EINVAL;
    snprintf(q->raw, sizeof(q->raw), "%s", s);
    if (strlen(s) > 4096 || !py_int(s, q)) {
        numafit__error_set(err, NUMAFIT_E_REQUEST, -1, key, "ValidationError",
                           "Validation failed; '%s' is not a valid integer value.", q->raw);
        return -EINVAL;
    }
    if (has_min && q->neg) {
        numafit__error_set(err, NUMAFIT_E_REQUEST, -1, key, "ValidationError",
                           "Validation failed; '%s' is less than the min value of '0'.", q->text);
        return -EINVAL;
    }
    q->set = true;
    return 0;
}

static int libvirt_refuses(numafit_error_t *err, const char *key, const struct qval *q,
                           const char *why) {
    numafit__error_set(err, NUMAFIT_E_RANGE, -1, key, "libvirtError",
                       "%s=%s: nova writes it but libvirt refuses it: %s", key, q->text, why);
    return -ERANGE;
}

/* Flavor JSON -> its extra_specs object (borrowed from *root; may be NULL). */
static int load_flavor(const char *buf, size_t len, json_t **root, const json_t **specs,
                       numafit_error_t *err) {
    int rc;
    *root = NULL;
    *specs = NULL;
    if (!buf)
        return 0;
    if ((rc = numafit__flavor_load(buf, len, "flavor", NUMAFIT__FLAVOR_DOMAIN, root, err)) < 0)
        return rc;
    return numafit__flavor_specs(*root, NUMAFIT__FLAVOR_DOMAIN, specs, err);
}

static const char *const disk_keys[6] = {"disk_read_bytes_sec",  "disk_read_iops_sec",
                                         "disk_write_bytes_sec", "disk_write_iops_sec",
                                         "disk_total_bytes_sec", "disk_total_iops_sec"};

/* <iotune> at depth (nova's order: read, write, total; bytes then iops). */
static int render_iotune(const json_t *specs, unsigned flags, struct xw *w, int depth,
                         numafit_error_t *err) {
    struct qval q[6];
    char key[40];
    int n = 0, rc;
    for (int i = 0; i < 6; i++) {
        snprintf(key, sizeof(key), "quota:%s", disk_keys[i]);
        if ((rc = quota_get(specs, key, true, &q[i], err)) < 0)
            return rc;
        if (q[i].set && q[i].big)
            return libvirt_refuses(err, key, &q[i], "above 18446744073709551615");
        n += q[i].set;
    }
    if (!(flags & NUMAFIT_DOMAIN_NOVA_EXACT)) {
        /* libvirt: "total and read/write bytes_sec (iops_sec) cannot be set
         * at the same time" (zero means unset there) */
        for (int m = 0; m < 2; m++) {
            const struct qval *t = &q[4 + m], *r = &q[m], *wr = &q[2 + m];
            if (t->set && t->mag && ((r->set && r->mag) || (wr->set && wr->mag))) {
                snprintf(key, sizeof(key), "quota:%s", disk_keys[4 + m]);
                return libvirt_refuses(err, key, t,
                                       m ? "total and read/write iops_sec cannot be set at "
                                           "the same time"
                                         : "total and read/write bytes_sec cannot be set at "
                                           "the same time");
            }
        }
    }
    if (!n)
        return 0;
    xw_ind(w, depth);
    xw_put(w, "<iotune>\n");
    for (int i = 0; i < 6; i++) {
        if (!q[i].set)
            continue;
        xw_ind(w, depth + 1);
        xw_fmt(w, "<%s>%s</%s>\n", disk_keys[i] + 5, q[i].text, disk_keys[i] + 5);
    }
    xw_ind(w, depth);
    xw_put(w, "</iotune>\n");
    return n;
}

/* <bandwidth> at depth (designer.set_vif_bandwidth_config + config.py). */
static int render_bandwidth(const json_t *specs, unsigned flags, struct xw *w, int depth,
                            numafit_error_t *err) {
    static const char *const dirs[2] = {"inbound", "outbound"};
    static const char *const attrs[3] = {"average", "peak", "burst"};
    struct qval q[2][3];
    char key[40];
    int n = 0, rc;
    (void)flags;
    for (int d = 0; d < 2; d++)
        for (int a = 0; a < 3; a++) {
            snprintf(key, sizeof(key), "quota:vif_%s_%s", dirs[d], attrs[a]);
            if ((rc = quota_get(specs, key, true, &q[d][a], err)) < 0)
                return rc;
            if (q[d][a].set && q[d][a].big)
                return libvirt_refuses(err, key, &q[d][a], "above 18446744073709551615");
        }
    /* nova writes <bandwidth> only with an average, and a direction's peak
     * and burst only with that direction's average */
    if (!q[0][0].set && !q[1][0].set)
        return 0;
    xw_ind(w, depth);
    xw_put(w, "<bandwidth>\n");
    for (int d = 0; d < 2; d++) {
        if (!q[d][0].set)
            continue;
        xw_ind(w, depth + 1);
        xw_fmt(w, "<%s", dirs[d]);
        for (int a = 0; a < 3; a++)
            if (q[d][a].set) {
                xw_fmt(w, " %s='%s'", attrs[a], q[d][a].text);
                n++;
            }
        xw_put(w, "/>\n");
    }
    xw_ind(w, depth);
    xw_put(w, "</bandwidth>\n");
    return n;
}

/* <shares>/<period>/<quota> values (_update_guest_cputune); set[i] tells which. */
static int cpu_quotas(const json_t *specs, const numafit_domconf_t *conf, unsigned flags,
                      struct qval q[3], numafit_error_t *err) {
    static const char *const keys[3] = {"quota:cpu_shares", "quota:cpu_period", "quota:cpu_quota"};
    bool wants = false;
    int rc;
    for (int i = 0; i < 3; i++)
        if (specs && json_object_get(specs, keys[i]))
            wants = true;
    memset(q, 0, 3 * sizeof(*q));
    if (!wants)
        return 0;
    if (!conf->cpu_control) {
        numafit__error_set(err, NUMAFIT_E_REQUEST, -1, "quota:cpu_*",
                           "UnsupportedHostCPUControlPolicy",
                           "Requested CPU control policy not supported by host");
        return -EINVAL;
    }
    if (!strcmp(conf->virt, "parallels"))
        return 0; /* nova writes (and reads) cpu quotas with lxc, kvm and qemu only */
    for (int i = 0; i < 3; i++)
        if ((rc = quota_get(specs, keys[i], i < 2, &q[i], err)) < 0)
            return rc;
    for (int i = 0; i < 3; i++)
        if (q[i].set && q[i].big && !(q[i].neg && i == 2 && (flags & NUMAFIT_DOMAIN_NOVA_EXACT)))
            return libvirt_refuses(err, keys[i], &q[i], "out of the 64-bit range");
    if (flags & NUMAFIT_DOMAIN_NOVA_EXACT)
        return 0;
    /* libvirt 9.0 (virDomainDefParseXML): 0 is "unset"; checked against
     * virDomainDefineXML on test:///default */
    if (q[0].set && q[0].mag && (q[0].mag < 2 || q[0].mag > 262144))
        return libvirt_refuses(err, keys[0], &q[0],
                               "Value of cputune 'shares' must be in range [2, 262144]");
    if (q[1].set && q[1].mag && (q[1].mag < 1000 || q[1].mag > 1000000))
        return libvirt_refuses(err, keys[1], &q[1],
                               "Value of cputune 'period' must be in range [1000, 1000000]");
    if (q[2].set && !q[2].neg && q[2].mag && (q[2].mag < 1000 || q[2].mag > 17592186044415ull))
        return libvirt_refuses(err, keys[2], &q[2],
                               "Value of cputune 'quota' must be in range "
                               "[1000, 17592186044415]");
    if (q[2].set && q[2].neg && (q[2].big || q[2].mag > (uint64_t)LLONG_MAX))
        return libvirt_refuses(err, keys[2], &q[2], "below the 64-bit range");
    return 0;
}

/* ------------------------------------------------------------ the guest config */

struct gen {
    const numafit_host_t *host;
    const numafit_request_t *req;
    const numafit_placement_t *p;
    const numafit_domconf_t *conf;
    unsigned flags;
    numafit_error_t *err;
    /* results */
    bool has_vcpu_cpuset;
    uint64_t vcpu_cpuset[CW];
    bool numa_host;       /* host has NUMA cells: cputune and numatune */
    bool wants_hugepages; /* memAccess='shared' */
    uint64_t emu[CW];
    int *host_index; /* per placement cell: index into host->cells */
};

/* _get_vcpu_available, when vcpu_pin_set or cpu_shared_set is set. */
static int vcpu_available(struct gen *g) {
    const numafit_domconf_t *c = g->conf;
    const uint64_t *set;
    if (!c->has_pinset && !c->has_shared)
        return 0;
    set = c->has_pinset ? c->pinset : c->shared;
    if (c->has_online && !numafit__bits_subset(set, c->online, CW)) {
        char on[96], rq[96];
        pylist(c->online, CW, on, sizeof(on));
        pylist(set, CW, rq, sizeof(rq));
        numafit__error_set(g->err, NUMAFIT_E_REQUEST, -1,
                           c->has_pinset ? "vcpu_pin_set" : "[compute] cpu_shared_set", "Invalid",
                           "Invalid '%s' config: one or more of the configured CPUs is not "
                           "online. Online cpuset(s): %s, configured cpuset(s): %s",
                           c->has_pinset ? "vcpu_pin_set" : "[compute] cpu_shared_set", on, rq);
        return -EINVAL;
    }
    memcpy(g->vcpu_cpuset, set, sizeof(g->vcpu_cpuset));
    g->has_vcpu_cpuset = true;
    return 0;
}

/* The guest cell's vCPUs (cpuset | pcpuset) into out (p->nw words). */
static void cell_vcpus(const numafit_placement_t *p, const struct numafit__pcell *pc,
                       uint64_t *out) {
    for (uint32_t k = 0; k < p->nw; k++)
        out[k] = pc->cpuset[k] | pc->pcpuset[k];
}

static int pinned_pcpu(const struct numafit__pcell *pc, unsigned vcpu) {
    if (!pc->has_pinning)
        return -1;
    for (uint32_t k = 0; k < pc->npin; k++)
        if (pc->pin_vcpu[k] == vcpu)
            return (int)pc->pin_pcpu[k];
    return -1;
}

static bool is_rt(const numafit_request_t *req, unsigned vcpu) {
    return req->realtime && req->rt_mask && vcpu < req->nw * 64u &&
           numafit__bit_test(req->rt_mask, vcpu);
}

static int check_pin_set(struct gen *g, const uint64_t *set, unsigned vcpu) {
    if (!(g->flags & NUMAFIT_DOMAIN_NOVA_EXACT) && numafit__bits_empty(set, g->host->nw)) {
        numafit__error_set(g->err, NUMAFIT_E_RANGE, -1, "vcpupin", "libvirtError",
                           "vCPU %u would float over an empty cpuset: its host cell has no "
                           "shared CPUs (libvirt refuses cpuset='')",
                           vcpu);
        return -ERANGE;
    }
    return 0;
}

/* The emulatorpin set (_get_emulatorpin_cpuset over every vCPU). */
static int emulator_set(struct gen *g, uint64_t *vcpus) {
    const numafit_placement_t *p = g->p;
    const numafit_host_t *h = g->host;
    const numafit_domconf_t *c = g->conf;
    int emu_policy = p->emulator_policy;
    memset(g->emu, 0, sizeof(g->emu));
    for (uint32_t i = 0; i < p->ncells; i++) {
        const struct numafit__pcell *pc = &p->cells[i];
        const struct numafit__cell *hc = &h->cells[g->host_index[i]];
        int v = -1;
        cell_vcpus(p, pc, vcpus);
        while ((v = numafit__bits_next(vcpus, p->nw, v)) >= 0) {
            int pin = pinned_pcpu(pc, (unsigned)v);
            if (emu_policy == NUMAFIT_EMULATOR_THREADS_ISOLATE) {
                for (uint32_t k = 0; pc->has_reserved && k < pc->nreserved; k++)
                    if (pc->reserved[k] < NUMAFIT__CPU_LIMIT)
                        numafit__bit_set(g->emu, pc->reserved[k]);
            } else if (emu_policy == NUMAFIT_EMULATOR_THREADS_SHARE && c->has_shared) {
                uint64_t set[CW];
                for (unsigned k = 0; k < CW; k++)
                    set[k] = c->shared[k] & (c->has_online ? c->online[k] : ~0ull);
                if (numafit__bits_empty(set, CW)) {
                    char on[96], rq[96];
                    pylist(c->online, CW, on, sizeof(on));
                    pylist(c->shared, CW, rq, sizeof(rq));
                    numafit__error_set(g->err, NUMAFIT_E_REQUEST, -1, "[compute] cpu_shared_set",
                                       "Invalid",
                                       "Invalid cpu_shared_set config, one or more of the "
                                       "specified cpuset is not online. Online cpuset(s): %s, "
                                       "requested cpuset(s): %s",
                                       on, rq);
                    return -EINVAL;
                }
                for (unsigned k = 0; k < CW; k++)
                    g->emu[k] |= set[k];
            } else if (!is_rt(g->req, (unsigned)v)) {
                if (pin >= 0) {
                    if (pin < NUMAFIT__CPU_LIMIT)
                        numafit__bit_set(g->emu, (unsigned)pin);
                } else {
                    for (unsigned k = 0; k < h->nw; k++)
                        g->emu[k] |= hc->cpuset[k];
                }
            }
        }
    }
    if (!(g->flags & NUMAFIT_DOMAIN_NOVA_EXACT) && numafit__bits_empty(g->emu, CW)) {
        numafit__error_set(g->err, NUMAFIT_E_RANGE, -1, "emulatorpin", "libvirtError",
                           "the emulator threads would be pinned to an empty cpuset "
                           "(isolate without cpuset_reserved?): libvirt refuses cpuset=''");
        return -ERANGE;
    }
    return 0;
}

/* _wants_hugepages: a cell page size among host cell 0's sizes but the smallest. */
static bool wants_hugepages(const numafit_host_t *h, const numafit_placement_t *p) {
    const struct numafit__cell *c0;
    uint64_t smallest = UINT64_MAX;
    if (!h->ncells || !p)
        return false;
    c0 = &h->cells[0];
    for (uint32_t k = 0; k < c0->npages; k++)
        if (c0->pages[k].size_kb < smallest)
            smallest = c0->pages[k].size_kb;
    for (uint32_t i = 0; i < p->ncells; i++) {
        int64_t ps = p->cells[i].pagesize;
        if (ps <= 0 || (uint64_t)ps == smallest)
            continue;
        for (uint32_t k = 0; k < c0->npages; k++)
            if (c0->pages[k].size_kb == (uint64_t)ps)
                return true;
    }
    return false;
}

static void render_memory_backing(struct gen *g, struct xw *w, bool filebacked) {
    const numafit_placement_t *p = g->p;
    const numafit_host_t *h = g->host;
    bool realtime = g->req->realtime, locked = g->req->locked_memory == 1;
    bool any_pages = false;
    uint64_t smallest = 0;
    bool pages_known = false;

    if (p && h->ncells) {
        for (uint32_t k = 0; k < h->cells[0].npages; k++)
            if (!pages_known || h->cells[0].pages[k].size_kb < smallest) {
                smallest = h->cells[0].pages[k].size_kb;
                pages_known = true;
            }
        for (uint32_t i = 0; i < p->ncells && !filebacked; i++)
            if (p->cells[i].pagesize > 0 && (uint64_t)p->cells[i].pagesize > smallest)
                any_pages = true;
    }
    if (!any_pages && !realtime && !locked && !filebacked)
        return;
    xw_ind(w, 0);
    xw_put(w, "<memoryBacking>\n");
    if (any_pages) {
        xw_ind(w, 1);
        xw_put(w, "<hugepages>\n");
        for (uint32_t i = 0; i < p->ncells; i++) {
            if (p->cells[i].pagesize <= 0 || (uint64_t)p->cells[i].pagesize <= smallest)
                continue;
            xw_ind(w, 2);
            xw_fmt(w, "<page size='%lld' unit='KiB' nodeset='%u'/>\n",
                   (long long)p->cells[i].pagesize, i);
        }
        xw_ind(w, 1);
        xw_put(w, "</hugepages>\n");
    }
    if (realtime) {
        xw_ind(w, 1);
        xw_put(w, "<nosharepages/>\n");
    }
    if (realtime || locked) {
        xw_ind(w, 1);
        xw_put(w, "<locked/>\n");
    }
    if (filebacked) {
        xw_ind(w, 1);
        xw_put(w, "<source type='file'/>\n");
        xw_ind(w, 1);
        xw_put(w, "<access mode='shared'/>\n");
        xw_ind(w, 1);
        xw_put(w, "<allocation mode='immediate'/>\n");
        xw_ind(w, 1);
        xw_put(w, "<discard/>\n");
    }
    xw_ind(w, 0);
    xw_put(w, "</memoryBacking>\n");
}

static void render_cputune(struct gen *g, struct xw *w, const struct qval q[3]) {
    const numafit_placement_t *p = g->p;
    const numafit_host_t *h = g->host;
    static const char *const names[3] = {"shares", "period", "quota"};
    bool any_quota = q[0].set || q[1].set || q[2].set;
    uint32_t nv = p && g->numa_host ? p->nw * 64u : 0;

    if (!g->numa_host && !any_quota)
        return;
    xw_ind(w, 0);
    xw_put(w, "<cputune>\n");
    for (int i = 0; i < 3; i++)
        if (q[i].set) {
            xw_ind(w, 1);
            xw_fmt(w, "<%s>%s</%s>\n", names[i], q[i].text, names[i]);
        }
    if (g->numa_host) {
        /* vcpupin sorted by vCPU id */
        for (uint32_t v = 0; v < nv; v++) {
            for (uint32_t i = 0; i < p->ncells; i++) {
                const struct numafit__pcell *pc = &p->cells[i];
                int pin;
                if (!numafit__bit_test(pc->cpuset, v) && !numafit__bit_test(pc->pcpuset, v))
                    continue;
                xw_ind(w, 1);
                xw_fmt(w, "<vcpupin vcpu='%u'", v);
                pin = pinned_pcpu(pc, v);
                if (pin >= 0)
                    xw_fmt(w, " cpuset='%d'", pin);
                else
                    xw_cpus(w, "cpuset", h->cells[g->host_index[i]].cpuset, h->nw);
                xw_put(w, "/>\n");
                break;
            }
        }
        xw_ind(w, 1);
        xw_put(w, "<emulatorpin");
        xw_cpus(w, "cpuset", g->emu, CW);
        xw_put(w, "/>\n");
        if (g->req->realtime && g->req->rt_mask &&
            !numafit__bits_empty(g->req->rt_mask, g->req->nw)) {
            xw_ind(w, 1);
            xw_put(w, "<vcpusched");
            xw_cpus(w, "vcpus", g->req->rt_mask, g->req->nw);
            xw_fmt(w, " scheduler='fifo' priority='%d'/>\n", g->conf->rt_priority);
        }
    }
    xw_ind(w, 0);
    xw_put(w, "</cputune>\n");
}

static void render_numatune(struct gen *g, struct xw *w) {
    const numafit_placement_t *p = g->p;
    uint64_t nodes[NUMAFIT__WORDS(NUMAFIT_CELL_ID_MAX + 1)];
    if (!g->numa_host)
        return;
    memset(nodes, 0, sizeof(nodes));
    for (uint32_t i = 0; i < p->ncells; i++)
        numafit__bit_set(nodes, (unsigned)p->cells[i].host_id);
    xw_ind(w, 0);
    xw_put(w, "<numatune>\n");
    xw_ind(w, 1);
    xw_put(w, "<memory mode='strict'");
    xw_cpus(w, "nodeset", nodes, NUMAFIT__WORDS(NUMAFIT_CELL_ID_MAX + 1));
    xw_put(w, "/>\n");
    for (uint32_t i = 0; i < p->ncells; i++) {
        xw_ind(w, 1);
        xw_fmt(w, "<memnode cellid='%u' mode='strict' nodeset='%d'/>\n", i, p->cells[i].host_id);
    }
    xw_ind(w, 0);
    xw_put(w, "</numatune>\n");
}

/* What the flavor and image ask of <features> and <clock>. */
struct guest_opts {
    int pmu;      /* hw:pmu / hw_pmu: -1 unset, 0 off, 1 on */
    bool windows; /* the image's os_type is "windows" */
    bool hpet;    /* hw_time_hpet */
};

/* hardware.get_pmu_constraint, the image's os_type (the instance's, as
 * the compute API copies it) and hw_time_hpet. */
static int guest_opts(const numafit_domconf_t *c, const json_t *specs, const json_t *props,
                      struct guest_opts *o, numafit_error_t *err) {
    const json_t *v = specs ? json_object_get(specs, "hw:pmu") : NULL;
    char buf[32];
    const char *s;
    int fv = -1, iv, rc;
    bool props_pmu = true;
    memset(o, 0, sizeof(*o));
    o->pmu = -1;
    /* the image is read (ImageMeta) before the PMU is asked */
    if ((rc = numafit__image_str(props, "os_type", buf, sizeof(buf), &s, err)) < 0)
        return rc;
    if (s) {
        /* ImageMeta's OSTypeField: linux or windows in any case */
        char low[8];
        size_t n = strlen(s), i;
        for (i = 0; i < n && i < sizeof(low) - 1; i++)
            low[i] = (char)tolower((unsigned char)s[i]);
        low[i] = '\0';
        if (n >= sizeof(low) || (strcmp(low, "linux") && strcmp(low, "windows"))) {
            numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "os_type", "ValueError",
                               "image property os_type: '%.32s' is not linux or windows", s);
            return -EINVAL;
        }
        /* the instance keeps the image's text: only "windows" is Windows */
        o->windows = !strcmp(s, "windows");
    }
    if (!virt_qemu(c))
        v = NULL, props_pmu = false; /* nova asks for the PMU with kvm and qemu only */
    if (v) {
        if ((rc = numafit__spec_value(v, "hw:pmu", buf, sizeof(buf), &s, err)) < 0)
            return rc;
        fv = numafit__py_bool(s);
    }
    if (props_pmu && (rc = numafit__image_bool(props, "hw_pmu", &iv, err)) < 0)
        return rc;
    if (!props_pmu)
        iv = -1;
    if (fv >= 0 && iv >= 0 && fv != iv) {
        numafit__error_set(err, NUMAFIT_E_REQUEST, -1, "hw:pmu", "FlavorImageConflict",
                           "Flavor has hw:pmu extra spec explicitly set to %s, conflicting with "
                           "image which has hw_pmu explicitly set to %s.",
                           fv ? "True" : "False", iv ? "True" : "False");
        return -EINVAL;
    }
    o->pmu = fv >= 0 ? fv : iv;
    if ((rc = numafit__image_bool(props, "hw_time_hpet", &iv, err)) < 0)
        return rc;
    o->hpet = iv == 1;
    return 0;
}

static bool x86_guest(const numafit_domconf_t *c) {
    return !strcmp(c->arch, "x86_64") || !strcmp(c->arch, "i686");
}

/* _set_features: the PMU (nova's other features are not written). */
static void render_features(struct gen *g, struct xw *w, const struct guest_opts *o) {
    if (o->pmu < 0 || !virt_qemu(g->conf))
        return;
    xw_ind(w, 0);
    xw_put(w, "<features>\n");
    xw_ind(w, 1);
    xw_fmt(w, "<pmu state='%s'/>\n", o->pmu ? "on" : "off");
    xw_ind(w, 0);
    xw_put(w, "</features>\n");
}

/* _set_clock and _set_kvm_timers */
static void render_clock(struct gen *g, struct xw *w, const struct guest_opts *o) {
    xw_ind(w, 0);
    xw_fmt(w, "<clock offset='%s'", o->windows ? "localtime" : "utc");
    if (strcmp(g->conf->virt, "kvm")) {
        xw_put(w, "/>\n");
        return;
    }
    xw_put(w, ">\n");
    xw_ind(w, 1);
    xw_put(w, "<timer name='pit' tickpolicy='delay'/>\n");
    xw_ind(w, 1);
    xw_put(w, "<timer name='rtc' tickpolicy='catchup'/>\n");
    if (x86_guest(g->conf)) {
        xw_ind(w, 1);
        xw_fmt(w, "<timer name='hpet' present='%s'/>\n", o->hpet ? "yes" : "no");
    }
    if (o->windows) {
        xw_ind(w, 1);
        xw_put(w, "<timer name='hypervclock' present='yes'/>\n");
    }
    xw_ind(w, 0);
    xw_put(w, "</clock>\n");
}

/* _guest_add_memory_balloon, at depth */
static void render_memballoon(const numafit_domconf_t *c, struct xw *w, int depth) {
    if (!virt_qemu(c) || c->mem_stats_period <= 0)
        return;
    xw_ind(w, depth);
    xw_put(w, "<memballoon model='virtio'>\n");
    xw_ind(w, depth + 1);
    xw_fmt(w, "<stats period='%d'/>\n", c->mem_stats_period);
    xw_ind(w, depth);
    xw_put(w, "</memballoon>\n");
}

/* _get_guest_cpu_model_config: the mode nova writes ("" for none), or
 * NULL when it writes no <cpu> at all (lxc, parallels without a mode). */
static const char *cpu_mode(const numafit_domconf_t *c) {
    const char *m = c->cpu_mode;
    if (!virt_qemu(c))
        return m[0] && strcmp(m, "none") ? m : NULL;
    if (!m[0])
        return strcmp(c->arch, "aarch64") ? "host-model" : "host-passthrough";
    return strcmp(m, "none") ? m : "";
}

static void render_cpu(struct gen *g, struct xw *w, unsigned sockets, unsigned cores,
                       unsigned threads, uint64_t *vcpus) {
    const numafit_placement_t *p = g->p;
    const numafit_domconf_t *c = g->conf;
    const char *mode = cpu_mode(c);
    if (!mode)
        return;
    xw_ind(w, 0);
    xw_put(w, "<cpu");
    if (mode[0]) {
        xw_fmt(w, " mode='%s'", mode);
        if (!strcmp(mode, "custom"))
            xw_put(w, " match='exact'");
        xw_put(w, ">\n");
        if (c->ncpu_models) {
            xw_ind(w, 1);
            xw_put(w, "<model>");
            xw_esc(w, c->cpu_model);
            xw_put(w, "</model>\n");
        }
    } else {
        xw_put(w, ">\n");
    }
    xw_ind(w, 1);
    xw_fmt(w, "<topology sockets='%u' cores='%u' threads='%u'/>\n", sockets, cores, threads);
    /* the extra flags, whatever the mode, but not with mode none */
    for (unsigned i = 0; mode[0] && i < c->nflags; i++) {
        xw_ind(w, 1);
        xw_fmt(w, "<feature policy='%s' name='", c->flag_off[i] ? "disable" : "require");
        xw_esc(w, c->flag_name[i]);
        xw_put(w, "'/>\n");
    }
    if (p) {
        xw_ind(w, 1);
        xw_put(w, "<numa>\n");
        for (uint32_t i = 0; i < p->ncells; i++) {
            cell_vcpus(p, &p->cells[i], vcpus);
            xw_ind(w, 2);
            xw_fmt(w, "<cell id='%u'", i);
            xw_cpus(w, "cpus", vcpus, p->nw);
            xw_fmt(w, " memory='%llu' unit='KiB'", (unsigned long long)p->cells[i].memory * 1024u);
            if (g->wants_hugepages)
                xw_put(w, " memAccess='shared'");
            xw_put(w, "/>\n");
        }
        xw_ind(w, 1);
        xw_put(w, "</numa>\n");
    }
    xw_ind(w, 0);
    xw_put(w, "</cpu>\n");
}

/* Arguments and the placement against the host. */
static int check_inputs(struct gen *g) {
    const numafit_placement_t *p = g->p;
    const numafit_request_t *r = g->req;
    if (!p) {
        if (r->ncells) {
            numafit__error_set(g->err, NUMAFIT_E_INVALID_ARG, -1, "placement", NULL,
                               "the request has a NUMA topology: pass its placement");
            return -EINVAL;
        }
        return 0;
    }
    if (!p->ncells) {
        numafit__error_set(g->err, NUMAFIT_E_INVALID_ARG, -1, "placement", NULL,
                           "the placement has no cells");
        return -EINVAL;
    }
    g->host_index = numafit__calloc(p->ncells, sizeof(int));
    if (!g->host_index)
        return nomem(g->err);
    for (uint32_t i = 0; i < p->ncells; i++) {
        const struct numafit__pcell *pc = &p->cells[i];
        int last = numafit__bits_last(pc->cpuset, p->nw);
        int lastp = numafit__bits_last(pc->pcpuset, p->nw);
        if (lastp > last)
            last = lastp;
        if (last < 0 || (uint32_t)last >= r->vcpus) {
            numafit__error_set(g->err, NUMAFIT_E_INVALID_ARG, -1, "placement", NULL,
                               "placement cell %u: vCPUs missing or beyond the request's %u", i,
                               r->vcpus);
            return -EINVAL;
        }
        if (pc->host_id < 0 || pc->host_id > NUMAFIT_CELL_ID_MAX) {
            numafit__error_set(g->err, NUMAFIT_E_INVALID_ARG, -1, "placement", NULL,
                               "placement cell %u: bad host cell id", i);
            return -EINVAL;
        }
        for (uint32_t j = 0; j < i; j++)
            if (p->cells[j].host_id == pc->host_id) {
                numafit__error_set(g->err, NUMAFIT_E_INVALID_ARG, pc->host_id, "placement", NULL,
                                   "two guest cells on host cell %d", pc->host_id);
                return -EINVAL;
            }
        for (uint32_t k = 0; pc->has_pinning && k < pc->npin; k++)
            if (pc->pin_pcpu[k] >= NUMAFIT__CPU_LIMIT) {
                numafit__error_set(g->err, NUMAFIT_E_RANGE, -1, "placement", NULL,
                                   "pinned pCPU %u out of range", pc->pin_pcpu[k]);
                return -ERANGE;
            }
        g->host_index[i] = -1;
        if (g->host->ncells) {
            g->host_index[i] = numafit__host_cell_index(g->host, pc->host_id);
            if (g->host_index[i] < 0) {
                numafit__error_set(g->err, NUMAFIT_E_INVALID_ARG, pc->host_id, "placement", NULL,
                                   "the host has no NUMA cell %d", pc->host_id);
                return -ENOENT;
            }
        }
    }
    return 0;
}

static void render_full_head(struct gen *g, struct xw *w) {
    const char *uuid = g->conf->uuid[0] ? g->conf->uuid : (g->p && g->p->uuid[0] ? g->p->uuid : "");
    xw_fmt(w, "<domain type='%s'>\n", g->conf->type[0] ? g->conf->type : g->conf->virt);
    xw_put(w, "  <name>");
    xw_esc(w, g->conf->name);
    xw_put(w, "</name>\n");
    if (uuid[0])
        xw_fmt(w, "  <uuid>%s</uuid>\n", uuid);
    xw_fmt(w, "  <memory unit='KiB'>%llu</memory>\n",
           (unsigned long long)g->req->memory_mb * 1024u);
}

NUMAFIT_EXPORT int numafit_domain_xml(const numafit_host_t *host, const numafit_request_t *req,
                                      const numafit_placement_t *p, const char *flavor_json,
                                      size_t flavor_len, const char *image_json, size_t image_len,
                                      const numafit_domconf_t *conf, unsigned flags, char **ret_xml,
                                      numafit_error_t *reterr) {
    struct numafit_domconf defconf;
    struct gen g;
    struct xw w;
    struct qval q[3];
    json_t *flavor = NULL, *image = NULL;
    const json_t *specs = NULL, *props = NULL;
    struct guest_opts opts;
    uint64_t *vcpus = NULL;
    unsigned sockets, cores, threads;
    bool filebacked;
    int rc;

    numafit__error_clear(reterr);
    if (!host || !req || !ret_xml || (flags & ~(unsigned)ALL_FLAGS)) {
        numafit__error_set(reterr, NUMAFIT_E_INVALID_ARG, -1, "", NULL,
                           "NULL argument or unknown flag");
        return -EINVAL;
    }
    if (!conf) {
        conf_defaults(&defconf);
        conf = &defconf;
    }
    memset(&g, 0, sizeof(g));
    memset(&w, 0, sizeof(w));
    g.host = host;
    g.req = req;
    g.p = p;
    g.conf = conf;
    g.flags = flags;
    g.err = reterr;
    if ((rc = numafit__domconf_check(conf, reterr)) < 0 || (rc = check_inputs(&g)) < 0)
        goto out;
    if (p) {
        vcpus = numafit__calloc(p->nw, sizeof(uint64_t));
        if (!vcpus) {
            rc = nomem(reterr);
            goto out;
        }
    }
    if ((rc = load_flavor(flavor_json, flavor_len, &flavor, &specs, reterr)) < 0)
        goto out;
    if (image_json &&
        ((rc = numafit__flavor_load(image_json, image_len, "image", NUMAFIT__FLAVOR_DOMAIN, &image,
                                    reterr)) < 0 ||
         (rc = numafit__image_props(image, NUMAFIT__FLAVOR_DOMAIN, &props, reterr)) < 0))
        goto out;
    /* _set_features, _set_clock */
    if ((rc = guest_opts(conf, specs, props, &opts, reterr)) < 0)
        goto out;

    /* _get_guest_numa_config */
    if ((rc = vcpu_available(&g)) < 0)
        goto out;
    g.numa_host = p && host->ncells > 0;
    g.wants_hugepages = wants_hugepages(host, p);
    if (g.numa_host) {
        for (uint32_t i = 0; i < p->ncells; i++) {
            const struct numafit__pcell *pc = &p->cells[i];
            int v = -1;
            cell_vcpus(p, pc, vcpus);
            while ((v = numafit__bits_next(vcpus, p->nw, v)) >= 0)
                if (pinned_pcpu(pc, (unsigned)v) < 0 &&
                    (rc = check_pin_set(&g, host->cells[g.host_index[i]].cpuset, (unsigned)v)) < 0)
                    goto out;
        }
        if ((rc = emulator_set(&g, vcpus)) < 0)
            goto out;
    }

    /* _get_guest_memory_backing_config */
    if (req->realtime && req->emulator_policy == NUMAFIT_EMULATOR_THREADS_SHARE &&
        !conf->has_shared) {
        numafit__error_set(reterr, NUMAFIT_E_REQUEST, -1, "hw:emulator_threads_policy",
                           "RealtimeMaskNotFoundOrInvalid",
                           "Use of realtime CPUs requires either one or more non-realtime "
                           "CPU(s) or offloaded emulator threads.");
        rc = -EINVAL;
        goto out;
    }
    filebacked = conf->file_backed_mb > 0;
    if (p) {
        bool mempages = false;
        for (uint32_t i = 0; i < p->ncells; i++)
            mempages |= p->cells[i].pagesize > 0;
        if (mempages && (filebacked || !host->ncells)) {
            numafit__error_set(reterr, NUMAFIT_E_REQUEST, -1, "hw:mem_page_size",
                               "MemoryPagesUnsupported",
                               "Host does not support guests with custom memory page sizes");
            rc = -EINVAL;
            goto out;
        }
    }

    /* _update_guest_cputune */
    if ((rc = cpu_quotas(specs, conf, flags, q, reterr)) < 0)
        goto out;

    /* _get_guest_cpu_config: the topology */
    if (flavor_json) {
        rc = numafit_cpu_topology_best(flavor_json, flavor_len, image_json,
                                       image_json ? image_len : 0, 0, &sockets, &cores, &threads,
                                       reterr);
        if (rc < 0)
            goto out;
    } else {
        sockets = req->vcpus;
        cores = threads = 1;
    }

    if (g.numa_host && !cpu_mode(conf) && !(flags & NUMAFIT_DOMAIN_NOVA_EXACT)) {
        /* lxc and parallels without a CPU mode: nova writes no <cpu>, so no
         * guest NUMA cells, but the <numatune> memnodes of the placement */
        numafit__error_set(reterr, NUMAFIT_E_RANGE, -1, "[libvirt] virt_type", "libvirtError",
                           "virt_type %s with a NUMA topology: nova writes <numatune> memnodes "
                           "without guest NUMA cells (no <cpu>), which libvirt refuses",
                           conf->virt);
        rc = -ERANGE;
        goto out;
    }
    if ((flags & NUMAFIT_DOMAIN_FULL) && req->memory_mb == 0 &&
        !(flags & NUMAFIT_DOMAIN_NOVA_EXACT)) {
        /* nova's API refuses such a flavor; libvirt refuses <memory> 0 */
        numafit__error_set(reterr, NUMAFIT_E_RANGE, -1, "memory_mb", "libvirtError",
                           "memory_mb=0: libvirt refuses a domain without memory");
        rc = -ERANGE;
        goto out;
    }
    if (flags & NUMAFIT_DOMAIN_FULL) {
        render_full_head(&g, &w);
        w.base = 1;
    }
    render_memory_backing(&g, &w, filebacked);
    xw_ind(&w, 0);
    if (g.has_vcpu_cpuset && !g.numa_host) {
        xw_put(&w, "<vcpu");
        xw_cpus(&w, "cpuset", g.vcpu_cpuset, CW);
        xw_fmt(&w, ">%u</vcpu>\n", req->vcpus);
    } else {
        xw_fmt(&w, "<vcpu>%u</vcpu>\n", req->vcpus);
    }
    render_cputune(&g, &w, q);
    render_numatune(&g, &w);
    if (flags & NUMAFIT_DOMAIN_FULL) {
        xw_put(&w, "  <os>\n    <type>hvm</type>\n  </os>\n");
    }
    render_features(&g, &w, &opts);
    render_cpu(&g, &w, sockets, cores, threads, vcpus);
    render_clock(&g, &w, &opts);
    if (flags & NUMAFIT_DOMAIN_FULL) {
        struct xw dw;
        int n;
        memset(&dw, 0, sizeof(dw));
        dw.base = 0;
        xw_put(&w, "  <devices>\n");
        /* a local image-backed disk and a bridge interface carry the quotas */
        n = render_iotune(specs, flags, &dw, 3, reterr);
        /* dw.b is NULL when dw ran out of memory (reported below) */
        if (n > 0 && !dw.oom) {
            /* nova's cache mode for an image on a file system with O_DIRECT,
             * unless [libvirt] disk_cachemodes names one for file disks */
            xw_fmt(&w,
                   "    <disk type='file' device='disk'>\n"
                   "      <driver name='qemu' type='qcow2' cache='%s'/>\n"
                   "      <source file='/var/lib/nova/instances/",
                   conf->file_cache[0] ? conf->file_cache : "none");
            xw_esc(&w, g.conf->name);
            xw_put(&w, "/disk'/>\n      <target dev='vda' bus='virtio'/>\n");
            xw_put(&w, dw.b);
            xw_put(&w, "    </disk>\n");
        }
        dw.len = 0;
        if (n >= 0)
            n = render_bandwidth(specs, flags, &dw, 3, reterr);
        if (n > 0 && !dw.oom) {
            xw_put(&w, "    <interface type='bridge'>\n"
                       "      <mac address='fa:16:3e:00:00:01'/>\n"
                       "      <source bridge='br-int'/>\n"
                       "      <model type='virtio'/>\n");
            xw_put(&w, dw.b);
            xw_put(&w, "    </interface>\n");
        }
        numafit__free(dw.b);
        if (dw.oom)
            n = nomem(reterr);
        if (n < 0) {
            rc = n;
            goto out;
        }
        render_memballoon(conf, &w, 1); /* base 1: inside <devices> */
        xw_put(&w, "  </devices>\n</domain>\n");
    } else if (virt_qemu(conf) && conf->mem_stats_period > 0) {
        /* the balloon is a device: inside its own <devices> */
        xw_put(&w, "<devices>\n");
        render_memballoon(conf, &w, 1);
        xw_put(&w, "</devices>\n");
    }
    if (w.oom) {
        rc = nomem(reterr);
        goto out;
    }
    *ret_xml = w.b;
    w.b = NULL;
    rc = 0;
out:
    numafit__free(w.b);
    numafit__free(vcpus);
    numafit__free(g.host_index);
    json_decref(flavor);
    json_decref(image);
    return rc;
}

static int device_xml(const char *flavor_json, size_t flavor_len, unsigned flags, char **ret_xml,
                      numafit_error_t *reterr, bool disk) {
    json_t *flavor = NULL;
    const json_t *specs = NULL;
    struct xw w;
    int rc;
    numafit__error_clear(reterr);
    if (!flavor_json || !ret_xml || (flags & ~(unsigned)NUMAFIT_DOMAIN_NOVA_EXACT)) {
        numafit__error_set(reterr, NUMAFIT_E_INVALID_ARG, -1, "", NULL,
                           "NULL argument or unknown flag");
        return -EINVAL;
    }
    memset(&w, 0, sizeof(w));
    if ((rc = load_flavor(flavor_json, flavor_len, &flavor, &specs, reterr)) < 0)
        goto out;
    rc = disk ? render_iotune(specs, flags, &w, 0, reterr)
              : render_bandwidth(specs, flags, &w, 0, reterr);
    if (rc < 0)
        goto out;
    xw_put(&w, "");
    if (w.oom) {
        rc = nomem(reterr);
        goto out;
    }
    *ret_xml = w.b;
    w.b = NULL;
out:
    numafit__free(w.b);
    json_decref(flavor);
    return rc;
}

/* The <bandwidth> of a port's interface (numafit_domain_hostdev_xml()):
 * the flavor's quota:vif_* at depth; "" when it sets none. */
int numafit__domain_vif_bandwidth(const json_t *flavor, unsigned flags, int depth, char **ret_xml,
                                  numafit_error_t *err) {
    const json_t *specs = NULL;
    struct xw w;
    int rc;
    memset(&w, 0, sizeof(w));
    if ((rc = numafit__flavor_specs(flavor, NUMAFIT__FLAVOR_DOMAIN, &specs, err)) < 0 ||
        (rc = render_bandwidth(specs, flags, &w, depth, err)) < 0) {
        numafit__free(w.b);
        return rc;
    }
    xw_put(&w, "");
    if (w.oom) {
        numafit__free(w.b);
        return nomem(err);
    }
    *ret_xml = w.b;
    return rc;
}

NUMAFIT_EXPORT int numafit_domain_disk_iotune_xml(const char *flavor_json, size_t flavor_len,
                                                  unsigned flags, char **ret_xml,
                                                  numafit_error_t *reterr) {
    return device_xml(flavor_json, flavor_len, flags, ret_xml, reterr, true);
}

NUMAFIT_EXPORT int numafit_domain_interface_bandwidth_xml(const char *flavor_json,
                                                          size_t flavor_len, unsigned flags,
                                                          char **ret_xml, numafit_error_t *reterr) {
    return device_xml(flavor_json, flavor_len, flags, ret_xml, reterr, false);
}
