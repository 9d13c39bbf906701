import Dispatch
import Foundation

/// A table scan split by object key into parts that run at once on several threads
/// (``Configuration/maximumQueryThreads``).
///
/// LMDB lets one thread at a time use a transaction and its cursors, so every thread but the
/// first reads through a read transaction of its own, begun at the snapshot's version; the first
/// reads through the snapshot itself. There are several parts per thread, taken in turn by
/// whichever thread is free: a thread that the system delays (another process on its core)
/// holds back at most its last part, not half the scan. Each part is handed its first entry and
/// the last key it covers, and the parts' results come back in key order: joined, they are what
/// one walk of the table gives.
///
/// Only a read snapshot splits (a write transaction's uncommitted rows are visible to it alone),
/// into at most one part per ``minimumRowsPerPart`` rows, so only tables of at least twice that
/// many. Parts split the range of keys evenly, so a table whose deletions left one range sparse
/// gets uneven parts, even empty ones; the result is the same.
struct ParallelScan {
    /// The fewest rows worth a part of their own: below this, a thread and a transaction cost
    /// more to start than they save.
    static let minimumRowsPerPart = 16_384
    /// The most parts per thread: enough that a delayed thread holds the others back little,
    /// few enough that a part's seek and result cost nothing next to its rows.
    static let partsPerThread = 8

    /// The snapshot the query reads, which the first thread reads through.
    private let snapshot: ReadTransaction
    private let table: Table
    /// The first key of each part after the first.
    private let starts: [UInt64]
    /// The transactions of the threads after the first, at the snapshot's version.
    private let helpers: [ReadTransaction]
    /// The number of rows in the table.
    let rows: Int
    /// The table's last object key.
    let lastKey: UInt64

    /// The split of `info`'s table for a query in `database`'s current version, or `nil` when
    /// one thread should scan it: inside a write transaction, with one query thread allowed, for
    /// a small table, when a commit since the snapshot began leaves no transaction of its
    /// version to begin, or when the reader slots for extra transactions are all taken
    /// (``ReadTransaction/sameVersion()``).
    init?(_ database: Database, _ info: ClassInfo) {
        let threads = database.configuration.maximumQueryThreads
        guard threads > 1, FastPaths.enabled.contains(.parallelScans), database.writeContext == nil, let snapshot = database.snapshot
        else { return nil }
        let txn = snapshot.txn
        // try? (here and below): a table that cannot be measured is scanned on one thread, whose
        // own reads report the error.
        guard let rows = try? txn.entryCount(info.objectsTable) else { return nil }
        let parts = Swift.min(threads * Self.partsPerThread, rows / Self.minimumRowsPerPart)
        guard parts > 1, let cursor = try? Cursor(txn, info.objectsTable),
            let first = (try? cursor.first())??.objectKey, let last = (try? cursor.last())??.objectKey, last > first
        else { return nil }
        // At least one key per part (there are more keys than parts), and no overflow: the
        // last start is at most `last`.
        let span = (last - first) / UInt64(parts)
        var helpers: [ReadTransaction] = []
        for _ in 1..<Swift.min(threads, parts) {
            guard let helper = snapshot.sameVersion() else { return nil }
            helpers.append(helper)
        }
        self.snapshot = snapshot
        self.rows = rows
        lastKey = last
        table = info.objectsTable
        starts = (1..<parts).map { first + span * UInt64($0) }
        self.helpers = helpers
    }

    /// The number of threads the scan runs on.
    var threads: Int { helpers.count + 1 }

    /// A cursor on the table for thread `index` (0 the calling thread, which reads through the
    /// snapshot; the others each through a transaction of their own).
    func cursor(forThread index: Int) throws -> Cursor {
        try Cursor(index == 0 ? snapshot.txn : helpers[index - 1].txn, table, tracksFailures: true)
    }

    /// The number of parts ``map(_:)`` runs.
    var parts: Int { starts.count + 1 }

    /// Runs `part` for every part, on all threads at once, and returns the results in key order;
    /// `nil` if a part's cursor could not be positioned, or no thread could open one (scan on
    /// one thread instead, which meets the same error in its own way rather than leaving a part
    /// out).
    ///
    /// `part` gets the part's first entry (`nil` if it has none), the cursor positioned there,
    /// and the last key of the part. It runs on several threads at once: it must read nothing
    /// but its arguments and immutable values, and write nothing but its result.
    func map<Part>(_ part: (_ first: CursorEntry?, _ cursor: borrowing Cursor, _ last: UInt64) -> Part) -> [Part]? {
        let results = UnsafeMutableBufferPointer<Part?>.allocate(capacity: parts)
        results.initialize(repeating: nil)
        defer {
            _ = results.deinitialize()
            results.deallocate()
        }
        withoutActuallyEscaping(part) { part in
            let shared = Shared(scan: self, results: results, queue: PartQueue(count: parts), part: part)
            DispatchQueue.concurrentPerform(iterations: threads) { shared.run($0) }
        }
        var joined: [Part] = []
        joined.reserveCapacity(results.count)
        for result in results {
            guard let result else { return nil }
            joined.append(result)
        }
        return joined
    }

    /// What the threads of one ``map(_:)`` share. Unchecked: each thread uses only its own
    /// transaction and cursor, and writes only the result slots of the parts the queue hands
    /// it; `map` reads the results after every thread is done.
    private struct Shared<Part>: @unchecked Sendable {
        let scan: ParallelScan
        let results: UnsafeMutableBufferPointer<Part?>
        let queue: PartQueue
        let part: (_ first: CursorEntry?, _ cursor: borrowing Cursor, _ last: UInt64) -> Part

        /// Scans parts in turn on thread `thread` until none is left; a part whose cursor cannot
        /// be positioned, or whose walk met an error, keeps a `nil` result (the scan then runs
        /// again on one thread, which reports the error). A thread that cannot open its cursor
        /// leaves the parts to the others.
        func run(_ thread: Int) {
            // try?: documented above; another thread, or the scan on one thread, reads its parts.
            guard let cursor = try? scan.cursor(forThread: thread) else { return }
            while let index = queue.take() {
                let first: CursorEntry?
                do {
                    first = try index == 0 ? cursor.first() : cursor.seek(atLeast: scan.starts[index - 1])
                } catch {
                    continue
                }
                let last = index < scan.starts.count ? scan.starts[index] - 1 : UInt64.max
                let result = part(first, cursor, last)
                guard cursor.failure?.error == nil else { return }
                results[index] = result
            }
        }
    }
}

/// Hands out the parts of a ``ParallelScan/map(_:)`` in key order, each once, to whichever
/// thread asks first.
private final class PartQueue: @unchecked Sendable {
    private let lock = NSLock()
    private let count: Int
    /// The next part to hand out.
    private var next = 0

    init(count: Int) { self.count = count }

    /// The next part's index, or `nil` when every part is taken.
    func take() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard next < count else { return nil }
        next += 1
        return next - 1
    }
}
