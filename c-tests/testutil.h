/*
 * testutil.h: the one check library of the C test programs in c-tests, so
 * that they all count, print and end the same way.
 *
 * Include after the program's feature macros and PMIx headers (this one
 * brings <pmix.h> for PMIx_Error_string). Two parts:
 *
 * Checks (any program; C99, gnu99 or C++):
 *   check(ok, what, fmt, ...)        a check with a printf detail
 *   check_that(ok, what)             a check without detail
 *   fail(what, fmt, ...)             a check that failed
 *   check_status(what, got, want)    a status; detail "got S want S" if not
 *   check_status2(what, got, w1, w2) a status that may be either of two
 *   check_eq(what, got, want)        an integer; detail "= V[ (want W)]"
 *   check_streq(what, got, want)     a string (NULL allowed), the same way
 *   check_gap(ok, gap, what, fmt...) as check(), but a failure while `gap`
 *                                    is a known gap: counted in ngap, printed
 *                                    with tu_gap_word, not a failure
 *   tu_summary(name)                 prints "[<name>: ]N passed, M failed",
 *                                    returns the exit status (1 if M > 0)
 *   die(fmt, ...)                    a fatal error: one line, then
 *                                    tu_before_exit(rc, line), exit(tu_die_status)
 *   die_status(what, rc)             die() with "<what>: <status>"
 *   failure(fmt, ...)                die()'s line, counted, but returns 1
 *   require(ok, fmt, ...)            die() with the message unless ok
 *   require_ok(what, rc)             die_status() unless rc is PMIX_SUCCESS
 * Every check counts into npass / nfail (under a lock: checks also run in
 * the library's callback threads) and prints one line, written at once
 * (ranks of a job share a pipe) and flushed, on tu_out (NULL: stdout):
 *   "<prefix><what>: FAIL[ <detail>]"   a failed check
 *   "<prefix><what>: ok[ <detail>]"     a passed one, only when tu_every
 * The drivers parse these lines, so a program keeps its own look through
 * the settings below rather than its own helpers. With tu_verdict_first a
 * line is "<prefix><word><what>[<tu_detail_sep><detail>]" (the word carries
 * its own separator, e.g. "FAIL: "; no tu_detail_sep after an empty what);
 * with tu_verdict_last it is "<prefix><what>: <detail> <word>".
 * With tu_collect set, failures are not printed but joined into that buffer
 * ("[<what>: ]<detail>; ...") for a program that reports them in one line.
 * <prefix> is tu_set_prefix()'s text; by default "rank R: " (me.rank) in
 * a job, nothing with TESTUTIL_CHECKS_ONLY. die() writes the same prefix.
 *
 * Job helpers (ranks of a job: need POSIX, so _DEFAULT_SOURCE, and <pmix.h>),
 * left out when TESTUTIL_CHECKS_ONLY is defined: the program owns `me` (set
 * by PMIx_Init); msleep, now_ms, register_handler, init_job_of, fence,
 * put_str, get_str.
 */
#ifndef RPMIX_TESTUTIL_H
#define RPMIX_TESTUTIL_H

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix.h>

#if defined(__GNUC__)
#define TU_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define TU_NORETURN __attribute__((noreturn))
#else
#define TU_PRINTF(f, a)
#define TU_NORETURN
#endif

#ifndef TESTUTIL_CHECKS_ONLY
static pmix_proc_t me;
#endif

/* ---- settings (a program sets them once, before its first check) ---- */
static FILE *tu_out;                    /* check lines; NULL: stdout */
static FILE *tu_die_out;                /* die() lines; NULL: stderr */
static int tu_die_status = 1;           /* die()'s exit status */
/* called by die() with its line and status (PMIX_ERROR for die()), e.g. for PMIx_Abort */
static void (*tu_before_exit)(pmix_status_t rc, const char *line);
static bool tu_every;                   /* print passed checks too */
static bool tu_ok_detail = true;        /* a passed check's line shows the detail */
static int tu_max_fail_lines;           /* print only the first N failures; 0: all */
static bool tu_verdict_first;           /* "<prefix><word><what>..." */
static bool tu_verdict_last;            /* "<prefix><what>: <detail> <word>" */
static const char *tu_ok_word = "ok";
static const char *tu_fail_word = "FAIL";
static const char *tu_gap_word = "NOT PROVIDED";
static const char *tu_detail_sep = " ";
static char *tu_collect;               /* failures go here, "; "-joined, instead of lines */
static size_t tu_collect_size;
static char tu_prefix[160];
static bool tu_prefix_set;

