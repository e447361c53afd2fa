/* Host doctor, the checks: the facts gathered by doctor_facts.c and the
 * nova.conf entries (ini.c) turned into findings, each with its reason and
 * fix (doc/doctor.md), in a fixed order. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "discover_internal.h"
#include "doctor_internal.h"

static const char *cpu_option(const struct numafit__doctor *x) {
    return x->has[B_DEDICATED] ? "[compute] cpu_dedicated_set" : "[DEFAULT] vcpu_pin_set";
}

/* The CPU set options of nova.conf and the bitmaps they fill. */
static const struct {
    const char *section, *key;
    int which;
} conf_sets[] = {
    {"compute", "cpu_dedicated_set", B_DEDICATED},
    {"compute", "cpu_shared_set", B_SHARED},
    {"DEFAULT", "vcpu_pin_set", B_PINSET},
};

/* Options nova reads from one section only, found in another. */
static void check_option_sections(struct numafit__doctor *x) {
    for (uint32_t i = 0; i < x->ini.nent; i++) {
        const char *home = numafit__nova_conf_misplaced(&x->ini.ent[i]);
        char fix[256];
        if (!home)
            continue;
        snprintf(fix, sizeof(fix), "Move %s to the [%s] section.", x->ini.ent[i].key, home);
        numafit__doctor_add(x, "nova-option-wrong-section", SEV_WARNING,
                            "A nova option is in the wrong section and is ignored", fix,
                            "nova.conf line %u sets %s in [%s], but nova reads it only from [%s]; "
                            "the value \"%s\" has no effect.",
                            x->ini.ent[i].line, x->ini.ent[i].key, x->ini.ent[i].section, home,
                            x->ini.ent[i].value);
    }
}

/* One CPU set option: its syntax, its CPUs online. */
static void check_cpu_set(struct numafit__doctor *x, size_t k) {
    const char *v = numafit__ini_get(&x->ini, conf_sets[k].section, conf_sets[k].key);
    if (!v || !*v)
        return; /* an empty value is unset, as in nova */
    if (numafit__cpuspec_parse(v, x->b[conf_sets[k].which], NULL) < 0 ||
        bempty(x->b[conf_sets[k].which])) {
        numafit__doctor_add(
            x, "nova-cpu-set-invalid", SEV_ERROR, "A CPU set option is not valid",
            "Write the CPU set in nova's syntax, e.g. \"4-11\" or \"2-7,^4\", with at "
            "least one CPU.",
            "[%s] %s = %s does not give any CPU; nova raises Invalid and nova-compute does "
            "not start.",
            conf_sets[k].section, conf_sets[k].key, v);
        memset(x->b[conf_sets[k].which], 0, NUMAFIT__CPU_WORDS * sizeof(uint64_t));
        return;
    }
    x->has[conf_sets[k].which] = true;
    if (x->has[B_ONLINE]) {
        bits_andnot(x->b[B_TMP], x->b[conf_sets[k].which], x->b[B_ONLINE]);
        if (!bempty(x->b[B_TMP]))
            numafit__doctor_add(
                x, "nova-cpu-set-offline", SEV_ERROR, "A CPU set names CPUs that are not online",
                "Remove the CPUs that do not exist or are offline from the option, or bring "
                "them online.",
                "[%s] %s = %s includes CPUs %s, which are not online (online: %s); nova "
                "raises Invalid at start-up.",
                conf_sets[k].section, conf_sets[k].key, v, numafit__doctor_fmt(x, x->b[B_TMP]),
                numafit__doctor_fmt(x, x->b[B_ONLINE]));
    }
}

/* The CPU set options together: nova's InvalidConfiguration, legacy mode,
 * none set; then the CPUs nova pins guests to. */
static void check_cpu_set_modes(struct numafit__doctor *x) {
    if (x->has[B_DEDICATED] && x->has[B_SHARED]) {
        bits_and(x->b[B_TMP], x->b[B_DEDICATED], x->b[B_SHARED]);
        if (!bempty(x->b[B_TMP]))
            numafit__doctor_add(
                x, "cpu-sets-overlap", SEV_ERROR, "cpu_dedicated_set and cpu_shared_set overlap",
                "Make the two sets disjoint: keep the isolated CPUs in cpu_dedicated_set and "
                "the rest in cpu_shared_set.",
                "CPUs %s are in both [compute] cpu_dedicated_set (%s) and cpu_shared_set (%s); "
                "nova raises InvalidConfiguration and nova-compute does not start.",
                numafit__doctor_fmt(x, x->b[B_TMP]), numafit__doctor_fmt(x, x->b[B_DEDICATED]),
                numafit__doctor_fmt(x, x->b[B_SHARED]));
    }
    if (x->has[B_DEDICATED] && x->has[B_PINSET])
        numafit__doctor_add(
            x, "vcpu-pin-set-with-dedicated", SEV_ERROR,
            "vcpu_pin_set is combined with cpu_dedicated_set",
            "Remove [DEFAULT] vcpu_pin_set and put the CPUs for unpinned guests in [compute] "
            "cpu_shared_set.",
            "[DEFAULT] vcpu_pin_set and [compute] cpu_dedicated_set are both set; nova raises "
            "InvalidConfiguration and nova-compute does not start.");
    else if (x->has[B_PINSET])
        numafit__doctor_add(
            x, "vcpu-pin-set-legacy", SEV_WARNING, "vcpu_pin_set is deprecated (legacy mode)",
            "Replace [DEFAULT] vcpu_pin_set with [compute] cpu_dedicated_set (CPUs for pinned "
            "guests) and cpu_shared_set (CPUs for unpinned guests and emulator threads).",
            "[DEFAULT] vcpu_pin_set = %s has been deprecated since nova 20.0.0 (Train): pinned "
            "and unpinned guests then share the same CPUs, nova reports no PCPU inventory to "
            "placement, and the CPUs are used for both.",
            numafit__doctor_fmt(x, x->b[B_PINSET]));
    else if (!x->has[B_DEDICATED] && !x->has[B_SHARED])
        numafit__doctor_add(
            x, "cpu-sets-unset", SEV_WARNING, "No CPU set is configured",
            "Set [compute] cpu_dedicated_set to the isolated CPUs and cpu_shared_set to the "
            "CPUs left for the host and unpinned guests.",
            "Neither [compute] cpu_dedicated_set, cpu_shared_set nor [DEFAULT] vcpu_pin_set "
            "is set: nova offers every online CPU%s%s%s to both pinned and unpinned guests, "
            "including the CPUs the host itself runs on.",
            x->has[B_ONLINE] ? " (" : "",
            x->has[B_ONLINE] ? numafit__doctor_fmt(x, x->b[B_ONLINE]) : "",
            x->has[B_ONLINE] ? ")" : "");
    if (x->has[B_DEDICATED]) {
        memcpy(x->b[B_PINNED], x->b[B_DEDICATED], NUMAFIT__CPU_WORDS * sizeof(uint64_t));
        x->has[B_PINNED] = true;
    } else if (x->has[B_PINSET]) {
        memcpy(x->b[B_PINNED], x->b[B_PINSET], NUMAFIT__CPU_WORDS * sizeof(uint64_t));
        x->has[B_PINNED] = true;
    }
}

