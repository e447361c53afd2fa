/* CPU sets and nova's cpu spec syntax. (stub: to be implemented) */
#include "config.h"

#include "private.h"

int numafit__cpuspec_parse(const char *spec, uint64_t *bits, numafit_error_t *err) {
    (void)spec; (void)bits; (void)err;
    return -ENOSYS;
}

char *numafit__cpuspec_format(const uint64_t *bits, unsigned nw) {
    (void)bits; (void)nw;
    return NULL;
}
