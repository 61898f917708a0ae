/* PMIx_Get with PMIX_DATA_SCOPE: only data put in that scope is found. Run with 2 ranks. */
#define _DEFAULT_SOURCE /* testutil.h: nanosleep, clock_gettime */
#include <stdio.h>
#include <string.h>
#include <pmix.h>

#include "testutil.h"

int main(void)
{
    pmix_proc_t peer;
    pmix_value_t v, *out = NULL;
    pmix_info_t info;
    pmix_scope_t scope;
    int one = 1;
    bool yes = true;

    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) return 1;
    tu_set_prefix("client_scope: ");
    v.type = PMIX_INT;
    v.data.integer = one;
    PMIx_Put(PMIX_LOCAL, "scoped.local", &v);
    PMIx_Put(PMIX_GLOBAL, "scoped.global", &v);
    PMIx_Commit();
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    PMIx_Fence(NULL, 0, &info, 1);
    PMIX_LOAD_PROCID(&peer, me.nspace, 1 - me.rank);
    scope = PMIX_LOCAL;
    PMIX_INFO_LOAD(&info, PMIX_DATA_SCOPE, &scope, PMIX_SCOPE);
    check_status("local key, LOCAL scope", PMIx_Get(&peer, "scoped.local", &info, 1, &out), PMIX_SUCCESS);
    if (out) { PMIX_VALUE_RELEASE(out); out = NULL; }
    check_status("global key, LOCAL scope", PMIx_Get(&peer, "scoped.global", &info, 1, &out), PMIX_ERR_NOT_FOUND);
    scope = PMIX_GLOBAL;
    PMIX_INFO_LOAD(&info, PMIX_DATA_SCOPE, &scope, PMIX_SCOPE);
    check_status("global key, GLOBAL scope", PMIx_Get(&peer, "scoped.global", &info, 1, &out), PMIX_SUCCESS);
    if (out) { PMIX_VALUE_RELEASE(out); out = NULL; }
    check_status("local key, GLOBAL scope", PMIx_Get(&peer, "scoped.local", &info, 1, &out), PMIX_ERR_NOT_FOUND);
    PMIx_Fence(NULL, 0, NULL, 0);
    PMIx_Finalize(NULL, 0);
    if (me.rank == 0) printf("client_scope: %s\n", nfail ? "FAILED" : "all checks passed");
    return nfail ? 1 : 0;
}
