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
/// A mixed value can also link to an object of any class (``object(_:)``) or hold a list or a
/// dictionary of mixed values (``list(_:)``, ``dictionary(_:)``), nested as deep as needed:
///
/// ```swift
/// setting.value = .object(otherSetting)                  // a link; nil again once it is deleted
/// setting.value = .list([.int(1), .string("a")])
/// setting.value = .dictionary(["k": .bool(true), "tags": .list([.string("x")])])
/// ```
///
/// Queries compare numbers across types (`value == 1` matches `.int(1)`, `.float(1)`,
/// `.double(1)` and `.decimal(1)`), as Realm does; values of other types never equal each other
/// (a string is not data of the same bytes). Equality of two `MixedValue`s in Swift is by case and
/// payload (`.int(1) != .double(1)`), as `AnyRealmValue`'s; two objects are equal when they are
/// the same stored object (or the same unmanaged instance).
///
/// `MixedValue` is not `Sendable`, as ``Object`` is not: the ``object(_:)`` case holds one. A
/// value read from a frozen object holds a frozen object.
public enum MixedValue: Hashable, CustomStringConvertible {
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
    /// A link to an object of any class. Setting it on a managed object adds an unmanaged object
    /// first; an embedded object cannot be linked from a mixed value. When the object is deleted,
    /// the value becomes ``none`` (in a list or a map, that element becomes ``none``; a set
    /// loses it).
    case object(Object)
    /// A list of mixed values, stored inside the value. Assign a new list to change it.
    case list([MixedValue])
    /// A dictionary of mixed values under string keys, stored inside the value.
    case dictionary([String: MixedValue])

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
    /// The list held, or `nil` for another case.
    public var listValue: [MixedValue]? { if case .list(let v) = self { v } else { nil } }
    /// The dictionary held, or `nil` for another case.
    public var dictionaryValue: [String: MixedValue]? { if case .dictionary(let v) = self { v } else { nil } }
    /// The object held if it is a `T`, or `nil`: `value.object(Dog.self)`.
    public func object<T: Object>(_ type: T.Type) -> T? { if case .object(let v) = self { v as? T } else { nil } }
    /// The object held, as a ``DynamicObject`` when its class has no model class in this process
    /// (or is one), or `nil` for another case.
    public var dynamicObject: DynamicObject? { if case .object(let v) = self { v as? DynamicObject } else { nil } }
    /// Whether the value is ``none``.
    public var isNone: Bool { if case .none = self { true } else { false } }

    /// A list value: Realm's `AnyRealmValue.fromArray(_:)`.
    public static func fromArray(_ array: [MixedValue]) -> MixedValue { .list(array) }
    /// A dictionary value: Realm's `AnyRealmValue.fromDictionary(_:)`.
    public static func fromDictionary(_ dictionary: [String: MixedValue]) -> MixedValue { .dictionary(dictionary) }

    /// Equal when of the same case with equal payloads; objects when they are the same stored
    /// object, or the same unmanaged instance.
    public static func == (lhs: MixedValue, rhs: MixedValue) -> Bool {
        switch (lhs, rhs) {
        case (.none, .none): true
        case (.int(let a), .int(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.float(let a), .float(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.data(let a), .data(let b)): a == b
        case (.date(let a), .date(let b)): a == b
        case (.objectId(let a), .objectId(let b)): a == b
        case (.decimal(let a), .decimal(let b)): a == b
        case (.uuid(let a), .uuid(let b)): a == b
        case (.object(let a), .object(let b)): a === b || ObjectIdentity(a) == ObjectIdentity(b)
        case (.list(let a), .list(let b)): a == b
        case (.dictionary(let a), .dictionary(let b)): a == b
        default: false
        }
    }

    /// Hashes the case and the payload (an object by its identity).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(MixedFormat.Tag(self).rawValue)
        switch self {
        case .none: break
        case .int(let v): hasher.combine(v)
        case .bool(let v): hasher.combine(v)
        case .float(let v): hasher.combine(v)
        case .double(let v): hasher.combine(v)
        case .string(let v): hasher.combine(v)
        case .data(let v): hasher.combine(v)
        case .date(let v): hasher.combine(v)
        case .objectId(let v): hasher.combine(v)
        case .decimal(let v): hasher.combine(v)
        case .uuid(let v): hasher.combine(v)
        case .object(let v): hasher.combine(ObjectIdentity(v))
        case .list(let v): hasher.combine(v)
        case .dictionary(let v): hasher.combine(v)
        }
    }

    /// The name of the case as a query's `@type` reads it: `"null"`, `"int"`, `"bool"`,
    /// `"float"`, `"double"`, `"string"`, `"binary"`, `"date"`, `"objectId"`, `"decimal"`,
    /// `"uuid"`, `"object"`, `"list"` or `"dictionary"`.
    public var typeName: String { MixedFormat.Tag(self).typeName }

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
        case .object(let v): "object(\(v._objdbInfo?.name ?? String(describing: type(of: v))))"
        case .list(let v): "list([\(v.map(\.description).joined(separator: ", "))])"
        case .dictionary(let v):
            "dictionary([\(v.sorted { $0.key < $1.key }.map { "\(String(reflecting: $0.key)): \($0.value)" }.joined(separator: ", "))])"
        }
    }

    /// The payload as a plain Swift value (`Int`, `String`, an ``Object``, `[Any?]` for a list,
    /// `[String: Any?]` for a dictionary); `nil` for ``none``.
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
        case .object(let v): v
        case .list(let v): v.map(\.anyValue)
        case .dictionary(let v): v.mapValues(\.anyValue)
        }
    }

    /// Wraps a plain Swift value of a type a mixed value can hold (every integer width, `Bool`,
    /// `Float`, `Double`, `String`, `Data`, `Date`, ``ObjectId``, `Decimal`, `UUID`, an
    /// ``Object``, an array or a `[String: …]` dictionary of those, or a `MixedValue`); `nil`,
    /// `NSNull` and `Optional.none` are ``none``. `nil` for other types, and for an array or a
    /// dictionary holding one.
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
        case let v as Object: self = .object(v)
        case let v as [MixedValue]: self = .list(v)
        case let v as [String: MixedValue]: self = .dictionary(v)
        case let v as [Any]:
            var list: [MixedValue] = []
            list.reserveCapacity(v.count)
            for element in v {
                guard let mixed = MixedValue(element) else { return nil }
                list.append(mixed)
            }
            self = .list(list)
        case let v as [String: Any]:
            var dictionary: [String: MixedValue] = [:]
            for (key, element) in v {
                guard let mixed = MixedValue(element) else { return nil }
                dictionary[key] = mixed
            }
            self = .dictionary(dictionary)
        default: return nil
        }
    }
}
