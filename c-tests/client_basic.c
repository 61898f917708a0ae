/*
 * client_basic: PMIx client exercised as N ranks under a host (rm_simple).
 *
 *   rm_simple -n N ./client_basic [N]
 *
 * With an argument, PMIX_JOB_SIZE must equal it. Silent unless something
 * fails: each failing check prints "rank R: <check>: FAIL <detail>".
 * Rank 0 collects every rank's failure count (Put/Fence/Get) and prints
 * "client_basic: N ranks, all checks passed" or a failure summary.
 * Notes on library-dependent (but accepted) outcomes go to stderr from
 * rank 0. Exit status 0 when all passed, 1 otherwise.
 *
 * Steps: job-level keys; Put of several types in LOCAL/REMOTE/GLOBAL scope,
 * Commit, collective Fence with PMIX_COLLECT_DATA, Get of everybody's keys;
 * an event from rank 1 to rank 0; a fence over ranks {0,1}; Gets of a
 * missing key with PMIX_OPTIONAL / PMIX_IMMEDIATE / PMIX_TIMEOUT;
 * Publish (rank 1) / Lookup with PMIX_WAIT (rank 0) / Unpublish.
 * The job assumes one node (all ranks local), as rm_simple provides.
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

#include "testutil.h" /* me, check lines "rank R: <check>: FAIL <detail>", nfail */

#define MY_EVENT (PMIX_EXTERNAL_ERR_BASE - 5)

static uint32_t nranks;

static void note(const char *fmt, ...)
{
    va_list ap;
    if (me.rank != 0) return;
    fprintf(stderr, "client_basic: note: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
}

static void set_proc(pmix_proc_t *p, pmix_rank_t r)
{
    PMIX_LOAD_PROCID(p, me.nspace, r);
}

static void load_info(pmix_info_t *info, const char *key, const void *data, pmix_data_type_t type)
{
    PMIX_INFO_CONSTRUCT(info);
    if (PMIx_Info_load(info, key, data, type) != PMIX_SUCCESS) abort();
}

/* Get and require status SUCCESS and the given type; NULL on failure. */
static pmix_value_t *get_typed(const char *check, const pmix_proc_t *p, const char *key,
                               const pmix_info_t *info, size_t ninfo, pmix_data_type_t type)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(p, key, info, ninfo, &v);
    if (rc != PMIX_SUCCESS) {
        fail(check, "Get(%s, rank %u) returned %s", key, (unsigned)p->rank, PMIx_Error_string(rc));
        return NULL;
    }
    if (v == NULL) {
        fail(check, "Get(%s) returned SUCCESS but no value", key);
        return NULL;
    }
    if (v->type != type) {
        fail(check, "Get(%s, rank %u) type %s, expected %s", key, (unsigned)p->rank,
             PMIx_Data_type_string(v->type), PMIx_Data_type_string(type));
        PMIX_VALUE_RELEASE(v);
        return NULL;
    }
    return v;
}

static void check_u32(const char *check, const pmix_proc_t *p, const char *key, uint32_t want)
{
    pmix_value_t *v = get_typed(check, p, key, NULL, 0, PMIX_UINT32);
    if (v == NULL) return;
    if (v->data.uint32 != want) fail(check, "%s = %u, expected %u", key, (unsigned)v->data.uint32, (unsigned)want);
    PMIX_VALUE_RELEASE(v);
}

static void check_u16(const char *check, const pmix_proc_t *p, const char *key, uint16_t want)
{
    pmix_value_t *v = get_typed(check, p, key, NULL, 0, PMIX_UINT16);
    if (v == NULL) return;
    if (v->data.uint16 != want) fail(check, "%s = %u, expected %u", key, (unsigned)v->data.uint16, (unsigned)want);
    PMIX_VALUE_RELEASE(v);
}

static void check_str(const char *check, const pmix_proc_t *p, const char *key, const char *want)
{
    pmix_value_t *v = get_typed(check, p, key, NULL, 0, PMIX_STRING);
    if (v == NULL) return;
    if (v->data.string == NULL || strcmp(v->data.string, want) != 0)
        fail(check, "%s = \"%s\", expected \"%s\"", key, v->data.string ? v->data.string : "(null)", want);
    PMIX_VALUE_RELEASE(v);
}

/* ------------------------------------------------------------------ */
/* job-level information                                               */

