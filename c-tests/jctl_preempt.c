/*
 * jctl_preempt: a preemption notice as ranks see it.
 *
 *   pmixrun --preempt-notice S -n 3 ./jctl_preempt DIR quick|stay [marker]
 *
 * Every rank registers a handler for PMIX_JCTRL_PREEMPT_ALERT. Ranks 0 and 1
 * declare themselves preemptible (PMIx_Job_control without targets,
 * PMIX_JOB_CTRL_PREEMPTIBLE = true); rank 2 declares nothing. Each rank then
 * creates DIR/ready.R and sleeps (alarm(40) bounds it) until pmixrun stops
 * the job.
 *
 * On the alert a rank creates DIR/alert.R holding the PMIX_TIMEOUT the alert
 * carried (-1 if none). Then rank 0 reports PMIX_JCTRL_CHECKPOINT_COMPLETE
 * (range PMIX_RANGE_RM) and keeps sleeping; rank 1 finalizes and exits 0 in
 * mode "quick", and keeps sleeping without reporting anything in mode
 * "stay". A failed call prints "rank R: FAIL <what>" and the rank exits 1.
 *
 * Mode "ckpt" (for `pmixctl checkpoint`): ranks 0 and 1 register
 * PMIX_JOB_CTRL_CHECKPOINT_METHOD = { PMIX_JOB_CTRL_CHECKPOINT_EVENT } (rank 2
 * registers nothing, so a checkpoint of all ranks is refused); on the
 * PMIX_JCTRL_CHECKPOINT event a rank creates DIR/ckpt.R holding the
 * checkpoint id the event carried and reports PMIX_JCTRL_CHECKPOINT_COMPLETE.
 *
 * The system tests (systests/tests/pmixrun.rs) send SIGTERM to pmixrun
 * once every ready file exists and check which alert files appear and how
 * long the job takes to stop: at once when every alerted rank is ready ("quick"),
 * after the notice otherwise ("stay").
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include "testutil.h"

static const char *dir;
static volatile sig_atomic_t alerted, checkpointed;
static char ckpt_id[128] = "-";
static volatile int alert_timeout = -1;

/* DIR/<name>.<rank> holding one line of text */
static void touch_text(const char *name, const char *text)
{
    char path[1024];
    FILE *f;
    snprintf(path, sizeof(path), "%s/%s.%u", dir, name, (unsigned)me.rank);
    f = fopen(path, "w");
    if (f) {
        fprintf(f, "%s\n", text);
        fclose(f);
    }
}

static void touch(const char *name, int value)
{
    char text[32];
    snprintf(text, sizeof text, "%d", value);
    touch_text(name, text);
}

static void on_alert(size_t id, pmix_status_t status, const pmix_proc_t *source,
                     pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    size_t i;
    (void)id; (void)source; (void)results; (void)nresults;
    if (status == PMIX_JCTRL_CHECKPOINT) {
        for (i = 0; i < ninfo; i++)
            if (PMIX_CHECK_KEY(&info[i], PMIX_JOB_CTRL_CHECKPOINT) && info[i].value.type == PMIX_STRING)
                snprintf(ckpt_id, sizeof ckpt_id, "%s", info[i].value.data.string);
        checkpointed = 1;
    }
    if (status == PMIX_JCTRL_PREEMPT_ALERT) {
        for (i = 0; i < ninfo; i++)
            if (PMIX_CHECK_KEY(&info[i], PMIX_TIMEOUT))
                alert_timeout = info[i].value.type == PMIX_UINT32 ? (int)info[i].value.data.uint32
                              : info[i].value.type == PMIX_INT ? info[i].value.data.integer : -2;
        touch("alert", alert_timeout);
        alerted = 1;
    }
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

int main(int argc, char **argv)
{
    pmix_status_t rc, codes[2] = {PMIX_JCTRL_PREEMPT_ALERT, PMIX_JCTRL_CHECKPOINT};
    bool quick, ckpt, t = true, reported = false;
    int i;

    if (argc < 3 || (strcmp(argv[2], "quick") != 0 && strcmp(argv[2], "stay") != 0 && strcmp(argv[2], "ckpt") != 0)) {
        fprintf(stderr, "usage: jctl_preempt DIR quick|stay|ckpt [marker]\n");
        return 2;
    }
    dir = argv[1];
    tu_die_out = stdout; /* a fatal "rank R: FAIL <what>: <status>" goes with the other lines */
    quick = strcmp(argv[2], "quick") == 0;
    ckpt = strcmp(argv[2], "ckpt") == 0;
    alarm(40);
    setvbuf(stdout, NULL, _IOLBF, 0);
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) die("FAIL PMIx_Init: %s", PMIx_Error_string(rc));
    rc = PMIx_Register_event_handler(codes, 2, NULL, 0, on_alert, NULL, NULL);
    if (rc < 0) die("FAIL PMIx_Register_event_handler: %s", PMIx_Error_string(rc));
    if (me.rank < 2 && ckpt) {
        pmix_info_t d;
        pmix_data_array_t *arr;
        PMIX_DATA_ARRAY_CREATE(arr, 1, PMIX_INFO);
        PMIX_INFO_LOAD(&((pmix_info_t *)arr->array)[0], PMIX_JOB_CTRL_CHECKPOINT_EVENT, &t, PMIX_BOOL);
        PMIX_INFO_LOAD(&d, PMIX_JOB_CTRL_CHECKPOINT_METHOD, arr, PMIX_DATA_ARRAY);
        rc = PMIx_Job_control(NULL, 0, &d, 1, NULL, NULL);
        PMIX_INFO_DESTRUCT(&d);
        PMIX_DATA_ARRAY_FREE(arr);
        if (rc != PMIX_SUCCESS) die("FAIL register checkpoint method: %s", PMIx_Error_string(rc));
    } else if (me.rank < 2) {
        pmix_info_t d;
        PMIX_INFO_LOAD(&d, PMIX_JOB_CTRL_PREEMPTIBLE, &t, PMIX_BOOL);
        rc = PMIx_Job_control(NULL, 0, &d, 1, NULL, NULL);
        PMIX_INFO_DESTRUCT(&d);
        if (rc != PMIX_SUCCESS) die("FAIL register preemptible: %s", PMIx_Error_string(rc));
    }
    touch("ready", 0);
    for (i = 0; i < 3500; i++) {
        if (checkpointed == 1) {
            checkpointed = 2;
            touch_text("ckpt", ckpt_id);
            rc = PMIx_Notify_event(PMIX_JCTRL_CHECKPOINT_COMPLETE, &me, PMIX_RANGE_RM, NULL, 0, NULL, NULL);
            if (rc != PMIX_SUCCESS) die("FAIL notify checkpoint complete: %s", PMIx_Error_string(rc));
        }
        if (alerted && !reported) {
            reported = true;
            if (me.rank == 0) {
                rc = PMIx_Notify_event(PMIX_JCTRL_CHECKPOINT_COMPLETE, &me, PMIX_RANGE_RM, NULL, 0, NULL, NULL);
                if (rc != PMIX_SUCCESS) die("FAIL notify checkpoint complete: %s", PMIx_Error_string(rc));
            } else if (me.rank == 1 && quick) {
                break;
            }
        }
        msleep(10);
    }
    PMIx_Finalize(NULL, 0);
    return 0;
}
