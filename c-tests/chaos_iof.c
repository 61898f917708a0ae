/*
 * chaos_iof: the program of the mid-IOF chaos rounds (systests/tests/chaos.rs):
 * a rank writing output continuously, so the round can strike it (or a
 * peer) while its output flows to the launcher and to an attached tool.
 *
 *   pmixrun -n N ./chaos_iof STOPFILE MARKER GOFILE BURST MAXLINES
 *
 * Every rank calls PMIx_Init, prints
 *   chaos: rank R ready
 * and waits until GOFILE exists (so the round can attach its tool first).
 * Then it writes lines
 *   iof R I abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN
 * with I from 0, each line one write(2) to stdout (a pipe: a line is never
 * split, and a rank killed mid-write has written the line or not), BURST
 * lines at a time with 1 ms between bursts, until STOPFILE exists or
 * MAXLINES are written (then it waits for STOPFILE). Then
 *   chaos: rank R wrote K
 * (K lines), PMIx_Finalize and "chaos: rank R done" (exit 0).
 * MARKER is only there for the round to find its processes by argv.
 * alarm(60) bounds a rank that hangs (it dies of SIGALRM: the round fails).
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

/* One write(2) of the whole line (a short write to a pipe only under a
 * signal: the rest follows). */
static int put(const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(1, s, n);
        if (w <= 0) return -1;
        s += w;
        n -= (size_t) w;
    }
    return 0;
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    pmix_status_t rc;
    const char *stopfile = argc > 1 ? argv[1] : "/nonexistent";
    const char *gofile = argc > 3 ? argv[3] : "/";
    long burst = argc > 4 ? atol(argv[4]) : 64;
    long maxlines = argc > 5 ? atol(argv[5]) : 100000;
    long i = 0;
    char line[128];
    int n;
    alarm(60);
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("chaos: PMIx_Init failed: %s\n", PMIx_Error_string(rc));
        return 2;
    }
    n = snprintf(line, sizeof line, "chaos: rank %u ready\n", (unsigned) me.rank);
    put(line, (size_t) n);
    while (access(gofile, F_OK) != 0) usleep(2000);
    while (access(stopfile, F_OK) != 0) {
        if (i >= maxlines) {
            usleep(2000);
            continue;
        }
        for (long b = 0; b < burst && i < maxlines; b++, i++) {
            n = snprintf(line, sizeof line, "iof %u %ld abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN\n", (unsigned) me.rank, i);
            if (put(line, (size_t) n) != 0) return 4;
        }
        usleep(1000);
    }
    n = snprintf(line, sizeof line, "chaos: rank %u wrote %ld\n", (unsigned) me.rank, i);
    put(line, (size_t) n);
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("chaos: rank %u finalize returned %s\n", (unsigned) me.rank, PMIx_Error_string(rc));
        return 3;
    }
    n = snprintf(line, sizeof line, "chaos: rank %u done\n", (unsigned) me.rank);
    put(line, (size_t) n);
    return 0;
}
