/*
 * client_groups: process groups as the ranks of one job see them.
 *
 *   pmixrun -n 4 ./client_groups        (or rm_simple -n 4 ./client_groups)
 *
 * Needs exactly 4 ranks. Every rank prints "rank R: <check>: FAIL <detail>"
 * for a failed check and, at its end, "client_groups rank R: N passed, M
 * failed". alarm(40) bounds every rank.
 *
 * 1. Ranks 0, 1, 2 construct "grpA" = {0,1,2} with PMIX_GROUP_ASSIGN_CONTEXT_ID
 *    and PMIX_GROUP_NOTIFY_TERMINATION: PMIX_SUCCESS, a PMIX_GROUP_CONTEXT_ID
 *    and a PMIX_GROUP_MEMBERSHIP of those 3; all three get the same context
 *    id. Rank 3 constructs "grpB" = {3} with PMIx_Group_construct_nb: its
 *    callback fires once, PMIX_SUCCESS, membership {3}, no context id.
 *    Bad input: a NULL name and a member list without the caller are
 *    PMIX_ERR_BAD_PARAM; constructing "grpB" again is PMIX_ERR_EXISTS.
 * 2. Rank 0 queries PMIX_QUERY_NUM_GROUPS (2) and PMIX_QUERY_GROUP_MEMBERSHIP
 *    of grpA (3 procs).
 * 3. Rank 2 leaves grpA; ranks 0 and 1 get PMIX_GROUP_LEFT from rank 2 (with
 *    PMIX_GROUP_ID grpA) within 2 s; rank 3 does not.
 * 4. Ranks 0 and 1 destruct grpA (PMIX_SUCCESS); a second destruct is
 *    PMIX_ERR_NOT_FOUND. Rank 3 destructs grpB with PMIx_Group_destruct_nb.
 *    Then ranks 0-2 construct "grpL"; rank 0's destruct_nb is pending when
 *    rank 2 leaves; rank 1's destruct then completes it (both PMIX_SUCCESS).
 * 5. Rank 0 constructs "grpT" = {0,3} with PMIX_TIMEOUT 1; rank 3 never
 *    joins: PMIX_ERR_TIMEOUT after 0.9 to 4 s.
 * 6. Invitations: rank 0 invites ranks 1, 2, 3 into "grpI" (ASSIGN_CONTEXT_ID,
 *    PMIX_TIMEOUT 10); on PMIX_GROUP_INVITED (from rank 0, PMIX_GROUP_ID
 *    grpI) ranks 1 and 2 join with PMIX_GROUP_ACCEPT (PMIx_Group_join) and
 *    rank 3 declines (PMIx_Group_join_nb). The leader hears two
 *    PMIX_GROUP_INVITE_ACCEPTED and one _DECLINED; its invite and both joins
 *    return membership {0,1,2} and the same context id; ranks 0-2 hear
 *    PMIX_GROUP_CONSTRUCT_COMPLETE (rank 0 once more for grpJ). Then rank 0 invites rank 3 into "grpJ"
 *    with PMIX_TIMEOUT 1 and rank 3 does not answer: after ~1 s the invite
 *    returns membership {0} and the leader hears PMIX_GROUP_INVITE_FAILED.
 *    Joining a group nobody invited us to is PMIX_ERR_NOT_FOUND.
 * 7. Ranks 1 and 3 construct "grpF" = {1,3} with NOTIFY_TERMINATION; rank 3
 *    then finalizes: rank 1 gets PMIX_GROUP_MEMBER_FAILED from rank 3.
 */
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <pmix.h>
#include "testutil.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int left_events, failed_events;
static pmix_rank_t left_from = PMIX_RANK_UNDEF, failed_from = PMIX_RANK_UNDEF;
static char left_group[PMIX_MAX_NSLEN + 1];
static int invited_events, accepted_events, declined_events, invite_failed_events, complete_events;
static pmix_rank_t invited_by = PMIX_RANK_UNDEF;
static char invited_to[PMIX_MAX_NSLEN + 1];

