/** \file fit.h  Fitting a request on a host, placements, claims and releases. */
#ifndef NUMAFIT_FIT_H
#define NUMAFIT_FIT_H

#include <numafit/common.h>
#include <numafit/host.h>
#include <numafit/request.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Fit options: profile, strategy, limits, budget (opaque). */
typedef struct numafit_options numafit_options_t;
/** Where a fitted instance goes: host cell, pinning and page size per guest cell (opaque). */
typedef struct numafit_placement numafit_placement_t;

/** Rule profiles. */
enum numafit_profile {
    NUMAFIT_PROFILE_LATEST = 0, /**< upstream nova (2026), the default */
    NUMAFIT_PROFILE_ZED = 1,    /**< Debian 12's nova 26.2.2 */
};
/** Host cell ordering ([compute] packing_host_numa_cells_allocation_strategy). */
enum numafit_strategy {
    NUMAFIT_STRATEGY_SPREAD = 0, /**< the default since Zed */
    NUMAFIT_STRATEGY_PACK = 1,
};

/** \brief Fit options: profile latest, spread, no limits. \ownership owned */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_options_new(numafit_options_t **ret_opt);
/** Free options (NULL is fine). */
NUMAFIT_EXPORT void numafit_options_free(numafit_options_t *opt);
/** \brief Rule profile (enum numafit_profile). \return 0, -EINVAL. */
NUMAFIT_EXPORT int numafit_options_set_profile(numafit_options_t *opt, int profile);
/** \brief Host cell order (enum numafit_strategy). \return 0, -EINVAL. */
NUMAFIT_EXPORT int numafit_options_set_strategy(numafit_options_t *opt, int strategy);
/** \brief Set NUMATopologyLimits ratios (both > 0, finite). */
NUMAFIT_EXPORT int numafit_options_set_limits(numafit_options_t *opt, double cpu_allocation_ratio,
                                              double ram_allocation_ratio);
/** \brief Limits as JSON: {"cpu_allocation_ratio":x,"ram_allocation_ratio":y,
 * "network_metadata":{"physnets":[...],"tunneled":bool}}, a NUMATopologyLimits
 * primitive, or null (no limits). \return 0, -EBADMSG, -EINVAL, -ENOMEM. */
NUMAFIT_EXPORT int numafit_options_set_limits_json(numafit_options_t *opt, const char *json,
                                                   size_t len, numafit_error_t *reterr);
/** \brief Remove limits and network requirements. */
NUMAFIT_EXPORT int numafit_options_clear_limits(numafit_options_t *opt);
/**
 * The work budget of a fit unless set otherwise (also with NULL options):
 * 10 million steps, some 0.7 s on one core in the worst case. Ordinary fits
 * take tens to thousands of steps, and the 24-cell hosts of the benchmark
 * some thousands; only network affinity over many physnets (a set cover)
 * can need more.
 */
#define NUMAFIT_BUDGET_DEFAULT 10000000ull
/** \brief Work budget (cell checks and search steps): past it the fit
 * returns -E2BIG (NUMAFIT_E_TOO_COMPLEX), never a wrong answer. Default
 * NUMAFIT_BUDGET_DEFAULT; 0 = unlimited. */
NUMAFIT_EXPORT int numafit_options_set_budget(numafit_options_t *opt, uint64_t steps);

