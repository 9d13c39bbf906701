/// What every model object offers, managed or not: ``Object`` and ``EmbeddedObject`` alike.
extension ObjectBase {
    /// Whether the object is managed by a database (it was added or read from one).
    public var isManaged: Bool { _objdbDatabase != nil }

    /// Whether the object was deleted, or added in a write transaction that was rolled back.
    /// Reading a property of an invalidated object is a programmer error.
    public var isInvalidated: Bool {
        guard _objdbDatabase != nil else { return false }
        return _objdbCurrentRow() == nil
    }

    /// The database managing the object, or `nil` while unmanaged.
    public var database: Database? { _objdbDatabase }

    /// The description of the object's class.
    ///
    /// For a managed object it is the schema stored in the file (properties in column order);
    /// for an unmanaged one, the schema discovered from the class.
    public var objectSchema: ObjectSchema {
        if let info = _objdbInfo { return info.schema }
        do {
            return try SchemaDiscovery.layout(of: type(of: self)).schema
        } catch {
            objdbFatal("Invalid model class \(type(of: self)): \(error)")
        }
    }

    /// Reads or writes a property by name, as `Any?` (enums as their raw values).
    ///
    /// ```swift
    /// person["name"] = "Ann"
    /// let age = person["age"] as? Int
    /// ```
    ///
    /// An unknown name or a value of the wrong type is a programmer error; use
    /// ``value(forKey:)`` and ``setValue(_:forKey:)`` for names and values that come from data.
    /// In a migration block, setting a wrong value fails the migration (the file is left as it
    /// was) rather than stopping the program.
    public subscript(key: String) -> Any? {
        get {
            do { return try value(forKey: key) } catch { objdbFatal("\(error)") }
        }
        set {
            do {
                try setValue(newValue, forKey: key)
            } catch {
                // In a migration the value usually comes from the old data: a wrong one fails
                // the migration (which then changes nothing) instead of stopping the program.
                if let context = _objdbDatabase?.writeContext, context.isMigration {
                    context.transaction.doom(Database.objdbError(error, path: _objdbDatabase?.path ?? ""))
                    return
                }
                objdbFatal("\(error)")
            }
        }
    }

    /// Reads a property by name. Throws ``ObjDBError/Code/unknownProperty`` for an unknown name.
    public func value(forKey key: String) throws -> Any? {
        if let info = _objdbInfo {
            // Links, collections and linking objects read through their type, as the property does.
            if info.layout?.type == type(of: self), let (type, column) = try info.relationshipField(named: key) {
                return Self.read(type, of: self, column: column)
            }
            return value(atColumn: try info.column(named: key))
        }
        let layout = try SchemaDiscovery.layout(of: type(of: self))
        let field = try layout.field(named: key)
        return field.value(in: self)
    }

    /// Writes a property by name. Throws ``ObjDBError/Code/unknownProperty`` for an unknown name
    /// and ``ObjDBError/Code/typeMismatch`` for a value that does not fit the property.
    /// On a managed object it must run inside a write transaction.
    ///
    /// On a ``DynamicObject``, a link or collection property takes the values
    /// ``Database/createDynamicObject(_:value:update:)`` takes: a link an object, `nil`, a
    /// primary key of the target class, or a dictionary that creates the target; a list or set
    /// an array; a map a `[String: Any?]` dictionary.
    ///
    /// ```swift
    /// try db.write {
    ///     owner["favorite"] = 7                       // the Pet whose primary key is 7
    ///     try owner.setValue(["a", "b"], forKey: "tags")
    /// }
    /// ```
    public func setValue(_ value: Any?, forKey key: String) throws {
        if let info = _objdbInfo, let database = _objdbDatabase {
            if info.layout?.type == type(of: self), let (type, column) = try info.relationshipField(named: key) {
                try Self.write(type, value, to: self, column: column, property: info.schema[key], className: info.name)
                return
            }
            let column = try info.column(named: key)
            guard info.columnKinds[column] == .value else {
                // Without the model class: the values `Database.createDynamicObject` takes.
                try database.setRelationshipColumn(of: self, column: column, to: value)
                return
            }
            let converted = try info.converted(value, column: column)
            if let mixed = converted as? MixedValue, !mixed.heldObjects.isEmpty, let context = database.writeContext,
                context.transaction.acceptsWrites
            {
                try database.prepareMixedObjects(mixed, context)
            }
            database.setColumn(of: self, column: column) { converted._objdbEncode(into: &$0) }
            return
        }
        let layout = try SchemaDiscovery.layout(of: type(of: self))
        let field = try layout.field(named: key)
        guard field.setValue(in: self, to: value) else {
            throw ObjDBError.typeMismatch(
                value, expected: layout.schema.properties[field.index], className: layout.className, valueType: field.valueType)
        }
    }

    /// The property of type `T` in `column`, boxed.
    private static func read<T: PersistableType>(_ type: T.Type, of object: ObjectBase, column: Int) -> Any? {
        T._objdbGet(object, column)._objdbAnyValue
    }

    /// Converts `value` to `T` and assigns it as the property setter does.
    private static func write<T: PersistableType>(
        _ type: T.Type, _ value: Any?, to object: ObjectBase, column: Int, property: Property?, className: String
    ) throws {
        guard let property, !property.isComputed else {
            throw ObjDBError(
                .invalidValue, "'\(className).\(property?.name ?? "?")' is computed from links and cannot be assigned",
                className: className, propertyName: property?.name)
        }
        guard let converted = convert(value, to: T.self) else {
            throw ObjDBError.typeMismatch(value, expected: property, className: className, valueType: T.self)
        }
        T._objdbSet(object, column, converted)
    }
}

extension ClassInfo {
    /// For a link, collection or linking-objects property of the model class: its Swift type and
    /// its column (a pseudo-column after the stored ones for linking objects); `nil` for other
    /// properties. Throws ``ObjDBError/Code/unknownProperty`` for a name the class lacks.
    func relationshipField(named name: String) throws -> (any PersistableType.Type, Int)? {
        // try?: a name that is not a field of the model is not a relationship field.
        guard let layout, let field = try? layout.field(named: name), field.relationship != nil else {
            if stored.column(of: name) == nil && !computed.contains(where: { $0.name == name }) {
                _ = try column(named: name)
            }
            return nil
        }
        guard columnOfField[field.index] >= 0 else { return nil }
        return (field.valueType, columnOfField[field.index])
    }
}
