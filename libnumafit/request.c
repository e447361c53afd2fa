/* Requests from flavors and images, as nova's numa_get_constraints. (stub) */
#include "config.h"

#include "private.h"

NUMAFIT_EXPORT int numafit_request_new(const char *flavor_json, size_t flavor_len,
                                       const char *image_json, size_t image_len, unsigned flags,
                                       numafit_request_t **ret, numafit_error_t *err) {
    (void)flavor_json; (void)flavor_len; (void)image_json; (void)image_len; (void)flags;
    (void)ret; (void)err;
    return -ENOSYS;
}
