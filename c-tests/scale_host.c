/*
 * scale_host: a resource manager, written only against pmix_server.h, that
 * registers one large namespace of which only a few ranks live here, for the
 * scale benchmark and test (issue 18).
 *
 *   scale_host -N nprocs [-p ppn] [-c local] [-t secs] [-d] -- prog [args...]
 *   scale_host -N nprocs [-p ppn] [-c local] -R cycles
 *
 * Layout: this host is node 0 and holds ranks 0..local-1 (default 8). The
 * other nprocs-local ranks fill nodes "sn000001", "sn000002", ... with ppn
 * ranks each (default 8), the last node taking the remainder. The node map
 * and proc map come from PMIx_generate_regex / PMIx_generate_ppn, and only
 * the local ranks get per-proc data, as a real resource manager does.
 *
 * Every upcall completes inline, from inside the upcall (legal and common):
 * fence_nb calls its callback before returning, client_connected and
 * client_finalized too. -d answers them with PMIX_OPERATION_SUCCEEDED
 * instead where the Standard allows it.
 *
 * It prints, on stdout, one line of measurements and the expected values
 * for the clients to be checked against:
 *   host regex_s=<s> ppn_s=<s> register_s=<s> rss_kb=<kB> pss_kb=<kB>
 *        nodes=<n> last_host=<name>
 * then runs `local` copies of prog and waits for them. Exit status: 0 when
 * every client exited 0, else the first failure's code; 124 on timeout.
 *
 * -R cycles: a long-lived server's memory. Instead of running clients,
 * register and deregister the namespace (a new name each time) `cycles`
 * times, and print
 *   cycles n=<cycles> rss_first_kb=<after the first> rss_last_kb=<after all>
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "scale_measure.h"

#define TESTUTIL_CHECKS_ONLY /* the host */
#include "testutil.h"
#include "testutil_host.h"

extern char **environ;

static volatile int op_done;
static volatile pmix_status_t op_status;

static void op_cb(pmix_status_t st, void *cbdata)
{
    (void)cbdata;
    op_status = st;
    op_done = 1;
}

static void wait_op(const char *what, pmix_status_t rc)
{
    if (rc == PMIX_OPERATION_SUCCEEDED) return;
    if (rc != PMIX_SUCCESS) die_status(what, rc);
    while (!op_done) usleep(100);
    op_done = 0;
    if (op_status != PMIX_SUCCESS) die_status(what, op_status);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        die("out of memory (%zu bytes)", n);
    }
    return p;
}

/* ---- upcalls: every one completes before it returns (testutil_host.h) ---- */

static pmix_status_t up_direct_modex(const pmix_proc_t *proc, const pmix_info_t info[],
                                     size_t ninfo, pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    (void)proc;
    (void)info;
    (void)ninfo;
    (void)cbfunc;
    (void)cbdata;
    return PMIX_ERR_NOT_FOUND;
}

static pmix_server_module_t module = {
    .client_connected = host_op_done,
    .client_finalized = host_op_done,
    .abort = host_abort,
    .fence_nb = host_fence_nb,
    .direct_modex = up_direct_modex,
};

/* ---- job description ---- */

/* appends s to a growing string buffer */
typedef struct {
    char *s;
    size_t len, cap;
} sbuf_t;

static void sb_add(sbuf_t *b, const char *s)
{
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->s = realloc(b->s, b->cap);
        if (!b->s) {
            die("out of memory");
        }
    }
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

static void info_add(void *list, const char *key, const void *val, pmix_data_type_t t)
{
    pmix_status_t rc = PMIx_Info_list_add(list, key, val, t);
    if (rc != PMIX_SUCCESS) die_status(key, rc);
}

