/* Host doctor: the captured trees of tests/data/doctor (written by
 * tests/data/make-doctor-trees.py) with their own nova.conf or another one,
 * each with the exact list of finding ids it must give; a few exact texts;
 * trees built on the fly (memory-only node, missing, garbage and oversized
 * files, a root without sys); argument checks; and the same trees through
 * numafit_host_new_from_sysfs. */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include <numafit.h>
#include <numafit/discover.h>
#include <numafit/doctor.h>

#include "private.h"

/* ------------------------------------------------------------ helpers */

static void tree_path(char *out, size_t cap, const char *tree) {
    const char *top = getenv("top_srcdir");
    snprintf(out, cap, "%s/tests/data/doctor/%s", top ? top : ".", tree);
}

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
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

/* Run the doctor; return the parsed report and the return value. */
static json_t *run(const char *root, const char *conf, unsigned flags, int *ret) {
    char *out = NULL;
    numafit_error_t e;
    json_t *j;
    json_error_t je;
    *ret = numafit_doctor(root, conf, conf ? strlen(conf) : 0, flags, &out, &e);
    ck_assert_msg(*ret >= 0, "numafit_doctor(%s) = %d: %s", root, *ret, e.text);
    ck_assert_ptr_nonnull(out);
    j = json_loads(out, 0, &je);
    ck_assert_msg(j != NULL, "report is not JSON: %s", je.text);
    numafit_free(out);
    return j;
}

/* "id,id,..." of the findings, in order. */
static void ids_of(const json_t *report, char *out, size_t cap) {
    const json_t *f = json_object_get(report, "findings");
    size_t i, off = 0;
    json_t *v;
    out[0] = '\0';
    ck_assert(json_is_array(f));
    json_array_foreach(f, i, v) {
        const char *id = json_string_value(json_object_get(v, "id"));
        const char *sev = json_string_value(json_object_get(v, "severity"));
        ck_assert_ptr_nonnull(id);
        ck_assert_ptr_nonnull(sev);
        ck_assert(!strcmp(sev, "error") || !strcmp(sev, "warning") || !strcmp(sev, "info"));
        ck_assert(json_is_string(json_object_get(v, "title")));
        ck_assert(json_is_string(json_object_get(v, "detail")));
        ck_assert(json_is_string(json_object_get(v, "fix")));
        off += (size_t)snprintf(out + off, cap - off, "%s%s:%c", i ? "," : "", id, sev[0]);
        ck_assert_uint_lt(off, cap);
    }
}

static const json_t *finding(const json_t *report, const char *id) {
    const json_t *f = json_object_get(report, "findings");
    size_t i;
    json_t *v;
    json_array_foreach(f, i,
                       v) if (!strcmp(json_string_value(json_object_get(v, "id")), id)) return v;
    ck_abort_msg("no finding %s", id);
    return NULL;
}

static const char *field(const json_t *report, const char *id, const char *key) {
    return json_string_value(json_object_get(finding(report, id), key));
}

/* ------------------------------------------------------------ the captured trees */

#define TREE_CONF "\x01" /* use the tree's etc/nova/nova.conf */

