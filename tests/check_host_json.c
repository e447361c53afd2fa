/* numafit_host_new_from_json / numafit_host_to_json: fixtures, round trips,
 * older object versions, the legacy dict, the DB-column string form, and a
 * table of refused inputs (errno, error code, JSON path, cell). */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "private.h"
#include "testdata.h"

/* ------------------------------------------------------------ JSON builders */
#define ENV(name, ver, data)                                                                       \
    "{\"nova_object.name\":\"" name "\",\"nova_object.namespace\":\"nova\","                       \
    "\"nova_object.version\":\"" ver "\",\"nova_object.data\":{" data "}}"
#define TOPO_V(ver, cells) ENV("NUMATopology", ver, "\"cells\":[" cells "]")
#define TOPO(cells)        TOPO_V("1.2", cells)
#define CELL_V(ver, data)  ENV("NUMACell", ver, data)
#define CELL(data)         CELL_V("1.5", data)
#define PAGES_V(ver, data) ENV("NUMAPagesTopology", ver, data)
#define PAGES(data)        PAGES_V("1.1", data)
#define NETMETA(data)      ENV("NetworkMetadata", "1.0", data)

#define C0  "/nova_object.data/cells/0"
#define C0D C0 "/nova_object.data"
#define C1D "/nova_object.data/cells/1/nova_object.data"

/* ------------------------------------------------------------ helpers */
static char *slurp(const char *name, size_t *len) {
    char rel[256];
    snprintf(rel, sizeof(rel), "hosts/%s", name);
    return test_slurp(rel, len);
}

static numafit_host_t *load_ok(const char *json, unsigned flags) {
    numafit_host_t *h = NULL;
    numafit_error_t err;
    int r = numafit_host_new_from_json(json, strlen(json), flags, &h, &err);
    ck_assert_msg(r == 0, "load failed: %d %s at %s", r, err.text, err.where);
    ck_assert_ptr_nonnull(h);
    return h;
}

/* load -> to_json(flags) -> load -> equal */
static void roundtrip(const numafit_host_t *h, unsigned flags) {
    char *out = NULL;
    numafit_error_t err;
    ck_assert_int_eq(numafit_host_to_json(h, flags, &out, &err), 0);
    ck_assert_ptr_nonnull(out);
    numafit_host_t *h2 = load_ok(out, 0);
    ck_assert_msg(numafit_host_equal(h, h2) == 1, "round trip (flags %u) differs", flags);
    ck_assert_uint_eq(h2->nw, h->nw);
    numafit_host_free(h2);
    numafit_free(out);
}

static bool has_cpu(const uint64_t *w, unsigned nw, unsigned cpu) {
    return cpu < nw * 64 && numafit__bit_test(w, cpu);
}

/* ------------------------------------------------------------ fixtures */
struct fixture {
    const char *file;
    unsigned ncells;
    unsigned nw;
    unsigned cpus0; /* |cpuset| + |pcpuset| of the first cell (legacy: counted twice) */
    unsigned nsib0;
    unsigned npages0;
};

static const struct fixture fixtures[] = {
    {"rh2288h-v3.json", 2, 1, 8, 8, 3},   {"sugon-i620-g30.json", 2, 2, 40, 20, 3},
    {"e5-2620-ht.json", 2, 1, 24, 6, 3},  {"epyc-24node.json", 24, 6, 16, 8, 3},
    {"legacy-dict.json", 2, 1, 12, 0, 0},
};

START_TEST(test_fixture) {
    const struct fixture *fx = &fixtures[_i];
    size_t len;
    char *buf = slurp(fx->file, &len);
    numafit_host_t *h = NULL;
    numafit_error_t err;
    int r = numafit_host_new_from_json(buf, len, 0, &h, &err);
    ck_assert_msg(r == 0, "%s: %d %s at %s", fx->file, r, err.text, err.where);
    ck_assert_int_eq(numafit_host_get_cell_count(h), (int)fx->ncells);
    ck_assert_uint_eq(h->nw, fx->nw);
    const struct numafit__cell *c = &h->cells[0];
    ck_assert_uint_eq(
        numafit__bits_count(c->cpuset, h->nw) + numafit__bits_count(c->pcpuset, h->nw), fx->cpus0);
    ck_assert_uint_eq(c->nsib, fx->nsib0);
    ck_assert_uint_eq(c->npages, fx->npages0);
    for (unsigned i = 0; i < fx->ncells; i++)
        ck_assert_int_eq(numafit_host_get_cell_id(h, i), (int)i);
    roundtrip(h, 0);
    roundtrip(h, NUMAFIT_JSON_INDENT);
    roundtrip(h, NUMAFIT_HOST_JSON_STRING);
    roundtrip(h, NUMAFIT_HOST_JSON_STRING | NUMAFIT_JSON_INDENT);
    numafit_host_free(h);
    free(buf);
}
END_TEST

