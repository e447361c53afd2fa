/** \file inventory.h  A compute node's placement inventory: the first step of nova's
 * scheduling, before the NUMA fit. */
#ifndef NUMAFIT_INVENTORY_H
#define NUMAFIT_INVENTORY_H

#include <numafit/common.h>
#include <numafit/fit.h>
#include <numafit/host.h>
#include <numafit/request.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A compute node's inventory in placement (opaque): for each resource class
 * of the model (enum numafit_resource_class, request.h) the record
 * placement keeps (total, reserved, min_unit, max_unit, step_size,
 * allocation_ratio) and the amount used. A class may be absent: then
 * nothing that asks for it fits.
 */
typedef struct numafit_inventory numafit_inventory_t;

/** One class's inventory record, placement's fields. */
typedef struct numafit_inventory_class {
    int64_t total;           /**< 1 .. NUMAFIT_RESOURCE_AMOUNT_MAX */
    int64_t reserved;        /**< 0 .. NUMAFIT_RESOURCE_AMOUNT_MAX */
    int64_t min_unit;        /**< 1 .. NUMAFIT_RESOURCE_AMOUNT_MAX */
    int64_t max_unit;        /**< 1 .. NUMAFIT_RESOURCE_AMOUNT_MAX */
    int64_t step_size;       /**< 1 .. NUMAFIT_RESOURCE_AMOUNT_MAX */
    double allocation_ratio; /**< at least 0, finite */
} numafit_inventory_class_t;

/** The resource provider traits the model knows. */
enum numafit_inventory_trait {
    /** the host has SMT: some CPU has thread siblings (nova's libvirt driver
     * reports it from the capabilities' sibling lists) */
    NUMAFIT_TRAIT_HW_CPU_HYPERTHREADING = 1u << 0,
};

/** Flags for numafit_inventory_new_from_host(). */
enum numafit_inventory_flags {
    /** Debian 12's nova 26.2.2 (Zed) defaults (initial_cpu_allocation_ratio 16.0,
     * initial_ram_allocation_ratio 1.5) instead of the latest (4.0, 1.0) */
    NUMAFIT_INVENTORY_ZED = 1u << 0,
};

/** \brief An empty inventory (no class). \return 0, -EINVAL, -ENOMEM. \ownership owned */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_inventory_new(numafit_inventory_t **ret_inv);
/** Free an inventory (NULL is fine). */
NUMAFIT_EXPORT void numafit_inventory_free(numafit_inventory_t *inv);
/** \brief A copy. \return 0, -EINVAL, -ENOMEM. \ownership owned */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_inventory_dup(const numafit_inventory_t *inv,
                                                           numafit_inventory_t **ret_inv);

/**
 * \brief Set (or, with c NULL, remove) class rc's record, checked as placement
 * checks an inventory it is given: the ranges above and a capacity
 * int((total - reserved) * allocation_ratio) of at least 0. The amount used
 * is kept. \return 0, -EINVAL (err->where names the field).
 */
NUMAFIT_EXPORT int numafit_inventory_set_class(numafit_inventory_t *inv, int rc,
                                               const numafit_inventory_class_t *c,
                                               numafit_error_t *reterr);
/** \brief Class rc's record. \return 1 (set), 0 (absent: *ret zeroed), -EINVAL. */
NUMAFIT_EXPORT int numafit_inventory_get_class(const numafit_inventory_t *inv, int rc,
                                               numafit_inventory_class_t *ret);
/** \brief The provider's traits (enum numafit_inventory_trait bits). \return 0, -EINVAL. */
NUMAFIT_EXPORT int numafit_inventory_set_traits(numafit_inventory_t *inv, unsigned traits);
/** \return the provider's traits (enum numafit_inventory_trait bits), -EINVAL. */
NUMAFIT_EXPORT int numafit_inventory_get_traits(const numafit_inventory_t *inv);
/** \brief The amount of class rc used (0 .. 2^53). \return 0, -EINVAL. */
NUMAFIT_EXPORT int numafit_inventory_set_used(numafit_inventory_t *inv, int rc, int64_t used);
/** \brief The amount of class rc used. \return 0, -EINVAL. */
NUMAFIT_EXPORT int numafit_inventory_get_used(const numafit_inventory_t *inv, int rc, int64_t *ret);

