/* CPU sets and nova's cpu spec syntax (nova.virt.hardware.parse_cpu_spec
 * and format_cpu_spec, reimplemented from their documented behaviour).
 *
 * Grammar, per comma-separated part (after stripping whitespace):
 *   ""                 ignored
 *   [^]N-M             range (inclusion, or exclusion with '^'); needs N <= M
 *   ^N                 exclusion
 *   N                  inclusion
 * where each number may be surrounded by whitespace and is written like
 * Python's int(): an optional sign followed by decimal digits. Exclusions are
 * applied after every inclusion, whatever their position.
 *
 * Deliberate differences from nova (which converts with Python's int()):
 *   - only ASCII digits and ASCII whitespace are recognised; Python also takes
 *     other Unicode decimal digits ("\u0663") and Unicode spaces;
 *   - the digit-group underscores Python allows ("1_000") are refused;
 *   - numbers of any length are accepted syntactically (Python 3.11 refuses
 *     more than 4300 digits); an inclusion above NUMAFIT_CPU_MAX is -ERANGE,
 *     an exclusion above it is ignored.
 * Those inputs are reported with nova's "Invalid ... expression" message.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "private.h"

/* Python's str.strip() whitespace, restricted to ASCII. */
static bool is_space(unsigned char c) {
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

static bool is_digit(unsigned char c) {
    return c >= '0' && c <= '9';
}

/* A half-open byte range of the spec. */
struct span {
    const char *p;
    const char *e;
};

static struct span strip(struct span s) {
    while (s.p < s.e && is_space((unsigned char)*s.p))
        s.p++;
    while (s.e > s.p && is_space((unsigned char)s.e[-1]))
        s.e--;
    return s;
}

/* A parsed integer: its sign and its significant digits (no leading zeros;
 * ndig == 0 means the value is zero). */
struct num {
    bool neg;
    const char *dig;
    size_t ndig;
};

/* Parse an already stripped number: [+-]digits. */
static bool parse_num(struct span s, struct num *out) {
    const char *p = s.p;
    out->neg = false;
    if (p < s.e && (*p == '+' || *p == '-')) {
        out->neg = *p == '-';
        p++;
    }
    if (p == s.e)
        return false;
    for (const char *q = p; q < s.e; q++)
        if (!is_digit((unsigned char)*q))
            return false;
    while (p < s.e && *p == '0')
        p++;
    out->dig = p;
    out->ndig = (size_t)(s.e - p);
    if (out->ndig == 0)
        out->neg = false; /* -0 == 0 */
    return true;
}

/* Three-way comparison of two parsed integers. */
static int num_cmp(const struct num *a, const struct num *b) {
    if (a->neg != b->neg)
        return a->neg ? -1 : 1;
    int mag;
    if (a->ndig != b->ndig)
        mag = a->ndig < b->ndig ? -1 : 1;
    else
        mag = a->ndig ? memcmp(a->dig, b->dig, a->ndig) : 0;
    if (mag > 0)
        mag = 1;
    else if (mag < 0)
        mag = -1;
    return a->neg ? -mag : mag;
}

/* The value if it is a CPU id (0..NUMAFIT_CPU_MAX), else -1. */
static long num_cpu(const struct num *n) {
    if (n->neg || n->ndig > 5)
        return -1;
    long v = 0;
    for (size_t i = 0; i < n->ndig; i++)
        v = v * 10 + (n->dig[i] - '0');
    return v <= NUMAFIT_CPU_MAX ? v : -1;
}

/* Set bits lo..hi (inclusive) of a full-width bitmap. */
static void set_range(uint64_t *w, unsigned lo, unsigned hi) {
    unsigned wl = lo >> 6, wh = hi >> 6;
    uint64_t ml = ~0ull << (lo & 63);
    uint64_t mh = ~0ull >> (63 - (hi & 63));
    if (wl == wh) {
        w[wl] |= ml & mh;
        return;
    }
    w[wl] |= ml;
    for (unsigned i = wl + 1; i < wh; i++)
        w[i] = ~0ull;
    w[wh] |= mh;
}

static void report(numafit_error_t *err, int code, const char *prefix, struct span rule,
                   const char *suffix) {
    char buf[sizeof(err->text)];
    struct numafit__sbuf sb = {buf, sizeof(buf), 0};
    if (!err)
        return;
    buf[0] = '\0';
    numafit__sb_puts(&sb, prefix);
    numafit__sb_pyrepr(&sb, rule.p, (size_t)(rule.e - rule.p), 0);
    numafit__sb_puts(&sb, suffix);
    numafit__error_set(err, code, -1, "", "Invalid", "%s", buf);
}

enum part_kind { PART_INCLUDE, PART_EXCLUDE, PART_RANGE };

static const char *const invalid_prefix[] = {
    [PART_INCLUDE] = "Invalid inclusion expression ",
    [PART_EXCLUDE] = "Invalid exclusion expression ",
    [PART_RANGE] = "Invalid range expression ",
};

/*
 * Parse one stripped, non-empty part. Returns 0 and applies it, -EBADMSG
 * (*kind says which message), or -ERANGE (an inclusion beyond the limit;
 * nothing applied).
 */
static int parse_part(struct span rule, uint64_t *inc, uint64_t *exc, enum part_kind *kind) {
    const char *dash = memchr(rule.p, '-', (size_t)(rule.e - rule.p));
    struct num a, b;

    if (dash) {
        struct span lo = {rule.p, dash}, hi = {dash + 1, rule.e};
        bool reject = false;
        *kind = PART_RANGE;
        if (lo.p < lo.e && *lo.p == '^') {
            reject = true;
            lo.p++;
        }
        if (!parse_num(strip(lo), &a) || !parse_num(strip(hi), &b) || num_cmp(&a, &b) > 0)
            return -EBADMSG;
        /* a >= 0 here: the left part cannot hold a '-' */
        long la = num_cpu(&a), lb = num_cpu(&b);
        if (!reject) {
            if (lb < 0)
                return -ERANGE;
            set_range(inc, (unsigned)la, (unsigned)lb);
        } else if (la >= 0) {
            set_range(exc, (unsigned)la, lb >= 0 ? (unsigned)lb : NUMAFIT_CPU_MAX);
        }
        return 0;
    }
    if (*rule.p == '^') {
        *kind = PART_EXCLUDE;
        if (!parse_num(strip((struct span){rule.p + 1, rule.e}), &a))
            return -EBADMSG;
        long la = num_cpu(&a);
        if (la >= 0)
            numafit__bit_set(exc, (unsigned)la);
        return 0;
    }
    *kind = PART_INCLUDE;
    if (!parse_num(rule, &a))
        return -EBADMSG;
    long la = num_cpu(&a);
    if (la < 0)
        return -ERANGE;
    numafit__bit_set(inc, (unsigned)la);
    return 0;
}

int numafit__cpuspec_parse(const char *spec, uint64_t *bits, numafit_error_t *err) {
    uint64_t exc[NUMAFIT__CPU_WORDS];
    struct span range_rule = {NULL, NULL};
    int range_err = 0;

    memset(bits, 0, NUMAFIT__CPU_WORDS * sizeof(uint64_t));
    memset(exc, 0, sizeof(exc));
    if (!spec) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "", NULL, "no cpu spec");
        return -EINVAL;
    }

    const char *p = spec;
    for (;;) {
        const char *comma = strchr(p, ',');
        const char *end = comma ? comma : p + strlen(p);
        struct span rule = strip((struct span){p, end});
        if (rule.p < rule.e) {
            enum part_kind kind;
            int r = parse_part(rule, bits, exc, &kind);
            if (r == -EBADMSG) {
                /* Syntax errors win over range errors wherever they are. */
                memset(bits, 0, NUMAFIT__CPU_WORDS * sizeof(uint64_t));
                report(err, NUMAFIT_E_PARSE, invalid_prefix[kind], rule, "");
                return -EBADMSG;
            }
            if (r == -ERANGE && !range_err) {
                range_err = r;
                range_rule = rule;
            }
        }
        if (!comma)
            break;
        p = comma + 1;
    }

    if (range_err) {
        char suffix[64];
        memset(bits, 0, NUMAFIT__CPU_WORDS * sizeof(uint64_t));
        snprintf(suffix, sizeof(suffix), " (maximum %d)", NUMAFIT_CPU_MAX);
        report(err, NUMAFIT_E_RANGE, "CPU id out of range in ", range_rule, suffix);
        return -ERANGE;
    }
    for (unsigned i = 0; i < NUMAFIT__CPU_WORDS; i++)
        bits[i] &= ~exc[i];
    return 0;
}