/* Details of the fixtures that model the seed hosts. */
START_TEST(test_fixture_details) {
    size_t len;
    char *buf = slurp("rh2288h-v3.json", &len);
    numafit_host_t *h = NULL;
    ck_assert_int_eq(numafit_host_new_from_json(buf, len, 0, &h, NULL), 0);
    free(buf);
    const struct numafit__cell *c0 = &h->cells[0], *c1 = &h->cells[1];
    for (unsigned cpu = 0; cpu < 16; cpu++) {
        bool dedicated = cpu >= 4 && cpu <= 11;
        const struct numafit__cell *c = cpu < 8 ? c0 : c1;
        ck_assert(has_cpu(c->pcpuset, h->nw, cpu) == dedicated);
        ck_assert(has_cpu(c->cpuset, h->nw, cpu) == !dedicated);
        ck_assert(has_cpu(c->pinned, h->nw, cpu) == (cpu >= 4 && cpu <= 7));
    }
    ck_assert_int_eq(c0->socket, 0);
    ck_assert_int_eq(c1->socket, 1);
    ck_assert_uint_eq(c0->pages[2].size_kb, 1048576);
    ck_assert_uint_eq(c0->pages[2].total, 8);
    ck_assert_uint_eq(c0->pages[2].used, 8);
    ck_assert_uint_eq(c1->cpu_usage, 2);
    ck_assert_uint_eq(c0->memory_usage, 8192);
    /* 4K pages + 8 x 1G = the node's memory */
    ck_assert_uint_le((c0->pages[0].total * 4 + 8 * 1048576) / 1024 - c0->memory, 1);
    numafit_host_free(h);

    buf = slurp("sugon-i620-g30.json", &len);
    ck_assert_int_eq(numafit_host_new_from_json(buf, len, 0, &h, NULL), 0);
    free(buf);
    c0 = &h->cells[0];
    /* siblings (n, n+40), in order */
    for (unsigned s = 0; s < c0->nsib; s++) {
        ck_assert_uint_eq(c0->sib_off[s + 1] - c0->sib_off[s], 2);
        ck_assert_uint_eq(c0->sib_cpu[c0->sib_off[s]], s);
        ck_assert_uint_eq(c0->sib_cpu[c0->sib_off[s] + 1], s + 40);
    }
    ck_assert(c0->has_netmeta);
    ck_assert_uint_eq(c0->nphysnets, 1);
    ck_assert_str_eq(c0->physnets[0], "physnet1");
    ck_assert(h->cells[1].has_netmeta && h->cells[1].tunneled);
    numafit_host_free(h);

    buf = slurp("e5-2620-ht.json", &len);
    ck_assert_int_eq(numafit_host_new_from_json(buf, len, 0, &h, NULL), 0);
    free(buf);
    /* nova's legacy mode: cpuset == pcpuset */
    for (unsigned i = 0; i < 2; i++)
        ck_assert(numafit__bits_equal(h->cells[i].cpuset, h->cells[i].pcpuset, h->nw));
    ck_assert_uint_eq(h->cells[0].pages[1].size_kb, 2048);
    numafit_host_free(h);
}
END_TEST

/* ------------------------------------------------------------ older versions */
START_TEST(test_old_versions) {
    /* NUMATopology 1.0 / NUMACell 1.0: no pcpuset, socket, siblings, mempages... */
    numafit_host_t *h =
        load_ok(TOPO_V("1.0", CELL_V("1.0", "\"id\":0,\"cpuset\":[0,1,2,3],\"memory\":1024,"
                                            "\"cpu_usage\":1,\"memory_usage\":512")),
                0);
    const struct numafit__cell *c = &h->cells[0];
    ck_assert_uint_eq(numafit__bits_count(c->cpuset, h->nw), 4);
    ck_assert(numafit__bits_empty(c->pcpuset, h->nw));
    ck_assert(numafit__bits_empty(c->pinned, h->nw));
    ck_assert_int_eq(c->socket, -1);
    ck_assert_uint_eq(c->nsib, 0);
    ck_assert_uint_eq(c->npages, 0);
    ck_assert(!c->has_netmeta);
    ck_assert_uint_eq(c->cpu_usage, 1);
    ck_assert_uint_eq(c->memory_usage, 512);
    roundtrip(h, 0);
    numafit_host_free(h);

    /* NUMACell 1.2 with NUMAPagesTopology 1.0 (no reserved), no usage fields */
    h = load_ok(TOPO_V("1.1", CELL_V("1.2", "\"id\":3,\"cpuset\":[4,5],\"memory\":2048,"
                                            "\"pinned_cpus\":[],\"siblings\":[[5,4,5]],"
                                            "\"mempages\":[" PAGES_V("1.0", "\"size_kb\":4,"
                                                                            "\"total\":100") "]")),
                0);
    c = &h->cells[0];
    ck_assert_int_eq(c->id, 3);
    ck_assert(numafit__bits_empty(c->pcpuset, h->nw));
    ck_assert_uint_eq(c->cpu_usage, 0);
    ck_assert_uint_eq(c->memory_usage, 0);
    ck_assert_uint_eq(c->npages, 1);
    ck_assert_uint_eq(c->pages[0].reserved, 0);
    ck_assert_uint_eq(c->pages[0].used, 0);
    /* sibling set sorted and deduplicated */
    ck_assert_uint_eq(c->nsib, 1);
    ck_assert_uint_eq(c->sib_off[1], 2);
    ck_assert_uint_eq(c->sib_cpu[0], 4);
    ck_assert_uint_eq(c->sib_cpu[1], 5);
    roundtrip(h, 0);
    numafit_host_free(h);

    /* NUMACell 1.3 carrying newer fields (pcpuset, socket) and unknown ones */
    h = load_ok(TOPO(CELL_V("1.3", "\"id\":0,\"cpuset\":[],\"pcpuset\":[2,3],\"memory\":1,"
                                   "\"socket\":7,\"future_field\":{\"x\":[1]}")),
                0);
    ck_assert_int_eq(h->cells[0].socket, 7);
    ck_assert_uint_eq(numafit__bits_count(h->cells[0].pcpuset, h->nw), 2);
    numafit_host_free(h);
}
END_TEST

