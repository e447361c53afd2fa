/* Guest CPU topology: nova's get_best_cpu_topology,
 * _get_desirable_cpu_topologies and get_cpu_topology_constraints.
 *
 * The table ports nova 26.2.2's VCPUTopologyTest (test_validate_config,
 * test_invalid_flavor_values, test_possible_topologies,
 * test_sorting_topologies, test_best_config; nova/tests/unit/virt/
 * test_hardware.py) plus extra edge cases. The expected lists and error texts
 * were produced by running nova itself on each input. Limits and preferences
 * that nova's unit tests pass as VirtCPUTopology objects are given here as
 * hw:cpu_max_* and hw:cpu_* extra specs. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "private.h"

struct topo_case {
    const char *name;
    const char *flavor; /* "@LONG@" expands to 4301 digits */
    const char *image;
    unsigned flags;
    const char *expect; /* "S,C,T S,C,T ..." best first; "" on error; "..." = prefix */
    const char *exception;
    const char *text;
};

static const struct topo_case topo_cases[] = {
    {"validate: flavor preferred only",
     "{\"vcpus\": 16, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_sockets\": \"8\", "
     "\"hw:cpu_cores\": \"2\", \"hw:cpu_threads\": \"1\"}}",
     "{\"properties\": {}}", 0,
     "8,2,1 16,1,1 4,4,1 2,8,1 1,16,1 8,1,2 4,2,2 2,2,4 1,2,8 2,4,2 1,8,2 4,1,4 1,4,4 2,1,8 1,1,16",
     "", ""},
    {"validate: image overrides flavor",
     "{\"vcpus\": 16, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_sockets\": \"8\", "
     "\"hw:cpu_cores\": \"2\", \"hw:cpu_threads\": \"1\", \"hw:cpu_max_threads\": \"2\"}}",
     "{\"properties\": {\"hw_cpu_sockets\": \"4\", \"hw_cpu_cores\": \"2\", \"hw_cpu_threads\": "
     "\"2\"}}",
     0, "4,2,2 8,2,1 4,4,1 8,1,2 2,4,2 1,8,2 16,1,1 2,8,1 1,16,1", "", ""},
    {"validate: partial image overrides flavor",
     "{\"vcpus\": 16, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_sockets\": \"8\", "
     "\"hw:cpu_cores\": \"2\", \"hw:cpu_threads\": \"1\"}}",
     "{\"properties\": {\"hw_cpu_sockets\": \"2\"}}", 0,
     "2,8,1 2,4,2 2,2,4 2,1,8 16,1,1 8,2,1 4,4,1 1,16,1 8,1,2 4,2,2 1,8,2 4,1,4 1,4,4 1,2,8 1,1,16",
     "", ""},
    {"validate: restrict threads",
     "{\"vcpus\": 16, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_threads\": \"2\"}}",
     "{\"properties\": {\"hw_cpu_max_threads\": \"1\"}}", 0, "16,1,1 8,2,1 4,4,1 2,8,1 1,16,1", "",
     ""},
    {"validate: at least two sockets",
     "{\"vcpus\": 16, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_cores\": \"8\", "
     "\"hw:cpu_max_threads\": \"1\"}}",
     "{\"properties\": {}}", 0, "16,1,1 8,2,1 4,4,1 2,8,1", "", ""},
    {"validate: image limits reduce flavor",
     "{\"vcpus\": 16, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_cores\": \"8\", "
     "\"hw:cpu_max_threads\": \"1\"}}",
     "{\"properties\": {\"hw_cpu_max_cores\": \"4\"}}", 0, "16,1,1 8,2,1 4,4,1", "", ""},
    {"validate: image limits kill flavor preferred",
     "{\"vcpus\": 16, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_sockets\": \"2\", "
     "\"hw:cpu_cores\": \"8\", \"hw:cpu_threads\": \"1\"}}",
     "{\"properties\": {\"hw_cpu_max_cores\": \"4\"}}", 0,
     "16,1,1 8,2,1 4,4,1 8,1,2 4,2,2 2,4,2 4,1,4 2,2,4 1,4,4 2,1,8 1,2,8 1,1,16", "", ""},
    {"validate: image limits cannot exceed flavor",
     "{\"vcpus\": 16, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_cores\": \"8\", "
     "\"hw:cpu_max_threads\": \"1\"}}",
     "{\"properties\": {\"hw_cpu_max_cores\": \"16\"}}", 0, "", "ImageVCPULimitsRangeExceeded",
     "Image vCPU topology limits (sockets=0, cores=16, threads=0) exceeds the limits of the flavor "
     "(sockets=0, cores=8, threads=1)"},
    {"validate: image preferred cannot exceed flavor",
     "{\"vcpus\": 16, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_cores\": \"8\", "
     "\"hw:cpu_max_threads\": \"1\"}}",
     "{\"properties\": {\"hw_cpu_cores\": \"16\"}}", 0, "", "ImageVCPUTopologyRangeExceeded",
     "Image vCPU topology (sockets=0, cores=16, threads=0) exceeds the limits of the flavor or "
     "image (sockets=65536, cores=8, threads=1)"},
    {"invalid flavor value hw:cpu_sockets",
     "{\"vcpus\": 16, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_sockets\": \"foo\", "
     "\"hw:cpu_cores\": \"2\", \"hw:cpu_threads\": \"1\", \"hw:cpu_max_sockets\": \"8\", "
     "\"hw:cpu_max_cores\": \"2\", \"hw:cpu_max_threads\": \"1\"}}",
     "{\"properties\": {}}", 0, "", "InvalidRequest",
     "Invalid flavor extra spec. Error: invalid literal for int() with base 10: 'foo'"},
    {"invalid flavor value hw:cpu_cores",
     "{\"vcpus\": 16, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_sockets\": \"8\", "
     "\"hw:cpu_cores\": \"foo\", \"hw:cpu_threads\": \"1\", \"hw:cpu_max_sockets\": \"8\", "
     "\"hw:cpu_max_cores\": \"2\", \"hw:cpu_max_threads\": \"1\"}}",
     "{\"properties\": {}}", 0, "", "InvalidRequest",
     "Invalid flavor extra spec. Error: invalid literal for int() with base 10: 'foo'"},
    {"invalid flavor value hw:cpu_threads",
     "{\"vcpus\": 16, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_sockets\": \"8\", "
     "\"hw:cpu_cores\": \"2\", \"hw:cpu_threads\": \"foo\", \"hw:cpu_max_sockets\": \"8\", "
     "\"hw:cpu_max_cores\": \"2\", \"hw:cpu_max_threads\": \"1\"}}",
     "{\"properties\": {}}", 0, "", "InvalidRequest",
     "Invalid flavor extra spec. Error: invalid literal for int() with base 10: 'foo'"},
    {"invalid flavor value hw:cpu_max_sockets",
     "{\"vcpus\": 16, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_sockets\": \"8\", "
     "\"hw:cpu_cores\": \"2\", \"hw:cpu_threads\": \"1\", \"hw:cpu_max_sockets\": \"foo\", "
     "\"hw:cpu_max_cores\": \"2\", \"hw:cpu_max_threads\": \"1\"}}",
     "{\"properties\": {}}", 0, "", "InvalidRequest",
     "Invalid flavor extra spec. Error: invalid literal for int() with base 10: 'foo'"},
    {"invalid flavor value hw:cpu_max_cores",
     "{\"vcpus\": 16, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_sockets\": \"8\", "
     "\"hw:cpu_cores\": \"2\", \"hw:cpu_threads\": \"1\", \"hw:cpu_max_sockets\": \"8\", "
     "\"hw:cpu_max_cores\": \"foo\", \"hw:cpu_max_threads\": \"1\"}}",
     "{\"properties\": {}}", 0, "", "InvalidRequest",
     "Invalid flavor extra spec. Error: invalid literal for int() with base 10: 'foo'"},
    {"invalid flavor value hw:cpu_max_threads",
     "{\"vcpus\": 16, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_sockets\": \"8\", "
     "\"hw:cpu_cores\": \"2\", \"hw:cpu_threads\": \"1\", \"hw:cpu_max_sockets\": \"8\", "
     "\"hw:cpu_max_cores\": \"2\", \"hw:cpu_max_threads\": \"foo\"}}",
     "{\"properties\": {}}", 0, "", "InvalidRequest",
     "Invalid flavor extra spec. Error: invalid literal for int() with base 10: 'foo'"},
    {"possible: 8 vcpus 8:8:2",
     "{\"vcpus\": 8, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_sockets\": \"8\", "
     "\"hw:cpu_max_cores\": \"8\", \"hw:cpu_max_threads\": \"2\"}}",
     "{\"properties\": {}}", 0, "8,1,1 4,2,1 2,4,1 1,8,1 4,1,2 2,2,2 1,4,2", "", ""},
    {"possible: 8 vcpus 8:8:2 no threads",
     "{\"vcpus\": 8, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_sockets\": \"8\", "
     "\"hw:cpu_max_cores\": \"8\", \"hw:cpu_max_threads\": \"2\"}}",
     "{\"properties\": {}}", NUMAFIT_TOPOLOGY_NO_THREADS, "8,1,1 4,2,1 2,4,1 1,8,1", "", ""},
    {"possible: 8 vcpus 1024:1024:2",
     "{\"vcpus\": 8, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_sockets\": \"1024\", "
     "\"hw:cpu_max_cores\": \"1024\", \"hw:cpu_max_threads\": \"2\"}}",
     "{\"properties\": {}}", 0, "8,1,1 4,2,1 2,4,1 1,8,1 4,1,2 2,2,2 1,4,2", "", ""},
    {"possible: 8 vcpus 1024:1:2",
     "{\"vcpus\": 8, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_sockets\": \"1024\", "
     "\"hw:cpu_max_cores\": \"1\", \"hw:cpu_max_threads\": \"2\"}}",
     "{\"properties\": {}}", 0, "8,1,1 4,1,2", "", ""},
    {"possible: 7 vcpus 8:8:2",
     "{\"vcpus\": 7, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_sockets\": \"8\", "
     "\"hw:cpu_max_cores\": \"8\", \"hw:cpu_max_threads\": \"2\"}}",
     "{\"properties\": {}}", 0, "7,1,1 1,7,1", "", ""},
    {"possible: impossible 2:1:1",
     "{\"vcpus\": 8, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_sockets\": \"2\", "
     "\"hw:cpu_max_cores\": \"1\", \"hw:cpu_max_threads\": \"1\"}}",
     "{\"properties\": {}}", 0, "", "ImageVCPULimitsRangeImpossible",
     "Requested vCPU limits 2:1:1 are impossible to satisfy for vcpus count 8"},
    {"possible: impossible 2:1:4 no threads",
     "{\"vcpus\": 8, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_sockets\": \"2\", "
     "\"hw:cpu_max_cores\": \"1\", \"hw:cpu_max_threads\": \"4\"}}",
     "{\"properties\": {}}", NUMAFIT_TOPOLOGY_NO_THREADS, "", "ImageVCPULimitsRangeImpossible",
     "Requested vCPU limits 2:1:1 are impossible to satisfy for vcpus count 8"},
    {"sorting: prefer 4:2:1",
     "{\"vcpus\": 8, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_sockets\": \"8\", "
     "\"hw:cpu_max_cores\": \"8\", \"hw:cpu_max_threads\": \"2\", \"hw:cpu_sockets\": \"4\", "
     "\"hw:cpu_cores\": \"2\", \"hw:cpu_threads\": \"1\"}}",
     "{\"properties\": {}}", 0, "4,2,1 8,1,1 2,4,1 1,8,1 4,1,2 2,2,2 1,4,2", "", ""},
    {"sorting: prefer -1:4:-1",
     "{\"vcpus\": 8, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_sockets\": \"1024\", "
     "\"hw:cpu_max_cores\": \"1024\", \"hw:cpu_max_threads\": \"2\", \"hw:cpu_sockets\": \"-1\", "
     "\"hw:cpu_cores\": \"4\", \"hw:cpu_threads\": \"-1\"}}",
     "{\"properties\": {}}", 0, "2,4,1 1,4,2 8,1,1 4,2,1 1,8,1 4,1,2 2,2,2", "", ""},
    {"sorting: prefer -1:-1:2",
     "{\"vcpus\": 8, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_sockets\": \"1024\", "
     "\"hw:cpu_max_cores\": \"1\", \"hw:cpu_max_threads\": \"2\", \"hw:cpu_sockets\": \"-1\", "
     "\"hw:cpu_cores\": \"-1\", \"hw:cpu_threads\": \"2\"}}",
     "{\"properties\": {}}", 0, "4,1,2 8,1,1", "", ""},
    {"sorting: prefer -1:-1:2 no threads",
     "{\"vcpus\": 8, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_sockets\": \"1024\", "
     "\"hw:cpu_max_cores\": \"1\", \"hw:cpu_max_threads\": \"2\", \"hw:cpu_sockets\": \"-1\", "
     "\"hw:cpu_cores\": \"-1\", \"hw:cpu_threads\": \"2\"}}",
     "{\"properties\": {}}", NUMAFIT_TOPOLOGY_NO_THREADS, "8,1,1", "", ""},
    {"best: flavor preferred",
     "{\"vcpus\": 16, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_sockets\": \"8\", "
     "\"hw:cpu_cores\": \"2\", \"hw:cpu_threads\": \"1\"}}",
     "{\"properties\": {}}", 0,
     "8,2,1 16,1,1 4,4,1 2,8,1 1,16,1 8,1,2 4,2,2 2,2,4 1,2,8 2,4,2 1,8,2 4,1,4 1,4,4 2,1,8 1,1,16",
     "", ""},
    {"best: image overrides flavor",
     "{\"vcpus\": 16, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_sockets\": \"8\", "
     "\"hw:cpu_cores\": \"2\", \"hw:cpu_threads\": \"1\", \"hw:cpu_maxthreads\": \"2\"}}",
     "{\"properties\": {\"hw_cpu_sockets\": \"4\", \"hw_cpu_cores\": \"2\", \"hw_cpu_threads\": "
     "\"2\"}}",
     0,
     "4,2,2 8,2,1 4,4,1 8,1,2 2,4,2 1,8,2 4,1,4 2,2,4 1,2,8 16,1,1 2,8,1 1,16,1 1,4,4 2,1,8 1,1,16",
     "", ""},
    {"best: image overrides flavor, no threads",
     "{\"vcpus\": 16, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_sockets\": \"8\", "
     "\"hw:cpu_cores\": \"2\", \"hw:cpu_threads\": \"1\", \"hw:cpu_maxthreads\": \"2\"}}",
     "{\"properties\": {\"hw_cpu_sockets\": \"4\", \"hw_cpu_cores\": \"2\", \"hw_cpu_threads\": "
     "\"2\"}}",
     NUMAFIT_TOPOLOGY_NO_THREADS, "8,2,1 4,4,1 16,1,1 2,8,1 1,16,1", "", ""},
    {"best: partial image overrides flavor",
     "{\"vcpus\": 16, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_sockets\": \"8\", "
     "\"hw:cpu_cores\": \"2\", \"hw:cpu_threads\": \"1\"}}",
     "{\"properties\": {\"hw_cpu_sockets\": \"2\"}}", 0,
     "2,8,1 2,4,2 2,2,4 2,1,8 16,1,1 8,2,1 4,4,1 1,16,1 8,1,2 4,2,2 1,8,2 4,1,4 1,4,4 1,2,8 1,1,16",
     "", ""},
    {"best: restrict threads",
     "{\"vcpus\": 16, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_threads\": \"1\"}}",
     "{\"properties\": {}}", 0, "16,1,1 8,2,1 4,4,1 2,8,1 1,16,1", "", ""},
    {"best: two sockets",
     "{\"vcpus\": 16, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_cores\": \"8\", "
     "\"hw:cpu_max_threads\": \"1\"}}",
     "{\"properties\": {}}", 0, "16,1,1 8,2,1 4,4,1 2,8,1", "", ""},
    {"best: image limits reduce flavor",
     "{\"vcpus\": 16, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_sockets\": \"8\", "
     "\"hw:cpu_max_cores\": \"8\", \"hw:cpu_max_threads\": \"1\"}}",
     "{\"properties\": {\"hw_cpu_max_sockets\": 4}}", 0, "4,4,1 2,8,1", "", ""},
    {"best: image limits kill flavor preferred",
     "{\"vcpus\": 16, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_sockets\": \"2\", "
     "\"hw:cpu_cores\": \"8\", \"hw:cpu_threads\": \"1\"}}",
     "{\"properties\": {\"hw_cpu_max_cores\": 4}}", 0,
     "16,1,1 8,2,1 4,4,1 8,1,2 4,2,2 2,4,2 4,1,4 2,2,4 1,4,4 2,1,8 1,2,8 1,1,16", "", ""},
    {"no specs, 1 vcpu", "{\"vcpus\": 1, \"memory_mb\": 2048, \"extra_specs\": {}}",
     "{\"properties\": {}}", 0, "1,1,1", "", ""},
    {"no specs, 12 vcpus", "{\"vcpus\": 12, \"memory_mb\": 2048, \"extra_specs\": {}}",
     "{\"properties\": {}}", 0,
     "12,1,1 6,2,1 4,3,1 3,4,1 2,6,1 1,12,1 6,1,2 3,2,2 2,3,2 1,6,2 4,1,3 2,2,3 1,4,3 3,1,4 1,3,4 "
     "2,1,6 1,2,6 1,1,12",
     "", ""},
    {"int() forms: ' 2 ', '+2', '1_0', '02'",
     "{\"vcpus\": 40, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_sockets\": \" 2 \", "
     "\"hw:cpu_cores\": \"+2\", \"hw:cpu_max_cores\": \"1_0\", \"hw:cpu_threads\": \"02\"}}",
     "{\"properties\": {}}", 0,
     "10,2,2 2,10,2 2,2,10 20,2,1 20,1,2 5,4,2 4,5,2 5,2,4 2,5,4 4,2,5 2,4,5 2,1,20 1,2,20 40,1,1 "
     "10,4,1 8,5,1 5,8,1 4,10,1 10,1,4 1,10,4 8,1,5 1,8,5 5,1,8 1,5,8 4,1,10 1,4,10 1,1,40",
     "", ""},
    {"JSON integer flavor values",
     "{\"vcpus\": 12, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_sockets\": 3, "
     "\"hw:cpu_max_threads\": 2}}",
     "{\"properties\": {}}", 0, "3,4,1 3,2,2 12,1,1 6,2,1 4,3,1 2,6,1 1,12,1 6,1,2 2,3,2 1,6,2", "",
     ""},
    {"negative flavor limit",
     "{\"vcpus\": 4, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_sockets\": \"-1\"}}",
     "{\"properties\": {}}", 0, "", "ImageVCPULimitsRangeExceeded",
     "Image vCPU topology limits (sockets=0, cores=0, threads=0) exceeds the limits of the flavor "
     "(sockets=-1, cores=0, threads=0)"},
    {"negative image limit", "{\"vcpus\": 4, \"memory_mb\": 2048, \"extra_specs\": {}}",
     "{\"properties\": {\"hw_cpu_max_cores\": -2}}", 0, "", "ImageVCPUTopologyRangeExceeded",
     "Image vCPU topology (sockets=0, cores=0, threads=0) exceeds the limits of the flavor or "
     "image (sockets=65536, cores=-2, threads=65536)"},
    {"huge flavor limit",
     "{\"vcpus\": 6, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_sockets\": "
     "\"99999999999999999999999\"}}",
     "{\"properties\": {}}", 0, "6,1,1 3,2,1 2,3,1 1,6,1 3,1,2 1,3,2 2,1,3 1,2,3 1,1,6", "", ""},
    {"huge flavor preferred over huge limit",
     "{\"vcpus\": 6, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_sockets\": "
     "\"99999999999999999999\", \"hw:cpu_sockets\": \"99999999999999999999999\", \"hw:cpu_cores\": "
     "\"3\"}}",
     "{\"properties\": {}}", 0, "6,1,1 3,2,1 2,3,1 1,6,1 3,1,2 1,3,2 2,1,3 1,2,3 1,1,6", "", ""},
    {"image limit exceeds huge negative flavor limit",
     "{\"vcpus\": 6, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_threads\": "
     "\"-99999999999999999999999\"}}",
     "{\"properties\": {\"hw_cpu_max_threads\": 1}}", 0, "", "ImageVCPULimitsRangeExceeded",
     "Image vCPU topology limits (sockets=0, cores=0, threads=1) exceeds the limits of the flavor "
     "(sockets=0, cores=0, threads=-99999999999999999999999)"},
    {"InvalidRequest: empty string",
     "{\"vcpus\": 4, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_threads\": \"\"}}",
     "{\"properties\": {}}", 0, "", "InvalidRequest",
     "Invalid flavor extra spec. Error: invalid literal for int() with base 10: ''"},
    {"InvalidRequest: quote in value",
     "{\"vcpus\": 4, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_cores\": \"2'\"}}",
     "{\"properties\": {}}", 0, "", "InvalidRequest",
     "Invalid flavor extra spec. Error: invalid literal for int() with base 10: \"2'\""},
    {"InvalidRequest: 4301 digits",
     "{\"vcpus\": 4, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_cores\": @LONG@}}",
     "{\"properties\": {}}", 0, "", "InvalidRequest",
     "Invalid flavor extra spec. Error: Exceeds the limit (4300 digits) for integer string "
     "conversion: value has 4301 digits; use sys.set_int_max_str_digits() to increase the limit"},
    {"InvalidRequest: float string",
     "{\"vcpus\": 4, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_sockets\": \"2.0\"}}",
     "{\"properties\": {}}", 0, "", "InvalidRequest",
     "Invalid flavor extra spec. Error: invalid literal for int() with base 10: '2.0'"},
    {"InvalidRequest: double underscore",
     "{\"vcpus\": 4, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_sockets\": \"1__0\"}}",
     "{\"properties\": {}}", 0, "", "InvalidRequest",
     "Invalid flavor extra spec. Error: invalid literal for int() with base 10: '1__0'"},
    {"limits exceeded before invalid preferred",
     "{\"vcpus\": 4, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_cores\": \"2\", "
     "\"hw:cpu_cores\": \"x\"}}",
     "{\"properties\": {\"hw_cpu_max_cores\": 4}}", 0, "", "ImageVCPULimitsRangeExceeded",
     "Image vCPU topology limits (sockets=0, cores=4, threads=0) exceeds the limits of the flavor "
     "(sockets=0, cores=2, threads=0)"},
    {"invalid preferred after valid limits",
     "{\"vcpus\": 4, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_cores\": \"2\", "
     "\"hw:cpu_cores\": \"x\"}}",
     "{\"properties\": {}}", 0, "", "InvalidRequest",
     "Invalid flavor extra spec. Error: invalid literal for int() with base 10: 'x'"},
    {"image topology over default limit",
     "{\"vcpus\": 4, \"memory_mb\": 2048, \"extra_specs\": {}}",
     "{\"properties\": {\"hw_cpu_sockets\": 65537}}", 0, "", "ImageVCPUTopologyRangeExceeded",
     "Image vCPU topology (sockets=65537, cores=0, threads=0) exceeds the limits of the flavor or "
     "image (sockets=65536, cores=65536, threads=65536)"},
    {"impossible with prime vcpus",
     "{\"vcpus\": 13, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_sockets\": \"2\", "
     "\"hw:cpu_max_cores\": \"2\"}}",
     "{\"properties\": {}}", 0, "1,1,13", "", ""},
    {"impossible, no threads message",
     "{\"vcpus\": 8, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_sockets\": \"2\", "
     "\"hw:cpu_max_cores\": \"2\"}}",
     "{\"properties\": {}}", NUMAFIT_TOPOLOGY_NO_THREADS, "", "ImageVCPULimitsRangeImpossible",
     "Requested vCPU limits 2:2:1 are impossible to satisfy for vcpus count 8"},
    {"max vcpus 16384 limited",
     "{\"vcpus\": 16384, \"memory_mb\": 2048, \"extra_specs\": {\"hw:cpu_max_sockets\": \"4\", "
     "\"hw:cpu_max_threads\": \"2\"}}",
     "{\"properties\": {}}", 0, "4,4096,1 2,8192,1 1,16384,1 4,2048,2 2,4096,2 1,8192,2", "", ""},
};

