/* (a) MPI_Init, Allreduce (sum of 1 == size), Barrier, Finalize.
 * Prints "hello <rank>/<size> pmix=<PMIx_Get_version()>" where the version
 * string comes from the libpmix.so.2 actually loaded in this process. */
#include "pmixver.h"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, one = 1, sum = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size) {
        fprintf(stderr, "hello %d/%d: allreduce sum %d != size %d\n", rank, size, sum, size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    printf("hello %d/%d pmix=%s\n", rank, size, pmix_version_string());
    if (getenv("HELLO_SHOW_LIB") != NULL)
        printf("hello-lib %d %s\n", rank, pmix_library_path());
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
