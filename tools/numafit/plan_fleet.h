/* numafit plan over a fleet: shared declarations of cmd_plan_fleet.c,
 * the readers (plan_load.c: the fleet being built; plan_hosts.c,
 * plan_instances.c, plan_flavors.c; plan_rows.c and plan_jsonl.c for
 * database dumps, through plan_load.h), plan_fill.c (the fills and what
 * they leave), plan_sink.c (how the planner reports: it never prints) and
 * plan_report.c (terminal report, progress bar, the command line's printing
 * of what the planner reports). Output format: doc/plan-json.md. */
#ifndef NUMAFIT_PLAN_FLEET_H
#define NUMAFIT_PLAN_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include <numafit.h>

#define PLAN_EXIT_FAIL         1       /* run-time failure (I/O, library error) */
#define PLAN_EXIT_INPUT        2       /* usage or bad input */
#define PLAN_MAX_HOSTS         1000000 /* most hosts in a fleet */
#define PLAN_MAX_FLAVORS       64
#define PLAN_MAX_PAGE_SIZES    16   /* distinct huge page sizes in a fleet */
#define PLAN_MAX_LIMITS        255  /* distinct per-host allocation ratio pairs */
#define PLAN_EXPLAIN_SAMPLE    1000 /* hosts explained per flavor and strategy */
#define PLAN_DEFAULT_CPU_RATIO 4.0  /* nova's initial_cpu_allocation_ratio (the fuzzer's) */
#define PLAN_DEFAULT_RAM_RATIO 1.0  /* nova's initial_ram_allocation_ratio */
/* Strategies the planner knows (plan_strategy_name(): the index is the
 * library's enum numafit_strategy). */
#define PLAN_MAX_STRATEGIES 3

/* Where hosts come from (one entry per command-line source). */
enum plan_source_kind { SRC_DIR, SRC_DB, SRC_URI, SRC_SYSFS, SRC_SYNTHETIC, SRC_JSON };

struct plan_source {
    int kind;         /* enum plan_source_kind */
    const char *what; /* path, URI or spec (argv, not owned) */
    uint32_t hosts;   /* hosts it gave */
    uint32_t skipped; /* rows without a topology, deleted rows */
    int32_t group;    /* synthetic: the identical-host group of its hosts */
};

/* One host of the fleet, as loaded (existing instances claimed). */
struct plan_host {
    numafit_host_t *h;
    uint32_t name;   /* offset in plan.names */
    uint16_t source; /* index in plan.sources */
    uint8_t limits;  /* index in plan.limits (per-host allocation ratios) */
    uint8_t pad;
    int32_t group;            /* hosts of a group are identical (alone counts shared); -1 */
    uint32_t unknown_pinned;  /* pinned CPUs in the host JSON (owner unknown) */
    uint32_t known_pins;      /* vCPU and emulator pins of the --instances claimed here */
    uint32_t existing;        /* --instances claimed here */
    numafit_inventory_t *inv; /* placement's inventory (NULL: --no-inventory) */
    int64_t db_memory_mb;     /* the dump's memory_mb (MEMORY_MB total), 0: none */
    int64_t db_disk_gb;     /* its DISK_GB total (the dump's local_gb, a spec's disk:), -1: none */
    double db_disk_ratio;   /* the dump's disk_allocation_ratio, 0: none */
    uint64_t nonnuma_mb;    /* memory of instances without NUMA topology here */
    uint64_t nonnuma_vcpus; /* and their vCPUs */
    uint64_t nonnuma_disk_gb; /* disk of the --instances here (root_gb + ephemeral_gb) */
    int64_t db_vcpus_used, db_memory_used_mb, db_disk_used_gb; /* the dump's, -1: none */
    numafit_pci_pools_t *pools; /* PCI device pools (free devices), NULL: none reported */
};

/* A distinct host JSON text seen while loading (128-bit hash): hosts with
 * the same text are copies of the first one and share its group. */
struct plan_text {
    uint64_t h1, h2;
    uint32_t host; /* index + 1; 0: empty slot */
    int32_t group;
};

