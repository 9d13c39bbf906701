import Foundation

/// A value as the reference interpreter (``ReferenceInterpreter``) compares it: a plain Swift
/// value, decoded from stored bytes by the storage and object layers' decoders, or taken from a
/// constant of the bound predicate. Strings stay UTF-8 bytes: ObjDB compares strings by them.
enum ReferenceValue {
    /// nil: a nil value or link, or bytes that do not decode.
    case null
    /// An integer.
    case integer(Int64)
    /// A `Double`, or a `Float` widened to one.
    case double(Double)
    /// A `Decimal`.
    case decimal(Decimal)
    /// A `Bool`.
    case bool(Bool)
    /// A `Date`, as the seconds since 2001-01-01 UTC it is stored as.
    case date(Double)
    /// The UTF-8 of a string, or the bytes of `Data`, a UUID or an ObjectId.
    case bytes([UInt8])
    /// An object, by its key.
    case object(UInt64)

    /// The value a row or collection holds, stored as `type`; damaged bytes read as nil.
    init(_ read: ColumnRead, _ type: PropertyType) {
        guard case .value(let bytes) = read else {
            self = .null
            return
        }
        let decoded: ReferenceValue?
        switch type {
        case .int: decoded = ColumnCodec.integer(bytes).map { .integer($0) }
        case .double: decoded = ColumnCodec.double(bytes).map { .double($0) }
        case .float: decoded = ColumnCodec.float(bytes).map { .double(Double($0)) }
        case .bool: decoded = ColumnCodec.bool(bytes).map { .bool($0) }
        case .date: decoded = ColumnCodec.double(bytes).map { .date($0) }
        case .decimal: decoded = Decimal._objdbDecode(bytes).map { .decimal($0) }
        case .string, .data, .uuid, .objectId: decoded = .bytes(Array(bytes))
        case .object, .linkingObjects: decoded = bytes.count == 8 ? .object(bytes.loadUnaligned(as: UInt64.self)) : nil
        }
        self = decoded ?? .null
    }

    /// A constant of the bound predicate.
    init(_ constant: Comparand) {
        switch constant {
        case .null: self = .null
        case .int(let v): self = .integer(v)
        case .double(let v): self = .double(v)
        case .decimal(let v): self = .decimal(v)
        case .bool(let v): self = .bool(v)
        case .date(let v): self = .date(v)
        case .bytes(let v): self = .bytes(v)
        case .object(let v): self = .object(v)
        }
    }

    /// Whether the value is nil.
    var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Whether the value is a NaN (of a double, a date or a decimal).
    var isNaN: Bool {
        switch self {
        case .double(let v), .date(let v): return v.isNaN
        case .decimal(let v): return v.isNaN
        default: return false
        }
    }

    /// The value of a number as a `Double` (for arithmetic and averages); `nil` for anything else.
    var number: Double? {
        switch self {
        case .integer(let v): return Double(v)
        case .double(let v): return v
        case .decimal(let v): return NSDecimalNumber(decimal: v).doubleValue
        default: return nil
        }
    }
}
