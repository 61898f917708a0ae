/*
 * test_macros.c - exercises the function-like PMIx macros and the
 * *_STATIC_INIT initialisers of <pmix_common.h> / <pmix.h>.
 *
 * Every check prints one deterministic line, then a summary; exit status is
 * 0 when everything passed. Built against OpenPMIx's headers and against
 * rpmix's, the output must be identical. Only the data utilities of the
 * library are used (no PMIx_Init needed).
 *
 * The file is also valid C++ so that the macro expansions can be compiled
 * with g++.
 *
 * Where OpenPMIx 4.2.2's own macro cannot be used (it does not compile or
 * misbehaves), the lines marked "OpenPMIx 4.2.2 workaround" do the same
 * job by hand when RPMIX_COMMON_MACROS_H is not defined.
 */
#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TESTUTIL_CHECKS_ONLY
#include "testutil.h"

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = (char *)malloc(n);
    memcpy(d, s, n);
    return d;
}

static const char *str_or_null(const char *s)
{
    return s;
}

/* ---------------------------------------------------------------- */

static void test_keys_and_procs(void)
{
    pmix_key_t key;
    pmix_nspace_t ns, other;
    pmix_info_t info;
    pmix_proc_t p1, p2, p3;
    pmix_proc_t *procs = NULL;
    char longkey[700];
    const char *nullstr = str_or_null(NULL);

    memset(longkey, 'k', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = '\0';

    PMIX_LOAD_KEY(key, "pmix.test.key");
    check_streq("PMIX_LOAD_KEY", key, "pmix.test.key");
    PMIX_LOAD_KEY(key, longkey);
    check_eq("PMIX_LOAD_KEY truncates to PMIX_MAX_KEYLEN", (long long)strlen(key), PMIX_MAX_KEYLEN);
    PMIX_LOAD_KEY(key, nullstr);
    check_eq("PMIX_LOAD_KEY NULL gives empty", (long long)strlen(key), 0);

    PMIX_INFO_CONSTRUCT(&info);
    PMIX_LOAD_KEY(info.key, "pmix.abc");
    check_eq("PMIX_CHECK_KEY same", PMIX_CHECK_KEY(&info, "pmix.abc") ? 1 : 0, 1);
    check_eq("PMIX_CHECK_KEY different", PMIX_CHECK_KEY(&info, "pmix.abd") ? 1 : 0, 0);
    check_eq("PMIX_CHECK_RESERVED_KEY pmix.", PMIX_CHECK_RESERVED_KEY("pmix.foo") ? 1 : 0, 1);
    check_eq("PMIX_CHECK_RESERVED_KEY user", PMIX_CHECK_RESERVED_KEY("user.foo") ? 1 : 0, 0);

    PMIX_LOAD_NSPACE(ns, "job-1");
    PMIX_LOAD_NSPACE(other, "job-2");
    check_streq("PMIX_LOAD_NSPACE", ns, "job-1");
    check_eq("PMIX_NSPACE_INVALID valid", PMIX_NSPACE_INVALID(ns) ? 1 : 0, 0);
    check_eq("PMIX_NSPACE_INVALID NULL", PMIX_NSPACE_INVALID(nullstr) ? 1 : 0, 1);
    check_eq("PMIX_NSPACE_INVALID empty", PMIX_NSPACE_INVALID("") ? 1 : 0, 1);
    check_eq("PMIX_CHECK_NSPACE same", PMIX_CHECK_NSPACE(ns, "job-1") ? 1 : 0, 1);
    check_eq("PMIX_CHECK_NSPACE different", PMIX_CHECK_NSPACE(ns, other) ? 1 : 0, 0);
    check_eq("PMIX_CHECK_NSPACE empty matches", PMIX_CHECK_NSPACE(ns, "") ? 1 : 0, 1);

    PMIX_LOAD_PROCID(&p1, "job-1", 3);
    check_streq("PMIX_LOAD_PROCID nspace", p1.nspace, "job-1");
    check_eq("PMIX_LOAD_PROCID rank", p1.rank, 3);
    PMIX_XFER_PROCID(&p2, &p1);
    check_eq("PMIX_XFER_PROCID", PMIX_CHECK_PROCID(&p1, &p2) ? 1 : 0, 1);
    p2.rank = 4;
    check_eq("PMIX_CHECK_PROCID other rank", PMIX_CHECK_PROCID(&p1, &p2) ? 1 : 0, 0);
    p2.rank = PMIX_RANK_WILDCARD;
    check_eq("PMIX_CHECK_PROCID wildcard", PMIX_CHECK_PROCID(&p1, &p2) ? 1 : 0, 1);
    PMIX_PROCID_XFER(&p3, &p1);
    PMIX_LOAD_NSPACE(p3.nspace, "job-2");
    check_eq("PMIX_CHECK_PROCID other nspace", PMIX_CHECK_PROCID(&p1, &p3) ? 1 : 0, 0);
    check_eq("PMIX_CHECK_RANK same", PMIX_CHECK_RANK(p1.rank, 3) ? 1 : 0, 1);
    check_eq("PMIX_CHECK_RANK differ", PMIX_CHECK_RANK(p1.rank, 7) ? 1 : 0, 0);
    check_eq("PMIX_CHECK_RANK wildcard", PMIX_CHECK_RANK(PMIX_RANK_WILDCARD, p1.rank) ? 1 : 0, 1);
    check_eq("PMIX_PROCID_INVALID valid", PMIX_PROCID_INVALID(&p1) ? 1 : 0, 0);
    p3.rank = PMIX_RANK_INVALID;
    check_eq("PMIX_PROCID_INVALID bad rank", PMIX_PROCID_INVALID(&p3) ? 1 : 0, 1);
    PMIX_LOAD_PROCID(&p3, nullstr, 0);
    check_eq("PMIX_PROCID_INVALID empty nspace", PMIX_PROCID_INVALID(&p3) ? 1 : 0, 1);
    check_eq("PMIX_RANK_IS_VALID 5", PMIX_RANK_IS_VALID(p1.rank + 2) ? 1 : 0, 1);
    check_eq("PMIX_RANK_IS_VALID wildcard", PMIX_RANK_IS_VALID(PMIX_RANK_WILDCARD) ? 1 : 0, 0);
    check_eq("PMIX_SYSTEM_EVENT base", PMIX_SYSTEM_EVENT(PMIX_EVENT_SYS_BASE) ? 1 : 0, 1);
    check_eq("PMIX_SYSTEM_EVENT other", PMIX_SYSTEM_EVENT(PMIX_EVENT_SYS_OTHER) ? 1 : 0, 1);
    check_eq("PMIX_SYSTEM_EVENT not", PMIX_SYSTEM_EVENT(PMIX_ERR_NOMEM) ? 1 : 0, 0);

    {
        pmix_proc_t sp = PMIX_PROC_STATIC_INIT;
        check_eq("PMIX_PROC_STATIC_INIT rank", sp.rank, PMIX_RANK_UNDEF);
        check_eq("PMIX_PROC_STATIC_INIT nspace", (long long)strlen(sp.nspace), 0);
        PMIX_PROC_LOAD(&sp, "job-9", 2);
        check_streq("PMIX_PROC_LOAD nspace", sp.nspace, "job-9");
        check_eq("PMIX_PROC_LOAD rank", sp.rank, 2);
        PMIX_PROC_DESTRUCT(&sp);
        PMIX_PROC_CONSTRUCT(&sp);
        check_eq("PMIX_PROC_CONSTRUCT", (long long)sp.rank + (long long)strlen(sp.nspace), 0);
    }

    PMIX_PROC_CREATE(procs, 0);
    check_eq("PMIX_PROC_CREATE 0 is NULL", NULL == procs, 1);
    PMIX_PROC_CREATE(procs, 3);
    check_eq("PMIX_PROC_CREATE zeroed", (long long)procs[2].rank + procs[2].nspace[0], 0);
    PMIX_PROC_LOAD(&procs[1], "job-1", 1);
    PMIX_PROC_FREE(procs, 3);
    check_eq("PMIX_PROC_FREE nulls", NULL == procs, 1);
    PMIX_PROC_CREATE(procs, 1);
    PMIX_PROC_RELEASE(procs);
    check_eq("PMIX_PROC_RELEASE nulls", NULL == procs, 1);

    {
        pmix_nspace_t full, cluster, job;
        memset(cluster, 0, sizeof(cluster));
        memset(job, 0, sizeof(job));
        PMIX_MULTICLUSTER_NSPACE_CONSTRUCT(full, "clusterA", "job-5");
        check_streq("PMIX_MULTICLUSTER_NSPACE_CONSTRUCT", full, "clusterA:job-5");
        PMIX_MULTICLUSTER_NSPACE_PARSE(full, cluster, job);
        check_streq("PMIX_MULTICLUSTER_NSPACE_PARSE cluster", cluster, "clusterA");
        check_streq("PMIX_MULTICLUSTER_NSPACE_PARSE nspace", job, "job-5");
        PMIX_MULTICLUSTER_NSPACE_CONSTRUCT(full, longkey + 400, "job-5");
        check_streq("PMIX_MULTICLUSTER_NSPACE_CONSTRUCT too long", full, "");
    }
}

/* ---------------------------------------------------------------- */

static void test_argv(void)
{
    char **argv = NULL, **copy = NULL, **split = NULL;
    char **env = NULL;
    char *joined = NULL;
    char longfield[600];
    char splitsrc[700];
    int rc, n = -1;

    PMIX_ARGV_APPEND(rc, argv, "b");
    check_eq("PMIX_ARGV_APPEND rc", rc, PMIX_SUCCESS);
    PMIX_ARGV_APPEND(rc, argv, "c");
    PMIX_ARGV_PREPEND(rc, argv, "a");
    check_eq("PMIX_ARGV_PREPEND rc", rc, PMIX_SUCCESS);
    PMIX_ARGV_APPEND_UNIQUE(rc, &argv, "c");
    check_eq("PMIX_ARGV_APPEND_UNIQUE existing rc", rc, PMIX_SUCCESS);
    PMIX_ARGV_APPEND_UNIQUE(rc, &argv, "d");
    PMIX_ARGV_COUNT(n, argv);
    check_eq("PMIX_ARGV_COUNT", n, 4);
    check_streq("PMIX_ARGV_PREPEND first", argv[0], "a");
    PMIX_ARGV_JOIN(joined, argv, ',');
    check_streq("PMIX_ARGV_JOIN", joined, "a,b,c,d");
    free(joined);

    PMIX_ARGV_COPY(copy, argv);
    PMIX_ARGV_COUNT(n, copy);
    check_eq("PMIX_ARGV_COPY count", n, 4);
    check_eq("PMIX_ARGV_COPY is deep", copy[1] != argv[1], 1);
    PMIX_ARGV_FREE(copy);
    PMIX_ARGV_FREE(argv);
    argv = NULL;

    PMIX_ARGV_COUNT(n, argv);
    check_eq("PMIX_ARGV_COUNT NULL", n, 0);
    PMIX_ARGV_JOIN(joined, argv, ':');
    check_streq("PMIX_ARGV_JOIN NULL", joined, "");
    free(joined);
    PMIX_ARGV_COPY(copy, argv);
    check_eq("PMIX_ARGV_COPY NULL", NULL == copy, 1);
    PMIX_ARGV_APPEND_UNIQUE(rc, &argv, "only");
    PMIX_ARGV_COUNT(n, argv);
    check_eq("PMIX_ARGV_APPEND_UNIQUE into NULL", n, 1);
    PMIX_ARGV_FREE(argv);
    argv = NULL;
    PMIX_ARGV_PREPEND(rc, argv, "first");
    check_streq("PMIX_ARGV_PREPEND into NULL", argv[0], "first");
    PMIX_ARGV_FREE(argv);

    PMIX_ARGV_SPLIT(split, "::one:two::three:", ':');
    PMIX_ARGV_COUNT(n, split);
    check_eq("PMIX_ARGV_SPLIT count", n, 3);
    PMIX_ARGV_JOIN(joined, split, '/');
    check_streq("PMIX_ARGV_SPLIT fields", joined, "one/two/three");
    free(joined);
    PMIX_ARGV_FREE(split);
    PMIX_ARGV_SPLIT(split, "", ':');
    check_eq("PMIX_ARGV_SPLIT empty is NULL", NULL == split, 1);

    memset(longfield, 'x', sizeof(longfield) - 1);
    longfield[sizeof(longfield) - 1] = '\0';
    sprintf(splitsrc, "s,%s,e", longfield);
    PMIX_ARGV_SPLIT(split, splitsrc, ',');
    PMIX_ARGV_COUNT(n, split);
    check_eq("PMIX_ARGV_SPLIT long field count", n, 3);
    check_eq("PMIX_ARGV_SPLIT long field length", (long long)strlen(split[1]), 599);
    PMIX_ARGV_FREE(split);

    PMIX_SETENV(rc, "FOO", "1", &env);
    check_eq("PMIX_SETENV new rc", rc, PMIX_SUCCESS);
    PMIX_SETENV(rc, "BAR", "2", &env);
    PMIX_SETENV(rc, "FOO", "3", &env);
    check_eq("PMIX_SETENV overwrite rc", rc, PMIX_SUCCESS);
    PMIX_SETENV(rc, "EMPTY", NULL, &env);
    PMIX_ARGV_JOIN(joined, env, ' ');
    check_streq("PMIX_SETENV contents", joined, "FOO=3 BAR=2 EMPTY=");
    free(joined);
    PMIX_ARGV_FREE(env);
    PMIX_SETENV(rc, "FOO", "1", (char ***)NULL);
    check_eq("PMIX_SETENV NULL env", rc, PMIX_ERR_BAD_PARAM);

    PMIX_SETENV(rc, "RPMIX_MACRO_TEST_VAR", "on", &environ);
    check_streq("PMIX_SETENV environ set", getenv("RPMIX_MACRO_TEST_VAR"), "on");
    PMIX_SETENV(rc, "RPMIX_MACRO_TEST_VAR", NULL, &environ);
    check_eq("PMIX_SETENV environ unset", NULL == getenv("RPMIX_MACRO_TEST_VAR"), 1);
}

/* ---------------------------------------------------------------- */

static void test_fabric_structs(void)
{
    pmix_coord_t cbuf;
    pmix_coord_t *coord = &cbuf; /* OpenPMIx 4.2.2 workaround: its CREATE memsets the old m */
    pmix_coord_t sc = PMIX_COORD_STATIC_INIT;
    pmix_cpuset_t cs = PMIX_CPUSET_STATIC_INIT, *csa = NULL;
    pmix_topology_t topo = PMIX_TOPOLOGY_STATIC_INIT, *topa = NULL;
    pmix_geometry_t geo = PMIX_GEOMETRY_STATIC_INIT, *geoa = NULL;
    pmix_device_distance_t dd = PMIX_DEVICE_DIST_STATIC_INIT, *dda = NULL;
    pmix_endpoint_t ep = PMIX_ENDPOINT_STATIC_INIT, *epa = NULL;
    pmix_fabric_t fab = PMIX_FABRIC_STATIC_INIT;

    check_eq("PMIX_COORD_STATIC_INIT", sc.view + (long long)sc.dims + (NULL != sc.coord), 0);
    PMIX_COORD_CREATE(coord, 1, 3);
    check_eq("PMIX_COORD_CREATE dims", (long long)coord->dims, 3);
    check_eq("PMIX_COORD_CREATE view", coord->view, PMIX_COORD_VIEW_UNDEF);
    check_eq("PMIX_COORD_CREATE zeroed", coord->coord[0] + coord->coord[2], 0);
    coord->coord[1] = 7;
    PMIX_COORD_FREE(coord, 1);
    check_eq("PMIX_COORD_FREE nulls", NULL == coord, 1);
    PMIX_COORD_CONSTRUCT(&sc);
    sc.view = PMIX_COORD_LOGICAL_VIEW;
    sc.coord = (uint32_t *)calloc(2, sizeof(uint32_t));
    sc.dims = 2;
    PMIX_COORD_DESTRUCT(&sc);
    check_eq("PMIX_COORD_DESTRUCT", sc.view + (long long)sc.dims + (NULL != sc.coord), 0);

    PMIX_CPUSET_CONSTRUCT(&cs);
    check_eq("PMIX_CPUSET_CONSTRUCT", (NULL != cs.source) + (NULL != cs.bitmap), 0);
    PMIX_CPUSET_CREATE(csa, 2);
    check_eq("PMIX_CPUSET_CREATE", NULL != csa && NULL == csa[1].source, 1);
    free(csa);
    PMIX_CPUSET_CREATE(csa, 0);
    check_eq("PMIX_CPUSET_CREATE 0", NULL == csa, 1);

    PMIX_TOPOLOGY_CONSTRUCT(&topo);
    check_eq("PMIX_TOPOLOGY_CONSTRUCT", (NULL != topo.source) + (NULL != topo.topology), 0);
    PMIX_TOPOLOGY_DESTRUCT(&topo);
    check_eq("PMIX_TOPOLOGY_DESTRUCT empty", NULL == topo.topology, 1);
    PMIX_TOPOLOGY_CREATE(topa, 2);
    check_eq("PMIX_TOPOLOGY_CREATE", NULL != topa && NULL == topa[1].topology, 1);
    free(topa);

    PMIX_GEOMETRY_CONSTRUCT(&geo);
    geo.uuid = dupstr("uuid-1");
    geo.osname = dupstr("eth0");
    geo.coordinates = (pmix_coord_t *)calloc(2, sizeof(pmix_coord_t));
    geo.coordinates[1].coord = (uint32_t *)calloc(4, sizeof(uint32_t));
    geo.coordinates[1].dims = 4;
    geo.ncoords = 2;
    PMIX_GEOMETRY_DESTRUCT(&geo);
    check_eq("PMIX_GEOMETRY_DESTRUCT", (NULL != geo.uuid) + (NULL != geo.osname) + (NULL != geo.coordinates), 0);
    PMIX_GEOMETRY_CREATE(geoa, 2);
    check_eq("PMIX_GEOMETRY_CREATE zeroed", (long long)geoa[1].ncoords + (long long)geoa[0].fabric, 0);
    geoa[0].uuid = dupstr("u");
    geoa[1].osname = dupstr("o");
    PMIX_GEOMETRY_FREE(geoa, 2);
    check_eq("PMIX_GEOMETRY_FREE nulls", NULL == geoa, 1);

    PMIX_DEVICE_DIST_CONSTRUCT(&dd);
    check_eq("PMIX_DEVICE_DIST_CONSTRUCT mindist", dd.mindist, UINT16_MAX);
    check_eq("PMIX_DEVICE_DIST_CONSTRUCT maxdist", dd.maxdist, UINT16_MAX);
    dd.uuid = dupstr("gpu0");
    PMIX_DEVICE_DIST_DESTRUCT(&dd);
    PMIX_DEVICE_DIST_CREATE(dda, 3);
    check_eq("PMIX_DEVICE_DIST_CREATE min", dda[2].mindist, UINT16_MAX);
    check_eq("PMIX_DEVICE_DIST_CREATE type", (long long)dda[2].type, PMIX_DEVTYPE_UNKNOWN);
    dda[1].osname = dupstr("mlx5_0");
    PMIX_DEVICE_DIST_FREE(dda, 3);
    check_eq("PMIX_DEVICE_DIST_FREE nulls", NULL == dda, 1);

    PMIX_ENDPOINT_CONSTRUCT(&ep);
    ep.uuid = dupstr("ep");
    ep.endpt.bytes = dupstr("addr");
    ep.endpt.size = 5;
    PMIX_ENDPOINT_DESTRUCT(&ep);
    PMIX_ENDPOINT_CREATE(epa, 2);
    check_eq("PMIX_ENDPOINT_CREATE zeroed", (long long)epa[1].endpt.size, 0);
    epa[0].osname = dupstr("ib0");
    epa[1].endpt.bytes = dupstr("xyz");
    PMIX_ENDPOINT_FREE(epa, 2);
    check_eq("PMIX_ENDPOINT_FREE nulls", NULL == epa, 1);

    fab.index = 9;
    PMIX_FABRIC_CONSTRUCT(&fab);
    check_eq("PMIX_FABRIC_CONSTRUCT", (long long)fab.index + (long long)fab.ninfo + (NULL != fab.name), 0);
}

/* ---------------------------------------------------------------- */

static void test_bytes_envars_buffers(void)
{
    pmix_byte_object_t bo = PMIX_BYTE_OBJECT_STATIC_INIT, *boa = NULL;
    pmix_envar_t ev = PMIX_ENVAR_STATIC_INIT, *eva = NULL;
    pmix_data_buffer_t buf = PMIX_DATA_BUFFER_STATIC_INIT, *pbuf = NULL;
    char *data = dupstr("payload");
    size_t sz = 8;
    char *out = NULL;
    size_t outsz = 99;

    PMIX_BYTE_OBJECT_CONSTRUCT(&bo);
    PMIX_BYTE_OBJECT_LOAD(&bo, data, sz);
    check_streq("PMIX_BYTE_OBJECT_LOAD bytes", bo.bytes, "payload");
    check_eq("PMIX_BYTE_OBJECT_LOAD size", (long long)bo.size, 8);
    check_eq("PMIX_BYTE_OBJECT_LOAD clears source", (NULL == data) && (0 == sz), 1);
    PMIX_BYTE_OBJECT_DESTRUCT(&bo);
    check_eq("PMIX_BYTE_OBJECT_DESTRUCT", (NULL == bo.bytes) && (0 == bo.size), 1);
    PMIX_BYTE_OBJECT_CREATE(boa, 2);
    boa[1].bytes = dupstr("zz");
    boa[1].size = 3;
    PMIX_BYTE_OBJECT_FREE(boa, 2);
    check_eq("PMIX_BYTE_OBJECT_FREE nulls", NULL == boa, 1);

    PMIX_ENVAR_CONSTRUCT(&ev);
    PMIX_ENVAR_LOAD(&ev, "PATH", "/opt/bin", ':');
    check_streq("PMIX_ENVAR_LOAD envar", ev.envar, "PATH");
    check_streq("PMIX_ENVAR_LOAD value", ev.value, "/opt/bin");
    check_eq("PMIX_ENVAR_LOAD separator", ev.separator, ':');
    PMIX_ENVAR_DESTRUCT(&ev);
    check_eq("PMIX_ENVAR_DESTRUCT", (NULL == ev.envar) && (NULL == ev.value), 1);
    PMIX_ENVAR_CREATE(eva, 2);
    check_eq("PMIX_ENVAR_CREATE zeroed", eva[1].separator, 0);
    PMIX_ENVAR_LOAD(&eva[1], "LD_LIBRARY_PATH", "/lib", ':');
    PMIX_ENVAR_FREE(eva, 2);

    PMIX_DATA_BUFFER_CONSTRUCT(&buf);
    check_eq("PMIX_DATA_BUFFER_CONSTRUCT", (long long)buf.bytes_used + (NULL != buf.base_ptr), 0);
    data = dupstr("buffer-bytes");
    PMIX_DATA_BUFFER_LOAD(&buf, data, 13);
    check_eq("PMIX_DATA_BUFFER_LOAD bytes_used", (long long)buf.bytes_used, 13);
    PMIX_DATA_BUFFER_UNLOAD(&buf, out, outsz);
    check_streq("PMIX_DATA_BUFFER_UNLOAD data", out, "buffer-bytes");
    check_eq("PMIX_DATA_BUFFER_UNLOAD size", (long long)outsz, 13);
    free(out);
    PMIX_DATA_BUFFER_DESTRUCT(&buf);
    check_eq("PMIX_DATA_BUFFER_DESTRUCT", (long long)buf.bytes_allocated + (NULL != buf.base_ptr), 0);

    PMIX_DATA_BUFFER_CREATE(pbuf);
    check_eq("PMIX_DATA_BUFFER_CREATE zeroed", NULL != pbuf && 0 == pbuf->bytes_used, 1);
    data = dupstr("xy");
    PMIX_DATA_BUFFER_LOAD(pbuf, data, 3);
    PMIX_DATA_BUFFER_RELEASE(pbuf);
    check_eq("PMIX_DATA_BUFFER_RELEASE nulls", NULL == pbuf, 1);
}

/* ---------------------------------------------------------------- */

static void test_proc_info_and_stats(void)
{
    pmix_proc_info_t pi = PMIX_PROC_INFO_STATIC_INIT, *pia = NULL;
    pmix_proc_stats_t *psa = NULL;
    pmix_disk_stats_t ds = PMIX_DISK_STATS_STATIC_INIT, *dsa = NULL;
    pmix_net_stats_t nst = PMIX_NET_STATS_STATIC_INIT, *nsa = NULL;
    pmix_node_stats_t nd = PMIX_NODE_STATS_STATIC_INIT, *nda = NULL;

    check_eq("PMIX_PROC_INFO_STATIC_INIT rank", pi.proc.rank, PMIX_RANK_UNDEF);
    check_eq("PMIX_PROC_INFO_STATIC_INIT state", pi.state, PMIX_PROC_STATE_UNDEF);
    PMIX_PROC_INFO_CONSTRUCT(&pi);
    pi.hostname = dupstr("node01");
    pi.executable_name = dupstr("a.out");
    PMIX_PROC_INFO_DESTRUCT(&pi);
    check_eq("PMIX_PROC_INFO_DESTRUCT", (NULL == pi.hostname) && (NULL == pi.executable_name), 1);
    PMIX_PROC_INFO_CREATE(pia, 2);
    check_eq("PMIX_PROC_INFO_CREATE zeroed", pia[1].pid + pia[1].exit_code, 0);
    pia[1].hostname = dupstr("node02");
    PMIX_PROC_INFO_FREE(pia, 2);
    PMIX_PROC_INFO_CREATE(pia, 1);
    pia->executable_name = dupstr("prog");
    PMIX_PROC_INFO_RELEASE(pia);

    {
#ifdef RPMIX_COMMON_MACROS_H
        pmix_proc_stats_t ps = PMIX_PROC_STATS_STATIC_INIT;
#else
        /* OpenPMIx 4.2.2 workaround: its PMIX_PROC_STATS_STATIC_INIT lacks a comma */
        pmix_proc_stats_t ps;
        memset(&ps, 0, sizeof(ps));
        ps.proc.rank = PMIX_RANK_UNDEF;
#endif
        check_eq("PMIX_PROC_STATS_STATIC_INIT rank", ps.proc.rank, PMIX_RANK_UNDEF);
        check_eq("PMIX_PROC_STATS_STATIC_INIT fields", ps.pid + ps.num_threads + ps.processor + (NULL != ps.cmd), 0);
        PMIX_PROC_STATS_CONSTRUCT(&ps);
        ps.node = dupstr("n1");
        ps.cmd = dupstr("cmd");
        PMIX_PROC_STATS_DESTRUCT(&ps);
        check_eq("PMIX_PROC_STATS_DESTRUCT", (NULL == ps.node) && (NULL == ps.cmd), 1);
    }
    PMIX_PROC_STATS_CREATE(psa, 2);
    psa[0].node = dupstr("n2");
    PMIX_PROC_STATS_FREE(psa, 2);
    check_eq("PMIX_PROC_STATS_FREE nulls", NULL == psa, 1);
    PMIX_PROC_STATS_CREATE(psa, 1);
    psa->cmd = dupstr("x");
    PMIX_PROC_STATS_RELEASE(psa);
    check_eq("PMIX_PROC_STATS_RELEASE nulls", NULL == psa, 1);

    check_eq("PMIX_DISK_STATS_STATIC_INIT", (long long)ds.num_reads_completed + (NULL != ds.disk), 0);
    PMIX_DISK_STATS_CONSTRUCT(&ds);
    ds.disk = dupstr("sda");
    PMIX_DISK_STATS_DESTRUCT(&ds);
    check_eq("PMIX_DISK_STATS_DESTRUCT", NULL == ds.disk, 1);
    PMIX_DISK_STATS_CREATE(dsa, 1);
    dsa->disk = dupstr("sdb");
    PMIX_DISK_STATS_RELEASE(dsa);
    check_eq("PMIX_DISK_STATS_RELEASE nulls", NULL == dsa, 1);
    PMIX_DISK_STATS_CREATE(dsa, 3);
    dsa[2].disk = dupstr("sdc");
    PMIX_DISK_STATS_FREE(dsa, 3);
    check_eq("PMIX_DISK_STATS_FREE nulls", NULL == dsa, 1);

    check_eq("PMIX_NET_STATS_STATIC_INIT", (long long)nst.num_bytes_sent + (NULL != nst.net_interface), 0);
    PMIX_NET_STATS_CONSTRUCT(&nst);
    nst.net_interface = dupstr("eth0");
    PMIX_NET_STATS_DESTRUCT(&nst);
    check_eq("PMIX_NET_STATS_DESTRUCT", NULL == nst.net_interface, 1);
    PMIX_NET_STATS_CREATE(nsa, 1);
    nsa->net_interface = dupstr("eth1");
    PMIX_NET_STATS_RELEASE(nsa);
    check_eq("PMIX_NET_STATS_RELEASE nulls", NULL == nsa, 1);
    PMIX_NET_STATS_CREATE(nsa, 2);
    nsa[0].net_interface = dupstr("lo");
    PMIX_NET_STATS_FREE(nsa, 2);
    check_eq("PMIX_NET_STATS_FREE nulls", NULL == nsa, 1);

    check_eq("PMIX_NODE_STATS_STATIC_INIT", (long long)nd.ndiskstats + (long long)nd.nnetstats + (NULL != nd.node), 0);
    PMIX_NODE_STATS_CONSTRUCT(&nd);
    nd.node = dupstr("node7");
    PMIX_DISK_STATS_CREATE(nd.diskstats, 2);
    nd.ndiskstats = 2;
    nd.diskstats[1].disk = dupstr("nvme0");
    PMIX_NET_STATS_CREATE(nd.netstats, 1);
    nd.nnetstats = 1;
    nd.netstats[0].net_interface = dupstr("ib0");
    PMIX_NODE_STATS_DESTRUCT(&nd);
    check_eq("PMIX_NODE_STATS_DESTRUCT", (NULL == nd.node) && (NULL == nd.diskstats) && (NULL == nd.netstats), 1);
    nd.node = dupstr("node8");
    PMIX_NODE_STATS_RELEASE(&nd); /* only releases the contents */
    check_eq("PMIX_NODE_STATS_RELEASE contents", NULL == nd.node, 1);
    PMIX_NODE_STATS_CREATE(nda, 2);
    nda[1].node = dupstr("node9");
    PMIX_DISK_STATS_CREATE(nda[1].diskstats, 1);
    nda[1].ndiskstats = 1;
    PMIX_NODE_STATS_FREE(nda, 2);
    check_eq("PMIX_NODE_STATS_FREE nulls", NULL == nda, 1);
}

/* ---------------------------------------------------------------- */

static void test_values(void)
{
    pmix_value_t sv = PMIX_VALUE_STATIC_INIT;
    pmix_value_t v, *pv = NULL, *va = NULL;
    pmix_status_t rc;
    int iv = 42;
    uint64_t big = 0;
    double dv = 0.0;
    void *out = NULL;
    size_t outsz = 0;
    int number = 0;

    check_eq("PMIX_VALUE_STATIC_INIT type", sv.type, PMIX_UNDEF);
    PMIX_VALUE_CONSTRUCT(&v);
    check_eq("PMIX_VALUE_CONSTRUCT type", v.type, PMIX_UNDEF);
    rc = PMIX_VALUE_LOAD(&v, "text", PMIX_STRING);
    check_eq("PMIX_VALUE_LOAD rc", rc, PMIX_SUCCESS);
    check_streq("PMIX_VALUE_LOAD string", v.data.string, "text");
    PMIX_VALUE_UNLOAD(rc, &v, &out, &outsz);
    check_eq("PMIX_VALUE_UNLOAD rc", rc, PMIX_SUCCESS);
    check_streq("PMIX_VALUE_UNLOAD data", (char *)out, "text");
    free(out);
    PMIX_VALUE_GET_NUMBER(rc, &v, number, int);
    check_eq("PMIX_VALUE_GET_NUMBER string rc", rc, PMIX_ERR_BAD_PARAM);

    PMIX_VALUE_XFER(rc, pv, &v);
    check_eq("PMIX_VALUE_XFER alloc rc", rc, PMIX_SUCCESS);
    check_streq("PMIX_VALUE_XFER alloc copy", pv->data.string, "text");
    check_eq("PMIX_VALUE_XFER deep", pv->data.string != v.data.string, 1);
    PMIX_VALUE_DESTRUCT(&v);
    PMIX_VALUE_CONSTRUCT(&v);
    PMIX_VALUE_XFER_DIRECT(rc, &v, pv);
    check_streq("PMIX_VALUE_XFER_DIRECT", v.data.string, "text");
    PMIX_VALUE_RELEASE(pv);
    check_eq("PMIX_VALUE_RELEASE nulls", NULL == pv, 1);
    PMIX_VALUE_XFER(rc, pv, &v);
    check_eq("PMIX_VALUE_XFER again", rc, PMIX_SUCCESS);
    PMIX_VALUE_RELEASE(pv);
    PMIX_VALUE_DESTRUCT(&v);

    PMIX_VALUE_LOAD(&v, &iv, PMIX_INT);
    PMIX_VALUE_GET_NUMBER(rc, &v, number, int);
    check_eq("PMIX_VALUE_GET_NUMBER int", number, 42);
    PMIX_VALUE_GET_NUMBER(rc, &v, dv, double);
    check_eq("PMIX_VALUE_GET_NUMBER int as double x10", (long long)(dv * 10), 420);
    v.type = PMIX_UINT64;
    v.data.uint64 = 1234567890123ULL;
    PMIX_VALUE_GET_NUMBER(rc, &v, big, uint64_t);
    check_eq("PMIX_VALUE_GET_NUMBER uint64", (long long)big, 1234567890123LL);
    v.type = PMIX_PROC_RANK;
    v.data.rank = 17;
    PMIX_VALUE_GET_NUMBER(rc, &v, number, int);
    check_eq("PMIX_VALUE_GET_NUMBER rank", number, 17);
    v.type = PMIX_FLOAT;
    v.data.fval = 2.5f;
    PMIX_VALUE_GET_NUMBER(rc, &v, dv, double);
    check_eq("PMIX_VALUE_GET_NUMBER float x10", (long long)(dv * 10), 25);
    check_eq("PMIX_VALUE_GET_NUMBER rc", rc, PMIX_SUCCESS);
    v.type = PMIX_INT16;
    v.data.int16 = -5;
    PMIX_VALUE_GET_NUMBER(rc, &v, number, int);
    check_eq("PMIX_VALUE_GET_NUMBER int16", number, -5);
    v.type = PMIX_SIZE;
    v.data.size = 77;
    PMIX_VALUE_GET_NUMBER(rc, &v, number, int);
    check_eq("PMIX_VALUE_GET_NUMBER size", number, 77);
    PMIX_VALUE_DESTRUCT(&v);

    PMIX_VALUE_CREATE(va, 0);
    check_eq("PMIX_VALUE_CREATE 0", NULL == va, 1);
    PMIX_VALUE_CREATE(va, 3);
    check_eq("PMIX_VALUE_CREATE types", va[0].type + va[2].type, PMIX_UNDEF);
    PMIX_VALUE_LOAD(&va[1], "abc", PMIX_STRING);
    PMIX_VALUE_LOAD(&va[2], &iv, PMIX_INT);
    PMIX_VALUE_FREE(va, 3);
    check_eq("PMIX_VALUE_FREE nulls", NULL == va, 1);

    {
        pmix_value_t b;
        PMIX_VALUE_CONSTRUCT(&b);
        check_eq("PMIX_CHECK_TRUE undef", PMIX_CHECK_TRUE(&b) ? 1 : 0, 1);
        b.type = PMIX_BOOL;
        b.data.flag = false;
        check_eq("PMIX_CHECK_TRUE bool false", PMIX_CHECK_TRUE(&b) ? 1 : 0, 0);
        check_eq("PMIX_CHECK_BOOL bool", PMIX_CHECK_BOOL(&b) ? 1 : 0, 1);
        b.type = PMIX_INT;
        b.data.integer = 1;
        check_eq("PMIX_CHECK_TRUE int", PMIX_CHECK_TRUE(&b) ? 1 : 0, 0);
        check_eq("PMIX_CHECK_BOOL int", PMIX_CHECK_BOOL(&b) ? 1 : 0, 0);
    }
}

/* ---------------------------------------------------------------- */

static int info_true_for(const char *s)
{
    pmix_info_t info;
    int r;

    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, "pmix.flag", s, PMIX_STRING);
    r = PMIX_INFO_TRUE(&info) ? 1 : 0;
    r += PMIX_CHECK_BOOL(&info.value) ? 10 : 0;
    PMIX_INFO_DESTRUCT(&info);
    return r;
}

