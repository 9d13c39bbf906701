/// Thrown when an insert finds its primary key taken, before anything was written.
struct PrimaryKeyTaken: Error {}

/// Row writes: a new object's row encoded, rows inserted, replaced and deleted, with their undo
/// steps, change records, key and backlink entries.
extension Database {
    /// Encodes the unmanaged values of `object` into `row`, in column order; with `only`, that
    /// column alone, the others null (to read a primary key before the objects the row links
    /// to have keys).
    func encodeUnmanaged(_ object: ObjectBase, _ info: ClassInfo, into row: RowBuilder, only: Int? = nil) {
        row.reset()
        let base = UnsafeRawPointer(object._objdbBase)
        info.encodePlan.withUnsafeBufferPointer { plan in
            for column in plan.indices {
                if let only, column != only {
                    row.append { _ in false }
                } else if let valueType = plan[column].valueType {
                    let offset = plan[column].valueOffset
                    row.append { valueType._objdbEncodeField(at: base + offset, into: &$0) }
                } else if let relationship = plan[column].relationship {
                    // Links and collections: every object they hold is managed by now.
                    let offset = plan[column].valueOffset
                    row.append { relationship.encodeUnmanaged(at: base + offset, into: &$0) }
                } else {
                    appendDefault(info, column: column, to: row)
                }
            }
        }
    }

    /// Appends a column's declared default.
    func appendDefault(_ info: ClassInfo, column: Int, to row: RowBuilder) {
        row.appendDefault(info.encodedDefault(column: column))
    }

    /// Inserts `context.scratch.row` as a new object and returns its key and stored row.
    ///
    /// With `uniquePrimaryKey`, the primary-key entry is written first and only if the key is
    /// free; otherwise ``PrimaryKeyTaken`` is thrown before anything else is written.
    func insertRow(
        _ info: ClassInfo, _ context: WriteContext, uniquePrimaryKey: Bool = false, key preallocated: UInt64? = nil
    ) throws -> (key: UInt64, row: RowView) {
        context.changes.addsOrChanges = true
        let result = try context.storage { txn -> (UInt64, RowView) in
            let changes = try classChanges(info, context, txn)
            let key = try preallocated ?? changes.allocateKey()
            if info.hasMaintainedColumns { try fillMaintainedColumns(info, changes, context, txn) }
            try updateKeys(
                info, key: key, old: nil, new: context.scratch.row, columns: nil, context, txn: txn,
                uniquePrimaryKey: uniquePrimaryKey)
            if info.hasLinks { _ = try updateBacklinks(info, key: key, old: nil, new: context.scratch.row, columns: nil, context, txn: txn) }
            // Reserve the row last: the returned pointer is valid until the next write.
            let size = context.scratch.row.encodedSize
            let table = info.tables.objects
            // Keys are handed out in ascending order, so a new row goes after the last one. A key
            // below it (one handed out before a later row was written; no path does that today)
            // is refused by the append and takes the search.
            let space = try context.transaction.withInsertCursor(table, txn) { cursor in
                try cursor.storeRow(key: key, count: size, flags: [.noOverwrite, .append]) { context.scratch.row.write(into: $0) }
                    ?? cursor.storeRow(key: key, count: size, flags: .noOverwrite) { context.scratch.row.write(into: $0) }
            }
            guard let space else {
                throw ObjDBError(
                    .corruptFile, "Object key \(key) of class '\(info.name)' is already in use; the file's key counter is damaged",
                    className: info.name, key: "\(key)", path: path)
            }
            context.undo.record(.inserted(info, key: key))
            return (key, RowView(UnsafeRawBufferPointer(space)) ?? .damaged)
        }
        generation &+= 1
        return result
    }

    /// Inserts the encoded row `new` under `key`, a key the class handed out before (undoing a
    /// delete).
    func reinsertRow(_ info: ClassInfo, key: UInt64, encoded new: RowView, _ context: WriteContext) throws {
        context.changes.addsOrChanges = true
        try context.storage { txn in
            try updateKeys(info, key: key, old: nil, new: new, columns: nil, context, txn: txn)
            if info.hasLinks { _ = try updateBacklinks(info, key: key, old: nil, new: new, columns: nil, context, txn: txn) }
            guard try txn.storeRow(info.objectsTable, key: key, count: new.length, flags: .noOverwrite, { $0.copyMemory(from: new.bytes) }) != nil
            else {
                throw ObjDBError(.storage, "Could not restore the row of '\(info.name)' \(key)", className: info.name, key: "\(key)", path: path)
            }
            try classChanges(info, context, txn).restored(key, columnCount: info.columnCount)
        }
        generation &+= 1
    }

    /// Replaces the row of `key` (currently `old`) with `context.scratch.row`, updating the
    /// indexes of `changed` columns. Returns the stored row.
    func replaceRow(_ info: ClassInfo, key: UInt64, old: RowView, changed: [Int], _ context: WriteContext) throws -> RowView {
        context.changes.addsOrChanges = true
        let row = try context.storage { txn -> RowView in
            let orphans = try prepareReplacement(info, key: key, old: old, new: context.scratch.row, changed: changed, context, txn)
            return try storeReplacement(info, key: key, size: context.scratch.row.encodedSize, orphans: orphans, context, txn) {
                context.scratch.row.write(into: $0)
            }
        }
        generation &+= 1
        return row
    }

