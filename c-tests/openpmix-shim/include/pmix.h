/* rpmix test shim: "include/pmix.h" of OpenPMIx's tree is the installed
 * public header (found through -I<OpenPMIx include dir>). */
#include <pmix.h>
