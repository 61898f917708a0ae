/* Every function OpenPMIx 4.2.3-5.0.9 added to libpmix.so.2
 * (tools/exports-newer.txt), called directly, without a server.
 *
 * Built against OpenPMIx 5.0.7's headers and run once on OpenPMIx 5.0.7's
 * library and once on rpmix's (tools/newer-tests.sh, case
 * exports-vs-openpmix5): the lines printed must be identical, so they hold
 * values only (contents of objects, sizes, strings, status codes), never
 * pointers. On rpmix the program is also run under valgrind, and every
 * object made is released with the matching call.
 *
 * Inputs on which OpenPMIx 5.0.7 crashes or reads memory it should not
 * (NULL arguments, an element count above 1 for PMIx_Coord_create, a
 * namespace parse target that is not NUL-padded, ...) are kept out of the
 * compared part. So are the places where the two libraries differ on
 * purpose; each is named in a comment where it is left out.
 *
 * With V5_RPMIX_ONLY=1 in the environment (the harness sets it for rpmix
 * only) a last section checks rpmix's own answers to those inputs, and the
 * four functions OpenPMIx 5.0.9 added (PMIx_Info_list_add_unique,
 * _add_value, _add_value_unique, _xfer_unique), which 5.0.7 does not have:
 * they are looked up with dlsym so that the program still loads there.
 *
 * The last line is "done: ok" (compared part) and, with V5_RPMIX_ONLY=1,
 * "rpmix-only: ok" after it; any failed check makes the exit status 1.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <pmix.h>
#include <pmix_tool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TESTUTIL_CHECKS_ONLY /* no server */
#include "testutil.h"

extern char **environ;

