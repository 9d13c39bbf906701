import Foundation

/// Applying what the sync service sent: one server checkpoint as one commit, with the file's
/// operations the checkpoint does not include yet re-applied on top (a rebase), so the app sees
/// the server's state plus its own pending writes, and learns who won a conflict.
extension Database {
    /// Applies a checkpoint of the service in one write transaction whose changes do not enter
    /// the outbox:
    ///
    /// 1. the outbox operations up to `includedSequence` leave the outbox (the server state
    ///    includes them);
    /// 2. with `isReset` (a first download, or one after a reset), objects of `classNames` that
    ///    `batches` do not name are deleted;
    /// 3. each row of the batches is written: a deleted object is deleted, another is created or
    ///    updated with every property its batch carries;
    /// 4. the pending operations (above `includedSequence`) on the objects steps 2 and 3 wrote
    ///    are applied again, in order: a create creates or updates, an update of an object that
    ///    no longer exists is dropped (a delete wins), list appends append. Objects the download
    ///    did not write already show their pending operations and are left alone;
    /// 5. `checkpoint` and `includedSequence` are stored.
    ///
    /// Steps 3 and 4 write plain values first and relationships (links, and embedded objects,
    /// which may hold links) last, once every object they may name exists; a link to an object
    /// the file does not hold is left out. Observers see one commit by another instance.
    package func applyDownload(
        _ batches: [SyncObjectBatch], isReset: Bool, classNames: [String], checkpoint: String, includedSequence: UInt64
    ) throws {
        try performWrite(gateEntered: false, download: true) {
            let context = try requireWrite("applyDownload")
            let pending: [SyncOperation] = try context.storage { txn in
                guard let outbox = try SyncTables.outboxTable(txn, create: true) else { return [] }
                let all = try Self.operations(in: outbox, after: 0, limit: .max, txn: txn)
                for operation in all where operation.sequence <= includedSequence {
                    _ = try txn.delete(outbox, key: operation.sequence)
                }
                return all.filter { $0.sequence > includedSequence }
            }
            var written = Set<SyncObjectReference>()
            if isReset { written = try deleteObjectsMissing(from: batches, classNames: classNames, context) }
            var relationshipsLater: [(ClassInfo, SyncValue, [(column: Int, value: SyncValue)])] = []
            for batch in batches {
                guard let info = classInfo(named: batch.className), !info.isDiscarded else { continue }
                // Once per batch: each property's column, and whether it holds relationships.
                let columns = batch.propertyNames.enumerated().compactMap { index, name -> (index: Int, column: Int, isRelationship: Bool)? in
                    guard let column = info.stored.column(of: name) else { return nil }
                    return (index, column, targetInfo(info, column: column) != nil)
                }
                for row in batch.rows {
                    // Only a rebase reads which objects were written.
                    if !pending.isEmpty { written.insert(SyncObjectReference(className: batch.className, primaryKey: row.primaryKey)) }
                    guard let values = row.values else {
                        try deleteObject(info, primaryKey: row.primaryKey, context)
                        continue
                    }
                    guard values.count == batch.propertyNames.count else {
                        throw ObjDBError(
                            .sync, "A download row of '\(batch.className)' holds \(values.count) values for \(batch.propertyNames.count) properties",
                            className: batch.className, path: path)
                    }
                    var plain: [(column: Int, value: SyncValue)] = []
                    var related: [(column: Int, value: SyncValue)] = []
                    plain.reserveCapacity(columns.count)
                    for c in columns {
                        if c.isRelationship { related.append((c.column, values[c.index])) } else { plain.append((c.column, values[c.index])) }
                    }
                    try upsert(info, primaryKey: row.primaryKey, plain, context)
                    if !related.isEmpty { relationshipsLater.append((info, row.primaryKey, related)) }
                }
            }
            for (info, primaryKey, relationships) in relationshipsLater {
                try upsert(info, primaryKey: primaryKey, relationships, context)
            }
            let rebased = pending.filter { written.contains(SyncObjectReference(className: $0.className, primaryKey: $0.primaryKey)) }
            for operation in rebased { try reapply(operation, relationships: false, context) }
            for operation in rebased { try reapply(operation, relationships: true, context) }
            try context.storage { txn in
                guard let state = try SyncTables.stateTable(txn, create: true) else { return }
                try FileMeta.put(txn, state, SyncTables.Key.checkpoint, Array(checkpoint.utf8))
                try FileMeta.writeUInt64(txn, state, SyncTables.Key.includedSequence, includedSequence)
            }
        }
    }

    /// ``applyDownload(_:isReset:classNames:checkpoint:includedSequence:)`` for states one by one.
    package func applyDownload(
        _ states: [SyncObjectState], isReset: Bool, classNames: [String], checkpoint: String, includedSequence: UInt64
    ) throws {
        try applyDownload(
            SyncObjectBatch.batches(states), isReset: isReset, classNames: classNames, checkpoint: checkpoint, includedSequence: includedSequence)
    }

