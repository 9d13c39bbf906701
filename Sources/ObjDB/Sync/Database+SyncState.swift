import Foundation

/// What `ObjDBSync` needs of a file: turning sync on, the state it keeps, the outbox. Package
/// API: applications use `SyncClient`.
extension Database {
    /// Makes the file synced for the classes named (or adds classes to those already synced);
    /// gives it a client id the first time. From the commit that follows, every commit on these
    /// classes, by any instance or process, enters the outbox.
    ///
    /// - Throws: ``ObjDBError/Code/unknownClass`` for a class the file lacks;
    ///   ``ObjDBError/Code/invalidSchema`` for an embedded class, or one whose primary key is not
    ///   a `String`, `UUID` or ``ObjectId`` (integer keys would merge unrelated objects of two
    ///   devices); the errors of ``write(_:)``.
    package func enableSync(classNames: [String]) throws {
        for name in classNames {
            guard let info = classInfo(named: name), !info.isDiscarded else {
                throw ObjDBError(.unknownClass, "Sync: the file has no class '\(name)'", className: name, path: path)
            }
            guard !info.stored.isEmbedded else {
                throw ObjDBError(
                    .invalidSchema, "Sync: '\(name)' is an embedded class; it is synced with the objects that own it",
                    className: name, path: path)
            }
            for name in [name] + info.stored.properties.map(\.name) where name.utf8.count > 63 || name.lowercased().hasPrefix("objdb_") {
                throw ObjDBError(
                    .invalidSchema,
                    "Sync: '\(name)' (of class '\(info.name)') cannot be synced: PostgreSQL keeps names of at most 63 bytes, and names starting objdb_ are the service's",
                    className: info.name, path: path)
            }
            guard let column = info.primaryKeyColumn, [.string, .uuid, .objectId].contains(info.stored.properties[column].type) else {
                throw ObjDBError(
                    .invalidSchema,
                    "Sync: '\(name)' needs a String, UUID or ObjectId primary key to be synced (an integer key would merge unrelated objects created on two devices)",
                    className: name, path: path)
            }
        }
        try performWrite(gateEntered: false, download: true) {
            let context = try requireWrite("enableSync")
            try context.storage { txn in
                let current = try SyncTables.syncedClasses(txn, meta: metaTable) ?? []
                let merged = current + classNames.filter { !current.contains($0) }
                if merged != current || current.isEmpty {
                    try FileMeta.put(txn, metaTable, FileMeta.Key.syncClasses, SyncTables.encode(classNames: merged))
                    try FileMeta.seal(txn, metaTable)
                }
                guard let state = try SyncTables.stateTable(txn, create: true) else { return }
                if try FileMeta.get(txn, state, SyncTables.Key.clientID) == nil {
                    try FileMeta.put(txn, state, SyncTables.Key.clientID, Self.bytes(of: UUID()))
                }
                _ = try SyncTables.outboxTable(txn, create: true)
            }
        }
    }

    /// The sync state of the file, read in the current version; `nil` if it is not synced.
    package func syncFileState() throws -> SyncFileState? {
        let txn = try requireReadableTxn()
        guard let names = try SyncTables.syncedClasses(txn, meta: metaTable) else { return nil }
        let state = try existingSyncTable(TableName.sync, flags: [], txn)
        func word(_ key: String) throws -> UInt64? {
            guard let state else { return nil }
            return try FileMeta.readUInt64(txn, state, key)
        }
        var clientID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        if let state, let bytes = try FileMeta.get(txn, state, SyncTables.Key.clientID), bytes.count == 16 {
            clientID = Self.uuid(bytes)
        }
        let checkpoint = try state.flatMap { try FileMeta.get(txn, $0, SyncTables.Key.checkpoint) }.map { String(decoding: $0, as: UTF8.self) }
        let outbox = try existingSyncTable(TableName.outbox, flags: .objects, txn)
        return SyncFileState(
            classNames: names, clientID: clientID, nextSequence: try word(SyncTables.Key.nextSequence) ?? 1,
            acknowledged: try word(SyncTables.Key.acknowledged) ?? 0, checkpoint: checkpoint,
            includedSequence: try word(SyncTables.Key.includedSequence) ?? 0,
            outboxCount: try outbox.map { try txn.entryCount($0) } ?? 0)
    }

    /// The outbox's operations with a sequence above `sequence`, ascending, at most `limit`.
    package func outboxOperations(after sequence: UInt64, limit: Int = .max) throws -> [SyncOperation] {
        let txn = try requireReadableTxn()
        guard let outbox = try existingSyncTable(TableName.outbox, flags: .objects, txn) else { return [] }
        return try Self.operations(in: outbox, after: sequence, limit: limit, txn: txn)
    }

