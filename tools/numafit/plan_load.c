/*
 * numafit plan over a fleet: the fleet being built from the inputs (sources,
 * hosts by name, identical host texts, page sizes, allocation ratios), the
 * file helpers the readers share, and freeing it all. The readers:
 * plan_hosts.c (hosts), plan_rows.c and plan_jsonl.c (database dumps),
 * plan_instances.c, plan_flavors.c. Every message names the file, the line
 * and the field, and goes to the caller's sink (plan_sink.c); bad input gives
 * PLAN_EXIT_INPUT.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <numafit.h>

#include "cli_io.h"
#include "plan_fleet.h"
#include "plan_load.h"

/* The exit status of a library failure: bad input unless out of memory. */
int plan_lib_status(int rc) {
    return rc == -ENOMEM ? PLAN_EXIT_FAIL : PLAN_EXIT_INPUT;
}

const char *plan_source_kind_name(int kind) {
    static const char *const names[] = {"dir", "db", "uri", "sysfs", "synthetic", "json"};
    return kind >= 0 && kind <= SRC_JSON ? names[kind] : "?";
}

/* ------------------------------------------------------------------ fleet bookkeeping */

const char *plan_host_name(const struct plan *pl, size_t i) {
    return pl->names + pl->hosts[i].name;
}

