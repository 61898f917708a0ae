/* pmixver.h: which libpmix.so.2 does this process use?
 *
 * The MPI test programs do not link libpmix themselves: Open MPI loads it
 * (mca_pmix_ext3x.so -> libpmix.so.2).  This looks the already-loaded library
 * up at run time and returns its PMIx_Get_version() string, e.g.
 * "OpenPMIx 4.2.2rc2 (...)" or "rpmix 0.1.0 (...)". */
#ifndef RPMIX_MPI_PMIXVER_H
#define RPMIX_MPI_PMIXVER_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stddef.h>

static inline const char *pmix_version_string(void)
{
    typedef const char *(*getver_fn)(void);
    getver_fn f = (getver_fn)dlsym(RTLD_DEFAULT, "PMIx_Get_version");
    if (f == NULL) {
        /* ext3x may have been dlopen'ed RTLD_LOCAL: ask for the loaded
         * library by SONAME without loading a new copy. */
        void *h = dlopen("libpmix.so.2", RTLD_NOW | RTLD_NOLOAD);
        if (h != NULL)
            f = (getver_fn)dlsym(h, "PMIx_Get_version");
    }
    return f != NULL ? f() : "<libpmix not loaded>";
}

/* Path of the loaded libpmix.so.2, or "?" */
static inline const char *pmix_library_path(void)
{
    void *h = dlopen("libpmix.so.2", RTLD_NOW | RTLD_NOLOAD);
    void *sym = h ? dlsym(h, "PMIx_Get_version") : NULL;
    Dl_info di;
    if (sym != NULL && dladdr(sym, &di) != 0 && di.dli_fname != NULL)
        return di.dli_fname;
    return "?";
}

#endif
