// See include/arc_counter.h. Counters are process-wide relaxed atomics: the event loop's threads
// count too, which is the point for the Session round trip.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>

#include "arc_counter.h"

static atomic_bool counting = false;
static atomic_int_fast64_t retains = 0;
static atomic_int_fast64_t releases = 0;

void lariat_arc_counting(bool enabled) { atomic_store_explicit(&counting, enabled, memory_order_release); }
int64_t lariat_arc_retains(void) { return atomic_load_explicit(&retains, memory_order_relaxed); }
int64_t lariat_arc_releases(void) { return atomic_load_explicit(&releases, memory_order_relaxed); }

static inline void count(atomic_int_fast64_t *counter, const void *object, uint32_t n) {
    // A null (or tagged-null bridge) object is a no-op in the runtime too: not counted.
    if (object != NULL && atomic_load_explicit(&counting, memory_order_relaxed)) {
        atomic_fetch_add_explicit(counter, n, memory_order_relaxed);
    }
}

// The runtime's implementation of `name`, looked up once. Racing first calls store the same value.
#define NEXT(type, name)                                                                     \
    static _Atomic(type) next_##name = NULL;                                                 \
    static type resolve_##name(void) {                                                       \
        type function = atomic_load_explicit(&next_##name, memory_order_relaxed);           \
        if (function == NULL) {                                                              \
            function = (type)dlsym(RTLD_NEXT, #name);                                        \
            atomic_store_explicit(&next_##name, function, memory_order_relaxed);             \
        }                                                                                    \
        return function;                                                                     \
    }

typedef void *(*retain_fn)(void *);
typedef void *(*retain_n_fn)(void *, uint32_t);
typedef void (*release_fn)(void *);
typedef void (*release_n_fn)(void *, uint32_t);

#define RETAIN(name)                                                                         \
    NEXT(retain_fn, name)                                                                    \
    void *name(void *object) {                                                               \
        count(&retains, object, 1);                                                          \
        return resolve_##name()(object);                                                     \
    }
#define RETAIN_N(name)                                                                       \
    NEXT(retain_n_fn, name)                                                                  \
    void *name(void *object, uint32_t n) {                                                   \
        count(&retains, object, n);                                                          \
        return resolve_##name()(object, n);                                                  \
    }
#define RELEASE(name)                                                                        \
    NEXT(release_fn, name)                                                                   \
    void name(void *object) {                                                                \
        count(&releases, object, 1);                                                         \
        resolve_##name()(object);                                                            \
    }
#define RELEASE_N(name)                                                                      \
    NEXT(release_n_fn, name)                                                                 \
    void name(void *object, uint32_t n) {                                                    \
        count(&releases, object, n);                                                         \
        resolve_##name()(object, n);                                                         \
    }

RETAIN(swift_retain)
RETAIN(swift_nonatomic_retain)
RETAIN(swift_bridgeObjectRetain)
RETAIN_N(swift_retain_n)
RETAIN_N(swift_nonatomic_retain_n)
RETAIN_N(swift_bridgeObjectRetain_n)
RELEASE(swift_release)
RELEASE(swift_nonatomic_release)
RELEASE(swift_bridgeObjectRelease)
RELEASE_N(swift_release_n)
RELEASE_N(swift_nonatomic_release_n)
RELEASE_N(swift_bridgeObjectRelease_n)
