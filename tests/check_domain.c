/* numafit_domain_xml and the device helpers: golden fragments for each CPU
 * and memory policy (nova's libvirt driver, nova-reference F), the errors nova
 * raises, the quota validators, and validation with the REAL libvirt: every
 * golden case is wrapped into a whole domain, defined on test:///default,
 * read back with virDomainGetXMLDesc and compared (vcpupin, emulatorpin,
 * vcpusched, numatune, hugepages, cputune quotas, iotune, bandwidth) through
 * libxml2 XPath; and virt-xml-validate checks it when the tool is installed.
 *
 * NUMAFIT_DOMAIN_PRINT=1 prints every case's output instead (to refresh the
 * goldens after a deliberate change). */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef NUMAFIT_TEST_LIBVIRT /* set by Makefile.am when configure found libvirt */
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#endif

#include <numafit/domain.h>
#include <numafit/pci.h>

#include "private.h"

/* ------------------------------------------------------------ hosts */
/* Cell 0 = CPUs 0-3 (thread 0) and 8-11 (thread 1), cell 1 = 4-7 and 12-15;
 * core 0 of each cell (0,8 and 4,12) is the shared set. */
#define HOST_HT                                                                                    \
    "cells:2 cores:4 threads:2 mem:16G pages:1G=4,2M=1024 shared:0,4,8,12 "                        \
    "dedicated:1-3,5-7,9-11,13-15"
#define SHARED_HT "0,4,8,12"
/* The same machine in nova's legacy mode (no CPU options: cpuset == pcpuset). */
#define HOST_LEGACY "cells:2 cores:4 threads:2 mem:16G pages:1G=4,2M=1024"
#define SEED_HOST   "@rh2288h-v3.json"

struct dcase {
    const char *name;
    const char *host;   /* synthetic spec, or "@file" in tests/data/hosts */
    const char *flavor; /* flavor JSON */
    const char *shared; /* [compute] cpu_shared_set or NULL */
    int priority;       /* 0 = default */
    unsigned flags;
    const char *expected; /* fragments */
};

#define FL(vcpus, mem, specs)                                                                      \
    "{\"vcpus\":" #vcpus ",\"memory_mb\":" #mem ",\"extra_specs\":{" specs "}}"