static const struct dcase {
    const char *name;
    const char *tree;
    const char *conf; /* TREE_CONF, a text, or NULL for none */
    unsigned flags;
    int nerrors;
    const char *ids; /* id:severity letter, in report order */
} cases[] = {
    {"rt-good", "rt-good", TREE_CONF, 0, 0, ""},
    {"rt-good flag", "rt-good", TREE_CONF, NUMAFIT_DOCTOR_REALTIME, 0, ""},
    {"rt-good without nova.conf", "rt-good", NULL, 0, 0, "nova-conf-not-given:i"},
    {"rt-mistakes", "rt-mistakes", TREE_CONF, 0, 3,
     "nova-option-wrong-section:w,cpu-sets-overlap:e,dedicated-not-isolated:e,"
     "ht-enabled-realtime:w,isolate-policy-impossible:i,dedicated-siblings-not-dedicated:w,"
     "hugetlbfs-not-mounted:e,hugepages-1g-not-on-cmdline:w,reserved-huge-pages-unknown:w,"
     "kernel-not-rt:w,tuned-not-realtime-virtual-host:w,kvm-preemption-timer-off:i,"
     "cpu-mode-not-host-passthrough:i"},
    /* the same host, nova.conf corrected, not meant for real-time guests */
    {"rt-mistakes, plain pinning", "rt-mistakes",
     "[compute]\ncpu_dedicated_set = 4-11\n"
     "cpu_shared_set = 0-3,12-15\n",
     0, 1,
     "dedicated-not-isolated:w,isolate-policy-impossible:i,dedicated-siblings-not-dedicated:w,"
     "hugetlbfs-not-mounted:e,hugepages-1g-not-on-cmdline:w"},
    {"e5-2620-legacy", "e5-2620-legacy", TREE_CONF, 0, 0,
     "vcpu-pin-set-legacy:w,dedicated-not-isolated:w,hugepages-unbalanced:w,"
     "hugepages-runtime-allocated:i,dedicated-uneven-nodes:w"},
    {"e5-2620-legacy realtime", "e5-2620-legacy", TREE_CONF, NUMAFIT_DOCTOR_REALTIME, 1,
     "vcpu-pin-set-legacy:w,dedicated-not-isolated:e,ht-enabled-realtime:w,"
     "hugepages-unbalanced:w,hugepages-runtime-allocated:i,kernel-not-rt:w,"
     "tuned-not-realtime-virtual-host:w,cpu-mode-not-host-passthrough:i,dedicated-uneven-nodes:w"},
    {"e5-2620 both sets", "e5-2620-legacy",
     "[DEFAULT]\nvcpu_pin_set = 2-11\n[compute]\ncpu_dedicated_set = 2-11,14-23\n", 0, 1,
     "vcpu-pin-set-with-dedicated:e,dedicated-not-isolated:w,isolate-policy-impossible:i,"
     "hugepages-unbalanced:w,hugepages-runtime-allocated:i,dedicated-uneven-nodes:w"},
    {"e5-2620 no sets", "e5-2620-legacy", "[libvirt]\nvirt_type = kvm\n", 0, 0,
     "cpu-sets-unset:w,hugepages-unbalanced:w,hugepages-runtime-allocated:i"},
    {"e5-2620 whole cores split", "e5-2620-legacy",
     "[compute]\ncpu_dedicated_set = 2-5,8-11\ncpu_shared_set = 0-1,12-13\n", 0, 0,
     "dedicated-not-isolated:w,isolate-policy-impossible:i,dedicated-siblings-not-dedicated:w,"
     "hugepages-unbalanced:w,hugepages-runtime-allocated:i"},
    {"rt-good bad nova.conf", "rt-good",
     "[compute]\ncpu_dedicated_set = 4-11,40\ncpu_shared_set = x\nnot an option\n", 0, 4,
     "nova-conf-syntax:e,nova-cpu-set-offline:e,nova-cpu-set-invalid:e,"
     "dedicated-not-isolated:e,cpu-mode-not-host-passthrough:i"},
    {"rt-good reserved pages", "rt-good",
     "[DEFAULT]\nreserved_huge_pages = node:0,size:1GB,count:9\n"
     "reserved_huge_pages = node:1, size:3MB, count:1\nreserved_huge_pages = garbage\n"
     "[compute]\ncpu_dedicated_set = 4-11\ncpu_shared_set = 0-3,12-15\n"
     "[libvirt]\ncpu_mode = host-passthrough\n",
     0, 1,
     "reserved-huge-pages-invalid:e,reserved-huge-pages-exceed:w,"
     "reserved-huge-pages-unknown:w"},
    {"rt-good uneven split", "rt-good",
     "[compute]\ncpu_dedicated_set = 4-9\ncpu_shared_set = 0-3,10-15\n"
     "[libvirt]\ncpu_mode = host-passthrough\n",
     0, 0, "shared-set-isolated:w,dedicated-uneven-nodes:w"},
    {"rt-good isolated unused", "rt-good",
     "[compute]\ncpu_dedicated_set = 4-7\ncpu_shared_set = 0-3,12-15\n"
     "[libvirt]\ncpu_mode = 'host-passthrough'\nfile_backed_memory = 1024\n",
     0, 0, "isolated-not-used:w,file-backed-memory-hugepages:w"},
    /* seed 000's Sugon host with the kernel tuning left wrong (real-time
     * guests by nova.conf's realtime_scheduler_priority) */
    {"badly-tuned", "badly-tuned", TREE_CONF, 0, 0,
     "hugepages-not-on-every-node:w,hugepages-node-exhausted:w,hugepages-runtime-allocated:w,"
     "hugepages-sysctl-short:w,tuned-not-realtime-virtual-host:w,thp-always-realtime:w,"
     "thp-defrag-always-realtime:w,ksm-running:w,cpufreq-governor-not-performance:w,"
     "cstates-deep-enabled:w,io-scheduler:i,vhost-net-not-loaded:i,node-without-hugepages:w"},
    /* the same host for pinned guests that are not real-time: THP and
     * C-states are not checked, KSM and the governor are notes */
    {"badly-tuned, plain pinning", "badly-tuned",
     "[compute]\ncpu_dedicated_set = 2-19,22-39\ncpu_shared_set = 0-1,20-21\n", 0, 0,
     "hugepages-not-on-every-node:w,hugepages-node-exhausted:w,hugepages-runtime-allocated:w,"
     "hugepages-sysctl-short:w,ksm-running:i,cpufreq-governor-not-performance:i,io-scheduler:i,"
     "vhost-net-not-loaded:i,node-without-hugepages:w"},
    {"rt-good continuation and quotes", "rt-good",
     "# comment\n[DEFAULT]\n; another\nreserved_huge_pages = node:0,size:1GB,\n"
     "    count:1\n[compute]\ncpu_dedicated_set = \"4-11\"\ncpu_shared_set: 0-3,12-15\n"
     "[libvirt]\ncpu_mode = host-passthrough\n",
     0, 0, ""},
};

START_TEST(test_tree) {
    const struct dcase *c = &cases[_i];
    char root[PATH_MAX], path[PATH_MAX + 32], ids[2048];
    char *conf = NULL;
    size_t len;
    json_t *j;
    int r;
    tree_path(root, sizeof(root), c->tree);
    if (c->conf && !strcmp(c->conf, TREE_CONF)) {
        snprintf(path, sizeof(path), "%s/etc/nova/nova.conf", root);
        conf = slurp(path, &len);
    }
    j = run(root, conf ? conf : c->conf, c->flags, &r);
    ids_of(j, ids, sizeof(ids));
    ck_assert_msg(!strcmp(ids, c->ids), "%s:\n  got      %s\n  expected %s", c->name, ids, c->ids);
    ck_assert_msg(r == c->nerrors, "%s: %d errors, expected %d", c->name, r, c->nerrors);
    ck_assert_uint_eq(json_array_size(json_object_get(json_object_get(j, "host"), "unreadable")),
                      0);
    json_decref(j);
    free(conf);
}
END_TEST

static json_t *run_tree(const char *tree, unsigned flags) {
    char root[PATH_MAX], path[PATH_MAX + 32];
    size_t len;
    char *conf;
    json_t *j;
    int r;
    tree_path(root, sizeof(root), tree);
    snprintf(path, sizeof(path), "%s/etc/nova/nova.conf", root);
    conf = slurp(path, &len);
    j = run(root, conf, flags, &r);
    free(conf);
    return j;
}

