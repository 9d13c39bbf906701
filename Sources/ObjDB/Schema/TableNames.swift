/// Names of the LMDB tables of an ObjDB file. Tables are named by stable numeric ids, so renaming
/// a class or a property only changes the schema stored in `meta`.
enum TableName {
    /// The `meta` table: format version, schema, counters.
    static let meta = "meta"
    /// The change log: transaction id → what the transaction changed (see `ChangeLog`).
    static let changes = "changes"
    /// The outbox of a synced file: sequence → one local operation not yet known to be in
    /// the server's state (see `OutboxFormat`).
    static let outbox = "outbox"
    /// The sync state of a synced file: client id, sequence counter, checkpoint (see `SyncTables`).
    static let sync = "sync"
    /// The row buckets of an encrypted file (format 6): the table's tag and a bucket number →
    /// sixteen consecutive keys' short values, sealed together (see `RowBucket`).
    static let buckets = RowBucket.tableName
    /// Objects of one class: object key → row.
    static func objects(_ classID: UInt32) -> String { "c\(classID)" }
    /// Primary keys of one class: encoded primary key → object key.
    static func primaryKeys(_ classID: UInt32) -> String { "c\(classID).pk" }
    /// One index: encoded value → object keys.
    static func index(_ classID: UInt32, property propertyID: UInt32) -> String { "c\(classID).i\(propertyID)" }
    /// The full-text index of one string property: word → postings (see `FullTextPostings`).
    static func fullText(_ classID: UInt32, property propertyID: UInt32) -> String { "c\(classID).f\(propertyID)" }
    /// Backlinks of one link property: target object key → origin object keys.
    static func backlinks(_ classID: UInt32, property propertyID: UInt32) -> String { "c\(classID).b\(propertyID)" }

    /// Links held by the values of one mixed property: target (class id and object key,
    /// big-endian) → origin object keys (see ``MixedFormat/linkKey(classID:key:)``).
    static func mixedLinks(_ classID: UInt32, property propertyID: UInt32) -> String { "c\(classID).m\(propertyID)" }

    /// The LMDB flags of the table named `name`, from its kind; `nil` for a name ObjDB does not
    /// give its tables.
    static func flags(ofTable name: String) -> TableFlags? {
        switch name {
        case meta, sync: return .plain
        case changes, outbox: return .objects
        default: break
        }
        guard name.hasPrefix("c") else { return nil }
        let parts = name.dropFirst().split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let id = parts.first, UInt32(id) != nil else { return nil }
        guard parts.count == 2 else { return .objects }
        let rest = parts[1]
        if rest == "pk" { return .multimap }
        guard rest.count > 1, UInt32(rest.dropFirst()) != nil else { return nil }
        switch rest.first {
        case "i": return .multimap
        case "f": return .postings
        case "b": return .backlinks
        case "m": return .multimap
        default: return nil
        }
    }
}
