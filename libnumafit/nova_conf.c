/* nova.conf text into the host options (numafit_hostconf_t: the options
 * nova's libvirt driver reads to build the host model) and the domain XML
 * settings (numafit_domconf_t: those it reads to write a guest's XML), read
 * with oslo.config's rules by ini.c, each value given to its setter. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include <numafit/domain.h>

#include "discover_internal.h"
#include "flavor.h"
#include "ini.h"
#include "jsonio.h"

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

static int check_text(const void *conf, const char *text, size_t len, unsigned flags,
                      numafit_error_t *err) {
    if (!conf || (!text && len) || flags) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "", NULL, "invalid argument");
        return -EINVAL;
    }
    return numafit__ini_check_text(text, len, NUMAFIT_NOVA_CONF_MAX, "nova.conf", err);
}

/* The arguments checked and the text read into *ini (numafit__ini_clear()
 * it either way); a line oslo.config cannot parse is an error. */
static int read_text(const void *conf, const char *text, size_t len, unsigned flags,
                     struct numafit__ini *ini, numafit_error_t *err) {
    char where[32];
    int r;
    memset(ini, 0, sizeof(*ini));
    if ((r = check_text(conf, text, len, flags, err)) < 0)
        return r;
    if ((r = numafit__ini_parse(ini, text ? text : "", len)) < 0) {
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
        return r;
    }
    if (ini->syntax_line) {
        snprintf(where, sizeof(where), "nova.conf line %d", ini->syntax_line);
        numafit__error_set(err, NUMAFIT_E_PARSE, -1, where, NULL,
                           "line %d of nova.conf is not a section, an option or a comment",
                           ini->syntax_line);
        return -EBADMSG;
    }
    return 0;
}

NUMAFIT_EXPORT int numafit_hostconf_set_from_nova_conf(numafit_hostconf_t *conf, const char *text,
                                                       size_t len, unsigned flags,
                                                       numafit_error_t *err) {
    struct numafit__ini ini;
    numafit_hostconf_t *c = NULL, old;
    int r;
    numafit__error_clear(err);
    r = read_text(conf, text, len, flags, &ini, err);
    if (r == 0 && (r = numafit_hostconf_new(&c)) == 0)
        r = read_options(c, &ini, err);
    numafit__ini_clear(&ini);
    if (r < 0) {
        if (r == -ENOMEM)
            numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
        numafit_hostconf_free(c);
        return r;
    }
    old = *conf;
    *conf = *c;
    *c = old;
    numafit_hostconf_free(c);
    return 0;
}

/* ------------------------------------------------------------ domain XML */

/* An oslo IntOpt: Python's int() of the value, blank for the default. */
static int int_option(const struct numafit__ini *ini, const char *section, const char *key,
                      int64_t dflt, int64_t *out, numafit_error_t *err) {
    const char *v = numafit__ini_get(ini, section, key);
    bool ovf = false;
    size_t i = 0;
    *out = dflt;
    if (!v)
        return 0;
    while (v[i] && numafit__py_space(v[i]))
        i++;
    if (!v[i])
        return 0;
    if (!numafit__py_int(v, out, &ovf) || ovf) {
        numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, key, "ConfigFileValueError",
                           "[%s] %s: not an integer: '%.64s'", section, key, v);
        return -EINVAL;
    }
    return 0;
}

/* An oslo StrOpt with choices (NULL when unset). */
static int choice_option(const struct numafit__ini *ini, const char *section, const char *key,
                         const char *const *choices, const char **out, numafit_error_t *err) {
    const char *v = numafit__ini_get(ini, section, key);
    *out = NULL;
    if (!v)
        return 0;
    for (size_t i = 0; choices[i]; i++)
        if (!strcmp(v, choices[i])) {
            *out = choices[i];
            return 0;
        }
    numafit__error_set(err, NUMAFIT_E_SCHEMA, -1, key, "ConfigFileValueError",
                       "[%s] %s: '%.64s' is not one of nova's choices", section, key, v);
    return -EINVAL;
}

static int dom_cpu_options(numafit_domconf_t *c, const struct numafit__ini *ini,
                           numafit_error_t *err) {
    int r = numafit_domconf_set_cpu_shared_set(
        c, numafit__ini_get(ini, "compute", "cpu_shared_set"), err);
    if (r == 0)
        r = numafit_domconf_set_vcpu_pin_set(c, numafit__ini_get(ini, "DEFAULT", "vcpu_pin_set"),
                                             err);
    return r;
}

