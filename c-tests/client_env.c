/*
 * client_env: what a host's application setup gives each rank. Run as
 *
 *   RPMIX_T_UNSET=gone RPMIX_T_LIST=mid rm_simple -E -n N ./client_env
 *
 * rm_simple -E passes these in the job info to register_nspace:
 *   PMIX_SET_ENVAR RPMIX_T_SET=hello (pmix_envar_t), PMIX_UNSET_ENVAR
 *   RPMIX_T_UNSET, PMIX_PREPEND_ENVAR RPMIX_T_LIST=front ':', PMIX_APPEND_ENVAR
 *   RPMIX_T_LIST=back ':', PMIX_SET_ENVAR "RPMIX_T_STR=via-string" (string
 *   form), and the plain job-level key "rpmix.t.custom"="custom-value";
 * and appends what PMIx_server_setup_application returned (with rpmix's
 * "transport" network backend: the job key, as the directive
 * OMPI_MCA_orte_precondition_transports=<key> and as "rpmix.transport.key").
 *
 * Checks, per rank:
 *   custom job key      PMIx_Get(job, "rpmix.t.custom") == "custom-value"
 *   set (envar)         getenv RPMIX_T_SET == "hello"               [rpmix]
 *   unset               RPMIX_T_UNSET absent                         [rpmix]
 *   prepend+append      RPMIX_T_LIST == "front:mid:back"             [rpmix]
 *   set (string form)   RPMIX_T_STR == "via-string"                  [rpmix]
 *   transport env       OMPI_MCA_orte_precondition_transports set    [rpmix]
 *   transport job key   PMIx_Get(job, "rpmix.transport.key") == env [rpmix]
 *   pnet test env       RPMIX_PNET_TEST == "<nspace>:<rank>"         [rpmix]
 * and on rank 0, after a Put/Commit/Fence/Get exchange of every rank's key:
 *   transport key equal every rank saw the same non-empty key       [rpmix]
 * The transport checks apply when PMIX_MCA_pnet selects "transport" (unset,
 * empty, a list naming it, or "^list" not naming it); the pnet test check
 * when it names "test".
 *
 * [rpmix]: applying directives in setup_fork and the network backends are
 * rpmix's; OpenPMIx leaves both to the host. On a library whose
 * PMIx_Get_version() does not start with "rpmix", a failing [rpmix] check is
 * printed as "rank R: <check>: NOT PROVIDED (rpmix-only) <detail>" and not
 * counted as a failure; on rpmix every check must pass.
 *
 * Output: each failing check "rank R: <check>: FAIL <detail>"; rank 0 sums
 * every rank's counts and prints "client_env: N passed, M failed" (preceded,
 * when some apply, by "client_env: K rpmix-only checks not provided by
 * <library>"). Exit status 0 when M is 0 (rank 0: job total; others: own).
 */
#define _DEFAULT_SOURCE
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "testutil.h" /* me; "rank R: <what>: FAIL <detail>" */

static bool on_rpmix;

static bool list_has(const char *list, const char *name)
{
    size_t n = strlen(name);
    const char *s = list;
    while (*s) {
        const char *e = strchr(s, ',');
        size_t l = e ? (size_t)(e - s) : strlen(s);
        while (l > 0 && *s == ' ') { s++; l--; }
        while (l > 0 && s[l - 1] == ' ') l--;
        if (l == n && strncmp(s, name, n) == 0) return true;
        if (e == NULL) break;
        s = e + 1;
    }
    return false;
}

/* Is the network backend `name` selected by PMIX_MCA_pnet? (rpmix's rule;
 * "test" is never on by default.) */
static bool pnet_selected(const char *name)
{
    const char *spec = getenv("PMIX_MCA_pnet");
    while (spec && *spec == ' ') spec++;
    if (spec == NULL || *spec == '\0') return strcmp(name, "test") != 0;
    if (*spec == '^') return strcmp(name, "test") != 0 && !list_has(spec + 1, name);
    return list_has(spec, name);
}

