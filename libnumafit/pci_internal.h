/* The PCI model shared by pci.c (pools, requests, nova's scheduler rules)
 * and pci_alias.c (requests from flavors and nova.conf's aliases). */
#ifndef NUMAFIT_PCI_INTERNAL_H
#define NUMAFIT_PCI_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <numafit/pci.h>

struct pci_tag {
    char *key;
    char *value; /* NULL: null */
};

enum { NUMA_ABSENT, NUMA_NULL, NUMA_SET };

struct pci_pool {
    char *vendor_id, *product_id;
    int numa_state; /* NUMA_* */
    int64_t numa_node;
    int64_t count;
    uint32_t ntags;
    struct pci_tag *tags;
};

struct numafit_pci_pools {
    uint32_t n;
    struct pci_pool *p;
};

struct pci_spec {
    uint32_t n;
    struct pci_tag *kv;
};

struct pci_request {
    int64_t count;
    uint32_t nspecs;
    struct pci_spec *specs;
    char *alias_name, *request_id, *requester_id; /* NULL: null */
    int policy;                                   /* enum numafit_pci_numa_policy */
    bool is_new;
};

struct numafit_pci_requests {
    uint32_t n;
    struct pci_request *r;
    char *instance_uuid; /* NULL: none */
};

/* nova's names of enum numafit_pci_numa_policy (index 0: unset, NULL). */
extern const char *const numafit__pci_policy_names[];
void numafit__pci_tags_free(struct pci_tag *t, uint32_t n);
struct pci_tag *numafit__pci_tags_dup(const struct pci_tag *t, uint32_t n, bool *fail);
void numafit__pci_request_clear(struct pci_request *r);

#endif
