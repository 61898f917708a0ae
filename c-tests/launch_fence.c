/*
 * launch_fence: the launch benchmark's PMIx program (issue 37):
 * PMIx_Init, a fence of the whole namespace, PMIx_Finalize. Exit 0 when
 * every call succeeded.
 */
#include <stdio.h>

#include <pmix.h>

int main(void)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "launch_fence: PMIx_Init: %d\n", rc);
        return 1;
    }
    rc = PMIx_Fence(NULL, 0, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "launch_fence: PMIx_Fence: %d\n", rc);
        return 1;
    }
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "launch_fence: PMIx_Finalize: %d\n", rc);
        return 1;
    }
    return 0;
}
