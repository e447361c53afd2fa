/* Host doctor, the kernel's tuning around the guests: KVM itself,
 * transparent huge pages, KSM, CPU frequency and idle states, block I/O
 * schedulers and vhost_net. The facts are read below the root like the
 * others (doctor_facts.c); a check whose files were not captured says so in
 * host.not_checked instead of passing. The reasons are in doc/doctor.md. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_internal.h"

#define STATES_MAX 16u /* cpuidle states per CPU */

/* ------------------------------------------------------------ reading */

/* A short printable word (at most cap - 1 bytes) into out; false otherwise. */
static bool word(const char *s, char *out, size_t cap) {
    size_t n = strlen(s);
    if (!n || n >= cap)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] <= 0x20 || s[i] >= 0x7f)
            return false;
    memcpy(out, s, n + 1);
    return true;
}

/* The bracketed choice of a sysfs selector ("always [madvise] never",
 * "[mq-deadline] kyber none"), or a file holding one word ("none"). 1 when
 * read, 0 when missing, -1 when malformed (listed as unreadable). */
static int read_choice(struct numafit__doctor *x, const char *rel, char *out, size_t cap) {
    char *s, *o, *c;
    int r = numafit__doctor_read_rel(x, rel, true);
    if (r == -ENOENT)
        return 0;
    if (r < 0)
        return -1;
    s = numafit__trim(x->fs.buf);
    o = strchr(s, '[');
    c = o ? strchr(o, ']') : NULL;
    if (o && c) {
        *c = '\0';
        s = o + 1;
    }
    if ((o && !c) || !word(s, out, cap)) {
        out[0] = '\0';
        numafit__doctor_unreadable(x, rel, "not a [choice]");
        return -1;
    }
    return 1;
}

/* A file holding Y/N or 1/0: 1, 0, or -1 (missing or malformed). */
static int read_yn(struct numafit__doctor *x, const char *rel) {
    const char *s;
    if (numafit__doctor_read_rel(x, rel, true) < 0)
        return -1;
    s = numafit__trim(x->fs.buf);
    if (!strcmp(s, "Y") || !strcmp(s, "1"))
        return 1;
    if (!strcmp(s, "N") || !strcmp(s, "0"))
        return 0;
    numafit__doctor_unreadable(x, rel, "not Y or N");
    return -1;
}

/* The unsigned number of a file up to max: >= 0, or -1 (missing or malformed). */
static long read_small(struct numafit__doctor *x, const char *rel, bool quiet, long max) {
    char *s, *end;
    long v;
    if (numafit__doctor_read_rel(x, rel, quiet) < 0)
        return -1;
    s = numafit__trim(x->fs.buf);
    v = *s >= '0' && *s <= '9' && strlen(s) < 10 ? strtol(s, &end, 10) : -1;
    if (v < 0 || *end || v > max) {
        numafit__doctor_unreadable(x, rel, "not a number in range");
        return -1;
    }
    return v;
}

/* Append name to the ", "-separated list (once; silently stops when full). */
static void list_add(char *list, size_t cap, const char *name) {
    size_t n = strlen(list), l = strlen(name);
    for (const char *p = list; (p = strstr(p, name)); p += l)
        if ((p == list || (p - list >= 2 && p[-2] == ',')) && (p[l] == '\0' || p[l] == ','))
            return;
    if (n + l + 3 < cap)
        snprintf(list + n, cap - n, "%s%s", n ? ", " : "", name);
}

static void read_thp_ksm(struct numafit__doctor *x) {
    static const char *const units[] = {
        "etc/systemd/system/multi-user.target.wants/ksmtuned.service",
        "etc/systemd/system/multi-user.target.wants/ksm.service",
    };
    static const char *const defaults[] = {"etc/default/ksm", "etc/default/qemu-kvm"};
    read_choice(x, "sys/kernel/mm/transparent_hugepage/enabled", x->thp_enabled,
                sizeof(x->thp_enabled));
    read_choice(x, "sys/kernel/mm/transparent_hugepage/defrag", x->thp_defrag,
                sizeof(x->thp_defrag));
    x->ksm_run = (int)read_small(x, "sys/kernel/mm/ksm/run", true, 2);
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]) && !x->ksm_service[0]; i++)
        if (numafit__doctor_exists(x, units[i]) == 1)
            snprintf(x->ksm_service, sizeof(x->ksm_service), "%s", units[i]);
    /* KSM_ENABLED=1 / AUTO / yes (Debian and Ubuntu qemu-kvm defaults) */
    for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]) && !x->ksm_service[0]; i++) {
        if (numafit__doctor_read_rel(x, defaults[i], true) < 0)
            continue;
        for (char *l = x->fs.buf, *next; *l; l = next) {
            char *v;
            next = l + strcspn(l, "\n");
            if (*next)
                *next++ = '\0';
            l = numafit__trim(l);
            if (strncmp(l, "KSM_ENABLED=", 12))
                continue;
            v = numafit__trim(l + 12);
            v += *v == '"' || *v == '\'';
            v[strcspn(v, "\"' \t")] = '\0';
            if (!strcmp(v, "1") || !strcmp(v, "AUTO") || !strcmp(v, "yes"))
                snprintf(x->ksm_service, sizeof(x->ksm_service), "%s (KSM_ENABLED=%s)", defaults[i],
                         v);
            else
                x->ksm_service[0] = '\0';
        }
    }
}