static uint64_t name_hash(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

/* The host index of name, or -1. */
long plan_find_host(const struct plan *pl, const char *name) {
    size_t mask, i;
    if (!pl->name_index_cap)
        return -1;
    mask = pl->name_index_cap - 1;
    for (i = (size_t)name_hash(name) & mask; pl->name_index[i]; i = (i + 1) & mask)
        if (strcmp(plan_host_name(pl, pl->name_index[i] - 1), name) == 0)
            return (long)pl->name_index[i] - 1;
    return -1;
}

static int index_grow(struct plan *pl) {
    size_t ncap = pl->name_index_cap ? pl->name_index_cap * 2 : 1024, i, mask = ncap - 1;
    uint32_t *t = calloc(ncap, sizeof(*t));
    if (!t)
        return -1;
    for (i = 0; i < pl->nhosts; i++) {
        size_t j = (size_t)name_hash(plan_host_name(pl, i)) & mask;
        while (t[j])
            j = (j + 1) & mask;
        t[j] = (uint32_t)i + 1;
    }
    free(pl->name_index);
    pl->name_index = t;
    pl->name_index_cap = ncap;
    return 0;
}

int plan_page_size_find(const struct plan *pl, uint64_t size_kb) {
    for (unsigned i = 0; i < pl->npage_sizes; i++)
        if (pl->page_sizes[i] == size_kb)
            return (int)i;
    return -1;
}

int plan_page_size_index(struct plan *pl, uint64_t size_kb) {
    unsigned i;
    for (i = 0; i < pl->npage_sizes; i++)
        if (pl->page_sizes[i] == size_kb)
            return (int)i;
    if (pl->npage_sizes == PLAN_MAX_PAGE_SIZES)
        return -1;
    /* keep them ascending */
    for (i = pl->npage_sizes; i > 0 && pl->page_sizes[i - 1] > size_kb; i--)
        pl->page_sizes[i] = pl->page_sizes[i - 1];
    pl->page_sizes[i] = size_kb;
    pl->npage_sizes++;
    return (int)i;
}

int plan_limits_index(struct plan *pl, double cpu, double ram, uint8_t *ret) {
    unsigned i;
    for (i = 0; i < pl->nlimits; i++)
        if (pl->limits[i].cpu_ratio == cpu && pl->limits[i].ram_ratio == ram) {
            *ret = (uint8_t)i;
            return 0;
        }
    if (pl->nlimits > PLAN_MAX_LIMITS)
        return -1;
    pl->limits[pl->nlimits].cpu_ratio = cpu;
    pl->limits[pl->nlimits].ram_ratio = ram;
    *ret = (uint8_t)pl->nlimits++;
    return 0;
}

int plan_add_source(struct plan *pl, int kind, const char *what) {
    if (pl->nsources == pl->sources_cap) {
        size_t ncap = pl->sources_cap ? pl->sources_cap * 2 : 8;
        struct plan_source *n = realloc(pl->sources, ncap * sizeof(*n));
        if (!n) {
            plan_error(pl, "out of memory");
            return -1;
        }
        pl->sources = n;
        pl->sources_cap = ncap;
    }
    memset(&pl->sources[pl->nsources], 0, sizeof(pl->sources[0]));
    pl->sources[pl->nsources].kind = kind;
    pl->sources[pl->nsources].what = what;
    pl->sources[pl->nsources].group = -1;
    return (int)pl->nsources++;
}

/* Pinned CPUs of a host (as loaded); notes its huge page sizes. Returns
 * -1 when the fleet has too many page sizes. */
static int host_facts(struct plan *pl, const numafit_host_t *h, uint32_t *ret_pinned) {
    int n = numafit_host_get_cell_count(h);
    uint64_t pinned = 0, v, npages, size;
    for (int c = 0; c < n; c++) {
        if (numafit_host_get_cell_stat(h, (unsigned)c, NUMAFIT_CELL_PINNED_CPUS, 0, &v) == 0)
            pinned += v;
        if (numafit_host_get_cell_stat(h, (unsigned)c, NUMAFIT_CELL_PAGE_SIZES, 0, &npages) < 0)
            continue;
        for (unsigned k = 0; k < npages; k++)
            if (numafit_host_get_cell_pages(h, (unsigned)c, k, 0, &size, NULL, NULL, NULL) == 0 &&
                size > 4 && plan_page_size_index(pl, size) < 0)
                return -1;
    }
    *ret_pinned = (uint32_t)pinned;
    return 0;
}

/*
 * Add a loaded host (takes h). group >= 0: the host is identical to the
 * others of the group, facts are taken from `facts_from` (a host index) when
 * >= 0. where: the message prefix for errors. Returns the index, or -1 after
 * printing why (*status set).
 */
long plan_add_host(struct plan *pl, numafit_host_t *h, const char *name, int source, int32_t group,
                   long facts_from, const char *where, int *status) {
    size_t nlen = strlen(name);
    struct plan_host *ph;

    *status = PLAN_EXIT_INPUT;
    if (pl->nhosts >= PLAN_MAX_HOSTS) {
        plan_error(pl, "%s: more than %d hosts in the fleet", where, PLAN_MAX_HOSTS);
        numafit_host_free(h);
        return -1;
    }
    if (nlen == 0 || nlen > 255) {
        plan_error(pl, "%s: a host name must have 1 to 255 bytes", where);
        numafit_host_free(h);
        return -1;
    }
    if (plan_find_host(pl, name) >= 0) {
        plan_error(pl, "%s: host name \"%s\" given twice", where, name);
        numafit_host_free(h);
        return -1;
    }
    *status = PLAN_EXIT_FAIL;
    if (pl->nhosts == pl->hosts_cap) {
        size_t ncap = pl->hosts_cap ? pl->hosts_cap * 2 : 1024;
        struct plan_host *n = realloc(pl->hosts, ncap * sizeof(*n));
        if (!n)
            goto nomem;
        pl->hosts = n;
        pl->hosts_cap = ncap;
    }
    if (pl->names_len + nlen + 1 > pl->names_cap) {
        size_t ncap = pl->names_cap ? pl->names_cap * 2 : 65536;
        char *n;
        while (ncap < pl->names_len + nlen + 1)
            ncap *= 2;
        n = realloc(pl->names, ncap);
        if (!n)
            goto nomem;
        pl->names = n;
        pl->names_cap = ncap;
    }
    if ((pl->nhosts + 1) * 2 > pl->name_index_cap && index_grow(pl) < 0)
        goto nomem;
    ph = &pl->hosts[pl->nhosts];
    memset(ph, 0, sizeof(*ph));
    ph->h = h;
    ph->name = (uint32_t)pl->names_len;
    memcpy(pl->names + pl->names_len, name, nlen + 1);
    pl->names_len += nlen + 1;
    ph->source = (uint16_t)source;
    ph->group = group;
    ph->db_disk_gb = ph->db_vcpus_used = ph->db_memory_used_mb = ph->db_disk_used_gb = -1;
    if (facts_from >= 0) {
        ph->unknown_pinned = pl->hosts[facts_from].unknown_pinned;
    } else if (host_facts(pl, h, &ph->unknown_pinned) < 0) {
        plan_error(pl, "%s: more than %d huge page sizes in the fleet", where, PLAN_MAX_PAGE_SIZES);
        *status = PLAN_EXIT_INPUT;
        numafit_host_free(h);
        return -1;
    }
    {
        size_t mask = pl->name_index_cap - 1, j = (size_t)name_hash(name) & mask;
        while (pl->name_index[j])
            j = (j + 1) & mask;
        pl->name_index[j] = (uint32_t)pl->nhosts + 1;
    }
    pl->sources[source].hosts++;
    return (long)pl->nhosts++;
nomem:
    plan_error(pl, "out of memory");
    numafit_host_free(h);
    return -1;
}

/* ------------------------------------------------------------------ files */

/* Read a whole regular file of at most max bytes (NUL-terminated). Prints
 * why and returns NULL on failure (*status set). */
char *plan_read_all(const struct plan *pl, const char *path, size_t max, size_t *ret_len,
                    int *status) {
    char *buf = NULL, why[256];
    int rc = cli_read_file(path, max, false, &buf, ret_len, why, sizeof(why));

    if (rc < 0) {
        *status = rc == -ENOMEM ? PLAN_EXIT_FAIL : PLAN_EXIT_INPUT;
        plan_error(pl, "%s: %s", path, why);
        return NULL;
    }
    *status = 0;
    return buf;
}

/* The file name without directories and without a last ".ext". */
void plan_file_stem(const char *path, char *out, size_t cap) {
    const char *base = strrchr(path, '/'), *dot;
    size_t n;
    base = base ? base + 1 : path;
    dot = strrchr(base, '.');
    n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    if (n >= cap)
        n = cap - 1;
    memcpy(out, base, n);
    out[n] = '\0';
}

/* The last path component, trailing slashes ignored. */
void plan_base_name(const char *path, char *out, size_t cap) {
    size_t n = strlen(path), start;
    while (n > 1 && path[n - 1] == '/')
        n--;
    start = n;
    while (start > 0 && path[start - 1] != '/')
        start--;
    n -= start;
    if (n >= cap)
        n = cap - 1;
    memcpy(out, path + start, n);
    out[n] = '\0';
}

/* Two independent 64-bit hashes of a text (multiply-rotate over 8-byte
 * words, different constants, murmur3's finaliser). */
static uint64_t fmix64(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

static void text_hash(const char *t, size_t n, uint64_t *h1, uint64_t *h2) {
    uint64_t a = 0x9e3779b97f4a7c15ull ^ n, b = 0x6a09e667f3bcc909ull + n, w;
    size_t i;
    for (i = 0; i + 8 <= n; i += 8) {
        memcpy(&w, t + i, 8);
        a ^= w * 0x87c37b91114253d5ull;
        a = (a << 31 | a >> 33) * 0x4cf5ad432745937full;
        b += w * 0x9ddfea08eb382d69ull;
        b = (b << 27 | b >> 37) * 0x52dce729ull + 0x38495ab5ull;
    }
    w = 0;
    memcpy(&w, t + i, n - i);
    a ^= w * 0x87c37b91114253d5ull;
    b += w * 0x9ddfea08eb382d69ull;
    *h1 = fmix64(a);
    *h2 = fmix64(b ^ (a >> 7));
}

/* The slot of a text hash (found, or the empty one to fill). */
static struct plan_text *text_slot(struct plan *pl, uint64_t h1, uint64_t h2) {
    size_t mask = pl->texts_cap - 1, i;
    for (i = (size_t)h1 & mask;; i = (i + 1) & mask) {
        struct plan_text *t = &pl->texts[i];
        if (!t->host || (t->h1 == h1 && t->h2 == h2))
            return t;
    }
}

static int texts_grow(struct plan *pl) {
    size_t ncap = pl->texts_cap ? pl->texts_cap * 2 : 1024;
    struct plan_text *old = pl->texts, *n = calloc(ncap, sizeof(*n));
    size_t oldcap = pl->texts_cap;
    if (!n)
        return -1;
    pl->texts = n;
    pl->texts_cap = ncap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].host)
            *text_slot(pl, old[i].h1, old[i].h2) = old[i];
    free(old);
    return 0;
}

