/*
 * libFuzzer target: the nova.conf options that shape a discovered host
 * (numafit_hostconf_*: cpu_dedicated_set, cpu_shared_set, vcpu_pin_set,
 * reserved_huge_pages, [neutron] physnets with their numa_nodes,
 * [neutron_tunnel] numa_nodes), applied by the capabilities reader and by
 * numafit_host_set_cpu_pools().
 *
 * Input: lines "K VALUE" (K one letter):
 *   d SPEC   cpu_dedicated_set       s SPEC   cpu_shared_set
 *   v SPEC   vcpu_pin_set            r VALUE  reserved_huge_pages
 *   p NAME<TAB>NODES  a physnet      t NODES  tunnel numa_nodes
 *   o SPEC   the online CPUs (default: all)
 *   N        the rest of the input is a nova.conf text
 *            (numafit_hostconf_set_from_nova_conf: replaces the options;
 *            numafit_domconf_set_from_nova_conf reads the same text)
 * Each setter's refusal leaves the configuration usable (a text, a known
 * errno). The configuration then builds a host from a fixed capabilities
 * document (2 cells, 8 CPUs each, 2 MiB and 1 GiB pages), and re-splits a
 * copy of a fixed synthetic host (numafit_host_set_cpu_pools: all or
 * nothing). Every host gets the invariants of invariants.h.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <numafit.h>

#include "invariants.h"

/* 2 cells of 4 cores x 2 threads (CPU c and c + 8 are siblings), 16 GiB,
 * 1024 pages of 2 MiB and one of 1 GiB each */
static const char caps[] =
    "<capabilities><host><cpu><arch>x86_64</arch></cpu><topology><cells num='2'>"
    "<cell id='0'><memory unit='KiB'>16777216</memory>"
    "<pages unit='KiB' size='4'>3407872</pages><pages unit='KiB' size='2048'>1024</pages>"
    "<pages unit='KiB' size='1048576'>1</pages><distances>"
    "<sibling id='0' value='10'/><sibling id='1' value='21'/></distances><cpus num='8'>"
    "<cpu id='0' socket_id='0' core_id='0' siblings='0,8'/>"
    "<cpu id='8' socket_id='0' core_id='0' siblings='0,8'/>"
    "<cpu id='1' socket_id='0' core_id='1' siblings='1,9'/>"
    "<cpu id='9' socket_id='0' core_id='1' siblings='1,9'/>"
    "<cpu id='2' socket_id='0' core_id='2' siblings='2,10'/>"
    "<cpu id='10' socket_id='0' core_id='2' siblings='2,10'/>"
    "<cpu id='3' socket_id='0' core_id='3' siblings='3,11'/>"
    "<cpu id='11' socket_id='0' core_id='3' siblings='3,11'/>"
    "</cpus></cell>"
    "<cell id='1'><memory unit='KiB'>16777216</memory>"
    "<pages unit='KiB' size='4'>3407872</pages><pages unit='KiB' size='2048'>1024</pages>"
    "<pages unit='KiB' size='1048576'>1</pages><distances>"
    "<sibling id='0' value='21'/><sibling id='1' value='10'/></distances><cpus num='8'>"
    "<cpu id='4' socket_id='1' core_id='0' siblings='4,12'/>"
    "<cpu id='12' socket_id='1' core_id='0' siblings='4,12'/>"
    "<cpu id='5' socket_id='1' core_id='1' siblings='5,13'/>"
    "<cpu id='13' socket_id='1' core_id='1' siblings='5,13'/>"
    "<cpu id='6' socket_id='1' core_id='2' siblings='6,14'/>"
    "<cpu id='14' socket_id='1' core_id='2' siblings='6,14'/>"
    "<cpu id='7' socket_id='1' core_id='3' siblings='7,15'/>"
    "<cpu id='15' socket_id='1' core_id='3' siblings='7,15'/>"
    "</cpus></cell>"
    "</cells></topology></host></capabilities>";

static numafit_host_t *fixed;

static void check_set(int r, const numafit_error_t *err) {
    fuzz_check_error(err);
    if (r < 0) {
        FUZZ_ASSERT(r == -EBADMSG || r == -EINVAL || r == -ERANGE || r == -ENOMEM);
        FUZZ_ASSERT(err->text[0] != '\0' || err->exception[0] != '\0');
    } else {
        FUZZ_ASSERT(r == 0);
    }
}

