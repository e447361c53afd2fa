/*
 * numafit_request_new(): nova's numa_get_constraints() as data.
 *
 * Table rows give a flavor (vcpus, memory_mb, extra specs) and image
 * properties as JSON with single quotes (turned into double quotes before
 * parsing), the profile, the expected return code, nova's exception class
 * and a summary of the result:
 *   "<cpu_policy>,<thread_policy>,<emulator_policy>,<pagesize>|<cell 0>|<cell 1>..."
 * where a cell is "<cpuset>/<pcpuset>:<memory MiB>" and "-" is null.
 *
 * Rows "nova_NN_*" are the inputs that nova's own unit tests
 * (nova/tests/unit/virt/test_hardware.py: NUMATopologyTest.test_topology_constraints,
 * CPUPinningTestCase, CPURealtimeTestCase, EmulatorThreadsTestCase,
 * VirtLockMemoryTestCase) pass to numa_get_constraints, with the results
 * nova 26.2.2 gives for them. Rows "i2_*" are nova-reference I.2, one
 * per line of its table; "div_*" rows are libnumafit's documented
 * divergences (see the top of libnumafit/request.c).
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "private.h"

#define Z NUMAFIT_REQUEST_ZED
#define L 0u

struct rcase {
    const char *name;
    unsigned vcpus;
    unsigned memory;
    const char *specs; /* JSON object, single quotes */
    const char *props; /* JSON object, single quotes, or NULL (no image) */
    unsigned flags;
    int rc;
    const char *exc;   /* nova exception class, NULL when none expected */
    const char *cells; /* summary (rc 1), NULL otherwise */
};

