/* numafit plan over a fleet: what the input readers share (plan_load.c:
 * the fleet being built; plan_rows.c: rows of a database dump; plan_jsonl.c:
 * the fast JSON-lines scanner). Internal to the planner; messages go to
 * pl->sink (plan_sink.c). */
#ifndef NUMAFIT_PLAN_LOAD_H
#define NUMAFIT_PLAN_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include <numafit.h>

#include "plan_fleet.h"

/* ---- plan_load.c: the fleet being built */
/* The exit status of a library failure: bad input unless out of memory. */
int plan_lib_status(int rc);
/* The index of the host named name, or -1. */
long plan_find_host(const struct plan *pl, const char *name);
/* A new source of hosts: its index, or -1 after reporting why. */
int plan_add_source(struct plan *pl, int kind, const char *what);
/* Add host h (taken over) named name from source (index) in group (-1: none);
 * facts_from >= 0: the index of an identical host to copy the facts of.
 * where: the message prefix for errors. Returns the index, or -1 after
 * reporting why (*status set). */
long plan_add_host(struct plan *pl, numafit_host_t *h, const char *name, int source, int32_t group,
                   long facts_from, const char *where, int *status);
/* Read a whole regular file of at most max bytes (NUL-terminated). Reports
 * why and returns NULL on failure (*status set). */
char *plan_read_all(const struct plan *pl, const char *path, size_t max, size_t *ret_len,
                    int *status);
/* The file name without directories and without a last ".ext". */
void plan_file_stem(const char *path, char *out, size_t cap);
/* The last component of a path (trailing slashes dropped). */
void plan_base_name(const char *path, char *out, size_t cap);
/* Add a host from nova's JSON text (copies of a text seen before share its
 * group). Returns 0, or PLAN_EXIT_* after reporting why. */
int plan_json_host(struct plan *pl, const char *text, size_t len, const char *name, int source,
                   const char *where);

/* ---- plan_jsonl.c: the fast JSON-lines scanner */
struct plan_jsonl_member {
    const char *key, *val; /* key without quotes; the value's JSON text */
    size_t klen, vlen;
    char type; /* s(tring) o(bject) a(rray) n(umber) t f z(null) */
    bool esc;  /* a string with escapes */
};
struct plan_jsonl_line {
    struct plan_jsonl_member m[32];
    unsigned n;
};
/* Scan one line (an object of simple members): true with its members in l,
 * false when the line is left to jansson. */
bool plan_jsonl_scan(struct plan_jsonl_line *l, const char *p, size_t n);
/* The member named col, or NULL. */
const struct plan_jsonl_member *plan_jsonl_get(const struct plan_jsonl_line *l, const char *col);

/* ---- plan_rows.c: rows of a dump (JSON lines, a JSON list, CSV, mysql batch)
 */
enum { PLAN_ROWS_JSONL, PLAN_ROWS_CSV, PLAN_ROWS_TSV, PLAN_ROWS_JSONARRAY };

struct plan_rows {
    const struct plan *pl; /* where messages go */
    FILE *f;
    const char *path;
    const char *what; /* option name for messages */
    int fmt;
    unsigned long line;     /* lines read so far */
    unsigned long rec_line; /* first line of the current row (entry number for a list) */
    char *buf;              /* CSV/TSV: the fields, NUL-terminated one after another */
    size_t cap, used;
    size_t *off;
    unsigned char *isnull;
    size_t nf, fcap;
    char **hdr;
    size_t nhdr;
    json_t *arr;
    size_t arri;
    json_t *row;
    char *scratch[4];
    unsigned nscratch;
    char *rb; /* JSON lines: read buffer */
    size_t rb_pos, rb_len;
    /* a JSON line read by the scanner (plan_jsonl.c) instead of jansson */
    bool fast;
    struct plan_jsonl_line jl;
};

/* What plan_rows_get() found. */
enum { PLAN_COL_MISSING = 0, PLAN_COL_NULL = 1, PLAN_COL_VALUE = 2 };

/* Open a row file: the format from the extension or the first bytes.
 * what: the option, for messages. Returns 0 or PLAN_EXIT_*. */
int plan_rows_open(struct plan_rows *r, const struct plan *pl, const char *path, const char *what);
void plan_rows_close(struct plan_rows *r);
/* The next row: 1, 0 at the end, -status on error. */
int plan_rows_next(struct plan_rows *r);
/* "FILE:LINE" of the current row ("FILE: entry N" in a JSON list). */
void plan_rows_where(const struct plan_rows *r, char *out, size_t cap);
/* Does the file have this column (CSV/TSV), or this row this key (JSON)? */
bool plan_rows_has(const struct plan_rows *r, const char *col);
/* A JSON row's value that is not a string (CSV fields always are). */
bool plan_rows_not_string(const struct plan_rows *r, const char *col);
/* The value of a column of the current row, as text. Returns PLAN_COL_*;
 * -1 when out of memory. */
int plan_rows_get(struct plan_rows *r, const char *col, const char **ret, size_t *ret_len);
/* A topology column as JSON text for the library (PLAN_COL_*, -1). */
int plan_rows_get_json(struct plan_rows *r, const char *col, const char **ret, size_t *ret_len);
/* A ratio column: 0 = not given (NULL, missing, 0.0). */
int plan_rows_ratio(struct plan_rows *r, const char *col, double *ret);
/* A count column (an integer from 0 to max): *ret -1 when not given
 * (NULL, missing, empty); returns 0, -1 out of memory, -2 not such an
 * integer. */
int plan_rows_count(struct plan_rows *r, const char *col, int64_t max, int64_t *ret);
/* A "deleted" column's value says deleted. */
bool plan_row_deleted(const char *s, size_t n);
/* A host name from plan_rows_get()'s k and value (not_string: the column
 * holds another JSON type) into out, NUL-terminated. NULL when it is one,
 * else why not: "missing", "null" or "must be a string of 1 to 255 bytes"
 * (out has 256 bytes or fewer). */
const char *plan_row_host_name(int k, const char *v, size_t n, bool not_string, char *out,
                               size_t cap);

#endif
