/*
 * PCI pools and requests (numafit_pci_*): nova's JSON forms, the pools'
 * order, the four NUMA policies on a seed host with SR-IOV NICs, the PF /
 * vdpa / remote-managed exclusions, the greedy walk and claims all or
 * nothing.
 *
 * The host: the Huawei RH2288H V3 of seed document 000 (2 sockets, a cell
 * each) with an Intel X710 (8086:1572) whose PF and 4 VFs (8086:154c) sit
 * on cell 0, an NVIDIA T4 (10de:1eb8) on cell 1, and a VF pool whose NUMA
 * node the kernel does not know (null).
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numafit.h>

/* clang-format off */
static const char *const seed_pools =
    "{\"nova_object.name\": \"PciDevicePoolList\", \"nova_object.namespace\": \"nova\","
    " \"nova_object.version\": \"1.1\", \"nova_object.data\": {\"objects\": ["
    "{\"nova_object.name\": \"PciDevicePool\", \"nova_object.namespace\": \"nova\","
    " \"nova_object.version\": \"1.1\", \"nova_object.data\": {\"vendor_id\": \"8086\","
    " \"product_id\": \"154c\", \"numa_node\": 0, \"count\": 4, \"tags\": {"
    "\"dev_type\": \"type-VF\", \"physical_network\": \"physnet1\","
    " \"remote_managed\": \"false\", \"parent_ifname\": \"ens1f0\"}}},"
    "{\"nova_object.name\": \"PciDevicePool\", \"nova_object.namespace\": \"nova\","
    " \"nova_object.version\": \"1.1\", \"nova_object.data\": {\"vendor_id\": \"8086\","
    " \"product_id\": \"1572\", \"numa_node\": 0, \"count\": 1, \"tags\": {"
    "\"dev_type\": \"type-PF\", \"physical_network\": \"physnet1\","
    " \"remote_managed\": \"false\"}}},"
    "{\"nova_object.name\": \"PciDevicePool\", \"nova_object.namespace\": \"nova\","
    " \"nova_object.version\": \"1.1\", \"nova_object.data\": {\"vendor_id\": \"10de\","
    " \"product_id\": \"1eb8\", \"numa_node\": 1, \"count\": 1, \"tags\": {"
    "\"dev_type\": \"type-PCI\"}}},"
    "{\"nova_object.name\": \"PciDevicePool\", \"nova_object.namespace\": \"nova\","
    " \"nova_object.version\": \"1.1\", \"nova_object.data\": {\"vendor_id\": \"8086\","
    " \"product_id\": \"154c\", \"numa_node\": null, \"count\": 2, \"tags\": {"
    "\"dev_type\": \"type-VF\", \"physical_network\": \"physnet1\","
    " \"remote_managed\": \"false\"}}}]}}";
/* clang-format on */

static numafit_pci_pools_t *pools(void) {
    numafit_pci_pools_t *p = NULL;
    numafit_error_t e;
    ck_assert_msg(numafit_pci_pools_new_from_json(seed_pools, strlen(seed_pools), 0, &p, &e) == 0,
                  "%s: %s", e.where, e.text);
    return p;
}

static numafit_pci_requests_t *reqs(const char *json) {
    numafit_pci_requests_t *r = NULL;
    numafit_error_t e;
    ck_assert_msg(numafit_pci_requests_new_from_json(json, strlen(json), 0, &r, &e) == 0,
                  "%s: %s: %s", json, e.where, e.text);
    return r;
}

static numafit_host_t *seed_host(void) {
    numafit_host_t *h = NULL;
    ck_assert_int_eq(numafit_host_new_synthetic("2x4c 2cells mem:64G", 0, &h, NULL), 0);
    return h;
}

/* support of the requests on cell ids (n of them) */
static int support(const char *req_json, const int64_t *cells, size_t n) {
    numafit_pci_pools_t *p = pools();
    numafit_pci_requests_t *r = reqs(req_json);
    numafit_host_t *h = seed_host();
    numafit_error_t e;
    int rc = numafit_pci_support(p, h, r, cells, n, &e);
    ck_assert_int_ge(rc, 0);
    if (rc == 0)
        ck_assert_msg(strncmp(e.where, "pci_requests/", 13) == 0 && e.code == NUMAFIT_E_NOFIT,
                      "where '%s'", e.where);
    numafit_pci_pools_free(p);
    numafit_pci_requests_free(r);
    numafit_host_free(h);
    return rc;
}

#define VF(count, policy)                                                                          \
    "[{\"count\":" #count ",\"spec\":[{\"vendor_id\":\"8086\",\"product_id\":\"154C\"}],"          \
    "\"numa_policy\":" policy "}]"

START_TEST(test_order_and_json) {
    numafit_pci_pools_t *p = pools(), *q = NULL;
    const char *v, *prod, *tag;
    int known;
    int64_t node, count;
    char *txt = NULL;
    numafit_error_t e;

    /* nova's order: fewest keys first (the T4, then the PF and the null-node
     * VFs, then the VFs with their parent_ifname), stable */
    ck_assert_int_eq(numafit_pci_pools_get_count(p), 4);
    ck_assert_int_eq(numafit_pci_pools_get(p, 0, &v, &prod, &known, &node, &count), 0);
    ck_assert_str_eq(prod, "1eb8");
    ck_assert_int_eq(node, 1);
    ck_assert_int_eq(numafit_pci_pools_get(p, 1, &v, &prod, &known, &node, &count), 0);
    ck_assert_str_eq(prod, "1572");
    ck_assert_int_eq(numafit_pci_pools_get(p, 2, &v, &prod, &known, &node, &count), 0);
    ck_assert_int_eq(known, 0);
    ck_assert_int_eq(count, 2);
    ck_assert_int_eq(numafit_pci_pools_get(p, 3, &v, &prod, &known, &node, &count), 0);
    ck_assert_int_eq(numafit_pci_pools_get_tag(p, 3, "parent_ifname", &tag), 1);
    ck_assert_str_eq(tag, "ens1f0");
    ck_assert_int_eq(numafit_pci_pools_get_tag(p, 3, "trusted", &tag), 0);
    /* written and read back; nova's older flat list reads to the same pools */
    ck_assert_int_eq(numafit_pci_pools_to_json(p, NUMAFIT_HOST_JSON_STRING, &txt, &e), 0);
    ck_assert_int_eq(numafit_pci_pools_new_from_json(txt, strlen(txt), 0, &q, &e), 0);
    ck_assert_int_eq(numafit_pci_pools_equal(p, q), 1);
    numafit_free(txt);
    numafit_pci_pools_free(q);
    {
        const char *flat = "[{\"vendor_id\":\"10de\",\"product_id\":\"1eb8\",\"numa_node\":1,"
                           "\"count\":1,\"dev_type\":\"type-PCI\"}]";
        ck_assert_int_eq(numafit_pci_pools_new_from_json(flat, strlen(flat), 0, &q, &e), 0);
        ck_assert_int_eq(numafit_pci_pools_get(q, 0, &v, &prod, &known, &node, &count), 0);
        ck_assert_str_eq(v, "10de");
        ck_assert_int_eq(numafit_pci_pools_get_tag(q, 0, "dev_type", &tag), 1);
        ck_assert_str_eq(tag, "type-PCI");
        numafit_pci_pools_free(q);
    }
    numafit_pci_pools_free(p);
}
END_TEST

static void pools_fail(const char *json, const char *where) {
    numafit_pci_pools_t *p = NULL;
    numafit_error_t e;
    ck_assert_msg(numafit_pci_pools_new_from_json(json, strlen(json), 0, &p, &e) < 0, "%s", json);
    ck_assert_ptr_null(p);
    ck_assert_msg(strcmp(e.where, where) == 0, "%s: where '%s', expected '%s' (%s)", json, e.where,
                  where, e.text);
}

START_TEST(test_bad_input) {
    numafit_pci_requests_t *r = NULL;
    numafit_error_t e;
    const char *bad_policy = "[{\"count\":1,\"spec\":[{}],\"numa_policy\":\"strict\"}]";
    pools_fail("[{\"vendor_id\":\"8086\",\"count\":1}]", "/0/product_id");
    pools_fail("[{\"vendor_id\":\"8086\",\"product_id\":\"1\",\"count\":-1}]", "/0/count");
    pools_fail("[{\"vendor_id\":\"8086\",\"product_id\":\"1\",\"count\":1,\"numa_node\":\"0\"}]",
               "/0/numa_node");
    pools_fail("[{\"vendor_id\":\"8086\",\"product_id\":\"1\",\"count\":1,\"dev_type\":[1]}]",
               "/0/dev_type");
    pools_fail("7", "");
    ck_assert_int_eq(numafit_pci_requests_new_from_json(bad_policy, strlen(bad_policy), 0, &r, &e),
                     -EINVAL);
    ck_assert_str_eq(e.where, "/0/numa_policy");
    ck_assert_ptr_null(r);
}
END_TEST

