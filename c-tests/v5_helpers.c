/* The header helpers of OpenPMIx 4.2.3-5.0 (macros that call exported
 * functions there: PMIx_Info_create, PMIx_Load_procid, PMIx_Argv_*,
 * PMIx_Data_buffer_*, ...). Built against OpenPMIx 5.0.7's headers it calls
 * those functions; run on OpenPMIx 5.0.7 and on rpmix the output must be the
 * same (tools/newer-tests.sh), and clean under valgrind.
 *
 *   v5_helpers            no server needed: every helper, one line each
 *   v5_helpers client     under a launcher: init, Put/Commit/Fence, Get of a
 *                         peer's key with the helpers, finalize
 */
#define _GNU_SOURCE
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed;

static void line(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void line(const char *what, const char *fmt, ...)
{
    va_list ap;
    printf("%s: ", what);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

static void argv_helpers(void)
{
    char **argv = NULL, **copy = NULL, *joined = NULL;
    int n = 0;
    PMIX_ARGV_APPEND(failed, argv, "b");
    PMIX_ARGV_APPEND(failed, argv, "c");
    PMIX_ARGV_PREPEND(failed, argv, "a");
    PMIX_ARGV_APPEND_UNIQUE(failed, &argv, "b");
    PMIX_ARGV_APPEND_UNIQUE(failed, &argv, "d");
    PMIX_ARGV_JOIN(joined, argv, ',');
    PMIX_ARGV_COUNT(n, argv);
    line("argv", "%d [%s]", n, joined);
    free(joined);
    PMIX_ARGV_COPY(copy, argv);
    PMIX_ARGV_FREE(argv);
    PMIX_ARGV_JOIN(joined, copy, ':');
    PMIX_ARGV_COUNT(n, copy);
    line("argv copy", "%d [%s]", n, joined);
    free(joined);
    PMIX_ARGV_FREE(copy);
    PMIX_ARGV_SPLIT(argv, "x,,y,z", ',');
    PMIX_ARGV_JOIN(joined, argv, '|');
    PMIX_ARGV_COUNT(n, argv);
    line("argv split", "%d [%s]", n, joined);
    free(joined);
    PMIX_ARGV_FREE(argv);
}

static void names(void)
{
    pmix_proc_t p, q;
    pmix_info_t keyed;
    pmix_nspace_t ns;
    PMIX_INFO_CONSTRUCT(&keyed);
    PMIX_LOAD_KEY(keyed.key, "my.key");
    line("key", "%s check=%d other=%d", keyed.key, PMIX_CHECK_KEY(&keyed, "my.key"), PMIX_CHECK_KEY(&keyed, "no"));
    PMIX_LOAD_NSPACE(ns, "job.1");
    line("nspace", "%s check=%d invalid=%d", ns, PMIX_CHECK_NSPACE(ns, "job.1"), PMIX_NSPACE_INVALID(ns));
    PMIX_LOAD_PROCID(&p, "job.1", 3);
    PMIX_XFER_PROCID(&q, &p);
    line("procid", "%s:%u check=%d rank=%d wildcard=%d invalid=%d", q.nspace, q.rank, PMIX_CHECK_PROCID(&p, &q),
         PMIX_CHECK_RANK(3, 3), PMIX_CHECK_RANK(3, PMIX_RANK_WILDCARD), PMIX_PROCID_INVALID(&p));
    line("reserved key", "pmix.x=%d other=%d", PMIX_CHECK_RESERVED_KEY("pmix.x"), PMIX_CHECK_RESERVED_KEY("mine"));
}

static void infos(void)
{
    pmix_info_t *info;
    uint32_t u = 7;
    bool t = true;
    size_t n = 3;
    PMIX_INFO_CREATE(info, n);
    PMIX_INFO_LOAD(&info[0], "k.u32", &u, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], "k.str", "hello", PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], "k.bool", &t, PMIX_BOOL);
    PMIX_INFO_REQUIRED(&info[0]);
    PMIX_INFO_SET_END(&info[2]);
    line("info", "%u %s req=%d opt=%d end=%d true=%d", info[0].value.data.uint32, info[1].value.data.string,
         PMIX_INFO_IS_REQUIRED(&info[0]), PMIX_INFO_IS_OPTIONAL(&info[1]), PMIX_INFO_IS_END(&info[2]),
         (int) PMIX_INFO_TRUE(&info[2]));
    PMIX_INFO_FREE(info, n);
}

static void values(void)
{
    pmix_value_t *v;
    PMIX_VALUE_CREATE(v, 2);
    PMIX_VALUE_LOAD(&v[0], "text", PMIX_STRING);
    PMIX_VALUE_LOAD(&v[1], "true", PMIX_STRING);
    line("value", "%s type=%d", v[0].data.string, v[0].type);
    PMIX_VALUE_FREE(v, 2);
}

