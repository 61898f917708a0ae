/*
 * topology: the CPU-set and locality functions, for a differential test.
 *
 *   topology CPUSET_STRING...
 *
 * As a server (PMIx_server_init, which OpenPMIx needs for these): for each
 * argument prints "loc <arg> <locality string>" (PMIx_server_generate_
 * locality_string of PMIx_Parse_cpuset_string(<arg>)) and "str <arg>
 * <cpuset string>"; then "cpuset <string>" of PMIx_Get_cpuset(PROCESS);
 * then for every pair of the locality strings "rel <i> <j> <status>
 * <locality>" (PMIx_Get_relative_locality, decimal). The driver runs it on
 * both libraries and compares (systests/tests/host.rs: topology_vs_openpmix).
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

int main(int argc, char **argv)
{
    pmix_server_module_t module;
    pmix_cpuset_t cs;
    char *locs[16] = {NULL};
    char *str;
    pmix_status_t rc;
    int i, j, n = argc - 1 < 16 ? argc - 1 : 16;

    memset(&module, 0, sizeof module);
    rc = PMIx_server_init(&module, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("server_init %s\n", PMIx_Error_string(rc));
        return 1;
    }
    for (i = 0; i < n; i++) {
        PMIX_CPUSET_CONSTRUCT(&cs);
        rc = PMIx_Parse_cpuset_string(argv[i + 1], &cs);
        if (rc != PMIX_SUCCESS) {
            printf("parse %s %s\n", argv[i + 1], PMIx_Error_string(rc));
            continue;
        }
        rc = PMIx_server_generate_locality_string(&cs, &locs[i]);
        printf("loc %s %s %s\n", argv[i + 1], PMIx_Error_string(rc), locs[i] ? locs[i] : "(null)");
        str = NULL;
        rc = PMIx_server_generate_cpuset_string(&cs, &str);
        printf("str %s %s %s\n", argv[i + 1], PMIx_Error_string(rc), str ? str : "(null)");
        free(str);
        PMIx_Cpuset_destruct(&cs);
    }
    PMIX_CPUSET_CONSTRUCT(&cs);
    rc = PMIx_Get_cpuset(&cs, PMIX_CPUBIND_PROCESS);
    str = NULL;
    if (rc == PMIX_SUCCESS) PMIx_server_generate_cpuset_string(&cs, &str);
    printf("cpuset %s %s\n", PMIx_Error_string(rc), str ? str : "(null)");
    free(str);
    PMIx_Cpuset_destruct(&cs);
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            pmix_locality_t l = 0;
            if (locs[i] == NULL || locs[j] == NULL) continue;
            rc = PMIx_Get_relative_locality(locs[i], locs[j], &l);
            printf("rel %d %d %s %u\n", i, j, PMIx_Error_string(rc), (unsigned)l);
        }
    }
    for (i = 0; i < n; i++) free(locs[i]);
    PMIx_server_finalize();
    return 0;
}
