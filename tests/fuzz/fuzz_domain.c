/*
 * libFuzzer target: the libvirt domain XML writer's inputs
 * (numafit_domain_xml, numafit_domain_disk_iotune_xml,
 * numafit_domain_interface_bandwidth_xml): the flavor's quota:* extra specs,
 * the image properties and the host settings of numafit_domconf_t.
 *
 * Input: FLAVOR NUL IMAGE NUL SETTINGS (IMAGE empty: none). SETTINGS are
 * lines "K VALUE": s cpu_shared_set, v vcpu_pin_set, o online CPUs (cpu
 * specs), p realtime priority, c cpu controller (0/1), f file-backed memory
 * MiB, t domain type, n name, u uuid, m CPU mode, V virt type, a
 * architecture, M cpu_models, x cpu_model_extra_flags, b memory stats
 * period, d disk_cachemodes, F flags (1 FULL, 2 NOVA_EXACT). The flavor
 * and image make a request (numafit_request_new), fitted on a fixed 2-cell
 * host with huge pages, with the fit invariants of invariants.h
 * (claimable, claim/release, JSON round trips); then the XML of the
 * placement (or of a guest without NUMA topology) is written.
 * Invariants: a setting is taken or refused with a known errno (a refused
 * one changes nothing); success gives text (well-formed XML when libxml2
 * is there), a refusal a known negative errno with a text and no XML; the
 * XML says what the settings asked, as nova's driver would (the <cpu>
 * mode, match, model and extra flags; the PMU only with kvm and qemu; the
 * clock's timers with kvm only, hpet on x86 guests; the balloon's period;
 * the file disk's cache mode; the domain type). With libvirt, the whole
 * domain (domain type "test") is defined on libvirt's test driver unless
 * NOVA_EXACT, and those elements read back from libvirt as written.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <numafit.h>

#ifdef HAVE_LIBVIRT
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#endif

#include "invariants.h"

#define HOST_SPEC "cells:2 cores:4 threads:2 mem:16G pages:2M=1024,1G=2 dedicated:2-7,10-15"

static numafit_host_t *host;

static void check_xml(int r, char *xml, const numafit_error_t *err, int fragments) {
    fuzz_check_error(err);
    if (r < 0) {
        FUZZ_ASSERT(r == -EINVAL || r == -ERANGE || r == -ENOENT || r == -EBADMSG || r == -ENOMEM);
        FUZZ_ASSERT(xml == NULL);
        FUZZ_ASSERT(err->text[0] != '\0' || err->exception[0] != '\0');
        return;
    }
    FUZZ_ASSERT(xml != NULL);
#ifdef HAVE_LIBVIRT
    if (xml[0]) {
        /* fragments: several top-level elements, wrapped for the check */
        size_t n = strlen(xml);
        char *doc = malloc(n + 16);
        xmlDocPtr d;
        FUZZ_ASSERT(doc != NULL);
        snprintf(doc, n + 16, "%s%s%s", fragments ? "<x>" : "", xml, fragments ? "</x>" : "");
        d = xmlReadMemory(doc, (int)strlen(doc), "domain.xml", NULL,
                          XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
        if (!d)
            fuzz_note("the domain XML is not well-formed:\n%s", xml);
        FUZZ_ASSERT(d != NULL);
        xmlFreeDoc(d);
        free(doc);
    }
#else
    (void)fragments;
#endif
    numafit_free(xml);
}

/* What the settings asked (those that were taken). */
struct asked {
    char virt[16], arch[16], mode[20], dtype[40];
    char model[64];   /* the first of cpu_models, "" for none */
    int models_exact; /* model holds the first item for sure */
    char flags[2048]; /* the <feature> elements nova writes ("name:policy,"), sorted */
    int flags_exact;  /* flags is known (a plain list) */
    int period;
    char cache[16]; /* the file disk's cache mode, "" = nova's none */
};

