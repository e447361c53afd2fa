/** \file pci.h  PCI and SR-IOV devices: a host's PCI device pools, an
 * instance's PCI requests, and whether (and how) the pools satisfy the
 * requests on a set of host NUMA cells, as nova's scheduler decides it
 * (doc/pci.md). */
#ifndef NUMAFIT_PCI_H
#define NUMAFIT_PCI_H

#include <stddef.h>
#include <stdint.h>

#include <numafit/common.h>
#include <numafit/host.h>
#include <numafit/options.h>
#include <numafit/placement.h>
#include <numafit/request.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A host's PCI device pools (opaque), nova's PciDevicePoolList: each pool
 * counts identical devices by vendor_id, product_id, numa_node (absent,
 * null or an integer) and string tags (dev_type, physical_network,
 * trusted, remote_managed, parent_ifname and any device_spec tag). The
 * pools are kept in nova's order: stable by their number of keys, fewest
 * first; that order decides which devices a request takes.
 */
typedef struct numafit_pci_pools numafit_pci_pools_t;

/**
 * An instance's PCI requests (opaque), nova's InstancePCIRequests: each
 * asks for count devices matching one of its specs (string maps), with a
 * NUMA affinity policy; from a flavor's aliases or a neutron SR-IOV port.
 */
typedef struct numafit_pci_requests numafit_pci_requests_t;

/** A request's NUMA affinity policy (nova's PCINUMAAffinityPolicy). */
enum numafit_pci_numa_policy {
    NUMAFIT_PCI_POLICY_UNSET = 0, /**< not set: nova applies legacy */
    NUMAFIT_PCI_POLICY_REQUIRED,  /**< devices on the guest's host cells only */
    NUMAFIT_PCI_POLICY_LEGACY,    /**< those cells, else with devices of unknown NUMA node */
    NUMAFIT_PCI_POLICY_PREFERRED, /**< those cells first, else any device */
    NUMAFIT_PCI_POLICY_SOCKET,    /**< those cells, else any cell of their sockets */
};

/** Bounds of the model (inputs above them are refused with -ERANGE). */
#define NUMAFIT_PCI_POOLS_MAX    4096       /**< pools of a host */
#define NUMAFIT_PCI_TAGS_MAX     64         /**< tags of a pool, keys of a spec */
#define NUMAFIT_PCI_REQUESTS_MAX 256        /**< requests of an instance */
#define NUMAFIT_PCI_SPECS_MAX    64         /**< specs (alternatives) of a request */
#define NUMAFIT_PCI_STRING_MAX   1024       /**< bytes of a key or value */
#define NUMAFIT_PCI_COUNT_MAX    2147483647 /**< a pool's or a request's count */

/**
 * \brief Read nova's pools: a PciDevicePoolList primitive (the
 * compute_nodes.pci_stats column, also as a JSON string holding it), a
 * JSON list of pool objects in nova's older flat form ({"vendor_id",
 * "product_id", "numa_node", "count", TAG: VALUE...}) or one such object.
 * Tag values are strings or null (integers and booleans are turned into
 * strings as nova does). \return 0, -EBADMSG, -EINVAL (err->where names the
 * field), -ERANGE, -ENOMEM. \ownership owned
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_pci_pools_new_from_json(const char *buf, size_t len,
                                                                     unsigned flags,
                                                                     numafit_pci_pools_t **ret,
                                                                     numafit_error_t *reterr);
/** \brief The pools as a PciDevicePoolList 1.1 primitive (NUMAFIT_JSON_INDENT,
 * NUMAFIT_HOST_JSON_STRING allowed). \ownership owned (numafit_free) */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_pci_pools_to_json(const numafit_pci_pools_t *pools,
                                                               unsigned flags, char **ret_json,
                                                               numafit_error_t *reterr);
/** \brief A copy. \return 0, -EINVAL, -ENOMEM. \ownership owned */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_pci_pools_dup(const numafit_pci_pools_t *pools,
                                                           numafit_pci_pools_t **ret);
