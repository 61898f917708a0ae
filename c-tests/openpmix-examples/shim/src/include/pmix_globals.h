/* Shim for OpenPMIx's internal "src/include/pmix_globals.h": server.c only
 * reads pmix_globals.evbase (handed back to the shim's event functions). */
#ifndef EXSHIM_PMIX_GLOBALS_H
#define EXSHIM_PMIX_GLOBALS_H
#include <pmix.h>
#include "src/include/pmix_types.h"
typedef struct {
    void *evbase;
} exshim_globals_t;
extern exshim_globals_t exshim_globals;
#define pmix_globals exshim_globals
#endif
