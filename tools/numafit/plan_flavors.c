/*
 * numafit plan over a fleet: the flavors to plan (a list, an object by name,
 * or a single flavor), with their images and mix weights.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <numafit.h>

#include "cli.h"
#include "cli_io.h"
#include "plan_fleet.h"
#include "plan_load.h"

/* ------------------------------------------------------------------ flavors */

static const char *const flavor_keys[] = {
    "name",  "vcpus",       "memory_mb",        "root_gb",          "ephemeral_gb",
    "swap",  "extra_specs", "image_properties", "boot_from_volume", "weight",
    "ports", NULL};

#define PLAN_MAX_PORTS 32

/* The flavor's or image's PCI NUMA affinity policy (enum
 * numafit_pci_numa_policy), for its ports (checked by
 * numafit_pci_requests_from_flavor before this is asked). */
static int pci_policy(const json_t *fl) {
    static const char *const names[] = {"required", "legacy", "preferred", "socket"};
    const char *v = json_string_value(
        json_object_get(json_object_get(fl, "extra_specs"), "hw:pci_numa_affinity_policy"));
    if (!v)
        v = json_string_value(json_object_get(json_object_get(fl, "image_properties"),
                                              "hw_pci_numa_affinity_policy"));
    for (int i = 0; v && i < 4; i++)
        if (!strcmp(v, names[i]))
            return NUMAFIT_PCI_POLICY_REQUIRED + i;
    return NUMAFIT_PCI_POLICY_UNSET;
}

/* "ports": [{"vnic_type", "physical_network", "trusted",
 * "numa_affinity_policy"}]: the neutron ports an instance of the flavor
 * gets, each asking for a device as nova asks for it. 0, or PLAN_EXIT_*. */
static int add_ports(struct plan *pl, const json_t *fl, numafit_pci_requests_t *reqs,
                     const char *where) {
    const json_t *ports = json_object_get(fl, "ports"), *port;
    size_t i;
    if (!ports)
        return 0;
    if (!json_is_array(ports) || json_array_size(ports) > PLAN_MAX_PORTS) {
        plan_error(pl,
                   "%s: \"ports\" must be a list of at most %d ports {\"vnic_type\", "
                   "\"physical_network\", \"trusted\", \"numa_affinity_policy\"}",
                   where, PLAN_MAX_PORTS);
        return PLAN_EXIT_INPUT;
    }
    json_array_foreach(ports, i, port) {
        const char *key, *vnic, *net = NULL, *pol = NULL;
        json_t *v;
        int trusted = -1, rc;
        numafit_error_t e;
        if (!json_is_object(port)) {
            plan_error(pl, "%s: ports/%zu: a port is an object", where, i);
            return PLAN_EXIT_INPUT;
        }
        json_object_foreach((json_t *)port, key, v) {
            if (!strcmp(key, "vnic_type") || !strcmp(key, "numa_affinity_policy")) {
                if (!json_is_string(v))
                    goto bad;
            } else if (!strcmp(key, "physical_network")) {
                if (!json_is_string(v) && !json_is_null(v))
                    goto bad;
            } else if (!strcmp(key, "trusted")) {
                if (!json_is_boolean(v))
                    goto bad;
            } else {
                plan_error(pl,
                           "%s: ports/%zu: unknown key \"%s\" (vnic_type, physical_network, "
                           "trusted, numa_affinity_policy)",
                           where, i, key);
                return PLAN_EXIT_INPUT;
            }
            continue;
        bad:
            plan_error(pl, "%s: ports/%zu/%s: %s", where, i, key,
                       !strcmp(key, "trusted")            ? "true or false"
                       : !strcmp(key, "physical_network") ? "a string, or null (tunnelled)"
                                                          : "a string");
            return PLAN_EXIT_INPUT;
        }
        vnic = json_string_value(json_object_get(port, "vnic_type"));
        if (!vnic) {
            plan_error(pl, "%s: ports/%zu: \"vnic_type\" is required (direct, macvtap, ...)", where,
                       i);
            return PLAN_EXIT_INPUT;
        }
        net = json_string_value(json_object_get(port, "physical_network"));
        pol = json_string_value(json_object_get(port, "numa_affinity_policy"));
        if (json_object_get(port, "trusted"))
            trusted = json_is_true(json_object_get(port, "trusted"));
        memset(&e, 0, sizeof(e));
        rc = numafit_pci_requests_add_port(reqs, vnic, net, trusted, NULL, pol, pci_policy(fl), &e);
        if (rc < 0) {
            char prefix[PATH_MAX + 64];
            snprintf(prefix, sizeof(prefix), "%s: ports/%zu", where, i);
            plan_lib_error(pl, prefix, rc, &e);
            return plan_lib_status(rc);
        }
    }
    return 0;
}

