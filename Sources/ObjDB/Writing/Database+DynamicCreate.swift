/// Creating and updating objects by class name, without their model classes: what tools that
/// restore exported data (`objdb import`, `objdb load`) need.
extension Database {
    /// Creates (or, with an update policy, updates) an object of the class named `className`
    /// from a dictionary of property values, without its model class.
    ///
    /// ```swift
    /// try db.write {
    ///     let rex = try db.createDynamicObject("Pet", value: ["id": 7, "name": "Rex"])
    ///     try db.createDynamicObject("Owner", value: [
    ///         "id": 1,
    ///         "pets": [rex, 8],                     // an object, and a primary key of a Pet
    ///         "favorite": 7,                        // a link by primary key
    ///         "address": ["city": "Oslo"],          // an embedded object, created with its owner
    ///         "tags": ["a", "b"],
    ///         "scores": ["math": 4.5],
    ///     ])
    ///     try db.createDynamicObject("Owner", value: ["id": 1, "name": "Ann"], update: .modified)
    /// }
    /// ```
    ///
    /// It works as ``create(_:value:update:)`` does for a model class: properties not in `value`
    /// get their declared defaults (the type's zero value, or `nil`, for a class this process
    /// has no model of); with `.modified` or `.all`, an existing object with the primary key in
    /// `value` is updated, and only the properties in `value` are written.
    ///
    /// Values are converted as ``ObjectBase/setValue(_:forKey:)`` converts them: integers of
    /// any width, `Double` and `Float`, `String`, `Data`, `Date`, `UUID`, `Decimal`,
    /// ``ObjectId``, enums as their raw values, and `nil` (or `NSNull`) for optional properties.
    /// A link takes an object of the target class (a ``DynamicObject`` or a model object of this
    /// database; an unmanaged model object is added), `nil`, a primary-key value of the target
    /// class, or a `[String: Any?]` dictionary of the target's properties, which creates the
    /// target with this call's update policy (for an embedded class: a new embedded object owned
    /// by this one). A `List` or `MutableSet` takes an array whose items are converted to the
    /// element type (objects as links are); a `Map` takes a `[String: Any?]` dictionary. So the
    /// values a ``DynamicObject`` reads can be given back as they are.
    ///
    /// - Returns: The created or updated object.
    /// - Throws: ``ObjDBError/Code/notInWriteTransaction`` outside a write transaction;
    ///   ``ObjDBError/Code/unknownClass`` for a class the file lacks;
    ///   ``ObjDBError/Code/unknownProperty`` for a
    ///   name the class lacks; ``ObjDBError/Code/typeMismatch`` for a value that does not fit
    ///   its property (the error names `Class.property`);
    ///   ``ObjDBError/Code/primaryKeyExists`` with `.error` for a primary key that is taken;
    ///   ``ObjDBError/Code/missingPrimaryKey`` for `.modified` or `.all` without the primary
    ///   key in `value`, or on a class without one; ``ObjDBError/Code/invalidValue`` for a link
    ///   to a primary key no object has, a computed property, or an embedded class (its
    ///   objects are created through their owner); the errors of ``add(_:update:)`` for linked
    ///   objects. On any error, nothing this call wrote remains.
    @discardableResult
    public func createDynamicObject(_ className: String, value: [String: Any?], update: UpdatePolicy = .error) throws -> DynamicObject {
        let operation = "createDynamicObject(_:value:update:)"
        let context = try requireWrite(operation)
        guard let info = classInfo(named: className), !info.isDiscarded else {
            throw ObjDBError(.unknownClass, "\(operation): the file has no class '\(className)'", className: className, path: path)
        }
        guard !info.stored.isEmbedded else {
            throw ObjDBError(
                .invalidValue,
                "\(operation): '\(className)' is an embedded class; create its objects as property values of the object that owns them",
                className: className, path: path)
        }
        try flushPendingCollections(context)
        let (key, row) = try withSavepoint(context) {
            try writeDynamic(info, value, update: update, requirePrimaryKey: true, operation: operation, context)
        }
        return materialize(DynamicObject.self, info, key: key, row: row)
    }

