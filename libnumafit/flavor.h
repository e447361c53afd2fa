/*
 * Reading flavors and images as nova does (flavor.c): the JSON texts, their
 * extra specs and image properties, and the Python value rules nova applies
 * to them (int(), oslo's bool_from_string, str() of a value). Shared by
 * requests (request.c, request_rules.c), CPU topologies (topology.c) and
 * domain XML (domain.c). Internal; not installed.
 */
#ifndef NUMAFIT_FLAVOR_H
#define NUMAFIT_FLAVOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jsonio.h"

/* ------------------------------------------------------------ Python values */

/* Python's str.strip() white space, ASCII part: ' ', '\t'..'\r' and
 * '\x1c'..'\x1f' (int() skips other white space: numafit__pyint_scan). */
bool numafit__py_space(char c);

/*
 * The digits of Python's int(s) for UTF-8 text: white space (as int()
 * skips it: ASCII ' ', '\t'..'\r' and Unicode White_Space above U+007F),
 * an optional sign, ASCII digits with single '_' between them, white space.
 * (int() also reads Unicode decimal digits such as U+0663; these are not
 * read here: such a value is malformed.)
 */
struct numafit__pyint {
    int sign;        /* -1, 0, 1 */
    const char *dig; /* the most significant non-zero digit */
    size_t len;      /* bytes from dig through the last digit ('_' between them) */
    size_t ndig;     /* significant digits */
    size_t digits;   /* all digits, leading zeros included */
};
enum { NUMAFIT__PYINT_OK, NUMAFIT__PYINT_INVALID, NUMAFIT__PYINT_TRAILING };
/*
 * Scan s[0..n) into *v. Returns NUMAFIT__PYINT_OK; NUMAFIT__PYINT_INVALID
 * when the number itself is malformed; NUMAFIT__PYINT_TRAILING when a
 * well-formed number (v->digits set) is followed by other text.
 */
int numafit__pyint_scan(const char *s, size_t n, struct numafit__pyint *v);
/* The next digit of v at or after *pos (which starts at 0). */
char numafit__pyint_digit(const struct numafit__pyint *v, size_t *pos);
/* |v| in *mag; false (with *mag meaningless) when it needs more than 64 bits. */
bool numafit__pyint_u64(const struct numafit__pyint *v, uint64_t *mag);
/* int(s) saturated to int64 (*ovf, when not NULL, says whether it was);
 * false where int() raises ValueError. */
bool numafit__py_int(const char *s, int64_t *ret, bool *ovf);
/* int() of a JSON value (IntegerField coercion): integers, booleans,
 * strings, reals (truncated); false for other values. */
bool numafit__json_py_int(const json_t *v, int64_t *out, bool *ovf);
/* oslo strutils.bool_from_string(s) with strict=False, default=False. */
bool numafit__py_bool(const char *s);

/* ------------------------------------------------------------ documents */

/* Each entry point words a flavor or image it cannot use its own way. */
enum numafit__flavor_dialect {
    NUMAFIT__FLAVOR_REQUEST,  /* numafit_request_new */
    NUMAFIT__FLAVOR_TOPOLOGY, /* numafit_cpu_topology_* */
    NUMAFIT__FLAVOR_DOMAIN,   /* numafit_domain_* */
};

/*
 * Parse a flavor or image JSON text (what: "flavor" or "image"). The
 * request dialect accepts any JSON value (the caller checks it), the others
 * want an object. Returns 0, -ERANGE, -ENOMEM, -EBADMSG or -EINVAL with err
 * filled.
 */
int numafit__flavor_load(const char *buf, size_t len, const char *what, int dialect, json_t **ret,
                         numafit_error_t *err);
/*
 * flavor["extra_specs"] into *ret: NULL when absent (or null, except for the
 * topology dialect, which wants an object when the key is there). Returns 0
 * or -EINVAL with err filled.
 */
int numafit__flavor_specs(const json_t *flavor, int dialect, const json_t **ret,
                          numafit_error_t *err);
/*
 * image["properties"] into *ret (NULL when there are none). The request
 * dialect accepts image NULL or null; topology wants properties to be an
 * object when the key is there. Returns 0 or -EINVAL with err filled.
 */
int numafit__image_props(const json_t *image, int dialect, const json_t **ret,
                         numafit_error_t *err);

/*
 * openstackclient's text form of a dict (osc_lib's format_dict: "k='v',
 * k2='v2'") of s[0..n) into a new object of strings. A quote closes its
 * value only when the end or ", key='" follows, so values may hold quotes
 * and commas; \' and \\ are read as ' and \. Refuses (field named in
 * err->where) NUL bytes, text that is not UTF-8, a missing key or quote, an
 * unterminated value, a key twice, keys over 255 bytes, more than
 * NUMAFIT__JSON_VALUES_SMALL keys. Returns 0, -EINVAL, -ERANGE, -ENOMEM.
 */
int numafit__spec_text_parse(const char *s, size_t n, const char *field, json_t **ret,
                             numafit_error_t *err);

/* An extra spec value as nova stores it: a string as it is, an integer in
 * decimal (written to buf), a boolean as Python prints it; NULL for other
 * JSON types. */
const char *numafit__spec_string(const json_t *value, char *buf, size_t len);
/* specs[key] (present) as numafit__spec_string() makes it, or -EINVAL
 * (NUMAFIT_E_SCHEMA, "extra spec '<key>' must be a string"). */
int numafit__spec_value(const json_t *v, const char *key, char *buf, size_t len, const char **ret,
                        numafit_error_t *err);
/* props[key] as str() makes it (StringField): *ret NULL when absent;
 * -EINVAL (NUMAFIT_E_SCHEMA) for null, reals, lists and objects. */
int numafit__image_str(const json_t *props, const char *key, char *buf, size_t len,
                       const char **ret, numafit_error_t *err);
/* props[key] as a FlexibleBooleanField: *ret -1 when absent, else 0 or 1;
 * -EINVAL (NUMAFIT_E_SCHEMA) for other JSON types. */
int numafit__image_bool(const json_t *props, const char *key, int *ret, numafit_error_t *err);

#endif
