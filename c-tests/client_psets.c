/*
 * client_psets: process sets as a client rank sees them.
 *
 *   pmixrun -n 2 --pset even ./client_psets : -n 2 --pset odd ./client_psets
 *   ... ./client_psets wait     (then, from outside: pmixctl pset define dyn
 *                                0,3; pmixctl pset delete dyn)
 *
 * Every rank prints (one line each, "rank R: ..."):
 *   own <name>              its PMIX_PSET_NAME (PMIx_Get of itself), or -
 *   psets <n> <names>       PMIX_QUERY_NUM_PSETS and PMIX_QUERY_PSET_NAMES
 *                           (with PMIX_QUERY_REFRESH_CACHE, as Open MPI asks)
 *   members <name> <ranks>  PMIX_QUERY_PSET_MEMBERSHIP of each set
 * With "wait": registers for PMIX_PROCESS_SET_DEFINE / _DELETE, prints
 * "rank R: ready", then waits (20 s at most) for the definition of "dyn":
 *   defined dyn <ranks>     the event's PMIX_PSET_NAME and PMIX_PSET_MEMBERS
 *   in <names>              PMIx_Get of PMIX_PSET_NAMES for itself (or -)
 * then the queries again and "listed" (the set may be deleted from then on),
 * then its deletion ("deleted dyn") and the queries again. Exit 0 unless a call failed (a "FAIL" line says which).
 * With "host" (under rm_simple -P, whose host defines and deletes "dyn"
 * with PMIx_server_define_process_set / _delete_process_set): as "wait",
 * and the rank tells the host where it is by publishing
 * "psets.ready.<rank>" when ready and "psets.listed.<rank>" when listed.
 */
#define _DEFAULT_SOURCE
#include <pmix.h>

#include "testutil.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static char defined[256], deleted[256], defined_members[1024];

/* ranks of a proc array, comma-separated, into buf */
static void ranks_of(const pmix_proc_t *p, size_t n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++) {
        used += (size_t)snprintf(buf + used, len - used, "%s%u", i ? "," : "", (unsigned)p[i].rank);
    }
}

static void on_pset(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[], size_t ninfo,
                    pmix_info_t results[], size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    const char *name = NULL;
    const pmix_data_array_t *mems = NULL;
    (void)id; (void)source; (void)results; (void)nresults;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_PSET_NAME) && info[i].value.type == PMIX_STRING) {
            name = info[i].value.data.string;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_PSET_MEMBERS) && info[i].value.type == PMIX_DATA_ARRAY) {
            mems = info[i].value.data.darray;
        }
    }
    pthread_mutex_lock(&lock);
    if (name != NULL && status == PMIX_PROCESS_SET_DEFINE) {
        snprintf(defined, sizeof(defined), "%s", name);
        if (mems != NULL && mems->type == PMIX_PROC) {
            ranks_of(mems->array, mems->size, defined_members, sizeof(defined_members));
        } else {
            snprintf(defined_members, sizeof(defined_members), "(no members)");
        }
    } else if (name != NULL && status == PMIX_PROCESS_SET_DELETE) {
        snprintf(deleted, sizeof(deleted), "%s", name);
    }
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    if (cbfunc != NULL) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

/* wait (20 s at most) until *field names `want` */
static bool wait_for(const char *field, const char *want)
{
    struct timespec until;
    bool ok;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 20;
    pthread_mutex_lock(&lock);
    while (strcmp(field, want) != 0) {
        if (pthread_cond_timedwait(&cond, &lock, &until) != 0) {
            break;
        }
    }
    ok = strcmp(field, want) == 0;
    pthread_mutex_unlock(&lock);
    return ok;
}

/* one query of `key` (qualified by a set's name when given) */
static pmix_status_t query(const char *key, const char *pset, pmix_info_t **results, size_t *n)
{
    pmix_query_t q;
    bool refresh = true;
    pmix_status_t rc;
    PMIX_QUERY_CONSTRUCT(&q);
    q.keys = calloc(2, sizeof(char *));
    q.keys[0] = strdup(key);
    q.nqual = pset ? 2 : 1;
    PMIX_INFO_CREATE(q.qualifiers, q.nqual);
    PMIX_INFO_LOAD(&q.qualifiers[0], PMIX_QUERY_REFRESH_CACHE, &refresh, PMIX_BOOL);
    if (pset) {
        PMIX_INFO_LOAD(&q.qualifiers[1], PMIX_PSET_NAME, pset, PMIX_STRING);
    }
    rc = PMIx_Query_info(&q, 1, results, n);
    PMIX_QUERY_DESTRUCT(&q);
    return rc;
}

