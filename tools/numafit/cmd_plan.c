/*
 * numafit plan: over one host (`plan --host H --flavor F`, `plan --batch`;
 * cmd_fit.c) or over a fleet (cmd_plan_fleet.c). The options decide: any
 * option only fleet planning knows, --strategy both, or more than one --host
 * or --flavor make it a fleet plan.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Options that only fleet mode knows; with any of them, `plan` is fleet mode. */
static const char fleet_only[] =
    " --hosts-dir --db --uri --sysfs --add-hosts --fleet --flavors --instances --mix --svg"
    " --html --draw --detail --top --placements --no-progress --max-instances"
    " --cpu-dedicated-set --cpu-shared-set --vcpu-pin-set --reserved-huge-pages --physnet"
    " --tunnel --all-online --any-arch ";

static bool is_fleet(int argc, char **argv) {
    int hosts = 0, flavors = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        size_t n = strcspn(a, "=");
        char opt[32];
        if (strcmp(a, "--") == 0)
            break;
        if (n > 2 && n < sizeof(opt) - 2 && a[0] == '-' && a[1] == '-') {
            snprintf(opt, sizeof(opt), " %.*s ", (int)n, a);
            if (strstr(fleet_only, opt))
                return true;
        }
        if (n == 6 && strncmp(a, "--host", 6) == 0)
            hosts++;
        if (n == 8 && strncmp(a, "--flavor", 8) == 0)
            flavors++;
        if (strcmp(a, "--strategy=both") == 0 ||
            (strcmp(a, "--strategy") == 0 && i + 1 < argc && strcmp(argv[i + 1], "both") == 0))
            return true;
    }
    return hosts > 1 || flavors > 1;
}

int cmd_plan(int argc, char **argv) {
    if (is_fleet(argc, argv))
        return cmd_plan_fleet(argc, argv);
    return cmd_plan_host(argc, argv);
}