/*
 * Load one host from nova JSON text (a primitive, its DB string form or the
 * legacy dict). A text seen before gives a copy of the host it gave (no
 * second parse), in the same group: their alone counts are computed once.
 */
int plan_json_host(struct plan *pl, const char *text, size_t len, const char *name, int source,
                   const char *where) {
    numafit_host_t *h = NULL;
    numafit_error_t e;
    struct plan_text *slot;
    uint64_t h1, h2;
    long idx;
    int rc, status;

    if ((pl->ntexts + 1) * 2 > pl->texts_cap && texts_grow(pl) < 0) {
        plan_error(pl, "out of memory");
        return PLAN_EXIT_FAIL;
    }
    text_hash(text, len, &h1, &h2);
    slot = text_slot(pl, h1, h2);
    if (slot->host) {
        const struct plan_host *first = &pl->hosts[slot->host - 1];
        if (numafit_host_dup(first->h, &h) < 0) {
            plan_error(pl, "out of memory");
            return PLAN_EXIT_FAIL;
        }
        if (plan_add_host(pl, h, name, source, slot->group, (long)slot->host - 1, where, &status) <
            0)
            return status;
        return 0;
    }
    memset(&e, 0, sizeof(e));
    rc = numafit_host_new_from_json(text, len, 0, &h, &e);
    if (rc < 0) {
        char prefix[1024];
        snprintf(prefix, sizeof(prefix), "%s: host %s", where, name);
        plan_lib_error(pl, prefix, rc, &e);
        return plan_lib_status(rc);
    }
    idx = plan_add_host(pl, h, name, source, pl->ngroups, -1, where, &status);
    if (idx < 0)
        return status;
    slot->h1 = h1;
    slot->h2 = h2;
    slot->host = (uint32_t)idx + 1;
    slot->group = pl->ngroups++;
    pl->ntexts++;
    return 0;
}

