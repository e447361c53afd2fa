/* The card serial number in a PCI device's Vital Product Data (the binary
 * sysfs file ADDRESS/vpd), as libvirt 9.0's node device driver reads it
 * into <capability type='vpd'><fields access='readonly'><serial_number>
 * and nova's libvirt driver then reports it (doc/pci.md, "VPD").
 *
 * The data is a list of resources. A byte with bit 7 set starts a large
 * resource: that byte is its tag, the next two its length (little endian).
 * Otherwise the byte is a small resource: tag in bits 3-6, length in bits
 * 0-2. Small tag 0x0f ends the list. Large tags: 0x82 the card's name
 * (text), 0x90 the read-only fields (VPD-R), 0x91 the read-write fields
 * (VPD-W); any other resource is skipped by its length. A field is two
 * keyword bytes, a length byte and the value.
 *
 * libvirt's rules, which decide whether a device has a serial number at
 * all (any rule broken: no VPD, so no serial number):
 *  - only the first 32 KiB are addressed: a resource must end within them;
 *  - the list must end with the end tag and hold a VPD-R resource;
 *  - a running 8-bit sum covers every byte read: the resource headers, the
 *    name, the field headers, each field's value, and of the checksum
 *    field "RV" its first value byte only. The bytes of a skipped resource
 *    are never read and so are not in the sum. At RV the sum must be 0;
 *  - in VPD-R the last field must be RV; a read-write field "RW" there is
 *    an error. In VPD-W "RV" is an error, "RW" must be the last field if
 *    present, and the fields must fill the resource;
 *  - a field's value must fit in its resource; a zero-length RV still
 *    reads (and sums) the byte after it;
 *  - the name, cut at its first NUL byte and stripped of white space
 *    (space, tab, line feed, form feed, carriage return), must be printable
 *    ASCII (0x20-0x7e), or the whole VPD is refused;
 *  - a text field's value (keywords EC, MN, PN, SN, YA, Vx and Yx with x an
 *    upper-case letter or a digit) is cut and stripped the same way; when
 *    it is not printable the field alone is ignored. Keywords of other
 *    bytes are skipped;
 *  - of several SN fields in VPD-R the last counts. An empty serial number
 *    is none (nova reads the empty element as no serial number).
 */
#include "config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pci_internal.h"

#define VPD_SPAN 0x8000u /* the VPD address space libvirt reads */

enum { F_SKIP, F_TEXT, F_BINARY, F_CHECKSUM, F_RW };

struct vpd {
    const uint8_t *b;
    size_t len;  /* bytes available (at most VPD_SPAN) */
    uint8_t sum; /* the running checksum */
    char *serial;
    size_t nserial; /* strlen(serial); 0: none yet */
};

/* Sum n bytes at pos into the checksum: false when they are not all there. */
static bool take(struct vpd *v, size_t pos, size_t n) {
    if (pos > v->len || n > v->len - pos)
        return false;
    for (size_t i = 0; i < n; i++)
        v->sum = (uint8_t)(v->sum + v->b[pos + i]);
    return true;
}

static bool upper_or_digit(uint8_t c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* What a field's keyword (two bytes, either may be NUL) holds. */
static int field_kind(uint8_t k0, uint8_t k1) {
    if (!upper_or_digit(k0) || !upper_or_digit(k1))
        return F_SKIP;
    if (k0 == 'V' || k0 == 'Y')
        return F_TEXT; /* vendor (Vx), system (Yx) fields and YA, the asset tag */
    switch (k0 << 8 | k1) {
        case 'E' << 8 | 'C':
        case 'M' << 8 | 'N':
        case 'P' << 8 | 'N':
        case 'S' << 8 | 'N':
            return F_TEXT;
        case 'C' << 8 | 'P':
            return F_BINARY;
        case 'R' << 8 | 'V':
            return F_CHECKSUM;
        case 'R' << 8 | 'W':
            return F_RW;
        default:
            return F_SKIP;
    }
}

static bool is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/* The text of n bytes at p as libvirt keeps it: cut at a NUL byte, blanks
 * stripped at both ends. Its start and length in *s, *sn; false when a
 * byte left is not printable ASCII. */
static bool text_of(const uint8_t *p, size_t n, const char **s, size_t *sn) {
    const char *t = (const char *)p;
    const char *nul = memchr(t, '\0', n);
    if (nul)
        n = (size_t)(nul - t);
    while (n && is_blank(*t))
        t++, n--;
    while (n && is_blank(t[n - 1]))
        n--;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)t[i] < 0x20 || (unsigned char)t[i] > 0x7e)
            return false;
    *s = t;
    *sn = n;
    return true;
}

/* The fields of the VPD-R (ro) or VPD-W resource of n bytes at pos. */
static bool fields(struct vpd *v, size_t pos, size_t n, bool ro) {
    size_t end = pos + n, at = pos;
    bool checksum = false;
    while (at + 3 <= end) {
        const uint8_t *h = v->b + at;
        size_t flen;
        int kind;
        if (!take(v, at, 3))
            return false;
        flen = h[2];
        kind = field_kind(h[0], h[1]);
        at += 3;
        if ((!ro && kind == F_CHECKSUM) || (ro && kind == F_RW))
            return false;
        if (at + flen > end || !take(v, at, kind == F_CHECKSUM ? 1 : flen))
            return false;
        if (kind == F_CHECKSUM) {
            if (v->sum)
                return false;
            checksum = true;
            at += flen;
            break;
        }
        if (kind == F_RW) { /* ends VPD-W (the fill test below) */
            at += flen;
            break;
        }
        if (kind == F_TEXT && ro && h[0] == 'S' && h[1] == 'N') {
            const char *s;
            size_t sn;
            if (text_of(v->b + at, flen, &s, &sn)) {
                memcpy(v->serial, s, sn);
                v->serial[sn] = '\0';
                v->nserial = sn;
            }
        }
        at += flen;
    }
    if (ro)
        return checksum && at >= end;
    return at >= end;
}

int numafit__pci_vpd_serial(const unsigned char *buf, size_t len, char *out) {
    struct vpd v = {buf, len < VPD_SPAN ? len : VPD_SPAN, 0, out, 0};
    size_t pos = 0;
    bool ended = false;
    out[0] = '\0';
    while (pos < VPD_SPAN) {
        unsigned tag;
        size_t n;
        if (!take(&v, pos, 1))
            break;
        tag = buf[pos];
        if (tag & 0x80) {
            if (!take(&v, pos + 1, 2)) /* also a header past the 32 KiB */
                break;
            n = (size_t)buf[pos + 1] | (size_t)buf[pos + 2] << 8;
            pos += 3;
        } else {
            n = tag & 7;
            tag >>= 3;
            pos += 1;
        }
        if (tag == 0x0f) {
            ended = true;
            break;
        }
        if (n > VPD_SPAN - pos)
            break;
        if (tag == 0x82) {
            const char *s;
            size_t sn;
            if (!take(&v, pos, n) || !text_of(buf + pos, n, &s, &sn))
                return -1;
        } else if (tag == 0x90 || tag == 0x91) {
            if (!fields(&v, pos, n, tag == 0x90))
                return -1;
        }
        pos += n;
    }
    /* a serial number comes from a VPD-R resource: libvirt's rule that
     * there be one holds when there is a serial number */
    if (!ended || !v.nserial) {
        out[0] = '\0';
        return -1;
    }
    return (int)v.nserial;
}
