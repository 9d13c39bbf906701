import Foundation

/// The outbox of a synced file: every commit that is not a download or a migration appends its
/// operations on the synced classes in the same transaction, whichever process or instance
/// makes it, so that no local change can be committed without being queued for upload.
///
/// A commit's operations are its deletes, then its creates (every property), then its updates
/// (the properties it wrote); a list only appended to travels as its appended elements.
/// A change to an embedded object is an update of its owner's property.
extension Database {
    /// Appends the operations of the transaction to the outbox if the file is synced.
    ///
    /// - Throws: ``ObjDBError/Code/invalidValue`` for a synced string containing U+0000 (which
    ///   PostgreSQL's text cannot hold), naming the class and the property.
    func recordOutbox(_ context: WriteContext, _ txn: Txn) throws {
        guard !context.isMigration, !context.isDownload, context.changes.hasChanges else { return }
        guard let classNames = try SyncTables.syncedClasses(txn, meta: metaTable) else { return }
        var deletes: [SyncOperation] = []
        var creates: [SyncOperation] = []
        var updates: [SyncOperation] = []
        var before: ReadTransaction?
        let owners = try embeddedOwners(context, txn: txn)
        for name in classNames {
            guard let info = classInfo(named: name), !info.isDiscarded else { continue }
            let changes = context.changes.ofClass(info.classID)
            let change = changes?.changeSet ?? ClassChangeSet()
            if !change.deleted.isEmpty {
                if before == nil { before = try ReadTransaction(lease) }
                guard let old = before, let oldInfo = context.savedCatalog.byName[name] else { continue }
                func deleted(_ row: RowView) {
                    guard let pk = syncPrimaryKey(oldInfo, row: row) else { return }
                    deletes.append(SyncOperation(sequence: 0, className: name, primaryKey: pk, kind: .delete))
                }
                if changes?.cleared == true {
                    // Every object of the version before is gone: walk that version's table
                    // rather than every key below the counter.
                    let cursor = try Cursor(old.txn, oldInfo.objectsTable)
                    var entry = try cursor.first()
                    while let current = entry {
                        if let row = RowView(current.value) { deleted(row) }
                        entry = try cursor.next()
                    }
                } else {
                    for key in change.deleted.keys {
                        if let row = try RowReader.parsed(oldInfo, key: key, txn: old.txn) { deleted(row) }
                    }
                }
            }
            for key in change.inserted.keys {
                guard let row = try RowReader.parsed(info, key: key, txn: txn), let pk = syncPrimaryKey(info, row: row) else { continue }
                let values = try syncValues(info, row: row, txn: txn)
                creates.append(SyncOperation(sequence: 0, className: name, primaryKey: pk, kind: .create, values: values))
            }
            var modified = changes?.modifications ?? [:]
            for (key, columns) in owners[info.classID] ?? [:] where !(changes?.isNew(key) ?? false) {
                modified[key, default: ColumnSet()].formUnion(columns)
            }
            for key in modified.keys.sorted() {
                guard let columns = modified[key], let row = try RowReader.parsed(info, key: key, txn: txn),
                    let pk = syncPrimaryKey(info, row: row)
                else { continue }
                var operation = SyncOperation(sequence: 0, className: name, primaryKey: pk, kind: .update)
                var whole: [Int] = []
                for column in columns.columns {
                    let slot = CollectionSlot(classID: info.classID, key: key, column: column)
                    if info.columnKinds[column] == .list, let edits = context.pending.listEdits[slot],
                        case .list(let elements) = try syncValues(info, row: row, columns: [column], txn: txn)[info.stored.properties[column].name],
                        let appended = Self.appendedCount(edits, finalCount: elements.count)
                    {
                        if appended > 0 { operation.listAppends[info.stored.properties[column].name] = Array(elements.suffix(appended)) }
                    } else {
                        whole.append(column)
                    }
                }
                operation.values = try syncValues(info, row: row, columns: whole, txn: txn)
                if !operation.values.isEmpty || !operation.listAppends.isEmpty { updates.append(operation) }
            }
        }
        let operations = deletes + creates + updates
        guard !operations.isEmpty else { return }
        for operation in operations { try Self.refuseNullCharacters(operation, path: path) }
        try appendToOutbox(operations, txn: txn)
    }

