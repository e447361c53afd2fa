/** \file doctor.h  Host doctor: check a compute host (its /proc, /sys, tuned
 * and nova.conf) against what a pinned, huge-page backed, optionally
 * real-time OpenStack compute host needs, and say how to fix each problem.
 *
 * The checks, their reasons and fixes are described in doc/doctor.md.
 */
#ifndef NUMAFIT_DOCTOR_H
#define NUMAFIT_DOCTOR_H

#include <stddef.h>

#include <numafit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Flags for numafit_doctor(). */
enum numafit_doctor_flags {
    /** realtime flavors (hw:cpu_realtime) are to be offered on this host, even
     *  when nothing on the host says so */
    NUMAFIT_DOCTOR_REALTIME = 1u << 0,
    /** indent the JSON report */
    NUMAFIT_DOCTOR_INDENT = 1u << 1,
};

/** The largest nova.conf text numafit_doctor() accepts (bytes). */
#define NUMAFIT_DOCTOR_CONF_MAX (1u << 20)

/**
 * \brief Check a compute host and return a JSON report:
 * {"host": {summary}, "findings": [{"id", "severity" ("error", "warning" or
 * "info"), "title", "detail", "fix"}, ...]}, findings in a fixed order.
 *
 * Reads only files below root (NULL or "" = "/"), which must be a directory
 * holding proc/ or sys/: proc/cmdline, proc/mounts, proc/meminfo,
 * proc/modules, proc/sys/kernel/osrelease, sys/kernel/realtime,
 * sys/devices/system/{cpu,node}/... (with cpufreq, cpuidle, intel_pstate),
 * sys/kernel/mm/{hugepages,transparent_hugepage,ksm}/..., sys/module/...,
 * sys/block/DEV/queue/scheduler, dev/kvm, etc/tuned/active_profile,
 * etc/tuned/\<profile>-variables.conf, etc/sysctl.conf, etc/sysctl.d/NAME.conf,
 * etc/systemd/system/multi-user.target.wants/ and etc/default/ (KSM).
 * Missing, unreadable, malformed or oversized files (over 256 KiB), and
 * anything that is not a regular file (a FIFO, a device, a directory) are
 * listed in host.unreadable and the checks that need them are skipped, with
 * a note in host.not_checked; they are not errors.
 *
 * \param nova_conf the text of nova.conf (INI), or NULL to skip the nova.conf
 * checks; it is not read from root.
 * \param nova_conf_len its length in bytes (at most NUMAFIT_DOCTOR_CONF_MAX).
 * \param flags enum numafit_doctor_flags.
 * \param[out] ret_json the report, freed with numafit_free().
 * \return the number of findings with severity "error" (>= 0); -EINVAL (bad
 * arguments or flags, root path too long); -ENOENT (root does not exist or
 * holds neither proc/ nor sys/) or -ENOTDIR (root is not a directory), with
 * reterr->where "root"; -ERANGE (nova_conf too large);
 * -EBADMSG (nova_conf contains a NUL byte); -ENOMEM.
 * \ownership owned
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_doctor(const char *root, const char *nova_conf,
                                                    size_t nova_conf_len, unsigned flags,
                                                    char **ret_json, numafit_error_t *reterr);

/** The most domains numafit_doctor_domains() checks in one call. */
#define NUMAFIT_DOCTOR_DOMAINS_MAX 64u

/**
 * \brief numafit_doctor(), and also compare running guests with the host
 * and with what the host's nova would give them.
 *
 * Each domain is the libvirt domain XML of a running guest (`virsh dumpxml
 * NAME`). Read from it: \<name>, \<uuid>, \<memory>, \<vcpu> (count,
 * cpuset, placement), \<cputune> (vcpupin, emulatorpin, vcpusched),
 * \<numatune> (memory, memnode), \<memoryBacking> (hugepages/page, locked,
 * nosharepages), \<cpu>\<numa> cells, and nova's \<metadata>\<nova:instance>
 * (name, flavor name, vcpus, memory and, where nova writes them,
 * \<nova:extraSpecs>); everything else is ignored. Findings about a domain
 * (ids "domain-...", doc/doctor.md) come after the host's, carry the
 * domain's name in "domain", and their detail starts with "Domain NAME:".
 * The report gets "domains": one summary per domain, in order, with
 * "nova": the flavor the domain's shape needs (rebuilt from it: vCPUs,
 * memory, guest cells, page size, dedicated/mixed CPUs, real-time mask,
 * emulator threads policy, and the thread policy when the metadata has the
 * flavor's extra specs), whether nova accepts that flavor ("accepted"),
 * whether it fits the host as captured with nothing running ("fits",
 * numafit_host_new_from_sysfs() with nova.conf's CPU sets and reserved
 * pages) and the placement it gets there ("placement", as
 * numafit_placement_to_json(); "same_nodes", "same_pins": whether the
 * domain has it). A different placement is information (other guests
 * change nova's choice); a shape nova refuses or cannot fit is an error.
 *
 * \param domains, domain_lens  ndomains texts and their lengths (each at
 * most NUMAFIT_INPUT_MAX bytes); may be NULL when ndomains is 0.
 * \param ndomains at most NUMAFIT_DOCTOR_DOMAINS_MAX.
 * \return as numafit_doctor(), and: -EBADMSG for a domain that is not
 * well-formed XML, has a DOCTYPE, or whose elements read above are not as
 * libvirt takes them (a vcpupin of a vCPU the domain does not have, a
 * cpuset that is not a list, cells that overlap, a memnode of no cell...);
 * -ERANGE for a domain over NUMAFIT_INPUT_MAX bytes, more than
 * NUMAFIT_VCPUS_MAX vCPUs, more than 64 guest cells, a CPU id above
 * NUMAFIT_CPU_MAX or more than NUMAFIT_DOCTOR_DOMAINS_MAX domains; in both
 * reterr->where is "domains[I] line L <element>" (I counts from 0) and
 * reterr->text names the element; -ENOTSUP when the library was built
 * without libxml2 (and ndomains > 0). A domain that cannot be read fails
 * the call: no report.
 * \ownership owned
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int
numafit_doctor_domains(const char *root, const char *nova_conf, size_t nova_conf_len,
                       const char *const *domains, const size_t *domain_lens, size_t ndomains,
                       unsigned flags, char **ret_json, numafit_error_t *reterr);

#ifdef __cplusplus
}
#endif
#endif