/* cpuN/cpuidle/stateK: a deep state (exit latency above 10 us, or without
 * a latency file any state past C1) that is not disabled. */
static void read_cpuidle(struct numafit__doctor *x, int cpu) {
    char rel[160], name[24];
    uint64_t ids[STATES_MAX];
    uint32_t n = 0;
    struct dirent *de;
    DIR *dir;
    snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpuidle", cpu);
    if (numafit__doctor_opendir(x, rel, &dir) < 0)
        return;
    while ((de = readdir(dir)) && n < STATES_MAX) {
        uint64_t v;
        size_t nd = numafit__rootfs_entry_number(de->d_name, "state", "", &v);
        if (nd && nd < 4)
            ids[n++] = v;
    }
    closedir(dir);
    qsort(ids, n, sizeof(ids[0]), numafit__doctor_cmp_u64);
    for (uint32_t i = 0; i < n; i++) {
        long dis, lat;
        char entry[64];
        snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpuidle/state%llu/disable", cpu,
                 (unsigned long long)ids[i]);
        if ((dis = read_small(x, rel, true, 1)) < 0)
            continue;
        numafit__bit_set(x->b[B_CPUIDLE], (unsigned)cpu);
        x->has[B_CPUIDLE] = true;
        snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpuidle/state%llu/latency", cpu,
                 (unsigned long long)ids[i]);
        lat = read_small(x, rel, true, 100000000);
        if (dis || (lat >= 0 ? lat <= 10 : ids[i] < 2))
            continue;
        numafit__bit_set(x->b[B_DEEPIDLE], (unsigned)cpu);
        snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpuidle/state%llu/name", cpu,
                 (unsigned long long)ids[i]);
        if (numafit__doctor_read_rel(x, rel, true) < 0 ||
            !word(numafit__trim(x->fs.buf), name, sizeof(name)))
            snprintf(name, sizeof(name), "state%llu", (unsigned long long)ids[i]);
        if (lat >= 0)
            snprintf(entry, sizeof(entry), "%s (%ld us)", name, lat);
        else
            snprintf(entry, sizeof(entry), "%s", name);
        list_add(x->deep_states, sizeof(x->deep_states), entry);
    }
}

static void read_power(struct numafit__doctor *x) {
    char rel[128], gov[24];
    int b = -1;
    if (read_choice(x, "sys/devices/system/cpu/intel_pstate/status", x->pstate_status,
                    sizeof(x->pstate_status)) < 0)
        x->pstate_status[0] = '\0';
    while (x->has[B_ONLINE] &&
           (b = numafit__bits_next(x->b[B_ONLINE], NUMAFIT__CPU_WORDS, b)) >= 0) {
        snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", b);
        if (read_choice(x, rel, gov, sizeof(gov)) == 1) {
            numafit__bit_set(x->b[B_GOVERNOR], (unsigned)b);
            x->has[B_GOVERNOR] = true;
            if (strcmp(gov, "performance")) {
                numafit__bit_set(x->b[B_NOTPERF], (unsigned)b);
                list_add(x->governors, sizeof(x->governors), gov);
            }
        }
        read_cpuidle(x, b);
    }
}