/* Expand "@LONG@" into a string of 4301 '1' digits (a caller-freed buffer). */
static char *expand(const char *s) {
    const char *at = strstr(s, "@LONG@");
    size_t n = strlen(s) + 4301;
    char *out = malloc(n + 1);
    ck_assert_ptr_nonnull(out);
    if (!at) {
        strcpy(out, s);
        return out;
    }
    size_t pre = (size_t)(at - s);
    memcpy(out, s, pre);
    out[pre] = '"';
    memset(out + pre + 1, '1', 4301);
    out[pre + 1 + 4301] = '"';
    strcpy(out + pre + 4303, at + 6);
    return out;
}

/* Turn the JSON list into "S,C,T S,C,T ..." (at most max entries). */
static void compact(const char *json, char *out, size_t cap, unsigned max) {
    const char *p = json;
    unsigned s, c, t, n = 0;
    int used;
    size_t o = 0;
    out[0] = '\0';
    while ((p = strstr(p, "{\"sockets\":")) != NULL) {
        ck_assert_int_eq(sscanf(p, "{\"sockets\":%u,\"cores\":%u,\"threads\":%u}", &s, &c, &t), 3);
        if (n == max) {
            snprintf(out + o, cap - o, " ...");
            return;
        }
        used = snprintf(out + o, cap - o, "%s%u,%u,%u", n ? " " : "", s, c, t);
        ck_assert_int_lt(used, (int)(cap - o));
        o += (size_t)used;
        n++;
        p++;
    }
}