static void on_group_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                           pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                           pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    size_t i;
    (void)id; (void)results; (void)nresults;
    pthread_mutex_lock(&lock);
    if (status == PMIX_GROUP_LEFT) {
        left_events++;
        left_from = source ? source->rank : PMIX_RANK_UNDEF;
        for (i = 0; i < ninfo; i++)
            if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_ID) && info[i].value.type == PMIX_STRING)
                snprintf(left_group, sizeof left_group, "%s", info[i].value.data.string);
    } else if (status == PMIX_GROUP_MEMBER_FAILED) {
        failed_events++;
        failed_from = source ? source->rank : PMIX_RANK_UNDEF;
    } else if (status == PMIX_GROUP_INVITED) {
        invited_events++;
        invited_by = source ? source->rank : PMIX_RANK_UNDEF;
        for (i = 0; i < ninfo; i++)
            if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_ID) && info[i].value.type == PMIX_STRING)
                snprintf(invited_to, sizeof invited_to, "%s", info[i].value.data.string);
    } else if (status == PMIX_GROUP_INVITE_ACCEPTED) {
        accepted_events++;
    } else if (status == PMIX_GROUP_INVITE_DECLINED) {
        declined_events++;
    } else if (status == PMIX_GROUP_INVITE_FAILED) {
        invite_failed_events++;
    } else if (status == PMIX_GROUP_CONSTRUCT_COMPLETE) {
        complete_events++;
    }
    pthread_mutex_unlock(&lock);
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static int count_of(int *what)
{
    int n;
    pthread_mutex_lock(&lock);
    n = *what;
    pthread_mutex_unlock(&lock);
    return n;
}

/* context id (or -1) and membership size (or -1) in group results */
static void parse_results(const pmix_info_t *r, size_t n, long *cid, long *nmembers, pmix_proc_t *first)
{
    size_t i;
    *cid = -1;
    *nmembers = -1;
    for (i = 0; i < n; i++) {
        if (PMIX_CHECK_KEY(&r[i], PMIX_GROUP_CONTEXT_ID) && r[i].value.type == PMIX_SIZE) {
            *cid = (long)r[i].value.data.size;
        } else if (PMIX_CHECK_KEY(&r[i], PMIX_GROUP_MEMBERSHIP) && r[i].value.type == PMIX_DATA_ARRAY &&
                   r[i].value.data.darray && r[i].value.data.darray->type == PMIX_PROC) {
            *nmembers = (long)r[i].value.data.darray->size;
            if (first && *nmembers > 0) *first = ((pmix_proc_t *)r[i].value.data.darray->array)[0];
        }
    }
}

struct nbgroup {
    pthread_mutex_t m;
    int fired;
    pmix_status_t st;
    long cid, nmembers;
    pmix_proc_t first;
};

static void construct_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                         pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    struct nbgroup *g = cbdata;
    pthread_mutex_lock(&g->m);
    g->fired++;
    g->st = status;
    parse_results(info, ninfo, &g->cid, &g->nmembers, &g->first);
    pthread_mutex_unlock(&g->m);
    if (release_fn) release_fn(release_cbdata);
}

static void op_cb(pmix_status_t status, void *cbdata)
{
    struct nbgroup *g = cbdata;
    pthread_mutex_lock(&g->m);
    g->fired++;
    g->st = status;
    pthread_mutex_unlock(&g->m);
}

static int fired(struct nbgroup *g)
{
    int n;
    pthread_mutex_lock(&g->m);
    n = g->fired;
    pthread_mutex_unlock(&g->m);
    return n;
}

static pmix_status_t construct(const char *name, const pmix_rank_t *ranks, size_t n, bool ctx, bool notify,
                               int timeout, long *cid, long *nmembers)
{
    pmix_proc_t procs[4];
    pmix_info_t dirs[3], *res = NULL;
    size_t nd = 0, nres = 0, i;
    bool t = true;
    pmix_status_t rc;
    for (i = 0; i < n; i++) PMIX_PROC_LOAD(&procs[i], me.nspace, ranks[i]);
    if (ctx) PMIX_INFO_LOAD(&dirs[nd++], PMIX_GROUP_ASSIGN_CONTEXT_ID, &t, PMIX_BOOL);
    if (notify) PMIX_INFO_LOAD(&dirs[nd++], PMIX_GROUP_NOTIFY_TERMINATION, &t, PMIX_BOOL);
    if (timeout > 0) PMIX_INFO_LOAD(&dirs[nd++], PMIX_TIMEOUT, &timeout, PMIX_INT);
    rc = PMIx_Group_construct(name, procs, n, nd ? dirs : NULL, nd, &res, &nres);
    parse_results(res, nres, cid, nmembers, NULL);
    if (res) PMIX_INFO_FREE(res, nres);
    for (i = 0; i < nd; i++) PMIX_INFO_DESTRUCT(&dirs[i]);
    return rc;
}

