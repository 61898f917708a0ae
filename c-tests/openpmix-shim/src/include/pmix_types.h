/* rpmix test shim: OpenPMIx's event wrappers are thin names over libevent
 * (the programs link -levent_core -levent_pthreads themselves). */
#ifndef PMIXSHIM_TYPES_H
#define PMIXSHIM_TYPES_H
#include "src/include/pmix_config.h"
#include <pmix_common.h>
#include <event2/event.h>
#include <event2/event_struct.h>

typedef struct event_base pmix_event_base_t;
typedef struct event pmix_event_t;

#define pmix_event_assign(ev, base, fd, flags, cb, arg) event_assign((ev), (base), (fd), (flags), (cb), (arg))
#define pmix_event_add(ev, tv) event_add((ev), (tv))
#define pmix_event_del(ev) event_del((ev))
#define pmix_event_active(ev, res, ncalls) event_active((ev), (res), (ncalls))
#define pmix_event_get_signal(ev) event_get_signal((ev))
#define pmix_event_evtimer_set(b, ev, cb, arg) event_assign((ev), (b), -1, 0, (cb), (arg))
#define pmix_event_evtimer_add(ev, tv) event_add((ev), (tv))
#endif