static void check_job_info(long expect_n)
{
    pmix_proc_t wild;
    pmix_value_t *v;
    char host[256], *peers;
    size_t plen, used = 0;
    uint32_t i;

    set_proc(&wild, PMIX_RANK_WILDCARD);
    v = get_typed("job size", &wild, PMIX_JOB_SIZE, NULL, 0, PMIX_UINT32);
    if (v == NULL) {
        nranks = 1;
        return;
    }
    nranks = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    if (expect_n > 0 && nranks != (uint32_t)expect_n)
        fail("job size", "PMIX_JOB_SIZE = %u, expected %ld", (unsigned)nranks, expect_n);
    if (nranks == 0 || me.rank >= nranks) {
        fail("job size", "rank %u outside job of %u", (unsigned)me.rank, (unsigned)nranks);
        if (nranks == 0) nranks = 1;
    }
    check_u32("univ size", &wild, PMIX_UNIV_SIZE, nranks);
    check_u32("local size", &wild, PMIX_LOCAL_SIZE, nranks);

    plen = (size_t)nranks * 12 + 1;
    peers = calloc(plen, 1);
    if (peers == NULL) abort();
    for (i = 0; i < nranks; i++)
        used += (size_t)snprintf(peers + used, plen - used, "%s%u", i ? "," : "", (unsigned)i);
    check_str("local peers", &wild, PMIX_LOCAL_PEERS, peers);
    free(peers);

    check_u32("appnum", &me, PMIX_APPNUM, 0);
    check_u16("local rank", &me, PMIX_LOCAL_RANK, (uint16_t)me.rank);
    check_u16("node rank", &me, PMIX_NODE_RANK, (uint16_t)me.rank);
    if (gethostname(host, sizeof(host)) != 0) {
        fail("hostname", "gethostname failed");
    } else {
        host[sizeof(host) - 1] = '\0';
        check_str("hostname", &me, PMIX_HOSTNAME, host);
    }
}

/* ------------------------------------------------------------------ */
/* Put / Commit / Fence / Get                                          */

static int32_t  val_i32(pmix_rank_t r) { return (int32_t)(-1000 - (int32_t)r); }
static uint64_t val_u64(pmix_rank_t r) { return 0x123456789ULL * (r + 1); }
static void     val_str(pmix_rank_t r, char *buf, size_t n) { snprintf(buf, n, "string of rank %u", (unsigned)r); }
static void     val_bytes(pmix_rank_t r, unsigned char b[6])
{
    b[0] = (unsigned char)r; b[1] = 0; b[2] = 0xff; b[3] = 'x'; b[4] = 0; b[5] = (unsigned char)(r * 7);
}

static void put_one(const char *key, pmix_scope_t scope, const void *data, pmix_data_type_t type)
{
    pmix_value_t val;
    pmix_status_t rc;
    PMIX_VALUE_CONSTRUCT(&val);
    rc = PMIx_Value_load(&val, data, type);
    if (rc != PMIX_SUCCESS) {
        fail("put", "Value_load(%s): %s", key, PMIx_Error_string(rc));
        return;
    }
    rc = PMIx_Put(scope, key, &val);
    if (rc != PMIX_SUCCESS) fail("put", "Put(%s): %s", key, PMIx_Error_string(rc));
    PMIx_Value_destruct(&val);
}

static void put_all(void)
{
    char s[64];
    int32_t i32 = val_i32(me.rank);
    uint64_t u64 = val_u64(me.rank);
    unsigned char bytes[6];
    pmix_byte_object_t bo;
    pmix_proc_t pr;
    uint32_t arr[3];
    pmix_data_array_t da;
    pmix_status_t rc;

    val_str(me.rank, s, sizeof(s));
    val_bytes(me.rank, bytes);
    bo.bytes = (char *)bytes;
    bo.size = sizeof(bytes);
    set_proc(&pr, (me.rank + 1) % nranks);
    arr[0] = me.rank; arr[1] = me.rank + 10; arr[2] = me.rank + 100;
    da.type = PMIX_UINT32;
    da.size = 3;
    da.array = arr;

    put_one("basic.i32.local", PMIX_LOCAL, &i32, PMIX_INT32);
    put_one("basic.str.remote", PMIX_REMOTE, s, PMIX_STRING);
    put_one("basic.str.global", PMIX_GLOBAL, s, PMIX_STRING);
    put_one("basic.u64.global", PMIX_GLOBAL, &u64, PMIX_UINT64);
    put_one("basic.bo.global", PMIX_GLOBAL, &bo, PMIX_BYTE_OBJECT);
    put_one("basic.proc.global", PMIX_GLOBAL, &pr, PMIX_PROC);
    put_one("basic.arr.global", PMIX_GLOBAL, &da, PMIX_DATA_ARRAY);
    rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) fail("commit", "%s", PMIx_Error_string(rc));
}

