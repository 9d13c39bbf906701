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
    ///    `states` does not name are deleted;
    /// 3. each state is written: a deleted object is deleted, another is created or updated
    ///    with every property it carries (links last, once every object of the download exists;
    ///    a link to an object the file does not hold is left out);
    /// 4. the operations above `includedSequence` are applied again, in order: a create
    ///    creates or updates, an update of an object that no longer exists is dropped (a delete
    ///    wins), list appends append;
    /// 5. `checkpoint` and `includedSequence` are stored.
    ///
    /// Observers see one commit by another instance.
    package func applyDownload(
        _ states: [SyncObjectState], isReset: Bool, classNames: [String], checkpoint: String, includedSequence: UInt64
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
            if isReset { try deleteObjectsMissing(from: states, classNames: classNames, context) }
            var linksLater: [(SyncObjectState, [String: SyncValue])] = []
            for state in states {
                guard let info = classInfo(named: state.className), !info.isDiscarded else { continue }
                guard let values = state.values else {
                    try deleteObject(info, primaryKey: state.primaryKey, context)
                    continue
                }
                var direct: [String: SyncValue] = [:]
                var links: [String: SyncValue] = [:]
                for (name, value) in values {
                    guard let column = info.stored.column(of: name) else { continue }
                    if Self.isLinkToObjects(info, column: column, targetInfo(info, column: column)) {
                        links[name] = value
                    } else {
                        direct[name] = value
                    }
                }
                try upsert(info, primaryKey: state.primaryKey, direct, context)
                if !links.isEmpty { linksLater.append((state, links)) }
            }
            for (state, links) in linksLater {
                guard let info = classInfo(named: state.className) else { continue }
                try upsert(info, primaryKey: state.primaryKey, links, context)
            }
            for operation in pending { try reapply(operation, context) }
            try context.storage { txn in
                guard let state = try SyncTables.stateTable(txn, create: true) else { return }
                try FileMeta.put(txn, state, SyncTables.Key.checkpoint, Array(checkpoint.utf8))
                try FileMeta.writeUInt64(txn, state, SyncTables.Key.includedSequence, includedSequence)
            }
        }
    }

    // MARK: Steps

    /// Deletes the objects of `classNames` whose primary keys `states` does not hold.
    private func deleteObjectsMissing(from states: [SyncObjectState], classNames: [String], _ context: WriteContext) throws {
        var kept: [String: Set<SyncValue>] = [:]
        for state in states where state.values != nil { kept[state.className, default: []].insert(state.primaryKey) }
        for name in classNames {
            guard let info = classInfo(named: name), !info.isDiscarded else { continue }
            let keep = kept[name] ?? []
            var doomed: [UInt64] = []
            try context.storage { txn in
                let cursor = try Cursor(txn, info.objectsTable)
                var entry = try cursor.first()
                while let current = entry {
                    if let row = RowView(current.value), let pk = syncPrimaryKey(info, row: row), !keep.contains(pk) {
                        doomed.append(current.objectKey)
                    }
                    entry = try cursor.next()
                }
            }
            for key in doomed { try deleteObject(info, key: key, context) }
        }
    }

    /// Applies an outbox operation again over the server's state.
    private func reapply(_ operation: SyncOperation, _ context: WriteContext) throws {
        guard let info = classInfo(named: operation.className), !info.isDiscarded else { return }
        switch operation.kind {
        case .delete:
            try deleteObject(info, primaryKey: operation.primaryKey, context)
        case .create:
            try upsert(info, primaryKey: operation.primaryKey, operation.values, context)
        case .update:
            guard try existingKey(info, primaryKey: operation.primaryKey, context) != nil else { return }
            try upsert(info, primaryKey: operation.primaryKey, operation.values, context)
        }
        guard !operation.listAppends.isEmpty, let key = try existingKey(info, primaryKey: operation.primaryKey, context),
            let row = rows.fetch(info, key: key)
        else { return }
        var appended: [String: SyncValue] = [:]
        for (name, elements) in operation.listAppends {
            guard let column = info.stored.column(of: name) else { continue }
            let current = try context.storage { txn in try syncValues(info, row: row, columns: [column], txn: txn)[name] }
            if case .list(let existing)? = current { appended[name] = .list(existing + elements) } else { appended[name] = .list(elements) }
        }
        try upsert(info, primaryKey: operation.primaryKey, appended, context)
    }

    /// Creates the object of `info` with `primaryKey`, or updates it, with `values` (links to
    /// objects the file does not hold left out).
    private func upsert(_ info: ClassInfo, primaryKey: SyncValue, _ values: [String: SyncValue], _ context: WriteContext) throws {
        guard let keyColumn = info.primaryKeyColumn else { return }
        var given: [String: Any?] = [info.stored.properties[keyColumn].name: primaryKey.anyValue]
        for (name, value) in values {
            guard let column = info.stored.column(of: name), column != keyColumn,
                info.stored.properties[column].type != .linkingObjects
            else { continue }
            given[name] = try resolvedLinks(value, info, column: column, context)
        }
        try flushPendingCollections(context)
        _ = try withSavepoint(context) {
            try writeDynamic(info, given, update: .modified, requirePrimaryKey: true, operation: "applyDownload", context)
        }
    }

    /// `value` as ``createDynamicObject(_:value:update:)`` takes it, with links to objects the
    /// file does not hold left out (a to-one link to one becomes `nil`).
    private func resolvedLinks(_ value: SyncValue, _ info: ClassInfo, column: Int, _ context: WriteContext) throws -> Any? {
        guard let target = targetInfo(info, column: column), !target.stored.isEmbedded else { return value.anyValue }
        func exists(_ element: SyncValue) throws -> Bool {
            guard case .link(let key) = element else { return false }
            return try existingKey(target, primaryKey: key, context) != nil
        }
        switch value {
        case .link: return try exists(value) ? value.anyValue : nil
        case .list(let elements): return try elements.filter(exists).map(\.anyValue)
        case .map(let entries):
            var kept: [String: Any?] = [:]
            for (key, element) in entries where try exists(element) { kept[key] = element.anyValue }
            return kept
        default: return nil
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

    /// Whether column `column` of `info` links to objects of a class that is not embedded.
    private static func isLinkToObjects(_ info: ClassInfo, column: Int, _ target: ClassInfo?) -> Bool {
        info.stored.properties[column].type == .object && !(target?.stored.isEmbedded ?? true)
    }
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
