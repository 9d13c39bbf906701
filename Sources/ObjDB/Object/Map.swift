/// A property mapping `String` keys to values (`Map<String, Double>`) or to objects
/// (`Map<String, Dog?>`).
///
/// ```swift
/// try db.write {
///     ann.scores["math"] = 9.5
///     ann.scores.merge(["art": 7], uniquingKeysWith: { _, new in new })
///     ann.scores["math"] = nil            // removes the entry
/// }
/// ann.scores["art"]                       // 7.0
/// for (subject, score) in ann.scores { … }   // in key order
/// ```
///
/// Entries are ordered by the UTF-8 bytes of their keys, both managed and unmanaged. As with
/// `Dictionary`, assigning `nil` through the subscript removes the entry; for optional values,
/// assign `.some(nil)` to store `nil`. Deleting an object removes the entries that hold it.
///
/// - Complexity: lookups are O(log n); inserting and removing in a write transaction O(n).
public final class Map<Key: MapKeyType, Value: CollectionElementType>: RandomAccessCollection, CustomStringConvertible {
    /// One entry.
    public typealias Element = (key: Key, value: Value)

    /// Where the elements are.
    typealias Backing = CollectionBacking<[(key: Key, value: Value)]>

    @exclusivity(unchecked) var backing: Backing

    /// An empty, unmanaged map.
    public init() { backing = .unmanaged([]) }

    /// An unmanaged map with the entries of `dictionary`.
    public convenience init(_ dictionary: [Key: Value]) {
        self.init()
        merge(dictionary, uniquingKeysWith: { _, new in new })
    }

    init(home: CollectionHome) { backing = .managed(home) }

    /// Whether the map belongs to a stored object.
    public var isManaged: Bool { backing.isManaged }

    /// Whether the object holding the map was deleted.
    public var isInvalidated: Bool { backing.isInvalidated }

    /// The database of the object holding the map, if managed.
    public var database: Database? { backing.database }

    // MARK: Reading

    /// `0`.
    public var startIndex: Int { 0 }

    /// The number of entries.
    public var endIndex: Int { count }

    /// The number of entries. - Complexity: O(1).
    public var count: Int { backing.count }

    /// The entry at `position`, in key order.
    public subscript(position: Int) -> Element {
        switch backing {
        case .unmanaged(let entries):
            objdbPrecondition(entries.indices.contains(position), "Map index \(position) out of range 0..<\(entries.count)")
            return entries[position]
        case .managed(let home):
            let target = Value._objdbObjectType != nil ? home.target : nil
            if let pending = home.pending {
                objdbPrecondition(pending.elements.indices.contains(position), "Map index \(position) out of range of '\(home.propertyName)'")
                let key = pending.mapKeys[position].withUnsafeBytes { Key._objdbDecode($0) } ?? Key._objdbDefaultValue()
                return (key, pending.elements[position].withRead { home.decode($0, target: target, as: Value.self) })
            }
            let map = MapView(home.stored)
            objdbPrecondition(position >= 0 && position < map.count, "Map index \(position) out of range of '\(home.propertyName)'")
            let key: Key
            if case .value(let bytes) = map.keys.element(position), let decoded = Key._objdbDecode(bytes) {
                key = decoded
            } else {
                key = Key._objdbDefaultValue()
            }
            return (key, home.decode(map.values.element(position), target: target, as: Value.self))
        }
    }

