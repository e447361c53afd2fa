/*
 * Fit and claim until the host is full: how many instances of a flavor does
 * a host take?
 *
 *   claim_loop HOST.json FLAVOR.json
 *
 * Each placement is claimed on the host (its CPUs pinned, its memory and
 * pages used, as nova's resource tracker does), so the next fit sees what is
 * left. Prints "N instances" and the host afterwards as nova's JSON.
 */
#include <stdio.h>
#include <stdlib.h>

#include <numafit.h>

/* A small file (at most 1 MiB here), NUL-terminated. */
static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *buf = f ? malloc(1 << 20) : NULL;
    *len = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    if (buf)
        buf[*len] = '\0';
    if (f)
        fclose(f);
    return buf;
}

int main(int argc, char **argv) {
    numafit_host_t *host = NULL;
    numafit_request_t *req = NULL;
    numafit_placement_t *p = NULL;
    numafit_error_t err;
    char *hj, *fj, *after = NULL;
    size_t hn, fn;
    int n = 0, rc = 1;

    if (argc != 3) {
        fprintf(stderr, "usage: claim_loop HOST.json FLAVOR.json\n");
        return 2;
    }
    hj = slurp(argv[1], &hn);
    fj = slurp(argv[2], &fn);
    if (!hj || !fj || numafit_host_new_from_json(hj, hn, 0, &host, &err) < 0 ||
        numafit_request_new(fj, fn, NULL, 0, 0, &req, &err) != 1) {
        fprintf(stderr, "claim_loop: cannot read the host or the flavor, or no NUMA request\n");
        goto out;
    }
    /* 1: it fits; 0: it does not (err says why); < 0: an error */
    while ((rc = numafit_fit(host, req, NULL, 0, &p, &err)) == 1) {
        rc = numafit_host_claim(host, p, 0, &err);
        numafit_placement_free(p);
        p = NULL;
        if (rc < 0)
            break;
        n++;
    }
    if (rc < 0) {
        fprintf(stderr, "claim_loop: %s\n", err.text);
        goto out;
    }
    printf("%d instances (the next one: %s)\n", n, err.text);
    if (numafit_host_to_json(host, 0, &after, &err) == 0)
        printf("%s\n", after);
out:
    numafit_free(after);
    numafit_request_free(req);
    numafit_host_free(host);
    free(hj);
    free(fj);
    return rc < 0 ? 1 : 0;
}
