/*
 * numafit render: draw a saved fleet plan (the output of `numafit plan
 * --json`, doc/plan-json.md) as SVG and/or HTML (doc/plan-pictures.md).
 *
 *   numafit render PLAN.json [--svg FILE] [--html FILE] [--strategy S]
 *
 * Exit status: 0 written, 1 write error, 2 usage or a bad plan.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "cli_io.h"
#include "plan_render.h"

#define RENDER_EXIT_IO    1
#define RENDER_EXIT_USAGE CLI_EXIT_USAGE
#define RENDER_INPUT_MAX  (256u << 20) /* bytes of plan read at most */

static void render_usage(FILE *o) {
    fprintf(o, "usage: numafit render PLAN.json [--svg FILE] [--html FILE] [--strategy S]\n"
               "\n"
               "Draw a saved fleet plan (`numafit plan ... --json > PLAN.json`; - reads\n"
               "standard input): each drawn host's NUMA cells, cores and threads with the\n"
               "instances pinned on them, and a chart of used, stranded and free capacity.\n"
               "\n"
               "  --svg FILE       one strategy as an SVG picture (- = standard output)\n"
               "  --html FILE      every strategy on one self-contained HTML page\n"
               "  --strategy S     the strategy the SVG shows (default: the plan's first)\n"
               "\n"
               "At least one of --svg and --html is needed. Nothing is written when the plan\n"
               "is refused (the message names the JSON path at fault); each file is written\n"
               "whole or not at all (a temporary file renamed into place).\n"
               "Exit status: 0 written, 1 write error, 2 usage or a bad plan.\n");
}

/* Render into memory with svg (or html when svg is false): *ret_data and
 * *ret_n, or an exit status with the message printed. */
static int render_one(const json_t *plan, const char *strategy, bool svg, const char *input,
                      char **ret_data, size_t *ret_n) {
    char err[256] = "", *data = NULL;
    size_t n = 0;
    FILE *mem = open_memstream(&data, &n);
    int rc;

    if (!mem) {
        fprintf(stderr, "numafit render: out of memory\n");
        return RENDER_EXIT_IO;
    }
    rc = svg ? plan_render_svg(plan, strategy, mem, err, sizeof(err))
             : plan_render_html(plan, mem, err, sizeof(err));
    if (fclose(mem) != 0 && rc == 0) {
        snprintf(err, sizeof(err), "out of memory");
        rc = -1;
    }
    if (rc < 0) {
        fprintf(stderr, "numafit render: %s: %s\n", input, err);
        free(data);
        return strcmp(err, "out of memory") && strcmp(err, "write error") ? RENDER_EXIT_USAGE
                                                                          : RENDER_EXIT_IO;
    }
    *ret_data = data;
    *ret_n = n;
    return 0;
}

/* Write a rendered picture: atomically (a temporary file renamed), so a
 * failure leaves no partial file; "-" is standard output. */
static int render_write(const char *path, const char *data, size_t n) {
    char why[300];
    if (cli_write_file(path, data, n, why, sizeof(why)) < 0) {
        fprintf(stderr, "numafit render: %s: %s\n", strcmp(path, "-") ? path : "standard output",
                why);
        return RENDER_EXIT_IO;
    }
    return 0;
}

int cmd_render(int argc, char **argv) {
    const char *input = NULL, *svg = NULL, *html = NULL, *strategy = NULL;
    json_error_t jerr;
    json_t *plan;
    char *text, *svg_data = NULL, *html_data = NULL, why[200];
    size_t len, svg_n = 0, html_n = 0;
    int i, rc = 0;

    for (i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char **dst = NULL;
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            render_usage(stdout);
            return 0;
        }
        if (!strcmp(o, "--svg"))
            dst = &svg;
        else if (!strcmp(o, "--html"))
            dst = &html;
        else if (!strcmp(o, "--strategy"))
            dst = &strategy;
        if (dst) {
            if (i + 1 >= argc) {
                fprintf(stderr, "numafit render: %s needs a value\n", o);
                goto usage;
            }
            *dst = argv[++i];
            continue;
        }
        if (o[0] == '-' && o[1]) {
            fprintf(stderr, "numafit render: unknown option '%s'\n", o);
            goto usage;
        }
        if (input) {
            fprintf(stderr, "numafit render: one plan only ('%s' and '%s')\n", input, o);
            goto usage;
        }
        input = o;
    }
    if (!input) {
        fprintf(stderr, "numafit render: no plan given\n");
        goto usage;
    }
    if (!svg && !html) {
        fprintf(stderr, "numafit render: nothing to write: give --svg FILE and/or --html FILE\n");
        goto usage;
    }
    if (strategy && !svg) {
        fprintf(stderr, "numafit render: --strategy chooses the SVG's strategy: give --svg "
                        "(the HTML page shows every strategy)\n");
        goto usage;
    }
    if (svg && html && !strcmp(svg, html) && strcmp(svg, "-")) {
        fprintf(stderr, "numafit render: --svg and --html name the same file '%s'\n", svg);
        goto usage;
    }
    if (svg && html && !strcmp(svg, "-") && !strcmp(html, "-")) {
        fprintf(stderr, "numafit render: --svg and --html cannot both be standard output\n");
        goto usage;
    }

    /* "-": stdin; otherwise a regular file */
    text = cli_read_input("numafit render", NULL, input, RENDER_INPUT_MAX, true, &len, NULL);
    if (!text)
        return RENDER_EXIT_USAGE;
    plan = cli_json_load(text, len, JSON_REJECT_DUPLICATES, &jerr);
    free(text);
    if (!plan) {
        rc = cli_json_error(&jerr, why, sizeof(why));
        fprintf(stderr, "numafit render: %s: %s\n", input, why);
        return rc == -ENOMEM ? RENDER_EXIT_IO : RENDER_EXIT_USAGE;
    }
    /* both pictures are drawn before anything is written: a plan refused by
     * either leaves no file */
    if (svg)
        rc = render_one(plan, strategy, true, input, &svg_data, &svg_n);
    if (!rc && html)
        rc = render_one(plan, NULL, false, input, &html_data, &html_n);
    json_decref(plan);
    if (!rc && svg)
        rc = render_write(svg, svg_data, svg_n);
    if (!rc && html)
        rc = render_write(html, html_data, html_n);
    free(svg_data);
    free(html_data);
    return rc;

usage:
    fprintf(stderr, "Try 'numafit render --help'.\n");
    return RENDER_EXIT_USAGE;
}
