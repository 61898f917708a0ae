/*
 * client_jctl_signal: PMIx_Job_control with PMIX_JOB_CTRL_SIGNAL, carried
 * out by a host that implements it (rm_simple, pmixrun).
 *
 *   client_jctl_signal          (2 ranks or more)
 *
 * Rank 1 counts SIGUSR1. After a fence, rank 0 asks the host to send
 * SIGUSR1 to {ns, 1} (blocking PMIx_Job_control); the answer must be a
 * success. A second fence; rank 1 must then see the signal within 5 s and
 * prints "client_jctl_signal: rank 1 got SIGUSR1". Any failure prints a
 * line with FAIL and makes that rank exit 1. alarm(30) bounds every rank.
 */
#define _POSIX_C_SOURCE 200809L
#include <pmix.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h" /* me; "client_jctl_signal: rank R: <what>: FAIL <detail>" */

static volatile sig_atomic_t usr1;

static void on_usr1(int sig)
{
    (void)sig;
    usr1++;
}

int main(void)
{
    pmix_proc_t target, all;
    pmix_info_t sig;
    struct sigaction sa;
    pmix_status_t rc;
    int sigval = SIGUSR1, i;

    alarm(30);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    tu_set_prefix("client_jctl_signal: ");
    if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
        fail("PMIx_Init", "%s", PMIx_Error_string(rc));
        return 1;
    }
    tu_set_prefix("client_jctl_signal: rank %u: ", (unsigned)me.rank);
    PMIX_PROC_LOAD(&all, me.nspace, PMIX_RANK_WILDCARD);
    if ((rc = PMIx_Fence(&all, 1, NULL, 0)) != PMIX_SUCCESS) {
        fail("fence", "%s", PMIx_Error_string(rc));
    }
    if (me.rank == 0) {
        PMIX_PROC_LOAD(&target, me.nspace, 1);
        PMIX_INFO_CONSTRUCT(&sig);
        PMIx_Info_load(&sig, PMIX_JOB_CTRL_SIGNAL, &sigval, PMIX_INT);
        rc = PMIx_Job_control(&target, 1, &sig, 1, NULL, NULL);
        if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED) {
            fail("Job_control(SIGNAL)", "%s", PMIx_Error_string(rc));
        }
        PMIX_INFO_DESTRUCT(&sig);
    }
    if ((rc = PMIx_Fence(&all, 1, NULL, 0)) != PMIX_SUCCESS) {
        fail("second fence", "%s", PMIx_Error_string(rc));
    }
    if (me.rank == 1) {
        struct timespec ms100 = { 0, 100 * 1000 * 1000 };
        for (i = 0; i < 50 && usr1 == 0; i++) nanosleep(&ms100, NULL);
        if (usr1 == 0) {
            fail("SIGUSR1", "not received within 5 s");
        } else {
            printf("client_jctl_signal: rank 1 got SIGUSR1\n");
        }
    }
    fflush(stdout);
    PMIx_Finalize(NULL, 0);
    return nfail ? 1 : 0;
}
