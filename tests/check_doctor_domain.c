/* Host doctor, running domains (numafit_doctor_domains): the fixtures of
 * tests/data/doctor-domains on their captured hosts with the exact findings
 * each gives; domains written here (mixed, floating, emulator threads on
 * their own CPU or astray, thread policies from nova's extra specs); every
 * element the reader takes refused, with its name, when libvirt would
 * refuse it; argument checks. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <numafit.h>
#include <numafit/doctor.h>

#include "testdata.h"

#ifdef HAVE_LIBVIRT

/* The doctor of host tree `host` (its own nova.conf) with one domain;
 * returns the report (the test fails on an error) and the return value. */
static json_t *run1(const char *host, const char *xml, int *ret) {
    char root[4096], rel[256], *conf, *out = NULL;
    size_t clen, xlen = strlen(xml);
    numafit_error_t e;
    json_error_t je;
    json_t *j;
    test_data_path(root, sizeof(root), "doctor/");
    strncat(root, host, sizeof(root) - strlen(root) - 1);
    snprintf(rel, sizeof(rel), "doctor/%s/etc/nova/nova.conf", host);
    conf = test_slurp(rel, &clen);
    *ret = numafit_doctor_domains(root, conf, clen, &xml, &xlen, 1, 0, &out, &e);
    free(conf);
    ck_assert_msg(*ret >= 0, "%s: %d %s [%s]", host, *ret, e.text, e.where);
    j = json_loads(out, 0, &je);
    ck_assert_msg(j != NULL, "%s", je.text);
    numafit_free(out);
    return j;
}

/* "severity:id ..." of the domain findings */
static void domain_ids(const json_t *j, char *out, size_t cap) {
    size_t i, off = 0;
    json_t *f;
    int nerr = 0;
    out[0] = '\0';
    json_array_foreach(json_object_get(j, "findings"), i, f) {
        const char *sev = json_string_value(json_object_get(f, "severity"));
        if (!json_object_get(f, "domain"))
            continue;
        ck_assert(json_is_string(json_object_get(f, "detail")));
        ck_assert(!strncmp(json_string_value(json_object_get(f, "detail")), "Domain ", 7));
        off += (size_t)snprintf(out + off, cap - off, "%s%s:%s", off ? " " : "", sev,
                                json_string_value(json_object_get(f, "id")));
        nerr += !strcmp(sev, "error");
    }
    (void)nerr;
}

static int count_errors(const json_t *j) {
    size_t i;
    json_t *f;
    int n = 0;
    json_array_foreach(json_object_get(j, "findings"), i, f) n +=
        !strcmp(json_string_value(json_object_get(f, "severity")), "error");
    return n;
}

static char *fixture(const char *name) {
    char rel[256];
    size_t len;
    snprintf(rel, sizeof(rel), "doctor-domains/%s", name);
    return test_slurp(rel, &len);
}

/* text with the one occurrence of old replaced by new (free it) */
static char *edit(const char *text, const char *old, const char *new) {
    const char *p = strstr(text, old);
    char *out;
    ck_assert_msg(p != NULL, "'%s' not in the fixture", old);
    ck_assert_msg(strstr(p + 1, old) == NULL, "'%s' twice in the fixture", old);
    out = malloc(strlen(text) - strlen(old) + strlen(new) + 1);
    ck_assert_ptr_nonnull(out);
    memcpy(out, text, (size_t)(p - text));
    strcpy(out + (p - text), new);
    strcat(out, p + strlen(old));
    return out;
}

/* ------------------------------------------------------------ fixtures */

