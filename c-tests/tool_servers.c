/*
 * A tool managing its server connections (pids of running servers in argv[1]
 * and, optionally, argv[2]): starts unconnected (PMIX_TOOL_DO_NOT_CONNECT),
 * attaches, lists and selects its server(s), holds two at once and moves
 * its requests between them, disconnects (requests then fail at once, nothing hangs),
 * re-attaches, switches with PMIx_tool_connect_to_server, finalizes.
 * With two servers: an event handler and an IOF pull registered while the
 * first server is primary still work after PMIx_tool_set_server makes the
 * second one primary (the handler hears an event the second server
 * delivers; both deregister with PMIX_SUCCESS); when the second server
 * ends, one PMIX_ERR_LOST_CONNECTION event names it (PMIX_EVENT_AFFECTED_PROC)
 * and the first keeps answering.
 * Exit 0 when every step answered as expected.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pmix_tool.h>

#define TESTUTIL_CHECKS_ONLY /* a tool */
#include "testutil.h"

static char last_namespaces[512];
static volatile int heard;

#define TOOL_CODE (PMIX_EXTERNAL_ERR_BASE - 7)

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                     pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id; (void)source; (void)info; (void)ninfo; (void)results; (void)nresults;
    if (status == TOOL_CODE) heard++;
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static volatile int lost_events;
static pmix_proc_t lost_server;

static void on_lost(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    size_t i;
    (void)id; (void)source; (void)results; (void)nresults;
    if (status == PMIX_ERR_LOST_CONNECTION) {
        for (i = 0; i < ninfo; i++)
            if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) && info[i].value.type == PMIX_PROC && info[i].value.data.proc)
                lost_server = *info[i].value.data.proc;
        lost_events++;
    }
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void on_output(size_t id, pmix_iof_channel_t channel, pmix_proc_t *source,
                      pmix_byte_object_t *payload, pmix_info_t info[], size_t ninfo)
{
    (void)id; (void)channel; (void)source; (void)payload; (void)info; (void)ninfo;
}

static pmix_status_t query_namespaces(void)
{
    pmix_query_t q;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc;
    PMIX_QUERY_CONSTRUCT(&q);
    PMIX_ARGV_APPEND(rc, q.keys, PMIX_QUERY_NAMESPACES);
    rc = PMIx_Query_info(&q, 1, &res, &nres);
    last_namespaces[0] = '\0';
    if (rc == PMIX_SUCCESS && nres == 1 && res[0].value.type == PMIX_STRING)
        snprintf(last_namespaces, sizeof last_namespaces, "%s", res[0].value.data.string);
    PMIX_QUERY_DESTRUCT(&q);
    if (res) PMIX_INFO_FREE(res, nres);
    return rc;
}

