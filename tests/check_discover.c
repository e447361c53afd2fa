/* Host discovery: capabilities XML fixtures of the seed hosts against nova's
 * own host fixtures (tests/data/hosts), captured sysfs trees against their
 * capabilities XML, edge cases and refused inputs, the real libvirt on
 * test:///default and on a custom test:///FILE, and the nova option rules of
 * nova-reference G (the table at the end of the section). */
#include "config.h"

#include <check.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <numafit/discover.h>

#include "discover_internal.h"
#include "testdata.h"

#ifdef HAVE_LIBVIRT
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#endif

/* ------------------------------------------------------------ helpers */

/* Options for a test: NULL fields are unset. */
struct opts {
    const char *dedicated, *shared, *vcpu_pin_set;
    const char *resv[4];
    const char *physnet[2]; /* "NAME:NODES" */
    const char *tunnel;
};

static numafit_hostconf_t *make_conf(const struct opts *o) {
    numafit_hostconf_t *c = NULL;
    numafit_error_t e;
    ck_assert_int_eq(numafit_hostconf_new(&c), 0);
    if (!o)
        return c;
    ck_assert_int_eq(numafit_hostconf_set_cpu_dedicated_set(c, o->dedicated, &e), 0);
    ck_assert_int_eq(numafit_hostconf_set_cpu_shared_set(c, o->shared, &e), 0);
    ck_assert_int_eq(numafit_hostconf_set_vcpu_pin_set(c, o->vcpu_pin_set, &e), 0);
    for (int i = 0; i < 4 && o->resv[i]; i++)
        ck_assert_msg(numafit_hostconf_add_reserved_huge_pages(c, o->resv[i], &e) == 0, "%s: %s",
                      o->resv[i], e.text);
    for (int i = 0; i < 2 && o->physnet[i]; i++) {
        char name[64];
        const char *colon = strchr(o->physnet[i], ':');
        ck_assert_ptr_nonnull(colon);
        snprintf(name, sizeof(name), "%.*s", (int)(colon - o->physnet[i]), o->physnet[i]);
        ck_assert_int_eq(numafit_hostconf_add_physnet(c, name, colon + 1, &e), 0);
    }
    ck_assert_int_eq(numafit_hostconf_set_tunnel_numa_nodes(c, o->tunnel, &e), 0);
    return c;
}

static numafit_host_t *caps_ok(const char *rel, const struct opts *o, const char *online,
                               unsigned flags) {
    size_t len;
    char *xml = test_slurp(rel, &len);
    numafit_hostconf_t *c = make_conf(o);
    numafit_host_t *h = NULL;
    numafit_error_t e;
    int r = numafit_host_new_from_caps_xml(xml, len, c, online, flags, &h, &e);
    ck_assert_msg(r == 0, "%s: %d %s (%s) at %s", rel, r, e.text, e.exception, e.where);
    free(xml);
    numafit_hostconf_free(c);
    return h;
}

static numafit_host_t *sysfs_ok(const char *host, const struct opts *o, unsigned flags) {
    char rel[256], root[PATH_MAX];
    numafit_hostconf_t *c = make_conf(o);
    numafit_host_t *h = NULL;
    numafit_error_t e;
    snprintf(rel, sizeof(rel), "sysfs/%s", host);
    test_data_path(root, sizeof(root), rel);
    int r = numafit_host_new_from_sysfs(root, c, flags, &h, &e);
    ck_assert_msg(r == 0, "%s: %d %s at %s", root, r, e.text, e.where);
    numafit_hostconf_free(c);
    return h;
}

static char *fmt(const uint64_t *bits, unsigned nw) {
    char *s = numafit__cpuspec_format(bits, nw);
    ck_assert_ptr_nonnull(s);
    return s;
}

static void expect_set(const numafit_host_t *h, const uint64_t *bits, const char *want,
                       const char *what, int cell) {
    char *s = fmt(bits, h->nw);
    ck_assert_msg(!strcmp(s, want), "cell %d %s: got '%s', want '%s'", cell, what, s, want);
    numafit__free(s);
}

/* Siblings as "0,8;1,9" (groups in model order, each ascending). */
static void expect_siblings(const struct numafit__cell *c, const char *want) {
    char buf[1024] = "";
    size_t n = 0;
    for (uint32_t k = 0; k < c->nsib; k++) {
        for (uint32_t i = c->sib_off[k]; i < c->sib_off[k + 1]; i++)
            n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%u",
                                  i == c->sib_off[k] ? (k ? ";" : "") : ",", c->sib_cpu[i]);
    }
    ck_assert_msg(!strcmp(buf, want), "cell %d siblings: got '%s', want '%s'", c->id, buf, want);
}

/* Make a nova fixture comparable with a freshly discovered host: no usage,
 * network_metadata always present (nova's driver always sets it). */
static void strip_usage(numafit_host_t *h) {
    for (uint32_t i = 0; i < h->ncells; i++) {
        struct numafit__cell *c = &h->cells[i];
        c->cpu_usage = c->memory_usage = 0;
        memset(c->pinned, 0, h->nw * sizeof(uint64_t));
        for (uint32_t k = 0; k < c->npages; k++)
            c->pages[k].used = 0;
        c->has_netmeta = true;
    }
    numafit__host_derive(h);
}

static numafit_host_t *json_fixture(const char *name) {
    char rel[160];
    size_t len;
    snprintf(rel, sizeof(rel), "hosts/%s", name);
    char *json = test_slurp(rel, &len);
    numafit_host_t *h = NULL;
    numafit_error_t e;
    ck_assert_msg(numafit_host_new_from_json(json, len, NUMAFIT_HOST_ALLOW_OVERLAP, &h, &e) == 0,
                  "%s: %s", name, e.text);
    free(json);
    strip_usage(h);
    return h;
}

/* ------------------------------------------------------------ seed hosts vs nova's fixtures */
static char epyc_shared[1024], epyc_dedicated[1024];

static void epyc_sets(void) {
    size_t a = 0, b = 0;
    for (int n = 0; n < 24; n++) {
        int c = 8 * n;
        a += (size_t)snprintf(epyc_shared + a, sizeof(epyc_shared) - a, "%s%d,%d", n ? "," : "", c,
                              c + 192);
        b += (size_t)snprintf(epyc_dedicated + b, sizeof(epyc_dedicated) - b, "%s%d-%d,%d-%d",
                              n ? "," : "", c + 1, c + 7, c + 193, c + 199);
    }
}

static const struct seed {
    const char *name;
    struct opts o;
} seeds[] = {
    {"rh2288h-v3", {.dedicated = "4-11", .shared = "0-3,12-15"}},
    {"sugon-i620-g30",
     {.dedicated = "2-19,22-39,42-59,62-79",
      .shared = "0-1,20-21,40-41,60-61",
      .physnet = {"physnet1:0"},
      .tunnel = "1"}},
    {"e5-2620-ht", {0}},
    {"epyc-24node", {.dedicated = "EPYC", .shared = "EPYC"}},
};

static struct opts seed_opts(int i) {
    struct opts o = seeds[i].o;
    if (o.dedicated && !strcmp(o.dedicated, "EPYC")) {
        epyc_sets();
        o.dedicated = epyc_dedicated;
        o.shared = epyc_shared;
    }
    return o;
}

START_TEST(test_seed_vs_nova) {
    char rel[128];
    struct opts o = seed_opts(_i);
    snprintf(rel, sizeof(rel), "caps/%s.xml", seeds[_i].name);
    numafit_host_t *h = caps_ok(rel, &o, NULL, 0);
    snprintf(rel, sizeof(rel), "%s.json", seeds[_i].name);
    numafit_host_t *want = json_fixture(rel);
    ck_assert_ptr_nonnull(h->distance);
    numafit__free(h->distance); /* nova's JSON has no distances */
    h->distance = NULL;
    ck_assert_msg(numafit_host_equal(h, want) == 1, "%s differs from nova's fixture",
                  seeds[_i].name);
    numafit_host_free(h);
    numafit_host_free(want);
}
END_TEST

/* ------------------------------------------------------------ sysfs == caps */
static const char *const trees[] = {"rh2288h-v3", "sugon-i620-g30", "e5-2620-ht", "epyc-24node",
                                    "edge-offline"};
#define NTREES ((int)(sizeof(trees) / sizeof(trees[0])))

START_TEST(test_sysfs_vs_caps) {
    /* _i: tree x {no options, all online; seed options; sysfs online file} */
    const char *name = trees[_i % NTREES];
    int mode = _i / NTREES;
    char rel[128];
    struct opts o = {0}, *op = NULL;
    const char *online = NULL;
    unsigned flags = NUMAFIT_DISCOVER_ALL_ONLINE;
    if (mode == 1 && _i % NTREES < 4) {
        o = seed_opts(_i % NTREES);
        op = &o;
    }
    if (mode == 2) {
        flags = 0;
        online = !strcmp(name, "edge-offline") ? "0-2,4-7" : NULL;
    }
    snprintf(rel, sizeof(rel), "caps/%s.xml", name);
    numafit_host_t *a = caps_ok(rel, op, online, flags);
    numafit_host_t *b = sysfs_ok(name, op, flags);
    ck_assert_msg(numafit_host_equal(a, b) == 1, "%s (mode %d): sysfs and caps differ", name, mode);
    ck_assert_ptr_nonnull(b->distance);
    numafit_host_free(a);
    numafit_host_free(b);
}
END_TEST

START_TEST(test_distances) {
    unsigned d = 0;
    numafit_host_t *h = sysfs_ok("epyc-24node", NULL, 0);
    ck_assert_int_eq(numafit_host_get_distance(h, 0, 0, &d), 0);
    ck_assert_uint_eq(d, 10);
    ck_assert_int_eq(numafit_host_get_distance(h, 0, 11, &d), 0);
    ck_assert_uint_eq(d, 11);
    ck_assert_int_eq(numafit_host_get_distance(h, 23, 0, &d), 0);
    ck_assert_uint_eq(d, 32);
    ck_assert_int_eq(numafit_host_get_distance(h, 24, 0, &d), -ENOENT);
    ck_assert_int_eq(numafit_host_get_distance(h, 0, 0, NULL), -EINVAL);
    ck_assert_int_eq(numafit_host_get_distance(NULL, 0, 0, &d), -EINVAL);
    ck_assert_int_eq(h->nw, 6); /* CPU 383 */
    numafit_host_free(h);
    h = caps_ok("caps/edge-offline.xml", NULL, "0-2,4-7", 0);
    ck_assert_int_eq(numafit_host_get_distance(h, 2, 1, &d), 0);
    ck_assert_uint_eq(d, 28);
    numafit_host_free(h);
    h = caps_ok("caps/test-default.xml", NULL, NULL, 0);
    ck_assert_int_eq(numafit_host_get_distance(h, 0, 1, &d), -ENOENT);
    numafit_host_free(h);
}
END_TEST

