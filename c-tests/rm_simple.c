/*
 * rm_simple: a minimal single-node resource manager built on the PMIx
 * server API only (pmix_server.h, plus pmix.h for the string helpers).
 *
 *   rm_simple [-n N] [-t timeout_s] [-v] [-m direct|imm|defer|twice] [-s] [-p] [-E] [-T] [-P] [--] prog [args...]
 *
 * It starts one PMIx server, prepares one namespace "rm.<pid>" of N
 * processes on this host as a real RM does (PMIx_server_setup_application,
 * whose returned infos join the job info; then PMIx_server_register_nspace
 * and register_client; then PMIx_server_setup_local_support), forks/execs N
 * copies of prog (each in its own process group, environment from
 * PMIx_server_setup_fork) and waits for them.
 *
 *   -n N       number of ranks (default 1)
 *   -t secs    job time limit (default 60); on expiry everything is killed
 *              with SIGKILL and rm_simple exits 124
 *   -v         progress lines and a trace of every upcall on stderr
 *   -m mode    how upcalls answer:
 *                direct  call cbfunc inside the upcall, return PMIX_SUCCESS
 *                        (default)
 *                imm     return PMIX_OPERATION_SUCCEEDED (or the error
 *                        status) where the Standard allows, cbfunc otherwise
 *                defer   return PMIX_SUCCESS and call cbfunc later from the
 *                        main thread, as a host with its own event loop does
 *                twice   a faulty host: as direct, but op, info and modex
 *                        callbacks are called twice (the library must ignore
 *                        the duplicate)
 *   -s         call register_nspace / register_client / deregister_* with a
 *              NULL cbfunc (blocking form) instead of waiting for a callback
 *   -X file    put the text of file (an hwloc XML topology) in the job data
 *              as PMIX_HWLOC_XML_V2: PMIx_Load_topology in the clients must
 *              return that topology
 *   -u user    run the clients as this user (the host must be root): they
 *              are registered with its uid/gid and the fork child drops to
 *              it (setgroups, setgid, setuid) before exec
 *   -p         phantom rank: the job gets one more rank (rank N) placed on a
 *              second node "phantom" that is never started, so collective
 *              operations are not purely local and the library has to use
 *              the fence_nb and direct_modex upcalls (job-level values then
 *              say N+1 procs, so client_basic's checks do not apply)
 *   -E         add test environment directives and a custom key to the job
 *              info (checked by client_env):
 *                PMIX_SET_ENVAR     RPMIX_T_SET=hello       (pmix_envar_t)
 *                PMIX_UNSET_ENVAR   "RPMIX_T_UNSET"
 *                PMIX_PREPEND_ENVAR RPMIX_T_LIST=front, ':' (pmix_envar_t)
 *                PMIX_APPEND_ENVAR  RPMIX_T_LIST=back, ':'  (pmix_envar_t)
 *                PMIX_SET_ENVAR     "RPMIX_T_STR=via-string" (string form)
 *                "rpmix.t.custom" = "custom-value"          (plain job key)
 *              rpmix applies the directives in setup_fork; OpenPMIx accepts
 *              them and leaves them to the host (rm_simple does not apply
 *              them itself).
 *
 *   -P         process sets defined and deleted by the host (the ranks run
 *              c-tests/client_psets.c with "host"): once every rank has
 *              published "psets.ready.<rank>" (its handler for
 *              PMIX_PROCESS_SET_DEFINE / _DELETE registered), the main
 *              thread calls PMIx_server_define_process_set("dyn", ranks 0
 *              and N-1); once every rank has published
 *              "psets.listed.<rank>", PMIx_server_delete_process_set("dyn"),
 *              then of "nosuch", a set never defined. Each call's status
 *              is a line "rm_simple: define_process_set dyn: <status>
 *              (<number>)" (and delete_process_set) on stderr.
 *
 * Credentials (always): get_credential hands a rank the bytes
 * "rm-cred:<nspace>:<rank>" with PMIX_CRED_TYPE "rm-simple";
 * validate_credential accepts exactly the bytes it would hand the
 * requester, with PMIX_CRED_TYPE back, and answers PMIX_ERR_INVALID_CRED
 * to anything else. A toy scheme: it shows the requests and answers reach
 * both ends intact (c-tests/client_cred.c), not a security mechanism.
 *   -T         accept tools (pmixctl, OpenPMIx's pps/pquery) and forward the
 *              ranks' output to them:
 *                - PMIx_server_init gets PMIX_SERVER_TOOL_SUPPORT (OpenPMIx
 *                  then writes its rendezvous files pmix.<host>.tool.<pid>
 *                  and .<server nspace> in its tmpdir, where a tool's --pid
 *                  finds them) and PMIX_IOF_LOCAL_OUTPUT=false (rm_simple
 *                  echoes the output itself, whatever the library);
 *                - tool_connected: a tool that chose its name keeps it, one
 *                  that asks is named "rm-tool.<pid>.<n>", rank 0; a tool of
 *                  another user (not root) is refused;
 *                - query: PMIX_QUERY_NAMESPACES ("pmix.qry.ns") is answered
 *                  with the job's namespace, any other key is not found
 *                  (PMIX_QUERY_PARTIAL_SUCCESS when some keys were);
 *                - the ranks' stdout and stderr are pipes a reader thread
 *                  drains: each chunk is echoed on rm_simple's own stdout /
 *                  stderr (so the terminal shows what it showed without -T)
 *                  and handed to PMIx_server_IOF_deliver on the matching
 *                  channel; at a rank's EOF an empty chunk carrying
 *                  PMIX_IOF_COMPLETE=true ends that stream for the tools.
 *                  The job ends once every rank exited and every pipe
 *                  closed (at most 5 s after the last exit);
 *                - iof_pull returns PMIX_OPERATION_SUCCEEDED (the library
 *                  keeps the pulls and the cache of output not pulled yet);
 *                - a rank's end is told to the library as a host tells
 *                  it: PMIx_Notify_event(PMIX_EVENT_PROC_TERMINATED) from
 *                  the rank, with PMIX_EXIT_CODE (its exit status, or
 *                  128+signal), range PMIX_RANGE_LOCAL.
 *              tool_connected and query answer inline, or from the main
 *              thread under -m defer; each answers once, also under -m
 *              twice.
 *
 * Job control (PMIx_Job_control from the ranks or tools): pause, resume,
 * kill, terminate and any signal reach the targets' process groups.
 *
 * Exit status: the abort status if a client called PMIx_Abort; otherwise
 * the first non-zero child exit code (128+signal for a signalled child);
 * 124 on timeout; 0 when every child exited 0. stdout belongs to the
 * children: rm_simple writes only to stderr (under -T its stdout carries
 * the children's, echoed).
 *
 * Threading: upcalls run on the PMIx library's thread. All shared state is
 * protected by one mutex; upcalls never call a blocking PMIx server API.
 * Parked lookups (PMIX_WAIT) are always answered from the main thread.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#define TESTUTIL_CHECKS_ONLY /* the host: die() only */
#include "testutil.h"

extern char **environ;

enum mode { MODE_DIRECT, MODE_IMM, MODE_DEFER, MODE_TWICE };

static int verbose;
static enum mode mode = MODE_DIRECT;
static bool sync_reg;
static bool phantom;
/* -X: a file whose text (a topology as hwloc XML) goes into the job data as
 * PMIX_HWLOC_XML_V2: the clients' topology */
static const char *topo_xml_file;
/* -u: the clients' user (the host runs as root), else the host's own */
static uid_t client_uid;
static gid_t client_gid;
static bool other_user;
static bool env_directives; /* -E */
static bool tool_support;   /* -T */
static bool pset_ctl;       /* -P */
static int pset_stage;      /* -P: 0 waiting for the ranks, 1 "dyn" defined, 2 deleted */
static char job_nspace[PMIX_MAX_NSLEN + 1];

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake; /* main loop wake-up (CLOCK_MONOTONIC) */

/* ---- children ---- */
static int nprocs = 1;
static pid_t *child_pid;  /* 0 once reaped */
static int nalive;
static bool aborted;
static int abort_status;
static int first_failure; /* first non-zero exit code seen */
static volatile sig_atomic_t got_signal;

/* ---- upcall statistics (under lock) ---- */
static int n_connected, n_finalized, n_fence, n_dmodex, n_publish, n_lookup, n_unpublish;

static void logv(const char *fmt, ...)
{
    va_list ap;
    char buf[2048];
    if (!verbose) return;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    fprintf(stderr, "rm_simple: %s\n", buf);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (p == NULL) die("out of memory");
    return p;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = xcalloc(n, 1);
    memcpy(p, s, n);
    return p;
}

/* ------------------------------------------------------------------ */
/* formatting helpers for the -v trace                                 */

static void fmt_proc(char *out, size_t len, const pmix_proc_t *p)
{
    if (p == NULL) { snprintf(out, len, "(null)"); return; }
    if (p->rank == PMIX_RANK_WILDCARD) snprintf(out, len, "%.200s:*", p->nspace);
    else snprintf(out, len, "%.200s:%u", p->nspace, (unsigned)p->rank);
}

