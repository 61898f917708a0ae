/*
 * Shim for OpenPMIx's internal "src/include/pmix_config.h", just enough for
 * the example resource manager server.c to build on the PUBLIC PMIx API
 * (rpmix tools/examples-tests.sh). Nothing here is OpenPMIx code.
 */
#ifndef EXSHIM_PMIX_CONFIG_H
#define EXSHIM_PMIX_CONFIG_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <limits.h>
#include <netdb.h>
#include <sys/param.h>
#ifdef MAXHOSTNAMELEN
#define PMIX_MAXHOSTNAMELEN (MAXHOSTNAMELEN + 1)
#else
#define PMIX_MAXHOSTNAMELEN 257
#endif
#endif
