/*
 * fault_fence_kill: a rank dies (SIGKILL) right before a fence the others
 * enter. The others must not hang: their PMIx_Fence returns an error
 * (PMIX_ERR_LOST_CONNECTION or similar) or the launcher kills them.
 *
 *   pmixrun -n N ./fault_fence_kill [now|late|early]     (N >= 2)
 *   rm_simple -n N ./fault_fence_kill [now|late|early]
 *
 * Every rank: PMIx_Init, a first fence (everybody is connected), then
 *   now    (default) rank N-1 raises SIGKILL at once, the others enter the
 *          fence at once (which of the two the server sees first is a race)
 *   late   the others enter the fence; rank N-1 dies 1 s later (the server
 *          has the fence in progress when the connection drops)
 *   early  rank N-1 dies at once; the others enter the fence 1 s later (the
 *          server already knows the connection is gone)
 * With FENCE_KILL_COLLECT set in the environment, that fence collects data
 * (PMIX_COLLECT_DATA).
 * A surviving rank whose fence returns prints (stdout)
 *   fault_fence_kill: rank R fence returned <status name>
 * and exits 3 (also when the fence wrongly succeeded: the driver checks the
 * status). alarm() ends a rank stuck for 20 s (killed by SIGALRM), so a hang
 * shows as a slow, signal-terminated job rather than a hung test.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

static void msleep(long ms)
{
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "now";
    pmix_proc_t me, wild;
    pmix_value_t *v = NULL;
    pmix_status_t rc;
    uint32_t n = 0;

    alarm(20);
    if (strcmp(mode, "now") != 0 && strcmp(mode, "late") != 0 && strcmp(mode, "early") != 0) {
        fprintf(stderr, "usage: fault_fence_kill [now|late|early]\n");
        return 2;
    }
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("fault_fence_kill: PMIx_Init failed: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
    if (rc == PMIX_SUCCESS && v != NULL && v->type == PMIX_UINT32) n = v->data.uint32;
    if (v != NULL) PMIX_VALUE_RELEASE(v);
    if (n < 2) {
        printf("fault_fence_kill: needs at least 2 ranks (job size %u)\n", (unsigned)n);
        PMIx_Finalize(NULL, 0);
        return 1;
    }
    rc = PMIx_Fence(NULL, 0, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("fault_fence_kill: rank %u: first fence failed: %s\n", (unsigned)me.rank, PMIx_Error_string(rc));
        PMIx_Finalize(NULL, 0);
        return 1;
    }
    fflush(stdout);
    if (me.rank == n - 1) {
        if (strcmp(mode, "late") == 0) msleep(1000);
        raise(SIGKILL);
        return 4; /* not reached */
    }
    if (strcmp(mode, "early") == 0) msleep(1000);
    if (getenv("FENCE_KILL_COLLECT") != NULL) {
        /* a fence with data (under Slurm: its ring algorithm across nodes) */
        pmix_info_t collect;
        bool yes = true;
        PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
        rc = PMIx_Fence(NULL, 0, &collect, 1);
        PMIX_INFO_DESTRUCT(&collect);
    } else {
        rc = PMIx_Fence(NULL, 0, NULL, 0);
    }
    printf("fault_fence_kill: rank %u fence returned %s\n", (unsigned)me.rank, PMIx_Error_string(rc));
    fflush(stdout);
    return 3;
}
