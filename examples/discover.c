/*
 * Discovery: a host's NUMA topology as nova's libvirt driver builds it, from
 * the capabilities XML libvirt reports (`virsh capabilities`), printed as
 * nova's NUMATopology JSON.
 *
 *   discover CAPS.xml [CPU_DEDICATED_SET]
 *
 * CPU_DEDICATED_SET is nova.conf's [compute] cpu_dedicated_set (e.g. 4-11):
 * those CPUs become pinnable PCPUs, the others stay shared VCPUs.
 * numafit_host_new_from_libvirt() and numafit_host_new_from_sysfs() build
 * the same host from a live connection or a sysfs tree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <numafit.h>
#include <numafit/discover.h>

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
    numafit_hostconf_t *conf = NULL;
    numafit_host_t *host = NULL;
    numafit_error_t err;
    char *xml, *json = NULL;
    size_t len;
    int rc;

    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: discover CAPS.xml [CPU_DEDICATED_SET]\n");
        return 2;
    }
    xml = slurp(argv[1], &len);
    if (!xml || numafit_hostconf_new(&conf) < 0) {
        fprintf(stderr, "discover: cannot read %s\n", argv[1]);
        return 1;
    }
    rc = argc == 3 ? numafit_hostconf_set_cpu_dedicated_set(conf, argv[2], &err) : 0;
    if (rc == 0)
        rc = numafit_host_new_from_caps_xml(xml, len, conf, NULL, 0, &host, &err);
    if (rc == 0)
        rc = numafit_host_to_json(host, NUMAFIT_JSON_INDENT, &json, &err);
    if (rc == 0)
        printf("%s\n", json);
    else
        fprintf(stderr, "discover: %s\n", rc == -ENOTSUP ? "built without libxml2" : err.text);
    numafit_free(json);
    numafit_host_free(host);
    numafit_hostconf_free(conf);
    free(xml);
    return rc == 0 ? 0 : rc == -ENOTSUP ? 77 : 1;
}
