/*
 * A compute node's PCI devices, device by device (nova's PciDevTracker
 * with its PciDeviceStats): the pools of the free devices, claims that
 * take particular devices (consume_requests: each pool gives the devices
 * it got last first; a PF taken takes its free VFs out of their pools, a VF
 * or vdpa device its PF) and releases that give them back (PciDevice.free,
 * add_device). The scheduler's view (numafit_pci_apply) only counts.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <numafit/fit.h>
#include <numafit/options.h>
#include <numafit/placement.h>

#include "json_count.h"
#include "jsonio.h"
#include "pci_internal.h"
#include "private.h"

enum { ST_NONE, ST_FREE, ST_CLAIMED, ST_UNAVAILABLE };
enum { DT_PCI, DT_PF, DT_VF, DT_VDPA };

struct trk_dev {
    uint32_t tmpl;  /* its pool's tmpl, UINT32_MAX: not assignable */
    int32_t parent; /* the PF among the tracked devices, -1: none */
    uint8_t type;   /* DT_* */
    uint8_t state;  /* ST_* */
};

struct numafit_pci_tracker {
    numafit_pci_devices_t *devs; /* a copy of the devices */
    struct trk_dev *d;           /* [devs->n] */
    numafit_pci_pools_t *tmpl;   /* the pools as built, by tmpl (their keys) */
    numafit_pci_pools_t *pools;  /* the free devices' pools, with their devices */
    uint32_t *by_addr;           /* the devices in address order (nova's device tree) */
    bool latest;                 /* upstream nova's rules (else Zed's) */
};

static uint8_t dev_type_of(const char *t) {
    if (!strcmp(t, "type-PF"))
        return DT_PF;
    if (!strcmp(t, "type-VF"))
        return DT_VF;
    if (!strcmp(t, "vdpa"))
        return DT_VDPA;
    return DT_PCI;
}

NUMAFIT_EXPORT void numafit_pci_tracker_free(numafit_pci_tracker_t *t) {
    if (!t)
        return;
    numafit_pci_devices_free(t->devs);
    numafit_pci_pools_free(t->tmpl);
    numafit_pci_pools_free(t->pools);
    free(t->by_addr);
    free(t->d);
    free(t);
}

static int nomem(numafit_error_t *err) {
    numafit__error_set(err, NUMAFIT_E_NOMEM, -1, NULL, NULL, "out of memory");
    return -ENOMEM;
}

/* Append device i to pool P's list. */
static int pool_push(struct pci_pool *P, uint32_t i) {
    if (P->ndevs == P->devcap) {
        uint32_t cap = P->devcap ? P->devcap * 2 : 4;
        uint32_t *n = numafit__realloc(P->devs, cap * sizeof(*n));
        if (!n)
            return -ENOMEM;
        P->devs = n;
        P->devcap = cap;
    }
    P->devs[P->ndevs++] = i;
    return 0;
}

#define RP_LIST_MAX (NUMAFIT_PCI_STRING_MAX / 2 + 1)

/* A pool's rp_uuid tag ("" when it has none). */
static const char *pool_rp(const struct pci_pool *P) {
    for (uint32_t i = 0; i < P->ntags; i++)
        if (P->tags[i].id == PCI_KEY_RP_UUID)
            return P->tags[i].value ? P->tags[i].value : "";
    return "";
}

static long find_pool(const numafit_pci_pools_t *pools, uint32_t tmpl) {
    for (uint32_t i = 0; i < pools->n; i++)
        if (pools->p[i].tmpl == tmpl)
            return (long)i;
    return -1;
}

/* The device indices sorted by address (a stable merge sort; tmp as large). */
static void sort_by_addr(const numafit_pci_devices_t *devs, uint32_t *a, uint32_t *tmp,
                         uint32_t n) {
    for (uint32_t w = 1; w < n; w *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * w) {
            uint32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            uint32_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] =
                    strcmp(devs->d[a[j]].address, devs->d[a[i]].address) < 0 ? a[j++] : a[i++];
            while (i < mid)
                tmp[k++] = a[i++];
            while (j < hi)
                tmp[k++] = a[j++];
        }
        memcpy(a, tmp, n * sizeof(*a));
    }
}

