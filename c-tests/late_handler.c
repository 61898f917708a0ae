/*
 * late_handler: a handler registered after its event was sent still gets
 * it, once (2 ranks or more).
 *
 * Rank 0 raises LATE_CODE to its namespace (PMIX_RANGE_NAMESPACE, with
 * "late.n" = 42) and waits for its completion; every rank fences. Then
 * every other rank registers a handler for LATE_CODE and waits up to 10 s
 * for the event, then registers a second handler for it and waits 1 s
 * more: the first must run once (with rank 0 as the source and "late.n"),
 * the second never (the event was delivered). Each such rank prints
 *   late_handler: rank <r>: first <n> second <m>
 * and, when that is "first 1 second 0", "late_handler: rank <r>: ok"
 * (else "... FAIL"); exits 0 when ok.
 */
#define _GNU_SOURCE
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A code of the program's own (outside PMIx's system events). */
#define LATE_CODE (-3210)

static volatile int ran[2];
static volatile int bad;
static volatile int registered[2] = {-1, -1};

static void on_event(int which, const pmix_proc_t *source, pmix_info_t info[], size_t ninfo)
{
    size_t i;
    int n = -1;
    for (i = 0; i < ninfo; i++) {
        if (0 == strcmp(info[i].key, "late.n") && info[i].value.type == PMIX_INT) n = info[i].value.data.integer;
    }
    if (n != 42 || source == NULL || source->rank != 0) __sync_fetch_and_add(&bad, 1);
    __sync_fetch_and_add(&ran[which], 1);
}

#define HANDLER(which)                                                                                              \
    static void on_event_##which(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],    \
                                 size_t ninfo, pmix_info_t results[], size_t nresults,                              \
                                 pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)                          \
    {                                                                                                               \
        (void) id;                                                                                                  \
        (void) status;                                                                                              \
        (void) results;                                                                                             \
        (void) nresults;                                                                                            \
        on_event(which, source, info, ninfo);                                                                       \
        if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);                                 \
    }                                                                                                               \
    static void on_reg_##which(pmix_status_t st, size_t ref, void *cbdata)                                          \
    {                                                                                                               \
        (void) ref;                                                                                                 \
        (void) cbdata;                                                                                              \
        registered[which] = st;                                                                                     \
    }

HANDLER(0)
HANDLER(1)

static volatile int notified = 1;

static void on_notified(pmix_status_t st, void *cbdata)
{
    (void) cbdata;
    notified = st;
}

/* Wait up to `ms` for *flag to leave `from`. */
static void wait_for(volatile int *flag, int from, int ms)
{
    int i;
    for (i = 0; i < ms / 10 && *flag == from; i++) usleep(10 * 1000);
}

int main(void)
{
    pmix_proc_t me;
    pmix_status_t code = LATE_CODE, rc;
    pmix_info_t info;
    int ok;

    if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
        printf("late_handler: init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (me.rank == 0) {
        int n = 42;
        PMIX_INFO_LOAD(&info, "late.n", &n, PMIX_INT);
        rc = PMIx_Notify_event(LATE_CODE, &me, PMIX_RANGE_NAMESPACE, &info, 1, on_notified, NULL);
        if (rc == PMIX_SUCCESS) wait_for(&notified, 1, 10000);
        if (rc != PMIX_SUCCESS || notified != PMIX_SUCCESS) printf("late_handler: rank 0: notify: %s/%d\n", PMIx_Error_string(rc), notified);
        PMIX_INFO_DESTRUCT(&info);
    }
    if ((rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS) {
        printf("late_handler: rank %u: fence: %s\n", me.rank, PMIx_Error_string(rc));
        PMIx_Finalize(NULL, 0);
        return 1;
    }
    ok = 1;
    if (me.rank != 0) {
        PMIx_Register_event_handler(&code, 1, NULL, 0, on_event_0, on_reg_0, NULL);
        wait_for(&registered[0], -1, 10000);
        wait_for(&ran[0], 0, 10000);
        PMIx_Register_event_handler(&code, 1, NULL, 0, on_event_1, on_reg_1, NULL);
        wait_for(&registered[1], -1, 10000);
        usleep(1000 * 1000);
        printf("late_handler: rank %u: first %d second %d%s\n", me.rank, ran[0], ran[1], bad ? " (wrong source or infos)" : "");
        ok = ran[0] == 1 && ran[1] == 0 && !bad && registered[0] == PMIX_SUCCESS && registered[1] == PMIX_SUCCESS;
        printf("late_handler: rank %u: %s\n", me.rank, ok ? "ok" : "FAIL");
        fflush(stdout);
    }
    /* (rank 0 stays until the others are done: the server keeps its namespace) */
    PMIx_Fence(NULL, 0, NULL, 0);
    PMIx_Finalize(NULL, 0);
    return ok ? 0 : 1;
}
