/*
 * fault_server_exit: the server (the launcher) dies while its clients wait.
 *
 *   rm_simple -n N ./fault_server_exit RESULT_FILE fence|get [MARKER]
 *   (not pmixrun: its ranks die with it, by their parent-death signal)
 *
 * Every rank: PMIx_Init and a first fence (all connected). Then
 *   fence  every rank but 0 enters PMIx_Fence (all ranks, no timeout)
 *   get    every rank but 0 enters PMIx_Get of a key nobody will ever put,
 *          from rank R+1, without directives (the server parks the request)
 * while rank 0 waits 0.5 s, sends SIGKILL to the launcher (getppid()), waits
 * until it is gone (we are re-parented), then makes the same call itself.
 * Every call must return PMIX_ERR_LOST_CONNECTION or PMIX_ERR_UNREACH within
 * 10 s; later calls (a fence and a Get) must return an error within 2 s, and
 * PMIx_Finalize must return within 2 s (any status: the server is gone).
 *
 * Each rank appends one line to RESULT_FILE (O_APPEND, one write):
 *   rank R: fence -> PMIX_ERR_LOST_CONNECTION (0.51 s); later: fence -> ...,
 *   get -> ...; finalize -> ...: ok
 * ("FAIL <why>" instead of "ok" on a failure) and exits 0 (1 on failure).
 * Nobody reads our exit status (the launcher is dead): the driver reads the
 * file, and looks for leftover processes by MARKER (an argument that is not
 * used otherwise). alarm(25) ends a rank that is stuck regardless.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#include "testutil.h" /* me, msleep; failures collected into why[] */

#define FIRST_LIMIT_S 10.0
#define LATER_LIMIT_S 2.0

static const char *result_file;
static char line[2048];
static size_t used;
static char why[1024];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void add(const char *fmt, ...)
{
    va_list ap;
    int w;
    if (used >= sizeof(line)) return;
    va_start(ap, fmt);
    w = vsnprintf(line + used, sizeof(line) - used, fmt, ap);
    va_end(ap);
    if (w > 0) used += (size_t)w;
    if (used >= sizeof(line)) used = sizeof(line) - 1;
}

/* The constant's name, as the line format wants it. */
static const char *st_name(pmix_status_t st)
{
    static char other[64];
    switch (st) {
    case PMIX_SUCCESS: return "PMIX_SUCCESS";
    case PMIX_ERR_LOST_CONNECTION: return "PMIX_ERR_LOST_CONNECTION";
    case PMIX_ERR_UNREACH: return "PMIX_ERR_UNREACH";
    case PMIX_ERR_TIMEOUT: return "PMIX_ERR_TIMEOUT";
    case PMIX_ERR_NOT_FOUND: return "PMIX_ERR_NOT_FOUND";
    case PMIX_ERR_INIT: return "PMIX_ERR_INIT";
    default:
        snprintf(other, sizeof(other), "%s(%d)", PMIx_Error_string(st), (int)st);
        return other;
    }
}

static int lost(pmix_status_t st)
{
    return st == PMIX_ERR_LOST_CONNECTION || st == PMIX_ERR_UNREACH;
}

/* One line, one write, appended. */
static void write_line(void)
{
    int fd;
    size_t len;
    char out[3200];
    len = (size_t)snprintf(out, sizeof(out), "%s%s%s\n", line, nfail ? "FAIL " : "ok", nfail ? why : "");
    if (len >= sizeof(out)) len = sizeof(out) - 1;
    fd = open(result_file, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd < 0) {
        fprintf(stderr, "fault_server_exit: rank %u: %s: %s\n", (unsigned)me.rank, result_file, strerror(errno));
        return;
    }
    if (write(fd, out, len) != (ssize_t)len)
        fprintf(stderr, "fault_server_exit: rank %u: short write to %s\n", (unsigned)me.rank, result_file);
    close(fd);
}

