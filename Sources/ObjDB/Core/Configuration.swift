import Foundation

/// Where a database lives and how to open it.
///
/// ```swift
/// var config = Configuration(fileURL: URL(fileURLWithPath: "app.objdb"))
/// config.objectTypes = [Person.self, Dog.self]
/// config.schemaVersion = 2
/// let db = try Database(configuration: config)
/// ```
///
/// `Configuration` is `Sendable`: build it once and open instances on any thread or actor.
public struct Configuration: Sendable {
    /// The database file. The lock file is this path with `-lock` appended. Setting it clears
    /// ``inMemoryIdentifier``.
    public var fileURL: URL? {
        didSet { if fileURL != nil { inMemoryIdentifier = nil } }
    }

    /// Names an in-memory database: instances with the same identifier in this process share
    /// it, and its contents vanish when the last one closes. Setting it clears ``fileURL``.
    public var inMemoryIdentifier: String? {
        didSet { if inMemoryIdentifier != nil { fileURL = nil } }
    }

    /// Open without the ability to write. The file must exist; writes throw
    /// ``ObjDBError/Code/readOnly``.
    ///
    /// LMDB coordinates readers and writers through the lock file beside the database (the
    /// path with `-lock` appended), which a read-only open still writes. When that file can
    /// neither be opened for writing nor created — a database shipped in an application bundle,
    /// or on a read-only volume or container image — the file is opened without it. That mode
    /// assumes no process writes to the file while it is open: without the lock file, LMDB
    /// cannot keep a writer from reusing pages a reader still reads.
    public var readOnly: Bool

    /// The model classes of the database; classes they link to are included automatically.
    ///
    /// When `nil` (the default), the schema is the one stored in the file, and a class is added
    /// the first time an object of it is written. Listing the classes checks them all against
    /// the file at open, and makes using any other class an error.
    public var objectTypes: [ObjectBase.Type]?

    /// The version of your models. Raise it whenever they change.
    public var schemaVersion: UInt64

    /// Delete and recreate the file instead of failing when the models no longer match it.
    public var deleteDatabaseIfMigrationNeeded: Bool

    /// The largest size the file may reach through writes that add or change data, in bytes.
    /// `nil` uses ``defaultMaximumSize``; at least ``minimumMaximumSize``.
    ///
    /// The file grows as data is written; this much address space (not disk) is reserved when
    /// the file opens. A write transaction that would take the file past it throws
    /// ``ObjDBError/Code/mapFull`` and is rolled back.
    ///
    /// Deleting at a full file still works: LMDB copies pages even to delete, so ObjDB keeps
    /// room beyond `maximumSize` — 1 % of it, at least 1 MiB — that only transactions which do
    /// nothing but delete objects may use. After such deletes the file can be up to that much
    /// larger than `maximumSize` (it never shrinks), and writes fill the pages they freed
    /// again, up to the same amount of data as before. Reopening with a larger `maximumSize`
    /// makes room too. (The reserve needs a release of LMDB 0.9 on a 64-bit little-endian
    /// machine; elsewhere a full file may refuse deletes as well.)
    public var maximumSize: Int?

    /// How much of a commit is on disk when it returns, and what a power loss can take back;
    /// ``Durability/full`` by default. See ``Durability`` for what each mode promises and costs.
    public var durability: Durability

    /// The most threads one query may scan a table with; 1 (or less) keeps every query on the
    /// calling thread. Defaults to ``defaultMaximumQueryThreads``.
    ///
    /// A query that must test every row of a large class (no index answers it) may split the
    /// class's objects into parts tested at once on several threads, each part in a read
    /// transaction of its own at the same version. It splits only outside write transactions,
    /// when every comparison of the filter compares a property of the object itself with a
    /// constant, and when the query needs every match: unsorted, or sorted by one number, date
    /// or bool property, with or without a limit. Results are the same either way;
    /// `Results.explain()` says whether a query may split. The extra transactions never take
    /// more than a quarter of the file's reader slots in a process.
    ///
    /// ```swift
    /// var config = Configuration(fileURL: url)
    /// config.maximumQueryThreads = 1    // never use more than the calling thread
    /// ```
    public var maximumQueryThreads = Configuration.defaultMaximumQueryThreads