/* ------------------------------------------------------------ edge cases */
START_TEST(test_no_siblings_attr) {
    numafit_host_t *h = caps_ok("caps/edge-nosiblings.xml", NULL, NULL, 0);
    ck_assert_uint_eq(h->ncells, 2);
    expect_siblings(&h->cells[0], "0;1;2;3");
    expect_siblings(&h->cells[1], "4;5;6;7");
    /* nova's own unit fixture values: 4048280 KiB -> 3953, 4127684 -> 4030 */
    ck_assert_uint_eq(h->cells[0].memory, 3953);
    ck_assert_uint_eq(h->cells[1].memory, 4030);
    ck_assert_int_eq(h->cells[0].socket, -1);
    numafit_host_free(h);
}
END_TEST

START_TEST(test_unit_mib) {
    numafit_host_t *h = caps_ok("caps/edge-unit-mib.xml", NULL, NULL, 0);
    ck_assert_uint_eq(h->cells[0].memory, 3953); /* nova: 3 */
    ck_assert_uint_eq(h->cells[0].npages, 2);
    ck_assert_uint_eq(h->cells[0].pages[1].size_kb, 2048);
    expect_siblings(&h->cells[0], "0,1");
    ck_assert_int_eq(h->cells[0].socket, 0);
    numafit_host_free(h);
}
END_TEST

START_TEST(test_offline_and_memory_only) {
    numafit_host_t *h = caps_ok("caps/edge-offline.xml", NULL, "0-2,4-7", 0);
    ck_assert_uint_eq(h->ncells, 3);
    expect_set(h, h->cells[0].cpuset, "0-1,4-5", "cpuset", 0);
    expect_siblings(&h->cells[0], "0,4;1,5");
    ck_assert_int_eq(h->cells[0].socket, 0);
    /* CPU 3 offline: libvirt lists it with socket 0 (its default), so the
     * cell's socket is null, and its group is cut away */
    ck_assert_int_eq(h->cells[1].socket, -1);
    expect_set(h, h->cells[1].cpuset, "2,6-7", "cpuset", 1);
    expect_set(h, h->cells[1].pcpuset, "2,6-7", "pcpuset", 1);
    expect_siblings(&h->cells[1], "2,6;7");
    /* memory-only node */
    ck_assert_int_eq(h->cells[2].socket, -1);
    ck_assert_uint_eq(h->cells[2].nsib, 0);
    expect_set(h, h->cells[2].cpuset, "", "cpuset", 2);
    ck_assert_uint_eq(h->cells[2].memory, 4096);
    ck_assert_uint_eq(h->cells[2].npages, 2);
    ck_assert_uint_eq(h->cells[2].pages[1].size_kb, 2048);
    ck_assert_uint_eq(h->cells[2].pages[1].total, 16);
    ck_assert_uint_eq(h->cells[2].pages[0].total, (4194304 - 16 * 2048) / 4);
    numafit_host_free(h);
    /* without the online list every listed CPU counts: 3 is usable */
    h = caps_ok("caps/edge-offline.xml", NULL, NULL, 0);
    expect_siblings(&h->cells[1], "2,6;3;7");
    numafit_host_free(h);
    /* the offline CPU may not be configured */
    {
        size_t len;
        char *xml = test_slurp("caps/edge-offline.xml", &len);
        numafit_hostconf_t *c = NULL;
        numafit_host_t *x = NULL;
        numafit_error_t e;
        ck_assert_int_eq(numafit_hostconf_new(&c), 0);
        ck_assert_int_eq(numafit_hostconf_set_cpu_dedicated_set(c, "2-3", &e), 0);
        ck_assert_int_eq(numafit_host_new_from_caps_xml(xml, len, c, "0-2,4-7", 0, &x, &e),
                         -EINVAL);
        ck_assert_str_eq(e.exception, "Invalid");
        ck_assert_ptr_null(x);
        numafit_hostconf_free(c);
        free(xml);
    }
}
END_TEST

static int caps_str(const char *xml, unsigned flags, numafit_host_t **ret, numafit_error_t *e) {
    return numafit_host_new_from_caps_xml(xml, strlen(xml), NULL, NULL, flags, ret, e);
}

START_TEST(test_refused_files) {
    static const char *const files[] = {"caps/edge-doctype.xml", "caps/edge-billion-laughs.xml"};
    for (int i = 0; i < 2; i++) {
        size_t len;
        char *xml = test_slurp(files[i], &len);
        numafit_host_t *h = NULL;
        numafit_error_t e;
        ck_assert_int_eq(numafit_host_new_from_caps_xml(xml, len, NULL, NULL, 0, &h, &e), -EBADMSG);
        ck_assert_ptr_null(h);
        ck_assert_int_eq(e.code, NUMAFIT_E_PARSE);
        free(xml);
    }
}
END_TEST

#define HOST_OPEN    "<capabilities><host><cpu><arch>x86_64</arch></cpu><topology><cells>"
#define HOST_CLOSE   "</cells></topology></host></capabilities>"
#define CELL0(body)  "<cell id='0'><memory unit='KiB'>1048576</memory>" body "</cell>"
#define CPU(id, sib) "<cpu id='" #id "' socket_id='0' core_id='0' siblings='" sib "'/>"

static const struct bad {
    const char *name;
    const char *xml;
    int rc;
    int code;
} bads[] = {
    {"truncated", "<capabilities><host>", -EBADMSG, NUMAFIT_E_PARSE},
    {"not xml", "{\"cells\":[]}", -EBADMSG, NUMAFIT_E_PARSE},
    {"empty", "", -EBADMSG, NUMAFIT_E_PARSE},
    {"wrong root", "<domain/>", -EBADMSG, NUMAFIT_E_SCHEMA},
    {"no host", "<capabilities/>", -EBADMSG, NUMAFIT_E_SCHEMA},
    {"cell id missing", HOST_OPEN "<cell><memory>1</memory></cell>" HOST_CLOSE, -EBADMSG,
     NUMAFIT_E_SCHEMA},
    {"cell id negative", HOST_OPEN "<cell id='-1'/>" HOST_CLOSE, -EBADMSG, NUMAFIT_E_SCHEMA},
    {"cell id 1024", HOST_OPEN "<cell id='1024'/>" HOST_CLOSE, -ERANGE, NUMAFIT_E_RANGE},
    {"duplicate cell", HOST_OPEN "<cell id='0'/><cell id='0'/>" HOST_CLOSE, -EBADMSG,
     NUMAFIT_E_SCHEMA},
    {"duplicate cpu",
     HOST_OPEN CELL0("<cpus>" CPU(1, "1") "</cpus>") "<cell id='1'><cpus>" CPU(
         1, "1") "</cpus></cell>" HOST_CLOSE,
     -EBADMSG, NUMAFIT_E_SCHEMA},
    {"cpu id 16384", HOST_OPEN CELL0("<cpus>" CPU(16384, "1") "</cpus>") HOST_CLOSE, -ERANGE,
     NUMAFIT_E_RANGE},
    {"cpu id text", HOST_OPEN CELL0("<cpus>" CPU(x, "1") "</cpus>") HOST_CLOSE, -EBADMSG,
     NUMAFIT_E_SCHEMA},
    {"siblings syntax", HOST_OPEN CELL0("<cpus>" CPU(0, "0-") "</cpus>") HOST_CLOSE, -EBADMSG,
     NUMAFIT_E_SCHEMA},
    {"siblings range", HOST_OPEN CELL0("<cpus>" CPU(0, "0,99999") "</cpus>") HOST_CLOSE, -ERANGE,
     NUMAFIT_E_RANGE},
    {"memory unit MB (SI)",
     HOST_OPEN "<cell id='0'><memory unit='MB'>1024</memory></cell>" HOST_CLOSE, -EBADMSG,
     NUMAFIT_E_SCHEMA},
    {"memory text", HOST_OPEN "<cell id='0'><memory>lots</memory></cell>" HOST_CLOSE, -EBADMSG,
     NUMAFIT_E_SCHEMA},
    {"memory huge", HOST_OPEN "<cell id='0'><memory unit='TiB'>99999999</memory></cell>" HOST_CLOSE,
     -ERANGE, NUMAFIT_E_RANGE},
    {"pages bytes not KiB", HOST_OPEN CELL0("<pages unit='b' size='1000'>1</pages>") HOST_CLOSE,
     -EBADMSG, NUMAFIT_E_SCHEMA},
    {"pages size 0", HOST_OPEN CELL0("<pages size='0'>1</pages>") HOST_CLOSE, -ERANGE,
     NUMAFIT_E_RANGE},
    {"pages no size", HOST_OPEN CELL0("<pages>1</pages>") HOST_CLOSE, -EBADMSG, NUMAFIT_E_SCHEMA},
    {"pages negative", HOST_OPEN CELL0("<pages size='4'>-1</pages>") HOST_CLOSE, -EBADMSG,
     NUMAFIT_E_SCHEMA},
    {"distance value",
     HOST_OPEN CELL0("<distances><sibling id='0' value='x'/></distances>") HOST_CLOSE, -EBADMSG,
     NUMAFIT_E_SCHEMA},
    {"doctype only", "<!DOCTYPE capabilities><capabilities><host/></capabilities>", -EBADMSG,
     NUMAFIT_E_PARSE},
    {"external DTD",
     "<!DOCTYPE capabilities SYSTEM '/dev/zero'><capabilities><host/></capabilities>", -EBADMSG,
     NUMAFIT_E_PARSE},
    {"external entity",
     "<!DOCTYPE c [<!ENTITY e SYSTEM 'http://127.0.0.1:1/x'>]><capabilities>&e;</capabilities>",
     -EBADMSG, NUMAFIT_E_PARSE},
};

START_TEST(test_bad) {
    const struct bad *b = &bads[_i];
    numafit_host_t *h = NULL;
    numafit_error_t e;
    int r = caps_str(b->xml, 0, &h, &e);
    ck_assert_msg(r == b->rc, "%s: rc %d, want %d (%s)", b->name, r, b->rc, e.text);
    ck_assert_msg(e.code == b->code, "%s: code %d, want %d (%s)", b->name, e.code, b->code, e.text);
    ck_assert_ptr_null(h);
}
END_TEST