static void test_infos(void)
{
    pmix_info_t si = PMIX_INFO_STATIC_INIT;
    pmix_info_t info, copy, *ia = NULL;
    bool yes = true, no = false;
    uint32_t u32 = 7;
    void *list = NULL;
    pmix_data_array_t darray;
    pmix_status_t rc;

    check_eq("PMIX_INFO_STATIC_INIT", si.flags + si.value.type + (long long)strlen(si.key), 0);
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &u32, PMIX_UINT32);
    check_eq("PMIX_INFO_LOAD key", PMIX_CHECK_KEY(&info, PMIX_TIMEOUT) ? 1 : 0, 1);
    check_eq("PMIX_INFO_LOAD value", info.value.data.uint32, 7);
    PMIX_INFO_XFER(&copy, &info);
    check_eq("PMIX_INFO_XFER value", copy.value.data.uint32, 7);
    check_eq("PMIX_INFO_XFER key", PMIX_CHECK_KEY(&copy, PMIX_TIMEOUT) ? 1 : 0, 1);

    check_eq("PMIX_INFO_IS_REQUIRED initially", PMIX_INFO_IS_REQUIRED(&info) ? 1 : 0, 0);
    check_eq("PMIX_INFO_IS_OPTIONAL initially", PMIX_INFO_IS_OPTIONAL(&info) ? 1 : 0, 1);
    PMIX_INFO_REQUIRED(&info);
    check_eq("PMIX_INFO_REQUIRED", PMIX_INFO_IS_REQUIRED(&info) ? 1 : 0, 1);
    check_eq("PMIX_INFO_IS_OPTIONAL after", PMIX_INFO_IS_OPTIONAL(&info) ? 1 : 0, 0);
    PMIX_INFO_OPTIONAL(&info);
    check_eq("PMIX_INFO_OPTIONAL", PMIX_INFO_IS_REQUIRED(&info) ? 1 : 0, 0);
    check_eq("PMIX_INFO_WAS_PROCESSED before", PMIX_INFO_WAS_PROCESSED(&info) ? 1 : 0, 0);
    PMIX_INFO_PROCESSED(&info);
    check_eq("PMIX_INFO_PROCESSED", PMIX_INFO_WAS_PROCESSED(&info) ? 1 : 0, 1);
    check_eq("PMIX_INFO_IS_END before", PMIX_INFO_IS_END(&info) ? 1 : 0, 0);
    PMIX_INFO_SET_END(&info);
    check_eq("PMIX_INFO_SET_END", PMIX_INFO_IS_END(&info) ? 1 : 0, 1);
    PMIX_INFO_SET_QUALIFIER(&info);
    check_eq("PMIX_INFO_SET_QUALIFIER", PMIX_INFO_IS_QUALIFIER(&info) ? 1 : 0, 1);
    check_eq("PMIX_INFO_IS_PERSISTENT before", PMIX_INFO_IS_PERSISTENT(&info) ? 1 : 0, 0);
    check_eq("flags", (long long)info.flags,
             PMIX_INFO_REQD_PROCESSED | PMIX_INFO_ARRAY_END | PMIX_INFO_QUALIFIER);
    PMIX_INFO_DESTRUCT(&info);
    PMIX_INFO_DESTRUCT(&copy);

    /* a persistent info does not release its value */
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, "pmix.str", "kept", PMIX_STRING);
    PMIX_INFO_SET_PERSISTENT(&info);
    check_eq("PMIX_INFO_SET_PERSISTENT", PMIX_INFO_IS_PERSISTENT(&info) ? 1 : 0, 1);
    PMIX_INFO_DESTRUCT(&info);
    check_streq("PMIX_INFO_DESTRUCT keeps persistent", info.value.data.string, "kept");
    PMIX_VALUE_DESTRUCT(&info.value);

    PMIX_INFO_CONSTRUCT(&info);
    PMIX_LOAD_KEY(info.key, "pmix.bare");
    check_eq("PMIX_INFO_TRUE undef", PMIX_INFO_TRUE(&info) ? 1 : 0, 1);
    PMIX_INFO_LOAD(&info, "pmix.b", &yes, PMIX_BOOL);
    check_eq("PMIX_INFO_TRUE bool true", PMIX_INFO_TRUE(&info) ? 1 : 0, 1);
    PMIX_INFO_LOAD(&info, "pmix.b", &no, PMIX_BOOL);
    check_eq("PMIX_INFO_TRUE bool false", PMIX_INFO_TRUE(&info) ? 1 : 0, 0);
    PMIX_INFO_DESTRUCT(&info);
    info.value.type = PMIX_STRING;
    info.value.data.string = NULL;
    check_eq("PMIX_INFO_TRUE NULL string", PMIX_INFO_TRUE(&info) ? 1 : 0, 1);

    check_eq("PMIX_INFO_TRUE \"true\"", info_true_for("true"), 11);
    check_eq("PMIX_INFO_TRUE \"YES\"", info_true_for("YES"), 11);
    check_eq("PMIX_INFO_TRUE \"  yessir\"", info_true_for("  yessir"), 11);
    check_eq("PMIX_INFO_TRUE \"1\"", info_true_for("1"), 11);
    check_eq("PMIX_INFO_TRUE \"42x\"", info_true_for("42x"), 11);
    check_eq("PMIX_INFO_TRUE \"0\"", info_true_for("0"), 10);
    check_eq("PMIX_INFO_TRUE \"no\"", info_true_for("no"), 10);
    check_eq("PMIX_INFO_TRUE \"False\"", info_true_for("False"), 10);
    check_eq("PMIX_INFO_TRUE \"\"", info_true_for(""), 11);
    check_eq("PMIX_INFO_TRUE \"   \"", info_true_for("   "), 11);
    check_eq("PMIX_INFO_TRUE \"t\"", info_true_for("t"), 0);
    check_eq("PMIX_INFO_TRUE \"maybe\"", info_true_for("maybe"), 0);
    check_eq("PMIX_INFO_TRUE \"-1\"", info_true_for("-1"), 0);

    PMIX_INFO_CREATE(ia, 0);
    check_eq("PMIX_INFO_CREATE 0", NULL == ia, 1);
    PMIX_INFO_CREATE(ia, 3);
    check_eq("PMIX_INFO_CREATE end flag last", PMIX_INFO_IS_END(&ia[2]) ? 1 : 0, 1);
    check_eq("PMIX_INFO_CREATE end flag first", PMIX_INFO_IS_END(&ia[0]) ? 1 : 0, 0);
    check_eq("PMIX_INFO_CREATE types", ia[1].value.type, PMIX_UNDEF);
    PMIX_INFO_LOAD(&ia[0], "pmix.a", "alpha", PMIX_STRING);
    PMIX_INFO_LOAD(&ia[1], "pmix.b", &u32, PMIX_UINT32);
    PMIX_INFO_FREE(ia, 3);
    check_eq("PMIX_INFO_FREE nulls", NULL == ia, 1);

    /* info lists */
    PMIX_INFO_LIST_START(list);
    check_eq("PMIX_INFO_LIST_START", NULL != list, 1);
    PMIX_INFO_LIST_ADD(rc, list, "pmix.one", "uno", PMIX_STRING);
    check_eq("PMIX_INFO_LIST_ADD rc", rc, PMIX_SUCCESS);
    PMIX_INFO_LIST_ADD(rc, list, "pmix.two", &u32, PMIX_UINT32);
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, "pmix.three", &yes, PMIX_BOOL);
    PMIX_INFO_LIST_XFER(rc, list, &info);
    check_eq("PMIX_INFO_LIST_XFER rc", rc, PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&info);
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, "pmix.four", &u32, PMIX_UINT32);
    PMIX_INFO_LIST_INSERT(rc, list, &info);
    check_eq("PMIX_INFO_LIST_INSERT rc", rc, PMIX_SUCCESS);
    PMIX_INFO_LIST_CONVERT(rc, list, &darray);
    check_eq("PMIX_INFO_LIST_CONVERT rc", rc, PMIX_SUCCESS);
    check_eq("PMIX_INFO_LIST_CONVERT size", (long long)darray.size, 4);
    check_eq("PMIX_INFO_LIST_CONVERT type", darray.type, PMIX_INFO);
    {
        pmix_info_t *conv = (pmix_info_t *)darray.array;
        check_eq("PMIX_INFO_LIST_CONVERT order", PMIX_CHECK_KEY(&conv[0], "pmix.one") &&
                                                     PMIX_CHECK_KEY(&conv[3], "pmix.four") ? 1 : 0, 1);
        check_streq("PMIX_INFO_LIST_CONVERT string", conv[0].value.data.string, "uno");
    }
    PMIX_INFO_LIST_RELEASE(list);
    PMIX_DATA_ARRAY_DESTRUCT(&darray);
}

