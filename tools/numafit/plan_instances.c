/*
 * numafit plan over a fleet: existing instances (instance_extra rows of a
 * dump, read through plan_rows.c), claimed on their hosts before the plan.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <numafit.h>

#include "cli_io.h"
#include "plan_fleet.h"
#include "plan_load.h"

/* ------------------------------------------------------------------ existing instances */

/* Pinned vCPUs and emulator CPUs of a placement (plain JSON form). */
static uint32_t placement_pins(const json_t *cells) {
    size_t i;
    json_t *c;
    uint32_t n = 0;
    json_array_foreach(cells, i, c) {
        n += (uint32_t)json_object_size(json_object_get(c, "cpu_pinning"));
        n += (uint32_t)json_array_size(json_object_get(c, "cpuset_reserved"));
    }
    return n;
}

/* What an instance row says of its size (nova's instances table): vcpus,
 * memory_mb (-1: not given), root_gb + ephemeral_gb. */
struct inst_res {
    int64_t vcpus, memory_mb, disk_gb;
};

static int instance_resources(struct plan *pl, struct plan_rows *r, const char *where,
                              struct inst_res *res) {
    static const char *const cols[] = {"vcpus", "memory_mb", "root_gb", "ephemeral_gb"};
    int64_t v[4];
    for (unsigned i = 0; i < 4; i++) {
        int k = plan_rows_count(r, cols[i], NUMAFIT_RESOURCE_AMOUNT_MAX, &v[i]);
        if (k == -1) {
            plan_error(pl, "out of memory");
            return PLAN_EXIT_FAIL;
        }
        if (k < 0) {
            plan_error(pl, "%s: %s must be an integer from 0 to %lld (or null)", where, cols[i],
                       (long long)NUMAFIT_RESOURCE_AMOUNT_MAX);
            return PLAN_EXIT_INPUT;
        }
    }
    res->vcpus = v[0];
    res->memory_mb = v[1];
    res->disk_gb = (v[2] > 0 ? v[2] : 0) + (v[3] > 0 ? v[3] : 0);
    return 0;
}

