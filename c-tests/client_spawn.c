/*
 * client_spawn: PMIx_Spawn, PMIX_PARENT_ID, PMIx_Connect / PMIx_Disconnect
 * between a parent job and the job it spawns.
 *
 *   pmixrun -n 2 ./client_spawn
 *
 * Parents (no argument):
 *   Put GLOBAL "parent.data" = (uint32) rank and "parent.jobsize" = (uint32)
 *   PMIX_JOB_SIZE, Commit, Fence (PMIX_COLLECT_DATA). Rank 0 spawns 2 copies
 *   of this binary (app.cmd = realpath(argv[0]), app.argv = {cmd, "child"},
 *   maxprocs 2) and passes the child namespace to the other parents with
 *   Put "spawn.child.ns" / Commit / Fence (collect) / Get.
 * Children (argv[1] == "child"):
 *   Get PMIX_PARENT_ID for themselves: a pmix_proc_t naming another
 *   namespace, rank 0 (the process that called PMIx_Spawn). Put GLOBAL
 *   "child.data" = (uint32) 100 + rank and "child.parent" = that pmix_proc_t,
 *   Commit.
 * Everybody: PMIx_Connect over {parent ns, WILDCARD}, {child ns, WILDCARD}
 *   (same order everywhere). Then children Get PMIX_JOB_SIZE of the parent
 *   namespace, "parent.jobsize" from parent rank 0 (must equal it) and every
 *   parent's "parent.data"; parents Get PMIX_JOB_SIZE of the child namespace
 *   (2) and every child's "child.data" and "child.parent" (must be
 *   {parent ns, 0}: the PMIX_PARENT_ID check's other half).
 *   Every process then Puts its pass/fail counts, Commits, and all processes
 *   of both namespaces Fence (collect) over the same two-namespace proc list,
 *   so parent rank 0 can add them up; then PMIx_Disconnect over the same
 *   procs, PMIx_Finalize.
 *
 * Output: parents print failures ("rank R: <check>: FAIL ...") on stdout,
 * children ("child rank R: ...") on stderr; parent rank 0 ends with
 * "client_spawn: N passed, M failed" (checks of all parents and children
 * that reached the result exchange). Every process exits 0 only if all of
 * its own checks passed, so pmixrun's exit code is 0 only if everything
 * passed. alarm(30) bounds each process.
 */
#define _DEFAULT_SOURCE
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "testutil.h"

#define NCHILD 2

static bool is_child;

static void put(const char *key, const void *data, pmix_data_type_t type)
{
    pmix_value_t val;
    pmix_status_t rc;
    PMIX_VALUE_CONSTRUCT(&val);
    rc = PMIx_Value_load(&val, data, type);
    if (rc == PMIX_SUCCESS) rc = PMIx_Put(PMIX_GLOBAL, key, &val);
    PMIX_VALUE_DESTRUCT(&val);
    check(rc == PMIX_SUCCESS, "put", "Put(%s): %s", key, PMIx_Error_string(rc));
}

static void commit(const char *what)
{
    pmix_status_t rc = PMIx_Commit();
    check(rc == PMIX_SUCCESS, what, "PMIx_Commit: %s", PMIx_Error_string(rc));
}

static void fence_collect(const char *what, const pmix_proc_t *procs, size_t nprocs)
{
    pmix_info_t info;
    bool t = true;
    pmix_status_t rc;
    PMIX_INFO_CONSTRUCT(&info);
    PMIx_Info_load(&info, PMIX_COLLECT_DATA, &t, PMIX_BOOL);
    rc = PMIx_Fence(procs, nprocs, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    check(rc == PMIX_SUCCESS, what, "PMIx_Fence: %s", PMIx_Error_string(rc));
}

/* Get and require SUCCESS and `type`; NULL (and a failed check) otherwise */
static pmix_value_t *get(const char *what, const char *ns, pmix_rank_t r, const char *key,
                         pmix_data_type_t type)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    pmix_status_t rc;
    PMIX_LOAD_PROCID(&p, ns, r);
    rc = PMIx_Get(&p, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v == NULL) {
        check(false, what, "Get(%s:%d, %s): %s", ns, (int)r, key,
              rc != PMIX_SUCCESS ? PMIx_Error_string(rc) : "SUCCESS but no value");
        return NULL;
    }
    if (v->type != type) {
        check(false, what, "Get(%s:%d, %s): type %s, expected %s", ns, (int)r, key,
              PMIx_Data_type_string(v->type), PMIx_Data_type_string(type));
        PMIX_VALUE_RELEASE(v);
        return NULL;
    }
    return v;
}

static bool get_u32(const char *what, const char *ns, pmix_rank_t r, const char *key, uint32_t *out)
{
    pmix_value_t *v = get(what, ns, r, key, PMIX_UINT32);
    if (v == NULL) return false;
    *out = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    return true;
}

