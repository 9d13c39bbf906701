import Foundation

/// Runs a migration when a file is opened with a higher `schemaVersion`: one write transaction
/// that changes the stored schema to the models', rewrites the rows of every changed class,
/// runs the migration block, rebuilds and checks primary keys, and commits — or, if anything
/// fails, leaves the file as it was.
enum MigrationRun {
    /// Migrates the file of `lease` to `configuration.schemaVersion`, if it is still below it
    /// once the write lock is held (another process may have migrated meanwhile).
    static func migrate(lease: EnvironmentLease, meta: Table, layouts: [ClassLayout], configuration: Configuration, path: String) throws {
        let env = lease.environment
        // The old tables are opened before the transactions begin: a table handle opened after a
        // transaction began is not valid in it. Another process may migrate between the look and
        // the write lock; the stamp tells, and the look is taken again.
        var attempt = 0
        while true {
            attempt += 1
            let look = try ReadTransaction(lease)
            let seen = try FileMeta.read(look.txn, meta: meta, path: path)
            let oldCatalog = try Catalog.build(stored: seen.schema, stamp: seen.stamp, env: env, layouts: [], configuredTypes: nil)
            let write = try WriteTransaction(env)
            let header = try FileMeta.read(write.txn, meta: meta, path: path)
            guard configuration.schemaVersion > header.schemaVersion else { return }  // aborted with `write`
            guard header.stamp == seen.stamp else {
                if attempt < 3 { continue }
                throw ObjDBError(.writeConflict, "The schema kept changing while the migration began; open the database again", path: path)
            }
            // Begun while the write transaction is open: it reads the version the migration starts from.
            let before = try ReadTransaction(lease)
            // The old catalog serves this view alone: no copy is needed for sharing.
            let old = FrozenVersion(
                transaction: before, lease: lease, configuration: configuration, path: path, meta: meta,
                formatVersion: header.format, sharedCatalog: oldCatalog
            ).makeView()
            try run(write, header: header, old: old, lease: lease, meta: meta, layouts: layouts, configuration: configuration, path: path)
            return
        }
    }

    /// The migration proper, in `write`, from the version `old` reads.
    private static func run(
        _ write: consuming WriteTransaction, header: FileMeta.Header, old: Database, lease: EnvironmentLease,
        meta: Table, layouts: [ClassLayout], configuration: Configuration, path: String
    ) throws {
        let plan = plan(header.schema, layouts)
        let txn = write.txn
        var catalog = Catalog(stored: plan.schema, stamp: header.stamp + 1, configuredTypes: nil)
        for stored in plan.schema.classes {
            let layout = layouts.first { $0.className == stored.name }
            let info = ClassInfo(stored: stored, tables: try ClassTables.create(stored, txn: txn), layout: layout)
            catalog.byName[stored.name] = info
            if let layout { catalog.byType[ObjectIdentifier(layout.type)] = info }
        }
        try FileMeta.writeSchema(txn, meta, plan.schema, stamp: header.stamp + 1)

        let new = Database(
            configuration: configuration, path: path, lease: lease, meta: meta, formatVersion: header.format,
            catalog: catalog, frozen: nil)
        let context = WriteContext(transaction: write, catalog: catalog)
        context.isMigration = true
        context.changes.schemaChanged = true
        new.writes.serial &+= 1
        new.writeContext = context
        new.generation &+= 1
        do {
            let rewrites = PendingRewrites(plan.rewrites, old: old, new: new, context: context, progress: configuration.migrationProgress)
            let migration = Migration(old: old, new: new, rewrites: rewrites, progress: configuration.migrationProgress)
            do {
                try configuration.migrationBlock?(migration, header.schemaVersion)
            } catch {
                throw BlockThrew(error: error)
            }
            try rewrites.performAll()
            if let failure = migration.failures.first ?? context.transaction.failure { throw failure }
            try new.flushPendingWrites(context)
            // Classes the block emptied that no model declares leave the file.
            let models = Set(layouts.map(\.className))
            try ClassRemoval.remove(ClassRemoval.removable(migration.emptiedClasses, models: models, in: new), from: new, context)
            try rebuildPrimaryKeys(new.catalog, plan, context, path: path)
            try checkUniqueValues(new.catalog, layouts, context)
            // Classes embedded now that were not (or did not exist: the block may have created
            // their objects).
            let becameEmbedded = plan.schema.classes.filter { stored in
                stored.isEmbedded && !(header.schema.classes.first { $0.name == stored.name }?.isEmbedded ?? false)
            }.map(\.name)
            if !becameEmbedded.isEmpty { try context.storage { try EmbeddedParentsCheck.run(becameEmbedded, new.catalog, $0) } }
            try FileMeta.writeUInt64(txn, meta, FileMeta.Key.schemaVersion, configuration.schemaVersion)
            _ = try FileMeta.upgradeFormat(txn, meta)
            try FileMeta.seal(txn, meta)
            context.isMigration = false
            try new.commitWrite()
        } catch {
            context.isMigration = false
            if new.isInWriteTransaction { new.cancelWrite() }
            throw failed(header.schemaVersion, configuration.schemaVersion, error, path: path)
        }
    }

