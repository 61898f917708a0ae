/*
 * client_alloc: PMIx_Allocation_request of this node's CPUs, as a rank
 * under pmixrun (whose host keeps a ledger of them).
 *
 *   pmixrun -n 1 ./client_alloc
 *
 * Asks for 1 CPU (new), 1 more (extend), gives 1 back, then all; then for
 * more CPUs than the machine has. Prints one line per request
 * ("<what>: <status> id <id> cpus <n>") and exits 0 when every answer is
 * the expected one (a "FAIL" line says which is not).
 */
#define _DEFAULT_SOURCE
#include <pmix.h>

#include "testutil.h"

static char id[256] = "";

/* one request: its status, and the allocation's id and CPUs in the answer */
static pmix_status_t ask(const char *what, pmix_alloc_directive_t d, uint64_t cpus, bool with_id, uint64_t *held)
{
    pmix_info_t info[2], *res = NULL;
    size_t n = 0, ni = 0;
    pmix_status_t rc;
    if (with_id) PMIX_INFO_LOAD(&info[ni++], PMIX_ALLOC_ID, id, PMIX_STRING);
    if (cpus) PMIX_INFO_LOAD(&info[ni++], PMIX_ALLOC_NUM_CPUS, &cpus, PMIX_UINT64);
    rc = PMIx_Allocation_request(d, info, ni, &res, &n);
    *held = (uint64_t)-1;
    for (size_t i = 0; i < n; i++) {
        if (PMIX_CHECK_KEY(&res[i], PMIX_ALLOC_ID) && res[i].value.type == PMIX_STRING) {
            snprintf(id, sizeof(id), "%s", res[i].value.data.string);
        } else if (PMIX_CHECK_KEY(&res[i], PMIX_ALLOC_NUM_CPUS) && res[i].value.type == PMIX_UINT64) {
            *held = res[i].value.data.uint64;
        }
    }
    printf("%s: %s id %s cpus %lld\n", what, PMIx_Error_string(rc), id[0] ? id : "-", *held == (uint64_t)-1 ? -1LL : (long long)*held);
    fflush(stdout);
    if (res) PMIX_INFO_FREE(res, n);
    for (size_t i = 0; i < ni; i++) PMIX_INFO_DESTRUCT(&info[i]);
    return rc;
}

int main(void)
{
    uint64_t held;
    pmix_status_t rc;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    alarm(30);
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("client_alloc: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    rc = ask("new 1", PMIX_ALLOC_NEW, 1, false, &held);
    check(rc == PMIX_SUCCESS && held == 1 && id[0], "new", "%s", PMIx_Error_string(rc));
    rc = ask("more than the machine", PMIX_ALLOC_NEW, (uint64_t)ncpu + 1, false, &held);
    check(rc == PMIX_ERR_OUT_OF_RESOURCE, "too many", "%s", PMIx_Error_string(rc));
    if (ncpu >= 2) {
        rc = ask("extend 1", PMIX_ALLOC_EXTEND, 1, true, &held);
        check(rc == PMIX_SUCCESS && held == 2, "extend", "%s", PMIx_Error_string(rc));
        rc = ask("release 1", PMIX_ALLOC_RELEASE, 1, true, &held);
        check(rc == PMIX_SUCCESS && held == 1, "release 1", "%s", PMIx_Error_string(rc));
    }
    rc = ask("release all", PMIX_ALLOC_RELEASE, 0, true, &held);
    check(rc == PMIX_SUCCESS && held == 0, "release all", "%s", PMIx_Error_string(rc));
    rc = ask("extend released", PMIX_ALLOC_EXTEND, 1, true, &held);
    check(rc == PMIX_ERR_NOT_FOUND, "extend released", "%s", PMIx_Error_string(rc));
    rc = PMIx_Finalize(NULL, 0);
    check(rc == PMIX_SUCCESS, "finalize", "%s", PMIx_Error_string(rc));
    return tu_summary("client_alloc");
}