START_TEST(test_policies) {
    const int64_t c0[] = {0}, c1[] = {1}, both[] = {0, 1};
    /* 4 VFs on cell 0 and 2 of unknown node: every policy takes local ones first */
    ck_assert_int_eq(support(VF(4, "\"required\""), c0, 1), 1);
    ck_assert_int_eq(support(VF(5, "\"required\""), c0, 1), 0);
    /* legacy (also unset and null): local, else local + unknown node */
    ck_assert_int_eq(support(VF(6, "\"legacy\""), c0, 1), 1);
    ck_assert_int_eq(support(VF(6, "null"), c0, 1), 1);
    ck_assert_int_eq(support(VF(7, "\"legacy\""), c0, 1), 0);
    /* on cell 1: no local VF; legacy takes the 2 of unknown node, never cell 0's */
    ck_assert_int_eq(support(VF(2, "\"legacy\""), c1, 1), 1);
    ck_assert_int_eq(support(VF(3, "\"legacy\""), c1, 1), 0);
    /* preferred: then any VF */
    ck_assert_int_eq(support(VF(6, "\"preferred\""), c1, 1), 1);
    ck_assert_int_eq(support(VF(7, "\"preferred\""), c1, 1), 0);
    /* socket: a cell per socket here, so nothing beyond the cell, and never
     * the unknown node */
    ck_assert_int_eq(support(VF(1, "\"socket\""), c1, 1), 0);
    ck_assert_int_eq(support(VF(4, "\"socket\""), c0, 1), 1);
    /* a guest on both cells: the cells' devices count together */
    ck_assert_int_eq(support(VF(4, "\"required\""), both, 2), 1);
    /* no guest cells (no NUMA topology): no policy applies */
    ck_assert_int_eq(support(VF(6, "\"required\""), NULL, 0), 1);
}
END_TEST

START_TEST(test_exclusions) {
    const int64_t c0[] = {0};
    /* a port (physical network only): VFs but never the PF unless asked */
    ck_assert_int_eq(support("[{\"count\":6,\"spec\":[{\"physical_network\":\"PHYSNET1\","
                             "\"remote_managed\":\"False\"}],\"requester_id\":\"p1\"}]",
                             NULL, 0),
                     1);
    ck_assert_int_eq(
        support("[{\"count\":7,\"spec\":[{\"physical_network\":\"physnet1\"}]}]", NULL, 0), 0);
    ck_assert_int_eq(support("[{\"count\":1,\"spec\":[{\"physical_network\":\"physnet1\","
                             "\"dev_type\":\"type-PF\"}]}]",
                             c0, 1),
                     1);
    /* a key the pool lacks matches only null */
    ck_assert_int_eq(support("[{\"count\":1,\"spec\":[{\"trusted\":\"true\"}]}]", NULL, 0), 0);
    ck_assert_int_eq(
        support("[{\"count\":1,\"spec\":[{\"product_id\":\"1eb8\",\"trusted\":null}]}]", NULL, 0),
        1);
}
END_TEST

/* Spec values against pool values, without case (ASCII): values of up to
 * seven bytes compare by their exact key, longer ones by hash and text. */
START_TEST(test_value_keys) {
    static const char flat[] =
        "[{\"vendor_id\": \"8086\", \"product_id\": \"154C\", \"numa_node\": 0,"
        " \"count\": 1, \"physical_network\": \"PhysNet1\", \"parent_ifname\": \"ens1f0np0\","
        " \"x\": \"abcdefg\", \"y\": \"\u00c4\", \"z\": \"\"}]";
    static const struct {
        const char *spec;
        int fits;
    } cases[] = {
        {"\"product_id\": \"154c\"", 1},
        {"\"product_id\": \"154C\"", 1},
        {"\"product_id\": \"154\"", 0},
        {"\"product_id\": \"154cc\"", 0},
        {"\"physical_network\": \"physnet1\"", 1}, /* 8 bytes */
        {"\"physical_network\": \"physnet2\"", 0},
        {"\"parent_ifname\": \"ENS1F0NP0\"", 1},
        {"\"parent_ifname\": \"ens1f0np1\"", 0},
        {"\"x\": \"ABCDEFG\"", 1}, /* 7 bytes: the exact key */
        {"\"x\": \"abcdefh\"", 0},
        {"\"x\": \"abcdef\"", 0},
        {"\"x\": \"abcdefgh\"", 0},
        {"\"y\": \"\u00c4\"", 1},
        {"\"y\": \"\u00e4\"", 0}, /* outside ASCII: bytes as they are */
        {"\"z\": \"\"", 1},
        {"\"z\": \" \"", 0},
        {"\"z\": null", 0},
    };
    numafit_pci_pools_t *p = NULL;
    numafit_error_t e;
    ck_assert_int_eq(numafit_pci_pools_new_from_json(flat, strlen(flat), 0, &p, &e), 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char json[256];
        numafit_pci_requests_t *r;
        snprintf(json, sizeof(json), "[{\"count\": 1, \"spec\": [{%s}]}]", cases[i].spec);
        r = reqs(json);
        ck_assert_msg(numafit_pci_support(p, NULL, r, NULL, 0, &e) == cases[i].fits, "%s", json);
        numafit_pci_requests_free(r);
    }
    numafit_pci_pools_free(p);
}
END_TEST

START_TEST(test_apply) {
    numafit_pci_pools_t *p = pools(), *before = NULL;
    numafit_pci_requests_t *ok = reqs(VF(5, "\"legacy\"")),
                           *two = reqs("[{\"count\":1,\"spec\":[{\"product_id\":\"1eb8\"}]},"
                                       "{\"count\":9,\"spec\":[{\"product_id\":\"154c\"}]}]");
    numafit_host_t *h = seed_host();
    const int64_t c0[] = {0};
    int64_t count;
    numafit_error_t e;

    ck_assert_int_eq(numafit_pci_pools_dup(p, &before), 0);
    /* the second request fails: nothing taken, not even the T4 of the first
     * (a guest without NUMA topology: no policy) */
    ck_assert_int_eq(numafit_pci_apply(p, h, two, NULL, 0, &e), -ENOSPC);
    ck_assert_str_eq(e.where, "pci_requests/1");
    ck_assert_int_eq(numafit_pci_pools_equal(p, before), 1);
    /* 5 VFs for a guest on cell 0, legacy: the legacy list keeps the pools'
     * order, so the 2 of unknown node go first, then 3 of cell 0's 4; the
     * emptied pool is removed */
    ck_assert_int_eq(numafit_pci_apply(p, h, ok, c0, 1, &e), 0);
    ck_assert_int_eq(numafit_pci_pools_get_count(p), 3);
    ck_assert_int_eq(numafit_pci_pools_get(p, 2, NULL, NULL, NULL, NULL, &count), 0);
    ck_assert_int_eq(count, 1);
    numafit_pci_pools_free(p);
    numafit_pci_pools_free(before);
    numafit_pci_requests_free(ok);
    numafit_pci_requests_free(two);
    numafit_host_free(h);
}
END_TEST

/* requests of a flavor; NULL on a refusal with exception exc */
static numafit_pci_requests_t *from_flavor(const char *extra, const char *image, const char *conf,
                                           unsigned flags, const char *exc) {
    numafit_pci_requests_t *r = NULL;
    numafit_error_t e;
    char flavor[512];
    int rc;
    snprintf(flavor, sizeof(flavor), "{\"extra_specs\": %s}", extra);
    rc = numafit_pci_requests_from_flavor(flavor, strlen(flavor), image, image ? strlen(image) : 0,
                                          conf, conf ? strlen(conf) : 0, flags, &r, &e);
    if (exc) {
        ck_assert_msg(rc == -EINVAL && !strcmp(e.exception, exc), "%s: rc %d, %s: %s", extra, rc,
                      e.exception, e.text);
        ck_assert_ptr_null(r);
        return NULL;
    }
    ck_assert_msg(rc == 0, "%s: %s %s", extra, e.exception, e.text);
    return r;
}

