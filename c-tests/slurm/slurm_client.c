/*
 * slurm_client: a PMIx client run as the tasks of `srun --mpi=pmix -n N`
 * (tools/slurm-tests.sh). Built against OpenPMIx's headers and linked with
 * -l:libpmix.so.2, so it runs on whichever libpmix.so.2 the loader finds.
 *
 *   slurm_client basic N [marker]
 *   slurm_client abort N [marker]
 *   slurm_client event-host N [marker]
 *
 * Every rank prints "rank R: version <PMIx_Get_version()>" after PMIx_Init.
 *
 * basic: job data right after init (PMIX_JOB_SIZE == N, rank < N and equal
 *   to SLURM_PROCID, PMIX_LOCAL_SIZE, PMIX_UNIV_SIZE, PMIX_HOSTNAME,
 *   PMIX_LOCAL_RANK); rank 0 registers a handler for an application event
 *   (registration completes before the first fence); every rank Puts a string
 *   and a uint32 (PMIX_GLOBAL), Commits, runs a collective
 *   Fence with PMIX_COLLECT_DATA and Gets every rank's values; the last rank
 *   then notifies the event (PMIX_RANGE_NAMESPACE, PMIX_EVENT_NON_DEFAULT so
 *   that slurmstepd's default handler, which kills the step on any event,
 *   is left out) and rank 0 waits (10 s at most) for it, checking its source. A final fence without data, then
 *   PMIx_Finalize. Rank 0 also prints the libpmix mapped by its parent (the
 *   slurmstepd hosting the PMIx server) as
 *   "rank 0: stepd-lib <dev> <inode> <path>".
 *   Each rank prints "rank R: OK" or "rank R: <what>: FAIL <why>" lines and exits
 *   0 / 1.
 * event-host: after a fence, the last rank notifies the event with range
 *   NAMESPACE and no PMIX_EVENT_NON_DEFAULT; everybody waits 2 s, fences,
 *   finalizes and prints "rank R: done". OpenPMIx's server runs its own
 *   handlers for every event a client notifies, whatever the range, so
 *   slurmstepd's default handler ("Error handler invoked") kills the step.
 * abort: after a fence, rank 1 calls PMIx_Abort(7, ...) (which may
 *   return); every rank then sleeps 25 s waiting to be killed by the host,
 *   and prints "still alive" and exits 3 when nobody did.
 *
 * alarm(40) bounds every rank.
 */
#define _DEFAULT_SOURCE
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include "../testutil.h"

#define MY_EVENT (PMIX_EXTERNAL_ERR_BASE - 11)

static volatile int event_seen;
static volatile pmix_rank_t event_src = PMIX_RANK_UNDEF;

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[], size_t ninfo,
                     pmix_info_t *results, size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id; (void)status; (void)info; (void)ninfo; (void)results; (void)nresults;
    if (source != NULL) event_src = source->rank;
    event_seen = 1;
    if (cbfunc != NULL) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static bool get_u32(const pmix_proc_t *p, const char *key, uint32_t *out)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(p, key, NULL, 0, &v);
    char buf[256];
    if (rc != PMIX_SUCCESS || v == NULL) {
        snprintf(buf, sizeof buf, "PMIx_Get(%s): %s", key, PMIx_Error_string(rc));
        check(false, "job data", "%s", buf);
        return false;
    }
    switch (v->type) {
    case PMIX_UINT32: *out = v->data.uint32; break;
    case PMIX_UINT16: *out = v->data.uint16; break;
    case PMIX_INT: *out = (uint32_t)v->data.integer; break;
    default:
        snprintf(buf, sizeof buf, "PMIx_Get(%s): unexpected type %s", key, PMIx_Data_type_string(v->type));
        check(false, "job data", "%s", buf);
        PMIX_VALUE_RELEASE(v);
        return false;
    }
    PMIX_VALUE_RELEASE(v);
    return true;
}

static void print_stepd_lib(void)
{
    char path[64], line[1024];
    FILE *f;
    snprintf(path, sizeof path, "/proc/%d/maps", (int)getppid());
    f = fopen(path, "r");
    if (f == NULL) {
        printf("rank 0: stepd-lib ? ? cannot open %s\n", path);
        return;
    }
    while (fgets(line, sizeof line, f) != NULL) {
        char addr[64], perms[8], off[32], dev[32], file[800];
        unsigned long inode;
        if (sscanf(line, "%63s %7s %31s %31s %lu %799s", addr, perms, off, dev, &inode, file) == 6 &&
            strstr(file, "libpmix") != NULL) {
            printf("rank 0: stepd-lib %s %lu %s\n", dev, inode, file);
            break;
        }
    }
    fclose(f);
    {
        char fd2[64], target[512];
        ssize_t n;
        snprintf(fd2, sizeof fd2, "/proc/%d/fd/2", (int)getppid());
        n = readlink(fd2, target, sizeof target - 1);
        target[n > 0 ? n : 0] = '\0';
        printf("rank 0: stepd-stderr %s\n", n > 0 ? target : "?");
    }
}