static const struct {
    const char *host, *file, *ids;
} fixtures[] = {
    {"rt-good", "rt-good-rt.xml", "info:domain-hugepages-not-in-use"},
    {"rt-good", "rt-good-dedicated.xml",
     "info:domain-hugepages-not-in-use info:domain-hugepages-not-in-use"},
    {"rt-good", "rt-good-shared.xml", ""},
    {"rt-good", "pinned-to-shared.xml",
     "error:domain-pinned-not-dedicated info:domain-hugepages-not-in-use "
     "info:domain-hugepages-not-in-use info:domain-nova-placement-differs"},
    {"rt-good", "cell-split.xml",
     "error:domain-cell-split info:domain-hugepages-not-in-use info:domain-hugepages-not-in-use "
     "info:domain-nova-placement-differs"},
    {"rt-good", "floating-everywhere.xml",
     "error:domain-floating-not-shared error:domain-cell-memory-remote"},
    {"rt-good", "rt-off-isolcpus.xml",
     "error:domain-pinned-not-dedicated info:domain-hugepages-not-in-use "
     "error:domain-rt-not-isolated error:domain-rt-emulator-on-rt "
     "info:domain-nova-placement-differs"},
    {"e5-2620-legacy", "legacy-2m.xml",
     "info:domain-hugepages-not-in-use info:domain-vcpus-on-siblings"},
    {"e5-2620-legacy", "legacy-1g-missing.xml",
     "error:domain-hugepages-missing info:domain-vcpus-on-siblings error:domain-nova-no-fit"},
    /* the same guest on a host it was not written for: rt-mistakes has
     * hyper-threading on, no isolation and overlapping CPU sets (nova does
     * not start: nothing to fit) */
    {"rt-mistakes", "rt-good-rt.xml",
     "warning:domain-emulator-misplaced info:domain-hugepages-not-in-use "
     "error:domain-rt-not-isolated warning:domain-rt-sibling-busy"},
};

START_TEST(test_fixture) {
    char *xml = fixture(fixtures[_i].file), ids[2048];
    int r, host_errors;
    json_t *j = run1(fixtures[_i].host, xml, &r), *alone;
    char root[4096], *out = NULL;
    domain_ids(j, ids, sizeof(ids));
    ck_assert_msg(!strcmp(ids, fixtures[_i].ids), "%s on %s:\n got  %s\n want %s",
                  fixtures[_i].file, fixtures[_i].host, ids, fixtures[_i].ids);
    ck_assert_int_eq(r, count_errors(j));
    ck_assert_int_eq(json_array_size(json_object_get(j, "domains")), 1);
    /* the host's own findings are those of numafit_doctor() */
    test_data_path(root, sizeof(root), "doctor/");
    strncat(root, fixtures[_i].host, sizeof(root) - strlen(root) - 1);
    {
        char rel[256], *conf;
        size_t clen;
        snprintf(rel, sizeof(rel), "doctor/%s/etc/nova/nova.conf", fixtures[_i].host);
        conf = test_slurp(rel, &clen);
        host_errors = numafit_doctor(root, conf, clen, 0, &out, NULL);
        free(conf);
    }
    ck_assert_int_ge(host_errors, 0);
    alone = json_loads(out, 0, NULL);
    ck_assert_ptr_nonnull(alone);
    ck_assert(json_object_get(alone, "domains") == NULL);
    for (size_t i = 0; i < json_array_size(json_object_get(alone, "findings")); i++)
        ck_assert(json_equal(json_array_get(json_object_get(alone, "findings"), i),
                             json_array_get(json_object_get(j, "findings"), i)));
    numafit_free(out);
    json_decref(alone);
    json_decref(j);
    free(xml);
}
END_TEST

/* What nova would give the good fixtures, in detail. */
START_TEST(test_nova_shape) {
    char *xml = fixture("rt-good-dedicated.xml");
    int r;
    json_t *j = run1("rt-good", xml, &r), *d = json_array_get(json_object_get(j, "domains"), 0);
    json_t *nova = json_object_get(d, "nova"), *pl = json_object_get(nova, "placement");
    ck_assert_int_eq(r, 0);
    ck_assert_str_eq(json_string_value(json_object_get(d, "cpu_policy")), "dedicated");
    ck_assert(json_is_true(json_object_get(nova, "accepted")));
    ck_assert(json_is_true(json_object_get(nova, "fits")));
    ck_assert(json_is_true(json_object_get(nova, "same_nodes")));
    ck_assert(json_is_true(json_object_get(nova, "same_pins")));
    ck_assert_int_eq(json_array_size(pl), 2);
    ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(pl, 0), "id")), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(pl, 1), "id")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(pl, 0), "pagesize")),
                     1048576);
    ck_assert_str_eq(
        json_string_value(json_object_get(
            json_object_get(json_object_get(nova, "flavor"), "extra_specs"), "hw:numa_cpus.1")),
        "2-3");
    json_decref(j);
    free(xml);
}
END_TEST

