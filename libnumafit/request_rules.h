/*
 * nova's rules for requests (request_rules.c), as request.c calls them.
 * Internal; not installed.
 */
#ifndef NUMAFIT_REQUEST_RULES_H
#define NUMAFIT_REQUEST_RULES_H

#include <stdbool.h>

#include <jansson.h>

#include "private.h"

/*
 * numa_get_constraints() for a parsed flavor (any JSON value; it must be an
 * object) and image (NULL, null or an object), with the image properties
 * first coerced as ImageMetaProps.from_dict() does. zed: nova 26.2.2's
 * rules (NUMAFIT_REQUEST_ZED). Returns 0 with a new *ret, or a negative
 * errno with err filled (nova's exception in err->exception).
 */
int numafit__request_rules(const json_t *flavor, const json_t *image, bool zed,
                           numafit_request_t **ret, numafit_error_t *err);

/* key matches nova's re.match('<prefix>([1-9][0-9]*)?:<name>', key), a
 * prefix match: how numa_get_constraints() finds resources:VCPU,
 * resources2:PCPU or trait1:HW_CPU_HYPERTHREADING among the extra specs. */
bool numafit__spec_key_matches(const char *key, const char *prefix, const char *name);

#endif
