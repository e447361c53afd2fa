/* Error reports and error strings. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "private.h"

void numafit__error_clear(numafit_error_t *err) {
    if (!err)
        return;
    err->code = 0;
    err->cell = -1;
    err->where[0] = err->exception[0] = err->text[0] = '\0';
}

static void copy_trunc(char *dst, size_t cap, const char *src) {
    size_t n = src ? strlen(src) : 0;
    if (n >= cap)
        n = cap - 1;
    if (n)
        memcpy(dst, src, n);
    dst[n] = '\0';
}

void numafit__error_set(numafit_error_t *err, int code, int cell, const char *where,
                        const char *exception, const char *fmt, ...) {
    va_list ap;
    if (!err)
        return;
    err->code = code;
    err->cell = cell;
    copy_trunc(err->where, sizeof(err->where), where);
    copy_trunc(err->exception, sizeof(err->exception), exception);
    va_start(ap, fmt);
    vsnprintf(err->text, sizeof(err->text), fmt, ap);
    va_end(ap);
}

static const char *const code_names[NUMAFIT_E__MAX] = {
    [NUMAFIT_E_OK] = "OK",
    [NUMAFIT_E_INVALID_ARG] = "INVALID_ARG",
    [NUMAFIT_E_NOMEM] = "NOMEM",
    [NUMAFIT_E_PARSE] = "PARSE",
    [NUMAFIT_E_SCHEMA] = "SCHEMA",
    [NUMAFIT_E_VERSION] = "VERSION",
    [NUMAFIT_E_RANGE] = "RANGE",
    [NUMAFIT_E_REQUEST] = "REQUEST",
    [NUMAFIT_E_NOFIT] = "NOFIT",
    [NUMAFIT_E_NOFIT_CELLS] = "NOFIT_CELLS",
    [NUMAFIT_E_NOFIT_MEM] = "NOFIT_MEM",
    [NUMAFIT_E_NOFIT_PAGESIZE] = "NOFIT_PAGESIZE",
    [NUMAFIT_E_NOFIT_CPU] = "NOFIT_CPU",
    [NUMAFIT_E_NOFIT_THREADS] = "NOFIT_THREADS",
    [NUMAFIT_E_NOFIT_LIMITS] = "NOFIT_LIMITS",
    [NUMAFIT_E_NOFIT_NETWORK] = "NOFIT_NETWORK",
    [NUMAFIT_E_PINNING] = "PINNING",
    [NUMAFIT_E_TOO_COMPLEX] = "TOO_COMPLEX",
    [NUMAFIT_E_NOT_NUMA] = "NOT_NUMA",
    [NUMAFIT_E_NOFIT_INVENTORY] = "NOFIT_INVENTORY",
    [NUMAFIT_E_NOFIT_PCI] = "NOFIT_PCI",
};

static const char *const code_texts[NUMAFIT_E__MAX] = {
    [NUMAFIT_E_OK] = "success",
    [NUMAFIT_E_INVALID_ARG] = "invalid argument",
    [NUMAFIT_E_NOMEM] = "out of memory",
    [NUMAFIT_E_PARSE] = "malformed input",
    [NUMAFIT_E_SCHEMA] = "invalid field in input",
    [NUMAFIT_E_VERSION] = "unsupported object version",
    [NUMAFIT_E_RANGE] = "value out of range",
    [NUMAFIT_E_REQUEST] = "request refused",
    [NUMAFIT_E_NOFIT] = "does not fit",
    [NUMAFIT_E_NOFIT_CELLS] = "not enough host NUMA cells",
    [NUMAFIT_E_NOFIT_MEM] = "not enough memory",
    [NUMAFIT_E_NOFIT_PAGESIZE] = "page size not available",
    [NUMAFIT_E_NOFIT_CPU] = "not enough CPUs",
    [NUMAFIT_E_NOFIT_THREADS] = "thread policy cannot be met",
    [NUMAFIT_E_NOFIT_LIMITS] = "allocation ratio limits exceeded",
    [NUMAFIT_E_NOFIT_NETWORK] = "network NUMA affinity not met",
    [NUMAFIT_E_PINNING] = "CPU pinning conflict",
    [NUMAFIT_E_TOO_COMPLEX] = "fit too complex for the work budget",
    [NUMAFIT_E_NOT_NUMA] = "request has no NUMA topology",
    [NUMAFIT_E_NOFIT_INVENTORY] = "no room in the inventory",
    [NUMAFIT_E_NOFIT_PCI] = "the PCI devices requested are not available",
};

NUMAFIT_EXPORT const char *numafit_error_code_name(int code) {
    if (code < 0 || code >= NUMAFIT_E__MAX)
        return "UNKNOWN";
    return code_names[code];
}

NUMAFIT_EXPORT const char *numafit_strerror(int v) {
    if (v >= 0)
        return v < NUMAFIT_E__MAX ? code_texts[v] : "unknown error code";
    switch (-v) {
        case EINVAL:
            return "invalid argument or request";
        case ENOMEM:
            return "out of memory";
        case EBADMSG:
            return "malformed input";
        case ERANGE:
            return "value out of range";
        case ENOENT:
            return "not found";
        case EBUSY:
            return "CPU pinning conflict";
        case E2BIG:
            return "too complex for the work budget";
        case ENOSPC:
            return "no room in the inventory";
        case ENOSYS:
            return "not implemented";
        default:
            return "unknown error";
    }
}
