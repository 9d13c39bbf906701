/// The byte format of a mixed value (`MixedValue`; see `Docs/FileFormat.md`, "Mixed values").
///
/// A mixed value is a tag byte naming its type, then the payload in that type's own column
/// encoding (a compact integer, the 8 bytes of a `Double`, UTF-8, …). `none` is a null column or
/// element and has no bytes. The tags are part of the file format: never renumber them.
enum MixedFormat {
    /// The type of a mixed value, as its first byte.
    enum Tag: UInt8, CaseIterable, Sendable {
        /// `none` (never stored: a null column has no bytes).
        case none = 0
        case bool = 1
        case int = 2
        case float = 3
        case double = 4
        case decimal = 5
        case string = 6
        case data = 7
        case date = 8
        case objectId = 9
        case uuid = 10

        /// The name a query's `@type` compares with, as Realm spells it.
        var typeName: String {
            switch self {
            case .none: "null"
            case .bool: "bool"
            case .int: "int"
            case .float: "float"
            case .double: "double"
            case .decimal: "decimal"
            case .string: "string"
            case .data: "binary"
            case .date: "date"
            case .objectId: "objectId"
            case .uuid: "uuid"
            }
        }

        /// Whether the type is a number (`@type == 'numeric'`).
        var isNumeric: Bool { self == .int || self == .float || self == .double || self == .decimal }

        /// Realm's rank of the type in a mixed sort (realm-core's `Mixed::compare`): null, then
        /// bool, numbers, strings and data, dates, ObjectIds, UUIDs.
        var sortRank: Int {
            switch self {
            case .none: -1
            case .bool: 0
            case .int, .float, .double, .decimal: 1
            case .string, .data: 2
            case .date: 3
            case .objectId: 4
            case .uuid: 5
            }
        }
    }

    /// The bit of the type of a stored mixed value, which `value.@type` compares: `1 << tag`
    /// (`1` for null; damaged bytes count as null).
    static func typeBit(_ read: ColumnRead) -> Int64 {
        guard case .value(let bytes) = read, let (tag, _) = split(bytes) else { return 1 }
        return 1 << Int64(tag.rawValue)
    }

    /// Splits stored bytes into the tag and the payload; `nil` for an unknown tag or no bytes.
    @inline(__always)
    static func split(_ bytes: UnsafeRawBufferPointer) -> (Tag, UnsafeRawBufferPointer)? {
        guard let first = bytes.first, let tag = Tag(rawValue: first), tag != .none else { return nil }
        return (tag, UnsafeRawBufferPointer(rebasing: bytes.dropFirst()))
    }
}
