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
    /// A UUID, an ObjectId, data, a link or a nested collection held by a mixed value: equal
    /// and ordered only with its own type.
    case tagged(MixedFormat.Tag, [UInt8])

    /// The bytes of a string (`isData` false) or of data (`isData` true: a mixed value's data),
    /// which the string operators take; `nil` for other values.
    var textual: (isData: Bool, bytes: [UInt8])? {
        switch self {
        case .bytes(let bytes): (false, bytes)
        case .tagged(.data, let bytes): (true, bytes)
        default: nil
        }
    }

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
        case .mixed:
            // Links and nested collections compare by their bytes: a link decoded to check it, a
            // list or dictionary checked at its own level (its elements where they are read).
            if let (tag, payload) = MixedFormat.split(bytes), tag == .list || tag == .dictionary {
                decoded = MixedFormat.isWellFormedCollection(tag, payload) ? .tagged(tag, Array(payload)) : nil
            } else if let (tag, payload) = MixedFormat.split(bytes), tag == .object {
                decoded = MixedValue._objdbDecode(bytes) == nil ? nil : .tagged(tag, Array(payload))
            } else {
                decoded = MixedValue._objdbDecode(bytes).map(ReferenceValue.init(mixed:))
            }
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
        case .tagged(let tag, let v): self = .tagged(tag, v)
        }
    }

    /// The value a mixed value holds, decoded by `MixedValue`'s own decoder.
    init(mixed value: MixedValue) {
        switch value {
        case .none: self = .null
        case .int(let v): self = .integer(Int64(v))
        case .bool(let v): self = .bool(v)
        case .float(let v): self = .double(Double(v))
        case .double(let v): self = .double(v)
        case .decimal(let v): self = .decimal(v)
        case .date(let v): self = .date(v.timeIntervalSinceReferenceDate)
        case .string(let v): self = .bytes(Array(v.utf8))
        case .data(let v): self = .tagged(.data, Array(v))
        case .uuid(let v): self = .tagged(.uuid, withUnsafeBytes(of: v.uuid) { Array($0) })
        case .objectId(let v): self = .tagged(.objectId, v.bytes)
        // Read from their bytes (see `init(_:_:)`), never decoded into a case.
        case .object, .list, .dictionary: self = .null
        }
    }

    /// Realm's rank of the value's type in a sort of mixed values (null, bools, numbers, strings
    /// and data, dates, ObjectIds, UUIDs, objects); equal for all values of a typed property.
    var typeRank: Int {
        switch self {
        case .null: -1
        case .bool: 0
        case .integer, .double, .decimal: 1
        case .bytes: 2
        case .date: 3
        case .tagged(let tag, _): tag.sortRank
        case .object: 6
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