static int run_basic(uint32_t want)
{
    pmix_proc_t wild, p;
    pmix_value_t *v = NULL, val;
    pmix_info_t collect;
    pmix_status_t rc, code = MY_EVENT;
    uint32_t size = 0, lsize = 0, usize = 0, lrank = 0, r;
    bool yes = true;
    char buf[256], mine[64];
    const char *procid = getenv("SLURM_PROCID");
    int i;

    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (me.nspace[0] == '\0') check(false, "job data", "%s", "empty namespace");
    if (get_u32(&wild, PMIX_JOB_SIZE, &size) && size != want) {
        snprintf(buf, sizeof buf, "PMIX_JOB_SIZE %u, expected %u", (unsigned)size, (unsigned)want);
        check(false, "job data", "%s", buf);
    }
    if (me.rank >= want) check(false, "job data", "%s", "rank out of range");
    if (procid == NULL || (pmix_rank_t)atoi(procid) != me.rank) {
        snprintf(buf, sizeof buf, "rank %u but SLURM_PROCID %s", (unsigned)me.rank, procid ? procid : "(unset)");
        check(false, "job data", "%s", buf);
    }
    if (get_u32(&wild, PMIX_LOCAL_SIZE, &lsize) && lsize != want) {
        snprintf(buf, sizeof buf, "PMIX_LOCAL_SIZE %u, expected %u (one node)", (unsigned)lsize, (unsigned)want);
        check(false, "job data", "%s", buf);
    }
    if (get_u32(&wild, PMIX_UNIV_SIZE, &usize) && usize < want) {
        snprintf(buf, sizeof buf, "PMIX_UNIV_SIZE %u < %u", (unsigned)usize, (unsigned)want);
        check(false, "job data", "%s", buf);
    }
    if (get_u32(&me, PMIX_LOCAL_RANK, &lrank) && lrank != me.rank) {
        snprintf(buf, sizeof buf, "PMIX_LOCAL_RANK %u != rank %u (one node)", (unsigned)lrank, (unsigned)me.rank);
        check(false, "job data", "%s", buf);
    }
    rc = PMIx_Get(&me, PMIX_HOSTNAME, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v == NULL || v->type != PMIX_STRING) {
        snprintf(buf, sizeof buf, "PMIx_Get(PMIX_HOSTNAME): %s", PMIx_Error_string(rc));
        check(false, "job data", "%s", buf);
    }
    if (v != NULL) PMIX_VALUE_RELEASE(v);
    printf("rank %u: job size %u local size %u univ size %u local rank %u\n", (unsigned)me.rank, (unsigned)size,
           (unsigned)lsize, (unsigned)usize, (unsigned)lrank);
    fflush(stdout);

    if (me.rank == 0) {
        rc = register_handler(&code, 1, on_event);
        check(rc == PMIX_SUCCESS, "event", "PMIx_Register_event_handler: %s", PMIx_Error_string(rc));
    }

    snprintf(mine, sizeof mine, "value-from-rank-%u", (unsigned)me.rank);
    val.type = PMIX_STRING;
    val.data.string = mine;
    if ((rc = PMIx_Put(PMIX_GLOBAL, "slurmtest.str", &val)) != PMIX_SUCCESS) check(false, "put", "%s", PMIx_Error_string(rc));
    val.type = PMIX_UINT32;
    val.data.uint32 = 1000 + me.rank;
    if ((rc = PMIx_Put(PMIX_GLOBAL, "slurmtest.u32", &val)) != PMIX_SUCCESS) check(false, "put", "%s", PMIx_Error_string(rc));
    if ((rc = PMIx_Commit()) != PMIX_SUCCESS) check(false, "commit", "%s", PMIx_Error_string(rc));
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, &collect, 1);
    PMIX_INFO_DESTRUCT(&collect);
    if (rc != PMIX_SUCCESS) check(false, "fence", "%s", PMIx_Error_string(rc));

    for (r = 0; r < want; r++) {
        char exp[64];
        PMIX_LOAD_PROCID(&p, me.nspace, r);
        snprintf(exp, sizeof exp, "value-from-rank-%u", (unsigned)r);
        v = NULL;
        rc = PMIx_Get(&p, "slurmtest.str", NULL, 0, &v);
        if (rc != PMIX_SUCCESS || v == NULL || v->type != PMIX_STRING || strcmp(v->data.string, exp) != 0) {
            snprintf(buf, sizeof buf, "PMIx_Get(rank %u, slurmtest.str): %s%s%s", (unsigned)r, PMIx_Error_string(rc),
                     v && v->type == PMIX_STRING ? " value " : "", v && v->type == PMIX_STRING ? v->data.string : "");
            check(false, "get", "%s", buf);
        }
        if (v != NULL) PMIX_VALUE_RELEASE(v);
        v = NULL;
        rc = PMIx_Get(&p, "slurmtest.u32", NULL, 0, &v);
        if (rc != PMIX_SUCCESS || v == NULL || v->type != PMIX_UINT32 || v->data.uint32 != 1000 + r) {
            snprintf(buf, sizeof buf, "PMIx_Get(rank %u, slurmtest.u32): %s", (unsigned)r, PMIx_Error_string(rc));
            check(false, "get", "%s", buf);
        }
        if (v != NULL) PMIX_VALUE_RELEASE(v);
    }

    if (me.rank == want - 1) {
        /* PMIX_EVENT_NON_DEFAULT: only handlers registered for this code see
         * it, not slurmstepd's default handler (which kills the step) */
        pmix_info_t nd;
        PMIX_INFO_LOAD(&nd, PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
        rc = PMIx_Notify_event(MY_EVENT, &me, PMIX_RANGE_NAMESPACE, &nd, 1, NULL, NULL);
        PMIX_INFO_DESTRUCT(&nd);
        if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED) check(false, "notify", "%s", PMIx_Error_string(rc));
    }
    if (me.rank == 0) {
        for (i = 0; i < 10000 && !event_seen; i++) msleep(1);
        if (!event_seen) check(false, "event", "%s", "not received within 10 s");
        else if (event_src != want - 1) {
            snprintf(buf, sizeof buf, "source rank %u, expected %u", (unsigned)event_src, (unsigned)(want - 1));
            check(false, "event", "%s", buf);
        } else {
            printf("rank 0: event received from rank %u\n", (unsigned)event_src);
        }
        print_stepd_lib();
    }
    rc = PMIx_Fence(NULL, 0, NULL, 0);
    if (rc != PMIX_SUCCESS) check(false, "final fence", "%s", PMIx_Error_string(rc));
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) check(false, "finalize", "%s", PMIx_Error_string(rc));
    if (nfail == 0) printf("rank %u: OK\n", (unsigned)me.rank);
    fflush(stdout);
    return nfail == 0 ? 0 : 1;
}

