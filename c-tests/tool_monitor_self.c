/* A tool attaches to a server (its pid as argv[1]), asks for a heartbeat
 * monitor on itself (1 s, no missed beat allowed) and leaves without a
 * heartbeat. The monitor ends with the tool's connection: the job it
 * attached to must not be stopped for it. Prints the monitor request's
 * status; exits 0 when the attach and the request succeeded. */
#include <pmix_tool.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    pmix_proc_t me;
    pmix_info_t attach, monitor, dirs[2];
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    pmix_status_t rc;
    pid_t pid;
    uint32_t period = 1, drops = 0;
    bool t = true;

    if (argc < 2) {
        fprintf(stderr, "usage: tool_monitor_self <server pid>\n");
        return 2;
    }
    pid = (pid_t) atoi(argv[1]);
    PMIX_INFO_LOAD(&attach, PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    rc = PMIx_tool_init(&me, &attach, 1);
    if (PMIX_SUCCESS != rc) {
        printf("tool_monitor_self: attach: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    PMIX_INFO_LOAD(&monitor, PMIX_MONITOR_HEARTBEAT, &t, PMIX_BOOL);
    PMIX_INFO_LOAD(&dirs[0], PMIX_MONITOR_HEARTBEAT_TIME, &period, PMIX_UINT32);
    PMIX_INFO_LOAD(&dirs[1], PMIX_MONITOR_HEARTBEAT_DROPS, &drops, PMIX_UINT32);
    rc = PMIx_Process_monitor(&monitor, PMIX_MONITOR_HEARTBEAT_ALERT, dirs, 2, &results, &nresults);
    printf("tool_monitor_self: monitor: %s\n", PMIx_Error_string(rc));
    if (NULL != results) {
        PMIX_INFO_FREE(results, nresults);
    }
    PMIx_tool_finalize();
    return rc == PMIX_SUCCESS ? 0 : 1;
}