START_TEST(test_from_flavor) {
    const char *conf = "[pci]\n"
                       "alias = {\"name\": \"x710\", \"vendor_id\": \"8086\", \"product_id\": "
                       "\"154c\", \"device_type\": \"type-VF\", \"numa_policy\": \"preferred\"}\n"
                       "alias = {\"name\": \"t4\", \"vendor_id\": \"10de\", \"product_id\": "
                       "\"1eb8\", \"live_migratable\": \"Yes\"}\n";
    const char *old = "[DEFAULT]\npci_alias = {\"name\": \"t4\", \"device_type\": \"type-PCI\"}\n";
    numafit_pci_requests_t *r;
    int64_t count;
    int policy;

    /* two aliases; the alias's policy unless the flavor sets one */
    r = from_flavor("{\"pci_passthrough:alias\": \"x710:2, t4 :1\"}", NULL, conf, 0, NULL);
    ck_assert_int_eq(numafit_pci_requests_get_count(r), 2);
    ck_assert_int_eq(numafit_pci_requests_get(r, 0, &count, &policy), 0);
    ck_assert_int_eq(count, 2);
    ck_assert_int_eq(policy, NUMAFIT_PCI_POLICY_PREFERRED);
    ck_assert_int_eq(numafit_pci_requests_get(r, 1, &count, &policy), 0);
    ck_assert_int_eq(policy, NUMAFIT_PCI_POLICY_LEGACY);
    numafit_pci_requests_free(r);
    r = from_flavor("{\"pci_passthrough:alias\": \"x710:1\", \"hw:pci_numa_affinity_policy\": "
                    "\"required\"}",
                    "{\"properties\": {\"hw_pci_numa_affinity_policy\": \"required\"}}", conf, 0,
                    NULL);
    ck_assert_int_eq(numafit_pci_requests_get(r, 0, NULL, &policy), 0);
    ck_assert_int_eq(policy, NUMAFIT_PCI_POLICY_REQUIRED);
    numafit_pci_requests_free(r);
    /* no extra spec: no request, and the aliases are not read */
    r = from_flavor("{}", NULL, "[pci]\nalias = {bad\n", 0, NULL);
    ck_assert_int_eq(numafit_pci_requests_get_count(r), 0);
    numafit_pci_requests_free(r);
    /* nova's refusals */
    from_flavor("{\"pci_passthrough:alias\": \"nope:1\"}", NULL, conf, 0,
                "PciRequestAliasNotDefined");
    from_flavor("{\"pci_passthrough:alias\": \"x710:-1\"}", NULL, conf, 0, "ValueError");
    from_flavor("{\"pci_passthrough:alias\": \"x710\"}", NULL, conf, 0, "ValueError");
    from_flavor("{\"pci_passthrough:alias\": \"x710:1\", \"hw:pci_numa_affinity_policy\": "
                "\"legacy\"}",
                "{\"properties\": {\"hw_pci_numa_affinity_policy\": \"required\"}}", conf, 0,
                "ImagePCINUMAPolicyForbidden");
    from_flavor("{\"pci_passthrough:alias\": \"x710:1\", \"hw:pci_numa_affinity_policy\": "
                "\"strict\"}",
                NULL, conf, 0, "InvalidPCINUMAAffinity");
    /* Zed knows no live_migratable key */
    from_flavor("{\"pci_passthrough:alias\": \"t4:1\"}", NULL, conf, NUMAFIT_PCI_ZED,
                "PciInvalidAlias");
    /* the deprecated [DEFAULT] pci_alias, when [pci] alias is not given; the
     * latest nova wants vendor_id and product_id in every alias, Zed not */
    r = from_flavor("{\"pci_passthrough:alias\": \"t4:1\"}", NULL, old, NUMAFIT_PCI_ZED, NULL);
    ck_assert_int_eq(numafit_pci_requests_get_count(r), 1);
    numafit_pci_requests_free(r);
    from_flavor("{\"pci_passthrough:alias\": \"t4:1\"}", NULL, old, 0, "PciInvalidAlias");
    /* both names: oslo.config merges them, the deprecated name's values
     * first, and a [PCI] section is [pci] */
    {
        char *js = NULL;
        const char *both = "[PCI]\nalias = {\"name\": \"t4\", \"vendor_id\": \"10de\", "
                           "\"product_id\": \"1eb8\", \"device_type\": \"type-PCI\"}\n"
                           "[DEFAULT]\npci_alias = {\"name\": \"t4\", "
                           "\"device_type\": \"type-PCI\"}\n";
        numafit_error_t e;
        r = from_flavor("{\"pci_passthrough:alias\": \"t4:1\"}", NULL, both, NUMAFIT_PCI_ZED, NULL);
        ck_assert_int_eq(numafit_pci_requests_get_count(r), 1);
        ck_assert_int_eq(numafit_pci_requests_to_json(r, 0, &js, &e), 0);
        /* the [DEFAULT] spec (no vendor) first, then the [pci] one */
        ck_assert_ptr_nonnull(strstr(js, "\"spec\":[{\"dev_type\":\"type-PCI\"},{"));
        ck_assert_ptr_nonnull(strstr(js, "1eb8"));
        numafit_free(js);
        numafit_pci_requests_free(r);
    }
}
END_TEST

START_TEST(test_ports) {
    numafit_pci_requests_t *r = NULL;
    numafit_pci_pools_t *p = pools();
    numafit_error_t e;
    int policy;
    char *txt = NULL;

    ck_assert_int_eq(numafit_pci_requests_new(&r), 0);
    /* a direct port on physnet1: a VF (never the PF), the port's policy */
    ck_assert_int_eq(numafit_pci_requests_add_port(r, "direct", "physnet1", -1, "p1", "required",
                                                   NUMAFIT_PCI_POLICY_UNSET, &e),
                     1);
    /* direct-physical asks for the PF; the flavor's policy when the port has none */
    ck_assert_int_eq(numafit_pci_requests_add_port(r, "direct-physical", "physnet1", 1, "p2", NULL,
                                                   NUMAFIT_PCI_POLICY_SOCKET, &e),
                     1);
    ck_assert_int_eq(numafit_pci_requests_add_port(r, "normal", NULL, -1, "p3", NULL, 0, &e), 0);
    ck_assert_int_eq(numafit_pci_requests_add_port(r, "sriov", NULL, -1, "p4", NULL, 0, &e),
                     -EINVAL);
    ck_assert_str_eq(e.where, "vnic_type");
    ck_assert_int_eq(numafit_pci_requests_get_count(r), 2);
    ck_assert_int_eq(numafit_pci_requests_get(r, 1, NULL, &policy), 0);
    ck_assert_int_eq(policy, NUMAFIT_PCI_POLICY_SOCKET);
    ck_assert_int_eq(numafit_pci_requests_to_json(r, 0, &txt, &e), 0);
    ck_assert_ptr_nonnull(strstr(txt, "\"trusted\":\"True\""));
    numafit_free(txt);
    /* the PF asks trusted=True, which the PF pool does not have */
    ck_assert_int_eq(numafit_pci_support(p, NULL, r, NULL, 0, &e), 0);
    ck_assert_str_eq(e.where, "pci_requests/1");
    numafit_pci_requests_free(r);
    numafit_pci_pools_free(p);
}
END_TEST

/* The refusal's text, written by hand: numbers of more than one digit, a
 * port's request, and a text cut at the end of err.text. */
START_TEST(test_refusal_text) {
    numafit_pci_pools_t *p = pools();
    numafit_pci_requests_t *r = reqs("[{\"count\":12,\"alias_name\":\"vf\",\"spec\":"
                                     "[{\"vendor_id\":\"8086\",\"product_id\":\"154c\"}]}]");
    numafit_error_t e;
    char alias[121], json[400];
    ck_assert_int_eq(numafit_pci_support(p, NULL, r, NULL, 0, &e), 0);
    ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT);
    ck_assert_int_eq(e.cell, -1);
    ck_assert_str_eq(e.where, "pci_requests/0");
    ck_assert_str_eq(e.exception, "");
    ck_assert_str_eq(e.text, "PCI request 0 (alias vf) asks for 12 devices: only 6 devices match "
                             "its specs");
    numafit_pci_requests_free(r);
    /* request 10, a port's (its requester id, no alias): ten requests of
     * no device before it */
    {
        char many[1200];
        size_t k = 0;
        many[k++] = '[';
        for (int i = 0; i < 10; i++)
            k += (size_t)snprintf(many + k, sizeof(many) - k,
                                  "{\"count\":0,\"alias_name\":\"vf\",\"spec\":"
                                  "[{\"vendor_id\":\"8086\",\"product_id\":\"154c\"}]},");
        snprintf(many + k, sizeof(many) - k,
                 "{\"count\":3,\"requester_id\":\"port-10\",\"spec\":"
                 "[{\"vendor_id\":\"10de\"}]}]");
        r = reqs(many);
    }
    ck_assert_int_eq(numafit_pci_support(p, NULL, r, NULL, 0, &e), 0);
    ck_assert_str_eq(e.where, "pci_requests/10");
    ck_assert_str_eq(e.text, "PCI request 10 (port port-10) asks for 3 devices: only 1 devices "
                             "match its specs");
    numafit_pci_requests_free(r);
    /* an alias of 120 bytes: its first 100 are worded */
    memset(alias, 'a', 120);
    alias[120] = '\0';
    snprintf(json, sizeof(json),
             "[{\"count\":5,\"alias_name\":\"%s\",\"spec\":[{\"vendor_id\":\"8086\","
             "\"product_id\":\"154c\"}],\"numa_policy\":\"required\"}]",
             alias);
    r = reqs(json);
    {
        int64_t c1 = 1;
        char want[256];
        ck_assert_int_eq(numafit_pci_support(p, NULL, r, &c1, 1, &e), 0);
        alias[100] = '\0';
        snprintf(want, sizeof(want),
                 "PCI request 0 (alias %s) asks for 5 devices: only 0 matching devices are on "
                 "NUMA nodes its policy allows",
                 alias);
        ck_assert_str_eq(e.text, want);
    }
    numafit_pci_requests_free(r);
    numafit_pci_pools_free(p);
}
END_TEST

/* ------------------------------------------------------------ devices */