/* nova.conf: syntax, misplaced options, the CPU sets. */
static void check_conf(struct numafit__doctor *x) {
    if (!x->has_conf) {
        numafit__doctor_add(
            x, "nova-conf-not-given", SEV_INFO, "nova.conf was not checked",
            "Pass the compute node's nova.conf (numafit doctor --nova-conf "
            "/etc/nova/nova.conf).",
            "Without nova.conf the checks of cpu_dedicated_set, cpu_shared_set, vcpu_pin_set "
            "and reserved_huge_pages against the host are skipped.");
        return;
    }
    if (x->ini.syntax_line)
        numafit__doctor_add(
            x, "nova-conf-syntax", SEV_ERROR, "nova.conf cannot be parsed",
            "Fix the line: every line must be a [section] header, key = value, a comment "
            "(# or ;) or an indented continuation of the previous value.",
            "Line %d of nova.conf is not a section, an option or a comment; oslo.config "
            "refuses the file and nova-compute does not start.",
            x->ini.syntax_line);
    check_option_sections(x);
    for (size_t k = 0; k < sizeof(conf_sets) / sizeof(conf_sets[0]); k++)
        check_cpu_set(x, k);
    check_cpu_set_modes(x);
}

static void check_realtime_wanted(struct numafit__doctor *x) {
    const char *prio =
        x->has_conf ? numafit__ini_get(&x->ini, "libvirt", "realtime_scheduler_priority") : NULL;
    if (x->flags & NUMAFIT_DOCTOR_REALTIME)
        numafit__doctor_ok_json(
            x, json_array_append_new(x->rt_reasons, numafit__doctor_js(x, "requested")));
    if (prio)
        numafit__doctor_ok_json(
            x, json_array_append_new(
                   x->rt_reasons,
                   numafit__doctor_js(x, "nova.conf [libvirt] realtime_scheduler_priority")));
    if (x->tuned_rt)
        numafit__doctor_ok_json(
            x,
            json_array_append_new(x->rt_reasons, numafit__doctor_js(x, "tuned realtime profile")));
    x->realtime = json_array_size(x->rt_reasons) > 0;
}

/* B_ISOLATED: the union of isolcpus, sys/devices/system/cpu/isolated,
 * nohz_full and the isolated_cores of an isolating tuned profile. */
static void isolated_union(struct numafit__doctor *x) {
    bool iso = x->has[B_ISOLCPUS] || x->has[B_SYSISO] || x->has[B_NOHZ] ||
               (x->has[B_TUNED] && x->tuned_isolating);
    if (x->has[B_ISOLCPUS])
        bits_or(x->b[B_ISOLATED], x->b[B_ISOLCPUS]);
    if (x->has[B_SYSISO])
        bits_or(x->b[B_ISOLATED], x->b[B_SYSISO]);
    if (x->has[B_NOHZ])
        bits_or(x->b[B_ISOLATED], x->b[B_NOHZ]);
    if (x->has[B_TUNED] && x->tuned_isolating)
        bits_or(x->b[B_ISOLATED], x->b[B_TUNED]);
    x->has[B_ISOLATED] = iso && !bempty(x->b[B_ISOLATED]);
}

/* tuned's isolated_cores reach the kernel only after the boot loader
 * entry is regenerated and the host rebooted */
static void check_tuned_booted(struct numafit__doctor *x) {
    if (x->has[B_TUNED] && x->tuned_isolating && x->has_cmdline &&
        (!x->has[B_ISOLCPUS] ||
         !numafit__bits_equal(x->b[B_TUNED], x->b[B_ISOLCPUS], NUMAFIT__CPU_WORDS)))
        numafit__doctor_add(
            x, "tuned-isolated-cores-not-booted", SEV_WARNING,
            "tuned's isolated_cores are not on the kernel command line",
            "Check the tuned_params line of the boot loader configuration (grep tuned_params= "
            "/boot/grub2/grub.cfg), regenerate it if needed (grub2-mkconfig -o "
            "/boot/grub2/grub.cfg) and reboot.",
            "tuned isolated_cores = %s, but the running kernel has isolcpus=%s; the profile "
            "was changed after the last boot, or its boot loader settings were not applied.",
            numafit__doctor_fmt(x, x->b[B_TUNED]),
            x->has[B_ISOLCPUS] ? numafit__doctor_fmt(x, x->b[B_ISOLCPUS]) : "(none)");
}

