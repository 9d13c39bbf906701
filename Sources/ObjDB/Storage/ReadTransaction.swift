import CLMDB

/// A read-only LMDB transaction: one consistent snapshot of the file.
///
/// Reference-counted, so a live `Database` and any number of objects or iterators can share one
/// snapshot (one reader slot); the transaction ends when the last reference goes away. With
/// `MDB_NOTLS` it is not tied to the thread that began it.
final class ReadTransaction: @unchecked Sendable {
    /// Keeps the environment open while the snapshot lives.
    let lease: EnvironmentLease
    /// The `MDB_txn` handle.
    let handle: OpaquePointer
    /// The LMDB transaction id this snapshot reads (the id of the last commit it sees).
    let id: Int

    init(_ lease: EnvironmentLease) throws {
        self.lease = lease
        handle = try lease.environment.beginTransaction(readOnly: true)
        id = mdb_txn_id(handle)
    }

    /// A borrowed view for reading.
    var txn: Txn { Txn(handle, environment: lease.environment) }

    /// Another read transaction of the same version, for use on another thread; `nil` if the
    /// file moved to a newer version since this one began (LMDB begins reads at the newest
    /// version only) or no reader slot is free.
    func sameVersion() -> ReadTransaction? {
        guard let other = try? ReadTransaction(lease), other.id == id else { return nil }
        return other
    }

    deinit {
        mdb_txn_abort(handle)
        lease.environment.transactionEnded(readOnly: true)
    }
}
