/*
 * Scratch files for the fuzz targets whose readers only read files (sysfs,
 * the doctor, the CLI's loaders): one directory per process on a tmpfs
 * (/dev/shm, else $TMPDIR or /tmp), reused from input to input and removed
 * at exit.
 */
#ifndef NUMAFIT_FUZZ_FSTREE_H
#define NUMAFIT_FUZZ_FSTREE_H

#include <stddef.h>
#include <stdint.h>

/* The scratch directory (created on first use); aborts if it cannot be. */
const char *fuzz_scratch_dir(void);

/*
 * Empty the tree directory, then build it from records "PATH\0CONTENT\0"
 * (the last CONTENT may run to the end of the input without its NUL): PATH
 * relative to prefix ("" or e.g. "sys/devices/system"), '/'-separated,
 * empty and "." components skipped; a record with a ".." component, a path
 * over 16 components or 255 bytes, or one that collides with an earlier
 * file or directory is skipped; at most 512 records. Returns the root of
 * the tree (prefix not included).
 */
const char *fuzz_tree_build(const char *prefix, const uint8_t *data, size_t size);

/* Write data to the scratch file `name` (a plain file name); its path. */
const char *fuzz_scratch_file(const char *name, const void *data, size_t size);

#endif