    /// Appends `operations` to the outbox under the next sequences.
    func appendToOutbox(_ operations: [SyncOperation], txn: Txn) throws {
        let outbox = try SyncTables.outboxTable(txn, create: true)
        let state = try SyncTables.stateTable(txn, create: true)
        guard let outbox, let state else { return }
        var next = try FileMeta.readUInt64(txn, state, SyncTables.Key.nextSequence) ?? 1
        for var operation in operations {
            operation.sequence = next
            let bytes = OutboxFormat.encode(operation)
            _ = try bytes.withUnsafeBytes { try txn.put(outbox, key: next, value: $0) }
            next += 1
        }
        try FileMeta.writeUInt64(txn, state, SyncTables.Key.nextSequence, next)
    }

    /// The number of elements appended at the end of a list whose edits in the transaction were
    /// `edits` and which now holds `finalCount` elements; `nil` if it was edited otherwise.
    static func appendedCount(_ edits: [ListEdit], finalCount: Int) -> Int? {
        var inserted = 0
        for edit in edits {
            guard case .insert(_, let count) = edit else { return nil }
            inserted += count
        }
        let original = finalCount - inserted
        guard original >= 0 else { return nil }
        var position = original
        for case .insert(let at, let count) in edits {
            guard at == position else { return nil }
            position += count
        }
        return inserted
    }

    /// The objects of synced classes whose embedded objects the transaction wrote, by class id:
    /// object key → the columns that hold them.
    private func embeddedOwners(_ context: WriteContext, txn: Txn) throws -> [UInt32: [UInt64: ColumnSet]] {
        var result: [UInt32: [UInt64: ColumnSet]] = [:]
        let embeddedClasses = catalog.byName.values.filter { $0.stored.isEmbedded && !$0.isDiscarded }
        guard !embeddedClasses.isEmpty else { return result }
        for info in embeddedClasses {
            guard let changes = context.changes.ofClass(info.classID), changes.hasChanges else { continue }
            var pending = changes.modifications.keys.map { (info, $0) }
            pending += changes.changeSet.inserted.keys.map { (info, $0) }
            var seen = Set<[UInt64]>()
            while let (embedded, key) = pending.popLast() {
                guard seen.insert([UInt64(embedded.classID), key]).inserted else { continue }
                for (origin, column) in incomingLinks(embedded) {
                    guard let table = origin.tables.backlinks[column] else { continue }
                    for originKey in try txn.objectKeys(table, under: key) {
                        if origin.stored.isEmbedded {
                            pending.append((origin, originKey))
                        } else {
                            result[origin.classID, default: [:]][originKey, default: ColumnSet()].formUnion(CollectionOfOne(column))
                        }
                    }
                }
            }
        }
        return result
    }

    /// Refuses a string holding U+0000 anywhere in `operation`: PostgreSQL's text cannot hold it.
    private static func refuseNullCharacters(_ operation: SyncOperation, path: String) throws {
        func check(_ value: SyncValue, _ property: String) throws {
            switch value {
            case .string(let s) where s.utf8.contains(0):
                throw ObjDBError(
                    .invalidValue,
                    "\(operation.className).\(property) holds a string with the character U+0000, which a synced class cannot store (PostgreSQL's text cannot hold it)",
                    className: operation.className, path: path)
            case .link(let v): try check(v, property)
            case .list(let items): for item in items { try check(item, property) }
            case .map(let entries), .object(let entries):
                for (key, item) in entries {
                    if key.utf8.contains(0) { try check(.string(key), property) }
                    try check(item, property)
                }
            default: break
            }
        }
        try check(operation.primaryKey, "primary key")
        for (name, value) in operation.values { try check(value, name) }
        for (name, values) in operation.listAppends { for value in values { try check(value, name) } }
    }
}
