/*
 * numafit plan over a fleet: the rows of a database dump - JSON lines (the
 * simple ones read by plan_jsonl.c's scanner, the rest by jansson), a JSON
 * list, CSV or mysql's tab-separated batch output - with the columns by
 * name. Messages name the file and the line.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <numafit.h>

#include "cli_io.h"
#include "plan_fleet.h"
#include "plan_load.h"

/* A record (CSV/TSV row, JSON line) may hold a topology of NUMAFIT_INPUT_MAX
 * bytes plus a few other columns. */
#define ROW_MAX ((size_t)NUMAFIT_INPUT_MAX + 65536)

/* ------------------------------------------------------------------ rows (db dumps) */

/* json_load_callback()'s source for a JSON list: the file, up to a NUL byte,
 * which it refuses (jansson drops a NUL byte that follows a number and reads
 * on, so json_loadf() would accept "1\0,2"). line and col: where the NUL is. */
struct nul_reader {
    FILE *f;
    unsigned long line, col;
    bool nul, err;
    int errnum; /* of the read error */
};

static size_t read_refusing_nul(void *buf, size_t len, void *arg) {
    struct nul_reader *nr = arg;
    size_t n = fread(buf, 1, len, nr->f);
    const char *c = buf, *z;

    if (n == 0 && ferror(nr->f)) {
        nr->err = true;
        nr->errnum = errno;
        return (size_t)-1;
    }
    z = memchr(buf, '\0', n);
    for (; c < (z ? z : (const char *)buf + n); c++) {
        if (*c == '\n')
            nr->line++, nr->col = 1;
        else
            nr->col++;
    }
    if (z) {
        nr->nul = true;
        return (size_t)-1;
    }
    return n;
}

static int buf_put(struct plan_rows *r, char ch) {
    if (r->used + 1 >= r->cap) {
        size_t ncap = r->cap ? r->cap * 2 : 65536;
        char *nb;
        if (r->cap >= ROW_MAX)
            return -2;
        nb = realloc(r->buf, ncap);
        if (!nb)
            return -1;
        r->buf = nb;
        r->cap = ncap;
    }
    r->buf[r->used++] = ch;
    return 0;
}

static int field_start(struct plan_rows *r) {
    if (r->nf == r->fcap) {
        size_t ncap = r->fcap ? r->fcap * 2 : 16;
        size_t *no = realloc(r->off, ncap * sizeof(*no));
        unsigned char *nn;
        if (!no)
            return -1;
        r->off = no;
        nn = realloc(r->isnull, ncap);
        if (!nn)
            return -1;
        r->isnull = nn;
        r->fcap = ncap;
    }
    if (r->nf >= 4096)
        return -3;
    r->off[r->nf] = r->used;
    r->isnull[r->nf] = 0;
    r->nf++;
    return 0;
}

