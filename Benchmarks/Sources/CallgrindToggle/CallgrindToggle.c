#include "CallgrindToggle.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define OBJDB_BENCH_HAS_CALLGRIND 1
#endif
#endif

/// Toggles callgrind collection around a timed region (see Timing.swift).
void objdb_bench_callgrind_toggle_collect(void) {
#ifdef OBJDB_BENCH_HAS_CALLGRIND
    CALLGRIND_TOGGLE_COLLECT;
#endif
}
