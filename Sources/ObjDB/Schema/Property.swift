/// The description of one persisted property of a class.
///
/// ```swift
/// let age = Person().objectSchema["age"]!
/// age.type        // .int
/// age.isOptional  // true
/// ```
public struct Property: Sendable, Hashable, CustomStringConvertible {
    /// The property name, as declared in Swift.
    public let name: String
    /// The stored type.
    public let type: PropertyType
    /// Whether the property accepts `nil`.
    public let isOptional: Bool
    /// Whether this is the class's primary key.
    public let isPrimaryKey: Bool
    /// Whether the property has an index (primary keys are always looked up through their own table).
    public let isIndexed: Bool
    /// For `.int`, the width of the Swift integer type (8, 16, 32 or 64); 0 otherwise.
    public let bitWidth: Int
    /// For `.object` and `.linkingObjects`: the class linked to (for linking objects, the class
    /// whose objects link here).
    public let objectClassName: String?
    /// For `.linkingObjects`: the link property of ``objectClassName`` that links here.
    public let linkOriginPropertyName: String?
    /// The collection the property holds (`nil` for a single value or a to-one link). For a
    /// collection, ``type`` and ``isOptional`` describe its elements (a map's values).
    public let collection: CollectionKind?
    /// For links: what deleting the object holding the link does to the linked objects.
    public let deleteRule: DeleteRule
    /// Whether the database assigns this integer primary key when an object is added with 0
    /// (`@Persisted(primaryKey: true, autoIncrement: true)`).
    public let isAutoIncrement: Bool
    /// For a `Date` the database maintains (`@Persisted(.createdAt)`, `@Persisted(.modifiedAt)`),
    /// which date it holds; `nil` otherwise.
    public let timestamp: PersistedTimestamp?
    /// Whether no two objects may hold the same non-nil value (`@Persisted(unique: true)`).
    public let isUnique: Bool
    /// Whether the property has a full-text index (`@Persisted(fullTextIndexed: true)`), which
    /// `TEXT` predicates and ``Results/search(_:in:)`` read.
    public let isFullTextIndexed: Bool

    /// Creates a property description.
    public init(
        name: String, type: PropertyType, isOptional: Bool = false, isPrimaryKey: Bool = false,
        isIndexed: Bool = false, bitWidth: Int? = nil, objectClassName: String? = nil,
        linkOriginPropertyName: String? = nil, collection: CollectionKind? = nil, deleteRule: DeleteRule = .nullify,
        isAutoIncrement: Bool = false, timestamp: PersistedTimestamp? = nil, isUnique: Bool = false,
        isFullTextIndexed: Bool = false
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.isPrimaryKey = isPrimaryKey
        self.isIndexed = isIndexed
        self.bitWidth = bitWidth ?? (type == .int ? 64 : 0)
        self.objectClassName = objectClassName
        self.linkOriginPropertyName = linkOriginPropertyName
        self.collection = collection
        self.deleteRule = deleteRule
        self.isAutoIncrement = isAutoIncrement
        self.timestamp = timestamp
        self.isUnique = isUnique
        self.isFullTextIndexed = isFullTextIndexed
    }

    /// The same description with an index.
    func indexed() -> Property {
        Property(
            name: name, type: type, isOptional: isOptional, isPrimaryKey: isPrimaryKey, isIndexed: true, bitWidth: bitWidth,
            objectClassName: objectClassName, linkOriginPropertyName: linkOriginPropertyName, collection: collection,
            deleteRule: deleteRule, isAutoIncrement: isAutoIncrement, timestamp: timestamp, isUnique: isUnique,
            isFullTextIndexed: isFullTextIndexed)
    }

    /// Whether the property is a ``List``.
    public var isArray: Bool { collection == .list }
    /// Whether the property is a ``MutableSet``.
    public var isSet: Bool { collection == .set }
    /// Whether the property is a ``Map``.
    public var isMap: Bool { collection == .map }
    /// Whether the property links to objects (a to-one link, or a collection of objects).
    public var isLink: Bool { type == .object }
    /// Whether the property is computed rather than stored (``LinkingObjects``).
    public var isComputed: Bool { type == .linkingObjects }

    /// The Swift spelling of the type, such as `Int8?`, `List<String>` or `Map<String, Dog?>`.
    public var typeName: String {
        if type == .linkingObjects { return "LinkingObjects<\(objectClassName ?? "?")>" }
        var base = type == .int && bitWidth != 64 ? "Int\(bitWidth)" : type.description
        if type == .object { base = objectClassName ?? "Object" }
        let element = isOptional ? base + "?" : base
        switch collection {
        case .list: return "List<\(element)>"
        case .set: return "MutableSet<\(element)>"
        case .map: return "Map<String, \(element)>"
        case nil: return element
        }
    }

    /// `name: Type` followed by `(primary key)`, `(auto-increment)`, `(unique)`, `(indexed)`,
    /// `(full-text indexed)`, `(createdAt)`, `(modifiedAt)`, `(cascade)` or `(origin: property)`.
    public var description: String {
        var text = "\(name): \(typeName)"
        if isPrimaryKey {
            text += " (primary key)"
            if isAutoIncrement { text += " (auto-increment)" }
        } else if isUnique {
            text += " (unique)"
        } else if isIndexed {
            text += " (indexed)"
        }
        if isFullTextIndexed { text += " (full-text indexed)" }
        if let timestamp { text += " (\(timestamp.rawValue))" }
        if deleteRule == .cascade { text += " (cascade)" }
        if let origin = linkOriginPropertyName { text += " (origin: \(origin))" }
        return text
    }

    /// Whether two descriptions store the same data, ignoring indexes, delete rules and the
    /// origin of linking objects (metadata that ObjDB updates at open without a migration).
    func storesSameData(as other: Property) -> Bool {
        name == other.name && type == other.type && isOptional == other.isOptional
            && isPrimaryKey == other.isPrimaryKey && bitWidth == other.bitWidth
            && objectClassName == other.objectClassName && collection == other.collection
    }
}
