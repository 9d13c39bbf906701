import Foundation

/// The byte format of a mixed value (`MixedValue`; see `Docs/FileFormat.md`, "Mixed values").
///
/// A mixed value is a tag byte naming its type, then the payload in that type's own column
/// encoding (a compact integer, the 8 bytes of a `Double`, UTF-8, …). `none` is a null column or
/// element and has no bytes. A link is the target's class id (4 bytes) and object key (8 bytes),
/// little-endian; a list is a sequence (``SequenceFormat``) of mixed values, a dictionary a map
/// (``MapFormat``) from strings to mixed values, so nesting is recursive. The tags are part of the
/// file format: never renumber them.
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
        case object = 11
        case list = 12
        case dictionary = 13

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
            case .object: "object"
            case .list: "list"
            case .dictionary: "dictionary"
            }
        }

        /// Whether the type is a number (`@type == 'numeric'`).
        var isNumeric: Bool { self == .int || self == .float || self == .double || self == .decimal }

        /// Realm's rank of the type in a mixed sort (realm-core's `Mixed::compare`): null, then
        /// bool, numbers, strings and data, dates, ObjectIds, UUIDs, links, lists, dictionaries.
        var sortRank: Int {
            switch self {
            case .none: -1
            case .bool: 0
            case .int, .float, .double, .decimal: 1
            case .string, .data: 2
            case .date: 3
            case .objectId: 4
            case .uuid: 5
            case .object: 6
            case .list: 7
            case .dictionary: 8
            }
        }
    }

    /// The bit of the type of a stored mixed value, which `value.@type` compares: `1 << tag`
    /// (`1` for null; damaged bytes count as null).
    static func typeBit(_ read: ColumnRead) -> Int64 {
        guard case .value(let bytes) = read, let (tag, payload) = split(bytes) else { return 1 }
        if (tag == .list || tag == .dictionary) && !isWellFormedCollection(tag, payload) { return 1 }
        return 1 << Int64(tag.rawValue)
    }

    /// Whether the payload of a list or dictionary is a well-formed sequence or map at its own
    /// level (its elements are checked where they are read). Queries look into a nested value
    /// only through this check, in the evaluator and the reference alike, so that damaged bytes
    /// read as nil the same way in both.
    static func isWellFormedCollection(_ tag: Tag, _ payload: UnsafeRawBufferPointer) -> Bool {
        switch tag {
        case .list: return SequenceView.wellFormedCount(payload) != nil
        case .dictionary: if case .success = MapView.checked(payload) { return true } else { return false }
        default: return false
        }
    }

    /// The bytes of a link to object `key` of class `classID`, without the tag.
    static func appendLink(classID: UInt32, key: UInt64, to bytes: inout _ObjDBBytes) {
        bytes.appendLittleEndian(UInt64(classID), count: 4)
        bytes.appendLittleEndian(key, count: 8)
    }

    /// The class id and object key of a link's payload; `nil` unless it is 12 bytes.
    static func link(_ payload: UnsafeRawBufferPointer) -> (classID: UInt32, key: UInt64)? {
        guard payload.count == 12 else { return nil }
        return (payload.loadUnaligned(as: UInt32.self).littleEndian, payload.loadUnaligned(fromByteOffset: 4, as: UInt64.self).littleEndian)
    }

    /// The key of a link in a mixed-links table: the target's class id (4 bytes) and object key
    /// (8 bytes), big-endian, so that one target's entries are adjacent.
    static func linkKey(classID: UInt32, key: UInt64) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 12)
        for i in 0..<4 { bytes[i] = UInt8(truncatingIfNeeded: classID >> UInt32(24 - 8 * i)) }
        for i in 0..<8 { bytes[4 + i] = UInt8(truncatingIfNeeded: key >> UInt64(56 - 8 * i)) }
        return bytes
    }

    /// How deep lists and dictionaries nest in a mixed value: a list holding a list is depth 2.
    /// Writes refuse deeper values, and reads take deeper bytes for damaged ones, so that no
    /// walk of a value recurses without bound.
    static let maxDepth = 100

    /// Calls `body` with the target of every link in the stored mixed value `bytes`, at any
    /// depth. Damaged bytes hold no links. `false` when collections nest deeper than
    /// ``maxDepth`` (the walk stops there).
    @discardableResult
    static func forEachLink(_ bytes: UnsafeRawBufferPointer, depth: Int = 0, _ body: (UInt32, UInt64) -> Void) -> Bool {
        guard let (tag, payload) = split(bytes) else { return true }
        switch tag {
        case .object:
            if let (classID, key) = link(payload) { body(classID, key) }
            return true
        case .list:
            return depth < maxDepth && forEachLink(in: SequenceView(payload), depth: depth + 1, body)
        case .dictionary:
            return depth < maxDepth && forEachLink(in: MapView(.value(payload)).values, depth: depth + 1, body)
        default:
            return true
        }
    }

    /// Calls `body` with the target of every link in the mixed elements of `view`; `false` when
    /// they nest too deep (see ``forEachLink(_:depth:_:)``).
    @discardableResult
    static func forEachLink(in view: SequenceView, depth: Int = 0, _ body: (UInt32, UInt64) -> Void) -> Bool {
        for i in 0..<view.count {
            if case .value(let element) = view.element(i), !forEachLink(element, depth: depth, body) { return false }
        }
        return true
    }

    /// What a mixed value becomes when the object a link names is deleted, as realm-core does:
    /// a link to it becomes `none` (`nil`: no bytes), a list and a set lose the elements linking
    /// to it, a dictionary keeps the key with `none`. Other values are returned unchanged.
    static func removingLink(to target: (classID: UInt32, key: UInt64), from bytes: UnsafeRawBufferPointer, depth: Int = 0) -> [UInt8]? {
        guard let (tag, payload) = split(bytes) else { return Array(bytes) }
        // Deeper than writes allow: damaged bytes, left as they are.
        if tag == .list || tag == .dictionary, depth >= maxDepth { return Array(bytes) }
        switch tag {
        case .object:
            if let found = link(payload), found == target { return nil }
            return Array(bytes)
        case .list:
            var result: [UInt8] = [tag.rawValue]
            removingLink(to: target, from: SequenceView(payload), dropping: true, depth: depth + 1).appendEncoded(to: &result)
            return result
        case .dictionary:
            let map = MapView(.value(payload))
            var result: [UInt8] = [tag.rawValue]
            MapFormat.appendMap(
                keys: [StoredElement](map.keys), values: removingLink(to: target, from: map.values, dropping: false, depth: depth + 1),
                to: &result)
            return result
        default:
            return Array(bytes)
        }
    }

    /// The mixed elements of `view` without links to `target`: elements that are such a link are
    /// dropped (`dropping`, for lists and sets) or become null (for dictionaries and maps).
    static func removingLink(
        to target: (classID: UInt32, key: UInt64), from view: SequenceView, dropping: Bool, depth: Int = 0
    ) -> [StoredElement] {
        var elements: [StoredElement] = []
        elements.reserveCapacity(view.count)
        for i in 0..<view.count {
            guard case .value(let element) = view.element(i) else {
                elements.append(.null)
                continue
            }
            if let kept = removingLink(to: target, from: element, depth: depth) {
                elements.append(StoredElement(bytes: kept))
            } else if !dropping {
                elements.append(.null)
            }
        }
        return elements
    }

    /// The identity of a stored mixed value as a member of a set: numbers by the real number they
    /// are (realm-core's `SetElementLessThan<Mixed>`: the integer 3, the float 3 and the double 3
    /// are one member; NaNs are one), every other value by its bytes. Never stored: only compared.
    static func setMember(_ element: StoredElement) -> StoredElement {
        element.withRead { read -> StoredElement in
            guard case .value(let bytes) = read, let (tag, payload) = split(bytes), tag.isNumeric else { return element }
            let number: Double
            switch tag {
            case .int:
                guard let v = ColumnCodec.integer(payload) else { return element }
                return integerMember(v)
            case .float:
                guard let v = Float._objdbDecode(payload) else { return element }
                number = Double(v)
            case .double:
                guard let v = Double._objdbDecode(payload) else { return element }
                number = v
            default:
                guard let v = Decimal._objdbDecode(payload) else { return element }
                if v.isNaN { return StoredElement(bytes: [0xF2]) }
                let double = NSDecimalNumber(decimal: v).doubleValue
                // A decimal no double equals keeps its own text.
                guard Decimal(double) == v else { return StoredElement(bytes: [0xF3] + Array(v.description.utf8)) }
                number = double
            }
            if number.isNaN { return StoredElement(bytes: [0xF2]) }
            if number == number.rounded(), number >= -9_223_372_036_854_775_808.0, number < 9_223_372_036_854_775_808.0 {
                return integerMember(Int64(number))
            }
            var member: [UInt8] = [0xF1]
            member.appendLittleEndian(number.bitPattern, count: 8)
            return StoredElement(bytes: member)
        }
    }

    /// The set identity of the whole number `value`.
    private static func integerMember(_ value: Int64) -> StoredElement {
        var bytes: [UInt8] = [0xF0]
        bytes.appendLittleEndian(UInt64(bitPattern: value), count: 8)
        return StoredElement(bytes: bytes)
    }

    /// Splits stored bytes into the tag and the payload; `nil` for an unknown tag or no bytes.
    @inline(__always)
    static func split(_ bytes: UnsafeRawBufferPointer) -> (Tag, UnsafeRawBufferPointer)? {
        guard let first = bytes.first, let tag = Tag(rawValue: first), tag != .none else { return nil }
        return (tag, UnsafeRawBufferPointer(rebasing: bytes.dropFirst()))
    }
}
