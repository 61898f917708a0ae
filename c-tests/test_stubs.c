/*
 * Entry points that later issues implement must answer
 * PMIX_ERR_NOT_SUPPORTED and never fire their callback (the status table of
 * docs/api-status.md lists them; tools/status-table.py keeps that list true).
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>

#define TESTUTIL_CHECKS_ONLY
#include "testutil.h"

static int fired;

static void opcb(pmix_status_t status, void *cbdata) { (void) status; (void) cbdata; fired++; }

/* "<what>: ok (<status>)" or "<what>: FAIL (<status>)" */
static void expect(const char *what, pmix_status_t rc)
{
    check(rc == PMIX_ERR_NOT_SUPPORTED, what, "(%s)", PMIx_Error_string(rc));
}

int main(void)
{
    pmix_proc_t proc;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_value_t *val = NULL;
    pmix_server_module_t module;
    char *env[] = {NULL};
    char **envp = env;

    tu_every = true;

    PMIX_LOAD_PROCID(&proc, "ns", 0);
    memset(&module, 0, sizeof(module));
    (void) envp;
    (void) val;
    (void) res; (void) nres;
    {
        pmix_fabric_t fabric;
        PMIX_FABRIC_CONSTRUCT(&fabric);
        expect("PMIx_Fabric_register_nb", PMIx_Fabric_register_nb(&fabric, NULL, 0, opcb, NULL));
        expect("PMIx_Fabric_update_nb", PMIx_Fabric_update_nb(&fabric, opcb, NULL));
    }
    {
        char fn[] = "PMIx_Get";
        expect("PMIx_Register_attributes", PMIx_Register_attributes(fn, NULL));
    }
    usleep(100000);
    printf("callbacks fired: %d\n", fired);
    if (fired != 0) nfail++; /* not a line of its own: the count above says it */
    return tu_summary(NULL);
}