    /// Writes a link or collection column of a managed object from a loosely typed value, as
    /// ``createDynamicObject(_:value:update:)`` takes one: `setValue(_:forKey:)` without the
    /// model class. All or nothing, like that call.
    func setRelationshipColumn(of object: ObjectBase, column: Int, to value: Any?) throws {
        guard let info = object._objdbInfo else { return }
        guard let context = writeContext else { cannotWrite("\(info.name).\(info.stored.properties[column].name)") }
        _ = try context.transaction.requireTxn()
        guard object._objdbCurrentRow() != nil else { object._objdbInvalidatedAccess() }
        // A pending copy of the column would be written back over this value later.
        try flushPendingCollections(context)
        let key = object._objdbKey
        let row = try withSavepoint(context) { () -> RowView in
            let bytes = try encodeColumn(value, info, column: column, update: .error, context)
            guard let old = rows.fetch(info, key: key) else { object._objdbInvalidatedAccess() }
            return try bytes.withOptionalBytes { raw in
                if old.column(column).sameContent(as: raw.map { .value($0) } ?? .null) { return old }
                return try writeColumn(info, key: key, old: old, column: column, value: raw, context)
            }
        }
        object._objdbRow = row
        object._objdbRowGeneration = generation
    }

    // MARK: Rows from values by name

    /// Inserts an object of `info` from property values by name, or with an update policy
    /// updates the stored object with the primary key among them; returns its key and row.
    /// With `requirePrimaryKey` off, an update policy on a class without a primary key inserts
    /// (for objects created as property values, such as embedded ones). The caller runs it in
    /// a savepoint. A new object gets `key` if one is given (see ``restoredKey(_:_:_:)``).
    func writeDynamic(
        _ info: ClassInfo, _ values: [String: Any?], update: UpdatePolicy, requirePrimaryKey: Bool, operation: String,
        key: UInt64? = nil, _ context: WriteContext
    ) throws -> (key: UInt64, row: RowView) {
        // In column order: what is written, and which error comes first, does not depend on the
        // dictionary's order.
        let given = try values.map { (column: try writableColumn(info, named: $0.key), value: $0.value) }.sorted { $0.column < $1.column }
        return try writeDynamic(info, columns: given, update: update, requirePrimaryKey: requirePrimaryKey, operation: operation, key: key, context)
    }

    /// ``writeDynamic(_:_:update:requirePrimaryKey:operation:key:_:)`` for values already by
    /// column, in ascending column order. With `instanceDefaults` off, columns not given take
    /// their declared defaults without a new instance of the model class (what a download,
    /// which gives every property the service has, uses).
    func writeDynamic(
        _ info: ClassInfo, columns given: [(column: Int, value: Any?)], update: UpdatePolicy, requirePrimaryKey: Bool, operation: String,
        key: UInt64? = nil, instanceDefaults: Bool = true, _ context: WriteContext
    ) throws -> (key: UInt64, row: RowView) {
        let existing = try existingObject(info, given, update: update, requirePrimaryKey: requirePrimaryKey, operation: operation, context)
        // Encoded first, into arrays of their own: links may create objects, which uses the row builder.
        var encoded = [[UInt8]?](repeating: nil, count: info.columnCount)
        var isGiven = [Bool](repeating: false, count: info.columnCount)
        for (column, value) in given {
            encoded[column] = try encodeColumn(value, info, column: column, update: update, context)
            isGiven[column] = true
        }
        return try writeEncoded(info, encoded, isGiven: isGiven, existing: existing, update: update, key: key, instanceDefaults: instanceDefaults, context)
    }