static int add_flavor_native(struct plan *pl, json_t *fl, const char *origin, unsigned long line,
                             const char *where, const char *default_name);

/* The plan's own keys beside a flavor's (any form). */
static bool plan_key(const char *key) {
    return !strcmp(key, "weight") || !strcmp(key, "ports") || !strcmp(key, "image_properties") ||
           !strcmp(key, "boot_from_volume");
}

/* A flavor in another form than numafit's: nova's API flavor (with or
 * without its {"flavor": ...} envelope) or `openstack flavor show -f json`
 * (properties an object or openstackclient's text), told by their keys. */
static bool other_form(const json_t *fl) {
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)fl, key, v) {
        if (!strcmp(key, "flavor") || !strcmp(key, "ram") || !strcmp(key, "properties") ||
            !strcmp(key, "disk") || !strcmp(key, "id") || strchr(key, ':'))
            return true;
    }
    return false;
}

/* *ret: flavor fl in the plan's form (numafit_flavor_normalize: ram as
 * memory_mb, properties as extra_specs, ...), with the plan's own keys
 * (weight, ports, image_properties, boot_from_volume) kept; *ret_form the
 * form read. 0, or PLAN_EXIT_* reported. */
static int normalize_flavor(struct plan *pl, const json_t *fl, const char *where, json_t **ret,
                            int *ret_form) {
    json_t *core = json_object(), *out = NULL, *v;
    const char *key;
    numafit_error_t e;
    char *txt = NULL, *norm = NULL;
    int rc;

    if (!core)
        goto nomem;
    json_object_foreach((json_t *)fl, key, v) {
        if (!plan_key(key))
            json_object_set(core, key, v);
    }
    txt = json_dumps(core, JSON_COMPACT);
    if (!txt)
        goto nomem;
    memset(&e, 0, sizeof(e));
    rc = numafit_flavor_normalize(txt, strlen(txt), 0, &norm, ret_form, &e);
    if (rc < 0) {
        plan_lib_error(pl, where, rc, &e);
        free(txt);
        json_decref(core);
        return plan_lib_status(rc);
    }
    out = cli_json_load(norm, strlen(norm), 0, NULL);
    numafit_free(norm);
    if (!out || !json_is_object(out))
        goto nomem;
    /* the name: nova's and openstackclient's "name" */
    if (!json_object_get(out, "name")) {
        const json_t *inner = json_object_get(fl, "flavor");
        const json_t *name = json_object_get(json_is_object(inner) ? inner : fl, "name");
        if (name)
            json_object_set(out, "name", (json_t *)name);
    }
    json_object_foreach((json_t *)fl, key, v) {
        if (plan_key(key))
            json_object_set(out, key, v);
    }
    free(txt);
    json_decref(core);
    *ret = out;
    return 0;
nomem:
    free(txt);
    json_decref(core);
    json_decref(out);
    plan_error(pl, "out of memory");
    return PLAN_EXIT_FAIL;
}

/* Check and add one flavor object. where: "FILE: flavor N (line L)". */
static int add_flavor(struct plan *pl, json_t *fl, const char *origin, unsigned long line,
                      const char *where, const char *default_name) {
    int form = NUMAFIT_FORM_NATIVE, ret;
    json_t *as = NULL;
    if (json_is_object(fl) && other_form(fl)) {
        if ((ret = normalize_flavor(pl, fl, where, &as, &form)) != 0)
            return ret;
        fl = as;
    }
    ret = add_flavor_native(pl, fl, origin, line, where, default_name);
    if (ret == 0)
        pl->flavors[pl->nflavors - 1].form = form;
    json_decref(as);
    return ret;
}

