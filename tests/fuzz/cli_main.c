/*
 * The CLI's examples/numafit.c for the batch fuzz target, compiled as it is
 * with its main() renamed numafit_cli_main(): the fuzzing engine (or
 * standalone.c) has the program's main().
 */
int numafit_cli_main(int argc, char **argv);
#define main numafit_cli_main
#include "../../examples/numafit.c"