/**
 * \brief Fit a request on a host, with nova's numa_fit_instance_to_host
 * semantics minus its defects: host cells ordered as nova orders them, the
 * first permutation whose every cell fits (each cell checked on an
 * unmodified copy of the request), and the whole-placement checks.
 * The host is not modified.
 * \param opt NULL for the defaults.
 * \return 1 and *ret_placement when it fits; 0 when it does not (reterr says
 * why, code NUMAFIT_E_NOFIT_*); -EINVAL (incl. a request without NUMA
 * topology: NUMAFIT_E_NOT_NUMA), -ENOMEM, -E2BIG (budget exceeded).
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_fit(const numafit_host_t *host, const numafit_request_t *req, const numafit_options_t *opt,
            unsigned flags, numafit_placement_t **ret_placement, numafit_error_t *reterr);

/**
 * \brief Why each host cell accepts or refuses each guest cell, as JSON:
 * {"fits":bool,"reason":"NOFIT_...","text":"..." (when it does not fit),
 * "cells":[{"id":host cell id,"guest_cells":[{"guest":i,"fits":bool,
 * "reason":"NOFIT_MEM","text":"..."}]}] (host cells in nova's order),
 * "assignment":[host cell id per guest cell] (when it fits)}.
 * \return 0 (whether or not it fits; *ret_json set), -EINVAL, -ENOMEM,
 * -E2BIG (budget exceeded).
 * \ownership owned (numafit_free)
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_fit_explain(const numafit_host_t *host,
                                                         const numafit_request_t *req,
                                                         const numafit_options_t *opt,
                                                         unsigned flags, char **ret_json,
                                                         numafit_error_t *reterr);

/**
 * \brief nova's _numa_fit_instance_cell(host_cell, instance_cell, limits,
 * cpuset_reserved): guest cell `guest` of req on the host cell at
 * `host_index` alone, with `nreserved` more pCPUs for the emulator threads
 * (numafit_fit() asks 1, on the first guest cell, for
 * hw:emulator_threads_policy=isolate). As in nova, a cell that can give at
 * least one but fewer than nreserved emulator pCPUs still fits with those.
 * The host is not modified.
 * \return 1 and a placement of that one guest cell in *ret_placement; 0 when
 * it does not fit (reterr: the reason, reterr->cell the host cell id);
 * -EINVAL (bad index, no NUMA topology, flags), -ENOMEM.
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_fit_cell(const numafit_host_t *host, unsigned host_index, const numafit_request_t *req,
                 unsigned guest, unsigned nreserved, const numafit_options_t *opt, unsigned flags,
                 numafit_placement_t **ret_placement, numafit_error_t *reterr);

/** Flags for numafit_placement_to_json(). */
enum numafit_placement_json_flags {
    /** nova's InstanceNUMATopology 1.3 primitive instead of the plain list */
    NUMAFIT_PLACEMENT_JSON_NOVA = 1u << 0,
};

/**
 * \brief The placement as JSON. Plain form: a list of cells
 * {"id":host cell,"cpuset":[..],"pcpuset":[..],"memory":MiB,
 *  "pagesize":KiB|null,"cpu_pinning":{"vcpu":pcpu},"cpuset_reserved":[..]|null}.
 * With NUMAFIT_PLACEMENT_JSON_NOVA: InstanceNUMATopology 1.3 with a fresh
 * instance UUID (or the one set with numafit_placement_set_uuid()).
 * \ownership owned (numafit_free)
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_placement_to_json(const numafit_placement_t *p,
                                                               unsigned flags, char **ret_json,
                                                               numafit_error_t *reterr);
/** \brief Read an InstanceNUMATopology primitive (instance_extra.numa_topology),
 * e.g. to release an existing instance. \ownership owned */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_placement_new_from_json(const char *buf, size_t len,
                                                                     unsigned flags,
                                                                     numafit_placement_t **ret_p,
                                                                     numafit_error_t *reterr);
/** \brief The instance UUID written in nova's JSON form (canonical 36-character text). \return 0,
 * -EINVAL. */
NUMAFIT_EXPORT int numafit_placement_set_uuid(numafit_placement_t *p, const char *uuid);
/** \brief A copy of the placement. \return 0, -EINVAL, -ENOMEM. \ownership owned */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_placement_dup(const numafit_placement_t *p,
                                                           numafit_placement_t **ret_p);
/** Free a placement (NULL is fine). */
NUMAFIT_EXPORT void numafit_placement_free(numafit_placement_t *p);
/** \return number of guest cells, -EINVAL. */
NUMAFIT_EXPORT int numafit_placement_get_cell_count(const numafit_placement_t *p);
/** \return the host cell id of guest cell index, -ENOENT, -EINVAL. */
NUMAFIT_EXPORT int numafit_placement_get_host_cell(const numafit_placement_t *p, unsigned index);
/** \return the pCPU vcpu is pinned to, -ENOENT if unpinned, -EINVAL. */
NUMAFIT_EXPORT int numafit_placement_get_pin(const numafit_placement_t *p, unsigned vcpu);

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

#ifdef __cplusplus
}
#endif
#endif