int plan_load_instances(struct plan *pl, const char *path) {
    static const char *const host_cols[] = {"host", "node", "hypervisor_hostname", NULL};
    struct plan_rows r;
    int rc, ret;
    unsigned long nulls = 0;

    ret = plan_rows_open(&r, pl, path, "--instances");
    if (ret)
        goto out;
    if (r.nhdr) {
        bool any = false;
        for (unsigned i = 0; host_cols[i]; i++)
            any |= plan_rows_has(&r, host_cols[i]);
        if (!any || !plan_rows_has(&r, "numa_topology")) {
            plan_error(pl,
                       "%s:1: the header must name the columns host (or node) and numa_topology",
                       path);
            ret = PLAN_EXIT_INPUT;
            goto out;
        }
    }
    while ((rc = plan_rows_next(&r)) > 0) {
        const char *name = NULL, *topo, *fl, *why;
        size_t nlen = 0, tlen, flen;
        char where[PATH_MAX + 32], hname[256], prefix[PATH_MAX + 400];
        numafit_placement_t *p = NULL;
        numafit_error_t e;
        json_t *cells;
        char *txt = NULL;
        long hi;
        int k = PLAN_COL_MISSING;
        struct inst_res res = {-1, -1, 0};

        plan_rows_where(&r, where, sizeof(where));
        for (unsigned i = 0; host_cols[i] && k == PLAN_COL_MISSING; i++)
            k = plan_rows_get(&r, host_cols[i], &name, &nlen);
        if (k < 0)
            goto nomem;
        why = plan_row_host_name(k, name, nlen,
                                 plan_rows_not_string(&r, "host") ||
                                     plan_rows_not_string(&r, "node") ||
                                     plan_rows_not_string(&r, "hypervisor_hostname"),
                                 hname, sizeof(hname));
        if (why) {
            plan_error(pl, "%s: host: %s%s", where, why,
                       k == PLAN_COL_MISSING ? " (\"host\": the hypervisor_hostname)" : "");
            ret = PLAN_EXIT_INPUT;
            goto out;
        }
        k = plan_rows_get_json(&r, "numa_topology", &topo, &tlen);
        if (k < 0)
            goto nomem;
        if (k == PLAN_COL_MISSING) {
            plan_error(pl, "%s: no numa_topology", where);
            ret = PLAN_EXIT_INPUT;
            goto out;
        }
        hi = plan_find_host(pl, hname);
        if (pl->inventory && (ret = instance_resources(pl, &r, where, &res)) != 0)
            goto out;
        if (k == PLAN_COL_NULL || tlen == 0 || (tlen == 4 && memcmp(topo, "null", 4) == 0)) {
            /* an instance without NUMA topology: no NUMA usage; placement
             * counts it when the row says its vCPUs and memory (on a host
             * outside the fleet: skipped) */
            if (hi < 0 || res.vcpus < 0 || res.memory_mb < 0) {
                nulls++;
                continue;
            }
            pl->hosts[hi].nonnuma_vcpus += (uint64_t)res.vcpus;
            pl->hosts[hi].nonnuma_mb += (uint64_t)res.memory_mb;
            pl->hosts[hi].nonnuma_disk_gb += (uint64_t)res.disk_gb;
            pl->hosts[hi].group = -1;
            pl->instances_nonnuma++;
            continue;
        }
        if (hi < 0) {
            plan_error(pl, "%s: unknown host \"%s\" (not in the fleet)", where, hname);
            ret = PLAN_EXIT_INPUT;
            goto out;
        }
        pl->hosts[hi].nonnuma_disk_gb += (uint64_t)res.disk_gb; /* its disk: placement's only */
        snprintf(prefix, sizeof(prefix), "%s: instance on host %s: numa_topology", where, hname);
        memset(&e, 0, sizeof(e));
        rc = numafit_placement_new_from_json(topo, tlen, 0, &p, &e);
        if (rc < 0) {
            plan_lib_error(pl, prefix, rc, &e);
            ret = plan_lib_status(rc);
            goto out;
        }
        memset(&e, 0, sizeof(e));
        rc = numafit_placement_to_json(p, 0, &txt, &e);
        cells = rc >= 0 ? json_loads(txt, 0, NULL) : NULL;
        numafit_free(txt);
        if (!cells) {
            numafit_placement_free(p);
            plan_lib_error(pl, prefix, rc < 0 ? rc : -ENOMEM, &e);
            ret = PLAN_EXIT_FAIL;
            goto out;
        }
        memset(&e, 0, sizeof(e));
        snprintf(prefix, sizeof(prefix), "%s: instance on host %s", where, hname);
        rc = numafit_host_claim(pl->hosts[hi].h, p, 0, &e);
        numafit_placement_free(p);
        if (rc < 0) {
            plan_lib_error(pl, prefix, rc, &e);
            if (rc == -EBUSY)
                plan_error(pl, "(does the host's numa_topology already count this instance? "
                               "--instances adds usage to the hosts)");
            json_decref(cells);
            ret = plan_lib_status(rc);
            goto out;
        }
        pl->hosts[hi].known_pins += placement_pins(cells);
        pl->hosts[hi].existing++;
        pl->hosts[hi].group = -1; /* no longer identical to its group */
        pl->instances_loaded++;
        if ((uint32_t)hi < pl->keep) {
            if (pl->nexisting == pl->existing_cap) {
                size_t ncap = pl->existing_cap ? pl->existing_cap * 2 : 64;
                struct plan_existing *ne = realloc(pl->existing, ncap * sizeof(*ne));
                if (!ne) {
                    json_decref(cells);
                    goto nomem;
                }
                pl->existing = ne;
                pl->existing_cap = ncap;
            }
            k = plan_rows_get(&r, "flavor", &fl, &flen);
            if (k < 0) {
                json_decref(cells);
                goto nomem;
            }
            pl->existing[pl->nexisting].host = (uint32_t)hi;
            pl->existing[pl->nexisting].flavor =
                k == PLAN_COL_VALUE && flen && !memchr(fl, '\0', flen) ? strndup(fl, flen) : NULL;
            pl->existing[pl->nexisting].cells = cells;
            pl->nexisting++;
        } else {
            json_decref(cells);
        }
    }
    if (rc < 0) {
        ret = -rc;
        goto out;
    }
    pl->instances_skipped += nulls;
    goto out;
nomem:
    plan_error(pl, "out of memory");
    ret = PLAN_EXIT_FAIL;
out:
    plan_rows_close(&r);
    return ret;
}
