import Foundation

// The protocols of the values ObjDB stores, under the names generic signatures and the guides
// use (`sum<T: PersistableType & AddableType>(of: KeyPath<Element, T>) -> T`). ObjDB provides
// every conformance; apps do not conform their own types (an enum conforms to
// ``PersistableEnum`` instead). The underscored requirements are ObjDB's implementation, not API:
// those that `@Persisted`'s inlinable accessors call are public, so that a property read compiles
// to a decode specialized in the app's module; the rest are in the `Implementation` SPI, which
// apps do not see. `Persistable+Implementation.swift` says why what remains public must be.

/// A type a `@Persisted` property can hold: `Bool`, every `Int` width, `Float`, `Double`,
/// `String`, `Data`, `Date`, `UUID`, `Decimal`, ``ObjectId``, every ``PersistableEnum``, a model
/// class (a to-one link), ``List``, ``MutableSet``, ``Map``, ``LinkingObjects``, and `Optional`
/// of the values and links.
///
/// ObjDB provides the conformances; do not conform your own types. The underscored requirements
/// are ObjDB's implementation.
public protocol PersistableType {
    /// The stored type.
    @_spi(Implementation) static var _objdbPropertyType: PropertyType { get }
    /// Whether the type is an `Optional`.
    @_spi(Implementation) static var _objdbIsOptional: Bool { get }
    /// The integer width in bits; 0 for other types.
    @_spi(Implementation) static var _objdbBitWidth: Int { get }
    /// The value of a property declared without one, such as `@Persisted var id: ObjectId`.
    static func _objdbDefaultValue() -> Self
    /// Appends the value's column bytes; returns `false` (appending nothing) for `nil`.
    @_spi(Implementation) func _objdbEncode(into bytes: inout _ObjDBBytes) -> Bool
    /// Decodes column bytes (`nil` for a null column); `nil` when the bytes do not fit the type.
    static func _objdbDecode(_ bytes: UnsafeRawBufferPointer?) -> Self?
    /// Converts a loosely typed value (dictionary or key-value coding); `nil` when it does not fit.
    @_spi(Implementation) static func _objdbConvert(_ value: Any) -> Self?
    /// The value boxed for key-value coding; `nil` for `nil`.
    @_spi(Implementation) var _objdbAnyValue: Any? { get }
    /// Reads column `column` of a managed object.
    static func _objdbGet(_ object: ObjectBase, _ column: Int) -> Self
    /// Writes column `column` of a managed object.
    static func _objdbSet(_ object: ObjectBase, _ column: Int, _ value: Self)
    /// The model class of a link (an object, or an optional object); `nil` for other types.
    @_spi(Implementation) static var _objdbObjectType: ObjectBase.Type? { get }
    /// The value of a (non-optional) integer type as an `Int64`; `nil` for other types. Lets a
    /// primary-key lookup build its key directly.
    @_spi(Implementation) var _objdbInteger: Int64? { get }
    /// Encodes the value stored at `field` (the inside of a `@Persisted` wrapper of this type).
    @_spi(Implementation) static func _objdbEncodeField(at field: UnsafeRawPointer, into bytes: inout _ObjDBBytes) -> Bool
    /// The value stored at `field`, boxed.
    @_spi(Implementation) static func _objdbFieldValue(at field: UnsafeRawPointer) -> Any?
    /// Converts `value` and stores it at `field`; `false` if it does not fit.
    @_spi(Implementation) static func _objdbSetField(at field: UnsafeMutableRawPointer, to value: Any?) -> Bool
    /// Decodes column bytes and boxes the value; `nil` for bytes that do not fit.
    @_spi(Implementation) static func _objdbDecodedAnyValue(_ bytes: UnsafeRawBufferPointer) -> Any?
    /// Converts a loosely typed value (`nil` only for optional types), boxed; `nil` when it does
    /// not fit.
    @_spi(Implementation) static func _objdbConverted(_ value: Any?) -> (any PersistableType)?
}

/// A ``PersistableType`` that is not an `Optional`; `Optional` of it is persistable too.
public protocol NonOptionalPersistableType: CollectionElementType {
    /// Reads column `column` of a managed object as `Optional<Self>`: what an optional property
    /// of this type reads. Links (optional objects) override it.
    static func _objdbGetOptional(_ object: ObjectBase, _ column: Int) -> Self?
    /// Writes `Optional<Self>` to column `column` of a managed object.
    @_spi(Implementation) static func _objdbSetOptional(_ object: ObjectBase, _ column: Int, _ value: Self?)
}

/// A type a property can be indexed for (`@Persisted(indexed: true)`): every integer width,
/// `Bool`, `String`, `Date`, `UUID`, ``ObjectId``, enums of those, and their optionals.
public protocol IndexableType: PersistableType {}

/// A type a primary key can have (`@Persisted(primaryKey: true)`): every integer width,
/// `String`, `UUID`, ``ObjectId``, and their optionals.
public protocol PrimaryKeyType: IndexableType {}

/// A type ``List``, ``MutableSet`` and ``Map`` can hold: the values and model classes of
/// ``PersistableType`` (``Object``, ``EmbeddedObject``), and their optionals.
public protocol CollectionElementType: PersistableType {
    /// Encodes `value` as a stored collection element.
    @_spi(Implementation) static func _objdbWriteElement(_ value: Self, to writer: inout _ObjDBElementWriter)
    /// Decodes a stored collection element; `nil` if the bytes do not fit the type.
    @_spi(Implementation) static func _objdbReadElement(_ reader: _ObjDBElementReader) -> Self?
}

/// A type ``Map`` keys can have: `String`.
public protocol MapKeyType: NonOptionalPersistableType, Hashable {}

extension String: MapKeyType {}
