/*
 * topo_xml: print the XML (hwloc v2 format) of a synthetic hwloc topology,
 * for a host to pass to its clients as their topology (PMIX_HWLOC_XML_V2),
 * so a test can tell it from the real machine's.
 *
 *   topo_xml [synthetic description]    (default "pack:2 core:3 pu:2")
 */
#include <stdio.h>
#include <hwloc.h>
#include <hwloc/export.h>

int main(int argc, char **argv)
{
    hwloc_topology_t t;
    char *xml = NULL;
    int len = 0;
    const char *desc = argc > 1 ? argv[1] : "pack:2 core:3 pu:2";

    if (hwloc_topology_init(&t) != 0 || hwloc_topology_set_synthetic(t, desc) != 0 || hwloc_topology_load(t) != 0) {
        fprintf(stderr, "topo_xml: cannot build the synthetic topology '%s'\n", desc);
        return 1;
    }
    if (hwloc_topology_export_xmlbuffer(t, &xml, &len, 0) != 0) {
        fprintf(stderr, "topo_xml: cannot export it\n");
        return 1;
    }
    fputs(xml, stdout);
    hwloc_free_xmlbuffer(t, xml);
    hwloc_topology_destroy(t);
    return 0;
}
