/*
 * monitor_hb: heartbeat monitoring (PMIx_Process_monitor, PMIx_Heartbeat).
 *
 *   pmixrun --on-stall report -n 2 ./monitor_hb          (checks)
 *   pmixrun --on-stall terminate -n 2 ./monitor_hb stall (host reaction)
 *
 * Checks mode (exactly 2 ranks). Both ranks register one handler for
 * PMIX_MONITOR_HEARTBEAT_ALERT and HB2 (a user code) and record every call
 * (code, source, PMIX_MONITOR_ID, CLOCK_MONOTONIC arrival time).
 *   0. rank 0: a heartbeat monitor without PMIX_MONITOR_HEARTBEAT_TIME is
 *      PMIX_ERR_BAD_PARAM.
 *   A. rank 1 requests monitor "hb1" (HEARTBEAT_TIME 1, HEARTBEAT_DROPS 1,
 *      error PMIX_MONITOR_HEARTBEAT_ALERT), beats every 0.3 s for 3 s, then
 *      stays silent 4 s. Each rank must see exactly one hb1 alert, with
 *      source rank 1 and id "hb1", none while beating, arriving between
 *      2 s and 4 s after the last beat.
 *   B. rank 1 beats for 1.5 s (re-arming the monitor), cancels "hb1"
 *      (PMIX_MONITOR_CANCEL = "hb1": PMIX_SUCCESS), then stays silent 3.5 s:
 *      no further alert anywhere. Cancelling "hb1" again is not PMIX_SUCCESS.
 *   C. rank 1 requests monitor "hb2" (TIME 1, DROPS 0, error HB2,
 *      PMIX_MONITOR_APP_CONTROL): beats for 1.2 s, then silent 3 s: each rank
 *      sees exactly one alert with code HB2, id "hb2", source rank 1, between
 *      1 s and 3 s after the last beat. Then PMIX_MONITOR_CANCEL = NULL
 *      (all of rank 1's monitors): PMIX_SUCCESS.
 * (The driver checks pmixrun's stderr: hb1's alert reported once, hb2's --
 * under the application's control -- never.)
 * Failures print "rank R: <check>: FAIL <detail>"; rank 0 prints
 * "monitor_hb: N passed, M failed" (both ranks' checks). alarm(40).
 *
 * Stall mode: rank 1 requests a heartbeat monitor "stall" (TIME 1, DROPS 0)
 * and never beats; every rank then sleeps 20 s (alarm(30)). The host must
 * act on the stall (pmixrun --on-stall terminate/kill ends the job).
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include "testutil.h"
#include "alertlog.h"

#define HB2 (PMIX_EXTERNAL_ERR_BASE - 21)


/* start a heartbeat monitor; time 0 = leave PMIX_MONITOR_HEARTBEAT_TIME out */
static pmix_status_t start_hb(const char *id, uint32_t time, uint32_t drops, pmix_status_t code, bool app_control)
{
    pmix_info_t mon, dirs[4];
    size_t n = 0, i;
    bool t = true;
    pmix_status_t rc;
    PMIX_INFO_LOAD(&mon, PMIX_MONITOR_HEARTBEAT, &t, PMIX_BOOL);
    if (time) PMIX_INFO_LOAD(&dirs[n++], PMIX_MONITOR_HEARTBEAT_TIME, &time, PMIX_UINT32);
    PMIX_INFO_LOAD(&dirs[n++], PMIX_MONITOR_HEARTBEAT_DROPS, &drops, PMIX_UINT32);
    PMIX_INFO_LOAD(&dirs[n++], PMIX_MONITOR_ID, id, PMIX_STRING);
    if (app_control) PMIX_INFO_LOAD(&dirs[n++], PMIX_MONITOR_APP_CONTROL, &t, PMIX_BOOL);
    rc = PMIx_Process_monitor(&mon, code, dirs, n, NULL, NULL);
    PMIX_INFO_DESTRUCT(&mon);
    for (i = 0; i < n; i++) PMIX_INFO_DESTRUCT(&dirs[i]);
    return rc;
}

static pmix_status_t cancel(const char *id)
{
    pmix_info_t mon;
    pmix_status_t rc;
    PMIX_INFO_LOAD(&mon, PMIX_MONITOR_CANCEL, id, PMIX_STRING);
    rc = PMIx_Process_monitor(&mon, PMIX_SUCCESS, NULL, 0, NULL, NULL);
    PMIX_INFO_DESTRUCT(&mon);
    return rc;
}

/* beat every 300 ms for `ms`; returns the time of the last beat */
static long beat_for(long ms)
{
    long end = now_ms() + ms, last = now_ms();
    while (now_ms() < end) {
        PMIx_Heartbeat();
        last = now_ms();
        msleep(300);
    }
    return last;
}

/* one alert for `id` in [last+lo, last+hi] with `code` from rank 1 */
static void check_alert(const char *what, const char *id, pmix_status_t code, long start, long last, long lo, long hi)
{
    struct alert a;
    int n = find_alerts(id, start, &a);
    bool our_ns;
    pmix_rank_t src;
    check(n == 1, what, "%d alerts for monitor %s, expected exactly 1", n, id);
    if (n < 1) return;
    our_ns = a.has_src && strncmp(a.src.nspace, me.nspace, PMIX_MAX_NSLEN) == 0;
    src = a.has_src ? a.src.rank : PMIX_RANK_UNDEF;
    check(a.code == code, what, "alert code %d (%s), expected %d", a.code, PMIx_Error_string(a.code), code);
    check(src == 1 && our_ns, what, "alert source rank %u (namespace %s), expected rank 1 of ours",
          (unsigned)src, our_ns ? "ok" : "differs");
    check(a.t >= last + lo && a.t <= last + hi, what, "alert %ld ms after the last beat, expected %ld..%ld ms",
          a.t - last, lo, hi);
    check(find_alerts(id, start, NULL) - find_alerts(id, last, NULL) == 0, what,
          "an alert arrived before the last beat (while beating)");
    if (me.rank == 0) printf("monitor_hb: info: %s alert %ld ms after the last beat\n", id, a.t - last);
}

