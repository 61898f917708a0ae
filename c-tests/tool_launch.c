/*
 * tool_launch: a tool that launches a job through a persistent launcher
 * (the node's system server: pmixrun --persistent) and debugs it from its
 * start (issue 21).
 *
 *   tool_launch <nranks> <program> [args...]
 *
 *   1. PMIx_tool_init with PMIX_CONNECT_TO_SYSTEM; PMIX_QUERY_SPAWN_SUPPORT
 *      and PMIX_QUERY_DEBUG_SUPPORT must name PMIX_FWD_STDOUT and
 *      PMIX_DEBUG_STOP_IN_INIT.
 *   2. Handlers for PMIX_READY_FOR_DEBUG (a rank waits in init) and
 *      PMIX_ERR_JOB_TERMINATED (the job ended: its exit code).
 *   3. PMIx_Spawn of <nranks> ranks with PMIX_FWD_STDOUT, PMIX_FWD_STDERR
 *      and PMIX_DEBUG_STOP_IN_INIT: their output comes to this tool's own
 *      stdout and stderr (the library writes it).
 *   4. Every rank must report it waits in init, while none has written.
 *      Then PMIX_DEBUGGER_RELEASE to the job (custom range: its namespace).
 *   5. The job-end event must come, with the job's exit code.
 * With TOOL_LAUNCH_RELEASE_TWICE set, the release is sent twice. With
 * TOOL_LAUNCH_DAEMON=<program>, the tool does not release the ranks itself:
 * it spawns that program as debugger daemons (PMIX_DEBUGGER_DAEMONS,
 * PMIX_DEBUG_TARGET = the job, PMIX_DEBUG_DAEMONS_PER_PROC = 1: one per
 * rank), which release them (c-tests/debug_daemon.c); if the daemons' job
 * ends while the job is still held, the tool says so and exits 3.
 * With TOOL_LAUNCH_ON_EXEC set, the ranks stop on exec instead
 * (PMIX_DEBUG_STOP_ON_EXEC, which the debug support query must name; exit
 * 77 if it does not): one PMIX_READY_FOR_DEBUG names them all (breakpoint
 * "exec"), and each rank's process (its PMIX_PROC_PID) must be stopped
 * (state T in /proc) and already be <program> (/proc/<pid>/exe); the tool
 * then attaches to each as a debugger would (PTRACE_ATTACH) and detaches
 * leaving it stopped, before the release continues them.
 * With TOOL_LAUNCH_LEAVE set, the tool leaves (exit 4) right after the
 * spawn, before any rank could be released.
 * With TOOL_LAUNCH_HOLD=<file>, the release waits until that file exists:
 * the tool's own (it says "tool_launch: holding" and waits before sending
 * it), or with TOOL_LAUNCH_DAEMON the daemons' (the file is their
 * argument), so a chaos round (systests/tests/chaos.rs) can strike the
 * tool or a daemon while the job is held.
 * Its own lines go to stderr ("tool_launch: ...", failed checks as
 * testutil.h prints them), so its stdout holds the job's. Exit 0 when all
 * of it held; a step that does not complete within 30 s fails.
 */
#define _GNU_SOURCE
#include <pmix_tool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#define TESTUTIL_CHECKS_ONLY /* a tool: its own `me` */
#include "testutil.h"

