/*
 * client_alloc: PMIx_Allocation_request of this node's CPUs, as a rank
 * under pmixrun (whose host keeps a ledger of them).
 *
 *   pmixrun -n 1 ./client_alloc
 *
 * Asks for 1 CPU (new), 1 more (extend), gives 1 back, then all; then for
 * more CPUs than the machine has; then a new allocation named by its
 * PMIX_ALLOC_ID, and the same name again. Prints one line per request
 * ("<what>: <status> id <id> cpus <n>") and exits 0 when every answer is
 * the expected one (a "FAIL" line says which is not). Besides the answers:
 * each request is followed by PMIX_NOTIFY_ALLOC_COMPLETE (the handler is
 * registered first) with the allocation's PMIX_ALLOC_ID and the status
 * (rpmix.alloc.status); a refusal carries its reason (rpmix.reason) in the
 * answer; PMIX_QUERY_ALLOC_STATUS reports an id's last outcome, and
 * NOT_FOUND for an unknown one; a refused PMIx_Session_control carries its
 * reason too.
 */
#define _DEFAULT_SOURCE
#include <pmix.h>

#include "testutil.h"

static char id[256] = "";

/* PMIx 5's PMIx_Session_control (rpmix's headers are 4.2.2's) */
pmix_status_t PMIx_Session_control(uint32_t sessionID, const pmix_info_t directives[], size_t ndirs,
                                   pmix_info_cbfunc_t cbfunc, void *cbdata);

/* ---- PMIX_NOTIFY_ALLOC_COMPLETE as the handler saw it */
static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static int nevents;
static char ev_id[256];
static pmix_status_t ev_status = PMIX_ERR_NOT_FOUND;

static void on_alloc_complete(size_t ref, pmix_status_t code, const pmix_proc_t *source, pmix_info_t info[],
                              size_t ninfo, pmix_info_t *results, size_t nresults,
                              pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)ref;
    (void)code;
    (void)source;
    (void)results;
    (void)nresults;
    pthread_mutex_lock(&ev_lock);
    ev_id[0] = '\0';
    ev_status = PMIX_ERR_NOT_FOUND;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_ALLOC_ID) && info[i].value.type == PMIX_STRING) {
            snprintf(ev_id, sizeof(ev_id), "%s", info[i].value.data.string);
        } else if (PMIX_CHECK_KEY(&info[i], "rpmix.alloc.status") && info[i].value.type == PMIX_STATUS) {
            ev_status = info[i].value.data.status;
        }
    }
    nevents++;
    pthread_mutex_unlock(&ev_lock);
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* waits (5 s at most) for event number n; checks its id and status */
static void check_event(const char *what, int n, const char *want_id, pmix_status_t want)
{
    long end = now_ms() + 5000;
    char got_id[256];
    pmix_status_t got;
    int seen;
    for (;;) {
        pthread_mutex_lock(&ev_lock);
        seen = nevents;
        got = ev_status;
        snprintf(got_id, sizeof(got_id), "%s", ev_id);
        pthread_mutex_unlock(&ev_lock);
        if (seen >= n || now_ms() > end) break;
        msleep(10);
    }
    check(seen == n && got == want && (want_id == NULL || strcmp(got_id, want_id) == 0), what,
          "events %d (want %d), id %s (want %s), status %s (want %s)", seen, n, got_id,
          want_id ? want_id : "any", PMIx_Error_string(got), PMIx_Error_string(want));
}

/* the last answer's rpmix.reason ("" when none) */
static char reason[512];

/* PMIX_QUERY_ALLOC_STATUS of `which` (PMIX_ALLOC_ID): its status, the string in `text` */
static pmix_status_t alloc_status(const char *which, char *text, size_t len)
{
    pmix_query_t q;
    pmix_info_t *res = NULL;
    size_t n = 0;
    pmix_status_t rc;
    PMIX_QUERY_CONSTRUCT(&q);
    q.keys = (char **)calloc(2, sizeof(char *));
    q.keys[0] = strdup(PMIX_QUERY_ALLOC_STATUS);
    PMIX_INFO_CREATE(q.qualifiers, 1);
    q.nqual = 1;
    PMIX_INFO_LOAD(&q.qualifiers[0], PMIX_ALLOC_ID, which, PMIX_STRING);
    rc = PMIx_Query_info(&q, 1, &res, &n);
    text[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (PMIX_CHECK_KEY(&res[i], PMIX_QUERY_ALLOC_STATUS) && res[i].value.type == PMIX_STRING) {
            snprintf(text, len, "%s", res[i].value.data.string);
        }
    }
    printf("status of %s: %s \"%s\"\n", which, PMIx_Error_string(rc), text);
    fflush(stdout);
    if (res) PMIX_INFO_FREE(res, n);
    PMIX_QUERY_DESTRUCT(&q);
    return rc;
}