/* Decimal length of v. */
static size_t dec_len(unsigned v) {
    size_t n = 1;
    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

/* Walk the runs of consecutive set bits; write them if out is not NULL.
 * Returns the formatted length. */
static size_t format_runs(const uint64_t *bits, unsigned nw, char *out) {
    size_t len = 0;
    int cpu = numafit__bits_next(bits, nw, -1);
    while (cpu >= 0) {
        int last = cpu;
        int nxt;
        while ((nxt = numafit__bits_next(bits, nw, last)) == last + 1)
            last = nxt;
        if (len) {
            if (out)
                out[len] = ',';
            len++;
        }
        if (out)
            sprintf(out + len, "%d", cpu);
        len += dec_len((unsigned)cpu);
        if (last != cpu) {
            if (out)
                sprintf(out + len, "-%d", last);
            len += 1 + dec_len((unsigned)last);
        }
        cpu = nxt;
    }
    return len;
}

char *numafit__cpuspec_format(const uint64_t *bits, unsigned nw) {
    size_t len = format_runs(bits, nw, NULL);
    char *s = numafit__malloc(len + 1);
    if (!s)
        return NULL;
    s[0] = '\0';
    format_runs(bits, nw, s);
    s[len] = '\0';
    return s;
}

/* ------------------------------------------------------------ public API */

NUMAFIT_EXPORT int numafit_cpuset_new(numafit_cpuset_t **ret_set) {
    if (!ret_set)
        return -EINVAL;
    numafit_cpuset_t *s = numafit__calloc(1, sizeof(*s));
    if (!s)
        return -ENOMEM;
    *ret_set = s;
    return 0;
}

NUMAFIT_EXPORT void numafit_cpuset_free(numafit_cpuset_t *set) {
    numafit__free(set);
}

NUMAFIT_EXPORT int numafit_cpuset_dup(const numafit_cpuset_t *set, numafit_cpuset_t **ret_set) {
    if (!set || !ret_set)
        return -EINVAL;
    numafit_cpuset_t *s = numafit__malloc(sizeof(*s));
    if (!s)
        return -ENOMEM;
    memcpy(s, set, sizeof(*s));
    *ret_set = s;
    return 0;
}

NUMAFIT_EXPORT int numafit_cpuset_parse(const char *spec, unsigned flags,
                                        numafit_cpuset_t **ret_set, numafit_error_t *reterr) {
    numafit_cpuset_t tmp;
    numafit__error_clear(reterr);
    if (!spec || !ret_set) {
        numafit__error_set(reterr, NUMAFIT_E_INVALID_ARG, -1, "", NULL, "NULL argument");
        return -EINVAL;
    }
    if (flags) {
        numafit__error_set(reterr, NUMAFIT_E_INVALID_ARG, -1, "", NULL, "unknown flags 0x%x",
                           flags);
        return -EINVAL;
    }
    int r = numafit__cpuspec_parse(spec, tmp.w, reterr);
    if (r < 0)
        return r;
    numafit_cpuset_t *s = numafit__malloc(sizeof(*s));
    if (!s) {
        numafit__error_set(reterr, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
        return -ENOMEM;
    }
    memcpy(s, &tmp, sizeof(*s));
    *ret_set = s;
    return 0;
}

NUMAFIT_EXPORT int numafit_cpuset_format(const numafit_cpuset_t *set, unsigned flags,
                                         char **ret_str) {
    if (!set || !ret_str || flags)
        return -EINVAL;
    char *s = numafit__cpuspec_format(set->w, NUMAFIT__CPU_WORDS);
    if (!s)
        return -ENOMEM;
    *ret_str = s;
    return 0;
}

NUMAFIT_EXPORT int numafit_cpuset_add(numafit_cpuset_t *set, unsigned cpu) {
    if (!set)
        return -EINVAL;
    if (cpu > NUMAFIT_CPU_MAX)
        return -ERANGE;
    numafit__bit_set(set->w, cpu);
    return 0;
}

NUMAFIT_EXPORT int numafit_cpuset_remove(numafit_cpuset_t *set, unsigned cpu) {
    if (!set)
        return -EINVAL;
    if (cpu > NUMAFIT_CPU_MAX)
        return -ERANGE;
    numafit__bit_clear(set->w, cpu);
    return 0;
}

NUMAFIT_EXPORT int numafit_cpuset_contains(const numafit_cpuset_t *set, unsigned cpu) {
    if (!set)
        return -EINVAL;
    if (cpu > NUMAFIT_CPU_MAX)
        return 0;
    return numafit__bit_test(set->w, cpu) ? 1 : 0;
}

NUMAFIT_EXPORT int numafit_cpuset_count(const numafit_cpuset_t *set) {
    if (!set)
        return -EINVAL;
    return (int)numafit__bits_count(set->w, NUMAFIT__CPU_WORDS);
}

NUMAFIT_EXPORT int numafit_cpuset_next(const numafit_cpuset_t *set, int prev) {
    if (!set || prev < -1)
        return -EINVAL;
    if (prev >= NUMAFIT_CPU_MAX)
        return -ENOENT;
    int r = numafit__bits_next(set->w, NUMAFIT__CPU_WORDS, prev);
    return r < 0 ? -ENOENT : r;
}

NUMAFIT_EXPORT int numafit_cpuset_equal(const numafit_cpuset_t *a, const numafit_cpuset_t *b) {
    if (!a || !b)
        return -EINVAL;
    return numafit__bits_equal(a->w, b->w, NUMAFIT__CPU_WORDS) ? 1 : 0;
}
