/// The `changes` table: what each write transaction changed, under the id of the version its
/// commit made, written in that same transaction. Observers in any process read the entries
/// between the version they last saw and the newest to learn exactly what changed, without
/// looking at the objects that did not.
///
/// The log keeps the newest ``retainedEntries`` entries; every ``pruneInterval``-th commit
/// drops older ones. An observer that fell further behind finds an entry missing and compares
/// the two versions itself (``ObservationCenter``), as it does for a file written by an older
/// ObjDB, which keeps no log. The format is in `Docs/FileFormat.md`.
enum ChangeLog {
    /// Entries kept: observers that fall further behind compare versions instead.
    static let retainedEntries: UInt64 = 512
    /// Pruning runs at commits whose id is a multiple of this.
    static let pruneInterval: UInt64 = 64
    /// A transaction that modified more existing objects of a class than this logs only the
    /// columns written, not the objects (``ClassChangeSet/unlistedModifications``).
    static let listedModificationsLimit = 4_096

    /// Writes the entry of the transaction `txn` (whose commit makes version `id`), and prunes.
    static func record(_ changes: ChangeSet, id: UInt64, in txn: Txn) throws {
        let table = try txn.openTable(named: TableName.changes, flags: .objects)
        let bytes = ChangeLogFormat.encode(changes)
        _ = try bytes.withUnsafeBytes { try txn.put(table, key: id, value: $0) }
        if id % pruneInterval == 0, id > retainedEntries {
            try prune(table, below: id - retainedEntries, txn)
        }
    }

    /// Deletes the entries older than `id`.
    private static func prune(_ table: Table, below id: UInt64, _ txn: Txn) throws {
        let cursor = try Cursor(txn, table)
        var entry = try cursor.first()
        while let current = entry, current.objectKey < id {
            try cursor.deleteCurrent()
            entry = try cursor.next()
        }
    }

    /// What the versions after `old` up to and including `new` changed, merged; `nil` when the
    /// log lacks one of them (pruned, or written by a build that kept none).
    static func changes(after old: UInt64, through new: UInt64, table: Table?, txn: Txn) throws -> ChangeSet? {
        if new == old { return ChangeSet() }
        guard let table, new > old, new - old <= retainedEntries else { return nil }
        let cursor = try Cursor(txn, table)
        var merged = ChangeSet()
        var expected = old + 1
        var entry = try cursor.seek(exactly: expected)
        while let current = entry, expected <= new {
            guard current.objectKey == expected else { return nil }
            merged.append(try ChangeLogFormat.decode(current.value, path: txn.environment.path))
            expected += 1
            entry = expected <= new ? try cursor.next() : nil
        }
        return expected == new + 1 ? merged : nil
    }
}
