/** \file domain.h  libvirt domain XML for a placement, as nova's libvirt driver writes it. */
#ifndef NUMAFIT_DOMAIN_H
#define NUMAFIT_DOMAIN_H

#include <numafit/common.h>
#include <numafit/fit.h>
#include <numafit/host.h>
#include <numafit/request.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \defgroup domain Domain XML
 * The compute host's settings that shape the XML ([compute] cpu_shared_set,
 * vcpu_pin_set, [libvirt] realtime_scheduler_priority, file_backed_memory,
 * the host's online CPUs and cgroup cpu controller) live in a
 * numafit_domconf_t; the flavor's quota:* extra specs come from the flavor
 * JSON. No libvirt or libxml2 types appear here: the output is text.
 * @{
 */

/** Domain XML settings from nova.conf (opaque). */
typedef struct numafit_domconf numafit_domconf_t;

/** Flags for numafit_domain_xml() and the device helpers. */
enum numafit_domain_flags {
    /** wrap the fragments into a whole minimal domain (name, uuid, memory,
     *  os type hvm, devices: a disk with the iotune and an interface with the
     *  bandwidth when the flavor sets quota:disk_* or quota:vif_*) */
    NUMAFIT_DOMAIN_FULL = 1u << 0,
    /** write what nova writes even where libvirt refuses it (quota:cpu_shares
     *  of 1 or above 262144, quota:cpu_period/quota outside libvirt's ranges,
     *  total with read/write disk limits, an empty emulatorpin or vcpupin
     *  cpuset, the \<numatune> memnodes of a NUMA placement with virt type
     *  lxc or parallels and no CPU mode, which get no \<cpu> and so no guest
     *  NUMA cells, a whole domain of memory_mb 0); by default these are
     *  errors naming the extra spec (or "[libvirt] virt_type", "memory_mb") */
    NUMAFIT_DOMAIN_NOVA_EXACT = 1u << 1,
};

/** \brief Host settings with nova's defaults: no cpu_shared_set, no
 * vcpu_pin_set, every CPU online, realtime priority 1, a cgroup cpu
 * controller, no file-backed memory, virt type "kvm" on an x86_64 host,
 * nova's default CPU mode (host-model), no cpu_models or extra flags, a
 * memory stats period of 10 seconds, no disk cache modes, name
 * "instance-00000001", no uuid. \return 0, -EINVAL, -ENOMEM.
 * \ownership owned */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_domconf_new(numafit_domconf_t **ret_conf);
/** \brief NULL-safe. */
NUMAFIT_EXPORT void numafit_domconf_free(numafit_domconf_t *conf);

/** \brief [compute] cpu_shared_set (nova's cpu spec syntax); NULL or "" unsets.
 * \return 0; -EBADMSG (syntax), -ERANGE, -EINVAL with exception "Invalid"
 * when the spec leaves no CPU (nova's get_cpu_shared_set). */
NUMAFIT_EXPORT int numafit_domconf_set_cpu_shared_set(numafit_domconf_t *conf, const char *spec,
                                                      numafit_error_t *reterr);
/** \brief Legacy vcpu_pin_set; NULL or "" unsets. Same returns. */
NUMAFIT_EXPORT int numafit_domconf_set_vcpu_pin_set(numafit_domconf_t *conf, const char *spec,
                                                    numafit_error_t *reterr);
/** \brief The host's online CPUs (Host.get_online_cpus); NULL or "" means
 * every CPU is online. Same returns (an empty set is allowed). */
NUMAFIT_EXPORT int numafit_domconf_set_online_cpus(numafit_domconf_t *conf, const char *spec,
                                                   numafit_error_t *reterr);
/** \brief [libvirt] realtime_scheduler_priority, 1..99 (SCHED_FIFO).
 * \return 0, -EINVAL, -ERANGE. */
NUMAFIT_EXPORT int numafit_domconf_set_realtime_priority(numafit_domconf_t *conf, int priority);
/** \brief Whether the host has a cgroup cpu controller
 * (Host.is_cpu_control_policy_capable); without it quota:cpu_* is refused
 * with UnsupportedHostCPUControlPolicy. \return 0, -EINVAL. */
NUMAFIT_EXPORT int numafit_domconf_set_cpu_control(numafit_domconf_t *conf, int capable);
/** \brief [libvirt] file_backed_memory in MiB (0 = off). \return 0, -EINVAL. */
NUMAFIT_EXPORT int numafit_domconf_set_file_backed_memory(numafit_domconf_t *conf, uint64_t mib);
/** \brief The \<domain type=...> of NUMAFIT_DOMAIN_FULL when it is not the
 * virt type (numafit_domconf_set_virt_type()), e.g. "test" for libvirt's
 * test driver: letters and digits only. It changes no rule.
 * \return 0, -EINVAL, -ENOMEM. */
NUMAFIT_EXPORT int numafit_domconf_set_domain_type(numafit_domconf_t *conf, const char *type);
/** \brief [libvirt] virt_type: "kvm" (the default), "qemu", "lxc" or
 * "parallels" (nova's choices). It is the \<domain type> of
 * NUMAFIT_DOMAIN_FULL and decides, as in nova: the default CPU mode (kvm,
 * qemu: host-model; lxc, parallels: no \<cpu> element at all), the clock's
 * timers (kvm only), the PMU feature and the memory balloon (kvm and qemu).
 * \return 0, -EINVAL. */
NUMAFIT_EXPORT int numafit_domconf_set_virt_type(numafit_domconf_t *conf, const char *type);
/** \brief The host's architecture, one of nova's (libvirt's) names:
 * "x86_64" (the default), "i686", "aarch64", "ppc64le", "s390x"... The
 * guest runs on it (emulated guests, hw_emulation_architecture, are not
 * written). aarch64 makes host-passthrough the default CPU mode; only
 * x86_64 and i686 guests get the hpet timer. \return 0, -EINVAL.
 * */
NUMAFIT_EXPORT int numafit_domconf_set_arch(numafit_domconf_t *conf, const char *arch);
/** \brief Domain name for NUMAFIT_DOMAIN_FULL (1..255 bytes of UTF-8, no '/', no
 * control characters, nothing XML 1.0 refuses).
 * \return 0, -EINVAL, -ENOMEM. */
NUMAFIT_EXPORT int numafit_domconf_set_name(numafit_domconf_t *conf, const char *name);
/** \brief Domain uuid for NUMAFIT_DOMAIN_FULL (36-character form), NULL to
 * use the placement's uuid if it has one, else none (libvirt makes one).
 * \return 0, -EINVAL. */
NUMAFIT_EXPORT int numafit_domconf_set_uuid(numafit_domconf_t *conf, const char *uuid);
/** \brief [libvirt] cpu_mode: "host-model", "host-passthrough", "custom",
 * "none" (a \<cpu> with no mode: QEMU's default model; with lxc or
 * parallels no \<cpu> at all), libvirt's "maximum" (not one of nova's
 * choices), or NULL for nova's default (the default): host-model with kvm
 * and qemu, host-passthrough when the architecture is aarch64, none with
 * lxc and parallels (_get_guest_cpu_model_config). \return 0, -EINVAL. */
NUMAFIT_EXPORT int numafit_domconf_set_cpu_mode(numafit_domconf_t *conf, const char *mode);
/** \brief [libvirt] cpu_models, an oslo.config list ("Haswell, Skylake-Client";
 * NULL or "" for none): names of letters, digits, '-', '_', '.', at most 63
 * bytes, at most 64 of them. The first is written as \<model> (nova picks
 * another only to match the flavor's CPU traits, which libnumafit does not
 * do; nova also respells it as the host's libvirt names it: give it that
 * way). Only with cpu_mode custom, which needs it: otherwise
 * numafit_domain_xml() fails with exception "Invalid" as nova's start does.
 * \return 0; -EINVAL with reterr->where "[libvirt] cpu_models" and
 * exception "ConfigFileValueError". */
NUMAFIT_EXPORT int numafit_domconf_set_cpu_models(numafit_domconf_t *conf, const char *list,
                                                  numafit_error_t *reterr);
/** \brief [libvirt] cpu_model_extra_flags, an oslo.config list ("-hle, +pcid,
 * ssbd"; NULL or "" for none): lower-cased, a leading '-' disables the
 * flag, '+' or nothing requires it; written as \<feature policy=...
 * name=...> sorted by name (as nova sorts them) with every mode but none.
 * The same flag both required and disabled is refused (libvirt refuses a
 * feature named twice); the same item twice counts once.
 * \return 0; -EINVAL (exception "ConfigFileValueError"); -ENOMEM. */
NUMAFIT_EXPORT int numafit_domconf_set_cpu_model_extra_flags(numafit_domconf_t *conf,
                                                             const char *list,
                                                             numafit_error_t *reterr);
/** \brief [libvirt] mem_stats_period_seconds (default 10): with kvm and qemu
 * a \<memballoon model="virtio"> with \<stats period=N/> is written when
 * it is above 0; 0 or below writes no balloon. \return 0, -EINVAL.
 * */
NUMAFIT_EXPORT int numafit_domconf_set_mem_stats_period(numafit_domconf_t *conf, int seconds);
/** \brief [libvirt] disk_cachemodes, an oslo.config list of TYPE=MODE
 * ("file=directsync,block=none,network=writeback"; NULL or "" for none),
 * MODE one of nova's default, none, writethrough, writeback, directsync,
 * unsafe. libnumafit writes one disk, the instance's image-backed file
 * disk of NUMAFIT_DOMAIN_FULL: the "file" entry sets its cache (else
 * "none", nova's choice on a file system with O_DIRECT); the other
 * types are checked and kept out of the XML. An entry that is not
 * TYPE=MODE with one of those modes is refused (nova logs a warning and
 * ignores it). \return 0; -EINVAL (exception "ConfigFileValueError").
 * */
NUMAFIT_EXPORT int numafit_domconf_set_disk_cachemodes(numafit_domconf_t *conf, const char *list,
                                                       numafit_error_t *reterr);

/**
 * \brief Set the nova.conf settings of conf from the text of a nova.conf,
 * read as numafit_hostconf_set_from_nova_conf() reads it (discover.h):
 * [compute] cpu_shared_set, [DEFAULT] vcpu_pin_set, [libvirt]
 * realtime_scheduler_priority (Python int(), 1..99), file_backed_memory
 * (MiB), virt_type (kvm, lxc, qemu, parallels), cpu_mode (host-model,
 * host-passthrough, custom, none), cpu_models (or its deprecated name
 * cpu_model), cpu_model_extra_flags, mem_stats_period_seconds and
 * disk_cachemodes. An option the text does not set, or sets to a blank
 * integer, takes nova's default; an unset cpu_mode is nova's default for
 * the virt type and the architecture (numafit_domconf_set_arch(), which
 * nova.conf does not say). The CPU options are then checked as nova's
 * _check_cpu_compatibility checks them at start (exception "Invalid",
 * -EINVAL). The settings that are not nova.conf options (online CPUs, cpu
 * controller, architecture, domain type, name, uuid) are kept.
 * All or nothing: on error conf is unchanged.
 * \param text the text (no NUL byte), len bytes, at most NUMAFIT_NOVA_CONF_MAX;
 * may be NULL when len is 0. \param flags 0.
 * \return 0; -EBADMSG (a line that is not a section, an option, a comment or
 * a continuation, reterr->where "nova.conf line N"; a NUL byte; a cpu spec's
 * syntax); -ERANGE (text too large; a priority outside 1..99 or a
 * file_backed_memory too large, reterr->where the option); -EINVAL (bad
 * arguments or flags; a value that is not an integer or not one of nova's
 * choices: exception "ConfigFileValueError", as oslo.config refuses it; a
 * CPU set with no CPU: "Invalid"); -ENOMEM.
 */
NUMAFIT_EXPORT int numafit_domconf_set_from_nova_conf(numafit_domconf_t *conf, const char *text,
                                                      size_t len, unsigned flags,
                                                      numafit_error_t *reterr);

/**
 * \brief The libvirt domain XML elements nova's libvirt driver writes for an
 * instance (_get_guest_numa_config, _get_guest_memory_backing_config,
 * _update_guest_cputune, _get_guest_cpu_config, the PMU of _set_features,
 * _set_clock, _guest_add_memory_balloon), in libvirt's element order,
 * indented by two spaces: \<memoryBacking>, \<vcpu>, \<cputune>,
 * \<numatune>, \<features> (only \<pmu state="on|off"/>, only when the
 * flavor's hw:pmu or the image's hw_pmu sets it; nova's other features,
 * acpi, apic, vmcoreinfo, hyperv, are not written), \<cpu> (mode, model,
 * topology, extra flags, NUMA cells), \<clock> (offset utc, localtime for
 * an image whose os_type is "windows"; with kvm the timers pit delay, rtc
 * catchup, hpet present="no" unless the image's hw_time_hpet, and
 * hypervclock for Windows), and \<devices> with the \<memballoon> (with
 * NUMAFIT_DOMAIN_FULL inside the domain's devices).
 * Elements nova would not write are left out. quota:disk_* and quota:vif_*
 * are read (and validated) only with NUMAFIT_DOMAIN_FULL; otherwise use
 * numafit_domain_disk_iotune_xml() and numafit_domain_interface_bandwidth_xml().
 * \param host  the host the placement was fitted on (its cells' shared
 *              cpusets and page sizes are used)
 * \param req   the request the placement was fitted for (vCPUs, memory,
 *              realtime mask, locked memory, emulator threads policy)
 * \param p     the placement, or NULL for a guest without NUMA topology
 * \param flavor_json, flavor_len  the flavor ({"vcpus","memory_mb",
 *              "extra_specs"}) for quota:cpu_* and the CPU topology; NULL for none
 * \param image_json, image_len  the image ({"properties": {...}}) for the CPU
 *              topology, hw_pmu, hw_time_hpet and os_type, or NULL
 * \param conf  host settings, NULL for the defaults
 * \param flags enum numafit_domain_flags
 * \return 0 and *ret_xml; -EINVAL with reterr->exception naming nova's
 * exception (RealtimeMaskNotFoundOrInvalid, Invalid (also conf's CPU options
 * nova refuses at start), FlavorImageConflict (hw:pmu and hw_pmu differ),
 * ValueError (an os_type nova's image model refuses), MemoryPagesUnsupported,
 * UnsupportedHostCPUControlPolicy, ValidationError for a quota:* value that
 * is not an integer or below its minimum, the topology exceptions) and
 * reterr->where the key; -ERANGE for a value libvirt refuses (exception
 * "libvirtError", unless NUMAFIT_DOMAIN_NOVA_EXACT); -ENOENT for a placement
 * cell on a host cell the host does not have; -EBADMSG for malformed JSON;
 * -ENOMEM.
 * \ownership owned (numafit_free)
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_domain_xml(const numafit_host_t *host, const numafit_request_t *req,
                   const numafit_placement_t *p, const char *flavor_json, size_t flavor_len,
                   const char *image_json, size_t image_len, const numafit_domconf_t *conf,
                   unsigned flags, char **ret_xml, numafit_error_t *reterr);

/**
 * \brief A disk's \<iotune> from quota:disk_{read,write,total}_{bytes,iops}_sec
 * (nova's Image.disk_qos), or "" when the flavor sets none.
 * \return the number of limits written (>= 0); -EINVAL (ValidationError),
 * -ERANGE (total with read/write: libvirt refuses it), -EBADMSG, -ENOMEM.
 * \ownership owned (numafit_free)
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_domain_disk_iotune_xml(const char *flavor_json,
                                                                    size_t flavor_len,
                                                                    unsigned flags, char **ret_xml,
                                                                    numafit_error_t *reterr);

/**
 * \brief An interface's \<bandwidth> from quota:vif_{inbound,outbound}_
 * {average,peak,burst} (nova's designer.set_vif_bandwidth_config: peak and
 * burst only with an average), or "" when the flavor sets none.
 * \return the number of attributes written (>= 0); -EINVAL
 * (ValidationError), -ERANGE, -EBADMSG, -ENOMEM.
 * \ownership owned (numafit_free)
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_domain_interface_bandwidth_xml(const char *flavor_json, size_t flavor_len, unsigned flags,
                                       char **ret_xml, numafit_error_t *reterr);

/**
 * \brief The \<hostdev> elements nova's libvirt driver writes (kvm, qemu)
 * for the PCI devices of an instance's flavor aliases: one per device,
 * `mode="subsystem" type="pci" managed="yes"`, its address as the source
 * (each field in hexadecimal with 0x), in the claim's order. Devices of a
 * neutron port (a non-null requester_id) are written as nova's VIF driver
 * writes them when the caller adds the port's "vnic_type" to the device
 * object: `direct` as \<interface type="hostdev" managed="yes"> with the
 * port's "mac" (required) and "vlan" (an integer, 0 or null: none; or
 * neutron's decimal string, written when not empty), `macvtap` as
 * \<interface type="direct"> with "mac", "vlan" and "ifname" (required:
 * the VF's network interface), `direct-physical` as a \<hostdev>; the
 * ports Open vSwitch binds, as nova writes them through os-vif (the MAC
 * only, no VLAN or bandwidth): `vdpa` as \<interface type="vdpa"> with
 * "mac" and "dev_path" (required: the VF's vhost-vdpa character device),
 * `remote-managed`, and a `direct` port whose "vif_type" is "ovs"
 * (hardware offload), as \<interface type="hostdev" managed="yes">. A
 * port's "vif_type" (absent: its vnic type's usual binding) must match:
 * "hw_veb" (direct, macvtap), "ovs" (direct, vdpa, remote-managed) or
 * "hostdev_physical" (direct-physical) or "vhostuser" (virtio-forwarder).
 * A `virtio-forwarder` port (the VF is the host forwarder's) is an
 * \<interface type="vhostuser"> on "vhostuser_socket" (required, else
 * VifDetailsMissingVhostuserSockPath) in "vhostuser_mode" ("server" by
 * default, or "client") with the tap "vhu" + the port's id (its
 * requester_id) when "vhostuser_ovs_plug" is absent or true, else
 * "devname" or "nic" + the id; with the model, queues and queue sizes of
 * the base config. Ports without a vnic_type are left out. The claim object may
 * add what nova knows of the instance and the node: "flavor" (vcpus,
 * extra_specs: quota:vif_* as each port interface's \<bandwidth>,
 * hw:vif_multiqueue_enabled), "image" (properties: hw_vif_model,
 * hw_vif_multiqueue_enabled), "virt_type" ("kvm" or "qemu"),
 * "rx_queue_size", "tx_queue_size" and "max_queues" ([libvirt]); doc/pci.md.
 * \param claim_json what numafit_pci_tracker_claim() wrote (with those
 *   keys added), or a list of such device objects (each with "address")
 * \return the number of elements written (>= 0) and *ret_xml ("" for
 * none); -EINVAL (err->where "devices/I/address", "devices/I/mac",
 * "devices/I/vlan", "devices/I/ifname", "devices/I/dev_path",
 * "devices/I/vif_type", "devices/I/vhostuser_socket", ..., a claim key;
 * err->exception ValueError, UnsupportedHardware, FlavorImageConflict or
 * VifDetailsMissingVhostuserSockPath where nova
 * raises), -EBADMSG, -ERANGE, -ENOMEM. \ownership owned (numafit_free)
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_domain_hostdev_xml(const char *claim_json, size_t len,
                                                                unsigned flags, char **ret_xml,
                                                                numafit_error_t *reterr);

/** @} */

#ifdef __cplusplus
}
#endif
#endif
