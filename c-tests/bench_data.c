/*
 * bench_data.c: microbenchmark of the PMIx data utilities, in ns per operation.
 *
 * Compiled once (against OpenPMIx's headers, see tools/bench-compare.sh) and
 * run against either library: LD_LIBRARY_PATH=target/release selects rpmix's
 * libpmix.so.2, nothing selects the system's OpenPMIx.
 *
 * Each operation is calibrated so that one run lasts about 0.2 s; the line
 * reports the median ns/op of 5 such runs. Output: a first line
 * "library: <PMIx_Get_version()>", then "<operation padded> <ns/op>" per
 * operation (names have no spaces). Exit status 1 if an operation fails.
 */
#define _DEFAULT_SOURCE /* clock_gettime; OpenPMIx's header inlines need strdup & co */
#include <pmix.h>
#include <pmix_tool.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TESTUTIL_CHECKS_ONLY
#include "testutil.h"

#define RUNS 5
#define TARGET_RUN_NS 200000000.0 /* 0.2 s per run */
#define NINFO 8
#define NU64 100

static const char STR32[] = "abcdefghijklmnopqrstuvwxyz012345"; /* 32 chars */

static volatile long sink; /* keeps results observable */

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* operations: each runs `iters` times                                 */

static pmix_info_t pinfo[NINFO]; /* the 8 infos to pack */
static pmix_value_t v_int, v_str; /* xfer sources */

static void op_info_load_int(long iters)
{
    pmix_info_t info;
    int x = 42;
    long i;
    memset(&info, 0, sizeof info);
    for (i = 0; i < iters; i++) {
        sink += PMIx_Info_load(&info, "bench.int", &x, PMIX_INT);
    }
    PMIx_Value_destruct(&info.value);
}

static void op_info_load_str_destruct(long iters)
{
    pmix_info_t info;
    long i;
    memset(&info, 0, sizeof info);
    for (i = 0; i < iters; i++) {
        sink += PMIx_Info_load(&info, "bench.str", STR32, PMIX_STRING);
        PMIx_Value_destruct(&info.value);
    }
}

static void op_value_xfer_int(long iters)
{
    pmix_value_t dst;
    long i;
    memset(&dst, 0, sizeof dst);
    for (i = 0; i < iters; i++) {
        sink += PMIx_Value_xfer(&dst, &v_int);
    }
    PMIx_Value_destruct(&dst);
}

static void op_value_xfer_str_destruct(long iters)
{
    pmix_value_t dst;
    long i;
    memset(&dst, 0, sizeof dst);
    for (i = 0; i < iters; i++) {
        sink += PMIx_Value_xfer(&dst, &v_str);
        PMIx_Value_destruct(&dst);
    }
}

static void op_pack_unpack_info(long iters)
{
    long i;
    int k;
    for (i = 0; i < iters; i++) {
        pmix_data_buffer_t b;
        pmix_info_t out[NINFO];
        int32_t n = NINFO;
        memset(&b, 0, sizeof b);
        memset(out, 0, sizeof out);
        sink += PMIx_Data_pack(NULL, &b, pinfo, NINFO, PMIX_INFO);
        sink += PMIx_Data_unpack(NULL, &b, out, &n, PMIX_INFO);
        for (k = 0; k < n && k < NINFO; k++) {
            PMIx_Value_destruct(&out[k].value);
        }
        free(b.base_ptr);
    }
}

static void op_pack_unpack_u64(long iters)
{
    uint64_t src[NU64], out[NU64];
    long i;
    int k;
    for (k = 0; k < NU64; k++) {
        src[k] = (uint64_t) k * 0x9e3779b97f4a7c15ULL;
    }
    for (i = 0; i < iters; i++) {
        pmix_data_buffer_t b;
        int32_t n = NU64;
        memset(&b, 0, sizeof b);
        sink += PMIx_Data_pack(NULL, &b, src, NU64, PMIX_UINT64);
        sink += PMIx_Data_unpack(NULL, &b, out, &n, PMIX_UINT64);
        sink += (long) out[NU64 - 1];
        free(b.base_ptr);
    }
}

/* ------------------------------------------------------------------ */
/* one-shot correctness checks, so a failing library is not timed      */

