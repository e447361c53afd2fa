/* An INI reader with oslo.config's rules, for nova.conf (the doctor, and
 * numafit_hostconf_set_from_nova_conf()): [section] lines, key = value or
 * key: value, '#' and ';' comment lines, indented continuation lines joined
 * with '\n', one pair of matching quotes around a value removed; for an
 * option given more than once the last value counts. */
#ifndef NUMAFIT_INI_H
#define NUMAFIT_INI_H

#include <stddef.h>
#include <stdint.h>

#define NUMAFIT__INI_MAX 4096u /* entries kept; more is a syntax error */

struct numafit__ini_ent {
    const char *section;
    const char *key;
    const char *value;
    unsigned line; /* 1-based, the last line of a continued value */
};

struct numafit__ini {
    char *text; /* a copy of the input, cut into the entries' strings */
    uint32_t nent;
    struct numafit__ini_ent *ent; /* in input order */
    int syntax_line;              /* first line oslo.config cannot parse, 0 = none */
};

/* Read len bytes of text (no NUL byte in them) into ini, which need not be
 * initialised. Lines that cannot be parsed are skipped, the first one noted
 * in syntax_line. Returns 0 or -ENOMEM; numafit__ini_clear() either way. */
int numafit__ini_parse(struct numafit__ini *ini, const char *text, size_t len);
void numafit__ini_clear(struct numafit__ini *ini);

/* A nova.conf text the library is given: at most max bytes, no NUL byte.
 * Returns 0, or -ERANGE / -EBADMSG with err filled (err->where = where). */
struct numafit_error;
int numafit__ini_check_text(const char *text, size_t len, size_t max, const char *where,
                            struct numafit_error *err);

/* The value of section's key (the last one given), or NULL. */
const char *numafit__ini_get(const struct numafit__ini *ini, const char *section, const char *key);

/* Is e section's key? Section names compare as oslo.config normalises
 * them: lower-case, but for DEFAULT. */
int numafit__ini_is(const struct numafit__ini_ent *e, const char *section, const char *key);

/* When e is one of the nova.conf options libnumafit reads but stands in
 * a section oslo.config does not read it from: the group nova reads it
 * from (for the message: "[%s]"); else NULL (nova_conf.c). */
const char *numafit__nova_conf_misplaced(const struct numafit__ini_ent *e);

/* oslo.config's substitution in a string value, as far as libnumafit
 * goes: "$$" is "$"; a "$NAME" or "${NAME}" reference to another option
 * (NAME as oslo's template reads it) is not resolved: the function returns
 * 1 with the name in name[0..namelen). Otherwise 0 with *out the value
 * (numafit__malloc'ed), or -ENOMEM. */
int numafit__ini_template(const char *in, char **out, char *name, size_t namelen);

/* s without leading and trailing blanks (space, tab, CR, LF); cuts s. */
char *numafit__trim(char *s);

#endif
