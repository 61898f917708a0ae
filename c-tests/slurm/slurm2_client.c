/*
 * slurm2_client: a PMIx client run as the tasks of `srun --mpi=pmix -N 2 -n N`
 * across two Slurm nodes (tools/slurm2-tests.sh). Built against OpenPMIx's
 * headers and linked with -l:libpmix.so.2: it runs on whichever
 * libpmix.so.2 the loader finds.
 *
 *   slurm2_client info N     job data, node map, every rank's host and the
 *                            local peers; Put/Commit/Fence(collect)/Get of
 *                            every rank
 *   slurm2_client dmodex N   Put/Commit, then a Get of a rank on another
 *                            node without any fence before it: the server
 *                            must fetch it (direct modex); then a fence
 *   slurm2_client partial N  only the ranks on rank 0's node Put/Commit; then
 *                            everybody runs a collecting fence (PMIX_TIMEOUT
 *                            10 s) and Gets rank 0's value: the nodes that
 *                            put nothing still take part in the same
 *                            collective as the others
 *   slurm2_client absent N   Put/Commit/Fence(collect), then a Get of a key
 *                            rank R+2 (on the next node) never put, printed
 *                            as a number (PMIx_Error_string's names differ
 *                            between OpenPMIx 4 and 5), and a Get of its
 *                            fenced value
 *
 * Every rank prints "R: version <PMIx_Get_version()>" and then "R: <key>=<value>"
 * lines whose values do not depend on the library (so the driver compares
 * the sorted lines of two runs), "R: FAIL <what>" for a failed call, and
 * "R: done" at the end. Exit 0 when nothing failed. alarm(40) bounds a rank.
 */
#define _DEFAULT_SOURCE
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

static pmix_proc_t me;
static int nfail;

#define FAIL(...) do { printf("%u: FAIL ", (unsigned)me.rank); printf(__VA_ARGS__); printf("\n"); nfail++; } while (0)

/* value_str: a printable form of a value (numbers, strings, bools) */
static void value_str(const pmix_value_t *v, char *out, size_t len)
{
    switch (v->type) {
    case PMIX_STRING: snprintf(out, len, "%s", v->data.string ? v->data.string : "(null)"); break;
    case PMIX_UINT32: snprintf(out, len, "%u", (unsigned)v->data.uint32); break;
    case PMIX_UINT16: snprintf(out, len, "%u", (unsigned)v->data.uint16); break;
    case PMIX_INT: snprintf(out, len, "%d", v->data.integer); break;
    case PMIX_PROC_RANK: snprintf(out, len, "%u", (unsigned)v->data.rank); break;
    case PMIX_BOOL: snprintf(out, len, "%s", v->data.flag ? "true" : "false"); break;
    default: snprintf(out, len, "<type %s>", PMIx_Data_type_string(v->type)); break;
    }
}

/* get_print: Get <key> of <rank> (WILDCARD for job data) and print
 * "R: <label>=<value>"; the value is copied into out when given. */
static bool get_print(pmix_rank_t rank, const char *key, const char *label, pmix_info_t *info, size_t ninfo,
                      char *out, size_t outlen)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    pmix_status_t rc;
    char buf[1024];

    PMIX_LOAD_PROCID(&p, me.nspace, rank);
    rc = PMIx_Get(&p, key, info, ninfo, &v);
    if (rc != PMIX_SUCCESS || v == NULL) {
        printf("%u: %s=<%s>\n", (unsigned)me.rank, label, PMIx_Error_string(rc));
        FAIL("PMIx_Get(%s, %s): %s", rank == PMIX_RANK_WILDCARD ? "*" : "rank", key, PMIx_Error_string(rc));
        return false;
    }
    value_str(v, buf, sizeof buf);
    printf("%u: %s=%s\n", (unsigned)me.rank, label, buf);
    if (out != NULL) snprintf(out, outlen, "%s", buf);
    PMIX_VALUE_RELEASE(v);
    return true;
}

static bool put_commit(const char *key, const char *prefix)
{
    pmix_value_t val;
    char mine[128], host[64];
    pmix_status_t rc;

    gethostname(host, sizeof host);
    host[sizeof host - 1] = '\0';
    snprintf(mine, sizeof mine, "%s-rank%u@%s", prefix, (unsigned)me.rank, host);
    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_STRING;
    val.data.string = mine;
    if ((rc = PMIx_Put(PMIX_GLOBAL, key, &val)) != PMIX_SUCCESS) { FAIL("PMIx_Put: %s", PMIx_Error_string(rc)); return false; }
    if ((rc = PMIx_Commit()) != PMIX_SUCCESS) { FAIL("PMIx_Commit: %s", PMIx_Error_string(rc)); return false; }
    return true;
}

