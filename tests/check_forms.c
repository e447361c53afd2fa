/*
 * numafit_flavor_normalize(), numafit_image_normalize() and the text form
 * of extra specs and image properties openstackclient prints (osc_lib's
 * format_dict: "k='v', k2='v2'", values not escaped). The text rows were
 * written by osc_lib 2.6.2's format_dict where a row says so; the hostile
 * ones are hand-made. The fixtures of tests/data/forms are realistic
 * outputs of `openstack flavor show -f json`, nova's API and glance for
 * one real-time flavor and one image: each must read as its numafit form.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "flavor.h"
#include "private.h"

/* ------------------------------------------------------------ the text form */

struct text_case {
    const char *name;
    const char *text; /* openstackclient's text form */
    const char *json; /* the object read, or NULL: refused */
    const char *why;  /* a part of the refusal's text */
};

static const struct text_case text_cases[] = {
    /* osc_lib format_dict of the real-time flavor's extra specs */
    {"osc_rt",
     "hw:cpu_policy='dedicated', hw:cpu_realtime='yes', hw:cpu_realtime_mask='^0-1', "
     "hw:mem_page_size='1GB'",
     "{\"hw:cpu_policy\":\"dedicated\",\"hw:cpu_realtime\":\"yes\","
     "\"hw:cpu_realtime_mask\":\"^0-1\",\"hw:mem_page_size\":\"1GB\"}",
     NULL},
    {"empty", "", "{}", NULL},
    {"blank", "  \n", "{}", NULL},
    {"one", "hw:numa_nodes='2'", "{\"hw:numa_nodes\":\"2\"}", NULL},
    {"empty_value", "a='', b='x'", "{\"a\":\"\",\"b\":\"x\"}", NULL},
    /* format_dict: commas inside a value */
    {"comma_value", "pci_passthrough:alias='a1:2,a2:1', hw:numa_nodes='1'",
     "{\"pci_passthrough:alias\":\"a1:2,a2:1\",\"hw:numa_nodes\":\"1\"}", NULL},
    /* format_dict({"weird": "it's, x='y'"}): quotes inside a value */
    {"quotes_value", "weird='it's, x='y''", "{\"weird\":\"it's, x='y'\"}", NULL},
    {"quote_at_end", "a='x'', b='y'", "{\"a\":\"x'\",\"b\":\"y\"}", NULL},
    {"escaped_quote", "a='it\\'s', b='c\\\\d'", "{\"a\":\"it's\",\"b\":\"c\\\\d\"}", NULL},
    {"backslash_kept", "a='\\d+'", "{\"a\":\"\\\\d+\"}", NULL},
    {"spaces", "  a = 'x' ,b='y'  ", "{\"a\":\"x\",\"b\":\"y\"}", NULL},
    {"key_with_space", "my key='v'", "{\"my key\":\"v\"}", NULL},
    {"utf8", "a='d\xc3\xa9j\xc3\xa0'", "{\"a\":\"d\xc3\xa9j\xc3\xa0\"}", NULL},
    {"unterminated", "hw:cpu_policy='dedicated", NULL, "an unterminated quoted value at byte 14"},
    {"unterminated_2", "a='x', b='y", NULL, "an unterminated quoted value"},
    {"lone_quote", "'", NULL, "a key then '=' expected at byte 0"},
    {"unquoted", "hw:cpu_policy=dedicated", NULL, "a quoted value"},
    {"none_value", "a=, b='x'", NULL, "a quoted value"},
    {"no_equals", "hw:cpu_policy", NULL, "a key then '=' expected"},
    {"no_key", "='x'", NULL, "a key then '=' expected"},
    {"double_quotes", "a=\"x\"", NULL, "a quoted value"},
    {"trailing_comma", "a='x',", NULL, "an unterminated quoted value"},
    {"python_dict", "{'hw:cpu_policy': 'dedicated'}", NULL, "a key then '=' expected"},
    {"twice", "a='1', a='2'", NULL, "the key 'a' appears twice"},
    {"not_utf8", "a='\xff'", NULL, "not UTF-8 at byte 3"},
    {"overlong_utf8", "a='\xc0\xaf'", NULL, "not UTF-8"},
    {"surrogate_utf8", "a='\xed\xa0\x80'", NULL, "not UTF-8"},
    {"truncated_utf8", "a='\xe2\x82", NULL, "not UTF-8"},
    {"control_in_key", "a\x01='x'", NULL, "a key then '=' expected"},
};

