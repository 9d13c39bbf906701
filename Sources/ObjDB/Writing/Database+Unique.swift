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
        guard let row = try RowReader.parsed(info, key: holder, txn: txn) else { return false }
        return columns.allSatisfy { row.column($0).sameContent(as: value($0)) }
    }

    /// The error for a value of the unique `column` of `info` that the object `holder` holds.
    func uniqueViolation(_ info: ClassInfo, column: Int, holder: UInt64, _ txn: Txn) -> ObjDBError {
        let property = info.stored.properties[column].name
        var value = "the same value"
        if let row = try? RowReader.parsed(info, key: holder, txn: txn),
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
    /// when `nil`, any column) touches. Candidates come from the index of the key's column that
    /// the fewest objects share the value of (every column of a compound key is indexed; indexes
    /// are written first if entries are waiting); each is compared on every column.
    ///
    /// - Complexity: O(m log n + k) for a key of m columns, where k is the number of objects that
    ///   share the new value of its most selective column: a key of (country, email) looks up the
    ///   objects with the same email, not every object of the country.
    func checkCompoundKeys<New: ColumnSource>(
        _ info: ClassInfo, key: UInt64, new: New, columns: [Int]?, _ context: WriteContext, _ txn: Txn
    ) throws {
        for compound in info.compoundKeys {
            if let columns, !compound.contains(where: columns.contains) { continue }
            guard compound.allSatisfy({ if case .value = new.column($0) { return true } else { return false } }) else { continue }  // a nil never conflicts
            try flushPendingIndexEntries(context, txn)
            guard let candidates = try fewestSharing(compound, of: new, info, txn) else { continue }
            for other in candidates where other != key {
                // Every column, the chosen one too: its index key may be cut.
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

    /// The objects that share, with `new`, the value of the column of `compound` whose index
    /// holds the fewest of them (the primary key's table for the primary key); `nil` when no
    /// column of it has a table to look in.
    private func fewestSharing<New: ColumnSource>(_ compound: [Int], of new: New, _ info: ClassInfo, _ txn: Txn) throws -> [UInt64]? {
        var best: (table: Table, key: [UInt8], count: Int)?
        for column in compound {
            let table = column == info.primaryKeyColumn ? info.primaryKeyTable : info.tables.indexes[column]
            guard let table else { continue }
            var scratch = ScratchBuffer()
            let range = encodeKey(new.column(column), kind: info.scalarKinds[column], into: &scratch)
            let key = Array(scratch.bytes(range))
            let cursor = try Cursor(txn, table)
            let count = try key.withUnsafeBytes { try cursor.seek(exactly: $0) } == nil ? 0 : try cursor.duplicateCount()
            if count == 0 { return [] }  // nobody shares this column's value: no conflict
            if best.map({ count < $0.count }) ?? true { best = (table, key, count) }
        }
        guard let best else { return nil }
        return try best.key.withUnsafeBytes { try txn.objectKeys(best.table, under: $0) }
    }
}
