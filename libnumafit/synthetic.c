/* Synthetic hosts from a one-line description (hwloc's "node:2 core:4 pu:2" idea). */
#include "config.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "pci_internal.h"
#include "private.h"

struct synth {
    uint64_t cells, sockets, cores, threads, mem;
    uint64_t psize[8], pcount[8];
    uint32_t npages;
    const char *dedicated, *shared;
    size_t dedicated_len, shared_len;
};

/* Parse an unsigned decimal of at most 15 digits. */
static int parse_num(const char *s, size_t n, uint64_t *out) {
    uint64_t v = 0;
    if (n == 0 || n > 15)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return 0;
}

/* A size with an optional K/M/G/T suffix (binary), in units of `unit` KiB. */
static int parse_size_kib(const char *s, size_t n, uint64_t default_unit_kib, uint64_t *out_kib) {
    uint64_t v, mul = default_unit_kib;
    if (n && (s[n - 1] == 'B' || s[n - 1] == 'b'))
        n--;
    if (n && (s[n - 1] == 'i'))
        n--;
    if (n) {
        switch (s[n - 1]) {
            case 'K':
            case 'k':
                mul = 1;
                n--;
                break;
            case 'M':
            case 'm':
                mul = 1024;
                n--;
                break;
            case 'G':
            case 'g':
                mul = 1024 * 1024;
                n--;
                break;
            case 'T':
            case 't':
                mul = 1024ull * 1024 * 1024;
                n--;
                break;
            default:
                break;
        }
    }
    if (parse_num(s, n, &v) < 0 || v > (1ull << 50) / mul)
        return -1;
    *out_kib = v * mul;
    return 0;
}

static int bad(numafit_error_t *err, const char *key, const char *text) {
    numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, key, NULL, "synthetic host: %s", text);
    return -EINVAL;
}

