/*
 * spawn_chain: a job that spawns a job that spawns again, each generation
 * connecting with the next (for the soak, systests/tests/soak.rs).
 *
 *   pmixrun -n 1 ./spawn_chain [DEPTH]          (DEPTH default 2)
 *
 * Rank 0 of a generation with DEPTH > 0 spawns one rank of this program
 * with DEPTH-1 and "child" (app.cmd = realpath(argv[0])) and PMIx_Connects with it
 * over {own ns, WILDCARD}, {child ns, WILDCARD}, then disconnects. A
 * spawned generation ("child": its PMIX_PARENT_ID names the generation
 * above; a job a tool launched has the tool as its parent, which it does
 * not connect with) first does its own spawn, then
 * the connect and disconnect with its parent over {parent ns, WILDCARD},
 * {own ns, WILDCARD}: every connect lists the parent first, so the chain
 * completes from its far end back. The first generation prints
 *   spawn_chain: DEPTH generations below connected
 * and every process exits 0 when all its calls succeeded (else it prints
 * the failure and exits 1). alarm(60) bounds each process.
 */
#define _DEFAULT_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

static int fail(const char *what, pmix_status_t rc)
{
    printf("spawn_chain: %s: %s\n", what, PMIx_Error_string(rc));
    PMIx_Finalize(NULL, 0);
    return 1;
}

/* Connect, then disconnect, `first` and `second` (both whole namespaces). */
static pmix_status_t pair(const char *first, const char *second)
{
    pmix_proc_t procs[2];
    pmix_status_t rc;
    PMIX_LOAD_PROCID(&procs[0], first, PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&procs[1], second, PMIX_RANK_WILDCARD);
    rc = PMIx_Connect(procs, 2, NULL, 0);
    if (rc == PMIX_SUCCESS) rc = PMIx_Disconnect(procs, 2, NULL, 0);
    return rc;
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    pmix_value_t *parent = NULL;
    pmix_status_t rc;
    int depth = argc > 1 ? atoi(argv[1]) : 2;
    char parent_ns[PMIX_MAX_NSLEN + 1] = "";
    alarm(60);
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("spawn_chain: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (argc > 2 && strcmp(argv[2], "child") == 0) {
        rc = PMIx_Get(&me, PMIX_PARENT_ID, NULL, 0, &parent);
        if (rc != PMIX_SUCCESS || parent == NULL) return fail("PMIX_PARENT_ID", rc);
        if (parent->type == PMIX_PROC && parent->data.proc != NULL) {
            snprintf(parent_ns, sizeof(parent_ns), "%s", parent->data.proc->nspace);
        }
        PMIX_VALUE_RELEASE(parent);
    }
    if (depth > 0 && me.rank == 0) {
        char path[PATH_MAX], next[16];
        char *args[4];
        pmix_app_t app;
        pmix_nspace_t child;
        if (realpath(argv[0], path) == NULL) return fail("realpath", PMIX_ERR_NOT_FOUND);
        snprintf(next, sizeof(next), "%d", depth - 1);
        args[0] = path;
        args[1] = next;
        args[2] = "child";
        args[3] = NULL;
        PMIX_APP_CONSTRUCT(&app);
        app.cmd = strdup(path);
        app.argv = NULL;
        for (int i = 0; args[i] != NULL; i++) PMIX_ARGV_APPEND(rc, app.argv, args[i]);
        app.maxprocs = 1;
        rc = PMIx_Spawn(NULL, 0, &app, 1, child);
        PMIX_APP_DESTRUCT(&app);
        if (rc != PMIX_SUCCESS) return fail("PMIx_Spawn", rc);
        rc = pair(me.nspace, child);
        if (rc != PMIX_SUCCESS) return fail("connect with the child", rc);
    }
    if (parent_ns[0] != '\0') {
        rc = pair(parent_ns, me.nspace);
        if (rc != PMIX_SUCCESS) return fail("connect with the parent", rc);
    } else if (me.rank == 0) {
        printf("spawn_chain: %d generations below connected\n", depth);
    }
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("spawn_chain: PMIx_Finalize: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    return 0;
}