static void fence_collect(const char *check, const pmix_proc_t *procs, size_t np)
{
    pmix_info_t info;
    bool t = true;
    pmix_status_t rc;
    load_info(&info, PMIX_COLLECT_DATA, &t, PMIX_BOOL);
    rc = PMIx_Fence(procs, np, &info, 1);
    PMIx_Value_destruct(&info.value);
    if (rc != PMIX_SUCCESS) fail(check, "Fence returned %s", PMIx_Error_string(rc));
}

/* check the values rank r put (the caller may be r itself) */
static void check_keys_of(pmix_rank_t r)
{
    pmix_proc_t p;
    pmix_value_t *v;
    char s[64];
    unsigned char bytes[6];

    set_proc(&p, r);
    val_str(r, s, sizeof(s));
    val_bytes(r, bytes);

    if ((v = get_typed("get int32 (local scope)", &p, "basic.i32.local", NULL, 0, PMIX_INT32))) {
        if (v->data.int32 != val_i32(r))
            fail("get int32 (local scope)", "rank %u: %d", (unsigned)r, (int)v->data.int32);
        PMIX_VALUE_RELEASE(v);
    }
    check_str("get string (global scope)", &p, "basic.str.global", s);
    if ((v = get_typed("get uint64", &p, "basic.u64.global", NULL, 0, PMIX_UINT64))) {
        if (v->data.uint64 != val_u64(r))
            fail("get uint64", "rank %u: %llu", (unsigned)r, (unsigned long long)v->data.uint64);
        PMIX_VALUE_RELEASE(v);
    }
    if ((v = get_typed("get byte object", &p, "basic.bo.global", NULL, 0, PMIX_BYTE_OBJECT))) {
        if (v->data.bo.size != sizeof(bytes) || v->data.bo.bytes == NULL ||
            memcmp(v->data.bo.bytes, bytes, sizeof(bytes)) != 0)
            fail("get byte object", "rank %u: wrong contents (size %lu)", (unsigned)r,
                 (unsigned long)v->data.bo.size);
        PMIX_VALUE_RELEASE(v);
    }
    if ((v = get_typed("get proc", &p, "basic.proc.global", NULL, 0, PMIX_PROC))) {
        if (v->data.proc == NULL || strcmp(v->data.proc->nspace, me.nspace) != 0 ||
            v->data.proc->rank != (r + 1) % nranks)
            fail("get proc", "rank %u: wrong proc", (unsigned)r);
        PMIX_VALUE_RELEASE(v);
    }
    if ((v = get_typed("get data array", &p, "basic.arr.global", NULL, 0, PMIX_DATA_ARRAY))) {
        pmix_data_array_t *d = v->data.darray;
        if (d == NULL || d->type != PMIX_UINT32 || d->size != 3 || d->array == NULL)
            fail("get data array", "rank %u: wrong shape", (unsigned)r);
        else {
            uint32_t *a = d->array;
            if (a[0] != r || a[1] != r + 10 || a[2] != r + 100)
                fail("get data array", "rank %u: %u,%u,%u", (unsigned)r, (unsigned)a[0],
                     (unsigned)a[1], (unsigned)a[2]);
        }
        PMIX_VALUE_RELEASE(v);
    }
}

/* A PMIX_REMOTE key must not be visible to a peer on the same node; asked
 * with PMIX_OPTIONAL so that no library waits for it to appear. */
