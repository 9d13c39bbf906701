/// Where a collection element is encoded. ObjDB's internals.
public struct _ObjDBElementWriter {
    /// Scratch space for the encoding.
    var bytes: _ObjDBBytes
    /// The encoded element.
    var element: StoredElement = .null
    /// For object elements: the object, which the collection adds first if it is unmanaged.
    var object: ObjectBase?

    init(_ bytes: _ObjDBBytes = _ObjDBBytes()) { self.bytes = bytes }

    /// Encodes a scalar value through its column encoding.
    @inline(__always)
    mutating func encode<T: PersistableType>(_ value: T) {
        object = nil
        bytes.buffer.reset()
        element = value._objdbEncode(into: &bytes) ? StoredElement(bytes: bytes.buffer.bytes) : .null
    }
}

/// A stored collection element to decode, with what decoding an object needs. ObjDB's internals.
public struct _ObjDBElementReader {
    /// The element's bytes, or null.
    let read: ColumnRead
    /// The database of the collection, for object elements.
    let database: Database?
    /// The class of object elements.
    let target: ClassInfo?
}

extension CollectionElementType {
    /// The column encoding of the value.
    public static func _objdbWriteElement(_ value: Self, to writer: inout _ObjDBElementWriter) {
        writer.encode(value)
    }

    /// The column decoding of the bytes.
    public static func _objdbReadElement(_ reader: _ObjDBElementReader) -> Self? {
        switch reader.read {
        case .value(let bytes): _objdbDecode(bytes)
        case .null: _objdbDecode(nil)
        case .absent: nil
        }
    }
}

extension Optional: CollectionElementType where Wrapped: NonOptionalPersistableType {
    /// `nil` as a null element, else the wrapped type's encoding.
    public static func _objdbWriteElement(_ value: Self, to writer: inout _ObjDBElementWriter) {
        guard let value else {
            writer.object = nil
            writer.element = .null
            return
        }
        Wrapped._objdbWriteElement(value, to: &writer)
    }

    /// `nil` for a null element, else the wrapped type's decoding.
    public static func _objdbReadElement(_ reader: _ObjDBElementReader) -> Self? {
        if case .null = reader.read { return .some(nil) }
        return Wrapped._objdbReadElement(reader).map { .some($0) }
    }
}
