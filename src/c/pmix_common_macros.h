/*
 * rpmix: the function-like convenience macros and the *_STATIC_INIT
 * initialisers of the PMIx 4.2.2 C API. cbindgen cannot express these, so
 * build.rs appends this file to the generated pmix_common.h.
 *
 * Everything here is built only from libc, the exported PMIx_* entry points
 * and small static inline helpers named pmixrs_*, so that a program compiled
 * against these headers runs on any libpmix.so.2. Memory is always plain
 * malloc/calloc/free, which is what the library uses as well.
 *
 * The text must stay valid C99, C11 and C++11 (casts on allocations,
 * positional initialisers, no designated initialisers).
 */

#ifndef RPMIX_COMMON_MACROS_H
#define RPMIX_COMMON_MACROS_H

#ifdef __cplusplus
extern "C" {
#endif

/* PMIX_SETENV edits the live environment when handed &environ; strict ISO
 * modes of glibc do not declare these, so state them here (C only: C++
 * compilers on glibc always see the library's own declarations). */
#if !defined(environ)
extern char **environ;
#endif
#ifndef __cplusplus
int setenv(const char *name, const char *value, int overwrite);
int unsetenv(const char *name);
#endif

/* ------------------------------------------------------------------ */
/* Static initialisers (member order as in the struct declarations)    */
/* ------------------------------------------------------------------ */

#define PMIX_COORD_STATIC_INIT { PMIX_COORD_VIEW_UNDEF, NULL, 0 }
#define PMIX_CPUSET_STATIC_INIT { NULL, NULL }
#define PMIX_TOPOLOGY_STATIC_INIT { NULL, NULL }
#define PMIX_GEOMETRY_STATIC_INIT { 0, NULL, NULL, NULL, 0 }
#define PMIX_DEVICE_DIST_STATIC_INIT { NULL, NULL, PMIX_DEVTYPE_UNKNOWN, 0, 0 }
#define PMIX_BYTE_OBJECT_STATIC_INIT { NULL, 0 }
#define PMIX_ENDPOINT_STATIC_INIT { NULL, NULL, PMIX_BYTE_OBJECT_STATIC_INIT }
#define PMIX_ENVAR_STATIC_INIT { NULL, NULL, '\0' }
#define PMIX_DATA_BUFFER_STATIC_INIT { NULL, NULL, NULL, 0, 0 }
#define PMIX_PROC_STATIC_INIT { { 0 }, PMIX_RANK_UNDEF }
#define PMIX_PROC_INFO_STATIC_INIT \
    { PMIX_PROC_STATIC_INIT, NULL, NULL, 0, 0, PMIX_PROC_STATE_UNDEF }
#define PMIX_DATA_ARRAY_STATIC_INIT { PMIX_UNDEF, 0, NULL }
#define PMIX_PROC_STATS_STATIC_INIT                                        \
    { NULL, PMIX_PROC_STATIC_INIT, 0, NULL, '\0', { 0, 0 }, 0.0f, 0, 0,    \
      0.0f, 0.0f, 0.0f, 0.0f, 0, { 0, 0 } }
#define PMIX_DISK_STATS_STATIC_INIT \
    { NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }
#define PMIX_NET_STATS_STATIC_INIT { NULL, 0, 0, 0, 0, 0, 0 }
#define PMIX_NODE_STATS_STATIC_INIT                                        \
    { NULL, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f,    \
      0.0f, { 0, 0 }, NULL, 0, NULL, 0 }
#define PMIX_VALUE_STATIC_INIT { PMIX_UNDEF, { false } }
#define PMIX_INFO_STATIC_INIT { { 0 }, 0, PMIX_VALUE_STATIC_INIT }
#define PMIX_LOOKUP_STATIC_INIT \
    { PMIX_PROC_STATIC_INIT, { 0 }, PMIX_VALUE_STATIC_INIT }
#define PMIX_APP_STATIC_INIT { NULL, NULL, NULL, NULL, 0, NULL, 0 }
#define PMIX_QUERY_STATIC_INIT { NULL, NULL, 0 }
#define PMIX_REGATTR_STATIC_INIT { NULL, { 0 }, PMIX_UNDEF, NULL }
#define PMIX_FABRIC_STATIC_INIT { NULL, 0, NULL, 0, NULL }

/* ------------------------------------------------------------------ */
/* Small private helpers                                               */
/* ------------------------------------------------------------------ */

/* n zeroed elements, or NULL when n is 0 */
static inline void *pmixrs_zalloc(size_t n, size_t size)
{
    if (0 == n) {
        return NULL;
    }
    return calloc(n, size);
}

/* strdup is not part of strict ISO C */
static inline char *pmixrs_strdup(const char *s)
{
    size_t len;
    char *copy;

    if (NULL == s) {
        return NULL;
    }
    len = strlen(s) + 1;
    copy = (char *)malloc(len);
    if (NULL != copy) {
        memcpy(copy, s, len);
    }
    return copy;
}

/* length of s, looking at no more than max + 1 bytes (0 for NULL) */
static inline size_t pmixrs_boundlen(const char *s, size_t max)
{
    size_t len = 0;

    if (NULL == s) {
        return 0;
    }
    while (len <= max && '\0' != s[len]) {
        ++len;
    }
    return len;
}

/* copy at most max chars of src, then always terminate (dst holds max + 1) */
static inline void pmixrs_copy_bounded(char *dst, const char *src, size_t max)
{
    size_t k = 0;

    if (NULL != src) {
        for (; k < max && '\0' != src[k]; ++k) {
            dst[k] = src[k];
        }
    }
    dst[k] = '\0';
}

/* clear a key/nspace buffer of max + 1 bytes, then fill it from src */
static inline void pmixrs_load_bounded(char *dst, const char *src, size_t max)
{
    memset(dst, 0, max + 1);
    pmixrs_copy_bounded(dst, src, max);
}

/* case-insensitive "does s start with word" (word in lower case) */
static inline bool pmixrs_has_prefix_nocase(const char *s, const char *word)
{
    for (; '\0' != *word; ++s, ++word) {
        if ('\0' == *s || tolower((unsigned char)*s) != *word) {
            return false;
        }
    }
    return true;
}

/* ------------------------------------------------------------------ */
/* Keys, namespaces, process identifiers, ranks                        */
/* ------------------------------------------------------------------ */

static inline bool pmixrs_nspace_invalid(const char *ns)
{
    return 0 == pmixrs_boundlen(ns, PMIX_MAX_NSLEN);
}

/* an empty or missing namespace matches anything */
static inline bool pmixrs_nspace_match(const char *a, const char *b)
{
    if (pmixrs_nspace_invalid(a) || pmixrs_nspace_invalid(b)) {
        return true;
    }
    return 0 == strncmp(a, b, PMIX_MAX_NSLEN);
}

/* equal ranks match, and the wildcard rank matches any rank */
static inline bool pmixrs_rank_match(pmix_rank_t a, pmix_rank_t b)
{
    return a == b || PMIX_RANK_WILDCARD == a || PMIX_RANK_WILDCARD == b;
}

#define PMIX_CHECK_KEY(a, b) \
    (strncmp((a)->key, (b), PMIX_MAX_KEYLEN) == 0)

#define PMIX_CHECK_RESERVED_KEY(a) \
    (strncmp((a), "pmix", 4) == 0)

#define PMIX_LOAD_KEY(a, b) \
    pmixrs_load_bounded((char *)(a), (const char *)(b), PMIX_MAX_KEYLEN)

#define PMIX_LOAD_NSPACE(a, b) \
    pmixrs_load_bounded((char *)(a), (const char *)(b), PMIX_MAX_NSLEN)

#define PMIX_NSPACE_INVALID(a) \
    pmixrs_nspace_invalid(a)

#define PMIX_CHECK_NSPACE(a, b) \
    pmixrs_nspace_match((a), (b))

#define PMIX_CHECK_RANK(a, b) \
    pmixrs_rank_match((a), (b))

#define PMIX_RANK_IS_VALID(r) \
    ((r) < PMIX_RANK_VALID)

#define PMIX_LOAD_PROCID(a, b, c)              \
    do {                                       \
        PMIX_LOAD_NSPACE((a)->nspace, (b));    \
        (a)->rank = (c);                       \
    } while (0)

#define PMIX_XFER_PROCID(a, b) \
    memcpy((a), (b), sizeof(pmix_proc_t))

#define PMIX_PROCID_XFER(a, b) \
    PMIX_XFER_PROCID(a, b)

#define PMIX_CHECK_PROCID(a, b)                              \
    (pmixrs_nspace_match((a)->nspace, (b)->nspace) &&        \
     pmixrs_rank_match((a)->rank, (b)->rank))

#define PMIX_PROCID_INVALID(a) \
    (pmixrs_nspace_invalid((a)->nspace) || PMIX_RANK_INVALID == (a)->rank)

#define PMIX_SYSTEM_EVENT(a) \
    ((a) <= PMIX_EVENT_SYS_BASE && (a) >= PMIX_EVENT_SYS_OTHER)

/* ------------------------------------------------------------------ */
/* argv-style string arrays (NULL-terminated, every entry malloc'd)    */
/* ------------------------------------------------------------------ */

static inline int pmixrs_argv_len(char **argv)
{
    int n = 0;

    if (NULL != argv) {
        while (NULL != argv[n]) {
            ++n;
        }
    }
    return n;
}

/* append an already-allocated string, taking ownership of it */
static inline pmix_status_t pmixrs_argv_push_owned(char ***argv, char *s)
{
    int n = pmixrs_argv_len(*argv);
    char **grown = (char **)realloc(*argv, ((size_t)n + 2) * sizeof(char *));

    if (NULL == grown) {
        free(s);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    grown[n] = s;
    grown[n + 1] = NULL;
    *argv = grown;
    return PMIX_SUCCESS;
}

static inline pmix_status_t pmixrs_argv_append(char ***argv, const char *s)
{
    char *copy = pmixrs_strdup(s);

    if (NULL == copy) {
        return (NULL == s) ? PMIX_ERR_BAD_PARAM : PMIX_ERR_OUT_OF_RESOURCE;
    }
    return pmixrs_argv_push_owned(argv, copy);
}

static inline pmix_status_t pmixrs_argv_prepend(char ***argv, const char *s)
{
    char *copy = pmixrs_strdup(s);
    pmix_status_t rc;
    int k;

    if (NULL == copy) {
        return (NULL == s) ? PMIX_ERR_BAD_PARAM : PMIX_ERR_OUT_OF_RESOURCE;
    }
    rc = pmixrs_argv_push_owned(argv, copy);
    if (PMIX_SUCCESS == rc) {
        /* rotate the new last entry to the front */
        for (k = pmixrs_argv_len(*argv) - 1; k > 0; --k) {
            (*argv)[k] = (*argv)[k - 1];
        }
        (*argv)[0] = copy;
    }
    return rc;
}

static inline pmix_status_t pmixrs_argv_append_unique(char ***argv, const char *s)
{
    int k;

    if (NULL != *argv && NULL != s) {
        for (k = 0; NULL != (*argv)[k]; ++k) {
            if (0 == strcmp((*argv)[k], s)) {
                return PMIX_SUCCESS;
            }
        }
    }
    return pmixrs_argv_append(argv, s);
}

static inline void pmixrs_argv_free(char **argv)
{
    int k;

    if (NULL == argv) {
        return;
    }
    for (k = 0; NULL != argv[k]; ++k) {
        free(argv[k]);
    }
    free(argv);
}

/* split at every delimiter, dropping empty fields; NULL if nothing left */
static inline char **pmixrs_argv_split(const char *s, int delim)
{
    char **argv = NULL;
    const char *end;
    char *field;
    size_t len;

    while (NULL != s && '\0' != *s) {
        for (end = s; '\0' != *end && delim != *end; ++end) {
            ;
        }
        len = (size_t)(end - s);
        if (len > 0) {
            field = (char *)malloc(len + 1);
            if (NULL == field) {
                pmixrs_argv_free(argv);
                return NULL;
            }
            memcpy(field, s, len);
            field[len] = '\0';
            if (PMIX_SUCCESS != pmixrs_argv_push_owned(&argv, field)) {
                pmixrs_argv_free(argv);
                return NULL;
            }
        }
        s = ('\0' == *end) ? end : end + 1;
    }
    return argv;
}

/* entries joined by the delimiter; "" for an empty or missing array */
static inline char *pmixrs_argv_join(char **argv, int delim)
{
    size_t total = 0, at = 0, len;
    char *out;
    int k;

    if (NULL == argv || NULL == argv[0]) {
        return pmixrs_strdup("");
    }
    for (k = 0; NULL != argv[k]; ++k) {
        total += strlen(argv[k]) + 1;
    }
    out = (char *)malloc(total);
    if (NULL == out) {
        return NULL;
    }
    for (k = 0; NULL != argv[k]; ++k) {
        if (k > 0) {
            out[at++] = (char)delim;
        }
        len = strlen(argv[k]);
        memcpy(out + at, argv[k], len);
        at += len;
    }
    out[at] = '\0';
    return out;
}

/* deep copy; an empty array gives an empty (not NULL) array */
static inline char **pmixrs_argv_copy(char **argv)
{
    char **dup;
    int k;

    if (NULL == argv) {
        return NULL;
    }
    dup = (char **)malloc(sizeof(char *));
    if (NULL == dup) {
        return NULL;
    }
    dup[0] = NULL;
    for (k = 0; NULL != argv[k]; ++k) {
        if (PMIX_SUCCESS != pmixrs_argv_append(&dup, argv[k])) {
            pmixrs_argv_free(dup);
            return NULL;
        }
    }
    return dup;
}

/* setenv(3) for any environ-style array; the real environ goes to libc */
static inline pmix_status_t pmixrs_setenv(const char *name, const char *value,
                                          bool overwrite, char ***env)
{
    size_t nlen, vlen = 0;
    char *entry;
    int k;

    if (NULL == env) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (NULL != value) {
        /* refuse values that are not terminated within 100000 bytes */
        while (vlen < 100000 && '\0' != value[vlen]) {
            ++vlen;
        }
        if (vlen >= 100000) {
            return PMIX_ERR_BAD_PARAM;
        }
    }
    if (*env == environ) {
        if (NULL == value) {
            (void)unsetenv(name);
        } else {
            (void)setenv(name, value, overwrite ? 1 : 0);
        }
        return PMIX_SUCCESS;
    }

    nlen = strlen(name);
    entry = (char *)malloc(nlen + vlen + 2);
    if (NULL == entry) {
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    memcpy(entry, name, nlen);
    entry[nlen] = '=';
    if (vlen > 0) {
        memcpy(entry + nlen + 1, value, vlen);
    }
    entry[nlen + 1 + vlen] = '\0';

    for (k = 0; NULL != *env && NULL != (*env)[k]; ++k) {
        if (0 == strncmp((*env)[k], entry, nlen + 1)) {
            if (!overwrite) {
                free(entry);
                return PMIX_ERR_EXISTS;
            }
            free((*env)[k]);
            (*env)[k] = entry;
            return PMIX_SUCCESS;
        }
    }
    return pmixrs_argv_push_owned(env, entry);
}

#define PMIX_ARGV_COUNT(r, a) \
    (r) = pmixrs_argv_len(a)

#define PMIX_ARGV_APPEND(r, a, b) \
    (r) = pmixrs_argv_append(&(a), (b))

#define PMIX_ARGV_PREPEND(r, a, b) \
    (r) = pmixrs_argv_prepend(&(a), (b))

/* note: here the array is passed by address (char ***) */
#define PMIX_ARGV_APPEND_UNIQUE(r, a, b) \
    (r) = pmixrs_argv_append_unique((a), (b))

#define PMIX_ARGV_FREE(a) \
    pmixrs_argv_free(a)

#define PMIX_ARGV_SPLIT(a, b, c) \
    (a) = pmixrs_argv_split((b), (c))

#define PMIX_ARGV_JOIN(a, b, c) \
    (a) = pmixrs_argv_join((b), (c))

#define PMIX_ARGV_COPY(a, b) \
    (a) = pmixrs_argv_copy(b)

/* always overwrites an existing entry */
#define PMIX_SETENV(r, a, b, c) \
    (r) = pmixrs_setenv((a), (b), true, (c))

/* ------------------------------------------------------------------ */
/* Per-struct construct / destruct / create / free                     */
/* ------------------------------------------------------------------ */

static inline void pmixrs_coord_destruct(pmix_coord_t *c)
{
    c->view = PMIX_COORD_VIEW_UNDEF;
    if (NULL != c->coord) {
        free(c->coord);
        c->coord = NULL;
        c->dims = 0;
    }
}

/* count coordinates, each of dims zeroed entries */
static inline pmix_coord_t *pmixrs_coord_create(size_t count, size_t dims)
{
    pmix_coord_t *c = (pmix_coord_t *)pmixrs_zalloc(count, sizeof(pmix_coord_t));
    size_t k;

    for (k = 0; NULL != c && k < count; ++k) {
        c[k].view = PMIX_COORD_VIEW_UNDEF;
        c[k].coord = (uint32_t *)pmixrs_zalloc(dims, sizeof(uint32_t));
        c[k].dims = (NULL == c[k].coord) ? 0 : dims;
    }
    return c;
}

static inline void pmixrs_devdist_destruct(pmix_device_distance_t *d)
{
    free(d->uuid);
    d->uuid = NULL;
    free(d->osname);
    d->osname = NULL;
}

/* distances start out "unknown", i.e. at the maximum */
static inline pmix_device_distance_t *pmixrs_devdist_create(size_t n)
{
    pmix_device_distance_t *d =
        (pmix_device_distance_t *)pmixrs_zalloc(n, sizeof(pmix_device_distance_t));
    size_t k;

    for (k = 0; NULL != d && k < n; ++k) {
        d[k].mindist = UINT16_MAX;
        d[k].maxdist = UINT16_MAX;
    }
    return d;
}

static inline void pmixrs_bo_destruct(pmix_byte_object_t *b)
{
    free(b->bytes);
    b->bytes = NULL;
    b->size = 0;
}

static inline void pmixrs_endpoint_destruct(pmix_endpoint_t *e)
{
    free(e->uuid);
    e->uuid = NULL;
    free(e->osname);
    e->osname = NULL;
    pmixrs_bo_destruct(&e->endpt);
}

static inline void pmixrs_envar_destruct(pmix_envar_t *e)
{
    free(e->envar);
    e->envar = NULL;
    free(e->value);
    e->value = NULL;
}

static inline void pmixrs_proc_info_destruct(pmix_proc_info_t *p)
{
    free(p->hostname);
    p->hostname = NULL;
    free(p->executable_name);
    p->executable_name = NULL;
}

static inline void pmixrs_proc_stats_destruct(pmix_proc_stats_t *p)
{
    free(p->node);
    p->node = NULL;
    free(p->cmd);
    p->cmd = NULL;
}

static inline void pmixrs_disk_stats_destruct(pmix_disk_stats_t *d)
{
    free(d->disk);
    d->disk = NULL;
}

static inline void pmixrs_net_stats_destruct(pmix_net_stats_t *n)
{
    free(n->net_interface);
    n->net_interface = NULL;
}

static inline void pmixrs_value_destruct(pmix_value_t *v)
{
    PMIx_Value_destruct(v);
}

/* persistent infos do not own their value */
static inline void pmixrs_info_destruct(pmix_info_t *i)
{
    if (0 == (i->flags & PMIX_INFO_PERSISTENT)) {
        PMIx_Value_destruct(&i->value);
    }
}

static inline void pmixrs_pdata_destruct(pmix_pdata_t *p)
{
    PMIx_Value_destruct(&p->value);
}

/* Array release helpers: destruct n elements, then free the array. */
#define RPMIX_ARRAY_FREE_FN(fn, type, destruct_one)   \
    static inline void fn(type *arr, size_t n)        \
    {                                                 \
        size_t k;                                     \
        if (NULL == arr) {                            \
            return;                                   \
        }                                             \
        for (k = 0; k < n; ++k) {                     \
            destruct_one(&arr[k]);                    \
        }                                             \
        free(arr);                                    \
    }

RPMIX_ARRAY_FREE_FN(pmixrs_coord_free, pmix_coord_t, pmixrs_coord_destruct)
RPMIX_ARRAY_FREE_FN(pmixrs_devdist_free, pmix_device_distance_t, pmixrs_devdist_destruct)
RPMIX_ARRAY_FREE_FN(pmixrs_bo_free, pmix_byte_object_t, pmixrs_bo_destruct)
RPMIX_ARRAY_FREE_FN(pmixrs_endpoint_free, pmix_endpoint_t, pmixrs_endpoint_destruct)
RPMIX_ARRAY_FREE_FN(pmixrs_envar_free, pmix_envar_t, pmixrs_envar_destruct)
RPMIX_ARRAY_FREE_FN(pmixrs_proc_info_free, pmix_proc_info_t, pmixrs_proc_info_destruct)
RPMIX_ARRAY_FREE_FN(pmixrs_proc_stats_free, pmix_proc_stats_t, pmixrs_proc_stats_destruct)
RPMIX_ARRAY_FREE_FN(pmixrs_disk_stats_free, pmix_disk_stats_t, pmixrs_disk_stats_destruct)
RPMIX_ARRAY_FREE_FN(pmixrs_net_stats_free, pmix_net_stats_t, pmixrs_net_stats_destruct)
RPMIX_ARRAY_FREE_FN(pmixrs_value_free, pmix_value_t, pmixrs_value_destruct)
RPMIX_ARRAY_FREE_FN(pmixrs_info_free, pmix_info_t, pmixrs_info_destruct)
RPMIX_ARRAY_FREE_FN(pmixrs_pdata_free, pmix_pdata_t, pmixrs_pdata_destruct)

static inline void pmixrs_geometry_destruct(pmix_geometry_t *g)
{
    free(g->uuid);
    g->uuid = NULL;
    free(g->osname);
    g->osname = NULL;
    if (NULL != g->coordinates) {
        pmixrs_coord_free(g->coordinates, g->ncoords);
        g->coordinates = NULL;
    }
}

static inline void pmixrs_node_stats_destruct(pmix_node_stats_t *n)
{
    free(n->node);
    n->node = NULL;
    if (NULL != n->diskstats) {
        pmixrs_disk_stats_free(n->diskstats, n->ndiskstats);
        n->diskstats = NULL;
    }
    if (NULL != n->netstats) {
        pmixrs_net_stats_free(n->netstats, n->nnetstats);
        n->netstats = NULL;
    }
}

static inline void pmixrs_app_destruct(pmix_app_t *a)
{
    free(a->cmd);
    a->cmd = NULL;
    pmixrs_argv_free(a->argv);
    a->argv = NULL;
    pmixrs_argv_free(a->env);
    a->env = NULL;
    free(a->cwd);
    a->cwd = NULL;
    if (NULL != a->info) {
        pmixrs_info_free(a->info, a->ninfo);
        a->info = NULL;
        a->ninfo = 0;
    }
}

static inline void pmixrs_query_destruct(pmix_query_t *q)
{
    pmixrs_argv_free(q->keys);
    q->keys = NULL;
    if (NULL != q->qualifiers) {
        pmixrs_info_free(q->qualifiers, q->nqual);
        q->qualifiers = NULL;
        q->nqual = 0;
    }
}

static inline void pmixrs_regattr_destruct(pmix_regattr_t *a)
{
    if (NULL == a) {
        return;
    }
    free(a->name);
    a->name = NULL;
    pmixrs_argv_free(a->description);
    a->description = NULL;
}

RPMIX_ARRAY_FREE_FN(pmixrs_geometry_free, pmix_geometry_t, pmixrs_geometry_destruct)
RPMIX_ARRAY_FREE_FN(pmixrs_node_stats_free, pmix_node_stats_t, pmixrs_node_stats_destruct)
RPMIX_ARRAY_FREE_FN(pmixrs_app_free, pmix_app_t, pmixrs_app_destruct)
RPMIX_ARRAY_FREE_FN(pmixrs_query_free, pmix_query_t, pmixrs_query_destruct)
RPMIX_ARRAY_FREE_FN(pmixrs_regattr_free, pmix_regattr_t, pmixrs_regattr_destruct)

#undef RPMIX_ARRAY_FREE_FN

/* the last element of a fresh info array carries the end-of-array flag */
static inline pmix_info_t *pmixrs_info_create(size_t n)
{
    pmix_info_t *i = (pmix_info_t *)pmixrs_zalloc(n, sizeof(pmix_info_t));

    if (NULL != i) {
        i[n - 1].flags = PMIX_INFO_ARRAY_END;
    }
    return i;
}

static inline void pmixrs_proc_load(pmix_proc_t *p, const char *ns, pmix_rank_t r)
{
    memset(p, 0, sizeof(*p));
    pmixrs_copy_bounded(p->nspace, ns, PMIX_MAX_NSLEN);
    p->rank = r;
}

static inline void pmixrs_envar_load(pmix_envar_t *e, const char *name,
                                     const char *value, char sep)
{
    if (NULL != name) {
        e->envar = pmixrs_strdup(name);
    }
    if (NULL != value) {
        e->value = pmixrs_strdup(value);
    }
    e->separator = sep;
}

/* "cluster:nspace", left empty if the result would not fit */
static inline void pmixrs_mc_nspace_build(char *target, const char *cluster,
                                          const char *ns)
{
    size_t clen = pmixrs_boundlen(cluster, PMIX_MAX_NSLEN);
    size_t nlen = pmixrs_boundlen(ns, PMIX_MAX_NSLEN);

    memset(target, 0, PMIX_MAX_NSLEN + 1);
    if (clen + nlen >= PMIX_MAX_NSLEN) {
        return;
    }
    pmixrs_copy_bounded(target, cluster, PMIX_MAX_NSLEN);
    target[clen] = ':';
    pmixrs_copy_bounded(target + clen + 1, ns, PMIX_MAX_NSLEN - clen);
}

/* inverse of the above: text before the first ':' and text after it */
static inline void pmixrs_mc_nspace_split(const char *source, char *cluster,
                                          char *ns)
{
    size_t at = 0, out = 0;

    while (at <= PMIX_MAX_NSLEN && '\0' != source[at] && ':' != source[at]) {
        cluster[at] = source[at];
        ++at;
    }
    cluster[at <= PMIX_MAX_NSLEN ? at : PMIX_MAX_NSLEN] = '\0';
    if (at <= PMIX_MAX_NSLEN && ':' == source[at]) {
        for (++at; at <= PMIX_MAX_NSLEN && '\0' != source[at]; ++at) {
            ns[out++] = source[at];
        }
    }
    ns[out] = '\0';
}

static inline void pmixrs_dbuf_destruct(pmix_data_buffer_t *b)
{
    free(b->base_ptr);
    memset(b, 0, sizeof(*b));
}

static inline void pmixrs_pdata_load(pmix_pdata_t *m, const pmix_proc_t *p,
                                     const char *key, const void *data,
                                     pmix_data_type_t type)
{
    if (NULL == m) {
        return;
    }
    memset(m, 0, sizeof(*m));
    pmixrs_copy_bounded(m->proc.nspace, p->nspace, PMIX_MAX_NSLEN);
    m->proc.rank = p->rank;
    pmixrs_copy_bounded(m->key, key, PMIX_MAX_KEYLEN);
    (void)PMIx_Value_load(&m->value, data, type);
}

static inline void pmixrs_pdata_xfer(pmix_pdata_t *d, const pmix_pdata_t *s)
{
    if (NULL == d) {
        return;
    }
    memset(d, 0, sizeof(*d));
    pmixrs_copy_bounded(d->proc.nspace, s->proc.nspace, PMIX_MAX_NSLEN);
    d->proc.rank = s->proc.rank;
    pmixrs_copy_bounded(d->key, s->key, PMIX_MAX_KEYLEN);
    (void)PMIx_Value_xfer(&d->value, &s->value);
}

static inline void pmixrs_regattr_construct(pmix_regattr_t *a)
{
    if (NULL == a) {
        return;
    }
    a->name = NULL;
    memset(a->string, 0, sizeof(a->string));
    a->type = PMIX_UNDEF;
    a->description = NULL;
}

static inline void pmixrs_regattr_load(pmix_regattr_t *a, const char *name,
                                       const char *key, pmix_data_type_t type,
                                       const char *description)
{
    if (NULL != name) {
        a->name = pmixrs_strdup(name);
    }
    if (NULL != key) {
        pmixrs_load_bounded(a->string, key, PMIX_MAX_KEYLEN);
    }
    a->type = type;
    if (NULL != description) {
        (void)pmixrs_argv_append(&a->description, description);
    }
}

static inline void pmixrs_regattr_xfer(pmix_regattr_t *d, const pmix_regattr_t *s)
{
    pmixrs_regattr_construct(d);
    d->name = pmixrs_strdup(s->name);
    pmixrs_load_bounded(d->string, s->string, PMIX_MAX_KEYLEN);
    d->type = s->type;
    d->description = pmixrs_argv_copy(s->description);
}

/* allocate storage of n elements of type t (unknown types: empty array) */
static inline void pmixrs_darray_construct(pmix_data_array_t *d, size_t n,
                                           pmix_data_type_t t)
{
    size_t elem;

    d->type = t;
    d->size = n;
    d->array = NULL;
    if (0 == n) {
        return;
    }
    switch (t) {
    case PMIX_INFO:
        d->array = pmixrs_info_create(n);
        return;
    case PMIX_DEVICE_DIST:
        d->array = pmixrs_devdist_create(n);
        return;
    case PMIX_PROC:             elem = sizeof(pmix_proc_t); break;
    case PMIX_PROC_INFO:        elem = sizeof(pmix_proc_info_t); break;
    case PMIX_ENVAR:            elem = sizeof(pmix_envar_t); break;
    case PMIX_VALUE:            elem = sizeof(pmix_value_t); break;
    case PMIX_PDATA:            elem = sizeof(pmix_pdata_t); break;
    case PMIX_QUERY:            elem = sizeof(pmix_query_t); break;
    case PMIX_APP:              elem = sizeof(pmix_app_t); break;
    case PMIX_BYTE_OBJECT:
    case PMIX_COMPRESSED_STRING: elem = sizeof(pmix_byte_object_t); break;
    case PMIX_ALLOC_DIRECTIVE:
    case PMIX_PROC_STATE:
    case PMIX_PERSIST:
    case PMIX_SCOPE:
    case PMIX_DATA_RANGE:
    case PMIX_BYTE:
    case PMIX_INT8:
    case PMIX_UINT8:
    case PMIX_LINK_STATE:       elem = 1; break;
    case PMIX_POINTER:          elem = sizeof(void *); break;
    case PMIX_STRING:           elem = sizeof(char *); break;
    case PMIX_SIZE:             elem = sizeof(size_t); break;
    case PMIX_PID:              elem = sizeof(pid_t); break;
    case PMIX_INT:
    case PMIX_UINT:
    case PMIX_STATUS:           elem = sizeof(int); break;
    case PMIX_IOF_CHANNEL:
    case PMIX_DATA_TYPE:
    case PMIX_INT16:
    case PMIX_UINT16:           elem = 2; break;
    case PMIX_PROC_RANK:
    case PMIX_INFO_DIRECTIVES:
    case PMIX_INT32:
    case PMIX_UINT32:           elem = 4; break;
    case PMIX_INT64:
    case PMIX_UINT64:           elem = 8; break;
    case PMIX_FLOAT:            elem = sizeof(float); break;
    case PMIX_DOUBLE:           elem = sizeof(double); break;
    case PMIX_TIMEVAL:          elem = sizeof(struct timeval); break;
    case PMIX_TIME:             elem = sizeof(time_t); break;
    case PMIX_REGATTR:          elem = sizeof(pmix_regattr_t); break;
    case PMIX_BOOL:             elem = sizeof(bool); break;
    case PMIX_COORD:            elem = sizeof(pmix_coord_t); break;
    case PMIX_ENDPOINT:         elem = sizeof(pmix_endpoint_t); break;
    case PMIX_PROC_NSPACE:      elem = sizeof(pmix_nspace_t); break;
    case PMIX_PROC_STATS:       elem = sizeof(pmix_proc_stats_t); break;
    case PMIX_DISK_STATS:       elem = sizeof(pmix_disk_stats_t); break;
    case PMIX_NET_STATS:        elem = sizeof(pmix_net_stats_t); break;
    case PMIX_NODE_STATS:       elem = sizeof(pmix_node_stats_t); break;
    case PMIX_GEOMETRY:         elem = sizeof(pmix_geometry_t); break;
    case PMIX_PROC_CPUSET:      elem = sizeof(pmix_cpuset_t); break;
    default:
        d->size = 0;
        return;
    }
    d->array = calloc(n, elem);
}

static inline pmix_data_array_t *pmixrs_darray_create(size_t n, pmix_data_type_t t)
{
    pmix_data_array_t *d = (pmix_data_array_t *)calloc(1, sizeof(pmix_data_array_t));

    if (NULL != d) {
        pmixrs_darray_construct(d, n, t);
    }
    return d;
}

/* true/false reading of a value: PMIX_BOOL, or a string such as "yes",
 * "true", "no", "false" or a number; a bare key (PMIX_UNDEF), a NULL or
 * blank string count as true */
static inline pmix_boolean_t pmixrs_check_true(const pmix_value_t *v)
{
    const char *s;

    switch (v->type) {
    case PMIX_UNDEF:
        return PMIX_BOOL_TRUE;
    case PMIX_BOOL:
        return v->data.flag ? PMIX_BOOL_TRUE : PMIX_BOOL_FALSE;
    case PMIX_STRING:
        break;
    default:
        return PMIX_NON_BOOL;
    }
    s = v->data.string;
    if (NULL == s) {
        return PMIX_BOOL_TRUE;
    }
    while (isspace((unsigned char)*s)) {
        ++s;
    }
    if ('\0' == *s) {
        return PMIX_BOOL_TRUE;
    }
    if (isdigit((unsigned char)*s)) {
        return (0 == atoi(s)) ? PMIX_BOOL_FALSE : PMIX_BOOL_TRUE;
    }
    if (pmixrs_has_prefix_nocase(s, "yes") || pmixrs_has_prefix_nocase(s, "true")) {
        return PMIX_BOOL_TRUE;
    }
    if (pmixrs_has_prefix_nocase(s, "no") || pmixrs_has_prefix_nocase(s, "false")) {
        return PMIX_BOOL_FALSE;
    }
    return PMIX_NON_BOOL;
}

/* ---- coordinates ---- */

#define PMIX_COORD_CREATE(m, d, n) \
    do { (m) = pmixrs_coord_create((d), (n)); } while (0)

#define PMIX_COORD_CONSTRUCT(m)                \
    do {                                       \
        (m)->view = PMIX_COORD_VIEW_UNDEF;     \
        (m)->coord = NULL;                     \
        (m)->dims = 0;                         \
    } while (0)

#define PMIX_COORD_DESTRUCT(m) \
    pmixrs_coord_destruct(m)

#define PMIX_COORD_FREE(m, n) \
    do { pmixrs_coord_free((m), (n)); (m) = NULL; } while (0)

/* ---- cpusets and topologies ---- */

#define PMIX_CPUSET_CONSTRUCT(m) \
    memset((m), 0, sizeof(pmix_cpuset_t))

#define PMIX_CPUSET_CREATE(m, n) \
    do { (m) = (pmix_cpuset_t *)pmixrs_zalloc((n), sizeof(pmix_cpuset_t)); } while (0)

#define PMIX_TOPOLOGY_CONSTRUCT(m) \
    memset((m), 0, sizeof(pmix_topology_t))

#define PMIX_TOPOLOGY_CREATE(m, n) \
    do { (m) = (pmix_topology_t *)pmixrs_zalloc((n), sizeof(pmix_topology_t)); } while (0)

/* PMIx_Topology_destruct is declared in pmix.h */
#define PMIX_TOPOLOGY_DESTRUCT(x) \
    PMIx_Topology_destruct(x)

/* ---- geometry ---- */

#define PMIX_GEOMETRY_CONSTRUCT(m) \
    memset((m), 0, sizeof(pmix_geometry_t))

#define PMIX_GEOMETRY_DESTRUCT(m) \
    pmixrs_geometry_destruct(m)

#define PMIX_GEOMETRY_CREATE(m, n) \
    do { (m) = (pmix_geometry_t *)pmixrs_zalloc((n), sizeof(pmix_geometry_t)); } while (0)

#define PMIX_GEOMETRY_FREE(m, n) \
    do { pmixrs_geometry_free((m), (n)); (m) = NULL; } while (0)

/* ---- device distances ---- */

#define PMIX_DEVICE_DIST_CONSTRUCT(m)                          \
    do {                                                       \
        memset((m), 0, sizeof(pmix_device_distance_t));        \
        (m)->mindist = UINT16_MAX;                             \
        (m)->maxdist = UINT16_MAX;                             \
    } while (0)

#define PMIX_DEVICE_DIST_DESTRUCT(m) \
    pmixrs_devdist_destruct(m)

#define PMIX_DEVICE_DIST_CREATE(m, n) \
    do { (m) = pmixrs_devdist_create(n); } while (0)

#define PMIX_DEVICE_DIST_FREE(m, n) \
    do { pmixrs_devdist_free((m), (n)); (m) = NULL; } while (0)

/* ---- byte objects ---- */

#define PMIX_BYTE_OBJECT_CREATE(m, n) \
    do { (m) = (pmix_byte_object_t *)pmixrs_zalloc((n), sizeof(pmix_byte_object_t)); } while (0)

#define PMIX_BYTE_OBJECT_CONSTRUCT(m)  \
    do {                               \
        (m)->bytes = NULL;             \
        (m)->size = 0;                 \
    } while (0)

#define PMIX_BYTE_OBJECT_DESTRUCT(m) \
    pmixrs_bo_destruct(m)

#define PMIX_BYTE_OBJECT_FREE(m, n) \
    do { pmixrs_bo_free((m), (n)); (m) = NULL; } while (0)

/* hands the buffer d (of s bytes) over to b; d and s are cleared */
#define PMIX_BYTE_OBJECT_LOAD(b, d, s)     \
    do {                                   \
        (b)->bytes = (char *)(d);          \
        (b)->size = (s);                   \
        (d) = NULL;                        \
        (s) = 0;                           \
    } while (0)

/* ---- endpoints ---- */

#define PMIX_ENDPOINT_CONSTRUCT(m) \
    memset((m), 0, sizeof(pmix_endpoint_t))

#define PMIX_ENDPOINT_DESTRUCT(m) \
    pmixrs_endpoint_destruct(m)

#define PMIX_ENDPOINT_CREATE(m, n) \
    do { (m) = (pmix_endpoint_t *)pmixrs_zalloc((n), sizeof(pmix_endpoint_t)); } while (0)

#define PMIX_ENDPOINT_FREE(m, n) \
    do { pmixrs_endpoint_free((m), (n)); (m) = NULL; } while (0)

/* ---- environment variable directives ---- */

#define PMIX_ENVAR_CREATE(m, n) \
    do { (m) = (pmix_envar_t *)pmixrs_zalloc((n), sizeof(pmix_envar_t)); } while (0)

/* (leaves m itself untouched) */
#define PMIX_ENVAR_FREE(m, n) \
    pmixrs_envar_free((m), (n))

#define PMIX_ENVAR_CONSTRUCT(m)        \
    do {                               \
        (m)->envar = NULL;             \
        (m)->value = NULL;             \
        (m)->separator = '\0';         \
    } while (0)

#define PMIX_ENVAR_DESTRUCT(m) \
    pmixrs_envar_destruct(m)

#define PMIX_ENVAR_LOAD(m, e, v, s) \
    pmixrs_envar_load((m), (e), (v), (s))

/* ---- data buffers (PMIx_Data_load/unload are declared in pmix.h) ---- */

#define PMIX_DATA_BUFFER_CREATE(m) \
    do { (m) = (pmix_data_buffer_t *)calloc(1, sizeof(pmix_data_buffer_t)); } while (0)

#define PMIX_DATA_BUFFER_CONSTRUCT(m) \
    memset((m), 0, sizeof(pmix_data_buffer_t))

#define PMIX_DATA_BUFFER_DESTRUCT(m) \
    pmixrs_dbuf_destruct(m)

#define PMIX_DATA_BUFFER_RELEASE(m)            \
    do {                                       \
        if (NULL != (m)) {                     \
            free((m)->base_ptr);               \
            free(m);                           \
        }                                      \
        (m) = NULL;                            \
    } while (0)

/* the buffer takes over the s bytes at d */
#define PMIX_DATA_BUFFER_LOAD(b, d, s)                              \
    do {                                                            \
        pmix_byte_object_t pmixrs_bo_ = PMIX_BYTE_OBJECT_STATIC_INIT; \
        pmixrs_bo_.bytes = (char *)(d);                             \
        pmixrs_bo_.size = (s);                                      \
        (void)PMIx_Data_load((b), &pmixrs_bo_);                     \
    } while (0)

/* d/s receive the buffer's remaining bytes (NULL/0 on failure) */
#define PMIX_DATA_BUFFER_UNLOAD(b, d, s)                            \
    do {                                                            \
        pmix_byte_object_t pmixrs_bo_ = PMIX_BYTE_OBJECT_STATIC_INIT; \
        if (PMIX_SUCCESS == PMIx_Data_unload((b), &pmixrs_bo_)) {   \
            (d) = pmixrs_bo_.bytes;                                 \
            (s) = pmixrs_bo_.size;                                  \
        } else {                                                    \
            (d) = NULL;                                             \
            (s) = 0;                                                \
        }                                                           \
    } while (0)

/* ---- processes ---- */

#define PMIX_PROC_CREATE(m, n) \
    do { (m) = (pmix_proc_t *)pmixrs_zalloc((n), sizeof(pmix_proc_t)); } while (0)

#define PMIX_PROC_RELEASE(m) \
    do { free(m); (m) = NULL; } while (0)

#define PMIX_PROC_CONSTRUCT(m) \
    do { memset((m), 0, sizeof(pmix_proc_t)); } while (0)

/* a pmix_proc_t owns nothing */
#define PMIX_PROC_DESTRUCT(m) \
    ((void)(m))

#define PMIX_PROC_FREE(m, n) \
    do { (void)(n); free(m); (m) = NULL; } while (0)

#define PMIX_PROC_LOAD(m, n, r) \
    pmixrs_proc_load((m), (n), (r))

#define PMIX_MULTICLUSTER_NSPACE_CONSTRUCT(t, c, n) \
    pmixrs_mc_nspace_build((char *)(t), (c), (n))

#define PMIX_MULTICLUSTER_NSPACE_PARSE(t, c, n) \
    pmixrs_mc_nspace_split((t), (char *)(c), (char *)(n))

/* ---- process info ---- */

#define PMIX_PROC_INFO_CREATE(m, n) \
    do { (m) = (pmix_proc_info_t *)pmixrs_zalloc((n), sizeof(pmix_proc_info_t)); } while (0)

/* (leaves m itself untouched) */
#define PMIX_PROC_INFO_RELEASE(m) \
    pmixrs_proc_info_free((m), 1)

#define PMIX_PROC_INFO_CONSTRUCT(m) \
    do { memset((m), 0, sizeof(pmix_proc_info_t)); } while (0)

#define PMIX_PROC_INFO_DESTRUCT(m) \
    pmixrs_proc_info_destruct(m)

/* (leaves m itself untouched) */
#define PMIX_PROC_INFO_FREE(m, n) \
    pmixrs_proc_info_free((m), (n))

/* ---- statistics ---- */

#define PMIX_PROC_STATS_CREATE(m, n) \
    do { (m) = (pmix_proc_stats_t *)pmixrs_zalloc((n), sizeof(pmix_proc_stats_t)); } while (0)

#define PMIX_PROC_STATS_CONSTRUCT(m) \
    do { memset((m), 0, sizeof(pmix_proc_stats_t)); } while (0)

#define PMIX_PROC_STATS_DESTRUCT(m) \
    pmixrs_proc_stats_destruct(m)

#define PMIX_PROC_STATS_FREE(m, n) \
    do { pmixrs_proc_stats_free((m), (n)); (m) = NULL; } while (0)

#define PMIX_PROC_STATS_RELEASE(m) \
    PMIX_PROC_STATS_FREE((m), 1)

#define PMIX_DISK_STATS_CREATE(m, n) \
    do { (m) = (pmix_disk_stats_t *)pmixrs_zalloc((n), sizeof(pmix_disk_stats_t)); } while (0)

#define PMIX_DISK_STATS_CONSTRUCT(m) \
    do { memset((m), 0, sizeof(pmix_disk_stats_t)); } while (0)

#define PMIX_DISK_STATS_DESTRUCT(m) \
    pmixrs_disk_stats_destruct(m)

#define PMIX_DISK_STATS_FREE(m, n) \
    do { pmixrs_disk_stats_free((m), (n)); (m) = NULL; } while (0)

#define PMIX_DISK_STATS_RELEASE(m) \
    PMIX_DISK_STATS_FREE((m), 1)

#define PMIX_NET_STATS_CREATE(m, n) \
    do { (m) = (pmix_net_stats_t *)pmixrs_zalloc((n), sizeof(pmix_net_stats_t)); } while (0)

#define PMIX_NET_STATS_CONSTRUCT(m) \
    do { memset((m), 0, sizeof(pmix_net_stats_t)); } while (0)

#define PMIX_NET_STATS_DESTRUCT(m) \
    pmixrs_net_stats_destruct(m)

#define PMIX_NET_STATS_FREE(m, n) \
    do { pmixrs_net_stats_free((m), (n)); (m) = NULL; } while (0)

#define PMIX_NET_STATS_RELEASE(m) \
    PMIX_NET_STATS_FREE((m), 1)

#define PMIX_NODE_STATS_CREATE(m, n) \
    do { (m) = (pmix_node_stats_t *)pmixrs_zalloc((n), sizeof(pmix_node_stats_t)); } while (0)

#define PMIX_NODE_STATS_CONSTRUCT(m) \
    do { memset((m), 0, sizeof(pmix_node_stats_t)); } while (0)

#define PMIX_NODE_STATS_DESTRUCT(m) \
    pmixrs_node_stats_destruct(m)

#define PMIX_NODE_STATS_FREE(m, n) \
    do { pmixrs_node_stats_free((m), (n)); (m) = NULL; } while (0)

/* as in OpenPMIx 4.2.2, this releases the contents of *m only */
#define PMIX_NODE_STATS_RELEASE(m) \
    pmixrs_node_stats_destruct(m)

/* ---- values ---- */

#define PMIX_VALUE_CREATE(m, n) \
    do { (m) = (pmix_value_t *)pmixrs_zalloc((n), sizeof(pmix_value_t)); } while (0)

#define PMIX_VALUE_CONSTRUCT(m)                  \
    do {                                         \
        memset((m), 0, sizeof(pmix_value_t));    \
        (m)->type = PMIX_UNDEF;                  \
    } while (0)

#define PMIX_VALUE_DESTRUCT(m) \
    PMIx_Value_destruct(m)

#define PMIX_VALUE_RELEASE(m)                    \
    do {                                         \
        if (NULL != (m)) {                       \
            PMIx_Value_destruct(m);              \
            free(m);                             \
        }                                        \
        (m) = NULL;                              \
    } while (0)

#define PMIX_VALUE_FREE(m, n) \
    do { pmixrs_value_free((m), (n)); (m) = NULL; } while (0)

#define PMIX_VALUE_LOAD(v, d, t) \
    PMIx_Value_load((v), (d), (t))

#define PMIX_VALUE_UNLOAD(r, k, d, s) \
    (r) = PMIx_Value_unload((k), (d), (s))

/* copies s into v, allocating v first when it is NULL */
#define PMIX_VALUE_XFER(r, v, s)                                        \
    do {                                                                \
        if (NULL == (v)) {                                              \
            (v) = (pmix_value_t *)calloc(1, sizeof(pmix_value_t));      \
        }                                                               \
        (r) = (NULL == (v)) ? PMIX_ERR_NOMEM : PMIx_Value_xfer((v), (s)); \
    } while (0)

#define PMIX_VALUE_XFER_DIRECT(r, v, s) \
    (r) = PMIx_Value_xfer((v), (s))

/* n = (t) numeric content of *m; s = PMIX_ERR_BAD_PARAM if not numeric */
#define PMIX_VALUE_GET_NUMBER(s, m, n, t)                                      \
    do {                                                                       \
        const pmix_value_t *pmixrs_nv_ = (m);                                  \
        (s) = PMIX_SUCCESS;                                                    \
        switch (pmixrs_nv_->type) {                                            \
        case PMIX_SIZE:      (n) = (t)(pmixrs_nv_->data.size); break;          \
        case PMIX_INT:       (n) = (t)(pmixrs_nv_->data.integer); break;       \
        case PMIX_INT8:      (n) = (t)(pmixrs_nv_->data.int8); break;          \
        case PMIX_INT16:     (n) = (t)(pmixrs_nv_->data.int16); break;         \
        case PMIX_INT32:     (n) = (t)(pmixrs_nv_->data.int32); break;         \
        case PMIX_INT64:     (n) = (t)(pmixrs_nv_->data.int64); break;         \
        case PMIX_UINT:      (n) = (t)(pmixrs_nv_->data.uint); break;          \
        case PMIX_UINT8:     (n) = (t)(pmixrs_nv_->data.uint8); break;         \
        case PMIX_UINT16:    (n) = (t)(pmixrs_nv_->data.uint16); break;        \
        case PMIX_UINT32:    (n) = (t)(pmixrs_nv_->data.uint32); break;        \
        case PMIX_UINT64:    (n) = (t)(pmixrs_nv_->data.uint64); break;        \
        case PMIX_FLOAT:     (n) = (t)(pmixrs_nv_->data.fval); break;          \
        case PMIX_DOUBLE:    (n) = (t)(pmixrs_nv_->data.dval); break;          \
        case PMIX_PID:       (n) = (t)(pmixrs_nv_->data.pid); break;           \
        case PMIX_PROC_RANK: (n) = (t)(pmixrs_nv_->data.rank); break;          \
        default:             (s) = PMIX_ERR_BAD_PARAM; break;                  \
        }                                                                      \
    } while (0)

/* ---- infos ---- */

#define PMIX_INFO_CONSTRUCT(m)                   \
    do {                                         \
        memset((m), 0, sizeof(pmix_info_t));     \
        (m)->value.type = PMIX_UNDEF;            \
    } while (0)

#define PMIX_INFO_CREATE(m, n) \
    do { (m) = pmixrs_info_create(n); } while (0)

#define PMIX_INFO_DESTRUCT(m) \
    pmixrs_info_destruct(m)

#define PMIX_INFO_FREE(m, n) \
    do { pmixrs_info_free((m), (n)); (m) = NULL; } while (0)

#define PMIX_INFO_LOAD(i, k, d, t) \
    (void)PMIx_Info_load((i), (k), (d), (t))

#define PMIX_INFO_XFER(d, s) \
    (void)PMIx_Info_xfer((d), (s))

/* directive flag setters and tests */
#define PMIX_INFO_REQUIRED(m)        ((m)->flags |= PMIX_INFO_REQD)
#define PMIX_INFO_OPTIONAL(m)        ((m)->flags &= ~PMIX_INFO_REQD)
#define PMIX_INFO_IS_REQUIRED(m)     ((m)->flags & PMIX_INFO_REQD)
#define PMIX_INFO_IS_OPTIONAL(m)     (!((m)->flags & PMIX_INFO_REQD))
#define PMIX_INFO_PROCESSED(m)       ((m)->flags |= PMIX_INFO_REQD_PROCESSED)
#define PMIX_INFO_WAS_PROCESSED(m)   ((m)->flags & PMIX_INFO_REQD_PROCESSED)
#define PMIX_INFO_SET_END(m)         ((m)->flags |= PMIX_INFO_ARRAY_END)
#define PMIX_INFO_IS_END(m)          ((m)->flags & PMIX_INFO_ARRAY_END)
#define PMIX_INFO_SET_QUALIFIER(i)   ((i)->flags |= PMIX_INFO_QUALIFIER)
#define PMIX_INFO_IS_QUALIFIER(i)    ((i)->flags & PMIX_INFO_QUALIFIER)
#define PMIX_INFO_SET_PERSISTENT(ii) ((ii)->flags |= PMIX_INFO_PERSISTENT)
#define PMIX_INFO_IS_PERSISTENT(ii)  ((ii)->flags & PMIX_INFO_PERSISTENT)

/* boolean readings of a value / an info's value */
#define PMIX_CHECK_TRUE(a) \
    (PMIX_BOOL_TRUE == pmixrs_check_true(a))

#define PMIX_CHECK_BOOL(a) \
    (PMIX_NON_BOOL != pmixrs_check_true(a))

#define PMIX_INFO_TRUE(m) \
    (PMIX_BOOL_TRUE == pmixrs_check_true(&(m)->value))

/* info lists: the status of each step lands in r */
#define PMIX_INFO_LIST_START(p) \
    (p) = PMIx_Info_list_start()

#define PMIX_INFO_LIST_ADD(r, p, a, v, t) \
    (r) = PMIx_Info_list_add((p), (a), (v), (t))

#define PMIX_INFO_LIST_INSERT(r, p, i) \
    (r) = PMIx_Info_list_insert((p), (i))

#define PMIX_INFO_LIST_XFER(r, p, a) \
    (r) = PMIx_Info_list_xfer((p), (a))

#define PMIX_INFO_LIST_CONVERT(r, p, m) \
    (r) = PMIx_Info_list_convert((p), (m))

#define PMIX_INFO_LIST_RELEASE(p) \
    PMIx_Info_list_release(p)

/* ---- lookup data ---- */

#define PMIX_PDATA_CREATE(m, n) \
    do { (m) = (pmix_pdata_t *)pmixrs_zalloc((n), sizeof(pmix_pdata_t)); } while (0)

#define PMIX_PDATA_CONSTRUCT(m)                  \
    do {                                         \
        memset((m), 0, sizeof(pmix_pdata_t));    \
        (m)->value.type = PMIX_UNDEF;            \
    } while (0)

#define PMIX_PDATA_DESTRUCT(m) \
    pmixrs_pdata_destruct(m)

#define PMIX_PDATA_RELEASE(m)                    \
    do {                                         \
        if (NULL != (m)) {                       \
            pmixrs_pdata_destruct(m);            \
            free(m);                             \
        }                                        \
        (m) = NULL;                              \
    } while (0)

#define PMIX_PDATA_FREE(m, n) \
    do { pmixrs_pdata_free((m), (n)); (m) = NULL; } while (0)

#define PMIX_PDATA_LOAD(m, p, k, v, t) \
    pmixrs_pdata_load((m), (p), (k), (v), (t))

#define PMIX_PDATA_XFER(d, s) \
    pmixrs_pdata_xfer((d), (s))

/* ---- applications ---- */

#define PMIX_APP_CREATE(m, n) \
    do { (m) = (pmix_app_t *)pmixrs_zalloc((n), sizeof(pmix_app_t)); } while (0)

#define PMIX_APP_INFO_CREATE(m, n)                       \
    do {                                                 \
        (m)->ninfo = (n);                                \
        (m)->info = pmixrs_info_create((m)->ninfo);      \
    } while (0)

#define PMIX_APP_CONSTRUCT(m) \
    do { memset((m), 0, sizeof(pmix_app_t)); } while (0)

#define PMIX_APP_DESTRUCT(m) \
    pmixrs_app_destruct(m)

#define PMIX_APP_RELEASE(m)                      \
    do {                                         \
        if (NULL != (m)) {                       \
            pmixrs_app_destruct(m);              \
            free(m);                             \
        }                                        \
        (m) = NULL;                              \
    } while (0)

#define PMIX_APP_FREE(m, n) \
    do { pmixrs_app_free((m), (n)); (m) = NULL; } while (0)

/* ---- queries ---- */

#define PMIX_QUERY_CREATE(m, n) \
    do { (m) = (pmix_query_t *)pmixrs_zalloc((n), sizeof(pmix_query_t)); } while (0)

#define PMIX_QUERY_QUALIFIERS_CREATE(m, n)                   \
    do {                                                     \
        (m)->nqual = (n);                                    \
        (m)->qualifiers = pmixrs_info_create((m)->nqual);    \
    } while (0)

#define PMIX_QUERY_CONSTRUCT(m) \
    do { memset((m), 0, sizeof(pmix_query_t)); } while (0)

#define PMIX_QUERY_DESTRUCT(m) \
    pmixrs_query_destruct(m)

#define PMIX_QUERY_RELEASE(m)                    \
    do {                                         \
        if (NULL != (m)) {                       \
            pmixrs_query_destruct(m);            \
            free(m);                             \
        }                                        \
        (m) = NULL;                              \
    } while (0)

#define PMIX_QUERY_FREE(m, n) \
    do { pmixrs_query_free((m), (n)); (m) = NULL; } while (0)

/* ---- attribute registrations ---- */

#define PMIX_REGATTR_CONSTRUCT(a) \
    pmixrs_regattr_construct(a)

#define PMIX_REGATTR_LOAD(a, n, k, t, v) \
    pmixrs_regattr_load((a), (n), (k), (t), (v))

#define PMIX_REGATTR_DESTRUCT(a) \
    pmixrs_regattr_destruct(a)

#define PMIX_REGATTR_CREATE(m, n) \
    do { (m) = (pmix_regattr_t *)pmixrs_zalloc((n), sizeof(pmix_regattr_t)); } while (0)

#define PMIX_REGATTR_FREE(m, n) \
    do { pmixrs_regattr_free((pmix_regattr_t *)(m), (n)); (m) = NULL; } while (0)

#define PMIX_REGATTR_XFER(a, b) \
    pmixrs_regattr_xfer((a), (b))

/* ---- fabrics ---- */

#define PMIX_FABRIC_CONSTRUCT(x) \
    memset((x), 0, sizeof(pmix_fabric_t))

/* ---- data arrays ---- */

#define PMIX_DATA_ARRAY_INIT(m, t)   \
    do {                             \
        (m)->array = NULL;           \
        (m)->type = (t);             \
        (m)->size = 0;               \
    } while (0)

#define PMIX_DATA_ARRAY_CONSTRUCT(m, n, t) \
    pmixrs_darray_construct((m), (n), (t))

#define PMIX_DATA_ARRAY_CREATE(m, n, t) \
    do { (m) = pmixrs_darray_create((n), (t)); } while (0)

#define PMIX_DATA_ARRAY_DESTRUCT(m) \
    PMIx_Data_array_destruct(m)

#define PMIX_DATA_ARRAY_FREE(m)                  \
    do {                                         \
        if (NULL != (m)) {                       \
            PMIx_Data_array_destruct(m);         \
            free(m);                             \
        }                                        \
        (m) = NULL;                              \
    } while (0)

/* ---- heartbeat (PMIx_Process_monitor_nb is declared in pmix.h) ---- */

#define PMIx_Heartbeat()                                                    \
    do {                                                                    \
        pmix_info_t pmixrs_hb_ = PMIX_INFO_STATIC_INIT;                     \
        (void)PMIx_Info_load(&pmixrs_hb_, PMIX_SEND_HEARTBEAT, NULL,        \
                             PMIX_POINTER);                                 \
        (void)PMIx_Process_monitor_nb(&pmixrs_hb_, PMIX_SUCCESS, NULL, 0,   \
                                      NULL, NULL);                          \
        PMIx_Value_destruct(&pmixrs_hb_.value);                             \
    } while (0)

#ifdef __cplusplus
}
#endif

#endif /* RPMIX_COMMON_MACROS_H */
