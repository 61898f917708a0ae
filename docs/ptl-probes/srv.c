/* Tiny PMIx 4.2.2 host server for protocol capture.
 * usage: srv <client-binary> [nprocs]
 * env:  PROXY_PORT=<p>   -> children get PMIX_SERVER_URI* pointing at 127.0.0.1:<p>
 *       CHILD_GDS=<list> -> override PMIX_GDS_MODULE in child env
 *       BAD_UID=1        -> register clients with uid+1 (credential rejection test)
 *       SKIP_RANK1=1     -> do not register_client rank 1 (unknown rank test) */
#define _GNU_SOURCE
#include <pmix_server.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

static volatile int nfinalized = 0;

static pmix_status_t cconn(const pmix_proc_t *p, void *so, pmix_op_cbfunc_t cb, void *cbd)
{ fprintf(stderr, "[srv] client_connected %s:%u\n", p->nspace, p->rank); return PMIX_OPERATION_SUCCEEDED; }
static pmix_status_t cfin(const pmix_proc_t *p, void *so, pmix_op_cbfunc_t cb, void *cbd)
{ fprintf(stderr, "[srv] client_finalized %s:%u\n", p->nspace, p->rank); nfinalized++; return PMIX_OPERATION_SUCCEEDED; }
static pmix_status_t fence(const pmix_proc_t procs[], size_t np, const pmix_info_t info[], size_t ni,
                           char *data, size_t nd, pmix_modex_cbfunc_t cb, void *cbd)
{
    fprintf(stderr, "[srv] HOST fence_nb upcall nprocs=%zu ninfo=%zu ndata=%zu\n", np, ni, nd);
    FILE *f = fopen("fence_blob.bin", "wb"); if (f) { fwrite(data, 1, nd, f); fclose(f); }
    if (cb) cb(PMIX_SUCCESS, data, nd, cbd, NULL, NULL);
    return PMIX_SUCCESS;
}
static pmix_status_t dmodex(const pmix_proc_t *p, const pmix_info_t info[], size_t ni,
                            pmix_modex_cbfunc_t cb, void *cbd)
{ fprintf(stderr, "[srv] HOST direct_modex %s:%u\n", p->nspace, p->rank); return PMIX_ERR_NOT_SUPPORTED; }

static pmix_server_module_t mod = {
    .client_connected = cconn, .client_finalized = cfin, .fence_nb = fence, .direct_modex = dmodex,
};

