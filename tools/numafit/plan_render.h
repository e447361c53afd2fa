/* Pictures of a fleet plan (doc/plan-json.md): an SVG of the drawn hosts'
 * cells, cores and threads with the instances pinned on them plus a summary
 * chart, and a self-contained HTML page holding the same. */
#ifndef NUMAFIT_PLAN_RENDER_H
#define NUMAFIT_PLAN_RENDER_H

#include <stdio.h>

#include <jansson.h>

/* Draw strategy `strategy` ("spread", "pack"; NULL: the first one in the
 * plan) of plan as SVG on out. Returns 0, or -1 with a message in err. */
int plan_render_svg(const json_t *plan, const char *strategy, FILE *out, char *err, size_t errlen);
/* Every strategy of plan as one HTML page on out. Returns 0, or -1 with a
 * message in err. */
int plan_render_html(const json_t *plan, FILE *out, char *err, size_t errlen);

#endif
