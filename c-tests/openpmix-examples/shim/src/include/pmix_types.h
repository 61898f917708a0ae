/* Shim for OpenPMIx's internal "src/include/pmix_types.h": the event type
 * server.c uses for its SIGCHLD handler (see shim exshim.c). */
#ifndef EXSHIM_PMIX_TYPES_H
#define EXSHIM_PMIX_TYPES_H
#include <sys/time.h>

#define EV_SIGNAL  0x08
#define EV_PERSIST 0x10

typedef void (*exshim_event_cb_t)(int fd, short what, void *arg);

typedef struct exshim_event {
    int sig;
    short what;
    exshim_event_cb_t cb;
    void *arg;
    struct exshim_event *next;
    int added;
} pmix_event_t;

void exshim_event_assign(pmix_event_t *ev, void *base, int sig, short what,
                         exshim_event_cb_t cb, void *arg);
int exshim_event_add(pmix_event_t *ev, const struct timeval *tv);
#define pmix_event_assign(ev, base, sig, what, cb, arg) \
    exshim_event_assign((ev), (base), (sig), (what), (cb), (arg))
#define pmix_event_add(ev, tv) exshim_event_add((ev), (tv))
#define pmix_event_get_signal(ev) ((ev)->sig)
#endif