START_TEST(test_topology_table) {
    const struct topo_case *tc = &topo_cases[_i];
    char *flavor = expand(tc->flavor);
    char *list = NULL;
    char got[1024];
    unsigned s = 0, c = 0, t = 0;
    numafit_error_t err;

    int rc = numafit_cpu_topology_list(flavor, strlen(flavor), tc->image, strlen(tc->image),
                                       tc->flags, &list, &err);
    int rcb = numafit_cpu_topology_best(flavor, strlen(flavor), tc->image, strlen(tc->image),
                                        tc->flags, &s, &c, &t, NULL);
    if (tc->exception[0]) {
        ck_assert_msg(rc == -EINVAL, "%s: rc %d", tc->name, rc);
        ck_assert_int_eq(rcb, -EINVAL);
        ck_assert_int_eq(err.code, NUMAFIT_E_REQUEST);
        ck_assert_msg(strcmp(err.exception, tc->exception) == 0, "%s: exception %s", tc->name,
                      err.exception);
        ck_assert_msg(strcmp(err.text, tc->text) == 0, "%s: text '%s' != '%s'", tc->name, err.text,
                      tc->text);
        ck_assert_msg(err.where[0] != '\0', "%s: no where", tc->name);
    } else {
        ck_assert_msg(rc == 0, "%s: rc %d (%s)", tc->name, rc, err.text);
        ck_assert_int_eq(rcb, 0);
        bool prefix = strstr(tc->expect, " ...") != NULL;
        compact(list, got, sizeof(got), prefix ? 20 : 1000);
        ck_assert_msg(strcmp(got, tc->expect) == 0, "%s: got '%s' want '%s'", tc->name, got,
                      tc->expect);
        char best[64];
        snprintf(best, sizeof(best), "%u,%u,%u", s, c, t);
        ck_assert_msg(strncmp(tc->expect, best, strlen(best)) == 0 &&
                          (tc->expect[strlen(best)] == ' ' || tc->expect[strlen(best)] == '\0'),
                      "%s: best %s", tc->name, best);
        numafit_free(list);
    }
    free(flavor);
}
END_TEST

