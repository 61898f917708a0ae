/* A client that forks after PMIx_Init: three children do not call PMIx (one
 * exits with exit(), which runs atexit handlers, one with _exit(), one execs
 * /bin/true); a fourth calls PMIx_Fence, which must fail at once (the
 * connection is the parent's: a request written there would interleave
 * with the parent's). None may hang, and the parent's connection must still
 * work: Put/Commit/Fence/Get and Finalize afterwards. Under a launcher; prints
 * "fork_after_init <rank>: ok" and exits 0. alarm(30) bounds it. */
#define _DEFAULT_SOURCE
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
    pmix_proc_t me, wild, peer;
    pmix_value_t v, *got = NULL;
    pmix_status_t rc;
    uint32_t size = 1;
    int how, status, failed = 0;

    alarm(30);
    if (PMIX_SUCCESS != (rc = PMIx_Init(&me, NULL, 0))) {
        printf("fork_after_init: init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    for (how = 0; how < 4; how++) {
        pid_t pid = fork();
        if (pid == 0) {
            alarm(10);
            if (how == 0) exit(0);
            if (how == 1) _exit(0);
            if (how == 3) _exit(PMIx_Fence(NULL, 0, NULL, 0) == PMIX_SUCCESS ? 3 : 0);
            execl("/bin/true", "true", (char *) NULL);
            _exit(127);
        }
        if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            printf("fork_after_init %u: child %d did not end cleanly\n", me.rank, how);
            failed = 1;
        }
    }
    PMIX_PROC_LOAD(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIX_SUCCESS == PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &got)) {
        size = got->data.uint32;
        PMIX_VALUE_RELEASE(got);
    }
    PMIX_VALUE_LOAD(&v, &me.rank, PMIX_UINT32);
    rc = PMIx_Put(PMIX_GLOBAL, "fork.rank", &v);
    PMIX_VALUE_DESTRUCT(&v);
    if (rc == PMIX_SUCCESS) rc = PMIx_Commit();
    if (rc == PMIX_SUCCESS) rc = PMIx_Fence(NULL, 0, NULL, 0);
    PMIX_PROC_LOAD(&peer, me.nspace, (me.rank + 1) % size);
    if (rc == PMIX_SUCCESS && PMIX_SUCCESS == (rc = PMIx_Get(&peer, "fork.rank", NULL, 0, &got))) {
        if (got->data.uint32 != peer.rank) rc = PMIX_ERROR;
        PMIX_VALUE_RELEASE(got);
    }
    if (rc != PMIX_SUCCESS) {
        printf("fork_after_init %u: after the forks: %s\n", me.rank, PMIx_Error_string(rc));
        failed = 1;
    }
    rc = PMIx_Finalize(NULL, 0);
    printf("fork_after_init %u: %s\n", me.rank, failed || rc != PMIX_SUCCESS ? "FAIL" : "ok");
    return failed || rc != PMIX_SUCCESS;
}
