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

/*
 * Parse a flavor (and image, or NULL) text and apply the rules: what
 * numafit_request_new() does after checking its arguments. With ret_flavor,
 * the parsed flavor is handed over too (json_decref it). Returns 0 or a
 * negative errno with err filled.
 */
int numafit__request_from_text(const char *flavor_json, size_t flavor_len, const char *image_json,
                               size_t image_len, bool zed, numafit_request_t **ret,
                               json_t **ret_flavor, numafit_error_t *err);

#endif
