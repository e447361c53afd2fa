/* The PCI model shared by pci.c (pools, requests, nova's scheduler rules)
 * and pci_alias.c (requests from flavors and nova.conf's aliases). */
#ifndef NUMAFIT_PCI_INTERNAL_H
#define NUMAFIT_PCI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include <numafit/pci.h>

struct pci_tag {
    char *key;
    char *value; /* NULL: null */
    uint8_t id;  /* numafit__pci_key_id(key), 0: another key */
    uint64_t vh; /* numafit__pci_value_hash(value) */
};

/* The keys the rules and the pools' fields name, as small numbers (so that
 * matching compares numbers, not strings); 0 for any other key. */
enum {
    PCI_KEY_OTHER = 0,
    PCI_KEY_VENDOR_ID,
    PCI_KEY_PRODUCT_ID,
    PCI_KEY_NUMA_NODE,
    PCI_KEY_COUNT,
    PCI_KEY_DEV_TYPE,
    PCI_KEY_REMOTE_MANAGED,
    PCI_KEY_PHYSICAL_NETWORK,
    PCI_KEY_TRUSTED,
    PCI_KEY_PARENT_IFNAME,
    PCI_KEY_ADDRESS,
    PCI_KEY_RESOURCE_CLASS,
    PCI_KEY_TRAITS,
    PCI_KEY_RP_UUIDS,
    PCI_KEY_RP_UUID,
    PCI_KEY_LIVE_MIGRATABLE,
    PCI_KEY_N /* the number of ids */
};
uint8_t numafit__pci_key_id(const char *key);
/* A key of the value with ASCII letters folded to lower case (0 for
 * NULL): values that compare equal without case have the same key. A value
 * of at most 7 bytes is its key exactly (PCI_VALUE_EXACT set, its length
 * and folded bytes), so two such keys are equal only for equal values; a
 * longer value's key is a hash without that bit. */
#define PCI_VALUE_EXACT (1ull << 63)
uint64_t numafit__pci_value_hash(const char *value);

enum { NUMA_ABSENT, NUMA_NULL, NUMA_SET };