static const struct dcase cases[] = {
    /* seed 000: the rt_flavor on the Huawei RH2288H V3 (node0 already runs
     * one, so the guest lands on node1: pCPUs 8-11, a 1G page there) */
    {"seed_rt", SEED_HOST,
     FL(4, 8192,
        "\"hw:cpu_policy\":\"dedicated\",\"hw:cpu_realtime\":\"yes\","
        "\"hw:cpu_realtime_mask\":\"^0-1\",\"hw:mem_page_size\":\"1GB\","
        "\"quota:cpu_shares\":\"2048\""),
     "0-3,12-15", 0, 0,
     "<memoryBacking>\n"
     "  <hugepages>\n"
     "    <page size='1048576' unit='KiB' nodeset='0'/>\n"
     "  </hugepages>\n"
     "  <nosharepages/>\n"
     "  <locked/>\n"
     "</memoryBacking>\n"
     "<vcpu>4</vcpu>\n"
     "<cputune>\n"
     "  <shares>2048</shares>\n"
     "  <vcpupin vcpu='0' cpuset='8'/>\n"
     "  <vcpupin vcpu='1' cpuset='9'/>\n"
     "  <vcpupin vcpu='2' cpuset='10'/>\n"
     "  <vcpupin vcpu='3' cpuset='11'/>\n"
     "  <emulatorpin cpuset='8-9'/>\n"
     "  <vcpusched vcpus='2-3' scheduler='fifo' priority='1'/>\n"
     "</cputune>\n"
     "<numatune>\n"
     "  <memory mode='strict' nodeset='1'/>\n"
     "  <memnode cellid='0' mode='strict' nodeset='1'/>\n"
     "</numatune>\n"
     "<cpu mode='host-model'>\n"
     "  <topology sockets='4' cores='1' threads='1'/>\n"
     "  <numa>\n"
     "    <cell id='0' cpus='0-3' memory='8388608' unit='KiB' memAccess='shared'/>\n"
     "  </numa>\n"
     "</cpu>\n"
     "<clock offset='utc'>\n"
     "  <timer name='pit' tickpolicy='delay'/>\n"
     "  <timer name='rtc' tickpolicy='catchup'/>\n"
     "  <timer name='hpet' present='no'/>\n"
     "</clock>\n"
     "<devices>\n"
     "  <memballoon model='virtio'>\n"
     "    <stats period='10'/>\n"
     "  </memballoon>\n"
     "</devices>\n"},
    /* shared policy: unpinned vCPUs float over the host cell's shared CPUs */
    {"shared", HOST_HT, FL(2, 2048, "\"hw:numa_nodes\":\"1\""), SHARED_HT, 0, 0,
     "<vcpu>2</vcpu>\n"
     "<cputune>\n"
     "  <vcpupin vcpu='0' cpuset='0,8'/>\n"
     "  <vcpupin vcpu='1' cpuset='0,8'/>\n"
     "  <emulatorpin cpuset='0,8'/>\n"
     "</cputune>\n"
     "<numatune>\n"
     "  <memory mode='strict' nodeset='0'/>\n"
     "  <memnode cellid='0' mode='strict' nodeset='0'/>\n"
     "</numatune>\n"
     "<cpu mode='host-model'>\n"
     "  <topology sockets='2' cores='1' threads='1'/>\n"
     "  <numa>\n"
     "    <cell id='0' cpus='0-1' memory='2097152' unit='KiB'/>\n"
     "  </numa>\n"
     "</cpu>\n"
     "<clock offset='utc'>\n"
     "  <timer name='pit' tickpolicy='delay'/>\n"
     "  <timer name='rtc' tickpolicy='catchup'/>\n"
     "  <timer name='hpet' present='no'/>\n"
     "</clock>\n"
     "<devices>\n"
     "  <memballoon model='virtio'>\n"
     "    <stats period='10'/>\n"
     "  </memballoon>\n"
     "</devices>\n"},
    {"dedicated_prefer", HOST_HT, FL(4, 4096, "\"hw:cpu_policy\":\"dedicated\""), SHARED_HT, 0, 0,
     "<vcpu>4</vcpu>\n"
     "<cputune>\n"
     "  <vcpupin vcpu='0' cpuset='1'/>\n"
     "  <vcpupin vcpu='1' cpuset='9'/>\n"
     "  <vcpupin vcpu='2' cpuset='2'/>\n"
     "  <vcpupin vcpu='3' cpuset='10'/>\n"
     "  <emulatorpin cpuset='1-2,9-10'/>\n"
     "</cputune>\n"
     "<numatune>\n"
     "  <memory mode='strict' nodeset='0'/>\n"
     "  <memnode cellid='0' mode='strict' nodeset='0'/>\n"
     "</numatune>\n"
     "<cpu mode='host-model'>\n"
     "  <topology sockets='4' cores='1' threads='1'/>\n"
     "  <numa>\n"
     "    <cell id='0' cpus='0-3' memory='4194304' unit='KiB'/>\n"
     "  </numa>\n"
     "</cpu>\n"
     "<clock offset='utc'>\n"
     "  <timer name='pit' tickpolicy='delay'/>\n"
     "  <timer name='rtc' tickpolicy='catchup'/>\n"
     "  <timer name='hpet' present='no'/>\n"
     "</clock>\n"
     "<devices>\n"
     "  <memballoon model='virtio'>\n"
     "    <stats period='10'/>\n"
     "  </memballoon>\n"
     "</devices>\n"},
    /* isolate: nova refuses it on a hyper-threaded host with cpu_dedicated_set */
    {"dedicated_isolate", HOST_LEGACY,
     FL(2, 2048, "\"hw:cpu_policy\":\"dedicated\",\"hw:cpu_thread_policy\":\"isolate\""), NULL, 0,
     0,
     "<vcpu>2</vcpu>\n"
     "<cputune>\n"
     "  <vcpupin vcpu='0' cpuset='0'/>\n"
     "  <vcpupin vcpu='1' cpuset='1'/>\n"
     "  <emulatorpin cpuset='0-1'/>\n"
     "</cputune>\n"
     "<numatune>\n"
     "  <memory mode='strict' nodeset='0'/>\n"
     "  <memnode cellid='0' mode='strict' nodeset='0'/>\n"
     "</numatune>\n"
     "<cpu mode='host-model'>\n"
     "  <topology sockets='2' cores='1' threads='1'/>\n"
     "  <numa>\n"
     "    <cell id='0' cpus='0-1' memory='2097152' unit='KiB'/>\n"
     "  </numa>\n"
     "</cpu>\n"
     "<clock offset='utc'>\n"
     "  <timer name='pit' tickpolicy='delay'/>\n"
     "  <timer name='rtc' tickpolicy='catchup'/>\n"
     "  <timer name='hpet' present='no'/>\n"
     "</clock>\n"
     "<devices>\n"
     "  <memballoon model='virtio'>\n"
     "    <stats period='10'/>\n"
     "  </memballoon>\n"
     "</devices>\n"},
    {"mixed", HOST_HT, FL(4, 4096, "\"hw:cpu_policy\":\"mixed\",\"hw:cpu_dedicated_mask\":\"2-3\""),
     SHARED_HT, 0, 0,
     "<vcpu>4</vcpu>\n"
     "<cputune>\n"
     "  <vcpupin vcpu='0' cpuset='0,8'/>\n"
     "  <vcpupin vcpu='1' cpuset='0,8'/>\n"
     "  <vcpupin vcpu='2' cpuset='1'/>\n"
     "  <vcpupin vcpu='3' cpuset='9'/>\n"
     "  <emulatorpin cpuset='0-1,8-9'/>\n"
     "</cputune>\n"
     "<numatune>\n"
     "  <memory mode='strict' nodeset='0'/>\n"
     "  <memnode cellid='0' mode='strict' nodeset='0'/>\n"
     "</numatune>\n"
     "<cpu mode='host-model'>\n"
     "  <topology sockets='4' cores='1' threads='1'/>\n"
     "  <numa>\n"
     "    <cell id='0' cpus='0-3' memory='4194304' unit='KiB'/>\n"
     "  </numa>\n"
     "</cpu>\n"
     "<clock offset='utc'>\n"
     "  <timer name='pit' tickpolicy='delay'/>\n"
     "  <timer name='rtc' tickpolicy='catchup'/>\n"
     "  <timer name='hpet' present='no'/>\n"
     "</clock>\n"
     "<devices>\n"
     "  <memballoon model='virtio'>\n"
     "    <stats period='10'/>\n"
     "  </memballoon>\n"
     "</devices>\n"},
    {"emulator_isolate", HOST_HT,
     FL(2, 2048, "\"hw:cpu_policy\":\"dedicated\",\"hw:emulator_threads_policy\":\"isolate\""),
     SHARED_HT, 0, 0,
     "<vcpu>2</vcpu>\n"
     "<cputune>\n"
     "  <vcpupin vcpu='0' cpuset='1'/>\n"
     "  <vcpupin vcpu='1' cpuset='9'/>\n"
     "  <emulatorpin cpuset='2'/>\n"
     "</cputune>\n"
     "<numatune>\n"
     "  <memory mode='strict' nodeset='0'/>\n"
     "  <memnode cellid='0' mode='strict' nodeset='0'/>\n"
     "</numatune>\n"
     "<cpu mode='host-model'>\n"
     "  <topology sockets='2' cores='1' threads='1'/>\n"
     "  <numa>\n"
     "    <cell id='0' cpus='0-1' memory='2097152' unit='KiB'/>\n"
     "  </numa>\n"
     "</cpu>\n"
     "<clock offset='utc'>\n"
     "  <timer name='pit' tickpolicy='delay'/>\n"
     "  <timer name='rtc' tickpolicy='catchup'/>\n"
     "  <timer name='hpet' present='no'/>\n"
     "</clock>\n"
     "<devices>\n"
     "  <memballoon model='virtio'>\n"
     "    <stats period='10'/>\n"
     "  </memballoon>\n"
     "</devices>\n"},
    {"emulator_share", HOST_HT,
     FL(2, 2048, "\"hw:cpu_policy\":\"dedicated\",\"hw:emulator_threads_policy\":\"share\""),
     SHARED_HT, 0, 0,
     "<vcpu>2</vcpu>\n"
     "<cputune>\n"
     "  <vcpupin vcpu='0' cpuset='1'/>\n"
     "  <vcpupin vcpu='1' cpuset='9'/>\n"
     "  <emulatorpin cpuset='0,4,8,12'/>\n"
     "</cputune>\n"
     "<numatune>\n"
     "  <memory mode='strict' nodeset='0'/>\n"
     "  <memnode cellid='0' mode='strict' nodeset='0'/>\n"
     "</numatune>\n"
     "<cpu mode='host-model'>\n"
     "  <topology sockets='2' cores='1' threads='1'/>\n"
     "  <numa>\n"
     "    <cell id='0' cpus='0-1' memory='2097152' unit='KiB'/>\n"
     "  </numa>\n"
     "</cpu>\n"
     "<clock offset='utc'>\n"
     "  <timer name='pit' tickpolicy='delay'/>\n"
     "  <timer name='rtc' tickpolicy='catchup'/>\n"
     "  <timer name='hpet' present='no'/>\n"
     "</clock>\n"
     "<devices>\n"
     "  <memballoon model='virtio'>\n"
     "    <stats period='10'/>\n"
     "  </memballoon>\n"
     "</devices>\n"},
    {"emulator_share_noconf", HOST_HT,
     FL(2, 2048, "\"hw:cpu_policy\":\"dedicated\",\"hw:emulator_threads_policy\":\"share\""), NULL,
     0, 0,
     "<vcpu>2</vcpu>\n"
     "<cputune>\n"
     "  <vcpupin vcpu='0' cpuset='1'/>\n"
     "  <vcpupin vcpu='1' cpuset='9'/>\n"
     "  <emulatorpin cpuset='1,9'/>\n"
     "</cputune>\n"
     "<numatune>\n"
     "  <memory mode='strict' nodeset='0'/>\n"
     "  <memnode cellid='0' mode='strict' nodeset='0'/>\n"
     "</numatune>\n"
     "<cpu mode='host-model'>\n"
     "  <topology sockets='2' cores='1' threads='1'/>\n"
     "  <numa>\n"
     "    <cell id='0' cpus='0-1' memory='2097152' unit='KiB'/>\n"
     "  </numa>\n"
     "</cpu>\n"
     "<clock offset='utc'>\n"
     "  <timer name='pit' tickpolicy='delay'/>\n"
     "  <timer name='rtc' tickpolicy='catchup'/>\n"
     "  <timer name='hpet' present='no'/>\n"
     "</clock>\n"
     "<devices>\n"
     "  <memballoon model='virtio'>\n"
     "    <stats period='10'/>\n"
     "  </memballoon>\n"
     "</devices>\n"},
    {"hugepages", HOST_HT, FL(2, 2048, "\"hw:mem_page_size\":\"1GB\""), SHARED_HT, 0, 0,
     "<memoryBacking>\n"
     "  <hugepages>\n"
     "    <page size='1048576' unit='KiB' nodeset='0'/>\n"
     "  </hugepages>\n"
     "</memoryBacking>\n"
     "<vcpu>2</vcpu>\n"
     "<cputune>\n"
     "  <vcpupin vcpu='0' cpuset='0,8'/>\n"
     "  <vcpupin vcpu='1' cpuset='0,8'/>\n"
     "  <emulatorpin cpuset='0,8'/>\n"
     "</cputune>\n"
     "<numatune>\n"
     "  <memory mode='strict' nodeset='0'/>\n"
     "  <memnode cellid='0' mode='strict' nodeset='0'/>\n"
     "</numatune>\n"
     "<cpu mode='host-model'>\n"
     "  <topology sockets='2' cores='1' threads='1'/>\n"
     "  <numa>\n"
     "    <cell id='0' cpus='0-1' memory='2097152' unit='KiB' memAccess='shared'/>\n"
     "  </numa>\n"
     "</cpu>\n"
     "<clock offset='utc'>\n"
     "  <timer name='pit' tickpolicy='delay'/>\n"
     "  <timer name='rtc' tickpolicy='catchup'/>\n"
     "  <timer name='hpet' present='no'/>\n"
     "</clock>\n"
     "<devices>\n"
     "  <memballoon model='virtio'>\n"
     "    <stats period='10'/>\n"
     "  </memballoon>\n"
     "</devices>\n"},
    {"multi_cell", HOST_HT,
     FL(4, 4096,
        "\"hw:cpu_policy\":\"dedicated\",\"hw:numa_nodes\":\"2\",\"hw:mem_page_size\":\"2MB\""),
     SHARED_HT, 0, 0,
     "<memoryBacking>\n"
     "  <hugepages>\n"
     "    <page size='2048' unit='KiB' nodeset='0'/>\n"
     "    <page size='2048' unit='KiB' nodeset='1'/>\n"
     "  </hugepages>\n"
     "</memoryBacking>\n"
     "<vcpu>4</vcpu>\n"
     "<cputune>\n"
     "  <vcpupin vcpu='0' cpuset='1'/>\n"
     "  <vcpupin vcpu='1' cpuset='9'/>\n"
     "  <vcpupin vcpu='2' cpuset='5'/>\n"
     "  <vcpupin vcpu='3' cpuset='13'/>\n"
     "  <emulatorpin cpuset='1,5,9,13'/>\n"
     "</cputune>\n"
     "<numatune>\n"
     "  <memory mode='strict' nodeset='0-1'/>\n"
     "  <memnode cellid='0' mode='strict' nodeset='0'/>\n"
     "  <memnode cellid='1' mode='strict' nodeset='1'/>\n"
     "</numatune>\n"
     "<cpu mode='host-model'>\n"
     "  <topology sockets='4' cores='1' threads='1'/>\n"
     "  <numa>\n"
     "    <cell id='0' cpus='0-1' memory='2097152' unit='KiB' memAccess='shared'/>\n"
     "    <cell id='1' cpus='2-3' memory='2097152' unit='KiB' memAccess='shared'/>\n"
     "  </numa>\n"
     "</cpu>\n"
     "<clock offset='utc'>\n"
     "  <timer name='pit' tickpolicy='delay'/>\n"
     "  <timer name='rtc' tickpolicy='catchup'/>\n"
     "  <timer name='hpet' present='no'/>\n"
     "</clock>\n"
     "<devices>\n"
     "  <memballoon model='virtio'>\n"
     "    <stats period='10'/>\n"
     "  </memballoon>\n"
     "</devices>\n"},
    {"realtime", HOST_HT,
     FL(4, 2048,
        "\"hw:cpu_policy\":\"dedicated\",\"hw:cpu_realtime\":\"yes\","
        "\"hw:cpu_realtime_mask\":\"^0\",\"hw:mem_page_size\":\"2MB\""),
     SHARED_HT, 50, 0,
     "<memoryBacking>\n"
     "  <hugepages>\n"
     "    <page size='2048' unit='KiB' nodeset='0'/>\n"
     "  </hugepages>\n"
     "  <nosharepages/>\n"
     "  <locked/>\n"
     "</memoryBacking>\n"
     "<vcpu>4</vcpu>\n"
     "<cputune>\n"
     "  <vcpupin vcpu='0' cpuset='1'/>\n"
     "  <vcpupin vcpu='1' cpuset='9'/>\n"
     "  <vcpupin vcpu='2' cpuset='2'/>\n"
     "  <vcpupin vcpu='3' cpuset='10'/>\n"
     "  <emulatorpin cpuset='1'/>\n"
     "  <vcpusched vcpus='1-3' scheduler='fifo' priority='50'/>\n"
     "</cputune>\n"
     "<numatune>\n"
     "  <memory mode='strict' nodeset='0'/>\n"
     "  <memnode cellid='0' mode='strict' nodeset='0'/>\n"
     "</numatune>\n"
     "<cpu mode='host-model'>\n"
     "  <topology sockets='4' cores='1' threads='1'/>\n"
     "  <numa>\n"
     "    <cell id='0' cpus='0-3' memory='2097152' unit='KiB' memAccess='shared'/>\n"
     "  </numa>\n"
     "</cpu>\n"
     "<clock offset='utc'>\n"
     "  <timer name='pit' tickpolicy='delay'/>\n"
     "  <timer name='rtc' tickpolicy='catchup'/>\n"
     "  <timer name='hpet' present='no'/>\n"
     "</clock>\n"
     "<devices>\n"
     "  <memballoon model='virtio'>\n"
     "    <stats period='10'/>\n"
     "  </memballoon>\n"
     "</devices>\n"},
    {"locked_memory", HOST_HT,
     FL(2, 2048, "\"hw:locked_memory\":\"true\",\"hw:mem_page_size\":\"2MB\""), SHARED_HT, 0, 0,
     "<memoryBacking>\n"
     "  <hugepages>\n"
     "    <page size='2048' unit='KiB' nodeset='0'/>\n"
     "  </hugepages>\n"
     "  <locked/>\n"
     "</memoryBacking>\n"
     "<vcpu>2</vcpu>\n"
     "<cputune>\n"
     "  <vcpupin vcpu='0' cpuset='0,8'/>\n"
     "  <vcpupin vcpu='1' cpuset='0,8'/>\n"
     "  <emulatorpin cpuset='0,8'/>\n"
     "</cputune>\n"
     "<numatune>\n"
     "  <memory mode='strict' nodeset='0'/>\n"
     "  <memnode cellid='0' mode='strict' nodeset='0'/>\n"
     "</numatune>\n"
     "<cpu mode='host-model'>\n"
     "  <topology sockets='2' cores='1' threads='1'/>\n"
     "  <numa>\n"
     "    <cell id='0' cpus='0-1' memory='2097152' unit='KiB' memAccess='shared'/>\n"
     "  </numa>\n"
     "</cpu>\n"
     "<clock offset='utc'>\n"
     "  <timer name='pit' tickpolicy='delay'/>\n"
     "  <timer name='rtc' tickpolicy='catchup'/>\n"
     "  <timer name='hpet' present='no'/>\n"
     "</clock>\n"
     "<devices>\n"
     "  <memballoon model='virtio'>\n"
     "    <stats period='10'/>\n"
     "  </memballoon>\n"
     "</devices>\n"},
    {"quotas", HOST_HT,
     FL(2, 2048,
        "\"hw:numa_nodes\":\"1\",\"quota:cpu_shares\":\"1024\",\"quota:cpu_period\":\"100000\","
        "\"quota:cpu_quota\":\"50000\",\"quota:disk_read_bytes_sec\":\"1024000\","
        "\"quota:disk_write_bytes_sec\":\"1024000\",\"quota:disk_total_iops_sec\":\"500\","
        "\"quota:vif_inbound_average\":\"10240\",\"quota:vif_inbound_burst\":\"1024\","
        "\"quota:vif_outbound_average\":\"10240\",\"quota:vif_outbound_peak\":\"20480\""),
     SHARED_HT, 0, 0,
     "<vcpu>2</vcpu>\n"
     "<cputune>\n"
     "  <shares>1024</shares>\n"
     "  <period>100000</period>\n"
     "  <quota>50000</quota>\n"
     "  <vcpupin vcpu='0' cpuset='0,8'/>\n"
     "  <vcpupin vcpu='1' cpuset='0,8'/>\n"
     "  <emulatorpin cpuset='0,8'/>\n"
     "</cputune>\n"
     "<numatune>\n"
     "  <memory mode='strict' nodeset='0'/>\n"
     "  <memnode cellid='0' mode='strict' nodeset='0'/>\n"
     "</numatune>\n"
     "<cpu mode='host-model'>\n"
     "  <topology sockets='2' cores='1' threads='1'/>\n"
     "  <numa>\n"
     "    <cell id='0' cpus='0-1' memory='2097152' unit='KiB'/>\n"
     "  </numa>\n"
     "</cpu>\n"
     "<clock offset='utc'>\n"
     "  <timer name='pit' tickpolicy='delay'/>\n"
     "  <timer name='rtc' tickpolicy='catchup'/>\n"
     "  <timer name='hpet' present='no'/>\n"
     "</clock>\n"
     "<devices>\n"
     "  <memballoon model='virtio'>\n"
     "    <stats period='10'/>\n"
     "  </memballoon>\n"
     "</devices>\n"},
    /* no guest NUMA topology: only <vcpu cpuset> (and the CPU topology) */
    {"no_numa", HOST_HT, FL(3, 1024, "\"hw:cpu_sockets\":\"1\""), SHARED_HT, 0, 0,
     "<vcpu cpuset='0,4,8,12'>3</vcpu>\n"
     "<cpu mode='host-model'>\n"
     "  <topology sockets='1' cores='3' threads='1'/>\n"
     "</cpu>\n"
     "<clock offset='utc'>\n"
     "  <timer name='pit' tickpolicy='delay'/>\n"
     "  <timer name='rtc' tickpolicy='catchup'/>\n"
     "  <timer name='hpet' present='no'/>\n"
     "</clock>\n"
     "<devices>\n"
     "  <memballoon model='virtio'>\n"
     "    <stats period='10'/>\n"
     "  </memballoon>\n"
     "</devices>\n"},
};

