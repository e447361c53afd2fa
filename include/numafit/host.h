/** \file host.h  A host's NUMA topology and usage, in nova's model: every
 * numafit_host_* function except the discovery loaders
 * numafit_host_new_from_{caps_xml,libvirt,sysfs} (discover.h). */
#ifndef NUMAFIT_HOST_H
#define NUMAFIT_HOST_H

#include <numafit/common.h>
#include <numafit/cpuset.h>
#include <numafit/placement.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A host's NUMA cells, CPUs, memory, pages and usage (opaque). */
typedef struct numafit_host numafit_host_t;

/** nova.conf options that shape the host model (an empty configuration is
 * nova's defaults: no CPU sets, nothing reserved, no network affinity); made
 * and set with the numafit_hostconf_* functions of discover.h. */
typedef struct numafit_hostconf numafit_hostconf_t;

/** Flags for numafit_host_new_from_json(). */
enum numafit_host_json_flags {
    /** accept cells whose cpuset and pcpuset partly overlap (by default only
     *  nova's legacy mode, cpuset == pcpuset, may overlap) */
    NUMAFIT_HOST_ALLOW_OVERLAP = 1u << 0,
};

/** Flags for numafit_host_to_json(). */
enum numafit_host_to_json_flags {
    /** write the DB column form: a JSON string holding the primitive */
    NUMAFIT_HOST_JSON_STRING = 1u << 0,
    /** pretty-print with indentation */
    NUMAFIT_JSON_INDENT = 1u << 1,
};

/** Limits of the host model (checked on input). */
#define NUMAFIT_CELL_ID_MAX 1023
/** Most NUMA cells in a host. */
#define NUMAFIT_MAX_CELLS 1024
/** Largest cell memory, in MiB. */
#define NUMAFIT_MEMORY_MB_MAX (1ull << 40)
/** Largest JSON or XML input, in bytes. */
#define NUMAFIT_INPUT_MAX (16u << 20)
/** The largest nova.conf text numafit_hostconf_set_from_nova_conf() and
 * numafit_domconf_set_from_nova_conf() accept (bytes). */
#define NUMAFIT_NOVA_CONF_MAX (1u << 20)

/**
 * \brief Load a host from nova's JSON: the NUMATopology versioned-object
 * primitive (NUMATopology <= 1.2, NUMACell <= 1.5, NUMAPagesTopology <= 1.1,
 * NetworkMetadata 1.0), the same primitive wrapped in a JSON string (the
 * compute_nodes.numa_topology column), or the pre-versioned legacy dict
 * {"cells":[{"id","cpus","mem":{"total","used"},"cpu_usage"}]}.
 * Stricter than nova: negative or non-integer values, duplicate cell ids,
 * ids out of range, newer versions are refused, naming the JSON path in
 * reterr->where.
 * \return 0, -EBADMSG (syntax), -EINVAL (schema), -ERANGE, -ENOMEM.
 * \ownership owned
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_host_new_from_json(const char *buf, size_t len,
                                                                unsigned flags,
                                                                numafit_host_t **ret_host,
                                                                numafit_error_t *reterr);

/**
 * \brief Build a host from integer records: the fields of nova's NUMACell
 * objects in an int64 array, for bindings that hold the objects (nova's
 * scheduler) and would otherwise write and parse JSON for every host.
 *
 * Layout (doc/host-records.md): 1 (the format), the number of cells, then
 * per cell: id, socket (-1: none), memory (MiB), cpu_usage, memory_usage;
 * cpuset, pcpuset and pinned_cpus, each as a count then the CPU ids (any
 * order, duplicates allowed); siblings as the number of sets, each set's
 * length, then the CPUs of every set in list order; mempages as a count then
 * size_kb, total, used, reserved per entry; network_metadata as -1 (none),
 * 0 or 1 (tunneled), then the number of physnets, whose names follow one
 * after another in `names`, each NUL-terminated.
 *
 * The host is the one numafit_host_new_from_json() reads from the same
 * fields, with the same checks (the error names the cell and field, e.g.
 * "cells[1].pinned_cpus").
 * \param flags 0 or NUMAFIT_HOST_ALLOW_OVERLAP.
 * \return 0, -EINVAL (layout or schema), -ERANGE, -ENOMEM.
 * \ownership owned
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_host_new_from_records(const int64_t *rec, size_t n, const char *names, size_t names_len,
                              unsigned flags, numafit_host_t **ret_host, numafit_error_t *reterr);

/**
 * \brief The usage of the cell at index as integer records: cpu_usage,
 * memory_usage, the number of pinned CPUs then their ids (ascending), the
 * number of mempages entries then size_kb, total, used, reserved of each
 * (input order). For bindings that rebuild their objects after a claim.
 * \param buf cap values; *ret_len is set to the length needed.
 * \param flags 0.
 * \return 0; -ENOSPC (buf too small, *ret_len says how many), -ENOENT (no
 * such cell), -EINVAL.
 */