static void text_case(int i) {
    const struct text_case *c = &text_cases[i];
    numafit_error_t err;
    json_t *got = NULL, *want;
    int rc;

    memset(&err, 0, sizeof(err));
    rc = numafit__spec_text_parse(c->text, strlen(c->text), "properties", &got, &err);
    if (!c->json) {
        ck_assert_msg(rc == -EINVAL, "%s: rc %d", c->name, rc);
        ck_assert_msg(strstr(err.text, c->why), "%s: '%s' lacks '%s'", c->name, err.text, c->why);
        ck_assert_str_eq(err.where, "properties");
        return;
    }
    ck_assert_msg(rc == 0, "%s: rc %d (%s)", c->name, rc, err.text);
    want = json_loads(c->json, 0, NULL);
    ck_assert_ptr_nonnull(want);
    ck_assert_msg(json_equal(got, want), "%s: got %s", c->name, json_dumps(got, JSON_COMPACT));
    json_decref(got);
    json_decref(want);
}

START_TEST(text_table) {
    text_case(_i);
}
END_TEST

START_TEST(text_nul_byte) {
    static const char s[] = "a='x\0y', b='z'";
    numafit_error_t err;
    json_t *got = NULL;
    memset(&err, 0, sizeof(err));
    ck_assert_int_eq(numafit__spec_text_parse(s, sizeof(s) - 1, "properties", &got, &err), -EINVAL);
    ck_assert_ptr_null(got);
    ck_assert_ptr_nonnull(strstr(err.text, "a NUL byte at byte 4"));
}
END_TEST

/* A NUL byte in the JSON text (jansson reads past one; the fuzz_forms
 * finding {"swap":2<NUL>}): refused by every JSON reader of the library, as
 * Python's json.loads refuses it, so a normalized form always reads back. */
START_TEST(json_nul_byte) {
    static const char flavor[] = "{\"swap\":2\0}";
    static const char host[] = "{\"cells\": []}\0";
    numafit_error_t err;
    numafit_request_t *req = NULL;
    numafit_host_t *h = NULL;
    char *out = NULL;
    int form = -1;
    memset(&err, 0, sizeof(err));
    ck_assert_int_eq(numafit_flavor_normalize(flavor, sizeof(flavor) - 1, 0, &out, &form, &err),
                     -EBADMSG);
    ck_assert_ptr_null(out);
    ck_assert_msg(strstr(err.text, "a NUL byte in the JSON text") != NULL, "%s", err.text);
    ck_assert_int_lt(numafit_request_new(flavor, sizeof(flavor) - 1, NULL, 0, 0, &req, &err), 0);
    ck_assert_ptr_null(req);
    ck_assert_int_lt(numafit_host_new_from_json(host, sizeof(host) - 1, 0, &h, &err), 0);
    ck_assert_ptr_null(h);
    /* cut at the NUL byte it is not JSON; without the byte it reads */
    ck_assert_int_eq(numafit_flavor_normalize(flavor, 9, 0, &out, &form, &err), -EBADMSG);
    ck_assert_int_eq(numafit_flavor_normalize("{\"swap\":2}", 10, 0, &out, &form, &err), 0);
    numafit_free(out);
}
END_TEST

