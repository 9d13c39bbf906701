import Foundation

/// The records of the `meta` table (see `Docs/FileFormat.md`).
enum FileMeta {
    /// The newest file-format version this build reads and writes. Version 2 added links,
    /// collections, embedded objects and backlink tables; version 3 added row checksums and the
    /// meta checksum; version 4 added full-text indexes; version 5 added links and nested
    /// collections in mixed values, with their mixed-links tables; version 6 added the row buckets of
    /// encrypted files (``bucketsFormat``). Older files are read as they are and
    /// upgraded to ``checksummedFormat`` by their first write transaction (their old rows keep
    /// no checksum until they are rewritten); a schema raises the format further only when it
    /// needs it (``requiredFormat(for:)``), so files without full-text indexes stay readable by
    /// builds that read version 3.
    static let currentFormat: UInt32 = 6
    /// The format of an encrypted file whose short values may lie in row buckets (`RowBucket`):
    /// every encrypted file this build creates. Encrypted files of an older format keep each
    /// value sealed on its own.
    static let bucketsFormat: UInt32 = 6
    /// The format every file this build writes has at least: row checksums.
    static let checksummedFormat: UInt32 = 3
    /// Bytes stored under `magic`; a file without them is not an ObjDB file.
    static let magic = Array("ObjDB".utf8)

    /// Keys of the `meta` table.
    enum Key {
        static let magic = "magic"
        static let format = "format"
        static let schemaVersion = "schemaVersion"
        static let schema = "schema"
        static let schemaStamp = "schemaStamp"
        /// CRC-32C of every other record (format 3), see ``checksum(_:_:)``.
        static let checksum = "checksum"
        /// The names of the classes a synced file keeps in sync (see `SyncTables`); absent in a
        /// file that is not synced.
        static let syncClasses = "syncClasses"
        /// The key-check record of an encrypted file (``checkKey(_:_:path:)``); absent in a
        /// file that is not encrypted. Never sealed itself, like the magic bytes and the format.
        static let encryption = "encryption"
        /// The next object key of a class.
        static func nextKey(_ classID: UInt32) -> String { "nextKey.\(classID)" }
        /// The next auto-increment primary key of a class (as a `UInt64` holding an `Int`'s bits).
        static func autoIncrement(_ classID: UInt32) -> String { "autoIncrement.\(classID)" }
    }

    /// What an existing file's `meta` table says.
    struct Header {
        var format: UInt32
        var schemaVersion: UInt64
        var schema: StoredSchema
        var stamp: UInt64
    }

    /// Reads and checks the header of an ObjDB file.
    static func read(_ txn: Txn, meta: Table, path: String) throws -> Header {
        guard let magic = try get(txn, meta, Key.magic), magic.elementsEqual(Self.magic) else {
            throw ObjDBError(.notAnObjDBFile, "The file is an LMDB database but was not written by ObjDB", path: path)
        }
        guard let formatBytes = try get(txn, meta, Key.format), formatBytes.count == 4 else {
            throw ObjDBError(.corruptFile, "The file has no readable format version", path: path)
        }
        let format = UInt32(littleEndian: formatBytes.loadUnaligned(as: UInt32.self))
        guard format <= currentFormat else {
            throw ObjDBError(
                .newerFileFormat,
                "The file uses format version \(format), but this version of ObjDB reads formats up to \(currentFormat); update ObjDB to open it",
                path: path)
        }
        guard format >= 1 else { throw ObjDBError(.corruptFile, "The file has format version \(format)", path: path) }
        try checkKey(txn, meta, path: path)
        if let stored = try get(txn, meta, Key.checksum) {
            guard stored.count == 4, UInt32(littleEndian: stored.loadUnaligned(as: UInt32.self)) == (try checksum(txn, meta)) else {
                throw ObjDBError(
                    .corruptFile, "The file's meta records (schema, versions, key counters) do not match their checksum: they are damaged",
                    path: path)
            }
        }
        let schema = try get(txn, meta, Key.schema).map { try StoredSchema.decode($0, path: path) } ?? StoredSchema()
        return Header(
            format: format, schemaVersion: try readUInt64(txn, meta, Key.schemaVersion) ?? 0, schema: schema,
            stamp: try readUInt64(txn, meta, Key.schemaStamp) ?? 0)
    }

    /// CRC-32C of every record of `meta` but the checksum itself, in key order: each key's and
    /// value's length (`UInt32LE`) and bytes.
    static func checksum(_ txn: Txn, _ meta: Table) throws -> UInt32 {
        let cursor = try Cursor(txn, meta)
        var crc: UInt32 = 0
        var entry = try cursor.first()
        while let current = entry {
            let isChecksum = current.key.elementsEqual(Key.checksum.utf8)
            if !isChecksum {
                for part in [current.key, current.value] {
                    var length = UInt32(part.count).littleEndian
                    crc = withUnsafeBytes(of: &length) { Checksum.crc32c($0, continuing: crc) }
                    crc = Checksum.crc32c(part, continuing: crc)
                }
            }
            entry = try cursor.next()
        }
        return crc
    }

    /// Stores the checksum of the `meta` records; every write transaction that changed one calls
    /// it before committing.
    static func seal(_ txn: Txn, _ meta: Table) throws {
        let crc = try checksum(txn, meta)
        try withUnsafeBytes(of: crc.littleEndian) { try put(txn, meta, Key.checksum, Array($0)) }
    }

