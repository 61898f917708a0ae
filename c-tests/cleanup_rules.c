/*
 * cleanup_rules: cleanup registration through PMIx_Job_control (RFC0027),
 * end to end. The program builds a tree under SCRATCH, registers what it
 * describes below and checks the return codes; the system tests
 * (systests/tests/pmixrun.rs) check the disk after the job ended.
 *
 *   pmixrun -n 1 ./cleanup_rules SCRATCH rules pmixrun
 *   rm_simple -n 1 ./cleanup_rules SCRATCH rules rm_simple
 *   pmixrun -n 2 ./cleanup_rules SCRATCH sleep        (Ctrl-C case)
 *
 * rules (1 rank), SCRATCH must be absolute and empty:
 *   tree/        registered: PMIX_REGISTER_CLEANUP_DIR + PMIX_CLEANUP_RECURSIVE
 *     a, sub/b, sub/deeper/c      ordinary files: removed
 *     link -> outside/target      symlink to a file outside: link removed,
 *                                 target untouched
 *     dirlink -> outside/dir      symlink to a directory outside: link
 *                                 removed, outside/dir/file untouched
 *     foreign, sub/foreign2       owned by nobody (65534:65534; only when run
 *                                 as root): untouched, so tree/ and tree/sub/
 *                                 stay (not empty); sub/deeper/ goes
 *   files/f      PMIX_REGISTER_CLEANUP: removed
 *   nsdir/x      PMIX_REGISTER_CLEANUP_DIR (recursive) for {ns, WILDCARD}:
 *                nsdir/ removed when the namespace ends
 *   conflict/f1, conflict/d/x   ONE request: REGISTER_CLEANUP conflict/f1,
 *                REGISTER_CLEANUP_DIR conflict/d (recursive), CLEANUP_IGNORE
 *                conflict/f1 -> PMIX_ERR_CONFLICTING_CLEANUP_DIRECTIVES and
 *                nothing of it applied: both stay
 *   rel/f        REGISTER_CLEANUP "relative/x" -> PMIX_ERR_BAD_PARAM; and
 *                "SCRATCH/rel/f,relative/y" -> PMIX_ERR_BAD_PARAM: rel/f stays
 *   perm/f, perm/g   REGISTER_CLEANUP perm/f for {"rpmix.not.ours", 0} ->
 *                PMIX_ERR_NO_PERMISSIONS; perm/g for {ours, 0} + {other, 0}
 *                -> PMIX_ERR_NO_PERMISSIONS: both stay
 *   outside/target, outside/dir/file   never registered: stay
 * and a job-control action (PMIX_JOB_CTRL_SIGNAL = 0 on itself): PMIX_SUCCESS
 * under pmixrun, PMIX_ERR_NOT_SUPPORTED under rm_simple (no job_control upcall).
 * Prints "rank 0: <check>: FAIL <detail>" per failure and
 * "cleanup_rules: N passed, M failed". alarm(20).
 *
 * sleep (any number of ranks): rank R creates ctrlc/rR/sub/file and registers
 * ctrlc/rR (recursive) for itself; rank 0 also registers ctrlc/ns (recursive,
 * with a file) for {ns, WILDCARD}. Then each rank creates SCRATCH/ready.R
 * and sleeps 30 s (alarm(35)).
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include "testutil.h"

static const char *S;

static const char *P(const char *rel)
{
    static char bufs[8][4096];
    static int next;
    char *b = bufs[next++ % 8];
    snprintf(b, 4096, "%s/%s", S, rel);
    return b;
}

static void mkd(const char *rel)
{
    check(mkdir(P(rel), 0755) == 0, "setup", "mkdir %s: %s", P(rel), strerror(errno));
}

static void mkf(const char *rel)
{
    FILE *f = fopen(P(rel), "w");
    check(f != NULL, "setup", "create %s: %s", P(rel), strerror(errno));
    if (f) {
        fputs("precious\n", f);
        fclose(f);
    }
}

static void mkl(const char *target_rel, const char *rel)
{
    char t[4096];
    snprintf(t, sizeof(t), "%s", P(target_rel));
    check(symlink(t, P(rel)) == 0, "setup", "symlink %s: %s", P(rel), strerror(errno));
}

static void give_away(const char *rel)
{
    check(lchown(P(rel), 65534, 65534) == 0, "setup", "chown %s: %s", P(rel), strerror(errno));
}

/* PMIx_Job_control on `targets` (NULL: none) with up to 4 directives */
struct dir {
    const char *key;
    const char *str; /* string value, or NULL for a bool true */
};

