/*
 * caller_progress: when a client's library runs threads of its own, and
 * that nothing is lost either way. Under a launcher, 2 ranks or more.
 *
 *  1. Init, Fence, a Get of a peer's committed key and a Get the server
 *     answers "not found": blocking calls only. Prints the threads.
 *  2. Two threads at once, 50 server-answered Gets each, beside the main
 *     thread's Fence: every answer as expected.
 *  3. An event handler, then rank 0 notifies every rank; each waits for its
 *     handler without calling into PMIx (the event must come by itself).
 *  4. Fence, Finalize.
 *
 * Prints "caller_progress <rank>: threads <after 1> <after 3> ok" and exits
 * 0, or a reason and 1. alarm(60) bounds it.
 */
#include <pmix.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MY_EVENT (PMIX_EXTERNAL_ERR_BASE - 11)
#define ROUNDS 50

static pmix_proc_t me;
static uint32_t size;
static volatile int got_event;

static int threads(void)
{
    char line[256];
    int n = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (NULL == f) return -1;
    while (fgets(line, sizeof line, f))
        if (0 == strncmp(line, "Threads:", 8)) n = atoi(line + 8);
    fclose(f);
    return n;
}

static void fail(const char *what, int rc)
{
    printf("caller_progress %u: %s: %d\n", me.rank, what, rc);
    exit(1);
}

/* A Get the server answers: a key the peer never put (PMIX_OPTIONAL: "not
 * found" at once, not a wait for it). */
static pmix_status_t missing_get(void)
{
    pmix_proc_t peer = me;
    pmix_info_t opt;
    pmix_value_t *v = NULL;
    bool yes = true;
    peer.rank = (me.rank + 1) % size;
    PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Get(&peer, "caller_progress.never", &opt, 1, &v);
    if (PMIX_SUCCESS == rc) PMIX_VALUE_RELEASE(v);
    return rc;
}

static void *getter(void *arg)
{
    (void) arg;
    for (int i = 0; i < ROUNDS; i++) {
        pmix_status_t rc = missing_get();
        if (PMIX_ERR_NOT_FOUND != rc) return (void *) (long) (rc == 0 ? -9999 : rc);
    }
    return NULL;
}

static void handler(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[], size_t ninfo,
                    pmix_info_t results[], size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void) id; (void) source; (void) info; (void) ninfo; (void) results; (void) nresults;
    if (MY_EVENT == status) got_event = 1;
    if (NULL != cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

int main(void)
{
    pmix_status_t rc;
    pmix_value_t *v = NULL;
    pmix_proc_t wild, peer;
    alarm(60);
    if (PMIX_SUCCESS != (rc = PMIx_Init(&me, NULL, 0))) fail("PMIx_Init", rc);
    PMIX_PROC_CONSTRUCT(&wild);
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIX_SUCCESS != (rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v))) fail("Get job size", rc);
    size = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    if (size < 2) fail("needs 2 ranks or more, has", (int) size);

    /* 1: blocking calls only */
    pmix_value_t val;
    PMIX_VALUE_LOAD(&val, &me.rank, PMIX_UINT32);
    if (PMIX_SUCCESS != (rc = PMIx_Put(PMIX_GLOBAL, "caller_progress.rank", &val))) fail("Put", rc);
    if (PMIX_SUCCESS != (rc = PMIx_Commit())) fail("Commit", rc);
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    if (PMIX_SUCCESS != (rc = PMIx_Fence(&wild, 1, &collect, 1))) fail("Fence", rc);
    peer = me;
    peer.rank = (me.rank + 1) % size;
    if (PMIX_SUCCESS != (rc = PMIx_Get(&peer, "caller_progress.rank", NULL, 0, &v))) fail("Get the peer's key", rc);
    if (v->data.uint32 != peer.rank) fail("the peer's key holds", (int) v->data.uint32);
    PMIX_VALUE_RELEASE(v);
    if (PMIX_ERR_NOT_FOUND != (rc = missing_get())) fail("Get of a key never put", rc);
    int after_blocking = threads();

    /* 2: two threads waiting at once, beside a fence */
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, getter, NULL);
    if (PMIX_SUCCESS != (rc = PMIx_Fence(NULL, 0, NULL, 0))) fail("Fence beside the getters", rc);
    for (int i = 0; i < 2; i++) {
        void *r;
        pthread_join(t[i], &r);
        if (NULL != r) fail("a getter thread's Get", (int) (long) r);
    }

    /* 3: an event, waited for outside PMIx */
    pmix_status_t code = MY_EVENT;
    rc = PMIx_Register_event_handler(&code, 1, NULL, 0, handler, NULL, NULL);
    if (rc < 0) fail("Register_event_handler", rc);
    int after_handler = threads();
    if (PMIX_SUCCESS != (rc = PMIx_Fence(NULL, 0, NULL, 0))) fail("Fence after registering", rc);
    if (0 == me.rank) {
        pmix_info_t nondefault;
        PMIX_INFO_LOAD(&nondefault, PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
        rc = PMIx_Notify_event(MY_EVENT, &me, PMIX_RANGE_NAMESPACE, &nondefault, 1, NULL, NULL);
        if (PMIX_SUCCESS != rc && PMIX_OPERATION_SUCCEEDED != rc) fail("Notify_event", rc);
    }
    while (!got_event) usleep(1000); /* alarm(60) ends a wait that never ends */

    /* 4 */
    if (PMIX_SUCCESS != (rc = PMIx_Fence(NULL, 0, NULL, 0))) fail("last Fence", rc);
    printf("caller_progress %u: threads %d %d ok\n", me.rank, after_blocking, after_handler);
    fflush(stdout);
    if (PMIX_SUCCESS != (rc = PMIx_Finalize(NULL, 0))) fail("Finalize", rc);
    return 0;
}