static void read_kvm(struct numafit__doctor *x) {
    char rel[96];
    int r;
    x->dev_kvm = x->mod_kvm = x->kvm_nested = x->vhost_net = -1;
    if (numafit__doctor_exists(x, "dev") == 1)
        x->dev_kvm = numafit__doctor_exists(x, "dev/kvm") == 1;
    if (numafit__doctor_exists(x, "sys/module") == 1) {
        x->mod_kvm = 0;
        for (int i = 0; i < 2 && !x->mod_kvm; i++) {
            const char *m = i ? "kvm_amd" : "kvm_intel";
            snprintf(rel, sizeof(rel), "sys/module/%s", m);
            if (numafit__doctor_exists(x, rel) == 1) {
                x->mod_kvm = 1;
                snprintf(x->kvm_vendor, sizeof(x->kvm_vendor), "%s", m);
            }
        }
        /* present there: loaded or built in; absent proves nothing in a
         * capture that copied only some modules' directories */
        if (numafit__doctor_exists(x, "sys/module/vhost_net") == 1) {
            x->vhost_net = 1;
            snprintf(x->vhost_net_from, sizeof(x->vhost_net_from), "sys/module");
        }
    }
    if (x->kvm_vendor[0]) {
        snprintf(rel, sizeof(rel), "sys/module/%s/parameters/nested", x->kvm_vendor);
        x->kvm_nested = read_yn(x, rel);
    }
    /* loaded modules (built-in ones are only in sys/module) */
    if (x->vhost_net < 0 && (r = numafit__doctor_read_rel(x, "proc/modules", true)) >= 0) {
        x->vhost_net = !strncmp(x->fs.buf, "vhost_net ", 10) || strstr(x->fs.buf, "\nvhost_net ");
        snprintf(x->vhost_net_from, sizeof(x->vhost_net_from), "proc/modules");
    }
}

static int cmp_block(const void *a, const void *b) {
    return strcmp((const char *)a, (const char *)b);
}

static void read_block(struct numafit__doctor *x) {
    struct dirent *de;
    DIR *dir;
    char rel[128];
    uint32_t n = 0;
    if (numafit__doctor_opendir(x, "sys/block", &dir) < 0)
        return;
    while ((de = readdir(dir))) {
        const char *d = de->d_name;
        if (d[0] == '.' || !strncmp(d, "loop", 4) || !strncmp(d, "ram", 3) ||
            !strncmp(d, "zram", 4) || !strncmp(d, "sr", 2) || !strncmp(d, "fd", 2) ||
            strlen(d) >= sizeof(x->block[0].name))
            continue;
        if (n == BLOCK_MAX) {
            numafit__doctor_unreadable(x, "sys/block", "too many devices, the rest ignored");
            break;
        }
        snprintf(x->block[n++].name, sizeof(x->block[0].name), "%s", d);
    }
    closedir(dir);
    qsort(x->block, n, sizeof(x->block[0]), cmp_block);
    for (uint32_t i = 0; i < n; i++) {
        snprintf(rel, sizeof(rel), "sys/block/%s/queue/scheduler", x->block[i].name);
        if (read_choice(x, rel, x->block[i].sched, sizeof(x->block[i].sched)) == 1)
            x->block[x->nblock++] = x->block[i];
    }
}

void numafit__doctor_read_tuning(struct numafit__doctor *x) {
    read_thp_ksm(x);
    read_power(x);
    read_kvm(x);
    read_block(x);
}

/* ------------------------------------------------------------ checks */

static void check_kvm(struct numafit__doctor *x) {
    char why[160];
    if (x->dev_kvm == 1 || x->mod_kvm == 1)
        return;
    if (x->dev_kvm < 0 && x->mod_kvm < 0) {
        numafit__doctor_not_checked(x, "kvm", "neither dev/ nor sys/module/ was captured");
        return;
    }
    snprintf(why, sizeof(why), "%s%s%s", x->dev_kvm == 0 ? "dev/kvm does not exist" : "",
             x->dev_kvm == 0 && x->mod_kvm == 0 ? " and " : "",
             x->mod_kvm == 0 ? "sys/module has neither kvm_intel nor kvm_amd" : "");
    numafit__doctor_add(
        x, "kvm-not-available", SEV_ERROR, "KVM is not available",
        "Enable the virtualization extensions (VT-x / AMD-V) in the BIOS, load the module "
        "(modprobe kvm_intel or kvm_amd) and, on a real-time kernel, install its KVM "
        "modules (kernel-rt-kvm).",
        "%s: nova's libvirt driver with virt_type = kvm cannot start guests (libvirt says "
        "\"could not find capabilities for domaintype=kvm\", as on a kernel-rt host "
        "without kernel-rt-kvm).",
        why);
}

