/* data_v41: PMIx_Data_pack's bytes, compared between libraries (issue 15).
 *
 *   data_v41 pack          print every case as "<name> <hex of the buffer>"
 *   data_v41 cross <file>  for each line of <file> (another run's "pack"
 *                          output): unpack the bytes with the case's type
 *                          and count, pack what came out again, print it
 *
 * Run "pack" on both libraries and compare (equal bytes); run "cross" of
 * one library's output on the other and compare with the input (what was
 * unpacked packs to the same bytes, so it is the same value: the encoding
 * has one form per value). PMIX_BFROP_BUFFER_TYPE=PMIX_BFROP_BUFFER_FULLY_DESC
 * in the environment selects the fully described form in both libraries.
 *
 * OpenPMIx 4.2.2 packs only after PMIx_Init (a singleton here). Cases its
 * own codec cannot read back (proc_stats, data_type, regattr, a count of 0:
 * see each) are not unpacked on it. What is
 * unpacked is not freed: this program compares bytes (the data steps run
 * the codec under valgrind). */
#define _DEFAULT_SOURCE
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;
    pmix_data_type_t type;
    int n;
    void *src;
    int openpmix_reads_it;
} kase_t;

static void hex(const char *name, const pmix_data_buffer_t *b)
{
    size_t i;
    printf("%s ", name);
    for (i = 0; i < b->bytes_used; i++) printf("%02x", (unsigned char) b->base_ptr[i]);
    if (b->bytes_used == 0) printf("-");
    printf("\n");
}

/* element storage big enough for any type */
typedef union {
    bool b; uint8_t u8; char *s; size_t sz; pid_t pid; int i; int8_t i8; int16_t i16; int32_t i32;
    int64_t i64; unsigned u; uint16_t u16; uint32_t u32; uint64_t u64; float f; double d;
    struct timeval tv; time_t t; pmix_value_t v; pmix_proc_t p; pmix_app_t app; pmix_info_t info;
    pmix_pdata_t pd; pmix_byte_object_t bo; pmix_proc_info_t pi; pmix_data_array_t da; pmix_query_t q;
    pmix_envar_t env; pmix_coord_t c; pmix_regattr_t ra; pmix_cpuset_t cs; pmix_geometry_t g;
    pmix_device_distance_t dd; pmix_endpoint_t ep; pmix_proc_stats_t ps; pmix_disk_stats_t ds;
    pmix_net_stats_t ns; pmix_node_stats_t nd; pmix_data_buffer_t db; pmix_nspace_t nsp;
} any_t;

#define NCASES 80
static kase_t cases[NCASES];
static int ncases;

static void add(const char *name, pmix_data_type_t t, int n, void *src, int reads)
{
    cases[ncases].name = name;
    cases[ncases].type = t;
    cases[ncases].n = n;
    cases[ncases].src = src;
    cases[ncases].openpmix_reads_it = reads;
    ncases++;
}

static char *argv_xy[] = {"x", "y", NULL};
static char *env_e[] = {"E=1", NULL};
static char *keys_ab[] = {"a", "b", NULL};
static char *desc_d1[] = {"d1", NULL};

