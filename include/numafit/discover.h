/** \file discover.h  Host discovery: the loaders that turn libvirt
 * capabilities XML, a live libvirt connection, or a Linux sysfs tree into
 * nova's host model with the libvirt driver's rules, and the nova.conf
 * options those rules read (numafit_hostconf_*: CPU sets, reserved huge
 * pages, network NUMA affinity).
 *
 * Nova's rules (nova/virt/libvirt/driver.py _get_host_numa_topology and
 * _check_cpu_set_configuration, Zed):
 *  - shared CPUs (cell cpuset, VCPU) = vcpu_pin_set if set, else
 *    cpu_shared_set, else none if cpu_dedicated_set is set, else all online
 *    CPUs; dedicated CPUs (cell pcpuset, PCPU) = cpu_dedicated_set, else the
 *    shared CPUs (legacy fallback) unless only cpu_shared_set is set;
 *  - cpu_dedicated_set and cpu_shared_set must be disjoint, vcpu_pin_set may
 *    not be combined with cpu_dedicated_set ("InvalidConfiguration"); every
 *    configured CPU must be online ("Invalid");
 *  - socket = the socket of the cell's CPUs when they all share one, else
 *    null; siblings de-duplicated, cut to the usable CPUs, empty groups
 *    dropped; memory = KiB / 1024 truncated; one mempages entry per page size
 *    listed, reserved from reserved_huge_pages; network_metadata from the
 *    physnet and tunnel NUMA nodes ("InvalidNetworkNUMAAffinity").
 *
 * Deliberate differences from nova (all documented at the functions):
 *  - a \<cpu> without a siblings attribute is its own sibling group (nova
 *    crashes with a TypeError);
 *  - \<memory unit> and \<pages unit> are honoured (nova always reads KiB);
 *  - any DOCTYPE, duplicate cell or CPU ids, ids out of range are refused;
 *  - a negative reserved_huge_pages count is refused (nova accepts it);
 *  - the hypervisor type is not checked (nova returns no topology unless the
 *    connection is QEMU; e.g. for test:///default); the host architecture is
 *    (i686, x86_64, aarch64, ppc64, ppc64le), unless NUMAFIT_DISCOVER_ANY_ARCH;
 *  - the NUMA distance matrix is kept (numafit_host_get_distance).
 * A host without NUMA cells (nova: numa_topology None) is a host with 0 cells.
 */
#ifndef NUMAFIT_DISCOVER_H
#define NUMAFIT_DISCOVER_H

#include <numafit/common.h>
#include <numafit/host.h>

