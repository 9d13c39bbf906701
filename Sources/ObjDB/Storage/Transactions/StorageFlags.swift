import CLMDB

/// Flags for opening an environment (`MDB_*` environment flags).
struct EnvironmentFlags: OptionSet, Sendable {
    let rawValue: UInt32
    static let noSubdirectory = EnvironmentFlags(rawValue: UInt32(MDB_NOSUBDIR))
    static let noSync = EnvironmentFlags(rawValue: UInt32(MDB_NOSYNC))
    static let readOnly = EnvironmentFlags(rawValue: UInt32(MDB_RDONLY))
    static let noMetaSync = EnvironmentFlags(rawValue: UInt32(MDB_NOMETASYNC))
    static let noThreadLocalStorage = EnvironmentFlags(rawValue: UInt32(MDB_NOTLS))
    static let noReadAhead = EnvironmentFlags(rawValue: UInt32(MDB_NORDAHEAD))
    static let noLock = EnvironmentFlags(rawValue: UInt32(MDB_NOLOCK))
}

/// Flags for a named table (`MDB_*` database flags of `mdb_dbi_open`).
struct TableFlags: OptionSet, Sendable, Hashable {
    let rawValue: UInt32
    static let integerKey = TableFlags(rawValue: UInt32(MDB_INTEGERKEY))
    static let duplicateSort = TableFlags(rawValue: UInt32(MDB_DUPSORT))
    static let duplicateFixed = TableFlags(rawValue: UInt32(MDB_DUPFIXED))
    static let integerDuplicate = TableFlags(rawValue: UInt32(MDB_INTEGERDUP))
    static let create = TableFlags(rawValue: UInt32(MDB_CREATE))

    /// Object keys (`UInt64`) to rows.
    static let objects: TableFlags = [.integerKey]
    /// Encoded values to sets of object keys: primary-key and index tables.
    static let multimap: TableFlags = [.duplicateSort, .duplicateFixed, .integerDuplicate]
    /// A backlink table: native object keys mapping to sorted native object keys.
    static let backlinks: TableFlags = [.integerKey, .duplicateSort, .duplicateFixed, .integerDuplicate]
    /// Words to fixed-size postings sorted by their bytes: full-text indexes.
    static let postings: TableFlags = [.duplicateSort, .duplicateFixed]
    /// Plain byte-string keys to values.
    static let plain: TableFlags = []
}

/// Flags for `mdb_put` and `mdb_cursor_put`.
struct PutFlags: OptionSet, Sendable {
    let rawValue: UInt32
    static let noOverwrite = PutFlags(rawValue: UInt32(MDB_NOOVERWRITE))
    static let noDuplicateData = PutFlags(rawValue: UInt32(MDB_NODUPDATA))
    static let reserve = PutFlags(rawValue: UInt32(MDB_RESERVE))
    /// Replace the entry at the cursor, whose key must be the one given (`MDB_CURRENT`): no search.
    static let current = PutFlags(rawValue: UInt32(MDB_CURRENT))
    /// Store the key after the table's last one (`MDB_APPEND`): LMDB compares it with that key
    /// only, with no search. A key that is not past the last one is refused as if it existed.
    static let append = PutFlags(rawValue: UInt32(MDB_APPEND))
}