/* Inputs libnumafit refuses before nova's logic runs. */
struct bad_case {
    const char *name;
    const char *flavor;
    const char *image; /* NULL: no image */
    unsigned flags;
    int rc;
    int code;
    const char *exception;
    const char *where;
};

static const struct bad_case bad_cases[] = {
    {"vcpus 0", "{\"vcpus\":0}", NULL, 0, -EINVAL, NUMAFIT_E_RANGE, "", "vcpus"},
    {"vcpus 16385", "{\"vcpus\":16385}", NULL, 0, -EINVAL, NUMAFIT_E_RANGE, "", "vcpus"},
    {"vcpus -1", "{\"vcpus\":-1}", NULL, 0, -EINVAL, NUMAFIT_E_RANGE, "", "vcpus"},
    {"vcpus missing", "{\"memory_mb\":1}", NULL, 0, -EINVAL, NUMAFIT_E_SCHEMA, "", "vcpus"},
    {"vcpus string", "{\"vcpus\":\"4\"}", NULL, 0, -EINVAL, NUMAFIT_E_SCHEMA, "", "vcpus"},
    {"flavor not an object", "[1]", NULL, 0, -EINVAL, NUMAFIT_E_SCHEMA, "", "flavor"},
    {"flavor bad JSON", "{\"vcpus\":", NULL, 0, -EBADMSG, NUMAFIT_E_PARSE, "", "flavor"},
    {"flavor duplicate key", "{\"vcpus\":1,\"vcpus\":2}", NULL, 0, -EBADMSG, NUMAFIT_E_PARSE, "",
     "flavor"},
    {"image bad JSON", "{\"vcpus\":1}", "{", 0, -EBADMSG, NUMAFIT_E_PARSE, "", "image"},
    {"extra_specs not an object", "{\"vcpus\":1,\"extra_specs\":[]}", NULL, 0, -EINVAL,
     NUMAFIT_E_SCHEMA, "", "extra_specs"},
    {"flavor value is a float", "{\"vcpus\":1,\"extra_specs\":{\"hw:cpu_cores\":1.0}}", NULL, 0,
     -EINVAL, NUMAFIT_E_SCHEMA, "", "hw:cpu_cores"},
    {"properties not an object", "{\"vcpus\":1}", "{\"properties\":1}", 0, -EINVAL,
     NUMAFIT_E_SCHEMA, "", "properties"},
    {"image value not an int", "{\"vcpus\":1}", "{\"properties\":{\"hw_cpu_cores\":\"x\"}}", 0,
     -EINVAL, NUMAFIT_E_SCHEMA, "ValueError", "hw_cpu_cores"},
    {"image value null", "{\"vcpus\":1}", "{\"properties\":{\"hw_cpu_threads\":null}}", 0, -EINVAL,
     NUMAFIT_E_SCHEMA, "ValueError", "hw_cpu_threads"},
    {"unknown flag", "{\"vcpus\":1}", NULL, 1u << 5, -EINVAL, NUMAFIT_E_INVALID_ARG, "", ""},
};