/* ------------------------------------------------------------ helpers */
static char *slurp_host(const char *name, size_t *len) {
    const char *top = getenv("top_srcdir");
    char path[4096];
    FILE *f;
    long n;
    char *buf;
    snprintf(path, sizeof(path), "%s/tests/data/hosts/%s", top ? top : ".", name);
    f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s (set top_srcdir)", path);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    ck_assert_int_ge(n, 0);
    rewind(f);
    buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static numafit_host_t *make_host(const char *spec) {
    numafit_host_t *h = NULL;
    numafit_error_t e;
    int rc;
    if (spec[0] == '@') {
        size_t n;
        char *buf = slurp_host(spec + 1, &n);
        rc = numafit_host_new_from_json(buf, n, 0, &h, &e);
        free(buf);
    } else {
        rc = numafit_host_new_synthetic(spec, 0, &h, &e);
    }
    ck_assert_msg(rc == 0, "host %s: %d %s", spec, rc, e.text);
    return h;
}

struct built {
    numafit_host_t *host;
    numafit_request_t *req;
    numafit_placement_t *p;
    numafit_domconf_t *conf;
};

static void build(const struct dcase *c, struct built *b) {
    numafit_error_t e;
    int rc;
    memset(b, 0, sizeof(*b));
    b->host = make_host(c->host);
    rc = numafit_request_new(c->flavor, strlen(c->flavor), NULL, 0, 0, &b->req, &e);
    ck_assert_msg(rc >= 0, "%s: request %d %s", c->name, rc, e.text);
    if (rc == 1) {
        rc = numafit_fit(b->host, b->req, NULL, 0, &b->p, &e);
        ck_assert_msg(rc == 1, "%s: fit %d %s", c->name, rc, e.text);
        ck_assert_int_eq(numafit_placement_set_uuid(b->p, "5f3c2a52-9f0e-4b39-9d7c-0b1fa6b0c001"),
                         0);
    }
    ck_assert_int_eq(numafit_domconf_new(&b->conf), 0);
    ck_assert_int_eq(numafit_domconf_set_cpu_shared_set(b->conf, c->shared, &e), 0);
    if (c->priority)
        ck_assert_int_eq(numafit_domconf_set_realtime_priority(b->conf, c->priority), 0);
}

static void unbuild(struct built *b) {
    numafit_placement_free(b->p);
    numafit_request_free(b->req);
    numafit_host_free(b->host);
    numafit_domconf_free(b->conf);
}

static char *render(const struct dcase *c, struct built *b, unsigned flags) {
    numafit_error_t e;
    char *xml = NULL;
    int rc = numafit_domain_xml(b->host, b->req, b->p, c->flavor, strlen(c->flavor), NULL, 0,
                                b->conf, flags, &xml, &e);
    ck_assert_msg(rc == 0, "%s: domain_xml %d %s (%s) [%s]", c->name, rc, e.text, e.exception,
                  e.where);
    return xml;
}

static void print_c_string(const char *s) {
    printf("    /* --- */\n    \"");
    for (; *s; s++) {
        if (*s == '\n')
            printf(*(s + 1) ? "\\n\"\n    \"" : "\\n\"");
        else if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else
            putchar(*s);
    }
    printf(",\n");
}

/* ------------------------------------------------------------ goldens */
START_TEST(test_golden) {
    const struct dcase *c = &cases[_i];
    struct built b;
    char *xml;
    const char *want = c->expected;
    build(c, &b);
    xml = render(c, &b, c->flags);
    if (getenv("NUMAFIT_DOMAIN_PRINT")) {
        printf("/* %s */\n", c->name);
        print_c_string(xml);
    } else {
        ck_assert_msg(strcmp(xml, want) == 0, "%s:\n--- got\n%s--- want\n%s", c->name, xml, want);
    }
    /* deterministic */
    char *again = render(c, &b, c->flags);
    ck_assert_str_eq(xml, again);
    numafit_free(again);
    numafit_free(xml);
    unbuild(&b);
}
END_TEST

START_TEST(test_device_helpers) {
    const char *fl = FL(1, 512,
                        "\"quota:disk_read_bytes_sec\":\" 1_024_000 \","
                        "\"quota:disk_write_iops_sec\":200,"
                        "\"quota:vif_inbound_average\":\"100\",\"quota:vif_inbound_peak\":\"200\","
                        "\"quota:vif_outbound_peak\":\"300\"");
    numafit_error_t e;
    char *x = NULL;
    ck_assert_int_eq(numafit_domain_disk_iotune_xml(fl, strlen(fl), 0, &x, &e), 2);
    ck_assert_str_eq(x, "<iotune>\n"
                        "  <read_bytes_sec>1024000</read_bytes_sec>\n"
                        "  <write_iops_sec>200</write_iops_sec>\n"
                        "</iotune>\n");
    numafit_free(x);
    /* the outbound peak without an average is dropped, as nova does */
    ck_assert_int_eq(numafit_domain_interface_bandwidth_xml(fl, strlen(fl), 0, &x, &e), 2);
    ck_assert_str_eq(x, "<bandwidth>\n"
                        "  <inbound average='100' peak='200'/>\n"
                        "</bandwidth>\n");
    numafit_free(x);
    const char *none = FL(1, 512, "\"hw:cpu_policy\":\"shared\"");
    ck_assert_int_eq(numafit_domain_disk_iotune_xml(none, strlen(none), 0, &x, &e), 0);
    ck_assert_str_eq(x, "");
    numafit_free(x);
    ck_assert_int_eq(numafit_domain_interface_bandwidth_xml(none, strlen(none), 0, &x, &e), 0);
    ck_assert_str_eq(x, "");
    numafit_free(x);
    /* total with read: libvirt refuses it; nova writes it */
    const char *both =
        FL(1, 512, "\"quota:disk_total_bytes_sec\":\"5\",\"quota:disk_read_bytes_sec\":\"6\"");
    ck_assert_int_eq(numafit_domain_disk_iotune_xml(both, strlen(both), 0, &x, &e), -ERANGE);
    ck_assert_str_eq(e.exception, "libvirtError");
    ck_assert_str_eq(e.where, "quota:disk_total_bytes_sec");
    ck_assert_int_eq(
        numafit_domain_disk_iotune_xml(both, strlen(both), NUMAFIT_DOMAIN_NOVA_EXACT, &x, &e), 2);
    numafit_free(x);
    ck_assert_int_eq(numafit_domain_disk_iotune_xml(NULL, 0, 0, &x, &e), -EINVAL);
    ck_assert_int_eq(numafit_domain_disk_iotune_xml(none, strlen(none), 1u << 7, &x, &e), -EINVAL);
    ck_assert_int_eq(numafit_domain_disk_iotune_xml("{", 1, 0, &x, &e), -EBADMSG);
}
END_TEST

/* ------------------------------------------------------------ quota validation */
struct qcase {
    const char *key, *value;
    int rc;
    const char *exception, *text; /* text: a substring */
};

static const struct qcase qcases[] = {
    {"quota:cpu_shares", "abc", -EINVAL, "ValidationError",
     "Validation failed; 'abc' is not a valid integer value."},
    {"quota:cpu_shares", "-3", -EINVAL, "ValidationError",
     "Validation failed; '-3' is less than the min value of '0'."},
    {"quota:cpu_period", "-0010", -EINVAL, "ValidationError", "'-10' is less than the min"},
    {"quota:cpu_shares", "1.5", -EINVAL, "ValidationError", "not a valid integer"},
    {"quota:cpu_shares", "1__0", -EINVAL, "ValidationError", "not a valid integer"},
    {"quota:cpu_shares", "_10", -EINVAL, "ValidationError", "not a valid integer"},
    {"quota:cpu_shares", "", -EINVAL, "ValidationError", "not a valid integer"},
    {"quota:cpu_shares", "1", -ERANGE, "libvirtError", "[2, 262144]"},
    {"quota:cpu_shares", "262145", -ERANGE, "libvirtError", "[2, 262144]"},
    {"quota:cpu_period", "999", -ERANGE, "libvirtError", "[1000, 1000000]"},
    {"quota:cpu_quota", "999", -ERANGE, "libvirtError", "[1000, 17592186044415]"},
    {"quota:cpu_quota", "99999999999999999999999", -ERANGE, "libvirtError", "64-bit"},
    {"quota:disk_read_iops_sec", "x", -EINVAL, "ValidationError", "not a valid integer"},
    {"quota:vif_outbound_burst", "-1", -EINVAL, "ValidationError", "less than the min"},
    /* accepted: Python int() spellings, nova's "unlimited", libvirt's "unset" */
    {"quota:cpu_quota", "-1", 0, "", ""},
    {"quota:cpu_quota", "-12345", 0, "", ""},
    {"quota:cpu_shares", " +1_024\\t", 0, "", ""},
    {"quota:cpu_period", "0", 0, "", ""},
    {"quota:cpu_shares", "0", 0, "", ""},
    {"quota:disk_total_bytes_sec", "0", 0, "", ""},
};

START_TEST(test_quota_values) {
    const struct qcase *q = &qcases[_i];
    char flavor[512];
    numafit_host_t *h = make_host(HOST_HT);
    numafit_request_t *r = NULL;
    numafit_domconf_t *conf = NULL;
    numafit_error_t e;
    char *xml = NULL;
    int rc;
    snprintf(flavor, sizeof(flavor),
             "{\"vcpus\":1,\"memory_mb\":512,\"extra_specs\":{\"%s\":\"%s\","
             "\"quota:vif_inbound_average\":\"1\"}}",
             q->key, q->value);
    ck_assert_int_eq(numafit_request_new(flavor, strlen(flavor), NULL, 0, 0, &r, &e), 0);
    ck_assert_int_eq(numafit_domconf_new(&conf), 0);
    rc = numafit_domain_xml(h, r, NULL, flavor, strlen(flavor), NULL, 0, conf, NUMAFIT_DOMAIN_FULL,
                            &xml, &e);
    ck_assert_msg(rc == q->rc, "%s=%s: rc %d want %d (%s)", q->key, q->value, rc, q->rc, e.text);
    if (rc < 0) {
        ck_assert_str_eq(e.exception, q->exception);
        ck_assert_str_eq(e.where, q->key);
        ck_assert_msg(strstr(e.text, q->text), "%s: text '%s' lacks '%s'", q->key, e.text, q->text);
        if (rc == -ERANGE && strcmp(q->value, "99999999999999999999999") != 0) {
            /* nova writes it anyway */
            rc = numafit_domain_xml(h, r, NULL, flavor, strlen(flavor), NULL, 0, conf,
                                    NUMAFIT_DOMAIN_NOVA_EXACT, &xml, &e);
            ck_assert_int_eq(rc, 0);
        }
    }
    numafit_free(xml);
    numafit_domconf_free(conf);
    numafit_request_free(r);
    numafit_host_free(h);
}
END_TEST

/* ------------------------------------------------------------ nova's exceptions */
/* Fit flavor on host and write its XML: the return of numafit_domain_xml,
 * with the XML in *ret_xml when ret_xml is not NULL (else freed). */
static int render_xml(const char *host, const char *flavor, numafit_domconf_t *conf, unsigned flags,
                      char **ret_xml, numafit_error_t *e) {
    numafit_host_t *h = make_host(host);
    numafit_request_t *r = NULL;
    numafit_placement_t *p = NULL;
    char *xml = NULL;
    int rc = numafit_request_new(flavor, strlen(flavor), NULL, 0, 0, &r, e);
    ck_assert_int_ge(rc, 0);
    if (rc == 1)
        ck_assert_int_eq(numafit_fit(h, r, NULL, 0, &p, e), 1);
    rc = numafit_domain_xml(h, r, p, flavor, strlen(flavor), NULL, 0, conf, flags, &xml, e);
    if (ret_xml)
        *ret_xml = xml;
    else
        numafit_free(xml);
    numafit_placement_free(p);
    numafit_request_free(r);
    numafit_host_free(h);
    return rc;
}

static int render_err(const char *host, const char *flavor, numafit_domconf_t *conf, unsigned flags,
                      numafit_error_t *e) {
    return render_xml(host, flavor, conf, flags, NULL, e);
}

START_TEST(test_nova_exceptions) {
    numafit_domconf_t *conf = NULL;
    numafit_error_t e;
    const char *rt_share =
        FL(2, 2048,
           "\"hw:cpu_policy\":\"dedicated\",\"hw:cpu_realtime\":\"yes\","
           "\"hw:cpu_realtime_mask\":\"^0\",\"hw:emulator_threads_policy\":\"share\"");
    const char *share = FL(2, 2048,
                           "\"hw:cpu_policy\":\"dedicated\","
                           "\"hw:emulator_threads_policy\":\"share\"");
    const char *pages = FL(2, 2048, "\"hw:mem_page_size\":\"2MB\"");
    const char *cpuq = FL(1, 512, "\"quota:cpu_period\":\"100000\"");
    const char *topo = FL(4, 512,
                          "\"hw:cpu_max_sockets\":\"1\",\"hw:cpu_max_cores\":\"1\","
                          "\"hw:cpu_max_threads\":\"1\"");

    ck_assert_int_eq(numafit_domconf_new(&conf), 0);
    /* realtime + share without cpu_shared_set (driver.py memory backing) */
    ck_assert_int_eq(render_err(HOST_HT, rt_share, conf, 0, &e), -EINVAL);
    ck_assert_str_eq(e.exception, "RealtimeMaskNotFoundOrInvalid");
    /* with it, fine: the emulator threads go to the shared set */
    ck_assert_int_eq(numafit_domconf_set_cpu_shared_set(conf, SHARED_HT, &e), 0);
    ck_assert_int_eq(render_err(HOST_HT, rt_share, conf, 0, &e), 0);
    /* share with the shared set offline */
    ck_assert_int_eq(numafit_domconf_set_online_cpus(conf, "1-3", &e), 0);
    ck_assert_int_eq(numafit_domconf_set_cpu_shared_set(conf, NULL, &e), 0);
    ck_assert_int_eq(numafit_domconf_set_vcpu_pin_set(conf, NULL, &e), 0);
    ck_assert_int_eq(render_err(HOST_HT, share, conf, 0, &e), 0);
    ck_assert_int_eq(numafit_domconf_set_cpu_shared_set(conf, "0,4", &e), 0);
    /* _get_vcpu_available refuses a shared set that is not online first */
    ck_assert_int_eq(render_err(HOST_HT, share, conf, 0, &e), -EINVAL);
    ck_assert_str_eq(e.exception, "Invalid");
    ck_assert_msg(strstr(e.text, "Online cpuset(s): [1, 2, 3]"), "%s", e.text);
    ck_assert_int_eq(numafit_domconf_set_online_cpus(conf, NULL, &e), 0);
    ck_assert_int_eq(render_err(HOST_HT, share, conf, 0, &e), 0);
    /* hugepages with file-backed memory */
    ck_assert_int_eq(numafit_domconf_set_file_backed_memory(conf, 1024), 0);
    ck_assert_int_eq(render_err(HOST_HT, pages, conf, 0, &e), -EINVAL);
    ck_assert_str_eq(e.exception, "MemoryPagesUnsupported");
    ck_assert_int_eq(numafit_domconf_set_file_backed_memory(conf, 0), 0);
    /* no cgroup cpu controller */
    ck_assert_int_eq(numafit_domconf_set_cpu_control(conf, 0), 0);
    ck_assert_int_eq(render_err(HOST_HT, cpuq, conf, 0, &e), -EINVAL);
    ck_assert_str_eq(e.exception, "UnsupportedHostCPUControlPolicy");
    ck_assert_int_eq(numafit_domconf_set_cpu_control(conf, 1), 0);
    ck_assert_int_eq(render_err(HOST_HT, cpuq, conf, 0, &e), 0);
    /* the CPU topology's own exceptions come through */
    ck_assert_int_eq(render_err(HOST_HT, topo, conf, 0, &e), -EINVAL);
    ck_assert_str_eq(e.exception, "ImageVCPULimitsRangeImpossible");
    numafit_domconf_free(conf);
}
END_TEST

START_TEST(test_arguments) {
    const char *fl = FL(2, 2048, "\"hw:numa_nodes\":\"1\"");
    numafit_host_t *h = make_host(HOST_HT);
    numafit_request_t *r = NULL;
    numafit_domconf_t *conf = NULL;
    numafit_error_t e;
    char *xml = NULL;
    ck_assert_int_eq(numafit_request_new(fl, strlen(fl), NULL, 0, 0, &r, &e), 1);
    /* a NUMA request needs its placement */
    ck_assert_int_eq(numafit_domain_xml(h, r, NULL, fl, strlen(fl), NULL, 0, NULL, 0, &xml, &e),
                     -EINVAL);
    ck_assert_ptr_null(xml);
    ck_assert_int_eq(numafit_domain_xml(NULL, r, NULL, fl, strlen(fl), NULL, 0, NULL, 0, &xml, &e),
                     -EINVAL);
    ck_assert_int_eq(
        numafit_domain_xml(h, r, NULL, fl, strlen(fl), NULL, 0, NULL, 1u << 9, &xml, &e), -EINVAL);
    /* conf setters */
    ck_assert_int_eq(numafit_domconf_new(&conf), 0);
    ck_assert_int_eq(numafit_domconf_set_cpu_shared_set(conf, "0-3,^0-3", &e), -EINVAL);
    ck_assert_str_eq(e.exception, "Invalid");
    ck_assert_int_eq(numafit_domconf_set_cpu_shared_set(conf, "1-", &e), -EBADMSG);
    ck_assert_int_eq(numafit_domconf_set_vcpu_pin_set(conf, "99999", &e), -ERANGE);
    ck_assert_int_eq(numafit_domconf_set_online_cpus(conf, "0-3,^0-3", &e), 0);
    ck_assert_int_eq(numafit_domconf_set_realtime_priority(conf, 0), -ERANGE);
    ck_assert_int_eq(numafit_domconf_set_realtime_priority(conf, 100), -ERANGE);
    ck_assert_int_eq(numafit_domconf_set_realtime_priority(conf, 99), 0);
    ck_assert_int_eq(numafit_domconf_set_domain_type(conf, "k'vm"), -EINVAL);
    ck_assert_int_eq(numafit_domconf_set_domain_type(conf, ""), -EINVAL);
    ck_assert_int_eq(numafit_domconf_set_domain_type(conf, "qemu"), 0);
    ck_assert_int_eq(numafit_domconf_set_name(conf, "a/b"), -EINVAL);
    ck_assert_int_eq(numafit_domconf_set_name(conf, "caf\xc3\xa9-\xf0\x9f\x96\xa5"), 0);
    ck_assert_int_eq(numafit_domconf_set_name(conf, "<&'\">"), 0);
    /* not UTF-8, or characters XML refuses: the XML would not be well-formed */
    ck_assert_int_eq(numafit_domconf_set_name(conf, "\xcb"), -EINVAL);
    ck_assert_int_eq(numafit_domconf_set_name(conf, "a\xc0\xaf"
                                                    "b"),
                     -EINVAL);
    ck_assert_int_eq(numafit_domconf_set_name(conf, "\xed\xa0\x80"), -EINVAL);
    ck_assert_int_eq(numafit_domconf_set_name(conf, "\xef\xbf\xbf"), -EINVAL);
    ck_assert_int_eq(numafit_domconf_set_uuid(conf, "not-a-uuid"), -EINVAL);
    ck_assert_int_eq(numafit_domconf_set_uuid(conf, "5f3c2a52-9f0e-4b39-9d7c-0b1fa6b0c0zz"),
                     -EINVAL);
    ck_assert_int_eq(numafit_domconf_set_uuid(conf, "5f3c2a52-9f0e-4b39-9d7c-0b1fa6b0c002"), 0);
    ck_assert_int_eq(numafit_domconf_set_cpu_mode(conf, "bogus"), -EINVAL);
    ck_assert_int_eq(numafit_domconf_set_cpu_mode(conf, "host-passthrough"), 0);
    ck_assert_int_eq(numafit_domconf_set_realtime_priority(NULL, 1), -EINVAL);
    numafit_domconf_free(NULL);
    /* names are escaped */
    numafit_placement_t *p = NULL;
    ck_assert_int_eq(numafit_fit(h, r, NULL, 0, &p, &e), 1);
    ck_assert_int_eq(
        numafit_domain_xml(h, r, p, fl, strlen(fl), NULL, 0, conf, NUMAFIT_DOMAIN_FULL, &xml, &e),
        0);
    ck_assert_ptr_nonnull(strstr(xml, "<domain type='qemu'>\n"
                                      "  <name>&lt;&amp;&apos;&quot;&gt;</name>\n"
                                      "  <uuid>5f3c2a52-9f0e-4b39-9d7c-0b1fa6b0c002</uuid>\n"));
    ck_assert_ptr_nonnull(strstr(xml, "<cpu mode='host-passthrough'>\n"));
    numafit_free(xml);
    numafit_placement_free(p);
    numafit_domconf_free(conf);
    numafit_request_free(r);
    numafit_host_free(h);
}
END_TEST

/* A cpu_shared_set with offline CPUs: nova's message lists both sets, cut
 * to fit. The fuzzer found the cut list one byte past its buffer (shared
 * set 1-109, CPU 8 online); every length up to a cut list is tried here
 * (the ASan build of CI catches a byte too many). */
START_TEST(test_offline_list_cut) {
    const char *fl = FL(2, 2048, "\"hw:numa_nodes\":\"1\"");
    numafit_domconf_t *conf = NULL;
    numafit_error_t e;
    char spec[32];
    ck_assert_int_eq(numafit_domconf_new(&conf), 0);
    ck_assert_int_eq(numafit_domconf_set_online_cpus(conf, "8", &e), 0);
    for (int last = 9; last <= 400; last++) {
        snprintf(spec, sizeof(spec), "1-%d", last);
        ck_assert_int_eq(numafit_domconf_set_cpu_shared_set(conf, spec, &e), 0);
        ck_assert_int_eq(render_err(HOST_HT, fl, conf, 0, &e), -EINVAL);
        ck_assert_str_eq(e.exception, "Invalid");
        ck_assert_ptr_nonnull(
            strstr(e.text, "Online cpuset(s): [8], configured cpuset(s): [1, 2, "));
        if (last >= 40)
            ck_assert_ptr_nonnull(strstr(e.text, ", ...]"));
    }
    numafit_domconf_free(conf);
}
END_TEST

/* numafit_domconf_set_from_nova_conf: the nova.conf settings, nova's
 * defaults for those it leaves out, the others kept, all or nothing. */
START_TEST(test_nova_conf) {
    const char *rt = FL(4, 2048,
                        "\"hw:cpu_policy\":\"dedicated\",\"hw:cpu_realtime\":\"yes\","
                        "\"hw:cpu_realtime_mask\":\"^0\",\"hw:emulator_threads_policy\":\"share\"");
    const char *text = "[DEFAULT]\n"
                       "virt_type = xen\n" /* another section: ignored, as nova does */
                       "[compute]\n"
                       "cpu_shared_set = 4,12\n"
                       "[libvirt]\n"
                       "realtime_scheduler_priority =  +5_0 \n"
                       "virt_type: qemu\n"
                       "cpu_mode = \"host-passthrough\"\n";
    static const char *const bad[] = {
        "[libvirt]\nrealtime_scheduler_priority = 0x5\n",    /* ConfigFileValueError */
        "[libvirt]\nrealtime_scheduler_priority = 100\n",    /* libvirt's 1..99 */
        "[libvirt]\nvirt_type = xen\n",                      /* not one of nova's choices */
        "[libvirt]\ncpu_mode = maximum\n",                   /* libvirt's, not nova's */
        "[libvirt]\nfile_backed_memory = -1\n",              /* min=0 */
        "[compute]\ncpu_shared_set = 1-\n",                  /* cpu spec syntax */
        "[libvirt]\nvirt_type = qemu\nnot an option line\n", /* oslo syntax */
    };
    static const int bad_rc[] = {-EINVAL, -ERANGE, -EINVAL, -EINVAL, -ERANGE, -EBADMSG, -EBADMSG};
    static const char *const bad_exc[] = {"ConfigFileValueError",
                                          "",
                                          "ConfigFileValueError",
                                          "ConfigFileValueError",
                                          "ConfigFileValueError",
                                          "Invalid",
                                          ""};
    numafit_domconf_t *conf = NULL;
    numafit_error_t e;
    char *xml = NULL, *again = NULL;
    ck_assert_int_eq(numafit_domconf_new(&conf), 0);
    ck_assert_int_eq(numafit_domconf_set_name(conf, "kept"), 0);
    ck_assert_int_eq(numafit_domconf_set_from_nova_conf(conf, text, strlen(text), 0, &e), 0);
    ck_assert_int_eq(render_xml(HOST_HT, rt, conf, NUMAFIT_DOMAIN_FULL, &xml, &e), 0);
    ck_assert_ptr_nonnull(strstr(xml, "<domain type='qemu'>\n  <name>kept</name>\n"));
    ck_assert_ptr_nonnull(strstr(xml, "<emulatorpin cpuset='4,12'/>"));
    ck_assert_ptr_nonnull(strstr(xml, "scheduler='fifo' priority='50'/>"));
    ck_assert_ptr_nonnull(strstr(xml, "<cpu mode='host-passthrough'>"));
    /* a refused text changes nothing */
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ck_assert_int_eq(numafit_domconf_set_from_nova_conf(conf, bad[i], strlen(bad[i]), 0, &e),
                         bad_rc[i]);
        ck_assert_str_eq(e.exception, bad_exc[i]);
        ck_assert_int_eq(render_xml(HOST_HT, rt, conf, NUMAFIT_DOMAIN_FULL, &again, &e), 0);
        ck_assert_str_eq(again, xml);
        numafit_free(again);
    }
    numafit_free(xml);
    ck_assert_int_eq(numafit_domconf_set_from_nova_conf(conf, "x", 1, 1, &e), -EINVAL);
    ck_assert_int_eq(numafit_domconf_set_from_nova_conf(NULL, "", 0, 0, &e), -EINVAL);
    ck_assert_int_eq(numafit_domconf_set_from_nova_conf(conf, "a\0b", 3, 0, &e), -EBADMSG);
    ck_assert_int_eq(
        numafit_domconf_set_from_nova_conf(conf, "", NUMAFIT_NOVA_CONF_MAX + 1u, 0, &e), -ERANGE);
    /* an empty text: nova's defaults (no shared set: the realtime share
     * flavor is refused as nova refuses it; kvm; priority 1; no mode) */
    ck_assert_int_eq(numafit_domconf_set_from_nova_conf(conf, NULL, 0, 0, &e), 0);
    ck_assert_int_eq(render_xml(HOST_HT, rt, conf, NUMAFIT_DOMAIN_FULL, NULL, &e), -EINVAL);
    ck_assert_str_eq(e.exception, "RealtimeMaskNotFoundOrInvalid");
    const char *none = "[compute]\ncpu_shared_set=0\n[libvirt]\ncpu_mode=none\n"
                       "realtime_scheduler_priority=\n";
    ck_assert_int_eq(numafit_domconf_set_from_nova_conf(conf, none, strlen(none), 0, &e), 0);
    ck_assert_int_eq(render_xml(HOST_HT, rt, conf, NUMAFIT_DOMAIN_FULL, &xml, &e), 0);
    ck_assert_ptr_nonnull(strstr(xml, "<domain type='kvm'>\n  <name>kept</name>\n"));
    ck_assert_ptr_nonnull(strstr(xml, "scheduler='fifo' priority='1'/>"));
    ck_assert_ptr_nonnull(strstr(xml, "<cpu>"));
    /* the balloon inside the whole domain's <devices>, indented as its parent's child */
    ck_assert_ptr_nonnull(strstr(xml, "\n  <devices>\n    <memballoon model='virtio'>\n"
                                      "      <stats period='10'/>\n    </memballoon>\n"
                                      "  </devices>\n</domain>\n"));
    numafit_free(xml);
    numafit_domconf_free(conf);
}
END_TEST

