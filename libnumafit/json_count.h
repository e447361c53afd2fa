/*
 * Counting the values of a JSON text with a byte scan, before a parser that
 * keeps some 50 bytes per value sees it. Internal: shared by the library's
 * readers (jsonutil.c) and the numafit CLI's file reader (tools/numafit/cli_io.c);
 * not installed.
 */
#ifndef NUMAFIT_JSON_COUNT_H
#define NUMAFIT_JSON_COUNT_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