/* ---- state ---- */
static int npass, nfail, ngap;
static pthread_mutex_t tu_lock = PTHREAD_MUTEX_INITIALIZER;

static inline void tu_set_prefix(const char *fmt, ...) TU_PRINTF(1, 2);
static inline void tu_set_prefix(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tu_prefix, sizeof(tu_prefix), fmt, ap);
    va_end(ap);
    tu_prefix_set = true;
}

/* The prefix into out[n]. */
static inline void tu_get_prefix(char *out, size_t n)
{
    if (tu_prefix_set) {
        snprintf(out, n, "%s", tu_prefix);
        return;
    }
#ifndef TESTUTIL_CHECKS_ONLY
    snprintf(out, n, "rank %u: ", (unsigned)me.rank);
#else
    out[0] = '\0';
#endif
}

/* One line (newline added) on f, in one write. */
static inline void tu_write_line(FILE *f, const char *line)
{
    fprintf(f, "%s\n", line);
    fflush(f);
}

/* outcome: 1 passed, 0 failed, -1 a known gap. */
static inline void tu_report(int outcome, const char *what, const char *detail)
{
    char pre[sizeof(tu_prefix)];
    char line[2048];
    const char *word = outcome > 0 ? tu_ok_word : outcome < 0 ? tu_gap_word : tu_fail_word;
    bool show;
    pthread_mutex_lock(&tu_lock);
    if (outcome > 0) npass++;
    else if (outcome < 0) ngap++;
    else nfail++;
    show = outcome > 0 ? tu_every : outcome < 0 || tu_max_fail_lines <= 0 || nfail <= tu_max_fail_lines;
    if (outcome == 0 && tu_collect) {
        size_t n = strlen(tu_collect);
        if (detail == NULL) detail = "";
        snprintf(tu_collect + n, tu_collect_size - n, "%s%s%s%s", n ? "; " : "", what, what[0] ? ": " : "",
                 detail);
        show = false;
    }
    if (show) {
        if (outcome > 0 && !tu_ok_detail) detail = "";
        if (detail == NULL) detail = "";
        tu_get_prefix(pre, sizeof(pre));
        if (tu_verdict_last)
            snprintf(line, sizeof(line), "%s%s: %s %s", pre, what, detail, word);
        else if (tu_verdict_first)
            snprintf(line, sizeof(line), "%s%s%s%s%s", pre, word, what, what[0] && detail[0] ? tu_detail_sep : "",
                     detail);
        else
            snprintf(line, sizeof(line), "%s%s: %s%s%s", pre, what, word, detail[0] ? " " : "", detail);
        tu_write_line(tu_out ? tu_out : stdout, line);
    }
    pthread_mutex_unlock(&tu_lock);
}

/* outcome as tu_report's; the detail is formatted only when printed */
static inline void tu_vcheck(int outcome, const char *what, const char *fmt, va_list ap)
{
    char buf[1024] = "";
    if (outcome <= 0 || (tu_every && tu_ok_detail)) vsnprintf(buf, sizeof(buf), fmt, ap);
    tu_report(outcome, what, buf);
}

static inline bool check(bool ok, const char *what, const char *fmt, ...) TU_PRINTF(3, 4);
static inline bool check(bool ok, const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tu_vcheck(ok ? 1 : 0, what, fmt, ap);
    va_end(ap);
    return ok;
}

/* A check that failed. */
static inline void fail(const char *what, const char *fmt, ...) TU_PRINTF(2, 3);
static inline void fail(const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tu_vcheck(0, what, fmt, ap);
    va_end(ap);
}

static inline bool check_that(bool ok, const char *what)
{
    tu_report(ok ? 1 : 0, what, "");
    return ok;
}

static inline bool check_gap(bool ok, bool gap, const char *what, const char *fmt, ...) TU_PRINTF(4, 5);
static inline bool check_gap(bool ok, bool gap, const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tu_vcheck(ok ? 1 : gap ? -1 : 0, what, fmt, ap);
    va_end(ap);
    return ok;
}

/* "<number> (<name>)" of a status, into out[n]. */
static inline const char *tu_status_text(char *out, size_t n, pmix_status_t st)
{
    const char *s = PMIx_Error_string(st);
    snprintf(out, n, "%d (%s)", (int)st, s ? s : "?");
    return out;
}

