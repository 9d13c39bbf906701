import Foundation

/// The result of opening a file: the environment, its `meta` table and the catalog.
struct OpenedFile {
    let lease: EnvironmentLease
    let meta: Table
    let catalog: Catalog
    let formatVersion: UInt32
    /// What `shouldCompactOnLaunch` led to; `nil` without it.
    var compaction: CompactionOnLaunch?

    /// Opens the environment, checks that the file is an ObjDB file of a readable format,
    /// initialises a new file, and reconciles the stored schema with the configured classes.
    ///
    /// Every check runs before anything is written, so a file that is refused stays as it was.
    static func open(path: String, configuration given: Configuration) throws -> OpenedFile {
        var configuration = given
        let layouts = try SchemaDiscovery.layoutsLinked(from: configuration.objectTypes ?? [])
        try SchemaValidation.validateLinks(layouts.map(\.schema))
        try checkDistinctNames(layouts)
        // What shouldCompactOnLaunch leads to when the file is open in this process already
        // (the registry then does not call the closure below).
        let asks = configuration.shouldCompactOnLaunch.flatMap { configuration.readOnly || configuration.inMemoryIdentifier != nil ? nil : $0 }
        var compaction: CompactionOnLaunch? = asks.map { _ in
            configuration.verifiesFileOnOpen
                ? .skipped(reason: "verifiesFileOnOpen is set, and compacting reads every page before the check could; compact with writeCopy(toFile:) after the open")
                : .skipped(reason: "the file is already open in this process")
        }
        let lease = try EnvironmentRegistry.shared.acquire(path: path, options: configuration.environmentOptions) {
            guard let asks, !configuration.verifiesFileOnOpen else { return }
            compaction = Compaction.compactIfWanted(path: path, cipher: configuration.environmentOptions.cipher, asks)
        }
        let env = lease.environment
        if configuration.verifiesFileOnOpen && !env.hasBeenVerified {
            try verifyBeforeReading(lease, path: path)
        }
        // The row buckets of an encrypted file, opened before any snapshot that may read them
        // begins (LMDB refuses a handle opened after the transaction began).
        if env.cipher != nil { _ = try env.existingTable(named: TableName.buckets, flags: .plain) }

        // Inspect without writing.
        var header: FileMeta.Header?
        if let meta = try env.existingTable(named: TableName.meta, flags: .plain) {
            let read = try ReadTransaction(lease)
            header = try FileMeta.read(read.txn, meta: meta, path: path)
        } else {
            let read = try ReadTransaction(lease)
            if try read.txn.mainEntryCount() > 0 {
                throw ObjDBError(.notAnObjDBFile, "The file is an LMDB database but was not written by ObjDB", path: path)
            }
            if configuration.readOnly {
                throw ObjDBError(.notAnObjDBFile, "The file is empty, and a read-only database cannot initialise it", path: path)
            }
        }

        if var header {
            if configuration.opensAnySchemaVersion && configuration.objectTypes == nil {
                // A tool without the model classes reads the file at the version it has.
                configuration.schemaVersion = max(configuration.schemaVersion, header.schemaVersion)
            }
            try checkVersion(file: header.schemaVersion, configured: configuration.schemaVersion, path: path)
            let differences = SchemaChanges.differences(layouts, header.schema)
            if configuration.schemaVersion > header.schemaVersion && !configuration.readOnly,
                let metaTable = try env.existingTable(named: TableName.meta, flags: .plain)
            {
                try MigrationRun.migrate(lease: lease, meta: metaTable, layouts: layouts, configuration: configuration, path: path)
                let read = try ReadTransaction(lease)
                header = try FileMeta.read(read.txn, meta: metaTable, path: path)
            } else if !differences.isEmpty {
                throw migrationRequired(differences, version: header.schemaVersion, configuration, path: path)
            }
            var plan = header.schema
            var changes = SchemaChanges()
            try SchemaChanges.check(layouts, against: &plan, changes: &changes)
            try checkVersion(file: header.schemaVersion, configured: configuration.schemaVersion, path: path)
            // A mixed property without its mixed-links table, in any class (modelled or not).
            let lacksMixedLinks = header.schema.classes.contains { $0.properties.contains(where: \.lacksMixedLinks) }
            let needsWrite = changes.any || configuration.schemaVersion > header.schemaVersion || lacksMixedLinks
            if needsWrite && !configuration.readOnly {
                try reconcile(env, layouts: layouts, configuration: configuration, path: path)
            }
        } else {
            try reconcile(env, layouts: layouts, configuration: configuration, path: path)
        }

        guard let meta = try env.existingTable(named: TableName.meta, flags: .plain) else {
            throw ObjDBError(.corruptFile, "The meta table disappeared while opening", path: path)
        }
        // Again, once the file is initialised: another process may have created it (and its
        // buckets) after the look above, while this one waited to write.
        if env.cipher != nil && env.rowBuckets == nil { _ = try env.existingTable(named: TableName.buckets, flags: .plain) }
        let read = try ReadTransaction(lease)
        let final = try FileMeta.read(read.txn, meta: meta, path: path)
        let catalog = try Catalog.build(
            stored: final.schema, stamp: final.stamp, env: env, layouts: layouts,
            configuredTypes: configuration.objectTypes.map { _ in Set(layouts.map { ObjectIdentifier($0.type) }) })
        // The sync tables of a synced file, opened before the instance's first snapshot begins:
        // LMDB does not let a read transaction use a table handle opened after it began
        // (EINVAL), so opening them at their first read would fail in a freshly opened
        // environment.
        if try SyncTables.syncedClasses(read.txn, meta: meta) != nil {
            _ = try env.existingTable(named: TableName.sync, flags: [])
            _ = try env.existingTable(named: TableName.outbox, flags: .objects)
        }
        return OpenedFile(lease: lease, meta: meta, catalog: catalog, formatVersion: final.format, compaction: compaction)
    }