START_TEST(test_lenient_and_limits) {
    numafit_host_t *h = NULL;
    numafit_error_t e;
    /* unknown elements and attributes, comments, a <cells> that is not the
     * first child of <topology>, non-<cell> children */
    const char *ok = "<capabilities><host><cpu><arch>x86_64</arch></cpu><topology><foo/>"
                     "<!-- c --><cells num='1' extra='y'><bogus/><cell id='0' x='1'>"
                     "<memory unit='GiB'>2</memory><weird/><pages unit='KiB' size='4' z='1'>"
                     "524288</pages><cpus num='2'><cpu id='0' die_id='0' cluster_id='7' "
                     "socket_id='3' core_id='0' siblings=' 0 , 1 '/><cpu id='1' socket_id='3' "
                     "core_id='0' siblings='0-1'/></cpus></cell></cells></topology></host>"
                     "</capabilities>";
    ck_assert_int_eq(caps_str(ok, 0, &h, &e), 0);
    ck_assert_uint_eq(h->ncells, 1);
    ck_assert_uint_eq(h->cells[0].memory, 2048);
    ck_assert_int_eq(h->cells[0].socket, 3);
    expect_siblings(&h->cells[0], "0,1");
    ck_assert_ptr_null(h->distance);
    numafit_host_free(h);
    h = NULL;
    /* no <topology>, and a topology without cells: nova's None */
    ck_assert_int_eq(caps_str("<capabilities><host/></capabilities>", 0, &h, &e), 0);
    ck_assert_uint_eq(h->ncells, 0);
    numafit_host_free(h);
    h = NULL;
    /* architecture without NUMA support in nova: None, unless ANY_ARCH */
    {
        const char *s390 =
            "<capabilities><host><cpu><arch>s390x</arch></cpu><topology><cells>" CELL0(
                "<cpus>" CPU(0, "0") "</cpus>") HOST_CLOSE;
        ck_assert_int_eq(caps_str(s390, 0, &h, &e), 0);
        ck_assert_uint_eq(h->ncells, 0);
        numafit_host_free(h);
        h = NULL;
        ck_assert_int_eq(caps_str(s390, NUMAFIT_DISCOVER_ANY_ARCH, &h, &e), 0);
        ck_assert_uint_eq(h->ncells, 1);
        numafit_host_free(h);
        h = NULL;
    }
    /* depth */
    {
        char *deep = malloc(200 * 7 + 200);
        size_t n = 0;
        n += (size_t)sprintf(deep + n, "<capabilities><host>");
        for (int i = 0; i < 100; i++)
            n += (size_t)sprintf(deep + n, "<a>");
        for (int i = 0; i < 100; i++)
            n += (size_t)sprintf(deep + n, "</a>");
        sprintf(deep + n, "</host></capabilities>");
        ck_assert_int_eq(caps_str(deep, 0, &h, &e), -EBADMSG);
        ck_assert_ptr_null(h);
        free(deep);
    }
    /* hostile sizes: cells, sibling lists, page sizes */
    {
        size_t cap = 1100 * 32 + 256, n = 0;
        char *x = malloc(cap);
        n += (size_t)sprintf(x + n, HOST_OPEN);
        for (int i = 0; i < 1100; i++)
            n += (size_t)sprintf(x + n, "<cell id='%d'/>", i % 1000);
        sprintf(x + n, HOST_CLOSE);
        ck_assert_int_eq(caps_str(x, 0, &h, &e), -ERANGE);
        ck_assert_ptr_null(h);
        free(x);
        cap = 70 * 80 + 256;
        x = malloc(cap);
        n = (size_t)sprintf(x, HOST_OPEN "<cell id='0'><cpus>");
        for (int i = 0; i < 70; i++)
            n += (size_t)sprintf(x + n, "<cpu id='%d' siblings='0-16383'/>", i);
        sprintf(x + n, "</cpus></cell>" HOST_CLOSE);
        ck_assert_int_eq(caps_str(x, 0, &h, &e), -ERANGE);
        ck_assert_str_eq(e.where, "line 1 <cpu>");
        free(x);
        cap = 70 * 40 + 256;
        x = malloc(cap);
        n = (size_t)sprintf(x, HOST_OPEN "<cell id='0'>");
        for (int i = 0; i < 70; i++)
            n += (size_t)sprintf(x + n, "<pages size='%d'>1</pages>", 4 << i % 20);
        sprintf(x + n, "</cell>" HOST_CLOSE);
        ck_assert_int_eq(caps_str(x, 0, &h, &e), -ERANGE);
        free(x);
    }
    /* size bound and arguments */
    ck_assert_int_eq(
        numafit_host_new_from_caps_xml(ok, (size_t)NUMAFIT_INPUT_MAX + 1, NULL, NULL, 0, &h, &e),
        -ERANGE);
    ck_assert_int_eq(numafit_host_new_from_caps_xml(ok, strlen(ok), NULL, NULL, 1u << 7, &h, &e),
                     -EINVAL);
    ck_assert_int_eq(numafit_host_new_from_caps_xml(NULL, 0, NULL, NULL, 0, &h, &e), -EINVAL);
    ck_assert_int_eq(numafit_host_new_from_caps_xml(ok, strlen(ok), NULL, "0-", 0, &h, &e),
                     -EBADMSG);
    /* a root without sys/devices/system/cpu is refused (it read as a host
     * without NUMA, 0 cells) */
    ck_assert_int_eq(numafit_host_new_from_sysfs("/nonexistent-root", NULL, 0, &h, &e), -ENOENT);
    ck_assert_ptr_null(h);
    ck_assert_str_eq(e.where, "sys/devices/system/cpu");
    ck_assert_msg(strstr(e.text, "/nonexistent-root/sys/devices/system/cpu: no such directory"),
                  "%s", e.text);
    ck_assert_int_eq(numafit_host_new_from_sysfs(NULL, NULL, 1u << 9, &h, &e), -EINVAL);
    ck_assert_ptr_null(h);
}
END_TEST

START_TEST(test_sysfs_bad_files) {
    char root[PATH_MAX], path[PATH_MAX + 128];
    numafit_host_t *h = NULL;
    numafit_error_t e;
    FILE *f;
    ck_assert_ptr_nonnull(mkdtemp(strcpy(root, "/tmp/check_discover.XXXXXX")));
    snprintf(path, sizeof(path), "mkdir -p %s/sys/devices/system/node/node0", root);
    ck_assert_int_eq(system(path), 0);
    snprintf(path, sizeof(path), "%s/sys/devices/system/node/node0/cpulist", root);
    f = fopen(path, "w");
    fputs("0-1\n", f);
    fclose(f);
    /* no sys/devices/system/cpu: not a sysfs root */
    ck_assert_int_eq(numafit_host_new_from_sysfs(root, NULL, 0, &h, &e), -ENOENT);
    ck_assert_str_eq(e.where, "sys/devices/system/cpu");
    snprintf(path, sizeof(path), "mkdir -p %s/sys/devices/system/cpu", root);
    ck_assert_int_eq(system(path), 0);
    /* no meminfo: the full path once, at the head of the text */
    ck_assert_int_eq(numafit_host_new_from_sysfs(root, NULL, 0, &h, &e), -ENOENT);
    ck_assert_str_eq(e.where, "sys/devices/system/node/node0/meminfo");
    snprintf(path, sizeof(path), "%s/sys/devices/system/node/node0/meminfo: no such file", root);
    ck_assert_str_eq(e.text, path);
    snprintf(path, sizeof(path), "%s/sys/devices/system/node/node0/meminfo", root);
    f = fopen(path, "w");
    fputs("Node 0 MemTotal: lots\n", f);
    fclose(f);
    ck_assert_int_eq(numafit_host_new_from_sysfs(root, NULL, 0, &h, &e), -EBADMSG);
    f = fopen(path, "w");
    fputs("Node 0 MemTotal:       2097152 kB\n", f);
    fclose(f);
    /* no topology: libvirt's defaults, no online file: all online */
    ck_assert_int_eq(numafit_host_new_from_sysfs(root, NULL, 0, &h, &e), 0);
    ck_assert_uint_eq(h->ncells, 1);
    ck_assert_int_eq(h->cells[0].socket, 0);
    expect_siblings(&h->cells[0], "0;1");
    ck_assert_uint_eq(h->cells[0].memory, 2048);
    ck_assert_uint_eq(h->cells[0].npages, 1);
    ck_assert_ptr_null(h->distance);
    numafit_host_free(h);
    h = NULL;
    /* an oversized file */
    f = fopen(path, "w");
    for (int i = 0; i < 70000; i++)
        fputc(' ', f);
    fclose(f);
    ck_assert_int_eq(numafit_host_new_from_sysfs(root, NULL, 0, &h, &e), -EFBIG);
    snprintf(path, sizeof(path), "rm -rf %s", root);
    ck_assert_int_eq(system(path), 0);
}
END_TEST

/* A one-node tree under a fresh temp dir: node0 with CPUs 0-1 and 2 GiB. */
static void mini_tree(char *root, size_t cap) {
    char path[PATH_MAX + 128];
    FILE *f;
    ck_assert_uint_ge(cap, 64);
    ck_assert_ptr_nonnull(mkdtemp(strcpy(root, "/tmp/check_discover.XXXXXX")));
    snprintf(path, sizeof(path),
             "mkdir -p %s/sys/devices/system/node/node0 %s/sys/devices/system/cpu", root, root);
    ck_assert_int_eq(system(path), 0);
    snprintf(path, sizeof(path), "%s/sys/devices/system/node/node0/cpulist", root);
    ck_assert_ptr_nonnull(f = fopen(path, "w"));
    fputs("0-1\n", f);
    fclose(f);
    snprintf(path, sizeof(path), "%s/sys/devices/system/node/node0/meminfo", root);
    ck_assert_ptr_nonnull(f = fopen(path, "w"));
    fputs("Node 0 MemTotal:       2097152 kB\n", f);
    fclose(f);
}

static void rm_tree(const char *root) {
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
    ck_assert_int_eq(system(cmd), 0);
}

/* A FIFO (nobody writing: a blocking open or read never returns), a
 * directory or a symbolic link where sysfs has a regular file is refused,
 * naming it; the case's timeout catches a reader that blocks. */
