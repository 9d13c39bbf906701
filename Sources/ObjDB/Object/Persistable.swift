import Foundation

// The value protocols' defaults that ObjDB's own conformances use, loose-value conversion, and
// `Optional`'s conformances; witnesses are in the `Implementation` SPI (see
// `Persistable+Implementation.swift` for what cannot be).

extension PersistableType {
    /// Not an integer by default.
    @_spi(Implementation) public static var _objdbBitWidth: Int { 0 }

    /// The value itself.
    @_spi(Implementation) public var _objdbAnyValue: Any? { self }
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
    @_spi(Implementation) public static var _objdbPropertyType: PropertyType { Wrapped._objdbPropertyType }
    /// Always `true`.
    @_spi(Implementation) public static var _objdbIsOptional: Bool { true }
    /// The wrapped type's width.
    @_spi(Implementation) public static var _objdbBitWidth: Int { Wrapped._objdbBitWidth }
    /// `nil`.
    @_spi(Implementation) public static func _objdbDefaultValue() -> Self { nil }

    /// Encodes the wrapped value, or nothing for `nil`.
    @_spi(Implementation) public func _objdbEncode(into bytes: inout _ObjDBBytes) -> Bool {
        switch self {
        case .some(let value): value._objdbEncode(into: &bytes)
        case .none: false
        }
    }

    /// The wrapped type's reading of an optional column.
    @inlinable
    @_spi(Implementation) public static func _objdbGet(_ object: ObjectBase, _ column: Int) -> Self {
        Wrapped._objdbGetOptional(object, column)
    }

    /// The wrapped type's writing of an optional column.
    @_spi(Implementation) public static func _objdbSet(_ object: ObjectBase, _ column: Int, _ value: Self) {
        Wrapped._objdbSetOptional(object, column, value)
    }

    /// The wrapped type's model class, for optional links.
    @_spi(Implementation) public static var _objdbObjectType: ObjectBase.Type? { Wrapped._objdbObjectType }

    /// `nil` for a null column, else the wrapped type's decoding.
    @_spi(Implementation) public static func _objdbDecode(_ bytes: UnsafeRawBufferPointer?) -> Self? {
        guard let bytes else { return .some(nil) }
        return Wrapped._objdbDecode(bytes).map { .some($0) }
    }

    /// `nil` and `NSNull` convert to `nil`.
    @_spi(Implementation) public static func _objdbConvert(_ value: Any) -> Self? {
        guard let unwrapped = unwrapAny(value) else { return .some(nil) }
        return Wrapped._objdbConvert(unwrapped).map { .some($0) }
    }

    /// The wrapped value, or `nil`.
    @_spi(Implementation) public var _objdbAnyValue: Any? { self.flatMap { $0._objdbAnyValue } }
}

extension Optional: PrimaryKeyType where Wrapped: PrimaryKeyType & NonOptionalPersistableType {}

extension Optional: IndexableType where Wrapped: IndexableType & NonOptionalPersistableType {}

extension Optional: CollectionElementType where Wrapped: NonOptionalPersistableType {
    /// `nil` as a null element, else the wrapped type's encoding.
    @_spi(Implementation) public static func _objdbWriteElement(_ value: Self, to writer: inout _ObjDBElementWriter) {
        guard let value else {
            writer.object = nil
            writer.element = .null
            return
        }
        Wrapped._objdbWriteElement(value, to: &writer)
    }

    /// `nil` for a null element, else the wrapped type's decoding.
    @_spi(Implementation) public static func _objdbReadElement(_ reader: _ObjDBElementReader) -> Self? {
        if case .null = reader.read { return .some(nil) }
        return Wrapped._objdbReadElement(reader).map { .some($0) }
    }
}
