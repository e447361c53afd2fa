/* numafit plan over a fleet (stub). */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>

int numafit_cli_plan_fleet(int argc, char **argv);
bool numafit_cli_plan_is_fleet(int argc, char **argv);

bool numafit_cli_plan_is_fleet(int argc, char **argv) {
    (void)argc, (void)argv;
    return false;
}

int numafit_cli_plan_fleet(int argc, char **argv) {
    (void)argc, (void)argv;
    fprintf(stderr, "numafit plan: fleet mode not implemented\n");
    return 2;
}
