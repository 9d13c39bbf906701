import CObjDBRuntime

/// BORROWED: the Swift runtime's inline reference-count word, for iteration's reuse of objects
/// nobody else holds (Decisions/0020).
///
/// **What is borrowed, from which version.** The 64-bit layout of the word that follows an
/// object's metadata pointer, as `RefCount.h` of the Swift 6 runtime defines it (ObjDB is built
/// and tested with Swift 6.3; the runtime on Apple platforms is the system's): bit 0 "pure Swift deallocation", bits 1–31 the unowned count, bit
/// 32 "deinitializing", bits 33–62 the strong count beyond the first, bit 63 "uses a side
/// table". So a lone object's word is `3`. Anything else reads as shared, which only costs a new
/// object: an immortal object, a side table (a weak reference, now or earlier, or a count too
/// large for the word), and on Apple platforms an Objective-C weak reference or associated
/// object, which clear bit 0. On 32-bit platforms the word is not read.
///
/// **How it is verified at run time.** It is not, in release builds: a word laid out otherwise
/// can only read as something other than `3` (a new object, never a wrong one) unless another
/// layout gives a shared object exactly `3`. With internal checks, every "unshared" is compared
/// with the runtime's own answer (``runtimeSaysOnlyReference(_:)``), and
/// `ObjectReferenceCountTests` pins each kind of reference against both.
///
/// **Fast path and slow twin.** ``FastPaths/objectRecycling``: with it off, iteration makes a new
/// object per row. Where it is on, this word is the fast path of ``runtimeSaysOnlyReference(_:)``
/// (three runtime calls), its twin under the internal checks.
enum ReferenceCountWord {
    /// Whether `object` is the only reference to its object: no other strong, weak or unowned
    /// reference. Only such an object may be re-pointed at another stored object, since nobody
    /// could see it change.
    ///
    /// On 64-bit platforms this reads the object's reference-count word once
    /// (``wordSaysOnlyReference(_:)``) instead of asking the runtime three times; under the
    /// internal checks every answer is compared with the runtime's.
    @inline(__always)
    static func isOnlyReference<T: AnyObject>(_ object: inout T) -> Bool {
        #if _pointerBitWidth(_64)
        let only = wordSaysOnlyReference(&object)
        #if OBJDB_INTERNAL_CHECKS
        if internalChecksEnabled {
            // The word may say "not only" where the runtime says "only" (a side table kept after
            // its weak references went away), never the reverse.
            internalCheck(!only || runtimeSaysOnlyReference(&object), "an object's reference-count word says it is unshared, the runtime disagrees")
        }
        #endif
        return only
        #else
        return runtimeSaysOnlyReference(&object)
        #endif
    }

    /// ``isOnlyReference(_:)`` as the runtime answers it: three calls per object.
    @inline(never)
    static func runtimeSaysOnlyReference<T: AnyObject>(_ object: inout T) -> Bool {
        // A weak reference gives the object a side table (weak count above 1); an unowned one
        // raises the unowned count above the 1 that all strong references share.
        isKnownUniquelyReferenced(&object) && _getWeakRetainCount(object) <= 1 && _getUnownedRetainCount(object) <= 1
    }

    /// Whether the reference-count word of `object` says one strong reference, no unowned one
    /// beyond the 1 the strong references share, no side table (which weak references create),
    /// no deinitialization under way, and deallocation by Swift alone: whether it is `3`.
    ///
    /// `object` is `inout`, as for `isKnownUniquelyReferenced`: its address is read from the
    /// variable, so no copy of the reference (a retain, which would make it read as shared)
    /// exists while the word is read. The word is read with a relaxed atomic load, as the runtime
    /// reads it; other threads may only change it while they hold a reference, and then it is
    /// not `3` before they do.
    @inline(__always)
    static func wordSaysOnlyReference<T: AnyObject>(_ object: inout T) -> Bool {
        let address = withUnsafeMutablePointer(to: &object) { variable in
            UnsafeMutableRawPointer(variable).load(as: UnsafeRawPointer.self)
        }
        let word = (address + MemoryLayout<UInt>.size).assumingMemoryBound(to: Int.self)
        return objdb_atomic_load_relaxed(word) == 3
    }
}