static void fmt_value(char *out, size_t len, const pmix_value_t *v)
{
    switch (v->type) {
    case PMIX_BOOL: snprintf(out, len, "%s", v->data.flag ? "true" : "false"); break;
    case PMIX_INT: snprintf(out, len, "%d", v->data.integer); break;
    case PMIX_INT32: snprintf(out, len, "%d(i32)", (int)v->data.int32); break;
    case PMIX_UINT32: snprintf(out, len, "%u(u32)", (unsigned)v->data.uint32); break;
    case PMIX_UINT16: snprintf(out, len, "%u(u16)", (unsigned)v->data.uint16); break;
    case PMIX_UINT64: snprintf(out, len, "%llu(u64)", (unsigned long long)v->data.uint64); break;
    case PMIX_SIZE: snprintf(out, len, "%lu(size)", (unsigned long)v->data.size); break;
    case PMIX_PROC_RANK: snprintf(out, len, "%u(rank)", (unsigned)v->data.rank); break;
    case PMIX_DATA_RANGE: snprintf(out, len, "%s", PMIx_Data_range_string(v->data.range)); break;
    case PMIX_PERSIST: snprintf(out, len, "%s", PMIx_Persistence_string(v->data.persist)); break;
    case PMIX_STATUS: snprintf(out, len, "%s", PMIx_Error_string(v->data.status)); break;
    case PMIX_STRING: snprintf(out, len, "\"%s\"", v->data.string ? v->data.string : "(null)"); break;
    case PMIX_PROC:
        if (len > 5) {
            memcpy(out, "proc ", 5);
            fmt_proc(out + 5, len - 5, v->data.proc);
        }
        break;
    case PMIX_ENVAR:
        snprintf(out, len, "envar %s=%s sep '%c'",
                 v->data.envar.envar ? v->data.envar.envar : "(null)",
                 v->data.envar.value ? v->data.envar.value : "(null)",
                 v->data.envar.separator ? v->data.envar.separator : ' ');
        break;
    case PMIX_BYTE_OBJECT: snprintf(out, len, "bytes[%lu]", (unsigned long)v->data.bo.size); break;
    case PMIX_DATA_ARRAY:
        snprintf(out, len, "array[%lu of %s]",
                 v->data.darray ? (unsigned long)v->data.darray->size : 0UL,
                 v->data.darray ? PMIx_Data_type_string(v->data.darray->type) : "?");
        break;
    default: snprintf(out, len, "<%s>", PMIx_Data_type_string(v->type)); break;
    }
}

static void fmt_info(char *out, size_t len, const pmix_info_t info[], size_t ninfo)
{
    size_t i, used = 0;
    out[0] = '\0';
    for (i = 0; i < ninfo && used + 1 < len; i++) {
        char val[256];
        int w;
        fmt_value(val, sizeof(val), &info[i].value);
        w = snprintf(out + used, len - used, "%s%s=%s", i ? " " : "", info[i].key, val);
        if (w < 0) break;
        used += (size_t)w;
    }
    if (used >= len) used = len - 1;
    out[used] = '\0';
}

/* ------------------------------------------------------------------ */
/* deferred work: callbacks run from the main thread                   */

typedef struct job {
    struct job *next;
    void (*run)(struct job *);
    pmix_status_t status;
    pmix_op_cbfunc_t opcb;
    pmix_modex_cbfunc_t mdxcb;
    pmix_lookup_cbfunc_t lkcb;
    pmix_info_cbfunc_t infocb;
    void *cbdata;
    char *data;
    size_t ndata;
    pmix_pdata_t *pdata;
    size_t npdata;
    pmix_tool_connection_cbfunc_t tlcb; /* -T: a tool's name */
    pmix_proc_t proc;
    void *results;                      /* -T: a query's answer (query_res_t) */
} job_t;

static job_t *queue_head, *queue_tail;

static void enqueue_locked(job_t *j)
{
    j->next = NULL;
    if (queue_tail) queue_tail->next = j; else queue_head = j;
    queue_tail = j;
    pthread_cond_signal(&wake);
}

static void enqueue(job_t *j)
{
    pthread_mutex_lock(&lock);
    enqueue_locked(j);
    pthread_mutex_unlock(&lock);
}

/* A deferred callback: the caller fills in the callback pointer. */
static job_t *new_job(void (*run)(job_t *), pmix_status_t st, void *cbdata)
{
    job_t *j = xcalloc(1, sizeof(*j));
    j->run = run;
    j->status = st;
    j->cbdata = cbdata;
    return j;
}

static void run_op(job_t *j) { j->opcb(j->status, j->cbdata); }

static void run_info(job_t *j) { j->infocb(j->status, NULL, 0, j->cbdata, NULL, NULL); }
static void release_bytes(void *cbdata) { free(cbdata); }

static void run_modex(job_t *j)
{
    /* ownership of j->data passes to the library until it calls release */
    j->mdxcb(j->status, j->data, j->ndata, j->cbdata,
             j->data ? release_bytes : NULL, j->data);
    j->data = NULL;
}

static void run_lookup(job_t *j)
{
    j->lkcb(j->status, j->pdata, j->npdata, j->cbdata);
    if (j->pdata) PMIX_PDATA_FREE(j->pdata, j->npdata);
}

static void drain_queue(void)
{
    job_t *j;
    pthread_mutex_lock(&lock);
    j = queue_head;
    queue_head = queue_tail = NULL;
    pthread_mutex_unlock(&lock);
    while (j) {
        job_t *next = j->next;
        j->run(j);
        free(j->data);
        free(j);
        j = next;
    }
}

/* Answer an op-style upcall according to the mode. imm_ok: the Standard
 * lets this upcall return PMIX_OPERATION_SUCCEEDED / an error directly. */
