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

int main(void) {
    Suite *s = suite_create("pci");
    TCase *tc = tcase_create("api");
    tcase_add_test(tc, test_order_and_json);
    tcase_add_test(tc, test_bad_input);
    tcase_add_test(tc, test_policies);
    tcase_add_test(tc, test_exclusions);
    tcase_add_test(tc, test_apply);
    tcase_add_test(tc, test_from_flavor);
    tcase_add_test(tc, test_ports);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
