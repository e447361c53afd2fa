/*
 * Flavor extra specs checked as nova's API checks them when they are set
 * (nova/api/validation/extra_specs, microversion 2.86 and later), with the
 * keys of extra_specs_table.c (scripts/gen-extra-specs.py). What nova's
 * checks rely on, done by hand here (doc/extra-specs.md):
 *
 *  - a key is first looked up as written among the templates ("hw:numa_cpus.
 *    {num}" itself then fails its own format), then matched against each
 *    template in order, with the template's parameters and its '.' matching
 *    any character but a newline (nova's name regex leaves it unescaped:
 *    "hw:numa_cpusX0" is hw:numa_cpus.{num});
 *  - integers as Python's int() reads a string: surrounding white space,
 *    a sign, any Unicode decimal digits, single underscores between digits;
 *  - booleans as oslo's bool_from_string(strict=True): stripped, lower-case
 *    1/t/true/on/y/yes or 0/f/false/off/n/no;
 *  - the value patterns (CPU masks, page sizes, pmem namespaces, PCI
 *    aliases) as re.fullmatch reads them, \d any Unicode decimal digit and
 *    \s any Unicode white space (Python 3.11's Unicode 14 tables).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <numafit/extra_specs.h>

#include "extra_specs.h"
#include "json_count.h"
#include "private.h"

/* ------------------------------------------------------------ Unicode */

/* The zero of each run of ten Unicode decimal digits (category Nd). */
static const uint32_t nd_zero[] = {
    0x30,    0x660,   0x6f0,   0x7c0,   0x966,   0x9e6,   0xa66,   0xae6,   0xb66,   0xbe6,
    0xc66,   0xce6,   0xd66,   0xde6,   0xe50,   0xed0,   0xf20,   0x1040,  0x1090,  0x17e0,
    0x1810,  0x1946,  0x19d0,  0x1a80,  0x1a90,  0x1b50,  0x1bb0,  0x1c40,  0x1c50,  0xa620,
    0xa8d0,  0xa900,  0xa9d0,  0xa9f0,  0xaa50,  0xabf0,  0xff10,  0x104a0, 0x10d30, 0x11066,
    0x110f0, 0x11136, 0x111d0, 0x112f0, 0x11450, 0x114d0, 0x11650, 0x116c0, 0x11730, 0x118e0,
    0x11950, 0x11c50, 0x11d50, 0x11da0, 0x16a60, 0x16ac0, 0x16b50, 0x1d7ce, 0x1d7d8, 0x1d7e2,
    0x1d7ec, 0x1d7f6, 0x1e140, 0x1e2f0, 0x1e950, 0x1fbf0};

/* The decimal value of code point c, or -1. */
static int digit_of(uint32_t c) {
    if (c < 0x80)
        return c >= '0' && c <= '9' ? (int)(c - '0') : -1;
    for (size_t i = 0; i < sizeof(nd_zero) / sizeof(nd_zero[0]); i++)
        if (c >= nd_zero[i] && c < nd_zero[i] + 10)
            return (int)(c - nd_zero[i]);
    return -1;
}

/* Python's str.isspace(). */
static bool is_space(uint32_t c) {
    return (c >= 0x9 && c <= 0xd) || (c >= 0x1c && c <= 0x20) || c == 0x85 || c == 0xa0 ||
           c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
           c == 0x202f || c == 0x205f || c == 0x3000;
}

/* The code point at s[*i] (UTF-8; a stray byte stands for itself), and *i
 * past it. */
static uint32_t next_cp(const char *s, size_t n, size_t *i) {
    const unsigned char *u = (const unsigned char *)s;
    uint32_t c = u[*i];
    size_t k = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
    if (k && *i + k < n) {
        uint32_t v = c & (0x3f >> k);
        size_t j;
        for (j = 1; j <= k && *i + j < n && (u[*i + j] & 0xc0) == 0x80; j++)
            v = v << 6 | (u[*i + j] & 0x3f);
        if (j == k + 1) {
            *i += k + 1;
            return v;
        }
    }
    (*i)++;
    return c;
}

/* The first position from i on that is not white space. */
static size_t skip_space(const char *s, size_t n, size_t i) {
    while (i < n) {
        size_t at = i;
        if (!is_space(next_cp(s, n, &at)))
            break;
        i = at;
    }
    return i;
}

/* ------------------------------------------------------------ names */

