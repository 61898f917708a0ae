/*
 * upcall_count: an LD_PRELOAD library for slurmstepd (tools/slurm2-tests.sh)
 * that records, whatever libpmix.so.2 the mpi/pmix plugin loaded, the host
 * upcalls that library makes and the server calls Slurm makes into it:
 *
 *   fence_nb        the library asks the host to run a fence across nodes
 *   direct_modex    the library asks the host for another node's proc data
 *   dmodex_request  PMIx_server_dmodex_request: the host asks the library
 *                   for one of its local procs' data (on behalf of another
 *                   node's direct_modex)
 *
 * It wraps PMIx_server_init (the plugin resolves it from the global scope,
 * where a preloaded library comes first), replaces the module's fence_nb and
 * direct_modex with counting wrappers that call Slurm's, and wraps
 * PMIx_server_dmodex_request. Each event appends one line to the file named
 * by RPMIX_UPCALL_LOG (one write, O_APPEND):
 *   "<hostname> <pid> <event> <details>"
 * (server_init: the version's first word and the path of the library).
 * Nothing is recorded when RPMIX_UPCALL_LOG is unset.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix_server.h>

#define PLUGIN_LIB "/usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so"

static pmix_server_module_t wrapped;
static pmix_server_fencenb_fn_t host_fence_nb;
static pmix_server_dmodex_req_fn_t host_direct_modex;

static void record(const char *fmt, ...)
{
    const char *path = getenv("RPMIX_UPCALL_LOG");
    char line[512], host[64] = "?";
    va_list ap;
    int n, fd;

    if (path == NULL || *path == '\0') return;
    gethostname(host, sizeof host);
    host[sizeof host - 1] = '\0';
    n = snprintf(line, sizeof line, "%s %d ", host, (int)getpid());
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof line - 2) n = (int)sizeof line - 2;
    line[n++] = '\n';
    fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    if (write(fd, line, (size_t)n) < 0) { /* nothing to do */ }
    close(fd);
}

/* the library's own symbol: the next definition in the global scope, else
 * the plugin's library by path (dlopen'ed RTLD_LOCAL) */
static void *real(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name), *h;
    if (f != NULL) return f;
    h = dlopen(PLUGIN_LIB, RTLD_LAZY | RTLD_NOLOAD);
    if (h == NULL) h = dlopen("libpmix.so.2", RTLD_LAZY | RTLD_NOLOAD);
    return h != NULL ? dlsym(h, name) : NULL;
}

static pmix_status_t count_fence_nb(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[], size_t ninfo,
                                    char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    size_t i;
    int collect = 0;
    for (i = 0; i < ninfo; i++)
        if (strcmp(info[i].key, PMIX_COLLECT_DATA) == 0) collect = info[i].value.data.flag ? 1 : 0;
    record("fence_nb nprocs=%zu rank0=%d ninfo=%zu collect=%d ndata=%zu", nprocs,
           nprocs > 0 ? (int)procs[0].rank : -1, ninfo, collect, ndata);
    return host_fence_nb(procs, nprocs, info, ninfo, data, ndata, cbfunc, cbdata);
}

static pmix_status_t count_direct_modex(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                                        pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    /* the key of the Get that went remote (PMIX_REQUIRED_KEY, both libraries add it) */
    const char *key = "-";
    size_t i;
    for (i = 0; i < ninfo; i++)
        if (strcmp(info[i].key, "pmix.req.key") == 0 && info[i].value.type == PMIX_STRING && info[i].value.data.string != NULL)
            key = info[i].value.data.string;
    record("direct_modex rank=%d ninfo=%zu key=%s", (int)proc->rank, ninfo, key);
    return host_direct_modex(proc, info, ninfo, cbfunc, cbdata);
}

pmix_status_t PMIx_server_init(pmix_server_module_t *module, pmix_info_t info[], size_t ninfo)
{
    pmix_status_t (*init)(pmix_server_module_t *, pmix_info_t *, size_t) = real("PMIx_server_init");
    if (init == NULL) return PMIX_ERR_NOT_FOUND;
    if (module == NULL) return init(module, info, ninfo);
    wrapped = *module;
    host_fence_nb = module->fence_nb;
    host_direct_modex = module->direct_modex;
    if (host_fence_nb != NULL) wrapped.fence_nb = count_fence_nb;
    if (host_direct_modex != NULL) wrapped.direct_modex = count_direct_modex;
    {
        const char *(*version)(void) = real("PMIx_Get_version");
        const char *v = version != NULL ? version() : "?";
        Dl_info di;
        const char *lib = dladdr((void *)init, &di) && di.dli_fname != NULL ? di.dli_fname : "?";
        /* the version's first word: "OpenPMIx" or "rpmix" */
        record("server_init version=%.*s lib=%s fence_nb=%s direct_modex=%s", (int)strcspn(v, " "), v, lib,
               host_fence_nb ? "yes" : "no", host_direct_modex ? "yes" : "no");
    }
    return init(&wrapped, info, ninfo);
}

pmix_status_t PMIx_server_dmodex_request(const pmix_proc_t *proc, pmix_dmodex_response_fn_t cbfunc, void *cbdata)
{
    pmix_status_t (*req)(const pmix_proc_t *, pmix_dmodex_response_fn_t, void *) = real("PMIx_server_dmodex_request");
    record("dmodex_request rank=%d", (int)proc->rank);
    return req != NULL ? req(proc, cbfunc, cbdata) : PMIX_ERR_NOT_FOUND;
}