START_TEST(test_texts) {
    json_t *j = run_tree("rt-mistakes", 0), *h;
    ck_assert_str_eq(field(j, "cpu-sets-overlap", "title"),
                     "cpu_dedicated_set and cpu_shared_set overlap");
    ck_assert_str_eq(field(j, "cpu-sets-overlap", "detail"),
                     "CPUs 4-5 are in both [compute] cpu_dedicated_set (4-11) and cpu_shared_set "
                     "(0-5,12-15); nova raises InvalidConfiguration and nova-compute does not "
                     "start.");
    ck_assert_str_eq(field(j, "nova-option-wrong-section", "detail"),
                     "nova.conf line 10 sets vcpu_pin_set in [libvirt], but nova reads it only "
                     "from [DEFAULT]; the value \"4-11\" has no effect.");
    ck_assert_str_eq(field(j, "nova-option-wrong-section", "fix"),
                     "Move vcpu_pin_set to the [DEFAULT] section.");
    ck_assert_str_eq(field(j, "hugetlbfs-not-mounted", "fix"),
                     "Mount it: mount -t hugetlbfs -o pagesize=1G hugetlbfs /dev/hugepages (and "
                     "add it to /etc/fstab), then restart libvirtd.");
    ck_assert_str_eq(field(j, "dedicated-siblings-not-dedicated", "detail"),
                     "The thread siblings 20-27 of the CPUs in [compute] cpu_dedicated_set "
                     "(4-11) are not in it; host processes or unpinned guests running there "
                     "share the core's execution units with the pinned vCPUs.");
    h = json_object_get(j, "host");
    ck_assert(json_is_true(json_object_get(h, "smt")));
    ck_assert_int_eq(json_integer_value(json_object_get(h, "threads_per_core")), 2);
    ck_assert(json_is_false(json_object_get(h, "preempt_rt")));
    ck_assert_str_eq(json_string_value(json_object_get(h, "online")), "0-31");
    json_decref(j);

    j = run_tree("e5-2620-legacy", 0);
    ck_assert_str_eq(field(j, "dedicated-uneven-nodes", "detail"),
                     "vcpu_pin_set = 2-11,14-23 gives node 0: 8 (2-5,14-17), node 1: 12 "
                     "(6-11,18-23); a guest with more vCPUs than the smaller share fits only on "
                     "the larger node, or must be split over two nodes (hw:numa_nodes=2), which "
                     "costs latency and memory bandwidth.");
    ck_assert_str_eq(field(j, "hugepages-unbalanced", "detail"),
                     "2M pages per node: node 0: 512, node 1: 1024; guests whose NUMA cell is "
                     "placed on the node with fewer pages fit less often, and the difference "
                     "cannot be used by guests on the other node.");
    json_decref(j);

    j = run_tree("rt-good", 0);
    h = json_object_get(j, "host");
    ck_assert(json_is_true(json_object_get(h, "preempt_rt")));
    ck_assert(json_is_false(json_object_get(h, "smt")));
    ck_assert_str_eq(json_string_value(json_object_get(h, "isolated")), "4-11");
    ck_assert_str_eq(json_string_value(json_object_get(h, "tuned_isolated_cores")), "4-11");
    ck_assert_str_eq(json_string_value(json_object_get(h, "cpu_dedicated_set")), "4-11");
    ck_assert_str_eq(json_string_value(json_object_get(h, "cpu_shared_set")), "0-3,12-15");
    ck_assert_str_eq(json_string_value(json_array_get(json_object_get(h, "hugetlbfs_mounts"), 0)),
                     "1G");
    ck_assert_int_eq(
        json_integer_value(json_object_get(
            json_object_get(json_array_get(json_object_get(h, "nodes"), 1), "hugepages"), "1G")),
        8);
    ck_assert(json_is_true(json_object_get(h, "realtime")));
    json_decref(j);
}
END_TEST

/* true when host.not_checked has an entry starting with what */
static bool not_checked(const json_t *report, const char *what) {
    const json_t *a = json_object_get(json_object_get(report, "host"), "not_checked"), *v;
    size_t i;
    ck_assert(json_is_array(a));
    json_array_foreach(a, i, v) if (!strncmp(json_string_value(v), what, strlen(what))) return true;
    return false;
}

static const json_t *hget(const json_t *report, const char *path) {
    const json_t *v = json_object_get(report, "host");
    char buf[128], *save = NULL;
    snprintf(buf, sizeof(buf), "%s", path);
    for (char *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save))
        v = json_object_get(v, k);
    ck_assert_msg(v != NULL, "no host.%s", path);
    return v;
}

static const char *hstr(const json_t *report, const char *path) {
    const char *s = json_string_value(hget(report, path));
    ck_assert_msg(s != NULL, "host.%s is not a string", path);
    return s;
}

