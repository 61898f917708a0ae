/*
 * client_semantics: call orders and inputs other people's programs use, as
 * OpenPMIx answers them. Two ranks; rank 0 prints one line per case:
 *
 *   client_semantics: <case>: <status name> <detail> (<fast | after ~N s>)
 *
 * so that the output on OpenPMIx and on rpmix can be compared line by line.
 * Cases:
 *   reserved-peer-key   Get of the peer's PMIX_FABRIC_COORDINATES (a `pmix.`
 *                       key nobody registered): answered at once
 *   second-commit       a key the peer Puts in a second commit, 0.3 s after
 *                       the Get was made: the Get waits and gets it
 *   null-key-peer       Get(peer, NULL key): everything held for the peer, a
 *                       data array of infos that holds its committed key
 *   null-key-wildcard   Get(rank wildcard, NULL key): BAD_PARAM
 *   log-stderr          PMIx_Log to stderr with no log upcall in the host:
 *                       SUCCESS, and the line reaches the host's stderr
 *   abi-query           PMIx_Query_info of PMIX_QUERY_STABLE_ABI_VERSION
 * Exit 0 when every rank ran (the comparison is the test), 1 on a setup error.
 */
#define _DEFAULT_SOURCE
#include <pmix.h>
#include "testutil.h"

static void line(const char *name, pmix_status_t rc, const char *detail, long t0)
{
    long dt = now_ms() - t0;
    char timing[32];
    if (dt < 500) snprintf(timing, sizeof(timing), "fast");
    else snprintf(timing, sizeof(timing), "after ~%ld s", (dt + 500) / 1000);
    printf("client_semantics: %s: %s %s(%s)\n", name, PMIx_Error_string(rc), detail, timing);
    fflush(stdout);
}

static void reserved_peer_key(pmix_proc_t *peer)
{
    pmix_value_t *v = NULL;
    long t0 = now_ms();
    pmix_status_t rc = PMIx_Get(peer, PMIX_FABRIC_COORDINATES, NULL, 0, &v);
    line("reserved-peer-key", rc, "", t0);
    if (v) PMIX_VALUE_RELEASE(v);
}

static void second_commit(pmix_proc_t *peer)
{
    pmix_value_t *v = NULL;
    char detail[1100] = "";
    long t0 = now_ms();
    pmix_status_t rc = PMIx_Get(peer, "sem.late", NULL, 0, &v);
    if (rc == PMIX_SUCCESS && v && v->type == PMIX_STRING) snprintf(detail, sizeof(detail), "value=%s ", v->data.string);
    line("second-commit", rc, detail, t0);
    if (v) PMIX_VALUE_RELEASE(v);
}

static void null_key(pmix_proc_t *peer, const char *name)
{
    pmix_value_t *v = NULL;
    char detail[1100] = "";
    long t0 = now_ms();
    pmix_status_t rc = PMIx_Get(peer, NULL, NULL, 0, &v);
    if (rc == PMIX_SUCCESS && v) {
        bool found = false;
        if (v->type == PMIX_DATA_ARRAY && v->data.darray && v->data.darray->type == PMIX_INFO) {
            pmix_info_t *a = v->data.darray->array;
            for (size_t i = 0; i < v->data.darray->size; i++) {
                if (PMIX_CHECK_KEY(&a[i], "sem.key") && a[i].value.type == PMIX_STRING) {
                    snprintf(detail, sizeof(detail), "array of infos with sem.key=%s ", a[i].value.data.string);
                    found = true;
                }
            }
        }
        if (!found) snprintf(detail, sizeof(detail), "type %s without sem.key ", PMIx_Data_type_string(v->type));
    }
    line(name, rc, detail, t0);
    if (v) PMIX_VALUE_RELEASE(v);
}

static void log_stderr(void)
{
    pmix_info_t data;
    long t0 = now_ms();
    pmix_status_t rc;
    PMIX_INFO_LOAD(&data, PMIX_LOG_STDERR, "client_semantics: a line logged by rank 0\n", PMIX_STRING);
    rc = PMIx_Log(&data, 1, NULL, 0);
    PMIX_INFO_DESTRUCT(&data);
    line("log-stderr", rc, "", t0);
}

static void abi_query(void)
{
    pmix_query_t *q;
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    char detail[1100] = "";
    long t0 = now_ms();
    pmix_status_t rc;
    PMIX_QUERY_CREATE(q, 1);
    PMIX_ARGV_APPEND(rc, q[0].keys, PMIX_QUERY_STABLE_ABI_VERSION);
    rc = PMIx_Query_info(q, 1, &results, &nresults);
    if (rc == PMIX_SUCCESS && nresults == 1 && results[0].value.type == PMIX_STRING)
        snprintf(detail, sizeof(detail), "%s=%s ", results[0].key, results[0].value.data.string);
    line("abi-query", rc, detail, t0);
    if (results) PMIX_INFO_FREE(results, nresults);
    PMIX_QUERY_FREE(q, 1);
}

int main(void)
{
    pmix_proc_t peer, wild;
    if (!init_job_of("client_semantics", 2)) return 1;
    PMIX_PROC_LOAD(&peer, me.nspace, 1 - me.rank);
    PMIX_PROC_LOAD(&wild, me.nspace, PMIX_RANK_WILDCARD);
    put_str("sem.key", me.rank == 0 ? "zero" : "one");
    fence("first fence");
    if (me.rank == 0) {
        reserved_peer_key(&peer);
        null_key(&peer, "null-key-peer");
        null_key(&wild, "null-key-wildcard");
        fence("before second commit");
        second_commit(&peer);
        log_stderr();
        abi_query();
    } else {
        reserved_peer_key(&peer); /* both ranks ask for each other's */
        fence("before second commit");
        msleep(300);
        put_str("sem.late", "late");
    }
    fence("last fence");
    PMIx_Finalize(NULL, 0);
    return nfail ? 1 : 0;
}
