/* Nova's libvirt-driver host rules (driver.py _get_host_numa_topology,
 * _get_vcpu_available, _get_pcpu_available, _check_cpu_set_configuration;
 * hardware.py numa_get_reserved_huge_pages), reimplemented from their
 * documented behaviour and applied to the neutral description of a host that
 * the capabilities XML and sysfs readers fill. Also the nova.conf object. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "discover_internal.h"

#define RESV_MAX     4096u /* reserved_huge_pages values */
#define PHYSNET_MAX  1024u /* physnets */
#define NODELIST_MAX 1024u /* node ids in one numa_nodes list */
#define NAME_MAX_LEN 255u

/* ------------------------------------------------------------ small parsers */

static bool is_space(unsigned char c) {
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

static bool is_digit(unsigned char c) {
    return c >= '0' && c <= '9';
}

struct span {
    const char *p, *e;
};

static struct span strip(struct span s) {
    while (s.p < s.e && is_space((unsigned char)*s.p))
        s.p++;
    while (s.e > s.p && is_space((unsigned char)s.e[-1]))
        s.e--;
    return s;
}

static bool span_is(struct span s, const char *lit) {
    size_t n = strlen(lit);
    return (size_t)(s.e - s.p) == n && !memcmp(s.p, lit, n);
}

/* Python's int() of a string, ASCII only, at most 18 digits. */
static bool parse_pyint(struct span s, int64_t *out) {
    bool neg = false;
    int64_t v = 0;
    size_t nd = 0;
    s = strip(s);
    if (s.p < s.e && (*s.p == '+' || *s.p == '-'))
        neg = *s.p++ == '-';
    for (; s.p < s.e; s.p++) {
        if (!is_digit((unsigned char)*s.p) || ++nd > 18)
            return false;
        v = v * 10 + (*s.p - '0');
    }
    if (!nd)
        return false;
    *out = neg ? -v : v;
    return true;
}

/*
 * oslo's string_to_bytes(text, 'IEC', return_int=True) / 1024 compared with a
 * page size: ^[-+]?\d*\.?\d+([KMGT]i?)?(b|bit|B)$, power-of-two prefixes,
 * "b"/"bit" divide by 8, rounded up to whole bytes. Computed exactly (nova
 * goes through a float; the two differ only past 15 significant digits,
 * which are refused here). *out_kb = -1 when no page size can match.
 */
static bool parse_iec_size(struct span s, int64_t *out_kb) {
    const char *p = s.p, *e = s.e;
    bool neg = false, bits = false;
    unsigned __int128 mant = 0, div = 1, bytes;
    size_t nint = 0, nfrac = 0;
    unsigned exp = 0;
    if (p < e && (*p == '+' || *p == '-'))
        neg = *p++ == '-';
    for (; p < e && is_digit((unsigned char)*p); p++, nint++)
        mant = mant * 10 + (unsigned)(*p - '0');
    if (p < e && *p == '.') {
        p++;
        for (; p < e && is_digit((unsigned char)*p); p++, nfrac++) {
            mant = mant * 10 + (unsigned)(*p - '0');
            div *= 10;
        }
        if (!nfrac)
            return false;
    } else if (!nint) {
        return false;
    }
    if (nint + nfrac > 15)
        return false;
    if (p < e) {
        const char *pre = "KMGT", *q = strchr(pre, *p);
        if (*p && q) {
            exp = (unsigned)(q - pre) + 1;
            p++;
            if (p < e && *p == 'i')
                p++;
        }
    }
    if (span_is((struct span){p, e}, "b") || span_is((struct span){p, e}, "bit"))
        bits = true;
    else if (!span_is((struct span){p, e}, "B"))
        return false;
    mant <<= 10 * exp;
    if (bits)
        div *= 8;
    bytes = (mant + div - 1) / div;
    if (neg || bytes == 0 || bytes % 1024 || bytes / 1024 > (1ull << 50))
        *out_kb = -1;
    else
        *out_kb = (int64_t)(bytes / 1024);
    return true;
}

/* A numa_nodes list (oslo List of Integer): "0, 1"; "" is empty. */
static int parse_nodelist(const char *s, int64_t **ret, uint32_t *ret_n, numafit_error_t *err,
                          const char *where) {
    struct span all = strip((struct span){s, s + strlen(s)});
    int64_t *v;
    uint32_t n = 0;
    if (all.p == all.e) {
        *ret = NULL;
        *ret_n = 0;
        return 0;
    }
    v = numafit__calloc(NODELIST_MAX, sizeof(*v));
    if (!v) {
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, where, NULL, "out of memory");
        return -ENOMEM;
    }
    for (const char *p = all.p;;) {
        const char *c = memchr(p, ',', (size_t)(all.e - p));
        const char *end = c ? c : all.e;
        if (n == NODELIST_MAX || !parse_pyint((struct span){p, end}, &v[n])) {
            numafit__free(v);
            numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, where, NULL,
                               "numa_nodes must be a comma-separated list of node ids, not '%s'",
                               s);
            return -EINVAL;
        }
        n++;
        if (!c)
            break;
        p = c + 1;
    }
    *ret = v;
    *ret_n = n;
    return 0;
}

/* ------------------------------------------------------------ nova.conf object */

NUMAFIT_EXPORT int numafit_hostconf_new(numafit_hostconf_t **ret) {
    numafit_hostconf_t *c;
    if (!ret)
        return -EINVAL;
    c = numafit__calloc(1, sizeof(*c));
    if (!c)
        return -ENOMEM;
    *ret = c;
    return 0;
}