static const struct rcase cases[] = {
    /* ---- nova's unit-test inputs and nova 26.2.2 results */
    {"nova_00_ok", 8, 2048, "{}", NULL, Z, 0, NULL, NULL},
    {"nova_01_ok", 8, 2048, "{'hw:numa_nodes': '2'}", NULL, Z, 1, NULL,
     "-,-,-,-|0-3/:1024|4-7/:1024"},
    {"nova_02_ok", 8, 2048, "{'hw:mem_page_size': '2048'}", NULL, Z, 1, NULL,
     "-,-,-,2048|0-7/:2048"},
    {"nova_03_InvalidNUMANodesNumber", 8, 2048, "{'hw:numa_nodes': '0'}", NULL, Z, -EINVAL,
     "InvalidNUMANodesNumber", NULL},
    {"nova_04_InvalidNUMANodesNumber", 8, 2048, "{'hw:numa_nodes': '-1'}", NULL, Z, -EINVAL,
     "InvalidNUMANodesNumber", NULL},
    {"nova_05_InvalidNUMANodesNumber", 8, 2048, "{'hw:numa_nodes': 'x'}", NULL, Z, -EINVAL,
     "InvalidNUMANodesNumber", NULL},
    {"nova_06_ImageNUMATopologyAsymmetric", 8, 2048, "{'hw:numa_nodes': '3'}", NULL, Z, -EINVAL,
     "ImageNUMATopologyAsymmetric", NULL},
    {"nova_07_ok", 8, 2048,
     "{'hw:numa_nodes': '3', 'hw:numa_cpus.0': '0-3', 'hw:numa_mem.0': '1024',"
     " 'hw:numa_cpus.1': '4,6', 'hw:numa_mem.1': '512',"
     " 'hw:numa_cpus.2': '5,7', 'hw:numa_mem.2': '512'}",
     NULL, Z, 1, NULL, "-,-,-,-|0-3/:1024|4,6/:512|5,7/:512"},
    {"nova_08_ok", 8, 2048, "{}",
     "{'hw_numa_nodes': 3, 'hw_numa_cpus': [[0, 1, 2, 3], [4, 6], [5, 7]],"
     " 'hw_numa_mem': [1024, 512, 512]}",
     Z, 1, NULL, "-,-,-,-|0-3/:1024|4,6/:512|5,7/:512"},
    {"nova_09_ImageNUMATopologyCPUOutOfRange", 8, 2048,
     "{'hw:numa_nodes': '1', 'hw:numa_cpus.0': '0-16',"
     " 'hw:numa_mem.0': '2048'}",
     NULL, Z, -EINVAL, "ImageNUMATopologyCPUOutOfRange", NULL},
    {"nova_10_ImageNUMATopologyCPUDuplicates", 8, 2048,
     "{'hw:numa_nodes': '2', 'hw:numa_cpus.0': '0-7', 'hw:numa_mem.0': '1024',"
     " 'hw:numa_cpus.1': '0-7', 'hw:numa_mem.1': '1024'}",
     NULL, Z, -EINVAL, "ImageNUMATopologyCPUDuplicates", NULL},
    {"nova_11_ImageNUMATopologyCPUsUnassigned", 8, 2048,
     "{'hw:numa_nodes': '2', 'hw:numa_cpus.0': '0-2', 'hw:numa_mem.0': '1024',"
     " 'hw:numa_cpus.1': '3-4', 'hw:numa_mem.1': '1024'}",
     NULL, Z, -EINVAL, "ImageNUMATopologyCPUsUnassigned", NULL},
    {"nova_12_ImageNUMATopologyMemoryOutOfRange", 8, 2048,
     "{'hw:numa_nodes': '2', 'hw:numa_cpus.0': '0-3', 'hw:numa_mem.0': '512',"
     " 'hw:numa_cpus.1': '4-7', 'hw:numa_mem.1': '512'}",
     NULL, Z, -EINVAL, "ImageNUMATopologyMemoryOutOfRange", NULL},
    {"nova_13_ImageNUMATopologyMemoryOutOfRange", 8, 2048,
     "{'hw:numa_nodes': '2', 'hw:numa_cpus.0': '0-3', 'hw:numa_mem.0': '1576',"
     " 'hw:numa_cpus.1': '4-7', 'hw:numa_mem.1': '1576'}",
     NULL, Z, -EINVAL, "ImageNUMATopologyMemoryOutOfRange", NULL},
    {"nova_14_ImageNUMATopologyIncomplete", 8, 2048,
     "{'hw:numa_nodes': '2', 'hw:numa_cpus.0': '0-3', 'hw:numa_mem.1': '1576'}", NULL, Z, -EINVAL,
     "ImageNUMATopologyIncomplete", NULL},
    {"nova_15_ImageNUMATopologyIncomplete", 8, 2048,
     "{'hw:numa_nodes': '2', 'hw:numa_mem.0': '1576', 'hw:numa_cpus.1': '4-7'}", NULL, Z, -EINVAL,
     "ImageNUMATopologyIncomplete", NULL},
    {"nova_16_ImageNUMATopologyIncomplete", 8, 2048,
     "{'hw:numa_nodes': '2', 'hw:numa_cpus.0': '0-3', 'hw:numa_cpus.1': '4-7',"
     " 'hw:numa_mem.0': '1576'}",
     NULL, Z, -EINVAL, "ImageNUMATopologyIncomplete", NULL},
    {"nova_17_ImageNUMATopologyIncomplete", 8, 2048,
     "{'hw:numa_nodes': '2', 'hw:numa_cpus.0': '0-3', 'hw:numa_mem.0': '1024',"
     " 'hw:numa_mem.1': '1024'}",
     NULL, Z, -EINVAL, "ImageNUMATopologyIncomplete", NULL},
    {"nova_18_ImageNUMATopologyForbidden", 8, 2048, "{'hw:numa_nodes': '2'}",
     "{'hw_numa_nodes': 4}", Z, -EINVAL, "ImageNUMATopologyForbidden", NULL},
    {"nova_19_ok", 4, 2048, "{'hw:numa_nodes': '2', 'hw:cpu_policy': 'dedicated'}", NULL, Z, 1,
     NULL, "dedicated,-,-,-|/0-1:1024|/2-3:1024"},
    {"nova_20_ok", 4, 2048, "{'hw:cpu_policy': 'dedicated'}", NULL, Z, 1, NULL,
     "dedicated,-,-,-|/0-3:2048"},
    {"nova_21_ok", 4, 2048, "{'hw:numa_nodes': '2'}", "{'hw_cpu_policy': 'dedicated'}", Z, 1, NULL,
     "dedicated,-,-,-|/0-1:1024|/2-3:1024"},
    {"nova_22_ok", 4, 2048, "{}", "{'hw_cpu_policy': 'dedicated'}", Z, 1, NULL,
     "dedicated,-,-,-|/0-3:2048"},
    {"nova_23_ImageCPUPinningForbidden", 4, 2048,
     "{'hw:numa_nodes': '2', 'hw:cpu_policy': 'shared'}", "{'hw_cpu_policy': 'dedicated'}", Z,
     -EINVAL, "ImageCPUPinningForbidden", NULL},
    {"nova_24_RealtimeConfigurationInvalid", 4, 2048,
     "{'hw:cpu_policy': 'shared', 'hw:cpu_realtime': 'yes',"
     " 'hw:cpu_realtime_mask': '0-3,^0'}",
     NULL, Z, -EINVAL, "RealtimeConfigurationInvalid", NULL},
    {"nova_25_ok", 8, 2048,
     "{'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '3,7',"
     " 'hw:numa_nodes': '2'}",
     NULL, Z, 1, NULL, "mixed,-,-,-|0-2/3:1024|4-6/7:1024"},
    {"nova_26_ok", 4, 2048, "{'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '1,3'}", NULL, Z,
     1, NULL, "mixed,-,-,-|0,2/1,3:2048"},
    {"nova_27_ok", 8, 4096,
     "{'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '^3-5',"
     " 'hw:numa_nodes': '2'}",
     NULL, Z, 1, NULL, "mixed,-,-,-|3/0-2:2048|4-5/6-7:2048"},
    {"nova_28_ok", 8, 2048,
     "{'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '1,3',"
     " 'hw:numa_nodes': '2', 'hw:numa_cpus.0': '0-1', 'hw:numa_mem.0': '1024',"
     " 'hw:numa_cpus.1': '2-7', 'hw:numa_mem.1': '1024'}",
     NULL, Z, 1, NULL, "mixed,-,-,-|0/1:1024|2,4-7/3:1024"},
    {"nova_29_ok", 8, 2048,
     "{'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '7',"
     " 'hw:numa_nodes': '2', 'hw:numa_cpus.0': '0-1', 'hw:numa_mem.0': '1024',"
     " 'hw:numa_cpus.1': '2-7', 'hw:numa_mem.1': '1024'}",
     NULL, Z, 1, NULL, "mixed,-,-,-|0-1/:1024|2-6/7:1024"},
    {"nova_30_InvalidMixedInstanceDedicatedMask", 4, 2048,
     "{'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '0-3'}", NULL, Z, -EINVAL,
     "InvalidMixedInstanceDedicatedMask", NULL},
    {"nova_31_InvalidMixedInstanceDedicatedMask", 4, 2048,
     "{'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '0-3,4'}", NULL, Z, -EINVAL,
     "InvalidMixedInstanceDedicatedMask", NULL},
    {"nova_32_RequiredMixedInstancePolicy", 4, 2048,
     "{'hw:cpu_policy': 'shared', 'hw:cpu_dedicated_mask': '0'}", NULL, Z, -EINVAL,
     "RequiredMixedInstancePolicy", NULL},
    {"nova_33_RequiredMixedInstancePolicy", 4, 2048,
     "{'hw:cpu_policy': 'dedicated', 'hw:cpu_dedicated_mask': '0'}", NULL, Z, -EINVAL,
     "RequiredMixedInstancePolicy", NULL},
    {"nova_34_RequiredMixedOrRealtimeCPUMask", 4, 2048, "{'hw:cpu_policy': 'mixed'}", NULL, Z,
     -EINVAL, "RequiredMixedOrRealtimeCPUMask", NULL},
    {"nova_35_ok", 4, 2048,
     "{'hw:emulator_threads_policy': 'isolate', 'hw:cpu_policy': 'mixed',"
     " 'hw:cpu_dedicated_mask': '3'}",
     NULL, Z, 1, NULL, "mixed,-,isolate,-|0-2/3:2048"},
    {"nova_36_ok", 6, 2048,
     "{'hw:cpu_policy': 'mixed', 'hw:cpu_realtime': 'yes',"
     " 'hw:cpu_realtime_mask': '^0-2'}",
     NULL, Z, 1, NULL, "mixed,-,-,-|0-2/3-5:2048"},
    {"nova_37_RequiredMixedOrRealtimeCPUMask", 4, 2048,
     "{'hw:cpu_policy': 'mixed', 'hw:cpu_dedicated_mask': '3',"
     " 'hw:cpu_realtime': 'yes', 'hw:cpu_realtime_mask': '^0-2'}",
     NULL, Z, -EINVAL, "RequiredMixedOrRealtimeCPUMask", NULL},
    {"nova_38_ImageCPUThreadPolicyForbidden", 4, 2048,
     "{'hw:numa_nodes': '2', 'hw:cpu_policy': 'dedicated',"
     " 'hw:cpu_thread_policy': 'isolate'}",
     "{'hw_cpu_policy': 'dedicated', 'hw_cpu_thread_policy': 'require'}", Z, -EINVAL,
     "ImageCPUThreadPolicyForbidden", NULL},
    {"nova_39_ok", 4, 2048,
     "{'hw:numa_nodes': '1', 'hw:cpu_policy': 'dedicated',"
     " 'hw:cpu_thread_policy': 'prefer'}",
     NULL, Z, 1, NULL, "dedicated,prefer,-,-|/0-3:2048"},
    {"nova_40_CPUThreadPolicyConfigurationInvalid", 4, 2048,
     "{'hw:cpu_policy': 'shared', 'hw:cpu_thread_policy': 'isolate'}", NULL, Z, -EINVAL,
     "CPUThreadPolicyConfigurationInvalid", NULL},
    {"nova_41_RealtimeMaskNotFoundOrInvalid", 4, 2048,
     "{'hw:cpu_policy': 'dedicated', 'hw:cpu_realtime': 'yes'}", NULL, Z, -EINVAL,
     "RealtimeMaskNotFoundOrInvalid", NULL},
    {"nova_42_InvalidEmulatorThreadsPolicy", 16, 2048, "{'hw:emulator_threads_policy': 'foo'}",
     NULL, Z, -EINVAL, "InvalidEmulatorThreadsPolicy", NULL},
    {"nova_43_BadRequirementEmulatorThreadsPolicy", 16, 2048,
     "{'hw:emulator_threads_policy': 'isolate'}", NULL, Z, -EINVAL,
     "BadRequirementEmulatorThreadsPolicy", NULL},
    {"nova_44_ok", 4, 2048,
     "{'hw:emulator_threads_policy': 'isolate', 'hw:cpu_policy': 'dedicated'}", NULL, Z, 1, NULL,
     "dedicated,-,isolate,-|/0-3:2048"},
    {"nova_45_ok", 4, 2048, "{'hw:emulator_threads_policy': 'isolate'}",
     "{'hw_cpu_policy': 'dedicated'}", Z, 1, NULL, "dedicated,-,isolate,-|/0-3:2048"},
    {"nova_46_InvalidCPUAllocationPolicy", 4, 2048, "{'hw:cpu_policy': 'foo'}", NULL, Z, -EINVAL,
     "InvalidCPUAllocationPolicy", NULL},
    {"nova_47_InvalidCPUThreadAllocationPolicy", 4, 2048,
     "{'hw:cpu_policy': 'dedicated', 'hw:cpu_thread_policy': 'foo'}", NULL, Z, -EINVAL,
     "InvalidCPUThreadAllocationPolicy", NULL},
    {"nova_48_ImageCPUPinningForbidden", 4, 2048, "{'hw:cpu_policy': 'shared'}",
     "{'hw_cpu_policy': 'dedicated'}", Z, -EINVAL, "ImageCPUPinningForbidden", NULL},
    {"nova_49_ok", 4, 2048, "{'hw:pmem': '2GB'}", NULL, Z, 1, NULL, "-,-,-,-|0-3/:2048"},
    {"nova_50_ok", 4, 2048, "{'resources:PCPU': '4'}", NULL, Z, 1, NULL,
     "dedicated,-,-,-|/0-3:2048"},
    {"nova_51_ok", 4, 2048, "{'resources:PCPU': '4', 'trait:HW_CPU_HYPERTHREADING': 'forbidden'}",
     NULL, Z, 1, NULL, "dedicated,isolate,-,-|/0-3:2048"},
    {"nova_52_InvalidRequest", 4, 2048, "{'hw:cpu_policy': 'dedicated', 'resources:PCPU': '4'}",
     NULL, Z, -EINVAL, "InvalidRequest", NULL},
    {"nova_53_InvalidRequest", 4, 2048, "{'resources:PCPU': '2', 'resources:VCPU': '2'}", NULL, Z,
     -EINVAL, "InvalidRequest", NULL},
    {"nova_54_InvalidRequest", 4, 2048, "{'resources:PCPU': '5'}", NULL, Z, -EINVAL,
     "InvalidRequest", NULL},
    {"nova_55_InvalidRequest", 4, 2048,
     "{'hw:emulator_threads_policy': 'isolate', 'resources:PCPU': '4'}", NULL, Z, -EINVAL,
     "InvalidRequest", NULL},
    {"nova_56_InvalidRequest", 4, 2048,
     "{'hw:cpu_thread_policy': 'isolate',"
     " 'trait:HW_CPU_HYPERTHREADING': 'required'}",
     NULL, Z, -EINVAL, "InvalidRequest", NULL},
    {"nova_57_InvalidRequest", 4, 2048,
     "{'hw:cpu_policy': 'dedicated', 'hw:cpu_thread_policy': 'isolate'}",
     "{'traits_required': ['HW_CPU_HYPERTHREADING']}", Z, -EINVAL, "InvalidRequest", NULL},

    /* ---- nova-reference I.2 (vcpus 4, 4096 MB unless noted) */
    {"i2_cpu_policy_bogus", 4, 4096, "{'hw:cpu_policy':'bogus'}", NULL, Z, -EINVAL,
     "InvalidCPUAllocationPolicy", NULL},
    {"i2_thread_policy_bogus", 4, 4096, "{'hw:cpu_policy':'dedicated','hw:cpu_thread_policy':'x'}",
     NULL, Z, -EINVAL, "InvalidCPUThreadAllocationPolicy", NULL},
    {"i2_thread_policy_shared", 4, 4096, "{'hw:cpu_thread_policy':'isolate'}", NULL, Z, -EINVAL,
     "CPUThreadPolicyConfigurationInvalid", NULL},
    {"i2_emulator_isolate_shared", 4, 4096,
     "{'hw:cpu_policy':'shared','hw:emulator_threads_policy':'isolate'}", NULL, Z, -EINVAL,
     "BadRequirementEmulatorThreadsPolicy", NULL},
    {"i2_emulator_bogus", 4, 4096, "{'hw:cpu_policy':'dedicated','hw:emulator_threads_policy':'x'}",
     NULL, Z, -EINVAL, "InvalidEmulatorThreadsPolicy", NULL},
    {"i2_numa_nodes_0", 4, 4096, "{'hw:numa_nodes':'0'}", NULL, Z, -EINVAL,
     "InvalidNUMANodesNumber", NULL},
    {"i2_numa_nodes_neg", 4, 4096, "{'hw:numa_nodes':'-1'}", NULL, Z, -EINVAL,
     "InvalidNUMANodesNumber", NULL},
    {"i2_numa_nodes_abc", 4, 4096, "{'hw:numa_nodes':'abc'}", NULL, Z, -EINVAL,
     "InvalidNUMANodesNumber", NULL},
    {"i2_numa_nodes_1.5", 4, 4096, "{'hw:numa_nodes':'1.5'}", NULL, Z, -EINVAL,
     "InvalidNUMANodesNumber", NULL},
    {"i2_numa_nodes_3", 4, 4096, "{'hw:numa_nodes':'3'}", NULL, Z, -EINVAL,
     "ImageNUMATopologyAsymmetric", NULL},
    {"i2_numa_nodes_1000000", 4, 4096, "{'hw:numa_nodes':'1000000'}", NULL, Z, -EINVAL,
     "ImageNUMATopologyAsymmetric", NULL},
    {"i2_numa_nodes_huge", 4, 4096, "{'hw:numa_nodes':'99999999999999999999'}", NULL, Z, -EINVAL,
     "ImageNUMATopologyAsymmetric", NULL},
    {"i2_numa_cpus_incomplete", 4, 4096,
     "{'hw:numa_nodes':'2','hw:numa_cpus.0':'0-1','hw:numa_mem.0':'2048'}", NULL, Z, -EINVAL,
     "ImageNUMATopologyIncomplete", NULL},
    {"i2_numa_cpus_1_without_0", 4, 4096,
     "{'hw:numa_nodes':'2','hw:numa_cpus.1':'0-1','hw:numa_mem.1':'4096'}", NULL, Z, 1, NULL,
     "-,-,-,-|0-1/:2048|2-3/:2048"},
    {"i2_numa_cpu_out_of_range", 4, 4096,
     "{'hw:numa_cpus.0':'0-4','hw:numa_mem.0':'4096','hw:numa_nodes':'1'}", NULL, Z, -EINVAL,
     "ImageNUMATopologyCPUOutOfRange", NULL},
    {"i2_numa_cpu_duplicate", 4, 4096,
     "{'hw:numa_nodes':'2','hw:numa_cpus.0':'0-2','hw:numa_cpus.1':'2-3',"
     "'hw:numa_mem.0':'2048','hw:numa_mem.1':'2048'}",
     NULL, Z, -EINVAL, "ImageNUMATopologyCPUDuplicates", NULL},
    {"i2_numa_cpu_unassigned", 4, 4096,
     "{'hw:numa_nodes':'2','hw:numa_cpus.0':'0','hw:numa_cpus.1':'2-3',"
     "'hw:numa_mem.0':'2048','hw:numa_mem.1':'2048'}",
     NULL, Z, -EINVAL, "ImageNUMATopologyCPUsUnassigned", NULL},
    {"i2_numa_mem_mismatch", 4, 4096,
     "{'hw:numa_nodes':'2','hw:numa_cpus.0':'0-1','hw:numa_cpus.1':'2-3',"
     "'hw:numa_mem.0':'2048','hw:numa_mem.1':'1024'}",
     NULL, Z, -EINVAL, "ImageNUMATopologyMemoryOutOfRange", NULL},
    {"i2_numa_cpus_excl_empty", 4, 4096,
     "{'hw:numa_nodes':'2','hw:numa_cpus.0':'^0','hw:numa_cpus.1':'0-3',"
     "'hw:numa_mem.0':'2048','hw:numa_mem.1':'2048'}",
     NULL, Z, 1, NULL, "-,-,-,-|/:2048|0-3/:2048"},
    {"i2_numa_cpus_1-", 4, 4096,
     "{'hw:numa_nodes':'1','hw:numa_cpus.0':'1-','hw:numa_mem.0':'4096'}", NULL, Z, -EINVAL,
     "Invalid", NULL},
    {"i2_numa_cpus_3-1", 4, 4096,
     "{'hw:numa_nodes':'1','hw:numa_cpus.0':'3-1','hw:numa_mem.0':'4096'}", NULL, Z, -EINVAL,
     "Invalid", NULL},
    {"i2_page_large", 4, 4096, "{'hw:mem_page_size':'large'}", NULL, Z, 1, NULL,
     "-,-,-,-2|0-3/:4096"},
    {"i2_page_small", 4, 4096, "{'hw:mem_page_size':'small'}", NULL, Z, 1, NULL,
     "-,-,-,-1|0-3/:4096"},
    {"i2_page_any", 4, 4096, "{'hw:mem_page_size':'any'}", NULL, Z, 1, NULL, "-,-,-,-3|0-3/:4096"},
    {"i2_page_2MB", 4, 4096, "{'hw:mem_page_size':'2MB'}", NULL, Z, 1, NULL,
     "-,-,-,2048|0-3/:4096"},
    {"i2_page_1GiB", 4, 4096, "{'hw:mem_page_size':'1GiB'}", NULL, Z, 1, NULL,
     "-,-,-,1048576|0-3/:4096"},
    {"i2_page_1.5MB", 4, 4096, "{'hw:mem_page_size':'1.5MB'}", NULL, Z, 1, NULL,
     "-,-,-,1536|0-3/:4096"},
    {"i2_page_3", 4, 4096, "{'hw:mem_page_size':'3'}", NULL, Z, 1, NULL, "-,-,-,3|0-3/:4096"},
    {"i2_page_-1", 4, 4096, "{'hw:mem_page_size':'-1'}", NULL, Z, -EINVAL, "MemoryPageSizeInvalid",
     NULL},
    {"i2_page_foo", 4, 4096, "{'hw:mem_page_size':'foo'}", NULL, Z, -EINVAL,
     "MemoryPageSizeInvalid", NULL},
    {"i2_page_2M", 4, 4096, "{'hw:mem_page_size':'2M'}", NULL, Z, -EINVAL, "MemoryPageSizeInvalid",
     NULL},
    {"i2_page_image_only", 4, 4096, "{}", "{'hw_mem_page_size':'2MB'}", Z, -EINVAL,
     "MemoryPageSizeForbidden", NULL},
    {"i2_page_image_refines_large", 4, 4096, "{'hw:mem_page_size':'large'}",
     "{'hw_mem_page_size':'1GiB'}", Z, 1, NULL, "-,-,-,1048576|0-3/:4096"},
    {"i2_page_image_vs_small", 4, 4096, "{'hw:mem_page_size':'small'}",
     "{'hw_mem_page_size':'2MB'}", Z, -EINVAL, "MemoryPageSizeForbidden", NULL},
    {"i2_realtime_shared", 4, 4096, "{'hw:cpu_realtime':'yes','hw:cpu_realtime_mask':'^0'}", NULL,
     Z, -EINVAL, "RealtimeConfigurationInvalid", NULL},
    {"i2_realtime_no_mask", 4, 4096, "{'hw:cpu_policy':'dedicated','hw:cpu_realtime':'yes'}", NULL,
     Z, -EINVAL, "RealtimeMaskNotFoundOrInvalid", NULL},
    {"i2_realtime_no_mask_emu_share", 4, 4096,
     "{'hw:cpu_policy':'dedicated','hw:cpu_realtime':'yes','hw:emulator_threads_policy':'share'}",
     NULL, Z, 1, NULL, "dedicated,-,share,-|/0-3:4096"},
    {"i2_realtime_mask_out_of_range", 4, 4096,
     "{'hw:cpu_policy':'dedicated','hw:cpu_realtime':'yes','hw:cpu_realtime_mask':'2-5'}", NULL, Z,
     -EINVAL, "RealtimeMaskNotFoundOrInvalid", NULL},
    {"i2_realtime_mask_empty", 4, 4096,
     "{'hw:cpu_policy':'dedicated','hw:cpu_realtime':'yes','hw:cpu_realtime_mask':'^0-3'}", NULL, Z,
     -EINVAL, "RealtimeMaskNotFoundOrInvalid", NULL},
    {"i2_realtime_image_mask_wins", 4, 4096,
     "{'hw:cpu_policy':'mixed','hw:cpu_realtime':'yes','hw:cpu_realtime_mask':'^0'}",
     "{'hw_cpu_realtime_mask':'^0-1'}", Z, 1, NULL, "mixed,-,-,-|0-1/2-3:4096"},
    {"i2_mixed_no_mask", 4, 4096, "{'hw:cpu_policy':'mixed'}", NULL, Z, -EINVAL,
     "RequiredMixedOrRealtimeCPUMask", NULL},
    {"i2_mixed_both_masks", 4, 4096,
     "{'hw:cpu_policy':'mixed','hw:cpu_dedicated_mask':'^0','hw:cpu_realtime':'yes',"
     "'hw:cpu_realtime_mask':'^0'}",
     NULL, Z, -EINVAL, "RequiredMixedOrRealtimeCPUMask", NULL},
    {"i2_mixed_mask_all", 4, 4096, "{'hw:cpu_policy':'mixed','hw:cpu_dedicated_mask':'0-3'}", NULL,
     Z, -EINVAL, "InvalidMixedInstanceDedicatedMask", NULL},
    {"i2_mixed_mask_not_subset", 4, 4096, "{'hw:cpu_policy':'mixed','hw:cpu_dedicated_mask':'2-7'}",
     NULL, Z, -EINVAL, "InvalidMixedInstanceDedicatedMask", NULL},
    {"i2_mixed_ok", 4, 4096, "{'hw:cpu_policy':'mixed','hw:cpu_dedicated_mask':'^0-1'}", NULL, Z, 1,
     NULL, "mixed,-,-,-|0-1/2-3:4096"},
    {"i2_dedicated_mask_dedicated", 4, 4096,
     "{'hw:cpu_policy':'dedicated','hw:cpu_dedicated_mask':'^0'}", NULL, Z, -EINVAL,
     "RequiredMixedInstancePolicy", NULL},
    {"i2_dedicated_mask_shared", 4, 4096, "{'hw:cpu_dedicated_mask':'^0'}", NULL, Z, -EINVAL,
     "RequiredMixedInstancePolicy", NULL},
    {"i2_pcpu_with_policy", 4, 4096, "{'resources:PCPU':'4','hw:cpu_policy':'dedicated'}", NULL, Z,
     -EINVAL, "InvalidRequest", NULL},
    {"i2_pcpu_mismatch", 4, 4096, "{'resources:PCPU':'2'}", NULL, Z, -EINVAL, "InvalidRequest",
     NULL},
    {"i2_pcpu_and_vcpu", 4, 4096, "{'resources:PCPU':'4','resources1:VCPU':'4'}", NULL, Z, -EINVAL,
     "InvalidRequest", NULL},
    {"i2_pcpu_ok", 4, 4096, "{'resources1:PCPU':'4'}", NULL, Z, 1, NULL,
     "dedicated,-,-,-|/0-3:4096"},
    {"i2_pcpu_emu_isolate", 4, 4096,
     "{'resources:PCPU':'5','hw:emulator_threads_policy':'isolate'}", NULL, Z, 1, NULL,
     "dedicated,-,isolate,-|/0-3:4096"},
    {"i2_vcpu_shared", 4, 4096, "{'resources:VCPU':'4','hw:numa_nodes':'2'}", NULL, Z, 1, NULL,
     "shared,-,-,-|0-1/:2048|2-3/:2048"},
    {"i2_trait_with_thread_policy", 4, 4096,
     "{'hw:cpu_policy':'dedicated','hw:cpu_thread_policy':'isolate',"
     "'trait:HW_CPU_HYPERTHREADING':'forbidden'}",
     NULL, Z, -EINVAL, "InvalidRequest", NULL},
    {"i2_trait_forbidden", 4, 4096,
     "{'hw:cpu_policy':'dedicated','trait:HW_CPU_HYPERTHREADING':'forbidden'}", NULL, Z, 1, NULL,
     "dedicated,isolate,-,-|/0-3:4096"},
    {"i2_trait_required_image", 4, 4096, "{'hw:cpu_policy':'dedicated'}",
     "{'trait:HW_CPU_HYPERTHREADING':'required'}", Z, 1, NULL, "dedicated,require,-,-|/0-3:4096"},
    {"i2_trait_shared", 4, 4096, "{'trait1:HW_CPU_HYPERTHREADING':'required'}", NULL, Z, -EINVAL,
     "CPUThreadPolicyConfigurationInvalid", NULL},
    {"i2_image_pinning_forbidden", 4, 4096, "{'hw:cpu_policy':'shared'}",
     "{'hw_cpu_policy':'dedicated'}", Z, -EINVAL, "ImageCPUPinningForbidden", NULL},
    {"i2_image_mixed_vs_dedicated", 4, 4096, "{'hw:cpu_policy':'mixed'}",
     "{'hw_cpu_policy':'dedicated'}", Z, -EINVAL, "ImageCPUPinningForbidden", NULL},
    {"i2_flavor_dedicated_wins", 4, 4096, "{'hw:cpu_policy':'dedicated'}",
     "{'hw_cpu_policy':'shared'}", Z, 1, NULL, "dedicated,-,-,-|/0-3:4096"},
    {"i2_image_policy", 4, 4096, "{}", "{'hw_cpu_policy':'dedicated'}", Z, 1, NULL,
     "dedicated,-,-,-|/0-3:4096"},
    {"i2_image_nodes_forbidden", 4, 4096, "{'hw:numa_nodes':'2'}", "{'hw_numa_nodes':2}", Z,
     -EINVAL, "ImageNUMATopologyForbidden", NULL},
    {"i2_image_thread_forbidden", 4, 4096,
     "{'hw:cpu_policy':'dedicated','hw:cpu_thread_policy':'isolate'}",
     "{'hw_cpu_thread_policy':'require'}", Z, -EINVAL, "ImageCPUThreadPolicyForbidden", NULL},
    {"i2_image_thread_prefer_ignored", 4, 4096,
     "{'hw:cpu_policy':'dedicated','hw:cpu_thread_policy':'prefer'}",
     "{'hw_cpu_thread_policy':'isolate'}", Z, 1, NULL, "dedicated,prefer,-,-|/0-3:4096"},
    {"i2_image_numa_cpus_forbidden", 4, 4096,
     "{'hw:numa_nodes':'1','hw:numa_cpus.0':'0-3','hw:numa_mem.0':'4096'}",
     "{'hw_numa_cpus.0':'0-3','hw_numa_mem.0':4096}", Z, -EINVAL, "ImageNUMATopologyForbidden",
     NULL},
    {"i2_image_numa_dotted", 4, 4096, "{}",
     "{'hw_numa_nodes':'2','hw_numa_cpus.0':'0,2','hw_numa_cpus.1':'1,3',"
     "'hw_numa_mem.0':'1024','hw_numa_mem.1':3072}",
     Z, 1, NULL, "-,-,-,-|0,2/:1024|1,3/:3072"},
    {"i2_image_numa_lists", 4, 4096, "{'hw:cpu_policy':'dedicated'}",
     "{'hw_numa_nodes':2,'hw_numa_cpus':[[0,2],'1,3'],'hw_numa_mem':[1024,3072]}", Z, 1, NULL,
     "dedicated,-,-,-|/0,2:1024|/1,3:3072"},
    {"i2_locked_conflict", 4, 4096, "{'hw:locked_memory':'true','hw:mem_page_size':'large'}",
     "{'hw_locked_memory':false}", Z, -EINVAL, "FlavorImageLockedMemoryConflict", NULL},
    {"i2_locked_no_pagesize", 4, 4096, "{'hw:locked_memory':'yes'}", NULL, Z, -EINVAL,
     "LockMemoryForbidden", NULL},
    {"i2_locked_alone_no_numa", 4, 4096, "{'hw:locked_memory':'false'}", NULL, Z, 0, NULL, NULL},
    {"i2_pmem_numa", 4, 4096, "{'hw:pmem':'4GB, ,8GB'}", NULL, Z, 1, NULL, "-,-,-,-|0-3/:4096"},
    {"i2_pmem_empty_labels", 4, 4096, "{'hw:pmem':' , '}", NULL, Z, 0, NULL, NULL},
    {"i2_numa_mem_without_topology", 4, 4096, "{'hw:numa_mem.0':'abc'}", NULL, Z, 0, NULL, NULL},
    {"i2_emulator_isolate", 4, 4096,
     "{'hw:cpu_policy':'dedicated','hw:emulator_threads_policy':'isolate','hw:numa_nodes':'2'}",
     NULL, Z, 1, NULL, "dedicated,-,isolate,-|/0-1:2048|/2-3:2048"},
    {"i2_typed_extra_specs", 4, 4096,
     "{'hw:numa_nodes':2,'hw:cpu_realtime':true,'hw:cpu_realtime_mask':'^0'}", NULL, Z, -EINVAL,
     "RealtimeConfigurationInvalid", NULL},

    /* ---- documented divergences: nova crashes or accepts nonsense */
    {"div_numa_mem_abc", 4, 4096,
     "{'hw:numa_nodes':'1','hw:numa_cpus.0':'0-3','hw:numa_mem.0':'abc'}", NULL, Z, -EINVAL,
     "InvalidRequest", NULL},
    {"div_numa_mem_negative", 4, 4096,
     "{'hw:numa_nodes':'2','hw:numa_cpus.0':'0-1','hw:numa_cpus.1':'2-3',"
     "'hw:numa_mem.0':'-4096','hw:numa_mem.1':'8192'}",
     NULL, Z, -EINVAL, "InvalidRequest", NULL},
    {"div_numa_cpus_huge", 4, 4096,
     "{'hw:numa_nodes':'1','hw:numa_cpus.0':'0-99999999','hw:numa_mem.0':'4096'}", NULL, Z, -EINVAL,
     "ImageNUMATopologyCPUOutOfRange", NULL},
    {"div_dedicated_mask_huge", 4, 4096,
     "{'hw:cpu_policy':'mixed','hw:cpu_dedicated_mask':'0-99999999'}", NULL, Z, -EINVAL,
     "InvalidMixedInstanceDedicatedMask", NULL},
    {"div_realtime_mask_huge", 4, 4096,
     "{'hw:cpu_policy':'dedicated','hw:cpu_realtime':'1','hw:cpu_realtime_mask':'0-99999999'}",
     NULL, Z, -EINVAL, "RealtimeMaskNotFoundOrInvalid", NULL},
    {"div_page_size_0", 4, 4096, "{'hw:mem_page_size':'0'}", NULL, Z, -EINVAL,
     "MemoryPageSizeInvalid", NULL},
    {"div_page_size_0KiB_pinned", 4, 4096,
     "{'hw:cpu_policy':'dedicated','hw:mem_page_size':'0KiB'}", NULL, Z, -EINVAL,
     "MemoryPageSizeInvalid", NULL},
    {"div_page_size_negative_unit", 4, 4096, "{'hw:mem_page_size':'-2KiB'}", NULL, Z, -EINVAL,
     "MemoryPageSizeInvalid", NULL},
    {"div_page_size_100B", 4, 4096, "{'hw:mem_page_size':'100B'}", NULL, Z, -EINVAL,
     "MemoryPageSizeInvalid", NULL},
    {"div_thread_policy_empty", 4, 4096, "{'hw:cpu_policy':'dedicated','hw:cpu_thread_policy':''}",
     NULL, Z, -EINVAL, "InvalidCPUThreadAllocationPolicy", NULL},
    {"div_thread_policy_empty_no_numa", 4, 4096, "{'hw:cpu_thread_policy':''}", NULL, Z, 0, NULL,
     NULL},
    {"div_image_policy_bogus", 4, 4096, "{}", "{'hw_cpu_policy':'bogus'}", Z, -EINVAL,
     "InvalidCPUAllocationPolicy", NULL},
    {"div_numa_nodes_2000", 2000, 2000, "{'hw:numa_nodes':'2000'}", NULL, Z, -ERANGE,
     "InvalidNUMANodesNumber", NULL},
    {"div_vcpus_1e6", 1000000, 4096, "{'hw:cpu_policy':'dedicated'}", NULL, Z, -ERANGE, NULL, NULL},
    {"div_vcpus_20000", 20000, 20000, "{'hw:numa_nodes':'20000'}", NULL, Z, -ERANGE, NULL, NULL},

    /* ---- profiles: memory encryption checks only upstream (latest) */
    {"enc_zed_ignored", 4, 4096, "{'hw:mem_encryption':'true','hw:cpu_policy':'dedicated'}", NULL,
     Z, 1, NULL, "dedicated,-,-,-|/0-3:4096"},
    {"enc_latest_needs_uefi", 4, 4096, "{'hw:mem_encryption':'true','hw:cpu_policy':'dedicated'}",
     NULL, L, -EINVAL, "FlavorImageConflict", NULL},
    {"enc_latest_conflict", 4, 4096, "{'hw:mem_encryption':'true'}",
     "{'hw_mem_encryption':false,'hw_firmware_type':'uefi'}", L, -EINVAL, "FlavorImageConflict",
     NULL},
    {"enc_latest_machine_type", 4, 4096, "{}",
     "{'hw_mem_encryption':true,'hw_firmware_type':'uefi','hw_machine_type':'pc-i440fx'}", L,
     -EINVAL, "InvalidMachineType", NULL},
    {"enc_latest_snp_stateless", 4, 4096, "{'hw:mem_encryption_model':'amd-sev-snp'}",
     "{'hw_mem_encryption':'yes','hw_firmware_type':'uefi'}", L, -EINVAL,
     "StatelessFirmwareRequired", NULL},
    {"enc_latest_bad_model", 4, 4096, "{'hw:mem_encryption':'1','hw:mem_encryption_model':'x'}",
     "{'hw_firmware_type':'uefi'}", L, -EINVAL, "Invalid", NULL},
    {"enc_latest_ok", 4, 4096, "{'hw:mem_encryption':'true'}",
     "{'hw_firmware_type':'uefi','hw_machine_type':'q35'}", L, 0, NULL, NULL},
    {"enc_latest_page_before_locked", 4, 4096,
     "{'hw:locked_memory':'true','hw:mem_encryption':'true'}", "{'hw_mem_page_size':'large'}", L,
     -EINVAL, "MemoryPageSizeForbidden", NULL},
};

