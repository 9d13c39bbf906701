/// Restoring a file from a description of it, without model classes: the classes from stored
/// schemas, the schema version, and objects at their own keys, for `objdb load`. Not part of the
/// stable API.

/// A link to the object with key ``key`` of the property's target class, for
/// ``Database/createDynamicObject(_:key:value:)``: what a dump holds for a link, where the
/// target may come later in the same write transaction.
@_spi(Inspection)
public struct ObjectKeyLink: Sendable, Hashable {
    /// The object key of the linked object in its class.
    public let key: UInt64

    /// A link to the object with key `key`.
    public init(_ key: UInt64) { self.key = key }
}

extension Database {
    /// Adds the classes described by `schemas` to the file inside the current write
    /// transaction: properties in the order given (stored ones become the row's columns),
    /// with their types, optionality, primary keys, indexes, link targets, delete rules,
    /// embedded-ness and linking-objects properties.
    ///
    /// A class the file already has with exactly that description is left as it is.
    ///
    /// - Throws: ``ObjDBError/Code/notInWriteTransaction`` outside a write transaction;
    ///   ``ObjDBError/Code/invalidSchema`` for a description ObjDB cannot store (a bad primary
    ///   key type, a link to a class neither in `schemas` nor in the file, …) or for a class
    ///   the file has with another description (the message names the differences). Nothing
    ///   is added when it throws.
    @_spi(Inspection)
    public func createClasses(_ schemas: [ObjectSchema]) throws {
        let context = try requireWrite("createClasses(_:)")
        var added: [ObjectSchema] = []
        for schema in schemas {
            try SchemaValidation.validate(schema)
            guard let existing = catalog.byName[schema.className], !existing.isDiscarded else {
                guard !added.contains(where: { $0.className == schema.className }) else {
                    throw ObjDBError(.invalidSchema, "Class '\(schema.className)' is described twice", className: schema.className, path: path)
                }
                added.append(schema)
                continue
            }
            let current = existing.stored.objectSchema
            guard current != schema else { continue }
            var differences = schema.dataDifferences(from: current)
            if differences.isEmpty { differences = ["its indexes, delete rules or linking-objects properties differ"] }
            throw ObjDBError(
                .invalidSchema,
                "The file already has a class '\(schema.className)' that differs: \(differences.joined(separator: "; "))",
                className: schema.className, path: path)
        }
        guard !added.isEmpty else { return }
        let kept = catalog.stored.classes.filter { stored in !added.contains { $0.className == stored.name } }
        try SchemaValidation.validateLinks(kept.map(\.objectSchema) + added)
        var stored = catalog.stored
        var created: [(StoredClass, ClassTables)] = []
        for schema in added {
            let storedClass = stored.addClass(schema)
            created.append((storedClass, try context.storage { txn in try ClassTables.create(storedClass, txn: txn) }))
        }
        catalog.stored = stored
        for (storedClass, tables) in created {
            let info = ClassInfo(stored: storedClass, tables: tables, layout: nil)
            caches.allClassInfos.append(info)
            catalog.byName[storedClass.name] = info
            context.createdClasses.append(info)
        }
        context.changes.schemaChanged = true
    }

    /// Sets the schema version stored in the file, inside the current write transaction.
    ///
    /// - Throws: ``ObjDBError/Code/notInWriteTransaction`` outside a write transaction;
    ///   ``ObjDBError/Code/migrationRequired`` for a version below the file's (versions only
    ///   rise).
    @_spi(Inspection)
    public func setSchemaVersion(_ version: UInt64) throws {
        let context = try requireWrite("setSchemaVersion(_:)")
        try context.storage { txn in
            let current = try FileMeta.readUInt64(txn, metaTable, FileMeta.Key.schemaVersion) ?? 0
            guard version != current else { return }
            guard version > current else {
                throw ObjDBError(
                    .migrationRequired, "The file's schema version is \(current); it cannot be lowered to \(version)", path: path)
            }
            try FileMeta.writeUInt64(txn, metaTable, FileMeta.Key.schemaVersion, version)
            // Sealed now: the commit reseals only if it changes another meta record.
            try FileMeta.seal(txn, metaTable)
        }
    }