/* Each tuning check's evidence, read from the badly tuned host's files. */
START_TEST(test_tuning_texts) {
    json_t *j = run_tree("badly-tuned", 0);
    ck_assert_str_eq(field(j, "thp-always-realtime", "detail"),
                     "sys/kernel/mm/transparent_hugepage/enabled is [always]: khugepaged scans "
                     "and collapses pages in the background and page faults may compact memory, "
                     "which adds latency to the host and to the QEMU threads of real-time "
                     "guests; their memory is on hugetlbfs pages (hw:mem_page_size), which THP "
                     "does not touch, so they gain nothing from it.");
    ck_assert_str_eq(field(j, "thp-defrag-always-realtime", "detail"),
                     "sys/kernel/mm/transparent_hugepage/defrag is [always] (enabled [always]): "
                     "a page fault that wants a huge page stops to compact memory, a stall of "
                     "up to milliseconds in whichever thread faults.");
    ck_assert_ptr_nonnull(strstr(field(j, "ksm-running", "detail"),
                                 "sys/kernel/mm/ksm/run is 1, enabled by "
                                 "etc/systemd/system/multi-user.target.wants/ksmtuned.service: "));
    ck_assert_ptr_nonnull(strstr(field(j, "cpufreq-governor-not-performance", "detail"),
                                 "CPUs 0-39 use the ondemand governor "));
    ck_assert_ptr_nonnull(
        strstr(field(j, "cstates-deep-enabled", "detail"),
               "CPUs 0-39 can enter C6 (133 us) (cpuidle stateK/disable is 0): "));
    ck_assert_ptr_nonnull(strstr(field(j, "cstates-deep-enabled", "detail"),
                                 "the tuned profile \"virtual-host\" does not hold"));
    ck_assert_ptr_nonnull(
        strstr(field(j, "io-scheduler", "detail"), "sda: cfq, sdb: cfq (sys/block/DEV/"));
    ck_assert_ptr_nonnull(
        strstr(field(j, "vhost-net-not-loaded", "detail"), "proc/modules shows no vhost_net: "));
    ck_assert_ptr_nonnull(strstr(field(j, "hugepages-not-on-every-node", "detail"),
                                 "1G pages: node 1 has none, the other nodes with CPUs have up "
                                 "to 16; "));
    ck_assert_ptr_nonnull(strstr(field(j, "hugepages-node-exhausted", "detail"),
                                 "1G pages (free_hugepages): node 0: 0 free of 16; "));
    ck_assert_ptr_nonnull(strstr(field(j, "hugepages-runtime-allocated", "detail"),
                                 "1G pages are reserved but the kernel command line has no "
                                 "hugepages= count for them: they were vm.nr_hugepages = 32 in "
                                 "etc/sysctl.conf, applied by systemd-sysctl."));
    ck_assert_str_eq(field(j, "hugepages-sysctl-short", "detail"),
                     "etc/sysctl.conf sets vm.nr_hugepages = 32 (1G pages) but only 16 are "
                     "reserved: the kernel found too little contiguous free memory when the "
                     "setting was applied after boot.");
    /* the facts in host */
    ck_assert_str_eq(hstr(j, "transparent_hugepage.enabled"), "always");
    ck_assert_str_eq(hstr(j, "transparent_hugepage.defrag"), "always");
    ck_assert_int_eq(json_integer_value(hget(j, "ksm.run")), 1);
    ck_assert_str_eq(hstr(j, "power.not_performance"), "0-39");
    ck_assert_str_eq(hstr(j, "power.other_governors"), "ondemand");
    ck_assert_str_eq(hstr(j, "power.deep_idle_states"), "C6 (133 us)");
    ck_assert_str_eq(hstr(j, "power.cmdline.intel_pstate"), "disable");
    ck_assert(json_is_null(hget(j, "power.intel_pstate")));
    ck_assert_str_eq(hstr(j, "kvm.module"), "kvm_intel");
    ck_assert(json_is_null(hget(j, "kvm.dev_kvm")));
    ck_assert_str_eq(hstr(j, "block_schedulers.sda"), "cfq");
    ck_assert_ptr_null(json_object_get(hget(j, "block_schedulers"), "loop0"));
    ck_assert(json_is_false(hget(j, "vhost_net")));
    ck_assert_int_eq(json_integer_value(hget(j, "sysctl_nr_hugepages")), 32);
    ck_assert_int_eq(
        json_integer_value(json_object_get(
            json_object_get(json_array_get(hget(j, "nodes"), 0), "hugepages_free"), "1G")),
        0);
    ck_assert_uint_eq(json_array_size(hget(j, "not_checked")), 0);
    json_decref(j);

    j = run_tree("rt-good", 0);
    ck_assert_str_eq(hstr(j, "transparent_hugepage.enabled"), "never");
    ck_assert_int_eq(json_integer_value(hget(j, "ksm.run")), 0);
    ck_assert(json_is_null(hget(j, "ksm.enabled_by")));
    ck_assert_str_eq(hstr(j, "power.not_performance"), "");
    ck_assert_str_eq(hstr(j, "power.deep_idle_cpus"), "");
    ck_assert_str_eq(
        json_string_value(json_object_get(hget(j, "power.cmdline"), "intel_idle.max_cstate")), "0");
    ck_assert(json_is_true(hget(j, "kvm.dev_kvm")));
    ck_assert(json_is_false(hget(j, "kvm.nested")) || json_is_null(hget(j, "kvm.nested")));
    ck_assert(json_is_true(hget(j, "vhost_net")));
    ck_assert_str_eq(hstr(j, "block_schedulers.sdb"), "deadline");
    ck_assert_uint_eq(json_array_size(hget(j, "not_checked")), 0);
    json_decref(j);

    /* a capture without the tuning files: each real-time check says it was
     * not made */
    j = run_tree("rt-mistakes", 0);
    ck_assert(not_checked(j, "transparent huge pages: "));
    ck_assert(not_checked(j, "ksm: "));
    ck_assert(not_checked(j, "cpufreq governor: "));
    ck_assert(not_checked(j, "C-states: "));
    ck_assert(not_checked(j, "I/O schedulers: "));
    ck_assert(!not_checked(j, "kvm: "));
    ck_assert(json_is_null(hget(j, "transparent_hugepage.enabled")));
    ck_assert(json_is_null(hget(j, "power.not_performance")));
    json_decref(j);
    j = run_tree("e5-2620-legacy", 0); /* not real-time: THP, governor, C-states unchecked */
    ck_assert(!not_checked(j, "transparent huge pages: "));
    ck_assert(!not_checked(j, "cpufreq governor: "));
    ck_assert(not_checked(j, "ksm: "));
    ck_assert_ptr_nonnull(strstr(field(j, "hugepages-runtime-allocated", "detail"),
                                 "they were written to nr_hugepages by hand or by a script"));
    json_decref(j);
}
END_TEST

/* The same trees as the host model: discovery agrees with the doctor about
 * nova's InvalidConfiguration. */
