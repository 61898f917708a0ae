/* rpmix test shim for OpenPMIx's test/simple programs: what they take from
 * OpenPMIx's generated pmix_config.h. Only public PMIx_* symbols of
 * libpmix.so.2 are used; every helper here is the shim's own (static inline,
 * or named pmixshim_* in shim.c) so that nothing in the program interposes
 * on the library's internal symbols. */
#ifndef PMIXSHIM_CONFIG_H
#define PMIXSHIM_CONFIG_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* marks parameters as used: every argument is evaluated and dropped */
static inline void pmixshim_unused(int dummy, ...) { (void) dummy; }
#define PMIX_HIDE_UNUSED_PARAMS(...) pmixshim_unused(0, __VA_ARGS__)

/* (OpenPMIx: configure's MAXHOSTNAMELEN + 1) */
#define PMIX_MAXHOSTNAMELEN 256

#define PMIX_EXPORT __attribute__((visibility("default")))
#endif
