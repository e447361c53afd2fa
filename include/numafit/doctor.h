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

#ifdef __cplusplus
}
#endif
#endif