static void check_remote_scope(void)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    pmix_info_t info;
    bool t = true;
    char s[64];
    pmix_status_t rc;
    pmix_rank_t r = (me.rank + 1) % nranks;

    if (nranks < 2) return;
    set_proc(&p, r);
    load_info(&info, PMIX_OPTIONAL, &t, PMIX_BOOL);
    rc = PMIx_Get(&p, "basic.str.remote", &info, 1, &v);
    PMIx_Value_destruct(&info.value);
    if (rc == PMIX_ERR_NOT_FOUND) {
        note("local peer's PMIX_REMOTE key: not visible (PMIX_ERR_NOT_FOUND)");
    } else if (rc == PMIX_SUCCESS && v && v->type == PMIX_STRING) {
        val_str(r, s, sizeof(s));
        if (v->data.string == NULL || strcmp(v->data.string, s) != 0)
            fail("remote scope", "visible with wrong value");
        else
            note("local peer's PMIX_REMOTE key: visible (OpenPMIx 4.2.2 behaviour)");
    } else {
        fail("remote scope", "Get returned %s", PMIx_Error_string(rc));
    }
    if (v) PMIX_VALUE_RELEASE(v);
}

/* ------------------------------------------------------------------ */
/* events                                                              */

static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ev_cond = PTHREAD_COND_INITIALIZER;
static int ev_count;
static pmix_status_t ev_status;
static pmix_proc_t ev_source;
static bool op_done;
static pmix_status_t op_status;

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                     pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id; (void)info; (void)ninfo; (void)results; (void)nresults;
    pthread_mutex_lock(&ev_lock);
    ev_count++;
    ev_status = status;
    if (source) memcpy(&ev_source, source, sizeof(ev_source));
    pthread_cond_broadcast(&ev_cond);
    pthread_mutex_unlock(&ev_lock);
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void on_op(pmix_status_t status, void *cbdata)
{
    (void)cbdata;
    pthread_mutex_lock(&ev_lock);
    op_status = status;
    op_done = true;
    pthread_cond_broadcast(&ev_cond);
    pthread_mutex_unlock(&ev_lock);
}

static void abs_deadline(struct timespec *ts, int secs)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += secs;
}

static size_t register_my_handler(void)
{
    pmix_status_t code = MY_EVENT;
    pmix_status_t rc = PMIx_Register_event_handler(&code, 1, NULL, 0, on_event, NULL, NULL);
    if (rc < 0) {
        fail("event register", "%s", PMIx_Error_string(rc));
        return SIZE_MAX;
    }
    return (size_t)rc;
}

static void notify(void)
{
    struct timespec ts;
    pmix_status_t rc;
    op_done = false;
    rc = PMIx_Notify_event(MY_EVENT, &me, PMIX_RANGE_NAMESPACE, NULL, 0, on_op, NULL);
    if (rc == PMIX_OPERATION_SUCCEEDED) return;
    if (rc != PMIX_SUCCESS) {
        fail("event notify", "%s", PMIx_Error_string(rc));
        return;
    }
    abs_deadline(&ts, 10);
    pthread_mutex_lock(&ev_lock);
    while (!op_done)
        if (pthread_cond_timedwait(&ev_cond, &ev_lock, &ts) == ETIMEDOUT) break;
    if (!op_done) fail("event notify", "no completion callback within 10 s");
    else if (op_status != PMIX_SUCCESS) fail("event notify", "callback status %s", PMIx_Error_string(op_status));
    pthread_mutex_unlock(&ev_lock);
}

static void await_event(void)
{
    struct timespec ts;
    abs_deadline(&ts, 10);
    pthread_mutex_lock(&ev_lock);
    while (ev_count == 0)
        if (pthread_cond_timedwait(&ev_cond, &ev_lock, &ts) == ETIMEDOUT) break;
    if (ev_count == 0) {
        fail("event delivery", "handler not called within 10 s");
    } else {
        if (ev_status != MY_EVENT) fail("event delivery", "status %d", ev_status);
        if (strcmp(ev_source.nspace, me.nspace) != 0 || ev_source.rank != 1)
            fail("event delivery", "source %s:%u, expected %s:1", ev_source.nspace,
                 (unsigned)ev_source.rank, me.nspace);
    }
    pthread_mutex_unlock(&ev_lock);
}

/* ------------------------------------------------------------------ */
/* missing keys                                                        */