NUMAFIT_EXPORT int numafit_host_get_cell_usage(const numafit_host_t *host, unsigned index,
                                               unsigned flags, int64_t *buf, size_t cap,
                                               size_t *ret_len);

/**
 * \brief Build a host from a one-line synthetic description (for tests and
 * what-if planning), e.g. "cells:2 cores:8 threads:2 mem:64G pages:1G=4,2M=512
 * dedicated:2-7,18-23 shared:0-1,16-17". Keys: cells (1), sockets (= cells),
 * cores per cell (4), threads per core (1), mem per cell (MiB, or with
 * K/M/G/T; 16G), pages per cell (size=count list; 4K pages fill the rest of
 * the cell memory), dedicated / shared (nova's cpu_dedicated_set /
 * cpu_shared_set; neither = legacy mode, both sets = all CPUs). CPU ids are
 * numbered as Linux does on Intel: thread t of core c of cell n is
 * t * (cells * cores) + n * cores + c.
 *
 * The short form counts per host instead, as capacity planners describe
 * servers: "2x32c2t 4cells 1G:64 2M:4096 mem:512G dedicated:... shared:..."
 * (sockets x cores per socket c threads per core t; NUMA cells, default one
 * per socket; huge pages SIZE:COUNT and memory for the whole host, split
 * evenly over the cells; memory defaults to 4 GiB per hardware thread). A
 * spec is in the short form when one of its tokens is such a CPU shape.
 * Each key, token kind and page size may be given once; an empty spec is
 * refused. `pci:` tokens (either form, repeatable) describe PCI devices:
 * they are checked here and read by numafit_pci_pools_new_from_spec(). The host built passes the
 * same checks as a host read from JSON. \return 0, -EINVAL (reterr names the key or the token),
 * -EBADMSG (the syntax of a dedicated: or shared: CPU set), -ERANGE, -ENOMEM. \ownership owned
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_host_new_synthetic(const char *spec, unsigned flags,
                                                                numafit_host_t **ret_host,
                                                                numafit_error_t *reterr);

/** \brief Write the host as nova's NUMATopology 1.2 primitive.
 * \ownership owned (numafit_free) */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_host_to_json(const numafit_host_t *host,
                                                          unsigned flags, char **ret_json,
                                                          numafit_error_t *reterr);

/** \brief Deep copy, for what-if planning. \ownership owned */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_host_dup(const numafit_host_t *host,
                                                      numafit_host_t **ret_host);
/** Free a host (NULL is fine). */
NUMAFIT_EXPORT void numafit_host_free(numafit_host_t *host);

/** \return the number of NUMA cells, or -EINVAL. */
NUMAFIT_EXPORT int numafit_host_get_cell_count(const numafit_host_t *host);
/** \return the nova cell id of the cell at index, -ENOENT, -EINVAL. */
NUMAFIT_EXPORT int numafit_host_get_cell_id(const numafit_host_t *host, unsigned index);
/**
 * \brief Bytes of memory the host model occupies (the handle and everything
 * it owns). A 2-socket host with 1,024 CPUs in 32 cells takes about 20 KiB.
 * \return 0, -EINVAL.
 */
NUMAFIT_EXPORT int numafit_host_get_memory_size(const numafit_host_t *host, size_t *ret_bytes);

/** Per-cell quantities for numafit_host_get_cell_stat(). CPU counts are of
 * the cell's own sets; a "core" is a thread-sibling set holding at least one
 * dedicated CPU (a cell without sibling information: one core per dedicated
 * CPU). */
enum numafit_cell_stat {
    NUMAFIT_CELL_SHARED_CPUS = 0,    /**< CPUs in cpuset (nova's VCPU pool) */
    NUMAFIT_CELL_DEDICATED_CPUS,     /**< CPUs in pcpuset (nova's PCPU pool) */
    NUMAFIT_CELL_PINNED_CPUS,        /**< pinned_cpus */
    NUMAFIT_CELL_FREE_PCPUS,         /**< dedicated CPUs not pinned */
    NUMAFIT_CELL_CORES,              /**< cores with a dedicated CPU */
    NUMAFIT_CELL_FREE_CORES,         /**< cores whose dedicated CPUs are all free */
    NUMAFIT_CELL_PARTIAL_CORES,      /**< cores with both pinned and free dedicated CPUs */
    NUMAFIT_CELL_PARTIAL_FREE_PCPUS, /**< free dedicated CPUs on partial cores */
    NUMAFIT_CELL_THREADS_PER_CORE,   /**< the largest sibling set (1 without siblings) */
    NUMAFIT_CELL_CPU_USAGE,          /**< cpu_usage (shared vCPUs placed) */
    NUMAFIT_CELL_MEMORY_MB,          /**< memory */
    NUMAFIT_CELL_MEMORY_USED_MB,     /**< memory_usage */
    NUMAFIT_CELL_SOCKET,             /**< socket (-ENOENT when unknown) */
    NUMAFIT_CELL_PAGE_SIZES,         /**< number of mempages entries */
    NUMAFIT_CELL_SIBLING_SETS,       /**< number of sibling sets as given */
    NUMAFIT_CELL__STAT_MAX
};

