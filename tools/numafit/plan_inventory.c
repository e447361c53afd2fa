/*
 * numafit plan over a fleet: placement's inventory of each host, nova's
 * first step (doc/placement.md). Built once the fleet is loaded: the
 * records nova's libvirt driver reports (numafit_inventory_new_from_host
 * with --nova-conf and --set), the host's allocation ratios (the same ones
 * its NUMA limits use), the dump's memory_mb, local_gb and
 * disk_allocation_ratio; the usage of the instances the host already has.
 * Also: how many of a request an inventory still takes, and how much
 * memory of guests without NUMA topology the cells cannot hold.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numafit.h>

#include "plan_fleet.h"
#include "plan_load.h"

#define USED_LIMIT (1ll << 53) /* the library's largest usage */

const char *plan_stop_name(int stop) {
    switch (stop) {
        case STOP_TRAIT:
            return "HW_CPU_HYPERTHREADING";
        case STOP_NUMA:
            return "NUMA";
        case STOP_CAPPED:
            return "max_instances";
        case STOP_PCI:
            return "PCI_DEVICES";
        default: {
            const char *n = numafit_resource_class_to_string(stop);
            return n ? n : "other";
        }
    }
}

int64_t plan_inventory_capacity(const numafit_inventory_class_t *c) {
    double cap = trunc((double)(c->total - c->reserved) * c->allocation_ratio);
    return cap >= (double)USED_LIMIT ? USED_LIMIT : cap < 0 ? 0 : (int64_t)cap;
}

uint64_t plan_inventory_room(const numafit_inventory_t *inv, const int64_t *amounts, unsigned bits,
                             uint64_t max, int *ret_stop) {
    int traits = numafit_inventory_get_traits(inv), stop = STOP_CAPPED;
    bool smt = traits > 0 && (traits & NUMAFIT_TRAIT_HW_CPU_HYPERTHREADING);
    uint64_t k = max;

    if (((bits & NUMAFIT_RESOURCES_SMT_REQUIRED) && !smt) ||
        ((bits & NUMAFIT_RESOURCES_SMT_FORBIDDEN) && smt)) {
        *ret_stop = STOP_TRAIT;
        return 0;
    }
    for (int rc = 0; rc < NUMAFIT_RC_COUNT; rc++) {
        numafit_inventory_class_t c;
        int64_t a = amounts[rc], used = 0, cap;
        uint64_t kc;
        if (!a)
            continue;
        if (numafit_inventory_get_class(inv, rc, &c) != 1 || a < c.min_unit || a > c.max_unit ||
            a % c.step_size) {
            kc = 0;
        } else {
            numafit_inventory_get_used(inv, rc, &used);
            cap = plan_inventory_capacity(&c);
            kc = cap > used ? (uint64_t)(cap - used) / (uint64_t)a : 0;
        }
        if (kc < k) {
            k = kc;
            stop = rc;
        }
    }
    *ret_stop = stop;
    return k;
}

void plan_inventory_take(numafit_inventory_t *inv, const int64_t *amounts, uint64_t k) {
    for (int rc = 0; rc < NUMAFIT_RC_COUNT && k; rc++) {
        int64_t used = 0;
        if (!amounts[rc])
            continue;
        numafit_inventory_get_used(inv, rc, &used);
        numafit_inventory_set_used(inv, rc, used + amounts[rc] * (int64_t)k);
    }
}

/* Memory of guests without NUMA topology (nonnuma_mb) that the cells'
 * room for small pages cannot hold; *numa: some NUMA guest uses the cells. */
static uint64_t host_overcommit(const numafit_host_t *h, uint64_t nonnuma_mb, double ram_ratio,
                                bool *numa) {
    int n = numafit_host_get_cell_count(h);
    uint64_t room = 0;
    *numa = false;
    for (int ci = 0; ci < n; ci++) {
        unsigned ui = (unsigned)ci;
        uint64_t mem = 0, used = 0, npg = 0, huge_total = 0, huge_used = 0, small_used, small;
        uint64_t cpu = 0, pinned = 0;
        double cap;
        numafit_host_get_cell_stat(h, ui, NUMAFIT_CELL_MEMORY_MB, 0, &mem);
        numafit_host_get_cell_stat(h, ui, NUMAFIT_CELL_MEMORY_USED_MB, 0, &used);
        numafit_host_get_cell_stat(h, ui, NUMAFIT_CELL_CPU_USAGE, 0, &cpu);
        numafit_host_get_cell_stat(h, ui, NUMAFIT_CELL_PINNED_CPUS, 0, &pinned);
        numafit_host_get_cell_stat(h, ui, NUMAFIT_CELL_PAGE_SIZES, 0, &npg);
        *numa = *numa || used || cpu || pinned;
        for (unsigned k = 0; k < npg; k++) {
            uint64_t size, total, pused, resv;
            if (numafit_host_get_cell_pages(h, ui, k, 0, &size, &total, &pused, &resv) < 0 ||
                size <= 4)
                continue;
            huge_total += total * size / 1024;
            huge_used += pused * size / 1024;
        }
        /* small pages: the cell's memory outside huge pages, at the RAM
         * ratio, less what NUMA guests on small pages use */
        small_used = used > huge_used ? used - huge_used : 0;
        small = mem > huge_total ? mem - huge_total : 0;
        cap = floor((double)small * ram_ratio);
        if (cap > (double)small_used)
            room += (uint64_t)(cap - (double)small_used);
    }
    return nonnuma_mb > room ? nonnuma_mb - room : 0;
}

