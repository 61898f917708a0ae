/* Shim for OpenPMIx's internal "src/util/pmix_argv.h": the public
 * pmix_common.h already provides the pmix_argv_* helpers server.c uses
 * (append_nosize, prepend_nosize, join, copy, free) as static inlines. */
#ifndef EXSHIM_PMIX_ARGV_H
#define EXSHIM_PMIX_ARGV_H
#include <pmix_common.h>
#endif
