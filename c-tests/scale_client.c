/*
 * scale_client: the client of the scale benchmark and test (issue 18), run
 * by scale_host. It inits, reads the job size, resolves the host of the
 * first and the last rank and its local peers, fences the whole namespace
 * and finalizes, printing one line:
 *   rank=<r> size=<n> first_host=<h> last_host=<h> local_peers=<k>
 *        init_s=<s> rss_kb=<kB> pss_kb=<kB> resolve_s=<s> fence_s=<s>
 *        end_rss_kb=<kB>
 * resolve_s is the time of the two host-name Gets and PMIx_Resolve_peers
 * (the maps are read back there).
 * rss/pss are read from /proc/self/smaps_rollup right after PMIx_Init;
 * end_rss_kb after the Gets and the fence. Exit 0 when every call succeeded.
 *
 * With SCALE_BLOB_BYTES=<n> in the environment, each client then puts a
 * byte object of n bytes (a pattern of its rank), commits, fences with
 * PMIX_COLLECT_DATA, reads every local peer's object back, checks its size
 * and every byte, and prints
 *   blob rank=<r> bytes=<n> peers_checked=<k> fence_s=<s>
 * (a collecting fence whose answer is larger than a default frame).
 */
#define _DEFAULT_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix.h>

#include "scale_measure.h"

#define TESTUTIL_CHECKS_ONLY /* its own `me`, passed around */
#include "testutil.h"

static unsigned char blob_byte(pmix_rank_t r, size_t i)
{
    return (unsigned char) (r * 131u + i * 7u + (i >> 12));
}

/* Put n bytes, fence collecting data, check every local peer's n bytes. */
static int big_fence(const pmix_proc_t *me, const pmix_proc_t *peers, size_t npeers, size_t n)
{
    pmix_value_t v, *got = NULL;
    pmix_info_t collect;
    pmix_proc_t wild;
    pmix_status_t rc;
    bool yes = true;
    size_t i, k;
    double t0, t_fence;
    char *bytes = malloc(n);

    if (!bytes) return 1;
    for (i = 0; i < n; i++) bytes[i] = (char) blob_byte(me->rank, i);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = bytes;
    v.data.bo.size = n;
    rc = PMIx_Put(PMIX_GLOBAL, "scale.blob", &v);
    free(bytes);
    if (rc != PMIX_SUCCESS) die_status("PMIx_Put(blob)", rc);
    rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) die_status("PMIx_Commit", rc);
    PMIX_LOAD_PROCID(&wild, me->nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    t0 = now();
    rc = PMIx_Fence(&wild, 1, &collect, 1);
    t_fence = now() - t0;
    PMIX_INFO_DESTRUCT(&collect);
    if (rc != PMIX_SUCCESS) die_status("PMIx_Fence(collect, big)", rc);
    for (k = 0; k < npeers; k++) {
        rc = PMIx_Get(&peers[k], "scale.blob", NULL, 0, &got);
        if (rc != PMIX_SUCCESS) die_status("PMIx_Get(a peer's blob)", rc);
        if (got->type != PMIX_BYTE_OBJECT || got->data.bo.size != n) {
            die("rank %u's blob: type %d, %zu bytes", peers[k].rank, (int) got->type,
                got->type == PMIX_BYTE_OBJECT ? got->data.bo.size : (size_t) 0);
        }
        for (i = 0; i < n; i++) {
            if ((unsigned char) got->data.bo.bytes[i] != blob_byte(peers[k].rank, i)) {
                die("rank %u's blob differs at byte %zu", peers[k].rank, i);
            }
        }
        PMIX_VALUE_RELEASE(got);
    }
    printf("blob rank=%u bytes=%zu peers_checked=%zu fence_s=%.6f\n", me->rank, n, npeers, t_fence);
    fflush(stdout);
    return 0;
}

/* the PMIX_HOSTNAME of rank r of our namespace, into out */
static pmix_status_t host_of(const pmix_proc_t *me, pmix_rank_t r, char *out, size_t len)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    pmix_status_t rc;
    PMIX_LOAD_PROCID(&p, me->nspace, r);
    rc = PMIx_Get(&p, PMIX_HOSTNAME, NULL, 0, &v);
    if (rc != PMIX_SUCCESS) return rc;
    if (v->type != PMIX_STRING || !v->data.string) {
        PMIX_VALUE_RELEASE(v);
        return PMIX_ERR_TYPE_MISMATCH;
    }
    snprintf(out, len, "%s", v->data.string);
    PMIX_VALUE_RELEASE(v);
    return PMIX_SUCCESS;
}

int main(void)
{
    pmix_proc_t me, wild;
    pmix_value_t *v = NULL;
    pmix_proc_t *peers = NULL;
    size_t npeers = 0;
    pmix_status_t rc;
    char first[256], last[256];
    long rss, pss, end_rss, end_pss;
    double t0, t_init, t_resolve, t_fence;
    uint32_t size;

    tu_set_prefix("scale_client: "); /* a failed call: "scale_client: <what>: <status>" on stderr, exit 1 */
    t0 = now();
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) die_status("PMIx_Init", rc);
    t_init = now() - t0;
    memory_kb(&rss, &pss);

    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
    if (rc != PMIX_SUCCESS) die_status("PMIx_Get(JOB_SIZE)", rc);
    size = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    t0 = now();
    rc = host_of(&me, 0, first, sizeof(first));
    if (rc != PMIX_SUCCESS) die_status("PMIx_Get(HOSTNAME of rank 0)", rc);
    rc = host_of(&me, size - 1, last, sizeof(last));
    if (rc != PMIX_SUCCESS) die_status("PMIx_Get(HOSTNAME of the last rank)", rc);
    rc = PMIx_Resolve_peers(first, me.nspace, &peers, &npeers);
    if (rc != PMIX_SUCCESS) die_status("PMIx_Resolve_peers", rc);
    t_resolve = now() - t0;

    t0 = now();
    rc = PMIx_Fence(&wild, 1, NULL, 0);
    if (rc != PMIX_SUCCESS) die_status("PMIx_Fence", rc);
    t_fence = now() - t0;
    memory_kb(&end_rss, &end_pss);

    printf("rank=%u size=%u first_host=%s last_host=%s local_peers=%zu init_s=%.6f rss_kb=%ld "
           "pss_kb=%ld resolve_s=%.6f fence_s=%.6f end_rss_kb=%ld\n",
           me.rank, size, first, last, npeers, t_init, rss, pss, t_resolve, t_fence, end_rss);
    fflush(stdout);
    if (getenv("SCALE_BLOB_BYTES")) {
        size_t n = (size_t) strtoull(getenv("SCALE_BLOB_BYTES"), NULL, 10);
        if (n == 0 || big_fence(&me, peers, npeers, n) != 0) return 1;
    }
    PMIX_PROC_FREE(peers, npeers);
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) die_status("PMIx_Finalize", rc);
    return 0;
}