void plan_overcommit_add(const struct plan *pl, struct plan_overcommit *o, const numafit_host_t *h,
                         size_t hi, uint64_t nonnuma_mb) {
    double r = pl->limits[pl->hosts[hi].limits].ram_ratio;
    bool numa;
    uint64_t over;
    if (!nonnuma_mb)
        return;
    over = host_overcommit(h, nonnuma_mb, r > 0 ? r : 1.0, &numa);
    o->shared_hosts += numa;
    if (!over)
        return;
    o->hosts++;
    o->memory_mb += over;
    if (over > o->worst_mb) {
        o->worst_mb = over;
        o->worst_host = (uint32_t)hi;
    }
}

/* Set class rc's ratio (> 0) or total (> 0) when the inventory has the class. */
static int adjust(numafit_inventory_t *inv, int rc, double ratio, int64_t total,
                  numafit_error_t *e) {
    numafit_inventory_class_t c;
    if (numafit_inventory_get_class(inv, rc, &c) != 1)
        return 0;
    if (ratio > 0)
        c.allocation_ratio = ratio;
    if (total > 0)
        c.total = c.max_unit = total;
    return numafit_inventory_set_class(inv, rc, &c, e);
}

/* What the host's instances use: those in its NUMA topology (cells),
 * those without (--instances rows with vcpus and memory_mb), or the dump's
 * *_used columns when they say more. */
static void host_usage(struct plan_host *ph, numafit_inventory_t *inv, int64_t reserved_mb,
                       int64_t reserved_gb, int64_t used[NUMAFIT_RC_COUNT]) {
    int n = numafit_host_get_cell_count(ph->h);
    uint64_t cpu = 0, pinned = 0, mem = 0, v;
    numafit_inventory_class_t c;
    bool pcpu = numafit_inventory_get_class(inv, NUMAFIT_RC_PCPU, &c) == 1;
    for (int ci = 0; ci < n; ci++) {
        v = 0;
        numafit_host_get_cell_stat(ph->h, (unsigned)ci, NUMAFIT_CELL_CPU_USAGE, 0, &v);
        cpu += v;
        v = 0;
        numafit_host_get_cell_stat(ph->h, (unsigned)ci, NUMAFIT_CELL_PINNED_CPUS, 0, &v);
        pinned += v;
        v = 0;
        numafit_host_get_cell_stat(ph->h, (unsigned)ci, NUMAFIT_CELL_MEMORY_USED_MB, 0, &v);
        mem += v;
    }
    /* pinned guests take PCPU, or VCPU on a host without a dedicated set */
    used[NUMAFIT_RC_PCPU] = pcpu ? (int64_t)pinned : 0;
    used[NUMAFIT_RC_VCPU] = (int64_t)(cpu + (pcpu ? 0 : pinned) + ph->nonnuma_vcpus);
    used[NUMAFIT_RC_MEMORY_MB] = (int64_t)(mem + ph->nonnuma_mb);
    used[NUMAFIT_RC_DISK_GB] = (int64_t)ph->nonnuma_disk_gb;
    /* the dump's counters: every instance's vCPUs (pinned too), memory and
     * disk plus the host's reserved amounts */
    if (ph->db_vcpus_used >= 0) {
        int64_t u = ph->db_vcpus_used - used[NUMAFIT_RC_PCPU];
        if (u > used[NUMAFIT_RC_VCPU])
            used[NUMAFIT_RC_VCPU] = u;
    }
    if (ph->db_memory_used_mb >= 0 &&
        ph->db_memory_used_mb - reserved_mb > used[NUMAFIT_RC_MEMORY_MB])
        used[NUMAFIT_RC_MEMORY_MB] = ph->db_memory_used_mb - reserved_mb;
    if (ph->db_disk_used_gb >= 0 && ph->db_disk_used_gb - reserved_gb > used[NUMAFIT_RC_DISK_GB])
        used[NUMAFIT_RC_DISK_GB] = ph->db_disk_used_gb - reserved_gb;
    for (int rc = 0; rc < NUMAFIT_RC_COUNT; rc++)
        if (used[rc] > USED_LIMIT)
            used[rc] = USED_LIMIT;
    /* the memory the cells do not count is that of guests without NUMA topology */
    ph->nonnuma_mb =
        (uint64_t)used[NUMAFIT_RC_MEMORY_MB] > mem ? (uint64_t)used[NUMAFIT_RC_MEMORY_MB] - mem : 0;
}

