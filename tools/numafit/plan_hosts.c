/*
 * numafit plan over a fleet: where hosts come from. A folder of nova JSON
 * files, single JSON files, sysfs captures, libvirt URIs, a dump of nova's
 * compute_nodes table (read through plan_rows.c) and synthetic specs
 * (--add-hosts).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include <numafit.h>

#include "cli_io.h"
#include "plan_fleet.h"
#include "plan_load.h"

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int plan_load_dir(struct plan *pl, const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *de;
    char **files = NULL;
    size_t n = 0, cap = 0, i;
    int src, ret = 0;

    if (!d) {
        plan_error(pl, "--hosts-dir %s: %s", dir, strerror(errno));
        return PLAN_EXIT_INPUT;
    }
    if ((src = plan_add_source(pl, SRC_DIR, dir)) < 0) {
        closedir(d);
        return PLAN_EXIT_FAIL;
    }
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len <= 5 || strcmp(de->d_name + len - 5, ".json") != 0 || de->d_name[0] == '.')
            continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 256;
            char **nf = realloc(files, ncap * sizeof(*nf));
            if (!nf) {
                ret = PLAN_EXIT_FAIL;
                break;
            }
            files = nf;
            cap = ncap;
        }
        if (!(files[n] = strdup(de->d_name))) {
            ret = PLAN_EXIT_FAIL;
            break;
        }
        n++;
    }
    closedir(d);
    if (ret) {
        plan_error(pl, "out of memory");
        goto out;
    }
    if (n == 0) {
        plan_error(pl, "--hosts-dir %s: no *.json files", dir);
        ret = PLAN_EXIT_INPUT;
        goto out;
    }
    qsort(files, n, sizeof(*files), cmp_str);
    for (i = 0; i < n && !ret; i++) {
        char path[PATH_MAX], name[256];
        size_t len;
        char *text;
        if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, files[i]) >= sizeof(path)) {
            plan_error(pl, "%s/%s: path too long", dir, files[i]);
            ret = PLAN_EXIT_INPUT;
            break;
        }
        text = plan_read_all(pl, path, NUMAFIT_INPUT_MAX, &len, &ret);
        if (!text)
            break;
        ret = 0;
        plan_file_stem(files[i], name, sizeof(name));
        ret = plan_json_host(pl, text, len, name, src, path);
        free(text);
    }
out:
    for (i = 0; i < n; i++)
        free(files[i]);
    free(files);
    return ret;
}

int plan_load_json_host(struct plan *pl, const char *path) {
    char name[256];
    size_t len;
    int src, ret;
    char *text = plan_read_all(pl, path, NUMAFIT_INPUT_MAX, &len, &ret);
    if (!text)
        return ret;
    if ((src = plan_add_source(pl, SRC_JSON, path)) < 0) {
        free(text);
        return PLAN_EXIT_FAIL;
    }
    plan_file_stem(path, name, sizeof(name));
    ret = plan_json_host(pl, text, len, name, src, path);
    free(text);
    return ret;
}

static int discovered_pools(struct plan *pl, const char *root, const char *uri, const char *prefix);

int plan_load_sysfs(struct plan *pl, const char *root, const numafit_hostconf_t *conf,
                    unsigned flags) {
    numafit_host_t *h = NULL;
    numafit_error_t e;
    char name[256], prefix[PATH_MAX + 16];
    int src, rc, status;

    memset(&e, 0, sizeof(e));
    snprintf(prefix, sizeof(prefix), "--sysfs %s", root);
    {
        /* a capture holds sys/devices/system (the library takes a tree
         * without NUMA nodes for a host without NUMA topology) */
        char probe[PATH_MAX];
        struct stat st;
        snprintf(probe, sizeof(probe), "%s/sys/devices/system", root);
        if (stat(root, &st) < 0) {
            plan_error(pl, "%s: %s", prefix, strerror(errno));
            return PLAN_EXIT_INPUT;
        }
        if (stat(probe, &st) < 0 || !S_ISDIR(st.st_mode)) {
            plan_error(pl, "%s: not a sysfs tree (no %s)", prefix, probe);
            return PLAN_EXIT_INPUT;
        }
    }
    rc = numafit_host_new_from_sysfs(root, conf, flags, &h, &e);
    if (rc < 0) {
        plan_lib_error(pl, prefix, rc, &e);
        return plan_lib_status(rc);
    }
    if ((src = plan_add_source(pl, SRC_SYSFS, root)) < 0) {
        numafit_host_free(h);
        return PLAN_EXIT_FAIL;
    }
    plan_base_name(root, name, sizeof(name));
    if (plan_add_host(pl, h, name, src, -1, -1, prefix, &status) < 0)
        return status;
    return discovered_pools(pl, root, NULL, prefix);
}