/* An existing instance kept for the host detail (drawn hosts only). */
struct plan_existing {
    uint32_t host;
    char *flavor;  /* the row's flavor name, or NULL */
    json_t *cells; /* the placement, plain form (numafit_placement_to_json) */
};

struct plan_flavor {
    char *name;
    json_t *given;               /* the flavor object as given (owned) */
    json_t *lib_flavor;          /* {"vcpus","memory_mb","extra_specs"} (owned) */
    json_t *image;               /* {"properties":{...}} or NULL (owned) */
    numafit_request_t *req;      /* NULL: no NUMA topology */
    numafit_pci_requests_t *pci; /* its PCI requests (pci_passthrough:alias), NULL: none */
    int64_t pci_devices;         /* devices per instance */
    bool planned;                /* in the plan (without NUMA topology: only with inventory) */
    unsigned rbits, lbits;       /* numafit_resources_from_flavor()'s bits (first, second query) */
    int64_t amounts[NUMAFIT_RC_COUNT]; /* what it asks of placement */
    int64_t legacy[NUMAFIT_RC_COUNT];  /* nova's second query (rbits & FALLBACK) */
    double weight;
    int vcpus, cells, cpu_policy, thread_policy, emulator_policy;
    uint64_t memory_mb;
    int pagesize_kb;    /* > 0 when a page size is requested, else 0 */
    int form;           /* enum numafit_input_form it was read in */
    const char *origin; /* file it came from (argv) */
    unsigned long line; /* line or entry number there */
};

/* Per-host allocation ratios (index 0: the fleet's limits). */
struct plan_limits {
    double cpu_ratio, ram_ratio;                 /* 0: no limits */
    numafit_options_t *opt[PLAN_MAX_STRATEGIES]; /* by strategy; NULL: not planned */
};

/* Capacity left after a fill (doc/plan-json.md <capacity>). */
struct plan_cap {
    uint64_t free_pcpus, free_shared_vcpus, lost_siblings, orphan_threads, free_memory_mb,
        memory_without_cpus_mb, cpus_without_memory;
    uint64_t pages_free[PLAN_MAX_PAGE_SIZES], pages_without_cpus[PLAN_MAX_PAGE_SIZES];
    uint64_t pci_free, pci_without_cpus; /* PCI devices left; those on cells without a free CPU */
};

/* What stopped a flavor on a host: an inventory class (enum
 * numafit_resource_class), or one of these. */
enum plan_stop {
    STOP_TRAIT = NUMAFIT_RC_COUNT, /* the SMT trait (HW_CPU_HYPERTHREADING) */
    STOP_NUMA,                     /* the NUMA fit */
    STOP_CAPPED,                   /* --max-instances */
    STOP_PCI,                      /* the PCI devices (pci_passthrough:alias) */
    STOP__MAX
};

/* Placement's classes over the fleet (doc/plan-json.md <inventory>). */
struct plan_classes {
    uint64_t capacity[NUMAFIT_RC_COUNT]; /* int((total - reserved) x ratio), summed */
    uint64_t used_before[NUMAFIT_RC_COUNT];
    uint64_t used[NUMAFIT_RC_COUNT]; /* after the mixed fill */
    /* left after the mixed fill, by the host's first full class (the
     * class itself: less left than any flavor asks; STOP_NUMA: no class
     * is full, the NUMA fit stops the mix) */
    uint64_t left_by[NUMAFIT_RC_COUNT][STOP__MAX];
    uint32_t hosts_by[STOP__MAX]; /* hosts by their first full class (or STOP_NUMA) */
};

/* Memory of instances without NUMA topology that the cells' room cannot
 * hold (nova does not count it in the cells). */
struct plan_overcommit {
    uint32_t shared_hosts; /* hosts with guests with and without NUMA topology */
    uint32_t hosts;        /* of all hosts: those overcommitted */
    uint64_t memory_mb;
    uint32_t worst_host;
    uint64_t worst_mb;
};

