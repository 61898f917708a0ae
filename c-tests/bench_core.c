/*
 * bench_core.c: client/server benchmark of the core PMIx client calls.
 *
 *   rm_simple -n N bench_core get|peerget|fence|modex|init|rss
 *
 * A PMIx client (pmix.h only), started by a resource manager such as
 * c-tests/rm_simple. Compiled once against OpenPMIx's headers and run with
 * either library (see tools/bench-core.sh): LD_LIBRARY_PATH, inherited from
 * the resource manager, selects which libpmix.so.2 both of them load.
 *
 * Measurements (argv[1]; the suggested job size in brackets):
 *   get    [-n 2]  PMIx_Get(PMIX_JOB_SIZE, wildcard rank) + value release:
 *                  ns per call, median of 5 batches of >= 0.1 s (rank 0's)
 *   peerget [-n 8] each rank Puts one key of 1 KiB (a new key each
 *                  repetition, GLOBAL), Commits, Fence(PMIX_COLLECT_DATA);
 *                  then rank 0 alone Gets that key of every other rank (the
 *                  first Get of it: a client that fetches a peer's data on
 *                  demand pays its request here), the others wait in a
 *                  fence: us per Get, median of 10 repetitions
 *   fence  [-n 8]  PMIx_Fence without data over all ranks: us per fence,
 *                  median of 200 fences after 10 warm-up ones (rank 0's)
 *   modex  [-n 16] each rank Puts 10 keys of 1 KiB (byte objects, GLOBAL),
 *                  Commits; after an aligning fence: Fence(PMIX_COLLECT_DATA)
 *                  + Get of every other rank's 10 keys, in ms; the max over
 *                  ranks (gathered with a later fence) of each of 5
 *                  repetitions, median over repetitions
 *   init   [-n 8]  PMIx_Init + PMIx_Finalize timed inside each client, in ms,
 *                  median over ranks (gathered through files in $TMPDIR or
 *                  /tmp, since PMIx is finalized by then)
 *   rss    [-n 4]  VmRSS (/proc/self/status) right after PMIx_Init, in KiB,
 *                  median over ranks
 *
 * Output (rank 0 only, on stdout): "library: <PMIx_Get_version()>", then
 * "<measurement padded> <value> <unit>". Any failure: a message on stderr,
 * PMIx_Abort of the job when possible, exit status 1. A watchdog (alarm 120 s)
 * bounds every run.
 */
#define _DEFAULT_SOURCE /* clock_gettime, nanosleep; OpenPMIx's header inlines need strdup & co */
#include <pmix.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h" /* a failure: "bench_core rank R: <what>: <status>" on stderr, abort, exit 1 */

#define GET_BATCHES 5
#define GET_BATCH_NS 100000000.0 /* >= 0.1 s per batch */
#define FENCE_WARMUP 10
#define FENCE_COUNT 200
#define MODEX_REPS 5
#define PEERGET_REPS 10
#define MODEX_KEYS 10
#define MODEX_BYTES 1024
#define INIT_WAIT_S 60.0

static bool initialized;
static uint32_t nprocs;
static volatile long sink; /* keeps results observable */

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

