/// Column writes: the setter of a managed property, and the row rewrite it makes.
extension Database {
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
