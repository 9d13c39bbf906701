import Foundation

/// The LMDB side of one write transaction: the transaction itself, the error that doomed it,
/// the version it began on, the cursors it keeps open (iterators' and the insert cursors) and
/// its one clock reading.
final class OpenTransaction {
    /// The LMDB transaction; `nil` if it could not be begun (see ``failure``) or after it ended.
    var handle: WriteTransaction?
    /// A view of ``handle`` for operations.
    let txn: Txn?
    /// An error that dooms the transaction: LMDB refuses further operations after a failed
    /// write (for example a full map). Every later write throws it and commit rolls back.
    @exclusivity(unchecked) private(set) var failure: ObjDBError? {
        didSet { isDoomed = failure != nil }
    }
    /// Whether ``failure`` is set. Kept apart so that the check every write makes reads one
    /// `Bool` instead of copying the optional error.
    @exclusivity(unchecked) private(set) var isDoomed = false
    /// The version the transaction began on (LMDB numbers a write transaction one past it);
    /// `nil` if it could not be begun.
    let baseVersion: Int?
    /// Cursors of iterators walking tables during the transaction; closed before it ends,
    /// because LMDB frees write cursors itself at commit and abort.
    @exclusivity(unchecked) private(set) var iteratorWalks: [WriteWalk] = []
    /// The insert cursors (see ``insertCursor(_:_:)``), one per table.
    @exclusivity(unchecked) private var insertWalks: [WriteWalk] = []
    /// The transaction's one clock reading for maintained dates, encoded, taken on first use.
    private var stampBytes: [UInt8]?

    /// The state of the write transaction `transaction`.
    init(_ transaction: consuming WriteTransaction) {
        txn = transaction.txn
        baseVersion = transaction.txn.id - 1
        handle = consume transaction
    }

    /// The state of a write transaction that could not begin, for `failure`.
    init(failure: ObjDBError) {
        handle = nil
        txn = nil
        baseVersion = nil
        self.failure = failure
        isDoomed = true
    }

    /// A transaction dropped without ending (its database was released inside a write) closes
    /// its cursors first: the abort that dropping ``handle`` makes frees them in LMDB.
    deinit { closeCursors() }

    /// Whether writes are carried out: the transaction began and is not doomed. A write that
    /// cannot throw (a property setter, a collection edit) is ignored otherwise, and
    /// `commitWrite()` reports why.
    var acceptsWrites: Bool { !isDoomed && txn != nil }

    /// Dooms the transaction with `error`, unless an earlier error doomed it already.
    func doom(_ error: ObjDBError) {
        if !isDoomed { failure = error }
    }

    /// The encoded date every `createdAt`/`modifiedAt` property written by this transaction gets.
    var timestamp: [UInt8] {
        if let stampBytes { return stampBytes }
        var bytes = _ObjDBBytes()
        _ = Date()._objdbEncode(into: &bytes)
        stampBytes = bytes.array
        return bytes.array
    }

    /// The transaction, or the error that doomed it.
    func requireTxn() throws -> Txn {
        if isDoomed, let failure { throw failure }
        guard let txn else { throw ObjDBError(.notInWriteTransaction, "The write transaction has ended") }
        return txn
    }

    /// Runs a storage operation. An error that came from LMDB dooms the transaction (LMDB
    /// accepts nothing but an abort after a failed write); other errors do not. `onlyDeletes`
    /// (``TransactionChanges/onlyDeletes``), asked only then, explains a full map.
    func storage<R>(onlyDeletes: @autoclosure () -> Bool, _ body: (Txn) throws -> R) throws -> R {
        let txn = try requireTxn()
        do {
            return try body(txn)
        } catch let error as ObjDBError where error.lmdbCode != nil {
            let explained = txn.environment.explainFullMap(error, onlyDeletes: onlyDeletes())
            failure = explained
            throw explained
        }
    }

    // MARK: Cursors

    /// Stores the row of `key`, `count` bytes written by `fill`, through an iterator cursor that
    /// sits on it, which saves the B-tree search of a plain put; `nil` if no cursor is there.
    func storeRowThroughCursor(
        _ table: Table, key: UInt64, count: Int, _ fill: (UnsafeMutableRawBufferPointer) -> Void
    ) throws -> UnsafeMutableRawBufferPointer? {
        for walk in iteratorWalks {
            guard walk.isOpen, walk.table == table,
                try walk.cursor?.currentObjectKey() == key
            else { continue }
            return try walk.cursor?.storeRow(key: key, count: count, flags: .current, fill)
        }
        return nil
    }

    /// The walk of an iterator over `table` with `cursor`, kept with the transaction's cursors.
    /// Those no iterator holds any more (loops that finished or stopped early) are closed
    /// first: LMDB adjusts every open cursor of a table on each write, and row writes look for
    /// a cursor to write through, so the list must not grow with every loop of a long
    /// transaction.
    func walk(_ table: Table, with cursor: consuming Cursor) -> WriteWalk {
        var kept: [WriteWalk] = []
        while var candidate = iteratorWalks.popLast() {
            if isKnownUniquelyReferenced(&candidate) {
                candidate.close()
            } else {
                kept.append(candidate)
            }
        }
        let walk = WriteWalk(cursor: cursor, table: table, transaction: self)
        kept.append(walk)
        iteratorWalks = kept
        return walk
    }

    /// Closes every cursor of the transaction.
    func closeCursors() {
        for walk in iteratorWalks { walk.close() }
        iteratorWalks.removeAll()
        for walk in insertWalks { walk.close() }
        insertWalks.removeAll()
    }

    /// The cursor inserts into `table` go through, opened on first use and kept until the
    /// transaction ends (``closeCursors()`` closes it first). Left on the entry it
    /// wrote last, it makes inserts of ascending keys — new objects, primary keys that grow —
    /// skip LMDB's search from the root. LMDB keeps a transaction's open cursors valid through
    /// every other write, so the position is never stale: another write only moves it.
    ///
    /// Returned unretained, to use at once through `_withUnsafeGuaranteedRef`: the transaction
    /// keeps the walk until ``closeCursors()``, which no put or reserve through it can reach.
    /// This saves a retain and a release per key and row written (3 per insert).
    func insertCursor(_ table: Table, _ txn: Txn) throws -> Unmanaged<WriteWalk> {
        for index in insertWalks.indices {
            let walk = Unmanaged.passUnretained(insertWalks[index])
            if walk._withUnsafeGuaranteedRef({ $0.table == table && $0.isOpen }) { return walk }
        }
        let walk = WriteWalk(cursor: try Cursor(txn, table), table: table, transaction: self)
        insertWalks.append(walk)
        return Unmanaged.passUnretained(walk)
    }

    /// Runs `body` with the insert cursor of `table` (``insertCursor(_:_:)``).
    /// - Throws: ``ObjDBError/Code/notInWriteTransaction`` if the cursor is closed (the
    ///   transaction ended); what `body` throws.
    @inline(__always)
    func withInsertCursor<R>(_ table: Table, _ txn: Txn, _ body: (borrowing Cursor) throws -> R) throws -> R {
        try insertCursor(table, txn)._withUnsafeGuaranteedRef { walk in try walk.withCursor(path: txn.environment.path, body) }
    }
}
