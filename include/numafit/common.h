/** \file common.h  Error structure, export macros, memory release. */
#ifndef NUMAFIT_COMMON_H
#define NUMAFIT_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Marks a function exported from libnumafit.so (default visibility). */
#define NUMAFIT_EXPORT __attribute__((visibility("default")))
/** Warn when a caller ignores the result (constructors, lookups). */
#define NUMAFIT_NODISCARD __attribute__((warn_unused_result))

/** What went wrong (numafit_error_t.code). */
enum numafit_error_code {
    NUMAFIT_E_OK = 0,
    NUMAFIT_E_INVALID_ARG,     /**< bad argument or unknown flag bits */
    NUMAFIT_E_NOMEM,           /**< allocation failed */
    NUMAFIT_E_PARSE,           /**< malformed JSON or cpu spec */
    NUMAFIT_E_SCHEMA,          /**< well-formed input with a wrong type or value */
    NUMAFIT_E_VERSION,         /**< an object version newer than we support */
    NUMAFIT_E_RANGE,           /**< a value outside the documented bounds */
    NUMAFIT_E_REQUEST,         /**< nova refuses the flavor/image (see .exception) */
    NUMAFIT_E_NOFIT,           /**< no fit, no more specific reason */
    NUMAFIT_E_NOFIT_CELLS,     /**< fewer host cells than guest cells */
    NUMAFIT_E_NOFIT_MEM,       /**< not enough memory in the cell */
    NUMAFIT_E_NOFIT_PAGESIZE,  /**< page size missing or not enough free pages */
    NUMAFIT_E_NOFIT_CPU,       /**< not enough (free) CPUs */
    NUMAFIT_E_NOFIT_THREADS,   /**< thread policy cannot be honoured */
    NUMAFIT_E_NOFIT_LIMITS,    /**< allocation-ratio limits exceeded */
    NUMAFIT_E_NOFIT_NETWORK,   /**< network NUMA affinity not satisfied */
    NUMAFIT_E_PINNING,         /**< claim/release conflicts with pinned CPUs */
    NUMAFIT_E_TOO_COMPLEX,     /**< the fit exceeded its work budget */
    NUMAFIT_E_NOT_NUMA,        /**< the request has no NUMA topology */
    NUMAFIT_E_NOFIT_INVENTORY, /**< placement's inventory has no room for a class */
    NUMAFIT_E_NOFIT_PCI,       /**< the chosen host cells lack the requested PCI devices */
    NUMAFIT_E__MAX
};

/**
 * Caller-owned error report, filled on errors and on "does not fit".
 * All strings are NUL-terminated (possibly truncated).
 */
typedef struct numafit_error {
    int code;                   /**< enum numafit_error_code */
    int cell;                   /**< host NUMA cell id concerned, -1 if none */
    char where[96];             /**< JSON path, request field, or "" */
    char exception[64];         /**< nova exception class name, or "" */
    char text[256];             /**< one line, human readable */
    unsigned char reserved[64]; /**< for later use; zero */
} numafit_error_t;

/** \brief Static text for a negative errno value or a numafit_error_code. \ownership borrowed */
NUMAFIT_EXPORT const char *numafit_strerror(int negative_errno_or_code);

/** \brief Name of a numafit_error_code ("NOFIT_MEM"...). \ownership borrowed */
NUMAFIT_EXPORT const char *numafit_error_code_name(int code);

/** \brief Free a buffer returned by the library (NULL is fine). */
NUMAFIT_EXPORT void numafit_free(void *ptr);

/** \brief Runtime version string and hex value (NUMAFIT_VERSION_HEX). */
NUMAFIT_EXPORT const char *numafit_version_string(void);
/** The library version as 0xMMmmpp (major, minor, patch). */
NUMAFIT_EXPORT unsigned numafit_version_hex(void);

#ifdef __cplusplus
}
#endif
#endif
