/// Where a row write records what it changed: the transaction's record of each class.
extension Database {
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
}
