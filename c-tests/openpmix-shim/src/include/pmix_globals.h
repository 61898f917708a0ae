/* rpmix test shim: the few fields of OpenPMIx's pmix_globals the test
 * programs read (myid, hostname, evbase), and pmix_shift_caddy_t. The
 * object is the shim's own (symbol pmixshim_globals, in shim.c): the name
 * pmix_globals is a macro, so the program never interposes on the data
 * symbol of the same name that OpenPMIx's library exports. */
#ifndef PMIXSHIM_GLOBALS_H
#define PMIXSHIM_GLOBALS_H
#include "src/include/pmix_config.h"
#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>
#include "src/class/pmix_list.h"
#include "src/include/pmix_types.h"

typedef struct {
    pmix_proc_t myid;          /* set by PMIx_Init / PMIx_tool_init / PMIx_server_init below */
    char *hostname;            /* gethostname() */
    pid_t pid;
    pmix_event_base_t *evbase; /* a base with its own progress thread (shim.c) */
    bool connected;
} pmixshim_globals_t;
extern pmixshim_globals_t pmixshim_globals;
#define pmix_globals pmixshim_globals

/* A caddy for moving a request to another thread (the fields the programs use). */
typedef struct {
    pmix_object_t super;
    pmix_event_t ev;
    pmix_status_t status;
    pmix_proc_t *proc;
    struct { char *nspace; pmix_rank_t rank; } pname;
    char *data;
    size_t ndata;
    const char *key;
    pmix_info_t *info;
    size_t ninfo;
    union {
        pmix_modex_cbfunc_t modexcbfunc;
        pmix_op_cbfunc_t opcbfn;
        pmix_info_cbfunc_t infocbfunc;
    } cbfunc;
    void *cbdata;
} pmix_shift_caddy_t;
static void pmixshim_scd_con(pmix_shift_caddy_t *p)
{
    p->status = PMIX_SUCCESS; p->proc = NULL; p->pname.nspace = NULL; p->pname.rank = 0;
    p->data = NULL; p->ndata = 0; p->key = NULL; p->info = NULL; p->ninfo = 0;
    p->cbfunc.modexcbfunc = NULL; p->cbdata = NULL;
}
static void pmixshim_scd_des(pmix_shift_caddy_t *p) { free(p->pname.nspace); }
static pmix_class_t pmix_shift_caddy_t_class __attribute__((unused)) =
    {"pmix_shift_caddy_t", &pmix_object_t_class, (pmixshim_fn_t) pmixshim_scd_con,
     (pmixshim_fn_t) pmixshim_scd_des, sizeof(pmix_shift_caddy_t)};

/* pmix_globals.myid, as OpenPMIx's library sets it at init */
/* an init's outcome: the caller's proc filled in, our id noted on success */
static inline pmix_status_t pmixshim_noted(pmix_status_t rc, const pmix_proc_t *me, pmix_proc_t *proc)
{
    if (NULL != proc) *proc = *me;
    if (PMIX_SUCCESS == rc) pmixshim_globals.myid = *me;
    return rc;
}
static inline pmix_status_t pmixshim_init(pmix_proc_t *proc, pmix_info_t *info, size_t ninfo)
{
    pmix_proc_t me;
    PMIX_PROC_CONSTRUCT(&me);
    return pmixshim_noted((PMIx_Init)(&me, info, ninfo), &me, proc);
}
static inline pmix_status_t pmixshim_tool_init(pmix_proc_t *proc, pmix_info_t *info, size_t ninfo)
{
    pmix_proc_t me;
    PMIX_PROC_CONSTRUCT(&me);
    return pmixshim_noted((PMIx_tool_init)(&me, info, ninfo), &me, proc);
}
static inline pmix_status_t pmixshim_server_init(pmix_server_module_t *m, pmix_info_t *info, size_t ninfo)
{
    size_t n;
    pmix_status_t rc = (PMIx_server_init)(m, info, ninfo);
    for (n = 0; NULL != info && n < ninfo; n++) {
        if (PMIX_CHECK_KEY(&info[n], PMIX_SERVER_NSPACE) && PMIX_STRING == info[n].value.type)
            PMIX_LOAD_NSPACE(pmixshim_globals.myid.nspace, info[n].value.data.string);
        else if (PMIX_CHECK_KEY(&info[n], PMIX_SERVER_RANK))
            pmixshim_globals.myid.rank = info[n].value.data.rank;
    }
    return rc;
}
#define PMIx_Init(p, i, n) pmixshim_init((p), (i), (n))
#define PMIx_tool_init(p, i, n) pmixshim_tool_init((p), (i), (n))
#define PMIx_server_init(m, i, n) pmixshim_server_init((m), (i), (n))
#endif