    /// Receives the failures of reads that cannot throw: a damaged row or value met by a property
    /// getter or an iteration, a storage failure met by `count` or a lookup. The read itself goes
    /// on (a damaged value reads as the property's declared default); this is where you hear of
    /// it. Also told when the file cannot be watched for other processes' commits, which then
    /// reach observers by polling (see `Docs/Notifications.md`). Called on the thread of the
    /// read. `nil` (the default) writes each distinct failure once to standard error.
    ///
    /// ```swift
    /// config.readFailureHandler = { error in
    ///     logger.error("\(error)")      // class, property, key and file are in the error
    /// }
    /// ```
    public var readFailureHandler: (@Sendable (ObjDBError) -> Void)?

    /// Runs when the database is opened with a ``schemaVersion`` higher than the file's, inside
    /// the migration's write transaction, after the stored schema was changed to the models'
    /// (see ``Migration``). `nil` (the default) migrates with the automatic changes alone:
    /// added properties get their declared defaults, removed ones are dropped.
    ///
    /// ```swift
    /// config.schemaVersion = 2
    /// config.migrationBlock = { migration, oldSchemaVersion in
    ///     if oldSchemaVersion < 2 {
    ///         migration.renameProperty(onType: "Person", from: "fullName", to: "name")
    ///     }
    /// }
    /// ```
    public var migrationBlock: MigrationBlock?

    /// Called as a migration goes through the objects of each class (rewriting them for the new
    /// schema, then in `enumerateObjects`), about every thousand objects and at the end of each
    /// class, on the thread that opens the database: for a progress bar at launch.
    public var migrationProgress: (@Sendable (MigrationProgress) -> Void)?

    /// Asked when the file is first opened in this process, with its size and the bytes its
    /// data uses (both in bytes): return `true` to compact it before it is opened — a compacted
    /// copy is written beside the file and renamed over it. `nil` (the default) never asks.
    ///
    /// ```swift
    /// config.shouldCompactOnLaunch = { totalBytes, usedBytes in
    ///     totalBytes > 100 << 20 && Double(usedBytes) / Double(totalBytes) < 0.5
    /// }
    /// ```
    ///
    /// The compaction runs only while no other process has the file open (any LMDB program
    /// counts), and not when this process already has it open; otherwise it is skipped, and
    /// ``Database/compactionOnLaunch`` says why. A failed compaction (a full disk, say) leaves
    /// the file as it was. Not asked for a read-only or in-memory database.
    public var shouldCompactOnLaunch: (@Sendable (_ totalBytes: Int, _ usedBytes: Int) -> Bool)?

    /// The most versions of the file this process may keep pinned when a write begins; `nil`
    /// (the default) for no limit.
    ///
    /// A live ``Database`` pins the version it reads until it refreshes; a frozen database,
    /// object or collection pins its version until the last of them is released. Every version
    /// from the oldest pinned one to the newest committed one keeps its pages in the file
    /// (``Database/activeVersionCount``), so a forgotten frozen result makes the file grow with
    /// every commit. With a limit, a write that begins while more versions are active throws
    /// ``ObjDBError/Code/tooManyActiveVersions`` instead, which names this setting. Must be at
    /// least 1.
    ///
    /// ```swift
    /// config.maximumNumberOfActiveVersions = 64
    /// ```
    public var maximumNumberOfActiveVersions: UInt?

    /// Check the whole file (``Database/verify()``) when this process first opens it, and refuse
    /// it with ``ObjDBError/Code/corruptFile`` if anything is wrong, rather than read a damaged
    /// file (LMDB can crash the process on some damaged pages; the check cannot). It reads every
    /// page once: about as long as reading every object. Later instances on the same file in the
    /// same process do not check again. Off by default.
    public var verifiesFileOnOpen = false

    /// The 64-byte key of an encrypted file, as Realm's `encryptionKey`; `nil` (the default) for
    /// a file that is not encrypted.
    ///
    /// With a key, every stored value that carries data — rows with their collections and
    /// embedded objects, the schema's names, the change log, the outbox — is encrypted and
    /// authenticated with AES-GCM-256, and index and primary-key entries are keyed by a keyed
    /// hash of their values, so equality and primary-key lookups still use them (ranges,
    /// prefixes and sorts on indexed values read the rows instead). A new file is created
    /// encrypted; an existing file must have been created with the same key. Opening an
    /// encrypted file without it throws ``ObjDBError/Code/encryptionKeyRequired``, with another
    /// ``ObjDBError/Code/wrongEncryptionKey``, and a file that is not encrypted with a key
    /// ``ObjDBError/Code/fileNotEncrypted``; a key of another length than 64 bytes
    /// ``ObjDBError/Code/incompatibleConfiguration``. To change the key, or add or remove
    /// encryption, use ``Database/writeCopy(toFile:encryptionKey:)``. See Docs/Encryption.md.
    ///
    /// ```swift
    /// var config = Configuration(fileURL: url)
    /// config.encryptionKey = key64  // Data, 64 bytes, kept in the Keychain
    /// ```
    public var encryptionKey: Data?