static pmix_status_t answer_op(pmix_status_t st, pmix_op_cbfunc_t cbfunc, void *cbdata, bool imm_ok)
{
    job_t *j;
    if (cbfunc == NULL) return st == PMIX_SUCCESS ? PMIX_OPERATION_SUCCEEDED : st;
    if (mode == MODE_IMM && imm_ok) return st == PMIX_SUCCESS ? PMIX_OPERATION_SUCCEEDED : st;
    if (mode == MODE_DEFER) {
        j = new_job(run_op, st, cbdata);
        j->opcb = cbfunc;
        enqueue(j);
        return PMIX_SUCCESS;
    }
    cbfunc(st, cbdata);
    if (mode == MODE_TWICE) cbfunc(st, cbdata);
    return PMIX_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* upcalls: connection, abort                                          */

static pmix_status_t up_client_connected(const pmix_proc_t *proc, void *server_object,
                                         pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    char p[PMIX_MAX_NSLEN + 16];
    (void)server_object;
    fmt_proc(p, sizeof(p), proc);
    pthread_mutex_lock(&lock);
    n_connected++;
    pthread_mutex_unlock(&lock);
    logv("upcall client_connected %s", p);
    return answer_op(PMIX_SUCCESS, cbfunc, cbdata, true);
}

static pmix_status_t up_client_finalized(const pmix_proc_t *proc, void *server_object,
                                         pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    char p[PMIX_MAX_NSLEN + 16];
    (void)server_object;
    fmt_proc(p, sizeof(p), proc);
    pthread_mutex_lock(&lock);
    n_finalized++;
    pthread_mutex_unlock(&lock);
    logv("upcall client_finalized %s", p);
    return answer_op(PMIX_SUCCESS, cbfunc, cbdata, true);
}

/* kill every live child's process group; caller holds the lock */
static void kill_all_locked(void)
{
    int i;
    for (i = 0; i < nprocs; i++)
        if (child_pid[i] > 0) kill(-child_pid[i], SIGKILL);
}

static pmix_status_t up_abort(const pmix_proc_t *proc, void *server_object,
                              int status, const char msg[],
                              pmix_proc_t procs[], size_t nprocs_in,
                              pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    char p[PMIX_MAX_NSLEN + 16];
    (void)server_object;
    (void)procs;
    fmt_proc(p, sizeof(p), proc);
    logv("upcall abort from %s status=%d msg=\"%s\" nprocs=%lu", p, status,
         msg ? msg : "(null)", (unsigned long)nprocs_in);
    pthread_mutex_lock(&lock);
    if (!aborted) {
        aborted = true;
        abort_status = status;
    }
    /* single job on this host: any abort terminates all of it */
    kill_all_locked();
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
    return answer_op(PMIX_SUCCESS, cbfunc, cbdata, true);
}

/* ------------------------------------------------------------------ */
/* upcall: job control                                                 */

/* Answer an info-style upcall (no result infos) according to the mode. */
static pmix_status_t answer_info(pmix_status_t st, pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    job_t *j;
    if (cbfunc == NULL || mode == MODE_IMM) return st == PMIX_SUCCESS ? PMIX_OPERATION_SUCCEEDED : st;
    if (mode == MODE_DEFER) {
        j = new_job(run_info, st, cbdata);
        j->infocb = cbfunc;
        enqueue(j);
        return PMIX_SUCCESS;
    }
    cbfunc(st, NULL, 0, cbdata, NULL, NULL);
    if (mode == MODE_TWICE) cbfunc(st, NULL, 0, cbdata, NULL, NULL);
    return PMIX_SUCCESS;
}

static bool value_as_long(const pmix_value_t *v, long *out);

static bool info_true(const pmix_info_t *i)
{
    return i->value.type != PMIX_BOOL || i->value.data.flag;
}

/* PMIx_Job_control carried out on our own children: pause (SIGSTOP), resume
 * (SIGCONT), kill (SIGKILL), terminate (SIGTERM) and any signal, sent to the
 * process group of every target (none: the requester's namespace; rank
 * wildcard: all ranks). Checkpoints are the library's business: it asks us
 * for the target's registered signal as PMIX_JOB_CTRL_SIGNAL. Nothing stays
 * pending, so a cancel succeeds at once; restart and provision are refused. */
static pmix_status_t up_job_control(const pmix_proc_t *requestor, const pmix_proc_t targets[],
                                    size_t ntargets, const pmix_info_t directives[], size_t ndirs,
                                    pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    char p[PMIX_MAX_NSLEN + 16], inf[512];
    int sig = 0, i;
    size_t k, hit = 0;
    bool cancel = false;
    fmt_proc(p, sizeof(p), requestor);
    fmt_info(inf, sizeof(inf), directives, ndirs);
    logv("upcall job_control from %s ntargets=%lu [%s]", p, (unsigned long)ntargets, inf);
    for (k = 0; k < ndirs; k++) {
        const pmix_info_t *d = &directives[k];
        long v;
        if (PMIX_CHECK_KEY(d, PMIX_JOB_CTRL_PAUSE) && info_true(d)) sig = SIGSTOP;
        else if (PMIX_CHECK_KEY(d, PMIX_JOB_CTRL_RESUME) && info_true(d)) sig = SIGCONT;
        else if (PMIX_CHECK_KEY(d, PMIX_JOB_CTRL_KILL) && info_true(d)) sig = SIGKILL;
        else if (PMIX_CHECK_KEY(d, PMIX_JOB_CTRL_TERMINATE) && info_true(d)) sig = SIGTERM;
        else if (PMIX_CHECK_KEY(d, PMIX_JOB_CTRL_SIGNAL) && value_as_long(&d->value, &v) && v > 0 && v < 65) sig = (int)v;
        else if (PMIX_CHECK_KEY(d, PMIX_JOB_CTRL_CANCEL)) cancel = true;
        else if (PMIX_CHECK_KEY(d, PMIX_JOB_CTRL_RESTART) || PMIX_CHECK_KEY(d, PMIX_JOB_CTRL_PROVISION)) {
            logv("job_control: restart and provisioning are not supported");
            return PMIX_ERR_NOT_SUPPORTED;
        }
    }
    if (sig == 0) return cancel ? answer_info(PMIX_SUCCESS, cbfunc, cbdata) : PMIX_ERR_NOT_SUPPORTED;
    pthread_mutex_lock(&lock);
    for (i = 0; i < nprocs; i++) {
        bool named = ntargets == 0 && PMIX_CHECK_NSPACE(requestor->nspace, job_nspace);
        for (k = 0; k < ntargets && !named; k++)
            named = PMIX_CHECK_NSPACE(targets[k].nspace, job_nspace) &&
                    (targets[k].rank == PMIX_RANK_WILDCARD || targets[k].rank == (pmix_rank_t)i);
        if (named && child_pid[i] > 0 && kill(-child_pid[i], sig) == 0) hit++;
    }
    pthread_mutex_unlock(&lock);
    logv("job_control: signal %d to %lu ranks", sig, (unsigned long)hit);
    return hit ? answer_info(PMIX_SUCCESS, cbfunc, cbdata) : PMIX_ERR_NOT_FOUND;
}

/* ------------------------------------------------------------------ */
/* tools (-T): connections, queries, IO forwarding                     */

static int n_tools, n_query, n_iof_pull; /* under lock */

static void run_tool(job_t *j) { j->tlcb(j->status, &j->proc, j->cbdata); }

/* A connecting tool's name: the one it chose (OpenPMIx passes it as
 * PMIX_NSPACE/PMIX_RANK, rpmix as PMIX_TOOL_NSPACE/PMIX_TOOL_RANK), else
 * "rm-tool.<pid>.<n>", rank 0. The callback may come inline: both libraries
 * thread-shift it. */
static void up_tool_connected(pmix_info_t *info, size_t ninfo,
                              pmix_tool_connection_cbfunc_t cbfunc, void *cbdata)
{
    char inf[1024], p[PMIX_MAX_NSLEN + 16];
    pmix_proc_t proc;
    pmix_status_t st = PMIX_SUCCESS;
    bool named = false;
    size_t k;
    long v;
    int n;

    memset(&proc, 0, sizeof(proc));
    for (k = 0; k < ninfo; k++) {
        const pmix_info_t *i = &info[k];
        if ((PMIX_CHECK_KEY(i, PMIX_NSPACE) || PMIX_CHECK_KEY(i, PMIX_TOOL_NSPACE)) &&
            i->value.type == PMIX_STRING && i->value.data.string != NULL && i->value.data.string[0] != '\0') {
            PMIX_LOAD_NSPACE(proc.nspace, i->value.data.string);
            named = true;
        } else if (PMIX_CHECK_KEY(i, PMIX_RANK) || PMIX_CHECK_KEY(i, PMIX_TOOL_RANK)) {
            if (i->value.type == PMIX_PROC_RANK) proc.rank = i->value.data.rank;
            else if (value_as_long(&i->value, &v)) proc.rank = (pmix_rank_t)v;
        } else if (PMIX_CHECK_KEY(i, PMIX_USERID) && value_as_long(&i->value, &v)) {
            /* only our own user's tools, or root's */
            if (v != 0 && (uid_t)v != geteuid()) st = PMIX_ERR_NO_PERMISSIONS;
        }
    }
    pthread_mutex_lock(&lock);
    n = ++n_tools;
    pthread_mutex_unlock(&lock);
    if (!named) {
        snprintf(proc.nspace, sizeof(proc.nspace), "rm-tool.%ld.%d", (long)getpid(), n);
        proc.rank = 0;
    }
    if (verbose) {
        fmt_info(inf, sizeof(inf), info, ninfo);
        fmt_proc(p, sizeof(p), &proc);
        logv("upcall tool_connected [%s]: %s %s", inf, st == PMIX_SUCCESS ? (named ? "keeps" : "named") : "refused", p);
    }
    if (mode == MODE_DEFER) {
        job_t *j = new_job(run_tool, st, cbdata);
        j->tlcb = cbfunc;
        j->proc = proc;
        enqueue(j);
        return;
    }
    cbfunc(st, &proc, cbdata);
}

/* A query's answer, kept until the library calls its release function. */
typedef struct {
    pmix_info_t *info;
    size_t ninfo;
} query_res_t;

static void release_query_res(void *cbdata)
{
    query_res_t *r = cbdata;
    if (r->info != NULL) PMIX_INFO_FREE(r->info, r->ninfo);
    free(r);
}

static void run_query(job_t *j)
{
    query_res_t *r = j->results;
    j->infocb(j->status, r->info, r->ninfo, j->cbdata, release_query_res, r);
}

/* PMIX_QUERY_NAMESPACES: the job's namespace (the only one: a list of one);
 * any other key is not found. */
static pmix_status_t up_query(pmix_proc_t *proct, pmix_query_t *queries, size_t nqueries,
                              pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    char p[PMIX_MAX_NSLEN + 16], keys[512];
    size_t q, k, nkeys = 0, found = 0, used = 0;
    query_res_t *r;
    pmix_status_t st;

    keys[0] = '\0';
    for (q = 0; q < nqueries; q++) {
        for (k = 0; queries[q].keys != NULL && queries[q].keys[k] != NULL; k++) {
            const char *key = queries[q].keys[k];
            int w = snprintf(keys + used, sizeof(keys) - used, "%s%s", nkeys ? "," : "", key);
            if (w > 0 && used + (size_t)w < sizeof(keys)) used += (size_t)w;
            nkeys++;
            if (strcmp(key, PMIX_QUERY_NAMESPACES) == 0) found++;
        }
    }
    pthread_mutex_lock(&lock);
    n_query++;
    pthread_mutex_unlock(&lock);
    st = found == 0 ? PMIX_ERR_NOT_FOUND : found < nkeys ? PMIX_QUERY_PARTIAL_SUCCESS : PMIX_SUCCESS;
    if (verbose) {
        fmt_proc(p, sizeof(p), proct);
        logv("upcall query from %s: %lu queries, keys %s: %s", p, (unsigned long)nqueries, keys,
             PMIx_Error_string(st));
    }
    if (cbfunc == NULL) return PMIX_ERR_BAD_PARAM;
    if (mode == MODE_IMM && found == 0) return st;
    r = xcalloc(1, sizeof(*r));
    if (found > 0) {
        PMIX_INFO_CREATE(r->info, found);
        if (r->info == NULL) die("out of memory");
        r->ninfo = found;
        for (k = 0; k < found; k++) PMIx_Info_load(&r->info[k], PMIX_QUERY_NAMESPACES, job_nspace, PMIX_STRING);
    }
    if (mode == MODE_DEFER) {
        job_t *j = new_job(run_query, st, cbdata);
        j->infocb = cbfunc;
        j->results = r;
        enqueue(j);
        return PMIX_SUCCESS;
    }
    cbfunc(st, r->info, r->ninfo, cbdata, release_query_res, r);
    return PMIX_SUCCESS;
}

/* The library keeps the pulls and the output nobody pulled yet: the host has
 * nothing to set up (one node, every rank's output delivered here). */
static pmix_status_t up_iof_pull(const pmix_proc_t procs[], size_t np,
                                 const pmix_info_t directives[], size_t ndirs,
                                 pmix_iof_channel_t channels, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    char p[PMIX_MAX_NSLEN + 16], inf[512];
    (void)cbfunc;
    (void)cbdata;
    pthread_mutex_lock(&lock);
    n_iof_pull++;
    pthread_mutex_unlock(&lock);
    if (verbose) {
        fmt_proc(p, sizeof(p), np ? &procs[0] : NULL);
        fmt_info(inf, sizeof(inf), directives, ndirs);
        logv("upcall iof_pull first=%s nprocs=%lu channels=%s [%s]", p, (unsigned long)np,
             PMIx_IOF_channel_string(channels), inf);
    }
    return PMIX_OPERATION_SUCCEEDED;
}

/* The ranks' output: read ends of rank i's stdout / stderr pipes (-1 once
 * closed), owned by the reader thread once it runs. */
static int *out_fd, *err_fd;
static int iof_open;      /* pipes not yet at EOF (under lock) */
static int iof_pending;   /* IOF_deliver calls whose callback has not come (under lock) */
static bool reader_stop;  /* under lock: close what is left and end */
static pthread_t reader;

/* One chunk handed to PMIx_server_IOF_deliver: alive until its callback. */
typedef struct {
    pmix_proc_t source;
    pmix_byte_object_t bo;
    pmix_info_t info[1];
    size_t ninfo;
} chunk_t;

static void chunk_free(chunk_t *c)
{
    free(c->bo.bytes);
    if (c->ninfo) PMIX_INFO_DESTRUCT(&c->info[0]);
    free(c);
}

static void chunk_delivered(pmix_status_t st, void *cbdata)
{
    if (st != PMIX_SUCCESS) logv("IOF_deliver callback: %s", PMIx_Error_string(st));
    chunk_free(cbdata);
    pthread_mutex_lock(&lock);
    iof_pending--;
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&lock);
}

/* Hand len bytes of a rank's output to the library; complete: the stream's
 * end (len 0, PMIX_IOF_COMPLETE=true). */
static void deliver(int rank, pmix_iof_channel_t channel, const char *data, size_t len, bool complete)
{
    chunk_t *c = xcalloc(1, sizeof(*c));
    bool yes = true;
    pmix_status_t rc;
    PMIX_LOAD_PROCID(&c->source, job_nspace, (pmix_rank_t)rank);
    if (len > 0) {
        c->bo.bytes = xcalloc(len, 1);
        memcpy(c->bo.bytes, data, len);
        c->bo.size = len;
    }
    if (complete) {
        PMIX_INFO_CONSTRUCT(&c->info[0]);
        PMIx_Info_load(&c->info[0], PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
        c->ninfo = 1;
    }
    pthread_mutex_lock(&lock);
    iof_pending++;
    pthread_mutex_unlock(&lock);
    rc = PMIx_server_IOF_deliver(&c->source, channel, &c->bo, c->ninfo ? c->info : NULL, c->ninfo,
                                 chunk_delivered, c);
    if (rc != PMIX_SUCCESS) {
        /* no callback will come */
        if (rc != PMIX_OPERATION_SUCCEEDED)
            fprintf(stderr, "rm_simple: PMIx_server_IOF_deliver(rank %d): %s\n", rank, PMIx_Error_string(rc));
        chunk_free(c);
        pthread_mutex_lock(&lock);
        iof_pending--;
        pthread_mutex_unlock(&lock);
    }
}

static void write_all(int fd, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return; /* our own stdout is gone: the tools still get it */
        }
        buf += w;
        n -= (size_t)w;
    }
}