    /// Raises the stored format to ``checksummedFormat`` if it is older: before a write
    /// transaction of this build commits rows with checksums. Returns whether it wrote.
    @discardableResult
    static func upgradeFormat(_ txn: Txn, _ meta: Table) throws -> Bool {
        if let bytes = try get(txn, meta, Key.format), bytes.count == 4,
            UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self)) >= checksummedFormat
        {
            return false
        }
        try withUnsafeBytes(of: checksummedFormat.littleEndian) { try put(txn, meta, Key.format, Array($0)) }
        return true
    }

    /// Refuses a file whose encryption does not match the environment's cipher: encrypted
    /// without a key, with another key, or not encrypted with a key. Runs before any other record
    /// is read (they are sealed in an encrypted file) and before anything is written.
    static func checkKey(_ txn: Txn, _ meta: Table, path: String) throws {
        let record = try get(txn, meta, Key.encryption)
        switch (record, txn.environment.cipher) {
        case (nil, nil):
            return
        case (nil, _?):
            throw ObjDBError(
                .fileNotEncrypted,
                "The file is not encrypted, but Configuration.encryptionKey is set; open it without a key, or make an encrypted copy with writeCopy(toFile:encryptionKey:)",
                path: path)
        case (_?, nil):
            throw ObjDBError(
                .encryptionKeyRequired, "The file is encrypted; set Configuration.encryptionKey to its 64-byte key to open it", path: path)
        case (let bytes?, let cipher?):
            switch KeyCheck.check(bytes, cipher: cipher, tag: meta.tag) {
            case .matches: return
            case .otherKey:
                throw ObjDBError(
                    .wrongEncryptionKey, "The file is encrypted with another key than Configuration.encryptionKey", path: path)
            case .damaged:
                throw ObjDBError(
                    .corruptFile, "The file's key-check record is damaged: the key's identifier matches but the record does not authenticate",
                    path: path)
            }
        }
    }

    /// Writes the records of a new, empty file.
    static func initialize(_ txn: Txn, meta: Table, schemaVersion: UInt64) throws {
        if let cipher = txn.environment.cipher {
            try put(txn, meta, Key.encryption, try KeyCheck.record(cipher: cipher, tag: meta.tag))
        }
        try put(txn, meta, Key.magic, magic)
        let format = txn.environment.cipher == nil ? checksummedFormat : bucketsFormat
        if txn.environment.cipher != nil { _ = try txn.openTable(named: TableName.buckets, flags: .plain) }
        try withUnsafeBytes(of: format.littleEndian) { try put(txn, meta, Key.format, Array($0)) }
        try writeUInt64(txn, meta, Key.schemaVersion, schemaVersion)
        try writeSchema(txn, meta, StoredSchema(), stamp: 1)
    }

    /// Stores a schema and its new stamp, and raises the format version to what the schema needs.
    static func writeSchema(_ txn: Txn, _ meta: Table, _ schema: StoredSchema, stamp: UInt64) throws {
        try put(txn, meta, Key.schema, Array(try schema.encoded()))
        try writeUInt64(txn, meta, Key.schemaStamp, stamp)
        let needed = requiredFormat(for: schema)
        if let bytes = try get(txn, meta, Key.format), bytes.count == 4,
            UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self)) < needed
        {
            try withUnsafeBytes(of: needed.littleEndian) { try put(txn, meta, Key.format, Array($0)) }
        }
    }

    /// The oldest format that can hold `schema`: 2 once it has links, collections, embedded
    /// classes or linking objects; 4 once it has a full-text index (a build that does not
    /// maintain full-text indexes must not write to it); 5 once a mixed property tracks links
    /// (a build that does not must not read or write its values).
    static func requiredFormat(for schema: StoredSchema) -> UInt32 {
        if schema.classes.contains(where: { $0.properties.contains { $0.mixedLinks != nil } }) { return 5 }
        if schema.classes.contains(where: { $0.properties.contains { $0.fullText != nil } }) { return 4 }
        let usesRelationships = schema.classes.contains { stored in
            stored.isEmbedded || stored.computed != nil
                || stored.properties.contains { $0.type == .object || $0.collection != nil }
        }
        return usesRelationships ? 2 : 1
    }

    static func get(_ txn: Txn, _ meta: Table, _ key: String) throws -> UnsafeRawBufferPointer? {
        var key = key
        return try key.withUTF8 { try txn.get(meta, key: UnsafeRawBufferPointer($0)) }
    }

    static func put(_ txn: Txn, _ meta: Table, _ key: String, _ value: [UInt8]) throws {
        var key = key
        try key.withUTF8 { k in
            try value.withUnsafeBytes { _ = try txn.put(meta, key: UnsafeRawBufferPointer(k), value: $0) }
        }
    }

    /// Deletes the record `key`, if there is one.
    static func delete(_ txn: Txn, _ meta: Table, _ key: String) throws {
        var key = key
        _ = try key.withUTF8 { try txn.delete(meta, key: UnsafeRawBufferPointer($0), value: nil) }
    }

    static func readUInt64(_ txn: Txn, _ meta: Table, _ key: String) throws -> UInt64? {
        guard let bytes = try get(txn, meta, key) else { return nil }
        guard bytes.count == 8 else {
            throw ObjDBError(.corruptFile, "The meta record '\(key)' has \(bytes.count) bytes instead of 8", path: txn.environment.path)
        }
        return UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
    }

    static func writeUInt64(_ txn: Txn, _ meta: Table, _ key: String, _ value: UInt64) throws {
        try withUnsafeBytes(of: value.littleEndian) { try put(txn, meta, key, Array($0)) }
    }
}
