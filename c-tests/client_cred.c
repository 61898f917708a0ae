/*
 * client_cred: PMIx_Get_credential and PMIx_Validate_credential through a
 * host that answers them (rm_simple's toy scheme: the credential of rank r
 * of namespace ns is the bytes "rm-cred:<ns>:<r>", with PMIX_CRED_TYPE
 * "rm-simple").
 *
 *   client_cred
 *
 * Each rank:
 *   1. PMIx_Get_credential_nb: success, exactly the bytes the scheme gives
 *      it, and PMIX_CRED_TYPE "rm-simple" among the callback's infos;
 *   2. PMIx_Get_credential (blocking): the same bytes;
 *   3. PMIx_Validate_credential of them: success, PMIX_CRED_TYPE back;
 *   4. the same with the last byte changed: PMIX_ERR_INVALID_CRED;
 * and prints "client_cred: rank <r>: all checks passed" or one line per
 * failed check. Exit status: 0 when every check passed, 1 otherwise.
 */
#define _POSIX_C_SOURCE 200809L
#include <pmix.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testutil.h"

struct credwait {
    pthread_mutex_t m;
    pthread_cond_t c;
    bool done;
    pmix_status_t status;
    pmix_byte_object_t cred;
    char type[64];
};

static void cred_cb(pmix_status_t status, pmix_byte_object_t *credential, pmix_info_t info[],
                    size_t ninfo, void *cbdata)
{
    struct credwait *w = cbdata;
    size_t i;
    pthread_mutex_lock(&w->m);
    w->status = status;
    if (credential && credential->size > 0 && credential->size < 4096) {
        w->cred.bytes = malloc(credential->size);
        memcpy(w->cred.bytes, credential->bytes, credential->size);
        w->cred.size = credential->size;
    }
    for (i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_CRED_TYPE) && info[i].value.type == PMIX_STRING)
            snprintf(w->type, sizeof(w->type), "%s", info[i].value.data.string);
    w->done = true;
    pthread_cond_signal(&w->c);
    pthread_mutex_unlock(&w->m);
}

static bool same(const pmix_byte_object_t *bo, const char *want)
{
    return bo->size == strlen(want) && memcmp(bo->bytes, want, bo->size) == 0;
}

static const char *shown(const pmix_byte_object_t *bo, char *buf, size_t len)
{
    size_t n = bo->size < len - 1 ? bo->size : len - 1;
    if (bo->bytes) memcpy(buf, bo->bytes, n);
    buf[bo->bytes ? n : 0] = '\0';
    return buf;
}

int main(void)
{
    char want[PMIX_MAX_NSLEN + 32], buf[256], type[64] = "";
    struct credwait w = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, PMIX_ERROR, { NULL, 0 }, "" };
    pmix_byte_object_t cred = { NULL, 0 };
    pmix_info_t *info = NULL;
    size_t ninfo = 0, i;
    struct timespec until;
    pmix_status_t rc;

    if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
        printf("client_cred: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    tu_set_prefix("client_cred: rank %u: ", (unsigned)me.rank); /* "client_cred: rank R: <what>: FAIL ..." */
    snprintf(want, sizeof(want), "rm-cred:%s:%u", me.nspace, (unsigned)me.rank);

    /* 1. non-blocking */
    rc = PMIx_Get_credential_nb(NULL, 0, cred_cb, &w);
    if (rc != PMIX_SUCCESS) {
        fail("Get_credential_nb", "returned %s", PMIx_Error_string(rc));
    } else {
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 10;
        pthread_mutex_lock(&w.m);
        while (!w.done && pthread_cond_timedwait(&w.c, &w.m, &until) == 0) {}
        pthread_mutex_unlock(&w.m);
        if (!w.done) fail("Get_credential_nb", "%s", "no callback within 10 s");
        else if (w.status != PMIX_SUCCESS) fail("Get_credential_nb", "callback status %s", PMIx_Error_string(w.status));
        else if (!same(&w.cred, want)) fail("Get_credential_nb", "credential \"%s\"", shown(&w.cred, buf, sizeof(buf)));
        else if (strcmp(w.type, "rm-simple") != 0) fail("Get_credential_nb", "PMIX_CRED_TYPE \"%s\"", w.type);
    }
    free(w.cred.bytes);

    /* 2. blocking */
    rc = PMIx_Get_credential(NULL, 0, &cred);
    if (rc != PMIX_SUCCESS) fail("Get_credential", "returned %s", PMIx_Error_string(rc));
    else if (!same(&cred, want)) fail("Get_credential", "credential \"%s\"", shown(&cred, buf, sizeof(buf)));

    if (rc == PMIX_SUCCESS && cred.size > 0) {
        /* 3. valid */
        rc = PMIx_Validate_credential(&cred, NULL, 0, &info, &ninfo);
        if (rc != PMIX_SUCCESS) fail("Validate_credential", "returned %s", PMIx_Error_string(rc));
        for (i = 0; i < ninfo; i++)
            if (PMIX_CHECK_KEY(&info[i], PMIX_CRED_TYPE) && info[i].value.type == PMIX_STRING)
                snprintf(type, sizeof(type), "%s", info[i].value.data.string);
        if (rc == PMIX_SUCCESS && strcmp(type, "rm-simple") != 0)
            fail("Validate_credential", "PMIX_CRED_TYPE \"%s\"", type);
        if (info) PMIX_INFO_FREE(info, ninfo);
        info = NULL;
        ninfo = 0;

        /* 4. tampered */
        cred.bytes[cred.size - 1] ^= 0x01;
        rc = PMIx_Validate_credential(&cred, NULL, 0, &info, &ninfo);
        if (rc != PMIX_ERR_INVALID_CRED)
            fail("Validate_credential (changed byte)", "returned %s, expected INVALID-CRED", PMIx_Error_string(rc));
        if (info) PMIX_INFO_FREE(info, ninfo);
    }
    PMIX_BYTE_OBJECT_DESTRUCT(&cred);

    if (nfail == 0) printf("client_cred: rank %u: all checks passed\n", (unsigned)me.rank);
    fflush(stdout);
    PMIx_Finalize(NULL, 0);
    return nfail == 0 ? 0 : 1;
}
