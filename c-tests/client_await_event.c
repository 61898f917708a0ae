/*
 * client_await_event: a rank that waits for one event raised from outside
 * its job (a tool's PMIx_Notify_event, e.g. OpenPMIx's pevent).
 *
 *   client_await_event <code> <dir>
 *
 * Registers a handler for status <code>, then creates <dir>/ready.<rank>
 * (the caller raises the event once every rank's file is there) and waits
 * up to 20 s. Prints "client_await_event: rank <r> got <code> from <source>"
 * and exits 0 when the event came, else "... no event" and exits 1.
 */
#define _GNU_SOURCE
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int got;
static pmix_proc_t from;
static volatile int registered = -1;

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                     size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void) id;
    (void) status;
    (void) info;
    (void) ninfo;
    (void) results;
    (void) nresults;
    if (source) from = *source;
    __sync_fetch_and_add(&got, 1);
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void on_reg(pmix_status_t st, size_t ref, void *cbdata)
{
    (void) ref;
    (void) cbdata;
    registered = st;
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    pmix_status_t code, rc;
    char path[4096];
    FILE *f;
    int i;

    if (argc != 3) return 2;
    code = (pmix_status_t) strtol(argv[1], NULL, 10);
    if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
        printf("client_await_event: init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    PMIx_Register_event_handler(&code, 1, NULL, 0, on_event, on_reg, NULL);
    for (i = 0; i < 100 && registered < 0; i++) usleep(50 * 1000);
    if (registered != PMIX_SUCCESS) {
        printf("client_await_event: rank %u: registration: %d\n", me.rank, registered);
        PMIx_Finalize(NULL, 0);
        return 1;
    }
    snprintf(path, sizeof path, "%s/ready.%u", argv[2], me.rank);
    if ((f = fopen(path, "w")) != NULL) fclose(f);
    for (i = 0; i < 200 && !got; i++) usleep(100 * 1000);
    if (got)
        printf("client_await_event: rank %u got %d from %s:%u\n", me.rank, code, from.nspace, from.rank);
    else
        printf("client_await_event: rank %u: no event\n", me.rank);
    fflush(stdout);
    PMIx_Finalize(NULL, 0);
    return got ? 0 : 1;
}
