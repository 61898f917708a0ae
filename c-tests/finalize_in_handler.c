/* PMIx_Finalize called inside an event handler (on the library's progress
 * thread) must not deadlock: it answers at once (rpmix: PMIX_ERR_WOULD_BLOCK,
 * the library staying initialised), and the process finalizes normally
 * afterwards. Under a launcher: every rank notifies itself (PROC_LOCAL).
 * Prints "finalize_in_handler <rank>: <status inside> ok" and exits 0. */
#define _DEFAULT_SOURCE
#include <pmix.h>
#include <stdio.h>
#include <unistd.h>

#define MY_EVENT (PMIX_EXTERNAL_ERR_BASE - 7)

static volatile int handled;
static volatile pmix_status_t inside = PMIX_ERROR;

static void handler(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[], size_t ninfo,
                    pmix_info_t results[], size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void) id; (void) status; (void) source; (void) info; (void) ninfo; (void) results; (void) nresults;
    inside = PMIx_Finalize(NULL, 0);
    handled = 1;
    if (NULL != cbfunc) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

int main(void)
{
    pmix_proc_t me;
    pmix_status_t code = MY_EVENT, rc;
    int i;

    alarm(30);
    if (PMIX_SUCCESS != (rc = PMIx_Init(&me, NULL, 0))) {
        printf("finalize_in_handler: init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (PMIx_Register_event_handler(&code, 1, NULL, 0, handler, NULL, NULL) < 0) {
        printf("finalize_in_handler %u: registration failed\n", me.rank);
        return 1;
    }
    rc = PMIx_Notify_event(MY_EVENT, &me, PMIX_RANGE_PROC_LOCAL, NULL, 0, NULL, NULL);
    for (i = 0; i < 1000 && !handled; i++) {
        usleep(10000);
    }
    if (!handled) {
        printf("finalize_in_handler %u: the handler never ran (notify: %s)\n", me.rank, PMIx_Error_string(rc));
        return 1;
    }
    printf("finalize_in_handler %u: %s inside the handler\n", me.rank, PMIx_Error_string(inside));
    /* still initialised: a normal finalize works */
    rc = PMIx_Finalize(NULL, 0);
    printf("finalize_in_handler %u: %s\n", me.rank, rc == PMIX_SUCCESS ? "ok" : PMIx_Error_string(rc));
    return rc == PMIX_SUCCESS && inside == PMIX_ERR_WOULD_BLOCK ? 0 : 1;
}
