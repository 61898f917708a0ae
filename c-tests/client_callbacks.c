/* Callbacks of _nb calls never run inside the call, even when the answer is
 * known at once (a singleton: no server; cached data; local answers), and
 * fire exactly once when the call returned PMIX_SUCCESS, never when it
 * returned an error. Without a callback, PMIx_Register_event_handler blocks
 * and returns the handler's reference.
 *
 * Prints one line per call: "<call>: ok" or "<call>: FAIL <what went
 * wrong>"; the exit status says nothing about them. Run as a
 * singleton (no PMIx server in the environment) on both libraries; the lines
 * must be the same. */
#define _DEFAULT_SOURCE /* usleep (the strict C99 build) */
#include <pmix.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TESTUTIL_CHECKS_ONLY /* a singleton */
#include "testutil.h"

static volatile int fired;
static volatile int returned;
static volatile int fired_inline;
static pthread_t caller; /* the thread making the call */

/* Inside the call: on the caller's own thread before it returned. (Another
 * thread may well finish first on a loaded machine: that is not inline.) */
static void mark(void)
{
    if (!returned && pthread_equal(pthread_self(), caller)) {
        fired_inline = 1;
    }
    fired++;
}

static void op_cb(pmix_status_t status, void *cbdata)
{
    (void) status;
    (void) cbdata;
    mark();
}

static void value_cb(pmix_status_t status, pmix_value_t *kv, void *cbdata)
{
    (void) status;
    (void) kv;
    (void) cbdata;
    mark();
}

static void info_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                    pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void) status;
    (void) info;
    (void) ninfo;
    (void) cbdata;
    mark();
    if (NULL != release_fn) {
        release_fn(release_cbdata);
    }
}

static void reg_cb(pmix_status_t status, size_t ref, void *cbdata)
{
    (void) status;
    (void) ref;
    (void) cbdata;
    mark();
}

static void handler(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                    size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void) id; (void) status; (void) source; (void) info; (void) ninfo;
    (void) results; (void) nresults;
    if (NULL != cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static void begin(void)
{
    fired = 0;
    fired_inline = 0;
    returned = 0;
    caller = pthread_self();
}

/* After the call returned `rc`: one callback, never inline, iff success.
 * One line: "<call>: ok" or "<call>: FAIL <what went wrong>". */
static void check_callbacks(const char *name, pmix_status_t rc)
{
    int i;
    returned = 1;
    for (i = 0; i < 500 && rc == PMIX_SUCCESS && fired == 0; i++) {
        usleep(10000);
    }
    usleep(50000); /* a second callback would come by now */
    if (fired_inline) {
        fail(name, "callback ran inside the call");
    } else if (rc == PMIX_SUCCESS && fired != 1) {
        fail(name, "returned success, callback fired %d times", fired);
    } else if (rc != PMIX_SUCCESS && fired != 0) {
        fail(name, "returned an error, callback fired %d times", fired);
    } else {
        check_that(true, name);
    }
}

int main(void)
{
    pmix_proc_t me;
    pmix_status_t rc;
    pmix_info_t info;
    pmix_query_t query;
    char *keys[2] = {"pmix.qry.stabiver", NULL};
    pmix_status_t ref;

    setvbuf(stdout, NULL, _IONBF, 0);
    tu_every = true;
    memset(&me, 0, sizeof(me));
    rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc && PMIX_ERR_UNREACH != rc) {
        printf("init: %s\n", PMIx_Error_string(rc));
        return 1;
    }

    begin();
    check_callbacks("Get_nb own rank", PMIx_Get_nb(&me, PMIX_RANK, NULL, 0, value_cb, NULL));

    begin();
    check_callbacks("Fence_nb", PMIx_Fence_nb(NULL, 0, NULL, 0, op_cb, NULL));

    begin();
    PMIX_INFO_LOAD(&info, "rpmix.cb.test", "x", PMIX_STRING);
    check_callbacks("Publish_nb", PMIx_Publish_nb(&info, 1, op_cb, NULL));
    PMIX_INFO_DESTRUCT(&info);

    begin();
    memset(&query, 0, sizeof(query));
    query.keys = keys;
    check_callbacks("Query_info_nb abi", PMIx_Query_info_nb(&query, 1, info_cb, NULL));

    begin();
    check_callbacks("Register_event_handler", PMIx_Register_event_handler(NULL, 0, NULL, 0, handler, reg_cb, NULL));

    begin();
    check_callbacks("Notify_event", PMIx_Notify_event(PMIX_ERR_DEBUGGER_RELEASE, &me, PMIX_RANGE_PROC_LOCAL, NULL, 0, op_cb, NULL));

    begin();
    check_callbacks("Get_nb NULL cbfunc", PMIx_Get_nb(&me, PMIX_RANK, NULL, 0, NULL, NULL));

    ref = PMIx_Register_event_handler(NULL, 0, NULL, 0, handler, NULL, NULL);
    printf("Register_event_handler blocking: %s\n", ref >= 0 ? "a reference" : "an error");

    PMIx_Finalize(NULL, 0);
    return 0;
}
