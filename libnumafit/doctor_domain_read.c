/* Host doctor, running domains: read a guest's libvirt domain XML (virsh
 * dumpxml) into struct ddom for doctor_domain.c. Only what nova's libvirt
 * driver writes about CPUs and memory is read: <name>, <uuid>, <memory>,
 * <vcpu>, <cputune> (vcpupin, emulatorpin, vcpusched), <numatune> (memory,
 * memnode), <memoryBacking> (hugepages, locked, nosharepages), <cpu><numa>
 * cells, and nova's <metadata><nova:instance> (name, flavor, its vcpus,
 * memory and, from newer nova, extraSpecs). Every element read is checked
 * as libvirt would check it, and refused with an error naming it; other
 * elements are ignored. The parse is the library's (xml_read.c): no
 * network, no DTD, no DOCTYPE, at most NUMAFIT_INPUT_MAX bytes and 64
 * levels of nesting. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "doctor_internal.h"

void numafit__ddom_clear(struct ddom *d) {
    for (uint32_t i = 0; i < d->ncells; i++)
        numafit__free(d->cells[i].vcpus);
    for (uint32_t i = 0; i < d->nsets; i++)
        numafit__free(d->sets[i]);
    numafit__free(d->vcpu_cpuset);
    numafit__free(d->pin);
    numafit__free(d->emu);
    numafit__free(d->rt);
    json_decref(d->specs);
    memset(d, 0, sizeof(*d));
}

#ifdef HAVE_LIBVIRT /* configure finds libxml2 together with libvirt */
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "xml_read.h"

#define DEPTH_MAX 64
#define NOVA_NS   "http://openstack.org/xmlns/libvirt/nova/"
#define NZ(s)     ((s) ? (const char *)(s) : "(missing)")
#define BITS_SZ   (NUMAFIT__CPU_WORDS * sizeof(uint64_t))

struct rctx {
    struct ddom *d;
    unsigned index; /* the domain's position in the call */
    numafit_error_t *err;
    struct numafit__xml xml;
    uint64_t *tmp; /* NUMAFIT__CPU_WORDS words */
};

static bool name_is(const xmlNode *n, const char *name) {
    return n->type == XML_ELEMENT_NODE && !n->ns && !strcmp((const char *)n->name, name);
}

static bool nova_is(const xmlNode *n, const char *name) {
    return n->type == XML_ELEMENT_NODE && n->ns && n->ns->href &&
           !strncmp((const char *)n->ns->href, NOVA_NS, strlen(NOVA_NS)) &&
           !strcmp((const char *)n->name, name);
}

static const xmlNode *child(const xmlNode *n, const char *name) {
    for (const xmlNode *c = n ? n->children : NULL; c; c = c->next)
        if (name_is(c, name))
            return c;
    return NULL;
}

