/* libvirt capabilities XML (virConnectGetCapabilities) read with libxml2 into
 * the neutral host description, then nova's rules (discover_rules.c).
 *
 * Safety: the parser runs with XML_PARSE_NONET (no network) and without
 * NOENT, DTDLOAD or HUGE (no entity expansion, no external DTD, libxml2's
 * built-in size and depth limits stay on); a document with any DOCTYPE is
 * refused (libvirt never writes one); input is at most NUMAFIT_INPUT_MAX
 * bytes and DEPTH_MAX levels deep. Errors are captured per call, never
 * printed: a per-context structured error handler and xmlCtxtGetLastError()
 * for the parser's own errors; for the rest (libxml2 reports a failed
 * allocation outside the parser - of the context itself, the input buffer,
 * a tree node or attribute, a URI - through the thread's handler, which
 * prints to stderr by default) the calling thread's structured handler is
 * set for the duration of the call and restored before it returns (libxml2
 * keeps it per thread), so nothing of the library outlives the call.
 *
 * Leniency and deliberate differences from nova's LibvirtConfigCaps*:
 *  - unknown elements and attributes are ignored; <cells> is found by name
 *    (nova takes the first child of <topology>), only <cell> elements count;
 *  - a <cpu> without siblings is its own sibling group (nova: TypeError);
 *  - <memory unit> and <pages unit> are honoured (nova assumes KiB, so a
 *    unit='MiB' cell of 3953 MiB became 3 MiB); power-of-two units only;
 *  - numbers are ASCII decimals (nova's int() also takes a sign, '_' and
 *    other Unicode digits); duplicate ids are refused.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "discover_internal.h"

#ifdef HAVE_LIBVIRT /* configure finds libxml2 together with libvirt */
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "xml_read.h"

#define DEPTH_MAX 64
#define NZ(s)     ((s) ? (const char *)(s) : "(missing)")

struct cctx {
    struct numafit__dhost *d;
    numafit_error_t *err;
    uint64_t *bits;          /* scratch, NUMAFIT__CPU_WORDS words */
    uint32_t ncpus;          /* CPUs read so far */
    struct numafit__xml xml; /* the parse; xml.nomem: libxml2 failed to allocate */
};

