/*
 * tool_pull: a PMIx tool that attaches to a running server by its pid,
 * asks it for its namespaces (PMIX_QUERY_NAMESPACES), pulls the stdout of
 * every rank of the first one and prints what arrives, one line per chunk:
 * "tool_pull: rank <r>: <bytes>" (after "tool_pull: pulling <nspace>" once
 * the pull is registered). It ends when <nranks> streams have said
 * PMIX_IOF_COMPLETE (then prints "tool_pull: <nranks> streams complete"),
 * or after 20 s (exit 1). Written against the public API only, so it runs
 * on either library (the callback gets the bytes as they came: no tags).
 *
 *   tool_pull <server pid> <nranks>
 */
#define _GNU_SOURCE
#include <pmix_tool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int complete;

static void on_output(size_t h, pmix_iof_channel_t ch, pmix_proc_t *src, pmix_byte_object_t *bo,
                      pmix_info_t *info, size_t ninfo)
{
    size_t i;
    (void) h;
    (void) ch;
    if (bo != NULL && bo->size > 0) {
        printf("tool_pull: rank %u: %.*s", src->rank, (int) bo->size, bo->bytes);
        if (bo->bytes[bo->size - 1] != '\n') printf("\n");
        fflush(stdout);
    }
    for (i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_IOF_COMPLETE) && PMIX_INFO_TRUE(&info[i]))
            __sync_fetch_and_add(&complete, 1);
}

int main(int argc, char **argv)
{
    pmix_proc_t me, job;
    pmix_info_t info, *results = NULL;
    pmix_query_t q;
    pmix_status_t rc;
    pid_t pid;
    size_t nres = 0;
    int nranks, i;
    char *ns;

    if (argc != 3) {
        fprintf(stderr, "usage: tool_pull <server pid> <nranks>\n");
        return 2;
    }
    pid = (pid_t) atoi(argv[1]);
    nranks = atoi(argv[2]);
    PMIX_INFO_LOAD(&info, PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    if ((rc = PMIx_tool_init(&me, &info, 1)) != PMIX_SUCCESS) {
        printf("tool_pull: tool_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    PMIX_QUERY_CONSTRUCT(&q);
    PMIX_ARGV_APPEND(rc, q.keys, PMIX_QUERY_NAMESPACES);
    rc = PMIx_Query_info(&q, 1, &results, &nres);
    if (rc != PMIX_SUCCESS || nres < 1 || results[0].value.type != PMIX_STRING) {
        printf("tool_pull: query: %s\n", PMIx_Error_string(rc));
        PMIx_tool_finalize();
        return 1;
    }
    ns = strdup(results[0].value.data.string);
    if (strchr(ns, ',')) *strchr(ns, ',') = '\0';
    PMIX_INFO_FREE(results, nres);
    PMIX_LOAD_PROCID(&job, ns, PMIX_RANK_WILDCARD);
    rc = PMIx_IOF_pull(&job, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, on_output, NULL, NULL);
    if (rc < 0) {
        printf("tool_pull: pull: %s\n", PMIx_Error_string(rc));
        PMIx_tool_finalize();
        return 1;
    }
    printf("tool_pull: pulling %s\n", ns);
    fflush(stdout);
    for (i = 0; i < 200 && complete < nranks; i++) usleep(100 * 1000);
    if (complete >= nranks) printf("tool_pull: %d streams complete\n", nranks);
    fflush(stdout);
    PMIx_tool_finalize();
    free(ns);
    return complete >= nranks ? 0 : 1;
}
