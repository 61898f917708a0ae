/*
 * make demo: what a resource manager does with the data utilities before any
 * process starts. Build the job description (job and per-rank info) with an
 * info list, pack it for the wire, compress it, then unpack it the way the
 * receiving daemon would and print what arrived.
 */
#include <stdio.h>
#include <string.h>
#include <pmix.h>

#define NRANKS 4

int main(void)
{
    void *list = PMIx_Info_list_start();
    pmix_data_array_t job, ranks[NRANKS];
    pmix_data_buffer_t wire, rx;
    pmix_byte_object_t payload;
    uint32_t size = NRANKS, r;
    uint8_t *packed_z = NULL, *unz = NULL;
    size_t nz = 0, nunz = 0;
    pmix_info_t *got;
    int32_t n;
    size_t i;
    pmix_status_t rc;

    printf("library: %s\n", PMIx_Get_version());
    PMIx_Info_list_add(list, PMIX_NSPACE, "demo.job.1", PMIX_STRING);
    PMIx_Info_list_add(list, PMIX_JOB_SIZE, &size, PMIX_UINT32);
    PMIx_Info_list_add(list, PMIX_NODE_LIST, "node01,node02", PMIX_STRING);
    for (r = 0; r < NRANKS; r++) {
        void *pl = PMIx_Info_list_start();
        uint16_t lrank = (uint16_t) (r % 2);
        char host[16];
        snprintf(host, sizeof host, "node0%u", r / 2 + 1);
        PMIx_Info_list_add(pl, PMIX_RANK, &r, PMIX_PROC_RANK);
        PMIx_Info_list_add(pl, PMIX_LOCAL_RANK, &lrank, PMIX_UINT16);
        PMIx_Info_list_add(pl, PMIX_HOSTNAME, host, PMIX_STRING);
        PMIx_Info_list_convert(pl, &ranks[r]);
        PMIx_Info_list_release(pl);
        PMIx_Info_list_add(list, PMIX_PROC_INFO_ARRAY, &ranks[r], PMIX_DATA_ARRAY);
        PMIx_Data_array_destruct(&ranks[r]);
    }
    rc = PMIx_Info_list_convert(list, &job);
    PMIx_Info_list_release(list);
    printf("job description: %zu infos (%s)\n", job.size, PMIx_Error_string(rc));

    PMIX_DATA_BUFFER_CONSTRUCT(&wire);
    rc = PMIx_Data_pack(NULL, &wire, &job, 1, PMIX_DATA_ARRAY);
    printf("packed: %zu bytes (%s)\n", wire.bytes_used, PMIx_Error_string(rc));
    if (PMIx_Data_compress((uint8_t *) wire.base_ptr, wire.bytes_used, &packed_z, &nz)) {
        printf("compressed: %zu bytes\n", nz);
        PMIx_Data_decompress(packed_z, nz, &unz, &nunz);
        printf("decompressed: %zu bytes, identical: %s\n", nunz,
               nunz == wire.bytes_used && memcmp(unz, wire.base_ptr, nunz) == 0 ? "yes" : "no");
    }

    payload.bytes = (char *) unz;
    payload.size = nunz;
    PMIX_DATA_BUFFER_CONSTRUCT(&rx);
    PMIx_Data_load(&rx, &payload);
    n = 1;
    PMIx_Data_array_destruct(&job);
    rc = PMIx_Data_unpack(NULL, &rx, &job, &n, PMIX_DATA_ARRAY);
    printf("unpacked: %d array (%s)\n", n, PMIx_Error_string(rc));
    got = (pmix_info_t *) job.array;
    for (i = 0; i < job.size; i++) {
        char *text = PMIx_Info_string(&got[i]);
        printf("  %s\n", text);
        free(text);
    }
    PMIx_Data_array_destruct(&job);
    PMIX_DATA_BUFFER_DESTRUCT(&rx);
    PMIX_DATA_BUFFER_DESTRUCT(&wire);
    free(packed_z);
    return rc == PMIX_SUCCESS ? 0 : 1;
}
