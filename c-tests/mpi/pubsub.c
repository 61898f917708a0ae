/* (c) MPI_Open_port/Publish_name/Comm_accept against
 *     MPI_Lookup_name (bounded retries)/Comm_connect, each side alone on
 *     MPI_COMM_SELF, the way the classic accept/connect test does.
 *
 * usage: pubsub [both|server|client] [service]
 *   both   (default) within one job of >= 2 ranks: even rank 2k is the
 *          server of service "<service>-<k>", odd rank 2k+1 its client;
 *          a last unpaired rank just idles to MPI_Finalize.
 *   server every rank of this job serves "<service>-<rank>" (two mpiruns)
 *   client every rank of this job connects to "<service>-<rank>"
 * The client sends MAGIC+k, the server answers MAGIC+k+1000.  The server
 * unpublishes, closes the port; both disconnect.
 * Output: "pubsub server <k> ok pmix=..." / "pubsub client <k> ok pmix=...";
 * rank 0 of the job also prints "pubsub ok" when its own part succeeded. */
#include "pmixver.h"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAGIC 777
#define LOOKUP_TRIES 200     /* x 100 ms = 20 s */

static int serve(const char *svc, int k)
{
    char port[MPI_MAX_PORT_NAME];
    MPI_Comm inter;
    int v = -1, err;

    MPI_Open_port(MPI_INFO_NULL, port);
    err = MPI_Publish_name(svc, MPI_INFO_NULL, port);
    if (err != MPI_SUCCESS) {
        fprintf(stderr, "pubsub server %d: MPI_Publish_name(%s) failed: %d\n", k, svc, err);
        return 1;
    }
    fprintf(stderr, "pubsub server %d: published %s, accepting\n", k, svc);
    MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
    MPI_Recv(&v, 1, MPI_INT, 0, 11, inter, MPI_STATUS_IGNORE);
    if (v != MAGIC + k) {
        fprintf(stderr, "pubsub server %d: got %d, expected %d\n", k, v, MAGIC + k);
        return 1;
    }
    v += 1000;
    MPI_Send(&v, 1, MPI_INT, 0, 12, inter);
    err = MPI_Unpublish_name(svc, MPI_INFO_NULL, port);
    if (err != MPI_SUCCESS) {
        fprintf(stderr, "pubsub server %d: MPI_Unpublish_name(%s) failed: %d\n", k, svc, err);
        return 1;
    }
    MPI_Close_port(port);
    MPI_Comm_disconnect(&inter);
    printf("pubsub server %d ok pmix=%s\n", k, pmix_version_string());
    fflush(stdout);
    return 0;
}

static int connect_to(const char *svc, int k)
{
    char port[MPI_MAX_PORT_NAME];
    MPI_Comm inter;
    int v, err = MPI_ERR_NAME, tries;

    for (tries = 0; tries < LOOKUP_TRIES; tries++) {
        err = MPI_Lookup_name(svc, MPI_INFO_NULL, port);
        if (err == MPI_SUCCESS)
            break;
        usleep(100000);
    }
    if (err != MPI_SUCCESS) {
        fprintf(stderr, "pubsub client %d: MPI_Lookup_name(%s) failed %d times (last %d)\n",
                k, svc, tries, err);
        return 1;
    }
    fprintf(stderr, "pubsub client %d: found %s after %d retries, connecting\n", k, svc, tries);
    MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
    v = MAGIC + k;
    MPI_Send(&v, 1, MPI_INT, 0, 11, inter);
    MPI_Recv(&v, 1, MPI_INT, 0, 12, inter, MPI_STATUS_IGNORE);
    if (v != MAGIC + k + 1000) {
        fprintf(stderr, "pubsub client %d: got %d, expected %d\n", k, v, MAGIC + k + 1000);
        return 1;
    }
    MPI_Comm_disconnect(&inter);
    printf("pubsub client %d ok pmix=%s\n", k, pmix_version_string());
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "both";
    const char *base = argc > 2 ? argv[2] : "rpmix-pubsub";
    char svc[256];
    int rank, size, rc = 0, k;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* Name-service errors are reported on MPI_COMM_WORLD; retry instead of aborting. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    if (strcmp(mode, "both") == 0) {
        k = rank / 2;
        snprintf(svc, sizeof svc, "%s-%d", base, k);
        if (size < 2) {
            fprintf(stderr, "pubsub both: needs >= 2 ranks\n");
            rc = 1;
        } else if (rank % 2 == 0 && rank + 1 < size) {
            rc = serve(svc, k);
        } else if (rank % 2 == 1) {
            rc = connect_to(svc, k);
        }
    } else if (strcmp(mode, "server") == 0) {
        snprintf(svc, sizeof svc, "%s-%d", base, rank);
        rc = serve(svc, rank);
    } else if (strcmp(mode, "client") == 0) {
        snprintf(svc, sizeof svc, "%s-%d", base, rank);
        rc = connect_to(svc, rank);
    } else {
        fprintf(stderr, "usage: pubsub [both|server|client] [service]\n");
        rc = 2;
    }
    if (rank == 0 && rc == 0) {
        printf("pubsub ok (%s)\n", mode);
        fflush(stdout);
    }
    MPI_Finalize();
    return rc;
}