NUMAFIT_EXPORT int numafit_pci_tracker_new(const numafit_pci_devices_t *devs, const char *nova_conf,
                                           size_t conf_len, unsigned flags,
                                           numafit_pci_tracker_t **ret, numafit_error_t *err) {
    numafit_pci_tracker_t *t = NULL;
    uint32_t *dev_pool = NULL;
    char *txt = NULL;
    int r;

    numafit__error_clear(err);
    if (!devs || !ret || (flags & ~(unsigned)NUMAFIT_PCI_ZED)) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL,
                           flags & ~(unsigned)NUMAFIT_PCI_ZED ? "unknown flag bits"
                                                              : "devices and ret are required");
        return -EINVAL;
    }
    *ret = NULL;
    t = numafit__calloc(1, sizeof(*t));
    dev_pool = numafit__malloc((devs->n ? devs->n : 1) * sizeof(*dev_pool));
    if (!t || !dev_pool) {
        r = nomem(err);
        goto fail;
    }
    r = numafit__pci_pools_from_devices(devs, nova_conf, conf_len, flags, &t->pools, dev_pool, err);
    if (r < 0)
        goto fail;
    /* a copy of the devices (the caller keeps its own) */
    if ((r = numafit_pci_devices_to_json(devs, 0, &txt, err)) < 0 ||
        (r = numafit_pci_devices_new_from_json(txt, strlen(txt), 0, &t->devs, err)) < 0)
        goto fail;
    t->latest = !(flags & NUMAFIT_PCI_ZED);
    t->d = numafit__calloc(devs->n ? devs->n : 1, sizeof(*t->d));
    if (!t->d || (r = numafit_pci_pools_dup(t->pools, &t->tmpl)) < 0) {
        r = nomem(err);
        goto fail;
    }
    for (uint32_t i = 0; i < devs->n; i++) {
        struct trk_dev *d = &t->d[i];
        d->tmpl = dev_pool[i];
        d->parent = -1;
        d->type = dev_type_of(devs->d[i].dev_type);
        d->state = d->tmpl == UINT32_MAX ? ST_NONE : ST_FREE;
        if (d->state == ST_FREE) {
            long k = find_pool(t->pools, d->tmpl);
            if (k < 0 || pool_push(&t->pools->p[k], i) < 0) {
                r = nomem(err);
                goto fail;
            }
        }
    }
    /* nova's device tree: the tracked PF at each tracked VF's or vdpa
     * device's parent_addr; children in address order */
    t->by_addr = numafit__malloc((devs->n ? devs->n : 1) * sizeof(*t->by_addr));
    if (!t->by_addr) {
        r = nomem(err);
        goto fail;
    }
    for (uint32_t i = 0; i < devs->n; i++) {
        t->by_addr[i] = i;
        dev_pool[i] = 0;
    }
    sort_by_addr(devs, t->by_addr, dev_pool, devs->n);
    for (uint32_t i = 0; i < devs->n; i++) {
        const char *pa = devs->d[i].parent_addr;
        if (t->d[i].state == ST_NONE || !pa || (t->d[i].type != DT_VF && t->d[i].type != DT_VDPA))
            continue;
        for (uint32_t j = 0; j < devs->n; j++)
            if (j != i && t->d[j].state != ST_NONE && t->d[j].type == DT_PF &&
                !strcmp(devs->d[j].address, pa)) {
                t->d[i].parent = (int32_t)j;
                break;
            }
    }
    free(dev_pool);
    free(txt);
    *ret = t;
    return 0;
fail:
    free(dev_pool);
    free(txt);
    numafit_pci_tracker_free(t);
    return r;
}

NUMAFIT_EXPORT int numafit_pci_tracker_get_pools(const numafit_pci_tracker_t *t,
                                                 numafit_pci_pools_t **ret) {
    if (!t || !ret)
        return -EINVAL;
    return numafit_pci_pools_dup(t->pools, ret);
}

