/* The host doctor's internals, shared by its three parts: doctor.c (the
 * entry point and the report), doctor_facts.c (gathering facts from the
 * files below the root) and doctor_checks.c (the findings); nova.conf is
 * read by ini.c. */
#ifndef NUMAFIT_DOCTOR_INTERNAL_H
#define NUMAFIT_DOCTOR_INTERNAL_H

#include <stdarg.h>

#include <jansson.h>

#include <numafit/doctor.h>
#include <numafit/host.h>

#include "ini.h"
#include "private.h"
#include "rootfs.h"

#define DOCTOR_FILE_MAX (256u << 10) /* bytes read from one file */
#define DOCTOR_PATH_CAP NUMAFIT__ROOTFS_PATH_CAP
#define PSIZES_MAX      8u /* huge page sizes per node */
#define NSCRATCH        8  /* formatted cpu lists alive at once */
#define KIB_1G          1048576ull

enum { SEV_ERROR, SEV_WARNING, SEV_INFO };

/* The bitmaps the checks use, each NUMAFIT__CPU_WORDS words. */
enum {
    B_ONLINE,
    B_ISOLCPUS,  /* isolcpus= on the command line */
    B_SYSISO,    /* sys/devices/system/cpu/isolated */
    B_NOHZ,      /* nohz_full= */
    B_RCU,       /* rcu_nocbs= */
    B_TUNED,     /* tuned isolated_cores */
    B_ISOLATED,  /* union of the above four isolation sources */
    B_DEDICATED, /* cpu_dedicated_set */
    B_SHARED,    /* cpu_shared_set */
    B_PINSET,    /* vcpu_pin_set */
    B_PINNED,    /* the CPUs nova pins guests to: dedicated, else vcpu_pin_set */
    B_SIBLESS,   /* pinned CPUs whose thread siblings are not pinned CPUs */
    B_GOVERNOR,  /* CPUs whose cpufreq scaling_governor was read */
    B_NOTPERF,   /* of those, the ones not on the performance governor */
    B_CPUIDLE,   /* CPUs whose cpuidle states were read */
    B_DEEPIDLE,  /* of those, the ones with a deep idle state enabled */
    B_TMP,
    B_TMP2,
    B__N
};

struct dpsize {
    uint64_t size_kb;
    uint64_t count;
    bool has_free;
    uint64_t free; /* free_hugepages */
};

#define BLOCK_MAX 32u /* block devices reported */

struct dnode {
    uint32_t id;
    uint64_t *cpus; /* NUMAFIT__CPU_WORDS words, NULL = no cpulist */
    bool has_mem;
    uint64_t memtotal_kib;
    uint32_t npsizes;
    struct dpsize ps[PSIZES_MAX];
};

/* ------------------------------------------------------------ running domains */

#define DDOM_CELLS_MAX 64u  /* guest NUMA cells of one domain */
#define DDOM_PAGES_MAX 16u  /* <page> elements of one domain */
#define DDOM_SETS_MAX  256u /* distinct cpusets of multi-CPU <vcpupin>s */
#define DDOM_NODE_W    NUMAFIT__WORDS(NUMAFIT_CELL_ID_MAX + 1)
#define DDOM_PIN_NONE  (-1)
/* pin[v] <= DDOM_PIN_SET0: vCPU v floats over sets[DDOM_PIN_SET0 - pin[v]] */
#define DDOM_PIN_SET0 (-2)

struct ddom_cell {
    uint64_t *vcpus; /* NUMAFIT__CPU_WORDS words (vCPU ids) */
    uint64_t mem_kib;
    bool shared_access;          /* memAccess='shared' */
    bool has_memnode;            /* <numatune><memnode cellid=...> */
    char memnode_mode[16];       /* its mode ("strict" when absent) */
    uint64_t nodes[DDOM_NODE_W]; /* its nodeset */
    uint64_t page_kb;            /* <memoryBacking><hugepages><page> size, 0 = none */
};