NUMAFIT_EXPORT int numafit_hostconf_has_cpu_sets(const numafit_hostconf_t *c) {
    if (!c)
        return -EINVAL;
    return c->vcpu_pin_set || c->cpu_shared_set || c->cpu_dedicated_set;
}

NUMAFIT_EXPORT void numafit_hostconf_free(numafit_hostconf_t *c) {
    if (!c)
        return;
    numafit__free(c->vcpu_pin_set);
    numafit__free(c->cpu_shared_set);
    numafit__free(c->cpu_dedicated_set);
    numafit__free(c->resv);
    for (uint32_t i = 0; i < c->nphysnets; i++) {
        numafit__free(c->physnets[i].name);
        numafit__free(c->physnets[i].nodes);
    }
    numafit__free(c->physnets);
    numafit__free(c->tunnel);
    numafit__free(c);
}

static int set_cpus(numafit_hostconf_t *c, uint64_t **slot, const char *spec, const char *opt,
                    numafit_error_t *err) {
    uint64_t *bits;
    int r;
    numafit__error_clear(err);
    if (!c)
        return -EINVAL;
    if (!spec || !*spec) {
        numafit__free(*slot);
        *slot = NULL;
        return 0;
    }
    bits = numafit__malloc(NUMAFIT__CPU_WORDS * sizeof(uint64_t));
    if (!bits) {
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, opt, NULL, "out of memory");
        return -ENOMEM;
    }
    r = numafit__cpuspec_parse(spec, bits, err);
    if (r < 0) {
        numafit__free(bits);
        if (err)
            snprintf(err->where, sizeof(err->where), "%s", opt);
        return r;
    }
    if (numafit__bits_empty(bits, NUMAFIT__CPU_WORDS)) {
        numafit__free(bits);
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, opt, "Invalid",
                           "No CPUs available after parsing '%s' config, '%.150s'", opt, spec);
        return -EINVAL;
    }
    numafit__free(*slot);
    *slot = bits;
    return 0;
}

NUMAFIT_EXPORT int numafit_hostconf_set_cpu_dedicated_set(numafit_hostconf_t *c, const char *spec,
                                                          numafit_error_t *err) {
    return set_cpus(c, c ? &c->cpu_dedicated_set : NULL, spec, "[compute] cpu_dedicated_set", err);
}

NUMAFIT_EXPORT int numafit_hostconf_set_cpu_shared_set(numafit_hostconf_t *c, const char *spec,
                                                       numafit_error_t *err) {
    return set_cpus(c, c ? &c->cpu_shared_set : NULL, spec, "[compute] cpu_shared_set", err);
}

NUMAFIT_EXPORT int numafit_hostconf_set_vcpu_pin_set(numafit_hostconf_t *c, const char *spec,
                                                     numafit_error_t *err) {
    return set_cpus(c, c ? &c->vcpu_pin_set : NULL, spec, "vcpu_pin_set", err);
}

static int resv_invalid(numafit_error_t *err, const char *value, const char *why) {
    numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "reserved_huge_pages",
                       "InvalidReservedMemoryPagesOption",
                       "The format of the option 'reserved_huge_pages' is invalid (%s): "
                       "'%.120s'",
                       why, value);
    return -EINVAL;
}

NUMAFIT_EXPORT int numafit_hostconf_add_reserved_huge_pages(numafit_hostconf_t *c,
                                                            const char *value,
                                                            numafit_error_t *err) {
    struct span node = {NULL, NULL}, size = {NULL, NULL}, count = {NULL, NULL};
    struct numafit__resv r;
    int64_t cnt;
    const char *p, *end;
    numafit__error_clear(err);
    if (!c || !value)
        return -EINVAL;
    if (c->nresv >= RESV_MAX)
        return resv_invalid(err, value, "too many values");
    end = value + strlen(value);
    /* oslo Dict: "key:value" items separated by ',' */
    for (p = value; p < end || p == value;) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *e = comma ? comma : end;
        const char *colon = memchr(p, ':', (size_t)(e - p));
        struct span k, v, *slot = NULL;
        if (!colon)
            return resv_invalid(err, value, "expected key:value items");
        k = strip((struct span){p, colon});
        v = strip((struct span){colon + 1, e});
        if (span_is(k, "node"))
            slot = &node;
        else if (span_is(k, "size"))
            slot = &size;
        else if (span_is(k, "count"))
            slot = &count;
        if (slot) {
            if (slot->p)
                return resv_invalid(err, value, "duplicate key");
            *slot = v;
        }
        if (!comma)
            break;
        p = comma + 1;
    }
    if (!node.p || !size.p || !count.p)
        return resv_invalid(err, value, "node, size and count are required");
    if (!parse_pyint(node, &r.node))
        return resv_invalid(err, value, "node must be an integer");
    if (parse_pyint(size, &r.size_kb)) {
        if (r.size_kb <= 0)
            r.size_kb = -1;
    } else if (!parse_iec_size(size, &r.size_kb)) {
        return resv_invalid(err, value, "size must be KiB or a size like 2MB or 1GB");
    }
    if (!parse_pyint(count, &cnt))
        return resv_invalid(err, value, "count must be an integer");
    if (cnt < 0)
        return resv_invalid(err, value, "count must not be negative");
    r.count = (uint64_t)cnt;
    {
        struct numafit__resv *n = numafit__realloc(c->resv, (c->nresv + 1) * sizeof(*n));
        if (!n) {
            numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
            return -ENOMEM;
        }
        c->resv = n;
        n[c->nresv++] = r;
    }
    return 0;
}

