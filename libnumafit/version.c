#include "config.h"

#include "private.h"

NUMAFIT_EXPORT const char *numafit_version_string(void) {
    return NUMAFIT_VERSION_STRING;
}

NUMAFIT_EXPORT unsigned numafit_version_hex(void) {
    return NUMAFIT_VERSION_HEX;
}