/**
 * \brief Read placement's JSON: {"inventories": {CLASS: {"total": N,
 * "reserved": N, "min_unit": N, "max_unit": N, "step_size": N,
 * "allocation_ratio": X}, ...}, "usages": {CLASS: N, ...}}, the bodies of
 * GET /resource_providers/{uuid}/inventories and .../usages in one object
 * ("resource_provider_generation" is read and ignored; "usages" is
 * optional), and optionally "traits": [NAME, ...] (the body of
 * GET .../traits; names the model does not know are skipped). Missing fields take placement's API
 * defaults (reserved 0, min_unit and step_size 1, max_unit NUMAFIT_RESOURCE_AMOUNT_MAX,
 * allocation_ratio 1.0). Classes outside the model
 * (CUSTOM_*, VGPU, ...) are skipped. \return 0, -EBADMSG, -EINVAL, -ENOMEM.
 * \ownership owned
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_inventory_new_from_json(const char *buf, size_t len,
                                                                     unsigned flags,
                                                                     numafit_inventory_t **ret_inv,
                                                                     numafit_error_t *reterr);
/** \brief The JSON numafit_inventory_new_from_json() reads (NUMAFIT_JSON_INDENT allowed).
 * \ownership owned (numafit_free) */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_inventory_to_json(const numafit_inventory_t *inv,
                                                               unsigned flags, char **ret_json,
                                                               numafit_error_t *reterr);
/** \return 1 when a and b hold the same records and usage, 0 when not, -EINVAL. */
NUMAFIT_EXPORT int numafit_inventory_equal(const numafit_inventory_t *a,
                                           const numafit_inventory_t *b);

/**
 * \brief The inventory nova's libvirt driver reports for a host
 * (update_provider_tree): VCPU for the host's shared CPUs (the cells'
 * cpusets; every CPU on a host configured with vcpu_pin_set or with no CPU
 * sets), reserved_host_cpus, the VCPU allocation ratio; PCPU for the
 * dedicated CPUs (cpu_dedicated_set), none reserved, ratio 1; MEMORY_MB for
 * the cells' memory, reserved_host_memory_mb (default 512), the RAM ratio;
 * DISK_GB for disk_gb (0: no DISK_GB), reserved_host_disk_mb rounded up to
 * GiB, the disk ratio. max_unit is the total, min_unit and step_size 1. A
 * class whose total is 0 is left out. The trait HW_CPU_HYPERTHREADING when
 * a cell has a sibling set of more than one CPU.
 *
 * The ratios as nova chooses them: `cpu_allocation_ratio`,
 * `ram_allocation_ratio`, `disk_allocation_ratio` of nova.conf when set
 * (and not 0); else the ratio placement already has (current's, when
 * current has the class); else `initial_*_allocation_ratio` (their defaults
 * depend on the profile: NUMAFIT_INVENTORY_ZED).
 * \param nova_conf nova.conf's text ([DEFAULT] options above), or NULL
 * \param current the inventory placement already has, or NULL; its usage
 *   is copied
 * \return 0; -EINVAL (an option's value, a reserved amount above the
 * total: err->where names the option), -EBADMSG, -ERANGE, -ENOMEM.
 * \ownership owned
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_inventory_new_from_host(const numafit_host_t *host, const char *nova_conf, size_t conf_len,
                                int64_t disk_gb, const numafit_inventory_t *current, unsigned flags,
                                numafit_inventory_t **ret_inv, numafit_error_t *reterr);

/**
 * \brief The allocation ratios a compute node with this nova.conf reports
 * when placement has none yet, as numafit_inventory_new_from_host() chooses
 * them without `current`: `cpu_allocation_ratio`, `ram_allocation_ratio`,
 * `disk_allocation_ratio` of [DEFAULT] when set and not 0, else
 * `initial_*_allocation_ratio` (defaults 4.0, 1.0, 1.0; with
 * NUMAFIT_INVENTORY_ZED 16.0, 1.5, 1.0). The CPU and RAM ratios are also
 * the NUMA limits nova's scheduler passes for the host
 * (numafit_options_set_limits()).
 * \param nova_conf nova.conf's text, or NULL (len 0) for nova's defaults
 * \param flags 0 or NUMAFIT_INVENTORY_ZED
 * \return 0; -EINVAL (arguments, flags, a value that is not a number from
 * 0 up: err->where names the option), -EBADMSG (a line oslo.config cannot
 * parse, a NUL byte), -ERANGE (text too large), -ENOMEM.
 */
NUMAFIT_EXPORT int numafit_inventory_ratios_from_nova_conf(const char *nova_conf, size_t conf_len,
                                                           unsigned flags, double *ret_cpu,
                                                           double *ret_ram, double *ret_disk,
                                                           numafit_error_t *reterr);

