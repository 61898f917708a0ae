/*
 * Helpers shared by the C test programs that run as ranks of a job
 * (jctl_signals, monitor_hb, monitor_file, cleanup_rules, jctl_preempt).
 *
 * Include after <pmix.h> and define _DEFAULT_SOURCE first. The program owns
 * `me` (set by PMIx_Init); check() counts into npass / nfail and prints
 * "rank R: <what>: FAIL <detail>" for a failed check.
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

static pmix_proc_t me;
static int npass, nfail;

static inline void check(bool ok, const char *what, const char *fmt, ...)
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
    struct testutil_regwait *w = cbdata;
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
    struct testutil_regwait *w = calloc(1, sizeof(*w));
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

#endif
