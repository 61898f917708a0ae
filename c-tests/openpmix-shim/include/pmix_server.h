/* rpmix test shim: the installed public header. */
#include <pmix_server.h>