NUMAFIT_EXPORT int numafit_hostconf_add_physnet(numafit_hostconf_t *c, const char *name,
                                                const char *numa_nodes, numafit_error_t *err) {
    int64_t *nodes;
    uint32_t n, i;
    size_t len;
    int r;
    numafit__error_clear(err);
    if (!c || !name || !numa_nodes)
        return -EINVAL;
    len = strlen(name);
    if (len == 0 || len > NAME_MAX_LEN) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "physnets", NULL,
                           "a physnet name must have 1 to %u bytes", NAME_MAX_LEN);
        return -EINVAL;
    }
    for (i = 0; i < len; i++)
        if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f || name[i] == ',') {
            numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "physnets", NULL,
                               "a physnet name may not contain ',' or control characters");
            return -EINVAL;
        }
    if (!numafit__utf8_ok(name, len)) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "physnets", NULL,
                           "a physnet name must be valid UTF-8");
        return -EINVAL;
    }
    r = parse_nodelist(numa_nodes, &nodes, &n, err, "numa_nodes");
    if (r < 0)
        return r;
    for (i = 0; i < c->nphysnets; i++)
        if (!strcmp(c->physnets[i].name, name)) {
            numafit__free(c->physnets[i].nodes);
            c->physnets[i].nodes = nodes;
            c->physnets[i].nnodes = n;
            return 0;
        }
    if (c->nphysnets >= PHYSNET_MAX) {
        numafit__free(nodes);
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "physnets", NULL, "too many physnets");
        return -EINVAL;
    }
    {
        struct numafit__physnet *pn =
            numafit__realloc(c->physnets, (c->nphysnets + 1) * sizeof(*pn));
        char *dup = numafit__strdup(name);
        if (pn)
            c->physnets = pn;
        if (!pn || !dup) {
            numafit__free(dup);
            numafit__free(nodes);
            numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
            return -ENOMEM;
        }
        pn[c->nphysnets].name = dup;
        pn[c->nphysnets].nodes = nodes;
        pn[c->nphysnets].nnodes = n;
        c->nphysnets++;
    }
    return 0;
}

NUMAFIT_EXPORT int numafit_hostconf_set_tunnel_numa_nodes(numafit_hostconf_t *c,
                                                          const char *numa_nodes,
                                                          numafit_error_t *err) {
    int64_t *nodes = NULL;
    uint32_t n = 0;
    int r;
    numafit__error_clear(err);
    if (!c)
        return -EINVAL;
    if (numa_nodes && (r = parse_nodelist(numa_nodes, &nodes, &n, err,
                                          "[neutron_tunnel] "
                                          "numa_nodes")) < 0)
        return r;
    numafit__free(c->tunnel);
    c->tunnel = nodes;
    c->ntunnel = n;
    return 0;
}

/* ------------------------------------------------------------ neutral description */

void numafit__dhost_clear(struct numafit__dhost *d) {
    for (uint32_t i = 0; i < d->ncells; i++) {
        numafit__free(d->cells[i].cpus);
        numafit__free(d->cells[i].pages);
        numafit__free(d->cells[i].dist);
    }
    numafit__free(d->cells);
    numafit__free(d->sib);
    memset(d, 0, sizeof(*d));
}

/* Make room for one more element of size sz in *arr (n used, *cap allocated). */
static int grow(void **arr, uint32_t n, uint32_t *cap, size_t sz) {
    void *p;
    uint32_t nc;
    if (n < *cap)
        return 0;
    if (*cap > (1u << 28))
        return -ENOMEM;
    nc = *cap ? *cap * 2 : 8;
    p = numafit__realloc(*arr, (size_t)nc * sz);
    if (!p)
        return -ENOMEM;
    *arr = p;
    *cap = nc;
    return 0;
}

struct numafit__dcell *numafit__dhost_add_cell(struct numafit__dhost *d) {
    void *a = d->cells;
    int r = grow(&a, d->ncells, &d->cells_cap, sizeof(*d->cells));
    d->cells = a;
    if (r < 0)
        return NULL;
    memset(&d->cells[d->ncells], 0, sizeof(*d->cells));
    return &d->cells[d->ncells++];
}

struct numafit__dcpu *numafit__dcell_add_cpu(struct numafit__dcell *c) {
    void *a = c->cpus;
    int r = grow(&a, c->ncpus, &c->cpus_cap, sizeof(*c->cpus));
    c->cpus = a;
    if (r < 0)
        return NULL;
    memset(&c->cpus[c->ncpus], 0, sizeof(*c->cpus));
    c->cpus[c->ncpus].socket = -1;
    c->cpus[c->ncpus].core = -1;
    return &c->cpus[c->ncpus++];
}

int numafit__dcell_add_pages(struct numafit__dcell *c, uint64_t size_kb, uint64_t total) {
    void *a = c->pages;
    int r = grow(&a, c->npages, &c->pages_cap, sizeof(*c->pages));
    c->pages = a;
    if (r < 0)
        return r;
    c->pages[c->npages].size_kb = size_kb;
    c->pages[c->npages++].total = total;
    return 0;
}