/* Many keys: refused past the value cap, linear time on the way there. */
START_TEST(text_huge) {
    size_t n = (size_t)NUMAFIT__JSON_VALUES_SMALL + 1, len = 0;
    char *s = malloc(n * 16 + 1);
    numafit_error_t err;
    json_t *got = NULL;
    ck_assert_ptr_nonnull(s);
    for (size_t i = 0; i < n; i++)
        len += (size_t)sprintf(s + len, "%sk%zu='v'", i ? ", " : "", i);
    memset(&err, 0, sizeof(err));
    ck_assert_int_eq(numafit__spec_text_parse(s, len, "properties", &got, &err), -ERANGE);
    ck_assert_ptr_nonnull(strstr(err.text, "more than 65536 keys"));
    /* one key fewer is read */
    len = (size_t)(strrchr(s, ',') - s);
    ck_assert_int_eq(numafit__spec_text_parse(s, len, "properties", &got, &err), 0);
    ck_assert_uint_eq(json_object_size(got), NUMAFIT__JSON_VALUES_SMALL);
    json_decref(got);
    /* one value of 8 MiB of quotes and commas: the quote that closes it is the last */
    len = 0;
    s = realloc(s, (8u << 20) + 16);
    ck_assert_ptr_nonnull(s);
    len += (size_t)sprintf(s, "a='");
    for (size_t i = 0; i < (8u << 20) / 4; i++, len += 4)
        memcpy(s + len, "',='", 4);
    s[len++] = '\'';
    ck_assert_int_eq(numafit__spec_text_parse(s, len, "properties", &got, &err), 0);
    ck_assert_uint_eq(json_string_length(json_object_get(got, "a")), (8u << 20));
    json_decref(got);
    /* a key over 255 bytes */
    memset(s, 'k', 300);
    memcpy(s + 300, "='v'", 4);
    ck_assert_int_eq(numafit__spec_text_parse(s, 304, "properties", &got, &err), -EINVAL);
    ck_assert_ptr_nonnull(strstr(err.text, "a key longer than 255 bytes"));
    free(s);
}
END_TEST

/* ------------------------------------------------------------ documents */

struct form_case {
    const char *name;
    int image;         /* 0 flavor, 1 image */
    const char *input; /* JSON */
    int rc;
    int form;          /* when rc is 0 */
    const char *want;  /* numafit's form (JSON) when rc is 0; else a part of the error text */
    const char *where; /* the field named by an error */
};

#define RT_SPECS                                                                                   \
    "{\"hw:cpu_policy\":\"dedicated\",\"hw:cpu_realtime\":\"yes\","                                \
    "\"hw:cpu_realtime_mask\":\"^0-1\",\"hw:mem_page_size\":\"1GB\"}"
#define RT_TEXT                                                                                    \
    "\"hw:cpu_policy='dedicated', hw:cpu_realtime='yes', hw:cpu_realtime_mask='^0-1', "            \
    "hw:mem_page_size='1GB'\""