    /// Writes the object `existing` (or a new one, under `key` if given) from encoded columns:
    /// those `isGiven` marks replace the stored ones (or the defaults of a new object).
    func writeEncoded(
        _ info: ClassInfo, _ encoded: [[UInt8]?], isGiven: [Bool], existing: UInt64?, update: UpdatePolicy, key: UInt64? = nil,
        instanceDefaults: Bool, _ context: WriteContext
    ) throws -> (key: UInt64, row: RowView) {
        let row = context.scratch.row
        func appendGiven(_ column: Int) -> Bool {
            guard isGiven[column] else { return false }
            encoded[column].withOptionalBytes { row.append(raw: $0) }
            return true
        }
        row.reset()
        guard let existing else {
            // Defaults the model class makes (a random `ObjectId` key, say) are made anew for
            // each object, as `create(_:value:update:)` makes them: by a new instance.
            let instance = instanceDefaults ? info.layout.map { $0.type.init() } : nil
            for column in 0..<info.columnCount {
                if !appendGiven(column) { appendDefault(info, column: column, from: instance, to: row) }
            }
            return try insertNew(info, key: try key.map { try restoredKey($0, info, context) }, context)
        }
        guard let old = rows.fetch(info, key: existing) else {
            throw ObjDBError(.objectInvalidated, "The object to update disappeared", className: info.name, path: path)
        }
        appendColumns(of: old, info, to: row, replacing: appendGiven)
        return (existing, try updateRow(info, key: existing, policy: update, context))
    }

    /// Appends the default of a column: the value in `instance`, a new unmanaged instance of
    /// the model class, for a value column the model has; else the declared default.
    private func appendDefault(_ info: ClassInfo, column: Int, from instance: ObjectBase?, to row: RowBuilder) {
        guard let instance, let layout = info.layout, info.fieldOfColumn[column] >= 0, info.columnKinds[column] == .value else {
            appendDefault(info, column: column, to: row)
            return
        }
        let field = layout.fields[info.fieldOfColumn[column]]
        row.append { field.encode(in: instance, into: &$0) }
    }

    /// The column of a property that can be given a value, or the error for the name.
    private func writableColumn(_ info: ClassInfo, named name: String) throws -> Int {
        if info.stored.column(of: name) == nil, info.computed.contains(where: { $0.name == name }) {
            throw ObjDBError(
                .invalidValue, "'\(info.name).\(name)' is computed from links and cannot be assigned",
                className: info.name, propertyName: name, path: path)
        }
        return try info.column(named: name)
    }

    /// The stored object an update policy updates: the one with the primary key given, if any.
    private func existingObject(
        _ info: ClassInfo, _ given: [(column: Int, value: Any?)], update: UpdatePolicy, requirePrimaryKey: Bool,
        operation: String, _ context: WriteContext
    ) throws -> UInt64? {
        guard update != .error else { return nil }
        guard let column = info.primaryKeyColumn else {
            if requirePrimaryKey { throw missingPrimaryKey(info, operation: operation) }
            return nil
        }
        let name = info.stored.properties[column].name
        guard let primaryKey = given.first(where: { $0.column == column }) else {
            throw ObjDBError(
                .missingPrimaryKey, "\(operation) needs the primary key '\(name)' of '\(info.name)' in value to find the object to update",
                className: info.name, propertyName: name, path: path)
        }
        guard let key = try objectKey(info, primaryKey: try info.encode(primaryKey.value, column: column), context) else { return nil }
        return rows.fetch(info, key: key) == nil ? nil : key
    }

    /// The key of the object of `info` whose encoded primary key is `bytes`, if one exists.
    func objectKey(_ info: ClassInfo, primaryKey bytes: [UInt8]?, _ context: WriteContext) throws -> UInt64? {
        let txn = try context.transaction.requireTxn()
        return try bytes.withOptionalBytes { raw in
            try RowReader.objectKey(forPrimaryKey: raw.map { .value($0) } ?? .null, info, txn: txn, scratch: context.scratch.key)
        }
    }

