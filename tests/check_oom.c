/*
 * Allocation failures (jansson's test_chaos): every public constructor and
 * operation is run with its n-th allocation failing, for n = 1, 2, ... until
 * a run hits no failure. Each run must return -ENOMEM or give the same
 * answer as a run without failures (a tolerated failure), never crash, leave
 * its ret_ arguments untouched on error, free every block it allocated, and
 * leave the host exactly as it was after a failed claim or release.
 *
 * The test binary interposes malloc, calloc, realloc and free: the library
 * (linked statically from libnumafit-internal.la), jansson, libxml2 and libc
 * all allocate through them. The failure is armed only around the call under
 * test, so Check's own allocations and its fork mode are unaffected and the
 * library needs no hook or global state. Blocks allocated while armed are
 * tracked until they are freed, so leaks show without a sanitizer (the ASan
 * build's LeakSanitizer checks again at exit).
 *
 * NUMAFIT_OOM_VERBOSE=1 prints how many allocations each operation makes;
 * NUMAFIT_OOM_LARGE=1 adds the 24-cell host fixtures (slow); NUMAFIT_OOM_ALL=1
 * goes on after a misbehaving allocation and lists them all;
 * NUMAFIT_OOM_BACKTRACE=1 prints where the failing allocation was made when a
 * check fails (link with -rdynamic for function names, else use addr2line).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* RTLD_NEXT */
#endif
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_LIBVIRT
#include <libxml/xmlerror.h>
#endif

#include <numafit.h>

#include "testdata.h"

/* ------------------------------------------------------------ interposed allocator */
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static bool resolving;

static unsigned long oom_fail_at; /* the allocation that fails, 0 = none */
static unsigned long oom_seen;    /* allocations since oom_arm() */
static bool oom_armed, oom_hit, oom_skipped;
static void *oom_bt[64]; /* where the failing allocation was made */
static int oom_bt_len;

/* Blocks allocated while armed and not freed yet: open addressing, NULL =
 * empty, TOMB = deleted. Cleared at every oom_arm(). */
#define TRACK_SLOTS (1u << 18)
#define TOMB        ((void *)1)
static void *track[TRACK_SLOTS];
static size_t track_live, track_used;
static bool track_overflow;
/* NUMAFIT_OOM_BACKTRACE: where each tracked block was allocated */
#define TRACK_FRAMES 12
static void *(*track_bt)[TRACK_FRAMES];

static void resolve_one(void *fn, const char *name) {
    void *sym = dlsym(RTLD_NEXT, name);
    if (!sym)
        abort();
    memcpy(fn, &sym, sizeof(sym));
}

static void resolve(void) {
    resolving = true;
    resolve_one(&real_free, "free");
    resolve_one(&real_malloc, "malloc");
    resolve_one(&real_calloc, "calloc");
    resolve_one(&real_realloc, "realloc");
    resolving = false;
}

static size_t track_hash(const void *p) {
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x & (TRACK_SLOTS - 1);
}

static void track_add(void *p) {
    if (!p)
        return;
    if (track_used >= TRACK_SLOTS / 2) {
        track_overflow = true;
        return;
    }
    for (size_t i = track_hash(p);; i = (i + 1) & (TRACK_SLOTS - 1)) {
        if (track[i] == NULL || track[i] == TOMB) {
            if (track[i] == NULL)
                track_used++;
            track[i] = p;
            track_live++;
            if (track_bt) {
                bool armed = oom_armed;
                oom_armed = false;
                memset(track_bt[i], 0, sizeof(track_bt[i]));
                backtrace(track_bt[i], TRACK_FRAMES);
                oom_armed = armed;
            }
            return;
        }
    }
}

/* Remove p; true if it was tracked. */
static bool track_del(void *p) {
    if (!p || track_live == 0)
        return false;
    for (size_t i = track_hash(p); track[i] != NULL; i = (i + 1) & (TRACK_SLOTS - 1)) {
        if (track[i] == p) {
            track[i] = TOMB;
            track_live--;
            return true;
        }
    }
    return false;
}

/*
 * Allocations that are not failed, because the library it belongs to does
 * not survive it (the run must then give the reference answer):
 *  - jansson 2.14's parser, json_loadb() and json_loads(): its lexer ignores
 *    a failed append to its token buffer (akheron/jansson#362, open), so a
 *    string loses a byte ("nova_object.name" is read as "nova_object.nae")
 *    or a valid document is reported as malformed; a long number can trip
 *    an assert;
 *  - libxml2 2.9.14's xmlParserInputBufferCreateMem(): when copying the
 *    input fails it frees the input buffer but not its xmlBuf (two blocks
 *    leak).
 * NUMAFIT_OOM_THIRD_PARTY=1 fails them too.
 */
static const char *const third_party_names[] = {"json_loadb", "json_loads",
                                                "xmlParserInputBufferCreateMem"};
#define NTHIRD (sizeof(third_party_names) / sizeof(third_party_names[0]))
static struct { uintptr_t lo, hi; } third_party[NTHIRD];
static bool fail_third_party;

static void third_party_ranges(void) {
    for (size_t i = 0; i < NTHIRD; i++) {
        void *fn = dlsym(RTLD_DEFAULT, third_party_names[i]);
        Dl_info info;
        const ElfW(Sym) *sym = NULL;
        if (fn && dladdr1(fn, &info, (void **)&sym, RTLD_DL_SYMENT) && sym && sym->st_size) {
            third_party[i].lo = (uintptr_t)fn;
            third_party[i].hi = (uintptr_t)fn + sym->st_size;
        }
    }
}

/* Is a return address of the failing allocation's stack inside one of them? */
static bool in_third_party(void) {
    for (int f = 0; f < oom_bt_len; f++)
        for (size_t i = 0; i < NTHIRD; i++)
            if ((uintptr_t)oom_bt[f] > third_party[i].lo &&
                (uintptr_t)oom_bt[f] <= third_party[i].hi)
                return true;
    return false;
}

static bool oom_fail_now(void) {
    if (!oom_armed)
        return false;
    if (++oom_seen == oom_fail_at) {
        oom_armed = false; /* backtrace() must not count */
        oom_bt_len = backtrace(oom_bt, 64);
        oom_armed = true;
        if (!fail_third_party && in_third_party()) {
            oom_skipped = true;
            return false;
        }
        oom_hit = true;
        return true;
    }
    return false;
}

/* These replace libc's for the whole process (the test's own symbols come
 * first in the dynamic lookup). Prototypes come from <stdlib.h>. */
void *malloc(size_t size) {
    if (!real_malloc) {
        if (resolving)
            return NULL; /* dlsym's own bookkeeping: it copes with NULL */
        resolve();
    }
    if (oom_fail_now()) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = real_malloc(size);
    if (oom_armed)
        track_add(p);
    return p;
}