/* The same nova.conf text as domain XML settings: a known errno and a
 * well-formed error; what it accepts once it accepts again. */
static int nova_conf_domconf(const char *text, size_t n) {
    numafit_domconf_t *dc = NULL;
    numafit_error_t err;
    int r;
    FUZZ_ASSERT(numafit_domconf_new(&dc) == 0);
    fuzz_error_prefill(&err);
    r = numafit_domconf_set_from_nova_conf(dc, text, n, 0, &err);
    check_set(r, &err);
    if (r == 0)
        FUZZ_ASSERT(numafit_domconf_set_from_nova_conf(dc, text, n, 0, &err) == 0);
    numafit_domconf_free(dc);
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    numafit_hostconf_t *conf = NULL;
    numafit_host_t *host = NULL, *work = NULL;
    numafit_error_t err;
    char *text = malloc(size + 1), *line, *next, *online = NULL;
    int r;

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    if (!fixed) {
        r = numafit_host_new_synthetic("cells:2 cores:4 threads:2 mem:16G pages:2M=1024", 0, &fixed,
                                       &err);
        FUZZ_ASSERT(r == 0);
    }
    FUZZ_ASSERT(numafit_hostconf_new(&conf) == 0);
    for (line = text; line; line = next) {
        char *v;
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (!line[0] || line[1] != ' ')
            continue;
        v = line + 2;
        fuzz_error_prefill(&err);
        switch (line[0]) {
            case 'd':
                r = numafit_hostconf_set_cpu_dedicated_set(conf, v, &err);
                break;
            case 's':
                r = numafit_hostconf_set_cpu_shared_set(conf, v, &err);
                break;
            case 'v':
                r = numafit_hostconf_set_vcpu_pin_set(conf, v, &err);
                break;
            case 'r':
                r = numafit_hostconf_add_reserved_huge_pages(conf, v, &err);
                break;
            case 'p': {
                char *tab = strchr(v, '\t');
                if (tab)
                    *tab++ = '\0';
                r = numafit_hostconf_add_physnet(conf, v, tab ? tab : "", &err);
                break;
            }
            case 't':
                r = numafit_hostconf_set_tunnel_numa_nodes(conf, v, &err);
                break;
            case 'o':
                online = v;
                continue;
            case 'N': {
                size_t n = next ? size - (size_t)(next - text) : 0;
                r = numafit_hostconf_set_from_nova_conf(conf, next, n, 0, &err);
                check_set(r, &err);
                r = nova_conf_domconf(next, n);
                next = NULL;
                continue;
            }
            default:
                continue;
        }
        check_set(r, &err);
    }

    fuzz_error_prefill(&err);
    r = numafit_host_new_from_caps_xml(caps, strlen(caps), conf, online, 0, &host, &err);
    if (r != -ENOTSUP) {
        if (r < 0) {
            fuzz_check_failure(r, &err, host);
        } else {
            FUZZ_ASSERT(host != NULL);
            fuzz_check_host(host, 0, NULL);
            numafit_host_free(host);
        }
    }

    /* the CPU options as a what-if on a host read from elsewhere */
    FUZZ_ASSERT(numafit_host_dup(fixed, &work) == 0);
    fuzz_error_prefill(&err);
    r = numafit_host_set_cpu_pools(work, conf, 0, &err);
    fuzz_check_error(&err);
    if (r < 0) {
        char *a = fuzz_host_json(fixed), *b = fuzz_host_json(work);
        FUZZ_ASSERT(r == -EINVAL || r == -EBUSY || r == -ENOMEM);
        if (strcmp(a, b) != 0)
            fuzz_note("a refused numafit_host_set_cpu_pools changed the host:\n%s\n%s", a, b);
        FUZZ_ASSERT(strcmp(a, b) == 0);
        numafit_free(a);
        numafit_free(b);
    } else {
        FUZZ_ASSERT(r == 0);
        fuzz_check_host(work, 0, NULL);
    }
    numafit_host_free(work);
    numafit_hostconf_free(conf);
    free(text);
    return 0;
}