int numafit__dcell_add_dist(struct numafit__dcell *c, int64_t id, uint32_t value) {
    void *a = c->dist;
    int r = grow(&a, c->ndist, &c->dist_cap, sizeof(*c->dist));
    c->dist = a;
    if (r < 0)
        return r;
    c->dist[c->ndist].id = id;
    c->dist[c->ndist++].value = value;
    c->has_dist = true;
    return 0;
}

int numafit__dhost_set_siblings(struct numafit__dhost *d, struct numafit__dcpu *cpu,
                                const uint64_t *bits) {
    unsigned n = numafit__bits_count(bits, NUMAFIT__CPU_WORDS);
    int b = -1;
    if (d->nsib + n > NUMAFIT__SIBLINGS_MAX)
        return -E2BIG;
    while (d->nsib + n > d->sib_cap) {
        uint32_t nc = d->sib_cap ? d->sib_cap * 2 : 64;
        uint16_t *p;
        if (nc > (1u << 30))
            return -ENOMEM;
        p = numafit__realloc(d->sib, (size_t)nc * sizeof(uint16_t));
        if (!p)
            return -ENOMEM;
        d->sib = p;
        d->sib_cap = nc;
    }
    cpu->has_siblings = true;
    cpu->sib_start = d->nsib;
    cpu->sib_len = n;
    while ((b = numafit__bits_next(bits, NUMAFIT__CPU_WORDS, b)) >= 0)
        d->sib[d->nsib++] = (uint16_t)b;
    return 0;
}

/* ------------------------------------------------------------ the rules */

struct grp {
    const uint16_t *p;
    uint32_t n;
};

static int grp_cmp(const void *a, const void *b) {
    const struct grp *x = a, *y = b;
    uint32_t n = x->n < y->n ? x->n : y->n;
    for (uint32_t i = 0; i < n; i++)
        if (x->p[i] != y->p[i])
            return x->p[i] < y->p[i] ? -1 : 1;
    return x->n < y->n ? -1 : x->n > y->n;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Scratch bitmaps, NUMAFIT__CPU_WORDS words each. */
struct scratch {
    uint64_t *all; /* every listed CPU */
    uint64_t *online;
    uint64_t *shared;
    uint64_t *dedicated;
    uint64_t *cell;   /* CPUs of the current cell */
    uint64_t *usable; /* cell & (shared | dedicated) */
};

static int not_online(numafit_error_t *err, const char *opt, const uint64_t *set,
                      const uint64_t *online) {
    char *a = numafit__cpuspec_format(online, NUMAFIT__CPU_WORDS);
    char *b = numafit__cpuspec_format(set, NUMAFIT__CPU_WORDS);
    numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, opt, "Invalid",
                       "Invalid '%s' config: one or more of the configured CPUs is not online. "
                       "Online cpuset(s): %.60s, configured cpuset(s): %.60s",
                       opt, a ? a : "?", b ? b : "?");
    numafit__free(a);
    numafit__free(b);
    return -EINVAL;
}

/*
 * nova's VCPU and PCPU pools from the configuration (_get_vcpu_available,
 * _get_pcpu_available and the legacy fallback), given the online CPUs.
 * shared and dedicated (NUMAFIT__CPU_WORDS words) must come zeroed.
 */
static int pool_sets(const numafit_hostconf_t *conf, const uint64_t *online, uint64_t *shared,
                     uint64_t *dedicated, numafit_error_t *err) {
    const unsigned W = NUMAFIT__CPU_WORDS;
    /* _get_vcpu_available */
    if (conf->vcpu_pin_set || conf->cpu_shared_set) {
        const uint64_t *set = conf->vcpu_pin_set ? conf->vcpu_pin_set : conf->cpu_shared_set;
        if (!numafit__bits_subset(set, online, W))
            return not_online(err, conf->vcpu_pin_set ? "vcpu_pin_set" : "[compute] cpu_shared_set",
                              set, online);
        memcpy(shared, set, W * sizeof(uint64_t));
    } else if (!conf->cpu_dedicated_set) {
        memcpy(shared, online, W * sizeof(uint64_t));
    }
    /* _get_pcpu_available */
    if (conf->cpu_dedicated_set) {
        if (!numafit__bits_subset(conf->cpu_dedicated_set, online, W))
            return not_online(err, "[compute] cpu_dedicated_set", conf->cpu_dedicated_set, online);
        memcpy(dedicated, conf->cpu_dedicated_set, W * sizeof(uint64_t));
    }
    /* legacy fallback: no dedicated set and not (cpu_shared_set and not vcpu_pin_set) */
    if (!conf->cpu_dedicated_set && !(conf->cpu_shared_set && !conf->vcpu_pin_set))
        memcpy(dedicated, shared, W * sizeof(uint64_t));
    return 0;
}

static bool has_cell(const struct numafit__dhost *d, int64_t id) {
    for (uint32_t i = 0; i < d->ncells; i++)
        if (d->cells[i].id == id)
            return true;
    return false;
}