/* ---------------------------------------------------------------- helpers */

static char *dequote(const char *s) {
    char *d = strdup(s);
    ck_assert_ptr_nonnull(d);
    for (char *p = d; *p; p++)
        if (*p == '\'')
            *p = '"';
    return d;
}

static void fmt_bits(char *buf, size_t cap, const uint64_t *w, unsigned nw) {
    int prev = -2, start = -1;
    buf[0] = '\0';
    for (int i = numafit__bits_next(w, nw, -1);; i = numafit__bits_next(w, nw, i)) {
        if (i >= 0 && i == prev + 1) {
            prev = i;
            continue;
        }
        if (start >= 0) {
            size_t n = strlen(buf);
            if (start == prev)
                snprintf(buf + n, cap - n, "%s%d", n ? "," : "", start);
            else
                snprintf(buf + n, cap - n, "%s%d-%d", n ? "," : "", start, prev);
        }
        if (i < 0)
            break;
        start = prev = i;
    }
}

static const char *or_dash(const char *s) {
    return s ? s : "-";
}

static void summarize(const numafit_request_t *r, char *buf, size_t cap) {
    char ps[32];
    if (r->pagesize)
        snprintf(ps, sizeof(ps), "%lld", (long long)r->pagesize);
    else
        snprintf(ps, sizeof(ps), "-");
    snprintf(buf, cap, "%s,%s,%s,%s", or_dash(numafit_cpu_policy_to_string(r->cpu_policy)),
             or_dash(numafit_thread_policy_to_string(r->thread_policy)),
             or_dash(numafit_emulator_threads_policy_to_string(r->emulator_policy)), ps);
    for (uint32_t k = 0; k < r->ncells; k++) {
        char a[256], b[256];
        size_t n = strlen(buf);
        fmt_bits(a, sizeof(a), r->cells[k].cpuset, r->nw);
        fmt_bits(b, sizeof(b), r->cells[k].pcpuset, r->nw);
        snprintf(buf + n, cap - n, "|%s/%s:%llu", a, b, (unsigned long long)r->cells[k].memory);
    }
}