    /// What the migration block threw, told apart from the migration's own errors.
    private struct BlockThrew: Error {
        let error: any Error
    }

    /// The error of a failed migration: the file is unchanged.
    private static func failed(_ from: UInt64, _ to: UInt64, _ error: any Error, path: String) -> ObjDBError {
        let reason: String
        let base: ObjDBError?
        if let threw = error as? BlockThrew {
            reason = "the migration block threw: \(threw.error)"
            base = threw.error as? ObjDBError
        } else {
            base = error as? ObjDBError
            reason = base?.message ?? "\(error)"
        }
        // Never migrationRequired: deleteDatabaseIfMigrationNeeded would delete the file.
        let code = base.map { $0.code == .migrationRequired ? .migrationFailed : $0.code } ?? .migrationFailed
        return ObjDBError(
            code,
            "The migration from schema version \(from) to \(to) failed, and the file was left exactly as it was (schema version \(from)): \(reason)",
            className: base?.className, propertyName: base?.propertyName, key: base?.key, path: path)
    }

    // MARK: The new schema

    /// A class whose rows are rewritten: its stored form before and after, and for each new
    /// column the old column it takes its value from (`nil`: the declared default; a `nil` in
    /// a column that is required now also becomes the default).
    struct Rewrite {
        let old: StoredClass
        let new: StoredClass
        let sources: [Int?]
        /// Whether the rows change; `false` when only indexes or the primary key do.
        var rewritesRows = true
    }

    /// The schema after the migration, and the classes whose rows change.
    struct Plan {
        var schema: StoredSchema
        var rewrites: [Rewrite] = []
        /// Classes whose primary key changed (its table must be rebuilt).
        var newPrimaryKeys: Set<UInt32> = []
    }

    /// Whether `model` holds the data of `stored` as it is: same type, element and link target;
    /// the primary-key flag may differ (the values stay, the key table is rebuilt), and with
    /// `anyOptionality` so may optionality (values are copied, `nil` becomes the default).
    static func keepsData(_ model: Property, _ stored: StoredProperty, anyOptionality: Bool = false) -> Bool {
        model.type == stored.type && model.bitWidth == (stored.bits ?? model.bitWidth) && model.objectClassName == stored.objectClass
            && model.collection == stored.collection && (anyOptionality || model.isOptional == stored.optional)
    }

