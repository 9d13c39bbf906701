import Foundation

// Implementation details that the compiler requires to be public.
//
// Nothing in this file is API: apps never call these declarations, and ObjDB changes them in any
// release. The rest of the value protocols' internals (the witnesses of ObjDB's own types, and
// the requirements no inlinable code calls) are in the `Implementation` SPI, which apps do not
// see; these cannot be, for one of two reasons:
//
// - `@Persisted`'s accessors are `@inlinable`, so that reading a property compiles, in the app's
//   module, to a load of its column and a decode specialized for its type, with no call into
//   ObjDB's generic code. Inlinable code may call only public declarations, so the requirements
//   it calls are public (`_objdbDefaultValue`, `_objdbDecode`, `_objdbGet`, `_objdbSet`,
//   `_objdbGetOptional`, declared in `PersistableTypes.swift`), and so are the default
//   implementations of `_objdbGet`, `_objdbSet` and `_objdbGetOptional` below.
// - An app's enum conforms to ``PersistableEnum``, and through it to ``PersistableType``, in the
//   app's module, where the compiler must find a visible witness for every requirement, those in
//   the SPI included. The defaults below and ``PersistableEnum``'s witnesses are those witnesses;
//   the types their signatures name (`_ObjDBElementWriter`, `_ObjDBElementReader`, and
//   `_ObjDBBytes` in `Storage/Encoding/ObjDBBytes.swift`) are public with them.
//
// `_LinkValue` is the constraint that limits `@Persisted(deleteRule:)` to links. Docs/Architecture.md
// ("The public surface") counts what stays public; Docs/Decisions/0044 says why.

// MARK: Types that public signatures name

/// A type that holds links: a model class, an optional one, or a collection of them. It lets
/// `@Persisted(deleteRule:)` apply to links only.
public protocol _LinkValue: PersistableType {}

/// Where a collection element is encoded. ObjDB's internals.
public struct _ObjDBElementWriter {
    /// Scratch space for the encoding.
    var bytes: _ObjDBBytes
    /// The encoded element.
    var element: StoredElement = .null
    /// For object elements: the object, which the collection adds first if it is unmanaged.
    var object: ObjectBase?
    /// For mixed elements: the objects the value links to, set by every write of a mixed value
    /// (empty when it holds none; not reset by writes of other types). While one is unmanaged,
    /// ``element`` is null: the collection adds them, then encodes the value again.
    var mixedObjects: [Object] = []

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

// MARK: Default implementations: the reads and writes `@Persisted` inlines, and the witnesses an
// app's enums get

extension PersistableType {
    /// Non-optional by default.
    public static var _objdbIsOptional: Bool { false }

    /// Not a link by default.
    public static var _objdbObjectType: ObjectBase.Type? { nil }

    /// Not an integer by default.
    public var _objdbInteger: Int64? { nil }

    /// Decodes the column from the object's cached row; a missing or damaged column reads as
    /// the property's declared default.
    @inlinable
    public static func _objdbGet(_ object: ObjectBase, _ column: Int) -> Self {
        switch object._objdbRead(column) {
        case .value(let bytes):
            if let value = _objdbDecode(bytes) { return value }
            object._objdbReportUndecodable(column, as: Self.self)
        case .null:
            if let value = _objdbDecode(nil) { return value }
            object._objdbReportUndecodable(column, as: Self.self)
        case .absent:
            break
        }
        return object._objdbFallback(column, as: Self.self)
    }

    /// Encodes the value and writes it through the object's database.
    public static func _objdbSet(_ object: ObjectBase, _ column: Int, _ value: Self) {
        object._objdbWrite(column) { value._objdbEncode(into: &$0) }
    }

    /// Encodes the value at `field`. Implemented on the value type, so that each concrete type
    /// gets its own specialized code and no wrapper metadata is looked up per call.
    public static func _objdbEncodeField(at field: UnsafeRawPointer, into bytes: inout _ObjDBBytes) -> Bool {
        field.assumingMemoryBound(to: Self.self).pointee._objdbEncode(into: &bytes)
    }

    /// The value at `field`, boxed.
    public static func _objdbFieldValue(at field: UnsafeRawPointer) -> Any? {
        field.assumingMemoryBound(to: Self.self).pointee._objdbAnyValue
    }

    /// Decodes and boxes. A requirement implemented here, so that each concrete type gets its own
    /// specialized code: dynamic access (`object["name"]`) reaches it through the column's type
    /// alone, and a generic call per read would look up `Optional<Self>` metadata every time.
    public static func _objdbDecodedAnyValue(_ bytes: UnsafeRawBufferPointer) -> Any? {
        _objdbDecode(bytes)?._objdbAnyValue
    }

    /// Converts and boxes; specialized per type like ``_objdbDecodedAnyValue(_:)``.
    public static func _objdbConverted(_ value: Any?) -> (any PersistableType)? {
        convert(value, to: Self.self)
    }

    /// Converts and stores a value at `field`.
    public static func _objdbSetField(at field: UnsafeMutableRawPointer, to value: Any?) -> Bool {
        guard let converted = convert(value, to: Self.self) else { return false }
        field.assumingMemoryBound(to: Self.self).pointee = converted
        return true
    }
}

extension NonOptionalPersistableType {
    /// Decodes an optional column: `nil` for a null column.
    @inlinable
    public static func _objdbGetOptional(_ object: ObjectBase, _ column: Int) -> Self? {
        switch object._objdbRead(column) {
        case .value(let bytes):
            if let value = _objdbDecode(bytes) { return value }
            object._objdbReportUndecodable(column, as: Self.self)
        case .null:
            return nil
        case .absent:
            break
        }
        return object._objdbFallback(column, as: Optional<Self>.self)
    }

    /// Encodes an optional value (`nil` as a null column) and writes it.
    public static func _objdbSetOptional(_ object: ObjectBase, _ column: Int, _ value: Self?) {
        object._objdbWrite(column) { value?._objdbEncode(into: &$0) ?? false }
    }
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

// MARK: PersistableEnum's witnesses, compiled into the conformances of an app's enums

extension PersistableEnum {
    /// The raw value's stored type.
    public static var _objdbPropertyType: PropertyType { RawValue._objdbPropertyType }
    /// The raw value's width.
    public static var _objdbBitWidth: Int { RawValue._objdbBitWidth }

    /// The first case.
    public static func _objdbDefaultValue() -> Self {
        guard let first = allCases.first else {
            objdbFatal("PersistableEnum \(Self.self) has no cases; a persisted enum needs at least one")
        }
        return first
    }

    /// The raw value.
    public func _objdbEncode(into bytes: inout _ObjDBBytes) -> Bool { rawValue._objdbEncode(into: &bytes) }

    /// `nil` when the raw value matches no case.
    public static func _objdbDecode(_ bytes: UnsafeRawBufferPointer?) -> Self? {
        RawValue._objdbDecode(bytes).flatMap(Self.init(rawValue:))
    }

    /// A case, or a raw value of one.
    public static func _objdbConvert(_ value: Any) -> Self? {
        if let value = value as? Self { return value }
        return RawValue._objdbConvert(value).flatMap(Self.init(rawValue:))
    }

    /// The raw value (what the file and the CLI show).
    public var _objdbAnyValue: Any? { rawValue }
}
