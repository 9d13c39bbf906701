/// The objects that link to an object through one link property of another class: the inverse
/// of a to-one link or a collection of links, computed from the file's backlink table.
///
/// ```swift
/// final class Dog: Object {
///     @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
/// }
///
/// rex.owners.count          // the people whose `dogs` list holds rex
/// rex.owners.first?.name
/// ```
///
/// As in Realm, a linking object appears once per link, in object-key order: a person whose
/// `dogs` list holds rex twice appears twice in `rex.owners` (and `owners.@count` counts 2).
/// Reading costs O(log n + k) for k linking objects, whatever the number of objects of the
/// origin class, plus reading each origin's list when the link property is a list or map.
/// Linking objects are live and read-only; unmanaged objects have none.
public struct LinkingObjects<Origin: ObjectBase>: RandomAccessCollection, CustomStringConvertible {
    /// The link property of `Origin` that links here.
    public let propertyName: String
    /// The object linked to, when managed.
    let target: ObjectBase?
    private let cache = LinkingKeysCache()

    /// Linking objects of `type` through `propertyName`, as declared with
    /// `@Persisted(originProperty:)`.
    public init(fromType type: Origin.Type, property propertyName: String) {
        self.propertyName = propertyName
        target = nil
    }

    init(propertyName: String, target: ObjectBase) {
        self.propertyName = propertyName
        self.target = target
    }

    /// The keys of the linking objects in the target's current version, cached per generation.
    var keys: [UInt64] {
        guard let target, let database = target._objdbDatabase else { return [] }
        if let keys = cache.keys, cache.stamp == database.resultsStamp { return keys }
        // Collections changed in the write transaction update backlinks when written back.
        database.flushPendingWritesIfWriting()
        var keys: [UInt64] = []
        if let origin = originInfo(database), let column = origin.stored.column(of: propertyName),
            let txn = database.readableTxn(), target._objdbCurrentRow() != nil
        {
            do {
                keys = try origin.linkingKeys(to: target._objdbKey, through: column, txn: txn)
            } catch {
                database.reportReadFailure(error, while: "Reading the linking objects of '\(origin.name).\(propertyName)'")
            }
        }
        cache.keys = keys
        cache.stamp = database.resultsStamp
        return keys
    }

    private func originInfo(_ database: Database) -> ClassInfo? {
        // try?: an origin class the file does not have yet has no objects linking here.
        if let info = try? database.classInfo(for: Origin.self) { return info }
        return database.classInfo(named: database.className(of: Origin.self))
    }

    /// `0`.
    public var startIndex: Int { 0 }

    /// The number of linking objects.
    public var endIndex: Int { keys.count }

    /// The linking object at `position`.
    public subscript(position: Int) -> Origin {
        let keys = self.keys
        objdbPrecondition(keys.indices.contains(position), "LinkingObjects index \(position) out of range 0..<\(keys.count)")
        guard let database = target?._objdbDatabase, let origin = originInfo(database) else {
            objdbFatal("Internal error: LinkingObjects of an unmanaged object have elements (an ObjDB bug; please report it)")
        }
        return database.object(Origin.self, origin, key: keys[position])
            ?? database.danglingObject(Origin.self, className: origin.name, key: keys[position], "The backlinks of '\(origin.name).\(propertyName)'")
    }

    /// Whether the object holding these linking objects was deleted.
    public var isInvalidated: Bool { target?.isInvalidated ?? false }

    /// `LinkingObjects<Person>(2 objects)`.
    public var description: String { "LinkingObjects<\(Origin.className)>(\(count) objects)" }
}

/// Keys cached by a ``LinkingObjects`` for one version of the data (``Database/resultsStamp``).
final class LinkingKeysCache {
    var stamp: (UInt64, UInt64) = (0, 0)
    var keys: [UInt64]?
}

extension Persisted {
    /// Linking objects: `@Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>`.
    @inlinable
    public init<Origin>(originProperty: String) where Value == LinkingObjects<Origin> {
        self.init(wrappedValue: LinkingObjects(fromType: Origin.self, property: originProperty))
    }
}

extension LinkingObjects: PersistableType {
    /// `.linkingObjects`.
    @_spi(Implementation) public static var _objdbPropertyType: PropertyType { .linkingObjects }
    /// An unmanaged, empty value without an origin property.
    @_spi(Implementation) public static func _objdbDefaultValue() -> LinkingObjects<Origin> { LinkingObjects(fromType: Origin.self, property: "") }
    /// Linking objects have no column.
    @_spi(Implementation) public func _objdbEncode(into bytes: inout _ObjDBBytes) -> Bool { false }
    /// Linking objects have no column.
    @_spi(Implementation) public static func _objdbDecode(_ bytes: UnsafeRawBufferPointer?) -> LinkingObjects<Origin>? { nil }
    /// Linking objects cannot be assigned.
    @_spi(Implementation) public static func _objdbConvert(_ value: Any) -> LinkingObjects<Origin>? { value as? LinkingObjects<Origin> }

    /// The linking objects of a managed object (`column` numbers the class's computed properties
    /// after its stored columns).
    @_spi(Implementation) public static func _objdbGet(_ object: ObjectBase, _ column: Int) -> LinkingObjects<Origin> {
        if object._objdbDatabase == nil { object._objdbRecordProbe(column) }
        guard let info = object._objdbInfo, column >= info.columnCount, column - info.columnCount < info.computed.count,
            let origin = info.computed[column - info.columnCount].origin
        else { return _objdbDefaultValue() }
        return LinkingObjects(propertyName: origin, target: object)
    }

    /// Linking objects are read-only; assigning them is a programmer error.
    @_spi(Implementation) public static func _objdbSet(_ object: ObjectBase, _ column: Int, _ value: LinkingObjects<Origin>) {
        objdbFatal("LinkingObjects are computed from links and cannot be assigned")
    }
}

extension LinkingObjects: RelationshipValue {
    static var elementType: any PersistableType.Type { Origin.self }
    static var isLinkingObjects: Bool { true }

    static func originProperty(at field: UnsafeRawPointer) -> String? {
        field.assumingMemoryBound(to: LinkingObjects<Origin>.self).pointee.propertyName
    }

    static func heldObjects(at field: UnsafeRawPointer) -> [ObjectBase] { [] }

    static func encodeUnmanaged(at field: UnsafeRawPointer, into bytes: inout _ObjDBBytes) -> Bool {
        false
    }
}