static int make(unsigned vcpus, unsigned memory, const char *specs, const char *props,
                unsigned flags, numafit_request_t **ret, numafit_error_t *err) {
    char *flavor, *image = NULL;
    char *sp = dequote(specs);
    size_t n = strlen(sp) + 96;
    int rc;
    flavor = malloc(n);
    ck_assert_ptr_nonnull(flavor);
    snprintf(flavor, n, "{\"vcpus\":%u,\"memory_mb\":%u,\"extra_specs\":%s}", vcpus, memory, sp);
    if (props) {
        char *pp = dequote(props);
        n = strlen(pp) + 32;
        image = malloc(n);
        ck_assert_ptr_nonnull(image);
        snprintf(image, n, "{\"properties\":%s}", pp);
        free(pp);
    }
    rc = numafit_request_new(flavor, strlen(flavor), image, image ? strlen(image) : 0, flags, ret,
                             err);
    free(sp);
    free(flavor);
    free(image);
    return rc;
}

/* ---------------------------------------------------------------- table */

START_TEST(test_table) {
    const struct rcase *t = &cases[_i];
    numafit_request_t *r = NULL;
    numafit_error_t err;
    int rc = make(t->vcpus, t->memory, t->specs, t->props, t->flags, &r, &err);

    ck_assert_msg(rc == t->rc, "%s: rc %d, expected %d (%s: %s)", t->name, rc, t->rc, err.exception,
                  err.text);
    if (rc < 0) {
        ck_assert_msg(r == NULL, "%s: ret set on failure", t->name);
        ck_assert_msg(!strcmp(err.exception, t->exc ? t->exc : ""), "%s: exception %s, expected %s",
                      t->name, err.exception, t->exc ? t->exc : "(none)");
        if (t->exc && rc == -EINVAL)
            ck_assert_msg(err.code == NUMAFIT_E_REQUEST, "%s: code %d", t->name, err.code);
        ck_assert_msg(err.text[0] != '\0', "%s: no error text", t->name);
        return;
    }
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(numafit_request_get_cell_count(r), rc ? (int)r->ncells : 0);
    if (t->cells) {
        char got[4096];
        summarize(r, got, sizeof(got));
        ck_assert_msg(!strcmp(got, t->cells), "%s: got %s, expected %s", t->name, got, t->cells);
    }
    numafit_request_free(r);
}
END_TEST

