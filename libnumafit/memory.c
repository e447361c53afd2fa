/* All internal allocation goes through here (tests can inject failures). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "private.h"

void *numafit__malloc(size_t size) {
    return malloc(size ? size : 1);
}

void *numafit__calloc(size_t n, size_t size) {
    if (n == 0 || size == 0)
        return calloc(1, 1);
    return calloc(n, size);
}

void *numafit__realloc(void *p, size_t size) {
    return realloc(p, size ? size : 1);
}

void numafit__free(void *p) {
    free(p);
}

char *numafit__strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = numafit__malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

NUMAFIT_EXPORT void numafit_free(void *ptr) {
    numafit__free(ptr);
}
