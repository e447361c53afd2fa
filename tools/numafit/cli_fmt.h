/* Numbers in the CLI's reports (cli_fmt.c). */
#ifndef NUMAFIT_CLI_FMT_H
#define NUMAFIT_CLI_FMT_H

#include <stdbool.h>
#include <stddef.h>

/* Numbers as reports print them, written into buf (cap bytes, at least 40)
 * and returned:
 * cli_fmt_count: an integer, its digits grouped by threes with commas from
 *   10,000 on ("30,772,449"; "8192" stays as it is);
 * cli_fmt_mib: a size in MiB, grouped, with GiB beside it from 10 GiB on
 *   ("128,396 MiB (125.4 GiB)", "131,072 MiB (128 GiB)", "8192 MiB");
 * cli_fmt_gib: a size in MiB as GiB with one decimal, grouped ("38,400.0";
 *   exact_whole: whole GiB without it, "51,200");
 * cli_fmt_page_size: a page size in KiB as "4 KiB", "2 MiB", "1 GiB"
 *   (short: "4K", "2M", "1G"). */
const char *cli_fmt_count(long long v, char *buf, size_t cap);
const char *cli_fmt_mib(long long mib, char *buf, size_t cap);
const char *cli_fmt_gib(long long mib, bool exact_whole, char *buf, size_t cap);
const char *cli_fmt_page_size(long long kb, bool short_form, char *buf, size_t cap);

#endif
