/* server.c includes "../include/pmix_server.h" (a path inside OpenPMIx's
 * source tree). The build passes -I shim/src, so that path lands here; this
 * wrapper includes the public pmix_server.h of the header set on the -I
 * path (OpenPMIx's, or whichever the driver chose). */
#include <pmix_server.h>
