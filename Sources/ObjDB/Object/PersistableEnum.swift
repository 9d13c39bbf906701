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
public protocol PersistableEnum: NonOptionalPersistableType, IndexableType, RawRepresentable, CaseIterable
where RawValue: NonOptionalPersistableType & IndexableType {}

extension PersistableEnum {
    /// The raw values of the cases as Swift would spell them (strings quoted), for messages.
    static var objdbRawValueList: [String] {
        allCases.map { objdbSpelling($0.rawValue) }
    }

    /// Whether `value` converts to the raw value's type (whether or not a case has it).
    static func objdbIsRawValue(_ value: Any) -> Bool {
        RawValue._objdbConvert(value) != nil
    }
}

/// `value` as Swift source spells it: strings quoted, other values as they print.
func objdbSpelling(_ value: Any) -> String {
    if let string = value as? String { return "\"\(string)\"" }
    return "\(value)"
}

/// The enum a property of type `type` holds: the type itself, or the type an `Optional` wraps.
func persistableEnumType(_ type: Any.Type) -> (any PersistableEnum.Type)? {
    if let enumType = type as? any PersistableEnum.Type { return enumType }
    if let optional = type as? any AnyOptional.Type { return persistableEnumType(optional.wrappedType) }
    return nil
}