/* [libvirt] cpu_models, cpu_model_extra_flags, mem_stats_period_seconds,
 * disk_cachemodes */
static int dom_guest_options(numafit_domconf_t *c, const struct numafit__ini *ini,
                             numafit_error_t *err) {
    const char *models = numafit__ini_get(ini, "libvirt", "cpu_models");
    if (!models) /* its deprecated name */
        models = numafit__ini_get(ini, "libvirt", "cpu_model");
    int64_t period;
    int r;
    if ((r = numafit_domconf_set_cpu_models(c, models, err)) < 0 ||
        (r = numafit_domconf_set_cpu_model_extra_flags(
             c, numafit__ini_get(ini, "libvirt", "cpu_model_extra_flags"), err)) < 0 ||
        (r = numafit_domconf_set_disk_cachemodes(
             c, numafit__ini_get(ini, "libvirt", "disk_cachemodes"), err)) < 0 ||
        (r = int_option(ini, "libvirt", "mem_stats_period_seconds", 10, &period, err)) < 0)
        return r;
    /* zero or negative: no balloon; a huge value is written as int's limit
     * would not be: keep it in int */
    if (period > INT_MAX || period < INT_MIN) {
        numafit__error_set(err, NUMAFIT_E_RANGE, -1, "mem_stats_period_seconds", NULL,
                           "[libvirt] mem_stats_period_seconds: %lld is out of range",
                           (long long)period);
        return -ERANGE;
    }
    return numafit_domconf_set_mem_stats_period(c, (int)period);
}

static int dom_libvirt_options(numafit_domconf_t *c, const struct numafit__ini *ini,
                               numafit_error_t *err) {
    static const char *const types[] = {"kvm", "lxc", "qemu", "parallels", NULL};
    static const char *const modes[] = {"host-model", "host-passthrough", "custom", "none", NULL};
    const char *type, *mode;
    int64_t prio, fbm;
    int r;
    if ((r = int_option(ini, "libvirt", "realtime_scheduler_priority", 1, &prio, err)) < 0 ||
        (r = int_option(ini, "libvirt", "file_backed_memory", 0, &fbm, err)) < 0 ||
        (r = choice_option(ini, "libvirt", "virt_type", types, &type, err)) < 0 ||
        (r = choice_option(ini, "libvirt", "cpu_mode", modes, &mode, err)) < 0)
        return r;
    if (numafit_domconf_set_realtime_priority(c, prio < 1 || prio > 99 ? 0 : (int)prio) < 0) {
        numafit__error_set(err, NUMAFIT_E_RANGE, -1, "realtime_scheduler_priority", NULL,
                           "[libvirt] realtime_scheduler_priority: %lld is not in 1..99",
                           (long long)prio);
        return -ERANGE;
    }
    if (fbm < 0 || numafit_domconf_set_file_backed_memory(c, (uint64_t)fbm) < 0) {
        numafit__error_set(err, NUMAFIT_E_RANGE, -1, "file_backed_memory", "ConfigFileValueError",
                           "[libvirt] file_backed_memory: %lld MiB is out of range",
                           (long long)fbm);
        return -ERANGE;
    }
    if ((r = numafit_domconf_set_virt_type(c, type ? type : "kvm")) < 0)
        return r;
    /* unset: nova's default for the virt type and the host's architecture */
    if ((r = numafit_domconf_set_cpu_mode(c, mode)) < 0)
        return r;
    return dom_guest_options(c, ini, err);
}

NUMAFIT_EXPORT int numafit_domconf_set_from_nova_conf(numafit_domconf_t *conf, const char *text,
                                                      size_t len, unsigned flags,
                                                      numafit_error_t *err) {
    struct numafit__ini ini;
    numafit_domconf_t *c = NULL;
    int r;
    numafit__error_clear(err);
    r = read_text(conf, text, len, flags, &ini, err);
    if (r == 0 && (r = numafit_domconf_new(&c)) == 0 && (r = dom_cpu_options(c, &ini, err)) == 0 &&
        (r = dom_libvirt_options(c, &ini, err)) == 0)
        r = numafit__domconf_check(c, err);
    numafit__ini_clear(&ini);
    if (r == 0)
        numafit__domconf_take_nova(conf, c);
    else if (r == -ENOMEM)
        numafit__error_set(err, NUMAFIT_E_NOMEM, -1, "", NULL, "out of memory");
    numafit_domconf_free(c);
    return r;
}

