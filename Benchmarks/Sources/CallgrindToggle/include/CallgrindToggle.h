#ifndef OBJDB_BENCH_CALLGRIND_TOGGLE_H
#define OBJDB_BENCH_CALLGRIND_TOGGLE_H

/// Switches callgrind's event collection on or off (CALLGRIND_TOGGLE_COLLECT); does nothing
/// outside valgrind, or when <valgrind/callgrind.h> was not available at build time.
void objdb_bench_callgrind_toggle_collect(void);

#endif
