// Interposes the allocator entry points in the executable that links this target and counts
// them. glibc 2.34 removed __malloc_hook, so interposition is the portable way here; each wrapper
// forwards to glibc's own implementation (__libc_*). Linked only into benchmark executables.
#include "allocation_counter.h"
#include <stddef.h>
#include <errno.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static _Atomic uint64_t count;

uint64_t lariat_allocation_count(void) { return count; }

void *malloc(size_t size) { count++; return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { count++; return __libc_calloc(n, size); }
void *realloc(void *p, size_t size) { count++; return __libc_realloc(p, size); }
void free(void *p) { __libc_free(p); }
void *aligned_alloc(size_t alignment, size_t size) { count++; return __libc_memalign(alignment, size); }
void *memalign(size_t alignment, size_t size) { count++; return __libc_memalign(alignment, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
    count++;
    void *p = __libc_memalign(alignment, size);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
