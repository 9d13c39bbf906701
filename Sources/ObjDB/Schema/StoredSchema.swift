import Foundation

/// The schema as stored in the `meta` table under `schema`, as JSON (see `Docs/FileFormat.md`).
///
/// Classes and properties carry stable numeric ids: table names are built from them, so renames
/// touch only this record. A class's `properties` are in row-column order.
struct StoredSchema: Codable, Equatable, Sendable {
    /// The classes, in the order they were added.
    var classes: [StoredClass] = []
    /// The id the next new class gets.
    var nextClassID: UInt32 = 1

    /// The class with that name.
    func storedClass(named name: String) -> StoredClass? { classes.first { $0.name == name } }

    /// The public description of every stored class.
    var schema: Schema { Schema(objectSchema: classes.map(\.objectSchema)) }

    /// Adds a class for `schema`, assigning ids; returns the stored class.
    mutating func addClass(_ schema: ObjectSchema) -> StoredClass {
        var stored = StoredClass(id: nextClassID, name: schema.className, nextPropertyID: 1, properties: [])
        stored.embedded = schema.isEmbedded ? true : nil
        nextClassID += 1
        for property in schema.properties where !property.isComputed { stored.addProperty(property) }
        stored.setComputed(schema.properties.filter(\.isComputed))
        stored.uniqueKeys = schema.uniqueKeys.isEmpty ? nil : schema.uniqueKeys
        classes.append(stored)
        return stored
    }

    /// Replaces the stored class with the same id.
    mutating func replace(_ stored: StoredClass) {
        if let i = classes.firstIndex(where: { $0.id == stored.id }) { classes[i] = stored }
    }

    /// JSON with sorted keys, so identical schemas give identical bytes.
    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }

    /// Decodes and validates a stored schema.
    static func decode(_ bytes: UnsafeRawBufferPointer, path: String?) throws -> StoredSchema {
        let stored: StoredSchema
        do {
            stored = try JSONDecoder().decode(StoredSchema.self, from: Data(bytes))
        } catch {
            throw ObjDBError(
                .invalidSchema, "The schema stored in the file cannot be read: \(Self.explain(error))", path: path)
        }
        var names = Set<String>()
        var ids = Set<UInt32>()
        for stored in stored.classes {
            guard names.insert(stored.name).inserted, ids.insert(stored.id).inserted else {
                throw ObjDBError(.invalidSchema, "The stored schema lists class '\(stored.name)' (id \(stored.id)) twice", className: stored.name, path: path)
            }
            let propertyIDs = stored.properties.map(\.id)
            guard Set(propertyIDs).count == propertyIDs.count, (propertyIDs.max() ?? 0) < stored.nextPropertyID else {
                throw ObjDBError(.invalidSchema, "The stored schema of class '\(stored.name)' has inconsistent property ids", className: stored.name, path: path)
            }
            try SchemaValidation.validate(stored.objectSchema)
        }
        try SchemaValidation.validateLinks(stored.classes.map(\.objectSchema))
        if let top = ids.max(), top >= stored.nextClassID {
            throw ObjDBError(.invalidSchema, "The stored schema's next class id \(stored.nextClassID) is not above the ids in use", path: path)
        }
        return stored
    }

    private static func explain(_ error: Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context), DecodingError.typeMismatch(_, let context),
            DecodingError.valueNotFound(_, let context), DecodingError.keyNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }
}

/// One class in the stored schema.
struct StoredClass: Codable, Equatable, Sendable {
    /// Stable class id; its tables are named after it.
    var id: UInt32
    /// The class name.
    var name: String
    /// The id the next new property gets.
    var nextPropertyID: UInt32
    /// The properties, in row-column order.
    var properties: [StoredProperty]
    /// `true` for an embedded class; absent otherwise.
    var embedded: Bool?
    /// The computed properties (``LinkingObjects``), which have no column; absent when none.
    var computed: [StoredProperty]?
    /// The compound unique keys, by property name; absent when none.
    var uniqueKeys: [[String]]?

    init(id: UInt32, name: String, nextPropertyID: UInt32, properties: [StoredProperty]) {
        self.id = id
        self.name = name
        self.nextPropertyID = nextPropertyID
        self.properties = properties
    }

    /// Whether the class is embedded.
    var isEmbedded: Bool { embedded ?? false }

    /// The public description: stored properties in column order, then computed ones.
    var objectSchema: ObjectSchema {
        ObjectSchema(
            className: name, properties: properties.map(\.property) + (computed ?? []).map(\.property),
            isEmbedded: isEmbedded, uniqueKeys: uniqueKeys ?? [])
    }

