/* rpmix test shim: OpenPMIx's printf helpers are the C library's. */
#ifndef PMIXSHIM_PRINTF_H
#define PMIXSHIM_PRINTF_H
#include "src/include/pmix_config.h"
#define pmix_asprintf asprintf
#define pmix_vasprintf vasprintf
#define pmix_snprintf snprintf
#define pmix_vsnprintf vsnprintf
#endif
