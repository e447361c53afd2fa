/*
 * A small capacity plan: how many instances of a flavor fit on a fleet?
 *
 *   plan FLAVOR.json HOST.json...
 *
 * Each host is filled on a copy (numafit_host_dup: a what-if that leaves the
 * loaded host as it was) with numafit_host_fill(), which fits and claims
 * until the next instance does not fit (claim_loop.c writes that loop out). Prints the count per
 * host and the total. `numafit plan` does the same over thousands of hosts and several flavors,
 * with stranded capacity and the reasons a flavor fits nowhere.
 */
#include <stdint.h>
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

/* How many instances of req the host takes; -1 on an error. */
static int fill(const numafit_host_t *host, const numafit_request_t *req) {
    const numafit_request_t *reqs[1] = {req};
    numafit_host_t *h = NULL;
    uint64_t n = 0;
    int rc;

    if (numafit_host_dup(host, &h) < 0)
        return -1;
    /* until full (or a maximum, not wanted here); n counts the claims */
    rc = numafit_host_fill(h, reqs, 1, NULL, NUMAFIT_FILL_NO_MAX, 0, NULL, NULL, &n, NULL);
    numafit_host_free(h);
    return rc < 0 ? -1 : (int)n;
}

int main(int argc, char **argv) {
    numafit_request_t *req = NULL;
    char *fj, *hj;
    size_t fn, hn;
    int total = 0;

    if (argc < 3) {
        fprintf(stderr, "usage: plan FLAVOR.json HOST.json...\n");
        return 2;
    }
    fj = slurp(argv[1], &fn);
    if (!fj || numafit_request_new(fj, fn, NULL, 0, 0, &req, NULL) != 1) {
        fprintf(stderr, "plan: %s: cannot read the flavor, or no NUMA request\n", argv[1]);
        return 1;
    }
    for (int i = 2; i < argc; i++) {
        numafit_host_t *host = NULL;
        int n = -1;
        hj = slurp(argv[i], &hn);
        if (hj && numafit_host_new_from_json(hj, hn, 0, &host, NULL) == 0)
            n = fill(host, req);
        numafit_host_free(host);
        free(hj);
        if (n < 0) {
            fprintf(stderr, "plan: %s: cannot read or fill the host\n", argv[i]);
            return 1;
        }
        printf("%-40s %d\n", argv[i], n);
        total += n;
    }
    printf("total %d\n", total);
    numafit_request_free(req);
    free(fj);
    return 0;
}