/* Close a rank's pipe: the end of that stream, for the tools too. */
static void close_stream(int *slot, int rank, pmix_iof_channel_t channel)
{
    close(*slot);
    *slot = -1;
    deliver(rank, channel, NULL, 0, true);
    logv("rank %d: %s closed", rank, channel == PMIX_FWD_STDOUT_CHANNEL ? "stdout" : "stderr");
    pthread_mutex_lock(&lock);
    iof_open--;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
}

/* The reader thread: drains every rank's pipes, echoes and delivers each
 * chunk, until every pipe is at EOF (or the main thread says stop). */
static void *reader_main(void *arg)
{
    struct pollfd *pfd = xcalloc((size_t)nprocs * 2, sizeof(*pfd));
    int *slot_rank = xcalloc((size_t)nprocs * 2, sizeof(int));
    int **slot = xcalloc((size_t)nprocs * 2, sizeof(int *));
    static char buf[16384];
    (void)arg;
    for (;;) {
        int n = 0, i, r;
        bool stop;
        pthread_mutex_lock(&lock);
        stop = reader_stop;
        pthread_mutex_unlock(&lock);
        for (i = 0; i < nprocs; i++) {
            if (out_fd[i] >= 0) { pfd[n].fd = out_fd[i]; slot[n] = &out_fd[i]; slot_rank[n++] = i; }
            if (err_fd[i] >= 0) { pfd[n].fd = err_fd[i]; slot[n] = &err_fd[i]; slot_rank[n++] = i; }
        }
        if (n == 0) break;
        if (stop) {
            for (i = 0; i < n; i++)
                close_stream(slot[i], slot_rank[i], slot[i] == &out_fd[slot_rank[i]] ? PMIX_FWD_STDOUT_CHANNEL : PMIX_FWD_STDERR_CHANNEL);
            break;
        }
        for (i = 0; i < n; i++) {
            pfd[i].events = POLLIN;
            pfd[i].revents = 0;
        }
        r = poll(pfd, (nfds_t)n, 100);
        if (r <= 0) continue;
        for (i = 0; i < n; i++) {
            bool is_out = slot[i] == &out_fd[slot_rank[i]];
            pmix_iof_channel_t ch = is_out ? PMIX_FWD_STDOUT_CHANNEL : PMIX_FWD_STDERR_CHANNEL;
            ssize_t got;
            if (pfd[i].revents == 0) continue;
            got = read(pfd[i].fd, buf, sizeof(buf));
            if (got > 0) {
                write_all(is_out ? 1 : 2, buf, (size_t)got);
                deliver(slot_rank[i], ch, buf, (size_t)got, false);
            } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
                close_stream(slot[i], slot_rank[i], ch);
            }
        }
    }
    free(pfd);
    free(slot_rank);
    free(slot);
    return NULL;
}

/* pipe(2) with both ends close-on-exec (dup2 onto 1/2 clears it in the child) */
static int cloexec_pipe(int p[2])
{
    if (pipe(p) != 0) return -1;
    if (fcntl(p[0], F_SETFD, FD_CLOEXEC) != 0 || fcntl(p[1], F_SETFD, FD_CLOEXEC) != 0) return -1;
    return 0;
}

/* ------------------------------------------------------------------ */
/* upcalls: fence and direct modex                                     */

static pmix_status_t answer_modex(pmix_status_t st, const char *data, size_t ndata,
                                  pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    char *copy = NULL;
    if (ndata > 0) {
        copy = xcalloc(ndata, 1);
        memcpy(copy, data, ndata);
    }
    if (mode == MODE_DEFER) {
        job_t *j = new_job(run_modex, st, cbdata);
        j->mdxcb = cbfunc;
        j->data = copy;
        j->ndata = ndata;
        enqueue(j);
        return PMIX_SUCCESS;
    }
    if (mode == MODE_TWICE) {
        /* the duplicate gets its own copy: each call's data is released by its own release_fn */
        char *again = NULL;
        if (ndata > 0) {
            again = xcalloc(ndata, 1);
            memcpy(again, copy, ndata);
        }
        cbfunc(st, copy, ndata, cbdata, copy ? release_bytes : NULL, copy);
        cbfunc(st, again, ndata, cbdata, again ? release_bytes : NULL, again);
        return PMIX_SUCCESS;
    }
    cbfunc(st, copy, ndata, cbdata, copy ? release_bytes : NULL, copy);
    return PMIX_SUCCESS;
}

static pmix_status_t up_fence_nb(const pmix_proc_t procs[], size_t np,
                                 const pmix_info_t info[], size_t ninfo,
                                 char *data, size_t ndata,
                                 pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    char p[PMIX_MAX_NSLEN + 16], inf[1024];
    pthread_mutex_lock(&lock);
    n_fence++;
    pthread_mutex_unlock(&lock);
    if (verbose) {
        fmt_proc(p, sizeof(p), np ? &procs[0] : NULL);
        fmt_info(inf, sizeof(inf), info, ninfo);
        logv("upcall fence_nb nprocs=%lu first=%s ninfo=%lu [%s] ndata=%lu",
             (unsigned long)np, p, (unsigned long)ninfo, inf, (unsigned long)ndata);
    }
    /* one host: the data given is already everybody's contribution */
    return answer_modex(PMIX_SUCCESS, data, ndata, cbfunc, cbdata);
}

static pmix_status_t up_direct_modex(const pmix_proc_t *proc,
                                     const pmix_info_t info[], size_t ninfo,
                                     pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    char p[PMIX_MAX_NSLEN + 16], inf[1024];
    pthread_mutex_lock(&lock);
    n_dmodex++;
    pthread_mutex_unlock(&lock);
    if (verbose) {
        fmt_proc(p, sizeof(p), proc);
        fmt_info(inf, sizeof(inf), info, ninfo);
        logv("upcall direct_modex %s ninfo=%lu [%s]", p, (unsigned long)ninfo, inf);
    }
    /* nobody else holds data for this host's procs */
    if (mode == MODE_IMM) return PMIX_ERR_NOT_FOUND;
    return answer_modex(PMIX_ERR_NOT_FOUND, NULL, 0, cbfunc, cbdata);
}

/* ------------------------------------------------------------------ */
/* publish / lookup / unpublish                                        */

typedef struct entry {
    struct entry *next;
    char key[PMIX_MAX_KEYLEN + 1];
    pmix_proc_t owner;
    pmix_value_t value;
} entry_t;

typedef struct parked {
    struct parked *next;
    pmix_proc_t requester;
    char **keys;
    size_t nkeys;
    size_t want;        /* answer once this many keys are present */
    double deadline;    /* 0: none (answered at job end) */
    pmix_lookup_cbfunc_t cbfunc;
    void *cbdata;
} parked_t;

static entry_t *store;
static parked_t *parked_list;

/* "pmix*" keys are attributes (directives), not data */
static bool is_directive(const char *key) { return strncmp(key, "pmix", 4) == 0; }

static entry_t *find_entry_locked(const char *key)
{
    entry_t *e;
    for (e = store; e; e = e->next)
        if (strncmp(e->key, key, PMIX_MAX_KEYLEN) == 0) return e;
    return NULL;
}

static bool value_as_long(const pmix_value_t *v, long *out)
{
    switch (v->type) {
    case PMIX_BOOL: *out = v->data.flag ? 0 : -1; return true; /* true: wait for all */
    case PMIX_INT: *out = v->data.integer; return true;
    case PMIX_INT8: *out = v->data.int8; return true;
    case PMIX_INT16: *out = v->data.int16; return true;
    case PMIX_INT32: *out = v->data.int32; return true;
    case PMIX_INT64: *out = (long)v->data.int64; return true;
    case PMIX_UINT: *out = (long)v->data.uint; return true;
    case PMIX_UINT8: *out = v->data.uint8; return true;
    case PMIX_UINT16: *out = v->data.uint16; return true;
    case PMIX_UINT32: *out = (long)v->data.uint32; return true;
    case PMIX_UINT64: *out = (long)v->data.uint64; return true;
    case PMIX_SIZE: *out = (long)v->data.size; return true;
    case PMIX_UNDEF: *out = 0; return true; /* presence alone means "all" */
    default: return false;
    }
}

/* Count the keys present; with out != NULL also build the reply. */
static size_t collect_locked(char **keys, size_t nkeys, pmix_pdata_t **out)
{
    size_t i, n = 0;
    pmix_pdata_t *pd = NULL;
    for (i = 0; i < nkeys; i++)
        if (find_entry_locked(keys[i])) n++;
    if (out == NULL || n == 0) {
        if (out) *out = NULL;
        return n;
    }
    PMIX_PDATA_CREATE(pd, n);
    if (pd == NULL) die("out of memory");
    n = 0;
    for (i = 0; i < nkeys; i++) {
        entry_t *e = find_entry_locked(keys[i]);
        if (e == NULL) continue;
        memcpy(&pd[n].proc, &e->owner, sizeof(pmix_proc_t));
        PMIX_LOAD_KEY(pd[n].key, e->key);
        PMIx_Value_xfer(&pd[n].value, &e->value);
        n++;
    }
    *out = pd;
    return n;
}

static void free_parked(parked_t *pk)
{
    size_t i;
    for (i = 0; i < pk->nkeys; i++) free(pk->keys[i]);
    free(pk->keys);
    free(pk);
}

