/*
 * examples.h for OpenPMIx 4.2.2's example programs
 * (/usr/share/doc/libpmix-dev/examples), which Debian does not ship.
 *
 * Written for rpmix's tests of the examples (systests/tests/openpmix.rs, examples_*) from what the examples use:
 *   mylock_t        a one-shot wait object: a mutex, a condition variable,
 *                   an "active" flag, plus the fields the callbacks fill in
 *                   (status, evhandler_ref)
 *   myrel_t         a wait object for "release" events (lock + exit code +
 *                   a string some examples store in .nspace)
 *   myquery_data_t  a wait object plus the pmix_info_t array a query returned
 *   DEBUG_{CONSTRUCT,DESTRUCT}_{LOCK,MYREL,MYQUERY}, DEBUG_WAIT_THREAD,
 *   DEBUG_WAKEUP_THREAD, EXAMPLES_HIDE_UNUSED_PARAMS
 * Only public PMIx API is used.
 */
#ifndef RPMIX_OPENPMIX_EXAMPLES_H
#define RPMIX_OPENPMIX_EXAMPLES_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix_common.h>

/* Swallow any number of otherwise unused parameters. */
static inline void examples_unused_sink(int first, ...) { (void) first; }
#define EXAMPLES_HIDE_UNUSED_PARAMS(...) examples_unused_sink(0, __VA_ARGS__)

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    volatile bool active;   /* true until DEBUG_WAKEUP_THREAD */
    pmix_status_t status;
    size_t evhandler_ref;
} mylock_t;

typedef struct {
    mylock_t lock;
    char *nspace;
    int exit_code;
    bool exit_code_given;
} myrel_t;

typedef struct {
    mylock_t lock;
    pmix_info_t *info;
    size_t ninfo;
    volatile bool active;
} myquery_data_t;

static inline void examples_lock_init(mylock_t *l)
{
    pthread_mutex_init(&l->mutex, NULL);
    pthread_cond_init(&l->cond, NULL);
    l->active = true;
    l->status = PMIX_SUCCESS;
    l->evhandler_ref = 0;
}

static inline void examples_lock_fini(mylock_t *l)
{
    /* some examples destroy a lock twice: glibc tolerates that for idle objects */
    pthread_cond_destroy(&l->cond);
    pthread_mutex_destroy(&l->mutex);
}

static inline void examples_lock_wait(mylock_t *l)
{
    pthread_mutex_lock(&l->mutex);
    while (l->active) {
        pthread_cond_wait(&l->cond, &l->mutex);
    }
    pthread_mutex_unlock(&l->mutex);
}

static inline void examples_lock_wake(mylock_t *l)
{
    pthread_mutex_lock(&l->mutex);
    l->active = false;
    pthread_cond_broadcast(&l->cond);
    pthread_mutex_unlock(&l->mutex);
}

#define DEBUG_CONSTRUCT_LOCK(l) examples_lock_init(l)
#define DEBUG_DESTRUCT_LOCK(l)  examples_lock_fini(l)
#define DEBUG_WAIT_THREAD(l)    examples_lock_wait(l)
#define DEBUG_WAKEUP_THREAD(l)  examples_lock_wake(l)

#define DEBUG_CONSTRUCT_MYREL(r)        \
    do {                                \
        examples_lock_init(&(r)->lock); \
        (r)->nspace = NULL;             \
        (r)->exit_code = 0;             \
        (r)->exit_code_given = false;   \
    } while (0)

#define DEBUG_DESTRUCT_MYREL(r)         \
    do {                                \
        examples_lock_fini(&(r)->lock); \
        free((r)->nspace);              \
        (r)->nspace = NULL;             \
    } while (0)

#define DEBUG_CONSTRUCT_MYQUERY(q)      \
    do {                                \
        examples_lock_init(&(q)->lock); \
        (q)->info = NULL;               \
        (q)->ninfo = 0;                 \
        (q)->active = true;             \
    } while (0)

#define DEBUG_DESTRUCT_MYQUERY(q)                    \
    do {                                             \
        examples_lock_fini(&(q)->lock);              \
        if (NULL != (q)->info) {                     \
            PMIX_INFO_FREE((q)->info, (q)->ninfo);   \
        }                                            \
        (q)->info = NULL;                            \
        (q)->ninfo = 0;                              \
    } while (0)

#endif
