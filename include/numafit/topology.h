/** \file topology.h  Guest CPU topology (sockets/cores/threads), as nova's hardware.py. */
#ifndef NUMAFIT_TOPOLOGY_H
#define NUMAFIT_TOPOLOGY_H

#include <numafit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Flags of the guest CPU topology functions. */
enum numafit_topology_flags {
    /** allow_threads=False: only topologies with one thread per core */
    NUMAFIT_TOPOLOGY_NO_THREADS = 1u << 0,
};

/**
 * \brief nova's get_best_cpu_topology(flavor, image_meta): reads
 * hw:cpu_sockets|cores|threads, hw:cpu_max_sockets|cores|threads and the
 * hw_cpu_* image properties.
 * \return 0; -EINVAL with reterr->exception = ImageVCPULimitsRangeExceeded,
 * ImageVCPUTopologyRangeExceeded, ImageVCPULimitsRangeImpossible or
 * InvalidRequest; -ENOMEM.
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_cpu_topology_best(const char *flavor_json, size_t flavor_len, const char *image_json,
                          size_t image_len, unsigned flags, unsigned *ret_sockets,
                          unsigned *ret_cores, unsigned *ret_threads, numafit_error_t *reterr);

/**
 * \brief nova's _get_desirable_cpu_topologies, as a JSON array of
 * {"sockets":S,"cores":C,"threads":T} in preference order.
 * \ownership owned (numafit_free)
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_cpu_topology_list(const char *flavor_json, size_t flavor_len, const char *image_json,
                          size_t image_len, unsigned flags, char **ret_json,
                          numafit_error_t *reterr);

/**
 * \brief nova's get_cpu_topology_constraints(flavor, image_meta): the
 * preferred and the maximum guest CPU topology, as the JSON object
 * {"preferred":{"sockets":S,"cores":C,"threads":T},"maximum":{...}}.
 *
 * The values are nova's exactly: 0 for an unset preference, 65536 for an
 * unset limit, and the flavor's or image's own integers otherwise (which may
 * be negative, or longer than 64 bits: nova reads extra specs with Python's
 * int()). flavor_json needs no "vcpus" (nova does not read it).
 * \param flags 0 (no flags defined; anything else is -EINVAL)
 * \return 0; -EINVAL with reterr->exception = ImageVCPULimitsRangeExceeded,
 * ImageVCPUTopologyRangeExceeded or InvalidRequest as nova raises them, or
 * on bad arguments, flags or JSON schema; -EBADMSG for malformed JSON;
 * -ENOMEM.
 * \ownership owned (numafit_free)
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_cpu_topology_constraints(const char *flavor_json, size_t flavor_len, const char *image_json,
                                 size_t image_len, unsigned flags, char **ret_json,
                                 numafit_error_t *reterr);

#ifdef __cplusplus
}
#endif
#endif