/* got must be w1 or w2 (the same code twice for one). */
static inline bool check_status2(const char *what, pmix_status_t got, pmix_status_t w1, pmix_status_t w2)
{
    char g[128], a[128], b[128], detail[400];
    bool ok = got == w1 || got == w2;
    if (ok) {
        tu_report(1, what, "");
        return true;
    }
    tu_status_text(g, sizeof(g), got);
    tu_status_text(a, sizeof(a), w1);
    tu_status_text(b, sizeof(b), w2);
    if (w1 == w2) snprintf(detail, sizeof(detail), "got %s want %s", g, a);
    else snprintf(detail, sizeof(detail), "got %s want %s or %s", g, a, b);
    tu_report(0, what, detail);
    return false;
}

static inline bool check_status(const char *what, pmix_status_t got, pmix_status_t want)
{
    return check_status2(what, got, want, want);
}

static inline bool check_eq(const char *what, long long got, long long want)
{
    char detail[128];
    if (got == want) snprintf(detail, sizeof(detail), "= %lld", got);
    else snprintf(detail, sizeof(detail), "= %lld (want %lld)", got, want);
    tu_report(got == want ? 1 : 0, what, detail);
    return got == want;
}

static inline bool check_streq(const char *what, const char *got, const char *want)
{
    char detail[1024];
    bool ok = (got == NULL || want == NULL) ? got == want : strcmp(got, want) == 0;
    if (ok) snprintf(detail, sizeof(detail), "= \"%s\"", got ? got : "(null)");
    else snprintf(detail, sizeof(detail), "= \"%s\" (want \"%s\")", got ? got : "(null)", want ? want : "(null)");
    tu_report(ok ? 1 : 0, what, detail);
    return ok;
}

/* "[<name>: ]N passed, M failed"; the exit status. */
static inline int tu_summary(const char *name)
{
    int p, f;
    char line[256];
    pthread_mutex_lock(&tu_lock);
    p = npass;
    f = nfail;
    pthread_mutex_unlock(&tu_lock);
    if (name) snprintf(line, sizeof(line), "%s: %d passed, %d failed", name, p, f);
    else snprintf(line, sizeof(line), "%d passed, %d failed", p, f);
    tu_write_line(tu_out ? tu_out : stdout, line);
    return f ? 1 : 0;
}

/* A fatal error: "<prefix><msg>" on tu_die_out, tu_before_exit(rc, line),
 * exit(tu_die_status). */
static inline void tu_die_line(pmix_status_t rc, const char *msg) TU_NORETURN;
static inline void tu_die_line(pmix_status_t rc, const char *msg)
{
    char pre[sizeof(tu_prefix)], line[sizeof(pre) + 1024];
    tu_get_prefix(pre, sizeof(pre));
    snprintf(line, sizeof(line), "%s%s", pre, msg);
    tu_write_line(tu_die_out ? tu_die_out : stderr, line);
    if (tu_before_exit) tu_before_exit(rc, line);
    exit(tu_die_status);
}

/* die()'s line without the exit, for a caller that cleans up first
 * ("if (...) return failure(...);"): counts a failure, returns 1. */
