/* Preloaded into a rank (LD_PRELOAD) to prove which libpmix.so.2 it runs on:
 * it appends "<pid> <library path> <PMIx_Get_version()>" to the file named by
 * WHICH_PMIX_OUT, at start when the program links the library (so a rank
 * killed later still reports), else at exit (a library opened meanwhile).
 * It links nothing of PMIx itself: it finds the library loaded by its SONAME. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int reported;

static void which_pmix_report(void)
{
    const char *out = getenv("WHICH_PMIX_OUT");
    if (out == NULL || reported)
        return;
    void *lib = dlopen("libpmix.so.2", RTLD_LAZY | RTLD_NOLOAD);
    if (lib != NULL)
        reported = 1;
    const char *path = "not-loaded", *ver = "-";
    Dl_info di;
    if (lib != NULL) {
        void *f = dlsym(lib, "PMIx_Get_version");
        if (f != NULL && dladdr(f, &di) && di.dli_fname != NULL)
            path = di.dli_fname;
        if (f != NULL)
            ver = ((const char *(*)(void))f)();
    }
    char line[4096];
    int n = snprintf(line, sizeof line, "%d %s %s\n", (int)getpid(), path, ver);
    int fd = open(out, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd >= 0 && n > 0) {
        ssize_t w = write(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        (void)w;
        close(fd);
    }
}

__attribute__((constructor)) static void which_pmix_at_start(void)
{
    if (dlopen("libpmix.so.2", RTLD_LAZY | RTLD_NOLOAD) != NULL)
        which_pmix_report();
}

__attribute__((destructor)) static void which_pmix_at_exit(void)
{
    which_pmix_report();
}