static void check_env(const char *name, const char *var, const char *want)
{
    const char *v = getenv(var);
    if (want == NULL)
        check_gap(v == NULL, !on_rpmix, name, "%s is set (\"%s\"), expected unset", var, v ? v : "");
    else
        check_gap(v != NULL && strcmp(v, want) == 0, !on_rpmix, name, "%s=%s%s%s, expected \"%s\"", var,
                  v ? "\"" : "", v ? v : "(unset)", v ? "\"" : "", want);
}

/* PMIx_Get of a job-level string: a malloc'd copy, or NULL (*st says why). */
static char *get_job_string(const char *key, pmix_status_t *st)
{
    pmix_proc_t job;
    pmix_value_t *val = NULL;
    char *out = NULL;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    *st = PMIx_Get(&job, key, NULL, 0, &val);
    if (*st == PMIX_SUCCESS && val != NULL) {
        if (val->type == PMIX_STRING && val->data.string != NULL) out = strdup(val->data.string);
        else *st = PMIX_ERR_TYPE_MISMATCH;
    }
    if (val != NULL) PMIX_VALUE_RELEASE(val);
    return out;
}

static pmix_status_t put_string(const char *key, const char *s)
{
    pmix_value_t v;
    pmix_status_t rc;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_STRING;
    v.data.string = (char *)s;
    rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    return rc;
}

static pmix_status_t put_u32(const char *key, uint32_t u)
{
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_UINT32;
    v.data.uint32 = u;
    return PMIx_Put(PMIX_GLOBAL, key, &v);
}

