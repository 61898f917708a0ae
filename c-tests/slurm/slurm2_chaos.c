/*
 * slurm2_chaos: the tasks of a chaos round under Slurm across nodes
 * (tools/slurm2-tests.sh, case chaos): `srun --mpi=pmix -N nodes -n N` runs
 * NF fences of the whole job, and at fence AT the task VICTIM is struck.
 *
 *   slurm2_chaos NF MASK AT VICTIM KIND DELAY_MS STOP_MS [SYNC]
 *
 * Every task prints "R: version <PMIx_Get_version()>" and "R: host <hostname>".
 * Fence I collects data when bit I of MASK is set: each task Puts and
 * Commits "chaos.I" before it and, after it, Gets the next rank's value
 * (which must be "chaos-I-<rank>"). Before and after each fence a task prints
 *   R: fence I data=D enter
 *   R: fence I returned <status name>
 * KIND (none, kill, stop):
 *   kill  the victim does not enter fence AT: it waits until every other
 *         task is about to call it (each creates SYNC/<rank> first; SYNC
 *         is a directory every node sees; not waited for without SYNC,
 *         at most 10 s), sleeps DELAY_MS and dies of SIGKILL. Every
 *         survivor prints its fence AT status and exits 3 (as
 *         c-tests/fault_fence_kill.c late): the driver checks the statuses.
 *   stop  the victim forks a helper as it enters fence AT; the helper sends
 *         it SIGSTOP after DELAY_MS and SIGCONT STOP_MS later: every fence
 *         must still complete with SUCCESS.
 * A task whose fence fails (outside a kill's fence AT) prints "R: FAIL ..."
 * and exits 3; at the end PMIx_Finalize and "R: done", exit 0 (1 when
 * something failed). alarm(20) bounds a task stuck in a fence: it dies of
 * SIGALRM and prints no status (the driver reports it).
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

static void msleep(long ms)
{
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

int main(int argc, char **argv)
{
    pmix_proc_t me, wild, next;
    pmix_value_t *v = NULL;
    pmix_status_t rc;
    uint32_t n = 0;
    int nf, at, nfail = 0;
    unsigned long mask;
    unsigned victim;
    const char *kind;
    long delay, stop_ms;
    pid_t helper = -1;

    alarm(20);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc != 8 && argc != 9) {
        fprintf(stderr, "usage: slurm2_chaos NF MASK AT VICTIM none|kill|stop DELAY_MS STOP_MS [SYNC]\n");
        return 2;
    }
    nf = atoi(argv[1]);
    mask = strtoul(argv[2], NULL, 0);
    at = atoi(argv[3]);
    victim = (unsigned)atoi(argv[4]);
    kind = argv[5];
    delay = atol(argv[6]);
    stop_ms = atol(argv[7]);
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("?: FAIL PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    {
        char host[64] = "";
        gethostname(host, sizeof host);
        host[sizeof host - 1] = '\0';
        printf("%u: version %s\n%u: host %s\n", (unsigned)me.rank, PMIx_Get_version(), (unsigned)me.rank, host);
    }
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
    if (rc == PMIX_SUCCESS && v != NULL && v->type == PMIX_UINT32) n = v->data.uint32;
    if (v != NULL) PMIX_VALUE_RELEASE(v);
    if (n < 2) {
        printf("%u: FAIL job size %u\n", (unsigned)me.rank, (unsigned)n);
        PMIx_Finalize(NULL, 0);
        return 1;
    }
    PMIX_LOAD_PROCID(&next, me.nspace, (me.rank + 1) % n);
    for (int i = 0; i < nf; i++) {
        bool data = (mask >> i) & 1, struck = i == at && me.rank == victim;
        char key[32], val[64];
        if (data) {
            pmix_value_t pv;
            snprintf(key, sizeof key, "chaos.%d", i);
            snprintf(val, sizeof val, "chaos-%d-%u", i, (unsigned)me.rank);
            PMIX_VALUE_CONSTRUCT(&pv);
            pv.type = PMIX_STRING;
            pv.data.string = val;
            if ((rc = PMIx_Put(PMIX_GLOBAL, key, &pv)) != PMIX_SUCCESS || (rc = PMIx_Commit()) != PMIX_SUCCESS) {
                printf("%u: FAIL Put/Commit %s: %s\n", (unsigned)me.rank, key, PMIx_Error_string(rc));
                return 3;
            }
        }
        if (i == at && strcmp(kind, "kill") == 0 && argc > 8 && !struck) {
            char f[4096];
            FILE *fp;
            snprintf(f, sizeof f, "%s/%u", argv[8], (unsigned)me.rank);
            if ((fp = fopen(f, "w")) != NULL) fclose(fp);
        }
        if (struck && strcmp(kind, "kill") == 0) {
            if (argc > 8) {
                /* until every other task is about to enter the fence */
                for (int w = 0; w < 5000; w++) {
                    uint32_t there = 0;
                    char f[4096];
                    for (uint32_t q = 0; q < n; q++) {
                        snprintf(f, sizeof f, "%s/%u", argv[8], (unsigned)q);
                        if (q != victim && access(f, F_OK) == 0) there++;
                    }
                    if (there == n - 1) break;
                    msleep(2);
                }
            }
            printf("%u: fence %d data=%d dying in %ld ms\n", (unsigned)me.rank, i, (int)data, delay);
            msleep(delay);
            raise(SIGKILL);
            return 4; /* not reached */
        }
        if (struck && strcmp(kind, "stop") == 0) {
            pid_t parent = getpid();
            helper = fork();
            if (helper == 0) {
                msleep(delay);
                kill(parent, SIGSTOP);
                msleep(stop_ms);
                kill(parent, SIGCONT);
                _exit(0);
            }
            printf("%u: fence %d stopped in %ld ms for %ld ms\n", (unsigned)me.rank, i, delay, stop_ms);
        }
        printf("%u: fence %d data=%d enter\n", (unsigned)me.rank, i, (int)data);
        if (data) {
            pmix_info_t collect;
            bool yes = true;
            PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
            rc = PMIx_Fence(NULL, 0, &collect, 1);
            PMIX_INFO_DESTRUCT(&collect);
        } else {
            rc = PMIx_Fence(NULL, 0, NULL, 0);
        }
        printf("%u: fence %d returned %s\n", (unsigned)me.rank, i, PMIx_Error_string(rc));
        if (i == at && strcmp(kind, "kill") == 0) return 3; /* a survivor: the driver checks the status */
        if (rc != PMIX_SUCCESS) {
            printf("%u: FAIL fence %d: %s\n", (unsigned)me.rank, i, PMIx_Error_string(rc));
            return 3;
        }
        if (data) {
            v = NULL;
            snprintf(val, sizeof val, "chaos-%d-%u", i, (unsigned)next.rank);
            rc = PMIx_Get(&next, key, NULL, 0, &v);
            if (rc != PMIX_SUCCESS || v == NULL || v->type != PMIX_STRING || strcmp(v->data.string, val) != 0) {
                printf("%u: FAIL Get %s of rank %u: %s\n", (unsigned)me.rank, key, (unsigned)next.rank, PMIx_Error_string(rc));
                nfail++;
            }
            if (v != NULL) PMIX_VALUE_RELEASE(v);
        }
    }
    if (helper > 0) {
        int st;
        while (waitpid(helper, &st, 0) < 0 && errno == EINTR) {}
    }
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("%u: FAIL PMIx_Finalize: %s\n", (unsigned)me.rank, PMIx_Error_string(rc));
        nfail++;
    }
    printf("%u: done\n", (unsigned)me.rank);
    return nfail == 0 ? 0 : 1;
}