    /// Creates an object of the class named `className` with the object key `key`, as
    /// ``createDynamicObject(_:value:update:)`` creates one (with `update: .error`), and moves
    /// the class's key counter past `key`.
    ///
    /// Links may also be given as ``ObjectKeyLink``s: to an object of the target class that
    /// exists, or to a key the class has not handed out yet, whose object the caller creates
    /// later in the same write transaction (a link to an object never created is a fault
    /// ``verify()`` reports).
    ///
    /// - Throws: the errors of ``createDynamicObject(_:value:update:)``, and
    ///   ``ObjDBError/Code/invalidValue`` for a key the class has handed out already (keys are
    ///   never reused: create objects in ascending key order), for key 0 or `UInt64.max`, and
    ///   for an ``ObjectKeyLink`` to a handed-out key no object has, or to an embedded class.
    ///   On any error, nothing this call wrote remains.
    @_spi(Inspection)
    @discardableResult
    public func createDynamicObject(_ className: String, key: UInt64, value: [String: Any?]) throws -> DynamicObject {
        let operation = "createDynamicObject(_:key:value:)"
        let context = try requireWrite(operation)
        guard let info = classInfo(named: className), !info.isDiscarded else {
            throw ObjDBError(.unknownClass, "\(operation): the file has no class '\(className)'", className: className, path: path)
        }
        guard !info.stored.isEmbedded else {
            throw ObjDBError(
                .invalidValue, "\(operation): '\(className)' is an embedded class; its objects have no key of their own",
                className: className, path: path)
        }
        guard key > 0 && key < .max else {
            throw ObjDBError(.invalidValue, "\(operation): object keys run from 1 to 2^64 - 2, not \(key)", className: className, key: "\(key)", path: path)
        }
        try flushPendingCollections(context)
        let (_, row) = try withSavepoint(context) {
            try writeDynamic(info, value, update: .error, requirePrimaryKey: true, operation: operation, key: key, context)
        }
        return materialize(DynamicObject.self, info, key: key, row: row)
    }

    /// Raises the key counter of the class named `className` so that no key below `next` is
    /// handed out (the keys of objects deleted before a dump, say), inside the current write
    /// transaction. A counter already at or above `next` is left as it is.
    ///
    /// - Throws: ``ObjDBError/Code/notInWriteTransaction`` outside a write transaction;
    ///   ``ObjDBError/Code/unknownClass`` for a class the file lacks.
    @_spi(Inspection)
    public func reserveObjectKeys(ofClassNamed className: String, below next: UInt64) throws {
        let context = try requireWrite("reserveObjectKeys(ofClassNamed:below:)")
        guard let info = classInfo(named: className), !info.isDiscarded else {
            throw ObjDBError(.unknownClass, "reserveObjectKeys: the file has no class '\(className)'", className: className, path: path)
        }
        let changes = try context.storage { txn in try classChanges(info, context, txn) }
        changes.nextKey = max(changes.nextKey, next)
    }

    /// The key the class named `className` hands out next: above every key it handed out,
    /// including those of deleted objects. 1 for a class without objects ever; 0 for an
    /// unknown class.
    @_spi(Inspection)
    public func nextObjectKey(ofClassNamed className: String) -> UInt64 {
        guard let info = catalog.byName[className], !info.isDiscarded, let txn = readableTxn() else { return 0 }
        if let changes = writeContext?.changes.ofClass(info.classID) { return changes.nextKey }
        do {
            var next = try FileMeta.readUInt64(txn, metaTable, FileMeta.Key.nextKey(info.classID)) ?? 1
            let cursor = try Cursor(txn, info.tables.objects)
            if let last = try cursor.last() { next = max(next, last.objectKey == .max ? .max : last.objectKey + 1) }
            return next
        } catch {
            reportReadFailure(error, while: "Reading the key counter of class '\(className)'")
            return 0
        }
    }

    // MARK: Internals

    /// `key` for the object about to be inserted into `info`: checked against the class's key
    /// counter, which moves past it.
    func restoredKey(_ key: UInt64, _ info: ClassInfo, _ context: WriteContext) throws -> UInt64 {
        let changes = try context.storage { txn in try classChanges(info, context, txn) }
        guard key >= changes.nextKey else {
            throw ObjDBError(
                .invalidValue,
                "Object key \(key) of class '\(info.name)' was handed out already (the next free key is \(changes.nextKey)); keys are never reused",
                className: info.name, key: "\(key)", path: path)
        }
        changes.nextKey = key + 1
        return key
    }

    /// The key an ``ObjectKeyLink`` in link column `column` of `info` points at.
    func linkedKey(_ link: ObjectKeyLink, _ target: ClassInfo, from info: ClassInfo, column: Int, _ context: WriteContext) throws -> UInt64 {
        let name = info.stored.properties[column].name
        guard !target.stored.isEmbedded else {
            throw ObjDBError(
                .invalidValue, "'\(info.name).\(name)' holds embedded \(target.name) objects, which are given whole, not by key",
                className: info.name, propertyName: name, path: path)
        }
        if rows.fetch(target, key: link.key) != nil { return link.key }
        let next = try context.storage { txn in try classChanges(target, context, txn) }.nextKey
        guard link.key >= next, link.key > 0, link.key < .max else {
            throw ObjDBError(
                .invalidValue, "'\(info.name).\(name)' links to the \(target.name) with key \(link.key), and there is none",
                className: info.name, propertyName: name, key: "\(link.key)", path: path)
        }
        return link.key
    }
}
