/* contract_sweep: calls whose caller breaks the contract at the edge of
 * memory. A key or an info array is placed at the very end of a mapped page,
 * followed by a PROT_NONE page, so a read past what the caller gave faults.
 * Each call runs in a forked child (its own PMIx_Init as a singleton); the
 * parent prints one line per call:
 *
 *   <call>: survived: <status name>
 *   <call>: crashed: signal <n>
 *
 * and exits 0 whatever the outcomes (the comparison is the caller's). The
 * first calls are controls within the contract (a terminated key at the page
 * end, an info count equal to the array's): they must survive. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmix.h>

static size_t page;

/* Two pages: the first readable and writable, the second PROT_NONE. Returns
 * the address of the end of the first page. */
static char *guarded_end(void)
{
    char *m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    if (mprotect(m + page, page, PROT_NONE) != 0) {
        perror("mprotect");
        exit(2);
    }
    return m + page;
}

/* `len` bytes of 'k' ending at the page end; with `terminated` the last of
 * them is the NUL (a key of len-1 bytes). */
static const char *edge_key(size_t len, int terminated)
{
    char *end = guarded_end();
    char *k = end - len;
    memset(k, 'k', len);
    if (terminated) {
        end[-1] = '\0';
    }
    return k;
}

/* `n` infos ending at the page end. */
static pmix_info_t *edge_infos(size_t n)
{
    char *end = guarded_end();
    pmix_info_t *info = (pmix_info_t *)(end - n * sizeof(pmix_info_t));
    for (size_t i = 0; i < n; i++) {
        PMIX_INFO_LOAD(&info[i], PMIX_TIMEOUT, &(int){1}, PMIX_INT);
    }
    return info;
}

static pmix_proc_t me;

static pmix_status_t get_key(const char *key)
{
    pmix_value_t *v = NULL;
    return PMIx_Get(&me, key, NULL, 0, &v);
}

static pmix_status_t put_key(const char *key)
{
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, "x", PMIX_STRING);
    return PMIx_Put(PMIX_LOCAL, key, &v);
}

static pmix_status_t get_infos(size_t given, size_t claimed)
{
    pmix_value_t *v = NULL;
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me.nspace, PMIX_RANK_WILDCARD);
    return PMIx_Get(&p, PMIX_JOB_SIZE, edge_infos(given), claimed, &v);
}

static pmix_status_t fence_infos(size_t given, size_t claimed)
{
    return PMIx_Fence(NULL, 0, edge_infos(given), claimed);
}

static pmix_status_t get_key_nul(void) { return get_key(edge_key(301, 1)); }
static pmix_status_t get_key_max(void) { return get_key(edge_key(PMIX_MAX_KEYLEN + 1, 1)); }
static pmix_status_t get_key_300(void) { return get_key(edge_key(300, 0)); }
static pmix_status_t put_key_nul(void) { return put_key(edge_key(301, 1)); }
static pmix_status_t put_key_300(void) { return put_key(edge_key(300, 0)); }
static pmix_status_t get_infos_2_of_2(void) { return get_infos(2, 2); }
static pmix_status_t get_infos_2_of_1000(void) { return get_infos(2, 1000); }
static pmix_status_t fence_infos_2_of_2(void) { return fence_infos(2, 2); }
static pmix_status_t fence_infos_2_of_1000(void) { return fence_infos(2, 1000); }

static const struct {
    const char *name;
    pmix_status_t (*call)(void);
} calls[] = {
    {"PMIx_Get key 300 bytes + NUL at page end", get_key_nul},
    {"PMIx_Get key PMIX_MAX_KEYLEN bytes + NUL at page end", get_key_max},
    {"PMIx_Put key 300 bytes + NUL at page end", put_key_nul},
    {"PMIx_Get info 2 of 2 at page end", get_infos_2_of_2},
    {"PMIx_Fence info 2 of 2 at page end", fence_infos_2_of_2},
    {"PMIx_Get key 300 bytes, no NUL, at page end", get_key_300},
    {"PMIx_Put key 300 bytes, no NUL, at page end", put_key_300},
    {"PMIx_Get info 2 given, ninfo 1000", get_infos_2_of_1000},
    {"PMIx_Fence info 2 given, ninfo 1000", fence_infos_2_of_1000},
};

int main(int argc, char **argv)
{
    page = (size_t)sysconf(_SC_PAGESIZE);
    setvbuf(stdout, NULL, _IONBF, 0);
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        if (argc > 1 && strstr(calls[i].name, argv[1]) == NULL) {
            continue;
        }
        int fds[2];
        if (pipe(fds) != 0) {
            perror("pipe");
            return 2;
        }
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 2;
        }
        if (pid == 0) {
            close(fds[0]);
            pmix_status_t rc = PMIx_Init(&me, NULL, 0);
            if (rc != PMIX_SUCCESS) {
                dprintf(fds[1], "init failed: %s", PMIx_Error_string(rc));
                _exit(3);
            }
            rc = calls[i].call();
            dprintf(fds[1], "%s", PMIx_Error_string(rc));
            close(fds[1]);
            PMIx_Finalize(NULL, 0);
            _exit(0);
        }
        close(fds[1]);
        char buf[256] = {0};
        size_t got = 0;
        ssize_t r;
        while (got < sizeof buf - 1 && (r = read(fds[0], buf + got, sizeof buf - 1 - got)) > 0) {
            got += (size_t)r;
        }
        close(fds[0]);
        int st = 0;
        waitpid(pid, &st, 0);
        if (WIFSIGNALED(st) && got == 0) {
            printf("%s: crashed: signal %d\n", calls[i].name, WTERMSIG(st));
        } else if (WIFSIGNALED(st)) {
            /* the call returned; finalizing crashed */
            printf("%s: survived: %s (then signal %d in PMIx_Finalize)\n", calls[i].name, buf, WTERMSIG(st));
        } else if (WEXITSTATUS(st) == 3) {
            printf("%s: %s\n", calls[i].name, buf);
        } else {
            printf("%s: survived: %s\n", calls[i].name, buf);
        }
    }
    return 0;
}