    /// Writes what the file needs, in one write transaction that re-reads the file first (another
    /// process may have done the same meanwhile).
    private static func reconcile(_ env: Environment, layouts: [ClassLayout], configuration: Configuration, path: String) throws {
        let write = try WriteTransaction(env)
        let txn = write.txn
        let fresh = try env.existingTable(named: TableName.meta, flags: .plain) == nil
            && txn.mainEntryCount() == 0
        let meta = try write.openTable(named: TableName.meta, flags: .plain)
        if fresh {
            try FileMeta.initialize(txn, meta: meta, schemaVersion: configuration.schemaVersion)
        }
        let header = try FileMeta.read(txn, meta: meta, path: path)
        try checkVersion(file: header.schemaVersion, configured: configuration.schemaVersion, path: path)
        var stored = header.schema
        var changes = SchemaChanges()
        for layout in layouts {
            _ = try changes.ensure(layout, in: &stored, txn: txn)
        }
        try changes.addMixedLinks(in: &stored, txn: txn)
        if changes.any {
            try FileMeta.writeSchema(txn, meta, stored, stamp: header.stamp + 1)
        }
        if configuration.schemaVersion > header.schemaVersion {
            try FileMeta.writeUInt64(txn, meta, FileMeta.Key.schemaVersion, configuration.schemaVersion)
        }
        try FileMeta.upgradeFormat(txn, meta)
        try FileMeta.seal(txn, meta)
        try write.commit()
    }

    /// Runs ``Database/verify()`` before anything reads the file through LMDB, for
    /// ``Configuration/verifiesFileOnOpen``.
    private static func verifyBeforeReading(_ lease: EnvironmentLease, path: String) throws {
        let report = try FileVerifier.verifyPinned(lease, path: path)
        guard report.isHealthy else {
            let count = report.problems.count + report.omittedProblems
            let first = report.problems.first.map { ": \($0)" } ?? ""
            throw ObjDBError(
                .corruptFile,
                "The file failed the verification that Configuration.verifiesFileOnOpen asks for, with \(count) problem(s)\(first)",
                path: path)
        }
        lease.environment.hasBeenVerified = true
    }

    /// The error for models that differ from the file without a higher schema version.
    private static func migrationRequired(
        _ differences: [(className: String, text: String)], version: UInt64, _ configuration: Configuration, path: String
    ) -> ObjDBError {
        let classes = Set(differences.map(\.className))
        let remedy = configuration.readOnly
            ? "A read-only database cannot migrate: open it once without readOnly and with a higher Configuration.schemaVersion"
            : "Raise Configuration.schemaVersion above \(version) to migrate (a migrationBlock can convert values), or set deleteDatabaseIfMigrationNeeded"
        return ObjDBError(
            .migrationRequired,
            "The model classes differ from the schema stored in the file (schema version \(version)): \(differences.map(\.text).joined(separator: "; ")). \(remedy)",
            className: classes.count == 1 ? classes.first : nil, path: path)
    }