    /// The value for `key`, or `nil`; assigning `nil` removes the entry.
    public subscript(key: Key) -> Value? {
        get {
            switch backing {
            case .unmanaged(let entries):
                let (index, found) = Self.search(entries, key)
                return found ? entries[index].value : nil
            case .managed(let home):
                let bytes = Self.keyBytes(key)
                let target = Value._objdbObjectType != nil ? home.target : nil
                if let pending = home.pending {
                    let (index, found) = pending.mapIndex(of: bytes)
                    return found ? pending.elements[index].withRead { home.decode($0, target: target, as: Value.self) } : nil
                }
                let map = MapView(home.stored)
                guard let index = bytes.withUnsafeBytes({ map.index(of: $0) }) else { return nil }
                return home.decode(map.values.element(index), target: target, as: Value.self)
            }
        }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    /// The keys, in order.
    public var keys: [Key] { map(\.key) }

    /// The values, in the order of their keys.
    public var values: [Value] { map(\.value) }

    /// `Map<String, Double>["a": 1.0]`, or `Map<String, Dog?>(3 entries)` for objects.
    public var description: String {
        if Value._objdbObjectType != nil { return "Map<\(Key.self), \(Value.self)>(\(count) entries)" }
        return "Map<\(Key.self), \(Value.self)>[" + map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "]"
    }

    // MARK: Changing

    /// Sets the value of `key`, returning the value it replaced. An unmanaged object is added to
    /// the database.
    @discardableResult
    public func updateValue(_ value: Value, forKey key: Key) -> Value? {
        let old = self[key]
        switch backing {
        case .unmanaged(var entries):
            let (index, found) = Self.search(entries, key)
            backing = .unmanaged([])
            if found { entries[index].value = value } else { entries.insert((key, value), at: index) }
            backing = .unmanaged(entries)
        case .managed(let home):
            guard let (context, pending) = home.pendingForWrite(), let stored = home.storedElement(value, context, pending) else { return old }
            let bytes = Self.keyBytes(key)
            let (index, found) = pending.mapIndex(of: bytes)
            if found {
                pending.elements[index] = stored
                pending.record(.set(at: index))
            } else {
                pending.mapKeys.insert(bytes, at: index)
                pending.elements.insert(stored, at: index)
                pending.record(.insert(at: index, count: 1))
            }
        }
        return old
    }

    /// Removes the entry of `key`, returning its value.
    @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        let old = self[key]
        switch backing {
        case .unmanaged(var entries):
            let (index, found) = Self.search(entries, key)
            guard found else { return nil }
            backing = .unmanaged([])
            entries.remove(at: index)
            backing = .unmanaged(entries)
        case .managed(let home):
            guard let (_, pending) = home.pendingForWrite() else { return old }
            let (index, found) = pending.mapIndex(of: Self.keyBytes(key))
            guard found else { return nil }
            pending.mapKeys.remove(at: index)
            pending.elements.remove(at: index)
            pending.record(.erase(at: index, count: 1))
        }
        return old
    }

    /// Removes every entry.
    public func removeAll() {
        switch backing {
        case .unmanaged:
            backing = .unmanaged([])
        case .managed(let home):
            guard let (_, pending) = home.pendingForWrite() else { return }
            if !pending.elements.isEmpty { pending.record(.erase(at: 0, count: pending.elements.count)) }
            pending.mapKeys.removeAll()
            pending.elements.removeAll()
        }
    }

    /// Adds the entries of `other`; for keys already present, `combine` picks the value.
    public func merge<S: Sequence>(_ other: S, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows
    where S.Element == (key: Key, value: Value) {
        for (key, value) in other {
            if let existing = self[key] {
                updateValue(try combine(existing, value), forKey: key)
            } else {
                updateValue(value, forKey: key)
            }
        }
    }

    /// Adds the entries of a dictionary; for keys already present, `combine` picks the value.
    public func merge(_ other: [Key: Value], uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows {
        try merge(other.map { (key: $0.key, value: $0.value) }, uniquingKeysWith: combine)
    }

    // MARK: Keys

    /// The UTF-8 bytes of a key.
    static func keyBytes(_ key: Key) -> [UInt8] {
        var bytes = _ObjDBBytes()
        _ = key._objdbEncode(into: &bytes)
        return bytes.array
    }

    /// Where `key` is (or would go) in entries sorted by key bytes.
    static func search(_ entries: [(key: Key, value: Value)], _ key: Key) -> (index: Int, found: Bool) {
        let wanted = keyBytes(key)
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            let order = keyBytes(entries[middle].key).withUnsafeBytes { a in wanted.withUnsafeBytes { b in compareBytes(a, b) } }
            if order == 0 { return (middle, true) }
            if order < 0 { low = middle + 1 } else { high = middle }
        }
        return (low, false)
    }

    var entriesArray: [(key: Key, value: Value)] { map { $0 } }
}

extension Map: PersistableType {
    /// The value's stored type.
    @_spi(Implementation) public static var _objdbPropertyType: PropertyType { Value._objdbPropertyType }
    /// Whether the values are optional.
    @_spi(Implementation) public static var _objdbIsOptional: Bool { Value._objdbIsOptional }
    /// The value's integer width.
    @_spi(Implementation) public static var _objdbBitWidth: Int { Value._objdbBitWidth }
    /// An empty map.
    @_spi(Implementation) public static func _objdbDefaultValue() -> Map<Key, Value> { Map() }

