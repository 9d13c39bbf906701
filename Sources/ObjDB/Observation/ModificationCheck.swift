/// Decides which objects a delivery modified, for a ``Watch``: from the change set when the
/// delivery has one, else by comparing the rows of the old and new versions.
struct ModificationCheck {
    let delivery: Delivery
    /// The current version.
    let new: Txn

    private var database: Database { delivery.database }

    /// Whether the changes can touch what `watch` sees on objects of `info` (a quick test before
    /// looking at objects): the class or a class its watched links reach changed.
    func mayTouch(_ info: ClassInfo, _ watch: Watch) -> Bool {
        guard let changes = delivery.changes, !changes.schemaChanged else { return true }
        return touches(info, watch, changes)
    }

    /// Ends: every link followed lowers the depth of `.everything`, and key paths are finite.
    private func touches(_ info: ClassInfo, _ watch: Watch, _ changes: ChangeSet) -> Bool {
        if !changes[info.classID].isEmpty { return true }
        return watch.linkTargets(info).contains { column, sub in
            database.targetInfo(info, column: column).map { touches($0, sub, changes) } ?? false
        }
    }

    /// The objects among `keys` (objects of `info` that exist in both versions) that the
    /// delivery modified in what `watch` sees, ascending.
    func modified(_ keys: [UInt64], _ info: ClassInfo, _ watch: Watch) -> [UInt64] {
        if let changes = delivery.changes, !changes.schemaChanged {
            let change = changes[info.classID]
            let followsLinks = watch.linkTargets(info).contains { column, sub in
                database.targetInfo(info, column: column).map { mayTouch($0, sub) } ?? false
            }
            if change.unlistedModifications == nil && !followsLinks {
                // Only the listed objects can have changed.
                return change.modified.compactMap { key, columns in watch.counts(columns) ? key : nil }.sorted()
            }
        }
        return keys.filter { isModified(info, key: $0, watch, depth: 0) }.sorted()
    }

    /// Whether object `key` of `info` changed in what `watch` sees.
    func isModified(_ info: ClassInfo, key: UInt64, _ watch: Watch, depth: Int) -> Bool {
        guard depth <= Watch.defaultDepth + 8 else { return false }
        let newRow = row(info, key, in: new)
        if let changes = delivery.changes, !changes.schemaChanged {
            if let columns = changes[info.classID].modifiedColumns(of: key), watch.counts(columns) { return true }
        } else {
            let oldRow = delivery.old.flatMap { row(info, key, in: $0) }
            guard let oldRow, let newRow else { return oldRow != nil || newRow != nil }
            for column in 0..<info.columnCount where watch.counts(column: column) {
                if !oldRow.column(column).sameContent(as: newRow.column(column)) { return true }
            }
        }
        guard let newRow else { return false }
        for (column, sub) in watch.linkTargets(info) {
            guard let target = database.targetInfo(info, column: column), mayTouch(target, sub) else { continue }
            for targetKey in Database.linkedKeys(newRow.column(column), kind: info.columnKinds[column])
            where isModified(target, key: targetKey, sub, depth: depth + 1) {
                return true
            }
        }
        return false
    }

    /// The row of `key` in `txn`, if readable.
    private func row(_ info: ClassInfo, _ key: UInt64, in txn: Txn) -> RowView? {
        // try?: an unreadable row counts as absent here; reading the object reports it.
        (try? RowReader.parsed(info, key: key, txn: txn)) ?? nil
    }
}