    private static func checkVersion(file: UInt64, configured: UInt64, path: String) throws {
        if configured < file {
            throw ObjDBError(
                .migrationRequired,
                "The configured schemaVersion \(configured) is lower than the file's schema version \(file); set Configuration.schemaVersion to at least \(file)",
                path: path)
        }
    }

    private static func checkDistinctNames(_ layouts: [ClassLayout]) throws {
        var seen: [String: ObjectIdentifier] = [:]
        for layout in layouts {
            let id = ObjectIdentifier(layout.type)
            if let other = seen[layout.className], other != id {
                throw ObjDBError(
                    .invalidSchema,
                    "Two model classes are named '\(layout.className)'; override className in one of them",
                    className: layout.className)
            }
            seen[layout.className] = id
        }
    }
}

extension Catalog {
    /// Builds the runtime information of every stored class, opening their tables.
    static func build(
        stored: StoredSchema, stamp: UInt64, env: Environment, layouts: [ClassLayout],
        configuredTypes: Set<ObjectIdentifier>?, reusing previous: Catalog? = nil
    ) throws -> Catalog {
        var catalog = Catalog(stored: stored, stamp: stamp, configuredTypes: configuredTypes)
        for storedClass in stored.classes {
            let layout = previous?.byName[storedClass.name]?.layout
                ?? layouts.first { $0.className == storedClass.name }
            let info: ClassInfo
            if let old = previous?.byName[storedClass.name], old.stored == storedClass {
                info = old
            } else {
                info = ClassInfo(stored: storedClass, tables: try ClassTables.open(storedClass, env: env), layout: layout)
            }
            catalog.byName[storedClass.name] = info
            if let layout = info.layout { catalog.byType[ObjectIdentifier(layout.type)] = info }
        }
        return catalog
    }
}

extension Database {
    /// Opens the database described by `configuration`, creating the file if needed.
    ///
    /// Throws ``ObjDBError`` if the file is not an ObjDB database (``ObjDBError/Code/notAnObjDBFile``),
    /// was written by a newer version (``ObjDBError/Code/newerFileFormat``), is damaged
    /// (``ObjDBError/Code/corruptFile``), or its schema differs from the model classes
    /// (``ObjDBError/Code/migrationRequired``), and refuses settings that cannot work (a
    /// ``Configuration/maximumSize`` below ``Configuration/minimumMaximumSize``, a
    /// ``Configuration/fileURL`` that names a directory, …) with
    /// ``ObjDBError/Code/incompatibleConfiguration``. A file that fails to open is left unchanged.
    ///
    /// The database belongs to the isolation domain that opens it (`isolation`, the caller's
    /// actor by default): commits by other instances and processes are delivered to its
    /// observers there — on the main queue for the main actor, on the actor's executor for
    /// another actor; code on the main queue counts as the main actor's. Opened outside any
    /// actor and off the main queue, it delivers at its own commits, at ``refresh()`` and while
    /// a `changes` loop of it waits. `nil` opens an instance that belongs to no actor (except on
    /// the main queue, whose code is the main actor's).
    /// (Docs/Concurrency.md has the table.)
    public convenience init(configuration: Configuration, isolation: isolated (any Actor)? = #isolation) throws {
        try configuration.validate()
        let path = try configuration.resolvedPath()
        if configuration.inMemoryIdentifier == nil { try Configuration.checkIsFileOrMissing(path, readOnly: configuration.readOnly) }
        let opened: OpenedFile
        do {
            opened = try OpenedFile.open(path: path, configuration: configuration)
        } catch let error as ObjDBError where error.code == .migrationRequired && configuration.deleteDatabaseIfMigrationNeeded {
            guard !EnvironmentRegistry.shared.isOpen(path: path) else {
                throw ObjDBError(
                    .fileInUse,
                    "The schema changed and deleteDatabaseIfMigrationNeeded is set, but the file is still open in this process",
                    path: path)
            }
            _ = try Database.removeFiles(atPath: path)
            opened = try OpenedFile.open(path: path, configuration: configuration)
        }
        self.init(
            configuration: configuration, path: path, lease: opened.lease, meta: opened.meta,
            formatVersion: opened.formatVersion, catalog: opened.catalog, frozen: nil)
        compactionOnLaunch = opened.compaction
        belong(to: isolation)
    }

    /// Opens `Configuration.default`.
    public convenience init() throws {
        try self.init(configuration: .default)
    }
}