/* A host: an X710 PF (ens1f0, 64 VFs possible, VF product 154c) with two
 * VFs on node 1, a second port without VFs, a T4 GPU on node 0 and one
 * behind a 32-bit PCI domain the kernel gives no node. */
static const char *const host_devs =
    "[{\"address\": \"0000:81:00.0\", \"vendor_id\": \"8086\", \"product_id\": \"1572\", "
    "\"dev_type\": \"type-PF\", \"numa_node\": 1, \"ifname\": \"ens1f0\", \"sriov_totalvfs\": 64, "
    "\"sriov_vf_device\": \"154c\"},"
    "{\"address\": \"0000:81:00.1\", \"vendor_id\": \"8086\", \"product_id\": \"1572\", "
    "\"dev_type\": \"type-PCI\", \"numa_node\": 1, \"ifname\": \"ens1f1\", \"sriov_totalvfs\": 0},"
    "{\"address\": \"0000:81:02.0\", \"vendor_id\": \"8086\", \"product_id\": \"154c\", "
    "\"dev_type\": \"type-VF\", \"numa_node\": 1, \"parent_addr\": \"0000:81:00.0\", "
    "\"parent_ifname\": \"ens1f0\", \"capabilities\": {\"vpd\": {\"card_serial_number\": "
    "\"MT2113X00000\"}}},"
    "{\"address\": \"0000:81:02.1\", \"vendor_id\": \"8086\", \"product_id\": \"154c\", "
    "\"dev_type\": \"type-VF\", \"numa_node\": 1, \"parent_addr\": \"0000:81:00.0\", "
    "\"parent_ifname\": \"ens1f0\"},"
    "{\"address\": \"0000:3b:00.0\", \"vendor_id\": \"10de\", \"product_id\": \"1eb8\", "
    "\"dev_type\": \"type-PCI\", \"numa_node\": 0},"
    "{\"address\": \"10000:01:00.0\", \"vendor_id\": \"10de\", \"product_id\": \"1eb8\", "
    "\"dev_type\": \"type-PCI\", \"numa_node\": null}]";

/* The pools of host_devs under device_spec lines (one per line of specs),
 * as "vendor:product:node:count:dev_type" joined by ' ', or the name of
 * nova's exception. */
static char *spec_pools(const char *specs, unsigned flags) {
    numafit_pci_devices_t *d = NULL;
    numafit_pci_pools_t *p = NULL;
    numafit_error_t e;
    char conf[4096], *out = calloc(1, 4096);
    int n = snprintf(conf, sizeof(conf), "[pci]\n");
    ck_assert_ptr_nonnull(out);
    for (const char *l = specs; *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        n += snprintf(conf + n, sizeof(conf) - (size_t)n, "device_spec = %.*s\n", (int)len, l);
        l += len + (nl != NULL);
    }
    ck_assert_int_eq(numafit_pci_devices_new_from_json(host_devs, strlen(host_devs), 0, &d, &e), 0);
    if (numafit_pci_pools_new_from_devices(d, conf, strlen(conf), flags, &p, &e) < 0) {
        snprintf(out, 4096, "%s", e.exception[0] ? e.exception : "?");
    } else {
        for (int i = 0; i < numafit_pci_pools_get_count(p); i++) {
            const char *v, *pr, *t = NULL;
            int known;
            int64_t node, count;
            ck_assert_int_eq(numafit_pci_pools_get(p, (unsigned)i, &v, &pr, &known, &node, &count),
                             0);
            numafit_pci_pools_get_tag(p, (unsigned)i, "dev_type", &t);
            snprintf(out + strlen(out), 4096 - strlen(out), "%s%s:%s:%s%" PRId64 ":%" PRId64 ":%s",
                     i ? " " : "", v, pr, known ? "" : "null", known ? node : (int64_t)0, count,
                     t ? t : "-");
        }
    }
    numafit_pci_pools_free(p);
    numafit_pci_devices_free(d);
    return out;
}

static void expect_pools(const char *specs, unsigned flags, const char *want) {
    char *got = spec_pools(specs, flags);
    ck_assert_msg(!strcmp(got, want), "%s:\n got  %s\n want %s", specs, got, want);
    free(got);
}

START_TEST(test_devices_json) {
    numafit_pci_devices_t *d = NULL, *d2 = NULL;
    numafit_error_t e;
    char *js = NULL, *js2 = NULL;
    const char *a, *pa;
    int known;
    int64_t node;
    static const struct {
        const char *json, *where;
    } bad[] = {
        {"{}", ""},
        {"[{\"vendor_id\": \"8086\", \"product_id\": \"1572\", \"dev_type\": \"type-PCI\"}]",
         "/0/address"},
        {"[{\"address\": \"0000:81:00\", \"vendor_id\": \"8086\", \"product_id\": \"1572\", "
         "\"dev_type\": \"type-PCI\"}]",
         "/0/address"},
        {"[{\"address\": \"0000:81:00.0\", \"vendor_id\": \"808\", \"product_id\": \"1572\", "
         "\"dev_type\": \"type-PCI\"}]",
         "/0/vendor_id"},
        {"[{\"address\": \"0000:81:00.0\", \"vendor_id\": \"8086\", \"product_id\": \"1572\", "
         "\"dev_type\": \"type-XX\"}]",
         "/0/dev_type"},
        {"[{\"address\": \"0000:81:00.0\", \"vendor_id\": \"8086\", \"product_id\": \"1572\", "
         "\"dev_type\": \"type-PCI\", \"numa\": 1}]",
         "/0/numa"},
        {"[{\"address\": \"0000:81:00.0\", \"vendor_id\": \"8086\", \"product_id\": \"1572\", "
         "\"dev_type\": \"type-PCI\"}, {\"address\": \"0000:81:00.0\", \"vendor_id\": \"8086\", "
         "\"product_id\": \"1572\", \"dev_type\": \"type-PCI\"}]",
         "/1/address"},
    };
    ck_assert_int_eq(numafit_pci_devices_new_from_json(host_devs, strlen(host_devs), 0, &d, &e), 0);
    ck_assert_int_eq(numafit_pci_devices_get_count(d), 6);
    ck_assert_int_eq(numafit_pci_devices_get(d, 2, &a, NULL, NULL, NULL, &known, &node, &pa), 0);
    ck_assert_str_eq(a, "0000:81:02.0");
    ck_assert_str_eq(pa, "0000:81:00.0");
    ck_assert_int_eq(known, 1);
    ck_assert_int_eq(node, 1);
    ck_assert_int_eq(numafit_pci_devices_get(d, 5, NULL, NULL, NULL, NULL, &known, &node, &pa), 0);
    ck_assert_int_eq(known, 0);
    ck_assert_ptr_null(pa);
    ck_assert_int_eq(numafit_pci_devices_get(d, 6, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                     -EINVAL);
    /* written and read back: the same text */
    ck_assert_int_eq(numafit_pci_devices_to_json(d, 0, &js, &e), 0);
    ck_assert_int_eq(numafit_pci_devices_new_from_json(js, strlen(js), 0, &d2, &e), 0);
    ck_assert_int_eq(numafit_pci_devices_to_json(d2, 0, &js2, &e), 0);
    ck_assert_str_eq(js, js2);
    ck_assert_ptr_nonnull(strstr(js, "\"card_serial_number\":\"MT2113X00000\""));
    numafit_free(js);
    numafit_free(js2);
    numafit_pci_devices_free(d2);
    numafit_pci_devices_free(d);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        d = NULL;
        ck_assert_int_lt(
            numafit_pci_devices_new_from_json(bad[i].json, strlen(bad[i].json), 0, &d, &e), 0);
        ck_assert_ptr_null(d);
        ck_assert_msg(!strcmp(e.where, bad[i].where), "%s: where %s, want %s", bad[i].json, e.where,
                      bad[i].where);
    }
}
END_TEST

