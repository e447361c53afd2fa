/*
 * libFuzzer target: the sysfs reader (numafit_host_new_from_sysfs).
 *
 * Input: records "PATH\0CONTENT\0" with PATH relative to
 * sys/devices/system (e.g. "node/node0/cpulist\0" "0-3\n\0",
 * "cpu/online\0" "0-7\n\0"); tests/fuzz/fstree.c writes them as files of a
 * scratch tree on tmpfs, reused from input to input, and the reader reads
 * that tree. A host gets every invariant of invariants.h; a refusal leaves
 * *ret_host untouched with a text (and the path, for a file's errno).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>

#include <numafit.h>

#include "fstree.h"
#include "invariants.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *root = fuzz_tree_build("sys/devices/system", data, size);
    numafit_host_t *host = NULL;
    numafit_error_t err;
    int r;

    fuzz_error_prefill(&err);
    r = numafit_host_new_from_sysfs(root, NULL, 0, &host, &err);
    if (r < 0) {
        /* open(), opendir() and read() errors of the tree's files as they
         * are (a file where a directory belongs, and so on), with the path */
        if (r == -ENOTDIR || r == -EISDIR || r == -EFBIG || r == -ENAMETOOLONG || r == -ELOOP) {
            fuzz_check_error(&err);
            FUZZ_ASSERT(host == NULL && err.where[0] != '\0');
            return 0;
        }
        fuzz_check_failure(r, &err, host);
        return 0;
    }
    FUZZ_ASSERT(r == 0 && host != NULL);
    fuzz_check_error(&err);
    fuzz_check_host(host, 0, NULL);
    numafit_host_free(host);
    return 0;
}