/** Free pools (NULL is fine). */
NUMAFIT_EXPORT void numafit_pci_pools_free(numafit_pci_pools_t *pools);
/** \return the number of pools, -EINVAL. */
NUMAFIT_EXPORT int numafit_pci_pools_get_count(const numafit_pci_pools_t *pools);
/**
 * \brief Pool index's fields (any pointer may be NULL). *numa_node is -1
 * with *numa_known 0 when the pool's numa_node is null or absent.
 * \return 0, -EINVAL. \ownership borrowed (valid until the pools change)
 */
NUMAFIT_EXPORT int numafit_pci_pools_get(const numafit_pci_pools_t *pools, unsigned index,
                                         const char **vendor_id, const char **product_id,
                                         int *numa_known, int64_t *numa_node, int64_t *count);
/** \brief Tag key of pool index: 1 with *value (NULL for a null tag), 0 when
 * the pool has no such tag, -EINVAL. \ownership borrowed */
NUMAFIT_EXPORT int numafit_pci_pools_get_tag(const numafit_pci_pools_t *pools, unsigned index,
                                             const char *key, const char **value);
/** \return 1 when a and b hold the same pools in the same order, 0 when not, -EINVAL. */
NUMAFIT_EXPORT int numafit_pci_pools_equal(const numafit_pci_pools_t *a,
                                           const numafit_pci_pools_t *b);

/**
 * \brief Read nova's PCI requests: an InstancePCIRequests primitive, or
 * the JSON list the database keeps (instance_extra.pci_requests: [{"count",
 * "spec", "alias_name", "is_new", "numa_policy", "request_id",
 * "requester_id"}]), also inside a JSON string. Spec values are strings
 * or null (integers and booleans become strings as nova makes them).
 * \return 0, -EBADMSG, -EINVAL (err->where names the field), -ERANGE,
 * -ENOMEM. \ownership owned
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_pci_requests_new_from_json(const char *buf, size_t len, unsigned flags,
                                   numafit_pci_requests_t **ret, numafit_error_t *reterr);
/** \brief The requests as an InstancePCIRequests 1.1 primitive. \ownership owned
 * (numafit_free) */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_pci_requests_to_json(const numafit_pci_requests_t *reqs, unsigned flags, char **ret_json,
                             numafit_error_t *reterr);
/** Free requests (NULL is fine). */
NUMAFIT_EXPORT void numafit_pci_requests_free(numafit_pci_requests_t *reqs);
/** \return the number of requests, -EINVAL. */
NUMAFIT_EXPORT int numafit_pci_requests_get_count(const numafit_pci_requests_t *reqs);
/** \brief Request index's count and policy (enum numafit_pci_numa_policy);
 * either pointer may be NULL. \return 0, -EINVAL. */
NUMAFIT_EXPORT int numafit_pci_requests_get(const numafit_pci_requests_t *reqs, unsigned index,
                                            int64_t *count, int *numa_policy);

/** Flags for numafit_pci_requests_from_flavor(). */
enum numafit_pci_flags {
    /** Debian 12's nova 26.2.2 (Zed) rules: an alias needs no vendor_id and
     * product_id, and knows no resource_class, traits or live_migratable */
    NUMAFIT_PCI_ZED = 1u << 0,
};