/* lxc and parallels without a CPU mode write no <cpu>, so no guest NUMA
 * cells: the placement's <numatune> memnodes are what nova writes, but
 * libvirt refuses them ("Element 'memnode' is invalid without any guest
 * NUMA cells"; found by fuzz_domain) */
START_TEST(test_no_cpu_with_numa) {
    const char *ded = FL(2, 1024, "\"hw:cpu_policy\":\"dedicated\"");
    const char *plain = FL(2, 1024, "");
    static const char *const virts[] = {"lxc", "parallels"};
    numafit_domconf_t *conf = NULL;
    numafit_error_t e;
    char *xml = NULL;
    ck_assert_int_eq(numafit_domconf_new(&conf), 0);
    for (size_t i = 0; i < 2; i++) {
        ck_assert_int_eq(numafit_domconf_set_virt_type(conf, virts[i]), 0);
        ck_assert_int_eq(render_err(HOST_HT, ded, conf, NUMAFIT_DOMAIN_FULL, &e), -ERANGE);
        ck_assert_str_eq(e.exception, "libvirtError");
        ck_assert_str_eq(e.where, "[libvirt] virt_type");
        ck_assert_ptr_nonnull(strstr(e.text, virts[i]));
        ck_assert_int_eq(render_err(HOST_HT, ded, conf, 0, &e), -ERANGE);
        /* nova's XML with NOVA_EXACT: memnodes, no <cpu> */
        ck_assert_int_eq(render_xml(HOST_HT, ded, conf, NUMAFIT_DOMAIN_NOVA_EXACT, &xml, &e), 0);
        ck_assert_ptr_nonnull(strstr(xml, "<memnode cellid='0'"));
        ck_assert_ptr_null(strstr(xml, "<cpu>"));
        ck_assert_ptr_null(strstr(xml, "<cpu "));
        numafit_free(xml);
        /* a guest without NUMA topology is fine */
        ck_assert_int_eq(render_xml(HOST_HT, plain, conf, NUMAFIT_DOMAIN_FULL, &xml, &e), 0);
        ck_assert_ptr_null(strstr(xml, "<memnode"));
        ck_assert_ptr_null(strstr(xml, "<cpu>"));
        ck_assert_ptr_null(strstr(xml, "<cpu "));
        numafit_free(xml);
    }
    numafit_domconf_free(conf);
}
END_TEST

