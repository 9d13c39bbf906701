/// The description of one model class: its name and persisted properties.
///
/// ```swift
/// let schema = db.schema["Person"]!
/// schema.primaryKeyProperty?.name   // "id"
/// schema.properties.map(\.name)     // ["id", "name", "age"]
/// ```
public struct ObjectSchema: Sendable, Hashable, CustomStringConvertible {
    /// The class name (``Object/className`` of the model).
    public let className: String
    /// The persisted properties. For a schema read from a file, stored properties in column
    /// order, then the computed ones (``LinkingObjects``).
    public let properties: [Property]
    /// Whether the class is an ``EmbeddedObject``: its objects are owned by one parent each and
    /// cannot be queried on their own.
    public let isEmbedded: Bool
    /// The compound unique keys (``ObjectBase/uniqueKeys``): groups of property names whose
    /// values together are unique.
    public let uniqueKeys: [[String]]

    /// Creates a description.
    public init(className: String, properties: [Property], isEmbedded: Bool = false, uniqueKeys: [[String]] = []) {
        self.className = className
        self.properties = properties
        self.isEmbedded = isEmbedded
        self.uniqueKeys = uniqueKeys
    }

    /// The primary-key property, if the class has one.
    public var primaryKeyProperty: Property? { properties.first { $0.isPrimaryKey } }

    /// The property with that name.
    public subscript(propertyName: String) -> Property? { properties.first { $0.name == propertyName } }

    /// `class Name { properties… }` (`embedded class` for embedded ones), one property per line.
    public var description: String {
        (isEmbedded ? "embedded class " : "class ") + "\(className) {\n" + properties.map { "    \($0)\n" }.joined()
            + uniqueKeys.map { "    unique (\($0.joined(separator: ", ")))\n" }.joined() + "}"
    }

    /// Differences in stored data between two descriptions of the same class, as sentences;
    /// empty if rows of one can be read as the other (index changes excepted).
    func dataDifferences(from other: ObjectSchema) -> [String] {
        var changes: [String] = []
        if isEmbedded != other.isEmbedded {
            changes.append(isEmbedded ? "the class became embedded" : "the class is no longer embedded")
        }
        for p in properties where !p.isComputed {
            guard let q = other[p.name], !q.isComputed else {
                changes.append("property '\(p.name)' was added")
                continue
            }
            if !p.storesSameData(as: q) {
                changes.append("property '\(p.name)' changed from \(q.typeName)\(q.isPrimaryKey ? " (primary key)" : "") to \(p.typeName)\(p.isPrimaryKey ? " (primary key)" : "")")
            }
        }
        for q in other.properties where !q.isComputed && (self[q.name].map(\.isComputed) ?? true) {
            changes.append("property '\(q.name)' was removed")
        }
        return changes
    }
}

/// The set of classes of a database.
///
/// ```swift
/// for objectSchema in db.schema.objectSchema { print(objectSchema.className) }
/// ```
public struct Schema: Sendable, Hashable, CustomStringConvertible {
    /// The classes, sorted by name.
    public let objectSchema: [ObjectSchema]

    /// Creates a schema from class descriptions.
    public init(objectSchema: [ObjectSchema]) {
        self.objectSchema = objectSchema.sorted { $0.className < $1.className }
    }

    /// The class with that name.
    public subscript(className: String) -> ObjectSchema? { objectSchema.first { $0.className == className } }

    /// Every class, separated by blank lines.
    public var description: String { objectSchema.map(\.description).joined(separator: "\n\n") }
}
