/*
 * debug_daemon: a debugger daemon for c-tests/tool_launch.c's daemon mode.
 * Started by the launcher for a tool's spawn with PMIX_DEBUGGER_DAEMONS, it
 * reads the job it debugs from its own job data (PMIX_DEBUG_TARGET), says
 * so on stderr ("debug_daemon <rank>: target <nspace>"), releases that
 * job's ranks from PMIx_Init (PMIX_DEBUGGER_RELEASE, custom range: the
 * target) and ends. Exit status 0 when the target was found and the
 * release sent, else 1.
 *
 *   debug_daemon [HOLDFILE]
 *
 * With HOLDFILE, the release waits until that file exists (a chaos round,
 * systests/tests/chaos.rs, strikes the daemons meanwhile).
 */
#define _DEFAULT_SOURCE
#include <pmix.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    pmix_proc_t me, wild, target;
    pmix_value_t *v = NULL;
    pmix_info_t rel;
    pmix_status_t rc;

    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) return 1;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&wild, PMIX_DEBUG_TARGET, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v == NULL || v->type != PMIX_PROC) {
        fprintf(stderr, "debug_daemon %u: no PMIX_DEBUG_TARGET (%s)\n", me.rank, PMIx_Error_string(rc));
        PMIx_Finalize(NULL, 0);
        return 1;
    }
    target = *v->data.proc;
    PMIX_VALUE_RELEASE(v);
    fprintf(stderr, "debug_daemon %u: target %s\n", me.rank, target.nspace);
    while (argc > 1 && access(argv[1], F_OK) != 0) usleep(2000);
    PMIX_INFO_LOAD(&rel, PMIX_EVENT_CUSTOM_RANGE, &target, PMIX_PROC);
    rc = PMIx_Notify_event(PMIX_DEBUGGER_RELEASE, &me, PMIX_RANGE_CUSTOM, &rel, 1, NULL, NULL);
    PMIX_INFO_DESTRUCT(&rel);
    PMIx_Finalize(NULL, 0);
    return rc == PMIX_SUCCESS || rc == PMIX_OPERATION_SUCCEEDED ? 0 : 1;
}