int main(int argc, char **argv)
{
    int nprocs = argc > 2 ? atoi(argv[2]) : 2;
    pmix_status_t rc;
    pmix_info_t sinfo[2];
    PMIX_INFO_LOAD(&sinfo[0], PMIX_SERVER_NSPACE, "srvns", PMIX_STRING);
    pmix_rank_t srank = 0;
    PMIX_INFO_LOAD(&sinfo[1], PMIX_SERVER_RANK, &srank, PMIX_PROC_RANK);
    if (PMIX_SUCCESS != (rc = PMIx_server_init(&mod, sinfo, 2))) {
        fprintf(stderr, "server_init %d\n", rc); return 1;
    }
    char host[256]; gethostname(host, sizeof host);
    char *noderegex, *procregex, peers[64] = "";
    for (int r = 0; r < nprocs; r++) { char t[8]; snprintf(t, 8, r ? ",%d" : "%d", r); strcat(peers, t); }
    PMIx_generate_regex(host, &noderegex);
    PMIx_generate_ppn(peers, &procregex);

    int ninfo = 8 + nprocs;
    pmix_info_t *info; PMIX_INFO_CREATE(info, ninfo);
    uint32_t u = nprocs, z = 0;
    PMIX_INFO_LOAD(&info[0], PMIX_UNIV_SIZE, &u, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_JOB_SIZE, &u, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[2], PMIX_LOCAL_SIZE, &u, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[3], PMIX_SPAWNED, &z, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[4], PMIX_LOCAL_PEERS, peers, PMIX_STRING);
    PMIX_INFO_LOAD(&info[5], PMIX_NODE_MAP, noderegex, PMIX_REGEX);
    PMIX_INFO_LOAD(&info[6], PMIX_PROC_MAP, procregex, PMIX_REGEX);
    PMIX_INFO_LOAD(&info[7], "custom.joblevel", "hello", PMIX_STRING);
    for (int r = 0; r < nprocs; r++) {
        pmix_data_array_t *da; PMIX_DATA_ARRAY_CREATE(da, 4, PMIX_INFO);
        pmix_info_t *pi = (pmix_info_t *) da->array;
        pmix_rank_t rr = r; uint16_t lr = r; uint32_t app = 0;
        PMIX_INFO_LOAD(&pi[0], PMIX_RANK, &rr, PMIX_PROC_RANK);
        PMIX_INFO_LOAD(&pi[1], PMIX_LOCAL_RANK, &lr, PMIX_UINT16);
        PMIX_INFO_LOAD(&pi[2], PMIX_NODE_RANK, &lr, PMIX_UINT16);
        PMIX_INFO_LOAD(&pi[3], PMIX_APPNUM, &app, PMIX_UINT32);
        PMIX_INFO_LOAD(&info[8 + r], PMIX_PROC_DATA, da, PMIX_DATA_ARRAY);
    }
    rc = PMIx_server_register_nspace("testns", nprocs, info, ninfo, NULL, NULL);
    fprintf(stderr, "[srv] register_nspace rc=%d\n", rc);

    pid_t pids[16];
    for (int r = 0; r < nprocs; r++) {
        pmix_proc_t p; PMIX_LOAD_PROCID(&p, "testns", r);
        uid_t uid = getuid(); gid_t gid = getgid();
        if (getenv("BAD_UID")) uid += 1;
        if (!(getenv("SKIP_RANK1") && r == 1)) {
            rc = PMIx_server_register_client(&p, uid, gid, NULL, NULL, NULL);
            fprintf(stderr, "[srv] register_client %d rc=%d\n", r, rc);
        }
        char **env = NULL;
        /* start from a minimal env so the dump is clean */
        char *keep[] = {"PATH", "HOME", "PMIX_MCA_gds", "PMIX_DEBUG", "PYCLI_MODE", "NOCOLLECT", "NOTFOUND", NULL};
        int ne = 0; env = calloc(64, sizeof(char *));
        for (int k = 0; keep[k]; k++) if (getenv(keep[k])) { asprintf(&env[ne++], "%s=%s", keep[k], getenv(keep[k])); }
        rc = PMIx_server_setup_fork(&p, &env);
        fprintf(stderr, "[srv] setup_fork %d rc=%d\n", r, rc);
        char fn[64]; snprintf(fn, sizeof fn, "env_rank%d.txt", r);
        FILE *f = fopen(fn, "w");
        for (int k = 0; env[k]; k++) fprintf(f, "%s\n", env[k]);
        fclose(f);
        /* rewrite URIs for proxy */
        if (getenv("PROXY_PORT")) {
            for (int k = 0; env[k]; k++) {
                if (0 == strncmp(env[k], "PMIX_SERVER_URI", 15)) {
                    char *eq = strchr(env[k], '='); char *semi = strchr(env[k], ';');
                    if (r == 0) { FILE *u2 = fopen("upstream.txt", "w"); fprintf(u2, "%s\n", semi + 1); fclose(u2); }
                    char *nv; *semi = 0;
                    asprintf(&nv, "%s;tcp4://127.0.0.1:%s", env[k], getenv("PROXY_PORT"));
                    (void)eq; env[k] = nv;
                }
            }
        }
        if (getenv("CHILD_GDS") && !(getenv("CHILD_GDS_RANK0_ONLY") && r != 0)) {
            for (int k = 0; env[k]; k++)
                if (0 == strncmp(env[k], "PMIX_GDS_MODULE=", 16)) asprintf(&env[k], "PMIX_GDS_MODULE=%s", getenv("CHILD_GDS"));
        }
        pids[r] = fork();
        if (0 == pids[r]) {
            const char *bin = argv[1];
            if (r == 0 && getenv("CLIENT0")) bin = getenv("CLIENT0");
            execle(bin, bin, NULL, env);
            _exit(127);
        }
        usleep(300000); /* serialize connections for a readable capture */
    }
    for (int r = 0; r < nprocs; r++) {
        int st; waitpid(pids[r], &st, 0);
        fprintf(stderr, "[srv] child %d exit %d\n", r, WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st));
    }
    PMIx_server_finalize();
    return 0;
}