void *calloc(size_t n, size_t size) {
    if (!real_calloc) {
        if (resolving)
            return NULL;
        resolve();
    }
    if (oom_fail_now()) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = real_calloc(n, size);
    if (oom_armed)
        track_add(p);
    return p;
}

void *realloc(void *old, size_t size) {
    if (!real_realloc) {
        if (resolving)
            return NULL;
        resolve();
    }
    if ((old == NULL || size != 0) && oom_fail_now()) {
        errno = ENOMEM;
        return NULL; /* old is left as it was */
    }
    void *p = real_realloc(old, size);
    if (old == NULL) {
        if (oom_armed)
            track_add(p);
    } else if (p != NULL || size == 0) {
        /* a tracked block stays tracked at its new address */
        if (track_del(old))
            track_add(p);
    }
    return p;
}

void free(void *p) {
    if (!p)
        return;
    if (!real_free) {
        if (resolving)
            return; /* cannot happen: free is resolved first */
        resolve();
    }
    track_del(p);
    real_free(p);
}

static void oom_arm(unsigned long fail_at) {
    memset(track, 0, sizeof(track));
    track_live = track_used = 0;
    track_overflow = false;
    oom_fail_at = fail_at;
    oom_seen = 0;
    oom_hit = oom_skipped = false;
    oom_armed = true;
}

/* A check failed: say where the failing allocation was made. */
static void oom_dump_backtrace(void) {
    if (getenv("NUMAFIT_OOM_BACKTRACE") && oom_hit && oom_bt_len > 0) {
        fprintf(stderr, "allocation %lu failed at:\n", oom_fail_at);
        backtrace_symbols_fd(oom_bt, oom_bt_len, 2);
    }
}

/* A leak: say where the blocks still tracked were allocated. */
static void oom_dump_leaks(void) {
    if (!track_bt)
        return;
    for (size_t i = 0; i < TRACK_SLOTS; i++) {
        if (track[i] == NULL || track[i] == TOMB)
            continue;
        int n = 0;
        while (n < TRACK_FRAMES && track_bt[i][n])
            n++;
        fprintf(stderr, "leaked block %p allocated at:\n", track[i]);
        backtrace_symbols_fd(track_bt[i], n, 2);
    }
}

/* Stop failing and tracking; returns whether the failure was hit. */
static bool oom_disarm(void) {
    oom_armed = false;
    return oom_hit;
}

/* Whether the run reached the allocation to fail (failed or skipped). */
static bool oom_reached(void) {
    return oom_hit || oom_skipped;
}

/* ------------------------------------------------------------ inputs */

static void data_path(char *out, size_t cap, const char *rel) {
    const char *top = getenv("top_srcdir");
    snprintf(out, cap, "%s/tests/data/%s", top ? top : ".", rel);
}

/* ------------------------------------------------------------ the harness */
static char sentinel_byte;
#define SENT ((void *)&sentinel_byte)

/* One operation's inputs (borrowed) and outputs (SENT until written). */
struct ctx {
    const char *what;
    const char *text;
    size_t len;
    const char *text2;
    size_t len2;
    unsigned flags;
    const numafit_host_t *host;
    const numafit_request_t *req;
    const numafit_options_t *opt;
    const numafit_placement_t *pl;
    const numafit_cpuset_t *set;
    const numafit_hostconf_t *hconf;
    const numafit_domconf_t *dconf;
    const char *const *doms; /* numafit_doctor_domains() */
    const size_t *dlens;
    size_t ndoms;
    bool mutate;            /* claim/release: target is a fresh copy of host each run */
    bool varies;            /* the output differs between runs (a fresh uuid) */
    const char *known_bug;  /* an open library bug: the operation is skipped */
    const char *reterr_bug; /* an open bug: reterr->code is not checked on -ENOMEM */
    bool quiet;             /* nothing may reach stderr (libxml2 prints by default) */
    numafit_host_t *target;
    numafit_host_t *o_host;
    numafit_request_t *o_req;
    numafit_placement_t *o_pl;
    numafit_cpuset_t *o_set;
    numafit_options_t *o_opt;
    numafit_hostconf_t *o_hconf;
    numafit_domconf_t *o_dconf;
    char *o_str;
    numafit_error_t err;
};

typedef int (*op_fn)(struct ctx *c);

/* The operations without a reterr argument. */
static int op_host_dup(struct ctx *c);
static int op_host_cell_cpus(struct ctx *c);
static int op_host_cell_siblings(struct ctx *c);
static int op_request_dup(struct ctx *c);
static int op_placement_dup(struct ctx *c);
static int op_cpuset_format(struct ctx *c);
static int op_cpuset_dup(struct ctx *c);

static void prepare(struct ctx *c) {
    c->o_host = SENT;
    c->o_req = SENT;
    c->o_pl = SENT;
    c->o_set = SENT;
    c->o_opt = SENT;
    c->o_hconf = SENT;
    c->o_dconf = SENT;
    c->o_str = SENT;
    memset(&c->err, 0, sizeof(c->err));
    c->target = NULL;
    if (c->mutate)
        ck_assert_int_eq(numafit_host_dup(c->host, &c->target), 0);
}

static bool outputs_untouched(const struct ctx *c) {
    return c->o_host == SENT && c->o_req == SENT && c->o_pl == SENT && c->o_set == SENT &&
           c->o_opt == SENT && c->o_hconf == SENT && c->o_dconf == SENT && c->o_str == SENT;
}

static void append(char *buf, size_t cap, const char *tag, char *s) {
    size_t n = strlen(buf);
    snprintf(buf + n, cap - n, " %s=%s", tag, s ? s : "(null)");
    numafit_free(s);
}

/* What the run produced, as text (not armed). */
static char *summary(struct ctx *c, int rc) {
    size_t cap = 1u << 22;
    char *buf = malloc(cap), *s;
    ck_assert_ptr_nonnull(buf);
    snprintf(buf, cap, "rc=%d exception=%s", rc, rc < 0 ? c->err.exception : "");
    if (c->o_host != SENT && c->o_host) {
        s = NULL;
        ck_assert_int_eq(numafit_host_to_json(c->o_host, 0, &s, NULL), 0);
        append(buf, cap, "host", s);
    }
    if (c->o_req != SENT && c->o_req) {
        s = NULL;
        ck_assert_int_eq(numafit_request_to_json(c->o_req, 0, &s, NULL), 0);
        append(buf, cap, "request", s);
    }
    if (c->o_pl != SENT && c->o_pl) {
        s = NULL;
        ck_assert_int_eq(numafit_placement_to_json(c->o_pl, 0, &s, NULL), 0);
        append(buf, cap, "placement", s);
    }
    if (c->o_set != SENT && c->o_set) {
        s = NULL;
        ck_assert_int_eq(numafit_cpuset_format(c->o_set, 0, &s), 0);
        append(buf, cap, "cpuset", s);
    }
    if (c->o_str != SENT && !c->varies) {
        size_t n = strlen(buf);
        snprintf(buf + n, cap - n, " string=%s", c->o_str ? c->o_str : "(null)");
    }
    if (c->target) {
        s = NULL;
        ck_assert_int_eq(numafit_host_to_json(c->target, 0, &s, NULL), 0);
        append(buf, cap, "target", s);
    }
    return buf;
}

