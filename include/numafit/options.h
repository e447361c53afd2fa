/** \file options.h  Fit options: rule profile, host cell strategy, limits, work budget. */
#ifndef NUMAFIT_OPTIONS_H
#define NUMAFIT_OPTIONS_H

#include <numafit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Fit options: profile, strategy, limits, budget (opaque). */
typedef struct numafit_options numafit_options_t;

/** Rule profiles. */
enum numafit_profile {
    NUMAFIT_PROFILE_LATEST = 0, /**< upstream nova (2026), the default */
    NUMAFIT_PROFILE_ZED = 1,    /**< Debian 12's nova 26.2.2 */
};
/**
 * Host cell ordering ([compute] packing_host_numa_cells_allocation_strategy),
 * and numafit's own stranding-aware choice.
 */
enum numafit_strategy {
    NUMAFIT_STRATEGY_SPREAD = 0, /**< the default since Zed */
    NUMAFIT_STRATEGY_PACK = 1,
    /**
     * Not nova's (opt-in): among the placements nova's per-cell rules allow
     * in some order of the host cells (nova's spread and pack orders, and
     * each host cell put first in either; for the prefer thread policy also
     * with the free threads of the fullest cores first, orphan threads
     * before whole cores), the one that leaves the host most able to take
     * further instances: with a flavor mix
     * (numafit_options_set_headroom_mix()) the largest weighted count of
     * the mix's instances that still fit on the host afterwards, each count
     * capped at NUMAFIT_HEADROOM_CAP (numafit_host_headroom()); without a
     * mix, and to break ties, the least fragmentation (doc/headroom.md: the
     * sum over cells of the squared free fractions of dedicated CPUs, whole
     * free cores, shared CPUs, memory and huge pages, plus each cell's free
     * CPU share that still has small pages, and twice that with huge
     * pages, beside it). Ties keep the earlier candidate, spread's
     * placement first. Fits exactly when spread fits; costs a search per
     * candidate and a few fits per distinct candidate (counted in the work
     * budget).
     */
    NUMAFIT_STRATEGY_HEADROOM = 2,
};

/** The most instances of one mix flavor numafit_host_headroom() counts (and
 * the headroom strategy scores with). */
#define NUMAFIT_HEADROOM_CAP 16
/** The most flavors in a headroom mix. */
#define NUMAFIT_HEADROOM_MIX_MAX 64

/** \brief Fit options: profile latest, spread, no limits. \ownership owned */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_options_new(numafit_options_t **ret_opt);
/** \brief A copy of opt (the PCI pools, requests and check it borrows
 * are borrowed by the copy too). \return 0, -EINVAL, -ENOMEM. \ownership
 * owned */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_options_dup(const numafit_options_t *opt,
                                                         numafit_options_t **ret_opt);
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

struct numafit_request;
/**
 * \brief The flavor mix the headroom strategy keeps room for: n requests
 * (each with a NUMA topology) and their weights (finite, >= 0; the arrival
 * proportions, for instance). n == 0 (reqs and weights may then be NULL)
 * removes the mix. The other strategies ignore it.
 * \note The options borrow the requests (as numafit_options_set_pci() does
 * the pools): they must stay alive and unchanged while the options are
 * used; the arrays themselves are copied. numafit_options_dup() copies
 * the mix (the copy borrows the same requests).
 * \return 0; -EINVAL (opt NULL, n above NUMAFIT_HEADROOM_MIX_MAX, a NULL
 * request or one without NUMA topology, a weight not finite or negative;
 * reterr names the field), -ENOMEM.
 */
NUMAFIT_EXPORT int numafit_options_set_headroom_mix(numafit_options_t *opt,
                                                    const struct numafit_request *const *reqs,
                                                    const double *weights, size_t n,
                                                    numafit_error_t *reterr);
/** \brief The number of flavors in the headroom mix (0: none), -EINVAL. */
NUMAFIT_EXPORT int numafit_options_get_headroom_mix_count(const numafit_options_t *opt);

struct numafit_pci_pools;
struct numafit_pci_requests;
/**
 * \brief The host's PCI device pools and the instance's PCI requests
 * (pci.h), as nova passes pci_stats and pci_requests to
 * numa_fit_instance_to_host. With pools, a host with more cells than the
 * guest orders its cells by their devices as well (those with the most
 * first when requests are given, else those with the fewest); with pools
 * and at least one request, the fit's host cells must satisfy the requests
 * (numafit_pci_support()). Either may be NULL (none).
 * \note The options borrow both: they must stay unchanged and alive while
 * the options are used (the fit does not change them; numafit_pci_apply()
 * takes the devices of a claimed placement).
 * \return 0, -EINVAL (opt NULL).
 */
NUMAFIT_EXPORT int numafit_options_set_pci(numafit_options_t *opt,
                                           const struct numafit_pci_pools *pools,
                                           const struct numafit_pci_requests *reqs);

/**
 * A replacement for the PCI check of a fit: 1 when the host cells with
 * these ids (the guest cells' host cells, n of them) satisfy the PCI
 * requests, 0 when not, a negative errno to abandon the fit (it returns
 * that errno).
 */
typedef int (*numafit_pci_check_fn)(void *ctx, const int64_t *cell_ids, size_t n);
/**
 * \brief Check the PCI requests with fn instead of the library's rules
 * (for a caller that keeps its own, e.g. a PciDeviceStats of nova's); the
 * pools set by numafit_options_set_pci() still order the host cells and
 * say which cells have devices, and the check is made only when requests
 * are set (with at least one request). fn must answer alike for sets of
 * cells that hold the same cells with devices (and, when a request has
 * the socket policy, the same sockets with devices), as nova's rules do.
 * NULL: the library's rules. \return 0, -EINVAL (opt NULL).
 */
NUMAFIT_EXPORT int numafit_options_set_pci_check(numafit_options_t *opt, numafit_pci_check_fn fn,
                                                 void *ctx);

#ifdef __cplusplus
}
#endif
#endif
