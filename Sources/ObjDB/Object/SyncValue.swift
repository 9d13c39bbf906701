import Foundation

/// One property value as sync carries it between a file, the sync service and PostgreSQL:
/// self-describing, so that it needs no model class to be read, and exact (a `Double` or a
/// `Date` keeps every bit, `NaN`, ±∞ and −0 included).
///
/// ```swift
/// let value: SyncValue = .map(["math": .double(4.5), "art": .null])
/// ```
///
/// Links are carried as the primary key of the target (``link(_:)``), embedded objects as their
/// property values (``object(_:)``), lists and sets as ``list(_:)``, maps as ``map(_:)``.
public enum SyncValue: Sendable, Hashable, CustomStringConvertible {
    /// `nil` of an optional property.
    case null
    /// A `Bool`.
    case bool(Bool)
    /// An integer of any width.
    case int(Int64)
    /// A `Float`.
    case float(Float)
    /// A `Double`.
    case double(Double)
    /// A `String`.
    case string(String)
    /// A `Data`.
    case data(Data)
    /// A `Date`.
    case date(Date)
    /// A `Decimal`.
    case decimal(Decimal)
    /// A `UUID`.
    case uuid(UUID)
    /// An ``ObjectId``.
    case objectId(ObjectId)
    /// A link, as the primary key of the object it links to.
    indirect case link(SyncValue)
    /// The elements of a list or a set, in order.
    case list([SyncValue])
    /// The entries of a map.
    case map([String: SyncValue])
    /// An embedded object, as its property values by name.
    case object([String: SyncValue])

    /// Equal when of the same case with the same value, floating-point values compared bit for
    /// bit (so `NaN` equals `NaN`, and `0` differs from `-0`) and strings byte for byte (so
    /// `"caf\u{E9}"` differs from `"cafe\u{301}"`, as two primary keys do in a file and in
    /// PostgreSQL, though Swift's `String` equates them).
    public static func == (lhs: SyncValue, rhs: SyncValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.int(a), .int(b)): a == b
        case let (.float(a), .float(b)): a.bitPattern == b.bitPattern
        case let (.double(a), .double(b)): a.bitPattern == b.bitPattern
        case let (.string(a), .string(b)): a.utf8.elementsEqual(b.utf8)
        case let (.data(a), .data(b)): a == b
        case let (.date(a), .date(b)): a.timeIntervalSinceReferenceDate.bitPattern == b.timeIntervalSinceReferenceDate.bitPattern
        case let (.decimal(a), .decimal(b)): (a.isNaN && b.isNaN) || (a == b && a.isSignMinus == b.isSignMinus)
        case let (.uuid(a), .uuid(b)): a == b
        case let (.objectId(a), .objectId(b)): a == b
        case let (.link(a), .link(b)): a == b
        case let (.list(a), .list(b)): a == b
        case let (.map(a), .map(b)): a == b
        case let (.object(a), .object(b)): a == b
        default: false
        }
    }

    /// Hashes consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let v): hasher.combine(1); hasher.combine(v)
        case .int(let v): hasher.combine(2); hasher.combine(v)
        case .float(let v): hasher.combine(3); hasher.combine(v.bitPattern)
        case .double(let v): hasher.combine(4); hasher.combine(v.bitPattern)
        case .string(let v):
            hasher.combine(5)
            var bytes = v
            bytes.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
            hasher.combine(v.utf8.count)
        case .data(let v): hasher.combine(6); hasher.combine(v)
        case .date(let v): hasher.combine(7); hasher.combine(v.timeIntervalSinceReferenceDate.bitPattern)
        case .decimal(let v):
            hasher.combine(8)
            if v.isNaN { hasher.combine(true) } else { hasher.combine(v) }
        case .uuid(let v): hasher.combine(9); hasher.combine(v)
        case .objectId(let v): hasher.combine(10); hasher.combine(v)
        case .link(let v): hasher.combine(11); hasher.combine(v)
        case .list(let v): hasher.combine(12); hasher.combine(v)
        case .map(let v): hasher.combine(13); hasher.combine(v)
        case .object(let v): hasher.combine(14); hasher.combine(v)
        }
    }

    /// The value as a short text, for messages and logs.
    public var description: String {
        switch self {
        case .null: "nil"
        case .bool(let v): "\(v)"
        case .int(let v): "\(v)"
        case .float(let v): "\(v)"
        case .double(let v): "\(v)"
        case .string(let v): "\"\(v)\""
        case .data(let v): "<\(v.count) bytes>"
        case .date(let v): "\(v)"
        case .decimal(let v): "\(v)"
        case .uuid(let v): v.uuidString
        case .objectId(let v): v.description
        case .link(let v): "→\(v)"
        case .list(let v): "[" + v.map(\.description).joined(separator: ", ") + "]"
        case .map(let v): "[" + v.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "]"
        case .object(let v): "{" + v.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        }
    }
}