/* die()'s last step: abort the job when there is one */
static void abort_job(pmix_status_t rc, const char *line)
{
    if (initialized) {
        (void) PMIx_Abort(rc == PMIX_SUCCESS ? 1 : rc, line, NULL, 0);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* sorts v; for an even count, the mean of the two middle values */
static double median(double *v, size_t n)
{
    qsort(v, n, sizeof v[0], cmp_double);
    return (n % 2) ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static void result(const char *name, double value, const char *unit)
{
    printf("library: %s\n", PMIx_Get_version());
    printf("%-8s %12.1f %s\n", name, value, unit);
    fflush(stdout);
}

static void init(void)
{
    require_ok("PMIx_Init", PMIx_Init(&me, NULL, 0));
    initialized = true;
    tu_set_prefix("bench_core rank %u: ", (unsigned) me.rank);
}

static void get_job_size(void)
{
    pmix_proc_t wild;
    pmix_value_t *val = NULL;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    require_ok("PMIx_Get(PMIX_JOB_SIZE)", PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val));
    if (val == NULL || val->type != PMIX_UINT32 || val->data.uint32 == 0) {
        die_status("PMIx_Get(PMIX_JOB_SIZE): not a positive uint32", PMIX_ERROR);
    }
    nprocs = val->data.uint32;
    PMIX_VALUE_RELEASE(val);
}

static void barrier(void)
{
    require_ok("PMIx_Fence", PMIx_Fence(NULL, 0, NULL, 0));
}

static void finalize(void)
{
    require_ok("PMIx_Finalize", PMIx_Finalize(NULL, 0));
    initialized = false;
}

/* ------------------------------------------------------------------ */

static void get_loop(const pmix_proc_t *wild, long iters)
{
    long i;
    for (i = 0; i < iters; i++) {
        pmix_value_t *val = NULL;
        pmix_status_t rc = PMIx_Get(wild, PMIX_JOB_SIZE, NULL, 0, &val);
        if (rc != PMIX_SUCCESS || val == NULL) {
            die_status("PMIx_Get(PMIX_JOB_SIZE) in the loop", rc);
        }
        sink += (long) val->data.uint32;
        PMIX_VALUE_RELEASE(val);
    }
}

static void bench_get(void)
{
    pmix_proc_t wild;
    double t, ns[GET_BATCHES];
    long chunk = 1, done;
    int b;

    init();
    get_job_size();
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    barrier();
    /* calibrate a chunk of about a quarter of a batch */
    for (;;) {
        t = now_ns();
        get_loop(&wild, chunk);
        t = now_ns() - t;
        if (t >= GET_BATCH_NS / 4 || chunk >= (1L << 40)) {
            break;
        }
        chunk *= 2;
    }
    /* each batch: whole chunks until at least 0.1 s has passed */
    for (b = 0; b < GET_BATCHES; b++) {
        double t0 = now_ns();
        done = 0;
        do {
            get_loop(&wild, chunk);
            done += chunk;
            t = now_ns() - t0;
        } while (t < GET_BATCH_NS);
        ns[b] = t / (double) done;
    }
    barrier();
    if (me.rank == 0) {
        result("get", median(ns, GET_BATCHES), "ns");
    }
    finalize();
}

static void bench_fence(void)
{
    double us[FENCE_COUNT];
    int i;

    init();
    for (i = 0; i < FENCE_WARMUP; i++) {
        barrier();
    }
    for (i = 0; i < FENCE_COUNT; i++) {
        double t0 = now_ns();
        barrier();
        us[i] = (now_ns() - t0) / 1e3;
    }
    if (me.rank == 0) {
        result("fence", median(us, FENCE_COUNT), "us");
    }
    finalize();
}

static unsigned char modex_byte(uint32_t rank, int rep, int k, int i)
{
    return (unsigned char) (rank * 31u + (unsigned) rep * 7u + (unsigned) k * 3u + (unsigned) i);
}

/* Put this rank's value <rep, k> under key (Put copies it). */
static void put_modex_value(const char *key, int rep, int k)
{
    static unsigned char buf[MODEX_BYTES];
    pmix_value_t v;
    int i;
    for (i = 0; i < MODEX_BYTES; i++) {
        buf[i] = modex_byte(me.rank, rep, k, i);
    }
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *) buf;
    v.data.bo.size = MODEX_BYTES;
    require_ok("PMIx_Put", PMIx_Put(PMIX_GLOBAL, key, &v));
}

/* Get peer's value <rep, k> under key; fail unless it is the one put
 * (its size, first and last bytes). */
static void get_modex_value(const pmix_proc_t *peer, const char *key, int rep, int k)
{
    pmix_value_t *val = NULL;
    require_ok("PMIx_Get(peer key)", PMIx_Get(peer, key, NULL, 0, &val));
    if (val == NULL || val->type != PMIX_BYTE_OBJECT || val->data.bo.size != MODEX_BYTES
        || (unsigned char) val->data.bo.bytes[0] != modex_byte(peer->rank, rep, k, 0)
        || (unsigned char) val->data.bo.bytes[MODEX_BYTES - 1]
               != modex_byte(peer->rank, rep, k, MODEX_BYTES - 1)) {
        die_status("PMIx_Get(peer key): wrong value", PMIX_ERROR);
    }
    PMIX_VALUE_RELEASE(val);
}

static void bench_modex(void)
{
    double ms[MODEX_REPS], rep_max[MODEX_REPS];
    char key[PMIX_MAX_KEYLEN + 1];
    pmix_info_t collect;
    bool yes = true;
    uint32_t q;
    int rep, k;

    init();
    get_job_size();
    PMIX_INFO_CONSTRUCT(&collect);
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);

    for (rep = 0; rep < MODEX_REPS; rep++) {
        double t0;
        for (k = 0; k < MODEX_KEYS; k++) {
            snprintf(key, sizeof key, "bc.m%d.k%d", rep, k);
            put_modex_value(key, rep, k);
        }
        require_ok("PMIx_Commit", PMIx_Commit());
        barrier(); /* everybody committed and starts the timed part together */

        t0 = now_ns();
        require_ok("PMIx_Fence(PMIX_COLLECT_DATA)", PMIx_Fence(NULL, 0, &collect, 1));
        for (q = 0; q < nprocs; q++) {
            pmix_proc_t peer;
            if (q == me.rank) {
                continue;
            }
            PMIX_LOAD_PROCID(&peer, me.nspace, q);
            for (k = 0; k < MODEX_KEYS; k++) {
                snprintf(key, sizeof key, "bc.m%d.k%d", rep, k);
                get_modex_value(&peer, key, rep, k);
            }
        }
        ms[rep] = (now_ns() - t0) / 1e6;
    }

    /* gather every rank's times (untimed) */
    for (rep = 0; rep < MODEX_REPS; rep++) {
        pmix_value_t v;
        snprintf(key, sizeof key, "bc.mt%d", rep);
        PMIX_VALUE_CONSTRUCT(&v);
        v.type = PMIX_DOUBLE;
        v.data.dval = ms[rep];
        require_ok("PMIx_Put(time)", PMIx_Put(PMIX_GLOBAL, key, &v));
    }
    require_ok("PMIx_Commit", PMIx_Commit());
    require_ok("PMIx_Fence(PMIX_COLLECT_DATA)", PMIx_Fence(NULL, 0, &collect, 1));
    if (me.rank == 0) {
        for (rep = 0; rep < MODEX_REPS; rep++) {
            rep_max[rep] = ms[rep];
            snprintf(key, sizeof key, "bc.mt%d", rep);
            for (q = 1; q < nprocs; q++) {
                pmix_proc_t peer;
                pmix_value_t *val = NULL;
                PMIX_LOAD_PROCID(&peer, me.nspace, q);
                require_ok("PMIx_Get(time)", PMIx_Get(&peer, key, NULL, 0, &val));
                if (val == NULL || val->type != PMIX_DOUBLE) {
                    die_status("PMIx_Get(time): not a double", PMIX_ERROR);
                }
                if (val->data.dval > rep_max[rep]) {
                    rep_max[rep] = val->data.dval;
                }
                PMIX_VALUE_RELEASE(val);
            }
        }
        result("modex", median(rep_max, MODEX_REPS), "ms");
    }
    PMIX_INFO_DESTRUCT(&collect);
    barrier(); /* rank 0 is done reading before anybody leaves */
    finalize();
}

