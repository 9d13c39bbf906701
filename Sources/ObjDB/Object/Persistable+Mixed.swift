import Foundation

// `MixedValue` as a stored value: a tag byte and the payload in its type's own encoding
// (`Storage/Encoding/MixedFormat.swift`); `none` is a null column or element.

extension MixedFormat.Tag {
    /// The tag of a value's case.
    init(_ value: MixedValue) {
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
        case .object: self = .object
        case .list: self = .list
        case .dictionary: self = .dictionary
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
        let tag = MixedFormat.Tag(self)
        guard tag != .none else { return false }
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
        case .object(let v):
            // Writers add an unmanaged object first (`Database.prepareMixedObjects`).
            guard v._objdbDatabase != nil, let info = v._objdbInfo else {
                objdbFatal("A MixedValue.object(\(type(of: v))) was encoded before its object was added; this is a bug in ObjDB")
            }
            MixedFormat.appendLink(classID: info.classID, key: v._objdbKey, to: &bytes)
        case .list(let v):
            v.map(Self.storedElement).appendEncoded(to: &bytes)
        case .dictionary(let v):
            let entries = v.map { (key: Array($0.key.utf8), value: $0.value) }.sorted { $0.key.lexicographicallyPrecedes($1.key) }
            MapFormat.appendMap(keys: entries.map { StoredElement(bytes: $0.key) }, values: entries.map { Self.storedElement($0.value) }, to: &bytes)
        }
        return true
    }

    /// A nested value as a stored element: its encoding, or null for ``none``.
    private static func storedElement(_ value: MixedValue) -> StoredElement {
        var bytes = _ObjDBBytes()
        return value._objdbEncode(into: &bytes) ? StoredElement(bytes: bytes.buffer.bytes) : .null
    }

    /// ``none`` for a null column; `nil` for an unknown tag or a payload that does not fit it.
    /// Without a database, a link reads as ``none``: see ``decode(_:link:)``.
    @_spi(Implementation) public static func _objdbDecode(_ bytes: UnsafeRawBufferPointer?) -> MixedValue? {
        decode(bytes) { _, _ in nil }
    }

    /// Decodes stored bytes, with `link` giving the object of a link (class id, object key):
    /// ``none`` for a link it cannot resolve. `nil` for an unknown tag or a payload that does not
    /// fit it, at any depth, and for collections nested deeper than ``MixedFormat/maxDepth``.
    static func decode(_ bytes: UnsafeRawBufferPointer?, depth: Int = 0, link: (UInt32, UInt64) -> Object?) -> MixedValue? {
        guard let bytes else { return MixedValue.none }
        guard let (tag, payload) = MixedFormat.split(bytes) else { return nil }
        if tag == .list || tag == .dictionary, depth >= MixedFormat.maxDepth { return nil }
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
        case .object:
            guard let (classID, key) = MixedFormat.link(payload) else { return nil }
            return link(classID, key).map(MixedValue.object) ?? MixedValue.none
        case .list:
            guard let count = SequenceView.wellFormedCount(payload) else { return nil }
            let view = SequenceView(payload)
            var list: [MixedValue] = []
            list.reserveCapacity(count)
            for i in 0..<count {
                guard let element = decode(view.element(i), depth: depth + 1, link: link) else { return nil }
                list.append(element)
            }
            return .list(list)
        case .dictionary:
            guard case .success(let map) = MapView.checked(payload) else { return nil }
            var dictionary: [String: MixedValue] = [:]
            dictionary.reserveCapacity(map.count)
            for i in 0..<map.count {
                guard case .value(let keyBytes) = map.keys.element(i), let key = String._objdbDecode(keyBytes),
                    let value = decode(map.values.element(i), depth: depth + 1, link: link)
                else { return nil }
                dictionary[key] = value
            }
            return .dictionary(dictionary)
        }
    }

    /// Decodes a nested element: null is ``none``.
    static func decode(_ read: ColumnRead, depth: Int = 0, link: (UInt32, UInt64) -> Object?) -> MixedValue? {
        switch read {
        case .value(let bytes): decode(bytes, depth: depth, link: link)
        case .null: MixedValue.none
        case .absent: nil
        }
    }

    /// Reads column `column` of a managed object, its links as objects of the object's database
    /// (frozen when it is frozen).
    @_spi(Implementation) public static func _objdbGet(_ object: ObjectBase, _ column: Int) -> MixedValue {
        switch object._objdbRead(column) {
        case .value(let bytes):
            let database = object._objdbDatabase
            if let value = decode(bytes, link: { database?.mixedTarget(classID: $0, key: $1) }) { return value }
            object._objdbReportUndecodable(column, as: Self.self)
        case .null:
            return MixedValue.none
        case .absent:
            break
        }
        return object._objdbFallback(column, as: Self.self)
    }

    /// Writes column `column` of a managed object, adding the unmanaged objects the value links to
    /// first.
    @_spi(Implementation) public static func _objdbSet(_ object: ObjectBase, _ column: Int, _ value: MixedValue) {
        if let database = object._objdbDatabase, !value.heldObjects.isEmpty {
            guard let context = database.writeContext else {
                let info = object._objdbInfo
                database.cannotWrite("\(info?.name ?? "\(type(of: object))").\(info?.stored.properties[column].name ?? "\(column)")")
            }
            guard context.transaction.acceptsWrites,
                database.dooming(context, { try database.prepareMixedObjects(value, context) }) != nil
            else { return }
        }
        object._objdbWrite(column) { value._objdbEncode(into: &$0) }
    }

    /// The value's encoding, and the objects it links to; null while one of them is unmanaged
    /// (the collection adds it and encodes the value again).
    @_spi(Implementation) public static func _objdbWriteElement(_ value: MixedValue, to writer: inout _ObjDBElementWriter) {
        let objects = value.heldObjects
        writer.encode(objects.allSatisfy { $0._objdbDatabase != nil } ? value : MixedValue.none)
        writer.mixedObjects = objects
    }

    /// Decodes a stored element, its links as objects of the collection's database.
    @_spi(Implementation) public static func _objdbReadElement(_ reader: _ObjDBElementReader) -> MixedValue? {
        let database = reader.database
        return decode(reader.read) { database?.mixedTarget(classID: $0, key: $1) }
    }

    /// A `MixedValue`, or a plain value of a type it can hold (see ``MixedValue/init(_:)``).
    @_spi(Implementation) public static func _objdbConvert(_ value: Any) -> MixedValue? { MixedValue(value) }

    /// The value itself, so that dynamic access keeps its case (`.float(1)` stays a float);
    /// `nil` for ``none``.
    @_spi(Implementation) public var _objdbAnyValue: Any? { self == .none ? nil : self }
}
