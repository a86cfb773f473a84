// Counts heap allocations in the process that links this library (benchmarks only).
#ifndef LARIAT_ALLOCATION_COUNTER_H
#define LARIAT_ALLOCATION_COUNTER_H
#include <stdint.h>
/// The number of malloc/calloc/realloc/posix_memalign/aligned_alloc calls so far.
uint64_t lariat_allocation_count(void);
#endif