/* Domains edited here: the shapes the fixtures do not cover. */
static const struct {
    const char *name, *host, *file, *old, *new, *ids, *policy, *emulator;
} edits[] = {
    /* emulator threads on a dedicated CPU of their own: isolate */
    {"isolate", "rt-good", "rt-good-dedicated.xml", "<emulatorpin cpuset='4-5,8-9'/>",
     "<emulatorpin cpuset='6'/>",
     "info:domain-hugepages-not-in-use info:domain-hugepages-not-in-use", "dedicated", "isolate"},
    /* on one shared CPU: no nova policy */
    {"emulator astray", "rt-good", "rt-good-dedicated.xml", "<emulatorpin cpuset='4-5,8-9'/>",
     "<emulatorpin cpuset='13'/>",
     "warning:domain-emulator-misplaced info:domain-hugepages-not-in-use "
     "info:domain-hugepages-not-in-use",
     "dedicated", "other"},
    /* no emulatorpin at all */
    {"emulator unpinned", "rt-good", "rt-good-dedicated.xml", "<emulatorpin cpuset='4-5,8-9'/>", "",
     "warning:domain-emulator-unpinned info:domain-hugepages-not-in-use "
     "info:domain-hugepages-not-in-use",
     "dedicated", "floating"},
    /* one vCPU pinned, the other floating on the node's shared CPUs: mixed */
    {"mixed", "rt-good", "rt-good-shared.xml",
     "<vcpupin vcpu='0' cpuset='12-15'/>\n    <vcpupin vcpu='1' cpuset='12-15'/>\n"
     "    <emulatorpin cpuset='12-15'/>",
     "<vcpupin vcpu='0' cpuset='8'/>\n    <vcpupin vcpu='1' cpuset='12-15'/>\n"
     "    <emulatorpin cpuset='8,12-15'/>",
     "", "mixed", "with-vcpus"},
    /* the flavor's extra specs (newer nova's metadata) say isolate */
    {"isolate policy", "e5-2620-legacy", "legacy-2m.xml", "        <nova:vcpus>4</nova:vcpus>\n",
     "        <nova:vcpus>4</nova:vcpus>\n        <nova:extraSpecs>\n          <nova:extraSpec "
     "name='hw:cpu_thread_policy'>isolate</nova:extraSpec>\n        </nova:extraSpecs>\n",
     "info:domain-hugepages-not-in-use error:domain-thread-policy "
     "info:domain-nova-placement-differs",
     "dedicated", "with-vcpus"},
    /* ... or require, which the pinning honours */
    {"require policy", "e5-2620-legacy", "legacy-2m.xml", "        <nova:vcpus>4</nova:vcpus>\n",
     "        <nova:vcpus>4</nova:vcpus>\n        <nova:extraSpecs>\n          <nova:extraSpec "
     "name='hw:cpu_thread_policy'>require</nova:extraSpec>\n        </nova:extraSpecs>\n",
     "info:domain-hugepages-not-in-use", "dedicated", "with-vcpus"},
    /* resized by hand: the flavor in nova's metadata no longer matches */
    {"edited", "rt-good", "rt-good-shared.xml", "<nova:vcpus>2</nova:vcpus>",
     "<nova:vcpus>3</nova:vcpus>", "warning:domain-flavor-differs", "shared", "with-vcpus"},
    /* real-time vCPUs without locked memory */
    {"rt unlocked", "rt-good", "rt-good-rt.xml", "    <nosharepages/>\n    <locked/>\n", "",
     "info:domain-hugepages-not-in-use warning:domain-rt-memory", "dedicated", "share"},
    /* a cell bound to two nodes, loosely */
    {"memnode", "rt-good", "rt-good-rt.xml", "<memnode cellid='0' mode='strict' nodeset='1'/>",
     "<memnode cellid='0' mode='preferred' nodeset='0-1'/>",
     "warning:domain-cell-memory-spread warning:domain-cell-memory-mode "
     "info:domain-hugepages-not-in-use info:domain-nova-placement-differs",
     "dedicated", "share"},
    /* a vCPU pinned to a CPU the host does not have */
    {"unknown cpu", "rt-good", "rt-good-dedicated.xml", "<vcpupin vcpu='3' cpuset='9'/>",
     "<vcpupin vcpu='3' cpuset='40'/>",
     "error:domain-cpu-unknown error:domain-pinned-not-dedicated "
     "warning:domain-emulator-misplaced info:domain-hugepages-not-in-use "
     "info:domain-hugepages-not-in-use "
     "info:domain-nova-placement-differs",
     "dedicated", "other"},
};

