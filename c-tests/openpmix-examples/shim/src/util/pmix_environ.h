/* Shim for OpenPMIx's internal "src/util/pmix_environ.h" (pmix_setenv is in
 * the public pmix_common.h). */
#ifndef EXSHIM_PMIX_ENVIRON_H
#define EXSHIM_PMIX_ENVIRON_H
#include <pmix_common.h>
extern char **environ;
#endif
