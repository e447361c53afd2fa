/*
 * The CLI's tools/numafit/main.c for the batch fuzz target, compiled as it is
 * with its main() renamed cli_fuzz_main(): the fuzzing engine (or
 * standalone.c) has the program's main(). The target runs cli_run() (cli.h),
 * what main() runs before its exit path (which closes stdout, once per
 * process).
 */
int cli_fuzz_main(int argc, char **argv);
#define main cli_fuzz_main
#include "../../tools/numafit/main.c"
#undef main
