extension Database {
    /// Runs `block` in a write transaction and commits it; rolls everything back if `block` throws.
    ///
    /// ```swift
    /// try db.write {
    ///     try db.add(person)
    ///     person.age = 30
    /// }
    /// let count = try db.write { db.objects(Person.self).count }   // returns the block's value
    /// ```
    ///
    /// Only one write transaction runs at a time per file, across all processes; `write` waits
    /// for the current one to finish. Calling it inside a write transaction of the same
    /// `Database` is a programmer error: transactions do not nest, and the program stops with a
    /// message saying so.
    ///
    /// - Throws: what `block` throws, or an ``ObjDBError`` if the transaction cannot begin or
    ///   commit (for example ``ObjDBError/Code/mapFull``, ``ObjDBError/Code/readOnly``). In every
    ///   case nothing of the transaction is kept.
    @discardableResult
    public func write<Result>(_ block: () throws -> Result) throws -> Result {
        objdbPrecondition(
            writeContext == nil,
            "Database.write was called inside a write transaction of the same Database; nested write transactions are not supported. Do the work in the enclosing transaction, or end it (commitWrite() or cancelWrite()) first")
        return try performWrite(gateEntered: false, block)
    }

    /// ``write(_:)`` for asynchronous code: while another write transaction of this process
    /// holds the file's writer lock, the task is suspended instead of blocking its thread (the
    /// actor's executor, the main thread), and `block` runs once it is this write's turn.
    ///
    /// ```swift
    /// actor Importer {
    ///     let db: Database
    ///     func save(_ batch: [Person]) async throws {
    ///         try await db.asyncWrite { try db.add(batch, update: .modified) }
    ///     }
    /// }
    /// ```
    ///
    /// Realm's `asyncWrite`. `block` is synchronous, like a `write` block: it runs in the
    /// caller's isolation, on one thread, from the transaction's beginning to its commit. A
    /// writer in *another process* still makes the thread wait inside LMDB for as long as that
    /// transaction lasts (LMDB's writer lock belongs to a thread, so no other thread can wait
    /// for it on the task's behalf); see Docs/Concurrency.md. Calling it inside a write
    /// transaction of the same `Database` is a programmer error, as for ``write(_:)``.
    ///
    /// - Throws: what `block` throws, or an ``ObjDBError`` if the transaction cannot begin or
    ///   commit. In every case nothing of the transaction is kept.
    @discardableResult
    public func asyncWrite<Result>(
        isolation: isolated (any Actor)? = #isolation, _ block: () throws -> Result
    ) async throws -> Result {
        objdbPrecondition(
            writeContext == nil,
            "Database.asyncWrite was called inside a write transaction of the same Database; nested write transactions are not supported. Do the work in the enclosing transaction, or end it (commitWrite() or cancelWrite()) first")
        // A frozen or read-only database refuses the write as write(_:) does, without waiting.
        guard frozenVersion == nil, !configuration.readOnly else { return try performWrite(gateEntered: false, block) }
        // What write(_:) checks once it holds the gate, checked before waiting for it: the gate
        // is not a thread's, so a second write on this thread would wait for ever.
        try environment.refuseSecondWriteOnThisThread()
        // Observers hear of other commits before the write (see startWrite) — now, since their
        // callbacks may write, which they could not while this write holds the gate.
        refreshBeforeWrite()
        await environment.writerGate.enterSuspending(isolation: isolation)
        objdbPrecondition(
            writeContext == nil,
            "Database.asyncWrite: a write transaction of the same Database began while this one waited for its turn (beginWrite() in code that ran meanwhile); end it first")
        return try performWrite(gateEntered: true, block)
    }

    /// Runs `block` in a write transaction and commits it; `gateEntered`: the caller took the
    /// process's ``WriterGate``; `download`: the transaction applies what the sync service sent,
    /// and its changes do not enter the outbox.
    func performWrite<Result>(gateEntered: Bool, download: Bool = false, _ block: () throws -> Result) throws -> Result {
        let context = startWrite(gateEntered: gateEntered)
        context.isDownload = download
        if let failure = context.transaction.failure {
            endWrite(context, committed: false)
            throw failure
        }
        let result: Result
        do {
            result = try block()
        } catch {
            if writeContext === context { cancelWrite() }
            throw error
        }
        if writeContext === context { try commitWrite() }
        return result
    }

    /// Begins a write transaction; end it with ``commitWrite()`` or ``cancelWrite()``.
    ///
    /// Prefer ``write(_:)``. If the transaction cannot begin (a read-only database, say), the
    /// database still enters the write state and every write, then ``commitWrite()``, throws
    /// the reason. Calling it while this `Database` is already in a write transaction stops the
    /// program with a message (transactions do not nest).
    @available(*, noasync, message: "Use write { } in asynchronous code: a write transaction must end on the thread that began it")
    public func beginWrite() {
        objdbPrecondition(
            writeContext == nil,
            "Database.beginWrite() was called while this Database is already in a write transaction; nested write transactions are not supported. End the current one with commitWrite() or cancelWrite() first")
        _ = startWrite(gateEntered: false)
    }