    /// The stored schema the models need, from the stored one: a property the model declares
    /// with the same stored data keeps its id (and its tables); any other gets a new id, and
    /// keeps its values when only its optionality changed.
    static func plan(_ stored: StoredSchema, _ layouts: [ClassLayout]) -> Plan {
        var plan = Plan(schema: stored)
        for layout in layouts {
            guard var existing = plan.schema.storedClass(named: layout.className) else {
                _ = plan.schema.addClass(layout.schema)
                continue
            }
            let before = existing
            let model = layout.schema.properties.filter { !$0.isComputed }
            var properties: [StoredProperty] = []
            var sources: [Int?] = []
            // Kept properties first, in their stored order: their columns move least.
            for (column, property) in before.properties.enumerated() {
                guard let wanted = model.first(where: { $0.name == property.name }), keepsData(wanted, property) else { continue }
                var kept = property
                kept.primaryKey = wanted.isPrimaryKey
                kept.indexed = wanted.isIndexed && !wanted.isPrimaryKey
                if !wanted.isFullTextIndexed {
                    (kept.fullText, kept.fullTextFolding) = (nil, nil)
                } else if !property.fullTextIsCurrent {
                    (kept.fullText, kept.fullTextFolding) = (FullTextTokenizer.version, FullTextTokenizer.foldingDigest)
                }
                if kept.lacksMixedLinks { kept.mixedLinks = StoredProperty.mixedLinksVersion }
                properties.append(kept)
                sources.append(column)
            }
            for property in model where !properties.contains(where: { $0.name == property.name }) {
                existing.addProperty(property)
                guard var added = existing.properties.last else { continue }
                added.indexed = property.isIndexed && !property.isPrimaryKey
                properties.append(added)
                sources.append(before.properties.firstIndex { $0.name == property.name && keepsData(property, $0, anyOptionality: true) })
            }
            existing.properties = properties
            existing.embedded = layout.schema.isEmbedded ? true : nil
            existing.setComputed(layout.schema.properties.filter(\.isComputed))
            plan.schema.replace(existing)
            let oldKey = before.properties.first(where: \.primaryKey).map(\.id)
            let newKey = properties.first(where: \.primaryKey).map(\.id)
            if oldKey != newKey { plan.newPrimaryKeys.insert(existing.id) }
            let sameRows = sources.count == before.properties.count
                && sources.enumerated().allSatisfy { $0.element == $0.offset && properties[$0.offset].id == before.properties[$0.offset].id }
            let sameIndexes = zip(properties, before.properties).allSatisfy {
                $0.indexed == $1.indexed && $0.fullText == $1.fullText && $0.fullTextFolding == $1.fullTextFolding
                    && $0.mixedLinks == $1.mixedLinks
            }
            if !sameRows || !sameIndexes || oldKey != newKey {
                plan.rewrites.append(Rewrite(old: before, new: existing, sources: sources, rewritesRows: !sameRows))
            }
        }
        return plan
    }

    // MARK: Rewriting rows

    /// Rewrites every row of a changed class for its new columns, fills the indexes of its new
    /// columns, and empties the tables of the columns it lost.
    static func rewrite(
        _ info: ClassInfo, from oldInfo: ClassInfo, _ change: Rewrite, old: Database, new: Database, _ context: WriteContext,
        progress: (@Sendable (MigrationProgress) -> Void)?
    ) throws {
        do {
            let oldTxn = try old.requireReadableTxn()
            let total = try oldTxn.entryCount(oldInfo.objectsTable)
            try context.storage { txn in
                if change.rewritesRows { try rewriteRows(info, from: oldInfo, change, old: old, new: new, context, txn, total: total, progress: progress) }
                try updateTables(info, change, context, txn)
            }
        } catch {
            // A rewrite that stopped half-way (the class's table emptied, part of its rows
            // written) must fail the migration even if the block catches the error: recorded as
            // the transaction's failure, which the migration throws when the block returns.
            context.transaction.doom(Database.objdbError(error, path: new.path))
            throw error
        }
        new.generation &+= 1
    }

    /// Writes every row of the class in its new layout, from the rows of the old version.
    private static func rewriteRows(
        _ info: ClassInfo, from oldInfo: ClassInfo, _ change: Rewrite, old: Database, new: Database, _ context: WriteContext, _ txn: Txn,
        total: Int, progress: (@Sendable (MigrationProgress) -> Void)?
    ) throws {
        let oldTxn = try old.requireReadableTxn()
        let cursor = try Cursor(oldTxn, oldInfo.objectsTable)
        var entry = try cursor.first()
        var processed = 0
        let defaults = encodedDefaults(info, change)
        // Every row is rewritten, from the old version's snapshot (which emptying the table in
        // this transaction does not change): the table is emptied and the rows appended in key
        // order, which costs a seventh of replacing each row where it is.
        try txn.empty(info.objectsTable)
        while let current = entry {
            let key = current.objectKey
            // Appended through the table's insert cursor: keys come in ascending order.
            _ = try context.transaction.withInsertCursor(info.objectsTable, txn) { cursor in
                try appendRewritten(
                    key, old.rows.checked(oldInfo, key: key, current.value), info, change, defaults, building: context.scratch.row, through: cursor,
                    path: new.path)
            }
            processed += 1
            if processed % 1_000 == 0 || processed == total {
                progress?(MigrationProgress(className: info.name, phase: .rewriting, processed: processed, total: total))
            }
            entry = try cursor.next()
        }
    }

    /// Per new column, the bytes of its declared default when the rewrite may write it (the
    /// column has no source, or is required now): encoded once for all rows.
    static func encodedDefaults(_ info: ClassInfo, _ change: Rewrite) -> [[UInt8]?] {
        change.sources.indices.map { change.sources[$0] == nil || !change.new.properties[$0].optional ? info.encodedDefault(column: $0) : nil }
    }

