#include "config.h"

#include <stdio.h>

#include <numafit.h>

int main(void) {
    printf("numafit %s\n", numafit_version_string());
    return 0;
}
