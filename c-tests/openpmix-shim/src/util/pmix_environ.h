/* rpmix test shim: pmix_setenv is a static inline function of the installed
 * public pmix_common.h; environ is the C library's. */
#ifndef PMIXSHIM_ENVIRON_H
#define PMIXSHIM_ENVIRON_H
#include "src/include/pmix_config.h"
#include <pmix_common.h>
extern char **environ;
#endif
