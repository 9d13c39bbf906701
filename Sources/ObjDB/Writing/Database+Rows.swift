/// Thrown when an insert finds its primary key taken, before anything was written.
struct PrimaryKeyTaken: Error {}

/// Row-level operations: everything that reads or writes the tables of a class.
extension Database {
    // MARK: Reading

    /// The row of an object in the current version, or `nil` if it does not exist.
    func fetchRow(_ info: ClassInfo, key: UInt64) -> RowView? {
        guard !info.isDiscarded, let txn = readableTxn() else { return nil }
        return fetchRow(info, key: key, txn: txn)
    }

    /// ``fetchRow(_:key:)`` in `txn`, the database's readable transaction, for a class known not
    /// to be discarded. A row that cannot be read, does not parse or fails its checksum is
    /// reported (``reportReadFailure(_:)``) and read as it is, or as a row of defaults.
    @inline(__always)
    func fetchRow(_ info: ClassInfo, key: UInt64, txn: Txn) -> RowView? {
        let found: UnsafeRawBufferPointer?
        do {
            found = try txn.get(info.objectsTable, key: key)
        } catch {
            reportReadFailure(error, while: "Reading the row of '\(info.name)' \(key)")
            return .damaged
        }
        guard let bytes = found else { return nil }
        return checkedRow(info, key: key, bytes)
    }

    /// The row of `key` in `bytes`, checked: bytes that are not a row, or a row that does not
    /// match its checksum, are reported as damaged.
    @inline(__always)
    func checkedRow(_ info: ClassInfo, key: UInt64, _ bytes: UnsafeRawBufferPointer) -> RowView {
        Self.soundRow(key: key, bytes) ?? damagedRow(info, key: key, bytes)
    }

    /// ``checkedRow(_:key:_:)`` for scans that hold `info` unretained: a sound row touches
    /// neither `info` nor the database, so the per-row path retains and releases nothing.
    @inline(__always)
    func checkedRow(_ info: Unmanaged<ClassInfo>, key: UInt64, _ bytes: UnsafeRawBufferPointer) -> RowView {
        if let row = Self.soundRow(key: key, bytes) { return row }
        return info._withUnsafeGuaranteedRef { damagedRow($0, key: key, bytes) }
    }

    /// The row in `bytes` if they parse as a row that matches its checksum (or has none), else `nil`.
    @inline(__always)
    static func soundRow(key: UInt64, _ bytes: UnsafeRawBufferPointer) -> RowView? {
        guard let row = RowView(bytes) else { return nil }
        let admitted = RowChecksum.admits(row, key: key)
        #if OBJDB_INTERNAL_CHECKS
        // The per-row test must agree with the checksum's general test.
        if internalChecksEnabled {
            internalCheck(admitted == (RowChecksum.matches(row, key: key) ?? true), "the row checksum tests disagree on key \(key)")
        }
        #endif
        return admitted ? row : nil
    }

    /// The row ``soundRow(key:_:)`` refused, reported as damaged: `.damaged` for bytes that are
    /// not a row, the row as it is for one that does not match its checksum. Out of line: rare.
    @inline(never)
    func damagedRow(_ info: ClassInfo, key: UInt64, _ bytes: UnsafeRawBufferPointer) -> RowView {
        guard let row = RowView(bytes) else {
            reportDamagedRow(info, key: key, "its \(bytes.count) bytes are not a row")
            return .damaged
        }
        reportDamagedRow(info, key: key, "it does not match its checksum")
        return row
    }

    /// Number of objects of a class in the current version.
    func objectCount(_ info: ClassInfo) -> Int {
        guard !info.isDiscarded, let txn = readableTxn() else { return 0 }
        do {
            return try txn.entryCount(info.tables.objects)
        } catch {
            reportReadFailure(error, while: "Counting the objects of '\(info.name)'")
            return 0
        }
    }