static void check_thp(struct numafit__doctor *x) {
    if (!x->realtime)
        return;
    if (!x->thp_enabled[0]) {
        numafit__doctor_not_checked(x, "transparent huge pages",
                                    "sys/kernel/mm/transparent_hugepage/enabled was not read");
        return;
    }
    if (!strcmp(x->thp_enabled, "always"))
        numafit__doctor_add(
            x, "thp-always-realtime", SEV_WARNING,
            "Transparent huge pages are always on on a real-time host",
            "echo never > /sys/kernel/mm/transparent_hugepage/enabled, and add "
            "transparent_hugepage=never to the kernel command line to keep it after a reboot.",
            "sys/kernel/mm/transparent_hugepage/enabled is [always]: khugepaged scans and "
            "collapses pages in the background and page faults may compact memory, which adds "
            "latency to the host and to the QEMU threads of real-time guests; their memory is "
            "on hugetlbfs pages (hw:mem_page_size), which THP does not touch, so they gain "
            "nothing from it.");
    if (!strcmp(x->thp_defrag, "always") && strcmp(x->thp_enabled, "never"))
        numafit__doctor_add(
            x, "thp-defrag-always-realtime", SEV_WARNING,
            "Transparent huge page faults compact memory synchronously",
            "echo never > /sys/kernel/mm/transparent_hugepage/defrag (or madvise, or "
            "transparent_hugepage=never on the kernel command line).",
            "sys/kernel/mm/transparent_hugepage/defrag is [always] (enabled [%s]): a page "
            "fault that wants a huge page stops to compact memory, a stall of up to "
            "milliseconds in whichever thread faults.",
            x->thp_enabled);
}

static void check_ksm(struct numafit__doctor *x) {
    int sev = x->realtime ? SEV_WARNING : SEV_INFO;
    if (x->ksm_run < 0) {
        numafit__doctor_not_checked(x, "ksm", "sys/kernel/mm/ksm/run was not read");
        return;
    }
    if (x->ksm_run == 1)
        numafit__doctor_add(
            x, "ksm-running", sev, "KSM merges guest memory",
            "echo 2 > /sys/kernel/mm/ksm/run (stop and unmerge), and systemctl disable --now "
            "ksmtuned ksm (or KSM_ENABLED=0 in /etc/default/qemu-kvm) so that it stays off.",
            "sys/kernel/mm/ksm/run is 1%s%s: ksmd scans guest memory for identical pages and "
            "merges them, and a write to a merged page takes a copy-on-write fault. KSM trades "
            "CPU time and latency for memory: worth it when memory is short, not for pinned "
            "guests whose performance matters; their huge-page memory (hugetlbfs) is never "
            "merged anyway.",
            x->ksm_service[0] ? ", enabled by " : "", x->ksm_service);
    else if (x->ksm_service[0])
        numafit__doctor_add(
            x, "ksmtuned-enabled", sev, "ksmtuned starts KSM when memory runs low",
            "systemctl disable --now ksmtuned ksm (or KSM_ENABLED=0 in /etc/default/qemu-kvm).",
            "KSM is off now (sys/kernel/mm/ksm/run is %d) but %s enables it: ksmtuned turns "
            "KSM on when free memory drops, and guests then pay the scanning and the "
            "copy-on-write faults of merged pages when memory is tight.",
            x->ksm_run, x->ksm_service);
}

