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

#ifdef __cplusplus
}
#endif
#endif
