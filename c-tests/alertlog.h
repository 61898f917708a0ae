/*
 * A record of the monitor alerts a rank receives (monitor_hb, monitor_file):
 * alert_handler keeps each call's code, source, PMIX_MONITOR_ID and arrival
 * time; find_alerts / total_alerts query the record. Include after
 * testutil.h.
 */
#ifndef RPMIX_ALERTLOG_H
#define RPMIX_ALERTLOG_H

struct alert {
    pmix_status_t code;
    bool has_src;
    pmix_proc_t src;
    char id[32];
    long t;
};

#define MAXALERTS 64
static pthread_mutex_t alert_lock = PTHREAD_MUTEX_INITIALIZER;
static struct alert alerts[MAXALERTS];
static int nalerts;

static inline void alert_handler(size_t hid, pmix_status_t status, const pmix_proc_t *source,
                          pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                          pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    size_t i;
    (void)hid; (void)results; (void)nresults;
    pthread_mutex_lock(&alert_lock);
    if (nalerts < MAXALERTS) {
        struct alert *a = &alerts[nalerts++];
        memset(a, 0, sizeof(*a));
        a->t = now_ms();
        a->code = status;
        a->has_src = source != NULL;
        if (source) a->src = *source;
        snprintf(a->id, sizeof(a->id), "-");
        for (i = 0; info && i < ninfo; i++)
            if (strcmp(info[i].key, PMIX_MONITOR_ID) == 0 && info[i].value.type == PMIX_STRING && info[i].value.data.string)
                snprintf(a->id, sizeof(a->id), "%s", info[i].value.data.string);
    }
    pthread_mutex_unlock(&alert_lock);
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* Alerts of monitor `id` (NULL: any) that arrived after `after` ms; the first one into `first`. */
static inline int find_alerts(const char *id, long after, struct alert *first)
{
    int i, n = 0;
    pthread_mutex_lock(&alert_lock);
    for (i = 0; i < nalerts; i++) {
        if ((id && strcmp(alerts[i].id, id) != 0) || alerts[i].t <= after) continue;
        if (n == 0 && first) *first = alerts[i];
        n++;
    }
    pthread_mutex_unlock(&alert_lock);
    return n;
}

static inline int total_alerts(void)
{
    return find_alerts(NULL, -1, NULL);
}

#endif