    /// Replaces the row of `key` (currently `old`) with the encoded row `new`, updating the indexes
    /// of `changed` columns. Returns the stored row.
    func replaceRow(_ info: ClassInfo, key: UInt64, old: RowView, encoded new: RowView, changed: [Int], _ context: WriteContext) throws -> RowView {
        context.changes.addsOrChanges = true
        let row = try context.storage { txn -> RowView in
            let orphans = try prepareReplacement(info, key: key, old: old, new: new, changed: changed, context, txn)
            return try storeReplacement(info, key: key, size: new.length, orphans: orphans, context, txn) {
                $0.copyMemory(from: new.bytes)
            }
        }
        generation &+= 1
        return row
    }

    /// What replacing a row changes besides the row: the undo step, the change record, index and
    /// backlink entries. Returns the embedded objects the new row lets go of.
    @inline(__always)
    private func prepareReplacement<New: ColumnSource>(
        _ info: ClassInfo, key: UInt64, old: RowView, new: New, changed: [Int],
        _ context: WriteContext, _ txn: Txn
    ) throws -> [(ClassInfo, UInt64)] {
        context.undo.record(.replaced(info, key: key, row: Array(old.bytes)))
        let changes = try classChanges(info, context, txn)
        changes.modified(key, columns: changed)
        if !context.pending.writesBackCollections {
            // A collection written another way than by its pending copy: its recorded edits no
            // longer describe it, and its notifications compare versions.
            for column in changed where info.columnKinds[column] != .value && info.columnKinds[column] != .link {
                context.pending.dropListEdits(CollectionSlot(classID: info.classID, key: key, column: column))
            }
        }
        // Everything `old` says is read before the first write.
        let links = backlinkChanges(info, old: old, new: new, columns: changed)
        if let refusal = links.refusal { throw refusal }
        try updateKeys(info, key: key, old: old, new: new, columns: changed, context, txn: txn)
        return try apply(links, key: key, context, txn: txn)
    }

    /// Stores a replacement row of `size` bytes through `write` (via an iterator's cursor on the
    /// row if there is one), then deletes `orphans`. Returns the stored row.
    @inline(__always)
    private func storeReplacement(
        _ info: ClassInfo, key: UInt64, size: Int, orphans: [(ClassInfo, UInt64)], _ context: WriteContext, _ txn: Txn,
        write: (UnsafeMutableRawBufferPointer) -> Void
    ) throws -> RowView {
        guard let space = try context.transaction.storeRowThroughCursor(info.objectsTable, key: key, count: size, write)
            ?? txn.storeRow(info.objectsTable, key: key, count: size, write)
        else {
            throw ObjDBError(.storage, "Could not overwrite the row of '\(info.name)' \(key)", path: path)
        }
        return try rowAfterDeleting(orphans, info, key: key, written: space, context, txn)
    }

    /// The row just written to `space`, after deleting embedded objects its write let go of
    /// (deleting writes, which moves rows: the row is then looked up again).
    private func rowAfterDeleting(
        _ orphans: [(ClassInfo, UInt64)], _ info: ClassInfo, key: UInt64, written space: UnsafeMutableRawBufferPointer,
        _ context: WriteContext, _ txn: Txn
    ) throws -> RowView {
        guard !orphans.isEmpty else { return RowView(UnsafeRawBufferPointer(space)) ?? .damaged }
        try deleteOrphans(orphans, context)
        guard let bytes = try txn.get(info.objectsTable, key: key) else { return .damaged }
        return RowView(bytes) ?? .damaged
    }

    /// Deletes an object's row, its primary-key, index and outgoing backlink entries, and the
    /// embedded objects it owns. Links *to* it are the caller's business (``deleteObject``).
    func deleteRow(_ info: ClassInfo, key: UInt64, _ context: WriteContext) throws {
        let existed = try context.storage { txn -> Bool in
            guard let bytes = try txn.get(info.tables.objects, key: key) else { return false }
            let old = RowView(bytes) ?? .damaged
            context.undo.record(.deleted(info, key: key, row: Array(bytes)))
            // Everything `old` says is read before the first write.
            let links = backlinkChanges(info, old: old, new: RowView?.none, columns: nil)
            try updateKeys(info, key: key, old: old, new: RowView?.none, columns: nil, context, txn: txn)
            let orphans = try apply(links, key: key, context, txn: txn)
            try txn.delete(info.tables.objects, key: key)
            try classChanges(info, context, txn).deleted(key)
            try deleteOrphans(orphans, context)
            return true
        }
        if existed { generation &+= 1 }
    }

    /// Deletes every object of a class that nothing links to and that links nowhere, walking its
    /// table with one cursor (no B-tree search per object).
    func deleteAllRows(_ info: ClassInfo, _ context: WriteContext) throws {
        try context.storage { txn in
            let changes = try classChanges(info, context, txn)
            let cursor = try Cursor(txn, info.objectsTable)
            var entry = try cursor.first()
            while let current = entry {
                let key = current.objectKey
                context.undo.record(.deleted(info, key: key, row: Array(current.value)))
                try updateKeys(info, key: key, old: RowView(current.value) ?? .damaged, new: RowView?.none, columns: nil, context, txn: txn)
                try cursor.deleteCurrent()
                changes.deleted(key)
                entry = try cursor.next()
            }
        }
        generation &+= 1
    }
}
