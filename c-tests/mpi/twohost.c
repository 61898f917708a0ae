/* twohost.c: the MPI program of tools/twohost-tests.sh (Open MPI across two
 * "hosts", i.e. two network + UTS + mount namespaces).
 *
 *   twohost hello   MPI_Init, Allreduce (sum of 1 == size), a ring
 *                   Sendrecv, Barrier, Finalize.
 *   twohost spawn [map_by]
 *                   the parents MPI_Comm_spawn 2 children (with MPI_Info
 *                   "map_by" = <map_by> unless it is absent or "-", e.g.
 *                   "node": one child on each host); parent rank 0 broadcasts a
 *                   value over the intercommunicator, every child answers it
 *                   with a send carrying its host name, everybody disconnects.
 *
 * Every process (parents and children) prints one line
 *   "proc <role> <rank>/<size> host=<hostname> pmix=<PMIx_Get_version()>
 *    lib=<path of the libpmix.so.2 it loaded> parent=<exe of its parent>
 *    parentlib=<libpmix.so.2 mapped by the parent> pid=<pid> ppid=<ppid>"
 * The parent of a rank is its launcher on that host: mpirun (orterun) on the
 * first host, the orted on the second; so these lines show which library
 * every rank, mpirun and the orted loaded (read from /proc/<ppid>/maps while
 * they run). */
#include "pmixver.h"
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NCHILD 2
#define MAGIC 4242

/* The libpmix.so.2 mapped by process <pid> ("none" if none). */
static void mapped_libpmix(pid_t pid, char *out, size_t len)
{
    char path[64], line[PATH_MAX + 256];
    FILE *f;

    snprintf(out, len, "none");
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    if ((f = fopen(path, "r")) == NULL) {
        snprintf(out, len, "unreadable");
        return;
    }
    while (fgets(line, sizeof line, f) != NULL) {
        char *p = strchr(line, '/');
        if (p != NULL && strstr(p, "/libpmix.so") != NULL) {
            p[strcspn(p, "\n")] = '\0';
            snprintf(out, len, "%s", p);
            break;
        }
    }
    fclose(f);
}

static void exe_of(pid_t pid, char *out, size_t len)
{
    char path[64], buf[PATH_MAX];
    ssize_t n;

    snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
    n = readlink(path, buf, sizeof buf - 1);
    if (n < 0) {
        snprintf(out, len, "?");
        return;
    }
    buf[n] = '\0';
    snprintf(out, len, "%s", strrchr(buf, '/') ? strrchr(buf, '/') + 1 : buf);
}

static void report(const char *role, int rank, int size, char *host)
{
    char pexe[PATH_MAX], plib[PATH_MAX + 64];
    pid_t pp = getppid();

    exe_of(pp, pexe, sizeof pexe);
    mapped_libpmix(pp, plib, sizeof plib);
    printf("proc %s %d/%d host=%s pmix=%s lib=%s parent=%s parentlib=%s pid=%d ppid=%d\n", role,
           rank, size, host, pmix_version_string(), pmix_library_path(), pexe, plib, (int)getpid(),
           (int)pp);
    fflush(stdout);
}

static int hello(char *host)
{
    int rank, size, one = 1, sum = 0, left = -1, right;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size) {
        fprintf(stderr, "twohost %d/%d: allreduce sum %d != size %d\n", rank, size, sum, size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    right = (rank + 1) % size;
    MPI_Sendrecv(&rank, 1, MPI_INT, right, 5, &left, 1, MPI_INT, (rank + size - 1) % size, 5,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (left != (rank + size - 1) % size) {
        fprintf(stderr, "twohost %d/%d: ring got %d\n", rank, size, left);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    report("rank", rank, size, host);
    if (rank == 0) {
        printf("hello ok: %d ranks, allreduce %d\n", size, sum);
        fflush(stdout);
    }
    return 0;
}

static int spawn(char *self, const char *map_by, char *host)
{
    int rank, size, rc = 0;
    MPI_Comm parent;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_parent(&parent);
    if (parent == MPI_COMM_NULL) {
        MPI_Comm inter;
        MPI_Info info;
        int errs[NCHILD], rsize = -1, msg = MAGIC;
        char *child_argv[] = { "spawn", "child", NULL };
        char hosts[NCHILD][256];

        report("parent", rank, size, host);
        MPI_Info_create(&info);
        if (map_by != NULL && strcmp(map_by, "-") != 0)
            MPI_Info_set(info, "map_by", (char *)map_by);
        MPI_Comm_spawn(self, child_argv, NCHILD, info, 0, MPI_COMM_WORLD, &inter, errs);
        MPI_Info_free(&info);
        MPI_Comm_remote_size(inter, &rsize);
        if (rsize != NCHILD) {
            fprintf(stderr, "parent %d: remote size %d != %d\n", rank, rsize, NCHILD);
            rc = 1;
        }
        MPI_Bcast(&msg, 1, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
        if (rank == 0) {
            for (int i = 0; i < NCHILD; i++) {
                char buf[300];
                int reply = -1;
                MPI_Recv(buf, sizeof buf, MPI_CHAR, i, 7, inter, MPI_STATUS_IGNORE);
                buf[sizeof buf - 1] = '\0';
                if (sscanf(buf, "%d %255s", &reply, hosts[i]) != 2 || reply != MAGIC + 1 + i) {
                    fprintf(stderr, "parent: child %d replied '%s', expected %d\n", i, buf,
                            MAGIC + 1 + i);
                    rc = 1;
                }
            }
        }
        MPI_Comm_disconnect(&inter);
        if (rank == 0 && rc == 0) {
            printf("spawn ok: %d parents on %s, %d children on %s %s\n", size, host, NCHILD,
                   hosts[0], hosts[1]);
            fflush(stdout);
        }
    } else {
        int msg = -1;
        char buf[300];

        MPI_Bcast(&msg, 1, MPI_INT, 0, parent);
        if (msg != MAGIC) {
            fprintf(stderr, "child %d: got %d, expected %d\n", rank, msg, MAGIC);
            rc = 1;
        }
        snprintf(buf, sizeof buf, "%d %s", msg + 1 + rank, host);
        MPI_Send(buf, (int)strlen(buf) + 1, MPI_CHAR, 0, 7, parent);
        report("child", rank, size, host);
        MPI_Comm_disconnect(&parent);
    }
    return rc;
}

int main(int argc, char **argv)
{
    char host[256];
    const char *mode = argc > 1 ? argv[1] : "hello";
    int rc;

    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "?");
    host[sizeof host - 1] = '\0';
    MPI_Init(&argc, &argv);
    if (strcmp(mode, "spawn") == 0)
        rc = spawn(argv[0], argc > 2 ? argv[2] : NULL, host);
    else
        rc = hello(host);
    MPI_Finalize();
    return rc;
}
