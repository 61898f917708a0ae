/*
 * proc_table: what a debugger asks before it attaches (the MPIR proc
 * table's replacement). Built against OpenPMIx's headers, so the same
 * binary runs on rpmix and on OpenPMIx's library (a tool over TCP).
 *
 *   proc_table <nranks> <program>
 *
 * Through the node's system server (a persistent pmixrun): spawns <nranks>
 * ranks of <program> stopped on exec (exit 77 if the launcher cannot),
 * waits for PMIX_READY_FOR_DEBUG, asks PMIX_QUERY_PROC_TABLE for the job
 * (qualifier PMIX_NSPACE), prints one line per entry, releases the job and
 * waits for its end. A line names the rank, the host, the program and the
 * state, and whether the pid is right: a process stopped (state T) that
 * runs that program. Nothing in a line differs between two runs, so the
 * lines of the two libraries can be compared (stderr names the library
 * the run is on, and has the failed checks, as testutil.h prints them).
 * Exit 0 when every step worked.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pmix_tool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TESTUTIL_CHECKS_ONLY /* a tool: its own `me` */
#include "testutil.h"

static volatile int ready, ended;
static char app_ns[PMIX_MAX_NSLEN + 1];

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                     size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    size_t i;
    (void) id; (void) source; (void) results; (void) nresults;
    if (status == PMIX_READY_FOR_DEBUG) ready = 1;
    if (status == PMIX_EVENT_JOB_END)
        for (i = 0; i < ninfo; i++)
            if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) && strcmp(info[i].value.data.proc->nspace, app_ns) == 0)
                ended = 1;
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static int wait_for(volatile int *flag)
{
    int i;
    for (i = 0; i < 300 && !*flag; i++) usleep(100 * 1000);
    return *flag;
}

/* The process is stopped and runs `want`. */
static int pid_right(pid_t pid, const char *want)
{
    char path[64], exe[4096] = "", stat[512] = "", *state;
    ssize_t n;
    FILE *f;
    snprintf(path, sizeof path, "/proc/%d/exe", (int) pid);
    n = readlink(path, exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    snprintf(path, sizeof path, "/proc/%d/stat", (int) pid);
    if ((f = fopen(path, "r")) != NULL) { if (!fgets(stat, sizeof stat, f)) stat[0] = 0; fclose(f); }
    state = strrchr(stat, ')');
    return pid > 0 && state != NULL && state[1] == ' ' && state[2] == 'T' && strcmp(exe, want) == 0;
}

int main(int argc, char **argv)
{
    pmix_proc_t me, job;
    pmix_info_t info, *res = NULL, jinfo[2], rel;
    pmix_query_t q;
    pmix_app_t app;
    pmix_status_t rc, codes[2] = { PMIX_READY_FOR_DEBUG, PMIX_EVENT_JOB_END };
    size_t nres = 0, i;
    char want[4096];
    bool yes = true;
    int nranks, can_exec = 0;

    if (argc < 3 || !realpath(argv[2], want)) { fprintf(stderr, "usage: proc_table <nranks> <program>\n"); return 2; }
    nranks = atoi(argv[1]);
    tu_out = stderr; /* (stdout holds the table alone) */
    tu_set_prefix("proc_table: ");
    {
        /* which library this run is on (the driver checks it) */
        Dl_info di;
        if (dladdr((void *) PMIx_tool_init, &di) && di.dli_fname) fprintf(stderr, "proc_table: library %s\n", di.dli_fname);
    }
    PMIX_INFO_LOAD(&info, PMIX_CONNECT_TO_SYSTEM, &yes, PMIX_BOOL);
    if ((rc = PMIx_tool_init(&me, &info, 1)) != PMIX_SUCCESS) {
        fprintf(stderr, "proc_table: tool_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    PMIX_QUERY_CONSTRUCT(&q);
    PMIX_ARGV_APPEND(rc, q.keys, PMIX_QUERY_DEBUG_SUPPORT);
    if (PMIx_Query_info(&q, 1, &res, &nres) == PMIX_SUCCESS)
        for (i = 0; i < nres; i++)
            if (res[i].value.type == PMIX_STRING && strstr(res[i].value.data.string, PMIX_DEBUG_STOP_ON_EXEC)) can_exec = 1;
    if (!can_exec) { fprintf(stderr, "proc_table: the launcher cannot stop on exec here\n"); return 77; }
    PMIx_Register_event_handler(codes, 2, NULL, 0, on_event, NULL, NULL);

    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(want);
    PMIX_ARGV_APPEND(rc, app.argv, want);
    app.maxprocs = nranks;
    PMIX_INFO_LOAD(&jinfo[0], PMIX_DEBUG_STOP_ON_EXEC, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&jinfo[1], PMIX_NOTIFY_COMPLETION, &yes, PMIX_BOOL);
    require_ok("spawn", PMIx_Spawn(jinfo, 2, &app, 1, app_ns));
    if (!check_that(wait_for(&ready), "READY_FOR_DEBUG")) return tu_summary("proc_table");

    PMIX_QUERY_CONSTRUCT(&q);
    PMIX_ARGV_APPEND(rc, q.keys, PMIX_QUERY_PROC_TABLE);
    PMIX_INFO_CREATE(q.qualifiers, 1);
    q.nqual = 1;
    PMIX_INFO_LOAD(&q.qualifiers[0], PMIX_NSPACE, app_ns, PMIX_STRING);
    res = NULL; nres = 0;
    rc = PMIx_Query_info(&q, 1, &res, &nres);
    if (check(rc == PMIX_SUCCESS && nres == 1 && PMIX_CHECK_KEY(&res[0], PMIX_QUERY_PROC_TABLE)
               && res[0].value.type == PMIX_DATA_ARRAY && res[0].value.data.darray != NULL
               && res[0].value.data.darray->type == PMIX_PROC_INFO,
               "query", "%s (%zu answers)", PMIx_Error_string(rc), nres)) {
        pmix_proc_info_t *pi = (pmix_proc_info_t *) res[0].value.data.darray->array;
        size_t n = res[0].value.data.darray->size;
        char host[256] = "";
        gethostname(host, sizeof host);
        printf("entries %zu\n", n);
        for (i = 0; i < n; i++) {
            printf("rank %u nspace-ok %d host-ok %d exe %s pid-ok %d\n", pi[i].proc.rank,
                   strcmp(pi[i].proc.nspace, app_ns) == 0, pi[i].hostname && strcmp(pi[i].hostname, host) == 0,
                   pi[i].executable_name ? pi[i].executable_name : "(null)", pid_right(pi[i].pid, want));
        }
        check_eq("entries", (long long) n, nranks);
    }
    fflush(stdout);

    PMIX_LOAD_PROCID(&job, app_ns, PMIX_RANK_WILDCARD);
    {
        pmix_data_array_t da = { PMIX_PROC, 1, &job };
        PMIX_INFO_LOAD(&rel, PMIX_EVENT_CUSTOM_RANGE, &da, PMIX_DATA_ARRAY);
    }
    PMIx_Notify_event(PMIX_DEBUGGER_RELEASE, &me, PMIX_RANGE_CUSTOM, &rel, 1, NULL, NULL);
    check_that(wait_for(&ended), "job-end event");
    PMIx_tool_finalize();
    return tu_summary("proc_table");
}