START_TEST(test_device_spec) {
    /* nothing without a device_spec */
    expect_pools("", NUMAFIT_PCI_ZED, "");
    /* vendor and product: both T4s match, but nova skips the one whose
     * domain is above 0xffff (it cannot parse its address) */
    expect_pools("{\"vendor_id\": \"10de\", \"product_id\": \"1eb8\"}", NUMAFIT_PCI_ZED,
                 "10de:1eb8:0:1:type-PCI");
    /* Python's int(x, 16): 0x, white space, underscores; '*' is any */
    expect_pools("{\"vendor_id\": \" 0x10_de \", \"product_id\": \"*\"}", NUMAFIT_PCI_ZED,
                 "10de:1eb8:0:1:type-PCI");
    expect_pools("{\"vendor_id\": \"-1\", \"product_id\": \"*\"}", NUMAFIT_PCI_ZED, "");
    /* a glob address: bus 81, any slot and function: the PF, the port and
     * the VFs, in nova's pool order (fewest keys first) */
    expect_pools("{\"address\": \":81:\"}", NUMAFIT_PCI_ZED,
                 "8086:1572:1:1:type-PCI 8086:1572:1:1:type-PF 8086:154c:1:2:type-VF");
    /* the PF's address matches its VFs too (sysfs: it has VFs) */
    expect_pools("{\"address\": \"0000:81:00.0\"}", NUMAFIT_PCI_ZED,
                 "8086:1572:1:1:type-PF 8086:154c:1:2:type-VF");
    expect_pools("{\"address\": \"0000:81:00.1\"}", NUMAFIT_PCI_ZED, "8086:1572:1:1:type-PCI");
    /* a devname: the interface's device, a PF's VFs with it */
    expect_pools("{\"devname\": \"ens1f0\", \"product_id\": \"154c\"}", NUMAFIT_PCI_ZED,
                 "8086:154c:1:2:type-VF");
    expect_pools("{\"devname\": \"nope\"}", NUMAFIT_PCI_ZED, "");
    /* a regular expression per field, anchored at the start as re.match */
    expect_pools("{\"address\": {\"bus\": \"8\", \"slot\": \"0[02]\", \"function\": \"[01]\"}}",
                 NUMAFIT_PCI_ZED,
                 "8086:1572:1:1:type-PCI 8086:1572:1:1:type-PF 8086:154c:1:2:type-VF");
    expect_pools("{\"address\": {\"slot\": \"02$\", \"function\": \"1|x\"}}", NUMAFIT_PCI_ZED,
                 "8086:154c:1:1:type-VF");
    /* the first entry that matches gives the tags: two pools of VFs */
    expect_pools("{\"address\": \"*:81:02.1\", \"physical_network\": \"a\"}\n"
                 "{\"product_id\": \"154c\", \"physical_network\": \"b\"}",
                 NUMAFIT_PCI_ZED, "8086:154c:1:1:type-VF 8086:154c:1:1:type-VF");
    /* Python equality of tags: true == 1, "1" is another value */
    expect_pools("{\"address\": \"*:81:02.1\", \"trusted\": true}\n"
                 "{\"product_id\": \"154c\", \"trusted\": 1}",
                 NUMAFIT_PCI_ZED, "8086:154c:1:2:type-VF");
    expect_pools("{\"address\": \"*:81:02.1\", \"trusted\": \"1\"}\n"
                 "{\"product_id\": \"154c\", \"trusted\": 1}",
                 NUMAFIT_PCI_ZED, "8086:154c:1:1:type-VF 8086:154c:1:1:type-VF");
    /* Python's regular expressions where POSIX reads them otherwise: a lazy
     * repeat, a '-' after a range */
    expect_pools("{\"address\": {\"bus\": \"8+?\", \"slot\": \"0[0-1-2]\"}}", NUMAFIT_PCI_ZED,
                 "8086:1572:1:1:type-PCI 8086:1572:1:1:type-PF 8086:154c:1:2:type-VF");
    expect_pools("{\"address\": {\"domain\": \"1+?\"}}", NUMAFIT_PCI_ZED, "");
    /* a real tag is written as Python's repr, and 2.0 equals 2 */
    expect_pools("{\"address\": \"*:81:02.1\", \"x\": 2.0}\n{\"product_id\": \"154c\", \"x\": 2}",
                 NUMAFIT_PCI_ZED, "8086:154c:1:2:type-VF");
    /* nova finds a pool with dict.get: a null tag equals a missing one, so
     * VFs under {"a": null} join the pool of {"b": null} */
    expect_pools(
        "{\"address\": \"*:81:02.1\", \"b\": null}\n{\"product_id\": \"154c\", \"a\": null}",
        NUMAFIT_PCI_ZED, "8086:154c:1:2:type-VF");
    /* oslo.config's substitution: $$ is $, a reference is refused (before
     * any entry is read) */
    expect_pools("{\"product_id\": \"154c\", \"physical_network\": \"a$$b\"}", NUMAFIT_PCI_ZED,
                 "8086:154c:1:2:type-VF");
    expect_pools("{\"vendor_id\": \"zz\"}\n{\"physical_network\": \"${physnet9}\"}",
                 NUMAFIT_PCI_ZED, "NoSuchOptError");
    /* a list of entries in one value; pools in the devices' order, stable by
     * their number of keys (a PF's has remote_managed) */
    expect_pools("[{\"product_id\": \"1eb8\"}, {\"product_id\": \"1572\"}]", NUMAFIT_PCI_ZED,
                 "8086:1572:1:1:type-PCI 10de:1eb8:0:1:type-PCI 8086:1572:1:1:type-PF");
    /* remote_managed: only VFs with a card serial number */
    expect_pools("{\"product_id\": \"154c\", \"remote_managed\": \"yes\"}", NUMAFIT_PCI_ZED,
                 "8086:154c:1:1:type-VF");
    /* the latest profile keeps a pool per PF (its address) */
    expect_pools("{\"vendor_id\": \"8086\"}", 0,
                 "8086:1572:1:1:type-PCI 8086:1572:1:1:type-PF 8086:154c:1:2:type-VF");

    /* nova's refusals */
    expect_pools("{\"vendor_id\": \"8086x\"}", NUMAFIT_PCI_ZED, "PciConfigInvalidSpec");
    expect_pools("{\"vendor_id\": \"10000\"}", NUMAFIT_PCI_ZED, "PciConfigInvalidSpec");
    expect_pools("{\"vendor_id\": 8086}", NUMAFIT_PCI_ZED, "PciConfigInvalidSpec");
    expect_pools("{\"address\": \"0000:81:20.0\"}", NUMAFIT_PCI_ZED, "PciConfigInvalidSpec");
    expect_pools("{\"address\": \"1:2:3:4.0\"}", NUMAFIT_PCI_ZED, "PciDeviceWrongAddressFormat");
    expect_pools("{\"address\": \"1:2:3:4.z\"}", NUMAFIT_PCI_ZED, "PciConfigInvalidSpec");
    expect_pools("{\"address\": 5}", NUMAFIT_PCI_ZED, "PciDeviceWrongAddressFormat");
    expect_pools("{\"address\": {\"bus\": \"(8\"}}", NUMAFIT_PCI_ZED,
                 "PciDeviceWrongAddressFormat");
    expect_pools("{\"address\": {\"bus\": \"8*+\"}}", NUMAFIT_PCI_ZED, "PciConfigInvalidSpec");
    expect_pools("{\"address\": \"*:81:00.0\", \"devname\": \"ens1f0\"}", NUMAFIT_PCI_ZED,
                 "PciDeviceInvalidDeviceName");
    expect_pools("{\"devname\": \"nope\", \"remote_managed\": \"true\"}", NUMAFIT_PCI_ZED,
                 "PciDeviceRemoteManagedNotPresent");
    /* remote_managed on a PF's address: its VFs' product is fine, the PF's
     * own product is PciDeviceInvalidPFRemoteManaged, another one invalid */
    expect_pools("{\"devname\": \"ens1f0\", \"product_id\": \"154c\", \"remote_managed\": "
                 "\"true\"}",
                 NUMAFIT_PCI_ZED, "8086:154c:1:1:type-VF");
    expect_pools("{\"devname\": \"ens1f0\", \"remote_managed\": \"true\"}", NUMAFIT_PCI_ZED,
                 "PciDeviceInvalidPFRemoteManaged");
    expect_pools("{\"devname\": \"ens1f0\", \"product_id\": \"1234\", \"remote_managed\": "
                 "\"true\"}",
                 NUMAFIT_PCI_ZED, "PciConfigInvalidSpec");
    expect_pools("5", NUMAFIT_PCI_ZED, "PciConfigInvalidSpec");
    expect_pools("{bad", NUMAFIT_PCI_ZED, "PciConfigInvalidSpec");
    expect_pools("[5]", NUMAFIT_PCI_ZED, "PciConfigInvalidSpec");
    /* tags nova cannot keep in a pool */
    expect_pools("{\"product_id\": \"154c\", \"count\": \"1\"}", NUMAFIT_PCI_ZED,
                 "PciConfigInvalidSpec");
    expect_pools("{\"product_id\": \"154c\", \"x\": [1]}", NUMAFIT_PCI_ZED, "PciConfigInvalidSpec");
    /* latest: strict booleans, one_time_use needs PCI in placement */
    expect_pools("{\"product_id\": \"154c\", \"managed\": \"maybe\"}", 0, "PciConfigInvalidSpec");
    expect_pools("{\"product_id\": \"154c\", \"managed\": \"maybe\"}", NUMAFIT_PCI_ZED,
                 "8086:154c:1:2:type-VF");
    expect_pools("{\"product_id\": \"154c\", \"one_time_use\": \"yes\"}", 0,
                 "PciConfigInvalidSpec");
}
END_TEST