/* Why-not tally of one flavor. */
enum plan_reason {
    R_PAGES,
    R_DEDICATED_CPUS,
    R_SHARED_CPUS,
    R_FULL_CORES,
    R_MEMORY,
    R_LIMITS,
    R_NETWORK,
    R_CELLS,
    R_JOINT,
    R_OTHER,
    R_PCI,       /* the PCI devices (pci_passthrough:alias) */
    R_INVENTORY, /* placement's inventory has no room (a host counts once) */
    R__MAX
};

struct plan_whynot {
    bool asked;       /* the flavor fits nowhere: explained */
    bool before_fill; /* explained on the fleet before the fill (alone count 0) */
    uint32_t hosts_checked;
    uint64_t host_cells; /* (host cell, guest cell) checks refused + host-level refusals */
    uint64_t count[R__MAX];
};

/* A host in the --top list. */
struct plan_top {
    uint32_t host;
    uint64_t stranded_pcpus, stranded_memory_mb;
    uint32_t mixed[PLAN_MAX_FLAVORS]; /* its instances by flavor */
};

/* A plan instance kept for the host detail. */
struct plan_kept {
    uint32_t flavor;
    numafit_placement_t *p;
};

/* --target: N instances of the mix in its proportions, placed as the mixed
 * fill places them (each on the first host in fleet order where it fits). */
struct plan_target {
    uint64_t placed[PLAN_MAX_FLAVORS]; /* of each flavor's share (plan.target_share) */
    uint64_t placed_total;
    bool reachable;        /* every share placed */
    uint32_t hosts_needed; /* reachable: the first hosts_needed hosts of the fleet hold them */
    uint32_t hosts_used;   /* of those, hosts given an instance */
};

/* What one strategy gave. */
struct plan_result {
    int strategy;  /* enum numafit_strategy */
    bool in_place; /* fill the fleet's own hosts (the last strategy run) */
    uint64_t alone[PLAN_MAX_FLAVORS];
    uint64_t mixed[PLAN_MAX_FLAVORS];
    uint64_t mixed_total;
    uint32_t hosts_used;
    uint32_t capped_hosts; /* hosts that reached --max-instances (mixed) */
    uint64_t alone_capped; /* (host, flavor) alone fills stopped at --max-instances */
    struct plan_cap stranded;
    uint32_t stopped[PLAN_MAX_FLAVORS][STOP__MAX]; /* alone: hosts by what stopped the flavor */
    bool legacy[PLAN_MAX_FLAVORS];                 /* alone: nova's second query was used */
    struct plan_classes classes;                   /* with inventory */
    struct plan_overcommit overcommit;             /* after the mixed fill */
    struct plan_whynot whynot[PLAN_MAX_FLAVORS];
    struct plan_top *top; /* ntop entries, most stranding first */
    uint32_t ntop;
    json_t *hosts;             /* <host> objects of the kept hosts (owned) */
    double seconds;            /* wall time of this strategy */
    struct plan_target target; /* with --target */
};

struct plan_progress;

/* Where the planner's messages and progress go (it never prints). */
enum plan_note_kind {
    PLAN_NOTE_ERROR,   /* why a loader or a fill fails (more than one may come) */
    PLAN_NOTE_WARNING, /* input taken, with a remark */
};
enum plan_tick_kind {
    PLAN_TICK_BEGIN, /* a long step of its own starts (loading a big dump): n units, text the phase
                      */
    PLAN_TICK_STEP,  /* n units of work done; text says what */
    PLAN_TICK_END,   /* the step begun is over */
};
struct plan_sink {
    /* one line of text, without the "numafit plan: " prefix; NULL: dropped */
    void (*note)(void *ctx, int kind, const char *text);
    /* progress; NULL: none */
    void (*tick)(void *ctx, int kind, uint64_t n, const char *text);
    void *ctx;
};

