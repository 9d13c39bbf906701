import Dispatch

/// A table scan split by object key into parts that run at once on several threads
/// (``Configuration/maximumQueryThreads``).
///
/// LMDB lets one thread at a time use a transaction and its cursors, so every part but the first
/// reads through a read transaction of its own, begun at the snapshot's version; the first part
/// reads through the snapshot itself. Each part is handed its first entry and the last key it
/// covers, and the parts' results come back in key order: joined, they are what one walk of the
/// table gives.
///
/// Only a read snapshot splits (a write transaction's uncommitted rows are visible to it alone),
/// into at most one part per ``minimumRowsPerPart`` rows, so only tables of at least twice that
/// many. Parts split the range of keys evenly, so a table whose deletions left one range sparse
/// gets uneven parts, even empty ones; the result is the same.
struct ParallelScan {
    /// The fewest rows worth a part of their own: below this, a thread and a transaction cost
    /// more to start than they save.
    static let minimumRowsPerPart = 16_384

    /// The snapshot the query reads, which the first part reads through.
    private let snapshot: ReadTransaction
    private let table: Table
    /// The first key of each part after the first.
    private let starts: [UInt64]
    /// The transactions of the parts after the first, at the snapshot's version.
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
        guard threads > 1, database.writeContext == nil, let snapshot = database.snapshot else { return nil }
        let txn = snapshot.txn
        guard let rows = try? txn.entryCount(info.objectsTable) else { return nil }
        let parts = Swift.min(threads, rows / Self.minimumRowsPerPart)
        guard parts > 1, let cursor = try? Cursor(txn, info.objectsTable),
            let first = (try? cursor.first())??.objectKey, let last = (try? cursor.last())??.objectKey, last > first
        else { return nil }
        // At least one key per part (there are more keys than parts), and no overflow: the
        // last start is at most `last`.
        let span = (last - first) / UInt64(parts)
        var helpers: [ReadTransaction] = []
        for _ in 1..<parts {
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
        try Cursor(index == 0 ? snapshot.txn : helpers[index - 1].txn, table)
    }

    /// Runs `part` for every part at once and returns the results in key order; `nil` if a
    /// part's cursor could not be opened or positioned (scan on one thread instead, which meets
    /// the same error in its own way rather than leaving a part out).
    ///
    /// `part` gets the part's first entry (`nil` if it has none), the cursor positioned there,
    /// and the last key of the part. It runs on several threads at once: it must read nothing
    /// but its arguments and immutable values, and write nothing but its result.
    func map<Part>(_ part: (_ first: CursorEntry?, _ cursor: borrowing Cursor, _ last: UInt64) -> Part) -> [Part]? {
        let count = starts.count + 1
        let results = UnsafeMutableBufferPointer<Part?>.allocate(capacity: count)
        results.initialize(repeating: nil)
        defer {
            _ = results.deinitialize()
            results.deallocate()
        }
        withoutActuallyEscaping(part) { part in
            let shared = Shared(scan: self, results: results, part: part)
            DispatchQueue.concurrentPerform(iterations: count) { shared.run($0) }
        }
        var parts: [Part] = []
        parts.reserveCapacity(count)
        for result in results {
            guard let result else { return nil }
            parts.append(result)
        }
        return parts
    }

    /// What the threads of one ``map(_:)`` share. Unchecked: each thread uses only its own
    /// part's transaction and cursor, and writes only its own result slot; `map` reads the
    /// results after every thread is done.
    private struct Shared<Part>: @unchecked Sendable {
        let scan: ParallelScan
        let results: UnsafeMutableBufferPointer<Part?>
        let part: (_ first: CursorEntry?, _ cursor: borrowing Cursor, _ last: UInt64) -> Part

        /// Scans part `index`; leaves its result `nil` if its cursor cannot be opened or positioned.
        func run(_ index: Int) {
            guard let cursor = try? scan.cursor(forThread: index),
                let first = try? (index == 0 ? cursor.first() : cursor.seek(atLeast: scan.starts[index - 1]))
            else { return }
            let last = index < scan.starts.count ? scan.starts[index] - 1 : UInt64.max
            results[index] = part(first, cursor, last)
        }
    }
}
