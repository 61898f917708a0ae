/*
 * The IOF API from a tool attached to a running server (pid in argv[1]):
 * pulling the stdin channel and deregistering an unknown handle fail with
 * their error codes; a blocking pull (PMIX_IOF_TAG_OUTPUT, and
 * PMIX_IOF_BUFFERING_SIZE so output is held until each stream ends) returns a
 * positive handle and delivers what the ranks write, tagged
 * ("...<stdout>: hello-<rank>" from NRANKS = argv[2] ranks); the
 * blocking deregister succeeds; a non-blocking pull + deregister fire their
 * callbacks exactly once. Exit 0 when all of it held.
 *
 *   tool_iof <server pid> <nranks> detailed DIR
 * One pull of stdout with PMIX_IOF_TAG_DETAILED_OUTPUT,
 * PMIX_IOF_MERGE_STDERR_STDOUT and PMIX_IOF_OUTPUT_TO_DIRECTORY = DIR, from
 * ranks that write "hello-<rank>-<pid>" on stdout and "err-<rank>" on
 * stderr: the callback gets both lines of every rank on the stdout channel
 * (never stderr), each tagged "[ns,rank][host:pid]<stdout>: " with this
 * host's name and the pid the rank printed; DIR/<ns>/rank.<r>/stdout holds
 * the same bytes.
 *
 *   tool_iof <server pid> <nranks> fileonly FILE
 * One pull of stdout and stderr with PMIX_IOF_RANK_OUTPUT,
 * PMIX_IOF_OUTPUT_TO_FILE = FILE, PMIX_IOF_FILE_PATTERN and
 * PMIX_IOF_FILE_ONLY: the callback never fires; after deregistration FILE
 * holds "[r]<stdout>: hello-r-..." and "[r]<stderr>: err-r" of every rank.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pmix_tool.h>

#define TESTUTIL_CHECKS_ONLY /* a tool */
#include "testutil.h"

static volatile int seen;         /* bit r: "hello-r" arrived, tagged as asked */
static volatile int reg_fired, dereg_fired;
static volatile pmix_status_t reg_status = -1;
static volatile size_t reg_ref;

static void on_output(size_t h, pmix_iof_channel_t ch, pmix_proc_t *src, pmix_byte_object_t *bo,
                      pmix_info_t *info, size_t ninfo)
{
    char text[64];
    (void) h; (void) ch; (void) info; (void) ninfo;
    if (bo == NULL || bo->size == 0) return;
    snprintf(text, sizeof text, "<stdout>: hello-%u", src->rank); /* PMIX_IOF_TAG_OUTPUT */
    if (src->rank < 30 && memmem(bo->bytes, bo->size, text, strlen(text)) != NULL)
        __sync_fetch_and_or(&seen, 1 << src->rank);
}

static void on_reg(pmix_status_t st, size_t ref, void *cbdata)
{
    (void) cbdata;
    reg_status = st;
    reg_ref = ref;
    __sync_fetch_and_add(&reg_fired, 1);
}

static void on_dereg(pmix_status_t st, void *cbdata)
{
    (void) cbdata;
    if (st == PMIX_SUCCESS) __sync_fetch_and_add(&dereg_fired, 1);
    else __sync_fetch_and_add(&dereg_fired, 100);
}

/* ---- the "detailed" and "fileonly" modes ---- */
static char host[256];
static char got[8][4096];            /* what the callback got per rank (stdout channel) */
static volatile int stderr_chunks, any_chunks;

static void on_collect(size_t h, pmix_iof_channel_t ch, pmix_proc_t *src, pmix_byte_object_t *bo,
                       pmix_info_t *info, size_t ninfo)
{
    (void) h; (void) info; (void) ninfo;
    if (bo == NULL || bo->size == 0) return;
    __sync_fetch_and_add(&any_chunks, 1);
    if (ch != PMIX_FWD_STDOUT_CHANNEL) { __sync_fetch_and_add(&stderr_chunks, 1); return; }
    if (src->rank < 8) strncat(got[src->rank], bo->bytes, bo->size < 1000 ? bo->size : 1000);
}

static int read_file(const char *path, char *out, size_t n)
{
    FILE *f = fopen(path, "r");
    size_t k;
    if (!f) return -1;
    k = fread(out, 1, n - 1, f);
    out[k] = '\0';
    fclose(f);
    return 0;
}