    /// The object key whose primary key is `value` (the key property's column bytes).
    func objectKey(forPrimaryKey value: ColumnRead, _ info: ClassInfo, txn: Txn, scratch: ScratchBuffer) throws -> UInt64? {
        guard let column = info.primaryKeyColumn, let table = info.primaryKeyTable, !info.isDiscarded else { return nil }
        scratch.reset()
        var sink = scratch
        _ = KeyEncoding.append(value, kind: info.scalarKinds[column], to: &sink)
        let truncated = KeyEncoding.mayBeTruncated(count: scratch.count)
        let key = scratch.bytes
        if !truncated { return try objectKey(forWholePrimaryKey: key, table, txn: txn) }
        // A cut key may be shared by several values: compare the candidates' rows.
        let cursor = try Cursor(txn, table)
        var entry = try cursor.seek(exactly: key)
        while let current = entry {
            let candidate = current.valueObjectKey
            if let bytes = try txn.get(info.tables.objects, key: candidate), let row = RowView(bytes),
                row.column(column).sameContent(as: value)
            {
                return candidate
            }
            entry = try cursor.nextDuplicate()
        }
        return nil
    }

    /// The object key stored under `key` in the primary-key table `table`, for a key that was
    /// not cut (see ``KeyEncoding/mayBeTruncated(count:)``), so that equal keys mean equal values.
    @inline(__always)
    func objectKey(forWholePrimaryKey key: UnsafeRawBufferPointer, _ table: Table, txn: Txn) throws -> UInt64? {
        guard let found = try txn.get(table, key: key), found.count == 8 else { return nil }
        return found.loadUnaligned(as: UInt64.self)
    }

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

    // MARK: Writing