    /// Commits the write transaction begun with ``beginWrite()``.
    ///
    /// - Throws: ``ObjDBError/Code/notInWriteTransaction`` without one; the error that doomed
    ///   the transaction; or a commit failure such as ``ObjDBError/Code/mapFull``. When it throws,
    ///   nothing of the transaction was kept.
    @available(*, noasync, message: "Use write { } in asynchronous code: a write transaction must end on the thread that began it")
    public func commitWrite() throws {
        guard let context = writeContext else {
            throw ObjDBError(.notInWriteTransaction, "commitWrite() called without a write transaction", path: path)
        }
        objdbPrecondition(
            !context.isMigration,
            "commitWrite() was called inside a migration block; the migration commits by itself when the block returns")
        if let failure = context.transaction.failure {
            endWrite(context, committed: false)
            throw failure
        }
        var committed: (changes: ChangeSet, version: UInt64)?
        let pinned: ReadTransaction?
        do {
            try flushPendingWrites(context)
            try context.storage { txn in
                try flush(context, txn)
                // A synced file's outbox records the commit's operations in the same transaction.
                try recordOutbox(context, txn)
                // The change log's entry, in the same transaction (a transaction that wrote
                // nothing makes no version and leaves none).
                if context.changes.hasChanges {
                    let changes = context.changes.changeSet(listEdits: context.pending.listEdits)
                    let version = UInt64(truncatingIfNeeded: txn.id)
                    try ChangeLog.record(changes, id: version, in: txn)
                    committed = (changes, version)
                }
            }
            context.transaction.closeCursors()
            guard let transaction = context.transaction.handle.take() else {
                throw ObjDBError(.notInWriteTransaction, "The write transaction has ended", path: path)
            }
            pinned = try transaction.commit(mayUseReserve: context.changes.onlyDeletes, pinning: lease)
        } catch {
            endWrite(context, committed: false)
            let failure = Self.objdbError(error, path: path)
            throw environment.explainFullMap(failure, onlyDeletes: context.changes.onlyDeletes)
        }
        endWrite(context, committed: true, madeVersion: committed.map { Int(truncatingIfNeeded: $0.version) }, pinned: pinned)
        if let committed {
            ChangeNotifier.committed(path: environment.path, version: committed.version)
            notifications.observers?.didCommit(committed.changes, version: committed.version)
        } else {
            notifications.observers?.skipping = []  // a write that changed nothing skips nothing later
        }
        if context.changes.onlyDeletes && environment.deletesLeftFileNearLimit() { settleAfterDeletes() }
    }

    /// Rolls back the write transaction: nothing it did is kept. Objects it added become
    /// invalidated.
    ///
    /// Calling it without a write transaction (for example after ``commitWrite()``) is a
    /// programmer error and stops the program with a message: nothing could be rolled back.
    @available(*, noasync, message: "Use write { } in asynchronous code: a write transaction must end on the thread that began it")
    public func cancelWrite() {
        guard let context = writeContext else {
            objdbFatal(
                "Database.cancelWrite() was called without a write transaction: nothing was rolled back. Call it only between beginWrite() and commitWrite(); a transaction that committed cannot be cancelled")
        }
        objdbPrecondition(
            !context.isMigration,
            "cancelWrite() was called inside a migration block; throw from the block instead, and the migration changes nothing")
        endWrite(context, committed: false)
    }

    /// The write transaction, or ``ObjDBError/Code/notInWriteTransaction``.
    func requireWrite(_ operation: @autoclosure () -> String) throws -> WriteContext {
        guard let context = writeContext else {
            throw ObjDBError(
                .notInWriteTransaction, "\(operation()) must be called inside a write transaction (db.write { … })",
                path: path)
        }
        if let failure = context.transaction.failure { throw failure }
        return context
    }

    // MARK: Internals

    /// `error` as an ``ObjDBError`` carrying the file path.
    static func objdbError(_ error: Error, path: String) -> ObjDBError {
        (error as? ObjDBError)?.with(path: path) ?? ObjDBError(.storage, "\(error)", path: path)
    }

    /// Begins the LMDB write transaction, or records why it could not. `gateEntered`: the
    /// caller took the process's ``WriterGate``, which the transaction leaves when it ends (or
    /// this, if none begins).
    private func startWrite(gateEntered: Bool) -> WriteContext {
        objdbPrecondition(
            frozenVersion == nil,
            "A write transaction was begun on a frozen Database, which reads one version for ever; thaw() it (or the object) and write through the live Database")
        let context: WriteContext
        if configuration.readOnly {
            if gateEntered { environment.writerGate.leave() }
            context = WriteContext(
                failure: ObjDBError(.readOnly, "The database was opened read-only; writes are not allowed", path: path),
                catalog: catalog)
        } else {
            if !gateEntered { refreshBeforeWrite() }
            // The write transaction sees the newest version; the snapshot is no longer needed.
            snapshot = nil
            do {
                do {
                    try checkActiveVersions()
                } catch {
                    if gateEntered { environment.writerGate.leave() }
                    throw error
                }
                context = WriteContext(transaction: try WriteTransaction(environment, gateEntered: gateEntered), catalog: catalog)
            } catch {
                context = WriteContext(failure: Self.objdbError(error, path: path), catalog: catalog)
            }
            // Another instance may have added classes since this one last looked.
            if let txn = context.transaction.txn {
                do { try reloadCatalogIfChanged(in: txn) } catch { context.transaction.doom(Self.objdbError(error, path: path)) }
            }
        }
        writes.serial &+= 1
        writeContext = context
        generation &+= 1
        return context
    }