/* Queue the answer to a parked lookup (main thread runs it); holds lock. */
static void answer_parked_locked(parked_t *pk, pmix_status_t st_if_empty)
{
    job_t *j = xcalloc(1, sizeof(*j));
    j->run = run_lookup;
    j->lkcb = pk->cbfunc;
    j->cbdata = pk->cbdata;
    j->npdata = collect_locked(pk->keys, pk->nkeys, &j->pdata);
    j->status = j->npdata >= pk->want ? PMIX_SUCCESS : st_if_empty;
    if (j->status != PMIX_SUCCESS && j->pdata) {
        PMIX_PDATA_FREE(j->pdata, j->npdata);
        j->npdata = 0;
    }
    enqueue_locked(j);
    free_parked(pk);
}

/* After a publish: release lookups that are now satisfied; holds lock. */
static void check_parked_locked(void)
{
    parked_t **pp = &parked_list;
    while (*pp) {
        parked_t *pk = *pp;
        if (collect_locked(pk->keys, pk->nkeys, NULL) >= pk->want) {
            *pp = pk->next;
            answer_parked_locked(pk, PMIX_ERR_NOT_FOUND);
        } else {
            pp = &pk->next;
        }
    }
}

static pmix_status_t up_publish(const pmix_proc_t *proc,
                                const pmix_info_t info[], size_t ninfo,
                                pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    char p[PMIX_MAX_NSLEN + 16], inf[1024];
    size_t i, ndata = 0;
    pmix_status_t st = PMIX_SUCCESS;
    if (verbose) {
        fmt_proc(p, sizeof(p), proc);
        fmt_info(inf, sizeof(inf), info, ninfo);
        logv("upcall publish %s ninfo=%lu [%s]", p, (unsigned long)ninfo, inf);
    }
    pthread_mutex_lock(&lock);
    n_publish++;
    for (i = 0; i < ninfo; i++) {
        if (is_directive(info[i].key)) continue;
        ndata++;
        if (find_entry_locked(info[i].key)) st = PMIX_ERR_DUPLICATE_KEY;
    }
    if (ndata == 0) st = PMIX_ERR_BAD_PARAM;
    if (st == PMIX_SUCCESS) {
        for (i = 0; i < ninfo; i++) {
            entry_t *e;
            if (is_directive(info[i].key)) continue;
            e = xcalloc(1, sizeof(*e));
            PMIX_LOAD_KEY(e->key, info[i].key);
            memcpy(&e->owner, proc, sizeof(pmix_proc_t));
            PMIx_Value_xfer(&e->value, &info[i].value);
            e->next = store;
            store = e;
        }
        check_parked_locked();
    }
    pthread_mutex_unlock(&lock);
    return answer_op(st, cbfunc, cbdata, true);
}

static pmix_status_t up_lookup(const pmix_proc_t *proc, char **keys,
                               const pmix_info_t info[], size_t ninfo,
                               pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
    char p[PMIX_MAX_NSLEN + 16], inf[1024];
    size_t i, nkeys = 0, found, want = 0;
    long timeout = 0;
    bool wait = false;
    pmix_pdata_t *pd = NULL;
    pmix_status_t st;

    for (i = 0; keys && keys[i]; i++) nkeys++;
    if (verbose) {
        fmt_proc(p, sizeof(p), proc);
        fmt_info(inf, sizeof(inf), info, ninfo);
        logv("upcall lookup %s nkeys=%lu first=%s ninfo=%lu [%s]", p, (unsigned long)nkeys,
             nkeys ? keys[0] : "-", (unsigned long)ninfo, inf);
    }
    for (i = 0; i < ninfo; i++) {
        long v;
        if (PMIX_CHECK_KEY(&info[i], PMIX_WAIT) && value_as_long(&info[i].value, &v)) {
            if (v >= 0) {
                wait = true;
                want = (v == 0 || (size_t)v > nkeys) ? nkeys : (size_t)v;
            }
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_TIMEOUT) && value_as_long(&info[i].value, &v)) {
            timeout = v;
        }
    }
    if (nkeys == 0) return PMIX_ERR_BAD_PARAM;

    pthread_mutex_lock(&lock);
    n_lookup++;
    found = collect_locked(keys, nkeys, NULL);
    if (wait && found < want) {
        parked_t *pk = xcalloc(1, sizeof(*pk));
        memcpy(&pk->requester, proc, sizeof(pmix_proc_t));
        pk->keys = xcalloc(nkeys, sizeof(char *));
        for (i = 0; i < nkeys; i++) pk->keys[i] = xstrdup(keys[i]);
        pk->nkeys = nkeys;
        pk->want = want;
        pk->deadline = timeout > 0 ? now_s() + (double)timeout : 0.0;
        pk->cbfunc = cbfunc;
        pk->cbdata = cbdata;
        pk->next = parked_list;
        parked_list = pk;
        pthread_cond_signal(&wake);
        pthread_mutex_unlock(&lock);
        logv("lookup parked (want %lu of %lu keys, timeout %ld s)", (unsigned long)want,
             (unsigned long)nkeys, timeout);
        return PMIX_SUCCESS;
    }
    found = collect_locked(keys, nkeys, &pd);
    pthread_mutex_unlock(&lock);
    st = found > 0 ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND;

    if (mode == MODE_IMM && st != PMIX_SUCCESS) return st;
    if (mode == MODE_DEFER) {
        job_t *j = new_job(run_lookup, st, cbdata);
        j->lkcb = cbfunc;
        j->pdata = pd;
        j->npdata = found;
        enqueue(j);
        return PMIX_SUCCESS;
    }
    cbfunc(st, pd, found, cbdata);
    if (pd) PMIX_PDATA_FREE(pd, found);
    return PMIX_SUCCESS;
}

/* The toy credential of `proc` (see the header). */
static int cred_of(char *buf, size_t len, const pmix_proc_t *proc)
{
    return snprintf(buf, len, "rm-cred:%s:%u", proc->nspace, (unsigned)proc->rank);
}

static pmix_status_t up_get_credential(const pmix_proc_t *proc, const pmix_info_t directives[],
                                       size_t ndirs, pmix_credential_cbfunc_t cbfunc, void *cbdata)
{
    char p[PMIX_MAX_NSLEN + 16], buf[PMIX_MAX_NSLEN + 32];
    pmix_byte_object_t cred;
    pmix_info_t info;
    (void)directives;
    fmt_proc(p, sizeof(p), proc);
    logv("upcall get_credential for %s ndirs=%lu", p, (unsigned long)ndirs);
    if (cbfunc == NULL) return PMIX_ERR_BAD_PARAM;
    cred.bytes = buf;
    cred.size = (size_t)cred_of(buf, sizeof(buf), proc);
    PMIX_INFO_CONSTRUCT(&info);
    PMIx_Info_load(&info, PMIX_CRED_TYPE, "rm-simple", PMIX_STRING);
    /* (completed inside the upcall: the library copies what it keeps) */
    cbfunc(PMIX_SUCCESS, &cred, &info, 1, cbdata);
    PMIX_INFO_DESTRUCT(&info);
    return PMIX_SUCCESS;
}

static pmix_status_t up_validate_credential(const pmix_proc_t *proc,
                                            const pmix_byte_object_t *cred,
                                            const pmix_info_t directives[], size_t ndirs,
                                            pmix_validation_cbfunc_t cbfunc, void *cbdata)
{
    char p[PMIX_MAX_NSLEN + 16], want[PMIX_MAX_NSLEN + 32];
    size_t n = (size_t)cred_of(want, sizeof(want), proc);
    bool ok = cred != NULL && cred->size == n && memcmp(cred->bytes, want, n) == 0;
    pmix_info_t info;
    (void)directives;
    fmt_proc(p, sizeof(p), proc);
    logv("upcall validate_credential for %s (%lu bytes, ndirs=%lu): %s", p,
         cred ? (unsigned long)cred->size : 0UL, (unsigned long)ndirs, ok ? "valid" : "invalid");
    if (cbfunc == NULL) return PMIX_ERR_BAD_PARAM;
    PMIX_INFO_CONSTRUCT(&info);
    PMIx_Info_load(&info, PMIX_CRED_TYPE, "rm-simple", PMIX_STRING);
    cbfunc(ok ? PMIX_SUCCESS : PMIX_ERR_INVALID_CRED, ok ? &info : NULL, ok ? 1 : 0, cbdata);
    PMIX_INFO_DESTRUCT(&info);
    return PMIX_SUCCESS;
}

static pmix_status_t up_unpublish(const pmix_proc_t *proc, char **keys,
                                  const pmix_info_t info[], size_t ninfo,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    char p[PMIX_MAX_NSLEN + 16], inf[1024];
    entry_t **ep;
    size_t i, removed = 0;
    if (verbose) {
        fmt_proc(p, sizeof(p), proc);
        fmt_info(inf, sizeof(inf), info, ninfo);
        logv("upcall unpublish %s first=%s ninfo=%lu [%s]", p,
             keys && keys[0] ? keys[0] : "(all)", (unsigned long)ninfo, inf);
    }
    pthread_mutex_lock(&lock);
    n_unpublish++;
    ep = &store;
    while (*ep) {
        entry_t *e = *ep;
        bool match = PMIX_CHECK_NSPACE(e->owner.nspace, proc->nspace) && e->owner.rank == proc->rank;
        if (match && keys != NULL) {
            match = false;
            for (i = 0; keys[i]; i++)
                if (strncmp(keys[i], e->key, PMIX_MAX_KEYLEN) == 0) match = true;
        }
        if (match) {
            *ep = e->next;
            PMIx_Value_destruct(&e->value);
            free(e);
            removed++;
        } else {
            ep = &e->next;
        }
    }
    pthread_mutex_unlock(&lock);
    logv("unpublish removed %lu", (unsigned long)removed);
    return answer_op(PMIX_SUCCESS, cbfunc, cbdata, true);
}

/* ------------------------------------------------------------------ */
/* waiting for the server library's own callbacks                      */

typedef struct {
    bool done;
    pmix_status_t status;
} waiter_t;

static void waiter_cb(pmix_status_t status, void *cbdata)
{
    waiter_t *w = cbdata;
    pthread_mutex_lock(&lock);
    w->status = status;
    w->done = true;
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&lock);
}