/**
 * \brief The PCI requests of a flavor and image, as nova makes them when
 * it builds an instance (get_pci_requests_from_flavor with the policy of
 * get_pci_numa_policy_constraint): one request per NAME:COUNT of the
 * flavor's `pci_passthrough:alias` extra spec, with the specs of nova.conf's
 * `[pci] alias` entry NAME (all entries of that name) and its NUMA policy,
 * unless the flavor's `hw:pci_numa_affinity_policy` or the image's
 * `hw_pci_numa_affinity_policy` sets one. The aliases are checked as nova
 * checks them, and only when the flavor asks for one. No extra spec: no
 * request. Request ids are left null (nova makes random ones).
 * \param flavor_json {"extra_specs": {...}} (other members ignored)
 * \param image_json {"properties": {...}} or NULL
 * \param nova_conf nova.conf's text (its `[pci] alias` values, else the
 *   deprecated `[DEFAULT] pci_alias`), or NULL
 * \return 0; -EINVAL with err->exception nova's class: PciInvalidAlias
 * (err->where "nova.conf:LINE"), PciRequestAliasNotDefined, ValueError (an
 * item that is not NAME:COUNT, a count that is not an integer from 0 to
 * NUMAFIT_PCI_COUNT_MAX), ImagePCINUMAPolicyForbidden,
 * InvalidPCINUMAAffinity; -EBADMSG, -ERANGE, -ENOMEM. \ownership owned
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_pci_requests_from_flavor(const char *flavor_json, size_t flavor_len, const char *image_json,
                                 size_t image_len, const char *nova_conf, size_t conf_len,
                                 unsigned flags, numafit_pci_requests_t **ret,
                                 numafit_error_t *reterr);

/** \brief Requests with none in them (to add ports to). \return 0, -EINVAL,
 * -ENOMEM. \ownership owned */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_pci_requests_new(numafit_pci_requests_t **ret);

/**
 * \brief Add the request nova makes for a neutron port (after the
 * flavor's, in the order of the instance's ports): a port whose vnic type
 * is SR-IOV (`direct`, `macvtap`, `direct-physical`, `virtio-forwarder`,
 * `vdpa`, `remote-managed`) asks for one device of its physical network
 * (`physical_network`: physnet, null for a tunnelled network),
 * `remote_managed` "True" for `remote-managed` else "False", `dev_type`
 * type-PF for `direct-physical` and vdpa for `vdpa`, and `trusted` "True"
 * or "False" when the port's binding profile sets it. Its NUMA policy: the
 * port's numa_affinity_policy, else the flavor's or image's (policy, enum
 * numafit_pci_numa_policy), else none. Other vnic types ask for nothing.
 * \param trusted -1: not set, 0 or 1
 * \param port_policy the port's numa_affinity_policy, or NULL
 * \return 1 (a request added), 0 (the vnic type asks for none), -EINVAL
 * (an unknown vnic type or port policy: err->where names it), -ERANGE
 * (more than NUMAFIT_PCI_REQUESTS_MAX), -ENOMEM.
 */
NUMAFIT_EXPORT int numafit_pci_requests_add_port(numafit_pci_requests_t *reqs,
                                                 const char *vnic_type, const char *physnet,
                                                 int trusted, const char *port_id,
                                                 const char *port_policy, int policy,
                                                 numafit_error_t *reterr);

/**
 * \brief Record the scheduler's provider mapping in the requests, as nova
 * reads it (PciDeviceStats._get_rp_uuids_for_request with a mapping): the
 * mapping is {GROUP: [RP_UUID, ...]}, the request groups placement
 * fulfilled, named REQUEST_ID-N, each from the first provider of its list;
 * each flavor alias request (one with an alias_name) gets, as its first
 * spec's rp_uuids, the providers of the groups whose name starts with its
 * request_id (comma-separated; none: no rp_uuids), which the latest rules
 * follow (numafit_pci_support_flags()). Port requests are left alone, and
 * so is every request when the mapping is empty ({}: nova then reads the
 * specs' own rp_uuids).
 * \return 0; -EINVAL (not such a mapping, an alias request without
 * request_id: err->where), -EBADMSG, -ERANGE, -ENOMEM.
 */
NUMAFIT_EXPORT int numafit_pci_requests_set_provider_mapping(numafit_pci_requests_t *reqs,
                                                             const char *mapping_json, size_t len,
                                                             numafit_error_t *reterr);

/**
 * A host's PCI devices (opaque), as nova's virt driver reports them to the
 * resource tracker (the pci_passthrough_devices JSON: one dict per
 * device with address, vendor_id, product_id, dev_type, numa_node,
 * parent_addr, parent_ifname, capabilities...), before nova.conf's
 * `[pci] device_spec` picks the assignable ones and groups them into
 * pools (numafit_pci_pools_new_from_devices()).
 */