/* A flavor of memory_mb 0 (nova's API refuses it): a whole domain of
 * <memory> 0 is refused by libvirt (found by fuzz_domain) */
START_TEST(test_memory_zero) {
    const char *zero = "{\"vcpus\":8,\"memory_mb\":0}";
    numafit_error_t e;
    char *xml = NULL;
    ck_assert_int_eq(render_err(HOST_HT, zero, NULL, NUMAFIT_DOMAIN_FULL, &e), -ERANGE);
    ck_assert_str_eq(e.exception, "libvirtError");
    ck_assert_str_eq(e.where, "memory_mb");
    ck_assert_int_eq(render_xml(HOST_HT, zero, NULL, 0, &xml, &e), 0); /* fragments */
    numafit_free(xml);
    ck_assert_int_eq(
        render_xml(HOST_HT, zero, NULL, NUMAFIT_DOMAIN_FULL | NUMAFIT_DOMAIN_NOVA_EXACT, &xml, &e),
        0);
    ck_assert_ptr_nonnull(strstr(xml, "<memory unit='KiB'>0</memory>"));
    numafit_free(xml);
}
END_TEST

/* ------------------------------------------------------------ real libvirt */
#ifdef NUMAFIT_TEST_LIBVIRT

static void quiet_libvirt(void *opaque, virErrorPtr err) {
    (void)opaque;
    (void)err;
}