START_TEST(test_device_spec_conf) {
    numafit_pci_devices_t *d = NULL;
    numafit_pci_pools_t *p = NULL;
    numafit_error_t e;
    const char *v;
    /* the deprecated names come first, as oslo.config merges them: the
     * [DEFAULT] entry's tag wins for the VFs */
    const char *conf = "[pci]\ndevice_spec = {\"product_id\": \"154c\", \"physical_network\": "
                       "\"new\"}\npassthrough_whitelist = {\"product_id\": \"154c\", "
                       "\"physical_network\": \"mid\"}\n[DEFAULT]\npci_passthrough_whitelist = "
                       "{\"product_id\": \"154c\", \"physical_network\": \"old\"}\n";
    ck_assert_int_eq(numafit_pci_devices_new_from_json(host_devs, strlen(host_devs), 0, &d, &e), 0);
    ck_assert_int_eq(
        numafit_pci_pools_new_from_devices(d, conf, strlen(conf), NUMAFIT_PCI_ZED, &p, &e), 0);
    ck_assert_int_eq(numafit_pci_pools_get_count(p), 1);
    ck_assert_int_eq(numafit_pci_pools_get_tag(p, 0, "physical_network", &v), 1);
    ck_assert_str_eq(v, "old");
    ck_assert_int_eq(numafit_pci_pools_get_tag(p, 0, "parent_ifname", &v), 1);
    ck_assert_str_eq(v, "ens1f0");
    ck_assert_int_eq(numafit_pci_pools_get_tag(p, 0, "remote_managed", &v), 1);
    ck_assert_str_eq(v, "false");
    numafit_pci_pools_free(p);
    /* the error names the line */
    conf = "[pci]\n\ndevice_spec = {\"vendor_id\": \"zz\"}\n";
    ck_assert_int_eq(numafit_pci_pools_new_from_devices(d, conf, strlen(conf), 0, &p, &e), -EINVAL);
    ck_assert_str_eq(e.where, "nova.conf:3");
    ck_assert_str_eq(e.exception, "PciConfigInvalidSpec");
    ck_assert_int_eq(numafit_pci_pools_new_from_devices(d, NULL, 0, 4, &p, &e), -EINVAL);
    numafit_pci_devices_free(d);
}
END_TEST

/* Pool index's vendor:product:node:count:dev_type[:physical_network] ("?" for an unknown node). */
static void pool_str(const numafit_pci_pools_t *p, unsigned i, char *buf, size_t cap) {
    const char *ven, *prod, *type = NULL, *net = NULL;
    int known;
    int64_t node, count;
    ck_assert_int_eq(numafit_pci_pools_get(p, i, &ven, &prod, &known, &node, &count), 0);
    numafit_pci_pools_get_tag(p, i, "dev_type", &type);
    if (numafit_pci_pools_get_tag(p, i, "physical_network", &net) != 1)
        net = NULL;
    if (known)
        snprintf(buf, cap, "%s:%s:%lld:%lld:%s%s%s", ven, prod, (long long)node, (long long)count,
                 type ? type : "-", net ? ":" : "", net ? net : "");
    else
        snprintf(buf, cap, "%s:%s:?:%lld:%s%s%s", ven, prod, (long long)count, type ? type : "-",
                 net ? ":" : "", net ? net : "");
}

START_TEST(test_pools_from_spec) {
    numafit_host_t *h = NULL, *h2 = NULL;
    numafit_pci_pools_t *p = NULL;
    numafit_error_t e;
    char buf[128];
    const char *v;
    const char *spec = "2x4c2t 2cells pci:8086:154c:vf:physnet1=4@0 pci:10DE:1eb8=1 "
                       "pci:8086:154c:vf:physnet1=2@0,1 pci:15b3:101e:vdpa=2@none";

    ck_assert_int_eq(numafit_host_new_synthetic(spec, 0, &h, &e), 0);
    ck_assert_int_eq(numafit_pci_pools_new_from_spec(spec, h, 0, &p, &e), 0);
    /* nova's order: stable by number of keys (the GPUs have one tag, the
     * vdpa pool two, the VFs three); identical devices share a pool (4 + 2
     * VFs on cell 0) */
    ck_assert_int_eq(numafit_pci_pools_get_count(p), 5);
    pool_str(p, 0, buf, sizeof(buf));
    ck_assert_str_eq(buf, "10de:1eb8:0:1:type-PCI");
    pool_str(p, 1, buf, sizeof(buf));
    ck_assert_str_eq(buf, "10de:1eb8:1:1:type-PCI");
    pool_str(p, 2, buf, sizeof(buf));
    ck_assert_str_eq(buf, "15b3:101e:?:2:vdpa");
    pool_str(p, 3, buf, sizeof(buf));
    ck_assert_str_eq(buf, "8086:154c:0:6:type-VF:physnet1");
    pool_str(p, 4, buf, sizeof(buf));
    ck_assert_str_eq(buf, "8086:154c:1:2:type-VF:physnet1");
    ck_assert_int_eq(numafit_pci_pools_get_tag(p, 3, "remote_managed", &v), 1);
    ck_assert_str_eq(v, "false");
    ck_assert_int_eq(numafit_pci_pools_get_tag(p, 0, "remote_managed", &v), 0);
    numafit_pci_pools_free(p);
    p = NULL;
    /* no pci: token: no pools */
    ck_assert_int_eq(numafit_pci_pools_new_from_spec("2x4c", h, 0, &p, &e), 0);
    ck_assert_int_eq(numafit_pci_pools_get_count(p), 0);
    numafit_pci_pools_free(p);
    p = NULL;
    /* a cell the host lacks */
    ck_assert_int_eq(numafit_pci_pools_new_from_spec("pci:8086:154c=1@2", h, 0, &p, &e), -EINVAL);
    ck_assert_ptr_null(p);
    ck_assert_str_eq(e.where, "pci");
    ck_assert_ptr_nonnull(strstr(e.text, "the host has no cell 2"));
    /* the host's reader refuses what the pools' reader refuses */
    {
        static const char *const bad[] = {
            "2x4c pci:8086:154=1",         "2x4c pci:8086:154c",
            "2x4c pci:8086:154c=x",        "2x4c pci:8086:154c:nic=1",
            "2x4c pci:8086:154c=70000",    "2x4c pci:8086:154c=1@0,0",
            "2x4c pci:8086:154c:vf:a@b=1", "2x4c pci:8086:154c:vf:a:b=1",
            "cells:1 pci:8086::vf=1",      "2x4c pci:8086:154c=1@"};
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
            ck_assert_msg(numafit_host_new_synthetic(bad[i], 0, &h2, &e) == -EINVAL, "%s", bad[i]);
            ck_assert_ptr_null(h2);
            ck_assert_msg(numafit_pci_pools_new_from_spec(bad[i], h, 0, &p, &e) == -EINVAL, "%s",
                          bad[i]);
        }
    }
    ck_assert_int_eq(numafit_pci_pools_new_from_spec("pci:8086:154c=1", NULL, 0, &p, &e), -EINVAL);
    ck_assert_int_eq(numafit_pci_pools_new_from_spec("pci:8086:154c=1", h, 1, &p, &e), -EINVAL);
    numafit_host_free(h);
}
END_TEST

/* Pool i's count in the tracker's pools (-1: fewer pools). */
static int64_t tracker_count(const numafit_pci_tracker_t *t, unsigned i) {
    numafit_pci_pools_t *p = NULL;
    int64_t c = -1;
    ck_assert_int_eq(numafit_pci_tracker_get_pools(t, &p), 0);
    if ((int)i < numafit_pci_pools_get_count(p))
        ck_assert_int_eq(numafit_pci_pools_get(p, i, NULL, NULL, NULL, NULL, &c), 0);
    numafit_pci_pools_free(p);
    return c;
}