START_TEST(test_edit) {
    char *base = fixture(edits[_i].file), *xml = edit(base, edits[_i].old, edits[_i].new);
    char ids[2048];
    int r;
    json_t *j = run1(edits[_i].host, xml, &r),
           *d = json_array_get(json_object_get(j, "domains"), 0);
    domain_ids(j, ids, sizeof(ids));
    ck_assert_msg(!strcmp(ids, edits[_i].ids), "%s:\n got  %s\n want %s", edits[_i].name, ids,
                  edits[_i].ids);
    ck_assert_int_eq(r, count_errors(j));
    ck_assert_str_eq(json_string_value(json_object_get(d, "cpu_policy")), edits[_i].policy);
    ck_assert_msg(
        !strcmp(json_string_value(json_object_get(d, "emulator_threads")), edits[_i].emulator),
        "%s: emulator threads %s", edits[_i].name,
        json_string_value(json_object_get(d, "emulator_threads")));
    json_decref(j);
    free(xml);
    free(base);
}
END_TEST

/* A guest nova did not write: no NUMA, no pins. */
START_TEST(test_plain_guest) {
    const char *xml = "<domain type='kvm'><name>plain</name><memory>1048576</memory>"
                      "<vcpu>2</vcpu></domain>";
    char ids[512];
    int r;
    json_t *j = run1("rt-good", xml, &r), *d = json_array_get(json_object_get(j, "domains"), 0);
    domain_ids(j, ids, sizeof(ids));
    ck_assert_str_eq(ids, "error:domain-floating-not-shared");
    ck_assert_int_eq(r, 1);
    ck_assert_str_eq(json_string_value(json_object_get(d, "floating_cpus")), "any");
    ck_assert(json_is_false(json_object_get(json_object_get(d, "nova"), "numa")));
    ck_assert(json_is_null(json_object_get(d, "nova_instance")));
    json_decref(j);
}
END_TEST

/* ------------------------------------------------------------ refused input */

#define HEAD "<domain type='kvm'><name>x</name><memory unit='MiB'>1024</memory>"