static int plain_list(const char *v) {
    for (; *v; v++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-+, \t", *v))
            return 0;
    return 1;
}

/* The items of a plain oslo.config list, white space stripped, through fn. */
static void plain_items(const char *v, void (*fn)(const char *, size_t, void *), void *ctx) {
    const char *s = v;
    for (;;) {
        const char *e = strchr(s, ','), *b = e ? e : s + strlen(s);
        while (s < b && (*s == ' ' || *s == '\t'))
            s++;
        while (b > s && (b[-1] == ' ' || b[-1] == '\t'))
            b--;
        if (b > s)
            fn(s, (size_t)(b - s), ctx);
        if (!e)
            return;
        s = e + 1;
    }
}

static void first_item(const char *s, size_t n, void *ctx) {
    struct asked *a = ctx;
    if (a->model[0] || !a->models_exact)
        return;
    if (n >= sizeof(a->model)) { /* longer than this model holds: unknown */
        a->models_exact = 0;
        return;
    }
    memcpy(a->model, s, n);
    a->model[n] = '\0';
}

struct flagset {
    int n;
    char name[64][64];
    int off[64];
    int unknown; /* an item longer, or more items, than this model holds */
};

/* nova's _prepare_cpu_flag: lower case, leading '-'s disable, else
 * leading '+'s require; kept as a sorted set */
static void flag_item(const char *s, size_t n, void *ctx) {
    struct flagset *f = ctx;
    char low[64];
    const char *name;
    int off, i;
    if (n >= sizeof(low) || f->n >= 64) {
        f->unknown = 1;
        return;
    }
    for (size_t k = 0; k < n; k++)
        low[k] = (char)(s[k] >= 'A' && s[k] <= 'Z' ? s[k] + 32 : s[k]);
    low[n] = '\0';
    off = low[0] == '-';
    for (name = low; *name == (off ? '-' : '+'); name++)
        ;
    for (i = 0; i < f->n; i++) {
        int c = strcmp(f->name[i], name);
        if (c == 0)
            return;
        if (c > 0)
            break;
    }
    memmove(f->name[i + 1], f->name[i], (size_t)(f->n - i) * sizeof(f->name[0]));
    memmove(f->off + i + 1, f->off + i, (size_t)(f->n - i) * sizeof(f->off[0]));
    strcpy(f->name[i], name);
    f->off[i] = off;
    f->n++;
}

static void apply(numafit_domconf_t *conf, char *line, unsigned *flags, struct asked *a) {
    const char *v = line + 2;
    numafit_error_t err;
    int r = 0;
    char c = line[0];

    if (!line[0] || line[1] != ' ')
        return;
    fuzz_error_prefill(&err);
    switch (c) {
        case 's':
            r = numafit_domconf_set_cpu_shared_set(conf, v, &err);
            fuzz_check_error(&err);
            break;
        case 'v':
            r = numafit_domconf_set_vcpu_pin_set(conf, v, &err);
            fuzz_check_error(&err);
            break;
        case 'o':
            r = numafit_domconf_set_online_cpus(conf, v, &err);
            fuzz_check_error(&err);
            break;
        case 'p':
            r = numafit_domconf_set_realtime_priority(conf, atoi(v));
            break;
        case 'c':
            r = numafit_domconf_set_cpu_control(conf, atoi(v));
            break;
        case 'f':
            r = numafit_domconf_set_file_backed_memory(conf, strtoull(v, NULL, 10));
            break;
        case 't':
            r = numafit_domconf_set_domain_type(conf, v);
            if (r == 0 && strlen(v) < sizeof(a->dtype))
                strcpy(a->dtype, v);
            break;
        case 'n':
            r = numafit_domconf_set_name(conf, v);
            break;
        case 'u':
            r = numafit_domconf_set_uuid(conf, v);
            break;
        case 'm':
            r = numafit_domconf_set_cpu_mode(conf, *v ? v : NULL);
            if (r == 0)
                snprintf(a->mode, sizeof(a->mode), "%s", v);
            break;
        case 'V':
            r = numafit_domconf_set_virt_type(conf, v);
            if (r == 0)
                snprintf(a->virt, sizeof(a->virt), "%s", v);
            break;
        case 'a':
            r = numafit_domconf_set_arch(conf, v);
            if (r == 0)
                snprintf(a->arch, sizeof(a->arch), "%s", v);
            break;
        case 'M':
            r = numafit_domconf_set_cpu_models(conf, *v ? v : NULL, &err);
            fuzz_check_error(&err);
            if (r == 0) {
                a->model[0] = '\0';
                a->models_exact = plain_list(v);
                if (a->models_exact)
                    plain_items(v, first_item, a);
            }
            break;
        case 'x':
            r = numafit_domconf_set_cpu_model_extra_flags(conf, *v ? v : NULL, &err);
            fuzz_check_error(&err);
            if (r == 0) {
                a->flags[0] = '\0';
                a->flags_exact = plain_list(v);
                if (a->flags_exact) {
                    struct flagset *f = calloc(1, sizeof(*f));
                    FUZZ_ASSERT(f != NULL);
                    plain_items(v, flag_item, f);
                    a->flags_exact = !f->unknown;
                    for (int i = 0; i < f->n; i++) {
                        size_t len = strlen(a->flags);
                        snprintf(a->flags + len, sizeof(a->flags) - len, "%s:%s,", f->name[i],
                                 f->off[i] ? "disable" : "require");
                    }
                    free(f);
                }
            }
            break;
        case 'b':
            r = numafit_domconf_set_mem_stats_period(conf, atoi(v));
            if (r == 0)
                a->period = atoi(v);
            break;
        case 'd':
            r = numafit_domconf_set_disk_cachemodes(conf, *v ? v : NULL, &err);
            fuzz_check_error(&err);
            if (r == 0) {
                /* the last file=MODE entry (plain lists only; else keep unknown) */
                const char *f = v, *last = NULL;
                while ((f = strstr(f, "file=")) != NULL) {
                    if (f == v || f[-1] == ',' || f[-1] == ' ' || f[-1] == '\t')
                        last = f + 5;
                    f += 5;
                }
                a->cache[0] = '\0';
                if (!plain_list(v) && strchr(v, '='))
                    strcpy(a->cache, "?");
                else if (last) {
                    size_t n = strcspn(last, ", \t");
                    if (n < sizeof(a->cache)) {
                        memcpy(a->cache, last, n);
                        a->cache[n] = '\0';
                    }
                }
            }
            break;
        case 'F':
            *flags = (unsigned)atoi(v) & (NUMAFIT_DOMAIN_FULL | NUMAFIT_DOMAIN_NOVA_EXACT);
            break;
        default:
            break;
    }
    FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -ERANGE || r == -EBADMSG || r == -ENOMEM);
    if (r < 0 && (c == 's' || c == 'v' || c == 'o' || c == 'M' || c == 'x' || c == 'd'))
        FUZZ_ASSERT(err.text[0] != '\0' || r == -ENOMEM);
}