START_TEST(test_tracker) {
    static const char devs_json[] =
        "[{\"address\": \"0000:81:00.0\", \"vendor_id\": \"8086\", \"product_id\": \"1572\","
        " \"dev_type\": \"type-PF\", \"numa_node\": 1},"
        " {\"address\": \"0000:81:02.0\", \"vendor_id\": \"8086\", \"product_id\": \"154c\","
        " \"dev_type\": \"type-VF\", \"numa_node\": 1, \"parent_addr\": \"0000:81:00.0\"},"
        " {\"address\": \"0000:81:02.1\", \"vendor_id\": \"8086\", \"product_id\": \"154c\","
        " \"dev_type\": \"type-VF\", \"numa_node\": 1, \"parent_addr\": \"0000:81:00.0\"}]";
    static const char conf[] = "[pci]\ndevice_spec = {\"vendor_id\": \"8086\"}\n"
                               "alias = {\"name\": \"vf\", \"product_id\": \"154c\", "
                               "\"vendor_id\": \"8086\", \"device_type\": \"type-VF\"}\n"
                               "alias = {\"name\": \"pf\", \"product_id\": \"1572\", "
                               "\"vendor_id\": \"8086\", \"device_type\": \"type-PF\"}\n";
    numafit_pci_devices_t *d = NULL;
    numafit_pci_tracker_t *t = NULL;
    numafit_pci_requests_t *vf = NULL, *pf = NULL, *both = NULL;
    numafit_host_t *h = NULL;
    numafit_error_t e;
    char *c1 = NULL, *c2 = NULL;
    int64_t one = 1;
    const char *fl_vf = "{\"extra_specs\": {\"pci_passthrough:alias\": \"vf:1\"}}";
    const char *fl_pf = "{\"extra_specs\": {\"pci_passthrough:alias\": \"pf:1\"}}";
    const char *fl_both = "{\"extra_specs\": {\"pci_passthrough:alias\": \"vf:1,pf:1\"}}";

    ck_assert_int_eq(numafit_pci_devices_new_from_json(devs_json, strlen(devs_json), 0, &d, &e), 0);
    ck_assert_int_eq(numafit_pci_tracker_new(d, conf, strlen(conf), NUMAFIT_PCI_ZED, &t, &e), 0);
    ck_assert_int_eq(numafit_host_new_synthetic("2x4c 2cells mem:16G", 0, &h, &e), 0);
    ck_assert_int_eq(numafit_pci_requests_from_flavor(fl_vf, strlen(fl_vf), NULL, 0, conf,
                                                      strlen(conf), NUMAFIT_PCI_ZED, &vf, &e),
                     0);
    ck_assert_int_eq(numafit_pci_requests_from_flavor(fl_pf, strlen(fl_pf), NULL, 0, conf,
                                                      strlen(conf), NUMAFIT_PCI_ZED, &pf, &e),
                     0);
    ck_assert_int_eq(numafit_pci_requests_from_flavor(fl_both, strlen(fl_both), NULL, 0, conf,
                                                      strlen(conf), NUMAFIT_PCI_ZED, &both, &e),
                     0);
    /* pools: the PF (1), the VFs (2) */
    ck_assert_int_eq(tracker_count(t, 0), 1);
    ck_assert_int_eq(tracker_count(t, 1), 2);
    /* a VF and the PF at once: the VF takes the PF out, the claim fails and
     * changes nothing */
    ck_assert_int_eq(numafit_pci_tracker_claim(t, h, both, &one, 1, &c1, &e), -ENOSPC);
    ck_assert_ptr_null(c1);
    ck_assert_str_eq(e.where, "pci_requests/1");
    ck_assert_int_eq(tracker_count(t, 0), 1);
    ck_assert_int_eq(tracker_count(t, 1), 2);
    /* a VF: the last VF added (02.1), the PF unavailable (its pool gone) */
    ck_assert_int_eq(numafit_pci_tracker_claim(t, h, vf, &one, 1, &c1, &e), 0);
    ck_assert_ptr_nonnull(strstr(c1, "\"address\":\"0000:81:02.1\""));
    ck_assert_ptr_nonnull(strstr(c1, "\"unavailable\":[\"0000:81:00.0\"]"));
    ck_assert_int_eq(tracker_count(t, 0), 1);
    ck_assert_int_eq(tracker_count(t, 1), -1);
    ck_assert_int_eq(numafit_pci_tracker_claim(t, h, pf, &one, 1, &c2, &e), -ENOSPC);
    /* on cell 0 (required by nothing: legacy) the VF of node 1 is not taken */
    {
        int64_t zero = 0;
        ck_assert_int_eq(numafit_pci_tracker_claim(t, h, vf, &zero, 1, &c2, &e), -ENOSPC);
    }
    {
        /* a later run: a tracker made again from the same devices takes the
         * kept claim again and reports the same pools; a device taken
         * twice, one it does not have, or the PF of the claimed VF are
         * refused and change nothing */
        numafit_pci_tracker_t *t2 = NULL;
        numafit_pci_pools_t *p1 = NULL, *p2 = NULL;
        const char *pf_claim = "{\"devices\": [{\"address\": \"0000:81:00.0\"}]}";
        const char *unknown = "{\"devices\": [{\"address\": \"0000:82:00.0\"}]}";
        const char *twice = "{\"devices\": [{\"address\": \"0000:81:02.0\"},"
                            " {\"address\": \"0000:81:02.0\"}]}";
        ck_assert_int_eq(numafit_pci_tracker_new(d, conf, strlen(conf), NUMAFIT_PCI_ZED, &t2, &e),
                         0);
        ck_assert_int_eq(numafit_pci_tracker_restore(t2, unknown, strlen(unknown), &e), -EINVAL);
        ck_assert_str_eq(e.where, "devices/0");
        ck_assert_int_eq(numafit_pci_tracker_restore(t2, twice, strlen(twice), &e), -EINVAL);
        ck_assert_str_eq(e.where, "devices/1");
        ck_assert_int_eq(tracker_count(t2, 1), 2);
        ck_assert_int_eq(numafit_pci_tracker_restore(t2, c1, strlen(c1), &e), 0);
        ck_assert_int_eq(numafit_pci_tracker_get_pools(t, &p1), 0);
        ck_assert_int_eq(numafit_pci_tracker_get_pools(t2, &p2), 0);
        ck_assert_int_eq(numafit_pci_pools_equal(p1, p2), 1);
        ck_assert_int_eq(numafit_pci_tracker_restore(t2, c1, strlen(c1), &e), -EBUSY);
        ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_PCI);
        ck_assert_int_eq(numafit_pci_tracker_restore(t2, pf_claim, strlen(pf_claim), &e), -EBUSY);
        ck_assert_ptr_nonnull(strstr(e.text, "0000:81:00.0"));
        ck_assert_int_eq(tracker_count(t2, 0), 1);
        /* and gives it back as the first run would */
        ck_assert_int_eq(numafit_pci_tracker_release(t2, c1, strlen(c1), &e), 0);
        ck_assert_int_eq(tracker_count(t2, 0), 2);
        ck_assert_int_eq(tracker_count(t2, 1), 1);
        numafit_pci_pools_free(p1);
        numafit_pci_pools_free(p2);
        numafit_pci_tracker_free(t2);
    }
    /* a release that names a device not claimed changes nothing */
    {
        const char *bad = "{\"devices\": [{\"address\": \"0000:81:02.0\"}]}";
        ck_assert_int_eq(numafit_pci_tracker_release(t, bad, strlen(bad), &e), -EINVAL);
        ck_assert_str_eq(e.where, "devices/0");
        ck_assert_int_eq(numafit_pci_tracker_release(t, "{", 1, &e), -EBADMSG);
    }
    /* giving the VF back brings the PF back too, its pool appended (nova's
     * add_device: a new pool goes last among those of as many keys) */
    ck_assert_int_eq(numafit_pci_tracker_release(t, c1, strlen(c1), &e), 0);
    ck_assert_int_eq(tracker_count(t, 0), 2);
    ck_assert_int_eq(tracker_count(t, 1), 1);
    /* released twice: refused */
    ck_assert_int_eq(numafit_pci_tracker_release(t, c1, strlen(c1), &e), -EINVAL);
    numafit_free(c1);
    c1 = NULL;
    /* the PF takes both VFs out (their pool leaves the list; the PF's stays
     * with 0, as consume_requests leaves it); given back, they return */
    ck_assert_int_eq(numafit_pci_tracker_claim(t, h, pf, &one, 1, &c1, &e), 0);
    ck_assert_int_eq(tracker_count(t, 0), 0);
    ck_assert_int_eq(tracker_count(t, 1), -1);
    ck_assert_int_eq(numafit_pci_tracker_release(t, c1, strlen(c1), &e), 0);
    ck_assert_int_eq(tracker_count(t, 0), 1);
    ck_assert_int_eq(tracker_count(t, 1), 2);
    numafit_free(c1);
    c1 = NULL;
    {
        /* fit and claim in one step: the CPUs here, the devices there; a
         * VF with its own PF is refused by the claim and the host keeps
         * nothing */
        const char *fl = "{\"vcpus\": 2, \"memory_mb\": 1024, \"extra_specs\": "
                         "{\"hw:cpu_policy\": \"dedicated\"}}";
        numafit_request_t *req = NULL;
        numafit_placement_t *p = NULL;
        char *before = NULL, *after = NULL;
        ck_assert_int_eq(numafit_request_new(fl, strlen(fl), NULL, 0, 0, &req, &e), 1);
        ck_assert_int_eq(numafit_host_to_json(h, 0, &before, &e), 0);
        ck_assert_int_eq(numafit_pci_tracker_fit_and_claim(t, h, req, both, NULL, &p, &c1, &e), 0);
        ck_assert_int_eq(e.code, NUMAFIT_E_NOFIT_PCI);
        ck_assert_ptr_null(p);
        ck_assert_ptr_null(c1);
        ck_assert_int_eq(numafit_host_to_json(h, 0, &after, &e), 0);
        ck_assert_str_eq(before, after);
        numafit_free(after);
        ck_assert_int_eq(tracker_count(t, 0), 1);
        ck_assert_int_eq(numafit_pci_tracker_fit_and_claim(t, h, req, vf, NULL, &p, &c1, &e), 1);
        ck_assert_int_eq(numafit_placement_get_host_cell(p, 0), 1); /* the VFs' cell */
        ck_assert_ptr_nonnull(strstr(c1, "0000:81:02.1"));
        ck_assert_int_eq(numafit_host_release(h, p, 0, &e), 0);
        ck_assert_int_eq(numafit_pci_tracker_release(t, c1, strlen(c1), &e), 0);
        ck_assert_int_eq(numafit_host_to_json(h, 0, &after, &e), 0);
        ck_assert_str_eq(before, after);
        numafit_free(after);
        numafit_free(before);
        numafit_free(c1);
        numafit_placement_free(p);
        numafit_request_free(req);
    }
    ck_assert_int_eq(numafit_pci_tracker_new(d, conf, strlen(conf), 8, &t, &e), -EINVAL);
    numafit_pci_requests_free(vf);
    numafit_pci_requests_free(pf);
    numafit_pci_requests_free(both);
    numafit_host_free(h);
    numafit_pci_tracker_free(t);
    numafit_pci_devices_free(d);
}
END_TEST