START_TEST(test_sysfs_agrees) {
    static const char *trees[] = {"rt-good", "rt-mistakes", "e5-2620-legacy"};
    for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++) {
        char root[PATH_MAX];
        numafit_host_t *h = NULL;
        numafit_hostconf_t *conf = NULL;
        numafit_error_t e;
        int r;
        tree_path(root, sizeof(root), trees[i]);
        ck_assert_int_eq(numafit_hostconf_new(&conf), 0);
        if (i == 0) {
            ck_assert_int_eq(numafit_hostconf_set_cpu_dedicated_set(conf, "4-11", &e), 0);
            ck_assert_int_eq(numafit_hostconf_set_cpu_shared_set(conf, "0-3,12-15", &e), 0);
        } else if (i == 1) {
            ck_assert_int_eq(numafit_hostconf_set_cpu_dedicated_set(conf, "4-11", &e), 0);
            ck_assert_int_eq(numafit_hostconf_set_cpu_shared_set(conf, "0-5,12-15", &e), 0);
        } else {
            ck_assert_int_eq(numafit_hostconf_set_vcpu_pin_set(conf, "2-11,14-23", &e), 0);
        }
        r = numafit_host_new_from_sysfs(root, conf, 0, &h, &e);
        if (i == 1) {
            ck_assert_int_eq(r, -EINVAL);
            ck_assert_str_eq(e.exception, "InvalidConfiguration");
        } else {
            ck_assert_msg(r == 0, "%s: %d %s", trees[i], r, e.text);
            ck_assert_uint_eq(numafit_host_get_cell_count(h), 2);
        }
        numafit_host_free(h);
        numafit_hostconf_free(conf);
    }
}
END_TEST

/* ------------------------------------------------------------ trees built here */

static void put(const char *root, const char *rel, const char *text, size_t len) {
    char path[PATH_MAX];
    FILE *f;
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, len, f), len);
    fclose(f);
}

static void puts_(const char *root, const char *rel, const char *text) {
    put(root, rel, text, strlen(text));
}

static char *mktree(void) {
    char tmpl[] = "/tmp/numafit-doctor-XXXXXX";
    char *d = mkdtemp(tmpl);
    ck_assert_ptr_nonnull(d);
    return strdup(d);
}

static void rmtree(const char *root) {
    char cmd[PATH_MAX + 16];
    ck_assert(!strncmp(root, "/tmp/numafit-doctor-", 20));
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_memory_only_node) {
    char *root = mktree(), ids[1024];
    json_t *j;
    int r;
    puts_(root, "sys/devices/system/cpu/online", "0-7\n");
    puts_(root, "sys/devices/system/node/node0/cpulist", "0-3\n");
    puts_(root, "sys/devices/system/node/node0/meminfo", "Node 0 MemTotal: 8388608 kB\n");
    puts_(root, "sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages", "64\n");
    puts_(root, "sys/devices/system/node/node1/cpulist", "4-7\n");
    puts_(root, "sys/devices/system/node/node1/meminfo", "Node 1 MemTotal: 8388608 kB\n");
    puts_(root, "sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages", "0\n");
    puts_(root, "sys/devices/system/node/node2/cpulist", "\n");
    puts_(root, "sys/devices/system/node/node2/meminfo", "Node 2 MemTotal: 67108864 kB\n");
    j = run(root, "[compute]\ncpu_dedicated_set = 2-7\ncpu_shared_set = 0-1\n", 0, &r);
    ids_of(j, ids, sizeof(ids));
    ck_assert_str_eq(ids,
                     "dedicated-not-isolated:w,hugepages-not-on-every-node:w,memory-only-node:i,"
                     "node-without-hugepages:w,dedicated-uneven-nodes:w");
    ck_assert_str_eq(field(j, "memory-only-node", "detail"),
                     "Node 2 has 65536 MiB and no CPUs: nova reports it as a cell without CPUs, "
                     "so no guest NUMA cell is placed there and its memory is not used for "
                     "guests with a NUMA topology.");
    ck_assert_int_eq(r, 0);
    json_decref(j);
    rmtree(root);
    free(root);
}
END_TEST

/* A root that is not a host's root is an error, not a clean bill of
 * health; a root with proc/ alone is checked, every file missing listed. */
START_TEST(test_missing_root) {
    char *root = mktree(), path[PATH_MAX], *out = NULL, ids[512];
    numafit_error_t e;
    json_t *j;
    int r;
    ck_assert_int_eq(numafit_doctor("/nonexistent/numafit-doctor", NULL, 0, 0, &out, &e), -ENOENT);
    ck_assert_str_eq(e.where, "root");
    ck_assert_str_eq(e.text, "/nonexistent/numafit-doctor: No such file or directory");
    ck_assert_int_eq(numafit_doctor(root, NULL, 0, 0, &out, &e), -ENOENT);
    ck_assert_ptr_nonnull(strstr(e.text, "holds neither proc/ nor sys/: not a host's root"));
    puts_(root, "etc/tuned/active_profile", "realtime\n");
    ck_assert_int_eq(numafit_doctor(root, NULL, 0, 0, &out, &e), -ENOENT);
    snprintf(path, sizeof(path), "%s/etc/tuned/active_profile", root);
    ck_assert_int_eq(numafit_doctor(path, NULL, 0, 0, &out, &e), -ENOTDIR);
    ck_assert_str_eq(e.where, "root");
    ck_assert_ptr_null(out);
    snprintf(path, sizeof(path), "%s/proc", root);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    j = run(root, "[compute]\ncpu_dedicated_set=2-3\n", NUMAFIT_DOCTOR_REALTIME, &r);
    ids_of(j, ids, sizeof(ids));
    ck_assert_str_eq(ids, "dedicated-not-isolated:e,tuned-not-realtime-virtual-host:w,"
                          "cpu-mode-not-host-passthrough:i");
    ck_assert_int_eq(r, 1);
    /* proc/cmdline, osrelease, cpu/online, meminfo, mounts are reported */
    ck_assert_uint_ge(json_array_size(json_object_get(json_object_get(j, "host"), "unreadable")),
                      5);
    ck_assert(not_checked(j, "kvm: neither dev/ nor sys/module/ was captured"));
    ck_assert(not_checked(j, "ksm: "));
    ck_assert(!not_checked(j, "C-states: ")); /* tuned realtime holds them */
    json_decref(j);
    rmtree(root);
    free(root);
}
END_TEST