/* A parameter's kind in a template's "name=K;" list, or 0. */
static char param_kind(const char *params, const char *name, size_t len) {
    for (const char *p = params; *p;) {
        const char *eq = strchr(p, '='), *end = strchr(p, ';');
        if (!eq || !end)
            return 0;
        if ((size_t)(eq - p) == len && !memcmp(p, name, len))
            return eq[1];
        p = end + 1;
    }
    return 0;
}

static bool ascii_word(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Does s[0..n) match the parameter pattern of kind k as a whole? */
static bool param_ok(char k, const char *s, size_t n) {
    size_t i = 0;
    switch (k) {
        case 'G': /* ([a-zA-Z0-9_-]{1,64})? */
            if (n > 64)
                return false;
            for (; i < n; i++)
                if (!ascii_word((unsigned char)s[i]) && s[i] != '-')
                    return false;
            return true;
        case 'D': /* \d+ */
            if (!n)
                return false;
            while (i < n)
                if (digit_of(next_cp(s, n, &i)) < 0)
                    return false;
            return true;
        case 'K': /* .+ */
            return n > 0 && !memchr(s, '\n', n);
        case 'U': /* [A-Z0-9_]+ */
            if (!n)
                return false;
            for (; i < n; i++)
                if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
                    return false;
            return true;
        case 'F': /* (:\w+)*: a non-ASCII character counts as a word character
                   * unless it is white space (keys are ASCII by nova's schema) */
            while (i < n) {
                size_t w = 0;
                if (s[i++] != ':')
                    return false;
                while (i < n && s[i] != ':') {
                    uint32_t c = next_cp(s, n, &i);
                    if (c < 0x80 ? !ascii_word((unsigned char)c) : is_space(c))
                        return false;
                    w++;
                }
                if (!w)
                    return false;
            }
            return true;
        default:
            return false;
    }
}

/* Does name[0..n) match template t (up to tn bytes) as a whole? */
static bool tmpl_match(const char *t, size_t tn, const char *params, const char *name, size_t n) {
    size_t i = 0;
    while (i < tn) {
        if (t[i] == '{') {
            const char *close = memchr(t + i, '}', tn - i);
            char k;
            if (!close)
                return false;
            k = param_kind(params, t + i + 1, (size_t)(close - t - i - 1));
            i = (size_t)(close - t) + 1;
            for (size_t j = 0; j <= n; j++)
                if (param_ok(k, name, j) && tmpl_match(t + i, tn - i, params, name + j, n - j))
                    return true;
            return false;
        }
        if (!n)
            return false;
        if (t[i] == '.') { /* unescaped in nova's regex: any character but a newline */
            size_t at = 0;
            if (name[0] == '\n')
                return false;
            (void)next_cp(name, n, &at);
            name += at;
            n -= at;
        } else {
            if (t[i] != name[0])
                return false;
            name++;
            n--;
        }
        i++;
    }
    return n == 0;
}

/* ------------------------------------------------------------ values */

/* Python's int(s) for a string: its value written as Python writes it
 * into out (cap bytes), true; false when int() would raise. */
static bool py_int(const char *s, char *out, size_t cap) {
    size_t n = strlen(s), i = 0, k = 0;
    bool neg = false, any = false, under = false;
    char *d = out;
    uint32_t c = 0;
    i = skip_space(s, n, 0);
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    if (neg)
        d[k++] = '-';
    while (i < n) {
        size_t at = i;
        int v;
        c = next_cp(s, n, &at);
        if (c == '_') {
            if (!any || under)
                return false;
            under = true;
            i = at;
            continue;
        }
        v = digit_of(c);
        if (v < 0)
            break;
        under = false;
        any = true;
        i = at;
        if (k + 2 >= cap)
            return false; /* longer than any value nova takes (255 characters) */
        if (k == (size_t)neg && v == 0)
            continue; /* leading zeros */
        d[k++] = (char)('0' + v);
    }
    if (!any || under || skip_space(s, n, i) != n)
        return false;
    if (k == (size_t)neg) { /* zero, whatever its sign */
        k = 0;
        d[k++] = '0';
    }
    d[k] = '\0';
    return true;
}

/* Compare the canonical integer a (py_int's) with b. */
static int int_cmp(const char *a, long long b) {
    char bs[32];
    bool an = a[0] == '-', bn = b < 0;
    size_t al, bl;
    int c;
    snprintf(bs, sizeof(bs), "%lld", b);
    if (an != bn)
        return an ? -1 : 1;
    al = strlen(a);
    bl = strlen(bs);
    c = al != bl ? (al < bl ? -1 : 1) : strcmp(a, bs);
    return an ? -c : c;
}

static bool py_bool(const char *s) {
    static const char *const words[] = {"1", "t", "true",  "on",  "y", "yes",
                                        "0", "f", "false", "off", "n", "no"};
    size_t n = strlen(s), b = 0, e = n;
    char low[8];
    /* strip white space from both ends */
    b = skip_space(s, n, 0);
    while (e > b) {
        size_t st = e - 1, at;
        while (st > b && ((unsigned char)s[st] & 0xc0) == 0x80)
            st--;
        at = st;
        if (!is_space(next_cp(s, n, &at)))
            break;
        e = st;
    }
    if (e - b >= sizeof(low))
        return false;
    for (size_t i = b; i < e; i++) {
        char c = s[i];
        if ((unsigned char)c >= 0x80)
            return false;
        low[i - b] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
    }
    low[e - b] = '\0';
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (!strcmp(low, words[i]))
            return true;
    return false;
}

/* \d+ from s[*i]; false when there is none. */
static bool digits(const char *s, size_t n, size_t *i) {
    size_t at = *i, k = 0;
    while (at < n) {
        size_t nx = at;
        if (digit_of(next_cp(s, n, &nx)) < 0)
            break;
        at = nx;
        k++;
    }
    *i = at;
    return k > 0;
}

/* \^?\d+((-\d+)?(,\^?\d+(-\d+)?)?)*: a number, then any sequence of
 * "-NUMBER" and ",^?NUMBER". */
static bool pat_cpuset(const char *s, size_t n) {
    size_t i = 0;
    if (i < n && s[i] == '^')
        i++;
    if (!digits(s, n, &i))
        return false;
    while (i < n) {
        if (s[i] == '-') {
            i++;
        } else if (s[i] == ',') {
            i++;
            if (i < n && s[i] == '^')
                i++;
        } else {
            return false;
        }
        if (!digits(s, n, &i))
            return false;
    }
    return true;
}

/* (large|small|any|\d+([kKMGT]i?)?(b|bit|B)?) */
static bool pat_pagesize(const char *s, size_t n) {
    size_t i = 0;
    if ((n == 5 && (!memcmp(s, "large", 5) || !memcmp(s, "small", 5))) ||
        (n == 3 && !memcmp(s, "any", 3)))
        return true;
    if (!digits(s, n, &i))
        return false;
    if (i < n && strchr("kKMGT", s[i]) && s[i]) {
        i++;
        if (i < n && s[i] == 'i')
            i++;
    }
    if (i == n)
        return true;
    if (n - i == 1 && (s[i] == 'b' || s[i] == 'B'))
        return true;
    return n - i == 3 && !memcmp(s + i, "bit", 3);
}

/* ([a-zA-Z0-9_]+(,)?)+: words, each perhaps followed by one comma. */
static bool pat_pmem(const char *s, size_t n) {
    size_t i = 0;
    if (!n)
        return false;
    while (i < n) {
        size_t w = 0;
        while (i < n && ascii_word((unsigned char)s[i])) {
            i++;
            w++;
        }
        if (!w)
            return false;
        if (i < n && s[i] == ',')
            i++;
    }
    return true;
}

/* [^:]+:\d+(?:\s*,\s*[^:]+:\d+)*: between the colons, a name; after each
 * colon digits, then (but after the last) white space, a comma and the
 * next name (which may begin with white space and hold commas). */
static bool pat_alias(const char *s, size_t n) {
    const char *colon = memchr(s, ':', n);
    size_t i;
    if (!colon || colon == s)
        return false;
    i = (size_t)(colon - s) + 1;
    for (;;) {
        const char *next;
        if (!digits(s, n, &i))
            return false;
        if (i == n)
            return true;
        i = skip_space(s, n, i);
        if (i >= n || s[i] != ',')
            return false;
        i++;
        next = memchr(s + i, ':', n - i);
        if (!next || (size_t)(next - s) == i)
            return false; /* no name, or no colon after it */
        i = (size_t)(next - s) + 1;
    }
}

/* ------------------------------------------------------------ messages */

/* The error, its text cut at a character boundary. */
static int fail(numafit_error_t *err, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(numafit_error_t *err, const char *name, const char *fmt, ...) {
    va_list ap;
    char text[sizeof(err->text)];
    size_t n;
    if (!err)
        return -EINVAL;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    n = strlen(text);
    if (n == sizeof(text) - 1) /* cut: not inside a character */
        while (n && ((unsigned char)text[n] & 0xc0) == 0x80)
            text[n--] = '\0';
    numafit__error_set(err, NUMAFIT_E_REQUEST, -1, NULL, "ValidationError", "%s", text);
    snprintf(err->where, sizeof(err->where), "extra_specs/%s", name);
    n = strlen(err->where);
    if (n == sizeof(err->where) - 1)
        while (n && ((unsigned char)err->where[n] & 0xc0) == 0x80)
            err->where[n--] = '\0';
    return -EINVAL;
}

static int check_value(const struct xs_validator *v, const char *name, const char *value,
                       numafit_error_t *err) {
    size_t n = strlen(value);
    if (v->type == XS_INT) {
        char canon[512];
        if (!py_int(value, canon, sizeof(canon)))
            return fail(err, name, "Validation failed; '%s' is not a valid integer value.", value);
        if (v->has_max && int_cmp(canon, v->max) > 0)
            return fail(err, name,
                        "Validation failed; '%s' is greater than the max value of '%lld'.", canon,
                        v->max);
        if (v->has_min && int_cmp(canon, v->min) < 0)
            return fail(err, name, "Validation failed; '%s' is less than the min value of '%lld'.",
                        canon, v->min);
        return 0;
    }
    if (v->type == XS_BOOL) {
        if (!py_bool(value))
            return fail(err, name, "Validation failed; '%s' is not a valid boolean-like value.",
                        value);
        return 0;
    }
    if (v->pat != XS_PAT_NONE) {
        bool ok = v->pat == XS_PAT_CPUSET     ? pat_cpuset(value, n)
                  : v->pat == XS_PAT_PAGESIZE ? pat_pagesize(value, n)
                  : v->pat == XS_PAT_PMEM     ? pat_pmem(value, n)
                                              : pat_alias(value, n);
        if (!ok)
            return fail(err, name, "Validation failed; '%s' is not of the format '%s'.", value,
                        v->pattern);
        return 0;
    }
    if (v->enums) {
        char list[256];
        size_t k = 0;
        for (size_t i = 0; v->enums[i]; i++)
            if (!strcmp(value, v->enums[i]))
                return 0;
        list[0] = '\0';
        for (size_t i = 0; v->enums[i] && k < sizeof(list); i++)
            k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%s", i ? ", " : "", v->enums[i]);
        return fail(err, name, "Validation failed; '%s' is not one of: %s.", value, list);
    }
    return 0;
}

/* The namespace (before the first ':') of template t matches ns? */
static bool ns_match(const struct xs_validator *v, const char *ns, size_t n) {
    const char *colon = strchr(v->name, ':');
    return colon && tmpl_match(v->name, (size_t)(colon - v->name), v->params, ns, n);
}

NUMAFIT_EXPORT int numafit_extra_spec_validate(const char *name, const char *value, unsigned flags,
                                               numafit_error_t *err) {
    const struct xs_validator *tab = flags & NUMAFIT_XS_ZED ? numafit__xs_zed : numafit__xs_latest;
    size_t ntab = flags & NUMAFIT_XS_ZED ? numafit__xs_zed_n : numafit__xs_latest_n;
    size_t n;
    const char *colon;
    numafit__error_clear(err);
    if (!name || !value || (flags & ~NUMAFIT_XS_ZED)) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL,
                           "a name, a value and known flags are required");
        return -EINVAL;
    }
    n = strlen(name);
    /* nova looks the key up as written first: a template itself */
    for (size_t i = 0; i < ntab; i++)
        if (!strcmp(tab[i].name, name)) {
            if (!tmpl_match(tab[i].name, strlen(tab[i].name), tab[i].params, name, n))
                return fail(err, name,
                            "Validation failed; expected a name of format '%s' but got '%s'.",
                            tab[i].name, name);
            return check_value(&tab[i], name, value, err);
        }
    for (size_t i = 0; i < ntab; i++)
        if (tmpl_match(tab[i].name, strlen(tab[i].name), tab[i].params, name, n))
            return check_value(&tab[i], name, value, err);
    colon = strchr(name, ':');
    if (!colon)
        return 0; /* no namespace */
    for (size_t i = 0; i < ntab; i++)
        if (ns_match(&tab[i], name, (size_t)(colon - name)))
            return fail(err, name,
                        "Validation failed; extra spec '%s' does not appear to be a valid extra "
                        "spec.",
                        name);
    return 0; /* a namespace nova does not know */
}

