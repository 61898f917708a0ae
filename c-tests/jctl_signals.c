/*
 * jctl_signals: PMIx_Job_control actions carried out by the host, as seen by
 * the ranks of one job.
 *
 *   pmixrun -n 3 ./jctl_signals [SCRATCH_DIR]
 *
 * Needs exactly 3 ranks and a host that implements job control the way
 * pmixrun does (pause = SIGSTOP, resume = SIGCONT, signal, kill, checkpoint
 * by the target's registered signal or event). Prints "rank R: <check>: FAIL
 * <detail>" for every failed check; rank 0 prints "jctl_signals: N passed,
 * M failed" (the checks of every rank) just before the last step. alarm(40)
 * bounds every rank.
 *
 * Setup: every rank counts SIGUSR1 and SIGUSR2 and registers a handler for
 * PMIX_JCTRL_CHECKPOINT. Rank 1 registers (PMIx_Job_control without targets)
 * PMIX_JOB_CTRL_PREEMPTIBLE = true and PMIX_JOB_CTRL_CHECKPOINT_METHOD =
 * { PMIX_JOB_CTRL_CHECKPOINT_SIGNAL = SIGUSR2 }; rank 2 registers
 * PMIX_JOB_CTRL_CHECKPOINT_METHOD = { PMIX_JOB_CTRL_CHECKPOINT_EVENT =
 * (PMIX_STATUS) PMIX_JCTRL_CHECKPOINT }. Ranks 1 and 2 Put their pid; fence.
 *
 * Rank 0 then, while ranks 1 and 2 wait in the next fence:
 *   pause {ns,2}: /proc/<pid2>/stat state becomes 'T' (within 2 s);
 *   resume {ns,2}: the state leaves 'T' (within 2 s);
 *   PMIX_JOB_CTRL_SIGNAL = SIGUSR1 on {ns,1};
 *   PMIX_JOB_CTRL_CHECKPOINT on {ns,1} (by signal) and on {ns,2} (by event),
 *   each completing when the target reports PMIX_JCTRL_CHECKPOINT_COMPLETE
 *   (every rank runs a thread that notifies it after the first SIGUSR2 and
 *   after the first checkpoint event, never again);
 *   a second checkpoint of {ns,2} with PMIX_TIMEOUT = 1: PMIX_ERR_TIMEOUT
 *   after 0.9 to 4 s (rank 2 does not complete it);
 *   PMIx_Job_control_nb checkpoint "ckpt-r1c" of {ns,1}, still pending after
 *   200 ms, then PMIX_JOB_CTRL_CANCEL "ckpt-r1c": PMIX_SUCCESS, and the
 *   pending request's callback fires with PMIX_ERR_JOB_CANCELED;
 *   checkpoint of {ns,0} (no method registered): PMIX_ERR_NOT_SUPPORTED;
 *   PMIX_JOB_CTRL_RESTART and PMIX_JOB_CTRL_PROVISION: PMIX_ERR_NOT_SUPPORTED;
 *   PMIX_JOB_CTRL_CANCEL: PMIX_SUCCESS;
 *   PMIx_Query_info(PMIX_JOB_CTRL_PREEMPTIBLE, qualifier PMIX_PROCID) is true
 *   for rank 1 and false for rank 2 (which registered nothing about it).
 * After the fence ranks 1 and 2 wait for what they must get (3 s bound) and
 * 300 ms more for anything they must not, then Put their counts; fence.
 * Rank 0 checks: rank 1 got SIGUSR1 once, SIGUSR2 twice, no checkpoint
 * event; rank 2 got no signal and the checkpoint event twice (from our
 * namespace);
 * rank 0 got nothing.
 * Last step: rank 1 finalizes; rank 0 ignores SIGTERM (pmixrun stops the
 * job when a rank dies), prints the summary, asks PMIX_JOB_CTRL_KILL for
 * {ns,2} and checks that rank 2 is gone (or a zombie) within 1.5 s (a line
 * "jctl_signals: kill: ok" or "rank 0: kill: FAIL ..."). Rank 2 waits to be
 * killed. pmixrun's exit code is then 137. With an absolute SCRATCH_DIR,
 * rank 2 also registers SCRATCH_DIR/r2.file and SCRATCH_DIR/r2.dir
 * (recursive, with a file) for cleanup: both must be gone after the job (the
 * driver checks), although rank 2 ends by SIGKILL.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include "testutil.h"


static volatile sig_atomic_t got_usr1, got_usr2;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int ckpt_events;
static pmix_proc_t ckpt_source;

static void on_signal(int sig)
{
    if (sig == SIGUSR1) got_usr1++;
    if (sig == SIGUSR2) got_usr2++;
}

static void ckpt_handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                         pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                         pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id; (void)info; (void)ninfo; (void)results; (void)nresults;
    pthread_mutex_lock(&lock);
    if (status == PMIX_JCTRL_CHECKPOINT) {
        ckpt_events++;
        if (source) ckpt_source = *source;
    }
    pthread_mutex_unlock(&lock);
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* PMIx_Job_control with one directive on one target (or none when target is PMIX_RANK_UNDEF) */
static pmix_status_t jctl(pmix_rank_t target, const char *key, const void *val, pmix_data_type_t t)
{
    pmix_proc_t tp;
    pmix_info_t info;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc;
    PMIX_PROC_LOAD(&tp, me.nspace, target);
    PMIX_INFO_LOAD(&info, key, val, t);
    rc = PMIx_Job_control(target == PMIX_RANK_UNDEF ? NULL : &tp, target == PMIX_RANK_UNDEF ? 0 : 1,
                          &info, 1, &res, &nres);
    PMIX_INFO_DESTRUCT(&info);
    if (res) PMIX_INFO_FREE(res, nres);
    return rc;
}