    /// The outbox entries after `sequence`, in order, as stored: what an upload sends without
    /// decoding them. At most `limit` entries, and entries of at most `maxBytes` bytes in all
    /// (each counted with 20 bytes for its framing), but always the first one.
    package func outboxEntries(after sequence: UInt64, limit: Int, maxBytes: Int = .max) throws -> [SyncOutboxEntry] {
        let txn = try requireReadableTxn()
        guard let outbox = try existingSyncTable(TableName.outbox, flags: .objects, txn) else { return [] }
        var result: [SyncOutboxEntry] = []
        var bytes = 0
        // An entry of an encrypted file that does not authenticate is damage, not an empty entry.
        let cursor = try Cursor(txn, outbox, tracksFailures: true)
        var entry = try cursor.seek(atLeast: sequence &+ 1)
        while let current = entry, result.count < limit {
            if let error = cursor.failure?.error { throw error }
            if current.objectKey > sequence {
                bytes += current.value.count + 20
                if bytes > maxBytes && !result.isEmpty { break }
                result.append(SyncOutboxEntry(sequence: current.objectKey, bytes: Array(current.value)))
            }
            entry = try cursor.next()
        }
        return result
    }

    /// Records that the service applied every operation up to `sequence`.
    package func acknowledgeUploads(through sequence: UInt64) throws {
        try performWrite(gateEntered: false, download: true) {
            try requireWrite("acknowledgeUploads").storage { txn in
                guard let state = try SyncTables.stateTable(txn, create: true) else { return }
                let current = try FileMeta.readUInt64(txn, state, SyncTables.Key.acknowledged) ?? 0
                if sequence > current { try FileMeta.writeUInt64(txn, state, SyncTables.Key.acknowledged, sequence) }
            }
        }
    }

    /// Starts the file over as a new client of the service, after the service found it behind
    /// its own record (a copied or restored file): a new client id, no checkpoint (the next
    /// download replaces the synced objects), and the operations not yet acknowledged kept,
    /// renumbered from 1. Returns the new client id.
    @discardableResult
    package func resetSyncClient() throws -> UUID {
        let id = UUID()
        try performWrite(gateEntered: false, download: true) {
            try requireWrite("resetSyncClient").storage { txn in
                guard let state = try SyncTables.stateTable(txn, create: true),
                    let outbox = try SyncTables.outboxTable(txn, create: true)
                else { return }
                let acknowledged = try FileMeta.readUInt64(txn, state, SyncTables.Key.acknowledged) ?? 0
                let pending = try Self.operations(in: outbox, after: acknowledged, limit: .max, txn: txn)
                try txn.empty(outbox)
                var next: UInt64 = 1
                for var operation in pending {
                    operation.sequence = next
                    _ = try OutboxFormat.encode(operation).withUnsafeBytes { try txn.put(outbox, key: next, value: $0) }
                    next += 1
                }
                try FileMeta.writeUInt64(txn, state, SyncTables.Key.nextSequence, next)
                try FileMeta.writeUInt64(txn, state, SyncTables.Key.acknowledged, 0)
                try FileMeta.writeUInt64(txn, state, SyncTables.Key.includedSequence, 0)
                try FileMeta.delete(txn, state, SyncTables.Key.checkpoint)
                try FileMeta.put(txn, state, SyncTables.Key.clientID, Self.bytes(of: id))
            }
        }
        return id
    }

    /// Compares `identity` (the file's device and inode now) with the one the sync state was
    /// written under. A file whose state came from another file — a copy, or a backup restored —
    /// would upload under the original's client id, and the service would take its operations
    /// for ones it already applied: it starts over as a new client (``resetSyncClient()``).
    /// Records `identity`; returns whether the client was reset.
    @discardableResult
    package func adoptSyncFileIdentity(_ identity: [UInt8]) throws -> Bool {
        objdbPrecondition(identity.count == 16, "adoptSyncFileIdentity was given \(identity.count) bytes; a file identity has 16 (device and inode)")
        let txn = try requireReadableTxn()
        let state = try existingSyncTable(TableName.sync, flags: [], txn)
        let stored = try state.flatMap { try FileMeta.get(txn, $0, SyncTables.Key.fileIdentity) }.map(Array.init)
        guard stored != identity else { return false }
        if stored != nil { try resetSyncClient() }
        try performWrite(gateEntered: false, download: true) {
            try requireWrite("adoptSyncFileIdentity").storage { txn in
                guard let state = try SyncTables.stateTable(txn, create: true) else { return }
                try FileMeta.put(txn, state, SyncTables.Key.fileIdentity, identity)
            }
        }
        return stored != nil
    }