static int rows_fail(struct plan_rows *r, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "FILE:LINE" of the current row ("FILE: entry N" in a JSON list). */
void plan_rows_where(const struct plan_rows *r, char *out, size_t cap) {
    if (r->fmt == PLAN_ROWS_JSONARRAY)
        snprintf(out, cap, "%s: entry %lu", r->path, r->rec_line);
    else
        snprintf(out, cap, "%s:%lu", r->path, r->rec_line);
}

static int rows_fail(struct plan_rows *r, int code, const char *fmt, ...) {
    va_list ap;
    char where[PATH_MAX + 32], msg[1024];
    plan_rows_where(r, where, sizeof(where));
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    plan_error(r->pl, "%s: %s", where, msg);
    return code;
}

static int put_fail(struct plan_rows *r, int rc) {
    if (rc == -1) {
        plan_error(r->pl, "out of memory");
        return -PLAN_EXIT_FAIL;
    }
    if (rc == -3)
        return rows_fail(r, -PLAN_EXIT_INPUT, "more than 4096 fields");
    return rows_fail(r, -PLAN_EXIT_INPUT, "row longer than %zu bytes", ROW_MAX);
}

/* An unquoted field that means SQL NULL. */
static bool null_word(const char *s) {
    return !*s || strcmp(s, "NULL") == 0 || strcmp(s, "\\N") == 0;
}

/*
 * Read one CSV (RFC 4180: "..." quoting with "" for a quote, newlines
 * allowed inside quotes) or mysql batch (tab-separated, backslash escapes,
 * NULL) record. Returns 1 with the fields, 0 at the end, -status on error.
 */
static int read_record(struct plan_rows *r) {
    int ch, rc;
    bool tsv = r->fmt == PLAN_ROWS_TSV;
    char sep = tsv ? '\t' : ',';

    for (;;) {
        bool any = false;
        r->used = 0;
        r->nf = 0;
        r->rec_line = r->line + 1;
        ch = getc_unlocked(r->f);
        if (ch == EOF)
            return ferror(r->f) ? rows_fail(r, -PLAN_EXIT_FAIL, "read error") : 0;
        ungetc(ch, r->f);
        for (;;) {
            bool quoted = false, literal = false;
            if ((rc = field_start(r)) < 0)
                return put_fail(r, rc);
            ch = getc_unlocked(r->f);
            if (!tsv && ch == '"') {
                quoted = true;
                any = true;
                for (;;) {
                    ch = getc_unlocked(r->f);
                    if (ch == EOF)
                        return rows_fail(r, -PLAN_EXIT_INPUT,
                                         "unterminated quoted field (field %zu)", r->nf);
                    if (ch == '"') {
                        ch = getc_unlocked(r->f);
                        if (ch != '"')
                            break;
                    }
                    if (ch == '\n')
                        r->line++;
                    if ((rc = buf_put(r, (char)ch)) < 0)
                        return put_fail(r, rc);
                }
                if (ch == '\r') {
                    ch = getc_unlocked(r->f);
                    if (ch != '\n')
                        ch = '\r';
                }
                if (ch != sep && ch != '\n' && ch != EOF)
                    return rows_fail(r, -PLAN_EXIT_INPUT,
                                     "unexpected character '%c' after the closing quote of "
                                     "field %zu",
                                     isprint(ch) ? ch : '?', r->nf);
            } else {
                while (ch != sep && ch != '\n' && ch != EOF) {
                    if (ch == '\r') {
                        int n2 = getc_unlocked(r->f);
                        if (n2 == '\n' || n2 == EOF) {
                            ch = n2;
                            break;
                        }
                        ungetc(n2, r->f);
                    }
                    any = true;
                    if (!tsv && ch == '"')
                        return rows_fail(r, -PLAN_EXIT_INPUT,
                                         "a quote inside unquoted field %zu (quote the whole "
                                         "field and double the quotes inside)",
                                         r->nf);
                    if (tsv && ch == '\\') {
                        /* mysql --batch escapes; \N alone is NULL */
                        int n2 = getc_unlocked(r->f);
                        switch (n2) {
                            case 'n':
                                ch = '\n';
                                break;
                            case 't':
                                ch = '\t';
                                break;
                            case 'r':
                                ch = '\r';
                                break;
                            case '0':
                                ch = '\0';
                                break;
                            case 'N':
                                ch = -2;
                                break;
                            case EOF:
                                return rows_fail(r, -PLAN_EXIT_INPUT,
                                                 "a backslash at the end of the file");
                            default:
                                ch = n2;
                                break;
                        }
                        if (ch == -2) {
                            if ((rc = buf_put(r, '\\')) < 0 || (rc = buf_put(r, 'N')) < 0)
                                return put_fail(r, rc);
                            ch = getc_unlocked(r->f);
                            continue;
                        }
                        literal = true;
                    }
                    if ((rc = buf_put(r, (char)ch)) < 0)
                        return put_fail(r, rc);
                    ch = getc_unlocked(r->f);
                }
            }
            if ((rc = buf_put(r, '\0')) < 0)
                return put_fail(r, rc);
            if (!quoted && !literal && null_word(r->buf + r->off[r->nf - 1]))
                r->isnull[r->nf - 1] = 1;
            if (ch == '\n' || ch == EOF) {
                if (ch == '\n')
                    r->line++;
                break;
            }
        }
        if (!any && r->nf == 1) /* a blank line */
            continue;
        return 1;
    }
}

void plan_rows_close(struct plan_rows *r) {
    if (r->f)
        fclose(r->f);
    free(r->buf);
    free(r->off);
    free(r->isnull);
    for (size_t i = 0; i < r->nhdr; i++)
        free(r->hdr[i]);
    free(r->hdr);
    json_decref(r->arr);
    json_decref(r->row);
    for (unsigned i = 0; i < r->nscratch; i++)
        free(r->scratch[i]);
    free(r->rb);
    memset(r, 0, sizeof(*r));
}

#define RB_SIZE (1u << 20)

/* One JSON line into r->buf (without '\n'; r->used bytes): 1, 0 at the end
 * of the file, -status on error. */
static int read_jsonl(struct plan_rows *r) {
    bool any = false;
    r->used = 0;
    if (!r->rb && !(r->rb = malloc(RB_SIZE))) {
        plan_error(r->pl, "out of memory");
        return -PLAN_EXIT_FAIL;
    }
    for (;;) {
        const char *nl;
        size_t n;
        if (r->rb_pos == r->rb_len) {
            r->rb_len = fread(r->rb, 1, RB_SIZE, r->f);
            r->rb_pos = 0;
            if (r->rb_len == 0) {
                if (ferror(r->f))
                    return rows_fail(r, -PLAN_EXIT_FAIL, "read error");
                if (any && r->buf)
                    r->buf[r->used] = '\0';
                return any && r->buf ? 1 : 0;
            }
        }
        any = true;
        nl = memchr(r->rb + r->rb_pos, '\n', r->rb_len - r->rb_pos);
        n = nl ? (size_t)(nl - (r->rb + r->rb_pos)) : r->rb_len - r->rb_pos;
        if (r->used + n > ROW_MAX)
            return rows_fail(r, -PLAN_EXIT_INPUT, "row longer than %zu bytes", ROW_MAX);
        if (r->used + n + 1 > r->cap) {
            size_t ncap = r->cap ? r->cap : 65536;
            char *nb;
            while (ncap < r->used + n + 1)
                ncap *= 2;
            nb = realloc(r->buf, ncap);
            if (!nb) {
                plan_error(r->pl, "out of memory");
                return -PLAN_EXIT_FAIL;
            }
            r->buf = nb;
            r->cap = ncap;
        }
        memcpy(r->buf + r->used, r->rb + r->rb_pos, n);
        r->used += n;
        r->rb_pos += n;
        r->buf[r->used] = '\0';
        if (nl) {
            r->rb_pos++;
            return 1;
        }
    }
}

/* Open a row file: the format from the extension or the first bytes. */
int plan_rows_open(struct plan_rows *r, const struct plan *pl, const char *path, const char *what) {
    const char *ext = strrchr(path, '.');
    char why[256];
    int ch;

    memset(r, 0, sizeof(*r));
    r->pl = pl;
    r->path = path;
    r->what = what;
    /* a regular file: a FIFO or a device (/dev/zero) is refused, never read */
    r->f = cli_fopen_read(path, false, why, sizeof(why));
    if (!r->f) {
        plan_error(r->pl, "%s %s: %s", what, path, why);
        return PLAN_EXIT_INPUT;
    }
    /* a UTF-8 byte order mark */
    ch = getc_unlocked(r->f);
    if (ch == 0xef) {
        if (getc_unlocked(r->f) != 0xbb || getc_unlocked(r->f) != 0xbf) {
            plan_error(r->pl, "%s: not UTF-8 text", path);
            return PLAN_EXIT_INPUT;
        }
    } else if (ch != EOF) {
        ungetc(ch, r->f);
    }
    if (ext && (strcmp(ext, ".jsonl") == 0 || strcmp(ext, ".ndjson") == 0)) {
        r->fmt = PLAN_ROWS_JSONL;
    } else if (ext && strcmp(ext, ".tsv") == 0) {
        r->fmt = PLAN_ROWS_TSV;
    } else {
        /* sniff: '[' a JSON list, '{' JSON lines, else a header line; at
         * most ROW_MAX bytes are looked at */
        int first;
        size_t seen = 0;
        long pos = ftell(r->f);
        do
            first = getc_unlocked(r->f);
        while ((first == ' ' || first == '\t' || first == '\r' || first == '\n') &&
               ++seen <= ROW_MAX);
        if (first == EOF) {
            if (ferror(r->f)) {
                plan_error(r->pl, "%s %s: read error: %s", what, path, strerror(errno));
                return PLAN_EXIT_FAIL;
            }
            plan_error(r->pl, "%s %s: empty file", what, path);
            return PLAN_EXIT_INPUT;
        }
        if (seen > ROW_MAX) {
            plan_error(r->pl, "%s %s: more than %zu bytes of blank space at the start", what, path,
                       (size_t)ROW_MAX);
            return PLAN_EXIT_INPUT;
        }
        if (first == '[')
            r->fmt = PLAN_ROWS_JSONARRAY;
        else if (first == '{')
            r->fmt = PLAN_ROWS_JSONL;
        else if (ext && strcmp(ext, ".csv") == 0)
            r->fmt = PLAN_ROWS_CSV;
        else {
            /* the header line decides: tabs and no comma = mysql batch output */
            bool tab = false, comma = false;
            for (ch = first; ch != EOF && ch != '\n'; ch = getc_unlocked(r->f)) {
                tab |= ch == '\t';
                comma |= ch == ',';
                if (++seen > ROW_MAX) {
                    plan_error(r->pl, "%s %s: no header line in the first %zu bytes", what, path,
                               (size_t)ROW_MAX);
                    return PLAN_EXIT_INPUT;
                }
            }
            r->fmt = tab && !comma ? PLAN_ROWS_TSV : PLAN_ROWS_CSV;
        }
        if (fseek(r->f, pos, SEEK_SET) != 0) {
            plan_error(r->pl, "%s %s: cannot seek (give a regular file)", what, path);
            return PLAN_EXIT_INPUT;
        }
    }
    if (r->fmt == PLAN_ROWS_JSONARRAY) {
        json_error_t jerr;
        struct nul_reader nr = {r->f, 1, 1, false, false, 0};
        r->arr = json_load_callback(read_refusing_nul, &nr, JSON_REJECT_DUPLICATES, &jerr);
        if (nr.err || nr.nul) {
            /* jansson saw an end of input there and may have read a whole list */
            json_decref(r->arr);
            r->arr = NULL;
        }
        if (nr.err) {
            plan_error(r->pl, "%s %s: read error: %s", what, path, strerror(nr.errnum));
            return PLAN_EXIT_FAIL;
        }
        if (nr.nul) {
            plan_error(r->pl, "%s:%lu:%lu: malformed JSON: a NUL byte in the JSON text", path,
                       nr.line, nr.col);
            return PLAN_EXIT_INPUT;
        }
        if (!r->arr) {
            if (cli_json_error(&jerr, why, sizeof(why)) == -ENOMEM) {
                plan_error(r->pl, "%s %s: %s", what, path, why);
                return PLAN_EXIT_FAIL;
            }
            plan_error(r->pl, "%s:%d:%d: malformed JSON: %s", path, jerr.line, jerr.column,
                       jerr.text);
            return PLAN_EXIT_INPUT;
        }
        if (!json_is_array(r->arr)) {
            plan_error(r->pl, "%s: expected a JSON list of rows", path);
            return PLAN_EXIT_INPUT;
        }
    } else if (r->fmt == PLAN_ROWS_CSV || r->fmt == PLAN_ROWS_TSV) {
        int rc = read_record(r);
        if (rc < 0)
            return -rc;
        if (rc == 0) {
            plan_error(r->pl, "%s %s: empty file", what, path);
            return PLAN_EXIT_INPUT;
        }
        r->hdr = calloc(r->nf, sizeof(char *));
        if (!r->hdr) {
            plan_error(r->pl, "out of memory");
            return PLAN_EXIT_FAIL;
        }
        r->nhdr = r->nf;
        for (size_t i = 0; i < r->nf; i++) {
            const char *s = r->buf + r->off[i];
            size_t n;
            while (*s == ' ')
                s++;
            n = strlen(s);
            while (n && s[n - 1] == ' ')
                n--;
            r->hdr[i] = strndup(s, n);
            if (!r->hdr[i]) {
                plan_error(r->pl, "out of memory");
                return PLAN_EXIT_FAIL;
            }
        }
    }
    return 0;
}

/* The next row: 1, 0 at the end, -status on error. */
int plan_rows_next(struct plan_rows *r) {
    for (unsigned i = 0; i < r->nscratch; i++)
        free(r->scratch[i]);
    r->nscratch = 0;
    json_decref(r->row);
    r->row = NULL;
    r->fast = false;
    if (r->fmt == PLAN_ROWS_JSONARRAY) {
        if (r->arri >= json_array_size(r->arr))
            return 0;
        r->rec_line = r->arri + 1;
        r->row = json_incref(json_array_get(r->arr, r->arri++));
        if (!json_is_object(r->row))
            return rows_fail(r, -PLAN_EXIT_INPUT, "a row must be a JSON object");
        return 1;
    }
    if (r->fmt == PLAN_ROWS_CSV || r->fmt == PLAN_ROWS_TSV) {
        int rc = read_record(r);
        if (rc <= 0)
            return rc;
        if (r->nf != r->nhdr)
            return rows_fail(r, -PLAN_EXIT_INPUT, "%zu fields, the header has %zu", r->nf, r->nhdr);
        return 1;
    }
    /* JSON lines */
    for (;;) {
        int rc;
        json_error_t jerr;
        r->rec_line = r->line + 1;
        rc = read_jsonl(r);
        if (rc <= 0)
            return rc;
        r->line++;
        if (strspn(r->buf, " \t\r") >= r->used)
            continue; /* a blank line */
        if (plan_jsonl_scan(&r->jl, r->buf, r->used)) {
            r->fast = true;
            return 1;
        }
        r->row = cli_json_load(r->buf, r->used, JSON_REJECT_DUPLICATES, &jerr);
        if (!r->row && cli_json_error(&jerr, NULL, 0) == -ENOMEM)
            return rows_fail(r, -PLAN_EXIT_FAIL, "out of memory");
        if (!r->row)
            return rows_fail(r, -PLAN_EXIT_INPUT, "malformed JSON (column %d): %s", jerr.column,
                             jerr.text);
        if (!json_is_object(r->row))
            return rows_fail(r, -PLAN_EXIT_INPUT, "a row must be a JSON object");
        return 1;
    }
}

/* Does the file have this column (CSV/TSV), or this row this key (JSON)? */
bool plan_rows_has(const struct plan_rows *r, const char *col) {
    if (r->fast)
        return plan_jsonl_get(&r->jl, col) != NULL;
    if (r->row)
        return json_object_get(r->row, col) != NULL;
    for (size_t i = 0; i < r->nhdr; i++)
        if (strcmp(r->hdr[i], col) == 0)
            return true;
    return false;
}

/* A JSON row's value that is not a string (CSV fields always are). */
bool plan_rows_not_string(const struct plan_rows *r, const char *col) {
    json_t *v;
    if (r->fast) {
        const struct plan_jsonl_member *m = plan_jsonl_get(&r->jl, col);
        return m && m->type != 's' && m->type != 'z';
    }
    v = r->row ? json_object_get(r->row, col) : NULL;
    return v && !json_is_string(v) && !json_is_null(v);
}

/* A fast row's string value, decoded (jansson on the literal, rare). */
static int fast_string(struct plan_rows *r, const struct plan_jsonl_member *m, const char **ret,
                       size_t *ret_len) {
    json_t *v;
    char *s;
    if (!m->esc) {
        *ret = m->val + 1;
        *ret_len = m->vlen - 2;
        return PLAN_COL_VALUE;
    }
    if (r->nscratch == 4)
        return -1;
    v = json_loadb(m->val, m->vlen, JSON_DECODE_ANY, NULL);
    if (!v || !json_is_string(v)) {
        json_decref(v);
        return -1;
    }
    s = malloc(json_string_length(v) + 1);
    if (!s) {
        json_decref(v);
        return -1;
    }
    memcpy(s, json_string_value(v), json_string_length(v) + 1);
    *ret_len = json_string_length(v);
    json_decref(v);
    r->scratch[r->nscratch++] = s;
    *ret = s;
    return PLAN_COL_VALUE;
}

/* The value of a column of the current row, as text (a JSON object or list
 * is written out as JSON). Returns COL_*; -1 when out of memory. */
int plan_rows_get(struct plan_rows *r, const char *col, const char **ret, size_t *ret_len) {
    if (r->fast) {
        const struct plan_jsonl_member *m = plan_jsonl_get(&r->jl, col);
        if (!m)
            return PLAN_COL_MISSING;
        if (m->type == 'z')
            return PLAN_COL_NULL;
        if (m->type == 's')
            return fast_string(r, m, ret, ret_len);
        *ret = m->val; /* numbers, booleans, objects, lists: their JSON text */
        *ret_len = m->vlen;
        return PLAN_COL_VALUE;
    }
    if (r->row) {
        json_t *v = json_object_get(r->row, col);
        char *s = NULL;
        if (!v)
            return PLAN_COL_MISSING;
        if (json_is_null(v))
            return PLAN_COL_NULL;
        if (json_is_string(v)) {
            *ret = json_string_value(v);
            *ret_len = json_string_length(v);
            return PLAN_COL_VALUE;
        }
        if (r->nscratch == 4)
            return -1;
        if (json_is_number(v) || json_is_boolean(v) || json_is_object(v) || json_is_array(v))
            s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        if (!s)
            return -1;
        r->scratch[r->nscratch++] = s;
        *ret = s;
        *ret_len = strlen(s);
        return PLAN_COL_VALUE;
    }
    for (size_t i = 0; i < r->nhdr; i++) {
        if (strcmp(r->hdr[i], col) != 0)
            continue;
        if (r->isnull[i])
            return PLAN_COL_NULL;
        *ret = r->buf + r->off[i];
        /* fields may hold NUL bytes (\0 in mysql output): the length is up to
         * the next field */
        *ret_len = (i + 1 < r->nf ? r->off[i + 1] : r->used) - r->off[i] - 1;
        return PLAN_COL_VALUE;
    }
    return PLAN_COL_MISSING;
}

/* A topology column as JSON text for the library: a fast row's string value
 * stays a JSON string literal (the library reads nova's string form), every
 * other value as plan_rows_get() gives it. An empty string counts as NULL. */
int plan_rows_get_json(struct plan_rows *r, const char *col, const char **ret, size_t *ret_len) {
    if (r->fast) {
        const struct plan_jsonl_member *m = plan_jsonl_get(&r->jl, col);
        if (!m)
            return PLAN_COL_MISSING;
        if (m->type == 'z' || (m->type == 's' && m->vlen == 2))
            return PLAN_COL_NULL;
        *ret = m->val;
        *ret_len = m->vlen;
        return PLAN_COL_VALUE;
    }
    return plan_rows_get(r, col, ret, ret_len);
}

/* A ratio column: 0 = not given (NULL, missing, 0.0). */
int plan_rows_ratio(struct plan_rows *r, const char *col, double *ret) {
    const char *s;
    size_t n;
    char buf[64], *end;
    int k = plan_rows_get(r, col, &s, &n);
    *ret = 0;
    if (k < 0)
        return -1;
    if (k != PLAN_COL_VALUE)
        return 0;
    if (n == 0)
        return 0;
    if (n >= sizeof(buf))
        return -2;
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    *ret = strtod(buf, &end);
    /* as jansson: an underflow reads as its (tiny or zero) value, only an
     * overflow is refused */
    if ((errno && !(errno == ERANGE && isfinite(*ret))) || *end || end == buf || !isfinite(*ret) ||
        *ret < 0 || *ret > 1e6)
        return -2;
    return 0;
}

int plan_rows_count(struct plan_rows *r, const char *col, int64_t max, int64_t *ret) {
    const char *s;
    size_t n;
    int64_t v = 0;
    int k = plan_rows_get(r, col, &s, &n);
    *ret = -1;
    if (k < 0)
        return -1;
    if (k != PLAN_COL_VALUE || n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (max - (s[i] - '0')) / 10)
            return -2;
        v = v * 10 + (s[i] - '0');
    }
    *ret = v;
    return 0;
}

/* A "deleted" column: a number other than 0 (as jansson reads it: -0, 0.0
 * are 0), or any text but "false". */
bool plan_row_deleted(const char *s, size_t n) {
    char buf[64], *end;
    double v;
    if (n == 0)
        return false;
    if (n < sizeof(buf)) {
        memcpy(buf, s, n);
        buf[n] = '\0';
        errno = 0;
        v = strtod(buf, &end);
        if (end != buf && !*end)
            return v != 0;
    }
    return !(n == 5 && !strncmp(s, "false", 5));
}

const char *plan_row_host_name(int k, const char *v, size_t n, bool not_string, char *out,
                               size_t cap) {
    if (k == PLAN_COL_MISSING)
        return "missing";
    if (k == PLAN_COL_NULL)
        return "null";
    if (k != PLAN_COL_VALUE || n == 0 || n >= cap || memchr(v, '\0', n) || not_string)
        return "must be a string of 1 to 255 bytes";
    memcpy(out, v, n);
    out[n] = '\0';
    return NULL;
}
