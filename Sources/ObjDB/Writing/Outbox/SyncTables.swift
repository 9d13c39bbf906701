import Foundation

/// Where a synced file keeps its sync state, in the file itself so that every process that
/// writes it — the app, a second instance, the `objdb` command — records its commits in the
/// outbox, in the same transaction.
///
/// - `meta` record ``FileMeta/Key/syncClasses``: the names of the synced classes. Its presence
///   makes the file synced; every commit that is not a download or a migration then appends its
///   operations on these classes to the outbox.
/// - `outbox` table: sequence (integer key) → ``SyncOperation`` (``OutboxFormat``).
/// - `sync` table: the records named in ``Key``.
enum SyncTables {
    /// The records of the `sync` table.
    enum Key {
        /// The client id, 16 bytes (a UUID): the service's name for this file.
        static let clientID = "clientID"
        /// The next outbox sequence to hand out (u64); sequences are never reused.
        static let nextSequence = "nextSequence"
        /// The highest sequence the service acknowledged (u64).
        static let acknowledged = "acknowledged"
        /// The last checkpoint applied, as the service wrote it (UTF-8).
        static let checkpoint = "checkpoint"
        /// The highest sequence of this client that the applied checkpoint includes (u64).
        static let includedSequence = "includedSequence"
        /// The identity of the file the state was written in (device and inode, 16 bytes): a
        /// copied or restored file has another, and starts over as a new client.
        static let fileIdentity = "fileIdentity"
        /// The subscriptions: a list of maps of `name` and `class`.
        static let subscriptions = "subscriptions"
        /// The newest write the service rejected: a value (a map of sequence, class, key, reason).
        static let lastRejection = "lastRejection"
    }

    /// The class names of the ``FileMeta/Key/syncClasses`` record, or `nil` if damaged.
    static func classNames(decoding bytes: UnsafeRawBufferPointer) -> [String]? {
        guard case .list(let items)? = OutboxFormat.decodeValue(bytes) else { return nil }
        var names: [String] = []
        for item in items {
            guard case .string(let name) = item else { return nil }
            names.append(name)
        }
        return names
    }

    /// The bytes of the ``FileMeta/Key/syncClasses`` record.
    static func encode(classNames: [String]) -> [UInt8] {
        OutboxFormat.encode(.list(classNames.map(SyncValue.string)))
    }

    /// The synced classes of the file, read in `txn`; `nil` if the file is not synced.
    static func syncedClasses(_ txn: Txn, meta: Table) throws -> [String]? {
        guard let bytes = try FileMeta.get(txn, meta, FileMeta.Key.syncClasses) else { return nil }
        guard let names = classNames(decoding: bytes) else {
            throw ObjDBError(.corruptFile, "The record of the synced classes is damaged", path: txn.environment.path)
        }
        return names
    }

    /// The `sync` table, created if `create`.
    static func stateTable(_ txn: Txn, create: Bool) throws -> Table? {
        if create { return try txn.openTable(named: TableName.sync, flags: [.create]) }
        return try txn.environment.existingTable(named: TableName.sync, flags: [])
    }

    /// The `outbox` table, created if `create`.
    static func outboxTable(_ txn: Txn, create: Bool) throws -> Table? {
        if create { return try txn.openTable(named: TableName.outbox, flags: [.objects, .create]) }
        return try txn.environment.existingTable(named: TableName.outbox, flags: .objects)
    }
}