    // MARK: Steps

    /// Deletes the objects of `classNames` whose primary keys `batches` does not hold; returns them.
    private func deleteObjectsMissing(
        from batches: [SyncObjectBatch], classNames: [String], _ context: WriteContext
    ) throws -> Set<SyncObjectReference> {
        var deleted = Set<SyncObjectReference>()
        for name in classNames {
            guard let info = classInfo(named: name), !info.isDiscarded else { continue }
            // A class the file holds no object of (a first download) has none to delete.
            guard try context.storage({ txn in try Cursor(txn, info.objectsTable).first() != nil }) else { continue }
            var keep = Set<SyncValue>()
            for batch in batches where batch.className == name {
                keep.formUnion(batch.rows.lazy.filter { $0.values != nil }.map(\.primaryKey))
            }
            var doomed: [UInt64] = []
            try context.storage { txn in
                let cursor = try Cursor(txn, info.objectsTable)
                var entry = try cursor.first()
                while let current = entry {
                    if let row = RowView(current.value), let pk = syncPrimaryKey(info, row: row), !keep.contains(pk) {
                        doomed.append(current.objectKey)
                        deleted.insert(SyncObjectReference(className: name, primaryKey: pk))
                    }
                    entry = try cursor.next()
                }
            }
            for key in doomed {
                try flushPendingWrites(context)
                try deleting(context) { try deleteObject(info, key: key, context) }
            }
        }
        return deleted
    }

    /// Applies an outbox operation again over the server's state: its plain values, or (in the
    /// second pass) its relationships.
    private func reapply(_ operation: SyncOperation, relationships: Bool, _ context: WriteContext) throws {
        guard let info = classInfo(named: operation.className), !info.isDiscarded else { return }
        let (plain, related) = split(operation.values, info)
        switch operation.kind {
        case .delete:
            if !relationships { try deleteObject(info, primaryKey: operation.primaryKey, context) }
            return
        case .create where !relationships:
            try upsert(info, primaryKey: operation.primaryKey, plain, context)
        case .create, .update:
            guard try existingKey(info, primaryKey: operation.primaryKey, context) != nil else { return }
            let values = relationships ? related : plain
            if !values.isEmpty { try upsert(info, primaryKey: operation.primaryKey, values, context) }
        }
        let appends = operation.listAppends.filter { name, _ in
            guard let column = info.stored.column(of: name) else { return false }
            return (targetInfo(info, column: column) != nil) == relationships
        }
        guard !appends.isEmpty, let key = try existingKey(info, primaryKey: operation.primaryKey, context),
            let row = rows.fetch(info, key: key)
        else { return }
        var appended: [String: SyncValue] = [:]
        for (name, elements) in appends {
            guard let column = info.stored.column(of: name) else { continue }
            let current = try context.storage { txn in try syncValues(info, row: row, columns: [column], txn: txn)[name] }
            if case .list(let existing)? = current { appended[name] = .list(existing + elements) } else { appended[name] = .list(elements) }
        }
        try upsert(info, primaryKey: operation.primaryKey, appended, context)
    }

    /// `values` split into plain values and relationships (links, embedded objects).
    private func split(_ values: [String: SyncValue], _ info: ClassInfo) -> (plain: [String: SyncValue], relationships: [String: SyncValue]) {
        var plain: [String: SyncValue] = [:]
        var relationships: [String: SyncValue] = [:]
        for (name, value) in values {
            guard let column = info.stored.column(of: name) else { continue }
            if targetInfo(info, column: column) != nil { relationships[name] = value } else { plain[name] = value }
        }
        return (plain, relationships)
    }

    /// Creates the object of `info` with `primaryKey`, or updates it, with `values` by name
    /// (links to objects the file does not hold left out).
    private func upsert(_ info: ClassInfo, primaryKey: SyncValue, _ values: [String: SyncValue], _ context: WriteContext) throws {
        let byColumn = values.compactMap { name, value in info.stored.column(of: name).map { (column: $0, value: value) } }
        try upsert(info, primaryKey: primaryKey, byColumn, context)
    }

    /// Creates the object of `info` with `primaryKey`, or updates it, with `values` by column
    /// (links to objects the file does not hold left out). Columns not given keep their values,
    /// or for a new object take their declared defaults.
    private func upsert(_ info: ClassInfo, primaryKey: SyncValue, _ values: [(column: Int, value: SyncValue)], _ context: WriteContext) throws {
        guard let keyColumn = info.primaryKeyColumn else { return }
        try flushPendingCollections(context)
        if FastPaths.enabled.contains(.typedDownloads), let typed = typedColumns(info, keyColumn: keyColumn, primaryKey, values) {
            let found = try objectKey(info, primaryKey: typed.encoded[keyColumn], context)
            let existing = found.flatMap { rows.fetch(info, key: $0) == nil ? nil : $0 }
            _ = try writeEncoded(info, typed.encoded, isGiven: typed.isGiven, existing: existing, update: .modified, instanceDefaults: false, context)
            return
        }
        var given: [(column: Int, value: Any?)] = [(keyColumn, primaryKey.anyValue)]
        given.reserveCapacity(values.count + 1)
        for (column, value) in values where column != keyColumn && info.stored.properties[column].type != .linkingObjects {
            given.append((column, try resolved(value, info, column: column, context)))
        }
        given.sort { $0.column < $1.column }
        // No savepoint: a download is applied whole or not at all (an error rolls back the
        // transaction), so undo steps per object would only copy rows.
        _ = try writeDynamic(
            info, columns: given, update: .modified, requirePrimaryKey: true, operation: "applyDownload", instanceDefaults: false, context)
    }