START_TEST(test_topology_bad) {
    const struct bad_case *bc = &bad_cases[_i];
    char *list = (char *)"untouched";
    numafit_error_t err;
    int rc = numafit_cpu_topology_list(bc->flavor, strlen(bc->flavor), bc->image,
                                       bc->image ? strlen(bc->image) : 0, bc->flags, &list, &err);
    ck_assert_msg(rc == bc->rc, "%s: rc %d", bc->name, rc);
    ck_assert_msg(err.code == bc->code, "%s: code %d (%s)", bc->name, err.code, err.text);
    ck_assert_str_eq(err.exception, bc->exception);
    ck_assert_msg(strcmp(err.where, bc->where) == 0, "%s: where '%s'", bc->name, err.where);
    ck_assert_str_eq(list, "untouched");
}
END_TEST

START_TEST(test_topology_args) {
    const char *f = "{\"vcpus\":4}";
    unsigned s = 99, c = 99, t = 99;
    char *list = NULL;
    numafit_error_t err;

    ck_assert_int_eq(numafit_cpu_topology_best(NULL, 0, NULL, 0, 0, &s, &c, &t, &err), -EINVAL);
    ck_assert_int_eq(err.code, NUMAFIT_E_INVALID_ARG);
    ck_assert_int_eq(numafit_cpu_topology_best(f, strlen(f), NULL, 0, 0, NULL, &c, &t, NULL),
                     -EINVAL);
    ck_assert_int_eq(numafit_cpu_topology_list(f, strlen(f), NULL, 0, 0, NULL, NULL), -EINVAL);
    ck_assert_int_eq(numafit_cpu_topology_list(NULL, 0, NULL, 0, 0, &list, NULL), -EINVAL);
    ck_assert_ptr_null(list);

    /* no image at all, and an image without properties */
    ck_assert_int_eq(numafit_cpu_topology_best(f, strlen(f), NULL, 0, 0, &s, &c, &t, &err), 0);
    ck_assert_uint_eq(s, 4);
    ck_assert_uint_eq(c, 1);
    ck_assert_uint_eq(t, 1);
    ck_assert_int_eq(numafit_cpu_topology_best(f, strlen(f), "{}", 2, 0, &s, &c, &t, &err), 0);
    ck_assert_uint_eq(s, 4);
    ck_assert_int_eq(err.code, NUMAFIT_E_OK);
}
END_TEST

