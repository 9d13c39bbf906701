/// Columns the database fills in itself: auto-increment primary keys and `createdAt` /
/// `modifiedAt` dates (see `Docs/Models.md`, "Keys and dates the database maintains").
extension Database {
    /// Fills the maintained columns of the new row in `context.scratch.row` before it is inserted: an
    /// auto-increment key of 0 gets the class's next id (an explicit id moves the counter past
    /// it), and dates left at their declared default get the transaction's stamp.
    func fillMaintainedColumns(_ info: ClassInfo, _ changes: ClassChanges, _ context: WriteContext, _ txn: Txn) throws {
        var replacements: [(column: Int, bytes: [UInt8]?)] = []
        if let column = info.autoIncrementColumn {
            let given = context.scratch.row.withColumns { Int.anyValue(from: $0(column)) as? Int } ?? 0
            var next = try nextAutoIncrementID(info, changes, txn)
            if given == 0 {
                guard next < .max else {
                    throw ObjDBError(
                        .invalidValue, "No auto-increment id is left for class '\(info.name)': the counter reached Int.max",
                        className: info.name, propertyName: info.stored.properties[column].name, path: path)
                }
                var bytes = _ObjDBBytes()
                _ = next._objdbEncode(into: &bytes)
                replacements.append((column, bytes.array))
                next += 1
            } else if given >= next {
                next = given == .max ? .max : given + 1
            }
            changes.nextAutoID = next
        }
        for column in info.createdAtColumns + info.modifiedAtColumns {
            let isDefault = context.scratch.row.withColumns { read in
                info.encodedDefault(column: column).map { defaultBytes in
                    defaultBytes.withUnsafeBytes { read(column).sameContent(as: .value($0)) }
                } ?? read(column).isNull
            }
            if isDefault { replacements.append((column, context.transaction.timestamp)) }
        }
        if !replacements.isEmpty { context.scratch.row.replaceColumns(replacements) }
    }

    /// The next auto-increment id of a class in this transaction, loaded on first use: the
    /// larger of the counter stored in the file and the largest id plus one (a class that became
    /// auto-increment continues after its largest id; see ``largestID(_:column:table:counterStored:_:)``).
    private func nextAutoIncrementID(_ info: ClassInfo, _ changes: ClassChanges, _ txn: Txn) throws -> Int {
        if let next = changes.nextAutoID { return next }
        let stored = try FileMeta.readUInt64(txn, metaTable, FileMeta.Key.autoIncrement(info.classID))
        var next = stored.map { Int(Int64(bitPattern: $0)) } ?? 1
        if let table = info.primaryKeyTable, let column = info.autoIncrementColumn,
            let top = try largestID(info, column: column, table: table, counterStored: stored != nil, txn)
        {
            next = max(next, top == .max ? .max : top + 1)
        }
        next = max(next, 1)
        changes.nextAutoID = next
        changes.loadedAutoID = stored.map { Int(Int64(bitPattern: $0)) }
        return next
    }

    /// The largest id of an auto-increment class: the primary-key table's last key. An encrypted
    /// file's primary-key table is keyed by hashes, in no order of the ids: there the rows are
    /// read, only while no counter is stored (a class that became auto-increment; the first
    /// commit that takes an id stores it, and every id added since moves it).
    private func largestID(_ info: ClassInfo, column: Int, table: Table, counterStored: Bool, _ txn: Txn) throws -> Int? {
        guard table.seal != .none else {
            guard let last = try Cursor(txn, table).last(), let row = try RowReader.parsed(info, key: last.valueObjectKey, txn: txn) else {
                return nil
            }
            return Int.anyValue(from: row.column(column)) as? Int
        }
        guard !counterStored else { return nil }
        let cursor = try Cursor(txn, info.tables.objects, tracksFailures: true)
        var largest: Int?
        cursor.forEachRow(from: try cursor.first()) { _, row in
            if let id = Int.anyValue(from: row.column(column)) as? Int { largest = max(largest ?? id, id) }
            return true
        }
        if let error = cursor.failure?.take() { throw error }
        return largest
    }

    /// Whether writes to the class stamp `modifiedAt` dates in this transaction (migrations
    /// rewrite rows without changing what they say, so they do not).
    @inline(__always)
    func stampsModification(_ info: ClassInfo, _ context: WriteContext) -> Bool {
        !info.modifiedAtColumns.isEmpty && !context.isMigration
    }

    /// Writes column `column` of the row `old` of `key` and stamps its `modifiedAt` columns
    /// (``writeColumn(_:key:old:column:value:_:)`` for classes that have them).
    func writeColumnStamped(
        _ info: ClassInfo, key: UInt64, old: RowView, column: Int, value: UnsafeRawBufferPointer?, _ context: WriteContext
    ) throws -> RowView {
        let stamp = context.transaction.timestamp
        var changed = [column]
        context.scratch.row.reset()
        stamp.withUnsafeBytes { stampBytes in
            appendColumns(of: old, info, to: context.scratch.row) { c in
                if c == column {
                    context.scratch.row.append(raw: value)
                    return true
                }
                guard info.modifiedAtColumns.contains(c) else { return false }
                context.scratch.row.append(raw: stampBytes)
                if !old.column(c).sameContent(as: .value(stampBytes)) { changed.append(c) }
                return true
            }
        }
        return try replaceRow(info, key: key, old: old, changed: changed.sorted(), context)
    }

    /// Adjusts the full new row in `context.scratch.row` of an upsert of the stored row `old`: dates
    /// left at their declared default keep their stored value (an unmanaged copy does not
    /// erase them). Call before comparing columns.
    func keepMaintainedDates(_ info: ClassInfo, old: RowView, _ context: WriteContext) {
        guard !context.isMigration else { return }
        var replacements: [(column: Int, bytes: [UInt8]?)] = []
        for column in info.createdAtColumns + info.modifiedAtColumns {
            let isDefault = context.scratch.row.withColumns { read in
                info.encodedDefault(column: column).map { defaultBytes in
                    defaultBytes.withUnsafeBytes { read(column).sameContent(as: .value($0)) }
                } ?? read(column).isNull
            }
            guard isDefault else { continue }
            switch old.column(column) {
            case .value(let bytes): replacements.append((column, Array(bytes)))
            case .null: replacements.append((column, nil))
            case .absent: continue
            }
        }
        if !replacements.isEmpty { context.scratch.row.replaceColumns(replacements) }
    }

    /// Stamps the `modifiedAt` columns of the new row in `context.scratch.row` of an update that
    /// changes `changed`, unless the update sets them itself; returns the changed columns.
    func stampUpdate(_ info: ClassInfo, old: RowView, changed: [Int], _ context: WriteContext) -> [Int] {
        guard stampsModification(info, context) else { return changed }
        let explicit = context.scratch.row.withColumns { read in
            Set(info.modifiedAtColumns.filter { !old.column($0).sameContent(as: read($0)) })
        }
        guard changed.contains(where: { !explicit.contains($0) && !info.modifiedAtColumns.contains($0) }) else { return changed }
        let stamp = context.transaction.timestamp
        let stamped = info.modifiedAtColumns.filter { !explicit.contains($0) }
        context.scratch.row.replaceColumns(stamped.map { ($0, stamp) })
        return Array(Set(changed).union(stamped)).sorted()
    }
}
