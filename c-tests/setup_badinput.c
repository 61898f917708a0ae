/*
 * setup_badinput: bad input to the server's setup calls (network backends,
 * environment directives, setup_fork, setup_application). A server program
 * using pmix_server.h only; no clients are started.
 *
 *   setup_badinput            (prints "N passed, M failed"; exit 0 if M == 0)
 *
 * (a) PMIx_server_init with PMIX_MCA_pnet naming an unknown backend fails
 *     with PMIX_ERR_NOT_FOUND ("nosuch", "transport,nosuch"); a normal init
 *     afterwards succeeds
 * (b) register_nspace refuses malformed environment directives with
 *     PMIX_ERR_BAD_PARAM: PMIX_SET_ENVAR "NOEQUALS" (blocking form, and with a
 *     callback, which must then not be called), PMIX_PREPEND_ENVAR typed
 *     PMIX_UINT32, PMIX_UNSET_ENVAR "A=1", PMIX_APPEND_ENVAR with an empty
 *     name; a well-formed PMIX_SET_ENVAR is accepted and setup_fork applies it
 * (c) PMIx_server_setup_fork of a proc never registered: SUCCESS (as OpenPMIx)
 *     (unknown nspace; registered nspace, unregistered rank; the nspace whose
 *     registration was refused)
 * (d) PMIx_server_setup_application with an empty / NULL nspace:
 *     PMIX_ERR_BAD_PARAM and no callback; a valid one calls back with success
 *     (the results released through the given cbfunc); setup_local_support
 *     with an empty nspace: PMIX_ERR_BAD_PARAM
 * (e) in a fork child of the server (as Slurm's slurmstepd calls it, between
 *     fork and exec): setup_fork works; a call that needs the server's
 *     progress thread (register_client) answers PMIX_ERR_INIT at once
 *     instead of waiting for a thread the child does not have
 * (f) PMIx_server_register_resources / _deregister_resources of NULL infos
 *     with a count: PMIX_ERR_BAD_PARAM and no callback; of nothing:
 *     PMIX_OPERATION_SUCCEEDED (blocking)
 */
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix_server.h>
#include <signal.h>
#include <sys/wait.h>

#define TESTUTIL_CHECKS_ONLY /* a server, not a rank of a job */
#include "testutil.h"

static const char *st_name(pmix_status_t st)
{
    static char buf[32];
    switch (st) {
    case PMIX_SUCCESS: return "PMIX_SUCCESS";
    case PMIX_OPERATION_SUCCEEDED: return "PMIX_OPERATION_SUCCEEDED";
    case PMIX_ERROR: return "PMIX_ERROR";
    case PMIX_ERR_BAD_PARAM: return "PMIX_ERR_BAD_PARAM";
    case PMIX_ERR_NOT_FOUND: return "PMIX_ERR_NOT_FOUND";
    case PMIX_ERR_INIT: return "PMIX_ERR_INIT";
    case PMIX_ERR_NOT_SUPPORTED: return "PMIX_ERR_NOT_SUPPORTED";
    case PMIX_ERR_TIMEOUT: return "PMIX_ERR_TIMEOUT";
    case PMIX_ERR_NOMEM: return "PMIX_ERR_NOMEM";
    default: snprintf(buf, sizeof(buf), "status %d", (int)st); return buf;
    }
}

/* "ok: <what>: <got> (expected <want>)", by the constants' names */
static void expect(pmix_status_t got, pmix_status_t want, const char *what)
{
    check(got == want, what, "%s (expected %s)", st_name(got), st_name(want));
}

/* ---- callbacks (library thread) ---- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int op_calls;
static pmix_status_t op_status;
static int app_calls;
static pmix_status_t app_status;

static void op_cb(pmix_status_t status, void *cbdata)
{
    (void)cbdata;
    pthread_mutex_lock(&lock);
    op_calls++;
    op_status = status;
    pthread_mutex_unlock(&lock);
}

static void app_cb(pmix_status_t status, pmix_info_t info[], size_t ninfo,
                   void *provided_cbdata, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)info;
    (void)ninfo;
    (void)provided_cbdata;
    if (cbfunc != NULL) cbfunc(PMIX_SUCCESS, cbdata);
    pthread_mutex_lock(&lock);
    app_calls++;
    app_status = status;
    pthread_mutex_unlock(&lock);
}

static void msleep(long ms)
{
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);
}

static int read_count(int *c)
{
    int v;
    pthread_mutex_lock(&lock);
    v = *c;
    pthread_mutex_unlock(&lock);
    return v;
}

/* wait up to ms for *c to reach want */
static int wait_count(int *c, int want, long ms)
{
    long t;
    for (t = 0; t < ms && read_count(c) < want; t += 10) msleep(10);
    return read_count(c);
}

