/*
 * A PMIx tool: attaches to a running server by its pid (argv[1]) or through
 * the rendezvous file it wrote (argv[1] an absolute path), lists the
 * namespaces it serves, reads the size of the first job, logs a line through
 * the server, and detaches. Exit 0 when all of it worked.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix_tool.h>

int main(int argc, char **argv)
{
    pmix_proc_t me, job;
    pmix_info_t info, *results = NULL, logd;
    pmix_query_t query;
    pmix_value_t *val = NULL;
    size_t nresults = 0;
    pid_t pid;
    pmix_status_t rc;
    char *ns, *comma;

    if (argc < 2) {
        fprintf(stderr, "usage: tool_query <server pid>\n");
        return 2;
    }
    if (argv[1][0] == '/') {
        /* a rendezvous file the server wrote */
        PMIX_INFO_LOAD(&info, PMIX_TOOL_ATTACHMENT_FILE, argv[1], PMIX_STRING);
    } else {
        pid = (pid_t) atoi(argv[1]);
        PMIX_INFO_LOAD(&info, PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    }
    rc = PMIx_tool_init(&me, &info, 1);
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
