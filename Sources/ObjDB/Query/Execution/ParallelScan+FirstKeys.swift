import Dispatch
import Foundation

/// A table scan that stops early (`first`, `prefix(n)` of unsorted results), split among threads.
///
/// An even split, as ``ParallelScan/map(_:)`` makes, would not save time here: the first matches
/// must come first in key order, so a match found in the second half waits for the whole first
/// half. Instead the key range is cut into chunks of about ``rowsPerChunk`` rows, handed to the
/// threads in key order as each finishes its last. Once the chunks finished from the start on
/// hold enough matches, no thread takes another, and the ones still scanning a later chunk stop
/// at their next check. A scan that must read r rows before its matches takes about r / threads
/// rows' time, plus at most about a chunk per thread.
extension ParallelScan {
    /// The rows in a chunk, on average: enough that the seek and the lock per chunk cost nothing
    /// in comparison, few enough that work past the last needed match is small.
    static let rowsPerChunk = 1_024

    /// The first `limit` keys, in key order, from the key `start` to the table's end that
    /// `scanChunk` finds; `nil` if a thread's cursor failed (scan on one thread instead).
    ///
    /// `scanChunk` gets a chunk's first entry (`nil` if there is none from there on), the cursor
    /// positioned there, the chunk's last key, the most matches the chunk can contribute, and a
    /// test of whether the chunk is no longer needed, to check now and then (it takes a lock). It runs on several
    /// threads at once: it must read nothing but its arguments and immutable values.
    ///
    /// - Complexity: O(r / t) rows' time for r rows read before the `limit`-th match and t
    ///   threads, plus one seek per chunk.
    func firstKeys(
        from start: UInt64, limit: Int,
        _ scanChunk: (_ first: CursorEntry?, _ cursor: borrowing Cursor, _ last: UInt64, _ limit: Int, _ isAbandoned: () -> Bool) -> [UInt64]
    ) -> [UInt64]? {
        guard start <= lastKey, limit > 0 else { return [] }
        // Keys per chunk from the table's density, so a sparse table gets as many chunks as a
        // dense one of the same size.
        let span = lastKey - start
        let chunks = UInt64(Swift.max(1, rows / Self.rowsPerChunk))
        let keysPerChunk = span / chunks + 1
        let chunkCount = Int(span / keysPerChunk) + 1
        let state = ChunkQueue(start: start, last: lastKey, keysPerChunk: keysPerChunk, count: chunkCount, limit: limit)
        withoutActuallyEscaping(scanChunk) { scanChunk in
            let shared = SharedChunks(scan: self, queue: state, scanChunk: scanChunk)
            DispatchQueue.concurrentPerform(iterations: threads) { shared.run($0) }
        }
        return state.result()
    }

    /// What the threads of one ``firstKeys(from:limit:_:)`` share. Unchecked: each thread uses
    /// only its own cursor; the queue locks its state.
    private struct SharedChunks: @unchecked Sendable {
        let scan: ParallelScan
        let queue: ChunkQueue
        let scanChunk: (CursorEntry?, borrowing Cursor, UInt64, Int, () -> Bool) -> [UInt64]

        /// Takes chunks in turn until none is left or needed.
        func run(_ thread: Int) {
            // try?: the split fails and the scan runs on one thread, whose reads report the error.
            guard let cursor = try? scan.cursor(forThread: thread) else { return queue.fail() }
            while let chunk = queue.take() {
                let first: CursorEntry?
                do {
                    first = try cursor.seek(atLeast: chunk.first)
                } catch {
                    return queue.fail()
                }
                let keys = scanChunk(first, cursor, chunk.last, chunk.limit) { queue.isAbandoned(chunk.index) }
                // A walk that met an error fails the split too.
                guard cursor.failure?.error == nil else { return queue.fail() }
                queue.finish(chunk.index, keys)
            }
        }
    }
}

/// The chunks of a ``ParallelScan/firstKeys(from:limit:_:)``: which comes next, the keys each
/// found, and whether enough are found.
private final class ChunkQueue: @unchecked Sendable {
    /// A chunk handed to a thread.
    struct Chunk {
        let index: Int
        let first: UInt64
        let last: UInt64
        /// The most matches it can contribute: the limit less those of the finished chunks before it.
        let limit: Int
    }

    private let lock = NSLock()
    private let start: UInt64
    private let lastKey: UInt64
    private let keysPerChunk: UInt64
    private let limit: Int
    /// The keys each finished chunk found; `nil` for the others.
    private var found: [[UInt64]?]
    /// The next chunk to hand out.
    private var next = 0
    /// How many chunks from the first on are finished, and the keys they found.
    private var finished = 0
    private var finishedKeys = 0
    /// Whether a thread could not read.
    private var failed = false
    /// The number of chunks needed, from the first on (`Int.max` while the limit is not reached).
    private var needed = Int.max

    init(start: UInt64, last: UInt64, keysPerChunk: UInt64, count: Int, limit: Int) {
        self.start = start
        lastKey = last
        self.keysPerChunk = keysPerChunk
        self.limit = limit
        found = Array(repeating: nil, count: count)
    }

    /// The next chunk, or `nil` when none is left or needed.
    func take() -> Chunk? {
        lock.lock()
        defer { lock.unlock() }
        guard !failed, next < found.count, next < needed else { return nil }
        let index = next
        next += 1
        let first = start + UInt64(index) * keysPerChunk
        let last = index == found.count - 1 ? lastKey : first + keysPerChunk - 1
        return Chunk(index: index, first: first, last: last, limit: limit - finishedKeys)
    }

    /// Whether chunk `index` is past the point where the limit was reached, or a thread failed.
    func isAbandoned(_ index: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return failed || index >= needed
    }

    /// Records the keys chunk `index` found.
    func finish(_ index: Int, _ keys: [UInt64]) {
        lock.lock()
        defer { lock.unlock() }
        found[index] = keys
        // Once the limit is reached, later chunks (abandoned part-way) count for nothing.
        while needed == .max, finished < found.count, let keys = found[finished] {
            finished += 1
            finishedKeys += keys.count
            if finishedKeys >= limit {
                needed = finished
                break
            }
        }
    }

    /// Records that a thread could not read.
    func fail() {
        lock.lock()
        failed = true
        lock.unlock()
    }

    /// The first `limit` keys found, in order; `nil` if a thread failed.
    func result() -> [UInt64]? {
        lock.lock()
        defer { lock.unlock() }
        guard !failed else { return nil }
        var keys: [UInt64] = []
        for chunk in found.prefix(finished) {
            keys.append(contentsOf: chunk ?? [])
            if keys.count >= limit { break }
        }
        return Array(keys.prefix(limit))
    }
}