/* ---------------------------------------------------------------- unit tests */

START_TEST(test_to_json) {
    numafit_request_t *r = NULL;
    char *s = NULL;
    int rc = make(4, 4096,
                  "{'hw:cpu_policy':'mixed','hw:cpu_dedicated_mask':'^0','hw:numa_nodes':'2',"
                  "'hw:mem_page_size':'large','hw:emulator_threads_policy':'share'}",
                  NULL, NUMAFIT_REQUEST_ZED, &r, NULL);
    ck_assert_int_eq(rc, 1);
    ck_assert_int_eq(numafit_request_to_json(r, 0, &s, NULL), 0);
    ck_assert_str_eq(
        s, "{\"nova_object.name\":\"InstanceNUMATopology\",\"nova_object.namespace\":\"nova\","
           "\"nova_object.version\":\"1.3\",\"nova_object.data\":{\"cells\":["
           "{\"nova_object.name\":\"InstanceNUMACell\",\"nova_object.namespace\":\"nova\","
           "\"nova_object.version\":\"1.6\",\"nova_object.data\":{\"id\":0,\"cpuset\":[0],"
           "\"pcpuset\":[1],\"cpuset_reserved\":null,\"memory\":2048,\"pagesize\":-2,"
           "\"cpu_pinning_raw\":null,\"cpu_policy\":\"mixed\",\"cpu_thread_policy\":null},"
           "\"nova_object.changes\":[\"id\",\"cpuset\",\"pcpuset\",\"cpuset_reserved\","
           "\"memory\",\"pagesize\",\"cpu_pinning_raw\",\"cpu_policy\",\"cpu_thread_policy\"]},"
           "{\"nova_object.name\":\"InstanceNUMACell\",\"nova_object.namespace\":\"nova\","
           "\"nova_object.version\":\"1.6\",\"nova_object.data\":{\"id\":1,\"cpuset\":[],"
           "\"pcpuset\":[2,3],\"cpuset_reserved\":null,\"memory\":2048,\"pagesize\":-2,"
           "\"cpu_pinning_raw\":null,\"cpu_policy\":\"mixed\",\"cpu_thread_policy\":null},"
           "\"nova_object.changes\":[\"id\",\"cpuset\",\"pcpuset\",\"cpuset_reserved\","
           "\"memory\",\"pagesize\",\"cpu_pinning_raw\",\"cpu_policy\",\"cpu_thread_policy\"]}],"
           "\"emulator_threads_policy\":\"share\"},"
           "\"nova_object.changes\":[\"cells\",\"emulator_threads_policy\"]}");
    numafit_free(s);
    s = NULL;
    ck_assert_int_eq(numafit_request_to_json(r, NUMAFIT_HOST_JSON_STRING, &s, NULL), 0);
    ck_assert(s[0] == '"');
    numafit_free(s);
    ck_assert_int_eq(numafit_request_to_json(r, 1u << 20, &s, NULL), -EINVAL);
    ck_assert_int_eq(numafit_request_to_json(NULL, 0, &s, NULL), -EINVAL);
    numafit_request_free(r);

    ck_assert_int_eq(make(4, 4096, "{}", NULL, 0, &r, NULL), 0);
    ck_assert_int_eq(numafit_request_get_cell_count(r), 0);
    ck_assert_int_eq(numafit_request_to_json(r, 0, &s, NULL), 0);
    ck_assert_str_eq(s, "null");
    numafit_free(s);
    numafit_request_free(r);
}
END_TEST

