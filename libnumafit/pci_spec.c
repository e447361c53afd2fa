/*
 * nova.conf's [pci] device_spec (and its deprecated names) and the pools
 * nova's compute node reports for a host's devices (doc/pci.md): which
 * devices an entry matches (vendor and product, a glob or regular
 * expression address, a network interface name, a PF's address matching
 * its VFs, the remote-managed checks) and the pool each matched device
 * joins (PciDeviceStats.add_device).
 */
#include "config.h"

#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "ini.h"
#include "jsonio.h"
#include "private.h"

#include <numafit/pci.h>

#include "pci_internal.h"

#define SPECS_MAX 4096u /* device_spec entries (dicts) of a nova.conf */

/* A tag value with Python's equality: strings, numbers (integers and
 * booleans: True == 1), null. */
enum { TV_NULL, TV_STR, TV_NUM, TV_REAL };

struct tagv {
    char *key;
    char *str; /* the value as nova's string field makes it; NULL for null */
    int kind;
    int64_t num;
    double real;
};

enum { ADDR_GLOB, ADDR_REGEX, ADDR_PHYS };

/* One address field: '*' (any), a value, or one no device has. */
struct afield {
    bool any, never;
    unsigned v;
};

struct addr_spec {
    int kind;
    bool is_pf;         /* a PF's address: its VFs match too */
    struct afield f[4]; /* domain, bus, slot, function (glob, phys) */
    char *raw[4];       /* regex: the expressions as written */
    regex_t re[4];
    bool re_set[4];
};

struct dev_spec {
    unsigned line;
    struct afield vendor, product;
    bool has_devname; /* a devname that is true in Python */
    char *devname;    /* NULL when not a string (never found) */
    bool has_addr;    /* the address object (not for a devname) */
    struct addr_spec addr;
    bool remote_managed;
    uint32_t ntags;
    struct tagv *tags;
};

struct specs {
    uint32_t n;
    struct dev_spec *s;
};

static void addr_clear(struct addr_spec *a) {
    for (unsigned k = 0; k < 4; k++) {
        free(a->raw[k]);
        if (a->re_set[k])
            regfree(&a->re[k]);
    }
    memset(a, 0, sizeof(*a));
}

static void tags_free(struct tagv *t, uint32_t n) {
    for (uint32_t i = 0; t && i < n; i++) {
        free(t[i].key);
        free(t[i].str);
    }
    free(t);
}

static void specs_clear(struct specs *ss) {
    for (uint32_t i = 0; i < ss->n; i++) {
        addr_clear(&ss->s[i].addr);
        free(ss->s[i].devname);
        tags_free(ss->s[i].tags, ss->s[i].ntags);
    }
    free(ss->s);
    memset(ss, 0, sizeof(*ss));
}

static int spec_fail(numafit_error_t *err, unsigned line, const char *exc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int spec_fail(numafit_error_t *err, unsigned line, const char *exc, const char *fmt, ...) {
    char where[32], text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    snprintf(where, sizeof(where), "nova.conf:%u", line);
    numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, where, exc, "Invalid [pci]device_spec config: %s",
                       text);
    return -EINVAL;
}

/* ------------------------------------------------------------ numbers */