static const struct form_case form_cases[] = {
    {"native", 0, "{\"vcpus\":4,\"memory_mb\":8192,\"extra_specs\":" RT_SPECS "}", 0,
     NUMAFIT_FORM_NATIVE, "{\"vcpus\":4,\"memory_mb\":8192,\"extra_specs\":" RT_SPECS "}", NULL},
    {"native_all_keys", 0,
     "{\"name\":\"x\",\"vcpus\":1,\"memory_mb\":1,\"root_gb\":1,\"ephemeral_gb\":0,\"swap\":0}", 0,
     NUMAFIT_FORM_NATIVE, NULL, NULL},
    /* the misplaced keys that used to read as "no NUMA topology" */
    {"native_properties", 0,
     "{\"vcpus\":4,\"memory_mb\":8192,\"properties\":{\"hw:cpu_policy\":\"dedicated\"}}", -EINVAL,
     0, "\"properties\" is not a key of numafit's flavor", "properties"},
    {"native_top_spec", 0, "{\"vcpus\":4,\"memory_mb\":8192,\"hw:cpu_policy\":\"dedicated\"}",
     -EINVAL, 0, "'hw:cpu_policy' at the top level", "hw:cpu_policy"},
    {"native_typo", 0, "{\"vcpus\":4,\"memory_mb\":8192,\"extra_spec\":{}}", -EINVAL, 0,
     "unknown key 'extra_spec'", "extra_spec"},
    {"osc_dict", 0,
     "{\"OS-FLV-DISABLED:disabled\":false,\"OS-FLV-EXT-DATA:ephemeral\":5,"
     "\"access_project_ids\":null,\"description\":null,\"disk\":20,\"id\":\"f1\",\"name\":\"rt\","
     "\"os-flavor-access:is_public\":true,\"properties\":" RT_SPECS
     ",\"ram\":8192,\"rxtx_factor\":1.0,\"swap\":512,\"vcpus\":4}",
     0, NUMAFIT_FORM_OSC_FLAVOR,
     "{\"vcpus\":4,\"memory_mb\":8192,\"root_gb\":20,\"ephemeral_gb\":5,\"swap\":512,"
     "\"name\":\"rt\",\"extra_specs\":" RT_SPECS "}",
     NULL},
    {"osc_text", 0,
     "{\"disk\":0,\"name\":\"rt\",\"properties\":" RT_TEXT
     ",\"ram\":8192,\"swap\":\"\",\"vcpus\":4}",
     0, NUMAFIT_FORM_OSC_FLAVOR_TEXT,
     "{\"vcpus\":4,\"memory_mb\":8192,\"root_gb\":0,\"swap\":0,\"name\":\"rt\","
     "\"extra_specs\":" RT_SPECS "}",
     NULL},
    {"osc_text_empty", 0, "{\"ram\":512,\"vcpus\":1,\"properties\":\"\"}", 0,
     NUMAFIT_FORM_OSC_FLAVOR_TEXT, "{\"vcpus\":1,\"memory_mb\":512,\"extra_specs\":{}}", NULL},
    {"osc_text_bad", 0, "{\"ram\":512,\"vcpus\":1,\"properties\":\"hw:cpu_policy='dedicated\"}",
     -EINVAL, 0, "an unterminated quoted value", "properties"},
    {"osc_properties_list", 0, "{\"ram\":512,\"vcpus\":1,\"properties\":[]}", -EINVAL, 0,
     "must be an object or openstackclient's text form", "properties"},
    {"osc_top_spec", 0, "{\"ram\":512,\"vcpus\":1,\"properties\":{},\"hw:numa_nodes\":\"2\"}",
     -EINVAL, 0, "'hw:numa_nodes' at the top level of an openstack flavor", "hw:numa_nodes"},
    {"osc_newer_field", 0, "{\"ram\":512,\"vcpus\":1,\"properties\":{},\"location\":null}", 0,
     NUMAFIT_FORM_OSC_FLAVOR, "{\"vcpus\":1,\"memory_mb\":512,\"extra_specs\":{}}", NULL},
    {"nova_envelope", 0,
     "{\"flavor\":{\"id\":\"f1\",\"name\":\"rt\",\"ram\":8192,\"disk\":20,\"swap\":0,"
     "\"OS-FLV-EXT-DATA:ephemeral\":0,\"OS-FLV-DISABLED:disabled\":false,\"vcpus\":4,"
     "\"os-flavor-access:is_public\":true,\"rxtx_factor\":1.0,\"links\":[],"
     "\"description\":null,\"extra_specs\":" RT_SPECS "}}",
     0, NUMAFIT_FORM_NOVA_FLAVOR,
     "{\"vcpus\":4,\"memory_mb\":8192,\"root_gb\":20,\"ephemeral_gb\":0,\"swap\":0,"
     "\"name\":\"rt\",\"extra_specs\":" RT_SPECS "}",
     NULL},
    {"nova_bare_no_specs", 0, "{\"id\":\"f1\",\"ram\":2048,\"vcpus\":2,\"swap\":\"\"}", 0,
     NUMAFIT_FORM_NOVA_FLAVOR_BARE,
     "{\"vcpus\":2,\"memory_mb\":2048,\"swap\":0,\"extra_specs\":{}}", NULL},
    /* the server's embedded flavor (2.47+) */
    {"nova_server_flavor", 0,
     "{\"flavor\":{\"original_name\":\"rt\",\"ram\":8192,\"vcpus\":4,\"disk\":1,\"ephemeral\":2,"
     "\"swap\":0,\"extra_specs\":{}}}",
     0, NUMAFIT_FORM_NOVA_FLAVOR,
     "{\"vcpus\":4,\"memory_mb\":8192,\"root_gb\":1,\"ephemeral_gb\":2,\"swap\":0,"
     "\"name\":\"rt\",\"extra_specs\":{}}",
     NULL},
    {"nova_envelope_no_ram", 0, "{\"flavor\":{\"vcpus\":4}}", -EINVAL, 0,
     "nova's {\"flavor\": ...} has no \"ram\"", "ram"},
    {"nova_envelope_extra_key", 0, "{\"flavor\":{\"ram\":1,\"vcpus\":1},\"x\":1}", -EINVAL, 0,
     "nova's envelope", "flavor"},
    {"nova_text_specs", 0, "{\"ram\":1,\"vcpus\":1,\"extra_specs\":\"a='b'\"}", -EINVAL, 0,
     "extra_specs must be an object in nova's API", "extra_specs"},
    {"both_specs", 0, "{\"ram\":1,\"vcpus\":1,\"extra_specs\":{},\"properties\":{}}", -EINVAL, 0,
     "both \"properties\"", "properties"},
    {"ram_and_memory_mb", 0, "{\"ram\":1,\"memory_mb\":1,\"vcpus\":1}", -EINVAL, 0, "both \"ram\"",
     "ram"},
    {"flavor_list", 0, "[]", -EINVAL, 0, "must be a JSON object", "flavor"},
    {"flavor_syntax", 0, "{\"ram\":", -EBADMSG, 0, "", NULL},
    /* images */
    {"image_native", 1, "{\"properties\":{\"hw_cpu_policy\":\"dedicated\"}}", 0,
     NUMAFIT_FORM_NATIVE, "{\"properties\":{\"hw_cpu_policy\":\"dedicated\"}}", NULL},
    {"image_null", 1, "null", 0, NUMAFIT_FORM_NATIVE, "null", NULL},
    {"image_empty", 1, "{}", 0, NUMAFIT_FORM_NATIVE, "{}", NULL},
    {"image_top_level", 1, "{\"hw_cpu_policy\":\"dedicated\"}", -EINVAL, 0,
     "'hw_cpu_policy' is not a key of numafit's image", "hw_cpu_policy"},
    {"image_name_only", 1, "{\"name\":\"x\",\"hw_numa_nodes\":\"2\"}", -EINVAL, 0,
     "'name' is not a key of numafit's image", "name"},
    {"osc_image", 1,
     "{\"id\":\"i1\",\"name\":\"deb\",\"status\":\"active\",\"min_ram\":0,"
     "\"properties\":{\"hw_cpu_thread_policy\":\"isolate\",\"os_hidden\":false}}",
     0, NUMAFIT_FORM_OSC_IMAGE,
     "{\"properties\":{\"hw_cpu_thread_policy\":\"isolate\",\"os_hidden\":false}}", NULL},
    {"osc_image_text", 1,
     "{\"id\":\"i1\",\"properties\":\"hw_cpu_thread_policy='isolate', os_distro='debian'\"}", 0,
     NUMAFIT_FORM_OSC_IMAGE_TEXT,
     "{\"properties\":{\"hw_cpu_thread_policy\":\"isolate\",\"os_distro\":\"debian\"}}", NULL},
    {"osc_image_text_bad", 1, "{\"id\":\"i1\",\"properties\":\"hw_cpu_thread_policy=isolate\"}",
     -EINVAL, 0, "a quoted value", "properties"},
    {"glance_image", 1,
     "{\"id\":\"i1\",\"status\":\"active\",\"disk_format\":\"raw\",\"tags\":[],"
     "\"os_hash_algo\":\"sha512\",\"self\":\"/v2/images/i1\",\"hw_cpu_policy\":\"dedicated\","
     "\"hw_numa_nodes\":\"2\"}",
     0, NUMAFIT_FORM_GLANCE_IMAGE,
     "{\"properties\":{\"hw_cpu_policy\":\"dedicated\",\"hw_numa_nodes\":\"2\"}}", NULL},
    {"glance_both_agree", 1,
     "{\"id\":\"i1\",\"hw_numa_nodes\":\"2\",\"properties\":{\"hw_numa_nodes\":\"2\"}}", 0,
     NUMAFIT_FORM_OSC_IMAGE, "{\"properties\":{\"hw_numa_nodes\":\"2\"}}", NULL},
    {"glance_both_differ", 1,
     "{\"id\":\"i1\",\"hw_numa_nodes\":\"1\",\"properties\":{\"hw_numa_nodes\":\"2\"}}", -EINVAL, 0,
     "'hw_numa_nodes' both at the top level and in \"properties\"", "hw_numa_nodes"},
    {"image_list", 1, "[1]", -EINVAL, 0, "must be a JSON object", "image"},
    /* the empty key still names a field (fuzz_forms) */
    {"flavor_empty_key", 0, "{\"\":0,\"vcpus\":1,\"memory_mb\":1}", -EINVAL, 0, "unknown key ''",
     "\"\""},
    {"osc_empty_key", 0, "{\"ram\":1,\"vcpus\":1,\"properties\":{},\"\":1}", 0,
     NUMAFIT_FORM_OSC_FLAVOR, NULL, NULL},
    {"image_empty_key", 1, "{\"\":{}}", -EINVAL, 0, "'' is not a key", "\"\""},
};

