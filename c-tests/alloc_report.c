/*
 * alloc_report: what a launcher answers to allocation requests and session
 * control, as a rank sees it: one line per call, no judgement (the same
 * program under pmixrun and under other launchers, e.g. Open MPI 5's
 * mpirun, PRRTE; built against OpenPMIx 5.0.7's headers there).
 *
 *   <launcher> -n 1 ./alloc_report
 *
 * Lines ("<what>: <status name> (<status>)[ <key>=<value>...]"):
 *   new 1 cpu        PMIx_Allocation_request(PMIX_ALLOC_NEW, PMIX_ALLOC_NUM_CPUS 1)
 *   new 5 nodes      ... (PMIX_ALLOC_NEW, PMIX_ALLOC_NUM_NODES 5)
 *   extend           ... (PMIX_ALLOC_EXTEND, the id the first answer gave, or "none")
 *   query status     PMIx_Query_info(PMIX_QUERY_ALLOC_STATUS, qualifier that id)
 *   release          ... (PMIX_ALLOC_RELEASE, the same id)
 *   session signal 0 PMIx_Session_control(PMIX_SESSION_SIGNAL 0), its callback
 *   session preempt  PMIx_Session_control(PMIX_SESSION_PREEMPT), its callback
 * then "done". Each call has 20 s to answer ("<what>: no answer in 20 s").
 * Keys are printed with string, integer and status values only.
 */
#define _DEFAULT_SOURCE
#include <pmix.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* PMIx 5's PMIx_Session_control, for headers without it (4.2.2's) */
#ifndef PMIX_SESSION_SIGNAL
pmix_status_t PMIx_Session_control(uint32_t sessionID, const pmix_info_t directives[], size_t ndirs,
                                   pmix_info_cbfunc_t cbfunc, void *cbdata);
#endif

static char id[256] = "none";

struct answer {
    pthread_mutex_t m;
    pthread_cond_t c;
    bool done;
    pmix_status_t st;
    char text[2048];
};

static void show(char *out, size_t len, const pmix_info_t *info, size_t ninfo)
{
    size_t used = strlen(out);
    for (size_t i = 0; i < ninfo && used < len; i++) {
        const pmix_value_t *v = &info[i].value;
        int w = 0;
        if (v->type == PMIX_STRING) {
            w = snprintf(out + used, len - used, " %s=%s", info[i].key, v->data.string ? v->data.string : "(null)");
            if (PMIX_CHECK_KEY(&info[i], PMIX_ALLOC_ID) && v->data.string) snprintf(id, sizeof(id), "%s", v->data.string);
        } else if (v->type == PMIX_UINT64) {
            w = snprintf(out + used, len - used, " %s=%llu", info[i].key, (unsigned long long)v->data.uint64);
        } else if (v->type == PMIX_UINT32) {
            w = snprintf(out + used, len - used, " %s=%u", info[i].key, (unsigned)v->data.uint32);
        } else if (v->type == PMIX_STATUS) {
            w = snprintf(out + used, len - used, " %s=%s", info[i].key, PMIx_Error_string(v->data.status));
        } else {
            w = snprintf(out + used, len - used, " %s=(type %d)", info[i].key, (int)v->type);
        }
        if (w > 0) used += (size_t)w;
    }
}

static void cb(pmix_status_t st, pmix_info_t *info, size_t ninfo, void *cbdata, pmix_release_cbfunc_t release,
               void *rdata)
{
    struct answer *a = (struct answer *)cbdata;
    pthread_mutex_lock(&a->m);
    a->st = st;
    show(a->text, sizeof(a->text), info, ninfo);
    a->done = true;
    pthread_cond_signal(&a->c);
    pthread_mutex_unlock(&a->m);
    if (release) release(rdata);
}

static void start(struct answer *a)
{
    memset(a, 0, sizeof(*a));
    pthread_mutex_init(&a->m, NULL);
    pthread_cond_init(&a->c, NULL);
}

/* waits for the callback (20 s) and prints the line */
static void finish(const char *what, struct answer *a, pmix_status_t rc)
{
    struct timespec until;
    if (rc != PMIX_SUCCESS) {
        printf("%s: %s (%d) at the call\n", what, PMIx_Error_string(rc), rc);
        fflush(stdout);
        return;
    }
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 20;
    pthread_mutex_lock(&a->m);
    while (!a->done) {
        if (pthread_cond_timedwait(&a->c, &a->m, &until) != 0) break;
    }
    if (a->done) printf("%s: %s (%d)%s\n", what, PMIx_Error_string(a->st), a->st, a->text);
    else printf("%s: no answer in 20 s\n", what);
    fflush(stdout);
    pthread_mutex_unlock(&a->m);
}

static void alloc(const char *what, pmix_alloc_directive_t d, const char *key, uint64_t n, bool with_id)
{
    pmix_info_t info[2];
    size_t ni = 0;
    struct answer a;
    start(&a);
    if (with_id) PMIX_INFO_LOAD(&info[ni++], PMIX_ALLOC_ID, id, PMIX_STRING);
    if (key) PMIX_INFO_LOAD(&info[ni++], key, &n, PMIX_UINT64);
    finish(what, &a, PMIx_Allocation_request_nb(d, info, ni, cb, &a));
    for (size_t i = 0; i < ni; i++) PMIX_INFO_DESTRUCT(&info[i]);
}

static void session(const char *what, const char *key, int sig)
{
    pmix_info_t d;
    bool yes = true;
    struct answer a;
    start(&a);
    if (strcmp(key, "pmix.ssn.sig") == 0) PMIX_INFO_LOAD(&d, key, &sig, PMIX_INT);
    else PMIX_INFO_LOAD(&d, key, &yes, PMIX_BOOL);
    finish(what, &a, PMIx_Session_control(0, &d, 1, cb, &a));
    PMIX_INFO_DESTRUCT(&d);
}

int main(void)
{
    pmix_proc_t me;
    pmix_query_t q;
    struct answer a;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("init: %s (%d)\n", PMIx_Error_string(rc), rc);
        return 1;
    }
    printf("library: %s\n", PMIx_Get_version());
    alloc("new 1 cpu", PMIX_ALLOC_NEW, PMIX_ALLOC_NUM_CPUS, 1, false);
    alloc("new 5 nodes", PMIX_ALLOC_NEW, PMIX_ALLOC_NUM_NODES, 5, false);
    alloc("extend", PMIX_ALLOC_EXTEND, PMIX_ALLOC_NUM_CPUS, 1, true);
    {
        char held[256];
        snprintf(held, sizeof(held), "%s", id);
        start(&a);
        PMIX_QUERY_CONSTRUCT(&q);
        q.keys = (char **)calloc(2, sizeof(char *));
        q.keys[0] = strdup(PMIX_QUERY_ALLOC_STATUS);
        PMIX_INFO_CREATE(q.qualifiers, 1);
        q.nqual = 1;
        PMIX_INFO_LOAD(&q.qualifiers[0], PMIX_ALLOC_ID, held, PMIX_STRING);
        finish("query status", &a, PMIx_Query_info_nb(&q, 1, cb, &a));
        PMIX_QUERY_DESTRUCT(&q);
    }
    alloc("release", PMIX_ALLOC_RELEASE, NULL, 0, true);
    session("session signal 0", "pmix.ssn.sig", 0);
    session("session preempt", "pmix.ssn.preempt", 0);
    printf("done\n");
    fflush(stdout);
    rc = PMIx_Finalize(NULL, 0);
    return rc == PMIX_SUCCESS ? 0 : 1;
}