static int stall_mode(void)
{
    if (me.rank == 1) {
        pmix_status_t rc = start_hb("stall", 1, 0, PMIX_MONITOR_HEARTBEAT_ALERT, false);
        printf("monitor_hb: rank 1 stall monitor: %s\n", PMIx_Error_string(rc));
        fflush(stdout);
    }
    msleep(20000);
    printf("monitor_hb: rank %u still running after 20 s\n", (unsigned)me.rank);
    PMIx_Finalize(NULL, 0);
    return 1;
}

int main(int argc, char **argv)
{
    pmix_status_t rc, codes[2] = {PMIX_MONITOR_HEARTBEAT_ALERT, HB2};
    bool stall = argc > 1 && strcmp(argv[1], "stall") == 0;
    char buf[256];
    long a_start = 0, a_last = 0, b_cancel = 0, c_start = 0, c_last = 0;

    alarm(stall ? 30 : 40);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!init_job_of("monitor_hb", 2)) return 1;
    if (stall) return stall_mode();

    rc = register_handler(codes, 2, alert_handler);
    check(rc == PMIX_SUCCESS, "register handler", "%s", PMIx_Error_string(rc));
    if (me.rank == 0) {
        rc = start_hb("bad", 0, 0, PMIX_MONITOR_HEARTBEAT_ALERT, false);
        check(rc == PMIX_ERR_BAD_PARAM, "heartbeat without time", "%s, expected PMIX_ERR_BAD_PARAM", PMIx_Error_string(rc));
    }
    fence("fence 0");

    /* A: alert after the beats stop */
    if (me.rank == 1) {
        a_start = now_ms();
        rc = start_hb("hb1", 1, 1, PMIX_MONITOR_HEARTBEAT_ALERT, false);
        check(rc == PMIX_SUCCESS, "A: start hb1", "%s", PMIx_Error_string(rc));
        a_last = beat_for(3000);
        msleep(a_last + 4000 - now_ms());
        snprintf(buf, sizeof(buf), "%ld %ld", a_start, a_last);
        put_str("hb.a", buf);
    }
    fence("fence A");
    if (me.rank == 0 && get_str(1, "hb.a", buf, sizeof(buf))) sscanf(buf, "%ld %ld", &a_start, &a_last);
    check_alert("A: hb1 alert", "hb1", PMIX_MONITOR_HEARTBEAT_ALERT, a_start, a_last, 1990, 4000);

    /* B: re-arm, cancel, silence */
    if (me.rank == 1) {
        beat_for(1500);
        rc = cancel("hb1");
        b_cancel = now_ms();
        check(rc == PMIX_SUCCESS, "B: cancel hb1", "%s", PMIx_Error_string(rc));
        msleep(3500);
        rc = cancel("hb1");
        check(rc != PMIX_SUCCESS, "B: cancel hb1 again", "PMIX_SUCCESS for a monitor already cancelled");
        snprintf(buf, sizeof(buf), "%ld", b_cancel);
        put_str("hb.b", buf);
    }
    fence("fence B");
    if (me.rank == 0 && get_str(1, "hb.b", buf, sizeof(buf))) sscanf(buf, "%ld", &b_cancel);
    {
        int n = find_alerts("hb1", a_start, NULL);
        check(n == 1, "B: no alert after cancel", "%d hb1 alerts in all (expected the one of A), %d after the cancel",
              n, find_alerts("hb1", b_cancel, NULL));
    }

    /* C: a monitor under the application's control */
    if (me.rank == 1) {
        c_start = now_ms();
        rc = start_hb("hb2", 1, 0, HB2, true);
        check(rc == PMIX_SUCCESS, "C: start hb2", "%s", PMIx_Error_string(rc));
        c_last = beat_for(1200);
        msleep(c_last + 3000 - now_ms());
        rc = cancel(NULL);
        check(rc == PMIX_SUCCESS, "C: cancel all", "%s", PMIx_Error_string(rc));
        snprintf(buf, sizeof(buf), "%ld %ld", c_start, c_last);
        put_str("hb.c", buf);
    }
    fence("fence C");
    if (me.rank == 0 && get_str(1, "hb.c", buf, sizeof(buf))) sscanf(buf, "%ld %ld", &c_start, &c_last);
    check_alert("C: hb2 alert (app control)", "hb2", HB2, c_start, c_last, 990, 3000);
    check(total_alerts() == 2, "all alerts", "%d alerts in all, expected 2 (hb1, hb2)", total_alerts());

    /* results */
    if (me.rank == 1) {
        snprintf(buf, sizeof(buf), "%d %d", npass, nfail);
        put_str("hb.result", buf);
    }
    fence("fence end");
    if (me.rank == 0) {
        int p = 0, f = 0;
        if (get_str(1, "hb.result", buf, sizeof(buf)) && sscanf(buf, "%d %d", &p, &f) != 2)
            check(false, "results", "unparsable \"%s\"", buf);
        printf("monitor_hb: %d passed, %d failed\n", npass + p, nfail + f);
    }
    PMIx_Finalize(NULL, 0);
    return nfail ? 1 : 0;
}
