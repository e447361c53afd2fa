/*
 * The CLI's tools/numafit/numafit.c for the batch fuzz target, compiled as it is
 * with its main() renamed numafit_cli_main(): the fuzzing engine (or
 * standalone.c) has the program's main(). numafit_cli_run() is what main()
 * runs before its exit path (which closes stdout, once per process).
 */
int numafit_cli_main(int argc, char **argv);
int numafit_cli_run(int argc, char **argv);
#define main numafit_cli_main
#include "../../tools/numafit/numafit.c"
#undef main

int numafit_cli_run(int argc, char **argv) {
    return run_command(argc, argv);
}