/* Built trees for the tuning checks the fixtures do not cover. */
static json_t *run_built(const char *root, const char *conf, unsigned flags, char *ids,
                         size_t cap) {
    int r;
    json_t *j = run(root, conf, flags, &r);
    ids_of(j, ids, cap);
    return j;
}

START_TEST(test_tuning_built) {
    char *root = mktree(), ids[1024];
    const char *conf = "[compute]\ncpu_dedicated_set=2-3\ncpu_shared_set=0-1\n"
                       "[libvirt]\ncpu_mode=host-passthrough\n";
    json_t *j;
    puts_(root, "proc/cmdline", "ro isolcpus=2-3 nohz_full=2-3 rcu_nocbs=2-3\n");
    puts_(root, "sys/devices/system/cpu/online", "0-3\n");
    puts_(root, "proc/modules", "kvm 1 0 - Live 0x0\nvhost_net 1 0 - Live 0x0\n");
    puts_(root, "sys/block/nvme0n1/queue/scheduler", "[none] mq-deadline kyber bfq\n");
    puts_(root, "dev/null", "");
    /* dev/ captured without kvm, no sys/module: KVM is missing */
    j = run_built(root, conf, 0, ids, sizeof(ids));
    ck_assert_str_eq(ids, "kvm-not-available:e");
    ck_assert_ptr_nonnull(strstr(field(j, "kvm-not-available", "detail"),
                                 "dev/kvm does not exist: nova's libvirt driver"));
    ck_assert(json_is_true(hget(j, "vhost_net"))); /* from proc/modules */
    json_decref(j);
    /* sys/module without kvm_intel or kvm_amd says the same */
    puts_(root, "sys/module/kvm/refcnt", "0\n");
    j = run_built(root, conf, 0, ids, sizeof(ids));
    ck_assert_ptr_nonnull(strstr(field(j, "kvm-not-available", "detail"),
                                 "dev/kvm does not exist and sys/module has neither kvm_intel "
                                 "nor kvm_amd: "));
    ck_assert(json_is_true(hget(j, "vhost_net"))); /* proc/modules lists it */
    json_decref(j);
    puts_(root, "sys/module/kvm_amd/parameters/nested", "1\n");
    puts_(root, "sys/module/vhost_net/refcnt", "0\n");
    /* intel_pstate active, THP madvise with defrag always, KSM off but
     * enabled in etc/default, sysctl.d before sysctl.conf, a tuned latency
     * profile holding the CPUs out of C6 */
    puts_(root, "sys/devices/system/cpu/intel_pstate/status", "active\n");
    puts_(root, "sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
    puts_(root, "sys/kernel/mm/transparent_hugepage/defrag",
          "[always] defer defer+madvise madvise never\n");
    puts_(root, "sys/kernel/mm/ksm/run", "0\n");
    puts_(root, "etc/default/qemu-kvm", "# KSM\nKSM_ENABLED=AUTO\nSLEEP_MILLISECS=200\n");
    puts_(root, "etc/sysctl.d/10-hugepages.conf", "vm.nr_hugepages = 8\n");
    puts_(root, "etc/sysctl.d/20-more.conf", "; a comment\n-vm/nr_hugepages=6\n");
    puts_(root, "etc/sysctl.conf", "kernel.sysrq = 0\n");
    for (int c = 0; c < 4; c++) {
        char rel[128];
        snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", c);
        puts_(root, rel, "performance\n");
        for (int st = 0; st < 3; st++) {
            static const char *const names[] = {"POLL", "C1", "C6"};
            static const char *const lat[] = {"0", "2", "133"};
            snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpuidle/state%d/name", c, st);
            puts_(root, rel, names[st]);
            snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpuidle/state%d/latency", c,
                     st);
            puts_(root, rel, lat[st]);
            snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpuidle/state%d/disable", c,
                     st);
            puts_(root, rel, st == 2 && c < 2 ? "1" : "0");
        }
    }
    puts_(root, "etc/tuned/active_profile", "network-latency\n");
    j = run_built(root, conf, NUMAFIT_DOCTOR_REALTIME, ids, sizeof(ids));
    ck_assert_str_eq(ids, "tuned-not-realtime-virtual-host:w,thp-defrag-always-realtime:w,"
                          "ksmtuned-enabled:w,intel-pstate-active:i");
    ck_assert_ptr_nonnull(strstr(field(j, "ksmtuned-enabled", "detail"),
                                 "but etc/default/qemu-kvm (KSM_ENABLED=AUTO) enables it"));
    ck_assert_str_eq(hstr(j, "kvm.module"), "kvm_amd");
    ck_assert(json_is_true(hget(j, "kvm.nested")));
    ck_assert_int_eq(json_integer_value(hget(j, "sysctl_nr_hugepages")), 6);
    ck_assert_str_eq(hstr(j, "power.deep_idle_cpus"), "2-3");
    ck_assert_str_eq(hstr(j, "block_schedulers.nvme0n1"), "none");
    json_decref(j);
    /* without the latency profile the C6 of CPUs 2-3 is a warning */
    puts_(root, "etc/tuned/active_profile", "virtual-host\n");
    j = run_built(root, conf, NUMAFIT_DOCTOR_REALTIME, ids, sizeof(ids));
    ck_assert_str_eq(ids, "tuned-not-realtime-virtual-host:w,thp-defrag-always-realtime:w,"
                          "ksmtuned-enabled:w,cstates-deep-enabled:w,intel-pstate-active:i");
    ck_assert_ptr_nonnull(
        strstr(field(j, "cstates-deep-enabled", "detail"), "CPUs 2-3 can enter C6"));
    json_decref(j);
    /* not real-time: a note on KSM only */
    j = run_built(root, conf, 0, ids, sizeof(ids));
    ck_assert_str_eq(ids, "ksmtuned-enabled:i");
    json_decref(j);
    /* malformed tuning files are listed, their checks skipped */
    puts_(root, "sys/kernel/mm/transparent_hugepage/enabled", "[always\n");
    puts_(root, "sys/kernel/mm/ksm/run", "7\n");
    puts_(root, "etc/sysctl.conf", "vm.nr_hugepages = lots\n");
    j = run_built(root, conf, NUMAFIT_DOCTOR_REALTIME, ids, sizeof(ids));
    ck_assert_str_eq(ids, "tuned-not-realtime-virtual-host:w,cstates-deep-enabled:w,"
                          "intel-pstate-active:i");
    ck_assert(not_checked(j, "transparent huge pages: "));
    ck_assert(not_checked(j, "ksm: "));
    ck_assert_int_eq(json_integer_value(hget(j, "sysctl_nr_hugepages")), 6);
    {
        const json_t *un = hget(j, "unreadable"), *v;
        size_t i;
        bool thp = false, ksm = false, sysctl = false;
        json_array_foreach(un, i, v) {
            const char *t = json_string_value(v);
            thp |= !strcmp(t, "sys/kernel/mm/transparent_hugepage/enabled: not a [choice]");
            ksm |= !strcmp(t, "sys/kernel/mm/ksm/run: not a number in range");
            sysctl |= !strcmp(t, "etc/sysctl.conf: vm.nr_hugepages is not a count");
        }
        ck_assert(thp && ksm && sysctl);
    }
    json_decref(j);
    rmtree(root);
    free(root);
}
END_TEST

