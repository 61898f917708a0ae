/* rpmix test shim: pmix_argv_* (split, join, count, free, append/prepend,
 * copy) are static inline functions of the installed public pmix_common.h. */
#ifndef PMIXSHIM_ARGV_H
#define PMIXSHIM_ARGV_H
#include "src/include/pmix_config.h"
#include <pmix_common.h>
#endif
