import CLMDB

/// The owner of an LMDB write transaction.
///
/// Non-copyable: ``commit()`` consumes it, and dropping it without committing aborts, so a write
/// can never be left half-open. Write transactions are bound to the thread that began them. The
/// owner of the transaction must keep the environment open (hold a lease) while it lives.
struct WriteTransaction: ~Copyable {
    /// The `MDB_txn` handle.
    let handle: OpaquePointer
    /// The environment the transaction writes to.
    unowned(unsafe) let environment: Environment

    /// Begins a write transaction, waiting for any other writer (in any process) to finish.
    init(_ environment: Environment) throws {
        self.environment = environment
        handle = try environment.beginTransaction(readOnly: false)
    }

    /// A borrowed view for reading and writing.
    var txn: Txn { Txn(handle, environment: environment, isReadOnly: false) }

    /// Opens (creating if needed) a table in this transaction; the handle becomes visible to
    /// other transactions when this one commits.
    func openTable(named name: String, flags: TableFlags) throws -> Table {
        try txn.openTable(named: name, flags: flags)
    }

    /// Commits. On failure (for example a full map) LMDB has already freed the transaction and
    /// nothing was written.
    consuming func commit() throws {
        let rc = mdb_txn_commit(handle)
        let environment = self.environment
        discard self
        environment.writeTransactionEnded(committed: rc == MDB_SUCCESS)
        try lmdbCheck(rc, "mdb_txn_commit", path: environment.path)
    }

    /// Rolls back every change of the transaction.
    consuming func abort() {
        mdb_txn_abort(handle)
        let environment = self.environment
        discard self
        environment.writeTransactionEnded(committed: false)
    }

    deinit {
        mdb_txn_abort(handle)
        environment.writeTransactionEnded(committed: false)
    }
}