static void buffers(void)
{
    pmix_data_buffer_t *b;
    pmix_byte_object_t bo;
    char *payload = malloc(4);
    memcpy(payload, "abcd", 4);
    PMIX_DATA_BUFFER_CREATE(b);
    PMIX_DATA_BUFFER_LOAD(b, payload, 4);
    PMIX_BYTE_OBJECT_CONSTRUCT(&bo);
    PMIX_DATA_BUFFER_UNLOAD(b, bo.bytes, bo.size);
    line("buffer", "%zu bytes [%.*s]", bo.size, (int) bo.size, bo.bytes);
    PMIX_BYTE_OBJECT_DESTRUCT(&bo);
    PMIX_DATA_BUFFER_RELEASE(b);
}

static void structs(void)
{
    pmix_proc_t *procs;
    pmix_app_t *apps;
    pmix_query_t *q;
    pmix_pdata_t *pd;
    pmix_envar_t env;
    pmix_proc_t owner;
    PMIX_PROC_CREATE(procs, 2);
    PMIX_PROC_LOAD(&procs[1], "ns", 1);
    line("procs", "%s:%u", procs[1].nspace, procs[1].rank);
    PMIX_PROC_FREE(procs, 2);
    PMIX_APP_CREATE(apps, 1);
    apps[0].cmd = strdup("prog");
    apps[0].maxprocs = 2;
    line("app", "%s x%d", apps[0].cmd, apps[0].maxprocs);
    PMIX_APP_FREE(apps, 1);
    PMIX_QUERY_CREATE(q, 1);
    PMIX_ARGV_APPEND(failed, q[0].keys, "pmix.qry.ns");
    line("query", "%s", q[0].keys[0]);
    PMIX_QUERY_FREE(q, 1);
    PMIX_PDATA_CREATE(pd, 1);
    PMIX_LOAD_PROCID(&owner, "ns", 0);
    PMIX_PDATA_LOAD(&pd[0], &owner, "pk", "pv", PMIX_STRING);
    line("pdata", "%s=%s", pd[0].key, pd[0].value.data.string);
    PMIX_PDATA_FREE(pd, 1);
    PMIX_ENVAR_LOAD(&env, "VAR", "val", ':');
    line("envar", "%s=%s %c", env.envar, env.value, env.separator);
    PMIX_ENVAR_DESTRUCT(&env);
}

static int client(void)
{
    pmix_proc_t me, peer, wild;
    pmix_value_t *val = NULL;
    pmix_value_t v;
    pmix_info_t *info;
    uint32_t size = 0;
    char key[PMIX_MAX_KEYLEN + 1];
    int rc;

    if (PMIX_SUCCESS != (rc = PMIx_Init(&me, NULL, 0))) {
        printf("v5_helpers client: init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIX_SUCCESS == PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val)) {
        size = val->data.uint32;
        PMIX_VALUE_RELEASE(val);
    }
    PMIX_VALUE_CONSTRUCT(&v);
    PMIX_VALUE_LOAD(&v, &me.rank, PMIX_UINT32);
    PMIX_LOAD_KEY(key, "v5.rank");
    PMIx_Put(PMIX_GLOBAL, key, &v);
    PMIX_VALUE_DESTRUCT(&v);
    PMIx_Commit();
    PMIX_INFO_CREATE(info, 1);
    PMIX_INFO_LOAD(&info[0], PMIX_COLLECT_DATA, NULL, PMIX_BOOL);
    rc = PMIx_Fence(&wild, 1, info, 1);
    PMIX_INFO_FREE(info, 1);
    PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % (size ? size : 1));
    if (rc == PMIX_SUCCESS && PMIX_SUCCESS == (rc = PMIx_Get(&peer, key, NULL, 0, &val))) {
        rc = val->data.uint32 == peer.rank ? PMIX_SUCCESS : PMIX_ERROR;
        PMIX_VALUE_RELEASE(val);
    }
    printf("v5_helpers client %u/%u: %s\n", me.rank, size, rc == PMIX_SUCCESS ? "ok" : PMIx_Error_string(rc));
    PMIx_Finalize(NULL, 0);
    return rc == PMIX_SUCCESS ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "client") == 0) {
        return client();
    }
    argv_helpers();
    names();
    infos();
    values();
    buffers();
    structs();
    line("done", "%s", failed == PMIX_SUCCESS ? "ok" : "an argv helper failed");
    return failed != PMIX_SUCCESS;
}
