/* (b) The parent job spawns 2 children with MPI_Comm_spawn; parent rank 0
 * broadcasts a value over the intercommunicator, each child answers with a
 * send to parent rank 0; then everybody MPI_Comm_disconnect's.
 * Output: "child <r>/2 got <v> pmix=..." per child, "spawn ok ..." from
 * parent rank 0. Exit code 0 on success, 1 on a wrong value. */
#include "pmixver.h"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NCHILD 2
#define MAGIC 4242

int main(int argc, char **argv)
{
    int rank, size, rc = 0;
    MPI_Comm parent;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_parent(&parent);

    if (parent == MPI_COMM_NULL) {
        MPI_Comm inter;
        int errs[NCHILD], rsize = -1, msg = MAGIC;
        char *child_argv[] = { "child", NULL };

        MPI_Info info = MPI_INFO_NULL;
        const char *child_env = getenv("SPAWN_CHILD_ENV");

        /* A launcher need not hand its job's environment to spawned jobs
         * (PRRTE does not pass on mpirun -x): SPAWN_CHILD_ENV="VAR=value"
         * is set in the children's. */
        if (child_env) {
            MPI_Info_create(&info);
            MPI_Info_set(info, "PMIX_ENVAR", child_env);
        }
        MPI_Comm_spawn(argv[0], child_argv, NCHILD, info, 0, MPI_COMM_WORLD, &inter, errs);
        if (info != MPI_INFO_NULL) MPI_Info_free(&info);
        MPI_Comm_remote_size(inter, &rsize);
        if (rsize != NCHILD) {
            fprintf(stderr, "parent %d: remote size %d != %d\n", rank, rsize, NCHILD);
            rc = 1;
        }
        MPI_Bcast(&msg, 1, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
        if (rank == 0) {
            for (int i = 0; i < NCHILD; i++) {
                int reply = -1;
                MPI_Recv(&reply, 1, MPI_INT, i, 7, inter, MPI_STATUS_IGNORE);
                if (reply != MAGIC + 1 + i) {
                    fprintf(stderr, "parent: child %d replied %d, expected %d\n", i, reply,
                            MAGIC + 1 + i);
                    rc = 1;
                }
            }
        }
        MPI_Comm_disconnect(&inter);
        if (rank == 0 && rc == 0) {
            printf("spawn ok: %d parents, %d children replied pmix=%s\n", size, NCHILD,
                   pmix_version_string());
            fflush(stdout);
        }
    } else {
        int msg = -1, reply;
        MPI_Bcast(&msg, 1, MPI_INT, 0, parent);
        if (msg != MAGIC) {
            fprintf(stderr, "child %d: got %d, expected %d\n", rank, msg, MAGIC);
            rc = 1;
        }
        reply = msg + 1 + rank;
        MPI_Send(&reply, 1, MPI_INT, 0, 7, parent);
        printf("child %d/%d got %d pmix=%s\n", rank, size, msg, pmix_version_string());
        fflush(stdout);
        MPI_Comm_disconnect(&parent);
    }
    MPI_Finalize();
    return rc;
}