/* 16384 vCPUs with no limits: nova's triple loop would take 4e12 steps; we
 * enumerate divisors. 16384 = 2^14 gives C(16,2) = 120 topologies. */
START_TEST(test_topology_large) {
    const char *f = "{\"vcpus\":16384,\"extra_specs\":{\"hw:cpu_threads\":\"2\"}}";
    char *list = NULL;
    unsigned s, c, t;
    numafit_error_t err;
    ck_assert_int_eq(numafit_cpu_topology_list(f, strlen(f), NULL, 0, 0, &list, &err), 0);
    unsigned n = 0;
    for (const char *p = list; (p = strstr(p, "\"sockets\"")) != NULL; p++)
        n++;
    ck_assert_uint_eq(n, 120);
    ck_assert_int_eq(strncmp(list, "[{\"sockets\":8192,\"cores\":1,\"threads\":2}", 39), 0);
    numafit_free(list);
    ck_assert_int_eq(numafit_cpu_topology_best(f, strlen(f), NULL, 0, NUMAFIT_TOPOLOGY_NO_THREADS,
                                               &s, &c, &t, &err),
                     0);
    ck_assert_uint_eq(s, 16384);
    ck_assert_uint_eq(c, 1);
    ck_assert_uint_eq(t, 1);
}
END_TEST

/* nova's get_cpu_topology_constraints; every expected answer and error text
 * was produced by running nova 26.2.2 on the same flavor and image. */
struct constraints_case {
    const char *name;
    const char *flavor;
    const char *image;
    const char *expect; /* the JSON exactly, or "" on error */
    const char *exception;
    const char *text;
};

