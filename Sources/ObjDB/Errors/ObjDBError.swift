/// The one error type every throwing ObjDB API throws.
///
/// An `ObjDBError` carries a ``Code`` you can switch on, a human-readable ``message``, and the
/// context that produced it (class, property, key, file path, and the underlying LMDB result
/// code when there is one). Its ``description`` combines all of them:
///
/// ```swift
/// do {
///     try db.write { try db.add(duplicate) }
/// } catch let error as ObjDBError where error.code == .primaryKeyExists {
///     print(error) // ObjDB error 16 (primary key exists): An object of class 'Person' with primary key 1 already exists [class: Person, key: 1]
/// }
/// ```
public struct ObjDBError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure happened. Codes are stable across releases; new ones may be added.
    public let code: Code
    /// A sentence that explains the failure and, where possible, what to do about it.
    public let message: String
    /// The name of the model class involved, if any.
    public var className: String?
    /// The name of the property involved, if any.
    public var propertyName: String?
    /// A description of the object key or primary key involved, if any.
    public var key: String?
    /// The database file involved, if any.
    public var path: String?
    /// The raw LMDB result code (`MDB_*` or an `errno` value), when the failure came from LMDB.
    public var lmdbCode: Int32?
    /// The text LMDB gives for ``lmdbCode`` (`mdb_strerror`).
    public var lmdbMessage: String?

    /// Creates an error; ObjDB creates these for you, but tests and wrappers may build their own.
    public init(
        _ code: Code, _ message: String, className: String? = nil, propertyName: String? = nil,
        key: String? = nil, path: String? = nil, lmdbCode: Int32? = nil, lmdbMessage: String? = nil
    ) {
        self.code = code
        self.message = message
        self.className = className
        self.propertyName = propertyName
        self.key = key
        self.path = path
        self.lmdbCode = lmdbCode
        self.lmdbMessage = lmdbMessage
    }

    /// `ObjDB error <code> (<name>): <message> [class: …, property: …, key: …, path: …] (LMDB <n>: <text>)`.
    public var description: String {
        var text = "ObjDB error \(code.rawValue) (\(code.name)): \(message)"
        var context: [String] = []
        if let className { context.append("class: \(className)") }
        if let propertyName { context.append("property: \(propertyName)") }
        if let key { context.append("key: \(key)") }
        if let path { context.append("path: \(path)") }
        if !context.isEmpty { text += " [\(context.joined(separator: ", "))]" }
        if let lmdbCode { text += " (LMDB \(lmdbCode): \(lmdbMessage ?? "unknown"))" }
        return text
    }

    /// Returns a copy with the given file path recorded, unless one is already set.
    func with(path: String?) -> ObjDBError {
        var copy = self
        if copy.path == nil { copy.path = path }
        return copy
    }
}

extension ObjDBError {
    /// A stable error code. Compare with `==` or switch over the static members.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The numeric code, stable across releases.
        public let rawValue: Int

        /// Creates a code from its number.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// A short name for the code, for messages.
        public var name: String { Self.names[rawValue] ?? "unknown" }

        /// Same as ``name``.
        public var description: String { name }