START_TEST(test_sysfs_not_regular) {
    static const char *const rels[] = {"sys/devices/system/node/node0/meminfo",
                                       "sys/devices/system/cpu/online",
                                       "sys/devices/system/node/node0/cpulist"};
    char root[PATH_MAX], path[PATH_MAX + 128];
    const char *rel = rels[_i / 3];
    const int kind = _i % 3; /* FIFO, directory, symbolic link */
    numafit_host_t *h = NULL;
    numafit_error_t e;
    mini_tree(root, sizeof(root));
    snprintf(path, sizeof(path), "mkdir -p %s/sys/devices/system/cpu", root);
    ck_assert_int_eq(system(path), 0);
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    unlink(path);
    if (kind == 0) {
        ck_assert_int_eq(mkfifo(path, 0600), 0);
    } else if (kind == 1) {
        ck_assert_int_eq(mkdir(path, 0700), 0);
    } else {
        char target[PATH_MAX + 16];
        FILE *f;
        snprintf(target, sizeof(target), "%s/elsewhere", root);
        ck_assert_ptr_nonnull(f = fopen(target, "w"));
        fputs(strstr(rel, "meminfo") ? "Node 0 MemTotal:       2097152 kB\n" : "0-1\n", f);
        fclose(f);
        ck_assert_int_eq(symlink(target, path), 0);
    }
    ck_assert_int_eq(numafit_host_new_from_sysfs(root, NULL, 0, &h, &e), -EINVAL);
    ck_assert_ptr_null(h);
    ck_assert_str_eq(e.where, rel);
    ck_assert_msg(strstr(e.text, rel) && strstr(e.text, "not a regular file"), "%s", e.text);
    rm_tree(root);
}
END_TEST

/* A node directory numbered above NUMAFIT_CELL_ID_MAX is refused, naming it
 * (it used to be skipped: a cell went missing without a word). */
START_TEST(test_sysfs_node_above_limit) {
    static const char *const names[] = {"node1024", "node4294967296", "node99999999999999999999"};
    char root[PATH_MAX], path[2 * PATH_MAX + 128], where[128];
    numafit_host_t *h = NULL;
    numafit_error_t e;
    mini_tree(root, sizeof(root));
    snprintf(path, sizeof(path), "mkdir %s/sys/devices/system/node/%s", root, names[_i]);
    ck_assert_int_eq(system(path), 0);
    ck_assert_int_eq(numafit_host_new_from_sysfs(root, NULL, 0, &h, &e), -ERANGE);
    ck_assert_ptr_null(h);
    snprintf(where, sizeof(where), "sys/devices/system/node/%s", names[_i]);
    ck_assert_str_eq(e.where, where);
    ck_assert_msg(strstr(e.text, where) && strstr(e.text, "above the limit 1023"), "%s", e.text);
    /* node1023 is the last cell id allowed */
    snprintf(path, sizeof(path), "rmdir %s/sys/devices/system/node/%s", root, names[_i]);
    ck_assert_int_eq(system(path), 0);
    snprintf(path, sizeof(path),
             "cp -r %s/sys/devices/system/node/node0 %s/sys/devices/system/node/node1023", root,
             root);
    ck_assert_int_eq(system(path), 0);
    snprintf(path, sizeof(path), "%s/sys/devices/system/node/node1023/cpulist", root);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("2-3\n", f);
    fclose(f);
    ck_assert_int_eq(numafit_host_new_from_sysfs(root, NULL, 0, &h, &e), 0);
    ck_assert_uint_eq(h->ncells, 2);
    numafit_host_free(h);
    rm_tree(root);
}
END_TEST

/* 65,600 huge page size directories (the limit is 65,536): "too many
 * entries", -E2BIG (it said "out of memory"). */
START_TEST(test_sysfs_too_many_entries) {
    char root[PATH_MAX], path[PATH_MAX + 128];
    numafit_host_t *h = NULL;
    numafit_error_t e;
    size_t n;
    mini_tree(root, sizeof(root));
    n = (size_t)snprintf(path, sizeof(path), "%s/sys/devices/system/node/node0/hugepages", root);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    for (unsigned i = 1; i <= 65600; i++) {
        snprintf(path + n, sizeof(path) - n, "/hugepages-%ukB", i);
        ck_assert_int_eq(mkdir(path, 0700), 0);
    }
    ck_assert_int_eq(numafit_host_new_from_sysfs(root, NULL, 0, &h, &e), -E2BIG);
    ck_assert_ptr_null(h);
    ck_assert_str_eq(e.where, "sys/devices/system/node/node0/hugepages");
    ck_assert_msg(strstr(e.text, "too many entries"), "%s", e.text);
    ck_assert_int_ne(e.code, NUMAFIT_E_NOMEM);
    rm_tree(root);
}
END_TEST

/* Write text to root/rel, making its directory. */
static void put_file(const char *root, const char *rel, const char *text) {
    char path[PATH_MAX + 256], cmd[2 * PATH_MAX + 300];
    FILE *f;
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname %s)\"", path);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_ptr_nonnull(f = fopen(path, "w"));
    fputs(text, f);
    fclose(f);
}

static void rm_rel(const char *root, const char *rel) {
    char path[PATH_MAX + 256];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    ck_assert_int_eq(unlink(path), 0);
}

/* Kernels without node<N>/cpulist have only cpumap, a hex mask of 32-bit
 * groups, the most significant first (libnuma reads it for libvirt). */
static const struct {
    const char *map, *want; /* want: the cell's CPUs, or NULL: refused */
    int rc;
} cpumaps[] = {
    {"00000000,00000003\n", "0-1", 0},
    {"00000001,00000000\n", "32", 0},
    {"f0\n", "4-7", 0},
    {"0000FFFF", "0-15", 0},
    {"80000000,00000000,00000001\n", "0,95", 0},
    {"", NULL, -EBADMSG},
    {"\n", NULL, -EBADMSG},
    {"xyz\n", NULL, -EBADMSG},
    {"123456789\n", NULL, -EBADMSG}, /* 9 digits in a group */
    {",1\n", NULL, -EBADMSG},
    {"1,\n", NULL, -EBADMSG},
    {"1,,2\n", NULL, -EBADMSG},
    {"0-1\n", NULL, -EBADMSG}, /* a cpu list is not a mask */
    {"3\nff\n", NULL, -EBADMSG},
    {"1 2\n", NULL, -EBADMSG},
};

START_TEST(test_sysfs_cpumap) {
    char root[PATH_MAX];
    numafit_host_t *h = NULL;
    numafit_error_t e;
    mini_tree(root, sizeof(root));
    rm_rel(root, "sys/devices/system/node/node0/cpulist");
    put_file(root, "sys/devices/system/node/node0/cpumap", cpumaps[_i].map);
    int r = numafit_host_new_from_sysfs(root, NULL, 0, &h, &e);
    ck_assert_msg(r == cpumaps[_i].rc, "'%s': %d, want %d (%s)", cpumaps[_i].map, r, cpumaps[_i].rc,
                  e.text);
    if (cpumaps[_i].want) {
        ck_assert_uint_eq(h->ncells, 1);
        expect_set(h, h->cells[0].cpuset, cpumaps[_i].want, "cpuset", 0);
        numafit_host_free(h);
    } else {
        ck_assert_ptr_null(h);
        ck_assert_str_eq(e.where, "sys/devices/system/node/node0/cpumap");
        ck_assert_msg(strstr(e.text, "cpumap: not a CPU mask"), "%s", e.text);
    }
    rm_tree(root);
}
END_TEST

/* cpumap bounds: a CPU above NUMAFIT_CPU_MAX, more groups than the limit;
 * neither cpulist nor cpumap. */
START_TEST(test_sysfs_cpumap_limits) {
    char root[PATH_MAX], *map;
    numafit_host_t *h = NULL;
    numafit_error_t e;
    size_t n = 0;
    mini_tree(root, sizeof(root));
    rm_rel(root, "sys/devices/system/node/node0/cpulist");
    ck_assert_ptr_nonnull(map = malloc(9 * 2100 + 2));
    /* CPU 16384: bit 0 of group 512 counted from the right */
    n += (size_t)sprintf(map, "00000001");
    for (int i = 0; i < 512; i++)
        n += (size_t)sprintf(map + n, ",00000000");
    put_file(root, "sys/devices/system/node/node0/cpumap", map);
    ck_assert_int_eq(numafit_host_new_from_sysfs(root, NULL, 0, &h, &e), -ERANGE);
    ck_assert_msg(strstr(e.text, "CPU 16384 above 16383"), "%s", e.text);
    /* the same with a leading zero group: CPU 16383 is the last allowed */
    map[7] = '0';
    memcpy(map + n - 8, "80000000", 8); /* the rightmost group: CPU 31 */
    memcpy(map + 9 * 1, "80000000", 8); /* group 511 from the right: CPU 16383 */
    put_file(root, "sys/devices/system/node/node0/cpumap", map);
    ck_assert_int_eq(numafit_host_new_from_sysfs(root, NULL, 0, &h, &e), 0);
    expect_set(h, h->cells[0].cpuset, "31,16383", "cpuset", 0);
    numafit_host_free(h);
    h = NULL;
    /* 2049 groups */
    n = 0;
    for (int i = 0; i < 2049; i++)
        n += (size_t)sprintf(map + n, "%s0", i ? "," : "");
    put_file(root, "sys/devices/system/node/node0/cpumap", map);
    ck_assert_int_eq(numafit_host_new_from_sysfs(root, NULL, 0, &h, &e), -EBADMSG);
    ck_assert_msg(strstr(e.text, "1 to 2048 comma-separated hex groups"), "%s", e.text);
    free(map);
    /* neither file */
    rm_rel(root, "sys/devices/system/node/node0/cpumap");
    ck_assert_int_eq(numafit_host_new_from_sysfs(root, NULL, 0, &h, &e), -ENOENT);
    ck_assert_str_eq(e.where, "sys/devices/system/node/node0/cpumap");
    ck_assert_msg(strstr(e.text, "no such file (nor cpulist)"), "%s", e.text);
    rm_tree(root);
}
END_TEST

/* A kernel without NUMA: one cell, id 0, every online CPU (cpu<N>/online;
 * none for cpu0), MemTotal of /proc/meminfo, no page sizes, as libvirt's
 * virCapabilitiesHostNUMAInitFake; _i: 0 no node directory, 1 an empty one. */
