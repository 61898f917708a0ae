/*
 * client_topology: PMIx_Load_topology as a program that uses hwloc sees it.
 * Built against OpenPMIx's headers and linked with -lhwloc; one rank prints
 *
 *   client_topology: load <status> source=<source>
 *   client_topology: cores=<n> pus=<n> (the topology walked with hwloc)
 *   client_topology: same as hwloc_topology_load: yes|no
 *   client_topology: second load <status>, same topology: yes|no
 *   client_topology: distances <status> n=<n> (PMIx_Get_cpuset's set), then
 *     one line per device: uuid=<uuid> osname=<name> type=<t> min=<d> max=<d>
 *   client_topology: distances (own hwloc bitmap) <status> n=<n>
 *   client_topology: distances_nb <status> n=<n> (the callback's)
 *   client_topology: distances GPU only <status> n=<n>
 *   client_topology: hwloc object layout name=.. (offsets in struct hwloc_obj
 *     that rpmix reads; make test compares them with src/hwlib.rs)
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
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <hwloc.h>
#include <pmix.h>

static volatile int nb_done;
static pmix_status_t nb_status;
static size_t nb_n;

static void dist_cb(pmix_status_t status, pmix_device_distance_t *dist, size_t ndist, void *cbdata,
                    pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void)dist;
    (void)cbdata;
    nb_status = status;
    nb_n = ndist;
    if (release_fn) release_fn(release_cbdata);
    nb_done = 1;
}

static void distances(pmix_topology_t *topo)
{
    pmix_cpuset_t cs, own;
    pmix_device_distance_t *d = NULL;
    size_t n = 0, i;
    pmix_status_t rc;
    pmix_info_t info;
    pmix_device_type_t gpu = PMIX_DEVTYPE_GPU;
    int waited;

    PMIX_CPUSET_CONSTRUCT(&cs);
    rc = PMIx_Get_cpuset(&cs, PMIX_CPUBIND_PROCESS);
    if (rc == PMIX_SUCCESS) rc = PMIx_Compute_distances(topo, &cs, NULL, 0, &d, &n);
    printf("client_topology: distances %s n=%zu\n", PMIx_Error_string(rc), n);
    for (i = 0; i < n; i++)
        printf("client_topology: uuid=%s osname=%s type=%lu min=%u max=%u\n", d[i].uuid, d[i].osname,
               (unsigned long)d[i].type, d[i].mindist, d[i].maxdist);
    if (d) PMIX_DEVICE_DIST_FREE(d, n);

    own.source = "hwloc";
    own.bitmap = hwloc_bitmap_alloc();
    hwloc_get_cpubind(topo->topology, own.bitmap, HWLOC_CPUBIND_PROCESS);
    d = NULL;
    n = 0;
    rc = PMIx_Compute_distances(topo, &own, NULL, 0, &d, &n);
    printf("client_topology: distances (own hwloc bitmap) %s n=%zu\n", PMIx_Error_string(rc), n);
    if (d) PMIX_DEVICE_DIST_FREE(d, n);

    rc = PMIx_Compute_distances_nb(topo, &own, NULL, 0, dist_cb, NULL);
    for (waited = 0; rc == PMIX_SUCCESS && !nb_done && waited < 1000; waited++) usleep(10000);
    printf("client_topology: distances_nb %s n=%zu\n", PMIx_Error_string(rc == PMIX_SUCCESS ? nb_status : rc), nb_n);

    PMIx_Info_load(&info, PMIX_DEVICE_TYPE, &gpu, PMIX_DEVTYPE);
    d = NULL;
    n = 0;
    rc = PMIx_Compute_distances(topo, &own, &info, 1, &d, &n);
    printf("client_topology: distances GPU only %s n=%zu\n", PMIx_Error_string(rc), n);
    if (d) PMIX_DEVICE_DIST_FREE(d, n);
    PMIX_INFO_DESTRUCT(&info);
    hwloc_bitmap_free(own.bitmap);
    /* PMIx_Get_cpuset's set: its bitmap is the library's (an hwloc bitmap in
     * OpenPMIx, a CPU list in rpmix), so it is released by the library */
    PMIx_Cpuset_destruct(&cs);
}

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
    distances(&topo);
    printf("client_topology: hwloc object layout name=%zu attr=%zu depth=%zu next_cousin=%zu parent=%zu "
           "arity=%zu cpuset=%zu infos=%zu infos_count=%zu\n",
           offsetof(struct hwloc_obj, name), offsetof(struct hwloc_obj, attr), offsetof(struct hwloc_obj, depth),
           offsetof(struct hwloc_obj, next_cousin), offsetof(struct hwloc_obj, parent),
           offsetof(struct hwloc_obj, arity), offsetof(struct hwloc_obj, cpuset), offsetof(struct hwloc_obj, infos),
           offsetof(struct hwloc_obj, infos_count));

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
