/* The nova.conf options `numafit host` and `numafit plan` share. */
#ifndef NUMAFIT_CLI_CONF_H
#define NUMAFIT_CLI_CONF_H

#include <numafit.h>

/* In this order in each command's option enum, so that opt - first maps. */
enum cli_conf_option {
    CLI_CONF_DEDICATED, /* --cpu-dedicated-set SPEC */
    CLI_CONF_SHARED,    /* --cpu-shared-set SPEC */
    CLI_CONF_PIN,       /* --vcpu-pin-set SPEC */
    CLI_CONF_RESERVED,  /* --reserved-huge-pages node:N,size:S,count:C */
    CLI_CONF_PHYSNET,   /* --physnet NAME:NODES */
    CLI_CONF_TUNNEL,    /* --tunnel NODES */
    CLI_CONF_NOVA_CONF, /* --nova-conf FILE: replaces the options before it */
};

/* Apply one option to conf. Returns the library's result; a --physnet
 * without NAME:NODES is -EINVAL with err->text saying so; a --nova-conf
 * file that cannot be read is its -errno with err->text saying why. */
int cli_conf_apply(numafit_hostconf_t *conf, int option, const char *arg, numafit_error_t *err);

#endif
