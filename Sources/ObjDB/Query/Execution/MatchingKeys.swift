import Foundation

/// The keys of the rows that pass a test, gathered by a table scan without a branch on each
/// row's outcome (``TableScan/allKeys(from:_:through:passing:)``).
///
/// Every key is written at the end of the buffer, and the end moves past it only if the row
/// passed (``RowPredicate/matchBit(_:)``). A test that holds for a random part of the rows makes
/// a branch on its outcome mispredicted for up to half of them, and each misprediction costs
/// more than the test: over 1M rows, `age > 50 && score < 0.5` (a quarter of them pass) took
/// 25.9 ms on one thread with branches and 21.7 ms without.
///
/// A copyable struct without a `deinit`, so that a scan keeps its fields in registers: whoever
/// makes one must call ``finish()`` exactly once, on one copy, which frees the buffer.
struct MatchingKeys<Predicate: RowPredicate>: RowSink {
    /// The test.
    private let predicate: Predicate
    /// The keys gathered, then room for more: the next key is written at `count`.
    private var base: UnsafeMutablePointer<UInt64>
    /// The number of keys of rows that passed.
    private var count = 0
    /// The number of keys `base` has room for.
    private var capacity: Int

    /// An empty set of keys of rows that pass `predicate`.
    init(_ predicate: Predicate) {
        self.predicate = predicate
        capacity = 1024
        base = .allocate(capacity: capacity)
        #if OBJDB_INTERNAL_CHECKS
        if internalChecksEnabled { LiveKeyBuffers.shared.opened(base) }
        #endif
    }

    /// Tests `row` and keeps `key` if it passes; the walk goes on.
    @inline(__always)
    mutating func take(_ key: UInt64, _ row: RowView) -> Bool {
        if count >= capacity { (base, capacity) = Self.doubled(base, count: count, capacity: capacity) }
        base[count] = key
        count &+= Int(predicate.matchBit(row))
        return true
    }

    /// A buffer twice the size of `base`, holding its first `count` keys; frees `base`.
    ///
    /// Static, and given the fields rather than `self`, so that the scan need not keep `self`
    /// in memory for this rare call.
    @inline(never)
    private static func doubled(_ base: UnsafeMutablePointer<UInt64>, count: Int, capacity: Int) -> (UnsafeMutablePointer<UInt64>, Int) {
        let bigger = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: base, count: count)
        #if OBJDB_INTERNAL_CHECKS
        if internalChecksEnabled {
            LiveKeyBuffers.shared.closed(base)
            LiveKeyBuffers.shared.opened(bigger)
        }
        #endif
        base.deallocate()
        return (bigger, capacity * 2)
    }

    /// The keys gathered, in the order the scan found them; frees the buffer.
    consuming func finish() -> [UInt64] {
        #if OBJDB_INTERNAL_CHECKS
        if internalChecksEnabled { LiveKeyBuffers.shared.closed(base) }
        #endif
        defer { base.deallocate() }
        return Array(UnsafeBufferPointer(start: base, count: count))
    }
}

#if OBJDB_INTERNAL_CHECKS
/// Internal check that every ``MatchingKeys`` buffer is finished exactly once: the buffers
/// allocated and not yet finished. Finishing one that is not here (a second copy finishing, or
/// one already finished) stops the program.
final class LiveKeyBuffers: @unchecked Sendable {
    static let shared = LiveKeyBuffers()
    private let lock = NSLock()
    private var live: Set<UInt> = []

    func opened(_ base: UnsafeMutablePointer<UInt64>) {
        lock.withLock { _ = live.insert(UInt(bitPattern: base)) }
    }

    func closed(_ base: UnsafeMutablePointer<UInt64>) {
        let known = lock.withLock { live.remove(UInt(bitPattern: base)) != nil }
        internalCheck(known, "a MatchingKeys buffer was finished twice, or by a copy")
    }
}
#endif