/* ------------------------------------------------------------ the pools */

/* PciDeviceStats.remove_device: device i out of its pool, the pool gone
 * when it had one device left. */
static void remove_device(numafit_pci_pools_t *pools, const struct trk_dev *d, uint32_t i) {
    long k = find_pool(pools, d->tmpl);
    struct pci_pool *P;
    uint32_t j;
    if (k < 0)
        return;
    P = &pools->p[k];
    for (j = 0; j < P->ndevs && P->devs[j] != i; j++)
        ;
    if (j == P->ndevs)
        return;
    memmove(&P->devs[j], &P->devs[j + 1], (P->ndevs - j - 1) * sizeof(*P->devs));
    P->ndevs--;
    if (P->count > 1) {
        P->count--;
        return;
    }
    /* _decrease_pool_count: the pool leaves the list */
    free(P->devs);
    free(P->vendor_id);
    free(P->product_id);
    numafit__pci_tags_free(P->tags, P->ntags);
    memmove(&pools->p[k], &pools->p[k + 1], (pools->n - (uint32_t)k - 1) * sizeof(*pools->p));
    pools->n--;
}

/* PciDeviceStats.add_device: device i into the pool of its keys, a new
 * pool (its builder's keys) appended and the list sorted again when there
 * is none. */
static int add_device(numafit_pci_pools_t *pools, const numafit_pci_pools_t *tmpl,
                      const struct trk_dev *d, uint32_t i) {
    long k = find_pool(pools, d->tmpl);
    if (k < 0) {
        long s = find_pool(tmpl, d->tmpl);
        struct pci_pool *n, *P;
        bool fail = false;
        if (s < 0)
            return -EINVAL;
        n = numafit__realloc(pools->p, (pools->n + 1) * sizeof(*n));
        if (!n)
            return -ENOMEM;
        pools->p = n;
        P = &pools->p[pools->n];
        *P = tmpl->p[s];
        P->count = 0;
        P->devs = NULL;
        P->ndevs = P->devcap = 0;
        P->vendor_id = numafit__pci_dup_or_null(tmpl->p[s].vendor_id, &fail);
        P->product_id = numafit__pci_dup_or_null(tmpl->p[s].product_id, &fail);
        P->tags = numafit__pci_tags_dup(tmpl->p[s].tags, tmpl->p[s].ntags, &fail);
        pools->n++;
        if (fail || numafit__pci_sort_pools(pools) < 0)
            return -ENOMEM;
        k = find_pool(pools, d->tmpl);
    }
    if (pool_push(&pools->p[k], i) < 0)
        return -ENOMEM;
    pools->p[k].count++;
    return 0;
}

/* _handle_device_dependents of device i just taken (work on w, state st). */
static void dependents(const numafit_pci_tracker_t *t, numafit_pci_pools_t *w, uint8_t *st,
                       uint32_t i) {
    const struct trk_dev *d = &t->d[i];
    if (d->type == DT_PF) {
        for (uint32_t k = 0; k < t->devs->n; k++) {
            uint32_t j = t->by_addr[k];
            if (t->d[j].parent == (int32_t)i && st[j] == ST_FREE) {
                remove_device(w, &t->d[j], j);
                st[j] = ST_UNAVAILABLE;
            }
        }
    } else if ((d->type == DT_VF || d->type == DT_VDPA) && d->parent >= 0 &&
               st[d->parent] == ST_FREE) {
        remove_device(w, &t->d[d->parent], (uint32_t)d->parent);
        st[d->parent] = ST_UNAVAILABLE;
    }
}

