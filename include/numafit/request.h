/** \file request.h  An instance's NUMA request, built as nova's numa_get_constraints. */
#ifndef NUMAFIT_REQUEST_H
#define NUMAFIT_REQUEST_H

#include <numafit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An instance's NUMA request, built from its flavor and image (opaque). */
typedef struct numafit_request numafit_request_t;

/** hw:cpu_policy. */
enum numafit_cpu_policy {
    NUMAFIT_CPU_POLICY_NONE = -1,
    NUMAFIT_CPU_POLICY_SHARED = 0,
    NUMAFIT_CPU_POLICY_DEDICATED = 1,
    NUMAFIT_CPU_POLICY_MIXED = 2,
};
/** hw:cpu_thread_policy. */
enum numafit_thread_policy {
    NUMAFIT_THREAD_POLICY_NONE = -1,
    NUMAFIT_THREAD_POLICY_PREFER = 0,
    NUMAFIT_THREAD_POLICY_ISOLATE = 1,
    NUMAFIT_THREAD_POLICY_REQUIRE = 2,
};
/** hw:emulator_threads_policy. */
enum numafit_emulator_threads_policy {
    NUMAFIT_EMULATOR_THREADS_NONE = -1,
    NUMAFIT_EMULATOR_THREADS_SHARE = 0,
    NUMAFIT_EMULATOR_THREADS_ISOLATE = 1,
};
/** hw:mem_page_size special values (nova's MEMPAGES_*); > 0 is KiB. */
#define NUMAFIT_PAGESIZE_NONE 0
/** hw:mem_page_size=small */
#define NUMAFIT_PAGESIZE_SMALL (-1)
/** hw:mem_page_size=large */
#define NUMAFIT_PAGESIZE_LARGE (-2)
/** hw:mem_page_size=any */
#define NUMAFIT_PAGESIZE_ANY (-3)

/** Most vCPUs a request may have (refused above, nova has no bound). */
#define NUMAFIT_VCPUS_MAX 16384

/** Flags for numafit_request_new(). */
enum numafit_request_flags {
    /** apply Debian 12's nova 26.2.2 (Zed) rules instead of upstream latest */
    NUMAFIT_REQUEST_ZED = 1u << 0,
};

/**
 * \brief Build the instance NUMA request from a flavor and image properties,
 * as nova's numa_get_constraints() does.
 * \param flavor_json {"vcpus":N,"memory_mb":N,"extra_specs":{"hw:...":"..."}}
 * \param image_json  {"properties":{"hw_...":...}} or NULL (len ignored)
 * \return 1 when the request has a NUMA topology, 0 when it has none (nova's
 * None; *ret_req is still set, with 0 cells); -EINVAL when nova refuses it
 * (reterr->exception holds nova's exception class, e.g.
 * "ImageNUMATopologyAsymmetric"), or for bad JSON/arguments; -EBADMSG, -ERANGE,
 * -ENOMEM. \ownership owned
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_request_new(const char *flavor_json, size_t flavor_len,
                                                         const char *image_json, size_t image_len,
                                                         unsigned flags,
                                                         numafit_request_t **ret_req,
                                                         numafit_error_t *reterr);
/** The forms of a flavor or image numafit_flavor_normalize() and
 * numafit_image_normalize() read (numafit_input_form_to_string() names them). */
enum numafit_input_form {
    /** numafit's own: {"vcpus","memory_mb","extra_specs"}, {"properties"} */
    NUMAFIT_FORM_NATIVE = 0,
    /** `openstack flavor show -f json`, "properties" an object */
    NUMAFIT_FORM_OSC_FLAVOR = 1,
    /** `openstack flavor show -f json`, "properties" openstackclient's text
     * ("hw:cpu_policy='dedicated', hw:mem_page_size='1GB'") */
    NUMAFIT_FORM_OSC_FLAVOR_TEXT = 2,
    /** nova's API: {"flavor": {"ram","vcpus",...,"extra_specs"}} */
    NUMAFIT_FORM_NOVA_FLAVOR = 3,
    /** nova's API flavor without its envelope */
    NUMAFIT_FORM_NOVA_FLAVOR_BARE = 4,
    /** `openstack image show -f json`, "properties" an object */
    NUMAFIT_FORM_OSC_IMAGE = 5,
    /** `openstack image show -f json`, "properties" as text */
    NUMAFIT_FORM_OSC_IMAGE_TEXT = 6,
    /** glance's v2 image: its custom properties at the top level */
    NUMAFIT_FORM_GLANCE_IMAGE = 7,
};