#ifdef HAVE_LIBVIRT
/* "v1;v2;..." of the attribute attr (the text when NULL) of the nodes at
 * xpath, each prefixed by key's value and ':' when key is set. */
static void xcollect(xmlDocPtr doc, const char *xpath, const char *key, const char *attr, char *out,
                     size_t cap) {
    xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
    xmlXPathObjectPtr obj = ctx ? xmlXPathEvalExpression((const xmlChar *)xpath, ctx) : NULL;
    out[0] = '\0';
    FUZZ_ASSERT(obj != NULL);
    for (int i = 0; obj->nodesetval && i < obj->nodesetval->nodeNr; i++) {
        xmlNodePtr n = obj->nodesetval->nodeTab[i];
        xmlChar *k = key ? xmlGetProp(n, (const xmlChar *)key) : NULL;
        xmlChar *v = attr ? xmlGetProp(n, (const xmlChar *)attr) : xmlNodeGetContent(n);
        size_t len = strlen(out);
        snprintf(out + len, cap - len, "%s%s%s;", k ? (const char *)k : "", key ? ":" : "",
                 v ? (const char *)v : "-");
        xmlFree(k);
        xmlFree(v);
    }
    xmlXPathFreeObject(obj);
    xmlXPathFreeContext(ctx);
}

