/*
 * top_fence: a job for `pmixctl top`'s tests. Every rank calls PMIx_Init,
 * says "ready <rank> <pid>", and enters a fence of the whole namespace;
 * the ranks TOP_FENCE_RANK names (default 5; a list such as 5,100-199)
 * first wait: until the file
 * TOP_FENCE_GO names exists (the test decides when it arrives), or, without
 * it, argv[1] seconds (default 0). Each rank says "fenced <rank>" after the
 * fence, and with TOP_FENCE_HOLD naming a file, waits until it exists
 * before PMIx_Finalize (the job stays for a look after the fence). Exit 0
 * when every call succeeded.
 *
 * With TOP_FENCE_SELF=1 (and one slow rank) the slow rank asks its own server, as any tool
 * would, what `pmixctl top` shows (PMIx_Query_info of "rpmix.qry.top" for
 * its namespace) before it enters the fence: once every other rank waits in
 * it, it prints "top: <kind> entered <n>/<m> missing <ranges> wait <ms>",
 * twice (the second once the wait grew), and after the fence "top: after
 * <number of collectives in progress>". Under a host that lets no tool in
 * (Open MPI 4's mpirun), this is how a test sees the server's answer.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

static void pause_ms(long ms)
{
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);
}

/* Whether `rank` is in the list `list` (5 or 0-3,5). */
static int listed(const char *list, unsigned rank)
{
    const char *p = list;
    while (*p != '\0') {
        char *end;
        unsigned long a = strtoul(p, &end, 10), b = a;
        if (end == p) {
            return 0;
        }
        p = end;
        if (*p == '-') {
            b = strtoul(p + 1, &end, 10);
            p = end;
        }
        if (rank >= a && rank <= b) {
            return 1;
        }
        if (*p == ',') {
            p++;
        } else {
            break;
        }
    }
    return 0;
}

static void wait_for_file(const char *f)
{
    while (access(f, F_OK) != 0) {
        pause_ms(10);
    }
}

/* The fence in progress in an answer to rpmix.qry.top: 0 and its fields
 * (kind, missing: strdup'ed), else -1; *ncoll counts the collectives. */
static int first_coll(pmix_info_t *res, size_t nres, int *ncoll, char **kind, unsigned *nin, unsigned *nparts, char **missing, unsigned *wait)
{
    int found = -1;
    *ncoll = 0;
    for (size_t i = 0; i < nres; i++) {
        if (strcmp(res[i].key, "rpmix.qry.top") != 0 || res[i].value.type != PMIX_DATA_ARRAY) {
            continue;
        }
        pmix_data_array_t *top = res[i].value.data.darray;
        if (top == NULL || top->type != PMIX_INFO) {
            continue;
        }
        pmix_info_t *all = (pmix_info_t *)top->array;
        for (size_t k = 0; k < top->size; k++) {
            if (strcmp(all[k].key, "rpmix.top.coll") != 0 || all[k].value.type != PMIX_DATA_ARRAY) {
                continue;
            }
            (*ncoll)++;
            pmix_data_array_t *c = all[k].value.data.darray;
            if (found == 0 || c == NULL || c->type != PMIX_INFO) {
                continue;
            }
            pmix_info_t *f = (pmix_info_t *)c->array;
            for (size_t j = 0; j < c->size; j++) {
                if (strcmp(f[j].key, "rpmix.top.kind") == 0 && f[j].value.type == PMIX_STRING) {
                    *kind = strdup(f[j].value.data.string);
                } else if (strcmp(f[j].key, "rpmix.top.missing") == 0 && f[j].value.type == PMIX_STRING) {
                    *missing = strdup(f[j].value.data.string);
                } else if (strcmp(f[j].key, "rpmix.top.nin") == 0 && f[j].value.type == PMIX_UINT32) {
                    *nin = f[j].value.data.uint32;
                } else if (strcmp(f[j].key, "rpmix.top.nparts") == 0 && f[j].value.type == PMIX_UINT32) {
                    *nparts = f[j].value.data.uint32;
                } else if (strcmp(f[j].key, "rpmix.top.wait") == 0 && f[j].value.type == PMIX_UINT32) {
                    *wait = f[j].value.data.uint32;
                }
            }
            found = 0;
        }
    }
    return found;
}