/* Sibling list order is kept (it matters for pinning). */
START_TEST(test_siblings_order) {
    numafit_host_t *h =
        load_ok(TOPO(CELL("\"id\":0,\"cpuset\":[],\"pcpuset\":[0,1,2,3,4,5,6,7],\"memory\":1,"
                          "\"siblings\":[[7,3],[2,6],[],[1,5],[0,4]]")),
                0);
    static const uint16_t want[] = {3, 7, 2, 6, 1, 5, 0, 4};
    static const uint32_t off[] = {0, 2, 4, 4, 6, 8};
    const struct numafit__cell *c = &h->cells[0];
    ck_assert_uint_eq(c->nsib, 5);
    for (unsigned i = 0; i < 6; i++)
        ck_assert_uint_eq(c->sib_off[i], off[i]);
    for (unsigned i = 0; i < 8; i++)
        ck_assert_uint_eq(c->sib_cpu[i], want[i]);
    roundtrip(h, 0);
    numafit_host_free(h);
}
END_TEST

/* The exact output for a small host: NUMACell 1.5, sorted changes, socket null. */
START_TEST(test_output_exact) {
    numafit_host_t *h = load_ok(
        TOPO(CELL("\"id\":1,\"cpuset\":[1,0],\"memory\":64,\"siblings\":[[1,0]],"
                  "\"mempages\":[" PAGES(
                      "\"size_kb\":4,\"total\":16384") "],"
                                                       "\"network_metadata\":" NETMETA(
                                                           "\"physnets\":[\"b\",\"a\",\"b\"],"
                                                           "\"tunneled\":true"))),
        0);
    char *out = NULL;
    ck_assert_int_eq(numafit_host_to_json(h, 0, &out, NULL), 0);
    ck_assert_str_eq(
        out, "{\"nova_object.name\":\"NUMATopology\",\"nova_object.namespace\":\"nova\","
             "\"nova_object.version\":\"1.2\",\"nova_object.data\":{\"cells\":[{"
             "\"nova_object.name\":\"NUMACell\",\"nova_object.namespace\":\"nova\","
             "\"nova_object.version\":\"1.5\",\"nova_object.data\":{\"id\":1,\"cpuset\":[0,1],"
             "\"pcpuset\":[],\"memory\":64,\"cpu_usage\":0,\"memory_usage\":0,\"pinned_cpus\":[],"
             "\"siblings\":[[0,1]],\"mempages\":[{\"nova_object.name\":\"NUMAPagesTopology\","
             "\"nova_object.namespace\":\"nova\",\"nova_object.version\":\"1.1\","
             "\"nova_object.data\":{\"size_kb\":4,\"total\":16384,\"used\":0,\"reserved\":0},"
             "\"nova_object.changes\":[\"reserved\",\"size_kb\",\"total\",\"used\"]}],"
             "\"network_metadata\":{\"nova_object.name\":\"NetworkMetadata\","
             "\"nova_object.namespace\":\"nova\",\"nova_object.version\":\"1.0\","
             "\"nova_object.data\":{\"physnets\":[\"a\",\"b\"],\"tunneled\":true},"
             "\"nova_object.changes\":[\"physnets\",\"tunneled\"]},\"socket\":null},"
             "\"nova_object.changes\":[\"cpu_usage\",\"cpuset\",\"id\",\"memory\",\"memory_usage\","
             "\"mempages\",\"network_metadata\",\"pcpuset\",\"pinned_cpus\",\"siblings\","
             "\"socket\"]}]},\"nova_object.changes\":[\"cells\"]}");
    numafit_free(out);

    /* the DB-column form is a JSON string of the same text */
    ck_assert_int_eq(numafit_host_to_json(h, NUMAFIT_HOST_JSON_STRING, &out, NULL), 0);
    ck_assert(out[0] == '"');
    ck_assert(strncmp(out, "\"{\\\"nova_object.name\\\":\\\"NUMATopology\\\"", 38) == 0);
    numafit_free(out);

    /* unknown flag bits */
    numafit_error_t err;
    out = NULL;
    ck_assert_int_eq(numafit_host_to_json(h, 1u << 7, &out, &err), -EINVAL);
    ck_assert_int_eq(err.code, NUMAFIT_E_INVALID_ARG);
    ck_assert_ptr_null(out);
    ck_assert_int_eq(numafit_host_to_json(NULL, 0, &out, &err), -EINVAL);
    numafit_host_free(h);
}
END_TEST