        /// An LMDB call failed in a way no more specific code describes.
        public static let storage = Code(rawValue: 1)
        /// The database file does not exist (and could not be created, for example read-only).
        public static let fileNotFound = Code(rawValue: 2)
        /// The process may not read or write the file or its directory.
        public static let permissionDenied = Code(rawValue: 3)
        /// The file exists but is not an ObjDB database.
        public static let notAnObjDBFile = Code(rawValue: 4)
        /// The file was written by a newer ObjDB with a file format this version cannot read.
        public static let newerFileFormat = Code(rawValue: 5)
        /// The file is damaged: truncated, or its pages or rows are inconsistent.
        public static let corruptFile = Code(rawValue: 6)
        /// The database reached `Configuration.maximumSize`; the write transaction was rolled back.
        public static let mapFull = Code(rawValue: 7)
        /// Another process grew the file beyond this process's map while transactions were open.
        public static let mapResized = Code(rawValue: 8)
        /// Every reader slot of the file is taken.
        public static let readersFull = Code(rawValue: 9)
        /// A write was attempted on a read-only database.
        public static let readOnly = Code(rawValue: 10)
        /// A model or a stored schema is invalid (two primary keys, unsupported index, …).
        public static let invalidSchema = Code(rawValue: 11)
        /// The schema in the file differs from the models and no migration was configured.
        public static let migrationRequired = Code(rawValue: 12)
        /// The class is not part of this database's schema.
        public static let unknownClass = Code(rawValue: 13)
        /// The class has no property with that name.
        public static let unknownProperty = Code(rawValue: 14)
        /// A value has the wrong type for its property.
        public static let typeMismatch = Code(rawValue: 15)
        /// An object with the same primary key already exists.
        public static let primaryKeyExists = Code(rawValue: 16)
        /// The operation needs a primary key that the class does not have.
        public static let missingPrimaryKey = Code(rawValue: 17)
        /// The object belongs to another `Database` instance.
        public static let wrongDatabase = Code(rawValue: 18)
        /// This thread already holds a write transaction on the same file through another instance.
        public static let writeConflict = Code(rawValue: 19)
        /// A value is out of range or otherwise not storable (for example `nil` for a required property).
        public static let invalidValue = Code(rawValue: 20)
        /// The schema needs more LMDB tables than the environment allows.
        public static let tooManyTables = Code(rawValue: 21)
        /// The configuration cannot be used: a setting is invalid (a `maximumSize` below
        /// `Configuration.minimumMaximumSize`, a `fileURL` that names a directory, `readOnly`
        /// with `deleteDatabaseIfMigrationNeeded`, …), or the file is already open in this
        /// process with settings that conflict with it. The message names the setting.
        public static let incompatibleConfiguration = Code(rawValue: 22)
        /// The object was deleted or its transaction rolled back.
        public static let objectInvalidated = Code(rawValue: 23)
        /// A write operation was called outside a write transaction.
        public static let notInWriteTransaction = Code(rawValue: 24)
        /// The file is still open in this process (for example when deleting it).
        public static let fileInUse = Code(rawValue: 25)
        /// An embedded object that already belongs to a parent was given to another one.
        public static let embeddedObjectOwned = Code(rawValue: 26)
        /// A query is invalid: a predicate string that does not parse, an unknown property, a
        /// value of the wrong type, an operator the property's type does not support, or a wrong
        /// number of arguments. The message names the position and the problem.
        public static let invalidQuery = Code(rawValue: 27)
        /// A write could not begin: more versions of the file are pinned in this process than
        /// `Configuration.maximumNumberOfActiveVersions` allows (see `Database.activeVersionCount`).
        public static let tooManyActiveVersions = Code(rawValue: 28)
        /// A migration failed (its block threw, or a value or a check failed) and the file was
        /// left as it was. The message says why; errors with a more precise code (a duplicate
        /// primary key, a type mismatch) keep theirs.
        public static let migrationFailed = Code(rawValue: 29)
        /// A state persisted by an `ObjDBStore` `Store` could not be decoded into its type (after
        /// its state migrations); the stored data was left as it was. The message names the
        /// store's key, the type and what did not decode.
        public static let stateNotDecodable = Code(rawValue: 30)
        /// A value of a unique property (`@Persisted(unique: true)`) is already held by another
        /// object of the class. The message names the class, the property and the value; from a
        /// property write, `commitWrite()` (or `write`) throws it and nothing is written.
        public static let uniqueConstraintViolation = Code(rawValue: 31)
        /// The sync service refused a connection or a message, or answered with something that
        /// is not its protocol. The message says what, with the service's own code.
        public static let sync = Code(rawValue: 32)
        /// The file is encrypted and the configuration has no `encryptionKey`. Nothing was read
        /// or written.
        public static let encryptionKeyRequired = Code(rawValue: 33)
        /// The file is encrypted with another key than the configuration's `encryptionKey`.
        /// Nothing was read or written.
        public static let wrongEncryptionKey = Code(rawValue: 34)
        /// The configuration has an `encryptionKey` but the file is not encrypted; open it
        /// without one, or make an encrypted copy with `writeCopy(toFile:encryptionKey:)`.
        /// Nothing was read or written.
        public static let fileNotEncrypted = Code(rawValue: 35)

        private static let names: [Int: String] = [
            1: "storage", 2: "file not found", 3: "permission denied", 4: "not an ObjDB file",
            5: "newer file format", 6: "corrupt file", 7: "map full", 8: "map resized",
            9: "readers full", 10: "read-only", 11: "invalid schema", 12: "migration required",
            13: "unknown class", 14: "unknown property", 15: "type mismatch",
            16: "primary key exists", 17: "missing primary key", 18: "wrong database",
            19: "write conflict", 20: "invalid value", 21: "too many tables",
            22: "incompatible configuration", 23: "object invalidated",
            24: "not in write transaction", 25: "file in use", 26: "embedded object owned", 27: "invalid query",
            28: "too many active versions", 29: "migration failed", 30: "state not decodable", 31: "unique constraint violation", 32: "sync",
            33: "encryption key required", 34: "wrong encryption key", 35: "file not encrypted",
        ]
    }
}
