/*
 * make demo: a job of PMIx clients under pmixrun. Each rank reads its job
 * data, publishes a value with Put/Commit, exchanges with a collective Fence,
 * reads its neighbour's value, and rank 0 receives an event from the last rank.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <pmix.h>

#define DEMO_EVENT (PMIX_EXTERNAL_ERR_BASE - 7)

static volatile int event_seen;
static pmix_proc_t event_source;

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[], size_t ninfo,
                     pmix_info_t *results, size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void) id; (void) status; (void) info; (void) ninfo; (void) results; (void) nresults;
    event_source = *source;
    event_seen = 1;
    if (cbfunc != NULL) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void registered(pmix_status_t status, size_t refid, void *cbdata)
{
    (void) status; (void) refid;
    *(volatile int *) cbdata = 1;
}

int main(void)
{
    pmix_proc_t me, wild, peer;
    pmix_value_t *val = NULL, v;
    pmix_info_t collect;
    pmix_status_t code = DEMO_EVENT;
    uint32_t size = 0;
    uint16_t lrank = 0;
    volatile int reg_done = 0;
    char host[64] = "?", peers[256] = "?", mine[64];
    bool yes = true;
    pmix_status_t rc;
    int i;

    if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
        fprintf(stderr, "PMIx_Init failed: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val) == PMIX_SUCCESS) { size = val->data.uint32; PMIX_VALUE_RELEASE(val); }
    if (PMIx_Get(&me, PMIX_LOCAL_RANK, NULL, 0, &val) == PMIX_SUCCESS) { lrank = val->data.uint16; PMIX_VALUE_RELEASE(val); }
    if (PMIx_Get(&me, PMIX_HOSTNAME, NULL, 0, &val) == PMIX_SUCCESS) { snprintf(host, sizeof host, "%s", val->data.string); PMIX_VALUE_RELEASE(val); }
    if (PMIx_Get(&wild, PMIX_LOCAL_PEERS, NULL, 0, &val) == PMIX_SUCCESS) { snprintf(peers, sizeof peers, "%s", val->data.string); PMIX_VALUE_RELEASE(val); }

    if (me.rank == 0) {
        PMIx_Register_event_handler(&code, 1, NULL, 0, on_event, registered, (void *) &reg_done);
        for (i = 0; i < 1000 && !reg_done; i++) usleep(1000);
    }
    snprintf(mine, sizeof mine, "greetings from rank %u", me.rank);
    v.type = PMIX_STRING;
    v.data.string = mine;
    PMIx_Put(PMIX_GLOBAL, "demo.greeting", &v);
    PMIx_Commit();
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, &collect, 1);
    PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % size);
    if (rc == PMIX_SUCCESS && PMIx_Get(&peer, "demo.greeting", NULL, 0, &val) == PMIX_SUCCESS) {
        printf("rank %u of %u (local rank %u on %s, local peers %s): my neighbour %u says \"%s\"\n", me.rank, size, lrank,
               host, peers, peer.rank, val->data.string);
        PMIX_VALUE_RELEASE(val);
    } else {
        printf("rank %u: fence/get failed: %s\n", me.rank, PMIx_Error_string(rc));
    }
    if (me.rank == size - 1) {
        PMIx_Notify_event(DEMO_EVENT, &me, PMIX_RANGE_NAMESPACE, NULL, 0, NULL, NULL);
    }
    if (me.rank == 0) {
        for (i = 0; i < 5000 && !event_seen; i++) usleep(1000);
        printf("rank 0: event %s from rank %u\n", event_seen ? "received" : "NOT received", event_source.rank);
    }
    PMIx_Fence(NULL, 0, NULL, 0);
    PMIx_Finalize(NULL, 0);
    return 0;
}