typedef struct numafit_pci_devices numafit_pci_devices_t;

#define NUMAFIT_PCI_DEVICES_MAX 65536 /**< devices of a host */

/**
 * \brief Read a host's devices: nova's pci_passthrough_devices JSON (a
 * list of device dicts, also inside a JSON string). Each needs `address`
 * (DOMAIN:BUS:SLOT.FUNCTION in hexadecimal, a domain of 4 to 8 digits),
 * `vendor_id` and `product_id` (four hexadecimal digits) and `dev_type`
 * (`type-PCI`, `type-PF`, `type-VF`, `vdpa`); `numa_node` (an integer or
 * null), `parent_addr`, `parent_ifname`, `dev_id`, `label` and
 * `capabilities` (its `vpd.card_serial_number` is read) are optional.
 * libnumafit's own members `ifname` (the device's network interface),
 * `sriov_totalvfs` and `sriov_vf_device` carry the sysfs facts nova's
 * device_spec reads (devname, PF addresses); the discovery functions write
 * them and nova ignores them. \return 0, -EBADMSG, -EINVAL (err->where
 * names the field), -ERANGE, -ENOMEM. \ownership owned
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_pci_devices_new_from_json(const char *buf, size_t len,
                                                                       unsigned flags,
                                                                       numafit_pci_devices_t **ret,
                                                                       numafit_error_t *reterr);
/** \brief The devices as that JSON list (NUMAFIT_JSON_INDENT allowed).
 * \ownership owned (numafit_free) */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_pci_devices_to_json(const numafit_pci_devices_t *devs,
                                                                 unsigned flags, char **ret_json,
                                                                 numafit_error_t *reterr);
/** Free devices (NULL is fine). */
NUMAFIT_EXPORT void numafit_pci_devices_free(numafit_pci_devices_t *devs);
/** \return the number of devices, -EINVAL. */
NUMAFIT_EXPORT int numafit_pci_devices_get_count(const numafit_pci_devices_t *devs);
/**
 * \brief Device index's fields (any pointer may be NULL; *parent_addr is
 * NULL when it has none; *numa_node -1 with *numa_known 0 when unknown).
 * \return 0, -EINVAL. \ownership borrowed
 */
NUMAFIT_EXPORT int numafit_pci_devices_get(const numafit_pci_devices_t *devs, unsigned index,
                                           const char **address, const char **vendor_id,
                                           const char **product_id, const char **dev_type,
                                           int *numa_known, int64_t *numa_node,
                                           const char **parent_addr);