static const struct {
    const char *name, *xml;
    int rc;
    const char *text; /* in reterr->text */
} bad[] = {
    {"empty", "", -EBADMSG, "not well-formed XML"},
    {"truncated", "<domain><name>x</name>", -EBADMSG, "not well-formed XML, line 1"},
    {"doctype", "<!DOCTYPE domain><domain/>", -EBADMSG, "a DOCTYPE is refused"},
    {"root", "<capabilities/>", -EBADMSG, "<capabilities>: the root element"},
    {"no name", "<domain><memory>1</memory></domain>", -EBADMSG, "no <name>"},
    {"no memory", "<domain><name>x</name></domain>", -EBADMSG, "no <memory>"},
    {"memory unit", "<domain><name>x</name><memory unit='KiBB'>1</memory></domain>", -EBADMSG,
     "<memory>: memory: unit 'KiBB'"},
    {"memory text", "<domain><name>x</name><memory>1e6</memory></domain>", -EBADMSG,
     "memory '1e6' is not an unsigned integer"},
    {"memory huge", "<domain><name>x</name><memory unit='TiB'>99999999</memory></domain>", -ERANGE,
     "too large"},
    {"vcpu 0", HEAD "<vcpu>0</vcpu></domain>", -EBADMSG, "<vcpu>: '0' is not a vCPU count"},
    {"vcpu huge", HEAD "<vcpu>16385</vcpu></domain>", -ERANGE, "'16385' is not a vCPU count"},
    {"vcpu placement", HEAD "<vcpu placement='numad'>2</vcpu></domain>", -EBADMSG,
     "placement 'numad'"},
    {"vcpu cpuset", HEAD "<vcpu cpuset='a'>2</vcpu></domain>", -EBADMSG, "cpuset 'a' is not"},
    {"pin no vcpu", HEAD "<vcpu>2</vcpu><cputune><vcpupin cpuset='1'/></cputune></domain>",
     -EBADMSG, "<vcpupin>: vcpu '(missing)'"},
    {"pin vcpu range",
     HEAD "<vcpu>2</vcpu><cputune><vcpupin vcpu='2' cpuset='1'/></cputune>"
          "</domain>",
     -ERANGE, "vcpu '2' is not a vCPU of the domain (0..1)"},
    {"pin twice",
     HEAD "<vcpu>2</vcpu><cputune><vcpupin vcpu='1' cpuset='1'/>"
          "<vcpupin vcpu='1' cpuset='2'/></cputune></domain>",
     -EBADMSG, "vCPU 1 is pinned twice"},
    {"pin cpu range",
     HEAD "<vcpu>2</vcpu><cputune><vcpupin vcpu='1' cpuset='16384'/></cputune>"
          "</domain>",
     -ERANGE, "an id above 16383"},
    {"pin empty",
     HEAD "<vcpu>2</vcpu><cputune><vcpupin vcpu='1' cpuset='1-2,^1-2'/></cputune>"
          "</domain>",
     -EBADMSG, "names nothing"},
    {"pin no cpuset", HEAD "<vcpu>2</vcpu><cputune><vcpupin vcpu='1'/></cputune></domain>",
     -EBADMSG, "cpuset is missing"},
    {"emulatorpin twice",
     HEAD "<cputune><emulatorpin cpuset='1'/><emulatorpin cpuset='2'/>"
          "</cputune></domain>",
     -EBADMSG, "a second <emulatorpin>"},
    {"sched no prio",
     HEAD "<vcpu>2</vcpu><cputune><vcpusched vcpus='1' scheduler='fifo'/>"
          "</cputune></domain>",
     -EBADMSG, "priority '(missing)' of a fifo scheduler"},
    {"sched kind", HEAD "<cputune><vcpusched vcpus='0' scheduler='deadline'/></cputune></domain>",
     -EBADMSG, "scheduler 'deadline'"},
    {"sched overlap",
     HEAD "<vcpu>4</vcpu><cputune><vcpusched vcpus='0-2' scheduler='fifo' "
          "priority='1'/><vcpusched vcpus='2-3' scheduler='rr' priority='2'/>"
          "</cputune></domain>",
     -EBADMSG, "overlap another <vcpusched>"},
    {"cell order",
     HEAD "<vcpu>2</vcpu><cpu><numa><cell id='1' cpus='0-1' memory='1024' "
          "unit='MiB'/></numa></cpu></domain>",
     -EBADMSG, "id '1' is not 0"},
    {"cell overlap",
     HEAD "<vcpu>2</vcpu><cpu><numa><cell cpus='0-1' memory='1'/><cell "
          "cpus='1' memory='1'/></numa></cpu></domain>",
     -EBADMSG, "cell 1: cpus '1' overlap cell 0"},
    {"cell range",
     HEAD "<vcpu>2</vcpu><cpu><numa><cell cpus='0-2' memory='1'/></numa></cpu>"
          "</domain>",
     -ERANGE, "cpus '0-2': an id above 1"},
    {"cell memory", HEAD "<vcpu>2</vcpu><cpu><numa><cell cpus='0-1'/></numa></cpu></domain>",
     -EBADMSG, "cell 0: memory is missing"},
    {"cell access",
     HEAD "<vcpu>2</vcpu><cpu><numa><cell cpus='0-1' memory='1' "
          "memAccess='public'/></numa></cpu></domain>",
     -EBADMSG, "memAccess 'public'"},
    {"memnode cell",
     HEAD "<numatune><memnode cellid='0' mode='strict' nodeset='0'/></numatune>"
          "</domain>",
     -EBADMSG, "cellid '0' is not a NUMA cell of the domain (0)"},
    {"memnode range",
     HEAD "<cpu><numa><cell cpus='0' memory='1'/></numa></cpu><numatune>"
          "<memnode cellid='0' nodeset='1024'/></numatune></domain>",
     -ERANGE, "nodeset '1024': an id above 1023"},
    {"memnode twice",
     HEAD "<cpu><numa><cell cpus='0' memory='1'/></numa></cpu><numatune>"
          "<memnode cellid='0' nodeset='0'/><memnode cellid='0' nodeset='1'/>"
          "</numatune></domain>",
     -EBADMSG, "a second <memnode> for cell 0"},
    {"numatune mode", HEAD "<numatune><memory mode='random' nodeset='0'/></numatune></domain>",
     -EBADMSG, "mode 'random'"},
    {"page size",
     HEAD "<cpu><numa><cell cpus='0' memory='1'/></numa></cpu><memoryBacking>"
          "<hugepages><page size='3'/></hugepages></memoryBacking></domain>",
     -EBADMSG, "page size 3 KiB is not a power of two"},
    {"page cell",
     HEAD "<cpu><numa><cell cpus='0' memory='1'/></numa></cpu><memoryBacking>"
          "<hugepages><page size='2048' nodeset='1'/></hugepages></memoryBacking>"
          "</domain>",
     -EBADMSG, "nodeset names guest NUMA cell 1"},
    {"page twice",
     HEAD "<cpu><numa><cell cpus='0' memory='1'/></numa></cpu><memoryBacking>"
          "<hugepages><page size='2048'/><page size='4' nodeset='0'/></hugepages>"
          "</memoryBacking></domain>",
     -EBADMSG, "a second page size for guest NUMA cell 0"},
    {"nova memory",
     HEAD "<metadata><nova:instance xmlns:nova='http://openstack.org/xmlns/libvirt/"
          "nova/1.1'><nova:flavor name='f'><nova:memory>lots</nova:memory>"
          "</nova:flavor></nova:instance></metadata></domain>",
     -EBADMSG, "<memory>: 'lots' is not a size in MiB"},
    {"nova spec",
     HEAD "<metadata><nova:instance xmlns:nova='http://openstack.org/xmlns/libvirt/"
          "nova/1.1'><nova:flavor name='f'><nova:extraSpecs><nova:extraSpec>x"
          "</nova:extraSpec></nova:extraSpecs></nova:flavor></nova:instance>"
          "</metadata></domain>",
     -EBADMSG, "name is missing"},
};