/* ---------------------------------------------------------------- */

static void test_pdata_apps_queries(void)
{
    pmix_pdata_t sp = PMIX_LOOKUP_STATIC_INIT;
    pmix_pdata_t pd, pd2, *pda = NULL;
    pmix_proc_t owner;
    pmix_app_t sa = PMIX_APP_STATIC_INIT, *apps = NULL;
    pmix_query_t sq = PMIX_QUERY_STATIC_INIT, *queries = NULL;
    int iv = 5;
    pmix_status_t rc;

    check_eq("PMIX_LOOKUP_STATIC_INIT", sp.proc.rank, PMIX_RANK_UNDEF);
    PMIX_LOAD_PROCID(&owner, "job-3", 1);
    PMIX_PDATA_CONSTRUCT(&pd);
    check_eq("PMIX_PDATA_CONSTRUCT", pd.value.type, PMIX_UNDEF);
    PMIX_PDATA_LOAD(&pd, &owner, "pmix.pub", "published", PMIX_STRING);
    check_streq("PMIX_PDATA_LOAD key", pd.key, "pmix.pub");
    check_streq("PMIX_PDATA_LOAD nspace", pd.proc.nspace, "job-3");
    check_streq("PMIX_PDATA_LOAD value", pd.value.data.string, "published");
    PMIX_PDATA_XFER(&pd2, &pd);
    check_streq("PMIX_PDATA_XFER value", pd2.value.data.string, "published");
    check_eq("PMIX_PDATA_XFER rank", pd2.proc.rank, 1);
    PMIX_PDATA_DESTRUCT(&pd);
    PMIX_PDATA_DESTRUCT(&pd2);
    PMIX_PDATA_CREATE(pda, 2);
    PMIX_PDATA_LOAD(&pda[1], &owner, "pmix.n", &iv, PMIX_INT);
    check_eq("PMIX_PDATA_CREATE/LOAD", pda[1].value.data.integer, 5);
    PMIX_PDATA_FREE(pda, 2);
    check_eq("PMIX_PDATA_FREE nulls", NULL == pda, 1);
    PMIX_PDATA_CREATE(pda, 1);
    PMIX_PDATA_LOAD(pda, &owner, "pmix.s", "s", PMIX_STRING);
    PMIX_PDATA_RELEASE(pda);
    check_eq("PMIX_PDATA_RELEASE nulls", NULL == pda, 1);

    check_eq("PMIX_APP_STATIC_INIT", sa.maxprocs + (long long)sa.ninfo + (NULL != sa.cmd), 0);
    PMIX_APP_CONSTRUCT(&sa);
    sa.cmd = dupstr("/bin/true");
    PMIX_ARGV_APPEND(rc, sa.argv, "true");
    PMIX_ARGV_APPEND(rc, sa.argv, "-v");
    PMIX_SETENV(rc, "A", "b", &sa.env);
    check_eq("PMIX_SETENV app env rc", rc, PMIX_SUCCESS);
    sa.cwd = dupstr("/tmp");
    sa.maxprocs = 4;
    PMIX_APP_INFO_CREATE(&sa, 2);
    check_eq("PMIX_APP_INFO_CREATE ninfo", (long long)sa.ninfo, 2);
    check_eq("PMIX_APP_INFO_CREATE end", PMIX_INFO_IS_END(&sa.info[1]) ? 1 : 0, 1);
    PMIX_INFO_LOAD(&sa.info[0], "pmix.wd", "/tmp", PMIX_STRING);
    PMIX_APP_DESTRUCT(&sa);
    check_eq("PMIX_APP_DESTRUCT", (NULL == sa.cmd) + (NULL == sa.argv) + (NULL == sa.env) +
                                      (NULL == sa.cwd) + (NULL == sa.info) + (0 == sa.ninfo), 6);
    PMIX_APP_CREATE(apps, 2);
    apps[1].cmd = dupstr("hostname");
    PMIX_APP_INFO_CREATE(&apps[1], 1);
    PMIX_APP_FREE(apps, 2);
    check_eq("PMIX_APP_FREE nulls", NULL == apps, 1);
    PMIX_APP_CREATE(apps, 1);
    PMIX_ARGV_APPEND(rc, apps->argv, "x");
    PMIX_APP_RELEASE(apps);
    check_eq("PMIX_APP_RELEASE nulls", NULL == apps, 1);

    check_eq("PMIX_QUERY_STATIC_INIT", (long long)sq.nqual + (NULL != sq.keys), 0);
    PMIX_QUERY_CONSTRUCT(&sq);
    PMIX_ARGV_APPEND(rc, sq.keys, PMIX_QUERY_NAMESPACES);
    PMIX_QUERY_QUALIFIERS_CREATE(&sq, 2);
    check_eq("PMIX_QUERY_QUALIFIERS_CREATE nqual", (long long)sq.nqual, 2);
    check_eq("PMIX_QUERY_QUALIFIERS_CREATE end", PMIX_INFO_IS_END(&sq.qualifiers[1]) ? 1 : 0, 1);
    PMIX_INFO_LOAD(&sq.qualifiers[0], PMIX_NSPACE, "job-1", PMIX_STRING);
    PMIX_QUERY_DESTRUCT(&sq);
    check_eq("PMIX_QUERY_DESTRUCT", (NULL == sq.keys) + (NULL == sq.qualifiers) + (0 == sq.nqual), 3);
    PMIX_QUERY_CREATE(queries, 2);
    PMIX_ARGV_APPEND(rc, queries[0].keys, PMIX_QUERY_JOB_STATUS);
    PMIX_QUERY_QUALIFIERS_CREATE(&queries[1], 1);
    PMIX_QUERY_FREE(queries, 2);
    check_eq("PMIX_QUERY_FREE nulls", NULL == queries, 1);
    PMIX_QUERY_CREATE(queries, 1);
    PMIX_QUERY_QUALIFIERS_CREATE(queries, 1);
    PMIX_QUERY_RELEASE(queries);
    check_eq("PMIX_QUERY_RELEASE nulls", NULL == queries, 1);
}

