/* Shim for OpenPMIx's internal "src/util/pmix_printf.h": server.c uses the
 * C library's asprintf (pmix_config.h defines _GNU_SOURCE). */
#ifndef EXSHIM_PMIX_PRINTF_H
#define EXSHIM_PMIX_PRINTF_H
#include <stdio.h>
#endif
