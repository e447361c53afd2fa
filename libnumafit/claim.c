#include "config.h"

#include "private.h"