static void line(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(const char *what, const char *fmt, ...)
{
    va_list ap;
    printf("%s: ", what);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

/* ---- rendering values (rotating static buffers, no pointers printed) ---- */

#define NBUF 64
#define BUFLEN 4096
static char bufs[NBUF][BUFLEN];
static int bufn;

static char *nextbuf(void)
{
    char *b = bufs[bufn];
    bufn = (bufn + 1) % NBUF;
    b[0] = '\0';
    return b;
}

static void cat(char *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cat(char *b, const char *fmt, ...)
{
    va_list ap;
    size_t n = strlen(b);
    va_start(ap, fmt);
    vsnprintf(b + n, BUFLEN - n, fmt, ap);
    va_end(ap);
}

/* append s to b: in quotes, bytes outside printable ASCII escaped, NULL as
 * NULL, a long string by its length and ends */
static void cat_quoted(char *b, const char *s)
{
    size_t n, i;
    if (NULL == s) {
        cat(b, "NULL");
        return;
    }
    n = strlen(s);
    if (n > 200) {
        cat(b, "<%zu chars %.6s...%s>", n, s, s + n - 6);
        return;
    }
    cat(b, "\"");
    for (i = 0; i < n; i++) {
        unsigned char ch = (unsigned char) s[i];
        if (ch < 0x20 || ch > 0x7e || '"' == ch || '\\' == ch) {
            cat(b, "\\x%02x", ch);
        } else {
            cat(b, "%c", ch);
        }
    }
    cat(b, "\"");
}

static const char *qs(const char *s)
{
    char *b = nextbuf();
    cat_quoted(b, s);
    return b;
}

static const char *argv_text(char **a)
{
    char *b = nextbuf();
    int i;
    if (NULL == a) {
        return "NULL";
    }
    cat(b, "%d[", PMIx_Argv_count(a));
    for (i = 0; NULL != a[i]; i++) {
        cat(b, "%s", i ? "," : "");
        cat_quoted(b, a[i]);
    }
    cat(b, "]");
    return b;
}

static const char *nonnull(const void *p)
{
    return NULL == p ? "NULL" : "set";
}

/* a _create that makes nothing (NULL on both libraries), released all the
 * same with the matching _free */
#define CREATE_NONE(what, T, make, release) \
    do {                                     \
        T *z_ = make;                        \
        line(what, "%s", nonnull(z_));       \
        release;                             \
    } while (0)

/* the payload of simple values; the type for the rest */
static const char *value_text(const pmix_value_t *v)
{
    char *b = nextbuf();
    switch (v->type) {
    case PMIX_UNDEF:
        snprintf(b, BUFLEN, "undef");
        break;
    case PMIX_BOOL:
        snprintf(b, BUFLEN, "bool:%d", (int) v->data.flag);
        break;
    case PMIX_STRING:
        snprintf(b, BUFLEN, "string:%s", qs(v->data.string));
        break;
    case PMIX_UINT32:
        snprintf(b, BUFLEN, "uint32:%u", v->data.uint32);
        break;
    case PMIX_INT:
        snprintf(b, BUFLEN, "int:%d", v->data.integer);
        break;
    case PMIX_SIZE:
        snprintf(b, BUFLEN, "size:%zu", v->data.size);
        break;
    default:
        snprintf(b, BUFLEN, "type %u", (unsigned) v->type);
        break;
    }
    return b;
}

static const char *info_text(const pmix_info_t *i)
{
    char *b = nextbuf();
    snprintf(b, BUFLEN, "%s flags=0x%x %s", qs(i->key), (unsigned) i->flags, value_text(&i->value));
    return b;
}

/* ------------------------------------------------------------------------ */
/* Keys, namespaces, process identifiers                                     */
/* ------------------------------------------------------------------------ */

static void names(void)
{
    pmix_key_t key;
    pmix_nspace_t ns, ns2, target, cluster, nsp;
    pmix_proc_t p, q, r;
    char long600[601], long300[301], c200[201], n54[55], n55[56];
    char *s;
    pmix_rank_t ranks[] = {0, 7, 4294967200u, PMIX_RANK_UNDEF, PMIX_RANK_WILDCARD, PMIX_RANK_LOCAL_NODE,
                           PMIX_RANK_LOCAL_PEERS, PMIX_RANK_INVALID, PMIX_RANK_VALID};
    size_t i;

    memset(long600, 'k', 600);
    long600[600] = '\0';
    memset(long300, 'n', 300);
    long300[300] = '\0';

    PMIx_Load_key(key, "my.key");
    line("Load_key", "%s", qs(key));
    PMIx_Load_key(key, long600);
    line("Load_key long", "len=%zu last=%c", strlen(key), key[510]);
    line("Check_key long", "%d", PMIx_Check_key(key, long600));
    PMIx_Load_key(key, NULL);
    line("Load_key NULL", "len=%zu", strlen(key));
    line("Check_key", "same=%d differ=%d prefix=%d empty=%d", PMIx_Check_key("abc", "abc"),
         PMIx_Check_key("abc", "abd"), PMIx_Check_key("abc", "ab"), PMIx_Check_key("", ""));
    line("Check_reserved_key", "pmix.x=%d pmix=%d pmi=%d PMIX.x=%d mine=%d empty=%d",
         PMIx_Check_reserved_key("pmix.x"), PMIx_Check_reserved_key("pmix"), PMIx_Check_reserved_key("pmi"),
         PMIx_Check_reserved_key("PMIX.x"), PMIx_Check_reserved_key("mine"), PMIx_Check_reserved_key(""));

    PMIx_Load_nspace(ns, "job.1");
    line("Load_nspace", "%s", qs(ns));
    PMIx_Load_nspace(ns2, long300);
    line("Load_nspace long", "len=%zu", strlen(ns2));
    line("Check_nspace long", "%d", PMIx_Check_nspace(ns2, long300));
    PMIx_Load_nspace(ns2, NULL);
    line("Load_nspace NULL", "len=%zu", strlen(ns2));
    line("Check_nspace", "same=%d differ=%d empty-first=%d NULL-first=%d NULL-second=%d prefix=%d",
         PMIx_Check_nspace("a", "a"), PMIx_Check_nspace("a", "b"), PMIx_Check_nspace("", "b"),
         PMIx_Check_nspace(NULL, "b"), PMIx_Check_nspace("b", NULL), PMIx_Check_nspace("job", "job.1"));
    line("Nspace_invalid", "NULL=%d empty=%d x=%d", PMIx_Nspace_invalid(NULL), PMIx_Nspace_invalid(""),
         PMIx_Nspace_invalid("x"));

    PMIx_Load_procid(&p, "job.1", 3);
    line("Load_procid", "%s:%u", qs(p.nspace), p.rank);
    PMIx_Load_procid(&r, NULL, 5);
    line("Load_procid NULL", "%s:%u", qs(r.nspace), r.rank);
    PMIx_Xfer_procid(&q, &p);
    line("Xfer_procid", "%s:%u", qs(q.nspace), q.rank);
    line("Check_procid", "same=%d", PMIx_Check_procid(&p, &q));
    q.rank = PMIX_RANK_WILDCARD;
    line("Check_procid", "wildcard=%d", PMIx_Check_procid(&p, &q));
    q.rank = 4;
    line("Check_procid", "other-rank=%d", PMIx_Check_procid(&p, &q));
    PMIx_Load_procid(&q, "job.2", 3);
    line("Check_procid", "other-nspace=%d", PMIx_Check_procid(&p, &q));
    PMIx_Load_procid(&q, "", 3);
    line("Check_procid", "empty-nspace=%d", PMIx_Check_procid(&p, &q));
    line("Check_rank", "3,3=%d 3,4=%d W,4=%d 4,W=%d U,U=%d I,1=%d", PMIx_Check_rank(3, 3), PMIx_Check_rank(3, 4),
         PMIx_Check_rank(PMIX_RANK_WILDCARD, 4), PMIx_Check_rank(4, PMIX_RANK_WILDCARD),
         PMIx_Check_rank(PMIX_RANK_UNDEF, PMIX_RANK_UNDEF), PMIx_Check_rank(PMIX_RANK_INVALID, 1));
    PMIx_Load_procid(&q, "job.1", 2);
    line("Procid_invalid", "valid=%d", PMIx_Procid_invalid(&q));
    q.rank = PMIX_RANK_INVALID;
    line("Procid_invalid", "rank-invalid=%d", PMIx_Procid_invalid(&q));
    q.rank = PMIX_RANK_UNDEF;
    line("Procid_invalid", "rank-undef=%d", PMIx_Procid_invalid(&q));
    q.rank = PMIX_RANK_WILDCARD;
    line("Procid_invalid", "rank-wildcard=%d", PMIx_Procid_invalid(&q));
    PMIx_Load_procid(&q, "", 2);
    line("Procid_invalid", "empty-nspace=%d", PMIx_Procid_invalid(&q));

    PMIx_Proc_load(&q, "job.9", 9);
    line("Proc_load", "%s:%u", qs(q.nspace), q.rank);
    PMIx_Proc_destruct(&q);

    for (i = 0; i < sizeof(ranks) / sizeof(ranks[0]); i++) {
        PMIx_Load_procid(&q, "job.1", ranks[i]);
        s = PMIx_Proc_string(&q);
        line("Proc_string", "%u -> %s", ranks[i], qs(s));
        free(s);
    }
    PMIx_Load_procid(&q, "", 1);
    s = PMIx_Proc_string(&q);
    line("Proc_string empty", "%s", qs(s));
    free(s);
    PMIx_Load_procid(&q, long300, 12);
    s = PMIx_Proc_string(&q);
    line("Proc_string long", "%s", qs(s));
    free(s);
    s = PMIx_Proc_string(NULL);
    line("Proc_string NULL", "%s", qs(s));
    free(s);

    /* Multi-cluster namespaces. Every buffer is NUL-padded (PMIx_Load_nspace):
     * OpenPMIx 5.0.7's parse reads one byte past a target without ':' and
     * does not clear or terminate its nspace output. */
    PMIx_Load_nspace(cluster, "east");
    PMIx_Load_nspace(nsp, "job1");
    PMIx_Multicluster_nspace_construct(target, cluster, nsp);
    line("Multicluster_nspace_construct", "%s", qs(target));
    memset(c200, 'c', 200);
    c200[200] = '\0';
    memset(n54, 'j', 54);
    n54[54] = '\0';
    memset(n55, 'j', 55);
    n55[55] = '\0';
    PMIx_Load_nspace(cluster, c200);
    PMIx_Load_nspace(nsp, n54);
    PMIx_Multicluster_nspace_construct(target, cluster, nsp);
    line("Multicluster_nspace_construct 200+54", "len=%zu colon-at=%td", strlen(target),
         strchr(target, ':') ? strchr(target, ':') - target : (ptrdiff_t) -1);
    PMIx_Load_nspace(nsp, n55);
    PMIx_Multicluster_nspace_construct(target, cluster, nsp);
    line("Multicluster_nspace_construct 200+55", "len=%zu", strlen(target));
    PMIx_Load_nspace(cluster, "");
    PMIx_Load_nspace(nsp, "solo");
    PMIx_Multicluster_nspace_construct(target, cluster, nsp);
    line("Multicluster_nspace_construct empty cluster", "%s", qs(target));
    {
        const char *targets[] = {"east:job1", "plain", "a:b:c", ":x", "y:", ""};
        for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
            PMIx_Load_nspace(target, targets[i]);
            PMIx_Load_nspace(cluster, "old-cluster");
            memset(nsp, 0, sizeof(nsp));
            PMIx_Multicluster_nspace_parse(target, cluster, nsp);
            line("Multicluster_nspace_parse", "%s -> %s %s", qs(targets[i]), qs(cluster), qs(nsp));
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Argv helpers, Setenv                                                      */
/* ------------------------------------------------------------------------ */

static void argvs(void)
{
    char **a = NULL, **b = NULL, **c;
    char *s, *empty_argv[1] = {NULL};
    char longf[700];
    int rc1, rc2, rc3, rc4, rc5;

    rc1 = PMIx_Argv_append_nosize(&a, "b");
    rc2 = PMIx_Argv_append_nosize(&a, "c");
    rc3 = PMIx_Argv_prepend_nosize(&a, "a");
    rc4 = PMIx_Argv_append_unique_nosize(&a, "b");
    rc5 = PMIx_Argv_append_unique_nosize(&a, "d");
    line("Argv append/prepend/unique", "%d %d %d %d %d %s", rc1, rc2, rc3, rc4, rc5, argv_text(a));
    line("Argv_count", "%d NULL=%d empty=%d", PMIx_Argv_count(a), PMIx_Argv_count(NULL),
         PMIx_Argv_count(empty_argv));
    s = PMIx_Argv_join(a, ',');
    line("Argv_join ','", "%s", qs(s));
    free(s);
    s = PMIx_Argv_join(a, 256 + ':'); /* the delimiter is used as a char */
    line("Argv_join 256+':'", "%s", qs(s));
    free(s);
    s = PMIx_Argv_join(NULL, ',');
    line("Argv_join NULL", "%s", qs(s));
    free(s);
    s = PMIx_Argv_join(empty_argv, ',');
    line("Argv_join empty", "%s", qs(s));
    free(s);
    c = PMIx_Argv_copy(a);
    PMIx_Argv_free(a);
    line("Argv_copy", "%s", argv_text(c));
    PMIx_Argv_free(c);
    c = PMIx_Argv_copy(empty_argv);
    line("Argv_copy empty", "%s", argv_text(c));
    PMIx_Argv_free(c);
    c = PMIx_Argv_copy(NULL);
    line("Argv_copy NULL", "%s", argv_text(c));
    PMIx_Argv_free(c);
    PMIx_Argv_free(NULL);

    rc1 = PMIx_Argv_prepend_nosize(&b, "first");
    rc2 = PMIx_Argv_append_unique_nosize(&b, "first");
    line("Argv_prepend_nosize on NULL", "%d %d %s", rc1, rc2, argv_text(b));
    PMIx_Argv_free(b);
    b = NULL;
    rc1 = PMIx_Argv_append_unique_nosize(&b, "only");
    line("Argv_append_unique_nosize on NULL", "%d %s", rc1, argv_text(b));
    PMIx_Argv_free(b);
    b = NULL;
    {
        char *both[] = {"", "x", "", NULL};
        s = PMIx_Argv_join(both, '/');
        line("Argv_join empties", "%s", qs(s));
        free(s);
    }

    {
        struct {
            const char *src;
            int delim;
        } splits[] = {{"a,b,,c", ','}, {":a::b:", ':'}, {":::", ':'}, {"", ':'}, {"abc", ':'},
                      {"a b  c ", ' '}, {"x\xe9y", 0xe9}, {"x\xe9y", (char) 0xe9}};
        size_t i;
        for (i = 0; i < sizeof(splits) / sizeof(splits[0]); i++) {
            char **s1 = PMIx_Argv_split(splits[i].src, splits[i].delim);
            char **s2 = PMIx_Argv_split_with_empty(splits[i].src, splits[i].delim);
            char **s3 = PMIx_Argv_split_inter(splits[i].src, splits[i].delim, false);
            char **s4 = PMIx_Argv_split_inter(splits[i].src, splits[i].delim, true);
            line("Argv_split", "case %zu: split=%s with_empty=%s inter0=%s inter1=%s", i, argv_text(s1),
                 argv_text(s2), argv_text(s3), argv_text(s4));
            PMIx_Argv_free(s1);
            PMIx_Argv_free(s2);
            PMIx_Argv_free(s3);
            PMIx_Argv_free(s4);
        }
        char **s1 = PMIx_Argv_split(NULL, ',');
        char **s2 = PMIx_Argv_split_with_empty(NULL, ',');
        line("Argv_split NULL", "%s %s", argv_text(s1), argv_text(s2));
        PMIx_Argv_free(s1);
        PMIx_Argv_free(s2);
    }
    /* a field longer than OpenPMIx's 512-byte stack buffer */
    memset(longf, 'L', 600);
    strcpy(longf + 600, ",tail");
    c = PMIx_Argv_split(longf, ',');
    line("Argv_split long field", "%s", argv_text(c));
    PMIx_Argv_free(c);
    longf[600] = '\0';
    c = PMIx_Argv_split(longf, ',');
    line("Argv_split long tail", "%s", argv_text(c));
    PMIx_Argv_free(c);
}

static void setenvs(void)
{
    char **env = NULL;
    int r[6];
    const char *name = "V5_EXPORTS_SETENV_TEST";

    r[0] = PMIx_Setenv("A", "1", false, &env);
    r[1] = PMIx_Setenv("AB", NULL, false, &env);
    r[2] = PMIx_Setenv("A", "2", false, &env);
    r[3] = PMIx_Setenv("A", "3", true, &env);
    r[4] = PMIx_Setenv("B", "x=y", true, &env);
    r[5] = PMIx_Setenv("A", "1", true, NULL);
    line("Setenv array", "%d %d %d %d %d NULL-env=%d %s", r[0], r[1], r[2], r[3], r[4], r[5], argv_text(env));
    PMIx_Argv_free(env);

    r[0] = PMIx_Setenv(name, "x", true, &environ);
    line("Setenv environ", "%d %s", r[0], qs(getenv(name)));
    r[0] = PMIx_Setenv(name, "y", false, &environ);
    line("Setenv environ keep", "%d %s", r[0], qs(getenv(name)));
    r[0] = PMIx_Setenv(name, "z", true, &environ);
    line("Setenv environ overwrite", "%d %s", r[0], qs(getenv(name)));
    r[0] = PMIx_Setenv(name, NULL, true, &environ);
    line("Setenv environ unset", "%d %s", r[0], qs(getenv(name)));
}

/* ------------------------------------------------------------------------ */
/* Status names                                                              */
/* ------------------------------------------------------------------------ */

/* The status and event constants of OpenPMIx 5.0.7's pmix_common.h and
 * pmix_deprecated.h, and three of its internal codes. */
static const char *status_names[] = {
    "PMIX_SUCCESS", "PMIX_ERROR", "PMIX_ERR_PROC_RESTART", "PMIX_ERR_PROC_CHECKPOINT", "PMIX_ERR_PROC_MIGRATE",
    "PMIX_ERR_EXISTS", "PMIX_ERR_INVALID_CRED", "PMIX_ERR_WOULD_BLOCK", "PMIX_ERR_UNKNOWN_DATA_TYPE",
    "PMIX_ERR_TYPE_MISMATCH", "PMIX_ERR_UNPACK_INADEQUATE_SPACE", "PMIX_ERR_UNPACK_FAILURE",
    "PMIX_ERR_PACK_FAILURE", "PMIX_ERR_NO_PERMISSIONS", "PMIX_ERR_TIMEOUT", "PMIX_ERR_UNREACH",
    "PMIX_ERR_BAD_PARAM", "PMIX_ERR_RESOURCE_BUSY", "PMIX_ERR_OUT_OF_RESOURCE", "PMIX_ERR_INIT",
    "PMIX_ERR_NOMEM", "PMIX_ERR_NOT_FOUND", "PMIX_ERR_NOT_SUPPORTED", "PMIX_ERR_PARAM_VALUE_NOT_SUPPORTED",
    "PMIX_ERR_COMM_FAILURE", "PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER",
    "PMIX_ERR_CONFLICTING_CLEANUP_DIRECTIVES", "PMIX_ERR_PARTIAL_SUCCESS", "PMIX_ERR_DUPLICATE_KEY",
    "PMIX_ERR_EMPTY", "PMIX_ERR_LOST_CONNECTION", "PMIX_ERR_EXISTS_OUTSIDE_SCOPE", "PMIX_PROCESS_SET_DEFINE",
    "PMIX_PROCESS_SET_DELETE", "PMIX_DEBUGGER_RELEASE", "PMIX_READY_FOR_DEBUG", "PMIX_QUERY_PARTIAL_SUCCESS",
    "PMIX_JCTRL_CHECKPOINT", "PMIX_JCTRL_CHECKPOINT_COMPLETE", "PMIX_JCTRL_PREEMPT_ALERT",
    "PMIX_MONITOR_HEARTBEAT_ALERT", "PMIX_MONITOR_FILE_ALERT", "PMIX_PROC_TERMINATED",
    "PMIX_ERR_EVENT_REGISTRATION", "PMIX_MODEL_DECLARED", "PMIX_MODEL_RESOURCES",
    "PMIX_OPENMP_PARALLEL_ENTERED", "PMIX_OPENMP_PARALLEL_EXITED", "PMIX_LAUNCHER_READY",
    "PMIX_OPERATION_IN_PROGRESS", "PMIX_OPERATION_SUCCEEDED", "PMIX_ERR_INVALID_OPERATION",
    "PMIX_GROUP_INVITED", "PMIX_GROUP_LEFT", "PMIX_GROUP_INVITE_ACCEPTED", "PMIX_GROUP_INVITE_DECLINED",
    "PMIX_GROUP_INVITE_FAILED", "PMIX_GROUP_MEMBERSHIP_UPDATE", "PMIX_GROUP_CONSTRUCT_ABORT",
    "PMIX_GROUP_CONSTRUCT_COMPLETE", "PMIX_GROUP_LEADER_SELECTED", "PMIX_GROUP_LEADER_FAILED",
    "PMIX_GROUP_CONTEXT_ID_ASSIGNED", "PMIX_GROUP_MEMBER_FAILED", "PMIX_ERR_REPEAT_ATTR_REGISTRATION",
    "PMIX_ERR_IOF_FAILURE", "PMIX_ERR_IOF_COMPLETE", "PMIX_LAUNCH_COMPLETE", "PMIX_FABRIC_UPDATED",
    "PMIX_FABRIC_UPDATE_PENDING", "PMIX_FABRIC_UPDATE_ENDPOINTS", "PMIX_ERR_JOB_APP_NOT_EXECUTABLE",
    "PMIX_ERR_JOB_NO_EXE_SPECIFIED", "PMIX_ERR_JOB_FAILED_TO_MAP", "PMIX_ERR_JOB_CANCELED",
    "PMIX_ERR_JOB_FAILED_TO_LAUNCH", "PMIX_ERR_JOB_ABORTED", "PMIX_ERR_JOB_KILLED_BY_CMD",
    "PMIX_ERR_JOB_ABORTED_BY_SIG", "PMIX_ERR_JOB_TERM_WO_SYNC", "PMIX_ERR_JOB_SENSOR_BOUND_EXCEEDED",
    "PMIX_ERR_JOB_NON_ZERO_TERM", "PMIX_ERR_JOB_ALLOC_FAILED", "PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT",
    "PMIX_ERR_JOB_EXE_NOT_FOUND", "PMIX_ERR_JOB_WDIR_NOT_FOUND", "PMIX_ERR_JOB_INSUFFICIENT_RESOURCES",
    "PMIX_ERR_JOB_SYS_OP_FAILED", "PMIX_EVENT_JOB_START", "PMIX_EVENT_JOB_END", "PMIX_EVENT_SESSION_START",
    "PMIX_EVENT_SESSION_END", "PMIX_ERR_PROC_REQUESTED_ABORT", "PMIX_ERR_PROC_TERM_WO_SYNC",
    "PMIX_EVENT_PROC_TERMINATED", "PMIX_ERR_PROC_KILLED_BY_CMD", "PMIX_ERR_PROC_FAILED_TO_START",
    "PMIX_ERR_PROC_ABORTED_BY_SIG", "PMIX_ERR_PROC_SENSOR_BOUND_EXCEEDED", "PMIX_ERR_EXIT_NONZERO_TERM",
    "PMIX_EVENT_SYS_BASE", "PMIX_EVENT_NODE_DOWN", "PMIX_EVENT_NODE_OFFLINE", "PMIX_EVENT_SYS_OTHER",
    "PMIX_EVENT_NO_ACTION_TAKEN", "PMIX_EVENT_PARTIAL_ACTION_TAKEN", "PMIX_EVENT_ACTION_DEFERRED",
    "PMIX_EVENT_ACTION_COMPLETE", "PMIX_ERR_SILENT", "PMIX_ERR_DEBUGGER_RELEASE", "PMIX_ERR_PROC_ABORTED",
    "PMIX_ERR_PROC_ABORTING", "PMIX_ERR_SERVER_FAILED_REQUEST", "PMIX_EXISTS", "PMIX_ERR_HANDSHAKE_FAILED",
    "PMIX_ERR_READY_FOR_HANDSHAKE", "PMIX_ERR_PROC_ENTRY_NOT_FOUND", "PMIX_ERR_PACK_MISMATCH",
    "PMIX_ERR_IN_ERRNO", "PMIX_ERR_DATA_VALUE_NOT_FOUND", "PMIX_ERR_INVALID_ARG", "PMIX_ERR_INVALID_KEY",
    "PMIX_ERR_INVALID_KEY_LENGTH", "PMIX_ERR_INVALID_VAL", "PMIX_ERR_INVALID_VAL_LENGTH",
    "PMIX_ERR_INVALID_LENGTH", "PMIX_ERR_INVALID_NUM_ARGS", "PMIX_ERR_INVALID_ARGS",
    "PMIX_ERR_INVALID_NUM_PARSED", "PMIX_ERR_INVALID_KEYVALP", "PMIX_ERR_INVALID_SIZE",
    "PMIX_ERR_INVALID_NAMESPACE", "PMIX_ERR_SERVER_NOT_AVAIL", "PMIX_ERR_NOT_IMPLEMENTED",
    "PMIX_DEBUG_WAITING_FOR_NOTIFY", "PMIX_ERR_FATAL", "PMIX_ERR_NOT_AVAILABLE", "PMIX_ERR_VALUE_OUT_OF_BOUNDS",
    "PMIX_ERR_FILE_OPEN_FAILURE", "PMIX_ERR_FILE_READ_FAILURE", "PMIX_ERR_FILE_WRITE_FAILURE",
    "PMIX_ERR_SYS_LIMITS_PIPES", "PMIX_ERR_SYS_LIMITS_CHILDREN", "PMIX_ERR_PIPE_SETUP_FAILURE",
    "PMIX_ERR_EXE_NOT_ACCESSIBLE", "PMIX_ERR_JOB_WDIR_NOT_ACCESSIBLE", "PMIX_ERR_SYS_LIMITS_FILES",
    "PMIX_ERR_LOST_CONNECTION_TO_SERVER", "PMIX_ERR_LOST_PEER_CONNECTION", "PMIX_ERR_LOST_CONNECTION_TO_CLIENT",
    "PMIX_NOTIFY_ALLOC_COMPLETE", "PMIX_ERR_INVALID_TERMINATION", "PMIX_ERR_JOB_TERMINATED",
    "PMIX_ERR_UPDATE_ENDPOINTS", "PMIX_GDS_ACTION_COMPLETE", "PMIX_PROC_HAS_CONNECTED", "PMIX_CONNECT_REQUESTED",
    "PMIX_ERR_NODE_DOWN", "PMIX_ERR_NODE_OFFLINE", "PMIX_ERR_SYS_BASE", "PMIX_ERR_SYS_OTHER",
    "PMIX_ERR_FABRIC_NOT_PARSEABLE", "PMIX_ERR_TAKE_NEXT_OPTION", "PMIX_ERR_TEMP_UNAVAILABLE",
    /* case is ignored; unknown names are INT32_MIN */
    "pmix_err_bad_param", "Pmix_Success", "pMiX_eRr_TiMeOuT", "PMIX_ERR_NO_SUCH_THING", "PMIX_ERR_BAD_PARAM ",
    " PMIX_ERR_BAD_PARAM", "PMIX_ERR_BAD", "", "ERROR STRING NOT FOUND", "PMIX_MAX_NSLEN", NULL};

static void errors(void)
{
    size_t i;
    for (i = 0; NULL != status_names[i]; i++) {
        line("Error_code", "%s=%d", qs(status_names[i]), PMIx_Error_code(status_names[i]));
    }
}

/* ------------------------------------------------------------------------ */
/* Values and infos                                                          */
/* ------------------------------------------------------------------------ */

static const char *vtrue_text(pmix_boolean_t b)
{
    return PMIX_BOOL_TRUE == b ? "true" : PMIX_BOOL_FALSE == b ? "false" : PMIX_NON_BOOL == b ? "non-bool" : "?";
}

static void values(void)
{
    pmix_value_t v, *vs;
    size_t i;
    const char *strs[] = {"yes", "YES", "Yesterday", "true", "TRUE", "no", "No", "nonsense", "false", "FALSE",
                          "0", "1", "42", " 7", "0x10", "12abc", "-1", " ", "", "\t\n", "maybe", "on", "off"};

    memset(&v, 0x5a, sizeof(v));
    PMIx_Value_construct(&v);
    line("Value_construct", "type=%u uint64=%llu", (unsigned) v.type, (unsigned long long) v.data.uint64);
    vs = PMIx_Value_create(3);
    line("Value_create 3", "%s %s %s", value_text(&vs[0]), value_text(&vs[1]), value_text(&vs[2]));
    vs[1].type = PMIX_STRING;
    vs[1].data.string = strdup("owned");
    vs[2].type = PMIX_BYTE_OBJECT;
    vs[2].data.bo.bytes = strdup("bytes");
    vs[2].data.bo.size = 5;
    PMIx_Value_free(vs, 3);
    CREATE_NONE("Value_create 0", pmix_value_t, PMIx_Value_create(0), PMIx_Value_free(z_, 0));
    PMIx_Value_free(NULL, 0);

    for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
        PMIx_Value_construct(&v);
        v.type = PMIX_STRING;
        v.data.string = (char *) strs[i];
        line("Value_true", "%s -> %s", qs(strs[i]), vtrue_text(PMIx_Value_true(&v)));
    }
    PMIx_Value_construct(&v);
    line("Value_true", "undef -> %s", vtrue_text(PMIx_Value_true(&v)));
    v.type = PMIX_STRING;
    v.data.string = NULL;
    line("Value_true", "NULL string -> %s", vtrue_text(PMIx_Value_true(&v)));
    v.type = PMIX_BOOL;
    v.data.flag = true;
    line("Value_true", "bool true -> %s", vtrue_text(PMIx_Value_true(&v)));
    v.data.flag = false;
    line("Value_true", "bool false -> %s", vtrue_text(PMIx_Value_true(&v)));
    v.type = PMIX_INT;
    v.data.integer = 1;
    line("Value_true", "int 1 -> %s", vtrue_text(PMIx_Value_true(&v)));
    v.type = PMIX_UINT8;
    v.data.uint8 = 1;
    line("Value_true", "uint8 1 -> %s", vtrue_text(PMIx_Value_true(&v)));
}

static void infos(void)
{
    pmix_info_t i, *is;
    char fixed[] = "not-owned";
    uint32_t u = 7;

    memset(&i, 0x5a, sizeof(i));
    PMIx_Info_construct(&i);
    line("Info_construct", "%s", info_text(&i));
    is = PMIx_Info_create(3);
    line("Info_create 3", "%s | %s | %s", info_text(&is[0]), info_text(&is[1]), info_text(&is[2]));
    CREATE_NONE("Info_create 0", pmix_info_t, PMIx_Info_create(0), PMIx_Info_free(z_, 0));

    /* the directive bits, one call after the other */
    PMIx_Info_required(&is[0]);
    line("Info_required", "flags=0x%x is_required=%d is_optional=%d", (unsigned) is[0].flags,
         PMIx_Info_is_required(&is[0]), PMIx_Info_is_optional(&is[0]));
    PMIx_Info_processed(&is[0]);
    line("Info_processed", "flags=0x%x was_processed=%d", (unsigned) is[0].flags, PMIx_Info_was_processed(&is[0]));
    PMIx_Info_optional(&is[0]);
    line("Info_optional", "flags=0x%x is_required=%d is_optional=%d was_processed=%d", (unsigned) is[0].flags,
         PMIx_Info_is_required(&is[0]), PMIx_Info_is_optional(&is[0]), PMIx_Info_was_processed(&is[0]));
    PMIx_Info_set_end(&is[2]);
    line("Info_set_end", "flags=0x%x is_end=%d other=%d", (unsigned) is[2].flags, PMIx_Info_is_end(&is[2]),
         PMIx_Info_is_end(&is[1]));
    PMIx_Info_qualifier(&is[1]);
    line("Info_qualifier", "flags=0x%x is_qualifier=%d other=%d", (unsigned) is[1].flags,
         PMIx_Info_is_qualifier(&is[1]), PMIx_Info_is_qualifier(&is[0]));
    line("Info_is_persistent", "before=%d", PMIx_Info_is_persistent(&is[1]));

    /* values: [0] a copy it owns, [1] persistent, pointing to memory it does
     * not own (Info_free must leave it alone), [2] a number */
    PMIx_Info_load(&is[0], "k.owned", "text", PMIX_STRING);
    PMIx_Load_key(is[1].key, "k.fixed");
    is[1].value.type = PMIX_STRING;
    is[1].value.data.string = fixed;
    PMIx_Info_persistent(&is[1]);
    line("Info_persistent", "flags=0x%x is_persistent=%d", (unsigned) is[1].flags, PMIx_Info_is_persistent(&is[1]));
    PMIx_Info_load(&is[2], "k.u32", &u, PMIX_UINT32);
    line("Info loaded", "%s | %s | %s", info_text(&is[0]), info_text(&is[1]), info_text(&is[2]));
    line("Info_true", "string=%s persistent-string=%s u32=%s", vtrue_text(PMIx_Info_true(&is[0])),
         vtrue_text(PMIx_Info_true(&is[1])), vtrue_text(PMIx_Info_true(&is[2])));
    PMIx_Info_free(is, 3);

    /* destruct: the value goes (unless persistent), key and flags stay */
    PMIx_Info_load(&i, "k.d", "gone", PMIX_STRING);
    PMIx_Info_required(&i);
    PMIx_Info_destruct(&i);
    line("Info_destruct", "%s", info_text(&i));
    PMIx_Info_construct(&i);
    PMIx_Load_key(i.key, "k.p");
    i.value.type = PMIX_STRING;
    i.value.data.string = fixed;
    PMIx_Info_persistent(&i);
    PMIx_Info_destruct(&i);
    line("Info_destruct persistent", "%s", info_text(&i));
    {
        pmix_value_t bv;
        PMIx_Info_construct(&i);
        line("Info_true", "undef -> %s", vtrue_text(PMIx_Info_true(&i)));
        PMIx_Value_construct(&bv);
        i.value.type = PMIX_STRING;
        i.value.data.string = "off";
        line("Info_true", "\"off\" -> %s", vtrue_text(PMIx_Info_true(&i)));
        i.value.data.string = "False";
        line("Info_true", "\"False\" -> %s", vtrue_text(PMIx_Info_true(&i)));
        i.value.type = PMIX_BOOL;
        i.value.data.flag = true;
        line("Info_true", "bool true -> %s", vtrue_text(PMIx_Info_true(&i)));
    }
}

static void info_lists(void)
{
    void *l, *cur, *next;
    pmix_info_t *ip, ins;
    pmix_data_array_t d;
    uint32_t u = 5;
    size_t n;
    int rc1, rc2, rc3;

    l = PMIx_Info_list_start();
    rc1 = PMIx_Info_list_add(l, "b", "2", PMIX_STRING);
    rc2 = PMIx_Info_list_prepend(l, "a", "1", PMIX_STRING);
    rc3 = PMIx_Info_list_prepend(l, "u", &u, PMIX_UINT32);
    line("Info_list_prepend", "%d %d %d", rc1, rc2, rc3);
    cur = NULL;
    n = 0;
    do {
        next = (void *) 1;
        ip = PMIx_Info_list_get_info(l, cur, &next);
        line("Info_list_get_info", "%zu: %s next=%s", n++, info_text(ip), nonnull(next));
        cur = next;
    } while (NULL != cur);
    rc1 = PMIx_Info_list_convert(l, &d);
    line("Info_list_convert", "%d size=%zu first=%s last=%s", rc1, d.size, info_text(&((pmix_info_t *) d.array)[0]),
         info_text(&((pmix_info_t *) d.array)[d.size - 1]));
    PMIx_Data_array_destruct(&d);
    PMIx_Info_list_release(l);

    /* a list of one: get_info says there is no next. (An empty list is not
     * read: OpenPMIx 5.0.7 hands back its list head as an info; rpmix's
     * NULL is checked in the rpmix-only part.) */
    l = PMIx_Info_list_start();
    PMIx_Info_list_prepend(l, "only", "x", PMIX_STRING);
    next = (void *) 1;
    ip = PMIx_Info_list_get_info(l, NULL, &next);
    line("Info_list_get_info one", "%s next=%s", info_text(ip), nonnull(next));
    PMIx_Info_list_release(l);

    /* an info inserted into the list, then read back: OpenPMIx 5.0.7 keeps
     * a shallow copy marked PMIX_INFO_PERSISTENT and get_info returns that
     * copy */
    l = PMIx_Info_list_start();
    PMIx_Info_load(&ins, "ins", "mine", PMIX_STRING);
    PMIx_Info_list_prepend(l, "p", "q", PMIX_STRING);
    PMIx_Info_list_insert(l, &ins);
    cur = NULL;
    do {
        next = (void *) 1;
        ip = PMIx_Info_list_get_info(l, cur, &next);
        line("Info_list_get_info inserted", "%s", info_text(ip));
        cur = next;
    } while (NULL != cur);
    PMIx_Info_list_release(l);
    line("Info_list inserted after release", "%s", info_text(&ins));
    PMIx_Info_destruct(&ins);
}

/* ------------------------------------------------------------------------ */
/* Object lifecycles                                                         */
/* ------------------------------------------------------------------------ */

static char *dupbytes(const char *s, size_t n)
{
    char *b = malloc(n);
    memcpy(b, s, n);
    return b;
}

static void byte_objects(void)
{
    pmix_byte_object_t bo, *bos;

    memset(&bo, 0x5a, sizeof(bo));
    PMIx_Byte_object_construct(&bo);
    line("Byte_object_construct", "bytes=%s size=%zu", nonnull(bo.bytes), bo.size);
    PMIx_Byte_object_load(&bo, dupbytes("abc", 3), 3);
    line("Byte_object_load", "%zu [%.*s]", bo.size, (int) bo.size, bo.bytes);
    PMIx_Byte_object_destruct(&bo);
    line("Byte_object_destruct", "bytes=%s size=%zu", nonnull(bo.bytes), bo.size);
    bos = PMIx_Byte_object_create(2);
    line("Byte_object_create 2", "%s/%zu %s/%zu", nonnull(bos[0].bytes), bos[0].size, nonnull(bos[1].bytes),
         bos[1].size);
    PMIx_Byte_object_load(&bos[1], dupbytes("xyz!", 4), 4);
    line("Byte_object_load [1]", "%zu [%.*s]", bos[1].size, (int) bos[1].size, bos[1].bytes);
    PMIx_Byte_object_free(bos, 2);
    CREATE_NONE("Byte_object_create 0", pmix_byte_object_t, PMIx_Byte_object_create(0), PMIx_Byte_object_free(z_, 0));
    PMIx_Byte_object_free(NULL, 3);
}

static void coords(void)
{
    pmix_coord_t c, *cs;

    memset(&c, 0x5a, sizeof(c));
    PMIx_Coord_construct(&c);
    line("Coord_construct", "view=%u coord=%s dims=%zu", (unsigned) c.view, nonnull(c.coord), c.dims);
    /* OpenPMIx 5.0.7 fills only the first element of PMIx_Coord_create's
     * array, so only arrays of one are compared (rpmix-only: more). */
    cs = PMIx_Coord_create(3, 1);
    line("Coord_create 3x1", "view=%u dims=%zu coords=%u,%u,%u", (unsigned) cs[0].view, cs[0].dims, cs[0].coord[0],
         cs[0].coord[1], cs[0].coord[2]);
    cs[0].view = PMIX_COORD_PHYSICAL_VIEW;
    cs[0].coord[2] = 9;
    PMIx_Coord_free(cs, 1);
    cs = PMIx_Coord_create(0, 1);
    line("Coord_create 0x1", "view=%u dims=%zu coord=%s", (unsigned) cs[0].view, cs[0].dims, nonnull(cs[0].coord));
    PMIx_Coord_free(cs, 1);
    CREATE_NONE("Coord_create 2x0", pmix_coord_t, PMIx_Coord_create(2, 0), PMIx_Coord_free(z_, 0));
    c.view = PMIX_COORD_LOGICAL_VIEW;
    c.dims = 2;
    c.coord = calloc(2, sizeof(uint32_t));
    PMIx_Coord_destruct(&c);
    line("Coord_destruct", "view=%u coord=%s dims=%zu", (unsigned) c.view, nonnull(c.coord), c.dims);
    PMIx_Coord_free(NULL, 2);
}

static void cpusets_topologies(void)
{
    pmix_cpuset_t cs, *css;
    pmix_topology_t t, *ts;

    memset(&cs, 0x5a, sizeof(cs));
    PMIx_Cpuset_construct(&cs);
    line("Cpuset_construct", "source=%s bitmap=%s", nonnull(cs.source), nonnull(cs.bitmap));
    css = PMIx_Cpuset_create(2);
    line("Cpuset_create 2", "%s/%s %s/%s", nonnull(css[0].source), nonnull(css[0].bitmap), nonnull(css[1].source),
         nonnull(css[1].bitmap));
    PMIx_Cpuset_free(css, 2);
    CREATE_NONE("Cpuset_create 0", pmix_cpuset_t, PMIx_Cpuset_create(0), PMIx_Cpuset_free(z_, 0));
    PMIx_Cpuset_free(NULL, 1);

    memset(&t, 0x5a, sizeof(t));
    PMIx_Topology_construct(&t);
    line("Topology_construct", "source=%s topology=%s", nonnull(t.source), nonnull(t.topology));
    ts = PMIx_Topology_create(2);
    line("Topology_create 2", "%s/%s %s/%s", nonnull(ts[0].source), nonnull(ts[0].topology), nonnull(ts[1].source),
         nonnull(ts[1].topology));
    PMIx_Topology_free(ts, 2);
    CREATE_NONE("Topology_create 0", pmix_topology_t, PMIx_Topology_create(0), PMIx_Topology_free(z_, 0));
    PMIx_Topology_free(NULL, 1);
}

/* whether n bytes at p are all zero */
static const char *zeros(const void *p, size_t n)
{
    const unsigned char *c = p;
    size_t i;
    for (i = 0; i < n; i++) {
        if (c[i]) {
            return "nonzero";
        }
    }
    return "zero";
}

/* the element defaults of a constructed data array, by type */
static const char *darray_elem0(const pmix_data_array_t *d)
{
    char *b = nextbuf();
    size_t esz = 0;
    if (NULL == d->array || 0 == d->size) {
        return "-";
    }
    switch (d->type) {
    case PMIX_BOOL:
    case PMIX_BYTE:
    case PMIX_INT8:
    case PMIX_UINT8:
    case PMIX_PERSIST:
    case PMIX_SCOPE:
    case PMIX_DATA_RANGE:
    case PMIX_PROC_STATE:
    case PMIX_ALLOC_DIRECTIVE:
    case PMIX_LINK_STATE:
        esz = 1;
        break;
    case PMIX_INT16:
    case PMIX_UINT16:
    case PMIX_DATA_TYPE:
    case PMIX_IOF_CHANNEL:
        esz = 2;
        break;
    case PMIX_INT:
    case PMIX_UINT:
    case PMIX_INT32:
    case PMIX_PID:
    case PMIX_STATUS:
    case PMIX_PROC_RANK:
    case PMIX_INFO_DIRECTIVES:
    case PMIX_FLOAT:
        esz = 4;
        break;
    case PMIX_SIZE:
    case PMIX_INT64:
    case PMIX_DOUBLE:
    case PMIX_TIME:
        esz = 8;
        break;
    case PMIX_TIMEVAL:
        esz = sizeof(struct timeval);
        break;
    default:
        break;
    }
    if (esz) {
        /* every element of a numeric array */
        return zeros(d->array, esz * d->size);
    }
    switch (d->type) {
    case PMIX_ENVAR:
        snprintf(b, BUFLEN, "%s %s %d", nonnull(((pmix_envar_t *) d->array)->envar),
                 nonnull(((pmix_envar_t *) d->array)->value), ((pmix_envar_t *) d->array)->separator);
        return b;
    case PMIX_QUERY:
        snprintf(b, BUFLEN, "keys=%s qualifiers=%s/%zu", nonnull(((pmix_query_t *) d->array)->keys),
                 nonnull(((pmix_query_t *) d->array)->qualifiers), ((pmix_query_t *) d->array)->nqual);
        return b;
    case PMIX_APP:
        snprintf(b, BUFLEN, "cmd=%s argv=%s maxprocs=%d info=%s/%zu", nonnull(((pmix_app_t *) d->array)->cmd),
                 nonnull(((pmix_app_t *) d->array)->argv), ((pmix_app_t *) d->array)->maxprocs,
                 nonnull(((pmix_app_t *) d->array)->info), ((pmix_app_t *) d->array)->ninfo);
        return b;
    case PMIX_BYTE_OBJECT:
    case PMIX_COMPRESSED_STRING:
        snprintf(b, BUFLEN, "%s/%zu", nonnull(((pmix_byte_object_t *) d->array)->bytes),
                 ((pmix_byte_object_t *) d->array)->size);
        return b;
    case PMIX_COORD:
        snprintf(b, BUFLEN, "view=%u coord=%s dims=%zu", (unsigned) ((pmix_coord_t *) d->array)->view,
                 nonnull(((pmix_coord_t *) d->array)->coord), ((pmix_coord_t *) d->array)->dims);
        return b;
    case PMIX_ENDPOINT:
        snprintf(b, BUFLEN, "%s %s %s/%zu", nonnull(((pmix_endpoint_t *) d->array)->uuid),
                 nonnull(((pmix_endpoint_t *) d->array)->osname), nonnull(((pmix_endpoint_t *) d->array)->endpt.bytes),
                 ((pmix_endpoint_t *) d->array)->endpt.size);
        return b;
    case PMIX_PROC_STATS:
        snprintf(b, BUFLEN, "node=%s cmd=%s rank=%u", nonnull(((pmix_proc_stats_t *) d->array)->node),
                 nonnull(((pmix_proc_stats_t *) d->array)->cmd), ((pmix_proc_stats_t *) d->array)->proc.rank);
        return b;
    case PMIX_DISK_STATS:
        snprintf(b, BUFLEN, "disk=%s reads=%llu", nonnull(((pmix_disk_stats_t *) d->array)->disk),
                 (unsigned long long) ((pmix_disk_stats_t *) d->array)->num_reads_completed);
        return b;
    case PMIX_NET_STATS:
        snprintf(b, BUFLEN, "if=%s sent=%llu", nonnull(((pmix_net_stats_t *) d->array)->net_interface),
                 (unsigned long long) ((pmix_net_stats_t *) d->array)->num_bytes_sent);
        return b;
    case PMIX_NODE_STATS:
        snprintf(b, BUFLEN, "node=%s disks=%s/%zu nets=%s/%zu", nonnull(((pmix_node_stats_t *) d->array)->node),
                 nonnull(((pmix_node_stats_t *) d->array)->diskstats), ((pmix_node_stats_t *) d->array)->ndiskstats,
                 nonnull(((pmix_node_stats_t *) d->array)->netstats), ((pmix_node_stats_t *) d->array)->nnetstats);
        return b;
    case PMIX_GEOMETRY:
        snprintf(b, BUFLEN, "fabric=%zu uuid=%s coords=%s/%zu", ((pmix_geometry_t *) d->array)->fabric,
                 nonnull(((pmix_geometry_t *) d->array)->uuid), nonnull(((pmix_geometry_t *) d->array)->coordinates),
                 ((pmix_geometry_t *) d->array)->ncoords);
        return b;
    case PMIX_PROC_CPUSET:
        snprintf(b, BUFLEN, "source=%s bitmap=%s", nonnull(((pmix_cpuset_t *) d->array)->source),
                 nonnull(((pmix_cpuset_t *) d->array)->bitmap));
        return b;
    case PMIX_INFO:
        return info_text((pmix_info_t *) d->array);
    case PMIX_PROC:
        snprintf(b, BUFLEN, "%s:%u", qs(((pmix_proc_t *) d->array)->nspace), ((pmix_proc_t *) d->array)->rank);
        return b;
    case PMIX_PROC_INFO:
        snprintf(b, BUFLEN, "state=%u rank=%u", (unsigned) ((pmix_proc_info_t *) d->array)->state,
                 ((pmix_proc_info_t *) d->array)->proc.rank);
        return b;
    case PMIX_VALUE:
        return value_text((pmix_value_t *) d->array);
    case PMIX_PDATA:
        snprintf(b, BUFLEN, "%s %s", qs(((pmix_pdata_t *) d->array)->key),
                 value_text(&((pmix_pdata_t *) d->array)->value));
        return b;
    case PMIX_DEVICE_DIST:
        snprintf(b, BUFLEN, "type=%llu min=%u max=%u",
                 (unsigned long long) ((pmix_device_distance_t *) d->array)->type,
                 ((pmix_device_distance_t *) d->array)->mindist, ((pmix_device_distance_t *) d->array)->maxdist);
        return b;
    case PMIX_REGATTR:
        snprintf(b, BUFLEN, "type=%u name=%s", (unsigned) ((pmix_regattr_t *) d->array)->type,
                 nonnull(((pmix_regattr_t *) d->array)->name));
        return b;
    case PMIX_STRING:
        snprintf(b, BUFLEN, "%s,%s,%s", nonnull(((char **) d->array)[0]), nonnull(((char **) d->array)[1]),
                 nonnull(((char **) d->array)[2]));
        return b;
    case PMIX_UINT32:
    case PMIX_UINT64:
        return zeros(d->array, (PMIX_UINT32 == d->type ? 4 : 8) * d->size);
    case PMIX_PROC_NSPACE:
        return zeros(d->array, sizeof(pmix_nspace_t) * d->size);
    default:
        /* PMIX_POINTER: OpenPMIx 5.0.7 allocates one byte per element */
        return "...";
    }
}

static void data_arrays(void)
{
    pmix_data_array_t d, *dp;
    size_t i;
    /* the types OpenPMIx 5.0.7's PMIx_Data_array_construct knows; for the
     * others it leaves the array empty where rpmix makes the elements
     * (rpmix-only section) */
    pmix_data_type_t types[] = {PMIX_INFO,      PMIX_PROC,        PMIX_PROC_INFO,   PMIX_ENVAR,      PMIX_VALUE,
                                PMIX_PDATA,     PMIX_QUERY,       PMIX_APP,         PMIX_BYTE_OBJECT,
                                PMIX_COMPRESSED_STRING,           PMIX_ALLOC_DIRECTIVE,              PMIX_PROC_STATE,
                                PMIX_PERSIST,   PMIX_SCOPE,       PMIX_DATA_RANGE,  PMIX_BYTE,       PMIX_INT8,
                                PMIX_UINT8,     PMIX_POINTER,     PMIX_STRING,      PMIX_SIZE,       PMIX_PID,
                                PMIX_INT,       PMIX_UINT,        PMIX_STATUS,      PMIX_IOF_CHANNEL,
                                PMIX_DATA_TYPE, PMIX_INT16,       PMIX_UINT16,      PMIX_PROC_RANK,
                                PMIX_INFO_DIRECTIVES,             PMIX_INT32,       PMIX_UINT32,     PMIX_INT64,
                                PMIX_UINT64,    PMIX_FLOAT,       PMIX_DOUBLE,      PMIX_TIMEVAL,    PMIX_TIME,
                                PMIX_REGATTR,   PMIX_BOOL,        PMIX_COORD,       PMIX_LINK_STATE, PMIX_ENDPOINT,
                                PMIX_PROC_NSPACE, PMIX_PROC_STATS, PMIX_DISK_STATS, PMIX_NET_STATS,
                                PMIX_NODE_STATS, PMIX_DEVICE_DIST, PMIX_GEOMETRY,   PMIX_PROC_CPUSET};

    memset(&d, 0x5a, sizeof(d));
    PMIx_Data_array_init(&d, PMIX_UINT32);
    line("Data_array_init", "type=%u size=%zu array=%s", (unsigned) d.type, d.size, nonnull(d.array));
    for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        memset(&d, 0x5a, sizeof(d));
        PMIx_Data_array_construct(&d, 3, types[i]);
        line("Data_array_construct", "type=%u size=%zu array=%s elems=%s", (unsigned) types[i], d.size,
             nonnull(d.array), darray_elem0(&d));
        PMIx_Data_array_destruct(&d);
    }
    memset(&d, 0x5a, sizeof(d));
    PMIx_Data_array_construct(&d, 0, PMIX_INFO);
    line("Data_array_construct 0", "type=%u size=%zu array=%s", (unsigned) d.type, d.size, nonnull(d.array));
    PMIx_Data_array_destruct(&d);
    memset(&d, 0x5a, sizeof(d));
    PMIx_Data_array_construct(&d, 2, 0x7ff0);
    line("Data_array_construct unknown", "type=%u size=%zu array=%s", (unsigned) d.type, d.size, nonnull(d.array));
    PMIx_Data_array_destruct(&d);
    memset(&d, 0x5a, sizeof(d));
    PMIx_Data_array_construct(&d, 2, PMIX_UNDEF);
    line("Data_array_construct undef", "type=%u size=%zu array=%s", (unsigned) d.type, d.size, nonnull(d.array));
    PMIx_Data_array_destruct(&d);

    dp = PMIx_Data_array_create(2, PMIX_STRING);
    line("Data_array_create 2", "type=%u size=%zu elems=%s,%s", (unsigned) dp->type, dp->size,
         qs(((char **) dp->array)[0]), qs(((char **) dp->array)[1]));
    ((char **) dp->array)[0] = strdup("s0");
    ((char **) dp->array)[1] = strdup("s1");
    PMIx_Data_array_free(dp);
    dp = PMIx_Data_array_create(2, PMIX_INFO);
    PMIx_Info_load(&((pmix_info_t *) dp->array)[1], "k", "v", PMIX_STRING);
    line("Data_array_create info", "type=%u size=%zu %s | %s", (unsigned) dp->type, dp->size,
         info_text(&((pmix_info_t *) dp->array)[0]), info_text(&((pmix_info_t *) dp->array)[1]));
    PMIx_Data_array_free(dp);
    /* Data_array_create(0, t) is NULL on OpenPMIx 5.0.7 and an empty array
     * on rpmix (as rpmix's own PMIX_DATA_ARRAY_CREATE makes it): both are
     * "no elements", which is what is printed; rpmix-only checks its own. */
    dp = PMIx_Data_array_create(0, PMIX_INFO);
    line("Data_array_create 0", "%s", (NULL == dp || 0 == dp->size) ? "no elements" : "elements");
    PMIx_Data_array_free(dp);
    PMIx_Data_array_free(NULL);
}

static void data_buffers(void)
{
    pmix_data_buffer_t b, *bp;
    char *bytes = NULL;
    size_t sz = 99;

    memset(&b, 0x5a, sizeof(b));
    PMIx_Data_buffer_construct(&b);
    line("Data_buffer_construct", "base=%s pack=%s unpack=%s allocated=%zu used=%zu", nonnull(b.base_ptr),
         nonnull(b.pack_ptr), nonnull(b.unpack_ptr), b.bytes_allocated, b.bytes_used);
    PMIx_Data_buffer_load(&b, dupbytes("hello", 5), 5);
    line("Data_buffer_load", "allocated=%zu used=%zu unpack-at=%td pack-at=%td", b.bytes_allocated, b.bytes_used,
         b.unpack_ptr - b.base_ptr, b.pack_ptr - b.base_ptr);
    PMIx_Data_buffer_unload(&b, &bytes, &sz);
    line("Data_buffer_unload", "%zu [%.*s] then base=%s used=%zu", sz, (int) sz, bytes, nonnull(b.base_ptr),
         b.bytes_used);
    free(bytes);
    /* part of it already read: the rest comes out */
    PMIx_Data_buffer_load(&b, dupbytes("abcdef", 6), 6);
    b.unpack_ptr += 2;
    PMIx_Data_buffer_unload(&b, &bytes, &sz);
    line("Data_buffer_unload rest", "%zu [%.*s] then base=%s used=%zu", sz, (int) sz, bytes, nonnull(b.base_ptr),
         b.bytes_used);
    free(bytes);
    bytes = (char *) 1;
    sz = 99;
    PMIx_Data_buffer_unload(&b, &bytes, &sz);
    line("Data_buffer_unload empty", "bytes=%s size=%zu", nonnull(bytes), sz);
    /* loading over a loaded buffer releases the old bytes */
    PMIx_Data_buffer_load(&b, dupbytes("one", 3), 3);
    PMIx_Data_buffer_load(&b, dupbytes("two!", 4), 4);
    line("Data_buffer_load again", "used=%zu [%.*s]", b.bytes_used, (int) b.bytes_used, b.base_ptr);
    PMIx_Data_buffer_destruct(&b);
    line("Data_buffer_destruct", "base=%s pack=%s unpack=%s allocated=%zu used=%zu", nonnull(b.base_ptr),
         nonnull(b.pack_ptr), nonnull(b.unpack_ptr), b.bytes_allocated, b.bytes_used);
    PMIx_Data_buffer_load(&b, NULL, 0);
    line("Data_buffer_load NULL", "base=%s used=%zu", nonnull(b.base_ptr), b.bytes_used);

    bp = PMIx_Data_buffer_create();
    line("Data_buffer_create", "base=%s pack=%s unpack=%s allocated=%zu used=%zu", nonnull(bp->base_ptr),
         nonnull(bp->pack_ptr), nonnull(bp->unpack_ptr), bp->bytes_allocated, bp->bytes_used);
    PMIx_Data_buffer_load(bp, dupbytes("released", 8), 8);
    PMIx_Data_buffer_release(bp);
    PMIx_Data_buffer_release(NULL);
}

static void device_distances(void)
{
    pmix_device_distance_t dd, *dds;

    memset(&dd, 0x5a, sizeof(dd));
    PMIx_Device_distance_construct(&dd);
    line("Device_distance_construct", "uuid=%s osname=%s type=%llu min=%u max=%u", nonnull(dd.uuid),
         nonnull(dd.osname), (unsigned long long) dd.type, dd.mindist, dd.maxdist);
    dds = PMIx_Device_distance_create(2);
    line("Device_distance_create 2", "[1] uuid=%s type=%llu min=%u max=%u", nonnull(dds[1].uuid),
         (unsigned long long) dds[1].type, dds[1].mindist, dds[1].maxdist);
    dds[0].uuid = strdup("u0");
    dds[1].osname = strdup("os1");
    PMIx_Device_distance_free(dds, 2);
    CREATE_NONE("Device_distance_create 0", pmix_device_distance_t, PMIx_Device_distance_create(0),
                PMIx_Device_distance_free(z_, 0));
    /* OpenPMIx 5.0.7's destruct frees the strings but leaves every field as
     * it was (pointers dangling); nothing is read after it */
    dd.uuid = strdup("uuid");
    dd.osname = strdup("osname");
    PMIx_Device_distance_destruct(&dd);
    line("Device_distance_destruct", "done");
    PMIx_Device_distance_free(NULL, 1);
}

static void stats(void)
{
    pmix_disk_stats_t ds, *dss;
    pmix_net_stats_t nt, *nts;
    pmix_node_stats_t nd, *nds;
    pmix_proc_stats_t ps, *pss;

    /* After a destruct OpenPMIx 5.0.7 clears only the pointers it freed and
     * keeps the numbers; rpmix leaves the whole record as constructed. Only
     * the pointers are printed after a destruct. */
    memset(&ds, 0x5a, sizeof(ds));
    PMIx_Disk_stats_construct(&ds);
    line("Disk_stats_construct", "disk=%s reads=%llu io=%llu", nonnull(ds.disk),
         (unsigned long long) ds.num_reads_completed, (unsigned long long) ds.weighted_milliseconds_io);
    ds.disk = strdup("sda");
    ds.num_reads_completed = 5;
    PMIx_Disk_stats_destruct(&ds);
    line("Disk_stats_destruct", "disk=%s", nonnull(ds.disk));
    dss = PMIx_Disk_stats_create(2);
    line("Disk_stats_create 2", "[1] disk=%s writes=%llu", nonnull(dss[1].disk),
         (unsigned long long) dss[1].num_writes_completed);
    dss[1].disk = strdup("sdb");
    PMIx_Disk_stats_free(dss, 2);
    CREATE_NONE("Disk_stats_create 0", pmix_disk_stats_t, PMIx_Disk_stats_create(0), PMIx_Disk_stats_free(z_, 0));

    memset(&nt, 0x5a, sizeof(nt));
    PMIx_Net_stats_construct(&nt);
    line("Net_stats_construct", "if=%s recvd=%llu errs=%llu", nonnull(nt.net_interface),
         (unsigned long long) nt.num_bytes_recvd, (unsigned long long) nt.num_send_errs);
    nt.net_interface = strdup("eth0");
    PMIx_Net_stats_destruct(&nt);
    line("Net_stats_destruct", "if=%s", nonnull(nt.net_interface));
    nts = PMIx_Net_stats_create(3);
    line("Net_stats_create 3", "[2] if=%s sent=%llu", nonnull(nts[2].net_interface),
         (unsigned long long) nts[2].num_bytes_sent);
    nts[0].net_interface = strdup("lo");
    PMIx_Net_stats_free(nts, 3);
    CREATE_NONE("Net_stats_create 0", pmix_net_stats_t, PMIx_Net_stats_create(0), PMIx_Net_stats_free(z_, 0));

    memset(&nd, 0x5a, sizeof(nd));
    PMIx_Node_stats_construct(&nd);
    line("Node_stats_construct", "node=%s disks=%s/%zu nets=%s/%zu la=%g", nonnull(nd.node), nonnull(nd.diskstats),
         nd.ndiskstats, nonnull(nd.netstats), nd.nnetstats, (double) nd.la);
    nd.node = strdup("n0");
    nd.diskstats = PMIx_Disk_stats_create(2);
    nd.ndiskstats = 2;
    nd.diskstats[0].disk = strdup("sda");
    nd.netstats = PMIx_Net_stats_create(1);
    nd.nnetstats = 1;
    nd.netstats[0].net_interface = strdup("ib0");
    PMIx_Node_stats_destruct(&nd);
    line("Node_stats_destruct", "node=%s disks=%s/%zu nets=%s/%zu", nonnull(nd.node), nonnull(nd.diskstats),
         nd.ndiskstats, nonnull(nd.netstats), nd.nnetstats);
    nds = PMIx_Node_stats_create(2);
    line("Node_stats_create 2", "[1] node=%s disks=%zu nets=%zu", nonnull(nds[1].node), nds[1].ndiskstats,
         nds[1].nnetstats);
    nds[1].node = strdup("n1");
    nds[1].diskstats = PMIx_Disk_stats_create(1);
    nds[1].ndiskstats = 1;
    nds[1].diskstats[0].disk = strdup("nvme0");
    PMIx_Node_stats_free(nds, 2);
    CREATE_NONE("Node_stats_create 0", pmix_node_stats_t, PMIx_Node_stats_create(0), PMIx_Node_stats_free(z_, 0));

    memset(&ps, 0x5a, sizeof(ps));
    PMIx_Proc_stats_construct(&ps);
    line("Proc_stats_construct", "node=%s cmd=%s rank=%u pid=%d state=%d threads=%u", nonnull(ps.node),
         nonnull(ps.cmd), ps.proc.rank, (int) ps.pid, (int) ps.state, ps.num_threads);
    ps.node = strdup("n0");
    ps.cmd = strdup("a.out");
    PMIx_Proc_stats_destruct(&ps);
    line("Proc_stats_destruct", "node=%s cmd=%s", nonnull(ps.node), nonnull(ps.cmd));
    pss = PMIx_Proc_stats_create(2);
    line("Proc_stats_create 2", "[1] node=%s cmd=%s rank=%u", nonnull(pss[1].node), nonnull(pss[1].cmd),
         pss[1].proc.rank);
    pss[0].cmd = strdup("prog");
    PMIx_Proc_stats_free(pss, 2);
    CREATE_NONE("Proc_stats_create 0", pmix_proc_stats_t, PMIx_Proc_stats_create(0), PMIx_Proc_stats_free(z_, 0));
    PMIx_Disk_stats_free(NULL, 1);
    PMIx_Net_stats_free(NULL, 1);
    PMIx_Node_stats_free(NULL, 1);
    PMIx_Proc_stats_free(NULL, 1);
}

static void endpoints_envars_geometries(void)
{
    pmix_endpoint_t e, *es;
    pmix_envar_t ev, *evs;
    pmix_geometry_t g, *gs;

    memset(&e, 0x5a, sizeof(e));
    PMIx_Endpoint_construct(&e);
    line("Endpoint_construct", "uuid=%s osname=%s endpt=%s/%zu", nonnull(e.uuid), nonnull(e.osname),
         nonnull(e.endpt.bytes), e.endpt.size);
    /* OpenPMIx 5.0.7's destruct leaves the freed pointers in place: nothing
     * is read after it */
    e.uuid = strdup("u");
    e.endpt.bytes = dupbytes("ep", 2);
    e.endpt.size = 2;
    PMIx_Endpoint_destruct(&e);
    line("Endpoint_destruct", "done");
    es = PMIx_Endpoint_create(2);
    line("Endpoint_create 2", "[1] uuid=%s osname=%s endpt=%s/%zu", nonnull(es[1].uuid), nonnull(es[1].osname),
         nonnull(es[1].endpt.bytes), es[1].endpt.size);
    es[1].osname = strdup("mlx5_0");
    es[1].endpt.bytes = dupbytes("addr", 4);
    es[1].endpt.size = 4;
    PMIx_Endpoint_free(es, 2);
    CREATE_NONE("Endpoint_create 0", pmix_endpoint_t, PMIx_Endpoint_create(0), PMIx_Endpoint_free(z_, 0));
    PMIx_Endpoint_free(NULL, 1);

    memset(&ev, 0x5a, sizeof(ev));
    PMIx_Envar_construct(&ev);
    line("Envar_construct", "envar=%s value=%s sep=%d", qs(ev.envar), qs(ev.value), ev.separator);
    PMIx_Envar_load(&ev, "PATH", "/bin", ':');
    line("Envar_load", "envar=%s value=%s sep=%c", qs(ev.envar), qs(ev.value), ev.separator);
    /* the separator survives OpenPMIx 5.0.7's destruct, not rpmix's: not
     * printed after it */
    PMIx_Envar_destruct(&ev);
    line("Envar_destruct", "envar=%s value=%s", qs(ev.envar), qs(ev.value));
    PMIx_Envar_construct(&ev);
    PMIx_Envar_load(&ev, NULL, "only-value", ';');
    line("Envar_load NULL var", "envar=%s value=%s sep=%c", qs(ev.envar), qs(ev.value), ev.separator);
    PMIx_Envar_destruct(&ev);
    evs = PMIx_Envar_create(2);
    line("Envar_create 2", "[1] envar=%s value=%s sep=%d", qs(evs[1].envar), qs(evs[1].value), evs[1].separator);
    PMIx_Envar_load(&evs[1], "LD_LIBRARY_PATH", "/opt/lib", ':');
    PMIx_Envar_free(evs, 2);
    CREATE_NONE("Envar_create 0", pmix_envar_t, PMIx_Envar_create(0), PMIx_Envar_free(z_, 0));
    PMIx_Envar_free(NULL, 1);

    memset(&g, 0x5a, sizeof(g));
    PMIx_Geometry_construct(&g);
    line("Geometry_construct", "fabric=%zu uuid=%s osname=%s coords=%s/%zu", g.fabric, nonnull(g.uuid),
         nonnull(g.osname), nonnull(g.coordinates), g.ncoords);
    /* OpenPMIx 5.0.7's destruct frees the coordinates but leaves the
     * pointer and count: only uuid and osname are read after it */
    g.uuid = strdup("g-uuid");
    g.osname = strdup("g-os");
    g.coordinates = PMIx_Coord_create(2, 1);
    g.ncoords = 1;
    PMIx_Geometry_destruct(&g);
    line("Geometry_destruct", "uuid=%s osname=%s", nonnull(g.uuid), nonnull(g.osname));
    gs = PMIx_Geometry_create(2);
    line("Geometry_create 2", "[1] fabric=%zu uuid=%s coords=%s/%zu", gs[1].fabric, nonnull(gs[1].uuid),
         nonnull(gs[1].coordinates), gs[1].ncoords);
    gs[1].uuid = strdup("x");
    gs[1].coordinates = PMIx_Coord_create(3, 1);
    gs[1].ncoords = 1;
    PMIx_Geometry_free(gs, 2);
    CREATE_NONE("Geometry_create 0", pmix_geometry_t, PMIx_Geometry_create(0), PMIx_Geometry_free(z_, 0));
    PMIx_Geometry_free(NULL, 1);
}

static void pdatas_procs(void)
{
    pmix_pdata_t pd, *pds;
    pmix_proc_t p, *ps;
    pmix_proc_info_t pi, *pis;

    memset(&pd, 0x5a, sizeof(pd));
    PMIx_Pdata_construct(&pd);
    line("Pdata_construct", "proc=%s:%u key=%s %s", qs(pd.proc.nspace), pd.proc.rank, qs(pd.key),
         value_text(&pd.value));
    PMIx_Load_procid(&pd.proc, "ns", 2);
    PMIx_Load_key(pd.key, "pk");
    PMIx_Value_load(&pd.value, "pv", PMIX_STRING);
    /* OpenPMIx 5.0.7 destructs the value only (key and proc stay), rpmix
     * the whole record: only the value is printed after it */
    PMIx_Pdata_destruct(&pd);
    line("Pdata_destruct", "%s", value_text(&pd.value));
    pds = PMIx_Pdata_create(2);
    line("Pdata_create 2", "[1] proc=%s:%u key=%s %s", qs(pds[1].proc.nspace), pds[1].proc.rank, qs(pds[1].key),
         value_text(&pds[1].value));
    PMIx_Load_key(pds[0].key, "k0");
    PMIx_Value_load(&pds[0].value, "v0", PMIX_STRING);
    PMIx_Pdata_free(pds, 2);
    CREATE_NONE("Pdata_create 0", pmix_pdata_t, PMIx_Pdata_create(0), PMIx_Pdata_free(z_, 0));
    PMIx_Pdata_free(NULL, 1);

    memset(&p, 0x5a, sizeof(p));
    PMIx_Proc_construct(&p);
    line("Proc_construct", "%s:%u", qs(p.nspace), p.rank);
    PMIx_Proc_load(&p, "job.4", 4);
    line("Proc_load", "%s:%u", qs(p.nspace), p.rank);
    PMIx_Proc_destruct(&p);
    line("Proc_destruct", "%s:%u", qs(p.nspace), p.rank);
    ps = PMIx_Proc_create(3);
    line("Proc_create 3", "%s:%u %s:%u", qs(ps[0].nspace), ps[0].rank, qs(ps[2].nspace), ps[2].rank);
    PMIx_Proc_load(&ps[2], "job.5", 1);
    PMIx_Proc_free(ps, 3);
    CREATE_NONE("Proc_create 0", pmix_proc_t, PMIx_Proc_create(0), PMIx_Proc_free(z_, 0));
    PMIx_Proc_free(NULL, 1);

    memset(&pi, 0x5a, sizeof(pi));
    PMIx_Proc_info_construct(&pi);
    line("Proc_info_construct", "proc=%s:%u host=%s exe=%s pid=%d exit=%d state=%u", qs(pi.proc.nspace),
         pi.proc.rank, nonnull(pi.hostname), nonnull(pi.executable_name), (int) pi.pid, pi.exit_code,
         (unsigned) pi.state);
    PMIx_Load_procid(&pi.proc, "job", 3);
    pi.hostname = strdup("host");
    pi.executable_name = strdup("exe");
    pi.pid = 42;
    pi.exit_code = 1;
    pi.state = PMIX_PROC_STATE_RUNNING;
    PMIx_Proc_info_destruct(&pi);
    line("Proc_info_destruct", "proc=%s:%u host=%s exe=%s pid=%d exit=%d state=%u", qs(pi.proc.nspace),
         pi.proc.rank, nonnull(pi.hostname), nonnull(pi.executable_name), (int) pi.pid, pi.exit_code,
         (unsigned) pi.state);
    pis = PMIx_Proc_info_create(2);
    line("Proc_info_create 2", "[1] state=%u host=%s", (unsigned) pis[1].state, nonnull(pis[1].hostname));
    pis[1].hostname = strdup("h1");
    pis[0].executable_name = strdup("e0");
    PMIx_Proc_info_free(pis, 2);
    CREATE_NONE("Proc_info_create 0", pmix_proc_info_t, PMIx_Proc_info_create(0), PMIx_Proc_info_free(z_, 0));
    PMIx_Proc_info_free(NULL, 1);
}

static void queries_regattrs(void)
{
    pmix_query_t q, *qs_;
    pmix_regattr_t r, r2, *rs;

    memset(&q, 0x5a, sizeof(q));
    PMIx_Query_construct(&q);
    line("Query_construct", "keys=%s qualifiers=%s nqual=%zu", argv_text(q.keys), nonnull(q.qualifiers), q.nqual);
    PMIx_Argv_append_nosize(&q.keys, "pmix.qry.ns");
    PMIx_Query_qualifiers_create(&q, 2);
    line("Query_qualifiers_create 2", "nqual=%zu %s | %s", q.nqual, info_text(&q.qualifiers[0]),
         info_text(&q.qualifiers[1]));
    PMIx_Info_load(&q.qualifiers[1], "pmix.nspace", "job", PMIX_STRING);
    PMIx_Query_destruct(&q);
    line("Query_destruct", "keys=%s qualifiers=%s nqual=%zu", argv_text(q.keys), nonnull(q.qualifiers), q.nqual);
    PMIx_Query_qualifiers_create(&q, 0);
    line("Query_qualifiers_create 0", "qualifiers=%s nqual=%zu", nonnull(q.qualifiers), q.nqual);
    qs_ = PMIx_Query_create(2);
    line("Query_create 2", "[1] keys=%s qualifiers=%s nqual=%zu", argv_text(qs_[1].keys), nonnull(qs_[1].qualifiers),
         qs_[1].nqual);
    PMIx_Argv_append_nosize(&qs_[1].keys, "k1");
    PMIx_Argv_append_nosize(&qs_[1].keys, "k2");
    PMIx_Query_qualifiers_create(&qs_[0], 1);
    PMIx_Info_load(&qs_[0].qualifiers[0], "q", "v", PMIX_STRING);
    PMIx_Query_free(qs_, 2);
    qs_ = PMIx_Query_create(1);
    PMIx_Argv_append_nosize(&qs_[0].keys, "released");
    PMIx_Query_release(qs_);
    CREATE_NONE("Query_create 0", pmix_query_t, PMIx_Query_create(0), PMIx_Query_free(z_, 0));
    PMIx_Query_free(NULL, 1);
    PMIx_Query_release(NULL);

    memset(&r, 0x5a, sizeof(r));
    PMIx_Regattr_construct(&r);
    line("Regattr_construct", "name=%s key=%s type=%u desc=%s", qs(r.name), qs(r.string), (unsigned) r.type,
         argv_text(r.description));
    PMIx_Regattr_load(&r, "PMIX_MY_ATTR", "pmix.my.attr", PMIX_STRING, "first line");
    PMIx_Regattr_load(&r, NULL, NULL, PMIX_UINT32, "second line");
    line("Regattr_load", "name=%s key=%s type=%u desc=%s", qs(r.name), qs(r.string), (unsigned) r.type,
         argv_text(r.description));
    memset(&r2, 0x5a, sizeof(r2));
    PMIx_Regattr_xfer(&r2, &r);
    line("Regattr_xfer", "name=%s key=%s type=%u desc=%s", qs(r2.name), qs(r2.string), (unsigned) r2.type,
         argv_text(r2.description));
    /* key and type survive OpenPMIx 5.0.7's destruct, not rpmix's: only the
     * name and description are printed after it */
    PMIx_Regattr_destruct(&r);
    line("Regattr_destruct", "name=%s desc=%s", qs(r.name), argv_text(r.description));
    PMIx_Regattr_destruct(&r2);
    PMIx_Regattr_construct(&r);
    PMIx_Regattr_xfer(&r2, &r);
    line("Regattr_xfer empty", "name=%s key=%s type=%u desc=%s", qs(r2.name), qs(r2.string), (unsigned) r2.type,
         argv_text(r2.description));
    PMIx_Regattr_destruct(&r2);
    rs = PMIx_Regattr_create(2);
    line("Regattr_create 2", "[1] name=%s key=%s type=%u desc=%s", qs(rs[1].name), qs(rs[1].string),
         (unsigned) rs[1].type, argv_text(rs[1].description));
    PMIx_Regattr_load(&rs[1], "N", "k", PMIX_BOOL, "d");
    PMIx_Regattr_free(rs, 2);
    CREATE_NONE("Regattr_create 0", pmix_regattr_t, PMIx_Regattr_create(0), PMIx_Regattr_free(z_, 0));
    PMIx_Regattr_free(NULL, 1);
}

static void print_lines(const char *what, char *s)
{
    char *save = NULL, *l;
    if (NULL == s) {
        line(what, "NULL");
        return;
    }
    for (l = strtok_r(s, "\n", &save); NULL != l; l = strtok_r(NULL, "\n", &save)) {
        line(what, "|%s", l);
    }
}

static void apps(void)
{
    pmix_app_t a, *as;
    uint32_t u = 4;
    char *s;

    memset(&a, 0x5a, sizeof(a));
    PMIx_App_construct(&a);
    line("App_construct", "cmd=%s argv=%s env=%s cwd=%s maxprocs=%d info=%s ninfo=%zu", qs(a.cmd),
         argv_text(a.argv), argv_text(a.env), qs(a.cwd), a.maxprocs, nonnull(a.info), a.ninfo);
    s = PMIx_App_string(&a);
    print_lines("App_string empty", s);
    free(s);
    a.cmd = strdup("hostname");
    PMIx_Argv_append_nosize(&a.argv, "hostname");
    PMIx_Argv_append_nosize(&a.argv, "-f");
    PMIx_Argv_append_nosize(&a.env, "A=1");
    a.cwd = strdup("/tmp");
    a.maxprocs = 3;
    s = PMIx_App_string(&a);
    print_lines("App_string", s);
    free(s);
    /* an app with infos is not rendered here: OpenPMIx 5.0.7's
     * PMIx_App_string calls PMIx_Info_string for them, which crashes when
     * the library is not initialised (rpmix-only part) */
    PMIx_App_info_create(&a, 2);
    line("App_info_create 2", "ninfo=%zu %s | %s", a.ninfo, info_text(&a.info[0]), info_text(&a.info[1]));
    PMIx_Info_load(&a.info[0], "pmix.wdir", "/tmp", PMIX_STRING);
    PMIx_Info_load(&a.info[1], "pmix.np", &u, PMIX_UINT32);
    line("App_info_create loaded", "%s | %s", info_text(&a.info[0]), info_text(&a.info[1]));
    /* maxprocs survives OpenPMIx 5.0.7's destruct, not rpmix's: not
     * printed after it */
    PMIx_App_destruct(&a);
    line("App_destruct", "cmd=%s argv=%s env=%s cwd=%s info=%s ninfo=%zu", qs(a.cmd), argv_text(a.argv),
         argv_text(a.env), qs(a.cwd), nonnull(a.info), a.ninfo);
    PMIx_App_info_create(&a, 0);
    line("App_info_create 0", "info=%s ninfo=%zu", nonnull(a.info), a.ninfo);

    as = PMIx_App_create(2);
    line("App_create 2", "[1] cmd=%s maxprocs=%d info=%s ninfo=%zu", qs(as[1].cmd), as[1].maxprocs,
         nonnull(as[1].info), as[1].ninfo);
    as[1].cmd = strdup("prog");
    PMIx_Argv_append_nosize(&as[1].argv, "prog");
    PMIx_App_info_create(&as[0], 1);
    PMIx_Info_load(&as[0].info[0], "k", "v", PMIX_STRING);
    PMIx_App_free(as, 2);
    as = PMIx_App_create(1);
    as[0].cwd = strdup("/");
    PMIx_App_release(as);
    CREATE_NONE("App_create 0", pmix_app_t, PMIx_App_create(0), PMIx_App_free(z_, 0));
    PMIx_App_free(NULL, 1);
    PMIx_App_release(NULL);
}

/* ------------------------------------------------------------------------ */
/* Sizes                                                                     */
/* ------------------------------------------------------------------------ */

static void vsize(const char *what, const pmix_value_t *v)
{
    size_t sz = 0;
    int rc = PMIx_Value_get_size(v, &sz);
    /* on failure OpenPMIx 5.0.7 still adds sizeof(pmix_value_t) to *sz and
     * rpmix leaves it alone: only the status is printed then */
    if (PMIX_SUCCESS == rc) {
        line("Value_get_size", "%s: %d %zu", what, rc, sz);
    } else {
        line("Value_get_size", "%s: %d", what, rc);
    }
}

static void isize(const char *what, const pmix_info_t *i)
{
    size_t sz = 0;
    int rc = PMIx_Info_get_size(i, &sz);
    if (PMIX_SUCCESS == rc) {
        line("Info_get_size", "%s: %d %zu", what, rc, sz);
    } else {
        line("Info_get_size", "%s: %d", what, rc);
    }
}

/* Left out of the compared sizes: PMIX_COMPRESSED_STRING and
 * PMIX_COMPRESSED_BYTE_OBJECT (OpenPMIx 5.0.7 calls its compression
 * module's size functions, NULL until PMIx_Init), PMIX_TOPO and
 * PMIX_PROC_CPUSET (it asks hwloc, which crashes on an empty topology and
 * gives (size_t)-1 for a CPU set), and the types its PMIx_Value_get_size
 * does not list (PMIX_INFO_DIRECTIVES, PMIX_DATA_TYPE, PMIX_IOF_CHANNEL,
 * PMIX_COMMAND, PMIX_VALUE, PMIX_INFO, PMIX_PDATA, PMIX_APP, PMIX_QUERY, and
 * arrays of arrays), for which it adds sizeof(pmix_value_t) to whatever *sz
 * held where rpmix counts the payload (rpmix-only part). */
static void sizes(void)
{
    pmix_value_t v;
    pmix_info_t i;
    size_t k;
    char long600[601];
    struct {
        pmix_data_type_t t;
        const char *name;
    } plain[] = {{PMIX_BOOL, "bool"},
                 {PMIX_BYTE, "byte"},
                 {PMIX_INT8, "int8"},
                 {PMIX_UINT8, "uint8"},
                 {PMIX_SIZE, "size"},
                 {PMIX_PID, "pid"},
                 {PMIX_INT, "int"},
                 {PMIX_UINT, "uint"},
                 {PMIX_INT16, "int16"},
                 {PMIX_UINT16, "uint16"},
                 {PMIX_INT32, "int32"},
                 {PMIX_UINT32, "uint32"},
                 {PMIX_INT64, "int64"},
                 {PMIX_UINT64, "uint64"},
                 {PMIX_FLOAT, "float"},
                 {PMIX_DOUBLE, "double"},
                 {PMIX_TIMEVAL, "timeval"},
                 {PMIX_TIME, "time"},
                 {PMIX_STATUS, "status"},
                 {PMIX_PROC_RANK, "rank"},
                 {PMIX_PROC_NSPACE, "nspace"},
                 {PMIX_PROC, "proc"},
                 {PMIX_PERSIST, "persist"},
                 {PMIX_SCOPE, "scope"},
                 {PMIX_DATA_RANGE, "range"},
                 {PMIX_PROC_STATE, "proc_state"},
                 {PMIX_POINTER, "pointer"},
                 {PMIX_ALLOC_DIRECTIVE, "alloc_directive"},
                 {PMIX_LINK_STATE, "link_state"},
                 {PMIX_JOB_STATE, "job_state"},
                 {PMIX_LOCTYPE, "locality"},
                 {PMIX_DEVTYPE, "devtype"},
                 {PMIX_STOR_MEDIUM, "stor_medium"},
                 {PMIX_STOR_ACCESS, "stor_access"},
                 {PMIX_STOR_PERSIST, "stor_persist"},
                 {PMIX_STOR_ACCESS_TYPE, "stor_access_type"}};
    pmix_nspace_t nsbuf;
    pmix_proc_t procbuf;

    PMIx_Load_nspace(nsbuf, "ns");
    PMIx_Load_procid(&procbuf, "ns", 0);
    for (k = 0; k < sizeof(plain) / sizeof(plain[0]); k++) {
        PMIx_Value_construct(&v);
        v.type = plain[k].t;
        if (PMIX_PROC_NSPACE == v.type) {
            v.data.nspace = &nsbuf;
        } else if (PMIX_PROC == v.type) {
            v.data.proc = &procbuf;
        }
        vsize(plain[k].name, &v);
    }
    PMIx_Value_construct(&v);
    vsize("undef", &v);
    v.type = PMIX_STRING;
    v.data.string = "hello";
    vsize("string hello", &v);
    v.data.string = "";
    vsize("string empty", &v);
    v.data.string = NULL;
    vsize("string NULL", &v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = "12345";
    v.data.bo.size = 5;
    vsize("byte_object 5", &v);
    v.data.bo.bytes = NULL;
    v.data.bo.size = 0;
    vsize("byte_object empty", &v);
    v.type = PMIX_REGEX;
    v.data.bo.bytes = "regex";
    v.data.bo.size = 6;
    vsize("regex 6", &v);
    PMIx_Value_construct(&v);
    v.type = PMIX_ENVAR;
    v.data.envar.envar = "PATH";
    v.data.envar.value = "/bin";
    vsize("envar", &v);
    v.data.envar.value = NULL;
    vsize("envar no value", &v);

    /* the struct types, made with their _create and freed with the value */
    {
        pmix_value_t *vs = PMIx_Value_create(12);
        vs[0].type = PMIX_PROC_INFO;
        vs[0].data.pinfo = PMIx_Proc_info_create(1);
        vs[0].data.pinfo->hostname = strdup("node01");
        vs[0].data.pinfo->executable_name = strdup("a.out");
        vsize("proc_info", &vs[0]);
        vs[1].type = PMIX_COORD;
        vs[1].data.coord = PMIx_Coord_create(3, 1);
        vsize("coord 3", &vs[1]);
        vs[2].type = PMIX_GEOMETRY;
        vs[2].data.geometry = PMIx_Geometry_create(1);
        vs[2].data.geometry->uuid = strdup("uuid-1");
        vs[2].data.geometry->coordinates = PMIx_Coord_create(2, 1);
        vs[2].data.geometry->ncoords = 1;
        vsize("geometry", &vs[2]);
        vs[3].type = PMIX_DEVICE_DIST;
        vs[3].data.devdist = PMIx_Device_distance_create(1);
        vs[3].data.devdist->osname = strdup("mlx5_0");
        vsize("device_distance", &vs[3]);
        vs[4].type = PMIX_ENDPOINT;
        vs[4].data.endpoint = PMIx_Endpoint_create(1);
        vs[4].data.endpoint->uuid = strdup("ep");
        vs[4].data.endpoint->endpt.bytes = dupbytes("address", 7);
        vs[4].data.endpoint->endpt.size = 7;
        vsize("endpoint", &vs[4]);
        vs[5].type = PMIX_REGATTR;
        vs[5].data.ptr = PMIx_Regattr_create(1);
        PMIx_Regattr_load(vs[5].data.ptr, "NAME", "pmix.k", PMIX_INT, "one");
        PMIx_Regattr_load(vs[5].data.ptr, NULL, NULL, PMIX_INT, "three");
        vsize("regattr", &vs[5]);
        vs[6].type = PMIX_DATA_BUFFER;
        vs[6].data.dbuf = PMIx_Data_buffer_create();
        PMIx_Data_buffer_load(vs[6].data.dbuf, dupbytes("0123456789", 10), 10);
        vsize("data_buffer 10", &vs[6]);
        vs[7].type = PMIX_PROC_STATS;
        vs[7].data.pstats = PMIx_Proc_stats_create(1);
        vs[7].data.pstats->node = strdup("n");
        vs[7].data.pstats->cmd = strdup("cmd");
        vsize("proc_stats", &vs[7]);
        vs[8].type = PMIX_DISK_STATS;
        vs[8].data.dkstats = PMIx_Disk_stats_create(1);
        vs[8].data.dkstats->disk = strdup("sda");
        vsize("disk_stats", &vs[8]);
        vs[9].type = PMIX_NET_STATS;
        vs[9].data.netstats = PMIx_Net_stats_create(1);
        vsize("net_stats", &vs[9]);
        vs[10].type = PMIX_NODE_STATS;
        vs[10].data.ndstats = PMIx_Node_stats_create(1);
        vs[10].data.ndstats->node = strdup("node");
        vs[10].data.ndstats->diskstats = PMIx_Disk_stats_create(2);
        vs[10].data.ndstats->ndiskstats = 2;
        vs[10].data.ndstats->diskstats[1].disk = strdup("sdb");
        vs[10].data.ndstats->netstats = PMIx_Net_stats_create(1);
        vs[10].data.ndstats->nnetstats = 1;
        vs[10].data.ndstats->netstats[0].net_interface = strdup("eth0");
        vsize("node_stats", &vs[10]);
        vs[11].type = PMIX_DATA_ARRAY;
        vs[11].data.darray = PMIx_Data_array_create(2, PMIX_STRING);
        ((char **) vs[11].data.darray->array)[0] = strdup("abc");
        vsize("darray string", &vs[11]);
        PMIx_Value_free(vs, 12);
    }

    /* data arrays of each kind OpenPMIx 5.0.7 sizes */
    {
        pmix_data_type_t dts[] = {PMIX_BOOL,        PMIX_BYTE,       PMIX_INT8,        PMIX_UINT8,
                                  PMIX_SIZE,        PMIX_PID,        PMIX_INT,         PMIX_UINT,
                                  PMIX_INT16,       PMIX_UINT16,     PMIX_INT32,       PMIX_UINT32,
                                  PMIX_INT64,       PMIX_UINT64,     PMIX_FLOAT,       PMIX_DOUBLE,
                                  PMIX_TIMEVAL,     PMIX_TIME,       PMIX_STATUS,      PMIX_PROC_RANK,
                                  PMIX_PROC_NSPACE, PMIX_PROC,       PMIX_PERSIST,     PMIX_SCOPE,
                                  PMIX_DATA_RANGE,  PMIX_PROC_STATE, PMIX_POINTER,     PMIX_ALLOC_DIRECTIVE,
                                  PMIX_LINK_STATE,  PMIX_STRING,     PMIX_BYTE_OBJECT, PMIX_PROC_INFO,
                                  PMIX_ENVAR,       PMIX_COORD,      PMIX_INFO,        PMIX_REGATTR,
                                  PMIX_ENDPOINT,    PMIX_DEVICE_DIST, PMIX_GEOMETRY,   PMIX_PROC_STATS,
                                  PMIX_DISK_STATS,  PMIX_NET_STATS,  PMIX_NODE_STATS};
        for (k = 0; k < sizeof(dts) / sizeof(dts[0]); k++) {
            char what[64];
            PMIx_Value_construct(&v);
            v.type = PMIX_DATA_ARRAY;
            v.data.darray = PMIx_Data_array_create(3, dts[k]);
            switch (dts[k]) {
            case PMIX_STRING:
                ((char **) v.data.darray->array)[1] = strdup("four");
                break;
            case PMIX_BYTE_OBJECT:
                ((pmix_byte_object_t *) v.data.darray->array)[2].bytes = dupbytes("xy", 2);
                ((pmix_byte_object_t *) v.data.darray->array)[2].size = 2;
                break;
            case PMIX_PROC_INFO:
                ((pmix_proc_info_t *) v.data.darray->array)[0].hostname = strdup("h");
                break;
            case PMIX_ENVAR:
                PMIx_Envar_load(&((pmix_envar_t *) v.data.darray->array)[1], "V", "val", ':');
                break;
            case PMIX_INFO:
                PMIx_Info_load(&((pmix_info_t *) v.data.darray->array)[0], "key", "value", PMIX_STRING);
                PMIx_Info_load(&((pmix_info_t *) v.data.darray->array)[1], "", "", PMIX_STRING);
                PMIx_Info_load(&((pmix_info_t *) v.data.darray->array)[2], "flag", NULL, PMIX_BOOL);
                break;
            case PMIX_REGATTR:
                PMIx_Regattr_load(&((pmix_regattr_t *) v.data.darray->array)[2], "R", "r", PMIX_INT, "desc");
                break;
            case PMIX_ENDPOINT:
                ((pmix_endpoint_t *) v.data.darray->array)[0].osname = strdup("os");
                break;
            case PMIX_GEOMETRY:
                ((pmix_geometry_t *) v.data.darray->array)[1].coordinates = PMIx_Coord_create(4, 1);
                ((pmix_geometry_t *) v.data.darray->array)[1].ncoords = 1;
                break;
            case PMIX_NODE_STATS:
                ((pmix_node_stats_t *) v.data.darray->array)[0].netstats = PMIx_Net_stats_create(2);
                ((pmix_node_stats_t *) v.data.darray->array)[0].nnetstats = 2;
                break;
            default:
                break;
            }
            snprintf(what, sizeof(what), "darray of %u x3", (unsigned) dts[k]);
            vsize(what, &v);
            PMIx_Value_destruct(&v);
        }
        /* array types OpenPMIx 5.0.7 sizes but does not make with
         * PMIx_Data_array_create: made by hand (libc memory, as the library
         * frees it) */
        {
            struct {
                pmix_data_type_t t;
                size_t esz;
            } hand[] = {{PMIX_JOB_STATE, 1},
                        {PMIX_LOCTYPE, 2},
                        {PMIX_DEVTYPE, 8},
                        {PMIX_STOR_MEDIUM, 8},
                        {PMIX_STOR_ACCESS, 8},
                        {PMIX_STOR_PERSIST, 8},
                        {PMIX_STOR_ACCESS_TYPE, 2},
                        {PMIX_REGEX, sizeof(pmix_byte_object_t)},
                        {PMIX_DATA_BUFFER, sizeof(pmix_data_buffer_t)}};
            for (k = 0; k < sizeof(hand) / sizeof(hand[0]); k++) {
                char what[64];
                PMIx_Value_construct(&v);
                v.type = PMIX_DATA_ARRAY;
                v.data.darray = calloc(1, sizeof(pmix_data_array_t));
                v.data.darray->type = hand[k].t;
                v.data.darray->size = 3;
                v.data.darray->array = calloc(3, hand[k].esz);
                if (PMIX_DATA_BUFFER == hand[k].t) {
                    PMIx_Data_buffer_load(&((pmix_data_buffer_t *) v.data.darray->array)[1], dupbytes("data", 4), 4);
                }
                snprintf(what, sizeof(what), "darray of %u x3 (by hand)", (unsigned) hand[k].t);
                vsize(what, &v);
                PMIx_Value_destruct(&v);
            }
        }
        PMIx_Value_construct(&v);
        v.type = PMIX_DATA_ARRAY;
        v.data.darray = PMIx_Data_array_create(2, PMIX_INFO);
        PMIx_Info_load(&((pmix_info_t *) v.data.darray->array)[0], "key", "value", PMIX_STRING);
        vsize("darray info with an undef", &v);
        PMIx_Value_destruct(&v);
        PMIx_Value_construct(&v);
        v.type = PMIX_DATA_ARRAY;
        v.data.darray = PMIx_Data_array_create(1, PMIX_UINT32);
        PMIx_Data_array_destruct(v.data.darray);
        PMIx_Data_array_init(v.data.darray, PMIX_INFO);
        vsize("darray empty info", &v);
        PMIx_Value_destruct(&v);
    }

    /* infos: the key counts its NUL, up to PMIX_MAX_KEYLEN */
    memset(long600, 'k', 600);
    long600[600] = '\0';
    PMIx_Info_construct(&i);
    isize("undef", &i);
    PMIx_Info_load(&i, "", "v", PMIX_STRING);
    isize("empty key", &i);
    PMIx_Info_destruct(&i);
    PMIx_Info_load(&i, "key", "value", PMIX_STRING);
    isize("key string", &i);
    PMIx_Info_destruct(&i);
    /* a key filling the whole buffer (PMIx_Load_key cuts it; rpmix's
     * PMIx_Info_load refuses a key that long where OpenPMIx cuts it) */
    PMIx_Info_load(&i, "short", "v", PMIX_STRING);
    PMIx_Load_key(i.key, long600);
    isize("511-byte key", &i);
    PMIx_Info_destruct(&i);
    long600[510] = '\0';
    PMIx_Info_load(&i, long600, NULL, PMIX_BOOL);
    isize("510-byte key", &i);
    PMIx_Info_destruct(&i);
}

/* ------------------------------------------------------------------------ */
/* Tool and session calls, not initialised                                   */
/* ------------------------------------------------------------------------ */

static void tool(void)
{
    line("tool_is_connected", "%d", (int) PMIx_tool_is_connected());
    /* OpenPMIx 5.0.7 answers PMIX_ERR_INIT when not initialised */
    line("Session_control", "%d", PMIx_Session_control(0, NULL, 0, NULL, NULL));
    /* PMIx_tool_set_server_module is not called here: OpenPMIx 5.0.7
     * dereferences its (not yet made) peer object before PMIx_tool_init
     * and crashes; rpmix's answer is checked in the rpmix-only part */
}

/* ------------------------------------------------------------------------ */
/* rpmix only: its safe answers, and OpenPMIx 5.0.9's four list functions    */
/* ------------------------------------------------------------------------ */

typedef pmix_status_t (*add_unique_fn)(void *, const char *, const void *, pmix_data_type_t, bool);
typedef pmix_status_t (*add_value_fn)(void *, const char *, const pmix_value_t *);
typedef pmix_status_t (*add_value_unique_fn)(void *, const char *, const pmix_value_t *, bool);
typedef pmix_status_t (*xfer_unique_fn)(void *, const pmix_info_t *, bool);

/* "key=value/flags;..." for the whole list, via get_info */
static const char *list_text(void *l)
{
    char *b = nextbuf();
    void *cur = NULL, *next = NULL;
    pmix_info_t *ip;
    do {
        ip = PMIx_Info_list_get_info(l, cur, &next);
        if (NULL == ip) {
            break;
        }
        cat(b, "%s%s=%s/%x", b[0] ? ";" : "", ip->key,
            PMIX_STRING == ip->value.type ? ip->value.data.string : value_text(&ip->value), (unsigned) ip->flags);
        cur = next;
    } while (NULL != cur);
    return b;
}

static void v509(void)
{
    add_unique_fn add_unique = (add_unique_fn) dlsym(RTLD_DEFAULT, "PMIx_Info_list_add_unique");
    add_value_fn add_value = (add_value_fn) dlsym(RTLD_DEFAULT, "PMIx_Info_list_add_value");
    add_value_unique_fn add_value_unique = (add_value_unique_fn) dlsym(RTLD_DEFAULT,
                                                                       "PMIx_Info_list_add_value_unique");
    xfer_unique_fn xfer_unique = (xfer_unique_fn) dlsym(RTLD_DEFAULT, "PMIx_Info_list_xfer_unique");
    void *l;
    pmix_info_t ins, x, *ip;
    pmix_value_t val, val2;
    uint32_t u = 7;
    const char *t;
    char long600[601];
    int rc[6];

    check(NULL != add_unique && NULL != add_value && NULL != add_value_unique && NULL != xfer_unique,
          "5.0.9 symbols", "add_unique=%s add_value=%s add_value_unique=%s xfer_unique=%s", nonnull(add_unique),
          nonnull(add_value), nonnull(add_value_unique), nonnull(xfer_unique));
    if (NULL == add_unique || NULL == add_value || NULL == add_value_unique || NULL == xfer_unique) {
        return;
    }
    /* As OpenPMIx v5.0.9 defines them (src/mca/bfrops/base/bfrop_base_fns.c;
     * its include/pmix_deprecated.h declares them without a comment): the
     * _unique calls add a key only when it is not on the list yet; when it
     * is and overwrite is true, the first entry with it takes the new value
     * and keeps its flags; either way they return PMIX_SUCCESS. _add_value
     * appends a copy of a pmix_value_t; _xfer_unique copies a whole info
     * (flags too) when its key is new. */
    l = PMIx_Info_list_start();
    rc[0] = add_unique(l, "a", "1", PMIX_STRING, false);
    rc[1] = add_unique(l, "a", "2", PMIX_STRING, false);
    t = list_text(l);
    check(0 == rc[0] && 0 == rc[1] && 0 == strcmp(t, "a=1/0"), "Info_list_add_unique keep", "%d %d %s", rc[0],
          rc[1], t);
    rc[0] = add_unique(l, "a", "3", PMIX_STRING, true);
    rc[1] = add_unique(l, "n", &u, PMIX_UINT32, true);
    t = list_text(l);
    check(0 == rc[0] && 0 == rc[1] && 0 == strcmp(t, "a=3/0;n=uint32:7/0"), "Info_list_add_unique overwrite",
          "%d %d %s", rc[0], rc[1], t);
    /* only the first entry of a repeated key is replaced; its flags stay */
    PMIx_Info_list_add(l, "dup", "x1", PMIX_STRING);
    PMIx_Info_list_add(l, "dup", "x2", PMIX_STRING);
    ip = PMIx_Info_list_get_info(l, NULL, &(void *){NULL});
    PMIx_Info_required(ip);
    rc[0] = add_unique(l, "dup", "y", PMIX_STRING, true);
    rc[1] = add_unique(l, "a", "4", PMIX_STRING, true);
    t = list_text(l);
    check(0 == rc[0] && 0 == rc[1] && 0 == strcmp(t, "a=4/1;n=uint32:7/0;dup=y/0;dup=x2/0"),
          "Info_list_add_unique first+flags", "%d %d %s", rc[0], rc[1], t);
    PMIx_Info_list_release(l);

    l = PMIx_Info_list_start();
    PMIx_Value_construct(&val);
    PMIx_Value_load(&val, "vv", PMIX_STRING);
    rc[0] = add_value(l, "v", &val);
    rc[1] = add_value(l, "v", &val); /* no uniqueness */
    PMIx_Value_destruct(&val);
    PMIx_Value_load(&val, "changed", PMIX_STRING);
    t = list_text(l);
    check(0 == rc[0] && 0 == rc[1] && 0 == strcmp(t, "v=vv/0;v=vv/0"), "Info_list_add_value copies", "%d %d %s",
          rc[0], rc[1], t);
    PMIx_Value_construct(&val2);
    PMIx_Value_load(&val2, &u, PMIX_UINT32);
    rc[0] = add_value_unique(l, "v", &val2, false);
    rc[1] = add_value_unique(l, "w", &val2, false);
    rc[2] = add_value_unique(l, "v", &val, true);
    t = list_text(l);
    check(0 == rc[0] && 0 == rc[1] && 0 == rc[2] && 0 == strcmp(t, "v=changed/0;v=vv/0;w=uint32:7/0"),
          "Info_list_add_value_unique", "%d %d %d %s", rc[0], rc[1], rc[2], t);
    PMIx_Value_destruct(&val);
    t = list_text(l);
    check(0 == strcmp(t, "v=changed/0;v=vv/0;w=uint32:7/0"), "Info_list_add_value_unique copied", "%s", t);

    PMIx_Info_load(&x, "x", "1", PMIX_STRING);
    PMIx_Info_qualifier(&x);
    rc[0] = xfer_unique(l, &x, false);
    PMIx_Info_destruct(&x);
    PMIx_Info_load(&x, "x", "2", PMIX_STRING);
    PMIx_Info_required(&x);
    rc[1] = xfer_unique(l, &x, true);
    PMIx_Info_destruct(&x);
    PMIx_Info_load(&x, "x", "3", PMIX_STRING);
    rc[2] = xfer_unique(l, &x, false);
    t = list_text(l);
    check(0 == rc[0] && 0 == rc[1] && 0 == rc[2] && 0 == strcmp(t, "v=changed/0;v=vv/0;w=uint32:7/0;x=2/8"),
          "Info_list_xfer_unique", "%d %d %d %s", rc[0], rc[1], rc[2], t);
    PMIx_Info_destruct(&x);

    /* an inserted info: rpmix replaces the list's entry and leaves the
     * caller's info alone (OpenPMIx 5.0.9 would destruct the caller's value) */
    PMIx_Info_load(&ins, "ins", "orig", PMIX_STRING);
    PMIx_Info_list_insert(l, &ins);
    rc[0] = add_unique(l, "ins", "new", PMIX_STRING, true);
    t = list_text(l);
    check(0 == rc[0] && NULL != strstr(t, ";ins=new/") && PMIX_STRING == ins.value.type &&
              0 == strcmp(ins.value.data.string, "orig"),
          "Info_list_add_unique inserted", "%d %s caller=%s", rc[0], t, value_text(&ins.value));

    /* bad arguments */
    memset(long600, 'k', 600);
    long600[600] = '\0';
    rc[0] = add_unique(NULL, "a", "1", PMIX_STRING, true);
    rc[1] = add_unique(l, NULL, "1", PMIX_STRING, true);
    rc[2] = add_value(l, "k", NULL);
    rc[3] = add_value(l, NULL, &val2);
    rc[4] = add_value_unique(l, long600, &val2, true);
    rc[5] = xfer_unique(l, NULL, true);
    check(PMIX_ERR_BAD_PARAM == rc[0] && PMIX_ERR_BAD_PARAM == rc[1] && PMIX_ERR_BAD_PARAM == rc[2] &&
              PMIX_ERR_BAD_PARAM == rc[3] && PMIX_ERR_BAD_PARAM == rc[4] && PMIX_ERR_BAD_PARAM == rc[5],
          "5.0.9 bad arguments", "%d %d %d %d %d %d", rc[0], rc[1], rc[2], rc[3], rc[4], rc[5]);
    t = list_text(l);
    check(0 == strcmp(t, "v=changed/0;v=vv/0;w=uint32:7/0;x=2/8;ins=new/0"), "5.0.9 list unchanged", "%s", t);
    PMIx_Info_list_release(l);
    PMIx_Info_destruct(&ins);
    PMIx_Value_destruct(&val2);
}

static void rpmix_only(void)
{
    pmix_proc_t p;
    pmix_key_t key;
    pmix_nspace_t t, c, n;
    char **a = NULL;
    size_t sz;
    int rc[8];
    pmix_server_module_t module;
    pmix_value_t v;
    pmix_info_t *ip;
    void *l, *next;

    printf("== rpmix only ==\n");

    memset(&module, 0, sizeof(module));
    rc[0] = PMIx_tool_set_server_module(&module);
    rc[1] = PMIx_tool_set_server_module(NULL);
    check(PMIX_ERR_INIT == rc[0] && PMIX_ERR_BAD_PARAM == rc[1], "tool_set_server_module", "%d %d", rc[0], rc[1]);

    /* NULL objects are ignored */
    PMIx_App_construct(NULL);
    PMIx_App_destruct(NULL);
    PMIx_App_info_create(NULL, 2);
    PMIx_Byte_object_construct(NULL);
    PMIx_Byte_object_destruct(NULL);
    PMIx_Byte_object_load(NULL, NULL, 3);
    PMIx_Coord_construct(NULL);
    PMIx_Coord_destruct(NULL);
    PMIx_Cpuset_construct(NULL);
    PMIx_Data_array_construct(NULL, 2, PMIX_INFO);
    PMIx_Data_array_init(NULL, PMIX_INFO);
    PMIx_Data_buffer_construct(NULL);
    PMIx_Data_buffer_destruct(NULL);
    PMIx_Data_buffer_load(NULL, NULL, 0);
    PMIx_Device_distance_construct(NULL);
    PMIx_Device_distance_destruct(NULL);
    PMIx_Disk_stats_construct(NULL);
    PMIx_Disk_stats_destruct(NULL);
    PMIx_Endpoint_construct(NULL);
    PMIx_Endpoint_destruct(NULL);
    PMIx_Envar_construct(NULL);
    PMIx_Envar_destruct(NULL);
    PMIx_Envar_load(NULL, "a", "b", ':');
    PMIx_Geometry_construct(NULL);
    PMIx_Geometry_destruct(NULL);
    PMIx_Info_construct(NULL);
    PMIx_Info_destruct(NULL);
    PMIx_Info_required(NULL);
    PMIx_Info_optional(NULL);
    PMIx_Info_processed(NULL);
    PMIx_Info_set_end(NULL);
    PMIx_Info_qualifier(NULL);
    PMIx_Info_persistent(NULL);
    PMIx_Net_stats_construct(NULL);
    PMIx_Net_stats_destruct(NULL);
    PMIx_Node_stats_construct(NULL);
    PMIx_Node_stats_destruct(NULL);
    PMIx_Pdata_construct(NULL);
    PMIx_Pdata_destruct(NULL);
    PMIx_Proc_construct(NULL);
    PMIx_Proc_destruct(NULL);
    PMIx_Proc_info_construct(NULL);
    PMIx_Proc_info_destruct(NULL);
    PMIx_Proc_stats_construct(NULL);
    PMIx_Proc_stats_destruct(NULL);
    PMIx_Proc_load(NULL, "x", 1);
    PMIx_Query_construct(NULL);
    PMIx_Query_destruct(NULL);
    PMIx_Query_qualifiers_create(NULL, 2);
    PMIx_Regattr_construct(NULL);
    PMIx_Regattr_destruct(NULL);
    PMIx_Regattr_load(NULL, "n", "k", PMIX_INT, "d");
    PMIx_Regattr_xfer(NULL, NULL);
    PMIx_Topology_construct(NULL);
    PMIx_Value_construct(NULL);
    PMIx_Load_key(NULL, "x");
    PMIx_Load_nspace(NULL, "x");
    PMIx_Load_procid(NULL, "x", 1);
    PMIx_Multicluster_nspace_construct(NULL, NULL, NULL);
    PMIx_Load_procid(&p, "keep", 1);
    PMIx_Xfer_procid(&p, NULL);
    PMIx_Xfer_procid(NULL, &p);
    check(0 == strcmp(p.nspace, "keep") && 1 == p.rank, "NULL objects ignored", "%s:%u", qs(p.nspace), p.rank);

    check(!PMIx_Check_key(NULL, "x") && !PMIx_Check_key("x", NULL) && !PMIx_Check_reserved_key(NULL) &&
              PMIx_Procid_invalid(NULL) && !PMIx_Check_procid(NULL, &p) && !PMIx_Check_procid(&p, NULL),
          "NULL names", "Check_key=%d,%d reserved=%d Procid_invalid=%d Check_procid=%d,%d",
          PMIx_Check_key(NULL, "x"), PMIx_Check_key("x", NULL), PMIx_Check_reserved_key(NULL),
          PMIx_Procid_invalid(NULL), PMIx_Check_procid(NULL, &p), PMIx_Check_procid(&p, NULL));
    PMIx_Load_key(key, "k");
    check(!PMIx_Info_is_required(NULL) && !PMIx_Info_is_optional(NULL) && !PMIx_Info_was_processed(NULL) &&
              !PMIx_Info_is_end(NULL) && !PMIx_Info_is_qualifier(NULL) && !PMIx_Info_is_persistent(NULL) &&
              PMIX_NON_BOOL == PMIx_Info_true(NULL) && PMIX_NON_BOOL == PMIx_Value_true(NULL),
          "NULL infos", "all false, non-bool");

    PMIx_Multicluster_nspace_construct(t, NULL, NULL);
    check(0 == strcmp(t, ":"), "Multicluster_nspace_construct NULLs", "%s", qs(t));
    memset(c, 'x', sizeof(c));
    memset(n, 'y', sizeof(n));
    PMIx_Multicluster_nspace_parse(NULL, c, n);
    check(0 == strlen(c) && 0 == strlen(n), "Multicluster_nspace_parse NULL", "%s %s", qs(c), qs(n));
    memset(n, 'y', sizeof(n));
    {
        /* a short string (not a padded namespace), and the nspace not
         * cleared first; through a volatile pointer, so that the compiler
         * does not object to the short array */
        static char shortns[] = "plain";
        char *volatile sp = shortns;
        PMIx_Multicluster_nspace_parse(sp, c, n);
    }
    check(0 == strcmp(c, "plain") && 0 == strlen(n), "Multicluster_nspace_parse short", "%s %s", qs(c), qs(n));

    rc[0] = PMIx_Argv_append_nosize(NULL, "x");
    rc[1] = PMIx_Argv_append_nosize(&a, NULL);
    rc[2] = PMIx_Argv_prepend_nosize(NULL, "x");
    rc[3] = PMIx_Argv_prepend_nosize(&a, NULL);
    rc[4] = PMIx_Argv_append_unique_nosize(NULL, "x");
    rc[5] = PMIx_Argv_append_unique_nosize(&a, NULL);
    check(PMIX_ERR_BAD_PARAM == rc[0] && PMIX_ERR_BAD_PARAM == rc[1] && PMIX_ERR_BAD_PARAM == rc[2] &&
              PMIX_ERR_BAD_PARAM == rc[3] && PMIX_ERR_BAD_PARAM == rc[4] && PMIX_ERR_BAD_PARAM == rc[5] &&
              NULL == a,
          "Argv NULL", "%d %d %d %d %d %d argv=%s", rc[0], rc[1], rc[2], rc[3], rc[4], rc[5], argv_text(a));

    rc[0] = PMIx_Setenv(NULL, "x", true, &a);
    rc[1] = PMIx_Setenv("V5_BAD=NAME", "x", true, &environ);
    rc[2] = PMIx_Setenv("", "x", true, &environ);
    check(PMIX_ERR_BAD_PARAM == rc[0] && PMIX_ERR_BAD_PARAM == rc[1] && PMIX_ERR_BAD_PARAM == rc[2] && NULL == a,
          "Setenv bad", "%d %d %d", rc[0], rc[1], rc[2]);

    /* rpmix's PMIx_Error_string gives OpenPMIx 4.2.2's texts ("BAD-PARAM");
     * its PMIx_Error_code takes them back too (OpenPMIx 5.0.7: INT32_MIN) */
    rc[0] = PMIx_Error_code(NULL);
    rc[1] = PMIx_Error_code("BAD-PARAM");
    rc[2] = PMIx_Error_code("SUCCESS");
    check(INT32_MIN == rc[0] && PMIX_ERR_BAD_PARAM == rc[1] && PMIX_SUCCESS == rc[2], "Error_code rpmix",
          "NULL=%d BAD-PARAM=%d SUCCESS=%d", rc[0], rc[1], rc[2]);
    {
        size_t i, bad = 0;
        for (i = 0; NULL != status_names[i]; i++) {
            int code = PMIx_Error_code(status_names[i]);
            /* codes OpenPMIx 4.2.2's strings did not name have no text */
            if (INT32_MIN != code && 0 != strcmp(PMIx_Error_string(code), "ERROR STRING NOT FOUND") &&
                PMIx_Error_code(PMIx_Error_string(code)) != code) {
                line("Error_code round trip", "%s: %d -> %s", status_names[i], code, qs(PMIx_Error_string(code)));
                bad++;
            }
        }
        check(0 == bad, "Error_code(Error_string(code))", "%zu mismatches", bad);
    }

    sz = 77;
    rc[0] = PMIx_Value_get_size(NULL, &sz);
    PMIx_Value_construct(&v);
    rc[1] = PMIx_Value_get_size(&v, NULL);
    rc[2] = PMIx_Info_get_size(NULL, &sz);
    rc[3] = PMIx_Value_get_size(&v, &sz); /* undef */
    check(PMIX_ERR_BAD_PARAM == rc[0] && PMIX_ERR_BAD_PARAM == rc[1] && PMIX_ERR_BAD_PARAM == rc[2] &&
              PMIX_ERR_UNKNOWN_DATA_TYPE == rc[3] && 77 == sz,
          "get_size bad", "%d %d %d %d size=%zu", rc[0], rc[1], rc[2], rc[3], sz);
    /* types OpenPMIx 5.0.7's PMIx_Value_get_size does not list (it adds
     * only sizeof(pmix_value_t) to whatever *sz held) */
    v.type = PMIX_INFO_DIRECTIVES;
    rc[0] = PMIx_Value_get_size(&v, &sz);
    check(PMIX_SUCCESS == rc[0] && sizeof(pmix_value_t) + sizeof(pmix_info_directives_t) == sz,
          "Value_get_size directives", "%d %zu", rc[0], sz);
    v.type = PMIX_DATA_TYPE;
    rc[0] = PMIx_Value_get_size(&v, &sz);
    check(PMIX_SUCCESS == rc[0] && sizeof(pmix_value_t) + sizeof(pmix_data_type_t) == sz,
          "Value_get_size data type", "%d %zu", rc[0], sz);
    v.type = PMIX_DATA_ARRAY;
    v.data.darray = NULL;
    rc[0] = PMIx_Value_get_size(&v, &sz);
    check(PMIX_SUCCESS == rc[0] && sizeof(pmix_value_t) + sizeof(pmix_data_array_t) == sz,
          "Value_get_size NULL darray", "%d %zu", rc[0], sz);

    l = PMIx_Info_list_start();
    next = (void *) 1;
    ip = PMIx_Info_list_get_info(l, NULL, &next);
    check(NULL == ip && NULL == next, "Info_list_get_info empty", "%s next=%s", nonnull(ip), nonnull(next));
    next = (void *) 1;
    ip = PMIx_Info_list_get_info(NULL, NULL, &next);
    check(NULL == ip && NULL == next, "Info_list_get_info NULL", "%s next=%s", nonnull(ip), nonnull(next));
    {
        char long600[601];
        memset(long600, 'k', 600);
        long600[600] = '\0';
        rc[0] = PMIx_Info_list_prepend(NULL, "k", "v", PMIX_STRING);
        rc[1] = PMIx_Info_list_prepend(l, NULL, "v", PMIX_STRING);
        rc[2] = PMIx_Info_list_prepend(l, long600, "v", PMIX_STRING);
        check(PMIX_ERR_BAD_PARAM == rc[0] && PMIX_ERR_BAD_PARAM == rc[1] && PMIX_ERR_BAD_PARAM == rc[2],
              "Info_list_prepend bad", "%d %d %d", rc[0], rc[1], rc[2]);
    }
    PMIx_Info_list_release(l);

    {
        pmix_data_buffer_t b;
        char *bytes = (char *) 1, *mine = malloc(4);
        size_t bsz = 9;
        PMIx_Data_buffer_construct(&b);
        PMIx_Data_buffer_unload(NULL, &bytes, &bsz);
        check(NULL == bytes && 0 == bsz, "Data_buffer_unload NULL", "%s %zu", nonnull(bytes), bsz);
        PMIx_Data_buffer_unload(&b, NULL, &bsz);
        /* 0 bytes: rpmix does not take the memory (OpenPMIx 5.0.7 does) */
        PMIx_Data_buffer_load(&b, mine, 0);
        check(NULL == b.base_ptr && 0 == b.bytes_used, "Data_buffer_load 0 bytes", "base=%s used=%zu",
              nonnull(b.base_ptr), b.bytes_used);
        free(mine);
        PMIx_Data_buffer_destruct(&b);
    }
    {
        char *s = PMIx_App_string(NULL);
        pmix_app_t app;
        uint32_t u = 2;
        check(NULL == s, "App_string NULL", "%s", nonnull(s));
        PMIx_App_construct(&app);
        app.cmd = strdup("true");
        PMIx_App_info_create(&app, 2);
        PMIx_Info_load(&app.info[0], "pmix.wdir", "/tmp", PMIX_STRING);
        PMIx_Info_load(&app.info[1], "pmix.np", &u, PMIX_UINT32);
        s = PMIx_App_string(&app);
        check(NULL != s && NULL != strstr(s, "\n    INFO:\n        INFO[0]: ") &&
                  NULL != strstr(s, "\n        INFO[1]: "),
              "App_string infos", "%zu chars", s ? strlen(s) : 0);
        print_lines("App_string infos", s);
        free(s);
        PMIx_App_destruct(&app);
    }

    /* every element of a PMIx_Coord_create array has its coordinates */
    {
        pmix_coord_t *cs = PMIx_Coord_create(2, 3);
        check(NULL != cs && 2 == cs[1].dims && NULL != cs[2].coord && 0 == cs[2].coord[1] &&
                  PMIX_COORD_VIEW_UNDEF == cs[2].view,
              "Coord_create 2x3", "dims=%zu,%zu,%zu", cs[0].dims, cs[1].dims, cs[2].dims);
        PMIx_Coord_free(cs, 3);
    }
    /* impossible counts: NULL, and a free that leaves the array alone */
    {
        pmix_info_t *is = PMIx_Info_create(SIZE_MAX);
        check(NULL == is, "Info_create SIZE_MAX", "%s", nonnull(is));
        is = PMIx_Info_create(1);
        PMIx_Info_free(is, SIZE_MAX);
        PMIx_Info_free(is, 1);
    }
    /* PMIx_Data_array_create(0, t): an empty array (OpenPMIx 5.0.7: NULL) */
    {
        pmix_data_array_t *d = PMIx_Data_array_create(0, PMIX_INFO);
        check(NULL != d && 0 == d->size && NULL == d->array && PMIX_INFO == d->type, "Data_array_create 0",
              "%s size=%zu type=%u", nonnull(d), d ? d->size : 0, d ? (unsigned) d->type : 0);
        PMIx_Data_array_free(d);
    }
    /* types OpenPMIx 5.0.7's PMIx_Data_array_construct leaves empty (size
     * 0): rpmix makes the elements */
    {
        pmix_data_type_t more[] = {PMIX_JOB_STATE, PMIX_DEVTYPE, PMIX_LOCTYPE, PMIX_COMMAND, PMIX_DATA_BUFFER,
                                   PMIX_TOPO, PMIX_REGEX, PMIX_COMPRESSED_BYTE_OBJECT, PMIX_DATA_ARRAY,
                                   PMIX_STOR_MEDIUM};
        size_t i, bad = 0;
        for (i = 0; i < sizeof(more) / sizeof(more[0]); i++) {
            pmix_data_array_t d;
            PMIx_Data_array_construct(&d, 2, more[i]);
            if (2 != d.size || NULL == d.array || more[i] != d.type) {
                line("Data_array_construct more", "type=%u size=%zu array=%s", (unsigned) more[i], d.size,
                     nonnull(d.array));
                bad++;
            }
            PMIx_Data_array_destruct(&d);
        }
        check(0 == bad, "Data_array_construct more types", "%zu not made", bad);
    }
    /* not initialised: PMIX_ERR_INIT, as OpenPMIx */
    check(PMIX_ERR_INIT == PMIx_Session_control(1, NULL, 0, NULL, NULL), "Session_control rpmix", "%d",
          PMIx_Session_control(1, NULL, 0, NULL, NULL));

    v509();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* a crash loses no line */
    /* every check: "<what>: <values> [ok]" or "... [FAILED]" */
    tu_every = true;
    tu_verdict_last = true;
    tu_ok_word = "[ok]";
    tu_fail_word = "[FAILED]";
    names();
    argvs();
    setenvs();
    errors();
    values();
    infos();
    info_lists();
    byte_objects();
    coords();
    cpusets_topologies();
    data_arrays();
    data_buffers();
    device_distances();
    stats();
    endpoints_envars_geometries();
    pdatas_procs();
    queries_regattrs();
    apps();
    sizes();
    tool();
    line("done", "%s", nfail ? "FAILED" : "ok");
    if (NULL != getenv("V5_RPMIX_ONLY") && 0 == strcmp(getenv("V5_RPMIX_ONLY"), "1")) {
        nfail = 0; /* this section's own count */
        rpmix_only();
        if (nfail) {
            line("rpmix-only", "%d FAILED", nfail);
        } else {
            line("rpmix-only", "ok");
        }
    }
    fflush(stdout);
    return nfail ? 1 : 0;
}
