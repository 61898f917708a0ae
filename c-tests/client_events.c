/*
 * client_events: event-handler semantics of the PMIx Standard (v4), as seen
 * by N >= 3 client ranks.
 *
 *   pmixrun -n 3 ./client_events        rm_simple -n 3 ./client_events
 *
 * Silent unless a check fails ("rank R: <check>: FAIL <detail>"); rank 0
 * prints "client_events: N passed, M failed" (checks of every rank) and the
 * exit status is 0 only when nothing failed. alarm(30) bounds the run.
 *
 * Setup. Rank 0 registers, in this order:
 *   A  for C1, PMIX_EVENT_HDLR_NAME "A"
 *   B  for C1, PMIX_EVENT_HDLR_NAME "B", PMIX_EVENT_HDLR_FIRST
 *   D  default (no codes), PMIX_EVENT_HDLR_NAME "D"
 * Every other rank registers one default handler "R". Registration uses the
 * callback form; each callback must report PMIX_SUCCESS and a reference id
 * distinct from the process's other handlers, and each handler must later be
 * called with its own reference id.
 * B completes with PMIX_SUCCESS and one result "b.result" = (int) 42, so the
 * chain continues; A must find that result in its `results`; A completes
 * with PMIX_EVENT_ACTION_COMPLETE, which ends the chain. D and R complete
 * with PMIX_EVENT_ACTION_COMPLETE.
 *
 * Phases (separated by fences):
 *   1. rank 1 notifies C1, PMIX_RANGE_NAMESPACE: rank 0 runs exactly B, A
 *      (B first although registered second; D not run: A completed the
 *      chain), source = rank 1. Ranks >= 2 see C1 in R.
 *   2. rank 2 notifies C2, PMIX_RANGE_CUSTOM with PMIX_EVENT_CUSTOM_RANGE =
 *      a pmix_data_array_t of one pmix_proc_t {ns, 0} (the Standard's type
 *      for that attribute): rank 0 runs exactly D, source = rank 2; no other
 *      rank (not even the notifier, which is outside the range) sees C2.
 *   3. rank 0 notifies C3, PMIX_RANGE_PROC_LOCAL: rank 0 runs exactly D,
 *      source = rank 0; no other rank sees C3.
 *   4. rank 0 deregisters A (callback with PMIX_SUCCESS, or the immediate
 *      PMIX_OPERATION_SUCCEEDED); rank 1 notifies C1 again: rank 0 runs
 *      exactly B, D -- B continues the chain, no C1-specific handler is left,
 *      and default handlers run whenever the chain was not completed.
 *   end: ranks >= 2 saw C1 exactly twice; the library released B's results
 *      (B's op callback) once per B call.
 *
 * Readings of the Standard where it is not explicit:
 *   - Whether the notifier itself receives an event it generated with
 *     PMIX_RANGE_NAMESPACE is not checked (rank 1's R may or may not see
 *     its own C1); a process outside a PMIX_RANGE_CUSTOM range, the notifier
 *     included, must not receive the event.
 *   - PMIX_RANGE_PROC_LOCAL is "the local process only": the notifier's own
 *     handlers run, nobody else's.
 *   - "Must not fire" checks wait 300 ms after a fence before looking, and
 *     are repeated at the end, so late wrong deliveries are caught too.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#define C1 (PMIX_EXTERNAL_ERR_BASE - 11)
#define C2 (PMIX_EXTERNAL_ERR_BASE - 12)
#define C3 (PMIX_EXTERNAL_ERR_BASE - 13)

#define WAIT_MS 5000   /* bound for anything that must happen */
#define QUIET_MS 300   /* grace period for anything that must not happen */

static pmix_proc_t me;
static uint32_t nranks;
static int npass, nfail;

static void check(bool ok, const char *what, const char *fmt, ...)
{
    va_list ap;
    char buf[1024];
    if (ok) {
        npass++;
        return;
    }
    nfail++;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    printf("rank %u: %s: FAIL %s\n", (unsigned)me.rank, what, buf);
    fflush(stdout);
}

