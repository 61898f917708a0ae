/*
 * tool_jobs: a tool that starts one-rank jobs through a persistent launcher
 * (the node's system server: pmixrun --persistent), one after another, and
 * times each from its spawn to its end event (the launch benchmark's job
 * throughput: many of these at once).
 *
 *   tool_jobs <njobs> <program> [args...]
 *
 *   1. PMIx_tool_init with PMIX_CONNECT_TO_SYSTEM, and a handler for
 *      PMIX_ERR_JOB_TERMINATED (a job's end: its namespace and exit code).
 *   2. <njobs> times: PMIx_Spawn of one rank of <program>, then wait (at
 *      most 30 s) for that job's end event; its exit code must be 0.
 *   3. Prints "tool_jobs: <njobs> jobs <first> <last> <slowest>": the
 *      CLOCK_MONOTONIC nanoseconds of the first spawn and of the last end
 *      event, and the slowest job's nanoseconds, so a benchmark running
 *      many tools at once can take the whole span.
 * Exit 0 when every job started and ended with 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix_tool.h>

/* The namespaces whose end has come (the last few: this tool waits for
 * one job at a time, and its end may come before PMIx_Spawn returns). */
#define ENDED 16
static char ended[ENDED][PMIX_MAX_NSLEN + 1];
static int ended_code[ENDED];
static unsigned nended;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long) t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void on_end(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                   size_t ninfo, pmix_info_t results[], size_t nresults,
                   pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    size_t i;
    int code = -1;
    const char *which = NULL;
    (void) id; (void) status; (void) source; (void) results; (void) nresults;
    for (i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EXIT_CODE) && info[i].value.type == PMIX_INT) code = info[i].value.data.integer;
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) && info[i].value.type == PMIX_PROC)
            which = info[i].value.data.proc->nspace;
    }
    if (which != NULL) {
        pthread_mutex_lock(&lock);
        snprintf(ended[nended % ENDED], sizeof ended[0], "%s", which);
        ended_code[nended % ENDED] = code;
        nended++;
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&lock);
    }
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* The exit code of job `ns` once its end event has come; -1000 after 30 s. */
static int wait_end(const char *ns)
{
    struct timespec limit;
    int code = -1000;
    clock_gettime(CLOCK_REALTIME, &limit);
    limit.tv_sec += 30;
    pthread_mutex_lock(&lock);
    for (;;) {
        unsigned k;
        for (k = 0; k < ENDED && k < nended; k++)
            if (strcmp(ended[k], ns) == 0) code = ended_code[k];
        if (code != -1000 || pthread_cond_timedwait(&changed, &lock, &limit) != 0) break;
    }
    pthread_mutex_unlock(&lock);
    return code;
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    pmix_info_t info;
    pmix_app_t app;
    pmix_status_t rc, code = PMIX_ERR_JOB_TERMINATED;
    bool yes = true;
    long long first = 0, last = 0, slowest = 0;
    int njobs, j, i;

    if (argc < 3 || (njobs = atoi(argv[1])) < 1) {
        fprintf(stderr, "usage: tool_jobs <njobs> <program> [args...]\n");
        return 2;
    }
    PMIX_INFO_LOAD(&info, PMIX_CONNECT_TO_SYSTEM, &yes, PMIX_BOOL);
    if ((rc = PMIx_tool_init(&me, &info, 1)) != PMIX_SUCCESS) {
        fprintf(stderr, "tool_jobs: tool_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    rc = PMIx_Register_event_handler(&code, 1, NULL, 0, on_end, NULL, NULL);
    if (rc < 0) {
        fprintf(stderr, "tool_jobs: register: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(argv[2]);
    for (i = 2; i < argc; i++) PMIX_ARGV_APPEND(rc, app.argv, argv[i]);
    app.maxprocs = 1;
    for (j = 0; j < njobs; j++) {
        char ns[PMIX_MAX_NSLEN + 1];
        long long t0 = now_ns(), t1;
        int exit_code;
        if (j == 0) first = t0;
        rc = PMIx_Spawn(NULL, 0, &app, 1, ns);
        if (rc != PMIX_SUCCESS) {
            fprintf(stderr, "tool_jobs: spawn %d: %s\n", j, PMIx_Error_string(rc));
            return 1;
        }
        exit_code = wait_end(ns);
        t1 = now_ns();
        if (exit_code != 0) {
            fprintf(stderr, "tool_jobs: job %s: %s %d\n", ns, exit_code == -1000 ? "no end event in 30 s," : "exit code", exit_code);
            return 1;
        }
        last = t1;
        if (t1 - t0 > slowest) slowest = t1 - t0;
    }
    printf("tool_jobs: %d jobs %lld %lld %lld\n", njobs, first, last, slowest);
    PMIX_APP_DESTRUCT(&app);
    PMIx_tool_finalize();
    return 0;
}