/* state letter of /proc/<pid>/stat, 0 when gone */
static char proc_state(pid_t pid)
{
    char path[64], buf[512], *p;
    FILE *f;
    size_t n;
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    f = fopen(path, "r");
    if (!f) return 0;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    p = strrchr(buf, ')');
    if (!p || p[1] != ' ') return '?';
    return p[2];
}

static bool wait_state(pid_t pid, bool want_t, long ms, char *last)
{
    long end = now_ms() + ms;
    for (;;) {
        char s = proc_state(pid);
        *last = s;
        if (want_t ? s == 'T' : (s != 'T' && s != 't')) return true;
        if (now_ms() >= end) return false;
        msleep(20);
    }
}

static int query_preemptible(pmix_rank_t r, const char *what)
{
    pmix_query_t *q;
    pmix_info_t *res = NULL;
    size_t nres = 0, i;
    pmix_proc_t p;
    pmix_status_t rc;
    int out = -1;
    PMIX_PROC_LOAD(&p, me.nspace, r);
    PMIX_QUERY_CREATE(q, 1);
    PMIX_ARGV_APPEND(rc, q[0].keys, PMIX_JOB_CTRL_PREEMPTIBLE);
    PMIX_QUERY_QUALIFIERS_CREATE(&q[0], 1);
    PMIX_INFO_LOAD(&q[0].qualifiers[0], PMIX_PROCID, &p, PMIX_PROC);
    rc = PMIx_Query_info(q, 1, &res, &nres);
    check(rc == PMIX_SUCCESS, what, "PMIx_Query_info: %s", PMIx_Error_string(rc));
    for (i = 0; res && i < nres; i++) {
        if (strcmp(res[i].key, PMIX_JOB_CTRL_PREEMPTIBLE) != 0) continue;
        if (res[i].value.type == PMIX_BOOL) out = res[i].value.data.flag ? 1 : 0;
        else check(false, what, "answer has type %s", PMIx_Data_type_string(res[i].value.type));
    }
    if (rc == PMIX_SUCCESS && out < 0) check(false, what, "no %s among %lu results", PMIX_JOB_CTRL_PREEMPTIBLE, (unsigned long)nres);
    if (res) PMIX_INFO_FREE(res, nres);
    PMIX_QUERY_FREE(q, 1);
    return out;
}

/* wait up to ms for cond() to hold */
static bool wait_for(bool (*cond)(void), long ms)
{
    long end = now_ms() + ms;
    while (!cond()) {
        if (now_ms() >= end) return false;
        msleep(10);
    }
    return true;
}

static bool r1_done(void) { return got_usr1 >= 1 && got_usr2 >= 2; }
static int ckpt_count(void)
{
    int n;
    pthread_mutex_lock(&lock);
    n = ckpt_events;
    pthread_mutex_unlock(&lock);
    return n;
}
static bool r2_done(void) { return ckpt_count() >= 2; }