static pmix_status_t fence_all(bool collect)
{
    pmix_proc_t all;
    pmix_info_t info;
    bool flag = collect;
    pmix_status_t rc;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_CONSTRUCT(&info);
    PMIx_Info_load(&info, PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
    rc = PMIx_Fence(&all, 1, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return rc;
}

int main(void)
{
    pmix_status_t rc, st;
    const char *tenv;
    char *s;
    bool transport = pnet_selected("transport");
    uint32_t nranks = 0, r;
    uint32_t tpass = 0, tfail = 0, tnotprov = 0;
    pmix_value_t *val = NULL;
    pmix_proc_t job;
    int exit_code;

    alarm(60);
    setvbuf(stdout, NULL, _IOLBF, 0);
    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        printf("client_env: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    on_rpmix = strncmp(PMIx_Get_version(), "rpmix", 5) == 0;
    tu_gap_word = "NOT PROVIDED (rpmix-only)"; /* an rpmix-only check failing on another library */

    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &val);
    if (rc != PMIX_SUCCESS || val == NULL || val->type != PMIX_UINT32) {
        fail("job size", "%s", PMIx_Error_string(rc));
        PMIx_Finalize(NULL, 0);
        return 1;
    }
    nranks = val->data.uint32;
    PMIX_VALUE_RELEASE(val);

    /* the plain job-level key: every library */
    s = get_job_string("rpmix.t.custom", &st);
    check(s != NULL && strcmp(s, "custom-value") == 0, "custom job key",
          "PMIx_Get(rpmix.t.custom): %s%s%s", s ? "\"" : PMIx_Error_string(st), s ? s : "",
          s ? "\"" : "");
    free(s);

    /* directives applied by setup_fork */
    check_env("set (envar)", "RPMIX_T_SET", "hello");
    check_env("unset", "RPMIX_T_UNSET", NULL);
    check_env("prepend+append", "RPMIX_T_LIST", "front:mid:back");
    check_env("set (string form)", "RPMIX_T_STR", "via-string");

    /* the transport backend */
    tenv = getenv("OMPI_MCA_orte_precondition_transports");
    if (transport) {
        check_gap(tenv != NULL && tenv[0] != '\0', !on_rpmix, "transport env",
                  "OMPI_MCA_orte_precondition_transports %s", tenv ? "is empty" : "is not set");
        s = get_job_string("rpmix.transport.key", &st);
        check_gap(s != NULL && tenv != NULL && strcmp(s, tenv) == 0, !on_rpmix, "transport job key",
                  "PMIx_Get(rpmix.transport.key): %s%s%s, env: %s", s ? "\"" : PMIx_Error_string(st),
                  s ? s : "", s ? "\"" : "", tenv ? tenv : "(unset)");
        free(s);
    }
    if (pnet_selected("test")) {
        char want[PMIX_MAX_NSLEN + 16];
        snprintf(want, sizeof(want), "%s:%u", me.nspace, (unsigned)me.rank);
        check_env("pnet test env", "RPMIX_PNET_TEST", want);
    }

    /* exchange: every rank's key and counts */
    rc = put_string("cenv.tkey", tenv ? tenv : "");
    if (rc == PMIX_SUCCESS) rc = put_u32("cenv.pass", (uint32_t)npass);
    if (rc == PMIX_SUCCESS) rc = put_u32("cenv.fail", (uint32_t)nfail);
    if (rc == PMIX_SUCCESS) rc = put_u32("cenv.np", (uint32_t)ngap);
    if (rc == PMIX_SUCCESS) rc = PMIx_Commit();
    if (rc == PMIX_SUCCESS) rc = fence_all(true);
    if (rc != PMIX_SUCCESS) {
        fail("exchange", "%s", PMIx_Error_string(rc));
        PMIx_Finalize(NULL, 0);
        return 1;
    }

    exit_code = nfail ? 1 : 0;
    if (me.rank == 0) {
        char *first = NULL;
        bool same = true, complete = true;
        char detail[512] = "";
        for (r = 0; r < nranks; r++) {
            pmix_proc_t p;
            char *k = NULL;
            uint32_t c[3] = {0, 0, 0};
            const char *keys[3] = {"cenv.pass", "cenv.fail", "cenv.np"};
            int i;
            PMIX_LOAD_PROCID(&p, me.nspace, r);
            val = NULL;
            rc = PMIx_Get(&p, "cenv.tkey", NULL, 0, &val);
            if (rc == PMIX_SUCCESS && val && val->type == PMIX_STRING && val->data.string)
                k = strdup(val->data.string);
            if (val) PMIX_VALUE_RELEASE(val);
            for (i = 0; i < 3; i++) {
                val = NULL;
                rc = PMIx_Get(&p, keys[i], NULL, 0, &val);
                if (rc == PMIX_SUCCESS && val && val->type == PMIX_UINT32) c[i] = val->data.uint32;
                else complete = false;
                if (val) PMIX_VALUE_RELEASE(val);
            }
            if (!complete) {
                printf("rank 0: collect: FAIL no counts from rank %u\n", (unsigned)r);
                tfail++;
                complete = true;
            }
            tpass += c[0];
            tfail += c[1];
            tnotprov += c[2];
            if (k == NULL) {
                same = false;
                snprintf(detail + strlen(detail), sizeof(detail) - strlen(detail),
                         " rank %u: no key;", (unsigned)r);
            } else if (first == NULL) {
                first = k;
                k = NULL;
                if (first[0] == '\0') same = false;
                snprintf(detail + strlen(detail), sizeof(detail) - strlen(detail),
                         " rank 0: \"%s\";", first);
            } else if (strcmp(first, k) != 0) {
                same = false;
                snprintf(detail + strlen(detail), sizeof(detail) - strlen(detail),
                         " rank %u: \"%s\";", (unsigned)r, k);
            }
            free(k);
        }
        free(first);
        if (transport) {
            /* counted into the totals directly (rank 0's own counts are in already) */
            uint32_t p0 = (uint32_t)npass, f0 = (uint32_t)nfail, n0 = (uint32_t)ngap;
            check_gap(same, !on_rpmix, "transport key equal", "keys differ or are empty:%s", detail);
            tpass += (uint32_t)npass - p0;
            tfail += (uint32_t)nfail - f0;
            tnotprov += (uint32_t)ngap - n0;
        }
        if (tnotprov > 0)
            printf("client_env: %u rpmix-only checks not provided by %s\n", (unsigned)tnotprov,
                   PMIx_Get_version());
        printf("client_env: %u passed, %u failed\n", (unsigned)tpass, (unsigned)tfail);
        exit_code = tfail ? 1 : 0;
    }

    /* nobody leaves before rank 0 has read everything */
    rc = fence_all(false);
    if (rc != PMIX_SUCCESS) {
        fail("final fence", "%s", PMIx_Error_string(rc));
        exit_code = 1;
    }
    PMIx_Finalize(NULL, 0);
    return exit_code;
}