static json_t *dev_json(const numafit_pci_tracker_t *t, uint32_t i, size_t ri,
                        const struct pci_request *r) {
    const struct pci_device *pd = &t->devs->d[i];
    json_t *o = json_object();
    if (!o || json_object_set_new(o, "address", json_string(pd->address)) ||
        json_object_set_new(o, "vendor_id", json_string(pd->vendor_id)) ||
        json_object_set_new(o, "product_id", json_string(pd->product_id)) ||
        json_object_set_new(o, "dev_type", json_string(pd->dev_type)) ||
        json_object_set_new(o, "numa_node",
                            pd->numa_state == NUMA_SET ? json_integer((json_int_t)pd->numa_node)
                                                       : json_null()) ||
        json_object_set_new(o, "request", json_integer((json_int_t)ri)) ||
        json_object_set_new(o, "request_id",
                            r->request_id ? json_string(r->request_id) : json_null()) ||
        json_object_set_new(o, "alias_name",
                            r->alias_name ? json_string(r->alias_name) : json_null()) ||
        json_object_set_new(o, "requester_id",
                            r->requester_id ? json_string(r->requester_id) : json_null())) {
        json_decref(o);
        return NULL;
    }
    return o;
}

NUMAFIT_EXPORT int numafit_pci_tracker_claim(numafit_pci_tracker_t *t, const numafit_host_t *host,
                                             const numafit_pci_requests_t *reqs,
                                             const int64_t *cell_ids, size_t ncells,
                                             char **ret_json, numafit_error_t *err) {
    numafit_pci_pools_t *w = NULL;
    uint8_t *st = NULL;
    uint32_t *list = NULL, *tm = NULL;
    json_t *out = NULL, *taken, *unavail;
    char *txt = NULL;
    int r = -ENOMEM;

    numafit__error_clear(err);
    if (!t || !reqs || !ret_json || (ncells && !cell_ids) || ncells > NUMAFIT_MAX_CELLS) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL,
                           "a tracker, requests, ret_json and the cell ids are required");
        return -EINVAL;
    }
    *ret_json = NULL;
    /* on a copy: all or nothing */
    if (numafit_pci_pools_dup(t->pools, &w) < 0 ||
        !(st = numafit__malloc(t->devs->n ? t->devs->n : 1)) ||
        !(out = json_pack("{s[]s[]}", "devices", "unavailable")))
        goto nomem;
    taken = json_object_get(out, "devices");
    unavail = json_object_get(out, "unavailable");
    for (uint32_t i = 0; i < t->devs->n; i++)
        st[i] = t->d[i].state;
    for (uint32_t ri = 0; ri < reqs->n; ri++) {
        const struct pci_request *q = &reqs->r[ri];
        uint32_t n = 0;
        int64_t count = q->count;
        const char *rp[RP_LIST_MAX];
        size_t rplen[RP_LIST_MAX], nrp = 0;
        free(list);
        free(tm);
        list = numafit__malloc((w->n ? w->n : 1) * sizeof(*list));
        tm = numafit__malloc((w->n ? w->n : 1) * sizeof(*tm));
        if (!list || !tm)
            goto nomem;
        r = numafit__pci_filter_one(w, host, q, ri, cell_ids, ncells, t->latest, list, &n, err);
        if (r < 0)
            goto nomem;
        if (r == 0) {
            r = -ENOSPC;
            goto out;
        }
        /* the pools by their identity: a dependent may take one out */
        for (uint32_t k = 0; k < n; k++)
            tm[k] = w->p[list[k]].tmpl;
        if (t->latest)
            nrp = numafit__pci_rp_list(q, rp, rplen, RP_LIST_MAX);
        if (nrp) {
            /* a placement allocation: one pool per provider among those kept */
            for (uint32_t a = 0; a < n; a++)
                for (uint32_t b = a + 1; b < n; b++)
                    if (!strcmp(pool_rp(&w->p[list[a]]), pool_rp(&w->p[list[b]]))) {
                        numafit__error_set(err, NUMAFIT_E_NOFIT, -1, NULL, NULL,
                                           "PCI request %u: the pools split a resource provider",
                                           ri);
                        snprintf(err->where, sizeof(err->where), "pci_requests/%u", ri);
                        r = -ENOSPC;
                        goto out;
                    }
        }
        for (uint32_t k = 0; k < n && (nrp || count > 0); k++) {
            long pk = find_pool(w, tm[k]);
            int64_t num;
            if (pk < 0)
                continue;
            if (nrp) {
                /* what placement took from the pool's provider, once */
                const char *u = pool_rp(&w->p[pk]);
                num = 0;
                for (size_t a = 0; a < nrp; a++)
                    num += rplen[a] == strlen(u) && !memcmp(rp[a], u, rplen[a]);
                for (uint32_t j = 0; j < k && num; j++) {
                    long pj = find_pool(w, tm[j]);
                    if (pj >= 0 && !strcmp(pool_rp(&w->p[pj]), u))
                        num = 0;
                }
                if (num > w->p[pk].count)
                    num = w->p[pk].count;
            } else {
                num = w->p[pk].count < count ? w->p[pk].count : count;
                count -= num;
            }
            w->p[pk].count -= num;
            for (int64_t m = 0; m < num; m++) {
                struct pci_pool *P;
                uint32_t dev;
                json_t *o;
                pk = find_pool(w, tm[k]);
                if (pk < 0 || !w->p[pk].ndevs)
                    break; /* counts and devices disagree: cannot happen */
                P = &w->p[pk];
                dev = P->devs[--P->ndevs]; /* pool['devices'].pop() */
                st[dev] = ST_CLAIMED;
                dependents(t, w, st, dev);
                if (!(o = dev_json(t, dev, ri, q)) || json_array_append_new(taken, o))
                    goto nomem;
            }
        }
    }
    for (uint32_t i = 0; i < t->devs->n; i++)
        if (st[i] == ST_UNAVAILABLE && t->d[i].state == ST_FREE &&
            json_array_append_new(unavail, json_string(t->devs->d[i].address)))
            goto nomem;
    txt = json_dumps(out, JSON_COMPACT);
    if (!txt)
        goto nomem;
    /* done: the tracker takes the new state */
    for (uint32_t i = 0; i < t->devs->n; i++)
        t->d[i].state = st[i];
    numafit_pci_pools_free(t->pools);
    t->pools = w;
    w = NULL;
    *ret_json = txt;
    r = 0;
    goto out;
