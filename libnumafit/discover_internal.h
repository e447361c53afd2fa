/* Host discovery internals: the neutral description of a host's NUMA cells
 * that the capabilities XML and sysfs readers fill, and the nova.conf
 * options that discover_rules.c applies to it. */
#ifndef NUMAFIT_DISCOVER_INTERNAL_H
#define NUMAFIT_DISCOVER_INTERNAL_H

#include <numafit/discover.h>

#include "private.h"

/* ------------------------------------------------------------ nova.conf */
struct numafit__resv {
    int64_t node;
    int64_t size_kb; /* -1: a size no page can have (negative, not whole KiB) */
    uint64_t count;
};

struct numafit__physnet {
    char *name;
    uint32_t nnodes;
    int64_t *nodes;
};

struct numafit_hostconf {
    uint64_t *vcpu_pin_set; /* NUMAFIT__CPU_WORDS words, NULL = unset */
    uint64_t *cpu_shared_set;
    uint64_t *cpu_dedicated_set;
    uint32_t nresv;
    struct numafit__resv *resv;
    uint32_t nphysnets;
    struct numafit__physnet *physnets;
    uint32_t ntunnel;
    int64_t *tunnel;
};

/* ------------------------------------------------------------ neutral description */
struct numafit__dcpu {
    uint32_t id;
    int32_t socket;              /* -1: no socket_id */
    int32_t core;                /* -1: no core_id */
    bool has_siblings;           /* false: nova would crash; we use {id} */
    uint32_t sib_start, sib_len; /* sorted CPU ids in dhost->sib */
};

struct numafit__dpages {
    uint64_t size_kb;
    uint64_t total;
};

struct numafit__ddist {
    int64_t id; /* the other cell's id */
    uint32_t value;
};

struct numafit__dcell {
    int32_t id;
    uint64_t memory_kib;
    uint32_t ncpus, cpus_cap;
    struct numafit__dcpu *cpus;
    uint32_t npages, pages_cap;
    struct numafit__dpages *pages;
    bool has_dist;
    uint32_t ndist, dist_cap;
    struct numafit__ddist *dist;
};

struct numafit__dhost {
    uint32_t ncells, cells_cap;
    struct numafit__dcell *cells;
    uint32_t nsib, sib_cap;
    uint16_t *sib;
    bool unsupported_arch; /* nova's _has_numa_support() is false */
};

void numafit__dhost_clear(struct numafit__dhost *d);
/* A new zeroed cell at the end (NULL on ENOMEM). */
struct numafit__dcell *numafit__dhost_add_cell(struct numafit__dhost *d);
struct numafit__dcpu *numafit__dcell_add_cpu(struct numafit__dcell *c);
int numafit__dcell_add_pages(struct numafit__dcell *c, uint64_t size_kb, uint64_t total);
int numafit__dcell_add_dist(struct numafit__dcell *c, int64_t id, uint32_t value);
/* Bounds of a description (hostile input must not make us allocate much). */
#define NUMAFIT__SIBLINGS_MAX (1u << 20) /* sibling entries over all CPUs */

/* Store the CPUs of a full-width bitmap as cpu's siblings; -E2BIG past
 * NUMAFIT__SIBLINGS_MAX entries in all. */
int numafit__dhost_set_siblings(struct numafit__dhost *d, struct numafit__dcpu *cpu,
                                const uint64_t *bits);

/*
 * Apply nova's rules to the description. online: NUMAFIT__CPU_WORDS words, or
 * NULL for every listed CPU. conf may be NULL. Checks ids (unique cells and
 * CPUs, ranges), then the options, and builds the host.
 */
int numafit__discover_build(const struct numafit__dhost *d, const uint64_t *online,
                            const numafit_hostconf_t *conf, unsigned flags, numafit_host_t **ret,
                            numafit_error_t *err);

/* nova's start-up checks of the CPU set options (InvalidConfiguration);
 * conf may be NULL. */
int numafit__discover_check_conf(const numafit_hostconf_t *conf, numafit_error_t *err);

/* Parse capabilities XML into a description (discover_caps.c). */
int numafit__caps_parse(const char *xml, size_t len, struct numafit__dhost *d,
                        numafit_error_t *err);

#define NUMAFIT__DISCOVER_FLAGS (NUMAFIT_DISCOVER_ALL_ONLINE | NUMAFIT_DISCOVER_ANY_ARCH)

#endif