static int check_description(const struct numafit__dhost *d, uint64_t *seen, numafit_error_t *err) {
    char where[96];
    if (d->ncells > NUMAFIT_MAX_CELLS) {
        numafit__error_set(err, NUMAFIT_E_RANGE, -1, "cells", NULL, "more than %d NUMA cells",
                           NUMAFIT_MAX_CELLS);
        return -ERANGE;
    }
    for (uint32_t i = 0; i < d->ncells; i++) {
        const struct numafit__dcell *c = &d->cells[i];
        snprintf(where, sizeof(where), "cell[%u]", i);
        if (c->id < 0 || c->id > NUMAFIT_CELL_ID_MAX) {
            numafit__error_set(err, NUMAFIT_E_RANGE, -1, where, NULL,
                               "cell id %d out of range 0..%d", c->id, NUMAFIT_CELL_ID_MAX);
            return -ERANGE;
        }
        for (uint32_t j = 0; j < i; j++)
            if (d->cells[j].id == c->id) {
                numafit__error_set(err, NUMAFIT_E_SCHEMA, c->id, where, NULL,
                                   "duplicate cell id %d", c->id);
                return -EBADMSG;
            }
        if (c->memory_kib / 1024 > NUMAFIT_MEMORY_MB_MAX) {
            numafit__error_set(err, NUMAFIT_E_RANGE, c->id, where, NULL,
                               "cell memory out of range");
            return -ERANGE;
        }
        for (uint32_t k = 0; k < c->ncpus; k++) {
            uint32_t id = c->cpus[k].id;
            if (id > NUMAFIT_CPU_MAX) {
                numafit__error_set(err, NUMAFIT_E_RANGE, c->id, where, NULL, "CPU id %u above %d",
                                   id, NUMAFIT_CPU_MAX);
                return -ERANGE;
            }
            if (numafit__bit_test(seen, id)) {
                /* name the NUMA node ids (cell ids), not our cell order */
                int32_t first = c->id;
                for (uint32_t j = 0; j < i && first == c->id; j++)
                    for (uint32_t m = 0; m < d->cells[j].ncpus; m++)
                        if (d->cells[j].cpus[m].id == id) {
                            first = d->cells[j].id;
                            break;
                        }
                snprintf(where, sizeof(where), "node%d", c->id);
                if (first == c->id)
                    numafit__error_set(err, NUMAFIT_E_SCHEMA, c->id, where, NULL,
                                       "node%d lists CPU %u twice", c->id, id);
                else
                    numafit__error_set(err, NUMAFIT_E_SCHEMA, c->id, where, NULL,
                                       "node%d and node%d both list CPU %u", first, c->id, id);
                return -EBADMSG;
            }
            numafit__bit_set(seen, id);
        }
        for (uint32_t k = 0; k < c->npages; k++)
            if (c->pages[k].size_kb == 0 || c->pages[k].size_kb > (1ull << 40)) {
                numafit__error_set(err, NUMAFIT_E_RANGE, c->id, where, NULL,
                                   "page size out of range");
                return -ERANGE;
            }
    }
    return 0;
}

int numafit__discover_check_conf(const numafit_hostconf_t *conf, numafit_error_t *err) {
    /* _check_cpu_set_configuration (nova runs it in init_host, before it reads
     * the capabilities) */
    if (!conf)
        return 0;
    if (!conf->vcpu_pin_set) {
        if (conf->cpu_shared_set && conf->cpu_dedicated_set &&
            numafit__bits_intersects(conf->cpu_shared_set, conf->cpu_dedicated_set,
                                     NUMAFIT__CPU_WORDS)) {
            numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "[compute] cpu_dedicated_set",
                               "InvalidConfiguration",
                               "The '[compute] cpu_dedicated_set' and '[compute] cpu_shared_set' "
                               "configuration options must be disjoint.");
            return -EINVAL;
        }
    } else if (conf->cpu_dedicated_set) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "vcpu_pin_set", "InvalidConfiguration",
                           "The 'vcpu_pin_set' config option has been deprecated and cannot be "
                           "defined alongside '[compute] cpu_dedicated_set'. Unset "
                           "'vcpu_pin_set'.");
        return -EINVAL;
    }
    return 0;
}

static int check_network(const struct numafit__dhost *d, const numafit_hostconf_t *conf,
                         numafit_error_t *err) {
    for (uint32_t i = 0; i < conf->nphysnets; i++) {
        const struct numafit__physnet *pn = &conf->physnets[i];
        if (!pn->nnodes) {
            numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "physnets",
                               "InvalidNetworkNUMAAffinity",
                               "the physnet '%.64s' was listed in '[neutron] physnets' but no "
                               "corresponding '[neutron_physnet_%.64s] numa_nodes' option was "
                               "defined.",
                               pn->name, pn->name);
            return -EINVAL;
        }
        for (uint32_t k = 0; k < pn->nnodes; k++)
            if (!has_cell(d, pn->nodes[k])) {
                numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "physnets",
                                   "InvalidNetworkNUMAAffinity",
                                   "node %lld for physnet %.64s is not present in host affinity "
                                   "set",
                                   (long long)pn->nodes[k], pn->name);
                return -EINVAL;
            }
    }
    for (uint32_t k = 0; k < conf->ntunnel; k++)
        if (!has_cell(d, conf->tunnel[k])) {
            numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "[neutron_tunnel] numa_nodes",
                               "InvalidNetworkNUMAAffinity",
                               "node %lld for tunneled networks is not present in host affinity "
                               "set",
                               (long long)conf->tunnel[k]);
            return -EINVAL;
        }
    return 0;
}

static bool in_list(const int64_t *v, uint32_t n, int64_t x) {
    for (uint32_t i = 0; i < n; i++)
        if (v[i] == x)
            return true;
    return false;
}

