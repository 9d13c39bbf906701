extension Optional: _LinkValue where Wrapped: ObjectBase {}

/// Model classes are the values of links: `@Persisted var owner: Person?` (to-one links must be
/// optional), and the elements of `List<Dog>`, `MutableSet<Dog>` and `Map<String, Dog?>`.
extension ObjectBase: NonOptionalPersistableType, _LinkValue {
    /// `.object`.
    @_spi(Implementation) public static var _objdbPropertyType: PropertyType { .object }

    /// The class itself.
    @_spi(Implementation) public static var _objdbObjectType: ObjectBase.Type? { self }

    /// A new unmanaged object.
    @_spi(Implementation) public static func _objdbDefaultValue() -> Self { Self() }

    /// The object key of a managed object; nothing for an unmanaged one (it is added first).
    @_spi(Implementation) public func _objdbEncode(into bytes: inout _ObjDBBytes) -> Bool {
        guard _objdbDatabase != nil else { return false }
        bytes.appendLittleEndian(_objdbKey, count: 8)
        return true
    }

    /// Objects are not decoded from bytes alone; see ``_objdbReadElement(_:)``.
    @_spi(Implementation) public static func _objdbDecode(_ bytes: UnsafeRawBufferPointer?) -> Self? { nil }

    /// An object of this class, or a `[String: Any]` dictionary of property values from which
    /// a new unmanaged object is made (as `create(_:value:)` does).
    @_spi(Implementation) public static func _objdbConvert(_ value: Any) -> Self? {
        if let object = value as? Self { return object }
        // try?: `nil` is the answer of a conversion that does not apply (an invalid model class,
        // an unknown key); the caller reports the type mismatch.
        guard let values = value as? [String: Any], let layout = try? SchemaDiscovery.layout(of: self) else { return nil }
        let object = Self()
        for (name, value) in values {
            // try?: an unknown key means the dictionary does not convert (see above).
            guard let field = try? layout.field(named: name), field.setValue(in: object, to: value) else { return nil }
        }
        return object
    }

    /// The linked object.
    @_spi(Implementation) public static func _objdbGetOptional(_ object: ObjectBase, _ column: Int) -> Self? {
        guard let database = object._objdbDatabase else {
            object._objdbRecordProbe(column)
            return nil
        }
        return database.linkTarget(of: object, column: column, as: Self.self)
    }

    /// Links to `value`, adding it first if it is unmanaged.
    @_spi(Implementation) public static func _objdbSetOptional(_ object: ObjectBase, _ column: Int, _ value: ObjectBase?) {
        object._objdbDatabase.unsafelyUnwrapped.setLink(of: object, column: column, to: value)
    }

    /// The object key; the collection adds an unmanaged object first.
    @_spi(Implementation) public static func _objdbWriteElement(_ value: ObjectBase, to writer: inout _ObjDBElementWriter) {
        writer.object = value
        writer.element = value._objdbDatabase == nil ? .null : StoredElement(objectKey: value._objdbKey)
    }

    /// The object with the stored key.
    @_spi(Implementation) public static func _objdbReadElement(_ reader: _ObjDBElementReader) -> Self? {
        guard case .value(let bytes) = reader.read, bytes.count == 8, let database = reader.database,
            let target = reader.target
        else { return nil }
        return database.object(Self.self, target, key: bytes.loadUnaligned(as: UInt64.self))
    }
}
