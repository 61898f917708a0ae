/*
 * resources_host: PMIx_server_register_resources / _deregister_resources as
 * a resource manager uses them. Built against OpenPMIx's headers, so the
 * same binary runs on rpmix and on OpenPMIx.
 *
 *   resources_host
 *
 * 1. registers resources site.res.a = "one" (string) and site.res.b = 7
 *    (uint32), blocking (no callback), then site.res.c = "three" with a
 *    callback (it must fire once, later);
 * 2. registers namespace ns1, whose job data gives site.res.b = 8 itself;
 * 3. deregisters site.res.a, registers namespace ns2;
 * 4. prints, for each namespace, what a PMIx_Get of each key for the
 *    WILDCARD rank finds in the server ("ns1 site.res.a one", or
 *    "... not found").
 * Lines with "FAIL" report a call that failed. Exit 0 when every call
 * returned as documented.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#define TESTUTIL_CHECKS_ONLY /* a host */
#include "testutil.h"

static pmix_server_module_t module;
static volatile int fired;

static void opcb(pmix_status_t status, void *cbdata)
{
    (void) cbdata;
    /* a line, not a counted failure: the exit status never counted it */
    if (status != PMIX_SUCCESS) printf("FAIL callback status %s\n", PMIx_Error_string(status));
    __sync_fetch_and_add(&fired, 1);
}

static void show(const char *ns, const char *key)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    pmix_info_t opt;
    bool yes = true;
    pmix_status_t rc;
    PMIX_LOAD_PROCID(&p, ns, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    rc = PMIx_Get(&p, key, &opt, 1, &v);
    if (rc != PMIX_SUCCESS || v == NULL) printf("%s %s not found\n", ns, key);
    else if (v->type == PMIX_STRING) printf("%s %s %s\n", ns, key, v->data.string);
    else if (v->type == PMIX_UINT32) printf("%s %s %u\n", ns, key, v->data.uint32);
    else printf("%s %s type %d\n", ns, key, v->type);
    if (v) PMIX_VALUE_RELEASE(v);
}

static void reg_ns(const char *ns, pmix_info_t *extra)
{
    pmix_info_t info[2];
    uint32_t one = 1;
    size_t n = 1;
    pmix_status_t rc;
    PMIX_INFO_LOAD(&info[0], PMIX_JOB_SIZE, &one, PMIX_UINT32);
    if (extra) info[n++] = *extra;
    rc = PMIx_server_register_nspace(ns, 1, info, n, NULL, NULL);
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED) {
        fail("", "register_nspace %s: %s", ns, PMIx_Error_string(rc));
    }
}

int main(void)
{
    pmix_info_t res[2], more, own, gone;
    uint32_t seven = 7, eight = 8;
    pmix_status_t rc;
    int i;
    const char *keys[] = { "site.res.a", "site.res.b", "site.res.c" };

    /* a failed call: "FAIL <call>: <status>" */
    tu_verdict_first = true;
    tu_fail_word = "FAIL ";
    tu_detail_sep = ": ";
    if ((rc = PMIx_server_init(&module, NULL, 0)) != PMIX_SUCCESS) {
        fail("server_init", "%s", PMIx_Error_string(rc));
        return 1;
    }
    PMIX_INFO_LOAD(&res[0], "site.res.a", "one", PMIX_STRING);
    PMIX_INFO_LOAD(&res[1], "site.res.b", &seven, PMIX_UINT32);
    rc = PMIx_server_register_resources(res, 2, NULL, NULL);
    if (rc != PMIX_OPERATION_SUCCEEDED) fail("register_resources (blocking)", "%s", PMIx_Error_string(rc));
    PMIX_INFO_LOAD(&more, "site.res.c", "three", PMIX_STRING);
    rc = PMIx_server_register_resources(&more, 1, opcb, NULL);
    if (rc != PMIX_SUCCESS) fail("register_resources (callback)", "%s", PMIx_Error_string(rc));
    for (i = 0; i < 100 && rc == PMIX_SUCCESS && fired == 0; i++) usleep(10000);
    if (rc == PMIX_SUCCESS && fired != 1) fail("", "the callback fired %d times", fired);

    PMIX_INFO_LOAD(&own, "site.res.b", &eight, PMIX_UINT32);
    reg_ns("ns1", &own);
    PMIX_INFO_LOAD(&gone, "site.res.a", NULL, PMIX_UNDEF);
    rc = PMIx_server_deregister_resources(&gone, 1, NULL, NULL);
    if (rc != PMIX_OPERATION_SUCCEEDED) fail("deregister_resources", "%s", PMIx_Error_string(rc));
    reg_ns("ns2", NULL);

    for (i = 0; i < 3; i++) show("ns1", keys[i]);
    for (i = 0; i < 3; i++) show("ns2", keys[i]);
    fflush(stdout);
    PMIx_server_finalize();
    return nfail ? 1 : 0;
}