static void form_case(int i) {
    const struct form_case *c = &form_cases[i];
    numafit_error_t err;
    char *out = NULL;
    int form = -1, rc;

    rc = (c->image ? numafit_image_normalize : numafit_flavor_normalize)(c->input, strlen(c->input),
                                                                         0, &out, &form, &err);
    ck_assert_msg(rc == c->rc, "%s: rc %d, want %d (%s)", c->name, rc, c->rc, err.text);
    if (rc < 0) {
        ck_assert_ptr_null(out);
        ck_assert_msg(strstr(err.text, c->want), "%s: '%s' lacks '%s'", c->name, err.text, c->want);
        if (c->where)
            ck_assert_str_eq(err.where, c->where);
        return;
    }
    ck_assert_msg(form == c->form, "%s: form %d, want %d", c->name, form, c->form);
    if (form == NUMAFIT_FORM_NATIVE)
        ck_assert_str_eq(out, c->input); /* given back as it is */
    if (c->want) {
        json_t *got = json_loads(out, JSON_DECODE_ANY, NULL),
               *want = json_loads(c->want, JSON_DECODE_ANY, NULL);
        ck_assert_msg(got && want && json_equal(got, want), "%s: got %s", c->name, out);
        json_decref(got);
        json_decref(want);
    }
    numafit_free(out);
}

