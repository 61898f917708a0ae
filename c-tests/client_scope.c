/* PMIx_Get with PMIX_DATA_SCOPE: only data put in that scope is found. Run with 2 ranks. */
#include <stdio.h>
#include <string.h>
#include <pmix.h>

static int failed;

static void expect(const char *what, pmix_status_t got, pmix_status_t want)
{
    if (got != want) {
        printf("client_scope: %s: got %s, want %s\n", what, PMIx_Error_string(got), PMIx_Error_string(want));
        failed++;
    }
}

int main(void)
{
    pmix_proc_t me, peer;
    pmix_value_t v, *out = NULL;
    pmix_info_t info;
    pmix_scope_t scope;
    int one = 1;
    bool yes = true;

    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) return 1;
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
    expect("local key, LOCAL scope", PMIx_Get(&peer, "scoped.local", &info, 1, &out), PMIX_SUCCESS);
    if (out) { PMIX_VALUE_RELEASE(out); out = NULL; }
    expect("global key, LOCAL scope", PMIx_Get(&peer, "scoped.global", &info, 1, &out), PMIX_ERR_NOT_FOUND);
    scope = PMIX_GLOBAL;
    PMIX_INFO_LOAD(&info, PMIX_DATA_SCOPE, &scope, PMIX_SCOPE);
    expect("global key, GLOBAL scope", PMIx_Get(&peer, "scoped.global", &info, 1, &out), PMIX_SUCCESS);
    if (out) { PMIX_VALUE_RELEASE(out); out = NULL; }
    expect("local key, GLOBAL scope", PMIx_Get(&peer, "scoped.local", &info, 1, &out), PMIX_ERR_NOT_FOUND);
    PMIx_Fence(NULL, 0, NULL, 0);
    PMIx_Finalize(NULL, 0);
    if (me.rank == 0) printf("client_scope: %s\n", failed ? "FAILED" : "all checks passed");
    return failed ? 1 : 0;
}