/* ------------------------------------------------------------ a flavor */

/* Is key allowed by the caller's list (a namespace or a key)? */
static bool allowed(const char *allow, const char *key) {
    const char *colon = strchr(key, ':');
    size_t kn = strlen(key), nn = colon ? (size_t)(colon - key) : 0;
    for (const char *p = allow; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if ((len == kn && !memcmp(p, key, len)) || (colon && len == nn && !memcmp(p, key, len)))
            return true;
        p = e ? e + 1 : NULL;
    }
    return false;
}

static bool key_ok(const char *k) {
    size_t n = strlen(k);
    if (!n || n > 255)
        return false;
    for (; *k; k++)
        if (!ascii_word((unsigned char)*k) && !strchr("-:. ", *k))
            return false;
    return true;
}

/* Python's str() of a JSON number: an integer as it is, a real as repr(). */
static void number_text(const json_t *v, char *out, size_t cap) {
    if (json_is_integer(v)) {
        snprintf(out, cap, "%lld", (long long)json_integer_value(v));
        return;
    }
    {
        double d = json_real_value(v);
        char buf[40];
        int prec;
        /* the shortest text that reads back as the same double */
        for (prec = 1; prec <= 17; prec++) {
            snprintf(buf, sizeof(buf), "%.*e", prec - 1, d);
            if (strtod(buf, NULL) == d)
                break;
        }
        {
            /* repr: digits and exponent, positional for -4 <= exp < 16 */
            char mant[24], *e = strchr(buf, 'e');
            int exp = atoi(e + 1), nd = 0;
            bool neg = buf[0] == '-';
            for (char *p = buf + neg; p < e; p++)
                if (*p >= '0' && *p <= '9')
                    mant[nd++] = *p;
            mant[nd] = '\0';
            if (exp >= -5 + 1 && exp < 16) {
                size_t k = 0;
                if (neg)
                    out[k++] = '-';
                if (exp < 0) {
                    k += (size_t)snprintf(out + k, cap - k, "0.");
                    for (int z = -1; z > exp; z--)
                        out[k++] = '0';
                    snprintf(out + k, cap - k, "%s", mant);
                } else if (nd <= exp + 1) {
                    k += (size_t)snprintf(out + k, cap - k, "%s", mant);
                    for (int z = nd; z <= exp; z++)
                        out[k++] = '0';
                    snprintf(out + k, cap - k, ".0");
                } else {
                    snprintf(out + k, cap - k, "%.*s.%s", exp + 1, mant, mant + exp + 1);
                }
            } else {
                snprintf(out, cap, "%s%c%s%se%c%02d", neg ? "-" : "", mant[0], nd > 1 ? "." : "",
                         mant + 1, exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
            }
        }
    }
}

/* Python's len() of UTF-8 text: its code points. */
static size_t cp_len(const char *s) {
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

NUMAFIT_EXPORT int numafit_extra_specs_validate(const char *json, size_t len, unsigned flags,
                                                const char *allow, numafit_error_t *err) {
    json_t *doc, *specs, *v;
    json_error_t je;
    const char *key;
    int rc = 0;
    numafit__error_clear(err);
    if (!json || (flags & ~NUMAFIT_XS_ZED)) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL,
                           "the extra specs and known flags are required");
        return -EINVAL;
    }
    if (len > NUMAFIT_INPUT_MAX) {
        numafit__error_set(err, NUMAFIT_E_RANGE, -1, NULL, NULL,
                           "the extra specs are larger than %u bytes", NUMAFIT_INPUT_MAX);
        return -ERANGE;
    }
    doc = numafit__json_loadb(json, len, JSON_REJECT_DUPLICATES, &je);
    if (!doc) {
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, NULL, NULL, "the extra specs: %s", je.text);
        return -EBADMSG;
    }
    specs = json_is_object(doc) && json_object_get(doc, "extra_specs")
                ? json_object_get(doc, "extra_specs")
                : doc;
    if (!json_is_object(specs)) {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "extra_specs", "ValidationError",
                           "the extra specs must be an object of strings");
        json_decref(doc);
        return -EINVAL;
    }
    json_object_foreach(specs, key, v) {
        char num[64];
        const char *value = json_string_value(v);
        if (!key_ok(key)) {
            rc = fail(err, key,
                      "the key '%s' is not 1 to 255 of the characters nova allows "
                      "([a-zA-Z0-9-_:. ])",
                      key);
            break;
        }
        if (json_is_number(v)) {
            number_text(v, num, sizeof(num));
            value = num;
        }
        if (!value) {
            rc = fail(err, key, "the value of '%s' must be a string or a number", key);
            break;
        }
        if (cp_len(value) > 255) {
            rc = fail(err, key, "the value of '%s' is longer than 255 characters", key);
            break;
        }
        if (allowed(allow, key))
            continue;
        if ((rc = numafit_extra_spec_validate(key, value, flags, err)) < 0)
            break;
    }
    json_decref(doc);
    return rc;
}