/* ---------------------------------------------------------------- */

static void test_regattrs(void)
{
    pmix_regattr_t sr = PMIX_REGATTR_STATIC_INIT;
    pmix_regattr_t ra, rb, *ras = NULL;
    int n = 0;

    check_eq("PMIX_REGATTR_STATIC_INIT", sr.type + (NULL != sr.name) + (long long)strlen(sr.string), 0);
    PMIX_REGATTR_CONSTRUCT(&ra);
    check_eq("PMIX_REGATTR_CONSTRUCT", ra.type + (NULL != ra.name) + (NULL != ra.description), 0);
#ifdef RPMIX_COMMON_MACROS_H
    PMIX_REGATTR_LOAD(&ra, "PMIX_TIMEOUT", PMIX_TIMEOUT, PMIX_INT, "seconds to wait");
#else
    /* OpenPMIx 4.2.2 workaround: its PMIX_REGATTR_LOAD does not compile */
    {
        int rc;
        ra.name = dupstr("PMIX_TIMEOUT");
        PMIX_LOAD_KEY(ra.string, PMIX_TIMEOUT);
        ra.type = PMIX_INT;
        PMIX_ARGV_APPEND(rc, ra.description, "seconds to wait");
        (void)rc;
    }
#endif
    check_streq("PMIX_REGATTR_LOAD name", ra.name, "PMIX_TIMEOUT");
    check_streq("PMIX_REGATTR_LOAD string", ra.string, PMIX_TIMEOUT);
    check_eq("PMIX_REGATTR_LOAD type", ra.type, PMIX_INT);
    check_streq("PMIX_REGATTR_LOAD description", ra.description[0], "seconds to wait");
    PMIX_REGATTR_XFER(&rb, &ra);
    check_streq("PMIX_REGATTR_XFER name", rb.name, "PMIX_TIMEOUT");
    check_streq("PMIX_REGATTR_XFER string", rb.string, PMIX_TIMEOUT);
    PMIX_ARGV_COUNT(n, rb.description);
    check_eq("PMIX_REGATTR_XFER description", n, 1);
    check_eq("PMIX_REGATTR_XFER deep", rb.description != ra.description, 1);
    PMIX_REGATTR_DESTRUCT(&ra);
    PMIX_REGATTR_DESTRUCT(&rb);
    PMIX_REGATTR_CREATE(ras, 2);
    check_eq("PMIX_REGATTR_CREATE zeroed", ras[1].type + (NULL != ras[1].name), 0);
    ras[1].name = dupstr("x");
    PMIX_ARGV_APPEND(n, ras[1].description, "y");
    PMIX_REGATTR_FREE(ras, 2);
    check_eq("PMIX_REGATTR_FREE nulls", NULL == ras, 1);
}

