/* Internal declarations shared by the library's sources and its unit tests. */
#ifndef NUMAFIT_PRIVATE_H
#define NUMAFIT_PRIVATE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <numafit.h>

/* ------------------------------------------------------------ memory */
void *numafit__malloc(size_t size);
void *numafit__calloc(size_t n, size_t size);
void *numafit__realloc(void *p, size_t size);
void numafit__free(void *p);
char *numafit__strdup(const char *s);

/* ------------------------------------------------------------ errors */
/* Reset *err (if not NULL) to "no error". */
void numafit__error_clear(numafit_error_t *err);
/* Fill *err (if not NULL). exception may be NULL; where may be NULL. */
void numafit__error_set(numafit_error_t *err, int code, int cell, const char *where,
                        const char *exception, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* ------------------------------------------------------------ domain XML */
/* Copy into dst the settings of src that come from nova.conf (cpu_shared_set,
 * vcpu_pin_set, realtime priority, file-backed memory, domain type, CPU
 * mode), keeping dst's others (domain.c). */
void numafit__domconf_take_nova(struct numafit_domconf *dst, const struct numafit_domconf *src);
/* nova's _check_cpu_compatibility on conf's CPU options: 0 or -EINVAL
 * (exception Invalid). */
int numafit__domconf_check(const struct numafit_domconf *c, numafit_error_t *err);

/* Bounded string builder (strbuf.c). */
struct numafit__sbuf {
    char *b;
    size_t cap, len;
};
void numafit__sb_putc(struct numafit__sbuf *sb, char c);
void numafit__sb_puts(struct numafit__sbuf *sb, const char *s);
/* Python's repr() of s[0..n), cut to `limit` characters ("%.200R"; 0 = no limit). */
void numafit__sb_pyrepr(struct numafit__sbuf *sb, const char *s, size_t n, size_t limit);

/* ------------------------------------------------------------ CPU bitmaps
 * Bitmaps are arrays of uint64_t words; bit i is CPU i. Their width (in
 * words) is a property of the object holding them (host->nw, req->nw). */
#define NUMAFIT__CPU_LIMIT    (NUMAFIT_CPU_MAX + 1)
#define NUMAFIT__CPU_WORDS    (NUMAFIT__CPU_LIMIT / 64)
#define NUMAFIT__WORDS(nbits) (((nbits) + 63u) / 64u)

static inline bool numafit__bit_test(const uint64_t *w, unsigned i) {
    return (w[i >> 6] >> (i & 63)) & 1u;
}
static inline void numafit__bit_set(uint64_t *w, unsigned i) {
    w[i >> 6] |= 1ull << (i & 63);
}
static inline void numafit__bit_clear(uint64_t *w, unsigned i) {
    w[i >> 6] &= ~(1ull << (i & 63));
}
/* Population count of one word: the popcnt instruction when the build has
 * it, else a few arithmetic operations (no libgcc call). */
static inline unsigned numafit__popcount64(uint64_t x) {
#if defined(__POPCNT__)
    return (unsigned)__builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (unsigned)((x * 0x0101010101010101ull) >> 56);
#endif
}
unsigned numafit__bits_count(const uint64_t *w, unsigned nw);
/* Next set bit > after (after = -1 to start), or -1. */
int numafit__bits_next(const uint64_t *w, unsigned nw, int after);
bool numafit__bits_empty(const uint64_t *w, unsigned nw);
bool numafit__bits_equal(const uint64_t *a, const uint64_t *b, unsigned nw);
bool numafit__bits_subset(const uint64_t *a, const uint64_t *b, unsigned nw); /* a <= b */
bool numafit__bits_intersects(const uint64_t *a, const uint64_t *b, unsigned nw);
/* Highest set bit or -1. */
int numafit__bits_last(const uint64_t *w, unsigned nw);

struct numafit_cpuset {
    uint64_t w[NUMAFIT__CPU_WORDS];
};

/*
 * nova's parse_cpu_spec into a full-width bitmap (NUMAFIT__CPU_WORDS words,
 * zeroed by the callee). Returns 0, -EBADMSG (err: exception "Invalid",
 * nova's message), -ERANGE (an included id > NUMAFIT_CPU_MAX; exclusions
 * beyond it are ignored).
 */
int numafit__cpuspec_parse(const char *spec, uint64_t *bits, numafit_error_t *err);
/* nova's format_cpu_spec into a new string ("" for an empty set). NULL on ENOMEM. */
char *numafit__cpuspec_format(const uint64_t *bits, unsigned nw);

/* ------------------------------------------------------------ host model */
struct numafit__pages {
    uint64_t size_kb;
    uint64_t total;
    uint64_t used;
    uint64_t reserved;
};

struct numafit__cell {
    int32_t id;
    int32_t socket;  /* -1: null */
    uint64_t memory; /* MiB */
    uint64_t cpu_usage;
    uint64_t memory_usage; /* MiB */
    uint64_t *cpuset;      /* host->nw words: shared CPUs (VCPU) */
    uint64_t *pcpuset;     /* dedicated CPUs (PCPU) */
    uint64_t *pinned;      /* pinned_cpus */
    /* siblings: an ordered list of thread-sibling sets, each sorted ascending;
     * set k holds sib_cpu[sib_off[k] .. sib_off[k+1]-1]. */
    uint32_t nsib;
    /* nsib + 1 offsets, then nsib derived counts (NUMAFIT__SIB_OFF_LEN;
     * NULL when nsib == 0) */
    uint32_t *sib_off;
    uint16_t *sib_cpu;
    uint32_t npages; /* mempages, in input order */
    struct numafit__pages *pages;
    bool has_netmeta; /* network_metadata present */
    bool tunneled;
    uint32_t nphysnets;
    char **physnets;
    /* derived, kept by numafit__host_derive() (headroom.c's work_reset
     * copies them: a new derived field goes there too): CPUs in pcpuset, in
     * cpuset, and in pcpuset but not pinned */
    uint32_t count[3];
    uint32_t maxfree; /* most free dedicated threads in one sibling set */
    uint32_t tpc;     /* threads per core: the largest sibling set (>= 1) */
    bool sib_overlap; /* sibling sets share CPUs (odd hosts) */
};

/* Length of a cell's sib_off block for n sibling sets: the offsets, then
 * the free dedicated threads of each set (numafit__sib_free). */
#define NUMAFIT__SIB_OFF_LEN(n) (2 * (size_t)(n) + 1)
static inline uint32_t *numafit__sib_free(const struct numafit__cell *c) {
    return c->sib_off + c->nsib + 1;
}

struct numafit_host {
    uint32_t nw;     /* words per CPU bitmap (covers the highest CPU id) */
    uint32_t ncells; /* 0 is allowed: a host without NUMA topology */
    struct numafit__cell *cells;
    uint64_t *bits; /* one block holding every cell's three bitmaps */
    /* NUMA distances (ACPI SLIT, /sys/.../nodeN/distance), ncells x ncells in
     * cell index order, or NULL when unknown. nova ignores them; nova's JSON
     * does not carry them. */
    uint32_t *distance;
};

/* Allocate a host with ncells zeroed cells and zeroed bitmaps of nw words.
 * Siblings, pages and physnets are left empty (NULL). */
int numafit__host_alloc(uint32_t ncells, uint32_t nw, numafit_host_t **ret);
/* Recompute the cells' derived fields (numafit__cell.count). Every code
 * path that builds a host or changes its CPU sets or pinned CPUs calls it
 * before handing the host out. */
void numafit__host_derive(numafit_host_t *h);
/*
 * The host invariants every loader ends with (JSON, capabilities XML,
 * libvirt, sysfs, synthetic, CPU pools): what numafit_host_to_json writes
 * must read back with numafit_host_new_from_json(flags) to the same host.
 * Cell count and ids, memory and usage ranges, cpuset/pcpuset disjoint (or
 * equal, or overlapping with NUMAFIT_HOST_ALLOW_OVERLAP), pinned within
 * pcpuset, each CPU in one cell, sibling CPUs within the bitmap width and
 * each set strictly ascending, page sizes powers of two >= 4 KiB listed once
 * with counts in range, physnets valid UTF-8 without NUL, sorted and unique.
 * Returns 0, or -EINVAL/-ERANGE with *err naming the cell and field.
 */
int numafit__host_check(const numafit_host_t *h, unsigned flags, numafit_error_t *err);
/* numafit__host_check, then numafit__host_derive. */
int numafit__host_finish(numafit_host_t *h, unsigned flags, numafit_error_t *err);
/* Limits the host JSON format shares with the check. */
#define NUMAFIT__SOCKET_MAX    65535
#define NUMAFIT__CPU_USAGE_MAX INT32_MAX
#define NUMAFIT__PAGE_SIZE_MAX (1ull << 30) /* KiB: 1 TiB pages */
#define NUMAFIT__PAGE_KB_MAX   (NUMAFIT_MEMORY_MB_MAX * 1024)
#define NUMAFIT__PAGES_MAX     64u  /* page sizes in one cell */
#define NUMAFIT__PHYSNET_MAX   1024 /* bytes in one physnet name */
/* A cell's usage counters after a claim stay in the ranges above (and so
 * the host still reads back): memory_usage in MiB, cpu_usage, and the used
 * count of the page size page_kb the claim charges (0: no pages). The fit
 * and the claim ask the same question. */
static inline bool numafit__usage_in_range(uint64_t memory_usage, uint64_t cpu_usage,
                                           uint64_t pages_used, uint64_t page_kb) {
    return memory_usage <= NUMAFIT_MEMORY_MB_MAX && cpu_usage <= NUMAFIT__CPU_USAGE_MAX &&
           (page_kb == 0 || pages_used <= NUMAFIT__PAGE_KB_MAX / page_kb);
}
/* s[0..n) is valid UTF-8 (no overlongs, surrogates or code points above
 * U+10FFFF) without NUL: what jansson reads and writes. */
bool numafit__utf8_ok(const char *s, size_t n);
/* The host readers' set rules. Sort cpus[start..end) ascending and drop
 * repeated CPUs (one thread-sibling set); return the new end. */
uint32_t numafit__sib_set_normalize(uint16_t *cpus, uint32_t start, uint32_t end);
/* Sort names[0..n) and free the repeated ones (a set of physnets); return
 * how many are kept, at the front. */
uint32_t numafit__names_normalize(char **names, uint32_t n);
void numafit__cell_derive(numafit_host_t *h, uint32_t index);
/* Are the derived fields up to date? (tests) */
bool numafit__host_derived_ok(const numafit_host_t *h);
/* Index of the cell with this id, or -1. */
int numafit__host_cell_index(const numafit_host_t *h, int id);

/* ------------------------------------------------------------ requests */
struct numafit__rcell {
    uint64_t *cpuset;  /* req->nw words: shared guest vCPUs */
    uint64_t *pcpuset; /* dedicated guest vCPUs */
    uint64_t memory;   /* MiB */
};

struct numafit_request {
    uint32_t vcpus;
    uint64_t memory_mb;
    uint32_t nw;     /* NUMAFIT__WORDS(vcpus), at least 1 */
    uint32_t ncells; /* 0: no NUMA topology (nova returns None) */
    struct numafit__rcell *cells;
    int cpu_policy;      /* enum numafit_cpu_policy */
    int thread_policy;   /* enum numafit_thread_policy */
    int emulator_policy; /* enum numafit_emulator_threads_policy */
    int64_t pagesize;    /* NUMAFIT_PAGESIZE_* or KiB */
    bool realtime;       /* hw:cpu_realtime on the flavor */
    uint64_t *rt_mask;   /* nw words: the realtime vCPUs (NULL if not realtime) */
    int locked_memory;   /* -1 unset, 0, 1 */
    /* for what the request asks of placement (resources.c): */
    bool cpu_policy_from_resources; /* cpu_policy comes from resources:VCPU/PCPU */
    bool image_smt_required;        /* the image requires HW_CPU_HYPERTHREADING */
    uint32_t npmem;                 /* hw:pmem labels */
    char **pmem;
};

int numafit__request_alloc(uint32_t vcpus, uint32_t ncells, numafit_request_t **ret);

/* ------------------------------------------------------------ options */
struct numafit_options {
    int profile;
    int strategy;
    bool has_limits;
    double cpu_ratio;
    double ram_ratio;
    bool has_netmeta; /* network_metadata requested */
    bool tunneled;
    uint32_t nphysnets;
    char **physnets;
    uint64_t budget;                             /* 0 = unlimited */
    const struct numafit_pci_pools *pci_pools;   /* borrowed, NULL: none */
    const struct numafit_pci_requests *pci_reqs; /* borrowed, NULL: none */
    numafit_pci_check_fn pci_fn;                 /* NULL: the library's rules */
    void *pci_ctx;
    /* the headroom strategy's flavor mix: nmix requests (borrowed) and
     * their weights (both arrays owned), or none */
    uint32_t nmix;
    const struct numafit_request **mix;
    double *mix_weight;
};

/* The fit's building blocks for the headroom strategy (fit.c, headroom.c). */
int numafit__fit_ordered(const numafit_host_t *h, const numafit_request_t *r,
                         const numafit_options_t *o, int strategy, const uint32_t *order,
                         bool bestfit, uint64_t budget, uint64_t *steps, numafit_placement_t **ret,
                         numafit_error_t *err);
int numafit__fit_order_for(const numafit_host_t *h, const numafit_request_t *r,
                           const numafit_options_t *o, int strategy, uint32_t *order);
int numafit__fit_headroom(const numafit_host_t *h, const numafit_request_t *r,
                          const numafit_options_t *o, numafit_placement_t **ret,
                          numafit_error_t *err);

/* ------------------------------------------------------------ placements */
struct numafit__pcell {
    int32_t host_id;   /* host NUMA cell id */
    uint64_t *cpuset;  /* p->nw words: guest vCPUs (shared) */
    uint64_t *pcpuset; /* p->nw words: guest vCPUs (dedicated) */
    uint64_t memory;   /* MiB */
    int64_t pagesize;  /* chosen page size KiB, 0 = null */
    int cpu_policy;
    int thread_policy;
    bool has_pinning; /* cpu_pinning not null */
    uint32_t npin;    /* cpu_pinning: pin_vcpu[k] -> pin_pcpu[k], vcpu ascending */
    uint32_t *pin_vcpu;
    uint32_t *pin_pcpu;
    bool has_reserved; /* cpuset_reserved not null */
    uint32_t nreserved;
    uint32_t *reserved; /* host CPUs for emulator threads */
};

struct numafit_placement {
    uint32_t nw;
    uint32_t ncells;
    struct numafit__pcell *cells;
    int emulator_policy;
    char uuid[37];  /* "" = generate when written */
    uint32_t *pool; /* storage of the cells' pin and reserved arrays */
    uint32_t pool_cap, pool_used;
};

/* One block holding the placement, its cells and bitmaps, and a pool of
 * `pool` uint32_t for pinnings (two per pin) and reserved CPUs. */
int numafit__placement_alloc(uint32_t nw, uint32_t ncells, uint32_t pool,
                             numafit_placement_t **ret);
/* n entries from the pool, or NULL when it is exhausted. */
uint32_t *numafit__placement_take(numafit_placement_t *p, uint32_t n);

/* ------------------------------------------------------------ fit test hooks */
/* nova's host cell order for this request (indexes into host->cells). */
int numafit__fit_order(const numafit_host_t *h, const numafit_request_t *r,
                       const numafit_options_t *o, uint32_t *order);
/* One (host cell index, guest cell) check: 0 fits, else NUMAFIT_E_NOFIT_*. */
int numafit__fit_pair(const numafit_host_t *h, const numafit_request_t *r,
                      const numafit_options_t *o, uint32_t host_index, uint32_t guest);

/* ------------------------------------------------------------ JSON output helpers */
/* Dump a jansson value to a numafit__malloc'ed string (declared with void *
 * to keep jansson out of this header). */
char *numafit__json_dump(const void *json_t_value, unsigned numafit_flags);
/* The negative errno for a json_loadb()/json_loads() that returned NULL,
 * given its json_error_t: -ENOMEM when jansson ran out of memory, else
 * -EBADMSG. jansson reports json_error_out_of_memory for some allocations
 * only; when it cannot allocate its lexer or a value it leaves the error as
 * it initialised it (empty text), which a syntax error never does. */
int numafit__json_load_errno(const void *json_error);
/*
 * jansson keeps 40-60 bytes per value, so a JSON text of small values costs
 * some 40 times its size before any check can refuse it. Each reader first
 * counts the values (a byte scan, no allocation) and refuses a text with
 * more than it can hold, so memory stays within a few MiB of what a valid
 * input needs: -ERANGE, NUMAFIT_E_RANGE, "WHAT: more than N JSON values".
 */
#define NUMAFIT__JSON_VALUES_HOST      (1u << 18) /* host JSON: 16,384 CPUs, 1,024 cells */
#define NUMAFIT__JSON_VALUES_PLACEMENT (1u << 17) /* placements: 16,384 vCPUs */
#define NUMAFIT__JSON_VALUES_SMALL     (1u << 16) /* flavors, images, limits, options */
int numafit__json_check_values(const char *buf, size_t len, size_t max, const char *what,
                               numafit_error_t *err);

#endif