/* Siblings of one cell, nova's way, into c->sib_off / c->sib_cpu. */
static int build_siblings(const struct numafit__dhost *d, const struct numafit__dcell *dc,
                          const uint64_t *usable, struct numafit__cell *c) {
    struct grp *g = NULL;
    uint16_t *self = NULL, *cut = NULL;
    uint32_t ng = 0, total = 0, w = 0, k = 0;
    int rc = -ENOMEM;

    if (!dc->ncpus)
        return 0;
    g = numafit__calloc(dc->ncpus, sizeof(*g));
    self = numafit__calloc(dc->ncpus, sizeof(*self));
    for (uint32_t i = 0; i < dc->ncpus; i++)
        total += dc->cpus[i].has_siblings ? dc->cpus[i].sib_len : 1;
    cut = numafit__calloc(total ? total : 1, sizeof(*cut));
    if (!g || !self || !cut)
        goto out;
    /* tuple(cpu.siblings) per CPU; a CPU without siblings is {itself} */
    for (uint32_t i = 0; i < dc->ncpus; i++) {
        const struct numafit__dcpu *cpu = &dc->cpus[i];
        if (cpu->has_siblings) {
            /* an empty list (siblings='0,^0') may have no storage at all */
            g[i].p = cpu->sib_len ? d->sib + cpu->sib_start : &self[i];
            g[i].n = cpu->sib_len;
        } else {
            self[i] = (uint16_t)cpu->id;
            g[i].p = &self[i];
            g[i].n = 1;
        }
    }
    /* de-duplicate */
    qsort(g, dc->ncpus, sizeof(*g), grp_cmp);
    for (uint32_t i = 0; i < dc->ncpus; i++)
        if (!ng || grp_cmp(&g[ng - 1], &g[i]))
            g[ng++] = g[i];
    /* cut to the cell's usable CPUs, drop empty groups (duplicates that the
     * cut creates stay, as in nova) */
    for (uint32_t i = 0; i < ng; i++) {
        uint32_t start = w;
        for (uint32_t j = 0; j < g[i].n; j++)
            if (numafit__bit_test(usable, g[i].p[j]))
                cut[w++] = g[i].p[j];
        if (w > start) {
            g[k].p = cut + start;
            g[k++].n = w - start;
        }
    }
    qsort(g, k, sizeof(*g), grp_cmp);
    if (k) {
        c->sib_off = numafit__calloc(NUMAFIT__SIB_OFF_LEN(k), sizeof(uint32_t));
        c->sib_cpu = numafit__calloc(w, sizeof(uint16_t));
        if (!c->sib_off || !c->sib_cpu)
            goto out;
        w = 0;
        for (uint32_t i = 0; i < k; i++) {
            c->sib_off[i] = w;
            memcpy(c->sib_cpu + w, g[i].p, g[i].n * sizeof(uint16_t));
            w += g[i].n;
        }
        c->sib_off[k] = w;
        c->nsib = k;
    }
    rc = 0;
out:
    numafit__free(g);
    numafit__free(self);
    numafit__free(cut);
    return rc;
}

static int build_netmeta(const numafit_hostconf_t *conf, struct numafit__cell *c) {
    uint32_t n = 0;
    c->has_netmeta = true;
    c->tunneled = in_list(conf->tunnel, conf->ntunnel, c->id);
    for (uint32_t i = 0; i < conf->nphysnets; i++)
        n += in_list(conf->physnets[i].nodes, conf->physnets[i].nnodes, c->id);
    if (!n)
        return 0;
    c->physnets = numafit__calloc(n, sizeof(char *));
    if (!c->physnets)
        return -ENOMEM;
    for (uint32_t i = 0; i < conf->nphysnets; i++)
        if (in_list(conf->physnets[i].nodes, conf->physnets[i].nnodes, c->id)) {
            c->physnets[c->nphysnets] = numafit__strdup(conf->physnets[i].name);
            if (!c->physnets[c->nphysnets])
                return -ENOMEM;
            c->nphysnets++;
        }
    qsort(c->physnets, c->nphysnets, sizeof(char *), cmp_str);
    return 0;
}

static uint32_t *build_distance(const struct numafit__dhost *d, int *rc) {
    uint32_t n = d->ncells, *m;
    *rc = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!d->cells[i].has_dist)
            return NULL;
    m = numafit__calloc((size_t)n * n, sizeof(uint32_t));
    if (!m) {
        *rc = -ENOMEM;
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++) {
            const struct numafit__dcell *c = &d->cells[i];
            bool found = false;
            for (uint32_t k = 0; k < c->ndist; k++)
                if (c->dist[k].id == d->cells[j].id) {
                    m[(size_t)i * n + j] = c->dist[k].value;
                    found = true;
                }
            if (!found) {
                numafit__free(m);
                return NULL;
            }
        }
    return m;
}

