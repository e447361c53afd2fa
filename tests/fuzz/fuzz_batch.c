/*
 * libFuzzer target: `numafit fit --batch` (the CLI's sources, linked as they
 * are; tests/fuzz/cli_main.c brings tools/numafit/main.c without its main(),
 * and the target runs cli_run()): JSON lines on standard input, one answer
 * line each on standard output.
 *
 * Input: the lines. They become the program's stdin (a scratch file) and
 * its stdout another scratch file. Invariants: exit status 0; exactly one
 * answer line per input line, each a JSON object. The first lines that
 * give a host and a flavor are also fitted directly, with the line's
 * limits, strategy and nova release, with the fit invariants of
 * invariants.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <numafit.h>

#include "fstree.h"
#include "invariants.h"

#define CHECK_LINES 2

int cli_run(int argc, char **argv); /* tools/numafit/main.c (cli.h) */

/* Lines as the CLI counts them: '\n'-terminated, plus a last unterminated one. */
static size_t count_lines(const char *s, size_t n) {
    size_t lines = 0;
    for (size_t i = 0; i < n; i++)
        lines += s[i] == '\n';
    return lines + (n > 0 && s[n - 1] != '\n');
}

static char *read_back(int fd, size_t *ret_len) {
    off_t end = lseek(fd, 0, SEEK_END);
    char *buf;
    FUZZ_ASSERT(end >= 0);
    buf = malloc((size_t)end + 1);
    FUZZ_ASSERT(buf != NULL);
    FUZZ_ASSERT(pread(fd, buf, (size_t)end, 0) == (ssize_t)end);
    buf[end] = '\0';
    *ret_len = (size_t)end;
    return buf;
}

/* Fit one input line's host and flavor directly. */
static void check_line(const char *line, size_t len) {
    json_t *in = json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL), *v;
    numafit_host_t *host = NULL;
    numafit_request_t *req = NULL;
    numafit_options_t *opt = NULL;
    char *h = NULL, *f = NULL, *img = NULL, *lim = NULL;
    const char *rel;
    unsigned rflags;

    if (!json_is_object(in) || !json_is_object(json_object_get(in, "flavor")))
        goto out;
    rel = json_string_value(json_object_get(in, "nova_release"));
    rflags = rel && !strcmp(rel, "zed") ? NUMAFIT_REQUEST_ZED : 0;
    h = json_dumps(json_object_get(in, "host"), JSON_COMPACT | JSON_ENCODE_ANY);
    f = json_dumps(json_object_get(in, "flavor"), JSON_COMPACT);
    v = json_object_get(in, "image");
    img = json_is_object(v) ? json_dumps(v, JSON_COMPACT) : NULL;
    v = json_object_get(in, "limits");
    lim = json_is_object(v) ? json_dumps(v, JSON_COMPACT) : NULL;
    if (!h || !f || numafit_host_new_from_json(h, strlen(h), 0, &host, NULL) < 0 ||
        numafit_request_new(f, strlen(f), img, img ? strlen(img) : 0, rflags, &req, NULL) != 1)
        goto out;
    FUZZ_ASSERT(numafit_options_new(&opt) == 0);
    FUZZ_ASSERT(numafit_options_set_budget(opt, 200000) == 0);
    if (rflags)
        FUZZ_ASSERT(numafit_options_set_profile(opt, NUMAFIT_PROFILE_ZED) == 0);
    v = json_object_get(in, "strategy");
    if (json_is_string(v) && !strcmp(json_string_value(v), "pack"))
        FUZZ_ASSERT(numafit_options_set_strategy(opt, NUMAFIT_STRATEGY_PACK) == 0);
    if (json_is_string(v) && !strcmp(json_string_value(v), "headroom")) {
        /* the headroom strategy, keeping room for more of the same */
        const numafit_request_t *mix[1] = {req};
        double w = 1;
        FUZZ_ASSERT(numafit_options_set_strategy(opt, NUMAFIT_STRATEGY_HEADROOM) == 0);
        FUZZ_ASSERT(numafit_options_set_headroom_mix(opt, mix, &w, 1, NULL) == 0);
    }
    if (lim && numafit_options_set_limits_json(opt, lim, strlen(lim), NULL) < 0)
        goto out;
    fuzz_check_fit(host, 0, req, opt);
out:
    numafit_options_free(opt);
    numafit_request_free(req);
    numafit_host_free(host);
    free(h);
    free(f);
    free(img);
    free(lim);
    json_decref(in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int saved_out = -1;
    char arg0[] = "numafit", arg1[] = "fit", arg2[] = "--batch";
    char *argv[] = {arg0, arg1, arg2, NULL};
    const char *in_path = fuzz_scratch_file("batch-in", data, size);
    const char *out_path = fuzz_scratch_file("batch-out", "", 0);
    const char *end = (const char *)data + size, *l, *le;
    char *out, *s, *e;
    size_t olen, answers = 0, expect = count_lines((const char *)data, size), checked = 0;
    int in_fd, out_fd, rc;

    if (saved_out < 0)
        saved_out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    FUZZ_ASSERT(saved_out >= 0);
    in_fd = open(in_path, O_RDONLY | O_CLOEXEC);
    out_fd = open(out_path, O_RDWR | O_TRUNC | O_CLOEXEC);
    FUZZ_ASSERT(in_fd >= 0 && out_fd >= 0);
    FUZZ_ASSERT(dup2(in_fd, STDIN_FILENO) == STDIN_FILENO);
    close(in_fd);
    clearerr(stdin);
    __fpurge(stdin);
    fflush(stdout);
    FUZZ_ASSERT(dup2(out_fd, STDOUT_FILENO) == STDOUT_FILENO);

    fuzz_stderr_off();
    rc = cli_run(3, argv);
    fflush(stdout);
    fuzz_stderr_on();
    FUZZ_ASSERT(dup2(saved_out, STDOUT_FILENO) == STDOUT_FILENO);
    clearerr(stdout);
    if (rc != 0)
        fuzz_note("numafit fit --batch: exit status %d", rc);
    FUZZ_ASSERT(rc == 0);

    out = read_back(out_fd, &olen);
    close(out_fd);
    for (s = out; s < out + olen; s = e + 1) {
        json_t *a;
        e = memchr(s, '\n', (size_t)(out + olen - s));
        FUZZ_ASSERT(e != NULL); /* every answer ends its line */
        a = json_loadb(s, (size_t)(e - s), JSON_REJECT_DUPLICATES, NULL);
        if (!json_is_object(a))
            fuzz_note("answer %zu is not a JSON object: %.*s", answers + 1, (int)(e - s), s);
        FUZZ_ASSERT(json_is_object(a));
        json_decref(a);
        answers++;
    }
    if (answers != expect)
        fuzz_note("%zu input lines, %zu answers", expect, answers);
    FUZZ_ASSERT(answers == expect);
    free(out);

    for (l = (const char *)data; l < end && checked < CHECK_LINES; l = le + 1) {
        le = memchr(l, '\n', (size_t)(end - l));
        if (!le)
            le = end;
        if (le > l) {
            check_line(l, (size_t)(le - l));
            checked++;
        }
    }
    return 0;
}