static void drop(struct ctx *c) {
    if (c->o_host != SENT)
        numafit_host_free(c->o_host);
    if (c->o_req != SENT)
        numafit_request_free(c->o_req);
    if (c->o_pl != SENT)
        numafit_placement_free(c->o_pl);
    if (c->o_set != SENT)
        numafit_cpuset_free(c->o_set);
    if (c->o_opt != SENT)
        numafit_options_free(c->o_opt);
    if (c->o_hconf != SENT)
        numafit_hostconf_free(c->o_hconf);
    if (c->o_dconf != SENT)
        numafit_domconf_free(c->o_dconf);
    if (c->o_str != SENT)
        numafit_free(c->o_str);
    numafit_host_free(c->target);
    c->target = NULL;
#ifdef HAVE_LIBVIRT
    /* libxml2 keeps the thread's last error (strings it allocated) until
     * the next one: its state, not a leak of the call */
    xmlResetLastError();
#endif
}

/*
 * Run op once without failures (first untracked, so that jansson and
 * libxml2 set up whatever they keep for the process), once tracked as the
 * reference, then with allocation n failing for n = 1, 2, ... until a run
 * hits no failure. Returns the number of allocations the operation makes.
 */
static unsigned long oom_loop(struct ctx *c, op_fn op) {
    const bool keep_going = getenv("NUMAFIT_OOM_ALL") != NULL;
    int rc, ref_rc;
    bool reterr_noted = false;

    if (c->known_bug && !getenv("NUMAFIT_OOM_KNOWN_BUGS")) {
        printf("%s: skipped, known bug (NUMAFIT_OOM_KNOWN_BUGS=1 runs it): %s\n", c->what,
               c->known_bug);
        return 0;
    }
    char *ref, *got = NULL, why[5000];
    unsigned long n, nfailed = 0;

    prepare(c);
    rc = op(c);
    drop(c);

    prepare(c);
    oom_arm(0);
    ref_rc = op(c);
    oom_disarm();
    ref = summary(c, ref_rc);
    drop(c);
    ck_assert_msg(!track_overflow, "%s: too many blocks to track", c->what);
    ck_assert_msg(track_live == 0, "%s: %zu blocks leaked without any failure (rc %d)", c->what,
                  track_live, ref_rc);
    ck_assert_msg(rc == ref_rc, "%s: rc %d then %d", c->what, rc, ref_rc);
    const unsigned long total = oom_seen;

    for (n = 1;; n++) {
        int saved_stderr = -1;
        FILE *caught = NULL;
        why[0] = '\0';
        prepare(c);
        if (c->quiet) {
            /* stderr into a file while the operation runs */
            fflush(stderr);
            ck_assert_ptr_nonnull(caught = tmpfile());
            ck_assert_int_ge(saved_stderr = dup(STDERR_FILENO), 0);
            ck_assert_int_ge(dup2(fileno(caught), STDERR_FILENO), 0);
        }
        oom_arm(n);
        rc = op(c);
        const bool hit = oom_disarm(), reached = oom_reached();
        char printed[200] = "";
        if (c->quiet) {
            fflush(stderr);
            ck_assert_int_ge(dup2(saved_stderr, STDERR_FILENO), 0);
            close(saved_stderr);
            rewind(caught);
            if (!fgets(printed, sizeof(printed), caught))
                printed[0] = '\0';
            fclose(caught);
        }
        if (printed[0])
            snprintf(why, sizeof(why), "printed to stderr: %s", printed);
        else if (rc < 0 && rc != ref_rc && !hit)
            snprintf(why, sizeof(why), "rc %d without a failure", rc);
        else if (rc < 0 && rc != ref_rc && rc != -ENOMEM)
            snprintf(why, sizeof(why), "rc %d (%s: %s), want -ENOMEM or %d", rc,
                     numafit_strerror(rc), c->err.text, ref_rc);
        else if (rc < 0 && !outputs_untouched(c))
            snprintf(why, sizeof(why), "rc %d, but a ret_ argument was written", rc);
        else if (rc < 0 && c->mutate && numafit_host_equal(c->target, c->host) != 1)
            snprintf(why, sizeof(why), "rc %d, and the host was changed", rc);
        else if (rc < 0 && rc != ref_rc && c->err.code != NUMAFIT_E_NOMEM && c->reterr_bug) {
            if (!reterr_noted)
                printf("%s: reterr not checked, known bug: %s\n", c->what, c->reterr_bug);
            reterr_noted = true;
        } else if (rc < 0 && rc != ref_rc && c->err.code != NUMAFIT_E_NOMEM && op != op_host_dup &&
                   op != op_request_dup && op != op_placement_dup && op != op_cpuset_format &&
                   op != op_cpuset_dup && op != op_host_cell_cpus && op != op_host_cell_siblings)
            snprintf(why, sizeof(why), "-ENOMEM, but reterr->code %d (%s)", c->err.code,
                     numafit_error_code_name(c->err.code));
        else if (rc == ref_rc && strcmp((got = summary(c, rc)), ref) != 0)
            snprintf(why, sizeof(why), "a different answer\n got %.2400s\nwant %.2400s", got, ref);
        free(got);
        got = NULL;
        drop(c);
        if (!why[0] && track_overflow)
            snprintf(why, sizeof(why), "too many blocks to track");
        if (!why[0] && track_live) {
            oom_dump_leaks();
            snprintf(why, sizeof(why), "rc %d, %zu blocks leaked", rc, track_live);
        }
        if (why[0]) {
            oom_dump_backtrace();
            nfailed++;
            if (keep_going)
                printf("%s: allocation %lu failing: %s\n", c->what, n, why);
            else {
                free(ref);
                ck_abort_msg("%s: allocation %lu failing: %s", c->what, n, why);
            }
        }
        if (!reached)
            break;
        ck_assert_msg(n < 10000000, "%s: no end", c->what);
    }
    free(ref);
    if (getenv("NUMAFIT_OOM_VERBOSE"))
        printf("%-48s %6lu allocations, %lu runs\n", c->what, total, n);
    ck_assert_msg(!nfailed, "%s: %lu failing allocations misbehave", c->what, nfailed);
    return total;
}