/* One running guest as its libvirt domain XML (virsh dumpxml) says. */
struct ddom {
    char name[128];
    char uuid[40];
    bool nova; /* <metadata><nova:instance> */
    char nova_name[128], flavor[128];
    int64_t nova_vcpus, nova_mem_mib; /* -1 unknown */
    json_t *specs;                    /* <nova:extraSpecs>, NULL when absent */
    uint32_t vcpus;
    uint64_t mem_kib;
    bool placement_auto;   /* <vcpu placement='auto'> (numad) */
    bool has_vcpu_cpuset;  /* <vcpu cpuset=...> */
    uint64_t *vcpu_cpuset; /* NUMAFIT__CPU_WORDS */
    int32_t *pin;          /* per vCPU: DDOM_PIN_NONE, the CPU, or a set */
    uint32_t nsets;
    uint64_t *sets[DDOM_SETS_MAX];
    bool has_emu;
    uint64_t *emu; /* <emulatorpin cpuset> */
    uint64_t *rt;  /* vCPUs with a fifo or rr <vcpusched> */
    int rt_prio;
    bool has_mem_nodes; /* <numatune><memory nodeset> */
    char mem_mode[16];
    uint64_t mem_nodes[DDOM_NODE_W];
    bool hugepages;   /* <hugepages> present */
    uint64_t page_kb; /* its <page> size for a guest without NUMA cells, 0 = none */
    bool locked, nosharepages;
    uint32_t ncells;
    struct ddom_cell cells[DDOM_CELLS_MAX];
};

struct numafit__doctor {
    struct numafit__rootfs fs; /* files below the root, DOCTOR_FILE_MAX bytes each */
    unsigned flags;
    uint64_t *b[B__N];
    bool has[B__N];
    json_t *host;
    json_t *unreadable;
    json_t *findings;
    int nerrors;
    bool oom;
    char *scratch[NSCRATCH];
    unsigned nscratch;
    /* kernel */
    char osrelease[128];
    int sys_realtime; /* -1 unknown */
    bool preempt_rt;
    bool has_cmdline;
    char *cmdline;
    uint64_t default_hpsz_kb; /* default_hugepagesz= */
    uint32_t ncmdpages;
    struct {
        uint64_t size_kb; /* 0 = the default size */
        int64_t count;    /* hugepages= after it, -1 = none */
    } cmdpages[PSIZES_MAX];
    /* CPUs */
    int smt; /* -1 unknown, 0 off, 1 on */
    uint32_t threads_per_core;
    /* memory */
    uint32_t nnodes;
    struct dnode *nodes;
    uint32_t nglobal;
    struct dpsize global[PSIZES_MAX]; /* sys/kernel/mm/hugepages */
    uint64_t meminfo_hpsz_kb;         /* proc/meminfo Hugepagesize */
    bool has_mounts;
    uint32_t nmounts;
    uint64_t mount_kb[16]; /* hugetlbfs mounts' page sizes (0 = unknown) */
    /* kvm, tuned */
    int preemption_timer; /* -1 unknown */
    bool has_tuned;
    char tuned_profile[256];
    bool tuned_rt;            /* a realtime* profile is active */
    bool tuned_isolating;     /* a profile that applies isolated_cores is active */
    int64_t sysctl_hugepages; /* vm.nr_hugepages of etc/sysctl.conf, sysctl.d; -1 none */
    char sysctl_file[128];    /* where it was set */
    /* kernel tuning (doctor_tuning.c) */
    json_t *not_checked;  /* "what: why" of the checks skipped for want of a file */
    char thp_enabled[16]; /* the bracketed choice of transparent_hugepage/enabled, "" unknown */
    char thp_defrag[16];
    int ksm_run;           /* sys/kernel/mm/ksm/run, -1 unknown */
    char ksm_service[192]; /* the file that enables ksmtuned / ksm, "" none found */
    char cmd_intel_idle[16], cmd_processor_cstate[16], cmd_idle[16], cmd_pstate[32];
    char pstate_status[16];  /* sys/devices/system/cpu/intel_pstate/status, "" unknown */
    char governors[128];     /* the governors other than performance, "a, b" */
    char deep_states[192];   /* the deep idle states enabled, "C6 (133 us), ..." */
    int dev_kvm;             /* dev/kvm: -1 dev/ not captured, 0 missing, 1 present */
    int mod_kvm;             /* kvm_intel or kvm_amd in sys/module: -1 not captured */
    char kvm_vendor[16];     /* "kvm_intel", "kvm_amd", "" */
    int kvm_nested;          /* -1 unknown */
    int vhost_net;           /* -1 unknown */
    char vhost_net_from[32]; /* where that was seen */
    uint32_t nblock;
    struct {
        char name[32];
        char sched[24]; /* the bracketed choice */
    } block[BLOCK_MAX];
    /* nova.conf */
    bool has_conf;
    const char *conf_text; /* the caller's, NULL without */
    size_t conf_len;
    struct numafit__ini ini;
    /* conclusions */
    bool realtime;
    json_t *rt_reasons;
    /* running domains (doctor_domain.c) */
    uint32_t ndoms;
    struct ddom *doms;
    json_t *domains;          /* their summaries */
    numafit_host_t *fit_host; /* the empty host nova would see, NULL until built */
    bool fit_host_tried;
};

