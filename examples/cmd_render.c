/* numafit render: draw a saved plan (stub). */
#include "config.h"

#include <stdio.h>

int numafit_cli_render(int argc, char **argv);

int numafit_cli_render(int argc, char **argv) {
    (void)argc, (void)argv;
    fprintf(stderr, "numafit render: not implemented\n");
    return 2;
}
