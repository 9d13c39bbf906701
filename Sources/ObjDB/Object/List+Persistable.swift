extension List: SequenceCollection {
    static var kind: CollectionKind { .list }

    var home: CollectionHome? { backing.home }

    func replaceAll(with elements: [Element]) { replaceSubrange(0..<count, with: elements) }
}

extension List: PersistableType {
    /// The element's stored type.
    @_spi(Implementation) public static var _objdbPropertyType: PropertyType { Element._objdbPropertyType }
    /// Whether the elements are optional.
    @_spi(Implementation) public static var _objdbIsOptional: Bool { Element._objdbIsOptional }
    /// The element's integer width.
    @_spi(Implementation) public static var _objdbBitWidth: Int { Element._objdbBitWidth }
    /// An empty list.
    @_spi(Implementation) public static func _objdbDefaultValue() -> List<Element> { List() }
    /// The sequence encoding of the elements.
    @_spi(Implementation) public func _objdbEncode(into bytes: inout _ObjDBBytes) -> Bool { List.encodeUnmanaged(self, into: &bytes) }
    /// Lists are not decoded from bytes alone.
    @_spi(Implementation) public static func _objdbDecode(_ bytes: UnsafeRawBufferPointer?) -> List<Element>? { nil }
    /// A list, or an array of convertible elements, as a new unmanaged list.
    @_spi(Implementation) public static func _objdbConvert(_ value: Any) -> List<Element>? { converted(value) }
    /// The managed list of the property.
    @_spi(Implementation) public static func _objdbGet(_ object: ObjectBase, _ column: Int) -> List<Element> {
        if object._objdbDatabase == nil { object._objdbRecordProbe(column) }
        return List(home: CollectionHome(parent: object, column: column))
    }
    /// Replaces the stored elements with those of `value`.
    @_spi(Implementation) public static func _objdbSet(_ object: ObjectBase, _ column: Int, _ value: List<Element>) {
        assign(value, to: object, column: column)
    }
}

extension List: RelationshipValue {
    static var collectionKind: CollectionKind? { .list }
    static var elementType: any PersistableType.Type { Element.self }

    static func heldObjects(at field: UnsafeRawPointer) -> [ObjectBase] {
        heldObjects(field.assumingMemoryBound(to: Self.self).pointee)
    }

    static func encodeUnmanaged(at field: UnsafeRawPointer, into bytes: inout _ObjDBBytes) -> Bool {
        encodeUnmanaged(field.assumingMemoryBound(to: Self.self).pointee, into: &bytes)
    }

    static func releaseUnmanaged(at field: UnsafeMutableRawPointer) {
        let value = field.assumingMemoryBound(to: Self.self)
        // Objects, or mixed values, which may hold objects.
        guard Element._objdbObjectType != nil || Element.self == MixedValue.self, !value.pointee.isEmpty else { return }
        value.pointee = Self()
    }
}

extension List: _LinkValue where Element: ObjectBase {}