/* ------------------------------------------------------------ string form, legacy */
START_TEST(test_string_form) {
    const char *s = "\""
                    "{\\\"nova_object.name\\\":\\\"NUMATopology\\\","
                    "\\\"nova_object.namespace\\\":\\\"nova\\\","
                    "\\\"nova_object.version\\\":\\\"1.2\\\",\\\"nova_object.data\\\":"
                    "{\\\"cells\\\":[{\\\"nova_object.name\\\":\\\"NUMACell\\\","
                    "\\\"nova_object.namespace\\\":\\\"nova\\\",\\\"nova_object.version\\\":"
                    "\\\"1.4\\\",\\\"nova_object.data\\\":{\\\"id\\\":0,\\\"cpuset\\\":[0],"
                    "\\\"pcpuset\\\":[1],\\\"memory\\\":10}}]}}"
                    "\"";
    numafit_host_t *h = load_ok(s, 0);
    numafit_host_t *h2 = load_ok(TOPO(CELL_V("1.4", "\"id\":0,\"cpuset\":[0],\"pcpuset\":[1],"
                                                    "\"memory\":10")),
                                 0);
    ck_assert_int_eq(numafit_host_equal(h, h2), 1);
    numafit_host_free(h);
    numafit_host_free(h2);

    /* no cells: a host without NUMA topology, as nova allows */
    h = load_ok(TOPO(""), 0);
    ck_assert_int_eq(numafit_host_get_cell_count(h), 0);
    roundtrip(h, 0);
    numafit_host_free(h);
}
END_TEST

START_TEST(test_legacy) {
    numafit_host_t *h =
        load_ok("{\"cells\":[{\"id\":0,\"cpus\":\"0-3,^2\",\"mem\":{\"total\":2048,\"used\":512},"
                "\"cpu_usage\":2},{\"id\":1,\"cpus\":\"4-7\",\"mem\":{\"total\":1024}},"
                "{\"id\":2}]}",
                0);
    const struct numafit__cell *c = &h->cells[0];
    ck_assert_uint_eq(numafit__bits_count(c->cpuset, h->nw), 3);
    ck_assert(!has_cpu(c->cpuset, h->nw, 2));
    ck_assert(numafit__bits_empty(c->pcpuset, h->nw));
    ck_assert_uint_eq(c->memory, 2048);
    ck_assert_uint_eq(c->memory_usage, 512);
    ck_assert_uint_eq(c->cpu_usage, 2);
    ck_assert_int_eq(c->socket, -1);
    ck_assert_uint_eq(h->cells[1].memory_usage, 0);
    ck_assert_uint_eq(h->cells[1].cpu_usage, 0);
    ck_assert_uint_eq(h->cells[2].memory, 0);
    ck_assert(numafit__bits_empty(h->cells[2].cpuset, h->nw));
    roundtrip(h, 0);
    numafit_host_free(h);

    /* the legacy dict inside the DB-column string */
    h = load_ok("\"{\\\"cells\\\":[{\\\"id\\\":0,\\\"cpus\\\":\\\"1\\\",\\\"mem\\\":"
                "{\\\"total\\\":1,\\\"used\\\":0},\\\"cpu_usage\\\":0}]}\"",
                0);
    ck_assert(has_cpu(h->cells[0].cpuset, h->nw, 1));
    numafit_host_free(h);
}
END_TEST

START_TEST(test_overlap_flag) {
    const char *j = TOPO(CELL("\"id\":0,\"cpuset\":[0,1],\"pcpuset\":[1,2],\"memory\":1"));
    numafit_host_t *h = load_ok(j, NUMAFIT_HOST_ALLOW_OVERLAP), *h2 = NULL;
    char *out = NULL;
    ck_assert_int_eq(numafit_host_to_json(h, 0, &out, NULL), 0);
    /* the output keeps the overlap: refused again without the flag */
    ck_assert_int_eq(numafit_host_new_from_json(out, strlen(out), 0, &h2, NULL), -EINVAL);
    ck_assert_int_eq(
        numafit_host_new_from_json(out, strlen(out), NUMAFIT_HOST_ALLOW_OVERLAP, &h2, NULL), 0);
    ck_assert_int_eq(numafit_host_equal(h, h2), 1);
    numafit_free(out);
    numafit_host_free(h2);
    numafit_host_free(h);
}
END_TEST

