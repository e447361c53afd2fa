/** \file placement.h  Placements: where a fitted instance goes, as JSON and by query. */
#ifndef NUMAFIT_PLACEMENT_H
#define NUMAFIT_PLACEMENT_H

#include <numafit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Where a fitted instance goes: host cell, pinning and page size per guest cell (opaque). */
typedef struct numafit_placement numafit_placement_t;

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

#ifdef __cplusplus
}
#endif
#endif