/* The CPUs for pinned guests against the isolated CPUs. */
static void check_pinned_isolated(struct numafit__doctor *x) {
    const char *src;
    src = x->has[B_DEDICATED] ? "cpu_dedicated_set" : "vcpu_pin_set";
    bits_andnot(x->b[B_TMP], x->b[B_PINNED], x->b[B_ISOLATED]);
    if (!bempty(x->b[B_TMP]))
        numafit__doctor_add(
            x, "dedicated-not-isolated", x->realtime ? SEV_ERROR : SEV_WARNING,
            "CPUs for pinned guests are not isolated from the host",
            "Isolate them: set isolated_cores to the same list in "
            "/etc/tuned/realtime-virtual-host-variables.conf, run tuned-adm profile "
            "realtime-virtual-host (which adds isolcpus=, nohz_full= and rcu_nocbs= to the "
            "kernel command line) and reboot; or add isolcpus= to GRUB_CMDLINE_LINUX.",
            "%s = %s, but CPUs %s are not isolated (isolcpus, tuned isolated_cores or "
            "nohz_full: %s); host processes and interrupts still run on them next to the "
            "pinned vCPUs.",
            src, numafit__doctor_fmt(x, x->b[B_PINNED]), numafit__doctor_fmt(x, x->b[B_TMP]),
            x->has[B_ISOLATED] ? numafit__doctor_fmt(x, x->b[B_ISOLATED]) : "none");
    bits_andnot(x->b[B_TMP], x->b[B_ISOLATED], x->b[B_PINNED]);
    if (x->has[B_ISOLATED] && x->has[B_SHARED])
        bits_andnot(x->b[B_TMP], x->b[B_TMP], x->b[B_SHARED]);
    if (x->has[B_ISOLATED] && !bempty(x->b[B_TMP]))
        numafit__doctor_add(
            x, "isolated-not-used", SEV_WARNING, "Isolated CPUs are not given to nova",
            "Add them to the CPU set for pinned guests, or remove them from isolcpus / "
            "isolated_cores so that the host can use them.",
            "CPUs %s are isolated from the host scheduler but are not in %s (%s): neither the "
            "host nor any guest uses them.",
            numafit__doctor_fmt(x, x->b[B_TMP]), src, numafit__doctor_fmt(x, x->b[B_PINNED]));
    if (x->has[B_SHARED] && x->has[B_ISOLATED]) {
        bits_and(x->b[B_TMP], x->b[B_SHARED], x->b[B_ISOLATED]);
        if (!bempty(x->b[B_TMP]))
            numafit__doctor_add(
                x, "shared-set-isolated", SEV_WARNING, "cpu_shared_set contains isolated CPUs",
                "Remove the isolated CPUs from [compute] cpu_shared_set (or from the isolation).",
                "CPUs %s are in [compute] cpu_shared_set and isolated; the kernel does not "
                "balance load onto isolated CPUs, so the floating vCPUs and emulator threads "
                "of unpinned guests pile up on one of them.",
                numafit__doctor_fmt(x, x->b[B_TMP]));
    }
}

static void check_isolation(struct numafit__doctor *x) {
    isolated_union(x);
    check_tuned_booted(x);
    if (x->has[B_PINNED])
        check_pinned_isolated(x);
}

static void check_smt(struct numafit__doctor *x) {
    int b = -1;
    char rel[128];
    if (x->smt == 1 && x->realtime)
        numafit__doctor_add(
            x, "ht-enabled-realtime", SEV_WARNING, "Hyper-threading is on on a real-time host",
            "Disable hyper-threading (or the logical processor option) in the BIOS, as the "
            "real-time set-up does, or at run time with echo off > "
            "/sys/devices/system/cpu/smt/control.",
            "The host runs %u threads per core; a real-time vCPU then shares its core's "
            "execution units and caches with its sibling thread, which adds latency.",
            x->threads_per_core ? x->threads_per_core : 2);
    if (x->smt == 1 && x->has[B_DEDICATED])
        numafit__doctor_add(
            x, "isolate-policy-impossible", SEV_INFO,
            "Guests with hw:cpu_thread_policy=isolate cannot land on this host",
            "Offer isolate flavors only on hosts with hyper-threading off, or use "
            "hw:cpu_thread_policy=require / prefer here.",
            "With [compute] cpu_dedicated_set set and hyper-threading on, nova translates "
            "hw:cpu_thread_policy=isolate into trait:HW_CPU_HYPERTHREADING=forbidden; this "
            "host reports HW_CPU_HYPERTHREADING, so such guests are never scheduled here.");
    if (x->smt != 1 || !x->has[B_PINNED])
        return;
    /* pinned CPUs whose core-mates are not pinned CPUs */
    while ((b = numafit__bits_next(x->b[B_PINNED], NUMAFIT__CPU_WORDS, b)) >= 0) {
        snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", b);
        if (numafit__doctor_read_cpulist(x, rel, true, x->b[B_TMP]) < 0)
            continue;
        if (x->has[B_ONLINE])
            bits_and(x->b[B_TMP], x->b[B_TMP], x->b[B_ONLINE]);
        bits_andnot(x->b[B_TMP], x->b[B_TMP], x->b[B_PINNED]);
        bits_or(x->b[B_SIBLESS], x->b[B_TMP]);
    }
    if (!bempty(x->b[B_SIBLESS]))
        numafit__doctor_add(
            x, "dedicated-siblings-not-dedicated", SEV_WARNING,
            "Pinned CPUs share cores with CPUs nova does not pin",
            "Put whole cores into the CPU set for pinned guests: add the sibling threads, or "
            "remove the CPUs whose siblings must stay with the host.",
            "The thread siblings %s of the CPUs in %s (%s) are not in it; host processes or "
            "unpinned guests running there share the core's execution units with the pinned "
            "vCPUs.",
            numafit__doctor_fmt(x, x->b[B_SIBLESS]), cpu_option(x),
            numafit__doctor_fmt(x, x->b[B_PINNED]));
}

