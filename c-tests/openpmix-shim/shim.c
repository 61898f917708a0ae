/* rpmix test shim: the out-of-line parts (compiled into each test program).
 * pmixshim_globals (the programs' pmix_globals): hostname and pid at start,
 * evbase a libevent base run by its own thread; named progress threads. */
#include "src/include/pmix_globals.h"
#include "src/runtime/pmix_progress_threads.h"
#include <event2/thread.h>
#include <pthread.h>

pmixshim_globals_t pmixshim_globals;

typedef struct pmixshim_pt {
    char *name;
    pmix_event_base_t *base;
    pthread_t tid;
    bool running;
    struct pmixshim_pt *next;
} pmixshim_pt_t;
static pmixshim_pt_t *pmixshim_threads;
static pthread_mutex_t pmixshim_lock = PTHREAD_MUTEX_INITIALIZER;

static void *pmixshim_loop(void *arg)
{
    pmixshim_pt_t *pt = (pmixshim_pt_t *) arg;
    event_base_loop(pt->base, EVLOOP_NO_EXIT_ON_EMPTY);
    return NULL;
}

pmix_event_base_t *pmixshim_progress_thread_init(const char *name)
{
    pmixshim_pt_t *pt;
    if (NULL == name) name = "PMIX-wide async progress thread";
    pthread_mutex_lock(&pmixshim_lock);
    for (pt = pmixshim_threads; pt != NULL; pt = pt->next) {
        if (0 == strcmp(pt->name, name)) break;
    }
    if (NULL == pt) {
        pt = calloc(1, sizeof(*pt));
        pt->name = strdup(name);
        pt->base = event_base_new();
        pt->next = pmixshim_threads;
        pmixshim_threads = pt;
    }
    pthread_mutex_unlock(&pmixshim_lock);
    return pt->base;
}

pmix_status_t pmixshim_progress_thread_start(const char *name)
{
    pmixshim_pt_t *pt;
    if (NULL == name) name = "PMIX-wide async progress thread";
    pthread_mutex_lock(&pmixshim_lock);
    for (pt = pmixshim_threads; pt != NULL; pt = pt->next) {
        if (0 == strcmp(pt->name, name)) break;
    }
    if (NULL != pt && !pt->running) {
        pt->running = (0 == pthread_create(&pt->tid, NULL, pmixshim_loop, pt));
        if (pt->running) pthread_detach(pt->tid);
    }
    pthread_mutex_unlock(&pmixshim_lock);
    return NULL == pt ? PMIX_ERR_NOT_FOUND : PMIX_SUCCESS;
}

pmix_status_t pmixshim_progress_thread_stop(const char *name)
{
    pmixshim_pt_t *pt;
    if (NULL == name) name = "PMIX-wide async progress thread";
    for (pt = pmixshim_threads; pt != NULL; pt = pt->next) {
        if (0 == strcmp(pt->name, name)) {
            event_base_loopbreak(pt->base);
            return PMIX_SUCCESS;
        }
    }
    return PMIX_ERR_NOT_FOUND;
}

__attribute__((constructor)) static void pmixshim_start(void)
{
    char host[256] = "localhost";
    evthread_use_pthreads();
    gethostname(host, sizeof host - 1);
    pmixshim_globals.hostname = strdup(host);
    pmixshim_globals.pid = getpid();
    PMIX_PROC_CONSTRUCT(&pmixshim_globals.myid);
    PMIX_LOAD_NSPACE(pmixshim_globals.myid.nspace, "pmixshim");
    pmixshim_globals.myid.rank = 0;
    /* the library-wide base the programs take as pmix_globals.evbase */
    pmixshim_globals.evbase = pmixshim_progress_thread_init(NULL);
    pmixshim_progress_thread_start(NULL);
}