/**
 * \brief A host's devices from a captured or live sysfs:
 * ROOT/sys/bus/pci/devices/ADDRESS (vendor, device, numa_node, class,
 * physfn, virtfn*, sriov_totalvfs, sriov_vf_device, net/) as libvirt and
 * nova read them (doc/pci.md). \param root "/" for this machine.
 * \return 0, -ENOENT (no ROOT/sys/bus/pci/devices), -EINVAL, -EIO,
 * -ERANGE, -ENOMEM. \ownership owned
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_pci_devices_new_from_sysfs(const char *root,
                                                                        unsigned flags,
                                                                        numafit_pci_devices_t **ret,
                                                                        numafit_error_t *reterr);
/**
 * \brief A host's devices from libvirt's node device XML documents (what
 * `virsh nodedev-dumpxml` prints, for the pci, net and vdpa devices), as
 * nova's libvirt driver reads them. \param xml n documents, \param len their
 * lengths. \return 0, -EBADMSG, -EINVAL, -ERANGE, -ENOMEM. \ownership owned
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_pci_devices_new_from_nodedev_xml(const char *const *xml, const size_t *len, size_t n,
                                         unsigned flags, numafit_pci_devices_t **ret,
                                         numafit_error_t *reterr);
/**
 * \brief A host's devices from a live libvirt connection, as nova's
 * libvirt driver lists them: virConnectOpenReadOnly (uri; NULL = libvirt's
 * default), virConnectListAllNodeDevices for the PCI, net and (libvirt
 * 6.9.0 and later) vdpa devices, and each one's XML read as
 * numafit_pci_devices_new_from_nodedev_xml() reads it (a device gone
 * since the listing is skipped). Blocking.
 * \return as numafit_pci_devices_new_from_nodedev_xml(), plus -ECONNREFUSED
 * (the connection cannot be opened or read; reterr->text has libvirt's
 * message) and -ENOTSUP (built without libvirt). \ownership owned
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_pci_devices_new_from_libvirt(const char *uri, unsigned flags, numafit_pci_devices_t **ret,
                                     numafit_error_t *reterr);

/**
 * \brief The pools nova's compute node reports for these devices: the
 * devices nova.conf's `[pci] device_spec` entries match (also the
 * deprecated `[pci] passthrough_whitelist` and `[DEFAULT]
 * pci_passthrough_whitelist`, merged as oslo.config merges them), each in
 * the pool of its vendor_id, product_id, numa_node, dev_type, the tags of
 * the first entry that matches it, its parent_ifname and remote_managed
 * (and with the latest profile its PF's or own address), in nova's order.
 * No device_spec: no pools. \param flags NUMAFIT_PCI_ZED for Debian 12's nova.
 * \return 0; -EINVAL with err->exception nova's class (PciConfigInvalidSpec,
 * PciDeviceWrongAddressFormat, PciDeviceInvalidDeviceName,
 * PciDeviceRemoteManagedNotPresent, PciDeviceInvalidPFRemoteManaged;
 * err->where "nova.conf:LINE"); -EBADMSG, -ERANGE, -ENOMEM. \ownership owned
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_pci_pools_new_from_devices(const numafit_pci_devices_t *devs, const char *nova_conf,
                                   size_t conf_len, unsigned flags, numafit_pci_pools_t **ret,
                                   numafit_error_t *reterr);

/**
 * \brief The pools of a synthetic host's devices: the `pci:` tokens of a
 * synthetic host spec (numafit_host_new_synthetic() checks and skips
 * them; other tokens are skipped here),
 * `pci:VENDOR:PRODUCT[:TYPE[:PHYSNET]]=COUNT[@CELLS]`: COUNT devices (0 to
 * 65536) on each of CELLS (host cell ids separated by commas, `none` for
 * devices of unknown NUMA node; default every cell of host), TYPE `pci`
 * (type-PCI, the default), `pf`, `vf` or `vdpa`, PHYSNET their
 * physical_network tag; a PF, VF or vdpa pool also gets remote_managed
 * "false" as nova's compute node reports it. Identical devices share a
 * pool. E.g. "2x16c2t 2cells pci:8086:154c:vf:physnet1=16@0 pci:10de:1eb8=1".
 * \param host the host built from the same spec (its cell ids)
 * \return 0, -EINVAL (err->where "pci", err->text names the token),
 * -ERANGE (more than NUMAFIT_PCI_POOLS_MAX pools), -ENOMEM. \ownership owned
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_pci_pools_new_from_spec(const char *spec, const numafit_host_t *host, unsigned flags,
                                numafit_pci_pools_t **ret, numafit_error_t *reterr);

/**
 * \brief Do the pools satisfy the requests on these host cells? nova's
 * scheduler rules (PciDeviceStats.support_requests): the requests in
 * order, each taking its devices from the pools left by those before it;
 * per request the pools matching one of its specs (strings compared
 * without case, a key the pool lacks matching only null), then its NUMA
 * policy on the cells (none with ncells 0), then no PF, vdpa or
 * remote-managed pool unless a spec asks for one; the devices are taken
 * pool by pool in that order. The pools do not change.
 * \param host the host the cells belong to (the socket policy reads the
 *   cells' sockets); may be NULL (the socket policy then finds nothing
 *   beyond the cells)
 * \param cell_ids the host cells the guest was placed on (their ids), or
 *   NULL with ncells 0: no NUMA policy applies (a guest without NUMA topology)
 * The rules are upstream nova's (numafit_pci_support_flags() for Zed's).
 * \return 1 (satisfied), 0 (not: err->code NUMAFIT_E_NOFIT, err->where
 * "pci_requests/I" of the first request that fails, err->text why),
 * -EINVAL, -ENOMEM.
 */