/* ------------------------------------------------------------ operations */
static int op_host_json(struct ctx *c) {
    return numafit_host_new_from_json(c->text, c->len, c->flags, &c->o_host, &c->err);
}
static int op_host_synthetic(struct ctx *c) {
    return numafit_host_new_synthetic(c->text, c->flags, &c->o_host, &c->err);
}
static int op_host_to_json(struct ctx *c) {
    return numafit_host_to_json(c->host, c->flags, &c->o_str, &c->err);
}
static int op_host_dup(struct ctx *c) {
    return numafit_host_dup(c->host, &c->o_host);
}
static int op_host_cell_cpus(struct ctx *c) {
    return numafit_host_get_cell_cpus(c->host, 0, NUMAFIT_CELL_CPUS_FREE, 0, &c->o_set);
}
static int op_host_cell_siblings(struct ctx *c) {
    return numafit_host_get_cell_siblings(c->host, 0, 0, 0, &c->o_set);
}
static int op_request(struct ctx *c) {
    return numafit_request_new(c->text, c->len, c->text2, c->len2, c->flags, &c->o_req, &c->err);
}
static int op_request_to_json(struct ctx *c) {
    return numafit_request_to_json(c->req, c->flags, &c->o_str, &c->err);
}
static int op_flavor_normalize(struct ctx *c) {
    return numafit_flavor_normalize(c->text, c->len, 0, &c->o_str, NULL, &c->err);
}
static int op_image_normalize(struct ctx *c) {
    return numafit_image_normalize(c->text, c->len, 0, &c->o_str, NULL, &c->err);
}
static int op_request_dup(struct ctx *c) {
    return numafit_request_dup(c->req, &c->o_req);
}
static int op_options(struct ctx *c) {
    numafit_options_t *o;
    int rc = numafit_options_new(&o);
    if (rc < 0) {
        c->err.code = NUMAFIT_E_NOMEM; /* no reterr argument */
        return rc;
    }
    if ((rc = numafit_options_set_limits_json(o, c->text, c->len, &c->err)) < 0) {
        numafit_options_free(o);
        return rc;
    }
    c->o_opt = o;
    return 0;
}
static int op_fit(struct ctx *c) {
    return numafit_fit(c->host, c->req, c->opt, c->flags, &c->o_pl, &c->err);
}
static int op_fit_cell(struct ctx *c) {
    /* the first guest cell on the first host cell, two emulator pCPUs */
    return numafit_fit_cell(c->host, 0, c->req, 0, 2, c->opt, c->flags, &c->o_pl, &c->err);
}
static int op_fit_explain(struct ctx *c) {
    return numafit_fit_explain(c->host, c->req, c->opt, c->flags, &c->o_str, &c->err);
}
static int op_placement_to_json(struct ctx *c) {
    return numafit_placement_to_json(c->pl, c->flags, &c->o_str, &c->err);
}
static int op_placement_from_json(struct ctx *c) {
    return numafit_placement_new_from_json(c->text, c->len, c->flags, &c->o_pl, &c->err);
}
static int op_placement_dup(struct ctx *c) {
    return numafit_placement_dup(c->pl, &c->o_pl);
}
static int op_claim(struct ctx *c) {
    return numafit_host_claim(c->target, c->pl, c->flags, &c->err);
}
static int op_release(struct ctx *c) {
    return numafit_host_release(c->target, c->pl, c->flags, &c->err);
}
static int op_cpuset_parse(struct ctx *c) {
    return numafit_cpuset_parse(c->text, c->flags, &c->o_set, &c->err);
}
static int op_cpuset_format(struct ctx *c) {
    return numafit_cpuset_format(c->set, c->flags, &c->o_str);
}
static int op_cpuset_dup(struct ctx *c) {
    return numafit_cpuset_dup(c->set, &c->o_set);
}
static int op_topology_list(struct ctx *c) {
    return numafit_cpu_topology_list(c->text, c->len, c->text2, c->len2, c->flags, &c->o_str,
                                     &c->err);
}
static int op_topology_constraints(struct ctx *c) {
    return numafit_cpu_topology_constraints(c->text, c->len, c->text2, c->len2, c->flags, &c->o_str,
                                            &c->err);
}
static int op_domconf(struct ctx *c) {
    numafit_domconf_t *d;
    int rc = numafit_domconf_new(&d);
    if (rc < 0) {
        c->err.code = NUMAFIT_E_NOMEM; /* no reterr argument */
        return rc;
    }
    if ((rc = numafit_domconf_set_cpu_shared_set(d, c->text, &c->err)) < 0 ||
        (rc = numafit_domconf_set_online_cpus(d, "0-15", &c->err)) < 0 ||
        (rc = numafit_domconf_set_domain_type(d, "qemu")) < 0 ||
        (rc = numafit_domconf_set_name(d, "instance-0000002a")) < 0) {
        numafit_domconf_free(d);
        return rc;
    }
    c->o_dconf = d;
    return 0;
}
static int op_domain_xml(struct ctx *c) {
    return numafit_domain_xml(c->host, c->req, c->pl, c->text, c->len, c->text2, c->len2, c->dconf,
                              c->flags, &c->o_str, &c->err);
}
static int op_disk_iotune(struct ctx *c) {
    return numafit_domain_disk_iotune_xml(c->text, c->len, c->flags, &c->o_str, &c->err);
}
static int op_interface_bandwidth(struct ctx *c) {
    return numafit_domain_interface_bandwidth_xml(c->text, c->len, c->flags, &c->o_str, &c->err);
}
static int op_hostconf(struct ctx *c) {
    numafit_hostconf_t *h;
    int rc = numafit_hostconf_new(&h);
    if (rc < 0) {
        c->err.code = NUMAFIT_E_NOMEM; /* no reterr argument */
        return rc;
    }
    if ((rc = numafit_hostconf_set_cpu_dedicated_set(h, "4-11", &c->err)) < 0 ||
        (rc = numafit_hostconf_set_cpu_shared_set(h, "0-3,12-15", &c->err)) < 0 ||
        (rc = numafit_hostconf_add_reserved_huge_pages(h, "node:0,size:1GB,count:1", &c->err)) <
            0 ||
        (rc = numafit_hostconf_add_physnet(h, "physnet1", "0", &c->err)) < 0 ||
        (rc = numafit_hostconf_add_physnet(h, "physnet2", "0,1", &c->err)) < 0 ||
        (rc = numafit_hostconf_set_tunnel_numa_nodes(h, "1", &c->err)) < 0) {
        numafit_hostconf_free(h);
        return rc;
    }
    c->o_hconf = h;
    return 0;
}
static int op_caps_xml(struct ctx *c) {
    return numafit_host_new_from_caps_xml(c->text, c->len, c->hconf, c->text2, c->flags, &c->o_host,
                                          &c->err);
}
static int op_sysfs(struct ctx *c) {
    return numafit_host_new_from_sysfs(c->text, c->hconf, c->flags, &c->o_host, &c->err);
}
static int op_doctor(struct ctx *c) {
    return numafit_doctor(c->text, c->text2, c->len2, c->flags, &c->o_str, &c->err);
}
static int op_doctor_domains(struct ctx *c) {
    return numafit_doctor_domains(c->text, c->text2, c->len2, c->doms, c->dlens, c->ndoms, c->flags,
                                  &c->o_str, &c->err);
}