static int bad(struct rctx *x, const xmlNode *n, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int bad(struct rctx *x, const xmlNode *n, int rc, const char *fmt, ...) {
    char where[96], text[224];
    va_list ap;
    snprintf(where, sizeof(where), "domains[%u] line %ld <%.40s>", x->index,
             n ? xmlGetLineNo((xmlNode *)n) : 0L, n ? (const char *)n->name : "domain");
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    numafit__error_set(x->err, rc == -ERANGE ? NUMAFIT_E_RANGE : NUMAFIT_E_SCHEMA, -1, where, NULL,
                       "line %ld, <%.40s>: %s", n ? xmlGetLineNo((xmlNode *)n) : 0L,
                       n ? (const char *)n->name : "domain", text);
    return rc;
}

static bool is_space(unsigned char c) {
    return c == ' ' || (c >= '\t' && c <= '\r');
}

static int parse_u64(const char *s, uint64_t max, uint64_t *out) {
    return numafit__xml_u64(s, max, false, out);
}

static char *attr(struct rctx *x, const xmlNode *n, const char *name) {
    return numafit__xml_attr(&x->xml, n, name);
}

static char *content(struct rctx *x, const xmlNode *n) {
    return numafit__xml_content(&x->xml, n);
}

/* A size with libvirt's units (KiB when unit is NULL) into KiB, rounded up
 * as libvirt rounds. */
static int read_kib(struct rctx *x, const xmlNode *n, const char *what, const char *s,
                    const char *unit, uint64_t *out) {
    static const struct {
        const char *name;
        uint64_t bytes;
    } units[] = {{"b", 1},          {"bytes", 1},        {"KB", 1000},
                 {"k", 1024},       {"KiB", 1024},       {"MB", 1000000},
                 {"M", 1ull << 20}, {"MiB", 1ull << 20}, {"GB", 1000000000},
                 {"G", 1ull << 30}, {"GiB", 1ull << 30}, {"TB", 1000000000000ull},
                 {"T", 1ull << 40}, {"TiB", 1ull << 40}};
    uint64_t mul = unit ? 0 : 1024, v;
    int r;
    for (size_t i = 0; unit && i < sizeof(units) / sizeof(units[0]); i++)
        if (!strcmp(unit, units[i].name))
            mul = units[i].bytes;
    if (!mul)
        return bad(x, n, -EBADMSG, "%s: unit '%.20s' is not one of libvirt's", what, unit);
    if ((r = parse_u64(s, UINT64_MAX, &v)) < 0)
        return bad(x, n, r, "%s '%.40s' is not an unsigned integer", what, NZ(s));
    /* at most 2^62 bytes (4 EiB) */
    if (v > (1ull << 62) / mul)
        return bad(x, n, -ERANGE, "%s '%.40s' %s is too large", what, s, unit ? unit : "KiB");
    *out = (v * mul + 1023) / 1024;
    return 0;
}

/* A cpuset-like list ("0-3,^2,8") into x->tmp; max: the highest id allowed. */
static int read_list(struct rctx *x, const xmlNode *n, const char *what, const char *s,
                     unsigned max, bool empty_ok) {
    int r, last;
    if (!s)
        return bad(x, n, -EBADMSG, "%s is missing", what);
    r = numafit__cpuspec_parse(s, x->tmp, NULL);
    if (r == -ERANGE || (r == 0 && (last = numafit__bits_last(x->tmp, NUMAFIT__CPU_WORDS)) >= 0 &&
                         (unsigned)last > max))
        return bad(x, n, -ERANGE, "%s '%.60s': an id above %u", what, s, max);
    if (r < 0)
        return bad(x, n, -EBADMSG, "%s '%.60s' is not a list like 0-3,^2,8", what, s);
    if (!empty_ok && numafit__bits_empty(x->tmp, NUMAFIT__CPU_WORDS))
        return bad(x, n, -EBADMSG, "%s '%.60s' names nothing", what, s);
    return 0;
}

static uint64_t *new_bits(struct rctx *x) {
    uint64_t *b = numafit__calloc(NUMAFIT__CPU_WORDS, sizeof(uint64_t));
    if (!b)
        x->xml.nomem = true;
    return b;
}

static void copy_text(char *dst, size_t cap, const char *s) {
    size_t n = strlen(s);
    while (n && is_space((unsigned char)s[n - 1]))
        n--;
    while (n && is_space((unsigned char)*s)) {
        s++;
        n--;
    }
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

/* <name>, <uuid> */
static int read_names(struct rctx *x, const xmlNode *root) {
    const xmlNode *n = child(root, "name");
    char *v;
    if (!n)
        return bad(x, root, -EBADMSG, "no <name>");
    if (!(v = content(x, n)))
        return -ENOMEM;
    copy_text(x->d->name, sizeof(x->d->name), v);
    xmlFree(v);
    if (!x->d->name[0])
        return bad(x, n, -EBADMSG, "the name is empty");
    if ((n = child(root, "uuid"))) {
        if (!(v = content(x, n)))
            return -ENOMEM;
        copy_text(x->d->uuid, sizeof(x->d->uuid), v);
        xmlFree(v);
    }
    return 0;
}

/* <memory>, <vcpu> */
static int read_sizes(struct rctx *x, const xmlNode *root) {
    const xmlNode *n = child(root, "memory");
    char *v = NULL, *u = NULL;
    uint64_t k;
    int r = 0;
    if (n) {
        if (!(v = content(x, n)))
            return -ENOMEM;
        u = attr(x, n, "unit");
        r = read_kib(x, n, "memory", v, u, &x->d->mem_kib);
        xmlFree(v);
        xmlFree(u);
        if (r < 0)
            return r;
    }
    x->d->vcpus = 1; /* libvirt's default */
    if (!(n = child(root, "vcpu")))
        return 0;
    if (!(v = content(x, n)))
        return -ENOMEM;
    r = parse_u64(v, NUMAFIT_VCPUS_MAX, &k);
    if (r < 0 || k == 0)
        r = bad(x, n, r < 0 ? r : -EBADMSG, "'%.40s' is not a vCPU count (1..%d)", v,
                NUMAFIT_VCPUS_MAX);
    xmlFree(v);
    if (r < 0)
        return r;
    x->d->vcpus = (uint32_t)k;
    if ((u = attr(x, n, "placement"))) {
        x->d->placement_auto = !strcmp(u, "auto");
        if (!x->d->placement_auto && strcmp(u, "static"))
            r = bad(x, n, -EBADMSG, "placement '%.20s' is not static or auto", u);
        xmlFree(u);
        if (r < 0)
            return r;
    }
    if ((u = attr(x, n, "cpuset"))) {
        r = read_list(x, n, "cpuset", u, NUMAFIT_CPU_MAX, false);
        xmlFree(u);
        if (r < 0)
            return r;
        if (!(x->d->vcpu_cpuset = new_bits(x)))
            return -ENOMEM;
        memcpy(x->d->vcpu_cpuset, x->tmp, BITS_SZ);
        x->d->has_vcpu_cpuset = true;
    }
    return 0;
}

/* The vCPU attribute of <vcpupin> */
static int read_vcpu_id(struct rctx *x, const xmlNode *n, uint32_t *out) {
    char *v = attr(x, n, "vcpu");
    uint64_t k = 0;
    int r = v ? parse_u64(v, UINT32_MAX, &k) : -EBADMSG;
    if (r < 0 || k >= x->d->vcpus)
        r = bad(x, n, r == -EBADMSG ? r : -ERANGE,
                "vcpu '%.40s' is not a vCPU of the domain (0..%u)", NZ(v), x->d->vcpus - 1);
    xmlFree(v);
    *out = (uint32_t)k;
    return r < 0 ? r : 0;
}

/* x->tmp as a vCPU's pin: one CPU, or one of the distinct sets */
static int pin_value(struct rctx *x, const xmlNode *n, int32_t *out) {
    struct ddom *d = x->d;
    if (numafit__bits_count(x->tmp, NUMAFIT__CPU_WORDS) == 1) {
        *out = numafit__bits_next(x->tmp, NUMAFIT__CPU_WORDS, -1);
        return 0;
    }
    for (uint32_t s = 0; s < d->nsets; s++)
        if (numafit__bits_equal(d->sets[s], x->tmp, NUMAFIT__CPU_WORDS)) {
            *out = DDOM_PIN_SET0 - (int32_t)s;
            return 0;
        }
    if (d->nsets >= DDOM_SETS_MAX)
        return bad(x, n, -ERANGE, "more than %u different multi-CPU vcpupin cpusets",
                   DDOM_SETS_MAX);
    if (!(d->sets[d->nsets] = new_bits(x)))
        return -ENOMEM;
    memcpy(d->sets[d->nsets], x->tmp, BITS_SZ);
    *out = DDOM_PIN_SET0 - (int32_t)d->nsets++;
    return 0;
}

static int read_vcpusched(struct rctx *x, const xmlNode *n) {
    struct ddom *d = x->d;
    char *vs = attr(x, n, "vcpus"), *sch = attr(x, n, "scheduler"), *pr = attr(x, n, "priority");
    uint64_t prio = 0;
    bool rt;
    int r = 0;
    if (!sch) {
        r = bad(x, n, -EBADMSG, "scheduler is missing");
        goto out;
    }
    rt = !strcmp(sch, "fifo") || !strcmp(sch, "rr");
    if (!rt && strcmp(sch, "batch") && strcmp(sch, "idle") && strcmp(sch, "other")) {
        r = bad(x, n, -EBADMSG, "scheduler '%.20s' is not batch, idle, fifo, rr or other", sch);
        goto out;
    }
    if (rt && (!pr || parse_u64(pr, 99, &prio) < 0 || prio < 1)) {
        r = bad(x, n, -EBADMSG, "priority '%.20s' of a %s scheduler is not 1..99", NZ(pr), sch);
        goto out;
    }
    if (vs) {
        if ((r = read_list(x, n, "vcpus", vs, d->vcpus - 1, false)) < 0)
            goto out;
    } else {
        memset(x->tmp, 0, BITS_SZ);
        for (uint32_t v = 0; v < d->vcpus; v++)
            numafit__bit_set(x->tmp, v);
    }
    if (!rt)
        goto out;
    if (numafit__bits_intersects(d->rt, x->tmp, NUMAFIT__CPU_WORDS)) {
        r = bad(x, n, -EBADMSG, "vcpus '%.40s' overlap another <vcpusched>", NZ(vs));
        goto out;
    }
    for (unsigned k = 0; k < NUMAFIT__CPU_WORDS; k++)
        d->rt[k] |= x->tmp[k];
    if (!d->rt_prio || (int)prio < d->rt_prio)
        d->rt_prio = (int)prio;
out:
    xmlFree(vs);
    xmlFree(sch);
    xmlFree(pr);
    return r;
}

static int read_cputune(struct rctx *x, const xmlNode *root) {
    struct ddom *d = x->d;
    const xmlNode *t = child(root, "cputune");
    int r;
    if (!(d->pin = numafit__malloc((size_t)d->vcpus * sizeof(int32_t))) ||
        !(d->emu = new_bits(x)) || !(d->rt = new_bits(x)))
        return -ENOMEM;
    for (uint32_t v = 0; v < d->vcpus; v++)
        d->pin[v] = DDOM_PIN_NONE;
    for (const xmlNode *n = t ? t->children : NULL; n; n = n->next) {
        char *cs;
        if (name_is(n, "vcpupin")) {
            uint32_t v;
            if ((r = read_vcpu_id(x, n, &v)) < 0)
                return r;
            if (d->pin[v] != DDOM_PIN_NONE)
                return bad(x, n, -EBADMSG, "vCPU %u is pinned twice", v);
            cs = attr(x, n, "cpuset");
            r = read_list(x, n, "cpuset", cs, NUMAFIT_CPU_MAX, false);
            xmlFree(cs);
            if (r < 0 || (r = pin_value(x, n, &d->pin[v])) < 0)
                return r;
        } else if (name_is(n, "emulatorpin")) {
            if (d->has_emu)
                return bad(x, n, -EBADMSG, "a second <emulatorpin>");
            cs = attr(x, n, "cpuset");
            r = read_list(x, n, "cpuset", cs, NUMAFIT_CPU_MAX, false);
            xmlFree(cs);
            if (r < 0)
                return r;
            memcpy(d->emu, x->tmp, BITS_SZ);
            d->has_emu = true;
        } else if (name_is(n, "vcpusched")) {
            if ((r = read_vcpusched(x, n)) < 0)
                return r;
        }
    }
    return 0;
}

/* <cpu><numa><cell id cpus memory unit memAccess/> */
static int read_cell(struct rctx *x, const xmlNode *n) {
    struct ddom *d = x->d;
    struct ddom_cell *c;
    char *id = attr(x, n, "id"), *cpus = NULL, *mem = NULL, *unit = NULL, *acc = NULL;
    uint64_t k;
    int r = 0;
    if (d->ncells >= DDOM_CELLS_MAX) {
        r = bad(x, n, -ERANGE, "more than %u NUMA cells", DDOM_CELLS_MAX);
        goto out;
    }
    c = &d->cells[d->ncells];
    /* libvirt numbers cells 0, 1, ... in order; an id must say the same */
    if (id && (parse_u64(id, UINT32_MAX, &k) < 0 || k != d->ncells)) {
        r = bad(x, n, -EBADMSG, "id '%.20s' is not %u (cells are numbered in order)", id,
                d->ncells);
        goto out;
    }
    cpus = attr(x, n, "cpus");
    if (!cpus) {
        r = bad(x, n, -EBADMSG, "cell %u: cpus is missing", d->ncells);
        goto out;
    }
    if ((r = read_list(x, n, "cpus", cpus, d->vcpus - 1, false)) < 0)
        goto out;
    for (uint32_t i = 0; i < d->ncells; i++)
        if (numafit__bits_intersects(d->cells[i].vcpus, x->tmp, NUMAFIT__CPU_WORDS)) {
            r = bad(x, n, -EBADMSG, "cell %u: cpus '%.40s' overlap cell %u", d->ncells, cpus, i);
            goto out;
        }
    if (!(c->vcpus = new_bits(x))) {
        r = -ENOMEM;
        goto out;
    }
    memcpy(c->vcpus, x->tmp, BITS_SZ);
    d->ncells++;
    mem = attr(x, n, "memory");
    unit = attr(x, n, "unit");
    if (!mem) {
        r = bad(x, n, -EBADMSG, "cell %u: memory is missing", d->ncells - 1);
        goto out;
    }
    if ((r = read_kib(x, n, "memory", mem, unit, &c->mem_kib)) < 0)
        goto out;
    if ((acc = attr(x, n, "memAccess"))) {
        if (strcmp(acc, "shared") && strcmp(acc, "private")) {
            r = bad(x, n, -EBADMSG, "memAccess '%.20s' is not shared or private", acc);
            goto out;
        }
        c->shared_access = !strcmp(acc, "shared");
    }
out:
    xmlFree(id);
    xmlFree(cpus);
    xmlFree(mem);
    xmlFree(unit);
    xmlFree(acc);
    return r;
}

static int read_cells(struct rctx *x, const xmlNode *root) {
    const xmlNode *numa = child(child(root, "cpu"), "numa");
    uint64_t sum = 0;
    int r;
    for (const xmlNode *n = numa ? numa->children : NULL; n; n = n->next)
        if (name_is(n, "cell") && (r = read_cell(x, n)) < 0)
            return r;
    for (uint32_t i = 0; i < x->d->ncells; i++)
        sum += x->d->cells[i].mem_kib;
    if (x->d->ncells && !x->d->mem_kib)
        x->d->mem_kib = sum; /* libvirt takes the cells' sum */
    if (!x->d->mem_kib)
        return bad(x, root, -EBADMSG, "no <memory> and no NUMA cell memory");
    return 0;
}

/* A mode attribute of <numatune> into out */
static int read_mode(struct rctx *x, const xmlNode *n, char *out, size_t cap) {
    static const char *const modes[] = {"strict", "preferred", "interleave", "restrictive"};
    char *m = attr(x, n, "mode");
    bool ok = !m;
    for (size_t i = 0; m && i < sizeof(modes) / sizeof(modes[0]); i++)
        ok = ok || !strcmp(m, modes[i]);
    if (!ok) {
        int r = bad(x, n, -EBADMSG,
                    "mode '%.20s' is not strict, preferred, interleave or "
                    "restrictive",
                    m);
        xmlFree(m);
        return r;
    }
    snprintf(out, cap, "%s", m ? m : "strict");
    xmlFree(m);
    return 0;
}

static int read_nodeset(struct rctx *x, const xmlNode *n, bool required, uint64_t *out, bool *has) {
    char *ns = attr(x, n, "nodeset");
    int r = 0;
    if (ns || required)
        r = read_list(x, n, "nodeset", ns, NUMAFIT_CELL_ID_MAX, false);
    if (ns && r == 0) {
        memcpy(out, x->tmp, DDOM_NODE_W * sizeof(uint64_t));
        *has = true;
    }
    xmlFree(ns);
    return r;
}

static int read_numatune(struct rctx *x, const xmlNode *root) {
    struct ddom *d = x->d;
    const xmlNode *t = child(root, "numatune");
    bool seen_memory = false;
    int r;
    for (const xmlNode *n = t ? t->children : NULL; n; n = n->next) {
        if (name_is(n, "memory")) {
            if (seen_memory)
                return bad(x, n, -EBADMSG, "a second <memory> in <numatune>");
            seen_memory = true;
            if ((r = read_mode(x, n, d->mem_mode, sizeof(d->mem_mode))) < 0 ||
                (r = read_nodeset(x, n, false, d->mem_nodes, &d->has_mem_nodes)) < 0)
                return r;
        } else if (name_is(n, "memnode")) {
            char *ci = attr(x, n, "cellid");
            uint64_t k = 0;
            struct ddom_cell *c;
            r = ci ? parse_u64(ci, UINT32_MAX, &k) : -EBADMSG;
            if (r < 0 || k >= d->ncells)
                r = bad(x, n, -EBADMSG, "cellid '%.20s' is not a NUMA cell of the domain (%u)",
                        NZ(ci), d->ncells);
            xmlFree(ci);
            if (r < 0)
                return r;
            c = &d->cells[k];
            if (c->has_memnode)
                return bad(x, n, -EBADMSG, "a second <memnode> for cell %llu",
                           (unsigned long long)k);
            if ((r = read_mode(x, n, c->memnode_mode, sizeof(c->memnode_mode))) < 0 ||
                (r = read_nodeset(x, n, true, c->nodes, &c->has_memnode)) < 0)
                return r;
        }
    }
    return 0;
}

static int read_pages(struct rctx *x, const xmlNode *hp) {
    struct ddom *d = x->d;
    uint32_t npages = 0;
    int r;
    for (const xmlNode *n = hp->children; n; n = n->next) {
        char *sz, *unit;
        uint64_t kb = 0;
        bool has = false;
        if (!name_is(n, "page"))
            continue;
        if (++npages > DDOM_PAGES_MAX)
            return bad(x, n, -ERANGE, "more than %u <page> elements", DDOM_PAGES_MAX);
        sz = attr(x, n, "size");
        unit = attr(x, n, "unit");
        r = sz ? read_kib(x, n, "size", sz, unit, &kb) : bad(x, n, -EBADMSG, "size is missing");
        xmlFree(sz);
        xmlFree(unit);
        if (r < 0)
            return r;
        if (kb < 4 || (kb & (kb - 1)))
            return bad(x, n, -EBADMSG, "page size %llu KiB is not a power of two of 4 KiB or more",
                       (unsigned long long)kb);
        memset(x->tmp, 0, BITS_SZ);
        if ((r = read_nodeset(x, n, false, x->tmp, &has)) < 0)
            return r;
        if (!has && !d->ncells) { /* the whole guest, without NUMA cells */
            if (d->page_kb)
                return bad(x, n, -EBADMSG, "a second page size for the whole guest");
            d->page_kb = kb;
            continue;
        }
        if (!has) /* no nodeset: every cell */
            for (uint32_t i = 0; i < d->ncells; i++)
                numafit__bit_set(x->tmp, i);
        for (uint32_t i = 0; i < NUMAFIT_CELL_ID_MAX + 1; i++) {
            if (!numafit__bit_test(x->tmp, i))
                continue;
            if (i >= d->ncells)
                return bad(x, n, -EBADMSG,
                           "nodeset names guest NUMA cell %u, which the "
                           "domain does not have (%u)",
                           i, d->ncells);
            if (d->cells[i].page_kb)
                return bad(x, n, -EBADMSG, "a second page size for guest NUMA cell %u", i);
            d->cells[i].page_kb = kb;
        }
    }
    return 0;
}

static int read_backing(struct rctx *x, const xmlNode *root) {
    const xmlNode *mb = child(root, "memoryBacking"), *hp;
    if (!mb)
        return 0;
    x->d->locked = child(mb, "locked") != NULL;
    x->d->nosharepages = child(mb, "nosharepages") != NULL;
    if (!(hp = child(mb, "hugepages")))
        return 0;
    x->d->hugepages = true;
    return read_pages(x, hp);
}

/* <metadata><nova:instance>: nova's name for the instance and its flavor */
static int read_nova_flavor(struct rctx *x, const xmlNode *f) {
    struct ddom *d = x->d;
    char *v = attr(x, f, "name");
    int r = 0;
    if (v)
        copy_text(d->flavor, sizeof(d->flavor), v);
    xmlFree(v);
    for (const xmlNode *n = f->children; n && r == 0; n = n->next) {
        uint64_t k;
        if (nova_is(n, "memory") || nova_is(n, "vcpus")) {
            bool mem = nova_is(n, "memory");
            if (!(v = content(x, n)))
                return -ENOMEM;
            if ((r = parse_u64(v, mem ? (1ull << 44) : NUMAFIT_VCPUS_MAX, &k)) < 0)
                r = bad(x, n, r, "'%.40s' is not a %s", v, mem ? "size in MiB" : "vCPU count");
            else if (mem)
                d->nova_mem_mib = (int64_t)k;
            else
                d->nova_vcpus = (int64_t)k;
            xmlFree(v);
        } else if (nova_is(n, "extraSpecs")) {
            if (!d->specs && !(d->specs = json_object()))
                return -ENOMEM;
            for (const xmlNode *e = n->children; e && r == 0; e = e->next) {
                char *key;
                json_t *js;
                if (!nova_is(e, "extraSpec"))
                    continue;
                if (json_object_size(d->specs) >= 4096)
                    return bad(x, e, -ERANGE, "more than 4096 extra specs");
                if (!(key = attr(x, e, "name")))
                    return x->xml.nomem ? -ENOMEM : bad(x, e, -EBADMSG, "name is missing");
                if (!(v = content(x, e))) {
                    xmlFree(key);
                    return -ENOMEM;
                }
                if (!*key)
                    r = bad(x, e, -EBADMSG, "an extra spec with an empty name");
                else if (!numafit__utf8_ok(key, strlen(key)) || !numafit__utf8_ok(v, strlen(v)))
                    r = bad(x, e, -EBADMSG, "extra spec '%.60s' is not UTF-8", key);
                else if (!(js = json_string(v)) || json_object_set_new(d->specs, key, js) < 0)
                    r = -ENOMEM; /* json_object_set_new() took js */
                xmlFree(key);
                xmlFree(v);
            }
        }
    }
    return r;
}

static int read_nova(struct rctx *x, const xmlNode *root) {
    struct ddom *d = x->d;
    const xmlNode *md = child(root, "metadata"), *inst = NULL;
    char *v;
    int r;
    d->nova_vcpus = d->nova_mem_mib = -1;
    for (const xmlNode *n = md ? md->children : NULL; n && !inst; n = n->next)
        if (nova_is(n, "instance"))
            inst = n;
    if (!inst)
        return 0;
    d->nova = true;
    for (const xmlNode *n = inst->children; n; n = n->next) {
        if (nova_is(n, "name")) {
            if (!(v = content(x, n)))
                return -ENOMEM;
            copy_text(d->nova_name, sizeof(d->nova_name), v);
            xmlFree(v);
        } else if (nova_is(n, "flavor") && (r = read_nova_flavor(x, n)) < 0) {
            return r;
        }
    }
    return 0;
}

static int read_doc(struct rctx *x, const xmlDoc *doc) {
    const xmlNode *root = xmlDocGetRootElement((xmlDoc *)doc);
    int r;
    if (!root || !name_is(root, "domain"))
        return bad(x, root, -EBADMSG, "the root element is <%.40s>, not <domain>",
                   root ? (const char *)root->name : "");
    if (numafit__xml_too_deep(root, DEPTH_MAX))
        return bad(x, root, -EBADMSG, "nested more than %d levels deep", DEPTH_MAX);
    if ((r = read_names(x, root)) < 0 || (r = read_sizes(x, root)) < 0 ||
        (r = read_cputune(x, root)) < 0 || (r = read_cells(x, root)) < 0 ||
        (r = read_numatune(x, root)) < 0 || (r = read_backing(x, root)) < 0 ||
        (r = read_nova(x, root)) < 0)
        return r;
    return 0;
}

int numafit__ddom_parse(struct ddom *d, unsigned i, const char *xml, size_t len,
                        numafit_error_t *err) {
    struct rctx x = {d, i, err, {0}, NULL};
    xmlDocPtr doc = NULL;
    char msg[160], where[48];
    int r, line = 0;

    snprintf(where, sizeof(where), "domains[%u]", i);
    if (len > NUMAFIT_INPUT_MAX) {
        numafit__error_set(err, NUMAFIT_E_RANGE, -1, where, NULL,
                           "%zu bytes exceed the limit of %u", len, NUMAFIT_INPUT_MAX);
        return -ERANGE;
    }
    numafit__xml_begin(&x.xml);
    x.tmp = numafit__malloc(BITS_SZ);
    r = x.tmp ? numafit__xml_parse(&x.xml, xml, len, "domain.xml", XML_PARSE_NOBLANKS, &doc, msg,
                                   sizeof(msg), &line)
              : -ENOMEM;
    if (r == -EBADMSG)
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, where, NULL,
                           "not well-formed XML, line %d: %s", line, msg);
    else if (r == -EPERM)
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, where, NULL, "a DOCTYPE is refused");
    if (r == -EPERM)
        r = -EBADMSG;
    if (r == 0)
        r = read_doc(&x, doc);
    if (x.xml.nomem)
        r = -ENOMEM;
    if (r == -ENOMEM)
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
    xmlFreeDoc(doc);
    numafit__xml_end(&x.xml);
    numafit__free(x.tmp);
    if (r < 0)
        numafit__ddom_clear(d);
    return r;
}

#else /* !HAVE_LIBVIRT */

int numafit__ddom_parse(struct ddom *d, unsigned i, const char *xml, size_t len,
                        numafit_error_t *err) {
    (void)d;
    (void)xml;
    (void)len;
    numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "domains", NULL,
                       "domain %u: libnumafit was built without libxml2", i);
    return -ENOTSUP;
}

#endif