static pmix_status_t jc(pmix_proc_t *targets, size_t nt, const struct dir *d, size_t nd)
{
    pmix_info_t info[4];
    size_t i;
    bool t = true;
    pmix_status_t rc;
    for (i = 0; i < nd; i++) {
        if (d[i].str) PMIX_INFO_LOAD(&info[i], d[i].key, d[i].str, PMIX_STRING);
        else PMIX_INFO_LOAD(&info[i], d[i].key, &t, PMIX_BOOL);
    }
    rc = PMIx_Job_control(targets, nt, info, nd, NULL, NULL);
    for (i = 0; i < nd; i++) PMIX_INFO_DESTRUCT(&info[i]);
    return rc;
}

static int rules(const char *launcher)
{
    pmix_status_t rc;
    pmix_proc_t other[2];
    pmix_info_t sig;
    int zero = 0;
    char both[8192];
    bool root = geteuid() == 0;

    /* the tree */
    mkd("outside");
    mkf("outside/target");
    mkd("outside/dir");
    mkf("outside/dir/file");
    mkd("tree");
    mkf("tree/a");
    mkd("tree/sub");
    mkf("tree/sub/b");
    mkd("tree/sub/deeper");
    mkf("tree/sub/deeper/c");
    mkl("outside/target", "tree/link");
    mkl("outside/dir", "tree/dirlink");
    mkf("tree/foreign");
    mkf("tree/sub/foreign2");
    if (root) {
        give_away("tree/foreign");
        give_away("tree/sub/foreign2");
    } else {
        printf("cleanup_rules: not root: the foreign files stay ours (the driver knows)\n");
    }
    mkd("files");
    mkf("files/f");
    mkd("nsdir");
    mkf("nsdir/x");
    mkd("conflict");
    mkf("conflict/f1");
    mkd("conflict/d");
    mkf("conflict/d/x");
    mkd("rel");
    mkf("rel/f");
    mkd("perm");
    mkf("perm/f");
    mkf("perm/g");

    {
        struct dir d[] = {{PMIX_REGISTER_CLEANUP_DIR, P("tree")}, {PMIX_CLEANUP_RECURSIVE, NULL}};
        check_status("register tree", jc(NULL, 0, d, 2), PMIX_SUCCESS);
    }
    {
        struct dir d[] = {{PMIX_REGISTER_CLEANUP, P("files/f")}};
        check_status("register file", jc(NULL, 0, d, 1), PMIX_SUCCESS);
    }
    {
        pmix_proc_t w;
        struct dir d[] = {{PMIX_REGISTER_CLEANUP_DIR, P("nsdir")}, {PMIX_CLEANUP_RECURSIVE, NULL}};
        PMIX_PROC_LOAD(&w, me.nspace, PMIX_RANK_WILDCARD);
        check_status("register for the namespace", jc(&w, 1, d, 2), PMIX_SUCCESS);
    }
    {
        struct dir d[] = {{PMIX_REGISTER_CLEANUP, P("conflict/f1")},
                          {PMIX_REGISTER_CLEANUP_DIR, P("conflict/d")},
                          {PMIX_CLEANUP_RECURSIVE, NULL},
                          {PMIX_CLEANUP_IGNORE, P("conflict/f1")}};
        check_status("remove + ignore in one request", jc(NULL, 0, d, 4), PMIX_ERR_CONFLICTING_CLEANUP_DIRECTIVES);
    }
    {
        struct dir d[] = {{PMIX_REGISTER_CLEANUP, "relative/x"}};
        check_status("relative path", jc(NULL, 0, d, 1), PMIX_ERR_BAD_PARAM);
        snprintf(both, sizeof(both), "%s,relative/y", P("rel/f"));
        d[0].str = both;
        check_status("absolute + relative path", jc(NULL, 0, d, 1), PMIX_ERR_BAD_PARAM);
    }
    {
        struct dir d[] = {{PMIX_REGISTER_CLEANUP, P("perm/f")}};
        PMIX_PROC_LOAD(&other[0], "rpmix.not.ours", 0);
        check_status("another namespace's rank", jc(other, 1, d, 1), PMIX_ERR_NO_PERMISSIONS);
        PMIX_PROC_LOAD(&other[0], me.nspace, me.rank);
        PMIX_PROC_LOAD(&other[1], "rpmix.not.ours", 0);
        d[0].str = P("perm/g");
        check_status("self + another namespace's rank", jc(other, 2, d, 1), PMIX_ERR_NO_PERMISSIONS);
    }
    /* an action: the host's business */
    PMIX_PROC_LOAD(&other[0], me.nspace, me.rank);
    PMIX_INFO_LOAD(&sig, PMIX_JOB_CTRL_SIGNAL, &zero, PMIX_INT);
    rc = PMIx_Job_control(other, 1, &sig, 1, NULL, NULL);
    PMIX_INFO_DESTRUCT(&sig);
    if (strcmp(launcher, "rm_simple") == 0)
        check_status("signal 0 (no job_control upcall)", rc, PMIX_ERR_NOT_SUPPORTED);
    else
        check_status("signal 0", rc, PMIX_SUCCESS);

    tu_summary("cleanup_rules");
    PMIx_Finalize(NULL, 0);
    return nfail ? 1 : 0;
}

