/* The nova.conf options `numafit host` and `numafit plan` share. */
#include "config.h"

#include <errno.h>
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