static bool fence(bool collect)
{
    pmix_info_t info;
    pmix_status_t rc;
    bool yes = true;

    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, collect ? &info : NULL, collect ? 1 : 0);
    PMIX_INFO_DESTRUCT(&info);
    printf("%u: fence(collect=%d)=%s\n", (unsigned)me.rank, (int)collect, PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS) { FAIL("PMIx_Fence: %s", PMIx_Error_string(rc)); return false; }
    return true;
}

static int run_info(uint32_t n)
{
    char hosts[64][256], buf[512], *list = NULL;
    pmix_status_t rc;
    uint32_t r;

    if (n > 64) n = 64;
    get_print(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, "job_size", NULL, 0, NULL, 0);
    get_print(PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE, "univ_size", NULL, 0, NULL, 0);
    get_print(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE, "local_size", NULL, 0, NULL, 0);
    get_print(PMIX_RANK_WILDCARD, PMIX_NUM_NODES, "num_nodes", NULL, 0, NULL, 0);
    get_print(PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS, "local_peers", NULL, 0, NULL, 0);
    get_print(me.rank, PMIX_HOSTNAME, "hostname", NULL, 0, NULL, 0);
    get_print(me.rank, PMIX_LOCAL_RANK, "local_rank", NULL, 0, NULL, 0);
    get_print(me.rank, PMIX_NODE_RANK, "node_rank", NULL, 0, NULL, 0);
    get_print(me.rank, PMIX_NODEID, "nodeid", NULL, 0, NULL, 0);
    /* the node map, resolved by the library the rank runs on */
    rc = PMIx_Resolve_nodes(me.nspace, &list);
    printf("%u: nodes=%s\n", (unsigned)me.rank, rc == PMIX_SUCCESS && list ? list : PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS) FAIL("PMIx_Resolve_nodes: %s", PMIx_Error_string(rc));
    if (rc == PMIX_SUCCESS && list != NULL) {
        char *save = NULL, *node;
        for (node = strtok_r(list, ",", &save); node != NULL; node = strtok_r(NULL, ",", &save)) {
            pmix_proc_t *procs = NULL;
            size_t np = 0, i;
            rc = PMIx_Resolve_peers(node, me.nspace, &procs, &np);
            if (rc != PMIX_SUCCESS) { FAIL("PMIx_Resolve_peers(%s): %s", node, PMIx_Error_string(rc)); continue; }
            buf[0] = '\0';
            for (i = 0; i < np; i++)
                snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%u", i ? "," : "", (unsigned)procs[i].rank);
            printf("%u: peers@%s=%s\n", (unsigned)me.rank, node, buf);
            if (procs != NULL) PMIX_PROC_FREE(procs, np);
        }
        free(list);
    }
    /* every rank's host (job data, no fence needed) */
    for (r = 0; r < n; r++) {
        char label[64];
        snprintf(label, sizeof label, "host[%u]", (unsigned)r);
        if (!get_print(r, PMIX_HOSTNAME, label, NULL, 0, hosts[r], sizeof hosts[r])) hosts[r][0] = '\0';
    }
    /* Put/Commit/Fence with data, Get of every rank */
    put_commit("slurm2.fence", "fence");
    fence(true);
    for (r = 0; r < n; r++) {
        char label[64];
        snprintf(label, sizeof label, "fence-get[%u]", (unsigned)r);
        get_print(r, "slurm2.fence", label, NULL, 0, NULL, 0);
    }
    fence(false);
    return 0;
}