int numafit__discover_build(const struct numafit__dhost *d, const uint64_t *online,
                            const numafit_hostconf_t *conf_in, unsigned flags, numafit_host_t **ret,
                            numafit_error_t *err) {
    numafit_hostconf_t none;
    const numafit_hostconf_t *conf = conf_in;
    struct scratch s;
    uint64_t *block;
    numafit_host_t *h = NULL;
    int rc, maxcpu = -1;
    const unsigned W = NUMAFIT__CPU_WORDS;

    if (!conf) {
        memset(&none, 0, sizeof(none));
        conf = &none;
    }
    block = numafit__calloc((size_t)6 * W, sizeof(uint64_t));
    if (!block)
        return -ENOMEM;
    s.all = block;
    s.online = block + W;
    s.shared = block + 2 * W;
    s.dedicated = block + 3 * W;
    s.cell = block + 4 * W;
    s.usable = block + 5 * W;

    if ((rc = check_description(d, s.all, err)) < 0)
        goto out;
    if ((rc = numafit__discover_check_conf(conf, err)) < 0)
        goto out;
    /* _has_numa_support(), then "if topology is None or not topology.cells" */
    if ((d->unsupported_arch && !(flags & NUMAFIT_DISCOVER_ANY_ARCH)) || d->ncells == 0) {
        rc = numafit__host_alloc(0, 1, &h);
        goto out;
    }
    if (online && !(flags & NUMAFIT_DISCOVER_ALL_ONLINE))
        memcpy(s.online, online, W * sizeof(uint64_t));
    else
        memcpy(s.online, s.all, W * sizeof(uint64_t));

    if ((rc = pool_sets(conf, s.online, s.shared, s.dedicated, err)) < 0)
        goto out;

    if ((rc = check_network(d, conf, err)) < 0)
        goto out;

    maxcpu = numafit__bits_last(s.all, W);
    rc = numafit__host_alloc(d->ncells, NUMAFIT__WORDS((unsigned)(maxcpu + 1)), &h);
    if (rc < 0)
        goto out;
    for (uint32_t i = 0; i < d->ncells; i++) {
        const struct numafit__dcell *dc = &d->cells[i];
        struct numafit__cell *c = &h->cells[i];
        memset(s.cell, 0, W * sizeof(uint64_t));
        c->id = dc->id;
        c->socket = -1;
        for (uint32_t k = 0; k < dc->ncpus; k++)
            numafit__bit_set(s.cell, dc->cpus[k].id);
        if (dc->ncpus) {
            bool one = true;
            for (uint32_t k = 1; k < dc->ncpus; k++)
                one = one && dc->cpus[k].socket == dc->cpus[0].socket;
            if (one)
                c->socket = dc->cpus[0].socket;
        }
        for (unsigned w = 0; w < h->nw; w++) {
            c->cpuset[w] = s.cell[w] & s.shared[w];
            c->pcpuset[w] = s.cell[w] & s.dedicated[w];
        }
        for (unsigned w = 0; w < W; w++)
            s.usable[w] = s.cell[w] & (s.shared[w] | s.dedicated[w]);
        if ((rc = build_siblings(d, dc, s.usable, c)) < 0)
            goto out;
        c->memory = dc->memory_kib / 1024;
        if (dc->npages) {
            c->pages = numafit__calloc(dc->npages, sizeof(*c->pages));
            if (!c->pages) {
                rc = -ENOMEM;
                goto out;
            }
            c->npages = dc->npages;
            for (uint32_t k = 0; k < dc->npages; k++) {
                c->pages[k].size_kb = dc->pages[k].size_kb;
                c->pages[k].total = dc->pages[k].total;
                for (uint32_t r = 0; r < conf->nresv; r++)
                    if (conf->resv[r].node == dc->id &&
                        conf->resv[r].size_kb == (int64_t)dc->pages[k].size_kb)
                        c->pages[k].reserved = conf->resv[r].count;
            }
        }
        if ((rc = build_netmeta(conf, c)) < 0)
            goto out;
    }
    h->distance = build_distance(d, &rc);
    if (rc < 0)
        goto out;
out:
    numafit__free(block);
    if (rc < 0) {
        numafit_host_free(h);
        if (rc == -ENOMEM)
            numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
        return rc;
    }
    if ((rc = numafit__host_finish(h, 0, err)) < 0) {
        numafit_host_free(h);
        return rc;
    }
    *ret = h;
    return 0;
}

/* ------------------------------------------------------------ pools what-if */

/* New sibling arrays of cell c cut to usable (nova's cut: empty groups
 * dropped, the rest sorted). *ret_off is NULL when no group is left. */
static int cut_siblings(const struct numafit__cell *c, const uint64_t *usable, uint32_t *ret_n,
                        uint32_t **ret_off, uint16_t **ret_cpu) {
    struct grp *g;
    uint16_t *cut;
    uint32_t total = c->nsib ? c->sib_off[c->nsib] : 0, w = 0, k = 0;
    *ret_n = 0;
    *ret_off = NULL;
    *ret_cpu = NULL;
    if (!c->nsib)
        return 0;
    g = numafit__calloc(c->nsib, sizeof(*g));
    cut = numafit__calloc(total ? total : 1, sizeof(*cut));
    if (!g || !cut) {
        numafit__free(g);
        numafit__free(cut);
        return -ENOMEM;
    }
    for (uint32_t s = 0; s < c->nsib; s++) {
        uint32_t start = w;
        for (uint32_t i = c->sib_off[s]; i < c->sib_off[s + 1]; i++)
            if (numafit__bit_test(usable, c->sib_cpu[i]))
                cut[w++] = c->sib_cpu[i];
        if (w > start) {
            g[k].p = cut + start;
            g[k++].n = w - start;
        }
    }
    qsort(g, k, sizeof(*g), grp_cmp);
    if (k) {
        uint32_t *off = numafit__calloc(NUMAFIT__SIB_OFF_LEN(k), sizeof(uint32_t));
        uint16_t *cpu = numafit__calloc(w, sizeof(uint16_t));
        if (!off || !cpu) {
            numafit__free(off);
            numafit__free(cpu);
            numafit__free(g);
            numafit__free(cut);
            return -ENOMEM;
        }
        w = 0;
        for (uint32_t i = 0; i < k; i++) {
            off[i] = w;
            memcpy(cpu + w, g[i].p, g[i].n * sizeof(uint16_t));
            w += g[i].n;
        }
        off[k] = w;
        *ret_n = k;
        *ret_off = off;
        *ret_cpu = cpu;
    }
    numafit__free(g);
    numafit__free(cut);
    return 0;
}

