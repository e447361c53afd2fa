/*
 * numafit plan over a fleet: the fast JSON-lines scanner of database dumps
 * (plan_rows.c).
 */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <jansson.h>

#include <numafit.h>

#include "plan_fleet.h"
#include "plan_load.h"

/* ------------------------------------------------------------------ JSON line scanner */

/*
 * compute_nodes dumps are large and jansson decodes the topology string of
 * every line, byte by byte, before the library parses it again. For the
 * common case - an object of a few members, ASCII only - this scanner
 * validates the line (RFC 8259 grammar, no duplicate member names) and
 * records each member's value as its JSON text, so that the topology goes
 * to the library as it is (a string literal or an object) and identical
 * rows can be recognised without decoding. Anything it does not handle
 * (non-ASCII bytes, \u0000 or surrogate escapes, deep nesting, more than 32
 * members, nested objects of more than 64 members or with escaped member
 * names) makes it give up, and so does whatever jansson refuses beyond the
 * grammar: an integer outside int64, a number that overflows a double
 * (1e999), a member name twice in any object. jansson then reads the line,
 * with its error messages. It never accepts a line jansson would refuse
 * (json_loadb with JSON_REJECT_DUPLICATES); tests/plan/errors.test checks.
 * Measured on 100,000 compute_nodes rows (doc/performance.md): without it
 * `numafit plan --db` takes 2 to 3.5 times as long.
 */
