/* Flavors and images as nova reads them: their JSON texts, extra specs,
 * image properties, and the Python value rules applied to them. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "flavor.h"

/* ------------------------------------------------------------ Python values */

bool numafit__py_space(char c) {
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

/* White space Python's int() skips around a number, at p (before e): its
 * length in bytes, 0 if none. int() reads ASCII white space as C's isspace()
 * does (' ', '\t'..'\r': not '\x1c'..'\x1f', which str.strip() removes)
 * and the Unicode White_Space characters above U+007F (here in UTF-8). */
static size_t int_space(const char *p, const char *e) {
    const unsigned char *u = (const unsigned char *)p;
    size_t n = (size_t)(e - p);
    if (*p == ' ' || (*p >= '\t' && *p <= '\r'))
        return 1;
    if (n >= 2 && u[0] == 0xc2 && (u[1] == 0x85 || u[1] == 0xa0)) /* U+0085, U+00A0 */
        return 2;
    if (n < 3)
        return 0;
    if (u[0] == 0xe1 && u[1] == 0x9a && u[2] == 0x80) /* U+1680 */
        return 3;
    /* U+2000..200A, U+2028, U+2029, U+202F */
    if (u[0] == 0xe2 && u[1] == 0x80 &&
        ((u[2] >= 0x80 && u[2] <= 0x8a) || u[2] == 0xa8 || u[2] == 0xa9 || u[2] == 0xaf))
        return 3;
    if (u[0] == 0xe2 && u[1] == 0x81 && u[2] == 0x9f) /* U+205F */
        return 3;
    if (u[0] == 0xe3 && u[1] == 0x80 && u[2] == 0x80) /* U+3000 */
        return 3;
    return 0;
}

static bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

/* From the first digit at p: digits with single '_' between them. */
static int scan_digits(const char *p, const char *e, struct numafit__pyint *v, const char **end) {
    const char *start = p, *last = p;
    char prev = 0;
    v->digits = 0;
    while (p < e && (is_digit(*p) || *p == '_')) {
        if (*p == '_' && prev == '_')
            return NUMAFIT__PYINT_INVALID;
        if (*p != '_') {
            v->digits++;
            last = p;
        }
        prev = *p++;
    }
    if (prev == '_')
        return NUMAFIT__PYINT_INVALID;
    /* skip leading zeros (and the underscores between them) */
    v->ndig = v->digits;
    while (start <= last && (*start == '0' || *start == '_'))
        v->ndig -= *start++ == '0';
    v->dig = start;
    v->len = v->ndig ? (size_t)(last + 1 - start) : 0;
    *end = p;
    return NUMAFIT__PYINT_OK;
}

int numafit__pyint_scan(const char *s, size_t n, struct numafit__pyint *v) {
    const char *p = s, *e = s + n;
    size_t k;
    int sign = 1, rc;
    while (p < e && (k = int_space(p, e)))
        p += k;
    if (p < e && (*p == '+' || *p == '-'))
        sign = *p++ == '-' ? -1 : 1;
    if (p == e || !is_digit(*p))
        return NUMAFIT__PYINT_INVALID;
    if ((rc = scan_digits(p, e, v, &p)) != NUMAFIT__PYINT_OK)
        return rc;
    v->sign = v->ndig ? sign : 0;
    while (p < e && (k = int_space(p, e)))
        p += k;
    return p == e ? NUMAFIT__PYINT_OK : NUMAFIT__PYINT_TRAILING;
}

char numafit__pyint_digit(const struct numafit__pyint *v, size_t *pos) {
    while (v->dig[*pos] == '_')
        (*pos)++;
    return v->dig[(*pos)++];
}

bool numafit__pyint_u64(const struct numafit__pyint *v, uint64_t *mag) {
    size_t pos = 0;
    *mag = 0;
    for (size_t i = 0; i < v->ndig; i++) {
        unsigned d = (unsigned)(numafit__pyint_digit(v, &pos) - '0');
        if (*mag > (UINT64_MAX - d) / 10)
            return false;
        *mag = *mag * 10 + d;
    }
    return true;
}

bool numafit__py_int(const char *s, int64_t *ret, bool *ovf) {
    struct numafit__pyint v;
    uint64_t m;
    bool over;
    if (numafit__pyint_scan(s, strlen(s), &v) != NUMAFIT__PYINT_OK)
        return false;
    over = !numafit__pyint_u64(&v, &m);
    if (v.sign < 0) {
        over = over || m > (uint64_t)INT64_MAX + 1;
        *ret = over || m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m;
    } else {
        over = over || m > (uint64_t)INT64_MAX;
        *ret = over ? INT64_MAX : (int64_t)m;
    }
    if (ovf)
        *ovf = over;
    return true;
}

bool numafit__json_py_int(const json_t *v, int64_t *out, bool *ovf) {
    *ovf = false;
    if (json_is_integer(v)) {
        *out = json_integer_value(v);
        return true;
    }
    if (json_is_boolean(v)) {
        *out = json_is_true(v);
        return true;
    }
    if (json_is_string(v))
        return numafit__py_int(json_string_value(v), out, ovf);
    if (json_is_real(v)) {
        double d = json_real_value(v);
        if (!(d > -9.2e18 && d < 9.2e18))
            return false;
        *out = (int64_t)d;
        return true;
    }
    return false;
}

/* s[0..n) equals the lower-case word w, ignoring ASCII case. */
static bool same_word(const char *s, size_t n, const char *w) {
    if (strlen(w) != n)
        return false;
    for (size_t k = 0; k < n; k++) {
        char ch = s[k];
        if (ch >= 'A' && ch <= 'Z')
            ch = (char)(ch - 'A' + 'a');
        if (ch != w[k])
            return false;
    }
    return true;
}

bool numafit__py_bool(const char *s) {
    static const char *const truths[] = {"1", "t", "true", "on", "y", "yes"};
    if (!s)
        return false;
    while (numafit__py_space(*s))
        s++;
    size_t n = strlen(s);
    while (n && numafit__py_space(s[n - 1]))
        n--;
    for (size_t i = 0; i < sizeof(truths) / sizeof(truths[0]); i++)
        if (same_word(s, n, truths[i]))
            return true;
    return false;
}

/* ------------------------------------------------------------ documents */

/* The text's size, as each dialect refuses it (the topology has no limit). */
static int check_size(size_t len, const char *what, int dialect, numafit_error_t *err) {
    if (len <= NUMAFIT_INPUT_MAX || dialect == NUMAFIT__FLAVOR_TOPOLOGY)
        return 0;
    if (dialect == NUMAFIT__FLAVOR_REQUEST)
        numafit__error_set(err, NUMAFIT_E_RANGE, -1, what, NULL, "%s JSON larger than %u bytes",
                           what, NUMAFIT_INPUT_MAX);
    else
        numafit__error_set(err, NUMAFIT_E_RANGE, -1, "flavor", NULL, "flavor JSON too large");
    return -ERANGE;
}

static int syntax_error(const json_error_t *j, const char *what, int dialect,
                        numafit_error_t *err) {
    if (dialect == NUMAFIT__FLAVOR_REQUEST)
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, what, NULL, "%s:%d:%d: %s", what, j->line,
                           j->column, j->text);
    else if (dialect == NUMAFIT__FLAVOR_TOPOLOGY)
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, what, NULL, "%s: line %d column %d: %s", what,
                           j->line, j->column, j->text);
    else
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, "flavor", NULL, "%d:%d: %s", j->line,
                           j->column, j->text);
    return -EBADMSG;
}

