/*
 * Shim for OpenPMIx's internal class system and list ("src/class/pmix_list.h")
 * as server.c uses them: reference-counted objects with constructor and
 * destructor chains, and a doubly linked list with a sentinel. Every function
 * is named exshim_*: the built server must import no pmix_* internals.
 */
#ifndef EXSHIM_PMIX_LIST_H
#define EXSHIM_PMIX_LIST_H
#include <stddef.h>

typedef void (*exshim_ctor_t)(void *);

typedef struct exshim_class {
    const char *name;
    struct exshim_class *parent;
    exshim_ctor_t ctor;
    exshim_ctor_t dtor;
    size_t size;
} exshim_class_t;

typedef struct {
    exshim_class_t *cls;
    volatile int refcount;
} pmix_object_t;

typedef struct exshim_list_item {
    pmix_object_t super;
    struct exshim_list_item *volatile next;
    struct exshim_list_item *volatile prev;
} pmix_list_item_t;

typedef struct {
    pmix_object_t super;
    pmix_list_item_t sentinel;
    volatile size_t length;
} pmix_list_t;

#define PMIX_CLASS(T) (&exshim_cls_##T)
#define PMIX_CLASS_DECLARATION(T) extern exshim_class_t exshim_cls_##T
#define PMIX_CLASS_INSTANCE(T, P, C, D)                                              \
    exshim_class_t exshim_cls_##T = {#T, PMIX_CLASS(P), (exshim_ctor_t)(C),           \
                                     (exshim_ctor_t)(D), sizeof(T)}

PMIX_CLASS_DECLARATION(pmix_object_t);
PMIX_CLASS_DECLARATION(pmix_list_item_t);
PMIX_CLASS_DECLARATION(pmix_list_t);

void *exshim_obj_new(exshim_class_t *cls);
void exshim_obj_construct(pmix_object_t *obj, exshim_class_t *cls);
void exshim_obj_destruct(pmix_object_t *obj);
int exshim_obj_release(pmix_object_t *obj); /* 1: freed */

#define PMIX_NEW(T) ((T *) exshim_obj_new(PMIX_CLASS(T)))
#define PMIX_CONSTRUCT(obj, T) exshim_obj_construct((pmix_object_t *) (obj), PMIX_CLASS(T))
#define PMIX_DESTRUCT(obj) exshim_obj_destruct((pmix_object_t *) (obj))
#define PMIX_RETAIN(obj) __atomic_add_fetch(&((pmix_object_t *) (obj))->refcount, 1, __ATOMIC_SEQ_CST)
#define PMIX_RELEASE(obj)                                       \
    do {                                                        \
        if (exshim_obj_release((pmix_object_t *) (obj))) {      \
            (obj) = NULL;                                       \
        }                                                       \
    } while (0)
#define PMIX_ACQUIRE_OBJECT(obj) __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define PMIX_POST_OBJECT(obj) __atomic_thread_fence(__ATOMIC_RELEASE)

void exshim_list_append(pmix_list_t *list, pmix_list_item_t *item);
pmix_list_item_t *exshim_list_remove_first(pmix_list_t *list);
pmix_list_item_t *exshim_list_remove_item(pmix_list_t *list, pmix_list_item_t *item);
size_t exshim_list_get_size(pmix_list_t *list);
void exshim_list_release_items(pmix_list_t *list);

#define pmix_list_append(l, i) exshim_list_append((l), (i))
#define pmix_list_remove_first(l) exshim_list_remove_first(l)
#define pmix_list_remove_item(l, i) exshim_list_remove_item((l), (i))
#define pmix_list_get_size(l) exshim_list_get_size(l)
#define pmix_list_get_first(l) ((l)->sentinel.next)
#define pmix_list_get_end(l) (&(l)->sentinel)
#define pmix_list_is_empty(l) ((l)->sentinel.next == &(l)->sentinel)

#define PMIX_LIST_FOREACH(item, list, type)                                   \
    for (item = (type *) (list)->sentinel.next;                               \
         item != (type *) &(list)->sentinel;                                  \
         item = (type *) ((pmix_list_item_t *) (item))->next)

#define PMIX_LIST_FOREACH_SAFE(item, nxt, list, type)                         \
    for (item = (type *) (list)->sentinel.next,                               \
        nxt = (type *) ((pmix_list_item_t *) (item))->next;                   \
         item != (type *) &(list)->sentinel;                                  \
         item = nxt, nxt = (type *) ((pmix_list_item_t *) (item))->next)

#define PMIX_LIST_DESTRUCT(list)            \
    do {                                    \
        exshim_list_release_items(list);    \
        PMIX_DESTRUCT(list);                \
    } while (0)
#endif