nomem:
    r = nomem(err);
out:
    numafit_pci_pools_free(w);
    free(st);
    free(list);
    free(tm);
    json_decref(out);
    return r;
}

static long find_dev(const numafit_pci_tracker_t *t, const char *address) {
    for (uint32_t i = 0; i < t->devs->n; i++)
        if (!strcmp(t->devs->d[i].address, address))
            return (long)i;
    return -1;
}

/* A claim's JSON: its "devices" list, each device's index in the tracker
 * (every one known, once) into idx[]; the document in *doc. */
static int claim_devices(const numafit_pci_tracker_t *t, const char *claim_json, size_t len,
                         json_t **doc, long **idx, size_t *n, numafit_error_t *err) {
    json_error_t je;
    json_t *list, *v;
    size_t i;
    *doc = NULL;
    *idx = NULL;
    *n = 0;
    if (len > NUMAFIT_INPUT_MAX) {
        numafit__error_set(err, NUMAFIT_E_RANGE, -1, NULL, NULL,
                           "the claim is larger than %u bytes", NUMAFIT_INPUT_MAX);
        return -ERANGE;
    }
    if (!(*doc = numafit__json_loadb(claim_json, len, JSON_REJECT_DUPLICATES, &je))) {
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, NULL, NULL, "the claim: %s", je.text);
        return -EBADMSG;
    }
    list = json_object_get(*doc, "devices");
    if (!json_is_array(list)) {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "devices", NULL,
                           "the claim has no \"devices\" list");
        return -EINVAL;
    }
    *n = json_array_size(list);
    if (!(*idx = numafit__malloc((*n ? *n : 1) * sizeof(**idx))))
        return nomem(err);
    json_array_foreach(list, i, v) {
        const char *a = json_string_value(json_object_get(v, "address"));
        long d = a ? find_dev(t, a) : -1;
        for (size_t k = 0; k < i && d >= 0; k++)
            if ((*idx)[k] == d)
                d = -2;
        if (d < 0) {
            numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, NULL, NULL,
                               d == -2 ? "device %.64s is twice in the claim"
                                       : "device %.64s is not a device of this tracker",
                               a ? a : "(no address)");
            snprintf(err->where, sizeof(err->where), "devices/%zu", i);
            return -EINVAL;
        }
        (*idx)[i] = d;
    }
    return 0;
}

