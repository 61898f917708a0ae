/*
 * A PMIx tool: attaches to a running server by its pid (argv[1]), through
 * the rendezvous file it wrote (argv[1] an absolute path), by its namespace
 * (argv[1] "ns:NAME", PMIX_SERVER_NSPACE) or by pid after looking for a
 * system server first (argv[1] "sysfirst:PID", PMIX_CONNECT_SYSTEM_FIRST);
 * with argv[2] = N, retrying N times a second apart while the server is
 * not there (PMIX_CONNECT_MAX_RETRIES, PMIX_CONNECT_RETRY_DELAY). It lists the
 * namespaces it serves, reads the size of the first job, logs a line through
 * the server, and detaches. Exit 0 when all of it worked.
 */
#define _DEFAULT_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix_tool.h>

int main(int argc, char **argv)
{
    pmix_proc_t me, job;
    pmix_info_t info[4], *results = NULL, logd;
    size_t ninfo = 1;
    bool yes = true;
    uint32_t retries, delay = 1;
    pmix_query_t query;
    pmix_value_t *val = NULL;
    size_t nresults = 0;
    pid_t pid;
    pmix_status_t rc;
    char *ns, *comma;

    if (argc < 2) {
        fprintf(stderr, "usage: tool_query <server pid> | /rendezvous/file | ns:NSPACE | sysfirst:PID [retries]\n");
        return 2;
    }
    if (argv[1][0] == '/') {
        /* a rendezvous file the server wrote */
        PMIX_INFO_LOAD(&info[0], PMIX_TOOL_ATTACHMENT_FILE, argv[1], PMIX_STRING);
    } else if (strncmp(argv[1], "ns:", 3) == 0) {
        PMIX_INFO_LOAD(&info[0], PMIX_SERVER_NSPACE, argv[1] + 3, PMIX_STRING);
    } else if (strncmp(argv[1], "sysfirst:", 9) == 0) {
        pid = (pid_t) atoi(argv[1] + 9);
        PMIX_INFO_LOAD(&info[0], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_CONNECT_SYSTEM_FIRST, &yes, PMIX_BOOL);
    } else {
        pid = (pid_t) atoi(argv[1]);
        PMIX_INFO_LOAD(&info[0], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    }
    if (argc > 2) {
        retries = (uint32_t) atoi(argv[2]);
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_CONNECT_MAX_RETRIES, &retries, PMIX_UINT32);
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_CONNECT_RETRY_DELAY, &delay, PMIX_UINT32);
    }
    rc = PMIx_tool_init(&me, info, ninfo);
    if (rc != PMIX_SUCCESS) {
        printf("tool_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    PMIX_QUERY_CONSTRUCT(&query);
    PMIX_ARGV_APPEND(rc, query.keys, PMIX_QUERY_NAMESPACES);
    rc = PMIx_Query_info(&query, 1, &results, &nresults);
    if (rc != PMIX_SUCCESS || nresults != 1 || results[0].value.type != PMIX_STRING) {
        printf("query: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    ns = strdup(results[0].value.data.string);
    printf("tool: namespaces %s\n", ns);
    comma = strchr(ns, ',');
    if (comma) *comma = '\0';
    PMIX_LOAD_PROCID(&job, ns, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &val);
    if (rc != PMIX_SUCCESS || val->type != PMIX_UINT32) {
        printf("get job size: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    printf("tool: job %s has %u ranks\n", ns, val->data.uint32);
    PMIX_VALUE_RELEASE(val);
    PMIX_INFO_LOAD(&logd, PMIX_LOG_STDERR, "hello from a tool", PMIX_STRING);
    rc = PMIx_Log(&logd, 1, NULL, 0);
    printf("tool: log %s\n", PMIx_Error_string(rc));
    PMIX_QUERY_DESTRUCT(&query);
    PMIX_INFO_FREE(results, nresults);
    free(ns);
    rc = PMIx_tool_finalize();
    return rc == PMIX_SUCCESS ? 0 : 1;
}