static pmix_status_t do_op(int is_fence, uint32_t n, double *secs)
{
    pmix_status_t rc;
    double t0 = now_s();
    if (is_fence) {
        rc = PMIx_Fence(NULL, 0, NULL, 0);
    } else {
        pmix_proc_t p;
        pmix_value_t *v = NULL;
        PMIX_LOAD_PROCID(&p, me.nspace, (me.rank + 1) % n);
        rc = PMIx_Get(&p, "fault.server_exit.never_put", NULL, 0, &v);
        if (v != NULL) PMIX_VALUE_RELEASE(v);
    }
    *secs = now_s() - t0;
    return rc;
}

int main(int argc, char **argv)
{
    pmix_proc_t wild;
    pmix_value_t *v = NULL;
    pmix_status_t rc;
    uint32_t n = 0;
    int is_fence;
    double t;

    alarm(25);
    if (argc < 3 || (strcmp(argv[2], "fence") != 0 && strcmp(argv[2], "get") != 0)) {
        fprintf(stderr, "usage: fault_server_exit RESULT_FILE fence|get [MARKER]\n");
        return 2;
    }
    result_file = argv[1];
    is_fence = strcmp(argv[2], "fence") == 0;
    tu_collect = why; /* the reasons go into the one result line */
    tu_collect_size = sizeof(why);

    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        add("rank %s: init -> %s: ", getenv("PMIX_RANK") ? getenv("PMIX_RANK") : "?", st_name(rc));
        fail("", "PMIx_Init failed");
        write_line();
        return 1;
    }
    add("rank %u: %s -> ", (unsigned)me.rank, argv[2]);
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
    if (rc == PMIX_SUCCESS && v != NULL && v->type == PMIX_UINT32) n = v->data.uint32;
    if (v != NULL) PMIX_VALUE_RELEASE(v);
    if (n < 2) {
        add("(not run): ");
        fail("", "job size %u, needs at least 2", (unsigned)n);
        write_line();
        return 1;
    }
    rc = PMIx_Fence(NULL, 0, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        add("(not run): ");
        fail("", "first fence returned %s", st_name(rc));
        write_line();
        return 1;
    }

    if (me.rank == 0) {
        pid_t ppid = getppid();
        double t0;
        msleep(500); /* the others are in their call by now */
        if (ppid <= 1) {
            add("(not run): ");
            fail("", "no launcher to kill (ppid %ld)", (long)ppid);
            write_line();
            return 1;
        }
        if (kill(ppid, SIGKILL) != 0) {
            add("(not run): ");
            fail("", "kill(%ld, SIGKILL): %s", (long)ppid, strerror(errno));
            write_line();
            return 1;
        }
        /* wait (at most 5 s) until it is gone: we are re-parented then */
        t0 = now_s();
        while (getppid() == ppid && now_s() - t0 < 5.0) msleep(5);
        if (getppid() == ppid) fail("", "launcher %ld still our parent 5 s after SIGKILL", (long)ppid);
    }

    rc = do_op(is_fence, n, &t);
    add("%s (%.2f s); ", st_name(rc), t);
    if (!lost(rc)) fail("", "expected PMIX_ERR_LOST_CONNECTION or PMIX_ERR_UNREACH");
    else if (t > FIRST_LIMIT_S) fail("", "took more than %.0f s", FIRST_LIMIT_S);

    /* later calls: an error, promptly */
    add("later: ");
    rc = do_op(1, n, &t);
    add("fence -> %s (%.2f s), ", st_name(rc), t);
    if (rc == PMIX_SUCCESS) fail("", "later fence succeeded without a server");
    if (t > LATER_LIMIT_S) fail("", "later fence took more than %.0f s", LATER_LIMIT_S);
    rc = do_op(0, n, &t);
    add("get -> %s (%.2f s); ", st_name(rc), t);
    if (rc == PMIX_SUCCESS) fail("", "later get of a missing key succeeded");
    if (t > LATER_LIMIT_S) fail("", "later get took more than %.0f s", LATER_LIMIT_S);
    {
        double t0 = now_s();
        rc = PMIx_Finalize(NULL, 0);
        t = now_s() - t0;
    }
    add("finalize -> %s (%.2f s): ", st_name(rc), t);
    if (t > LATER_LIMIT_S) fail("", "finalize took more than %.0f s", LATER_LIMIT_S);
    write_line();
    return nfail ? 1 : 0;
}
