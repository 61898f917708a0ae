/*
 * soak_host: a long-lived C host (pmix_server.h only) that registers, runs
 * and deregisters many namespaces, for the soak test (systests/tests/soak.rs).
 *
 *   soak_host -c cycles [-n ranks] [-e every] -- prog [args...]
 *
 * Each cycle: a namespace "soak.<pid>.<i>" of `ranks` ranks (default 2) is
 * registered (PMIx_server_register_nspace and _client, blocking form), its
 * ranks forked with PMIx_server_setup_fork's environment and exec'd as
 * prog, waited for (each must exit 0), then deregistered (clients, then
 * the namespace). Before the first cycle and after every `every` cycles
 * (default cycles/10), and after the last, it prints
 *   soak_host: <cycles done> rss_kb=<VmRSS> fds=<open fds> threads=<threads>
 * of itself; the test compares them. Exit status: 0 when every client
 * exited 0; else 1 (the first failure is printed on stderr). alarm() bounds
 * the whole run at cycles/5 + 60 seconds.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "testutil_host.h"

extern char **environ;

static pmix_server_module_t module = {
    .client_connected = host_op_done,
    .client_finalized = host_op_done,
    .abort = host_abort,
    .fence_nb = host_fence_nb,
};

static long count_dir(const char *path)
{
    long n = 0;
    DIR *d = opendir(path);
    struct dirent *e;
    if (!d) return -1;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] != '.') n++;
    }
    closedir(d);
    return n;
}

static void sample(long done)
{
    char line[256];
    long rss = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (f) {
        while (fgets(line, sizeof(line), f)) {
            if (strncmp(line, "VmRSS:", 6) == 0) rss = atol(line + 6);
        }
        fclose(f);
    }
    /* (the directory listing's own descriptor is not counted: opendir's
     * fd is open while it counts, so one is taken off) */
    printf("soak_host: %ld rss_kb=%ld fds=%ld threads=%ld\n", done, rss,
           count_dir("/proc/self/fd") - 1, count_dir("/proc/self/task"));
    fflush(stdout);
}

static void die(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "soak_host: %s: %s\n", what, PMIx_Error_string(rc));
    exit(2);
}

int main(int argc, char **argv)
{
    long cycles = 0, every = 0, ranks = 2;
    int opt, status = 0;
    pmix_status_t rc;
    host_name = "soak_host";
    while ((opt = getopt(argc, argv, "c:n:e:")) != -1) {
        switch (opt) {
        case 'c': cycles = atol(optarg); break;
        case 'n': ranks = atol(optarg); break;
        case 'e': every = atol(optarg); break;
        default:
            fprintf(stderr, "usage: soak_host -c cycles [-n ranks] [-e every] -- prog [args...]\n");
            return 2;
        }
    }
    if (cycles <= 0 || ranks <= 0 || optind >= argc) {
        fprintf(stderr, "usage: soak_host -c cycles [-n ranks] [-e every] -- prog [args...]\n");
        return 2;
    }
    if (every <= 0) every = cycles / 10 > 0 ? cycles / 10 : 1;
    alarm((unsigned)(cycles / 5 + 60));
    rc = PMIx_server_init(&module, NULL, 0);
    if (rc != PMIX_SUCCESS) die("PMIx_server_init", rc);
    sample(0);
    for (long c = 0; c < cycles; c++) {
        char ns[PMIX_MAX_NSLEN + 1];
        pmix_info_t info[3];
        uint32_t size = (uint32_t)ranks;
        pid_t *pids = calloc((size_t)ranks, sizeof(pid_t));
        if (!pids) die("calloc", PMIX_ERR_NOMEM);
        snprintf(ns, sizeof(ns), "soak.%d.%ld", (int)getpid(), c);
        PMIX_INFO_LOAD(&info[0], PMIX_JOB_SIZE, &size, PMIX_UINT32);
        PMIX_INFO_LOAD(&info[1], PMIX_LOCAL_SIZE, &size, PMIX_UINT32);
        PMIX_INFO_LOAD(&info[2], PMIX_UNIV_SIZE, &size, PMIX_UINT32);
        rc = PMIx_server_register_nspace(ns, (int)ranks, info, 3, NULL, NULL);
        if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED) die("register_nspace", rc);
        for (int i = 0; i < 3; i++) PMIX_INFO_DESTRUCT(&info[i]);
        for (long r = 0; r < ranks; r++) {
            pmix_proc_t proc;
            char **env = NULL;
            PMIX_LOAD_PROCID(&proc, ns, (pmix_rank_t)r);
            rc = PMIx_server_register_client(&proc, getuid(), getgid(), NULL, NULL, NULL);
            if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED) die("register_client", rc);
            for (char **e = environ; *e; e++) PMIX_ARGV_APPEND(rc, env, *e);
            rc = PMIx_server_setup_fork(&proc, &env);
            if (rc != PMIX_SUCCESS) die("setup_fork", rc);
            pids[r] = fork();
            if (pids[r] < 0) die("fork", PMIX_ERROR);
            if (pids[r] == 0) {
                execve(argv[optind], &argv[optind], env);
                _exit(127);
            }
            PMIX_ARGV_FREE(env);
        }
        for (long r = 0; r < ranks; r++) {
            int st;
            if (waitpid(pids[r], &st, 0) < 0) die("waitpid", PMIX_ERROR);
            if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0) && status == 0) {
                status = 1;
                fprintf(stderr, "soak_host: namespace %s rank %ld ended with status %d\n", ns, r, st);
            }
        }
        for (long r = 0; r < ranks; r++) {
            pmix_proc_t proc;
            PMIX_LOAD_PROCID(&proc, ns, (pmix_rank_t)r);
            PMIx_server_deregister_client(&proc, NULL, NULL);
        }
        PMIx_server_deregister_nspace(ns, NULL, NULL);
        free(pids);
        if ((c + 1) % every == 0 || c + 1 == cycles) sample(c + 1);
    }
    rc = PMIx_server_finalize();
    if (rc != PMIX_SUCCESS) die("PMIx_server_finalize", rc);
    return status;
}