START_TEST(test_sysfs_no_numa) {
    char root[PATH_MAX], path[PATH_MAX + 64];
    numafit_host_t *h = NULL;
    numafit_error_t e;
    ck_assert_ptr_nonnull(mkdtemp(strcpy(root, "/tmp/check_discover.XXXXXX")));
    for (unsigned c = 0; c < 4; c++) {
        char rel[128];
        snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%u/topology/core_id", c);
        put_file(root, rel, c == 0 ? "0\n" : c == 1 ? "1\n" : c == 2 ? "2\n" : "3\n");
    }
    put_file(root, "sys/devices/system/cpu/cpu0/topology/thread_siblings_list", "0\n");
    put_file(root, "sys/devices/system/cpu/cpu1/online", "1\n");
    put_file(root, "sys/devices/system/cpu/cpu2/online", "1\n");
    put_file(root, "sys/devices/system/cpu/cpu3/online", "0\n"); /* offline */
    put_file(root, "sys/devices/system/cpu/online", "0-2\n");
    if (_i == 1) {
        snprintf(path, sizeof(path), "%s/sys/devices/system/node", root);
        ck_assert_int_eq(mkdir(path, 0700), 0);
    }
    /* no /proc/meminfo */
    ck_assert_int_eq(numafit_host_new_from_sysfs(root, NULL, 0, &h, &e), -ENOENT);
    ck_assert_str_eq(e.where, "proc/meminfo");
    put_file(root, "proc/meminfo", "MemTotal:        8388608 kB\nMemFree:  1 kB\n");
    int r = numafit_host_new_from_sysfs(root, NULL, 0, &h, &e);
    ck_assert_msg(r == 0, "%d %s", r, e.text);
    ck_assert_uint_eq(h->ncells, 1);
    ck_assert_int_eq(h->cells[0].id, 0);
    ck_assert_uint_eq(h->cells[0].memory, 8192);
    ck_assert_uint_eq(h->cells[0].npages, 0);
    expect_set(h, h->cells[0].cpuset, "0-2", "cpuset", 0);
    expect_siblings(&h->cells[0], "0;1;2");
    ck_assert_ptr_null(h->distance);
    numafit_host_free(h);
    h = NULL;
    /* cpu/online says CPU 2 is offline too: nova's online set */
    put_file(root, "sys/devices/system/cpu/online", "0-1\n");
    ck_assert_int_eq(numafit_host_new_from_sysfs(root, NULL, 0, &h, &e), 0);
    expect_set(h, h->cells[0].cpuset, "0-1", "cpuset", 0);
    numafit_host_free(h);
    h = NULL;
    put_file(root, "proc/meminfo", "MemFree:  1 kB\n");
    ck_assert_int_eq(numafit_host_new_from_sysfs(root, NULL, 0, &h, &e), -EBADMSG);
    snprintf(path, sizeof(path), "%s/proc/meminfo: no MemTotal line", root);
    ck_assert_str_eq(e.text, path);
    rm_tree(root);
}
END_TEST

/* A kernel without cpu/online: each CPU by its cpu<N>/online (none: online,
 * as cpu0), as libvirt reads one CPU; it counted every CPU online. */
START_TEST(test_sysfs_no_online_file) {
    char root[PATH_MAX];
    numafit_host_t *h = NULL;
    numafit_error_t e;
    mini_tree(root, sizeof(root));
    put_file(root, "sys/devices/system/node/node0/cpulist", "0-3\n");
    put_file(root, "sys/devices/system/cpu/cpu1/online", "0\n");
    put_file(root, "sys/devices/system/cpu/cpu2/online", "1\n");
    int r = numafit_host_new_from_sysfs(root, NULL, 0, &h, &e);
    ck_assert_msg(r == 0, "%d %s", r, e.text);
    expect_set(h, h->cells[0].cpuset, "0,2-3", "cpuset", 0);
    numafit_host_free(h);
    h = NULL;
    /* --all-online still counts them all */
    ck_assert_int_eq(numafit_host_new_from_sysfs(root, NULL, NUMAFIT_DISCOVER_ALL_ONLINE, &h, &e),
                     0);
    expect_set(h, h->cells[0].cpuset, "0-3", "cpuset", 0);
    numafit_host_free(h);
    h = NULL;
    put_file(root, "sys/devices/system/cpu/cpu1/online", "off\n");
    ck_assert_int_eq(numafit_host_new_from_sysfs(root, NULL, 0, &h, &e), -EBADMSG);
    ck_assert_str_eq(e.where, "sys/devices/system/cpu/cpu1/online");
    rm_tree(root);
}
END_TEST

/* A root without sys/devices/system/cpu is refused; a capture's sys/
 * directory given instead of the capture names its parent. */
START_TEST(test_sysfs_wrong_root) {
    char root[PATH_MAX], sys[PATH_MAX + 16], want[PATH_MAX + 64];
    numafit_host_t *h = NULL;
    numafit_error_t e;
    mini_tree(root, sizeof(root));
    snprintf(sys, sizeof(sys), "%s/sys", root);
    ck_assert_int_eq(numafit_host_new_from_sysfs(sys, NULL, 0, &h, &e), -ENOENT);
    ck_assert_ptr_null(h);
    snprintf(want, sizeof(want), "give its parent (%s)", root);
    ck_assert_msg(strstr(e.text, want), "%s", e.text);
    strcat(sys, "/");
    ck_assert_int_eq(numafit_host_new_from_sysfs(sys, NULL, 0, &h, &e), -ENOENT);
    ck_assert_msg(strstr(e.text, want), "%s", e.text);
    snprintf(sys, sizeof(sys), "%s/sys/devices", root);
    ck_assert_int_eq(numafit_host_new_from_sysfs(sys, NULL, 0, &h, &e), -ENOENT);
    ck_assert_msg(strstr(e.text, "not a sysfs root"), "%s", e.text);
    ck_assert_int_eq(numafit_host_new_from_sysfs(root, NULL, 0, &h, &e), 0);
    numafit_host_free(h);
    rm_tree(root);
}
END_TEST

/* Two NUMA nodes listing one CPU are named by their node ids, not by our
 * cell order. */
START_TEST(test_duplicate_cpu_names_nodes) {
    static const char xml[] =
        "<capabilities><host><cpu><arch>x86_64</arch></cpu><topology><cells num='2'>"
        "<cell id='1'><memory unit='KiB'>1048576</memory><cpus num='2'>"
        "<cpu id='4' socket_id='0' core_id='0' siblings='4'/>"
        "<cpu id='5' socket_id='0' core_id='1' siblings='5'/></cpus></cell>"
        "<cell id='3'><memory unit='KiB'>1048576</memory><cpus num='1'>"
        "<cpu id='5' socket_id='1' core_id='0' siblings='5'/></cpus></cell>"
        "</cells></topology></host></capabilities>";
    numafit_host_t *h = NULL;
    numafit_error_t e;
    ck_assert_int_eq(caps_str(xml, 0, &h, &e), -EBADMSG);
    ck_assert_str_eq(e.text, "node1 and node3 both list CPU 5");
    ck_assert_str_eq(e.where, "node3");
    ck_assert_int_eq(e.cell, 3);
}
END_TEST

/* ------------------------------------------------------------ nova's option rules (G) */
/* The fake 2 nodes x 4 cores x 2 threads host of nova-reference G: cell n has
 * cores 4n..4n+3 with threads c and c+8; pages 4K x 1310720, 2M x 512, 1G x 2. */
static char *fake_host(void) {
    char *x = malloc(16384);
    size_t n = 0;
    n += (size_t)sprintf(x + n, "<capabilities><host><cpu><arch>x86_64</arch></cpu><topology>"
                                "<cells num='2'>");
    for (int cell = 0; cell < 2; cell++) {
        n += (size_t)sprintf(x + n,
                             "<cell id='%d'><memory unit='KiB'>8388608</memory>"
                             "<pages unit='KiB' size='4'>1310720</pages>"
                             "<pages unit='KiB' size='2048'>512</pages>"
                             "<pages unit='KiB' size='1048576'>2</pages><cpus num='8'>",
                             cell);
        for (int t = 0; t < 2; t++)
            for (int c = 4 * cell; c < 4 * cell + 4; c++)
                n += (size_t)sprintf(x + n,
                                     "<cpu id='%d' socket_id='%d' core_id='%d' "
                                     "siblings='%d,%d'/>",
                                     c + 8 * t, cell, c, c, c + 8);
        n += (size_t)sprintf(x + n, "</cpus></cell>");
    }
    sprintf(x + n, "</cells></topology></host></capabilities>");
    return x;
}

struct want_cell {
    const char *cpuset, *pcpuset, *siblings;
    uint64_t resv2m, resv1g;
    const char *physnets; /* "a,b" */
    bool tunneled;
};

/* A cell expectation: cpuset, pcpuset, siblings[, reserved 2M, reserved 1G[,
 * physnets, tunneled]]. */
#define WC(...) WC_(__VA_ARGS__, 0, 0, NULL, false, 0)
#define WC_(cs, ps, sib, r2, r1, pn, tun, ...)                                                     \
    {                                                                                              \
        .cpuset = cs, .pcpuset = ps, .siblings = sib, .resv2m = r2, .resv1g = r1, .physnets = pn,  \
        .tunneled = tun                                                                            \
    }