    /// For tools that open files without their model classes (`objectTypes` `nil`), such as
    /// `objdb`: open a file whatever its schema version, as if ``schemaVersion`` were the
    /// file's, without raising the file's version. Not part of the stable API.
    @_spi(Inspection)
    public var opensAnySchemaVersion = false

    #if OBJDB_INTERNAL_CHECKS
    /// Tests only: whether migrations may rewrite a class's rows as `enumerateObjects` reaches
    /// them (``FusedRewrite``); `false` takes the slow twin, so that a test can run the same
    /// migration both ways.
    var fusesMigrationRewritesForTesting = true
    #endif

    /// The default ``maximumSize``: 256 GiB on 64-bit desktop and server platforms, 4 GiB on
    /// mobile devices, where address space is scarcer.
    public static var defaultMaximumSize: Int {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        return 4 << 30
        #else
        return MemoryLayout<Int>.size == 8 ? 256 << 30 : 1 << 30
        #endif
    }

    /// The default ``maximumQueryThreads``: the number of active processors, at most 8, read
    /// once, when it is first used.
    public static let defaultMaximumQueryThreads = Swift.min(Swift.max(ProcessInfo.processInfo.activeProcessorCount, 1), 8)

    /// Creates a configuration.
    public init(
        fileURL: URL? = nil, inMemoryIdentifier: String? = nil, readOnly: Bool = false,
        objectTypes: [ObjectBase.Type]? = nil, schemaVersion: UInt64 = 0,
        deleteDatabaseIfMigrationNeeded: Bool = false, maximumSize: Int? = nil, durability: Durability = .full
    ) {
        self.fileURL = inMemoryIdentifier == nil ? (fileURL ?? Self.defaultFileURL) : nil
        self.inMemoryIdentifier = inMemoryIdentifier
        self.readOnly = readOnly
        self.objectTypes = objectTypes
        self.schemaVersion = schemaVersion
        self.deleteDatabaseIfMigrationNeeded = deleteDatabaseIfMigrationNeeded
        self.maximumSize = maximumSize
        self.durability = durability
    }

    /// `default.objdb` in the current directory.
    public static var `default`: Configuration { Configuration() }

    /// An in-memory database named `identifier`.
    public static func inMemory(identifier: String) -> Configuration {
        Configuration(inMemoryIdentifier: identifier)
    }

    /// The file `Configuration.default` uses.
    public static var defaultFileURL: URL {
        URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("default.objdb")
    }
}

extension Configuration {
    /// The canonical path of the data file; in-memory databases live in a RAM-backed temporary
    /// directory, named by process and identifier.
    func resolvedPath() throws -> String {
        if let identifier = inMemoryIdentifier {
            let directory = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
            let safe = identifier.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) ? String($0) : "_" }.joined()
            let digest = String(UInt32(truncatingIfNeeded: identifier.utf8.reduce(UInt64(5381)) { $0 &* 33 &+ UInt64($1) }), radix: 16)
            let name = "objdb-mem-\(getuid())-\(getpid())-\(safe.prefix(40))-\(digest).objdb"
            return URL(fileURLWithPath: directory).appendingPathComponent(name).path
        }
        guard let fileURL else {
            throw ObjDBError(.fileNotFound, "The configuration has neither a fileURL nor an inMemoryIdentifier")
        }
        return try Self.canonicalPath(fileURL.path)
    }

    /// The path with its directory's symbolic links resolved, so that two spellings of one file
    /// share one environment.
    static func canonicalPath(_ path: String) throws -> String {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        guard let resolved = realpath(directory, nil) else {
            throw ObjDBError(.fileNotFound, "The directory of the database does not exist", path: path)
        }
        defer { free(resolved) }
        let file = URL(fileURLWithPath: String(cString: resolved)).appendingPathComponent(url.lastPathComponent).path
        if let target = realpath(file, nil) {
            defer { free(target) }
            return String(cString: target)
        }
        return file
    }

    /// The environment options this configuration asks for.
    var environmentOptions: EnvironmentOptions {
        EnvironmentOptions(
            readOnly: readOnly, mapSize: maximumSize ?? Self.defaultMaximumSize,
            sync: inMemoryIdentifier != nil ? .noSync : durability.syncMode,
            deleteOnClose: inMemoryIdentifier != nil, cipher: encryptionKey.map(StoreCipher.init(key:)))
    }
}