static int not_object(const char *what, int dialect, numafit_error_t *err) {
    if (dialect == NUMAFIT__FLAVOR_TOPOLOGY)
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, what, NULL, "%s must be a JSON object", what);
    else
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "flavor", NULL,
                           "the flavor must be a JSON object");
    return -EINVAL;
}

int numafit__flavor_load(const char *buf, size_t len, const char *what, int dialect, json_t **ret,
                         numafit_error_t *err) {
    const bool req = dialect == NUMAFIT__FLAVOR_REQUEST;
    const struct numafit__json_src src = {what, NUMAFIT__JSON_VALUES_SMALL,
                                          req ? JSON_DECODE_ANY : 0, req ? "" : what};
    json_error_t jerr;
    json_t *j = NULL;
    int rc = check_size(len, what, dialect, err);
    if (rc == 0)
        rc = numafit__json_parse(&src, buf, len, &j, &jerr, err);
    if (rc == -EBADMSG)
        return syntax_error(&jerr, what, dialect, err);
    if (rc < 0)
        return rc;
    if (!req && !json_is_object(j)) {
        json_decref(j);
        return not_object(what, dialect, err);
    }
    *ret = j;
    return 0;
}

int numafit__flavor_specs(const json_t *flavor, int dialect, const json_t **ret,
                          numafit_error_t *err) {
    const json_t *es = json_object_get(flavor, "extra_specs");
    *ret = NULL;
    if (dialect == NUMAFIT__FLAVOR_TOPOLOGY) {
        if (es && !json_is_object(es)) {
            numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "extra_specs", NULL,
                               "flavor extra_specs must be a JSON object");
            return -EINVAL;
        }
    } else if (es && !json_is_null(es) && !json_is_object(es)) {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "extra_specs", NULL,
                           "extra_specs must be an object");
        return -EINVAL;
    }
    *ret = json_is_object(es) ? es : NULL;
    return 0;
}

