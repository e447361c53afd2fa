/*
 * libFuzzer target: the input loaders of `numafit plan` (tools/numafit/plan_load.c,
 * linked as it is into this program): nova DB dumps of compute_nodes (JSON
 * lines, a JSON list, CSV, mysql's tab-separated batch output), existing
 * instances (instance_extra rows) and flavors.
 *
 * Input: MODE KIND CONTENT. MODE 'd': CONTENT is a compute_nodes dump,
 * loaded with plan_load_db from a scratch file whose extension KIND
 * chooses ('j' .jsonl, 'c' .csv, 't' .tsv, 'a' .json, else none: the loader
 * sniffs). MODE 'i': CONTENT is DUMP NUL INSTANCES: the dump is loaded as
 * for 'd' (sniffed), then the instances file (extension from KIND) is
 * claimed on its hosts. MODE 'f': CONTENT is a flavors file, one flavor
 * (KIND 's', --flavor) or a list, object or JSON lines (--flavors).
 *
 * Invariants: the loader returns 0, or PLAN_EXIT_INPUT after a message (or
 * PLAN_EXIT_FAIL only when out of memory); the first hosts loaded (and
 * claimed) get the host invariants of invariants.h, the first flavors the
 * fit invariants. A fleet loaded gets its placement inventories
 * (plan_build_inventories, 0 or PLAN_EXIT_INPUT): every host has one, its
 * JSON reads back equal, and it has room for nothing asked of no class.
 *
 * JSON lines and jansson: plan_load.c scans simple JSON lines itself and
 * hands anything else to jansson; it promises never to accept a line
 * jansson refuses. For a JSON lines dump, every non-blank line is also
 * parsed with jansson (JSON_REJECT_DUPLICATES, as the loader): when one is
 * refused the loader must fail too; when all are objects, the same lines
 * written as one JSON list (read by jansson alone) must load to the same
 * fleet: the same result, host names, host JSON, allocation ratios and
 * PCI pools (the pci_stats column).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <numafit.h>

#include "../../tools/numafit/plan_fleet.h"
#include "fstree.h"
#include "invariants.h"

#define CHECK_HOSTS   3 /* hosts of a fleet that get the host invariants */
#define CHECK_FLAVORS 2

static struct plan *plan_new(void) {
    struct plan *pl = calloc(1, sizeof(*pl));
    FUZZ_ASSERT(pl != NULL);
    pl->profile = NUMAFIT_PROFILE_LATEST;
    pl->strategies[0] = pl->strategies[1] = true;
    pl->nlimits = 1;
    pl->limits[0].cpu_ratio = PLAN_DEFAULT_CPU_RATIO;
    pl->limits[0].ram_ratio = PLAN_DEFAULT_RAM_RATIO;
    pl->inventory = true;
    pl->disk_gb = -1;
    return pl;
}

static void plan_delete(struct plan *pl) {
    plan_free(pl);
    free(pl);
}

static int check_status(int rc) {
    if (rc != 0 && rc != PLAN_EXIT_INPUT)
        fuzz_note("loader status %d (only 0 and PLAN_EXIT_INPUT expected)", rc);
    FUZZ_ASSERT(rc == 0 || rc == PLAN_EXIT_INPUT);
    return rc;
}

