/* The nova.conf options `numafit host` and `numafit plan` share. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli_conf.h"

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
        default:
            return -EINVAL;
    }
}
