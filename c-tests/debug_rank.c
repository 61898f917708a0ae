/*
 * debug_rank: a rank for the tool-launch tests (c-tests/tool_launch.c).
 *
 *   debug_rank <kib> [exit status]
 *
 * PMIx_Init (where a rank started with PMIX_DEBUG_STOP_IN_INIT waits for
 * its debugger), then writes <kib> KiB to stdout and one line to stderr,
 * deterministic for its rank: stdout is lines "r<rank> <i> <26 letters>",
 * stderr "debug_rank <rank> done", a line per write (so forwarded output
 * never splits a line). PMIx_Finalize, then the exit status given (default
 * 0). Nothing is written before PMIx_Init returns.
 */
#include <pmix.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    pmix_proc_t me;
    size_t kib = argc > 1 ? (size_t) atol(argv[1]) : 16, written = 0, i = 0;
    char line[128];

    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) return 1;
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (written < kib * 1024) {
        int n = snprintf(line, sizeof line, "r%u %zu abcdefghijklmnopqrstuvwxyz\n", me.rank, i++);
        fwrite(line, 1, (size_t) n, stdout);
        written += (size_t) n;
    }
    fflush(stdout);
    fprintf(stderr, "debug_rank %u done\n", me.rank);
    fflush(stderr);
    PMIx_Finalize(NULL, 0);
    return argc > 2 ? atoi(argv[2]) : 0;
}