/* ------------------------------------------------------------ refused inputs */
struct bad {
    const char *name;
    const char *json;
    unsigned flags;
    int rc;
    int code;
    const char *where;
    int cell;
};

#define OKCELL(id) CELL("\"id\":" #id ",\"cpuset\":[],\"memory\":1")

static const struct bad bads[] = {
    {"negative memory", TOPO(CELL("\"id\":0,\"memory\":-1")), 0, -ERANGE, NUMAFIT_E_RANGE,
     C0D "/memory", 0},
    {"real memory", TOPO(CELL("\"id\":0,\"memory\":1.5")), 0, -EINVAL, NUMAFIT_E_SCHEMA,
     C0D "/memory", 0},
    {"string memory", TOPO(CELL("\"id\":0,\"memory\":\"1024\"")), 0, -EINVAL, NUMAFIT_E_SCHEMA,
     C0D "/memory", 0},
    {"bool memory", TOPO(CELL("\"id\":0,\"memory\":true")), 0, -EINVAL, NUMAFIT_E_SCHEMA,
     C0D "/memory", 0},
    {"null memory", TOPO(CELL("\"id\":0,\"memory\":null")), 0, -EINVAL, NUMAFIT_E_SCHEMA,
     C0D "/memory", 0},
    {"huge memory", TOPO(CELL("\"id\":0,\"memory\":1099511627777")), 0, -ERANGE, NUMAFIT_E_RANGE,
     C0D "/memory", 0},
    {"too big integer", TOPO(CELL("\"id\":0,\"memory\":9223372036854775808")), 0, -EBADMSG,
     NUMAFIT_E_PARSE, "", -1},
    {"missing memory", TOPO(CELL("\"id\":0")), 0, -EINVAL, NUMAFIT_E_SCHEMA, C0D "/memory", 0},
    {"missing id", TOPO(CELL("\"memory\":1")), 0, -EINVAL, NUMAFIT_E_SCHEMA, C0D "/id", -1},
    {"duplicate cell ids", TOPO(OKCELL(0) "," OKCELL(0)), 0, -EINVAL, NUMAFIT_E_SCHEMA, C1D "/id",
     0},
    {"cell id 5000", TOPO(OKCELL(5000)), 0, -ERANGE, NUMAFIT_E_RANGE, C0D "/id", -1},
    {"cpu 20000", TOPO(CELL("\"id\":2,\"cpuset\":[0,20000],\"memory\":1")), 0, -ERANGE,
     NUMAFIT_E_RANGE, C0D "/cpuset/1", 2},
    {"cpu -1", TOPO(CELL("\"id\":0,\"pcpuset\":[-1],\"memory\":1")), 0, -ERANGE, NUMAFIT_E_RANGE,
     C0D "/pcpuset/0", 0},
    {"cpu as string", TOPO(CELL("\"id\":0,\"cpuset\":[\"8\"],\"memory\":1")), 0, -EINVAL,
     NUMAFIT_E_SCHEMA, C0D "/cpuset/0", 0},
    {"cpuset as string", TOPO(CELL("\"id\":0,\"cpuset\":\"0-3\",\"memory\":1")), 0, -EINVAL,
     NUMAFIT_E_SCHEMA, C0D "/cpuset", 0},
    {"cpu in two cells",
     TOPO(CELL("\"id\":0,\"cpuset\":[1],\"memory\":1") "," CELL("\"id\":1,\"pcpuset\":[1],"
                                                                "\"memory\":1")),
     0, -EINVAL, NUMAFIT_E_SCHEMA, C1D "/pcpuset", 1},
    {"topology 1.99", TOPO_V("1.99", OKCELL(0)), 0, -EINVAL, NUMAFIT_E_VERSION,
     "/nova_object.version", -1},
    {"topology 2.0", TOPO_V("2.0", OKCELL(0)), 0, -EINVAL, NUMAFIT_E_VERSION,
     "/nova_object.version", -1},
    {"topology 1.x", TOPO_V("1.x", OKCELL(0)), 0, -EINVAL, NUMAFIT_E_SCHEMA, "/nova_object.version",
     -1},
    {"cell 1.99", TOPO(CELL_V("1.99", "\"id\":0,\"memory\":1")), 0, -EINVAL, NUMAFIT_E_VERSION,
     C0 "/nova_object.version", -1},
    {"cell 1.6", TOPO(CELL_V("1.6", "\"id\":0,\"memory\":1")), 0, -EINVAL, NUMAFIT_E_VERSION,
     C0 "/nova_object.version", -1},
    {"pages 1.2",
     TOPO(CELL("\"id\":0,\"memory\":1,\"mempages\":[" PAGES_V("1.2", "\"size_kb\":4,"
                                                                     "\"total\":1") "]")),
     0, -EINVAL, NUMAFIT_E_VERSION, C0D "/mempages/0/nova_object.version", 0},
    {"wrong namespace",
     "{\"nova_object.name\":\"NUMATopology\",\"nova_object.namespace\":\"os_vif\","
     "\"nova_object.version\":\"1.2\",\"nova_object.data\":{\"cells\":[]}}",
     0, -EINVAL, NUMAFIT_E_SCHEMA, "/nova_object.namespace", -1},
    {"wrong name", ENV("NUMACell", "1.5", "\"id\":0,\"memory\":1"), 0, -EINVAL, NUMAFIT_E_SCHEMA,
     "/nova_object.name", -1},
    {"wrong cell name", TOPO(ENV("InstanceNUMACell", "1.5", "\"id\":0,\"memory\":1")), 0, -EINVAL,
     NUMAFIT_E_SCHEMA, C0 "/nova_object.name", -1},
    {"missing data",
     "{\"nova_object.name\":\"NUMATopology\",\"nova_object.namespace\":\"nova\","
     "\"nova_object.version\":\"1.2\"}",
     0, -EINVAL, NUMAFIT_E_SCHEMA, "/nova_object.data", -1},
    {"missing cells", ENV("NUMATopology", "1.2", ""), 0, -EINVAL, NUMAFIT_E_SCHEMA,
     "/nova_object.data/cells", -1},
    {"changes not a list",
     "{\"nova_object.name\":\"NUMATopology\",\"nova_object.namespace\":\"nova\","
     "\"nova_object.version\":\"1.2\",\"nova_object.data\":{\"cells\":[]},"
     "\"nova_object.changes\":\"cells\"}",
     0, -EINVAL, NUMAFIT_E_SCHEMA, "/nova_object.changes", -1},
    {"truncated JSON", "{\"nova_object.name\":\"NUMATopology\",\"nova_object.namespace\"", 0,
     -EBADMSG, NUMAFIT_E_PARSE, "", -1},
    {"NaN", TOPO(CELL("\"id\":0,\"memory\":NaN")), 0, -EBADMSG, NUMAFIT_E_PARSE, "", -1},
    {"duplicate keys", TOPO(CELL("\"id\":0,\"memory\":1,\"memory\":2")), 0, -EBADMSG,
     NUMAFIT_E_PARSE, "", -1},
    {"empty input", "", 0, -EBADMSG, NUMAFIT_E_PARSE, "", -1},
    {"a number", "42", 0, -EINVAL, NUMAFIT_E_SCHEMA, "", -1},
    {"string of garbage", "\"{not json\"", 0, -EBADMSG, NUMAFIT_E_PARSE, "", -1},
    {"string in a string", "\"\\\"x\\\"\"", 0, -EINVAL, NUMAFIT_E_SCHEMA, "", -1},
    {"overlap", TOPO(CELL("\"id\":0,\"cpuset\":[0,1],\"pcpuset\":[1,2],\"memory\":1")), 0, -EINVAL,
     NUMAFIT_E_SCHEMA, C0D "/pcpuset", 0},
    {"pinned not in pcpuset",
     TOPO(CELL("\"id\":0,\"cpuset\":[0],\"pcpuset\":[1],\"pinned_cpus\":[0],\"memory\":1")), 0,
     -EINVAL, NUMAFIT_E_SCHEMA, C0D "/pinned_cpus", 0},
    {"pinned in legacy mode without pcpuset",
     TOPO(CELL_V("1.1", "\"id\":0,\"cpuset\":[0],\"pinned_cpus\":[0],\"memory\":1")), 0, -EINVAL,
     NUMAFIT_E_SCHEMA, C0D "/pinned_cpus", 0},
    {"siblings cpu out of range",
     TOPO(CELL("\"id\":0,\"cpuset\":[0],\"siblings\":[[0],[0,16384]],\"memory\":1")), 0, -ERANGE,
     NUMAFIT_E_RANGE, C0D "/siblings/1/1", 0},
    {"siblings not nested", TOPO(CELL("\"id\":0,\"siblings\":[0,1],\"memory\":1")), 0, -EINVAL,
     NUMAFIT_E_SCHEMA, C0D "/siblings/0", 0},
    {"page size 3",
     TOPO(CELL("\"id\":0,\"memory\":1,\"mempages\":[" PAGES("\"size_kb\":3,\"total\":1") "]")), 0,
     -ERANGE, NUMAFIT_E_RANGE, C0D "/mempages/0/nova_object.data/size_kb", 0},
    {"page size 0",
     TOPO(CELL("\"id\":0,\"memory\":1,\"mempages\":[" PAGES("\"size_kb\":0,\"total\":1") "]")), 0,
     -ERANGE, NUMAFIT_E_RANGE, C0D "/mempages/0/nova_object.data/size_kb", 0},
    {"page size twice",
     TOPO(CELL("\"id\":0,\"memory\":1,\"mempages\":[" PAGES("\"size_kb\":4,\"total\":1") "," PAGES(
         "\"size_kb\":4,\"total\":2") "]")),
     0, -EINVAL, NUMAFIT_E_SCHEMA, C0D "/mempages/1/nova_object.data/size_kb", 0},
    {"pages missing total",
     TOPO(CELL("\"id\":0,\"memory\":1,\"mempages\":[" PAGES("\"size_kb\":4") "]")), 0, -EINVAL,
     NUMAFIT_E_SCHEMA, C0D "/mempages/0/nova_object.data/total", 0},
    {"pages negative used",
     TOPO(CELL("\"id\":0,\"memory\":1,\"mempages\":[" PAGES("\"size_kb\":4,\"total\":1,"
                                                            "\"used\":-1") "]")),
     0, -ERANGE, NUMAFIT_E_RANGE, C0D "/mempages/0/nova_object.data/used", 0},
    {"socket string", TOPO(CELL("\"id\":0,\"memory\":1,\"socket\":\"0\"")), 0, -EINVAL,
     NUMAFIT_E_SCHEMA, C0D "/socket", 0},
    {"network_metadata null", TOPO(CELL("\"id\":0,\"memory\":1,\"network_metadata\":null")), 0,
     -EINVAL, NUMAFIT_E_SCHEMA, C0D "/network_metadata", 0},
    {"tunneled not bool",
     TOPO(CELL("\"id\":0,\"memory\":1,\"network_metadata\":" NETMETA("\"tunneled\":1"))), 0,
     -EINVAL, NUMAFIT_E_SCHEMA, C0D "/network_metadata/nova_object.data/tunneled", 0},
    {"physnet not string",
     TOPO(CELL("\"id\":0,\"memory\":1,\"network_metadata\":" NETMETA("\"physnets\":[\"a\",1]"))), 0,
     -EINVAL, NUMAFIT_E_SCHEMA, C0D "/network_metadata/nova_object.data/physnets/1", 0},
    {"unknown flag", TOPO(OKCELL(0)), 1u << 9, -EINVAL, NUMAFIT_E_INVALID_ARG, "", -1},
    {"legacy negative memory", "{\"cells\":[{\"id\":1,\"cpus\":\"0\",\"mem\":{\"total\":-5}}]}", 0,
     -ERANGE, NUMAFIT_E_RANGE, "/cells/0/mem/total", 1},
    {"legacy cpus not a string", "{\"cells\":[{\"id\":0,\"cpus\":[0]}]}", 0, -EINVAL,
     NUMAFIT_E_SCHEMA, "/cells/0/cpus", 0},
    {"legacy bad cpu spec", "{\"cells\":[{\"id\":0,\"cpus\":\"3-1\"}]}", 0, -EBADMSG,
     NUMAFIT_E_PARSE, "/cells/0/cpus", 0},
    {"legacy cpu out of range", "{\"cells\":[{\"id\":0,\"cpus\":\"0-16384\"}]}", 0, -ERANGE,
     NUMAFIT_E_RANGE, "/cells/0/cpus", 0},
    {"legacy missing id", "{\"cells\":[{\"cpus\":\"0\"}]}", 0, -EINVAL, NUMAFIT_E_SCHEMA,
     "/cells/0/id", -1},
    {"legacy duplicate id", "{\"cells\":[{\"id\":0},{\"id\":0}]}", 0, -EINVAL, NUMAFIT_E_SCHEMA,
     "/cells/1/id", 0},
    {"neither form", "{\"cels\":[]}", 0, -EINVAL, NUMAFIT_E_SCHEMA, "", -1},
};