static int parse_spec(const char *spec, struct synth *s, numafit_error_t *err) {
    static const char *const keys[] = {"cells", "sockets",   "cores",  "threads",
                                       "mem",   "dedicated", "shared", "pages"};
    const char *p = spec;
    unsigned seen = 0;
    while (*p) {
        const char *tok, *colon, *val;
        size_t klen, vlen;
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        tok = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        if (p - tok >= 4 && !memcmp(tok, "pci:", 4)) {
            /* devices: numafit_pci_pools_new_from_spec() reads them */
            int rc = numafit__pci_synth_check(tok, (size_t)(p - tok), err);
            if (rc < 0)
                return rc;
            continue;
        }
        colon = memchr(tok, ':', (size_t)(p - tok));
        if (!colon)
            return bad(err, "",
                       "expected key:value, or the short form with a CPU shape such as 2x32c2t");
        klen = (size_t)(colon - tok);
        val = colon + 1;
        vlen = (size_t)(p - val);
#define KEY(k) (klen == sizeof(k) - 1 && !memcmp(tok, k, klen))
        for (unsigned k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
            if (klen == strlen(keys[k]) && !memcmp(tok, keys[k], klen)) {
                if (seen & (1u << k))
                    return bad(err, keys[k], "a key is given twice");
                seen |= 1u << k;
            }
        if (KEY("cells") || KEY("sockets") || KEY("cores") || KEY("threads")) {
            uint64_t v;
            if (parse_num(val, vlen, &v) < 0 || v == 0 || v > 16384)
                return bad(err, "count", "counts must be integers from 1 to 16384");
            if (KEY("cells"))
                s->cells = v;
            else if (KEY("sockets"))
                s->sockets = v;
            else if (KEY("cores"))
                s->cores = v;
            else
                s->threads = v;
        } else if (KEY("mem")) {
            uint64_t kib;
            if (parse_size_kib(val, vlen, 1024, &kib) < 0 || kib < 1024)
                return bad(err, "mem", "mem must be a size like 64G or 65536 (MiB)");
            s->mem = kib / 1024;
        } else if (KEY("pages")) {
            const char *q = val, *end = val + vlen;
            while (q < end) {
                const char *comma = memchr(q, ',', (size_t)(end - q));
                const char *eq;
                const char *e = comma ? comma : end;
                uint64_t size, count;
                eq = memchr(q, '=', (size_t)(e - q));
                if (!eq || s->npages == 8 || parse_size_kib(q, (size_t)(eq - q), 1, &size) < 0 ||
                    parse_num(eq + 1, (size_t)(e - eq - 1), &count) < 0 || size < 8 ||
                    (size & (size - 1)))
                    return bad(err, "pages",
                               "pages must be SIZE=COUNT[,SIZE=COUNT...] with "
                               "power-of-two sizes above 4K");
                for (uint32_t i = 0; i < s->npages; i++)
                    if (s->psize[i] == size)
                        return bad(err, "pages", "a page size is given twice");
                s->psize[s->npages] = size;
                s->pcount[s->npages++] = count;
                q = comma ? comma + 1 : end;
            }
        } else if (KEY("dedicated")) {
            s->dedicated = val;
            s->dedicated_len = vlen;
        } else if (KEY("shared")) {
            s->shared = val;
            s->shared_len = vlen;
        } else {
            return bad(err, "",
                       "unknown key (cells, sockets, cores, threads, mem, pages, "
                       "dedicated, shared)");
        }
#undef KEY
    }
    return 0;
}

/* A refusal of the short form naming its token. */
static int bad_tok(numafit_error_t *err, const char *tok, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int bad_tok(numafit_error_t *err, const char *tok, size_t n, const char *fmt, ...) {
    char text[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "", NULL, "synthetic host: '%.*s': %s",
                       (int)(n > 64 ? 64 : n), tok, text);
    return -EINVAL;
}

/* Is tok a CPU shape SOCKETSxCORESc[THREADSt] (the short form's mark)? */
static bool is_shape(const char *tok, size_t n) {
    return n > 2 && tok[0] >= '0' && tok[0] <= '9' && memchr(tok, 'x', n) && !memchr(tok, ':', n);
}

/*
 * The short form, per host: "2x32c2t 4cells 1G:64 2M:4096 [mem:512G]
 * [dedicated:SPEC] [shared:SPEC]" - sockets x cores per socket c threads
 * per core t; NUMA cells (default one per socket); huge pages SIZE:COUNT
 * and memory for the whole host, split evenly over the cells (default 4 GiB
 * per hardware thread).
 */
static int parse_short(const char *spec, struct synth *s, numafit_error_t *err) {
    uint64_t sockets = 0, cores = 0, threads = 1, cells = 0, mem_kib = 0, huge = 0;
    const char *p = spec, *cells_tok = "", *mem_tok = "";
    size_t cells_len = 0, mem_len = 0;
    const char *ptok[8];
    size_t plen[8];
    while (*p) {
        const char *tok;
        size_t n;
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        tok = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        n = (size_t)(p - tok);
        if (is_shape(tok, n)) {
            const char *x = memchr(tok, 'x', n), *c, *end = tok + n;
            if (sockets)
                return bad_tok(err, tok, n, "the CPU shape is given twice");
            c = memchr(x, 'c', (size_t)(end - x));
            if (!c || parse_num(tok, (size_t)(x - tok), &sockets) < 0 || !sockets ||
                sockets > 1024 || parse_num(x + 1, (size_t)(c - x - 1), &cores) < 0 || !cores ||
                cores > 16384 ||
                (c + 1 < end &&
                 (end[-1] != 't' || parse_num(c + 1, (size_t)(end - c - 2), &threads) < 0 ||
                  !threads || threads > 64)))
                return bad_tok(err, tok, n,
                               "the CPU shape is SOCKETSxCORESc[THREADSt], e.g. 2x32c2t");
        } else if (n > 4 && (!memcmp(tok + n - 5, "cells", 5) || !memcmp(tok + n - 4, "cell", 4))) {
            size_t k = !memcmp(tok + n - 5, "cells", 5) ? n - 5 : n - 4;
            if (cells_len)
                return bad_tok(err, tok, n, "the cells are given twice");
            if (parse_num(tok, k, &cells) < 0 || !cells || cells > 1024)
                return bad_tok(err, tok, n, "NUMA cells are NCELLS, e.g. 4cells");
            cells_tok = tok;
            cells_len = n;
        } else if (n > 4 && !memcmp(tok, "mem:", 4)) {
            if (mem_len)
                return bad_tok(err, tok, n, "the memory is given twice");
            if (parse_size_kib(tok + 4, n - 4, 1024, &mem_kib) < 0 || mem_kib < 1024)
                return bad_tok(err, tok, n, "memory per host is mem:SIZE, e.g. mem:512G");
            mem_tok = tok;
            mem_len = n;
        } else if (n > 10 && !memcmp(tok, "dedicated:", 10)) {
            if (s->dedicated)
                return bad_tok(err, tok, n, "dedicated: is given twice");
            s->dedicated = tok + 10;
            s->dedicated_len = n - 10;
        } else if (n > 7 && !memcmp(tok, "shared:", 7)) {
            if (s->shared)
                return bad_tok(err, tok, n, "shared: is given twice");
            s->shared = tok + 7;
            s->shared_len = n - 7;
        } else if (n >= 4 && !memcmp(tok, "pci:", 4)) {
            /* devices: numafit_pci_pools_new_from_spec() reads them */
            int rc = numafit__pci_synth_check(tok, n, err);
            if (rc < 0)
                return rc;
        } else if (memchr(tok, ':', n)) {
            const char *colon = memchr(tok, ':', n);
            uint64_t size, count;
            if (s->npages == 8 || parse_size_kib(tok, (size_t)(colon - tok), 1, &size) < 0 ||
                size < 8 || (size & (size - 1)) ||
                parse_num(colon + 1, (size_t)(tok + n - colon - 1), &count) < 0 ||
                count > (1ull << 40))
                return bad_tok(err, tok, n,
                               "huge pages per host are SIZE:COUNT with a power-of-two size "
                               "above 4K, e.g. 1G:64");
            for (uint32_t i = 0; i < s->npages; i++)
                if (s->psize[i] == size)
                    return bad_tok(err, tok, n, "page size given twice");
            ptok[s->npages] = tok;
            plen[s->npages] = n;
            s->psize[s->npages] = size;
            s->pcount[s->npages++] = count;
        } else {
            return bad_tok(err, tok, n,
                           "unknown token (SOCKETSxCORESc[THREADSt], NCELLS cells, SIZE:COUNT, "
                           "mem:SIZE, dedicated:SPEC, shared:SPEC, pci:...)");
        }
    }
    if (!sockets)
        return bad(err, "", "no CPU shape (SOCKETSxCORESc[THREADSt], e.g. 2x32c2t)");
    if (!cells)
        cells = sockets;
    if (cells < sockets || cells % sockets)
        return bad_tok(err, cells_tok, cells_len,
                       "the cells must be a multiple of the %llu sockets",
                       (unsigned long long)sockets);
    if ((sockets * cores) % cells)
        return bad_tok(err, cells_tok, cells_len, "%llu cores do not split evenly over %llu cells",
                       (unsigned long long)(sockets * cores), (unsigned long long)cells);
    if (sockets * cores * threads > NUMAFIT__CPU_LIMIT)
        return bad(err, "cores", "more than 16384 CPUs");
    if (!mem_kib)
        mem_kib = sockets * cores * threads * 4ull * 1024 * 1024;
    if ((mem_kib / 1024) % cells)
        return bad_tok(err, mem_tok, mem_len, "%llu MiB do not split evenly over %llu cells",
                       (unsigned long long)(mem_kib / 1024), (unsigned long long)cells);
    for (uint32_t i = 0; i < s->npages; i++) {
        if (s->pcount[i] % cells)
            return bad_tok(err, ptok[i], plen[i], "%llu pages do not split evenly over %llu cells",
                           (unsigned long long)s->pcount[i], (unsigned long long)cells);
        huge += s->psize[i] * s->pcount[i];
        s->pcount[i] /= cells;
    }
    if (huge > mem_kib / 1024 * 1024) {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "pages", NULL,
                           "synthetic host: the huge pages (%llu MiB) exceed the host memory "
                           "(%llu MiB)",
                           (unsigned long long)(huge / 1024), (unsigned long long)(mem_kib / 1024));
        return -EINVAL;
    }
    s->cells = cells;
    s->sockets = sockets;
    s->cores = sockets * cores / cells;
    s->threads = threads;
    s->mem = mem_kib / 1024 / cells;
    return 0;
}

/* The short form when some token is a CPU shape, else the key:value form. */
static bool short_form(const char *spec) {
    const char *p = spec;
    while (*p) {
        const char *tok;
        while (*p == ' ' || *p == '\t')
            p++;
        tok = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        if (is_shape(tok, (size_t)(p - tok)))
            return true;
    }
    return false;
}

static int parse_set(const char *v, size_t n, uint64_t *bits, const char *key,
                     numafit_error_t *err) {
    char buf[4096];
    int rc;
    if (n >= sizeof(buf))
        return bad(err, key, "CPU set too long");
    memcpy(buf, v, n);
    buf[n] = '\0';
    rc = numafit__cpuspec_parse(buf, bits, err);
    if (rc < 0 && err)
        snprintf(err->where, sizeof(err->where), "%s", key);
    return rc;
}

NUMAFIT_EXPORT int numafit_host_new_synthetic(const char *spec, unsigned flags,
                                              numafit_host_t **ret, numafit_error_t *err) {
    struct synth s = {.cells = 1, .cores = 4, .threads = 1, .mem = 16384};
    uint64_t *ded = NULL, *shr = NULL;
    numafit_host_t *h = NULL;
    uint64_t ncpu;
    int rc;

    numafit__error_clear(err);
    if (!spec || !ret || flags)
        return -EINVAL;
    if (!spec[strspn(spec, " \t")]) {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, "", NULL,
                           "synthetic host: the description is empty (e.g. \"cells:2 cores:8\" "
                           "or \"2x32c2t\")");
        return -EINVAL;
    }
    if ((rc = short_form(spec) ? parse_short(spec, &s, err) : parse_spec(spec, &s, err)) < 0)
        return rc;
    if (!s.sockets)
        s.sockets = s.cells;
    ncpu = s.cells * s.cores * s.threads;
    if (s.cells > NUMAFIT_MAX_CELLS || ncpu > NUMAFIT__CPU_LIMIT) {
        bad(err, "cells", "too many cells or CPUs (at most 1024 cells, 16384 CPUs)");
        return -ERANGE;
    }
    if (s.sockets > s.cells || s.cells % s.sockets)
        return bad(err, "sockets", "cells must be a multiple of sockets");
    {
        uint64_t huge = 0;
        for (uint32_t i = 0; i < s.npages; i++)
            huge += s.psize[i] * s.pcount[i];
        if (huge > s.mem * 1024)
            return bad(err, "pages", "hugepages exceed the cell memory");
    }
    ded = numafit__calloc(NUMAFIT__CPU_WORDS, sizeof(uint64_t));
    shr = numafit__calloc(NUMAFIT__CPU_WORDS, sizeof(uint64_t));
    if (!ded || !shr) {
        rc = -ENOMEM;
        goto out;
    }
    if (s.dedicated && (rc = parse_set(s.dedicated, s.dedicated_len, ded, "dedicated", err)) < 0)
        goto out;
    if (s.shared && (rc = parse_set(s.shared, s.shared_len, shr, "shared", err)) < 0)
        goto out;
    if (numafit__bits_intersects(ded, shr, NUMAFIT__CPU_WORDS)) {
        rc = bad(err, "dedicated", "dedicated and shared CPU sets overlap");
        goto out;
    }
    if ((rc = numafit__host_alloc((uint32_t)s.cells, NUMAFIT__WORDS((uint32_t)ncpu), &h)) < 0)
        goto out;
    for (uint32_t n = 0; n < s.cells; n++) {
        struct numafit__cell *c = &h->cells[n];
        uint64_t huge = 0;
        c->id = (int32_t)n;
        c->socket = (int32_t)(n / (s.cells / s.sockets));
        c->memory = s.mem;
        c->nsib = (uint32_t)s.cores;
        c->sib_off = numafit__calloc(NUMAFIT__SIB_OFF_LEN(s.cores), sizeof(uint32_t));
        c->sib_cpu = numafit__calloc(s.cores * s.threads + 1, sizeof(uint16_t));
        c->pages = numafit__calloc(s.npages + 1, sizeof(*c->pages));
        if (!c->sib_off || !c->sib_cpu || !c->pages) {
            rc = -ENOMEM;
            goto out;
        }
        for (uint32_t core = 0; core < s.cores; core++) {
            c->sib_off[core] = core * (uint32_t)s.threads;
            for (uint32_t t = 0; t < s.threads; t++) {
                uint32_t cpu = t * (uint32_t)(s.cells * s.cores) + n * (uint32_t)s.cores + core;
                bool d = numafit__bit_test(ded, cpu), sh = numafit__bit_test(shr, cpu);
                c->sib_cpu[core * s.threads + t] = (uint16_t)cpu;
                if (!s.dedicated && !s.shared) {
                    numafit__bit_set(c->cpuset, cpu);
                    numafit__bit_set(c->pcpuset, cpu);
                } else {
                    if (d)
                        numafit__bit_set(c->pcpuset, cpu);
                    if (sh)
                        numafit__bit_set(c->cpuset, cpu);
                }
            }
        }
        c->sib_off[s.cores] = (uint32_t)(s.cores * s.threads);
        /* siblings are cut to the usable CPUs, as nova's driver does */
        {
            uint32_t w = 0, k = 0;
            for (uint32_t core = 0; core < s.cores; core++) {
                uint32_t start = w;
                for (uint32_t t = c->sib_off[core]; t < c->sib_off[core + 1]; t++) {
                    uint16_t cpu = c->sib_cpu[t];
                    if (numafit__bit_test(c->cpuset, cpu) || numafit__bit_test(c->pcpuset, cpu))
                        c->sib_cpu[w++] = cpu;
                }
                if (w > start)
                    c->sib_off[k++] = start;
            }
            c->sib_off[k] = w;
            c->nsib = k;
            /* sorted ascending inside each set */
            for (uint32_t q = 0; q < k; q++)
                for (uint32_t a = c->sib_off[q] + 1; a < c->sib_off[q + 1]; a++)
                    for (uint32_t b = a; b > c->sib_off[q] && c->sib_cpu[b - 1] > c->sib_cpu[b];
                         b--) {
                        uint16_t t = c->sib_cpu[b];
                        c->sib_cpu[b] = c->sib_cpu[b - 1];
                        c->sib_cpu[b - 1] = t;
                    }
        }
        for (uint32_t i = 0; i < s.npages; i++)
            huge += s.psize[i] * s.pcount[i];
        c->pages[0].size_kb = 4;
        c->pages[0].total = (s.mem * 1024 - huge) / 4;
        for (uint32_t i = 0; i < s.npages; i++) {
            c->pages[i + 1].size_kb = s.psize[i];
            c->pages[i + 1].total = s.pcount[i];
        }
        c->npages = s.npages + 1;
    }
    if ((rc = numafit__host_finish(h, 0, err)) < 0)
        goto out;
    *ret = h;
    h = NULL;
    rc = 0;
out:
    if (rc == -ENOMEM)
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
    numafit_host_free(h);
    numafit__free(ded);
    numafit__free(shr);
    return rc;
}