    // MARK: Columns

    /// The bytes of column `column` of `info` for a loosely typed value (`nil` for null).
    private func encodeColumn(_ value: Any?, _ info: ClassInfo, column: Int, update: UpdatePolicy, _ context: WriteContext) throws -> [UInt8]? {
        let kind = info.columnKinds[column]
        switch kind {
        case .value:
            if info.stored.properties[column].type == .mixed, let mixed = convert(value, to: MixedValue.self) {
                try prepareMixedObjects(mixed, context)
            }
            return try info.encode(value, column: column)
        case .link:
            guard let key = try linkedKey(value, info, column: column, update: update, context) else { return nil }
            var bytes: [UInt8] = []
            bytes.appendLittleEndian(key, count: 8)
            return bytes
        case .list, .set:
            guard let items = unwrapAny(value) as? [Any?] else { throw collectionMismatch(value, info, column: column) }
            var elements = try items.map { try storedElement($0, info, column: column, update: update, context) }
            if kind == .set {
                var seen = Set<StoredElement>()
                elements = elements.filter { seen.insert(PendingCollection.member($0, info, column)).inserted }
            }
            var bytes: [UInt8] = []
            elements.appendEncoded(to: &bytes)
            return bytes
        case .map:
            guard let entries = unwrapAny(value) as? [String: Any?] else { throw collectionMismatch(value, info, column: column) }
            let sorted = entries.map { (key: Array($0.key.utf8), value: $0.value) }.sorted { $0.key.lexicographicallyPrecedes($1.key) }
            let values = try sorted.map { try storedElement($0.value, info, column: column, update: update, context) }
            var bytes: [UInt8] = []
            MapFormat.appendMap(keys: sorted.map { StoredElement(bytes: $0.key) }, values: values, to: &bytes)
            return bytes
        }
    }

    /// One element of collection column `column` of `info` (a map's value) for a loosely typed value.
    private func storedElement(_ item: Any?, _ info: ClassInfo, column: Int, update: UpdatePolicy, _ context: WriteContext) throws -> StoredElement {
        let property = info.stored.properties[column].property
        if property.isLink {
            if let key = try linkedKey(item, info, column: column, update: update, context) { return StoredElement(objectKey: key) }
            guard property.isOptional else {
                throw ObjDBError(
                    .typeMismatch, "Property '\(info.name).\(property.name)' is \(property.typeName), whose elements cannot be nil",
                    className: info.name, propertyName: property.name, path: path)
            }
            return .null
        }
        let type = info.elementType(column: column)
        guard let converted = convert(item, to: type) else {
            throw ObjDBError.typeMismatch(item, expected: property, className: info.name, valueType: type)
        }
        if let mixed = converted as? MixedValue { try prepareMixedObjects(mixed, context) }
        var bytes = _ObjDBBytes()
        return converted._objdbEncode(into: &bytes) ? StoredElement(bytes: bytes.array) : .null
    }

    /// The error for a value a collection column cannot take.
    private func collectionMismatch(_ value: Any?, _ info: ClassInfo, column: Int) -> ObjDBError {
        let property = info.stored.properties[column].property
        let got = unwrapAny(value).map { "\(type(of: $0))" } ?? "nil"
        let wanted = property.isMap ? "a [String: Any?] dictionary of its values" : "an array of its elements"
        return ObjDBError(
            .typeMismatch, "Property '\(info.name).\(property.name)' is \(property.typeName) and takes \(wanted), not \(got)",
            className: info.name, propertyName: property.name, path: path)
    }

    // MARK: Links

