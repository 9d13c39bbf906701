extension Database {
    /// Stores an unmanaged object; from then on it is managed and its properties read and
    /// write the database.
    ///
    /// ```swift
    /// try db.write {
    ///     try db.add(person)                        // throws if the primary key exists
    ///     try db.add(changed, update: .modified)    // insert, or update what differs
    /// }
    /// ```
    ///
    /// Adding an object this database already manages does nothing.
    ///
    /// - Throws: ``ObjDBError/Code/primaryKeyExists`` with `.error` if an object with the same
    ///   primary key exists (nothing is written); ``ObjDBError/Code/missingPrimaryKey`` for
    ///   `.modified` and `.all` on a class without a primary key;
    ///   ``ObjDBError/Code/wrongDatabase`` for an object of another `Database` instance;
    ///   ``ObjDBError/Code/notInWriteTransaction`` outside a write transaction.
    public func add(_ object: Object, update: UpdatePolicy = .error) throws {
        let context = try requireWrite("add(_:update:)")
        try flushPendingCollections(context)
        try addObject(object, update: update, context)
    }

    /// Stores every object of a sequence, as ``add(_:update:)`` does for one.
    ///
    /// The call is all or nothing: if one object cannot be added (a duplicate primary key, for
    /// instance), the objects it already added are removed again and become unmanaged, and the
    /// objects it already updated get their previous values back.
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) throws where S.Element: Object {
        let context = try requireWrite("add(_:update:)")
        try flushPendingCollections(context)
        try withSavepoint(context) {
            for object in objects { try addObject(object, update: update, context) }
        }
    }

    /// Adds one object. - Returns: whether a new row was inserted (rather than updated or kept).
    ///
    /// With `requirePrimaryKey` off, an update policy on an object without a primary key inserts
    /// it instead of throwing (for objects added along with another, such as embedded ones).
    @discardableResult
    func addObject(_ object: ObjectBase, update: UpdatePolicy, requirePrimaryKey: Bool = true, _ context: WriteContext) throws -> Bool {
        if let owner = object._objdbDatabase {
            guard owner === self else {
                throw ObjDBError(
                    .wrongDatabase, "The object is managed by another Database instance; add a copy instead",
                    className: object._objdbInfo?.name, path: path)
            }
            guard object._objdbCurrentRow() != nil else {
                throw ObjDBError(
                    .objectInvalidated, "The object was deleted or its insertion rolled back; it cannot be added again",
                    className: object._objdbInfo?.name, key: "\(object._objdbKey)", path: path)
            }
            return false
        }
        let info = try classInfoForWrite(type(of: object), context)
        if info.hasRelationshipFields {
            return try addGraph(object, update: update, requirePrimaryKey: requirePrimaryKey, context)
        }
        encodeUnmanaged(object, info, into: context.scratch.row)
        if update != .error, info.primaryKeyColumn != nil || requirePrimaryKey {
            guard info.primaryKeyColumn != nil else { throw missingPrimaryKey(info) }
            if let existing = try existingKey(info, context) {
                let row = try updateRow(info, key: existing, policy: update, context)
                attach(object, info, key: existing, row: row)
                context.undo.record(.attached(object))
                return false
            }
        }
        let (key, row) = try insertNew(info, context)
        attachInserted(object, info, key: key, row: row, context)
        return true
    }

    /// The key of the stored object whose primary key is the one in `context.scratch.row`, if any.
    func existingKey(_ info: ClassInfo, _ context: WriteContext) throws -> UInt64? {
        guard let column = info.primaryKeyColumn else { return nil }
        let txn = try context.transaction.requireTxn()
        return try context.scratch.row.withColumns { read in
            try RowReader.objectKey(forPrimaryKey: read(column), info, txn: txn, scratch: context.scratch.key)
        }
    }

    /// Inserts `context.scratch.row` as a new object (under `key`, or a new key), refusing a primary key
    /// that is taken with ``ObjDBError/Code/primaryKeyExists`` before anything is written.
    func insertNew(_ info: ClassInfo, key: UInt64? = nil, _ context: WriteContext) throws -> (key: UInt64, row: RowView) {
        guard let column = info.primaryKeyColumn else { return try insertRow(info, context, key: key) }
        let keyLength = context.scratch.row.withColumns { read -> Int in
            if case .value(let bytes) = read(column) { return bytes.count } else { return 0 }
        }
        // A key stored whole is checked by the insert itself (one B-tree search, not two); a
        // key long enough to be cut may share its stored form with another value.
        if keyLength + 1 < KeyEncoding.maxLength {
            do {
                return try insertRow(info, context, uniquePrimaryKey: true, key: key)
            } catch is PrimaryKeyTaken {
                throw primaryKeyExists(info, column: column, context)
            }
        }
        if try existingKey(info, context) != nil { throw primaryKeyExists(info, column: column, context) }
        return try insertRow(info, context, key: key)
    }

    /// The error for an update policy on a class without a primary key.
    func missingPrimaryKey(_ info: ClassInfo, operation: String = "add(_:update:)") -> ObjDBError {
        ObjDBError(
            .missingPrimaryKey,
            "Class '\(info.name)' has no primary key, so \(operation) cannot find an existing object to update; use update: .error",
            className: info.name, path: path)
    }

    /// Makes `object` the managed object of the row it was just inserted as.
    @inline(__always)
    private func attachInserted(_ object: ObjectBase, _ info: ClassInfo, key: UInt64, row: RowView, _ context: WriteContext) {
        attach(object, info, key: key, row: row)
        object._objdbInsertSerial = writes.serial
        context.undo.record(.attached(object))
    }

    /// The error for a primary key that is taken, naming the key from `context.scratch.row`.
    func primaryKeyExists(_ info: ClassInfo, column: Int, _ context: WriteContext) -> ObjDBError {
        let value = context.scratch.row.withColumns { info.valueType(column: column).anyValue(from: $0(column)) }
        let shown = value.map { "\($0)" } ?? "nil"
        return ObjDBError(
            .primaryKeyExists,
            "An object of class '\(info.name)' with primary key \(shown) already exists; use update: .modified or .all to update it",
            className: info.name, propertyName: info.stored.properties[column].name, key: shown, path: path)
    }

    /// Updates the existing object `key` from the full row in `context.scratch.row`: with `.modified`
    /// only columns whose bytes differ are written, with `.all` every column is.
    func updateRow(_ info: ClassInfo, key: UInt64, policy: UpdatePolicy, _ context: WriteContext) throws -> RowView {
        guard let bytes = try context.storage({ try $0.get(info.tables.objects, key: key) }) else {
            throw ObjDBError(
                .corruptFile, "The primary-key table of '\(info.name)' points to the missing object \(key)",
                className: info.name, key: "\(key)", path: path)
        }
        let old = RowView(bytes) ?? .damaged
        if info.hasMaintainedDates { keepMaintainedDates(info, old: old, context) }
        var changed = context.scratch.row.withColumns { new in
            (0..<info.columnCount).filter { policy == .all || !old.column($0).sameContent(as: new($0)) }
        }
        if changed.isEmpty { return old }
        if info.hasMaintainedDates { changed = stampUpdate(info, old: old, changed: changed, context) }
        return try replaceRow(info, key: key, old: old, changed: changed, context)
    }

    /// Creates and stores an object of `type` from a dictionary of property values; properties
    /// not given keep their declared defaults.
    ///
    /// ```swift
    /// let rex = try db.create(Dog.self, value: ["name": "Rex"])
    /// try db.create(Person.self, value: ["id": 1, "age": 31], update: .modified)   // only `age` changes
    /// ```
    ///
    /// With `.modified` or `.all`, an existing object with the same primary key is updated, and
    /// only the properties present in `value` are written. `value` may also be an object of the
    /// same class, whose values are copied.
    ///
    /// - Throws: ``ObjDBError/Code/unknownProperty`` for a name the class lacks,
    ///   ``ObjDBError/Code/typeMismatch`` for a value of the wrong type (including `nil` for a
    ///   non-optional property), ``ObjDBError/Code/missingPrimaryKey`` when updating without the
    ///   primary key in `value`, and the errors of ``add(_:update:)``. On error nothing is written.
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error) throws -> T {
        let context = try requireWrite("create(_:value:update:)")
        try flushPendingCollections(context)
        let info = try classInfoForWrite(type, context)
        let layout = try SchemaDiscovery.layout(of: type)
        let values = try Self.propertyValues(of: value, layout: layout)
        let object = T()
        for (name, value) in values {
            let field = try layout.field(named: name)
            guard field.setValue(in: object, to: value) else {
                throw ObjDBError.typeMismatch(
                    value, expected: layout.schema.properties[field.index], className: layout.className, valueType: field.valueType)
            }
        }
        guard update != .error, let pkColumn = info.primaryKeyColumn else {
            try addObject(object, update: update, context)
            return object
        }
        // An auto-increment key left out (or 0) asks for a new object.
        if pkColumn == info.autoIncrementColumn,
            (values.first { $0.key == info.stored.properties[pkColumn].name }?.value as? Int).map({ $0 == 0 }) ?? true
        {
            try addObject(object, update: update, context)
            return object
        }
        guard values.contains(where: { $0.key == info.stored.properties[pkColumn].name }) else {
            throw ObjDBError(
                .missingPrimaryKey,
                "create(_:value:update:) needs the primary key '\(info.stored.properties[pkColumn].name)' in value to find the object to update",
                className: info.name, propertyName: info.stored.properties[pkColumn].name, path: path)
        }
        encodeUnmanaged(object, info, into: context.scratch.row, only: pkColumn)
        let txn = try context.transaction.requireTxn()
        let existing = try context.scratch.row.withColumns { read in
            try RowReader.objectKey(forPrimaryKey: read(pkColumn), info, txn: txn, scratch: context.scratch.key)
        }
        guard let existing, rows.fetch(info, key: existing) != nil else {
            try addObject(object, update: update, context)
            return object
        }
        return try withSavepoint(context) {
            try updateGiven(object, values.map(\.key), existing: existing, info, layout, update: update, context)
        }
    }

    /// The update path of `create`: adds the unmanaged objects the given properties hold (with
    /// the same policy), then writes only the given properties of the stored object `existing`.
    private func updateGiven<T: Object>(
        _ object: T, _ names: [String], existing: UInt64, _ info: ClassInfo, _ layout: ClassLayout,
        update: UpdatePolicy, _ context: WriteContext
    ) throws -> T {
        for name in names {
            // try?: a name the model lacks is not a relationship to add; `create` reports unknown names.
            guard let field = try? layout.field(named: name) else { continue }
            if field.valueType == MixedValue.self, let mixed = field.value(in: object) as? MixedValue {
                try prepareMixedObjects(mixed, context)
                continue
            }
            guard let relationship = field.relationship else { continue }
            for held in relationship.heldObjects(at: object._objdbBase + field.valueOffset) where held._objdbDatabase == nil {
                try addObject(held, update: update, requirePrimaryKey: false, context)
            }
        }
        encodeUnmanaged(object, info, into: context.scratch.row)
        guard let old = rows.fetch(info, key: existing) else {
            throw ObjDBError(.objectInvalidated, "The object to update disappeared", className: info.name, path: path)
        }
        // Update only the given properties: start from the stored row.
        let given = Set(names.compactMap { info.stored.column(of: $0) })
        let newRow = context.scratch.row.withColumns { new -> RowBuilder in
            let row = RowBuilder()
            appendColumns(of: old, info, to: row) { column in
                guard given.contains(column) else { return false }
                row.append(new(column))
                return true
            }
            return row
        }
        // Into the context's builder (a constant, so that the hot paths borrow it unretained).
        context.scratch.row.reset()
        for column in 0..<info.columnCount { context.scratch.row.append(newRow.column(column)) }
        let row = try updateRow(info, key: existing, policy: update, context)
        attach(object, info, key: existing, row: row)
        context.undo.record(.attached(object))
        return object
    }

    /// The property values of a `create` value: a dictionary, or an object to copy.
    private static func propertyValues(of value: Any, layout: ClassLayout) throws -> [(key: String, value: Any?)] {
        if let dictionary = value as? [String: Any] {
            for name in dictionary.keys { _ = try layout.field(named: name) }
            return dictionary.map { ($0.key, $0.value) }
        }
        if let object = value as? Object {
            return try layout.fields.map { ($0.name, try object.value(forKey: $0.name)) }
        }
        throw ObjDBError(
            .typeMismatch,
            "create(_:value:update:) takes a [String: Any] dictionary or an object of class '\(layout.className)', not \(type(of: value))",
            className: layout.className)
    }
}