static int run_event_host(uint32_t want)
{
    pmix_status_t rc = PMIx_Fence(NULL, 0, NULL, 0);
    if (rc != PMIX_SUCCESS) check(false, "fence", "%s", PMIx_Error_string(rc));
    if (me.rank == want - 1) {
        rc = PMIx_Notify_event(MY_EVENT, &me, PMIX_RANGE_NAMESPACE, NULL, 0, NULL, NULL);
        printf("rank %u: notified event %d (range NAMESPACE, default handlers included): %s\n", (unsigned)me.rank,
               (int)MY_EVENT, PMIx_Error_string(rc));
        fflush(stdout);
    }
    msleep(2000); /* time for the host's handler to act */
    rc = PMIx_Fence(NULL, 0, NULL, 0);
    if (rc != PMIX_SUCCESS) check(false, "final fence", "%s", PMIx_Error_string(rc));
    PMIx_Finalize(NULL, 0);
    printf("rank %u: done\n", (unsigned)me.rank);
    return nfail == 0 ? 0 : 1;
}

static int run_abort(void)
{
    pmix_status_t rc = PMIx_Fence(NULL, 0, NULL, 0);
    if (rc != PMIX_SUCCESS) check(false, "fence", "%s", PMIx_Error_string(rc));
    if (me.rank == 1) {
        printf("rank 1: calling PMIx_Abort(7)\n");
        fflush(stdout);
        rc = PMIx_Abort(7, "slurm_client abort test", NULL, 0);
        /* the Standard lets PMIx_Abort return (Slurm's upcall answers, then kills the step) */
        printf("rank 1: PMIx_Abort returned %s\n", PMIx_Error_string(rc));
        fflush(stdout);
    }
    /* everybody waits to be killed by the host (25 s at most) */
    msleep(25000);
    printf("rank %u: still alive 25 s after the abort (the host did not kill the job)\n", (unsigned)me.rank);
    fflush(stdout);
    return 3;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "basic";
    uint32_t want = argc > 2 ? (uint32_t)atoi(argv[2]) : 0;
    pmix_status_t rc;

    alarm(40);
    setvbuf(stdout, NULL, _IOLBF, 0);
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("rank ?: FAIL init: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    printf("rank %u: version %s\n", (unsigned)me.rank, PMIx_Get_version());
    fflush(stdout);
    if (strcmp(mode, "basic") == 0) return run_basic(want);
    if (strcmp(mode, "abort") == 0) return run_abort();
    if (strcmp(mode, "event-host") == 0) return run_event_host(want);
    fprintf(stderr, "usage: slurm_client basic|abort|event-host N [marker]\n");
    return 2;
}
