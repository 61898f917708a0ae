/*
 * topo_host: a host that hands its PMIx server a topology at init
 * (PMIX_TOPOLOGY2: a synthetic hwloc topology, "pack:2 core:3 pu:2" unless
 * argv[1] says otherwise), then runs one client, prog, and waits for it.
 *
 *   topo_host [synthetic description] -- prog [args...]
 *
 * It prints
 *   topo_host: own load <status> same pointer: yes|no
 * (the host's own PMIx_Load_topology must return the topology it gave), and
 * exits with the client's exit status (or 2 when something failed here).
 */
#define _DEFAULT_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hwloc.h>
#include <pmix.h>
#include <pmix_server.h>

extern char **environ;

static pmix_status_t done_inline(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)p;
    (void)obj;
    (void)cbfunc;
    (void)cbdata;
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[], size_t ninfo,
                           char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    (void)procs;
    (void)nprocs;
    (void)info;
    (void)ninfo;
    cbfunc(PMIX_SUCCESS, data, ndata, cbdata, NULL, NULL);
    return PMIX_SUCCESS;
}

static pmix_server_module_t module = {
    .client_connected = done_inline,
    .client_finalized = done_inline,
    .fence_nb = fence,
};

int main(int argc, char **argv)
{
    hwloc_topology_t synth;
    pmix_topology_t given, own;
    pmix_info_t info;
    pmix_proc_t proc;
    pmix_status_t rc;
    char nspace[PMIX_MAX_NSLEN + 1], **env = NULL;
    int argi = 1, status;
    const char *desc = "pack:2 core:3 pu:2";
    pid_t pid;

    if (argi < argc && strcmp(argv[argi], "--") != 0) desc = argv[argi++];
    if (argi < argc && strcmp(argv[argi], "--") == 0) argi++;
    if (argi >= argc) {
        fprintf(stderr, "usage: topo_host [synthetic description] -- prog [args...]\n");
        return 2;
    }
    if (hwloc_topology_init(&synth) != 0 || hwloc_topology_set_synthetic(synth, desc) != 0 ||
        hwloc_topology_load(synth) != 0) {
        fprintf(stderr, "topo_host: cannot build the topology '%s'\n", desc);
        return 2;
    }
    given.source = "hwloc:synthetic";
    given.topology = synth;
    /* the info points at our topology (a load would copy it: OpenPMIx
     * duplicates it through hwloc, rpmix does not copy foreign objects) */
    memset(&info, 0, sizeof(info));
    snprintf(info.key, sizeof(info.key), "%s", PMIX_TOPOLOGY2);
    info.value.type = PMIX_TOPO;
    info.value.data.topo = &given;
    /* and asks for it to be shared with the clients (OpenPMIx shares it only then) */
    {
        pmix_info_t two[2];
        bool yes = true;
        two[0] = info;
        PMIx_Info_load(&two[1], PMIX_SERVER_SHARE_TOPOLOGY, &yes, PMIX_BOOL);
        rc = PMIx_server_init(&module, two, 2);
    }
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "topo_host: PMIx_server_init: %s\n", PMIx_Error_string(rc));
        return 2;
    }
    PMIX_TOPOLOGY_CONSTRUCT(&own);
    rc = PMIx_Load_topology(&own);
    printf("topo_host: own load %s same pointer: %s\n", PMIx_Error_string(rc), own.topology == synth ? "yes" : "no");
    fflush(stdout);
    free(own.source);

    snprintf(nspace, sizeof(nspace), "topo.%d", (int)getpid());
    rc = PMIx_server_register_nspace(nspace, 1, NULL, 0, NULL, NULL);
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED) {
        fprintf(stderr, "topo_host: register_nspace: %s\n", PMIx_Error_string(rc));
        return 2;
    }
    PMIX_LOAD_PROCID(&proc, nspace, 0);
    rc = PMIx_server_register_client(&proc, getuid(), getgid(), NULL, NULL, NULL);
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED) {
        fprintf(stderr, "topo_host: register_client: %s\n", PMIx_Error_string(rc));
        return 2;
    }
    for (char **e = environ; *e; e++) PMIX_ARGV_APPEND(rc, env, *e);
    rc = PMIx_server_setup_fork(&proc, &env);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "topo_host: setup_fork: %s\n", PMIx_Error_string(rc));
        return 2;
    }
    pid = fork();
    if (pid == 0) {
        execve(argv[argi], &argv[argi], env);
        perror("topo_host: exec");
        _exit(127);
    }
    PMIX_ARGV_FREE(env);
    if (pid < 0 || waitpid(pid, &status, 0) != pid) return 2;
    PMIx_server_deregister_nspace(nspace, NULL, NULL);
    PMIx_server_finalize();
    hwloc_topology_destroy(synth);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