static volatile int ready, ended = -1, daemons_ended = -1;
static unsigned long long ready_mask;
static char ended_ns[PMIX_MAX_NSLEN + 1], app_ns[PMIX_MAX_NSLEN + 1];
static int on_exec;

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                     size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    size_t i;
    (void) id; (void) source; (void) results; (void) nresults;
    if (status == PMIX_READY_FOR_DEBUG && on_exec) {
        /* stopped on exec: the launcher names the held ranks at once */
        int exec_bp = 0, n = 0;
        for (i = 0; i < ninfo; i++) {
            if (PMIX_CHECK_KEY(&info[i], PMIX_BREAKPOINT) && info[i].value.type == PMIX_STRING)
                exec_bp = strcmp(info[i].value.data.string, "exec") == 0;
            if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROCS) && info[i].value.type == PMIX_DATA_ARRAY)
                n = (int) info[i].value.data.darray->size;
        }
        if (exec_bp) ready = n;
        else fprintf(stderr, "tool_launch: READY_FOR_DEBUG without the exec breakpoint\n");
    } else if (status == PMIX_READY_FOR_DEBUG) {
        /* (each rank once: the source names it) */
        if (source != NULL && source->rank < 64 && !(__sync_fetch_and_or(&ready_mask, 1ULL << source->rank) & (1ULL << source->rank)))
            __sync_fetch_and_add(&ready, 1);
        else
            fprintf(stderr, "tool_launch: READY_FOR_DEBUG again from rank %u\n", source ? source->rank : 0xffffffffu);
    } else if (status == PMIX_ERR_JOB_TERMINATED) {
        int code = -1;
        char which[PMIX_MAX_NSLEN + 1] = "";
        for (i = 0; i < ninfo; i++) {
            if (PMIX_CHECK_KEY(&info[i], PMIX_EXIT_CODE)) code = info[i].value.data.integer;
            if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC))
                snprintf(which, sizeof which, "%s", info[i].value.data.proc->nspace);
        }
        /* (the job's end, or the daemons') */
        if (strcmp(which, app_ns) == 0) {
            snprintf(ended_ns, sizeof ended_ns, "%s", which);
            ended = code;
        } else {
            daemons_ended = code;
        }
    }
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static int wait_for(volatile int *v, int want, int cmp_ge)
{
    int i;
    for (i = 0; i < 300; i++) {
        if (cmp_ge ? *v >= want : *v != want) return 1;
        usleep(100 * 1000);
    }
    return 0;
}

/* Each rank's process is stopped (state T) and runs <program> already. */
static int check_stopped_on_exec(const char *ns, int nranks, const char *program)
{
    char want[4096], path[64], exe[4096], stat[512];
    int r, ok = 1, attached = 0;
    if (!realpath(program, want)) { fail("realpath", "%s", program); return 0; }
    for (r = 0; r < nranks; r++) {
        pmix_proc_t p;
        pmix_value_t *v = NULL;
        pid_t pid;
        FILE *f;
        ssize_t n;
        char *state;
        PMIX_LOAD_PROCID(&p, ns, r);
        if (PMIx_Get(&p, PMIX_PROC_PID, NULL, 0, &v) != PMIX_SUCCESS || v == NULL) {
            fail("PMIX_PROC_PID", "none for rank %d", r);
            return 0;
        }
        pid = v->data.pid;
        PMIX_VALUE_RELEASE(v);
        snprintf(path, sizeof path, "/proc/%d/exe", (int) pid);
        n = readlink(path, exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = 0;
        snprintf(path, sizeof path, "/proc/%d/stat", (int) pid);
        stat[0] = 0;
        if ((f = fopen(path, "r")) != NULL) { if (!fgets(stat, sizeof stat, f)) stat[0] = 0; fclose(f); }
        state = strrchr(stat, ')');
        if (state == NULL || state[1] != ' ' || state[2] != 'T' || strcmp(exe, want) != 0) {
            fail("stopped on exec", "rank %d (pid %d): state '%c', exe %s", r, (int) pid, state ? state[2] : '?', exe);
            ok = 0;
            continue;
        }
        /* A debugger can attach (nobody else traces it), and leave it stopped.
         * (Yama's ptrace_scope may refuse a non-root attach: said, not failed.) */
        if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) != 0) {
            if (errno == EPERM) { fprintf(stderr, "tool_launch: attach to rank %d refused here (EPERM)\n", r); continue; }
            fail("attach", "rank %d: %s", r, strerror(errno));
            ok = 0;
            continue;
        }
        {
            int st = 0;
            if (!check(waitpid(pid, &st, __WALL) == pid && WIFSTOPPED(st), "stopped under the debugger", "rank %d", r))
                ok = 0;
            ptrace(PTRACE_DETACH, pid, NULL, (void *) (long) SIGSTOP);
            attached++;
        }
    }
    if (ok) fprintf(stderr, "tool_launch: attached to %d stopped ranks and left them stopped\n", attached);
    return ok;
}

