/*
 * libFuzzer target: the card serial number of a PCI device's VPD
 * (numafit__pci_vpd_serial, libnumafit/pci_vpd.c), against a second
 * reading written the way libvirt 9.0's parser is laid out: every read a
 * positioned read of the file that may come back short, a running
 * checksum over what was read, the resources walked by offset.
 *
 * Input: the vpd file's bytes.
 * Invariants:
 *  - the two readings agree: both no serial number, or the same one;
 *  - a serial number is 1 to 255 bytes of printable ASCII, without blanks
 *    at either end, NUL-terminated;
 *  - only the first 32 KiB count: the input cut there gives the same.
 */
#include "config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pci_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(cond)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant violated: %s\n", __FILE__, __LINE__, #cond);         \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

struct file {
    const uint8_t *d;
    size_t n;
    uint8_t csum;
};

/* pread(): up to count bytes at off, each added to the checksum */
static size_t rd(struct file *f, uint8_t *buf, size_t count, size_t off) {
    size_t got = off >= f->n ? 0 : (f->n - off < count ? f->n - off : count);
    memcpy(buf, f->d + off, got);
    for (size_t i = 0; i < got; i++)
        f->csum = (uint8_t)(f->csum + buf[i]);
    return got;
}

static bool blank(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/* C string from n bytes: cut at NUL, stripped; false when not printable */
static bool text(const uint8_t *b, size_t n, char *out) {
    size_t len = strnlen((const char *)b, n), s = 0;
    while (s < len && blank((char)b[s]))
        s++;
    while (len > s && blank((char)b[len - 1]))
        len--;
    for (size_t i = s; i < len; i++)
        if (b[i] < 0x20 || b[i] > 0x7e)
            return false;
    memcpy(out, b + s, len - s);
    out[len - s] = '\0';
    return true;
}

enum { K_LAST, K_TEXT, K_BIN, K_RV, K_RW };

static int keyword(const uint8_t *k) {
    char s[3] = {(char)k[0], (char)k[1], 0};
    if (strlen(s) != 2)
        return K_LAST;
    for (int i = 0; i < 2; i++)
        if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9')))
            return K_LAST;
    if (s[0] == 'V' || s[0] == 'Y')
        return K_TEXT;
    if (!strcmp(s, "CP"))
        return K_BIN;
    if (!strcmp(s, "RV"))
        return K_RV;
    if (!strcmp(s, "RW"))
        return K_RW;
    if (!strcmp(s, "EC") || !strcmp(s, "MN") || !strcmp(s, "PN") || !strcmp(s, "SN"))
        return K_TEXT;
    return K_LAST;
}

static bool section(struct file *f, unsigned pos, unsigned len, bool ro, char *sn) {
    uint8_t buf[256];
    unsigned fp = pos;
    bool rv = false, rw = false;
    while (fp + 3 <= pos + len) {
        unsigned flen, want;
        int k;
        char kw[2], val[256];
        if (rd(f, buf, 3, fp) != 3)
            return false;
        flen = buf[2];
        fp += 3;
        memcpy(kw, buf, 2);
        k = keyword(buf);
        if ((!ro && k == K_RV) || (ro && k == K_RW))
            return false;
        want = k == K_RV ? 1 : flen;
        if (pos + len < fp + flen)
            return false;
        if (rd(f, buf, want, fp) != want)
            return false;
        fp += flen;
        if (k == K_TEXT) {
            if (!text(buf, flen, val))
                continue;
            if (ro && kw[0] == 'S' && kw[1] == 'N')
                strcpy(sn, val);
        } else if (k == K_RV) {
            if (f->csum)
                return false;
            rv = true;
            break;
        } else if (k == K_RW) {
            rw = true;
            break;
        }
    }
    (void)rw;
    if (ro)
        return rv && fp >= pos + len;
    return fp >= pos + len;
}

/* 1 and sn, or 0 */
static int reference(const uint8_t *d, size_t n, char *sn) {
    struct file f = {d, n, 0};
    unsigned pos = 0;
    bool end = false, ro = false;
    sn[0] = '\0';
    while (pos <= 0x7fff) {
        uint8_t tag, h[2];
        unsigned len;
        if (rd(&f, &tag, 1, pos) != 1)
            break;
        if (tag & 0x80) {
            if (pos > 0x8000 - 3 || rd(&f, h, 2, pos + 1) != 2)
                break;
            len = h[0] | (unsigned)h[1] << 8;
            pos += 3;
        } else {
            len = tag & 7;
            tag >>= 3;
            pos += 1;
        }
        if (tag == 0x0f) {
            end = true;
            break;
        }
        if (len > 0x8000 - pos)
            break;
        if (tag == 0x82) {
            uint8_t *b = malloc(len + 1);
            char *t = malloc(len + 1);
            bool ok;
            FUZZ_ASSERT(b && t);
            ok = rd(&f, b, len, pos) == len && text(b, len, t);
            free(b);
            free(t);
            if (!ok)
                return 0;
        } else if (tag == 0x90 || tag == 0x91) {
            if (!section(&f, pos, len, tag == 0x90, sn))
                return 0;
            ro |= tag == 0x90;
        }
        pos += len;
    }
    return ro && end && sn[0];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char got[NUMAFIT__PCI_VPD_SERIAL_CAP], want[256];
    int r = numafit__pci_vpd_serial(data, size, got);
    int ref = reference(data, size, want);
    FUZZ_ASSERT(r == -1 || (r > 0 && r < NUMAFIT__PCI_VPD_SERIAL_CAP));
    FUZZ_ASSERT((r > 0) == (ref == 1));
    if (r > 0) {
        FUZZ_ASSERT((size_t)r == strlen(got));
        FUZZ_ASSERT(!strcmp(got, want));
        FUZZ_ASSERT(!blank(got[0]) && !blank(got[r - 1]));
        for (int i = 0; i < r; i++)
            FUZZ_ASSERT(got[i] >= 0x20 && got[i] <= 0x7e);
    }
    if (size > 0x8000) {
        char cut[NUMAFIT__PCI_VPD_SERIAL_CAP];
        int rc = numafit__pci_vpd_serial(data, 0x8000, cut);
        FUZZ_ASSERT(rc == r && (r < 0 || !strcmp(cut, got)));
    }
    return 0;
}
