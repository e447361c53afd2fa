/*
 * numafit plan over a fleet: how the planner reports. It never prints:
 * errors (why a loader or a fill failed), warnings and progress go to the
 * caller's sink (struct plan_sink in struct plan); the command line prints
 * them (plan_sink_stderr() in plan_report.c). Without a sink they are
 * dropped.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numafit.h>

#include "plan_fleet.h"

/* Format and hand one note to the sink; a text that does not fit the
 * stack buffer goes on the heap (cut to the buffer if that fails). */
static void vnote(const struct plan *pl, int kind, const char *fmt, va_list ap) {
    char small[1024], *text = small;
    va_list aq;
    int n;

    if (!pl->sink.note)
        return;
    va_copy(aq, ap);
    n = vsnprintf(small, sizeof(small), fmt, aq);
    va_end(aq);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof(small)) {
        char *big = malloc((size_t)n + 1);
        if (big) {
            vsnprintf(big, (size_t)n + 1, fmt, ap);
            text = big;
        }
    }
    pl->sink.note(pl->sink.ctx, kind, text);
    if (text != small)
        free(text);
}

void plan_error(const struct plan *pl, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vnote(pl, PLAN_NOTE_ERROR, fmt, ap);
    va_end(ap);
}

void plan_warning(const struct plan *pl, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vnote(pl, PLAN_NOTE_WARNING, fmt, ap);
    va_end(ap);
}

/* "PREFIX: WHERE: TEXT (Exception)" for a failed library call. */
void plan_lib_error(const struct plan *pl, const char *prefix, int rc, const numafit_error_t *e) {
    const char *text = e && e->text[0] ? e->text : numafit_strerror(rc);
    bool where = e && e->where[0], exc = e && e->exception[0];
    plan_error(pl, "%s: %s%s%s%s%s%s", prefix, where ? e->where : "", where ? ": " : "", text,
               exc ? " (" : "", exc ? e->exception : "", exc ? ")" : "");
}

void plan_tick(const struct plan *pl, int kind, uint64_t n, const char *text) {
    if (pl->sink.tick)
        pl->sink.tick(pl->sink.ctx, kind, n, text);
}