static const struct rule {
    const char *name;
    struct opts o;
    const char *online;
    int rc; /* of numafit_host_new_from_caps_xml (setter errors: setbads below) */
    const char *exception;
    struct want_cell c[2];
} rules[] = {
    {"no options (legacy: cpuset == pcpuset == online)",
     {0},
     NULL,
     0,
     NULL,
     {WC("0-3,8-11", "0-3,8-11", "0,8;1,9;2,10;3,11"),
      WC("4-7,12-15", "4-7,12-15", "4,12;5,13;6,14;7,15")}},
    {"dedicated + shared + reserved",
     {.dedicated = "2-7,10-15",
      .shared = "0-1,8-9",
      .resv = {"node:0,size:2048,count:64", "node:1,size:1GB,count:1"}},
     NULL,
     0,
     NULL,
     {WC("0-1,8-9", "2-3,10-11", "0,8;1,9;2,10;3,11", 64, 0),
      WC("", "4-7,12-15", "4,12;5,13;6,14;7,15", 0, 1)}},
    {"shared only: no legacy fallback",
     {.shared = "0-3"},
     NULL,
     0,
     NULL,
     {WC("0-3", "", "0;1;2;3"), WC("", "", "")}},
    {"dedicated only",
     {.dedicated = "0-3"},
     NULL,
     0,
     NULL,
     {WC("", "0-3", "0;1;2;3"), WC("", "", "")}},
    {"vcpu_pin_set: both sets, singletons kept",
     {.vcpu_pin_set = "1-7,^4"},
     NULL,
     0,
     NULL,
     {WC("1-3", "1-3", "1;2;3"), WC("5-7", "5-7", "5;6;7")}},
    {"vcpu_pin_set wins over cpu_shared_set",
     {.vcpu_pin_set = "0-3", .shared = "8-9"},
     NULL,
     0,
     NULL,
     {WC("0-3", "0-3", "0;1;2;3"), WC("", "", "")}},
    {"online subset, no options",
     {0},
     "0-3,8-15",
     0,
     NULL,
     {WC("0-3,8-11", "0-3,8-11", "0,8;1,9;2,10;3,11"), WC("12-15", "12-15", "12;13;14;15")}},
    {"reserved: later wins, unknown node and size ignored, 2MB and 2048 spellings",
     {.resv = {"node:0,size:2048,count:1", "node:0,size:2MB,count:7", "node:9,size:2048,count:3",
               "node:1, size : 1GiB ,count:2,extra:x"}},
     NULL,
     0,
     NULL,
     {WC("0-3,8-11", "0-3,8-11", "0,8;1,9;2,10;3,11", 7, 0),
      WC("4-7,12-15", "4-7,12-15", "4,12;5,13;6,14;7,15", 0, 2)}},
    {"reserved: 2Mb is 256 KiB, matches nothing",
     {.resv = {"node:0,size:2Mb,count:7"}},
     NULL,
     0,
     NULL,
     {WC("0-3,8-11", "0-3,8-11", "0,8;1,9;2,10;3,11"),
      WC("4-7,12-15", "4-7,12-15", "4,12;5,13;6,14;7,15")}},
    {"network metadata",
     {.physnet = {"foo:0,1", "bar:1"}, .tunnel = "0"},
     NULL,
     0,
     NULL,
     {WC("0-3,8-11", "0-3,8-11", "0,8;1,9;2,10;3,11", 0, 0, "foo", true),
      WC("4-7,12-15", "4-7,12-15", "4,12;5,13;6,14;7,15", 0, 0, "bar,foo", false)}},
    {"overlap",
     {.dedicated = "0-3", .shared = "3-4"},
     NULL,
     -EINVAL,
     "InvalidConfiguration",
     {{0}}},
    {"vcpu_pin_set with cpu_dedicated_set",
     {.dedicated = "0-3", .vcpu_pin_set = "4-5"},
     NULL,
     -EINVAL,
     "InvalidConfiguration",
     {{0}}},
    {"shared not online", {.shared = "0-16"}, NULL, -EINVAL, "Invalid", {{0}}},
    {"dedicated not online", {.dedicated = "4-7"}, "0-3", -EINVAL, "Invalid", {{0}}},
    {"vcpu_pin_set not online", {.vcpu_pin_set = "12"}, "0-11", -EINVAL, "Invalid", {{0}}},
    {"physnet on an unknown node",
     {.physnet = {"foo:2"}},
     NULL,
     -EINVAL,
     "InvalidNetworkNUMAAffinity",
     {{0}}},
    {"physnet without numa_nodes",
     {.physnet = {"foo:"}},
     NULL,
     -EINVAL,
     "InvalidNetworkNUMAAffinity",
     {{0}}},
    {"tunnel on an unknown node",
     {.tunnel = "0,5"},
     NULL,
     -EINVAL,
     "InvalidNetworkNUMAAffinity",
     {{0}}},
};

static bool want_physnet(const struct numafit__cell *c, const char *want) {
    char buf[256] = "";
    size_t n = 0;
    for (uint32_t k = 0; k < c->nphysnets; k++)
        n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", k ? "," : "", c->physnets[k]);
    return !strcmp(buf, want ? want : "");
}

START_TEST(test_rules) {
    const struct rule *t = &rules[_i];
    char *xml = fake_host();
    numafit_hostconf_t *conf = make_conf(&t->o);
    numafit_host_t *h = NULL;
    numafit_error_t e;
    int r = numafit_host_new_from_caps_xml(xml, strlen(xml), conf, t->online, 0, &h, &e);
    ck_assert_msg(r == t->rc, "%s: rc %d, want %d (%s)", t->name, r, t->rc, e.text);
    if (r < 0) {
        ck_assert_msg(!strcmp(e.exception, t->exception), "%s: exception '%s', want '%s'", t->name,
                      e.exception, t->exception);
        ck_assert_ptr_null(h);
    } else {
        ck_assert_uint_eq(h->ncells, 2);
        for (int i = 0; i < 2; i++) {
            const struct numafit__cell *c = &h->cells[i];
            const struct want_cell *w = &t->c[i];
            expect_set(h, c->cpuset, w->cpuset, "cpuset", i);
            expect_set(h, c->pcpuset, w->pcpuset, "pcpuset", i);
            expect_siblings(c, w->siblings);
            ck_assert_int_eq(c->socket, i);
            ck_assert_uint_eq(c->memory, 8192);
            ck_assert_uint_eq(c->npages, 3);
            ck_assert_uint_eq(c->pages[0].reserved, 0);
            ck_assert_msg(c->pages[1].reserved == w->resv2m && c->pages[2].reserved == w->resv1g,
                          "%s: cell %d reserved %llu/%llu", t->name, i,
                          (unsigned long long)c->pages[1].reserved,
                          (unsigned long long)c->pages[2].reserved);
            ck_assert(c->has_netmeta);
            ck_assert_msg(want_physnet(c, w->physnets), "%s: cell %d physnets", t->name, i);
            ck_assert_int_eq(c->tunneled, w->tunneled);
        }
    }
    numafit_host_free(h);
    numafit_hostconf_free(conf);
    free(xml);
}
END_TEST

/* The options of a rule as nova.conf text, in oslo.config's spellings:
 * comments, "key: value", quotes, a continuation line, a physnet without its
 * [neutron_physnet_NAME] section when it has no nodes. */
static void nova_conf_text(const struct opts *o, char *out, size_t cap) {
    size_t n = (size_t)snprintf(out, cap, "# generated\n[DEFAULT]\ndebug = true\n");
    if (o->vcpu_pin_set)
        n += (size_t)snprintf(out + n, cap - n, "vcpu_pin_set: \"%s\"\n", o->vcpu_pin_set);
    for (int i = 0; i < 4 && o->resv[i]; i++)
        n += (size_t)snprintf(out + n, cap - n, "reserved_huge_pages = %s\n", o->resv[i]);
    n += (size_t)snprintf(out + n, cap - n, "\n[compute]\n; CPU sets\n");
    if (o->dedicated)
        n += (size_t)snprintf(out + n, cap - n, "cpu_dedicated_set = '%s'\n", o->dedicated);
    if (o->shared)
        n += (size_t)snprintf(out + n, cap - n, "cpu_shared_set =\n    %s\n", o->shared);
    n += (size_t)snprintf(out + n, cap - n, "[neutron]\nphysnets = ");
    for (int i = 0; i < 2 && o->physnet[i]; i++)
        n += (size_t)snprintf(out + n, cap - n, "%s%.*s", i ? " , " : "",
                              (int)(strchr(o->physnet[i], ':') - o->physnet[i]), o->physnet[i]);
    n += (size_t)snprintf(out + n, cap - n, "\n");
    for (int i = 0; i < 2 && o->physnet[i]; i++) {
        const char *colon = strchr(o->physnet[i], ':');
        if (colon[1])
            n += (size_t)snprintf(out + n, cap - n, "[neutron_physnet_%.*s]\nnuma_nodes = %s\n",
                                  (int)(colon - o->physnet[i]), o->physnet[i], colon + 1);
    }
    if (o->tunnel)
        n += (size_t)snprintf(out + n, cap - n, "[neutron_tunnel]\nnuma_nodes = %s\n", o->tunnel);
    ck_assert_uint_lt(n, cap);
}

/* nova.conf text gives the same host (or the same refusal) as the setters. */
START_TEST(test_rules_from_nova_conf) {
    const struct rule *t = &rules[_i];
    char *xml = fake_host(), text[2048];
    numafit_hostconf_t *want_conf = make_conf(&t->o), *conf = NULL;
    numafit_host_t *want = NULL, *h = NULL;
    numafit_error_t e, we;
    int r, wr;
    nova_conf_text(&t->o, text, sizeof(text));
    ck_assert_int_eq(numafit_hostconf_new(&conf), 0);
    r = numafit_hostconf_set_from_nova_conf(conf, text, strlen(text), 0, &e);
    ck_assert_msg(r == 0, "%s: rc %d (%s)\n%s", t->name, r, e.text, text);
    wr = numafit_host_new_from_caps_xml(xml, strlen(xml), want_conf, t->online, 0, &want, &we);
    r = numafit_host_new_from_caps_xml(xml, strlen(xml), conf, t->online, 0, &h, &e);
    ck_assert_msg(r == wr && !strcmp(e.exception, we.exception), "%s: rc %d (%s), want %d (%s)",
                  t->name, r, e.text, wr, we.text);
    ck_assert_msg(r < 0 || numafit_host_equal(h, want) == 1, "%s: another host\n%s", t->name, text);
    numafit_host_free(h);
    numafit_host_free(want);
    numafit_hostconf_free(conf);
    numafit_hostconf_free(want_conf);
    free(xml);
}
END_TEST

/* a string literal and its length (NUL bytes in it counted) */
#define LIT(s) s, sizeof(s) - 1

START_TEST(test_nova_conf_api) {
    static const char good[] =
        "[DEFAULT]\nvcpu_pin_set = 0-3\nvcpu_pin_set = 1-2\n"
        "[libvirt]\ncpu_dedicated_set = 0-15\n" /* wrong section: ignored */
        "[neutron]\nphysnets = a, b,\n[neutron_physnet_a]\nnuma_nodes = 0,\n  1\n";
    numafit_hostconf_t *c = NULL;
    numafit_error_t e;
    char *big;
    ck_assert_int_eq(numafit_hostconf_new(&c), 0);
    ck_assert_int_eq(numafit_hostconf_set_from_nova_conf(c, good, strlen(good), 0, &e), 0);
    ck_assert_ptr_nonnull(c->vcpu_pin_set);
    ck_assert_uint_eq(numafit__bits_count(c->vcpu_pin_set, NUMAFIT__CPU_WORDS), 2); /* last wins */
    ck_assert_ptr_null(c->cpu_dedicated_set);
    ck_assert_uint_eq(c->nphysnets, 2);
    ck_assert_str_eq(c->physnets[0].name, "a");
    ck_assert_uint_eq(c->physnets[0].nnodes, 2); /* "0,\n1" continued */
    ck_assert_str_eq(c->physnets[1].name, "b");
    ck_assert_uint_eq(c->physnets[1].nnodes, 0); /* no [neutron_physnet_b] */
    /* errors leave the configuration as it was */
    ck_assert_int_eq(numafit_hostconf_set_from_nova_conf(c, LIT("[compute]\nx\n"), 0, &e),
                     -EBADMSG);
    ck_assert_str_eq(e.where, "nova.conf line 2");
    ck_assert_int_eq(numafit_hostconf_set_from_nova_conf(c, LIT("a = b\n"), 0, &e), -EBADMSG);
    ck_assert_int_eq(numafit_hostconf_set_from_nova_conf(c, LIT("[x]\0"), 0, &e), -EBADMSG);
    ck_assert_int_eq(
        numafit_hostconf_set_from_nova_conf(c, LIT("[compute]\ncpu_shared_set=x\n"), 0, &e),
        -EBADMSG);
    ck_assert_str_eq(e.where, "[compute] cpu_shared_set");
    ck_assert_int_eq(numafit_hostconf_set_from_nova_conf(
                         c, LIT("[DEFAULT]\nreserved_huge_pages = node:0\n"), 0, &e),
                     -EINVAL);
    ck_assert_str_eq(e.exception, "InvalidReservedMemoryPagesOption");
    ck_assert_uint_eq(c->nphysnets, 2);
    ck_assert_ptr_nonnull(c->vcpu_pin_set);
    ck_assert_int_eq(numafit_hostconf_set_from_nova_conf(c, good, strlen(good), 1, &e), -EINVAL);
    ck_assert_int_eq(numafit_hostconf_set_from_nova_conf(NULL, good, strlen(good), 0, &e), -EINVAL);
    ck_assert_int_eq(numafit_hostconf_set_from_nova_conf(c, NULL, 1, 0, &e), -EINVAL);
    big = calloc(1, NUMAFIT_NOVA_CONF_MAX + 2);
    memset(big, '#', NUMAFIT_NOVA_CONF_MAX + 1);
    ck_assert_int_eq(numafit_hostconf_set_from_nova_conf(c, big, NUMAFIT_NOVA_CONF_MAX + 1, 0, &e),
                     -ERANGE);
    ck_assert_int_eq(numafit_hostconf_set_from_nova_conf(c, big, NUMAFIT_NOVA_CONF_MAX, 0, &e), 0);
    free(big);
    /* an empty text is nova's defaults */
    ck_assert_ptr_null(c->vcpu_pin_set);
    ck_assert_uint_eq(c->nphysnets, 0);
    ck_assert_int_eq(numafit_hostconf_set_from_nova_conf(c, NULL, 0, 0, NULL), 0);
    numafit_hostconf_free(c);
}
END_TEST

