/*
 * A client's session directories: PMIX_TMPDIR and PMIX_NSDIR (job level)
 * and PMIX_PROCDIR (its own) exist, are private (0700) directories nested
 * TMPDIR > NSDIR > PROCDIR. It then uses them as scratch space: a file and a
 * subdirectory in PROCDIR, a file in NSDIR, and a symlink in PROCDIR to
 * argv[1] (a directory outside, whose contents must survive the cleanup).
 * With argv[2] = "other-user" the server runs as root and we as another
 * user: PMIX_TMPDIR is the server's, root's and 0711 (we pass through it,
 * never list it), and NSDIR and PROCDIR are 0700 and ours. With argv[2] =
 * "openpmix" the rank runs on OpenPMIx's library, whose Get of a missing
 * own key asks the server and waits: that check (rpmix's rule) is left out.
 * Prints its PROCDIR; exit 0 when all held.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <pmix.h>

static int other_user; /* argv[2] == "other-user" */

static char *get_dir(const pmix_proc_t *p, const char *key)
{
    unsigned want = 0700;
    uid_t owner = geteuid();
    pmix_value_t *v = NULL;
    char *s;
    struct stat st;
    if (PMIx_Get(p, key, NULL, 0, &v) != PMIX_SUCCESS || v->type != PMIX_STRING) {
        printf("client_dirs: no %s\n", key);
        return NULL;
    }
    s = strdup(v->data.string);
    PMIX_VALUE_RELEASE(v);
    if (other_user && strcmp(key, PMIX_TMPDIR) == 0) {
        want = 0711;
        owner = 0;
    }
    if (lstat(s, &st) != 0 || !S_ISDIR(st.st_mode) || (st.st_mode & 0777) != want || st.st_uid != owner) {
        printf("client_dirs: %s=%s is not a %o directory of uid %u\n", key, s, want, (unsigned)owner);
        return NULL;
    }
    return s;
}

int main(int argc, char **argv)
{
    pmix_proc_t me, job;
    char *tmp, *ns, *pd, path[4096];
    FILE *f;
    int ok = 1;

    other_user = argc > 2 && strcmp(argv[2], "other-user") == 0;
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) return 1;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    tmp = get_dir(&job, PMIX_TMPDIR);
    ns = get_dir(&job, PMIX_NSDIR);
    pd = get_dir(&me, PMIX_PROCDIR);
    if (!tmp || !ns || !pd) ok = 0;
    if (ok && (strncmp(ns, tmp, strlen(tmp)) != 0 || strncmp(pd, ns, strlen(ns)) != 0)) {
        printf("client_dirs: not nested: %s %s %s\n", tmp, ns, pd);
        ok = 0;
    }
    if (ok) {
        snprintf(path, sizeof path, "%s/scratch.%u", pd, me.rank);
        if ((f = fopen(path, "w")) == NULL) ok = 0; else { fputs("x\n", f); fclose(f); }
        snprintf(path, sizeof path, "%s/sub", pd);
        if (mkdir(path, 0755) != 0) ok = 0;
        snprintf(path, sizeof path, "%s/sub/deep.%u", pd, me.rank);
        if ((f = fopen(path, "w")) == NULL) ok = 0; else fclose(f);
        snprintf(path, sizeof path, "%s/shared.%u", ns, me.rank);
        if ((f = fopen(path, "w")) == NULL) ok = 0; else fclose(f);
        if (argc > 1) {
            snprintf(path, sizeof path, "%s/outside", pd);
            if (symlink(argv[1], path) != 0) ok = 0;
        }
        printf("client_dirs: rank %u procdir %s\n", me.rank, pd);
    }
    if (!(argc > 2 && strcmp(argv[2], "openpmix") == 0)) {
        /* a key of our own that nobody put: answered at once, not waited for */
        pmix_value_t *v = NULL;
        pmix_status_t rc = PMIx_Get(&me, "rpmix.test.never-put", NULL, 0, &v);
        if (rc != PMIX_ERR_NOT_FOUND) {
            printf("client_dirs: Get of a missing own key: %s\n", PMIx_Error_string(rc));
            ok = 0;
        }
    }
    PMIx_Finalize(NULL, 0);
    return ok ? 0 : 1;
}