static uint64_t node_pages(const struct dnode *d, uint64_t size_kb) {
    for (uint32_t k = 0; k < d->npsizes; k++)
        if (d->ps[k].size_kb == size_kb)
            return d->ps[k].count;
    return 0;
}

static bool node_has_size(const struct dnode *d, uint64_t size_kb) {
    for (uint32_t k = 0; k < d->npsizes; k++)
        if (d->ps[k].size_kb == size_kb)
            return true;
    return false;
}

/* The huge page sizes with pages, over the nodes, or the global counts
 * without nodes (at most PSIZES_MAX * 2); returns the number of pages. */
static uint64_t page_sizes_in_use(const struct numafit__doctor *x, uint64_t *sizes,
                                  uint32_t *ret_n) {
    uint64_t total_all = 0;
    uint32_t nsizes = 0;
    /* the page sizes in use, over nodes, or the global counts without nodes */
    for (uint32_t i = 0; i < x->nnodes; i++)
        for (uint32_t k = 0; k < x->nodes[i].npsizes; k++) {
            const struct dpsize *p = &x->nodes[i].ps[k];
            bool seen = false;
            total_all += p->count;
            for (uint32_t s = 0; s < nsizes; s++)
                seen |= sizes[s] == p->size_kb;
            if (p->count && !seen && nsizes < PSIZES_MAX * 2)
                sizes[nsizes++] = p->size_kb;
        }
    if (!x->nnodes)
        for (uint32_t k = 0; k < x->nglobal; k++) {
            total_all += x->global[k].count;
            if (x->global[k].count && nsizes < PSIZES_MAX * 2)
                sizes[nsizes++] = x->global[k].size_kb;
        }
    *ret_n = nsizes;
    return total_all;
}

/* Pages of size kb (named nm) spread evenly over the nodes with CPUs. */
static void check_size_balance(struct numafit__doctor *x, uint64_t kb, const char *nm) {
    uint64_t lo = UINT64_MAX, hi = 0;
    uint32_t ncpu_nodes = 0;
    /* balance over the nodes that have CPUs */
    for (uint32_t i = 0; i < x->nnodes; i++) {
        uint64_t c = node_pages(&x->nodes[i], kb);
        if (!x->nodes[i].cpus || bempty(x->nodes[i].cpus))
            continue;
        ncpu_nodes++;
        lo = c < lo ? c : lo;
        hi = c > hi ? c : hi;
    }
    if (ncpu_nodes > 1 && lo == 0 && hi > 0) {
        char none[256];
        size_t off = 0;
        none[0] = '\0';
        for (uint32_t i = 0; i < x->nnodes && off < sizeof(none) - 16; i++)
            if (x->nodes[i].cpus && !bempty(x->nodes[i].cpus) && !node_pages(&x->nodes[i], kb))
                off += (size_t)snprintf(none + off, sizeof(none) - off, "%s%u", off ? ", " : "",
                                        x->nodes[i].id);
        numafit__doctor_add(
            x, "hugepages-not-on-every-node", SEV_WARNING,
            "Huge pages are reserved on some NUMA nodes only",
            "Reserve pages of this size on every node with CPUs: hugepages=N with "
            "hugepagesz= on the kernel command line spreads them, or echo N > "
            "/sys/devices/system/node/nodeX/hugepages/hugepages-<size>kB/nr_hugepages per node.",
            "%s pages: node%s %s ha%s none, the other nodes with CPUs have up to %llu; a guest "
            "NUMA cell with hw:mem_page_size takes its pages from the node of its CPUs, so "
            "guests never fit on %s and a two-node guest fails with \"Requested instance NUMA "
            "topology cannot fit the given host NUMA topology\".",
            nm, strchr(none, ',') ? "s" : "", none, strchr(none, ',') ? "ve" : "s",
            (unsigned long long)hi, strchr(none, ',') ? "those nodes" : "that node");
    } else if (ncpu_nodes > 1 && lo != hi) {
        char counts[512];
        size_t off = 0;
        counts[0] = '\0';
        for (uint32_t i = 0; i < x->nnodes && off < sizeof(counts) - 32; i++)
            if (x->nodes[i].cpus && !bempty(x->nodes[i].cpus))
                off += (size_t)snprintf(counts + off, sizeof(counts) - off, "%snode %u: %llu",
                                        off ? ", " : "", x->nodes[i].id,
                                        (unsigned long long)node_pages(&x->nodes[i], kb));
        numafit__doctor_add(
            x, "hugepages-unbalanced", SEV_WARNING,
            "Huge pages are not spread evenly over the NUMA nodes",
            "Reserve the same number per node, e.g. echo N > "
            "/sys/devices/system/node/nodeX/hugepages/hugepages-<size>kB/nr_hugepages at "
            "boot, or hugepages=0:N,1:N on the kernel command line.",
            "%s pages per node: %s; guests whose NUMA cell is placed on the node with fewer "
            "pages fit less often, and the difference cannot be used by guests on the "
            "other node.",
            nm, counts);
    }
}

/* libvirt needs a hugetlbfs mount for each size it backs guests with. */
static void check_size_mounted(struct numafit__doctor *x, uint64_t kb, const char *nm) {
    bool mounted = false;
    for (uint32_t m = 0; m < x->nmounts; m++)
        mounted |= x->mount_kb[m] == kb;
    if (x->has_mounts && !mounted) {
        char fix[256];
        snprintf(fix, sizeof(fix),
                 "Mount it: mount -t hugetlbfs -o pagesize=%s hugetlbfs /dev/hugepages%s "
                 "(and add it to /etc/fstab), then restart libvirtd.",
                 nm, x->nmounts ? nm : "");
        numafit__doctor_add(
            x, "hugetlbfs-not-mounted", SEV_ERROR,
            "Huge pages are reserved but no hugetlbfs is mounted for them", fix,
            "%s huge pages are reserved but /proc/mounts has no hugetlbfs mount with "
            "pagesize=%s; libvirt cannot back guest memory with them and guests with "
            "hw:mem_page_size fail to start.",
            nm, nm);
    }
}