/**
 * \brief One quantity of the cell at index (see enum numafit_cell_stat), for
 * capacity reports without going through JSON. O(CPUs of the cell).
 * \return 0, -ENOENT (no such cell; a socket that is unknown), -EINVAL.
 */
NUMAFIT_EXPORT int numafit_host_get_cell_stat(const numafit_host_t *host, unsigned index, int stat,
                                              unsigned flags, uint64_t *ret_value);
/**
 * \brief The page_index-th mempages entry of the cell at index (input order).
 * Any of the ret_ pointers may be NULL. \return 0, -ENOENT, -EINVAL.
 */
NUMAFIT_EXPORT int numafit_host_get_cell_pages(const numafit_host_t *host, unsigned index,
                                               unsigned page_index, unsigned flags,
                                               uint64_t *ret_size_kb, uint64_t *ret_total,
                                               uint64_t *ret_used, uint64_t *ret_reserved);

/** CPU sets of a cell for numafit_host_get_cell_cpus(). */
enum numafit_cell_cpus {
    NUMAFIT_CELL_CPUS_SHARED = 0, /**< cpuset */
    NUMAFIT_CELL_CPUS_DEDICATED,  /**< pcpuset */
    NUMAFIT_CELL_CPUS_PINNED,     /**< pinned_cpus */
    NUMAFIT_CELL_CPUS_FREE,       /**< pcpuset minus pinned_cpus */
};
/** \brief A CPU set of the cell at index (enum numafit_cell_cpus).
 * \return 0, -ENOENT, -EINVAL, -ENOMEM. \ownership owned */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_host_get_cell_cpus(const numafit_host_t *host,
                                                                unsigned index, int which,
                                                                unsigned flags,
                                                                numafit_cpuset_t **ret_set);
/** \brief The sib-th thread-sibling set of the cell at index, as given (see
 * NUMAFIT_CELL_SIBLING_SETS). \return 0, -ENOENT, -EINVAL, -ENOMEM.
 * \ownership owned */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_host_get_cell_siblings(const numafit_host_t *host,
                                                                    unsigned index, unsigned sib,
                                                                    unsigned flags,
                                                                    numafit_cpuset_t **ret_set);

/** \return 1 if the two hosts hold the same model and usage, 0 if not. */
NUMAFIT_EXPORT int numafit_host_equal(const numafit_host_t *a, const numafit_host_t *b);

/**
 * \brief What-if: split the host's CPUs into nova's pools as another
 * configuration would. Only the CPU options of conf count ([compute]
 * cpu_dedicated_set, cpu_shared_set, vcpu_pin_set, with nova's rules; none
 * of them = legacy mode). Works on any host, e.g. one read from nova's JSON:
 * the CPUs known per cell are those of its cpuset, pcpuset and siblings
 * (nova records only the CPUs of its pools, so a CPU the host never listed
 * is refused as nova refuses a CPU that is not online). Sibling sets are cut
 * to the new pools; usage stays. A pinned CPU that would leave the dedicated
 * pool is refused (-EBUSY, reterr->exception "CPUPinningInvalid"). All or
 * nothing: on error the host is unchanged.
 * \return 0; -EINVAL (reterr->exception "Invalid": a CPU not in the host;
 * bad arguments or flags); -EBUSY; -ENOMEM.
 */
NUMAFIT_EXPORT int numafit_host_set_cpu_pools(numafit_host_t *host, const numafit_hostconf_t *conf,
                                              unsigned flags, numafit_error_t *reterr);

/**
 * \brief NUMA distance from the cell at index i to the cell at index j (ACPI
 * SLIT values, 10 = local), as discovered; nova's JSON does not carry them.
 * \return 0; -ENOENT when the host has no distance matrix or i, j are out of
 * range; -EINVAL.
 */
NUMAFIT_EXPORT int numafit_host_get_distance(const numafit_host_t *host, unsigned i, unsigned j,
                                             unsigned *ret_distance);

