/* A client that forks after PMIx_Init: three children do not call PMIx (one
 * exits with exit(), which runs atexit handlers, one with _exit(), one execs
 * /bin/true); a fourth calls PMIx_Fence, which must fail at once (the
 * connection is the parent's: a request written there would interleave
 * with the parent's). None may hang, and the parent's connection must still
 * work: Put/Commit/Fence/Get and Finalize afterwards. Under a launcher; each
 * failed check is a line "fork_after_init <rank>: <what>: FAIL ..."
 * (testutil.h), the last line "fork_after_init <rank>: N passed, M failed";
 * exit 0 when none failed. alarm(30) bounds it. */
#define _DEFAULT_SOURCE
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

int main(void)
{
    pmix_proc_t wild, peer;
    pmix_value_t v, *got = NULL;
    pmix_status_t rc;
    uint32_t size = 1;
    int how, status;
    char name[64];

    alarm(30);
    tu_set_prefix("fork_after_init: ");
    require_ok("init", PMIx_Init(&me, NULL, 0));
    snprintf(name, sizeof name, "fork_after_init %u", me.rank);
    tu_set_prefix("%s: ", name);
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
        check(pid >= 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "child", "%d did not end cleanly", how);
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
    check_status("after the forks", rc, PMIX_SUCCESS);
    check_status("finalize", PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
    return tu_summary(name);
}
