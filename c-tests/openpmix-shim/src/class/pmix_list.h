/* rpmix test shim: doubly linked lists of objects (a sentinel item). */
#ifndef PMIXSHIM_LIST_H
#define PMIXSHIM_LIST_H
#include "src/class/pmix_object.h"

typedef struct pmixshim_list_item {
    pmix_object_t super;
    struct pmixshim_list_item *pmix_list_next;
    struct pmixshim_list_item *pmix_list_prev;
} pmix_list_item_t;

typedef struct {
    pmix_object_t super;
    pmix_list_item_t pmix_list_sentinel;
    size_t pmix_list_length;
} pmix_list_t;

static void pmixshim_item_con(pmix_list_item_t *it) { it->pmix_list_next = it->pmix_list_prev = NULL; }
static void pmixshim_list_con(pmix_list_t *l)
{
    l->pmix_list_sentinel.pmix_list_next = &l->pmix_list_sentinel;
    l->pmix_list_sentinel.pmix_list_prev = &l->pmix_list_sentinel;
    l->pmix_list_length = 0;
}
static pmix_class_t pmix_list_item_t_class __attribute__((unused)) =
    {"pmix_list_item_t", &pmix_object_t_class, (pmixshim_fn_t) pmixshim_item_con, NULL, sizeof(pmix_list_item_t)};
static pmix_class_t pmix_list_t_class __attribute__((unused)) =
    {"pmix_list_t", &pmix_object_t_class, (pmixshim_fn_t) pmixshim_list_con, NULL, sizeof(pmix_list_t)};

#define pmix_list_get_first(l) ((l)->pmix_list_sentinel.pmix_list_next)
#define pmix_list_get_last(l) ((l)->pmix_list_sentinel.pmix_list_prev)
#define pmix_list_get_end(l) (&(l)->pmix_list_sentinel)
#define pmix_list_get_next(it) ((it) ? ((pmix_list_item_t *) (it))->pmix_list_next : NULL)
#define pmix_list_get_size(l) ((l)->pmix_list_length)
#define pmix_list_is_empty(l) (0 == (l)->pmix_list_length)

static inline void pmix_list_append(pmix_list_t *l, pmix_list_item_t *it)
{
    pmix_list_item_t *last = l->pmix_list_sentinel.pmix_list_prev;
    it->pmix_list_prev = last;
    it->pmix_list_next = &l->pmix_list_sentinel;
    last->pmix_list_next = it;
    l->pmix_list_sentinel.pmix_list_prev = it;
    l->pmix_list_length++;
}
static inline void pmix_list_prepend(pmix_list_t *l, pmix_list_item_t *it)
{
    pmix_list_item_t *first = l->pmix_list_sentinel.pmix_list_next;
    it->pmix_list_next = first;
    it->pmix_list_prev = &l->pmix_list_sentinel;
    first->pmix_list_prev = it;
    l->pmix_list_sentinel.pmix_list_next = it;
    l->pmix_list_length++;
}
static inline pmix_list_item_t *pmix_list_remove_item(pmix_list_t *l, pmix_list_item_t *it)
{
    pmix_list_item_t *prev = it->pmix_list_prev;
    prev->pmix_list_next = it->pmix_list_next;
    it->pmix_list_next->pmix_list_prev = prev;
    it->pmix_list_next = it->pmix_list_prev = NULL;
    l->pmix_list_length--;
    return prev;
}
static inline pmix_list_item_t *pmix_list_remove_first(pmix_list_t *l)
{
    if (0 == l->pmix_list_length) return NULL;
    pmix_list_item_t *it = l->pmix_list_sentinel.pmix_list_next;
    pmix_list_remove_item(l, it);
    return it;
}
static inline pmix_list_item_t *pmix_list_remove_last(pmix_list_t *l)
{
    if (0 == l->pmix_list_length) return NULL;
    pmix_list_item_t *it = l->pmix_list_sentinel.pmix_list_prev;
    pmix_list_remove_item(l, it);
    return it;
}

#define PMIX_LIST_FOREACH(item, list, type)                                      \
    for (item = (type *) (list)->pmix_list_sentinel.pmix_list_next;              \
         item != (type *) &(list)->pmix_list_sentinel;                           \
         item = (type *) ((pmix_list_item_t *) (item))->pmix_list_next)
#define PMIX_LIST_FOREACH_SAFE(item, next, list, type)                           \
    for (item = (type *) (list)->pmix_list_sentinel.pmix_list_next,              \
        next = (type *) ((pmix_list_item_t *) (item))->pmix_list_next;           \
         item != (type *) &(list)->pmix_list_sentinel;                           \
         item = next, next = (type *) ((pmix_list_item_t *) (item))->pmix_list_next)
/* releases every item, then destructs the list itself */
#define PMIX_LIST_DESTRUCT(list)                                                 \
    do {                                                                         \
        pmix_list_item_t *pmixshim_it;                                           \
        while (NULL != (pmixshim_it = pmix_list_remove_first(list))) {           \
            PMIX_RELEASE(pmixshim_it);                                           \
        }                                                                        \
        PMIX_DESTRUCT(list);                                                     \
    } while (0)
#define PMIX_LIST_RELEASE(list)                                                  \
    do {                                                                         \
        pmix_list_item_t *pmixshim_it;                                           \
        while (NULL != (pmixshim_it = pmix_list_remove_first(list))) {           \
            PMIX_RELEASE(pmixshim_it);                                           \
        }                                                                        \
        PMIX_RELEASE(list);                                                      \
    } while (0)
#endif