static inline int failure(const char *fmt, ...) TU_PRINTF(1, 2);
static inline int failure(const char *fmt, ...)
{
    char pre[sizeof(tu_prefix)], msg[1024], line[sizeof(pre) + sizeof(msg)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    tu_get_prefix(pre, sizeof(pre));
    snprintf(line, sizeof(line), "%s%s", pre, msg);
    pthread_mutex_lock(&tu_lock);
    nfail++;
    pthread_mutex_unlock(&tu_lock);
    tu_write_line(tu_die_out ? tu_die_out : stderr, line);
    return 1;
}

static inline void die(const char *fmt, ...) TU_PRINTF(1, 2) TU_NORETURN;
static inline void die(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    tu_die_line(PMIX_ERROR, msg);
}

/* die() with "<what>: <status>", passing rc on to tu_before_exit */
static inline void die_status(const char *what, pmix_status_t rc) TU_NORETURN;
static inline void die_status(const char *what, pmix_status_t rc)
{
    char msg[1024];
    snprintf(msg, sizeof(msg), "%s: %s", what, PMIx_Error_string(rc));
    tu_die_line(rc, msg);
}

/* A check that ends the program when it fails: die() with the message. */
static inline void require(bool ok, const char *fmt, ...) TU_PRINTF(2, 3);
static inline void require(bool ok, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    if (ok) {
        pthread_mutex_lock(&tu_lock);
        npass++;
        pthread_mutex_unlock(&tu_lock);
        return;
    }
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    tu_die_line(PMIX_ERROR, msg);
}

/* A step that must succeed: die_status() unless rc is PMIX_SUCCESS. */
static inline void require_ok(const char *what, pmix_status_t rc)
{
    if (rc != PMIX_SUCCESS) die_status(what, rc);
}

#ifndef TESTUTIL_CHECKS_ONLY
static inline void msleep(long ms)
{
    struct timespec ts;
    if (ms <= 0) return;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

static inline long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct testutil_regwait {
    pthread_mutex_t m;
    bool done;
    pmix_status_t st;
};

static inline void testutil_reg_cb(pmix_status_t status, size_t ref, void *cbdata)
{
    struct testutil_regwait *w = (struct testutil_regwait *)cbdata;
    (void)ref;
    pthread_mutex_lock(&w->m);
    w->st = status;
    w->done = true;
    pthread_mutex_unlock(&w->m);
}

/* Register `fn` for `codes` and wait (5 s at most) for the registration
 * callback. The wait record is on the heap and left to a callback that comes
 * after we gave up (freed otherwise). */
static inline pmix_status_t register_handler(pmix_status_t *codes, size_t n, pmix_notification_fn_t fn)
{
    struct testutil_regwait *w = (struct testutil_regwait *)calloc(1, sizeof(*w));
    long end = now_ms() + 5000;
    bool done = false;
    pmix_status_t rc;
    if (w == NULL) return PMIX_ERR_NOMEM;
    pthread_mutex_init(&w->m, NULL);
    rc = PMIx_Register_event_handler(codes, n, NULL, 0, fn, testutil_reg_cb, w);
    if (rc != PMIX_SUCCESS) {
        free(w);
        return rc;
    }
    while (now_ms() < end) {
        pthread_mutex_lock(&w->m);
        done = w->done;
        rc = w->st;
        pthread_mutex_unlock(&w->m);
        if (done) break;
        msleep(10);
    }
    if (!done) return PMIX_ERR_TIMEOUT;
    free(w);
    return rc;
}

/* PMIx_Init, then require a job of exactly `want` ranks. Prints why not
 * (as "<prog>: ...") and returns false; the caller then exits 1. */
static inline bool init_job_of(const char *prog, uint32_t want)
{
    pmix_value_t *val = NULL;
    pmix_proc_t wild;
    uint32_t size = 0;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("%s: PMIx_Init: %s\n", prog, PMIx_Error_string(rc));
        return false;
    }
    PMIX_PROC_LOAD(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val) == PMIX_SUCCESS && val) {
        size = val->data.uint32;
        PMIX_VALUE_RELEASE(val);
    }
    if (size != want) {
        printf("%s: needs exactly %u ranks (job size %u)\n", prog, (unsigned)want, (unsigned)size);
        PMIx_Finalize(NULL, 0);
        return false;
    }
    return true;
}

/* A fence of the whole job that collects data. */
static inline void fence(const char *what)
{
    pmix_info_t info;
    bool collect = true;
    pmix_status_t rc;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    check(rc == PMIX_SUCCESS, what, "PMIx_Fence: %s", PMIx_Error_string(rc));
}

/* Put a string for the other ranks, and commit it. */
static inline void put_str(const char *key, const char *s)
{
    pmix_value_t v;
    pmix_status_t rc;
    v.type = PMIX_STRING;
    v.data.string = (char *)s;
    rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    check(rc == PMIX_SUCCESS, "put", "PMIx_Put(%s): %s", key, PMIx_Error_string(rc));
    rc = PMIx_Commit();
    check(rc == PMIX_SUCCESS, "commit", "%s", PMIx_Error_string(rc));
}

/* The string rank `r` of our namespace put under `key`. */
static inline bool get_str(pmix_rank_t r, const char *key, char *out, size_t n)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    pmix_status_t rc;
    PMIX_PROC_LOAD(&p, me.nspace, r);
    rc = PMIx_Get(&p, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v == NULL || v->type != PMIX_STRING || v->data.string == NULL) {
        check(false, "get", "PMIx_Get(rank %u, %s): %s", (unsigned)r, key, PMIx_Error_string(rc));
        if (v) PMIX_VALUE_RELEASE(v);
        return false;
    }
    snprintf(out, n, "%s", v->data.string);
    PMIX_VALUE_RELEASE(v);
    return true;
}

#endif /* TESTUTIL_CHECKS_ONLY */

#endif