NUMAFIT_EXPORT int numafit_pci_support(const numafit_pci_pools_t *pools, const numafit_host_t *host,
                                       const numafit_pci_requests_t *reqs, const int64_t *cell_ids,
                                       size_t ncells, numafit_error_t *reterr);
/**
 * \brief numafit_pci_support() with the rules of a profile: flags 0 for
 * upstream nova's (the default: a spec's resource_class, traits and
 * rp_uuids are left to placement; a request of the flavor whose first spec
 * names rp_uuids, its placement allocation, takes only from the pools of
 * those providers (the rp_uuid tag), as many devices from each as placement
 * took there, and fails when two pools share a provider; when every spec
 * asks live_migratable "true" or "false", only pools so tagged), or
 * NUMAFIT_PCI_ZED for Debian 12's nova 26.2.2 (none of these).
 * \return as numafit_pci_support(), -EINVAL for unknown flags.
 */
NUMAFIT_EXPORT int numafit_pci_support_flags(const numafit_pci_pools_t *pools,
                                             const numafit_host_t *host,
                                             const numafit_pci_requests_t *reqs,
                                             const int64_t *cell_ids, size_t ncells, unsigned flags,
                                             numafit_error_t *reterr);
/** \brief numafit_pci_apply() with the rules of a profile (as
 * numafit_pci_support_flags()). */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_pci_apply_flags(numafit_pci_pools_t *pools, const numafit_host_t *host,
                        const numafit_pci_requests_t *reqs, const int64_t *cell_ids, size_t ncells,
                        unsigned flags, numafit_error_t *reterr);

/**
 * \brief Take the devices numafit_pci_support() says the requests take,
 * all or nothing (pools that reach 0 devices are removed, as nova's
 * scheduler does). \return 0, -ENOSPC (not satisfied: nothing changed, err
 * as numafit_pci_support() fills it), -EINVAL, -ENOMEM.
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_pci_apply(numafit_pci_pools_t *pools,
                                                       const numafit_host_t *host,
                                                       const numafit_pci_requests_t *reqs,
                                                       const int64_t *cell_ids, size_t ncells,
                                                       numafit_error_t *reterr);

/**
 * A compute node's PCI devices one by one (opaque), as nova's compute node
 * tracks them (PciDevTracker and its PciDeviceStats): the pools of the
 * free devices, claims that take particular devices and releases that give
 * them back. The scheduler's view of the same host is its pools
 * (numafit_pci_tracker_get_pools()), which numafit_pci_apply() only counts.
 */
typedef struct numafit_pci_tracker numafit_pci_tracker_t;

/**
 * \brief Track the devices nova.conf's `[pci] device_spec` makes assignable
 * (as numafit_pci_pools_new_from_devices() picks them), all free. A VF's or
 * vdpa device's PF is the tracked device at its parent_addr.
 * \return as numafit_pci_pools_new_from_devices(). \ownership owned
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_pci_tracker_new(const numafit_pci_devices_t *devs, const char *nova_conf, size_t conf_len,
                        unsigned flags, numafit_pci_tracker_t **ret, numafit_error_t *reterr);
/** Free a tracker (NULL is fine). */
NUMAFIT_EXPORT void numafit_pci_tracker_free(numafit_pci_tracker_t *t);
/** \brief The pools of the free devices, what the compute node reports
 * (compute_nodes.pci_stats; a pool a claim emptied stays with count 0, as
 * in nova). \return 0, -EINVAL, -ENOMEM. \ownership owned */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_pci_tracker_get_pools(const numafit_pci_tracker_t *t,
                                                                   numafit_pci_pools_t **ret);
