/** \file cpuset.h  CPU sets and nova's cpu spec syntax ("0-3,^2,8"). */
#ifndef NUMAFIT_CPUSET_H
#define NUMAFIT_CPUSET_H

#include <numafit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Highest CPU id a set may hold (libvirt's VIR_DOMAIN_CPUMASK_LEN - 1). */
#define NUMAFIT_CPU_MAX 16383

/** A set of CPU ids 0..NUMAFIT_CPU_MAX (opaque). */
typedef struct numafit_cpuset numafit_cpuset_t;

/** \brief New empty set. \return 0, -EINVAL, -ENOMEM. \ownership owned */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_cpuset_new(numafit_cpuset_t **ret_set);
/** Free a set (NULL is fine). */
NUMAFIT_EXPORT void numafit_cpuset_free(numafit_cpuset_t *set);
/** \brief A copy of set. \return 0, -EINVAL, -ENOMEM. \ownership owned */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_cpuset_dup(const numafit_cpuset_t *set,
                                                        numafit_cpuset_t **ret_set);

/**
 * \brief Parse nova's cpu spec (parse_cpu_spec): comma-separated ids and
 * ranges, "^" exclusions applied over the whole string, spaces allowed,
 * empty parts ignored.
 * \return 0; -EBADMSG on syntax errors (reterr->exception "Invalid", text as
 * nova's message, e.g. "Invalid range expression '1-'"); -ERANGE for an id
 * above NUMAFIT_CPU_MAX (no allocation, constant time); -EINVAL; -ENOMEM.
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_cpuset_parse(const char *spec, unsigned flags,
                                                          numafit_cpuset_t **ret_set,
                                                          numafit_error_t *reterr);

/** \brief Format as nova's format_cpu_spec ("0-2,5,7-8"; "" when empty).
 * \ownership owned (numafit_free) */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_cpuset_format(const numafit_cpuset_t *set,
                                                           unsigned flags, char **ret_str);

/** \brief Add/remove one CPU. \return 0, -EINVAL, -ERANGE. */
NUMAFIT_EXPORT int numafit_cpuset_add(numafit_cpuset_t *set, unsigned cpu);
/** \brief Remove cpu from the set. \return 0, -EINVAL, -ERANGE (cpu above NUMAFIT_CPU_MAX). */
NUMAFIT_EXPORT int numafit_cpuset_remove(numafit_cpuset_t *set, unsigned cpu);
/** \return 1 if present, 0 if not, -EINVAL. */
NUMAFIT_EXPORT int numafit_cpuset_contains(const numafit_cpuset_t *set, unsigned cpu);
/** \return the number of CPUs, or -EINVAL. */
NUMAFIT_EXPORT int numafit_cpuset_count(const numafit_cpuset_t *set);
/** \return the smallest CPU > prev (prev = -1 to start), -ENOENT at the end. */
NUMAFIT_EXPORT int numafit_cpuset_next(const numafit_cpuset_t *set, int prev);
/** \return 1 if equal, 0 if not, -EINVAL. */
NUMAFIT_EXPORT int numafit_cpuset_equal(const numafit_cpuset_t *a, const numafit_cpuset_t *b);

#ifdef __cplusplus
}
#endif
#endif