int main(int argc, char **argv)
{
    pmix_proc_t me, me2, srv, bogus, *list = NULL;
    pmix_info_t info, target;
    size_t n = 0;
    pid_t pid;
    pmix_status_t rc;

    /* the first failed check ends the run: "tool_servers: <what>" on stdout, exit 1 */
    tu_set_prefix("tool_servers: ");
    tu_die_out = stdout;
    require(argc == 2 || argc == 3, "usage: tool_servers <server pid> [<second server pid>]");
    pid = (pid_t) atoi(argv[1]);
    PMIX_INFO_LOAD(&info, PMIX_TOOL_DO_NOT_CONNECT, NULL, PMIX_BOOL);
    rc = PMIx_tool_init(&me, &info, 1);
    require(rc == PMIX_SUCCESS, "init unconnected: %s", PMIx_Error_string(rc));
    rc = PMIx_tool_get_servers(&list, &n);
    require(rc == PMIX_ERR_NOT_FOUND && n == 0, "get_servers unconnected: %s, %zu", PMIx_Error_string(rc), n);

    PMIX_INFO_LOAD(&target, PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    me2 = me;
    rc = PMIx_tool_attach_to_server(&me, &srv, &target, 1);
    require(rc == PMIX_SUCCESS && srv.nspace[0] != '\0', "attach: %s", PMIx_Error_string(rc));
    require(PMIX_CHECK_PROCID(&me, &me2), "attach renamed the tool: %s:%u -> %s:%u", me2.nspace, me2.rank, me.nspace, me.rank);
    printf("tool_servers: attached as %s:%u to %s:%u\n", me.nspace, me.rank, srv.nspace, srv.rank);
    rc = PMIx_tool_get_servers(&list, &n);
    require(rc == PMIX_SUCCESS && n == 1 && PMIX_CHECK_PROCID(&list[0], &srv), "get_servers: %s, %zu", PMIx_Error_string(rc), n);
    PMIX_PROC_FREE(list, n);
    require(PMIx_tool_set_server(&srv, NULL, 0) == PMIX_SUCCESS, "set_server to ours");
    PMIX_LOAD_PROCID(&bogus, "no-such-server", 0);
    rc = PMIx_tool_set_server(&bogus, NULL, 0);
    require(rc == PMIX_ERR_NOT_FOUND, "set_server to an unknown server: %s", PMIx_Error_string(rc));
    require(query_namespaces() == PMIX_SUCCESS, "query while attached");
    if (argc > 2) {
        /* a second server: attached alongside, then made the primary one */
        pmix_proc_t srv2;
        pmix_info_t target2;
        pid_t pid2 = (pid_t) atoi(argv[2]);
        char first_ns[512];
        snprintf(first_ns, sizeof first_ns, "%s", last_namespaces);
        PMIX_INFO_LOAD(&target2, PMIX_SERVER_PIDINFO, &pid2, PMIX_PID);
        rc = PMIx_tool_attach_to_server(&me2, &srv2, &target2, 1);
        require(rc == PMIX_SUCCESS, "attach to a second server: %s", PMIx_Error_string(rc));
        rc = PMIx_tool_get_servers(&list, &n);
        require(rc == PMIX_SUCCESS && n == 2 && PMIX_CHECK_PROCID(&list[0], &srv) && PMIX_CHECK_PROCID(&list[1], &srv2),
                "get_servers with two: %s, %zu", PMIx_Error_string(rc), n);
        PMIX_PROC_FREE(list, n);
        require(query_namespaces() == PMIX_SUCCESS && strcmp(last_namespaces, first_ns) == 0, "the first server stays primary");
        /* registered while the first server is primary */
        pmix_status_t code = TOOL_CODE;
        pmix_proc_t src;
        int ref, i;
        ref = PMIx_Register_event_handler(&code, 1, NULL, 0, on_event, NULL, NULL);
        require(ref >= 0, "register an event handler: %s", PMIx_Error_string(ref));
        char ns1[512];
        snprintf(ns1, sizeof ns1, "%s", first_ns);
        PMIX_LOAD_PROCID(&src, strtok(ns1, ","), PMIX_RANK_WILDCARD);
        rc = PMIx_IOF_pull(&src, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, on_output, NULL, NULL);
        require(rc >= 0, "IOF pull at the first server: %s", PMIx_Error_string(rc));
        size_t pull = (size_t)rc;
        require(PMIx_tool_set_server(&srv2, NULL, 0) == PMIX_SUCCESS, "set_server to the second");
        require(query_namespaces() == PMIX_SUCCESS && strcmp(last_namespaces, first_ns) != 0, "requests go to the second server");
        printf("tool_servers: first server runs %s, second %s\n", first_ns, last_namespaces);
        /* an event through the second server reaches the handler */
        rc = PMIx_Notify_event(TOOL_CODE, &me, PMIX_RANGE_LOCAL, NULL, 0, NULL, NULL);
        require(rc == PMIX_SUCCESS, "notify through the second server: %s", PMIx_Error_string(rc));
        for (i = 0; i < 200 && heard == 0; i++) {
            struct timespec ts = {0, 10000000L};
            nanosleep(&ts, NULL);
        }
        require(heard >= 1, "the handler registered before set_server did not hear the second server's event");
        rc = PMIx_Deregister_event_handler((size_t)ref, NULL, NULL);
        require(rc == PMIX_SUCCESS, "deregister the handler after set_server: %s", PMIx_Error_string(rc));
        rc = PMIx_IOF_deregister(pull, NULL, 0, NULL, NULL);
        require(rc == PMIX_SUCCESS, "IOF deregister of the first server's pull after set_server: %s", PMIx_Error_string(rc));
        rc = PMIx_IOF_deregister(pull, NULL, 0, NULL, NULL);
        require(rc == PMIX_ERR_BAD_PARAM, "IOF deregister twice: %s, expected PMIX_ERR_BAD_PARAM", PMIx_Error_string(rc));
        require(PMIx_tool_set_server(&srv, NULL, 0) == PMIX_SUCCESS, "set_server back to the first");
        /* the second server's job ends (a few seconds): the loss names it */
        {
            pmix_status_t lc = PMIX_ERR_LOST_CONNECTION;
            int lref = PMIx_Register_event_handler(&lc, 1, NULL, 0, on_lost, NULL, NULL);
            require(lref >= 0, "register a lost-connection handler: %s", PMIx_Error_string(lref));
            for (i = 0; i < 1000 && lost_events == 0; i++) {
                struct timespec ts = {0, 10000000L};
                nanosleep(&ts, NULL);
            }
            require(lost_events == 1, "%d lost-connection events when the second server ended, expected 1", lost_events);
            require(PMIX_CHECK_PROCID(&lost_server, &srv2), "the lost-connection event names %s:%u, not the second server %s:%u",
                    lost_server.nspace, lost_server.rank, srv2.nspace, srv2.rank);
            require(query_namespaces() == PMIX_SUCCESS && strcmp(last_namespaces, first_ns) == 0, "the first server still answers after the second ended");
            PMIx_Deregister_event_handler((size_t)lref, NULL, NULL);
        }
        require(PMIx_tool_disconnect(&srv2) == PMIX_SUCCESS, "disconnect the second");
        require(query_namespaces() == PMIX_SUCCESS && strcmp(last_namespaces, first_ns) == 0, "the first still answers");
    }

    rc = PMIx_tool_disconnect(&bogus);
    require(rc == PMIX_ERR_NOT_FOUND, "disconnect from an unknown server: %s", PMIx_Error_string(rc));
    rc = PMIx_tool_disconnect(&srv);
    require(rc == PMIX_SUCCESS, "disconnect: %s", PMIx_Error_string(rc));
    rc = query_namespaces();
    require(rc != PMIX_SUCCESS, "query after disconnect succeeded");
    printf("tool_servers: query after disconnect -> %s\n", PMIx_Error_string(rc));
    rc = PMIx_tool_get_servers(&list, &n);
    require(rc == PMIX_ERR_NOT_FOUND, "get_servers after disconnect: %s", PMIx_Error_string(rc));

    rc = PMIx_tool_attach_to_server(&me2, &srv, &target, 1);
    require(rc == PMIX_SUCCESS, "re-attach: %s", PMIx_Error_string(rc));
    require(query_namespaces() == PMIX_SUCCESS, "query after re-attach");
    rc = PMIx_tool_connect_to_server(&me2, &target, 1);
    require(rc == PMIX_SUCCESS, "connect_to_server (same server): %s", PMIx_Error_string(rc));
    require(query_namespaces() == PMIX_SUCCESS, "query after connect_to_server");
    rc = PMIx_tool_finalize();
    require(rc == PMIX_SUCCESS, "finalize: %s", PMIx_Error_string(rc));
    printf("tool_servers: all checks passed\n");
    return 0;
}