    /// Appends the row of `key` in the new layout, built from its old row in `row`, through
    /// `cursor` (on the class's table; keys must ascend). Returns the stored row.
    static func appendRewritten(
        _ key: UInt64, _ oldRow: RowView, _ info: ClassInfo, _ change: Rewrite, _ defaults: [[UInt8]?], building row: RowBuilder,
        through cursor: borrowing Cursor, path: String
    ) throws -> RowView {
        row.reset()
        for (column, source) in change.sources.enumerated() {
            guard let source else {
                row.appendDefault(defaults[column])
                continue
            }
            let value = oldRow.column(source)
            let isNil: Bool
            switch value {
            case .null, .absent: isNil = true
            default: isNil = false
            }
            if isNil && !change.new.properties[column].optional {
                row.appendDefault(defaults[column])
            } else {
                row.append(value)
            }
        }
        let size = row.encodedSize
        guard let space = try cursor.storeRow(key: key, count: size, flags: .append, { row.write(into: $0) }) else {
            throw ObjDBError(.storage, "Could not rewrite object \(key) of '\(info.name)'", className: info.name, path: path)
        }
        return RowView(UnsafeRawBufferPointer(space)) ?? .damaged
    }

    /// Empties the index and backlink tables of the columns a class lost, fills those of its new
    /// columns, and the key table when it lost its primary key.
    static func updateTables(_ info: ClassInfo, _ change: Rewrite, _ context: WriteContext, _ txn: Txn) throws {
        // Tables of the columns that are gone: emptied (LMDB handles of dropped tables
        // cannot be reused safely, so the tables stay).
        let keptIDs = Set(change.new.properties.map(\.id))
        for property in change.old.properties where !keptIDs.contains(property.id) {
            if property.type == .object {
                try txn.empty(try txn.openTable(named: TableName.backlinks(change.old.id, property: property.id), flags: .backlinks))
            }
            if property.indexed && !property.primaryKey {
                try txn.empty(try txn.openTable(named: TableName.index(change.old.id, property: property.id), flags: .multimap))
            }
            if property.mixedLinks != nil {
                try txn.empty(try txn.openTable(named: TableName.mixedLinks(change.old.id, property: property.id), flags: .multimap))
            }
        }
        // Kept columns that lost their index (or became the primary key): emptied.
        for property in change.old.properties where property.indexed && !property.primaryKey {
            guard let now = change.new.properties.first(where: { $0.id == property.id }), !now.indexed || now.primaryKey else { continue }
            try txn.empty(try txn.openTable(named: TableName.index(change.old.id, property: property.id), flags: .multimap))
        }
        // Backlinks of new link columns that took their values from old ones (a rename, an
        // optionality change).
        let oldIDs = Set(change.old.properties.map(\.id))
        for (column, property) in change.new.properties.enumerated()
        where property.type == .object && change.sources[column] != nil && !oldIDs.contains(property.id) {
            guard let backlinks = info.tables.backlinks[column] else { continue }
            let kind = info.columnKinds[column]
            try fillLinks(backlinks, of: info, context, txn) { row in
                Database.linkedKeys(row.column(column), kind: kind).map { withUnsafeBytes(of: $0) { Array($0) } }
            }
        }
        // Mixed links of new mixed columns that took their values from old ones (a rename).
        for (column, property) in change.new.properties.enumerated()
        where property.type == .mixed && change.sources[column] != nil && !oldIDs.contains(property.id) {
            guard let table = info.tables.mixedLinks[column] else { continue }
            try txn.empty(table)
            let kind = info.columnKinds[column]
            try fillLinks(table, of: info, context, txn) { row in Array(Database.mixedLinkKeys(row.column(column), kind: kind) ?? []) }
        }
        // Indexes of new columns, and of kept columns that gained one.
        let oldIndexed = Set(change.old.properties.filter { $0.indexed && !$0.primaryKey }.map(\.id))
        for (column, property) in change.new.properties.enumerated() where property.indexed && !oldIndexed.contains(property.id) {
            guard let index = info.tables.indexes[column] else { continue }
            try txn.empty(index)
            try IndexBuilder.fill(index, column: column, kind: property.type.scalarKind, from: info.objectsTable, txn: txn)
        }
        // Full-text indexes: emptied where the column or its index is gone, filled where the
        // column or its index is new (or was filled by another tokenizer version). Kept texts
        // keep their postings: a rewrite copies them unchanged.
        let oldFullText = Dictionary(change.old.properties.compactMap { p in p.fullText.map { (p.id, $0) } }, uniquingKeysWith: { a, _ in a })
        let newFullText = Set(change.new.properties.filter { $0.fullText != nil }.map(\.id))
        for property in change.old.properties where property.fullText != nil && !newFullText.contains(property.id) {
            try txn.empty(try txn.openTable(named: TableName.fullText(change.old.id, property: property.id), flags: .postings))
        }
        let oldFolding = Dictionary(change.old.properties.compactMap { p in p.fullTextFolding.map { (p.id, $0) } }, uniquingKeysWith: { a, _ in a })
        for (column, property) in change.new.properties.enumerated()
        where property.fullText != nil && (oldFullText[property.id] != property.fullText || oldFolding[property.id] != property.fullTextFolding) {
            guard let table = info.tables.fullText[column] else { continue }
            try txn.empty(table)
            try FullTextIndexBuilder.fill(table, column: column, from: info.objectsTable, txn: txn)
        }
        // A primary key that is gone: its table emptied (it stays, as dropped tables do).
        if change.old.properties.contains(where: \.primaryKey) && !change.new.properties.contains(where: \.primaryKey) {
            try txn.empty(try txn.openTable(named: TableName.primaryKeys(change.old.id), flags: .multimap))
        }
    }