/* Python's str.strip() and int() white space, in ASCII. */
static bool py_space(char c) {
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

static int hexval(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/*
 * Python's int(s, 16) and then nova's bound: white space around, a sign, a
 * 0x prefix, digits with single underscores between them. Returns 0 with
 * *f (never: a negative value, which no device's field equals), 1 when
 * it does not parse, 2 when it is above max.
 */
static int py_hex(const char *s, size_t len, unsigned max, struct afield *f) {
    size_t i = 0, end = len;
    bool neg = false, digit = false, under = false;
    uint64_t v = 0;
    while (i < end && py_space(s[i]))
        i++;
    while (end > i && py_space(s[end - 1]))
        end--;
    if (i < end && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    if (end - i >= 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        i += 2;
        under = true; /* an underscore may follow the prefix */
    }
    for (; i < end; i++) {
        if (s[i] == '_') {
            if (!under)
                return 1;
            under = false;
            continue;
        }
        if (hexval(s[i]) < 0)
            return 1;
        digit = under = true;
        if (v <= 0xffffffffu)
            v = v * 16 + (unsigned)hexval(s[i]);
    }
    if (!digit || (end > 0 && s[end - 1] == '_'))
        return 1;
    memset(f, 0, sizeof(*f));
    if (neg && v) {
        f->never = true;
        return 0;
    }
    if (v > max)
        return 2;
    f->v = (unsigned)v;
    return 0;
}

/* nova's _set_pci_dev_info on a field given as text: '*' is any. */
static int set_field(numafit_error_t *err, unsigned line, const char *prop, const char *s,
                     size_t len, unsigned max, struct afield *f) {
    int r;
    memset(f, 0, sizeof(*f));
    if (len == 1 && s[0] == '*') {
        f->any = true;
        return 0;
    }
    if (memchr(s, '\0', len) || len > NUMAFIT_PCI_STRING_MAX)
        return spec_fail(err, line, "PciConfigInvalidSpec",
                         "property %s does not parse as a hex number.", prop);
    r = py_hex(s, len, max, f);
    if (r == 1)
        return spec_fail(err, line, "PciConfigInvalidSpec",
                         "property %s ('%.*s') does not parse as a hex number.", prop,
                         (int)(len > 64 ? 64 : len), s);
    if (r == 2)
        return spec_fail(err, line, "PciConfigInvalidSpec",
                         "property %s (%.*s) is greater than the maximum allowable value (%X).",
                         prop, (int)(len > 64 ? 64 : len), s, max);
    return 0;
}

static const unsigned addr_max[4] = {0xffff, 0xff, 0x1f, 0x7};
static const char *const addr_names[4] = {"domain", "bus", "slot", "func"};

/* ------------------------------------------------------------ addresses */

/* A device's address (validated by its reader) into fields; false when a
 * field is above nova's bound (a 32-bit domain: nova skips the device). */
static bool dev_fields(const char *a, unsigned v[4]) {
    if (!numafit__pci_addr_fields(a, strlen(a), v))
        return false;
    for (unsigned k = 0; k < 4; k++)
        if (v[k] > addr_max[k])
            return false;
    return true;
}

static const struct pci_device *find_address(const numafit_pci_devices_t *devs, const char *a) {
    for (uint32_t i = 0; i < devs->n; i++)
        if (!strcmp(devs->d[i].address, a))
            return &devs->d[i];
    return NULL;
}

static const struct pci_device *find_ifname(const numafit_pci_devices_t *devs, const char *name) {
    for (uint32_t i = 0; name && i < devs->n; i++)
        if (devs->d[i].ifname && !strcmp(devs->d[i].ifname, name))
            return &devs->d[i];
    return NULL;
}

/* sysfs's answer to "is this address a PF" (sriov_totalvfs > 0). */
static bool is_pf_at(const numafit_pci_devices_t *devs, const char *a) {
    const struct pci_device *d = find_address(devs, a);
    return d && d->sriov_totalvfs > 0;
}

static void format_fields(const struct afield f[4], char *buf, size_t n) {
    snprintf(buf, n, "%04x:%02x:%02x.%x", f[0].v, f[1].v, f[2].v, f[3].v);
}

static bool single_glob(const struct addr_spec *a) {
    for (unsigned k = 0; k < 4; k++)
        if (a->f[k].any || a->f[k].never)
            return false;
    return true;
}

static bool all_hex(const char *s) {
    for (; *s; s++)
        if (hexval(*s) < 0)
            return false;
    return true;
}

/* The glob form: "[[DOMAIN:]BUS:]SLOT[.FUNCTION]", blanks any. */
static int parse_glob(numafit_error_t *err, unsigned line, const char *s, struct addr_spec *a) {
    const char *dot = strchr(s, '.'), *p, *q;
    size_t dbs = dot ? (size_t)(dot - s) : strlen(s);
    const char *part[3];
    size_t plen[3], nparts = 0;
    int r;
    a->kind = ADDR_GLOB;
    for (unsigned k = 0; k < 4; k++)
        a->f[k].any = true;
    if (dot && dot[1]) {
        const char *fb = dot + 1, *fe = fb + strlen(fb);
        while (fb < fe && py_space(*fb))
            fb++;
        while (fe > fb && py_space(fe[-1]))
            fe--;
        if ((r = set_field(err, line, "func", fb, (size_t)(fe - fb), 0x7, &a->f[3])) < 0)
            return r;
    }
    if (!dbs)
        return 0;
    for (p = s; nparts < 4; p = q + 1) {
        q = memchr(p, ':', (size_t)(s + dbs - p));
        if (nparts == 3)
            return spec_fail(err, line, "PciDeviceWrongAddressFormat",
                             "The PCI address %.64s has an incorrect format.", s);
        part[nparts] = p;
        plen[nparts++] = q ? (size_t)(q - p) : (size_t)(s + dbs - p);
        if (!q)
            break;
    }
    for (unsigned k = 0; k < 3; k++) {
        unsigned idx = k + 3 - (unsigned)nparts; /* missing leading fields are any */
        const char *b, *e;
        if (k >= nparts)
            break;
        b = part[k];
        e = b + plen[k];
        while (b < e && py_space(*b))
            b++;
        while (e > b && py_space(e[-1]))
            e--;
        if (b == e)
            continue; /* blank: any */
        if ((r = set_field(err, line, addr_names[idx], b, (size_t)(e - b), addr_max[idx],
                           &a->f[idx])) < 0)
            return r;
    }
    return 0;
}

static bool rx_plain(char c) {
    return c >= 0x20 && (unsigned char)c < 0x7f && c != '[' && c != '\\';
}

/*
 * A character class at s[i] ('[') as Python reads it (a ']' first is
 * literal; "a-b" a range unless the '-' is last; a '-' after a range is
 * literal), written for POSIX in posix[*o..]: ']' first, the ranges, the
 * other characters, '-' last. *end: the index of the closing ']'. Returns
 * 0, or -1 where Python refuses it too; *unsupported for a '[' or '\'
 * inside, and for the few classes POSIX cannot spell this way.
 */
static int bracket(const char *s, size_t i, char *posix, size_t *o, size_t *end,
                   bool *unsupported) {
    char ranges[NUMAFIT_PCI_STRING_MAX + 4], lits[NUMAFIT_PCI_STRING_MAX + 4];
    size_t j = i + 1, first, nr = 0, nl = 0;
    bool neg = false, dash = false, close = false, caret = false;
    if (s[j] == '^') {
        neg = true;
        j++;
    }
    for (first = j; s[j] && (s[j] != ']' || j == first);) {
        char c1 = s[j];
        if (!rx_plain(c1)) {
            *unsupported = true;
            return 0;
        }
        if (s[j + 1] == '-' && s[j + 2] && s[j + 2] != ']') {
            char c2 = s[j + 2];
            if (!rx_plain(c2)) {
                *unsupported = true;
                return 0;
            }
            if (c2 < c1)
                return -1; /* bad character range */
            if (strchr("]-^", c1) || strchr("]-^", c2)) {
                *unsupported = true;
                return 0;
            }
            ranges[nr++] = c1;
            ranges[nr++] = '-';
            ranges[nr++] = c2;
            j += 3;
            continue;
        }
        if (c1 == '-')
            dash = true;
        else if (c1 == ']')
            close = true;
        else if (c1 == '^')
            caret = true;
        else
            lits[nl++] = c1;
        j++;
    }
    if (!s[j])
        return -1; /* unterminated */
    if (caret && !neg && !close && !nr && !nl) {
        *unsupported = true; /* "[-^]": POSIX would read a negation */
        return 0;
    }
    posix[(*o)++] = '[';
    if (neg)
        posix[(*o)++] = '^';
    if (close)
        posix[(*o)++] = ']';
    memcpy(posix + *o, ranges, nr);
    *o += nr;
    memcpy(posix + *o, lits, nl);
    *o += nl;
    if (caret)
        posix[(*o)++] = '^';
    if (dash)
        posix[(*o)++] = '-';
    posix[(*o)++] = ']';
    *end = j;
    return 0;
}

/* The subset of Python's regular expressions libnumafit reads, in which
 * POSIX extended expressions agree with Python: 0 (*unsupported false),
 * -1 Python refuses it too, or 0 with *unsupported when it is outside. */
static int check_regex(const char *s, bool *unsupported, char *posix) {
    int depth = 0;
    bool atom = false;
    size_t o = 0;
    *unsupported = false;
    for (size_t i = 0; s[i]; i++) {
        char c = s[i];
        if ((unsigned char)c >= 0x7f || c < 0x20 || c == '\\' || c == '{' || c == '}') {
            *unsupported = true;
            return 0;
        }
        switch (c) {
            case '(':
                if (s[i + 1] == '?') {
                    *unsupported = true;
                    return 0;
                }
                depth++;
                atom = false;
                break;
            case ')':
                if (!depth)
                    return -1;
                depth--;
                atom = true;
                break;
            case '|':
            case '^':
            case '$':
                atom = false;
                break;
            case '*':
            case '+':
            case '?':
                if (!atom)
                    return -1;
                if (s[i + 1] == '+') {
                    *unsupported = true; /* possessive */
                    return 0;
                }
                posix[o++] = c;
                if (s[i + 1] == '?')
                    i++; /* lazy: the same matches exist, POSIX has no such form */
                if (s[i + 1] == '*' || s[i + 1] == '+' || s[i + 1] == '?')
                    return -1; /* multiple repeat */
                atom = false;
                continue;
            case '[': {
                size_t j;
                int r = bracket(s, i, posix, &o, &j, unsupported);
                if (r < 0 || *unsupported)
                    return r;
                i = j;
                atom = true;
                continue;
            }
            default:
                atom = true;
        }
        posix[o++] = c;
    }
    posix[o] = '\0';
    return depth ? -1 : 0;
}

static int parse_regex(numafit_error_t *err, unsigned line, const json_t *o, struct addr_spec *a) {
    static const char *const keys[4] = {"domain", "bus", "slot", "function"};
    a->kind = ADDR_REGEX;
    for (unsigned k = 0; k < 4; k++) {
        const json_t *v = json_object_get(o, keys[k]);
        const char *s = v ? json_string_value(v) : ".*";
        bool unsupported;
        char *full;
        int r;
        if (v && !json_is_string(v))
            return spec_fail(err, line, "PciConfigInvalidSpec",
                             "address %s must be a string (a regular expression), not %s", keys[k],
                             numafit__json_type_name(v));
        if (strlen(s) > NUMAFIT_PCI_STRING_MAX || (v && strlen(s) != json_string_length(v)))
            return spec_fail(err, line, "PciConfigInvalidSpec",
                             "address %s is too long or holds a NUL byte", keys[k]);
        if (!(full = numafit__malloc(strlen(s) + 4))) {
            numafit__error_set(err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
            return -ENOMEM;
        }
        memcpy(full, "^(", 2);
        r = check_regex(s, &unsupported, full + 2);
        if (r == 0 && !unsupported)
            strcat(full, ")");
        else
            free(full);
        if (r < 0)
            return spec_fail(err, line, "PciDeviceWrongAddressFormat",
                             "The PCI address %s '%.64s' is not a valid regular expression.",
                             keys[k], s);
        if (unsupported)
            return spec_fail(err, line, "PciConfigInvalidSpec",
                             "address %s '%.64s': libnumafit reads regular expressions of "
                             "letters, digits, . * + ? | ( ) [ ] - ^ $ only (no \\, { }, (?, "
                             "possessive repeats, [ inside a class, or a range from or to "
                             "- ] ^)",
                             keys[k], s);
        if (!(a->raw[k] = numafit__strdup(s))) {
            free(full);
            numafit__error_set(err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
            return -ENOMEM;
        }
        r = regcomp(&a->re[k], full, REG_EXTENDED | REG_NOSUB);
        free(full);
        if (r)
            return spec_fail(err, line, "PciDeviceWrongAddressFormat",
                             "The PCI address %s '%.64s' is not a valid regular expression.",
                             keys[k], s);
        a->re_set[k] = true;
    }
    return 0;
}

/* PhysicalPciAddress of a device's full address (a devname's PF). */
static int parse_phys(numafit_error_t *err, unsigned line, const char *s, struct addr_spec *a) {
    unsigned v[4];
    a->kind = ADDR_PHYS;
    if (!dev_fields(s, v))
        return spec_fail(err, line, "PciConfigInvalidSpec",
                         "the address %s of a device_spec's devname is above nova's bounds", s);
    for (unsigned k = 0; k < 4; k++)
        a->f[k].v = v[k];
    return 0;
}

/* WhitelistPciAddress.match: the device's address, or its PF's when the
 * spec is a PF's. */
static bool addr_match_one(const struct addr_spec *a, const unsigned v[4]) {
    char buf[16];
    for (unsigned k = 0; k < 4; k++) {
        if (a->kind == ADDR_REGEX) {
            if (k == 0)
                snprintf(buf, sizeof(buf), "%04x", v[k]);
            else if (k == 3)
                snprintf(buf, sizeof(buf), "%x", v[k]);
            else
                snprintf(buf, sizeof(buf), "%02x", v[k]);
            if (regexec(&a->re[k], buf, 0, NULL, 0))
                return false;
        } else if (a->kind == ADDR_PHYS || !a->f[k].any) {
            if (a->f[k].never || a->f[k].v != v[k])
                return false;
        }
    }
    return true;
}

/* The device's fields, its PF's (parent_ok: parsed) and whether nova can
 * parse them at all (a field above its bound makes nova skip the device). */
struct dev_addr {
    bool ok, parent_ok;
    unsigned v[4], pv[4];
};

static bool addr_match(const struct addr_spec *a, const struct dev_addr *da, bool has_parent,
                       bool *skip) {
    if (a->is_pf && has_parent) {
        if (!da->parent_ok) {
            *skip = true;
            return false;
        }
        if (addr_match_one(a, da->pv))
            return true;
    }
    if (!da->ok) {
        *skip = true;
        return false;
    }
    return addr_match_one(a, da->v);
}

/* _address_obj(): the spec's address, or the one its devname names (NULL
 * when no interface has that name). */
static const struct addr_spec *address_obj(const struct dev_spec *s) {
    return s->has_addr ? &s->addr : NULL;
}

static bool id_match(const struct afield *f, const char *id) {
    if (f->any)
        return true;
    if (f->never)
        return false;
    /* nova compares "%04x" of the spec with the device's text */
    char buf[8];
    snprintf(buf, sizeof(buf), "%04x", f->v);
    return !strcmp(buf, id);
}

/* PciDeviceSpec.match; *skip when nova's match raises for this device. */
static bool spec_match(const struct dev_spec *s, const struct pci_device *d,
                       const struct dev_addr *da, bool *skip) {
    const struct addr_spec *a = address_obj(s);
    bool am;
    if (!a)
        return false;
    am = addr_match(a, da, d->parent_addr != NULL && d->parent_addr[0], skip);
    if (*skip)
        return false;
    return id_match(&s->vendor, d->vendor_id) && id_match(&s->product, d->product_id) && am &&
           (!s->remote_managed || (d->card_serial && d->card_serial[0]));
}

/* ------------------------------------------------------------ entries */

/* oslo.utils' bool_from_string: strict (-1 when neither) or not. */
static int py_bool(const json_t *v, bool strict) {
    static const char *const yes[] = {"1", "t", "true", "on", "y", "yes", NULL};
    static const char *const no[] = {"0", "f", "false", "off", "n", "no", NULL};
    char buf[32];
    const char *s = buf;
    size_t b, e;
    if (json_is_boolean(v))
        return json_is_true(v);
    if (json_is_string(v))
        s = json_string_value(v);
    else if (json_is_integer(v))
        snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else
        snprintf(buf, sizeof(buf), "%s", json_is_null(v) ? "None" : "?");
    for (b = 0; s[b] && py_space(s[b]); b++)
        ;
    for (e = strlen(s); e > b && py_space(s[e - 1]); e--)
        ;
    for (unsigned k = 0; yes[k]; k++)
        if (e - b == strlen(yes[k]) && !strncasecmp(s + b, yes[k], e - b))
            return 1;
    for (unsigned k = 0; no[k]; k++)
        if (e - b == strlen(no[k]) && !strncasecmp(s + b, no[k], e - b))
            return 0;
    return strict ? -1 : 0;
}

static bool truthy(const json_t *v) {
    if (!v || json_is_null(v) || json_is_false(v))
        return false;
    if (json_is_string(v))
        return json_string_length(v) > 0;
    if (json_is_integer(v))
        return json_integer_value(v) != 0;
    if (json_is_real(v))
        return json_real_value(v) != 0;
    if (json_is_object(v))
        return json_object_size(v) > 0;
    if (json_is_array(v))
        return json_array_size(v) > 0;
    return true;
}

/* Python's repr() of a float: the shortest digits that read back, fixed
 * notation for decimal exponents from -4 to 15 (with ".0" when whole),
 * else d.ddde+XX. */
static void py_float_repr(double x, char *res, size_t n) {
    char tmp[40], digits[24], out[64];
    const char *p;
    size_t nd = 0, o = 0;
    int prec, e;
    for (prec = 0; prec < 17; prec++) {
        snprintf(tmp, sizeof(tmp), "%.*e", prec, x);
        if (strtod(tmp, NULL) == x)
            break;
    }
    p = tmp;
    if (*p == '-')
        out[o++] = *p++;
    for (; *p && *p != 'e'; p++)
        if (*p != '.')
            digits[nd++] = *p;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    e = atoi(p + 1);
    if (e >= -4 && e < 16) {
        if (e >= 0) {
            for (int i = 0; i <= e; i++)
                out[o++] = (size_t)i < nd ? digits[i] : '0';
            out[o++] = '.';
            if ((size_t)e + 1 < nd)
                for (size_t i = (size_t)e + 1; i < nd; i++)
                    out[o++] = digits[i];
            else
                out[o++] = '0';
        } else {
            out[o++] = '0';
            out[o++] = '.';
            for (int i = 0; i < -e - 1; i++)
                out[o++] = '0';
            for (size_t i = 0; i < nd; i++)
                out[o++] = digits[i];
        }
        out[o] = '\0';
    } else {
        out[o] = '\0';
        snprintf(out + o, sizeof(out) - o, "%c%s%se%c%02d", digits[0], nd > 1 ? "." : "",
                 nd > 1 ? digits + 1 : "", e < 0 ? '-' : '+', e < 0 ? -e : e);
    }
    snprintf(res, n, "%s", out);
}

/* Tags nova's pool keeps beside the device's own fields; "count",
 * "devices" and "numa_node" would break nova's pools, so they are refused. */
static int add_tag(numafit_error_t *err, unsigned line, struct dev_spec *s, const char *key,
                   const json_t *v) {
    struct tagv *t = &s->tags[s->ntags];
    char buf[64];
    if (!strcmp(key, "count") || !strcmp(key, "devices") || !strcmp(key, "numa_node"))
        return spec_fail(err, line, "PciConfigInvalidSpec",
                         "the tag \"%s\" is a field of nova's pools (libnumafit refuses it)", key);
    if (strlen(key) > NUMAFIT_PCI_STRING_MAX)
        return spec_fail(err, line, "PciConfigInvalidSpec", "a tag name of more than %d bytes",
                         NUMAFIT_PCI_STRING_MAX);
    memset(t, 0, sizeof(*t));
    if (json_is_null(v)) {
        t->kind = TV_NULL;
    } else if (json_is_string(v)) {
        if (strlen(json_string_value(v)) != json_string_length(v) ||
            json_string_length(v) > NUMAFIT_PCI_STRING_MAX)
            return spec_fail(err, line, "PciConfigInvalidSpec",
                             "the tag \"%.64s\" is too long or holds a NUL byte", key);
        t->kind = TV_STR;
        t->str = numafit__strdup(json_string_value(v));
    } else if (json_is_integer(v) || json_is_boolean(v)) {
        t->kind = TV_NUM;
        t->num = json_is_integer(v) ? json_integer_value(v) : json_is_true(v);
        if (json_is_integer(v))
            snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, (json_int_t)t->num);
        t->str = numafit__strdup(json_is_integer(v) ? buf : json_is_true(v) ? "True" : "False");
    } else if (json_is_real(v)) {
        t->kind = TV_REAL;
        t->real = json_real_value(v);
        py_float_repr(t->real, buf, sizeof(buf));
        t->str = numafit__strdup(buf);
    } else {
        return spec_fail(err, line, "PciConfigInvalidSpec",
                         "the tag \"%.64s\" must be a string, number, boolean or null, not %s "
                         "(nova cannot store it in a pool)",
                         key, numafit__json_type_name(v));
    }
    t->key = numafit__strdup(key);
    s->ntags++;
    if (!t->key || (t->kind != TV_NULL && !t->str)) {
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
        return -ENOMEM;
    }
    return 0;
}

static struct tagv *tag_get(const struct dev_spec *s, const char *key) {
    for (uint32_t i = 0; i < s->ntags; i++)
        if (!strcmp(s->tags[i].key, key))
            return &s->tags[i];
    return NULL;
}

struct ctx {
    const numafit_pci_devices_t *devs;
    bool latest, in_placement;
    numafit_error_t *err;
};

/* PciDeviceSpec's remote-managed check of a PF's address (nova's intent:
 * its sysfs readers look in the wrong places, doc/pci.md). */
static int check_remote_pf(const struct ctx *c, const struct dev_spec *s,
                           const struct addr_spec *a) {
    char pf[64];
    const struct pci_device *d;
    struct afield vf = {0};
    if (a->kind == ADDR_REGEX)
        snprintf(pf, sizeof(pf), "%.8s:%.8s:%.8s.%.8s", a->raw[0], a->raw[1], a->raw[2], a->raw[3]);
    else
        format_fields(a->f, pf, sizeof(pf));
    d = find_address(c->devs, pf);
    if (!d || !d->sriov_vf_device || !d->sriov_vf_device[0])
        return spec_fail(c->err, s->line, "PciDeviceNotFoundById",
                         "no VF product id (sriov_vf_device) is known for the PF %s", pf);
    if (py_hex(d->sriov_vf_device, strlen(d->sriov_vf_device), 0xffff, &vf) == 0 && !vf.never &&
        !s->product.any && !s->product.never && s->product.v == vf.v &&
        (s->vendor.any || id_match(&s->vendor, d->vendor_id)))
        return 0;
    if ((s->product.any || id_match(&s->product, d->product_id)) &&
        (s->vendor.any || id_match(&s->vendor, d->vendor_id)))
        return spec_fail(c->err, s->line, "PciDeviceInvalidPFRemoteManaged",
                         "PFs cannot be remote_managed (PCI address %s)", pf);
    return spec_fail(c->err, s->line, "PciConfigInvalidSpec",
                     "the specified VF vendor ID and product ID do not match the expected VF IDs "
                     "based on the corresponding PF identified by PCI address %s",
                     pf);
}

/* One device_spec dict (PciDeviceSpec.__init__). */
static int read_spec(const struct ctx *c, unsigned line, const json_t *o, struct dev_spec *s) {
    const json_t *vendor = json_object_get(o, "vendor_id"),
                 *product = json_object_get(o, "product_id");
    const json_t *devname = json_object_get(o, "devname"), *address = json_object_get(o, "address");
    const json_t *v;
    const char *key, *vs;
    const struct addr_spec *ao;
    int r;

    s->line = line;
    if ((vendor && !json_is_string(vendor)) || (product && !json_is_string(product)))
        return spec_fail(
            c->err, line, "PciConfigInvalidSpec",
            "vendor_id and product_id must be strings (nova fails on %s)",
            numafit__json_type_name(vendor && !json_is_string(vendor) ? vendor : product));
    vs = vendor ? json_string_value(vendor) : "*";
    {
        size_t b = 0, e = strlen(vs);
        while (b < e && py_space(vs[b]))
            b++;
        while (e > b && py_space(vs[e - 1]))
            e--;
        if ((r = set_field(c->err, line, "vendor_id", vs + b, e - b, 0xffff, &s->vendor)) < 0)
            return r;
    }
    vs = product ? json_string_value(product) : "*";
    if ((r = set_field(c->err, line, "product_id", vs, strlen(vs), 0xffff, &s->product)) < 0)
        return r;
    s->has_devname = truthy(devname);
    if (truthy(address) && s->has_devname)
        return spec_fail(c->err, line, "PciDeviceInvalidDeviceName",
                         "Invalid PCI Whitelist: The PCI whitelist can specify devname or "
                         "address, but not both");
    if (s->has_devname && json_is_string(devname) &&
        !(s->devname = numafit__strdup(json_string_value(devname)))) {
        numafit__error_set(c->err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
        return -ENOMEM;
    }
    if (!s->has_devname) {
        if (!truthy(address))
            r = parse_glob(c->err, line, "*:*:*.*", &s->addr);
        else if (json_is_string(address))
            r = strlen(json_string_value(address)) != json_string_length(address) ||
                        json_string_length(address) > NUMAFIT_PCI_STRING_MAX
                    ? spec_fail(c->err, line, "PciDeviceWrongAddressFormat",
                                "The PCI address is too long or holds a NUL byte.")
                    : parse_glob(c->err, line, json_string_value(address), &s->addr);
        else if (json_is_object(address))
            r = parse_regex(c->err, line, address, &s->addr);
        else
            r = spec_fail(c->err, line, "PciDeviceWrongAddressFormat",
                          "The PCI address must be a string or an object, not %s.",
                          numafit__json_type_name(address));
        if (r < 0)
            return r;
        s->has_addr = true;
        /* _check_physical_function: a single address in sysfs with VFs */
        if (s->addr.kind == ADDR_GLOB && single_glob(&s->addr)) {
            char a[32];
            format_fields(s->addr.f, a, sizeof(a));
            s->addr.is_pf = is_pf_at(c->devs, a);
        } else if (s->addr.kind == ADDR_REGEX && all_hex(s->addr.raw[0]) &&
                   all_hex(s->addr.raw[1]) && all_hex(s->addr.raw[2]) && all_hex(s->addr.raw[3])) {
            char a[4 * NUMAFIT_PCI_STRING_MAX + 8];
            snprintf(a, sizeof(a), "%s:%s:%s.%s", s->addr.raw[0], s->addr.raw[1], s->addr.raw[2],
                     s->addr.raw[3]);
            s->addr.is_pf = is_pf_at(c->devs, a);
        }
    } else {
        /* get_function_by_ifname: the interface's device, a PF when it has VFs */
        const struct pci_device *d = find_ifname(c->devs, s->devname);
        if (d) {
            if ((r = parse_phys(c->err, line, d->address, &s->addr)) < 0)
                return r;
            s->addr.is_pf = d->sriov_totalvfs > 0;
            s->has_addr = true;
        }
    }
    /* the tags: every other member */
    if (json_object_size(o) > NUMAFIT_PCI_TAGS_MAX)
        return spec_fail(c->err, line, "PciConfigInvalidSpec", "more than %d tags",
                         NUMAFIT_PCI_TAGS_MAX);
    s->tags = numafit__calloc(json_object_size(o) + 1, sizeof(*s->tags));
    if (!s->tags) {
        numafit__error_set(c->err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
        return -ENOMEM;
    }
    json_object_foreach((json_t *)o, key, v) {
        if (!strcmp(key, "vendor_id") || !strcmp(key, "product_id") || !strcmp(key, "devname") ||
            !strcmp(key, "address"))
            continue;
        if ((r = add_tag(c->err, line, s, key, v)) < 0)
            return r;
    }
    ao = address_obj(s);
    s->remote_managed = py_bool(json_object_get(o, "remote_managed"), false) == 1;
    if (c->latest) {
        static const char *const bools[] = {"managed", "live_migratable", "one_time_use", NULL};
        for (unsigned k = 0; bools[k]; k++) {
            struct tagv *t = tag_get(s, bools[k]);
            int b;
            if (!t || t->kind == TV_NULL)
                continue;
            b = py_bool(json_object_get(o, bools[k]), true);
            if (b < 0)
                return spec_fail(c->err, line, "PciConfigInvalidSpec",
                                 "Cannot parse tag '%s': Unrecognized value '%.64s'", bools[k],
                                 t->str);
            free(t->str);
            t->kind = TV_STR;
            if (!(t->str = numafit__strdup(b ? "true" : "false"))) {
                numafit__error_set(c->err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
                return -ENOMEM;
            }
        }
        {
            struct tagv *t = tag_get(s, "one_time_use");
            if (t && t->kind == TV_STR && !strcmp(t->str, "true") && !c->in_placement)
                return spec_fail(c->err, line, "PciConfigInvalidSpec",
                                 "one_time_use=true requires pci.report_in_placement to be "
                                 "enabled");
        }
    }
    if (s->remote_managed) {
        if (!ao)
            return spec_fail(c->err, line, "PciDeviceRemoteManagedNotPresent",
                             "Invalid PCI Whitelist: the devname of a remote_managed "
                             "device_spec names no network interface of this host");
        if (ao->is_pf && (r = check_remote_pf(c, s, ao)) < 0)
            return r;
    }
    return 0;
}

/* One device_spec value's JSON: a dict or a list of dicts. */
static int read_json_value(const struct ctx *c, unsigned line, const char *text, struct specs *ss) {
    json_error_t jerr;
    json_t *doc = json_loads(text, JSON_DECODE_ANY, &jerr), *one = NULL;
    size_t i, n;
    int r = 0;
    if (!doc)
        return spec_fail(c->err, line, "PciConfigInvalidSpec", "Invalid entry: '%.200s'", text);
    if (json_is_object(doc))
        doc = json_pack("[o]", one = doc);
    else if (!json_is_array(doc)) {
        json_decref(doc);
        return spec_fail(c->err, line, "PciConfigInvalidSpec",
                         "Invalid entry: '%.200s'; Expecting list or dict", text);
    }
    if (!doc) {
        numafit__error_set(c->err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
        return -ENOMEM;
    }
    n = json_array_size(doc);
    if (ss->n + n > SPECS_MAX) {
        json_decref(doc);
        numafit__error_set(c->err, NUMAFIT_E_RANGE, -1, NULL, NULL,
                           "more than %u device_spec entries", SPECS_MAX);
        return -ERANGE;
    }
    if (n) {
        void *p = numafit__realloc(ss->s, (ss->n + n) * sizeof(*ss->s));
        if (!p) {
            json_decref(doc);
            numafit__error_set(c->err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
            return -ENOMEM;
        }
        ss->s = p;
    }
    for (i = 0; i < n && r == 0; i++) {
        json_t *o = json_array_get(doc, i);
        if (!json_is_object(o)) {
            r = spec_fail(c->err, line, "PciConfigInvalidSpec",
                          "Invalid entry: '%s'; Expecting dict", numafit__json_type_name(o));
            break;
        }
        memset(&ss->s[ss->n], 0, sizeof(*ss->s));
        ss->n++;
        r = read_spec(c, line, o, &ss->s[ss->n - 1]);
    }
    json_decref(doc);
    return r;
}

/* One device_spec value, after oslo.config's substitution (ss NULL: the
 * substitution only, which oslo.config does to every value first). */
static int read_value(const struct ctx *c, unsigned line, const char *raw, struct specs *ss) {
    char *text = NULL, name[64];
    int r = numafit__ini_template(raw, &text, name, sizeof(name));
    if (r < 0) {
        numafit__error_set(c->err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
        return r;
    }
    if (r == 1)
        return spec_fail(c->err, line, "NoSuchOptError",
                         "the value refers to the option $%s: libnumafit does not substitute "
                         "oslo.config references (nova does, or raises NoSuchOptError when there "
                         "is no such option)",
                         name);
    r = ss ? read_json_value(c, line, text, ss) : 0;
    free(text);
    return r;
}

/* The device_spec values in oslo.config's order: those of the deprecated
 * [DEFAULT] pci_passthrough_whitelist, then [pci] passthrough_whitelist,
 * then [pci] device_spec, each in the file's order. */
static int read_specs(struct ctx *c, const char *conf, size_t len, struct specs *ss) {
    static const char *const names[3][2] = {{"DEFAULT", "pci_passthrough_whitelist"},
                                            {"pci", "passthrough_whitelist"},
                                            {"pci", "device_spec"}};
    struct numafit__ini ini;
    int r = 0;
    if (!conf)
        return 0;
    if ((r = numafit__ini_check_text(conf, len, NUMAFIT_NOVA_CONF_MAX, "nova_conf", c->err)) < 0)
        return r;
    if (numafit__ini_parse(&ini, conf, len) < 0) {
        numafit__error_set(c->err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < ini.nent; i++)
        if (numafit__ini_is(&ini.ent[i], "pci", "report_in_placement")) {
            json_t *v = json_string(ini.ent[i].value);
            int b = v ? py_bool(v, true) : -1;
            json_decref(v);
            c->in_placement = b == 1;
        }
    for (unsigned pass = 0; pass < 2; pass++)
        for (unsigned k = 0; k < 3 && r == 0; k++)
            for (uint32_t i = 0; i < ini.nent && r == 0; i++)
                if (numafit__ini_is(&ini.ent[i], names[k][0], names[k][1]))
                    r = read_value(c, ini.ent[i].line, ini.ent[i].value, pass ? ss : NULL);
    numafit__ini_clear(&ini);
    return r;
}

/* ------------------------------------------------------------ pools */

struct kv {
    const char *key;
    const char *str; /* NULL: null */
    int kind;
    int64_t num;
    double real;
};

struct bpool {
    const struct pci_device *first;
    uint32_t nkv;
    struct kv kv[NUMAFIT_PCI_TAGS_MAX + 8];
    int64_t count;
};

/* An integer equal to a float, as Python compares them (exactly). */
static bool int_eq_real(int64_t i, double r) {
    return r >= -9223372036854775808.0 && r < 9223372036854775808.0 && r == (double)(int64_t)r &&
           (int64_t)r == i;
}

static bool kv_equal(const struct kv *a, const struct kv *b) {
    if (a->kind == TV_NUM && b->kind == TV_NUM)
        return a->num == b->num;
    if (a->kind == TV_REAL && b->kind == TV_REAL)
        return a->real == b->real;
    if (a->kind == TV_NUM && b->kind == TV_REAL)
        return int_eq_real(a->num, b->real);
    if (a->kind == TV_REAL && b->kind == TV_NUM)
        return int_eq_real(b->num, a->real);
    if (a->kind != b->kind)
        return false;
    return a->kind == TV_NULL || !strcmp(a->str, b->str);
}

static void kv_set(struct bpool *p, const char *key, const char *str, int kind, int64_t num,
                   double real) {
    uint32_t i;
    for (i = 0; i < p->nkv && strcmp(p->kv[i].key, key); i++)
        ;
    if (i == p->nkv)
        p->nkv++;
    p->kv[i] = (struct kv){key, str, kind, num, real};
}

/* PciDeviceStats._find_pool: as many keys, and every key of the device's
 * pool keys equal to the pool's value, a key the pool lacks reading as
 * null (dict.get): so {x: null} finds a pool that has {y: null} instead. */
static bool pool_equal(const struct bpool *pool, const struct bpool *dev) {
    static const struct kv null_kv = {NULL, NULL, TV_NULL, 0, 0};
    if (pool->nkv != dev->nkv)
        return false;
    for (uint32_t i = 0; i < dev->nkv; i++) {
        uint32_t j;
        for (j = 0; j < pool->nkv && strcmp(dev->kv[i].key, pool->kv[j].key); j++)
            ;
        if (!kv_equal(&dev->kv[i], j == pool->nkv ? &null_kv : &pool->kv[j]))
            return false;
    }
    return true;
}

/* The pool keys of device d matched by spec s (_create_pool_keys_from_dev):
 * product_id, vendor_id, numa_node, dev_type, the spec's tags, (latest)
 * the PF's or own address, parent_ifname, remote_managed (numa_node as a
 * number or null). */
static void pool_keys_of(const struct ctx *c, const struct pci_device *d, const struct dev_spec *s,
                         struct bpool *p) {
    p->nkv = 0;
    kv_set(p, "product_id", d->product_id, TV_STR, 0, 0);
    kv_set(p, "vendor_id", d->vendor_id, TV_STR, 0, 0);
    if (d->numa_state == NUMA_SET)
        kv_set(p, "numa_node", "", TV_NUM, d->numa_node, 0);
    else
        kv_set(p, "numa_node", NULL, TV_NULL, 0, 0);
    kv_set(p, "dev_type", d->dev_type, TV_STR, 0, 0);
    for (uint32_t i = 0; i < s->ntags; i++) {
        const struct tagv *t = &s->tags[i];
        if (c->latest && (!strcmp(t->key, "resource_class") || !strcmp(t->key, "traits") ||
                          !strcmp(t->key, "rp_uuid") || !strcmp(t->key, "rp_uuids")))
            continue;
        kv_set(p, t->key, t->str, t->kind, t->num, t->real);
    }
    if (c->latest)
        kv_set(p, "address", d->parent_addr ? d->parent_addr : d->address, TV_STR, 0, 0);
    if (d->parent_ifname && d->parent_ifname[0])
        kv_set(p, "parent_ifname", d->parent_ifname, TV_STR, 0, 0);
    if (!strcmp(d->dev_type, "type-VF") || !strcmp(d->dev_type, "type-PF") ||
        !strcmp(d->dev_type, "vdpa")) {
        uint32_t i;
        for (i = 0; i < p->nkv && strcmp(p->kv[i].key, "remote_managed"); i++)
            ;
        if (i == p->nkv || p->kv[i].kind == TV_NULL)
            kv_set(p, "remote_managed", "false", TV_STR, 0, 0);
    }
}

static int build_pools(const struct ctx *c, const struct specs *ss, numafit_pci_pools_t **ret,
                       uint32_t *dev_pool) {
    const numafit_pci_devices_t *devs = c->devs;
    struct bpool *bp = NULL, cur;
    uint32_t nbp = 0;
    numafit_pci_pools_t *pools = NULL;
    int r = -ENOMEM;

    for (uint32_t i = 0; i < devs->n; i++) {
        const struct pci_device *d = &devs->d[i];
        struct dev_addr da = {0};
        const struct dev_spec *match = NULL;
        bool skip = false;
        uint32_t k;
        if (dev_pool)
            dev_pool[i] = UINT32_MAX;
        da.ok = dev_fields(d->address, da.v);
        da.parent_ok = d->parent_addr && dev_fields(d->parent_addr, da.pv);
        for (uint32_t j = 0; j < ss->n && !match && !skip; j++)
            if (spec_match(&ss->s[j], d, &da, &skip))
                match = &ss->s[j];
        if (!match)
            continue; /* not assignable, or nova skips it */
        pool_keys_of(c, d, match, &cur);
        for (k = 0; k < nbp && !pool_equal(&bp[k], &cur); k++)
            ;
        if (k == nbp) {
            void *p;
            if (nbp >= NUMAFIT_PCI_POOLS_MAX) {
                numafit__error_set(c->err, NUMAFIT_E_RANGE, -1, NULL, NULL,
                                   "the devices make more than %d pools", NUMAFIT_PCI_POOLS_MAX);
                r = -ERANGE;
                goto out;
            }
            if (!(p = numafit__realloc(bp, (nbp + 1) * sizeof(*bp))))
                goto nomem;
            bp = p;
            bp[nbp] = cur;
            bp[nbp].first = d;
            bp[nbp].count = 0;
            nbp++;
        }
        bp[k].count++;
        if (dev_pool)
            dev_pool[i] = k;
    }
    if (!(pools = numafit__calloc(1, sizeof(*pools))))
        goto nomem;
    if (nbp && !(pools->p = numafit__calloc(nbp, sizeof(*pools->p))))
        goto nomem;
    for (uint32_t k = 0; k < nbp; k++) {
        struct pci_pool *p = &pools->p[k];
        const struct bpool *b = &bp[k];
        pools->n++;
        p->tmpl = k;
        p->count = b->count;
        p->numa_state = NUMA_NULL;
        if (!(p->tags = numafit__calloc(b->nkv, sizeof(*p->tags))))
            goto nomem;
        for (uint32_t i = 0; i < b->nkv; i++) {
            const struct kv *x = &b->kv[i];
            if (!strcmp(x->key, "vendor_id") || !strcmp(x->key, "product_id")) {
                char **dst = x->key[0] == 'v' ? &p->vendor_id : &p->product_id;
                if (!(*dst = numafit__strdup(x->str)))
                    goto nomem;
            } else if (!strcmp(x->key, "numa_node")) {
                p->numa_state = x->kind == TV_NUM ? NUMA_SET : NUMA_NULL;
                p->numa_node = x->num;
            } else {
                struct pci_tag *t = &p->tags[p->ntags++];
                t->id = numafit__pci_key_id(x->key);
                if (!(t->key = numafit__strdup(x->key)) ||
                    (x->str && !(t->value = numafit__strdup(x->str))))
                    goto nomem;
            }
        }
    }
    if (numafit__pci_sort_pools(pools) < 0)
        goto nomem;
    *ret = pools;
    pools = NULL;
    r = 0;
    goto out;
nomem:
    numafit__error_set(c->err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
    r = -ENOMEM;
out:
    numafit_pci_pools_free(pools);
    free(bp);
    return r;
}

NUMAFIT_EXPORT int numafit_pci_pools_new_from_devices(const numafit_pci_devices_t *devs,
                                                      const char *nova_conf, size_t conf_len,
                                                      unsigned flags, numafit_pci_pools_t **ret,
                                                      numafit_error_t *err) {
    return numafit__pci_pools_from_devices(devs, nova_conf, conf_len, flags, ret, NULL, err);
}

int numafit__pci_pools_from_devices(const numafit_pci_devices_t *devs, const char *nova_conf,
                                    size_t conf_len, unsigned flags, numafit_pci_pools_t **ret,
                                    uint32_t *dev_pool, numafit_error_t *err) {
    struct ctx c = {devs, !(flags & NUMAFIT_PCI_ZED), false, err};
    struct specs ss = {0};
    int r;
    numafit__error_clear(err);
    if (!devs || !ret || (flags & ~(unsigned)NUMAFIT_PCI_ZED)) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL,
                           flags & ~(unsigned)NUMAFIT_PCI_ZED ? "unknown flag bits"
                                                              : "devices and ret are required");
        return -EINVAL;
    }
    r = read_specs(&c, nova_conf, conf_len, &ss);
    if (r == 0)
        r = build_pools(&c, &ss, ret, dev_pool);
    specs_clear(&ss);
    return r;
}