static long query_size_t(const char *key, const char *group)
{
    pmix_query_t q;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    long out = -1;
    pmix_status_t rc;
    PMIX_QUERY_CONSTRUCT(&q);
    PMIX_ARGV_APPEND(rc, q.keys, key);
    if (group) {
        PMIX_QUERY_QUALIFIERS_CREATE(&q, 1);
        PMIX_INFO_LOAD(&q.qualifiers[0], PMIX_GROUP_ID, group, PMIX_STRING);
    }
    rc = PMIx_Query_info(&q, 1, &res, &nres);
    if (rc == PMIX_SUCCESS && nres >= 1) {
        if (res[0].value.type == PMIX_SIZE) out = (long)res[0].value.data.size;
        else if (res[0].value.type == PMIX_DATA_ARRAY && res[0].value.data.darray) out = (long)res[0].value.data.darray->size;
    }
    check(rc == PMIX_SUCCESS, "query", "PMIx_Query_info(%s): %s", key, PMIx_Error_string(rc));
    PMIX_QUERY_DESTRUCT(&q);
    if (res) PMIX_INFO_FREE(res, nres);
    return out;
}

int main(void)
{
    pmix_status_t rc, codes[7] = {PMIX_GROUP_LEFT, PMIX_GROUP_MEMBER_FAILED, PMIX_GROUP_INVITED, PMIX_GROUP_INVITE_ACCEPTED,
                                  PMIX_GROUP_INVITE_DECLINED, PMIX_GROUP_INVITE_FAILED, PMIX_GROUP_CONSTRUCT_COMPLETE};
    long cid = -1, nm = -1, my_cid = -1;
    char buf[128];
    static const pmix_rank_t a[] = {0, 1, 2}, b[] = {3}, t[] = {0, 3}, f[] = {1, 3}, not_me[] = {1, 2};

    alarm(40);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!init_job_of("client_groups", 4)) return 1;
    rc = register_handler(codes, 7, on_group_event);
    check(rc == PMIX_SUCCESS, "register handler", "%s", PMIx_Error_string(rc));
    fence("fence 0");

    /* 1. construct */
    if (me.rank <= 2) {
        rc = construct("grpA", a, 3, true, true, 0, &cid, &nm);
        check(rc == PMIX_SUCCESS, "construct grpA", "%s", PMIx_Error_string(rc));
        check(cid >= 0, "construct grpA", "no PMIX_GROUP_CONTEXT_ID (size_t) in the results");
        check(nm == 3, "construct grpA", "membership of %ld, expected 3", nm);
        my_cid = cid;
        snprintf(buf, sizeof buf, "%ld", cid);
        put_str("grp.cid", buf);
    } else {
        pmix_proc_t p;
        struct nbgroup g = {PTHREAD_MUTEX_INITIALIZER, 0, PMIX_SUCCESS, -1, -1, {"", 0}};
        long end = now_ms() + 3000;
        PMIX_PROC_LOAD(&p, me.nspace, 3);
        rc = PMIx_Group_construct_nb("grpB", &p, 1, NULL, 0, construct_cb, &g);
        check(rc == PMIX_SUCCESS, "construct_nb grpB", "%s", PMIx_Error_string(rc));
        while (fired(&g) == 0 && now_ms() < end) msleep(10);
        msleep(100);
        check(fired(&g) == 1, "construct_nb grpB", "callback fired %d times, expected once", fired(&g));
        check(g.st == PMIX_SUCCESS, "construct_nb grpB", "%s", PMIx_Error_string(g.st));
        check(g.nmembers == 1 && g.first.rank == 3, "construct_nb grpB", "membership %ld (first rank %u)", g.nmembers, (unsigned)g.first.rank);
        check(g.cid == -1, "construct_nb grpB", "a context id (%ld) nobody asked for", g.cid);
        rc = construct("grpB", b, 1, false, false, 0, &cid, &nm);
        check(rc == PMIX_ERR_EXISTS, "construct grpB again", "%s, expected PMIX_ERR_EXISTS", PMIx_Error_string(rc));
    }
    if (me.rank == 0) {
        pmix_proc_t p;
        PMIX_PROC_LOAD(&p, me.nspace, 0);
        rc = PMIx_Group_construct(NULL, &p, 1, NULL, 0, NULL, NULL);
        check(rc == PMIX_ERR_BAD_PARAM, "construct without name", "%s, expected PMIX_ERR_BAD_PARAM", PMIx_Error_string(rc));
        rc = construct("grpX", not_me, 2, false, false, 0, &cid, &nm);
        check(rc == PMIX_ERR_BAD_PARAM, "construct without the caller", "%s, expected PMIX_ERR_BAD_PARAM", PMIx_Error_string(rc));
    }
    fence("fence 1");
    if (me.rank == 0) {
        char c1[64], c2[64];
        snprintf(buf, sizeof buf, "%ld", my_cid);
        if (get_str(1, "grp.cid", c1, sizeof c1) && get_str(2, "grp.cid", c2, sizeof c2))
            check(strcmp(c1, buf) == 0 && strcmp(c2, buf) == 0, "context id", "ranks 0/1/2 got %s/%s/%s", buf, c1, c2);
        /* 2. queries */
        nm = query_size_t(PMIX_QUERY_NUM_GROUPS, NULL);
        check(nm == 2, "query groups", "PMIX_QUERY_NUM_GROUPS %ld, expected 2", nm);
        nm = query_size_t(PMIX_QUERY_GROUP_MEMBERSHIP, "grpA");
        check(nm == 3, "query groups", "membership of grpA %ld, expected 3", nm);
    }
    fence("fence 2");

    /* 3. leave */
    if (me.rank == 2) {
        rc = PMIx_Group_leave("grpA", NULL, 0);
        check(rc == PMIX_SUCCESS, "leave grpA", "%s", PMIx_Error_string(rc));
        rc = PMIx_Group_leave("grpA", NULL, 0);
        check(rc == PMIX_ERR_NOT_FOUND, "leave grpA twice", "%s, expected PMIX_ERR_NOT_FOUND", PMIx_Error_string(rc));
    }
    if (me.rank <= 1) {
        long end = now_ms() + 2000;
        while (count_of(&left_events) == 0 && now_ms() < end) msleep(10);
        pthread_mutex_lock(&lock);
        check(left_events == 1 && left_from == 2 && strcmp(left_group, "grpA") == 0, "PMIX_GROUP_LEFT",
              "%d events, from rank %u, group \"%s\"", left_events, (unsigned)left_from, left_group);
        pthread_mutex_unlock(&lock);
    }
    fence("fence 3");
    if (me.rank == 3) check(count_of(&left_events) == 0, "PMIX_GROUP_LEFT", "rank 3 (not a member) got it");

    /* 4. destruct */
    if (me.rank <= 1) {
        rc = PMIx_Group_destruct("grpA", NULL, 0);
        check(rc == PMIX_SUCCESS, "destruct grpA", "%s", PMIx_Error_string(rc));
        rc = PMIx_Group_destruct("grpA", NULL, 0);
        check(rc == PMIX_ERR_NOT_FOUND, "destruct grpA twice", "%s, expected PMIX_ERR_NOT_FOUND", PMIx_Error_string(rc));
    } else if (me.rank == 3) {
        struct nbgroup g = {PTHREAD_MUTEX_INITIALIZER, 0, PMIX_SUCCESS, -1, -1, {"", 0}};
        long end = now_ms() + 3000;
        rc = PMIx_Group_destruct_nb("grpB", NULL, 0, op_cb, &g);
        check(rc == PMIX_SUCCESS, "destruct_nb grpB", "%s", PMIx_Error_string(rc));
        while (fired(&g) == 0 && now_ms() < end) msleep(10);
        check(fired(&g) == 1 && g.st == PMIX_SUCCESS, "destruct_nb grpB", "fired %d, %s", fired(&g), PMIx_Error_string(g.st));
    }
    fence("fence 4");

    /* 4b. a member leaves while a destruct waits for it */
    if (me.rank <= 2) {
        rc = construct("grpL", a, 3, false, false, 0, &cid, &nm);
        check(rc == PMIX_SUCCESS, "construct grpL", "%s", PMIx_Error_string(rc));
    }
    {
        struct nbgroup g = {PTHREAD_MUTEX_INITIALIZER, 0, PMIX_SUCCESS, -1, -1, {"", 0}};
        if (me.rank == 0) {
            rc = PMIx_Group_destruct_nb("grpL", NULL, 0, op_cb, &g);
            check(rc == PMIX_SUCCESS, "destruct_nb grpL", "%s", PMIx_Error_string(rc));
        }
        fence("fence 4b");
        if (me.rank == 2) {
            rc = PMIx_Group_leave("grpL", NULL, 0);
            check(rc == PMIX_SUCCESS, "leave grpL during destruct", "%s", PMIx_Error_string(rc));
        }
        fence("fence 4c");
        if (me.rank == 1) {
            rc = PMIx_Group_destruct("grpL", NULL, 0);
            check(rc == PMIX_SUCCESS, "destruct grpL after a leave", "%s", PMIx_Error_string(rc));
        }
        if (me.rank == 0) {
            long end = now_ms() + 3000;
            while (fired(&g) == 0 && now_ms() < end) msleep(10);
            check(fired(&g) == 1 && g.st == PMIX_SUCCESS, "destruct_nb grpL", "fired %d, %s", fired(&g), PMIx_Error_string(g.st));
        }
    }
    fence("fence 4d");

    /* 5. timeout */
    if (me.rank == 0) {
        long t0 = now_ms(), el;
        rc = construct("grpT", t, 2, false, false, 1, &cid, &nm);
        el = now_ms() - t0;
        check(rc == PMIX_ERR_TIMEOUT, "construct timeout", "%s, expected PMIX_ERR_TIMEOUT", PMIx_Error_string(rc));
        check(el >= 900 && el <= 4000, "construct timeout", "answered after %ld ms", el);
    }
    fence("fence 5");

    /* 6. invitations */
    if (me.rank == 0) {
        pmix_proc_t inv[3];
        pmix_info_t d[2], *res = NULL;
        size_t nres = 0;
        bool yes = true;
        int ten = 10, one = 1;
        long t0, el;
        PMIX_PROC_LOAD(&inv[0], me.nspace, 1);
        PMIX_PROC_LOAD(&inv[1], me.nspace, 2);
        PMIX_PROC_LOAD(&inv[2], me.nspace, 3);
        PMIX_INFO_LOAD(&d[0], PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
        PMIX_INFO_LOAD(&d[1], PMIX_TIMEOUT, &ten, PMIX_INT);
        rc = PMIx_Group_invite("grpI", inv, 3, d, 2, &res, &nres);
        check(rc == PMIX_SUCCESS, "invite grpI", "%s", PMIx_Error_string(rc));
        parse_results(res, nres, &cid, &nm, NULL);
        if (res) PMIX_INFO_FREE(res, nres);
        check(nm == 3 && cid >= 0, "invite grpI", "membership %ld, context id %ld (want 3, >= 0)", nm, cid);
        snprintf(buf, sizeof buf, "%ld", cid);
        put_str("grpI.cid", buf);
        check(count_of(&accepted_events) == 2 && count_of(&declined_events) == 1, "invite grpI",
              "%d accepted, %d declined events (want 2, 1)", count_of(&accepted_events), count_of(&declined_events));
        /* nobody answers in time */
        PMIX_INFO_LOAD(&d[1], PMIX_TIMEOUT, &one, PMIX_INT);
        t0 = now_ms();
        rc = PMIx_Group_invite("grpJ", &inv[2], 1, &d[1], 1, &res, &nres);
        el = now_ms() - t0;
        parse_results(res, nres, &cid, &nm, NULL);
        if (res) PMIX_INFO_FREE(res, nres);
        check(rc == PMIX_SUCCESS && nm == 1, "invite timeout", "%s, membership %ld (want SUCCESS, 1)", PMIx_Error_string(rc), nm);
        check(el >= 900 && el <= 4000, "invite timeout", "answered after %ld ms", el);
        check(count_of(&invite_failed_events) == 1, "invite timeout", "%d PMIX_GROUP_INVITE_FAILED events", count_of(&invite_failed_events));
        rc = PMIx_Group_destruct("grpJ", NULL, 0);
        check(rc == PMIX_SUCCESS, "destruct grpJ", "%s", PMIx_Error_string(rc));
        PMIX_INFO_DESTRUCT(&d[0]);
        PMIX_INFO_DESTRUCT(&d[1]);
    } else {
        long end = now_ms() + 5000;
        pmix_proc_t leader;
        pmix_info_t *res = NULL;
        size_t nres = 0;
        while (count_of(&invited_events) == 0 && now_ms() < end) msleep(10);
        pthread_mutex_lock(&lock);
        check(invited_events == 1 && invited_by == 0 && strcmp(invited_to, "grpI") == 0, "invited",
              "%d events, from rank %u, group \"%s\"", invited_events, (unsigned)invited_by, invited_to);
        pthread_mutex_unlock(&lock);
        PMIX_PROC_LOAD(&leader, me.nspace, 0);
        if (me.rank <= 2) {
            rc = PMIx_Group_join("grpI", &leader, PMIX_GROUP_ACCEPT, NULL, 0, &res, &nres);
            check(rc == PMIX_SUCCESS, "join grpI", "%s", PMIx_Error_string(rc));
            parse_results(res, nres, &cid, &nm, NULL);
            if (res) PMIX_INFO_FREE(res, nres);
            check(nm == 3 && cid >= 0, "join grpI", "membership %ld, context id %ld", nm, cid);
            my_cid = cid;
        } else {
            struct nbgroup g = {PTHREAD_MUTEX_INITIALIZER, 0, PMIX_SUCCESS, -1, -1, {"", 0}};
            long e2 = now_ms() + 3000;
            rc = PMIx_Group_join_nb("grpI", &leader, PMIX_GROUP_DECLINE, NULL, 0, construct_cb, &g);
            check(rc == PMIX_SUCCESS, "decline grpI", "%s", PMIx_Error_string(rc));
            while (fired(&g) == 0 && now_ms() < e2) msleep(10);
            check(fired(&g) == 1 && g.st == PMIX_SUCCESS, "decline grpI", "fired %d, %s", fired(&g), PMIx_Error_string(g.st));
            rc = PMIx_Group_join("grpZ", &leader, PMIX_GROUP_ACCEPT, NULL, 0, NULL, NULL);
            check(rc == PMIX_ERR_NOT_FOUND, "join uninvited", "%s, expected PMIX_ERR_NOT_FOUND", PMIx_Error_string(rc));
        }
    }
    fence("fence 6");
    if (me.rank == 1 || me.rank == 2) {
        char c0[64];
        snprintf(buf, sizeof buf, "%ld", my_cid);
        if (get_str(0, "grpI.cid", c0, sizeof c0)) check(strcmp(c0, buf) == 0, "join grpI", "context id %s, the leader's %s", buf, c0);
    }
    if (me.rank <= 2) {
        /* grpI; the leader also had grpJ (itself alone) */
        int want = me.rank == 0 ? 2 : 1;
        long end = now_ms() + 2000;
        while (count_of(&complete_events) < want && now_ms() < end) msleep(10);
        check(count_of(&complete_events) == want, "PMIX_GROUP_CONSTRUCT_COMPLETE", "%d events, expected %d", count_of(&complete_events), want);
        rc = PMIx_Group_destruct("grpI", NULL, 0);
        check(rc == PMIX_SUCCESS, "destruct grpI", "%s", PMIx_Error_string(rc));
    } else {
        check(count_of(&complete_events) == 0, "PMIX_GROUP_CONSTRUCT_COMPLETE", "rank 3 (declined) got it");
    }
    fence("fence 7");

    /* 7. a member ends */
    if (me.rank == 1 || me.rank == 3) {
        rc = construct("grpF", f, 2, false, true, 0, &cid, &nm);
        check(rc == PMIX_SUCCESS, "construct grpF", "%s", PMIx_Error_string(rc));
    }
    if (me.rank == 1) {
        long end = now_ms() + 5000;
        while (count_of(&failed_events) == 0 && now_ms() < end) msleep(10);
        pthread_mutex_lock(&lock);
        check(failed_events == 1 && failed_from == 3, "PMIX_GROUP_MEMBER_FAILED", "%d events, from rank %u",
              failed_events, (unsigned)failed_from);
        pthread_mutex_unlock(&lock);
    }
    printf("client_groups rank %u: %d passed, %d failed\n", (unsigned)me.rank, npass, nfail);
    if (me.rank == 3) {
        PMIx_Finalize(NULL, 0);
        return nfail ? 1 : 0;
    }
    if (me.rank != 1) msleep(100);
    PMIx_Finalize(NULL, 0);
    return nfail ? 1 : 0;
}