NUMAFIT_EXPORT int numafit_host_set_cpu_pools(numafit_host_t *h, const numafit_hostconf_t *conf,
                                              unsigned flags, numafit_error_t *err) {
    const unsigned W = NUMAFIT__CPU_WORDS;
    uint64_t *block = NULL, *known, *shared, *dedicated, *cell;
    struct newsib {
        uint32_t n;
        uint32_t *off;
        uint16_t *cpu;
    } *ns = NULL;
    int rc;

    numafit__error_clear(err);
    if (!h || !conf || flags) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "", NULL, "invalid argument or flags");
        return -EINVAL;
    }
    if ((rc = numafit__discover_check_conf(conf, err)) < 0)
        return rc;
    block = numafit__calloc((size_t)4 * W, sizeof(uint64_t));
    ns = numafit__calloc(h->ncells + 1, sizeof(*ns));
    if (!block || !ns) {
        rc = -ENOMEM;
        goto out;
    }
    known = block;
    shared = block + W;
    dedicated = block + 2 * W;
    cell = block + 3 * W;
    /* the CPUs the host knows: its pools and its sibling sets */
    for (uint32_t i = 0; i < h->ncells; i++) {
        const struct numafit__cell *c = &h->cells[i];
        for (uint32_t w = 0; w < h->nw; w++)
            known[w] |= c->cpuset[w] | c->pcpuset[w];
        for (uint32_t k = 0; c->nsib && k < c->sib_off[c->nsib]; k++)
            numafit__bit_set(known, c->sib_cpu[k]);
    }
    if ((rc = pool_sets(conf, known, shared, dedicated, err)) < 0)
        goto out;
    /* check every cell, build the new sibling sets; nothing changes yet */
    for (uint32_t i = 0; i < h->ncells; i++) {
        const struct numafit__cell *c = &h->cells[i];
        memset(cell, 0, W * sizeof(uint64_t));
        for (uint32_t w = 0; w < h->nw; w++)
            cell[w] = c->cpuset[w] | c->pcpuset[w];
        for (uint32_t k = 0; c->nsib && k < c->sib_off[c->nsib]; k++)
            numafit__bit_set(cell, c->sib_cpu[k]);
        for (uint32_t w = 0; w < h->nw; w++)
            if (c->pinned[w] & ~(cell[w] & dedicated[w])) {
                unsigned cpu =
                    w * 64u + (unsigned)__builtin_ctzll(c->pinned[w] & ~(cell[w] & dedicated[w]));
                numafit__error_set(err, NUMAFIT_E_PINNING, c->id, "[compute] cpu_dedicated_set",
                                   "CPUPinningInvalid",
                                   "CPU %u of host cell %d is pinned by an instance but would "
                                   "leave the dedicated pool",
                                   cpu, c->id);
                rc = -EBUSY;
                goto out;
            }
        for (uint32_t w = 0; w < h->nw; w++)
            cell[w] &= shared[w] | dedicated[w];
        if ((rc = cut_siblings(c, cell, &ns[i].n, &ns[i].off, &ns[i].cpu)) < 0)
            goto out;
    }
    /* commit */
    for (uint32_t i = 0; i < h->ncells; i++) {
        struct numafit__cell *c = &h->cells[i];
        memset(cell, 0, W * sizeof(uint64_t));
        for (uint32_t w = 0; w < h->nw; w++)
            cell[w] = c->cpuset[w] | c->pcpuset[w];
        for (uint32_t k = 0; c->nsib && k < c->sib_off[c->nsib]; k++)
            numafit__bit_set(cell, c->sib_cpu[k]);
        for (uint32_t w = 0; w < h->nw; w++) {
            c->cpuset[w] = cell[w] & shared[w];
            c->pcpuset[w] = cell[w] & dedicated[w];
        }
        numafit__free(c->sib_off);
        numafit__free(c->sib_cpu);
        c->nsib = ns[i].n;
        c->sib_off = ns[i].off;
        c->sib_cpu = ns[i].cpu;
        ns[i].off = NULL;
        ns[i].cpu = NULL;
    }
    /* the checks above keep the host invariants; checked all the same */
    rc = numafit__host_finish(h, 0, err);
out:
    for (uint32_t i = 0; ns && i < h->ncells; i++) {
        numafit__free(ns[i].off);
        numafit__free(ns[i].cpu);
    }
    numafit__free(ns);
    numafit__free(block);
    if (rc == -ENOMEM)
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
    return rc;
}

NUMAFIT_EXPORT int numafit_host_get_distance(const numafit_host_t *h, unsigned i, unsigned j,
                                             unsigned *ret) {
    if (!h || !ret)
        return -EINVAL;
    if (!h->distance || i >= h->ncells || j >= h->ncells)
        return -ENOENT;
    *ret = h->distance[(size_t)i * h->ncells + j];
    return 0;
}
