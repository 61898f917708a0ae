/* (e) every rank: MPI_Init, MPI_Barrier; rank 2 then calls exit(0) without
 * MPI_Finalize, the others MPI_Finalize.  The launcher must notice and exit
 * non-zero within a bounded time (no hang).  Needs >= 3 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 2) {
        printf("nofinalize: rank 2 exits without MPI_Finalize\n");
        fflush(stdout);
        exit(0);
    }
    MPI_Finalize();
    return 0;
}
