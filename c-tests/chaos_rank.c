/*
 * chaos_rank: the program of the chaos rounds (systests/tests/chaos.rs):
 * a rank that says which phase it is in, so the round can strike there,
 * and goes on until the round says stop.
 *
 *   pmixrun -n N ./chaos_rank STOPFILE MARKER [HOLDFILE]
 *   rm_simple -n N ./chaos_rank STOPFILE MARKER [HOLDFILE]
 *
 * Every rank waits until HOLDFILE (if given) exists (so the round can find
 * a rank's process before it connects), prints
 *   chaos: rank R init
 * (R from PMIX_RANK in its environment) and calls PMIx_Init, then fences of the whole namespace that collect
 * data, printing before each of the first 20
 *   chaos: rank R fence I
 * Before fence I rank 0 Puts "chaos.stop.I": whether STOPFILE exists; after
 * it every rank Gets that value, so all stop after the same fence (at most
 * 100,000). Then PMIx_Finalize and "chaos: rank R done" (exit 0).
 * A fence (or that Get) that fails prints
 *   chaos: rank R fence I returned <status name>
 * and the rank exits 3 (a rank that the round killed is why).
 * MARKER is only there for the round to find its processes by argv.
 * alarm(60) bounds a rank that hangs (it dies of SIGALRM: the round fails).
 */
#define _DEFAULT_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <pmix.h>

int main(int argc, char **argv)
{
    pmix_proc_t me;
    pmix_status_t rc;
    const char *stopfile = argc > 1 ? argv[1] : "/nonexistent";
    alarm(60);
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* (a pace: the round makes HOLDFILE when it is ready to strike) */
    while (argc > 3 && access(argv[3], F_OK) != 0) usleep(2000);
    printf("chaos: rank %s init\n", getenv("PMIX_RANK") ? getenv("PMIX_RANK") : "?");
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("chaos: PMIx_Init failed: %s\n", PMIx_Error_string(rc));
        return 2;
    }
    for (int i = 0; i < 100000; i++) {
        pmix_info_t collect;
        pmix_proc_t zero;
        pmix_value_t *got = NULL;
        bool yes = true, stop;
        char key[64];
        snprintf(key, sizeof(key), "chaos.stop.%d", i);
        if (i < 20) printf("chaos: rank %u fence %d\n", (unsigned)me.rank, i);
        if (me.rank == 0) {
            pmix_value_t v;
            bool there = access(stopfile, F_OK) == 0;
            PMIX_VALUE_CONSTRUCT(&v);
            PMIx_Value_load(&v, &there, PMIX_BOOL);
            PMIx_Put(PMIX_GLOBAL, key, &v);
            PMIX_VALUE_DESTRUCT(&v);
            PMIx_Commit();
        }
        PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
        rc = PMIx_Fence(NULL, 0, &collect, 1);
        if (rc == PMIX_SUCCESS) {
            PMIX_LOAD_PROCID(&zero, me.nspace, 0);
            rc = PMIx_Get(&zero, key, NULL, 0, &got);
        }
        if (rc != PMIX_SUCCESS) {
            printf("chaos: rank %u fence %d returned %s\n", (unsigned)me.rank, i, PMIx_Error_string(rc));
            return 3;
        }
        stop = got->type == PMIX_BOOL && got->data.flag;
        PMIX_VALUE_RELEASE(got);
        if (stop) break;
        /* (a pace: the round's strike lands among the fences) */
        usleep(2000);
    }
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("chaos: rank %u finalize returned %s\n", (unsigned)me.rank, PMIx_Error_string(rc));
        return 3;
    }
    printf("chaos: rank %u done\n", (unsigned)me.rank);
    return 0;
}
