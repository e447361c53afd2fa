/*
 * A one-off fit: where does one instance of a flavor go on a host?
 *
 *   fit HOST.json FLAVOR.json
 *
 * HOST.json is nova's NUMATopology (compute_nodes.numa_topology), FLAVOR.json
 * {"vcpus":N,"memory_mb":N,"extra_specs":{...}}. Prints the placement as
 * nova's InstanceNUMATopology cells; exit status 0 it fits, 3 it does not
 * (with the reason), 1 error.
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
    char *hj, *fj, *out = NULL;
    size_t hn, fn;
    int rc, status = 1;

    if (argc != 3) {
        fprintf(stderr, "usage: fit HOST.json FLAVOR.json\n");
        return 2;
    }
    hj = slurp(argv[1], &hn);
    fj = slurp(argv[2], &fn);
    if (!hj || !fj || numafit_host_new_from_json(hj, hn, 0, &host, &err) < 0 ||
        numafit_request_new(fj, fn, NULL, 0, 0, &req, &err) != 1) {
        fprintf(stderr, "fit: cannot read the host or the flavor, or no NUMA request\n");
        goto out;
    }
    /* NULL options: nova latest, spread, no limits, the default budget */
    rc = numafit_fit(host, req, NULL, 0, &p, &err);
    if (rc < 0) {
        fprintf(stderr, "fit: %s\n", err.text);
    } else if (rc == 0) {
        printf("does not fit: %s\n", err.text);
        status = 3;
    } else if (numafit_placement_to_json(p, 0, &out, &err) == 0) {
        printf("%s\n", out);
        status = 0;
    }
out:
    numafit_free(out);
    numafit_placement_free(p);
    numafit_request_free(req);
    numafit_host_free(host);
    free(hj);
    free(fj);
    return status;
}