START_TEST(test_fields_and_dup) {
    numafit_request_t *r = NULL, *d = NULL;
    int rc =
        make(6, 6144,
             "{'hw:cpu_policy':'dedicated','hw:cpu_realtime':'yes','hw:cpu_realtime_mask':'^0-1',"
             "'hw:cpu_thread_policy':'require','hw:emulator_threads_policy':'isolate',"
             "'hw:mem_page_size':'2MB','hw:locked_memory':'1','hw:pmem':'a, b,,c '}",
             NULL, 0, &r, NULL);
    ck_assert_int_eq(rc, 1);
    ck_assert_int_eq(numafit_request_get_vcpus(r), 6);
    ck_assert_int_eq(numafit_request_get_cpu_policy(r), NUMAFIT_CPU_POLICY_DEDICATED);
    ck_assert_int_eq(numafit_request_get_thread_policy(r), NUMAFIT_THREAD_POLICY_REQUIRE);
    ck_assert_int_eq(numafit_request_get_emulator_threads_policy(r),
                     NUMAFIT_EMULATOR_THREADS_ISOLATE);
    ck_assert(r->realtime);
    ck_assert_ptr_nonnull(r->rt_mask);
    ck_assert_uint_eq(r->rt_mask[0], 0x3cu);
    ck_assert_int_eq(r->locked_memory, 1);
    ck_assert_int_eq(r->pagesize, 2048);
    ck_assert_uint_eq(r->memory_mb, 6144);
    ck_assert_uint_eq(r->npmem, 3);
    ck_assert_str_eq(r->pmem[0], "a");
    ck_assert_str_eq(r->pmem[1], "b");
    ck_assert_str_eq(r->pmem[2], "c");

    ck_assert_int_eq(numafit_request_dup(r, &d), 0);
    char a[512], b[512];
    summarize(r, a, sizeof(a));
    summarize(d, b, sizeof(b));
    ck_assert_str_eq(a, b);
    ck_assert_uint_eq(d->rt_mask[0], 0x3cu);
    ck_assert_uint_eq(d->npmem, 3);
    ck_assert_str_eq(d->pmem[2], "c");
    ck_assert_int_eq(d->locked_memory, 1);
    numafit_request_free(r);
    numafit_request_free(d);
    ck_assert_int_eq(numafit_request_dup(NULL, &d), -EINVAL);
    numafit_request_free(NULL);

    /* no realtime, locked memory unset */
    ck_assert_int_eq(make(2, 1024, "{'hw:cpu_policy':'dedicated'}", NULL, 0, &r, NULL), 1);
    ck_assert(!r->realtime);
    ck_assert_ptr_null(r->rt_mask);
    ck_assert_int_eq(r->locked_memory, -1);
    ck_assert_uint_eq(r->npmem, 0);
    numafit_request_free(r);

    /* latest: SEV implies locked memory */
    ck_assert_int_eq(
        make(2, 1024, "{'hw:mem_encryption':'true'}", "{'hw_firmware_type':'uefi'}", 0, &r, NULL),
        0);
    ck_assert_int_eq(r->locked_memory, 1);
    numafit_request_free(r);
    ck_assert_int_eq(make(2, 1024, "{'hw:mem_encryption':'true'}", "{'hw_firmware_type':'uefi'}",
                          NUMAFIT_REQUEST_ZED, &r, NULL),
                     0);
    ck_assert_int_eq(r->locked_memory, -1);
    numafit_request_free(r);

    ck_assert_int_eq(numafit_request_get_cell_count(NULL), -EINVAL);
    ck_assert_int_eq(numafit_request_get_vcpus(NULL), -EINVAL);
    ck_assert_int_eq(numafit_request_get_cpu_policy(NULL), -EINVAL);
    ck_assert_int_eq(numafit_request_get_thread_policy(NULL), -EINVAL);
    ck_assert_int_eq(numafit_request_get_emulator_threads_policy(NULL), -EINVAL);
}
END_TEST

START_TEST(test_enums) {
    ck_assert_str_eq(numafit_cpu_policy_to_string(NUMAFIT_CPU_POLICY_MIXED), "mixed");
    ck_assert_str_eq(numafit_cpu_policy_to_string(NUMAFIT_CPU_POLICY_SHARED), "shared");
    ck_assert_ptr_null(numafit_cpu_policy_to_string(NUMAFIT_CPU_POLICY_NONE));
    ck_assert_ptr_null(numafit_cpu_policy_to_string(7));
    ck_assert_int_eq(numafit_cpu_policy_from_string("dedicated"), NUMAFIT_CPU_POLICY_DEDICATED);
    ck_assert_int_eq(numafit_cpu_policy_from_string("Dedicated"), -EINVAL);
    ck_assert_int_eq(numafit_cpu_policy_from_string(NULL), -EINVAL);
    ck_assert_str_eq(numafit_thread_policy_to_string(NUMAFIT_THREAD_POLICY_ISOLATE), "isolate");
    ck_assert_ptr_null(numafit_thread_policy_to_string(NUMAFIT_THREAD_POLICY_NONE));
    ck_assert_int_eq(numafit_thread_policy_from_string("require"), NUMAFIT_THREAD_POLICY_REQUIRE);
    ck_assert_int_eq(numafit_thread_policy_from_string(""), -EINVAL);
    ck_assert_str_eq(numafit_emulator_threads_policy_to_string(NUMAFIT_EMULATOR_THREADS_SHARE),
                     "share");
    ck_assert_ptr_null(numafit_emulator_threads_policy_to_string(NUMAFIT_EMULATOR_THREADS_NONE));
    ck_assert_int_eq(numafit_emulator_threads_policy_from_string("isolate"),
                     NUMAFIT_EMULATOR_THREADS_ISOLATE);
    ck_assert_int_eq(numafit_emulator_threads_policy_from_string("shared"), -EINVAL);
}
END_TEST

static void expect_fail(const char *flavor, const char *image, unsigned flags, int rc, int code,
                        const char *where) {
    numafit_request_t *r = (numafit_request_t *)&r; /* must stay untouched */
    numafit_request_t *const sentinel = r;
    numafit_error_t err;
    int got = numafit_request_new(flavor, flavor ? strlen(flavor) : 0, image,
                                  image ? strlen(image) : 0, flags, &r, &err);
    ck_assert_msg(got == rc, "%s: rc %d, expected %d (%s)", flavor ? flavor : "NULL", got, rc,
                  err.text);
    ck_assert_msg(err.code == code, "%s: code %d, expected %d", flavor ? flavor : "NULL", err.code,
                  code);
    if (where)
        ck_assert_str_eq(err.where, where);
    ck_assert_ptr_eq(r, sentinel);
}