int main(int argc, char **argv)
{
    long nprocs = 0, ppn = 8, local = 8, timeout_s = 120, nnodes, rss, pss;
    char host[256], name[300], num[24], *regex = NULL, *procmap = NULL, nspace[PMIX_MAX_NSLEN + 1];
    sbuf_t nodes = {0}, ranks = {0}, peers = {0};
    double t0, t_regex, t_ppn, t_reg;
    pmix_status_t rc;
    pmix_data_array_t darr;
    void *list;
    pid_t *pids;
    int opt, status = 0, cycles = 0;
    uint32_t u32;

    host_name = "scale_host";
    tu_set_prefix("scale_host: "); /* die(): "scale_host: <what>: <status>", exit 2 */
    tu_die_status = 2;
    while ((opt = getopt(argc, argv, "N:p:c:t:dR:")) != -1) {
        switch (opt) {
        case 'N': nprocs = atol(optarg); break;
        case 'p': ppn = atol(optarg); break;
        case 'c': local = atol(optarg); break;
        case 't': timeout_s = atol(optarg); break;
        case 'd': host_answer_now = true; break;
        case 'R': cycles = atoi(optarg); break;
        default: goto usage;
        }
    }
    if ((optind >= argc && cycles <= 0) || cycles < 0 || nprocs < 1 || ppn < 1 || local < 1 || local > nprocs || nprocs > 0x7ffffff0L) {
    usage:
        fprintf(stderr, "usage: scale_host -N nprocs [-p ppn] [-c local] [-t secs] [-d] -- prog [args...]\n"
                        "       scale_host -N nprocs [-p ppn] [-c local] -R cycles\n");
        return 2;
    }
    gethostname(host, sizeof(host) - 1);
    host[sizeof(host) - 1] = '\0';
    snprintf(nspace, sizeof(nspace), "scale.%d", (int)getpid());

    /* node list and per-node rank lists: node 0 is here */
    nnodes = 1 + (nprocs - local + ppn - 1) / ppn;
    sb_add(&nodes, host);
    for (long r = 0; r < local; r++) {
        snprintf(num, sizeof(num), r ? ",%ld" : "%ld", r);
        sb_add(&ranks, num);
        sb_add(&peers, num);
    }
    for (long n = 1; n < nnodes; n++) {
        long first = local + (n - 1) * ppn, last = first + ppn;
        if (last > nprocs) last = nprocs;
        snprintf(name, sizeof(name), ",sn%06ld", n);
        sb_add(&nodes, name);
        sb_add(&ranks, ";");
        for (long r = first; r < last; r++) {
            snprintf(num, sizeof(num), r > first ? ",%ld" : "%ld", r);
            sb_add(&ranks, num);
        }
    }

    rc = PMIx_server_init(&module, NULL, 0);
    if (rc != PMIX_SUCCESS) die_status("PMIx_server_init", rc);

    t0 = now();
    rc = PMIx_generate_regex(nodes.s, &regex);
    if (rc != PMIX_SUCCESS) die_status("PMIx_generate_regex", rc);
    t_regex = now() - t0;
    t0 = now();
    rc = PMIx_generate_ppn(ranks.s, &procmap);
    if (rc != PMIX_SUCCESS) die_status("PMIx_generate_ppn", rc);
    t_ppn = now() - t0;
    free(nodes.s);
    free(ranks.s);

    list = PMIx_Info_list_start();
    u32 = (uint32_t)nprocs;
    info_add(list, PMIX_JOB_SIZE, &u32, PMIX_UINT32);
    info_add(list, PMIX_UNIV_SIZE, &u32, PMIX_UINT32);
    info_add(list, PMIX_MAX_PROCS, &u32, PMIX_UINT32);
    info_add(list, PMIX_JOBID, nspace, PMIX_STRING);
    u32 = (uint32_t)nnodes;
    info_add(list, PMIX_NUM_NODES, &u32, PMIX_UINT32);
    info_add(list, PMIX_NODE_MAP, regex, PMIX_STRING);
    info_add(list, PMIX_PROC_MAP, procmap, PMIX_STRING);
    u32 = (uint32_t)local;
    info_add(list, PMIX_LOCAL_SIZE, &u32, PMIX_UINT32);
    info_add(list, PMIX_LOCAL_PEERS, peers.s, PMIX_STRING);
    u32 = 0;
    info_add(list, PMIX_NODEID, &u32, PMIX_UINT32);
    info_add(list, PMIX_HOSTNAME, host, PMIX_STRING);
    for (long r = 0; r < local; r++) {
        void *pl = PMIx_Info_list_start();
        pmix_data_array_t parr;
        pmix_rank_t rank = (pmix_rank_t)r;
        uint16_t u16 = (uint16_t)r;
        uint32_t zero = 0;
        info_add(pl, PMIX_RANK, &rank, PMIX_PROC_RANK);
        info_add(pl, PMIX_LOCAL_RANK, &u16, PMIX_UINT16);
        info_add(pl, PMIX_NODE_RANK, &u16, PMIX_UINT16);
        info_add(pl, PMIX_NODEID, &zero, PMIX_UINT32);
        info_add(pl, PMIX_APPNUM, &zero, PMIX_UINT32);
        info_add(pl, PMIX_HOSTNAME, host, PMIX_STRING);
        rc = PMIx_Info_list_convert(pl, &parr);
        if (rc != PMIX_SUCCESS) die_status("PMIx_Info_list_convert", rc);
        info_add(list, PMIX_PROC_DATA, &parr, PMIX_DATA_ARRAY);
        PMIx_Data_array_destruct(&parr);
        PMIx_Info_list_release(pl);
    }
    rc = PMIx_Info_list_convert(list, &darr);
    if (rc != PMIX_SUCCESS) die_status("PMIx_Info_list_convert", rc);
    PMIx_Info_list_release(list);

    if (cycles > 0) {
        long first_kb = 0, ignored;
        for (int i = 0; i < cycles; i++) {
            char ns[PMIX_MAX_NSLEN + 1];
            snprintf(ns, sizeof(ns), "scale.%d.%d", (int)getpid(), i);
            wait_op("register_nspace", PMIx_server_register_nspace(ns, (int)local, (pmix_info_t *)darr.array,
                                                                   darr.size, op_cb, NULL));
            op_done = 0;
            PMIx_server_deregister_nspace(ns, op_cb, NULL);
            while (!op_done) usleep(100);
            op_done = 0;
            if (i == 0) memory_kb(&first_kb, &ignored);
        }
        memory_kb(&rss, &pss);
        printf("cycles n=%d rss_first_kb=%ld rss_last_kb=%ld\n", cycles, first_kb, rss);
        PMIx_Data_array_destruct(&darr);
        PMIx_server_finalize();
        return 0;
    }

    t0 = now();
    rc = PMIx_server_register_nspace(nspace, (int)local, (pmix_info_t *)darr.array, darr.size,
                                     NULL, NULL);
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED) die_status("register_nspace", rc);
    t_reg = now() - t0;
    PMIx_Data_array_destruct(&darr);
    free(regex);
    free(procmap);
    free(peers.s);
    memory_kb(&rss, &pss);

    if (nnodes > 1)
        snprintf(name, sizeof(name), "sn%06ld", nnodes - 1);
    else
        snprintf(name, sizeof(name), "%s", host);
    printf("host regex_s=%.6f ppn_s=%.6f register_s=%.6f rss_kb=%ld pss_kb=%ld nodes=%ld last_host=%s\n",
           t_regex, t_ppn, t_reg, rss, pss, nnodes, name);
    fflush(stdout);

    pids = xmalloc(sizeof(pid_t) * (size_t)local);
    for (long r = 0; r < local; r++) {
        pmix_proc_t proc;
        char **env = NULL;
        PMIX_LOAD_PROCID(&proc, nspace, (pmix_rank_t)r);
        rc = PMIx_server_register_client(&proc, getuid(), getgid(), NULL, NULL, NULL);
        if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED) die_status("register_client", rc);
        for (char **e = environ; *e; e++) PMIX_ARGV_APPEND(rc, env, *e);
        rc = PMIx_server_setup_fork(&proc, &env);
        if (rc != PMIX_SUCCESS) die_status("setup_fork", rc);
        pids[r] = fork();
        if (pids[r] < 0) {
            perror("scale_host: fork");
            exit(2);
        }
        if (pids[r] == 0) {
            setpgid(0, 0);
            execve(argv[optind], &argv[optind], env);
            perror("scale_host: exec");
            _exit(127);
        }
        PMIX_ARGV_FREE(env);
    }

    /* wait for every client, bounded by the time limit */
    {
        long left = local;
        double deadline = now() + (double)timeout_s;
        while (left > 0) {
            int st;
            pid_t p = waitpid(-1, &st, WNOHANG);
            if (p > 0) {
                int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
                left--;
                if (code && !status) {
                    status = code;
                    fprintf(stderr, "scale_host: a client (pid %d) ended with %d\n", (int)p, code);
                }
                continue;
            }
            if (now() > deadline) {
                fprintf(stderr, "scale_host: time limit of %ld s reached\n", timeout_s);
                for (long r = 0; r < local; r++) kill(-pids[r], SIGKILL);
                status = 124;
                break;
            }
            usleep(2000);
        }
    }
    free(pids);
    PMIx_server_finalize();
    return status;
}
