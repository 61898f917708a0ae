/*
 * spawn_bare: the physical limit of a launch (issue 37). posix_spawn N
 * copies of a program (default /bin/true) and wait for them all: what
 * creating the processes costs on this machine, with no launcher.
 *   spawn_bare -n <N> [-a] [program [args...]]
 * Exit 0 when every child was started and exited 0 (with -a: exited at
 * all, whatever its status: a PMIx program started without a server
 * fails its PMIx_Init, as a singleton, and exits 1).
 */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv)
{
    long n = 1;
    int i = 1;
    int any_status = 0;
    if (argc > 2 && strcmp(argv[1], "-n") == 0) {
        n = strtol(argv[2], NULL, 10);
        i = 3;
    }
    if (i < argc && strcmp(argv[i], "-a") == 0) {
        any_status = 1;
        i++;
    }
    char *dflt[] = { "/bin/true", NULL };
    char **prog = i < argc ? &argv[i] : dflt;
    if (n < 1 || n > 1 << 20) {
        fprintf(stderr, "spawn_bare: -n out of range\n");
        return 2;
    }
    long started = 0;
    for (long k = 0; k < n; k++) {
        pid_t pid;
        if (posix_spawn(&pid, prog[0], NULL, NULL, prog, environ) != 0) {
            perror("spawn_bare: posix_spawn");
            break;
        }
        started++;
    }
    int bad = started != n;
    for (long k = 0; k < started; k++) {
        int st;
        if (wait(&st) < 0 || !WIFEXITED(st) || (WEXITSTATUS(st) != 0 && !any_status))
            bad = 1;
    }
    return bad;
}
