/*
 * A rank that never asks for its own directory (PMIX_PROCDIR): after a
 * fence (every rank of the job connected), it counts the entries of its
 * namespace's directory (PMIX_NSDIR) and prints
 * "nsdir_entries: rank R: N entries". rpmix's server makes a rank's
 * directory only when it is asked for, so N is 0. Exit 0 when it could
 * look.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <pmix.h>

int main(void)
{
    pmix_proc_t me, job;
    pmix_value_t *v = NULL;
    struct dirent *e;
    DIR *d;
    int n = 0;

    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) return 1;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Fence(&job, 1, NULL, 0) != PMIX_SUCCESS) return 1;
    if (PMIx_Get(&job, PMIX_NSDIR, NULL, 0, &v) != PMIX_SUCCESS || v->type != PMIX_STRING) {
        printf("nsdir_entries: no PMIX_NSDIR\n");
        return 1;
    }
    if ((d = opendir(v->data.string)) == NULL) {
        printf("nsdir_entries: cannot list %s\n", v->data.string);
        return 1;
    }
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
    }
    closedir(d);
    PMIX_VALUE_RELEASE(v);
    /* every rank has looked before any leaves */
    if (PMIx_Fence(&job, 1, NULL, 0) != PMIX_SUCCESS) return 1;
    printf("nsdir_entries: rank %u: %d entries\n", me.rank, n);
    PMIx_Finalize(NULL, 0);
    return 0;
}