START_TEST(test_bad_input) {
    numafit_request_t *r = NULL;
    expect_fail(NULL, NULL, 0, -EINVAL, NUMAFIT_E_INVALID_ARG, NULL);
    expect_fail("{\"vcpus\":1,\"memory_mb\":1}", NULL, 1u << 9, -EINVAL, NUMAFIT_E_INVALID_ARG,
                "flags");
    expect_fail("{\"vcpus\":1,", NULL, 0, -EBADMSG, NUMAFIT_E_PARSE, NULL);
    expect_fail("{\"vcpus\":1,\"vcpus\":2,\"memory_mb\":1}", NULL, 0, -EBADMSG, NUMAFIT_E_PARSE,
                NULL);
    expect_fail("{\"vcpus\":1,\"memory_mb\":1}", "[1", 0, -EBADMSG, NUMAFIT_E_PARSE, NULL);
    expect_fail("[]", NULL, 0, -EINVAL, NUMAFIT_E_SCHEMA, "flavor");
    expect_fail("{\"memory_mb\":1}", NULL, 0, -EINVAL, NUMAFIT_E_SCHEMA, "vcpus");
    expect_fail("{\"vcpus\":0,\"memory_mb\":1}", NULL, 0, -EINVAL, NUMAFIT_E_SCHEMA, "vcpus");
    expect_fail("{\"vcpus\":\"4\",\"memory_mb\":1}", NULL, 0, -EINVAL, NUMAFIT_E_SCHEMA, "vcpus");
    expect_fail("{\"vcpus\":1.5,\"memory_mb\":1}", NULL, 0, -EINVAL, NUMAFIT_E_SCHEMA, "vcpus");
    expect_fail("{\"vcpus\":16385,\"memory_mb\":1}", NULL, 0, -ERANGE, NUMAFIT_E_RANGE, "vcpus");
    expect_fail("{\"vcpus\":1,\"memory_mb\":-1}", NULL, 0, -EINVAL, NUMAFIT_E_SCHEMA, "memory_mb");
    expect_fail("{\"vcpus\":1}", NULL, 0, -EINVAL, NUMAFIT_E_SCHEMA, "memory_mb");
    expect_fail("{\"vcpus\":1,\"memory_mb\":1,\"extra_specs\":[]}", NULL, 0, -EINVAL,
                NUMAFIT_E_SCHEMA, "extra_specs");
    expect_fail("{\"vcpus\":1,\"memory_mb\":1,\"extra_specs\":{\"hw:numa_nodes\":null}}", NULL, 0,
                -EINVAL, NUMAFIT_E_SCHEMA, "hw:numa_nodes");
    expect_fail("{\"vcpus\":1,\"memory_mb\":1}", "{\"properties\":{\"hw_mem_page_size\":1.5}}", 0,
                -EINVAL, NUMAFIT_E_SCHEMA, "hw_mem_page_size");
    expect_fail("{\"vcpus\":1,\"memory_mb\":1}",
                "{\"properties\":{\"hw_numa_cpus\":[[0]],\"hw_numa_cpus.0\":\"0\"}}", 0, -EINVAL,
                NUMAFIT_E_SCHEMA, "hw_numa_cpus");
    expect_fail("{\"vcpus\":1,\"memory_mb\":1}",
                "{\"properties\":{\"hw_numa_cpus\":[[-1]],\"hw_numa_mem\":[1]}}", 0, -EINVAL,
                NUMAFIT_E_SCHEMA, "hw_numa_cpus/0");
    expect_fail("{\"vcpus\":4,\"memory_mb\":1,\"extra_specs\":{\"hw:numa_nodes\":\"3\"}}", NULL, 0,
                -EINVAL, NUMAFIT_E_REQUEST, "hw:numa_nodes");

    /* a JSON null image is no image; extra fields are ignored */
    const char *f = "{\"vcpus\":1,\"memory_mb\":0,\"name\":\"f\"}";
    ck_assert_int_eq(numafit_request_new(f, strlen(f), "null", 4, 0, &r, NULL), 0);
    numafit_request_free(r);
    ck_assert_int_eq(
        numafit_request_new("{\"vcpus\":1,\"memory_mb\":1}", 26, NULL, 0, 0, NULL, NULL), -EINVAL);
}
END_TEST

START_TEST(test_messages) {
    numafit_request_t *r = NULL;
    numafit_error_t err;
    ck_assert_int_eq(make(4, 4096, "{'hw:cpu_policy':'bogus'}", NULL, 0, &r, &err), -EINVAL);
    ck_assert_str_eq(err.text, "CPU policy requested from 'flavor extra specs' is invalid, given: "
                               "'bogus', available: '('dedicated', 'shared', 'mixed')'.");
    ck_assert_str_eq(err.where, "hw:cpu_policy");
    ck_assert_int_eq(make(4, 4096,
                          "{'hw:numa_nodes':'2','hw:numa_cpus.0':'0','hw:numa_cpus.1':'3',"
                          "'hw:numa_mem.0':'2048','hw:numa_mem.1':'2048'}",
                          NULL, 0, &r, &err),
                     -EINVAL);
    ck_assert_str_eq(err.exception, "ImageNUMATopologyCPUsUnassigned");
    ck_assert_str_eq(err.text, "CPU number {1, 2} is not assigned to any node");
    ck_assert_int_eq(make(4, 4096,
                          "{'hw:numa_nodes':'2','hw:numa_cpus.0':'0-1','hw:numa_cpus.1':'2-3',"
                          "'hw:numa_mem.0':'2048','hw:numa_mem.1':'1024'}",
                          NULL, 0, &r, &err),
                     -EINVAL);
    ck_assert_str_eq(err.text, "3072 MB of memory assigned, but expected 4096 MB");
    ck_assert_int_eq(
        make(4, 4096, "{'hw:mem_page_size':'small'}", "{'hw_mem_page_size':'2MB'}", 0, &r, &err),
        -EINVAL);
    ck_assert_str_eq(err.text, "Page size 2MB forbidden against 'small'");
    ck_assert_int_eq(make(4, 4096, "{'hw:locked_memory':'true','hw:mem_page_size':'large'}",
                          "{'hw_locked_memory':'no'}", 0, &r, &err),
                     -EINVAL);
    ck_assert_str_eq(err.text, "locked_memory value in image (False) and flavor (True) conflict. "
                               "A consistent value is expected if both specified.");
    ck_assert_int_eq(make(4, 4096, "{'hw:numa_nodes':'02'}", NULL, 0, &r, &err), -EINVAL);
    ck_assert_str_eq(
        err.text, "The property 'numa_nodes' cannot be '02'. It must be a number greater than 0");
}
END_TEST

/* The page size asked: the flavor's, refined by the image; nova's special
 * values as NUMAFIT_PAGESIZE_*. */
START_TEST(test_page_size) {
    static const struct {
        const char *flavor, *image;
        int64_t want;
    } t[] = {
        {"{\"vcpus\":2,\"memory_mb\":2048,\"extra_specs\":{\"hw:mem_page_size\":\"2MB\"}}", NULL,
         2048},
        {"{\"vcpus\":2,\"memory_mb\":2048,\"extra_specs\":{\"hw:mem_page_size\":\"1GB\"}}", NULL,
         1048576},
        {"{\"vcpus\":2,\"memory_mb\":2048,\"extra_specs\":{\"hw:mem_page_size\":\"large\"}}", NULL,
         NUMAFIT_PAGESIZE_LARGE},
        {"{\"vcpus\":2,\"memory_mb\":2048,\"extra_specs\":{\"hw:mem_page_size\":\"any\"}}",
         "{\"properties\":{\"hw_mem_page_size\":\"2048\"}}", 2048},
        {"{\"vcpus\":2,\"memory_mb\":2048,\"extra_specs\":{\"hw:numa_nodes\":\"1\"}}", NULL,
         NUMAFIT_PAGESIZE_NONE},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        numafit_request_t *r = NULL;
        numafit_error_t e;
        int64_t kib = 12345;
        int rc = numafit_request_new(t[i].flavor, strlen(t[i].flavor), t[i].image,
                                     t[i].image ? strlen(t[i].image) : 0, 0, &r, &e);
        ck_assert_msg(rc == 1, "case %zu: rc %d %s", i, rc, e.text);
        ck_assert_int_eq(numafit_request_get_page_size(r, 0, &kib), 0);
        ck_assert_msg(kib == t[i].want, "case %zu: %lld, want %lld", i, (long long)kib,
                      (long long)t[i].want);
        ck_assert_int_eq(numafit_request_get_page_size(r, 1, &kib), -EINVAL);
        ck_assert_int_eq(numafit_request_get_page_size(r, 0, NULL), -EINVAL);
        numafit_request_free(r);
    }
}
END_TEST

/* numafit_resources_from_flavor: rc and the four amounts (VCPU, PCPU, MEMORY_MB, DISK_GB). */
static void expect_resources(const char *flavor, unsigned flags, int rc, int64_t vcpu, int64_t pcpu,
                             int64_t mem, int64_t disk) {
    int64_t got[6] = {-7, -7, -7, -7, -7, -7};
    numafit_error_t err;
    int r = numafit_resources_from_flavor(flavor, strlen(flavor), NULL, 0, flags, got, 6, &err);
    ck_assert_msg(r == rc, "%s: rc %d, expected %d (%s)", flavor, r, rc, err.text);
    ck_assert_msg(got[0] == vcpu && got[1] == pcpu && got[2] == mem && got[3] == disk,
                  "%s: %lld %lld %lld %lld, expected %lld %lld %lld %lld", flavor,
                  (long long)got[0], (long long)got[1], (long long)got[2], (long long)got[3],
                  (long long)vcpu, (long long)pcpu, (long long)mem, (long long)disk);
    ck_assert_int_eq(got[4], 0); /* beyond the classes: 0 */
    ck_assert_int_eq(got[5], 0);
}

static void expect_resources_fail(const char *flavor, unsigned flags, int rc, int code,
                                  const char *where) {
    int64_t got[4] = {-7, -7, -7, -7};
    numafit_error_t err;
    int r = numafit_resources_from_flavor(flavor, strlen(flavor), NULL, 0, flags, got, 4, &err);
    ck_assert_msg(r == rc, "%s: rc %d, expected %d (%s)", flavor, r, rc, err.text);
    ck_assert_int_eq(err.code, code);
    if (where)
        ck_assert_str_eq(err.where, where);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(got[i], -7); /* untouched */
}