static bool name_is(const xmlNode *n, const char *name) {
    return n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

static const xmlNode *child(const xmlNode *n, const char *name) {
    for (const xmlNode *c = n ? n->children : NULL; c; c = c->next)
        if (name_is(c, name))
            return c;
    return NULL;
}

static int bad(struct cctx *x, const xmlNode *n, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int bad(struct cctx *x, const xmlNode *n, int rc, const char *fmt, ...) {
    char where[96], text[256];
    va_list ap;
    snprintf(where, sizeof(where), "line %ld <%s>", n ? xmlGetLineNo((xmlNode *)n) : 0L,
             n ? (const char *)n->name : "");
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    numafit__error_set(x->err, rc == -ERANGE ? NUMAFIT_E_RANGE : NUMAFIT_E_SCHEMA, -1, where, NULL,
                       "%s", text);
    return rc;
}

static int parse_u64(const char *s, uint64_t max, uint64_t *out) {
    return numafit__xml_u64(s, max, true, out);
}

/* Bytes per unit for the power-of-two units libvirt writes, 0 if unknown. */
static uint64_t unit_bytes(const char *u) {
    static const struct {
        const char *name;
        unsigned shift;
    } units[] = {{"b", 0},    {"bytes", 0}, {"k", 10},   {"KiB", 10}, {"M", 20},
                 {"MiB", 20}, {"G", 30},    {"GiB", 30}, {"T", 40},   {"TiB", 40}};
    if (!u)
        return 1024;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (!strcmp(u, units[i].name))
            return 1ull << units[i].shift;
    return 0;
}

static char *attr(struct cctx *x, const xmlNode *n, const char *name) {
    return numafit__xml_attr(&x->xml, n, name);
}

static char *content(struct cctx *x, const xmlNode *n) {
    return numafit__xml_content(&x->xml, n);
}

/* A number in KiB from text/attribute `s` in `unit` (NULL = KiB).
 * exact: refuse values that are not whole KiB. */
static int read_kib(struct cctx *x, const xmlNode *n, const char *what, const char *s,
                    const char *unit, bool exact, uint64_t *out) {
    uint64_t v, mul = unit_bytes(unit);
    int r;
    if (!mul)
        return bad(x, n, -EBADMSG, "%s: unsupported unit '%s' (b, KiB, MiB, GiB, TiB)", what,
                   NZ(unit));
    r = parse_u64(s, UINT64_MAX, &v);
    if (r < 0)
        return bad(x, n, r, "%s: '%.40s' is not an unsigned integer", what, NZ(s));
    if (mul >= 1024) {
        if (v > (1ull << 54) / (mul / 1024))
            return bad(x, n, -ERANGE, "%s: '%.40s' out of range", what, NZ(s));
        *out = v * (mul / 1024);
    } else {
        if (exact && v % 1024)
            return bad(x, n, -EBADMSG, "%s: '%.40s' bytes is not a whole number of KiB", what, s);
        *out = v / 1024;
    }
    return 0;
}

static int read_cpu(struct cctx *x, struct numafit__dcell *c, const xmlNode *n) {
    struct numafit__dcpu *cpu;
    char *v = NULL;
    uint64_t u;
    int r;
    if (x->ncpus++ >= NUMAFIT__CPU_LIMIT)
        return bad(x, n, -ERANGE, "more than %d CPUs", NUMAFIT__CPU_LIMIT);
    if (!(cpu = numafit__dcell_add_cpu(c)))
        return -ENOMEM;
    v = attr(x, n, "id");
    r = parse_u64(v, NUMAFIT_CPU_MAX, &u);
    if (r < 0) {
        r = bad(x, n, r, "%s '%.40s' is not a CPU id (0..16383)", "cpu id", NZ(v));
        goto out;
    }
    cpu->id = (uint32_t)u;
    xmlFree(v);
    if ((v = attr(x, n, "socket_id"))) {
        if ((r = parse_u64(v, INT32_MAX, &u)) < 0) {
            r = bad(x, n, r, "%s: '%.40s' is not an unsigned integer", "socket_id", NZ(v));
            goto out;
        }
        cpu->socket = (int32_t)u;
        xmlFree(v);
    }
    if ((v = attr(x, n, "core_id"))) {
        if ((r = parse_u64(v, INT32_MAX, &u)) < 0) {
            r = bad(x, n, r, "%s: '%.40s' is not an unsigned integer", "core_id", NZ(v));
            goto out;
        }
        cpu->core = (int32_t)u;
        xmlFree(v);
    }
    if ((v = attr(x, n, "siblings"))) {
        numafit_error_t e;
        r = numafit__cpuspec_parse(v, x->bits, &e);
        if (r < 0) {
            r = bad(x, n, r, "%s: '%.60s' is not a cpu list", "siblings", NZ(v));
            goto out;
        }
        if ((r = numafit__dhost_set_siblings(x->d, cpu, x->bits)) == -E2BIG)
            r = bad(x, n, -ERANGE, "sibling lists longer than %u CPUs in all",
                    NUMAFIT__SIBLINGS_MAX);
        if (r < 0)
            goto out;
    }
    r = 0;
out:
    xmlFree(v);
    return r;
}

static int read_cell(struct cctx *x, const xmlNode *n) {
    struct numafit__dcell *c;
    char *v;
    uint64_t u;
    int r;
    if (x->d->ncells >= NUMAFIT_MAX_CELLS)
        return bad(x, n, -ERANGE, "more than %d cells", NUMAFIT_MAX_CELLS);
    if (!(c = numafit__dhost_add_cell(x->d)))
        return -ENOMEM;
    v = attr(x, n, "id");
    r = parse_u64(v, NUMAFIT_CELL_ID_MAX, &u);
    if (r < 0) {
        r = bad(x, n, r, "%s '%.40s' is not a cell id (0..1023)", "cell id", NZ(v));
        xmlFree(v);
        return r;
    }
    xmlFree(v);
    c->id = (int32_t)u;
    for (const xmlNode *e = n->children; e; e = e->next) {
        if (name_is(e, "memory")) {
            char *unit = attr(x, e, "unit"), *text = content(x, e);
            r = read_kib(x, e, "memory", text, unit, false, &c->memory_kib);
            xmlFree(unit);
            xmlFree(text);
            if (r < 0)
                return r;
        } else if (name_is(e, "pages")) {
            char *unit = attr(x, e, "unit"), *size = attr(x, e, "size");
            char *text = content(x, e);
            uint64_t kb = 0, total = 0;
            if (c->npages >= NUMAFIT__PAGES_MAX)
                r = bad(x, e, -ERANGE, "more than %u page sizes", NUMAFIT__PAGES_MAX);
            else
                r = read_kib(x, e, "pages size", size, unit, true, &kb);
            if (r == 0 && (r = parse_u64(text, UINT64_MAX >> 12, &total)) < 0)
                r = bad(x, e, r, "%s: '%.40s' is not an unsigned integer", "pages", NZ(text));
            if (r == 0 && kb == 0)
                r = bad(x, e, -ERANGE, "%s: '%.40s' is not a page size", "pages size", NZ(size));
            xmlFree(unit);
            xmlFree(size);
            xmlFree(text);
            if (r < 0 || (r = numafit__dcell_add_pages(c, kb, total)) < 0)
                return r;
        } else if (name_is(e, "cpus")) {
            for (const xmlNode *p = e->children; p; p = p->next)
                if (name_is(p, "cpu") && (r = read_cpu(x, c, p)) < 0)
                    return r;
        } else if (name_is(e, "distances")) {
            c->has_dist = true;
            for (const xmlNode *p = e->children; p; p = p->next) {
                char *id, *val;
                uint64_t i, d = 0;
                if (!name_is(p, "sibling"))
                    continue;
                if (c->ndist >= NUMAFIT_MAX_CELLS)
                    return bad(x, p, -ERANGE, "more than %d distances", NUMAFIT_MAX_CELLS);
                id = attr(x, p, "id");
                val = attr(x, p, "value");
                r = parse_u64(id, NUMAFIT_CELL_ID_MAX, &i);
                if (r < 0)
                    r = bad(x, p, r, "%s '%.40s' is not a cell id", "sibling id", NZ(id));
                else if ((r = parse_u64(val, UINT32_MAX, &d)) < 0)
                    r = bad(x, p, r, "%s '%.40s' is not a distance", "sibling value", NZ(val));
                xmlFree(id);
                xmlFree(val);
                if (r < 0 || (r = numafit__dcell_add_dist(c, (int64_t)i, (uint32_t)d)) < 0)
                    return r;
            }
        }
    }
    return 0;
}

static int read_doc(struct cctx *x, const xmlDoc *doc) {
    const xmlNode *root = xmlDocGetRootElement((xmlDoc *)doc), *host, *cells, *arch;
    int r;
    if (!root || !name_is(root, "capabilities"))
        return bad(x, root, -EBADMSG, "%s: the root element is <%s>, not <capabilities>",
                   "document", root ? (const char *)root->name : "");
    if (numafit__xml_too_deep(root, DEPTH_MAX))
        return bad(x, root, -EBADMSG, "%s: nested more than %s levels deep", "document", "64");
    if (!(host = child(root, "host")))
        return bad(x, root, -EBADMSG, "%s: no <host> element%s", "capabilities", "");
    arch = child(child(host, "cpu"), "arch");
    /* nova's _has_numa_support(): an architecture it knows; none (no
     * <arch>) is not one of them */
    x->d->unsupported_arch = true;
    if (arch) {
        static const char *const ok[] = {"i686", "x86_64", "aarch64", "ppc64", "ppc64le"};
        char *a = content(x, arch);
        bool supported = false;
        for (size_t i = 0; a && i < sizeof(ok) / sizeof(ok[0]); i++)
            supported = supported || !strcmp(a, ok[i]);
        xmlFree(a);
        x->d->unsupported_arch = !supported;
    }
    cells = child(child(host, "topology"), "cells");
    for (const xmlNode *c = cells ? cells->children : NULL; c; c = c->next)
        if (name_is(c, "cell") && (r = read_cell(x, c)) < 0)
            return r;
    return 0;
}

int numafit__caps_parse(const char *xml, size_t len, struct numafit__dhost *d,
                        numafit_error_t *err) {
    struct cctx x = {d, err, NULL, 0, {0}};
    xmlDocPtr doc = NULL;
    char msg[200];
    int r, line = 0;

    if (len > NUMAFIT_INPUT_MAX) {
        numafit__error_set(err, NUMAFIT_E_RANGE, -1, "", NULL,
                           "input of %zu bytes exceeds the limit %u", len, NUMAFIT_INPUT_MAX);
        return -ERANGE;
    }
    numafit__xml_begin(&x.xml);
    x.bits = numafit__malloc(NUMAFIT__CPU_WORDS * sizeof(uint64_t));
    r = x.bits ? numafit__xml_parse(&x.xml, xml, len, "capabilities.xml", XML_PARSE_NOBLANKS, &doc,
                                    msg, sizeof(msg), &line)
               : -ENOMEM;
    if (r == -EBADMSG)
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, "", NULL, "capabilities XML, line %d: %s",
                           line, msg);
    else if (r == -EPERM)
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, "", NULL,
                           "capabilities XML with a DOCTYPE is refused");
    else if (r == -ENOMEM)
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
    if (r == -EPERM)
        r = -EBADMSG;
    if (r < 0)
        goto out;
    r = read_doc(&x, doc);
    if (x.xml.nomem) { /* whatever read_doc made of the missing value */
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
        r = -ENOMEM;
    }
out:
    xmlFreeDoc(doc);
    numafit__xml_end(&x.xml);
    numafit__free(x.bits);
    if (r < 0)
        numafit__dhost_clear(d);
    return r;
}