/* The pools of the host just discovered (sysfs root or libvirt uri): its
 * PCI devices that --nova-conf's [pci] device_spec picks, as its compute
 * node would report them. Nothing without a device_spec that matches. */
static int discovered_pools(struct plan *pl, const char *root, const char *uri,
                            const char *prefix) {
    numafit_pci_devices_t *devs = NULL;
    numafit_pci_pools_t *pools = NULL;
    numafit_error_t e;
    char where[1200];
    int rc;

    if (!pl->nova_conf || !strstr(pl->nova_conf, "[pci]"))
        return 0;
    memset(&e, 0, sizeof(e));
    rc = root ? numafit_pci_devices_new_from_sysfs(root, 0, &devs, &e)
              : numafit_pci_devices_new_from_libvirt(uri, 0, &devs, &e);
    if (rc == -ENOENT && root)
        return 0; /* a capture without sys/bus/pci */
    if (rc >= 0)
        rc = numafit_pci_pools_new_from_devices(
            devs, pl->nova_conf, pl->nova_conf_len,
            pl->profile == NUMAFIT_PROFILE_ZED ? NUMAFIT_PCI_ZED : 0, &pools, &e);
    numafit_pci_devices_free(devs);
    if (rc < 0) {
        snprintf(where, sizeof(where), "%s: PCI devices", prefix);
        plan_lib_error(pl, where, rc, &e);
        return plan_lib_status(rc);
    }
    if (numafit_pci_pools_get_count(pools) > 0)
        plan_set_pools(pl, pl->nhosts - 1, pools);
    else
        numafit_pci_pools_free(pools);
    return 0;
}

int plan_load_uri(struct plan *pl, const char *uri, const numafit_hostconf_t *conf,
                  unsigned flags) {
    numafit_host_t *h = NULL;
    numafit_error_t e;
    char prefix[1024];
    int src, rc, status;

    memset(&e, 0, sizeof(e));
    snprintf(prefix, sizeof(prefix), "--uri %s", uri);
    rc = numafit_host_new_from_libvirt(uri, conf, flags, &h, &e);
    if (rc < 0) {
        plan_lib_error(pl, prefix, rc, &e);
        return rc == -ENOMEM ? PLAN_EXIT_FAIL : PLAN_EXIT_INPUT;
    }
    if ((src = plan_add_source(pl, SRC_URI, uri)) < 0) {
        numafit_host_free(h);
        return PLAN_EXIT_FAIL;
    }
    if (plan_add_host(pl, h, uri, src, -1, -1, prefix, &status) < 0)
        return status;
    return discovered_pools(pl, NULL, uri, prefix);
}

/* The inventory columns of a compute_nodes row (doc/placement.md):
 * memory_mb and local_gb (the totals nova reported), disk_allocation_ratio,
 * vcpus_used, memory_mb_used and local_gb_used. */
static int db_inventory(struct plan *pl, struct plan_rows *r, struct plan_host *ph,
                        const char *where) {
    static const char *const cols[] = {"memory_mb", "local_gb", "vcpus_used", "memory_mb_used",
                                       "local_gb_used"};
    int64_t *dst[] = {&ph->db_memory_mb, &ph->db_disk_gb, &ph->db_vcpus_used,
                      &ph->db_memory_used_mb, &ph->db_disk_used_gb};
    int k;
    for (unsigned i = 0; i < 5; i++) {
        if ((k = plan_rows_count(r, cols[i], NUMAFIT_RESOURCE_AMOUNT_MAX, dst[i])) < 0) {
            if (k == -1) {
                plan_error(pl, "out of memory");
                return PLAN_EXIT_FAIL;
            }
            plan_error(pl, "%s: %s must be an integer from 0 to %lld (or null)", where, cols[i],
                       (long long)NUMAFIT_RESOURCE_AMOUNT_MAX);
            return PLAN_EXIT_INPUT;
        }
    }
    if (ph->db_memory_mb < 0)
        ph->db_memory_mb = 0;
    if ((k = plan_rows_ratio(r, "disk_allocation_ratio", &ph->db_disk_ratio)) < 0) {
        if (k == -1) {
            plan_error(pl, "out of memory");
            return PLAN_EXIT_FAIL;
        }
        plan_error(pl,
                   "%s: disk_allocation_ratio must be a number from 0 to 1e6 (0 or null: "
                   "the fleet's)",
                   where);
        return PLAN_EXIT_INPUT;
    }
    return 0;
}