/* One rpmix.qry.top query of namespace `ns`: 0 when answered. */
static int ask(const char *ns, int *ncoll, char **kind, unsigned *nin, unsigned *nparts, char **missing, unsigned *wait)
{
    pmix_query_t q;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    int found;
    PMIX_QUERY_CONSTRUCT(&q);
    q.keys = (char **)calloc(2, sizeof(char *));
    q.keys[0] = strdup("rpmix.qry.top");
    q.nqual = 1;
    PMIX_INFO_CREATE(q.qualifiers, 1);
    PMIX_INFO_LOAD(&q.qualifiers[0], PMIX_NSPACE, ns, PMIX_STRING);
    pmix_status_t rc = PMIx_Query_info(&q, 1, &res, &nres);
    PMIX_QUERY_DESTRUCT(&q);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "top_fence: PMIx_Query_info: %d\n", rc);
        return -1;
    }
    *kind = NULL;
    *missing = NULL;
    found = first_coll(res, nres, ncoll, kind, nin, nparts, missing, wait);
    PMIX_INFO_FREE(res, nres);
    (void)found;
    return 0;
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    const char *slow_env = getenv("TOP_FENCE_RANK");
    const char *go = getenv("TOP_FENCE_GO");
    const char *hold = getenv("TOP_FENCE_HOLD");
    int slow;
    long secs = argc > 1 ? atol(argv[1]) : 0;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "top_fence: PMIx_Init: %d\n", rc);
        return 1;
    }
    printf("ready %u %ld\n", me.rank, (long)getpid());
    fflush(stdout);
    slow = listed(slow_env ? slow_env : "5", me.rank);
    if (slow && getenv("TOP_FENCE_SELF") != NULL) {
        int ncoll = 0;
        char *kind = NULL, *missing = NULL;
        unsigned nin = 0, nparts = 0, wait = 0, first_wait = 0;
        int samples = 0;
        /* Until every other rank waits in the fence, then until the wait grew. */
        for (;;) {
            free(kind);
            free(missing);
            if (ask(me.nspace, &ncoll, &kind, &nin, &nparts, &missing, &wait) != 0) {
                return 1;
            }
            if (ncoll == 1 && nparts > 0 && nin + 1 == nparts && (samples == 0 || wait > first_wait)) {
                printf("top: %s entered %u/%u missing %s wait %u\n", kind ? kind : "?", nin, nparts, missing ? missing : "?", wait);
                fflush(stdout);
                if (++samples == 2) {
                    break;
                }
                first_wait = wait;
            }
            pause_ms(10);
        }
        free(kind);
        free(missing);
    } else if (slow) {
        if (go != NULL) {
            wait_for_file(go);
        } else {
            pause_ms(secs * 1000);
        }
    }
    rc = PMIx_Fence(NULL, 0, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "top_fence: PMIx_Fence: %d\n", rc);
        return 1;
    }
    printf("fenced %u\n", me.rank);
    fflush(stdout);
    if (slow && getenv("TOP_FENCE_SELF") != NULL) {
        int ncoll = 0;
        char *kind = NULL, *missing = NULL;
        unsigned nin = 0, nparts = 0, wait = 0;
        if (ask(me.nspace, &ncoll, &kind, &nin, &nparts, &missing, &wait) != 0) {
            return 1;
        }
        printf("top: after %d\n", ncoll);
        fflush(stdout);
        free(kind);
        free(missing);
    }
    if (hold != NULL) {
        wait_for_file(hold);
    }
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "top_fence: PMIx_Finalize: %d\n", rc);
        return 1;
    }
    return 0;
}