    /// Refuses a rename between properties of different types.
    static func checkRename(_ className: String, from was: StoredProperty, to now: StoredProperty) throws {
        guard was.type == now.type, was.objectClass == now.objectClass, was.collection == now.collection else {
            throw ObjDBError(
                .typeMismatch,
                "renameProperty: '\(className).\(was.name)' is \(was.property.typeName) but '\(className).\(now.name)' is \(now.property.typeName); rename keeps the type. Change the type by writing the new value in enumerateObjects",
                className: className, propertyName: now.name)
        }
    }

    /// Fills a table of links (a backlink or mixed-links table) from the rows of `info`: under
    /// each target key `targets` reads from a row, the row's object key.
    private static func fillLinks(
        _ table: Table, of info: ClassInfo, _ context: WriteContext, _ txn: Txn, targets: (RowView) -> [[UInt8]]
    ) throws {
        let cursor = try Cursor(txn, info.objectsTable)
        var entry = try cursor.first()
        var links: [(target: [UInt8], origin: UInt64)] = []
        while let current = entry {
            for target in targets(RowView(current.value) ?? .damaged) { links.append((target, current.objectKey)) }
            entry = try cursor.next()
        }
        try context.transaction.withInsertCursor(table, txn) { cursor in
            for var link in links {
                _ = try link.target.withUnsafeBytes { key in
                    try withUnsafeBytes(of: &link.origin) { try cursor.put(key: key, value: $0) }
                }
            }
        }
    }

    // MARK: Renames

    /// Copies property `from` of the old objects of `className` into property `to` of the new
    /// ones: for free while the class's rows are not rewritten yet (the rewrite takes the values
    /// from `from`), else object by object.
    static func rename(_ className: String, from: String, to: String, old: Database, new: Database, rewrites: PendingRewrites) throws {
        if try rewrites.rename(className, from: from, to: to) { return }
        guard let oldInfo = old.classInfo(named: className), let info = new.classInfo(named: className) else {
            throw ObjDBError(.unknownClass, "renameProperty: no class '\(className)' in the old and the new schema", className: className)
        }
        guard let source = oldInfo.stored.column(of: from) else {
            throw ObjDBError(.unknownProperty, "renameProperty: the old schema of '\(className)' has no property '\(from)'", className: className, propertyName: from)
        }
        guard let target = info.stored.column(of: to) else {
            throw ObjDBError(.unknownProperty, "renameProperty: the new schema of '\(className)' has no property '\(to)'", className: className, propertyName: to)
        }
        let was = oldInfo.stored.properties[source]
        let now = info.stored.properties[target]
        try checkRename(className, from: was, to: now)
        let context = try new.requireWrite("renameProperty")
        try new.flushPendingWrites(context)
        let oldTxn = try old.requireReadableTxn()
        let cursor = try Cursor(oldTxn, oldInfo.objectsTable)
        var entry = try cursor.first()
        while let current = entry {
            let key = current.objectKey
            let value = old.rows.checked(oldInfo, key: key, current.value).column(source)
            if let row = new.rows.fetch(info, key: key) {
                context.scratch.row.reset()
                for column in 0..<info.columnCount {
                    if column != target {
                        context.scratch.row.append(row.column(column))
                    } else if case .null = value, !now.optional {
                        new.appendDefault(info, column: column, to: context.scratch.row)
                    } else {
                        context.scratch.row.append(value)
                    }
                }
                _ = try new.replaceRow(info, key: key, old: row, changed: [target], context)
            }
            entry = try cursor.next()
        }
    }

