/* The nova.conf options `numafit host` and `numafit plan` share. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_conf.h"
#include "cli_io.h"

/* --nova-conf FILE (- = standard input): the options nova.conf sets, read
 * as oslo.config reads them (numafit_hostconf_set_from_nova_conf). */
static int apply_nova_conf(numafit_hostconf_t *conf, const char *path, numafit_error_t *err) {
    char *buf = NULL, why[200];
    size_t len = 0;
    int rc = cli_read_file(path, NUMAFIT_NOVA_CONF_MAX, true, &buf, &len, why, sizeof(why));
    if (rc < 0) {
        memset(err, 0, sizeof(*err));
        err->code = NUMAFIT_E_INVALID_ARG;
        snprintf(err->text, sizeof(err->text), "%s: %s", path, why);
        return rc;
    }
    rc = numafit_hostconf_set_from_nova_conf(conf, buf, len, 0, err);
    free(buf);
    return rc;
}

int cli_conf_apply(numafit_hostconf_t *conf, int option, const char *arg, numafit_error_t *err) {
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
            return apply_nova_conf(conf, arg, err);
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