static int detailed(const pmix_proc_t *job, int nranks, const char *dir)
{
    pmix_info_t *dirs;
    pmix_status_t rc;
    int r, i;
    PMIX_INFO_CREATE(dirs, 3);
    PMIX_INFO_LOAD(&dirs[0], PMIX_IOF_TAG_DETAILED_OUTPUT, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&dirs[1], PMIX_IOF_MERGE_STDERR_STDOUT, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&dirs[2], PMIX_IOF_OUTPUT_TO_DIRECTORY, dir, PMIX_STRING);
    rc = PMIx_IOF_pull(job, 1, dirs, 3, PMIX_FWD_STDOUT_CHANNEL, on_collect, NULL, NULL);
    PMIX_INFO_FREE(dirs, 3);
    if (rc <= 0) return failure("detailed pull: %s", PMIx_Error_string(rc));
    for (r = 0; r < nranks; r++) {
        char want_err[1024], *p, file[1024], disk[4096];
        unsigned pid = 0;
        for (i = 0; i < 1000 && (strstr(got[r], "hello-") == NULL || strstr(got[r], "err-") == NULL); i++) usleep(10000);
        p = strstr(got[r], "hello-");
        if (p == NULL || sscanf(p, "hello-%*d-%u", &pid) != 1) return failure("rank %d: no hello line in \"%s\"", r, got[r]);
        {
            char want[1024];
            snprintf(want, sizeof want, "[%s,%d][%s:%u]<stdout>: hello-%d-%u\n", job->nspace, r, host, pid, r, pid);
            if (strstr(got[r], want) == NULL) return failure("rank %d: \"%s\" not in \"%s\"", r, want, got[r]);
            snprintf(want_err, sizeof want_err, "[%s,%d][%s:%u]<stdout>: err-%d\n", job->nspace, r, host, pid, r);
            if (strstr(got[r], want_err) == NULL) return failure("rank %d: merged stderr \"%s\" not in \"%s\"", r, want_err, got[r]);
        }
        snprintf(file, sizeof file, "%s/%s/rank.%d/stdout", dir, job->nspace, r);
        for (i = 0; i < 100; i++) {
            if (read_file(file, disk, sizeof disk) == 0 && strcmp(disk, got[r]) == 0) break;
            usleep(10000);
        }
        if (read_file(file, disk, sizeof disk) != 0) return failure("rank %d: no file %s", r, file);
        if (strcmp(disk, got[r]) != 0) return failure("rank %d: %s holds \"%s\", the callback got \"%s\"", r, file, disk, got[r]);
    }
    if (stderr_chunks) return failure("%d chunks on the stderr channel although it is merged", stderr_chunks);
    printf("tool_iof: detailed tags, merged stderr and output directory: ok\n");
    return 0;
}

static int fileonly(const pmix_proc_t *job, int nranks, const char *file)
{
    pmix_info_t *dirs;
    pmix_status_t rc;
    char disk[8192], want[128];
    int r, i, ok = 0;
    size_t h;
    PMIX_INFO_CREATE(dirs, 4);
    PMIX_INFO_LOAD(&dirs[0], PMIX_IOF_RANK_OUTPUT, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&dirs[1], PMIX_IOF_OUTPUT_TO_FILE, file, PMIX_STRING);
    PMIX_INFO_LOAD(&dirs[2], PMIX_IOF_FILE_PATTERN, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&dirs[3], PMIX_IOF_FILE_ONLY, NULL, PMIX_BOOL);
    rc = PMIx_IOF_pull(job, 1, dirs, 4, PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL, on_collect, NULL, NULL);
    PMIX_INFO_FREE(dirs, 4);
    if (rc <= 0) return failure("file-only pull: %s", PMIx_Error_string(rc));
    h = (size_t) rc;
    for (i = 0; i < 1000 && !ok; i++) {
        usleep(10000);
        if (read_file(file, disk, sizeof disk) != 0) continue;
        ok = 1;
        for (r = 0; r < nranks; r++) {
            snprintf(want, sizeof want, "[%d]<stdout>: hello-%d-", r, r);
            if (strstr(disk, want) == NULL) ok = 0;
            snprintf(want, sizeof want, "[%d]<stderr>: err-%d\n", r, r);
            if (strstr(disk, want) == NULL) ok = 0;
        }
    }
    rc = PMIx_IOF_deregister(h, NULL, 0, NULL, NULL);
    if (rc != PMIX_SUCCESS) return failure("deregister: %s", PMIx_Error_string(rc));
    if (!ok) return failure("%s does not hold every rank's tagged lines: \"%s\"", file, disk);
    if (any_chunks) return failure("the callback got %d chunks despite PMIX_IOF_FILE_ONLY", any_chunks);
    printf("tool_iof: rank tags into one file, file only: ok\n");
    return 0;
}