/* ------------------------------------------------------------ fixtures */
static numafit_host_t *load_host(const char *file) {
    char rel[256];
    size_t len;
    numafit_host_t *h = NULL;
    numafit_error_t e;
    snprintf(rel, sizeof(rel), "hosts/%s", file);
    char *buf = test_slurp(rel, &len);
    ck_assert_msg(numafit_host_new_from_json(buf, len, 0, &h, &e) == 0, "%s: %s", file, e.text);
    free(buf);
    return h;
}

static numafit_request_t *make_request(const char *flavor, const char *image) {
    numafit_request_t *r = NULL;
    numafit_error_t e;
    int rc =
        numafit_request_new(flavor, strlen(flavor), image, image ? strlen(image) : 0, 0, &r, &e);
    ck_assert_msg(rc == 1, "%s: rc %d %s %s", flavor, rc, e.exception, e.text);
    return r;
}

static numafit_options_t *make_options(const char *limits) {
    numafit_options_t *o = NULL;
    numafit_error_t e;
    ck_assert_int_eq(numafit_options_new(&o), 0);
    if (limits)
        ck_assert_msg(numafit_options_set_limits_json(o, limits, strlen(limits), &e) == 0, "%s",
                      e.text);
    return o;
}

#define FLAVOR(vcpus, mem, specs)                                                                  \
    "{\"vcpus\":" #vcpus ",\"memory_mb\":" #mem ",\"extra_specs\":{" specs "}}"

/* Fit scenarios: a host (synthetic spec, or @file in tests/data/hosts), a
 * flavor, an image (or NULL) and limits (or NULL). Each one fits. */
struct scenario {
    const char *name;
    const char *host;
    const char *flavor;
    const char *image;
    const char *limits;
};

static const struct scenario scenarios[] = {
    {"seed_rt", "@rh2288h-v3.json",
     FLAVOR(4, 8192,
            "\"hw:cpu_policy\":\"dedicated\",\"hw:cpu_realtime\":\"yes\","
            "\"hw:cpu_realtime_mask\":\"^0-1\",\"hw:mem_page_size\":\"1GB\""),
     NULL, NULL},
    {"isolate_emulator", "cells:2 cores:4 threads:2 mem:16G pages:2M=1024",
     FLAVOR(3, 2048,
            "\"hw:cpu_policy\":\"dedicated\",\"hw:cpu_thread_policy\":\"isolate\","
            "\"hw:emulator_threads_policy\":\"isolate\""),
     NULL, NULL},
    {"two_cells_image", "@e5-2620-ht.json", FLAVOR(8, 4096, "\"hw:cpu_policy\":\"dedicated\""),
     "{\"properties\":{\"hw_numa_nodes\":2,\"hw_numa_cpus.0\":\"0-5\",\"hw_numa_mem.0\":3072,"
     "\"hw_numa_cpus.1\":\"6,7\",\"hw_numa_mem.1\":1024,\"hw_cpu_thread_policy\":\"require\"}}",
     NULL},
    {"mixed",
     "cells:2 cores:8 threads:2 mem:64G pages:1G=4,2M=512 dedicated:2-7,18-23,10-15,26-31 "
     "shared:0-1,16-17,8-9,24-25",
     FLAVOR(6, 1024,
            "\"hw:cpu_policy\":\"mixed\",\"hw:cpu_dedicated_mask\":\"^0-1\","
            "\"hw:mem_page_size\":\"2MB\",\"hw:numa_nodes\":\"2\""),
     NULL, NULL},
    {"shared_limits_network", "cells:2 cores:8 threads:2 mem:64G",
     FLAVOR(4, 4096, "\"hw:numa_nodes\":\"1\",\"hw:mem_page_size\":\"small\""), NULL,
     "{\"cpu_allocation_ratio\":4.0,\"ram_allocation_ratio\":1.5,"
     "\"network_metadata\":{\"physnets\":[\"foo\",\"bar\"],\"tunneled\":true}}"},
    {"epyc_24_cells", "@epyc-24node.json",
     FLAVOR(24, 16384, "\"hw:cpu_policy\":\"dedicated\",\"hw:numa_nodes\":\"4\""), NULL, NULL},
};

static numafit_host_t *scenario_host(const char *spec) {
    numafit_host_t *h = NULL;
    numafit_error_t e;
    if (spec[0] == '@')
        return load_host(spec + 1);
    ck_assert_msg(numafit_host_new_synthetic(spec, 0, &h, &e) == 0, "%s: %s", spec, e.text);
    return h;
}

/* ------------------------------------------------------------ tests */
static const char *const host_files[] = {
    "rh2288h-v3.json",  "e5-2620-ht.json",  "sugon-i620-g30.json",
    "legacy-dict.json", "epyc-24node.json",
};

START_TEST(host_from_json) {
    char rel[256];
    size_t len;
    snprintf(rel, sizeof(rel), "hosts/%s", host_files[_i]);
    char *buf = test_slurp(rel, &len);
    struct ctx c = {.what = host_files[_i], .text = buf, .len = len};
    oom_loop(&c, op_host_json);

    /* the DB column form (the primitive in a JSON string), written and read back */
    numafit_host_t *h = NULL;
    char *s = NULL;
    ck_assert_int_eq(numafit_host_new_from_json(buf, len, 0, &h, NULL), 0);
    ck_assert_int_eq(numafit_host_to_json(h, NUMAFIT_HOST_JSON_STRING, &s, NULL), 0);
    struct ctx c2 = {.what = "host_from_json(string form)", .text = s, .len = strlen(s)};
    oom_loop(&c2, op_host_json);
    numafit_free(s);
    numafit_host_free(h);
    free(buf);
}
END_TEST

START_TEST(host_synthetic) {
    static const char *const specs[] = {
        "cells:2 cores:8 threads:2 mem:64G pages:1G=4,2M=512 dedicated:2-7,18-23 shared:0-1,16-17",
        "cells:1",
        "cells:4 sockets:2 cores:6 threads:2 mem:32G pages:2M=1024",
    };
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
        struct ctx c = {.what = specs[i], .text = specs[i]};
        oom_loop(&c, op_host_synthetic);
    }
}
END_TEST