/* Nodes whose pages of size kb are all in use. */
static void check_size_free(struct numafit__doctor *x, uint64_t kb, const char *nm) {
    char list[512];
    size_t off = 0;
    list[0] = '\0';
    for (uint32_t i = 0; i < x->nnodes && off < sizeof(list) - 48; i++)
        for (uint32_t k = 0; k < x->nodes[i].npsizes; k++) {
            const struct dpsize *p = &x->nodes[i].ps[k];
            if (p->size_kb == kb && p->count && p->has_free && !p->free)
                off +=
                    (size_t)snprintf(list + off, sizeof(list) - off, "%snode %u: 0 free of %llu",
                                     off ? ", " : "", x->nodes[i].id, (unsigned long long)p->count);
        }
    if (off)
        numafit__doctor_add(
            x, "hugepages-node-exhausted", SEV_WARNING, "A NUMA node has no free huge pages left",
            "Check which guests hold them (grep -i huge /proc/PID/numa_maps, virsh dumpxml), "
            "reserve more pages on the node, or move guests.",
            "%s pages (free_hugepages): %s; no further guest cell with hw:mem_page_size=%s "
            "fits on %s.",
            nm, list, nm, strchr(list, ',') ? "these nodes" : "this node");
}

/* 1 GiB pages should come from the boot command line; true when said so. */
static bool check_1g_on_cmdline(struct numafit__doctor *x, uint64_t kb) {
    bool on_cmdline = true;
    if (kb == KIB_1G && x->has_cmdline) {
        on_cmdline = x->default_hpsz_kb == KIB_1G;
        for (uint32_t c = 0; c < x->ncmdpages; c++)
            on_cmdline |= x->cmdpages[c].size_kb == KIB_1G;
        if (!on_cmdline)
            numafit__doctor_add(
                x, "hugepages-1g-not-on-cmdline", SEV_WARNING,
                "1G huge pages are not configured on the kernel command line",
                "Add default_hugepagesz=1G hugepagesz=1G hugepages=N to "
                "GRUB_CMDLINE_LINUX in /etc/default/grub, run grub2-mkconfig -o "
                "/boot/grub2/grub.cfg and reboot.",
                "1G pages are reserved but the kernel command line has neither "
                "default_hugepagesz=1G nor hugepagesz=1G: they were allocated after boot, "
                "which needs 1 GiB of contiguous free memory per page and gives fewer "
                "pages once memory is fragmented.");
    }
    return !on_cmdline;
}

/* The default huge page size: default_hugepagesz=, else proc/meminfo's. */
static uint64_t default_size(const struct numafit__doctor *x) {
    return x->default_hpsz_kb ? x->default_hpsz_kb : x->meminfo_hpsz_kb;
}

/* Pages of size kb with no hugepages= count for them on the command line. */
static void check_runtime_allocated(struct numafit__doctor *x, uint64_t kb, const char *nm) {
    char how[256];
    for (uint32_t c = 0; c < x->ncmdpages; c++)
        if (x->cmdpages[c].count >= 0 &&
            (x->cmdpages[c].size_kb == kb || (!x->cmdpages[c].size_kb && default_size(x) == kb)))
            return;
    if (x->sysctl_hugepages >= 0 && default_size(x) == kb)
        snprintf(how, sizeof(how), "vm.nr_hugepages = %lld in %s, applied by systemd-sysctl",
                 (long long)x->sysctl_hugepages, x->sysctl_file);
    else
        snprintf(how, sizeof(how),
                 "written to nr_hugepages by hand or by a script (no vm.nr_hugepages for "
                 "them in etc/sysctl.conf or etc/sysctl.d)");
    numafit__doctor_add(
        x, "hugepages-runtime-allocated", kb >= KIB_1G ? SEV_WARNING : SEV_INFO,
        "Huge pages are allocated after boot",
        "Reserve them on the kernel command line (hugepagesz=SIZE hugepages=N, per node "
        "hugepages=0:N,1:N), or make sure the allocation runs before libvirtd and "
        "nova-compute start; restart nova-compute after changing the pages.",
        "%s pages are reserved but the kernel command line has no hugepages= count for them: "
        "they were %s. Allocating after boot needs free contiguous memory%s, and "
        "nova-compute reads the host's pages from libvirt's capabilities once when it starts, "
        "so pages added later are not offered until it is restarted.",
        nm, how,
        kb >= KIB_1G ? " (1 GiB blocks: once memory is fragmented it gives fewer pages than "
                       "asked, or none)"
                     : "");
}

/* sysctl's vm.nr_hugepages (default size) that the kernel could not give. */
static void check_sysctl_short(struct numafit__doctor *x) {
    uint64_t kb = default_size(x), have = 0;
    bool known = false;
    char nm[32];
    if (x->sysctl_hugepages <= 0 || !kb)
        return;
    for (uint32_t k = 0; k < x->nglobal; k++)
        if (x->global[k].size_kb == kb) {
            have = x->global[k].count;
            known = true;
        }
    for (uint32_t i = 0; i < x->nnodes && !known; i++)
        have += node_pages(&x->nodes[i], kb);
    if ((known || x->nnodes) && have < (uint64_t)x->sysctl_hugepages)
        numafit__doctor_add(
            x, "hugepages-sysctl-short", SEV_WARNING,
            "Fewer huge pages than vm.nr_hugepages asks for",
            "Reserve the pages on the kernel command line instead (default_hugepagesz=SIZE "
            "hugepagesz=SIZE hugepages=N) and reboot.",
            "%s sets vm.nr_hugepages = %lld (%s pages) but only %llu are reserved: the "
            "kernel found too little contiguous free memory when the setting was applied "
            "after boot.",
            x->sysctl_file, (long long)x->sysctl_hugepages,
            numafit__doctor_size_name(kb, nm, sizeof(nm)), (unsigned long long)have);
}

