/*
 * testutil_host.h: the upcalls of a host of one node that c-tests' hosts
 * share (soak_host.c, scale_host.c); each completes before it returns.
 *
 *   host_op_done    client_connected / client_finalized: success
 *   host_abort      a rank's PMIx_Abort: "<host_name>: rank R aborted (S): <msg>"
 *                   on stderr, then success (the host ends the job its own way)
 *   host_fence_nb   a fence: this node's data is the whole result (a copy,
 *                   released by the library once it is done with it)
 *
 * Settings: host_name (the program's name, for messages); host_answer_now
 * (answer PMIX_OPERATION_SUCCEEDED instead of calling back, where the
 * Standard allows it).
 */
#ifndef RPMIX_TESTUTIL_HOST_H
#define RPMIX_TESTUTIL_HOST_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix_server.h>

static const char *host_name = "host";
static bool host_answer_now;

static pmix_status_t host_op_done(const pmix_proc_t *proc, void *server_object, pmix_op_cbfunc_t cbfunc,
                                  void *cbdata)
{
    (void)proc;
    (void)server_object;
    if (host_answer_now || !cbfunc) return PMIX_OPERATION_SUCCEEDED;
    cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

static pmix_status_t host_abort(const pmix_proc_t *proc, void *server_object, int status, const char msg[],
                                pmix_proc_t procs[], size_t nprocs, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)server_object;
    (void)procs;
    (void)nprocs;
    fprintf(stderr, "%s: rank %u aborted (%d): %s\n", host_name, (unsigned)proc->rank, status, msg ? msg : "");
    if (host_answer_now || !cbfunc) return PMIX_OPERATION_SUCCEEDED;
    cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

static void host_release_copy(void *data)
{
    free(data);
}

/* The other nodes contribute nothing: the local data is the whole result.
 * It must live until the library releases it (OpenPMIx reads it later, on
 * its own thread). */
static pmix_status_t host_fence_nb(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                                   size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                                   void *cbdata)
{
    char *copy = NULL;
    (void)procs;
    (void)nprocs;
    (void)info;
    (void)ninfo;
    if (ndata) {
        copy = (char *)malloc(ndata);
        if (!copy) return PMIX_ERR_NOMEM;
        memcpy(copy, data, ndata);
    }
    cbfunc(PMIX_SUCCESS, copy, ndata, cbdata, copy ? host_release_copy : NULL, copy);
    return PMIX_SUCCESS;
}

#endif
