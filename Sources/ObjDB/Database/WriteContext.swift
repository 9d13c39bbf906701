/// The state of one write transaction of a ``Database``.
final class WriteContext {
    /// The LMDB transaction; `nil` if it could not be begun (see ``failure``) or after it ended.
    var transaction: WriteTransaction?
    /// A view of ``transaction`` for operations.
    let txn: Txn?
    /// An error that dooms the transaction: LMDB refuses further operations after a failed
    /// write (for example a full map). Every later write throws it and commit rolls back.
    var failure: ObjDBError?
    /// The catalog before the transaction, restored if it rolls back.
    let savedCatalog: Catalog
    /// Classes whose tables this transaction created.
    var createdClasses: [ClassInfo] = []
    /// Whether the stored schema changed and must be written at commit.
    var schemaChanged = false
    /// Next object key per class id, loaded on first use and written back at commit.
    var nextKeys: [UInt32: UInt64] = [:]
    /// What the transaction changed, per class id.
    var changes: [UInt32: ClassChanges] = [:]
    /// Scratch buffers.
    var row = RowBuilder()
    var key: [UInt8] = []

    init(transaction: consuming WriteTransaction, catalog: Catalog) {
        txn = transaction.txn
        self.transaction = consume transaction
        savedCatalog = catalog
    }

    /// A context for a write transaction that could not begin.
    init(failure: ObjDBError, catalog: Catalog) {
        transaction = nil
        txn = nil
        self.failure = failure
        savedCatalog = catalog
    }

    /// The transaction, or the error that doomed it.
    func requireTxn() throws -> Txn {
        if let failure { throw failure }
        guard let txn else { throw ObjDBError(.notInWriteTransaction, "The write transaction has ended") }
        return txn
    }

    /// Runs a storage operation. An error that came from LMDB dooms the transaction (LMDB
    /// accepts nothing but an abort after a failed write); other errors do not.
    func storage<R>(_ body: (Txn) throws -> R) throws -> R {
        let txn = try requireTxn()
        do {
            return try body(txn)
        } catch let error as ObjDBError where error.lmdbCode != nil {
            failure = error
            throw error
        }
    }
}

/// What one write transaction did to one class.
struct ClassChanges {
    /// Objects inserted (and not deleted again).
    var insertions: Set<UInt64> = []
    /// Objects that existed before the transaction and were deleted.
    var deletions: Set<UInt64> = []
    /// Objects that existed before the transaction, with the columns written.
    var modifications: [UInt64: Set<Int>] = [:]
    /// Whether the class was emptied by `deleteAll()`.
    var cleared = false

    mutating func inserted(_ key: UInt64) { insertions.insert(key) }

    mutating func deleted(_ key: UInt64) {
        if insertions.remove(key) == nil { deletions.insert(key) }
        modifications[key] = nil
    }

    mutating func modified(_ key: UInt64, columns: some Sequence<Int>) {
        guard !insertions.contains(key) else { return }
        modifications[key, default: []].formUnion(columns)
    }
}