/* The settings' elements of a whole domain, as one text. */
static char *summary(xmlDocPtr doc) {
    static const struct {
        const char *xpath, *key, *attr;
    } probes[] = {
        {"/domain", NULL, "type"},
        {"/domain/cpu", NULL, "mode"},
        {"/domain/cpu", NULL, "match"},
        {"/domain/cpu/model", NULL, NULL},
        {"/domain/cpu/feature", "name", "policy"},
        {"/domain/features/pmu", NULL, "state"},
        {"/domain/clock", NULL, "offset"},
        {"/domain/clock/timer", "name", "tickpolicy"},
        {"/domain/clock/timer", "name", "present"},
        {"/domain/devices/memballoon", NULL, "model"},
        {"/domain/devices/memballoon/stats", NULL, "period"},
        {"/domain/devices/disk/driver", NULL, "cache"},
    };
    size_t cap = 16384, len = 0;
    char *out = malloc(cap), part[4096];
    FUZZ_ASSERT(out != NULL);
    out[0] = '\0';
    for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
        xcollect(doc, probes[i].xpath, probes[i].key, probes[i].attr, part, sizeof(part));
        len += (size_t)snprintf(out + len, cap - len, "%s@%s=%s\n", probes[i].xpath,
                                probes[i].attr ? probes[i].attr : "text", part);
        FUZZ_ASSERT(len < cap);
    }
    return out;
}

