/*
 * topo_data: PMIX_TOPO values holding an hwloc topology (a synthetic one,
 * 2 packages x 3 cores x 2 PUs), through the data API: pack/unpack, copy,
 * value load, print. Built against OpenPMIx's headers, run on both
 * libraries; prints one line per operation:
 *   topo_data: <op> <status> pus=<PUs of the result> distinct=<yes|no>
 * (distinct: the result holds its own topology, not the original's) and the
 * print's first line; a failed check as testutil.h prints it, and last
 * "topo_data: N passed, M failed". Exit 0 when every call succeeded.
 *
 *   topo_data [topology.xml]   the topology from that XML file instead
 *                              (valgrind runs: hwloc's synthetic parser
 *                              itself trips valgrind)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <hwloc.h>
#include <pmix.h>

#define TESTUTIL_CHECKS_ONLY
#include "testutil.h"

static hwloc_topology_t orig;

static void report(const char *op, pmix_status_t rc, const pmix_topology_t *t)
{
    int pus = -1;
    if (rc == PMIX_SUCCESS && t && t->topology) pus = hwloc_get_nbobjs_by_type((hwloc_topology_t)t->topology, HWLOC_OBJ_PU);
    printf("topo_data: %s %s pus=%d distinct=%s source=%s\n", op, PMIx_Error_string(rc), pus,
           t && t->topology && t->topology != (void *)orig ? "yes" : "no", t && t->source ? t->source : "(null)");
    check(rc == PMIX_SUCCESS && pus == 12, op, "%s pus=%d (want 12)", PMIx_Error_string(rc), pus);
}

int main(int argc, char **argv)
{
    pmix_topology_t t, *copy = NULL, unpacked;
    pmix_data_buffer_t buf;
    pmix_value_t v;
    pmix_status_t rc;
    int32_t n = 1;
    char *out = NULL, *nl;

    pmix_proc_t me;
    setvbuf(stdout, NULL, _IOLBF, 0);
    tu_set_prefix("topo_data: ");
    PMIx_Init(&me, NULL, 0); /* (a singleton: no server needed; OpenPMIx's data types need init) */
    if (hwloc_topology_init(&orig) != 0 ||
        (argc > 1 ? hwloc_topology_set_xml(orig, argv[1]) : hwloc_topology_set_synthetic(orig, "pack:2 core:3 pu:2")) != 0 ||
        hwloc_topology_load(orig) != 0)
        return 2;
    t.source = "hwloc";
    t.topology = orig;

    PMIX_DATA_BUFFER_CONSTRUCT(&buf);
    rc = PMIx_Data_pack(NULL, &buf, &t, 1, PMIX_TOPO);
    printf("topo_data: pack %s\n", PMIx_Error_string(rc));
    check_status("pack", rc, PMIX_SUCCESS);
    memset(&unpacked, 0, sizeof(unpacked));
    rc = rc == PMIX_SUCCESS ? PMIx_Data_unpack(NULL, &buf, &unpacked, &n, PMIX_TOPO) : rc;
    report("unpack", rc, &unpacked);
    PMIX_DATA_BUFFER_DESTRUCT(&buf);

    rc = PMIx_Data_copy((void **)&copy, &t, PMIX_TOPO);
    report("copy", rc, copy);

    PMIX_VALUE_CONSTRUCT(&v);
    rc = PMIx_Value_load(&v, &t, PMIX_TOPO);
    report("value_load", rc, v.data.topo);

    rc = PMIx_Data_print(&out, NULL, &t, PMIX_TOPO);
    if (out) {
        nl = strchr(out, '\n');
        if (nl) *nl = '\0';
    }
    printf("topo_data: print %s '%s'\n", PMIx_Error_string(rc), out ? out : "(null)");
    free(out);

    PMIx_Value_destruct(&v);
    if (copy) {
        PMIx_Topology_destruct(copy);
        free(copy);
    }
    PMIx_Topology_destruct(&unpacked);
    hwloc_topology_destroy(orig);
    PMIx_Finalize(NULL, 0);
    return tu_summary("topo_data");
}