    /// The columns of an object encoded by the typed fast path (see `ClassInfo+SyncValues.swift`),
    /// or `nil` if one of them is not a plain value it encodes.
    private func typedColumns(
        _ info: ClassInfo, keyColumn: Int, _ primaryKey: SyncValue, _ values: [(column: Int, value: SyncValue)]
    ) -> (encoded: [[UInt8]?], isGiven: [Bool])? {
        var bytes = _ObjDBBytes()
        var encoded = [[UInt8]?](repeating: nil, count: info.columnCount)
        var isGiven = [Bool](repeating: false, count: info.columnCount)
        guard let key = info.typedSyncBytes(primaryKey, column: keyColumn, into: &bytes) else { return nil }
        encoded[keyColumn] = key
        isGiven[keyColumn] = true
        for (column, value) in values where column != keyColumn {
            guard let typed = info.typedSyncBytes(value, column: column, into: &bytes) else { return nil }
            encoded[column] = typed
            isGiven[column] = true
        }
        return (encoded, isGiven)
    }

    /// `value` of column `column` of `info` as ``createDynamicObject(_:value:update:)`` takes
    /// it, with links to objects the file does not hold left out (a to-one link to one becomes
    /// `nil`), inside embedded objects too.
    private func resolved(_ value: SyncValue, _ info: ClassInfo, column: Int, _ context: WriteContext) throws -> Any? {
        guard let target = targetInfo(info, column: column) else { return value.anyValue }
        func element(_ element: SyncValue) throws -> Any?? {
            if target.stored.isEmbedded {
                guard case .object(let values) = element else { return .some(nil) }
                var given: [String: Any?] = [:]
                for (name, value) in values {
                    guard let inner = target.stored.column(of: name), target.stored.properties[inner].type != .linkingObjects else { continue }
                    given[name] = try resolved(value, target, column: inner, context)
                }
                return .some(given)
            }
            guard case .link(let key) = element, try existingKey(target, primaryKey: key, context) != nil else { return nil }
            return .some(key.anyValue)
        }
        switch (info.columnKinds[column], value) {
        case (_, .null): return nil
        case (.list, .list(let elements)), (.set, .list(let elements)):
            return try elements.compactMap(element)
        case (.map, .map(let entries)):
            var kept: [String: Any?] = [:]
            for (key, entry) in entries { if let item = try element(entry) { kept[key] = item } }
            return kept
        default:
            return try element(value) ?? nil
        }
    }

    /// Deletes the object of `info` with `primaryKey`, if there is one.
    private func deleteObject(_ info: ClassInfo, primaryKey: SyncValue, _ context: WriteContext) throws {
        guard let key = try existingKey(info, primaryKey: primaryKey, context) else { return }
        try flushPendingWrites(context)
        try deleting(context) { try deleteObject(info, key: key, context) }
    }

    /// The key of the object of `info` with `primaryKey`, if one exists.
    private func existingKey(_ info: ClassInfo, primaryKey: SyncValue, _ context: WriteContext) throws -> UInt64? {
        guard let keyColumn = info.primaryKeyColumn else { return nil }
        let bytes: [UInt8]?
        do {
            bytes = try info.encode(primaryKey.anyValue, column: keyColumn)
        } catch {
            return nil
        }
        return try objectKey(info, primaryKey: bytes, context)
    }
}

/// An object named by class and primary key, as sync names it.
struct SyncObjectReference: Hashable {
    let className: String
    let primaryKey: SyncValue
}

extension SyncValue {
    /// The value as ``Database/createDynamicObject(_:value:update:)`` takes it: a link as its
    /// primary key, an embedded object as a dictionary of its properties.
    var anyValue: Any? {
        switch self {
        case .null: nil
        case .bool(let v): v
        case .int(let v): Int(v)
        case .float(let v): v
        case .double(let v): v
        case .string(let v): v
        case .data(let v): v
        case .date(let v): v
        case .decimal(let v): v
        case .uuid(let v): v
        case .objectId(let v): v
        case .link(let v): v.anyValue
        case .list(let v): v.map(\.anyValue)
        case .map(let v), .object(let v): v.mapValues(\.anyValue)
        }
    }
}