static const char *js_ws(const char *p, const char *e) {
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

static int hexval(char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* p at '"'; the position after the closing quote, or NULL. */
static const char *js_string(const char *p, const char *e, bool *esc) {
    for (p++; p < e; p++) {
        unsigned char c = (unsigned char)*p;
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\')
            continue;
        if (c == '"')
            return p + 1;
        if (c < 0x20 || c >= 0x80)
            return NULL;
        if (c != '\\')
            continue;
        *esc = true;
        if (++p >= e)
            return NULL;
        switch (*p) {
            case '"':
            case '\\':
            case '/':
            case 'b':
            case 'f':
            case 'n':
            case 'r':
            case 't':
                break;
            case 'u': {
                int v = 0;
                if (e - p < 5)
                    return NULL;
                for (int k = 1; k <= 4; k++) {
                    int h = hexval(p[k]);
                    if (h < 0)
                        return NULL;
                    v = v * 16 + h;
                }
                if (v == 0 || (v >= 0xd800 && v <= 0xdfff))
                    return NULL;
                p += 4;
                break;
            }
            default:
                return NULL;
        }
    }
    return NULL;
}

static const char *js_digits(const char *p, const char *e) {
    const char *s = p;
    while (p < e && *p >= '0' && *p <= '9')
        p++;
    return p > s ? p : NULL;
}

static const char *js_value(const char *p, const char *e, int depth, char *type, bool *esc);

/* A number, p at its first byte; NULL when malformed or when jansson
 * refuses its value: an integer outside int64 ("too big integer"), a real
 * that overflows a double ("real number overflow"; an underflow is 0). */
static const char *js_number(const char *p, const char *e) {
    const char *s = p, *d;
    bool neg = false, real = false;
    if (*p == '-') {
        neg = true;
        p++;
    }
    d = p;
    if (p < e && *p == '0')
        p++;
    else if (!(p = js_digits(p, e)))
        return NULL;
    if (p < e && *p == '.') {
        real = true;
        if (!(p = js_digits(p + 1, e)))
            return NULL;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        real = true;
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            p++;
        if (!(p = js_digits(p, e)))
            return NULL;
    }
    if (!real) {
        uint64_t v = 0;
        for (; d < p; d++) {
            if (v > (UINT64_MAX - 9) / 10)
                return NULL;
            v = v * 10 + (uint64_t)(*d - '0');
        }
        if (v > (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
            return NULL;
    } else {
        char buf[128];
        if ((size_t)(p - s) >= sizeof(buf))
            return NULL; /* long reals: jansson decides */
        memcpy(buf, s, (size_t)(p - s));
        buf[p - s] = '\0';
        if (isinf(strtod(buf, NULL)))
            return NULL;
    }
    return p;
}

#define JS_KEYS_MAX 64 /* members of a nested object checked for duplicates */

static const char *js_container(const char *p, const char *e, int depth, bool object) {
    char close = object ? '}' : ']', t;
    bool esc = false;
    const char *keys[JS_KEYS_MAX];
    size_t klens[JS_KEYS_MAX], nkeys = 0;
    p = js_ws(p + 1, e);
    if (p < e && *p == close)
        return p + 1;
    for (;;) {
        if (object) {
            const char *k = p;
            bool kesc = false;
            if (p >= e || *p != '"' || !(p = js_string(p, e, &kesc)))
                return NULL;
            /* duplicates, as jansson's JSON_REJECT_DUPLICATES: names with
             * escapes would have to be decoded first, give up */
            if (kesc || nkeys == JS_KEYS_MAX)
                return NULL;
            for (size_t i = 0; i < nkeys; i++)
                if (klens[i] == (size_t)(p - k) && !memcmp(keys[i], k, klens[i]))
                    return NULL;
            keys[nkeys] = k;
            klens[nkeys++] = (size_t)(p - k);
            p = js_ws(p, e);
            if (p >= e || *p != ':')
                return NULL;
            p = js_ws(p + 1, e);
        }
        if (!(p = js_value(p, e, depth + 1, &t, &esc)))
            return NULL;
        p = js_ws(p, e);
        if (p < e && *p == ',') {
            p = js_ws(p + 1, e);
            continue;
        }
        return p < e && *p == close ? p + 1 : NULL;
    }
}

static const char *js_value(const char *p, const char *e, int depth, char *type, bool *esc) {
    if (p >= e || depth > 64)
        return NULL;
    switch (*p) {
        case '"':
            *type = 's';
            return js_string(p, e, esc);
        case '{':
            *type = 'o';
            return js_container(p, e, depth, true);
        case '[':
            *type = 'a';
            return js_container(p, e, depth, false);
        case 't':
            *type = 't';
            return e - p >= 4 && !memcmp(p, "true", 4) ? p + 4 : NULL;
        case 'f':
            *type = 'f';
            return e - p >= 5 && !memcmp(p, "false", 5) ? p + 5 : NULL;
        case 'n':
            *type = 'z';
            return e - p >= 4 && !memcmp(p, "null", 4) ? p + 4 : NULL;
        default:
            break;
    }
    *type = 'n';
    return js_number(p, e);
}

/* Scan a JSON line holding one object; true when it is recorded in r->fm. */
bool plan_jsonl_scan(struct plan_jsonl_line *l, const char *p, size_t n) {
    const char *e = p + n;
    l->n = 0;
    p = js_ws(p, e);
    if (p >= e || *p != '{')
        return false;
    p = js_ws(p + 1, e);
    if (p < e && *p == '}')
        return js_ws(p + 1, e) == e;
    for (;;) {
        struct plan_jsonl_member *m;
        const char *k, *v;
        bool kesc = false;
        if (l->n == sizeof(l->m) / sizeof(l->m[0]) || p >= e || *p != '"')
            return false;
        k = p;
        if (!(p = js_string(p, e, &kesc)) || kesc)
            return false;
        m = &l->m[l->n];
        m->key = k + 1;
        m->klen = (size_t)(p - k - 2);
        for (unsigned i = 0; i < l->n; i++)
            if (l->m[i].klen == m->klen && !memcmp(l->m[i].key, m->key, m->klen))
                return false; /* a duplicate: jansson says so */
        p = js_ws(p, e);
        if (p >= e || *p != ':')
            return false;
        v = p = js_ws(p + 1, e);
        m->esc = false;
        if (!(p = js_value(p, e, 0, &m->type, &m->esc)))
            return false;
        m->val = v;
        m->vlen = (size_t)(p - v);
        l->n++;
        p = js_ws(p, e);
        if (p < e && *p == ',') {
            p = js_ws(p + 1, e);
            continue;
        }
        if (p >= e || *p != '}')
            return false;
        return js_ws(p + 1, e) == e;
    }
}

const struct plan_jsonl_member *plan_jsonl_get(const struct plan_jsonl_line *l, const char *col) {
    size_t n = strlen(col);
    for (unsigned i = 0; i < l->n; i++)
        if (l->m[i].klen == n && !memcmp(l->m[i].key, col, n))
            return &l->m[i];
    return NULL;
}
