/* File input and output shared by the numafit subcommands: inputs that
 * cannot hang or grow without bound, outputs whose failure is noticed. */
#ifndef NUMAFIT_CLI_IO_H
#define NUMAFIT_CLI_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/* Reading. "-" is standard input when allow_stdin (it may be a pipe or a
 * terminal: only its size is capped); any other path must name a regular
 * file: it is opened with O_NONBLOCK | O_CLOEXEC | O_NOCTTY (a FIFO never
 * blocks the open) and refused after fstat() when it is a directory, FIFO,
 * device or socket. */

/* Read all of path (at most max bytes) into a malloc'ed NUL-terminated
 * buffer. Returns 0, or -errno with why (one line, without the path) set:
 * -EISDIR / -EINVAL not a regular file, -EFBIG larger than max, -ENOMEM,
 * or open's and read's errors. */
int cli_read_file(const char *path, size_t max, bool allow_stdin, char **ret_buf, size_t *ret_len,
                  char *why, size_t whylen);

/* The reader of every input file of the subcommands: cli_read_file()
 * that says why it failed on standard error, as "WHO: [WHAT ]PATH: WHY"
 * (what: the option, or NULL). Returns the buffer, or NULL with *ret_rc
 * (when not NULL) set to the -errno. */
char *cli_read_input(const char *who, const char *what, const char *path, size_t max,
                     bool allow_stdin, size_t *ret_len, int *ret_rc);

/* A JSON file (a regular file of at most max bytes; any JSON value,
 * duplicate keys refused) read with cli_read_input() and parsed with
 * cli_json_load(). Malformed JSON is "WHO: PATH:LINE:COLUMN: malformed JSON:
 * TEXT"; NULL with *ret_rc (when not NULL) -ENOMEM when memory ran out,
 * else another -errno. */
json_t *cli_load_json_file(const char *who, const char *what, const char *path, size_t max,
                           int *ret_rc);

/* Open path for reading as a stream, with the checks of cli_read_file()
 * ("-" is standard input when allow_stdin). NULL with why set on failure. */
FILE *cli_fopen_read(const char *path, bool allow_stdin, char *why, size_t whylen);

/* A jansson load error as text in out (out may be NULL): "out of memory"
 * (returns -ENOMEM) when jansson ran out of memory or left no reason, else
 * "line L column C: TEXT" (or just TEXT without a position) and -EBADMSG. */
int cli_json_error(const json_error_t *jerr, char *out, size_t outlen);

/* The largest number of JSON values the CLI parses from one input (a file
 * or a batch line: a host of 16,384 CPUs with its flavor, image, limits). */
#define CLI_JSON_VALUES_MAX (1u << 19)

/* json_loadb() after counting the values with a byte scan: jansson keeps
 * some 50 bytes per value, so a text of many small values is refused
 * before it is parsed (NULL, jerr->text "more than N JSON values", line
 * and column -1). */
json_t *cli_json_load(const char *buf, size_t len, size_t flags, json_error_t *jerr);

/* Writing. */

/* Write n bytes to path atomically: a temporary file in the same directory,
 * flushed, closed, then renamed over path; on failure the temporary file is
 * removed and path is left as it was. "-" writes to standard output (checked
 * with ferror and fflush). Returns 0, or -errno with why set. */
int cli_write_file(const char *path, const void *data, size_t n, char *why, size_t whylen);

/* At start-up: a closed standard descriptor (0, 1, 2) is opened on
 * /dev/null the wrong way round (0 write-only, 1 and 2 read-only), so that
 * no file opened later takes its number and writing to a closed standard
 * output fails instead of landing in that file. */
void cli_stdio_init(void);

/* At exit: the fate of standard output. It is closed (fclose: flushed, then
 * the descriptor closed, which is where a file system may report a failed
 * write); when that or anything written before failed (ferror) and rc is 0
 * or nofit_rc (success or a verdict), prints "PROG: cannot write standard
 * output: REASON" and returns 1; otherwise returns rc (a command that failed
 * has said why). nofit_rc < 0: none. Call it once, at the end of main():
 * nothing may be written to standard output afterwards (the batch fuzz
 * target runs cli_run(), not main()). */
int cli_close_stdout(const char *prog, int rc, int nofit_rc);

#endif