static const struct constraints_case constraints_cases[] = {
    {"no specs, no vcpus", "{\"extra_specs\": {}}", "{\"properties\": {}}",
     "{\"preferred\":{\"sockets\":0,\"cores\":0,\"threads\":0},\"maximum\":{\"sockets\":65536,"
     "\"cores\":65536,\"threads\":65536}}",
     "", ""},
    {"flavor preferred",
     "{\"vcpus\": 16, \"extra_specs\": {\"hw:cpu_sockets\": \"8\", \"hw:cpu_cores\": \"2\", "
     "\"hw:cpu_threads\": \"1\"}}",
     "{\"properties\": {}}",
     "{\"preferred\":{\"sockets\":8,\"cores\":2,\"threads\":1},\"maximum\":{\"sockets\":65536,"
     "\"cores\":65536,\"threads\":65536}}",
     "", ""},
    {"image overrides flavor",
     "{\"vcpus\": 16, \"extra_specs\": {\"hw:cpu_sockets\": \"8\", \"hw:cpu_cores\": \"2\", "
     "\"hw:cpu_threads\": \"1\", \"hw:cpu_max_threads\": \"2\"}}",
     "{\"properties\": {\"hw_cpu_sockets\": 4, \"hw_cpu_cores\": 2, \"hw_cpu_threads\": 2}}",
     "{\"preferred\":{\"sockets\":4,\"cores\":2,\"threads\":2},\"maximum\":{\"sockets\":65536,"
     "\"cores\":65536,\"threads\":2}}",
     "", ""},
    {"partial image",
     "{\"vcpus\": 16, \"extra_specs\": {\"hw:cpu_sockets\": \"8\", \"hw:cpu_cores\": \"2\", "
     "\"hw:cpu_threads\": \"1\"}}",
     "{\"properties\": {\"hw_cpu_sockets\": 2}}",
     "{\"preferred\":{\"sockets\":2,\"cores\":0,\"threads\":0},\"maximum\":{\"sockets\":65536,"
     "\"cores\":65536,\"threads\":65536}}",
     "", ""},
    {"image limit kills flavor preferred",
     "{\"vcpus\": 16, \"extra_specs\": {\"hw:cpu_sockets\": \"2\", \"hw:cpu_cores\": \"8\", "
     "\"hw:cpu_threads\": \"1\"}}",
     "{\"properties\": {\"hw_cpu_max_cores\": 4}}",
     "{\"preferred\":{\"sockets\":0,\"cores\":0,\"threads\":0},\"maximum\":{\"sockets\":65536,"
     "\"cores\":4,\"threads\":65536}}",
     "", ""},
    {"image limits under flavor limits",
     "{\"vcpus\": 16, \"extra_specs\": {\"hw:cpu_max_sockets\": \"8\", \"hw:cpu_max_cores\": "
     "\"8\", \"hw:cpu_max_threads\": \"1\"}}",
     "{\"properties\": {\"hw_cpu_max_sockets\": 4}}",
     "{\"preferred\":{\"sockets\":0,\"cores\":0,\"threads\":0},\"maximum\":{\"sockets\":4,"
     "\"cores\":8,\"threads\":1}}",
     "", ""},
    {"int() forms",
     "{\"vcpus\": 16, \"extra_specs\": {\"hw:cpu_sockets\": \" 2 \", \"hw:cpu_cores\": \"+2\", "
     "\"hw:cpu_max_cores\": \"1_0\", \"hw:cpu_threads\": \"02\"}}",
     "{\"properties\": {}}",
     "{\"preferred\":{\"sockets\":2,\"cores\":2,\"threads\":2},\"maximum\":{\"sockets\":65536,"
     "\"cores\":10,\"threads\":65536}}",
     "", ""},
    {"JSON integers",
     "{\"vcpus\": 16, \"extra_specs\": {\"hw:cpu_sockets\": 3, \"hw:cpu_max_threads\": 2}}",
     "{\"properties\": {\"hw_cpu_max_cores\": \"4\"}}",
     "{\"preferred\":{\"sockets\":3,\"cores\":0,\"threads\":0},\"maximum\":{\"sockets\":65536,"
     "\"cores\":4,\"threads\":2}}",
     "", ""},
    {"negative preferred",
     "{\"vcpus\": 16, \"extra_specs\": {\"hw:cpu_sockets\": \"-1\", \"hw:cpu_cores\": \"4\"}}",
     "{\"properties\": {}}",
     "{\"preferred\":{\"sockets\":-1,\"cores\":4,\"threads\":0},\"maximum\":{\"sockets\":65536,"
     "\"cores\":65536,\"threads\":65536}}",
     "", ""},
    {"huge preferred over huge limit",
     "{\"vcpus\": 16, \"extra_specs\": {\"hw:cpu_max_sockets\": \"99999999999999999999\", "
     "\"hw:cpu_sockets\": \"99999999999999999999999\", \"hw:cpu_cores\": \"3\"}}",
     "{\"properties\": {}}",
     "{\"preferred\":{\"sockets\":0,\"cores\":0,\"threads\":0},\"maximum\":{\"sockets\":"
     "99999999999999999999,\"cores\":65536,\"threads\":65536}}",
     "", ""},
    {"huge values kept exactly",
     "{\"vcpus\": 16, \"extra_specs\": {\"hw:cpu_max_sockets\": \"1_000_000_000_000_000_000_000\", "
     "\"hw:cpu_sockets\": \"-12345678901234567890123\", \"hw:cpu_threads\": \"-0\"}}",
     "{\"properties\": {}}",
     "{\"preferred\":{\"sockets\":-12345678901234567890123,\"cores\":0,\"threads\":0},\"maximum\":{"
     "\"sockets\":1000000000000000000000,\"cores\":65536,\"threads\":65536}}",
     "", ""},
    {"image limits exceed flavor",
     "{\"vcpus\": 16, \"extra_specs\": {\"hw:cpu_max_cores\": \"8\", \"hw:cpu_max_threads\": "
     "\"1\"}}",
     "{\"properties\": {\"hw_cpu_max_cores\": 16}}", "", "ImageVCPULimitsRangeExceeded",
     "Image vCPU topology limits (sockets=0, cores=16, threads=0) exceeds the limits of the flavor "
     "(sockets=0, cores=8, threads=1)"},
    {"image preferred exceeds limits",
     "{\"vcpus\": 16, \"extra_specs\": {\"hw:cpu_max_cores\": \"8\", \"hw:cpu_max_threads\": "
     "\"1\"}}",
     "{\"properties\": {\"hw_cpu_cores\": 16}}", "", "ImageVCPUTopologyRangeExceeded",
     "Image vCPU topology (sockets=0, cores=16, threads=0) exceeds the limits of the flavor or "
     "image (sockets=65536, cores=8, threads=1)"},
    {"negative image limit", "{\"vcpus\": 16, \"extra_specs\": {}}",
     "{\"properties\": {\"hw_cpu_max_threads\": -2, \"hw_cpu_max_cores\": 3}}", "",
     "ImageVCPUTopologyRangeExceeded",
     "Image vCPU topology (sockets=0, cores=0, threads=0) exceeds the limits of the flavor or "
     "image (sockets=65536, cores=3, threads=-2)"},
    {"invalid flavor limit", "{\"vcpus\": 16, \"extra_specs\": {\"hw:cpu_max_sockets\": \"foo\"}}",
     "{\"properties\": {}}", "", "InvalidRequest",
     "Invalid flavor extra spec. Error: invalid literal for int() with base 10: 'foo'"},
    {"invalid flavor preferred",
     "{\"vcpus\": 16, \"extra_specs\": {\"hw:cpu_max_cores\": \"2\", \"hw:cpu_threads\": \"2.0\"}}",
     "{\"properties\": {}}", "", "InvalidRequest",
     "Invalid flavor extra spec. Error: invalid literal for int() with base 10: '2.0'"},
    {"limits checked before preferred",
     "{\"vcpus\": 16, \"extra_specs\": {\"hw:cpu_max_cores\": \"2\", \"hw:cpu_cores\": \"x\"}}",
     "{\"properties\": {\"hw_cpu_max_cores\": 4}}", "", "ImageVCPULimitsRangeExceeded",
     "Image vCPU topology limits (sockets=0, cores=4, threads=0) exceeds the limits of the flavor "
     "(sockets=0, cores=2, threads=0)"},
};

