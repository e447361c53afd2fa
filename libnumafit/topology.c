/* Guest CPU topology, as nova's get_best_cpu_topology. (stub) */
#include "config.h"

#include "private.h"