/* The compute node's PCI device pools (the pci_stats column: nova's
 * PciDevicePoolList), for the host just added. */
static int db_pools(struct plan *pl, struct plan_rows *r, const char *hname, const char *where) {
    const char *v;
    size_t n;
    numafit_pci_pools_t *pools = NULL;
    numafit_error_t e;
    int k = plan_rows_get_json(r, "pci_stats", &v, &n), rc;
    if (k < 0) {
        plan_error(pl, "out of memory");
        return PLAN_EXIT_FAIL;
    }
    if (k != PLAN_COL_VALUE || n == 0)
        return 0;
    memset(&e, 0, sizeof(e));
    rc = numafit_pci_pools_new_from_json(v, n, 0, &pools, &e);
    if (rc < 0) {
        char prefix[PATH_MAX + 600];
        snprintf(prefix, sizeof(prefix), "%s: host %s: pci_stats", where, hname);
        plan_lib_error(pl, prefix, rc, &e);
        return plan_lib_status(rc);
    }
    plan_set_pools(pl, pl->nhosts - 1, pools);
    return 0;
}

int plan_load_db(struct plan *pl, const char *path) {
    bool progress = false;
    uint64_t done = 0;
    struct plan_rows r;
    int src, rc, ret;
    unsigned long nulls = 0, deleted = 0, first_null = 0;
    bool has_ratio;

    ret = plan_rows_open(&r, pl, path, "--db");
    if (ret)
        goto out;
    if ((src = plan_add_source(pl, SRC_DB, path)) < 0) {
        ret = PLAN_EXIT_FAIL;
        goto out;
    }
    if (r.nhdr &&
        (!plan_rows_has(&r, "hypervisor_hostname") || !plan_rows_has(&r, "numa_topology"))) {
        plan_error(pl,
                   "%s:1: the header must name the columns hypervisor_hostname and "
                   "numa_topology (SELECT hypervisor_hostname, numa_topology FROM compute_nodes)",
                   path);
        ret = PLAN_EXIT_INPUT;
        goto out;
    }
    has_ratio = r.nhdr && (plan_rows_has(&r, "cpu_allocation_ratio") ||
                           plan_rows_has(&r, "ram_allocation_ratio"));
    if (pl->tty && r.fmt != PLAN_ROWS_JSONARRAY) {
        /* a big dump takes a while: progress by bytes read */
        struct stat st;
        if (fstat(fileno(r.f), &st) == 0 && S_ISREG(st.st_mode)) {
            plan_tick(pl, PLAN_TICK_BEGIN, (uint64_t)st.st_size, "loading");
            progress = true;
        }
    }
    while ((rc = plan_rows_next(&r)) > 0) {
        const char *name, *topo, *del, *why;
        size_t nlen, tlen, dlen;
        char where[PATH_MAX + 32], hname[256];
        int k;

        if (progress) {
            long pos = ftell(r.f);
            if (pos > 0 && (uint64_t)pos > done) {
                plan_tick(pl, PLAN_TICK_STEP, (uint64_t)pos - done, "");
                done = (uint64_t)pos;
            }
        }
        plan_rows_where(&r, where, sizeof(where));
        k = plan_rows_get(&r, "hypervisor_hostname", &name, &nlen);
        if (k < 0)
            goto nomem;
        why = plan_row_host_name(k, name, nlen, plan_rows_not_string(&r, "hypervisor_hostname"),
                                 hname, sizeof(hname));
        if (why) {
            plan_error(pl, "%s: hypervisor_hostname: %s", where, why);
            ret = PLAN_EXIT_INPUT;
            goto out;
        }
        /* soft-deleted compute nodes (a "deleted" column as in nova's table) */
        k = plan_rows_get(&r, "deleted", &del, &dlen);
        if (k < 0)
            goto nomem;
        if (k == PLAN_COL_VALUE && plan_row_deleted(del, dlen)) {
            deleted++;
            continue;
        }
        k = plan_rows_get_json(&r, "numa_topology", &topo, &tlen);
        if (k < 0)
            goto nomem;
        if (k == PLAN_COL_MISSING) {
            plan_error(pl, "%s: host %s: no numa_topology", where, hname);
            ret = PLAN_EXIT_INPUT;
            goto out;
        }
        if (k == PLAN_COL_NULL || tlen == 0) {
            if (!nulls++)
                first_null = r.rec_line;
            continue;
        }
        if (tlen > NUMAFIT_INPUT_MAX) {
            plan_error(pl, "%s: host %s: numa_topology larger than %u bytes", where, hname,
                       NUMAFIT_INPUT_MAX);
            ret = PLAN_EXIT_INPUT;
            goto out;
        }
        ret = plan_json_host(pl, topo, tlen, hname, src, where);
        if (ret)
            goto out;
        if (has_ratio || r.row || r.fast) {
            double cpu, ram;
            uint8_t li;
            if ((k = plan_rows_ratio(&r, "cpu_allocation_ratio", &cpu)) < 0 ||
                (k = plan_rows_ratio(&r, "ram_allocation_ratio", &ram)) < 0) {
                if (k == -1)
                    goto nomem;
                plan_error(pl,
                           "%s: host %s: an allocation ratio must be a number from 0 to 1e6 "
                           "(0 or null: the fleet's)",
                           where, hname);
                ret = PLAN_EXIT_INPUT;
                goto out;
            }
            if ((cpu > 0 || ram > 0) && !pl->no_limits) {
                double dcpu = pl->limits[0].cpu_ratio, dram = pl->limits[0].ram_ratio;
                if (plan_limits_index(pl, cpu > 0 ? cpu : dcpu, ram > 0 ? ram : dram, &li) < 0) {
                    plan_error(pl, "%s: more than %d distinct allocation ratio pairs", where,
                               PLAN_MAX_LIMITS);
                    ret = PLAN_EXIT_INPUT;
                    goto out;
                }
                pl->hosts[pl->nhosts - 1].limits = li;
            }
        }
        if (pl->inventory && (ret = db_inventory(pl, &r, &pl->hosts[pl->nhosts - 1], where)) != 0)
            goto out;
        if ((ret = db_pools(pl, &r, hname, where)) != 0)
            goto out;
    }
    if (rc < 0) {
        ret = -rc;
        goto out;
    }
    pl->sources[src].skipped = (uint32_t)(nulls + deleted);
    if (nulls)
        plan_warning(pl,
                     "%s: %lu row%s without numa_topology skipped (first on line %lu): nova "
                     "reports no NUMA topology for %s",
                     path, nulls, nulls == 1 ? "" : "s", first_null, nulls == 1 ? "it" : "them");
    if (deleted)
        plan_warning(pl, "%s: %lu deleted row%s skipped", path, deleted, deleted == 1 ? "" : "s");
    if (pl->sources[src].hosts == 0) {
        plan_error(pl, "--db %s: no host with a NUMA topology", path);
        ret = PLAN_EXIT_INPUT;
    }
    goto out;
nomem:
    plan_error(pl, "out of memory");
    ret = PLAN_EXIT_FAIL;
out:
    if (progress)
        plan_tick(pl, PLAN_TICK_END, 0, NULL);
    plan_rows_close(&r);
    return ret;
}

