/**
 * \file numafit/extra_specs.h
 * \brief Flavor extra specs checked as nova's API checks them (doc/extra-specs.md).
 */
#ifndef NUMAFIT_EXTRA_SPECS_H
#define NUMAFIT_EXTRA_SPECS_H

#include <stddef.h>

#include <numafit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Flags for numafit_extra_spec_validate() and numafit_extra_specs_validate(). */
#define NUMAFIT_XS_ZED 0x1u /**< the keys of Debian's nova 26.2.2 (zed), not upstream's */

/**
 * \brief One extra spec as nova's API validates it when a flavor's extra
 * specs are set (microversion 2.86 and later): a key nova knows must have a
 * value of its type (an integer within its bounds, a boolean-like string,
 * one of its values or of its format); a key in a namespace nova knows (hw,
 * hw_rng, hw_video, os, quota, pci_passthrough, resources*, trait*,
 * capabilities, aggregate_instance_extra_specs, accel, vmware) but unknown
 * is refused; a key without a namespace, or in another one, is not nova's
 * to judge. The keys and values are upstream nova's (flags 0) or Debian's
 * nova's (NUMAFIT_XS_ZED).
 * \return 0 (valid), -EINVAL (reterr->code NUMAFIT_E_REQUEST,
 * reterr->exception "ValidationError", reterr->where "extra_specs/NAME",
 * reterr->text nova's message).
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_extra_spec_validate(const char *name,
                                                                 const char *value, unsigned flags,
                                                                 numafit_error_t *reterr);

/**
 * \brief Every extra spec of a flavor as nova's API takes them: json is a
 * flavor object with "extra_specs", or the extra specs object itself.
 * Each key must be 1 to 255 of [a-zA-Z0-9-_:. ] and each value a string
 * of at most 255 characters or a number (written as Python writes it), as
 * nova's request schema requires; then numafit_extra_spec_validate() per
 * key, in the object's order. allow: NULL, or a comma-separated list of
 * namespaces ("hw") and keys ("hw:my_key") left unchecked (keys of a newer
 * or patched nova).
 * \return 0, -EINVAL (reterr as numafit_extra_spec_validate(); a schema
 * failure also names "ValidationError"), -EBADMSG (not JSON), -ERANGE
 * (larger than NUMAFIT_INPUT_MAX), -ENOMEM.
 */
NUMAFIT_EXPORT NUMAFIT_NODISCARD int numafit_extra_specs_validate(const char *json, size_t len,
                                                                  unsigned flags, const char *allow,
                                                                  numafit_error_t *reterr);

#ifdef __cplusplus
}
#endif

#endif
