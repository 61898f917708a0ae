/*
 * A minimal PMIx server for the session-directory tests:
 *   server_dirs [sys] [sched] [ctrl] [rmclean] [tool] [sleep=S]
 * initialises with the matching attributes (system server, scheduler, system
 * controller, PMIX_TDIR_RMCLEAN, tool support), prints its init status and
 * its URI (from PMIx_server_setup_fork of an unregistered proc, which needs
 * no registration), stays up S seconds, finalises. Exit 0 after a successful init, 3 if init failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pmix.h>
#include <pmix_server.h>

int main(int argc, char **argv)
{
    pmix_server_module_t module;
    pmix_info_t info[8];
    size_t n = 0;
    int i, secs = 0;
    pmix_status_t rc;

    memset(&module, 0, sizeof(module));
    for (i = 1; i < argc; i++) {
        const char *key = NULL;
        if (strcmp(argv[i], "sys") == 0) key = PMIX_SERVER_SYSTEM_SUPPORT;
        else if (strcmp(argv[i], "sched") == 0) key = PMIX_SERVER_SCHEDULER;
        else if (strcmp(argv[i], "ctrl") == 0) key = "pmix.srv.ctrlr"; /* PMIX_SERVER_SYS_CONTROLLER after 4.2 */
        else if (strcmp(argv[i], "rmclean") == 0) key = PMIX_TDIR_RMCLEAN;
        else if (strcmp(argv[i], "tool") == 0) key = PMIX_SERVER_TOOL_SUPPORT;
        else if (strncmp(argv[i], "sleep=", 6) == 0) secs = atoi(argv[i] + 6);
        else {
            fprintf(stderr, "server_dirs: unknown argument %s\n", argv[i]);
            return 2;
        }
        if (key) PMIX_INFO_LOAD(&info[n++], key, NULL, PMIX_BOOL);
    }
    rc = PMIx_server_init(&module, n ? info : NULL, n);
    printf("server_dirs: init %s\n", PMIx_Error_string(rc));
    fflush(stdout);
    if (rc != PMIX_SUCCESS) return 3;
    {
        pmix_proc_t p;
        char **env = NULL;
        PMIX_LOAD_PROCID(&p, "server_dirs.probe", 0);
        if (PMIx_server_setup_fork(&p, &env) == PMIX_SUCCESS) {
            for (i = 0; env && env[i]; i++) {
                if (strncmp(env[i], "PMIX_RPMIX_URI=", 15) == 0) printf("server_dirs: uri %s\n", env[i] + 15);
                free(env[i]);
            }
            free(env);
        }
        fflush(stdout);
    }
    sleep((unsigned) secs);
    rc = PMIx_server_finalize();
    return rc == PMIX_SUCCESS ? 0 : 1;
}