    /// Encodes the unmanaged values of `object` into `row`, in column order.
    func encodeUnmanaged(_ object: ObjectBase, _ info: ClassInfo, into row: RowBuilder) {
        row.reset()
        let base = UnsafeRawPointer(object._objdbBase)
        info.encodePlan.withUnsafeBufferPointer { plan in
            for column in plan.indices {
                if let valueType = plan[column].valueType {
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
                try cursor.reserve(key: key, count: size, flags: [.noOverwrite, .append])
                    ?? cursor.reserve(key: key, count: size, flags: .noOverwrite)
            }
            guard let space else {
                throw ObjDBError(
                    .corruptFile, "Object key \(key) of class '\(info.name)' is already in use; the file's key counter is damaged",
                    className: info.name, key: "\(key)", path: path)
            }
            context.scratch.row.write(into: space)
            RowChecksum.seal(space, key: key)
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
            guard let space = try txn.reserve(info.objectsTable, key: key, count: new.length, flags: .noOverwrite),
                let target = space.baseAddress, let from = new.bytes.baseAddress
            else {
                throw ObjDBError(.storage, "Could not restore the row of '\(info.name)' \(key)", className: info.name, key: "\(key)", path: path)
            }
            target.copyMemory(from: from, byteCount: new.length)
            RowChecksum.seal(space, key: key)
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
        guard let space = try context.transaction.reserveThroughCursor(info.objectsTable, key: key, count: size)
            ?? txn.reserve(info.objectsTable, key: key, count: size)
        else {
            throw ObjDBError(.storage, "Could not overwrite the row of '\(info.name)' \(key)", path: path)
        }
        write(space)
        RowChecksum.seal(space, key: key)
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

    /// Removes the primary-key and index entries of `old` and adds those of `new` (either may be
    /// absent), for `columns` or every keyed column. All keys are encoded before anything is
    /// written, because a write invalidates row pointers into the map.
    private func updateKeys<New: ColumnSource>(
        _ info: ClassInfo, key: UInt64, old: RowView?, new: New?, columns: [Int]?,
        _ context: WriteContext, txn: Txn, uniquePrimaryKey: Bool = false
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
                    // A unique value (checked above): written at once, so that the next check sees it.
                    _ = try context.transaction.withInsertCursor(entry.table, txn) { try $0.put(key: buffer.bytes(entry.range), value: value) }
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
                // table's insert cursor: primary keys that grow need no search from the root.
                let stored = try context.transaction.withInsertCursor(entry.table, txn) {
                    try $0.put(key: buffer.bytes(entry.range), value: value, flags: uniquePrimaryKey ? .noOverwrite : [])
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

    /// The transaction's record of a class, loading its key counter on first use. Keys increase
    /// and are never reused: the counter never falls behind the largest key in the table.
    /// Inlined: every row write asks for it, and after the first it is one array load.
    @inline(__always)
    func classChanges(_ info: ClassInfo, _ context: WriteContext, _ txn: Txn) throws -> ClassChanges {
        if let existing = context.changes.ofClass(info.classID) { return existing }
        return try loadClassChanges(info, context, txn)
    }

    /// ``classChanges(_:_:_:)`` the first time in the transaction: the key counter is read.
    @inline(never)
    private func loadClassChanges(_ info: ClassInfo, _ context: WriteContext, _ txn: Txn) throws -> ClassChanges {
        try context.changes.ofClass(info) {
            var next = try FileMeta.readUInt64(txn, metaTable, FileMeta.Key.nextKey(info.classID)) ?? 1
            let cursor = try Cursor(txn, info.tables.objects)
            // A key at the top of the range (only a damaged file has one) leaves no key to allocate.
            if let last = try cursor.last() { next = max(next, last.objectKey == .max ? .max : last.objectKey + 1) }
            // Keys of rolled-back inserts may still be held by invalidated objects.
            return max(next, environment.counterFloor(info.classID))
        }
    }

    // MARK: Objects

    /// Makes `object` a managed object of this database.
    func attach(_ object: ObjectBase, _ info: ClassInfo, key: UInt64, row: RowView?) {
        object._objdbDatabase = self
        object._objdbGeneration = UnsafePointer(generationCell)
        object._objdbInfo = info
        object._objdbKey = key
        object._objdbRow = row
        object._objdbRowGeneration = row == nil ? 0 : generation
        // The wrappers exist only in instances of the model class (not, say, in a DynamicObject).
        guard info.layout?.type == type(of: object) else { return }
        let base = object._objdbBase
        for (offset, column) in info.columnWords {
            (base + offset).storeBytes(of: column, as: Int.self)
        }
    }

    /// Drops the objects held by the unmanaged link and collection values of a managed object
    /// (see ``RelationshipValue/releaseUnmanaged(at:)``).
    func releaseUnmanagedRelationships(of object: ObjectBase) {
        guard let info = object._objdbInfo, info.hasRelationshipFields, info.layout?.type == type(of: object) else { return }
        let base = object._objdbBase
        info.encodePlan.withUnsafeBufferPointer { plan in
            for entry in plan {
                entry.relationship?.releaseUnmanaged(at: base + entry.valueOffset)
            }
        }
    }

    /// Turns a managed object back into an unmanaged one with the values it had before it was
    /// added (used when an `add` is undone).
    func detach(_ object: ObjectBase) {
        let info = object._objdbInfo
        object._objdbDatabase = nil
        object._objdbInfo = nil
        object._objdbKey = 0
        object._objdbInsertSerial = 0
        object._objdbRow = nil
        object._objdbRowGeneration = 0
        object._objdbGeneration = nil
        let base = object._objdbBase
        for (offset, _) in info?.columnWords ?? [] {
            (base + offset).storeBytes(of: -1, as: Int.self)
        }
    }

    /// Re-points a managed instance of `info`'s class at another stored object. Only for
    /// instances nobody else references (see ``ClassInfo/canRecycleObjects``).
    @inline(__always)
    func reattach(_ object: ObjectBase, key: UInt64, row: RowView) {
        object._objdbKey = key
        object._objdbRow = row
        object._objdbRowGeneration = generation
    }

    /// A new managed instance of a stored object.
    func materialize<T: ObjectBase>(_ type: T.Type, _ info: ClassInfo, key: UInt64, row: RowView?) -> T {
        let object = T()
        attach(object, info, key: key, row: row)
        return object
    }

    /// Runs a write for an operation that cannot throw (a property setter, `delete`): an error
    /// dooms the transaction, so that ``commitWrite()`` rolls back and reports it.
    func dooming<R>(_ context: WriteContext, _ body: () throws -> R) -> R? {
        do {
            return try body()
        } catch {
            context.transaction.doom(Self.objdbError(error, path: path))
            return nil
        }
    }

    /// Stops the program for a change to `property` (`Class.property`) outside a write
    /// transaction, or to a frozen object, with a message saying which and what to do.
    func cannotWrite(_ property: String) -> Never {
        if isFrozen {
            objdbFatal("Cannot modify '\(property)' of a frozen object: a frozen version never changes. thaw() the object and change it in a write transaction of the live database")
        }
        objdbFatal("Cannot set '\(property)' outside a write transaction; wrap the change in db.write { }")
    }

    /// Writes one column of a managed object (the setter of a `@Persisted` property).
    func setColumn(of object: ObjectBase, column: Int, _ encode: (inout _ObjDBBytes) -> Bool) {
        guard let info = object._objdbInfo else { return }
        guard let context = writeContext else { cannotWrite("\(info.name).\(info.stored.properties[column].name)") }
        // A doomed transaction ignores writes; commitWrite() reports why.
        guard context.transaction.acceptsWrites else { return }
        guard let old = object._objdbCurrentRow() else { object._objdbInvalidatedAccess() }
        context.value.buffer.reset()
        let isValue = encode(&context.value)
        let value = context.value.buffer.bytes
        let unchanged = old.column(column).sameContent(as: isValue ? .value(value) : .null)
        if unchanged { return }
        if column == info.primaryKeyColumn && !context.isMigration {
            objdbFatal(
                "The primary key '\(info.name).\(info.stored.properties[column].name)' cannot be changed after the object was added; to store the object under another key, delete it and add a new object with that key")
        }
        guard let row = dooming(context, { try writeColumn(info, key: object._objdbKey, old: old, column: column, value: isValue ? value : nil, context) })
        else { return }
        object._objdbRow = row
        object._objdbRowGeneration = generation
    }

    /// Replaces column `column` of the row `old` of object `key` with `value` (`nil` for null),
    /// maintaining indexes and backlinks. Returns the stored row.
    func writeColumn(
        _ info: ClassInfo, key: UInt64, old: RowView, column: Int, value: UnsafeRawBufferPointer?, _ context: WriteContext
    ) throws -> RowView {
        if stampsModification(info, context), !info.modifiedAtColumns.contains(column) {
            return try writeColumnStamped(info, key: key, old: old, column: column, value: value, context)
        }
        // Same size: copy the row and patch the column's bytes, instead of rebuilding it.
        if let value, case .value(let oldBytes) = old.column(column), oldBytes.count == value.count,
            let oldStart = oldBytes.baseAddress
        {
            let patch = context.scratch.patch
            patch.reset()
            patch.append(bytes: old.bytes)
            patch.overwrite(at: oldStart - old.base, with: value)
            if let new = RowView(patch.bytes) {
                return try replaceRow(info, key: key, old: old, encoded: new, changed: info.singleColumns[column], context)
            }
        }
        context.scratch.row.reset()
        appendColumns(of: old, info, to: context.scratch.row) { c in
            guard c == column else { return false }
            context.scratch.row.append(raw: value)
            return true
        }
        return try replaceRow(info, key: key, old: old, changed: info.singleColumns[column], context)
    }

    /// Appends to `row` every column of the stored row `old` (a declared default where `old`
    /// lacks the column: it was written before the column existed), except the columns for
    /// which `replace` appends a value itself and returns `true`.
    @inline(__always)
    func appendColumns(of old: RowView, _ info: ClassInfo, to row: RowBuilder, replacing replace: (Int) -> Bool) {
        for column in 0..<info.columnCount {
            if replace(column) { continue }
            if case .absent = old.column(column) {
                appendDefault(info, column: column, to: row)
            } else {
                row.append(old.column(column))
            }
        }
    }
}

