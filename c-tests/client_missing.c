/*
 * client_missing: how PMIx_Get answers for a key nobody Put, with and
 * without PMIX_OPTIONAL / PMIX_IMMEDIATE / PMIX_TIMEOUT, asked of another
 * rank, of the caller's own rank and of the job (PMIX_RANK_WILDCARD).
 *
 *   rm_simple -n N ./client_missing     (N >= 2)
 *
 * Every rank Puts one key, commits and joins a collective fence; then rank
 * 0 alone runs the cases and prints one line per case:
 *
 *   client_missing: <target>, <directives>: <status name> (<timing>)
 *
 * <timing> is "fast" (< 0.5 s) or "after ~N s", so the output can be
 * compared between libraries. A case with no answer in 20 s prints
 * "no answer within 20 s" and the program exits 2 (the other ranks are then
 * left to the host's time limit). The other ranks wait in a final fence.
 */
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#define HANG_LIMIT 20.0

static pthread_mutex_t wd_lock = PTHREAD_MUTEX_INITIALIZER;
static double case_start; /* 0: no case running */
static char case_name[256];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *watchdog(void *arg)
{
    (void)arg;
    for (;;) {
        struct timespec ts = {0, 100000000L};
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&wd_lock);
        if (case_start > 0 && now_s() - case_start > HANG_LIMIT) {
            printf("client_missing: %s: no answer within %.0f s\n", case_name, HANG_LIMIT);
            fflush(stdout);
            _exit(2);
        }
        pthread_mutex_unlock(&wd_lock);
    }
    return NULL;
}

static void load_info(pmix_info_t *info, const char *key, const void *data, pmix_data_type_t type)
{
    PMIX_INFO_CONSTRUCT(info);
    if (PMIx_Info_load(info, key, data, type) != PMIX_SUCCESS) abort();
}

enum { D_OPTIONAL = 1, D_IMMEDIATE = 2, D_TIMEOUT = 4 };

static void run_case(const char *target, const pmix_proc_t *p, const char *key, int dirs)
{
    pmix_info_t info[3];
    size_t n = 0, i;
    bool t = true;
    int secs = 1;
    pmix_value_t *v = NULL;
    pmix_status_t rc;
    double dt;
    char dname[64] = "", timing[32];

    if (dirs & D_OPTIONAL) { load_info(&info[n++], PMIX_OPTIONAL, &t, PMIX_BOOL); strcat(dname, "+OPTIONAL"); }
    if (dirs & D_IMMEDIATE) { load_info(&info[n++], PMIX_IMMEDIATE, &t, PMIX_BOOL); strcat(dname, "+IMMEDIATE"); }
    if (dirs & D_TIMEOUT) { load_info(&info[n++], PMIX_TIMEOUT, &secs, PMIX_INT); strcat(dname, "+TIMEOUT=1"); }

    pthread_mutex_lock(&wd_lock);
    snprintf(case_name, sizeof(case_name), "%s, key %s, %s", target, key,
             n ? dname + 1 : "no directives");
    case_start = now_s();
    pthread_mutex_unlock(&wd_lock);

    rc = PMIx_Get(p, key, n ? info : NULL, n, &v);

    pthread_mutex_lock(&wd_lock);
    dt = now_s() - case_start;
    case_start = 0;
    pthread_mutex_unlock(&wd_lock);

    if (dt < 0.5) snprintf(timing, sizeof(timing), "fast");
    else snprintf(timing, sizeof(timing), "after ~%.0f s", dt);
    printf("client_missing: %s: %s (%s)%s\n", case_name, PMIx_Error_string(rc), timing,
           rc == PMIX_SUCCESS && v == NULL ? " [no value returned]" : "");
    fflush(stdout);
    if (v) PMIX_VALUE_RELEASE(v);
    for (i = 0; i < n; i++) PMIX_INFO_DESTRUCT(&info[i]);
}

static void fence_all(void)
{
    pmix_info_t info;
    bool t = true;
    pmix_status_t rc;
    load_info(&info, PMIX_COLLECT_DATA, &t, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) {
        printf("client_missing: fence failed: %s\n", PMIx_Error_string(rc));
        exit(1);
    }
}

int main(void)
{
    static const int dirsets[] = {
        D_OPTIONAL, D_IMMEDIATE, D_TIMEOUT, D_OPTIONAL | D_TIMEOUT, D_IMMEDIATE | D_TIMEOUT, 0
    };
    pmix_proc_t me, remote, self, wild;
    pmix_value_t val;
    pmix_status_t rc;
    pthread_t th;
    uint32_t x;
    size_t d;

    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("client_missing: PMIx_Init failed: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    x = 1000 + me.rank;
    PMIX_VALUE_CONSTRUCT(&val);
    PMIx_Value_load(&val, &x, PMIX_UINT32);
    rc = PMIx_Put(PMIX_GLOBAL, "missing.present", &val);
    PMIx_Value_destruct(&val);
    if (rc == PMIX_SUCCESS) rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) {
        printf("client_missing: rank %u: Put/Commit failed: %s\n", (unsigned)me.rank, PMIx_Error_string(rc));
        return 1;
    }
    fence_all();

    if (me.rank == 0) {
        if (pthread_create(&th, NULL, watchdog, NULL) != 0) return 1;
        PMIX_LOAD_PROCID(&remote, me.nspace, 1);
        PMIX_LOAD_PROCID(&self, me.nspace, me.rank);
        PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
        /* baselines: keys that exist */
        run_case("remote rank 1", &remote, "missing.present", 0);
        run_case("own rank", &self, "missing.present", 0);
        for (d = 0; d < sizeof(dirsets) / sizeof(dirsets[0]); d++) {
            run_case("remote rank 1", &remote, "missing.nokey", dirsets[d]);
            run_case("own rank", &self, "missing.nokey", dirsets[d]);
            run_case("job (wildcard rank)", &wild, "missing.nokey", dirsets[d]);
        }
    }
    fence_all();
    PMIx_Finalize(NULL, 0);
    return 0;
}
