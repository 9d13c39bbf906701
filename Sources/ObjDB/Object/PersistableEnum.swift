/// An enum that a `@Persisted` property can hold, stored as its raw value.
///
/// ```swift
/// enum Kind: String, PersistableEnum { case regular, vip }
///
/// final class Person: Object {
///     @Persisted var kind: Kind = .regular
/// }
/// ```
///
/// The raw value must be a `String` or an integer. A stored raw value that matches no case (for
/// example written by a newer version of the app) reads as the property's declared default.
public protocol PersistableEnum: _PersistableNonOptional, _Indexable, RawRepresentable, CaseIterable
where RawValue: _PersistableNonOptional & _Indexable {}

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