/* ---------------------------------------------------------------- */

static void test_data_arrays(void)
{
    pmix_data_array_t sd = PMIX_DATA_ARRAY_STATIC_INIT;
    pmix_data_array_t da;
    pmix_data_array_t *pda = NULL;

    check_eq("PMIX_DATA_ARRAY_STATIC_INIT", sd.type + (long long)sd.size + (NULL != sd.array), 0);
    PMIX_DATA_ARRAY_INIT(&da, PMIX_STRING);
    check_eq("PMIX_DATA_ARRAY_INIT", da.type == PMIX_STRING && 0 == da.size && NULL == da.array, 1);

    PMIX_DATA_ARRAY_CONSTRUCT(&da, 3, PMIX_INFO);
    check_eq("PMIX_DATA_ARRAY_CONSTRUCT info size", (long long)da.size, 3);
    check_eq("PMIX_DATA_ARRAY_CONSTRUCT info end", PMIX_INFO_IS_END(&((pmix_info_t *)da.array)[2]) ? 1 : 0, 1);
    PMIX_INFO_LOAD(&((pmix_info_t *)da.array)[0], "pmix.x", "y", PMIX_STRING);
    PMIX_DATA_ARRAY_DESTRUCT(&da);

    PMIX_DATA_ARRAY_CONSTRUCT(&da, 2, PMIX_STRING);
    ((char **)da.array)[0] = dupstr("s0");
    ((char **)da.array)[1] = dupstr("s1");
    PMIX_DATA_ARRAY_DESTRUCT(&da);

    PMIX_DATA_ARRAY_CONSTRUCT(&da, 4, PMIX_UINT64);
    ((uint64_t *)da.array)[3] = 99;
    check_eq("PMIX_DATA_ARRAY_CONSTRUCT uint64", (long long)((uint64_t *)da.array)[3], 99);
    PMIX_DATA_ARRAY_DESTRUCT(&da);

    PMIX_DATA_ARRAY_CONSTRUCT(&da, 2, PMIX_PROC);
    PMIX_LOAD_PROCID(&((pmix_proc_t *)da.array)[1], "job-1", 5);
    check_eq("PMIX_DATA_ARRAY_CONSTRUCT proc", ((pmix_proc_t *)da.array)[1].rank, 5);
    PMIX_DATA_ARRAY_DESTRUCT(&da);

    PMIX_DATA_ARRAY_CONSTRUCT(&da, 2, PMIX_DEVICE_DIST);
    check_eq("PMIX_DATA_ARRAY_CONSTRUCT devdist", ((pmix_device_distance_t *)da.array)[1].maxdist, UINT16_MAX);
    PMIX_DATA_ARRAY_DESTRUCT(&da);

    PMIX_DATA_ARRAY_CONSTRUCT(&da, 0, PMIX_INT);
    check_eq("PMIX_DATA_ARRAY_CONSTRUCT empty", 0 == da.size && NULL == da.array && da.type == PMIX_INT, 1);

    PMIX_DATA_ARRAY_CONSTRUCT(&da, 2, PMIX_DATA_ARRAY);
    check_eq("PMIX_DATA_ARRAY_CONSTRUCT unsupported", 0 == da.size && NULL == da.array, 1);

    PMIX_DATA_ARRAY_CREATE(pda, 2, PMIX_VALUE);
    check_eq("PMIX_DATA_ARRAY_CREATE", pda->size == 2 && pda->type == PMIX_VALUE, 1);
    PMIX_VALUE_LOAD(&((pmix_value_t *)pda->array)[1], "v", PMIX_STRING);
    PMIX_DATA_ARRAY_FREE(pda);
    check_eq("PMIX_DATA_ARRAY_FREE nulls", NULL == pda, 1);
    PMIX_DATA_ARRAY_CREATE(pda, 1, PMIX_APP);
    ((pmix_app_t *)pda->array)[0].cmd = dupstr("cmd");
    PMIX_DATA_ARRAY_FREE(pda);
}

/* ---------------------------------------------------------------- */

int main(void)
{
    /* every check, "ok   <label> = <value>" or "FAIL <label> = <value> (want <value>)" */
    tu_every = true;
    tu_verdict_first = true;
    tu_ok_word = "ok   ";
    tu_fail_word = "FAIL ";

    test_keys_and_procs();
    test_argv();
    test_fabric_structs();
    test_bytes_envars_buffers();
    test_proc_info_and_stats();
    test_values();
    test_infos();
    test_pdata_apps_queries();
    test_regattrs();
    test_data_arrays();

    /* no server to talk to: only checks that it expands and runs */
    PMIx_Heartbeat();
    check_that(true, "PMIx_Heartbeat returned");

    return tu_summary("macros");
}