START_TEST(host_to_json_dup_queries) {
    numafit_host_t *h = load_host(host_files[_i]);
    static const unsigned flags[] = {0, NUMAFIT_HOST_JSON_STRING, NUMAFIT_JSON_INDENT};
    for (size_t i = 0; i < 3; i++) {
        struct ctx c = {.what = "host_to_json", .host = h, .flags = flags[i]};
        oom_loop(&c, op_host_to_json);
    }
    struct ctx c = {.what = "host_dup", .host = h};
    oom_loop(&c, op_host_dup);
    c.what = "host_get_cell_cpus";
    oom_loop(&c, op_host_cell_cpus);
    c.what = "host_get_cell_siblings";
    oom_loop(&c, op_host_cell_siblings);
    numafit_host_free(h);
}
END_TEST

START_TEST(request_new) {
    static const struct {
        const char *flavor, *image;
        unsigned flags;
    } reqs[] = {
        {FLAVOR(8, 2048, "\"hw:numa_nodes\":\"2\""), NULL, 0},
        {FLAVOR(4, 8192,
                "\"hw:cpu_policy\":\"dedicated\",\"hw:cpu_realtime\":\"yes\","
                "\"hw:cpu_realtime_mask\":\"^0-1\",\"hw:mem_page_size\":\"1GB\","
                "\"hw:emulator_threads_policy\":\"share\",\"hw:pmem\":\"4GB,4GB\""),
         NULL, 0},
        {FLAVOR(8, 2048,
                "\"hw:numa_nodes\":\"3\",\"hw:numa_cpus.0\":\"0-3\",\"hw:numa_mem.0\":\"1024\","
                "\"hw:numa_cpus.1\":\"4,6\",\"hw:numa_mem.1\":\"512\","
                "\"hw:numa_cpus.2\":\"5,7\",\"hw:numa_mem.2\":\"512\""),
         NULL, NUMAFIT_REQUEST_ZED},
        {FLAVOR(8, 2048, "\"hw:cpu_policy\":\"mixed\",\"hw:cpu_dedicated_mask\":\"^0-1\""), NULL,
         0},
        {FLAVOR(8, 2048, ""),
         "{\"properties\":{\"hw_numa_nodes\":3,\"hw_numa_cpus\":[[0,1,2,3],[4,6],[5,7]],"
         "\"hw_numa_mem\":[1024,512,512],\"hw_cpu_policy\":\"dedicated\"}}",
         0},
        /* refused by nova (ImageNUMATopologyAsymmetric): -EINVAL throughout */
        {FLAVOR(8, 2048, "\"hw:numa_nodes\":\"3\""), NULL, 0},
        /* no NUMA topology (rc 0) */
        {FLAVOR(2, 512, ""), NULL, 0},
    };
    for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
        struct ctx c = {.what = reqs[i].flavor,
                        .text = reqs[i].flavor,
                        .len = strlen(reqs[i].flavor),
                        .text2 = reqs[i].image,
                        .len2 = reqs[i].image ? strlen(reqs[i].image) : 0,
                        .flags = reqs[i].flags};
        oom_loop(&c, op_request);
        numafit_request_t *r = NULL;
        if (numafit_request_new(c.text, c.len, c.text2, c.len2, c.flags, &r, NULL) >= 0) {
            struct ctx d = {.what = "request_to_json", .req = r};
            oom_loop(&d, op_request_to_json);
            d.what = "request_dup";
            oom_loop(&d, op_request_dup);
            numafit_request_free(r);
        }
        struct ctx t = {.what = "cpu_topology_list",
                        .text = reqs[i].flavor,
                        .len = strlen(reqs[i].flavor),
                        .text2 = reqs[i].image,
                        .len2 = reqs[i].image ? strlen(reqs[i].image) : 0};
        oom_loop(&t, op_topology_list);
        t.what = "cpu_topology_constraints";
        oom_loop(&t, op_topology_constraints);
    }
}
END_TEST

/* the forms of flavors and images (flavor_forms.c): each of them, text
 * properties, and refusals */
START_TEST(forms) {
    static const struct {
        const char *text;
        bool image;
    } docs[] = {
        {"{\"vcpus\":4,\"memory_mb\":8192,\"extra_specs\":{\"hw:cpu_policy\":\"dedicated\"}}",
         false},
        {"{\"ram\":8192,\"vcpus\":4,\"disk\":20,\"swap\":\"\",\"OS-FLV-EXT-DATA:ephemeral\":0,"
         "\"name\":\"rt\",\"properties\":\"hw:cpu_policy='dedicated', "
         "pci_passthrough:alias='a1:2,a2:1', x='it's'\"}",
         false},
        {"{\"flavor\":{\"ram\":8192,\"vcpus\":4,\"extra_specs\":{\"hw:numa_nodes\":\"2\"}}}",
         false},
        {"{\"ram\":1,\"vcpus\":1,\"properties\":\"a='1', a='2'\"}", false},
        {"{\"vcpus\":1,\"memory_mb\":1,\"properties\":{}}", false},
        {"{\"id\":\"i\",\"status\":\"active\",\"hw_numa_nodes\":\"2\","
         "\"properties\":\"hw_cpu_policy='dedicated'\"}",
         true},
        {"{\"id\":\"i\",\"hw_numa_nodes\":\"2\",\"properties\":{\"hw_numa_nodes\":\"1\"}}", true},
        {"{\"properties\":{\"hw_cpu_policy\":\"dedicated\"}}", true},
    };
    for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
        struct ctx c = {.what = docs[i].text, .text = docs[i].text, .len = strlen(docs[i].text)};
        oom_loop(&c, docs[i].image ? op_image_normalize : op_flavor_normalize);
    }
}
END_TEST

START_TEST(options) {
    static const char *const limits[] = {
        "{\"cpu_allocation_ratio\":16.0,\"ram_allocation_ratio\":1.5}",
        "{\"cpu_allocation_ratio\":4.0,\"ram_allocation_ratio\":1.0,"
        "\"network_metadata\":{\"physnets\":[\"foo\",\"bar\",\"baz\"],\"tunneled\":true}}",
        "null",
    };
    for (size_t i = 0; i < 3; i++) {
        struct ctx c = {.what = limits[i], .text = limits[i], .len = strlen(limits[i])};
        oom_loop(&c, op_options);
    }
}
END_TEST

