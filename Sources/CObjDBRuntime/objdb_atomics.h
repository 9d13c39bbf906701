#ifndef OBJDB_ATOMICS_H
#define OBJDB_ATOMICS_H

#include <stdint.h>

// Relaxed atomic loads and stores of one machine word, for values that several threads read
// and update without a lock and whose readers only need some value that was stored (a cache).
// Swift's own atomics (the Synchronization module) need macOS 15, above ObjDB's macOS 13.

/// Reads the word at `word`.
static inline intptr_t objdb_atomic_load_relaxed(const intptr_t *word) {
    return __atomic_load_n(word, __ATOMIC_RELAXED);
}

/// Stores `value` at `word`.
static inline void objdb_atomic_store_relaxed(intptr_t *word, intptr_t value) {
    __atomic_store_n(word, value, __ATOMIC_RELAXED);
}

#endif