/* hugepages=N on the command line that the kernel could not fully give */
static void check_hugepages_short(struct numafit__doctor *x) {
    char nm[32];
    for (uint32_t c = 0; c < x->ncmdpages; c++) {
        uint64_t kb = x->cmdpages[c].size_kb ? x->cmdpages[c].size_kb
                      : x->default_hpsz_kb   ? x->default_hpsz_kb
                                             : x->meminfo_hpsz_kb;
        for (uint32_t k = 0; k < x->nglobal && kb && x->cmdpages[c].count > 0; k++)
            if (x->global[k].size_kb == kb && x->global[k].count < (uint64_t)x->cmdpages[c].count)
                numafit__doctor_add(
                    x, "hugepages-short", SEV_WARNING,
                    "Fewer huge pages than the kernel command line asks for",
                    "Lower hugepages= to what the host can give, or free memory at boot "
                    "(fewer early services, less reserved memory).",
                    "The kernel command line asks for %lld %s pages but only %llu are reserved.",
                    (long long)x->cmdpages[c].count, numafit__doctor_size_name(kb, nm, sizeof(nm)),
                    (unsigned long long)x->global[k].count);
    }
}

static void check_hugepages(struct numafit__doctor *x) {
    uint64_t sizes[PSIZES_MAX * 2], total_all;
    uint32_t nsizes = 0;
    char nm[32];
    bool sizes_known = x->nglobal > 0; /* some page size directory was read */
    for (uint32_t i = 0; i < x->nnodes; i++)
        sizes_known |= x->nodes[i].npsizes > 0;
    total_all = page_sizes_in_use(x, sizes, &nsizes);
    if (sizes_known && !total_all) {
        numafit__doctor_add(
            x, "hugepages-none", x->realtime ? SEV_ERROR : SEV_WARNING,
            "No huge pages are reserved",
            "Reserve huge pages at boot: add default_hugepagesz=1G hugepagesz=1G hugepages=N "
            "to GRUB_CMDLINE_LINUX, regenerate the boot loader configuration and reboot (or "
            "set vm.nr_hugepages in /etc/sysctl.conf).",
            "No NUMA node has huge pages, so guests with hw:mem_page_size (such as the "
            "real-time flavor's hw:mem_page_size=1GB) fail with \"Requested instance NUMA "
            "topology cannot fit the given host NUMA topology\".");
        return;
    }
    qsort(sizes, nsizes, sizeof(sizes[0]), numafit__doctor_cmp_u64);
    for (uint32_t s = 0; s < nsizes; s++) {
        numafit__doctor_size_name(sizes[s], nm, sizeof(nm));
        check_size_balance(x, sizes[s], nm);
        check_size_free(x, sizes[s], nm);
        check_size_mounted(x, sizes[s], nm);
        if (!check_1g_on_cmdline(x, sizes[s]) && x->has_cmdline)
            check_runtime_allocated(x, sizes[s], nm);
    }
    check_hugepages_short(x);
    check_sysctl_short(x);
}

/* The reserved_huge_pages values of nova.conf into *hc (NULL without any),
 * a finding for each one nova refuses. */
static int reserved_values(struct numafit__doctor *x, numafit_hostconf_t **hc) {
    numafit_error_t e;
    for (uint32_t i = 0; i < x->ini.nent; i++) {
        const struct numafit__ini_ent *en = &x->ini.ent[i];
        if (strcmp(en->section, "DEFAULT") || strcmp(en->key, "reserved_huge_pages"))
            continue;
        if (!*hc && numafit_hostconf_new(hc) < 0) {
            x->oom = true;
            return -ENOMEM;
        }
        if (numafit_hostconf_add_reserved_huge_pages(*hc, en->value, &e) == -ENOMEM) {
            x->oom = true;
            break;
        } else if (e.code != NUMAFIT_E_OK) {
            numafit__doctor_add(
                x, "reserved-huge-pages-invalid", SEV_ERROR,
                "A reserved_huge_pages value is not valid",
                "Write each value as node:N,size:S,count:C, e.g. node:0,size:1GB,count:1 or "
                "node:0,size:2048,count:64.",
                "nova.conf line %u: reserved_huge_pages = %s: %s; nova raises "
                "InvalidReservedMemoryPagesOption.",
                en->line, en->value, e.text);
            continue;
        }
    }
    return 0;
}

/* The valid values against the host's nodes and page sizes. */
static void check_reserved_vs_host(struct numafit__doctor *x, const numafit_hostconf_t *hc) {
    char nm[32];
    for (uint32_t r = 0; hc && r < hc->nresv; r++) {
        const struct numafit__resv *rv = &hc->resv[r];
        const struct dnode *d = NULL;
        for (uint32_t i = 0; i < x->nnodes; i++)
            if ((int64_t)x->nodes[i].id == rv->node)
                d = &x->nodes[i];
        if (!x->nnodes)
            break;
        if (!d || rv->size_kb <= 0 || !node_has_size(d, (uint64_t)rv->size_kb)) {
            numafit__doctor_add(
                x, "reserved-huge-pages-unknown", SEV_WARNING,
                "reserved_huge_pages names a node or page size the host does not have",
                "Correct the node id or size, or remove the value.",
                "reserved_huge_pages (node %lld, size %s, count %llu) does not match the host: "
                "%s; nova ignores the value and reserves nothing.",
                (long long)rv->node,
                rv->size_kb > 0 ? numafit__doctor_size_name((uint64_t)rv->size_kb, nm, sizeof(nm))
                                : "?",
                (unsigned long long)rv->count,
                !d ? "the host has no such NUMA node" : "that node has no pages of this size");
            continue;
        }
        if (rv->count > node_pages(d, (uint64_t)rv->size_kb))
            numafit__doctor_add(
                x, "reserved-huge-pages-exceed", SEV_WARNING,
                "reserved_huge_pages reserves more pages than the node has",
                "Lower the count, or reserve more huge pages on the node.",
                "reserved_huge_pages reserves %llu pages of %s on node %lld, which has %llu; "
                "nova reports a negative number of free pages and no guest gets pages there.",
                (unsigned long long)rv->count,
                numafit__doctor_size_name((uint64_t)rv->size_kb, nm, sizeof(nm)),
                (long long)rv->node, (unsigned long long)node_pages(d, (uint64_t)rv->size_kb));
    }
}

