/// Primary-key lookups: the object key stored for a primary-key value.
extension RowReader {
    /// The object key whose primary key is `value` (the key property's column bytes), encoded
    /// in `scratch`; `nil` if no object has it or the class has no primary key.
    static func objectKey(forPrimaryKey value: ColumnRead, _ info: ClassInfo, txn: Txn, scratch: ScratchBuffer) throws -> UInt64? {
        guard let column = info.primaryKeyColumn, let table = info.primaryKeyTable, !info.isDiscarded else { return nil }
        scratch.reset()
        var sink = scratch
        _ = KeyEncoding.append(value, kind: info.scalarKinds[column], to: &sink)
        let truncated = KeyEncoding.mayBeTruncated(count: scratch.count)
        let key = scratch.bytes
        // An encrypted file's primary-key table holds keyed hashes and object keys that no tag
        // authenticates: the row found must hold the value, as for a cut key.
        if !truncated && table.seal == .none { return try objectKey(forWholePrimaryKey: key, table, txn: txn) }
        // A cut key may be shared by several values: compare the candidates' rows.
        let cursor = try Cursor(txn, table)
        var entry = try cursor.seek(exactly: key)
        while let current = entry {
            let candidate = current.valueObjectKey
            if let row = try parsed(info, key: candidate, txn: txn), row.column(column).sameContent(as: value) {
                return candidate
            }
            entry = try cursor.nextDuplicate()
        }
        return nil
    }

    /// The object key stored under `key` in the primary-key table `table`, for a key that was
    /// not cut (see ``KeyEncoding/mayBeTruncated(count:)``), so that equal keys mean equal values.
    @inline(__always)
    static func objectKey(forWholePrimaryKey key: UnsafeRawBufferPointer, _ table: Table, txn: Txn) throws -> UInt64? {
        guard let found = try txn.get(table, key: key), found.count == 8 else { return nil }
        return found.loadUnaligned(as: UInt64.self)
    }
}