    /// As Realm does, observers hear of other commits before a write begins, so that
    /// write(withoutNotifying:) skips only this write's own changes.
    private func refreshBeforeWrite() {
        if let center = notifications.observers, !center.isEmpty, !center.isDelivering { _ = refresh() }
    }

    /// Leaves the write state; on rollback, restores the catalog and discards classes the
    /// transaction created (their table handles are gone).
    /// `madeVersion`: the version a commit made (`nil` when it changed nothing or rolled back);
    /// `pinned`: the snapshot the commit began of it.
    private func endWrite(_ context: WriteContext, committed: Bool, madeVersion: Int? = nil, pinned: ReadTransaction? = nil) {
        context.transaction.closeCursors()
        var pinned = pinned
        if !committed {
            notifications.observers?.skipping = []
            pinned = context.transaction.handle.take()?.abort(pinning: lease)
            catalog = context.savedCatalog
            for info in context.createdClasses { info.isDiscarded = true }
            // The keys this transaction handed out were not stored: keep this process from
            // handing them out again, and invalidate the objects it added.
            for (classID, changes) in context.changes.classes.enumerated() {
                guard let changes, changes.nextKey > changes.firstNewKey else { continue }
                environment.raiseCounterFloor(UInt32(classID), to: changes.nextKey)
                writes.rolledBack.insert(writes.serial)
            }
        } else {
            if context.changes.schemaChanged {
                catalog.stamp += 1
                formatVersion = max(formatVersion, FileMeta.requiredFormat(for: catalog.stored))
            }
            if context.changes.upgradedFormat { formatVersion = max(formatVersion, FileMeta.checksummedFormat) }
        }
        writeContext = nil
        generation &+= 1
        pinVersionAfterWrite(pinned, expected: madeVersion ?? context.transaction.baseVersion)
    }

    /// Keeps the instance at the version its write made (or, after a rollback, the one it began
    /// on) until the next ``refresh()``, write or delivery — not whatever another instance
    /// commits before its next read. The transaction began `pinned` before this process's next
    /// writer could begin; only another process can commit between LMDB's release of the writer
    /// lock and that begin, and the snapshot then includes it, as a write that began a moment
    /// later would have. Without `pinned` (the write never began, or failed to commit) one is
    /// begun now. A write refused without a transaction (a read-only database) keeps the
    /// snapshot it had. `expected`: the version the write left the file at; the catalog is
    /// reloaded only if the snapshot is another (another instance may have changed the schema).
    private func pinVersionAfterWrite(_ pinned: ReadTransaction?, expected: Int?) {
        guard snapshot == nil else { return }
        // try?: without a reader slot the next read begins the snapshot and reports why not.
        guard let pinned = pinned ?? (try? ReadTransaction(lease)) else { return }
        snapshot = pinned
        if pinned.id != expected { reloadCatalogIfChanged(pinned.txn) }
    }

    /// What became of write transaction `serial` of this instance.
    func outcome(ofWrite serial: UInt64) -> WriteOutcome {
        if serial == writes.serial && writeContext != nil { return .pending }
        return writes.rolledBack.contains(serial) ? .rolledBack : .committed
    }

    /// Writes what the transaction kept in memory: key counters and the schema.
    /// The first commit of this build to an older file raises its format (its rows now carry
    /// checksums); the meta records are sealed with their checksum whenever one changed.
    private func flush(_ context: WriteContext, _ txn: Txn) throws {
        var metaChanged = false
        for (classID, changes) in context.changes.classes.enumerated() {
            guard let changes else { continue }
            if let next = changes.nextAutoID, next != changes.loadedAutoID {
                try FileMeta.writeUInt64(txn, metaTable, FileMeta.Key.autoIncrement(UInt32(classID)), UInt64(bitPattern: Int64(next)))
                metaChanged = true
            }
            guard changes.nextKey != changes.firstNewKey else { continue }
            try FileMeta.writeUInt64(txn, metaTable, FileMeta.Key.nextKey(UInt32(classID)), changes.nextKey)
            metaChanged = true
        }
        if context.changes.schemaChanged {
            try FileMeta.writeSchema(txn, metaTable, catalog.stored, stamp: catalog.stamp + 1)
            metaChanged = true
        }
        if formatVersion < FileMeta.checksummedFormat, try FileMeta.upgradeFormat(txn, metaTable) {
            context.changes.upgradedFormat = true
            metaChanged = true
        }
        if metaChanged { try FileMeta.seal(txn, metaTable) }
    }
}

/// Whether a write transaction committed, rolled back, or is still open.
enum WriteOutcome {
    case pending, committed, rolledBack
}