int main(int argc, char **argv)
{
    pmix_proc_t me, job;
    pmix_info_t info, *results = NULL, *dirs;
    uint32_t bsize = 4096;
    pmix_query_t query;
    size_t nresults = 0;
    pid_t pid;
    pmix_status_t rc;
    int nranks, i, all;
    char *comma;

    tu_die_out = stdout; /* failures: one plain line on stdout, exit 1 */
    if (argc < 3) return failure("usage: tool_iof <server pid> <nranks>");
    pid = (pid_t) atoi(argv[1]);
    nranks = atoi(argv[2]);
    all = (1 << nranks) - 1;
    PMIX_INFO_LOAD(&info, PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    rc = PMIx_tool_init(&me, &info, 1);
    if (rc != PMIX_SUCCESS) return failure("tool_init: %s", PMIx_Error_string(rc));
    PMIX_QUERY_CONSTRUCT(&query);
    PMIX_ARGV_APPEND(rc, query.keys, PMIX_QUERY_NAMESPACES);
    rc = PMIx_Query_info(&query, 1, &results, &nresults);
    if (rc != PMIX_SUCCESS || nresults != 1 || results[0].value.type != PMIX_STRING) return failure("query: %s", PMIx_Error_string(rc));
    comma = strchr(results[0].value.data.string, ',');
    if (comma) *comma = '\0';
    PMIX_LOAD_PROCID(&job, results[0].value.data.string, PMIX_RANK_WILDCARD);
    if (argc > 4) {
        int bad;
        gethostname(host, sizeof host - 1);
        if (nranks > 8) return failure("at most 8 ranks in this mode");
        if (strcmp(argv[3], "detailed") == 0) bad = detailed(&job, nranks, argv[4]);
        else if (strcmp(argv[3], "fileonly") == 0) bad = fileonly(&job, nranks, argv[4]);
        else return failure("unknown mode %s", argv[3]);
        PMIX_QUERY_DESTRUCT(&query);
        PMIX_INFO_FREE(results, nresults);
        rc = PMIx_tool_finalize();
        return bad || rc != PMIX_SUCCESS;
    }

    rc = PMIx_IOF_pull(&job, 1, NULL, 0, PMIX_FWD_STDIN_CHANNEL, on_output, NULL, NULL);
    if (rc >= 0) return failure("pull of the stdin channel: %d, expected an error", rc);
    printf("tool_iof: pull stdin channel -> %s\n", PMIx_Error_string(rc));
    rc = PMIx_IOF_deregister(987654, NULL, 0, NULL, NULL);
    if (rc == PMIX_SUCCESS) return failure("deregister of an unknown handle succeeded");
    printf("tool_iof: deregister unknown handle -> %s\n", PMIx_Error_string(rc));

    /* tagged, held until 4 KiB or the end of each rank's stream */
    PMIX_INFO_CREATE(dirs, 2);
    PMIX_INFO_LOAD(&dirs[0], PMIX_IOF_TAG_OUTPUT, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&dirs[1], PMIX_IOF_BUFFERING_SIZE, &bsize, PMIX_UINT32);
    rc = PMIx_IOF_pull(&job, 1, dirs, 2, PMIX_FWD_STDOUT_CHANNEL, on_output, NULL, NULL);
    PMIX_INFO_FREE(dirs, 2);
    if (rc <= 0) return failure("blocking pull: %s", PMIx_Error_string(rc));
    printf("tool_iof: blocking pull -> handle %d\n", rc);
    for (i = 0; i < 1000 && seen != all; i++) usleep(10000);
    if (seen != all) return failure("output seen from ranks 0x%x, expected 0x%x", seen, all);
    rc = PMIx_IOF_deregister((size_t) rc, NULL, 0, NULL, NULL);
    if (rc != PMIX_SUCCESS) return failure("blocking deregister: %s", PMIx_Error_string(rc));

    rc = PMIx_IOF_pull(&job, 1, NULL, 0, PMIX_FWD_STDERR_CHANNEL, on_output, on_reg, NULL);
    if (rc != PMIX_SUCCESS) return failure("non-blocking pull: %s", PMIx_Error_string(rc));
    for (i = 0; i < 500 && !reg_fired; i++) usleep(10000);
    if (reg_fired != 1 || reg_status != PMIX_SUCCESS) return failure("registration callback fired %d times, status %d", reg_fired, reg_status);
    rc = PMIx_IOF_deregister(reg_ref, NULL, 0, on_dereg, NULL);
    if (rc != PMIX_SUCCESS) return failure("non-blocking deregister: %s", PMIx_Error_string(rc));
    for (i = 0; i < 500 && !dereg_fired; i++) usleep(10000);
    usleep(100000);
    if (dereg_fired != 1 || reg_fired != 1) return failure("callbacks: registration %d, deregistration %d (want 1, 1)", reg_fired, dereg_fired);
    printf("tool_iof: all checks passed\n");
    PMIX_QUERY_DESTRUCT(&query);
    PMIX_INFO_FREE(results, nresults);
    rc = PMIx_tool_finalize();
    return rc == PMIX_SUCCESS ? 0 : 1;
}