/* Check and add one flavor object in the plan's form. */
static int add_flavor_native(struct plan *pl, json_t *fl, const char *origin, unsigned long line,
                             const char *where, const char *default_name) {
    struct plan_flavor *f;
    const char *key, *name;
    json_t *v, *lib = NULL, *image = NULL;
    numafit_error_t e;
    char *ftxt = NULL, *itxt = NULL;
    int rc, rc2 = 0;

    if (!json_is_object(fl)) {
        plan_error(pl,
                   "%s: a flavor is a JSON object {\"name\",\"vcpus\",\"memory_mb\","
                   "\"extra_specs\"}",
                   where);
        return PLAN_EXIT_INPUT;
    }
    json_object_foreach(fl, key, v) {
        unsigned k;
        for (k = 0; flavor_keys[k] && strcmp(flavor_keys[k], key) != 0; k++)
            ;
        if (!flavor_keys[k]) {
            plan_error(pl,
                       "%s: unknown key \"%s\" (a flavor has name, vcpus, memory_mb, "
                       "root_gb, ephemeral_gb, swap, extra_specs, image_properties, "
                       "boot_from_volume, weight, ports)",
                       where, key);
            return PLAN_EXIT_INPUT;
        }
    }
    v = json_object_get(fl, "name");
    if (v && (!json_is_string(v) || json_string_length(v) == 0 || json_string_length(v) > 64 ||
              strlen(json_string_value(v)) != json_string_length(v))) {
        plan_error(pl, "%s: \"name\" must be a string of 1 to 64 bytes", where);
        return PLAN_EXIT_INPUT;
    }
    name = v ? json_string_value(v) : default_name;
    if (!name) {
        plan_error(pl, "%s: the flavor has no \"name\"", where);
        return PLAN_EXIT_INPUT;
    }
    for (unsigned i = 0; i < pl->nflavors; i++)
        if (strcmp(pl->flavors[i].name, name) == 0) {
            plan_error(pl, "%s: flavor name \"%s\" given twice (also %s:%lu)", where, name,
                       pl->flavors[i].origin, pl->flavors[i].line);
            return PLAN_EXIT_INPUT;
        }
    if (pl->nflavors == PLAN_MAX_FLAVORS) {
        plan_error(pl, "%s: more than %d flavors", where, PLAN_MAX_FLAVORS);
        return PLAN_EXIT_INPUT;
    }
    v = json_object_get(fl, "weight");
    if (v && (!json_is_number(v) || !(json_number_value(v) > 0) || json_number_value(v) > 1e9)) {
        plan_error(pl, "%s: \"weight\" must be a number above 0", where);
        return PLAN_EXIT_INPUT;
    }
    v = json_object_get(fl, "boot_from_volume");
    if (v && !json_is_boolean(v)) {
        plan_error(pl, "%s: \"boot_from_volume\" must be true or false", where);
        return PLAN_EXIT_INPUT;
    }
    v = json_object_get(fl, "image_properties");
    if (v && !json_is_object(v) && !json_is_null(v)) {
        plan_error(pl, "%s: \"image_properties\" must be an object {\"hw_...\": ...}", where);
        return PLAN_EXIT_INPUT;
    }
    lib = json_object();
    if (!lib)
        goto nomem;
    if (json_object_get(fl, "vcpus"))
        json_object_set(lib, "vcpus", json_object_get(fl, "vcpus"));
    if (json_object_get(fl, "memory_mb"))
        json_object_set(lib, "memory_mb", json_object_get(fl, "memory_mb"));
    for (unsigned k = 0; k < 3; k++) {
        static const char *const disk_keys[] = {"root_gb", "ephemeral_gb", "swap"};
        if (json_object_get(fl, disk_keys[k]))
            json_object_set(lib, disk_keys[k], json_object_get(fl, disk_keys[k]));
    }
    if (json_object_get(fl, "extra_specs"))
        json_object_set(lib, "extra_specs", json_object_get(fl, "extra_specs"));
    if (v && json_is_object(v)) {
        image = json_pack("{sO}", "properties", v);
        if (!image)
            goto nomem;
    }
    ftxt = json_dumps(lib, JSON_COMPACT);
    itxt = image ? json_dumps(image, JSON_COMPACT) : NULL;
    if (!ftxt || (image && !itxt))
        goto nomem;
    f = &pl->flavors[pl->nflavors];
    memset(f, 0, sizeof(*f));
    memset(&e, 0, sizeof(e));
    rc = cli_check_extra_specs(pl->profile, pl->xs_off, pl->xs_allow, ftxt, strlen(ftxt), &e);
    if (rc >= 0)
        rc = numafit_request_new(ftxt, strlen(ftxt), itxt, itxt ? strlen(itxt) : 0, pl->req_flags,
                                 &f->req, &e);
    if (rc < 0) {
        char prefix[PATH_MAX + 200];
        snprintf(prefix, sizeof(prefix), "%s: flavor %s%s", where, name,
                 e.exception[0] ? " refused by nova" : "");
        plan_lib_error(pl, prefix, rc, &e);
        free(ftxt);
        free(itxt);
        json_decref(lib);
        json_decref(image);
        return plan_lib_status(rc);
    }
    {
        /* what it asks of placement: nova's first query, and the second one
         * of a dedicated guest when the first finds no host */
        unsigned rflags = (pl->profile == NUMAFIT_PROFILE_ZED ? NUMAFIT_RESOURCES_ZED : 0) |
                          (json_is_true(json_object_get(fl, "boot_from_volume"))
                               ? NUMAFIT_RESOURCES_BOOT_FROM_VOLUME
                               : 0);
        int rb;
        memset(&e, 0, sizeof(e));
        rb = numafit_resources_from_flavor(ftxt, strlen(ftxt), itxt, itxt ? strlen(itxt) : 0,
                                           rflags, f->amounts, NUMAFIT_RC_COUNT, &e);
        if (rb >= 0 && (rb & NUMAFIT_RESOURCES_FALLBACK))
            f->lbits =
                (unsigned)(rc2 = numafit_resources_from_flavor(
                               ftxt, strlen(ftxt), itxt, itxt ? strlen(itxt) : 0,
                               rflags | NUMAFIT_RESOURCES_LEGACY, f->legacy, NUMAFIT_RC_COUNT, &e));
        if (rb < 0 || rc2 < 0) {
            char prefix[PATH_MAX + 200];
            snprintf(prefix, sizeof(prefix), "%s: flavor %s", where, name);
            plan_lib_error(pl, prefix, rb < 0 ? rb : rc2, &e);
            numafit_request_free(f->req);
            f->req = NULL;
            free(ftxt);
            free(itxt);
            json_decref(lib);
            json_decref(image);
            return plan_lib_status(rb < 0 ? rb : rc2);
        }
        f->rbits = (unsigned)rb;
    }
    {
        /* its PCI devices: pci_passthrough:alias with --nova-conf's [pci] alias */
        int rp;
        memset(&e, 0, sizeof(e));
        rp = numafit_pci_requests_from_flavor(
            ftxt, strlen(ftxt), itxt, itxt ? strlen(itxt) : 0, pl->nova_conf, pl->nova_conf_len,
            pl->profile == NUMAFIT_PROFILE_ZED ? NUMAFIT_PCI_ZED : 0, &f->pci, &e);
        if (rp < 0) {
            char prefix[PATH_MAX + 200];
            snprintf(prefix, sizeof(prefix), "%s: flavor %s%s", where, name,
                     e.exception[0] ? " refused by nova" : "");
            plan_lib_error(pl, prefix, rp, &e);
            numafit_request_free(f->req);
            f->req = NULL;
            free(ftxt);
            free(itxt);
            json_decref(lib);
            json_decref(image);
            return plan_lib_status(rp);
        }
        if ((rp = add_ports(pl, fl, f->pci, where)) != 0) {
            numafit_pci_requests_free(f->pci);
            f->pci = NULL;
            numafit_request_free(f->req);
            f->req = NULL;
            free(ftxt);
            free(itxt);
            json_decref(lib);
            json_decref(image);
            return rp;
        }
        for (int k = 0, nr = numafit_pci_requests_get_count(f->pci); k < nr; k++) {
            int64_t cnt = 0;
            if (numafit_pci_requests_get(f->pci, (unsigned)k, &cnt, NULL) == 0)
                f->pci_devices += cnt;
        }
        if (numafit_pci_requests_get_count(f->pci) <= 0) {
            numafit_pci_requests_free(f->pci);
            f->pci = NULL;
        } else {
            pl->pci = true;
        }
    }
    free(ftxt);
    free(itxt);
    ftxt = itxt = NULL;
    f->name = strdup(name);
    if (!f->name) {
        numafit_request_free(f->req);
        f->req = NULL;
        numafit_pci_requests_free(f->pci);
        f->pci = NULL;
        goto nomem;
    }
    f->given = json_incref(fl);
    f->lib_flavor = lib;
    f->image = image;
    f->weight = json_is_number(json_object_get(fl, "weight"))
                    ? json_number_value(json_object_get(fl, "weight"))
                    : 1.0;
    f->origin = origin;
    f->line = line;
    f->vcpus = numafit_request_get_vcpus(f->req);
    f->memory_mb = (uint64_t)json_integer_value(json_object_get(fl, "memory_mb"));
    f->cells = numafit_request_get_cell_count(f->req);
    f->cpu_policy = numafit_request_get_cpu_policy(f->req);
    f->thread_policy = numafit_request_get_thread_policy(f->req);
    f->emulator_policy = numafit_request_get_emulator_threads_policy(f->req);
    {
        /* the page size asked, for the report */
        int64_t kib;
        if (numafit_request_get_page_size(f->req, 0, &kib) == 0 && kib > 0)
            f->pagesize_kb = (int)(kib > INT_MAX ? INT_MAX : kib);
    }
    f->planned = true;
    if (rc == 0) {
        /* no NUMA topology: placement's inventory alone limits it */
        if (!pl->inventory) {
            plan_warning(pl,
                         "%s: flavor %s asks for no NUMA topology: nova's NUMA fitting does not "
                         "limit it (placement does: plan without --no-inventory); left out of "
                         "the plan",
                         where, name);
            f->planned = false;
        }
        numafit_request_free(f->req);
        f->req = NULL;
    }
    pl->nflavors++;
    return 0;
nomem:
    free(ftxt);
    free(itxt);
    json_decref(lib);
    json_decref(image);
    plan_error(pl, "out of memory");
    return PLAN_EXIT_FAIL;
}

