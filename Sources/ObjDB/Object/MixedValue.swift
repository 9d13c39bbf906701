import Foundation

/// A value of any of the types a property can hold, chosen per object: Realm's `AnyRealmValue`.
///
/// ```swift
/// final class Setting: Object {
///     @Persisted(primaryKey: true) var key: String = ""
///     @Persisted var value: MixedValue = .none
///     @Persisted var history: List<MixedValue>
/// }
/// setting.value = .int(3)
/// setting.value = .string("on")
/// if case .string(let s) = setting.value { print(s) }
/// setting.value.intValue      // nil: it holds a string now
/// ```
///
/// Queries compare numbers across types (`value == 1` matches `.int(1)`, `.float(1)`,
/// `.double(1)` and `.decimal(1)`), and strings with data by their bytes, as Realm does; values of
/// other types never equal each other. Equality of two `MixedValue`s in Swift is by case and
/// payload (`.int(1) != .double(1)`), as `AnyRealmValue`'s.
public enum MixedValue: Hashable, Sendable, CustomStringConvertible {
    /// No value; what a new property holds. Stored as a null column.
    case none
    /// A signed integer.
    case int(Int)
    /// A Boolean.
    case bool(Bool)
    /// A single-precision number.
    case float(Float)
    /// A double-precision number.
    case double(Double)
    /// A string.
    case string(String)
    /// Bytes.
    case data(Data)
    /// A date.
    case date(Date)
    /// An ``ObjectId``.
    case objectId(ObjectId)
    /// A decimal number.
    case decimal(Decimal)
    /// A UUID.
    case uuid(UUID)

    /// The integer held, or `nil` for another case.
    public var intValue: Int? { if case .int(let v) = self { v } else { nil } }
    /// The Boolean held, or `nil` for another case.
    public var boolValue: Bool? { if case .bool(let v) = self { v } else { nil } }
    /// The float held, or `nil` for another case.
    public var floatValue: Float? { if case .float(let v) = self { v } else { nil } }
    /// The double held, or `nil` for another case.
    public var doubleValue: Double? { if case .double(let v) = self { v } else { nil } }
    /// The string held, or `nil` for another case.
    public var stringValue: String? { if case .string(let v) = self { v } else { nil } }
    /// The data held, or `nil` for another case.
    public var dataValue: Data? { if case .data(let v) = self { v } else { nil } }
    /// The date held, or `nil` for another case.
    public var dateValue: Date? { if case .date(let v) = self { v } else { nil } }
    /// The ``ObjectId`` held, or `nil` for another case.
    public var objectIdValue: ObjectId? { if case .objectId(let v) = self { v } else { nil } }
    /// The decimal held, or `nil` for another case.
    public var decimal128Value: Decimal? { if case .decimal(let v) = self { v } else { nil } }
    /// The UUID held, or `nil` for another case.
    public var uuidValue: UUID? { if case .uuid(let v) = self { v } else { nil } }
    /// Whether the value is ``none``.
    public var isNone: Bool { self == .none }

    /// The name of the case as a query's `@type` reads it: `"null"`, `"int"`, `"bool"`,
    /// `"float"`, `"double"`, `"string"`, `"binary"`, `"date"`, `"objectId"`, `"decimal"` or
    /// `"uuid"`.
    public var typeName: String { (MixedFormat.Tag(self) ?? MixedFormat.Tag.none).typeName }

    /// The value, with its case: `int(3)`, `string("on")`, `none`.
    public var description: String {
        switch self {
        case .none: "none"
        case .int(let v): "int(\(v))"
        case .bool(let v): "bool(\(v))"
        case .float(let v): "float(\(v))"
        case .double(let v): "double(\(v))"
        case .string(let v): "string(\(String(reflecting: v)))"
        case .data(let v): "data(\(v.count) bytes)"
        case .date(let v): "date(\(v.timeIntervalSinceReferenceDate.isFinite ? "\(v)" : "\(v.timeIntervalSinceReferenceDate)"))"
        case .objectId(let v): "objectId(\(v.stringValue))"
        case .decimal(let v): "decimal(\(v))"
        case .uuid(let v): "uuid(\(v.uuidString))"
        }
    }

    /// The payload as a plain Swift value (`Int`, `String`, …); `nil` for ``none``. What
    /// key-value coding and the CLI show.
    public var anyValue: Any? {
        switch self {
        case .none: nil
        case .int(let v): v
        case .bool(let v): v
        case .float(let v): v
        case .double(let v): v
        case .string(let v): v
        case .data(let v): v
        case .date(let v): v
        case .objectId(let v): v
        case .decimal(let v): v
        case .uuid(let v): v
        }
    }

    /// Wraps a plain Swift value of a type a mixed value can hold (every integer width, `Bool`,
    /// `Float`, `Double`, `String`, `Data`, `Date`, ``ObjectId``, `Decimal`, `UUID`, or a
    /// `MixedValue`); `nil`, `NSNull` and `Optional.none` are ``none``. `nil` for other types.
    public init?(_ value: Any?) {
        guard let value = unwrapAny(value) else {
            self = .none
            return
        }
        switch value {
        case let v as MixedValue: self = v
        case let v as Bool: self = .bool(v)
        case let v as Int: self = .int(v)
        case let v as any BinaryInteger:
            guard let exact = Int(exactly: v) else { return nil }
            self = .int(exact)
        case let v as Float: self = .float(v)
        case let v as Double: self = .double(v)
        case let v as String: self = .string(v)
        case let v as Substring: self = .string(String(v))
        case let v as Data: self = .data(v)
        case let v as Date: self = .date(v)
        case let v as ObjectId: self = .objectId(v)
        case let v as Decimal: self = .decimal(v)
        case let v as UUID: self = .uuid(v)
        default: return nil
        }
    }
}