START_TEST(test_no_sys) {
    char *root = mktree(), ids[512];
    json_t *j;
    int r;
    puts_(root, "proc/cmdline",
          "ro quiet isolcpus=domain,managed_irq,2-3 nohz_full=2-3 "
          "rcu_nocbs=2-3 hugepagesz=1G hugepages=0:2,1:2\n");
    puts_(root, "proc/sys/kernel/osrelease", "6.1.0-18-rt-amd64\n");
    puts_(root, "proc/mounts", "hugetlbfs /mnt/huge hugetlbfs rw,pagesize=1024M 0 0\n");
    puts_(root, "etc/tuned/active_profile", "realtime-virtual-host\n");
    j = run(root,
            "[compute]\ncpu_dedicated_set=2-3\ncpu_shared_set=0-1\n"
            "[libvirt]\ncpu_mode=host-passthrough\n",
            0, &r);
    ids_of(j, ids, sizeof(ids));
    ck_assert_str_eq(ids, "");
    ck_assert_int_eq(r, 0);
    ck_assert(json_is_true(json_object_get(json_object_get(j, "host"), "preempt_rt")));
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "host"), "isolcpus")),
                     "2-3");
    json_decref(j);
    rmtree(root);
    free(root);
}
END_TEST

/* tuned changed after boot; hugepages= the kernel could not give in full */
START_TEST(test_boot_mismatch) {
    char *root = mktree(), ids[1024];
    json_t *j;
    int r;
    puts_(root, "proc/cmdline",
          "ro isolcpus=2-3 nohz_full=2-3 rcu_nocbs=2-3 "
          "default_hugepagesz=1G hugepagesz=1G hugepages=4\n");
    puts_(root, "proc/sys/kernel/osrelease", "5.14.0-284.11.1.rt14.296.el9_2.x86_64\n");
    puts_(root, "proc/mounts", "hugetlbfs /dev/hugepages hugetlbfs rw,pagesize=1024M 0 0\n");
    puts_(root, "sys/devices/system/cpu/online", "0-5\n");
    puts_(root, "sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", "2\n");
    puts_(root, "sys/module/kvm_intel/parameters/preemption_timer", "Y\n");
    puts_(root, "etc/tuned/active_profile", "realtime-virtual-host\n");
    puts_(root, "etc/tuned/realtime-virtual-host-variables.conf",
          "# isolated_cores=1\nisolated_cores = 2-5\n");
    j = run(root,
            "[compute]\ncpu_dedicated_set=2-5\ncpu_shared_set=0-1\n"
            "[libvirt]\ncpu_mode=host-passthrough\n",
            0, &r);
    ids_of(j, ids, sizeof(ids));
    ck_assert_str_eq(ids, "tuned-isolated-cores-not-booted:w,hugepages-short:w,"
                          "nohz-full-missing:w,rcu-nocbs-missing:w");
    ck_assert_str_eq(field(j, "hugepages-short", "detail"),
                     "The kernel command line asks for 4 1G pages but only 2 are reserved.");
    ck_assert_str_eq(field(j, "nohz-full-missing", "detail"),
                     "CPUs 4-5 are isolated but not in nohz_full (2-3); the scheduler tick keeps "
                     "interrupting the real-time vCPUs.");
    ck_assert_int_eq(r, 0);
    json_decref(j);
    rmtree(root);
    free(root);
}
END_TEST