/* fit, explain, both JSON forms, read back, claim and release. */
START_TEST(fit_claim_release) {
    const struct scenario *s = &scenarios[_i];
    numafit_host_t *h = scenario_host(s->host), *claimed = NULL;
    numafit_request_t *r = make_request(s->flavor, s->image);
    numafit_options_t *o = make_options(s->limits);
    numafit_placement_t *p = NULL;
    numafit_error_t e;
    char what[128];

    ck_assert_msg(numafit_fit(h, r, o, 0, &p, &e) == 1, "%s: no fit: %s", s->name, e.text);
    struct ctx c = {.what = what, .host = h, .req = r, .opt = o, .pl = p};

    snprintf(what, sizeof(what), "%s: fit", s->name);
    oom_loop(&c, op_fit);
    {
        /* the headroom strategy, the request itself as its mix: the
         * candidates' host copies and counting fits */
        numafit_options_t *ho = NULL;
        const numafit_request_t *mix[1] = {r};
        double w = 1;
        ck_assert_int_eq(o ? numafit_options_dup(o, &ho) : numafit_options_new(&ho), 0);
        ck_assert_int_eq(numafit_options_set_strategy(ho, NUMAFIT_STRATEGY_HEADROOM), 0);
        ck_assert_int_eq(numafit_options_set_headroom_mix(ho, mix, &w, 1, NULL), 0);
        c.opt = ho;
        snprintf(what, sizeof(what), "%s: fit(headroom)", s->name);
        oom_loop(&c, op_fit);
        c.opt = o;
        numafit_options_free(ho);
    }
    snprintf(what, sizeof(what), "%s: fit_cell", s->name);
    oom_loop(&c, op_fit_cell);
    snprintf(what, sizeof(what), "%s: fit_explain", s->name);
    oom_loop(&c, op_fit_explain);

    snprintf(what, sizeof(what), "%s: placement_to_json", s->name);
    oom_loop(&c, op_placement_to_json);
    snprintf(what, sizeof(what), "%s: placement_to_json(nova, fresh uuid)", s->name);
    c.flags = NUMAFIT_PLACEMENT_JSON_NOVA;
    c.varies = true;
    oom_loop(&c, op_placement_to_json);
    c.varies = false;
    ck_assert_int_eq(numafit_placement_set_uuid(p, "4b3fdc5a-3b5e-4a43-b8d6-1b0c7a3f2e11"), 0);
    snprintf(what, sizeof(what), "%s: placement_to_json(nova)", s->name);
    oom_loop(&c, op_placement_to_json);
    c.flags = 0;

    char *nova = NULL;
    ck_assert_int_eq(numafit_placement_to_json(p, NUMAFIT_PLACEMENT_JSON_NOVA, &nova, NULL), 0);
    c.text = nova;
    c.len = strlen(nova);
    snprintf(what, sizeof(what), "%s: placement_new_from_json", s->name);
    oom_loop(&c, op_placement_from_json);
    c.text = NULL;
    c.len = 0;
    snprintf(what, sizeof(what), "%s: placement_dup", s->name);
    oom_loop(&c, op_placement_dup);

    c.mutate = true;
    snprintf(what, sizeof(what), "%s: host_claim", s->name);
    oom_loop(&c, op_claim);

    ck_assert_int_eq(numafit_host_dup(h, &claimed), 0);
    ck_assert_int_eq(numafit_host_claim(claimed, p, 0, &e), 0);
    c.host = claimed;
    snprintf(what, sizeof(what), "%s: host_release", s->name);
    oom_loop(&c, op_release);

    /* a placement read back from nova's JSON releases and claims the same */
    numafit_placement_t *back = NULL;
    ck_assert_int_eq(numafit_placement_new_from_json(nova, strlen(nova), 0, &back, &e), 0);
    c.pl = back;
    snprintf(what, sizeof(what), "%s: host_release(from json)", s->name);
    oom_loop(&c, op_release);
    c.host = h;
    snprintf(what, sizeof(what), "%s: host_claim(from json)", s->name);
    oom_loop(&c, op_claim);

    numafit_placement_free(back);
    numafit_free(nova);
    numafit_host_free(claimed);
    numafit_placement_free(p);
    numafit_options_free(o);
    numafit_request_free(r);
    numafit_host_free(h);
}
END_TEST

START_TEST(domain_xml) {
    const char *flavor =
        FLAVOR(4, 8192,
               "\"hw:cpu_policy\":\"dedicated\",\"hw:cpu_realtime\":\"yes\","
               "\"hw:cpu_realtime_mask\":\"^0-1\",\"hw:mem_page_size\":\"1GB\","
               "\"hw:emulator_threads_policy\":\"share\",\"hw:cpu_sockets\":\"2\","
               "\"quota:cpu_shares\":\"2048\",\"quota:cpu_period\":\"20000\","
               "\"quota:disk_read_bytes_sec\":\"10240000\",\"quota:disk_write_iops_sec\":\"100\","
               "\"quota:vif_inbound_average\":\"1000\",\"quota:vif_inbound_peak\":\"2000\","
               "\"quota:vif_outbound_average\":\"500\"");
    const char *image = "{\"properties\":{\"hw_cpu_max_threads\":1}}";
    numafit_host_t *h = load_host("rh2288h-v3.json");
    numafit_request_t *r = make_request(flavor, NULL);
    numafit_placement_t *p = NULL;
    numafit_domconf_t *d = NULL;
    numafit_error_t e;

    struct ctx k = {.what = "domconf", .text = "0-3,12-15"};
    oom_loop(&k, op_domconf);

    ck_assert_msg(numafit_fit(h, r, NULL, 0, &p, &e) == 1, "no fit: %s", e.text);
    ck_assert_int_eq(numafit_domconf_new(&d), 0);
    ck_assert_int_eq(numafit_domconf_set_cpu_shared_set(d, "0-3,12-15", &e), 0);
    struct ctx c = {.what = "domain_xml",
                    .host = h,
                    .req = r,
                    .pl = p,
                    .text = flavor,
                    .len = strlen(flavor),
                    .text2 = image,
                    .len2 = strlen(image),
                    .dconf = d};
    oom_loop(&c, op_domain_xml);
    c.what = "domain_xml(full)";
    c.flags = NUMAFIT_DOMAIN_FULL;
    oom_loop(&c, op_domain_xml);
    c.what = "domain_xml(no placement, default conf)";
    c.flags = 0;
    c.pl = NULL;
    c.dconf = NULL;
    oom_loop(&c, op_domain_xml);
    c.what = "domain_disk_iotune_xml";
    oom_loop(&c, op_disk_iotune);
    c.what = "domain_interface_bandwidth_xml";
    oom_loop(&c, op_interface_bandwidth);

    numafit_domconf_free(d);
    numafit_placement_free(p);
    numafit_request_free(r);
    numafit_host_free(h);
}
END_TEST

START_TEST(hostconf) {
    struct ctx c = {.what = "hostconf"};
    oom_loop(&c, op_hostconf);
}
END_TEST

static const char *const caps_files[] = {"rh2288h-v3.xml", "e5-2620-ht.xml", "edge-nosiblings.xml",
                                         "epyc-24node.xml"};

