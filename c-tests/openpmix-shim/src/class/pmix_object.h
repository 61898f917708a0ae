/* rpmix test shim: a minimal reference-counted object system with single
 * inheritance (PMIX_NEW / PMIX_RETAIN / PMIX_RELEASE / PMIX_CONSTRUCT /
 * PMIX_DESTRUCT / PMIX_CLASS_INSTANCE). Class descriptors are static (one
 * per program file), so the program never defines a symbol the library
 * also exports (e.g. pmix_object_t_class). */
#ifndef PMIXSHIM_OBJECT_H
#define PMIXSHIM_OBJECT_H
#include "src/include/pmix_config.h"

typedef struct pmixshim_object pmixshim_object_t;
typedef void (*pmixshim_fn_t)(pmixshim_object_t *);

typedef struct pmixshim_class {
    const char *name;
    const struct pmixshim_class *parent;
    pmixshim_fn_t construct;
    pmixshim_fn_t destruct;
    size_t size;
} pmix_class_t;

struct pmixshim_object {
    const pmix_class_t *obj_class;
    volatile int32_t obj_refcount;
};
typedef pmixshim_object_t pmix_object_t;

static pmix_class_t pmix_object_t_class __attribute__((unused)) = {"pmix_object_t", NULL, NULL, NULL, sizeof(pmix_object_t)};

#define PMIX_CLASS(type) (&(type##_class))
/* (static: every class lives in the one file that defines it) */
#define PMIX_CLASS_DECLARATION(type) static pmix_class_t type##_class
#define PMIX_CLASS_INSTANCE(type, parent, con, des)                                    \
    static pmix_class_t type##_class = {#type, &(parent##_class), (pmixshim_fn_t)(con), \
                                        (pmixshim_fn_t)(des), sizeof(type)}

static inline void pmixshim_run_constructors(const pmix_class_t *c, pmix_object_t *o)
{
    if (c == NULL) return;
    pmixshim_run_constructors(c->parent, o);   /* parents first */
    if (c->construct != NULL) c->construct(o);
}
static inline void pmixshim_run_destructors(const pmix_class_t *c, pmix_object_t *o)
{
    for (; c != NULL; c = c->parent)           /* the class's own first */
        if (c->destruct != NULL) c->destruct(o);
}
static inline void pmixshim_obj_construct(const pmix_class_t *c, pmix_object_t *o)
{
    o->obj_class = c;
    o->obj_refcount = 1;
    pmixshim_run_constructors(c, o);
}
static inline pmix_object_t *pmixshim_obj_new(const pmix_class_t *c)
{
    pmix_object_t *o = (pmix_object_t *) calloc(1, c->size);
    if (o != NULL) pmixshim_obj_construct(c, o);
    return o;
}
/* returns the reference count left (0: destructed and freed) */
static inline int pmixshim_obj_release(pmix_object_t *o)
{
    if (__atomic_sub_fetch(&o->obj_refcount, 1, __ATOMIC_ACQ_REL) > 0) return 1;
    pmixshim_run_destructors(o->obj_class, o);
    free(o);
    return 0;
}

#define PMIX_NEW(type) ((type *) pmixshim_obj_new(PMIX_CLASS(type)))
#define PMIX_CONSTRUCT(obj, type) pmixshim_obj_construct(PMIX_CLASS(type), (pmix_object_t *) (obj))
#define PMIX_DESTRUCT(obj) \
    pmixshim_run_destructors(((pmix_object_t *) (obj))->obj_class, (pmix_object_t *) (obj))
#define PMIX_RETAIN(obj) \
    (void) __atomic_add_fetch(&((pmix_object_t *) (obj))->obj_refcount, 1, __ATOMIC_ACQ_REL)
#define PMIX_RELEASE(obj)                                          \
    do {                                                           \
        if (0 == pmixshim_obj_release((pmix_object_t *) (obj))) { \
            (obj) = NULL;                                          \
        }                                                          \
    } while (0)
/* OpenPMIx's memory-ordering hint before handing an object to another thread */
#define PMIX_POST_OBJECT(obj) __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define PMIX_ACQUIRE_OBJECT(obj) __atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif
