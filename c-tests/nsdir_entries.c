/*
 * A rank that never asks for its own directory (PMIX_PROCDIR): after a
 * fence (every rank of the job connected), it looks in the session
 * directory (PMIX_TMPDIR) for its namespace's directory before anyone
 * asked for it, then asks for it (PMIX_NSDIR) and counts its entries, and
 * prints "nsdir_entries: rank R: before M, N entries". rpmix's server
 * makes a namespace's and a rank's directory only when asked, so M and N
 * are 0. Exit 0 when it could look.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <pmix.h>

static char *get_string(const pmix_proc_t *p, const char *key)
{
    pmix_value_t *v = NULL;
    char *s;
    if (PMIx_Get(p, key, NULL, 0, &v) != PMIX_SUCCESS || v->type != PMIX_STRING) {
        printf("nsdir_entries: no %s\n", key);
        return NULL;
    }
    s = strdup(v->data.string);
    PMIX_VALUE_RELEASE(v);
    return s;
}

/* Entries of `dir` (other than . and ..), or those named `only` when given; -1: cannot list. */
static int count(const char *dir, const char *only)
{
    struct dirent *e;
    DIR *d = opendir(dir);
    int n = 0;
    if (d == NULL) {
        printf("nsdir_entries: cannot list %s\n", dir);
        return -1;
    }
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (only == NULL || strcmp(e->d_name, only) == 0) n++;
    }
    closedir(d);
    return n;
}

int main(void)
{
    pmix_proc_t me, job;
    char *tmp, *ns;
    int before, n;

    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) return 1;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Fence(&job, 1, NULL, 0) != PMIX_SUCCESS) return 1;
    if ((tmp = get_string(&job, PMIX_TMPDIR)) == NULL) return 1;
    before = count(tmp, me.nspace);
    /* every rank has looked before any asks */
    if (PMIx_Fence(&job, 1, NULL, 0) != PMIX_SUCCESS) return 1;
    if ((ns = get_string(&job, PMIX_NSDIR)) == NULL) return 1;
    n = count(ns, NULL);
    /* every rank has counted before any leaves */
    if (PMIx_Fence(&job, 1, NULL, 0) != PMIX_SUCCESS) return 1;
    printf("nsdir_entries: rank %u: before %d, %d entries\n", me.rank, before, n);
    PMIx_Finalize(NULL, 0);
    return before < 0 || n < 0;
}