/* ---------------------------------------------------- misplaced options */

/* The options libnumafit reads, with the group oslo.config reads each one
 * from (nova's option definitions, their deprecated names included): an
 * option is read from its own group only. numa_nodes is read from
 * [neutron_tunnel] and from the [neutron_physnet_NAME] groups. */
static const struct {
    const char *key, *group;
} option_homes[] = {
    {"vcpu_pin_set", "DEFAULT"},
    {"reserved_huge_pages", "DEFAULT"},
    {"reserved_host_cpus", "DEFAULT"},
    {"reserved_host_memory_mb", "DEFAULT"},
    {"reserved_host_disk_mb", "DEFAULT"},
    {"cpu_allocation_ratio", "DEFAULT"},
    {"ram_allocation_ratio", "DEFAULT"},
    {"disk_allocation_ratio", "DEFAULT"},
    {"initial_cpu_allocation_ratio", "DEFAULT"},
    {"initial_ram_allocation_ratio", "DEFAULT"},
    {"initial_disk_allocation_ratio", "DEFAULT"},
    {"pci_alias", "DEFAULT"},                 /* deprecated name of [pci] alias */
    {"pci_passthrough_whitelist", "DEFAULT"}, /* of [pci] device_spec */
    {"cpu_dedicated_set", "compute"},
    {"cpu_shared_set", "compute"},
    {"cpu_mode", "libvirt"},
    {"cpu_models", "libvirt"},
    {"cpu_model", "libvirt"}, /* deprecated name of cpu_models */
    {"virt_type", "libvirt"},
    {"realtime_scheduler_priority", "libvirt"},
    {"file_backed_memory", "libvirt"},
    {"physnets", "neutron"},
    {"numa_nodes", "neutron_tunnel"},
    {"device_spec", "pci"},
    {"passthrough_whitelist", "pci"},
    {"alias", "pci"},
};

const char *numafit__nova_conf_misplaced(const struct numafit__ini_ent *e) {
    static const char physnet[] = "neutron_physnet_";
    for (size_t k = 0; k < sizeof(option_homes) / sizeof(option_homes[0]); k++) {
        if (strcmp(e->key, option_homes[k].key))
            continue;
        if (numafit__ini_is(e, option_homes[k].group, e->key))
            return NULL;
        if (!strcmp(e->key, "numa_nodes")) {
            if (!strncmp(e->section, physnet, sizeof(physnet) - 1) &&
                e->section[sizeof(physnet) - 1])
                return NULL;
            return "neutron_tunnel] or [neutron_physnet_NAME";
        }
        return option_homes[k].group;
    }
    return NULL;
}

NUMAFIT_EXPORT int numafit_nova_conf_misplaced(const char *text, size_t len, unsigned flags,
                                               char **ret_json, numafit_error_t *err) {
    struct numafit__ini ini;
    json_t *list = NULL;
    int r, n = 0;
    numafit__error_clear(err);
    if (!ret_json) {
        numafit__error_set(err, NUMAFIT_E_INVALID_ARG, -1, "", NULL, "invalid argument");
        return -EINVAL;
    }
    /* read_text() wants a handle to check: ret_json stands in for it */
    if ((r = read_text(ret_json, text, len, flags, &ini, err)) < 0) {
        numafit__ini_clear(&ini);
        return r;
    }
    list = json_array();
    for (uint32_t i = 0; list && i < ini.nent; i++) {
        const char *home = numafit__nova_conf_misplaced(&ini.ent[i]);
        if (!home)
            continue;
        if (json_array_append_new(
                list, json_pack("{sI ss ss ss}", "line", (json_int_t)ini.ent[i].line, "section",
                                ini.ent[i].section, "option", ini.ent[i].key, "group", home)) < 0) {
            json_decref(list);
            list = NULL;
        }
        n++;
    }
    numafit__ini_clear(&ini);
    if ((r = numafit__json_emit(list, 0, ret_json, err)) < 0)
        return r;
    return n;
}