    /// Replaces the computed properties (they carry no data, so they need no stable ids).
    mutating func setComputed(_ list: [Property]) {
        computed = list.isEmpty ? nil : list.map { StoredProperty(id: 0, $0) }
    }

    /// Appends a property as a new last column.
    mutating func addProperty(_ property: Property) {
        properties.append(StoredProperty(id: nextPropertyID, property))
        nextPropertyID += 1
    }

    /// Column of the property with that name.
    func column(of name: String) -> Int? { properties.firstIndex { $0.name == name } }
}

/// One property in the stored schema.
struct StoredProperty: Codable, Equatable, Sendable {
    /// Stable property id; index tables are named after it.
    var id: UInt32
    /// The property name.
    var name: String
    /// The stored type (`"int"`, `"string"`, …).
    var type: PropertyType
    /// Integer width in bits, for `int`.
    var bits: Int?
    /// Whether `nil` is allowed.
    var optional: Bool
    /// Whether this is the primary key.
    var primaryKey: Bool
    /// Whether an index table exists.
    var indexed: Bool
    /// For links and linking objects: the class linked to (or linking here).
    var objectClass: String?
    /// For collections: `list`, `set` or `map`.
    var collection: CollectionKind?
    /// For links: `cascade`; absent means `nullify`.
    var deleteRule: DeleteRule?
    /// For linking objects: the origin link property.
    var origin: String?
    /// `true` for an auto-increment primary key; absent otherwise.
    var autoIncrement: Bool?
    /// For a maintained date: `createdAt` or `modifiedAt`; absent otherwise.
    var timestamp: PersistedTimestamp?
    /// `true` for a unique property (its index refuses a second object with the same value);
    /// absent otherwise.
    var unique: Bool?
    /// For a property with a full-text index (its postings table exists): the version of the
    /// tokenizer that filled it (``FullTextTokenizer/version``); absent otherwise.
    var fullText: Int?
    /// For a property with a full-text index: the folding digest of the process that filled it
    /// (``FullTextTokenizer/foldingDigest``); absent otherwise.
    var fullTextFolding: UInt32?
    /// For a mixed property whose links are tracked (its mixed-links table exists, so it may hold
    /// links and nested collections): ``StoredProperty/mixedLinksVersion``; absent otherwise.
    var mixedLinks: Int?

    /// The value of ``mixedLinks`` for a mixed property this build maintains.
    static let mixedLinksVersion = 1

    init(id: UInt32, _ property: Property) {
        self.id = id
        name = property.name
        type = property.type
        bits = property.type == .int ? property.bitWidth : nil
        optional = property.isOptional
        primaryKey = property.isPrimaryKey
        indexed = property.isIndexed
        objectClass = property.objectClassName
        collection = property.collection
        deleteRule = property.deleteRule == .nullify ? nil : property.deleteRule
        origin = property.linkOriginPropertyName
        autoIncrement = property.isAutoIncrement ? true : nil
        timestamp = property.timestamp
        unique = property.isUnique ? true : nil
        fullText = property.isFullTextIndexed ? FullTextTokenizer.version : nil
        fullTextFolding = property.isFullTextIndexed ? FullTextTokenizer.foldingDigest : nil
        mixedLinks = property.type == .mixed ? Self.mixedLinksVersion : nil
    }

    /// Whether the property is mixed and has no mixed-links table yet (a file from before
    /// mixed values held links): the next writable open creates it.
    var lacksMixedLinks: Bool { type == .mixed && mixedLinks != Self.mixedLinksVersion }

    /// Whether the property's full-text index was filled by this process's tokenizer (its
    /// version and folding), so that it can be read and kept up to date.
    var fullTextIsCurrent: Bool {
        fullText == FullTextTokenizer.version && fullTextFolding == FullTextTokenizer.foldingDigest
    }

    /// The public description.
    var property: Property {
        Property(
            name: name, type: type, isOptional: optional, isPrimaryKey: primaryKey, isIndexed: indexed,
            bitWidth: type == .int ? (bits ?? 64) : 0, objectClassName: objectClass,
            linkOriginPropertyName: origin, collection: collection, deleteRule: deleteRule ?? .nullify,
            isAutoIncrement: autoIncrement ?? false, timestamp: timestamp, isUnique: unique ?? false,
            isFullTextIndexed: fullText != nil)
    }
}