static void expect_u32(const char *what, const char *ns, pmix_rank_t r, const char *key, uint32_t want)
{
    uint32_t got;
    if (get_u32(what, ns, r, key, &got))
        check(got == want, what, "%s of %s:%u = %u, expected %u", key, ns, (unsigned)r,
              (unsigned)got, (unsigned)want);
}

/* the two-namespace proc list, parent namespace first everywhere */
static void load_pair(pmix_proc_t procs[2], const char *parent_ns, const char *child_ns)
{
    PMIX_LOAD_PROCID(&procs[0], parent_ns, PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&procs[1], child_ns, PMIX_RANK_WILDCARD);
}

static void connect_pair(const pmix_proc_t procs[2])
{
    pmix_status_t rc = PMIx_Connect(procs, 2, NULL, 0);
    check(rc == PMIX_SUCCESS, "connect", "PMIx_Connect: %s", PMIx_Error_string(rc));
}

static void disconnect_pair(const pmix_proc_t procs[2])
{
    pmix_status_t rc = PMIx_Disconnect(procs, 2, NULL, 0);
    check(rc == PMIX_SUCCESS, "disconnect", "PMIx_Disconnect: %s", PMIx_Error_string(rc));
}

static void put_counts(void)
{
    int32_t p = npass, f = nfail;
    put("spawn.npass", &p, PMIX_INT32);
    put("spawn.nfail", &f, PMIX_INT32);
    commit("commit (counts)");
}

/* add up the counts another process put; a missing count is one failure */
static void add_counts(const char *ns, pmix_rank_t r, int *tp, int *tf)
{
    pmix_value_t *p = get("collect counts", ns, r, "spawn.npass", PMIX_INT32);
    pmix_value_t *f = get("collect counts", ns, r, "spawn.nfail", PMIX_INT32);
    if (p != NULL && f != NULL) {
        *tp += p->data.int32;
        *tf += f->data.int32;
    }
    if (p) PMIX_VALUE_RELEASE(p);
    if (f) PMIX_VALUE_RELEASE(f);
}

static int finalize(void)
{
    pmix_status_t rc = PMIx_Finalize(NULL, 0);
    check(rc == PMIX_SUCCESS, "finalize", "PMIx_Finalize: %s", PMIx_Error_string(rc));
    return nfail == 0 ? 0 : 1;
}

/* ------------------------------------------------------------------ */

static int child_main(void)
{
    pmix_value_t *v;
    pmix_proc_t parent, procs[2];
    uint32_t u, nparents = 0;
    pmix_rank_t r;
    bool have_parent = false;

    PMIX_LOAD_PROCID(&parent, "", PMIX_RANK_UNDEF);
    if ((v = get("PMIX_PARENT_ID", me.nspace, me.rank, PMIX_PARENT_ID, PMIX_PROC)) != NULL) {
        if (v->data.proc == NULL) {
            check(false, "PMIX_PARENT_ID", "NULL proc");
        } else {
            memcpy(&parent, v->data.proc, sizeof(parent));
            have_parent = parent.nspace[0] != '\0' &&
                          strncmp(parent.nspace, me.nspace, PMIX_MAX_NSLEN) != 0;
            check(have_parent, "PMIX_PARENT_ID", "nspace \"%s\" (own nspace \"%s\")", parent.nspace,
                  me.nspace);
            check(parent.rank == 0, "PMIX_PARENT_ID", "rank %u, expected 0 (the spawner)",
                  (unsigned)parent.rank);
        }
        PMIX_VALUE_RELEASE(v);
    }
    expect_u32("own job size", me.nspace, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, NCHILD);
    u = 100 + me.rank;
    put("child.data", &u, PMIX_UINT32);
    put("child.parent", &parent, PMIX_PROC);
    commit("commit (child data)");
    if (!have_parent) {
        /* cannot name the parent job: nothing more to do (the parents then
         * fail their connect at the latest when alarm() fires) */
        return finalize();
    }

    load_pair(procs, parent.nspace, me.nspace);
    connect_pair(procs);

    if (get_u32("parent job size", parent.nspace, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &nparents)) {
        check(nparents >= 1, "parent job size", "PMIX_JOB_SIZE of %s = 0", parent.nspace);
        expect_u32("parent.jobsize", parent.nspace, 0, "parent.jobsize", nparents);
        for (r = 0; r < nparents; r++) expect_u32("parent.data", parent.nspace, r, "parent.data", r);
    }

    put_counts();
    fence_collect("fence (both namespaces)", procs, 2);
    disconnect_pair(procs);
    return finalize();
}

