/*
 * make bench: job control and monitoring costs.
 *   bench_jctl pause  (2 ranks): latency from PMIx_Job_control_nb(PAUSE) on
 *                     rank 1 to its /proc state being 'T' (median of 20).
 *   bench_jctl hb     (N ranks): every rank is heartbeat-monitored and beats
 *                     every 100 ms for 5 s; rank 0 reports the server's CPU
 *                     time over that window divided by the beats (the server
 *                     is this job's parent process).
 *   bench_jctl idle   (N ranks): the same window without monitors or beats:
 *                     the server's (and its host's) CPU when nothing happens,
 *                     in the same unit, to subtract from "hb".
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pmix.h>

static pmix_proc_t me;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static char state_of(pid_t pid)
{
    char path[64], buf[512], *p;
    FILE *f;
    snprintf(path, sizeof path, "/proc/%d/stat", (int) pid);
    if (!(f = fopen(path, "r"))) return '?';
    if (!fgets(buf, sizeof buf, f)) buf[0] = 0;
    fclose(f);
    p = strrchr(buf, ')');
    return p && p[1] && p[2] ? p[2] : '?';
}

/* utime + stime of a process, in microseconds */
/* CPU time of every thread of `pid`, in microseconds: the sum of the
 * nanosecond run times in /proc/<pid>/task/<tid>/schedstat (the clock-tick
 * counts of /proc/<pid>/stat are 10 ms coarse, too coarse for a few us per
 * beat); falls back to those ticks when schedstat is not there. */
static double cpu_us(pid_t pid)
{
    char path[300], buf[1024], *p;
    unsigned long ut = 0, st = 0;
    unsigned long long ns, total = 0;
    int i, found = 0;
    FILE *f;
    DIR *d;
    struct dirent *e;
    snprintf(path, sizeof path, "/proc/%d/task", (int) pid);
    if ((d = opendir(path)) != NULL) {
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.') continue;
            snprintf(path, sizeof path, "/proc/%d/task/%s/schedstat", (int) pid, e->d_name);
            if (!(f = fopen(path, "r"))) continue;
            if (fscanf(f, "%llu", &ns) == 1) { total += ns; found = 1; }
            fclose(f);
        }
        closedir(d);
        if (found) return total / 1e3;
    }
    snprintf(path, sizeof path, "/proc/%d/stat", (int) pid);
    if (!(f = fopen(path, "r"))) return 0;
    if (!fgets(buf, sizeof buf, f)) buf[0] = 0;
    fclose(f);
    p = strrchr(buf, ')');
    for (i = 0; p && i < 13; i++) p = strchr(p + 1, ' ');
    if (p) sscanf(p + 1, "%lu %lu", &ut, &st);
    return (ut + st) * 1e6 / sysconf(_SC_CLK_TCK);
}

static void fence(void) { PMIx_Fence(NULL, 0, NULL, 0); }

static int cmp(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static void opcb(pmix_status_t s, pmix_info_t *i, size_t n, void *cbdata, pmix_release_cbfunc_t rel, void *relcb)
{
    (void) s; (void) i; (void) n; (void) cbdata;
    if (rel) rel(relcb);
}

int main(int argc, char **argv)
{
    pmix_value_t v, *out = NULL;
    pmix_proc_t target;
    pmix_info_t dir, mon, hb[2];
    double t[20];
    int i, k;
    bool yes = true;
    uint32_t one = 1;

    if (argc < 2 || PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) return 2;
    alarm(120);
    if (strcmp(argv[1], "pause") == 0) {
        v.type = PMIX_INT32;
        v.data.int32 = getpid();
        PMIx_Put(PMIX_GLOBAL, "bench.pid", &v);
        PMIx_Commit();
        PMIX_INFO_LOAD(&dir, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
        PMIx_Fence(NULL, 0, &dir, 1);
        if (me.rank == 0) {
            pid_t pid;
            PMIX_LOAD_PROCID(&target, me.nspace, 1);
            if (PMIx_Get(&target, "bench.pid", NULL, 0, &out) != PMIX_SUCCESS) return 1;
            pid = out->data.int32;
            for (i = 0; i < 20; i++) {
                double t0 = now();
                PMIX_INFO_LOAD(&dir, PMIX_JOB_CTRL_PAUSE, &yes, PMIX_BOOL);
                if (PMIx_Job_control_nb(&target, 1, &dir, 1, opcb, NULL) != PMIX_SUCCESS) return 1;
                while (state_of(pid) != 'T' && now() - t0 < 5) ;
                t[i] = (now() - t0) * 1e6;
                PMIX_INFO_LOAD(&dir, PMIX_JOB_CTRL_RESUME, &yes, PMIX_BOOL);
                PMIx_Job_control(&target, 1, &dir, 1, NULL, NULL);
                while (state_of(pid) == 'T' && now() - t0 < 10) usleep(100);
            }
            qsort(t, 20, sizeof t[0], cmp);
            printf("pause latency %.1f us\n", t[10]);
        }
        fence();
    } else {
        uint32_t nprocs = 0;
        double c0 = 0, c1;
        pid_t server = getppid();
        PMIX_LOAD_PROCID(&target, me.nspace, PMIX_RANK_WILDCARD);
        if (PMIx_Get(&target, PMIX_JOB_SIZE, NULL, 0, &out) == PMIX_SUCCESS) nprocs = out->data.uint32;
        PMIX_INFO_LOAD(&mon, PMIX_MONITOR_HEARTBEAT, NULL, PMIX_POINTER);
        PMIX_INFO_LOAD(&hb[0], PMIX_MONITOR_HEARTBEAT_TIME, &one, PMIX_UINT32);
        PMIX_INFO_LOAD(&hb[1], PMIX_MONITOR_HEARTBEAT_DROPS, &one, PMIX_UINT32);
        bool idle = strcmp(argv[1], "idle") == 0;
        if (!idle && PMIx_Process_monitor(&mon, PMIX_MONITOR_HEARTBEAT_ALERT, hb, 2, NULL, NULL) != PMIX_SUCCESS) {
            if (me.rank == 0) printf("heartbeat monitoring not available\n");
            PMIx_Finalize(NULL, 0);
            return 3;
        }
        fence();
        if (me.rank == 0) c0 = cpu_us(server);
        for (k = 0; k < 50; k++) {
            if (!idle) PMIx_Heartbeat();
            usleep(100000);
        }
        fence();
        if (me.rank == 0) {
            c1 = cpu_us(server);
            printf("heartbeat cost %.2f us/beat (%u ranks, 50 beats each)\n", (c1 - c0) / (50.0 * nprocs), nprocs);
        }
    }
    PMIx_Finalize(NULL, 0);
    return 0;
}
