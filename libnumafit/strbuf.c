/* Bounded string building for error texts, and Python's repr() of a string
 * (nova's messages quote the offending input with it). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "private.h"

void numafit__sb_putc(struct numafit__sbuf *sb, char c) {
    if (sb->len + 1 < sb->cap)
        sb->b[sb->len++] = c;
    sb->b[sb->len] = '\0';
}

void numafit__sb_puts(struct numafit__sbuf *sb, const char *s) {
    while (*s)
        numafit__sb_putc(sb, *s++);
}

/* UTF-8 for U+0080..U+00A0 or U+00AD, which Python's repr() escapes as \xNN
 * (Python also escapes other unprintable code points; we copy those raw). */
static bool latin1_unprintable(const char *p, const char *e) {
    unsigned char c0 = (unsigned char)p[0], c1;
    if (c0 != 0xc2 || p + 1 >= e)
        return false;
    c1 = (unsigned char)p[1];
    return (c1 >= 0x80 && c1 <= 0xa0) || c1 == 0xad;
}

void numafit__sb_pyrepr(struct numafit__sbuf *sb, const char *s, size_t n, size_t limit) {
    bool has_sq = memchr(s, '\'', n) != NULL, has_dq = memchr(s, '"', n) != NULL;
    char q = (has_sq && !has_dq) ? '"' : '\'';
    char tmp[8];
    size_t start = sb->len;
    if (!limit)
        limit = (size_t)-1;
    numafit__sb_putc(sb, q);
    for (size_t i = 0; i < n && sb->len - start < limit; i++) {
        unsigned char c = (unsigned char)s[i];
        if (latin1_unprintable(s + i, s + n)) {
            snprintf(tmp, sizeof(tmp), "\\x%02x", (unsigned char)s[i + 1]);
            i++;
        } else if (c == (unsigned char)q || c == '\\') {
            tmp[0] = '\\';
            tmp[1] = (char)c;
            tmp[2] = '\0';
        } else if (c == '\t' || c == '\n' || c == '\r') {
            tmp[0] = '\\';
            tmp[1] = c == '\t' ? 't' : c == '\n' ? 'n' : 'r';
            tmp[2] = '\0';
        } else if (c < 0x20 || c == 0x7f) {
            snprintf(tmp, sizeof(tmp), "\\x%02x", c);
        } else {
            tmp[0] = (char)c;
            tmp[1] = '\0';
        }
        numafit__sb_puts(sb, tmp);
    }
    if (sb->len - start < limit)
        numafit__sb_putc(sb, q);
    if (sb->len - start > limit) {
        sb->len = start + limit;
        sb->b[sb->len] = '\0';
    }
}