/* A cpuset attribute in canonical form ("" when absent). */
static char *canon_set(const char *s) {
    numafit_cpuset_t *set = NULL;
    char *out = NULL;
    if (!s)
        return strdup("");
    ck_assert_msg(numafit_cpuset_parse(s, 0, &set, NULL) == 0, "bad cpuset '%s'", s);
    ck_assert_int_eq(numafit_cpuset_format(set, 0, &out), 0);
    numafit_cpuset_free(set);
    char *r = strdup(out);
    numafit_free(out);
    return r;
}

/* "k1=v1;k2=v2;..." for the nodes at xpath (k: key attribute or text, v: a
 * cpuset attribute in canonical form, or the text); vcpusched entries are
 * merged into one set per priority, as libvirt splits them. */
static char *collect(xmlDocPtr doc, const char *xpath, const char *key, const char *val, bool isset,
                     bool merge) {
    xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
    xmlXPathObjectPtr obj = xmlXPathEvalExpression((const xmlChar *)xpath, ctx);
    char *out = calloc(1, 65536);
    numafit_cpuset_t *merged = NULL;
    ck_assert_ptr_nonnull(obj);
    ck_assert_int_eq(numafit_cpuset_new(&merged), 0);
    for (int i = 0; obj->nodesetval && i < obj->nodesetval->nodeNr; i++) {
        xmlNodePtr n = obj->nodesetval->nodeTab[i];
        xmlChar *k = key ? xmlGetProp(n, (const xmlChar *)key) : NULL;
        xmlChar *v = val ? xmlGetProp(n, (const xmlChar *)val) : xmlNodeGetContent(n);
        if (merge) {
            numafit_cpuset_t *s = NULL;
            int cpu = -1;
            ck_assert_int_eq(numafit_cpuset_parse((const char *)v, 0, &s, NULL), 0);
            while ((cpu = numafit_cpuset_next(s, cpu)) >= 0)
                ck_assert_int_eq(numafit_cpuset_add(merged, (unsigned)cpu), 0);
            numafit_cpuset_free(s);
            snprintf(out, 65536, "prio=%s", k ? (const char *)k : "");
        } else {
            char *cv = isset ? canon_set((const char *)v) : strdup(v ? (const char *)v : "");
            size_t len = strlen(out);
            snprintf(out + len, 65536 - len, "%s=%s;", k ? (const char *)k : "", cv);
            free(cv);
        }
        xmlFree(k);
        xmlFree(v);
    }
    if (merge) {
        char *f = NULL;
        size_t len = strlen(out);
        ck_assert_int_eq(numafit_cpuset_format(merged, 0, &f), 0);
        snprintf(out + len, 65536 - len, ";vcpus=%s", f);
        numafit_free(f);
    }
    numafit_cpuset_free(merged);
    xmlXPathFreeObject(obj);
    xmlXPathFreeContext(ctx);
    return out;
}

static const struct {
    const char *xpath, *key, *val;
    bool isset, merge;
} probes[] = {
    {"/domain/cputune/vcpupin", "vcpu", "cpuset", true, false},
    {"/domain/cputune/emulatorpin", NULL, "cpuset", true, false},
    {"/domain/cputune/vcpusched", "priority", "vcpus", true, true},
    {"/domain/cputune/shares", NULL, NULL, false, false},
    {"/domain/cputune/period", NULL, NULL, false, false},
    {"/domain/cputune/quota", NULL, NULL, false, false},
    {"/domain/vcpu", NULL, "cpuset", true, false},
    {"/domain/vcpu", NULL, NULL, false, false},
    {"/domain/numatune/memory", "mode", "nodeset", true, false},
    {"/domain/numatune/memnode", "cellid", "nodeset", true, false},
    {"/domain/numatune/memnode", "cellid", "mode", false, false},
    {"/domain/memoryBacking/hugepages/page", "size", "nodeset", true, false},
    {"/domain/memoryBacking/hugepages/page", "size", "unit", false, false},
    {"/domain/memoryBacking/locked", NULL, NULL, false, false},
    {"/domain/memoryBacking/nosharepages", NULL, NULL, false, false},
    {"/domain/cpu/numa/cell", "id", "cpus", true, false},
    {"/domain/cpu/numa/cell", "id", "memory", false, false},
    {"/domain/cpu/numa/cell", "id", "memAccess", false, false},
    {"/domain/cpu/topology", "sockets", "cores", false, false},
    {"/domain/cpu/topology", "threads", NULL, false, false},
    {"/domain/devices/disk/iotune/*", NULL, NULL, false, false},
    {"/domain/devices/interface/bandwidth/inbound", "average", "peak", false, false},
    {"/domain/devices/interface/bandwidth/inbound", "average", "burst", false, false},
    {"/domain/devices/interface/bandwidth/outbound", "average", "peak", false, false},
    {"/domain/devices/interface/bandwidth/outbound", "average", "burst", false, false},
};

static void validate_schema(const char *name, const char *xml) {
    char path[256], cmd[512];
    FILE *f;
    int st;
    if (access("/usr/bin/virt-xml-validate", X_OK) != 0)
        return; /* libvirt-clients not installed: skip this part */
    snprintf(path, sizeof(path), "/tmp/numafit-dom-%ld-%s.xml", (long)getpid(), name);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(xml, f);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "/usr/bin/virt-xml-validate %s domain >/dev/null 2>&1", path);
    st = system(cmd);
    ck_assert_msg(st == 0, "%s: virt-xml-validate refuses %s:\n%s", name, path, xml);
    unlink(path);
}

/* A whole domain defined on libvirt's test driver and read back: ours and
 * theirs parsed for the probes (label names the case in failures). */
struct defined {
    virConnectPtr conn;
    virDomainPtr dom;
    char *back; /* libvirt's XML of the defined domain */
    xmlDocPtr ours, theirs;
};

static void define_back(const char *label, const char *xml, struct defined *d) {
    d->conn = virConnectOpen("test:///default");
    ck_assert_ptr_nonnull(d->conn);
    d->dom = virDomainDefineXML(d->conn, xml);
    ck_assert_msg(d->dom != NULL, "%s: libvirt refuses the domain: %s\n%s", label,
                  virGetLastErrorMessage(), xml);
    d->back = virDomainGetXMLDesc(d->dom, 0);
    ck_assert_ptr_nonnull(d->back);
    d->ours = xmlReadMemory(xml, (int)strlen(xml), "ours.xml", NULL, XML_PARSE_NONET);
    d->theirs = xmlReadMemory(d->back, (int)strlen(d->back), "libvirt.xml", NULL, XML_PARSE_NONET);
    ck_assert_ptr_nonnull(d->ours);
    ck_assert_ptr_nonnull(d->theirs);
}

static void undefine(struct defined *d) {
    xmlFreeDoc(d->ours);
    xmlFreeDoc(d->theirs);
    ck_assert_int_eq(virDomainUndefine(d->dom), 0);
    virDomainFree(d->dom);
    virConnectClose(d->conn);
    free(d->back);
}

START_TEST(test_libvirt_define) {
    const struct dcase *c = &cases[_i];
    struct built b;
    struct defined d;
    char *xml, name[64];

    virSetErrorFunc(NULL, quiet_libvirt); /* test main only; never in the library */
    build(c, &b);
    snprintf(name, sizeof(name), "numafit-%s", c->name);
    ck_assert_int_eq(numafit_domconf_set_domain_type(b.conf, "test"), 0);
    ck_assert_int_eq(numafit_domconf_set_name(b.conf, name), 0);
    xml = render(c, &b, c->flags | NUMAFIT_DOMAIN_FULL);
    validate_schema(c->name, xml);

    define_back(c->name, xml, &d);
    for (size_t k = 0; k < sizeof(probes) / sizeof(probes[0]); k++) {
        char *a = collect(d.ours, probes[k].xpath, probes[k].key, probes[k].val, probes[k].isset,
                          probes[k].merge);
        char *t = collect(d.theirs, probes[k].xpath, probes[k].key, probes[k].val, probes[k].isset,
                          probes[k].merge);
        ck_assert_msg(strcmp(a, t) == 0, "%s: %s: ours '%s', libvirt '%s'\n%s", c->name,
                      probes[k].xpath, a, t, d.back);
        free(a);
        free(t);
    }
    /* the pinning is really there */
    if (b.p && numafit_placement_get_pin(b.p, 0) >= 0) {
        char want[64];
        snprintf(want, sizeof(want), "<vcpupin vcpu='0' cpuset='%d'/>",
                 numafit_placement_get_pin(b.p, 0));
        ck_assert_ptr_nonnull(strstr(d.back, want));
    }
    undefine(&d);
    numafit_free(xml);
    unbuild(&b);
}
END_TEST