    // MARK: Primary keys

    /// Refuses a migration that leaves two objects with the same values in a unique property or
    /// compound unique key of the models (checked after the block, inside its transaction).
    private static func checkUniqueValues(_ catalog: Catalog, _ layouts: [ClassLayout], _ context: WriteContext) throws {
        try context.storage { txn in
            for layout in layouts {
                guard let info = catalog.byName[layout.className] else { continue }
                var groups: [[Int]] = layout.schema.properties.filter { $0.isUnique && !$0.isPrimaryKey }
                    .compactMap { info.stored.column(of: $0.name).map { [$0] } }
                for names in layout.schema.uniqueKeys {
                    let columns = names.compactMap(info.stored.column(of:))
                    if columns.count == names.count { groups.append(columns) }
                }
                for columns in groups {
                    // Unique properties and the properties of compound keys are indexed.
                    guard let first = columns.first, let index = info.tables.indexes[first] else { continue }
                    try UniqueCheck.requireDistinct(info.stored, columns: columns, objects: info.objectsTable, index: index, txn: txn)
                }
            }
        }
    }

    /// Rebuilds the primary-key tables the migration left stale, refusing duplicates.
    private static func rebuildPrimaryKeys(
        _ catalog: Catalog, _ plan: Plan, _ context: WriteContext, path: String
    ) throws {
        let classes = context.pending.primaryKeysToRebuild.union(plan.newPrimaryKeys)
        try context.storage { txn in
            for info in catalog.byName.values where classes.contains(info.classID) {
                guard let column = info.primaryKeyColumn, let table = info.primaryKeyTable else { continue }
                try txn.empty(table)
                let kind = info.scalarKinds[column]
                let cursor = try Cursor(txn, info.objectsTable)
                var entry = try cursor.first()
                var key: [UInt8] = []
                while let current = entry {
                    var objectKey = current.objectKey
                    let row = RowView(current.value) ?? .damaged
                    key.removeAll(keepingCapacity: true)
                    if !KeyEncoding.append(row.column(column), kind: kind, to: &key) { key = [KeyEncoding.nullTag] }
                    let stored = try key.withUnsafeBytes { k in
                        try withUnsafeBytes(of: &objectKey) { try txn.put(table, key: k, value: $0, flags: .noOverwrite) }
                    }
                    if !stored {
                        let value = info.valueType(column: column).anyValue(from: row.column(column)).map { "\($0)" } ?? "nil"
                        throw ObjDBError(
                            .primaryKeyExists,
                            "two '\(info.name)' objects have the primary key \(value) after the migration block; give each a distinct '\(info.stored.properties[column].name)'",
                            className: info.name, propertyName: info.stored.properties[column].name, key: value, path: path)
                    }
                    entry = try cursor.next()
                }
            }
        }
    }
}

extension Database {
    /// Deletes every object of a class, for `Migration.deleteData(forType:)`.
    func deleteAllObjectsForMigration(_ info: ClassInfo) {
        delete(dynamicObjects(info.name))
    }

    /// Creates an object of a class by name, for `Migration.create(_:value:)`.
    func createForMigration(_ className: String, value: [String: Any]) throws -> DynamicObject {
        let context = try requireWrite("Migration.create")
        guard let info = classInfo(named: className) else {
            throw ObjDBError(.unknownClass, "Migration.create: no class '\(className)' in the new schema", className: className, path: path)
        }
        try flushPendingCollections(context)
        context.scratch.row.reset()
        for column in 0..<info.columnCount { appendDefault(info, column: column, to: context.scratch.row) }
        let (key, row) = try insertRow(info, context)
        let object = materialize(DynamicObject.self, info, key: key, row: row)
        do {
            for (name, value) in value { try object.setValue(value, forKey: name) }
            if let failure = context.transaction.failure { throw failure }
        } catch {
            delete(object)  // a create that fails leaves nothing
            throw error
        }
        return object
    }
}