START_TEST(test_bad) {
    const struct bad *b = &bads[_i];
    numafit_host_t *h = (numafit_host_t *)&h; /* must stay untouched */
    numafit_host_t *const sentinel = h;
    numafit_error_t err;
    memset(&err, 0x5a, sizeof(err));
    int r = numafit_host_new_from_json(b->json, strlen(b->json), b->flags, &h, &err);
    ck_assert_msg(r == b->rc, "%s: rc %d, want %d (%s at %s)", b->name, r, b->rc, err.text,
                  err.where);
    ck_assert_msg(err.code == b->code, "%s: code %s, want %s (%s)", b->name,
                  numafit_error_code_name(err.code), numafit_error_code_name(b->code), err.text);
    ck_assert_msg(!strcmp(err.where, b->where), "%s: where '%s', want '%s'", b->name, err.where,
                  b->where);
    ck_assert_msg(err.cell == b->cell, "%s: cell %d, want %d", b->name, err.cell, b->cell);
    ck_assert_msg(err.text[0] != '\0', "%s: no text", b->name);
    ck_assert_ptr_eq(h, sentinel);
    /* a NULL error report is fine too */
    ck_assert_int_eq(numafit_host_new_from_json(b->json, strlen(b->json), b->flags, &h, NULL),
                     b->rc);
}
END_TEST

