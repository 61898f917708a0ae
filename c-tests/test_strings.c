/*
 * Differential test: every name the library gives for status codes and
 * enumerations, and the attribute key <-> name lookups. The output must be
 * byte-identical with OpenPMIx's library and with rpmix's.
 */
#include <stdio.h>
#include <string.h>
#include <pmix_tool.h>

static const char *names[] = {"PMIX_JOB_SIZE", "PMIX_NSPACE", "PMIX_RANK", "PMIX_LOCAL_PEERS",
                              "PMIX_REGISTER_CLEANUP", "PMIX_CLEANUP_IGNORE", "PMIX_MONITOR_HEARTBEAT",
                              "PMIX_IOF_TAG_OUTPUT", "PMIX_JOB_CTRL_PAUSE", "PMIX_TMPDIR"};
static const char *keys[] = {"pmix.job.size", "pmix.nspace", "pmix.rank", "pmix.lpeers",
                             "pmix.reg.cleanup", "pmix.clnup.ignore", "pmix.monitor.mbeat",
                             "pmix.iof.tag", "pmix.jctrl.pause", "pmix.tmpdir"};

int main(void)
{
    pmix_proc_t me;
    pmix_info_t info;
    bool t = true;
    int i;
    size_t k;
    char *s;

    PMIx_Info_load(&info, PMIX_TOOL_DO_NOT_CONNECT, &t, PMIX_BOOL);
    (void) PMIx_tool_init(&me, &info, 1);

    for (i = -520; i <= 1; i++) printf("error %d %s\n", i, PMIx_Error_string(i));
    printf("error %d %s\n", -3000, PMIx_Error_string(-3000));
    for (i = 0; i < 256; i++) {
        printf("proc_state %d %s\n", i, PMIx_Proc_state_string((pmix_proc_state_t) i));
        printf("job_state %d %s\n", i, PMIx_Job_state_string((pmix_job_state_t) i));
        printf("scope %d %s\n", i, PMIx_Scope_string((pmix_scope_t) i));
        printf("persistence %d %s\n", i, PMIx_Persistence_string((pmix_persistence_t) i));
        printf("range %d %s\n", i, PMIx_Data_range_string((pmix_data_range_t) i));
        printf("alloc %d %s\n", i, PMIx_Alloc_directive_string((pmix_alloc_directive_t) i));
        printf("link %d %s\n", i, PMIx_Link_state_string((pmix_link_state_t) i));
        printf("iof %d %s\n", i, PMIx_IOF_channel_string((pmix_iof_channel_t) i));
        printf("devtype %d %s\n", i, PMIx_Device_type_string((pmix_device_type_t) i));
        s = PMIx_Info_directives_string((pmix_info_directives_t) i);
        printf("directives %d %s\n", i, s);
        free(s);
    }
    for (i = 1; i <= 69; i++) printf("type %d %s\n", i, PMIx_Data_type_string((pmix_data_type_t) i));
    for (i = 0; i < 6; i++) printf("cmp %d %s\n", i, PMIx_Value_comparison_string((pmix_value_cmp_t) i));
    for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
        printf("attr %s -> %s\n", names[k], PMIx_Get_attribute_string(names[k]));
        printf("attr %s <- %s\n", keys[k], PMIx_Get_attribute_name(keys[k]));
    }
    printf("version starts with a digit >= 3 or a letter: %d\n", PMIx_Get_version()[0] >= '3');
    PMIx_tool_finalize();
    return 0;
}