/**
 * \brief Claim the devices of the requests on these host cells, as nova's
 * compute node does (PciDeviceStats.consume_requests): each request, in
 * order, takes from the pools nova's rules leave it (as
 * numafit_pci_support()), pool by pool, each pool giving the device that
 * joined it last first; a PF taken takes its free VFs out of their pools
 * (they become unavailable), a VF or vdpa device taken its free PF. All or
 * nothing. \param ret_json {"devices": [{"address", "vendor_id",
 * "product_id", "dev_type", "numa_node", "request" (index), "request_id",
 * "alias_name", "requester_id"}...], "unavailable": [addresses]}
 * \return 0; -ENOSPC (not satisfied: nothing changed, err names the
 * request); -EINVAL, -ENOMEM. \ownership owned (numafit_free)
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_pci_tracker_claim(numafit_pci_tracker_t *t, const numafit_host_t *host,
                          const numafit_pci_requests_t *reqs, const int64_t *cell_ids,
                          size_t ncells, char **ret_json, numafit_error_t *reterr);
/**
 * \brief Give back the devices of a claim (its JSON, as
 * numafit_pci_tracker_claim() wrote it), as nova frees them device by
 * device (PciDevice.free): a PF gives back its VFs, a VF its PF once no
 * other VF of the PF is in use; each joins its pool again (a pool that had
 * left the list comes back at its place in nova's order). All or nothing:
 * every device must be claimed on this tracker. \return 0, -EINVAL
 * (err->where "devices/I"), -EBADMSG, -ERANGE, -ENOMEM.
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_pci_tracker_release(numafit_pci_tracker_t *t,
                                                                 const char *claim_json, size_t len,
                                                                 numafit_error_t *reterr);

/**
 * \brief Take again the devices of an earlier claim (its JSON, as
 * numafit_pci_tracker_claim() wrote it and the caller kept it), as a
 * compute node that starts finds them allocated in its database: each
 * device leaves its pool, a PF's free VFs and a VF's or vdpa device's free
 * PF become unavailable. For a tracker made again in a later run (the
 * claims persist with the caller, e.g. `numafit xml --pci-claims`). All or
 * nothing. \return 0; -EBUSY (a device is not free: claimed, unavailable
 * or not assignable; err->where "devices/I", NUMAFIT_E_NOFIT_PCI); -EINVAL
 * (a device the tracker does not have, or twice), -EBADMSG, -ERANGE,
 * -ENOMEM.
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_pci_tracker_restore(numafit_pci_tracker_t *t,
                                                                 const char *claim_json, size_t len,
                                                                 numafit_error_t *reterr);
/**
 * \brief Fit req on host with the tracker's free devices (its pools, as the
 * scheduler sees them) and claim both: the placement on the host
 * (numafit_host_claim()) and particular devices on the tracker
 * (numafit_pci_tracker_claim() on the placement's cells). All or nothing:
 * when nova's compute side refuses devices its scheduler accepted (a VF
 * and its own PF in one instance), the host claim is given back.
 * \param opt the fit's options, or NULL for the defaults (its PCI pools and
 *   check are replaced by the tracker's pools for this fit)
 * \return 1 with *ret_placement (claimed) and *ret_claim_json (as
 * numafit_pci_tracker_claim() writes it); 0 when it does not fit (err says
 * why: NUMAFIT_E_NOFIT_PCI for the devices); -EINVAL, -ENOMEM, -E2BIG (the
 * fit's budget). \ownership owned (both results)
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_pci_tracker_fit_and_claim(numafit_pci_tracker_t *t, numafit_host_t *host,
                                  const numafit_request_t *req, const numafit_pci_requests_t *reqs,
                                  const numafit_options_t *opt, numafit_placement_t **ret_placement,
                                  char **ret_claim_json, numafit_error_t *reterr);

#ifdef __cplusplus
}
#endif

#endif
