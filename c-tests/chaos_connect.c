/*
 * chaos_connect: the program of the chaos rounds that strike in a connect
 * among the ranks of one job (systests/tests/chaos.rs).
 *
 *   pmixrun -n N ./chaos_connect MARKER G HELD GOFILE
 *
 * The ranks form groups of G consecutive ranks (the last group takes the
 * remainder; G >= N: one group, the whole job, named by
 * PMIX_RANK_WILDCARD). Every rank calls PMIx_Init; rank HELD prints
 *   chaos: rank R held
 * and waits until GOFILE exists (so the round can strike while its group
 * waits for it). Then every rank prints
 *   chaos: rank R connect
 * PMIx_Connects with its group, PMIx_Disconnects from it, PMIx_Finalize
 * and prints "chaos: rank R done" (exit 0). A call that fails prints
 *   chaos: rank R <call> returned <status name>
 * and the rank exits 3 (a rank that the round killed is why).
 * MARKER is only there for the round to find its processes by argv.
 * alarm(60) bounds a rank that hangs (it dies of SIGALRM: the round fails).
 */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <pmix.h>

static pmix_proc_t me;

static int failed(const char *call, pmix_status_t rc)
{
    printf("chaos: rank %u %s returned %s\n", (unsigned) me.rank, call, PMIx_Error_string(rc));
    return 3;
}

int main(int argc, char **argv)
{
    pmix_status_t rc;
    pmix_value_t *got = NULL;
    pmix_proc_t wild, *procs;
    uint32_t size, g, ngroups, lo, hi, nprocs, r;
    long group = argc > 2 ? atol(argv[2]) : 2;
    long held = argc > 3 ? atol(argv[3]) : -1;
    const char *gofile = argc > 4 ? argv[4] : "/";
    alarm(60);
    setvbuf(stdout, NULL, _IOLBF, 0);
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("chaos: PMIx_Init failed: %s\n", PMIx_Error_string(rc));
        return 2;
    }
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &got);
    if (rc != PMIX_SUCCESS) return failed("PMIx_Get(PMIX_JOB_SIZE)", rc);
    size = got->data.uint32;
    PMIX_VALUE_RELEASE(got);
    if (group < 1) group = 1;
    if ((uint32_t) group >= size) {
        nprocs = 1;
        procs = malloc(sizeof *procs);
        if (procs == NULL) return 4;
        procs[0] = wild;
    } else {
        ngroups = size / (uint32_t) group;
        g = me.rank / (uint32_t) group;
        if (g > ngroups - 1) g = ngroups - 1;
        lo = g * (uint32_t) group;
        hi = g == ngroups - 1 ? size : lo + (uint32_t) group;
        nprocs = hi - lo;
        procs = malloc(nprocs * sizeof *procs);
        if (procs == NULL) return 4;
        for (r = lo; r < hi; r++) PMIX_LOAD_PROCID(&procs[r - lo], me.nspace, r);
    }
    if ((long) me.rank == held) {
        printf("chaos: rank %u held\n", (unsigned) me.rank);
        /* (a pace: the round makes GOFILE after its strike) */
        while (access(gofile, F_OK) != 0) usleep(2000);
    }
    printf("chaos: rank %u connect\n", (unsigned) me.rank);
    rc = PMIx_Connect(procs, nprocs, NULL, 0);
    if (rc != PMIX_SUCCESS) return failed("PMIx_Connect", rc);
    rc = PMIx_Disconnect(procs, nprocs, NULL, 0);
    if (rc != PMIX_SUCCESS) return failed("PMIx_Disconnect", rc);
    free(procs);
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) return failed("PMIx_Finalize", rc);
    printf("chaos: rank %u done\n", (unsigned) me.rank);
    return 0;
}