static void check_fleet(struct plan *pl) {
    int rc;
    for (size_t i = 0; i < pl->nhosts && i < CHECK_HOSTS; i++)
        fuzz_check_host(pl->hosts[i].h, 0, NULL);
    fuzz_stderr_off();
    rc = plan_build_inventories(pl);
    fuzz_stderr_on();
    if (check_status(rc) != 0)
        return;
    for (size_t i = 0; i < pl->nhosts && i < CHECK_HOSTS; i++) {
        const numafit_inventory_t *inv = pl->hosts[i].inv;
        numafit_inventory_t *back = NULL;
        int64_t none[NUMAFIT_RC_COUNT] = {0};
        char *txt = NULL;
        int stop;
        FUZZ_ASSERT(inv != NULL);
        FUZZ_ASSERT(numafit_inventory_to_json(inv, 0, &txt, NULL) == 0);
        FUZZ_ASSERT(numafit_inventory_new_from_json(txt, strlen(txt), 0, &back, NULL) == 0);
        FUZZ_ASSERT(numafit_inventory_equal(inv, back) == 1);
        FUZZ_ASSERT(plan_inventory_room(inv, none, 0, 7, &stop) == 7 && stop == STOP_CAPPED);
        numafit_inventory_free(back);
        numafit_free(txt);
    }
}

static const char *db_name(char kind) {
    switch (kind) {
        case 'j':
            return "db.jsonl";
        case 'c':
            return "db.csv";
        case 't':
            return "db.tsv";
        case 'a':
            return "db.json";
        default:
            return "db";
    }
}

/* Is this file read as JSON lines? (rows_open: the extension, else the
 * first byte that is not white space, after a UTF-8 byte order mark) */
static int is_jsonl(char kind, const uint8_t *p, size_t n) {
    if (kind == 'j')
        return 1;
    if (kind == 'c' || kind == 't')
        return 0;
    if (n >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf) {
        p += 3;
        n -= 3;
    }
    while (n && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) {
        p++;
        n--;
    }
    return n && *p == '{';
}

/* The two fleets are the same. */
static void same_fleet(const struct plan *a, const struct plan *b, const char *text) {
    int same = a->nhosts == b->nhosts && a->sources[0].skipped == b->sources[0].skipped;
    for (size_t i = 0; same && i < a->nhosts; i++) {
        const struct plan_host *ha = &a->hosts[i], *hb = &b->hosts[i];
        char *ja, *jb;
        same = !strcmp(plan_host_name(a, i), plan_host_name(b, i)) &&
               a->limits[ha->limits].cpu_ratio == b->limits[hb->limits].cpu_ratio &&
               a->limits[ha->limits].ram_ratio == b->limits[hb->limits].ram_ratio &&
               ha->unknown_pinned == hb->unknown_pinned && ha->db_memory_mb == hb->db_memory_mb &&
               ha->db_disk_gb == hb->db_disk_gb && ha->db_disk_ratio == hb->db_disk_ratio &&
               ha->db_vcpus_used == hb->db_vcpus_used &&
               ha->db_memory_used_mb == hb->db_memory_used_mb &&
               ha->db_disk_used_gb == hb->db_disk_used_gb && !ha->pools == !hb->pools &&
               (!ha->pools || numafit_pci_pools_equal(ha->pools, hb->pools) == 1);
        ja = fuzz_host_json(ha->h);
        jb = fuzz_host_json(hb->h);
        if (same && strcmp(ja, jb) != 0) {
            fuzz_note("host %zu: JSON lines scanner: %s\njansson: %s", i, ja, jb);
            same = 0;
        }
        numafit_free(ja);
        numafit_free(jb);
    }
    if (!same)
        fuzz_note("the JSON lines dump and the same rows as a JSON list load differently "
                  "(%zu and %zu hosts):\n%s",
                  a->nhosts, b->nhosts, text);
    FUZZ_ASSERT(same);
}

