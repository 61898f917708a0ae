/* 16 threads of one client at once: Gets (own, job and a peer's), Put +
 * Commit, event handler registration and deregistration, local
 * notifications, and ABI queries; one more thread fences. No crash, no
 * hang, every answer as expected. Under a launcher; prints
 * "stress_threads <rank>: ok" and exits 0. alarm(60) bounds it. */
#define _DEFAULT_SOURCE
#include <pmix.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h" /* thread-safe checks */

#define THREADS 16
#define ROUNDS 200
#define MY_EVENT (PMIX_EXTERNAL_ERR_BASE - 9)

static uint32_t size = 1;

static void handler(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[], size_t ninfo,
                    pmix_info_t results[], size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void) id; (void) status; (void) source; (void) info; (void) ninfo; (void) results; (void) nresults;
    if (NULL != cbfunc) cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void info_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                    pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void) status; (void) info; (void) ninfo; (void) cbdata;
    if (NULL != release_fn) release_fn(release_cbdata);
}

static void *worker(void *arg)
{
    long t = (long) arg;
    int i;
    char key[64];
    pmix_proc_t wild;
    PMIX_PROC_LOAD(&wild, me.nspace, PMIX_RANK_WILDCARD);
    for (i = 0; i < ROUNDS; i++) {
        pmix_value_t v, *got = NULL;
        pmix_status_t rc, code = MY_EVENT;
        uint32_t x = (uint32_t) (t * 1000 + i);
        snprintf(key, sizeof(key), "stress.%ld", t);
        PMIX_VALUE_LOAD(&v, &x, PMIX_UINT32);
        if (PMIX_SUCCESS != (rc = PMIx_Put(PMIX_GLOBAL, key, &v))) fail("put", "%s", PMIx_Error_string(rc));
        PMIX_VALUE_DESTRUCT(&v);
        if (PMIX_SUCCESS != (rc = PMIx_Commit())) fail("commit", "%s", PMIx_Error_string(rc));
        if (PMIX_SUCCESS != (rc = PMIx_Get(&me, key, NULL, 0, &got))) {
            fail("get own", "%s", PMIx_Error_string(rc));
        } else {
            PMIX_VALUE_RELEASE(got);
        }
        if (PMIX_SUCCESS != (rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &got)) || got->data.uint32 != size) {
            fail("get job size", "%s", PMIx_Error_string(rc));
        }
        if (NULL != got) PMIX_VALUE_RELEASE(got);
        got = NULL;
        if (i % 10 == 0) {
            pmix_status_t ref = PMIx_Register_event_handler(&code, 1, NULL, 0, handler, NULL, NULL);
            if (ref < 0) {
                fail("register", "%s", PMIx_Error_string(ref));
            } else if (PMIX_SUCCESS != (rc = PMIx_Deregister_event_handler((size_t) ref, NULL, NULL))) {
                fail("deregister", "%s", PMIx_Error_string(rc));
            }
            if (PMIX_SUCCESS != (rc = PMIx_Notify_event(MY_EVENT, &me, PMIX_RANGE_PROC_LOCAL, NULL, 0, NULL, NULL))) fail("notify", "%s", PMIx_Error_string(rc));
        }
        if (i % 20 == 0) {
            pmix_query_t q;
            char *keys[2] = {"pmix.qry.stabiver", NULL};
            memset(&q, 0, sizeof(q));
            q.keys = keys;
            if (PMIX_SUCCESS != (rc = PMIx_Query_info_nb(&q, 1, info_cb, NULL))) fail("query", "%s", PMIx_Error_string(rc));
        }
    }
    return NULL;
}

int main(void)
{
    pthread_t th[THREADS];
    pmix_value_t *got = NULL;
    pmix_proc_t wild;
    pmix_status_t rc;
    long t;
    int f;

    alarm(60);
    setvbuf(stdout, NULL, _IONBF, 0);
    if (PMIX_SUCCESS != (rc = PMIx_Init(&me, NULL, 0))) {
        printf("stress_threads: init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    /* "stress_threads R: <what>: FAIL <status>", the first 9 only (the threads repeat them) */
    tu_set_prefix("stress_threads %u: ", (unsigned)me.rank);
    tu_max_fail_lines = 9;
    PMIX_PROC_LOAD(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIX_SUCCESS == PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &got)) {
        size = got->data.uint32;
        PMIX_VALUE_RELEASE(got);
    }
    for (t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, worker, (void *) t);
    /* meanwhile, this thread fences, ten times */
    for (f = 0; f < 10; f++) {
        if (PMIX_SUCCESS != (rc = PMIx_Fence(NULL, 0, NULL, 0))) fail("fence", "%s", PMIx_Error_string(rc));
    }
    for (t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    rc = PMIx_Fence(NULL, 0, NULL, 0);
    if (rc != PMIX_SUCCESS) fail("last fence", "%s", PMIx_Error_string(rc));
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) fail("finalize", "%s", PMIx_Error_string(rc));
    printf("stress_threads %u: %s\n", me.rank, nfail ? "FAIL" : "ok");
    return nfail != 0;
}
