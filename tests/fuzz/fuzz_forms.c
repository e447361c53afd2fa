/*
 * libFuzzer target: the flavor and image forms operators have at hand
 * (numafit_flavor_normalize, numafit_image_normalize): numafit's own JSON,
 * `openstack flavor show -f json` (properties as an object or as
 * openstackclient's "k='v', ..." text), nova's API flavor with or without
 * its envelope, `openstack image show -f json` and glance's v2 image.
 *
 * Input: MODE then CONTENT. MODE 't': CONTENT is the properties text of an
 * `openstack flavor show` document, 'T': of an `openstack image show`
 * document; 'f': a flavor document, 'i': an image document; any other
 * byte: the whole input is read as a flavor and as an image.
 * Invariants: an answer is 0 or a known negative errno; a refusal leaves
 * *ret_json NULL and has a text, and -EINVAL and -ERANGE name the field
 * (err.where); the same input gives the same answer twice; the output is
 * numafit's form: read again it is NATIVE and the same text (the
 * identity), its JSON is valid and numafit_request_new() answers it with a
 * known errno; the text form gives what the object form of the same
 * properties gives, and so does openstackclient's format_dict text of the
 * result (when its values have no quote or backslash, which format_dict
 * does not escape).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <numafit.h>

#include "invariants.h"

static void check_refusal(int r, const char *out, const numafit_error_t *err) {
    FUZZ_ASSERT(r == -EINVAL || r == -EBADMSG || r == -ERANGE || r == -ENOMEM);
    FUZZ_ASSERT(out == NULL);
    FUZZ_ASSERT(err->text[0] != '\0');
    if (r == -EINVAL || r == -ERANGE) {
        if (!err->where[0])
            fuzz_note("a refusal that names no field: %s", err->text);
        FUZZ_ASSERT(err->where[0] != '\0');
    }
}

typedef int (*normalize_fn)(const char *, size_t, unsigned, char **, int *, numafit_error_t *);

/* Normalize buf; on success check the output and return it (numafit_free),
 * else NULL. */
static char *check_form(normalize_fn fn, int image, const char *buf, size_t len) {
    numafit_error_t err;
    char *out = NULL, *again = NULL, *twice = NULL;
    int form = -1, form2 = -1, r, r2;
    numafit_request_t *req = NULL;
    static const char flavor[] = "{\"vcpus\": 2, \"memory_mb\": 1024}";

    fuzz_error_prefill(&err);
    r = fn(buf, len, 0, &out, &form, &err);
    fuzz_check_error(&err);
    if (r < 0)
        check_refusal(r, out, &err);
    /* the same answer twice */
    r2 = fn(buf, len, 0, &twice, &form2, NULL);
    FUZZ_ASSERT(r2 == r || r == -ENOMEM || r2 == -ENOMEM);
    if (r == 0 && r2 == 0)
        FUZZ_ASSERT(!strcmp(out, twice) && form == form2);
    numafit_free(twice);
    if (r < 0)
        return NULL;
    FUZZ_ASSERT(out != NULL);
    FUZZ_ASSERT(numafit_input_form_to_string(form) != NULL);
    if (image)
        FUZZ_ASSERT(form == NUMAFIT_FORM_NATIVE || form == NUMAFIT_FORM_OSC_IMAGE ||
                    form == NUMAFIT_FORM_OSC_IMAGE_TEXT || form == NUMAFIT_FORM_GLANCE_IMAGE);
    else
        FUZZ_ASSERT(form >= NUMAFIT_FORM_NATIVE && form <= NUMAFIT_FORM_NOVA_FLAVOR_BARE);
    if (form != NUMAFIT_FORM_NATIVE)
        fuzz_check_json_text(out);
    /* numafit's form: read again, the identity */
    fuzz_error_prefill(&err);
    r = fn(out, strlen(out), 0, &again, &form2, &err);
    if (r == -ENOMEM) {
        numafit_free(out);
        return NULL;
    }
    if (r != 0 || form2 != NUMAFIT_FORM_NATIVE || strcmp(again, out)) {
        fuzz_note("normalized %s (form %d) is not numafit's form: %d %s form %d\n%s\nagain:\n%s",
                  image ? "image" : "flavor", form, r, err.text, form2, out,
                  again ? again : "(none)");
        FUZZ_ASSERT(!"the normalized form reads back as itself");
    }
    numafit_free(again);
    /* what the readers make of it: an answer, not a crash */
    fuzz_error_prefill(&err);
    if (image)
        r = numafit_request_new(flavor, strlen(flavor), out, strlen(out), 0, &req, &err);
    else
        r = numafit_request_new(out, strlen(out), NULL, 0, 0, &req, &err);
    fuzz_check_error(&err);
    if (r < 0)
        fuzz_check_failure(r, &err, req);
    numafit_request_free(req);
    return out;
}