/* ------------------------------------------------------------------ synthetic hosts */

static int parse_count(const char *s, size_t n, uint64_t max, uint64_t *ret) {
    uint64_t v = 0;
    if (n == 0 || n > 12)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > max)
        return -1;
    *ret = v;
    return 0;
}

/* Split a disk:SIZE token (G or T; plain numbers are GiB) off an
 * --add-hosts spec: *disk_gb its GiB (-1: none), out the spec without it.
 * Returns 0, or -1 for a bad or repeated token or a spec too long. */
static int spec_disk(const char *spec, char *out, size_t cap, int64_t *disk_gb) {
    const char *p = spec;
    size_t o = 0;
    *disk_gb = -1;
    while (*p) {
        size_t n = strcspn(p, " \t"), w = strspn(p + n, " \t");
        if (n > 5 && !strncmp(p, "disk:", 5)) {
            const char *q = p + 5;
            int64_t v = 0;
            size_t i = 0;
            if (*disk_gb >= 0)
                return -1;
            for (; i < n - 5 && q[i] >= '0' && q[i] <= '9'; i++) {
                v = v * 10 + (q[i] - '0');
                if (v > NUMAFIT_RESOURCE_AMOUNT_MAX)
                    return -1;
            }
            if (i == 0 || i + 1 < n - 5)
                return -1;
            if (i + 1 == n - 5) {
                if (q[i] == 'T' || q[i] == 't')
                    v *= 1024;
                else if (q[i] != 'G' && q[i] != 'g')
                    return -1;
            }
            if (v < 1 || v > NUMAFIT_RESOURCE_AMOUNT_MAX)
                return -1;
            *disk_gb = v;
        } else if (n) {
            if (o + n + 2 > cap)
                return -1;
            if (o)
                out[o++] = ' ';
            memcpy(out + o, p, n);
            o += n;
        }
        p += n + w;
        if (!n && !w)
            break;
    }
    if (o >= cap)
        return -1;
    out[o] = '\0';
    return 0;
}