static void msleep(long ms)
{
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

static void deadline(struct timespec *ts, long ms)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

static const char *code_name(pmix_status_t c)
{
    static char buf[32];
    if (c == C1) return "C1";
    if (c == C2) return "C2";
    if (c == C3) return "C3";
    snprintf(buf, sizeof(buf), "%d", (int)c);
    return buf;
}

/* ------------------------------------------------------------------ */
/* the trace of handler calls                                          */

struct call {
    char name;            /* 'A', 'B', 'D', 'R' */
    size_t id;            /* evhdlr_registration_id passed to the handler */
    pmix_status_t code;
    bool have_source;
    pmix_proc_t source;
};

#define MAXCALLS 256
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static struct call calls[MAXCALLS];
static size_t ncalls;
static int a_result_ok = -1;    /* -1: A not run yet; 0: b.result missing/wrong; 1: found */
static char a_result_detail[256];
static int b_released;          /* B's results released by the library */

static void record(char name, size_t id, pmix_status_t code, const pmix_proc_t *source)
{
    pthread_mutex_lock(&lock);
    if (ncalls < MAXCALLS) {
        struct call *c = &calls[ncalls++];
        c->name = name;
        c->id = id;
        c->code = code;
        c->have_source = source != NULL;
        if (source) memcpy(&c->source, source, sizeof(c->source));
    }
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

static void b_release(pmix_status_t status, void *cbdata)
{
    pmix_info_t *res = cbdata;
    (void)status;
    PMIX_INFO_FREE(res, 1);
    pthread_mutex_lock(&lock);
    b_released++;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

static void hdlr_b(size_t id, pmix_status_t status, const pmix_proc_t *source,
                   pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                   pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    pmix_info_t *res;
    int v = 42;
    (void)info; (void)ninfo; (void)results; (void)nresults;
    record('B', id, status, source);
    PMIX_INFO_CREATE(res, 1);
    PMIx_Info_load(&res[0], "b.result", &v, PMIX_INT);
    if (cbfunc) cbfunc(PMIX_SUCCESS, res, 1, b_release, res, cbdata);
    else PMIX_INFO_FREE(res, 1);
}

static void hdlr_a(size_t id, pmix_status_t status, const pmix_proc_t *source,
                   pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                   pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    size_t i;
    int ok = 0;
    char detail[256];
    (void)info; (void)ninfo;
    snprintf(detail, sizeof(detail), "no \"b.result\" among %lu results", (unsigned long)nresults);
    for (i = 0; results != NULL && i < nresults; i++) {
        if (strncmp(results[i].key, "b.result", PMIX_MAX_KEYLEN) != 0) continue;
        if (results[i].value.type == PMIX_INT && results[i].value.data.integer == 42) {
            ok = 1;
        } else {
            snprintf(detail, sizeof(detail), "\"b.result\" has type %s (value %d), expected int 42",
                     PMIx_Data_type_string(results[i].value.type),
                     results[i].value.type == PMIX_INT ? results[i].value.data.integer : 0);
        }
        break;
    }
    pthread_mutex_lock(&lock);
    a_result_ok = ok;
    snprintf(a_result_detail, sizeof(a_result_detail), "%s", ok ? "" : detail);
    pthread_mutex_unlock(&lock);
    record('A', id, status, source);
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void hdlr_d(size_t id, pmix_status_t status, const pmix_proc_t *source,
                   pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                   pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)info; (void)ninfo; (void)results; (void)nresults;
    record(me.rank == 0 ? 'D' : 'R', id, status, source);
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* number of recorded calls of handler `name` for `code` (any source) */
static size_t count_calls(char name, pmix_status_t code)
{
    size_t i, n = 0;
    for (i = 0; i < ncalls; i++)
        if (calls[i].name == name && calls[i].code == code) n++;
    return n;
}

/* wait (bounded) until handler `name` has run `want` times for `code` */
static bool wait_calls(char name, pmix_status_t code, size_t want, long ms)
{
    struct timespec ts;
    bool ok;
    deadline(&ts, ms);
    pthread_mutex_lock(&lock);
    while (count_calls(name, code) < want)
        if (pthread_cond_timedwait(&cond, &lock, &ts) == ETIMEDOUT) break;
    ok = count_calls(name, code) >= want;
    pthread_mutex_unlock(&lock);
    return ok;
}

/* "B(C1),A(C1)" for the calls from index `from` on */
static void trace_string(size_t from, char *buf, size_t n)
{
    size_t i, used = 0;
    buf[0] = '\0';
    pthread_mutex_lock(&lock);
    for (i = from; i < ncalls && used + 16 < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%c(%s)", i > from ? "," : "",
                                 calls[i].name, code_name(calls[i].code));
    pthread_mutex_unlock(&lock);
}

static size_t mark(void)
{
    size_t n;
    pthread_mutex_lock(&lock);
    n = ncalls;
    pthread_mutex_unlock(&lock);
    return n;
}

/* every call from `from` on must have the given source rank and the id of its handler */
static void check_calls(const char *what, size_t from, pmix_rank_t src, const size_t *ids)
{
    size_t i;
    pthread_mutex_lock(&lock);
    for (i = from; i < ncalls; i++) {
        struct call *c = &calls[i];
        size_t want = c->name == 'A' ? ids[0] : c->name == 'B' ? ids[1] : ids[2];
        check(c->have_source, what, "handler %c got a NULL source", c->name);
        if (c->have_source)
            check(strncmp(c->source.nspace, me.nspace, PMIX_MAX_NSLEN) == 0 && c->source.rank == src,
                  what, "handler %c: source %s:%u, expected %s:%u", c->name, c->source.nspace,
                  (unsigned)c->source.rank, me.nspace, (unsigned)src);
        check(c->id == want, what, "handler %c called with registration id %lu, registered as %lu",
              c->name, (unsigned long)c->id, (unsigned long)want);
    }
    pthread_mutex_unlock(&lock);
}

/* ------------------------------------------------------------------ */
/* registration, notification, deregistration                          */

struct opwait {
    bool done;
    pmix_status_t status;
    size_t ref;
};

static void reg_cb(pmix_status_t status, size_t ref, void *cbdata)
{
    struct opwait *w = cbdata;
    pthread_mutex_lock(&lock);
    w->status = status;
    w->ref = ref;
    w->done = true;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

static void op_cb(pmix_status_t status, void *cbdata)
{
    reg_cb(status, 0, cbdata);
}

static bool op_wait(struct opwait *w, long ms)
{
    struct timespec ts;
    bool done;
    deadline(&ts, ms);
    pthread_mutex_lock(&lock);
    while (!w->done)
        if (pthread_cond_timedwait(&cond, &lock, &ts) == ETIMEDOUT) break;
    done = w->done;
    pthread_mutex_unlock(&lock);
    return done;
}

static size_t reg(const char *what, pmix_status_t *codes, size_t ncodes, const char *name,
                  bool first, pmix_notification_fn_t fn)
{
    pmix_info_t info[2];
    size_t ninfo = 0;
    struct opwait w = { false, PMIX_ERROR, SIZE_MAX };
    pmix_status_t rc;
    bool t = true;

    PMIX_INFO_CONSTRUCT(&info[0]);
    PMIX_INFO_CONSTRUCT(&info[1]);
    PMIx_Info_load(&info[ninfo++], PMIX_EVENT_HDLR_NAME, name, PMIX_STRING);
    if (first) PMIx_Info_load(&info[ninfo++], PMIX_EVENT_HDLR_FIRST, &t, PMIX_BOOL);
    rc = PMIx_Register_event_handler(codes, ncodes, info, ninfo, fn, reg_cb, &w);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    check(rc == PMIX_SUCCESS, what, "PMIx_Register_event_handler(%s) returned %s", name,
          PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS) return SIZE_MAX;
    if (!op_wait(&w, WAIT_MS)) {
        check(false, what, "registration callback of %s not called within %d ms", name, WAIT_MS);
        return SIZE_MAX;
    }
    check(w.status == PMIX_SUCCESS, what, "registration callback of %s: status %s", name,
          PMIx_Error_string(w.status));
    return w.status == PMIX_SUCCESS ? w.ref : SIZE_MAX;
}

static void notify(const char *what, pmix_status_t code, pmix_data_range_t range,
                   pmix_info_t *info, size_t ninfo)
{
    struct opwait w = { false, PMIX_ERROR, 0 };
    pmix_status_t rc = PMIx_Notify_event(code, &me, range, info, ninfo, op_cb, &w);
    /* one check: immediate success, or accepted and completed by the callback */
    if (rc == PMIX_OPERATION_SUCCEEDED)
        check(true, what, "");
    else if (rc != PMIX_SUCCESS)
        check(false, what, "PMIx_Notify_event(%s) returned %s", code_name(code), PMIx_Error_string(rc));
    else if (!op_wait(&w, WAIT_MS))
        check(false, what, "notify callback not called within %d ms", WAIT_MS);
    else
        check(w.status == PMIX_SUCCESS, what, "notify callback status %s", PMIx_Error_string(w.status));
}

static void fence(const char *what)
{
    pmix_status_t rc = PMIx_Fence(NULL, 0, NULL, 0);
    check(rc == PMIX_SUCCESS, what, "PMIx_Fence returned %s", PMIx_Error_string(rc));
}

/* rank 0: the calls since `from` must be exactly `want` */
static void expect_trace(const char *what, size_t from, const char *want)
{
    char got[512];
    trace_string(from, got, sizeof(got));
    check(strcmp(got, want) == 0, what, "handlers ran as \"%s\", expected \"%s\"", got, want);
}

/* ranks != 0: never a call for `code` */
static void expect_none(const char *what, pmix_status_t code)
{
    size_t n;
    pthread_mutex_lock(&lock);
    n = count_calls('R', code);
    pthread_mutex_unlock(&lock);
    check(n == 0, what, "default handler called %lu time(s) for %s", (unsigned long)n, code_name(code));
}

/* ------------------------------------------------------------------ */

static void put_int(const char *key, int v)
{
    pmix_value_t val;
    pmix_status_t rc;
    PMIX_VALUE_CONSTRUCT(&val);
    PMIx_Value_load(&val, &v, PMIX_INT);
    rc = PMIx_Put(PMIX_GLOBAL, key, &val);
    PMIX_VALUE_DESTRUCT(&val);
    check(rc == PMIX_SUCCESS, "put results", "Put(%s): %s", key, PMIx_Error_string(rc));
}

static int get_int(pmix_rank_t r, const char *key, bool *ok)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    int out = 0;
    pmix_status_t rc;
    PMIX_LOAD_PROCID(&p, me.nspace, r);
    rc = PMIx_Get(&p, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v == NULL || v->type != PMIX_INT) {
        *ok = false;
        check(false, "collect results", "Get(%s, rank %u): %s", key, (unsigned)r,
              rc != PMIX_SUCCESS ? PMIx_Error_string(rc) : "wrong type");
    } else {
        out = v->data.integer;
    }
    if (v) PMIX_VALUE_RELEASE(v);
    return out;
}

int main(void)
{
    pmix_status_t rc, c1 = C1;
    pmix_proc_t wild;
    pmix_value_t *v = NULL;
    size_t ids[3] = { SIZE_MAX, SIZE_MAX, SIZE_MAX }; /* A, B, D (or R) */
    size_t from;
    int tot_pass = 0, tot_fail = 0;
    pmix_rank_t r;

    alarm(30);
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("rank ?: init: FAIL %s\n", PMIx_Error_string(rc));
        printf("client_events: 0 passed, 1 failed\n");
        return 1;
    }
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v == NULL || v->type != PMIX_UINT32 || v->data.uint32 < 3) {
        check(false, "job size", "need PMIX_JOB_SIZE >= 3 (%s)", PMIx_Error_string(rc));
        if (me.rank == 0) printf("client_events: %d passed, %d failed\n", npass, nfail);
        PMIx_Finalize(NULL, 0);
        return 1;
    }
    nranks = v->data.uint32;
    PMIX_VALUE_RELEASE(v);

    /* registration */
    if (me.rank == 0) {
        ids[0] = reg("register A", &c1, 1, "A", false, hdlr_a);
        ids[1] = reg("register B", &c1, 1, "B", true, hdlr_b);
        ids[2] = reg("register D", NULL, 0, "D", false, hdlr_d);
        check(ids[0] != ids[1] && ids[0] != ids[2] && ids[1] != ids[2], "unique handler ids",
              "A=%lu B=%lu D=%lu", (unsigned long)ids[0], (unsigned long)ids[1],
              (unsigned long)ids[2]);
    } else {
        ids[2] = reg("register R", NULL, 0, "R", false, hdlr_d);
    }
    /* Each phase's trace starts before the fence that precedes the
     * notification: the event may reach a process before that process has
     * returned from the fence. */
    from = mark();
    fence("fence (registered)");

    /* 1. C1 from rank 1, namespace range: B then A, chain completed by A */
    if (me.rank == 1) notify("notify C1", C1, PMIX_RANGE_NAMESPACE, NULL, 0);
    if (me.rank == 0) {
        check(wait_calls('A', C1, 1, WAIT_MS), "C1 delivery", "handler A not called within %d ms",
              WAIT_MS);
        msleep(QUIET_MS);
        expect_trace("C1: B first, A completes the chain", from, "B(C1),A(C1)");
        check_calls("C1 source/id", from, 1, ids);
        pthread_mutex_lock(&lock);
        check(a_result_ok == 1, "C1: B's result reaches A", "%s",
              a_result_ok < 0 ? "A did not run" : a_result_detail);
        pthread_mutex_unlock(&lock);
    }
    if (me.rank >= 2) {
        check(wait_calls('R', C1, 1, WAIT_MS), "C1 namespace range",
              "default handler not called for C1 within %d ms", WAIT_MS);
        check_calls("C1 source/id (default handler)", from, 1, ids);
    }
    from = mark();
    fence("fence (after C1)");

    /* 2. C2 from rank 2, custom range {rank 0}: only rank 0's default handler */
    if (me.rank == 2) {
        pmix_info_t info;
        pmix_data_array_t *da;
        pmix_proc_t *procs;
        PMIX_DATA_ARRAY_CREATE(da, 1, PMIX_PROC);
        procs = da->array;
        PMIX_LOAD_PROCID(&procs[0], me.nspace, 0);
        PMIX_INFO_CONSTRUCT(&info);
        PMIx_Info_load(&info, PMIX_EVENT_CUSTOM_RANGE, da, PMIX_DATA_ARRAY);
        PMIX_DATA_ARRAY_FREE(da);
        notify("notify C2", C2, PMIX_RANGE_CUSTOM, &info, 1);
        PMIX_INFO_DESTRUCT(&info);
    }
    if (me.rank == 0) {
        check(wait_calls('D', C2, 1, WAIT_MS), "C2 custom range",
              "default handler not called for C2 within %d ms", WAIT_MS);
        msleep(QUIET_MS);
        expect_trace("C2: default handler only", from, "D(C2)");
        check_calls("C2 source/id", from, 2, ids);
    }
    fence("fence (after C2)");
    if (me.rank != 0) {
        msleep(QUIET_MS);
        expect_none("C2 outside custom range", C2);
    }

    /* 3. C3 from rank 0, PMIX_RANGE_PROC_LOCAL: rank 0 only */
    from = mark();
    if (me.rank == 0) {
        notify("notify C3", C3, PMIX_RANGE_PROC_LOCAL, NULL, 0);
        check(wait_calls('D', C3, 1, WAIT_MS), "C3 proc-local range",
              "own default handler not called for C3 within %d ms", WAIT_MS);
        msleep(QUIET_MS);
        expect_trace("C3: default handler only", from, "D(C3)");
        check_calls("C3 source/id", from, 0, ids);
    }
    fence("fence (after C3)");
    if (me.rank != 0) {
        msleep(QUIET_MS);
        expect_none("C3 proc-local range", C3);
    }

    /* 4. deregister A; C1 again: B continues the chain, D runs */
    if (me.rank == 0 && ids[0] != SIZE_MAX) {
        struct opwait w = { false, PMIX_ERROR, 0 };
        rc = PMIx_Deregister_event_handler(ids[0], op_cb, &w);
        if (rc == PMIX_OPERATION_SUCCEEDED)
            check(true, "deregister A", "");
        else if (rc != PMIX_SUCCESS)
            check(false, "deregister A", "returned %s", PMIx_Error_string(rc));
        else if (!op_wait(&w, WAIT_MS))
            check(false, "deregister A", "callback not called within %d ms", WAIT_MS);
        else
            check(w.status == PMIX_SUCCESS, "deregister A", "callback status %s",
                  PMIx_Error_string(w.status));
    }
    from = mark();
    fence("fence (A deregistered)");
    if (me.rank == 1) notify("notify C1 again", C1, PMIX_RANGE_NAMESPACE, NULL, 0);
    if (me.rank == 0) {
        check(wait_calls('D', C1, 1, WAIT_MS), "C1 after deregistration",
              "default handler not called for C1 within %d ms", WAIT_MS);
        msleep(QUIET_MS);
        expect_trace("C1 after deregistration: B then default", from, "B(C1),D(C1)");
        check_calls("C1 (2nd) source/id", from, 1, ids);
    }
    if (me.rank >= 2)
        check(wait_calls('R', C1, 2, WAIT_MS), "C1 namespace range (2nd)",
              "default handler not called for the second C1 within %d ms", WAIT_MS);
    fence("fence (after 2nd C1)");

    /* end: nothing late or duplicated */
    msleep(QUIET_MS);
    if (me.rank != 0) {
        expect_none("C2 outside custom range (final)", C2);
        expect_none("C3 proc-local range (final)", C3);
    }
    if (me.rank >= 2) {
        size_t n;
        pthread_mutex_lock(&lock);
        n = count_calls('R', C1);
        pthread_mutex_unlock(&lock);
        check(n == 2, "C1 delivered once per notification", "default handler ran %lu times for 2 C1s",
              (unsigned long)n);
    }
    if (me.rank == 0) {
        struct timespec ts;
        size_t nb;
        deadline(&ts, WAIT_MS);
        pthread_mutex_lock(&lock);
        nb = count_calls('B', C1);
        while (b_released < (int)nb)
            if (pthread_cond_timedwait(&cond, &lock, &ts) == ETIMEDOUT) break;
        check(b_released == (int)nb, "B's results released",
              "B's op callback ran %d times for %lu B calls", b_released, (unsigned long)nb);
        pthread_mutex_unlock(&lock);
        /* nothing after the last phase's expected calls */
        expect_trace("no late handler calls", from, "B(C1),D(C1)");
    }

    /* collect pass/fail counts at rank 0 */
    {
        pmix_info_t info;
        bool t = true;
        int myfail = nfail, mypass = npass;
        put_int("ev.pass", mypass);
        put_int("ev.fail", myfail);
        rc = PMIx_Commit();
        check(rc == PMIX_SUCCESS, "commit results", "%s", PMIx_Error_string(rc));
        PMIX_INFO_CONSTRUCT(&info);
        PMIx_Info_load(&info, PMIX_COLLECT_DATA, &t, PMIX_BOOL);
        rc = PMIx_Fence(NULL, 0, &info, 1);
        PMIX_INFO_DESTRUCT(&info);
        check(rc == PMIX_SUCCESS, "fence (results)", "%s", PMIx_Error_string(rc));
    }
    if (me.rank == 0) {
        for (r = 1; r < nranks; r++) {
            bool ok = true;
            int p = get_int(r, "ev.pass", &ok);
            int f = get_int(r, "ev.fail", &ok);
            if (ok) {
                tot_pass += p;
                tot_fail += f;
            }
        }
    }
    rc = PMIx_Finalize(NULL, 0);
    check(rc == PMIX_SUCCESS, "finalize", "%s", PMIx_Error_string(rc));
    if (me.rank == 0) {
        tot_pass += npass;
        tot_fail += nfail;
        printf("client_events: %d passed, %d failed\n", tot_pass, tot_fail);
        fflush(stdout);
        return tot_fail == 0 ? 0 : 1;
    }
    return nfail == 0 ? 0 : 1;
}
