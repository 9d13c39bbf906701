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

    /// Whether the transaction holds one of the environment's extra reader slots.
    private let isExtra: Bool
    /// The values this snapshot of an encrypted file decrypted, kept while it lives; shared with
    /// the other snapshots of its version (``SharedSnapshotValues``).
    private let decrypted: DecryptedValues?
    /// The `buckets` table of an encrypted file that keeps row buckets, read once.
    private let rowBuckets: Table?

    /// Begins a snapshot of the newest version.
    convenience init(_ lease: EnvironmentLease) throws {
        try self.init(lease, extra: false)
    }

    /// `extra`: the transaction fills an extra reader slot, already reserved.
    private init(_ lease: EnvironmentLease, extra: Bool) throws {
        self.lease = lease
        // Read before the snapshot begins: a handle published after it began is not valid in it.
        rowBuckets = lease.environment.cipher == nil ? nil : lease.environment.rowBuckets
        handle = try lease.environment.beginTransaction(readOnly: true)
        id = mdb_txn_id(handle)
        isExtra = extra
        decrypted = lease.environment.cipher == nil ? nil : lease.environment.sharedSnapshotValues.forSnapshot(of: id)
        lease.environment.pinVersion(id)
    }

    /// A borrowed view for reading.
    var txn: Txn { Txn(handle, environment: lease.environment, isReadOnly: true, decrypted: decrypted, rowBuckets: rowBuckets) }

    /// Another read transaction of the same version, for use on another thread; `nil` if the
    /// file moved to a newer version since this one began (LMDB begins reads at the newest
    /// version only) or no reader slot is free.
    ///
    /// It takes one of the slots reserved for such transactions (a quarter of the reader table)
    /// and begins nothing when they are all taken, or when the file has a newer commit.
    func sameVersion() -> ReadTransaction? {
        let environment = lease.environment
        guard environment.lastCommittedTransactionID() == id, environment.reserveExtraReader() else { return nil }
        // try?: no transaction of this version means the scan runs on one thread, as documented.
        guard let other = try? ReadTransaction(lease, extra: true) else {
            environment.releaseExtraReader()
            return nil
        }
        // A commit may still land between the check above and the begin.
        return other.id == id ? other : nil
    }

    /// Makes the transaction readable from several threads at once (see
    /// ``Environment/prepareForSharedReads(_:)``); once is enough, before it is shared.
    func prepareForSharedReads() {
        lease.environment.prepareForSharedReads(handle)
    }

    deinit {
        lease.environment.unpinVersion(id)
        mdb_txn_abort(handle)
        lease.environment.transactionEnded(readOnly: true)
        if isExtra { lease.environment.releaseExtraReader() }
    }
}