START_TEST(test_refused) {
    const char *xml = bad[_i].xml;
    size_t len = strlen(xml);
    char root[4096], *out = NULL;
    numafit_error_t e;
    int r;
    test_data_path(root, sizeof(root), "doctor/rt-good");
    r = numafit_doctor_domains(root, NULL, 0, &xml, &len, 1, 0, &out, &e);
    ck_assert_msg(r == bad[_i].rc, "%s: %d, not %d (%s)", bad[_i].name, r, bad[_i].rc, e.text);
    ck_assert_ptr_null(out);
    ck_assert_msg(strstr(e.text, bad[_i].text) != NULL, "%s: '%s' lacks '%s'", bad[_i].name, e.text,
                  bad[_i].text);
    ck_assert_msg(!strncmp(e.where, "domains[0]", 10), "%s: where '%s'", bad[_i].name, e.where);
}
END_TEST

/* Too deep, too many cells, and the index of the domain in error. */
START_TEST(test_refused_built) {
    char root[4096], *out = NULL, *xml = malloc(64 * 1024);
    const char *doms[2];
    size_t lens[2], off;
    numafit_error_t e;
    int r;
    test_data_path(root, sizeof(root), "doctor/rt-good");
    ck_assert_ptr_nonnull(xml);
    off = (size_t)sprintf(xml, HEAD);
    for (int i = 0; i < 70; i++)
        off += (size_t)sprintf(xml + off, "<a>");
    for (int i = 0; i < 70; i++)
        off += (size_t)sprintf(xml + off, "</a>");
    sprintf(xml + off, "</domain>");
    doms[0] = xml;
    lens[0] = strlen(xml);
    r = numafit_doctor_domains(root, NULL, 0, doms, lens, 1, 0, &out, &e);
    ck_assert_int_eq(r, -EBADMSG);
    ck_assert_ptr_nonnull(strstr(e.text, "nested more than 64 levels"));
    off = (size_t)sprintf(xml, HEAD "<vcpu>65</vcpu><cpu><numa>");
    for (int i = 0; i < 65; i++)
        off += (size_t)sprintf(xml + off, "<cell cpus='%d' memory='1'/>", i);
    sprintf(xml + off, "</numa></cpu></domain>");
    doms[0] = "<domain type='kvm'><name>ok</name><memory>1024</memory></domain>";
    lens[0] = strlen(doms[0]);
    doms[1] = xml;
    lens[1] = strlen(xml);
    r = numafit_doctor_domains(root, NULL, 0, doms, lens, 2, 0, &out, &e);
    ck_assert_int_eq(r, -ERANGE);
    ck_assert_ptr_nonnull(strstr(e.text, "more than 64 NUMA cells"));
    ck_assert_msg(!strncmp(e.where, "domains[1] line 1 <cell>", 24), "%s", e.where);
    ck_assert_ptr_null(out);
    free(xml);
}
END_TEST

