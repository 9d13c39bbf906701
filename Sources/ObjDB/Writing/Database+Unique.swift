/// Unique properties (`@Persisted(unique: true)`): their index refuses a second object with the
/// same non-nil value.
extension Database {
    /// The object other than `key` whose entry `value` is in the unique index `table`, if any.
    func objectHolding(_ value: UnsafeRawBufferPointer, in table: Table, other key: UInt64, _ txn: Txn) throws -> UInt64? {
        let cursor = try Cursor(txn, table)
        var entry = try cursor.seek(exactly: value)
        while let current = entry {
            if current.valueObjectKey != key { return current.valueObjectKey }
            entry = try cursor.nextDuplicate()
        }
        return nil
    }

    /// The error for a value of the unique `column` of `info` that the object `holder` holds.
    func uniqueViolation(_ info: ClassInfo, column: Int, holder: UInt64, _ txn: Txn) -> ObjDBError {
        let property = info.stored.properties[column].name
        var value = "the same value"
        if let bytes = try? txn.get(info.objectsTable, key: holder), let row = RowView(bytes), case .value(let stored) = row.column(column),
            let decoded = info.columnTypes[column]._objdbDecode(stored)
        {
            // An optional property's type decodes to an Optional: show what it holds.
            let mirror = Mirror(reflecting: decoded)
            let held: Any = mirror.displayStyle == .optional ? mirror.children.first?.value ?? decoded : decoded
            value = held is String ? "'\(held)'" : "\(held)"
        }
        return ObjDBError(
            .uniqueConstraintViolation,
            "'\(info.name).\(property)' is unique, and \(value) is already held by another object (object key \(holder))",
            className: info.name)
    }
}