START_TEST(test_bad_misc) {
    numafit_host_t *h = NULL;
    numafit_error_t err;
    /* the length check comes before reading the buffer */
    ck_assert_int_eq(numafit_host_new_from_json("{}", (size_t)NUMAFIT_INPUT_MAX + 1, 0, &h, &err),
                     -ERANGE);
    ck_assert_int_eq(err.code, NUMAFIT_E_RANGE);
    ck_assert_int_eq(numafit_host_new_from_json(NULL, 0, 0, &h, &err), -EINVAL);
    ck_assert_int_eq(numafit_host_new_from_json("{}", 2, 0, NULL, &err), -EINVAL);
    ck_assert_ptr_null(h);
    /* messages follow nova's */
    const char *j = TOPO_V("1.99", OKCELL(0));
    ck_assert_int_eq(numafit_host_new_from_json(j, strlen(j), 0, &h, &err), -EINVAL);
    ck_assert_str_eq(err.text,
                     "Version 1.99 of NUMATopology is not supported, supported version is 1.2");
    /* syntax errors carry jansson's line and column */
    j = "{\n\"cells\": [1,\n}";
    ck_assert_int_eq(numafit_host_new_from_json(j, strlen(j), 0, &h, &err), -EBADMSG);
    ck_assert_msg(strstr(err.text, "line 3") != NULL, "%s", err.text);
    /* the buffer need not be NUL-terminated: len counts */
    j = TOPO(OKCELL(4)) "garbage";
    ck_assert_int_eq(numafit_host_new_from_json(j, strlen(j) - 7, 0, &h, &err), 0);
    ck_assert_int_eq(numafit_host_get_cell_id(h, 0), 4);
    numafit_host_free(h);
}
END_TEST

