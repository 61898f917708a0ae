/* (d) rank 1 calls MPI_Abort(MPI_COMM_WORLD, 3) after a barrier; the others
 * wait in a second barrier until the launcher kills them.  The launcher's
 * exit code must be 3. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        printf("abort: rank 1 calling MPI_Abort(MPI_COMM_WORLD, 3)\n");
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Barrier(MPI_COMM_WORLD);   /* never completes */
    printf("abort: rank %d passed the barrier: MPI_Abort did not kill the job\n", rank);
    MPI_Finalize();
    return 0;
}
