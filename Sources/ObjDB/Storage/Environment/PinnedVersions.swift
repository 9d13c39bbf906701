import CLMDB

/// The versions this process's read transactions hold, and what they cost.
///
/// LMDB reuses a page freed by a commit only once no reader is older than that commit, so every
/// version from the oldest one read to the newest committed one keeps its pages in the file.
/// ``activeVersionCount`` counts them; `Configuration.maximumNumberOfActiveVersions` bounds it.
extension Environment {
    /// Records that a read transaction of version `id` began.
    func pinVersion(_ id: Int) {
        versionLock.withLock { readVersions[id, default: 0] += 1 }
    }

    /// Records that a read transaction of version `id` ended.
    func unpinVersion(_ id: Int) {
        versionLock.withLock {
            let remaining = (readVersions[id] ?? 1) - 1
            readVersions[id] = remaining > 0 ? remaining : nil
        }
    }

    /// The oldest version a read transaction of this process holds, if any.
    var oldestReadVersion: Int? {
        versionLock.withLock { readVersions.keys.min() }
    }

    /// The versions whose pages this process keeps in the file: from the oldest one a read
    /// transaction of this process holds to the newest committed one, both included; 1 when
    /// every reader reads the newest version, or none reads.
    var activeVersionCount: Int {
        let newest = lastCommittedTransactionID()
        guard let oldest = oldestReadVersion, newest >= oldest else { return 1 }
        return newest - oldest + 1
    }

    /// Makes `txn` (read-only) safe to read from several threads at once: LMDB refreshes a
    /// table's root in the transaction the first time the transaction uses the table (its
    /// `DB_STALE` flag), a write into the transaction. Touching every table this environment
    /// has opened once, here, leaves later reads that only read. After that, cursors of a
    /// read-only transaction are independent of each other (LMDB links only a write
    /// transaction's cursors into it), and `MDB_NOTLS` frees the transaction from its thread.
    func prepareForSharedReads(_ txn: OpaquePointer) {
        let handles = openTableHandles()
        var stat = MDB_stat()
        for dbi in handles {
            // The result is not needed: a table opened after the transaction began is not
            // valid in it (EINVAL), and nothing reads it through this transaction.
            _ = mdb_stat(txn, dbi, &stat)
        }
    }
}