/* Inputs of many small values cost jansson ~50 bytes per value: a 10 MB host
 * JSON took 910 MB before being refused. The value count is checked first;
 * the largest hosts the library models still load. */
START_TEST(test_value_count_bound) {
    numafit_host_t *h = NULL, *again = NULL;
    numafit_request_t *r = NULL;
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    char *json = NULL;
    size_t n = 3u << 20, len;
    char *big = malloc(n + 64);
    ck_assert_ptr_nonnull(big);
    /* a host: 16,384 CPUs in 1,024 cells with 2 page sizes */
    ck_assert_int_eq(numafit_host_new_synthetic(
                         "cells:1024 cores:8 threads:2 mem:4G pages:2M=16,1G=1", 0, &h, &e),
                     0);
    ck_assert_int_eq(numafit_host_to_json(h, 0, &json, &e), 0);
    ck_assert_msg(numafit_host_new_from_json(json, strlen(json), 0, &again, &e) == 0, "%s", e.text);
    ck_assert_int_eq(numafit_host_equal(h, again), 1);
    /* 1.5 M values in 3 MB */
    len = (size_t)sprintf(big, "{\"cells\":[");
    while (len < n)
        big[len++] = '0', big[len++] = ',';
    len += (size_t)sprintf(big + len, "0]}");
    ck_assert_int_eq(numafit_host_new_from_json(big, len, 0, &h, &e) == -ERANGE, 1);
    ck_assert_ptr_nonnull(strstr(e.text, "more than"));
    ck_assert_int_eq(e.code, NUMAFIT_E_RANGE);
    memcpy(big, "{\"vcpus\":1,\"junk\":[", 19);
    ck_assert_int_eq(numafit_request_new(big, len, NULL, 0, 0, &r, &e), -ERANGE);
    ck_assert_ptr_null(r);
    memcpy(big, "[[[[[[[[[[", 10);
    ck_assert_int_eq(numafit_placement_new_from_json(big, len, 0, &p, &e), -ERANGE);
    ck_assert_ptr_null(p);
    /* commas inside strings are no values */
    len = (size_t)sprintf(big, "{\"vcpus\":2,\"memory_mb\":512,\"name\":\"");
    while (len < n)
        big[len++] = ',';
    len += (size_t)sprintf(big + len, "\\\",\"}");
    ck_assert_int_eq(numafit_request_new(big, len, NULL, 0, 0, &r, &e), 0);
    numafit_request_free(r);
    free(big);
    numafit_free(json);
    numafit_host_free(again);
    numafit_host_free(h);
}
END_TEST

static Suite *host_json_suite(void) {
    Suite *s = suite_create("host_json");
    TCase *tc = tcase_create("fixtures");
    tcase_add_loop_test(tc, test_fixture, 0, (int)(sizeof(fixtures) / sizeof(fixtures[0])));
    tcase_add_test(tc, test_fixture_details);
    suite_add_tcase(s, tc);

    tc = tcase_create("formats");
    tcase_add_test(tc, test_old_versions);
    tcase_add_test(tc, test_siblings_order);
    tcase_add_test(tc, test_output_exact);
    tcase_add_test(tc, test_string_form);
    tcase_add_test(tc, test_legacy);
    tcase_add_test(tc, test_overlap_flag);
    suite_add_tcase(s, tc);

    tc = tcase_create("bad");
    tcase_add_loop_test(tc, test_bad, 0, (int)(sizeof(bads) / sizeof(bads[0])));
    tcase_add_test(tc, test_bad_misc);
    tcase_add_test(tc, test_value_count_bound);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(host_json_suite());
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
