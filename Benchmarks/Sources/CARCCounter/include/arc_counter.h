// Counts Swift retains and releases made from code linked into a benchmark executable.
//
// package-benchmark's own `.retainCount`/`.releaseCount` hook the runtime's private function
// pointers, which crashes on Swift 6.3 for Linux; its fix for 6.3 (the RuntimeInterposer trait)
// needs a package this machine's mirror does not have. This is the portable alternative: the
// executable defines the public entry points (`swift_retain`, `swift_release`, their `_n` and
// `bridgeObject` forms), counts, and forwards to the runtime's own (`dlsym(RTLD_NEXT, ...)`).
// Calls made inside libswiftCore itself bind to the runtime directly and are not counted; every
// retain compiled into Lariat and the benchmark is.
#ifndef LARIAT_ARC_COUNTER_H
#define LARIAT_ARC_COUNTER_H

#include <stdbool.h>
#include <stdint.h>

/// Starts (true) or stops (false) counting; counting is off at start-up.
void lariat_arc_counting(bool enabled);

/// Retains counted so far (an `_n` call counts n).
int64_t lariat_arc_retains(void);

/// Releases counted so far (an `_n` call counts n).
int64_t lariat_arc_releases(void);

#endif