START_TEST(test_garbage) {
    char *root = mktree(), *big, ids[1024];
    unsigned char junk[4096];
    json_t *j, *un;
    int r;
    for (size_t i = 0; i < sizeof(junk); i++)
        junk[i] = (unsigned char)(i * 131 + 7);
    put(root, "proc/cmdline", (const char *)junk, sizeof(junk));
    put(root, "proc/meminfo", (const char *)junk, sizeof(junk));
    put(root, "proc/sys/kernel/osrelease", (const char *)junk, sizeof(junk));
    puts_(root, "sys/devices/system/cpu/online", "0-3,banana\n");
    puts_(root, "sys/devices/system/cpu/cpu0/topology/thread_siblings_list", "\xff\xfe");
    puts_(root, "sys/devices/system/node/node0/cpulist", "0-99999999\n");
    puts_(root, "sys/devices/system/node/node0/meminfo", "MemTotal: lots\n");
    puts_(root, "sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages", "-1\n");
    puts_(root, "sys/devices/system/node/nodeX/cpulist", "0\n");
    puts_(root, "sys/module/kvm_intel/parameters/preemption_timer", "maybe\n");
    puts_(root, "etc/tuned/active_profile", "realtime\n");
    puts_(root, "etc/tuned/realtime-variables.conf", "isolated_cores=${f:calc_isolated_cores:2}\n");
    /* an oversized proc/mounts: listed, the mount check is skipped */
    big = malloc(300u << 10);
    ck_assert_ptr_nonnull(big);
    for (size_t i = 0; i < (300u << 10); i++)
        big[i] = i % 64 == 63 ? '\n' : 'a';
    put(root, "proc/mounts", big, 300u << 10);
    free(big);
    put(root, "etc/nova/nova.conf", (const char *)junk, sizeof(junk));
    j = run(root, "[compute\ncpu_dedicated_set = 0-3\n\x7f\x80garbage\n", 0, &r);
    ids_of(j, ids, sizeof(ids));
    ck_assert_str_eq(ids, "nova-conf-syntax:e,cpu-sets-unset:w,tuned-not-realtime-virtual-host:w,"
                          "cpu-mode-not-host-passthrough:i");
    ck_assert_int_eq(r, 1);
    un = json_object_get(json_object_get(j, "host"), "unreadable");
    ck_assert_uint_ge(json_array_size(un), 6);
    {
        bool seen = false;
        size_t i;
        json_t *v;
        json_array_foreach(un, i, v) seen |=
            !strcmp(json_string_value(v), "proc/mounts: larger than 256 KiB");
        ck_assert(seen);
    }
    json_decref(j);
    rmtree(root);
    free(root);
}
END_TEST

/* A FIFO, a directory or a device where a file is expected is listed as
 * unreadable, not read as empty (or without end); so is a node numbered
 * above the cell-id limit (it was left out without a word). */
START_TEST(test_not_regular) {
    char *root = mktree(), path[PATH_MAX];
    json_t *j, *un, *v;
    size_t i;
    int r;
    bool fifo = false, dir = false, dev = false, big = false;
    puts_(root, "sys/devices/system/node/node0/cpulist", "0-3\n");
    puts_(root, "sys/devices/system/node/node0/meminfo", "Node 0 MemTotal: 8388608 kB\n");
    puts_(root, "proc/sys/kernel/osrelease", "6.1.0-18-amd64\n");
    snprintf(path, sizeof(path), "%s/sys/devices/system/cpu", root);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/online", root);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    snprintf(path, sizeof(path), "%s/proc/cmdline", root);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof(path), "%s/proc/meminfo", root);
    ck_assert_int_eq(symlink("/dev/zero", path), 0);
    puts_(root, "sys/devices/system/node/node1024/cpulist", "4-7\n");
    j = run(root, NULL, 0, &r);
    un = json_object_get(json_object_get(j, "host"), "unreadable");
    json_array_foreach(un, i, v) {
        const char *s = json_string_value(v);
        fifo |= !strcmp(s, "sys/devices/system/cpu/online: not a regular file");
        dir |= !strcmp(s, "proc/cmdline: not a regular file");
        dev |= !strcmp(s, "proc/meminfo: not a regular file");
        big |= !strcmp(s, "sys/devices/system/node/node1024: node number above the limit 1023");
    }
    ck_assert_msg(fifo && dir && dev && big, "%s", json_dumps(un, 0));
    json_decref(j);
    rmtree(root);
    free(root);
}
END_TEST

START_TEST(test_arguments) {
    char *out = NULL, *big;
    numafit_error_t e;
    ck_assert_int_eq(numafit_doctor(NULL, NULL, 0, 0, NULL, &e), -EINVAL);
    ck_assert_int_eq(numafit_doctor(NULL, NULL, 0, 1u << 7, &out, &e), -EINVAL);
    ck_assert_int_eq(numafit_doctor(NULL, NULL, 3, 0, &out, &e), -EINVAL);
    ck_assert_int_eq(numafit_doctor("/x", "a\0b", 3, 0, &out, &e), -EBADMSG);
    big = calloc(1, NUMAFIT_DOCTOR_CONF_MAX + 2);
    ck_assert_ptr_nonnull(big);
    memset(big, '#', NUMAFIT_DOCTOR_CONF_MAX + 1);
    ck_assert_int_eq(numafit_doctor("/x", big, NUMAFIT_DOCTOR_CONF_MAX + 1, 0, &out, &e), -ERANGE);
    big[0] = 'x';
    memset(big, 'a', PATH_MAX);
    big[PATH_MAX] = '\0';
    ck_assert_int_eq(numafit_doctor(big, NULL, 0, 0, &out, &e), -EINVAL);
    free(big);
    ck_assert_ptr_null(out);
    /* indented output parses the same */
    ck_assert_int_ge(numafit_doctor("/", NULL, 0, NUMAFIT_DOCTOR_INDENT, &out, NULL), 0);
    ck_assert_ptr_nonnull(strchr(out, '\n'));
    numafit_free(out);
}
END_TEST

static Suite *doctor_suite(void) {
    Suite *s = suite_create("doctor");
    TCase *tc = tcase_create("trees");
    tcase_add_loop_test(tc, test_tree, 0, (int)(sizeof(cases) / sizeof(cases[0])));
    tcase_add_test(tc, test_texts);
    tcase_add_test(tc, test_tuning_texts);
    tcase_add_test(tc, test_sysfs_agrees);
    suite_add_tcase(s, tc);
    tc = tcase_create("robustness");
    tcase_add_test(tc, test_memory_only_node);
    tcase_add_test(tc, test_missing_root);
    tcase_add_test(tc, test_tuning_built);
    tcase_add_test(tc, test_no_sys);
    tcase_add_test(tc, test_boot_mismatch);
    tcase_add_test(tc, test_garbage);
    tcase_add_test(tc, test_not_regular);
    tcase_add_test(tc, test_arguments);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(doctor_suite());
    int failed;
    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