int numafit__image_props(const json_t *image, int dialect, const json_t **ret,
                         numafit_error_t *err) {
    const json_t *props;
    *ret = NULL;
    if (dialect == NUMAFIT__FLAVOR_TOPOLOGY) {
        props = image ? json_object_get(image, "properties") : NULL;
        if (props && !json_is_object(props)) {
            numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "properties", NULL,
                               "image properties must be a JSON object");
            return -EINVAL;
        }
        *ret = props;
        return 0;
    }
    if (!image || json_is_null(image))
        return 0;
    if (!json_is_object(image)) {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "image", NULL, "image must be an object");
        return -EINVAL;
    }
    props = json_object_get(image, "properties");
    if (props && !json_is_null(props) && !json_is_object(props)) {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "properties", NULL,
                           "image properties must be an object");
        return -EINVAL;
    }
    *ret = json_is_object(props) ? props : NULL;
    return 0;
}

/* ------------------------------------------------------------ values */

const char *numafit__spec_string(const json_t *v, char *buf, size_t len) {
    if (json_is_string(v))
        return json_string_value(v);
    if (json_is_integer(v)) {
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
        return buf;
    }
    if (json_is_boolean(v))
        return json_is_true(v) ? "True" : "False";
    return NULL;
}

int numafit__spec_value(const json_t *v, const char *key, char *buf, size_t len, const char **ret,
                        numafit_error_t *err) {
    *ret = numafit__spec_string(v, buf, len);
    if (*ret)
        return 0;
    numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, key, NULL, "extra spec '%s' must be a string",
                       key);
    return -EINVAL;
}

int numafit__image_str(const json_t *props, const char *key, char *buf, size_t len,
                       const char **ret, numafit_error_t *err) {
    const json_t *v = json_object_get(props, key);
    *ret = NULL;
    if (!v)
        return 0;
    *ret = numafit__spec_string(v, buf, len);
    if (*ret)
        return 0;
    numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, key, NULL, "image property '%s' must be a string",
                       key);
    return -EINVAL;
}

int numafit__image_bool(const json_t *props, const char *key, int *ret, numafit_error_t *err) {
    const json_t *v = json_object_get(props, key);
    *ret = -1;
    if (!v)
        return 0;
    if (json_is_boolean(v))
        *ret = json_is_true(v);
    else if (json_is_string(v))
        *ret = numafit__py_bool(json_string_value(v));
    else if (json_is_integer(v))
        *ret = json_integer_value(v) == 1;
    else {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, key, NULL,
                           "image property '%s' must be a boolean", key);
        return -EINVAL;
    }
    return 0;
}
