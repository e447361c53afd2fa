/*
 * Counting the values of a JSON text with a byte scan, before a parser that
 * keeps some 50 bytes per value sees it, and refusing a NUL byte in it. Internal: shared by the
 * library's readers (jsonutil.c) and the numafit CLI's file reader (tools/numafit/cli_io.c); not
 * installed.
 */
#ifndef NUMAFIT_JSON_COUNT_H
#define NUMAFIT_JSON_COUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

/* Does buf[0..len) hold more than max values? Counts an upper bound (one
 * plus the commas, brackets and braces outside strings); stops at max. */
static inline bool numafit__json_values_over(const char *buf, size_t len, size_t max) {
    size_t n = 1;
    bool in_str = false;
    for (size_t i = 0; i < len; i++) {
        char c = buf[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_str = false;
        } else if (c == '"') {
            in_str = true;
        } else if ((c == ',' || c == '[' || c == '{') && ++n > max) {
            return true;
        }
    }
    return false;
}

/* A NUL byte is never JSON (RFC 8259 allows no control character outside
 * strings, and none unescaped inside), but jansson reads past one. When
 * buf[0..len) holds one: true, with jerr saying where, as the syntax error
 * Python's json.loads also gives. */
static inline bool numafit__json_nul_at(const char *buf, size_t len, json_error_t *jerr) {
    const char *z = memchr(buf, '\0', len);
    int line = 1, col = 1;
    if (!z)
        return false;
    memset(jerr, 0, sizeof(*jerr));
    for (const char *c = buf; c < z; c++, col++)
        if (*c == '\n')
            line++, col = 0;
    jerr->line = line;
    jerr->column = col;
    jerr->position = (int)(z - buf);
    snprintf(jerr->source, sizeof(jerr->source), "<buffer>");
    snprintf(jerr->text, sizeof(jerr->text), "a NUL byte in the JSON text");
    /* where jansson keeps its json_error_code(): a syntax error, not memory */
    jerr->text[JSON_ERROR_TEXT_LENGTH - 1] = (char)json_error_invalid_syntax;
    return true;
}

/* json_loadb() that refuses a NUL byte first (numafit__json_nul_at). */
static inline json_t *numafit__json_loadb(const char *buf, size_t len, size_t flags,
                                          json_error_t *jerr) {
    return numafit__json_nul_at(buf, len, jerr) ? NULL : json_loadb(buf, len, flags, jerr);
}

#endif