START_TEST(test_resources) {
    /* shared: VCPU; disk = root + ephemeral + swap MiB rounded up to GiB */
    expect_resources("{\"vcpus\":4,\"memory_mb\":4096,\"root_gb\":10,\"ephemeral_gb\":5,"
                     "\"swap\":1025}",
                     0, 0, 4, 0, 4096, 17);
    /* boot from volume: no root disk; absent sizes are 0, nothing asked is 0 */
    expect_resources("{\"vcpus\":2,\"memory_mb\":512,\"root_gb\":10}",
                     NUMAFIT_RESOURCES_BOOT_FROM_VOLUME, 0, 2, 0, 512, 0);
    /* dedicated: PCPU (1: nova would ask again with VCPU); legacy: VCPU */
    expect_resources("{\"vcpus\":4,\"memory_mb\":1024,\"extra_specs\":{\"hw:cpu_policy\":"
                     "\"dedicated\"}}",
                     0, 1, 0, 4, 1024, 0);
    expect_resources("{\"vcpus\":4,\"memory_mb\":1024,\"extra_specs\":{\"hw:cpu_policy\":"
                     "\"dedicated\"}}",
                     NUMAFIT_RESOURCES_LEGACY, 0, 4, 0, 1024, 0);
    /* the seed's realtime flavor: an isolated emulator thread adds a PCPU */
    expect_resources("{\"vcpus\":4,\"memory_mb\":4096,\"extra_specs\":{\"hw:cpu_policy\":"
                     "\"dedicated\",\"hw:cpu_realtime\":\"yes\",\"hw:cpu_realtime_mask\":\"^0-1\","
                     "\"hw:mem_page_size\":\"1GB\",\"hw:emulator_threads_policy\":\"isolate\"}}",
                     0, 1, 0, 5, 4096, 0);
    /* mixed: the dedicated vCPUs are PCPU, the others VCPU; no fallback */
    expect_resources("{\"vcpus\":4,\"memory_mb\":1024,\"extra_specs\":{\"hw:cpu_policy\":"
                     "\"mixed\",\"hw:cpu_dedicated_mask\":\"^0\"}}",
                     0, 0, 1, 3, 1024, 0);
    /* resources:PCPU sets the policy and is not translated again (suffixed too) */
    expect_resources("{\"vcpus\":4,\"memory_mb\":1024,\"extra_specs\":{\"resources1:PCPU\":\"4\"}}",
                     0, 0, 0, 4, 1024, 0);
    /* resources:VCPU=0 asks for no VCPU at all; an override of memory and disk */
    expect_resources("{\"vcpus\":4,\"memory_mb\":1024,\"root_gb\":9,\"extra_specs\":{"
                     "\"resources:VCPU\":\"0\",\"resources_a:MEMORY_MB\":\"5\","
                     "\"resources:DISK_GB\":\"1\"}}",
                     0, 0, 0, 0, 5, 1);
    /* one group's one class: the later valid value wins; "VCPU\n" is VCPU;
     * invalid amounts and unknown classes are ignored */
    expect_resources("{\"vcpus\":4,\"memory_mb\":1,\"extra_specs\":{\"resources:VCPU\":\"2\","
                     "\"resources:VCPU\\n\":\"3\",\"resources:VCPUS\":\"9\"}}",
                     0, 0, 3, 0, 1, 0);
    expect_resources("{\"vcpus\":4,\"memory_mb\":1,\"extra_specs\":{\"resources:VCPU\\n\":\"3\","
                     "\"resources:VCPU\":\"2\",\"resources:VCPU\\n\\n\":\"7\"}}",
                     0, 0, 2, 0, 1, 0);
    expect_resources("{\"vcpus\":4,\"memory_mb\":1,\"extra_specs\":{\"resources2:VCPU\":\"1\","
                     "\"resources3:VCPU\":\"2\",\"resources3:VCPU\\n\":\"-1\","
                     "\"resources4:VCPU\":\"x\"}}",
                     0, 0, 3, 0, 1, 0);
    /* suffixes of 65 characters and other characters are no groups */
    expect_resources("{\"vcpus\":4,\"memory_mb\":1,\"extra_specs\":{"
                     "\"resourcesaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:"
                     "MEMORY_MB\":\"7\",\"resources.x:MEMORY_MB\":\"8\"}}",
                     0, 0, 4, 0, 1, 0);

    /* the SMT trait: the thread policy (translated only with the translation
     * on), the trait extra spec (always), the image's required traits */
    const int F = NUMAFIT_RESOURCES_FALLBACK, R = NUMAFIT_RESOURCES_SMT_REQUIRED,
              X = NUMAFIT_RESOURCES_SMT_FORBIDDEN;
    expect_resources("{\"vcpus\":2,\"memory_mb\":1,\"extra_specs\":{\"hw:cpu_policy\":"
                     "\"dedicated\",\"hw:cpu_thread_policy\":\"isolate\"}}",
                     0, F | X, 0, 2, 1, 0);
    expect_resources("{\"vcpus\":2,\"memory_mb\":1,\"extra_specs\":{\"hw:cpu_policy\":"
                     "\"dedicated\",\"hw:cpu_thread_policy\":\"isolate\"}}",
                     NUMAFIT_RESOURCES_LEGACY, 0, 2, 0, 1, 0);
    expect_resources("{\"vcpus\":2,\"memory_mb\":1,\"extra_specs\":{\"hw:cpu_policy\":"
                     "\"dedicated\",\"trait1:HW_CPU_HYPERTHREADING\":\"required\"}}",
                     NUMAFIT_RESOURCES_LEGACY, R, 2, 0, 1, 0);
    expect_resources("{\"vcpus\":2,\"memory_mb\":1,\"extra_specs\":{\"hw:cpu_policy\":"
                     "\"dedicated\",\"trait:HW_CPU_HYPERTHREADING\":\"Required\"}}",
                     0, F, 0, 2, 1, 0);
    int64_t got[4];
    const char *ded = "{\"vcpus\":2,\"memory_mb\":1,\"extra_specs\":{\"hw:cpu_policy\":"
                      "\"dedicated\"}}";
    const char *img = "{\"properties\":{\"trait:HW_CPU_HYPERTHREADING\":\"required\"}}";
    ck_assert_int_eq(
        numafit_resources_from_flavor(ded, strlen(ded), img, strlen(img), 0, got, 4, NULL), F | R);

    /* placement takes at most 2^31-1 of a class */
    expect_resources_fail("{\"vcpus\":1,\"memory_mb\":1,\"root_gb\":2147483647,\"swap\":1}", 0,
                          -ERANGE, NUMAFIT_E_RANGE, "DISK_GB");
    expect_resources_fail("{\"vcpus\":1,\"memory_mb\":1,\"extra_specs\":{\"resources:MEMORY_MB\":"
                          "\"99999999999999999999\"}}",
                          0, -ERANGE, NUMAFIT_E_RANGE, "MEMORY_MB");
    expect_resources_fail("{\"vcpus\":1,\"memory_mb\":1,\"root_gb\":-1}", 0, -ERANGE,
                          NUMAFIT_E_RANGE, "root_gb");
    expect_resources_fail("{\"vcpus\":1,\"memory_mb\":1,\"swap\":\"x\"}", 0, -EINVAL,
                          NUMAFIT_E_SCHEMA, "swap");
    /* nova's refusals, as numafit_request_new gives them */
    expect_resources_fail("{\"vcpus\":4,\"memory_mb\":1,\"extra_specs\":{\"hw:cpu_policy\":"
                          "\"dedicated\",\"resources:PCPU\":\"4\"}}",
                          0, -EINVAL, NUMAFIT_E_REQUEST, "hw:cpu_policy");
    expect_resources_fail("{\"vcpus\":1,\"memory_mb\":1}", 1u << 7, -EINVAL, NUMAFIT_E_INVALID_ARG,
                          "flags");
    expect_resources_fail("{\"vcpus\":1,", 0, -EBADMSG, NUMAFIT_E_PARSE, NULL);
    const char *one = "{\"vcpus\":1,\"memory_mb\":1}";
    ck_assert_int_eq(numafit_resources_from_flavor(one, strlen(one), NULL, 0, 0, NULL, 1, NULL),
                     -EINVAL);
    ck_assert_int_eq(numafit_resources_from_flavor(one, strlen(one), NULL, 0, 0, NULL, 0, NULL), 0);
    ck_assert_str_eq(numafit_resource_class_to_string(NUMAFIT_RC_PCPU), "PCPU");
    ck_assert_ptr_null(numafit_resource_class_to_string(NUMAFIT_RC_COUNT));
    ck_assert_ptr_null(numafit_resource_class_to_string(-1));
}
END_TEST

static Suite *request_suite(void) {
    Suite *s = suite_create("request");
    TCase *tc = tcase_create("table");
    tcase_add_loop_test(tc, test_table, 0, (int)(sizeof(cases) / sizeof(cases[0])));
    suite_add_tcase(s, tc);
    tc = tcase_create("api");
    tcase_add_test(tc, test_to_json);
    tcase_add_test(tc, test_fields_and_dup);
    tcase_add_test(tc, test_enums);
    tcase_add_test(tc, test_bad_input);
    tcase_add_test(tc, test_messages);
    tcase_add_test(tc, test_page_size);
    tcase_add_test(tc, test_resources);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(request_suite());
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