static void build(void)
{
    static bool b = true;
    static uint8_t u8s[3] = {1, 2, 3};
    static char *str = "abc", *strnull = NULL, *strs[2] = {"a", "bc"}, *empty = "";
    static size_t sz = 1000;
    static pid_t pid = 12345;
    static int in = -2;
    static int8_t i8 = -1;
    static int16_t i16s[2] = {-1, -32768};
    static int32_t i32s[3] = {300, -300, INT32_MIN};
    static int64_t i64s[2] = {INT64_MIN, INT64_MAX};
    static unsigned uns = 5;
    static uint16_t u16 = 65535;
    static uint32_t u32s[2] = {300, 0xffffffffu};
    static uint64_t u64s[3] = {1ull << 40, UINT64_MAX, (1ull << 56)};
    static float f = 2.25f;
    static double d[2] = {1.5, -0.000123};
    static struct timeval tv = {1, 500};
    static time_t tm = 1700000000;
    static pmix_status_t st = -1;
    static pmix_value_t vals[4];
    static pmix_proc_t proc;
    static pmix_app_t app;
    static pmix_info_t infos[2], app_info, q_info;
    static pmix_pdata_t pd;
    static pmix_byte_object_t bo, cbo;
    static pmix_persistence_t pers = PMIX_PERSIST_SESSION;
    static pmix_scope_t scope = PMIX_GLOBAL;
    static pmix_data_range_t range = PMIX_RANGE_SESSION;
    static pmix_info_directives_t dirs = 0x80000000u;
    static pmix_data_type_t dt = 300;
    static pmix_proc_state_t pstate = PMIX_PROC_STATE_RUNNING;
    static pmix_proc_info_t pinfo;
    static pmix_data_array_t da_u32, da_info, da_str;
    static uint32_t da_vals[2] = {1, 2};
    static pmix_info_t da_infos[2];
    static char *da_strs[2] = {"s1", NULL};
    static pmix_rank_t ranks[3] = {PMIX_RANK_WILDCARD, 5, PMIX_RANK_UNDEF};
    static pmix_query_t query;
    static pmix_alloc_directive_t alloc = PMIX_ALLOC_EXTEND;
    static pmix_iof_channel_t iof = PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL;
    static pmix_envar_t envar;
    static pmix_coord_t coord;
    static uint32_t coords[3] = {1, 2, 3};
    static pmix_regattr_t regattr;
    static pmix_byte_object_t regex;
    static pmix_job_state_t jstate = 3;
    static pmix_link_state_t lstate = PMIX_LINK_UP;
    static pmix_cpuset_t cpuset;
    static pmix_geometry_t geo;
    static pmix_coord_t geo_coords[1];
    static uint32_t geo_vals[2] = {4, 5};
    static pmix_device_distance_t dist;
    static pmix_endpoint_t ep;
    static pmix_device_type_t devtype = PMIX_DEVTYPE_GPU;
    static pmix_locality_t loc = 0x4000;
    static pmix_nspace_t nsp = "abc";
    static pmix_proc_stats_t pstats;
    static pmix_disk_stats_t dstats;
    static pmix_net_stats_t nstats;
    static pmix_node_stats_t ndstats;
    static pmix_data_buffer_t dbuf;
    static char dbytes[3] = {1, 2, 3};
    static pmix_storage_medium_t medium = PMIX_STORAGE_MEDIUM_SSD;
    static pmix_storage_access_type_t acc = PMIX_STORAGE_ACCESS_RDWR;
    static uint32_t u32one = 7;

    add("bool", PMIX_BOOL, 1, &b, 1);
    add("byte", PMIX_BYTE, 1, &u8s[1], 1);
    add("string", PMIX_STRING, 1, &str, 1);
    add("string_null", PMIX_STRING, 1, &strnull, 1);
    add("string_empty", PMIX_STRING, 1, &empty, 1);
    add("string_x2", PMIX_STRING, 2, strs, 1);
    add("size", PMIX_SIZE, 1, &sz, 1);
    add("pid", PMIX_PID, 1, &pid, 1);
    add("int", PMIX_INT, 1, &in, 1);
    add("int8", PMIX_INT8, 1, &i8, 1);
    add("int16_x2", PMIX_INT16, 2, i16s, 1);
    add("int32_x3", PMIX_INT32, 3, i32s, 1);
    add("int64_x2", PMIX_INT64, 2, i64s, 1);
    add("uint", PMIX_UINT, 1, &uns, 1);
    add("uint8_x3", PMIX_UINT8, 3, u8s, 1);
    add("uint16", PMIX_UINT16, 1, &u16, 1);
    add("uint32_x2", PMIX_UINT32, 2, u32s, 1);
    add("uint64_x3", PMIX_UINT64, 3, u64s, 1);
    /* OpenPMIx 4.2.2 refuses to unpack into room for 0 (INADEQUATE_SPACE) */
    add("int32_x0", PMIX_INT32, 0, i32s, 0);
    add("float", PMIX_FLOAT, 1, &f, 1);
    add("double_x2", PMIX_DOUBLE, 2, d, 1);
    add("timeval", PMIX_TIMEVAL, 1, &tv, 1);
    add("time", PMIX_TIME, 1, &tm, 1);
    add("status", PMIX_STATUS, 1, &st, 1);

    PMIX_LOAD_PROCID(&proc, "ns", 3);
    vals[0].type = PMIX_STRING; vals[0].data.string = "hi";
    vals[1].type = PMIX_PROC; vals[1].data.proc = &proc;
    vals[2].type = PMIX_UINT32; vals[2].data.uint32 = 1;
    vals[3].type = PMIX_UNDEF;
    add("value_x4", PMIX_VALUE, 4, vals, 1);
    add("proc", PMIX_PROC, 1, &proc, 1);

    PMIX_INFO_LOAD(&app_info, "k", &u32one, PMIX_UINT32);
    app.cmd = "c"; app.argv = argv_xy; app.env = env_e; app.cwd = "/"; app.maxprocs = 2;
    app.info = &app_info; app.ninfo = 1;
    add("app", PMIX_APP, 1, &app, 1);

    PMIX_INFO_LOAD(&infos[0], "k", &u32one, PMIX_UINT32);
    PMIX_INFO_LOAD(&infos[1], "rk", "text", PMIX_STRING);
    infos[1].flags = PMIX_INFO_REQD;
    add("info_x2", PMIX_INFO, 2, infos, 1);

    PMIX_LOAD_PROCID(&pd.proc, "ns", 1);
    PMIX_LOAD_KEY(pd.key, "k");
    pd.value.type = PMIX_UINT32; pd.value.data.uint32 = 1;
    add("pdata", PMIX_PDATA, 1, &pd, 1);

    bo.bytes = "\x01\x02\x03"; bo.size = 3;
    add("byte_object", PMIX_BYTE_OBJECT, 1, &bo, 1);
    add("persist", PMIX_PERSIST, 1, &pers, 1);
    add("scope", PMIX_SCOPE, 1, &scope, 1);
    add("data_range", PMIX_DATA_RANGE, 1, &range, 1);
    add("info_directives", PMIX_INFO_DIRECTIVES, 1, &dirs, 1);
    /* OpenPMIx 4.2.2 reads a data type of 300 back as 150 */
    add("data_type", PMIX_DATA_TYPE, 1, &dt, 0);
    add("proc_state", PMIX_PROC_STATE, 1, &pstate, 1);

    PMIX_LOAD_PROCID(&pinfo.proc, "ns", 2);
    pinfo.hostname = "h"; pinfo.executable_name = "e"; pinfo.pid = 77; pinfo.state = 3;
    add("proc_info", PMIX_PROC_INFO, 1, &pinfo, 1);

    da_u32.type = PMIX_UINT32; da_u32.size = 2; da_u32.array = da_vals;
    add("darray_uint32", PMIX_DATA_ARRAY, 1, &da_u32, 1);
    PMIX_INFO_LOAD(&da_infos[0], "a", NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&da_infos[1], "b", "x", PMIX_STRING);
    da_info.type = PMIX_INFO; da_info.size = 2; da_info.array = da_infos;
    add("darray_info", PMIX_DATA_ARRAY, 1, &da_info, 1);
    da_str.type = PMIX_STRING; da_str.size = 2; da_str.array = da_strs;
    add("darray_string", PMIX_DATA_ARRAY, 1, &da_str, 1);
    add("rank_x3", PMIX_PROC_RANK, 3, ranks, 1);

    PMIX_INFO_LOAD(&q_info, "q", NULL, PMIX_BOOL);
    query.keys = keys_ab; query.qualifiers = &q_info; query.nqual = 1;
    add("query", PMIX_QUERY, 1, &query, 1);

    cbo.bytes = "\x78\x9c"; cbo.size = 2;
    add("compressed_string", PMIX_COMPRESSED_STRING, 1, &cbo, 1);
    add("alloc_directive", PMIX_ALLOC_DIRECTIVE, 1, &alloc, 1);
    add("iof_channel", PMIX_IOF_CHANNEL, 1, &iof, 1);

    envar.envar = "A"; envar.value = "b"; envar.separator = ':';
    add("envar", PMIX_ENVAR, 1, &envar, 1);
    coord.view = PMIX_COORD_LOGICAL_VIEW; coord.coord = coords; coord.dims = 3;
    add("coord", PMIX_COORD, 1, &coord, 1);
    regattr.name = "nm"; PMIX_LOAD_KEY(regattr.string, "key"); regattr.type = PMIX_UINT32;
    regattr.description = desc_d1;
    /* OpenPMIx 4.2.2 reads a regattr's type UINT32 back as INT8 */
    add("regattr", PMIX_REGATTR, 1, &regattr, 0);
    regex.bytes = "pmix[n[1:0-2]]"; regex.size = strlen(regex.bytes) + 1;
    add("regex", PMIX_REGEX, 1, &regex, 1);
    add("job_state", PMIX_JOB_STATE, 1, &jstate, 1);
    add("link_state", PMIX_LINK_STATE, 1, &lstate, 1);
    cpuset.source = "hwloc"; cpuset.bitmap = NULL;
    add("cpuset_null", PMIX_PROC_CPUSET, 1, &cpuset, 1);

    geo_coords[0].view = PMIX_COORD_PHYSICAL_VIEW; geo_coords[0].coord = geo_vals; geo_coords[0].dims = 2;
    geo.fabric = 1; geo.uuid = "u"; geo.osname = "o"; geo.coordinates = geo_coords; geo.ncoords = 1;
    add("geometry", PMIX_GEOMETRY, 1, &geo, 1);
    dist.uuid = "u"; dist.osname = "o"; dist.type = PMIX_DEVTYPE_NETWORK; dist.mindist = 1; dist.maxdist = 300;
    add("device_dist", PMIX_DEVICE_DIST, 1, &dist, 1);
    ep.uuid = "u"; ep.osname = "o"; ep.endpt.bytes = "\xaa\xbb"; ep.endpt.size = 2;
    add("endpoint", PMIX_ENDPOINT, 1, &ep, 1);
    add("devtype", PMIX_DEVTYPE, 1, &devtype, 1);
    add("loctype", PMIX_LOCTYPE, 1, &loc, 1);
    add("compressed_byte_object", PMIX_COMPRESSED_BYTE_OBJECT, 1, &cbo, 1);
    add("proc_nspace", PMIX_PROC_NSPACE, 1, &nsp, 1);

    pstats.node = "n"; PMIX_LOAD_PROCID(&pstats.proc, "ns", 4); pstats.pid = 42; pstats.cmd = "cmd";
    pstats.state = 'R'; pstats.time.tv_sec = 3; pstats.priority = -5; pstats.num_threads = 2;
    pstats.pss = 1.5f; pstats.vsize = 2.5f; pstats.rss = 3.5f; pstats.processor = 1; pstats.sample_time.tv_usec = 9;
    /* OpenPMIx 4.2.2 cannot read its own proc_stats back (it reads a field it never wrote) */
    add("proc_stats", PMIX_PROC_STATS, 1, &pstats, 0);
    dstats.disk = "d"; dstats.num_reads_completed = 1; dstats.weighted_milliseconds_io = 11;
    add("disk_stats", PMIX_DISK_STATS, 1, &dstats, 1);
    nstats.net_interface = "i"; nstats.num_bytes_recvd = 1; nstats.num_send_errs = 6;
    add("net_stats", PMIX_NET_STATS, 1, &nstats, 1);
    ndstats.node = "n"; ndstats.la = 0.5f; ndstats.mapped = 11.0f; ndstats.sample_time.tv_sec = 2;
    add("node_stats", PMIX_NODE_STATS, 1, &ndstats, 1);
    dbuf.base_ptr = dbytes; dbuf.bytes_used = 3; dbuf.bytes_allocated = 3; dbuf.pack_ptr = dbytes + 3;
    dbuf.unpack_ptr = dbytes;
    add("data_buffer", PMIX_DATA_BUFFER, 1, &dbuf, 1);
    add("stor_medium", PMIX_STOR_MEDIUM, 1, &medium, 1);
    add("stor_access_type", PMIX_STOR_ACCESS_TYPE, 1, &acc, 1);

    /* this machine's hwloc topology: its XML and support flags */
    {
        static pmix_topology_t topo;
        topo.source = NULL;
        topo.topology = NULL;
        if (PMIx_Load_topology(&topo) == PMIX_SUCCESS) add("topology", PMIX_TOPO, 1, &topo, 1);
    }
}