static void deadline_ts(struct timespec *ts, double secs)
{
    double t = now_s() + secs;
    ts->tv_sec = (time_t)t;
    ts->tv_nsec = (long)((t - (double)ts->tv_sec) * 1e9);
    if (ts->tv_nsec >= 1000000000L) { ts->tv_sec++; ts->tv_nsec -= 1000000000L; }
}

/* rc: what the API call returned. */
static pmix_status_t wait_for(waiter_t *w, pmix_status_t rc, const char *what)
{
    struct timespec ts;
    pmix_status_t st;
    if (rc == PMIX_OPERATION_SUCCEEDED) return PMIX_SUCCESS;
    if (rc != PMIX_SUCCESS) return rc;
    deadline_ts(&ts, 30.0);
    pthread_mutex_lock(&lock);
    while (!w->done)
        if (pthread_cond_timedwait(&wake, &lock, &ts) == ETIMEDOUT) break;
    st = w->done ? w->status : PMIX_ERR_TIMEOUT;
    pthread_mutex_unlock(&lock);
    if (!w->done) fprintf(stderr, "rm_simple: %s: no callback within 30 s\n", what);
    return st;
}

/* ------------------------------------------------------------------ */
/* application and local setup (the network-support calls)             */

/* What PMIx_server_setup_application gave for the job: our own copy, added
 * to the job info and handed to PMIx_server_setup_local_support. */
static pmix_info_t *app_info;
static size_t napp_info;

typedef struct {
    waiter_t w;          /* first: wait_for() takes it */
    pmix_info_t *info;   /* copy of the results (success only) */
    size_t ninfo;
} setup_waiter_t;

/* Runs on the library's thread: copy the results, give the library's array
 * back through its release callback, then wake the main thread. */
static void setup_app_cb(pmix_status_t status, pmix_info_t info[], size_t ninfo,
                         void *provided_cbdata, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    setup_waiter_t *sw = provided_cbdata;
    pmix_info_t *copy = NULL;
    size_t i, n = 0;
    if (status == PMIX_SUCCESS && info != NULL && ninfo > 0) {
        PMIX_INFO_CREATE(copy, ninfo);
        if (copy == NULL) die("out of memory");
        for (i = 0; i < ninfo; i++) PMIX_INFO_XFER(&copy[i], &info[i]);
        n = ninfo;
    }
    if (cbfunc != NULL) cbfunc(PMIX_SUCCESS, cbdata);
    pthread_mutex_lock(&lock);
    sw->info = copy;
    sw->ninfo = n;
    sw->w.status = status;
    sw->w.done = true;
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&lock);
}

/* Head-node preparation of the application, before it is registered. */
static void setup_application(uint32_t size, const char *regex, const char *ppn)
{
    pmix_info_t in[3];
    setup_waiter_t sw;
    pmix_status_t rc;
    size_t i;

    memset(&sw, 0, sizeof(sw));
    for (i = 0; i < 3; i++) PMIX_INFO_CONSTRUCT(&in[i]);
    PMIx_Info_load(&in[0], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    PMIx_Info_load(&in[1], PMIX_NODE_MAP, regex, PMIX_STRING);
    PMIx_Info_load(&in[2], PMIX_PROC_MAP, ppn, PMIX_STRING);
    rc = PMIx_server_setup_application(job_nspace, in, 3, setup_app_cb, &sw);
    logv("setup_application %s returned %s", job_nspace, PMIx_Error_string(rc));
    rc = wait_for(&sw.w, rc, "setup_application");
    for (i = 0; i < 3; i++) PMIX_INFO_DESTRUCT(&in[i]);
    if (rc != PMIX_SUCCESS) die("PMIx_server_setup_application: %s", PMIx_Error_string(rc));
    app_info = sw.info;
    napp_info = sw.ninfo;
    if (verbose) {
        char inf[2048];
        fmt_info(inf, sizeof(inf), app_info, napp_info);
        logv("setup_application gave %lu infos [%s]", (unsigned long)napp_info, inf);
    }
}

/* This node's preparation, after registration and before any fork. */
static void setup_local_support(void)
{
    waiter_t w = {false, PMIX_SUCCESS};
    pmix_status_t rc;
    rc = PMIx_server_setup_local_support(job_nspace, app_info, napp_info, waiter_cb, &w);
    logv("setup_local_support %s returned %s", job_nspace, PMIx_Error_string(rc));
    rc = wait_for(&w, rc, "setup_local_support");
    if (rc != PMIX_SUCCESS) die("PMIx_server_setup_local_support: %s", PMIx_Error_string(rc));
    if (app_info != NULL) PMIX_INFO_FREE(app_info, napp_info);
    app_info = NULL;
    napp_info = 0;
}

static void deregister_all(void)
{
    int i;
    for (i = 0; i < nprocs; i++) {
        pmix_proc_t proc;
        waiter_t w = {false, PMIX_SUCCESS};
        PMIX_LOAD_PROCID(&proc, job_nspace, (pmix_rank_t)i);
        if (sync_reg) {
            PMIx_server_deregister_client(&proc, NULL, NULL);
        } else {
            PMIx_server_deregister_client(&proc, waiter_cb, &w);
            wait_for(&w, PMIX_SUCCESS, "deregister_client");
        }
    }
    if (sync_reg) {
        PMIx_server_deregister_nspace(job_nspace, NULL, NULL);
    } else {
        waiter_t w = {false, PMIX_SUCCESS};
        PMIx_server_deregister_nspace(job_nspace, waiter_cb, &w);
        wait_for(&w, PMIX_SUCCESS, "deregister_nspace");
    }
}

/* ------------------------------------------------------------------ */
/* namespace registration                                              */

static void list_add(void *list, const char *key, const void *val, pmix_data_type_t t)
{
    pmix_status_t rc = PMIx_Info_list_add(list, key, val, t);
    if (rc != PMIX_SUCCESS) die("PMIx_Info_list_add(%s): %s", key, PMIx_Error_string(rc));
}

/* -E: environment directives for setup_fork, and one plain job-level key */
static void add_env_directives(void *list)
{
    pmix_envar_t ev;

    PMIX_ENVAR_CONSTRUCT(&ev);
    PMIX_ENVAR_LOAD(&ev, "RPMIX_T_SET", "hello", ':');
    list_add(list, PMIX_SET_ENVAR, &ev, PMIX_ENVAR);
    PMIX_ENVAR_DESTRUCT(&ev);

    list_add(list, PMIX_UNSET_ENVAR, "RPMIX_T_UNSET", PMIX_STRING);

    PMIX_ENVAR_CONSTRUCT(&ev);
    PMIX_ENVAR_LOAD(&ev, "RPMIX_T_LIST", "front", ':');
    list_add(list, PMIX_PREPEND_ENVAR, &ev, PMIX_ENVAR);
    PMIX_ENVAR_DESTRUCT(&ev);

    PMIX_ENVAR_CONSTRUCT(&ev);
    PMIX_ENVAR_LOAD(&ev, "RPMIX_T_LIST", "back", ':');
    list_add(list, PMIX_APPEND_ENVAR, &ev, PMIX_ENVAR);
    PMIX_ENVAR_DESTRUCT(&ev);

    list_add(list, PMIX_SET_ENVAR, "RPMIX_T_STR=via-string", PMIX_STRING);
    list_add(list, "rpmix.t.custom", "custom-value", PMIX_STRING);
    logv("added -E environment directives and rpmix.t.custom");
}

static void register_job(const char *host)
{
    void *list = PMIx_Info_list_start();
    pmix_data_array_t darr = {0};
    char *regex = NULL, *ppn = NULL, *peers;
    size_t plen = (size_t)nprocs * 12 + 1, used = 0;
    uint32_t u32;
    int i;
    pmix_status_t rc;
    waiter_t w = {false, PMIX_SUCCESS};

    peers = xcalloc(plen, 1);
    for (i = 0; i < nprocs; i++)
        used += (size_t)snprintf(peers + used, plen - used, "%s%d", i ? "," : "", i);

    if (phantom) {
        size_t hl = strlen(host) + 16, ml = plen + 16;
        char *hosts = xcalloc(hl, 1), *map = xcalloc(ml, 1);
        snprintf(hosts, hl, "%s,phantom", host);
        snprintf(map, ml, "%s;%d", peers, nprocs);
        rc = PMIx_generate_regex(hosts, &regex);
        if (rc == PMIX_SUCCESS) rc = PMIx_generate_ppn(map, &ppn);
        free(hosts);
        free(map);
    } else {
        rc = PMIx_generate_regex(host, &regex);
        if (rc == PMIX_SUCCESS) rc = PMIx_generate_ppn(peers, &ppn);
    }
    if (rc != PMIX_SUCCESS) die("PMIx_generate_regex/ppn: %s", PMIx_Error_string(rc));

    u32 = (uint32_t)nprocs + (phantom ? 1 : 0);
    setup_application(u32, regex, ppn);
    list_add(list, PMIX_JOB_SIZE, &u32, PMIX_UINT32);
    list_add(list, PMIX_UNIV_SIZE, &u32, PMIX_UINT32);
    list_add(list, PMIX_MAX_PROCS, &u32, PMIX_UINT32);
    u32 = (uint32_t)nprocs;
    list_add(list, PMIX_LOCAL_SIZE, &u32, PMIX_UINT32);
    list_add(list, PMIX_NODE_MAP, regex, PMIX_STRING);
    list_add(list, PMIX_PROC_MAP, ppn, PMIX_STRING);
    list_add(list, PMIX_JOBID, job_nspace, PMIX_STRING);
    u32 = 0;
    list_add(list, PMIX_APPNUM, &u32, PMIX_UINT32);
    list_add(list, PMIX_NODEID, &u32, PMIX_UINT32);
    list_add(list, PMIX_LOCAL_PEERS, peers, PMIX_STRING);
    list_add(list, PMIX_HOSTNAME, host, PMIX_STRING);

    for (i = 0; i < nprocs; i++) {
        void *pl = PMIx_Info_list_start();
        pmix_data_array_t parr = {0};
        pmix_rank_t rank = (pmix_rank_t)i;
        uint16_t u16 = (uint16_t)i;
        uint32_t app = 0;
        list_add(pl, PMIX_RANK, &rank, PMIX_PROC_RANK);
        list_add(pl, PMIX_LOCAL_RANK, &u16, PMIX_UINT16);
        list_add(pl, PMIX_NODE_RANK, &u16, PMIX_UINT16);
        list_add(pl, PMIX_HOSTNAME, host, PMIX_STRING);
        list_add(pl, PMIX_APPNUM, &app, PMIX_UINT32);
        rc = PMIx_Info_list_convert(pl, &parr);
        if (rc != PMIX_SUCCESS) die("PMIx_Info_list_convert: %s", PMIx_Error_string(rc));
        list_add(list, PMIX_PROC_INFO_ARRAY, &parr, PMIX_DATA_ARRAY);
        PMIx_Data_array_destruct(&parr);
        PMIx_Info_list_release(pl);
    }
    /* the application setup's results belong to the job info */
    for (i = 0; i < (int)napp_info; i++) {
        rc = PMIx_Info_list_xfer(list, &app_info[i]);
        if (rc != PMIX_SUCCESS) die("PMIx_Info_list_xfer(%s): %s", app_info[i].key, PMIx_Error_string(rc));
    }
    if (env_directives) add_env_directives(list);
    if (topo_xml_file) {
        FILE *f = fopen(topo_xml_file, "r");
        char *xml;
        long len;
        if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0)
            die("-X %s: cannot read it", topo_xml_file);
        xml = xcalloc((size_t)len + 1, 1);
        if (fread(xml, 1, (size_t)len, f) != (size_t)len) die("-X %s: short read", topo_xml_file);
        fclose(f);
        list_add(list, PMIX_HWLOC_XML_V2, xml, PMIX_STRING);
        free(xml);
    }
    rc = PMIx_Info_list_convert(list, &darr);
    if (rc != PMIX_SUCCESS) die("PMIx_Info_list_convert: %s", PMIx_Error_string(rc));
    PMIx_Info_list_release(list);

    logv("register_nspace %s nlocalprocs=%d ninfo=%lu node_map=%s proc_map=%s", job_nspace,
         nprocs, (unsigned long)darr.size, regex, ppn);
    if (sync_reg) {
        rc = PMIx_server_register_nspace(job_nspace, nprocs, (pmix_info_t *)darr.array,
                                         darr.size, NULL, NULL);
        logv("register_nspace (blocking) returned %s", PMIx_Error_string(rc));
        if (rc == PMIX_OPERATION_SUCCEEDED) rc = PMIX_SUCCESS;
    } else {
        rc = PMIx_server_register_nspace(job_nspace, nprocs, (pmix_info_t *)darr.array,
                                         darr.size, waiter_cb, &w);
        logv("register_nspace returned %s", PMIx_Error_string(rc));
        rc = wait_for(&w, rc, "register_nspace");
    }
    if (rc != PMIX_SUCCESS) die("PMIx_server_register_nspace: %s", PMIx_Error_string(rc));
    PMIx_Data_array_destruct(&darr);
    free(regex);
    free(ppn);
    free(peers);

    for (i = 0; i < nprocs; i++) {
        pmix_proc_t proc;
        waiter_t cw = {false, PMIX_SUCCESS};
        PMIX_LOAD_PROCID(&proc, job_nspace, (pmix_rank_t)i);
        if (sync_reg) {
            rc = PMIx_server_register_client(&proc, other_user ? client_uid : getuid(),
                                             other_user ? client_gid : getgid(), NULL, NULL, NULL);
            if (rc == PMIX_OPERATION_SUCCEEDED) rc = PMIX_SUCCESS;
        } else {
            rc = PMIx_server_register_client(&proc, other_user ? client_uid : getuid(),
                                             other_user ? client_gid : getgid(), NULL, waiter_cb, &cw);
            rc = wait_for(&cw, rc, "register_client");
        }
        if (rc != PMIX_SUCCESS) die("PMIx_server_register_client(%d): %s", i, PMIx_Error_string(rc));
    }
    logv("registered %d clients", nprocs);
    setup_local_support();
}