/* openstackclient's format_dict: "k='v', ..." in key order; NULL when a
 * value is not a string or holds a quote or backslash (not escaped). */
static char *format_dict(const json_t *obj) {
    const char **keys;
    size_t n = json_object_size(obj), i = 0, cap = 16;
    const char *k;
    json_t *v;
    char *s;
    if (!(keys = calloc(n + 1, sizeof(*keys))))
        return NULL;
    json_object_foreach((json_t *)obj, k, v) {
        const char *t = json_is_string(v) ? json_string_value(v) : NULL;
        if (!t || strchr(t, '\'') || strchr(t, '\\') || strlen(t) != json_string_length(v)) {
            free(keys);
            return NULL;
        }
        keys[i++] = k;
        cap += strlen(k) + strlen(t) + 6;
    }
    for (size_t a = 1; a < n; a++) /* insertion sort: the documents are small */
        for (size_t b = a; b > 0 && strcmp(keys[b - 1], keys[b]) > 0; b--) {
            const char *x = keys[b];
            keys[b] = keys[b - 1];
            keys[b - 1] = x;
        }
    if (!(s = malloc(cap))) {
        free(keys);
        return NULL;
    }
    s[0] = '\0';
    for (i = 0; i < n; i++) {
        size_t len = strlen(s);
        snprintf(s + len, cap - len, "%s%s='%s'", i ? ", " : "", keys[i],
                 json_string_value(json_object_get(obj, keys[i])));
    }
    free(keys);
    return s;
}

/* The openstack document around properties (text or object). */
static char *wrap(int image, json_t *props) {
    json_t *doc = image ? json_pack("{s:s, s:s, s:o}", "id", "6b1c1c4e", "disk_format", "qcow2",
                                    "properties", props)
                        : json_pack("{s:s, s:i, s:i, s:i, s:o}", "name", "f", "vcpus", 2, "ram",
                                    1024, "disk", 1, "properties", props);
    char *s;
    if (!doc)
        return NULL;
    s = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    return s;
}

/* The text form of properties: what the object form and format_dict give. */
static void check_text(int image, const char *text, size_t len) {
    normalize_fn fn = image ? numafit_image_normalize : numafit_flavor_normalize;
    const char *field = image ? "properties" : "extra_specs";
    json_t *str = json_stringn(text, len), *got, *props, *fj;
    char *doc, *out, *odoc, *oout, *fd, *fdoc, *fout;
    if (!str)
        return; /* not UTF-8: no JSON string can hold it */
    doc = wrap(image, str);
    FUZZ_ASSERT(doc != NULL);
    out = check_form(fn, image, doc, strlen(doc));
    free(doc);
    if (!out)
        return;
    got = json_loads(out, JSON_DECODE_ANY, NULL);
    FUZZ_ASSERT(got != NULL);
    props = json_object_get(got, field);
    FUZZ_ASSERT(json_is_object(props));
    /* the same properties as an object */
    odoc = wrap(image, json_incref(props));
    FUZZ_ASSERT(odoc != NULL);
    oout = check_form(fn, image, odoc, strlen(odoc));
    if (!oout || strcmp(oout, out)) {
        fuzz_note("the text form gives otherwise than the object form:\n%s\n%s", out,
                  oout ? oout : "(refused)");
        FUZZ_ASSERT(!"text form == object form");
    }
    /* openstackclient's text of them, read again */
    if ((fd = format_dict(props)) != NULL) {
        json_t *fs = json_string(fd);
        FUZZ_ASSERT(fs != NULL);
        fdoc = wrap(image, fs);
        FUZZ_ASSERT(fdoc != NULL);
        fout = check_form(fn, image, fdoc, strlen(fdoc));
        /* the same properties (format_dict sorts the keys: compared as JSON) */
        fj = fout ? json_loads(fout, JSON_DECODE_ANY, NULL) : NULL;
        if (!fj || !json_equal(fj, got)) {
            fuzz_note("format_dict's text reads otherwise:\n%s\n%s\n%s", fd, out,
                      fout ? fout : "(refused)");
            FUZZ_ASSERT(!"format_dict text == the properties");
        }
        json_decref(fj);
        numafit_free(fout);
        free(fdoc);
        free(fd);
    }
    numafit_free(oout);
    free(odoc);
    json_decref(got);
    numafit_free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *in = (const char *)data;
    char mode = size ? in[0] : 0;
    switch (mode) {
        case 't':
        case 'T':
            check_text(mode == 'T', in + 1, size - 1);
            break;
        case 'f':
            numafit_free(check_form(numafit_flavor_normalize, 0, in + 1, size - 1));
            break;
        case 'i':
            numafit_free(check_form(numafit_image_normalize, 1, in + 1, size - 1));
            break;
        default:
            numafit_free(check_form(numafit_flavor_normalize, 0, in, size));
            numafit_free(check_form(numafit_image_normalize, 1, in, size));
            break;
    }
    return 0;
}