START_TEST(test_constraints_table) {
    const struct constraints_case *tc = &constraints_cases[_i];
    char *json = (char *)"untouched";
    numafit_error_t err;
    int rc = numafit_cpu_topology_constraints(tc->flavor, strlen(tc->flavor), tc->image,
                                              strlen(tc->image), 0, &json, &err);
    if (tc->exception[0]) {
        ck_assert_msg(rc == -EINVAL, "%s: rc %d", tc->name, rc);
        ck_assert_int_eq(err.code, NUMAFIT_E_REQUEST);
        ck_assert_msg(strcmp(err.exception, tc->exception) == 0, "%s: exception %s", tc->name,
                      err.exception);
        ck_assert_msg(strcmp(err.text, tc->text) == 0, "%s: text '%s' != '%s'", tc->name, err.text,
                      tc->text);
        ck_assert_msg(err.where[0] != '\0', "%s: no where", tc->name);
        ck_assert_str_eq(json, "untouched");
    } else {
        ck_assert_msg(rc == 0, "%s: rc %d (%s)", tc->name, rc, err.text);
        ck_assert_int_eq(err.code, NUMAFIT_E_OK);
        ck_assert_msg(strcmp(json, tc->expect) == 0, "%s: got '%s' want '%s'", tc->name, json,
                      tc->expect);
        numafit_free(json);
    }
}
END_TEST

START_TEST(test_constraints_args) {
    const char *f = "{\"vcpus\":4}";
    char *json = NULL;
    numafit_error_t err;

    /* flags: none defined, not even NUMAFIT_TOPOLOGY_NO_THREADS */
    ck_assert_int_eq(numafit_cpu_topology_constraints(f, strlen(f), NULL, 0,
                                                      NUMAFIT_TOPOLOGY_NO_THREADS, &json, &err),
                     -EINVAL);
    ck_assert_int_eq(err.code, NUMAFIT_E_INVALID_ARG);
    ck_assert_ptr_null(json);
    ck_assert_int_eq(numafit_cpu_topology_constraints(f, strlen(f), NULL, 0, 1u << 7, &json, NULL),
                     -EINVAL);
    ck_assert_int_eq(numafit_cpu_topology_constraints(f, strlen(f), NULL, 0, 0, NULL, &err),
                     -EINVAL);
    ck_assert_int_eq(err.code, NUMAFIT_E_INVALID_ARG);
    ck_assert_int_eq(numafit_cpu_topology_constraints(NULL, 0, NULL, 0, 0, &json, &err), -EINVAL);
    ck_assert_int_eq(numafit_cpu_topology_constraints("{", 1, NULL, 0, 0, &json, &err), -EBADMSG);
    ck_assert_int_eq(err.code, NUMAFIT_E_PARSE);
    ck_assert_int_eq(numafit_cpu_topology_constraints(f, strlen(f), "[]", 2, 0, &json, &err),
                     -EINVAL);
    ck_assert_int_eq(err.code, NUMAFIT_E_SCHEMA);
    ck_assert_ptr_null(json);

    /* vcpus is not read: 0 or none at all is fine, as in nova */
    const char *f0 = "{\"vcpus\":0,\"extra_specs\":{\"hw:cpu_threads\":\"2\"}}";
    ck_assert_int_eq(numafit_cpu_topology_constraints(f0, strlen(f0), NULL, 0, 0, &json, &err), 0);
    ck_assert_str_eq(json, "{\"preferred\":{\"sockets\":0,\"cores\":0,\"threads\":2},"
                           "\"maximum\":{\"sockets\":65536,\"cores\":65536,\"threads\":65536}}");
    numafit_free(json);
}
END_TEST

/* A flavor value of 4300 digits (Python's int() limit) comes back whole. */
START_TEST(test_constraints_long) {
    size_t n = 4300;
    char *f = malloc(n + 64), *want = malloc(2 * n + 128);
    char *json = NULL;
    numafit_error_t err;
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(want);
    int o = sprintf(f, "{\"extra_specs\":{\"hw:cpu_max_cores\":\"");
    memset(f + o, '7', n);
    strcpy(f + o + n, "\"}}");
    ck_assert_int_eq(numafit_cpu_topology_constraints(f, strlen(f), NULL, 0, 0, &json, &err), 0);
    o = sprintf(want, "{\"preferred\":{\"sockets\":0,\"cores\":0,\"threads\":0},"
                      "\"maximum\":{\"sockets\":65536,\"cores\":");
    memset(want + o, '7', n);
    strcpy(want + o + n, ",\"threads\":65536}}");
    ck_assert_str_eq(json, want);
    numafit_free(json);
    free(f);
    free(want);
}
END_TEST

static Suite *topology_suite(void) {
    Suite *s = suite_create("topology");
    TCase *tc = tcase_create("topology");
    tcase_add_loop_test(tc, test_topology_table, 0,
                        (int)(sizeof(topo_cases) / sizeof(topo_cases[0])));
    tcase_add_loop_test(tc, test_topology_bad, 0, (int)(sizeof(bad_cases) / sizeof(bad_cases[0])));
    tcase_add_test(tc, test_topology_args);
    tcase_add_test(tc, test_topology_large);
    tcase_add_loop_test(tc, test_constraints_table, 0,
                        (int)(sizeof(constraints_cases) / sizeof(constraints_cases[0])));
    tcase_add_test(tc, test_constraints_args);
    tcase_add_test(tc, test_constraints_long);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(topology_suite());
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