/* ------------------------------------------------------------------ */
/* launching                                                           */

static char **copy_environ(void)
{
    size_t n = 0, i;
    char **env;
    while (environ[n]) n++;
    env = xcalloc(n + 1, sizeof(char *));
    for (i = 0; i < n; i++) env[i] = xstrdup(environ[i]);
    return env;
}

static void free_argv(char **v)
{
    size_t i;
    if (v == NULL) return;
    for (i = 0; v[i]; i++) free(v[i]);
    free(v);
}

/* Resolve prog like execvp would, before forking (the child only execve's). */
static char *resolve(const char *prog)
{
    const char *path = getenv("PATH");
    const char *s;
    if (strchr(prog, '/')) return xstrdup(prog);
    if (path == NULL) path = "/usr/bin:/bin";
    for (s = path;;) {
        const char *e = strchr(s, ':');
        size_t dl = e ? (size_t)(e - s) : strlen(s);
        size_t len = dl + strlen(prog) + 2;
        char *cand = xcalloc(len, 1);
        struct stat sb;
        if (dl == 0) snprintf(cand, len, "%s", prog);
        else snprintf(cand, len, "%.*s/%s", (int)dl, s, prog);
        if (stat(cand, &sb) == 0 && S_ISREG(sb.st_mode) && access(cand, X_OK) == 0) return cand;
        free(cand);
        if (e == NULL) break;
        s = e + 1;
    }
    die("%s: command not found", prog);
    return NULL;
}

static void launch(char **argv)
{
    char *path = resolve(argv[0]);
    int i;
    for (i = 0; i < nprocs; i++) {
        pmix_proc_t proc;
        char **env = copy_environ();
        pmix_status_t rc;
        pid_t pid;
        int outp[2] = {-1, -1}, errp[2] = {-1, -1};
        PMIX_LOAD_PROCID(&proc, job_nspace, (pmix_rank_t)i);
        rc = PMIx_server_setup_fork(&proc, &env);
        if (rc != PMIX_SUCCESS) die("PMIx_server_setup_fork(%d): %s", i, PMIx_Error_string(rc));
        if (tool_support && (cloexec_pipe(outp) != 0 || cloexec_pipe(errp) != 0))
            die("pipe: %s", strerror(errno));
        fflush(stdout);
        fflush(stderr);
        pid = fork();
        if (pid < 0) die("fork: %s", strerror(errno));
        if (pid == 0) {
            struct sigaction sa;
            sigset_t none;
            memset(&sa, 0, sizeof(sa));
            sa.sa_handler = SIG_DFL;
            sigaction(SIGPIPE, &sa, NULL);
            sigaction(SIGINT, &sa, NULL);
            sigaction(SIGTERM, &sa, NULL);
            sigaction(SIGHUP, &sa, NULL);
            sigemptyset(&none);
            sigprocmask(SIG_SETMASK, &none, NULL);
            setpgid(0, 0);
            if (tool_support && (dup2(outp[1], 1) < 0 || dup2(errp[1], 2) < 0)) _exit(126);
            if (other_user && (setgroups(0, NULL) != 0 || setgid(client_gid) != 0 || setuid(client_uid) != 0)) {
                static const char msg[] = "rm_simple: cannot become the clients' user\n";
                ssize_t wr = write(2, msg, sizeof(msg) - 1);
                (void)wr;
                _exit(126);
            }
            execve(path, argv, env);
            {
                static const char msg[] = "rm_simple: exec failed\n";
                ssize_t wr = write(2, msg, sizeof(msg) - 1);
                (void)wr;
            }
            _exit(127);
        }
        setpgid(pid, pid); /* also done in the child: whichever runs first */
        if (tool_support) {
            close(outp[1]);
            close(errp[1]);
            out_fd[i] = outp[0];
            err_fd[i] = errp[0];
        }
        pthread_mutex_lock(&lock);
        child_pid[i] = pid;
        nalive++;
        if (tool_support) iof_open += 2;
        pthread_mutex_unlock(&lock);
        logv("rank %d: pid %ld", i, (long)pid);
        free_argv(env);
    }
    free(path);
}

/* ------------------------------------------------------------------ */

/* -P: how many ranks published a key starting with `prefix` */
static int published_locked(const char *prefix)
{
    int n = 0;
    for (entry_t *e = store; e; e = e->next) {
        if (strncmp(e->key, prefix, strlen(prefix)) == 0) n++;
    }
    return n;
}

/* -P: the next step of the process set "dyn", from the main thread (the
 * calls block until the library's thread has done them) */
static void pset_step(void)
{
    int ready, listed;
    pmix_status_t rc;
    pthread_mutex_lock(&lock);
    ready = published_locked("psets.ready.");
    listed = published_locked("psets.listed.");
    pthread_mutex_unlock(&lock);
    if (pset_stage == 0 && ready == nprocs) {
        pmix_proc_t members[2];
        PMIX_LOAD_PROCID(&members[0], job_nspace, 0);
        PMIX_LOAD_PROCID(&members[1], job_nspace, (pmix_rank_t)(nprocs - 1));
        rc = PMIx_server_define_process_set(members, nprocs > 1 ? 2 : 1, "dyn");
        fprintf(stderr, "rm_simple: define_process_set dyn: %s (%d)\n", PMIx_Error_string(rc), rc);
        pset_stage = 1;
    } else if (pset_stage == 1 && listed == nprocs) {
        char dyn[] = "dyn", nosuch[] = "nosuch";
        rc = PMIx_server_delete_process_set(dyn);
        fprintf(stderr, "rm_simple: delete_process_set dyn: %s (%d)\n", PMIx_Error_string(rc), rc);
        rc = PMIx_server_delete_process_set(nosuch);
        fprintf(stderr, "rm_simple: delete_process_set nosuch: %s (%d)\n", PMIx_Error_string(rc), rc);
        pset_stage = 2;
    }
}

static void on_signal(int sig) { got_signal = sig; }

static void usage(void)
{
    fprintf(stderr, "usage: rm_simple [-n N] [-t timeout_s] [-v] [-m direct|imm|defer|twice] [-s] [-p] "
                    "[-E] [-T] [-P] [-X topology.xml] [-u user] [--] prog [args...]\n");
    exit(2);
}

