import Foundation

extension PersistableType {
    /// Non-optional by default.
    public static var _objdbIsOptional: Bool { false }

    /// Not an integer by default.
    public static var _objdbBitWidth: Int { 0 }

    /// Not a link by default.
    public static var _objdbObjectType: ObjectBase.Type? { nil }

    /// Not an integer by default.
    public var _objdbInteger: Int64? { nil }

    /// The value itself.
    public var _objdbAnyValue: Any? { self }

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

/// Unwraps values that are `Optional`s boxed in `Any`.
protocol AnyOptional {
    /// The wrapped value, or `nil`.
    var wrappedAny: Any? { get }
    /// The type of the wrapped value.
    static var wrappedType: Any.Type { get }
}

extension Optional: AnyOptional {
    static var wrappedType: Any.Type { Wrapped.self }

    var wrappedAny: Any? {
        switch self {
        case .some(let value): (value as? AnyOptional)?.wrappedAny ?? value
        case .none: nil
        }
    }
}

/// `value` with any `Optional` or `NSNull` boxing removed; `nil` for nil.
func unwrapAny(_ value: Any?) -> Any? {
    guard let value else { return nil }
    if value is NSNull { return nil }
    if let optional = value as? AnyOptional { return optional.wrappedAny }
    return value
}

/// Converts a loosely typed value to `T`: `nil` (or `NSNull`) only for optional types.
func convert<T: PersistableType>(_ value: Any?, to type: T.Type) -> T? {
    // A value of the type itself, the usual case, needs no unwrapping (a cast to a protocol).
    if let exact = value as? T { return exact }
    guard let value = unwrapAny(value) else { return T._objdbIsOptional ? T._objdbDefaultValue() : nil }
    return T._objdbConvert(value)
}

extension Optional: PersistableType where Wrapped: NonOptionalPersistableType {
    /// The wrapped type's stored type.
    public static var _objdbPropertyType: PropertyType { Wrapped._objdbPropertyType }
    /// Always `true`.
    public static var _objdbIsOptional: Bool { true }
    /// The wrapped type's width.
    public static var _objdbBitWidth: Int { Wrapped._objdbBitWidth }
    /// `nil`.
    public static func _objdbDefaultValue() -> Self { nil }

    /// Encodes the wrapped value, or nothing for `nil`.
    public func _objdbEncode(into bytes: inout _ObjDBBytes) -> Bool {
        switch self {
        case .some(let value): value._objdbEncode(into: &bytes)
        case .none: false
        }
    }

    /// The wrapped type's reading of an optional column.
    @inlinable
    public static func _objdbGet(_ object: ObjectBase, _ column: Int) -> Self {
        Wrapped._objdbGetOptional(object, column)
    }

    /// The wrapped type's writing of an optional column.
    public static func _objdbSet(_ object: ObjectBase, _ column: Int, _ value: Self) {
        Wrapped._objdbSetOptional(object, column, value)
    }

    /// The wrapped type's model class, for optional links.
    public static var _objdbObjectType: ObjectBase.Type? { Wrapped._objdbObjectType }

    /// `nil` for a null column, else the wrapped type's decoding.
    public static func _objdbDecode(_ bytes: UnsafeRawBufferPointer?) -> Self? {
        guard let bytes else { return .some(nil) }
        return Wrapped._objdbDecode(bytes).map { .some($0) }
    }

    /// `nil` and `NSNull` convert to `nil`.
    public static func _objdbConvert(_ value: Any) -> Self? {
        guard let unwrapped = unwrapAny(value) else { return .some(nil) }
        return Wrapped._objdbConvert(unwrapped).map { .some($0) }
    }

    /// The wrapped value, or `nil`.
    public var _objdbAnyValue: Any? { self.flatMap { $0._objdbAnyValue } }
}

extension Optional: PrimaryKeyType where Wrapped: PrimaryKeyType & NonOptionalPersistableType {}

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
extension Optional: IndexableType where Wrapped: IndexableType & NonOptionalPersistableType {}
