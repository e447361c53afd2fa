/* CPU bitmap primitives. */
#include "config.h"

#include "private.h"

unsigned numafit__bits_count(const uint64_t *w, unsigned nw) {
    unsigned n = 0;
    for (unsigned i = 0; i < nw; i++)
        n += numafit__popcount64(w[i]);
    return n;
}

int numafit__bits_next(const uint64_t *w, unsigned nw, int after) {
    unsigned start = (unsigned)(after + 1);
    unsigned i = start >> 6;
    if (i >= nw)
        return -1;
    uint64_t cur = w[i] & (~0ull << (start & 63));
    for (;;) {
        if (cur)
            return (int)(i * 64 + (unsigned)__builtin_ctzll(cur));
        if (++i >= nw)
            return -1;
        cur = w[i];
    }
}

int numafit__bits_last(const uint64_t *w, unsigned nw) {
    for (unsigned i = nw; i-- > 0;)
        if (w[i])
            return (int)(i * 64 + 63 - (unsigned)__builtin_clzll(w[i]));
    return -1;
}

bool numafit__bits_empty(const uint64_t *w, unsigned nw) {
    for (unsigned i = 0; i < nw; i++)
        if (w[i])
            return false;
    return true;
}

bool numafit__bits_equal(const uint64_t *a, const uint64_t *b, unsigned nw) {
    for (unsigned i = 0; i < nw; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

bool numafit__bits_subset(const uint64_t *a, const uint64_t *b, unsigned nw) {
    for (unsigned i = 0; i < nw; i++)
        if (a[i] & ~b[i])
            return false;
    return true;
}

bool numafit__bits_intersects(const uint64_t *a, const uint64_t *b, unsigned nw) {
    for (unsigned i = 0; i < nw; i++)
        if (a[i] & b[i])
            return true;
    return false;
}
