/** \file fit.h  Fitting a request on a host (options: options.h, placements:
 * placement.h, claims and releases: host.h). */
#ifndef NUMAFIT_FIT_H
#define NUMAFIT_FIT_H

#include <numafit/common.h>
#include <numafit/host.h>
#include <numafit/options.h>
#include <numafit/placement.h>
#include <numafit/request.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief Fit a request on a host, with nova's numa_fit_instance_to_host
 * semantics minus its defects: host cells ordered as nova orders them, the
 * first permutation whose every cell fits (each cell checked on an
 * unmodified copy of the request), and the whole-placement checks.
 * The host is not modified.
 * \param opt NULL for the defaults.
 * \param ret_placement where the placement goes, or NULL for the answer
 * only (a scheduler filter's pass or fail: no placement is built).
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

/**
 * \brief How many instances of each flavor of the options' headroom mix
 * (numafit_options_set_headroom_mix()) still fit on the host, each alone:
 * fitted (spread) and claimed on a copy one after the other, at most
 * NUMAFIT_HEADROOM_CAP each. The options' profile, limits and work budget
 * apply (all the fits together must stay within the budget); their PCI
 * pools and requests and network requirements do not (they are the
 * instance's, not the mix's). The host is not changed.
 * \param[out] ret_counts n counters (n: the mix's size).
 * \return 0; -EINVAL (NULL argument, flags, no mix, n not the mix's size),
 * -E2BIG (NUMAFIT_E_TOO_COMPLEX: past the work budget), -ENOMEM.
 * \ownership host, opt borrowed
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_host_headroom(const numafit_host_t *host,
                                                           const numafit_options_t *opt,
                                                           unsigned flags, uint64_t *ret_counts,
                                                           size_t n, numafit_error_t *reterr);

#ifdef __cplusplus
}
#endif
#endif
