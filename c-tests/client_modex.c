/*
 * client_modex: what a fence carries and when peers' data is fetched on
 * demand. Run under `rm_simple -p -v -n N` (N real ranks plus a phantom rank
 * N on a second node, so the fence goes through the host's fence_nb upcall
 * and a Get of the phantom through its direct_modex upcall):
 *
 *   client_modex collect|nocollect
 *
 * Every real rank Puts "modex.key" (PMIX_GLOBAL) and "modex.local"
 * (PMIX_LOCAL), commits, and fences over the whole job with
 * PMIX_COLLECT_DATA true or false; then reads the next real rank's
 * "modex.key", and rank 0 asks the phantom for "modex.key" (with
 * PMIX_TIMEOUT 5). Rank 0 prints
 *
 *   client_modex: peer <status> / phantom <status>
 *
 * and the host's -v log shows the fence_nb payload size and the
 * direct_modex upcalls (compared between the libraries by make test).
 */
#define _DEFAULT_SOURCE
#include <pmix.h>
#include "testutil.h"

int main(int argc, char **argv)
{
    pmix_proc_t wild, p;
    pmix_value_t v, *got = NULL;
    pmix_info_t info;
    pmix_status_t rc, prc, hrc;
    uint32_t size = 0, t = 5;
    bool collect = argc > 1 && strcmp(argv[1], "collect") == 0;
    pmix_value_t *val = NULL;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
        printf("client_modex: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    PMIX_PROC_LOAD(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val) == PMIX_SUCCESS && val) {
        size = val->data.uint32;
        PMIX_VALUE_RELEASE(val);
    }
    check(size >= 3, "job size", "%u: run under rm_simple -p with at least 2 real ranks", (unsigned)size);
    if (size < 3) {
        PMIx_Finalize(NULL, 0);
        return 1;
    }
    put_str("modex.key", "global-value");
    v.type = PMIX_STRING;
    v.data.string = "local-value";
    rc = PMIx_Put(PMIX_LOCAL, "modex.local", &v);
    check(rc == PMIX_SUCCESS, "put local", "%s", PMIx_Error_string(rc));
    rc = PMIx_Commit();
    check(rc == PMIX_SUCCESS, "commit", "%s", PMIx_Error_string(rc));

    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(&wild, 1, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    check(rc == PMIX_SUCCESS, "fence", "%s", PMIx_Error_string(rc));

    /* the next real rank (ranks 0..size-2; size-1 is the phantom) */
    PMIX_PROC_LOAD(&p, me.nspace, (me.rank + 1) % (size - 1));
    prc = PMIx_Get(&p, "modex.key", NULL, 0, &got);
    if (got) PMIX_VALUE_RELEASE(got);
    if (me.rank == 0) {
        PMIX_PROC_LOAD(&p, me.nspace, size - 1);
        PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &t, PMIX_UINT32);
        got = NULL;
        hrc = PMIx_Get(&p, "modex.key", &info, 1, &got);
        PMIX_INFO_DESTRUCT(&info);
        if (got) PMIX_VALUE_RELEASE(got);
        printf("client_modex: peer %s / phantom %s\n", PMIx_Error_string(prc), PMIx_Error_string(hrc));
    }
    check(prc == PMIX_SUCCESS, "peer", "%s", PMIx_Error_string(prc));
    /* no final fence: it would include the phantom, which never arrives
     * (the host answers fence_nb at once, so it would pass, but it adds
     * nothing here) */
    PMIx_Finalize(NULL, 0);
    return nfail ? 1 : 0;
}
