/*
 * client_topology: PMIx_Load_topology as a program that uses hwloc sees it.
 * Built against OpenPMIx's headers and linked with -lhwloc; one rank prints
 *
 *   client_topology: load <status> source=<source>
 *   client_topology: cores=<n> pus=<n> (the topology walked with hwloc)
 *   client_topology: same as hwloc_topology_load: yes|no
 *   client_topology: second load <status>, same topology: yes|no
 *
 * and exits 0 when the topology was loaded and matched this process's own
 * hwloc discovery. The topology is destructed once (OpenPMIx 4.2.2 destroys
 * the shared one, so a second destruct would crash it).
 *
 *   client_topology reload   also: after the destruct, load again and walk
 *                            it ("client_topology: reload <status> pus=<n>").
 *                            OpenPMIx 4.2.2 hands back the topology its
 *                            destruct destroyed and crashes here.
 */
#include <stdio.h>
#include <string.h>
#include <hwloc.h>
#include <pmix.h>

static int count(hwloc_topology_t t, hwloc_obj_type_t type)
{
    return hwloc_get_nbobjs_by_type(t, type);
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    pmix_topology_t topo, again;
    hwloc_topology_t own;
    pmix_status_t rc;
    int cores, pus, same;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
        printf("client_topology: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    PMIX_TOPOLOGY_CONSTRUCT(&topo);
    rc = PMIx_Load_topology(&topo);
    printf("client_topology: load %s source=%s\n", PMIx_Error_string(rc), topo.source ? topo.source : "(none)");
    if (rc != PMIX_SUCCESS || topo.topology == NULL) {
        PMIx_Finalize(NULL, 0);
        return 1;
    }
    cores = count(topo.topology, HWLOC_OBJ_CORE);
    pus = count(topo.topology, HWLOC_OBJ_PU);
    printf("client_topology: cores=%d pus=%d\n", cores, pus);

    hwloc_topology_init(&own);
    hwloc_topology_load(own);
    same = count(own, HWLOC_OBJ_CORE) == cores && count(own, HWLOC_OBJ_PU) == pus &&
           count(own, HWLOC_OBJ_PACKAGE) == count(topo.topology, HWLOC_OBJ_PACKAGE) &&
           count(own, HWLOC_OBJ_NUMANODE) == count(topo.topology, HWLOC_OBJ_NUMANODE);
    printf("client_topology: same as hwloc_topology_load: %s\n", same ? "yes" : "no");
    hwloc_topology_destroy(own);

    PMIX_TOPOLOGY_CONSTRUCT(&again);
    rc = PMIx_Load_topology(&again);
    printf("client_topology: second load %s, same topology: %s\n", PMIx_Error_string(rc),
           again.topology == topo.topology ? "yes" : "no");
    free(again.source); /* the topology itself is the shared one: destructed once, below */

    PMIx_Topology_destruct(&topo);
    if (argc > 1 && strcmp(argv[1], "reload") == 0) {
        PMIX_TOPOLOGY_CONSTRUCT(&again);
        rc = PMIx_Load_topology(&again);
        printf("client_topology: reload %s pus=%d\n", PMIx_Error_string(rc),
               rc == PMIX_SUCCESS ? count(again.topology, HWLOC_OBJ_PU) : -1);
        same = same && rc == PMIX_SUCCESS && count(again.topology, HWLOC_OBJ_PU) == pus;
        PMIx_Topology_destruct(&again);
    }
    PMIx_Finalize(NULL, 0);
    return same ? 0 : 1;
}
