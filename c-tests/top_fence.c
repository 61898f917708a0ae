/*
 * top_fence: a job for `pmixctl top`'s tests. Every rank calls PMIx_Init,
 * says "ready <rank> <pid>", and enters a fence of the whole namespace;
 * rank TOP_FENCE_RANK (default 5) first waits: until the file
 * TOP_FENCE_GO names exists (the test decides when it arrives), or, without
 * it, argv[1] seconds (default 0). Each rank says "fenced <rank>" after the
 * fence. Exit 0 when every call succeeded.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

static void pause_ms(long ms)
{
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    const char *slow_env = getenv("TOP_FENCE_RANK");
    const char *go = getenv("TOP_FENCE_GO");
    unsigned slow = slow_env ? (unsigned)atoi(slow_env) : 5u;
    long secs = argc > 1 ? atol(argv[1]) : 0;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "top_fence: PMIx_Init: %d\n", rc);
        return 1;
    }
    printf("ready %u %ld\n", me.rank, (long)getpid());
    fflush(stdout);
    if (me.rank == slow) {
        if (go != NULL) {
            while (access(go, F_OK) != 0) {
                pause_ms(10);
            }
        } else {
            pause_ms(secs * 1000);
        }
    }
    rc = PMIx_Fence(NULL, 0, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "top_fence: PMIx_Fence: %d\n", rc);
        return 1;
    }
    printf("fenced %u\n", me.rank);
    fflush(stdout);
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "top_fence: PMIx_Finalize: %d\n", rc);
        return 1;
    }
    return 0;
}