/* ---- helpers ---- */

static pmix_status_t reg1(const char *ns, int nlocal, pmix_info_t *info, size_t ninfo)
{
    return PMIx_server_register_nspace(ns, nlocal, info, ninfo, NULL, NULL);
}

static bool reg_ok(pmix_status_t rc)
{
    return rc == PMIX_SUCCESS || rc == PMIX_OPERATION_SUCCEEDED;
}

static const char *env_get(char **env, const char *name)
{
    size_t n = strlen(name), i;
    for (i = 0; env && env[i]; i++)
        if (strncmp(env[i], name, n) == 0 && env[i][n] == '=') return env[i] + n + 1;
    return NULL;
}

static void env_free(char **env)
{
    size_t i;
    for (i = 0; env && env[i]; i++) free(env[i]);
    free(env);
}

int main(void)
{
    pmix_server_module_t module;
    pmix_status_t rc;
    pmix_info_t info[2];
    pmix_envar_t ev;
    pmix_proc_t proc;
    uint32_t u32 = 7;
    char **env;
    int before;
    bool up;

    alarm(60);
    /* every check, "ok: <text>" or "FAIL: <text>" (setup-tests.sh greps ^FAIL) */
    tu_every = true;
    tu_verdict_first = true;
    tu_ok_word = "ok: ";
    tu_fail_word = "FAIL: ";
    tu_detail_sep = ": ";
    memset(&module, 0, sizeof(module));

    /* (a) unknown network backend */
    setenv("PMIX_MCA_pnet", "nosuch", 1);
    rc = PMIx_server_init(&module, NULL, 0);
    expect(rc, PMIX_ERR_NOT_FOUND, "(a) server_init with PMIX_MCA_pnet=nosuch");
    if (rc == PMIX_SUCCESS) PMIx_server_finalize();
    setenv("PMIX_MCA_pnet", "transport,nosuch", 1);
    rc = PMIx_server_init(&module, NULL, 0);
    expect(rc, PMIX_ERR_NOT_FOUND, "(a) server_init with PMIX_MCA_pnet=transport,nosuch");
    if (rc == PMIX_SUCCESS) PMIx_server_finalize();
    unsetenv("PMIX_MCA_pnet");
    rc = PMIx_server_init(&module, NULL, 0);
    expect(rc, PMIX_SUCCESS, "(a) server_init afterwards, PMIX_MCA_pnet unset");
    up = rc == PMIX_SUCCESS;
    if (!up) {
        tu_summary(NULL);
        return 1;
    }

    /* (b) malformed environment directives */
    PMIX_INFO_CONSTRUCT(&info[0]);
    PMIx_Info_load(&info[0], PMIX_SET_ENVAR, "NOEQUALS", PMIX_STRING);
    expect(reg1("sb.bad1", 1, info, 1), PMIX_ERR_BAD_PARAM,
           "(b) register_nspace, PMIX_SET_ENVAR \"NOEQUALS\" (blocking)");
    before = read_count(&op_calls);
    rc = PMIx_server_register_nspace("sb.bad1", 1, info, 1, op_cb, NULL);
    expect(rc, PMIX_ERR_BAD_PARAM, "(b) register_nspace, PMIX_SET_ENVAR \"NOEQUALS\" (with callback)");
    msleep(200);
    check(read_count(&op_calls) == before, "", "(b) ... and its callback was not called (%d calls)",
          read_count(&op_calls) - before);
    PMIX_INFO_DESTRUCT(&info[0]);

    PMIX_INFO_CONSTRUCT(&info[0]);
    PMIx_Info_load(&info[0], PMIX_PREPEND_ENVAR, &u32, PMIX_UINT32);
    expect(reg1("sb.bad2", 1, info, 1), PMIX_ERR_BAD_PARAM,
           "(b) register_nspace, PMIX_PREPEND_ENVAR typed PMIX_UINT32");
    PMIX_INFO_DESTRUCT(&info[0]);

    PMIX_INFO_CONSTRUCT(&info[0]);
    PMIx_Info_load(&info[0], PMIX_UNSET_ENVAR, "A=1", PMIX_STRING);
    expect(reg1("sb.bad3", 1, info, 1), PMIX_ERR_BAD_PARAM,
           "(b) register_nspace, PMIX_UNSET_ENVAR \"A=1\"");
    PMIX_INFO_DESTRUCT(&info[0]);

    PMIX_ENVAR_CONSTRUCT(&ev);
    PMIX_ENVAR_LOAD(&ev, "", "x", ':');
    PMIX_INFO_CONSTRUCT(&info[0]);
    PMIx_Info_load(&info[0], PMIX_APPEND_ENVAR, &ev, PMIX_ENVAR);
    PMIX_ENVAR_DESTRUCT(&ev);
    expect(reg1("sb.bad4", 1, info, 1), PMIX_ERR_BAD_PARAM,
           "(b) register_nspace, PMIX_APPEND_ENVAR with an empty name");
    PMIX_INFO_DESTRUCT(&info[0]);

    /* a well-formed directive: accepted, applied by setup_fork */
    PMIX_ENVAR_CONSTRUCT(&ev);
    PMIX_ENVAR_LOAD(&ev, "SB_X", "1", ':');
    PMIX_INFO_CONSTRUCT(&info[0]);
    PMIX_INFO_CONSTRUCT(&info[1]);
    PMIx_Info_load(&info[0], PMIX_SET_ENVAR, &ev, PMIX_ENVAR);
    u32 = 2;
    PMIx_Info_load(&info[1], PMIX_JOB_SIZE, &u32, PMIX_UINT32);
    PMIX_ENVAR_DESTRUCT(&ev);
    rc = reg1("sb.good", 2, info, 2);
    check(reg_ok(rc), "", "(b) register_nspace, well-formed PMIX_SET_ENVAR SB_X=1: %s", st_name(rc));
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    PMIX_LOAD_PROCID(&proc, "sb.good", 0);
    rc = PMIx_server_register_client(&proc, getuid(), getgid(), NULL, NULL, NULL);
    check(reg_ok(rc), "", "(b) register_client sb.good:0: %s", st_name(rc));
    env = calloc(1, sizeof(char *));
    rc = PMIx_server_setup_fork(&proc, &env);
    expect(rc, PMIX_SUCCESS, "(b) setup_fork sb.good:0");
    check(env_get(env, "SB_X") && strcmp(env_get(env, "SB_X"), "1") == 0, "",
          "(b) setup_fork sb.good:0 applied SB_X=1 (got %s)", env_get(env, "SB_X") ? env_get(env, "SB_X") : "(unset)");
    env_free(env);

    /* (c) setup_fork of procs never registered: as OpenPMIx, no registration
     * is needed (hosts call it before register_client, Slurm in the fork
     * child); the proc's own variables are set, and no other namespace's
     * directives (nor a refused registration's) leak in. */
    PMIX_LOAD_PROCID(&proc, "sb.never", 0);
    env = calloc(1, sizeof(char *));
    expect(PMIx_server_setup_fork(&proc, &env), PMIX_SUCCESS, "(c) setup_fork sb.never:0 (unknown nspace)");
    check(env_get(env, "PMIX_NAMESPACE") && strcmp(env_get(env, "PMIX_NAMESPACE"), "sb.never") == 0 && env_get(env, "SB_X") == NULL, "",
          "(c) ... PMIX_NAMESPACE=sb.never and no SB_X (got %s, %s)", env_get(env, "PMIX_NAMESPACE") ? env_get(env, "PMIX_NAMESPACE") : "(unset)",
          env_get(env, "SB_X") ? env_get(env, "SB_X") : "(unset)");
    env_free(env);
    PMIX_LOAD_PROCID(&proc, "sb.good", 1);
    env = calloc(1, sizeof(char *));
    expect(PMIx_server_setup_fork(&proc, &env), PMIX_SUCCESS,
           "(c) setup_fork sb.good:1 (nspace registered, rank not)");
    check_that(env_get(env, "PMIX_RANK") && strcmp(env_get(env, "PMIX_RANK"), "1") == 0, "(c) ... PMIX_RANK=1");
    env_free(env);
    PMIX_LOAD_PROCID(&proc, "sb.bad1", 0);
    env = calloc(1, sizeof(char *));
    expect(PMIx_server_setup_fork(&proc, &env), PMIX_SUCCESS,
           "(c) setup_fork sb.bad1:0 (registration was refused)");
    check_that(env_get(env, "SB_X") == NULL, "(c) ... no directive of another namespace");
    env_free(env);

    /* (d) setup_application / setup_local_support */
    before = read_count(&app_calls);
    expect(PMIx_server_setup_application("", NULL, 0, app_cb, NULL), PMIX_ERR_BAD_PARAM,
           "(d) setup_application(\"\")");
    expect(PMIx_server_setup_application(NULL, NULL, 0, app_cb, NULL), PMIX_ERR_BAD_PARAM,
           "(d) setup_application(NULL)");
    msleep(200);
    check(read_count(&app_calls) == before, "", "(d) ... and no callback was called (%d calls)",
          read_count(&app_calls) - before);
    rc = PMIx_server_setup_application("sb.app", NULL, 0, app_cb, NULL);
    expect(rc, PMIX_SUCCESS, "(d) setup_application(\"sb.app\")");
    if (rc == PMIX_SUCCESS) {
        int n = wait_count(&app_calls, before + 1, 5000) - before;
        pmix_status_t st;
        pthread_mutex_lock(&lock);
        st = app_status;
        pthread_mutex_unlock(&lock);
        check(n == 1 && st == PMIX_SUCCESS, "", "(d) ... called back once with success (%d calls, %s)", n,
              st_name(st));
    }
    before = read_count(&op_calls);
    expect(PMIx_server_setup_local_support("", NULL, 0, op_cb, NULL), PMIX_ERR_BAD_PARAM,
           "(d) setup_local_support(\"\")");
    msleep(100);
    check_that(read_count(&op_calls) == before, "(d) ... and no callback was called");

    /* (e) */
    {
        pid_t pid;
        int status = -1, t;
        fflush(stdout);
        pid = fork();
        if (pid == 0) {
            char **cenv = calloc(1, sizeof(char *));
            pmix_proc_t cp;
            bool ok;
            PMIX_LOAD_PROCID(&cp, "sb.good", 3);
            ok = PMIx_server_setup_fork(&cp, &cenv) == PMIX_SUCCESS && env_get(cenv, "PMIX_RANK") &&
                 strcmp(env_get(cenv, "PMIX_RANK"), "3") == 0;
            ok = ok && PMIx_server_register_client(&cp, getuid(), getgid(), NULL, op_cb, NULL) == PMIX_ERR_INIT;
            _exit(ok ? 0 : 1);
        }
        for (t = 0; t < 1000 && waitpid(pid, &status, WNOHANG) == 0; t++) msleep(10);
        if (t == 1000) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
        }
        check(t < 1000 && WIFEXITED(status) && WEXITSTATUS(status) == 0, "",
              "(e) fork child: setup_fork works, register_client answers PMIX_ERR_INIT at once (%s)",
              t == 1000 ? "hung" : "ended");
    }

    /* (f) */
    {
        int before = read_count(&op_calls);
        expect(PMIx_server_register_resources(NULL, 2, op_cb, NULL), PMIX_ERR_BAD_PARAM,
               "(f) register_resources of NULL infos, 2 of them");
        expect(PMIx_server_deregister_resources(NULL, 1, op_cb, NULL), PMIX_ERR_BAD_PARAM,
               "(f) deregister_resources of NULL infos, 1 of them");
        expect(PMIx_server_register_resources(NULL, 0, NULL, NULL), PMIX_OPERATION_SUCCEEDED,
               "(f) register_resources of nothing (blocking)");
        msleep(100);
        check(read_count(&op_calls) == before, "", "(f) no callback after a refused call (%d)", read_count(&op_calls) - before);
    }

    rc = PMIx_server_finalize();
    expect(rc, PMIX_SUCCESS, "server_finalize");
    (void)op_status;

    return tu_summary(NULL);
}
