/* Host doctor, running domains: each guest read by doctor_domain_read.c is
 * checked against the host as the doctor found it (CPUs, online, nodes, huge
 * pages, kernel command line, nova.conf's CPU sets), then rebuilt into the
 * flavor nova would need for that shape and fitted with the library on the
 * empty host (the capture's sysfs and nova.conf, no guest running) to say
 * whether nova would accept it there and where it would put it. Each domain
 * gets a summary in the report's "domains" list; its findings carry its
 * name in "domain". doc/doctor.md describes each check. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numafit/discover.h>
#include <numafit/fit.h>
#include <numafit/placement.h>
#include <numafit/request.h>

#include "doctor_internal.h"

#define W       NUMAFIT__CPU_WORDS
#define BITS_SZ (W * sizeof(uint64_t))

/* Scratch bitmaps of one domain's checks. */
enum {
    S_PINNED, /* CPUs of single-CPU vcpupins */
    S_FLOAT,  /* CPUs of multi-CPU vcpupins and <vcpu cpuset> */
    S_NAMED,  /* every CPU the domain names */
    S_HOST,   /* the host's CPUs (its nodes' cpulists) */
    S_RTCPU,  /* CPUs of real-time vCPUs */
    S_NONRT,  /* CPUs of the other vCPUs */
    S_VCPUS,  /* a vCPU set */
    S_VCPUS2, /* another */
    S_TMP,
    S_TMP2,
    S_SIB,
    S__N
};

struct dchk {
    struct numafit__doctor *x;
    const struct ddom *d;
    uint64_t *s[S__N];
    bool host_known; /* S_HOST is the host's CPUs */
    uint32_t npinned, nset, nnone;
    json_t *sum; /* the domain's summary */
};

/* A finding about domain d: its detail starts with the domain's name and
 * the finding object gets "domain". */
