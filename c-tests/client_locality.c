/*
 * client_locality: binding and locality as the ranks of one job see them.
 *
 *   pmixrun --bind-to core -n N ./client_locality bound NPLACES
 *   pmixrun -n N ./client_locality unbound
 *
 * bound: the rank's PMIX_CPUSET (job data) is the binding PMIx_Get_cpuset
 * reports (and the kernel's); its PMIX_LOCALITY_STRING is what
 * PMIx_server_generate_locality_string gives for that cpuset; for every
 * peer, PMIx_Get_relative_locality of the two strings has
 * PMIX_LOCALITY_SHARE_NODE, and PMIX_LOCALITY_SHARE_CORE exactly when the
 * two ranks share a place (rank % NPLACES equal).
 * unbound: no PMIX_LOCALITY_STRING in the job data, and PMIx_Get_cpuset
 * reports every online CPU.
 * Prints "rank R: <check>: FAIL ..." per failed check and
 * "client_locality rank R: N passed, M failed".
 */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>
#include "testutil.h"

static char *get_string(pmix_rank_t r, const char *key, pmix_status_t *st)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    char *out = NULL;
    PMIX_PROC_LOAD(&p, me.nspace, r);
    *st = PMIx_Get(&p, key, NULL, 0, &v);
    if (*st == PMIX_SUCCESS && v && v->type == PMIX_STRING && v->data.string) out = strdup(v->data.string);
    if (v) PMIX_VALUE_RELEASE(v);
    return out;
}

int main(int argc, char **argv)
{
    pmix_status_t rc;
    pmix_value_t *val = NULL;
    pmix_proc_t wild;
    pmix_cpuset_t cs;
    uint32_t size = 0, r;
    char *mine_cpus, *mine_loc, *got = NULL, *gen = NULL;
    bool bound;
    long nplaces;

    if (argc < 2 || (strcmp(argv[1], "bound") != 0 && strcmp(argv[1], "unbound") != 0) ||
        (strcmp(argv[1], "bound") == 0 && argc < 3)) {
        fprintf(stderr, "usage: client_locality bound NPLACES | unbound\n");
        return 2;
    }
    bound = strcmp(argv[1], "bound") == 0;
    nplaces = bound ? atol(argv[2]) : 0;
    alarm(30);
    setvbuf(stdout, NULL, _IOLBF, 0);
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("client_locality: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    PMIX_PROC_LOAD(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val) == PMIX_SUCCESS && val) {
        size = val->data.uint32;
        PMIX_VALUE_RELEASE(val);
    }

    PMIX_CPUSET_CONSTRUCT(&cs);
    rc = PMIx_Get_cpuset(&cs, PMIX_CPUBIND_PROCESS);
    check(rc == PMIX_SUCCESS, "Get_cpuset", "%s", PMIx_Error_string(rc));
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_server_generate_cpuset_string(&cs, &got);
        check(rc == PMIX_SUCCESS && got && strncmp(got, "hwloc:", 6) == 0, "cpuset string", "%s %s", PMIx_Error_string(rc), got ? got : "(null)");
    }
    mine_cpus = get_string(me.rank, PMIX_CPUSET, &rc);
    mine_loc = get_string(me.rank, PMIX_LOCALITY_STRING, &rc);
    if (bound) {
        check(mine_cpus != NULL, "PMIX_CPUSET", "not in the job data");
        check(mine_loc != NULL, "PMIX_LOCALITY_STRING", "not in the job data: %s", PMIx_Error_string(rc));
        if (mine_cpus && got) check(strcmp(got + 6, mine_cpus) == 0, "binding", "bound to %s, job data says %s", got + 6, mine_cpus);
        if (mine_loc) {
            rc = PMIx_server_generate_locality_string(&cs, &gen);
            check(rc == PMIX_SUCCESS && gen && strcmp(gen, mine_loc) == 0, "locality string", "generated %s, job data %s", gen ? gen : "(null)", mine_loc);
        }
        for (r = 0; r < size && mine_loc; r++) {
            pmix_locality_t l = 0;
            char *peer = get_string(r, PMIX_LOCALITY_STRING, &rc);
            bool same = (long)r % nplaces == (long)me.rank % nplaces;
            check(peer != NULL, "peer locality", "rank %u: %s", (unsigned)r, PMIx_Error_string(rc));
            if (!peer) continue;
            rc = PMIx_Get_relative_locality(mine_loc, peer, &l);
            check(rc == PMIX_SUCCESS && (l & PMIX_LOCALITY_SHARE_NODE), "relative locality", "rank %u: %s 0x%x", (unsigned)r, PMIx_Error_string(rc), (unsigned)l);
            check(!!(l & PMIX_LOCALITY_SHARE_CORE) == same, "relative locality", "rank %u (%s vs %s): share-core %d, expected %d",
                  (unsigned)r, mine_loc, peer, !!(l & PMIX_LOCALITY_SHARE_CORE), (int)same);
            free(peer);
        }
    } else {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        char all[64];
        snprintf(all, sizeof all, n > 1 ? "hwloc:0-%ld" : "hwloc:0", n - 1);
        check(mine_loc == NULL, "unbound", "a PMIX_LOCALITY_STRING (%s) for an unbound rank", mine_loc ? mine_loc : "");
        if (got) check(strcmp(got, all) == 0, "unbound", "Get_cpuset %s, expected %s", got, all);
    }
    free(got);
    free(gen);
    free(mine_cpus);
    free(mine_loc);
    PMIx_Cpuset_destruct(&cs);
    printf("client_locality rank %u: %d passed, %d failed\n", (unsigned)me.rank, npass, nfail);
    PMIx_Finalize(NULL, 0);
    return nfail ? 1 : 0;
}