int plan_build_inventories(struct plan *pl) {
    unsigned flags = pl->profile == NUMAFIT_PROFILE_ZED ? NUMAFIT_INVENTORY_ZED : 0;
    size_t no_disk = 0;
    long *first = NULL;

    pl->disk_planned = false;
    if (!pl->inventory)
        return 0;
    if (pl->ngroups > 0) {
        first = malloc((size_t)pl->ngroups * sizeof(*first));
        if (!first) {
            plan_error(pl, "out of memory");
            return PLAN_EXIT_FAIL;
        }
        for (int32_t g = 0; g < pl->ngroups; g++)
            first[g] = -1;
    }
    for (size_t hi = 0; hi < pl->nhosts; hi++) {
        struct plan_host *ph = &pl->hosts[hi];
        const struct plan_limits *lim = &pl->limits[ph->limits];
        numafit_inventory_t *inv = NULL;
        numafit_inventory_class_t c;
        numafit_error_t e;
        int64_t disk = ph->db_disk_gb >= 0 ? ph->db_disk_gb : pl->disk_gb > 0 ? pl->disk_gb : 0;
        int64_t used[NUMAFIT_RC_COUNT], resv_mb = 0, resv_gb = 0;
        int rc;

        memset(&e, 0, sizeof(e));
        rc = numafit_inventory_new_from_host(ph->h, pl->inv_conf, pl->inv_conf_len, disk, NULL,
                                             flags, &inv, &e);
        if (rc == 0 && !pl->no_limits && lim->cpu_ratio > 0)
            rc = adjust(inv, NUMAFIT_RC_VCPU, lim->cpu_ratio, 0, &e);
        if (rc == 0 && !pl->no_limits && lim->ram_ratio > 0)
            rc = adjust(inv, NUMAFIT_RC_MEMORY_MB, lim->ram_ratio, 0, &e);
        if (rc == 0 && (ph->db_disk_ratio > 0 || ph->db_memory_mb > 0)) {
            rc = adjust(inv, NUMAFIT_RC_DISK_GB, ph->db_disk_ratio, 0, &e);
            if (rc == 0)
                rc = adjust(inv, NUMAFIT_RC_MEMORY_MB, 0, ph->db_memory_mb, &e);
        }
        if (rc < 0) {
            char prefix[512];
            snprintf(prefix, sizeof(prefix), "host %s: inventory", plan_host_name(pl, hi));
            plan_lib_error(pl, prefix, rc, &e);
            numafit_inventory_free(inv);
            free(first);
            return plan_lib_status(rc);
        }
        if (numafit_inventory_get_class(inv, NUMAFIT_RC_MEMORY_MB, &c) == 1)
            resv_mb = c.reserved;
        if (numafit_inventory_get_class(inv, NUMAFIT_RC_DISK_GB, &c) == 1)
            resv_gb = c.reserved;
        else
            no_disk++;
        host_usage(ph, inv, resv_mb, resv_gb, used);
        for (int k = 0; k < NUMAFIT_RC_COUNT; k++)
            numafit_inventory_set_used(inv, k, used[k]);
        ph->inv = inv;
        /* hosts of a group share their fills: only while their inventories are the same */
        if (ph->group >= 0) {
            if (first[ph->group] < 0)
                first[ph->group] = (long)hi;
            else if (numafit_inventory_equal(pl->hosts[first[ph->group]].inv, inv) != 1)
                ph->group = -1;
        }
        plan_tick(pl, PLAN_TICK_STEP, 1, "inventory");
    }
    free(first);
    pl->disk_planned = no_disk == 0;
    if (no_disk) {
        bool asked = false;
        for (unsigned f = 0; f < pl->nflavors; f++) {
            asked = asked || pl->flavors[f].amounts[NUMAFIT_RC_DISK_GB] ||
                    pl->flavors[f].legacy[NUMAFIT_RC_DISK_GB];
            pl->flavors[f].amounts[NUMAFIT_RC_DISK_GB] = 0;
            pl->flavors[f].legacy[NUMAFIT_RC_DISK_GB] = 0;
        }
        if (asked)
            plan_warning(pl,
                         "%zu host%s without a disk size (the dump's local_gb, a spec's "
                         "disk:, --disk-gb): "
                         "DISK_GB is not planned",
                         no_disk, no_disk == 1 ? "" : "s");
    }
    /* guests without NUMA topology already on the hosts */
    memset(&pl->overcommit_before, 0, sizeof(pl->overcommit_before));
    for (size_t hi = 0; hi < pl->nhosts; hi++)
        plan_overcommit_add(pl, &pl->overcommit_before, pl->hosts[hi].h, hi,
                            pl->hosts[hi].nonnuma_mb);
    return 0;
}