/* The <hostdev> elements of claimed devices: valid for libvirt's schema,
 * defined by the test driver, the addresses read back. */
START_TEST(test_hostdev_define) {
    static const char devs_json[] =
        "[{\"address\": \"0000:81:00.0\", \"vendor_id\": \"8086\", \"product_id\": \"1572\","
        " \"dev_type\": \"type-PF\", \"numa_node\": 1},"
        " {\"address\": \"0000:81:02.0\", \"vendor_id\": \"8086\", \"product_id\": \"154c\","
        " \"dev_type\": \"type-VF\", \"numa_node\": 1, \"parent_addr\": \"0000:81:00.0\"},"
        " {\"address\": \"0000:81:02.1\", \"vendor_id\": \"8086\", \"product_id\": \"154c\","
        " \"dev_type\": \"type-VF\", \"numa_node\": 1, \"parent_addr\": \"0000:81:00.0\"},"
        " {\"address\": \"0000:3b:00.0\", \"vendor_id\": \"10de\", \"product_id\": \"1eb8\","
        " \"dev_type\": \"type-PCI\", \"numa_node\": 0}]";
    static const char conf[] =
        "[pci]\ndevice_spec = {\"vendor_id\": \"8086\", \"product_id\": \"154c\"}\n"
        "device_spec = {\"vendor_id\": \"10de\"}\n"
        "alias = {\"name\": \"vf\", \"vendor_id\": \"8086\", \"product_id\": \"154c\", "
        "\"device_type\": \"type-VF\"}\n"
        "alias = {\"name\": \"t4\", \"vendor_id\": \"10de\", \"product_id\": \"1eb8\"}\n";
    static const char flavor[] = "{\"extra_specs\": {\"pci_passthrough:alias\": \"vf:2,t4:1\"}}";
    numafit_pci_devices_t *d = NULL;
    numafit_pci_tracker_t *t = NULL;
    numafit_pci_requests_t *r = NULL;
    numafit_host_t *h = NULL;
    numafit_error_t e;
    char *claim = NULL, *hx = NULL, xml[4096], *back;
    int64_t cells[2] = {0, 1};
    virConnectPtr conn;
    virDomainPtr dom;

    virSetErrorFunc(NULL, quiet_libvirt);
    ck_assert_int_eq(numafit_pci_devices_new_from_json(devs_json, strlen(devs_json), 0, &d, &e), 0);
    ck_assert_int_eq(numafit_pci_tracker_new(d, conf, strlen(conf), NUMAFIT_PCI_ZED, &t, &e), 0);
    ck_assert_int_eq(numafit_pci_requests_from_flavor(flavor, strlen(flavor), NULL, 0, conf,
                                                      strlen(conf), NUMAFIT_PCI_ZED, &r, &e),
                     0);
    ck_assert_int_eq(numafit_host_new_synthetic("2x4c 2cells mem:16G", 0, &h, &e), 0);
    ck_assert_int_eq(numafit_pci_tracker_claim(t, h, r, cells, 2, &claim, &e), 0);
    ck_assert_int_eq(numafit_domain_hostdev_xml(claim, strlen(claim), 0, &hx, &e), 3);
    snprintf(xml, sizeof(xml),
             "<domain type='test'><name>numafit-hostdev</name><memory>1048576</memory>"
             "<vcpu>2</vcpu><os><type>hvm</type></os><devices>\n%s</devices></domain>\n",
             hx);
    validate_schema("hostdev", xml);
    conn = virConnectOpen("test:///default");
    ck_assert_ptr_nonnull(conn);
    dom = virDomainDefineXML(conn, xml);
    ck_assert_msg(dom != NULL, "libvirt refuses the hostdevs: %s\n%s", virGetLastErrorMessage(),
                  xml);
    back = virDomainGetXMLDesc(dom, 0);
    ck_assert_ptr_nonnull(back);
    /* the VFs in nova's order (the pool gives its last device first), then the GPU */
    ck_assert_ptr_nonnull(strstr(back, "bus='0x81' slot='0x02' function='0x1'"));
    ck_assert_ptr_nonnull(strstr(back, "bus='0x81' slot='0x02' function='0x0'"));
    ck_assert_ptr_nonnull(strstr(back, "bus='0x3b' slot='0x00' function='0x0'"));
    ck_assert(strstr(back, "function='0x1'") < strstr(back, "slot='0x02' function='0x0'"));
    ck_assert_int_eq(virDomainUndefine(dom), 0);
    virDomainFree(dom);
    free(back);
    numafit_free(hx);
    hx = NULL;
    {
        /* neutron ports' devices, with what the caller knows of the ports
         * and the instance: a direct port (an <interface type="hostdev">
         * with its MAC, VLAN and the flavor's bandwidth), a direct-physical
         * one (a <hostdev>), a macvtap one (an <interface type="direct"> on
         * the VF's network interface, virtio with 4 queues), a vdpa one
         * (an <interface type="vdpa"> on its vhost-vdpa device), a
         * remote-managed one (an <interface type="hostdev"> without VLAN), a
         * virtio-forwarder one (an <interface type="vhostuser"> on the
         * forwarder's socket); a direct one without a MAC, a
         * macvtap one without its interface name, a vdpa one without its
         * device, a virtio-forwarder one without its socket and a macvtap
         * one bound by Open vSwitch (refused) */
        static const char ports[] =
            "{\"flavor\": {\"vcpus\": 4, \"extra_specs\": {\"quota:vif_inbound_average\": "
            "\"1000\", \"hw:vif_multiqueue_enabled\": \"true\"}},"
            " \"devices\": [{\"address\": \"0000:81:02.0\", \"requester_id\": \"p1\", "
            "\"vnic_type\": \"direct\", \"mac\": \"fa:16:3e:00:00:01\", \"vlan\": 100},"
            " {\"address\": \"0000:81:00.0\", \"requester_id\": \"p2\", \"vnic_type\": "
            "\"direct-physical\"},"
            " {\"address\": \"0000:81:02.2\", \"requester_id\": \"p3\", \"vnic_type\": "
            "\"macvtap\", \"mac\": \"fa:16:3e:00:00:03\", \"vlan\": \"0\", "
            "\"ifname\": \"enp129s2f2\"},"
            " {\"address\": \"0000:81:02.1\", \"requester_id\": \"p4\", \"vnic_type\": "
            "\"vdpa\", \"mac\": \"fa:16:3e:00:00:04\", \"dev_path\": \"/dev/vhost-vdpa-0\"},"
            " {\"address\": \"0000:81:02.3\", \"requester_id\": \"p5\", \"vnic_type\": "
            "\"remote-managed\", \"mac\": \"fa:16:3e:00:00:05\", \"vlan\": 200},"
            " {\"address\": \"0000:81:02.4\", \"requester_id\": \"p6-0123456789\", "
            "\"vnic_type\": \"virtio-forwarder\", \"mac\": \"fa:16:3e:00:00:06\", "
            "\"vhostuser_socket\": \"/var/run/vrt/sock0\", \"vhostuser_mode\": \"client\"}],"
            " \"tx_queue_size\": 512}";
        static const char nosock[] =
            "[{\"address\": \"0000:81:02.0\", \"requester_id\": \"p1\", \"vnic_type\": "
            "\"virtio-forwarder\", \"mac\": \"fa:16:3e:00:00:01\"}]";
        static const char nopath[] =
            "[{\"address\": \"0000:81:02.0\", \"requester_id\": \"p1\", \"vnic_type\": "
            "\"vdpa\", \"mac\": \"fa:16:3e:00:00:01\", \"dev_path\": \"vhost-vdpa-0\"}]";
        static const char ovs_macvtap[] =
            "[{\"address\": \"0000:81:02.0\", \"requester_id\": \"p1\", \"vnic_type\": "
            "\"macvtap\", \"vif_type\": \"ovs\", \"mac\": \"fa:16:3e:00:00:01\", "
            "\"ifname\": \"eth1\"}]";
        static const char nomac[] =
            "[{\"address\": \"0000:81:02.0\", \"requester_id\": \"p1\", \"vnic_type\": "
            "\"direct\"}]";
        static const char noifname[] =
            "[{\"address\": \"0000:81:02.0\", \"requester_id\": \"p1\", \"vnic_type\": "
            "\"macvtap\", \"mac\": \"fa:16:3e:00:00:01\", \"ifname\": \"a/b\"}]";
        ck_assert_int_eq(numafit_domain_hostdev_xml(ports, strlen(ports), 0, &hx, &e), 6);
        snprintf(xml, sizeof(xml),
                 "<domain type='test'><name>numafit-ports</name><memory>1048576</memory>"
                 "<vcpu>2</vcpu><os><type>hvm</type></os><devices>\n%s</devices></domain>\n",
                 hx);
        validate_schema("ports", xml);
        dom = virDomainDefineXML(conn, xml);
        ck_assert_msg(dom != NULL, "libvirt refuses the ports: %s\n%s", virGetLastErrorMessage(),
                      xml);
        back = virDomainGetXMLDesc(dom, 0);
        ck_assert_ptr_nonnull(back);
        ck_assert_ptr_nonnull(strstr(back, "<interface type='hostdev' managed='yes'>"));
        ck_assert_ptr_nonnull(strstr(back, "<mac address='fa:16:3e:00:00:01'/>"));
        ck_assert_ptr_nonnull(strstr(back, "<tag id='100'/>"));
        ck_assert_ptr_nonnull(strstr(back, "bus='0x81' slot='0x00' function='0x0'"));
        ck_assert_ptr_null(strstr(back, "function='0x1'"));
        ck_assert_ptr_nonnull(strstr(back, "<interface type='direct'>"));
        ck_assert_ptr_nonnull(strstr(back, "<source dev='enp129s2f2' mode='passthrough'/>"));
        ck_assert_ptr_nonnull(strstr(back, "<model type='virtio'/>"));
        ck_assert_ptr_nonnull(strstr(back, "queues='4'"));
        ck_assert_ptr_nonnull(strstr(back, "<tag id='0'/>"));
        ck_assert_ptr_nonnull(strstr(back, "<inbound average='1000'/>"));
        ck_assert_ptr_nonnull(strstr(back, "<interface type='vdpa'>"));
        ck_assert_ptr_nonnull(strstr(back, "<source dev='/dev/vhost-vdpa-0'/>"));
        ck_assert_ptr_nonnull(strstr(back, "<mac address='fa:16:3e:00:00:05'/>"));
        ck_assert_ptr_nonnull(strstr(back, "function='0x3'"));
        ck_assert_ptr_null(strstr(back, "<tag id='200'/>")); /* os-vif writes no VLAN */
        ck_assert_ptr_null(strstr(back, "function='0x4'"));  /* the forwarder's VF */
        ck_assert_ptr_nonnull(strstr(back, "<interface type='vhostuser'>"));
        ck_assert_ptr_nonnull(
            strstr(back, "<source type='unix' path='/var/run/vrt/sock0' mode='client'/>"));
        ck_assert_ptr_nonnull(strstr(back, "<target dev='vhup6-01234567'/>"));
        ck_assert_ptr_nonnull(strstr(back, "tx_queue_size='512'"));
        ck_assert_int_eq(virDomainUndefine(dom), 0);
        virDomainFree(dom);
        free(back);
        numafit_free(hx);
        hx = NULL;
        ck_assert_int_eq(numafit_domain_hostdev_xml(nomac, strlen(nomac), 0, &hx, &e), -EINVAL);
        ck_assert_str_eq(e.where, "devices/0/mac");
        ck_assert_int_eq(numafit_domain_hostdev_xml(noifname, strlen(noifname), 0, &hx, &e),
                         -EINVAL);
        ck_assert_str_eq(e.where, "devices/0/ifname");
        ck_assert_int_eq(numafit_domain_hostdev_xml(nopath, strlen(nopath), 0, &hx, &e), -EINVAL);
        ck_assert_str_eq(e.where, "devices/0/dev_path");
        ck_assert_int_eq(numafit_domain_hostdev_xml(nosock, strlen(nosock), 0, &hx, &e), -EINVAL);
        ck_assert_str_eq(e.where, "devices/0/vhostuser_socket");
        ck_assert_str_eq(e.exception, "VifDetailsMissingVhostuserSockPath");
        ck_assert_int_eq(numafit_domain_hostdev_xml(ovs_macvtap, strlen(ovs_macvtap), 0, &hx, &e),
                         -EINVAL);
        ck_assert_str_eq(e.where, "devices/0/vif_type");
    }
    virConnectClose(conn);
    numafit_free(claim);
    numafit_host_free(h);
    numafit_pci_requests_free(r);
    numafit_pci_tracker_free(t);
    numafit_pci_devices_free(d);
}
END_TEST