/* ---- PMIx_Session_control's answer, through its callback */
struct answer {
    pthread_mutex_t m;
    bool done;
    pmix_status_t st;
    char why[512];
};

static void session_cb(pmix_status_t st, pmix_info_t *info, size_t ninfo, void *cbdata,
                       pmix_release_cbfunc_t release, void *rdata)
{
    struct answer *a = (struct answer *)cbdata;
    pthread_mutex_lock(&a->m);
    a->st = st;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], "rpmix.reason") && info[i].value.type == PMIX_STRING) {
            snprintf(a->why, sizeof(a->why), "%s", info[i].value.data.string);
        }
    }
    a->done = true;
    pthread_mutex_unlock(&a->m);
    if (release) release(rdata);
}

/* one request: its status, and the allocation's id and CPUs in the answer */
static pmix_status_t ask(const char *what, pmix_alloc_directive_t d, uint64_t cpus, bool with_id, uint64_t *held)
{
    pmix_info_t info[2], *res = NULL;
    size_t n = 0, ni = 0;
    pmix_status_t rc;
    if (with_id) PMIX_INFO_LOAD(&info[ni++], PMIX_ALLOC_ID, id, PMIX_STRING);
    if (cpus) PMIX_INFO_LOAD(&info[ni++], PMIX_ALLOC_NUM_CPUS, &cpus, PMIX_UINT64);
    rc = PMIx_Allocation_request(d, info, ni, &res, &n);
    *held = (uint64_t)-1;
    reason[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (PMIX_CHECK_KEY(&res[i], "rpmix.reason") && res[i].value.type == PMIX_STRING) {
            snprintf(reason, sizeof(reason), "%s", res[i].value.data.string);
        } else if (PMIX_CHECK_KEY(&res[i], PMIX_ALLOC_ID) && res[i].value.type == PMIX_STRING) {
            snprintf(id, sizeof(id), "%s", res[i].value.data.string);
        } else if (PMIX_CHECK_KEY(&res[i], PMIX_ALLOC_NUM_CPUS) && res[i].value.type == PMIX_UINT64) {
            *held = res[i].value.data.uint64;
        }
    }
    printf("%s: %s id %s cpus %lld%s%s\n", what, PMIx_Error_string(rc), id[0] ? id : "-",
           *held == (uint64_t)-1 ? -1LL : (long long)*held, reason[0] ? " reason " : "", reason);
    fflush(stdout);
    if (res) PMIX_INFO_FREE(res, n);
    for (size_t i = 0; i < ni; i++) PMIX_INFO_DESTRUCT(&info[i]);
    return rc;
}

