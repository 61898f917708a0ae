/*
 * Run-time part of the shim that lets OpenPMIx's example server.c build on
 * the public PMIx API only (rpmix tools/examples-tests.sh): objects, lists,
 * output, and SIGCHLD delivery.
 *
 * SIGCHLD: OpenPMIx's server.c hooks a libevent signal event into the PMIx
 * library's internal event base. Here a constructor blocks SIGCHLD before
 * main() (so every thread, including those PMIx_server_init starts, inherits
 * the block), a pthread_atfork child handler restores the original mask in
 * forked children (so the clients server.c execs start with the usual mask),
 * and exshim_event_add starts one thread that sigwait()s for the signals of
 * the added events and calls their callbacks, as the event loop would.
 */
#include "src/include/pmix_config.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/include/pmix_globals.h"
#include "src/include/pmix_types.h"
#include "src/class/pmix_list.h"
#include "src/util/pmix_output.h"

exshim_globals_t exshim_globals = {NULL};

/* ---- objects ---- */
exshim_class_t exshim_cls_pmix_object_t = {"pmix_object_t", NULL, NULL, NULL, sizeof(pmix_object_t)};

static void list_item_ctor(void *p)
{
    pmix_list_item_t *it = p;
    it->next = it->prev = NULL;
}
exshim_class_t exshim_cls_pmix_list_item_t = {"pmix_list_item_t", &exshim_cls_pmix_object_t,
                                              list_item_ctor, NULL, sizeof(pmix_list_item_t)};

static void list_ctor(void *p)
{
    pmix_list_t *l = p;
    l->sentinel.super.cls = &exshim_cls_pmix_list_item_t;
    l->sentinel.super.refcount = 1;
    l->sentinel.next = l->sentinel.prev = &l->sentinel;
    l->length = 0;
}
exshim_class_t exshim_cls_pmix_list_t = {"pmix_list_t", &exshim_cls_pmix_object_t, list_ctor,
                                         NULL, sizeof(pmix_list_t)};

static void run_ctors(pmix_object_t *obj, exshim_class_t *cls)
{
    if (NULL == cls) {
        return;
    }
    run_ctors(obj, cls->parent); /* base class first */
    if (NULL != cls->ctor) {
        cls->ctor(obj);
    }
}

static void run_dtors(pmix_object_t *obj)
{
    exshim_class_t *c;
    for (c = obj->cls; NULL != c; c = c->parent) { /* most derived first */
        if (NULL != c->dtor) {
            c->dtor(obj);
        }
    }
}

void exshim_obj_construct(pmix_object_t *obj, exshim_class_t *cls)
{
    obj->cls = cls;
    obj->refcount = 1;
    run_ctors(obj, cls);
}

void *exshim_obj_new(exshim_class_t *cls)
{
    pmix_object_t *obj = calloc(1, cls->size);
    if (NULL == obj) {
        return NULL;
    }
    exshim_obj_construct(obj, cls);
    return obj;
}

void exshim_obj_destruct(pmix_object_t *obj)
{
    run_dtors(obj);
}

int exshim_obj_release(pmix_object_t *obj)
{
    if (0 == __atomic_sub_fetch(&obj->refcount, 1, __ATOMIC_SEQ_CST)) {
        run_dtors(obj);
        free(obj);
        return 1;
    }
    return 0;
}

/* ---- lists ---- */
void exshim_list_append(pmix_list_t *list, pmix_list_item_t *item)
{
    pmix_list_item_t *last = list->sentinel.prev;
    item->prev = last;
    item->next = &list->sentinel;
    last->next = item;
    list->sentinel.prev = item;
    list->length++;
}

pmix_list_item_t *exshim_list_remove_item(pmix_list_t *list, pmix_list_item_t *item)
{
    pmix_list_item_t *prev = item->prev;
    item->prev->next = item->next;
    item->next->prev = item->prev;
    item->next = item->prev = NULL;
    list->length--;
    return prev;
}

pmix_list_item_t *exshim_list_remove_first(pmix_list_t *list)
{
    pmix_list_item_t *it;
    if (0 == list->length) {
        return NULL;
    }
    it = list->sentinel.next;
    exshim_list_remove_item(list, it);
    return it;
}

size_t exshim_list_get_size(pmix_list_t *list)
{
    return list->length;
}

void exshim_list_release_items(pmix_list_t *list)
{
    pmix_list_item_t *it;
    while (NULL != (it = exshim_list_remove_first(list))) {
        PMIX_RELEASE(it);
    }
}

/* ---- output ---- */
void exshim_output(int id, const char *fmt, ...)
{
    char *msg = NULL;
    va_list ap;
    (void) id;
    va_start(ap, fmt);
    if (0 > vasprintf(&msg, fmt, ap)) {
        msg = NULL;
    }
    va_end(ap);
    if (NULL != msg) {
        size_t n = strlen(msg);
        fprintf(stderr, "%s%s", msg, (0 < n && '\n' == msg[n - 1]) ? "" : "\n");
        fflush(stderr);
        free(msg);
    }
}

/* ---- signal events ---- */
static sigset_t orig_mask;
static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static pmix_event_t *ev_head = NULL;
static int sig_thread_started = 0;

static void restore_mask_in_child(void)
{
    pthread_sigmask(SIG_SETMASK, &orig_mask, NULL);
}

__attribute__((constructor)) static void exshim_block_sigchld(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    pthread_sigmask(SIG_BLOCK, &set, &orig_mask);
    pthread_atfork(NULL, NULL, restore_mask_in_child);
}

void exshim_event_assign(pmix_event_t *ev, void *base, int sig, short what,
                         exshim_event_cb_t cb, void *arg)
{
    (void) base;
    memset(ev, 0, sizeof(*ev));
    ev->sig = sig;
    ev->what = what;
    ev->cb = cb;
    ev->arg = arg;
}

static void *sig_thread(void *unused)
{
    sigset_t set;
    int sig;
    pmix_event_t *ev;
    (void) unused;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    for (;;) {
        if (0 != sigwait(&set, &sig)) {
            continue;
        }
        pthread_mutex_lock(&ev_lock);
        for (ev = ev_head; NULL != ev; ev = ev->next) {
            if (ev->added && ev->sig == sig && (ev->what & EV_SIGNAL)) {
                if (!(ev->what & EV_PERSIST)) {
                    ev->added = 0;
                }
                ev->cb(sig, EV_SIGNAL, ev->arg);
            }
        }
        pthread_mutex_unlock(&ev_lock);
    }
    return NULL;
}

int exshim_event_add(pmix_event_t *ev, const struct timeval *tv)
{
    pthread_t tid;
    (void) tv;
    if (!(ev->what & EV_SIGNAL) || SIGCHLD != ev->sig) {
        fprintf(stderr, "exshim: only SIGCHLD signal events are supported\n");
        return -1;
    }
    pthread_mutex_lock(&ev_lock);
    if (!ev->added) {
        ev->added = 1;
        ev->next = ev_head;
        ev_head = ev;
    }
    if (!sig_thread_started) {
        if (0 != pthread_create(&tid, NULL, sig_thread, NULL)) {
            pthread_mutex_unlock(&ev_lock);
            return -1;
        }
        pthread_detach(tid);
        sig_thread_started = 1;
    }
    pthread_mutex_unlock(&ev_lock);
    return 0;
}