static void print_sets(void)
{
    pmix_info_t *r = NULL;
    size_t n = 0, num = (size_t)-1;
    char names[1024] = "";
    pmix_status_t rc = query(PMIX_QUERY_NUM_PSETS, NULL, &r, &n);
    check(rc == PMIX_SUCCESS, "query num psets", "%s", PMIx_Error_string(rc));
    for (size_t i = 0; i < n; i++) {
        if (PMIX_CHECK_KEY(&r[i], PMIX_QUERY_NUM_PSETS) && r[i].value.type == PMIX_SIZE) {
            num = r[i].value.data.size;
        }
    }
    PMIX_INFO_FREE(r, n);
    rc = query(PMIX_QUERY_PSET_NAMES, NULL, &r, &n);
    check(rc == PMIX_SUCCESS, "query pset names", "%s", PMIx_Error_string(rc));
    for (size_t i = 0; i < n; i++) {
        if (PMIX_CHECK_KEY(&r[i], PMIX_QUERY_PSET_NAMES) && r[i].value.type == PMIX_STRING && r[i].value.data.string) {
            snprintf(names, sizeof(names), "%s", r[i].value.data.string);
        }
    }
    PMIX_INFO_FREE(r, n);
    printf("rank %u: psets %d %s\n", (unsigned)me.rank, num == (size_t)-1 ? -1 : (int)num, names[0] ? names : "-");
    for (char *save = NULL, *s = strtok_r(names, ",", &save); s != NULL; s = strtok_r(NULL, ",", &save)) {
        char ranks[1024] = "?";
        rc = query(PMIX_QUERY_PSET_MEMBERSHIP, s, &r, &n);
        check(rc == PMIX_SUCCESS, "query membership", "%s: %s", s, PMIx_Error_string(rc));
        for (size_t i = 0; i < n; i++) {
            if (PMIX_CHECK_KEY(&r[i], PMIX_QUERY_PSET_MEMBERSHIP) && r[i].value.type == PMIX_DATA_ARRAY &&
                r[i].value.data.darray->type == PMIX_PROC) {
                ranks_of(r[i].value.data.darray->array, r[i].value.data.darray->size, ranks, sizeof(ranks));
            }
        }
        PMIX_INFO_FREE(r, n);
        printf("rank %u: members %s %s\n", (unsigned)me.rank, s, ranks);
    }
    fflush(stdout);
}

/* "host": tell rm_simple -P this rank reached `stage` (a published key) */
static void tell_host(const char *stage)
{
    pmix_info_t i;
    char key[PMIX_MAX_KEYLEN + 1];
    pmix_status_t rc;
    snprintf(key, sizeof(key), "psets.%s.%u", stage, (unsigned)me.rank);
    PMIX_INFO_LOAD(&i, key, stage, PMIX_STRING);
    rc = PMIx_Publish(&i, 1);
    check(rc == PMIX_SUCCESS, "publish", "%s: %s", key, PMIx_Error_string(rc));
    PMIX_INFO_DESTRUCT(&i);
}

/* a string key of this rank, or "-" */
static void print_own(const char *label, const char *key)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&me, key, NULL, 0, &v);
    printf("rank %u: %s %s\n", (unsigned)me.rank, label,
           rc == PMIX_SUCCESS && v && v->type == PMIX_STRING ? v->data.string : "-");
    fflush(stdout);
    if (v) PMIX_VALUE_RELEASE(v);
}

int main(int argc, char **argv)
{
    bool host = argc > 1 && strcmp(argv[1], "host") == 0;
    bool wait = host || (argc > 1 && strcmp(argv[1], "wait") == 0);
    pmix_status_t rc;
    alarm(100);
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("client_psets: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    print_own("own", PMIX_PSET_NAME);
    print_sets();
    if (wait) {
        pmix_status_t codes[] = {PMIX_PROCESS_SET_DEFINE, PMIX_PROCESS_SET_DELETE};
        rc = register_handler(codes, 2, on_pset);
        check(rc == PMIX_SUCCESS, "register", "%s", PMIx_Error_string(rc));
        printf("rank %u: ready\n", (unsigned)me.rank);
        fflush(stdout);
        if (host) tell_host("ready");
        if (wait_for(defined, "dyn")) {
            pthread_mutex_lock(&lock);
            printf("rank %u: defined dyn %s\n", (unsigned)me.rank, defined_members);
            pthread_mutex_unlock(&lock);
            print_own("in", PMIX_PSET_NAMES);
            print_sets();
            printf("rank %u: listed\n", (unsigned)me.rank);
            fflush(stdout);
            if (host) tell_host("listed");
        } else {
            check(false, "define event", "no PMIX_PROCESS_SET_DEFINE of dyn within 20 s");
        }
        if (wait_for(deleted, "dyn")) {
            printf("rank %u: deleted dyn\n", (unsigned)me.rank);
            print_sets();
        } else {
            check(false, "delete event", "no PMIX_PROCESS_SET_DELETE of dyn within 20 s");
        }
    }
    rc = PMIx_Finalize(NULL, 0);
    check(rc == PMIX_SUCCESS, "finalize", "%s", PMIx_Error_string(rc));
    return nfail ? 1 : 0;
}
