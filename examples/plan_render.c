/* Stub: replaced by the renderer. */
#include "config.h"

#include <stdio.h>

#include "plan_render.h"

int plan_render_svg(const json_t *plan, const char *strategy, FILE *out, char *err,
                    size_t errlen) {
    (void)plan, (void)strategy, (void)out;
    snprintf(err, errlen, "not implemented");
    return -1;
}

int plan_render_html(const json_t *plan, FILE *out, char *err, size_t errlen) {
    (void)plan, (void)out;
    snprintf(err, errlen, "not implemented");
    return -1;
}