/* Compare plan_load_db's reading of a JSON lines dump with jansson's. */
static void jsonl_vs_jansson(const uint8_t *p, size_t n, int rc, const struct plan *pl) {
    const char *s = (const char *)p, *e = s + n;
    char *list = malloc(n + 3), *text = malloc(n + 1);
    size_t used = 0;
    int refused = 0, lines = 0;

    FUZZ_ASSERT(list && text);
    memcpy(text, p, n);
    text[n] = '\0';
    if (n >= 3 && !memcmp(s, "\xef\xbb\xbf", 3))
        s += 3;
    list[used++] = '[';
    while (s < e && !refused) {
        const char *nl = memchr(s, '\n', (size_t)(e - s));
        size_t len = nl ? (size_t)(nl - s) : (size_t)(e - s), k;
        json_t *row;
        /* blank: the loader's strspn() stops at a NUL byte too */
        for (k = 0; k < len && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r'); k++)
            ;
        if (k < len) {
            row = json_loadb(s, len, JSON_REJECT_DUPLICATES, NULL);
            if (!row || !json_is_object(row)) {
                refused = 1;
            } else {
                if (lines++)
                    list[used++] = ',';
                memcpy(list + used, s, len);
                used += len;
            }
            json_decref(row);
        }
        s = nl ? nl + 1 : e;
    }
    list[used++] = ']';
    if (refused) {
        if (rc == 0)
            fuzz_note("the JSON lines loader accepted a line jansson refuses:\n%s", text);
        FUZZ_ASSERT(rc != 0);
    } else if (lines > 0) {
        const char *path = fuzz_scratch_file("db-list.json", list, used);
        struct plan *other = plan_new();
        int rc2;
        fuzz_stderr_off();
        rc2 = plan_load_db(other, path);
        fuzz_stderr_on();
        check_status(rc2);
        if ((rc == 0) != (rc2 == 0))
            fuzz_note("JSON lines: status %d, the same rows as a JSON list: %d\n%s", rc, rc2, text);
        FUZZ_ASSERT((rc == 0) == (rc2 == 0));
        if (rc == 0)
            same_fleet(pl, other, text);
        plan_delete(other);
    }
    free(list);
    free(text);
}

static int load_db(struct plan *pl, char kind, const uint8_t *p, size_t n) {
    const char *path = fuzz_scratch_file(db_name(kind), p, n);
    int rc;
    fuzz_stderr_off();
    rc = plan_load_db(pl, path);
    fuzz_stderr_on();
    return check_status(rc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct plan *pl;
    const uint8_t *p = data + 2;
    size_t n = size >= 2 ? size - 2 : 0;
    int rc;

    if (size < 2)
        return 0;
    pl = plan_new();
    if (data[0] == 'd') {
        rc = load_db(pl, (char)data[1], p, n);
        if (is_jsonl((char)data[1], p, n))
            jsonl_vs_jansson(p, n, rc, pl);
        if (rc == 0)
            check_fleet(pl);
    } else if (data[0] == 'i') {
        const uint8_t *nul = memchr(p, '\0', n);
        size_t dlen = nul ? (size_t)(nul - p) : n;
        if (nul && load_db(pl, 0, p, dlen) == 0) {
            static const char *const names[] = {"instances.jsonl", "instances.csv", "instances.tsv",
                                                "instances"};
            const char *name = names[data[1] & 3];
            const char *path = fuzz_scratch_file(name, nul + 1, n - dlen - 1);
            pl->keep = (uint32_t)pl->nhosts;
            fuzz_stderr_off();
            rc = plan_load_instances(pl, path);
            fuzz_stderr_on();
            check_status(rc);
            check_fleet(pl);
        }
    } else if (data[0] == 'f') {
        const char *path = fuzz_scratch_file("flavors.json", p, n);
        fuzz_stderr_off();
        rc = plan_load_flavors(pl, path, data[1] == 's');
        fuzz_stderr_on();
        check_status(rc);
        if (rc == 0) {
            static numafit_host_t *host;
            if (!host)
                FUZZ_ASSERT(
                    numafit_host_new_synthetic("cells:2 cores:4 threads:2 mem:16G pages:2M=1024", 0,
                                               &host, NULL) == 0);
            for (unsigned i = 0; i < pl->nflavors && i < CHECK_FLAVORS; i++)
                if (pl->flavors[i].req)
                    fuzz_check_fit(host, 0, pl->flavors[i].req, NULL);
        }
    }
    plan_delete(pl);
    return 0;
}
