/* rpmix test shim: named progress threads, each running its own libevent
 * base (implemented in shim.c). */
#ifndef PMIXSHIM_PROGRESS_THREADS_H
#define PMIXSHIM_PROGRESS_THREADS_H
#include "src/include/pmix_types.h"
#define pmix_progress_thread_init pmixshim_progress_thread_init
#define pmix_progress_thread_start pmixshim_progress_thread_start
#define pmix_progress_thread_stop pmixshim_progress_thread_stop
pmix_event_base_t *pmixshim_progress_thread_init(const char *name);
pmix_status_t pmixshim_progress_thread_start(const char *name);
pmix_status_t pmixshim_progress_thread_stop(const char *name);
#endif
