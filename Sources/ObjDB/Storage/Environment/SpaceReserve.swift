import CLMDB
import Foundation

/// Room beyond `Configuration.maximumSize` that only transactions which delete may use, so that
/// a full database can always be made smaller.
///
/// LMDB never writes a page in place: deleting an object copies the pages on its path to the
/// root, so a transaction that only deletes needs free pages too, and at a full map LMDB refuses
/// it like any other (`MDB_MAP_FULL`). The environment therefore maps ``limitPages`` +
/// ``reservePages`` pages, and ``WriteTransaction/commit(mayUseReserve:)`` refuses a transaction
/// that adds or changes data, just before it commits, if it would leave the file past
/// ``limitPages`` and either made the file larger or leaves more pages in use than
/// ``limitPages`` (``refusal(start:end:pagesInUse:path:)``). A transaction that only deletes
/// may go up to the end of the map.
///
/// The file never shrinks, and a transaction that deletes at a full map can make it larger (its
/// page copies) while the pages it frees stay in it as free pages. Refusing every write once the
/// file is past the limit would strand the user after deleting; so past the limit a write may
/// still fill free pages, as long as the pages in use (`mdb_stat` of every table) stay within
/// it: the same amount of data as before the deletes. Counting them costs a lookup per table,
/// so it is done only for transactions that leave the file past the limit.
///
/// LMDB does not expose a write transaction's page high-water mark (``TransactionPages`` reads
/// it from LMDB 0.9's `MDB_txn`), so it is cross-checked on every write transaction: when it
/// begins, the mark must equal `mdb_env_info`'s last page + 1; before it commits, the pages in
/// use must not exceed it; after it commits, the last page + 1 must not be below it (the commit
/// itself may add a page or two for LMDB's free-page records). On any disagreement the reserve
/// is turned off for the whole process (``disable(_:)``), each environment shrinks its map back
/// to `maximumSize` as soon as it has no transaction open, and full maps behave as in plain LMDB.
///
/// The check runs just before LMDB commits, and LMDB's commit may then take a page or two more
/// for its own records: a transaction that reused free pages can still leave the file a page
/// larger. When that takes the file past the limit, the environment remembers it
/// (``creptPastLimit``) and refuses the next write that would leave the file past the limit,
/// until a transaction that only deletes commits: such pages take the file past the limit by
/// one commit's worth at most (per process writing to it).
final class SpaceReserve: @unchecked Sendable {
    /// The file size transactions that add or change data may not go past, in pages.
    let limitPages: Int
    /// Pages mapped beyond ``limitPages``, for transactions that only delete.
    let reservePages: Int
    /// The page size of the file.
    let pageSize: Int

    init(limitPages: Int, reservePages: Int, pageSize: Int) {
        self.limitPages = limitPages
        self.reservePages = reservePages
        self.pageSize = pageSize
    }

    /// The size of the reserve for a `limit` of bytes: 1 % of it, at least 1 MiB, rounded up
    /// to whole pages of `pageSize` bytes.
    static func bytes(forLimit limit: Int, pageSize: Int) -> Int {
        let wanted = max(1 << 20, limit / 100)
        return (wanted + pageSize - 1) / pageSize * pageSize
    }

    /// Whether the reserve is in force: the limit is checked at every commit of a transaction
    /// that adds or changes data. False once any cross-check failed in this process.
    var isActive: Bool { !Self.isDisabled }

    private let lock = NSLock()
    private var crept = false

    /// Whether a commit of a transaction that added or changed data took the file past
    /// ``limitPages`` with pages LMDB's commit took for its own records (see the type's notes);
    /// cleared when a transaction that only deletes commits.
    var creptPastLimit: Bool {
        get { lock.withLock { crept } }
        set { lock.withLock { crept = newValue } }
    }