/* ------------------------------------------------------------ doctor.c */

/* false (and the report fails with ENOMEM) when a jansson call failed */
bool numafit__doctor_ok_json(struct numafit__doctor *x, int rc);
/* A JSON string; text that is not UTF-8 is kept with every byte outside
 * printable ASCII replaced by '?'. */
json_t *numafit__doctor_js(struct numafit__doctor *x, const char *s);
/* host.unreadable gets "rel: why" */
void numafit__doctor_unreadable(struct numafit__doctor *x, const char *rel, const char *why);
/* A cpu list as nova writes it ("4-11"), alive until NSCRATCH later calls. */
const char *numafit__doctor_fmt(struct numafit__doctor *x, const uint64_t *bits);
/* A finding; counts the errors. */
void numafit__doctor_add(struct numafit__doctor *x, const char *id, int sev, const char *title,
                         const char *fix, const char *detail_fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* "1G", "2M", "4K" */
const char *numafit__doctor_size_name(uint64_t kb, char *out, size_t cap);
int numafit__doctor_cmp_u64(const void *a, const void *b);

/* ------------------------------------------------------------ doctor_facts.c */

/* Read the kernel, command line, CPUs, memory, tuned and kvm facts. */
void numafit__doctor_read_host(struct numafit__doctor *x);
/* A kernel cpu list file ("0-3,8-11\n", "" or "(null)" for none) into bits;
 * a missing file is listed in host.unreadable unless quiet. */
int numafit__doctor_read_cpulist(struct numafit__doctor *x, const char *rel, bool quiet,
                                 uint64_t *bits);
/* Read root/rel into x->fs.buf (NUL-terminated, NULs replaced by spaces):
 * its length or -errno; listed in host.unreadable unless it is missing and
 * quiet_enoent. */
int numafit__doctor_read_rel(struct numafit__doctor *x, const char *rel, bool quiet_enoent);
/* 1 when root/rel exists (a link is not followed), 0 when it does not,
 * -errno when that cannot be told. */
int numafit__doctor_exists(struct numafit__doctor *x, const char *rel);
/* numafit__rootfs_opendir() of rel; memory exhaustion sets x->oom (the
 * report would be wrong), any failure returns < 0. */
int numafit__doctor_opendir(struct numafit__doctor *x, const char *rel, DIR **dir);
/* host.not_checked gets "what: why" */
void numafit__doctor_not_checked(struct numafit__doctor *x, const char *what, const char *why);

/* ------------------------------------------------------------ doctor_tuning.c */

/* THP, KSM, power management, KVM, block devices, vhost_net. */
void numafit__doctor_read_tuning(struct numafit__doctor *x);
/* Their findings, after the real-time checks. */
void numafit__doctor_check_tuning(struct numafit__doctor *x);

/* ------------------------------------------------------------ doctor_checks.c */

/* Every check, in the report's fixed order. */
void numafit__doctor_check(struct numafit__doctor *x);

/* ------------------------------------------------------------ doctor_domain*.c */

/* Parse domain XML number i into d (zeroed by the caller): 0, -EBADMSG,
 * -ERANGE (err->where "domains[i] ..." names the element), -ENOMEM,
 * -ENOTSUP (built without libxml2). */
int numafit__ddom_parse(struct ddom *d, unsigned i, const char *xml, size_t len,
                        numafit_error_t *err);
/* Free what d holds (not d). */
void numafit__ddom_clear(struct ddom *d);
/* The findings and summaries of the running domains, after the host checks. */
void numafit__doctor_check_domains(struct numafit__doctor *x);

/* ------------------------------------------------------------ CPU bitmaps */

static inline void bits_and(uint64_t *d, const uint64_t *a, const uint64_t *b) {
    for (unsigned i = 0; i < NUMAFIT__CPU_WORDS; i++)
        d[i] = a[i] & b[i];
}

static inline void bits_andnot(uint64_t *d, const uint64_t *a, const uint64_t *b) {
    for (unsigned i = 0; i < NUMAFIT__CPU_WORDS; i++)
        d[i] = a[i] & ~b[i];
}

static inline void bits_or(uint64_t *d, const uint64_t *a) {
    for (unsigned i = 0; i < NUMAFIT__CPU_WORDS; i++)
        d[i] |= a[i];
}

static inline unsigned bcount(const uint64_t *a) {
    return numafit__bits_count(a, NUMAFIT__CPU_WORDS);
}

static inline bool bempty(const uint64_t *a) {
    return numafit__bits_empty(a, NUMAFIT__CPU_WORDS);
}

#endif