static bool tuned_holds_latency(const struct numafit__doctor *x) {
    static const char *const latency[] = {
        "realtime",        "realtime-virtual-host", "realtime-virtual-guest",
        "network-latency", "latency-performance",   "cpu-partitioning",
    };
    char prof[256];
    snprintf(prof, sizeof(prof), "%s", x->has_tuned ? x->tuned_profile : "");
    for (char *save = NULL, *t = strtok_r(prof, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
        for (size_t i = 0; i < sizeof(latency) / sizeof(latency[0]); i++)
            if (!strcmp(t, latency[i]))
                return true;
    return false;
}

static void check_governor(struct numafit__doctor *x) {
    if (!x->has[B_GOVERNOR]) {
        if (x->realtime)
            numafit__doctor_not_checked(
                x, "cpufreq governor",
                "no sys/devices/system/cpu/cpuN/cpufreq/scaling_governor was read (no cpufreq "
                "driver, or not captured)");
        return;
    }
    if (!bempty(x->b[B_NOTPERF]))
        numafit__doctor_add(
            x, "cpufreq-governor-not-performance", x->realtime ? SEV_WARNING : SEV_INFO,
            "CPUs do not run the performance governor",
            "cpupower frequency-set -g performance (or tuned-adm profile "
            "realtime-virtual-host, or virtual-host for hosts without real-time guests), and "
            "turn power management off in the BIOS.",
            "CPUs %s use the %s governor (sys/devices/system/cpu/cpuN/cpufreq/"
            "scaling_governor): the clock changes with the load, so a vCPU that wakes up runs "
            "slower until the frequency rises again; real-time hosts keep every CPU at full "
            "speed.",
            numafit__doctor_fmt(x, x->b[B_NOTPERF]), x->governors);
}

static void check_cstates(struct numafit__doctor *x) {
    bool cmd_limit = !strcmp(x->cmd_idle, "poll") || !strcmp(x->cmd_intel_idle, "0") ||
                     !strcmp(x->cmd_intel_idle, "1");
    if (!x->has[B_CPUIDLE]) {
        if (!cmd_limit && !tuned_holds_latency(x))
            numafit__doctor_not_checked(
                x, "C-states",
                "no sys/devices/system/cpu/cpuN/cpuidle/stateK/disable was read and the kernel "
                "command line does not limit them (idle=poll, intel_idle.max_cstate=)");
        return;
    }
    if (!bempty(x->b[B_DEEPIDLE]) && !tuned_holds_latency(x))
        numafit__doctor_add(
            x, "cstates-deep-enabled", SEV_WARNING, "CPUs may enter deep C-states",
            "Disable CPU power management and C-states in the BIOS, or limit them on the "
            "kernel command line (intel_idle.max_cstate=0 processor.max_cstate=1, or "
            "idle=poll), or let tuned realtime-virtual-host hold /dev/cpu_dma_latency.",
            "CPUs %s can enter %s (cpuidle stateK/disable is 0%s%s%s%s): waking from a deep "
            "C-state takes that long and adds it to a real-time vCPU's latency, and the tuned "
            "profile \"%s\" does not hold the CPUs out of them.",
            numafit__doctor_fmt(x, x->b[B_DEEPIDLE]), x->deep_states,
            x->cmd_intel_idle[0] ? ", intel_idle.max_cstate=" : "", x->cmd_intel_idle,
            x->cmd_processor_cstate[0] ? ", processor.max_cstate=" : "", x->cmd_processor_cstate,
            x->has_tuned ? x->tuned_profile : "(none)");
}

static void check_power(struct numafit__doctor *x) {
    check_governor(x);
    if (!x->realtime)
        return;
    check_cstates(x);
    if (!strcmp(x->pstate_status, "active"))
        numafit__doctor_add(
            x, "intel-pstate-active", SEV_INFO, "intel_pstate manages the CPU frequency",
            "Add intel_pstate=disable to the kernel command line (tuned's realtime profiles "
            "do) and use the performance governor of acpi-cpufreq.",
            "sys/devices/system/cpu/intel_pstate/status is active%s%s: the driver (and with "
            "HWP the processor itself) picks the frequency even under the performance "
            "policy; the real-time set-up boots with intel_pstate=disable.",
            x->cmd_pstate[0] ? ", intel_pstate=" : "", x->cmd_pstate);
}

static void check_io(struct numafit__doctor *x) {
    char list[512];
    size_t off = 0;
    list[0] = '\0';
    for (uint32_t i = 0; i < x->nblock && off < sizeof(list) - 64; i++) {
        const char *s = x->block[i].sched;
        if (!strcmp(s, "mq-deadline") || !strcmp(s, "deadline") || !strcmp(s, "none") ||
            !strcmp(s, "noop"))
            continue;
        off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s: %s", off ? ", " : "",
                                x->block[i].name, s);
    }
    if (off)
        numafit__doctor_add(
            x, "io-scheduler", SEV_INFO, "Block devices use a fair-queueing I/O scheduler",
            "echo mq-deadline > /sys/block/DEV/queue/scheduler (none for NVMe), and a udev "
            "rule or elevator= so that it stays.",
            "%s (sys/block/DEV/queue/scheduler): fair queueing shares the disk between "
            "processes at the cost of each request's latency; for disks holding guest images "
            "deadline bounds the wait and keeps the throughput, and NVMe needs no scheduler.",
            list);
    else if (!x->nblock && numafit__doctor_exists(x, "sys/block") != 1)
        numafit__doctor_not_checked(x, "I/O schedulers", "sys/block was not captured");
    if (x->vhost_net == 0)
        numafit__doctor_add(
            x, "vhost-net-not-loaded", SEV_INFO, "vhost_net is not loaded",
            "modprobe vhost_net, and echo vhost_net > /etc/modules-load.d/vhost_net.conf.",
            "%s shows no vhost_net: virtio-net back ends then run in QEMU's user space, with "
            "a copy and a switch between user and kernel space per packet; vhost_net moves "
            "them into the kernel (libvirt uses it when /dev/vhost-net can be opened).",
            x->vhost_net_from);
    else if (x->vhost_net < 0)
        numafit__doctor_not_checked(x, "vhost_net",
                                    "proc/modules was not read and sys/module has no vhost_net");
}

void numafit__doctor_check_tuning(struct numafit__doctor *x) {
    check_kvm(x);
    check_thp(x);
    check_ksm(x);
    check_power(x);
    check_io(x);
}
