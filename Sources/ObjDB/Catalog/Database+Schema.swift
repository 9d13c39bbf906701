extension Database {
    /// The runtime information of a model class for reading, binding the class to the stored
    /// one on first use. `nil` if the file has no such class yet (it is created by the first write).
    ///
    /// Throws ``ObjDBError/Code/unknownClass`` for a class outside ``Configuration/objectTypes``
    /// and ``ObjDBError/Code/migrationRequired`` if the stored class differs from the model.
    func classInfo(for type: ObjectBase.Type) throws -> ClassInfo? {
        let id = ObjectIdentifier(type)
        if let last = caches.lastClassLookup, last.type == id { return last.info }
        if let info = catalog.byType[id] {
            caches.lastClassLookup = (id, info)
            return info
        }
        let layout = try SchemaDiscovery.layout(of: type)
        if let configured = catalog.configuredTypes, !configured.contains(ObjectIdentifier(type)) {
            throw ObjDBError(
                .unknownClass,
                "Class '\(layout.className)' is not part of this database: add it to Configuration.objectTypes",
                className: layout.className, path: path)
        }
        guard let stored = catalog.byName[layout.className] else { return nil }
        if let bound = stored.layout, bound.type != type {
            throw ObjDBError(
                .invalidSchema,
                "Two model classes are named '\(layout.className)'; override className in one of them",
                className: layout.className, path: path)
        }
        let differences = layout.schema.dataDifferences(from: stored.schema)
        guard differences.isEmpty else {
            throw ObjDBError(
                .migrationRequired,
                "The class '\(layout.className)' in the file does not match the model: \(differences.joined(separator: "; ")). List the model classes in Configuration.objectTypes, raise schemaVersion and migrate",
                className: layout.className, path: path)
        }
        let info = ClassInfo(stored: stored.stored, tables: stored.tables, layout: layout)
        caches.allClassInfos.append(info)
        catalog.byName[layout.className] = info
        catalog.byType[ObjectIdentifier(type)] = info
        return info
    }

    /// The name of a model class in schemas, found without calling its `className` again: the
    /// default implementation prints the type's name, thousands of instructions, and queries
    /// such as `objects(Person.self)` need the name every time.
    ///
    /// - Complexity: O(1) for the class used last; else one lookup in the process-wide cache
    ///   of class layouts.
    func className(of type: ObjectBase.Type) -> String {
        if let info = boundClassInfo(of: type) { return info.name }
        // try?: a class that cannot be described is still named by its declared className.
        return (try? SchemaDiscovery.layout(of: type).className) ?? type.className
    }

    /// The runtime information a model class is already bound to (the same as
    /// ``classInfo(named:)`` gives for its name), without binding it or hashing its name.
    ///
    /// - Complexity: O(1): the class used last, else one lookup by type.
    func boundClassInfo(of type: ObjectBase.Type) -> ClassInfo? {
        let id = ObjectIdentifier(type)
        if let last = caches.lastClassLookup, last.type == id { return last.info }
        return catalog.byType[id]
    }

    /// ``classInfo(for:)`` for APIs that cannot throw (`api` names the call, for the message): a
    /// class that cannot be used here is a programmer error (the model changed without a
    /// migration, or is not configured), which stops the program with a message saying what
    /// differs and what to do.
    @inline(__always)
    func classInfoForRead(_ type: ObjectBase.Type, _ api: StaticString = "Database.objects(_:)") -> ClassInfo? {
        do {
            return try classInfo(for: type)
        } catch {
            classInfoForReadFailed(type, api, error)
        }
    }

    /// Stops the program for ``classInfoForRead(_:_:)``'s `error`, saying what to do. Out of
    /// line, so that every read's call site keeps only the lookup.
    @inline(never)
    private func classInfoForReadFailed(_ type: ObjectBase.Type, _ api: StaticString, _ error: any Error) -> Never {
        guard let error = error as? ObjDBError, error.code == .migrationRequired else {
            objdbFatal("\(api) cannot use class '\(type.className)': \(error)")
        }
        let name = error.className ?? type.className
        // try?: the differences only enrich this message; without a layout it names the class.
        let differences = (try? SchemaDiscovery.layout(of: type)).flatMap { layout in
            catalog.byName[layout.className].map { layout.schema.dataDifferences(from: $0.schema) }
        } ?? []
        var message = "\(api) was called for class '\(name)', but the schema of '\(name)' stored in the file differs from the model class: \(differences.joined(separator: "; ")). "
        if catalog.configuredTypes == nil {
            message += "This call cannot throw. List \(name) in Configuration.objectTypes to get a migrationRequired error from Database(configuration:) at open instead, or change the model back to match the file"
        } else {
            message += "Change the model back to match the file, or delete the file (Configuration.deleteDatabaseIfMigrationNeeded) until migrations exist"
        }
        objdbFatal(message + " [path: \(path)]")
    }

    /// The runtime information of a model class inside a write transaction, creating the class
    /// (its tables and stored schema) or adjusting its indexes as needed.
    func classInfoForWrite(_ type: ObjectBase.Type, _ context: WriteContext) throws -> ClassInfo {
        if let last = caches.lastClassLookup, last.type == ObjectIdentifier(type), last.info.matchesLayoutIndexes,
            !last.info.isDiscarded
        {
            return last.info
        }
        if let info = catalog.byType[ObjectIdentifier(type)], info.matchesLayoutIndexes, !info.isDiscarded {
            caches.lastClassLookup = (ObjectIdentifier(type), info)
            return info
        }
        let existing = try classInfo(for: type)
        let layout = try SchemaDiscovery.layout(of: type)
        if let existing, !existing.isDiscarded, existing.hasIndexes(of: layout) { return existing }
        if !layout.linkedTypes.isEmpty {
            try SchemaValidation.validateLinks(SchemaDiscovery.layoutsLinked(from: [type]).map(\.schema))
        }
        var changes = SchemaChanges()
        var stored = catalog.stored
        let (storedClass, tables) = try context.storage { txn in try changes.ensure(layout, in: &stored, txn: txn) }
        let info = ClassInfo(stored: storedClass, tables: tables, layout: layout)
        caches.allClassInfos.append(info)
        catalog.stored = stored
        catalog.byName[layout.className] = info
        catalog.byType[ObjectIdentifier(type)] = info
        context.createdClasses.append(info)
        if changes.any { context.changes.schemaChanged = true }
        // The classes it links to exist as soon as it does (their objects' linking objects and
        // deletes need the backlink tables).
        for linked in layout.linkedTypes { _ = try classInfoForWrite(linked, context) }
        return info
    }

    /// Reloads the catalog if another instance or process changed the stored schema; used when
    /// moving to a newer version. Errors leave the catalog as it was, and are reported through
    /// the read-failure channel.
    func reloadCatalogIfChanged(_ txn: Txn) {
        do {
            try reloadCatalogIfChanged(in: txn)
        } catch {
            reportReadFailure(error, while: "Reloading the schema another instance changed")
        }
    }

    /// Reloads the catalog from `txn` if the stored schema's stamp changed.
    func reloadCatalogIfChanged(in txn: Txn) throws {
        let stamp = try FileMeta.readUInt64(txn, metaTable, FileMeta.Key.schemaStamp) ?? 0
        guard stamp != catalog.stamp else { return }
        let header = try FileMeta.read(txn, meta: metaTable, path: path)
        let previous = catalog
        catalog = try Catalog.build(
            stored: header.schema, stamp: header.stamp, env: environment, layouts: [],
            configuredTypes: catalog.configuredTypes, reusing: previous)
        for info in catalog.byName.values where !caches.allClassInfos.contains(where: { $0 === info }) {
            caches.allClassInfos.append(info)
        }
    }
}

extension ClassInfo {
    /// Whether the stored indexes, delete rules, maintained keys and dates, and computed properties are those the model
    /// declares (what the first write updates without a migration).
    static func indexesMatch(_ stored: StoredClass, _ layout: ClassLayout) -> Bool {
        let indexes = stored.properties.allSatisfy { property in
            property.primaryKey || (layout.schema[property.name]?.isIndexed ?? property.indexed) == property.indexed
        }
        let rules = stored.properties.allSatisfy { property in
            (layout.schema[property.name]?.deleteRule ?? .nullify) == (property.deleteRule ?? .nullify)
        }
        let maintained = stored.properties.allSatisfy { property in
            let model = layout.schema[property.name]
            return (model?.isAutoIncrement ?? false) == (property.autoIncrement ?? false) && model?.timestamp == property.timestamp
        }
        let computed = layout.schema.properties.filter(\.isComputed)
        return indexes && rules && maintained && (stored.computed ?? []).map(\.property) == computed
    }

    /// Whether the stored metadata is what the model declares (see ``indexesMatch(_:_:)``).
    func hasIndexes(of layout: ClassLayout) -> Bool {
        ClassInfo.indexesMatch(stored, layout)
    }
}
