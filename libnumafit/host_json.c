/* Host JSON in nova's formats. (stub: to be implemented) */
#include "config.h"

#include "private.h"

NUMAFIT_EXPORT int numafit_host_new_from_json(const char *buf, size_t len, unsigned flags,
                                              numafit_host_t **ret, numafit_error_t *err) {
    (void)buf; (void)len; (void)flags; (void)ret; (void)err;
    return -ENOSYS;
}

NUMAFIT_EXPORT int numafit_host_to_json(const numafit_host_t *h, unsigned flags, char **ret,
                                        numafit_error_t *err) {
    (void)h; (void)flags; (void)ret; (void)err;
    return -ENOSYS;
}