START_TEST(test_arguments) {
    char root[4096], *out = NULL;
    const char *doms[NUMAFIT_DOCTOR_DOMAINS_MAX + 1];
    size_t lens[NUMAFIT_DOCTOR_DOMAINS_MAX + 1];
    numafit_error_t e;
    const char *ok = "<domain><name>a</name><memory>1024</memory></domain>";
    json_t *j;
    test_data_path(root, sizeof(root), "doctor/rt-good");
    for (unsigned i = 0; i <= NUMAFIT_DOCTOR_DOMAINS_MAX; i++) {
        doms[i] = ok;
        lens[i] = strlen(ok);
    }
    ck_assert_int_eq(numafit_doctor_domains(root, NULL, 0, NULL, lens, 1, 0, &out, &e), -EINVAL);
    ck_assert_int_eq(numafit_doctor_domains(root, NULL, 0, doms, NULL, 1, 0, &out, &e), -EINVAL);
    doms[0] = NULL;
    ck_assert_int_eq(numafit_doctor_domains(root, NULL, 0, doms, lens, 1, 0, &out, &e), -EINVAL);
    doms[0] = ok;
    ck_assert_int_eq(numafit_doctor_domains(root, NULL, 0, doms, lens,
                                            NUMAFIT_DOCTOR_DOMAINS_MAX + 1, 0, &out, &e),
                     -ERANGE);
    ck_assert_str_eq(e.where, "domains");
    ck_assert_int_eq(numafit_doctor_domains(root, NULL, 0, doms, lens, 1, 1u << 9, &out, &e),
                     -EINVAL);
    lens[0] = (size_t)NUMAFIT_INPUT_MAX + 1;
    ck_assert_int_eq(numafit_doctor_domains(root, NULL, 0, doms, lens, 1, 0, &out, &e), -ERANGE);
    lens[0] = strlen(ok);
    ck_assert_ptr_null(out);
    /* a wrong root stays the doctor's error, whatever the domains */
    ck_assert_int_eq(numafit_doctor_domains("/nonexistent", NULL, 0, doms, lens, 1, 0, &out, &e),
                     -ENOENT);
    /* the most domains at once; 0 domains is numafit_doctor() */
    ck_assert_int_ge(
        numafit_doctor_domains(root, NULL, 0, doms, lens, NUMAFIT_DOCTOR_DOMAINS_MAX, 0, &out, &e),
        0);
    j = json_loads(out, 0, NULL);
    ck_assert_int_eq(json_array_size(json_object_get(j, "domains")), NUMAFIT_DOCTOR_DOMAINS_MAX);
    json_decref(j);
    numafit_free(out);
    out = NULL;
    ck_assert_int_ge(numafit_doctor_domains(root, NULL, 0, NULL, NULL, 0, 0, &out, &e), 0);
    j = json_loads(out, 0, NULL);
    ck_assert(json_object_get(j, "domains") == NULL);
    json_decref(j);
    numafit_free(out);
}
END_TEST

#else

START_TEST(test_no_libxml) {
    const char *xml = "<domain/>";
    size_t len = strlen(xml);
    char *out = NULL;
    ck_assert_int_eq(numafit_doctor_domains("/", NULL, 0, &xml, &len, 1, 0, &out, NULL), -ENOTSUP);
}
END_TEST

#endif

static Suite *doctor_domain_suite(void) {
    Suite *s = suite_create("doctor_domain");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
#ifdef HAVE_LIBVIRT
    tcase_add_loop_test(tc, test_fixture, 0, (int)(sizeof(fixtures) / sizeof(fixtures[0])));
    tcase_add_test(tc, test_nova_shape);
    tcase_add_loop_test(tc, test_edit, 0, (int)(sizeof(edits) / sizeof(edits[0])));
    tcase_add_test(tc, test_plain_guest);
    tcase_add_loop_test(tc, test_refused, 0, (int)(sizeof(bad) / sizeof(bad[0])));
    tcase_add_test(tc, test_refused_built);
    tcase_add_test(tc, test_arguments);
#else
    tcase_add_test(tc, test_no_libxml);
#endif
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(doctor_domain_suite());
    int failed;
    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