/**
 * \brief Is the inventory a candidate for these amounts (indexed by enum
 * numafit_resource_class, n of them; 0 asks for nothing), as placement's
 * allocation candidates decide: the provider's traits match the query's
 * (bits: what numafit_resources_from_flavor() returned; its
 * NUMAFIT_RESOURCES_SMT_REQUIRED / _FORBIDDEN against the trait
 * HW_CPU_HYPERTHREADING, NUMAFIT_RESOURCES_FALLBACK ignored; 0: no trait
 * asked), then per class asked: the class exists, min_unit <= amount <=
 * max_unit, amount is a multiple of step_size, and used + amount <=
 * int((total - reserved) * allocation_ratio).
 * \return 1 (room), 0 (no room: err->code NUMAFIT_E_NOFIT_INVENTORY,
 * err->where "HW_CPU_HYPERTHREADING" or the first class in enum order that
 * has none, err->text why), -EINVAL (also for other bits).
 */
NUMAFIT_EXPORT int numafit_inventory_check(const numafit_inventory_t *inv, const int64_t *amounts,
                                           size_t n, unsigned bits, numafit_error_t *reterr);
/**
 * \brief Add the amounts to what is used, all or nothing, when
 * numafit_inventory_check() (without trait bits: placement's allocations
 * do not look at traits) says there is room. \return 0; -ENOSPC (no room,
 * nothing changed; err as numafit_inventory_check() fills it), -EINVAL.
 */
NUMAFIT_EXPORT int numafit_inventory_claim(numafit_inventory_t *inv, const int64_t *amounts,
                                           size_t n, numafit_error_t *reterr);
/** \brief Take the amounts from what is used, all or nothing. \return 0; -EINVAL (more than
 * is used of a class: nothing changed, err->where the class). */
NUMAFIT_EXPORT int numafit_inventory_release(numafit_inventory_t *inv, const int64_t *amounts,
                                             size_t n, numafit_error_t *reterr);

/**
 * \brief Fit on a compute node in nova's two steps: placement's inventory
 * must have room for the request's amounts (numafit_resources_from_flavor()
 * of the same flavor and image), then a request with a NUMA topology must
 * fit the host (numafit_fit() with opt). A request without NUMA topology
 * fits on the inventory alone: its vCPUs float over the shared CPUs and
 * nova counts nothing of it in the cells.
 *
 * nova asks placement about the whole fleet: when no node has room for a
 * dedicated guest's PCPU (numafit_resources_from_flavor() returned 1), it
 * asks again with NUMAFIT_RESOURCES_LEGACY amounts. That second query is
 * the caller's: this call checks the amounts it is given.
 * \param ret_placement NULL for the answer only; else the placement of a
 * NUMA request, or NULL for a request without NUMA topology.
 * \param flags what numafit_resources_from_flavor() returned: its trait
 * bits are checked against the inventory's traits first.
 * \return 1 (fits), 0 (does not: reterr->code NUMAFIT_E_NOFIT_INVENTORY
 * with the class or trait in reterr->where, or numafit_fit()'s reason),
 * -EINVAL, -ENOMEM, -E2BIG (the fit's work budget).
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_node_fit(const numafit_host_t *host, const numafit_inventory_t *inv,
                 const numafit_request_t *req, const int64_t *amounts, size_t n,
                 const numafit_options_t *opt, unsigned flags, numafit_placement_t **ret_placement,
                 numafit_error_t *reterr);
/**
 * \brief Claim on both, all or nothing: the inventory's room is checked,
 * then the placement (NULL: none, a request without NUMA topology) is
 * claimed on the host, then the amounts are added to the inventory.
 * \return 0; -ENOSPC (no room in the inventory), numafit_host_claim()'s
 * errors; on any error neither changed.
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_node_claim(numafit_host_t *host, numafit_inventory_t *inv, const numafit_placement_t *p,
                   const int64_t *amounts, size_t n, numafit_error_t *reterr);
/** \brief The inverse of numafit_node_claim(), all or nothing. \return 0,
 * numafit_host_release()'s and numafit_inventory_release()'s errors. */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_node_release(numafit_host_t *host, numafit_inventory_t *inv, const numafit_placement_t *p,
                     const int64_t *amounts, size_t n, numafit_error_t *reterr);

#ifdef __cplusplus
}
#endif
#endif