static void check_missing(void)
{
    pmix_proc_t p;
    pmix_info_t info;
    pmix_value_t *v = NULL;
    pmix_status_t rc;
    bool t = true;
    int secs = 1;

    set_proc(&p, (me.rank + 1) % nranks);

    load_info(&info, PMIX_OPTIONAL, &t, PMIX_BOOL);
    rc = PMIx_Get(&p, "basic.no.such.key", &info, 1, &v);
    if (rc != PMIX_ERR_NOT_FOUND) fail("missing key, PMIX_OPTIONAL", "%s", PMIx_Error_string(rc));
    if (v) PMIX_VALUE_RELEASE(v);

    load_info(&info, PMIX_IMMEDIATE, &t, PMIX_BOOL);
    rc = PMIx_Get(&p, "basic.no.such.key", &info, 1, &v);
    if (rc != PMIX_ERR_NOT_FOUND) fail("missing key, PMIX_IMMEDIATE", "%s", PMIx_Error_string(rc));
    if (v) PMIX_VALUE_RELEASE(v);

    load_info(&info, PMIX_TIMEOUT, &secs, PMIX_INT);
    rc = PMIx_Get(&p, "basic.no.such.key", &info, 1, &v);
    if (rc == PMIX_ERR_TIMEOUT || rc == PMIX_ERR_NOT_FOUND)
        note("missing key with PMIX_TIMEOUT=1: %s", PMIx_Error_string(rc));
    else
        fail("missing key, PMIX_TIMEOUT=1", "%s", PMIx_Error_string(rc));
    if (v) PMIX_VALUE_RELEASE(v);
}

/* ------------------------------------------------------------------ */
/* publish / lookup                                                    */

static void svc_key(char *key, size_t n) { snprintf(key, n, "svc.%s", me.nspace); }
static void svc_val(char *val, size_t n) { snprintf(val, n, "port-of-%s-rank-1", me.nspace); }

static void publish(void)
{
    pmix_info_t info;
    char key[PMIX_MAX_KEYLEN + 1], val[PMIX_MAX_NSLEN + 32];
    pmix_status_t rc;
    svc_key(key, sizeof(key));
    svc_val(val, sizeof(val));
    load_info(&info, key, val, PMIX_STRING);
    rc = PMIx_Publish(&info, 1);
    PMIx_Value_destruct(&info.value);
    if (rc != PMIX_SUCCESS) fail("publish", "%s", PMIx_Error_string(rc));
}

static void lookup_wait(void)
{
    pmix_pdata_t pd;
    pmix_info_t info[2];
    int zero = 0, secs = 10;
    char val[PMIX_MAX_NSLEN + 32];
    pmix_status_t rc;

    PMIX_PDATA_CONSTRUCT(&pd);
    svc_key(pd.key, sizeof(pd.key));
    svc_val(val, sizeof(val));
    load_info(&info[0], PMIX_WAIT, &zero, PMIX_INT);
    load_info(&info[1], PMIX_TIMEOUT, &secs, PMIX_INT);
    rc = PMIx_Lookup(&pd, 1, info, 2);
    if (rc != PMIX_SUCCESS) {
        fail("lookup (wait)", "%s", PMIx_Error_string(rc));
    } else if (pd.value.type != PMIX_STRING) {
        fail("lookup (wait)", "type %s", PMIx_Data_type_string(pd.value.type));
    } else if (pd.value.data.string == NULL || strcmp(pd.value.data.string, val) != 0) {
        fail("lookup (wait)", "value \"%s\"", pd.value.data.string ? pd.value.data.string : "(null)");
    } else if (strcmp(pd.proc.nspace, me.nspace) != 0 || pd.proc.rank != 1) {
        fail("lookup (wait)", "publisher %s:%u", pd.proc.nspace, (unsigned)pd.proc.rank);
    }
    PMIX_PDATA_DESTRUCT(&pd);
}

static void lookup_gone(void)
{
    pmix_pdata_t pd;
    pmix_status_t rc;
    PMIX_PDATA_CONSTRUCT(&pd);
    svc_key(pd.key, sizeof(pd.key));
    rc = PMIx_Lookup(&pd, 1, NULL, 0);
    if (rc != PMIX_ERR_NOT_FOUND)
        fail("lookup after unpublish", "%s (expected NOT-FOUND)", PMIx_Error_string(rc));
    PMIX_PDATA_DESTRUCT(&pd);
}