static void check_file_backed_memory(struct numafit__doctor *x) {
    const char *fbm = numafit__ini_get(&x->ini, "libvirt", "file_backed_memory");
    bool any_pages = false;
    for (uint32_t i = 0; i < x->nnodes; i++)
        for (uint32_t k = 0; k < x->nodes[i].npsizes; k++)
            any_pages |= x->nodes[i].ps[k].count > 0;
    if (fbm && strcmp(numafit__trim((char *)fbm), "0") && any_pages)
        numafit__doctor_add(
            x, "file-backed-memory-hugepages", SEV_WARNING,
            "file_backed_memory is on while huge pages are reserved",
            "Set [libvirt] file_backed_memory = 0 on hosts meant for huge-page guests, or "
            "release the huge pages.",
            "[libvirt] file_backed_memory = %s: nova refuses guests with hw:mem_page_size "
            "on this host (MemoryPagesUnsupported), so the reserved huge pages are unused.",
            fbm);
}

static void check_reserved(struct numafit__doctor *x) {
    numafit_hostconf_t *hc = NULL;
    if (!x->has_conf || reserved_values(x, &hc) < 0)
        return;
    check_reserved_vs_host(x, hc);
    numafit_hostconf_free(hc);
    check_file_backed_memory(x);
}

static void check_rt_kernel(struct numafit__doctor *x) {
    if (!x->preempt_rt && x->osrelease[0])
        numafit__doctor_add(
            x, "kernel-not-rt", SEV_WARNING, "The kernel is not a real-time (PREEMPT_RT) kernel",
            "Install and boot the real-time kernel (yum install kernel-rt kernel-rt-kvm "
            "tuned-profiles-realtime; make it the default boot entry).",
            "Kernel %s is not PREEMPT_RT (no \"rt\" in the release, sys/kernel/realtime is not "
            "1). On the reference host the worst host latency was 5004 us without and 42 us "
            "with kernel-rt; guests running a real-time kernel measured about the same either "
            "way (51 and 55 us), guests without one did much better on kernel-rt (17737 "
            "instead of 69721 us).",
            x->osrelease);
}

