/*
 * libFuzzer target: the saved-plan reader of `numafit render`
 * (tools/numafit/plan_render.c, linked as it is): a fleet plan as `numafit plan
 * --json` writes it (doc/plan-json.md), drawn as SVG (the first strategy,
 * and "pack") and as an HTML page.
 *
 * Input: the plan JSON (refused by jansson: nothing to do, as the CLI).
 * Invariants: each renderer returns 0 with output, or -1 with a message;
 * the SVG is well-formed XML (when libxml2 is there).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#ifdef HAVE_LIBVIRT
#include <libxml/parser.h>
#endif

#include "../../tools/numafit/plan_render.h"
#include "invariants.h"

static void render(const json_t *plan, int svg, const char *strategy) {
    char err[256], *out = NULL;
    size_t n = 0;
    FILE *mem = open_memstream(&out, &n);
    int rc;

    FUZZ_ASSERT(mem != NULL);
    memset(err, 'x', sizeof(err));
    err[sizeof(err) - 1] = '\0';
    rc = svg ? plan_render_svg(plan, strategy, mem, err, sizeof(err))
             : plan_render_html(plan, mem, err, sizeof(err));
    FUZZ_ASSERT(fclose(mem) == 0);
    FUZZ_ASSERT(rc == 0 || rc == -1);
    if (rc < 0) {
        FUZZ_ASSERT(err[0] != '\0' && strlen(err) < sizeof(err));
    } else {
        FUZZ_ASSERT(n > 0);
#ifdef HAVE_LIBVIRT
        if (svg) {
            xmlDocPtr d = xmlReadMemory(out, (int)n, "plan.svg", NULL,
                                        XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
            if (!d)
                fuzz_note("the SVG is not well-formed XML");
            FUZZ_ASSERT(d != NULL);
            xmlFreeDoc(d);
        }
#endif
    }
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    json_t *plan = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);

    if (!plan)
        return 0;
    render(plan, 1, NULL);
    render(plan, 1, "pack");
    render(plan, 0, NULL);
    json_decref(plan);
    return 0;
}