static int unhex(const char *h, pmix_data_buffer_t *b)
{
    size_t n = strlen(h) / 2, i;
    char *bytes;
    if (strcmp(h, "-") == 0) n = 0;
    bytes = malloc(n ? n : 1);
    for (i = 0; i < n; i++) {
        unsigned x;
        if (sscanf(h + 2 * i, "%2x", &x) != 1) return -1;
        bytes[i] = (char) x;
    }
    PMIX_DATA_BUFFER_CONSTRUCT(b);
    PMIx_Data_load(b, &(pmix_byte_object_t){bytes, n});
    return 0;
}

static const kase_t *find(const char *name)
{
    int i;
    for (i = 0; i < ncases; i++)
        if (strcmp(cases[i].name, name) == 0) return &cases[i];
    return NULL;
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    int i, failed = 0;
    int on_openpmix = strncmp(PMIx_Get_version(), "OpenPMIx", 8) == 0;

    (void) PMIx_Init(&me, NULL, 0); /* a singleton: UNREACH is expected */
    build();
    if (argc == 2 && strcmp(argv[1], "pack") == 0) {
        for (i = 0; i < ncases; i++) {
            pmix_data_buffer_t b;
            pmix_status_t rc;
            PMIX_DATA_BUFFER_CONSTRUCT(&b);
            rc = PMIx_Data_pack(NULL, &b, cases[i].src, cases[i].n, cases[i].type);
            if (rc != PMIX_SUCCESS) {
                printf("%s pack-failed:%s\n", cases[i].name, PMIx_Error_string(rc));
            } else {
                hex(cases[i].name, &b);
            }
            PMIX_DATA_BUFFER_DESTRUCT(&b);
        }
    } else if (argc == 3 && strcmp(argv[1], "cross") == 0) {
        FILE *f = fopen(argv[2], "r");
        char name[128], h[65536];
        if (!f) return 2;
        while (fscanf(f, "%127s %65535s", name, h) == 2) {
            const kase_t *k = find(name);
            pmix_data_buffer_t in, out;
            any_t *dst;
            int32_t n;
            pmix_status_t rc;
            if (!k) {
                printf("%s unknown-case\n", name);
                failed = 1;
                continue;
            }
            if (on_openpmix && !k->openpmix_reads_it) {
                printf("%s %s\n", name, h); /* (not read on OpenPMIx: see above) */
                continue;
            }
            if (unhex(h, &in) != 0) return 2;
            n = k->n;
            dst = calloc(k->n ? k->n : 1, sizeof(any_t) * 4);
            rc = PMIx_Data_unpack(NULL, &in, dst, &n, k->type);
            if (rc != PMIX_SUCCESS || n != k->n) {
                printf("%s unpack-failed:%s:n=%d\n", name, PMIx_Error_string(rc), n);
                failed = 1;
            } else {
                PMIX_DATA_BUFFER_CONSTRUCT(&out);
                rc = PMIx_Data_pack(NULL, &out, dst, n, k->type);
                if (rc != PMIX_SUCCESS) {
                    printf("%s repack-failed:%s\n", name, PMIx_Error_string(rc));
                    failed = 1;
                } else {
                    hex(name, &out);
                }
                PMIX_DATA_BUFFER_DESTRUCT(&out);
            }
            PMIX_DATA_BUFFER_DESTRUCT(&in);
            free(dst);
        }
        fclose(f);
    } else {
        fprintf(stderr, "usage: data_v41 pack | cross <file>\n");
        return 2;
    }
    PMIx_Finalize(NULL, 0);
    return failed;
}
