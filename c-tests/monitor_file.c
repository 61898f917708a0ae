/*
 * monitor_file: file monitoring (PMIx_Process_monitor with PMIX_MONITOR_FILE).
 *
 *   pmixrun --on-stall report -n 1 ./monitor_file SCRATCH_DIR
 *
 * One rank. A handler for PMIX_MONITOR_FILE_ALERT records every call (source,
 * PMIX_MONITOR_ID, CLOCK_MONOTONIC arrival time). Two non-empty files in
 * SCRATCH_DIR, "grow" and "still", each get a monitor (PMIX_MONITOR_FILE =
 * the absolute path, PMIX_MONITOR_FILE_SIZE, PMIX_MONITOR_FILE_CHECK_TIME 1,
 * PMIX_MONITOR_FILE_DROPS 0, PMIX_MONITOR_ID "grow" / "still", error
 * PMIX_MONITOR_FILE_ALERT). The test appends to "grow" every 0.3 s for 3.2 s:
 *   - "grow" raises no alert;
 *   - "still" raises exactly one alert, 1..2.5 s after its monitor started,
 *     code PMIX_MONITOR_FILE_ALERT, source = this process, id "still".
 * Then PMIX_MONITOR_CANCEL = NULL (all): PMIX_SUCCESS, and the next 2.5 s
 * (no appends) bring no further alert. Also: a relative PMIX_MONITOR_FILE
 * path and a file monitor without CHECK_TIME are PMIX_ERR_BAD_PARAM.
 * Prints failures as "rank 0: <check>: FAIL <detail>" and
 * "monitor_file: N passed, M failed". alarm(30).
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


/* check_time 0 = leave PMIX_MONITOR_FILE_CHECK_TIME out */
static pmix_status_t start_file(const char *id, const char *path, uint32_t check_time)
{
    pmix_info_t mon, dirs[4];
    size_t n = 0, i;
    bool t = true;
    uint32_t drops = 0;
    pmix_status_t rc;
    PMIX_INFO_LOAD(&mon, PMIX_MONITOR_FILE, path, PMIX_STRING);
    PMIX_INFO_LOAD(&dirs[n++], PMIX_MONITOR_FILE_SIZE, &t, PMIX_BOOL);
    if (check_time) PMIX_INFO_LOAD(&dirs[n++], PMIX_MONITOR_FILE_CHECK_TIME, &check_time, PMIX_UINT32);
    PMIX_INFO_LOAD(&dirs[n++], PMIX_MONITOR_FILE_DROPS, &drops, PMIX_UINT32);
    PMIX_INFO_LOAD(&dirs[n++], PMIX_MONITOR_ID, id, PMIX_STRING);
    rc = PMIx_Process_monitor(&mon, PMIX_MONITOR_FILE_ALERT, dirs, n, NULL, NULL);
    PMIX_INFO_DESTRUCT(&mon);
    for (i = 0; i < n; i++) PMIX_INFO_DESTRUCT(&dirs[i]);
    return rc;
}

static bool append(const char *path)
{
    FILE *f = fopen(path, "a");
    if (!f) return false;
    fputs("tick\n", f);
    return fclose(f) == 0;
}

int main(int argc, char **argv)
{
    pmix_status_t rc;
    char grow[4096], still[4096];
    pmix_info_t mon;
    long t0, end, t_cancel;
    struct alert a;
    int n;
    bool appended = true;

    alarm(30);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2 || argv[1][0] != '/') {
        printf("usage: monitor_file ABSOLUTE_SCRATCH_DIR\n");
        return 2;
    }
    snprintf(grow, sizeof(grow), "%s/grow", argv[1]);
    snprintf(still, sizeof(still), "%s/still", argv[1]);
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("monitor_file: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    check(append(grow) && append(still), "create files", "cannot write in %s", argv[1]);
    {
        pmix_status_t code = PMIX_MONITOR_FILE_ALERT;
        rc = register_handler(&code, 1, alert_handler);
    }
    check(rc == PMIX_SUCCESS, "register handler", "%s", PMIx_Error_string(rc));

    rc = start_file("rel", "relative/file", 1);
    check(rc == PMIX_ERR_BAD_PARAM, "relative path", "%s, expected PMIX_ERR_BAD_PARAM", PMIx_Error_string(rc));
    rc = start_file("notime", grow, 0);
    check(rc == PMIX_ERR_BAD_PARAM, "no check time", "%s, expected PMIX_ERR_BAD_PARAM", PMIx_Error_string(rc));

    t0 = now_ms();
    rc = start_file("grow", grow, 1);
    check(rc == PMIX_SUCCESS, "start grow", "%s", PMIx_Error_string(rc));
    rc = start_file("still", still, 1);
    check(rc == PMIX_SUCCESS, "start still", "%s", PMIx_Error_string(rc));
    end = t0 + 3200;
    while (now_ms() < end) {
        appended = append(grow) && appended;
        msleep(300);
    }
    check(appended, "append", "appending to %s failed", grow);
    n = find_alerts("grow", 0, &a);
    check(n == 0, "grow: no alert", "%d alerts for the growing file (first %ld ms after start)", n, n ? a.t - t0 : 0);
    n = find_alerts("still", 0, &a);
    check(n == 1, "still: one alert", "%d alerts for the file that does not grow, expected 1", n);
    if (n >= 1) {
        check(a.t - t0 >= 1000 && a.t - t0 <= 2500, "still: alert time", "%ld ms after the monitor started, expected 1000..2500", a.t - t0);
        check(a.code == PMIX_MONITOR_FILE_ALERT, "still: alert code", "%s", PMIx_Error_string(a.code));
        check(a.has_src && PMIX_CHECK_PROCID(&a.src, &me), "still: alert source", "the source is not this process");
        printf("monitor_file: info: \"still\" alert %ld ms after the monitor started\n", a.t - t0);
    }
    n = find_alerts(NULL, 0, NULL);
    check(n == find_alerts("grow", 0, NULL) + find_alerts("still", 0, NULL), "alert ids", "%d alerts without the id of a monitor", n - find_alerts("grow", 0, NULL) - find_alerts("still", 0, NULL));

    PMIX_INFO_LOAD(&mon, PMIX_MONITOR_CANCEL, NULL, PMIX_STRING);
    rc = PMIx_Process_monitor(&mon, PMIX_SUCCESS, NULL, 0, NULL, NULL);
    PMIX_INFO_DESTRUCT(&mon);
    t_cancel = now_ms();
    check(rc == PMIX_SUCCESS, "cancel all", "%s", PMIx_Error_string(rc));
    msleep(2500);
    n = find_alerts(NULL, t_cancel, NULL);
    check(n == 0, "cancel all: silence", "%d alerts after the cancel", n);

    tu_summary("monitor_file");
    PMIx_Finalize(NULL, 0);
    return nfail ? 1 : 0;
}