    /// The error that refuses a transaction that adds or changes data, which began with the
    /// file at `start` pages and would leave it at `end`; `nil` when it may commit: the file
    /// stays within ``limitPages``, or it is past the limit only because deletes took it there,
    /// the transaction did not make it larger, and the pages it leaves in use still fit in the
    /// limit. `pagesInUse` counts those (`nil` if they cannot be counted); it is called only in
    /// that last case.
    func refusal(start: Int, end: Int, pagesInUse: () -> Int?, path: String) -> ObjDBError? {
        guard end > limitPages else { return nil }
        if end <= start && !creptPastLimit {
            guard let used = pagesInUse(),
                Self.agrees(used, end, atMost: true, what: "write transaction commit (pages in use)"),
                used > limitPages
            else { return nil }
        }
        return ObjDBError(.mapFull, Self.fullMessage(limit: limitPages * pageSize, reserve: reservePages * pageSize), path: path)
    }

    /// Records the outcome of a commit that left the file at `committed` pages; `end` is the
    /// transaction's high-water mark just before it committed.
    func committed(pages committed: Int, end: Int, onlyDeletes: Bool) {
        if onlyDeletes {
            creptPastLimit = false
        } else if committed > limitPages && committed > end {
            creptPastLimit = true
        }
    }

    /// Whether a file of `pages` pages, after a transaction that only deleted, is so close to
    /// ``limitPages`` (or past it) that the space the deletes freed should be made reusable at
    /// once (see `Database.settleAfterDeletes()`).
    func isNearLimit(pages: Int) -> Bool {
        pages > limitPages - reservePages
    }

    /// The message of a transaction that adds or changes data and does not fit.
    static func fullMessage(limit: Int, reserve: Int) -> String {
        "The database is full: this write transaction adds or changes data and would make the file larger than Configuration.maximumSize (\(limit) bytes), so it was rolled back and nothing of it was kept. Transactions that only delete objects still work (ObjDB keeps \(reserve) bytes beyond maximumSize for them), and the space they free is reused; or reopen the database with a larger maximumSize"
    }

    /// The message of a transaction that only deletes and still does not fit in the reserve.
    static func reserveExhaustedMessage(limit: Int, reserve: Int) -> String {
        "The database is full: this write transaction only deletes, but needed more room than the \(reserve) bytes ObjDB keeps beyond Configuration.maximumSize (\(limit) bytes) for deletes; it was rolled back. Delete fewer objects per transaction (the space one frees is reused by the transactions after it), or reopen the database with a larger maximumSize"
    }

    // MARK: Process-wide state

    private static let lock = NSLock()
    nonisolated(unsafe) private static var disabledReason: String?
    #if OBJDB_INTERNAL_CHECKS
    nonisolated(unsafe) private static var disagreeForTesting = false
    #endif

    /// Whether a cross-check failed in this process, turning every reserve off.
    static var isDisabled: Bool { lock.withLock { disabledReason != nil } }

    /// Why the reserve was turned off in this process, if it was.
    static var disabledBecause: String? { lock.withLock { disabledReason } }

    /// Turns the reserve off for the rest of the process.
    static func disable(_ reason: String) {
        lock.withLock { if disabledReason == nil { disabledReason = reason } }
    }

    #if OBJDB_INTERNAL_CHECKS
    /// Tests only: makes the next cross-check disagree, as a changed LMDB layout would.
    static func disagreeAtNextCheckForTesting() {
        lock.withLock { disagreeForTesting = true }
    }
    #endif

    /// Whether the cross-check of a value read through ``TransactionPages`` passes: `read` must
    /// equal `expected` (at begin) or be at most `expected` (after a commit, `atMost`).
    static func agrees(_ read: Int?, _ expected: Int, atMost: Bool, what: String) -> Bool {
        #if OBJDB_INTERNAL_CHECKS
        let forced = lock.withLock {
            defer { disagreeForTesting = false }
            return disagreeForTesting
        }
        if forced {
            disable("\(what): disagreement forced by a test")
            return false
        }
        #endif
        guard let read else {
            disable("\(what): the transaction's page number could not be read")
            return false
        }
        guard atMost ? read <= expected : read == expected else {
            disable("\(what): read \(read) pages, LMDB reports \(expected)")
            return false
        }
        return true
    }
}