/* ------------------------------------------------------------------ cleanup */

void plan_set_pools(struct plan *pl, size_t hi, numafit_pci_pools_t *pools) {
    numafit_pci_pools_free(pl->hosts[hi].pools);
    pl->hosts[hi].pools = pools;
    pl->pci = true;
}

void plan_pci_groups(struct plan *pl) {
    /* the first host of each group; the others keep the group only with
     * the same pools (the alone fills of a group are computed once) */
    long *first;
    if (!pl->pci || pl->ngroups <= 0)
        return;
    first = malloc((size_t)pl->ngroups * sizeof(*first));
    if (!first) {
        /* no sharing at all is still right, only slower */
        for (size_t hi = 0; hi < pl->nhosts; hi++)
            pl->hosts[hi].group = -1;
        return;
    }
    for (int32_t g = 0; g < pl->ngroups; g++)
        first[g] = -1;
    for (size_t hi = 0; hi < pl->nhosts; hi++) {
        struct plan_host *ph = &pl->hosts[hi];
        const numafit_pci_pools_t *a, *b;
        if (ph->group < 0)
            continue;
        if (first[ph->group] < 0) {
            first[ph->group] = (long)hi;
            continue;
        }
        a = pl->hosts[first[ph->group]].pools;
        b = ph->pools;
        if ((a || b) && (!a || !b || numafit_pci_pools_equal(a, b) != 1))
            ph->group = -1;
    }
    free(first);
}

void plan_free(struct plan *pl) {
    size_t i;
    for (i = 0; i < pl->nhosts; i++) {
        numafit_host_free(pl->hosts[i].h);
        numafit_inventory_free(pl->hosts[i].inv);
        numafit_pci_pools_free(pl->hosts[i].pools);
    }
    free(pl->hosts);
    free(pl->inv_conf);
    free(pl->nova_conf);
    numafit_pci_pools_free(pl->pci_empty);
    free(pl->names);
    free(pl->name_index);
    free(pl->texts);
    free(pl->sources);
    for (i = 0; i < pl->nexisting; i++) {
        free(pl->existing[i].flavor);
        json_decref(pl->existing[i].cells);
    }
    free(pl->existing);
    for (i = 0; i < pl->nflavors; i++) {
        free(pl->flavors[i].name);
        json_decref(pl->flavors[i].given);
        json_decref(pl->flavors[i].lib_flavor);
        json_decref(pl->flavors[i].image);
        numafit_request_free(pl->flavors[i].req);
        numafit_pci_requests_free(pl->flavors[i].pci);
    }
    for (i = 0; i < pl->nlimits; i++) {
        for (int k = 0; k < PLAN_MAX_STRATEGIES; k++)
            numafit_options_free(pl->limits[i].opt[k]);
    }
    for (i = 0; i < pl->nresults; i++) {
        free(pl->results[i].top);
        json_decref(pl->results[i].hosts);
    }
    json_decref(pl->limits_json);
    memset(pl, 0, sizeof(*pl));
}