static int parent_main(const char *argv0)
{
    char child_ns[PMIX_MAX_NSLEN + 1];
    pmix_proc_t procs[2];
    uint32_t nparents = 0, u;
    pmix_rank_t r;
    int tot_pass = 0, tot_fail = 0;
    pmix_value_t *v;

    if (!get_u32("own job size", me.nspace, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &nparents) ||
        nparents == 0)
        nparents = 1;
    u = me.rank;
    put("parent.data", &u, PMIX_UINT32);
    put("parent.jobsize", &nparents, PMIX_UINT32);
    commit("commit (parent data)");
    fence_collect("fence (parents)", NULL, 0);

    /* rank 0 spawns; the namespace goes to the other parents via the KVS */
    memset(child_ns, 0, sizeof(child_ns));
    if (me.rank == 0) {
        char path[PATH_MAX];
        char *cargv[3];
        pmix_app_t app;
        pmix_nspace_t ns;
        pmix_status_t rc;

        memset(ns, 0, sizeof(ns));
        if (realpath(argv0, path) == NULL) {
            check(false, "spawn", "realpath(%s) failed", argv0);
        } else {
            cargv[0] = path;
            cargv[1] = "child";
            cargv[2] = NULL;
            PMIX_APP_CONSTRUCT(&app);
            app.cmd = path;
            app.argv = cargv;
            app.maxprocs = NCHILD;
            rc = PMIx_Spawn(NULL, 0, &app, 1, ns);
            /* app points at our own storage: not destructed */
            check(rc == PMIX_SUCCESS, "spawn", "PMIx_Spawn: %s", PMIx_Error_string(rc));
            if (rc == PMIX_SUCCESS) {
                check(ns[0] != '\0' && strncmp(ns, me.nspace, PMIX_MAX_NSLEN) != 0, "spawn",
                      "child namespace \"%s\" (own \"%s\")", ns, me.nspace);
                if (ns[0] != '\0') memcpy(child_ns, ns, PMIX_MAX_NSLEN);
            }
        }
        put("spawn.child.ns", child_ns, PMIX_STRING);
        commit("commit (child nspace)");
    }
    fence_collect("fence (child nspace)", NULL, 0);
    if (me.rank != 0 && (v = get("child nspace from rank 0", me.nspace, 0, "spawn.child.ns", PMIX_STRING))) {
        if (v->data.string) snprintf(child_ns, sizeof(child_ns), "%s", v->data.string);
        PMIX_VALUE_RELEASE(v);
    }
    if (child_ns[0] == '\0') {
        check(false, "spawn", "no child namespace: skipping connect");
        if (me.rank == 0) tu_summary("client_spawn");
        return finalize();
    }

    load_pair(procs, me.nspace, child_ns);
    connect_pair(procs);

    expect_u32("child job size", child_ns, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, NCHILD);
    for (r = 0; r < NCHILD; r++) {
        expect_u32("child.data", child_ns, r, "child.data", 100 + r);
        if ((v = get("child.parent", child_ns, r, "child.parent", PMIX_PROC)) != NULL) {
            check(v->data.proc != NULL && strncmp(v->data.proc->nspace, me.nspace, PMIX_MAX_NSLEN) == 0 &&
                      v->data.proc->rank == 0,
                  "child's PMIX_PARENT_ID", "child %u saw parent %s:%d, expected %s:0", (unsigned)r,
                  v->data.proc ? v->data.proc->nspace : "(null)",
                  v->data.proc ? (int)v->data.proc->rank : -1, me.nspace);
            PMIX_VALUE_RELEASE(v);
        }
    }

    put_counts();
    fence_collect("fence (both namespaces)", procs, 2);
    if (me.rank == 0) {
        /* everybody else's counts; rank 0's own are added at the end */
        for (r = 1; r < nparents; r++) add_counts(me.nspace, r, &tot_pass, &tot_fail);
        for (r = 0; r < NCHILD; r++) add_counts(child_ns, r, &tot_pass, &tot_fail);
    }
    disconnect_pair(procs);
    if (me.rank == 0) {
        finalize();
        tot_pass += npass;
        tot_fail += nfail;
        printf("client_spawn: %d passed, %d failed\n", tot_pass, tot_fail);
        fflush(stdout);
        return tot_fail == 0 ? 0 : 1;
    }
    return finalize();
}

int main(int argc, char **argv)
{
    pmix_status_t rc;

    alarm(30);
    is_child = argc > 1 && strcmp(argv[1], "child") == 0;
    /* a child's failures go to stderr, as "child rank R: ..." */
    tu_out = is_child ? stderr : stdout;
    tu_set_prefix("%srank ?: ", is_child ? "child " : "");
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fail("init", "%s", PMIx_Error_string(rc));
        if (!is_child) tu_summary("client_spawn");
        return 1;
    }
    tu_set_prefix("%srank %u: ", is_child ? "child " : "", (unsigned)me.rank);
    return is_child ? child_main() : parent_main(argv[0]);
}