struct pci_pool {
    char *vendor_id, *product_id;
    int numa_state; /* NUMA_* */
    int64_t numa_node;
    int64_t count;
    uint32_t ntags;
    struct pci_tag *tags;
    /* set by numafit__pci_sort_pools: IS_PF | IS_VDPA | IS_RM (pci.c), the
     * value hashes of vendor_id and product_id (and of each tag) */
    uint8_t kind;
    uint64_t vendor_h, product_h;
    /* 1 + the index in tags of the tag of each key id (0: none; tags are
     * at most NUMAFIT_PCI_TAGS_MAX, fewer than 255) */
    uint8_t tag_at[PCI_KEY_N];
    /* a compute node's pools (pci_tracker.c): which pool of the builder
     * this is, and its free devices (indices), in the order they came */
    uint32_t tmpl;
    uint32_t *devs, ndevs, devcap;
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

/* A PCI device as nova's virt driver reports it (one dict of the
 * pci_passthrough_devices JSON), with the sysfs facts nova's device_spec
 * reads beside it (ifname, sriov_totalvfs, sriov_vf_device). */
struct pci_device {
    char *address;          /* "DOMAIN:BUS:SLOT.FUNCTION", lower-case hex */
    char *vendor_id;        /* four lower-case hex digits */
    char *product_id;       /* four lower-case hex digits */
    char *dev_type;         /* "type-PCI", "type-PF", "type-VF" or "vdpa" */
    int numa_state;         /* NUMA_ABSENT / NUMA_NULL / NUMA_SET */
    int64_t numa_node;      /* when NUMA_SET */
    char *parent_addr;      /* a VF's (or vdpa's) PF address, NULL: none */
    char *parent_ifname;    /* the PF's network interface (a VF), NULL: none */
    char *dev_id;           /* "pci_0000_81_00_1", NULL: none */
    char *label;            /* "label_8086_1520", NULL: none */
    char *card_serial;      /* capabilities.vpd.card_serial_number, NULL: none */
    char *ifname;           /* the device's own network interface, NULL: none */
    int64_t sriov_totalvfs; /* sysfs sriov_totalvfs, -1: unknown / none */
    char *sriov_vf_device;  /* sysfs sriov_vf_device (a PF), NULL: none */
    json_t *capabilities;   /* the dict as read (NULL: none), written back */
};

struct numafit_pci_devices {
    uint32_t n, cap;
    struct pci_device *d;
};

/* Add a copy of *dev (its strings and capabilities are copied; dev is not
 * taken). Returns 0, -ERANGE (more than NUMAFIT_PCI_DEVICES_MAX), -ENOMEM. */
int numafit__pci_devices_add(struct numafit_pci_devices *devs, const struct pci_device *dev);
void numafit__pci_device_clear(struct pci_device *d);
/* The card serial number of a device that has none yet, as nova reports
 * it: card_serial and capabilities {"vpd": {"card_serial_number"}}.
 * 0 or -ENOMEM (the device's clear frees what was set). */
int numafit__pci_device_set_serial(struct pci_device *d, const char *serial);
/* The discovery readers' shared helpers (pci_sysfs.c): an address as a
 * sortable key (DOMAIN<<16 | BUS<<8 | SLOT<<3 | FUNCTION) and back ("%04x:
 * %02x:%02x.%x", out of 32 bytes); a device's ids, address, dev_id and
 * label from the key; the devices sorted by key into a container. */
int numafit__pci_addr_parse(const char *s, size_t len, uint64_t *ret_key);
void numafit__pci_addr_format(uint64_t key, char *out);
int numafit__pci_device_set_ids(struct pci_device *d, uint64_t key, unsigned vendor,
                                unsigned product);
int numafit__pci_devices_finish(struct pci_device *devs, const uint64_t *keys, uint32_t n,
                                numafit_pci_devices_t **ret, struct numafit_error *err);

/* pci_vpd.c: the card serial number in the Vital Product Data of len
 * bytes at buf (the sysfs vpd file) as libvirt 9.0 reads it, into out
 * (NUMAFIT__PCI_VPD_SERIAL_CAP bytes, NUL-terminated): its length, or -1
 * when libvirt would find no VPD there or the VPD has no serial number. */
#define NUMAFIT__PCI_VPD_SERIAL_CAP 256
int numafit__pci_vpd_serial(const unsigned char *buf, size_t len, char *out);

/* DOMAIN:BUS:SLOT.FUNCTION in hexadecimal (a domain of 4 to 8 digits,
 * then 2, 2 and 1; either case) into v: false when not of that form. The
 * one address reader of the device JSON, sysfs and device_spec. */
bool numafit__pci_addr_fields(const char *s, size_t len, uint32_t v[4]);
/* domain.c: the <bandwidth> of a port's interface from the flavor's
 * quota:vif_* at depth (2 spaces each), "" for none; the number of
 * attributes, or <0 with err filled. */
int numafit__domain_vif_bandwidth(const json_t *flavor, unsigned flags, int depth, char **ret_xml,
                                  numafit_error_t *err);
/* A copy of s, NULL for NULL; *fail set when memory ran out. */
char *numafit__pci_dup_or_null(const char *s, bool *fail);

/* pci.c's JSON readers, shared by pci_devices.c and pci_spec.c. */
struct numafit__jpath;
/* A string field as nova's string fields coerce it (integers, booleans);
 * null only when nullable (*ret NULL). */
int numafit__pci_read_str(struct numafit__jpath *p, const json_t *v, bool nullable, char **ret);
/* The elements of a JSON array (at most max, "more than %zu WHAT"), each
 * read by fn into a zeroed array of size-byte elements (*ret, *ret_n; *ret_n
 * counts the elements started, so the caller frees them on failure too). */
typedef int (*read_elem_fn)(struct numafit__jpath *p, json_t *v, void *elem);
int numafit__pci_read_array(struct numafit__jpath *p, const json_t *list, size_t max,
                            const char *what, size_t size, read_elem_fn fn, void **ret,
                            uint32_t *ret_n);
/* Parse a document, also one held in a JSON string (nova's DB columns). */
struct numafit_error;
int numafit__pci_parse_doc(const char *what, const char *buf, size_t len, json_t **ret,
                           struct numafit_error *err);
/* nova's pool order: stable by the number of keys. -ENOMEM. */
int numafit__pci_sort_pools(struct numafit_pci_pools *pools);
/* numafit_pci_pools_new_from_devices(), and with dev_pool (devs->n
 * entries) each device's pool: the tmpl of its pool, UINT32_MAX for a
 * device no entry picks. */
int numafit__pci_pools_from_devices(const numafit_pci_devices_t *devs, const char *nova_conf,
                                    size_t conf_len, unsigned flags, numafit_pci_pools_t **ret,
                                    uint32_t *dev_pool, numafit_error_t *err);
/* nova's _filter_pools for request r on the pools (counts as they are,
 * none removed) and the host cells: 1 with the pools the request takes
 * from, in order, in list[] (*n of them; room for pools->n), 0 when they
 * are too few (err says why, where "pci_requests/ri"), -ENOMEM. */
int numafit__pci_filter_one(const numafit_pci_pools_t *pools, const numafit_host_t *host,
                            const struct pci_request *r, size_t ri, const int64_t *cell_ids,
                            size_t ncells, bool latest, uint32_t *list, uint32_t *n,
                            numafit_error_t *err);
/* The placement allocation of request r (latest rules: its first spec's
 * rp_uuids, comma-separated; none for a neutron port's request, which has
 * no alias_name): up to cap providers (a provider once per device) into
 * rp[] / rplen[]; returns how many. */
size_t numafit__pci_rp_list(const struct pci_request *r, const char **rp, size_t *rplen,
                            size_t cap);
/* Check a synthetic host spec's `pci:` token (n bytes, "pci:" included):
 * 0 or -EINVAL (err says why). pci_synth.c. */
int numafit__pci_synth_check(const char *tok, size_t n, numafit_error_t *err);

/* nova's names of enum numafit_pci_numa_policy (index 0: unset, NULL). */
extern const char *const numafit__pci_policy_names[];
void numafit__pci_tags_free(struct pci_tag *t, uint32_t n);
struct pci_tag *numafit__pci_tags_dup(const struct pci_tag *t, uint32_t n, bool *fail);
void numafit__pci_request_clear(struct pci_request *r);

/* The fit's use of the scheduler rules (fit.c): numafit_pci_support()
 * with the caller's scratch (numafit__pci_scratch_size() bytes, 8-aligned),
 * (numafit__pci_prepare(): each request's verdict on each pool, (requests
 * + 1) * pools bytes), each host cell's devices (the sum
 * of the counts of the pools on it; any: some pool is on it, even of count
 * 0), whether a request has the socket
 * policy. */
size_t numafit__pci_scratch_size(const numafit_pci_pools_t *pools);
/* Why a walk failed, kept without wording it (numafit__pci_support's fail,
 * worded later by numafit__pci_fail_word()). */
struct numafit__pci_fail {
    size_t ri;         /* the request that failed */
    int64_t found;     /* the devices it found */
    const char *why;   /* the step that left too few, or NULL: */
    const char *split; /* the provider two pools split (placement allocation) */
};
int numafit__pci_support(const numafit_pci_pools_t *pools, const numafit_host_t *host,
                         const numafit_pci_requests_t *reqs, const int64_t *cell_ids, size_t ncells,
                         void *scratch, const uint8_t *prep, bool latest,
                         struct numafit__pci_fail *fail, struct numafit_error *err);
void numafit__pci_fail_word(const numafit_pci_requests_t *reqs, const struct numafit__pci_fail *f,
                            struct numafit_error *err);
void numafit__pci_prepare(const numafit_pci_pools_t *pools, const numafit_pci_requests_t *reqs,
                          bool latest, uint8_t *prep);
void numafit__pci_cell_counts(const numafit_pci_pools_t *pools, const numafit_host_t *h,
                              int64_t *counts, uint8_t *any);
bool numafit__pci_socket_policy(const numafit_pci_requests_t *reqs);
bool numafit__pci_possible(const numafit_pci_pools_t *pools, const numafit_pci_requests_t *reqs,
                           const uint8_t *prep);
/* The most devices each request could take on a choice of host cells,
 * whatever the other requests take: numafit__pci_caps() fills cap
 * (numafit__pci_caps_words() int64s) from the prepared verdicts;
 * numafit__pci_bound() is false when some request cannot be met on the
 * host cells at indices cells[0..n-1] (then the walk fails there too; true
 * says nothing). */
size_t numafit__pci_caps_words(const numafit_pci_requests_t *reqs, const numafit_host_t *h);
void numafit__pci_caps(const numafit_pci_pools_t *pools, const numafit_pci_requests_t *reqs,
                       const uint8_t *prep, const numafit_host_t *h, int64_t *cap);
bool numafit__pci_bound(const numafit_pci_requests_t *reqs, const numafit_host_t *h,
                        const int64_t *cap, const uint32_t *cells, uint32_t n);
/* numafit__pci_bound() of each host cell alone (a one-cell guest), into
 * ok[h->ncells]; returns how many cells pass. */
uint32_t numafit__pci_cells_ok(const numafit_pci_requests_t *reqs, const numafit_host_t *h,
                               const int64_t *cap, uint8_t *ok);

#endif
