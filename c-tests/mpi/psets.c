/* MPI Sessions' process sets, as an Open MPI 5 rank sees them (no MPI_Init).
 *
 *   launcher -n 2 --pset first psets once|wait first,second[,...] : -n 2 ...
 *
 * Each rank prints ("psets <world rank>: ..."):
 *   num N                       MPI_Session_get_num_psets
 *   name I NAME                 MPI_Session_get_nth_pset, for each I
 *   group NAME size S rank R    MPI_Group_from_session_pset of each NAME of
 *                               the list given (or "group NAME error E",
 *                               the MPI error class)
 * With "wait": then "ready", then waits (30 s at most) until the number of
 * sets changes (a set defined from outside while it runs), and prints them
 * all again. Exit 0 unless an MPI call failed (a "FAIL" line says which). */
#include "pmixver.h"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int me = -1, failed = 0;

static void fail(const char *what, int rc)
{
    printf("psets %d: FAIL %s: error %d\n", me, what, rc);
    failed = 1;
}

static int num_psets(MPI_Session s)
{
    int n = -1, rc = MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n);
    if (rc != MPI_SUCCESS) fail("MPI_Session_get_num_psets", rc);
    return n;
}

static void print_sets(MPI_Session s, const char *groups)
{
    char list[1024];
    int n = num_psets(s);
    printf("psets %d: num %d\n", me, n);
    for (int i = 0; i < n; i++) {
        char name[MPI_MAX_PSET_NAME_LEN + 1] = "";
        int len = 0, rc = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL);
        if (rc == MPI_SUCCESS && len > 0 && len <= (int)sizeof(name)) {
            rc = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name);
        }
        if (rc != MPI_SUCCESS) {
            fail("MPI_Session_get_nth_pset", rc);
            continue;
        }
        printf("psets %d: name %d %s\n", me, i, name);
    }
    snprintf(list, sizeof(list), "%s", groups);
    for (char *save = NULL, *name = strtok_r(list, ",", &save); name != NULL; name = strtok_r(NULL, ",", &save)) {
        MPI_Group g;
        int rc = MPI_Group_from_session_pset(s, name, &g);
        if (rc != MPI_SUCCESS) {
            int cls = -1;
            MPI_Error_class(rc, &cls);
            printf("psets %d: group %s error %d\n", me, name, cls);
            continue;
        }
        int size = -1, r = -1;
        MPI_Group_size(g, &size);
        MPI_Group_rank(g, &r);
        printf("psets %d: group %s size %d rank %d\n", me, name, size, r == MPI_UNDEFINED ? -1 : r);
        MPI_Group_free(&g);
    }
    fflush(stdout);
}

int main(int argc, char **argv)
{
    MPI_Session s;
    MPI_Group world;
    int wait = argc > 1 && strcmp(argv[1], "wait") == 0;
    const char *groups = argc > 2 ? argv[2] : "";
    int rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
    if (rc != MPI_SUCCESS) {
        printf("psets: FAIL MPI_Session_init: error %d\n", rc);
        return 1;
    }
    rc = MPI_Group_from_session_pset(s, "mpi://WORLD", &world);
    if (rc != MPI_SUCCESS) {
        fail("MPI_Group_from_session_pset(mpi://WORLD)", rc);
    } else {
        MPI_Group_rank(world, &me);
        MPI_Group_free(&world);
    }
    print_sets(s, groups);
    if (wait) {
        int before = num_psets(s), now = before;
        struct timespec tick = {0, 50 * 1000 * 1000};
        printf("psets %d: ready\n", me);
        fflush(stdout);
        /* MPI has no event for it: the count is asked again (each time of
         * the PMIx server) until it changes */
        for (int i = 0; i < 600 && now == before; i++) {
            nanosleep(&tick, NULL);
            now = num_psets(s);
        }
        if (now == before) {
            printf("psets %d: FAIL no new set within 30 s\n", me);
            failed = 1;
        } else {
            print_sets(s, groups);
        }
    }
    MPI_Session_finalize(&s);
    return failed;
}