static void dadd(struct dchk *c, const char *id, int sev, const char *title, const char *fix,
                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void dadd(struct dchk *c, const char *id, int sev, const char *title, const char *fix,
                 const char *fmt, ...) {
    struct numafit__doctor *x = c->x;
    char *detail;
    va_list ap;
    int n;
    size_t before = json_array_size(x->findings);
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !(detail = numafit__malloc((size_t)n + 1))) {
        x->oom = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(detail, (size_t)n + 1, fmt, ap);
    va_end(ap);
    numafit__doctor_add(x, id, sev, title, fix, "Domain %s%s%s%s: %s", c->d->name,
                        c->d->nova_name[0] ? " (nova instance " : "", c->d->nova_name,
                        c->d->nova_name[0] ? ")" : "", detail);
    numafit__free(detail);
    if (json_array_size(x->findings) > before)
        numafit__doctor_ok_json(x,
                                json_object_set_new(json_array_get(x->findings, before), "domain",
                                                    numafit__doctor_js(x, c->d->name)));
}

static const char *fmt(struct dchk *c, const uint64_t *bits) {
    return numafit__doctor_fmt(c->x, bits);
}

static void zero(uint64_t *b) {
    memset(b, 0, BITS_SZ);
}

static const struct dnode *node_by_id(const struct numafit__doctor *x, unsigned id) {
    for (uint32_t i = 0; i < x->nnodes; i++)
        if (x->nodes[i].id == id)
            return &x->nodes[i];
    return NULL;
}

/* The host nodes whose CPUs cpus touches, into nodes (DDOM_NODE_W words). */
static void nodes_of(const struct numafit__doctor *x, const uint64_t *cpus, uint64_t *nodes) {
    memset(nodes, 0, DDOM_NODE_W * sizeof(uint64_t));
    for (uint32_t i = 0; i < x->nnodes; i++)
        if (x->nodes[i].cpus && x->nodes[i].id <= NUMAFIT_CELL_ID_MAX &&
            numafit__bits_intersects(x->nodes[i].cpus, cpus, W))
            numafit__bit_set(nodes, x->nodes[i].id);
}

/* "0", "0 and 1", "0, 1 and 3" for a node set */
static void node_list(const uint64_t *nodes, char *out, size_t cap) {
    unsigned n = numafit__bits_count(nodes, DDOM_NODE_W), k = 0;
    size_t off = 0;
    int b = -1;
    out[0] = '\0';
    while ((b = numafit__bits_next(nodes, DDOM_NODE_W, b)) >= 0 && off < cap - 16) {
        k++;
        off += (size_t)snprintf(out + off, cap - off, "%s%d",
                                k == 1   ? ""
                                : k == n ? " and "
                                         : ", ",
                                b);
    }
}

/* The CPUs vCPU v may run on: its pin, else <vcpu cpuset>, else NULL (any). */
static const uint64_t *vcpu_cpus(const struct ddom *d, uint32_t v, uint64_t *one) {
    int32_t p = d->pin[v];
    if (p >= 0) {
        zero(one);
        numafit__bit_set(one, (unsigned)p);
        return one;
    }
    if (p <= DDOM_PIN_SET0)
        return d->sets[DDOM_PIN_SET0 - p];
    return d->has_vcpu_cpuset ? d->vcpu_cpuset : NULL;
}

/* ------------------------------------------------------------ the facts */

static void gather(struct dchk *c) {
    const struct ddom *d = c->d;
    struct numafit__doctor *x = c->x;
    for (uint32_t i = 0; i < x->nnodes; i++)
        if (x->nodes[i].cpus) {
            bits_or(c->s[S_HOST], x->nodes[i].cpus);
            c->host_known = true;
        }
    if (!c->host_known && x->has[B_ONLINE]) {
        bits_or(c->s[S_HOST], x->b[B_ONLINE]);
        c->host_known = true;
    }
    for (uint32_t v = 0; v < d->vcpus; v++) {
        int32_t p = d->pin[v];
        bool rt = numafit__bit_test(d->rt, v);
        const uint64_t *cpus = vcpu_cpus(d, v, c->s[S_TMP]);
        if (p >= 0) {
            c->npinned++;
            numafit__bit_set(c->s[S_PINNED], (unsigned)p);
        } else if (p <= DDOM_PIN_SET0) {
            c->nset++;
            bits_or(c->s[S_FLOAT], cpus);
        } else {
            c->nnone++;
        }
        if (cpus)
            bits_or(c->s[rt ? S_RTCPU : S_NONRT], cpus);
    }
    if (d->has_vcpu_cpuset && c->nnone)
        bits_or(c->s[S_FLOAT], d->vcpu_cpuset);
    bits_or(c->s[S_NAMED], c->s[S_PINNED]);
    bits_or(c->s[S_NAMED], c->s[S_FLOAT]);
    if (d->has_emu)
        bits_or(c->s[S_NAMED], d->emu);
}

static const char *policy_name(const struct dchk *c) {
    return c->npinned == c->d->vcpus ? "dedicated" : c->npinned ? "mixed" : "shared";
}

/* ------------------------------------------------------------ host CPUs */

static void check_cpus_exist(struct dchk *c) {
    struct numafit__doctor *x = c->x;
    if (c->host_known) {
        bits_andnot(c->s[S_TMP], c->s[S_NAMED], c->s[S_HOST]);
        if (!bempty(c->s[S_TMP]))
            dadd(c, "domain-cpu-unknown", SEV_ERROR,
                 "A guest is pinned to CPUs the host does not have",
                 "Pin the guest to CPUs of this host (nova does so when the guest is rebuilt or "
                 "migrated: the domain was probably copied from another host or edited).",
                 "its vcpupin, emulatorpin or vcpu cpuset names CPUs %s, which are not CPUs "
                 "of this host (%s); libvirt cannot start it here.",
                 fmt(c, c->s[S_TMP]), fmt(c, c->s[S_HOST]));
    }
    if (x->has[B_ONLINE]) {
        bits_andnot(c->s[S_TMP], c->s[S_NAMED], x->b[B_ONLINE]);
        if (c->host_known)
            bits_and(c->s[S_TMP], c->s[S_TMP], c->s[S_HOST]);
        if (!bempty(c->s[S_TMP]))
            dadd(c, "domain-cpu-offline", SEV_ERROR, "A guest is pinned to offline CPUs",
                 "Bring the CPUs online (echo 1 > /sys/devices/system/cpu/cpuN/online), or "
                 "migrate the guest so that nova pins it again.",
                 "it is pinned to CPUs %s, which are offline (online: %s); its vCPUs or "
                 "emulator threads there cannot run, and nova would not pin to them.",
                 fmt(c, c->s[S_TMP]), fmt(c, x->b[B_ONLINE]));
    }
}

/* The vCPUs whose CPUs lie in set (pins only when pinned_only) into out. */
static void vcpus_on(const struct dchk *c, const uint64_t *set, bool pinned_only, uint64_t *out,
                     uint64_t *one) {
    zero(out);
    for (uint32_t v = 0; v < c->d->vcpus; v++) {
        const uint64_t *cpus;
        if (pinned_only && c->d->pin[v] < 0)
            continue;
        cpus = vcpu_cpus(c->d, v, one);
        if (cpus && numafit__bits_intersects(cpus, set, W))
            numafit__bit_set(out, v);
    }
}

static void check_pinned_dedicated(struct dchk *c) {
    struct numafit__doctor *x = c->x;
    const char *opt =
        x->has[B_DEDICATED] ? "[compute] cpu_dedicated_set" : "[DEFAULT] vcpu_pin_set";
    if (!c->npinned || !x->has_conf || !x->has[B_PINNED])
        return;
    bits_andnot(c->s[S_TMP2], c->s[S_PINNED], x->b[B_PINNED]);
    if (bempty(c->s[S_TMP2]))
        return;
    vcpus_on(c, c->s[S_TMP2], true, c->s[S_VCPUS], c->s[S_TMP]);
    if (x->has[B_SHARED])
        bits_and(c->s[S_TMP], c->s[S_TMP2], x->b[B_SHARED]);
    else
        zero(c->s[S_TMP]);
    dadd(c, "domain-pinned-not-dedicated", SEV_ERROR,
         "Pinned vCPUs are on CPUs nova does not give to pinned guests",
         "Let nova pin the guest again (cold-migrate or rebuild it), or add the CPUs to the "
         "set for pinned guests if they are meant for them.",
         "vCPUs %s are pinned to CPUs %s, which are not in %s (%s)%s%s%s; other guests and "
         "the host run there, and nova's accounting does not know these CPUs are taken.",
         fmt(c, c->s[S_VCPUS]), fmt(c, c->s[S_TMP2]), opt, fmt(c, x->b[B_PINNED]),
         bempty(c->s[S_TMP]) ? "" : "; CPUs ", bempty(c->s[S_TMP]) ? "" : fmt(c, c->s[S_TMP]),
         bempty(c->s[S_TMP]) ? ""
                             : " are in [compute] cpu_shared_set, where unpinned guests "
                               "and emulator threads float");
}

/* The CPUs nova lets unpinned vCPUs float over into out; false if any. */
static bool shared_pool(const struct numafit__doctor *x, uint64_t *out, const char **what) {
    if (x->has[B_SHARED]) {
        memcpy(out, x->b[B_SHARED], BITS_SZ);
        *what = "[compute] cpu_shared_set";
    } else if (x->has[B_PINSET]) {
        memcpy(out, x->b[B_PINSET], BITS_SZ);
        *what = "[DEFAULT] vcpu_pin_set";
    } else if (x->has[B_DEDICATED]) {
        zero(out);
        *what = "[compute] cpu_shared_set (unset: with only cpu_dedicated_set nova has no CPUs "
                "for unpinned guests)";
    } else {
        return false;
    }
    return true;
}

static void check_floating(struct dchk *c) {
    struct numafit__doctor *x = c->x;
    const char *what = "";
    bool stealing;
    if (c->npinned == c->d->vcpus || !x->has_conf || !shared_pool(x, c->s[S_SIB], &what))
        return;
    if (c->nnone && !c->d->has_vcpu_cpuset) {
        stealing = x->has[B_DEDICATED];
        dadd(c, "domain-floating-not-shared", stealing ? SEV_ERROR : SEV_WARNING,
             "Unpinned vCPUs may run on any CPU",
             "Let nova write the guest again (cold-migrate or rebuild it): it confines unpinned "
             "vCPUs to cpu_shared_set with <vcpu cpuset> or <vcpupin>.",
             "%u vCPUs have no vcpupin and <vcpu> has no cpuset, so they float over every "
             "CPU of the host instead of %s (%s)%s.",
             c->nnone, what, fmt(c, c->s[S_SIB]),
             stealing ? ", including the CPUs of pinned guests" : "");
        return;
    }
    bits_andnot(c->s[S_TMP2], c->s[S_FLOAT], c->s[S_SIB]);
    if (bempty(c->s[S_TMP2]))
        return;
    stealing = x->has[B_PINNED] && numafit__bits_intersects(c->s[S_TMP2], x->b[B_PINNED], W);
    zero(c->s[S_VCPUS]);
    for (uint32_t v = 0; v < c->d->vcpus; v++)
        if (c->d->pin[v] < 0) {
            const uint64_t *cpus = vcpu_cpus(c->d, v, c->s[S_TMP]);
            if (cpus && numafit__bits_intersects(cpus, c->s[S_TMP2], W))
                numafit__bit_set(c->s[S_VCPUS], v);
        }
    dadd(c, "domain-floating-not-shared", stealing ? SEV_ERROR : SEV_WARNING,
         "Unpinned vCPUs float outside the CPUs nova gives unpinned guests",
         "Let nova write the guest again (cold-migrate or rebuild it), or correct the CPU sets "
         "in nova.conf if the guest is right and the sets are not.",
         "vCPUs %s float over CPUs %s; CPUs %s of them are outside %s (%s)%s.",
         fmt(c, c->s[S_VCPUS]), fmt(c, c->s[S_FLOAT]), fmt(c, c->s[S_TMP2]), what,
         fmt(c, c->s[S_SIB]), stealing ? "; they compete with pinned guests' vCPUs there" : "");
}

/* ------------------------------------------------------------ emulator threads */

static const char *spec_str(const struct ddom *d, const char *key) {
    return d->specs ? json_string_value(json_object_get(d->specs, key)) : NULL;
}

/* "share", "isolate", "with-vcpus", "floating" or "other": where the
 * emulator threads are, as nova's policies would put them. */
static const char *emulator_shape(struct dchk *c) {
    struct numafit__doctor *x = c->x;
    const struct ddom *d = c->d;
    if (!d->has_emu)
        return "floating";
    if (x->has[B_SHARED]) {
        memcpy(c->s[S_TMP], x->b[B_SHARED], BITS_SZ);
        if (x->has[B_ONLINE])
            bits_and(c->s[S_TMP], c->s[S_TMP], x->b[B_ONLINE]);
        if (c->npinned && numafit__bits_equal(d->emu, c->s[S_TMP], W))
            return "share";
    }
    /* nova's default: the CPUs of the vCPUs that are not real-time */
    if (numafit__bits_equal(d->emu, c->s[S_NONRT], W))
        return "with-vcpus";
    bits_and(c->s[S_TMP], d->emu, c->s[S_RTCPU]);
    bits_and(c->s[S_TMP2], d->emu, c->s[S_NONRT]);
    if (c->npinned && bempty(c->s[S_TMP]) && bempty(c->s[S_TMP2]) &&
        (!x->has[B_PINNED] || numafit__bits_subset(d->emu, x->b[B_PINNED], W)))
        return "isolate";
    return "other";
}

static void check_emulator(struct dchk *c, const char *shape) {
    struct numafit__doctor *x = c->x;
    const struct ddom *d = c->d;
    const char *want = spec_str(d, "hw:emulator_threads_policy");
    if (!d->has_emu) {
        if (c->npinned || d->ncells)
            dadd(c, "domain-emulator-unpinned", SEV_WARNING,
                 "The guest's emulator threads are not pinned",
                 "Let nova write the guest again (it always writes <emulatorpin> for guests "
                 "with a NUMA topology), or add <emulatorpin> by hand.",
                 "the domain has no <emulatorpin>: QEMU's emulator and I/O threads float over "
                 "every CPU of the host, including the CPUs of pinned vCPUs.");
        return;
    }
    if (want && strcmp(want, "share") && strcmp(want, "isolate"))
        want = NULL;
    if (want && !strcmp(want, "share") && !x->has[B_SHARED])
        want = NULL; /* nova then keeps them with the vCPUs */
    if (want ? !strcmp(want, shape) : strcmp(shape, "other") != 0)
        return;
    if (want)
        dadd(c, "domain-emulator-misplaced", SEV_WARNING,
             "The emulator threads are not where the flavor's policy puts them",
             "Let nova write the guest again (cold-migrate or rebuild it).",
             "the flavor sets hw:emulator_threads_policy=%s, but <emulatorpin> is %s, which "
             "looks like %s.",
             want, fmt(c, d->emu), shape);
    else
        dadd(c, "domain-emulator-misplaced", SEV_WARNING,
             "The emulator threads are where no nova policy puts them",
             "Let nova write the guest again (cold-migrate or rebuild it), or pin the emulator "
             "threads as one of nova's policies would.",
             "<emulatorpin> is %s; nova puts the emulator threads with the vCPUs that are not "
             "real-time (%s), on cpu_shared_set (%s) for hw:emulator_threads_policy=share, or "
             "on a dedicated CPU of their own for isolate.",
             fmt(c, d->emu), bempty(c->s[S_NONRT]) ? "none" : fmt(c, c->s[S_NONRT]),
             x->has[B_SHARED] ? fmt(c, x->b[B_SHARED]) : "unset");
}

/* ------------------------------------------------------------ NUMA cells */

/* The host nodes guest cell i's memory is bound to (its memnode, else the
 * numatune memory nodeset), false when unbound. */
static bool cell_mem_nodes(const struct ddom *d, uint32_t i, const uint64_t **nodes,
                           const char **mode) {
    if (d->cells[i].has_memnode) {
        *nodes = d->cells[i].nodes;
        *mode = d->cells[i].memnode_mode;
        return true;
    }
    if (d->has_mem_nodes) {
        *nodes = d->mem_nodes;
        *mode = d->mem_mode;
        return true;
    }
    return false;
}

/* The CPUs of guest cell i's vCPUs into out: pinned (pins) or floating. */
static bool cell_cpus(struct dchk *c, uint32_t i, bool pins, uint64_t *out) {
    const struct ddom *d = c->d;
    int v = -1;
    bool any = false;
    zero(out);
    while ((v = numafit__bits_next(d->cells[i].vcpus, W, v)) >= 0 && (uint32_t)v < d->vcpus) {
        int32_t p = d->pin[v];
        if (pins && p >= 0) {
            numafit__bit_set(out, (unsigned)p);
            any = true;
        } else if (!pins && p <= DDOM_PIN_SET0) {
            bits_or(out, d->sets[DDOM_PIN_SET0 - p]);
            any = true;
        }
    }
    return any;
}

static void check_cell(struct dchk *c, uint32_t i) {
    struct numafit__doctor *x = c->x;
    const struct ddom *d = c->d;
    const uint64_t *mem = NULL;
    const char *mode = "strict";
    uint64_t pn[DDOM_NODE_W], tmp[DDOM_NODE_W];
    char a[128], b[128];
    bool bound = cell_mem_nodes(d, i, &mem, &mode);

    if (bound) {
        int k = -1;
        while ((k = numafit__bits_next(mem, DDOM_NODE_W, k)) >= 0)
            if (x->nnodes && !node_by_id(x, (unsigned)k))
                dadd(c, "domain-node-unknown", SEV_ERROR,
                     "A guest cell's memory is bound to a node the host does not have",
                     "Let nova place the guest again (cold-migrate or rebuild it).",
                     "guest NUMA cell %u has its memory on host node %d, which this host does "
                     "not have; libvirt cannot start it here.",
                     i, k);
        if (numafit__bits_count(mem, DDOM_NODE_W) > 1) {
            node_list(mem, a, sizeof(a));
            dadd(c, "domain-cell-memory-spread", SEV_WARNING,
                 "A guest cell's memory may come from several host nodes",
                 "Bind each guest cell to one host node, as nova does (<memnode cellid=N "
                 "mode='strict' nodeset=M/>).",
                 "guest NUMA cell %u's memory is bound to host nodes %s; nova binds a guest "
                 "cell to exactly one.",
                 i, a);
        }
        if (strcmp(mode, "strict") && strcmp(mode, "restrictive"))
            dadd(c, "domain-cell-memory-mode", SEV_WARNING,
                 "A guest cell's memory binding is not strict",
                 "Use mode='strict', as nova writes it.",
                 "guest NUMA cell %u's memory binding has mode '%s': when the node runs short "
                 "the kernel takes its memory from other nodes.",
                 i, mode);
    } else if (x->nnodes > 1) {
        dadd(c, "domain-cell-memory-unbound", SEV_WARNING,
             "A guest cell's memory is not bound to a host node",
             "Let nova write the guest again: it writes <numatune><memnode> for every guest "
             "cell.",
             "guest NUMA cell %u has no <memnode> (and <numatune><memory> has no nodeset): "
             "its memory comes from any node, away from its vCPUs.",
             i);
    }
    for (int pins = 1; pins >= 0; pins--) {
        if (!cell_cpus(c, i, pins, c->s[S_TMP2]) || !x->nnodes)
            continue;
        nodes_of(x, c->s[S_TMP2], pn);
        node_list(pn, a, sizeof(a));
        if (pins && numafit__bits_count(pn, DDOM_NODE_W) > 1) {
            dadd(c, "domain-cell-split", SEV_ERROR, "A guest NUMA cell is pinned across host nodes",
                 "Let nova place the guest again (cold-migrate or rebuild it): it pins each "
                 "guest cell to the CPUs of one host node.",
                 "guest NUMA cell %u (vCPUs %s) is pinned to CPUs %s on host nodes %s; the "
                 "guest believes they share memory and caches that they do not.",
                 i, fmt(c, d->cells[i].vcpus), fmt(c, c->s[S_TMP2]), a);
            continue;
        }
        if (!bound)
            continue;
        for (unsigned k = 0; k < DDOM_NODE_W; k++)
            tmp[k] = pn[k] & ~mem[k];
        if (numafit__bits_empty(tmp, DDOM_NODE_W))
            continue;
        node_list(mem, b, sizeof(b));
        dadd(c, "domain-cell-memory-remote", SEV_ERROR,
             "A guest cell's vCPUs and memory are on different host nodes",
             "Let nova place the guest again (cold-migrate or rebuild it): it binds each "
             "guest cell's memory to the node of its CPUs.",
             "guest NUMA cell %u's vCPUs %s %s CPUs %s on host node %s, but its memory is "
             "bound to node %s: every memory access crosses the interconnect.",
             i, fmt(c, d->cells[i].vcpus), pins ? "are pinned to" : "float over",
             fmt(c, c->s[S_TMP2]), a, b);
    }
}

static void check_cells(struct dchk *c) {
    const struct ddom *d = c->d;
    uint64_t sum = 0;
    zero(c->s[S_VCPUS]);
    for (uint32_t i = 0; i < d->ncells; i++) {
        bits_or(c->s[S_VCPUS], d->cells[i].vcpus);
        sum += d->cells[i].mem_kib;
    }
    if (d->ncells && bcount(c->s[S_VCPUS]) != d->vcpus) {
        zero(c->s[S_VCPUS2]);
        for (uint32_t v = 0; v < d->vcpus; v++)
            if (!numafit__bit_test(c->s[S_VCPUS], v))
                numafit__bit_set(c->s[S_VCPUS2], v);
        dadd(c, "domain-cells-incomplete", SEV_WARNING, "Some vCPUs belong to no guest NUMA cell",
             "Let nova write the guest again: every vCPU of a nova guest is in one cell.",
             "vCPUs %s are in no <cell> of <cpu><numa>; libvirt puts them in cell 0.",
             fmt(c, c->s[S_VCPUS2]));
    }
    if (d->ncells && sum != d->mem_kib)
        dadd(c, "domain-cells-memory", SEV_WARNING,
             "The guest cells' memory does not add up to the guest's",
             "Let nova write the guest again.",
             "its NUMA cells hold %llu KiB, <memory> says %llu KiB; libvirt uses the cells' sum.",
             (unsigned long long)sum, (unsigned long long)d->mem_kib);
    for (uint32_t i = 0; i < d->ncells; i++)
        check_cell(c, i);
}

/* ------------------------------------------------------------ huge pages */

static uint64_t base_page_kb(void) {
    return 4;
}

/* The page size backing guest cell i (KiB), 0 for the base pages. */
static uint64_t cell_page_kb(const struct numafit__doctor *x, const struct ddom *d, uint32_t i) {
    bool any = d->page_kb != 0;
    for (uint32_t k = 0; k < d->ncells; k++)
        any = any || d->cells[k].page_kb;
    if (i < d->ncells && d->cells[i].page_kb)
        return d->cells[i].page_kb;
    if (d->hugepages && !any) /* <hugepages/>: the default huge page size */
        return x->default_hpsz_kb ? x->default_hpsz_kb : x->meminfo_hpsz_kb;
    return i >= d->ncells ? d->page_kb : 0;
}

static const struct dpsize *node_size(const struct dnode *n, uint64_t kb) {
    for (uint32_t k = 0; n && k < n->npsizes; k++)
        if (n->ps[k].size_kb == kb)
            return &n->ps[k];
    return NULL;
}

static void check_cell_pages(struct dchk *c, uint32_t i, uint64_t kb) {
    struct numafit__doctor *x = c->x;
    const struct ddom *d = c->d;
    const uint64_t *mem = NULL;
    const char *mode;
    uint64_t need, total = 0, used = 0, nodes_without = 0;
    bool free_known = true;
    char nm[32], a[128], counts[256];
    size_t off = 0;
    int k = -1;

    if (!cell_mem_nodes(d, i, &mem, &mode))
        return;
    numafit__doctor_size_name(kb, nm, sizeof(nm));
    need = (d->cells[i].mem_kib + kb - 1) / kb;
    if (d->cells[i].mem_kib % kb)
        dadd(c, "domain-hugepages-partial", SEV_WARNING,
             "A guest cell's memory is not a whole number of its huge pages",
             "Size the flavor's memory (hw:numa_mem.N) in whole pages.",
             "guest NUMA cell %u has %llu KiB, not a multiple of its %s pages; the last page "
             "is only partly used.",
             i, (unsigned long long)d->cells[i].mem_kib, nm);
    counts[0] = '\0';
    while ((k = numafit__bits_next(mem, DDOM_NODE_W, k)) >= 0) {
        const struct dnode *n = node_by_id(x, (unsigned)k);
        const struct dpsize *ps = node_size(n, kb);
        if (!n)
            continue;
        if (!ps || !ps->count)
            nodes_without++;
        if (ps) {
            total += ps->count;
            if (ps->has_free && ps->free <= ps->count)
                used += ps->count - ps->free;
            else
                free_known = false;
        }
        if (off < sizeof(counts) - 64)
            off += (size_t)snprintf(counts + off, sizeof(counts) - off, "%snode %d: %llu",
                                    off ? ", " : "", k, ps ? (unsigned long long)ps->count : 0ull);
    }
    node_list(mem, a, sizeof(a));
    if (!total) {
        dadd(c, "domain-hugepages-missing", SEV_ERROR,
             "A guest cell is backed by a page size its host node lacks",
             "Allocate pages of that size on the node (hugepagesz=/hugepages= on the kernel "
             "command line for 1G pages, or nr_hugepages of the node), or let nova place the "
             "guest again.",
             "guest NUMA cell %u is backed by %s pages on host node %s, which %s no %s pages "
             "(%s); QEMU cannot allocate its memory there.",
             i, nm, a, numafit__bits_count(mem, DDOM_NODE_W) > 1 ? "have" : "has", nm,
             counts[0] ? counts : "none");
        return;
    }
    if (total < need) {
        dadd(c, "domain-hugepages-short", SEV_ERROR,
             "A guest cell needs more huge pages than its host node has",
             "Allocate more pages of that size on the node, or let nova place the guest again.",
             "guest NUMA cell %u needs %llu x %s pages (%llu KiB) on host node %s, which "
             "%s only %llu in all (%s).",
             i, (unsigned long long)need, nm, (unsigned long long)d->cells[i].mem_kib, a,
             numafit__bits_count(mem, DDOM_NODE_W) > 1 ? "have" : "has", (unsigned long long)total,
             counts);
        return;
    }
    (void)nodes_without;
    if (free_known && used < need)
        dadd(c, "domain-hugepages-not-in-use", SEV_INFO,
             "Fewer huge pages are in use than the guest holds",
             "Nothing to fix if the guest was not running when the host was captured; "
             "otherwise check where its memory came from (numastat -p <qemu pid>).",
             "guest NUMA cell %u holds %llu x %s pages on host node %s, but the capture's "
             "counters show only %llu of them in use there.",
             i, (unsigned long long)need, nm, a, (unsigned long long)used);
}

static void check_hugepages(struct dchk *c) {
    const struct ddom *d = c->d;
    if (!c->x->nnodes)
        return;
    for (uint32_t i = 0; i < d->ncells; i++) {
        uint64_t kb = cell_page_kb(c->x, d, i);
        if (kb && kb != base_page_kb())
            check_cell_pages(c, i, kb);
    }
}

/* ------------------------------------------------------------ real time */

/* The online thread siblings of cpu (itself excluded) into out; false when
 * the capture does not say. */
static bool siblings(struct dchk *c, unsigned cpu, uint64_t *out) {
    char rel[128];
    snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%u/topology/thread_siblings_list", cpu);
    if (numafit__doctor_read_cpulist(c->x, rel, true, out) < 0)
        return false;
    if (c->x->has[B_ONLINE])
        bits_and(out, out, c->x->b[B_ONLINE]);
    numafit__bit_clear(out, cpu);
    return true;
}

static void check_realtime(struct dchk *c) {
    struct numafit__doctor *x = c->x;
    const struct ddom *d = c->d;
    int p = -1;
    if (bempty(d->rt))
        return;
    zero(c->s[S_VCPUS]);
    for (uint32_t v = 0; v < d->vcpus; v++)
        if (numafit__bit_test(d->rt, v) && d->pin[v] < 0)
            numafit__bit_set(c->s[S_VCPUS], v);
    if (!bempty(c->s[S_VCPUS]))
        dadd(c, "domain-rt-vcpu-floating", SEV_ERROR, "Real-time vCPUs are not pinned",
             "Real-time vCPUs need hw:cpu_policy=dedicated; let nova write the guest again.",
             "vCPUs %s have a fifo/rr scheduler but no single-CPU vcpupin; a real-time vCPU "
             "that floats is preempted and migrated by the host scheduler.",
             fmt(c, c->s[S_VCPUS]));
    bits_and(c->s[S_TMP2], c->s[S_RTCPU], c->s[S_PINNED]);
    if (bempty(c->s[S_TMP2]))
        return;
    if (!x->has_cmdline) {
        numafit__doctor_not_checked(x, "domain real-time isolation", "proc/cmdline was not read");
    } else {
        zero(c->s[S_TMP]);
        if (x->has[B_ISOLCPUS])
            bits_or(c->s[S_TMP], x->b[B_ISOLCPUS]);
        if (x->has[B_NOHZ])
            bits_or(c->s[S_TMP], x->b[B_NOHZ]);
        bits_andnot(c->s[S_TMP], c->s[S_TMP2], c->s[S_TMP]);
        if (!bempty(c->s[S_TMP]))
            dadd(c, "domain-rt-not-isolated", SEV_ERROR,
                 "Real-time vCPUs run on CPUs the kernel does not isolate",
                 "Isolate the CPUs of cpu_dedicated_set (isolcpus=, nohz_full=, rcu_nocbs= "
                 "through tuned's realtime-virtual-host profile) and reboot, or let nova pin "
                 "the guest to isolated CPUs.",
                 "real-time vCPUs are pinned to CPUs %s, which are neither in isolcpus (%s) "
                 "nor in nohz_full (%s) of the kernel command line; host tasks, timers and "
                 "interrupts preempt them.",
                 fmt(c, c->s[S_TMP]), x->has[B_ISOLCPUS] ? fmt(c, x->b[B_ISOLCPUS]) : "none",
                 x->has[B_NOHZ] ? fmt(c, x->b[B_NOHZ]) : "none");
        else if (!x->has[B_NOHZ] || !numafit__bits_subset(c->s[S_TMP2], x->b[B_NOHZ], W))
            dadd(c, "domain-rt-tick", SEV_WARNING,
                 "Real-time vCPUs run on CPUs that still get the timer tick",
                 "Add the CPUs to nohz_full= (and rcu_nocbs=) on the kernel command line and "
                 "reboot.",
                 "real-time vCPUs are pinned to CPUs %s, isolated but not all in nohz_full "
                 "(%s).",
                 fmt(c, c->s[S_TMP2]), x->has[B_NOHZ] ? fmt(c, x->b[B_NOHZ]) : "none");
    }
    if (d->has_emu) {
        bits_and(c->s[S_TMP], d->emu, c->s[S_TMP2]);
        if (!bempty(c->s[S_TMP]))
            dadd(c, "domain-rt-emulator-on-rt", SEV_ERROR,
                 "Emulator threads run on the CPUs of real-time vCPUs",
                 "Keep the emulator threads off the real-time vCPUs' CPUs "
                 "(hw:emulator_threads_policy=share or isolate, or a non-real-time vCPU in "
                 "hw:cpu_realtime_mask); let nova write the guest again.",
                 "<emulatorpin> %s includes CPUs %s of real-time vCPUs; QEMU's threads preempt "
                 "them (or starve behind them under SCHED_FIFO).",
                 fmt(c, d->emu), fmt(c, c->s[S_TMP]));
    }
    /* a real-time vCPU's core shared with other work */
    zero(c->s[S_VCPUS]);
    while ((p = numafit__bits_next(c->s[S_TMP2], W, p)) >= 0) {
        if (!siblings(c, (unsigned)p, c->s[S_SIB]) || bempty(c->s[S_SIB]))
            continue;
        bits_or(c->s[S_VCPUS], c->s[S_SIB]);
    }
    bits_andnot(c->s[S_VCPUS], c->s[S_VCPUS], c->s[S_TMP2]); /* siblings not real-time */
    if (!bempty(c->s[S_VCPUS])) {
        zero(c->s[S_TMP]);
        bits_or(c->s[S_TMP], c->s[S_NONRT]);
        if (d->has_emu)
            bits_or(c->s[S_TMP], d->emu);
        bits_and(c->s[S_TMP], c->s[S_TMP], c->s[S_VCPUS]);
        dadd(c, "domain-rt-sibling-busy", SEV_WARNING,
             "Real-time vCPUs share cores with other work",
             "Turn hyper-threading off on real-time hosts (as the real-time set-up does), or "
             "keep the sibling threads of real-time vCPUs idle.",
             "the thread siblings %s of the real-time vCPUs' CPUs %s are not real-time vCPUs "
             "of this guest%s%s%s; whatever runs there shares the core's execution units and "
             "caches.",
             fmt(c, c->s[S_VCPUS]), fmt(c, c->s[S_TMP2]), bempty(c->s[S_TMP]) ? "" : " (CPUs ",
             bempty(c->s[S_TMP]) ? "" : fmt(c, c->s[S_TMP]),
             bempty(c->s[S_TMP]) ? "" : " run its other vCPUs or emulator threads)");
    }
    if (!d->locked || !d->nosharepages)
        dadd(c, "domain-rt-memory", SEV_WARNING, "A real-time guest's memory is not locked",
             "Let nova write the guest again: for hw:cpu_realtime it writes <memoryBacking> "
             "with <locked/> and <nosharepages/>.",
             "<memoryBacking> lacks %s%s%s; the guest's memory can be swapped or merged by "
             "KSM, which stalls real-time vCPUs.",
             d->locked ? "" : "<locked/>", !d->locked && !d->nosharepages ? " and " : "",
             d->nosharepages ? "" : "<nosharepages/>");
}

/* ------------------------------------------------------------ thread siblings */

static void check_threads(struct dchk *c) {
    const struct ddom *d = c->d;
    const char *policy = spec_str(d, "hw:cpu_thread_policy");
    uint64_t *share = c->s[S_VCPUS], *alone = c->s[S_VCPUS2];
    bool any_smt = false;
    if (c->npinned < 1 || c->x->smt == 0)
        return;
    zero(share);
    zero(alone);
    for (uint32_t v = 0; v < d->vcpus; v++) {
        if (d->pin[v] < 0 || !siblings(c, (unsigned)d->pin[v], c->s[S_SIB]))
            continue;
        if (bempty(c->s[S_SIB]))
            continue;
        any_smt = true;
        if (numafit__bits_intersects(c->s[S_SIB], c->s[S_PINNED], W))
            numafit__bit_set(share, v);
        else
            numafit__bit_set(alone, v);
    }
    if (!any_smt)
        return;
    if (policy && !strcmp(policy, "isolate") && !bempty(share))
        dadd(c, "domain-thread-policy", SEV_ERROR, "vCPUs of an isolate guest share cores",
             "Let nova pin the guest again; isolate gives each vCPU a whole core.",
             "the flavor sets hw:cpu_thread_policy=isolate, but vCPUs %s are pinned to thread "
             "siblings of each other.",
             fmt(c, share));
    else if (policy && !strcmp(policy, "require") && !bempty(alone))
        dadd(c, "domain-thread-policy", SEV_ERROR, "vCPUs of a require guest do not share cores",
             "Let nova pin the guest again; require places vCPUs on sibling threads.",
             "the flavor sets hw:cpu_thread_policy=require, but vCPUs %s have no vCPU of the "
             "guest on their core's other threads.",
             fmt(c, alone));
    else if (!policy && !bempty(share))
        dadd(c, "domain-vcpus-on-siblings", SEV_INFO, "vCPUs of the guest share cores",
             "Nothing to fix unless the flavor wants hw:cpu_thread_policy=isolate.",
             "vCPUs %s are pinned to thread siblings of each other%s%s%s; nova's prefer and "
             "require policies do this, isolate never does (the domain does not say which "
             "policy its flavor has).",
             fmt(c, share), bempty(alone) ? "" : ", while vCPUs ",
             bempty(alone) ? "" : fmt(c, alone),
             bempty(alone) ? "" : " have their cores to themselves");
}

/* ------------------------------------------------------------ nova's metadata */

static void check_metadata(struct dchk *c) {
    const struct ddom *d = c->d;
    if (d->placement_auto)
        dadd(c, "domain-placement-auto", SEV_WARNING, "numad places the guest, not nova",
             "Let nova write the guest again; nova writes static placements.",
             "<vcpu placement='auto'> lets numad choose the guest's CPUs and memory at run "
             "time; nova's placement accounting does not know where it ends up.");
    if (d->nova && ((d->nova_vcpus >= 0 && (uint64_t)d->nova_vcpus != d->vcpus) ||
                    (d->nova_mem_mib >= 0 && (uint64_t)d->nova_mem_mib * 1024 != d->mem_kib)))
        dadd(c, "domain-flavor-differs", SEV_WARNING, "The guest differs from its nova flavor",
             "Check whether the domain was edited by hand (virsh edit) or a resize was not "
             "confirmed; nova rewrites it from the flavor on the next hard reboot.",
             "nova's metadata names flavor %s with %lld vCPUs and %lld MiB, but the domain "
             "has %u vCPUs and %llu KiB.",
             d->flavor[0] ? d->flavor : "(unnamed)", (long long)d->nova_vcpus,
             (long long)d->nova_mem_mib, d->vcpus, (unsigned long long)d->mem_kib);
}

/* ------------------------------------------------------------ what nova would give */

static int put_spec(struct dchk *c, json_t *specs, const char *k, const char *v) {
    return numafit__doctor_ok_json(c->x, json_object_set_new(specs, k, numafit__doctor_js(c->x, v)))
               ? 0
               : -ENOMEM;
}

/* The flavor nova would need to write this domain; NULL on ENOMEM. */
static json_t *rebuild_flavor(struct dchk *c, const char *emu_shape) {
    const struct ddom *d = c->d;
    json_t *specs = json_object(), *fl;
    uint64_t mem_mib = d->mem_kib / 1024, page = 0;
    bool numa = d->ncells || c->npinned || !bempty(d->rt);
    char key[48], num[32];
    const char *tp = spec_str(d, "hw:cpu_thread_policy");
    const char *ep = spec_str(d, "hw:emulator_threads_policy");
    if (!specs)
        return NULL;
    for (uint32_t i = 0; i <= d->ncells; i++)
        if (!page)
            page = cell_page_kb(c->x, d, i);
    numa = numa || page;
    if (d->ncells) {
        mem_mib = 0;
        snprintf(num, sizeof(num), "%u", d->ncells);
        put_spec(c, specs, "hw:numa_nodes", num);
        for (uint32_t i = 0; i < d->ncells; i++) {
            snprintf(key, sizeof(key), "hw:numa_cpus.%u", i);
            put_spec(c, specs, key, fmt(c, d->cells[i].vcpus));
            snprintf(key, sizeof(key), "hw:numa_mem.%u", i);
            snprintf(num, sizeof(num), "%llu", (unsigned long long)(d->cells[i].mem_kib / 1024));
            put_spec(c, specs, key, num);
            mem_mib += d->cells[i].mem_kib / 1024;
        }
    }
    if (c->npinned == d->vcpus) {
        put_spec(c, specs, "hw:cpu_policy", "dedicated");
    } else if (c->npinned) {
        put_spec(c, specs, "hw:cpu_policy", "mixed");
        zero(c->s[S_VCPUS]);
        for (uint32_t v = 0; v < d->vcpus; v++)
            if (d->pin[v] >= 0)
                numafit__bit_set(c->s[S_VCPUS], v);
        put_spec(c, specs, "hw:cpu_dedicated_mask", fmt(c, c->s[S_VCPUS]));
    }
    if (page) {
        snprintf(num, sizeof(num), "%llu", (unsigned long long)page);
        put_spec(c, specs, "hw:mem_page_size", num);
    }
    if (!bempty(d->rt)) {
        put_spec(c, specs, "hw:cpu_realtime", "yes");
        if (bcount(d->rt) != d->vcpus)
            put_spec(c, specs, "hw:cpu_realtime_mask", fmt(c, d->rt));
    } else if (d->locked) {
        put_spec(c, specs, "hw:locked_memory", "true");
    }
    if (ep)
        put_spec(c, specs, "hw:emulator_threads_policy", ep);
    else if (!strcmp(emu_shape, "share") || !strcmp(emu_shape, "isolate"))
        put_spec(c, specs, "hw:emulator_threads_policy", emu_shape);
    if (tp && numa)
        put_spec(c, specs, "hw:cpu_thread_policy", tp);
    fl = json_pack("{sIsIso}", "vcpus", (json_int_t)d->vcpus, "memory_mb", (json_int_t)mem_mib,
                   "extra_specs", specs);
    if (!fl)
        c->x->oom = true;
    return fl;
}

/* The host nova would see: the capture's sysfs with nova.conf, nothing in use. */
static const numafit_host_t *fit_host(struct numafit__doctor *x) {
    const char *conf = x->conf_text;
    size_t len = x->conf_len;
    numafit_hostconf_t *hc = NULL;
    numafit_error_t e;
    int r;
    if (x->fit_host_tried)
        return x->fit_host;
    x->fit_host_tried = true;
    if ((r = numafit_hostconf_new(&hc)) < 0) {
        x->oom = true;
        return NULL;
    }
    if (conf && (r = numafit_hostconf_set_from_nova_conf(hc, conf, len, 0, &e)) < 0) {
        if (r == -ENOMEM)
            x->oom = true;
        else
            numafit__doctor_not_checked(x, "domains: what nova would give", e.text);
    } else if ((r = numafit_host_new_from_sysfs(x->fs.root[0] ? x->fs.root : "/", hc, 0,
                                                &x->fit_host, &e)) < 0) {
        if (r == -ENOMEM)
            x->oom = true;
        else
            numafit__doctor_not_checked(x, "domains: what nova would give", e.text);
        x->fit_host = NULL;
    }
    numafit_hostconf_free(hc);
    return x->fit_host;
}

/* Does nova's placement p put the guest where the domain is? */
static bool same_nodes(struct dchk *c, const numafit_placement_t *p) {
    const struct ddom *d = c->d;
    for (uint32_t i = 0; i < d->ncells; i++) {
        const uint64_t *mem = NULL;
        const char *mode;
        int h = numafit_placement_get_host_cell(p, i);
        if (!cell_mem_nodes(d, i, &mem, &mode) || h < 0 || h > NUMAFIT_CELL_ID_MAX ||
            numafit__bits_count(mem, DDOM_NODE_W) != 1 || !numafit__bit_test(mem, (unsigned)h))
            return false;
    }
    return true;
}

static bool same_pins(const struct ddom *d, const numafit_placement_t *p) {
    for (uint32_t v = 0; v < d->vcpus; v++) {
        int q = numafit_placement_get_pin(p, v);
        if ((d->pin[v] >= 0) != (q >= 0) || (q >= 0 && q != d->pin[v]))
            return false;
    }
    return true;
}

/* nova's pins of placement p as "vCPU->CPU" pairs, cut to fit out */
static void pins_text(const struct ddom *d, const numafit_placement_t *p, char *out, size_t cap) {
    size_t off = 0;
    out[0] = '\0';
    for (uint32_t v = 0; v < d->vcpus && off < cap - 24; v++) {
        int q = numafit_placement_get_pin(p, v);
        if (q >= 0)
            off += (size_t)snprintf(out + off, cap - off, "%s%u->%d", off ? " " : "", v, q);
    }
    if (!out[0])
        snprintf(out, cap, "none (floating vCPUs)");
}

static void nova_fit(struct dchk *c, const char *emu_shape) {
    struct numafit__doctor *x = c->x;
    const struct ddom *d = c->d;
    json_t *fl = rebuild_flavor(c, emu_shape), *nova = json_object();
    numafit_request_t *req = NULL;
    numafit_placement_t *p = NULL;
    const numafit_host_t *h;
    numafit_error_t e;
    char *txt = NULL, *pj = NULL;
    int r;

    if (!fl || !nova || !(txt = numafit__json_dump(fl, 0))) {
        x->oom = true;
        goto out;
    }
    numafit__doctor_ok_json(x, json_object_set(nova, "flavor", fl));
    numafit__doctor_ok_json(x, json_object_set(c->sum, "nova", nova));
    r = numafit_request_new(txt, strlen(txt), NULL, 0, 0, &req, &e);
    if (r == -ENOMEM) {
        x->oom = true;
        goto out;
    }
    numafit__doctor_ok_json(x, json_object_set_new(nova, "accepted", json_boolean(r >= 0)));
    if (r < 0) {
        numafit__doctor_ok_json(x,
                                json_object_set_new(nova, "reason", numafit__doctor_js(x, e.text)));
        dadd(c, "domain-nova-refuses", SEV_ERROR, "nova would not create a guest of this shape",
             "Compare the domain with its flavor; nova did not write this shape (edited by "
             "hand, or written by another tool).",
             "the flavor this shape needs (%s) is refused by nova: %s%s%s.", txt,
             e.exception[0] ? e.exception : "", e.exception[0] ? ": " : "", e.text);
        goto out;
    }
    numafit__doctor_ok_json(x, json_object_set_new(nova, "numa", json_boolean(r == 1)));
    if (r == 0)
        goto out; /* nova gives it no NUMA topology: nothing to fit */
    if (!(h = fit_host(x)))
        goto out;
    r = numafit_fit(h, req, NULL, 0, &p, &e);
    if (r == -ENOMEM) {
        x->oom = true;
        goto out;
    }
    if (r < 0) {
        numafit__doctor_not_checked(x, "domains: what nova would give", e.text);
        goto out;
    }
    numafit__doctor_ok_json(x, json_object_set_new(nova, "fits", json_boolean(r == 1)));
    if (r == 0) {
        numafit__doctor_ok_json(x,
                                json_object_set_new(nova, "reason", numafit__doctor_js(x, e.text)));
        dadd(c, "domain-nova-no-fit", SEV_ERROR,
             "nova would not place this guest on this host, even empty",
             "Give the host what the guest needs (CPUs in cpu_dedicated_set, huge pages on "
             "its nodes), or move the guest to a host that has it: after a restart or "
             "migration nova will not put it back here.",
             "the flavor %s does not fit the host without any guest: %s.", txt, e.text);
        goto out;
    }
    if (numafit_placement_to_json(p, 0, &pj, &e) < 0) {
        x->oom = true;
        goto out;
    }
    {
        json_error_t je;
        json_t *pl = json_loads(pj, 0, &je);
        bool nodes_same = same_nodes(c, p), pins_same = same_pins(d, p);
        char pins[512];
        if (!pl) {
            x->oom = true;
            goto out;
        }
        numafit__doctor_ok_json(x, json_object_set_new(nova, "placement", pl));
        numafit__doctor_ok_json(x,
                                json_object_set_new(nova, "same_nodes", json_boolean(nodes_same)));
        numafit__doctor_ok_json(x, json_object_set_new(nova, "same_pins", json_boolean(pins_same)));
        if (!nodes_same || !pins_same) {
            uint64_t hn[DDOM_NODE_W];
            char a[128];
            memset(hn, 0, sizeof(hn));
            for (int i = 0; i < numafit_placement_get_cell_count(p); i++) {
                int hc = numafit_placement_get_host_cell(p, (unsigned)i);
                if (hc >= 0 && hc <= NUMAFIT_CELL_ID_MAX)
                    numafit__bit_set(hn, (unsigned)hc);
            }
            node_list(hn, a, sizeof(a));
            pins_text(d, p, pins, sizeof(pins));
            dadd(c, "domain-nova-placement-differs", SEV_INFO,
                 "nova would place this guest differently on the empty host",
                 "Nothing to fix: the guests already running change where nova puts the next "
                 "one. It is worth a look only when the host holds this guest alone.",
                 "on the empty host nova would put it on node %s%s with vCPU pins %s; the "
                 "domain %s.",
                 a, nodes_same ? " (the same nodes)" : "", pins,
                 nodes_same ? "has other pins" : "is elsewhere");
        }
    }
out:
    numafit_free(pj);
    numafit_placement_free(p);
    numafit_request_free(req);
    numafit__free(txt);
    json_decref(fl);
    json_decref(nova);
}

/* ------------------------------------------------------------ summary */

static void summarize(struct dchk *c, const char *emu_shape) {
    struct numafit__doctor *x = c->x;
    const struct ddom *d = c->d;
    json_t *s = c->sum, *cells = json_array(), *meta = NULL;
    if (!cells) {
        x->oom = true;
        return;
    }
    numafit__doctor_ok_json(x, json_object_set_new(s, "name", numafit__doctor_js(x, d->name)));
    numafit__doctor_ok_json(
        x,
        json_object_set_new(s, "uuid", d->uuid[0] ? numafit__doctor_js(x, d->uuid) : json_null()));
    if (d->nova) {
        meta =
            json_pack("{sosososo}", "name",
                      d->nova_name[0] ? numafit__doctor_js(x, d->nova_name) : json_null(), "flavor",
                      d->flavor[0] ? numafit__doctor_js(x, d->flavor) : json_null(), "vcpus",
                      d->nova_vcpus >= 0 ? json_integer(d->nova_vcpus) : json_null(), "memory_mib",
                      d->nova_mem_mib >= 0 ? json_integer(d->nova_mem_mib) : json_null());
        if (!meta)
            x->oom = true;
        else if (d->specs)
            numafit__doctor_ok_json(x, json_object_set(meta, "extra_specs", d->specs));
    }
    numafit__doctor_ok_json(x, json_object_set_new(s, "nova_instance", meta ? meta : json_null()));
    numafit__doctor_ok_json(x, json_object_set_new(s, "vcpus", json_integer(d->vcpus)));
    numafit__doctor_ok_json(
        x, json_object_set_new(s, "memory_mib", json_integer((json_int_t)(d->mem_kib / 1024))));
    numafit__doctor_ok_json(
        x, json_object_set_new(s, "cpu_policy", numafit__doctor_js(x, policy_name(c))));
    numafit__doctor_ok_json(
        x, json_object_set_new(s, "pinned_cpus", numafit__doctor_js(x, fmt(c, c->s[S_PINNED]))));
    numafit__doctor_ok_json(
        x, json_object_set_new(s, "floating_cpus",
                               c->nnone && !d->has_vcpu_cpuset
                                   ? numafit__doctor_js(x, "any")
                                   : numafit__doctor_js(x, fmt(c, c->s[S_FLOAT]))));
    numafit__doctor_ok_json(
        x, json_object_set_new(s, "emulatorpin",
                               d->has_emu ? numafit__doctor_js(x, fmt(c, d->emu)) : json_null()));
    numafit__doctor_ok_json(
        x, json_object_set_new(s, "emulator_threads", numafit__doctor_js(x, emu_shape)));
    numafit__doctor_ok_json(
        x, json_object_set_new(s, "realtime_vcpus", numafit__doctor_js(x, fmt(c, d->rt))));
    for (uint32_t i = 0; i < d->ncells; i++) {
        const uint64_t *mem = NULL;
        const char *mode;
        json_t *cj;
        char nm[32];
        uint64_t kb = cell_page_kb(x, d, i);
        cell_cpus(c, i, true, c->s[S_TMP]);
        cell_cpus(c, i, false, c->s[S_TMP2]);
        bits_or(c->s[S_TMP2], c->s[S_TMP]);
        cj = json_pack("{sIsososIso}", "id", (json_int_t)i, "vcpus",
                       numafit__doctor_js(x, fmt(c, d->cells[i].vcpus)), "cpus",
                       numafit__doctor_js(x, fmt(c, c->s[S_TMP2])), "memory_mib",
                       (json_int_t)(d->cells[i].mem_kib / 1024), "page_size",
                       kb ? numafit__doctor_js(x, numafit__doctor_size_name(kb, nm, sizeof(nm)))
                          : json_null());
        if (!cj) {
            x->oom = true;
            break;
        }
        if (cell_mem_nodes(d, i, &mem, &mode)) {
            uint64_t tmp[W];
            memset(tmp, 0, sizeof(tmp));
            memcpy(tmp, mem, DDOM_NODE_W * sizeof(uint64_t));
            numafit__doctor_ok_json(
                x, json_object_set_new(cj, "memory_nodes", numafit__doctor_js(x, fmt(c, tmp))));
        } else {
            numafit__doctor_ok_json(x, json_object_set_new(cj, "memory_nodes", json_null()));
        }
        numafit__doctor_ok_json(x, json_array_append_new(cells, cj));
    }
    numafit__doctor_ok_json(x, json_object_set_new(s, "cells", cells));
}

/* ------------------------------------------------------------ entry */

static void check_domain(struct numafit__doctor *x, const struct ddom *d) {
    struct dchk c;
    uint64_t *mem = numafit__calloc((size_t)S__N * W, sizeof(uint64_t));
    const char *shape;
    memset(&c, 0, sizeof(c));
    c.x = x;
    c.d = d;
    c.sum = json_object();
    if (!mem || !c.sum) {
        x->oom = true;
        goto out;
    }
    for (int i = 0; i < S__N; i++)
        c.s[i] = mem + (size_t)i * W;
    gather(&c);
    shape = emulator_shape(&c);
    summarize(&c, shape);
    check_metadata(&c);
    check_cpus_exist(&c);
    check_pinned_dedicated(&c);
    check_floating(&c);
    check_emulator(&c, shape);
    check_cells(&c);
    check_hugepages(&c);
    check_realtime(&c);
    check_threads(&c);
    nova_fit(&c, shape);
    numafit__doctor_ok_json(x, json_array_append(x->domains, c.sum));
out:
    json_decref(c.sum);
    numafit__free(mem);
}

void numafit__doctor_check_domains(struct numafit__doctor *x) {
    for (uint32_t i = 0; i < x->ndoms && !x->oom; i++)
        check_domain(x, &x->doms[i]);
}