/*
 * --flavors FILE (single = false): a JSON list of flavors, one flavor
 * object, or JSON lines; every flavor needs a name. --flavor FILE (single):
 * one flavor object, named after the file unless it has a name.
 */
int plan_load_flavors(struct plan *pl, const char *path, bool single) {
    size_t len;
    int ret;
    char *text = plan_read_all(pl, path, NUMAFIT_INPUT_MAX, &len, &ret);
    json_error_t jerr;
    json_t *root;
    char where[PATH_MAX + 64], stem[256];

    if (!text)
        return ret;
    ret = 0;
    root = cli_json_load(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root && cli_json_error(&jerr, NULL, 0) == -ENOMEM) {
        plan_error(pl, "%s: out of memory", path);
        free(text);
        return PLAN_EXIT_FAIL;
    }
    if (single) {
        if (!root) {
            plan_error(pl, "%s:%d:%d: malformed JSON: %s", path, jerr.line, jerr.column, jerr.text);
            free(text);
            return PLAN_EXIT_INPUT;
        }
        plan_file_stem(path, stem, sizeof(stem));
        snprintf(where, sizeof(where), "%s", path);
        ret = add_flavor(pl, root, path, 1, where, stem);
    } else if (root &&
               (json_is_array(root) || (json_is_object(root) && json_object_size(root) == 1 &&
                                        json_is_array(json_object_get(root, "flavors"))))) {
        /* a list, or nova's API list of flavors {"flavors": [...]} */
        size_t i;
        json_t *fl;
        if (json_is_object(root)) {
            json_t *list = json_incref(json_object_get(root, "flavors"));
            json_decref(root);
            root = list;
        }
        if (json_array_size(root) == 0) {
            plan_error(pl, "%s: no flavors", path);
            ret = PLAN_EXIT_INPUT;
        }
        json_array_foreach(root, i, fl) {
            snprintf(where, sizeof(where), "%s: flavor %zu", path, i + 1);
            if ((ret = add_flavor(pl, fl, path, i + 1, where, NULL)) != 0)
                break;
        }
    } else if (root) {
        ret = add_flavor(pl, root, path, 1, path, NULL);
    } else {
        /* JSON lines */
        char *line = text, *nl;
        unsigned long lineno = 0, count = 0;
        if (!strstr(jerr.text, "end of file expected")) {
            plan_error(pl, "%s:%d:%d: malformed JSON: %s", path, jerr.line, jerr.column, jerr.text);
            free(text);
            return PLAN_EXIT_INPUT;
        }
        for (; line && *line && !ret; line = nl ? nl + 1 : NULL) {
            size_t n;
            json_t *fl;
            nl = strchr(line, '\n');
            n = nl ? (size_t)(nl - line) : strlen(line);
            lineno++;
            if (strspn(line, " \t\r") >= n)
                continue;
            fl = cli_json_load(line, n, JSON_REJECT_DUPLICATES, &jerr);
            if (!fl && cli_json_error(&jerr, NULL, 0) == -ENOMEM) {
                plan_error(pl, "%s:%lu: out of memory", path, lineno);
                ret = PLAN_EXIT_FAIL;
                break;
            }
            if (!fl) {
                plan_error(pl, "%s:%lu:%d: malformed JSON: %s", path, lineno, jerr.column,
                           jerr.text);
                ret = PLAN_EXIT_INPUT;
                break;
            }
            snprintf(where, sizeof(where), "%s:%lu", path, lineno);
            ret = add_flavor(pl, fl, path, lineno, where, NULL);
            json_decref(fl);
            count++;
        }
        if (!ret && count == 0) {
            plan_error(pl, "%s: no flavors", path);
            ret = PLAN_EXIT_INPUT;
        }
    }
    json_decref(root);
    free(text);
    return ret;
}