struct plan {
    /* options */
    int profile;
    unsigned req_flags;
    bool xs_off;                          /* --no-check-extra-specs */
    const char *xs_allow;                 /* --allow-extra-specs */
    bool strategies[PLAN_MAX_STRATEGIES]; /* by enum numafit_strategy */
    bool weights;                         /* --mix weights */
    bool json, detail, placements, no_progress;
    bool tty; /* stderr is a terminal and no --no-progress */
    const char *svg_path, *html_path;
    uint32_t draw, top;
    uint64_t max_instances; /* per host and fill */
    bool has_target;        /* --target N */
    uint64_t target;
    uint64_t target_share[PLAN_MAX_FLAVORS]; /* N split by the mix (plan_target_shares) */
    bool no_limits;                          /* --limits none */
    bool inventory;                          /* placement's step (not --no-inventory) */
    char *inv_conf;  /* nova.conf text of the inventory options (--nova-conf, --set) */
    char *nova_conf; /* --nova-conf's text (the [pci] aliases), or NULL */
    size_t nova_conf_len;
    bool pci;                       /* a host has pools or a flavor asks for devices */
    numafit_pci_pools_t *pci_empty; /* no pools (a host without any, for a flavor asking) */
    size_t inv_conf_len;
    int64_t disk_gb;   /* --disk-gb: DISK_GB of hosts without local_gb (-1: none) */
    bool disk_planned; /* every host has DISK_GB */
    struct plan_overcommit overcommit_before; /* the fleet as loaded */
    json_t *limits_json;                      /* --limits FILE (owned) */
    const char *limits_path;
    const char *limits_from; /* the --nova-conf file of the default limits, or NULL */

    /* fleet */
    struct plan_source *sources;
    size_t nsources, sources_cap;
    struct plan_host *hosts;
    size_t nhosts, hosts_cap;
    char *names;
    size_t names_len, names_cap;
    uint32_t *name_index; /* open addressing: host index + 1, 0 empty */
    size_t name_index_cap;
    int32_t ngroups;
    unsigned nadd;           /* --add-hosts options loaded (host names newK-...) */
    struct plan_text *texts; /* distinct host JSON texts: open addressing */
    size_t ntexts, texts_cap;
    unsigned long instances_loaded, instances_skipped;
    unsigned long instances_nonnuma; /* without NUMA topology, in the inventory only */
    struct plan_existing *existing;
    size_t nexisting, existing_cap;
    uint64_t page_sizes[PLAN_MAX_PAGE_SIZES]; /* huge page sizes in the fleet, KiB */
    unsigned npage_sizes;
    struct plan_limits limits[PLAN_MAX_LIMITS + 1];
    unsigned nlimits;

    /* the fleet before the plan (existing instances claimed) */
    uint64_t st_cells, st_pcpus, st_shared_cpus, st_memory_mb;
    uint64_t st_pages_total[PLAN_MAX_PAGE_SIZES], st_pages_used[PLAN_MAX_PAGE_SIZES],
        st_pages_reserved[PLAN_MAX_PAGE_SIZES];

    /* flavors */
    struct plan_flavor flavors[PLAN_MAX_FLAVORS];
    unsigned nflavors;

    /* results */
    struct plan_result results[PLAN_MAX_STRATEGIES];
    unsigned nresults;
    uint32_t keep; /* hosts [0, keep) keep their placements */
    double load_seconds;
    struct plan_progress *progress; /* the command line's progress bar */
    struct plan_sink sink;          /* where the planner reports */
};