static void bench_peerget(void)
{
    double us[PEERGET_REPS];
    char key[PMIX_MAX_KEYLEN + 1];
    pmix_info_t collect;
    bool yes = true;
    uint32_t q;
    int rep;

    init();
    get_job_size();
    if (nprocs < 2) {
        die_status("peerget needs 2 ranks or more", PMIX_ERR_BAD_PARAM);
    }
    PMIX_INFO_CONSTRUCT(&collect);
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    for (rep = 0; rep < PEERGET_REPS; rep++) {
        snprintf(key, sizeof key, "bc.p%d", rep);
        put_modex_value(key, rep, 0);
        require_ok("PMIx_Commit", PMIx_Commit());
        require_ok("PMIx_Fence(PMIX_COLLECT_DATA)", PMIx_Fence(NULL, 0, &collect, 1));
        if (me.rank == 0) {
            double t0 = now_ns();
            for (q = 1; q < nprocs; q++) {
                pmix_proc_t peer;
                PMIX_LOAD_PROCID(&peer, me.nspace, q);
                get_modex_value(&peer, key, rep, 0);
            }
            us[rep] = (now_ns() - t0) / 1e3 / (double) (nprocs - 1);
        }
        barrier(); /* the others wait while rank 0 reads */
    }
    PMIX_INFO_DESTRUCT(&collect);
    if (me.rank == 0) {
        result("peerget", median(us, PEERGET_REPS), "us");
    }
    finalize();
}

/* the per-rank result file of the init measurement */
static void init_file(char *path, size_t n, const char *nspace, uint32_t rank, const char *suffix)
{
    const char *dir = getenv("TMPDIR");
    char ns[PMIX_MAX_NSLEN + 1];
    size_t i;
    for (i = 0; nspace[i] && i < PMIX_MAX_NSLEN; i++) {
        char c = nspace[i];
        ns[i] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.'
                 || c == '-' || c == '_') ? c : '_';
    }
    ns[i] = '\0';
    snprintf(path, n, "%s/bench_core.%s.%u%s", dir && *dir ? dir : "/tmp", ns, (unsigned) rank, suffix);
}