#ifdef __cplusplus
extern "C" {
#endif

/* numafit_hostconf_t, the nova.conf options that shape the host model, is
 * declared in host.h (numafit_host_set_cpu_pools() takes one too). */

/** Flags for numafit_host_new_from_{caps_xml,libvirt,sysfs}(). */
enum numafit_discover_flags {
    /** every CPU listed in the NUMA cells is online: ignore libvirt's
     *  virNodeGetCPUMap (test:///default reports only 0,2,4 online) or sysfs
     *  cpu/online */
    NUMAFIT_DISCOVER_ALL_ONLINE = 1u << 0,
    /** do not apply nova's architecture check (_has_numa_support) */
    NUMAFIT_DISCOVER_ANY_ARCH = 1u << 1,
};

/** \brief New empty configuration. \return 0, -EINVAL, -ENOMEM. \ownership owned */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_hostconf_new(numafit_hostconf_t **ret_conf);
/** Free a configuration (NULL is fine). */
NUMAFIT_EXPORT void numafit_hostconf_free(numafit_hostconf_t *conf);
/** \brief Does conf set one of the CPU options ([compute] cpu_dedicated_set,
 * cpu_shared_set, [DEFAULT] vcpu_pin_set)? Without any, nova's host is in
 * legacy mode (every CPU shared). \return 1, 0, -EINVAL (conf NULL). */
NUMAFIT_EXPORT int numafit_hostconf_has_cpu_sets(const numafit_hostconf_t *conf);

/**
 * \brief Set [compute] cpu_dedicated_set, [compute] cpu_shared_set or
 * [DEFAULT] vcpu_pin_set, in nova's cpu spec syntax ("2-7,^4"). NULL or ""
 * unsets the option, as an empty value does in nova.conf.
 * \return 0; -EBADMSG (syntax, reterr->exception "Invalid"); -EINVAL when the
 * spec gives no CPU at all ("Invalid", nova's "No CPUs available after
 * parsing ..."); -ERANGE (a CPU above NUMAFIT_CPU_MAX); -ENOMEM.
 */
NUMAFIT_EXPORT int numafit_hostconf_set_cpu_dedicated_set(numafit_hostconf_t *conf,
                                                          const char *spec,
                                                          numafit_error_t *reterr);
/** \brief Set [compute] cpu_shared_set (nova's cpu spec; NULL or "" unsets); as
 * numafit_hostconf_set_cpu_dedicated_set(). */
NUMAFIT_EXPORT int numafit_hostconf_set_cpu_shared_set(numafit_hostconf_t *conf, const char *spec,
                                                       numafit_error_t *reterr);
/** \brief Set the deprecated [DEFAULT] vcpu_pin_set (NULL or "" unsets); as
 * numafit_hostconf_set_cpu_dedicated_set(). */
NUMAFIT_EXPORT int numafit_hostconf_set_vcpu_pin_set(numafit_hostconf_t *conf, const char *spec,
                                                     numafit_error_t *reterr);

/**
 * \brief Add one [DEFAULT] reserved_huge_pages value, "node:N,size:S,count:C"
 * (oslo Dict syntax: spaces around keys and values ignored, unknown keys
 * ignored, duplicate keys refused). S is an integer in KiB or a byte size as
 * oslo's string_to_bytes reads it ("2MB", "1GiB", "2048KB", "1.5MB"; the
 * unit must end in B, b or bit). A later value overrides an earlier one for
 * the same node and size; values for nodes or sizes the host does not have
 * are ignored. Numbers are ASCII decimals of at most 18 digits.
 * Deliberate difference: a negative count is refused (nova accepts it and
 * reports more free pages than exist).
 * \return 0; -EINVAL (reterr->exception "InvalidReservedMemoryPagesOption");
 * -ENOMEM.
 */
NUMAFIT_EXPORT int numafit_hostconf_add_reserved_huge_pages(numafit_hostconf_t *conf,
                                                            const char *value,
                                                            numafit_error_t *reterr);

/**
 * \brief Add a physical network to [neutron] physnets with its
 * [neutron_physnet_NAME] numa_nodes, a comma-separated list of node ids
 * ("0,1"; "" = the option is missing, which nova refuses when the host is
 * built). Adding a name again replaces its nodes.
 * \return 0; -EINVAL (bad name: empty, over 255 bytes, control characters or
 * ','; bad node list); -ENOMEM.
 */
NUMAFIT_EXPORT int numafit_hostconf_add_physnet(numafit_hostconf_t *conf, const char *name,
                                                const char *numa_nodes, numafit_error_t *reterr);

/** \brief Set [neutron_tunnel] numa_nodes ("0,1"; NULL or "" unsets).
 * \return 0, -EINVAL, -ENOMEM. */
NUMAFIT_EXPORT int numafit_hostconf_set_tunnel_numa_nodes(numafit_hostconf_t *conf,
                                                          const char *numa_nodes,
                                                          numafit_error_t *reterr);

/**
 * \brief Set conf from the text of a nova.conf, read as oslo.config reads it:
 * [section] lines, "key = value" or "key: value", '#' and ';' comment lines,
 * indented continuation lines (joined with a newline), one pair of matching
 * quotes around a value removed; of an option given twice the last value
 * counts. Read: [compute] cpu_dedicated_set and cpu_shared_set, [DEFAULT]
 * vcpu_pin_set, every [DEFAULT] reserved_huge_pages line (a multi-valued
 * option), [neutron] physnets (a comma-separated list, blanks around names
 * removed) with each [neutron_physnet_NAME] numa_nodes, and [neutron_tunnel]
 * numa_nodes; each value as the numafit_hostconf_* setter of that option
 * takes it. Other sections and options, and these options in another
 * section, are ignored (as nova ignores them). The options of conf are
 * replaced: one the text does not set is unset. All or nothing: on error
 * conf is unchanged.
 * \param text the text (no NUL byte); may be NULL when len is 0.
 * \param len its length in bytes, at most NUMAFIT_NOVA_CONF_MAX.
 * \param flags 0.
 * \return 0; -EBADMSG (a line that is not a section, an option, a comment or
 * a continuation, or an option past the 4096th, reterr->where "nova.conf
 * line N"; a NUL byte; or a setter's syntax error); -ERANGE (text too large, or a setter's range
 * error); -EINVAL (bad arguments or flags, or a value a setter refuses:
 * reterr->where names the option); -ENOMEM.
 */
NUMAFIT_EXPORT int numafit_hostconf_set_from_nova_conf(numafit_hostconf_t *conf, const char *text,
                                                       size_t len, unsigned flags,
                                                       numafit_error_t *reterr);

/**
 * \brief The options of a nova.conf text that nova does not read because
 * they stand in another section: oslo.config reads an option from its own
 * group only (e.g. vcpu_pin_set under [libvirt] is ignored: nova reads it
 * from [DEFAULT]). Checked are the options libnumafit reads
 * (numafit_hostconf_set_from_nova_conf(), numafit_domconf_set_from_nova_conf(),
 * numafit_inventory_new_from_host(), the [pci] readers), with the deprecated
 * names nova still accepts in their old groups ([DEFAULT] pci_alias,
 * pci_passthrough_whitelist; [libvirt] cpu_model); numa_nodes belongs in
 * [neutron_tunnel] or a [neutron_physnet_NAME] section. The library reads
 * such a line as nova does (not at all) and never prints: the caller
 * decides whether to warn.
 * \param text the text (no NUL byte); may be NULL when len is 0.
 * \param len its length in bytes, at most NUMAFIT_NOVA_CONF_MAX.
 * \param flags 0.
 * \param ret_json a JSON list, in the order of the file, of
 * {"line": N, "section": "libvirt", "option": "vcpu_pin_set",
 * "group": "DEFAULT"} (group: where nova reads the option); free with
 * numafit_free().
 * \return the number of misplaced options (>= 0); -EBADMSG (a line that is
 * not a section, an option, a comment or a continuation: reterr->where
 * "nova.conf line N"; a NUL byte); -ERANGE (text too large); -EINVAL (bad
 * arguments or flags); -ENOMEM.
 * \ownership owned
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_nova_conf_misplaced(const char *text, size_t len,
                                                                 unsigned flags, char **ret_json,
                                                                 numafit_error_t *reterr);

/**
 * \brief Build a host from libvirt capabilities XML (virConnectGetCapabilities,
 * `virsh capabilities`). Reads /capabilities/host/topology/cells/cell:
 * id, \<memory unit>, \<pages unit size>, \<cpus>/\<cpu id socket_id core_id
 * siblings>, \<distances>/\<sibling id value>, and host/cpu/arch. Unknown
 * elements and attributes are ignored.
 * Safety: at most NUMAFIT_INPUT_MAX bytes and 64 levels of nesting, no
 * network, no DTD loading, no entity expansion; any DOCTYPE is refused.
 * libxml2's errors go to reterr, never to stderr: the calling thread's
 * libxml2 structured error handler (xmlSetStructuredErrorFunc) is replaced
 * for the duration of the call and then restored.
 * \param online nova's online CPUs (virNodeGetCPUMap) as a cpu spec, or NULL
 * for every CPU listed in the cells.
 * \param conf nova.conf options, or NULL for none.
 * \return 0; -EBADMSG (malformed XML, DOCTYPE, bad values; reterr->where
 * names the element); -ERANGE (ids, sizes out of bounds); -EINVAL (bad
 * arguments, and nova's configuration errors with reterr->exception set:
 * Invalid, InvalidConfiguration, InvalidNetworkNUMAAffinity); -ENOMEM.
 * \ownership owned
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_host_new_from_caps_xml(const char *xml, size_t len, const numafit_hostconf_t *conf,
                               const char *online, unsigned flags, numafit_host_t **ret_host,
                               numafit_error_t *reterr);

/**
 * \brief Build a host from a live libvirt connection: virConnectOpenReadOnly
 * (uri; NULL = libvirt's default), virConnectGetCapabilities, and
 * virNodeGetCPUMap for the online CPUs (unless NUMAFIT_DISCOVER_ALL_ONLINE).
 * Blocking; safe to call from several threads with separate arguments.
 * \return as numafit_host_new_from_caps_xml(), plus -ECONNREFUSED when the
 * connection cannot be opened or read (reterr->text has libvirt's message)
 * and -ENOTSUP when the library was built without libvirt.
 * \ownership owned
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_host_new_from_libvirt(const char *uri, const numafit_hostconf_t *conf, unsigned flags,
                              numafit_host_t **ret_host, numafit_error_t *reterr);

/**
 * \brief Build a host from a Linux sysfs tree under root (NULL = "/"):
 * sys/devices/system/node/node\<N>/{cpulist,meminfo,distance,
 * hugepages/hugepages-\<S>kB/nr_hugepages}, sys/devices/system/cpu/cpu\<N>/
 * topology/{physical_package_id,core_id,thread_siblings_list} and
 * sys/devices/system/cpu/online, read as libvirt does: cell memory = node
 * MemTotal, pages = the base 4 KiB pages ((MemTotal - huge pages) / 4) then
 * each huge page size ascending; a CPU without topology files is socket 0,
 * core 0, its own sibling (libvirt's defaults). A node without cpulist is
 * read from its cpumap (hex mask). Without node directories (a kernel
 * without NUMA) the host has one cell, id 0, of the online CPUs, with
 * proc/meminfo's MemTotal and no page sizes (libvirt's fake cell). Online
 * CPUs: sys/devices/system/cpu/online, else each CPU's cpu\<N>/online (none:
 * online). root must hold sys/devices/system/cpu (-ENOENT otherwise). Errors
 * name the file by its full path in reterr->text (reterr->where: the path
 * below root). Every file read is bounded (64 KiB) and must be a
 * regular file: a FIFO, device, directory or symbolic link in its place is
 * refused (opened without blocking, never read).
 * \return as numafit_host_new_from_caps_xml(), plus -ENOENT/-EACCES/-EIO for
 * unreadable files, -EINVAL for a file that is not a regular file, -EFBIG for
 * one over 64 KiB, -ERANGE for a node\<N> directory above
 * NUMAFIT_CELL_ID_MAX (or a hugepages-\<S>kB one above 1 TiB), -E2BIG for a
 * directory of more than 65536 such entries, the errno of opendir() as it
 * is for a directory it cannot list (e.g. -ENOTDIR for a file where a
 * directory belongs) (reterr->where has the path).
 * \ownership owned
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_host_new_from_sysfs(const char *root, const numafit_hostconf_t *conf, unsigned flags,
                            numafit_host_t **ret_host, numafit_error_t *reterr);

#ifdef __cplusplus
}
#endif
#endif
