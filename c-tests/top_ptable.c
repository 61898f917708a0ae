/*
 * top_ptable: PMIX_QUERY_PROC_TABLE of a running job, as a debugger or
 * OpenPMIx's tools ask it. Built against OpenPMIx's headers, so the same
 * binary runs on rpmix and on OpenPMIx's library (a tool over TCP).
 *
 *   top_ptable <server pid> <namespace>
 *
 * Attaches to the server of that pid, asks the proc table of the namespace
 * and prints "entries N", then one line per entry: "rank R host H exe E pid P
 * state S" (S: the state's name). Exit 0 when every step worked.
 */
#define _GNU_SOURCE
#include <pmix_tool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    pmix_proc_t me;
    pmix_info_t info;
    pmix_query_t q;
    pmix_info_t *res = NULL;
    size_t nres = 0, i, k;
    pid_t pid;
    pmix_status_t rc;
    if (argc != 3) {
        fprintf(stderr, "usage: top_ptable <server pid> <namespace>\n");
        return 2;
    }
    pid = (pid_t)atoi(argv[1]);
    PMIX_INFO_LOAD(&info, PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    rc = PMIx_tool_init(&me, &info, 1);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "top_ptable: PMIx_tool_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    PMIX_QUERY_CONSTRUCT(&q);
    PMIX_ARGV_APPEND(rc, q.keys, PMIX_QUERY_PROC_TABLE);
    q.nqual = 1;
    PMIX_INFO_CREATE(q.qualifiers, 1);
    PMIX_INFO_LOAD(&q.qualifiers[0], PMIX_NSPACE, argv[2], PMIX_STRING);
    rc = PMIx_Query_info(&q, 1, &res, &nres);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "top_ptable: PMIx_Query_info: %s\n", PMIx_Error_string(rc));
        PMIx_tool_finalize();
        return 1;
    }
    for (i = 0; i < nres; i++) {
        pmix_data_array_t *d;
        pmix_proc_info_t *pi;
        if (!PMIX_CHECK_KEY(&res[i], PMIX_QUERY_PROC_TABLE) || res[i].value.type != PMIX_DATA_ARRAY) {
            continue;
        }
        d = res[i].value.data.darray;
        if (d == NULL || d->type != PMIX_PROC_INFO) {
            continue;
        }
        pi = (pmix_proc_info_t *)d->array;
        printf("entries %zu\n", d->size);
        for (k = 0; k < d->size; k++) {
            printf("rank %u host %s exe %s pid %d state %s\n", pi[k].proc.rank, pi[k].hostname ? pi[k].hostname : "(null)",
                   pi[k].executable_name ? pi[k].executable_name : "(null)", (int)pi[k].pid, PMIx_Proc_state_string(pi[k].state));
        }
    }
    PMIX_INFO_FREE(res, nres);
    PMIx_tool_finalize();
    return 0;
}
