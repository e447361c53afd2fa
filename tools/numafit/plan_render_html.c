/*
 * Pictures of a fleet plan: one self-contained HTML page with the tables of
 * every strategy and their SVG pictures (plan_render_svg.c).
 */
#include "config.h"

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli_fmt.h"
#include "plan_render.h"
#include "plan_render_model.h"

/* A table cell holding count v, grouped as the text report groups it. */
static void html_num(FILE *o, long long v) {
    char b[48];
    fprintf(o, "<td>%s</td>", cli_fmt_count(v, b, sizeof(b)));
}

static void html_table_flavors(FILE *o, const struct plan *p) {
    size_t i, k;

    fputs("<table class=\"flavors\">\n<thead><tr><th>flavor</th><th>vCPUs</th>"
          "<th>memory MiB</th>",
          o);
    for (k = 0; k < p->nres; k++) {
        fputs("<th>", o);
        plan_render_esc(o, p->res[k].name);
        fputs(" alone</th><th>", o);
        plan_render_esc(o, p->res[k].name);
        fputs(" mixed</th>", o);
    }
    fputs("</tr></thead>\n<tbody>\n", o);
    for (i = 0; i < p->nflavors; i++) {
        const json_t *f = p->flavor_json[i];
        fputs("<tr><td>", o);
        plan_render_esc(o, p->flavors[i]);
        fputs("</td>", o);
        if (f && json_is_integer(json_object_get(f, "vcpus")))
            html_num(o, (long long)json_integer_value(json_object_get(f, "vcpus")));
        else
            fputs("<td></td>", o);
        if (f && json_is_integer(json_object_get(f, "memory_mb")))
            html_num(o, (long long)json_integer_value(json_object_get(f, "memory_mb")));
        else
            fputs("<td></td>", o);
        for (k = 0; k < p->nres; k++)
            if (p->planned[i]) {
                html_num(o, plan_render_count_of(p->res[k].alone, p->flavors[i]));
                html_num(o, plan_render_count_of(p->res[k].mixed, p->flavors[i]));
            } else
                fputs("<td class=\"l\" colspan=\"2\">not planned (no NUMA topology)</td>", o);
        fputs("</tr>\n", o);
    }
    fputs("<tr class=\"total\"><td>total</td><td></td><td></td>", o);
    for (k = 0; k < p->nres; k++) {
        if (p->res[k].has_mixed_total) {
            fputs("<td></td>", o);
            html_num(o, p->res[k].mixed_total);
        } else
            fputs("<td></td><td></td>", o);
    }
    fputs("</tr>\n</tbody>\n</table>\n", o);
    if (p->hidden_flavors)
        fprintf(o, "<p class=\"note\">%zu more flavors not listed.</p>\n", p->hidden_flavors);
}

/* A table cell holding integer v, empty if v is not one. */
static void html_count(FILE *o, const json_t *v) {
    if (json_is_integer(v))
        html_num(o, (long long)json_integer_value(v));
    else
        fputs("<td></td>", o);
}

/* numafit plan --target N: per strategy, the hosts N instances of the mix
 * need, or how many of them the fleet holds. */
static void html_table_target(FILE *o, const struct plan *p) {
    char b1[48], b2[48];
    size_t k;

    if (!p->has_target)
        return;
    fprintf(o, "<p>Target: %s instances of the mix, hosts taken in fleet order.</p>\n",
            cli_fmt_count(p->target_instances, b1, sizeof(b1)));
    fputs("<table class=\"target\">\n<thead><tr><th>strategy</th><th>hosts needed</th>"
          "<th>instances placed</th></tr></thead>\n<tbody>\n",
          o);
    for (k = 0; k < p->nres; k++) {
        const struct res *s = &p->res[k];
        if (!s->has_target)
            continue;
        fputs("<tr><td>", o);
        plan_render_esc(o, s->name);
        fputs("</td>", o);
        if (s->target_reachable)
            html_num(o, s->target_needed);
        else
            fputs("<td class=\"l\">not reachable with this fleet</td>", o);
        fprintf(o, "<td>%s of %s</td></tr>\n", cli_fmt_count(s->target_placed, b1, sizeof(b1)),
                cli_fmt_count(p->target_instances, b2, sizeof(b2)));
    }
    fputs("</tbody>\n</table>\n", o);
}

