/*
 * client_abort: rank 1 calls PMIx_Abort(7, ...) right after PMIx_Init; the
 * other ranks sleep (up to 30 s) waiting to be killed by the host.
 * CLIENT_ABORT_STATUS=<n> aborts with status n instead (e.g. -1).
 *
 *   rm_simple -n N ./client_abort      (N >= 2; expected exit status 7)
 *
 * If the host does not terminate the job, ranks exit by themselves after
 * 30 s: rank 1 with 3 (PMIx_Abort returned and nobody killed it), the others
 * with 0, so a host that ignores the abort is visible in its exit status.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <pmix.h>

int main(void)
{
    pmix_proc_t me;
    pmix_status_t rc;
    int i;

    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("client_abort: PMIx_Init failed: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (me.rank == 0) {
        pmix_proc_t wild;
        pmix_value_t *v = NULL;
        PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
        rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
        if (rc == PMIX_SUCCESS && v != NULL && v->type == PMIX_UINT32 && v->data.uint32 < 2) {
            printf("client_abort: needs at least 2 ranks\n");
            PMIX_VALUE_RELEASE(v);
            PMIx_Finalize(NULL, 0);
            return 1;
        }
        if (v != NULL) PMIX_VALUE_RELEASE(v);
    }
    if (me.rank == 1) {
        const char *st = getenv("CLIENT_ABORT_STATUS");
        rc = PMIx_Abort(st != NULL ? atoi(st) : 7, "test abort", NULL, 0);
        /* normally never reached: the host kills the job */
        fprintf(stderr, "client_abort: rank 1: PMIx_Abort returned %s\n", PMIx_Error_string(rc));
        for (i = 0; i < 30; i++) sleep(1);
        return 3;
    }
    for (i = 0; i < 30; i++) sleep(1);
    PMIx_Finalize(NULL, 0);
    return 0;
}