/* A change of the tracker by a kept claim (restore, release): the claim's
 * devices, and a copy of the states and pools to work on (all or nothing). */
struct claim_work {
    json_t *doc;
    long *idx;
    size_t n;
    uint8_t *st;
    numafit_pci_pools_t *w;
};

static void work_end(struct claim_work *c) {
    numafit_pci_pools_free(c->w);
    free(c->st);
    free(c->idx);
    json_decref(c->doc);
}

static int work_begin(const numafit_pci_tracker_t *t, const char *claim_json, size_t len,
                      struct claim_work *c, numafit_error_t *err) {
    int r;
    memset(c, 0, sizeof(*c));
    numafit__error_clear(err);
    if (!t || !claim_json) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL,
                           "a tracker and a claim are required");
        return -EINVAL;
    }
    if ((r = claim_devices(t, claim_json, len, &c->doc, &c->idx, &c->n, err)) < 0)
        return r;
    if (!(c->st = numafit__malloc(t->devs->n ? t->devs->n : 1)) ||
        numafit_pci_pools_dup(t->pools, &c->w) < 0)
        return nomem(err);
    for (uint32_t k = 0; k < t->devs->n; k++)
        c->st[k] = t->d[k].state;
    return 0;
}

/* The tracker takes the work's states and pools. */
static void work_commit(numafit_pci_tracker_t *t, struct claim_work *c) {
    for (uint32_t k = 0; k < t->devs->n; k++)
        t->d[k].state = c->st[k];
    numafit_pci_pools_free(t->pools);
    t->pools = c->w;
    c->w = NULL;
}

NUMAFIT_EXPORT int numafit_pci_tracker_restore(numafit_pci_tracker_t *t, const char *claim_json,
                                               size_t len, numafit_error_t *err) {
    struct claim_work c;
    int r = work_begin(t, claim_json, len, &c, err);
    /* each device as the compute node finds it allocated when it starts
     * (not in the pools), its dependents unavailable */
    for (size_t i = 0; r == 0 && i < c.n; i++) {
        uint32_t d = (uint32_t)c.idx[i];
        if (c.st[d] != ST_FREE) {
            numafit__error_set(err, NUMAFIT_E_NOFIT_PCI, -1, NULL, NULL,
                               "device %s is not free (%s)", t->devs->d[d].address,
                               c.st[d] == ST_CLAIMED       ? "claimed"
                               : c.st[d] == ST_UNAVAILABLE ? "its PF or a VF of it is claimed"
                                                           : "not assignable");
            snprintf(err->where, sizeof(err->where), "devices/%zu", i);
            r = -EBUSY;
            break;
        }
        remove_device(c.w, &t->d[d], d);
        c.st[d] = ST_CLAIMED;
        dependents(t, c.w, c.st, d);
    }
    if (r == 0)
        work_commit(t, &c);
    work_end(&c);
    return r;
}