static void verify(void)
{
    pmix_info_t info;
    pmix_value_t dst;
    pmix_data_buffer_t b;
    pmix_info_t out[NINFO];
    uint64_t u[NU64], uo[NU64];
    int32_t n;
    int x = 42, k;

    memset(&info, 0, sizeof info);
    check_status("Info_load(int)", PMIx_Info_load(&info, "bench.int", &x, PMIX_INT), PMIX_SUCCESS);
    PMIx_Value_destruct(&info.value);
    check_status("Info_load(string32)", PMIx_Info_load(&info, "bench.str", STR32, PMIX_STRING), PMIX_SUCCESS);
    PMIx_Value_destruct(&info.value);
    memset(&dst, 0, sizeof dst);
    check_status("Value_xfer(int)", PMIx_Value_xfer(&dst, &v_int), PMIX_SUCCESS);
    PMIx_Value_destruct(&dst);
    check_status("Value_xfer(string32)", PMIx_Value_xfer(&dst, &v_str), PMIX_SUCCESS);
    PMIx_Value_destruct(&dst);

    memset(&b, 0, sizeof b);
    memset(out, 0, sizeof out);
    n = NINFO;
    check_status("Data_pack(8xinfo)", PMIx_Data_pack(NULL, &b, pinfo, NINFO, PMIX_INFO), PMIX_SUCCESS);
    check_status("Data_unpack(8xinfo)", PMIx_Data_unpack(NULL, &b, out, &n, PMIX_INFO), PMIX_SUCCESS);
    check(n == NINFO, "Data_unpack(8xinfo)", "%d infos, expected %d", (int) n, NINFO);
    for (k = 0; k < n && k < NINFO; k++) {
        PMIx_Value_destruct(&out[k].value);
    }
    free(b.base_ptr);

    for (k = 0; k < NU64; k++) {
        u[k] = (uint64_t) k;
    }
    memset(&b, 0, sizeof b);
    n = NU64;
    check_status("Data_pack(100xuint64)", PMIx_Data_pack(NULL, &b, u, NU64, PMIX_UINT64), PMIX_SUCCESS);
    check_status("Data_unpack(100xuint64)", PMIx_Data_unpack(NULL, &b, uo, &n, PMIX_UINT64), PMIX_SUCCESS);
    check(n == NU64 && uo[NU64 - 1] == NU64 - 1, "Data_unpack(100xuint64)", "wrong values");
    free(b.base_ptr);
}

/* ------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static void bench(const char *name, void (*fn)(long))
{
    double t, ns[RUNS];
    long iters = 1;
    int r;

    /* calibrate: grow until a run takes at least 20 ms, then scale to 0.2 s */
    for (;;) {
        t = now_ns();
        fn(iters);
        t = now_ns() - t;
        if (t >= TARGET_RUN_NS / 10 || iters >= (1L << 40)) {
            break;
        }
        iters *= 2;
    }
    if (t > 0) {
        double scaled = (double) iters * TARGET_RUN_NS / t;
        iters = scaled < 1 ? 1 : (long) scaled;
    }
    for (r = 0; r < RUNS; r++) {
        t = now_ns();
        fn(iters);
        ns[r] = (now_ns() - t) / (double) iters;
    }
    qsort(ns, RUNS, sizeof ns[0], cmp_double);
    printf("%-40s %12.1f\n", name, ns[RUNS / 2]);
    fflush(stdout);
}

int main(void)
{
    pmix_proc_t me, procs[2];
    pmix_info_t init_info;
    int x = 7, k;
    bool t = true;

    /* the first failed check on stderr, and no timing after one */
    tu_out = stderr;
    tu_max_fail_lines = 1;

    /* OpenPMIx's data utilities need an init; rpmix needs none (status ignored) */
    memset(&me, 0, sizeof me);
    memset(&init_info, 0, sizeof init_info);
    strncpy(init_info.key, PMIX_TOOL_DO_NOT_CONNECT, PMIX_MAX_KEYLEN);
    init_info.value.type = PMIX_BOOL;
    init_info.value.data.flag = true;
    (void) PMIx_tool_init(&me, &init_info, 1);

    printf("library: %s\n", PMIx_Get_version());

    memset(procs, 0, sizeof procs);
    strncpy(procs[0].nspace, "bench-nspace-a", PMIX_MAX_NSLEN);
    procs[0].rank = 3;
    strncpy(procs[1].nspace, "bench-nspace-b", PMIX_MAX_NSLEN);
    procs[1].rank = 11;
    memset(pinfo, 0, sizeof pinfo);
    for (k = 0; k < NINFO; k += 4) {
        int v = 1000 + k;
        check_status("setup", PMIx_Info_load(&pinfo[k], "bench.key.int", &v, PMIX_INT), PMIX_SUCCESS);
        check_status("setup", PMIx_Info_load(&pinfo[k + 1], "bench.key.string", STR32, PMIX_STRING), PMIX_SUCCESS);
        check_status("setup", PMIx_Info_load(&pinfo[k + 2], "bench.key.bool", &t, PMIX_BOOL), PMIX_SUCCESS);
        check_status("setup", PMIx_Info_load(&pinfo[k + 3], "bench.key.proc", &procs[k / 4], PMIX_PROC), PMIX_SUCCESS);
    }
    memset(&v_int, 0, sizeof v_int);
    memset(&v_str, 0, sizeof v_str);
    check_status("setup", PMIx_Value_load(&v_int, &x, PMIX_INT), PMIX_SUCCESS);
    check_status("setup", PMIx_Value_load(&v_str, STR32, PMIX_STRING), PMIX_SUCCESS);

    verify();
    if (nfail == 0) {
        bench("Info_load(int)", op_info_load_int);
        bench("Info_load(string32)+Value_destruct", op_info_load_str_destruct);
        bench("Value_xfer(int)", op_value_xfer_int);
        bench("Value_xfer(string32)+Value_destruct", op_value_xfer_str_destruct);
        bench("Data_pack+unpack+destruct(8xinfo)", op_pack_unpack_info);
        bench("Data_pack+unpack(100xuint64)", op_pack_unpack_u64);
    }

    for (k = 0; k < NINFO; k++) {
        PMIx_Value_destruct(&pinfo[k].value);
    }
    PMIx_Value_destruct(&v_int);
    PMIx_Value_destruct(&v_str);
    (void) PMIx_tool_finalize();
    return nfail ? 1 : 0;
}
