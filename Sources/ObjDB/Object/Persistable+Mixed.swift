import Foundation

// `MixedValue` as a stored value: a tag byte and the payload in its type's own encoding
// (`Storage/Encoding/MixedFormat.swift`); `none` is a null column or element.

extension MixedFormat.Tag {
    /// The tag of a value's case.
    init?(_ value: MixedValue) {
        switch value {
        case .none: self = .none
        case .int: self = .int
        case .bool: self = .bool
        case .float: self = .float
        case .double: self = .double
        case .string: self = .string
        case .data: self = .data
        case .date: self = .date
        case .objectId: self = .objectId
        case .decimal: self = .decimal
        case .uuid: self = .uuid
        }
    }
}

// Not a `NonOptionalPersistableType`: `MixedValue?` is not persistable, since `none` is the nil.
// Indexable: the index keys are the stored bytes; queries use the index for `==` and `IN` on
// values other than numbers (`QueryPlanner.mixedKeys`).
extension MixedValue: CollectionElementType, IndexableType {
    /// `.mixed`.
    @_spi(Implementation) public static var _objdbPropertyType: PropertyType { .mixed }
    /// Always `true`: a mixed property holds ``none`` as nil.
    @_spi(Implementation) public static var _objdbIsOptional: Bool { true }
    /// ``none``.
    @_spi(Implementation) public static func _objdbDefaultValue() -> MixedValue { .none }

    /// The tag, then the payload in its type's column encoding; nothing (a null column) for
    /// ``none``.
    @_spi(Implementation) public func _objdbEncode(into bytes: inout _ObjDBBytes) -> Bool {
        guard let tag = MixedFormat.Tag(self), tag != .none else { return false }
        bytes.append(tag.rawValue)
        switch self {
        case .none: return false
        case .int(let v): ColumnCodec.appendInteger(Int64(v), to: &bytes)
        case .bool(let v): _ = v._objdbEncode(into: &bytes)
        case .float(let v): _ = v._objdbEncode(into: &bytes)
        case .double(let v): _ = v._objdbEncode(into: &bytes)
        case .string(let v): _ = v._objdbEncode(into: &bytes)
        case .data(let v): _ = v._objdbEncode(into: &bytes)
        case .date(let v): _ = v._objdbEncode(into: &bytes)
        case .objectId(let v): _ = v._objdbEncode(into: &bytes)
        case .decimal(let v): _ = v._objdbEncode(into: &bytes)
        case .uuid(let v): _ = v._objdbEncode(into: &bytes)
        }
        return true
    }

    /// ``none`` for a null column; `nil` for an unknown tag or a payload that does not fit it.
    @_spi(Implementation) public static func _objdbDecode(_ bytes: UnsafeRawBufferPointer?) -> MixedValue? {
        guard let bytes else { return MixedValue.none }
        guard let (tag, payload) = MixedFormat.split(bytes) else { return nil }
        switch tag {
        case .none: return MixedValue.none
        case .int: return ColumnCodec.integer(payload).flatMap { Int(exactly: $0) }.map(MixedValue.int)
        case .bool: return Bool._objdbDecode(payload).map(MixedValue.bool)
        case .float: return Float._objdbDecode(payload).map(MixedValue.float)
        case .double: return Double._objdbDecode(payload).map(MixedValue.double)
        case .string: return String._objdbDecode(payload).map(MixedValue.string)
        case .data: return Data._objdbDecode(payload).map(MixedValue.data)
        case .date: return Date._objdbDecode(payload).map(MixedValue.date)
        case .objectId: return ObjectId._objdbDecode(payload).map(MixedValue.objectId)
        case .decimal: return Decimal._objdbDecode(payload).map(MixedValue.decimal)
        case .uuid: return UUID._objdbDecode(payload).map(MixedValue.uuid)
        }
    }

    /// A `MixedValue`, or a plain value of a type it can hold (see ``MixedValue/init(_:)``).
    @_spi(Implementation) public static func _objdbConvert(_ value: Any) -> MixedValue? { MixedValue(value) }

    /// The value itself, so that dynamic access keeps its case (`.float(1)` stays a float);
    /// `nil` for ``none``.
    @_spi(Implementation) public var _objdbAnyValue: Any? { self == .none ? nil : self }
}