/**
 * \brief A flavor in any form numafit reads, as numafit's flavor JSON (the
 * form numafit_request_new() and the other flavor readers take).
 *
 * Forms (doc/json-formats.md): numafit's (returned as given, but refused
 * with a key other than vcpus, memory_mb, extra_specs, root_gb,
 * ephemeral_gb, swap, name: a misplaced "properties" or "hw:..." would
 * otherwise be a flavor without NUMA topology); `openstack flavor show -f
 * json` ("ram", "properties" an object or openstackclient's text form);
 * nova's API flavor, with or without its {"flavor": ...} envelope (its
 * "extra_specs" when present). ram becomes memory_mb, disk root_gb,
 * OS-FLV-EXT-DATA:ephemeral ephemeral_gb, swap "" 0; keys that look like
 * extra specs at the top level of these forms are refused, their other
 * fields are left out.
 * \param flags 0
 * \param ret_json numafit's flavor JSON text \ownership owned (numafit_free)
 * \param ret_form if not NULL, the enum numafit_input_form read
 * \return 0; -EINVAL (a misplaced or unknown key, a text form that cannot
 * be read: reterr->where names the field), -EBADMSG, -ERANGE, -ENOMEM.
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_flavor_normalize(const char *json, size_t len,
                                                              unsigned flags, char **ret_json,
                                                              int *ret_form,
                                                              numafit_error_t *reterr);
/**
 * \brief An image in any form numafit reads, as numafit's image JSON
 * {"properties": {...}}.
 *
 * Forms: numafit's (returned as given; refused with a key other than
 * "properties", such as hw_* properties at the top level); a glance image
 * (one of glance's own fields id, status, disk_format, container_format,
 * checksum, file, schema, visibility present): `openstack image show -f
 * json` ("properties" an object or text) or glance's v2 JSON (properties
 * at the top level), both merged, glance's own fields left out. JSON null
 * is numafit's form (no image).
 * \param flags 0
 * \param ret_json numafit's image JSON text \ownership owned (numafit_free)
 * \param ret_form if not NULL, the enum numafit_input_form read
 * \return 0, -EINVAL, -EBADMSG, -ERANGE, -ENOMEM (as numafit_flavor_normalize()).
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_image_normalize(const char *json, size_t len,
                                                             unsigned flags, char **ret_json,
                                                             int *ret_form,
                                                             numafit_error_t *reterr);
/** \return a short name of an enum numafit_input_form ("openstack flavor
 * show JSON (properties as text)"), NULL if unknown. \ownership borrowed */
NUMAFIT_EXPORT const char *numafit_input_form_to_string(int form);

/** Free a request (NULL is fine). */
NUMAFIT_EXPORT void numafit_request_free(numafit_request_t *req);
/** \brief A copy of the request. \return 0, -EINVAL, -ENOMEM. \ownership owned */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_request_dup(const numafit_request_t *req,
                                                         numafit_request_t **ret_req);

/** \return the number of guest NUMA cells (0: no NUMA topology), -EINVAL. */
NUMAFIT_EXPORT int numafit_request_get_cell_count(const numafit_request_t *req);
/** \return the flavor's vCPU count, -EINVAL. */
NUMAFIT_EXPORT int numafit_request_get_vcpus(const numafit_request_t *req);
/** \brief The page size asked (hw:mem_page_size, refined by the image's
 * hw_mem_page_size): KiB when > 0, else NUMAFIT_PAGESIZE_NONE, _SMALL,
 * _LARGE or _ANY. \return 0, -EINVAL. */
NUMAFIT_EXPORT int numafit_request_get_page_size(const numafit_request_t *req, unsigned flags,
                                                 int64_t *ret_kib);
/** \return enum numafit_cpu_policy / thread / emulator values, -EINVAL. */
NUMAFIT_EXPORT int numafit_request_get_cpu_policy(const numafit_request_t *req);
/** \return enum numafit_thread_policy, -EINVAL. */
NUMAFIT_EXPORT int numafit_request_get_thread_policy(const numafit_request_t *req);
/** \return enum numafit_emulator_threads_policy, -EINVAL. */
NUMAFIT_EXPORT int numafit_request_get_emulator_threads_policy(const numafit_request_t *req);

/** \brief The request as nova's InstanceNUMATopology 1.3 primitive (no
 * pinning), or the JSON text "null" without NUMA topology.
 * \ownership owned (numafit_free) */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_request_to_json(const numafit_request_t *req,
                                                             unsigned flags, char **ret_json,
                                                             numafit_error_t *reterr);

/** The placement resource classes of a request (nova's os-resource-classes names). */
enum numafit_resource_class {
    NUMAFIT_RC_VCPU = 0,      /**< shared (floating) vCPUs: "VCPU" */
    NUMAFIT_RC_PCPU = 1,      /**< dedicated host CPUs: "PCPU" */
    NUMAFIT_RC_MEMORY_MB = 2, /**< "MEMORY_MB" */
    NUMAFIT_RC_DISK_GB = 3,   /**< "DISK_GB" */
    NUMAFIT_RC_COUNT = 4,
};
/** Largest amount of a class placement takes in one request (its MAX_INT). */
#define NUMAFIT_RESOURCE_AMOUNT_MAX 2147483647

