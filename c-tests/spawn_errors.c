/* PMIx_Spawn with what careless callers pass, under pmixrun:
 *  - an app whose argv is NULL (PMIX_APP_CONSTRUCT's default): the program
 *    runs with no arguments, and the spawn succeeds;
 *  - a program that does not exist: PMIX_ERR_JOB_EXE_NOT_FOUND, and the
 *    caller's own job goes on (it still fences and finalizes).
 * Prints one line per case and "spawn_errors: done"; exits 0 when every
 * case answered as expected. alarm(30) bounds it. */
#define _DEFAULT_SOURCE
#include <pmix.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int spawn_one(const char *cmd, int with_argv, char nspace[])
{
    pmix_app_t app;
    pmix_status_t rc;
    char *argv[2];

    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(cmd);
    if (with_argv) {
        argv[0] = (char *) cmd;
        argv[1] = NULL;
        app.argv = argv;
    }
    app.maxprocs = 1;
    rc = PMIx_Spawn(NULL, 0, &app, 1, nspace);
    app.argv = NULL; /* ours, on the stack */
    PMIX_APP_DESTRUCT(&app);
    return rc;
}

int main(void)
{
    pmix_proc_t me;
    pmix_status_t rc;
    char ns[PMIX_MAX_NSLEN + 1];
    int failed = 0;

    alarm(30);
    setvbuf(stdout, NULL, _IONBF, 0);
    if (PMIX_SUCCESS != (rc = PMIx_Init(&me, NULL, 0))) {
        printf("init: %s\n", PMIx_Error_string(rc));
        return 1;
    }

    memset(ns, 0, sizeof(ns));
    rc = spawn_one("/bin/true", 0, ns);
    printf("NULL argv: %s\n", PMIx_Error_string(rc));
    failed |= rc != PMIX_SUCCESS;

    memset(ns, 0, sizeof(ns));
    rc = spawn_one("/nonexistent/rpmix-no-such-program", 1, ns);
    printf("missing program: %s\n", PMIx_Error_string(rc));
    failed |= rc != PMIX_ERR_JOB_EXE_NOT_FOUND;

    /* the caller's job is still whole */
    rc = PMIx_Fence(NULL, 0, NULL, 0);
    printf("fence after: %s\n", PMIx_Error_string(rc));
    failed |= rc != PMIX_SUCCESS;

    PMIx_Finalize(NULL, 0);
    printf("spawn_errors: done\n");
    return failed;
}