/* ---- plan_sink.c: the planner reports to pl->sink */
void plan_error(const struct plan *pl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void plan_warning(const struct plan *pl, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void plan_lib_error(const struct plan *pl, const char *prefix, int rc, const numafit_error_t *e);
void plan_tick(const struct plan *pl, int kind, uint64_t n, const char *text);

/* ---- plan_load.c (the fleet), plan_hosts.c, plan_instances.c, plan_flavors.c (the readers) */
const char *plan_host_name(const struct plan *pl, size_t i);
const char *plan_source_kind_name(int kind);
/* The loaders return 0, or PLAN_EXIT_INPUT / PLAN_EXIT_FAIL after reporting why. */
int plan_load_dir(struct plan *pl, const char *dir);
int plan_load_db(struct plan *pl, const char *path);
int plan_load_json_host(struct plan *pl, const char *path);
int plan_load_sysfs(struct plan *pl, const char *root, const numafit_hostconf_t *conf,
                    unsigned flags);
int plan_load_uri(struct plan *pl, const char *uri, const numafit_hostconf_t *conf, unsigned flags);
int plan_add_hosts(struct plan *pl, const char *count, const char *spec);
/* Attach pools (taken) to host hi; where: the message prefix. */
void plan_set_pools(struct plan *pl, size_t hi, numafit_pci_pools_t *pools);
/* After loading: hosts of a group with other pools than its first leave it. */
void plan_pci_groups(struct plan *pl);
int plan_load_instances(struct plan *pl, const char *path);
int plan_load_flavors(struct plan *pl, const char *path, bool single);
int plan_limits_index(struct plan *pl, double cpu, double ram, uint8_t *ret);
int plan_page_size_index(struct plan *pl, uint64_t size_kb);
int plan_page_size_find(const struct plan *pl, uint64_t size_kb);
void plan_free(struct plan *pl);

/* ---- plan_inventory.c: placement's inventory of each host */
int plan_build_inventories(struct plan *pl);
const char *plan_stop_name(int stop);
/* How many more of amounts the inventory has room for (bits: the trait
 * bits; at most max); *ret_stop what stops the next one (a class, STOP_TRAIT). */
uint64_t plan_inventory_room(const numafit_inventory_t *inv, const int64_t *amounts, unsigned bits,
                             uint64_t max, int *ret_stop);
/* placement's capacity int((total - reserved) x ratio) of a class, within
 * the library's usage range (0 .. 2^53). */
int64_t plan_inventory_capacity(const numafit_inventory_class_t *c);
/* Add k x amounts to the inventory's usage (room checked before). */
void plan_inventory_take(numafit_inventory_t *inv, const int64_t *amounts, uint64_t k);
/* Add host hi (filled: h) with nonnuma_mb MiB of guests without NUMA
 * topology to o: a host shared with NUMA guests, and the memory of those
 * guests its cells' room for small pages (at the host's RAM ratio, less
 * what NUMA guests on small pages use) cannot hold. */
void plan_overcommit_add(const struct plan *pl, struct plan_overcommit *o, const numafit_host_t *h,
                         size_t hi, uint64_t nonnuma_mb);

/* ---- plan_fill.c */
/* The strategy's name ("spread", "pack", "headroom"), NULL past the table. */
const char *plan_strategy_name(int strategy);
/* Its index from a name, -1 if unknown. */
int plan_strategy_from_name(const char *name);
/* --target: pl->target split over the planned flavors by the mix (equal
 * shares round-robin, by weight with --mix weights; largest remainders
 * first, earlier flavors on ties). */
void plan_target_shares(struct plan *pl);
int plan_run_strategy(struct plan *pl, int strategy, struct plan_result *res);
json_t *plan_cap_json(const struct plan *pl, const struct plan_cap *c);
const char *plan_reason_name(int reason);
double plan_host_cpu_ratio(const struct plan *pl, size_t host);

/* ---- plan_report.c */
/* The command line's printing, on stderr: "numafit plan: ..." lines, and
 * pl->sink set to print the planner's notes the same way and draw its
 * progress on pl->progress. */
void plan_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void plan_lib_err(const char *prefix, int rc, const numafit_error_t *e);
void plan_sink_stderr(struct plan *pl);
struct plan_progress *plan_progress_new(bool enabled, uint64_t total);
void plan_progress_phase(struct plan_progress *p, const char *phase);
void plan_progress_step(struct plan_progress *p, uint64_t units, const char *what);
void plan_progress_end(struct plan_progress *p);
void plan_report(FILE *o, const struct plan *pl);
json_t *plan_to_json(const struct plan *pl);

#endif