    /// Records a write the service rejected, for processes that do not listen to the client's
    /// events: the newest one is kept.
    package func recordSyncRejection(sequence: UInt64, className: String, primaryKey: SyncValue, reason: String) throws {
        try performWrite(gateEntered: false, download: true) {
            try requireWrite("recordSyncRejection").storage { txn in
                guard let state = try SyncTables.stateTable(txn, create: true) else { return }
                let value = SyncValue.map([
                    "sequence": .int(Int64(truncatingIfNeeded: sequence)), "class": .string(className),
                    "primaryKey": primaryKey, "reason": .string(reason),
                ])
                try FileMeta.put(txn, state, SyncTables.Key.lastRejection, OutboxFormat.encode(value))
            }
        }
    }

    /// The subscriptions stored in the file, in order.
    package func syncSubscriptions() throws -> [StoredSyncSubscription] {
        let txn = try requireReadableTxn()
        guard let state = try existingSyncTable(TableName.sync, flags: [], txn),
            let bytes = try FileMeta.get(txn, state, SyncTables.Key.subscriptions)
        else { return [] }
        guard case .list(let items)? = OutboxFormat.decodeValue(bytes) else {
            throw ObjDBError(.corruptFile, "The sync record of the subscriptions is damaged", path: path)
        }
        return try items.map { item in
            guard case .map(let entry) = item, case .string(let name)? = entry["name"], case .string(let className)? = entry["class"] else {
                throw ObjDBError(.corruptFile, "A sync subscription record is damaged", path: path)
            }
            var predicate: String?
            var arguments: [SyncValue] = []
            if case .string(let text)? = entry["predicate"] { predicate = text }
            if case .list(let values)? = entry["arguments"] { arguments = values }
            return StoredSyncSubscription(name: name, className: className, predicate: predicate, arguments: arguments)
        }
    }

    /// Stores the subscriptions; when what they select changes (a class or a query added,
    /// changed or removed), the checkpoint is dropped so that the next download is a full one
    /// of what they now select.
    package func setSyncSubscriptions(_ subscriptions: [StoredSyncSubscription]) throws {
        let previous = Set(try syncSubscriptions().map(\.selection))
        try performWrite(gateEntered: false, download: true) {
            try requireWrite("setSyncSubscriptions").storage { txn in
                guard let state = try SyncTables.stateTable(txn, create: true) else { return }
                let value = SyncValue.list(
                    subscriptions.map { s in
                        var entry: [String: SyncValue] = ["name": .string(s.name), "class": .string(s.className)]
                        if let predicate = s.predicate {
                            entry["predicate"] = .string(predicate)
                            entry["arguments"] = .list(s.arguments)
                        }
                        return .map(entry)
                    })
                try FileMeta.put(txn, state, SyncTables.Key.subscriptions, OutboxFormat.encode(value))
                if Set(subscriptions.map(\.selection)) != previous {
                    try FileMeta.delete(txn, state, SyncTables.Key.checkpoint)
                }
            }
        }
    }

    // MARK: Helpers

    /// The operations of `outbox` above `sequence`, ascending, at most `limit`.
    static func operations(in outbox: Table, after sequence: UInt64, limit: Int, txn: Txn) throws -> [SyncOperation] {
        var result: [SyncOperation] = []
        let cursor = try Cursor(txn, outbox)
        var entry = try cursor.seek(atLeast: sequence &+ 1)
        while let current = entry, result.count < limit {
            if current.objectKey > sequence {
                result.append(try OutboxFormat.decode(current.value, sequence: current.objectKey, path: txn.environment.path))
            }
            entry = try cursor.next()
        }
        return result
    }

    /// A sync table that exists in `txn`'s version, or `nil`.
    private func existingSyncTable(_ name: String, flags: TableFlags, _ txn: Txn) throws -> Table? {
        if writeContext != nil { return try txn.openTable(named: name, flags: flags) }
        return try environment.existingTable(named: name, flags: flags)
    }

    static func bytes(of id: UUID) -> [UInt8] {
        withUnsafeBytes(of: id.uuid) { Array($0) }
    }

    static func uuid(_ bytes: UnsafeRawBufferPointer) -> UUID {
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes.prefix(16))) }
        return UUID(uuid: uuid)
    }
}
