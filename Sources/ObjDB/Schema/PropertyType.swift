/// The stored type of a property, without optionality.
///
/// Every integer width (`Int`, `Int8` … `Int64`) is `.int`; ``Property/bitWidth`` keeps the
/// width. A `PersistableEnum` is stored as its raw value's type.
public enum PropertyType: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// `Bool`.
    case bool
    /// Signed integers of any width.
    case int
    /// `Float`.
    case float
    /// `Double`.
    case double
    /// `String`.
    case string
    /// `Data`.
    case data
    /// `Date`.
    case date
    /// `UUID`.
    case uuid
    /// `Decimal`.
    case decimal
    /// ``ObjectId``.
    case objectId
    /// ``MixedValue``: a value of any of the other value types, chosen per object, or none.
    case mixed
    /// A link to an object of another class (``Property/objectClassName``): a to-one link, or
    /// the elements of a list, set or map of objects.
    case object
    /// The objects linking to this one through a link property of another class
    /// (``LinkingObjects``); computed, not stored.
    case linkingObjects

    /// The Swift name of the type, as in a model declaration.
    public var description: String {
        switch self {
        case .bool: "Bool"
        case .int: "Int"
        case .float: "Float"
        case .double: "Double"
        case .string: "String"
        case .data: "Data"
        case .date: "Date"
        case .uuid: "UUID"
        case .decimal: "Decimal"
        case .objectId: "ObjectId"
        case .mixed: "MixedValue"
        case .object: "Object"
        case .linkingObjects: "LinkingObjects"
        }
    }

    /// Whether a property of this type can be the primary key.
    public var canBePrimaryKey: Bool { self == .int || self == .string || self == .uuid || self == .objectId }

    /// Whether a property of this type can be indexed.
    public var canBeIndexed: Bool { canBePrimaryKey || self == .bool || self == .date || self == .mixed }

    /// How the storage layer reads such a column for key encoding.
    var scalarKind: ScalarKind {
        switch self {
        case .int: .integer
        case .bool: .bool
        case .double, .date: .double
        case .float: .float
        case .string, .data, .decimal, .mixed: .bytes
        case .uuid, .objectId, .object, .linkingObjects: .fixedBytes
        }
    }
}
