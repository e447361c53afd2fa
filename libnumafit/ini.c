/* The INI reader of nova.conf, with oslo.config's rules (see ini.h). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ini.h"
#include "private.h"

char *numafit__trim(char *s) {
    char *e;
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
        *--e = '\0';
    return s;
}

static void syntax_error(struct numafit__ini *ini, unsigned line) {
    if (!ini->syntax_line)
        ini->syntax_line = (int)line;
}

/* An indented line: the continuation of the value on the line before (oslo
 * joins with '\n'), else a syntax error. */
static void continuation(struct numafit__ini *ini, char *p, unsigned line) {
    char *t = numafit__trim(p);
    if (!*t)
        return;
    if (ini->nent && ini->ent[ini->nent - 1].line == line - 1 && !ini->syntax_line) {
        /* values are slices of ini->text: join in place by moving the
         * separator; the previous value ends right before this line */
        struct numafit__ini_ent *e = &ini->ent[ini->nent - 1];
        char *end = (char *)e->value + strlen(e->value);
        *end = '\n';
        memmove(end + 1, t, strlen(t) + 1);
        e->line = line;
        return;
    }
    syntax_error(ini, line);
}

/* "[name]": the new section, or NULL (a syntax error). */
static const char *section_header(char *p) {
    char *e = strchr(p, ']');
    if (!e || e[1] || e == p + 1)
        return NULL;
    *e = '\0';
    return p + 1;
}

/* "key = value" or "key: value" in section. */
static void key_value(struct numafit__ini *ini, const char *section, char *p, unsigned line) {
    char *eq = p + strcspn(p, "=:"), *k, *v;
    size_t vl;
    if (!*eq || eq == p || !*section || ini->nent == NUMAFIT__INI_MAX) {
        syntax_error(ini, line);
        return;
    }
    *eq = '\0';
    k = numafit__trim(p);
    v = numafit__trim(eq + 1);
    vl = strlen(v);
    if (vl >= 2 && (v[0] == '"' || v[0] == '\'') && v[vl - 1] == v[0]) {
        v[vl - 1] = '\0';
        v++;
    }
    ini->ent[ini->nent].section = section;
    ini->ent[ini->nent].key = k;
    ini->ent[ini->nent].value = v;
    ini->ent[ini->nent++].line = line;
}

static void parse_lines(struct numafit__ini *ini) {
    const char *section = "";
    unsigned line = 0;
    for (char *p = ini->text, *next; *p; p = next) {
        line++;
        next = p + strcspn(p, "\n");
        if (*next)
            *next++ = '\0';
        if (*p == ' ' || *p == '\t') {
            continuation(ini, p, line);
            continue;
        }
        p = numafit__trim(p);
        if (!*p || *p == '#' || *p == ';')
            continue;
        if (*p != '[') {
            key_value(ini, section, p, line);
            continue;
        }
        const char *s = section_header(p);
        if (s)
            section = s;
        else
            syntax_error(ini, line);
    }
}

int numafit__ini_parse(struct numafit__ini *ini, const char *text, size_t len) {
    memset(ini, 0, sizeof(*ini));
    if (!(ini->text = numafit__malloc(len + 1)) ||
        !(ini->ent = numafit__calloc(NUMAFIT__INI_MAX, sizeof(*ini->ent))))
        return -ENOMEM;
    memcpy(ini->text, text, len);
    ini->text[len] = '\0';
    parse_lines(ini);
    return 0;
}

void numafit__ini_clear(struct numafit__ini *ini) {
    numafit__free(ini->text);
    numafit__free(ini->ent);
    memset(ini, 0, sizeof(*ini));
}

static void oslo_group(const char *in, char *out, size_t n) {
    size_t i;
    if (!strcmp(in, "DEFAULT")) {
        snprintf(out, n, "%s", in);
        return;
    }
    for (i = 0; in[i] && i + 1 < n; i++)
        out[i] = (char)tolower((unsigned char)in[i]);
    out[i] = '\0';
}

int numafit__ini_is(const struct numafit__ini_ent *e, const char *section, const char *key) {
    char a[64], b[64];
    if (strcmp(e->key, key) || strlen(e->section) >= sizeof(a))
        return 0;
    oslo_group(e->section, a, sizeof(a));
    oslo_group(section, b, sizeof(b));
    return !strcmp(a, b);
}

static bool tmpl_first(char c) {
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool tmpl_next(char c) {
    return tmpl_first(c) || c == '.' || (c >= '0' && c <= '9');
}

int numafit__ini_template(const char *in, char **out, char *name, size_t namelen) {
    size_t n = strlen(in), o = 0;
    char *r = numafit__malloc(n + 1);
    if (!r)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        size_t b = 0, e = 0;
        if (in[i] != '$') {
            r[o++] = in[i];
            continue;
        }
        if (in[i + 1] == '$') {
            r[o++] = '$';
            i++;
            continue;
        }
        if (tmpl_first(in[i + 1])) {
            b = i + 1;
            for (e = b; tmpl_next(in[e]); e++)
                ;
        } else if (in[i + 1] == '{' && tmpl_first(in[i + 2])) {
            b = i + 2;
            for (e = b; tmpl_next(in[e]); e++)
                ;
            if (in[e] != '}')
                b = e = 0;
        }
        if (e > b) {
            snprintf(name, namelen, "%.*s", (int)(e - b), in + b);
            free(r);
            return 1;
        }
        r[o++] = '$';
    }
    r[o] = '\0';
    *out = r;
    return 0;
}

const char *numafit__ini_get(const struct numafit__ini *ini, const char *section, const char *key) {
    const char *v = NULL;
    for (uint32_t i = 0; i < ini->nent; i++)
        if (!strcmp(ini->ent[i].section, section) && !strcmp(ini->ent[i].key, key))
            v = ini->ent[i].value; /* the last one wins, as in oslo.config */
    return v;
}

int numafit__ini_check_text(const char *text, size_t len, size_t max, const char *where,
                            numafit_error_t *err) {
    if (len > max) {
        numafit__error_set(err, NUMAFIT_E_RANGE, -1, where, NULL,
                           "nova.conf is larger than %zu bytes", max);
        return -ERANGE;
    }
    if (len && memchr(text, '\0', len)) {
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, where, NULL, "nova.conf contains a NUL byte");
        return -EBADMSG;
    }
    return 0;
}