static int first_line_has(const char *sum, const char *xpath, const char *want) {
    char key[160];
    const char *l;
    snprintf(key, sizeof(key), "%s=", xpath);
    for (l = sum; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
        if (!strncmp(l, key, strlen(key))) {
            l += strlen(key);
            return !strncmp(l, want, strlen(want)) && l[strlen(want)] == '\n';
        }
    return 0;
}

/* The whole domain says what the settings asked. */
static void check_asked(const char *xml, const struct asked *a, const char *sum) {
    int qemu = !strcmp(a->virt, "kvm") || !strcmp(a->virt, "qemu");
    int x86 = !strcmp(a->arch, "x86_64") || !strcmp(a->arch, "i686");
    int windows = first_line_has(sum, "/domain/clock@offset", "localtime;");
    char want[4096];
    const char *mode = a->mode;
#define ASKED(xpath, value)                                                                        \
    do {                                                                                           \
        if (!first_line_has(sum, xpath, value)) {                                                  \
            fuzz_note("%s is not '%s' (virt %s, arch %s, mode '%s'):\n%s\n%s", xpath, value,       \
                      a->virt, a->arch, a->mode, sum, xml);                                        \
            FUZZ_ASSERT(!"the domain says what the settings asked");                               \
        }                                                                                          \
    } while (0)
    snprintf(want, sizeof(want), "%s;", a->dtype[0] ? a->dtype : a->virt);
    ASKED("/domain@type", want);
    if (qemu && !mode[0])
        mode = strcmp(a->arch, "aarch64") ? "host-model" : "host-passthrough";
    if (!strcmp(mode, "none"))
        mode = qemu ? "-" : "";
    if (!mode[0]) { /* no <cpu> */
        ASKED("/domain/cpu@mode", "");
    } else {
        snprintf(want, sizeof(want), "%s;", mode);
        ASKED("/domain/cpu@mode", want);
        ASKED("/domain/cpu@match", !strcmp(mode, "custom") ? "exact;" : "-;");
    }
    if (!strcmp(mode, "custom") && a->models_exact) {
        snprintf(want, sizeof(want), "%s;", a->model);
        ASKED("/domain/cpu/model@text", want);
    } else if (strcmp(mode, "custom")) {
        ASKED("/domain/cpu/model@text", "");
    }
    if (a->flags_exact) {
        want[0] = '\0';
        if (mode[0] && strcmp(mode, "-")) {
            const char *f = a->flags;
            while (*f) { /* "name:policy," -> "name:policy;" */
                size_t n = strcspn(f, ","), len = strlen(want);
                snprintf(want + len, sizeof(want) - len, "%.*s;", (int)n, f);
                f += n + (f[n] == ',');
            }
        }
        ASKED("/domain/cpu/feature@policy", want);
    }
    if (!qemu)
        ASKED("/domain/features/pmu@state", "");
    if (!strcmp(a->virt, "kvm")) {
        snprintf(want, sizeof(want), "pit:delay;rtc:catchup;%s%s", x86 ? "hpet:-;" : "",
                 windows ? "hypervclock:-;" : "");
        ASKED("/domain/clock/timer@tickpolicy", want);
    } else {
        ASKED("/domain/clock/timer@tickpolicy", "");
    }
    if (qemu && a->period > 0) {
        snprintf(want, sizeof(want), "%d;", a->period);
        ASKED("/domain/devices/memballoon@model", "virtio;");
        ASKED("/domain/devices/memballoon/stats@period", want);
    } else {
        ASKED("/domain/devices/memballoon@model", "");
    }
    if (strcmp(a->cache, "?") && !first_line_has(sum, "/domain/devices/disk/driver@cache", "")) {
        snprintf(want, sizeof(want), "%s;", a->cache[0] ? a->cache : "none");
        ASKED("/domain/devices/disk/driver@cache", want);
    }
#undef ASKED
}

static virConnectPtr conn;

static void quiet_libvirt(void *opaque, virErrorPtr err) {
    (void)opaque;
    (void)err;
}

/* libvirt's test driver takes the whole domain; its elements read back. */
static void check_libvirt(const char *xml, const char *ours) {
    virDomainPtr dom;
    char *back, *theirs, *mine, *at;
    xmlDocPtr d;
    if (!conn) {
        virDomainPtr def;
        virSetErrorFunc(NULL, quiet_libvirt);
        conn = virConnectOpen("test:///default");
        FUZZ_ASSERT(conn != NULL);
        /* the driver's own domain "test": out of the way of a fuzzed name */
        def = virDomainLookupByName(conn, "test");
        if (def) {
            virDomainDestroy(def);
            virDomainUndefine(def);
            virDomainFree(def);
        }
    }
    dom = virDomainDefineXML(conn, xml);
    if (!dom) {
        fuzz_note("libvirt refuses the domain: %s\n%s", virGetLastErrorMessage(), xml);
        FUZZ_ASSERT(!"libvirt takes the whole domain");
    }
    back = virDomainGetXMLDesc(dom, 0);
    FUZZ_ASSERT(back != NULL);
    d = xmlReadMemory(back, (int)strlen(back), "libvirt.xml", NULL,
                      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    FUZZ_ASSERT(d != NULL);
    theirs = summary(d);
    /* cache='default' is libvirt's default: it reads back as no attribute */
    mine = strdup(ours);
    FUZZ_ASSERT(mine != NULL);
    if ((at = strstr(mine, "/domain/devices/disk/driver@cache=default;")) != NULL)
        memmove(at + 35, at + 41, strlen(at + 41) + 1), at[34] = '-';
    if (strcmp(mine, theirs)) {
        fuzz_note("libvirt reads back otherwise:\nours:\n%s\nlibvirt:\n%s\n%s", ours, theirs, back);
        FUZZ_ASSERT(!"the domain reads back from libvirt as written");
    }
    free(mine);
    free(theirs);
    xmlFreeDoc(d);
    free(back);
    FUZZ_ASSERT(virDomainUndefine(dom) == 0);
    virDomainFree(dom);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *in = (const char *)data, *e = in + size;
    const char *img, *set;
    size_t flen, ilen;
    char *settings, *line, *next, *xml;
    numafit_domconf_t *conf = NULL;
    numafit_request_t *req = NULL;
    numafit_placement_t *p = NULL;
    numafit_error_t err;
    unsigned flags = 0;
    struct asked asked;
    int r;

    if (!host) {
        r = numafit_host_new_synthetic(HOST_SPEC, 0, &host, &err);
        if (r < 0)
            fuzz_note("fixed host: %s", err.text);
        FUZZ_ASSERT(r == 0);
    }
    img = size ? memchr(in, '\0', size) : NULL;
    flen = img ? (size_t)(img - in) : size;
    img = img ? img + 1 : e;
    set = img < e ? memchr(img, '\0', (size_t)(e - img)) : NULL;
    ilen = set ? (size_t)(set - img) : (size_t)(e - img);
    set = set ? set + 1 : e;

    memset(&asked, 0, sizeof(asked));
    strcpy(asked.virt, "kvm");
    strcpy(asked.arch, "x86_64");
    asked.models_exact = asked.flags_exact = 1;
    asked.period = 10;
    FUZZ_ASSERT(numafit_domconf_new(&conf) == 0);
    settings = malloc((size_t)(e - set) + 1);
    FUZZ_ASSERT(settings != NULL);
    memcpy(settings, set, (size_t)(e - set));
    settings[e - set] = '\0';
    for (line = settings; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        apply(conf, line, &flags, &asked);
    }

    xml = NULL;
    fuzz_error_prefill(&err);
    r = numafit_domain_disk_iotune_xml(in, flen, 0, &xml, &err);
    check_xml(r, xml, &err, 0);
    xml = NULL;
    fuzz_error_prefill(&err);
    r = numafit_domain_interface_bandwidth_xml(in, flen, 0, &xml, &err);
    check_xml(r, xml, &err, 0);

    fuzz_error_prefill(&err);
    r = numafit_request_new(in, flen, ilen ? img : NULL, ilen, 0, &req, &err);
    if (r < 0) {
        fuzz_check_failure(r, &err, req);
        goto out;
    }
    if (r == 1) {
        if (fuzz_check_fit(host, 0, req, NULL) != 1)
            goto out;
        FUZZ_ASSERT(numafit_fit(host, req, fuzz_default_options(), 0, &p, NULL) == 1);
    }
    xml = NULL;
    fuzz_error_prefill(&err);
    r = numafit_domain_xml(host, req, p, in, flen, ilen ? img : NULL, ilen, conf, flags, &xml,
                           &err);
#ifdef HAVE_LIBVIRT
    if (r == 0 && (flags & NUMAFIT_DOMAIN_FULL)) {
        xmlDocPtr d = xmlReadMemory(xml, (int)strlen(xml), "domain.xml", NULL,
                                    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
        char *sum;
        FUZZ_ASSERT(d != NULL);
        sum = summary(d);
        check_asked(xml, &asked, sum);
        free(sum);
        xmlFreeDoc(d);
    }
#endif
    check_xml(r, xml, &err, !(flags & NUMAFIT_DOMAIN_FULL));
#ifdef HAVE_LIBVIRT
    if (r == 0 && !(flags & NUMAFIT_DOMAIN_NOVA_EXACT)) {
        /* the same domain for libvirt's test driver */
        xmlDocPtr d;
        char *sum;
        FUZZ_ASSERT(numafit_domconf_set_domain_type(conf, "test") == 0);
        xml = NULL;
        r = numafit_domain_xml(host, req, p, in, flen, ilen ? img : NULL, ilen, conf,
                               NUMAFIT_DOMAIN_FULL, &xml, &err);
        /* a whole domain also reads the flavor's disk and interface quotas */
        FUZZ_ASSERT(r == 0 || r == -ENOMEM || (!(flags & NUMAFIT_DOMAIN_FULL) && r < 0));
        if (r == 0) {
            d = xmlReadMemory(xml, (int)strlen(xml), "domain.xml", NULL,
                              XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
            FUZZ_ASSERT(d != NULL);
            sum = summary(d);
            strcpy(asked.dtype, "test");
            check_asked(xml, &asked, sum);
            check_libvirt(xml, sum);
            free(sum);
            xmlFreeDoc(d);
            numafit_free(xml);
        }
    }
#endif
out:
    numafit_placement_free(p);
    numafit_request_free(req);
    numafit_domconf_free(conf);
    free(settings);
    return 0;
}
