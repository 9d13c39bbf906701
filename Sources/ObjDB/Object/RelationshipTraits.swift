/// What a relationship property type — a link, a collection, linking objects — tells schema
/// discovery and `add`, beyond what ``PersistableType`` says about plain values.
protocol RelationshipValue {
    /// The collection the type is, if any.
    static var collectionKind: CollectionKind? { get }
    /// The element type (a map's value type); for a to-one link, the type itself.
    static var elementType: any PersistableType.Type { get }
    /// Whether the type is ``LinkingObjects`` (computed, no column).
    static var isLinkingObjects: Bool { get }
    /// For linking objects: the origin property named by the value at `field` (the declared default).
    static func originProperty(at field: UnsafeRawPointer) -> String?
    /// The objects held by the unmanaged value at `field`: what `add` must add with its owner.
    static func heldObjects(at field: UnsafeRawPointer) -> [ObjectBase]
    /// Encodes the unmanaged value at `field` as column bytes, once every object it holds is
    /// managed; returns `false` for a null column.
    static func encodeUnmanaged(at field: UnsafeRawPointer, into bytes: inout _ObjDBBytes) -> Bool
    /// Lets go of the objects the unmanaged value at `field` holds, once its owner is managed for
    /// good: the stored column answers from then on, and an object graph with cycles
    /// (`a.best = a`, a parent listing children that link back) would otherwise never be freed.
    static func releaseUnmanaged(at field: UnsafeMutableRawPointer)
}

extension RelationshipValue {
    static var collectionKind: CollectionKind? { nil }
    static var isLinkingObjects: Bool { false }
    static func originProperty(at field: UnsafeRawPointer) -> String? { nil }
    static func releaseUnmanaged(at field: UnsafeMutableRawPointer) {}
}

extension Optional: RelationshipValue where Wrapped: ObjectBase {
    static var elementType: any PersistableType.Type { Self.self }

    static func heldObjects(at field: UnsafeRawPointer) -> [ObjectBase] {
        field.assumingMemoryBound(to: Self.self).pointee.map { [$0] } ?? []
    }

    static func encodeUnmanaged(at field: UnsafeRawPointer, into bytes: inout _ObjDBBytes) -> Bool {
        guard let object = field.assumingMemoryBound(to: Self.self).pointee else { return false }
        bytes.appendLittleEndian(object._objdbKey, count: 8)
        return true
    }

    static func releaseUnmanaged(at field: UnsafeMutableRawPointer) {
        field.assumingMemoryBound(to: Self.self).pointee = nil
    }
}

/// A property whose type is a model class without `?`: to-one links must be optional, which
/// schema validation reports.
extension ObjectBase: RelationshipValue {
    static var elementType: any PersistableType.Type { Self.self }

    static func heldObjects(at field: UnsafeRawPointer) -> [ObjectBase] {
        [field.assumingMemoryBound(to: ObjectBase.self).pointee]
    }

    static func encodeUnmanaged(at field: UnsafeRawPointer, into bytes: inout _ObjDBBytes) -> Bool {
        bytes.appendLittleEndian(field.assumingMemoryBound(to: ObjectBase.self).pointee._objdbKey, count: 8)
        return true
    }
}