static void unpublish(void)
{
    char key[PMIX_MAX_KEYLEN + 1];
    char *keys[2];
    pmix_status_t rc;
    svc_key(key, sizeof(key));
    keys[0] = key;
    keys[1] = NULL;
    rc = PMIx_Unpublish(keys, NULL, 0);
    if (rc != PMIX_SUCCESS) fail("unpublish", "%s", PMIx_Error_string(rc));
}

/* ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    pmix_status_t rc;
    size_t evref = SIZE_MAX;
    pmix_rank_t r;
    int total_fail = 0, failed_ranks = 0;
    long expect_n = argc > 1 ? atol(argv[1]) : 0;

    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("rank ?: init: FAIL %s\n", PMIx_Error_string(rc));
        return 1;
    }
    check_job_info(expect_n);

    /* data exchange */
    put_all();
    if (me.rank == 0 && nranks >= 2) evref = register_my_handler();
    fence_collect("fence (all, collect)", NULL, 0);
    for (r = 0; r < nranks; r++) check_keys_of(r);
    check_remote_scope();

    /* event from rank 1 to rank 0 (rank 0's handler existed before the fence) */
    if (nranks >= 2) {
        if (me.rank == 1) notify();
        if (me.rank == 0) await_event();
    }

    /* fence over an explicit list: ranks 0 and 1 */
    if (nranks >= 2 && me.rank <= 1) {
        pmix_proc_t pair[2];
        pmix_proc_t other;
        uint32_t mine = 4242 + me.rank;
        pmix_value_t *v;
        set_proc(&pair[0], 0);
        set_proc(&pair[1], 1);
        put_one("basic.pair", PMIX_GLOBAL, &mine, PMIX_UINT32);
        rc = PMIx_Commit();
        if (rc != PMIX_SUCCESS) fail("commit (pair)", "%s", PMIx_Error_string(rc));
        fence_collect("fence (ranks 0,1)", pair, 2);
        set_proc(&other, 1 - me.rank);
        if ((v = get_typed("get after pair fence", &other, "basic.pair", NULL, 0, PMIX_UINT32))) {
            if (v->data.uint32 != 4242 + other.rank)
                fail("get after pair fence", "%u", (unsigned)v->data.uint32);
            PMIX_VALUE_RELEASE(v);
        }
    }

    check_missing();

    /* publish / lookup: rank 0 is usually waiting before rank 1 publishes */
    if (nranks >= 2) {
        if (me.rank == 1) {
            msleep(100);
            publish();
        }
        if (me.rank == 0) lookup_wait();
        fence_collect("fence (after lookup)", NULL, 0);
        if (me.rank == 1) unpublish();
        fence_collect("fence (after unpublish)", NULL, 0);
        if (me.rank == 0) lookup_gone();
    }

    /* results to rank 0 */
    {
        int32_t mine = nfail;
        put_one("basic.result", PMIX_GLOBAL, &mine, PMIX_INT32);
        rc = PMIx_Commit();
        if (rc != PMIX_SUCCESS) fail("commit (result)", "%s", PMIx_Error_string(rc));
        fence_collect("fence (results)", NULL, 0);
    }
    if (me.rank == 0) {
        for (r = 0; r < nranks; r++) {
            pmix_proc_t p;
            pmix_value_t *v;
            set_proc(&p, r);
            v = get_typed("collect results", &p, "basic.result", NULL, 0, PMIX_INT32);
            if (v == NULL) {
                failed_ranks++;
                continue;
            }
            if (r != 0 && v->data.int32 != 0) {
                failed_ranks++;
                total_fail += v->data.int32;
            }
            PMIX_VALUE_RELEASE(v);
        }
    }
    if (evref != SIZE_MAX) {
        rc = PMIx_Deregister_event_handler(evref, NULL, NULL);
        if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED)
            fail("event deregister", "%s", PMIx_Error_string(rc));
    }
    if (me.rank == 0) {
        if (nfail > 0) failed_ranks++;
        total_fail += nfail;
        if (failed_ranks == 0)
            printf("client_basic: %u ranks, all checks passed\n", (unsigned)nranks);
        else
            printf("client_basic: %u ranks, %d checks failed on %d ranks\n", (unsigned)nranks,
                   total_fail, failed_ranks);
        fflush(stdout);
    }
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fail("finalize", "%s", PMIx_Error_string(rc));
    }
    if (me.rank == 0) return failed_ranks == 0 && nfail == 0 ? 0 : 1;
    return nfail == 0 ? 0 : 1;
}