/** The bits numafit_resources_from_flavor() returns. */
enum numafit_resources_result {
    /** nova would ask again with NUMAFIT_RESOURCES_LEGACY if placement found
     * no host (a dedicated guest whose hw:cpu_policy became PCPU) */
    NUMAFIT_RESOURCES_FALLBACK = 1u << 0,
    /** the host must have the trait HW_CPU_HYPERTHREADING (SMT):
     * hw:cpu_thread_policy=require, a trait[SUFFIX]:HW_CPU_HYPERTHREADING
     * =required extra spec or the image's traits_required */
    NUMAFIT_RESOURCES_SMT_REQUIRED = 1u << 1,
    /** the host must not have it: hw:cpu_thread_policy=isolate, or the
     * extra spec =forbidden */
    NUMAFIT_RESOURCES_SMT_FORBIDDEN = 1u << 2,
};

/** Flags for numafit_resources_from_flavor(). */
enum numafit_resources_flags {
    /** Debian 12's nova 26.2.2 (Zed) rules, as NUMAFIT_REQUEST_ZED */
    NUMAFIT_RESOURCES_ZED = 1u << 0,
    /** the instance boots from a volume: its root disk takes no DISK_GB */
    NUMAFIT_RESOURCES_BOOT_FROM_VOLUME = 1u << 1,
    /** nova's second query for hosts that still pin with vcpu_pin_set
     * (enable_pinning_translate=False): hw:cpu_policy is not translated to
     * PCPU, a dedicated guest asks for VCPU */
    NUMAFIT_RESOURCES_LEGACY = 1u << 2,
};

/**
 * \brief What a flavor and image ask of placement for the classes above, as
 * nova's scheduler computes it (resources_from_request_spec, then the sum
 * over its request groups: ResourceRequest.merged_resources).
 *
 * - VCPU or PCPU from hw:cpu_policy (dedicated: PCPU = vcpus; mixed: PCPU
 *   = the dedicated vCPUs, VCPU = the others; an isolated emulator thread
 *   adds a PCPU), unless `resources[SUFFIX]:VCPU|PCPU` extra specs give
 *   them; MEMORY_MB = memory_mb; DISK_GB = root_gb (not with
 *   NUMAFIT_RESOURCES_BOOT_FROM_VOLUME) + ephemeral_gb + swap MiB rounded
 *   up to GiB. Each class can be overridden by `resources[SUFFIX]:CLASS`
 *   extra specs (nova's rules: the last valid value per group, summed over
 *   the groups; amounts that are not non-negative integers are ignored).
 * - The flavor is checked as numafit_request_new() checks it (nova's API
 *   refusals, same errors), and root_gb, ephemeral_gb and swap (absent: 0)
 *   must be integers from 0 to NUMAFIT_RESOURCE_AMOUNT_MAX.
 * \param flavor_json {"vcpus","memory_mb","root_gb","ephemeral_gb","swap","extra_specs"}
 * \param image_json {"properties":{...}} or NULL (len ignored)
 * \param ret_amounts n amounts indexed by enum numafit_resource_class (0:
 *   not asked); classes at or above NUMAFIT_RC_COUNT are set to 0
 * \return the bits of enum numafit_resources_result (0 or more):
 * NUMAFIT_RESOURCES_FALLBACK when nova would ask again with
 * NUMAFIT_RESOURCES_LEGACY if placement found no host (a dedicated guest,
 * translation on), and the HW_CPU_HYPERTHREADING trait the query requires
 * or forbids (the thread policy is translated only with the translation
 * on; trait extra specs and the image's traits_required always count);
 * -EINVAL (nova's refusal or bad input, reterr->exception as
 * numafit_request_new() sets it), -ERANGE (an amount above
 * NUMAFIT_RESOURCE_AMOUNT_MAX, which placement refuses; reterr->where names
 * the class), -EBADMSG, -ENOMEM.
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_resources_from_flavor(const char *flavor_json, size_t flavor_len, const char *image_json,
                              size_t image_len, unsigned flags, int64_t *ret_amounts, size_t n,
                              numafit_error_t *reterr);
/** \return placement's name of an enum numafit_resource_class value ("VCPU"...), NULL if
 * unknown. \ownership borrowed */
NUMAFIT_EXPORT const char *numafit_resource_class_to_string(int rc);

/** String forms of the enums ("dedicated", "isolate", ...). \ownership borrowed */
NUMAFIT_EXPORT const char *numafit_cpu_policy_to_string(int policy);
/** \return the enum numafit_cpu_policy value of nova's name, -EINVAL. */
NUMAFIT_EXPORT int numafit_cpu_policy_from_string(const char *s);
/** \return nova's name of an enum numafit_thread_policy value, NULL if unknown. \ownership borrowed
 */
NUMAFIT_EXPORT const char *numafit_thread_policy_to_string(int policy);
/** \return the enum numafit_thread_policy value of nova's name, -EINVAL. */
NUMAFIT_EXPORT int numafit_thread_policy_from_string(const char *s);
/** \return nova's name of an enum numafit_emulator_threads_policy value, NULL if unknown.
 * \ownership borrowed */
NUMAFIT_EXPORT const char *numafit_emulator_threads_policy_to_string(int policy);
/** \return the enum numafit_emulator_threads_policy value of nova's name, -EINVAL. */
NUMAFIT_EXPORT int numafit_emulator_threads_policy_from_string(const char *s);

#ifdef __cplusplus
}
#endif
#endif