static void check_rt_tuned(struct numafit__doctor *x) {
    bool rvh = false;
    char prof[256];
    snprintf(prof, sizeof(prof), "%s", x->tuned_profile);
    for (char *save = NULL, *t = strtok_r(prof, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
        rvh |= !strcmp(t, "realtime-virtual-host");
    if (!rvh)
        numafit__doctor_add(
            x, "tuned-not-realtime-virtual-host", SEV_WARNING,
            "The tuned profile is not realtime-virtual-host",
            "Set isolated_cores in /etc/tuned/realtime-virtual-host-variables.conf, run "
            "systemctl enable --now tuned and tuned-adm profile realtime-virtual-host, then "
            "reboot.",
            "The active tuned profile is %s%s%s; realtime-virtual-host is the profile for KVM "
            "hosts of real-time guests (isolated CPUs, kernel threads and interrupts moved off "
            "them, KVM timer tuning).",
            x->has_tuned ? "\"" : "", x->has_tuned ? x->tuned_profile : "not set (no tuned)",
            x->has_tuned ? "\"" : "");
}

/* The isolated CPUs without the timer tick and RCU callbacks. */
static void check_rt_isolation(struct numafit__doctor *x) {
    bits_andnot(x->b[B_TMP], x->b[B_ISOLATED], x->b[B_NOHZ]);
    if (!bempty(x->b[B_TMP]))
        numafit__doctor_add(
            x, "nohz-full-missing", SEV_WARNING, "Isolated CPUs still get the timer tick",
            "Add nohz_full=<the isolated CPUs> to the kernel command line (the "
            "realtime-virtual-host profile does this) and reboot.",
            "CPUs %s are isolated but not in nohz_full (%s); the scheduler tick keeps "
            "interrupting the real-time vCPUs.",
            numafit__doctor_fmt(x, x->b[B_TMP]),
            x->has[B_NOHZ] ? numafit__doctor_fmt(x, x->b[B_NOHZ]) : "none");
    bits_andnot(x->b[B_TMP], x->b[B_ISOLATED], x->b[B_RCU]);
    if (!bempty(x->b[B_TMP]))
        numafit__doctor_add(
            x, "rcu-nocbs-missing", SEV_WARNING, "Isolated CPUs still run RCU callbacks",
            "Add rcu_nocbs=<the isolated CPUs> to the kernel command line (the "
            "realtime-virtual-host profile does this) and reboot.",
            "CPUs %s are isolated but not in rcu_nocbs (%s); RCU callbacks still run on "
            "them.",
            numafit__doctor_fmt(x, x->b[B_TMP]),
            x->has[B_RCU] ? numafit__doctor_fmt(x, x->b[B_RCU]) : "none");
}

static void check_rt_cpu_mode(struct numafit__doctor *x) {
    const char *mode = numafit__ini_get(&x->ini, "libvirt", "cpu_mode");
    if (!mode || strcmp(mode, "host-passthrough"))
        numafit__doctor_add(
            x, "cpu-mode-not-host-passthrough", SEV_INFO,
            "The guest CPU model is not host-passthrough",
            "Set [libvirt] cpu_mode = host-passthrough and restart nova-compute.",
            "[libvirt] cpu_mode is %s%s%s; the real-time set-up gives guests the host CPU "
            "as it is (host-passthrough), and with other modes libvirt can warn \"host "
            "doesn't support requested feature\" when guests start.",
            mode ? "\"" : "", mode ? mode : "not set (host-model for kvm)", mode ? "\"" : "");
}

static void check_realtime(struct numafit__doctor *x) {
    if (!x->realtime)
        return;
    check_rt_kernel(x);
    check_rt_tuned(x);
    if (x->has[B_ISOLATED] && x->has_cmdline)
        check_rt_isolation(x);
    if (x->preemption_timer == 0)
        numafit__doctor_add(
            x, "kvm-preemption-timer-off", SEV_INFO, "KVM does not use the VMX preemption timer",
            "Enable it: options kvm_intel preemption_timer=Y in /etc/modprobe.d/kvm.conf, then "
            "reload kvm_intel with no guest running; compare with cyclictest in a guest.",
            "kvm_intel preemption_timer is N: the guest's TSC deadline timer is emulated with "
            "a host hrtimer. With vCPUs pinned to isolated CPUs the VMX preemption timer "
            "measured a lower guest latency (average 7 us instead of 10 us with cyclictest).");
    if (x->has_conf)
        check_rt_cpu_mode(x);
}

static void check_memory_only_nodes(struct numafit__doctor *x) {
    for (uint32_t i = 0; i < x->nnodes; i++) {
        const struct dnode *d = &x->nodes[i];
        if (d->has_mem && d->memtotal_kib && (!d->cpus || bempty(d->cpus)))
            numafit__doctor_add(
                x, "memory-only-node", SEV_INFO, "A NUMA node has memory but no CPUs",
                "Nothing to fix on the host; do not count this node's memory for pinned "
                "guests.",
                "Node %u has %llu MiB and no CPUs: nova reports it as a cell without CPUs, so "
                "no guest NUMA cell is placed there and its memory is not used for guests "
                "with a NUMA topology.",
                d->id, (unsigned long long)(d->memtotal_kib / 1024));
    }
}

/* Pinned CPUs (x->b[B_TMP]) on node d without huge pages while other nodes have them. */
static void check_node_hugepages(struct numafit__doctor *x, const struct dnode *d) {
    uint64_t here = 0, anywhere = 0;
    for (uint32_t k = 0; k < d->npsizes; k++)
        here += d->ps[k].count;
    for (uint32_t j = 0; j < x->nnodes; j++)
        for (uint32_t k = 0; k < x->nodes[j].npsizes; k++)
            anywhere += x->nodes[j].ps[k].count;
    if (!here && anywhere)
        numafit__doctor_add(
            x, "node-without-hugepages", SEV_WARNING,
            "Pinned CPUs on a NUMA node without huge pages",
            "Reserve huge pages on this node too (echo N > "
            "/sys/devices/system/node/nodeX/hugepages/hugepages-<size>kB/nr_hugepages, "
            "or hugepages=0:N,1:N on the kernel command line).",
            "Node %u has CPUs %s for pinned guests but no huge pages; guests with "
            "hw:mem_page_size never fit there, so these CPUs stay idle.",
            d->id, numafit__doctor_fmt(x, x->b[B_TMP]));
}

/* How the CPUs for pinned guests spread over the nodes. */
static void check_pinned_nodes(struct numafit__doctor *x) {
    uint32_t lo = UINT32_MAX, hi = 0, nspan = 0;
    char counts[512];
    size_t off = 0;
    counts[0] = '\0';
    for (uint32_t i = 0; i < x->nnodes; i++) {
        const struct dnode *d = &x->nodes[i];
        uint32_t n;
        if (!d->cpus)
            continue;
        bits_and(x->b[B_TMP], x->b[B_PINNED], d->cpus);
        n = bcount(x->b[B_TMP]);
        if (!n)
            continue;
        nspan++;
        lo = n < lo ? n : lo;
        hi = n > hi ? n : hi;
        if (off < sizeof(counts) - 48)
            off += (size_t)snprintf(counts + off, sizeof(counts) - off, "%snode %u: %u (%s)",
                                    off ? ", " : "", d->id, n, numafit__doctor_fmt(x, x->b[B_TMP]));
        check_node_hugepages(x, d);
    }
    if (nspan > 1 && lo != hi)
        numafit__doctor_add(
            x, "dedicated-uneven-nodes", SEV_WARNING,
            "CPUs for pinned guests are spread unevenly over the NUMA nodes",
            "Give each node the same number of CPUs in the set (e.g. the same cores on each "
            "socket), so that a guest sized for one node fits on either.",
            "%s = %s gives %s; a guest with more vCPUs than the smaller share fits only on the "
            "larger node, or must be split over two nodes (hw:numa_nodes=2), which costs "
            "latency and memory bandwidth.",
            x->has[B_DEDICATED] ? "cpu_dedicated_set" : "vcpu_pin_set",
            numafit__doctor_fmt(x, x->b[B_PINNED]), counts);
}

static void check_numa(struct numafit__doctor *x) {
    check_memory_only_nodes(x);
    if (x->has[B_PINNED])
        check_pinned_nodes(x);
}

void numafit__doctor_check(struct numafit__doctor *x) {
    check_conf(x);
    check_realtime_wanted(x);
    check_isolation(x);
    check_smt(x);
    check_hugepages(x);
    check_reserved(x);
    check_realtime(x);
    numafit__doctor_check_tuning(x);
    check_numa(x);
}