/* Report PMIX_JCTRL_CHECKPOINT_COMPLETE after the first SIGUSR2 and after the
 * first checkpoint event (a signal handler cannot call PMIx: a thread does). */
static volatile bool stop_completer;
static void *completer(void *arg)
{
    bool sig_done = false, ev_done = false;
    (void)arg;
    while (!stop_completer) {
        bool now_sig = !sig_done && got_usr2 >= 1, now_ev = !ev_done && ckpt_count() >= 1;
        if (now_sig || now_ev) {
            pmix_status_t rc = PMIx_Notify_event(PMIX_JCTRL_CHECKPOINT_COMPLETE, &me, PMIX_RANGE_RM, NULL, 0, NULL, NULL);
            check(rc == PMIX_SUCCESS, "notify checkpoint complete", "%s", PMIx_Error_string(rc));
            if (now_sig) sig_done = true;
            else ev_done = true;
        }
        msleep(5);
    }
    return NULL;
}

struct nbwait {
    pthread_mutex_t m;
    bool done;
    pmix_status_t st;
};
static void jctl_nb_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                       pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    struct nbwait *w = cbdata;
    (void)info; (void)ninfo;
    pthread_mutex_lock(&w->m);
    w->st = status;
    w->done = true;
    pthread_mutex_unlock(&w->m);
    if (release_fn) release_fn(release_cbdata);
}
static bool nb_done(struct nbwait *w, pmix_status_t *st)
{
    bool d;
    pthread_mutex_lock(&w->m);
    d = w->done;
    *st = w->st;
    pthread_mutex_unlock(&w->m);
    return d;
}