static void html_table_summary(FILE *o, const struct res *s) {
    char num[48];
    const json_t *x, *v;
    const char *k;
    size_t i;

    if (!json_array_size(s->summary))
        return;
    fputs("<table class=\"hosts\">\n<thead><tr><th>host stranding most</th><th>new instances</th>"
          "<th>stranded pCPUs</th><th>stranded memory MiB</th></tr></thead>\n<tbody>\n",
          o);
    json_array_foreach(s->summary, i, x) {
        bool first = true;
        if (i == MAX_SUMMARY)
            break;
        fputs("<tr><td>", o);
        plan_render_esc(o, json_string_value(json_object_get(x, "name")));
        fputs("</td><td class=\"l\">", o);
        json_object_foreach(json_object_get(x, "mixed"), k, v) {
            fputs(first ? "" : ", ", o);
            plan_render_esc(o, k);
            fprintf(o, " %s", cli_fmt_count((long long)json_integer_value(v), num, sizeof(num)));
            first = false;
        }
        fputs("</td>", o);
        v = json_object_get(x, "stranded_pcpus");
        html_count(o, v);
        v = json_object_get(x, "stranded_memory_mb");
        html_count(o, v);
        fputs("</tr>\n", o);
    }
    fputs("</tbody>\n</table>\n", o);
    if (json_array_size(s->summary) > MAX_SUMMARY)
        fprintf(o, "<p class=\"note\">%zu more hosts not listed.</p>\n",
                json_array_size(s->summary) - MAX_SUMMARY);
}

int plan_render_html(const json_t *plan, FILE *out, char *err, size_t errlen) {
    struct plan p;
    struct line fleet;
    char dummy[8], pid[24];
    size_t k;

    if (!err || !errlen)
        err = dummy, errlen = sizeof(dummy);
    if (!plan || !out) {
        snprintf(err, errlen, "no plan or no output");
        return -1;
    }
    if (plan_render_read(plan, NULL, &p, err, errlen) < 0) {
        plan_render_free(&p);
        return -1;
    }
    plan_render_fleet_line(&p, &fleet);
    fputs("<!DOCTYPE html>\n"
          "<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n"
          "<head>\n"
          "<meta charset=\"utf-8\"/>\n"
          "<title>numafit plan</title>\n"
          "<style>\n"
          "body { font-family: \"DejaVu Sans\", Arial, sans-serif; font-size: 14px;\n"
          "       color: #222222; background: #ffffff; margin: 16px; }\n"
          "h1 { font-size: 20px; margin: 0 0 6px 0; }\n"
          "h2 { font-size: 17px; margin: 22px 0 8px 0; }\n"
          "table { border-collapse: collapse; margin: 8px 0; }\n"
          "th, td { border: 1px solid #bbbbbb; padding: 2px 8px; text-align: right; }\n"
          "th:first-child, td:first-child { text-align: left; }\n"
          "thead th { background: #eeeeee; }\n"
          "tr.total td { font-weight: bold; }\n"
          ".note { color: #8a4b00; }\n"
          "td.l { text-align: left; }\n"
          ".picture { overflow-x: auto; }\n"
          ".picture svg { display: block; }\n"
          "</style>\n"
          "</head>\n"
          "<body>\n"
          "<h1>numafit plan</h1>\n<p>",
          out);
    plan_render_esc(out, fleet.s);
    fputs("</p>\n", out);
    html_table_flavors(out, &p);
    html_table_target(out, &p);
    if (p.hidden_res)
        fprintf(out, "<p class=\"note\">%zu more strategies not shown.</p>\n", p.hidden_res);
    for (k = 0; k < p.nres; k++) {
        fputs("<h2>Strategy ", out);
        plan_render_esc(out, p.res[k].name);
        fputs("</h2>\n", out);
        html_table_summary(out, &p.res[k]);
        fputs("<div class=\"picture\">\n", out);
        snprintf(pid, sizeof(pid), "nf%zu", k);
        plan_render_picture(out, &p, &p.res[k], pid, false);
        fputs("</div>\n", out);
    }
    fputs("</body>\n</html>\n", out);
    plan_render_free(&p);
    return plan_render_finish(out, err, errlen);
}