int plan_add_hosts(struct plan *pl, const char *count, const char *spec) {
    char name[64], prefix[600], lib_spec[4096];
    int64_t disk_gb;
    numafit_host_t *tmpl = NULL;
    numafit_pci_pools_t *pools = NULL;
    numafit_error_t e;
    uint64_t n;
    long first = -1;
    int src, rc, status;
    int32_t group;

    if (parse_count(count, strlen(count), PLAN_MAX_HOSTS, &n) < 0 || n == 0) {
        plan_error(pl, "--add-hosts %s: the count must be an integer from 1 to %d", count,
                   PLAN_MAX_HOSTS);
        return PLAN_EXIT_INPUT;
    }
    if (pl->nhosts + n > PLAN_MAX_HOSTS) {
        plan_error(pl, "--add-hosts %s: more than %d hosts in the fleet", count, PLAN_MAX_HOSTS);
        return PLAN_EXIT_INPUT;
    }
    /* the disk: token is the planner's (DISK_GB); the library reads the
     * rest, in the short form or its own key:value form */
    if (spec_disk(spec, lib_spec, sizeof(lib_spec), &disk_gb) < 0) {
        plan_error(pl,
                   "--add-hosts %s \"%.400s\": disk: wants one size in GiB (disk:500G, "
                   "disk:2T) from 1 to 2147483647 GiB",
                   count, spec);
        return PLAN_EXIT_INPUT;
    }
    memset(&e, 0, sizeof(e));
    rc = numafit_host_new_synthetic(lib_spec, 0, &tmpl, &e);
    if (rc == 0 && strstr(lib_spec, "pci:")) {
        /* its PCI devices (pci: tokens) */
        rc = numafit_pci_pools_new_from_spec(lib_spec, tmpl, 0, &pools, &e);
        if (rc < 0) {
            numafit_host_free(tmpl);
            tmpl = NULL;
        }
    }
    if (rc < 0) {
        snprintf(prefix, sizeof(prefix), "--add-hosts %s \"%.400s\"", count, spec);
        plan_lib_error(pl, prefix, rc, &e);
        return plan_lib_status(rc);
    }
    if ((src = plan_add_source(pl, SRC_SYNTHETIC, spec)) < 0) {
        numafit_host_free(tmpl);
        numafit_pci_pools_free(pools);
        return PLAN_EXIT_FAIL;
    }
    group = pl->ngroups++;
    pl->sources[src].group = group;
    pl->nadd++;
    snprintf(prefix, sizeof(prefix), "--add-hosts %s", count);
    for (uint64_t i = 0; i < n; i++) {
        numafit_host_t *h = NULL;
        long idx;
        if (i + 1 < n) {
            if (numafit_host_dup(tmpl, &h) < 0) {
                numafit_host_free(tmpl);
                numafit_pci_pools_free(pools);
                plan_error(pl, "out of memory");
                return PLAN_EXIT_FAIL;
            }
        } else {
            h = tmpl; /* the last one is the template itself */
            tmpl = NULL;
        }
        snprintf(name, sizeof(name), "new%u-%06llu", pl->nadd, (unsigned long long)i + 1);
        idx = plan_add_host(pl, h, name, src, group, first, prefix, &status);
        if (idx < 0) {
            numafit_host_free(tmpl);
            numafit_pci_pools_free(pools);
            return status;
        }
        pl->hosts[idx].db_disk_gb = disk_gb;
        if (pools) {
            numafit_pci_pools_t *copy = NULL;
            if (i + 1 < n && numafit_pci_pools_dup(pools, &copy) < 0) {
                numafit_host_free(tmpl);
                numafit_pci_pools_free(pools);
                plan_error(pl, "out of memory");
                return PLAN_EXIT_FAIL;
            }
            plan_set_pools(pl, (size_t)idx, i + 1 < n ? copy : pools);
            if (i + 1 == n)
                pools = NULL;
        }
        if (first < 0)
            first = idx;
    }
    return 0;
}