/**
 * \brief Add the placement's usage to the host (nova's
 * numa_usage_from_instance_numa): memory and cpu usage, pages used, pinned
 * CPUs (whole cores for isolate). All or nothing: on error the host is
 * unchanged. \return 0; -EBUSY (CPUPinningInvalid: already pinned),
 * -ENOENT (CPUPinningUnknown / a host cell that does not exist), -EINVAL.
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_host_claim(numafit_host_t *host,
                                                        const numafit_placement_t *p,
                                                        unsigned flags, numafit_error_t *reterr);
/** \brief The inverse of numafit_host_claim() (CPUUnpinningInvalid when a
 * CPU is not pinned). All or nothing. */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_host_release(numafit_host_t *host,
                                                          const numafit_placement_t *p,
                                                          unsigned flags, numafit_error_t *reterr);

/* ---- Filling a host (libnumafit/fill.c) */

struct numafit_request;   /* numafit_request_t, request.h */
struct numafit_options;   /* numafit_options_t, options.h */
struct numafit_placement; /* numafit_placement_t, placement.h */

/** Flags for numafit_host_fill(). */
enum numafit_host_fill_flags {
    /** also call the callback after each refused fit, with p NULL (reterr,
     *  if given, then holds the refusal) */
    NUMAFIT_FILL_NOTIFY_MISSES = 1u << 0,
};

/** Why numafit_host_fill() stopped: its return value when it succeeds. */
enum numafit_host_fill_stop {
    /** none of the requests fits any more; reterr holds the last refusal
     *  (a NUMAFIT_E_NOFIT* code, or NUMAFIT_E_TOO_COMPLEX when that fit
     *  exceeded its work budget) */
    NUMAFIT_FILL_FULL = 0,
    /** max instances were placed (reterr: NUMAFIT_E_OK) */
    NUMAFIT_FILL_MAX = 1,
    /** the callback returned > 0 (reterr: NUMAFIT_E_OK) */
    NUMAFIT_FILL_STOPPED = 2,
};

/** No maximum for numafit_host_fill(). */
#define NUMAFIT_FILL_NO_MAX UINT64_MAX

/**
 * Called by numafit_host_fill() after each claim with the index of the
 * request placed and its placement (borrowed: valid during the call only;
 * numafit_placement_dup() it to keep it), and with
 * NUMAFIT_FILL_NOTIFY_MISSES also after each refused fit, with p NULL.
 * Return 0 to go on, > 0 to stop the fill (NUMAFIT_FILL_STOPPED), < 0 (a
 * negative errno) to fail it with that value. The claim it reports stays.
 */
typedef int (*numafit_host_fill_cb)(void *ctx, size_t request_index,
                                    const struct numafit_placement *p);

/**
 * \brief Fit and claim requests on the host until none fits any more: what
 * nova's scheduler and claims would do to an empty slot, instance after
 * instance. Each step is numafit_fit() then numafit_host_claim() of its
 * placement (all or nothing), so the host is left with the claims made;
 * when the first fit is refused the host is unchanged.
 *
 * With several requests they are tried round-robin, from reqs[0]: one fit
 * per request in turn, whether the previous one was placed or not, until
 * every request has been refused since the last claim. A fit that exceeds
 * its work budget (-E2BIG in numafit_fit()) counts as a refusal.
 * \param reqs nreqs requests (nreqs >= 1), each with a NUMA topology.
 * \param opt NULL for the defaults (numafit_fit()). With PCI pools and
 * requests (numafit_options_set_pci()) every instance asks for those
 * devices: the fill takes them from a copy of the pools after each claim
 * (numafit_pci_apply() on the placement's host cells), so the devices run
 * out as they would; the options' pools are not changed. A caller's PCI
 * check (numafit_options_set_pci_check()) is kept and answers on the
 * copy's behalf.
 * \param max most instances placed in all (NUMAFIT_FILL_NO_MAX: no maximum;
 * 0 places none).
 * \param flags 0 or NUMAFIT_FILL_NOTIFY_MISSES.
 * \param cb NULL, or called after each claim (numafit_host_fill_cb).
 * \param[out] ret_counts NULL, or nreqs counters: the instances placed of
 * each request. Zeroed first and counted as the claims are made, so they
 * also count the claims kept when the fill fails.
 * \return NUMAFIT_FILL_FULL, NUMAFIT_FILL_MAX or NUMAFIT_FILL_STOPPED
 * (enum numafit_host_fill_stop); -EINVAL (bad argument, unknown flag, a
 * request without NUMA topology), -ENOMEM, an error of numafit_host_claim(),
 * or the callback's negative value. On failure the claims made before it
 * stay on the host.
 * \ownership the host is modified; reqs, opt borrowed
 */
NUMAFIT_EXPORT int numafit_host_fill(numafit_host_t *host,
                                     const struct numafit_request *const *reqs, size_t nreqs,
                                     const struct numafit_options *opt, uint64_t max,
                                     unsigned flags, numafit_host_fill_cb cb, void *cb_ctx,
                                     uint64_t *ret_counts, numafit_error_t *reterr);

#ifdef __cplusplus
}
#endif
#endif
