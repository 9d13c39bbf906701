/// The primary-key and index entries of rows, kept in step with every row write.
extension Database {
    /// Encodes the primary-key or index key of a column into `buffer` (the write context's key
    /// buffer); returns its range there. A column that does not decode is keyed as `nil`.
    @inline(__always)
    func encodeKey(_ read: ColumnRead, kind: ScalarKind, into buffer: inout ScratchBuffer) -> Range<Int> {
        let start = buffer.count
        if !KeyEncoding.append(read, kind: kind, to: &buffer) {
            buffer.truncate(to: start)
            buffer.append(KeyEncoding.nullTag)
        }
        return start..<buffer.count
    }

    /// Removes the primary-key and index entries of `old` and adds those of `new` (either may be
    /// absent), for `columns` or every keyed column. All keys are encoded before anything is
    /// written, because a write invalidates row pointers into the map.
    ///
    /// Full-text indexes are updated last: the texts are read first, and the postings written
    /// once the primary-key entry was accepted.
    func updateKeys<New: ColumnSource>(
        _ info: ClassInfo, key: UInt64, old: RowView?, new: New?, columns: [Int]?,
        _ context: WriteContext, txn: Txn, uniquePrimaryKey: Bool = false
    ) throws {
        if info.fullTextSlots.isEmpty {
            try updateIndexKeys(info, key: key, old: old, new: new, columns: columns, context, txn: txn, uniquePrimaryKey: uniquePrimaryKey)
            return
        }
        let fullText = fullTextChange(info, old: old, new: new, columns: columns)
        try updateIndexKeys(info, key: key, old: old, new: new, columns: columns, context, txn: txn, uniquePrimaryKey: uniquePrimaryKey)
        if !fullText.columns.isEmpty { try apply(fullText, key: key, context, txn) }
    }

    /// ``updateKeys(_:key:old:new:columns:_:txn:uniquePrimaryKey:)`` for the primary-key and
    /// index tables.
    private func updateIndexKeys<New: ColumnSource>(
        _ info: ClassInfo, key: UInt64, old: RowView?, new: New?, columns: [Int]?,
        _ context: WriteContext, txn: Txn, uniquePrimaryKey: Bool
    ) throws {
        // The parts are reached through the context each time: a local of one would be retained.
        context.scratch.keyUpdates.reset()
        // The buffer is taken once: each access through the context would retain it.
        var buffer = context.scratch.keyUpdates.bytes
        // Unique values are looked at only in classes that have them.
        let uniqueConstraints = info.hasUniqueConstraints
        var checksUnique = false
        // The primary key's entry comes first: its put refuses a taken key before anything else
        // is written.
        for slot in info.keySlots {
            let column = slot.column
            if let columns, !columns.contains(column) { continue }
            var oldRange: Range<Int>?
            var newRange: Range<Int>?
            if let old { oldRange = encodeKey(old.column(column), kind: slot.kind, into: &buffer) }
            if let new { newRange = encodeKey(new.column(column), kind: slot.kind, into: &buffer) }
            if let oldRange, let newRange, sameBytes(buffer.bytes(oldRange), buffer.bytes(newRange)) { continue }
            if slot.isPrimary && context.isMigration {
                context.pending.primaryKeysToRebuild.insert(info.classID)
                continue
            }
            if let oldRange { context.scratch.keyUpdates.append(.init(table: slot.table, range: oldRange, add: false, isPrimary: slot.isPrimary)) }
            if let newRange {
                var unique: Int?
                if uniqueConstraints, slot.isUnique, let new, case .value = new.column(column) {
                    unique = column
                    checksUnique = true
                }
                context.scratch.keyUpdates.append(.init(table: slot.table, range: newRange, add: true, isPrimary: slot.isPrimary, uniqueColumn: unique))
            }
        }
        if !info.compoundKeys.isEmpty, let new { try checkCompoundKeys(info, key: key, new: new, columns: columns, context, txn) }
        guard context.scratch.keyUpdates.count > 0 else { return }
        // Unique values are checked before anything is written: a refused write leaves the
        // tables as they were (the savepoint of a failed add restores rows, not entries).
        if checksUnique {
            for entry in context.scratch.keyUpdates.entries {
                guard let column = entry.uniqueColumn, let new else { continue }
                if let holder = try objectHolding(buffer.bytes(entry.range), in: entry.table, other: key, full: new.column(column), info, column: column, txn) {
                    throw uniqueViolation(info, column: column, holder: holder, txn)
                }
            }
        }
        var objectKey = key
        try withUnsafeBytes(of: &objectKey) { value in
            // Entries logged for later must be in the tables before this object's are deleted:
            // one of them may be the entry to delete.
            if context.pending.index.mayHoldEntries(of: key), context.scratch.keyUpdates.entries.contains(where: { !$0.add }) {
                try flushPendingIndexEntries(context, txn)
            }
            for entry in context.scratch.keyUpdates.entries where !entry.add {
                // Through the table's insert cursor too: the put of the new value that usually
                // follows then starts from where this entry was.
                _ = try context.transaction.withInsertCursor(entry.table, txn) { try $0.delete(key: buffer.bytes(entry.range), value: value) }
            }
            for entry in context.scratch.keyUpdates.entries where entry.add {
                if entry.uniqueColumn != nil {
                    // A unique value (checked above): written at once, even in an encrypted file
                    // (not left waiting, see `DeferredKeyPuts`): the next add's check reads it.
                    _ = try context.transaction.withInsertCursor(entry.table, txn) {
                        try $0.put(key: buffer.bytes(entry.range), value: value, mayWait: false)
                    }
                    continue
                }
                // Secondary-index entries are written later, grouped (see `PendingIndexEntries`).
                if !entry.isPrimary {
                    if context.pending.groupsIndexWrites {
                        context.pending.index.add(entry.table, key: buffer.bytes(entry.range), objectKey: key)
                    } else {
                        _ = try context.transaction.withInsertCursor(entry.table, txn) { try $0.put(key: buffer.bytes(entry.range), value: value) }
                    }
                    continue
                }
                // The primary-key entry, first; `.noOverwrite` refuses a taken key. Through the
                // table's insert cursor: primary keys that grow need no search from the root. In
                // an encrypted file a new object's entry may wait (`DeferredKeyPuts`); an
                // upsert's is written at once, as the next upsert looks its key up.
                let stored = try context.transaction.withInsertCursor(entry.table, txn) {
                    try $0.put(key: buffer.bytes(entry.range), value: value, flags: uniquePrimaryKey ? .noOverwrite : [], mayWait: uniquePrimaryKey)
                }
                if !stored && uniquePrimaryKey { throw PrimaryKeyTaken() }
            }
        }
    }

    /// Writes the secondary-index entries logged in `context` (see ``PendingIndexEntries``),
    /// each key's object keys in one `MDB_MULTIPLE` put through the table's insert cursor.
    func flushPendingIndexEntries(_ context: WriteContext, _ txn: Txn) throws {
        let index = context.pending.index
        guard !index.isEmpty else { return }
        try index.forEachGroup { table, key, objectKeys in
            try context.transaction.withInsertCursor(table, txn) { try $0.putAll(key: key, objectKeys: objectKeys) }
        }
        index.removeAll()
    }
}