/* support of reqs on pools (flat JSON) with the profile's flags, no cells */
static int support_on(const char *pools_json, const char *req_json, unsigned flags) {
    numafit_pci_pools_t *p = NULL;
    numafit_pci_requests_t *r = reqs(req_json);
    numafit_error_t e;
    int rc;
    ck_assert_int_eq(numafit_pci_pools_new_from_json(pools_json, strlen(pools_json), 0, &p, &e), 0);
    rc = numafit_pci_support_flags(p, NULL, r, NULL, 0, flags, &e);
    ck_assert_int_ge(rc, 0);
    numafit_pci_pools_free(p);
    numafit_pci_requests_free(r);
    return rc;
}

/* upstream nova's rules (the default) against Zed's: the keys placement
 * matches, live_migratable, a placement allocation (rp_uuids) */
START_TEST(test_latest_rules) {
    const char *vf = "[{\"vendor_id\": \"8086\", \"product_id\": \"154c\", \"numa_node\": 0,"
                     " \"count\": 2, \"dev_type\": \"type-VF\"}]";
    const char *lm = "[{\"vendor_id\": \"8086\", \"product_id\": \"154c\", \"numa_node\": 0,"
                     " \"count\": 2, \"live_migratable\": \"True\"}]";
    const char *rp = "[{\"vendor_id\": \"8086\", \"product_id\": \"154c\", \"numa_node\": 0,"
                     " \"count\": 2, \"rp_uuid\": \"A\"},"
                     " {\"vendor_id\": \"8086\", \"product_id\": \"154c\", \"numa_node\": 1,"
                     " \"count\": 1, \"rp_uuid\": \"B\"}]";
    const char *split = "[{\"vendor_id\": \"8086\", \"product_id\": \"154c\", \"numa_node\": 0,"
                        " \"count\": 2, \"rp_uuid\": \"A\"},"
                        " {\"vendor_id\": \"8086\", \"product_id\": \"154c\", \"numa_node\": 1,"
                        " \"count\": 1, \"rp_uuid\": \"A\"}]";
    numafit_pci_pools_t *p = NULL;
    numafit_pci_requests_t *r;
    numafit_error_t e;
    int64_t c;

    /* resource_class and traits are placement's: left out of the match */
    ck_assert_int_eq(
        support_on(vf,
                   "[{\"count\": 1, \"alias_name\": \"a\", \"spec\": [{\"vendor_id\": "
                   "\"8086\", \"resource_class\": \"CUSTOM_VF\", \"traits\": \"X\"}]}]",
                   0),
        1);
    ck_assert_int_eq(support_on(vf,
                                "[{\"count\": 1, \"alias_name\": \"a\", \"spec\": [{\"vendor_id\": "
                                "\"8086\", \"resource_class\": \"CUSTOM_VF\"}]}]",
                                NUMAFIT_PCI_ZED),
                     0);
    /* live_migratable "true": the tag matches without case, the filter
     * wants exactly "true" */
    ck_assert_int_eq(
        support_on(lm, "[{\"count\": 1, \"spec\": [{\"live_migratable\": \"true\"}]}]", 0), 0);
    ck_assert_int_eq(support_on(lm, "[{\"count\": 1, \"spec\": [{\"live_migratable\": \"true\"}]}]",
                                NUMAFIT_PCI_ZED),
                     1);
    /* a placement allocation: only its providers, as much as it took there */
    ck_assert_int_eq(support_on(rp,
                                "[{\"count\": 3, \"alias_name\": \"a\", \"spec\": [{\"vendor_id\": "
                                "\"8086\", \"rp_uuids\": \"A,B,A\"}]}]",
                                0),
                     1);
    ck_assert_int_eq(support_on(rp,
                                "[{\"count\": 3, \"alias_name\": \"a\", \"spec\": [{\"vendor_id\": "
                                "\"8086\", \"rp_uuids\": \"B,B,A\"}]}]",
                                0),
                     0); /* B has one device */
    ck_assert_int_eq(support_on(rp,
                                "[{\"count\": 1, \"alias_name\": \"a\", \"spec\": [{\"vendor_id\": "
                                "\"8086\", \"rp_uuids\": \"C\"}]}]",
                                0),
                     0);
    /* a port's request (no alias) has no allocation: any pool */
    ck_assert_int_eq(
        support_on(rp,
                   "[{\"count\": 1, \"requester_id\": \"p\", \"spec\": [{\"vendor_id\": "
                   "\"8086\", \"rp_uuids\": \"C\"}]}]",
                   0),
        1);
    /* two pools of one provider: nova cannot follow the allocation */
    ck_assert_int_eq(support_on(split,
                                "[{\"count\": 1, \"alias_name\": \"a\", \"spec\": [{\"vendor_id\": "
                                "\"8086\", \"rp_uuids\": \"A\"}]}]",
                                0),
                     0);
    /* apply follows the allocation: A gives 1 (of 2), B its only one */
    ck_assert_int_eq(numafit_pci_pools_new_from_json(rp, strlen(rp), 0, &p, &e), 0);
    r = reqs("[{\"count\": 2, \"alias_name\": \"a\", \"spec\": [{\"vendor_id\": \"8086\", "
             "\"rp_uuids\": \"B,A\"}]}]");
    ck_assert_int_eq(numafit_pci_apply_flags(p, NULL, r, NULL, 0, 0, &e), 0);
    ck_assert_int_eq(numafit_pci_pools_get_count(p), 1);
    ck_assert_int_eq(numafit_pci_pools_get(p, 0, NULL, NULL, NULL, NULL, &c), 0);
    ck_assert_int_eq(c, 1);
    ck_assert_int_eq(numafit_pci_apply_flags(p, NULL, r, NULL, 0, 4, &e), -EINVAL);
    numafit_pci_requests_free(r);
    numafit_pci_pools_free(p);

    /* the scheduler's provider mapping: groups REQUEST_ID-N, the first
     * provider of each; the alias request gets rp_uuids "A,B" (its own
     * "C" replaced), the port's request none */
    {
        const char *map = "{\"r1-0\": [\"A\"], \"r1-1\": [\"B\", \"X\"], \"other-0\": [\"C\"]}";
        char *txt = NULL;
        p = NULL;
        ck_assert_int_eq(numafit_pci_pools_new_from_json(rp, strlen(rp), 0, &p, &e), 0);
        r = reqs("[{\"count\": 2, \"alias_name\": \"a\", \"request_id\": \"r1\", \"spec\": "
                 "[{\"vendor_id\": \"8086\", \"rp_uuids\": \"C\"}]},"
                 " {\"count\": 1, \"requester_id\": \"port\", \"request_id\": \"r1\", \"spec\": "
                 "[{\"vendor_id\": \"8086\"}]}]");
        ck_assert_int_eq(numafit_pci_support_flags(p, NULL, r, NULL, 0, 0, &e), 0);
        ck_assert_int_eq(numafit_pci_requests_set_provider_mapping(r, "{}", 2, &e), 0);
        ck_assert_int_eq(numafit_pci_requests_set_provider_mapping(r, map, strlen(map), &e), 0);
        ck_assert_int_eq(numafit_pci_requests_to_json(r, 0, &txt, &e), 0);
        ck_assert_ptr_nonnull(strstr(txt, "\"rp_uuids\":\"A,B\""));
        ck_assert_ptr_null(strstr(txt, "\"C\""));
        numafit_free(txt);
        ck_assert_int_eq(numafit_pci_support_flags(p, NULL, r, NULL, 0, 0, &e), 1);
        ck_assert_int_eq(numafit_pci_requests_set_provider_mapping(r, "{\"r1-0\": []}", 12, &e),
                         -EINVAL);
        ck_assert_int_eq(numafit_pci_requests_set_provider_mapping(r, "[1]", 3, &e), -EINVAL);
        numafit_pci_requests_free(r);
        numafit_pci_pools_free(p);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("pci");
    TCase *tc = tcase_create("api");
    tcase_add_test(tc, test_order_and_json);
    tcase_add_test(tc, test_bad_input);
    tcase_add_test(tc, test_policies);
    tcase_add_test(tc, test_exclusions);
    tcase_add_test(tc, test_value_keys);
    tcase_add_test(tc, test_apply);
    tcase_add_test(tc, test_from_flavor);
    tcase_add_test(tc, test_ports);
    tcase_add_test(tc, test_refusal_text);
    tcase_add_test(tc, test_devices_json);
    tcase_add_test(tc, test_device_spec);
    tcase_add_test(tc, test_device_spec_conf);
    tcase_add_test(tc, test_pools_from_spec);
    tcase_add_test(tc, test_tracker);
    tcase_add_test(tc, test_latest_rules);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