static void bench_init(void)
{
    char nspace[PMIX_MAX_NSLEN + 1], path[4096], tmp[4096];
    double t0, t_init, t_fin, *all;
    uint32_t n, q;
    FILE *f;

    t0 = now_ns();
    init();
    t_init = now_ns() - t0;
    get_job_size(); /* untimed: rank 0 needs the job size, everybody the names */
    n = nprocs;
    memcpy(nspace, me.nspace, sizeof nspace - 1);
    nspace[PMIX_MAX_NSLEN] = '\0';
    t0 = now_ns();
    finalize();
    t_fin = now_ns() - t0;

    if (me.rank != 0) {
        init_file(path, sizeof path, nspace, me.rank, "");
        init_file(tmp, sizeof tmp, nspace, me.rank, ".tmp");
        f = fopen(tmp, "w");
        if (f == NULL || fprintf(f, "%.6f\n", (t_init + t_fin) / 1e6) < 0 || fclose(f) != 0
            || rename(tmp, path) != 0) {
            perror(tmp);
            exit(1);
        }
        return;
    }
    all = calloc(n, sizeof *all);
    if (all == NULL) {
        die_status("out of memory", PMIX_ERR_NOMEM);
    }
    all[0] = (t_init + t_fin) / 1e6;
    for (q = 1; q < n; q++) {
        double deadline = now_ns() + INIT_WAIT_S * 1e9;
        init_file(path, sizeof path, nspace, q, "");
        while ((f = fopen(path, "r")) == NULL) {
            struct timespec ms1 = {0, 1000000};
            if (now_ns() > deadline) {
                fprintf(stderr, "bench_core rank 0: no init result from rank %u (%s)\n", (unsigned) q,
                        path);
                exit(1);
            }
            nanosleep(&ms1, NULL);
        }
        if (fscanf(f, "%lf", &all[q]) != 1) {
            fprintf(stderr, "bench_core rank 0: bad init result in %s\n", path);
            exit(1);
        }
        fclose(f);
        remove(path);
    }
    result("init", median(all, n), "ms");
    free(all);
}

static long vmrss_kib(void)
{
    char line[256];
    long kib = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL) {
        return -1;
    }
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "VmRSS:", 6) == 0) {
            kib = strtol(line + 6, NULL, 10);
            break;
        }
    }
    fclose(f);
    return kib;
}

static void bench_rss(void)
{
    pmix_info_t collect;
    pmix_value_t v;
    bool yes = true;
    long kib;

    init();
    kib = vmrss_kib();
    if (kib <= 0) {
        die_status("cannot read VmRSS from /proc/self/status", PMIX_ERROR);
    }
    get_job_size();
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_UINT64;
    v.data.uint64 = (uint64_t) kib;
    require_ok("PMIx_Put(rss)", PMIx_Put(PMIX_GLOBAL, "bc.rss", &v));
    require_ok("PMIx_Commit", PMIx_Commit());
    PMIX_INFO_CONSTRUCT(&collect);
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    require_ok("PMIx_Fence(PMIX_COLLECT_DATA)", PMIx_Fence(NULL, 0, &collect, 1));
    PMIX_INFO_DESTRUCT(&collect);
    if (me.rank == 0) {
        double *all = calloc(nprocs, sizeof *all);
        uint32_t q;
        if (all == NULL) {
            die_status("out of memory", PMIX_ERR_NOMEM);
        }
        all[0] = (double) kib;
        for (q = 1; q < nprocs; q++) {
            pmix_proc_t peer;
            pmix_value_t *val = NULL;
            PMIX_LOAD_PROCID(&peer, me.nspace, q);
            require_ok("PMIx_Get(rss)", PMIx_Get(&peer, "bc.rss", NULL, 0, &val));
            if (val == NULL || val->type != PMIX_UINT64) {
                die_status("PMIx_Get(rss): not a uint64", PMIX_ERROR);
            }
            all[q] = (double) val->data.uint64;
            PMIX_VALUE_RELEASE(val);
        }
        result("rss", median(all, nprocs), "KiB");
        free(all);
    }
    barrier();
    finalize();
}

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "";

    alarm(120); /* watchdog: the default action ends the process */
    memset(&me, 0, sizeof me);
    tu_set_prefix("bench_core rank 0: ");
    tu_before_exit = abort_job;
    if (strcmp(m, "get") == 0) {
        bench_get();
    } else if (strcmp(m, "peerget") == 0) {
        bench_peerget();
    } else if (strcmp(m, "fence") == 0) {
        bench_fence();
    } else if (strcmp(m, "modex") == 0) {
        bench_modex();
    } else if (strcmp(m, "init") == 0) {
        bench_init();
    } else if (strcmp(m, "rss") == 0) {
        bench_rss();
    } else {
        fprintf(stderr, "usage: bench_core get|peerget|fence|modex|init|rss   (as a PMIx client)\n");
        return 2;
    }
    return 0;
}
