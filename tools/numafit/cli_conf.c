/* nova.conf on the command line: the file read once for every use a
 * command makes of it, its misplaced options warned about; the host options
 * `numafit host` and `numafit plan` share. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli_conf.h"
#include "cli_io.h"

/* The misplaced options of the text, one warning each on stderr. */
static void warn_misplaced(const struct cli_nova_conf *nc, const char *cmd) {
    numafit_error_t e;
    char *txt = NULL;
    json_t *list, *v;
    size_t i;
    if (numafit_nova_conf_misplaced(nc->text, nc->len, 0, &txt, &e) <= 0) {
        numafit_free(txt);
        return; /* none, or an error the readers report */
    }
    list = json_loads(txt, 0, NULL);
    numafit_free(txt);
    json_array_foreach(list, i, v) {
        fprintf(stderr,
                "%s: warning: %s line %lld: %s in [%s] is not read by nova (it reads %s "
                "from [%s] only): ignored\n",
                cmd, strcmp(nc->path, "-") ? nc->path : "standard input",
                (long long)json_integer_value(json_object_get(v, "line")),
                json_string_value(json_object_get(v, "option")),
                json_string_value(json_object_get(v, "section")),
                json_string_value(json_object_get(v, "option")),
                json_string_value(json_object_get(v, "group")));
    }
    json_decref(list);
}

int cli_nova_conf_read(struct cli_nova_conf *nc, const char *cmd, const char *path,
                       numafit_error_t *err) {
    char *buf = NULL, why[200];
    size_t len = 0;
    int rc = cli_read_file(path, NUMAFIT_NOVA_CONF_MAX, true, &buf, &len, why, sizeof(why));
    if (rc < 0) {
        memset(err, 0, sizeof(*err));
        err->code = NUMAFIT_E_INVALID_ARG;
        snprintf(err->text, sizeof(err->text), "%s: %s", path, why);
        return rc;
    }
    free(nc->text);
    nc->text = buf;
    nc->len = len;
    nc->path = path;
    warn_misplaced(nc, cmd);
    return 0;
}

void cli_nova_conf_free(struct cli_nova_conf *nc) {
    free(nc->text);
    memset(nc, 0, sizeof(*nc));
}

int cli_nova_conf_ratios(const struct cli_nova_conf *nc, bool zed, double *cpu, double *ram,
                         numafit_error_t *err) {
    double disk;
    const char *text = nc ? nc->text : NULL;
    return numafit_inventory_ratios_from_nova_conf(
        text, text ? nc->len : 0, zed ? NUMAFIT_INVENTORY_ZED : 0, cpu, ram, &disk, err);
}

char *cli_inventory_conf(const struct cli_nova_conf *nc, const char *sets, size_t *len) {
    size_t n = nc->text ? nc->len : 0, extra = sets ? strlen(sets) : 0;
    char *text = malloc(n + extra + 12);
    if (!text)
        return NULL;
    if (n)
        memcpy(text, nc->text, n);
    if (sets)
        n += (size_t)sprintf(text + n, "\n[DEFAULT]\n%s", sets);
    text[n] = '\0';
    *len = n;
    return text;
}

int cli_conf_apply(numafit_hostconf_t *conf, struct cli_nova_conf *nc, const char *cmd, int option,
                   const char *arg, numafit_error_t *err) {
    int rc;
    switch (option) {
        case CLI_CONF_DEDICATED:
            return numafit_hostconf_set_cpu_dedicated_set(conf, arg, err);
        case CLI_CONF_SHARED:
            return numafit_hostconf_set_cpu_shared_set(conf, arg, err);
        case CLI_CONF_PIN:
            return numafit_hostconf_set_vcpu_pin_set(conf, arg, err);
        case CLI_CONF_RESERVED:
            return numafit_hostconf_add_reserved_huge_pages(conf, arg, err);
        case CLI_CONF_PHYSNET: {
            const char *colon = strchr(arg, ':');
            char name[256];
            if (!colon || (size_t)(colon - arg) >= sizeof(name)) {
                memset(err, 0, sizeof(*err));
                err->code = NUMAFIT_E_INVALID_ARG;
                snprintf(err->text, sizeof(err->text), "wants NAME:NODES, e.g. physnet1:0,1");
                return -EINVAL;
            }
            memcpy(name, arg, (size_t)(colon - arg));
            name[colon - arg] = '\0';
            return numafit_hostconf_add_physnet(conf, name, colon + 1, err);
        }
        case CLI_CONF_TUNNEL:
            return numafit_hostconf_set_tunnel_numa_nodes(conf, arg, err);
        case CLI_CONF_NOVA_CONF:
            if ((rc = cli_nova_conf_read(nc, cmd, arg, err)) < 0)
                return rc;
            return numafit_hostconf_set_from_nova_conf(conf, nc->text, nc->len, 0, err);
        default:
            return -EINVAL;
    }
}

/* The [DEFAULT] options of a placement inventory (numafit_inventory_new_from_host). */
static const char *const inventory_options[] = {"reserved_host_cpus",
                                                "reserved_host_memory_mb",
                                                "reserved_host_disk_mb",
                                                "cpu_allocation_ratio",
                                                "ram_allocation_ratio",
                                                "disk_allocation_ratio",
                                                "initial_cpu_allocation_ratio",
                                                "initial_ram_allocation_ratio",
                                                "initial_disk_allocation_ratio",
                                                NULL};

int cli_inventory_setting(const char *cmd, char **text, size_t *len, const char *arg) {
    const char *eq = strchr(arg, '=');
    size_t klen = eq ? (size_t)(eq - arg) : 0;
    char *n;
    bool known = false;
    for (size_t i = 0; eq && inventory_options[i]; i++)
        known = known ||
                (strlen(inventory_options[i]) == klen && !strncmp(arg, inventory_options[i], klen));
    if (!known || strchr(arg, '\n')) {
        fprintf(stderr,
                "%s: --set wants OPTION=VALUE, OPTION one of the inventory's "
                "[DEFAULT] options (see --help), not '%.80s'\n",
                cmd, arg);
        return -1;
    }
    n = realloc(*text, *len + strlen(arg) + 4);
    if (!n) {
        fprintf(stderr, "%s: out of memory\n", cmd);
        return -1;
    }
    *len += (size_t)sprintf(n + *len, "%.*s= %s\n", (int)klen, arg, eq + 1);
    *text = n;
    return 0;
}

int cli_nova_conf_host(const struct cli_nova_conf *nc, numafit_host_t *host, numafit_error_t *err) {
    numafit_hostconf_t *conf = NULL;
    int rc;
    if (!nc->text)
        return 0;
    if ((rc = numafit_hostconf_new(&conf)) < 0)
        return rc;
    rc = numafit_hostconf_set_from_nova_conf(conf, nc->text, nc->len, 0, err);
    if (rc == 0 && numafit_hostconf_has_cpu_sets(conf) > 0)
        rc = numafit_host_set_cpu_pools(host, conf, 0, err);
    numafit_hostconf_free(conf);
    return rc;
}

int cli_nova_conf_limits(const struct cli_nova_conf *nc, bool zed, numafit_options_t *opt,
                         numafit_error_t *err) {
    double cpu, ram;
    int rc = cli_nova_conf_ratios(nc, zed, &cpu, &ram, err);
    return rc < 0 ? rc : numafit_options_set_limits(opt, cpu, ram);
}