static const struct setbad {
    const char *what; /* "dedicated", "shared", "pin", "resv", "physnet", "tunnel" */
    const char *value;
    int rc;
    const char *exception;
} setbads[] = {
    {"dedicated", ",", -EINVAL, "Invalid"},
    {"shared", "^3", -EINVAL, "Invalid"},
    {"pin", "1-", -EBADMSG, "Invalid"},
    {"pin", "3-1", -EBADMSG, "Invalid"},
    {"dedicated", "0-99999", -ERANGE, "Invalid"},
    {"resv", "node:0,size:2048", -EINVAL, "InvalidReservedMemoryPagesOption"},
    {"resv", "", -EINVAL, "InvalidReservedMemoryPagesOption"},
    {"resv", "node:0,size:2M,count:1", -EINVAL, "InvalidReservedMemoryPagesOption"},
    {"resv", "node:0,size:huge,count:1", -EINVAL, "InvalidReservedMemoryPagesOption"},
    {"resv", "node:x,size:2048,count:1", -EINVAL, "InvalidReservedMemoryPagesOption"},
    {"resv", "node:0,size:2048,count:1.5", -EINVAL, "InvalidReservedMemoryPagesOption"},
    {"resv", "node:0,size:2048,count:-1", -EINVAL, "InvalidReservedMemoryPagesOption"},
    {"resv", "node:0,node:1,size:2048,count:1", -EINVAL, "InvalidReservedMemoryPagesOption"},
    {"resv", "node 0,size:2048,count:1", -EINVAL, "InvalidReservedMemoryPagesOption"},
    {"physnet", "a,b:0", -EINVAL, ""},
    {"physnet", ":0", -EINVAL, ""},
    {"physnet", "foo:0,x", -EINVAL, ""},
    {"tunnel", "0,,1", -EINVAL, ""},
};

START_TEST(test_set_errors) {
    const struct setbad *t = &setbads[_i];
    numafit_hostconf_t *c = NULL;
    numafit_error_t e;
    int r = 0;
    ck_assert_int_eq(numafit_hostconf_new(&c), 0);
    if (!strcmp(t->what, "dedicated"))
        r = numafit_hostconf_set_cpu_dedicated_set(c, t->value, &e);
    else if (!strcmp(t->what, "shared"))
        r = numafit_hostconf_set_cpu_shared_set(c, t->value, &e);
    else if (!strcmp(t->what, "pin"))
        r = numafit_hostconf_set_vcpu_pin_set(c, t->value, &e);
    else if (!strcmp(t->what, "resv"))
        r = numafit_hostconf_add_reserved_huge_pages(c, t->value, &e);
    else if (!strcmp(t->what, "physnet")) {
        const char *colon = strrchr(t->value, ':');
        char name[64];
        snprintf(name, sizeof(name), "%.*s", (int)(colon - t->value), t->value);
        r = numafit_hostconf_add_physnet(c, name, colon + 1, &e);
    } else
        r = numafit_hostconf_set_tunnel_numa_nodes(c, t->value, &e);
    ck_assert_msg(r == t->rc, "%s '%s': rc %d, want %d (%s)", t->what, t->value, r, t->rc, e.text);
    ck_assert_msg(!strcmp(e.exception, t->exception), "%s '%s': exception '%s'", t->what, t->value,
                  e.exception);
    numafit_hostconf_free(c);
}
END_TEST

START_TEST(test_conf_api) {
    numafit_hostconf_t *c = NULL;
    numafit_error_t e;
    ck_assert_int_eq(numafit_hostconf_new(NULL), -EINVAL);
    ck_assert_int_eq(numafit_hostconf_new(&c), 0);
    ck_assert_int_eq(numafit_hostconf_set_cpu_shared_set(c, "0-3", &e), 0);
    ck_assert_ptr_nonnull(c->cpu_shared_set);
    ck_assert_int_eq(numafit_hostconf_set_cpu_shared_set(c, "", &e), 0);
    ck_assert_ptr_null(c->cpu_shared_set);
    ck_assert_int_eq(numafit_hostconf_set_cpu_shared_set(c, "0-3", &e), 0);
    ck_assert_int_eq(numafit_hostconf_set_cpu_shared_set(c, NULL, &e), 0);
    ck_assert_ptr_null(c->cpu_shared_set);
    /* a failed set keeps the old value */
    ck_assert_int_eq(numafit_hostconf_set_vcpu_pin_set(c, "1", &e), 0);
    ck_assert_int_eq(numafit_hostconf_set_vcpu_pin_set(c, "x", &e), -EBADMSG);
    ck_assert_ptr_nonnull(c->vcpu_pin_set);
    /* re-adding a physnet replaces its nodes */
    ck_assert_int_eq(numafit_hostconf_add_physnet(c, "p", "0", &e), 0);
    ck_assert_int_eq(numafit_hostconf_add_physnet(c, "p", "1, 2", &e), 0);
    ck_assert_uint_eq(c->nphysnets, 1);
    ck_assert_uint_eq(c->physnets[0].nnodes, 2);
    ck_assert_int_eq(numafit_hostconf_set_tunnel_numa_nodes(c, "1", &e), 0);
    ck_assert_int_eq(numafit_hostconf_set_tunnel_numa_nodes(c, NULL, &e), 0);
    ck_assert_uint_eq(c->ntunnel, 0);
    ck_assert_int_eq(numafit_hostconf_set_cpu_dedicated_set(NULL, "1", &e), -EINVAL);
    ck_assert_int_eq(numafit_hostconf_add_reserved_huge_pages(c, NULL, &e), -EINVAL);
    numafit_hostconf_free(c);
    numafit_hostconf_free(NULL);
}
END_TEST

/* ------------------------------------------------------------ threads */
struct par {
    const char *xml;
    size_t len;
    const numafit_host_t *want;
    int ok;
};

static void *par_run(void *arg) {
    struct par *p = arg;
    p->ok = 1;
    for (int i = 0; i < 5; i++) {
        numafit_host_t *h = NULL;
        numafit_error_t e;
        if (numafit_host_new_from_caps_xml(p->xml, p->len, NULL, NULL, 0, &h, &e) != 0 ||
            numafit_host_equal(h, p->want) != 1)
            p->ok = 0;
        numafit_host_free(h);
    }
    return NULL;
}

START_TEST(test_parallel) {
    /* the first parse of the process happens in 8 threads at once
     * (xmlInitParser through pthread_once) */
    size_t len;
    char *xml = test_slurp("caps/epyc-24node.xml", &len);
    numafit_host_t *want = sysfs_ok("epyc-24node", NULL, 0);
    pthread_t t[8];
    struct par p[8];
    for (int i = 0; i < 8; i++) {
        p[i] = (struct par){xml, len, want, 0};
        ck_assert_int_eq(pthread_create(&t[i], NULL, par_run, &p[i]), 0);
    }
    for (int i = 0; i < 8; i++) {
        ck_assert_int_eq(pthread_join(t[i], NULL), 0);
        ck_assert_msg(p[i].ok, "thread %d", i);
    }
    numafit_host_free(want);
    free(xml);
}
END_TEST

/* ------------------------------------------------------------ the real libvirt */
#ifdef HAVE_LIBVIRT
static void quiet(void *data, virErrorPtr e) {
    (void)data;
    (void)e;
}