START_TEST(form_table) {
    form_case(_i);
}
END_TEST

START_TEST(form_arguments) {
    numafit_error_t err;
    char *out = NULL;
    int form;
    ck_assert_int_eq(numafit_flavor_normalize(NULL, 0, 0, &out, &form, &err), -EINVAL);
    ck_assert_int_eq(numafit_flavor_normalize("{}", 2, 1, &out, &form, &err), -EINVAL);
    ck_assert_int_eq(numafit_image_normalize("{}", 2, 0, NULL, &form, &err), -EINVAL);
    ck_assert_ptr_null(out);
    /* ret_form and reterr may be NULL */
    ck_assert_int_eq(numafit_image_normalize("{}", 2, 0, &out, NULL, NULL), 0);
    numafit_free(out);
    ck_assert_str_eq(numafit_input_form_to_string(NUMAFIT_FORM_OSC_FLAVOR_TEXT),
                     "openstack flavor show JSON (properties as text)");
    ck_assert_ptr_null(numafit_input_form_to_string(-1));
    ck_assert_ptr_null(numafit_input_form_to_string(8));
}
END_TEST

/* ------------------------------------------------------------ the fixtures */

static char *slurp(const char *name, size_t *len) {
    char path[4096];
    const char *dir = getenv("top_srcdir");
    FILE *f;
    char *buf = malloc(1 << 20);
    snprintf(path, sizeof(path), "%s/tests/data/forms/%s", dir ? dir : ".", name);
    f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s", path);
    ck_assert_ptr_nonnull(buf);
    *len = fread(buf, 1, (1 << 20) - 1, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

/* name read as form gives the same request JSON as the numafit form */
static void same_request(const char *flavor, int flavor_form, const char *image, int image_form) {
    size_t fl, il, nfl, nil;
    char *f = slurp(flavor, &fl), *i = slurp(image, &il);
    char *nf = slurp("rt-native.json", &nfl), *ni = slurp("image-native.json", &nil);
    char *ftxt = NULL, *itxt = NULL, *want = NULL, *got = NULL;
    numafit_request_t *a = NULL, *b = NULL;
    numafit_error_t err;
    int form = -1;

    ck_assert_int_eq(numafit_flavor_normalize(f, fl, 0, &ftxt, &form, &err), 0);
    ck_assert_int_eq(form, flavor_form);
    ck_assert_int_eq(numafit_image_normalize(i, il, 0, &itxt, &form, &err), 0);
    ck_assert_int_eq(form, image_form);
    ck_assert_int_eq(numafit_extra_specs_validate(ftxt, strlen(ftxt), 0, NULL, &err), 0);
    ck_assert_int_eq(numafit_request_new(ftxt, strlen(ftxt), itxt, strlen(itxt), 0, &a, &err), 1);
    ck_assert_int_eq(numafit_request_new(nf, nfl, ni, nil, 0, &b, &err), 1);
    ck_assert_int_eq(numafit_request_to_json(a, 0, &got, &err), 0);
    ck_assert_int_eq(numafit_request_to_json(b, 0, &want, &err), 0);
    ck_assert_str_eq(got, want);
    ck_assert_int_eq(numafit_request_get_thread_policy(a), NUMAFIT_THREAD_POLICY_ISOLATE);
    ck_assert_int_eq(numafit_request_get_vcpus(a), 8);
    numafit_request_free(a);
    numafit_request_free(b);
    numafit_free(got);
    numafit_free(want);
    numafit_free(ftxt);
    numafit_free(itxt);
    free(f);
    free(i);
    free(nf);
    free(ni);
}

START_TEST(fixtures) {
    same_request("rt-osc.json", NUMAFIT_FORM_OSC_FLAVOR, "image-osc.json", NUMAFIT_FORM_OSC_IMAGE);
    same_request("rt-osc-text.json", NUMAFIT_FORM_OSC_FLAVOR_TEXT, "image-osc-text.json",
                 NUMAFIT_FORM_OSC_IMAGE_TEXT);
    same_request("rt-nova.json", NUMAFIT_FORM_NOVA_FLAVOR, "image-glance.json",
                 NUMAFIT_FORM_GLANCE_IMAGE);
    same_request("rt-nova-bare.json", NUMAFIT_FORM_NOVA_FLAVOR_BARE, "image-native.json",
                 NUMAFIT_FORM_NATIVE);
    same_request("rt-native.json", NUMAFIT_FORM_NATIVE, "image-osc.json", NUMAFIT_FORM_OSC_IMAGE);
}
END_TEST

static Suite *forms_suite(void) {
    Suite *s = suite_create("forms");
    TCase *tc = tcase_create("text");
    tcase_add_loop_test(tc, text_table, 0, (int)(sizeof(text_cases) / sizeof(text_cases[0])));
    tcase_add_test(tc, text_nul_byte);
    tcase_add_test(tc, json_nul_byte);
    tcase_add_test(tc, text_huge);
    tcase_set_timeout(tc, 0);
    suite_add_tcase(s, tc);
    tc = tcase_create("documents");
    tcase_add_loop_test(tc, form_table, 0, (int)(sizeof(form_cases) / sizeof(form_cases[0])));
    tcase_add_test(tc, form_arguments);
    tcase_add_test(tc, fixtures);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(forms_suite());
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