int main(int argc, char **argv)
{
    pmix_status_t rc;
    struct sigaction sa;
    char buf[512];
    int tot_pass, tot_fail;
    pid_t pid2 = 0;
    bool t = true;
    const char *scratch = argc > 1 && argv[1][0] == '/' ? argv[1] : NULL;

    alarm(40);
    setvbuf(stdout, NULL, _IOLBF, 0);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGUSR2, &sa, NULL);

    if (!init_job_of("jctl_signals", 3)) return 1;

    {
        pmix_status_t code = PMIX_JCTRL_CHECKPOINT;
        rc = register_handler(&code, 1, ckpt_handler);
    }
    check(rc == PMIX_SUCCESS, "register checkpoint handler", "%s", PMIx_Error_string(rc));
    pthread_t completer_thread;
    pthread_create(&completer_thread, NULL, completer, NULL);

    if (me.rank == 1) {
        pmix_info_t dirs[2];
        pmix_data_array_t *arr;
        pmix_info_t *m;
        int sig = SIGUSR2;
        PMIX_DATA_ARRAY_CREATE(arr, 1, PMIX_INFO);
        m = arr->array;
        PMIX_INFO_LOAD(&m[0], PMIX_JOB_CTRL_CHECKPOINT_SIGNAL, &sig, PMIX_INT);
        PMIX_INFO_LOAD(&dirs[0], PMIX_JOB_CTRL_PREEMPTIBLE, &t, PMIX_BOOL);
        PMIX_INFO_LOAD(&dirs[1], PMIX_JOB_CTRL_CHECKPOINT_METHOD, arr, PMIX_DATA_ARRAY);
        rc = PMIx_Job_control(NULL, 0, dirs, 2, NULL, NULL);
        check(rc == PMIX_SUCCESS, "register preemptible + checkpoint signal", "%s", PMIx_Error_string(rc));
        PMIX_INFO_DESTRUCT(&dirs[0]);
        PMIX_INFO_DESTRUCT(&dirs[1]);
        PMIX_DATA_ARRAY_FREE(arr);
    } else if (me.rank == 2) {
        pmix_info_t dir;
        pmix_data_array_t *arr;
        pmix_info_t *m;
        pmix_status_t ev = PMIX_JCTRL_CHECKPOINT;
        PMIX_DATA_ARRAY_CREATE(arr, 1, PMIX_INFO);
        m = arr->array;
        PMIX_INFO_LOAD(&m[0], PMIX_JOB_CTRL_CHECKPOINT_EVENT, &ev, PMIX_STATUS);
        PMIX_INFO_LOAD(&dir, PMIX_JOB_CTRL_CHECKPOINT_METHOD, arr, PMIX_DATA_ARRAY);
        rc = PMIx_Job_control(NULL, 0, &dir, 1, NULL, NULL);
        check(rc == PMIX_SUCCESS, "register checkpoint event", "%s", PMIx_Error_string(rc));
        PMIX_INFO_DESTRUCT(&dir);
        PMIX_DATA_ARRAY_FREE(arr);
        if (scratch) {
            /* cleanup must still happen when this rank is killed at the end */
            char f[1024], d[1024], x[1100];
            FILE *fp;
            pmix_info_t c[3];
            snprintf(f, sizeof(f), "%s/r2.file", scratch);
            snprintf(d, sizeof(d), "%s/r2.dir", scratch);
            fp = fopen(f, "w");
            if (fp) fclose(fp);
            check(fp != NULL && mkdir(d, 0755) == 0, "cleanup setup", "cannot create %s, %s", f, d);
            snprintf(x, sizeof(x), "%s/x", d);
            fp = fopen(x, "w");
            if (fp) fclose(fp);
            PMIX_INFO_LOAD(&c[0], PMIX_REGISTER_CLEANUP, f, PMIX_STRING);
            PMIX_INFO_LOAD(&c[1], PMIX_REGISTER_CLEANUP_DIR, d, PMIX_STRING);
            PMIX_INFO_LOAD(&c[2], PMIX_CLEANUP_RECURSIVE, &t, PMIX_BOOL);
            rc = PMIx_Job_control(NULL, 0, c, 3, NULL, NULL);
            check(rc == PMIX_SUCCESS, "register cleanup", "%s", PMIx_Error_string(rc));
            PMIX_INFO_DESTRUCT(&c[0]);
            PMIX_INFO_DESTRUCT(&c[1]);
            PMIX_INFO_DESTRUCT(&c[2]);
        }
    }
    snprintf(buf, sizeof(buf), "%d", (int)getpid());
    put_str("jctl.pid", buf);
    rc = PMIx_Commit();
    check(rc == PMIX_SUCCESS, "commit", "%s", PMIx_Error_string(rc));
    fence("fence 1");

    if (me.rank == 0) {
        char st = 0;
        int sig = SIGUSR1;
        int pre;
        if (get_str(2, "jctl.pid", buf, sizeof(buf))) pid2 = (pid_t)atoi(buf);
        check(pid2 > 0, "pid of rank 2", "none");

        /* pause / resume rank 2 */
        rc = jctl(2, PMIX_JOB_CTRL_PAUSE, &t, PMIX_BOOL);
        check(rc == PMIX_SUCCESS, "pause rank 2", "PMIx_Job_control: %s", PMIx_Error_string(rc));
        if (pid2 > 0) {
            bool ok = wait_state(pid2, true, 2000, &st);
            check(ok, "pause rank 2", "state of pid %d is '%c' after 2 s, expected 'T'", (int)pid2, st ? st : '-');
        }
        rc = jctl(2, PMIX_JOB_CTRL_RESUME, &t, PMIX_BOOL);
        check(rc == PMIX_SUCCESS, "resume rank 2", "PMIx_Job_control: %s", PMIx_Error_string(rc));
        if (pid2 > 0) {
            bool ok = wait_state(pid2, false, 2000, &st);
            check(ok, "resume rank 2", "state of pid %d still '%c' after 2 s", (int)pid2, st);
            check(st != 0, "resume rank 2", "pid %d is gone", (int)pid2);
        }

        /* signal rank 1 only */
        rc = jctl(1, PMIX_JOB_CTRL_SIGNAL, &sig, PMIX_INT);
        check(rc == PMIX_SUCCESS, "SIGUSR1 to rank 1", "PMIx_Job_control: %s", PMIx_Error_string(rc));

        /* checkpoints: rank 1 by signal, rank 2 by event; both complete */
        rc = jctl(1, PMIX_JOB_CTRL_CHECKPOINT, "ckpt-r1", PMIX_STRING);
        check(rc == PMIX_SUCCESS, "checkpoint rank 1 (signal)", "PMIx_Job_control: %s", PMIx_Error_string(rc));
        rc = jctl(2, PMIX_JOB_CTRL_CHECKPOINT, "ckpt-r2", PMIX_STRING);
        check(rc == PMIX_SUCCESS, "checkpoint rank 2 (event)", "PMIx_Job_control: %s", PMIx_Error_string(rc));
        {
            /* one that rank 2 never completes: the timeout ends it */
            pmix_proc_t tp;
            pmix_info_t d[2];
            int one = 1;
            long t0 = now_ms(), el;
            PMIX_PROC_LOAD(&tp, me.nspace, 2);
            PMIX_INFO_LOAD(&d[0], PMIX_JOB_CTRL_CHECKPOINT, "ckpt-r2b", PMIX_STRING);
            PMIX_INFO_LOAD(&d[1], PMIX_TIMEOUT, &one, PMIX_INT);
            rc = PMIx_Job_control(&tp, 1, d, 2, NULL, NULL);
            el = now_ms() - t0;
            check(rc == PMIX_ERR_TIMEOUT, "checkpoint timeout", "PMIx_Job_control: %s, expected PMIX_ERR_TIMEOUT", PMIx_Error_string(rc));
            check(el >= 900 && el <= 4000, "checkpoint timeout", "answered after %ld ms, expected about 1 s", el);
            PMIX_INFO_DESTRUCT(&d[0]);
            PMIX_INFO_DESTRUCT(&d[1]);
        }
        {
            /* one that rank 1 never completes: cancelled by its id */
            pmix_proc_t tp;
            pmix_info_t d;
            struct nbwait w = {PTHREAD_MUTEX_INITIALIZER, false, PMIX_SUCCESS};
            pmix_status_t st;
            long end;
            PMIX_PROC_LOAD(&tp, me.nspace, 1);
            PMIX_INFO_LOAD(&d, PMIX_JOB_CTRL_CHECKPOINT, "ckpt-r1c", PMIX_STRING);
            rc = PMIx_Job_control_nb(&tp, 1, &d, 1, jctl_nb_cb, &w);
            PMIX_INFO_DESTRUCT(&d);
            check(rc == PMIX_SUCCESS, "checkpoint cancel", "PMIx_Job_control_nb: %s", PMIx_Error_string(rc));
            msleep(200);
            check(!nb_done(&w, &st), "checkpoint cancel", "answered (%s) before completion or cancel", PMIx_Error_string(st));
            rc = jctl(PMIX_RANK_UNDEF, PMIX_JOB_CTRL_CANCEL, "ckpt-r1c", PMIX_STRING);
            check(rc == PMIX_SUCCESS, "checkpoint cancel", "cancel: %s", PMIx_Error_string(rc));
            end = now_ms() + 2000;
            while (!nb_done(&w, &st) && now_ms() < end) msleep(10);
            check(nb_done(&w, &st) && st == PMIX_ERR_JOB_CANCELED, "checkpoint cancel",
                  "callback %s with %s, expected PMIX_ERR_JOB_CANCELED", w.done ? "fired" : "never fired", PMIx_Error_string(st));
        }
        rc = jctl(0, PMIX_JOB_CTRL_CHECKPOINT, "ckpt-r0", PMIX_STRING);
        check(rc == PMIX_ERR_NOT_SUPPORTED, "checkpoint without method", "PMIx_Job_control: %s, expected PMIX_ERR_NOT_SUPPORTED", PMIx_Error_string(rc));

        /* unsupported and no-op actions */
        rc = jctl(1, PMIX_JOB_CTRL_RESTART, "ckpt-r1", PMIX_STRING);
        check(rc == PMIX_ERR_NOT_SUPPORTED, "restart", "PMIx_Job_control: %s, expected PMIX_ERR_NOT_SUPPORTED", PMIx_Error_string(rc));
        rc = jctl(1, PMIX_JOB_CTRL_PROVISION, "image", PMIX_STRING);
        check(rc == PMIX_ERR_NOT_SUPPORTED, "provision", "PMIx_Job_control: %s, expected PMIX_ERR_NOT_SUPPORTED", PMIx_Error_string(rc));
        rc = jctl(1, PMIX_JOB_CTRL_CANCEL, "ckpt-r1", PMIX_STRING);
        check(rc == PMIX_SUCCESS, "cancel", "PMIx_Job_control: %s, expected PMIX_SUCCESS", PMIx_Error_string(rc));

        /* preemptible */
        pre = query_preemptible(1, "query preemptible rank 1");
        check(pre == 1, "query preemptible rank 1", "answer %d, expected true", pre);
        pre = query_preemptible(2, "query preemptible rank 2");
        check(pre == 0, "query preemptible rank 2", "answer %d, expected false", pre);
    }
    fence("fence 2");

    if (me.rank == 1) wait_for(r1_done, 3000);
    if (me.rank == 2) wait_for(r2_done, 3000);
    msleep(300);
    stop_completer = true;
    pthread_join(completer_thread, NULL);
    pthread_mutex_lock(&lock);
    snprintf(buf, sizeof(buf), "%d %d %d %u %s|%d %d", (int)got_usr1, (int)got_usr2, ckpt_events,
             (unsigned)ckpt_source.rank, ckpt_events ? ckpt_source.nspace : "-", npass, nfail);
    pthread_mutex_unlock(&lock);
    if (me.rank != 0) {
        put_str("jctl.result", buf);
        rc = PMIx_Commit();
        check(rc == PMIX_SUCCESS, "commit", "%s", PMIx_Error_string(rc));
    }
    fence("fence 3");

    if (me.rank == 0) {
        pmix_rank_t r;
        tot_pass = 0;
        tot_fail = 0;
        check(got_usr1 == 0 && got_usr2 == 0, "rank 0 untouched", "rank 0 got SIGUSR1 x%d, SIGUSR2 x%d", (int)got_usr1, (int)got_usr2);
        check(ckpt_events == 0, "rank 0 untouched", "rank 0 got %d checkpoint events", ckpt_events);
        for (r = 1; r <= 2; r++) {
            int u1 = -1, u2 = -1, ev = -1, p = 0, f = 0;
            unsigned src = 0;
            char srcns[PMIX_MAX_NSLEN + 1] = "";
            if (!get_str(r, "jctl.result", buf, sizeof(buf))) continue;
            if (sscanf(buf, "%d %d %d %u %255[^|]|%d %d", &u1, &u2, &ev, &src, srcns, &p, &f) != 7) {
                check(false, "results", "rank %u: unparsable \"%s\"", (unsigned)r, buf);
                continue;
            }
            tot_pass += p;
            tot_fail += f;
            if (r == 1) {
                check(u1 == 1, "SIGUSR1 to rank 1", "rank 1 got SIGUSR1 %d times, expected once", u1);
                check(u2 == 2, "checkpoint rank 1 (signal)", "rank 1 got SIGUSR2 %d times, expected twice", u2);
                check(ev == 0, "checkpoint rank 1 (signal)", "rank 1 got %d PMIX_JCTRL_CHECKPOINT events, expected none", ev);
            } else {
                check(u1 == 0, "SIGUSR1 to rank 1", "rank 2 got SIGUSR1 %d times, expected never", u1);
                check(u2 == 0, "checkpoint rank 2 (event)", "rank 2 got SIGUSR2 %d times, expected never", u2);
                check(ev == 2, "checkpoint rank 2 (event)", "rank 2 got %d PMIX_JCTRL_CHECKPOINT events, expected two", ev);
                if (ev >= 1)
                    check(strcmp(srcns, me.nspace) == 0, "checkpoint rank 2 (event)", "event source %s:%u, expected namespace %s", srcns, src, me.nspace);
            }
        }
        /* the last step's check is reported on its own line (rank 2 dies) */
        printf("jctl_signals: %d passed, %d failed\n", npass + tot_pass, nfail + tot_fail);
        fflush(stdout);

        /* kill rank 2: pmixrun then stops the job (SIGTERM to the others) */
        signal(SIGTERM, SIG_IGN);
        rc = jctl(2, PMIX_JOB_CTRL_KILL, &t, PMIX_BOOL);
        if (rc != PMIX_SUCCESS) {
            printf("rank 0: kill: FAIL PMIx_Job_control: %s\n", PMIx_Error_string(rc));
        } else if (pid2 > 0) {
            long end = now_ms() + 1500;
            char s;
            while ((s = proc_state(pid2)) != 0 && s != 'Z' && now_ms() < end) msleep(10);
            if (s == 0 || s == 'Z') printf("jctl_signals: kill: ok\n");
            else printf("rank 0: kill: FAIL pid %d still in state '%c' after 1.5 s\n", (int)pid2, s);
        }
        fflush(stdout);
    } else if (me.rank == 2) {
        /* wait to be killed (alarm bounds it) */
        for (;;) pause();
    } else {
        signal(SIGTERM, SIG_IGN);
    }
    PMIx_Finalize(NULL, 0);
    return 0;
}