START_TEST(test_libvirt_default) {
    numafit_host_t *h = NULL, *c = NULL;
    numafit_error_t e;
    virSetErrorFunc(NULL, quiet); /* test main only (process-global) */
    int r = numafit_host_new_from_libvirt("test:///default", NULL, 0, &h, &e);
    ck_assert_msg(r == 0, "%d %s", r, e.text);
    /* quirks (nova-reference J.1): the cpumap says 0,2,4 are online */
    ck_assert_uint_eq(h->ncells, 2);
    expect_set(h, h->cells[0].cpuset, "0,2,4", "cpuset", 0);
    expect_set(h, h->cells[0].pcpuset, "0,2,4", "pcpuset", 0);
    expect_siblings(&h->cells[0], "0;2;4");
    expect_set(h, h->cells[1].cpuset, "", "cpuset", 1);
    expect_set(h, h->cells[1].pcpuset, "", "pcpuset", 1);
    expect_siblings(&h->cells[1], "");
    ck_assert_int_eq(h->cells[0].socket, 0);
    ck_assert_int_eq(h->cells[1].socket, 1);
    ck_assert_uint_eq(h->cells[0].memory, 2048);
    ck_assert_uint_eq(h->cells[1].memory, 4096);
    ck_assert_uint_eq(h->cells[0].npages, 3);
    ck_assert_uint_eq(h->cells[0].pages[0].size_kb, 4);
    ck_assert_uint_eq(h->cells[1].pages[0].size_kb, 8); /* the 8 KiB quirk */
    ck_assert_uint_eq(h->cells[1].pages[0].total, 524288);
    ck_assert_uint_eq(h->cells[1].pages[2].size_kb, 1048576);
    ck_assert_ptr_null(h->distance);
    numafit_host_free(h);
    h = NULL;
    /* all online: 0-7 / 8-15, singletons; the same as the captured XML */
    ck_assert_int_eq(
        numafit_host_new_from_libvirt("test:///default", NULL, NUMAFIT_DISCOVER_ALL_ONLINE, &h, &e),
        0);
    expect_set(h, h->cells[0].cpuset, "0-7", "cpuset", 0);
    expect_set(h, h->cells[1].pcpuset, "8-15", "pcpuset", 1);
    expect_siblings(&h->cells[1], "8;9;10;11;12;13;14;15");
    c = caps_ok("caps/test-default.xml", NULL, NULL, 0);
    ck_assert_int_eq(numafit_host_equal(h, c), 1);
    numafit_host_free(h);
    numafit_host_free(c);
    h = NULL;
    /* options against the cpumap */
    {
        numafit_hostconf_t *conf = NULL;
        ck_assert_int_eq(numafit_hostconf_new(&conf), 0);
        ck_assert_int_eq(numafit_hostconf_set_cpu_dedicated_set(conf, "0-7", &e), 0);
        ck_assert_int_eq(numafit_host_new_from_libvirt("test:///default", conf, 0, &h, &e),
                         -EINVAL);
        ck_assert_str_eq(e.exception, "Invalid");
        ck_assert_int_eq(numafit_host_new_from_libvirt("test:///default", conf,
                                                       NUMAFIT_DISCOVER_ALL_ONLINE, &h, &e),
                         0);
        expect_set(h, h->cells[0].pcpuset, "0-7", "pcpuset", 0);
        expect_set(h, h->cells[0].cpuset, "", "cpuset", 0);
        numafit_host_free(h);
        numafit_hostconf_free(conf);
    }
}
END_TEST

START_TEST(test_libvirt_custom_file) {
    char rel[PATH_MAX], abs[PATH_MAX], uri[PATH_MAX + 16];
    numafit_host_t *h = NULL;
    numafit_error_t e;
    virSetErrorFunc(NULL, quiet);
    test_data_path(rel, sizeof(rel), "caps/test-driver-nocells.node");
    ck_assert_ptr_nonnull(realpath(rel, abs));
    snprintf(uri, sizeof(uri), "test://%s", abs);
    int r = numafit_host_new_from_libvirt(uri, NULL, 0, &h, &e);
    ck_assert_msg(r == 0, "%s: %d %s", uri, r, e.text);
    ck_assert_uint_eq(h->ncells, 0); /* nova: numa_topology None */
    numafit_host_free(h);
    h = NULL;
    /* a connection that cannot be opened */
    r = numafit_host_new_from_libvirt("nosuchdriver:///x", NULL, 0, &h, &e);
    ck_assert_int_eq(r, -ECONNREFUSED);
    ck_assert_ptr_null(h);
    ck_assert_str_eq(e.where, "virConnectOpenReadOnly");
}
END_TEST
#endif

/* ------------------------------------------------------------ suite */
/* to_json, from_json, to_json: the same text (what a loader accepts, the
 * JSON reader reads back). */
static void assert_round_trip(const numafit_host_t *h, const char *what) {
    char *a = NULL, *b = NULL;
    numafit_host_t *again = NULL;
    numafit_error_t e;
    ck_assert_int_eq(numafit_host_to_json(h, 0, &a, &e), 0);
    ck_assert_msg(numafit_host_new_from_json(a, strlen(a), 0, &again, &e) == 0,
                  "%s: its JSON does not read back: %s", what, e.text);
    ck_assert_int_eq(numafit_host_to_json(again, 0, &b, &e), 0);
    ck_assert_msg(strcmp(a, b) == 0, "%s: JSON differs after a round trip", what);
    numafit_free(a);
    numafit_free(b);
    numafit_host_free(again);
}

/* One set of host invariants for every loader: capabilities with a page
 * size that is not a power of two, or one page size twice, were accepted
 * and their JSON then refused; every accepted fixture round-trips. */
START_TEST(test_loaders_keep_invariants) {
    static const struct {
        const char *file, *text;
        int rc;
    } refused[] = {
        {"caps/repro-pagesize-5.xml", "page size 5 KiB is not a power of two", -ERANGE},
        {"caps/repro-dup-pages.xml", "page size 2048 KiB listed twice", -EINVAL},
    };
    static const char *const caps[] = {"caps/rh2288h-v3.xml",      "caps/sugon-i620-g30.xml",
                                       "caps/e5-2620-ht.xml",      "caps/epyc-24node.xml",
                                       "caps/edge-nosiblings.xml", "caps/edge-offline.xml",
                                       "caps/edge-unit-mib.xml",   "caps/test-default.xml"};
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        size_t len;
        char *xml = test_slurp(refused[i].file, &len);
        numafit_host_t *h = NULL;
        numafit_error_t e;
        int r = numafit_host_new_from_caps_xml(xml, len, NULL, NULL, 0, &h, &e);
        ck_assert_msg(r == refused[i].rc, "%s: rc %d (%s)", refused[i].file, r, e.text);
        ck_assert_ptr_null(h);
        ck_assert_msg(strstr(e.text, refused[i].text), "%s: %s", refused[i].file, e.text);
        free(xml);
    }
    for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
        numafit_host_t *h = caps_ok(caps[i], NULL, NULL, 0);
        assert_round_trip(h, caps[i]);
        numafit_host_free(h);
    }
    for (int i = 0; i < (int)(sizeof(seeds) / sizeof(seeds[0])); i++) {
        struct opts o = seed_opts(i); /* the seed hosts with their nova.conf */
        char rel[128];
        snprintf(rel, sizeof(rel), "caps/%s.xml", seeds[i].name);
        numafit_host_t *h = caps_ok(rel, &o, NULL, 0);
        assert_round_trip(h, rel);
        numafit_host_free(h);
    }
    for (int i = 0; i < NTREES; i++) {
        numafit_host_t *h = sysfs_ok(trees[i], NULL, 0);
        assert_round_trip(h, trees[i]);
        numafit_host_free(h);
    }
}
END_TEST

/* A physnet name that is not UTF-8 was accepted, and writing the host then
 * failed as "out of memory". */
START_TEST(test_physnet_utf8) {
    numafit_hostconf_t *c = NULL;
    numafit_error_t e;
    ck_assert_int_eq(numafit_hostconf_new(&c), 0);
    ck_assert_int_eq(numafit_hostconf_add_physnet(c, "ph\xffys", "0", &e), -EINVAL);
    ck_assert_ptr_nonnull(strstr(e.text, "UTF-8"));
    ck_assert_int_eq(numafit_hostconf_add_physnet(c, "ph\xc0\xafys", "0", &e), -EINVAL);
    ck_assert_int_eq(numafit_hostconf_add_physnet(c, "ph\xed\xa0\x80ys", "0", &e), -EINVAL);
    ck_assert_int_eq(numafit_hostconf_add_physnet(c, "physnet-\xc3\xa9t\xc3\xa9", "0", &e), 0);
    numafit_hostconf_free(c);
    ck_assert(numafit__utf8_ok("\xf0\x9f\x98\x80", 4));
    ck_assert(!numafit__utf8_ok("\xf4\x90\x80\x80", 4)); /* above U+10FFFF */
    ck_assert(!numafit__utf8_ok("a\0b", 3));
    ck_assert(!numafit__utf8_ok("\xe2\x82", 2)); /* cut */
}
END_TEST

static Suite *discover_suite(void) {
    Suite *s = suite_create("discover");
    TCase *tc;

    tc = tcase_create("seed_vs_nova");
    tcase_add_loop_test(tc, test_seed_vs_nova, 0, (int)(sizeof(seeds) / sizeof(seeds[0])));
    suite_add_tcase(s, tc);

    tc = tcase_create("sysfs_vs_caps");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_sysfs_vs_caps, 0, 3 * NTREES);
    tcase_add_test(tc, test_distances);
    tcase_add_test(tc, test_sysfs_bad_files);
    tcase_add_loop_test(tc, test_sysfs_not_regular, 0, 9);
    tcase_add_loop_test(tc, test_sysfs_node_above_limit, 0, 3);
    tcase_add_loop_test(tc, test_sysfs_cpumap, 0, (int)(sizeof(cpumaps) / sizeof(cpumaps[0])));
    tcase_add_test(tc, test_sysfs_cpumap_limits);
    tcase_add_loop_test(tc, test_sysfs_no_numa, 0, 2);
    tcase_add_test(tc, test_sysfs_no_online_file);
    tcase_add_test(tc, test_sysfs_wrong_root);
    tcase_add_test(tc, test_duplicate_cpu_names_nodes);
    suite_add_tcase(s, tc);

    /* tens of thousands of directories: slow on a busy disk */
    tc = tcase_create("big_dirs");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_sysfs_too_many_entries);
    suite_add_tcase(s, tc);

    tc = tcase_create("edge");
    tcase_add_test(tc, test_no_siblings_attr);
    tcase_add_test(tc, test_unit_mib);
    tcase_add_test(tc, test_offline_and_memory_only);
    tcase_add_test(tc, test_refused_files);
    tcase_add_loop_test(tc, test_bad, 0, (int)(sizeof(bads) / sizeof(bads[0])));
    tcase_add_test(tc, test_lenient_and_limits);
    tcase_add_test(tc, test_loaders_keep_invariants);
    tcase_add_test(tc, test_physnet_utf8);
    suite_add_tcase(s, tc);

    tc = tcase_create("rules");
    tcase_add_loop_test(tc, test_rules, 0, (int)(sizeof(rules) / sizeof(rules[0])));
    tcase_add_loop_test(tc, test_set_errors, 0, (int)(sizeof(setbads) / sizeof(setbads[0])));
    tcase_add_test(tc, test_conf_api);
    tcase_add_loop_test(tc, test_rules_from_nova_conf, 0, (int)(sizeof(rules) / sizeof(rules[0])));
    tcase_add_test(tc, test_nova_conf_api);
    suite_add_tcase(s, tc);

    tc = tcase_create("threads");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_parallel);
    suite_add_tcase(s, tc);

#ifdef HAVE_LIBVIRT
    tc = tcase_create("libvirt");
    tcase_add_test(tc, test_libvirt_default);
    tcase_add_test(tc, test_libvirt_custom_file);
    suite_add_tcase(s, tc);
#endif
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(discover_suite());
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
