/* Tiny PMIx client: Init, Get job size, Put/Commit, Fence(collect), Get peer key, Finalize */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define P(...) do { fprintf(stderr, "[cli %u] ", me.rank); fprintf(stderr, __VA_ARGS__); } while (0)

int main(void)
{
    pmix_proc_t me, wild, peer;
    pmix_value_t *val, v;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) { fprintf(stderr, "init failed %d\n", rc); return 1; }
    P("init ok %s:%u\n", me.nspace, me.rank);
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val);
    P("get job size rc=%d val=%u\n", rc, rc == 0 ? val->data.uint32 : 0);
    rc = PMIx_Get(&me, PMIX_LOCAL_RANK, NULL, 0, &val);
    P("get local rank rc=%d val=%u\n", rc, rc == 0 ? val->data.uint16 : 0);
    rc = PMIx_Get(&wild, "custom.joblevel", NULL, 0, &val);
    P("get custom.joblevel rc=%d val=%s\n", rc, rc == 0 ? val->data.string : "-");

    char buf[64];
    snprintf(buf, sizeof buf, "g%u", me.rank);
    PMIX_VALUE_LOAD(&v, buf, PMIX_STRING);
    rc = PMIx_Put(PMIX_GLOBAL, "kg", &v); P("put kg rc=%d\n", rc);
    uint32_t u = 100 + me.rank;
    PMIX_VALUE_LOAD(&v, &u, PMIX_UINT32);
    rc = PMIx_Put(PMIX_LOCAL, "kl", &v); P("put kl rc=%d\n", rc);
    u = 200 + me.rank;
    PMIX_VALUE_LOAD(&v, &u, PMIX_UINT32);
    rc = PMIx_Put(PMIX_REMOTE, "kr", &v); P("put kr rc=%d\n", rc);
    rc = PMIx_Commit(); P("commit rc=%d\n", rc);

    pmix_info_t fi; bool t = true;
    PMIX_INFO_LOAD(&fi, PMIX_COLLECT_DATA, &t, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, getenv("NOCOLLECT") ? NULL : &fi, getenv("NOCOLLECT") ? 0 : 1);
    P("fence rc=%d\n", rc);

    PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % 2);
    rc = PMIx_Get(&peer, "kg", NULL, 0, &val);
    P("get peer kg rc=%d val=%s\n", rc, rc == 0 ? val->data.string : "-");
    rc = PMIx_Get(&peer, "kl", NULL, 0, &val);
    P("get peer kl rc=%d val=%u\n", rc, rc == 0 ? val->data.uint32 : 0);
    rc = PMIx_Get(&peer, "kr", NULL, 0, &val);
    P("get peer kr rc=%d val=%u\n", rc, rc == 0 ? val->data.uint32 : 0);
    if (getenv("NOTFOUND")) {
        pmix_info_t ti; uint32_t one = 1;
        PMIX_INFO_LOAD(&ti, PMIX_TIMEOUT, &one, PMIX_UINT32);
        rc = PMIx_Get(&peer, "nosuchkey", &ti, 1, &val);
        P("get peer nosuchkey rc=%d\n", rc);
    }
    /* second barrier so neither side finalizes before the peer's Gets are answered */
    rc = PMIx_Fence(NULL, 0, NULL, 0);
    P("fence2 rc=%d\n", rc);
    rc = PMIx_Finalize(NULL, 0);
    P("finalize rc=%d\n", rc);
    return 0;
}
