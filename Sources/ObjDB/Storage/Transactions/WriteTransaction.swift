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
    /// The file's size in pages when the transaction began, read from the transaction and
    /// checked against LMDB's own figure; `nil` when the environment keeps no reserve for
    /// deletes (``SpaceReserve``) or the check failed.
    let startPages: Int?
    /// The values this transaction of an encrypted file decrypted or sealed, kept while it lives
    /// (retained here, released when it ends: `discard` needs trivially destroyed fields).
    private let decrypted: Unmanaged<DecryptedValues>?
    /// The index entries of an encrypted file not written yet (``DeferredKeyPuts``), written
    /// before the commit; released as ``decrypted`` is.
    private let deferredKeys: Unmanaged<DeferredKeyPuts>?
    /// The row buckets of an encrypted file this transaction changed (``BucketWrites``), sealed
    /// before the commit; released as ``decrypted`` is. `nil` in files without buckets.
    private let bucketWrites: Unmanaged<BucketWrites>?

    /// Begins a write transaction, waiting for any other writer (in any process) to finish.
    /// `gateEntered`: the caller already took the process's ``WriterGate`` (which the
    /// transaction then leaves when it ends, or at once if it cannot begin).
    init(_ environment: Environment, gateEntered: Bool = false) throws {
        self.environment = environment
        decrypted = environment.cipher == nil ? nil : Unmanaged.passRetained(DecryptedValues(remembers: false))
        let handle: OpaquePointer
        do {
            handle = try environment.beginTransaction(readOnly: false, gateEntered: gateEntered)
        } catch {
            decrypted?.release()
            throw error
        }
        // A file whose buckets table this process has not opened yet (another process created
        // the file meanwhile) is looked at here: every writer of a file with buckets keeps its
        // buckets in step with its entries.
        let buckets: Table?
        do {
            buckets = environment.cipher == nil ? nil
                : try environment.rowBuckets ?? environment.existingTableForWriter(named: RowBucket.tableName, flags: .plain, in: handle)
        } catch {
            mdb_txn_abort(handle)
            decrypted?.release()
            environment.writeTransactionEnded(committed: false)
            throw error
        }
        self.handle = handle
        deferredKeys = environment.cipher != nil && FastPaths.enabled.contains(.deferredKeyPuts)
            ? Unmanaged.passRetained(DeferredKeyPuts(handle, environment: environment)) : nil
        if let cipher = environment.cipher, let buckets, let decrypted {
            bucketWrites = Unmanaged.passRetained(
                BucketWrites(handle, environment: environment, buckets: buckets, cipher: cipher, arena: decrypted.takeUnretainedValue()))
        } else {
            bucketWrites = nil
        }
        if let reserve = environment.reserve, reserve.isActive, let committed = environment.committedPageCount() {
            // LMDB starts the transaction's next page at the newest version's last page + 1;
            // we hold the writer lock, so that version is this transaction's.
            let read = TransactionPages.nextPage(of: handle)
            startPages = SpaceReserve.agrees(read, committed, atMost: false, what: "write transaction begin") ? read : nil
        } else {
            startPages = nil
        }
    }

    /// A borrowed view for reading and writing.
    var txn: Txn {
        Txn(
            handle, environment: environment, isReadOnly: false, decrypted: decrypted?.takeUnretainedValue(),
            deferredKeys: deferredKeys?.takeUnretainedValue(), bucketWrites: bucketWrites?.takeUnretainedValue())
    }

    /// Opens (creating if needed) a table in this transaction; the handle becomes visible to
    /// other transactions when this one commits.
    func openTable(named name: String, flags: TableFlags) throws -> Table {
        try txn.openTable(named: name, flags: flags)
    }

    /// Commits. On failure (for example a full map) LMDB has already freed the transaction and
    /// nothing was written.
    ///
    /// Where the environment keeps a reserve for deletes (``SpaceReserve``), a transaction that
    /// may not use it (`mayUseReserve` false: it added or changed data) and would leave the file
    /// past `maximumSize` is rolled back instead, with ``ObjDBError/Code/mapFull`` — unless it
    /// only filled free pages of a file deletes made larger, and the data still fits.
    ///
    /// With `pinning`, a read snapshot of the version the commit made is begun before this
    /// process's next writer may begin (see ``WriterGate``) and returned; `nil` without it, or
    /// if no reader slot is free.
    @discardableResult
    consuming func commit(mayUseReserve: Bool = false, pinning lease: EnvironmentLease? = nil) throws -> ReadTransaction? {
        let environment = self.environment
        // What an encrypted file's transaction kept to write at the end: its row buckets, then
        // its waiting index entries. A failure (a full map) rolls everything back.
        do {
            try bucketWrites?._withUnsafeGuaranteedRef { try $0.flushAll() }
            try deferredKeys?._withUnsafeGuaranteedRef { try $0.flushAll() }
        } catch {
            abort()
            throw error
        }
        var end: Int?
        if let reserve = environment.reserve, reserve.isActive, let start = startPages {
            end = TransactionPages.nextPage(of: handle)
            if end == nil {
                SpaceReserve.disable("write transaction commit: the transaction's page number could not be read")
            } else if !mayUseReserve, let end,
                let refusal = reserve.refusal(
                    start: start, end: end, pagesInUse: { environment.pagesInUse(handle) }, path: environment.path)
            {
                abort()
                throw refusal
            }
        }
        let rc = mdb_txn_commit(handle)
        decrypted?.release()
        deferredKeys?.release()
        bucketWrites?.release()
        discard self
        // try?: without a reader slot the owner's next read begins the snapshot and says why not.
        let pinned = rc == MDB_SUCCESS ? lease.flatMap { try? ReadTransaction($0) } : nil
        environment.writeTransactionEnded(committed: rc == MDB_SUCCESS)
        try lmdbCheck(rc, "mdb_txn_commit", path: environment.path)
        if let end, let committed = environment.committedPageCount() {
            // The commit may add pages of its own (LMDB's free-page records), never remove any.
            if SpaceReserve.agrees(end, committed, atMost: true, what: "write transaction commit") {
                environment.reserve?.committed(pages: committed, end: end, onlyDeletes: mayUseReserve)
            }
        }
        return pinned
    }

    /// Rolls back every change of the transaction. With `pinning`, returns a read snapshot of
    /// the version the transaction began on, begun before this process's next writer may begin
    /// (`nil` if no reader slot is free).
    @discardableResult
    consuming func abort(pinning lease: EnvironmentLease? = nil) -> ReadTransaction? {
        mdb_txn_abort(handle)
        decrypted?.release()
        deferredKeys?.release()
        bucketWrites?.release()
        let environment = self.environment
        discard self
        let pinned = lease.flatMap { try? ReadTransaction($0) }
        environment.writeTransactionEnded(committed: false)
        return pinned
    }

    deinit {
        mdb_txn_abort(handle)
        decrypted?.release()
        deferredKeys?.release()
        bucketWrites?.release()
        environment.writeTransactionEnded(committed: false)
    }
}