static int run_dmodex(uint32_t n)
{
    char myhost[256] = "", host[256], label[64];
    pmix_info_t to;
    int secs = 15;
    uint32_t r, target = n;

    if (!get_print(me.rank, PMIX_HOSTNAME, "hostname", NULL, 0, myhost, sizeof myhost)) return 1;
    put_commit("slurm2.dm", "dmodex");
    /* the first rank (from mine on) on another node */
    for (r = 1; r < n && target == n; r++) {
        uint32_t q = (me.rank + r) % n;
        pmix_proc_t p;
        pmix_value_t *v = NULL;
        PMIX_LOAD_PROCID(&p, me.nspace, q);
        if (PMIx_Get(&p, PMIX_HOSTNAME, NULL, 0, &v) == PMIX_SUCCESS && v != NULL && v->type == PMIX_STRING) {
            snprintf(host, sizeof host, "%s", v->data.string);
            if (strcmp(host, myhost) != 0) target = q;
        }
        if (v != NULL) PMIX_VALUE_RELEASE(v);
    }
    if (target == n) { FAIL("no rank on another node"); return 1; }
    printf("%u: dmodex-target=%u@%s\n", (unsigned)me.rank, (unsigned)target, host);
    PMIX_INFO_LOAD(&to, PMIX_TIMEOUT, &secs, PMIX_INT);
    snprintf(label, sizeof label, "dmodex-get[%u]", (unsigned)target);
    get_print(target, "slurm2.dm", label, &to, 1, NULL, 0);
    PMIX_INFO_DESTRUCT(&to);
    fence(false);
    return 0;
}

static int run_partial(uint32_t n)
{
    char myhost[256] = "", host0[256] = "";
    pmix_info_t info[2];
    pmix_status_t rc;
    bool yes = true;
    int secs = 10;

    (void)n;
    if (!get_print(me.rank, PMIX_HOSTNAME, "hostname", NULL, 0, myhost, sizeof myhost)) return 1;
    if (!get_print(0, PMIX_HOSTNAME, "host[0]", NULL, 0, host0, sizeof host0)) return 1;
    if (strcmp(myhost, host0) == 0) put_commit("slurm2.part", "partial");
    PMIX_INFO_LOAD(&info[0], PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &secs, PMIX_INT);
    rc = PMIx_Fence(NULL, 0, info, 2);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    printf("%u: fence(collect=1)=%s\n", (unsigned)me.rank, PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS) { FAIL("PMIx_Fence: %s", PMIx_Error_string(rc)); return 1; }
    get_print(0, "slurm2.part", "partial-get[0]", NULL, 0, NULL, 0);
    return 0;
}

static int run_absent(uint32_t n)
{
    char myhost[256] = "", host[256] = "", label[64];
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    pmix_info_t to;
    pmix_status_t rc;
    int secs = 10;
    uint32_t target = (me.rank + 2) % n;

    if (!get_print(me.rank, PMIX_HOSTNAME, "hostname", NULL, 0, myhost, sizeof myhost)) return 1;
    if (!get_print(target, PMIX_HOSTNAME, "absent-host", NULL, 0, host, sizeof host)) return 1;
    if (strcmp(host, myhost) == 0) { FAIL("rank %u is on my node", (unsigned)target); return 1; }
    put_commit("slurm2.fence", "absent");
    if (!fence(true)) return 1;
    PMIX_LOAD_PROCID(&p, me.nspace, target);
    PMIX_INFO_LOAD(&to, PMIX_TIMEOUT, &secs, PMIX_INT);
    rc = PMIx_Get(&p, "slurm2.absent", &to, 1, &v);
    PMIX_INFO_DESTRUCT(&to);
    printf("%u: absent-get[%u]=%d\n", (unsigned)me.rank, (unsigned)target, (int)rc);
    if (v != NULL) PMIX_VALUE_RELEASE(v);
    snprintf(label, sizeof label, "absent-fenced[%u]", (unsigned)target);
    get_print(target, "slurm2.fence", label, NULL, 0, NULL, 0);
    fence(false);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "info";
    uint32_t n = argc > 2 ? (uint32_t)atoi(argv[2]) : 0;
    pmix_status_t rc;

    alarm(40);
    setvbuf(stdout, NULL, _IOLBF, 0);
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("?: FAIL PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    printf("%u: version %s\n", (unsigned)me.rank, PMIx_Get_version());
    if (strcmp(mode, "info") == 0) run_info(n);
    else if (strcmp(mode, "dmodex") == 0) run_dmodex(n);
    else if (strcmp(mode, "partial") == 0) run_partial(n);
    else if (strcmp(mode, "absent") == 0) run_absent(n);
    else { fprintf(stderr, "usage: slurm2_client info|dmodex|partial|absent N\n"); return 2; }
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) FAIL("PMIx_Finalize: %s", PMIx_Error_string(rc));
    printf("%u: done\n", (unsigned)me.rank);
    return nfail == 0 ? 0 : 1;
}