START_TEST(host_from_caps_xml) {
#ifdef HAVE_LIBVIRT
    char rel[256];
    size_t len;
    numafit_hostconf_t *conf = NULL;
    numafit_error_t e;
    snprintf(rel, sizeof(rel), "caps/%s", caps_files[_i]);
    char *xml = test_slurp(rel, &len);

    /* quiet: libxml2's own messages ("Memory allocation failed") must not
     * reach stderr; the failure is in reterr */
    struct ctx c = {.what = caps_files[_i], .text = xml, .len = len, .quiet = true};
    oom_loop(&c, op_caps_xml);

    /* with nova.conf options: CPU sets, reserved pages, network affinity */
    if (_i == 0) {
        ck_assert_int_eq(numafit_hostconf_new(&conf), 0);
        ck_assert_int_eq(numafit_hostconf_set_cpu_dedicated_set(conf, "4-11", &e), 0);
        ck_assert_int_eq(numafit_hostconf_set_cpu_shared_set(conf, "0-3,12-15", &e), 0);
        ck_assert_int_eq(
            numafit_hostconf_add_reserved_huge_pages(conf, "node:0,size:1GB,count:1", &e), 0);
        ck_assert_int_eq(numafit_hostconf_add_physnet(conf, "physnet1", "0", &e), 0);
        ck_assert_int_eq(numafit_hostconf_set_tunnel_numa_nodes(conf, "1", &e), 0);
        c.what = "caps_xml(conf, online)";
        c.hconf = conf;
        c.text2 = "0-15";
        oom_loop(&c, op_caps_xml);
        numafit_hostconf_free(conf);
    }
    free(xml);
#else
    (void)caps_files;
    (void)_i;
#endif
}
END_TEST

START_TEST(host_from_sysfs) {
    char root[PATH_MAX];
    data_path(root, sizeof(root), "sysfs/rh2288h-v3");
    struct ctx c = {.what = "sysfs", .text = root};
    oom_loop(&c, op_sysfs);
}
END_TEST

START_TEST(doctor) {
    static const char conf[] = "[DEFAULT]\nreserved_huge_pages = node:0,size:1GB,count:1\n"
                               "[compute]\ncpu_dedicated_set = 4-11\ncpu_shared_set = 0-3,12-15\n";
    char root[PATH_MAX];
    data_path(root, sizeof(root), "doctor/rt-good");
    struct ctx c = {.what = "doctor", .text = root, .text2 = conf, .len2 = strlen(conf)};
    oom_loop(&c, op_doctor);
}
END_TEST

/* the doctor with running domains: the reader (libxml2), the checks and
 * nova's fit on the captured host */
START_TEST(doctor_domains) {
    size_t clen, lens[2];
    char *conf = test_slurp("doctor/rt-good/etc/nova/nova.conf", &clen);
    char *a = test_slurp("doctor-domains/rt-good-rt.xml", &lens[0]);
    char *b = test_slurp("doctor-domains/cell-split.xml", &lens[1]);
    const char *doms[2] = {a, b};
    char root[PATH_MAX];
    data_path(root, sizeof(root), "doctor/rt-good");
    struct ctx c = {.what = "doctor_domains",
                    .text = root,
                    .text2 = conf,
                    .len2 = clen,
                    .doms = doms,
                    .dlens = lens,
                    .ndoms = 2,
                    .quiet = true};
    oom_loop(&c, op_doctor_domains);
    free(conf);
    free(a);
    free(b);
}
END_TEST

START_TEST(cpuset) {
    static const char *const specs[] = {"0-3,^2,8", "0-16383,^1-16382", "", " 1 , 3-5 ,, ^4", "1-"};
    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
        struct ctx c = {.what = specs[i], .text = specs[i]};
        oom_loop(&c, op_cpuset_parse);
        numafit_cpuset_t *set = NULL;
        if (numafit_cpuset_parse(specs[i], 0, &set, NULL) == 0) {
            struct ctx f = {.what = "cpuset_format", .set = set};
            oom_loop(&f, op_cpuset_format);
            f.what = "cpuset_dup";
            oom_loop(&f, op_cpuset_dup);
            numafit_cpuset_free(set);
        }
    }
}
END_TEST

/* The interposer itself: failures are counted, and tracked blocks found. */
START_TEST(interposer) {
    /* through volatile pointers: the compiler may drop a malloc/free pair */
    void *(*volatile m)(size_t) = malloc;
    void *(*volatile z)(size_t, size_t) = calloc;
    void *(*volatile r)(void *, size_t) = realloc;
    void (*volatile f)(void *) = free;
    oom_arm(2);
    void *a = m(16), *b = z(2, 8), *c = r(NULL, 8);
    ck_assert(oom_disarm());
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_null(b);
    ck_assert_ptr_nonnull(c);
    ck_assert_uint_eq(track_live, 2);
    f(a);
    f(c);
    ck_assert_uint_eq(track_live, 0);
}
END_TEST

static Suite *oom_suite(void) {
    Suite *s = suite_create("oom");
    TCase *tc = tcase_create("oom");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, interposer);
    tcase_add_test(tc, cpuset);
    /* the last fixture of each list (24 cells) costs most of the run time:
     * NUMAFIT_OOM_LARGE=1 adds it */
    const int large = getenv("NUMAFIT_OOM_LARGE") != NULL;
    tcase_add_loop_test(tc, host_from_json, 0,
                        (int)(sizeof(host_files) / sizeof(host_files[0])) - !large);
    tcase_add_test(tc, host_synthetic);
    tcase_add_loop_test(tc, host_to_json_dup_queries, 0, 3);
    tcase_add_test(tc, request_new);
    tcase_add_test(tc, forms);
    tcase_add_test(tc, options);
    tcase_add_loop_test(tc, fit_claim_release, 0, sizeof(scenarios) / sizeof(scenarios[0]));
    tcase_add_test(tc, domain_xml);
    tcase_add_test(tc, hostconf);
    tcase_add_loop_test(tc, host_from_caps_xml, 0,
                        (int)(sizeof(caps_files) / sizeof(caps_files[0])) - !large);
    tcase_add_test(tc, host_from_sysfs);
    tcase_add_test(tc, doctor);
    tcase_add_test(tc, doctor_domains);
    suite_add_tcase(s, tc);
    return s;
}

/* For LeakSanitizer (ASan builds): the dynamic loader's allocations for
 * backtrace()'s dlopen of libgcc_s go through the malloc above, so LSan
 * does not recognise them as the loader's and reports them. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) {
    return "leak:_dl_map_object_deps\nleak:dl_open_worker\nleak:_dl_catch_exception\n";
}

const char *__lsan_default_options(void);
const char *__lsan_default_options(void) {
    return "print_suppressions=0";
}

int main(void) {
    void *bt[4];
    backtrace(bt, 4); /* loads libgcc_s now, not while a failure is armed */
    third_party_ranges();
    fail_third_party = getenv("NUMAFIT_OOM_THIRD_PARTY") != NULL;
    if (getenv("NUMAFIT_OOM_BACKTRACE"))
        track_bt = calloc(TRACK_SLOTS, sizeof(*track_bt));
    SRunner *sr = srunner_create(oom_suite());
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
