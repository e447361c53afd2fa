/* nova.conf text into the host options (numafit_hostconf_t): the options
 * nova's libvirt driver reads to build the host model, read with
 * oslo.config's rules by ini.c, each value given to its numafit_hostconf_*
 * setter. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "discover_internal.h"
#include "ini.h"

static int set_cpu_options(numafit_hostconf_t *c, const struct numafit__ini *ini,
                           numafit_error_t *err) {
    int r;
    r = numafit_hostconf_set_cpu_dedicated_set(
        c, numafit__ini_get(ini, "compute", "cpu_dedicated_set"), err);
    if (r == 0)
        r = numafit_hostconf_set_cpu_shared_set(
            c, numafit__ini_get(ini, "compute", "cpu_shared_set"), err);
    if (r == 0)
        r = numafit_hostconf_set_vcpu_pin_set(c, numafit__ini_get(ini, "DEFAULT", "vcpu_pin_set"),
                                              err);
    return r;
}

/* [DEFAULT] reserved_huge_pages is a MultiOpt: every line counts. */
static int add_reserved(numafit_hostconf_t *c, const struct numafit__ini *ini,
                        numafit_error_t *err) {
    for (uint32_t i = 0; i < ini->nent; i++) {
        const struct numafit__ini_ent *e = &ini->ent[i];
        int r;
        if (strcmp(e->section, "DEFAULT") || strcmp(e->key, "reserved_huge_pages"))
            continue;
        if ((r = numafit_hostconf_add_reserved_huge_pages(c, e->value, err)) < 0)
            return r;
    }
    return 0;
}

/* One name of [neutron] physnets with its [neutron_physnet_NAME] numa_nodes
 * ("" when missing: nova refuses that when the host is built). */
static int add_one_physnet(numafit_hostconf_t *c, const struct numafit__ini *ini, const char *name,
                           numafit_error_t *err) {
    char section[320];
    const char *nodes = NULL;
    int n = snprintf(section, sizeof(section), "neutron_physnet_%s", name);
    if (n > 0 && (size_t)n < sizeof(section))
        nodes = numafit__ini_get(ini, section, "numa_nodes");
    return numafit_hostconf_add_physnet(c, name, nodes ? nodes : "", err);
}

/* [neutron] physnets, an oslo List: "a, b" (a trailing ',' ignored). */
static int add_physnets(numafit_hostconf_t *c, const struct numafit__ini *ini,
                        numafit_error_t *err) {
    const char *list = numafit__ini_get(ini, "neutron", "physnets");
    char *copy, *s;
    size_t n;
    int r = 0;
    if (!list)
        return 0;
    if (!(copy = numafit__strdup(list)))
        return -ENOMEM;
    s = numafit__trim(copy);
    for (n = strlen(s); n && s[n - 1] == ','; n--)
        s[n - 1] = '\0';
    for (char *item = s, *next; *s && item && r == 0; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = '\0';
        r = add_one_physnet(c, ini, numafit__trim(item), err);
    }
    numafit__free(copy);
    return r;
}

static int read_options(numafit_hostconf_t *c, const struct numafit__ini *ini,
                        numafit_error_t *err) {
    int r = set_cpu_options(c, ini, err);
    if (r == 0)
        r = add_reserved(c, ini, err);
    if (r == 0)
        r = add_physnets(c, ini, err);
    if (r == 0)
        r = numafit_hostconf_set_tunnel_numa_nodes(
            c, numafit__ini_get(ini, "neutron_tunnel", "numa_nodes"), err);
    return r;
}

static int check_text(const numafit_hostconf_t *conf, const char *text, size_t len, unsigned flags,
                      numafit_error_t *err) {
    if (!conf || (!text && len) || flags) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "", NULL, "invalid argument");
        return -EINVAL;
    }
    if (len > NUMAFIT_NOVA_CONF_MAX) {
        numafit__error_set(err, NUMAFIT_E_RANGE, -1, "nova.conf", NULL,
                           "nova.conf is larger than %u bytes", NUMAFIT_NOVA_CONF_MAX);
        return -ERANGE;
    }
    if (len && memchr(text, '\0', len)) {
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, "nova.conf", NULL,
                           "nova.conf contains a NUL byte");
        return -EBADMSG;
    }
    return 0;
}

/* The options of the text into a new configuration. */
static int conf_from_text(const char *text, size_t len, numafit_hostconf_t **ret,
                          numafit_error_t *err) {
    struct numafit__ini ini;
    numafit_hostconf_t *c = NULL;
    char where[32];
    int r = numafit__ini_parse(&ini, text ? text : "", len);
    if (r == 0 && ini.syntax_line) {
        snprintf(where, sizeof(where), "nova.conf line %d", ini.syntax_line);
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, where, NULL,
                           "line %d of nova.conf is not a section, an option or a comment",
                           ini.syntax_line);
        r = -EBADMSG;
    }
    if (r == 0)
        r = numafit_hostconf_new(&c);
    if (r == 0)
        r = read_options(c, &ini, err);
    numafit__ini_clear(&ini);
    if (r < 0) {
        numafit_hostconf_free(c);
        return r;
    }
    *ret = c;
    return 0;
}

NUMAFIT_EXPORT int numafit_hostconf_set_from_nova_conf(numafit_hostconf_t *conf, const char *text,
                                                       size_t len, unsigned flags,
                                                       numafit_error_t *err) {
    numafit_hostconf_t *c = NULL, old;
    int r;
    numafit__error_clear(err);
    if ((r = check_text(conf, text, len, flags, err)) < 0)
        return r;
    if ((r = conf_from_text(text, len, &c, err)) < 0) {
        if (r == -ENOMEM)
            numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
        return r;
    }
    old = *conf;
    *conf = *c;
    *c = old;
    numafit_hostconf_free(c);
    return 0;
}