NUMAFIT_EXPORT int numafit_pci_tracker_release(numafit_pci_tracker_t *t, const char *claim_json,
                                               size_t len, numafit_error_t *err) {
    struct claim_work c;
    uint8_t *st;
    size_t i, n;
    int r = work_begin(t, claim_json, len, &c, err);

    if (r < 0)
        goto out;
    st = c.st;
    n = c.n;
    /* every device claimed here */
    for (i = 0; i < n; i++)
        if (st[c.idx[i]] != ST_CLAIMED) {
            numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, NULL, NULL,
                               "device %.64s is not claimed on this host",
                               t->devs->d[c.idx[i]].address);
            snprintf(err->where, sizeof(err->where), "devices/%zu", i);
            r = -EINVAL;
            goto out;
        }
    /* PciDevice.free, then add_device of what it frees, device by device */
    for (i = 0; i < n; i++) {
        uint32_t d = (uint32_t)c.idx[i];
        const struct trk_dev *D = &t->d[d];
        if (D->type == DT_PF) {
            for (uint32_t k = 0; k < t->devs->n; k++) {
                uint32_t j = t->by_addr[k];
                if (t->d[j].parent == (int32_t)d && st[j] == ST_UNAVAILABLE) {
                    st[j] = ST_FREE;
                    if ((r = add_device(c.w, t->tmpl, &t->d[j], j)) < 0)
                        goto fail;
                }
            }
        } else if ((D->type == DT_VF || D->type == DT_VDPA) && D->parent >= 0 &&
                   st[D->parent] == ST_UNAVAILABLE) {
            bool all = true;
            for (uint32_t j = 0; j < t->devs->n && all; j++)
                if (j != d && t->d[j].parent == D->parent && st[j] != ST_FREE)
                    all = false;
            if (all) {
                st[D->parent] = ST_FREE;
                if ((r = add_device(c.w, t->tmpl, &t->d[D->parent], (uint32_t)D->parent)) < 0)
                    goto fail;
            }
        }
        st[d] = ST_FREE;
        if ((r = add_device(c.w, t->tmpl, D, d)) < 0)
            goto fail;
    }
    work_commit(t, &c);
    r = 0;
    goto out;
fail:
    if (r != -ENOMEM) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL, "the pools lost a device");
        goto out;
    }
    r = nomem(err);
out:
    work_end(&c);
    return r;
}

NUMAFIT_EXPORT int numafit_pci_tracker_fit_and_claim(numafit_pci_tracker_t *t, numafit_host_t *host,
                                                     const numafit_request_t *req,
                                                     const numafit_pci_requests_t *reqs,
                                                     const numafit_options_t *opt,
                                                     numafit_placement_t **ret_placement,
                                                     char **ret_claim_json, numafit_error_t *err) {
    numafit_options_t *own = NULL;
    numafit_placement_t *p = NULL;
    int64_t ids[NUMAFIT_MAX_CELLS];
    int rc, n;

    numafit__error_clear(err);
    if (!t || !host || !req || !reqs || !ret_placement || !ret_claim_json) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, NULL, NULL,
                           "a tracker, a host, a request, PCI requests and both results are "
                           "required");
        return -EINVAL;
    }
    *ret_placement = NULL;
    *ret_claim_json = NULL;
    /* the fit sees the node's free devices as the scheduler would */
    if (opt)
        rc = numafit_options_dup(opt, &own);
    else
        rc = numafit_options_new(&own);
    if (rc < 0) {
        if (rc == -ENOMEM)
            nomem(err);
        return rc;
    }
    numafit_options_set_pci_check(own, NULL, NULL);
    numafit_options_set_pci(own, t->pools, reqs);
    rc = numafit_fit(host, req, own, 0, &p, err);
    numafit_options_free(own);
    if (rc <= 0)
        return rc;
    if ((rc = numafit_host_claim(host, p, 0, err)) < 0) {
        numafit_placement_free(p);
        return rc;
    }
    n = numafit_placement_get_cell_count(p);
    for (int i = 0; i < n; i++)
        ids[i] = numafit_placement_get_host_cell(p, (unsigned)i);
    rc = numafit_pci_tracker_claim(t, host, reqs, ids, n > 0 ? (size_t)n : 0, ret_claim_json, err);
    if (rc < 0) {
        /* nova's compute side refuses what its scheduler accepted (a VF and
         * its own PF): the host claim goes back */
        numafit_error_t e;
        int undo = numafit_host_release(host, p, 0, &e); /* just claimed: cannot fail */
        numafit_placement_free(p);
        if (undo < 0)
            return undo;
        if (rc == -ENOSPC) {
            if (err)
                err->code = NUMAFIT_E_NOFIT_PCI;
            return 0;
        }
        return rc;
    }
    *ret_placement = p;
    return 1;
}