int main(int argc, char **argv)
{
    pmix_proc_t me, job;
    pmix_info_t info, *res = NULL, jinfo[3], rel;
    pmix_query_t q[2];
    pmix_app_t app;
    pmix_status_t rc, codes[2] = { PMIX_READY_FOR_DEBUG, PMIX_ERR_JOB_TERMINATED };
    size_t nres = 0, i;
    char ns[PMIX_MAX_NSLEN + 1];
    bool yes = true;
    int nranks;

    if (argc < 3) { fprintf(stderr, "usage: tool_launch <nranks> <program> [args...]\n"); return 2; }
    tu_out = stderr;
    tu_set_prefix("tool_launch: ");
    nranks = atoi(argv[1]);
    on_exec = getenv("TOOL_LAUNCH_ON_EXEC") != NULL;
    PMIX_INFO_LOAD(&info, PMIX_CONNECT_TO_SYSTEM, &yes, PMIX_BOOL);
    if ((rc = PMIx_tool_init(&me, &info, 1)) != PMIX_SUCCESS) {
        fprintf(stderr, "tool_launch: tool_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    PMIX_QUERY_CONSTRUCT(&q[0]);
    PMIX_QUERY_CONSTRUCT(&q[1]);
    PMIX_ARGV_APPEND(rc, q[0].keys, PMIX_QUERY_SPAWN_SUPPORT);
    PMIX_ARGV_APPEND(rc, q[1].keys, PMIX_QUERY_DEBUG_SUPPORT);
    rc = PMIx_Query_info(q, 2, &res, &nres);
    {
        int fwd = 0, stop = 0;
        for (i = 0; i < nres; i++) {
            if (res[i].value.type != PMIX_STRING) continue;
            fprintf(stderr, "tool_launch: %s = %s\n", res[i].key, res[i].value.data.string);
            if (PMIX_CHECK_KEY(&res[i], PMIX_QUERY_SPAWN_SUPPORT) && strstr(res[i].value.data.string, PMIX_FWD_STDOUT)) fwd = 1;
            if (PMIX_CHECK_KEY(&res[i], PMIX_QUERY_DEBUG_SUPPORT) && strstr(res[i].value.data.string, on_exec ? PMIX_DEBUG_STOP_ON_EXEC : PMIX_DEBUG_STOP_IN_INIT)) stop = 1;
        }
        if (on_exec && rc == PMIX_SUCCESS && !stop) {
            fprintf(stderr, "tool_launch: the launcher cannot stop on exec here\n");
            return 77;
        }
        if (!check(rc == PMIX_SUCCESS && fwd && stop, "support query", "%s (fwd %d, stop %d)", PMIx_Error_string(rc), fwd, stop))
            return tu_summary("tool_launch");
    }
    rc = PMIx_Register_event_handler(codes, 2, NULL, 0, on_event, NULL, NULL);
    if (rc < 0) die_status("register", rc);

    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(argv[2]);
    for (i = 2; i < (size_t) argc; i++) PMIX_ARGV_APPEND(rc, app.argv, argv[i]);
    app.maxprocs = nranks;
    PMIX_INFO_LOAD(&jinfo[0], PMIX_FWD_STDOUT, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&jinfo[1], PMIX_FWD_STDERR, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&jinfo[2], on_exec ? PMIX_DEBUG_STOP_ON_EXEC : PMIX_DEBUG_STOP_IN_INIT, &yes, PMIX_BOOL);
    rc = PMIx_Spawn(jinfo, 3, &app, 1, ns);
    require_ok("spawn", rc);
    snprintf(app_ns, sizeof app_ns, "%s", ns);
    fprintf(stderr, "tool_launch: spawned %s\n", ns);
    if (getenv("TOOL_LAUNCH_LEAVE")) {
        /* a debugger that goes at once, its ranks held: the launcher's to end */
        PMIx_tool_finalize();
        return 4;
    }

    if (!check(wait_for(&ready, nranks, 1), "waiting in init", "only %d of %d ranks", ready, nranks))
        return tu_summary("tool_launch");
    fflush(stdout);
    if (on_exec && !check_stopped_on_exec(ns, nranks, argv[2])) return tu_summary("tool_launch");
    fprintf(stderr, "tool_launch: %d ranks stopped %s\n", ready, on_exec ? "on exec" : "in init");
    if (getenv("TOOL_LAUNCH_HOLD") && !getenv("TOOL_LAUNCH_DAEMON")) {
        fprintf(stderr, "tool_launch: holding\n");
        while (access(getenv("TOOL_LAUNCH_HOLD"), F_OK) != 0) usleep(2000);
    }
    /* (the driver checks nothing reached stdout before this line) */
    printf("--- released ---\n");
    fflush(stdout);
    PMIX_LOAD_PROCID(&job, ns, PMIX_RANK_WILDCARD);
    {
        pmix_data_array_t da = { PMIX_PROC, 1, &job };
        PMIX_INFO_LOAD(&rel, PMIX_EVENT_CUSTOM_RANGE, &da, PMIX_DATA_ARRAY);
    }
    if (getenv("TOOL_LAUNCH_DAEMON")) {
        pmix_app_t d;
        pmix_info_t dinfo[3];
        char dns[PMIX_MAX_NSLEN + 1];
        uint16_t one = 1;
        PMIX_APP_CONSTRUCT(&d);
        d.cmd = strdup(getenv("TOOL_LAUNCH_DAEMON"));
        PMIX_ARGV_APPEND(rc, d.argv, d.cmd);
        if (getenv("TOOL_LAUNCH_HOLD")) PMIX_ARGV_APPEND(rc, d.argv, getenv("TOOL_LAUNCH_HOLD"));
        PMIX_INFO_LOAD(&dinfo[0], PMIX_DEBUGGER_DAEMONS, &yes, PMIX_BOOL);
        PMIX_INFO_LOAD(&dinfo[1], PMIX_DEBUG_TARGET, &job, PMIX_PROC);
        PMIX_INFO_LOAD(&dinfo[2], PMIX_DEBUG_DAEMONS_PER_PROC, &one, PMIX_UINT16);
        rc = PMIx_Spawn(dinfo, 3, &d, 1, dns);
        require_ok("daemons", rc);
        fprintf(stderr, "tool_launch: daemons %s\n", dns);
    }
    /* TOOL_LAUNCH_RELEASE_TWICE: a second release must change nothing */
    for (i = 0; i < (getenv("TOOL_LAUNCH_DAEMON") ? 0u : getenv("TOOL_LAUNCH_RELEASE_TWICE") ? 2u : 1u); i++) {
        rc = PMIx_Notify_event(PMIX_DEBUGGER_RELEASE, &me, PMIX_RANGE_CUSTOM, &rel, 1, NULL, NULL);
        if (!check_status2("release", rc, PMIX_SUCCESS, PMIX_OPERATION_SUCCEEDED)) return tu_summary("tool_launch");
    }
    if (getenv("TOOL_LAUNCH_DAEMON")) {
        /* daemons that end without releasing the job: the tool gives up
         * (exit 3) and leaves the job to the launcher */
        int i2;
        for (i2 = 0; i2 < 300 && ended == -1 && daemons_ended == -1; i2++) usleep(100 * 1000);
        if (ended == -1 && daemons_ended != -1) {
            usleep(500 * 1000);
            if (ended == -1) {
                fprintf(stderr, "tool_launch: the daemons ended (exit code %d) without releasing the job\n", daemons_ended);
                PMIx_tool_finalize();
                return 3;
            }
        }
    }
    if (!check_that(wait_for(&ended, -1, 0), "job-end event")) return tu_summary("tool_launch");
    fprintf(stderr, "tool_launch: job %s ended, exit code %d\n", ended_ns, ended);
    PMIx_tool_finalize();
    check_streq("ended job", ended_ns, ns);
    return tu_summary("tool_launch");
}