    /// The map encoding of the entries.
    @_spi(Implementation) public func _objdbEncode(into bytes: inout _ObjDBBytes) -> Bool { Self.encodeUnmanaged(self, into: &bytes) }

    /// Maps are not decoded from bytes alone.
    @_spi(Implementation) public static func _objdbDecode(_ bytes: UnsafeRawBufferPointer?) -> Map<Key, Value>? { nil }

    /// A map, or a `[String: Any]` dictionary of convertible values, as a new unmanaged map.
    @_spi(Implementation) public static func _objdbConvert(_ value: Any) -> Map<Key, Value>? {
        let entries: [(Key, Any?)]
        if let same = value as? Map<Key, Value> {
            entries = same.entriesArray.map { ($0.key, $0.value) }
        } else if let dictionary = value as? [Key: Any] {
            entries = dictionary.map { ($0.key, $0.value) }
        } else {
            return nil
        }
        let map = Map()
        for (key, item) in entries {
            guard let converted = convert(item, to: Value.self) else { return nil }
            map.updateValue(converted, forKey: key)
        }
        return map
    }

    /// The managed map of the property.
    @_spi(Implementation) public static func _objdbGet(_ object: ObjectBase, _ column: Int) -> Map<Key, Value> {
        if object._objdbDatabase == nil { object._objdbRecordProbe(column) }
        return Map(home: CollectionHome(parent: object, column: column))
    }

    /// Replaces the stored entries with those of `value`.
    @_spi(Implementation) public static func _objdbSet(_ object: ObjectBase, _ column: Int, _ value: Map<Key, Value>) {
        let target = Map(home: CollectionHome(parent: object, column: column))
        if case .managed(let home) = value.backing, case .managed(let targetHome) = target.backing, home.isSame(as: targetHome) { return }
        let entries = value.entriesArray
        target.removeAll()
        for (key, value) in entries { target.updateValue(value, forKey: key) }
    }

    /// Encodes an unmanaged map whose objects are all managed by now.
    static func encodeUnmanaged(_ map: Map<Key, Value>, into bytes: inout _ObjDBBytes) -> Bool {
        var writer = _ObjDBElementWriter()
        let entries = map.entriesArray
        let keys = entries.map { StoredElement(bytes: keyBytes($0.key)) }
        let values = entries.map { entry -> StoredElement in
            Value._objdbWriteElement(entry.value, to: &writer)
            if let object = writer.object { return object._objdbDatabase == nil ? .null : StoredElement(objectKey: object._objdbKey) }
            return writer.element
        }
        MapFormat.appendMap(keys: keys, values: values, to: &bytes)
        return true
    }
}

extension Map: RelationshipValue {
    static var collectionKind: CollectionKind? { .map }
    static var elementType: any PersistableType.Type { Value.self }

    static func heldObjects(at field: UnsafeRawPointer) -> [ObjectBase] {
        var writer = _ObjDBElementWriter()
        return field.assumingMemoryBound(to: Map<Key, Value>.self).pointee.entriesArray.flatMap { entry -> [ObjectBase] in
            Value._objdbWriteElement(entry.value, to: &writer)
            return writer.object.map { [$0] } ?? writer.mixedObjects
        }
    }

    static func encodeUnmanaged(at field: UnsafeRawPointer, into bytes: inout _ObjDBBytes) -> Bool {
        encodeUnmanaged(field.assumingMemoryBound(to: Map<Key, Value>.self).pointee, into: &bytes)
    }

    static func releaseUnmanaged(at field: UnsafeMutableRawPointer) {
        let value = field.assumingMemoryBound(to: Map<Key, Value>.self)
        // Objects, or mixed values, which may hold objects.
        guard Value._objdbObjectType != nil || Value.self == MixedValue.self, !value.pointee.isEmpty else { return }
        value.pointee = Map<Key, Value>()
    }
}

extension Map: _LinkValue where Value: _LinkValue {}
