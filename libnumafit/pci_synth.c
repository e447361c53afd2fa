/*
 * PCI device pools of a synthetic host: the `pci:` tokens of a synthetic
 * host spec (numafit_host_new_synthetic() checks and skips them), for
 * what-if planning of SR-IOV and GPU hosts without a capture.
 *
 *   pci:VENDOR:PRODUCT[:TYPE[:PHYSNET]]=COUNT[@CELLS]
 *
 * COUNT devices on each of CELLS (host cell ids separated by commas, or
 * `none`: the kernel does not know the devices' node; default: every cell
 * of the host). TYPE is pci (type-PCI, the default), pf (type-PF), vf
 * (type-VF) or vdpa; PHYSNET the physical_network tag. The pools are the
 * ones nova's compute node would report for such devices: vendor and
 * product ids, numa_node, dev_type, physical_network and, for a PF, VF or
 * vdpa device, remote_managed "false".
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "pci_internal.h"
#include "private.h"

#define SYNTH_CELLS_MAX 64 /* cells one token names */

struct synth_pci {
    char vendor[5], product[5];
    const char *dev_type;
    char physnet[65];
    int64_t count;
    uint32_t ncells;
    int64_t cells[SYNTH_CELLS_MAX];
    bool all_cells, no_node;
};

static bool hex4(const char *s, size_t n, char out[5]) {
    if (n != 4)
        return false;
    for (size_t i = 0; i < 4; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'F')
            c = (char)(c - 'A' + 'a');
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
        out[i] = c;
    }
    out[4] = '\0';
    return true;
}

static bool parse_int(const char *s, size_t n, int64_t max, int64_t *ret) {
    int64_t v = 0;
    if (n == 0 || n > 10)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    if (v > max)
        return false;
    *ret = v;
    return true;
}

static int bad(numafit_error_t *err, const char *tok, size_t n, const char *text) {
    numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "pci", NULL,
                       "synthetic host: %.*s: %s (pci:VENDOR:PRODUCT[:TYPE[:PHYSNET]]="
                       "COUNT[@CELLS], e.g. pci:8086:154c:vf:physnet1=16@0)",
                       (int)(n > 80 ? 80 : n), tok, text);
    return -EINVAL;
}

/* Parse one `pci:` token (n bytes from tok, "pci:" included). */
static int synth_token(const char *tok, size_t n, struct synth_pci *s, numafit_error_t *err) {
    const char *p = tok + 4, *end = tok + n, *eq, *at, *f[4];
    size_t fl[4], nf = 0;

    memset(s, 0, sizeof(*s));
    if (n < 4 || memcmp(tok, "pci:", 4) != 0)
        return bad(err, tok, n, "not a pci: token");
    eq = memchr(p, '=', (size_t)(end - p));
    if (!eq)
        return bad(err, tok, n, "no =COUNT");
    /* the fields before '=' */
    while (p < eq) {
        const char *c = memchr(p, ':', (size_t)(eq - p));
        const char *e = c ? c : eq;
        if (nf == 4)
            return bad(err, tok, n, "too many fields");
        f[nf] = p;
        fl[nf++] = (size_t)(e - p);
        p = c ? c + 1 : eq;
        if (c && p == eq)
            return bad(err, tok, n, "an empty field");
    }
    if (nf < 2 || !hex4(f[0], fl[0], s->vendor) || !hex4(f[1], fl[1], s->product))
        return bad(err, tok, n, "VENDOR and PRODUCT are four hexadecimal digits");
    s->dev_type = "type-PCI";
    if (nf > 2) {
        static const char *const names[][2] = {{"pci", "type-PCI"},      {"pf", "type-PF"},
                                               {"vf", "type-VF"},        {"vdpa", "vdpa"},
                                               {"type-PCI", "type-PCI"}, {"type-PF", "type-PF"},
                                               {"type-VF", "type-VF"}};
        s->dev_type = NULL;
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
            if (fl[2] == strlen(names[i][0]) && !memcmp(f[2], names[i][0], fl[2]))
                s->dev_type = names[i][1];
        if (!s->dev_type)
            return bad(err, tok, n, "TYPE is pci, pf, vf or vdpa");
    }
    if (nf > 3) {
        if (fl[3] == 0 || fl[3] >= sizeof(s->physnet))
            return bad(err, tok, n, "PHYSNET is 1 to 64 characters");
        for (size_t i = 0; i < fl[3]; i++) {
            unsigned char c = (unsigned char)f[3][i];
            if (c <= ' ' || c >= 0x7f || c == '@' || c == '=' || c == ',' || c == '"' || c == '\\')
                return bad(err, tok, n, "PHYSNET is printable ASCII without @ = , \" \\");
        }
        memcpy(s->physnet, f[3], fl[3]);
    }
    /* =COUNT[@CELLS] */
    at = memchr(eq + 1, '@', (size_t)(end - eq - 1));
    if (!parse_int(eq + 1, (size_t)((at ? at : end) - eq - 1), 65536, &s->count))
        return bad(err, tok, n, "COUNT is an integer from 0 to 65536");
    if (!at) {
        s->all_cells = true;
        return 0;
    }
    p = at + 1;
    if ((size_t)(end - p) == 4 && !memcmp(p, "none", 4)) {
        s->no_node = true;
        return 0;
    }
    while (p <= end) {
        const char *c = memchr(p, ',', (size_t)(end - p));
        const char *e = c ? c : end;
        int64_t id;
        if (s->ncells == SYNTH_CELLS_MAX)
            return bad(err, tok, n, "more than 64 cells");
        if (!parse_int(p, (size_t)(e - p), NUMAFIT_CELL_ID_MAX, &id))
            return bad(err, tok, n, "CELLS are host cell ids separated by commas, or none");
        for (uint32_t i = 0; i < s->ncells; i++)
            if (s->cells[i] == id)
                return bad(err, tok, n, "a cell is named twice");
        s->cells[s->ncells++] = id;
        if (!c)
            break;
        p = c + 1;
    }
    return 0;
}

