/*
 * chaos_rank: the program of the chaos rounds (systests/tests/chaos.rs):
 * a rank that says which phase it is in, so the round can strike there.
 *
 *   pmixrun -n N ./chaos_rank FENCES MARKER
 *   rm_simple -n N ./chaos_rank FENCES MARKER
 *
 * Every rank: PMIx_Init, then FENCES fences of the whole namespace (each
 * one collecting a value every rank Put before it), printing before each
 *   chaos: rank R fence I
 * and at the end "chaos: rank R done" after PMIx_Finalize (exit 0).
 * A fence that fails prints
 *   chaos: rank R fence I returned <status name>
 * and the rank exits 3 (a rank that a round killed or stopped is why).
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
    int fences = argc > 1 ? atoi(argv[1]) : 20;
    alarm(60);
    setvbuf(stdout, NULL, _IOLBF, 0);
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("chaos: PMIx_Init failed: %s\n", PMIx_Error_string(rc));
        return 2;
    }
    for (int i = 0; i < fences; i++) {
        pmix_value_t v;
        pmix_info_t collect;
        bool yes = true;
        uint32_t x = (uint32_t)i;
        printf("chaos: rank %u fence %d\n", (unsigned)me.rank, i);
        PMIX_VALUE_CONSTRUCT(&v);
        PMIx_Value_load(&v, &x, PMIX_UINT32);
        PMIx_Put(PMIX_GLOBAL, "chaos.i", &v);
        PMIX_VALUE_DESTRUCT(&v);
        PMIx_Commit();
        PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
        rc = PMIx_Fence(NULL, 0, &collect, 1);
        if (rc != PMIX_SUCCESS) {
            printf("chaos: rank %u fence %d returned %s\n", (unsigned)me.rank, i, PMIx_Error_string(rc));
            return 3;
        }
    }
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("chaos: rank %u finalize returned %s\n", (unsigned)me.rank, PMIx_Error_string(rc));
        return 3;
    }
    printf("chaos: rank %u done\n", (unsigned)me.rank);
    return 0;
}