static int sleeper(void)
{
    char rel[64], rel2[80];
    FILE *f;
    if (me.rank == 0) {
        mkd("ctrlc");
        mkd("ctrlc/ns");
        mkf("ctrlc/ns/file");
    } else {
        struct stat st;
        int i;
        for (i = 0; i < 500 && stat(P("ctrlc/ns/file"), &st) != 0; i++) usleep(10000);
    }
    snprintf(rel, sizeof(rel), "ctrlc/r%u", (unsigned)me.rank);
    mkd(rel);
    snprintf(rel2, sizeof(rel2), "%s/sub", rel);
    mkd(rel2);
    snprintf(rel2, sizeof(rel2), "%s/sub/file", rel);
    mkf(rel2);
    {
        struct dir d[] = {{PMIX_REGISTER_CLEANUP_DIR, P(rel)}, {PMIX_CLEANUP_RECURSIVE, NULL}};
        check_status("register own dir", jc(NULL, 0, d, 2), PMIX_SUCCESS);
    }
    if (me.rank == 0) {
        pmix_proc_t w;
        struct dir d[] = {{PMIX_REGISTER_CLEANUP_DIR, P("ctrlc/ns")}, {PMIX_CLEANUP_RECURSIVE, NULL}};
        PMIX_PROC_LOAD(&w, me.nspace, PMIX_RANK_WILDCARD);
        check_status("register namespace dir", jc(&w, 1, d, 2), PMIX_SUCCESS);
    }
    snprintf(rel, sizeof(rel), "ready.%u", (unsigned)me.rank);
    f = fopen(P(rel), "w");
    if (f) {
        fprintf(f, "%d %d\n", npass, nfail);
        fclose(f);
    }
    printf("cleanup_rules: rank %u registered (%d failed), sleeping\n", (unsigned)me.rank, nfail);
    fflush(stdout);
    sleep(30);
    printf("cleanup_rules: rank %u woke up after 30 s\n", (unsigned)me.rank);
    PMIx_Finalize(NULL, 0);
    return 1;
}

int main(int argc, char **argv)
{
    pmix_status_t rc;
    bool sleep_mode = argc > 2 && strcmp(argv[2], "sleep") == 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 3 || argv[1][0] != '/' || (!sleep_mode && (strcmp(argv[2], "rules") != 0 || argc < 4))) {
        printf("usage: cleanup_rules ABS_SCRATCH rules pmixrun|rm_simple | ABS_SCRATCH sleep\n");
        return 2;
    }
    alarm(sleep_mode ? 35 : 20);
    S = argv[1];
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("cleanup_rules: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    return sleep_mode ? sleeper() : rules(argv[3]);
}