#else /* !HAVE_LIBVIRT */

int numafit__caps_parse(const char *xml, size_t len, struct numafit__dhost *d,
                        numafit_error_t *err) {
    (void)xml;
    (void)len;
    (void)d;
    numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "", NULL,
                       "libnumafit was built without libxml2");
    return -ENOTSUP;
}

#endif

NUMAFIT_EXPORT int numafit_host_new_from_caps_xml(const char *xml, size_t len,
                                                  const numafit_hostconf_t *conf,
                                                  const char *online, unsigned flags,
                                                  numafit_host_t **ret, numafit_error_t *err) {
    struct numafit__dhost d;
    uint64_t *on = NULL;
    int r;

    numafit__error_clear(err);
    if (!xml || !ret || (flags & ~(unsigned)NUMAFIT__DISCOVER_FLAGS) || len > INT32_MAX) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "", NULL, "invalid argument");
        return -EINVAL;
    }
    memset(&d, 0, sizeof(d));
    if ((r = numafit__discover_check_conf(conf, err)) < 0)
        return r;
    if (online) {
        on = numafit__malloc(NUMAFIT__CPU_WORDS * sizeof(uint64_t));
        if (!on) {
            r = -ENOMEM;
            goto out;
        }
        r = numafit__cpuspec_parse(online, on, err);
        if (r < 0) {
            if (err)
                snprintf(err->where, sizeof(err->where), "online");
            goto out;
        }
    }
    r = numafit__caps_parse(xml, len, &d, err);
    if (r == 0)
        r = numafit__discover_build(&d, on, conf, flags, ret, err);
out:
    if (r == -ENOMEM)
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
    numafit__dhost_clear(&d);
    numafit__free(on);
    return r;
}
