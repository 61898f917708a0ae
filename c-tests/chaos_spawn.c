/*
 * chaos_spawn: the program of the chaos rounds that strike in a spawn or a
 * connect (systests/tests/chaos.rs): a job whose rank 0 spawns a child job
 * of this program, then every process of both jobs connects.
 *
 *   pmixrun -n N ./chaos_spawn MARKER K GOFILE
 *
 * Parents (N ranks): PMIx_Init; rank 0 prints
 *   chaos: parent 0 spawn
 * and PMIx_Spawns K ranks of this program (app.cmd = realpath(argv[0]),
 * argv MARKER K child), then Puts the child namespace ("chaos.child"),
 * Commits, prints
 *   chaos: parent 0 spawned
 * and every parent fences (collecting) and Gets it from rank 0.
 * Children (K ranks, argv[4] == "child"): PMIx_Init, print
 *   chaos: child R up
 * take their parent's namespace from PMIX_PARENT_ID, and wait until
 * GOFILE exists (so the round can strike while the parents wait for them).
 * Then everybody prints
 *   chaos: parent|child R connect
 * and PMIx_Connects over {parent ns, WILDCARD}, {child ns, WILDCARD},
 * PMIx_Disconnects over the same, PMIx_Finalize and prints
 *   chaos: parent|child R done
 * (exit 0). A call that fails prints
 *   chaos: parent|child R <call> returned <status name>
 * and the process exits 3 (a process that the round killed is why).
 * MARKER is only there for the round to find its processes by argv.
 * alarm(60) bounds a process that hangs (it dies of SIGALRM: the round
 * fails).
 */
#define _DEFAULT_SOURCE
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

static const char *who = "parent";
static pmix_proc_t me;

static int failed(const char *call, pmix_status_t rc)
{
    printf("chaos: %s %u %s returned %s\n", who, (unsigned)me.rank, call, PMIx_Error_string(rc));
    return 3;
}

int main(int argc, char **argv)
{
    pmix_status_t rc;
    pmix_value_t *got = NULL;
    pmix_proc_t procs[2];
    char parent_ns[PMIX_MAX_NSLEN + 1] = "", child_ns[PMIX_MAX_NSLEN + 1] = "";
    const char *marker = argc > 1 ? argv[1] : "chaos";
    int k = argc > 2 ? atoi(argv[2]) : 1;
    const char *gofile = argc > 3 ? argv[3] : "/";
    bool child = argc > 4 && strcmp(argv[4], "child") == 0;
    alarm(60);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (child) who = "child";
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("chaos: %s PMIx_Init failed: %s\n", who, PMIx_Error_string(rc));
        return 2;
    }
    if (child) {
        printf("chaos: child %u up\n", (unsigned)me.rank);
        rc = PMIx_Get(&me, PMIX_PARENT_ID, NULL, 0, &got);
        if (rc != PMIX_SUCCESS) return failed("PMIx_Get(PMIX_PARENT_ID)", rc);
        if (got->type != PMIX_PROC || got->data.proc == NULL) return failed("PMIx_Get(PMIX_PARENT_ID)", PMIX_ERR_TYPE_MISMATCH);
        snprintf(parent_ns, sizeof(parent_ns), "%s", got->data.proc->nspace);
        snprintf(child_ns, sizeof(child_ns), "%s", me.nspace);
        PMIX_VALUE_RELEASE(got);
        /* (a pace: the round makes GOFILE after its strike) */
        while (access(gofile, F_OK) != 0) usleep(2000);
    } else {
        pmix_info_t collect;
        pmix_proc_t zero;
        bool yes = true;
        snprintf(parent_ns, sizeof(parent_ns), "%s", me.nspace);
        if (me.rank == 0) {
            char path[PATH_MAX], kstr[16];
            pmix_app_t app;
            pmix_nspace_t ns;
            pmix_value_t v;
            if (realpath(argv[0], path) == NULL) return failed("realpath", PMIX_ERR_NOT_FOUND);
            snprintf(kstr, sizeof(kstr), "%d", k);
            PMIX_APP_CONSTRUCT(&app);
            app.cmd = strdup(path);
            PMIX_ARGV_APPEND(rc, app.argv, path);
            PMIX_ARGV_APPEND(rc, app.argv, marker);
            PMIX_ARGV_APPEND(rc, app.argv, kstr);
            PMIX_ARGV_APPEND(rc, app.argv, gofile);
            PMIX_ARGV_APPEND(rc, app.argv, "child");
            app.maxprocs = k;
            printf("chaos: parent 0 spawn\n");
            rc = PMIx_Spawn(NULL, 0, &app, 1, ns);
            PMIX_APP_DESTRUCT(&app);
            if (rc != PMIX_SUCCESS) return failed("PMIx_Spawn", rc);
            PMIX_VALUE_CONSTRUCT(&v);
            PMIx_Value_load(&v, ns, PMIX_STRING);
            PMIx_Put(PMIX_GLOBAL, "chaos.child", &v);
            PMIX_VALUE_DESTRUCT(&v);
            PMIx_Commit();
            printf("chaos: parent 0 spawned\n");
        }
        PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
        rc = PMIx_Fence(NULL, 0, &collect, 1);
        if (rc != PMIX_SUCCESS) return failed("PMIx_Fence", rc);
        PMIX_LOAD_PROCID(&zero, me.nspace, 0);
        rc = PMIx_Get(&zero, "chaos.child", NULL, 0, &got);
        if (rc != PMIX_SUCCESS) return failed("PMIx_Get(chaos.child)", rc);
        if (got->type != PMIX_STRING || got->data.string == NULL) return failed("PMIx_Get(chaos.child)", PMIX_ERR_TYPE_MISMATCH);
        snprintf(child_ns, sizeof(child_ns), "%s", got->data.string);
        PMIX_VALUE_RELEASE(got);
    }
    PMIX_LOAD_PROCID(&procs[0], parent_ns, PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&procs[1], child_ns, PMIX_RANK_WILDCARD);
    printf("chaos: %s %u connect\n", who, (unsigned)me.rank);
    rc = PMIx_Connect(procs, 2, NULL, 0);
    if (rc != PMIX_SUCCESS) return failed("PMIx_Connect", rc);
    rc = PMIx_Disconnect(procs, 2, NULL, 0);
    if (rc != PMIX_SUCCESS) return failed("PMIx_Disconnect", rc);
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) return failed("PMIx_Finalize", rc);
    printf("chaos: %s %u done\n", who, (unsigned)me.rank);
    return 0;
}
