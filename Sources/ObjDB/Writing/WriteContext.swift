/// One write transaction of a ``Database``: the parts it is made of, and what it restores if
/// it rolls back. Each part holds one concern, and the code that uses a concern goes through
/// its part:
///
/// - ``transaction``: LMDB's transaction, its failure, its cursors (``OpenTransaction``);
/// - ``undo``: the steps of the active savepoints (``UndoLog``);
/// - ``pending``: what is written later — buffered collections, logged index entries, list
///   edits (``PendingWrites``);
/// - ``changes``: the key counters and what the transaction changed, the commit's
///   ``ChangeSet`` (``TransactionChanges``);
/// - ``scratch``: the buffers every row write reuses (``WriteScratch``).
///
/// Code reaches a part through the context (`context.undo.record(…)`), which borrows it without
/// a retain; a local copy of a part would be retained and released. The parts that are values
/// (``undo``, ``changes``, ``scratch``) are stored in place: a transaction allocates only the
/// parts that are classes.
final class WriteContext {
    /// The LMDB transaction, its failure and its cursors.
    let transaction: OpenTransaction
    /// The undo log of the active savepoints.
    @exclusivity(unchecked) var undo = UndoLog()
    /// What the transaction keeps in memory to write later.
    let pending = PendingWrites()
    /// What the transaction changed so far: the commit's ``ChangeSet`` and key counters.
    @exclusivity(unchecked) var changes = TransactionChanges()
    /// The scratch buffers every row write of the transaction reuses.
    let scratch = WriteScratch()
    /// The one encoded value of a property setter or a collection element, beside ``scratch``
    /// because it is handed out `inout`: a variable of the context, passed without a copy.
    @exclusivity(unchecked) var value = _ObjDBBytes(ScratchBuffer(capacity: 256))
    /// The catalog before the transaction, restored if it rolls back.
    let savedCatalog: Catalog
    /// Classes whose tables this transaction created, discarded if it rolls back.
    var createdClasses: [ClassInfo] = []
    /// A migration's transaction, until the migration commits or rolls back: primary-key
    /// entries are not written as objects change (two objects may share a key until the
    /// migration block returns; the classes whose entries are stale are listed in
    /// ``PendingWrites/primaryKeysToRebuild`` and rebuilt, and checked, at the end); a wrong
    /// value set by name fails the migration instead of stopping the program; and the block may
    /// not commit or cancel the transaction itself.
    @exclusivity(unchecked) var isMigration = false
    /// A transaction that applies what the sync service sent: its changes do not enter the
    /// outbox of a synced file (see `Database+Outbox.swift`).
    var isDownload = false

    /// The context of the write transaction `transaction`, begun on `catalog`.
    init(transaction: consuming WriteTransaction, catalog: Catalog) {
        self.transaction = OpenTransaction(transaction)
        savedCatalog = catalog
    }

    /// A context for a write transaction that could not begin, for `failure`.
    init(failure: ObjDBError, catalog: Catalog) {
        transaction = OpenTransaction(failure: failure)
        savedCatalog = catalog
    }

    /// Runs a storage operation (``OpenTransaction/storage(onlyDeletes:_:)``): an error from
    /// LMDB dooms the transaction, explained by whether it only deletes so far.
    @inline(__always)
    func storage<R>(_ body: (Txn) throws -> R) throws -> R {
        try transaction.storage(onlyDeletes: changes.onlyDeletes, body)
    }
}