    /// The key of the object a link of column `column` of `info` (or an element of it) is to
    /// point at, from a loosely typed value; `nil` for `nil`. See
    /// ``createDynamicObject(_:value:update:)`` for the values taken.
    private func linkedKey(_ value: Any?, _ info: ClassInfo, column: Int, update: UpdatePolicy, _ context: WriteContext) throws -> UInt64? {
        guard let value = unwrapAny(value) else { return nil }
        let name = info.stored.properties[column].name
        guard let target = targetInfo(info, column: column) else {
            throw ObjDBError(
                .corruptFile, "The file has no class '\(info.linkTargets[column] ?? "?")', which '\(info.name).\(name)' links to",
                className: info.name, propertyName: name, path: path)
        }
        if let object = value as? ObjectBase {
            let className = object._objdbInfo?.name ?? type(of: object).className
            guard className == target.name else {
                throw ObjDBError(
                    .typeMismatch, "Property '\(info.name).\(name)' links to \(target.name) objects, not to a \(className)",
                    className: info.name, propertyName: name, path: path)
            }
            if object._objdbDatabase == nil {
                try addObject(object, update: update, requirePrimaryKey: false, context)
            } else {
                try checkLinkable(object, context)
            }
            return object._objdbKey
        }
        if let link = value as? ObjectKeyLink { return try linkedKey(link, target, from: info, column: column, context) }
        if let values = value as? [String: Any?] {
            let operation = "The \(target.name) given to '\(info.name).\(name)'"
            return try writeDynamic(target, values, update: update, requirePrimaryKey: false, operation: operation, context).key
        }
        return try linkedKey(primaryKey: value, target, from: info, column: column, context)
    }

    /// The key of the object of `target` with the primary key `value`, for a link of column
    /// `column` of `info`.
    private func linkedKey(primaryKey value: Any, _ target: ClassInfo, from info: ClassInfo, column: Int, _ context: WriteContext) throws -> UInt64 {
        let name = info.stored.properties[column].name
        guard let keyColumn = target.primaryKeyColumn else {
            throw ObjDBError(
                .typeMismatch,
                "Property '\(info.name).\(name)' links to \(target.name), which has no primary key: give a \(target.name) object or a dictionary of its properties, not \(type(of: value))",
                className: info.name, propertyName: name, path: path)
        }
        let keyProperty = target.stored.properties[keyColumn].property
        guard !context.isMigration else {
            throw ObjDBError(
                .invalidValue,
                "'\(info.name).\(name)' cannot link by primary key in a migration, where primary keys are checked only when the block returns; link the \(target.name) object itself",
                className: info.name, propertyName: name, path: path)
        }
        let bytes: [UInt8]?
        do {
            bytes = try target.encode(value, column: keyColumn)
        } catch {
            throw ObjDBError(
                .typeMismatch,
                "Property '\(info.name).\(name)' links to \(target.name): give a \(target.name) object, a dictionary of its properties, or its primary key '\(keyProperty.name)' (\(keyProperty.typeName)), not \(type(of: value))",
                className: info.name, propertyName: name, path: path)
        }
        guard let key = try objectKey(target, primaryKey: bytes, context) else {
            throw ObjDBError(
                .invalidValue, "'\(info.name).\(name)' links to the \(target.name) with primary key \(value), and there is none",
                className: info.name, propertyName: name, key: "\(value)", path: path)
        }
        return key
    }
}

extension ClassInfo {
    /// The Swift type of one element (a map's value) of collection column `column`: the model's
    /// where this process has the property (an enum, say), else the stored type's.
    func elementType(column: Int) -> any PersistableType.Type {
        if let layout, fieldOfColumn[column] >= 0, let relationship = layout.fields[fieldOfColumn[column]].relationship {
            return relationship.elementType
        }
        return stored.properties[column].property.elementSwiftType
    }
}

extension Optional where Wrapped == [UInt8] {
    /// Calls `body` with the bytes, or with `nil` for `nil`.
    func withOptionalBytes<R>(_ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        guard let self else { return try body(nil) }
        return try self.withUnsafeBytes { try body($0) }
    }
}
