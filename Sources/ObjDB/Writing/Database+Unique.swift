/// Unique properties (`@Persisted(unique: true)`): their index refuses a second object with the
/// same non-nil value.
extension Database {
    /// The object other than `key` that holds the value `full` of `column` (index key `value`)
    /// in the unique index `table`, if any. A key that may be cut (a long string) is confirmed
    /// on the holder's row.
    func objectHolding(
        _ value: UnsafeRawBufferPointer, in table: Table, other key: UInt64, full: ColumnRead, _ info: ClassInfo, column: Int, _ txn: Txn
    ) throws -> UInt64? {
        let truncated = KeyEncoding.mayBeTruncated(count: value.count)
        for holder in try txn.objectKeys(table, under: value) where holder != key {
            if !truncated { return holder }
            if try holds(info, holder, columns: [column], txn, { _ in full }) { return holder }
        }
        return nil
    }

    /// Whether the object `holder` of `info` holds, in each of `columns`, the value `value`
    /// gives for it (compared whole).
    func holds(_ info: ClassInfo, _ holder: UInt64, columns: [Int], _ txn: Txn, _ value: (Int) -> ColumnRead) throws -> Bool {
        guard let bytes = try txn.get(info.objectsTable, key: holder), let row = RowView(bytes) else { return false }
        return columns.allSatisfy { row.column($0).sameContent(as: value($0)) }
    }

    /// The error for a value of the unique `column` of `info` that the object `holder` holds.
    func uniqueViolation(_ info: ClassInfo, column: Int, holder: UInt64, _ txn: Txn) -> ObjDBError {
        let property = info.stored.properties[column].name
        var value = "the same value"
        if let bytes = try? txn.get(info.objectsTable, key: holder), let row = RowView(bytes),
            let held = info.valueType(column: column).anyValue(from: row.column(column))
        {
            value = held is String ? "'\(held)'" : "\(held)"
        }
        return ObjDBError(
            .uniqueConstraintViolation,
            "'\(info.name).\(property)' is unique, and \(value) is already held by another object (object key \(holder))",
            className: info.name)
    }
}

extension Database {
    /// Throws ``ObjDBError/Code/uniqueConstraintViolation`` if another object holds the same
    /// non-nil values as `new` in one of the compound unique keys of `info` that `columns` (or,
    /// when `nil`, any column) touches. Candidates come from the index of the key's first column
    /// (written first if entries are waiting); each is compared on the other columns.
    ///
    /// - Complexity: O(log n + k) for k objects sharing the first column's value.
    func checkCompoundKeys<New: ColumnSource>(
        _ info: ClassInfo, key: UInt64, new: New, columns: [Int]?, _ context: WriteContext, _ txn: Txn
    ) throws {
        for compound in info.compoundKeys {
            if let columns, !compound.contains(where: columns.contains) { continue }
            guard compound.allSatisfy({ if case .value = new.column($0) { return true } else { return false } }),
                let table = info.tables.indexes[compound[0]]
            else { continue }  // a nil never conflicts
            try flushPendingIndexEntries(context, txn)
            var scratch = ScratchBuffer()
            let range = encodeKey(new.column(compound[0]), kind: info.scalarKinds[compound[0]], into: &scratch)
            for other in try txn.objectKeys(table, under: scratch.bytes(range)) where other != key {
                // Every column, the first too: its index key may be cut.
                if try holds(info, other, columns: compound, txn, { new.column($0) }) {
                    let names = compound.map { info.stored.properties[$0].name }.joined(separator: ", ")
                    throw ObjDBError(
                        .uniqueConstraintViolation,
                        "The unique key (\(names)) of '\(info.name)' already has these values, held by another object (object key \(other))",
                        className: info.name)
                }
            }
        }
    }
}