int main(void)
{
    uint64_t held;
    pmix_status_t rc, code = PMIX_NOTIFY_ALLOC_COMPLETE;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int nev = 0;
    char first[256], text[512];
    alarm(30);
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("client_alloc: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    rc = register_handler(&code, 1, on_alloc_complete);
    check(rc == PMIX_SUCCESS, "register PMIX_NOTIFY_ALLOC_COMPLETE", "%s", PMIx_Error_string(rc));
    rc = ask("new 1", PMIX_ALLOC_NEW, 1, false, &held);
    check(rc == PMIX_SUCCESS && held == 1 && id[0], "new", "%s", PMIx_Error_string(rc));
    check_event("new: event", ++nev, id, PMIX_SUCCESS);
    snprintf(first, sizeof(first), "%s", id);
    rc = alloc_status(first, text, sizeof(text));
    check(rc == PMIX_SUCCESS && strncmp(text, "granted", 7) == 0, "new: status", "%s \"%s\"", PMIx_Error_string(rc), text);
    rc = ask("more than the machine", PMIX_ALLOC_NEW, (uint64_t)ncpu + 1, false, &held);
    check(rc == PMIX_ERR_OUT_OF_RESOURCE, "too many", "%s", PMIx_Error_string(rc));
    check(reason[0] != '\0', "too many: rpmix.reason", "none");
    check_event("too many: event", ++nev, NULL, PMIX_ERR_OUT_OF_RESOURCE);
    if (ncpu >= 2) {
        rc = ask("extend 1", PMIX_ALLOC_EXTEND, 1, true, &held);
        check(rc == PMIX_SUCCESS && held == 2, "extend", "%s", PMIx_Error_string(rc));
        check_event("extend: event", ++nev, id, PMIX_SUCCESS);
        rc = ask("release 1", PMIX_ALLOC_RELEASE, 1, true, &held);
        check(rc == PMIX_SUCCESS && held == 1, "release 1", "%s", PMIx_Error_string(rc));
        check_event("release 1: event", ++nev, id, PMIX_SUCCESS);
    }
    rc = ask("release all", PMIX_ALLOC_RELEASE, 0, true, &held);
    check(rc == PMIX_SUCCESS && held == 0, "release all", "%s", PMIx_Error_string(rc));
    check_event("release all: event", ++nev, id, PMIX_SUCCESS);
    rc = alloc_status(first, text, sizeof(text));
    check(rc == PMIX_SUCCESS && strcmp(text, "released") == 0, "released: status", "%s \"%s\"", PMIx_Error_string(rc), text);
    rc = ask("extend released", PMIX_ALLOC_EXTEND, 1, true, &held);
    check(rc == PMIX_ERR_NOT_FOUND, "extend released", "%s", PMIx_Error_string(rc));
    check(reason[0] != '\0', "extend released: rpmix.reason", "none");
    check_event("extend released: event", ++nev, id, PMIX_ERR_NOT_FOUND);
    rc = alloc_status(first, text, sizeof(text));
    check(rc == PMIX_SUCCESS && strncmp(text, "refused: ", 9) == 0, "refused: status", "%s \"%s\"", PMIx_Error_string(rc), text);
    rc = alloc_status("no-such-allocation", text, sizeof(text));
    check(rc == PMIX_ERR_NOT_FOUND, "unknown id: status", "%s", PMIx_Error_string(rc));

    /* a new allocation the requester names (PMIX_ALLOC_ID, as in OpenPMIx's examples/alloc.c) */
    snprintf(id, sizeof(id), "MYALLOCATION");
    rc = ask("new named", PMIX_ALLOC_NEW, 1, true, &held);
    check(rc == PMIX_SUCCESS && held == 1 && strcmp(id, "MYALLOCATION") == 0, "new named", "%s id %s", PMIx_Error_string(rc), id);
    check_event("new named: event", ++nev, "MYALLOCATION", PMIX_SUCCESS);
    rc = ask("new named again", PMIX_ALLOC_NEW, 1, true, &held);
    check(rc == PMIX_ERR_EXISTS && reason[0], "new named again", "%s", PMIx_Error_string(rc));
    check_event("new named again: event", ++nev, "MYALLOCATION", PMIX_ERR_EXISTS);
    rc = ask("release named", PMIX_ALLOC_RELEASE, 0, true, &held);
    check(rc == PMIX_SUCCESS && held == 0, "release named", "%s", PMIx_Error_string(rc));
    check_event("release named: event", ++nev, "MYALLOCATION", PMIX_SUCCESS);

    /* a session-control directive pmixrun does not carry out: refused, with why */
    {
        struct answer a;
        pmix_info_t d;
        bool yes = true;
        long end = now_ms() + 5000;
        memset(&a, 0, sizeof(a));
        pthread_mutex_init(&a.m, NULL);
        PMIX_INFO_LOAD(&d, "pmix.ssn.preempt", &yes, PMIX_BOOL);
        rc = PMIx_Session_control(0, &d, 1, session_cb, &a);
        check(rc == PMIX_SUCCESS, "session preempt: call", "%s", PMIx_Error_string(rc));
        for (;;) {
            bool done;
            pthread_mutex_lock(&a.m);
            done = a.done;
            pthread_mutex_unlock(&a.m);
            if (done || now_ms() > end) break;
            msleep(10);
        }
        printf("session preempt: %s reason %s\n", PMIx_Error_string(a.st), a.why[0] ? a.why : "-");
        check(a.done && a.st == PMIX_ERR_NOT_SUPPORTED && a.why[0], "session preempt", "%s reason %s",
              PMIx_Error_string(a.st), a.why);
        PMIX_INFO_DESTRUCT(&d);
    }
    rc = PMIx_Finalize(NULL, 0);
    check(rc == PMIX_SUCCESS, "finalize", "%s", PMIx_Error_string(rc));
    return tu_summary("client_alloc");
}
