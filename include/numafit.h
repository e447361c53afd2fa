/*
 * libnumafit: nova-compatible NUMA fitting and CPU pinning for virtual machines.
 *
 * Conventions (one page, see doc/mainpage.md):
 *  - every public symbol starts with numafit_ (macros and enum values NUMAFIT_);
 *  - functions return int: >= 0 is success, < 0 is a negative errno value:
 *      -EINVAL  bad argument, unknown flag bit, invalid request (see reterr)
 *      -ENOMEM  out of memory
 *      -EBADMSG malformed JSON or cpu spec syntax
 *      -ERANGE  a value out of the documented range
 *      -ENOENT  nothing found / no such element
 *      -EBUSY   a claim or release conflicts with the host's pinned CPUs
 *      -E2BIG   the work budget of a fit was exceeded ("too complex")
 *  - constructors write ret_<obj> only on success;
 *  - a trailing numafit_error_t *reterr (may be NULL) explains errors and "no fit";
 *  - "does not fit" is a result (0), not an error;
 *  - strings returned through char ** are freed with numafit_free();
 *  - inputs are const; objects are not shared between threads while one
 *    thread modifies them; independent objects may be used in parallel.
 */
#ifndef NUMAFIT_H
#define NUMAFIT_H

#include <numafit/common.h>
#include <numafit/cpuset.h>
#include <numafit/discover.h>
#include <numafit/doctor.h>
#include <numafit/domain.h>
#include <numafit/extra_specs.h>
#include <numafit/fit.h>
#include <numafit/host.h>
#include <numafit/inventory.h>
#include <numafit/options.h>
#include <numafit/pci.h>
#include <numafit/placement.h>
#include <numafit/request.h>
#include <numafit/topology.h>
#include <numafit/version.h>

#endif