static void reap(void)
{
    int status, i;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        int code = WIFEXITED(status) ? WEXITSTATUS(status)
                 : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
        pthread_mutex_lock(&lock);
        for (i = 0; i < nprocs; i++) {
            if (child_pid[i] != pid) continue;
            child_pid[i] = 0;
            nalive--;
            if (code != 0 && first_failure == 0) first_failure = code;
            break;
        }
        pthread_mutex_unlock(&lock);
        if (i < nprocs) logv("rank %d exited with %d", i, code);
        if (i < nprocs && tool_support) {
            pmix_proc_t who;
            pmix_info_t exit_code;
            PMIX_LOAD_PROCID(&who, job_nspace, (pmix_rank_t)i);
            PMIX_INFO_LOAD(&exit_code, PMIX_EXIT_CODE, &code, PMIX_INT);
            pmix_status_t nrc = PMIx_Notify_event(PMIX_EVENT_PROC_TERMINATED, &who, PMIX_RANGE_LOCAL, &exit_code, 1, NULL, NULL);
            if (nrc != PMIX_SUCCESS && nrc != PMIX_OPERATION_SUCCEEDED) logv("notify of rank %d's end: %s", i, PMIx_Error_string(nrc));
            PMIX_INFO_DESTRUCT(&exit_code);
        }
    }
}

int main(int argc, char **argv)
{
    pmix_server_module_t module;
    pmix_info_t sinfo[4];
    size_t nsinfo = 2, k;
    double all_exited = 0.0;
    pthread_condattr_t ca;
    struct sigaction sa;
    char host[256];
    double timeout = 60.0, start;
    bool timed_out = false;
    int argi = 1, rc_exit;
    pmix_status_t rc;
    pmix_rank_t srank = 0;
    char srv_ns[PMIX_MAX_NSLEN + 1];

    tu_set_prefix("rm_simple: "); /* die(): "rm_simple: <message>" on stderr, exit 1 */
    while (argi < argc && argv[argi][0] == '-') {
        const char *a = argv[argi];
        if (strcmp(a, "--") == 0) { argi++; break; }
        if (strcmp(a, "-n") == 0 && argi + 1 < argc) {
            nprocs = atoi(argv[++argi]);
        } else if (strcmp(a, "-t") == 0 && argi + 1 < argc) {
            timeout = atof(argv[++argi]);
        } else if (strcmp(a, "-m") == 0 && argi + 1 < argc) {
            const char *m = argv[++argi];
            if (strcmp(m, "direct") == 0) mode = MODE_DIRECT;
            else if (strcmp(m, "imm") == 0) mode = MODE_IMM;
            else if (strcmp(m, "defer") == 0) mode = MODE_DEFER;
            else if (strcmp(m, "twice") == 0) mode = MODE_TWICE;
            else usage();
        } else if (strcmp(a, "-v") == 0) {
            verbose = 1;
        } else if (strcmp(a, "-s") == 0) {
            sync_reg = true;
        } else if (strcmp(a, "-p") == 0) {
            phantom = true;
        } else if (strcmp(a, "-X") == 0 && argi + 1 < argc) {
            topo_xml_file = argv[++argi];
        } else if (strcmp(a, "-u") == 0 && argi + 1 < argc) {
            struct passwd *pw = getpwnam(argv[++argi]);
            if (pw == NULL) die("-u %s: no such user", argv[argi]);
            client_uid = pw->pw_uid;
            client_gid = pw->pw_gid;
            other_user = true;
        } else if (strcmp(a, "-E") == 0) {
            env_directives = true;
        } else if (strcmp(a, "-T") == 0) {
            tool_support = true;
        } else if (strcmp(a, "-P") == 0) {
            pset_ctl = true;
        } else {
            usage();
        }
        argi++;
    }
    if (argi >= argc || nprocs < 1 || nprocs > 4096 || timeout <= 0) usage();

    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&wake, &ca);
    pthread_condattr_destroy(&ca);

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL); /* a client may die with replies in flight */
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    if (gethostname(host, sizeof(host)) != 0) die("gethostname: %s", strerror(errno));
    host[sizeof(host) - 1] = '\0';
    snprintf(job_nspace, sizeof(job_nspace), "rm.%ld", (long)getpid());
    snprintf(srv_ns, sizeof(srv_ns), "rm-server.%ld", (long)getpid());
    child_pid = xcalloc((size_t)nprocs, sizeof(pid_t));
    if (tool_support) {
        int i;
        out_fd = xcalloc((size_t)nprocs, sizeof(int));
        err_fd = xcalloc((size_t)nprocs, sizeof(int));
        for (i = 0; i < nprocs; i++) out_fd[i] = err_fd[i] = -1;
    }

    memset(&module, 0, sizeof(module));
    module.client_connected = up_client_connected;
    module.client_finalized = up_client_finalized;
    module.abort = up_abort;
    module.fence_nb = up_fence_nb;
    module.direct_modex = up_direct_modex;
    module.publish = up_publish;
    module.lookup = up_lookup;
    module.unpublish = up_unpublish;
    module.job_control = up_job_control;
    module.get_credential = up_get_credential;
    module.validate_credential = up_validate_credential;
    if (tool_support) {
        module.tool_connected = up_tool_connected;
        module.query = up_query;
        module.iof_pull = up_iof_pull;
    }

    for (k = 0; k < 4; k++) PMIX_INFO_CONSTRUCT(&sinfo[k]);
    PMIx_Info_load(&sinfo[0], PMIX_SERVER_NSPACE, srv_ns, PMIX_STRING);
    PMIx_Info_load(&sinfo[1], PMIX_SERVER_RANK, &srank, PMIX_PROC_RANK);
    if (tool_support) {
        bool yes = true, no = false;
        PMIx_Info_load(&sinfo[2], PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
        /* rm_simple echoes the ranks' output itself (OpenPMIx would too) */
        PMIx_Info_load(&sinfo[3], PMIX_IOF_LOCAL_OUTPUT, &no, PMIX_BOOL);
        nsinfo = 4;
    }
    rc = PMIx_server_init(&module, sinfo, nsinfo);
    for (k = 0; k < 4; k++) PMIX_INFO_DESTRUCT(&sinfo[k]);
    if (rc != PMIX_SUCCESS) die("PMIx_server_init: %s", PMIx_Error_string(rc));
    logv("server up (%s), mode %s%s%s, %d ranks of %s", PMIx_Get_version(),
         mode == MODE_DIRECT ? "direct" : mode == MODE_IMM ? "imm" : mode == MODE_TWICE ? "twice" : "defer",
         sync_reg ? ", blocking registration" : "", tool_support ? ", tools" : "", nprocs, argv[argi]);

    register_job(host);
    launch(&argv[argi]);
    if (tool_support && pthread_create(&reader, NULL, reader_main, NULL) != 0) die("pthread_create failed");

    /* main loop: reap children, run deferred callbacks, enforce limits */
    start = now_s();
    for (;;) {
        struct timespec ts;
        double t;
        int alive;
        parked_t **pp;

        reap();
        drain_queue();
        if (pset_ctl) pset_step();

        pthread_mutex_lock(&lock);
        alive = nalive;
        t = now_s();
        for (pp = &parked_list; *pp;) {
            parked_t *pk = *pp;
            if (pk->deadline > 0 && t >= pk->deadline) {
                *pp = pk->next;
                logv("parked lookup timed out");
                answer_parked_locked(pk, PMIX_ERR_TIMEOUT);
            } else {
                pp = &pk->next;
            }
        }
        if (alive > 0 && !timed_out && t - start >= timeout) {
            timed_out = true;
            fprintf(stderr, "rm_simple: time limit (%g s) reached, killing the job\n", timeout);
            kill_all_locked();
        }
        if (alive > 0 && got_signal) {
            kill_all_locked();
        }
        if (alive == 0 && queue_head == NULL) {
            /* -T: the output too, unless something the ranks left holds a pipe */
            if (!tool_support || iof_open == 0) {
                pthread_mutex_unlock(&lock);
                break;
            }
            if (all_exited == 0.0) all_exited = t;
            if (t - all_exited >= 5.0) {
                pthread_mutex_unlock(&lock);
                logv("%d pipes still open 5 s after the last rank exited: closing them", iof_open);
                break;
            }
        }
        if (queue_head == NULL) {
            deadline_ts(&ts, 0.02);
            pthread_cond_timedwait(&wake, &lock, &ts);
        }
        pthread_mutex_unlock(&lock);
    }

    if (tool_support) {
        /* every chunk reaches the library before the server goes */
        struct timespec ts;
        pthread_mutex_lock(&lock);
        reader_stop = true;
        pthread_mutex_unlock(&lock);
        pthread_join(reader, NULL);
        deadline_ts(&ts, 5.0);
        pthread_mutex_lock(&lock);
        while (iof_pending > 0)
            if (pthread_cond_timedwait(&wake, &lock, &ts) == ETIMEDOUT) break;
        if (iof_pending > 0) fprintf(stderr, "rm_simple: %d IOF_deliver callbacks missing after 5 s\n", iof_pending);
        pthread_mutex_unlock(&lock);
    }

    /* no client is left: release any lookup still parked */
    pthread_mutex_lock(&lock);
    while (parked_list) {
        parked_t *pk = parked_list;
        parked_list = pk->next;
        answer_parked_locked(pk, PMIX_ERR_TIMEOUT);
    }
    pthread_mutex_unlock(&lock);
    drain_queue();

    logv("all ranks done: connected=%d finalized=%d fence_nb=%d direct_modex=%d publish=%d "
         "lookup=%d unpublish=%d", n_connected, n_finalized, n_fence, n_dmodex, n_publish,
         n_lookup, n_unpublish);
    if (tool_support) logv("tools: connected=%d query=%d iof_pull=%d", n_tools, n_query, n_iof_pull);

    deregister_all();
    drain_queue();
    rc = PMIx_server_finalize();
    if (rc != PMIX_SUCCESS) fprintf(stderr, "rm_simple: PMIx_server_finalize: %s\n", PMIx_Error_string(rc));

    while (store) {
        entry_t *e = store;
        store = e->next;
        PMIx_Value_destruct(&e->value);
        free(e);
    }
    free(child_pid);
    free(out_fd);
    free(err_fd);

    if (got_signal) rc_exit = 128 + (int)got_signal;
    else if (aborted) rc_exit = abort_status & 0xff;
    else if (timed_out) rc_exit = 124;
    else rc_exit = first_failure;
    logv("exit %d", rc_exit);
    return rc_exit;
}