int numafit__pci_synth_check(const char *tok, size_t n, numafit_error_t *err) {
    struct synth_pci s;
    return synth_token(tok, n, &s, err);
}

/* Add count devices of s on node (-1: none) to the flat pool list, merged
 * with an identical pool. */
static int add_pool(json_t *list, const struct synth_pci *s, int64_t node) {
    size_t i;
    json_t *o;
    json_array_foreach(list, i, o) {
        json_t *nn = json_object_get(o, "numa_node");
        json_t *pn = json_object_get(o, "physical_network");
        if (strcmp(json_string_value(json_object_get(o, "vendor_id")), s->vendor) != 0 ||
            strcmp(json_string_value(json_object_get(o, "product_id")), s->product) != 0 ||
            strcmp(json_string_value(json_object_get(o, "dev_type")), s->dev_type) != 0 ||
            (node < 0 ? !json_is_null(nn) : json_integer_value(nn) != node || json_is_null(nn)) ||
            (s->physnet[0] ? !pn || strcmp(json_string_value(pn), s->physnet) != 0 : pn != NULL))
            continue;
        return json_object_set_new(
            o, "count", json_integer(json_integer_value(json_object_get(o, "count")) + s->count));
    }
    o = json_pack("{sssssosIss}", "vendor_id", s->vendor, "product_id", s->product, "numa_node",
                  node < 0 ? json_null() : json_integer(node), "count", (json_int_t)s->count,
                  "dev_type", s->dev_type);
    if (!o)
        return -1;
    if ((s->physnet[0] && json_object_set_new(o, "physical_network", json_string(s->physnet))) ||
        (strcmp(s->dev_type, "type-PCI") != 0 &&
         json_object_set_new(o, "remote_managed", json_string("false"))) ||
        json_array_append_new(list, o))
        return -1;
    return 0;
}

NUMAFIT_EXPORT int numafit_pci_pools_new_from_spec(const char *spec, const numafit_host_t *host,
                                                   unsigned flags, numafit_pci_pools_t **ret,
                                                   numafit_error_t *err) {
    json_t *list = NULL;
    const char *p = spec;
    char *txt = NULL;
    int ncells, rc = -ENOMEM;

    numafit__error_clear(err);
    if (!spec || !host || !ret || flags) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL,
                           flags ? "unknown flag bits" : "a spec, a host and ret are required");
        return -EINVAL;
    }
    *ret = NULL;
    ncells = numafit_host_get_cell_count(host);
    if (ncells < 0 || !(list = json_array()))
        goto nomem;
    while (*p) {
        const char *tok;
        size_t n;
        struct synth_pci s;
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        tok = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        n = (size_t)(p - tok);
        if (n < 4 || memcmp(tok, "pci:", 4) != 0)
            continue;
        if ((rc = synth_token(tok, n, &s, err)) < 0)
            goto out;
        if (json_array_size(list) + (s.all_cells ? (size_t)ncells : s.ncells) >
            NUMAFIT_PCI_POOLS_MAX) {
            bad(err, tok, n, "more than 4096 pools");
            rc = -ERANGE;
            goto out;
        }
        if (s.no_node) {
            if (add_pool(list, &s, -1) < 0)
                goto nomem;
        } else if (s.all_cells) {
            for (int i = 0; i < ncells; i++)
                if (add_pool(list, &s, numafit_host_get_cell_id(host, (unsigned)i)) < 0)
                    goto nomem;
        } else {
            for (uint32_t k = 0; k < s.ncells; k++) {
                bool found = false;
                for (int i = 0; i < ncells && !found; i++)
                    found = numafit_host_get_cell_id(host, (unsigned)i) == s.cells[k];
                if (!found) {
                    char why[80];
                    snprintf(why, sizeof(why), "the host has no cell %lld", (long long)s.cells[k]);
                    rc = bad(err, tok, n, why);
                    goto out;
                }
                if (add_pool(list, &s, s.cells[k]) < 0)
                    goto nomem;
            }
        }
    }
    txt = json_dumps(list, JSON_COMPACT);
    if (!txt)
        goto nomem;
    rc = numafit_pci_pools_new_from_json(txt, strlen(txt), 0, ret, err);
    goto out;
nomem:
    rc = -ENOMEM;
    numafit__error_set(err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
out:
    free(txt);
    json_decref(list);
    return rc;
}