/* The nova.conf and image settings of <cpu>, <features>, <clock> and the
 * devices (cpu_mode, cpu_models, cpu_model_extra_flags, hw:pmu / hw_pmu,
 * os_type, hw_time_hpet, the virt type, the architecture,
 * mem_stats_period_seconds, disk_cachemodes): the whole domain is defined
 * by the test driver and read back; each element reads back as written,
 * and as asked (want: the probes' values in our XML, "" for none). */
static const struct scase {
    const char *name, *conf, *specs, *image;
    const char *want[11];
} scases[] = {
    {"defaults",
     "",
     "",
     NULL,
     {"=host-model;", "=;", "", "", "", "=utc;", "pit=delay;rtc=catchup;hpet=;",
      "pit=;rtc=;hpet=no;", "=virtio;", "=10;", "=none;"}},
    {"custom_flags_pmu",
     "[libvirt]\ncpu_mode = custom\ncpu_models = Haswell-noTSX, Skylake-Client\n"
     "cpu_model_extra_flags = +PCID, -hle, ssbd\nmem_stats_period_seconds = 30\n"
     "disk_cachemodes = block=none, file=writethrough\n",
     ",\"hw:pmu\":\"true\"",
     NULL,
     {"=custom;", "=exact;", "=Haswell-noTSX;", "hle=disable;pcid=require;ssbd=require;", "=on;",
      "=utc;", "pit=delay;rtc=catchup;hpet=;", "pit=;rtc=;hpet=no;", "=virtio;", "=30;",
      "=writethrough;"}},
    {"windows_hpet_pmu_off",
     "[libvirt]\ncpu_mode = host-passthrough\n",
     "",
     "{\"properties\":{\"os_type\":\"windows\",\"hw_time_hpet\":true,\"hw_pmu\":false}}",
     {"=host-passthrough;", "=;", "", "", "=off;", "=localtime;",
      "pit=delay;rtc=catchup;hpet=;hypervclock=;", "pit=;rtc=;hpet=yes;hypervclock=yes;",
      "=virtio;", "=10;", "=none;"}},
    {"qemu_none_no_balloon",
     "[libvirt]\nvirt_type = qemu\ncpu_mode = none\ncpu_model_extra_flags = pcid\n"
     "mem_stats_period_seconds = 0\ndisk_cachemodes = file=unsafe\n",
     ",\"hw:pmu\":\"false\"",
     NULL,
     {"=;", "=;", "", "", "=off;", "=utc;", "", "", "", "", "=unsafe;"}},
    {"aarch64",
     "[libvirt]\ncpu_model_extra_flags = -sve\n",
     "",
     NULL,
     {"=host-passthrough;", "=;", "", "sve=disable;", "", "=utc;", "pit=delay;rtc=catchup;",
      "pit=;rtc=;", "=virtio;", "=10;", "=none;"}},
};

static const struct {
    const char *xpath, *key, *val;
} sprobes[] = {
    {"/domain/cpu", NULL, "mode"},
    {"/domain/cpu", NULL, "match"},
    {"/domain/cpu/model", NULL, NULL},
    {"/domain/cpu/feature", "name", "policy"},
    {"/domain/features/pmu", NULL, "state"},
    {"/domain/clock", NULL, "offset"},
    {"/domain/clock/timer", "name", "tickpolicy"},
    {"/domain/clock/timer", "name", "present"},
    {"/domain/devices/memballoon", NULL, "model"},
    {"/domain/devices/memballoon/stats", NULL, "period"},
    {"/domain/devices/disk/driver", NULL, "cache"},
};

START_TEST(test_libvirt_settings) {
    const struct scase *c = &scases[_i];
    char flavor[512], name[64];
    numafit_domconf_t *conf = NULL;
    numafit_host_t *h = make_host(HOST_HT);
    numafit_request_t *r = NULL;
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    struct defined d;
    char *xml = NULL;
    size_t ilen = c->image ? strlen(c->image) : 0;

    virSetErrorFunc(NULL, quiet_libvirt);
    snprintf(flavor, sizeof(flavor),
             "{\"vcpus\":2,\"memory_mb\":1024,\"extra_specs\":{\"hw:cpu_policy\":"
             "\"dedicated\",\"quota:disk_read_iops_sec\":\"500\"%s}}",
             c->specs);
    ck_assert_int_eq(numafit_domconf_new(&conf), 0);
    if (!strcmp(c->name, "aarch64"))
        ck_assert_int_eq(numafit_domconf_set_arch(conf, "aarch64"), 0);
    ck_assert_msg(numafit_domconf_set_from_nova_conf(conf, c->conf, strlen(c->conf), 0, &e) == 0,
                  "%s: %s", c->name, e.text);
    ck_assert_int_eq(numafit_domconf_set_domain_type(conf, "test"), 0);
    snprintf(name, sizeof(name), "numafit-settings-%s", c->name);
    ck_assert_int_eq(numafit_domconf_set_name(conf, name), 0);
    ck_assert_int_eq(numafit_request_new(flavor, strlen(flavor), c->image, ilen, 0, &r, &e), 1);
    ck_assert_int_eq(numafit_fit(h, r, NULL, 0, &p, &e), 1);
    ck_assert_msg(numafit_domain_xml(h, r, p, flavor, strlen(flavor), c->image, ilen, conf,
                                     NUMAFIT_DOMAIN_FULL, &xml, &e) == 0,
                  "%s: %s (%s)", c->name, e.text, e.exception);
    validate_schema(name, xml);

    define_back(c->name, xml, &d);
    for (size_t k = 0; k < sizeof(sprobes) / sizeof(sprobes[0]); k++) {
        char *a = collect(d.ours, sprobes[k].xpath, sprobes[k].key, sprobes[k].val, false, false);
        char *t = collect(d.theirs, sprobes[k].xpath, sprobes[k].key, sprobes[k].val, false, false);
        ck_assert_msg(strcmp(a, c->want[k]) == 0, "%s: %s @%s: wrote '%s', asked '%s'\n%s", c->name,
                      sprobes[k].xpath, sprobes[k].val ? sprobes[k].val : "text", a, c->want[k],
                      xml);
        ck_assert_msg(strcmp(a, t) == 0, "%s: %s @%s: ours '%s', libvirt '%s'\n%s", c->name,
                      sprobes[k].xpath, sprobes[k].val ? sprobes[k].val : "text", a, t, d.back);
        free(a);
        free(t);
    }
    undefine(&d);
    numafit_free(xml);
    numafit_placement_free(p);
    numafit_request_free(r);
    numafit_host_free(h);
    numafit_domconf_free(conf);
}
END_TEST
#endif /* NUMAFIT_TEST_LIBVIRT */

static Suite *domain_suite(void) {
    Suite *s = suite_create("domain");
    TCase *tc = tcase_create("golden");
    int n = (int)(sizeof(cases) / sizeof(cases[0]));
    tcase_add_loop_test(tc, test_golden, 0, n);
    tcase_add_test(tc, test_device_helpers);
    suite_add_tcase(s, tc);
    tc = tcase_create("errors");
    tcase_add_loop_test(tc, test_quota_values, 0, (int)(sizeof(qcases) / sizeof(qcases[0])));
    tcase_add_test(tc, test_nova_exceptions);
    tcase_add_test(tc, test_arguments);
    tcase_add_test(tc, test_nova_conf);
    tcase_add_test(tc, test_offline_list_cut);
    tcase_add_test(tc, test_no_cpu_with_numa);
    tcase_add_test(tc, test_memory_zero);
    suite_add_tcase(s, tc);
#ifdef NUMAFIT_TEST_LIBVIRT
    tc = tcase_create("libvirt");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_libvirt_define, 0, n);
    tcase_add_test(tc, test_hostdev_define);
    tcase_add_loop_test(tc, test_libvirt_settings, 0, (int)(sizeof(scases) / sizeof(scases[0])));
    suite_add_tcase(s, tc);
#endif
    return s;
}

int main(void) {
    SRunner *sr;
    int failed;
#ifdef NUMAFIT_TEST_LIBVIRT
    xmlInitParser();
#endif
    sr = srunner_create(domain_suite());
    if (getenv("NUMAFIT_DOMAIN_PRINT"))
        srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
#ifdef NUMAFIT_TEST_LIBVIRT
    xmlCleanupParser();
#endif
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
