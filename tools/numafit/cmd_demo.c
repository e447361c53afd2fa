/*
 * numafit demo: the real-time flavor of seed document 000 on a Huawei
 * RH2288H V3 (demo.h): one placement, then how many the host takes.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include <numafit.h>

#include "cli.h"
#include "cli_fit.h"
#include "demo.h"

static void usage_demo(FILE *o) {
    fprintf(o, "usage: numafit demo [--nova-release R] [--strategy S] [--budget N]\n"
               "\n"
               "Fit the real-time flavor of seed document 000 (4 dedicated vCPUs, 2 of them\n"
               "realtime, 8 GiB on 1 GiB pages) on a Huawei RH2288H V3 and count how many\n"
               "such instances the host takes.\n"
               "\n"
               "  --nova-release R   latest (default) or zed\n"
               "  --strategy S       spread (default), pack or headroom (not nova's)\n");
    cli_budget_help(o, 2, 21);
}
static int demo_main(const struct fit_cli *c) {
    json_t *host, *flavor;
    struct run fit, plan;
    numafit_cpuset_t *rt;
    int ret = 1;

    host = json_loads(demo_host_json, 0, NULL);
    flavor = json_loads(demo_flavor_json, 0, NULL);
    if (!host || !flavor) {
        fprintf(stderr, "numafit demo: built-in data is broken\n");
        json_decref(host);
        json_decref(flavor);
        return 1;
    }
    printf("numafit %s demo (nova rules: %s, host cell order: %s)\n\n", numafit_version_string(),
           c->fit.profile == NUMAFIT_PROFILE_ZED ? "zed" : "latest",
           c->fit.strategy == NUMAFIT_STRATEGY_PACK ? "pack" : "spread");
    printf("Host: Huawei RH2288H V3, 2 x Xeon E5-2620 v4, hyper-threading off,\n"
           "      cores 4-11 isolated for guests (cpu_dedicated_set=4-11,\n"
           "      cpu_shared_set=0-3,12-15), 16 x 1 GiB hugepages, 251 GiB RAM\n");

    run_job(c, false, host, flavor, NULL, NULL, -1, &batch_labels, true, &fit);
    if (fit.error) {
        fprintf(stderr, "numafit demo: %s: %s\n",
                json_string_value(json_object_get(fit.answer, "error")),
                json_string_value(json_object_get(fit.answer, "message")));
        run_free(&fit);
        goto out;
    }
    print_host_summary(stdout, fit.host0);
    printf("\nFlavor %s: 4 vCPUs, 8192 MiB, hw:cpu_policy=dedicated hw:cpu_realtime=yes\n"
           "      hw:cpu_realtime_mask=^0-1 (vCPUs 2-3 are realtime) hw:mem_page_size=1GB\n\n",
           demo_flavor_name);
    printf("Placement of one instance (spread, as nova sorts the host cells: the most\n"
           "free dedicated pCPUs first, then the most free memory):\n");
    if (fit.nofit) {
        print_why(stdout, fit.answer);
    } else {
        rt = realtime_vcpus(flavor, NULL, fit.vcpus);
        print_placement(stdout, json_object_get(fit.answer, "fit"), fit.host0, rt);
        numafit_cpuset_free(rt);
    }
    run_free(&fit);

    run_job(c, true, host, flavor, NULL, NULL, -1, &batch_labels, false, &plan);
    if (plan.error) {
        fprintf(stderr, "numafit demo: %s: %s\n",
                json_string_value(json_object_get(plan.answer, "error")),
                json_string_value(json_object_get(plan.answer, "message")));
        run_free(&plan);
        goto out;
    }
    printf("\nHow many %s instances the host takes (fit, claim, repeat):\n", demo_flavor_name);
    show_plan(&plan, flavor, -1);
    if (plan.nofit) {
        printf("\nWhy it stops: each instance pins 4 dedicated pCPUs and uses 8 x 1 GiB pages,\n"
               "all that one NUMA cell has of either; with both cells taken, the next\n");
        print_stop_why(c, &plan, flavor, NULL, NULL);
    }
    run_free(&plan);
    ret = 0;
out:
    json_decref(host);
    json_decref(flavor);
    return ret;
}

int cmd_demo(int argc, char **argv) {
    struct fit_cli c;
    int rc = fit_cli_parse(argc, argv, &c, usage_demo);

    if (rc <= 0)
        return rc < 0 ? CLI_EXIT_USAGE : 0;
    return demo_main(&c);
}
